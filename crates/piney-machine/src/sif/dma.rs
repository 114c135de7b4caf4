//! EE DMA channels 5 (SIF0, IOP -> EE) and 6 (SIF1, EE -> IOP) against the SIF FIFOs.
//!
//! Channel 6 runs in source chain mode with TTE (as the kernel's SifSetDma starts it): each tag
//! sends its upper 64 bits (the IOP's tag) into SIF1, then its quadwords; normal mode sends
//! MADR/QWC's quadwords. Channel 5 runs in destination chain mode: each tag is the next
//! quadword in SIF0 (QWC bits 0-15, ID bits 28-30: 0 cnt, 1 cnts, 7 end; IRQ bit 31; the
//! address in bits 32-62), then its quadwords go to memory; with CHCR.TIE the channel stops after
//! a tag with IRQ, as after an end tag. Either side waits while the FIFO is full (6) or empty
//! (5); the IOP's moving words wakes it. A quadword costs the DMAC's usual
//! [`crate::dmac::CYCLES_PER_QWORD`].

use crate::bus::EeBus;
use crate::dmac::{
    CHCR, CHCR_STR, CHCR_TIE, CHCR_TTE, CYCLES_PER_QWORD, DmaFault, MADR, QWC, TADR, TAG_CYCLES, ch,
};

impl EeBus {
    /// One event of channel 5 or 6.
    pub fn sif_step(&mut self, c: usize) -> Result<(), DmaFault> {
        if self.dreg(c, CHCR) & CHCR_STR == 0 {
            return Ok(());
        }
        let spent = if c == ch::SIF0 {
            self.sif0_move()?
        } else {
            self.sif1_move()?
        };
        if let Some(t) = spent {
            let at = self.now + t.max(1);
            self.dmac_schedule(c, at);
        }
        Ok(())
    }

    /// SIF0 into memory; the cycles spent, or None when it waits on the FIFO or finished.
    fn sif0_move(&mut self) -> Result<Option<u64>, DmaFault> {
        let c = ch::SIF0;
        let mut spent = 0u64;
        loop {
            let qwc = self.dreg(c, QWC) & 0xffff;
            if qwc == 0 {
                if self.dmac.run[c].end_after {
                    self.sif_finish(c);
                    return Ok(None);
                }
                let fifo = &mut self.iop.bus.hw.sif.fifo0;
                if fifo.len() < 4 {
                    return Ok(if spent > 0 { Some(spent) } else { None });
                }
                let w: Vec<u32> = fifo.drain(..4).collect();
                self.iop.bus.hw.sif.iop_wake = true;
                let id = (w[0] >> 28) & 7;
                let irq = w[0] & 0x8000_0000 != 0;
                let chcr = self.dreg(c, CHCR);
                self.set_sif_reg(c, CHCR, (chcr & 0xffff) | (w[0] & 0xffff_0000));
                self.set_sif_reg(c, MADR, w[1] & 0x7fff_fff0);
                self.set_sif_reg(c, QWC, w[0] & 0xffff);
                self.dmac.run[c].end_after = id == 7 || (irq && chcr & CHCR_TIE != 0);
                self.dmac.run[c].tag_addr = w[1];
                spent += TAG_CYCLES;
                if !matches!(id, 0 | 1 | 7) {
                    return Err(self.sif_fault(
                        c,
                        format!("SIF0 tag with ID {id} (only cnt, cnts, end exist)"),
                    ));
                }
                continue;
            }
            let avail = self.iop.bus.hw.sif.fifo0.len() / 4;
            let n = (qwc as usize).min(avail);
            if n == 0 {
                return Ok(if spent > 0 { Some(spent) } else { None });
            }
            let madr = self.dreg(c, MADR);
            for i in 0..n as u32 {
                let fifo = &mut self.iop.bus.hw.sif.fifo0;
                let mut q = 0u128;
                for k in 0..4 {
                    q |= (fifo.pop_front().unwrap_or(0) as u128) << (32 * k);
                }
                let at = madr.wrapping_add(16 * i);
                if self.dma_write_qw(at, q).is_none() {
                    return Err(
                        self.sif_fault(c, format!("SIF0 destination {at:#010x} is outside memory"))
                    );
                }
            }
            self.iop.bus.hw.sif.iop_wake = true;
            self.set_sif_reg(c, MADR, madr.wrapping_add(16 * n as u32));
            self.set_sif_reg(c, QWC, qwc - n as u32);
            spent += n as u64 * CYCLES_PER_QWORD;
        }
    }

