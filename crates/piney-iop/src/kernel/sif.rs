//! The IOP's side of the SIF: its DMA channels 9 (SIF0) and 10 (SIF1) at work, the DMA
//! interrupt dispatch, and sifman (the SIF DMA library).
//!
//! sifman's rules (the console's): sceSifSetDma(transfers, n) turns each { src, dest, size,
//! attr } into an IOP tag of four words: { src | 0x4000_0000 when attr has INT_I (end of chain)
//! | 0x8000_0000 on the batch's last tag (interrupt and end), size in words, the EE's tag: qwc |
//! 0x1000_0000 (cnts) | 0x8000_0000 when attr has INT_O (the EE interrupts after it), dest }.
//! A batch starts at once when channel 9 is idle, else it waits for the running one; at most 32
//! transfers wait. The id returned is (batch number << 16) | (index << 8) | count, and
//! sceSifDmaStat(id) answers 1 while the batch waits, 0 while it runs, -1 when it is done.
//! sceSifSetDChain arms channel 10 to take the EE's tags and data from the SIF1 FIFO.

use std::collections::VecDeque;

use super::{Cont, Iop, IopError, LibDef, Ret, kerr, ret};
use crate::events::EventKind;
use crate::hw::dmac::{self, CHCR_BUSY, CYCLES_PER_WORD, SIF0, SIF1, TAG_CYCLES};
use crate::hw::intc::line;

/// Transfer attribute: interrupt this side when done (and end the IOP's chain).
pub const ATTR_INT_I: u32 = 0x2;
/// Transfer attribute: interrupt the other side (the EE) when done.
pub const ATTR_INT_O: u32 = 0x4;
/// The most transfers sifman holds.
pub const MAX_TRANSFERS: usize = 32;

/// One queued SIF0 transfer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Transfer {
    /// IOP source.
    pub src: u32,
    /// EE destination.
    pub dest: u32,
    /// Bytes.
    pub size: u32,
    /// SIF_DMA_* attributes.
    pub attr: u32,
}

/// sifman's state.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct SifMan {
    /// Transfers waiting for channel 9.
    pub waiting: Vec<Transfer>,
    /// The batch number of the waiting transfers (the next to start).
    pub batch: u32,
    /// The batch channel 9 runs, if any.
    pub running: Option<u32>,
    /// The two tag buffers in IOP RAM (32 tags of 16 bytes each), the one to fill next.
    pub tag_bufs: [u32; 2],
    /// Which tag buffer the next batch uses.
    pub next_buf: usize,
    /// Data native modules send, by buffer number (their transfers' source addresses are
    /// [`NATIVE_SRC`] | number, outside IOP RAM).
    pub native_bufs: std::collections::BTreeMap<u32, Vec<u8>>,
    /// The next buffer number.
    pub next_native: u32,
}

/// Source addresses of native modules' SIF0 data: beyond the 8 MiB RAM window, in the 24 bits
/// an IOP tag holds.
pub const NATIVE_SRC: u32 = 0x00f0_0000;

impl SifMan {
    /// Keep `data` for a SIF0 transfer; returns its source address.
    pub fn add_native_buffer(&mut self, data: Vec<u8>) -> u32 {
        let n = self.next_native;
        self.next_native = (self.next_native + 1) & 0xffff;
        self.native_bufs.insert(n, data);
        NATIVE_SRC | n
    }
}

impl Iop {
    /// Queue SIF0 transfers; returns the id, or 0 when they do not fit.
    pub fn sif_set_dma(&mut self, list: &[Transfer]) -> u32 {
        let s = &mut self.kernel.sifman;
        if list.is_empty() || MAX_TRANSFERS - s.waiting.len() < list.len() {
            return 0;
        }
        let index = s.waiting.len() as u32;
        s.waiting.extend_from_slice(list);
        let id = ((s.batch & 0xffff) << 16) | (index << 8) | (list.len() as u32 & 0xff);
        if s.running.is_none() {
            self.sif0_start_batch();
        }
        id
    }

