//! Semantics of the COP1 family: the EE's single-precision FPU.
//!
//! Registers hold raw bits; all arithmetic goes through [`crate::float`]. FCR31 keeps only its
//! writable bits (condition 23, cause I 17 / D 16 / O 15 / U 14, sticky SI 6 / SD 5 / SO 4 /
//! SU 3); bits 24 and 0 always read as one.

use crate::bus::Bus;
use crate::cpu::{Cpu, cop0reg, status};
use crate::exception::{Exception, ExceptionKind};
use crate::float::{self, FloatFlags, FloatResult};
use crate::interp::{
    branch, branch_likely, branch_target, bus_data, check_load, check_store, effective_address,
};
use crate::table::fields::{fd, fs, ft, rt};

type R = Result<(), Exception>;

/// FCR31 bits.
pub mod fcr31 {
    /// The condition bit (C.cond.S sets it, BC1T/BC1F test it).
    pub const C: u32 = 1 << 23;
    /// Cause: invalid operation.
    pub const I: u32 = 1 << 17;
    /// Cause: division by zero.
    pub const D: u32 = 1 << 16;
    /// Cause: overflow.
    pub const O: u32 = 1 << 15;
    /// Cause: underflow.
    pub const U: u32 = 1 << 14;
    /// Sticky: invalid operation.
    pub const SI: u32 = 1 << 6;
    /// Sticky: division by zero.
    pub const SD: u32 = 1 << 5;
    /// Sticky: overflow.
    pub const SO: u32 = 1 << 4;
    /// Sticky: underflow.
    pub const SU: u32 = 1 << 3;
    /// The bits CTC1 can write; the rest read as zero, except [`ALWAYS_ONE`].
    pub const WRITABLE: u32 = 0x0083_c078;
    /// Bits 24 and 0 read as one (ps2autotests cpu/ee_fpu/fcr).
    pub const ALWAYS_ONE: u32 = 0x0100_0001;
}

/// COP1 usable? Status.CU1 clear raises Coprocessor Unusable with Cause.CE = 1.
#[inline]
pub(crate) fn usable(cpu: &mut Cpu) -> R {
    if cpu.cop0.regs[cop0reg::STATUS] & status::CU1 != 0 {
        Ok(())
    } else {
        let cause = &mut cpu.cop0.regs[cop0reg::CAUSE];
        *cause = (*cause & !(3 << 28)) | (1 << 28);
        Err(Exception::new(ExceptionKind::CopUnusable))
    }
}

/// Set the O/U cause bits from a result (clearing the old ones) and the sticky bits it raised.
fn set_ou(cpu: &mut Cpu, r: FloatResult) {
    let f = &mut cpu.fpu.fcr31;
    *f = (*f & !(fcr31::O | fcr31::U)) | ou_bits(r);
}

/// The FCR31 bits an arithmetic result sets: its O/U cause bits and the sticky bits it raised
/// (the instruction clears the old O and U first). The recompiler's native COP1 arithmetic
/// uses this too.
#[inline]
pub fn ou_bits(r: FloatResult) -> u32 {
    let mut f = 0;
    if r.flags.contains(FloatFlags::OVERFLOW) {
        f |= fcr31::O;
    }
    if r.flags.contains(FloatFlags::UNDERFLOW) {
        f |= fcr31::U;
    }
    if r.sticky.contains(FloatFlags::OVERFLOW) {
        f |= fcr31::SO;
    }
    if r.sticky.contains(FloatFlags::UNDERFLOW) {
        f |= fcr31::SU;
    }
    f
}

/// Set the I/D cause bits (clearing the old ones) and their sticky bits (DIV, SQRT, RSQRT).
fn set_id(cpu: &mut Cpu, flags: FloatFlags) {
    let f = &mut cpu.fpu.fcr31;
    *f &= !(fcr31::I | fcr31::D);
    if flags.contains(FloatFlags::INVALID) {
        *f |= fcr31::I | fcr31::SI;
    }
    if flags.contains(FloatFlags::DIV_ZERO) {
        *f |= fcr31::D | fcr31::SD;
    }
}

/// MFC1 rt, fs: the register's bits sign-extended into the low 64 bits of rt.
pub fn mfc1(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    cpu.set32(rt(w), cpu.fpu.fpr[fs(w)]);
    Ok(())
}

/// MTC1 rt, fs.
pub fn mtc1(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    cpu.fpu.fpr[fs(w)] = cpu.r32(rt(w));
    Ok(())
}

