//! Render-scale rules on a scene with a diagonal edge, a line of "text" (a 1:1 textured sprite),
//! a render-to-texture and a full-screen copy effect, drawn at 1x and at 2x, 3x, 4x and 8x.
//! Expected properties follow from the rules in `SoftwareRenderer`'s text, not from a
//! renderer's output. Included as a module by piney-gs's tests/rules.rs (the software reference)
//! and piney-gs-wgpu's tests/reference_cases.rs (the wgpu renderer, which its differential tests
//! also hold to the reference plane for plane); the including file defines `R` and
//! `new_renderer(scale)`.

use piney_gs::Psm;
use piney_gs::gs::{Gs, reg};
use piney_gs::{LocalMemory, Renderer};

use super::{R, new_renderer};

type G = Gs<R>;

const Q1: u64 = (0x3f80_0000u64) << 32;

fn xyz(x16: u32, y16: u32) -> u64 {
    x16 as u64 | (y16 as u64) << 16
}

/// Frame at page 0 (FBW 2: 128 wide), the render target at page 64, the glyph at block 0x1000.
fn draw_scene(g: &mut G) {
    g.write_reg(reg::SCISSOR_1, 127 << 16 | (127u64 << 48))
        .unwrap();
    g.write_reg(reg::TEST_1, 1 << 16 | 1 << 17).unwrap();
    g.write_reg(reg::ZBUF_1, 32 | 1 << 32).unwrap();
    g.write_reg(reg::XYOFFSET_1, 0).unwrap();
    let frame = |g: &mut G, fbp: u64| g.write_reg(reg::FRAME_1, fbp | 2 << 16).unwrap();
    // Render to texture: a white triangle with a diagonal edge on grey, at page 64.
    frame(g, 64);
    g.write_reg(reg::PRIM, 6).unwrap();
    g.write_reg(reg::RGBAQ, 0x8040_4040 | Q1).unwrap();
    g.write_reg(reg::XYZ2, 0).unwrap();
    g.write_reg(reg::XYZ2, xyz(64 * 16, 64 * 16)).unwrap();
    g.write_reg(reg::PRIM, 3).unwrap();
    g.write_reg(reg::RGBAQ, 0x80ff_ffff | Q1).unwrap();
    g.write_reg(reg::XYZ2, xyz(4 * 16, 4 * 16)).unwrap();
    g.write_reg(reg::XYZ2, xyz(60 * 16, 12 * 16)).unwrap();
    g.write_reg(reg::XYZ2, xyz(20 * 16 + 8, 60 * 16)).unwrap();
    // The frame: dark blue, then the same triangle shape in red (the diagonal edges).
    frame(g, 0);
    g.write_reg(reg::PRIM, 6).unwrap();
    g.write_reg(reg::RGBAQ, 0x8060_0000 | Q1).unwrap();
    g.write_reg(reg::XYZ2, 0).unwrap();
    g.write_reg(reg::XYZ2, xyz(128 * 16, 128 * 16)).unwrap();
    g.write_reg(reg::PRIM, 3).unwrap();
    g.write_reg(reg::RGBAQ, 0x8000_00ff | Q1).unwrap();
    g.write_reg(reg::XYZ2, xyz(4 * 16, 4 * 16)).unwrap();
    g.write_reg(reg::XYZ2, xyz(60 * 16, 12 * 16)).unwrap();
    g.write_reg(reg::XYZ2, xyz(20 * 16 + 8, 60 * 16)).unwrap();
    // "Text": an 8x8 glyph (a checker of yellow and clear) uploaded and drawn 1:1 at (8, 100)
    // with UV at texel centres + 0.5 (the 2D convention that shifts under naive upscaling), in
    // the lower left quarter, which nothing later covers.
    g.write_reg(reg::BITBLTBUF, 0x1000u64 << 32 | 1 << 48)
        .unwrap();
    g.write_reg(reg::TRXPOS, 0).unwrap();
    g.write_reg(reg::TRXREG, 8 | 8 << 32).unwrap();
    g.write_reg(reg::TRXDIR, 0).unwrap();
    let glyph: Vec<u8> = (0..64u32)
        .flat_map(|i| {
            if (i % 8 + i / 8) % 2 == 0 {
                [255, 255, 0, 0x80]
            } else {
                [0, 0, 0, 0]
            }
        })
        .collect();
    let q: Vec<u128> = glyph
        .chunks(16)
        .map(|c| u128::from_le_bytes(c.try_into().unwrap()))
        .collect();
    g.write_image(&q);
    let tex = |g: &mut G, tbp: u64, tbw: u64, log2: u64| {
        g.write_reg(
            reg::TEX0_1,
            tbp | tbw << 14 | log2 << 26 | log2 << 30 | 1 << 34 | 1 << 35,
        )
        .unwrap();
    };
    let copy = |g: &mut G, uv0: (u32, u32), uv1: (u32, u32), p0: (u32, u32), p1: (u32, u32)| {
        g.write_reg(reg::PRIM, 6 | 1 << 4 | 1 << 8).unwrap();
        g.write_reg(reg::RGBAQ, 0x8080_8080 | Q1).unwrap();
        g.write_reg(reg::UV, uv0.0 as u64 | (uv0.1 as u64) << 16)
            .unwrap();
        g.write_reg(reg::XYZ2, xyz(p0.0 * 16, p0.1 * 16)).unwrap();
        g.write_reg(reg::UV, uv1.0 as u64 | (uv1.1 as u64) << 16)
            .unwrap();
        g.write_reg(reg::XYZ2, xyz(p1.0 * 16, p1.1 * 16)).unwrap();
    };
    tex(g, 0x1000, 1, 3);
    copy(g, (8, 8), (8 * 16 + 8, 8 * 16 + 8), (8, 100), (16, 108));
    // The render target sampled 1:1 into the frame's lower right quarter.
    tex(g, 64 * 32, 2, 6);
    copy(g, (0, 0), (64 * 16, 64 * 16), (64, 64), (128, 128));
    // A copy effect: the frame's left half (its own pixels so far) copied 1:1 into a buffer
    // at page 96 and back over the upper right (as a frame-buffer copy effect does).
    frame(g, 96);
    tex(g, 0, 2, 7);
    copy(g, (0, 0), (64 * 16, 64 * 16), (0, 0), (64, 64));
    frame(g, 0);
    tex(g, 96 * 32, 2, 6);
    copy(g, (0, 0), (64 * 16, 64 * 16), (64, 0), (128, 64));
}