    /// sceSifDmaStat.
    pub fn sif_dma_stat(&self, id: u32) -> i32 {
        let s = &self.kernel.sifman;
        let b = (id >> 16) & 0xffff;
        if !s.waiting.is_empty() && s.batch & 0xffff == b {
            return 1;
        }
        if s.running.is_some_and(|r| r & 0xffff == b) {
            return 0;
        }
        -1
    }

    /// Start the waiting transfers on channel 9: their tags into a tag buffer, TADR, CHCR.
    fn sif0_start_batch(&mut self) {
        let list = std::mem::take(&mut self.kernel.sifman.waiting);
        if list.is_empty() {
            self.kernel.sifman.running = None;
            return;
        }
        let buf = self.kernel.sifman.tag_bufs[self.kernel.sifman.next_buf];
        self.kernel.sifman.next_buf ^= 1;
        for (i, t) in list.iter().enumerate() {
            let words = t.size.wrapping_add(3) >> 2;
            let qwc = t.size.wrapping_add(15) >> 4;
            let mut data = t.src & 0x00ff_ffff;
            if t.attr & ATTR_INT_I != 0 {
                data |= 0x4000_0000;
            }
            if i + 1 == list.len() {
                data |= 0x8000_0000;
            }
            let mut count = qwc | 0x1000_0000;
            if t.attr & ATTR_INT_O != 0 {
                count |= 0x8000_0000;
            }
            let at = buf + 16 * i as u32;
            self.bus.set_ram_u32(at, data);
            self.bus
                .set_ram_u32(at.wrapping_add(4), words & 0x00ff_ffff);
            self.bus.set_ram_u32(at.wrapping_add(8), count);
            self.bus
                .set_ram_u32(at.wrapping_add(12), t.dest & 0x1fff_ffff);
        }
        let s = &mut self.kernel.sifman;
        s.running = Some(s.batch);
        s.batch = s.batch.wrapping_add(1);
        let c = &mut self.bus.hw.dmac.ch[SIF0];
        c.tadr = buf;
        c.chcr = 0x0100_0701;
        self.bus.hw.dmac.sif0 = dmac::SifRun::default();
        let at = self.cpu.cycles + TAG_CYCLES;
        self.events.cancel(EventKind::Dma(SIF0 as u8));
        self.events.schedule(at, EventKind::Dma(SIF0 as u8));
    }

    /// Arm channel 10 to take the EE's tags and data (sceSifSetDChain).
    pub fn sif_set_dchain(&mut self) {
        let c = &mut self.bus.hw.dmac.ch[SIF1];
        c.chcr = 0x4100_0300;
        self.bus.hw.dmac.sif1 = dmac::SifRun::default();
        let at = self.cpu.cycles + TAG_CYCLES;
        self.events.cancel(EventKind::Dma(SIF1 as u8));
        self.events.schedule(at, EventKind::Dma(SIF1 as u8));
    }

    /// The EE side took or gave SIF words: let the SIF channels look again now.
    pub fn sif_wake(&mut self) {
        for c in [SIF0, SIF1] {
            if self.bus.hw.dmac.ch[c].chcr & CHCR_BUSY != 0
                && self.events.due_of(EventKind::Dma(c as u8)).is_none()
            {
                self.events
                    .schedule(self.cpu.cycles, EventKind::Dma(c as u8));
            }
        }
    }

    /// A channel's event: move what can be moved now.
    pub fn dma_event(&mut self, c: usize) -> Result<(), IopError> {
        match c {
            SIF0 => self.sif0_step(),
            SIF1 => self.sif1_step(),
            crate::sound::CH_CORE0 | crate::sound::CH_CORE1 => self.spu2_dma_event(c),
            _ => Ok(()),
        }
    }

