//! The effect (reverb) processor of one core.
//!
//! The algorithm is the PS1 SPU's (psx-spx "SPU Reverb Formula"). The SPU2 runs it on every
//! 48 kHz sample, alternating sides (left on even sample counts, right on odd), so each side
//! runs at 24 kHz; the work-area position advances once per two samples. The 48 kHz input is
//! filtered by the 39-tap half-band filter before each side's step, and each side's 24 kHz
//! result is zero-stuffed back to 48 kHz and filtered by the same taps doubled. The structure
//! (the order of the filter taps over a 64-entry history, the one-sample delay of the
//! downsampler, the saturation points) follows PCSX2 SPU2/Reverb.cpp and ReverbResample.cpp.

use crate::tables::REVERB_FIR;
use crate::voice::clamp16;
use crate::{IrqWatch, RAM_MASK};

/// Indices of the address registers, in register order from 0x2E4 (PCSX2 SPU2/regs.h).
pub(crate) const APF1_SIZE: usize = 0;
pub(crate) const APF2_SIZE: usize = 1;
pub(crate) const SAME_L_DST: usize = 2;
pub(crate) const SAME_R_DST: usize = 3;
pub(crate) const COMB1_L_SRC: usize = 4;
pub(crate) const COMB1_R_SRC: usize = 5;
pub(crate) const COMB2_L_SRC: usize = 6;
pub(crate) const COMB2_R_SRC: usize = 7;
pub(crate) const SAME_L_SRC: usize = 8;
pub(crate) const SAME_R_SRC: usize = 9;
pub(crate) const DIFF_L_DST: usize = 10;
pub(crate) const DIFF_R_DST: usize = 11;
pub(crate) const COMB3_L_SRC: usize = 12;
pub(crate) const COMB3_R_SRC: usize = 13;
pub(crate) const COMB4_L_SRC: usize = 14;
pub(crate) const COMB4_R_SRC: usize = 15;
pub(crate) const DIFF_L_SRC: usize = 16;
pub(crate) const DIFF_R_SRC: usize = 17;
pub(crate) const APF1_L_DST: usize = 18;
pub(crate) const APF1_R_DST: usize = 19;
pub(crate) const APF2_L_DST: usize = 20;
pub(crate) const APF2_R_DST: usize = 21;

/// Indices of the coefficient registers, in register order from 0x774 (core 0) / 0x79C.
pub(crate) const IIR_VOL: usize = 0;
pub(crate) const COMB1_VOL: usize = 1;
pub(crate) const COMB2_VOL: usize = 2;
pub(crate) const COMB3_VOL: usize = 3;
pub(crate) const COMB4_VOL: usize = 4;
pub(crate) const WALL_VOL: usize = 5;
pub(crate) const APF1_VOL: usize = 6;
pub(crate) const APF2_VOL: usize = 7;
pub(crate) const IN_COEF_L: usize = 8;
pub(crate) const IN_COEF_R: usize = 9;

/// The upsampler's taps: the downsampler's doubled, saturated (32768 -> 32767).
const UP_FIR: [i32; 39] = {
    let mut t = [0i32; 39];
    let mut i = 0;
    while i < 39 {
        let v = REVERB_FIR[i] as i32 * 2;
        t[i] = if v > 0x7FFF { 0x7FFF } else { v };
        i += 1;
    }
    t
};

