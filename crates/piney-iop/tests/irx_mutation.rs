//! The IRX loader against broken modules: our own modules (tests/iop/*.irx and the demo's
//! demo/iop/ccmon.irx, the committed seed corpus) mutated by a seeded PRNG: bits flipped,
//! interesting words written over header fields, relocation entries and code, the file cut
//! short or grown. Every mutant is parsed and loaded on an IOP: an error or a module, never a
//! panic. Some of them are also started and run for a bounded time: an IOP error (a fault
//! naming the pc) or an end, never a panic or a hang.

use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The seed corpus.
fn seeds() -> Vec<(String, Vec<u8>)> {
    let mut v = Vec::new();
    for dir in ["tests/iop", "demo/iop"] {
        let mut names: Vec<_> = std::fs::read_dir(root().join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "irx"))
            .collect();
        names.sort();
        for p in names {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            v.push((name, std::fs::read(&p).unwrap()));
        }
    }
    assert!(v.len() >= 10, "the seed corpus is there");
    v
}

/// xorshift64*, seeded: the same mutants every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Words that break loaders: zero, all ones, sign bits, huge sizes and offsets, the relocation
/// types (R_MIPS_32 2, 26 4, HI16 5, LO16 6), the import magic, an address past IOP RAM.
const INTERESTING: [u32; 12] = [
    0,
    0xffff_ffff,
    0x8000_0000,
    0x7fff_ffff,
    0x0020_0000,
    0x0001_0000,
    2,
    4,
    5,
    6,
    0x41e0_0000,
    0x1fff_fff0,
];

/// A mutant of `seed`: one to four changes.
fn mutate(rng: &mut Rng, seed: &[u8]) -> Vec<u8> {
    let mut m = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        match rng.below(6) {
            // A bit anywhere.
            0 => {
                let i = rng.below(m.len());
                m[i] ^= 1 << rng.below(8);
            }
            // A word of the ELF header, the program headers or the .iopmod header.
            1 => {
                let at = rng.below(0x74 + 28) & !3;
                put(&mut m, at, INTERESTING[rng.below(INTERESTING.len())]);
            }
            // A word anywhere (code, relocations, tables).
            2 => {
                let at = rng.below(m.len()) & !3;
                put(&mut m, at, INTERESTING[rng.below(INTERESTING.len())]);
            }
            // A random word anywhere.
            3 => {
                let at = rng.below(m.len()) & !3;
                let w = rng.next() as u32;
                put(&mut m, at, w);
            }
            // Cut short.
            4 => {
                let n = rng.below(m.len());
                m.truncate(n);
            }
            // Grown with junk.
            _ => {
                for _ in 0..rng.below(64) {
                    m.push(rng.next() as u8);
                }
            }
        }
        if m.is_empty() {
            break;
        }
    }
    m
}

fn put(m: &mut [u8], at: usize, w: u32) {
    if let Some(s) = m.get_mut(at..at + 4) {
        s.copy_from_slice(&w.to_le_bytes());
    }
}

#[test]
fn mutated_modules_load_or_fail_cleanly() {
    let seeds = seeds();
    let mut rng = Rng(0x1f2e_3d4c_5b6a_7988);
    let (mut loaded, mut refused) = (0, 0);
    let mut iop = piney_iop::Iop::new();
    for round in 0..2400 {
        // A fresh IOP now and then, so that its memory does not fill with loaded mutants.
        if round % 40 == 0 {
            iop = piney_iop::Iop::new();
        }
        let (name, seed) = &seeds[rng.below(seeds.len())];
        let m = mutate(&mut rng, seed);
        let _ = piney_iop::irx::parse(name, &m);
        if iop.load_module_image(name, &m) >= 0 {
            loaded += 1;
        } else {
            refused += 1;
        }
    }
    // The mutations reach both outcomes (a test that only ever refused would prove little).
    eprintln!("{loaded} loaded, {refused} refused");
    assert!(
        loaded > 100 && refused > 100,
        "{loaded} loaded, {refused} refused"
    );
}

#[test]
fn mutated_modules_run_to_an_end_or_a_fault() {
    let seeds = seeds();
    let mut rng = Rng(0x0bad_c0de_dead_beef);
    let (mut ended, mut faulted) = (0, 0);
    for _ in 0..120 {
        let (name, seed) = &seeds[rng.below(seeds.len())];
        let m = mutate(&mut rng, seed);
        let mut iop = piney_iop::Iop::new();
        iop.queue_module(name, m, &[]);
        // A fiftieth of an emulated second: enough for the seeds' _start to run.
        match iop.run_bare(piney_iop::IOP_CLOCK_HZ / 50) {
            Ok(_) => ended += 1,
            Err(e) => {
                let line = e.to_string();
                assert!(!line.contains('\n'), "one line: {line}");
                faulted += 1;
            }
        }
    }
    eprintln!("{ended} ended, {faulted} faulted");
    assert!(ended > 0, "{ended} ended, {faulted} faulted");
}

/// A module's name comes from its own bytes (.iopmod, its id record) and a path may be one a
/// guest asked for: errors print them escaped, so they stay one line (piney-fuzz found a
/// mutated module faulting "in module rpcserver]U\u{14}" with the control character raw).
#[test]
fn names_from_modules_are_printed_escaped() {
    let fault = piney_iop::IopError::Fault {
        module: Some("rpcserver]U\u{14}, +0x1dc".into()),
        pc: 0x1820c,
        what: "reserved instruction 0xd024c700 at pc 0x0001820c".into(),
    };
    assert_eq!(
        fault.to_string(),
        "IOP: reserved instruction 0xd024c700 at pc 0x0001820c (in module rpcserver]U\\u{14}, +0x1dc)"
    );
    let load = piney_iop::irx::IrxError {
        module: "host:a\nb.irx".into(),
        what: "not an ELF".into(),
    };
    assert_eq!(load.to_string(), "module host:a\\nb.irx: not an ELF");
    let native = piney_iop::IopError::Native {
        module: "mcserv".into(),
        what: format!("{}\r", "x".repeat(300)),
    };
    let text = native.to_string();
    assert!(!text.contains('\r') && text.len() < 260, "{text}");
}
