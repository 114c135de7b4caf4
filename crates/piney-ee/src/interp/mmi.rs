//! Semantics of the MMI family (primary opcode 0x1c): the 128-bit parallel instructions, and the
//! ordinary instructions that live in the same opcode space (MADD, MULT1, DIV1, MFHI1...).
//!
//! Lanes are numbered from the least significant: word `w[0]` is bits 0-31, halfword `h[0]`
//! bits 0-15. The parallel instructions write all 128 bits of rd; the "pipeline 1" forms
//! (MULT1 and friends) write the low 64 bits of rd, like their pipeline-0 counterparts.
//! HI/LO: bits 0-63 are pipeline 0's HI/LO, bits 64-127 pipeline 1's (HI1/LO1); the parallel
//! word multiplies use one 64-bit half per lane pair.
//!
//! Edge cases, as the R5900 gives them (ps2autotests ee_simd, PCSX2): PABSW/PABSH of the most
//! negative value saturate to the most positive; PDIVW/PDIVBW/DIV1 by zero give quotient 1 for
//! a negative dividend and -1 otherwise and the dividend as remainder, 0x80000000 / -1 gives
//! 0x80000000 remainder 0; PDIVUW by zero gives 0xffffffff, remainder the dividend; PLZCW
//! counts the leading bits equal to the sign bit, minus one; PMFHL.SLW saturates the 64-bit
//! HI:LO word pair to a signed 32-bit value.

use crate::bus::Bus;
use crate::cpu::Cpu;
use crate::exception::Exception;
use crate::interp::integer::{acc, div32, divu32, mult_into, multu_into, set_lohi};
use crate::table::fields::{rd, rs, rt, sa};

type R = Result<(), Exception>;

// ---------------------------------------------------------------- lane helpers

#[inline]
fn words(v: u128) -> [u32; 4] {
    [
        v as u32,
        (v >> 32) as u32,
        (v >> 64) as u32,
        (v >> 96) as u32,
    ]
}
#[inline]
fn from_words(w: [u32; 4]) -> u128 {
    w[0] as u128 | (w[1] as u128) << 32 | (w[2] as u128) << 64 | (w[3] as u128) << 96
}
#[inline]
fn halves(v: u128) -> [u16; 8] {
    let mut h = [0; 8];
    for (i, x) in h.iter_mut().enumerate() {
        *x = (v >> (16 * i)) as u16;
    }
    h
}
#[inline]
fn from_halves(h: [u16; 8]) -> u128 {
    h.iter()
        .enumerate()
        .fold(0, |acc, (i, &x)| acc | (x as u128) << (16 * i))
}
#[inline]
fn bytes(v: u128) -> [u8; 16] {
    v.to_le_bytes()
}
#[inline]
fn from_bytes(b: [u8; 16]) -> u128 {
    u128::from_le_bytes(b)
}
#[inline]
fn from_dwords(lo: u64, hi: u64) -> u128 {
    lo as u128 | (hi as u128) << 64
}
#[inline]
fn map_w(a: u128, b: u128, f: impl Fn(u32, u32) -> u32) -> u128 {
    let (a, b) = (words(a), words(b));
    from_words(std::array::from_fn(|i| f(a[i], b[i])))
}
#[inline]
fn map_h(a: u128, b: u128, f: impl Fn(u16, u16) -> u16) -> u128 {
    let (a, b) = (halves(a), halves(b));
    from_halves(std::array::from_fn(|i| f(a[i], b[i])))
}
#[inline]
fn map_b(a: u128, b: u128, f: impl Fn(u8, u8) -> u8) -> u128 {
    let (a, b) = (bytes(a), bytes(b));
    from_bytes(std::array::from_fn(|i| f(a[i], b[i])))
}
#[inline]
fn sat32(v: i64) -> u32 {
    v.clamp(i32::MIN as i64, i32::MAX as i64) as i32 as u32
}
#[inline]
fn sat16(v: i32) -> u16 {
    v.clamp(i16::MIN as i32, i16::MAX as i32) as i16 as u16
}
#[inline]
fn sat8(v: i32) -> u8 {
    v.clamp(i8::MIN as i32, i8::MAX as i32) as i8 as u8
}
#[inline]
fn all_w(c: bool) -> u32 {
    if c { u32::MAX } else { 0 }
}
#[inline]
fn all_h(c: bool) -> u16 {
    if c { u16::MAX } else { 0 }
}
#[inline]
fn all_b(c: bool) -> u8 {
    if c { u8::MAX } else { 0 }
}
#[inline]
fn sext32(v: u32) -> u64 {
    v as i32 as i64 as u64
}
#[inline]
fn st(cpu: &Cpu, w: u32) -> (u128, u128) {
    (cpu.gpr[rs(w)], cpu.gpr[rt(w)])
}

