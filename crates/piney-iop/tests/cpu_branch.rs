//! Branches and jumps: conditions, the delay slot, links written before the delay slot, JALR's
//! operand order, REGIMM's decoding, a branch in a delay slot, misaligned targets.

#[path = "cpu_harness.rs"]
mod harness;

use harness::*;
use piney_iop::cpu::ExceptionKind;

/// Run `setup`, then `branch(4)` (to the "taken" label) with `ori $s1, $0, 1` in its delay slot.
/// Returns the machine: `$s0` is 2 when taken, 1 when not; `$s1` is 1 (the slot ran).
fn branch_case(setup: &[u32], branch: impl Fn(i32) -> u32) -> Machine {
    let mut p = setup.to_vec();
    p.extend_from_slice(&[
        branch(4),
        ori(S1, ZERO, 1),
        ori(S0, ZERO, 1),
        beq(ZERO, ZERO, 2),
        nop(),
        ori(S0, ZERO, 2),
    ]);
    let m = run(&p);
    assert_eq!(m.r(S1), 1, "the delay slot always runs");
    m
}

fn taken(setup: &[u32], branch: impl Fn(i32) -> u32) -> bool {
    match branch_case(setup, branch).r(S0) {
        1 => false,
        2 => true,
        v => panic!("s0 = {v}"),
    }
}

#[test]
fn conditional_branches() {
    let neg = li(T0, 0xffff_fff0);
    let pos = li(T0, 5);
    let zero = li(T0, 0);
    assert!(taken(&zero, |o| beq(T0, ZERO, o)));
    assert!(!taken(&pos, |o| beq(T0, ZERO, o)));
    assert!(taken(&pos, |o| bne(T0, ZERO, o)));
    assert!(!taken(&zero, |o| bne(T0, ZERO, o)));
    for (setup, lez, gtz, ltz, gez) in [
        (&neg, true, false, true, false),
        (&zero, true, false, false, true),
        (&pos, false, true, false, true),
    ] {
        assert_eq!(taken(setup, |o| blez(T0, o)), lez);
        assert_eq!(taken(setup, |o| bgtz(T0, o)), gtz);
        assert_eq!(taken(setup, |o| bltz(T0, o)), ltz);
        assert_eq!(taken(setup, |o| bgez(T0, o)), gez);
        assert_eq!(taken(setup, |o| bltzal(T0, o)), ltz);
        assert_eq!(taken(setup, |o| bgezal(T0, o)), gez);
    }
}

#[test]
fn backward_branch() {
    // t0 = 3; loop: addiu t0, t0, -1; bne t0, zero, loop; addiu t1, t1, 1 (slot)
    let p = [
        ori(T0, ZERO, 3),
        addiu(T0, T0, -1),
        bne(T0, ZERO, -2),
        addiu(T1, T1, 1),
    ];
    let m = run(&p);
    assert_eq!((m.r(T0), m.r(T1)), (0, 3));
}

#[test]
fn link_and_compare_of_bltzal_bgezal() {
    // Linking whether taken or not: ra = the branch + 8.
    let setup = li(T0, 5);
    let m = branch_case(&setup, |o| bltzal(T0, o));
    assert_eq!(m.r(S0), 1, "not taken");
    assert_eq!(m.r(RA), BASE + 2 * 4 + 8, "linked anyway");
    // rs = ra: the compare uses ra from before the link (ra = -1: taken).
    let setup = li(RA, 0xffff_ffff);
    let m = branch_case(&setup, |o| bltzal(RA, o));
    assert_eq!(m.r(S0), 2);
}

#[test]
fn regimm_decodes_every_rt_by_bit_16_and_bits_17_20() {
    let neg = li(T0, 0x8000_0000);
    // rt 0x02 is BLTZ, 0x03 BGEZ, 0x12 BLTZ without link, 0x13 BGEZ without link.
    for (code, want, links) in [
        (0x02, true, false),
        (0x03, false, false),
        (0x12, true, false),
        (0x13, false, false),
        (0x10, true, true),
        (0x11, false, true),
    ] {
        let m = branch_case(&neg, |o| regimm(code, T0, o));
        assert_eq!(m.r(S0) == 2, want, "rt {code:#x}");
        assert_eq!(m.r(RA) != 0, links, "rt {code:#x} links");
    }
}

#[test]
fn jumps() {
    // j over one word; jr; the delay slots run.
    let p = [
        j(BASE + 12),
        ori(S1, ZERO, 1),
        ori(S0, ZERO, 9),
        lui(T0, 0),
        ori(T0, T0, (BASE + 32) & 0xffff),
        jr(T0),
        ori(S2, ZERO, 1),
        ori(S0, ZERO, 9),
    ];
    let m = run(&p);
    assert_eq!((m.r(S0), m.r(S1), m.r(S2)), (0, 1, 1));
}

const S2: usize = 18;

