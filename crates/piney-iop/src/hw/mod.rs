//! The IOP's hardware units, each owning its registers, and the router from physical addresses
//! to them.
//!
//! Contract: [`Hardware::read`] and [`Hardware::write`] take a physical address and an access
//! size (1, 2 or 4 bytes); `None`/`false` means nothing answers there (a bus error). Units that
//! piney does not emulate yet (the SPU2, the CD/DVD drive, DEV9) answer reads with 0 and drop
//! writes, so that probing drivers do not fault.

pub mod intc;

use intc::Intc;

/// Physical base of the hardware register window.
pub const HW_BASE: u32 = 0x1f80_1000;

/// The hardware units.
#[derive(Debug, Default)]
pub struct Hardware {
    /// The interrupt controller.
    pub intc: Intc,
    /// Registers stored as written, read back as stored, with no behaviour (the memory
    /// controller's delay and size registers at 0x1f80_1000.., 0x1f80_1400..; the POST register).
    plain: std::collections::BTreeMap<u32, u32>,
}

impl Hardware {
    /// Enable or disable the interrupt of DMA interrupt code `n` (IOP_IRQ_DMA_* - 0x20: 0..6
    /// the first controller's channels, 7 its bus error, 8..13 the second's channels 7..12) in
    /// DICR/DICR2; returns whether it was enabled.
    pub fn dma_irq_enable(&mut self, n: u32, on: bool) -> bool {
        let (reg, bit) = match n {
            0..=6 => (0x1f80_10f4, 16 + n),
            7 => (0x1f80_10f4, 15),
            8..=13 => (0x1f80_1574, 16 + n - 8),
            _ => return false,
        };
        let old = self.plain.get(&reg).copied().unwrap_or(0);
        let new = if on {
            old | (1 << bit)
        } else {
            old & !(1 << bit)
        };
        self.plain.insert(reg, new);
        old & (1 << bit) != 0
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
