//! Semantics of the integer family: the primary, SPECIAL and REGIMM instructions.
//!
//! Conventions (R5900): 32-bit results are sign-extended to 64 bits and leave bits 64-127 of the
//! GPR untouched ([`Cpu::set32`]); 64-bit results likewise ([`Cpu::set64`]); only LQ writes all
//! 128 bits. HI and LO are 128 bits wide: MULT/DIV use the low 64 bits (pipeline 0), the
//! `...1` forms in the MMI family the high 64 (pipeline 1).
//! Every function here checks for its exception before it changes any state, so a faulting
//! instruction has no effect.

use crate::bus::Bus;
use crate::cpu::Cpu;
use crate::exception::{Exception, ExceptionKind};
use crate::interp::{
    branch, branch_likely, branch_target, bus_data, check_load, check_store, effective_address,
};
use crate::table::fields::{rd, rs, rt, sa, simm, target, uimm};

type R = Result<(), Exception>;

#[inline]
fn sext32(v: u32) -> u64 {
    v as i32 as i64 as u64
}

#[inline]
fn overflow() -> Exception {
    Exception::new(ExceptionKind::Overflow)
}

#[inline]
fn trap(cond: bool) -> R {
    if cond {
        Err(Exception::new(ExceptionKind::Trap))
    } else {
        Ok(())
    }
}

/// Write the 64-bit half `pipe` (0: LO/HI, 1: LO1/HI1) of LO and HI.
#[inline]
pub(crate) fn set_lohi(cpu: &mut Cpu, pipe: u32, lo: u64, hi: u64) {
    let sh = 64 * pipe;
    let mask = (u64::MAX as u128) << sh;
    cpu.lo = (cpu.lo & !mask) | ((lo as u128) << sh);
    cpu.hi = (cpu.hi & !mask) | ((hi as u128) << sh);
}

/// The 64-bit accumulator `HI[31:0] : LO[31:0]` of pipeline `pipe`, as MADD reads it.
#[inline]
pub(crate) fn acc(cpu: &Cpu, pipe: u32) -> u64 {
    let sh = 64 * pipe;
    ((cpu.hi >> sh) as u32 as u64) << 32 | (cpu.lo >> sh) as u32 as u64
}

/// Signed 32 x 32 multiply into pipeline `pipe`: LO = low word, HI = high word, each
/// sign-extended; returns LO (the EE form of MULT also writes it to rd).
#[inline]
pub(crate) fn mult_into(cpu: &mut Cpu, pipe: u32, a: u32, b: u32, add: Option<u64>) -> u64 {
    let p = (a as i32 as i64).wrapping_mul(b as i32 as i64) as u64;
    let r = p.wrapping_add(add.unwrap_or(0));
    let lo = sext32(r as u32);
    set_lohi(cpu, pipe, lo, sext32((r >> 32) as u32));
    lo
}

/// Unsigned 32 x 32 multiply into pipeline `pipe` (LO and HI still sign-extended from 32 bits).
#[inline]
pub(crate) fn multu_into(cpu: &mut Cpu, pipe: u32, a: u32, b: u32, add: Option<u64>) -> u64 {
    let p = (a as u64) * (b as u64);
    let r = p.wrapping_add(add.unwrap_or(0));
    let lo = sext32(r as u32);
    set_lohi(cpu, pipe, lo, sext32((r >> 32) as u32));
    lo
}

/// Signed 32-bit division as the R5900 does it: (quotient, remainder). Division by zero gives
/// quotient 1 for a negative dividend and -1 otherwise, remainder the dividend;
/// 0x80000000 / -1 gives 0x80000000 remainder 0. No exception either way.
#[inline]
pub(crate) fn div32(n: i32, d: i32) -> (u32, u32) {
    if d == 0 {
        (if n < 0 { 1 } else { u32::MAX }, n as u32)
    } else if n == i32::MIN && d == -1 {
        (0x8000_0000, 0)
    } else {
        ((n / d) as u32, (n % d) as u32)
    }
}

/// Unsigned 32-bit division: by zero gives quotient 0xffffffff, remainder the dividend.
#[inline]
pub(crate) fn divu32(n: u32, d: u32) -> (u32, u32) {
    match (n.checked_div(d), n.checked_rem(d)) {
        (Some(q), Some(r)) => (q, r),
        _ => (u32::MAX, n),
    }
}

