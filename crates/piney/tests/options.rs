//! Documented options not exercised elsewhere, through the binary: `--deflicker` changes the
//! presented frames (the frame-mode merge of each line with the next), and a valid `--profile`
//! installs the native hooks it names for `piney run` (which installs none without one).

mod piney_support;

use std::path::{Path, PathBuf};
use std::process::Command;

fn piney() -> Command {
    piney_support::command()
}

fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The demo's frame 20 as PNG bytes, with `extra` options.
fn frame20(dir: &Path, extra: &[&str]) -> Vec<u8> {
    let o = piney()
        .args(["demo", "--headless", "--frames", "21", "--dump-frames"])
        .arg(dir)
        .args(extra)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::read(dir.join("000020.png")).unwrap()
}

#[test]
fn deflicker_merges_lines_and_is_deterministic() {
    let d = scratch("opt-deflicker");
    let plain = frame20(&d.join("plain"), &[]);
    let merged = frame20(&d.join("merged"), &["--deflicker"]);
    let again = frame20(&d.join("again"), &["--deflicker"]);
    assert_ne!(plain, merged, "--deflicker changes the picture");
    assert_eq!(merged, again, "the same frames every run");
}

#[test]
fn a_profile_installs_its_hooks_for_run() {
    let d = scratch("opt-profile");
    let profile = d.join("demo.toml");
    std::fs::write(
        &profile,
        "serial = \"PINY-00001\"\ntitle = \"the demo\"\nsymbols_from_elf = true\n",
    )
    .unwrap();
    let elf = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../demo/demo.elf");
    let stats = |extra: &[&str]| {
        let o = piney()
            .arg("run")
            .arg(&elf)
            .args(["--headless", "--frames", "5", "--stats"])
            .args(extra)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let without = stats(&[]);
    assert!(!without.contains("piney: hook "), "{without}");
    let with = stats(&["--profile", profile.to_str().unwrap()]);
    let ran = with
        .lines()
        .find(|l| l.starts_with("piney: hook ccSystem_Ctrl at "))
        .unwrap_or_else(|| panic!("no ccSystem_Ctrl hook in:\n{with}"));
    assert!(ran.ends_with(": 5 calls"), "once a frame: {ran}");
}

/// README: "A hook whose instruction words are not the loaded code waits (a warning says so) and
/// runs once they are there". A profile whose ccPad_ActTick words are not the demo's: `piney
/// run --profile` says the hook waits, and the hook never runs (its code never arrives); with
/// the demo's own words it runs.
#[test]
fn a_hook_whose_words_are_not_the_code_waits() {
    let d = scratch("opt-waiting-hook");
    let elf = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../demo/demo.elf");
    let image = std::fs::read(&elf).unwrap();
    let derived = piney_engine::Profile::from_elf_symbols(&image).unwrap();
    let sym = &derived.symbols["ccPad_ActTick"];
    let words = |w: &[u32]| {
        w.iter()
            .map(|x| format!("{x:#010x}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut wrong = sym.words.clone();
    wrong[1] ^= 1;
    let run = |w: &[u32]| {
        let profile = d.join("p.toml");
        std::fs::write(
            &profile,
            format!(
                "hooks = [\"ccPad_ActTick\"]\n[symbols.ccPad_ActTick]\naddress = {:#x}\nwords = [{}]\n",
                sym.address.unwrap(),
                words(w)
            ),
        )
        .unwrap();
        let o = piney()
            .arg("run")
            .arg(&elf)
            .args(["--headless", "--frames", "30", "--stats", "--profile"])
            .arg(&profile)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let calls = |err: &str| {
        err.lines()
            .find(|l| l.starts_with("piney: hook ccPad_ActTick at "))
            .and_then(|l| l.rsplit(": ").next())
            .map(|c| c.trim_end_matches(" calls").parse::<u64>().unwrap())
            .unwrap_or_else(|| panic!("no hook line in:\n{err}"))
    };
    let waiting = run(&wrong);
    assert!(
        waiting
            .lines()
            .any(|l| l.starts_with("piney: warning: ") && l.contains("hook ccPad_ActTick waits")),
        "{waiting}"
    );
    assert_eq!(calls(&waiting), 0, "{waiting}");
    let right = run(&sym.words);
    assert!(
        !right
            .lines()
            .any(|l| l.starts_with("piney: warning: ") && l.contains("waits")),
        "{right}"
    );
    assert!(calls(&right) > 0, "{right}");
}

/// Two 10 x 10 PNGs that differ in one channel of one pixel by 255: the mean squared error
/// over R, G and B is 255^2 / 300, so the PSNR is 10 log10(300) = 24.77 dB.
fn psnr_pair(dir: &Path) -> (PathBuf, PathBuf) {
    let a = piney_gs::Image::new(10, 10, [0, 0, 0, 255]);
    let mut b = a.clone();
    b.set(4, 6, [255, 0, 0, 255]);
    let (pa, pb) = (dir.join("a.png"), dir.join("b.png"));
    a.write_png(&pa).unwrap();
    b.write_png(&pb).unwrap();
    (pa, pb)
}

#[test]
fn min_psnr_passes_a_frame_at_or_above_it() {
    let d = scratch("opt-min-psnr");
    let (a, b) = psnr_pair(&d);
    let compare = |db: &str| {
        piney()
            .arg("compare")
            .arg(&a)
            .arg(&b)
            .args(["--min-psnr", db, "--diff-dir"])
            .arg(d.join("diff"))
            .output()
            .unwrap()
    };
    let pass = compare("24.7");
    assert_eq!(
        pass.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&pass.stdout)
    );
    assert!(String::from_utf8_lossy(&pass.stdout).contains("24.77"));
    let fail = compare("24.8");
    assert_eq!(fail.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&fail.stdout).contains("1 frames, 1 differ"));
}

/// The window's sound options through the binary: valid values run (headless, where they do
/// not change the sound written: `--dump-audio` is the same file with and without them), and
/// a value out of range or unknown is refused by name with exit 2.
#[test]
fn sound_options_are_read_and_checked() {
    let d = scratch("opt-sound");
    let wav = |name: &str, extra: &[&str]| {
        let p = d.join(name);
        let o = piney()
            .args(["demo", "--headless", "--frames", "30", "--dump-audio"])
            .arg(&p)
            .args(extra)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{extra:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        std::fs::read(p).unwrap()
    };
    let plain = wav("plain.wav", &[]);
    let with = wav(
        "with.wav",
        &[
            "--volume",
            "40",
            "--no-audio",
            "--fast-forward-audio",
            "stretch",
        ],
    );
    assert!(
        plain.len() > 44 + 4 * 48_000 * 30 / 60,
        "{} bytes",
        plain.len()
    );
    assert_eq!(
        plain, with,
        "--dump-audio does not depend on the window's sound options"
    );
    // A negative number is a value refused by name (clap took `-1` for an unknown flag:
    // "unexpected argument '-1' found", naming no option).
    for (args, name) in [
        (&["--volume", "101"][..], "--volume"),
        (&["--volume", "-1"][..], "--volume"),
        (&["--frames", "-1"][..], "--frames"),
        (&["--render-scale", "-1"][..], "--render-scale"),
        (
            &["--fast-forward-audio", "loud"][..],
            "--fast-forward-audio",
        ),
    ] {
        let o = piney()
            .args(["demo", "--headless", "--frames", "1"])
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.lines().next().unwrap_or("").contains(name),
            "{args:?}: {err}"
        );
    }
}

/// Every option `piney --help` and each command's `--help` list, and every one the README
/// names, appears in some test of this crate that runs the binary; `--version` prints the
/// package's version.
#[test]
fn every_documented_option_is_exercised() {
    let help = |args: &[&str]| {
        let o = piney().args(args).output().unwrap();
        assert!(o.status.success(), "{args:?}");
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let v = help(&["--version"]);
    assert_eq!(v.trim(), format!("piney {}", env!("CARGO_PKG_VERSION")));
    let mut text = help(&["--help"]);
    for cmd in [
        "run",
        "demo",
        "info",
        "replay",
        "compare",
        "pad-trace",
        "settings",
    ] {
        text.push_str(&help(&[cmd, "--help"]));
        assert!(text.contains(cmd), "`piney --help` lists {cmd}");
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    text.push_str(&std::fs::read_to_string(root.join("README.md")).unwrap());
    let mut options: Vec<String> = text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .filter(|w| {
            w.starts_with("--")
                && w.len() > 3
                && w[2..].starts_with(|c: char| c.is_ascii_lowercase())
        })
        .map(|w| w.trim_end_matches('-').to_string())
        .collect();
    options.sort();
    options.dedup();
    // Options of the tools the README names (cargo's, the test harness's, tools/soak.sh's,
    // tools/bench-compute.sh's, tools/bench-gs.sh's and gs_bench's: tools/test.sh runs
    // bench-gs.sh with --scales, which runs gs_bench --write-dump).
    let not_piney = [
        "--release",
        "--bench",
        "--example",
        "--check",
        "--test",
        "--nocapture",
        "--jit",
        "--runs",
        "--scales",
        "--write-dump",
    ];
    let tests: String = std::fs::read_dir(root.join("crates/piney/tests"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    let missing: Vec<&String> = options
        .iter()
        .filter(|o| !not_piney.contains(&o.as_str()))
        .filter(|o| !tests.contains(&format!("\"{o}\"")) && !tests.contains(&format!("\"{o} ")))
        .collect();
    assert!(
        options.len() >= 30,
        "the help and the README name {} options: {options:?}",
        options.len()
    );
    assert!(
        missing.is_empty(),
        "documented but not run by any test: {missing:?}"
    );
}
