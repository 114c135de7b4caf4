//! Pixel storage modes (the PSM fields of FRAME, ZBUF, TEX0, BITBLTBUF, DISPFB).

/// A pixel storage mode. The discriminants are the hardware's PSM codes (GS User's Manual,
/// "Pixel Storage Format"; PCSX2 `GSRegs.h` PSM enum).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
#[derive(serde::Serialize, serde::Deserialize)]
pub enum Psm {
    /// RGBA 8:8:8:8, one word a pixel.
    Ct32 = 0x00,
    /// RGB 8:8:8 in the low 24 bits of a PSMCT32 word; the top byte is left alone.
    Ct24 = 0x01,
    /// RGBA 5:5:5:1, halfword pixels.
    Ct16 = 0x02,
    /// RGBA 5:5:5:1 with the "S" block arrangement.
    Ct16s = 0x0a,
    /// 8-bit indices.
    T8 = 0x13,
    /// 4-bit indices.
    T4 = 0x14,
    /// 8-bit indices in bits 24-31 of a PSMCT32 word.
    T8h = 0x1b,
    /// 4-bit indices in bits 24-27 of a PSMCT32 word.
    T4hl = 0x24,
    /// 4-bit indices in bits 28-31 of a PSMCT32 word.
    T4hh = 0x2c,
    /// 32-bit depth.
    Z32 = 0x30,
    /// 24-bit depth in the low 24 bits of a word.
    Z24 = 0x31,
    /// 16-bit depth.
    Z16 = 0x32,
    /// 16-bit depth, "S" arrangement.
    Z16s = 0x3a,
}

/// Every storage mode, for tests and tools.
pub const ALL_PSMS: [Psm; 13] = [
    Psm::Ct32,
    Psm::Ct24,
    Psm::Ct16,
    Psm::Ct16s,
    Psm::T8,
    Psm::T4,
    Psm::T8h,
    Psm::T4hl,
    Psm::T4hh,
    Psm::Z32,
    Psm::Z24,
    Psm::Z16,
    Psm::Z16s,
];

impl Psm {
    /// Decodes a 6-bit PSM field; `None` for codes the GS does not define.
    pub fn from_code(code: u64) -> Option<Psm> {
        Some(match code & 0x3f {
            0x00 => Psm::Ct32,
            0x01 => Psm::Ct24,
            0x02 => Psm::Ct16,
            0x0a => Psm::Ct16s,
            0x13 => Psm::T8,
            0x14 => Psm::T4,
            0x1b => Psm::T8h,
            0x24 => Psm::T4hl,
            0x2c => Psm::T4hh,
            0x30 => Psm::Z32,
            0x31 => Psm::Z24,
            0x32 => Psm::Z16,
            0x3a => Psm::Z16s,
            _ => return None,
        })
    }

    /// The hardware code.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// Bits a pixel takes in a host<->local transfer (and in memory, except 8H/4HL/4HH, which
    /// live inside 32-bit words).
    pub fn transfer_bits(self) -> u32 {
        match self {
            Psm::Ct32 | Psm::Z32 => 32,
            Psm::Ct24 | Psm::Z24 => 24,
            Psm::Ct16 | Psm::Ct16s | Psm::Z16 | Psm::Z16s => 16,
            Psm::T8 | Psm::T8h => 8,
            Psm::T4 | Psm::T4hl | Psm::T4hh => 4,
        }
    }

    /// The bit mask of a pixel value as read and written by [`crate::LocalMemory::read_pixel`].
    pub fn value_mask(self) -> u32 {
        match self.transfer_bits() {
            32 => u32::MAX,
            24 => 0x00ff_ffff,
            16 => 0xffff,
            8 => 0xff,
            _ => 0xf,
        }
    }

    /// True for the depth formats (PSMZ*).
    pub fn is_depth(self) -> bool {
        matches!(self, Psm::Z32 | Psm::Z24 | Psm::Z16 | Psm::Z16s)
    }

    /// True for the indexed (CLUT) formats.
    pub fn is_indexed(self) -> bool {
        matches!(self, Psm::T8 | Psm::T4 | Psm::T8h | Psm::T4hl | Psm::T4hh)
    }

    /// Page size in pixels (width, height); a page is 8 KiB.
    pub fn page_size(self) -> (u32, u32) {
        match self {
            Psm::Ct32 | Psm::Ct24 | Psm::Z32 | Psm::Z24 | Psm::T8h | Psm::T4hl | Psm::T4hh => {
                (64, 32)
            }
            Psm::Ct16 | Psm::Ct16s | Psm::Z16 | Psm::Z16s => (64, 64),
            Psm::T8 => (128, 64),
            Psm::T4 => (128, 128),
        }
    }
}
