//! COP0: MFC0/MTC0, Count/Compare and the timer interrupt, performance counters, breakpoint
//! registers, the TLB instructions, ERET, EI/DI and the BC0 branches.

#[path = "integer_asm.rs"]
mod asm;
use asm::*;
use piney_ee::cpu::{cop0reg, status};
use piney_ee::exception::ExceptionKind;
use piney_ee::interp::cop0::tick_cop0;

const MF0: u32 = 0;
const MT0: u32 = 4;
const C0: u32 = 0x10;

fn bc0(cond: u32, off: i32) -> u32 {
    (0x10 << 26) | (8 << 21) | (cond << 16) | (off as u32 & 0xffff)
}

#[test]
fn mfc0_reads_prid_and_sign_extends() {
    let m = exec1(cop0(MF0, 2, 15, 0), |_| {});
    assert_eq!(m.get(2), 0x2e20);
    let m = exec1(cop0(MF0, 2, 14, 0), |m| {
        m.cpu.cop0.regs[cop0reg::EPC] = 0x8000_1234
    });
    assert_eq!(m.get(2), 0xffff_ffff_8000_1234);
}

#[test]
fn prid_is_read_only() {
    let m = exec1(cop0(MT0, 1, 15, 0), |m| m.set(1, 0));
    assert_eq!(m.cpu.cop0.regs[cop0reg::PRID], 0x2e20);
}

#[test]
fn count_follows_cycles() {
    let mut m = M::new(&[NOP, NOP, NOP, cop0(MF0, 2, 9, 0), NOP, cop0(MF0, 3, 9, 0)]);
    m.run(6);
    assert_eq!(m.get(2), 4);
    assert_eq!(m.get(3), 6);
    // MTC0 Count sets it; it keeps counting from there.
    let mut m = M::new(&[cop0(MT0, 1, 9, 0), NOP, NOP, cop0(MF0, 2, 9, 0)]);
    m.set(1, 1000);
    m.run(4);
    assert_eq!(m.get(2), 1003);
}

#[test]
fn compare_raises_and_acknowledges_the_timer_interrupt() {
    let ip7 = |m: &M| m.cpu.cop0.regs[cop0reg::CAUSE] & (1 << 15) != 0;
    let mut code = vec![cop0(MT0, 1, 11, 0)];
    code.extend([NOP; 10]);
    code.push(cop0(MT0, 1, 11, 0));
    let mut m = M::new(&code);
    m.set(1, 8);
    m.run(1);
    m.run(6);
    tick_cop0(&mut m.cpu);
    assert!(!ip7(&m), "Count 7 < Compare 8");
    m.run(1);
    tick_cop0(&mut m.cpu);
    assert!(ip7(&m), "Count reached 8");
    assert!(m.cpu.interrupt_pending());
    m.run(4);
    assert!(!ip7(&m), "the Compare write cleared IP7");
    // Crossing Compare between two ticks still raises it.
    let mut m = M::new(&[NOP; 4]);
    m.cpu.cop0.regs[cop0reg::COMPARE] = 2;
    m.run(4);
    tick_cop0(&mut m.cpu);
    assert!(ip7(&m));
}

/// mtps rt, 0 / mfps rt, i / mtpc rt, i / mfpc rt, i.
fn mtps(rt: u32) -> u32 {
    cop0(MT0, rt, 25, 0)
}
fn mfps(rt: u32, i: u32) -> u32 {
    cop0(MF0, rt, 25, i << 1)
}
fn mtpc(rt: u32, i: u32) -> u32 {
    cop0(MT0, rt, 25, (i << 1) | 1)
}
fn mfpc(rt: u32, i: u32) -> u32 {
    cop0(MF0, rt, 25, (i << 1) | 1)
}

#[test]
fn performance_counter_registers() {
    let mut m = M::new(&[
        mtps(1),
        mfps(2, 0),
        mfps(3, 31),
        mtps(4) | (15 << 1),
        mfps(5, 0),
    ]);
    m.set(1, 0x7fff_ffff);
    m.set(4, 0);
    m.run(5);
    assert_eq!(m.get(2), 0x000f_fbfe);
    assert_eq!(m.get(3), 0x000f_fbfe);
    assert_eq!(m.get(5), 0x000f_fbfe, "mtps with index 15 does nothing");
    let mut m = M::new(&[mtpc(1, 30), mtpc(2, 31), mfpc(3, 0), mfpc(4, 7)]);
    m.set(1, 4);
    m.set(2, 5);
    m.run(4);
    assert_eq!((m.get(3), m.get(4)), (4, 5));
}

