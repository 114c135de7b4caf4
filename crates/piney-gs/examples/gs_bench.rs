//! Rasteriser benchmark (not a test): pixels per second on textured, blended triangles and on
//! sprites, and frames per second replaying a busy 512 x 448 scene. Run with
//! `cargo run --release -p piney-gs --example gs_bench`.

use std::time::Instant;

use piney_gs::gif::{GifPath, gif_tag};
use piney_gs::gs::reg;
use piney_gs::{Gs, Pcrtc, SoftwareRenderer};

fn ad(r: u8, v: u64) -> u128 {
    v as u128 | ((r as u128) << 64)
}

/// Frame 512x448 PSMCT32 at page 0, Z at page 0x70, a 64x64 texture at BP 0x3000.
fn setup() -> Vec<u128> {
    let mut q = vec![gif_tag(9, false, None, 0, &[0xe])];
    q.push(ad(reg::FRAME_1, 8 << 16));
    q.push(ad(reg::ZBUF_1, 0x70 | 1 << 32));
    q.push(ad(reg::SCISSOR_1, 511 << 16 | (447u64 << 48)));
    q.push(ad(reg::TEST_1, 3 << 16));
    q.push(ad(reg::XYOFFSET_1, 0));
    q.push(ad(reg::ALPHA_1, 1 << 2 | 1 << 6)); // (Cs - Cd) * As + Cd
    q.push(ad(
        reg::TEX0_1,
        0x3000 | 1 << 14 | 6 << 26 | 6 << 30 | 1 << 34,
    ));
    q.push(ad(reg::TEX1_1, 1 << 5 | 1 << 6)); // bilinear
    q.push(ad(reg::BITBLTBUF, (0x3000u64 << 32) | (1u64 << 48)));
    let mut t = vec![gif_tag(3, false, None, 0, &[0xe])];
    t.push(ad(reg::TRXPOS, 0));
    t.push(ad(reg::TRXREG, 64 | 64 << 32));
    t.push(ad(reg::TRXDIR, 0));
    q.extend(t);
    q.push(gif_tag(64 * 64 / 4, false, None, 2, &[]));
    for i in 0..64 * 64 / 4u32 {
        let px = |k: u32| ((i * 4 + k).wrapping_mul(2654435761) | 0x8000_0000) as u128;
        q.push(px(0) | px(1) << 32 | px(2) << 64 | px(3) << 96);
    }
    q
}

/// `n` textured, Gouraud, blended triangles of about `size` pixels each, scattered.
fn triangles(n: u32, size: u32) -> Vec<u128> {
    let mut q = vec![gif_tag(
        n,
        false,
        Some(3 | 1 << 3 | 1 << 4 | 1 << 6 | 1 << 8),
        0,
        &[0x1, 0x3, 0x5, 0x1, 0x3, 0x5, 0x1, 0x3, 0x5],
    )];
    let side = ((size * 2) as f64).sqrt() as u32;
    for i in 0..n {
        let (x, y) = ((i * 37) % (512 - side), (i * 91) % (448 - side));
        for (k, (dx, dy)) in [(0, 0), (side, 0), (0, side)].iter().enumerate() {
            let c = 0x40 + k as u128 * 0x30;
            q.push(c | c << 32 | c << 64 | 0x60 << 96);
            q.push(
                ((dx * 16 * 64 / side.max(1)) as u128)
                    | (((dy * 16 * 64 / side.max(1)) as u128) << 32),
            );
            q.push((((x + dx) * 16) as u128) | ((((y + dy) * 16) as u128) << 32));
        }
    }
    q
}

fn sprites(n: u32, w: u32, h: u32) -> Vec<u128> {
    let mut q = vec![gif_tag(
        n,
        false,
        Some(6 | 1 << 4 | 1 << 8),
        0,
        &[0x1, 0x3, 0x5, 0x3, 0x5],
    )];
    for i in 0..n {
        let (x, y) = ((i * 37) % (512 - w), (i * 91) % (448 - h));
        q.push(0x80 | 0x80 << 32 | 0x80 << 64 | 0x80 << 96);
        q.push(0);
        q.push(((x * 16) as u128) | (((y * 16) as u128) << 32));
        q.push((64 * 16) | ((64u128 * 16) << 32));
        q.push((((x + w) * 16) as u128) | ((((y + h) * 16) as u128) << 32));
    }
    q
}

