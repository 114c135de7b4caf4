//! Benchmark (not a timed test): the recompiler against the reference interpreter on the
//! compute-heavy guest program tests/guest/bench_compute.elf, in one run: the same program on
//! both engines from the same loaded state, best of three each, the ratio of their speeds, and a
//! check that both end in the same state with the same output.
//!
//! The bus is the machine's `EeBus` (through a newtype that lends its RAM to the fast path); the
//! only kernel service the program needs is Exit (syscall 4), handled here.
//!
//! Run: `cargo bench -p piney-jit --bench jit`.

use std::path::Path;
use std::time::Instant;

use piney_ee::{Bus, BusFault, Cpu, ExceptionKind};
use piney_jit::{Jit, JitBus};
use piney_machine::EeBus;

struct MachBus(EeBus);

macro_rules! fwd {
    ($r:ident, $w:ident, $t:ty) => {
        fn $r(&mut self, a: u32) -> Result<$t, BusFault> {
            self.0.$r(a)
        }
        fn $w(&mut self, a: u32, v: $t) -> Result<(), BusFault> {
            self.0.$w(a, v)
        }
    };
}

impl Bus for MachBus {
    fwd!(read8, write8, u8);
    fwd!(read16, write16, u16);
    fwd!(read32, write32, u32);
    fwd!(read64, write64, u64);
    fwd!(read128, write128, u128);
}

impl JitBus for MachBus {
    fn ram(&mut self) -> &mut [u8] {
        &mut self.0.ram
    }
    fn scratchpad(&mut self) -> &mut [u8] {
        &mut self.0.spr
    }
    fn sync_cycles(&mut self, cycles: u64) {
        self.0.now = cycles;
    }
}

/// Run to Exit; returns (exit status, guest instructions or 0, output). `jit`: use the
/// recompiler, else the interpreter.
fn run(image: &[u8], jit: Option<&mut Jit>) -> (Cpu, i32, Vec<u8>, u64) {
    let mut bus = MachBus(EeBus::new());
    let entry = piney_machine::elf::load(image, &mut bus.0).expect("bench_compute.elf loads");
    let mut cpu = Cpu::new();
    cpu.set32(29, 0x01ff_0000);
    cpu.jump_to(entry);
    let mut steps = 0u64;
    let mut jit = jit;
    let status = loop {
        let r = match jit.as_deref_mut() {
            Some(j) => j.run(&mut cpu, &mut bus, u64::MAX),
            None => loop {
                steps += 1;
                if let Err(e) = piney_ee::interp::step(&mut cpu, &mut bus) {
                    break Err(e);
                }
            },
        };
        match r {
            Ok(()) => continue,
            Err(e) if e.kind == ExceptionKind::Syscall && cpu.r32(3) == 4 => {
                break cpu.r32(4) as i32;
            }
            Err(e) => panic!("bench: unexpected exception {e}"),
        }
    };
    (cpu, status, std::mem::take(&mut bus.0.out), steps)
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let elf = root.join("tests/guest/bench_compute.elf");
    let image = match std::fs::read(&elf) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("bench: cannot read {}: {e}", elf.display());
            std::process::exit(1);
        }
    };
    let mut best_i = f64::MAX;
    let mut best_cold = f64::MAX;
    let mut best_warm = f64::MAX;
    let mut reference = None;
    let mut instructions = 0;
    let mut last_jit = None;
    // One recompiler kept warm across the runs: the program's bytes are the same every time, so
    // its blocks stay valid (the warm time is execution only; the cold time includes compiling).
    let mut warm = Jit::new().expect("the recompiler starts on this host");
    run(&image, Some(&mut warm));
    for _ in 0..3 {
        let t = Instant::now();
        let (cpu, status, out, steps) = run(&image, None);
        best_i = best_i.min(t.elapsed().as_secs_f64());
        instructions = steps;
        reference = Some((cpu, status, out));

        let mut jit = Jit::new().expect("the recompiler starts on this host");
        let t = Instant::now();
        let r = run(&image, Some(&mut jit));
        best_cold = best_cold.min(t.elapsed().as_secs_f64());
        last_jit = Some((r, jit.stats().clone()));

        let t = Instant::now();
        let rw = run(&image, Some(&mut warm));
        best_warm = best_warm.min(t.elapsed().as_secs_f64());
        assert!(
            rw.0 == last_jit.as_ref().expect("ran").0.0,
            "warm and cold runs differ"
        );
    }
    let (cpu_i, status_i, out_i) = reference.expect("ran");
    let ((cpu_j, status_j, out_j, _), stats) = last_jit.expect("ran");
    let same = cpu_i == cpu_j && status_i == status_j && out_i == out_j;
    println!(
        "guest output: {}",
        String::from_utf8_lossy(&out_j).trim_end()
    );
    let mips = |t: f64| instructions as f64 / t / 1e6;
    println!(
        "interpreter: {instructions} guest instructions in {best_i:.3} s: {:.1} M instructions/s",
        mips(best_i)
    );
    println!(
        "recompiler, cold (compiling included): {best_cold:.3} s: {:.1} M instructions/s ({} blocks compiled, {} native + {} fallback instructions, {} block entries, {} interpreter steps)",
        mips(best_cold),
        stats.blocks_compiled,
        stats.native.iter().sum::<u64>(),
        stats.fallback,
        stats.block_runs,
        stats.interp_steps
    );
    println!(
        "recompiler, warm (blocks already compiled): {best_warm:.3} s: {:.1} M instructions/s",
        mips(best_warm)
    );
    println!(
        "speed ratio recompiler / interpreter: {:.2}x cold, {:.2}x warm",
        best_i / best_cold,
        best_i / best_warm
    );
    if !same {
        eprintln!("bench: the recompiler's final state differs from the interpreter's");
        std::process::exit(1);
    }
    println!("final state and output identical: yes");
}