/// Count with PCCR = `pccr` for ten NOPs, then stop; return (PCR0, PCR1).
fn count_with(pccr: u32, status_ksu: u32) -> (u64, u64) {
    let mut code = vec![mtps(1)];
    code.extend([NOP; 10]);
    code.extend([mtps(0), mfpc(2, 0), mfpc(3, 1)]);
    let mut m = M::new(&code);
    m.set(1, pccr as u64);
    m.cpu.cop0.regs[cop0reg::STATUS] |= status_ksu;
    m.run(code.len());
    (m.get(2), m.get(3))
}

#[test]
fn performance_counters_count_cycles_in_enabled_modes() {
    const CTE: u32 = 1 << 31;
    const ALL0: u32 = 0xf << 1;
    const ALL1: u32 = 0xf << 11;
    const CYC0: u32 = 1 << 5;
    const CYC1: u32 = 1 << 15;
    // mtps (charged before it enables), 10 nops, mtps 0 (ticks first): 11 cycles.
    assert_eq!(count_with(CTE | ALL0 | CYC0, 0), (11, 0));
    assert_eq!(count_with(CTE | ALL1 | CYC1, 0), (0, 11));
    assert_eq!(count_with(CTE | ALL0 | CYC0 | ALL1 | CYC1, 0), (11, 11));
    assert_eq!(count_with(CTE | CYC0 | CYC1, 0), (0, 0), "no mode enabled");
    assert_eq!(count_with(ALL0 | CYC0, 0), (0, 0), "CTE clear");
    assert_eq!(count_with(CTE | ALL0 | (16 << 5), 0), (0, 0), "no event");
    // Kernel mode only counts with K0 (bit 2); EXL mode with EXL0 (bit 1).
    assert_eq!(count_with(CTE | (1 << 2) | CYC0, 0), (11, 0));
    assert_eq!(count_with(CTE | (1 << 4) | CYC0, 0), (0, 0));
    assert_eq!(count_with(CTE | (1 << 1) | CYC0, status::EXL), (11, 0));
    assert_eq!(count_with(CTE | (1 << 2) | CYC0, status::EXL), (0, 0));
}

#[test]
fn breakpoint_registers() {
    // mtiab r1 (funct 2); mfiab r2; mtdvbm r1 (funct 7); mfbpc r3 (funct 0).
    let mut m = M::new(&[
        cop0(MT0, 1, 24, 2),
        cop0(MF0, 2, 24, 2),
        cop0(MT0, 1, 24, 7),
        cop0(MF0, 3, 24, 0),
    ]);
    m.set(1, 0x1234_5678);
    m.run(4);
    assert_eq!(m.get(2), 0x1234_5678);
    assert_eq!(m.get(3), 0);
    assert_eq!(m.cpu.cop0.bpc[1], 0x1234_5678);
    assert_eq!(m.cpu.cop0.bpc[6], 0x1234_5678);
}

#[test]
fn tlb_write_read_probe() {
    let mut m = M::new(&[
        cop0(MT0, 1, 0, 0),  // Index = 5
        cop0(MT0, 2, 10, 0), // EntryHi
        cop0(MT0, 3, 2, 0),  // EntryLo0
        cop0(MT0, 4, 3, 0),  // EntryLo1
        cop0(MT0, 0, 5, 0),  // PageMask = 0
        cop0(C0, 0, 0, 2),   // tlbwi
        cop0(MT0, 0, 10, 0), // EntryHi = 0
        cop0(MT0, 0, 2, 0),  // EntryLo0 = 0
        cop0(C0, 0, 0, 1),   // tlbr
        cop0(MT0, 0, 0, 0),  // Index = 0
        cop0(C0, 0, 0, 8),   // tlbp (EntryHi restored by tlbr)
        cop0(MF0, 6, 0, 0),  // r6 = Index
        cop0(MT0, 5, 10, 0), // EntryHi = something absent
        cop0(C0, 0, 0, 8),   // tlbp
        cop0(MF0, 7, 0, 0),  // r7 = Index
    ]);
    m.set(1, 5);
    m.set(2, 0x7000_0004);
    m.set(3, 0x8000_001e);
    m.set(4, 0x0000_0017);
    m.set(5, 0x1234_6000);
    m.run(15);
    let e = m.cpu.cop0.tlb[5];
    assert_eq!(
        (e.entry_hi, e.entry_lo0, e.entry_lo1),
        (0x7000_0004, 0x8000_001e, 0x17)
    );
    assert_eq!(m.cpu.cop0.regs[cop0reg::ENTRY_LO0], 0x8000_001e);
    assert_eq!(m.get(6), 5);
    assert_eq!(m.get(7) as u32 & 0x8000_0000, 0x8000_0000);
}