// ---------------------------------------------------------------- ALU, register forms

/// ADD: 32-bit add, Overflow exception on signed overflow.
pub fn add(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let v = (cpu.r32(rs(w)) as i32)
        .checked_add(cpu.r32(rt(w)) as i32)
        .ok_or_else(overflow)?;
    cpu.set32(rd(w), v as u32);
    Ok(())
}
/// ADDU.
pub fn addu(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set32(rd(w), cpu.r32(rs(w)).wrapping_add(cpu.r32(rt(w))));
    Ok(())
}
/// SUB: 32-bit subtract, Overflow exception on signed overflow.
pub fn sub(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let v = (cpu.r32(rs(w)) as i32)
        .checked_sub(cpu.r32(rt(w)) as i32)
        .ok_or_else(overflow)?;
    cpu.set32(rd(w), v as u32);
    Ok(())
}
/// SUBU.
pub fn subu(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set32(rd(w), cpu.r32(rs(w)).wrapping_sub(cpu.r32(rt(w))));
    Ok(())
}
/// DADD: 64-bit add with Overflow exception.
pub fn dadd(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let v = (cpu.r64(rs(w)) as i64)
        .checked_add(cpu.r64(rt(w)) as i64)
        .ok_or_else(overflow)?;
    cpu.set64(rd(w), v as u64);
    Ok(())
}
/// DADDU.
pub fn daddu(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set64(rd(w), cpu.r64(rs(w)).wrapping_add(cpu.r64(rt(w))));
    Ok(())
}
/// DSUB: 64-bit subtract with Overflow exception.
pub fn dsub(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let v = (cpu.r64(rs(w)) as i64)
        .checked_sub(cpu.r64(rt(w)) as i64)
        .ok_or_else(overflow)?;
    cpu.set64(rd(w), v as u64);
    Ok(())
}
/// DSUBU.
pub fn dsubu(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set64(rd(w), cpu.r64(rs(w)).wrapping_sub(cpu.r64(rt(w))));
    Ok(())
}
/// AND (64 bits).
pub fn and(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set64(rd(w), cpu.r64(rs(w)) & cpu.r64(rt(w)));
    Ok(())
}
/// OR (64 bits).
pub fn or(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set64(rd(w), cpu.r64(rs(w)) | cpu.r64(rt(w)));
    Ok(())
}
/// XOR (64 bits).
pub fn xor(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set64(rd(w), cpu.r64(rs(w)) ^ cpu.r64(rt(w)));
    Ok(())
}
/// NOR (64 bits).
pub fn nor(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set64(rd(w), !(cpu.r64(rs(w)) | cpu.r64(rt(w))));
    Ok(())
}
/// SLT: signed 64-bit compare.
pub fn slt(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set64(
        rd(w),
        ((cpu.r64(rs(w)) as i64) < (cpu.r64(rt(w)) as i64)) as u64,
    );
    Ok(())
}
/// SLTU: unsigned 64-bit compare.
pub fn sltu(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set64(rd(w), (cpu.r64(rs(w)) < cpu.r64(rt(w))) as u64);
    Ok(())
}
/// MOVZ: rd = rs (64 bits) when rt == 0.
pub fn movz(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    if cpu.r64(rt(w)) == 0 {
        cpu.set64(rd(w), cpu.r64(rs(w)));
    }
    Ok(())
}
/// MOVN: rd = rs (64 bits) when rt != 0.
pub fn movn(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    if cpu.r64(rt(w)) != 0 {
        cpu.set64(rd(w), cpu.r64(rs(w)));
    }
    Ok(())
}

// ---------------------------------------------------------------- ALU, immediate forms

