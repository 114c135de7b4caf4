//! The IOP's DMA controller: two controllers of seven and six channels.
//!
//! Registers: channel n < 7 at 0x1f80_1080 + 0x10 n, n >= 7 at 0x1f80_1500 + 0x10 (n - 7): MADR
//! (+0), BCR (+4: block size in the low half, block count in the high half), CHCR (+8: bit 0
//! from memory, bits 9-10 the sync mode, bit 24 busy/start), TADR (+0xc: the tag address of a
//! chain). DPCR (0x1f80_10f0) and DPCR2 (0x1f80_1570) hold each channel's enable and priority;
//! DICR (0x1f80_10f4) and DICR2 (0x1f80_1574): bits 16..22 (DICR2: 16..21) enable a channel's
//! completion interrupt, bits 24..30 (24..29) are its flags, written 1 to clear, bit 23 of DICR
//! is the master enable and bit 31 the master flag; DMACEN (0x1f80_1578) bit 0 enables the
//! second controller.
//!
//! Channels modelled with their transfers: 9 (SIF0, IOP -> EE) and 10 (SIF1, EE -> IOP), in the
//! chain mode sifman uses ([`crate::hw::sif`] has the tag formats). The others (CDVD 3, SPU2 4
//! and 7, SIO2 11 and 12, DEV9 8...) keep their registers. A start (CHCR's bit 24 set by a
//! write, [`Dmac::started`]) is taken by the IOP ([`crate::kernel::dmacman`]): SIF0 and SIF1
//! run, any other channel stops the run with an error naming it (their devices come with the
//! disc and sound work).
//!
//! Timing (a choice, not measured on a console): a SIF word costs [`CYCLES_PER_WORD`] IOP
//! cycles (about 37 MB/s); a tag [`TAG_CYCLES`].

/// SIF0: IOP -> EE.
pub const SIF0: usize = 9;
/// SIF1: EE -> IOP.
pub const SIF1: usize = 10;
/// SIF2.
pub const SIF2: usize = 11;

/// IOP cycles per SIF word.
pub const CYCLES_PER_WORD: u64 = 4;
/// IOP cycles per tag.
pub const TAG_CYCLES: u64 = 8;

/// CHCR bit 24: the channel runs.
pub const CHCR_BUSY: u32 = 1 << 24;

/// The address of channel `n`'s register block.
pub fn channel_base(n: usize) -> u32 {
    if n < 7 {
        0x1f80_1080 + 0x10 * n as u32
    } else {
        0x1f80_1500 + 0x10 * (n as u32 - 7)
    }
}

/// A channel's registers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Channel {
    /// MADR.
    pub madr: u32,
    /// BCR.
    pub bcr: u32,
    /// CHCR.
    pub chcr: u32,
    /// TADR.
    pub tadr: u32,
}

/// A SIF channel's progress through its current tag.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SifRun {
    /// Words of the current block left to move.
    pub left: u32,
    /// Whether the channel stops after this block (the tag's IRQ or end bit).
    pub last: bool,
    /// Whether a tag has been read for the current block.
    pub have_tag: bool,
    /// The native module buffer the block comes from (SIF0), if not IOP RAM.
    pub native: Option<u32>,
    /// Bytes of it already sent.
    pub offset: u32,
}

/// The DMAC.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Dmac {
    /// The 13 channels (0..=12; 13 is unused).
    pub ch: [Channel; 14],
    /// DPCR.
    pub dpcr: u32,
    /// DPCR2.
    pub dpcr2: u32,
    /// DICR.
    pub dicr: u32,
    /// DICR2.
    pub dicr2: u32,
    /// DMACEN.
    pub dmacen: u32,
    /// DMACINTEN.
    pub dmacinten: u32,
    /// SIF0's progress.
    pub sif0: SifRun,
    /// SIF1's progress.
    pub sif1: SifRun,
    /// Channels whose start should be looked at (set by a CHCR write; taken by the IOP).
    pub started: u32,
}

impl Dmac {
    /// Read a register at physical `p`, if it is one of the DMAC's.
    pub fn read(&self, p: u32) -> Option<u32> {
        Some(match p {
            0x1f80_10f0 => self.dpcr,
            0x1f80_10f4 => self.dicr_value(),
            0x1f80_1570 => self.dpcr2,
            0x1f80_1574 => self.dicr2,
            0x1f80_1578 => self.dmacen,
            0x1f80_157c => self.dmacinten,
            _ => {
                let (n, reg) = Self::channel_reg(p)?;
                let c = &self.ch[n];
                match reg {
                    0 => c.madr,
                    4 => c.bcr,
                    8 => c.chcr,
                    _ => c.tadr,
                }
            }
        })
    }