/// A lane-wise instruction `rd = f(rs, rt)`.
macro_rules! lanes {
    ($($name:ident, $map:ident, $doc:literal, |$a:ident, $b:ident| $e:expr;)*) => {$(
        #[doc = $doc]
        pub fn $name(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
            let (s, t) = st(cpu, w);
            cpu.set128(rd(w), $map(s, t, |$a, $b| $e));
            Ok(())
        }
    )*};
}

/// A rearrangement `rd = f(rs lanes, rt lanes)`.
macro_rules! shuffle {
    ($($name:ident, $split:ident, $join:ident, $doc:literal, |$s:ident, $t:ident| $e:expr;)*) => {$(
        #[doc = $doc]
        pub fn $name(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
            let ($s, $t) = st(cpu, w);
            let ($s, $t) = ($split($s), $split($t));
            let _ = &$s;
            cpu.set128(rd(w), $join($e));
            Ok(())
        }
    )*};
}

// ---------------------------------------------------------------- MMI0

lanes! {
    paddw, map_w, "PADDW: four word adds, wrapping.", |a, b| a.wrapping_add(b);
    psubw, map_w, "PSUBW.", |a, b| a.wrapping_sub(b);
    pcgtw, map_w, "PCGTW: all ones where rs > rt (signed).", |a, b| all_w((a as i32) > (b as i32));
    pmaxw, map_w, "PMAXW: signed maximum.", |a, b| if (a as i32) > (b as i32) { a } else { b };
    paddh, map_h, "PADDH.", |a, b| a.wrapping_add(b);
    psubh, map_h, "PSUBH.", |a, b| a.wrapping_sub(b);
    pcgth, map_h, "PCGTH.", |a, b| all_h((a as i16) > (b as i16));
    pmaxh, map_h, "PMAXH.", |a, b| if (a as i16) > (b as i16) { a } else { b };
    paddb, map_b, "PADDB.", |a, b| a.wrapping_add(b);
    psubb, map_b, "PSUBB.", |a, b| a.wrapping_sub(b);
    pcgtb, map_b, "PCGTB.", |a, b| all_b((a as i8) > (b as i8));
    paddsw, map_w, "PADDSW: signed saturating.", |a, b| sat32(a as i32 as i64 + b as i32 as i64);
    psubsw, map_w, "PSUBSW: signed saturating.", |a, b| sat32(a as i32 as i64 - b as i32 as i64);
    paddsh, map_h, "PADDSH.", |a, b| sat16(a as i16 as i32 + b as i16 as i32);
    psubsh, map_h, "PSUBSH.", |a, b| sat16(a as i16 as i32 - b as i16 as i32);
    paddsb, map_b, "PADDSB.", |a, b| sat8(a as i8 as i32 + b as i8 as i32);
    psubsb, map_b, "PSUBSB.", |a, b| sat8(a as i8 as i32 - b as i8 as i32);
}

