//! piney-gs's reference cases on the wgpu renderer, their files included as modules:
//! - the GS's pixel rules (tests/pixel_rules/cases.rs: every expected value derived by hand from
//!   the GS's rules) at scale 1;
//! - the render-scale rules (tests/scale_rules/cases.rs: a diagonal edge, text, a
//!   render-to-texture and a full-screen copy effect at 1x to 8x);
//! - the golden scenes (tests/golden/scenes.rs): at scale 1 each picture must be the software
//!   renderer's pixel for pixel and pass the same golden PNG; at scales 2, 4 and 8 each must be
//!   the software renderer's at that scale.
//!
//! On whatever adapter wgpu finds (Mesa's lavapipe in CI); with none, every case fails.

#[path = "../../piney-gs/tests/pixel_rules/cases.rs"]
mod pixel_rules;
#[path = "../../piney-gs/tests/scale_rules/cases.rs"]
mod scale_rules;
#[path = "../../piney-gs/tests/golden/scenes.rs"]
mod scenes;

use std::path::Path;

use piney_gs::{Image, SoftwareRenderer};
use piney_gs_wgpu::WgpuRenderer;
use scenes::{CASES, render, verdict};

type R = WgpuRenderer;

fn new_renderer(scale: u32) -> R {
    WgpuRenderer::with_scale(scale).unwrap_or_else(|e| {
        panic!("no wgpu adapter ({e}); install mesa-vulkan-drivers for lavapipe")
    })
}

/// The first pixel where `a` and `b` differ, described; `None` when they are equal.
fn difference(a: &Image, b: &Image) -> Option<String> {
    if (a.width, a.height) != (b.width, b.height) {
        return Some(format!(
            "{}x{} against {}x{}",
            a.width, a.height, b.width, b.height
        ));
    }
    let i = a
        .rgba
        .chunks(4)
        .zip(b.rgba.chunks(4))
        .position(|(p, q)| p != q)?;
    let (x, y) = (i as u32 % a.width, i as u32 / a.width);
    Some(format!(
        "pixel ({x}, {y}): {:?} against {:?}",
        a.get(x, y),
        b.get(x, y)
    ))
}

#[test]
fn golden_scenes_under_wgpu() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../piney-gs/tests/golden");
    let mut errors = Vec::new();
    for case in CASES {
        let packets = (case.build)();
        for scale in [1, 2, 4, 8] {
            let (sw, _) = render(SoftwareRenderer::with_scale(scale), &packets);
            let (got, wgpu) = render(new_renderer(scale), &packets);
            wgpu.check().unwrap();
            assert_eq!(got.width, 64 * scale, "{} at scale {scale}", case.name);
            if let Some(d) = difference(&sw, &got) {
                errors.push(format!(
                    "{} at scale {scale}: sw and wgpu differ: {d}",
                    case.name
                ));
            }
            if scale == 1 {
                let path = dir.join(format!("{}.png", case.name));
                let golden =
                    Image::read_png(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                if let Err(e) = verdict(case, &got, &golden) {
                    errors.push(format!("wgpu: {e}"));
                }
            }
        }
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}
