//! The IOP's hardware units, each owning its registers, and the router from physical addresses
//! to them.
//!
//! Contract: [`Hardware::read`] and [`Hardware::write`] take a physical address and an access
//! size (1, 2 or 4 bytes); `None`/`false` means nothing answers there (a bus error). Units that
//! piney does not emulate yet (the SPU2, the CD/DVD drive, DEV9) answer reads with 0 and drop
//! writes, so that probing drivers do not fault.

pub mod counters;
pub mod dmac;
pub mod intc;
pub mod sif;

use intc::Intc;

/// Physical base of the hardware register window.
pub const HW_BASE: u32 = 0x1f80_1000;

/// The hardware units.
#[derive(Debug, Default)]
pub struct Hardware {
    /// The interrupt controller.
    pub intc: Intc,
    /// The DMA controller.
    pub dmac: dmac::Dmac,
    /// The SIF registers and FIFOs.
    pub sif: sif::Sif,
    /// The root counters.
    pub counters: counters::Counters,
    /// The cycle count, as the CPU last told it (the counters read against it).
    pub now: u64,
    /// Counters whose interrupt timing changed (a register write), for the IOP to reschedule.
    pub counters_changed: bool,
    /// Registers stored as written, read back as stored, with no behaviour (the memory
    /// controller's delay and size registers at 0x1f80_1000.., 0x1f80_1400..; the POST register).
    plain: std::collections::BTreeMap<u32, u32>,
}

impl Hardware {
    /// Enable or disable the interrupt of DMA interrupt code `n` (IOP_IRQ_DMA_* - 0x20); returns
    /// whether it was enabled.
    pub fn dma_irq_enable(&mut self, n: u32, on: bool) -> bool {
        self.dmac.irq_enable(n, on)
    }

    /// Power-on state of every unit.
    pub fn reset(&mut self) {
        *self = Self::default();
    }

    /// Read `size` bytes at physical `p`.
    pub fn read(&mut self, p: u32, size: u32) -> Option<u32> {
        let word = p & !3;
        let shift = (p & 3) * 8;
        let v = match word {
            0x1f80_1070..=0x1f80_107b => self.intc.read(word - 0x1f80_1070),
            0x1f80_1080..=0x1f80_10ff | 0x1f80_1500..=0x1f80_157f
                if self.dmac.read(word).is_some() =>
            {
                self.dmac.read(word).unwrap_or(0)
            }
            0x1d00_0000..=0x1d00_006f => self.sif.iop_read(word - 0x1d00_0000),
            0x1f80_1100..=0x1f80_112f | 0x1f80_1480..=0x1f80_14af => {
                let (n, reg) = counters::Counters::decode(word).expect("counter");
                self.counters.read(n, reg, self.now)
            }
            // Memory control, DMA, timers, SIO2, the POST register: stored.
            0x1f80_1000..=0x1f80_1fff | 0x1f80_8000..=0x1f80_8fff => {
                self.plain.get(&word).copied().unwrap_or(0)
            }
            // The SPU2, the CD/DVD drive, DEV9: not emulated.
            0x1f90_0000..=0x1f90_ffff | 0x1f40_2000..=0x1f40_2fff | 0x1000_0000..=0x1001_ffff => 0,
            _ => return None,
        };
        Some(match size {
            1 => (v >> shift) & 0xff,
            2 => (v >> shift) & 0xffff,
            _ => v,
        })
    }

    /// Write `size` bytes of `v` at physical `p`.
    pub fn write(&mut self, p: u32, size: u32, v: u32) -> bool {
        let word = p & !3;
        let shift = (p & 3) * 8;
        let merge = |old: u32| match size {
            1 => (old & !(0xff << shift)) | ((v & 0xff) << shift),
            2 => (old & !(0xffff << shift)) | ((v & 0xffff) << shift),
            _ => v,
        };
        match word {
            0x1f80_1070..=0x1f80_107b => {
                let off = word - 0x1f80_1070;
                let old = match off {
                    0 => self.intc.stat,
                    4 => self.intc.mask,
                    _ => self.intc.ctrl,
                };
                // A partial write of I_STAT acknowledges only the bits it covers.
                let val = if off == 0 && size != 4 {
                    merge(old) | (old & !merge(0xffff_ffff))
                } else {
                    merge(old)
                };
                self.intc.write(off, val);
            }
            0x1f80_1100..=0x1f80_112f | 0x1f80_1480..=0x1f80_14af => {
                let (n, reg) = counters::Counters::decode(word).expect("counter");
                self.counters.write(n, reg, merge(0), self.now);
                self.counters_changed = true;
            }
            0x1d00_0000..=0x1d00_006f => {
                let old = self.sif.iop_read(word - 0x1d00_0000);
                self.sif
                    .iop_write(word - 0x1d00_0000, if size == 4 { v } else { merge(old) });
            }
            0x1f80_1080..=0x1f80_10ff | 0x1f80_1500..=0x1f80_157f
                if self.dmac.read(word).is_some() =>
            {
                let old = self.dmac.read(word).unwrap_or(0);
                self.dmac.write(word, merge(old));
            }
            0x1f80_1000..=0x1f80_1fff | 0x1f80_8000..=0x1f80_8fff => {
                let old = self.plain.get(&word).copied().unwrap_or(0);
                self.plain.insert(word, merge(old));
            }
            0x1f90_0000..=0x1f90_ffff | 0x1f40_2000..=0x1f40_2fff | 0x1000_0000..=0x1001_ffff => {}
            _ => return false,
        }
        true
    }
}