shuffle! {
    pextlw, words, from_words, "PEXTLW: interleave the low words: rt0 rs0 rt1 rs1.",
        |s, t| [t[0], s[0], t[1], s[1]];
    ppacw, words, from_words, "PPACW: pack even words: rt0 rt2 rs0 rs2.",
        |s, t| [t[0], t[2], s[0], s[2]];
    pextlh, halves, from_halves, "PEXTLH: interleave the low halfwords.",
        |s, t| [t[0], s[0], t[1], s[1], t[2], s[2], t[3], s[3]];
    ppach, halves, from_halves, "PPACH: pack even halfwords.",
        |s, t| [t[0], t[2], t[4], t[6], s[0], s[2], s[4], s[6]];
    pextlb, bytes, from_bytes, "PEXTLB: interleave the low bytes.",
        |s, t| std::array::from_fn(|i| if i % 2 == 0 { t[i / 2] } else { s[i / 2] });
    ppacb, bytes, from_bytes, "PPACB: pack even bytes.",
        |s, t| std::array::from_fn(|i| if i < 8 { t[2 * i] } else { s[2 * (i - 8)] });
    pextuw, words, from_words, "PEXTUW: interleave the high words: rt2 rs2 rt3 rs3.",
        |s, t| [t[2], s[2], t[3], s[3]];
    pextuh, halves, from_halves, "PEXTUH: interleave the high halfwords.",
        |s, t| [t[4], s[4], t[5], s[5], t[6], s[6], t[7], s[7]];
    pextub, bytes, from_bytes, "PEXTUB: interleave the high bytes.",
        |s, t| std::array::from_fn(|i| if i % 2 == 0 { t[8 + i / 2] } else { s[8 + i / 2] });
    pinth, halves, from_halves, "PINTH: interleave rt's low halfwords with rs's high ones.",
        |s, t| [t[0], s[4], t[1], s[5], t[2], s[6], t[3], s[7]];
    pinteh, halves, from_halves, "PINTEH: interleave the even halfwords.",
        |s, t| [t[0], s[0], t[2], s[2], t[4], s[4], t[6], s[6]];
    pexeh, halves, from_halves, "PEXEH: exchange halfwords 0 and 2 of each doubleword (rt).",
        |s, t| [t[2], t[1], t[0], t[3], t[6], t[5], t[4], t[7]];
    prevh, halves, from_halves, "PREVH: reverse the halfwords of each doubleword (rt).",
        |s, t| [t[3], t[2], t[1], t[0], t[7], t[6], t[5], t[4]];
    pexch, halves, from_halves, "PEXCH: exchange halfwords 1 and 2 of each doubleword (rt).",
        |s, t| [t[0], t[2], t[1], t[3], t[4], t[6], t[5], t[7]];
    pcpyh, halves, from_halves, "PCPYH: copy halfword 0 of each doubleword across it (rt).",
        |s, t| [t[0], t[0], t[0], t[0], t[4], t[4], t[4], t[4]];
    pexew, words, from_words, "PEXEW: exchange words 0 and 2 (rt).",
        |s, t| [t[2], t[1], t[0], t[3]];
    prot3w, words, from_words, "PROT3W: rotate words 0-2 (rt): rt1 rt2 rt0 rt3.",
        |s, t| [t[1], t[2], t[0], t[3]];
    pexcw, words, from_words, "PEXCW: exchange words 1 and 2 (rt).",
        |s, t| [t[0], t[2], t[1], t[3]];
}

/// PEXT5: expand 1-5-5-5 colours to 8-8-8-8 (each 5-bit field to the top of a byte).
pub fn pext5(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let t = words(cpu.gpr[rt(w)]);
    let v = t.map(|x| (x & 0x1f) << 3 | (x & 0x3e0) << 6 | (x & 0x7c00) << 9 | (x & 0x8000) << 16);
    cpu.set128(rd(w), from_words(v));
    Ok(())
}

/// PPAC5: pack 8-8-8-8 colours to 1-5-5-5 (the top 5 bits of each byte, bit 31 to bit 15).
pub fn ppac5(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let t = words(cpu.gpr[rt(w)]);
    let v = t.map(|x| (x >> 3) & 0x1f | (x >> 6) & 0x3e0 | (x >> 9) & 0x7c00 | (x >> 16) & 0x8000);
    cpu.set128(rd(w), from_words(v));
    Ok(())
}

