//! Semantics of the COP2 family: VU0 in macro mode, as the EE issues it.
//!
//! Field layout of the VU instructions: dest mask x bit 24, y 23, z 22, w 21; ft bits 16-20,
//! fs 11-15, fd 6-10; broadcast lane bits 0-1. Lanes are x y z w = indices 0..3, x in the low
//! word when a register moves to a GPR or memory.
//!
//! Flags: every FMAC operation (add, sub, mul, madd, msub, opmula, opmsub and their A forms)
//! rewrites the MAC flag (per lane Z bits 0-3, S 4-7, U 8-11, O 12-15; within each nibble
//! bit 3 is x and bit 0 is w; lanes not written read zero) and the status flag's Z S U O
//! (bits 0-3) from it, or'ing them into the sticky bits 6-9. The divide unit sets status I (4)
//! and D (5) and their sticky bits 10 and 11. VCLIP shifts the clip flag left by 6 and puts its
//! six judgements in the low bits (24 bits kept).

use crate::bus::Bus;
use crate::cpu::{Cpu, cop0reg, status};
use crate::exception::{Exception, ExceptionKind};
use crate::float::{self, FloatFlags, FloatResult};
use crate::interp::{branch, branch_likely, branch_target, bus_data, effective_address};
use crate::table::fields::{fd, fs, ft, rt};

type R = Result<(), Exception>;

/// Control register numbers as CFC2/CTC2 address them.
pub mod ctrl {
    /// Status flag.
    pub const STATUS: usize = 16;
    /// MAC flag (read-only).
    pub const MAC: usize = 17;
    /// Clipping flag.
    pub const CLIP: usize = 18;
    /// The random number register R (23 bits kept).
    pub const R: usize = 20;
    /// The I register.
    pub const I: usize = 21;
    /// The Q register.
    pub const Q: usize = 22;
    /// TPC, the micro program counter (read-only).
    pub const TPC: usize = 26;
    /// CMSAR0, VCALLMSR's start address (in 8-byte units).
    pub const CMSAR0: usize = 27;
    /// FBRST: force break / reset, write-only.
    pub const FBRST: usize = 28;
    /// VPU-STAT (read-only): bit 0 VU0 running, bit 8 VU1 running.
    pub const VPU_STAT: usize = 29;
    /// CMSAR1, VU1's start address.
    pub const CMSAR1: usize = 31;
}

/// The EE address of VU0 data memory (4 KiB) as VLQI, VSQI, VILWR... reach it.
pub const VU0_DATA: u32 = 0x1100_4000;

/// Status flag bits.
mod st {
    pub const Z: u32 = 1 << 0;
    pub const S: u32 = 1 << 1;
    pub const U: u32 = 1 << 2;
    pub const O: u32 = 1 << 3;
    pub const I: u32 = 1 << 4;
    pub const D: u32 = 1 << 5;
    /// The sticky copies sit 6 bits higher.
    pub const STICKY_SHIFT: u32 = 6;
}

/// COP2 usable? Status.CU2 clear raises Coprocessor Unusable with Cause.CE = 2.
#[inline]
fn usable(cpu: &mut Cpu) -> R {
    if cpu.cop0.regs[cop0reg::STATUS] & status::CU2 != 0 {
        Ok(())
    } else {
        let cause = &mut cpu.cop0.regs[cop0reg::CAUSE];
        *cause = (*cause & !(3 << 28)) | (2 << 28);
        Err(Exception::new(ExceptionKind::CopUnusable))
    }
}

/// The dest mask as a lane predicate.
#[inline]
fn lane_on(w: u32, lane: usize) -> bool {
    w & (1 << (24 - lane)) != 0
}

/// The broadcast lane (bits 0-1).
#[inline]
fn bc(w: u32) -> usize {
    (w & 3) as usize
}

/// The fsf field (bits 21-22) selecting a lane of fs.
#[inline]
fn fsf(w: u32) -> usize {
    ((w >> 21) & 3) as usize
}

/// The ftf field (bits 23-24) selecting a lane of ft.
#[inline]
fn ftf(w: u32) -> usize {
    ((w >> 23) & 3) as usize
}

/// Write a VF register's lanes under the dest mask (VF0 is constant).
#[inline]
fn write_vf(cpu: &mut Cpu, r: usize, w: u32, v: [u32; 4]) {
    if r == 0 {
        return;
    }
    for (lane, &value) in v.iter().enumerate() {
        if lane_on(w, lane) {
            cpu.vu0.vf[r][lane] = value;
        }
    }
}

