//! The GS's pixel rules, for any renderer: coverage, shading, blending, tests, formats,
//! textures, CLUTs and filtering. Every expected value is derived by hand from the GS's rules
//! (cited at each test), never from a renderer's own output. Included as a module by piney-gs's
//! tests/rules.rs (the software renderer) and piney-gs-wgpu's tests/reference_cases.rs (the
//! wgpu renderer); the including file defines `R` and `new_renderer(scale)`.

use piney_gs::Psm;
use piney_gs::gs::{Gs, reg};
use piney_gs::{MemCommand, Renderer};

use super::{R, new_renderer};

type G = Gs<R>;

/// A 64x64 PSMCT32 frame at page 0 (FBW 1), Z at page 8, scissor over the frame, Z test ALWAYS.
fn scene() -> G {
    let mut g = Gs::new(new_renderer(1));
    g.write_reg(reg::FRAME_1, 1 << 16).unwrap();
    g.write_reg(reg::ZBUF_1, 8 | (1 << 32)).unwrap(); // ZMSK set: no Z writes unless a test asks
    g.write_reg(reg::SCISSOR_1, 63 << 16 | (63u64 << 48))
        .unwrap();
    g.write_reg(reg::TEST_1, (1 << 16) | (1 << 17)).unwrap();
    g.write_reg(reg::XYOFFSET_1, 0).unwrap();
    g
}

fn px(g: &mut G, x: u32, y: u32) -> u32 {
    g.local_memory().read_pixel(Psm::Ct32, x, y, 0, 1)
}

fn rgba(r: u8, gc: u8, b: u8, a: u8) -> u64 {
    r as u64
        | (gc as u64) << 8
        | (b as u64) << 16
        | (a as u64) << 24
        | (1.0f32.to_bits() as u64) << 32
}

/// Vertex position in pixels * 16 (12.4) with Z.
fn xyz(x16: u32, y16: u32, z: u32) -> u64 {
    x16 as u64 | (y16 as u64) << 16 | (z as u64) << 32
}

fn sprite(g: &mut G, prim_flags: u64, x0: u32, y0: u32, x1: u32, y1: u32, color: u64) {
    g.write_reg(reg::PRIM, 6 | prim_flags).unwrap();
    g.write_reg(reg::RGBAQ, color).unwrap();
    g.write_reg(reg::XYZ2, xyz(x0, y0, 0)).unwrap();
    g.write_reg(reg::XYZ2, xyz(x1, y1, 0)).unwrap();
}

fn covered(g: &mut G, w: u32, h: u32) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for y in 0..h {
        for x in 0..w {
            if px(g, x, y) != 0 {
                out.push((x, y));
            }
        }
    }
    out
}

#[test]
fn sprite_covers_ceil_to_ceil() {
    // (1.5, 2.0)-(4.0, 4.5): columns ceil(1.5)=2 .. ceil(4.0)-1=3, rows 2 .. ceil(4.5)-1=4.
    let mut g = scene();
    sprite(&mut g, 0, 24, 32, 64, 72, rgba(255, 0, 0, 0x80));
    let want: Vec<(u32, u32)> = (2..5).flat_map(|y| (2..4).map(move |x| (x, y))).collect();
    assert_eq!(covered(&mut g, 10, 10), want);
    assert_eq!(px(&mut g, 2, 2), 0x8000_00ff);
}

#[test]
fn triangles_share_an_edge_without_overlap_or_gap() {
    // Two triangles splitting the 4x4 square along the anti-diagonal. Top-left rule: the first
    // covers rows y with columns 0 .. 4-y (10 pixels: the diagonal edge is its right edge), the
    // second the rest (6 pixels). With additive blending (A=Cs, B=0, C=FIX 128, D=Cd) a pixel
    // drawn twice would read 2.
    let mut g = scene();
    g.write_reg(reg::ALPHA_1, 2 << 2 | 2 << 4 | 1 << 6 | (0x80u64 << 32))
        .unwrap();
    g.write_reg(reg::PRIM, 3 | 1 << 6).unwrap();
    g.write_reg(reg::RGBAQ, rgba(1, 0, 0, 0)).unwrap();
    for (x, y) in [(0, 0), (64, 0), (0, 64), (64, 0), (64, 64), (0, 64)] {
        g.write_reg(reg::XYZ2, xyz(x, y, 0)).unwrap();
    }
    for y in 0..6 {
        for x in 0..6 {
            let want = if x < 4 && y < 4 { 1 } else { 0 };
            assert_eq!(px(&mut g, x, y) & 0xff, want, "({x},{y})");
        }
    }
    // The first triangle alone: 4 + 3 + 2 + 1 pixels.
    let mut g = scene();
    g.write_reg(reg::PRIM, 3).unwrap();
    g.write_reg(reg::RGBAQ, rgba(9, 0, 0, 0)).unwrap();
    for (x, y) in [(0, 0), (64, 0), (0, 64)] {
        g.write_reg(reg::XYZ2, xyz(x, y, 0)).unwrap();
    }
    let want: Vec<(u32, u32)> = (0..4)
        .flat_map(|y| (0..4 - y).map(move |x| (x, y)))
        .collect();
    assert_eq!(covered(&mut g, 8, 8), want);
}

#[test]
fn subpixel_triangle_edges() {
    // Vertices (0.5,0.5), (3.5,0.5), (0.5,3.5): rows ceil(0.5)=1 .. ceil(3.5)-1=3; the
    // hypotenuse x = 4 - y: row 1 x in [0.5, 3) -> 1,2; row 2 [0.5, 2) -> 1; row 3 [0.5, 1) -> none.
    let mut g = scene();
    g.write_reg(reg::PRIM, 3).unwrap();
    g.write_reg(reg::RGBAQ, rgba(9, 0, 0, 0)).unwrap();
    for (x, y) in [(8, 8), (56, 8), (8, 56)] {
        g.write_reg(reg::XYZ2, xyz(x, y, 0)).unwrap();
    }
    assert_eq!(covered(&mut g, 8, 8), [(1, 1), (2, 1), (1, 2)]);
}

#[test]
fn gouraud_and_flat_shading() {
    // R = 0 at x=0 and 128 at x=8 (pixels): the plane R = 16 * x.
    let mut g = scene();
    g.write_reg(reg::PRIM, 3 | 1 << 3).unwrap();
    for (x, y, r) in [(0, 0, 0), (128, 0, 128), (0, 128, 0)] {
        g.write_reg(reg::RGBAQ, rgba(r, 7, 0, 0)).unwrap();
        g.write_reg(reg::XYZ2, xyz(x, y, 0)).unwrap();
    }
    assert_eq!(px(&mut g, 3, 1) & 0xff, 48);
    assert_eq!(px(&mut g, 5, 0) & 0xff, 80);
    assert_eq!(px(&mut g, 0, 5) & 0xff, 0);
    // Flat (IIP 0): every pixel takes the last vertex's colour.
    let mut g = scene();
    g.write_reg(reg::PRIM, 3).unwrap();
    for (x, y, r) in [(0, 0, 10), (128, 0, 20), (0, 128, 30)] {
        g.write_reg(reg::RGBAQ, rgba(r, 0, 0, 0)).unwrap();
        g.write_reg(reg::XYZ2, xyz(x, y, 0)).unwrap();
    }
    assert_eq!(px(&mut g, 3, 1) & 0xff, 30);
    assert_eq!(px(&mut g, 0, 0) & 0xff, 30);
}

