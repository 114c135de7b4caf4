//! The golden scenes: small scenes built as GIF data, read out through the PCRTC, each with a
//! tolerance (differing pixels allowed) and an expected-failure flag. Shared by piney-gs's
//! tests/golden.rs (the software renderer) and piney-gs-wgpu's tests/reference_cases.rs (the
//! wgpu renderer), which include this file as a module; the PNGs beside it are the pictures.

use piney_gs::compare::compare_images;
use piney_gs::gif::{GifPath, gif_tag};
use piney_gs::gs::{priv_reg, reg};
use piney_gs::{Gs, Image, Pcrtc, Renderer};

pub struct Case {
    pub name: &'static str,
    /// Differing pixels tolerated.
    pub tolerance: u64,
    /// Known to differ from the golden (a documented gap); passing then is an error.
    pub expected_failure: bool,
    /// The scene's GIF data.
    pub build: fn() -> Vec<u128>,
}

fn ad(r: u8, v: u64) -> u128 {
    v as u128 | ((r as u128) << 64)
}

fn rgba(r: u8, g: u8, b: u8, a: u8) -> u128 {
    r as u128 | (g as u128) << 32 | (b as u128) << 64 | (a as u128) << 96
}

fn xyz(x: u32, y: u32, z: u32) -> u128 {
    (x * 16) as u128 | ((y * 16) as u128) << 32 | (z as u128) << 64
}

/// 64x64 PSMCT32 frame at page 0, Z at page 4 (PSMZ24), cleared to dark grey.
fn base(fpsm: u64) -> Vec<u128> {
    let mut q = vec![gif_tag(6, false, None, 0, &[0xe])];
    q.push(ad(reg::FRAME_1, 1 << 16 | fpsm << 24));
    q.push(ad(reg::ZBUF_1, 4 | 1 << 24));
    q.push(ad(reg::SCISSOR_1, 63 << 16 | (63u64 << 48)));
    q.push(ad(reg::TEST_1, 1 << 16 | 1 << 17));
    q.push(ad(reg::XYOFFSET_1, 0));
    q.push(ad(reg::PRMODECONT, 1));
    q.push(gif_tag(1, false, Some(6), 0, &[0x1, 0x5, 0x5]));
    q.extend([rgba(40, 40, 40, 0x80), xyz(0, 0, 0), xyz(64, 64, 0)]);
    q
}

fn shaded() -> Vec<u128> {
    let mut q = base(0);
    // A Gouraud strip and a flat fan, with depth GEQUAL.
    q.push(gif_tag(1, false, None, 0, &[0xe]));
    q.push(ad(reg::TEST_1, 1 << 16 | 2 << 17));
    q.push(gif_tag(4, false, Some(4 | 1 << 3), 0, &[0x1, 0x5]));
    q.extend([
        rgba(255, 0, 0, 0x80),
        xyz(4, 4, 100),
        rgba(0, 255, 0, 0x80),
        xyz(60, 8, 100),
    ]);
    q.extend([
        rgba(0, 0, 255, 0x80),
        xyz(8, 40, 100),
        rgba(255, 255, 0, 0x80),
        xyz(56, 44, 100),
    ]);
    q.push(gif_tag(4, false, Some(5), 0, &[0x1, 0x5]));
    q.extend([
        rgba(200, 0, 200, 0x80),
        xyz(32, 32, 50),
        rgba(0, 200, 200, 0x80),
        xyz(62, 20, 200),
    ]);
    q.extend([
        rgba(200, 200, 200, 0x80),
        xyz(62, 62, 200),
        rgba(100, 50, 0, 0x80),
        xyz(20, 62, 200),
    ]);
    q
}

