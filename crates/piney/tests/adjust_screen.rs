//! Adjust Screen moves the picture (issue 11): the demo's page, driven to x +48, y +16 by an
//! input script, writes DISPLAY's DX/DY through SetDisplayOffset; the PCRTC's display command
//! measures them against NTSC's origin (DX 636, DY 50) and the presented frame moves by
//! 48 / 5 = 9.6 pixels, truncated toward zero to 9, and 16 rows, black where it left.
//!
//! One run writes both frame formats (`--dump-format display`, the circuits' own pixels, and
//! `presented`): the presented frame must be the display frame moved by (9, 16) and stretched
//! to 4:3, and differ from it unmoved.

mod piney_support;

use std::path::{Path, PathBuf};

use piney_gs::{FrameFormat, Image, Presenter};

/// The frame compared: the offset reached its limits well before.
const FRAME: u64 = 200;

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/input/adjust_screen.txt")
}

fn frame(format: &str, input: bool) -> Image {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("adjust-{format}-{input}"));
    let _ = std::fs::remove_dir_all(&dir);
    let mut cmd = piney_support::command();
    cmd.args(["demo", "--headless", "--frames", &(FRAME + 1).to_string()])
        .args(["--dump-format", format])
        .arg("--dump-frames")
        .arg(&dir);
    if input {
        cmd.arg("--input").arg(script());
    }
    let o = cmd.output().expect("running piney demo");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let path = dir.join(Image::frame_file_name(FRAME));
    Image::read_png(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn black_rows(img: &Image, rows: std::ops::Range<u32>) -> bool {
    rows.flat_map(|y| (0..img.width).map(move |x| (x, y)))
        .all(|(x, y)| img.get(x, y) == [0, 0, 0, 255])
}

#[test]
fn the_offset_moves_the_presented_picture_and_not_the_display_pixels() {
    let display = frame("display", true);
    let presented = frame("presented", true);
    assert_eq!(
        (display.width, display.height),
        (512, 448),
        "the circuits' pixels"
    );
    assert_eq!(
        (presented.width, presented.height),
        (597, 448),
        "4:3 of 448 rows"
    );
    let moved = Presenter {
        offset_x: 9,
        offset_y: 16,
    };
    // (Images compared with `==`: a failing assert_eq would print every pixel.)
    assert!(
        presented == FrameFormat::Presented.apply(&display, moved),
        "the presented frame is not the display frame moved by (9, 16)"
    );
    assert!(presented != FrameFormat::Presented.apply(&display, Presenter::default()));
    // Black where the picture left: 16 rows at the top, and the columns showing the first 9
    // native columns (x * 512 / 597 < 9: x <= 10).
    assert!(!black_rows(&display, 0..16), "the demo draws its top rows");
    assert!(black_rows(&presented, 0..16));
    assert!((0..448).all(|y| (0..=10).all(|x| presented.get(x, y) == [0, 0, 0, 255])));
    // A run without the page is not moved at all.
    let still = frame("presented", false);
    assert!(!black_rows(&still, 0..16));
}