/// Write VI1..VI15 (16 bits; VI0 is constant 0).
#[inline]
fn write_vi(cpu: &mut Cpu, r: usize, v: u32) {
    if r != 0 && r < 16 {
        cpu.vu0.vi[r] = v & 0xffff;
    }
}

#[inline]
fn vi(cpu: &Cpu, r: usize) -> u32 {
    cpu.vu0.vi[r & 15] & 0xffff
}

fn vf_to_u128(v: [u32; 4]) -> u128 {
    v.iter()
        .enumerate()
        .fold(0, |acc, (i, &x)| acc | (x as u128) << (32 * i))
}

fn u128_to_vf(v: u128) -> [u32; 4] {
    std::array::from_fn(|i| (v >> (32 * i)) as u32)
}

/// Rewrite the MAC flag and the status flag's Z S U O (and sticky copies) from the lanes an FMAC
/// operation wrote.
fn set_mac(cpu: &mut Cpu, results: &[Option<FloatResult>; 4]) {
    let mut mac = 0;
    for (lane, r) in results.iter().enumerate() {
        let Some(r) = r else { continue };
        let bit = 3 - lane;
        if float::is_zero(r.bits) {
            mac |= 1 << bit;
        }
        if r.bits & float::SIGN != 0 {
            mac |= 1 << (4 + bit);
        }
        if r.flags.contains(FloatFlags::UNDERFLOW) {
            mac |= 1 << (8 + bit);
        }
        if r.flags.contains(FloatFlags::OVERFLOW) {
            mac |= 1 << (12 + bit);
        }
    }
    cpu.vu0.vi[ctrl::MAC] = mac;
    let mut new = 0;
    for (i, flag) in [st::Z, st::S, st::U, st::O].into_iter().enumerate() {
        if mac & (0xf << (4 * i)) != 0 {
            new |= flag;
        }
    }
    let s = &mut cpu.vu0.vi[ctrl::STATUS];
    *s = (*s & !0xf) | new | (new << st::STICKY_SHIFT);
}

/// Set the status flag's I and D bits (clearing the old ones) and their sticky bits.
fn set_div_flags(cpu: &mut Cpu, flags: FloatFlags) {
    let mut new = 0;
    if flags.contains(FloatFlags::INVALID) {
        new |= st::I;
    }
    if flags.contains(FloatFlags::DIV_ZERO) {
        new |= st::D;
    }
    let s = &mut cpu.vu0.vi[ctrl::STATUS];
    *s = (*s & !(st::I | st::D)) | new | (new << st::STICKY_SHIFT);
}

/// Where an FMAC operation's second operand comes from.
#[derive(Clone, Copy)]
enum Src {
    /// ft, lane by lane.
    Ft,
    /// One lane of ft broadcast (bits 0-1).
    Bc,
    /// The Q register.
    Q,
    /// The I register.
    I,
}

fn second(cpu: &Cpu, w: u32, src: Src) -> [u32; 4] {
    let t = cpu.vu0.vf[ft(w)];
    match src {
        Src::Ft => t,
        Src::Bc => [t[bc(w)]; 4],
        Src::Q => [cpu.vu0.vi[ctrl::Q]; 4],
        Src::I => [cpu.vu0.vi[ctrl::I]; 4],
    }
}

/// The lane operation of an FMAC instruction: (fs lane, second lane, ACC lane) -> result.
type LaneOp = fn(u32, u32, u32) -> FloatResult;

fn op_add(s: u32, t: u32, _: u32) -> FloatResult {
    float::add(s, t)
}
fn op_sub(s: u32, t: u32, _: u32) -> FloatResult {
    float::sub(s, t)
}
fn op_mul(s: u32, t: u32, _: u32) -> FloatResult {
    float::mul(s, t)
}
fn op_madd(s: u32, t: u32, acc: u32) -> FloatResult {
    float::madd(acc, s, t)
}
fn op_msub(s: u32, t: u32, acc: u32) -> FloatResult {
    float::msub(acc, s, t)
}

