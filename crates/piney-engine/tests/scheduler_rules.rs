//! The task scheduler's rules (issue 6: start requests, delete stages, suspend and resume,
//! Breath counts, priority order), through small guest programs that link the demo title's own
//! scheduler: `tests/guest/tasks_*.c` with `demo/src/tscb.c` and `demo/src/heap.c`, built by
//! `tools/build-guest.sh`. Each program runs twice: emulated (no hooks: the guest's scheduler
//! code) and hooked (the profile from its ELF symbols installed, so that piney's native
//! ccThControl, ccTscb_Breath... run instead). Both runs must print exactly the hand-derived
//! `tests/guest/<name>.stdout` (the derivation is in each program's comments) and exit with
//! status 0, and the hooked run must have installed and run the native scheduler.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use piney_engine::{Profile, install};
use piney_machine::{Machine, RunEnd, RunLimits};

/// Every scheduler program (`every_program_is_listed` checks the list against tests/guest).
const PROGRAMS: &[&str] = &["tasks_delete", "tasks_order", "tasks_suspend"];

/// Native functions the hooked run must install and run: the walk's thread and Breath. (The
/// walk itself and GoThread may run inside them natively, never through their guest symbols.)
const MUST_RUN: &[&str] = &["ccThControl", "ccTscb_Breath"];

/// Emulated-time bound: the programs never wait for a vertical blank and need a few
/// milliseconds; this only stops a scheduler that never lets main finish.
const SECONDS: f64 = 1.0;

fn guest_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/guest")
}

/// The guest's stdout (the EE SIO), collected.
struct Sink(Arc<Mutex<Vec<u8>>>);
impl std::io::Write for Sink {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// One run's result.
struct Run {
    end: RunEnd,
    stdout: String,
    /// Installed hooks by name, with the times each ran (empty for the emulated run).
    hook_calls: Vec<(String, u64)>,
}

fn run(name: &str, image: &[u8], hooked: bool) -> Run {
    let out = Arc::new(Mutex::new(Vec::new()));
    let mut m = Machine::new(Box::new(Sink(out.clone())));
    m.attach_renderer(Box::new(piney_gs::SoftwareRenderer::new()));
    m.load_elf(image)
        .unwrap_or_else(|e| panic!("{name}: cannot load: {e}"));
    if hooked {
        let profile = Profile::from_elf_symbols(image)
            .unwrap_or_else(|e| panic!("{name}: no profile from its symbols: {e}"));
        let installed = install(&mut m, &profile, image);
        assert!(
            installed.warnings.is_empty(),
            "{name}: {:?}",
            installed.warnings
        );
        let names: Vec<&str> = installed.hooks.iter().map(|(n, _)| n.as_str()).collect();
        for want in MUST_RUN {
            assert!(
                names.contains(want),
                "{name}: the native {want} is not installed (installed: {names:?})"
            );
        }
    }
    let result = m.run(RunLimits {
        frames: None,
        seconds: Some(SECONDS),
    });
    let stdout = String::from_utf8_lossy(&out.lock().unwrap()).into_owned();
    let how = if hooked { "hooked" } else { "emulated" };
    let end = result.unwrap_or_else(|e| panic!("{name} ({how}): {e}\n--- stdout ---\n{stdout}"));
    let hook_calls = m
        .hooks
        .iter()
        .map(|(_, h)| (h.name.clone(), h.calls))
        .collect();
    Run {
        end,
        stdout,
        hook_calls,
    }
}

/// The first line where `actual` departs from `expected`.
fn first_difference(expected: &str, actual: &str) -> String {
    let (mut e_lines, mut a_lines) = (expected.lines(), actual.lines());
    let mut line = 1;
    loop {
        match (e_lines.next(), a_lines.next()) {
            (Some(e), Some(a)) if e == a => line += 1,
            (Some(e), Some(a)) => return format!("line {line}:\n  expected: {e}\n  actual:   {a}"),
            (Some(e), None) => return format!("line {line}: output ends; expected: {e}"),
            (None, Some(a)) => return format!("line {line}: unexpected extra output: {a}"),
            (None, None) => return "only line endings or a final newline differ".to_string(),
        }
    }
}

fn check_run(name: &str, how: &str, r: &Run, expected: &str) {
    assert!(
        r.stdout == expected,
        "{name} ({how}): stdout differs from tests/guest/{name}.stdout\n{}\n--- stdout ---\n{}",
        first_difference(expected, &r.stdout),
        r.stdout
    );
    assert_eq!(
        r.end,
        RunEnd::Exited(0),
        "{name} ({how}): the program did not exit with status 0"
    );
}

fn load(name: &str) -> (Vec<u8>, String) {
    let dir = guest_dir();
    let elf = dir.join(format!("{name}.elf"));
    let image = std::fs::read(&elf).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (build it with tools/build-guest.sh)",
            elf.display()
        )
    });
    let want = dir.join(format!("{name}.stdout"));
    let expected =
        std::fs::read_to_string(&want).unwrap_or_else(|e| panic!("{}: {e}", want.display()));
    (image, expected)
}

/// The guest's own scheduler code, no hooks.
fn emulated(name: &str) {
    let (image, expected) = load(name);
    let r = run(name, &image, false);
    assert!(r.hook_calls.is_empty(), "{name}: hooks in the emulated run");
    check_run(name, "emulated", &r, &expected);
}

/// The native scheduler hooked in by the program's ELF symbols.
fn hooked(name: &str) {
    let (image, expected) = load(name);
    let r = run(name, &image, true);
    check_run(name, "hooked", &r, &expected);
    for want in MUST_RUN {
        let calls = r
            .hook_calls
            .iter()
            .find(|(n, _)| n == want)
            .map_or(0, |&(_, c)| c);
        assert!(
            calls > 0,
            "{name} (hooked): the native {want} never ran ({:?})",
            r.hook_calls
        );
    }
}

#[test]
fn every_program_is_listed() {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(guest_dir()).expect("tests/guest exists") {
        let path = entry.expect("readable directory entry").path();
        let stem = path
            .file_stem()
            .expect("file name")
            .to_string_lossy()
            .into_owned();
        if stem.starts_with("tasks_") && path.extension().is_some_and(|e| e == "c") {
            found.push(stem);
        }
    }
    found.sort();
    assert_eq!(
        found, PROGRAMS,
        "PROGRAMS must list exactly the tests/guest/tasks_*.c programs"
    );
}

#[test]
fn order_emulated() {
    emulated("tasks_order");
}

#[test]
fn order_hooked() {
    hooked("tasks_order");
}

#[test]
fn delete_emulated() {
    emulated("tasks_delete");
}

#[test]
fn delete_hooked() {
    hooked("tasks_delete");
}

#[test]
fn suspend_emulated() {
    emulated("tasks_suspend");
}

#[test]
fn suspend_hooked() {
    hooked("tasks_suspend");
}
