//! The reference interpreter, and the semantics the opcode table points at.
//!
//! Contract: [`step`] runs the instruction at `pc`: fetch (alignment checked, then the bus),
//! advance (`pc = next_pc`, `next_pc += 4`; the next instruction is a delay slot when this one
//! has [`OpFlags::DELAY_SLOT`]), run the entry's `exec`, then retire the load delay (the load
//! of the previous instruction lands, this one's goes in flight). On an exception nothing of the
//! instruction remains: `pc`, `next_pc`, `in_delay`, the registers and the load in flight are
//! as before it, and the [`Exception`] (with `pc`, `word`, `in_delay` filled in) is returned.
//! The instruction's cycles are charged even then (a failed fetch charges none).
//!
//! Hardware rules followed here (sources in brackets):
//! - Branches and jumps write their link register at once, before the delay slot runs
//!   (ps2autotests tests/cpu/iop/branchdelay: `jal x` with `li $ra, 2` in the slot leaves 2);
//!   JALR reads rs before writing rd; BLTZAL/BGEZAL link taken or not and compare rs's value
//!   from before the link [psx-spx "CPU Jump Opcodes"].
//! - A branch in a delay slot: the first branch's target instruction runs as the second
//!   branch's delay slot, then execution goes to the second target. That is what the pc/next_pc
//!   pipeline gives, and what the IOP does (ps2autotests branchdelay: a chain of taken BEQs
//!   ends at the second one's target).
//! - Jumps to a misaligned address raise the address error on the fetch there: EPC and
//!   BadVaddr are the bad address [psx-spx].
//! - MFHI/MFLO see the result of a MULT/DIV at once (the IOP interlocks) and have no load
//!   delay (ps2autotests hilodelay). Division by zero and 0x80000000 / -1 give the R3000A's
//!   results, no exception [psx-spx; ps2autotests muldiv].
//! - With SR.IsC (cache isolated), stores through the cached segments (kuseg, kseg0: below
//!   0xa000_0000) go to the cache, which is not modelled, and never reach the bus; kseg1 and
//!   kseg2 stores pass [DuckStation's memory access: isolated kuseg/kseg0 writes go to the
//!   I-cache]. Loads still read memory, as in PCSX2 (pcsx2/IopMem.cpp only drops stores) and
//!   DuckStation; the BIOS only stores while isolated (its I-cache flush).
//! - In user mode (SR.KUc) an access or fetch at or above 0x8000_0000 is an address error, and
//!   COP0 instructions need SR.CU0 (except MFC0/MTC0 of the garbage registers 16-31)
//!   [psx-spx "cop0r13", "COP0 - Misc"].

use super::bus::{Bus, BusFault};
use super::exception::{Exception, ExceptionKind};
use super::table::fields::{rd, rs, rt, sa, simm, target, uimm};
use super::table::{OpFlags, decode};
use super::{Cpu, sr};

type R = Result<(), Exception>;

/// Run one instruction (see the module contract).
pub fn step(cpu: &mut Cpu, bus: &mut dyn Bus) -> Result<(), Exception> {
    let pc = cpu.pc;
    cpu.cur_pc = pc;
    let word = match fetch(cpu, bus, pc) {
        Ok(w) => w,
        Err(mut e) => {
            e.pc = pc;
            e.in_delay = cpu.in_delay;
            return Err(e);
        }
    };
    let info = decode(word);
    let (next_pc, in_delay) = (cpu.next_pc, cpu.in_delay);
    cpu.pc = next_pc;
    cpu.next_pc = next_pc.wrapping_add(4);
    cpu.in_delay = info.flags.contains(OpFlags::DELAY_SLOT);
    cpu.cycles += info.cycles as u64;
    match (info.exec)(cpu, bus, word) {
        Ok(()) => {
            cpu.retire_load();
            Ok(())
        }
        Err(mut e) => {
            cpu.pc = pc;
            cpu.next_pc = next_pc;
            cpu.in_delay = in_delay;
            cpu.cancel_next_load();
            e.pc = pc;
            e.word = word;
            e.in_delay = in_delay;
            Err(e)
        }
    }
}

