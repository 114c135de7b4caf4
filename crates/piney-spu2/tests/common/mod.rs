//! Register offsets (PCSX2 SPU2/regs.h, from 0x1F900000) and test helpers.
#![allow(dead_code)]

use piney_spu2::Spu2;

/// Per-voice parameter registers (voice * 0x10 in a core's block).
pub const VOLL: u32 = 0x0;
pub const VOLR: u32 = 0x2;
pub const PITCH: u32 = 0x4;
pub const ADSR1: u32 = 0x6;
pub const ADSR2: u32 = 0x8;
pub const ENVX: u32 = 0xA;
pub const VOLXL: u32 = 0xC;
pub const VOLXR: u32 = 0xE;

/// Core registers (core * 0x400 added).
pub const PMON: u32 = 0x180;
pub const NON: u32 = 0x184;
pub const VMIXL: u32 = 0x188;
pub const VMIXEL: u32 = 0x18C;
pub const VMIXR: u32 = 0x190;
pub const VMIXER: u32 = 0x194;
pub const MMIX: u32 = 0x198;
pub const ATTR: u32 = 0x19A;
pub const IRQA_HI: u32 = 0x19C;
pub const IRQA_LO: u32 = 0x19E;
pub const KON: u32 = 0x1A0;
pub const KON_HI: u32 = 0x1A2;
pub const KOFF: u32 = 0x1A4;
pub const TSA_HI: u32 = 0x1A8;
pub const TSA_LO: u32 = 0x1AA;
pub const DATA: u32 = 0x1AC;
pub const ADMAS: u32 = 0x1B0;
pub const ESA_HI: u32 = 0x2E0;
pub const ESA_LO: u32 = 0x2E2;
pub const EEA_HI: u32 = 0x33C;
pub const ENDX: u32 = 0x340;
pub const ENDX_HI: u32 = 0x342;
pub const STAT: u32 = 0x344;

/// Reverb address registers: hi at 0x2E4 + 4 * index, lo at +2 (PCSX2 regs.h order).
pub const APF1_SIZE: u32 = 0;
pub const APF2_SIZE: u32 = 1;
pub const SAME_L_DST: u32 = 2;
pub const SAME_R_DST: u32 = 3;
pub const COMB1_L_SRC: u32 = 4;
pub const COMB1_R_SRC: u32 = 5;
pub const COMB2_L_SRC: u32 = 6;
pub const COMB2_R_SRC: u32 = 7;
pub const SAME_L_SRC: u32 = 8;
pub const SAME_R_SRC: u32 = 9;
pub const DIFF_L_DST: u32 = 10;
pub const DIFF_R_DST: u32 = 11;
pub const COMB3_L_SRC: u32 = 12;
pub const COMB3_R_SRC: u32 = 13;
pub const COMB4_L_SRC: u32 = 14;
pub const COMB4_R_SRC: u32 = 15;
pub const DIFF_L_SRC: u32 = 16;
pub const DIFF_R_SRC: u32 = 17;
pub const APF1_L_DST: u32 = 18;
pub const APF1_R_DST: u32 = 19;
pub const APF2_L_DST: u32 = 20;
pub const APF2_R_DST: u32 = 21;

/// The volume / coefficient block: 0x760 (core 0), 0x788 (core 1).
pub const MVOLL: u32 = 0x00;
pub const MVOLR: u32 = 0x02;
pub const EVOLL: u32 = 0x04;
pub const EVOLR: u32 = 0x06;
pub const AVOLL: u32 = 0x08;
pub const AVOLR: u32 = 0x0A;
pub const BVOLL: u32 = 0x0C;
pub const BVOLR: u32 = 0x0E;
pub const MVOLXL: u32 = 0x10;
pub const MVOLXR: u32 = 0x12;
pub const IIR_VOL: u32 = 0x14;
pub const COMB1_VOL: u32 = 0x16;
pub const COMB2_VOL: u32 = 0x18;
pub const COMB3_VOL: u32 = 0x1A;
pub const COMB4_VOL: u32 = 0x1C;
pub const WALL_VOL: u32 = 0x1E;
pub const APF1_VOL: u32 = 0x20;
pub const APF2_VOL: u32 = 0x22;
pub const IN_COEF_L: u32 = 0x24;
pub const IN_COEF_R: u32 = 0x26;

