//! Blocks compiled on the compile thread (`Jit::set_background_compile`): the EE interprets a
//! hot block until its code arrives, and the result is the interpreter's wherever the code
//! takes over; code that changed while its block compiled never runs.

use piney_ee::Cpu;
use piney_ee::bus::FlatBus;
use piney_jit::{HookSet, Jit, interp_run};

mod common;
use common::{CODE, addiu, assert_every_patch_ran, load, self_patching_loop, twin};

/// A recompiler with the compile thread, compiling blocks once `hot` (not 0: that compiles on
/// the caller's thread) of their instructions ran.
fn background_jit(hot: u32) -> Jit {
    let mut jit = Jit::new().unwrap();
    jit.set_hot_threshold(hot);
    jit.set_background_compile(true).unwrap();
    assert!(jit.background_compile());
    jit
}

/// Run the recompiler until `target` cycles (or an exception), slice by slice.
fn jit_until(jit: &mut Jit, cpu: &mut Cpu, bus: &mut FlatBus, target: u64) -> Result<(), String> {
    loop {
        match jit.run(cpu, bus, target) {
            Ok(()) if cpu.cycles < target => continue,
            Ok(()) => return Ok(()),
            Err(e) => return Err(format!("{e:?}")),
        }
    }
}

/// A loop of arithmetic and stores, 3,000 passes:
/// ```text
///   ori   $29, $0, 3000
///   ori   $3, $0, 0x8000
/// L: addiu $2, $2, 3
///   xor   $5, $5, $2
///   sw    $5, 0($3)
///   addiu $3, $3, 4
///   addiu $29, $29, -1
///   bne   $29, $0, L
///   nop
///   syscall
/// ```
fn loop_program() -> Vec<u32> {
    vec![
        0x341d_0000 | 3000,
        0x3403_8000,
        addiu(2, 2, 3),
        0x00a2_2826, // xor $5, $5, $2
        0xac65_0000, // sw $5, 0($3)
        addiu(3, 3, 4),
        addiu(29, 29, 0xffff),
        0x17a0_fffa, // bne $29, $0, L
        0,
        0x0000_000c,
    ]
}

#[test]
fn hot_blocks_compile_on_the_thread_and_agree_with_the_interpreter() {
    let (mut ci, mut bi) = load(&loop_program());
    let (mut cj, mut bj) = twin(&ci, &bi);
    let end = 100_000;
    let ri = interp_run(&mut ci, &mut bi, end).map_err(|e| format!("{e:?}"));
    let mut jit = background_jit(64);
    // The loop turns hot in the first slice and is interpreted while it compiles; once its code
    // is placed, the rest runs compiled.
    let first = jit_until(&mut jit, &mut cj, &mut bj, 2_000);
    assert_eq!(first, Ok(()));
    jit.finish_compiles();
    assert!(jit.stats().compiled_in_background >= 1, "{:?}", jit.stats());
    let runs_before = jit.stats().block_runs;
    let rj = jit_until(&mut jit, &mut cj, &mut bj, end);
    assert_eq!(ri, rj);
    assert_eq!(ci, cj);
    assert_eq!(bi.mem, bj.mem);
    assert!(
        jit.stats().block_runs > runs_before + 1000,
        "the loop ran compiled: {:?}",
        jit.stats()
    );
    assert_eq!(
        jit.stats().blocks_compiled,
        jit.stats().compiled_in_background
    );
}

/// `ori $29, $0, n` and a loop of `n` passes adding `step` to register `r`: `addiu $r, $r,
/// step; addiu $29, $29, -1; bne $29, $0, (back 3); nop`.
fn counted_loop(n: u32, r: u32, step: u16) -> Vec<u32> {
    vec![
        0x341d_0000 | n,
        addiu(r, r, step),
        addiu(29, 29, 0xffff),
        0x17a0_fffd,
        0,
    ]
}