fn fill(g: &mut G, color: u32) {
    // Destination colour through a plain sprite.
    let c = color as u64 | (1.0f32.to_bits() as u64) << 32;
    sprite(g, 0, 0, 0, 16 * 8, 16 * 8, c);
}

#[test]
fn alpha_blend_formula_rounding_and_clamp() {
    // Cv = ((Cs - Cd) * As >> 7) + Cd with Cs = (200, 100, 50), Cd = (40, 80, 121), As = 64:
    // R (160*64)>>7 = 80 -> 120; G (20*64)>>7 = 10 -> 90; B (-71*64)>>7 = floor(-35.5) = -36 -> 85.
    let mut g = scene();
    fill(&mut g, 0xff79_5028);
    g.write_reg(reg::ALPHA_1, 1 << 2 | 1 << 6).unwrap();
    sprite(&mut g, 1 << 6, 0, 0, 16, 16, rgba(200, 100, 50, 64));
    assert_eq!(px(&mut g, 0, 0), 0x4055_5a78);
    // Cs + Cd (A=Cs, B=0, C=FIX 0x80, D=Cd): 200 + 100 = 300 -> 255 with COLCLAMP, 300 & 255 = 44
    // without.
    for (clamp, want) in [(1, 255), (0, 44)] {
        let mut g = scene();
        fill(&mut g, 0x64);
        g.write_reg(reg::COLCLAMP, clamp).unwrap();
        g.write_reg(reg::ALPHA_1, 2 << 2 | 2 << 4 | 1 << 6 | (0x80u64 << 32))
            .unwrap();
        sprite(&mut g, 1 << 6, 0, 0, 16, 16, rgba(200, 0, 0, 0)); // red 200
        assert_eq!(px(&mut g, 0, 0) & 0xff, want);
    }
    // Cd - Cs (A=Cd, B=Cs, C=FIX 0x80, D=0): 100 - 200 = -100 -> 0 clamped, 156 wrapped.
    for (clamp, want) in [(1, 0), (0, 156)] {
        let mut g = scene();
        fill(&mut g, 0x64);
        g.write_reg(reg::COLCLAMP, clamp).unwrap();
        g.write_reg(reg::ALPHA_1, 1 | 2 << 4 | 2 << 6 | (0x80u64 << 32))
            .unwrap(); // B = 0 (Cs)
        sprite(&mut g, 1 << 6, 0, 0, 16, 16, rgba(200, 0, 0, 0));
        assert_eq!(px(&mut g, 0, 0) & 0xff, want);
    }
    // C = Ad (destination alpha 0x40): (200 - 0) * 64 >> 7 = 100, D = 0.
    let mut g = scene();
    fill(&mut g, 0x4000_0000);
    g.write_reg(reg::ALPHA_1, 2 << 2 | 1 << 4 | 2 << 6).unwrap();
    sprite(&mut g, 1 << 6, 0, 0, 16, 16, rgba(200, 0, 0, 0x11));
    assert_eq!(px(&mut g, 0, 0), 0x1100_0064);
}

/// AA1 (PRIM bit 7) on a triangle or line: without ABE the source alpha is the coverage, 0x80
/// inside, and nothing is blended; with ABE the alpha is kept and blending goes on. Sprites
/// ignore it (piney-gs raster.rs, the AA1 rule).
#[test]
fn aa1_makes_interior_alpha_the_coverage() {
    // The triangle (0,0) (16,0) (0,16) covers pixel (2, 2); vertex alpha 1 over a background.
    let tri = |g: &mut G, prim_flags: u64, color: u64| {
        g.write_reg(reg::PRIM, 3 | prim_flags).unwrap();
        g.write_reg(reg::RGBAQ, color).unwrap();
        g.write_reg(reg::XYZ2, xyz(0, 0, 0)).unwrap();
        g.write_reg(reg::XYZ2, xyz(256, 0, 0)).unwrap();
        g.write_reg(reg::XYZ2, xyz(0, 256, 0)).unwrap();
    };
    // ALPHA: Cv = (Cs - Cd) * As >> 7 + Cd.
    let alpha = 1 << 2 | 1 << 6;
    // AA1 alone: the colour as it is, alpha written 0x80.
    let mut g = scene();
    fill(&mut g, 0x0000_0064);
    g.write_reg(reg::ALPHA_1, alpha).unwrap();
    tri(&mut g, 1 << 7, rgba(200, 10, 20, 1));
    assert_eq!(px(&mut g, 2, 2), 0x8014_0ac8);
    // The alpha test sees 0x80: ATST GEQUAL 0x80 passes (AFAIL KEEP would drop the pixel).
    let mut g = scene();
    g.write_reg(reg::TEST_1, 1 | 5 << 1 | 0x80 << 4 | (1 << 16) | (1 << 17))
        .unwrap();
    tri(&mut g, 1 << 7, rgba(7, 0, 0, 1));
    assert_eq!(px(&mut g, 2, 2), 0x8000_0007);
    // AA1 with ABE: blended by the vertex alpha 0x40: R (200 - 100) * 64 >> 7 + 100 = 150.
    let mut g = scene();
    fill(&mut g, 0x0000_0064);
    g.write_reg(reg::ALPHA_1, alpha).unwrap();
    tri(&mut g, 1 << 7 | 1 << 6, rgba(200, 0, 0, 0x40));
    assert_eq!(px(&mut g, 2, 2), 0x4000_0096);
    // A line too: (0,2)-(4,2) gets alpha 0x80.
    let mut g = scene();
    g.write_reg(reg::PRIM, 1 | 1 << 7).unwrap();
    g.write_reg(reg::RGBAQ, rgba(3, 0, 0, 5)).unwrap();
    g.write_reg(reg::XYZ2, xyz(0, 32, 0)).unwrap();
    g.write_reg(reg::XYZ2, xyz(64, 32, 0)).unwrap();
    assert_eq!(px(&mut g, 1, 2), 0x8000_0003);
    // A sprite ignores AA1: its alpha stays 5.
    let mut g = scene();
    sprite(&mut g, 1 << 7, 0, 0, 16, 16, rgba(3, 0, 0, 5));
    assert_eq!(px(&mut g, 0, 0), 0x0500_0003);
}

#[test]
fn pabe_fba_fbmsk() {
    // PABE: As = 0x7f (MSB 0) is not blended, so Cs is written as is; As = 0x80 blends.
    let mut g = scene();
    fill(&mut g, 0x0000_0010);
    g.write_reg(reg::PABE, 1).unwrap();
    g.write_reg(reg::ALPHA_1, 2 << 2 | 2 << 4 | 1 << 6 | (0x80u64 << 32))
        .unwrap();
    sprite(&mut g, 1 << 6, 0, 0, 16, 16, rgba(0x20, 0, 0, 0x7f));
    assert_eq!(px(&mut g, 0, 0), 0x7f00_0020);
    sprite(&mut g, 1 << 6, 16, 0, 32, 16, rgba(0x20, 0, 0, 0x80));
    assert_eq!(px(&mut g, 1, 0), 0x8000_0030);
    // FBA: the written alpha gets bit 7.
    let mut g = scene();
    g.write_reg(reg::FBA_1, 1).unwrap();
    sprite(&mut g, 0, 0, 0, 16, 16, rgba(1, 2, 3, 0x40));
    assert_eq!(px(&mut g, 0, 0), 0xc003_0201);
    // FBMSK: set bits keep the old value (here green and alpha).
    let mut g = scene();
    fill(&mut g, 0x1122_3344);
    g.write_reg(reg::FRAME_1, 1 << 16 | (0xff00_ff00u64 << 32))
        .unwrap();
    sprite(&mut g, 0, 0, 0, 16, 16, rgba(0xaa, 0xbb, 0xcc, 0xdd));
    assert_eq!(px(&mut g, 0, 0), 0x11cc_33aa);
}