/// ADDI: Overflow exception on signed overflow.
pub fn addi(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let v = (cpu.r32(rs(w)) as i32)
        .checked_add(simm(w))
        .ok_or_else(overflow)?;
    cpu.set32(rt(w), v as u32);
    Ok(())
}
/// ADDIU.
pub fn addiu(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set32(rt(w), cpu.r32(rs(w)).wrapping_add(simm(w) as u32));
    Ok(())
}
/// DADDI: 64-bit, Overflow exception.
pub fn daddi(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let v = (cpu.r64(rs(w)) as i64)
        .checked_add(simm(w) as i64)
        .ok_or_else(overflow)?;
    cpu.set64(rt(w), v as u64);
    Ok(())
}
/// DADDIU.
pub fn daddiu(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set64(rt(w), cpu.r64(rs(w)).wrapping_add(simm(w) as i64 as u64));
    Ok(())
}
/// SLTI: signed compare with the sign-extended immediate.
pub fn slti(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set64(rt(w), ((cpu.r64(rs(w)) as i64) < simm(w) as i64) as u64);
    Ok(())
}
/// SLTIU: unsigned compare with the *sign-extended* immediate.
pub fn sltiu(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set64(rt(w), (cpu.r64(rs(w)) < simm(w) as i64 as u64) as u64);
    Ok(())
}
/// ANDI: zero-extended immediate.
pub fn andi(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set64(rt(w), cpu.r64(rs(w)) & uimm(w) as u64);
    Ok(())
}
/// ORI: zero-extended immediate.
pub fn ori(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set64(rt(w), cpu.r64(rs(w)) | uimm(w) as u64);
    Ok(())
}
/// XORI: zero-extended immediate.
pub fn xori(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set64(rt(w), cpu.r64(rs(w)) ^ uimm(w) as u64);
    Ok(())
}
/// LUI: imm << 16, sign-extended.
pub fn lui(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set32(rt(w), uimm(w) << 16);
    Ok(())
}

// ---------------------------------------------------------------- shifts

/// SLL (the all-zero word is NOP).
pub fn sll(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set32(rd(w), cpu.r32(rt(w)) << sa(w));
    Ok(())
}
/// SRL.
pub fn srl(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set32(rd(w), cpu.r32(rt(w)) >> sa(w));
    Ok(())
}
/// SRA.
pub fn sra(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set32(rd(w), ((cpu.r32(rt(w)) as i32) >> sa(w)) as u32);
    Ok(())
}
/// SLLV: shift amount rs[4:0].
pub fn sllv(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set32(rd(w), cpu.r32(rt(w)) << (cpu.r32(rs(w)) & 31));
    Ok(())
}
/// SRLV.
pub fn srlv(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set32(rd(w), cpu.r32(rt(w)) >> (cpu.r32(rs(w)) & 31));
    Ok(())
}
/// SRAV.
pub fn srav(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set32(
        rd(w),
        ((cpu.r32(rt(w)) as i32) >> (cpu.r32(rs(w)) & 31)) as u32,
    );
    Ok(())
}
/// DSLL.
pub fn dsll(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set64(rd(w), cpu.r64(rt(w)) << sa(w));
    Ok(())
}
/// DSRL.
pub fn dsrl(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set64(rd(w), cpu.r64(rt(w)) >> sa(w));
    Ok(())
}
/// DSRA.
pub fn dsra(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set64(rd(w), ((cpu.r64(rt(w)) as i64) >> sa(w)) as u64);
    Ok(())
}
/// DSLL32: shift by sa + 32.
pub fn dsll32(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set64(rd(w), cpu.r64(rt(w)) << (sa(w) + 32));
    Ok(())
}
/// DSRL32.
pub fn dsrl32(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set64(rd(w), cpu.r64(rt(w)) >> (sa(w) + 32));
    Ok(())
}
/// DSRA32.
pub fn dsra32(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set64(rd(w), ((cpu.r64(rt(w)) as i64) >> (sa(w) + 32)) as u64);
    Ok(())
}
/// DSLLV: shift amount rs[5:0].
pub fn dsllv(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set64(rd(w), cpu.r64(rt(w)) << (cpu.r32(rs(w)) & 63));
    Ok(())
}
/// DSRLV.
pub fn dsrlv(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set64(rd(w), cpu.r64(rt(w)) >> (cpu.r32(rs(w)) & 63));
    Ok(())
}
/// DSRAV.
pub fn dsrav(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set64(
        rd(w),
        ((cpu.r64(rt(w)) as i64) >> (cpu.r32(rs(w)) & 63)) as u64,
    );
    Ok(())
}

