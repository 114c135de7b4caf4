//! Operand values random programs rarely hit, compiled natively and compared with the
//! interpreter: divide by zero and the one signed overflow, overflow traps, shifts by 31/63.

use piney_ee::Cpu;
use piney_ee::bus::FlatBus;
use piney_jit::{Jit, interp_run};

const CODE: u32 = 0x1000;

/// A 64 KiB bus holding `words` at [`CODE`].
fn program(words: &[u32]) -> FlatBus {
    let mut bus = FlatBus::new(0x10000);
    for (i, w) in words.iter().enumerate() {
        let at = CODE as usize + 4 * i;
        bus.mem[at..at + 4].copy_from_slice(&w.to_le_bytes());
    }
    bus
}

/// A copy of a CPU and its bus, for the interpreter's run beside the recompiler's.
fn twin(cpu: &Cpu, bus: &FlatBus) -> (Cpu, FlatBus) {
    (
        cpu.clone(),
        FlatBus {
            mem: bus.mem.clone(),
        },
    )
}

/// Run `words` from [`CODE`] with $3 = `r3` up to cycle `target` on the interpreter and on the
/// recompiler (each block compiled at its first visit), check that they end alike, and hand
/// back the recompiler for its statistics.
fn both_from_code(words: &[u32], r3: u128, target: u64) -> Jit {
    let mut bus = program(words);
    let mut cpu = Cpu::new();
    cpu.jump_to(CODE);
    cpu.gpr[3] = r3;
    let (mut ci, mut bi) = twin(&cpu, &bus);
    let ri = interp_run(&mut ci, &mut bi, target);
    let mut jit = Jit::new().unwrap();
    jit.set_hot_threshold(0);
    let rj = jit.run(&mut cpu, &mut bus, target);
    assert_eq!(ri, rj);
    assert_eq!(ci, cpu);
    jit
}

/// Run `words` + SYSCALL with $2 = a, $3 = b on both engines and compare everything.
fn same(words: &[u32], a: u64, b: u64) {
    let words_and_syscall: Vec<u32> = words.iter().copied().chain([0x0000_000c]).collect();
    let mut bus = program(&words_and_syscall);
    let mut cpu = Cpu::new();
    cpu.jump_to(CODE);
    cpu.gpr[2] = a as u128 | 0x1234_u128 << 64;
    cpu.gpr[3] = b as u128;
    cpu.hi = 0xdead_u128 << 64;
    cpu.lo = 0xbeef_u128 << 64;
    let (mut ci, mut bi) = twin(&cpu, &bus);
    let ri = interp_run(&mut ci, &mut bi, 1000);
    let mut jit = Jit::new().unwrap();
    // Each block runs once: compile it at its first visit, so that the native code is what runs.
    jit.set_hot_threshold(0);
    let rj = jit.run(&mut cpu, &mut bus, 1000);
    let words: Vec<String> = words
        .iter()
        .map(|&w| piney_ee::disasm::disassemble(w, 0))
        .collect();
    assert_eq!(ri, rj, "{words:?} a={a:#x} b={b:#x}");
    assert_eq!(ci, cpu, "{words:?} a={a:#x} b={b:#x}");
    assert!(jit.stats().native.iter().sum::<u64>() > 0);
}

const VALUES: [u64; 10] = [
    0,
    1,
    2,
    0xffff_ffff_ffff_ffff,
    0xffff_ffff_8000_0000,
    0x7fff_ffff,
    0xffff_ffff_ffff_fff9,
    0x8000_0000_0000_0000,
    0x7fff_ffff_ffff_ffff,
    0x1_0000_001f,
];

#[test]
fn divides() {
    // div $2, $3; divu $2, $3 (then mflo/mfhi into $4/$5)
    for op in [0x0043_001a, 0x0043_001b] {
        for a in VALUES {
            for b in VALUES {
                same(&[op, 0x0000_2012, 0x0000_2810], a, b);
            }
        }
    }
}