fn zpx(g: &mut G, psm: Psm) -> u32 {
    g.local_memory().read_pixel(psm, 0, 0, 8 * 32, 1)
}

#[test]
fn depth_test_every_format() {
    for (zcode, psm, max) in [
        (0u64, Psm::Z32, u32::MAX),
        (1, Psm::Z24, 0xff_ffff),
        (2, Psm::Z16, 0xffff),
        (0xa, Psm::Z16s, 0xffff),
    ] {
        let mut g = scene();
        g.write_reg(reg::ZBUF_1, 8 | zcode << 24).unwrap();
        // GEQUAL.
        g.write_reg(reg::TEST_1, (1 << 16) | (2 << 17)).unwrap();
        let draw = |g: &mut G, z: u32, r: u8| {
            g.write_reg(reg::PRIM, 6).unwrap();
            g.write_reg(reg::RGBAQ, rgba(r, 0, 0, 0)).unwrap();
            g.write_reg(reg::XYZ2, xyz(0, 0, z)).unwrap();
            g.write_reg(reg::XYZ2, xyz(16, 16, z)).unwrap();
        };
        draw(&mut g, 100, 1);
        assert_eq!(zpx(&mut g, psm), 100);
        draw(&mut g, 50, 2); // fails GEQUAL
        assert_eq!(px(&mut g, 0, 0) & 0xff, 1);
        draw(&mut g, 100, 3); // equal passes
        assert_eq!(px(&mut g, 0, 0) & 0xff, 3);
        // A Z beyond the format saturates to its maximum.
        draw(&mut g, u32::MAX, 4);
        assert_eq!(zpx(&mut g, psm), max, "{psm:?}");
        // GREATER: equal fails.
        g.write_reg(reg::TEST_1, (1 << 16) | (3 << 17)).unwrap();
        draw(&mut g, u32::MAX, 5);
        assert_eq!(px(&mut g, 0, 0) & 0xff, 4);
        // ZMSK: passes but Z stays.
        g.write_reg(reg::ZBUF_1, 8 | zcode << 24 | 1 << 32).unwrap();
        g.write_reg(reg::TEST_1, (1 << 16) | (1 << 17)).unwrap();
        draw(&mut g, 7, 6);
        assert_eq!(px(&mut g, 0, 0) & 0xff, 6);
        assert_eq!(zpx(&mut g, psm), max);
        // NEVER.
        g.write_reg(reg::TEST_1, 1 << 16).unwrap();
        draw(&mut g, 7, 8);
        assert_eq!(px(&mut g, 0, 0) & 0xff, 6);
    }
}

#[test]
fn alpha_test_afail_modes() {
    // ATE, ATST GREATER (6), AREF 0x40; the source alpha 0x40 fails.
    let test = |afail: u64| 1 | 6 << 1 | 0x40 << 4 | afail << 12 | 1 << 16 | 1 << 17;
    let run = |afail: u64| {
        let mut g = scene();
        fill(&mut g, 0x1122_3344);
        g.write_reg(reg::ZBUF_1, 8).unwrap();
        g.write_reg(reg::TEST_1, test(afail)).unwrap();
        g.write_reg(reg::PRIM, 6).unwrap();
        g.write_reg(reg::RGBAQ, rgba(0xaa, 0xbb, 0xcc, 0x40))
            .unwrap();
        g.write_reg(reg::XYZ2, xyz(0, 0, 77)).unwrap();
        g.write_reg(reg::XYZ2, xyz(16, 16, 77)).unwrap();
        (px(&mut g, 0, 0), zpx(&mut g, Psm::Z32))
    };
    assert_eq!(run(0), (0x1122_3344, 0)); // KEEP
    assert_eq!(run(1), (0x40cc_bbaa, 0)); // FB_ONLY
    assert_eq!(run(2), (0x1122_3344, 77)); // ZB_ONLY
    assert_eq!(run(3), (0x11cc_bbaa, 0)); // RGB_ONLY
    // Passing alpha writes both.
    let mut g = scene();
    g.write_reg(reg::ZBUF_1, 8).unwrap();
    g.write_reg(reg::TEST_1, test(0)).unwrap();
    g.write_reg(reg::PRIM, 6).unwrap();
    g.write_reg(reg::RGBAQ, rgba(1, 0, 0, 0x41)).unwrap();
    g.write_reg(reg::XYZ2, xyz(0, 0, 5)).unwrap();
    g.write_reg(reg::XYZ2, xyz(16, 16, 5)).unwrap();
    assert_eq!((px(&mut g, 0, 0), zpx(&mut g, Psm::Z32)), (0x4100_0001, 5));
}

#[test]
fn destination_alpha_test() {
    // DATE with DATM 0 passes where the stored alpha's MSB is 0; DATM 1 where it is 1.
    for (datm, dst, drawn) in [
        (0u64, 0x7f00_0000u32, true),
        (0, 0x8000_0000, false),
        (1, 0x8000_0000, true),
        (1, 0, false),
    ] {
        let mut g = scene();
        fill(&mut g, dst);
        g.write_reg(reg::TEST_1, 1 << 14 | datm << 15 | 1 << 16 | 1 << 17)
            .unwrap();
        sprite(&mut g, 0, 0, 0, 16, 16, rgba(9, 0, 0, 0));
        assert_eq!(
            px(&mut g, 0, 0) & 0xff == 9,
            drawn,
            "DATM {datm} dst {dst:#x}"
        );
    }
}

#[test]
fn scissor_and_scanmsk() {
    let mut g = scene();
    g.write_reg(reg::SCISSOR_1, 2 | 4 << 16 | 1u64 << 32 | 3u64 << 48)
        .unwrap();
    sprite(&mut g, 0, 0, 0, 16 * 8, 16 * 8, rgba(1, 0, 0, 0));
    let want: Vec<(u32, u32)> = (1..4).flat_map(|y| (2..5).map(move |x| (x, y))).collect();
    assert_eq!(covered(&mut g, 8, 8), want);
    // SCANMSK 2 skips even rows, 3 odd rows.
    for (m, rows) in [(2u64, [1, 3]), (3, [0, 2])] {
        let mut g = scene();
        g.write_reg(reg::SCANMSK, m).unwrap();
        sprite(&mut g, 0, 0, 0, 16, 16 * 4, rgba(1, 0, 0, 0));
        let got: Vec<u32> = covered(&mut g, 4, 4).iter().map(|p| p.1).collect();
        assert_eq!(got, rows);
    }
}

#[test]
fn fog() {
    // C = (F * C + (255 - F) * FOGCOL) >> 8: F = 128, C = 200, FOGCOL = 10 -> (25600 + 1270) >> 8 = 104.
    let mut g = scene();
    g.write_reg(reg::FOGCOL, 10).unwrap();
    g.write_reg(reg::PRIM, 6 | 1 << 5).unwrap();
    g.write_reg(reg::RGBAQ, rgba(200, 0, 0, 0)).unwrap();
    g.write_reg(reg::XYZF2, xyz(0, 0, 0) | 128 << 56).unwrap();
    g.write_reg(reg::XYZF2, xyz(16, 16, 0) | 128 << 56).unwrap();
    assert_eq!(px(&mut g, 0, 0) & 0xff, 104);
}