// ---------------------------------------------------------------- multiply, divide, HI/LO

/// MULT: signed; LO/HI (pipeline 0) get the sign-extended halves; the EE also writes LO to rd.
pub fn mult(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let lo = mult_into(cpu, 0, cpu.r32(rs(w)), cpu.r32(rt(w)), None);
    cpu.set64(rd(w), lo);
    Ok(())
}
/// MULTU: unsigned; halves still sign-extended; LO also to rd.
pub fn multu(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let lo = multu_into(cpu, 0, cpu.r32(rs(w)), cpu.r32(rt(w)), None);
    cpu.set64(rd(w), lo);
    Ok(())
}
/// DIV: LO = quotient, HI = remainder (see [`div32`] for the by-zero and overflow results).
pub fn div(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let (q, r) = div32(cpu.r32(rs(w)) as i32, cpu.r32(rt(w)) as i32);
    set_lohi(cpu, 0, sext32(q), sext32(r));
    Ok(())
}
/// DIVU (see [`divu32`]); results sign-extended from 32 bits.
pub fn divu(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let (q, r) = divu32(cpu.r32(rs(w)), cpu.r32(rt(w)));
    set_lohi(cpu, 0, sext32(q), sext32(r));
    Ok(())
}
/// MFHI: rd = HI (64 bits).
pub fn mfhi(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set64(rd(w), cpu.hi as u64);
    Ok(())
}
/// MFLO.
pub fn mflo(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set64(rd(w), cpu.lo as u64);
    Ok(())
}
/// MTHI: HI (low 64 bits) = rs.
pub fn mthi(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let v = cpu.r64(rs(w));
    cpu.hi = (cpu.hi & !(u64::MAX as u128)) | v as u128;
    Ok(())
}
/// MTLO.
pub fn mtlo(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let v = cpu.r64(rs(w));
    cpu.lo = (cpu.lo & !(u64::MAX as u128)) | v as u128;
    Ok(())
}

// ---------------------------------------------------------------- SA register

/// MFSA: rd = SA as a byte count (0..15). `cpu.sa` holds it in bits.
pub fn mfsa(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set64(rd(w), (cpu.sa / 8) as u64);
    Ok(())
}
/// MTSA: SA = rs, a byte count; only its low 4 bits are kept (ps2autotests funnel: 0xffff -> 15).
pub fn mtsa(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.sa = (cpu.r32(rs(w)) & 15) * 8;
    Ok(())
}
/// MTSAB: SA = ((rs ^ imm) & 15) bytes.
pub fn mtsab(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.sa = ((cpu.r32(rs(w)) ^ uimm(w)) & 15) * 8;
    Ok(())
}
/// MTSAH: SA = ((rs ^ imm) & 7) halfwords.
pub fn mtsah(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.sa = ((cpu.r32(rs(w)) ^ uimm(w)) & 7) * 16;
    Ok(())
}

// ---------------------------------------------------------------- loads