pub const SPDIF_IRQINFO: u32 = 0x7C2;

pub fn vp(core: u32, voice: u32, reg: u32) -> u32 {
    core * 0x400 + voice * 0x10 + reg
}

/// Voice address registers: k = 0 SSA hi, 1 SSA lo, 2 LSAX hi, 3 LSAX lo, 4 NAX hi, 5 NAX lo.
pub fn va(core: u32, voice: u32, k: u32) -> u32 {
    core * 0x400 + 0x1C0 + voice * 0xC + k * 2
}

pub fn cr(core: u32, reg: u32) -> u32 {
    core * 0x400 + reg
}

pub fn ext(core: u32, rel: u32) -> u32 {
    0x760 + core * 0x28 + rel
}

pub fn rvb(core: u32, index: u32) -> u32 {
    core * 0x400 + 0x2E4 + index * 4
}

pub fn set_addr(spu: &mut Spu2, hi_reg: u32, addr: u32) {
    spu.write(hi_reg, (addr >> 16) as u16);
    spu.write(hi_reg + 2, addr as u16);
}

pub fn set_rvb(spu: &mut Spu2, core: u32, index: u32, value: u32) {
    set_addr(spu, rvb(core, index), value);
}

pub fn load(spu: &mut Spu2, addr: u32, data: &[u16]) {
    spu.ram_mut()[addr as usize..addr as usize + data.len()].copy_from_slice(data);
}

/// An ADPCM block (psx-spx "SPU ADPCM Samples"): byte 0 = filter << 4 | shift, byte 1 = flags,
/// then 14 bytes of 4-bit samples, low nibble first; as little-endian halfwords.
pub fn block(shift: u8, filter: u8, flags: u8, nibbles: &[i8; 28]) -> [u16; 8] {
    let mut b = [0u16; 8];
    b[0] = ((flags as u16) << 8) | ((filter as u16) << 4) | shift as u16;
    for (i, &n) in nibbles.iter().enumerate() {
        b[1 + i / 4] |= ((n as u16) & 0xF) << (4 * (i % 4));
    }
    b
}

/// Reference decoder written from psx-spx's formula: sample = (nibble << 12) >> shift, plus
/// (old * pos + older * neg + 32) >> 6, saturated to 16 bits; pos/neg for filters 0..4 are
/// (0,0) (60,0) (115,-52) (98,-55) (122,-60).
pub fn decode(blocks: &[(u8, u8, [i8; 28])], prev: &mut (i32, i32)) -> Vec<i32> {
    const POS: [i32; 5] = [0, 60, 115, 98, 122];
    const NEG: [i32; 5] = [0, 0, -52, -55, -60];
    let mut out = Vec::new();
    for (shift, filter, nib) in blocks {
        for &n in nib {
            let s = ((n as i32) << 12) >> shift;
            let s = (s
                + ((prev.0 * POS[*filter as usize] + prev.1 * NEG[*filter as usize] + 32) >> 6))
                .clamp(-0x8000, 0x7FFF);
            *prev = (s, prev.0);
            out.push(s);
        }
    }
    out
}

/// The volume chain from a core-0 voice's post-envelope value to the DAC, with VOLL =
/// 0x3FFF (level 0x7FFE), MVOL of both cores 0x3FFF (0x7FFE), AVOL 0x7FFF (reset value), and
/// each multiply `(a * b) >> 15` (PCSX2 SPU2/Mixer.cpp ApplyVolume).
pub fn chain(v: i32) -> i32 {
    let m = |a: i32, b: i32| (a * b) >> 15;
    m(m(m(m(v, 0x7FFE), 0x7FFE), 0x7FFF), 0x7FFE)
}

/// A fresh SPU2 with both master volumes at 0x3FFF and effects off.
pub fn spu() -> Spu2 {
    let mut s = Spu2::new();
    for c in 0..2 {
        s.write(ext(c, MVOLL), 0x3FFF);
        s.write(ext(c, MVOLR), 0x3FFF);
    }
    s
}