/// Two loops, one after the other: once the first is compiled and the thread has nothing to
/// do, the second (the first one's way out) compiles ahead of its first run, and runs compiled
/// from its first pass instead of being interpreted until it turns hot; the state is the
/// interpreter's.
#[test]
fn the_way_out_of_a_hot_loop_compiles_ahead_of_its_first_run() {
    //   ori $29, $0, 3000
    // A: addiu $2, $2, 3; addiu $29, $29, -1; bne $29, $0, A; nop
    //   ori $29, $0, 3000
    // B: addiu $4, $4, 5; addiu $29, $29, -1; bne $29, $0, B; nop
    //   syscall
    let p = [
        counted_loop(3000, 2, 3),
        counted_loop(3000, 4, 5),
        vec![0x0000_000c],
    ]
    .concat();
    let (mut ci, mut bi) = load(&p);
    let (mut cj, mut bj) = twin(&ci, &bi);
    let end = 100_000;
    let ri = interp_run(&mut ci, &mut bi, end).map_err(|e| format!("{e:?}"));
    let hot = 64;
    let mut jit = background_jit(hot);
    // A turns hot and compiles; the next slice finds the thread idle and requests B.
    assert_eq!(jit_until(&mut jit, &mut cj, &mut bj, 2_000), Ok(()));
    jit.finish_compiles();
    assert_eq!(jit_until(&mut jit, &mut cj, &mut bj, 4_000), Ok(()));
    jit.finish_compiles();
    let s = jit.stats().clone();
    assert!(s.compiled_ahead >= 1, "{s:?}");
    assert_eq!(cj.gpr[4] as u64, 0, "B has not run yet");
    let rj = jit_until(&mut jit, &mut cj, &mut bj, end);
    assert_eq!(ri, rj);
    assert_eq!(ci, cj);
    assert_eq!(bi.mem, bj.mem);
    assert_eq!(cj.gpr[4] as u64, 5 * 3000, "B ran");
    let interpreted = jit.stats().interp_steps - s.interp_steps;
    assert!(
        interpreted < hot as u64,
        "B ran compiled from its first pass ({interpreted} instructions interpreted)"
    );
}

/// Hooks at one address.
struct OneHook(u32);

impl HookSet for OneHook {
    fn active(&self) -> bool {
        true
    }
    fn is_hooked(&self, pc: u32) -> bool {
        pc == self.0
    }
    fn generation(&self) -> u64 {
        1
    }
}

/// A hooked address is the hook's every time execution gets there, also where it is the way out
/// of a hot loop: no block is compiled ahead there (code chaining into it would pass the hook
/// by). Fifty times, 20 passes of loop A, then 20 of loop B, whose head is hooked: 1000 stops.
#[test]
fn a_hooked_way_out_is_not_compiled_ahead() {
    //   ori $30, $0, 50
    // O: ori $29, $0, 20
    // A: addiu $2, $2, 3; addiu $29, $29, -1; bne $29, $0, A; nop
    //   ori $29, $0, 20
    // B: addiu $4, $4, 5; addiu $29, $29, -1; bne $29, $0, B; nop
    //   addiu $30, $30, -1; bne $30, $0, O; nop
    //   syscall
    let p = [
        vec![0x341e_0000 | 50],
        counted_loop(20, 2, 3),
        counted_loop(20, 4, 5),
        vec![addiu(30, 30, 0xffff), 0x17c0_fff4, 0, 0x0000_000c],
    ]
    .concat();
    let b = CODE + 7 * 4;
    let hook = OneHook(b);
    let (mut cj, mut bj) = load(&p);
    let mut jit = background_jit(16);
    let mut stops = 0;
    // Slices of 300 cycles, each compile placed before the next (the thread then idles at the
    // next slice's start, and compiles ahead what the queue holds).
    let mut target = 0;
    loop {
        target += 300;
        assert!(target < 1_000_000, "the program did not end");
        match jit.run_hooked(&mut cj, &mut bj, target, &hook) {
            Ok(()) => {
                // The machine offers the hooked pc to its hook wherever a run stops there (at
                // the hook, or where the slice ended); the hook declines, and the next run
                // goes on from it.
                if cj.pc == b && !cj.delay_next {
                    stops += 1;
                }
                if cj.cycles < target {
                    target -= 300;
                }
            }
            // The SYSCALL at the end.
            Err(_) => break,
        }
        jit.finish_compiles();
    }
    jit.finish_compiles();
    assert_eq!(cj.gpr[4] as u64, 50 * 20 * 5, "B ran");
    assert_eq!(stops, 50 * 20, "{:?}", jit.stats());
    assert!(jit.stats().compiled_ahead >= 1, "{:?}", jit.stats());
}

/// The loop's block is rewritten (a write the machine reports, as DMA's) while it compiles: the
/// code that arrives is thrown away, and the new words run, interpreted and then compiled.
#[test]
fn a_block_rewritten_while_it_compiles_never_runs() {
    let (mut ci, mut bi) = load(&loop_program());
    let (mut cj, mut bj) = twin(&ci, &bi);
    let patch = (CODE + 2 * 4) as usize;
    let new = addiu(2, 2, 7).to_le_bytes();
    let (cut, end) = (300, 100_000);
    let mut jit = background_jit(1);
    // The first visits request the blocks and interpret them.
    assert_eq!(jit_until(&mut jit, &mut cj, &mut bj, cut), Ok(()));
    assert_eq!(interp_run(&mut ci, &mut bi, cut), Ok(()));
    assert_eq!(ci, cj);
    let before = jit.stats().clone();
    for bus in [&mut bi, &mut bj] {
        bus.mem[patch..patch + 4].copy_from_slice(&new);
    }
    jit.invalidate_range(patch as u32, 4);
    jit.finish_compiles();
    let s = jit.stats().clone();
    // Whichever came first, the write or the code, the old words' code is gone: thrown away
    // on arrival, or placed and then dropped by the write.
    assert!(
        s.compiles_dropped + s.blocks_invalidated
            > before.compiles_dropped + before.blocks_invalidated,
        "{s:?}"
    );
    let ri = interp_run(&mut ci, &mut bi, end).map_err(|e| format!("{e:?}"));
    let rj = jit_until(&mut jit, &mut cj, &mut bj, end);
    assert_eq!(ri, rj);
    assert_eq!(ci, cj, "the rewritten addiu ran on both");
    assert_eq!(bi.mem, bj.mem);
    assert_ne!(ci.gpr[2] as u64, 3 * 3000, "the rewritten addiu ran");
}