#[inline]
fn mul(a: i32, b: i32) -> i32 {
    ((a as i64 * b as i64) >> 15) as i32
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct Reverb {
    /// ESA/EEA in effect, and as written (they take effect while effects are disabled).
    pub esa: u32,
    pub eea: u32,
    pub ext_esa: u32,
    pub ext_eea: u32,
    pub addr: [u32; 22],
    pub coef: [i16; 10],
    /// 48 kHz histories, each 64 entries mirrored at +64 so 39 taps read contiguously.
    #[serde(with = "piney_state::nested")]
    down: [[i32; 128]; 2],
    #[serde(with = "piney_state::nested")]
    up: [[i32; 128]; 2],
    pos: usize,
}

impl Reverb {
    pub(crate) fn new(core: usize) -> Self {
        // PCSX2 SPU2/spu2sys.cpp V_Core::Init: ESA/EEA 0xEFFF8/0xEFFFF (core 0),
        // 0xFFFF8/0xFFFFF (core 1).
        let (esa, eea) = if core == 0 {
            (0xE_FFF8, 0xE_FFFF)
        } else {
            (0xF_FFF8, 0xF_FFFF)
        };
        Self {
            esa,
            eea,
            ext_esa: esa,
            ext_eea: eea,
            addr: [0; 22],
            coef: [0; 10],
            down: [[0; 128]; 2],
            up: [[0; 128]; 2],
            pos: 0,
        }
    }

    /// One 48 kHz sample: takes the wet mix, returns the effect output (before EVOL).
    /// `sample` is the count of this sample (its parity picks the side); `write` is ATTR's
    /// effect enable: without it the work area is read but not written (psx-spx / PCSX2).
    pub(crate) fn process(
        &mut self,
        ram: &mut [u16],
        input: [i32; 2],
        sample: u64,
        write: bool,
        irq: &mut IrqWatch,
    ) -> [i32; 2] {
        if self.esa >= self.eea {
            return [0, 0];
        }
        let p = self.pos;
        for (side, &v) in input.iter().enumerate() {
            let v = clamp16(v);
            self.down[side][p] = v;
            self.down[side][p | 64] = v;
        }
        let r = (sample & 1) as usize;
        let base = (sample >> 1) as i64;
        let size = (self.eea - self.esa + 1) as i64;
        let esa = self.esa;
        let b = base.rem_euclid(size);
        let at = |off: i64| -> usize {
            // (base + off) mod size, without a division when the offset is in range.
            let x = if (-size..size).contains(&off) {
                let x = b + off;
                if x >= size {
                    x - size
                } else if x < 0 {
                    x + size
                } else {
                    x
                }
            } else {
                (b + off).rem_euclid(size)
            };
            ((esa as i64 + x) as u32 & RAM_MASK) as usize
        };
        let a = &self.addr;
        let o = |i: usize| a[i] as i64;
        let (same_src, same_dst, diff_src, diff_dst, combs, apf1_dst, apf2_dst, in_coef) = if r == 0
        {
            // psx-spx: the left "diff" reflection reads the right side's source, and v.v.
            (
                o(SAME_L_SRC),
                o(SAME_L_DST),
                o(DIFF_R_SRC),
                o(DIFF_L_DST),
                [
                    o(COMB1_L_SRC),
                    o(COMB2_L_SRC),
                    o(COMB3_L_SRC),
                    o(COMB4_L_SRC),
                ],
                o(APF1_L_DST),
                o(APF2_L_DST),
                self.coef[IN_COEF_L],
            )
        } else {
            (
                o(SAME_R_SRC),
                o(SAME_R_DST),
                o(DIFF_L_SRC),
                o(DIFF_R_DST),
                [
                    o(COMB1_R_SRC),
                    o(COMB2_R_SRC),
                    o(COMB3_R_SRC),
                    o(COMB4_R_SRC),
                ],
                o(APF1_R_DST),
                o(APF2_R_DST),
                self.coef[IN_COEF_R],
            )
        };
        let same_src = at(same_src);
        let same_prv = at(same_dst - 1);
        let same_dst = at(same_dst);
        let diff_src = at(diff_src);
        let diff_prv = at(diff_dst - 1);
        let diff_dst = at(diff_dst);
        let combs = combs.map(at);
        let apf1_src = at(apf1_dst - o(APF1_SIZE));
        let apf1_dst = at(apf1_dst);
        let apf2_src = at(apf2_dst - o(APF2_SIZE));
        let apf2_dst = at(apf2_dst);
        // The work area's accesses count for IRQA while effects are enabled (PCSX2 Reverb.cpp).
        if write && irq.any() {
            for x in [
                same_src, same_prv, same_dst, diff_src, diff_prv, diff_dst, apf1_src, apf1_dst,
                apf2_src, apf2_dst,
            ] {
                irq.touch(x as u32);
            }
            for x in combs {
                irq.touch(x as u32);
            }
        }
        let c = |i: usize| self.coef[i] as i32;
        let m = |x: usize| ram[x] as i16 as i32;

        // The downsampler reads the 39 inputs before this one.
        let h = &self.down[r][(p + 64 - 39) & 63..][..39];
        let down: i64 = h
            .iter()
            .zip(REVERB_FIR.iter())
            .map(|(&x, &t)| x as i64 * t as i64)
            .sum();
        let inp = mul(in_coef as i32, clamp16((down >> 15) as i32));

        let same = mul(
            c(IIR_VOL),
            inp + mul(c(WALL_VOL), m(same_src)) - m(same_prv),
        ) + m(same_prv);
        let diff = mul(
            c(IIR_VOL),
            inp + mul(c(WALL_VOL), m(diff_src)) - m(diff_prv),
        ) + m(diff_prv);
        let mut out = mul(c(COMB1_VOL), m(combs[0]))
            + mul(c(COMB2_VOL), m(combs[1]))
            + mul(c(COMB3_VOL), m(combs[2]))
            + mul(c(COMB4_VOL), m(combs[3]));
        let apf1 = out - mul(c(APF1_VOL), m(apf1_src));
        out = m(apf1_src) + mul(c(APF1_VOL), apf1);
        let apf2 = out - mul(c(APF2_VOL), m(apf2_src));
        out = m(apf2_src) + mul(c(APF2_VOL), apf2);
        if write {
            ram[same_dst] = clamp16(same) as u16;
            ram[diff_dst] = clamp16(diff) as u16;
            ram[apf1_dst] = clamp16(apf1) as u16;
            ram[apf2_dst] = clamp16(apf2) as u16;
        }
        let out = clamp16(out);
        self.up[r][p] = out;
        self.up[r][p | 64] = out;
        self.up[r ^ 1][p] = 0;
        self.up[r ^ 1][p | 64] = 0;
        self.pos = (p + 1) & 63;

        // The upsampler reads the 39 entries up to and including this one.
        let start = (self.pos + 64 - 39) & 63;
        let mut res = [0i32; 2];
        for (side, out) in res.iter_mut().enumerate() {
            let h = &self.up[side][start..][..39];
            let s: i64 = h
                .iter()
                .zip(UP_FIR.iter())
                .map(|(&x, &t)| x as i64 * t as i64)
                .sum();
            *out = clamp16((s >> 15) as i32);
        }
        res
    }
}
