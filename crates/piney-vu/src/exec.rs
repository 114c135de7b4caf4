//! The semantics of every micro instruction (the functions the opcode table points at).
//!
//! Float lanes use `piney_ee::float` (no denormals, no infinities/NaNs, truncation). The MAC flag
//! has, per lane (x in the highest bit of each nibble): Z bits 3..0, S bits 7..4, U bits 11..8,
//! O bits 15..12; lanes outside dest report 0.

use crate::table::{self, Fields};
use crate::vu::{UpperResult, Vu, VuHost, reg};
use piney_ee::float::{self, FloatFlags, FloatResult};

type LResult = Result<(), String>;

// ---------------------------------------------------------------- upper

#[derive(Clone, Copy, PartialEq, Eq)]
enum Arith {
    Add,
    Sub,
    Mul,
    Madd,
    Msub,
    Max,
    Mini,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Src {
    Ft,
    Bc,
    I,
    Q,
}

/// The MAC bits of one lane's result.
fn lane_flags(lane: usize, r: FloatResult) -> u16 {
    let bit = 1u16 << (3 - lane);
    let mut m = 0;
    if float::is_zero(r.bits) {
        m |= bit;
    }
    if r.bits & float::SIGN != 0 {
        m |= bit << 4;
    }
    if r.flags.contains(FloatFlags::UNDERFLOW) {
        m |= bit << 8;
    }
    if r.flags.contains(FloatFlags::OVERFLOW) {
        m |= bit << 12;
    }
    m
}

fn exact(bits: u32) -> FloatResult {
    FloatResult {
        bits,
        flags: FloatFlags::empty(),
        sticky: FloatFlags::empty(),
    }
}

fn arith(vu: &Vu, w: u32, op: Arith, src: Src, to_acc: bool) -> UpperResult {
    let f = Fields::of(w);
    let fs = vu.vf(f.fs);
    let ft = vu.vf(f.ft);
    let mut out = [0u32; 4];
    let mut mac = 0u16;
    for (l, o) in out.iter_mut().enumerate() {
        if f.lanes & (1 << l) == 0 {
            continue;
        }
        let a = fs[l];
        let b = match src {
            Src::Ft => ft[l],
            Src::Bc => ft[f.bc],
            Src::I => vu.i(),
            Src::Q => vu.q(),
        };
        let acc = vu.regs.acc[l];
        let r = match op {
            Arith::Add => float::add(a, b),
            Arith::Sub => float::sub(a, b),
            Arith::Mul => float::mul(a, b),
            Arith::Madd => float::madd(acc, a, b),
            Arith::Msub => float::msub(acc, a, b),
            Arith::Max => exact(float::max(a, b)),
            Arith::Mini => exact(float::min(a, b)),
        };
        *o = r.bits;
        mac |= lane_flags(l, r);
    }
    let sets_flags = !matches!(op, Arith::Max | Arith::Mini);
    UpperResult {
        vf: (!to_acc).then_some((f.fd, f.lanes, out)),
        acc: to_acc.then_some((f.lanes, out)),
        mac: sets_flags.then_some(mac),
        clip: None,
    }
}

macro_rules! upper_ops {
    ($($name:ident => $op:ident, $src:ident, $acc:expr;)*) => {
        $(
            #[doc = concat!("Upper `", stringify!($name), "`.")]
            pub fn $name(vu: &Vu, w: u32) -> UpperResult {
                arith(vu, w, Arith::$op, Src::$src, $acc)
            }
        )*
    };
}

upper_ops! {
    add => Add, Ft, false; add_bc => Add, Bc, false; add_i => Add, I, false; add_q => Add, Q, false;
    sub => Sub, Ft, false; sub_bc => Sub, Bc, false; sub_i => Sub, I, false; sub_q => Sub, Q, false;
    mul => Mul, Ft, false; mul_bc => Mul, Bc, false; mul_i => Mul, I, false; mul_q => Mul, Q, false;
    madd => Madd, Ft, false; madd_bc => Madd, Bc, false; madd_i => Madd, I, false;
    madd_q => Madd, Q, false;
    msub => Msub, Ft, false; msub_bc => Msub, Bc, false; msub_i => Msub, I, false;
    msub_q => Msub, Q, false;
    max => Max, Ft, false; max_bc => Max, Bc, false; max_i => Max, I, false;
    mini => Mini, Ft, false; mini_bc => Mini, Bc, false; mini_i => Mini, I, false;
    adda => Add, Ft, true; adda_bc => Add, Bc, true; adda_i => Add, I, true; adda_q => Add, Q, true;
    suba => Sub, Ft, true; suba_bc => Sub, Bc, true; suba_i => Sub, I, true; suba_q => Sub, Q, true;
    mula => Mul, Ft, true; mula_bc => Mul, Bc, true; mula_i => Mul, I, true; mula_q => Mul, Q, true;
    madda => Madd, Ft, true; madda_bc => Madd, Bc, true; madda_i => Madd, I, true;
    madda_q => Madd, Q, true;
    msuba => Msub, Ft, true; msuba_bc => Msub, Bc, true; msuba_i => Msub, I, true;
    msuba_q => Msub, Q, true;
}

fn convert(vu: &Vu, w: u32, f: impl Fn(u32) -> u32) -> UpperResult {
    let fl = Fields::of(w);
    let s = vu.vf(fl.fs);
    UpperResult {
        vf: Some((fl.ft, fl.lanes, s.map(f))),
        ..UpperResult::default()
    }
}

/// Upper `itof0`.
pub fn itof0(vu: &Vu, w: u32) -> UpperResult {
    convert(vu, w, |x| float::from_int(x, 0))
}
/// Upper `itof4`.
pub fn itof4(vu: &Vu, w: u32) -> UpperResult {
    convert(vu, w, |x| float::from_int(x, 4))
}
/// Upper `itof12`.
pub fn itof12(vu: &Vu, w: u32) -> UpperResult {
    convert(vu, w, |x| float::from_int(x, 12))
}
/// Upper `itof15`.
pub fn itof15(vu: &Vu, w: u32) -> UpperResult {
    convert(vu, w, |x| float::from_int(x, 15))
}
/// Upper `ftoi0`.
pub fn ftoi0(vu: &Vu, w: u32) -> UpperResult {
    convert(vu, w, |x| float::to_int(x, 0))
}
/// Upper `ftoi4`.
pub fn ftoi4(vu: &Vu, w: u32) -> UpperResult {
    convert(vu, w, |x| float::to_int(x, 4))
}
/// Upper `ftoi12`.
pub fn ftoi12(vu: &Vu, w: u32) -> UpperResult {
    convert(vu, w, |x| float::to_int(x, 12))
}
/// Upper `ftoi15`.
pub fn ftoi15(vu: &Vu, w: u32) -> UpperResult {
    convert(vu, w, |x| float::to_int(x, 15))
}
/// Upper `abs` (no flags; the bits pass unchanged but the sign).
pub fn abs(vu: &Vu, w: u32) -> UpperResult {
    convert(vu, w, float::abs)
}

/// Upper `clipw.xyz fs, ftw`: shift the clip flag left by 6 and add +x, -x, +y, -y, +z, -z
/// (bit 0 = x > |w| .. bit 5 = z < -|w|).
pub fn clip(vu: &Vu, w: u32) -> UpperResult {
    let f = Fields::of(w);
    let s = vu.vf(f.fs);
    let lim = float::abs(vu.vf(f.ft)[3]);
    let neg = float::neg(lim);
    let mut bits = 0;
    for (l, &x) in s.iter().take(3).enumerate() {
        if float::lt(lim, x) {
            bits |= 1 << (2 * l);
        }
        if float::lt(x, neg) {
            bits |= 2 << (2 * l);
        }
    }
    UpperResult {
        clip: Some(((vu.clip_newest() << 6) | bits) & 0xFF_FFFF),
        ..UpperResult::default()
    }
}

/// Upper `opmula.xyz acc, fs, ft`: ACC = fs.yzx * ft.zxy (the first half of a cross product).
pub fn opmula(vu: &Vu, w: u32) -> UpperResult {
    op_cross(vu, w, true)
}

/// Upper `opmsub.xyz fd, fs, ft`: fd = ACC - fs.yzx * ft.zxy.
pub fn opmsub(vu: &Vu, w: u32) -> UpperResult {
    op_cross(vu, w, false)
}

fn op_cross(vu: &Vu, w: u32, to_acc: bool) -> UpperResult {
    let f = Fields::of(w);
    let s = vu.vf(f.fs);
    let t = vu.vf(f.ft);
    let mut out = [0u32; 4];
    let mut mac = 0;
    for l in 0..3 {
        if f.lanes & (1 << l) == 0 {
            continue;
        }
        let (a, b) = (s[(l + 1) % 3], t[(l + 2) % 3]);
        let r = if to_acc {
            float::mul(a, b)
        } else {
            float::msub(vu.regs.acc[l], a, b)
        };
        out[l] = r.bits;
        mac |= lane_flags(l, r);
    }
    let lanes = f.lanes & 7;
    UpperResult {
        vf: (!to_acc).then_some((f.fd, lanes, out)),
        acc: to_acc.then_some((lanes, out)),
        mac: Some(mac),
        clip: None,
    }
}

/// Upper `nop`.
pub fn unop(_vu: &Vu, _w: u32) -> UpperResult {
    UpperResult::default()
}

// ---------------------------------------------------------------- lower: integer

/// Lower `nop` (and WAITQ/WAITP, whose stall the pipeline model applies).
pub fn lnop(_vu: &mut Vu, _h: &mut dyn VuHost, _w: u32) -> LResult {
    Ok(())
}

fn int3(vu: &mut Vu, w: u32, f: impl Fn(u16, u16) -> u16) -> LResult {
    let x = Fields::of(w);
    let v = f(vu.vi(x.fs), vu.vi(x.ft));
    vu.set_vi(x.fd, v);
    Ok(())
}

/// Lower `iadd id, is, it`.
pub fn iadd(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    int3(vu, w, u16::wrapping_add)
}
/// Lower `isub id, is, it`.
pub fn isub(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    int3(vu, w, u16::wrapping_sub)
}
/// Lower `iand id, is, it`.
pub fn iand(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    int3(vu, w, |a, b| a & b)
}
/// Lower `ior id, is, it`.
pub fn ior(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    int3(vu, w, |a, b| a | b)
}
/// Lower `iaddi it, is, imm5` (signed 5-bit immediate).
pub fn iaddi(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    let x = Fields::of(w);
    vu.set_vi(x.ft, vu.vi(x.fs).wrapping_add(x.imm5 as u16));
    Ok(())
}
/// Lower `iaddiu it, is, imm15`.
pub fn iaddiu(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    let x = Fields::of(w);
    vu.set_vi(x.ft, vu.vi(x.fs).wrapping_add(x.imm15 as u16));
    Ok(())
}
/// Lower `isubiu it, is, imm15`.
pub fn isubiu(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    let x = Fields::of(w);
    vu.set_vi(x.ft, vu.vi(x.fs).wrapping_sub(x.imm15 as u16));
    Ok(())
}

// ---------------------------------------------------------------- lower: moves

/// Lower `move.dest ft, fs`.
pub fn mov(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    let x = Fields::of(w);
    vu.set_vf(x.ft, x.lanes, vu.vf(x.fs));
    Ok(())
}
/// Lower `mr32.dest ft, fs`: ft = fs.yzwx.
pub fn mr32(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    let x = Fields::of(w);
    let s = vu.vf(x.fs);
    vu.set_vf(x.ft, x.lanes, [s[1], s[2], s[3], s[0]]);
    Ok(())
}
/// Lower `mfir.dest ft, is`: the sign-extended VI in every dest lane.
pub fn mfir(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    let x = Fields::of(w);
    let v = vu.vi(x.fs) as i16 as i32 as u32;
    vu.set_vf(x.ft, x.lanes, [v; 4]);
    Ok(())
}
/// Lower `mtir it, fsfsf`: the low 16 bits of one lane.
pub fn mtir(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    let x = Fields::of(w);
    vu.set_vi(x.ft, vu.vf(x.fs)[x.fsf] as u16);
    Ok(())
}
/// Lower `mfp.dest ft, p`.
pub fn mfp(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    let x = Fields::of(w);
    vu.set_vf(x.ft, x.lanes, [vu.p(); 4]);
    Ok(())
}

// ---------------------------------------------------------------- lower: random

/// The R register keeps 23 random bits under the exponent of 1.0.
const R_ONE: u32 = 0x3F80_0000;

/// Lower `rnext.dest ft, r`: step the generator (shift left, feeding back bit 4 xor bit 22),
/// then copy R.
pub fn rnext(vu: &mut Vu, h: &mut dyn VuHost, w: u32) -> LResult {
    let r = vu.r();
    let fb = ((r >> 4) ^ (r >> 22)) & 1;
    vu.regs.vi[reg::R] = R_ONE | (((r << 1) | fb) & 0x7F_FFFF);
    rget(vu, h, w)
}
/// Lower `rget.dest ft, r`.
pub fn rget(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    let x = Fields::of(w);
    vu.set_vf(x.ft, x.lanes, [vu.r(); 4]);
    Ok(())
}
/// Lower `rinit r, fsfsf`.
pub fn rinit(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    let x = Fields::of(w);
    vu.regs.vi[reg::R] = R_ONE | (vu.vf(x.fs)[x.fsf] & 0x7F_FFFF);
    Ok(())
}
/// Lower `rxor r, fsfsf`.
pub fn rxor(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    let x = Fields::of(w);
    vu.regs.vi[reg::R] = R_ONE | ((vu.r() ^ vu.vf(x.fs)[x.fsf]) & 0x7F_FFFF);
    Ok(())
}

// ---------------------------------------------------------------- lower: loads and stores

fn qidx(base: u16, off: i32) -> u32 {
    (base as i32).wrapping_add(off) as u32
}

/// Lower `lq.dest ft, imm11(is)` (addresses in quadwords).
pub fn lq(vu: &mut Vu, h: &mut dyn VuHost, w: u32) -> LResult {
    let x = Fields::of(w);
    let v = vu.load_q(h, qidx(vu.vi(x.fs), x.imm11));
    vu.set_vf(x.ft, x.lanes, v);
    Ok(())
}
/// Lower `sq.dest fs, imm11(it)`.
pub fn sq(vu: &mut Vu, h: &mut dyn VuHost, w: u32) -> LResult {
    let x = Fields::of(w);
    let v = vu.vf(x.fs);
    vu.store_q(h, qidx(vu.vi(x.ft), x.imm11), v, x.lanes);
    Ok(())
}
/// Lower `lqi.dest ft, (is++)`.
pub fn lqi(vu: &mut Vu, h: &mut dyn VuHost, w: u32) -> LResult {
    let x = Fields::of(w);
    let a = vu.vi(x.fs);
    let v = vu.load_q(h, a as u32);
    vu.set_vf(x.ft, x.lanes, v);
    vu.set_vi(x.fs, a.wrapping_add(1));
    Ok(())
}
/// Lower `lqd.dest ft, (--is)`.
pub fn lqd(vu: &mut Vu, h: &mut dyn VuHost, w: u32) -> LResult {
    let x = Fields::of(w);
    let a = vu.vi(x.fs).wrapping_sub(1);
    vu.set_vi(x.fs, a);
    let v = vu.load_q(h, a as u32);
    vu.set_vf(x.ft, x.lanes, v);
    Ok(())
}
/// Lower `sqi.dest fs, (it++)`.
pub fn sqi(vu: &mut Vu, h: &mut dyn VuHost, w: u32) -> LResult {
    let x = Fields::of(w);
    let a = vu.vi(x.ft);
    let v = vu.vf(x.fs);
    vu.store_q(h, a as u32, v, x.lanes);
    vu.set_vi(x.ft, a.wrapping_add(1));
    Ok(())
}
/// Lower `sqd.dest fs, (--it)`.
pub fn sqd(vu: &mut Vu, h: &mut dyn VuHost, w: u32) -> LResult {
    let x = Fields::of(w);
    let a = vu.vi(x.ft).wrapping_sub(1);
    vu.set_vi(x.ft, a);
    let v = vu.vf(x.fs);
    vu.store_q(h, a as u32, v, x.lanes);
    Ok(())
}

fn ilw_at(vu: &mut Vu, h: &mut dyn VuHost, w: u32, off: i32) -> LResult {
    let x = Fields::of(w);
    let v = vu.load_q(h, qidx(vu.vi(x.fs), off));
    // The lowest set dest lane supplies the value (dest names exactly one lane).
    let lane = (0..4).find(|l| x.lanes & (1 << l) != 0).unwrap_or(0);
    vu.set_vi(x.ft, v[lane] as u16);
    Ok(())
}
fn isw_at(vu: &mut Vu, h: &mut dyn VuHost, w: u32, off: i32) -> LResult {
    let x = Fields::of(w);
    // The VI zero-extended into every dest lane.
    let v = vu.vi(x.ft) as u32;
    vu.store_q(h, qidx(vu.vi(x.fs), off), [v; 4], x.lanes);
    Ok(())
}
/// Lower `ilw.dest it, imm11(is)`.
pub fn ilw(vu: &mut Vu, h: &mut dyn VuHost, w: u32) -> LResult {
    ilw_at(vu, h, w, Fields::of(w).imm11)
}
/// Lower `isw.dest it, imm11(is)`.
pub fn isw(vu: &mut Vu, h: &mut dyn VuHost, w: u32) -> LResult {
    isw_at(vu, h, w, Fields::of(w).imm11)
}
/// Lower `ilwr.dest it, (is)`.
pub fn ilwr(vu: &mut Vu, h: &mut dyn VuHost, w: u32) -> LResult {
    ilw_at(vu, h, w, 0)
}
/// Lower `iswr.dest it, (is)`.
pub fn iswr(vu: &mut Vu, h: &mut dyn VuHost, w: u32) -> LResult {
    isw_at(vu, h, w, 0)
}

// ---------------------------------------------------------------- lower: FDIV

fn latency(w: u32) -> u8 {
    table::decode_lower(w).map_or(0, |o| o.latency)
}

/// Status I (bit 4) / D (bit 5) from an FDIV result.
fn fdiv_status(r: FloatResult) -> u32 {
    let mut s = 0;
    if r.flags.contains(FloatFlags::INVALID) {
        s |= 0x10;
    }
    if r.flags.contains(FloatFlags::DIV_ZERO) {
        s |= 0x20;
    }
    s
}

/// Lower `div q, fsfsf, ftftf`: Q = fs / ft after 7 cycles (x/0 sets D, 0/0 sets I).
pub fn div(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    let x = Fields::of(w);
    let r = float::div(vu.vf(x.fs)[x.fsf], vu.vf(x.ft)[x.ftf]);
    vu.start_q(r.bits, fdiv_status(r), latency(w));
    Ok(())
}
/// Lower `sqrt q, ftftf`: Q = sqrt(|ft|) after 7 cycles (a negative operand sets I).
pub fn sqrt(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    let x = Fields::of(w);
    let r = float::sqrt(vu.vf(x.ft)[x.ftf]);
    vu.start_q(r.bits, fdiv_status(r), latency(w));
    Ok(())
}
/// Lower `rsqrt q, fsfsf, ftftf`: Q = fs / sqrt(|ft|) after 13 cycles (ft zero sets D, or I when
/// fs is zero too; a negative ft sets I).
pub fn rsqrt(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    let x = Fields::of(w);
    let (a, b) = (vu.vf(x.fs)[x.fsf], vu.vf(x.ft)[x.ftf]);
    let r = float::rsqrt(a, b);
    let status = if float::is_zero(a) && float::is_zero(b) {
        0x10
    } else {
        fdiv_status(r)
    };
    vu.start_q(r.bits, status, latency(w));
    Ok(())
}

// ---------------------------------------------------------------- lower: EFU (VU1)

fn square_sum(v: [u32; 4]) -> u32 {
    let xx = float::mul(v[0], v[0]).bits;
    let yy = float::mul(v[1], v[1]).bits;
    let zz = float::mul(v[2], v[2]).bits;
    float::add(float::add(xx, yy).bits, zz).bits
}

fn efu(vu: &mut Vu, w: u32, f: impl Fn([u32; 4], u32) -> u32) -> LResult {
    let x = Fields::of(w);
    let v = f(vu.vf(x.fs), vu.vf(x.fs)[x.fsf]);
    vu.start_p(v, latency(w));
    Ok(())
}

/// Lower `esadd p, fs`: x² + y² + z².
pub fn esadd(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    efu(vu, w, |v, _| square_sum(v))
}
/// Lower `ersadd p, fs`: 1 / (x² + y² + z²).
pub fn ersadd(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    efu(vu, w, |v, _| float::div(float::ONE, square_sum(v)).bits)
}
/// Lower `eleng p, fs`: sqrt(x² + y² + z²).
pub fn eleng(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    efu(vu, w, |v, _| float::sqrt(square_sum(v)).bits)
}
/// Lower `erleng p, fs`: 1 / sqrt(x² + y² + z²).
pub fn erleng(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    efu(vu, w, |v, _| float::rsqrt(float::ONE, square_sum(v)).bits)
}
/// Lower `esum p, fs`: x + y + z + w.
pub fn esum(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    efu(vu, w, |v, _| {
        let xy = float::add(v[0], v[1]).bits;
        float::add(float::add(xy, v[2]).bits, v[3]).bits
    })
}
/// Lower `ercpr p, fsfsf`: 1 / x.
pub fn ercpr(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    efu(vu, w, |_, s| float::div(float::ONE, s).bits)
}
/// Lower `esqrt p, fsfsf`.
pub fn esqrt(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    efu(vu, w, |_, s| float::sqrt(s).bits)
}
/// Lower `ersqrt p, fsfsf`: 1 / sqrt(x).
pub fn ersqrt(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    efu(vu, w, |_, s| float::rsqrt(float::ONE, s).bits)
}

// The EFU's series. Facts (PCSX2's microVU constant words S2-S5, T1-T8, E1-E6, and the
// evaluation order that reproduces ps2autotests `vu/lower/efu` bit for bit):
// - every step is one FMAC multiply or add (rounding towards zero, the multiplier recoding its
//   second operand, so operand order matters): the power leads each term's multiply, except the
//   first EATAN term where the coefficient does;
// - each odd power comes from one multiply by x*x (x*x leads the first time, trails after);
// - the constant term (EATAN's pi/4, EEXP's 1.0) is added between the last two terms.

/// ESIN: x + S2*x^3 + S3*x^5 + S4*x^7 + S5*x^9.
const SIN: [u32; 4] = [0xBE2A_AAA4, 0x3C08_873E, 0xB94F_B21F, 0x362E_9C14];
/// EATAN: T1*t + T2*t^3 + ... + T8*t^15 + pi/4 for t = (x - 1) / (x + 1).
const ATAN: [u32; 8] = [
    0x3F7F_FFF5,
    0xBEAA_A61C,
    0x3E4C_40A6,
    0xBE0E_6C63,
    0x3DC5_77DF,
    0xBD65_01C4,
    0x3CB3_1652,
    0xBB84_D7E7,
];
/// EEXP: 1 / (1 + E1*x + ... + E6*x^6)^4.
const EXP: [u32; 6] = [
    0x3E7F_FFA8,
    0x3D00_07F4,
    0x3B29_D3FF,
    0x3933_E553,
    0x36B6_3510,
    0x3539_61AC,
];

/// pi/4 as the EFU adds it (one unit below the nearest single).
const PI_4: u32 = 0x3f49_0fda;

fn fmul(a: u32, b: u32) -> u32 {
    float::mul(a, b).bits
}
fn fadd(a: u32, b: u32) -> u32 {
    float::add(a, b).bits
}

fn atan_of(t: u32) -> u32 {
    let tt = fmul(t, t);
    let mut tn = fmul(tt, t);
    let mut p = fadd(fmul(ATAN[0], t), fmul(tn, ATAN[1]));
    for (i, &c) in ATAN.iter().enumerate().skip(2) {
        tn = fmul(tn, tt);
        if i == ATAN.len() - 1 {
            p = fadd(p, PI_4);
        }
        p = fadd(p, fmul(tn, c));
    }
    p
}

fn sin_of(x: u32) -> u32 {
    let xx = fmul(x, x);
    let mut xn = fmul(xx, x);
    let mut p = fadd(x, fmul(xn, SIN[0]));
    for &c in &SIN[1..] {
        xn = fmul(xn, xx);
        p = fadd(p, fmul(xn, c));
    }
    p
}

fn exp_of(x: u32) -> u32 {
    let mut p = fmul(x, EXP[0]);
    let mut xn = x;
    for (i, &c) in EXP.iter().enumerate().skip(1) {
        xn = fmul(xn, x);
        if i == EXP.len() - 1 {
            p = fadd(p, float::ONE);
        }
        p = fadd(p, fmul(xn, c));
    }
    let p2 = fmul(p, p);
    let p4 = fmul(p2, p2);
    float::div(float::ONE, p4).bits
}

/// Lower `esin p, fsfsf`.
pub fn esin(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    efu(vu, w, |_, s| sin_of(s))
}
/// Lower `eatan p, fsfsf`: atan(x) = pi/4 + atan((x - 1) / (x + 1)).
pub fn eatan(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    efu(vu, w, |_, s| {
        let t = float::div(
            float::sub(s, float::ONE).bits,
            float::add(s, float::ONE).bits,
        );
        atan_of(t.bits)
    })
}
/// Lower `eatanxy p, fs`: atan(y / x) via t = (y - x) / (x + y) (as EATAN).
pub fn eatanxy(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    efu(vu, w, |v, _| {
        let t = float::div(float::sub(v[1], v[0]).bits, float::add(v[0], v[1]).bits);
        atan_of(t.bits)
    })
}
/// Lower `eatanxz p, fs`: atan(z / x) (as EATAN).
pub fn eatanxz(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    efu(vu, w, |v, _| {
        let t = float::div(float::sub(v[2], v[0]).bits, float::add(v[0], v[2]).bits);
        atan_of(t.bits)
    })
}
/// Lower `eexp p, fsfsf`: exp(-x).
pub fn eexp(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    efu(vu, w, |_, s| exp_of(s))
}

// ---------------------------------------------------------------- lower: flags

fn imm12(w: u32) -> u32 {
    Fields::of(w).imm15 & 0xFFF
}

/// Lower `fsand it, imm12`.
pub fn fsand(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    let x = Fields::of(w);
    vu.set_vi(x.ft, (vu.status() & imm12(w)) as u16);
    Ok(())
}
/// Lower `fseq it, imm12`.
pub fn fseq(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    let x = Fields::of(w);
    vu.set_vi(x.ft, (vu.status() == imm12(w)) as u16);
    Ok(())
}
/// Lower `fsor it, imm12`.
pub fn fsor(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    let x = Fields::of(w);
    vu.set_vi(x.ft, (vu.status() | imm12(w)) as u16);
    Ok(())
}
/// Lower `fsset imm12`: only the sticky bits (11..6) are written.
pub fn fsset(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    vu.set_status_sticky(imm12(w));
    Ok(())
}
/// Lower `fmand it, is`.
pub fn fmand(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    let x = Fields::of(w);
    vu.set_vi(x.ft, vu.mac() as u16 & vu.vi(x.fs));
    Ok(())
}
/// Lower `fmeq it, is`.
pub fn fmeq(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    let x = Fields::of(w);
    vu.set_vi(x.ft, (vu.mac() as u16 == vu.vi(x.fs)) as u16);
    Ok(())
}
/// Lower `fmor it, is`.
pub fn fmor(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    let x = Fields::of(w);
    vu.set_vi(x.ft, vu.mac() as u16 | vu.vi(x.fs));
    Ok(())
}
/// Lower `fcand vi1, imm24`: VI1 = (clip & imm) != 0.
pub fn fcand(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    vu.set_vi(1, (vu.clip() & Fields::of(w).imm24 != 0) as u16);
    Ok(())
}
/// Lower `fceq vi1, imm24`: VI1 = clip == imm.
pub fn fceq(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    vu.set_vi(1, (vu.clip() == Fields::of(w).imm24) as u16);
    Ok(())
}
/// Lower `fcor vi1, imm24`: VI1 = (clip | imm) == 0xFFFFFF.
pub fn fcor(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    vu.set_vi(1, ((vu.clip() | Fields::of(w).imm24) == 0xFF_FFFF) as u16);
    Ok(())
}
/// Lower `fcset imm24`.
pub fn fcset(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    vu.set_clip_now(Fields::of(w).imm24);
    Ok(())
}
/// Lower `fcget it`: the low 12 bits of the clip flag.
pub fn fcget(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    let x = Fields::of(w);
    vu.set_vi(x.ft, (vu.clip() & 0xFFF) as u16);
    Ok(())
}

// ---------------------------------------------------------------- lower: branches

fn take(vu: &mut Vu, w: u32, cond: bool) -> LResult {
    if cond {
        // imm11 counts pairs from the delay slot.
        let off = Fields::of(w).imm11 * 8;
        vu.branch_target = Some((vu.cur_pc as i32 + 8 + off) as u32);
    }
    Ok(())
}

fn link(vu: &mut Vu, r: usize) {
    // The return address (after the delay slot) in pairs.
    let ret = ((vu.cur_pc + 16) / 8) as u16;
    vu.set_vi(r, ret);
}

/// Lower `b imm11`.
pub fn b(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    take(vu, w, true)
}
/// Lower `bal it, imm11`.
pub fn bal(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    take(vu, w, true)?;
    link(vu, Fields::of(w).ft);
    Ok(())
}
/// Lower `jr is` (VI holds a pair index).
pub fn jr(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    // JR/JALR read VI[is] as written by the previous pair: the branch VI delay only applies to
    // the conditional branches (PCSX2 microVU's mVUanalyzeJump has no analyzeBranchVI;
    // ps2autotests vu/lower/branch: `iaddi vi1, vi0, 6` then `jalr vi1, vi1` jumps to pair 6).
    vu.branch_target = Some(vu.vi(Fields::of(w).fs) as u32 * 8);
    Ok(())
}
/// Lower `jalr it, is` (the target is read before the link is written; no branch VI delay,
/// see [`jr`]).
pub fn jalr(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    let x = Fields::of(w);
    vu.branch_target = Some(vu.vi(x.fs) as u32 * 8);
    link(vu, x.ft);
    Ok(())
}
/// Lower `ibeq it, is, imm11`.
pub fn ibeq(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    let x = Fields::of(w);
    let c = vu.branch_vi(x.ft) == vu.branch_vi(x.fs);
    take(vu, w, c)
}
/// Lower `ibne it, is, imm11`.
pub fn ibne(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    let x = Fields::of(w);
    let c = vu.branch_vi(x.ft) != vu.branch_vi(x.fs);
    take(vu, w, c)
}
fn branch_is(vu: &mut Vu, w: u32, f: impl Fn(i16) -> bool) -> LResult {
    let c = f(vu.branch_vi(Fields::of(w).fs) as i16);
    take(vu, w, c)
}
/// Lower `ibltz is, imm11`.
pub fn ibltz(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    branch_is(vu, w, |v| v < 0)
}
/// Lower `ibgtz is, imm11`.
pub fn ibgtz(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    branch_is(vu, w, |v| v > 0)
}
/// Lower `iblez is, imm11`.
pub fn iblez(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    branch_is(vu, w, |v| v <= 0)
}
/// Lower `ibgez is, imm11`.
pub fn ibgez(vu: &mut Vu, _h: &mut dyn VuHost, w: u32) -> LResult {
    branch_is(vu, w, |v| v >= 0)
}

// ---------------------------------------------------------------- lower: VU1 interface

/// Lower `xgkick is`: the GIF packet at quadword `VI[is]` of VU1 data memory goes to PATH1, from
/// the cycle this pair issues (`vu.cycle` holds it while the pair executes).
pub fn xgkick(vu: &mut Vu, h: &mut dyn VuHost, w: u32) -> LResult {
    let addr = (vu.vi(Fields::of(w).fs) as u32 & 0x3FF) * 16;
    h.xgkick(&vu.data, addr, vu.cycle);
    Ok(())
}
/// Lower `xtop it`: VIF1 TOP (10 bits).
pub fn xtop(vu: &mut Vu, h: &mut dyn VuHost, w: u32) -> LResult {
    vu.set_vi(Fields::of(w).ft, h.vif1_top() & 0x3FF);
    Ok(())
}
/// Lower `xitop it`: the ITOP of the VU's own VIF (VIF1 for VU1, VIF0 for VU0; 10 bits).
pub fn xitop(vu: &mut Vu, h: &mut dyn VuHost, w: u32) -> LResult {
    vu.set_vi(Fields::of(w).ft, h.vif1_itop() & 0x3FF);
    Ok(())
}