/// Why [`run`] returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum RunExit {
    /// `cycles` reached the limit.
    Cycles,
    /// The stop predicate held for `pc` (the instruction there has not run).
    Stop,
}

/// Run until `cpu.cycles >= until_cycle` or `stop(pc)` holds before an instruction. Before
/// each instruction a pending interrupt is taken ([`Cpu::take_interrupt`]), then `stop` is
/// asked about the `pc` about to run. An exception from an instruction is returned as
/// [`step`] returns it, not entered, so the caller can service it natively or enter it.
pub fn run(
    cpu: &mut Cpu,
    bus: &mut dyn Bus,
    until_cycle: u64,
    mut stop: impl FnMut(u32) -> bool,
) -> Result<RunExit, Exception> {
    while cpu.cycles < until_cycle {
        cpu.take_interrupt();
        if stop(cpu.pc) {
            return Ok(RunExit::Stop);
        }
        step(cpu, bus)?;
    }
    Ok(RunExit::Cycles)
}

fn fetch(cpu: &Cpu, bus: &mut dyn Bus, pc: u32) -> Result<u32, Exception> {
    let pc = check(cpu, pc, 4, ExceptionKind::AddressLoad)?;
    bus.fetch(pc)
        .map_err(|f| Exception::at(ExceptionKind::BusFetch, f.addr))
}

/// An address error for a misaligned access, or for one outside kuseg in user mode.
#[inline]
fn check(cpu: &Cpu, addr: u32, size: u32, kind: ExceptionKind) -> Result<u32, Exception> {
    if addr & (size - 1) != 0 || (addr & 0x8000_0000 != 0 && cpu.user_mode()) {
        Err(Exception::at(kind, addr))
    } else {
        Ok(addr)
    }
}

#[inline]
fn bus_data(f: BusFault) -> Exception {
    Exception::at(ExceptionKind::BusData, f.addr)
}

/// `base + offset` of a load or store.
#[inline]
fn effective_address(cpu: &Cpu, w: u32) -> u32 {
    cpu.gpr[rs(w)].wrapping_add(simm(w) as u32)
}

#[inline]
fn load_address(cpu: &Cpu, w: u32, size: u32) -> Result<u32, Exception> {
    check(
        cpu,
        effective_address(cpu, w),
        size,
        ExceptionKind::AddressLoad,
    )
}

#[inline]
fn store_address(cpu: &Cpu, w: u32, size: u32) -> Result<u32, Exception> {
    check(
        cpu,
        effective_address(cpu, w),
        size,
        ExceptionKind::AddressStore,
    )
}

/// Whether a store to `addr` reaches the bus: not through kuseg/kseg0 with the cache isolated.
#[inline]
fn store_reaches_bus(cpu: &Cpu, addr: u32) -> bool {
    cpu.cop0.sr & sr::ISC == 0 || addr >= 0xa000_0000
}

/// The target of a PC-relative branch: the delay slot's address plus `offset << 2`.
#[inline]
fn branch_target(cpu: &Cpu, w: u32) -> u32 {
    cpu.cur_pc
        .wrapping_add(4)
        .wrapping_add((simm(w) << 2) as u32)
}

#[inline]
fn branch(cpu: &mut Cpu, taken: bool, w: u32) {
    if taken {
        cpu.next_pc = branch_target(cpu, w);
    }
}

/// The return address of a linking branch or jump: after its delay slot.
#[inline]
fn link_address(cpu: &Cpu) -> u32 {
    cpu.cur_pc.wrapping_add(8)
}

// ---------------------------------------------------------------- reserved, no-ops

/// Reserved encodings: the reserved instruction exception.
pub fn reserved(_: &mut Cpu, _: &mut dyn Bus, _: u32) -> R {
    Err(Exception::new(ExceptionKind::Reserved))
}

/// No effect (the absent coprocessors 1 and 3).
pub fn nop(_: &mut Cpu, _: &mut dyn Bus, _: u32) -> R {
    Ok(())
}

// ---------------------------------------------------------------- ALU, register forms

