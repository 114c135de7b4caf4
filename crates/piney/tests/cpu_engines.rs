//! The recompiler against the interpreter on whole programs: the same guest output and the same
//! frames, bit for bit (`--cpu jit` and `--cpu interp`), and on the demo (whose profile hooks
//! its engine functions) the same native hook calls: the recompiler stops wherever a hook sits,
//! so each runs as often as under the interpreter.

use std::path::{Path, PathBuf};
use std::process::Command;

fn piney() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_piney"));
    // settings.toml: a config folder of the tests' own, never the user's (see README).
    c.env(
        "XDG_CONFIG_HOME",
        concat!(env!("CARGO_TARGET_TMPDIR"), "/config-home"),
    );
    c
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn guest_programs_print_the_same_on_both_engines() {
    for name in [
        "bench_compute",
        "alu",
        "mmi",
        "fpu",
        "threads",
        "intr",
        "cop2_interlock",
        "vif0_mscal",
        "path1_timing",
    ] {
        let elf = root().join(format!("tests/guest/{name}.elf"));
        let run = |cpu: &str| {
            let o = piney()
                .arg("run")
                .arg(&elf)
                .args(["--headless", "--seconds", "20", "--cpu", cpu])
                .output()
                .unwrap();
            assert!(
                o.status.success(),
                "{name} --cpu {cpu}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            o.stdout
        };
        let interp = run("interp");
        assert!(!interp.is_empty(), "{name} printed nothing");
        assert_eq!(
            String::from_utf8_lossy(&run("jit")),
            String::from_utf8_lossy(&interp),
            "{name}"
        );
    }
}

#[test]
fn the_demo_draws_the_same_frames_on_both_engines() {
    let frames = |cpu: &str| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("engines-{cpu}"));
        let _ = std::fs::remove_dir_all(&dir);
        let o = piney()
            .args([
                "demo",
                "--headless",
                "--frames",
                "45",
                "--cpu",
                cpu,
                "--stats",
                "--dump-frames",
            ])
            .arg(&dir)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "--cpu {cpu}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let mut names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        names.sort();
        // `--stats` lists every hook with its calls, one line each.
        let mut hooks: Vec<String> = String::from_utf8_lossy(&o.stderr)
            .lines()
            .filter(|l| l.starts_with("piney: hook "))
            .map(str::to_string)
            .collect();
        hooks.sort();
        let frames = names
            .iter()
            .map(|p| std::fs::read(p).unwrap())
            .collect::<Vec<_>>();
        (frames, hooks)
    };
    let ((interp, interp_hooks), (jit, jit_hooks)) = (frames("interp"), frames("jit"));
    // The hooks ran (the demo's profile is in use), and as often on both engines.
    assert!(
        interp_hooks.iter().any(|l| !l.ends_with(": 0 calls")),
        "{interp_hooks:?}"
    );
    assert_eq!(jit_hooks, interp_hooks);
    assert_eq!(interp.len(), 45);
    assert_eq!(jit.len(), 45);
    for (n, (a, b)) in interp.iter().zip(&jit).enumerate() {
        assert!(
            a == b,
            "frame {n} differs between the interpreter and the recompiler"
        );
    }
}
