//! Runs piney's own guest programs (`tests/guest/*.elf`, built from their C and assembly sources
//! by `tools/build-guest.sh`) under `piney run --headless` and checks that the guest's stdout is
//! exactly the committed `tests/guest/<name>.stdout` and that the run exits with status 0.
//!
//! The expected outputs are hand-derived facts about the R5900, the VU0 and the EE kernel (and,
//! for the portable programs, checked against MIPS32 under qemu-mipsel by `tools/check-qemu.sh`);
//! they are never produced by piney. One test per program, plus a test that every program with
//! an expected output has its test here.

mod piney_support;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

/// Emulated-time bound passed to `piney run`.
const EMULATED_SECONDS: &str = "10";
/// Wall-clock bound for one run: a guard against a hung host process, not a speed requirement.
const WALL_LIMIT: Duration = Duration::from_secs(300);

fn guest_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/guest")
}

/// Runs one program and returns (exit success, stdout, stderr). Its memory cards are fresh
/// folders of its own (never the user's).
fn run_piney(elf: &Path) -> (bool, Vec<u8>, String) {
    let cards = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("guest-cards")
        .join(elf.file_stem().expect("a file name"));
    let _ = std::fs::remove_dir_all(&cards);
    let mut child = piney_support::command()
        .arg("run")
        .arg(elf)
        .args(["--headless", "--seconds", EMULATED_SECONDS])
        .arg("--memcard1")
        .arg(cards.join("Mcd001"))
        .arg("--memcard2")
        .arg(cards.join("Mcd002"))
        // A program's pads come from its `<name>.input` script when it has one.
        .args(
            Some(elf.with_extension("input"))
                .filter(|i| i.exists())
                .map(|i| vec![std::ffi::OsString::from("--input"), i.into_os_string()])
                .unwrap_or_default(),
        )
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start piney: {e}"));
    // Drain both pipes on their own threads so that a chatty guest cannot block on a full pipe.
    let mut out_pipe = child.stdout.take().expect("stdout is piped");
    let mut err_pipe = child.stderr.take().expect("stderr is piped");
    let out_thread = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = out_pipe.read_to_end(&mut buf);
        buf
    });
    let err_thread = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = err_pipe.read_to_end(&mut buf);
        buf
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() > WALL_LIMIT => {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "{}: piney still running after {WALL_LIMIT:?}; killed",
                    elf.display()
                );
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => panic!("waiting for piney: {e}"),
        }
    };
    let stdout = out_thread.join().expect("stdout reader");
    let stderr = String::from_utf8_lossy(&err_thread.join().expect("stderr reader")).into_owned();
    (status.success(), stdout, stderr)
}

/// Describes the first difference between the expected and actual output.
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

fn check(name: &str) {
    let dir = guest_dir();
    let elf = dir.join(format!("{name}.elf"));
    let expected_path = dir.join(format!("{name}.stdout"));
    assert!(
        elf.is_file(),
        "{} is missing (run tools/build-guest.sh)",
        elf.display()
    );
    let expected = std::fs::read_to_string(&expected_path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", expected_path.display()));
    let (ok, stdout, stderr) = run_piney(&elf);
    let actual = String::from_utf8_lossy(&stdout);
    if actual != expected {
        panic!(
            "{name}: stdout differs from {}\n{}\n--- stderr ---\n{stderr}",
            expected_path.display(),
            first_difference(&expected, &actual)
        );
    }
    assert!(
        ok,
        "{name}: piney exited with an error\n--- stderr ---\n{stderr}"
    );
}

#[test]
fn every_program_has_a_test() {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(guest_dir()).expect("tests/guest exists") {
        let path = entry.expect("readable directory entry").path();
        if path.extension().is_some_and(|e| e == "elf") && path.with_extension("stdout").is_file() {
            let stem = path
                .file_stem()
                .expect("file name")
                .to_string_lossy()
                .into_owned();
            found.push(stem);
        }
    }
    found.sort();
    let listed: Vec<String> = PROGRAMS.iter().map(|s| s.to_string()).collect();
    assert_eq!(
        found, listed,
        "PROGRAMS must list exactly the tests/guest programs with a .stdout"
    );
}

/// One `#[test]` per program, and `PROGRAMS`, the list `every_program_has_a_test` checks.
macro_rules! guest_tests {
    ($($name:ident),* $(,)?) => {
        /// Every program that has an expected output.
        const PROGRAMS: &[&str] = &[$(stringify!($name)),*];
        $(
            #[test]
            fn $name() {
                check(stringify!($name));
            }
        )*
    };
}

guest_tests!(
    alu,
    alu64,
    bench_compute,
    branch,
    control,
    cop0,
    cop2_interlock,
    fpu,
    hello,
    intr,
    iop_exec,
    iop_mcstate,
    iop_rpc,
    iop_standin,
    iop_startup,
    ipu,
    loadstore,
    mmi,
    muldiv,
    muldiv64,
    pad,
    path1_timing,
    sema,
    sio_asm,
    tasks_delete,
    tasks_order,
    tasks_suspend,
    threads,
    vif0_mscal,
    vif1_download,
    vu0,
    xpad,
);