#[test]
fn sixteen_bit_frame_and_dither() {
    // PSMCT16 frame: (R>>3) | (G>>3)<<5 | (B>>3)<<10 | (A>>7)<<15.
    let mut g = scene();
    g.write_reg(reg::FRAME_1, 1 << 16 | 2 << 24).unwrap();
    sprite(&mut g, 0, 0, 0, 16, 16, rgba(0xff, 0x80, 0x08, 0x80));
    assert_eq!(
        g.local_memory().read_pixel(Psm::Ct16, 0, 0, 0, 1),
        0x1f | 0x10 << 5 | 1 << 10 | 0x8000
    );
    // Dither: DIMX entry (row 1, col 2) = -4 (0b100) added before the 5-bit cut: 0x80 - 4 = 0x7c
    // -> 15; entry (row 0, col 0) = 3: 0x80 + 3 -> 16.
    let mut g = scene();
    g.write_reg(reg::FRAME_1, 1 << 16 | 2 << 24).unwrap();
    g.write_reg(reg::DTHE, 1).unwrap();
    g.write_reg(reg::DIMX, 3 | 4 << (16 + 8)).unwrap();
    sprite(&mut g, 0, 0, 0, 16 * 4, 16 * 4, rgba(0x80, 0, 0, 0));
    assert_eq!(
        g.local_memory().read_pixel(Psm::Ct16, 0, 0, 0, 1) & 0x1f,
        16
    );
    assert_eq!(
        g.local_memory().read_pixel(Psm::Ct16, 2, 1, 0, 1) & 0x1f,
        15
    );
    assert_eq!(
        g.local_memory().read_pixel(Psm::Ct16, 1, 0, 0, 1) & 0x1f,
        16
    ); // entry 0: no change
    // 16-bit FBMSK: the 32-bit mask's bits 3-7 keep red.
    let mut g = scene();
    g.write_reg(reg::FRAME_1, 1 << 16 | 2 << 24 | (0xf8u64 << 32))
        .unwrap();
    sprite(&mut g, 0, 0, 0, 16, 16, rgba(0xff, 0xff, 0, 0));
    assert_eq!(
        g.local_memory().read_pixel(Psm::Ct16, 0, 0, 0, 1),
        0x1f << 5
    );
}

#[test]
fn lines_and_points() {
    // Horizontal line (0,2)-(4,2): x-major, pixels 0..3 on row 2 (the end pixel is left out).
    let mut g = scene();
    g.write_reg(reg::PRIM, 1).unwrap();
    g.write_reg(reg::RGBAQ, rgba(1, 0, 0, 0)).unwrap();
    g.write_reg(reg::XYZ2, xyz(0, 32, 0)).unwrap();
    g.write_reg(reg::XYZ2, xyz(64, 32, 0)).unwrap();
    assert_eq!(covered(&mut g, 8, 8), [(0, 2), (1, 2), (2, 2), (3, 2)]);
    // Diagonal (0,0)-(3,3): (0,0), (1,1), (2,2).
    let mut g = scene();
    g.write_reg(reg::PRIM, 1).unwrap();
    g.write_reg(reg::RGBAQ, rgba(1, 0, 0, 0)).unwrap();
    g.write_reg(reg::XYZ2, xyz(0, 0, 0)).unwrap();
    g.write_reg(reg::XYZ2, xyz(48, 48, 0)).unwrap();
    assert_eq!(covered(&mut g, 8, 8), [(0, 0), (1, 1), (2, 2)]);
    // A point at (5, 6), and one at (2.25, 1.0) covering ceil -> (3, 1).
    let mut g = scene();
    g.write_reg(reg::PRIM, 0).unwrap();
    g.write_reg(reg::RGBAQ, rgba(1, 0, 0, 0)).unwrap();
    g.write_reg(reg::XYZ2, xyz(80, 96, 0)).unwrap();
    g.write_reg(reg::XYZ2, xyz(36, 16, 0)).unwrap();
    assert_eq!(covered(&mut g, 8, 8), [(3, 1), (5, 6)]);
}

#[test]
fn xyoffset_moves_primitives() {
    // OFX = 2048, OFY = 2048 (pixels * 16): a sprite at window (2050, 2049) lands at (2, 1).
    let mut g = scene();
    g.write_reg(reg::XYOFFSET_1, (2048 << 4) | ((2048u64 << 4) << 32))
        .unwrap();
    sprite(
        &mut g,
        0,
        2050 << 4,
        2049 << 4,
        2051 << 4,
        2050 << 4,
        rgba(1, 0, 0, 0),
    );
    assert_eq!(covered(&mut g, 8, 8), [(2, 1)]);
}

// ---- textures ----

/// Uploads `pixels` (raw values of `psm`) as a w x h image at BP 0x400, BW 2.
fn upload(g: &mut G, psm: Psm, w: u32, h: u32, x: u32, y: u32, bytes: &[u8]) {
    g.write_reg(
        reg::BITBLTBUF,
        (0x400u64 << 32) | (2u64 << 48) | ((psm.code() as u64) << 56),
    )
    .unwrap();
    g.write_reg(reg::TRXPOS, ((x as u64) << 32) | ((y as u64) << 48))
        .unwrap();
    g.write_reg(reg::TRXREG, w as u64 | (h as u64) << 32)
        .unwrap();
    g.write_reg(reg::TRXDIR, 0).unwrap();
    let mut q = Vec::new();
    for c in bytes.chunks(16) {
        let mut b = [0u8; 16];
        b[..c.len()].copy_from_slice(c);
        q.push(u128::from_le_bytes(b));
    }
    g.write_image(&q);
}

/// TEX0 for a texture at BP 0x400, TBW 2, 2^tw x 2^th, DECAL, TCC.
fn tex0(psm: Psm, tw: u64, th: u64) -> u64 {
    0x400 | 2 << 14 | (psm.code() as u64) << 20 | tw << 26 | th << 30 | 1 << 34 | 1 << 35
}

/// A textured sprite with UV from (u0, v0) to (u1, v1) over pixels (x0,y0)-(x1,y1).
fn tex_sprite(
    g: &mut G,
    uv0: (u32, u32),
    uv1: (u32, u32),
    p0: (u32, u32),
    p1: (u32, u32),
    color: u64,
) {
    g.write_reg(reg::PRIM, 6 | 1 << 4 | 1 << 8).unwrap();
    g.write_reg(reg::RGBAQ, color).unwrap();
    g.write_reg(reg::UV, uv0.0 as u64 | (uv0.1 as u64) << 16)
        .unwrap();
    g.write_reg(reg::XYZ2, xyz(p0.0 * 16, p0.1 * 16, 0))
        .unwrap();
    g.write_reg(reg::UV, uv1.0 as u64 | (uv1.1 as u64) << 16)
        .unwrap();
    g.write_reg(reg::XYZ2, xyz(p1.0 * 16, p1.1 * 16, 0))
        .unwrap();
}

fn tex32(w: u32, h: u32) -> Vec<u8> {
    (0..w * h)
        .flat_map(|i| [i as u8 * 10, 1, 2, 0x80])
        .collect()
}