/// Run an FMAC operation on the dest lanes, writing fd (or ACC) and the MAC/status flags.
fn fmac(cpu: &mut Cpu, w: u32, src: Src, op: LaneOp, to_acc: bool) -> R {
    usable(cpu)?;
    let s = cpu.vu0.vf[fs(w)];
    let t = second(cpu, w, src);
    let acc = cpu.vu0.acc;
    let results: [Option<FloatResult>; 4] =
        std::array::from_fn(|i| lane_on(w, i).then(|| op(s[i], t[i], acc[i])));
    let values: [u32; 4] = std::array::from_fn(|i| results[i].map_or(0, |r| r.bits));
    if to_acc {
        for (lane, r) in results.iter().enumerate() {
            if let Some(r) = r {
                cpu.vu0.acc[lane] = r.bits;
            }
        }
    } else {
        write_vf(cpu, fd(w), w, values);
    }
    set_mac(cpu, &results);
    Ok(())
}

macro_rules! fmac_ops {
    ($($(#[$doc:meta])* $name:ident => ($src:ident, $op:ident, $acc:expr);)*) => {$(
        $(#[$doc])*
        pub fn $name(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
            fmac(cpu, w, Src::$src, $op, $acc)
        }
    )*};
}

fmac_ops! {
    /// VADD.dest fd, fs, ft.
    vadd => (Ft, op_add, false);
    /// VADDbc.dest fd, fs, ft.bc.
    vaddbc => (Bc, op_add, false);
    /// VADDq.dest fd, fs, Q.
    vaddq => (Q, op_add, false);
    /// VADDi.dest fd, fs, I.
    vaddi => (I, op_add, false);
    /// VSUB.dest fd, fs, ft.
    vsub => (Ft, op_sub, false);
    /// VSUBbc.dest fd, fs, ft.bc.
    vsubbc => (Bc, op_sub, false);
    /// VSUBq.dest fd, fs, Q.
    vsubq => (Q, op_sub, false);
    /// VSUBi.dest fd, fs, I.
    vsubi => (I, op_sub, false);
    /// VMUL.dest fd, fs, ft.
    vmul => (Ft, op_mul, false);
    /// VMULbc.dest fd, fs, ft.bc.
    vmulbc => (Bc, op_mul, false);
    /// VMULq.dest fd, fs, Q.
    vmulq => (Q, op_mul, false);
    /// VMULi.dest fd, fs, I.
    vmuli => (I, op_mul, false);
    /// VMADD.dest fd, fs, ft: fd = ACC + fs * ft.
    vmadd => (Ft, op_madd, false);
    /// VMADDbc.dest fd, fs, ft.bc.
    vmaddbc => (Bc, op_madd, false);
    /// VMADDq.dest fd, fs, Q.
    vmaddq => (Q, op_madd, false);
    /// VMADDi.dest fd, fs, I.
    vmaddi => (I, op_madd, false);
    /// VMSUB.dest fd, fs, ft: fd = ACC - fs * ft.
    vmsub => (Ft, op_msub, false);
    /// VMSUBbc.dest fd, fs, ft.bc.
    vmsubbc => (Bc, op_msub, false);
    /// VMSUBq.dest fd, fs, Q.
    vmsubq => (Q, op_msub, false);
    /// VMSUBi.dest fd, fs, I.
    vmsubi => (I, op_msub, false);
    /// VADDA.dest ACC, fs, ft.
    vadda => (Ft, op_add, true);
    /// VADDAbc.dest ACC, fs, ft.bc.
    vaddabc => (Bc, op_add, true);
    /// VADDAq.dest ACC, fs, Q.
    vaddaq => (Q, op_add, true);
    /// VADDAi.dest ACC, fs, I.
    vaddai => (I, op_add, true);
    /// VSUBA.dest ACC, fs, ft.
    vsuba => (Ft, op_sub, true);
    /// VSUBAbc.dest ACC, fs, ft.bc.
    vsubabc => (Bc, op_sub, true);
    /// VSUBAq.dest ACC, fs, Q.
    vsubaq => (Q, op_sub, true);
    /// VSUBAi.dest ACC, fs, I.
    vsubai => (I, op_sub, true);
    /// VMULA.dest ACC, fs, ft.
    vmula => (Ft, op_mul, true);
    /// VMULAbc.dest ACC, fs, ft.bc.
    vmulabc => (Bc, op_mul, true);
    /// VMULAq.dest ACC, fs, Q.
    vmulaq => (Q, op_mul, true);
    /// VMULAi.dest ACC, fs, I.
    vmulai => (I, op_mul, true);
    /// VMADDA.dest ACC, fs, ft: ACC += fs * ft.
    vmadda => (Ft, op_madd, true);
    /// VMADDAbc.dest ACC, fs, ft.bc.
    vmaddabc => (Bc, op_madd, true);
    /// VMADDAq.dest ACC, fs, Q.
    vmaddaq => (Q, op_madd, true);
    /// VMADDAi.dest ACC, fs, I.
    vmaddai => (I, op_madd, true);
    /// VMSUBA.dest ACC, fs, ft: ACC -= fs * ft.
    vmsuba => (Ft, op_msub, true);
    /// VMSUBAbc.dest ACC, fs, ft.bc.
    vmsubabc => (Bc, op_msub, true);
    /// VMSUBAq.dest ACC, fs, Q.
    vmsubaq => (Q, op_msub, true);
    /// VMSUBAi.dest ACC, fs, I.
    vmsubai => (I, op_msub, true);
}

/// VOPMULA.xyz ACC, fs, ft: the first half of a cross product, ACC = fs.yzx * ft.zxy.
pub fn vopmula(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    let (s, t) = (cpu.vu0.vf[fs(w)], cpu.vu0.vf[ft(w)]);
    let results: [Option<FloatResult>; 4] = std::array::from_fn(|i| {
        (i < 3 && lane_on(w, i)).then(|| float::mul(s[(i + 1) % 3], t[(i + 2) % 3]))
    });
    for (lane, r) in results.iter().enumerate() {
        if let Some(r) = r {
            cpu.vu0.acc[lane] = r.bits;
        }
    }
    set_mac(cpu, &results);
    Ok(())
}

/// VOPMSUB.xyz fd, fs, ft: fd = ACC - fs.yzx * ft.zxy, completing the cross product.
pub fn vopmsub(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    let (s, t, acc) = (cpu.vu0.vf[fs(w)], cpu.vu0.vf[ft(w)], cpu.vu0.acc);
    let results: [Option<FloatResult>; 4] = std::array::from_fn(|i| {
        (i < 3 && lane_on(w, i)).then(|| float::msub(acc[i], s[(i + 1) % 3], t[(i + 2) % 3]))
    });
    let values: [u32; 4] = std::array::from_fn(|i| results[i].map_or(0, |r| r.bits));
    write_vf(cpu, fd(w), w & !(1 << 21), values);
    set_mac(cpu, &results);
    Ok(())
}

/// A lane-wise operation with no flags, writing `dst`.
fn lanes(cpu: &mut Cpu, w: u32, dst: usize, f: impl Fn(usize, u32) -> u32) -> R {
    usable(cpu)?;
    let s = cpu.vu0.vf[fs(w)];
    let v = std::array::from_fn(|i| f(i, s[i]));
    write_vf(cpu, dst, w, v);
    Ok(())
}

/// VMAX.dest fd, fs, ft (integer compare of the raw bits, no flags).
pub fn vmax(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let t = cpu.vu0.vf[ft(w)];
    lanes(cpu, w, fd(w), |i, s| float::max(s, t[i]))
}

/// VMAXbc.dest fd, fs, ft.bc.
pub fn vmaxbc(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let t = cpu.vu0.vf[ft(w)][bc(w)];
    lanes(cpu, w, fd(w), |_, s| float::max(s, t))
}

/// VMAXi.dest fd, fs, I.
pub fn vmaxi(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let t = cpu.vu0.vi[ctrl::I];
    lanes(cpu, w, fd(w), |_, s| float::max(s, t))
}

/// VMINI.dest fd, fs, ft.
pub fn vmini(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let t = cpu.vu0.vf[ft(w)];
    lanes(cpu, w, fd(w), |i, s| float::min(s, t[i]))
}

/// VMINIbc.dest fd, fs, ft.bc.
pub fn vminibc(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let t = cpu.vu0.vf[ft(w)][bc(w)];
    lanes(cpu, w, fd(w), |_, s| float::min(s, t))
}

/// VMINIi.dest fd, fs, I.
pub fn vminii(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let t = cpu.vu0.vi[ctrl::I];
    lanes(cpu, w, fd(w), |_, s| float::min(s, t))
}

/// VABS.dest ft, fs.
pub fn vabs(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    lanes(cpu, w, ft(w), |_, s| float::abs(s))
}

/// VFTOI0/4/12/15.dest ft, fs: to fixed point with `frac` fraction bits (the low two funct bits
/// select 0, 4, 12, 15).
pub fn vftoi(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let frac = [0, 4, 12, 15][(w & 3) as usize];
    lanes(cpu, w, ft(w), |_, s| float::to_int(s, frac))
}

/// VITOF0/4/12/15.dest ft, fs: from fixed point.
pub fn vitof(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let frac = [0, 4, 12, 15][(w & 3) as usize];
    lanes(cpu, w, ft(w), |_, s| float::from_int(s, frac))
}

/// VMOVE.dest ft, fs.
pub fn vmove(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    lanes(cpu, w, ft(w), |_, s| s)
}

/// VMR32.dest ft, fs: rotate the lanes, ft.x = fs.y, ft.y = fs.z, ft.z = fs.w, ft.w = fs.x.
pub fn vmr32(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let s = cpu.vu0.vf[fs(w)];
    lanes(cpu, w, ft(w), |i, _| s[(i + 1) % 4])
}

/// Whether `x`'s magnitude exceeds `limit`'s, with denormals as zero (VCLIP's comparison).
fn clip_exceeds(x: u32, limit: u32) -> bool {
    let mag = |v: u32| if float::is_zero(v) { 0 } else { v & float::MAX };
    mag(x) > mag(limit)
}

/// VCLIPw.xyz fs, ft: judge fs.xyz against +-|ft.w|: bits +x 0, -x 1, +y 2, -y 3, +z 4, -z 5.
pub fn vclip(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    let s = cpu.vu0.vf[fs(w)];
    let limit = cpu.vu0.vf[ft(w)][3];
    let mut judge = 0;
    for (lane, &x) in s.iter().take(3).enumerate() {
        if clip_exceeds(x, limit) {
            let negative = x & float::SIGN != 0;
            judge |= 1 << (2 * lane + negative as usize);
        }
    }
    let c = &mut cpu.vu0.vi[ctrl::CLIP];
    *c = ((*c << 6) | judge) & 0x00ff_ffff;
    Ok(())
}

/// VNOP and VWAITQ: nothing (the macro-mode divide is complete when issued).
pub fn vnop(cpu: &mut Cpu, _: &mut dyn Bus, _: u32) -> R {
    usable(cpu)
}

/// VDIV Q, fs.fsf, ft.ftf.
pub fn vdiv(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    let r = float::div(cpu.vu0.vf[fs(w)][fsf(w)], cpu.vu0.vf[ft(w)][ftf(w)]);
    cpu.vu0.vi[ctrl::Q] = r.bits;
    set_div_flags(cpu, r.flags);
    Ok(())
}

/// VSQRT Q, ft.ftf.
pub fn vsqrt(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    let r = float::sqrt(cpu.vu0.vf[ft(w)][ftf(w)]);
    cpu.vu0.vi[ctrl::Q] = r.bits;
    set_div_flags(cpu, r.flags);
    Ok(())
}

/// VRSQRT Q, fs.fsf, ft.ftf.
pub fn vrsqrt(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    let r = float::rsqrt(cpu.vu0.vf[fs(w)][fsf(w)], cpu.vu0.vf[ft(w)][ftf(w)]);
    cpu.vu0.vi[ctrl::Q] = r.bits;
    set_div_flags(cpu, r.flags);
    Ok(())
}

/// The register fields of the integer ops: id bits 6-10, is 11-15, it 16-20.
#[inline]
fn id_is_it(w: u32) -> (usize, usize, usize) {
    (fd(w), fs(w), ft(w))
}

/// VIADD id, is, it (16-bit).
pub fn viadd(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    let (d, s, t) = id_is_it(w);
    write_vi(cpu, d, vi(cpu, s).wrapping_add(vi(cpu, t)));
    Ok(())
}

/// VISUB id, is, it.
pub fn visub(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    let (d, s, t) = id_is_it(w);
    write_vi(cpu, d, vi(cpu, s).wrapping_sub(vi(cpu, t)));
    Ok(())
}

/// VIAND id, is, it.
pub fn viand(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    let (d, s, t) = id_is_it(w);
    write_vi(cpu, d, vi(cpu, s) & vi(cpu, t));
    Ok(())
}

/// VIOR id, is, it.
pub fn vior(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    let (d, s, t) = id_is_it(w);
    write_vi(cpu, d, vi(cpu, s) | vi(cpu, t));
    Ok(())
}

/// The signed 5-bit immediate of VIADDI (bits 6-10).
pub(crate) fn imm5(w: u32) -> i32 {
    (((w >> 6) & 0x1f) as i32) << 27 >> 27
}

/// VIADDI it, is, imm5.
pub fn viaddi(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    let v = vi(cpu, fs(w)).wrapping_add(imm5(w) as u32);
    write_vi(cpu, ft(w), v);
    Ok(())
}

/// The EE address of VU0 data memory quadword `index` (wrapping at 4 KiB).
#[inline]
fn vu_addr(index: u32) -> u32 {
    VU0_DATA + ((index * 16) & 0xfff)
}

fn vu_load(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32, index: u32) -> R {
    let v = bus.read128(vu_addr(index)).map_err(bus_data)?;
    write_vf(cpu, ft(w), w, u128_to_vf(v));
    Ok(())
}

fn vu_store(cpu: &Cpu, bus: &mut dyn Bus, w: u32, index: u32) -> R {
    let addr = vu_addr(index);
    let v = cpu.vu0.vf[fs(w)];
    for (lane, &value) in v.iter().enumerate() {
        if lane_on(w, lane) {
            bus.write32(addr + 4 * lane as u32, value)
                .map_err(bus_data)?;
        }
    }
    Ok(())
}

/// VLQI.dest ft, (is++).
pub fn vlqi(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    let is = fs(w);
    vu_load(cpu, bus, w, vi(cpu, is))?;
    write_vi(cpu, is, vi(cpu, is).wrapping_add(1));
    Ok(())
}

/// VSQI.dest fs, (it++).
pub fn vsqi(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    let it = ft(w);
    vu_store(cpu, bus, w, vi(cpu, it))?;
    write_vi(cpu, it, vi(cpu, it).wrapping_add(1));
    Ok(())
}

/// VLQD.dest ft, (--is).
pub fn vlqd(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    let is = fs(w);
    let index = vi(cpu, is).wrapping_sub(1) & 0xffff;
    vu_load(cpu, bus, w, index)?;
    write_vi(cpu, is, index);
    Ok(())
}

/// VSQD.dest fs, (--it).
pub fn vsqd(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    let it = ft(w);
    let index = vi(cpu, it).wrapping_sub(1) & 0xffff;
    vu_store(cpu, bus, w, index)?;
    write_vi(cpu, it, index);
    Ok(())
}

/// The first lane of the dest mask (VILWR takes one).
fn first_lane(w: u32) -> usize {
    (0..4).find(|&i| lane_on(w, i)).unwrap_or(0)
}

/// VILWR.dest it, (is): the low 16 bits of one lane's word.
pub fn vilwr(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    let addr = vu_addr(vi(cpu, fs(w))) + 4 * first_lane(w) as u32;
    let v = bus.read32(addr).map_err(bus_data)?;
    write_vi(cpu, ft(w), v);
    Ok(())
}

/// VISWR.dest it, (is): it, zero-extended, into each dest lane's word.
pub fn viswr(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    let addr = vu_addr(vi(cpu, fs(w)));
    let v = vi(cpu, ft(w));
    for lane in 0..4 {
        if lane_on(w, lane) {
            bus.write32(addr + 4 * lane as u32, v).map_err(bus_data)?;
        }
    }
    Ok(())
}

/// VMFIR.dest ft, is: is sign-extended to 32 bits in each dest lane.
pub fn vmfir(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    let v = vi(cpu, fs(w)) as u16 as i16 as i32 as u32;
    write_vf(cpu, ft(w), w, [v; 4]);
    Ok(())
}

/// VMTIR it, fs.fsf: the low 16 bits.
pub fn vmtir(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    let v = cpu.vu0.vf[fs(w)][fsf(w)];
    write_vi(cpu, ft(w), v);
    Ok(())
}

/// R as a float in [1, 2): the 23 bits under exponent 127.
fn r_value(cpu: &Cpu) -> u32 {
    float::ONE | (cpu.vu0.vi[ctrl::R] & 0x007f_ffff)
}

/// One step of R's generator: a 23-bit shift left feeding in bit 4 xor bit 22.
pub(crate) fn r_next(r: u32) -> u32 {
    let feedback = ((r >> 4) ^ (r >> 22)) & 1;
    ((r << 1) | feedback) & 0x007f_ffff
}

/// VRNEXT.dest ft, R: advance R, then write it as a float in [1, 2).
pub fn vrnext(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    cpu.vu0.vi[ctrl::R] = r_next(cpu.vu0.vi[ctrl::R]);
    let v = r_value(cpu);
    write_vf(cpu, ft(w), w, [v; 4]);
    Ok(())
}

/// VRGET.dest ft, R.
pub fn vrget(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    let v = r_value(cpu);
    write_vf(cpu, ft(w), w, [v; 4]);
    Ok(())
}

/// VRINIT R, fs.fsf: R = the lane's low 23 bits.
pub fn vrinit(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    cpu.vu0.vi[ctrl::R] = cpu.vu0.vf[fs(w)][fsf(w)] & 0x007f_ffff;
    Ok(())
}

/// VRXOR R, fs.fsf: R ^= the lane's low 23 bits.
pub fn vrxor(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    cpu.vu0.vi[ctrl::R] ^= cpu.vu0.vf[fs(w)][fsf(w)] & 0x007f_ffff;
    Ok(())
}

/// VCALLMS imm15: ask the machine to run the VU0 micro program at imm15 * 8.
pub fn vcallms(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    cpu.vu0.pending_call = Some(((w >> 6) & 0x7fff) * 8);
    Ok(())
}

/// VCALLMSR: run the micro program at CMSAR0 * 8.
pub fn vcallmsr(cpu: &mut Cpu, _: &mut dyn Bus, _: u32) -> R {
    usable(cpu)?;
    cpu.vu0.pending_call = Some((cpu.vu0.vi[ctrl::CMSAR0] & 0xffff) * 8);
    Ok(())
}

/// The COP2 interlock of the moves with the I bit (bit 0 of QMFC2.I, QMTC2.I, CFC2.I, CTC2.I):
/// the EE waits until VU0's microprogram has ended before it moves anything (EE Core
/// Instruction Set Manual; PCSX2 waits for VU0 there too). The machine runs a microprogram to
/// its end when it starts it and sets `vu0.busy_until` to the cycle it ends at, so the wait is
/// the cycle count moving there; the values moved are then the finished program's. The .NI
/// forms do not wait. (An M bit that releases the interlock early is not modelled: the wait
/// lasts to the end.)
#[inline]
fn interlock(cpu: &mut Cpu, w: u32) {
    if w & 1 != 0 && cpu.vu0.busy_until > cpu.cycles {
        cpu.cycles = cpu.vu0.busy_until;
        // VU0 has ended: VPU-STAT bit 0 reads clear from now on (the machine's end-of-VU0
        // event, due at this same cycle, finds it so).
        cpu.vu0.vi[ctrl::VPU_STAT] &= !1;
    }
}

/// QMFC2.I/.NI rt, fd: the whole VF register into the 128-bit GPR (.I: after the interlock).
pub fn qmfc2(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    interlock(cpu, w);
    cpu.set128(rt(w), vf_to_u128(cpu.vu0.vf[fs(w)]));
    Ok(())
}

/// QMTC2.I/.NI rt, fd (.I: after the interlock).
pub fn qmtc2(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    interlock(cpu, w);
    let r = fs(w);
    if r != 0 {
        cpu.vu0.vf[r] = u128_to_vf(cpu.gpr[rt(w)]);
    }
    Ok(())
}

/// The value CFC2 reads from VI register or control register `n`.
pub fn read_ctrl(cpu: &Cpu, n: usize) -> u32 {
    match n {
        0..=15 => vi(cpu, n),
        ctrl::STATUS => cpu.vu0.vi[n] & 0xfff,
        ctrl::MAC => cpu.vu0.vi[n] & 0xffff,
        ctrl::CLIP => cpu.vu0.vi[n] & 0x00ff_ffff,
        // Reserved register 19 reads the VU revision, 0x2e30 (ps2autotests vu0_macro/transfer).
        19 => 0x2e30,
        ctrl::R => cpu.vu0.vi[n] & 0x007f_ffff,
        ctrl::I | ctrl::Q => cpu.vu0.vi[n],
        // Register 24 keeps FBRST's DE/TE bits (0x0c0c); FBRST itself reads zero.
        24 => cpu.vu0.vi[n] & 0x0c0c,
        ctrl::TPC | ctrl::CMSAR0 | ctrl::CMSAR1 => cpu.vu0.vi[n] & 0xffff,
        ctrl::VPU_STAT => cpu.vu0.vi[n],
        _ => 0,
    }
}

/// What CTC2 does to VI register or control register `n`.
pub fn write_ctrl(cpu: &mut Cpu, n: usize, v: u32) {
    match n {
        1..=15 => write_vi(cpu, n, v),
        // Only the sticky bits (6-11) are writable.
        ctrl::STATUS => {
            let s = &mut cpu.vu0.vi[n];
            *s = (*s & 0x3f) | (v & 0xfc0);
        }
        ctrl::CLIP => cpu.vu0.vi[n] = v & 0x00ff_ffff,
        ctrl::R => cpu.vu0.vi[n] = v & 0x007f_ffff,
        ctrl::I | ctrl::Q => cpu.vu0.vi[n] = v,
        24 => cpu.vu0.vi[n] = v & 0x0c0c,
        ctrl::CMSAR0 => cpu.vu0.vi[n] = v & 0xffff,
        // Writing CMSAR1 starts VU1 at that address (in 64-bit instructions): the machine owns
        // VU1 and services the request after this instruction.
        ctrl::CMSAR1 => {
            cpu.vu0.vi[n] = v & 0xffff;
            cpu.vu0.pending_vu1_start = Some(v & 0xffff);
        }
        // FBRST bit 1 (RS0) resets VU0: its flags and its running state (VPU-STAT bits 0-7).
        // Bit 9 (RS1) resets VU1: VPU-STAT bits 8-15. The machine, which owns VU1 and the
        // VIFs, ends what waited on the VU (VIF0/VIF1's STAT.VEW, as PCSX2's reset does).
        // FBRST itself reads zero.
        ctrl::FBRST => {
            if v & 2 != 0 {
                for r in [ctrl::STATUS, ctrl::MAC, ctrl::CLIP] {
                    cpu.vu0.vi[r] = 0;
                }
                cpu.vu0.vi[ctrl::VPU_STAT] &= !0xff;
                cpu.vu0.pending_call = None;
                cpu.vu0.busy_until = 0;
            }
            if v & 0x200 != 0 {
                cpu.vu0.vi[ctrl::VPU_STAT] &= !0xff00;
            }
            cpu.vu0.pending_reset |= v & 0x202;
        }
        // VI0, MAC, TPC, VPU-STAT and the reserved registers ignore writes.
        _ => {}
    }
}

/// CFC2.I/.NI rt, id: sign-extended into the low 64 bits (.I: after the interlock).
pub fn cfc2(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    interlock(cpu, w);
    cpu.set32(rt(w), read_ctrl(cpu, fs(w)));
    Ok(())
}

/// CTC2.I/.NI rt, id (.I: after the interlock).
pub fn ctc2(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    interlock(cpu, w);
    let v = cpu.r32(rt(w));
    write_ctrl(cpu, fs(w), v);
    Ok(())
}

/// The effective address of LQC2/SQC2: base + offset with the low four bits ignored.
fn quad_address(cpu: &Cpu, w: u32) -> u32 {
    effective_address(cpu, w) & !15
}

/// LQC2 ft, offset(base).
pub fn lqc2(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    let v = bus.read128(quad_address(cpu, w)).map_err(bus_data)?;
    let r = ft(w);
    if r != 0 {
        cpu.vu0.vf[r] = u128_to_vf(v);
    }
    Ok(())
}

/// SQC2 ft, offset(base).
pub fn sqc2(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    let v = vf_to_u128(cpu.vu0.vf[ft(w)]);
    bus.write128(quad_address(cpu, w), v).map_err(bus_data)
}

/// The COP2 condition line: VPU-STAT bit 8, VU1 running.
fn cond(cpu: &Cpu) -> bool {
    cpu.vu0.vi[ctrl::VPU_STAT] & 0x100 != 0
}

/// BC2F: branch if the COP2 condition is false.
pub fn bc2f(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    let target = branch_target(cpu, w);
    branch(cpu, !cond(cpu), target);
    Ok(())
}

/// BC2T: branch if the COP2 condition is true.
pub fn bc2t(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    let target = branch_target(cpu, w);
    branch(cpu, cond(cpu), target);
    Ok(())
}

/// BC2FL: branch-likely on a false condition.
pub fn bc2fl(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    let target = branch_target(cpu, w);
    branch_likely(cpu, !cond(cpu), target);
    Ok(())
}

/// BC2TL: branch-likely on a true condition.
pub fn bc2tl(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    let target = branch_target(cpu, w);
    branch_likely(cpu, cond(cpu), target);
    Ok(())
}
