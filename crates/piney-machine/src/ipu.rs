//! The IPU on the EE bus: its registers (0x1000_2000..0x1000_2040), its FIFOs (IPU_out_FIFO
//! 0x1000_7000, IPU_in_FIFO 0x1000_7010), the interrupt at a command's end (INTC line 8) and the
//! glue the DMAC's channels 3 (fromIPU) and 4 (toIPU) use.
//!
//! Contract: the IPU state machine is [`piney_ipu::Ipu`]; [`EeBus::ipu_run`] is called after
//! anything that can let it progress (a command write, data in, data out). When a command's work
//! is done it schedules [`Event::Ipu`] the command's latency later; that event clears BUSY and
//! raises INTC IPU. Running IPU DMA channels are kicked when the IPU takes or gives data.

use crate::bus::EeBus;
use crate::dmac::{CHCR, CHCR_STR, ch};
use crate::scheduler::Event;

impl EeBus {
    /// An EE read of an IPU register (physical address; the registers repeat every 0x100).
    pub fn ipu_read32(&mut self, p: u32) -> u32 {
        self.ipu.read32(p & 0xff)
    }

    /// An EE write of an IPU register: IPU_CMD starts a command, IPU_CTRL sets the decoding
    /// parameters (RST resets).
    pub fn ipu_write32(&mut self, p: u32, v: u32) {
        let off = p & 0xff;
        // A new command or a reset replaces the ending one: its pending end event goes.
        if off & 0xf0 == 0x00 || (off & 0xf0 == 0x10 && v & piney_ipu::ctrl::RST != 0) {
            self.sched.cancel(Event::Ipu);
        }
        self.ipu.write32(off, v);
        self.ipu_run();
    }

    /// An EE read of IPU_out_FIFO (0x1000_7000..0x1000_700f): word 0 takes a quadword.
    pub fn ipu_fifo_read(&mut self, p: u32) -> u32 {
        let v = self.ipu.read_out_word((p >> 2) & 3);
        self.ipu_run();
        v
    }

    /// EE writes to IPU_in_FIFO (0x1000_7010): four words make a quadword. A quadword that finds
    /// the FIFO full is lost (the console would stall the write; programs feed it by DMA).
    pub fn ipu_fifo_write(&mut self, words: &[u32]) {
        for &w in words {
            self.ipu.push_in_word(w);
        }
        self.ipu_run();
    }

    /// Let the IPU work on what it has; schedule its end; kick the IPU DMA channels.
    pub fn ipu_run(&mut self) {
        self.ipu.run();
        if let Some(lat) = self.ipu.take_finished() {
            self.sched.cancel(Event::Ipu);
            self.sched.schedule_at(self.now + lat, Event::Ipu);
        }
        for c in [ch::FROM_IPU, ch::TO_IPU] {
            let ready = if c == ch::FROM_IPU {
                self.ipu.out_len() > 0
            } else {
                self.ipu.in_room() > 0
            };
            if ready && self.dreg(c, CHCR) & CHCR_STR != 0 {
                self.dmac_kick(c);
            }
        }
    }

    /// [`Event::Ipu`]: the command ends; BUSY clears and INTC IPU (line 8) is raised.
    pub fn ipu_event(&mut self) {
        if self.ipu.complete() {
            self.intc.raise(crate::intc::line::IPU);
            self.irq_changed();
        }
    }
}

#[cfg(test)]
mod tests {
    use piney_ee::Bus;

    use crate::Machine;
    use crate::dmac::{CHANNEL_BASE, CHCR, MADR, QWC, ch};

    fn machine() -> Machine {
        Machine::new(Box::new(std::io::sink()))
    }

    fn chan(m: &mut Machine, c: usize, reg: u32, v: u32) {
        m.bus
            .write32(0x1000_0000 + CHANNEL_BASE[c] + reg, v)
            .expect("DMA register");
    }