#[test]
fn overflow_traps_and_shifts() {
    let ops = [
        0x0043_2020, // add $4, $2, $3
        0x0043_2022, // sub
        0x0043_202c, // dadd
        0x0043_202e, // dsub
        0x2044_7fff, // addi $4, $2, 0x7fff
        0x6044_8000, // daddi $4, $2, -0x8000
        0x0062_2004, // sllv $4, $2, $3
        0x0062_2007, // srav
        0x0062_2017, // dsrav
        0x0002_27ff, // dsra32 $4, $2, 31
        0x0043_2018, // mult $4, $2, $3
        0x0043_2019, // multu
        0x0043_202a, // slt
        0x0043_202b, // sltu
    ];
    for op in ops {
        for a in VALUES {
            for b in VALUES {
                same(&[op], a, b);
            }
        }
    }
    // A multiply whose HI the block reads takes LO from the same 64-bit product.
    for mult in [0x0043_2018, 0x0043_2019] {
        for a in VALUES {
            for b in VALUES {
                // mult(u) $4, $2, $3; mfhi $5; mflo $6
                same(&[mult, 0x0000_2810, 0x0000_3012], a, b);
            }
        }
    }
}

/// Issue 17: a jump into a long run of zero words (nops) made the recompiler compile every
/// 64-instruction block it passed once, so a few frames of it took 14-30 s against the
/// interpreter's second. Blocks are compiled on their second visit now: code that runs once is
/// interpreted, with the interpreter's exact state, and nothing is compiled for it.
#[test]
fn code_that_runs_once_is_not_compiled() {
    let mut bus = FlatBus::new(0x10_0000);
    let mut cpu = Cpu::new();
    cpu.jump_to(0);
    let (mut ci, mut bi) = twin(&cpu, &bus);
    // 200,000 nops: 3,125 blocks' worth, each reached once.
    let target = 200_000;
    let ri = interp_run(&mut ci, &mut bi, target);
    let mut jit = Jit::new().unwrap();
    let rj = loop {
        match jit.run(&mut cpu, &mut bus, target) {
            Ok(()) if cpu.cycles < target => continue,
            r => break r,
        }
    };
    assert_eq!(ri, rj);
    assert_eq!(ci, cpu);
    assert_eq!(jit.stats().blocks_compiled, 0, "{:?}", jit.stats());
    // A loop's body is compiled once HOT_INSTRUCTIONS of it ran interpreted, and runs native
    // from there: `L: addiu $2, $2, 1; bne $2, $3, L; nop`, 10,000 passes of 3 instructions.
    let mut bus = program(&[0x2442_0001, 0x1443_fffe, 0, 0x0000_000c]);
    let mut cpu = Cpu::new();
    cpu.jump_to(CODE);
    cpu.gpr[3] = 10_000;
    let mut jit = Jit::new().unwrap();
    let e = jit.run(&mut cpu, &mut bus, 1_000_000).unwrap_err();
    assert_eq!(e.kind, piney_ee::ExceptionKind::Syscall);
    assert_eq!(cpu.gpr[2], 10_000);
    let s = jit.stats();
    assert_eq!(s.blocks_compiled, 1, "{s:?}");
    assert!(
        s.interp_steps <= piney_jit::HOT_INSTRUCTIONS as u64 + 3,
        "{s:?}"
    );
    assert!(s.block_runs > 7_000, "{s:?}");
    // Entered once from the dispatcher, it loops inside itself until it falls through to the
    // SYSCALL (interpreted): every other run is a pass looping in place, no exit chained.
    assert_eq!(s.dispatched, 1, "{s:?}");
    assert_eq!(s.chained, 0, "{s:?}");
    assert_eq!(s.loop_passes, s.block_runs - 1, "{s:?}");
}

