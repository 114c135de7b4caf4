//! Save states through the binary (issue 16): `piney demo --headless` run 2N frames with
//! `--save-state-at N` (and at 2N), then a second run `--load-state` at N for N frames: its
//! frames (`--dump-frames`) are the first run's, bit for bit, and its state at 2N is the first
//! run's, byte for byte (the whole guest state: EE, IOP, memories, devices, GS local memory),
//! under `--cpu interp` and `--cpu jit` and `--renderer sw` and `wgpu` (on the adapter wgpu
//! finds: lavapipe in CI), and from a state saved on one engine and renderer to the other. The frame counts are small so the debug build's test stays quick;
//! README's "Save states" gives the 300/300/300 run by hand.
//!
//! Files the IOP keeps open across a save: on `host:` (`open_iop_files_are_saved`) and on a
//! memory card (`memory_card_in_use`: MCMAN's current directory, handles and listing).
//!
//! And the refusals, each one line on stderr and exit status 1: a state of another program,
//! of another piney version or format, a cut or damaged file, a file that is no state.

mod piney_support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn piney() -> Command {
    let mut c = piney_support::command();
    c.env(
        "XDG_DATA_HOME",
        concat!(env!("CARGO_TARGET_TMPDIR"), "/data-home"),
    );
    c
}

/// A fresh scratch folder.
fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("save-states")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn ok(o: Output) -> String {
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{err}");
    err
}

fn frame_files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// 2N frames with states at N and 2N; then from the state at N, N frames and a state at 2N
/// (the second run on `cpu2` and `renderer2`).
fn determinism(cpu: &str, renderer: &str, n: u64) {
    determinism_across(cpu, renderer, cpu, renderer, n);
}

fn determinism_across(cpu: &str, renderer: &str, cpu2: &str, renderer2: &str, n: u64) {
    determinism_at(cpu, renderer, cpu2, renderer2, n, 1);
}

/// [`determinism_across`] at render scale `scale` for both runs.
fn determinism_at(cpu: &str, renderer: &str, cpu2: &str, renderer2: &str, n: u64, scale: u32) {
    let dir = scratch(&format!("{cpu}-{renderer}-{cpu2}-{renderer2}-{scale}x"));
    let scale = scale.to_string();
    let (first, second) = (dir.join("first"), dir.join("second"));
    let at = |f: u64, name: &str| [f.to_string(), dir.join(name).display().to_string()];
    let common = ["demo", "--headless", "--cpu", cpu, "--renderer", renderer];
    let err = ok(piney()
        .args(common)
        .args(["--render-scale", &scale])
        .args(["--frames", &(2 * n).to_string()])
        .arg("--save-state-at")
        .args(at(n, "mid.state"))
        .arg("--save-state-at")
        .args(at(2 * n, "end-first.state"))
        .arg("--dump-frames")
        .arg(&first)
        .output()
        .unwrap());
    assert!(
        err.contains(&format!(
            "state saved to {}",
            dir.join("mid.state").display()
        )),
        "{err}"
    );
    let common = ["demo", "--headless", "--cpu", cpu2, "--renderer", renderer2];
    let err = ok(piney()
        .args(common)
        .args(["--render-scale", &scale])
        .args(["--frames", &n.to_string()])
        .arg("--load-state")
        .arg(dir.join("mid.state"))
        .arg("--save-state-at")
        .args(at(2 * n, "end-second.state"))
        .arg("--dump-frames")
        .arg(&second)
        .output()
        .unwrap());
    assert!(err.contains(&format!("(frame {n})")), "{err}");
    let names = frame_files(&second);
    assert_eq!(
        names.len() as u64,
        n,
        "{cpu} {renderer}: frames after the state"
    );
    assert_eq!(names[0], format!("{n:06}.png"));
    let mut moved = false;
    for name in &names {
        let a = std::fs::read(first.join(name)).unwrap();
        let b = std::fs::read(second.join(name)).unwrap();
        assert!(
            a == b,
            "{cpu} {renderer}: frame {name} differs after the state"
        );
        moved |= a != std::fs::read(second.join(&names[0])).unwrap();
    }
    assert!(moved, "the demo's picture moves over the frames compared");
    let a = std::fs::read(dir.join("end-first.state")).unwrap();
    let b = std::fs::read(dir.join("end-second.state")).unwrap();
    assert!(
        a == b,
        "{cpu} {renderer}: the machine's state at frame {} differs",
        2 * n
    );
}

#[test]
fn interp_sw() {
    determinism("interp", "sw", 60);
}

#[test]
fn jit_sw() {
    determinism("jit", "sw", 60);
}

#[test]
fn interp_wgpu() {
    determinism("interp", "wgpu", 8);
}

#[test]
fn jit_wgpu() {
    determinism("jit", "wgpu", 8);
}

/// A state is the machine's, whatever ran it: saved on the interpreter and the software
/// renderer, loaded on the recompiler and wgpu, the same frames and state follow.
#[test]
fn interp_sw_to_jit_wgpu() {
    determinism_across("interp", "sw", "jit", "wgpu", 8);
}

