//! Semantics of the COP0 family: MFC0/MTC0, the breakpoint and performance-counter moves, the
//! TLB instructions, ERET, EI/DI and the BC0 branches.
//!
//! Timing: Count and the performance counters advance with [`Cpu::cycles`] (one Count tick per
//! CPU cycle, as on the EE). They are brought up to date lazily by [`tick_cop0`], which MFC0,
//! MTC0, MFPC, MTPC, MTPS and ERET call first. The machine must call [`tick_cop0`] too, at least
//! whenever it is about to check for interrupts, so that Count reaching Compare raises Cause.IP7
//! (the COP0 timer interrupt) in time.

use crate::bus::Bus;
use crate::cpu::{Cpu, cop0reg, status};
use crate::exception::{Exception, ExceptionKind};
use crate::interp::{branch, branch_likely, branch_target};
use crate::table::fields::{funct, rd, rt};

type R = Result<(), Exception>;

/// PCCR bits (MTPS/MFPS): CTE, the global count enable.
pub const PCCR_CTE: u32 = 1 << 31;
/// The PCCR bits that exist: EXL0/K0/S0/U0 and EVENT0 (bits 1-9), EXL1/K1/S1/U1 and EVENT1
/// (bits 11-19) and CTE (ps2autotests ee_cop0/performance: writing 0x7fffffff reads 0x000ffbfe).
pub const PCCR_MASK: u32 = 0x800f_fbfe;
/// The "processor cycle" event number, for both counters.
pub const EVENT_CYCLE: u32 = 1;

/// Bring Count and the performance counters up to `cpu.cycles`, raising Cause.IP7 when Count
/// passes Compare. Cheap and idempotent; the machine calls it before checking interrupts.
///
/// Performance counters count only the "processor cycle" event (event 1); the other events
/// (cache misses, issued instructions...) are not modelled and stay unchanged. A counter counts
/// when PCCR.CTE is set and the enable bit of the current mode (EXL when Status.EXL is set,
/// else K/S/U by Status.KSU) is set; the mode is sampled when the counters are brought up to
/// date, which happens at the mode changes COP0 instructions make (MTC0 Status, ERET) but not
/// at exception entry: cycles before an exception are counted in the mode current at the next
/// update.
/// Overflow of a counter into bit 31 (which would raise a performance exception) is not
/// modelled.
pub fn tick_cop0(cpu: &mut Cpu) {
    let delta = cpu.cycles.wrapping_sub(cpu.cop0.count_sync);
    if delta == 0 {
        return;
    }
    cpu.cop0.count_sync = cpu.cycles;
    let c0 = &mut cpu.cop0;
    let old = c0.regs[cop0reg::COUNT];
    let new = old.wrapping_add(delta as u32);
    c0.regs[cop0reg::COUNT] = new;
    // Count hits Compare when Compare lies in (old, old + delta].
    let compare = c0.regs[cop0reg::COMPARE];
    if delta > u32::MAX as u64 || compare.wrapping_sub(old).wrapping_sub(1) < delta as u32 {
        cpu.set_interrupt_line(7, true);
    }
    let pccr = cpu.cop0.pccr;
    if pccr & PCCR_CTE != 0 {
        let s = cpu.cop0.regs[cop0reg::STATUS];
        // Mode enable bit offset inside a counter's field: 1 EXL, 2 K, 3 S, 4 U.
        let mode = if s & (status::EXL | status::ERL) != 0 {
            1
        } else {
            match (s & status::KSU) >> 3 {
                0 => 2,
                1 => 3,
                _ => 4,
            }
        };
        let d = delta as u32;
        if pccr & (1 << mode) != 0 && (pccr >> 5) & 31 == EVENT_CYCLE {
            cpu.cop0.pcr0 = cpu.cop0.pcr0.wrapping_add(d);
        }
        if pccr & (1 << (mode + 10)) != 0 && (pccr >> 15) & 31 == EVENT_CYCLE {
            cpu.cop0.pcr1 = cpu.cop0.pcr1.wrapping_add(d);
        }
    }
}

/// Whether COP0 is usable: in kernel mode (KSU = 0, or EXL or ERL set), or with Status.CU0.
#[inline]
fn cop0_usable(cpu: &Cpu) -> R {
    let s = cpu.cop0.regs[cop0reg::STATUS];
    if s & (status::EXL | status::ERL) != 0 || s & status::KSU == 0 || s & status::CU0 != 0 {
        Ok(())
    } else {
        Err(Exception::new(ExceptionKind::CopUnusable))
    }
}

/// The TLB Random register: counts down from 47 to Wired, one step per cycle. Modelled as a
/// function of the cycle counter so that it needs no per-instruction work.
fn random(cpu: &Cpu) -> u32 {
    let wired = cpu.cop0.regs[cop0reg::WIRED] & 63;
    if wired >= 47 {
        return 47;
    }
    let span = 48 - wired as u64;
    47 - (cpu.cycles % span) as u32
}