/// A block that stores into its own code while it compiles (the guest's own write, seen by the
/// interpreter's steps), a new word at every pass: the same state as the interpreter's.
#[test]
fn a_guest_store_into_a_pending_block() {
    let (mut ci, mut bi) = self_patching_loop();
    let (mut cj, mut bj) = twin(&ci, &bi);
    let end = 20_000;
    let ri = interp_run(&mut ci, &mut bi, end).map_err(|e| format!("{e:?}"));
    let mut jit = background_jit(1);
    let rj = jit_until(&mut jit, &mut cj, &mut bj, end);
    jit.finish_compiles();
    assert_eq!(ri, rj);
    assert_every_patch_ran((&ci, &bi), (&cj, &bj));
    let s = jit.stats();
    assert!(s.compiles_dropped + s.blocks_invalidated >= 1, "{s:?}");
}

/// Turning the thread off waits for the blocks on the way and places them.
#[test]
fn turning_the_thread_off_places_what_it_compiled() {
    let (mut cj, mut bj) = load(&loop_program());
    let mut jit = background_jit(1);
    assert_eq!(jit_until(&mut jit, &mut cj, &mut bj, 200), Ok(()));
    jit.set_background_compile(false).unwrap();
    assert!(!jit.background_compile());
    let s = jit.stats();
    assert!(s.compiled_in_background >= 1, "{s:?}");
    assert_eq!(s.blocks_compiled, s.compiled_in_background);
}

/// Eight loops one after the other, run again and again: their blocks turn hot together, so
/// requests queue behind the one the thread compiles, and the EE's thread takes some of them
/// back and compiles them itself (`JitStats::compiled_taken_back`; how many depends on the
/// host's timing). Whichever thread compiles a block, the state is the interpreter's.
#[test]
fn blocks_turning_hot_together_agree_with_the_interpreter_whoever_compiles_them() {
    // Outer: ori $30, $0, 400; then per loop k (registers 8 + k): ori $29, $0, 50;
    // L: addiu $k, $k, k + 1; addiu $29, $29, -1; bne $29, $0, L; nop. Then addiu $30, $30, -1;
    // bne $30, $0, outer; nop; syscall.
    let mut p = vec![0x341e_0000 | 400];
    let outer = p.len();
    for k in 0..8u32 {
        p.push(0x341d_0000 | 50);
        p.push(addiu(8 + k, 8 + k, k as u16 + 1));
        p.push(addiu(29, 29, 0xffff));
        p.push(0x17a0_fffd); // bne $29, $0, L
        p.push(0);
    }
    p.push(addiu(30, 30, 0xffff));
    let back = (outer as i32 - p.len() as i32 - 1) as u32 & 0xffff;
    p.push(0x17c0_0000 | back); // bne $30, $0, outer
    p.push(0);
    p.push(0x0000_000c);
    let (mut ci, mut bi) = load(&p);
    let (mut cj, mut bj) = twin(&ci, &bi);
    let end = 2_000_000;
    let ri = interp_run(&mut ci, &mut bi, end).map_err(|e| format!("{e:?}"));
    let mut jit = background_jit(1);
    let rj = jit_until(&mut jit, &mut cj, &mut bj, end);
    jit.finish_compiles();
    assert_eq!(ri, rj);
    assert_eq!(ci, cj);
    assert_eq!(bi.mem, bj.mem);
    for k in 0..8 {
        assert_eq!(
            cj.gpr[8 + k] as u64,
            400 * 50 * (k as u64 + 1),
            "loop {k} ran"
        );
    }
    let s = jit.stats();
    assert!(s.blocks_compiled >= 8, "{s:?}");
    assert_eq!(
        s.blocks_compiled,
        s.compiled_in_background + s.compiled_taken_back,
        "{s:?}"
    );
    eprintln!(
        "{} blocks: {} on the thread, {} taken back",
        s.blocks_compiled, s.compiled_in_background, s.compiled_taken_back
    );
}
