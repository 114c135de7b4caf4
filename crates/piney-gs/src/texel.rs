//! What every renderer reads textures by, in one place: the texture and CLUT formats of TEX0,
//! the CLUT buffer and its loads (CSM1/CSM2, CSA), texel colours with TEXA's alpha expansion,
//! and CLAMP's wrap rules. The software renderer samples with these; a GPU renderer's shaders
//! follow the same rules, and its tests check them against these functions.
//!
//! Facts (GS User's Manual, "Texture Mapping", "CLUT", "TEXA"; PCSX2 as a second source):
//! - The CLUT buffer holds 1 KiB: 256 32-bit entries or 512 16-bit ones. A 32-bit entry `i`
//!   keeps its low half at halfword `i` and its high half at `i + 256` (the buffer's two banks).
//! - CSM1 loads a 16 x 16 (8-bit textures) or 8 x 2 (4-bit) rectangle at CBP, with bits 3 and 4
//!   of the 8-bit index swapped (entries 8-15 sit at x 0-7 of row 1); CSM2 a row at
//!   (COU * 16, COV) in a buffer CBW wide (TEXCLUT).
//! - CSA counts 16 entries; a 32-bit CLUT uses CSA bits 0-3 only.
//! - 16-bit colours shift their 5-bit channels up by 3 (no low-bit replication); A is TA1 when
//!   the A bit is set, else TA0, or 0 for an all-zero texel with TEXA.AEM. 24-bit texels take A
//!   = TA0 (0 for black with AEM).

use crate::mem::LocalMemory;
use crate::psm::Psm;
use crate::regs::{Tex0, TexClut, Texa};

/// A texture PSM from TEX0.PSM. An undefined code reads as PSMCT32 (the GS draws garbage; piney
/// draws something defined).
pub fn texture_psm(code: u32) -> Psm {
    Psm::from_code(code as u64).unwrap_or(Psm::Ct32)
}

/// The CLUT's format from TEX0.CPSM, for loading and lookup alike. CPSM 0 is PSMCT32; codes
/// other than 0x2 and 0xa are undefined and read as 32-bit.
pub fn clut_psm(cpsm: u32) -> Psm {
    match cpsm {
        0x2 => Psm::Ct16,
        0xa => Psm::Ct16s,
        _ => Psm::Ct32,
    }
}

/// The CLUT buffer as 512 halfwords (see the module's layout).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Clut(#[serde(with = "piney_state::boxed")] Box<[u16; 512]>);

impl Default for Clut {
    fn default() -> Self {
        Clut(Box::new([0; 512]))
    }
}

impl Clut {
    /// The halfwords.
    pub fn halfwords(&self) -> &[u16; 512] {
        &self.0
    }

    /// Replaces every entry (a renderer that keeps the buffer elsewhere syncing its copy).
    pub fn set(&mut self, halfwords: &[u16; 512]) {
        self.0.copy_from_slice(halfwords);
    }

    /// Power-on: every entry 0.
    pub fn clear(&mut self) {
        self.0.fill(0);
    }

    /// A CLUT load (TEX0/TEX2 with CLD asking for one) from `mem`, TEXCLUT for CSM2.
    pub fn load(&mut self, mem: &LocalMemory, tex0: Tex0, texclut: TexClut) {
        let psm = texture_psm(tex0.psm());
        let entries: u32 = if matches!(psm, Psm::T8 | Psm::T8h) {
            256
        } else {
            16
        };
        let cpsm = clut_psm(tex0.cpsm());
        let cbp = tex0.cbp();
        for i in 0..entries {
            let (x, y, bw) = if tex0.csm() == 0 {
                if entries == 256 {
                    let p = (i & 0xe7) | ((i & 8) << 1) | ((i & 0x10) >> 1);
                    (p & 15, p >> 4, 1)
                } else {
                    (i & 7, i >> 3, 1)
                }
            } else {
                (texclut.cou() * 16 + i, texclut.cov(), texclut.cbw())
            };
            let v = mem.read_pixel(cpsm, x, y, cbp, bw);
            if cpsm == Psm::Ct32 {
                let e = (((tex0.csa() & 15) * 16 + i) & 255) as usize;
                self.0[e] = v as u16;
                self.0[e + 256] = (v >> 16) as u16;
            } else {
                let e = ((tex0.csa() * 16 + i) & 511) as usize;
                self.0[e] = v as u16;
            }
        }
    }