fn render(scale: u32) -> (Vec<LocalMemory>, Vec<u8>) {
    let mut g = Gs::new(new_renderer(scale));
    draw_scene(&mut g);
    // A FIFO readback of the frame's first 16 rows.
    g.write_reg(reg::BITBLTBUF, 2 << 16).unwrap();
    g.write_reg(reg::TRXPOS, 0).unwrap();
    g.write_reg(reg::TRXREG, 128 | 16 << 32).unwrap();
    g.write_reg(reg::TRXDIR, 1).unwrap();
    let mut out = vec![0u128; 128 * 16 / 4];
    g.read_image(&mut out);
    let bytes = out.iter().flat_map(|q| q.to_le_bytes()).collect();
    // Plane 0 is local memory as the guest sees it; the others follow it.
    let r = g.renderer_mut();
    let mut planes = vec![*r.read_memory()];
    planes.extend(r.read_sample_planes());
    (planes, bytes)
}

/// The fine samples of pixel (x, y): plane j * n + i holds sample (i, j).
fn samples(planes: &[LocalMemory], x: u32, y: u32, fbp: u32) -> Vec<u32> {
    planes
        .iter()
        .map(|m| m.read_pixel(Psm::Ct32, x, y, fbp * 32, 2))
        .collect()
}

#[test]
fn scaled_scene_keeps_native_memory_and_2d_and_refines_edges() {
    let (native, native_read) = render(1);
    // The scene drew: the glyph's first texel (yellow) and the triangle's red.
    assert_eq!(native[0].read_pixel(Psm::Ct32, 8, 100, 0, 2), 0x8000_ffff);
    assert_eq!(native[0].read_pixel(Psm::Ct32, 20, 20, 0, 2), 0x8000_00ff);
    for scale in [2u32, 3, 4, 8] {
        let (planes, read) = render(scale);
        assert_eq!(planes.len(), (scale * scale) as usize);
        // Local memory as the guest sees it, and the FIFO readback, are the 1x ones.
        assert!(
            planes[0] == native[0],
            "scale {scale}: plane 0 differs from 1x"
        );
        assert_eq!(read, native_read, "scale {scale}: readback differs from 1x");
        // Finer edges: along the diagonal edge some pixels are partly covered (their samples
        // differ), which 1x cannot show.
        let mixed = (0..64)
            .flat_map(|y| (0..64).map(move |x| (x, y)))
            .filter(|&(x, y)| {
                let s = samples(&planes, x, y, 0);
                s.iter().any(|&v| v != s[0])
            })
            .count();
        assert!(mixed > 40, "scale {scale}: {mixed} pixels on the edges");
        // The text: every sample of each glyph pixel is the 1x pixel (no shift, no seam).
        for y in 100..108 {
            for x in 8..16 {
                let want = native[0].read_pixel(Psm::Ct32, x, y, 0, 2);
                assert!(
                    samples(&planes, x, y, 0).iter().all(|&v| v == want),
                    "scale {scale}: glyph pixel ({x},{y})"
                );
            }
        }
        // Render-to-texture read 1:1: the lower right quarter holds the target's fine samples,
        // edges included; the copy effect moved the left half's fine samples to the upper
        // right unchanged.
        for y in 0..64 {
            for x in 0..64 {
                assert_eq!(
                    samples(&planes, x + 64, y + 64, 0),
                    samples(&planes, x, y, 64),
                    "scale {scale}: render target at ({x},{y})"
                );
                assert_eq!(
                    samples(&planes, x + 64, y, 0),
                    samples(&planes, x, y, 96),
                    "scale {scale}: copy at ({x},{y})"
                );
            }
        }
    }
}