/// The value MFC0 reads from register `r` (Count brought up to date first by the caller).
pub fn read_cop0(cpu: &Cpu, r: usize) -> u32 {
    match r {
        cop0reg::RANDOM => random(cpu),
        cop0reg::DEBUG => cpu.cop0.bpc[0],
        cop0reg::PERF => cpu.cop0.pccr,
        _ => cpu.cop0.regs[r],
    }
}

/// What MTC0 does to register `r` (Count brought up to date first by the caller).
pub fn write_cop0(cpu: &mut Cpu, r: usize, v: u32) {
    let regs = &mut cpu.cop0.regs;
    match r {
        // Read-only: Random, BadVAddr, PRId, BadPAddr.
        cop0reg::RANDOM | cop0reg::BAD_VADDR | cop0reg::PRID | cop0reg::BAD_PADDR => {}
        cop0reg::COMPARE => {
            // Writing Compare acknowledges the timer interrupt.
            regs[r] = v;
            cpu.set_interrupt_line(7, false);
        }
        cop0reg::CAUSE => {
            // Only the two software interrupt bits (IP0, IP1) are writable; the rest reflects
            // the hardware.
            regs[r] = (regs[r] & !0x300) | (v & 0x300);
        }
        cop0reg::INDEX => regs[r] = (regs[r] & 0x8000_0000) | (v & 63),
        cop0reg::WIRED => regs[r] = v & 63,
        cop0reg::DEBUG => cpu.cop0.bpc[0] = v,
        cop0reg::PERF => {
            cpu.cop0.pccr = v & PCCR_MASK;
        }
        _ => regs[r] = v,
    }
}

/// MFC0: rt = COP0 register rd, sign-extended.
pub fn mfc0(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cop0_usable(cpu)?;
    tick_cop0(cpu);
    let v = read_cop0(cpu, rd(w));
    cpu.set32(rt(w), v);
    Ok(())
}

/// MTC0: COP0 register rd = rt.
pub fn mtc0(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cop0_usable(cpu)?;
    tick_cop0(cpu);
    let v = cpu.r32(rt(w));
    write_cop0(cpu, rd(w), v);
    Ok(())
}

/// MFBPC, MFIAB, MFIABM, MFDAB, MFDABM, MFDVB, MFDVBM (rd = 24, funct 0, 2..7): read a
/// breakpoint register. They are stored, not acted upon (no debug exceptions).
pub fn mfbp(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cop0_usable(cpu)?;
    let v = cpu.cop0.bpc[bp_index(w)];
    cpu.set32(rt(w), v);
    Ok(())
}

/// MTBPC and friends: write a breakpoint register.
pub fn mtbp(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cop0_usable(cpu)?;
    cpu.cop0.bpc[bp_index(w)] = cpu.r32(rt(w));
    Ok(())
}

/// funct 0 -> BPC (index 0), 2 -> IAB (1), ... 7 -> DVBM (6).
#[inline]
fn bp_index(w: u32) -> usize {
    match funct(w) {
        0 => 0,
        f => (f - 1).min(6),
    }
}

/// MFPS: rt = PCCR. Every index reads PCCR (ps2autotests ee_cop0/performance).
pub fn mfps(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cop0_usable(cpu)?;
    let v = cpu.cop0.pccr;
    cpu.set32(rt(w), v);
    Ok(())
}

/// MTPS: PCCR = rt for index 0; other indices are no-ops.
pub fn mtps(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cop0_usable(cpu)?;
    tick_cop0(cpu);
    if (funct(w) >> 1) & 31 == 0 {
        cpu.cop0.pccr = cpu.r32(rt(w)) & PCCR_MASK;
    }
    Ok(())
}

/// MFPC: rt = PCR0 for even indices, PCR1 for odd ones (the index sits in funct bits 1-5).
pub fn mfpc(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cop0_usable(cpu)?;
    tick_cop0(cpu);
    let v = if (funct(w) >> 1) & 1 == 0 {
        cpu.cop0.pcr0
    } else {
        cpu.cop0.pcr1
    };
    cpu.set32(rt(w), v);
    Ok(())
}

/// MTPC: PCR0 (even index) or PCR1 (odd) = rt.
pub fn mtpc(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    cop0_usable(cpu)?;
    tick_cop0(cpu);
    let v = cpu.r32(rt(w));
    if (funct(w) >> 1) & 1 == 0 {
        cpu.cop0.pcr0 = v;
    } else {
        cpu.cop0.pcr1 = v;
    }
    Ok(())
}