/// LB.
pub fn lb(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32) -> R {
    let a = effective_address(cpu, w);
    let v = bus.read8(a).map_err(bus_data)?;
    cpu.set64(rt(w), v as i8 as i64 as u64);
    Ok(())
}
/// LBU.
pub fn lbu(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32) -> R {
    let a = effective_address(cpu, w);
    let v = bus.read8(a).map_err(bus_data)?;
    cpu.set64(rt(w), v as u64);
    Ok(())
}
/// LH: address error unless 2-aligned.
pub fn lh(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32) -> R {
    let a = check_load(effective_address(cpu, w), 2)?;
    let v = bus.read16(a).map_err(bus_data)?;
    cpu.set64(rt(w), v as i16 as i64 as u64);
    Ok(())
}
/// LHU.
pub fn lhu(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32) -> R {
    let a = check_load(effective_address(cpu, w), 2)?;
    let v = bus.read16(a).map_err(bus_data)?;
    cpu.set64(rt(w), v as u64);
    Ok(())
}
/// LW: sign-extended.
pub fn lw(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32) -> R {
    let a = check_load(effective_address(cpu, w), 4)?;
    let v = bus.read32(a).map_err(bus_data)?;
    cpu.set32(rt(w), v);
    Ok(())
}
/// LWU: zero-extended.
pub fn lwu(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32) -> R {
    let a = check_load(effective_address(cpu, w), 4)?;
    let v = bus.read32(a).map_err(bus_data)?;
    cpu.set64(rt(w), v as u64);
    Ok(())
}
/// LD.
pub fn ld(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32) -> R {
    let a = check_load(effective_address(cpu, w), 8)?;
    let v = bus.read64(a).map_err(bus_data)?;
    cpu.set64(rt(w), v);
    Ok(())
}
/// LQ: the low 4 address bits are ignored (no address error); writes all 128 bits.
pub fn lq(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32) -> R {
    let a = effective_address(cpu, w) & !15;
    let v = bus.read128(a).map_err(bus_data)?;
    cpu.set128(rt(w), v);
    Ok(())
}
/// LWL (little-endian): merge the bytes from the aligned word's start up to the addressed byte
/// into the *top* of rt; the 32-bit result is always sign-extended.
pub fn lwl(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32) -> R {
    let a = effective_address(cpu, w);
    let sh = (a & 3) * 8;
    let mem = bus.read32(a & !3).map_err(bus_data)?;
    let v = (cpu.r32(rt(w)) & (0x00ff_ffff >> sh)) | (mem << (24 - sh));
    cpu.set32(rt(w), v);
    Ok(())
}
/// LWR: merge the bytes from the addressed byte to the aligned word's end into the *bottom* of
/// rt. With the address aligned the whole word is loaded and sign-extended; otherwise only
/// bits 0-31 change and bits 32-63 are kept (as the R5900 and PCSX2 do).
pub fn lwr(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32) -> R {
    let a = effective_address(cpu, w);
    let sh = (a & 3) * 8;
    let mem = bus.read32(a & !3).map_err(bus_data)?;
    let r = rt(w);
    if sh == 0 {
        cpu.set32(r, mem);
    } else {
        let v = (cpu.r32(r) & (0xffff_ff00u32 << (24 - sh))) | (mem >> sh);
        cpu.set64(r, (cpu.r64(r) & !0xffff_ffff) | v as u64);
    }
    Ok(())
}
/// LDL: the 64-bit analogue of LWL.
pub fn ldl(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32) -> R {
    let a = effective_address(cpu, w);
    let sh = (a & 7) * 8;
    let mem = bus.read64(a & !7).map_err(bus_data)?;
    let v = (cpu.r64(rt(w)) & (0x00ff_ffff_ffff_ffff >> sh)) | (mem << (56 - sh));
    cpu.set64(rt(w), v);
    Ok(())
}
/// LDR: the 64-bit analogue of LWR.
pub fn ldr(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32) -> R {
    let a = effective_address(cpu, w);
    let sh = (a & 7) * 8;
    let mem = bus.read64(a & !7).map_err(bus_data)?;
    let keep = if sh == 0 {
        0
    } else {
        0xffff_ffff_ffff_ff00u64 << (56 - sh)
    };
    let v = (cpu.r64(rt(w)) & keep) | (mem >> sh);
    cpu.set64(rt(w), v);
    Ok(())
}

// ---------------------------------------------------------------- stores

