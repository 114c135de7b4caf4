//! `piney replay` and `piney compare` through the real command line: a small dump written here in
//! PCSX2's format (raw, xz and zstd) replays to PNG frames, identical across compressions;
//! compare passes identical frames, fails differing ones (exit 1) and refuses mismatched folders
//! (exit 2); a corrupt dump is one clear error.

mod piney_support;

use std::path::{Path, PathBuf};
use std::process::Command;

use piney_gs::dump::{Compression, GsDump, PRIV_BLOCK, Packet, SavedState, compress};
use piney_gs::gif::gif_tag;
use piney_gs::gs::{priv_reg, reg};
use piney_gs::{Image, LocalMemory};

fn piney() -> Command {
    piney_support::command()
}

fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn priv_block() -> Vec<u8> {
    let mut b = vec![0u8; PRIV_BLOCK];
    let mut put =
        |off: u32, v: u64| b[off as usize..off as usize + 8].copy_from_slice(&v.to_le_bytes());
    put(priv_reg::PMODE, 2); // circuit 2 only
    put(priv_reg::DISPFB2, 1 << 9); // FBP 0, FBW 1 (64 pixels), PSMCT32
    // 16 x 8 pixels: DX 600, DY 40, MAGH 3 (4 clocks a pixel), DW 63, DH 7.
    put(
        priv_reg::DISPLAY2,
        600 | 40 << 12 | 3 << 23 | 63u64 << 32 | 7u64 << 44,
    );
    b
}

