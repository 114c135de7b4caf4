//! COP0 and exceptions: MFC0's delay, MTC0's masks, RFE, the exception entry (EPC, BD/BT,
//! JUMPDEST, the SR stack, the vectors), interrupts, user mode, the absent coprocessors, and
//! `step`/`run` leaving a faulting instruction without effect.

#[path = "cpu_harness.rs"]
mod harness;

use harness::*;
use piney_iop::cpu::{
    Cpu, EXCEPTION_VECTOR, EXCEPTION_VECTOR_BEV, Exception, ExceptionKind, IOP_PRID, RunExit,
    cause, cop0reg, run as run_cpu, sr,
};

#[test]
fn mfc0_has_a_load_delay() {
    let p = [mfc0(T0, cop0reg::PRID), or(S0, ZERO, T0), or(S1, ZERO, T0)];
    let m = run(&p);
    assert_eq!((m.r(S0), m.r(S1)), (0, IOP_PRID));
}

#[test]
fn mtc0_writes_what_each_register_takes() {
    let p = prog(&[
        &li(T0, 0xffff_ffff),
        &[
            mtc0(T0, cop0reg::CAUSE),
            mtc0(T0, cop0reg::EPC),
            mtc0(T0, cop0reg::PRID),
            mtc0(T0, cop0reg::BAD_VADDR),
            mtc0(T0, cop0reg::BPC),
            mtc0(T0, cop0reg::BDAM),
        ],
        &li(T1, !sr::KUC),
        &[mtc0(T1, cop0reg::SR), nop()],
    ]);
    let m = run(&p);
    let c = &m.cpu.cop0;
    assert_eq!(c.cause, cause::SW, "only bits 8-9");
    assert_eq!((c.epc, c.prid, c.bad_vaddr), (0, IOP_PRID, 0), "read-only");
    assert_eq!((c.bpc, c.bdam), (0xffff_ffff, 0xffff_ffff));
    assert_eq!(c.sr, sr::WRITABLE & !sr::KUC);
    assert_eq!(c.sr & (sr::CM | sr::PE | sr::TS), 0);
}

#[test]
fn missing_cop0_registers() {
    for reg in [0, 1, 2, 4, 10] {
        let mut m = Machine::new(&[mfc0(T0, reg)]);
        let e = m.step().unwrap_err();
        assert_eq!(e.kind, ExceptionKind::Reserved, "cop0 r{reg}");
    }
    // 16..31 read as 0 (garbage on hardware), without an exception.
    let m = run(&[mfc0(T0, 20), nop()]);
    assert_eq!(m.r(T0), 0);
    // CFC0, CTC0 and the TLB operations are reserved.
    for w in [
        0x4040_0000u32,
        0x40c0_0000,
        0x4200_0001,
        0x4200_0002,
        0x4200_0006,
        0x4200_0008,
    ] {
        let mut m = Machine::new(&[w]);
        assert_eq!(
            m.step().unwrap_err().kind,
            ExceptionKind::Reserved,
            "{w:#010x}"
        );
    }
}

#[test]
fn rfe_pops_the_mode_stack() {
    let mut m = Machine::new(&[rfe()]);
    // KUo IEo KUp IEp KUc IEc = 1 0 0 1 0 0
    m.cpu.cop0.sr = sr::BEV | 0b10_01_00;
    m.run();
    assert_eq!(
        m.cpu.cop0.sr,
        sr::BEV | 0b10_10_01,
        "bits 0-3 take 2-5, bits 4-5 stay"
    );
}

fn syscall_entry(sr_bits: u32) -> Machine {
    let mut m = Machine::new(&[nop(), syscall(0x123)]);
    m.cpu.cop0.sr = sr_bits;
    m.cpu.cop0.cause = cause::IP_INTC; // pending bits survive the entry
    m.steps(1);
    let e = m.step().unwrap_err();
    assert_eq!(
        (e.kind, e.pc, e.word, e.in_delay),
        (ExceptionKind::Syscall, BASE + 4, syscall(0x123), false)
    );
    m.cpu.enter_exception(&e);
    m
}