// ---------------------------------------------------------------- MMI1

lanes! {
    pceqw, map_w, "PCEQW: all ones where equal.", |a, b| all_w(a == b);
    pminw, map_w, "PMINW: signed minimum.", |a, b| if (a as i32) < (b as i32) { a } else { b };
    pceqh, map_h, "PCEQH.", |a, b| all_h(a == b);
    pminh, map_h, "PMINH.", |a, b| if (a as i16) < (b as i16) { a } else { b };
    pceqb, map_b, "PCEQB.", |a, b| all_b(a == b);
    padduw, map_w, "PADDUW: unsigned saturating.", |a, b| a.saturating_add(b);
    psubuw, map_w, "PSUBUW: unsigned saturating (floor 0).", |a, b| a.saturating_sub(b);
    padduh, map_h, "PADDUH.", |a, b| a.saturating_add(b);
    psubuh, map_h, "PSUBUH.", |a, b| a.saturating_sub(b);
    paddub, map_b, "PADDUB.", |a, b| a.saturating_add(b);
    psubub, map_b, "PSUBUB.", |a, b| a.saturating_sub(b);
}

/// PABSW: absolute value of each word of rt; 0x80000000 saturates to 0x7fffffff.
pub fn pabsw(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let t = words(cpu.gpr[rt(w)]);
    let v = t.map(|x| (x as i32).saturating_abs() as u32);
    cpu.set128(rd(w), from_words(v));
    Ok(())
}

/// PABSH: absolute value of each halfword of rt; 0x8000 saturates to 0x7fff.
pub fn pabsh(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let t = halves(cpu.gpr[rt(w)]);
    let v = t.map(|x| (x as i16).saturating_abs() as u16);
    cpu.set128(rd(w), from_halves(v));
    Ok(())
}

/// PADSBH: halfwords 0-3 rs - rt, halfwords 4-7 rs + rt (wrapping).
pub fn padsbh(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let (s, t) = st(cpu, w);
    let (s, t) = (halves(s), halves(t));
    let v = std::array::from_fn(|i| {
        if i < 4 {
            s[i].wrapping_sub(t[i])
        } else {
            s[i].wrapping_add(t[i])
        }
    });
    cpu.set128(rd(w), from_halves(v));
    Ok(())
}

/// QFSRV: funnel shift: rd = the low 128 bits of (rs:rt) >> SA.
pub fn qfsrv(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let (s, t) = st(cpu, w);
    let n = cpu.sa & 127;
    let v = if n == 0 {
        t
    } else {
        (t >> n) | (s << (128 - n))
    };
    cpu.set128(rd(w), v);
    Ok(())
}

// ---------------------------------------------------------------- MMI2 / MMI3: logic, moves

lanes! {
    pand, map_w, "PAND.", |a, b| a & b;
    pxor, map_w, "PXOR.", |a, b| a ^ b;
    por, map_w, "POR.", |a, b| a | b;
    pnor, map_w, "PNOR.", |a, b| !(a | b);
}

/// PCPYLD: rd = rs.low64 : rt.low64.
pub fn pcpyld(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let (s, t) = st(cpu, w);
    cpu.set128(rd(w), from_dwords(t as u64, s as u64));
    Ok(())
}
/// PCPYUD: rd = rt.high64 : rs.high64.
pub fn pcpyud(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let (s, t) = st(cpu, w);
    cpu.set128(rd(w), from_dwords((s >> 64) as u64, (t >> 64) as u64));
    Ok(())
}
/// PMFHI: rd = HI (128 bits).
pub fn pmfhi(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set128(rd(w), cpu.hi);
    Ok(())
}
/// PMFLO: rd = LO (128 bits).
pub fn pmflo(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set128(rd(w), cpu.lo);
    Ok(())
}
/// PMTHI: HI = rs (128 bits).
pub fn pmthi(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.hi = cpu.gpr[rs(w)];
    Ok(())
}
/// PMTLO: LO = rs (128 bits).
pub fn pmtlo(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.lo = cpu.gpr[rs(w)];
    Ok(())
}