/// Issue 17: a jump into a long run of zero words (here 1 MiB of them before a `jr $zero` that
/// jumps back to address 0, as after a stray `jr $zero` or `eret`) run again and again, with
/// small budgets ending anywhere in the run. The recompiler compiles nothing for the zero words
/// (a block of them is remembered as such, never compiled, wherever a pass enters it) and ends
/// in the interpreter's state.
#[test]
fn a_long_run_of_zero_words_costs_no_compilation() {
    const LOOP_AT: u32 = 0x10_0000;
    let mut bus = FlatBus::new(0x20_0000);
    // jr $zero; nop
    bus.mem[LOOP_AT as usize..LOOP_AT as usize + 4].copy_from_slice(&0x0000_0008u32.to_le_bytes());
    let mut cpu = Cpu::new();
    cpu.jump_to(0);
    let (mut ci, mut bi) = twin(&cpu, &bus);
    // Five passes over the zero words, in budgets of odd sizes (as timed events cut them).
    let end = 5 * (LOOP_AT as u64 / 4 + 2);
    let mut jit = Jit::new().unwrap();
    // Blocks are due for compilation from their second pass (64 instructions ran).
    jit.set_hot_threshold(64);
    let mut t = 0;
    while cpu.cycles < end {
        t = (t + 7919).min(end);
        jit.run(&mut cpu, &mut bus, t).unwrap();
        interp_run(&mut ci, &mut bi, t).unwrap();
        assert_eq!(ci, cpu, "at cycle {t}");
    }
    let s = jit.stats();
    // Only the jr's block is compiled; the zero words are passed over from the second pass on
    // (the first interprets them: code that runs once is not compiled).
    assert!(s.blocks_compiled <= 1, "{s:?}");
    assert!(s.nop_runs > 3 * (LOOP_AT as u64 / 4), "{s:?}");
    assert_eq!(s.instructions, end_instructions(&ci), "{s:?}");
}

/// Instructions the interpreter ran to reach `cpu` from address 0 at cycle 0 (every
/// instruction of this program costs one cycle).
fn end_instructions(cpu: &Cpu) -> u64 {
    cpu.cycles
}

/// One call into compiled code runs at most 2^23 cycles (the instructions and chained exits it
/// counts share one field, and must not reach each other's bits); a longer run calls again.
/// The loop of the test below for 3,000,000 passes (9 M cycles), run to its end by one `run`
/// with no target: the compiled code was called more than once, the state is the
/// interpreter's, and so are the instructions counted.
#[test]
fn a_run_longer_than_one_call_into_compiled_code_counts_exactly() {
    let words = [0x2442_0001, 0x2463_ffff, 0x1460_fffe, 0, 0x0000_000c];
    let mut bus = program(&words);
    let mut cpu = Cpu::new();
    cpu.jump_to(CODE);
    cpu.gpr[3] = 3_000_000;
    let (mut ci, mut bi) = twin(&cpu, &bus);
    let mut steps = 0u64;
    let ri = loop {
        steps += 1;
        if let Err(e) = piney_ee::interp::step(&mut ci, &mut bi) {
            break Err(e);
        }
    };
    let mut jit = Jit::new().unwrap();
    jit.set_hot_threshold(0);
    let rj = jit.run(&mut cpu, &mut bus, u64::MAX);
    assert_eq!(ri, rj);
    assert_eq!(ci, cpu);
    assert!(ci.cycles > 1 << 23, "{}", ci.cycles);
    let s = jit.stats();
    // The first block's call (its exit finds the loop's block not compiled yet), then the
    // loop's 9 M cycles in calls of at most 2^23.
    assert!(s.dispatched > ci.cycles.div_ceil(1 << 23), "{s:?}");
    assert_eq!(s.instructions, steps, "{s:?}");
    assert!(s.loop_passes > 2_900_000, "{s:?}");
}

/// A loop that a block reaches by falling into it (`addiu $2, $2, 1`, then `L: addiu $3, $3,
/// -1; bne $3, $0, L; nop; syscall`) is a block of its own: the block before it ends at its
/// head, and the loop's body is compiled once (4 + 1 instructions), not once inside the block
/// that fell into it and again from its head (5 + 4). Both end in the interpreter's state.
#[test]
fn a_loop_inside_a_block_starts_a_block_of_its_own() {
    let jit = both_from_code(
        &[0x2442_0001, 0x2463_ffff, 0x1460_fffe, 0, 0x0000_000c],
        1000,
        1_000_000,
    );
    let s = jit.stats();
    assert_eq!(
        (s.blocks_compiled, s.compiled_instructions),
        (2, 5),
        "{s:?}"
    );
    assert_eq!(s.loop_passes, 999, "{s:?}");
}