    /// DICR with its master flag (bit 31) computed.
    fn dicr_value(&self) -> u32 {
        let flags = (self.dicr >> 24) & 0x7f | (self.dicr2 >> 24) & 0x3f;
        (self.dicr & 0x7fff_ffff)
            | if flags != 0 && self.dicr & (1 << 23) != 0 {
                1 << 31
            } else {
                0
            }
    }

    fn channel_reg(p: u32) -> Option<(usize, u32)> {
        let (base, first) = match p {
            0x1f80_1080..=0x1f80_10ef => (0x1f80_1080, 0),
            0x1f80_1500..=0x1f80_155f => (0x1f80_1500, 7),
            _ => return None,
        };
        let off = p - base;
        Some((first + (off / 0x10) as usize, off & 0xc))
    }

    /// Write a register; returns true when it was one of the DMAC's.
    pub fn write(&mut self, p: u32, v: u32) -> bool {
        match p {
            0x1f80_10f0 => self.dpcr = v,
            // DICR: flags (24..30) are cleared by writing 1s; the rest is plain.
            0x1f80_10f4 => {
                let flags = (self.dicr & 0x7f00_0000) & !(v & 0x7f00_0000);
                self.dicr = (v & 0x00ff_ffff) | flags;
            }
            0x1f80_1570 => self.dpcr2 = v,
            0x1f80_1574 => {
                let flags = (self.dicr2 & 0x3f00_0000) & !(v & 0x3f00_0000);
                self.dicr2 = (v & 0x00ff_ffff) | flags;
            }
            0x1f80_1578 => self.dmacen = v,
            0x1f80_157c => self.dmacinten = v,
            _ => {
                let Some((n, reg)) = Self::channel_reg(p) else {
                    return false;
                };
                let c = &mut self.ch[n];
                match reg {
                    0 => c.madr = v & 0x00ff_ffff,
                    4 => c.bcr = v,
                    8 => {
                        let was = c.chcr & CHCR_BUSY;
                        c.chcr = v;
                        if v & CHCR_BUSY != 0 && was == 0 {
                            self.started |= 1 << n;
                        }
                    }
                    _ => c.tadr = v & 0x00ff_ffff,
                }
            }
        }
        true
    }

    /// Enable or disable channel interrupt `n` (0..=6 DICR, 7 bus error, 8..=13 DICR2 channels
    /// 7..=12); returns whether it was enabled.
    pub fn irq_enable(&mut self, n: u32, on: bool) -> bool {
        let (reg, bit) = match n {
            0..=6 => (&mut self.dicr, 16 + n),
            7 => (&mut self.dicr, 15),
            8..=13 => (&mut self.dicr2, 16 + n - 8),
            _ => return false,
        };
        let was = *reg & (1 << bit) != 0;
        if on {
            *reg |= 1 << bit;
            if n < 7 {
                // The master enable.
                self.dicr |= 1 << 23;
            }
        } else {
            *reg &= !(1 << bit);
        }
        was
    }

    /// Channel `n` finished: CHCR's busy bit clears, its interrupt flag is set if enabled.
    /// Returns whether the DMA interrupt line should be raised.
    pub fn finish(&mut self, n: usize) -> bool {
        self.ch[n].chcr &= !CHCR_BUSY;
        let (reg, bit) = if n < 7 {
            (&mut self.dicr, n as u32)
        } else {
            (&mut self.dicr2, n as u32 - 7)
        };
        if *reg & (1 << (16 + bit)) != 0 {
            *reg |= 1 << (24 + bit);
            return self.dicr & (1 << 23) != 0 || n >= 7;
        }
        false
    }

    /// The raised channel interrupt flags as interrupt codes minus 0x20 (0..=6, 8..=13).
    pub fn pending(&self) -> Vec<u32> {
        let mut v = Vec::new();
        for i in 0..7 {
            if self.dicr & (1 << (24 + i)) != 0 {
                v.push(i);
            }
        }
        for i in 0..6 {
            if self.dicr2 & (1 << (24 + i)) != 0 {
                v.push(8 + i);
            }
        }
        v
    }

    /// Clear the flag of interrupt code `n` (as [`Dmac::pending`] numbers them).
    pub fn ack(&mut self, n: u32) {
        if n < 7 {
            self.dicr &= !(1 << (24 + n));
        } else if n >= 8 {
            self.dicr2 &= !(1 << (24 + n - 8));
        }
    }
}