/// SB.
pub fn sb(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32) -> R {
    let a = effective_address(cpu, w);
    bus.write8(a, cpu.r32(rt(w)) as u8).map_err(bus_data)
}
/// SH.
pub fn sh(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32) -> R {
    let a = check_store(effective_address(cpu, w), 2)?;
    bus.write16(a, cpu.r32(rt(w)) as u16).map_err(bus_data)
}
/// SW.
pub fn sw(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32) -> R {
    let a = check_store(effective_address(cpu, w), 4)?;
    bus.write32(a, cpu.r32(rt(w))).map_err(bus_data)
}
/// SD.
pub fn sd(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32) -> R {
    let a = check_store(effective_address(cpu, w), 8)?;
    bus.write64(a, cpu.r64(rt(w))).map_err(bus_data)
}
/// SQ: the low 4 address bits are ignored; stores all 128 bits.
pub fn sq(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32) -> R {
    let a = effective_address(cpu, w) & !15;
    bus.write128(a, cpu.gpr[rt(w)]).map_err(bus_data)
}
/// SWL: store the top bytes of rt into the aligned word's start up to the addressed byte.
pub fn swl(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32) -> R {
    let a = effective_address(cpu, w);
    let sh = (a & 3) * 8;
    let aligned = a & !3;
    let mem = bus.read32(aligned).map_err(bus_data)?;
    let keep = if sh == 24 { 0 } else { 0xffff_ff00u32 << sh };
    let v = (mem & keep) | (cpu.r32(rt(w)) >> (24 - sh));
    bus.write32(aligned, v).map_err(bus_data)
}
/// SWR: store the bottom bytes of rt from the addressed byte to the aligned word's end.
pub fn swr(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32) -> R {
    let a = effective_address(cpu, w);
    let sh = (a & 3) * 8;
    let aligned = a & !3;
    let mem = bus.read32(aligned).map_err(bus_data)?;
    let keep = ((1u64 << sh) - 1) as u32;
    let v = (mem & keep) | (cpu.r32(rt(w)) << sh);
    bus.write32(aligned, v).map_err(bus_data)
}
/// SDL: the 64-bit analogue of SWL.
pub fn sdl(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32) -> R {
    let a = effective_address(cpu, w);
    let sh = (a & 7) * 8;
    let aligned = a & !7;
    let mem = bus.read64(aligned).map_err(bus_data)?;
    let keep = if sh == 56 {
        0
    } else {
        0xffff_ffff_ffff_ff00u64 << sh
    };
    let v = (mem & keep) | (cpu.r64(rt(w)) >> (56 - sh));
    bus.write64(aligned, v).map_err(bus_data)
}
/// SDR: the 64-bit analogue of SWR.
pub fn sdr(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32) -> R {
    let a = effective_address(cpu, w);
    let sh = (a & 7) * 8;
    let aligned = a & !7;
    let mem = bus.read64(aligned).map_err(bus_data)?;
    let keep = ((1u128 << sh) - 1) as u64;
    let v = (mem & keep) | (cpu.r64(rt(w)) << sh);
    bus.write64(aligned, v).map_err(bus_data)
}

/// PREF, CACHE and SYNC: no architectural effect in this model (no caches are modelled).
pub fn nop(_: &mut Cpu, _: &mut dyn Bus, _: u32) -> R {
    Ok(())
}

// ---------------------------------------------------------------- branches and jumps

/// The return address of a linking branch: the instruction after the delay slot.
#[inline]
fn link_addr(cpu: &Cpu) -> u32 {
    cpu.cur_pc.wrapping_add(8)
}

macro_rules! branches {
    ($( $name:ident, $likely:ident, $doc:literal, |$c:ident, $w:ident| $cond:expr; )*) => {$(
        #[doc = $doc]
        pub fn $name(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
            let taken = { let $c = &*cpu; let $w = w; $cond };
            let t = branch_target(cpu, w);
            branch(cpu, taken, t);
            Ok(())
        }
        #[doc = concat!($doc, " Likely: the delay slot is skipped when not taken.")]
        pub fn $likely(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
            let taken = { let $c = &*cpu; let $w = w; $cond };
            let t = branch_target(cpu, w);
            branch_likely(cpu, taken, t);
            Ok(())
        }
    )*};
}

branches! {
    beq, beql, "BEQ: taken when rs == rt (64 bits).", |c, w| c.r64(rs(w)) == c.r64(rt(w));
    bne, bnel, "BNE: taken when rs != rt.", |c, w| c.r64(rs(w)) != c.r64(rt(w));
    blez, blezl, "BLEZ: taken when rs <= 0 (signed 64 bits).", |c, w| (c.r64(rs(w)) as i64) <= 0;
    bgtz, bgtzl, "BGTZ: taken when rs > 0.", |c, w| (c.r64(rs(w)) as i64) > 0;
    bltz, bltzl, "BLTZ: taken when rs < 0.", |c, w| (c.r64(rs(w)) as i64) < 0;
    bgez, bgezl, "BGEZ: taken when rs >= 0.", |c, w| (c.r64(rs(w)) as i64) >= 0;
}