#[test]
fn exception_entry_with_and_without_bev() {
    let m = syscall_entry(sr::BEV | sr::IEC | sr::KUP);
    let c = &m.cpu.cop0;
    assert_eq!(c.epc, BASE + 4);
    assert_eq!(c.cause, cause::IP_INTC | (8 << 2));
    assert_eq!(
        c.sr,
        sr::BEV | ((sr::IEC | sr::KUP) << 2),
        "stack pushed: kernel, interrupts off"
    );
    assert_eq!(
        (m.cpu.pc, m.cpu.next_pc, m.cpu.in_delay),
        (EXCEPTION_VECTOR_BEV, EXCEPTION_VECTOR_BEV + 4, false)
    );
    let m = syscall_entry(sr::IEC);
    assert_eq!(m.cpu.pc, EXCEPTION_VECTOR);
    assert_eq!(EXCEPTION_VECTOR, 0x8000_0080);
    assert_eq!(EXCEPTION_VECTOR_BEV, 0xbfc0_0180);
}

#[test]
fn exception_in_a_delay_slot_points_at_the_branch() {
    // Taken: BD, BT and JUMPDEST = the branch target.
    let mut m = Machine::new(&[beq(ZERO, ZERO, 7), brk(5)]);
    m.steps(1);
    let e = m.step().unwrap_err();
    assert_eq!(
        (e.kind, e.pc, e.in_delay),
        (ExceptionKind::Break, BASE + 4, true)
    );
    m.cpu.enter_exception(&e);
    let c = &m.cpu.cop0;
    assert_eq!(c.epc, BASE);
    assert_eq!(c.cause & (cause::BD | cause::BT), cause::BD | cause::BT);
    assert_eq!((c.cause >> 2) & 0x1f, 9);
    assert_eq!(c.jumpdest, BASE + 4 + 7 * 4);
    // Not taken: BD only.
    let mut m = Machine::new(&[bne(ZERO, ZERO, 7), syscall(0)]);
    m.steps(1);
    let e = m.step().unwrap_err();
    m.cpu.enter_exception(&e);
    assert_eq!(m.cpu.cop0.cause & (cause::BD | cause::BT), cause::BD);
    assert_eq!(m.cpu.cop0.epc, BASE);
}

#[test]
fn a_handler_round_trip() {
    // A syscall, serviced by a handler at 0x8000_0080 that returns to EPC + 4 with jr k0; rfe.
    let mut m = Machine::new(&[ori(T0, ZERO, 1), syscall(0), ori(T1, ZERO, 2), nop()]);
    m.load(
        EXCEPTION_VECTOR,
        &[
            mfc0(K0, cop0reg::EPC),
            mfc0(T2, cop0reg::CAUSE),
            addiu(K0, K0, 4),
            jr(K0),
            rfe(),
        ],
    );
    m.end = BASE + 16;
    m.cpu.cop0.sr = sr::IEC | sr::IM;
    for _ in 0..20 {
        if m.cpu.pc == m.end {
            break;
        }
        if let Err(e) = m.step() {
            m.cpu.enter_exception(&e);
        }
    }
    assert_eq!(m.cpu.pc, m.end);
    assert_eq!((m.r(T0), m.r(T1)), (1, 2));
    assert_eq!((m.r(T2) >> 2) & 0x1f, 8);
    assert_eq!(m.cpu.cop0.sr, sr::IEC | sr::IM, "RFE restored the mode");
}

#[test]
fn coprocessor_unusable() {
    // COP2, LWC2, SWC2 with CU2 clear: CpU with CE = 2.
    for w in [0x4a18_0001u32, 0xc880_0000, 0xe880_0000] {
        let mut m = Machine::new(&[w]);
        let e = m.step().unwrap_err();
        assert_eq!(
            (e.kind, e.cop),
            (ExceptionKind::CopUnusable, 2),
            "{w:#010x}"
        );
        m.cpu.enter_exception(&e);
        assert_eq!(m.cpu.cop0.cause & cause::CE, 2 << 28);
        assert_eq!((m.cpu.cop0.cause >> 2) & 0x1f, 11);
        // With CU2 set: no GTE here, reserved instruction.
        let mut m = Machine::new(&[w]);
        m.cpu.cop0.sr |= sr::CU2;
        assert_eq!(m.step().unwrap_err().kind, ExceptionKind::Reserved);
    }
    // LWC0, SWC0, BC0F, BC0T: CpU (CE = 0) even in kernel mode.
    for w in [0xc000_0000u32, 0xe000_0000, 0x4100_0000, 0x4101_0000] {
        let mut m = Machine::new(&[w]);
        let e = m.step().unwrap_err();
        assert_eq!(
            (e.kind, e.cop),
            (ExceptionKind::CopUnusable, 0),
            "{w:#010x}"
        );
    }
    // COP1, COP3 and their loads/stores: no coprocessor answers; no effect.
    let m = run(&[
        0x4400_0000,
        0x4c00_0000,
        0xc400_0000,
        0xcc00_0000,
        0xe400_0000,
        0xec00_0000,
    ]);
    assert_eq!(m.cpu.pc, m.end);
}