/// A superblock whose later segment does not fit in the budget still runs its first segment
/// compiled: `addiu $2, $2, 1; bne $2, $2, +0x100 (never taken; its target, outside the block, is
/// no label that would cut a segment of its own); nop`, then 20 × `addiu $4, $4, 1`
/// and a syscall, with a budget of 10 cycles. The first segment (3 instructions) runs natively,
/// the check before the second stops the block, and the interpreter steps the other 7
/// instructions of the budget (before, the whole block had to fit: all 10 were interpreted).
/// Both engines stop in the same state.
#[test]
fn a_superblock_runs_the_segments_that_fit_the_budget() {
    let mut words = vec![0x2442_0001u32, 0x1442_0040, 0];
    words.extend([0x2484_0001; 20]);
    words.push(0x0000_000c);
    let jit = both_from_code(&words, 0, 10);
    let s = jit.stats();
    assert_eq!((s.instructions, s.interp_steps), (10, 7), "{s:?}");
}

/// Run `words` from [`CODE`] with $3 = `r3` on both engines in budgets of 1 to 13 cycles (so
/// that they end at every instruction of a block, in every segment), comparing the whole state
/// after each, up to cycle `end`; the recompiler compiles each block at its first visit.
fn both_in_slices(words: &[u32], r3: u128, end: u64) -> Jit {
    slices(words, &[(3, r3)], end)
}

/// [`both_in_slices`] with these registers set.
fn slices(words: &[u32], regs: &[(usize, u128)], end: u64) -> Jit {
    let mut bus = program(words);
    let mut cpu = Cpu::new();
    cpu.jump_to(CODE);
    for &(r, v) in regs {
        cpu.gpr[r] = v;
    }
    let (mut ci, mut bi) = twin(&cpu, &bus);
    let mut jit = Jit::new().unwrap();
    jit.set_hot_threshold(0);
    let (mut t, mut step) = (0, 0);
    while t < end {
        step = step % 13 + 1;
        t += step;
        let ri = interp_run(&mut ci, &mut bi, t);
        let rj = jit.run(&mut cpu, &mut bus, t);
        assert_eq!(ri, rj, "at cycle {t}");
        assert_eq!(ci, cpu, "at cycle {t}");
        if ri.is_err() {
            break;
        }
    }
    jit
}

/// A forward branch inside a loop (`if (odd) $4 += 3`, then the loop's count) goes on at its
/// target inside the block, a label, rather than leaving for a block of its own: `L: addiu $2,
/// $2, 1; andi $5, $2, 1; beq $5, $0, M; nop; addiu $4, $4, 3; M: addiu $3, $3, -1; bne $3,
/// $0, L; nop; syscall`. One block holds the loop and the syscall, with no exit at all; both
/// engines end alike, in one run and in budgets that cut it anywhere (each label starts a
/// segment the budget is checked for).
#[test]
fn a_forward_branch_goes_on_inside_the_block() {
    let words = [
        0x2442_0001,
        0x3045_0001,
        0x10a0_0002,
        0,
        0x2484_0003,
        0x2463_ffff,
        0x1460_fff9,
        0,
        0x0000_000c,
    ];
    let jit = both_from_code(&words, 1000, 1_000_000);
    let s = jit.stats();
    assert_eq!(
        (s.blocks_compiled, s.loop_passes, s.chained, s.dispatched),
        (1, 999, 0, 1),
        "{s:?}"
    );
    let jit = both_in_slices(&words, 100, 100 * 8);
    assert!(jit.stats().native.iter().sum::<u64>() > 0);
}

