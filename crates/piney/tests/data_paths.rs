//! The EE-to-GS data paths end to end, with our own guest programs (`tests/guest/gif_paths.c`,
//! `dma_bad_tag.c`, `dma_runaway.c`, built by `tools/build-guest.sh`):
//! - PATH3 (a GIF DMA chain), PATH1 (a VIF1 chain: MPG, UNPACK, MSCAL, the microprogram's
//!   XGKICK) and PATH2 (VIF1 DIRECT) give exactly the GS register writes derived by hand from
//!   the packets, the matrix and the microprogram;
//! - the same program through the real GS draws the expected pixels;
//! - bad chains end `piney run` with status 1 and one line naming the channel, the tag address
//!   and the pc.

mod piney_support;

use std::path::{Path, PathBuf};

use piney_gs::Pcrtc;
use std::sync::{Arc, Mutex};

use piney_machine::gif::GsWrite;
use piney_machine::{Machine, RunEnd, RunLimits};

fn guest(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/guest")
        .join(format!("{name}.elf"))
}

/// Runs `name` to its exit (at most 5 emulated seconds) and returns the machine, its stdout and,
/// with `record`, every write the GS took.
fn run(name: &str, record: bool) -> (Machine, String, Option<Arc<Mutex<Vec<GsWrite>>>>) {
    let out = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    struct Shared(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);
    impl std::io::Write for Shared {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut m = Machine::new(Box::new(Shared(out.clone())));
    let image = std::fs::read(guest(name)).expect("the guest program is built");
    m.load_elf(&image).expect("loads");
    m.attach_renderer(Box::new(piney_gs::SoftwareRenderer::new()));
    let log = record.then(|| m.bus.gif.gs.record());
    let end = m.run(RunLimits {
        seconds: Some(5.0),
        ..Default::default()
    });
    let stdout = String::from_utf8_lossy(&out.lock().unwrap()).into_owned();
    match end {
        Ok(RunEnd::Exited(0)) => {}
        other => panic!("{name}: {other:?}\n{stdout}"),
    }
    (m, stdout, log)
}

/// RGBAQ from PACKED colour words: R, G, B, A bytes and Q (1.0 after each GIFtag).
fn rgbaq(r: u64, g: u64, b: u64, a: u64) -> u64 {
    r | g << 8 | b << 16 | a << 24 | 0x3f80_0000 << 32
}

/// XYZ2 from 12.4 fixed-point x, y and a 32-bit z.
fn xyz(x: u64, y: u64, z: u64) -> u64 {
    x | y << 16 | z << 32
}

/// The GS register writes `gif_paths` must produce, in order.
fn expected_writes() -> Vec<GsWrite> {
    use GsWrite::Reg;
    let mut w = vec![
        // PATH3: the A+D setup packet (address in bits 64-71, value in bits 0-63).
        Reg(0x4c, 4 << 16),               // FRAME_1: FBW 4
        Reg(0x4e, 1 << 32 | 0x50),        // ZBUF_1: ZMSK, ZBP 0x50
        Reg(0x40, 223 << 48 | 255 << 16), // SCISSOR_1
        Reg(0x47, 3 << 16),               // TEST_1
        Reg(0x18, 0),                     // XYOFFSET_1
        Reg(0x1a, 1),                     // PRMODECONT
        // PATH3: the sprite packet by REF: PRE writes PRIM first.
        Reg(0x00, 6),
        Reg(0x01, rgbaq(0, 0, 255, 128)),
        Reg(0x05, xyz(16 * 16, 16 * 16, 0)),
        Reg(0x05, xyz(48 * 16, 40 * 16, 0)),
        // PATH1: the microprogram's packet. out = c0*x + c1*y + c2*z + c3*w with
        // c0 = (2, 0.5, 0, 0), c1 = (0, 2, 0, 0), c2 = (0, 0, 1, 0), c3 = (100, 50, 0, 1):
        // (10, 20, 8) -> (120, 95, 8); (40, 20, 8) -> (180, 110, 8); (10, 60, 8) -> (120, 175, 8),
        // all exact in single precision; FTOI4 multiplies by 16. W = 1 -> 16 in word 3, so
        // ADC (word 3 bit 15) is clear and XYZ2 is written.
        Reg(0x00, 3),
    ];
    for (c, p) in [
        ([255, 0, 0], (120, 95)),
        ([0, 255, 0], (180, 110)),
        ([255, 255, 255], (120, 175)),
    ] {
        w.push(Reg(0x01, rgbaq(c[0], c[1], c[2], 128)));
        w.push(Reg(0x05, xyz(p.0 * 16, p.1 * 16, 8 * 16)));
    }
    // PATH2: REGLIST, raw 64-bit values.
    w.extend([
        Reg(0x00, 6),
        Reg(0x01, 0x3f80_0000_8000_ffff),
        Reg(0x05, xyz(200 * 16, 20 * 16, 0)),
        Reg(0x05, xyz(240 * 16, 60 * 16, 0)),
    ]);
    w
}

#[test]
fn gif_paths_register_writes() {
    let (_, stdout, log) = run("gif_paths", true);
    let log = log.unwrap();
    assert_eq!(
        stdout,
        "path3: done\npath1: done\npath2: done\ngif_paths: end\n"
    );
    let got = log.lock().unwrap().clone();
    let want = expected_writes();
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "write {i} differs; all writes: {got:x?}");
    }
    assert_eq!(got.len(), want.len(), "writes: {got:x?}");
}