#[test]
fn eret_returns_to_epc() {
    let mut m = M::new(&[cop0(C0, 0, 0, 0x18), NOP]);
    m.cpu.cop0.regs[cop0reg::EPC] = BASE + 0x40;
    m.cpu.cop0.regs[cop0reg::STATUS] |= status::EXL;
    m.run(1);
    assert_eq!(m.cpu.pc, BASE + 0x40);
    assert_eq!(m.cpu.cop0.regs[cop0reg::STATUS] & status::EXL, 0);
    // With ERL set, to ErrorEPC, clearing ERL only.
    let mut m = M::new(&[cop0(C0, 0, 0, 0x18)]);
    m.cpu.cop0.regs[cop0reg::ERROR_EPC] = BASE + 0x80;
    m.cpu.cop0.regs[cop0reg::STATUS] |= status::EXL | status::ERL;
    m.run(1);
    assert_eq!(m.cpu.pc, BASE + 0x80);
    assert_eq!(
        m.cpu.cop0.regs[cop0reg::STATUS] & (status::EXL | status::ERL),
        status::EXL
    );
}

#[test]
fn ei_di() {
    let eie = |m: &M| m.cpu.cop0.regs[cop0reg::STATUS] & status::EIE != 0;
    let mut m = M::new(&[cop0(C0, 0, 0, 0x39), cop0(C0, 0, 0, 0x38)]);
    m.run(1);
    assert!(!eie(&m));
    m.run(1);
    assert!(eie(&m));
    // In user mode without Status.EDI, DI does nothing.
    let mut m = M::new(&[cop0(C0, 0, 0, 0x39)]);
    m.cpu.cop0.regs[cop0reg::STATUS] |= 2 << 3;
    m.run(1);
    assert!(eie(&m));
    let mut m = M::new(&[cop0(C0, 0, 0, 0x39)]);
    m.cpu.cop0.regs[cop0reg::STATUS] |= (2 << 3) | status::EDI;
    m.run(1);
    assert!(!eie(&m));
}

#[test]
fn cop0_unusable_in_user_mode_without_cu0() {
    let mut m = M::new(&[cop0(MF0, 2, 12, 0)]);
    let s = &mut m.cpu.cop0.regs[cop0reg::STATUS];
    *s = (*s & !status::CU0) | (2 << 3);
    assert_eq!(m.step().unwrap_err().kind, ExceptionKind::CopUnusable);
}

#[test]
fn bc0_follows_cpcond0() {
    let taken = |word: u32, cond: bool| {
        let mut m = M::new(&[
            word,
            imm(0x09, 3, 3, 1),
            imm(0x09, 4, 4, 1),
            imm(0x09, 5, 5, 1),
        ]);
        m.cpu.cop0.cpcond0 = cond;
        while m.cpu.pc != BASE + 16 {
            m.run(1);
        }
        (m.get(3), m.get(4), m.get(5))
    };
    assert_eq!(taken(bc0(1, 2), true), (1, 0, 1)); // bc0t taken
    assert_eq!(taken(bc0(1, 2), false), (1, 1, 1));
    assert_eq!(taken(bc0(0, 2), false), (1, 0, 1)); // bc0f taken
    assert_eq!(taken(bc0(3, 2), false), (0, 1, 1)); // bc0tl not taken: slot skipped
    assert_eq!(taken(bc0(2, 2), true), (0, 1, 1)); // bc0fl not taken
    assert_eq!(taken(bc0(2, 2), false), (1, 0, 1));
    assert!(M::new(&[]).cpu.cop0.cpcond0, "defaults to true");
}

#[test]
fn cause_random_and_wired() {
    // Only Cause bits 8-9 are writable; IP2 (bit 10) set by the hardware stays.
    let m = exec1(cop0(MT0, 1, 13, 0), |m| {
        m.set(1, 0xffff_ffff);
        m.cpu.set_interrupt_line(2, true);
    });
    assert_eq!(m.cpu.cop0.regs[cop0reg::CAUSE], 0x700);
    // Random stays within Wired..=47 and takes every value in it.
    for wired in [0u32, 10, 47] {
        let mut m = exec1(cop0(MT0, 1, 6, 0), |m| m.set(1, wired as u64));
        assert_eq!(m.cpu.cop0.regs[cop0reg::WIRED], wired);
        let mut seen = std::collections::BTreeSet::new();
        for c in 0..200 {
            m.cpu.cycles = c;
            seen.insert(piney_ee::interp::cop0::read_cop0(&m.cpu, cop0reg::RANDOM));
        }
        assert_eq!(
            seen.into_iter().collect::<Vec<_>>(),
            (wired..=47).collect::<Vec<_>>()
        );
    }
}