    /// BDEC of one intra DC-only macroblock: toIPU (normal) feeds it, fromIPU (normal) drains
    /// the raw16 result; the command's end raises INTC IPU.
    #[test]
    fn bdec_through_both_dma_channels() {
        let mut m = machine();
        // Luma DC +8 ("110" 1000), 0 ("100"), -16 ("1110" 01111), 0; chroma +10 ("1110" 1010),
        // -20 ("11110" 01011); each block ends with EOB "10". Then 32 one-bits for TOP.
        let bits =
            "110100010100101110011111010010111010101011110010111011111111111111111111111111111111";
        let mut stream = [0u8; 16];
        for (i, b) in bits.bytes().enumerate() {
            if b == b'1' {
                stream[i / 8] |= 0x80 >> (i % 8);
            }
        }
        m.bus.write_bytes(0x1_0000, &stream).expect("RAM");
        m.bus.write32(0x1000_2000, 0x2c01_0000).expect("IPU_CMD"); // BDEC MBI DCR QSC 1
        chan(&mut m, ch::TO_IPU, MADR, 0x1_0000);
        chan(&mut m, ch::TO_IPU, QWC, 1);
        chan(&mut m, ch::TO_IPU, CHCR, 0x101);
        chan(&mut m, ch::FROM_IPU, MADR, 0x2_0000);
        chan(&mut m, ch::FROM_IPU, QWC, 48);
        chan(&mut m, ch::FROM_IPU, CHCR, 0x100);
        let now = m.cpu.cycles;
        m.run_events_until(now + 100_000).expect("no DMA fault");
        let mut out = [0u8; 768];
        m.bus.read_bytes(0x2_0000, &mut out).expect("RAM");
        let h = |i: usize| u16::from_le_bytes([out[2 * i], out[2 * i + 1]]);
        assert_eq!(
            (h(0), h(8), h(128), h(256), h(320)),
            (136, 136, 120, 138, 108)
        );
        assert_eq!(m.bus.read32(0x1000_e010).expect("D_STAT") & 0x18, 0x18);
        assert_ne!(m.bus.intc.stat & (1 << crate::intc::line::IPU), 0);
        assert_eq!(m.bus.read32(0x1000_2010).expect("IPU_CTRL") >> 31, 0);
        assert_eq!(m.bus.read32(0x1000_2030).expect("IPU_TOP"), 0xffff_ffff);
    }

    /// A 128-bit EE read of IPU_out_FIFO takes one quadword; CPU writes feed IPU_in_FIFO.
    #[test]
    fn fifo_access_by_the_cpu() {
        let mut m = machine();
        // SETTH is immediate; CSC of one macroblock of raw8 fed by 24 128-bit stores.
        m.bus.write32(0x1000_2000, 0x7000_0001).expect("CSC");
        for _ in 0..16 {
            m.bus
                .write128(0x1000_7010, u128::from_le_bytes([235; 16]))
                .expect("in FIFO");
        }
        for _ in 0..8 {
            m.bus
                .write128(0x1000_7010, u128::from_le_bytes([128; 16]))
                .expect("in FIFO");
        }
        let mut got = 0;
        for _ in 0..64 {
            let q = m.bus.read128(0x1000_7000).expect("out FIFO");
            assert_eq!(q, 0x80ff_ffff_80ff_ffff_80ff_ffff_80ff_ffff);
            got += 1;
        }
        assert_eq!(got, 64);
        let now = m.cpu.cycles;
        m.run_events_until(now + 1000).expect("events");
        assert_eq!(m.bus.read32(0x1000_2010).expect("IPU_CTRL") >> 31, 0);
    }

    /// fromIPU has no chain mode: starting it so is a DMA error naming the channel.
    #[test]
    fn from_ipu_chain_mode_is_an_error() {
        let mut m = machine();
        chan(&mut m, ch::FROM_IPU, CHCR, 0x104);
        let now = m.cpu.cycles;
        let e = m.run_events_until(now + 1000).expect_err("a DMA error");
        assert!(e.to_string().contains("DMA channel 3"), "{e}");
    }
}