/// A loop whose head is not the block's first instruction (`addiu $2, $2, 1`, then `L: addiu
/// $3, $3, -1; beq $3, $0, out; nop; b L; addiu $4, $4, 1; out: syscall`: the unconditional
/// branch back ends the block and goes to the head, a label) runs inside the block, with no
/// exit per pass: two blocks (that one and the syscall's), each run once from the dispatcher;
/// both engines end alike, in one run and in budgets that cut it anywhere.
#[test]
fn an_inner_loop_head_is_a_label() {
    let words = [
        0x2442_0001,
        0x2463_ffff,
        0x1060_0003,
        0,
        0x1000_fffc,
        0x2484_0001,
        0x0000_000c,
    ];
    let jit = both_from_code(&words, 500, 1_000_000);
    let s = jit.stats();
    assert_eq!(
        (s.blocks_compiled, s.block_runs, s.chained, s.dispatched),
        (2, 2, 0, 2),
        "{s:?}"
    );
    both_in_slices(&words, 50, 50 * 6);
}

/// Run `words` from [`CODE`] with $2 = `r2` and $3 = `r3` on both engines up to cycle `end`, in
/// one run and again in budgets of 1 to 13 cycles (see [`slices`]); the recompiler of the one
/// run is handed back.
fn both_with_r2(words: &[u32], r2: u128, r3: u128, end: u64) -> Jit {
    let mut bus = program(words);
    let mut cpu = Cpu::new();
    cpu.jump_to(CODE);
    cpu.gpr[2] = r2;
    cpu.gpr[3] = r3;
    let (mut ci, mut bi) = twin(&cpu, &bus);
    let mut jit = Jit::new().unwrap();
    jit.set_hot_threshold(0);
    assert_eq!(
        interp_run(&mut ci, &mut bi, end),
        jit.run(&mut cpu, &mut bus, end)
    );
    assert_eq!(ci, cpu);
    slices(words, &[(2, r2), (3, r3)], end);
    jit
}

/// A loop of 32-bit shifts and XORs (`L: sll $4, $2, 3; xor $2, $2, $4; addiu $3, $3, -1; bne
/// $3, $0, L; nop; syscall`, one block) keeps $2 as a 32-bit value across its passes, checked at the
/// block's entry: entered with $2 a sign-extended 32-bit value, the block runs as compiled;
/// entered with a wider one (whose upper bits the XOR keeps), it does not start, is compiled
/// again without the assumption, and both engines still end alike (checked to fail when the
/// entry does not check).
#[test]
fn a_loop_register_kept_32_bit_is_checked_at_the_entry() {
    let words = [
        0x0002_20c0,
        0x0044_1026,
        0x2463_ffff,
        0x1460_fffc,
        0,
        0x0000_000c,
    ];
    // The upper 64 bits of a GPR are not the 32-bit value's concern (these operations keep them).
    for narrow in [0x1234_5678, 0xffff_ffff_8765_4321, 0xabcd_u128 << 64 | 0x42] {
        let jit = both_with_r2(&words, narrow, 200, 100_000);
        assert_eq!(jit.stats().assumption_misses, 0, "{:?}", jit.stats());
    }
    for wide in [
        0x1_2345_6789,
        0x7fff_ffff_8000_0000,
        0xabcd_u128 << 64 | 0x8000_0000,
    ] {
        let jit = both_with_r2(&words, wide, 200, 100_000);
        let s = jit.stats();
        assert_eq!(s.assumption_misses, 1, "{s:?}");
        assert_eq!(
            s.blocks_compiled, 2,
            "the block (loop and syscall) twice: {s:?}"
        );
    }
}

/// Loads and stores through one base register share one check of their whole range: a run
/// whose first access is in RAM and whose last is past its end (the bus faults there) takes
/// the slow path at the first, and ends as the interpreter ends (the fault at the last one),
/// whichever of them is the highest.
#[test]
fn a_run_of_accesses_across_the_end_of_ram() {
    // $3 = 0xfff0 (64 KiB of RAM): lw $2, 0($3); lw $4, 8($3); lw $5, 12($3); sw $2, 16($3)
    // (past the end); syscall. And the same with the store first.
    let lw = |rt: u32, off: u32| 0x8c60_0000 | rt << 16 | off;
    let sw = |rt: u32, off: u32| 0xac60_0000 | rt << 16 | off;
    for words in [
        vec![lw(2, 0), lw(4, 8), lw(5, 12), sw(2, 16), 0x0000_000c],
        vec![sw(2, 0), lw(4, 16), lw(5, 4), 0x0000_000c],
        vec![lw(2, 0), lw(4, 4), lw(5, 12), 0x0000_000c],
    ] {
        both_from_code(&words, 0xfff0, 1000);
    }
}