    fn finish_channel(&mut self, c: usize) {
        if self.bus.hw.dmac.finish(c) {
            self.bus.hw.intc.raise(line::DMA);
        }
    }

    fn sif0_step(&mut self) -> Result<(), IopError> {
        if self.bus.hw.dmac.ch[SIF0].chcr & CHCR_BUSY == 0 {
            return Ok(());
        }
        let mut spent = 0u64;
        loop {
            let run = self.bus.hw.dmac.sif0;
            if !run.have_tag {
                if self.bus.hw.sif.room0() < 4 {
                    break;
                }
                let t = self.bus.hw.dmac.ch[SIF0].tadr;
                let (data, words, ee_lo, ee_hi) = (
                    self.bus.ram_u32(t),
                    self.bus.ram_u32(t.wrapping_add(4)),
                    self.bus.ram_u32(t.wrapping_add(8)),
                    self.bus.ram_u32(t.wrapping_add(12)),
                );
                let sif = &mut self.bus.hw.sif;
                sif.fifo0.extend([ee_lo, ee_hi, 0, 0]);
                sif.ee_wake = true;
                let ch = &mut self.bus.hw.dmac.ch[SIF0];
                ch.tadr = t + 16;
                ch.madr = data & 0x00ff_ffff;
                // Whole quadwords cross; the EE's tag counts them.
                let qw = (words & 0x00ff_ffff).div_ceil(4) * 4;
                let src = data & 0x00ff_ffff;
                self.bus.hw.dmac.sif0 = dmac::SifRun {
                    left: qw,
                    last: data & 0xc000_0000 != 0,
                    have_tag: true,
                    native: (src & 0x00f0_0000 == NATIVE_SRC).then_some(src & 0xffff),
                    offset: 0,
                };
                spent += TAG_CYCLES;
                continue;
            }
            if run.left > 0 {
                let n = (run.left as usize).min(self.bus.hw.sif.room0());
                if n == 0 {
                    break;
                }
                let madr = self.bus.hw.dmac.ch[SIF0].madr;
                if let Some(b) = run.native {
                    let buf = self.kernel.sifman.native_bufs.get(&b);
                    for i in 0..n as u32 {
                        let at = (run.offset + 4 * i) as usize;
                        let w = buf.and_then(|d| d.get(at..)).map_or(0, |s| {
                            let mut x = [0u8; 4];
                            for (k, b) in s.iter().take(4).enumerate() {
                                x[k] = *b;
                            }
                            u32::from_le_bytes(x)
                        });
                        self.bus.hw.sif.fifo0.push_back(w);
                    }
                    self.bus.hw.dmac.sif0.offset += 4 * n as u32;
                } else {
                    for i in 0..n as u32 {
                        let w = self.bus.ram_u32(madr + 4 * i);
                        self.bus.hw.sif.fifo0.push_back(w);
                    }
                }
                self.bus.hw.sif.ee_wake = true;
                self.bus.hw.dmac.ch[SIF0].madr = madr + 4 * n as u32;
                self.bus.hw.dmac.sif0.left -= n as u32;
                spent += n as u64 * CYCLES_PER_WORD;
                continue;
            }
            // The block is done.
            if let Some(b) = run.native {
                self.kernel.sifman.native_bufs.remove(&b);
            }
            if run.last {
                self.finish_channel(SIF0);
                // The batch is done: start the next one (sifman's own channel-end work).
                self.kernel.sifman.running = None;
                self.sif0_start_batch();
                return Ok(());
            }
            self.bus.hw.dmac.sif0.have_tag = false;
        }
        // Blocked on a full FIFO: the EE's taking words wakes the channel.
        let _ = spent;
        Ok(())
    }