fn textured() -> Vec<u128> {
    let mut q = base(0);
    // A 16x16 PSMT8 texture of diagonal stripes and a 256-entry CLUT (CSM1) at BP 0x200.
    q.push(gif_tag(4, false, None, 0, &[0xe]));
    q.push(ad(
        reg::BITBLTBUF,
        (0x100u64 << 32) | (2u64 << 48) | (0x13u64 << 56),
    ));
    q.push(ad(reg::TRXPOS, 0));
    q.push(ad(reg::TRXREG, 16 | 16 << 32));
    q.push(ad(reg::TRXDIR, 0));
    q.push(gif_tag(16, false, None, 2, &[]));
    for i in 0..16u32 {
        let mut v = 0u128;
        for k in 0..16u32 {
            v |= (((i + k) * 16 % 256) as u128) << (k * 8);
        }
        q.push(v);
    }
    q.push(gif_tag(4, false, None, 0, &[0xe]));
    q.push(ad(reg::BITBLTBUF, (0x200u64 << 32) | (1u64 << 48)));
    q.push(ad(reg::TRXPOS, 0));
    q.push(ad(reg::TRXREG, 16 | 16 << 32));
    q.push(ad(reg::TRXDIR, 0));
    q.push(gif_tag(64, false, None, 2, &[]));
    for i in 0..64u32 {
        let mut v = 0u128;
        for k in 0..4u32 {
            let e = i * 4 + k;
            v |= ((e | (255 - e) << 8 | ((e * 3) & 255) << 16 | 0x80 << 24) as u128) << (k * 32);
        }
        q.push(v);
    }
    q.push(gif_tag(3, false, None, 0, &[0xe]));
    q.push(ad(
        reg::TEX0_1,
        0x100 | 2 << 14 | 0x13 << 20 | 4 << 26 | 4 << 30 | 1 << 34 | 0x200 << 37 | 1 << 61,
    ));
    q.push(ad(reg::TEX1_1, 1 << 5 | 1 << 6));
    q.push(ad(reg::CLAMP_1, 0));
    // Nearest UV sprite, bilinear STQ triangle.
    q.push(gif_tag(
        1,
        false,
        Some(6 | 1 << 4 | 1 << 8),
        0,
        &[0x1, 0x3, 0x5, 0x3, 0x5],
    ));
    q.extend([
        rgba(128, 128, 128, 0x80),
        0,
        xyz(2, 2, 0),
        (32 * 16) | ((32u128 * 16) << 32),
        xyz(30, 30, 0),
    ]);
    q.push(gif_tag(
        1,
        false,
        Some(3 | 1 << 4),
        0,
        // PACKED ST keeps Q for the next RGBAQ: each vertex is ST, RGBAQ, XYZ2.
        &[0x2, 0x1, 0x5, 0x2, 0x1, 0x5, 0x2, 0x1, 0x5],
    ));
    let st = |s: f32, t: f32, qv: f32| {
        s.to_bits() as u128 | (t.to_bits() as u128) << 32 | (qv.to_bits() as u128) << 64
    };
    let grey = rgba(128, 128, 128, 0x80);
    q.extend([st(0.0, 0.0, 1.0), grey, xyz(34, 2, 0)]);
    q.extend([st(1.0, 0.0, 0.5), grey, xyz(62, 10, 0)]);
    q.extend([st(0.0, 2.0, 2.0), grey, xyz(40, 62, 0)]);
    q
}

fn blended() -> Vec<u128> {
    let mut q = base(0);
    q.push(gif_tag(4, false, None, 0, &[0xe]));
    q.push(ad(reg::ALPHA_1, 1 << 2 | 1 << 6)); // (Cs - Cd) * As >> 7 + Cd
    q.push(ad(
        reg::TEST_1,
        1 | 6 << 1 | 0x10 << 4 | 1 << 12 | 1 << 16 | 1 << 17,
    )); // ATST GREATER 0x10, FB_ONLY
    q.push(ad(reg::FOGCOL, 0x00_80_ff));
    q.push(ad(reg::PABE, 0));
    q.push(gif_tag(
        3,
        false,
        Some(6 | 1 << 6 | 1 << 5),
        0,
        &[0x1, 0x4, 0x4],
    ));
    for (i, a) in [0x20u8, 0x60, 0x0c].iter().enumerate() {
        let x = 4 + i as u32 * 14;
        q.extend([
            rgba(255, 200 - i as u8 * 60, 30, *a),
            xyz(x, x, 0) | (200u128 << 100),
            xyz(x + 30, x + 30, 0) | (200u128 << 100),
        ]);
    }
    q
}

