//! Self-modifying code: stores into compiled code, and writes reported from outside the core.

use piney_ee::Cpu;
use piney_ee::bus::FlatBus;
use piney_jit::{Jit, interp_run};

mod common;
use common::{CODE, addiu, assert_every_patch_ran, load, self_patching_loop, twin};

/// A recompiler that compiles every block at its first visit: these tests are about compiled
/// code going stale, so the blocks must be compiled before they are rewritten.
fn hot_jit() -> Jit {
    let mut jit = Jit::new().unwrap();
    jit.set_hot_threshold(0);
    jit
}

/// A loop whose first iteration rewrites an instruction of its own block:
/// ```text
///   lui   $3, 0            ; $3 = address of PATCH
///   ori   $3, $3, PATCH
///   lui   $4, hi(addiu $2, $2, 5)
///   ori   $4, $4, lo(...)
///   ori   $29, $0, 3
/// L: sw    $4, 0($3)
/// PATCH: addiu $2, $2, 1   ; becomes addiu $2, $2, 5 before it first runs
///   addiu $29, $29, -1
///   bne   $29, $0, L
///   nop
///   syscall
/// ```
fn smc_program() -> Vec<u32> {
    let patch = CODE + 6 * 4;
    let new = addiu(2, 2, 5);
    vec![
        0x3c03_0000 | (patch >> 16),
        0x3463_0000 | (patch & 0xffff),
        0x3c04_0000 | (new >> 16),
        0x3484_0000 | (new & 0xffff),
        0x341d_0003,
        0xac64_0000, // L: sw $4, 0($3)
        addiu(2, 2, 1),
        addiu(29, 29, 0xffff),
        0x17a0_fffc, // bne $29, $0, L
        0,
        0x0000_000c,
    ]
}

#[test]
fn store_into_the_running_block() {
    let (mut ci, mut bi) = load(&smc_program());
    let (mut cj, mut bj) = twin(&ci, &bi);
    let ri = interp_run(&mut ci, &mut bi, 10_000);
    let mut jit = hot_jit();
    // The first block holds both the store and PATCH: it must stop after the store and the
    // rewritten word must run.
    let rj = loop {
        match jit.run(&mut cj, &mut bj, 10_000) {
            Ok(()) if cj.cycles < 10_000 => continue,
            r => break r,
        }
    };
    assert_eq!(ri, rj);
    assert_eq!(
        ci.gpr[2] as u64, 15,
        "three iterations of the rewritten addiu"
    );
    assert_eq!(ci, cj);
    assert_eq!(bi.mem, bj.mem);
    assert!(jit.stats().blocks_invalidated > 0, "{:?}", jit.stats());
}

/// Below the hot threshold a block runs interpreted from the words its first visit read, a
/// loop's passes in one visit: each word is compared with memory before it runs, so that a
/// loop writing a new word into itself at every pass runs each new word, as the interpreter
/// does.
#[test]
fn a_cold_loop_runs_the_words_it_writes_into_itself() {
    let (mut ci, mut bi) = self_patching_loop();
    let (mut cj, mut bj) = twin(&ci, &bi);
    let ri = interp_run(&mut ci, &mut bi, 20_000);
    let mut jit = Jit::new().unwrap();
    jit.set_hot_threshold(u32::MAX);
    let rj = loop {
        match jit.run(&mut cj, &mut bj, 20_000) {
            Ok(()) if cj.cycles < 20_000 => continue,
            r => break r,
        }
    };
    assert_eq!(ri, rj);
    assert_every_patch_ran((&ci, &bi), (&cj, &bj));
    let s = jit.stats();
    assert_eq!(s.blocks_compiled, 0, "{s:?}");
    assert!(s.interp_steps >= 250, "{s:?}");
}