    fn sif1_step(&mut self) -> Result<(), IopError> {
        if self.bus.hw.dmac.ch[SIF1].chcr & CHCR_BUSY == 0 {
            return Ok(());
        }
        loop {
            let run = self.bus.hw.dmac.sif1;
            if !run.have_tag {
                if self.bus.hw.sif.fifo1.len() < 2 {
                    break;
                }
                let sif = &mut self.bus.hw.sif;
                let data = sif.fifo1.pop_front().unwrap_or(0);
                let words = sif.fifo1.pop_front().unwrap_or(0);
                sif.iop_wake = false;
                sif.ee_wake = true;
                self.bus.hw.dmac.ch[SIF1].madr = data & 0x00ff_ffff;
                self.bus.hw.dmac.sif1 = dmac::SifRun {
                    left: words & 0x000f_fffc,
                    last: data & 0xc000_0000 != 0,
                    have_tag: true,
                    native: None,
                    offset: 0,
                };
                continue;
            }
            if run.left > 0 {
                let n = (run.left as usize).min(self.bus.hw.sif.fifo1.len());
                if n == 0 {
                    break;
                }
                let madr = self.bus.hw.dmac.ch[SIF1].madr;
                for i in 0..n as u32 {
                    let w = self.bus.hw.sif.fifo1.pop_front().unwrap_or(0);
                    self.bus.set_ram_u32(madr + 4 * i, w);
                }
                self.bus.hw.sif.ee_wake = true;
                self.bus.hw.dmac.ch[SIF1].madr = madr + 4 * n as u32;
                self.bus.hw.dmac.sif1.left -= n as u32;
                continue;
            }
            if run.last {
                self.finish_channel(SIF1);
                return Ok(());
            }
            self.bus.hw.dmac.sif1.have_tag = false;
        }
        Ok(())
    }
}

/// The native handler on the DMA line: each raised channel flag runs the channel's handler
/// (interrupt code 0x20 + n); one that returns 0 has its channel interrupt disabled.
pub fn dma_dispatch(iop: &mut Iop) -> Result<Ret, IopError> {
    let ra = iop.native_ret;
    let sp = iop.cpu.gpr[29];
    dma_chain(iop, ra, sp)
}

/// Continuation tag: a DMA channel handler returned (data: code, ra, sp).
pub const CONT_DMA_CHAIN: u32 = 0x646d_0001;

fn dma_chain(iop: &mut Iop, ra: u32, sp: u32) -> Result<Ret, IopError> {
    iop.cpu.gpr[29] = sp;
    iop.native_ret = ra;
    let Some(&n) = iop.bus.hw.dmac.pending().first() else {
        return Ok(Ret::V(1));
    };
    iop.bus.hw.dmac.ack(n);
    let h = iop.intr_handler((0x20 + n) as usize);
    if h.field == 0 {
        iop.bus.hw.dmac.irq_enable(n, false);
        return dma_chain(iop, ra, sp);
    }
    iop.kernel.intr_cont.push(Cont::Module {
        tag: CONT_DMA_CHAIN,
        data: [n, ra, sp, 0, 0, 0],
    });
    iop.call_guest(h.field & !3, &[h.arg], ret::CONTINUE);
    Ok(Ret::Done)
}

/// A DMA channel handler returned.
pub fn dma_chain_continue(iop: &mut Iop, data: [u32; 6]) -> Result<(), IopError> {
    let [n, ra, sp, ..] = data;
    if iop.cpu.gpr[2] == 0 {
        iop.bus.hw.dmac.irq_enable(n, false);
    }
    if let Ret::V(v) = dma_chain(iop, ra, sp)? {
        iop.cpu.gpr[2] = v;
        iop.cpu.set_pc(ra);
    }
    Ok(())
}

// ---- sifman's exports ----

fn v(x: i32) -> Result<Ret, IopError> {
    Ok(Ret::V(x as u32))
}

fn read_transfers(iop: &Iop, p: u32, n: u32) -> Vec<Transfer> {
    (0..n.min(MAX_TRANSFERS as u32 + 1))
        .map(|i| {
            let a = p + 16 * i;
            Transfer {
                src: iop.bus.ram_u32(a),
                dest: iop.bus.ram_u32(a.wrapping_add(4)),
                size: iop.bus.ram_u32(a.wrapping_add(8)),
                attr: iop.bus.ram_u32(a.wrapping_add(12)),
            }
        })
        .collect()
}

