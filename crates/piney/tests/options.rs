//! Documented options not exercised elsewhere, through the binary: `--deflicker` changes the
//! presented frames (the frame-mode merge of each line with the next), and a valid `--profile`
//! installs the native hooks it names for `piney run` (which installs none without one).

use std::path::{Path, PathBuf};
use std::process::Command;

fn piney() -> Command {
    Command::new(env!("CARGO_BIN_EXE_piney"))
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
    assert!(!right.contains("waits"), "{right}");
    assert!(calls(&right) > 0, "{right}");
}