#[test]
fn stale_block_is_dropped_after_a_loop_rewrites_it() {
    // Run the loop body as compiled code for a while, then rewrite it from guest code in a
    // later block: the next pass must run the new instruction.
    //   ori $29, $0, 4
    // L: addiu $2, $2, 1      (rewritten to addiu $2, $2, 100 on the third pass)
    //   addiu $29, $29, -1
    //   bne $29, $1, skip      ($1 = 2: on the pass where $29 becomes 2, fall through to the store)
    //   nop
    //   sw $4, 0($3)
    // skip: bne $29, $0, L
    //   nop
    //   syscall
    let l = CODE + 4;
    let new = addiu(2, 2, 100);
    let prog = vec![
        0x341d_0004,
        addiu(2, 2, 1),
        addiu(29, 29, 0xffff),
        0x17a1_0002, // bne $29, $1, +2 (skip)
        0,
        0xac64_0000,
        0x17a0_fffa, // bne $29, $0, L
        0,
        0x0000_000c,
    ];
    let (mut ci, mut bi) = load(&prog);
    ci.gpr[1] = 2;
    ci.gpr[3] = l as u128;
    ci.gpr[4] = new as u128;
    let (mut cj, mut bj) = twin(&ci, &bi);
    let ri = interp_run(&mut ci, &mut bi, 10_000);
    let mut jit = hot_jit();
    let rj = loop {
        match jit.run(&mut cj, &mut bj, 10_000) {
            Ok(()) if cj.cycles < 10_000 => continue,
            r => break r,
        }
    };
    // Passes: +1, +1 (then the store), +100, +100.
    assert_eq!(ci.gpr[2] as u64, 202);
    assert_eq!(ri, rj);
    assert_eq!(ci, cj);
    assert!(jit.stats().blocks_invalidated > 0);
}

#[test]
fn invalidate_range_reports_outside_writes() {
    // addiu $2, $2, 1; syscall — run it, patch it from the host (as DMA or a loader would), report
    // the write, run again from the start.
    let (mut cpu, mut bus) = load(&[addiu(2, 2, 1), 0x0000_000c]);
    let mut jit = hot_jit();
    let e = jit.run(&mut cpu, &mut bus, 1000).unwrap_err();
    assert_eq!(e.kind, piney_ee::ExceptionKind::Syscall);
    assert_eq!(cpu.gpr[2], 1);
    let w = addiu(2, 2, 7).to_le_bytes();
    bus.mem[CODE as usize..CODE as usize + 4].copy_from_slice(&w);
    // Without the report the stale block would run again (the host write bypassed the core).
    jit.invalidate_range(0x8000_0000 | CODE, 4); // through kseg0: the same physical bytes
    cpu.cop0.regs[piney_ee::cpu::cop0reg::STATUS] &= !piney_ee::cpu::status::EXL;
    cpu.jump_to(CODE);
    jit.run(&mut cpu, &mut bus, 2000).unwrap_err();
    assert_eq!(cpu.gpr[2], 8);
    // And FlushCache's invalidate_all.
    bus.mem[CODE as usize..CODE as usize + 4].copy_from_slice(&addiu(2, 2, 2).to_le_bytes());
    jit.invalidate_all();
    cpu.cop0.regs[piney_ee::cpu::cop0reg::STATUS] &= !piney_ee::cpu::status::EXL;
    cpu.jump_to(CODE);
    jit.run(&mut cpu, &mut bus, 3000).unwrap_err();
    assert_eq!(cpu.gpr[2], 10);
}