/// The value CFC1 reads from control register `n`: only bit 4 of the field is decoded, so 0-15
/// read FCR0 and 16-31 read FCR31.
pub fn read_fcr(cpu: &Cpu, n: usize) -> u32 {
    if n >= 16 {
        (cpu.fpu.fcr31 & fcr31::WRITABLE) | fcr31::ALWAYS_ONE
    } else {
        crate::cpu::Fpu::FCR0
    }
}

/// CFC1 rt, fcr.
pub fn cfc1(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    cpu.set32(rt(w), read_fcr(cpu, fs(w)));
    Ok(())
}

/// CTC1 rt, fcr: only FCR31 is writable (FCR0 and the rest ignore writes).
pub fn ctc1(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    if fs(w) == 31 {
        cpu.fpu.fcr31 = cpu.r32(rt(w)) & fcr31::WRITABLE;
    }
    Ok(())
}

/// LWC1 ft, offset(base).
pub fn lwc1(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    let addr = check_load(effective_address(cpu, w), 4)?;
    cpu.fpu.fpr[ft(w)] = bus.read32(addr).map_err(bus_data)?;
    Ok(())
}

/// SWC1 ft, offset(base).
pub fn swc1(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    let addr = check_store(effective_address(cpu, w), 4)?;
    bus.write32(addr, cpu.fpu.fpr[ft(w)]).map_err(bus_data)
}

fn condition(cpu: &Cpu) -> bool {
    cpu.fpu.fcr31 & fcr31::C != 0
}

/// BC1F: branch if the condition bit is clear.
pub fn bc1f(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    let target = branch_target(cpu, w);
    cop1_branch(cpu, !condition(cpu), target);
    Ok(())
}

/// A (non-likely) COP1 branch. Hardware quirk (ps2autotests cpu/ee_fpu/branchdelay): a BC1F/BC1T
/// in the delay slot of another branch cancels that branch's jump and behaves as a branch of its
/// own, so a chain of four BC1Ts ends at the fourth target (a chain of BEQs ends at the second,
/// and a chain of BC1TLs at the second too).
#[inline]
fn cop1_branch(cpu: &mut Cpu, taken: bool, target: u32) {
    if cpu.in_delay_slot {
        cpu.pc = cpu.cur_pc.wrapping_add(4);
        cpu.next_pc = cpu.pc.wrapping_add(4);
    }
    branch(cpu, taken, target);
}

/// BC1T: branch if the condition bit is set.
pub fn bc1t(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    let target = branch_target(cpu, w);
    cop1_branch(cpu, condition(cpu), target);
    Ok(())
}

/// BC1FL: branch-likely on a clear condition bit.
pub fn bc1fl(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    let target = branch_target(cpu, w);
    branch_likely(cpu, !condition(cpu), target);
    Ok(())
}

/// BC1TL: branch-likely on a set condition bit.
pub fn bc1tl(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    let target = branch_target(cpu, w);
    branch_likely(cpu, condition(cpu), target);
    Ok(())
}

/// A three-operand arithmetic op writing fd and the O/U flags.
#[inline]
fn arith(cpu: &mut Cpu, w: u32, op: fn(u32, u32) -> FloatResult) -> R {
    usable(cpu)?;
    let r = op(cpu.fpu.fpr[fs(w)], cpu.fpu.fpr[ft(w)]);
    cpu.fpu.fpr[fd(w)] = r.bits;
    set_ou(cpu, r);
    Ok(())
}

/// A two-operand arithmetic op writing ACC and the O/U flags.
#[inline]
fn arith_acc(cpu: &mut Cpu, w: u32, op: fn(u32, u32) -> FloatResult) -> R {
    usable(cpu)?;
    let r = op(cpu.fpu.fpr[fs(w)], cpu.fpu.fpr[ft(w)]);
    cpu.fpu.acc = r.bits;
    set_ou(cpu, r);
    Ok(())
}

/// A multiply-accumulate: `acc ± fs * ft` into fd or ACC.
#[inline]
fn mac(cpu: &mut Cpu, w: u32, op: fn(u32, u32, u32) -> FloatResult, to_acc: bool) -> R {
    usable(cpu)?;
    let r = op(cpu.fpu.acc, cpu.fpu.fpr[fs(w)], cpu.fpu.fpr[ft(w)]);
    if to_acc {
        cpu.fpu.acc = r.bits;
    } else {
        cpu.fpu.fpr[fd(w)] = r.bits;
    }
    set_ou(cpu, r);
    Ok(())
}

/// ADD.S fd, fs, ft.
pub fn add_s(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    arith(cpu, w, float::add)
}

/// SUB.S fd, fs, ft.
pub fn sub_s(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    arith(cpu, w, float::sub)
}

/// MUL.S fd, fs, ft.
pub fn mul_s(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    arith(cpu, w, float::mul)
}

