//! The presenter on a real wgpu device without a window (Mesa's lavapipe on a machine without
//! a GPU): known frames rendered offscreen and read back, checked pixel for pixel.
//!
//! Needs a wgpu adapter: on Debian `mesa-vulkan-drivers libvulkan1` (or `libegl1
//! libgl1-mesa-dri` for GL). Without one these tests fail, naming the packages.

use piney_frontend::layout::letterbox;
use piney_frontend::{Frame, Headless, reference};

fn headless() -> Headless {
    Headless::new().unwrap_or_else(|e| panic!("headless wgpu: {e}"))
}

/// A `w` x `h` pattern whose every pixel differs from its neighbours.
fn pattern(w: u32, h: u32) -> Frame {
    let mut px = Vec::new();
    for y in 0..h {
        for x in 0..w {
            px.extend_from_slice(&[
                (x * 4) as u8,
                (y * 5) as u8,
                ((x * 7 + y * 13) % 256) as u8,
                255,
            ]);
        }
    }
    Frame::new(w, h, px).unwrap()
}

fn at(img: &[u8], w: u32, x: u32, y: u32) -> [u8; 4] {
    let i = ((y * w + x) * 4) as usize;
    img[i..i + 4].try_into().unwrap()
}

fn first_difference(a: &[u8], b: &[u8], w: u32) -> Option<(u32, u32, [u8; 4], [u8; 4])> {
    (0..a.len() / 4).find_map(|i| {
        let (pa, pb) = (&a[i * 4..i * 4 + 4], &b[i * 4..i * 4 + 4]);
        (pa != pb).then(|| {
            (
                i as u32 % w,
                i as u32 / w,
                pa.try_into().unwrap(),
                pb.try_into().unwrap(),
            )
        })
    })
}

#[test]
fn a_known_frame_with_an_offset_reads_back_exactly() {
    let mut h = headless();
    // 64 x 48 into 100 x 60: the 4:3 box is 80 x 60 at x 10; offset 3 pixels right and 2
    // rows down.
    let frame = pattern(64, 48).with_offset(3, 2);
    let img = h.render(&frame, 100, 60).unwrap();
    assert_eq!(img.len(), 100 * 60 * 4);
    let black = [0, 0, 0, 255];
    // The bars.
    for y in [0, 30, 59] {
        assert_eq!(at(&img, 100, 9, y), black, "left bar, row {y}");
        assert_eq!(at(&img, 100, 90, y), black, "right bar, row {y}");
    }
    // Where the picture left: the first 3 texel columns (x < 3.75 target pixels) and
    // 2 texel rows (y < 2.5 target rows).
    assert_eq!(at(&img, 100, 10, 20), black);
    assert_eq!(at(&img, 100, 13, 20), black); // 3 * 64 / 80 = 2 < 3
    assert_eq!(at(&img, 100, 40, 2), black); // 2 * 48 / 60 = 1 < 2
    // Target (10 + 5, 5): texel (5 * 64/80, 5 * 48/60) = (4, 4), minus (3, 2) = (1, 2).
    let p = frame.get(1, 2);
    assert_eq!(at(&img, 100, 15, 5), [p[0], p[1], p[2], 255]);
    // The bottom-right of the box: texel (63, 47) - (3, 2) = (60, 45).
    let p = frame.get(60, 45);
    assert_eq!(at(&img, 100, 89, 59), [p[0], p[1], p[2], 255]);
    // And every pixel as the CPU reference computes it.
    let want = reference::present(&frame, 100, 60);
    assert_eq!(first_difference(&img, &want, 100), None);
}

#[test]
fn the_native_picture_at_4_3_and_other_window_sizes_match_the_reference() {
    let mut h = headless();
    let mut frame = pattern(512, 448).with_offset(-9, -16);
    for (w, hgt) in [
        (597, 448),
        (640, 480),
        (1280, 720),
        (333, 999),
        (1, 1),
        (7, 5),
    ] {
        let img = h.render(&frame, w, hgt).unwrap();
        let want = reference::present(&frame, w, hgt);
        assert_eq!(
            first_difference(&img, &want, w),
            None,
            "{w}x{hgt}: box {:?}",
            letterbox(w, hgt)
        );
    }
    // At 597 x 448 a column x shows texel x * 512 / 597 moved 9 left and 16 up.
    let img = h.render(&frame, 597, 448).unwrap();
    let p = frame.get(300 * 512 / 597 + 9, 100 + 16);
    assert_eq!(at(&img, 597, 300, 100), [p[0], p[1], p[2], 255]);
    assert_eq!(at(&img, 597, 596, 447), [0, 0, 0, 255]);
    // Render scale 2: a 1024 x 896 frame moves twice as far.
    frame = pattern(1024, 896).with_offset(6, 3);
    frame.scale = 2;
    let img = h.render(&frame, 800, 600).unwrap();
    assert_eq!(
        first_difference(&img, &reference::present(&frame, 800, 600), 800),
        None
    );
}