#[test]
fn texture_ct32_decal_and_repeat() {
    let mut g = scene();
    upload(&mut g, Psm::Ct32, 4, 4, 0, 0, &tex32(4, 4));
    g.write_reg(reg::TEX0_1, tex0(Psm::Ct32, 2, 2)).unwrap();
    // UV 0..8 texels over 8 pixels with REPEAT: column x takes texel x & 3.
    tex_sprite(
        &mut g,
        (0, 0),
        (8 * 16, 8 * 16),
        (0, 0),
        (8, 8),
        rgba(0, 0, 0, 0),
    );
    for x in 0..8 {
        assert_eq!(
            px(&mut g, x, 1),
            0x8002_0100 | ((4 + (x & 3)) * 10),
            "x {x}"
        );
    }
    // CLAMP: beyond the edge the last texel repeats.
    g.write_reg(reg::CLAMP_1, 1 | 1 << 2).unwrap();
    tex_sprite(
        &mut g,
        (0, 0),
        (8 * 16, 8 * 16),
        (0, 0),
        (8, 8),
        rgba(0, 0, 0, 0),
    );
    assert_eq!(px(&mut g, 6, 0), 0x8002_0100 | 30);
    // REGION_CLAMP U in 1..2.
    g.write_reg(reg::CLAMP_1, 2 | 1 << 2 | 1 << 4 | 2 << 14)
        .unwrap();
    tex_sprite(
        &mut g,
        (0, 0),
        (8 * 16, 8 * 16),
        (0, 0),
        (8, 8),
        rgba(0, 0, 0, 0),
    );
    assert_eq!(
        [
            px(&mut g, 0, 0) & 0xff,
            px(&mut g, 1, 0) & 0xff,
            px(&mut g, 5, 0) & 0xff
        ],
        [10, 10, 20]
    );
    // REGION_REPEAT: u = (u & MINU) | MAXU with MINU 1, MAXU 2: u 0 -> 2, 1 -> 3, 2 -> 2.
    g.write_reg(reg::CLAMP_1, 3 | 1 << 2 | 1 << 4 | 2 << 14)
        .unwrap();
    tex_sprite(
        &mut g,
        (0, 0),
        (8 * 16, 8 * 16),
        (0, 0),
        (8, 8),
        rgba(0, 0, 0, 0),
    );
    assert_eq!(
        [
            px(&mut g, 0, 0) & 0xff,
            px(&mut g, 1, 0) & 0xff,
            px(&mut g, 2, 0) & 0xff
        ],
        [20, 30, 20]
    );
}

#[test]
fn texture_functions() {
    // Texel (200, 100, 0, 0x40), vertex (64, 255, 0, 0x20).
    let run = |tfx: u64, tcc: u64| {
        let mut g = scene();
        upload(&mut g, Psm::Ct32, 1, 1, 0, 0, &[200, 100, 0, 0x40]);
        g.write_reg(
            reg::TEX0_1,
            (tex0(Psm::Ct32, 0, 0) & !(3 << 35) & !(1 << 34)) | tfx << 35 | tcc << 34,
        )
        .unwrap();
        tex_sprite(
            &mut g,
            (0, 0),
            (16, 16),
            (0, 0),
            (1, 1),
            rgba(64, 255, 0, 0x20),
        );
        px(&mut g, 0, 0).to_le_bytes()
    };
    // MODULATE: 200*64>>7 = 100; 100*255>>7 = 199; A 0x40*0x20>>7 = 16 (TCC) or 0x20.
    assert_eq!(run(0, 1), [100, 199, 0, 16]);
    assert_eq!(run(0, 0), [100, 199, 0, 0x20]);
    // DECAL.
    assert_eq!(run(1, 1), [200, 100, 0, 0x40]);
    // HIGHLIGHT: + Af (0x20): 132, 231 (199 + 32), 32; A = 0x40 + 0x20.
    assert_eq!(run(2, 1), [132, 231, 32, 0x60]);
    // HIGHLIGHT2: colours as HIGHLIGHT, A = At.
    assert_eq!(run(3, 1), [132, 231, 32, 0x40]);
    assert_eq!(run(3, 0), [132, 231, 32, 0x20]);
}

#[test]
fn texa_expansion_ct24_ct16() {
    // PSMCT24: A = TA0 (0x33), or 0 for black with AEM.
    let mut g = scene();
    upload(&mut g, Psm::Ct24, 2, 1, 0, 0, &[1, 2, 3, 0, 0, 0]);
    g.write_reg(reg::TEXA, 0x33 | 1 << 15 | 0x66u64 << 32)
        .unwrap();
    g.write_reg(reg::TEX0_1, tex0(Psm::Ct24, 1, 0)).unwrap();
    tex_sprite(&mut g, (0, 0), (32, 16), (0, 0), (2, 1), rgba(0, 0, 0, 0));
    assert_eq!(px(&mut g, 0, 0), 0x3303_0201);
    assert_eq!(px(&mut g, 1, 0), 0);
    // PSMCT16: channels << 3; A = TA1 with the A bit, TA0 without, 0 for 0x0000 with AEM.
    let mut g = scene();
    let t: [u16; 3] = [0x801f, 0x03e0, 0x0000];
    upload(
        &mut g,
        Psm::Ct16,
        3,
        1,
        0,
        0,
        &t.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<_>>(),
    );
    g.write_reg(reg::TEXA, 0x33 | 1 << 15 | 0x66u64 << 32)
        .unwrap();
    g.write_reg(reg::TEX0_1, tex0(Psm::Ct16, 2, 0)).unwrap();
    tex_sprite(&mut g, (0, 0), (48, 16), (0, 0), (3, 1), rgba(0, 0, 0, 0));
    assert_eq!(px(&mut g, 0, 0), 0x6600_00f8);
    assert_eq!(px(&mut g, 1, 0), 0x3300_f800);
    assert_eq!(px(&mut g, 2, 0), 0);
}