/// BLTZAL: as BLTZ, and ra = the address after the delay slot (written whether taken or not).
pub fn bltzal(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let taken = (cpu.r64(rs(w)) as i64) < 0;
    cpu.set32(31, link_addr(cpu));
    branch(cpu, taken, branch_target(cpu, w));
    Ok(())
}
/// BGEZAL.
pub fn bgezal(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let taken = (cpu.r64(rs(w)) as i64) >= 0;
    cpu.set32(31, link_addr(cpu));
    branch(cpu, taken, branch_target(cpu, w));
    Ok(())
}
/// BLTZALL.
pub fn bltzall(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let taken = (cpu.r64(rs(w)) as i64) < 0;
    cpu.set32(31, link_addr(cpu));
    branch_likely(cpu, taken, branch_target(cpu, w));
    Ok(())
}
/// BGEZALL.
pub fn bgezall(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let taken = (cpu.r64(rs(w)) as i64) >= 0;
    cpu.set32(31, link_addr(cpu));
    branch_likely(cpu, taken, branch_target(cpu, w));
    Ok(())
}

#[inline]
fn jump_target(cpu: &Cpu, w: u32) -> u32 {
    (cpu.cur_pc.wrapping_add(4) & 0xf000_0000) | (target(w) << 2)
}
/// J: within the 256 MiB region of the delay slot.
pub fn j(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    branch(cpu, true, jump_target(cpu, w));
    Ok(())
}
/// JAL: as J, ra = the address after the delay slot.
pub fn jal(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set32(31, link_addr(cpu));
    branch(cpu, true, jump_target(cpu, w));
    Ok(())
}
/// JR: to rs (a misaligned target faults when it is fetched).
pub fn jr(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let t = cpu.r32(rs(w));
    branch(cpu, true, t);
    Ok(())
}
/// JALR: to rs (read before rd is written), rd = the address after the delay slot.
pub fn jalr(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let t = cpu.r32(rs(w));
    cpu.set32(rd(w), link_addr(cpu));
    branch(cpu, true, t);
    Ok(())
}

// ---------------------------------------------------------------- traps, SYSCALL, BREAK

/// SYSCALL: the Syscall exception (the code field is for the handler to read).
pub fn syscall(_: &mut Cpu, _: &mut dyn Bus, _: u32) -> R {
    Err(Exception::new(ExceptionKind::Syscall))
}
/// BREAK: the Breakpoint exception.
pub fn break_(_: &mut Cpu, _: &mut dyn Bus, _: u32) -> R {
    Err(Exception::new(ExceptionKind::Break))
}
/// TGE: trap when rs >= rt (signed 64 bits).
pub fn tge(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    trap(cpu.r64(rs(w)) as i64 >= cpu.r64(rt(w)) as i64)
}
/// TGEU: unsigned.
pub fn tgeu(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    trap(cpu.r64(rs(w)) >= cpu.r64(rt(w)))
}
/// TLT.
pub fn tlt(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    trap((cpu.r64(rs(w)) as i64) < cpu.r64(rt(w)) as i64)
}
/// TLTU.
pub fn tltu(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    trap(cpu.r64(rs(w)) < cpu.r64(rt(w)))
}
/// TEQ.
pub fn teq(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    trap(cpu.r64(rs(w)) == cpu.r64(rt(w)))
}
/// TNE.
pub fn tne(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    trap(cpu.r64(rs(w)) != cpu.r64(rt(w)))
}
/// TGEI: against the sign-extended immediate.
pub fn tgei(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    trap(cpu.r64(rs(w)) as i64 >= simm(w) as i64)
}
/// TGEIU: unsigned, against the sign-extended immediate.
pub fn tgeiu(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    trap(cpu.r64(rs(w)) >= simm(w) as i64 as u64)
}
/// TLTI.
pub fn tlti(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    trap((cpu.r64(rs(w)) as i64) < simm(w) as i64)
}
/// TLTIU.
pub fn tltiu(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    trap(cpu.r64(rs(w)) < simm(w) as i64 as u64)
}
/// TEQI.
pub fn teqi(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    trap(cpu.r64(rs(w)) as i64 == simm(w) as i64)
}
/// TNEI.
pub fn tnei(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    trap(cpu.r64(rs(w)) as i64 != simm(w) as i64)
}