#[test]
fn deflicker_and_frame_changes() {
    let mut h = headless();
    let mut frame = pattern(40, 30);
    frame.deflicker = Some(127);
    let img = h.render(&frame, 40, 30).unwrap();
    assert_eq!(
        first_difference(&img, &reference::present(&frame, 40, 30), 40),
        None
    );
    // Row 1 mixes 127/255 of row 0 into itself.
    let (up, own) = (frame.get(5, 0), frame.get(5, 1));
    let mix = |a: u8, b: u8| ((a as u32 * 127 + b as u32 * 128 + 127) / 255) as u8;
    assert_eq!(
        at(&img, 40, 5, 1),
        [
            mix(up[0], own[0]),
            mix(up[1], own[1]),
            mix(up[2], own[2]),
            255
        ]
    );
    // A new frame of another size replaces the texture; alpha is ignored (always opaque).
    let mut px = vec![200u8; 3 * 2 * 4];
    px[3] = 0;
    let small = Frame::new(3, 2, px).unwrap();
    let img = h.render(&small, 4, 3).unwrap();
    assert!(img.chunks(4).all(|p| p == [200, 200, 200, 255]), "{img:?}");
    // Bad targets are errors, not panics.
    assert!(h.render(&small, 0, 10).is_err());
    assert!(h.render(&small, 100_000, 10).is_err());
}

/// The on-screen display is blended over the window's corner by the presenter: white letters,
/// a box at 160/255 black over the picture, the picture untouched elsewhere; and gone again,
/// the output is the reference's exactly (it is never drawn into the frame).
#[test]
fn the_on_screen_display_is_blended_over_the_corner() {
    let mut h = headless();
    let frame = pattern(64, 48);
    let (w, ht) = (200, 150);
    let mut osd = piney_frontend::osd::Osd::default();
    osd.message("I", 0);
    let overlay = osd.render().unwrap();
    h.set_overlay(Some(&overlay));
    let img = h.render(&frame, w, ht).unwrap();
    let want = reference::present(&frame, w, ht);
    // At scale 1 the overlay sits 8 pixels in; its box is 14 x 14 (the letter 8 x 8, 3 around).
    assert_eq!(
        at(&img, w, 8 + 3 + 1, 8 + 3),
        [255, 255, 255, 255],
        "a letter pixel"
    );
    for (x, y) in [(8, 8), (20, 21), (9, 15)] {
        let (got, under) = (at(&img, w, x, y), at(&want, w, x, y));
        for c in 0..3 {
            let blended = f64::from(under[c]) * (1.0 - 160.0 / 255.0);
            assert!(
                (f64::from(got[c]) - blended).abs() <= 1.0,
                "({x}, {y}) channel {c}: {} over {} gave {}",
                160,
                under[c],
                got[c]
            );
        }
    }
    // Outside the box, the picture as the reference draws it.
    for (x, y) in [(7, 8), (22, 8), (8, 22), (100, 100)] {
        assert_eq!(at(&img, w, x, y), at(&want, w, x, y), "({x}, {y})");
    }
    h.set_overlay(None);
    let img = h.render(&frame, w, ht).unwrap();
    assert_eq!(first_difference(&img, &want, w), None);
}

/// Sharp bilinear and stretch on the GPU equal the CPU reference bit for bit, at fractional
/// and integer factors up and down, for a frame as it is (scaled straight from its texture), with the
/// display offset either way, and with the deflicker (both through the first pass); at an
/// integer factor sharp is nearest (no blur).
#[test]
fn sharp_bilinear_and_stretch_match_the_reference() {
    use piney_frontend::layout::{Filter, Scaling};
    let mut h = headless();
    let sharp = Scaling {
        filter: Filter::Sharp,
        stretch: false,
    };
    let mut frame = pattern(64, 48).with_offset(3, -2);
    frame.deflicker = Some(100);
    let frames = [
        pattern(64, 48),
        pattern(64, 48).with_offset(-5, 4),
        frame.clone(),
    ];
    for ((w, ht, scaling), frame) in [
        (200, 150, sharp),
        (1000, 700, sharp),
        (333, 111, sharp),
        // Smaller than the frame: sharp bilinear mixing down.
        (40, 30, sharp),
        (
            173,
            97,
            Scaling {
                filter: Filter::Sharp,
                stretch: true,
            },
        ),
        (
            173,
            97,
            Scaling {
                filter: Filter::Nearest,
                stretch: true,
            },
        ),
    ]
    .into_iter()
    .flat_map(|size| frames.iter().map(move |f| (size, f)))
    {
        h.set_scaling(scaling);
        let img = h.render(frame, w, ht).unwrap();
        let want = reference::present_with(frame, w, ht, scaling);
        assert_eq!(
            first_difference(&img, &want, w),
            None,
            "{w}x{ht} {scaling:?}, offset {:?}, deflicker {:?}",
            frame.offset_pixels(),
            frame.deflicker
        );
    }
    // 3x the frame (192 x 144, exactly 4:3 of 64 x 48): sharp is nearest.
    h.set_scaling(sharp);
    let img = h.render(&frame, 192, 144).unwrap();
    assert_eq!(
        first_difference(&img, &reference::present(&frame, 192, 144), 192),
        None
    );
}