/// A block goes on through an unconditional jump (a trace): `j FAR; addiu $2, $2, 1` at
/// CODE, and at FAR (0x800 bytes on, other pages) `addiu $2, $2, 10; syscall`. Writes into
/// the far part, reported from outside or stored by the guest, drop the block that holds it,
/// though its start is elsewhere.
#[test]
fn a_block_through_a_jump_is_dropped_by_writes_into_its_far_part() {
    const FAR: u32 = CODE + 0x800;
    let j_far = 0x0800_0000 | (FAR >> 2);
    let mut prog = vec![0u32; (FAR - CODE) as usize / 4 + 2];
    prog[0] = j_far;
    prog[1] = addiu(2, 2, 1);
    prog[(FAR - CODE) as usize / 4] = addiu(2, 2, 10);
    prog[(FAR - CODE) as usize / 4 + 1] = 0x0000_000c;
    let (mut cpu, mut bus) = load(&prog);
    let mut jit = hot_jit();
    let e = jit.run(&mut cpu, &mut bus, 1000).unwrap_err();
    assert_eq!(e.kind, piney_ee::ExceptionKind::Syscall);
    assert_eq!(cpu.gpr[2], 11);
    // One block from CODE through FAR, so that the tests below test what they mean to.
    assert_eq!(jit.stats().blocks_compiled, 1, "{:?}", jit.stats());
    assert_eq!(jit.stats().compiled_instructions, 4, "{:?}", jit.stats());
    let again = |jit: &mut Jit, cpu: &mut Cpu, bus: &mut FlatBus| {
        cpu.cop0.regs[piney_ee::cpu::cop0reg::STATUS] &= !piney_ee::cpu::status::EXL;
        cpu.gpr[2] = 0;
        cpu.jump_to(CODE);
        let t = cpu.cycles + 1000;
        let e = jit.run(cpu, bus, t).unwrap_err();
        assert_eq!(e.kind, piney_ee::ExceptionKind::Syscall);
        cpu.gpr[2] as u64
    };
    assert_eq!(again(&mut jit, &mut cpu, &mut bus), 11);
    // From outside (DMA, a loader), reported.
    let at = FAR as usize;
    bus.mem[at..at + 4].copy_from_slice(&addiu(2, 2, 20).to_le_bytes());
    jit.invalidate_range(FAR, 4);
    assert_eq!(again(&mut jit, &mut cpu, &mut bus), 21);
    // By the guest: `sw $4, 0($3)` run from elsewhere (interpreted at its first visit, then
    // compiled: either way a store the core makes into the far part).
    let store_at = CODE + 0x400;
    bus.mem[store_at as usize..store_at as usize + 8]
        .copy_from_slice(&[0xac64_0000u32.to_le_bytes(), 0x0000_000cu32.to_le_bytes()].concat());
    cpu.gpr[3] = FAR as u128;
    cpu.gpr[4] = addiu(2, 2, 30) as u128;
    cpu.cop0.regs[piney_ee::cpu::cop0reg::STATUS] &= !piney_ee::cpu::status::EXL;
    cpu.jump_to(store_at);
    let t = cpu.cycles + 1000;
    let e = jit.run(&mut cpu, &mut bus, t).unwrap_err();
    assert_eq!(e.kind, piney_ee::ExceptionKind::Syscall);
    assert_eq!(again(&mut jit, &mut cpu, &mut bus), 31);
    assert!(jit.stats().blocks_invalidated >= 2, "{:?}", jit.stats());
}

#[test]
fn budget_stops_exactly_where_the_interpreter_does() {
    // A long run of addius and a MULT (4 cycles): every target from 1 to 80 cycles ends on the
    // same instruction and cycle count under both engines.
    let mut prog: Vec<u32> = (0..30).map(|i| addiu(2 + (i % 5), 2, 1)).collect();
    prog.insert(7, 0x0043_0018); // mult $2, $3
    prog.push(0x0000_000c);
    for t in 1..80u64 {
        let (mut ci, mut bi) = load(&prog);
        let (mut cj, mut bj) = twin(&ci, &bi);
        let ri = interp_run(&mut ci, &mut bi, t);
        let mut jit = hot_jit();
        let rj = jit.run(&mut cj, &mut bj, t);
        assert_eq!(ri, rj, "target {t}");
        assert_eq!(ci, cj, "target {t}");
    }
}

#[test]
fn cop0_timer_due_is_where_count_meets_compare() {
    use piney_ee::cpu::{cop0reg, status};
    let mut cpu = Cpu::new();
    cpu.cycles = 500;
    cpu.cop0.count_sync = 500;
    cpu.cop0.regs[cop0reg::COUNT] = 100;
    cpu.cop0.regs[cop0reg::COMPARE] = 160;
    cpu.cop0.regs[cop0reg::STATUS] |= status::IM7;
    let due = piney_jit::cop0_timer_due(&cpu);
    assert_eq!(due, 560);
    // Exactly there the interpreter's own timer logic raises IP7, and not one cycle before.
    let mut early = cpu.clone();
    early.cycles = due - 1;
    piney_ee::interp::cop0::tick_cop0(&mut early);
    assert_eq!(early.cop0.regs[cop0reg::CAUSE] & (1 << 15), 0);
    cpu.cycles = due;
    piney_ee::interp::cop0::tick_cop0(&mut cpu);
    assert_ne!(cpu.cop0.regs[cop0reg::CAUSE] & (1 << 15), 0);
    cpu.cop0.regs[cop0reg::STATUS] &= !status::IM7;
    assert_eq!(piney_jit::cop0_timer_due(&cpu), u64::MAX);
}