#[test]
fn gif_paths_draws_through_the_gs() {
    let (mut m, _, _) = run("gif_paths", false);
    let img = m
        .frame(Pcrtc::default())
        .expect("the GIF feeds the GS")
        .image;
    assert!(
        img.width >= 256 && img.height >= 224,
        "{}x{}",
        img.width,
        img.height
    );
    // The frame shows buffer pixel (x, y) at (x, y): DISPLAY2 starts the picture.
    let px = |x, y| img.get(x, y);
    let (blue, yellow, white, black) = (
        [0, 0, 255, 128],
        [255, 255, 0, 128],
        [255, 255, 255, 128],
        [0, 0, 0, 0],
    );
    let rgb = |p: [u8; 4]| [p[0], p[1], p[2]];
    // PATH3's sprite covers x 16..48, y 16..40 (the right and bottom edges are not drawn).
    assert_eq!(rgb(px(16, 16)), rgb(blue));
    assert_eq!(rgb(px(47, 39)), rgb(blue));
    assert_eq!(rgb(px(48, 39)), rgb(black));
    assert_eq!(rgb(px(47, 40)), rgb(black));
    // PATH2's sprite: x 200..240, y 20..60.
    assert_eq!(rgb(px(200, 20)), rgb(yellow));
    assert_eq!(rgb(px(239, 59)), rgb(yellow));
    assert_eq!(rgb(px(240, 59)), rgb(black));
    // PATH1's flat triangle (120,95) (180,110) (120,175): the last vertex's colour, white.
    assert_eq!(rgb(px(125, 110)), rgb(white));
    assert_eq!(rgb(px(121, 170)), rgb(white));
    assert_eq!(rgb(px(119, 120)), rgb(black)); // left of the vertical edge x = 120
    assert_eq!(rgb(px(170, 140)), rgb(black)); // right of the edge (180,110)-(120,175)
    assert_eq!(rgb(px(0, 0)), rgb(black));
}

/// Runs `piney run <name>.elf --headless` and returns (exit code, stdout, stderr).
fn piney_run(name: &str) -> (Option<i32>, String, String) {
    let o = piney_support::command()
        .arg("run")
        .arg(guest(name))
        .args(["--headless", "--seconds", "5"])
        .output()
        .expect("piney runs");
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The error line's guest pc, checked to lie in the program's text (linked at 0x00100000).
fn pc_of(line: &str) -> u32 {
    let pc = line
        .rsplit_once(" at pc 0x")
        .and_then(|(_, h)| u32::from_str_radix(h, 16).ok())
        .unwrap_or_else(|| panic!("no pc in {line:?}"));
    assert!(
        (0x0010_0000..0x0010_2000).contains(&pc) && pc.is_multiple_of(4),
        "pc {pc:#x} is not in the program: {line:?}"
    );
    pc
}

#[test]
fn dma_tag_outside_memory_is_one_clear_error() {
    let (code, stdout, stderr) = piney_run("dma_bad_tag");
    assert_eq!(code, Some(1), "stdout {stdout:?} stderr {stderr:?}");
    assert_eq!(stdout, "dma_bad_tag: start\n");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{stderr:?}");
    assert!(
        lines[0].starts_with(
            "piney: DMA channel 2: DMAtag address 0x0f000000 is outside memory \
             (last tag at 0x0f000000) at pc 0x"
        ),
        "{stderr:?}"
    );
    pc_of(lines[0]);
}

#[test]
fn runaway_vif1_chain_is_one_clear_error() {
    let (code, stdout, stderr) = piney_run("dma_runaway");
    assert_eq!(code, Some(1), "stdout {stdout:?} stderr {stderr:?}");
    // The program prints where its self-referencing tag is.
    let tag = stdout
        .strip_prefix("dma_runaway: tag at ")
        .and_then(|s| s.strip_suffix('\n'))
        .unwrap_or_else(|| panic!("{stdout:?}"));
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{stderr:?}");
    assert!(
        lines[0].starts_with(&format!(
            "piney: DMA channel 1: runaway chain: more than {} tags without an end \
             (last tag at 0x{tag}) at pc 0x",
            piney_machine::dmac::MAX_TAGS
        )),
        "{stderr:?}"
    );
    pc_of(lines[0]);
}