#[test]
fn clut_csm1_t8_and_t4() {
    // CSM1 8-bit: index bits 3 and 4 are swapped in the 16x16 CLUT rectangle, so entry 8 lives
    // at (0, 1) and entry 16 at (8, 0). CPSM 1 is undefined: it loads and looks up as PSMCT32
    // (CPSM 0) alike.
    for cpsm in [0u64, 1] {
        let mut g = scene();
        let mut clut = vec![0u8; 16 * 16 * 4];
        let put = |clut: &mut Vec<u8>, x: usize, y: usize, v: u32| {
            clut[(y * 16 + x) * 4..][..4].copy_from_slice(&v.to_le_bytes())
        };
        put(&mut clut, 0, 1, 0x8011_2233); // entry 8
        put(&mut clut, 8, 0, 0x8044_5566); // entry 16
        put(&mut clut, 1, 0, 0x8077_8899); // entry 1
        // The CLUT at BP 0x600 (BW 1), uploaded with BITBLTBUF DBP 0x600.
        g.write_reg(reg::BITBLTBUF, (0x600u64 << 32) | (1u64 << 48))
            .unwrap();
        g.write_reg(reg::TRXPOS, 0).unwrap();
        g.write_reg(reg::TRXREG, 16 | 16 << 32).unwrap();
        g.write_reg(reg::TRXDIR, 0).unwrap();
        let q: Vec<u128> = clut
            .chunks(16)
            .map(|c| u128::from_le_bytes(c.try_into().unwrap()))
            .collect();
        g.write_image(&q);
        upload(&mut g, Psm::T8, 3, 1, 0, 0, &[8, 16, 1]);
        g.write_reg(
            reg::TEX0_1,
            tex0(Psm::T8, 2, 0) | 0x600 << 37 | cpsm << 51 | 1 << 61,
        )
        .unwrap();
        tex_sprite(&mut g, (0, 0), (48, 16), (0, 0), (3, 1), rgba(0, 0, 0, 0));
        assert_eq!(
            [px(&mut g, 0, 0), px(&mut g, 1, 0), px(&mut g, 2, 0)],
            [0x8011_2233, 0x8044_5566, 0x8077_8899],
            "CPSM {cpsm}"
        );
    }
    // 4-bit with a 16-bit CLUT (CPSM 2) at CSA 2: an 8x2 rectangle, entry i at (i & 7, i >> 3);
    // the lookup adds CSA * 16.
    let mut g = scene();
    let entries: Vec<u16> = (0..16).map(|i| 0x8000 | i << 5).collect();
    g.write_reg(
        reg::BITBLTBUF,
        (0x600u64 << 32) | (1u64 << 48) | (2u64 << 56),
    )
    .unwrap();
    g.write_reg(reg::TRXPOS, 0).unwrap();
    g.write_reg(reg::TRXREG, 8 | 2 << 32).unwrap();
    g.write_reg(reg::TRXDIR, 0).unwrap();
    let bytes: Vec<u8> = entries.iter().flat_map(|v| v.to_le_bytes()).collect();
    let q: Vec<u128> = bytes
        .chunks(16)
        .map(|c| u128::from_le_bytes(c.try_into().unwrap()))
        .collect();
    g.write_image(&q);
    upload(&mut g, Psm::T4, 2, 1, 0, 0, &[0xa3]); // pixel 0 = 3, pixel 1 = 10
    g.write_reg(reg::TEXA, 0x80u64 << 32).unwrap();
    g.write_reg(
        reg::TEX0_1,
        tex0(Psm::T4, 1, 0) | 0x600 << 37 | 2 << 51 | 2 << 56 | 1 << 61,
    )
    .unwrap();
    assert_eq!(g.renderer_mut().read_clut()[32 + 10], 0x8000 | 10 << 5);
    tex_sprite(&mut g, (0, 0), (32, 16), (0, 0), (2, 1), rgba(0, 0, 0, 0));
    assert_eq!(px(&mut g, 0, 0), 0x8000_0000 | (3 << 3) << 8);
    assert_eq!(px(&mut g, 1, 0), 0x8000_0000 | (10 << 3) << 8);
}

#[test]
fn clut_csm2() {
    // CSM2: a PSMCT16 row at (COU * 16, COV) of a buffer CBW wide: COU 1, COV 2, CBW 2.
    let mut g = scene();
    let entries: Vec<u16> = (0..16).map(|i| i * 3).collect();
    g.write_reg(
        reg::BITBLTBUF,
        (0x600u64 << 32) | (2u64 << 48) | (2u64 << 56),
    )
    .unwrap();
    g.write_reg(reg::TRXPOS, (16u64 << 32) | (2u64 << 48))
        .unwrap();
    g.write_reg(reg::TRXREG, 16 | 1 << 32).unwrap();
    g.write_reg(reg::TRXDIR, 0).unwrap();
    let bytes: Vec<u8> = entries.iter().flat_map(|v| v.to_le_bytes()).collect();
    let q: Vec<u128> = bytes
        .chunks(16)
        .map(|c| u128::from_le_bytes(c.try_into().unwrap()))
        .collect();
    g.write_image(&q);
    g.write_reg(reg::TEXCLUT, 2 | 1 << 6 | 2 << 12).unwrap();
    g.write_reg(
        reg::TEX0_1,
        tex0(Psm::T4, 1, 0) | 0x600 << 37 | 2 << 51 | 1 << 55 | 1 << 61,
    )
    .unwrap();
    assert_eq!(g.renderer_mut().read_clut()[..16], entries[..]);
}

#[test]
fn bilinear_and_stq() {
    // A 2x1 texture black | white. Bilinear at u = 1.0 texel (the boundary between the texel
    // centres 0.5 and 1.5) gives an even mix: (0 * 8 + 255 * 8) * 16 >> 8 = 127.
    let mut g = scene();
    upload(
        &mut g,
        Psm::Ct32,
        2,
        1,
        0,
        0,
        &[0, 0, 0, 0, 255, 255, 255, 255],
    );
    g.write_reg(reg::TEX0_1, tex0(Psm::Ct32, 1, 0)).unwrap();
    g.write_reg(reg::CLAMP_1, 1 | 1 << 2).unwrap();
    g.write_reg(reg::TEX1_1, 1 << 5).unwrap(); // MMAG linear
    tex_sprite(&mut g, (16, 0), (32, 16), (0, 0), (1, 1), rgba(0, 0, 0, 0));
    assert_eq!(px(&mut g, 0, 0), 0x7f7f_7f7f);
    // STQ: S 0..1 over 4 pixels of a 4-texel-wide texture with Q = 2 everywhere: S/Q 0..0.5, so
    // pixel x samples texel floor(x * 2 / 4) -> 0, 0, 1, 1.
    let mut g = scene();
    upload(&mut g, Psm::Ct32, 4, 1, 0, 0, &tex32(4, 1));
    g.write_reg(reg::TEX0_1, tex0(Psm::Ct32, 2, 0)).unwrap();
    g.write_reg(reg::PRIM, 6 | 1 << 4).unwrap();
    let q2 = (2.0f32.to_bits() as u64) << 32;
    g.write_reg(reg::RGBAQ, q2).unwrap();
    g.write_reg(reg::ST, 0).unwrap();
    g.write_reg(reg::XYZ2, xyz(0, 0, 0)).unwrap();
    g.write_reg(
        reg::ST,
        (1.0f32.to_bits() as u64) | (1.0f32.to_bits() as u64) << 32,
    )
    .unwrap();
    g.write_reg(reg::XYZ2, xyz(64, 16, 0)).unwrap();
    let got: Vec<u32> = (0..4).map(|x| px(&mut g, x, 0) & 0xff).collect();
    assert_eq!(got, [0, 0, 10, 10]);
}

#[test]
fn mipmap_level_from_k() {
    // LCM 1: LOD = K. K = 1.0 (16) with MMIN 2 (nearest mipmap nearest) picks level 1 at MIPTBP1.
    let mut g = scene();
    upload(&mut g, Psm::Ct32, 2, 2, 0, 0, &tex32(2, 2));
    // Level 1 (1x1) at BP 0x500 with BW 1.
    g.write_reg(reg::BITBLTBUF, (0x500u64 << 32) | (1u64 << 48))
        .unwrap();
    g.write_reg(reg::TRXPOS, 0).unwrap();
    g.write_reg(reg::TRXREG, 1 | 1 << 32).unwrap();
    g.write_reg(reg::TRXDIR, 0).unwrap();
    g.write_image(&[0xff00_00ee]);
    g.write_reg(reg::TEX0_1, tex0(Psm::Ct32, 1, 1)).unwrap();
    g.write_reg(reg::MIPTBP1_1, 0x500 | 1 << 14).unwrap();
    g.write_reg(reg::TEX1_1, 1 | 1 << 2 | 2 << 6 | 16u64 << 32)
        .unwrap();
    tex_sprite(&mut g, (0, 0), (32, 32), (0, 0), (2, 2), rgba(0, 0, 0, 0));
    assert_eq!(px(&mut g, 1, 1), 0xff00_00ee);
    // K = 0: magnification, level 0.
    g.write_reg(reg::TEX1_1, 1 | 1 << 2 | 2 << 6).unwrap();
    tex_sprite(&mut g, (0, 0), (32, 32), (0, 0), (2, 2), rgba(0, 0, 0, 0));
    assert_eq!(px(&mut g, 1, 1), 0x8002_011e);
}

