//! The reference interpreter.
//!
//! [`step`] executes one instruction: fetch at `pc`, advance (`pc = next_pc`, `next_pc += 4`),
//! then run the table entry's `exec`. Branches set `delay_next` and, when taken, `next_pc`;
//! branch-likely instructions that are not taken skip their delay slot. An exception is entered
//! architecturally (EPC, Cause, EXL, the vector) and returned to the caller.
//!
//! The family modules hold the semantics the opcode table points at.

use crate::bus::Bus;
use crate::cpu::Cpu;
use crate::exception::{Exception, ExceptionKind};
use crate::table::decode;

pub mod cop0;
pub mod cop1;
pub mod cop2;
pub mod integer;
pub mod mmi;

/// Execute one instruction. On an exception the state is as the hardware leaves it after
/// entering the exception (the faulting instruction has no effect), and the exception is returned.
#[inline]
pub fn step(cpu: &mut Cpu, bus: &mut dyn Bus) -> Result<(), Exception> {
    match fetch(bus, cpu.pc) {
        Ok(word) => step_word(cpu, bus, word, decode(word)),
        Err(e) => {
            cpu.cur_pc = cpu.pc;
            cpu.in_delay_slot = cpu.delay_next;
            cpu.delay_next = false;
            Err(cpu.enter_exception(e))
        }
    }
}

/// [`step`] for the instruction `word` (decoded as `info`) that a fetch at `cpu.pc` gives: for
/// a caller that already holds the word and knows it is still what memory holds there (the
/// recompiler interpreting a block whose code pages it watches), skipping the fetch and the
/// decode.
#[inline]
pub fn step_word(
    cpu: &mut Cpu,
    bus: &mut dyn Bus,
    word: u32,
    info: &'static crate::OpInfo,
) -> Result<(), Exception> {
    cpu.cur_pc = cpu.pc;
    cpu.in_delay_slot = cpu.delay_next;
    cpu.delay_next = false;
    cpu.pc = cpu.next_pc;
    cpu.next_pc = cpu.pc.wrapping_add(4);
    cpu.cycles += info.cycles as u64;
    match (info.exec)(cpu, bus, word) {
        Ok(()) => Ok(()),
        Err(mut e) => {
            e.word = word;
            Err(cpu.enter_exception(e))
        }
    }
}

fn fetch(bus: &mut dyn Bus, pc: u32) -> Result<u32, Exception> {
    if pc & 3 != 0 {
        return Err(Exception::at(ExceptionKind::AddressLoad, pc));
    }
    bus.fetch(pc)
        .map_err(|f| Exception::at(ExceptionKind::BusFetch, f.addr))
}

/// Take a branch: the next instruction is a delay slot; when `taken`, continue at `target` after it.
#[inline]
pub fn branch(cpu: &mut Cpu, taken: bool, target: u32) {
    cpu.delay_next = true;
    if taken {
        cpu.next_pc = target;
    }
}

/// A branch-likely: as [`branch`] when taken; when not taken the delay slot is skipped.
#[inline]
pub fn branch_likely(cpu: &mut Cpu, taken: bool, target: u32) {
    if taken {
        branch(cpu, true, target);
    } else {
        cpu.pc = cpu.next_pc;
        cpu.next_pc = cpu.pc.wrapping_add(4);
    }
}

/// The target of a PC-relative branch: the delay slot's address plus `offset << 2`.
#[inline]
pub fn branch_target(cpu: &Cpu, word: u32) -> u32 {
    cpu.cur_pc
        .wrapping_add(4)
        .wrapping_add((crate::table::fields::simm(word) << 2) as u32)
}

/// The effective address `base + offset` of a load or store.
#[inline]
pub fn effective_address(cpu: &Cpu, word: u32) -> u32 {
    use crate::table::fields::{rs, simm};
    cpu.r32(rs(word)).wrapping_add(simm(word) as u32)
}

/// Check alignment for a load of `size` bytes.
#[inline]
pub fn check_load(addr: u32, size: u32) -> Result<u32, Exception> {
    if addr & (size - 1) != 0 {
        Err(Exception::at(ExceptionKind::AddressLoad, addr))
    } else {
        Ok(addr)
    }
}

/// Check alignment for a store of `size` bytes.
#[inline]
pub fn check_store(addr: u32, size: u32) -> Result<u32, Exception> {
    if addr & (size - 1) != 0 {
        Err(Exception::at(ExceptionKind::AddressStore, addr))
    } else {
        Ok(addr)
    }
}

/// Map a bus fault on a data access to the exception the core raises.
#[inline]
pub fn bus_data(f: crate::bus::BusFault) -> Exception {
    Exception::at(ExceptionKind::BusData, f.addr)
}
