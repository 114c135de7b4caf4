//! Golden pictures of the demo title drawn through the whole data path: the EE program's VIF1
//! chain (MPG, UNPACK, MSCAL), VU1's XGKICK on PATH1, the 2D layer's GIF DMA on PATH3, the GS's
//! software rasteriser and the PCRTC, as `piney demo --headless --dump-frames` writes them; and
//! the same frames drawn by `--renderer wgpu` (on lavapipe in CI) must match the same goldens.
//! Each case has a tolerance (differing pixels allowed) and an expected-failure flag: an expected
//! failure that starts to pass fails the test, so the flag gets cleared.
//!
//! `PINEY_BLESS=1 cargo test -p piney --test golden_demo` rewrites the PNGs (after checking the
//! new pictures by eye).

mod piney_support;

use std::path::{Path, PathBuf};

use piney_gs::Image;
use piney_gs::compare::compare_images;

struct Case {
    /// The golden file's name.
    name: &'static str,
    /// The frame (vertical blank) to take.
    frame: u64,
    /// An input script (in tests/golden/), if any.
    input: Option<&'static str>,
    /// Differing pixels tolerated.
    tolerance: u64,
    /// Known to differ from the golden (a documented gap); passing then is an error.
    expected_failure: bool,
}

const CASES: &[Case] = &[
    // The first frames with the scene, the panels and the idle pad.
    Case {
        name: "demo_frame40",
        frame: 40,
        input: None,
        tolerance: 0,
        expected_failure: false,
    },
];

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

fn render(case: &Case, renderer: &str) -> Image {
    let out =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("golden-{}-{renderer}", case.name));
    let _ = std::fs::remove_dir_all(&out);
    let mut cmd = piney_support::command();
    cmd.args(["demo", "--headless", "--renderer", renderer, "--frames"])
        .arg((case.frame + 1).to_string());
    cmd.arg("--dump-frames").arg(&out);
    if let Some(input) = case.input {
        cmd.arg("--input").arg(golden_dir().join(input));
    }
    let o = cmd.output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{} ({renderer}): {err}", case.name);
    // A wgpu run that fell back to the software renderer would compare nothing new.
    assert!(
        !err.contains("drawing with the software renderer"),
        "{renderer}: no GPU adapter: {err}"
    );
    Image::read_png(&out.join(Image::frame_file_name(case.frame))).unwrap()
}

#[test]
fn demo_frames_match_their_goldens() {
    let bless = std::env::var_os("PINEY_BLESS").is_some();
    let mut failures = Vec::new();
    for (case, renderer) in CASES.iter().flat_map(|c| [(c, "sw"), (c, "wgpu")]) {
        let path = golden_dir().join(format!("{}.png", case.name));
        if bless {
            // Goldens are the software renderer's (the reference).
            if renderer == "sw" {
                render(case, renderer).write_png(&path).unwrap();
            }
            continue;
        }
        let got = render(case, renderer);
        let want = Image::read_png(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let same_size = (want.width, want.height) == (got.width, got.height);
        let (psnr, diff_pixels) = if same_size {
            compare_images(&want, &got)
        } else {
            (0.0, u64::MAX)
        };
        let passed = same_size && diff_pixels <= case.tolerance;
        match (passed, case.expected_failure) {
            (true, true) => failures.push(format!(
                "{} ({renderer}): expected to fail but matches: clear its flag",
                case.name
            )),
            (false, false) => failures.push(format!(
                "{} ({renderer}): {} differing pixels (tolerance {}), PSNR {:.2} dB",
                case.name, diff_pixels, case.tolerance, psnr
            )),
            _ => {}
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