#[test]
fn ct24_frame_keeps_the_top_byte_and_reads_alpha_as_0x80() {
    // PSMCT24 writes R, G, B only; as a destination its alpha reads 0x80 (1.0), so C = Ad gives
    // (Cs - 0) * 0x80 >> 7 = Cs.
    let mut g = scene();
    fill(&mut g, 0x5500_0000);
    g.write_reg(reg::FRAME_1, 1 << 16 | 1 << 24).unwrap();
    g.write_reg(reg::ALPHA_1, 2 << 2 | 1 << 4 | 2 << 6).unwrap();
    sprite(&mut g, 1 << 6, 0, 0, 16, 16, rgba(77, 66, 55, 0x10));
    assert_eq!(px(&mut g, 0, 0), 0x5537_424d);
}

#[test]
fn sixteen_bit_s_frame_fba_and_date() {
    // PSMCT16S addressing with FBA: the A bit is set although As = 0.
    let mut g = scene();
    g.write_reg(reg::FRAME_1, 1 << 16 | 0xa << 24).unwrap();
    g.write_reg(reg::FBA_1, 1).unwrap();
    sprite(&mut g, 0, 32 * 16, 0, 33 * 16, 16, rgba(8, 0, 0, 0));
    assert_eq!(g.local_memory().read_pixel(Psm::Ct16s, 32, 0, 0, 1), 0x8001);
    // DATE on a 16-bit frame tests bit 15: DATM 1 passes only where it is set.
    g.write_reg(reg::FBA_1, 0).unwrap();
    g.write_reg(reg::TEST_1, 1 << 14 | 1 << 15 | 1 << 16 | 1 << 17)
        .unwrap();
    sprite(&mut g, 0, 32 * 16, 0, 34 * 16, 16, rgba(16, 0, 0, 0));
    assert_eq!(g.local_memory().read_pixel(Psm::Ct16s, 32, 0, 0, 1), 0x0002);
    assert_eq!(g.local_memory().read_pixel(Psm::Ct16s, 33, 0, 0, 1), 0);
}

#[test]
fn high_nibble_and_high_byte_indexed_textures() {
    // PSMT8H takes the index from bits 24-31 of a PSMCT32 word, PSMT4HL from 24-27, PSMT4HH from
    // 28-31. Texel word 0x9a00_1234: 8H index 0x9a, 4HL 0xa, 4HH 0x9.
    for (psm, index) in [(Psm::T8h, 0x9au32), (Psm::T4hl, 0xa), (Psm::T4hh, 0x9)] {
        let mut g = scene();
        upload(&mut g, Psm::Ct32, 1, 1, 0, 0, &0x9a00_1234u32.to_le_bytes());
        // The CLUT: a PSMCT32 16x16 (8-bit) or 8x2 (4-bit) block at BP 0x600 whose entry i is
        // 0x8000_0000 | i, laid out by the CSM1 rule.
        let mut m = g.local_memory().clone();
        for i in 0..256u32 {
            let p = (i & 0xe7) | ((i & 8) << 1) | ((i & 0x10) >> 1);
            let (x, y) = if psm == Psm::T8h {
                (p & 15, p >> 4)
            } else {
                (i & 7, i >> 3)
            };
            if psm == Psm::T8h || i < 16 {
                m.write_pixel(Psm::Ct32, x, y, 0x600, 1, 0x8000_0000 | i);
            }
        }
        g.renderer_mut().memory(MemCommand::SetMemory(m.clone()));
        g.write_reg(reg::TEX0_1, tex0(psm, 0, 0) | 0x600 << 37 | 1 << 61)
            .unwrap();
        tex_sprite(&mut g, (0, 0), (16, 16), (1, 1), (2, 2), rgba(0, 0, 0, 0));
        assert_eq!(px(&mut g, 1, 1), 0x8000_0000 | index, "{psm:?}");
    }
}

#[test]
fn mipmap_linear_between_levels() {
    // MMIN 3 (nearest, mipmap linear), LCM 1, K = 0.5 (8): half of level 0's texel and half of
    // level 1's: (200 * 8 + 100 * 8) >> 4 = 150.
    let mut g = scene();
    upload(&mut g, Psm::Ct32, 1, 1, 0, 0, &[200, 0, 0, 0x80]);
    g.write_reg(reg::BITBLTBUF, (0x500u64 << 32) | (1u64 << 48))
        .unwrap();
    g.write_reg(reg::TRXPOS, 0).unwrap();
    g.write_reg(reg::TRXREG, 1 | 1 << 32).unwrap();
    g.write_reg(reg::TRXDIR, 0).unwrap();
    g.write_image(&[0x8000_0064]);
    g.write_reg(reg::TEX0_1, tex0(Psm::Ct32, 1, 1)).unwrap();
    g.write_reg(reg::MIPTBP1_1, 0x500 | 1 << 14).unwrap();
    g.write_reg(reg::CLAMP_1, 1 | 1 << 2).unwrap();
    g.write_reg(reg::TEX1_1, 1 | 1 << 2 | 3 << 6 | 8u64 << 32)
        .unwrap();
    tex_sprite(&mut g, (0, 0), (16, 16), (0, 0), (1, 1), rgba(0, 0, 0, 0));
    assert_eq!(px(&mut g, 0, 0) & 0xff, 150);
}

#[test]
fn reversed_sprite_corners_keep_their_texels() {
    // The sprite given right-to-left: pixel 0 still samples U = 0 (its corner's coordinate).
    let mut g = scene();
    upload(&mut g, Psm::Ct32, 4, 1, 0, 0, &tex32(4, 1));
    g.write_reg(reg::TEX0_1, tex0(Psm::Ct32, 2, 0)).unwrap();
    tex_sprite(&mut g, (64, 16), (0, 0), (4, 1), (0, 0), rgba(0, 0, 0, 0));
    let got: Vec<u32> = (0..4).map(|x| px(&mut g, x, 0) & 0xff).collect();
    assert_eq!(got, [0, 10, 20, 30]);
}

#[test]
fn primitives_left_of_the_window_are_clipped() {
    // A triangle reaching x < 0 (XYOFFSET moves it): only pixels at x >= 0 are drawn.
    let mut g = scene();
    g.write_reg(reg::XYOFFSET_1, 4 << 4).unwrap();
    g.write_reg(reg::PRIM, 6).unwrap();
    g.write_reg(reg::RGBAQ, rgba(1, 0, 0, 0)).unwrap();
    g.write_reg(reg::XYZ2, xyz(0, 0, 0)).unwrap();
    g.write_reg(reg::XYZ2, xyz(6 * 16, 16, 0)).unwrap();
    assert_eq!(covered(&mut g, 8, 2), [(0, 0), (1, 0)]);
}

#[test]
fn gouraud_rounds_down_in_either_winding() {
    // R = 0 at x = 0 and 100 at x = 3 (pixels): R(x) = 100 x / 3, so pixel 1 reads
    // floor(33.3) = 33 and pixel 2 floor(66.7) = 66, whichever way round the vertices go.
    for order in [[0usize, 1, 2], [0, 2, 1], [2, 1, 0]] {
        let verts = [(0u32, 0u32, 0u8), (48, 0, 100), (0, 48, 0)];
        let mut g = scene();
        g.write_reg(reg::PRIM, 3 | 1 << 3).unwrap();
        for i in order {
            let (x, y, r) = verts[i];
            g.write_reg(reg::RGBAQ, rgba(r, 0, 0, 0)).unwrap();
            g.write_reg(reg::XYZ2, xyz(x, y, 0)).unwrap();
        }
        assert_eq!(
            [px(&mut g, 1, 0) & 0xff, px(&mut g, 2, 0) & 0xff],
            [33, 66],
            "{order:?}"
        );
    }
}