/// TLBR: PageMask, EntryHi, EntryLo0, EntryLo1 = the entry at Index.
pub fn tlbr(cpu: &mut Cpu, _: &mut dyn Bus, _: u32) -> R {
    cop0_usable(cpu)?;
    let i = (cpu.cop0.regs[cop0reg::INDEX] & 63) as usize;
    if let Some(e) = cpu.cop0.tlb.get(i).copied() {
        let r = &mut cpu.cop0.regs;
        r[cop0reg::PAGE_MASK] = e.page_mask;
        r[cop0reg::ENTRY_HI] = e.entry_hi;
        r[cop0reg::ENTRY_LO0] = e.entry_lo0;
        r[cop0reg::ENTRY_LO1] = e.entry_lo1;
    }
    Ok(())
}

fn write_tlb(cpu: &mut Cpu, i: usize) {
    let r = &cpu.cop0.regs;
    let e = crate::cpu::TlbEntry {
        page_mask: r[cop0reg::PAGE_MASK],
        entry_hi: r[cop0reg::ENTRY_HI],
        entry_lo0: r[cop0reg::ENTRY_LO0],
        entry_lo1: r[cop0reg::ENTRY_LO1],
    };
    if let Some(slot) = cpu.cop0.tlb.get_mut(i) {
        *slot = e;
    }
}

/// TLBWI: the entry at Index = PageMask, EntryHi, EntryLo0, EntryLo1. The bus applies the
/// kernel's fixed mapping, so the TLB is stored but never used for translation.
pub fn tlbwi(cpu: &mut Cpu, _: &mut dyn Bus, _: u32) -> R {
    cop0_usable(cpu)?;
    let i = (cpu.cop0.regs[cop0reg::INDEX] & 63) as usize;
    write_tlb(cpu, i);
    Ok(())
}

/// TLBWR: as TLBWI at Random.
pub fn tlbwr(cpu: &mut Cpu, _: &mut dyn Bus, _: u32) -> R {
    cop0_usable(cpu)?;
    let i = random(cpu) as usize;
    write_tlb(cpu, i);
    Ok(())
}

/// TLBP: Index = the entry matching EntryHi (VPN2 under the entry's page mask, and ASID unless
/// the entry is global), or bit 31 set when none matches.
pub fn tlbp(cpu: &mut Cpu, _: &mut dyn Bus, _: u32) -> R {
    cop0_usable(cpu)?;
    let hi = cpu.cop0.regs[cop0reg::ENTRY_HI];
    let found = cpu.cop0.tlb.iter().position(|e| {
        let mask = !(e.page_mask | 0x1fff);
        let global = e.entry_lo0 & e.entry_lo1 & 1 != 0;
        (e.entry_hi & mask) == (hi & mask) && (global || (e.entry_hi & 0xff) == (hi & 0xff))
    });
    let idx = &mut cpu.cop0.regs[cop0reg::INDEX];
    match found {
        Some(i) => *idx = i as u32,
        None => *idx |= 0x8000_0000,
    }
    Ok(())
}

/// ERET: return to EPC (or ErrorEPC with ERL set), clearing EXL (ERL). No delay slot.
pub fn eret(cpu: &mut Cpu, _: &mut dyn Bus, _: u32) -> R {
    cop0_usable(cpu)?;
    tick_cop0(cpu);
    cpu.eret();
    Ok(())
}

/// Whether EI/DI take effect: in kernel mode (KSU 0, or EXL/ERL) or with Status.EDI set;
/// otherwise they do nothing.
fn ei_di_allowed(cpu: &Cpu) -> bool {
    let s = cpu.cop0.regs[cop0reg::STATUS];
    s & (status::EXL | status::ERL | status::EDI) != 0 || s & status::KSU == 0
}

/// EI: set Status.EIE.
pub fn ei(cpu: &mut Cpu, _: &mut dyn Bus, _: u32) -> R {
    if ei_di_allowed(cpu) {
        cpu.cop0.regs[cop0reg::STATUS] |= status::EIE;
    }
    Ok(())
}

/// DI: clear Status.EIE.
pub fn di(cpu: &mut Cpu, _: &mut dyn Bus, _: u32) -> R {
    if ei_di_allowed(cpu) {
        cpu.cop0.regs[cop0reg::STATUS] &= !status::EIE;
    }
    Ok(())
}

/// BC0F: branch when CPCOND0 (DMA done) is false.
pub fn bc0f(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let t = branch_target(cpu, w);
    branch(cpu, !cpu.cop0.cpcond0, t);
    Ok(())
}
/// BC0T: branch when CPCOND0 is true.
pub fn bc0t(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let t = branch_target(cpu, w);
    branch(cpu, cpu.cop0.cpcond0, t);
    Ok(())
}
/// BC0FL: likely form of BC0F.
pub fn bc0fl(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let t = branch_target(cpu, w);
    branch_likely(cpu, !cpu.cop0.cpcond0, t);
    Ok(())
}
/// BC0TL: likely form of BC0T.
pub fn bc0tl(cpu: &mut Cpu, _: &mut dyn Bus, w: u32) -> R {
    let t = branch_target(cpu, w);
    branch_likely(cpu, cpu.cop0.cpcond0, t);
    Ok(())
}