/// ADD: Overflow exception on signed overflow, rd unchanged.
pub fn add(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let v = (cpu.gpr[rs(w)] as i32)
        .checked_add(cpu.gpr[rt(w)] as i32)
        .ok_or(Exception::new(ExceptionKind::Overflow))?;
    cpu.set_gpr(rd(w), v as u32);
    Ok(())
}
/// ADDU.
pub fn addu(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set_gpr(rd(w), cpu.gpr[rs(w)].wrapping_add(cpu.gpr[rt(w)]));
    Ok(())
}
/// SUB: Overflow exception on signed overflow, rd unchanged.
pub fn sub(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let v = (cpu.gpr[rs(w)] as i32)
        .checked_sub(cpu.gpr[rt(w)] as i32)
        .ok_or(Exception::new(ExceptionKind::Overflow))?;
    cpu.set_gpr(rd(w), v as u32);
    Ok(())
}
/// SUBU.
pub fn subu(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set_gpr(rd(w), cpu.gpr[rs(w)].wrapping_sub(cpu.gpr[rt(w)]));
    Ok(())
}
/// AND.
pub fn and(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set_gpr(rd(w), cpu.gpr[rs(w)] & cpu.gpr[rt(w)]);
    Ok(())
}
/// OR.
pub fn or(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set_gpr(rd(w), cpu.gpr[rs(w)] | cpu.gpr[rt(w)]);
    Ok(())
}
/// XOR.
pub fn xor(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set_gpr(rd(w), cpu.gpr[rs(w)] ^ cpu.gpr[rt(w)]);
    Ok(())
}
/// NOR.
pub fn nor(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set_gpr(rd(w), !(cpu.gpr[rs(w)] | cpu.gpr[rt(w)]));
    Ok(())
}
/// SLT: signed compare.
pub fn slt(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let v = (cpu.gpr[rs(w)] as i32) < (cpu.gpr[rt(w)] as i32);
    cpu.set_gpr(rd(w), v as u32);
    Ok(())
}
/// SLTU: unsigned compare.
pub fn sltu(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let v = cpu.gpr[rs(w)] < cpu.gpr[rt(w)];
    cpu.set_gpr(rd(w), v as u32);
    Ok(())
}

// ---------------------------------------------------------------- shifts

/// SLL.
pub fn sll(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set_gpr(rd(w), cpu.gpr[rt(w)] << sa(w));
    Ok(())
}
/// SRL.
pub fn srl(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set_gpr(rd(w), cpu.gpr[rt(w)] >> sa(w));
    Ok(())
}
/// SRA.
pub fn sra(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set_gpr(rd(w), ((cpu.gpr[rt(w)] as i32) >> sa(w)) as u32);
    Ok(())
}
/// SLLV: the shift amount is rs's low 5 bits.
pub fn sllv(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set_gpr(rd(w), cpu.gpr[rt(w)] << (cpu.gpr[rs(w)] & 31));
    Ok(())
}
/// SRLV.
pub fn srlv(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set_gpr(rd(w), cpu.gpr[rt(w)] >> (cpu.gpr[rs(w)] & 31));
    Ok(())
}
/// SRAV.
pub fn srav(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set_gpr(
        rd(w),
        ((cpu.gpr[rt(w)] as i32) >> (cpu.gpr[rs(w)] & 31)) as u32,
    );
    Ok(())
}

// ---------------------------------------------------------------- ALU, immediate forms

/// ADDI: Overflow exception on signed overflow, rt unchanged.
pub fn addi(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let v = (cpu.gpr[rs(w)] as i32)
        .checked_add(simm(w))
        .ok_or(Exception::new(ExceptionKind::Overflow))?;
    cpu.set_gpr(rt(w), v as u32);
    Ok(())
}
/// ADDIU.
pub fn addiu(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set_gpr(rt(w), cpu.gpr[rs(w)].wrapping_add(simm(w) as u32));
    Ok(())
}
/// SLTI: signed compare with the sign-extended immediate.
pub fn slti(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let v = (cpu.gpr[rs(w)] as i32) < simm(w);
    cpu.set_gpr(rt(w), v as u32);
    Ok(())
}
/// SLTIU: unsigned compare with the *sign-extended* immediate.
pub fn sltiu(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let v = cpu.gpr[rs(w)] < simm(w) as u32;
    cpu.set_gpr(rt(w), v as u32);
    Ok(())
}
/// ANDI: zero-extended immediate.
pub fn andi(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set_gpr(rt(w), cpu.gpr[rs(w)] & uimm(w));
    Ok(())
}
/// ORI.
pub fn ori(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set_gpr(rt(w), cpu.gpr[rs(w)] | uimm(w));
    Ok(())
}
/// XORI.
pub fn xori(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set_gpr(rt(w), cpu.gpr[rs(w)] ^ uimm(w));
    Ok(())
}
/// LUI.
pub fn lui(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set_gpr(rt(w), uimm(w) << 16);
    Ok(())
}