#[test]
fn gouraud_lines_round_down_either_way() {
    // R from 0 to 100 over 3 pixels: pixel 1 is floor(33.3) = 33 drawn left to right, and
    // from the other end (100 at x = 3 going left) pixel 2 is 100 - 33.3 -> floor(66.7) = 66.
    let mut g = scene();
    g.write_reg(reg::PRIM, 1 | 1 << 3).unwrap();
    g.write_reg(reg::RGBAQ, rgba(0, 0, 0, 0)).unwrap();
    g.write_reg(reg::XYZ2, xyz(0, 0, 0)).unwrap();
    g.write_reg(reg::RGBAQ, rgba(100, 0, 0, 0)).unwrap();
    g.write_reg(reg::XYZ2, xyz(48, 0, 0)).unwrap();
    assert_eq!([px(&mut g, 1, 0) & 0xff, px(&mut g, 2, 0) & 0xff], [33, 66]);
    let mut g = scene();
    g.write_reg(reg::PRIM, 1 | 1 << 3).unwrap();
    g.write_reg(reg::RGBAQ, rgba(100, 0, 0, 0)).unwrap();
    g.write_reg(reg::XYZ2, xyz(48, 16, 0)).unwrap();
    g.write_reg(reg::RGBAQ, rgba(0, 0, 0, 0)).unwrap();
    g.write_reg(reg::XYZ2, xyz(0, 16, 0)).unwrap();
    assert_eq!([px(&mut g, 1, 1) & 0xff, px(&mut g, 2, 1) & 0xff], [33, 66]);
}

#[test]
fn frame_formats_8h_and_z() {
    // FRAME in PSMT8H: a PSMCT32 write of the alpha byte only.
    let mut g = scene();
    fill(&mut g, 0x1122_3344);
    g.write_reg(reg::FRAME_1, 1 << 16 | 0x1b << 24).unwrap();
    sprite(&mut g, 0, 0, 0, 16, 16, rgba(0xaa, 0xbb, 0xcc, 0x7e));
    assert_eq!(px(&mut g, 0, 0), 0x7e22_3344);
    // FRAME in PSMZ32: the colour goes through the Z swizzle, and Z through the colour one.
    let mut g = scene();
    g.write_reg(reg::FRAME_1, 1 << 16 | 0x30 << 24).unwrap();
    g.write_reg(reg::ZBUF_1, 8).unwrap();
    g.write_reg(reg::PRIM, 6).unwrap();
    g.write_reg(reg::RGBAQ, rgba(1, 2, 3, 4)).unwrap();
    g.write_reg(reg::XYZ2, xyz(0, 0, 0x55)).unwrap();
    g.write_reg(reg::XYZ2, xyz(16, 16, 0x55)).unwrap();
    let m = g.local_memory();
    assert_eq!(m.read_pixel(Psm::Z32, 0, 0, 0, 1), 0x0403_0201);
    assert_eq!(m.read_pixel(Psm::Ct32, 0, 0, 8 * 32, 1), 0x55);
    assert_eq!(m.read_pixel(Psm::Z32, 0, 0, 8 * 32, 1), 0);
}

#[test]
fn solid_sprite_fill_equals_the_pixel_pipeline() {
    // An opaque untextured sprite with Z test ALWAYS takes the renderer's fill path; with Z test
    // GEQUAL against a zero Z buffer (which every pixel passes) it goes pixel by pixel. Both
    // must leave the same memory: colour under FBMSK and FBA, 32- and 24-bit frames, and Z.
    for (fpsm, fbmsk, fba) in [(0u64, 0u64, 0u64), (0, 0x00f0_0f0f, 1), (1, 0xff00_00ff, 0)] {
        let run = |ztst: u64| {
            let mut g = scene();
            fill(&mut g, 0x5a6b_7c8d);
            g.write_reg(reg::FRAME_1, 1 << 16 | fpsm << 24 | fbmsk << 32)
                .unwrap();
            g.write_reg(reg::ZBUF_1, 8).unwrap(); // PSMZ32, Z writes on
            g.write_reg(reg::TEST_1, (1 << 16) | (ztst << 17)).unwrap();
            g.write_reg(reg::FBA_1, fba).unwrap();
            g.write_reg(reg::PRIM, 6).unwrap();
            g.write_reg(reg::RGBAQ, rgba(0x12, 0x34, 0x56, 0x78))
                .unwrap();
            g.write_reg(reg::XYZ2, xyz(8, 24, 0x0012_3456)).unwrap();
            g.write_reg(reg::XYZ2, xyz(16 * 40 + 8, 16 * 30, 0x0012_3456))
                .unwrap();
            g.local_memory().clone()
        };
        let (fast, slow) = (run(1), run(2));
        assert!(fast == slow, "FRAME PSM {fpsm} FBMSK {fbmsk:#x} FBA {fba}");
        // By hand: the colour word 0x78563412 with FBA's alpha MSB, written where FBMSK is 0
        // (and never bits 24-31 in PSMCT24), the fill elsewhere.
        let colour = 0x7856_3412u32 | (fba as u32) << 31;
        let keep = !(fbmsk as u32) & if fpsm == 1 { 0x00ff_ffff } else { u32::MAX };
        let want = (0x5a6b_7c8d & !keep) | (colour & keep);
        assert_eq!(fast.read_word(piney_gs::mem::addr32(2, 2, 0, 1)), want);
        assert_eq!(fast.read_pixel(Psm::Z32, 2, 2, 8 * 32, 1), 0x0012_3456);
    }
}

#[test]
fn solid_triangle_equals_the_pixel_pipeline() {
    // A Gouraud triangle with varying Z: with Z test ALWAYS it takes the fill path, with GEQUAL
    // against a zero Z buffer it goes pixel by pixel; the memory must be the same.
    let run = |ztst: u64| {
        let mut g = scene();
        g.write_reg(reg::ZBUF_1, 8).unwrap();
        g.write_reg(reg::TEST_1, (1 << 16) | (ztst << 17)).unwrap();
        g.write_reg(reg::PRIM, 3 | 1 << 3).unwrap();
        for (x, y, z, c) in [
            (8, 8, 0x10u32, rgba(255, 0, 30, 0x80)),
            (16 * 50 + 5, 40, 0x00ff_ffff, rgba(0, 200, 60, 0x20)),
            (30, 16 * 47 + 3, 0x0001_0000, rgba(7, 9, 250, 0xff)),
        ] {
            g.write_reg(reg::RGBAQ, c).unwrap();
            g.write_reg(reg::XYZ2, xyz(x, y, z)).unwrap();
        }
        g.local_memory().clone()
    };
    let fast = run(1);
    assert!(fast == run(2));
    // Drawn, with interpolated Z.
    assert_ne!(fast.read_pixel(Psm::Ct32, 10, 10, 0, 1), 0);
    let z = fast.read_pixel(Psm::Z32, 10, 10, 8 * 32, 1);
    assert!(z > 0x10 && z < 0x00ff_ffff, "{z:#x}");
}