    /// SIF1 from memory; the cycles spent, or None when it waits on the FIFO or finished.
    fn sif1_move(&mut self) -> Result<Option<u64>, DmaFault> {
        let c = ch::SIF1;
        let mut spent = 0u64;
        let mode = (self.dreg(c, CHCR) >> 2) & 3;
        loop {
            let qwc = self.dreg(c, QWC) & 0xffff;
            if qwc == 0 {
                if mode != 1 || self.dmac.run[c].end_after {
                    self.sif_finish(c);
                    return Ok(None);
                }
                if self.iop.bus.hw.sif.room1() < 2 {
                    return Ok(if spent > 0 { Some(spent) } else { None });
                }
                let t = self.dreg(c, TADR);
                let Some(tag) = self.dma_read_qw(t) else {
                    return Err(
                        self.sif_fault(c, format!("DMAtag address {t:#010x} is outside memory"))
                    );
                };
                self.dmac.run[c].tag_addr = t;
                let lo = tag as u64;
                let id = (lo >> 28) & 7;
                let addr = (lo >> 32) as u32 & 0x7fff_fff0;
                let qwc = (lo & 0xffff) as u32;
                let after = t.wrapping_add(16);
                let (madr, tadr, end) = match id {
                    // refe
                    0 => (addr, after, true),
                    // cnt
                    1 => (after, after.wrapping_add(16 * qwc), false),
                    // next
                    2 => (after, addr, false),
                    // ref / refs
                    3 | 4 => (addr, after, false),
                    // end
                    7 => (after, t, true),
                    _ => {
                        return Err(self.sif_fault(
                            c,
                            format!("SIF1 chain tag with ID {id} (call/ret are not for SIF1)"),
                        ));
                    }
                };
                let irq = lo >> 31 & 1 != 0;
                let chcr = self.dreg(c, CHCR);
                self.set_sif_reg(c, CHCR, (chcr & 0xffff) | (lo as u32 & 0xffff_0000));
                self.set_sif_reg(c, MADR, madr);
                self.set_sif_reg(c, TADR, tadr);
                self.set_sif_reg(c, QWC, qwc);
                self.dmac.run[c].end_after = end || (irq && chcr & CHCR_TIE != 0);
                self.dmac.run[c].tags += 1;
                if self.dmac.run[c].tags > crate::dmac::MAX_TAGS {
                    return Err(self.sif_fault(c, "runaway SIF1 chain: too many tags".into()));
                }
                if chcr & CHCR_TTE != 0 {
                    // The tag's upper 64 bits: the IOP's tag.
                    let sif = &mut self.iop.bus.hw.sif;
                    sif.fifo1.push_back((tag >> 64) as u32);
                    sif.fifo1.push_back((tag >> 96) as u32);
                    sif.iop_wake = true;
                }
                spent += TAG_CYCLES;
                continue;
            }
            let room = self.iop.bus.hw.sif.room1() / 4;
            let n = (qwc as usize).min(room);
            if n == 0 {
                return Ok(if spent > 0 { Some(spent) } else { None });
            }
            let madr = self.dreg(c, MADR);
            for i in 0..n as u32 {
                let at = madr.wrapping_add(16 * i);
                let Some(q) = self.dma_read_qw(at) else {
                    return Err(
                        self.sif_fault(c, format!("SIF1 source {at:#010x} is outside memory"))
                    );
                };
                let fifo = &mut self.iop.bus.hw.sif.fifo1;
                for k in 0..4 {
                    fifo.push_back((q >> (32 * k)) as u32);
                }
            }
            self.iop.bus.hw.sif.iop_wake = true;
            self.set_sif_reg(c, MADR, madr.wrapping_add(16 * n as u32));
            self.set_sif_reg(c, QWC, qwc - n as u32);
            spent += n as u64 * CYCLES_PER_QWORD;
        }
    }

    fn set_sif_reg(&mut self, c: usize, off: u32, v: u32) {
        self.io[((crate::dmac::CHANNEL_BASE[c] + off) / 4) as usize] = v;
    }

    /// Channel `c` is done: STR clears, CISn is set (channel 6: the kernel's next batch).
    fn sif_finish(&mut self, c: usize) {
        let chcr = self.dreg(c, CHCR);
        self.set_sif_reg(c, CHCR, chcr & !CHCR_STR);
        self.io[(0xe010 / 4) as usize] |= 1 << c;
        self.dmac.run[c].end_after = false;
        if c == ch::SIF1 {
            self.sif1_done = true;
        }
        self.irq_changed();
    }

    fn sif_fault(&mut self, c: usize, what: String) -> DmaFault {
        self.io[(0xe010 / 4) as usize] |= 1 << 15;
        let chcr = self.dreg(c, CHCR);
        self.set_sif_reg(c, CHCR, chcr & !CHCR_STR);
        self.irq_changed();
        DmaFault {
            channel: c,
            tag_addr: self.dmac.run[c].tag_addr,
            what,
        }
    }
}
