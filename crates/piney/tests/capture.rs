//! `--capture FILE --capture-frames A-B`: an animated PNG of the presented frames, checked with
//! a decoder that is not ours (`apngdis`, Debian's package of the same name, splits an APNG
//! into one PNG a frame): the frame count, the size, and every frame equal to what
//! `--dump-frames` writes for the same vertical blank.

#[path = "piney_support/apng.rs"]
mod apng;
mod piney_support;

use std::path::{Path, PathBuf};

use piney_gs::Image;

fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn piney(args: &[&str]) -> (Option<i32>, String) {
    let o = piney_support::command().args(args).output().unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn an_animated_capture_holds_the_dumped_frames() {
    let d = scratch("capture");
    let frames = d.join("frames");
    let apng = d.join("demo.png");
    let (code, err) = piney(&[
        "demo",
        "--headless",
        "--frames",
        "40",
        "--dump-frames",
        frames.to_str().unwrap(),
        "--capture",
        apng.to_str().unwrap(),
        "--capture-frames",
        "12-35",
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains(&format!("capture {}: 24 frames", apng.display())),
        "{err}"
    );
    let split = apng::split(&apng);
    assert_eq!(split.len(), 24, "{split:?}");
    for (i, p) in split.iter().enumerate() {
        let got = Image::read_png(p).unwrap();
        let want = Image::read_png(&frames.join(Image::frame_file_name(12 + i as u64))).unwrap();
        assert_eq!((got.width, got.height), (want.width, want.height));
        assert!(
            got == want,
            "capture frame {i} is not dumped frame {}",
            12 + i
        );
    }
}

#[test]
fn capture_ranges_are_checked() {
    for (range, code) in [("40-10", Some(2)), ("x", Some(2))] {
        let (c, err) = piney(&[
            "demo",
            "--headless",
            "--frames",
            "1",
            "--capture",
            "/nonexistent/x.png",
            "--capture-frames",
            range,
        ]);
        assert_eq!(c, code, "{range}: {err}");
    }
    // --capture-frames alone is a wrong command line.
    let (c, _) = piney(&["demo", "--headless", "--capture-frames", "1-2"]);
    assert_eq!(c, Some(2));
    // A file that cannot be made: one line, exit 1.
    let (c, err) = piney(&[
        "demo",
        "--headless",
        "--frames",
        "3",
        "--capture",
        "/nonexistent/dir/x.png",
    ]);
    assert_eq!(c, Some(1), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("/nonexistent/dir/x.png"), "{err}");
}