/// DIV.S fd, fs, ft: sets D (x/0) or I (0/0); never O or U.
pub fn div_s(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    let r = float::div(cpu.fpu.fpr[fs(w)], cpu.fpu.fpr[ft(w)]);
    cpu.fpu.fpr[fd(w)] = r.bits;
    set_id(cpu, r.flags);
    Ok(())
}

/// SQRT.S fd, ft: the root of |ft|; I when ft's sign bit is set.
pub fn sqrt_s(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    let r = float::sqrt(cpu.fpu.fpr[ft(w)]);
    cpu.fpu.fpr[fd(w)] = r.bits;
    set_id(cpu, r.flags);
    Ok(())
}

/// RSQRT.S fd, fs, ft: fs / sqrt(|ft|).
pub fn rsqrt_s(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    let r = float::rsqrt(cpu.fpu.fpr[fs(w)], cpu.fpu.fpr[ft(w)]);
    cpu.fpu.fpr[fd(w)] = r.bits;
    set_id(cpu, r.flags);
    Ok(())
}

/// A bitwise unary op (ABS, NEG) or MAX/MIN: clears the O and U cause bits, as the EE manual
/// lists for these.
#[inline]
fn bitwise(cpu: &mut Cpu, w: u32, value: u32) -> R {
    cpu.fpu.fpr[fd(w)] = value;
    cpu.fpu.fcr31 &= !(fcr31::O | fcr31::U);
    Ok(())
}

/// ABS.S fd, fs.
pub fn abs_s(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    bitwise(cpu, w, float::abs(cpu.fpu.fpr[fs(w)]))
}

/// NEG.S fd, fs.
pub fn neg_s(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    bitwise(cpu, w, float::neg(cpu.fpu.fpr[fs(w)]))
}

/// MAX.S fd, fs, ft.
pub fn max_s(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    bitwise(cpu, w, float::max(cpu.fpu.fpr[fs(w)], cpu.fpu.fpr[ft(w)]))
}

/// MIN.S fd, fs, ft.
pub fn min_s(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    bitwise(cpu, w, float::min(cpu.fpu.fpr[fs(w)], cpu.fpu.fpr[ft(w)]))
}

/// MOV.S fd, fs: bits unchanged, flags untouched.
pub fn mov_s(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    cpu.fpu.fpr[fd(w)] = cpu.fpu.fpr[fs(w)];
    Ok(())
}

/// ADDA.S fs, ft.
pub fn adda_s(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    arith_acc(cpu, w, float::add)
}

/// SUBA.S fs, ft.
pub fn suba_s(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    arith_acc(cpu, w, float::sub)
}

/// MULA.S fs, ft.
pub fn mula_s(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    arith_acc(cpu, w, float::mul)
}

/// MADD.S fd, fs, ft: fd = ACC + fs * ft.
pub fn madd_s(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    mac(cpu, w, float::madd, false)
}

/// MSUB.S fd, fs, ft: fd = ACC - fs * ft.
pub fn msub_s(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    mac(cpu, w, float::msub, false)
}

/// MADDA.S fs, ft: ACC += fs * ft.
pub fn madda_s(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    mac(cpu, w, float::madd, true)
}

/// MSUBA.S fs, ft: ACC -= fs * ft.
pub fn msuba_s(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    mac(cpu, w, float::msub, true)
}

/// CVT.W.S fd, fs: truncate to an integer, saturating.
pub fn cvt_w_s(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    cpu.fpu.fpr[fd(w)] = float::to_int(cpu.fpu.fpr[fs(w)], 0);
    Ok(())
}

/// CVT.S.W fd, fs: integer to float, truncating.
pub fn cvt_s_w(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    usable(cpu)?;
    cpu.fpu.fpr[fd(w)] = float::from_int(cpu.fpu.fpr[fs(w)], 0);
    Ok(())
}

fn compare(cpu: &mut Cpu, w: u32, cond: fn(u32, u32) -> bool) -> R {
    usable(cpu)?;
    if cond(cpu.fpu.fpr[fs(w)], cpu.fpu.fpr[ft(w)]) {
        cpu.fpu.fcr31 |= fcr31::C;
    } else {
        cpu.fpu.fcr31 &= !fcr31::C;
    }
    Ok(())
}

/// C.F.S fs, ft: clears the condition bit.
pub fn c_f_s(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    compare(cpu, w, |_, _| false)
}

/// C.EQ.S fs, ft.
pub fn c_eq_s(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    compare(cpu, w, float::eq)
}

/// C.LT.S fs, ft.
pub fn c_lt_s(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    compare(cpu, w, float::lt)
}

/// C.LE.S fs, ft.
pub fn c_le_s(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    compare(cpu, w, float::le)
}