// ---------------------------------------------------------------- HI/LO

/// Signed 32-bit division as the R3000A does it: (quotient, remainder). By zero: quotient 1 for
/// a negative dividend, else -1, remainder the dividend; 0x80000000 / -1: 0x80000000 rem 0.
#[inline]
pub fn div32(n: i32, d: i32) -> (u32, u32) {
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
pub fn divu32(n: u32, d: u32) -> (u32, u32) {
    match (n.checked_div(d), n.checked_rem(d)) {
        (Some(q), Some(r)) => (q, r),
        _ => (u32::MAX, n),
    }
}

/// MFHI (no delay: the IOP interlocks on a busy multiply or divide).
pub fn mfhi(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set_gpr(rd(w), cpu.hi);
    Ok(())
}
/// MFLO.
pub fn mflo(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.set_gpr(rd(w), cpu.lo);
    Ok(())
}
/// MTHI.
pub fn mthi(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.hi = cpu.gpr[rs(w)];
    Ok(())
}
/// MTLO.
pub fn mtlo(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.lo = cpu.gpr[rs(w)];
    Ok(())
}
/// MULT: HI:LO = rs * rt, signed.
pub fn mult(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let p = (cpu.gpr[rs(w)] as i32 as i64) * (cpu.gpr[rt(w)] as i32 as i64);
    cpu.lo = p as u32;
    cpu.hi = (p >> 32) as u32;
    Ok(())
}
/// MULTU: HI:LO = rs * rt, unsigned.
pub fn multu(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let p = (cpu.gpr[rs(w)] as u64) * (cpu.gpr[rt(w)] as u64);
    cpu.lo = p as u32;
    cpu.hi = (p >> 32) as u32;
    Ok(())
}
/// DIV: LO = quotient, HI = remainder (see [`div32`]).
pub fn div(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    (cpu.lo, cpu.hi) = div32(cpu.gpr[rs(w)] as i32, cpu.gpr[rt(w)] as i32);
    Ok(())
}
/// DIVU (see [`divu32`]).
pub fn divu(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    (cpu.lo, cpu.hi) = divu32(cpu.gpr[rs(w)], cpu.gpr[rt(w)]);
    Ok(())
}

// ---------------------------------------------------------------- branches and jumps

/// J: the 256 MiB region of the delay slot.
pub fn j(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.next_pc = (cpu.cur_pc.wrapping_add(4) & 0xf000_0000) | (target(w) << 2);
    Ok(())
}
/// JAL: `$ra` is written now, before the delay slot runs.
pub fn jal(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32) -> R {
    cpu.set_gpr(31, link_address(cpu));
    j(cpu, bus, w)
}
/// JR.
pub fn jr(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cpu.next_pc = cpu.gpr[rs(w)];
    Ok(())
}
/// JALR: rs is read before rd is written (`jalr $t0, $t0` jumps to the old `$t0`).
pub fn jalr(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let to = cpu.gpr[rs(w)];
    cpu.set_gpr(rd(w), link_address(cpu));
    cpu.next_pc = to;
    Ok(())
}
/// BEQ.
pub fn beq(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    branch(cpu, cpu.gpr[rs(w)] == cpu.gpr[rt(w)], w);
    Ok(())
}
/// BNE.
pub fn bne(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    branch(cpu, cpu.gpr[rs(w)] != cpu.gpr[rt(w)], w);
    Ok(())
}
/// BLEZ.
pub fn blez(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    branch(cpu, (cpu.gpr[rs(w)] as i32) <= 0, w);
    Ok(())
}
/// BGTZ.
pub fn bgtz(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    branch(cpu, (cpu.gpr[rs(w)] as i32) > 0, w);
    Ok(())
}
/// BLTZ (and the REGIMM encodings that decode to it).
pub fn bltz(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    branch(cpu, (cpu.gpr[rs(w)] as i32) < 0, w);
    Ok(())
}
/// BGEZ (and the REGIMM encodings that decode to it).
pub fn bgez(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    branch(cpu, (cpu.gpr[rs(w)] as i32) >= 0, w);
    Ok(())
}
/// BLTZAL: links whether or not taken; the compare uses rs from before the link.
pub fn bltzal(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let taken = (cpu.gpr[rs(w)] as i32) < 0;
    cpu.set_gpr(31, link_address(cpu));
    branch(cpu, taken, w);
    Ok(())
}
/// BGEZAL: links whether or not taken; the compare uses rs from before the link.
pub fn bgezal(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let taken = (cpu.gpr[rs(w)] as i32) >= 0;
    cpu.set_gpr(31, link_address(cpu));
    branch(cpu, taken, w);
    Ok(())
}

// ---------------------------------------------------------------- exceptions by design

/// SYSCALL.
pub fn syscall(_: &mut Cpu, _: &mut dyn Bus, _: u32) -> R {
    Err(Exception::new(ExceptionKind::Syscall))
}
/// BREAK (its 20-bit code is for the handler: [`super::table::fields::code`]).
pub fn break_(_: &mut Cpu, _: &mut dyn Bus, _: u32) -> R {
    Err(Exception::new(ExceptionKind::Break))
}

// ---------------------------------------------------------------- loads

/// LB: sign-extended byte, delayed.
pub fn lb(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32) -> R {
    let a = load_address(cpu, w, 1)?;
    let v = bus.read8(a).map_err(bus_data)?;
    cpu.set_gpr_delayed(rt(w), v as i8 as u32);
    Ok(())
}
/// LBU.
pub fn lbu(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32) -> R {
    let a = load_address(cpu, w, 1)?;
    let v = bus.read8(a).map_err(bus_data)?;
    cpu.set_gpr_delayed(rt(w), v as u32);
    Ok(())
}
/// LH: address error if odd.
pub fn lh(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32) -> R {
    let a = load_address(cpu, w, 2)?;
    let v = bus.read16(a).map_err(bus_data)?;
    cpu.set_gpr_delayed(rt(w), v as i16 as u32);
    Ok(())
}
/// LHU.
pub fn lhu(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32) -> R {
    let a = load_address(cpu, w, 2)?;
    let v = bus.read16(a).map_err(bus_data)?;
    cpu.set_gpr_delayed(rt(w), v as u32);
    Ok(())
}
/// LW: address error unless 4-aligned.
pub fn lw(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32) -> R {
    let a = load_address(cpu, w, 4)?;
    let v = bus.read32(a).map_err(bus_data)?;
    cpu.set_gpr_delayed(rt(w), v);
    Ok(())
}

/// LWL's merge: the bytes from `addr` down to its word boundary fill rt from the top.
#[inline]
pub const fn lwl_merge(reg: u32, mem: u32, addr: u32) -> u32 {
    let shift = (addr & 3) * 8;
    (reg & (0x00ff_ffff >> shift)) | (mem << (24 - shift))
}
/// LWR's merge: the bytes from `addr` up to the next word boundary fill rt from the bottom.
#[inline]
pub const fn lwr_merge(reg: u32, mem: u32, addr: u32) -> u32 {
    let shift = (addr & 3) * 8;
    (reg & (0xffff_ff00 << (24 - shift))) | (mem >> shift)
}
/// SWL's merge: rt's top bytes replace memory from `addr` down to its word boundary.
#[inline]
pub const fn swl_merge(reg: u32, mem: u32, addr: u32) -> u32 {
    let shift = (addr & 3) * 8;
    (mem & (0xffff_ff00 << shift)) | (reg >> (24 - shift))
}
/// SWR's merge: rt's bottom bytes replace memory from `addr` up to the next word boundary.
#[inline]
pub const fn swr_merge(reg: u32, mem: u32, addr: u32) -> u32 {
    let shift = (addr & 3) * 8;
    (mem & (0x00ff_ffff >> (24 - shift))) | (reg << shift)
}

/// The aligned word an LWL/LWR/SWL/SWR touches (never misaligned; user-mode segment check only).
#[inline]
fn unaligned_word(cpu: &Cpu, w: u32, kind: ExceptionKind) -> Result<(u32, u32), Exception> {
    let a = effective_address(cpu, w);
    check(cpu, a & !3, 4, kind).map(|aligned| (a, aligned))
}

/// LWL: merges into the value in flight when a load to rt is pending; delayed.
pub fn lwl(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32) -> R {
    let (a, aligned) = unaligned_word(cpu, w, ExceptionKind::AddressLoad)?;
    let mem = bus.read32(aligned).map_err(bus_data)?;
    let v = lwl_merge(cpu.gpr_bypassed(rt(w)), mem, a);
    cpu.set_gpr_delayed(rt(w), v);
    Ok(())
}
/// LWR: merges into the value in flight when a load to rt is pending; delayed.
pub fn lwr(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32) -> R {
    let (a, aligned) = unaligned_word(cpu, w, ExceptionKind::AddressLoad)?;
    let mem = bus.read32(aligned).map_err(bus_data)?;
    let v = lwr_merge(cpu.gpr_bypassed(rt(w)), mem, a);
    cpu.set_gpr_delayed(rt(w), v);
    Ok(())
}

// ---------------------------------------------------------------- stores

/// SB.
pub fn sb(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32) -> R {
    let a = store_address(cpu, w, 1)?;
    if store_reaches_bus(cpu, a) {
        bus.write8(a, cpu.gpr[rt(w)] as u8).map_err(bus_data)?;
    }
    Ok(())
}
/// SH: address error if odd.
pub fn sh(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32) -> R {
    let a = store_address(cpu, w, 2)?;
    if store_reaches_bus(cpu, a) {
        bus.write16(a, cpu.gpr[rt(w)] as u16).map_err(bus_data)?;
    }
    Ok(())
}
/// SW: address error unless 4-aligned.
pub fn sw(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32) -> R {
    let a = store_address(cpu, w, 4)?;
    if store_reaches_bus(cpu, a) {
        bus.write32(a, cpu.gpr[rt(w)]).map_err(bus_data)?;
    }
    Ok(())
}
/// SWL: read-modify-write of the aligned word (the hardware's byte enables, modelled as such).
pub fn swl(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32) -> R {
    let (a, aligned) = unaligned_word(cpu, w, ExceptionKind::AddressStore)?;
    if store_reaches_bus(cpu, a) {
        let mem = bus.read32(aligned).map_err(bus_data)?;
        bus.write32(aligned, swl_merge(cpu.gpr[rt(w)], mem, a))
            .map_err(bus_data)?;
    }
    Ok(())
}
/// SWR: read-modify-write of the aligned word.
pub fn swr(cpu: &mut Cpu, bus: &mut dyn Bus, w: u32) -> R {
    let (a, aligned) = unaligned_word(cpu, w, ExceptionKind::AddressStore)?;
    if store_reaches_bus(cpu, a) {
        let mem = bus.read32(aligned).map_err(bus_data)?;
        bus.write32(aligned, swr_merge(cpu.gpr[rt(w)], mem, a))
            .map_err(bus_data)?;
    }
    Ok(())
}

// ---------------------------------------------------------------- COP0

/// COP0 is usable in kernel mode, and in user mode with SR.CU0.
#[inline]
fn cop0_usable(cpu: &Cpu) -> R {
    if cpu.user_mode() && cpu.cop0.sr & sr::CU0 == 0 {
        Err(Exception::cop_unusable(0))
    } else {
        Ok(())
    }
}

/// MFC0: delayed like a load. Registers 0, 1, 2, 4 and 10 raise reserved instruction.
pub fn mfc0(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let r = rd(w);
    if r < 16 {
        cop0_usable(cpu)?;
    }
    let v = cpu
        .cop0
        .read(r)
        .ok_or(Exception::new(ExceptionKind::Reserved))?;
    cpu.set_gpr_delayed(rt(w), v);
    Ok(())
}
/// MTC0 (see [`super::Cop0::write`] for what each register takes).
pub fn mtc0(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let r = rd(w);
    if r < 16 {
        cop0_usable(cpu)?;
    }
    cpu.cop0.write(r, cpu.gpr[rt(w)]);
    Ok(())
}
/// RFE: pops the KU/IE stack (bits 0-3 take bits 2-5; bits 4-5 stay).
pub fn rfe(cpu: &mut Cpu, _: &mut dyn Bus, _: u32) -> R {
    cop0_usable(cpu)?;
    let s = cpu.cop0.sr;
    cpu.cop0.sr = (s & !0xf) | ((s >> 2) & 0xf);
    Ok(())
}
/// LWC0, SWC0, BC0F, BC0T: coprocessor unusable, in any mode (psx-spx).
pub fn cop0_unusable(_: &mut Cpu, _: &mut dyn Bus, _: u32) -> R {
    Err(Exception::cop_unusable(0))
}
/// A reserved COP0 encoding: coprocessor unusable first (user mode without CU0), else reserved.
pub fn cop0_reserved(cpu: &mut Cpu, _: &mut dyn Bus, _: u32) -> R {
    cop0_usable(cpu)?;
    Err(Exception::new(ExceptionKind::Reserved))
}

// ---------------------------------------------------------------- COP2 (GTE, not modelled)

/// COP2, LWC2, SWC2: coprocessor unusable with SR.CU2 clear; reserved (no GTE) with it set.
pub fn cop2(cpu: &mut Cpu, _: &mut dyn Bus, _: u32) -> R {
    if cpu.cop0.sr & sr::CU2 == 0 {
        Err(Exception::cop_unusable(2))
    } else {
        Err(Exception::new(ExceptionKind::Reserved))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unaligned_merges() {
        // Memory bytes 0x11 0x22 0x33 0x44 (word 0x44332211), register 0xaabbccdd.
        let (reg, mem) = (0xaabb_ccdd, 0x4433_2211);
        assert_eq!(lwl_merge(reg, mem, 0), 0x11bb_ccdd);
        assert_eq!(lwl_merge(reg, mem, 1), 0x2211_ccdd);
        assert_eq!(lwl_merge(reg, mem, 2), 0x3322_11dd);
        assert_eq!(lwl_merge(reg, mem, 3), 0x4433_2211);
        assert_eq!(lwr_merge(reg, mem, 0), 0x4433_2211);
        assert_eq!(lwr_merge(reg, mem, 1), 0xaa44_3322);
        assert_eq!(lwr_merge(reg, mem, 2), 0xaabb_4433);
        assert_eq!(lwr_merge(reg, mem, 3), 0xaabb_cc44);
        assert_eq!(swl_merge(reg, mem, 0), 0x4433_22aa);
        assert_eq!(swl_merge(reg, mem, 1), 0x4433_aabb);
        assert_eq!(swl_merge(reg, mem, 2), 0x44aa_bbcc);
        assert_eq!(swl_merge(reg, mem, 3), 0xaabb_ccdd);
        assert_eq!(swr_merge(reg, mem, 0), 0xaabb_ccdd);
        assert_eq!(swr_merge(reg, mem, 1), 0xbbcc_dd11);
        assert_eq!(swr_merge(reg, mem, 2), 0xccdd_2211);
        assert_eq!(swr_merge(reg, mem, 3), 0xdd33_2211);
    }

    #[test]
    fn division_edges() {
        assert_eq!(div32(5, 0), (u32::MAX, 5));
        assert_eq!(div32(-5, 0), (1, -5i32 as u32));
        assert_eq!(div32(i32::MIN, -1), (0x8000_0000, 0));
        assert_eq!(div32(-7, 2), (-3i32 as u32, -1i32 as u32));
        assert_eq!(divu32(7, 0), (u32::MAX, 7));
        assert_eq!(divu32(0xffff_ffff, 0x2222_2222), (7, 0x1111_1111));
    }
}