// ---------------------------------------------------------------- shifts

/// PSLLH: each halfword of rt << sa[3:0].
pub fn psllh(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let n = sa(w) & 15;
    let v = halves(cpu.gpr[rt(w)]).map(|x| x << n);
    cpu.set128(rd(w), from_halves(v));
    Ok(())
}
/// PSRLH.
pub fn psrlh(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let n = sa(w) & 15;
    let v = halves(cpu.gpr[rt(w)]).map(|x| x >> n);
    cpu.set128(rd(w), from_halves(v));
    Ok(())
}
/// PSRAH.
pub fn psrah(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let n = sa(w) & 15;
    let v = halves(cpu.gpr[rt(w)]).map(|x| ((x as i16) >> n) as u16);
    cpu.set128(rd(w), from_halves(v));
    Ok(())
}
/// PSLLW: each word of rt << sa.
pub fn psllw(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let n = sa(w);
    let v = words(cpu.gpr[rt(w)]).map(|x| x << n);
    cpu.set128(rd(w), from_words(v));
    Ok(())
}
/// PSRLW.
pub fn psrlw(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let n = sa(w);
    let v = words(cpu.gpr[rt(w)]).map(|x| x >> n);
    cpu.set128(rd(w), from_words(v));
    Ok(())
}
/// PSRAW.
pub fn psraw(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let n = sa(w);
    let v = words(cpu.gpr[rt(w)]).map(|x| ((x as i32) >> n) as u32);
    cpu.set128(rd(w), from_words(v));
    Ok(())
}

/// The variable word shifts: words 0 and 2 of rt shifted by words 0 and 2 of rs (5 bits); each
/// 32-bit result is sign-extended into its doubleword of rd.
fn var_shift(cpu: &mut Cpu, w: u32, f: impl Fn(u32, u32) -> u32) {
    let (s, t) = st(cpu, w);
    let (s, t) = (words(s), words(t));
    let lo = sext32(f(t[0], s[0] & 31));
    let hi = sext32(f(t[2], s[2] & 31));
    cpu.set128(rd(w), from_dwords(lo, hi));
}
/// PSLLVW.
pub fn psllvw(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    var_shift(cpu, w, |x, n| x << n);
    Ok(())
}
/// PSRLVW.
pub fn psrlvw(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    var_shift(cpu, w, |x, n| x >> n);
    Ok(())
}
/// PSRAVW.
pub fn psravw(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    var_shift(cpu, w, |x, n| ((x as i32) >> n) as u32);
    Ok(())
}

// ---------------------------------------------------------------- MMI: misc

/// PLZCW: for words 0 and 1 of rs, the number of leading bits equal to the sign bit, minus one;
/// into words 0 and 1 of rd (bits 64-127 kept).
pub fn plzcw(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let count = |x: u32| {
        let y = if (x as i32) < 0 { !x } else { x };
        y.leading_zeros() - 1
    };
    let v = cpu.r64(rs(w));
    let r = count(v as u32) as u64 | (count((v >> 32) as u32) as u64) << 32;
    cpu.set64(rd(w), r);
    Ok(())
}