/// At render scale 2 a state keeps the fine samples: the frames after a load (twice the size)
/// are the original run's, bit for bit, on either renderer, and a state saved by one loads in
/// the other.
#[test]
fn jit_sw_at_scale_2() {
    determinism_at("jit", "sw", "jit", "sw", 30, 2);
}

#[test]
fn jit_sw_to_wgpu_at_scale_2() {
    determinism_at("jit", "sw", "jit", "wgpu", 6, 2);
}

/// Files open on the IOP are part of a state: tests/iop/hostlog.irx keeps a log file, a file
/// opened for reading and writing and rom0:ROMVER open across frames, a step every 20 ms. A
/// state saved among its steps, loaded into a new run, carries on with the same files at the
/// same positions: that run prints the rest of the module's expected output (each "data at N"
/// and ROM piece where the first run was), and the files it leaves are the first run's. The
/// files are named by their `host:` paths, so the load works from another folder holding them
/// (the program and its files moved there); a state whose host file has gone is refused,
/// naming the file.
#[test]
fn open_iop_files_are_saved() {
    let dir = scratch("open-files");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    std::fs::copy(root.join("tests/iop/hostlog.irx"), dir.join("hostlog.irx")).unwrap();
    let expected = std::fs::read_to_string(root.join("tests/iop/hostlog.stdout")).unwrap();
    let state = dir.join("mid.state");
    let moved = dir.join("moved");
    let run_in = |folder: &Path, extra: &[&std::ffi::OsStr]| {
        piney()
            .current_dir(folder)
            .args(["run", "--headless", "hostlog.irx", "--frames", "30"])
            .args(extra)
            .output()
            .unwrap()
    };
    let first = run_in(
        &dir,
        &["--save-state-at".as_ref(), "5".as_ref(), state.as_os_str()],
    );
    let out = String::from_utf8_lossy(&first.stdout).into_owned();
    ok(first);
    assert!(out.ends_with(&expected), "{out}");
    let files = |name: &str| std::fs::read(moved.join(name)).unwrap();
    // The program and its files move to another folder; the state is loaded there.
    std::fs::create_dir_all(&moved).unwrap();
    for name in ["hostlog.irx", "hostlog.txt", "hostlog.dat"] {
        std::fs::rename(dir.join(name), moved.join(name)).unwrap();
    }
    let (log, data) = (files("hostlog.txt"), files("hostlog.dat"));

    let second = run_in(&moved, &["--load-state".as_ref(), state.as_os_str()]);
    let rest = String::from_utf8_lossy(&second.stdout).into_owned();
    ok(second);
    // The state was saved among the steps: the second run starts at a later step.
    let first_step = rest
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("step "))
        .and_then(|l| l.split(':').next())
        .and_then(|n| n.parse::<u32>().ok())
        .unwrap_or_else(|| panic!("the loaded run does not start at a step: {rest}"));
    assert!((1..8).contains(&first_step), "{rest}");
    assert!(expected.ends_with(&rest), "the loaded run's output: {rest}");
    assert_eq!(files("hostlog.txt"), log);
    assert_eq!(files("hostlog.dat"), data);

    std::fs::rename(moved.join("hostlog.txt"), moved.join("renamed.txt")).unwrap();
    let gone = run_in(&moved, &["--load-state".as_ref(), state.as_os_str()]);
    let err = String::from_utf8_lossy(&gone.stderr).into_owned();
    assert_eq!(gone.status.code(), Some(1), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("hostlog.txt") && err.contains("cannot be opened"),
        "{err}"
    );
    assert!(gone.stdout.is_empty(), "the program ran");
}

/// A copy of a memory card: a folder card's whole tree, or an image file.
fn copy_card(from: &Path, to: &Path) {
    if from.is_dir() {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            copy_card(&e.path(), &to.join(e.file_name()));
        }
    } else {
        std::fs::copy(from, to).unwrap();
    }
}