fn set_dma(iop: &mut Iop) -> Result<Ret, IopError> {
    let (p, n) = (iop.arg(0), iop.arg(1));
    let list = read_transfers(iop, p, n);
    Ok(Ret::V(iop.sif_set_dma(&list)))
}

fn dma_stat(iop: &mut Iop) -> Result<Ret, IopError> {
    let id = iop.arg(0);
    v(iop.sif_dma_stat(id))
}

fn set_dchain(iop: &mut Iop) -> Result<Ret, IopError> {
    iop.sif_set_dchain();
    v(kerr::OK)
}

fn get_msflag(iop: &mut Iop) -> Result<Ret, IopError> {
    Ok(Ret::V(iop.bus.hw.sif.msflg))
}

fn set_msflag(iop: &mut Iop) -> Result<Ret, IopError> {
    // The IOP clears MSFLG bits by writing them.
    let b = iop.arg(0);
    iop.bus.hw.sif.iop_write(0x20, b);
    Ok(Ret::V(iop.bus.hw.sif.msflg))
}

fn get_smflag(iop: &mut Iop) -> Result<Ret, IopError> {
    Ok(Ret::V(iop.bus.hw.sif.smflg))
}

fn set_smflag(iop: &mut Iop) -> Result<Ret, IopError> {
    let b = iop.arg(0);
    iop.bus.hw.sif.iop_write(0x30, b);
    Ok(Ret::V(iop.bus.hw.sif.smflg))
}

fn get_main_addr(iop: &mut Iop) -> Result<Ret, IopError> {
    Ok(Ret::V(iop.bus.hw.sif.mscom))
}

fn get_sub_addr(iop: &mut Iop) -> Result<Ret, IopError> {
    Ok(Ret::V(iop.bus.hw.sif.smcom))
}

fn set_sub_addr(iop: &mut Iop) -> Result<Ret, IopError> {
    let a = iop.arg(0);
    iop.bus.hw.sif.iop_write(0x10, a);
    Ok(Ret::V(a))
}

fn check_init(iop: &mut Iop) -> Result<Ret, IopError> {
    v((iop.bus.hw.sif.smflg & crate::hw::sif::STAT_SIFINIT != 0) as i32)
}

fn nop_ok(_: &mut Iop) -> Result<Ret, IopError> {
    v(kerr::OK)
}

fn is_sending(iop: &mut Iop) -> Result<Ret, IopError> {
    let id = iop.arg(0);
    v((iop.sif_dma_stat(id) >= 0) as i32)
}

/// sifman.
pub const SIFMAN: LibDef = LibDef {
    name: "sifman",
    version: 0x0101,
    funcs: &[
        (4, "sceSifDma2Init", nop_ok),
        (5, "sceSifInit", nop_ok),
        (6, "sceSifSetDChain", set_dchain),
        (7, "sceSifSetDma", set_dma),
        (8, "sceSifDmaStat", dma_stat),
        (10, "sceSifSendSync", nop_ok),
        (11, "sceSifIsSending", is_sending),
        (21, "sceSifGetMSFlag", get_msflag),
        (22, "sceSifSetMSFlag", set_msflag),
        (23, "sceSifGetSMFlag", get_smflag),
        (24, "sceSifSetSMFlag", set_smflag),
        (25, "sceSifGetMainAddr", get_main_addr),
        (26, "sceSifGetSubAddr", get_sub_addr),
        (27, "sceSifSetSubAddr", set_sub_addr),
        (29, "sceSifCheckInit", check_init),
    ],
};

/// The transfers a native module wants sent to the EE, in order.
pub type ToEe = VecDeque<(u32, Vec<u8>)>;