/// PMFHL.LW: rd = LO.w0, HI.w0, LO.w2, HI.w2.
pub fn pmfhl_lw(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let (lo, hi) = (words(cpu.lo), words(cpu.hi));
    cpu.set128(rd(w), from_words([lo[0], hi[0], lo[2], hi[2]]));
    Ok(())
}
/// PMFHL.UW: rd = LO.w1, HI.w1, LO.w3, HI.w3.
pub fn pmfhl_uw(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let (lo, hi) = (words(cpu.lo), words(cpu.hi));
    cpu.set128(rd(w), from_words([lo[1], hi[1], lo[3], hi[3]]));
    Ok(())
}
/// PMFHL.SLW: each doubleword of rd = HI.w(2i):LO.w(2i) as a signed 64-bit value saturated to
/// 32 bits, sign-extended.
pub fn pmfhl_slw(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let (lo, hi) = (words(cpu.lo), words(cpu.hi));
    let f = |i: usize| sext32(sat32(((hi[i] as u64) << 32 | lo[i] as u64) as i64));
    cpu.set128(rd(w), from_dwords(f(0), f(2)));
    Ok(())
}
/// PMFHL.LH: rd = the low halfwords of LO.w0, LO.w1, HI.w0, HI.w1, LO.w2, LO.w3, HI.w2, HI.w3.
pub fn pmfhl_lh(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let (lo, hi) = (words(cpu.lo), words(cpu.hi));
    let v = [lo[0], lo[1], hi[0], hi[1], lo[2], lo[3], hi[2], hi[3]].map(|x| x as u16);
    cpu.set128(rd(w), from_halves(v));
    Ok(())
}
/// PMFHL.SH: as PMFHL.LH with each word saturated to a signed halfword.
pub fn pmfhl_sh(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let (lo, hi) = (words(cpu.lo), words(cpu.hi));
    let v = [lo[0], lo[1], hi[0], hi[1], lo[2], lo[3], hi[2], hi[3]].map(|x| sat16(x as i32));
    cpu.set128(rd(w), from_halves(v));
    Ok(())
}
/// PMTHL.LW: LO.w0, HI.w0, LO.w2, HI.w2 = rs.w0..w3; words 1 and 3 of HI and LO are kept.
pub fn pmthl_lw(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let s = words(cpu.gpr[rs(w)]);
    let (mut lo, mut hi) = (words(cpu.lo), words(cpu.hi));
    lo[0] = s[0];
    hi[0] = s[1];
    lo[2] = s[2];
    hi[2] = s[3];
    cpu.lo = from_words(lo);
    cpu.hi = from_words(hi);
    Ok(())
}

// ---------------------------------------------------------------- pipeline 1 and MADD

/// MADD: HI:LO (pipeline 0) += rs * rt (signed 32 x 32); rd = LO.
pub fn madd(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let a = acc(cpu, 0);
    let lo = mult_into(cpu, 0, cpu.r32(rs(w)), cpu.r32(rt(w)), Some(a));
    cpu.set64(rd(w), lo);
    Ok(())
}
/// MADDU: unsigned.
pub fn maddu(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let a = acc(cpu, 0);
    let lo = multu_into(cpu, 0, cpu.r32(rs(w)), cpu.r32(rt(w)), Some(a));
    cpu.set64(rd(w), lo);
    Ok(())
}
/// MADD1: as MADD on pipeline 1 (HI1:LO1).
pub fn madd1(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let a = acc(cpu, 1);
    let lo = mult_into(cpu, 1, cpu.r32(rs(w)), cpu.r32(rt(w)), Some(a));
    cpu.set64(rd(w), lo);
    Ok(())
}
/// MADDU1.
pub fn maddu1(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let a = acc(cpu, 1);
    let lo = multu_into(cpu, 1, cpu.r32(rs(w)), cpu.r32(rt(w)), Some(a));
    cpu.set64(rd(w), lo);
    Ok(())
}
/// MULT1: as MULT on pipeline 1; rd = LO1.
pub fn mult1(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let lo = mult_into(cpu, 1, cpu.r32(rs(w)), cpu.r32(rt(w)), None);
    cpu.set64(rd(w), lo);
    Ok(())
}
/// MULTU1.
pub fn multu1(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let lo = multu_into(cpu, 1, cpu.r32(rs(w)), cpu.r32(rt(w)), None);
    cpu.set64(rd(w), lo);
    Ok(())
}
/// DIV1: as DIV on pipeline 1.
pub fn div1(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let (q, r) = div32(cpu.r32(rs(w)) as i32, cpu.r32(rt(w)) as i32);
    set_lohi(cpu, 1, sext32(q), sext32(r));
    Ok(())
}
/// DIVU1.
pub fn divu1(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let (q, r) = divu32(cpu.r32(rs(w)), cpu.r32(rt(w)));
    set_lohi(cpu, 1, sext32(q), sext32(r));
    Ok(())
}
/// MFHI1: rd = HI1.
pub fn mfhi1(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set64(rd(w), (cpu.hi >> 64) as u64);
    Ok(())
}
/// MFLO1: rd = LO1.
pub fn mflo1(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set64(rd(w), (cpu.lo >> 64) as u64);
    Ok(())
}
/// MTHI1: HI1 = rs.
pub fn mthi1(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let lo_part = cpu.hi as u64;
    cpu.hi = from_dwords(lo_part, cpu.r64(rs(w)));
    Ok(())
}
/// MTLO1: LO1 = rs.
pub fn mtlo1(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let lo_part = cpu.lo as u64;
    cpu.lo = from_dwords(lo_part, cpu.r64(rs(w)));
    Ok(())
}