fn dithered16() -> Vec<u128> {
    let mut q = base(2);
    q.push(gif_tag(3, false, None, 0, &[0xe]));
    q.push(ad(reg::COLCLAMP, 1));
    q.push(ad(reg::DTHE, 1));
    q.push(ad(reg::DIMX, 0x1357_0246_3175_4602));
    q.push(gif_tag(
        1,
        false,
        Some(4 | 1 << 3),
        0,
        &[0x1, 0x5, 0x1, 0x5, 0x1, 0x5, 0x1, 0x5],
    ));
    q.extend([
        rgba(0, 0, 0, 0x80),
        xyz(0, 8, 0),
        rgba(255, 128, 60, 0x80),
        xyz(64, 8, 0),
    ]);
    q.extend([
        rgba(0, 60, 0, 0x80),
        xyz(0, 56, 0),
        rgba(200, 255, 255, 0x80),
        xyz(64, 56, 0),
    ]);
    q
}

fn lines_points() -> Vec<u128> {
    let mut q = base(0);
    q.push(gif_tag(
        1,
        false,
        Some(2 | 1 << 3),
        0,
        &[0x1, 0x5, 0x1, 0x5, 0x1, 0x5, 0x1, 0x5],
    ));
    q.extend([
        rgba(255, 0, 0, 0x80),
        xyz(2, 2, 0),
        rgba(0, 255, 0, 0x80),
        xyz(60, 10, 0),
    ]);
    q.extend([
        rgba(0, 0, 255, 0x80),
        xyz(10, 60, 0),
        rgba(255, 255, 255, 0x80),
        xyz(62, 62, 0),
    ]);
    q.push(gif_tag(16, false, Some(0), 0, &[0x1, 0x5]));
    for i in 0..16u32 {
        q.extend([
            rgba((i * 16) as u8, 255, 128, 0x80),
            xyz(4 + i * 3, 40 - i, 0),
        ]);
    }
    q
}

pub const CASES: &[Case] = &[
    Case {
        name: "shaded",
        tolerance: 0,
        expected_failure: false,
        build: shaded,
    },
    Case {
        name: "textured",
        tolerance: 0,
        expected_failure: false,
        build: textured,
    },
    Case {
        name: "blended",
        tolerance: 0,
        expected_failure: false,
        build: blended,
    },
    Case {
        name: "dithered16",
        tolerance: 0,
        expected_failure: false,
        build: dithered16,
    },
    Case {
        name: "lines_points",
        tolerance: 0,
        expected_failure: false,
        build: lines_points,
    },
];

/// The scene `packets` drawn by `renderer`, read out through the PCRTC (a 64 x 64 frame, N
/// times that at render scale N), and the renderer.
pub fn render<R: Renderer>(renderer: R, packets: &[u128]) -> (Image, R) {
    let mut gs = Gs::new(renderer);
    let mut path = GifPath::new();
    path.feed(&mut gs, packets).expect("scene packets");
    gs.write_priv(priv_reg::PMODE, 2).unwrap();
    let psm = gs.context(0).frame.psm() as u64;
    gs.write_priv(priv_reg::DISPFB2, 1 << 9 | psm << 15)
        .unwrap();
    gs.write_priv(priv_reg::DISPLAY2, 3 << 23 | 255u64 << 32 | 63u64 << 44)
        .unwrap();
    let image = gs.display_image(Pcrtc::default());
    (image, gs.into_renderer())
}

/// Pass or fail of a case given its rendered and golden pictures.
pub fn verdict(case: &Case, got: &Image, golden: &Image) -> Result<(), String> {
    let same_size = (got.width, got.height) == (golden.width, golden.height);
    let diff = if same_size {
        compare_images(got, golden).1
    } else {
        u64::MAX
    };
    let pass = diff <= case.tolerance;
    match (pass, case.expected_failure) {
        (true, false) | (false, true) => Ok(()),
        (false, false) => Err(format!(
            "{}: {diff} pixels differ (tolerance {})",
            case.name, case.tolerance
        )),
        (true, true) => Err(format!(
            "{}: expected to fail but now matches; clear expected_failure",
            case.name
        )),
    }
}