/// A loop whose passes all take the same cycles counts them from the cycle count (no count
/// carried around it): stopped by budgets of every size, the recompiler's count of
/// instructions is the interpreter's steps. Two loops with a MULT (more than one cycle) among
/// their instructions, one of an odd number of cycles a pass and one of an even number
/// (both parts of the exact division): `L: mult $4, $3, $3; addiu $2, $2, 1; [addiu $5, $5,
/// 1;] bne $2, $3, L; nop; syscall`, $3 = 500.
#[test]
fn a_loop_counts_its_passes_from_its_cycles() {
    let odd = [0x0063_2018, 0x2442_0001, 0x1443_fffd, 0, 0x0000_000c];
    let even = [
        0x0063_2018,
        0x2442_0001,
        0x24a5_0001,
        0x1443_fffc,
        0,
        0x0000_000c,
    ];
    for words in [&odd[..], &even[..]] {
        let end = CODE + 4 * (words.len() as u32 - 1);
        let mut bus = program(words);
        let mut cpu = Cpu::new();
        cpu.jump_to(CODE);
        cpu.gpr[3] = 500;
        let (mut ci, mut bi) = twin(&cpu, &bus);
        let mut jit = Jit::new().unwrap();
        jit.set_hot_threshold(0);
        let (mut t, mut steps, mut step) = (0, 0u64, 0);
        while cpu.pc != end {
            step = step % 97 + 1;
            t += step;
            while ci.cycles < t && ci.pc != end {
                piney_ee::interp::step(&mut ci, &mut bi).unwrap();
                steps += 1;
            }
            let until = if ci.pc == end { ci.cycles } else { t };
            jit.run(&mut cpu, &mut bus, until).unwrap();
            assert_eq!(ci, cpu, "at cycle {until}");
        }
        assert_eq!(cpu.gpr[2], 500);
        let s = jit.stats();
        assert_eq!(s.instructions, steps, "{s:?}");
        assert!(s.loop_passes > 100, "{s:?}");
    }
}

/// A LW of the word a SW stored just before, through the same base register and offset, takes
/// the stored value (no memory access); anything that may have changed that word or the base
/// in between (a store of any width, through any register; a write of the base) makes it load
/// again. $3 = 0x100: `sw $2, 16($3)`, something, `lw $4, 16($3)`.
#[test]
fn a_load_of_the_word_just_stored() {
    let sw = |rt: u32, rs: u32, off: u32| 0xac00_0000 | rs << 21 | rt << 16 | off;
    let lw = |rt: u32, rs: u32, off: u32| 0x8c00_0000 | rs << 21 | rt << 16 | off;
    let sb = |rt: u32, rs: u32, off: u32| 0xa000_0000 | rs << 21 | rt << 16 | off;
    let ori5 = 0x3405_0055; // ori $5, $0, 0x55
    let or6 = 0x0060_3025; // or $6, $3, $0 (another name for the same address)
    let addiu3 = 0x2463_0004; // addiu $3, $3, 4
    let addiu6 = 0x2466_0004; // addiu $6, $3, 4
    let load = lw(4, 3, 16);
    for (between, load) in [
        (vec![], load),
        (vec![ori5], load),
        (vec![ori5, sb(5, 3, 17)], load),
        (vec![ori5, or6, sw(5, 6, 16)], load),
        (vec![ori5, or6, sb(5, 6, 19)], load),
        (vec![addiu3, ori5, sw(5, 3, 12)], load),
        (vec![lw(7, 3, 16), ori5], load),
        // The same offset through another base: another word.
        (vec![addiu6], lw(4, 6, 16)),
        // The same base at another offset.
        (vec![ori5, sw(5, 3, 20)], lw(4, 3, 20)),
    ] {
        let mut words = vec![sw(2, 3, 16)];
        words.extend(between);
        words.push(load);
        for a in [0xffff_ffff_8765_4321, 0x1234_5678_0000_0001, 7] {
            same(&words, a, 0x100);
        }
    }
}
