//! The demo under a scripted input (Adjust Screen moved to x +48, y +16, so the display offset,
//! the pad and the 2D and 3D layers all change) drawn by `--renderer sw` and `--renderer wgpu`
//! through the binary: every frame of `--dump-frames` must be identical, pixel for pixel. The
//! wgpu renderer runs on the adapter wgpu finds (Mesa's lavapipe in CI; `mesa-vulkan-drivers`);
//! a fallback to the software renderer would make the check vacuous, so it fails the test.
//!
//! The software renderer's general path, its specialised paths and its threads are compared the
//! same way.
//!
//! CI takes the demo's first 600 frames at scale 1 (about two minutes on lavapipe here) and 46
//! at scale 2, and 201 through the software renderer's paths and threads;
//! `PINEY_AGREE_FRAMES=N` takes N at scale 1 in both.

mod piney_support;

use std::path::{Path, PathBuf};

use piney_gs::Image;

/// `PINEY_AGREE_FRAMES`, else `default`.
fn frames(default: u64) -> u64 {
    std::env::var("PINEY_AGREE_FRAMES")
        .ok()
        .and_then(|f| f.parse().ok())
        .unwrap_or(default)
}

fn render(renderer: &str, n: u64, scale: u32) -> PathBuf {
    render_with(renderer, n, scale, &[])
}

fn render_with(renderer: &str, n: u64, scale: u32, extra: &[&str]) -> PathBuf {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("agree-{renderer}-{scale}{}", extra.join("_")));
    let _ = std::fs::remove_dir_all(&out);
    let input = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/input/adjust_screen.txt");
    let o = piney_support::command()
        .args(["demo", "--headless", "--renderer", renderer, "--frames"])
        .arg(n.to_string())
        .arg("--render-scale")
        .arg(scale.to_string())
        .arg("--input")
        .arg(&input)
        .arg("--dump-frames")
        .arg(&out)
        .args(extra)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{renderer}: {err}");
    assert!(
        !err.contains("drawing with the software renderer"),
        "no GPU adapter, so nothing was compared: {err}"
    );
    out
}

fn compare(n: u64, scale: u32) {
    let (sw, gpu) = (render("sw", n, scale), render("wgpu", n, scale));
    same_frames(&sw, &gpu, n, scale, "sw and wgpu");
}

/// Every frame of `a` and `b` identical.
fn same_frames(a_dir: &Path, b_dir: &Path, n: u64, scale: u32, what: &str) {
    let (sw, gpu) = (a_dir, b_dir);
    let mut differing = Vec::new();
    for f in 0..n {
        let name = Image::frame_file_name(f);
        let a = Image::read_png(&sw.join(&name)).unwrap();
        let b = Image::read_png(&gpu.join(&name)).unwrap();
        // Presented frames: 4:3 of 448 rows, times the scale.
        assert_eq!(a.height, 448 * scale, "frame {f} at scale {scale}");
        if (a.width, a.height) != (b.width, b.height) || a.rgba != b.rgba {
            differing.push(f);
        }
    }
    eprintln!(
        "{what}, scale {scale}: {} of {n} frames identical",
        n - differing.len() as u64
    );
    assert!(
        differing.is_empty(),
        "{what}, scale {scale}: frames differ: {differing:?}"
    );
}

/// The software renderer draws the same frames through its general path (the reference), its
/// specialised paths on one thread, and on three threads.
#[test]
fn software_frames_do_not_depend_on_the_path_or_the_threads() {
    let n = frames(201);
    let general = render_with("sw", n, 1, &["--gs-general-path", "--gs-threads", "1"]);
    let one = render_with("sw", n, 1, &["--gs-threads", "1"]);
    let three = render_with("sw", n, 1, &["--gs-threads", "3"]);
    same_frames(&general, &one, n, 1, "general path and specialised paths");
    same_frames(&one, &three, n, 1, "one thread and three");
}

#[test]
fn demo_frames_are_identical_under_sw_and_wgpu() {
    compare(frames(600), 1);
}

/// At scale 2 (the rules are the same at every scale; the random scenes of piney-gs-wgpu cover
/// 3, 4 and 8): the boot screens and the first frames of the scene.
#[test]
fn scaled_demo_frames_are_identical_under_sw_and_wgpu() {
    compare(46, 2);
}