/// A flat sprite from x0 to x1 (pixels), 8 rows high, in `rgb`.
fn sprite(x0: u32, x1: u32, rgb: [u8; 3]) -> Vec<u8> {
    let q = [
        // PRIM 6 (sprite), registers RGBAQ, XYZ2, XYZ2.
        gif_tag(1, true, Some(6), 0, &[0x1, 0x5, 0x5]),
        rgb[0] as u128 | (rgb[1] as u128) << 32 | (rgb[2] as u128) << 64 | 0x80u128 << 96,
        (x0 * 16) as u128,
        (x1 * 16) as u128 | ((8u128 * 16) << 32),
    ];
    q.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn dump() -> GsDump {
    let regs = [
        (reg::FRAME_1, 1u64 << 16),                 // FBP 0, FBW 1
        (reg::SCISSOR_1, 63 << 16 | (63u64 << 48)), // 64 x 64
        (reg::TEST_1, 3 << 16),                     // ZTST always
        (reg::PRMODECONT, 1),
    ];
    GsDump {
        crc: 0xdead_beef,
        header: None,
        state: SavedState::build_v8(&regs, &LocalMemory::new()),
        regs: priv_block(),
        packets: vec![
            Packet::Transfer {
                path: 3,
                data: sprite(0, 8, [255, 0, 0]),
            },
            Packet::VSync(0),
            Packet::Transfer {
                path: 3,
                data: sprite(8, 16, [0, 0, 255]),
            },
            Packet::VSync(1),
        ],
        dropped_tail: None,
    }
}

fn replay(file: &Path, out: &Path) {
    let o = piney()
        .arg("replay")
        .arg(file)
        .arg("--headless")
        .arg("--dump-frames")
        .arg(out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn a_dump_replays_identically_in_every_compression_and_compares_equal() {
    let dir = scratch("replay");
    let raw = dump().to_bytes();
    let mut outs = Vec::new();
    for (name, c) in [
        ("d.gs", Compression::None),
        ("d.gs.xz", Compression::Xz),
        ("d.gs.zst", Compression::Zstd),
    ] {
        let file = dir.join(name);
        std::fs::write(&file, compress(&raw, c)).unwrap();
        let out = dir.join(format!("{name}.frames"));
        replay(&file, &out);
        outs.push(out);
    }
    // Two VSyncs: two frames. Frame 0 has the red left half; frame 1 both halves.
    let f0 = Image::read_png(&outs[0].join(Image::frame_file_name(0))).unwrap();
    let f1 = Image::read_png(&outs[0].join(Image::frame_file_name(1))).unwrap();
    assert!(!outs[0].join(Image::frame_file_name(2)).exists());
    assert_ne!(f0, f1, "the second frame adds the blue sprite");
    // The colours, in the display circuits' own pixels (16 x 8: DW 63 at 4 clocks a pixel, DH
    // 7): a sprite from x 0 to 8 covers pixels 0..=7 (the GS fills up to, not including, the
    // right edge), so frame 0 is red on the left and the cleared black on the right, and frame
    // 1 adds blue on the right. The picture shows circuit 2 alone (PMODE EN2), RGB as drawn.
    let display = dir.join("display");
    let o = piney()
        .args(["replay", "--headless", "--dump-format", "display"])
        .arg(dir.join("d.gs"))
        .arg("--dump-frames")
        .arg(&display)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (red, blue, black) = ([255, 0, 0], [0, 0, 255], [0, 0, 0]);
    for (n, right) in [(0, black), (1, blue)] {
        let f = Image::read_png(&display.join(Image::frame_file_name(n))).unwrap();
        assert_eq!((f.width, f.height), (16, 8));
        for y in 0..8 {
            for x in 0..16 {
                let want = if x < 8 { red } else { right };
                assert_eq!(f.get(x, y)[..3], want, "frame {n} pixel ({x}, {y})");
            }
        }
    }
    // The presented frames (4:3, moved by the display offset) are made of the same colours:
    // red and the black right half in frame 0, red and blue in frame 1 (and black only where
    // the picture does not reach).
    for (n, f, must, may) in [
        (0, &f0, vec![red, black], vec![red, black]),
        (1, &f1, vec![red, blue], vec![red, blue, black]),
    ] {
        let colours: std::collections::BTreeSet<[u8; 3]> = (0..f.height)
            .flat_map(|y| (0..f.width).map(move |x| (x, y)))
            .map(|(x, y)| f.get(x, y)[..3].try_into().unwrap())
            .collect();
        assert!(
            must.iter().all(|c| colours.contains(c)) && colours.iter().all(|c| may.contains(c)),
            "presented frame {n}: {colours:?}"
        );
    }
    for o in &outs[1..] {
        let c = piney()
            .arg("compare")
            .arg(&outs[0])
            .arg(o)
            .output()
            .unwrap();
        assert!(c.status.success(), "{}", String::from_utf8_lossy(&c.stdout));
        assert!(String::from_utf8_lossy(&c.stdout).contains("2 frames, 0 differ"));
    }
}

#[test]
fn compare_fails_on_a_difference_and_refuses_mismatched_folders() {
    let dir = scratch("compare");
    let file = dir.join("d.gs");
    std::fs::write(&file, dump().to_bytes()).unwrap();
    let a = dir.join("a");
    replay(&file, &a);
    // B: the same frames with one pixel changed in frame 1.
    let b = dir.join("b");
    std::fs::create_dir_all(&b).unwrap();
    for n in 0..2 {
        let mut img = Image::read_png(&a.join(Image::frame_file_name(n))).unwrap();
        if n == 1 {
            img.rgba[0] ^= 0xff;
        }
        img.write_png(&b.join(Image::frame_file_name(n))).unwrap();
    }
    let diffs = dir.join("diffs");
    let c = piney()
        .arg("compare")
        .arg(&a)
        .arg(&b)
        .arg("--diff-dir")
        .arg(&diffs)
        .output()
        .unwrap();
    assert_eq!(
        c.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&c.stdout)
    );
    assert!(String::from_utf8_lossy(&c.stdout).contains("2 frames, 1 differ"));
    assert!(
        std::fs::read_dir(&diffs).unwrap().count() >= 1,
        "a diff image for the differing frame"
    );
    // Loosened: one differing pixel allowed.
    let c = piney()
        .arg("compare")
        .arg(&a)
        .arg(&b)
        .args(["--max-diff-pixels", "1"])
        .arg("--diff-dir")
        .arg(&diffs)
        .output()
        .unwrap();
    assert_eq!(c.status.code(), Some(0));
    // A folder with a frame fewer: exit 2 and one clear line.
    std::fs::remove_file(b.join(Image::frame_file_name(1))).unwrap();
    let c = piney().arg("compare").arg(&a).arg(&b).output().unwrap();
    assert_eq!(c.status.code(), Some(2));
    assert!(!String::from_utf8_lossy(&c.stderr).contains("panicked"));
}

#[test]
fn a_corrupt_dump_is_one_clear_error() {
    let dir = scratch("corrupt");
    let raw = dump().to_bytes();
    let file = dir.join("cut.gs");
    std::fs::write(&file, &raw[..raw.len() / 3]).unwrap();
    let o = piney()
        .arg("replay")
        .arg(&file)
        .arg("--headless")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    // A dump cut inside its state blob cannot replay.
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("cut.gs") && !err.contains("panicked"), "{err}");
    let o = piney()
        .arg("replay")
        .arg(dir.join("missing.gs"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
}

/// `--renderer wgpu` replays a dump to the same frames as `--renderer sw` (on the adapter wgpu
/// finds: lavapipe in CI), and `--dump-format display` writes the display circuits' pixels of a
/// replayed dump (16 x 8 here) where the default writes the 4:3 picture (11 x 8).
#[test]
fn renderer_and_dump_format_options_through_the_binary() {
    let dir = scratch("renderer-option");
    let file = dir.join("d.gs");
    std::fs::write(&file, dump().to_bytes()).unwrap();
    let frames: Vec<Image> = ["sw", "wgpu"]
        .iter()
        .map(|r| replay_frame(&file, &dir.join(r), &["--renderer", r]))
        .collect();
    assert_eq!(
        frames[0].rgba, frames[1].rgba,
        "wgpu's frame differs from sw's"
    );
    for (format, size) in [("display", (16, 8)), ("presented", (11, 8))] {
        let out = dir.join(format);
        let o = piney()
            .args(["replay", "--headless", "--dump-format", format])
            .arg(&file)
            .arg("--dump-frames")
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let img = Image::read_png(&out.join(Image::frame_file_name(0))).unwrap();
        assert_eq!((img.width, img.height), size, "{format}");
    }
    // A negative --seconds is a refused value, not an unknown flag.
    let o = piney()
        .args(["demo", "--headless", "--seconds", "-1"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("-1 is not a positive number of seconds"),
        "{err}"
    );
}

/// `--render-scale N` makes replayed frames N times the size on both renderers, with the same
/// pixels; a scale outside 1..8 is refused by name.
#[test]
fn render_scale_through_the_binary() {
    let dir = scratch("render-scale");
    let file = dir.join("d.gs");
    std::fs::write(&file, dump().to_bytes()).unwrap();
    let args = |r| {
        [
            "--render-scale",
            "3",
            "--renderer",
            r,
            "--dump-format",
            "display",
        ]
    };
    let frames: Vec<Image> = ["sw", "wgpu"]
        .iter()
        .map(|r| replay_frame(&file, &dir.join(r), &args(r)))
        .collect();
    for f in &frames {
        assert_eq!((f.width, f.height), (48, 24));
    }
    assert_eq!(frames[0].rgba, frames[1].rgba);
    let o = piney()
        .args(["replay", "--headless", "--render-scale", "9"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--render-scale"));
}

/// Frame 0 of `piney replay --headless ARGS FILE --dump-frames OUT`, checking that the run
/// succeeded on the renderer asked for (no fallback).
fn replay_frame(file: &Path, out: &Path, args: &[&str]) -> Image {
    let o = piney()
        .args(["replay", "--headless"])
        .args(args)
        .arg(file)
        .arg("--dump-frames")
        .arg(out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{args:?}: {err}");
    assert!(!err.contains("drawing with the software renderer"), "{err}");
    Image::read_png(&out.join(Image::frame_file_name(0))).unwrap()
}

/// `--renderer wgpu` on a machine with no adapter (here: wgpu told to use only Metal, which a
/// Linux build lacks) says so in one line, draws with the software renderer and succeeds.
#[test]
fn wgpu_without_an_adapter_falls_back_to_sw() {
    let dir = scratch("no-adapter");
    let file = dir.join("d.gs");
    std::fs::write(&file, dump().to_bytes()).unwrap();
    let out = dir.join("frames");
    let o = piney()
        .env("WGPU_BACKEND", "metal")
        .args(["replay", "--headless", "--renderer", "wgpu"])
        .arg(&file)
        .arg("--dump-frames")
        .arg(&out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    // One line about it (the replay's own summary line follows).
    assert_eq!(
        err.lines().filter(|l| l.contains("wgpu")).count(),
        1,
        "{err}"
    );
    assert!(
        err.contains("--renderer wgpu: no GPU adapter")
            && err.contains("drawing with the software renderer"),
        "{err}"
    );
    let sw = replay_frame(&file, &dir.join("sw"), &["--renderer", "sw"]);
    let got = Image::read_png(&out.join(Image::frame_file_name(0))).unwrap();
    assert_eq!(got.rgba, sw.rgba);
}