#[test]
fn user_mode() {
    let user = sr::KUC;
    // COP0 without CU0: CpU; with it: allowed.
    for w in [
        mfc0(T0, cop0reg::SR),
        mtc0(T0, cop0reg::SR),
        rfe(),
        0x4200_0001,
    ] {
        let mut m = Machine::new(&[w]);
        m.cpu.cop0.sr = user;
        let e = m.step().unwrap_err();
        assert_eq!(
            (e.kind, e.cop),
            (ExceptionKind::CopUnusable, 0),
            "{w:#010x}"
        );
    }
    let mut m = Machine::new(&[mfc0(T0, cop0reg::SR), nop()]);
    m.cpu.cop0.sr = user | sr::CU0;
    m.run();
    assert_eq!(m.r(T0), user | sr::CU0);
    // The garbage registers need no CU0.
    let mut m = Machine::new(&[mfc0(T0, 17)]);
    m.cpu.cop0.sr = user;
    m.run();
    // Accesses outside kuseg are address errors.
    let mut m = Machine::new(&[lw(T0, 0, A0)]);
    m.cpu.cop0.sr = user;
    m.cpu.gpr[A0] = 0x8000_0000 | DATA;
    let e = m.step().unwrap_err();
    assert_eq!(
        (e.kind, e.addr),
        (ExceptionKind::AddressLoad, 0x8000_0000 | DATA)
    );
    let mut m = Machine::new(&[sb(T0, 0, A0)]);
    m.cpu.cop0.sr = user;
    m.cpu.gpr[A0] = 0xa000_0000 | DATA;
    assert_eq!(m.step().unwrap_err().kind, ExceptionKind::AddressStore);
    // And so is fetching there.
    let mut m = Machine::new(&[]);
    m.load(0x8000_0000 | BASE, &[nop()]);
    m.cpu.set_pc(0x8000_0000 | BASE);
    m.cpu.cop0.sr = user;
    let e = m.step().unwrap_err();
    assert_eq!(
        (e.kind, e.addr),
        (ExceptionKind::AddressLoad, 0x8000_0000 | BASE)
    );
}

#[test]
fn reserved_and_break_and_syscall_codes() {
    for (w, kind) in [
        (0x7000_0000u32, ExceptionKind::Reserved),
        (0x0000_003f, ExceptionKind::Reserved),
        (syscall(0x42), ExceptionKind::Syscall),
        (brk(0x7 << 10), ExceptionKind::Break),
    ] {
        let mut m = Machine::new(&[w]);
        let e = m.step().unwrap_err();
        assert_eq!((e.kind, e.word, e.pc), (kind, w, BASE));
        m.cpu.enter_exception(&e);
        assert_eq!((m.cpu.cop0.cause >> 2) & 0x1f, kind.code());
    }
    let mut m = Machine::new(&[0x7000_0000]);
    let e = m.step().unwrap_err();
    assert_eq!(
        e.to_string(),
        "reserved instruction 0x70000000 at pc 0x00001000"
    );
}

/// Step the faulting instruction at `pc` and check the CPU is as before it (bar the clock).
fn faults_without_trace(m: &mut Machine) -> Exception {
    let before = m.cpu.clone();
    let e = m.step().unwrap_err();
    let mut after = m.cpu.clone();
    after.cycles = before.cycles;
    after.cur_pc = before.cur_pc;
    assert_eq!(after, before);
    e
}