// ---------------------------------------------------------------- parallel multiply / divide

/// The word-pair multiplies: lane i (0, 1) uses words 2i of rs and rt and the 64-bit half i
/// of HI/LO; `op` maps (accumulator, rs word, rt word) to the 64-bit result, which goes to
/// LO.d(i) / HI.d(i) as sign-extended 32-bit halves and whole to rd.d(i).
fn word_mul(cpu: &mut Cpu, w: u32, op: impl Fn(u64, u32, u32) -> u64) {
    let (s, t) = st(cpu, w);
    let (s, t) = (words(s), words(t));
    let mut out = [0u64; 2];
    for (i, o) in out.iter_mut().enumerate() {
        let r = op(acc(cpu, i as u32), s[2 * i], t[2 * i]);
        set_lohi(cpu, i as u32, sext32(r as u32), sext32((r >> 32) as u32));
        *o = r;
    }
    cpu.set128(rd(w), from_dwords(out[0], out[1]));
}
#[inline]
fn smul(a: u32, b: u32) -> u64 {
    (a as i32 as i64 * b as i32 as i64) as u64
}
#[inline]
fn umul(a: u32, b: u32) -> u64 {
    a as u64 * b as u64
}
/// PMULTW: signed 32 x 32 -> 64 on words 0 and 2.
pub fn pmultw(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    word_mul(cpu, w, |_, a, b| smul(a, b));
    Ok(())
}
/// PMULTUW: unsigned.
pub fn pmultuw(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    word_mul(cpu, w, |_, a, b| umul(a, b));
    Ok(())
}
/// PMADDW: HI:LO words += product.
pub fn pmaddw(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    word_mul(cpu, w, |acc, a, b| acc.wrapping_add(smul(a, b)));
    Ok(())
}
/// PMADDUW.
pub fn pmadduw(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    word_mul(cpu, w, |acc, a, b| acc.wrapping_add(umul(a, b)));
    Ok(())
}
/// PMSUBW: HI:LO words -= product.
pub fn pmsubw(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    word_mul(cpu, w, |acc, a, b| acc.wrapping_sub(smul(a, b)));
    Ok(())
}

/// PDIVW: words 0 and 2: LO.d(i) = quotient, HI.d(i) = remainder, sign-extended.
pub fn pdivw(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let (s, t) = st(cpu, w);
    let (s, t) = (words(s), words(t));
    for i in 0..2 {
        let (q, r) = div32(s[2 * i] as i32, t[2 * i] as i32);
        set_lohi(cpu, i as u32, sext32(q), sext32(r));
    }
    Ok(())
}
/// PDIVUW: unsigned.
pub fn pdivuw(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let (s, t) = st(cpu, w);
    let (s, t) = (words(s), words(t));
    for i in 0..2 {
        let (q, r) = divu32(s[2 * i], t[2 * i]);
        set_lohi(cpu, i as u32, sext32(q), sext32(r));
    }
    Ok(())
}
/// PDIVBW: each word of rs divided by halfword 0 of rt (signed): LO.w(i) = quotient,
/// HI.w(i) = remainder.
pub fn pdivbw(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let (s, t) = st(cpu, w);
    let d = t as u16 as i16 as i32;
    let s = words(s);
    let mut lo = [0; 4];
    let mut hi = [0; 4];
    for i in 0..4 {
        (lo[i], hi[i]) = div32(s[i] as i32, d);
    }
    cpu.lo = from_words(lo);
    cpu.hi = from_words(hi);
    Ok(())
}

