//! `piney demo` with its native hooks and with `--no-hle`, from the same input script, dumps the
//! same frames (issue 6, "Equivalence"; the guest-visible state is compared by
//! crates/piney-engine/tests/equivalence.rs).
//!
//! One line of the demo's screen is left out: "PLAY ... WORK n HBLANKS ...", whose n is how long
//! the frame's work took in emulated time (EE Timer 0). Native functions take less emulated time
//! than the guest code they replace, so that count may be lower with hooks; everything else must
//! be identical.

mod piney_support;

use std::path::Path;

use piney_gs::Image;

const SCRIPT: &str = "\
30-34 circle
40-41 triangle
50-52 select
60-90 lx=255 ly=128
66-72 lx=220 ly=30
79-84 lx=30 ly=30
95-97 circle
100-110 cross+left
";

const FRAMES: u32 = 110;

/// The frame rows of the demo's work-time line (y 44, 14 rows high) in the 448-line picture.
const WORK_LINE: std::ops::Range<usize> = 44..58;

fn dump(dir: &Path, input: &Path, extra: &[&str]) -> String {
    let out = piney_support::command()
        .args(["demo", "--headless", "--stats", "--frames"])
        .arg(FRAMES.to_string())
        .arg("--input")
        .arg(input)
        .arg("--dump-frames")
        .arg(dir)
        .args(extra)
        .output()
        .expect("piney runs");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    err
}

fn masked(path: &Path) -> Image {
    let mut img = Image::read_png(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(img.height, 448, "{}", path.display());
    let row = img.width as usize * 4;
    img.rgba[WORK_LINE.start * row..WORK_LINE.end * row].fill(0);
    img
}

#[test]
fn hooked_and_emulated_demo_dump_the_same_frames() {
    let dir = std::env::temp_dir().join(format!("piney-hle-eq-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("input.txt");
    std::fs::write(&input, SCRIPT).unwrap();
    let (hle, no_hle) = (dir.join("hle"), dir.join("no-hle"));
    let stats = dump(&hle, &input, &[]);
    // The hooks were installed, and every native function ran (its resume points, the hooks
    // named "function (point)", run only where the guest's path goes through them).
    for hook in piney_engine::NATIVES.iter().map(|n| n.name) {
        let line = stats
            .lines()
            .find(|l| l.starts_with(&format!("piney: hook {hook} at ")))
            .unwrap_or_else(|| panic!("hook {hook} not installed: {stats}"));
        assert!(!line.ends_with(": 0 calls"), "{line}");
    }
    let stats = dump(&no_hle, &input, &["--no-hle"]);
    assert!(!stats.contains("hook "), "{stats}");
    for f in 0..FRAMES as u64 {
        let name = Image::frame_file_name(f);
        let (a, b) = (masked(&hle.join(&name)), masked(&no_hle.join(&name)));
        assert!(
            a == b,
            "frame {name} differs between the hooked and the --no-hle run"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