#[test]
fn a_faulting_instruction_leaves_no_trace() {
    // A load in flight, then a faulting load to the same register: the first is still in
    // flight, nothing else moved.
    let p = [lw(T0, 0, A0), lw(T0, 2, A0), nop()];
    let mut m = Machine::new(&p);
    m.cpu.gpr[A0] = DATA;
    m.ram.set_word(DATA, 0x1234);
    m.steps(1);
    let e = faults_without_trace(&mut m);
    assert_eq!(e.kind, ExceptionKind::AddressLoad);
    assert_eq!((m.cpu.load.reg as usize, m.cpu.load.value), (T0, 0x1234));
    // A faulting store in a taken branch's delay slot: pc, next_pc (the target), in_delay kept.
    let p = [beq(ZERO, ZERO, 4), sw(T1, 1, A0), nop()];
    let mut m = Machine::new(&p);
    m.cpu.gpr[A0] = DATA;
    m.steps(1);
    let e = faults_without_trace(&mut m);
    assert_eq!((e.kind, e.in_delay), (ExceptionKind::AddressStore, true));
    assert_eq!((m.cpu.pc, m.cpu.next_pc), (BASE + 4, BASE + 4 + 16));
    // The caller may skip it natively: continue where the hardware would have.
    let to = m.cpu.next_pc;
    m.cpu.set_pc(to);
    assert_eq!((m.cpu.pc, m.cpu.in_delay), (BASE + 20, false));
}

#[test]
fn the_interrupt_line() {
    let mut c = Cpu::new();
    c.set_pc(BASE);
    c.cop0.sr = sr::IEC | cause::IP_INTC; // IM bit 10
    assert!(!c.interrupt_pending());
    c.set_interrupt_line(true);
    assert_eq!(c.cop0.cause & cause::IP_INTC, cause::IP_INTC);
    assert!(c.interrupt_pending());
    // Masked by IEc or IM.
    c.cop0.sr = cause::IP_INTC;
    assert!(!c.interrupt_pending());
    c.cop0.sr = sr::IEC;
    assert!(!c.interrupt_pending());
    c.cop0.sr = sr::IEC | cause::IP_INTC;
    assert!(c.take_interrupt());
    assert_eq!(c.cop0.epc, BASE);
    assert_eq!((c.cop0.cause >> 2) & 0x1f, 0);
    assert_eq!(c.cop0.sr & sr::MODE_STACK, sr::IEP, "interrupts now off");
    assert!(!c.interrupt_pending());
    assert!(!c.take_interrupt());
    c.set_interrupt_line(false);
    assert_eq!(c.cop0.cause & cause::IP, 0);
}

#[test]
fn software_interrupts_and_interrupts_in_delay_slots() {
    // MTC0 to CAUSE bit 8 with IM bit 8 and IEc: pending.
    let p = prog(&[&li(T0, 1 << 8), &[mtc0(T0, cop0reg::CAUSE), nop()]]);
    let mut m = run(&p);
    m.cpu.cop0.sr = sr::IEC | (1 << 8);
    assert!(m.cpu.interrupt_pending());
    // An interrupt before a delay slot instruction: EPC = the branch, BD.
    let mut m = Machine::new(&[beq(ZERO, ZERO, 3), nop()]);
    m.steps(1);
    m.cpu.cop0.sr = sr::IEC | sr::IM;
    m.cpu.set_interrupt_line(true);
    assert!(m.cpu.take_interrupt());
    assert_eq!(m.cpu.cop0.epc, BASE);
    assert_eq!(m.cpu.cop0.cause & cause::BD, cause::BD);
}

#[test]
fn run_stops_at_a_cycle_a_predicate_or_an_exception() {
    let mut m = Machine::new(&[nop(), nop(), nop(), nop(), syscall(0)]);
    let r = run_cpu(&mut m.cpu, &mut m.ram, 2, |_| false);
    assert_eq!(
        (r, m.cpu.pc, m.cpu.cycles),
        (Ok(RunExit::Cycles), BASE + 8, 2)
    );
    let r = run_cpu(&mut m.cpu, &mut m.ram, 100, |pc| pc == BASE + 12);
    assert_eq!((r, m.cpu.pc), (Ok(RunExit::Stop), BASE + 12));
    let r = run_cpu(&mut m.cpu, &mut m.ram, 100, |_| false);
    let e: Exception = r.unwrap_err();
    assert_eq!(
        (e.kind, e.pc, m.cpu.pc),
        (ExceptionKind::Syscall, BASE + 16, BASE + 16)
    );
    // A pending interrupt is taken first.
    let mut m = Machine::new(&[nop(), nop()]);
    m.cpu.cop0.sr = sr::IEC | sr::IM; // BEV clear: vector in RAM
    m.load(EXCEPTION_VECTOR, &[nop(), nop()]);
    m.cpu.set_interrupt_line(true);
    let r = run_cpu(&mut m.cpu, &mut m.ram, 1, |_| false);
    assert_eq!(
        (r, m.cpu.pc, m.cpu.cop0.epc),
        (Ok(RunExit::Cycles), EXCEPTION_VECTOR + 4, BASE)
    );
}