/// The eight halfword products rs.h(i) * rt.h(i), as signed 32-bit values.
#[inline]
fn hprods(cpu: &Cpu, w: u32) -> [i32; 8] {
    let (s, t) = st(cpu, w);
    let (s, t) = (halves(s), halves(t));
    std::array::from_fn(|i| s[i] as i16 as i32 * t[i] as i16 as i32)
}

/// Halfword product i goes to word: LO.w0, LO.w1, HI.w0, HI.w1, LO.w2, LO.w3, HI.w2, HI.w3.
/// Returns (is_hi, word index) for product i.
#[inline]
fn hslot(i: usize) -> (bool, usize) {
    ((i / 2) % 2 == 1, (i / 4) * 2 + i % 2)
}

/// PMULTH/PMADDH/PMSUBH: `f(old word, product)` per slot; rd = LO.w0, HI.w0, LO.w2, HI.w2.
fn half_mul(cpu: &mut Cpu, w: u32, f: impl Fn(u32, i32) -> u32) {
    let p = hprods(cpu, w);
    let (mut lo, mut hi) = (words(cpu.lo), words(cpu.hi));
    for (i, &x) in p.iter().enumerate() {
        let (is_hi, k) = hslot(i);
        let slot = if is_hi { &mut hi[k] } else { &mut lo[k] };
        *slot = f(*slot, x);
    }
    cpu.lo = from_words(lo);
    cpu.hi = from_words(hi);
    cpu.set128(rd(w), from_words([lo[0], hi[0], lo[2], hi[2]]));
}
/// PMULTH: eight signed halfword products into HI/LO words.
pub fn pmulth(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    half_mul(cpu, w, |_, p| p as u32);
    Ok(())
}
/// PMADDH: HI/LO words += the halfword products.
pub fn pmaddh(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    half_mul(cpu, w, |old, p| old.wrapping_add(p as u32));
    Ok(())
}
/// PMSUBH: HI/LO words -= the halfword products.
pub fn pmsubh(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    half_mul(cpu, w, |old, p| old.wrapping_sub(p as u32));
    Ok(())
}

/// PHMADH/PHMSBH: pair j (products 2j and 2j+1) gives `p(2j+1) ± p(2j)` in LO.w0, HI.w0,
/// LO.w2, HI.w2 (j = 0..3) and, in the odd word next to it, p(2j+1) itself (PHMADH) or its
/// complement (PHMSBH): undocumented, but what the hardware leaves (PCSX2).
fn half_hmul(cpu: &mut Cpu, w: u32, sub: bool) {
    let p = hprods(cpu, w);
    let (mut lo, mut hi) = (words(cpu.lo), words(cpu.hi));
    for j in 0..4 {
        let (a, b) = (p[2 * j + 1], p[2 * j]);
        let (sum, side) = if sub {
            (a.wrapping_sub(b), !a)
        } else {
            (a.wrapping_add(b), a)
        };
        let dst = if j % 2 == 1 { &mut hi } else { &mut lo };
        let k = (j / 2) * 2;
        dst[k] = sum as u32;
        dst[k + 1] = side as u32;
    }
    cpu.lo = from_words(lo);
    cpu.hi = from_words(hi);
    cpu.set128(rd(w), from_words([lo[0], hi[0], lo[2], hi[2]]));
}
/// PHMADH: horizontal multiply-add of halfword pairs.
pub fn phmadh(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    half_hmul(cpu, w, false);
    Ok(())
}
/// PHMSBH: horizontal multiply-subtract of halfword pairs (odd product minus even product).
pub fn phmsbh(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    half_hmul(cpu, w, true);
    Ok(())
}