/// Mpixels/s of `packets` drawn `reps` times by `renderer`.
fn rate(renderer: SoftwareRenderer, packets: &[u128], pixels: f64, reps: u32) -> f64 {
    let mut gs = Gs::new(renderer);
    let mut path = GifPath::new();
    path.feed(&mut gs, &setup()).expect("setup");
    // One untimed pass: tables and decoded textures are made once in a real run too.
    path.feed(&mut gs, packets).expect("draw");
    gs.renderer_mut().mem();
    let t = Instant::now();
    for _ in 0..reps {
        path.feed(&mut gs, packets).expect("draw");
    }
    // Every draw done (the workers' last batch drawn).
    gs.renderer_mut().mem();
    pixels * reps as f64 / t.elapsed().as_secs_f64() / 1e6
}

/// One scene through the general path (the reference, as the renderer drew everything before
/// its specialised paths) and through the specialised paths, in this run.
fn run(name: &str, packets: &[u128], pixels: f64, reps: u32) {
    let general = rate(SoftwareRenderer::general_only(1), packets, pixels, reps);
    let fast = rate(SoftwareRenderer::new(), packets, pixels, reps * 4);
    let two = rate(
        SoftwareRenderer::new().with_threads(2),
        packets,
        pixels,
        reps * 4,
    );
    println!(
        "{name}: {fast:.1} Mpixels/s on one thread (general path {general:.1} Mpixels/s, \
         {:.1}x); 2 threads {two:.1} Mpixels/s ({:.2}x one)",
        fast / general,
        two / fast
    );
}

/// Milliseconds a frame of the busy scene takes, read out through the PCRTC.
fn busy_frame(renderer: SoftwareRenderer, frame: &[u128], frames: u32) -> f64 {
    let mut gs = Gs::new(renderer);
    let mut path = GifPath::new();
    path.feed(&mut gs, &setup()).expect("setup");
    gs.write_priv(0x0000, 2).expect("PMODE");
    gs.write_priv(0x0090, 8 << 9).expect("DISPFB2");
    gs.write_priv(
        0x00a0,
        636 | 50 << 12 | 4 << 23 | 2559u64 << 32 | 447u64 << 44,
    )
    .expect("DISPLAY2");
    path.feed(&mut gs, frame).expect("frame");
    let t = Instant::now();
    for _ in 0..frames {
        path.feed(&mut gs, frame).expect("frame");
        let img = gs.display_image(Pcrtc::default());
        assert_eq!((img.width, img.height), (512, 448));
    }
    t.elapsed().as_secs_f64() / frames as f64 * 1e3
}

fn main() {
    piney_gs::swizzle::warm_up();
    run(
        "textured bilinear blended Gouraud triangles (~200 px)",
        &triangles(2000, 200),
        2000.0 * 200.0,
        3,
    );
    run(
        "textured sprites 32x32",
        &sprites(2000, 32, 32),
        2000.0 * 1024.0,
        3,
    );
    // A busy frame: a full-screen sprite, 3000 triangles of ~150 px (about 2.2 frames of
    // overdraw), read out through the PCRTC.
    let mut frame = sprites(1, 511, 447);
    frame.extend(triangles(3000, 150));
    let general = busy_frame(SoftwareRenderer::general_only(1), &frame, 5);
    let fast = busy_frame(SoftwareRenderer::new(), &frame, 20);
    let two = busy_frame(SoftwareRenderer::new().with_threads(2), &frame, 20);
    println!(
        "busy 512x448 frame: {fast:.1} ms a frame on one thread, {:.1} fps (general path \
         {general:.1} ms, {:.1}x; budget 16.7 ms at 60 fps); 2 threads {two:.1} ms",
        1e3 / fast,
        general / fast
    );
}