    /// The colour of index `idx` in a CLUT of format `cpsm` at offset `csa`.
    #[inline]
    pub fn lookup(&self, cpsm: Psm, csa: u32, idx: u32, texa: Texa) -> [i32; 4] {
        if cpsm == Psm::Ct32 {
            let e = (((csa & 15) * 16 + idx) & 255) as usize;
            rgba32(self.0[e] as u32 | ((self.0[e + 256] as u32) << 16))
        } else {
            let e = ((csa * 16 + idx) & 511) as usize;
            expand16(self.0[e] as u32, texa)
        }
    }
}

/// A 32-bit colour's channels.
#[inline]
pub fn rgba32(v: u32) -> [i32; 4] {
    [
        v as i32 & 0xff,
        (v >> 8) as i32 & 0xff,
        (v >> 16) as i32 & 0xff,
        (v >> 24) as i32,
    ]
}

/// A 16-bit colour with TEXA's alpha.
#[inline]
pub fn expand16(raw: u32, texa: Texa) -> [i32; 4] {
    let a = if raw & 0x8000 != 0 {
        texa.ta1() as i32
    } else if texa.aem() != 0 && raw & 0x7fff == 0 {
        0
    } else {
        texa.ta0() as i32
    };
    [
        ((raw & 0x1f) << 3) as i32,
        (((raw >> 5) & 0x1f) << 3) as i32,
        (((raw >> 10) & 0x1f) << 3) as i32,
        a,
    ]
}

/// The colour of the stored texel value `raw` of format `psm` (indexed formats through
/// `clut`, with `cpsm` and `csa`).
#[inline]
pub fn decode(raw: u32, psm: Psm, texa: Texa, clut: &Clut, cpsm: Psm, csa: u32) -> [i32; 4] {
    match psm {
        Psm::Ct32 | Psm::Z32 => rgba32(raw),
        Psm::Ct24 | Psm::Z24 => {
            let a = if texa.aem() != 0 && raw & 0xff_ffff == 0 {
                0
            } else {
                texa.ta0() as i32
            };
            let c = rgba32(raw);
            [c[0], c[1], c[2], a]
        }
        Psm::Ct16 | Psm::Ct16s | Psm::Z16 | Psm::Z16s => expand16(raw, texa),
        _ => clut.lookup(cpsm, csa, raw, texa),
    }
}

/// CLAMP's rule for one coordinate: 0 REPEAT, 1 CLAMP, 2 REGION_CLAMP (MIN..MAX), 3
/// REGION_REPEAT ((c & MIN) | MAX, MIN being the mask and MAX the fixed bits).
#[inline]
pub fn wrap(c: i32, size: i32, mode: u32, min: i32, max: i32) -> i32 {
    match mode {
        0 => c & (size - 1),
        1 => c.clamp(0, size - 1),
        2 => c.clamp(min, max.max(min)),
        _ => (c & min) | max,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_and_alpha_expansion() {
        let texa = Texa(0x40 | 0x7f << 32 | 1 << 15);
        // 16-bit: channels << 3; A bit set gives TA1, an all-zero texel with AEM gives 0.
        assert_eq!(expand16(0x801f, texa), [0xf8, 0, 0, 0x7f]);
        assert_eq!(expand16(0x0000, texa), [0, 0, 0, 0]);
        assert_eq!(expand16(0x0001, texa), [8, 0, 0, 0x40]);
        let clut = Clut::default();
        assert_eq!(
            decode(0x11_2233, Psm::Ct24, texa, &clut, Psm::Ct32, 0),
            [0x33, 0x22, 0x11, 0x40]
        );
        assert_eq!(decode(0, Psm::Ct24, texa, &clut, Psm::Ct32, 0)[3], 0);
        assert_eq!(texture_psm(0x3f), Psm::Ct32);
        assert_eq!(clut_psm(0xa), Psm::Ct16s);
        assert_eq!(clut_psm(0x1), Psm::Ct32);
    }

    #[test]
    fn clamp_modes() {
        assert_eq!(wrap(17, 16, 0, 0, 0), 1);
        assert_eq!(wrap(-1, 16, 1, 0, 0), 0);
        assert_eq!(wrap(30, 64, 2, 4, 20), 20);
        assert_eq!(wrap(0x35, 64, 3, 0x0f, 0x10), 0x15);
    }
}