/// A save state taken while a memory card is in use (tests/guest/iop_mcstate.elf: a current
/// directory, a file open and half written, a directory open, a listing half read) and loaded
/// over the card as it was then: the loaded run's output is the rest of the first run's, and
/// the card it leaves is the first run's, byte for byte. The card as it was at the save is
/// what a run stopped at that frame leaves (its state at that frame is the same state). Then
/// the same card without the open file, and no card at all: refused, naming the file.
fn memory_card_in_use(card: &str) {
    let dir = scratch(&format!("memory-card-{card}"));
    let elf = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/guest/iop_mcstate.elf");
    let expected = std::fs::read_to_string(elf.with_extension("stdout")).unwrap();
    let run = |card: &Path, frames: &str, extra: &[&std::ffi::OsStr]| {
        piney()
            .arg("run")
            .arg(&elf)
            .args(["--headless", "--config", "/dev/null", "--frames", frames])
            .arg("--memcard1")
            .arg(card)
            .arg("--memcard2")
            .arg(dir.join("port2"))
            .args(extra)
            .output()
            .unwrap()
    };
    fn at(state: &Path) -> [&std::ffi::OsStr; 3] {
        ["--save-state-at".as_ref(), "8".as_ref(), state.as_os_str()]
    }
    let (whole, then) = (
        dir.join(format!("whole-{card}")),
        dir.join(format!("then-{card}")),
    );
    let (state, again) = (dir.join("mid.state"), dir.join("again.state"));
    let first = run(&whole, "300", &at(&state));
    let out = String::from_utf8_lossy(&first.stdout).into_owned();
    ok(first);
    assert_eq!(out, expected);
    ok(run(&then, "8", &at(&again)));
    assert_eq!(
        std::fs::read(&again).unwrap(),
        std::fs::read(&state).unwrap()
    );
    let gone = dir.join(format!("gone-{card}"));
    copy_card(&then, &gone);

    let load = ["--load-state".as_ref(), state.as_os_str()];
    let second = run(&then, "300", &load);
    let rest = String::from_utf8_lossy(&second.stdout).into_owned();
    ok(second);
    assert!(rest.starts_with("step "), "{rest}");
    assert!(
        rest.len() < expected.len() && expected.ends_with(&rest),
        "{rest}"
    );
    let bytes = |card: &Path, f: &str| {
        std::fs::read(if card.is_dir() {
            card.join(f)
        } else {
            card.to_path_buf()
        })
        .unwrap()
    };
    for f in [".piney-mc", "PINEY-STATE/.piney-mc", "PINEY-STATE/log.bin"] {
        assert_eq!(bytes(&then, f), bytes(&whole, f), "{f}");
    }

    // The open file gone from the card: refused.
    if gone.is_dir() {
        std::fs::remove_file(gone.join("PINEY-STATE/log.bin")).unwrap();
    } else {
        let mut c =
            piney_memcard::open_card(&gone, piney_memcard::Timestamp::RTC_FALLBACK).unwrap();
        c.delete(b"/PINEY-STATE/log.bin").unwrap();
    }
    for (card, what) in [
        (
            gone,
            "the open file /PINEY-STATE/log.bin cannot be found on the card again",
        ),
        (
            dir.join("nothing"),
            "is not there, and the state has mc0:/PINEY-STATE/log.bin open",
        ),
    ] {
        let o = run(&card, "300", &load);
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(err.contains(what), "{err}");
        assert!(o.stdout.is_empty(), "the program ran");
        assert!(!dir.join("nothing").exists(), "a missing card was created");
    }
}

#[test]
fn a_folder_card_in_use_is_saved() {
    memory_card_in_use("card");
}

#[test]
fn a_ps2_image_in_use_is_saved() {
    memory_card_in_use("card.ps2");
}

/// One `--load-state` that must fail: exit status 1, one line on stderr naming the file and
/// containing `what`, no frame run.
fn refused(program: &[&str], state: &Path, what: &str) {
    let o = piney()
        .args(program)
        .args(["--headless", "--frames", "1", "--load-state"])
        .arg(state)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "one line: {err}");
    assert!(
        lines[0].starts_with(&format!("piney: --load-state {}: ", state.display()))
            && lines[0].contains(what),
        "{err}"
    );
    assert!(
        o.stdout.is_empty(),
        "the program ran: {}",
        String::from_utf8_lossy(&o.stdout)
    );
}

#[test]
fn bad_states_are_refused() {
    let dir = scratch("refused");
    let state = dir.join("demo.state");
    ok(piney()
        .args([
            "demo",
            "--headless",
            "--cpu",
            "interp",
            "--renderer",
            "sw",
            "--frames",
            "4",
        ])
        .arg("--save-state-at")
        .arg("4")
        .arg(&state)
        .output()
        .unwrap());
    let bytes = std::fs::read(&state).unwrap();
    let demo: &[&str] = &["demo"];

    // Another program: a guest test program given the demo's state.
    let alu = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/guest/alu.elf");
    let alu = alu.to_str().unwrap();
    refused(&["run", alu], &state, "a save state of another program");

    // Another piney version (the header's version text) and another format.
    let v = env!("CARGO_PKG_VERSION").len();
    let mut b = bytes.clone();
    b[16..16 + v].fill(b'9');
    let f = dir.join("version.state");
    std::fs::write(&f, &b).unwrap();
    refused(
        demo,
        &f,
        &format!("a save state of piney {}", "9".repeat(v)),
    );
    let mut b = bytes.clone();
    b[8] = 0x7f;
    let f = dir.join("format.state");
    std::fs::write(&f, &b).unwrap();
    refused(demo, &f, "format 127");

    // Cut short, damaged, not a state.
    let f = dir.join("cut.state");
    std::fs::write(&f, &bytes[..bytes.len() * 2 / 3]).unwrap();
    refused(demo, &f, "cut short");
    let mut b = bytes.clone();
    let n = b.len();
    b[n / 2] ^= 0x10;
    let f = dir.join("damaged.state");
    std::fs::write(&f, &b).unwrap();
    refused(demo, &f, "damaged");
    let f = dir.join("text.state");
    std::fs::write(&f, "not a state\n").unwrap();
    refused(demo, &f, "not a piney save state");
    refused(demo, &dir.join("missing.state"), "No such file");

    // A bad --save-state-at frame is an option error.
    let o = piney()
        .args(["demo", "--headless", "--save-state-at", "x", "s"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
}