#[test]
fn jal_writes_ra_before_the_delay_slot() {
    // ps2autotests branchdelay "jal: ra order: 00000002".
    let p = [
        jal(BASE + 16),
        ori(RA, ZERO, 2),
        ori(S0, ZERO, 1),
        nop(),
        or(S0, RA, ZERO),
    ];
    let m = run(&p);
    assert_eq!(m.r(S0), 2);
    // Without the slot write, ra = jal + 8.
    let m = run(&[jal(BASE + 12), nop(), nop(), or(S0, RA, ZERO)]);
    assert_eq!(m.r(S0), BASE + 8);
}

/// `la $t0, target; <jalr>; <slot>` then "target1: li s0, 1" and "target2: ..." like the
/// ps2autotests branchdelay JALR cases. Target 2 is at word 6.
fn jalr_case(jalr_word: u32, slot: u32, at_target2: u32) -> Machine {
    let target2 = BASE + 6 * 4;
    let p = [
        lui(T0, target2 >> 16),
        ori(T0, T0, target2 & 0xffff),
        jalr_word,
        slot,
        ori(S0, ZERO, 1),
        beq(ZERO, ZERO, 1),
        at_target2,
        nop(),
    ];
    let mut m = Machine::new(&p);
    m.run();
    m
}

#[test]
fn jalr_operand_order() {
    // "jalr: ra order: 2": the link is written before the delay slot.
    let m = jalr_case(jalr(RA, T0), ori(RA, ZERO, 2), or(S0, RA, ZERO));
    assert_eq!(m.r(S0), 2);
    // "jalr: non-ra order: 1": a delay-slot write to rd wins over the link.
    let m = jalr_case(jalr(T3, T0), ori(T3, ZERO, 1), nop());
    assert_eq!(m.r(T3), 1);
    // A non-ra link register gets the return address.
    let m = jalr_case(jalr(T3, T0), nop(), nop());
    assert_eq!(m.r(T3), BASE + 2 * 4 + 8);
    // "jalr: rs/rd match: 2": rs is read before rd is written.
    let m = jalr_case(jalr(T0, T0), nop(), ori(S0, ZERO, 2));
    assert_eq!(m.r(S0), 2);
    assert_eq!(m.r(T0), BASE + 2 * 4 + 8);
    // "jalr: clobber rs: 2": overwriting rs in the slot does not move the jump.
    let m = jalr_case(jalr(RA, T0), ori(T0, ZERO, 5), ori(S0, ZERO, 2));
    assert_eq!(m.r(S0), 2);
}

#[test]
fn the_delay_slot_is_flagged() {
    let mut m = Machine::new(&[beq(T0, T1, 10), nop(), nop()]);
    m.cpu.gpr[T1] = 1; // not taken: the next instruction is still a delay slot
    m.steps(1);
    assert!(m.cpu.in_delay);
    assert_eq!((m.cpu.pc, m.cpu.next_pc), (BASE + 4, BASE + 8));
    m.steps(1);
    assert!(!m.cpu.in_delay);
    let mut m = Machine::new(&[beq(T0, T0, 10), nop()]);
    m.steps(1);
    assert!(m.cpu.in_delay);
    assert_eq!((m.cpu.pc, m.cpu.next_pc), (BASE + 4, BASE + 4 + 40));
}

#[test]
fn a_branch_in_a_delay_slot_runs_one_instruction_at_the_first_target() {
    // ps2autotests branchdelay test_beq: a chain of taken BEQs ends at the second target.
    // beq T1; beq T2; ...; T1: li s0, 1; j skip; T2: li s0, 2; j skip; ...
    let mut p = vec![];
    // Words 0..5: six BEQs to targets 1..6, then a nop.
    let target = |k: u32| BASE + 4 * (7 + 3 * (k - 1));
    for k in 1..=6u32 {
        let at = BASE + 4 * (k - 1);
        p.push(beq(ZERO, ZERO, off(at, target(k))));
    }
    p.push(nop());
    let skip = target(7);
    for k in 1..=6u32 {
        p.extend_from_slice(&[ori(S0, ZERO, k), j(skip), nop()]);
    }
    let mut m = Machine::new(&p);
    m.end = skip;
    m.run();
    assert_eq!(m.r(S0), 2);
}

#[test]
fn jumping_to_a_misaligned_address_faults_at_the_fetch() {
    let bad = BASE + 0x102;
    let p = [
        lui(T0, bad >> 16),
        ori(T0, T0, bad & 0xffff),
        jr(T0),
        ori(S0, ZERO, 1),
    ];
    let mut m = Machine::new(&p);
    let e = m.run_to_exception();
    assert_eq!(m.r(S0), 1, "the delay slot ran");
    assert_eq!(
        (e.kind, e.pc, e.addr, e.in_delay),
        (ExceptionKind::AddressLoad, bad, bad, false)
    );
    m.cpu.enter_exception(&e);
    assert_eq!((m.cpu.cop0.epc, m.cpu.cop0.bad_vaddr), (bad, bad));
}
