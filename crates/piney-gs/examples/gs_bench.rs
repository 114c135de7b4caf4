//! Rasteriser benchmark (not a test): pixels per second for each state combination it covers,
//! through the software renderer's general path (the reference, as it drew everything before
//! its specialised paths), its specialised paths on one thread, and on two threads, in one run;
//! then the time of a busy 512 x 448 frame read out through the PCRTC. Run with
//! `cargo run --release -p piney-gs --example gs_bench [WORDS]`: with words, only the rows whose
//! name holds them all (and the busy frame only when asked for by "busy"), for a profiler.
//! `gs_bench --write-dump FILE [FRAMES]` writes the busy frame, FRAMES times (default 8), as a
//! GS dump instead, for `piney replay` and piney-gs-wgpu's replay_bench.

use std::time::Instant;

use piney_gs::gif::{GifPath, gif_tag};
use piney_gs::gs::reg;
use piney_gs::{Gs, Pcrtc, SoftwareRenderer};

fn ad(r: u8, v: u64) -> u128 {
    v as u128 | ((r as u128) << 64)
}

/// Register writes as one A+D packet.
fn regs(writes: &[(u8, u64)]) -> Vec<u128> {
    let mut q = vec![gif_tag(writes.len() as u32, false, None, 0, &[0xe])];
    q.extend(writes.iter().map(|&(r, v)| ad(r, v)));
    q
}

/// A 64 x 64 upload of `psm` at block `bp` (texel values from a hash).
fn upload(bp: u64, psm: u64, bits: u32) -> Vec<u128> {
    let mut q = regs(&[
        (reg::BITBLTBUF, (bp << 32) | (1 << 48) | (psm << 56)),
        (reg::TRXPOS, 0),
        (reg::TRXREG, 64 | 64 << 32),
        (reg::TRXDIR, 0),
    ]);
    let qwords = 64 * 64 * bits / 128;
    q.push(gif_tag(qwords, false, None, 2, &[]));
    for i in 0..qwords {
        let w = |k: u32| ((i * 4 + k).wrapping_mul(2654435761) | 0x8000_0000) as u128;
        q.push(w(0) | w(1) << 32 | w(2) << 64 | w(3) << 96);
    }
    q
}

/// Frame 512x448 PSMCT32 at page 0, Z (PSMZ32) at page 0x70, a 64x64 PSMCT32 texture at BP
/// 0x3000, a 64x64 PSMT8 texture at 0x3100 and its CLUT at 0x3200.
fn setup() -> Vec<u128> {
    let mut q = regs(&[
        (reg::FRAME_1, 8 << 16),
        (reg::SCISSOR_1, 511 << 16 | (447u64 << 48)),
        (reg::XYOFFSET_1, 0),
        (reg::ALPHA_1, 1 << 2 | 1 << 6), // (Cs - Cd) * As + Cd
    ]);
    q.extend(upload(0x3000, 0, 32));
    q.extend(upload(0x3100, 0x13, 8));
    q.extend(upload(0x3200, 0, 32));
    q
}

/// A state combination: its registers (Z buffer, test, texture, filter).
struct State {
    name: &'static str,
    zbuf: u64,
    test: u64,
    tex0: u64,
    tex1: u64,
}

const Z_OFF: u64 = 0x70 | 1 << 32; // ZMSK: Z not written
const Z_WRITE: u64 = 0x70;
const T_ALWAYS: u64 = 1 << 16 | 1 << 17; // ZTE, ZTST ALWAYS
const T_GEQUAL: u64 = 1 << 16 | 2 << 17;
const TEX32: u64 = 0x3000 | 1 << 14 | 6 << 26 | 6 << 30 | 1 << 34;
// PSMT8, TBW 2, CLUT PSMCT32 at 0x3200, loaded at once.
const TEX8: u64 =
    0x3100 | 2 << 14 | 0x13 << 20 | 6 << 26 | 6 << 30 | 1 << 34 | 0x3200 << 37 | 1 << 61;
const BILINEAR: u64 = 1 << 5 | 1 << 6;

impl State {
    fn packet(&self) -> Vec<u128> {
        regs(&[
            (reg::ZBUF_1, self.zbuf),
            (reg::TEST_1, self.test),
            (reg::TEX0_1, self.tex0),
            (reg::TEX1_1, self.tex1),
        ])
    }
}

/// `n` triangles of about `size` pixels each, scattered: PRIM `prim` (its TME/FST decide
/// whether UV, ST or nothing goes with the vertices).
fn triangles(n: u32, size: u32, prim: u64) -> Vec<u128> {
    let (tme, fst) = (prim & 1 << 4 != 0, prim & 1 << 8 != 0);
    let regs: &[u8] = match (tme, fst) {
        (true, true) => &[0x1, 0x3, 0x5, 0x1, 0x3, 0x5, 0x1, 0x3, 0x5],
        (true, false) => &[0x2, 0x1, 0x5, 0x2, 0x1, 0x5, 0x2, 0x1, 0x5],
        _ => &[0x1, 0x5, 0x1, 0x5, 0x1, 0x5],
    };
    let mut q = vec![gif_tag(n, false, Some(prim), 0, regs)];
    let side = ((size * 2) as f64).sqrt() as u32;
    for i in 0..n {
        let (x, y) = ((i * 37) % (512 - side), (i * 91) % (448 - side));
        for (k, (dx, dy)) in [(0, 0), (side, 0), (0, side)].iter().enumerate() {
            let c = 0x40 + k as u128 * 0x30;
            let rgbaq = c | c << 32 | c << 64 | 0x60 << 96;
            let z = 0x1000 + (i as u128 % 64) * 0x100;
            let xyz = (((x + dx) * 16) as u128) | ((((y + dy) * 16) as u128) << 32) | z << 64;
            if tme && !fst {
                // ST with Q = 1 + k / 4 (word 2 of the ST qword).
                let q_ = 1.0f32 + k as f32 / 4.0;
                let s = *dx as f32 / side.max(1) as f32 * q_;
                let t = *dy as f32 / side.max(1) as f32 * q_;
                q.push(
                    s.to_bits() as u128
                        | (t.to_bits() as u128) << 32
                        | (q_.to_bits() as u128) << 64,
                );
                q.push(rgbaq);
            } else {
                q.push(rgbaq);
                if tme {
                    q.push(
                        ((dx * 16 * 64 / side.max(1)) as u128)
                            | (((dy * 16 * 64 / side.max(1)) as u128) << 32),
                    );
                }
            }
            q.push(xyz);
        }
    }
    q
}

/// `n` sprites of `w` x `h`, scattered; textured with UV over the 64 x 64 texture when `tme`.
fn sprites(n: u32, w: u32, h: u32, tme: bool) -> Vec<u128> {
    let prim = 6 | (tme as u64) << 4 | 1 << 8;
    let regs: &[u8] = if tme {
        &[0x1, 0x3, 0x5, 0x3, 0x5]
    } else {
        &[0x1, 0x5, 0x5]
    };
    let mut q = vec![gif_tag(n, false, Some(prim), 0, regs)];
    for i in 0..n {
        let (x, y) = ((i * 37) % (512 - w), (i * 91) % (448 - h));
        q.push(0x80 | 0x80 << 32 | 0x80 << 64 | 0x80 << 96);
        if tme {
            q.push(0);
        }
        q.push(((x * 16) as u128) | (((y * 16) as u128) << 32) | 0x2000 << 64);
        if tme {
            q.push((64 * 16) | ((64u128 * 16) << 32));
        }
        q.push((((x + w) * 16) as u128) | ((((y + h) * 16) as u128) << 32) | 0x2000 << 64);
    }
    q
}

/// Mpixels/s of `packets` (after `state`) drawn by `renderer`: the median of `reps` timed
/// passes, so that a pass slowed by something else on the machine does not move the figure.
fn rate(
    renderer: SoftwareRenderer,
    state: &[u128],
    packets: &[u128],
    pixels: f64,
    reps: u32,
) -> f64 {
    let mut gs = Gs::new(renderer);
    let mut path = GifPath::new();
    path.feed(&mut gs, &setup()).expect("setup");
    path.feed(&mut gs, state).expect("state");
    // One untimed pass: tables and decoded textures are made once in a real run too.
    path.feed(&mut gs, packets).expect("draw");
    gs.renderer_mut().mem();
    let mut passes: Vec<f64> = (0..reps)
        .map(|_| {
            let t = Instant::now();
            path.feed(&mut gs, packets).expect("draw");
            // Every draw done (the workers' last batch drawn).
            gs.renderer_mut().mem();
            t.elapsed().as_secs_f64()
        })
        .collect();
    passes.sort_by(f64::total_cmp);
    pixels / passes[passes.len() / 2] / 1e6
}

/// True when the command line's words (if any) all occur in `name`.
fn wanted(name: &str) -> bool {
    std::env::args().skip(1).all(|w| name.contains(&w))
}

/// One scene through the general path, the specialised paths and two threads.
fn run(name: &str, state: &State, packets: &[u128], pixels: f64, reps: u32) {
    let name = format!("{name}, {}", state.name);
    if !wanted(&name) {
        return;
    }
    let st = state.packet();
    let general = rate(
        SoftwareRenderer::general_only(1),
        &st,
        packets,
        pixels,
        reps,
    );
    let fast = rate(SoftwareRenderer::new(), &st, packets, pixels, reps * 4);
    let two = rate(
        SoftwareRenderer::new().with_threads(2),
        &st,
        packets,
        pixels,
        reps * 4,
    );
    println!(
        "{name:<58} {general:>7.1} {fast:>7.1} {:>5.1}x {two:>7.1} {:>5.2}x",
        fast / general,
        two / fast
    );
}

/// The busy frame's draws: a full-screen sprite, 3000 bilinear blended triangles of ~150 px
/// (about 2.2 frames of overdraw).
fn busy_scene() -> Vec<u128> {
    let mut frame = sprites(1, 511, 447, true);
    let (iip, tme, abe, fst) = (1u64 << 3, 1u64 << 4, 1u64 << 6, 1u64 << 8);
    frame.extend(triangles(3000, 150, 3 | iip | tme | abe | fst));
    frame
}

/// What the busy frame's draws need first: [`setup`] and the bilinear state.
fn busy_setup() -> Vec<u128> {
    let bilinear = State {
        name: "",
        zbuf: Z_OFF,
        test: T_ALWAYS,
        tex0: TEX32,
        tex1: BILINEAR,
    };
    let mut q = setup();
    q.extend(bilinear.packet());
    q
}

/// The privileged registers that show the 512 x 448 frame: PMODE (circuit 2 on), DISPFB2
/// (page 0, 512 wide, PSMCT32), DISPLAY2 (DX 636, DY 50, MAGH 4: 2560 / 5 = 512 pixels, 448
/// rows).
const DISPLAY: [(u32, u64); 3] = [
    (0x0000, 2),
    (0x0090, 8 << 9),
    (
        0x00a0,
        636 | 50 << 12 | 4 << 23 | 2559u64 << 32 | 447u64 << 44,
    ),
];

/// Milliseconds a frame of the busy scene takes, read out through the PCRTC (the median of
/// `frames` frames).
fn busy_frame(renderer: SoftwareRenderer, frame: &[u128], frames: u32) -> f64 {
    let mut gs = Gs::new(renderer);
    let mut path = GifPath::new();
    path.feed(&mut gs, &busy_setup()).expect("setup");
    for (r, v) in DISPLAY {
        gs.write_priv(r, v).expect("display register");
    }
    path.feed(&mut gs, frame).expect("frame");
    let mut times: Vec<f64> = (0..frames)
        .map(|_| {
            let t = Instant::now();
            path.feed(&mut gs, frame).expect("frame");
            let img = gs.display_image(Pcrtc::default());
            assert_eq!((img.width, img.height), (512, 448));
            t.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2] * 1e3
}

/// Writes the busy frame, `frames` times, as a GS dump (memory zero and the registers as after
/// a reset at its start, the display registers in its register block).
fn write_dump(path: &str, frames: u32) {
    use piney_gs::dump::{GsDump, Packet, SavedState};
    let bytes = |q: Vec<u128>| q.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>();
    let mut regs = vec![0u8; piney_gs::dump::PRIV_BLOCK];
    for (r, v) in DISPLAY {
        regs[r as usize..r as usize + 8].copy_from_slice(&v.to_le_bytes());
    }
    let scene = bytes(busy_scene());
    let mut packets = vec![Packet::Transfer {
        path: 3,
        data: bytes(busy_setup()),
    }];
    for _ in 0..frames {
        packets.push(Packet::Transfer {
            path: 3,
            data: scene.clone(),
        });
        packets.push(Packet::VSync(0));
    }
    let dump = GsDump {
        crc: 0,
        header: None,
        // PRMODECONT 1 (as after a reset): the attributes come with PRIM.
        state: SavedState::build_v8(&[(reg::PRMODECONT, 1)], &piney_gs::LocalMemory::new()),
        regs,
        packets,
        dropped_tail: None,
    };
    if let Err(e) = std::fs::write(path, dump.to_bytes()) {
        eprintln!("{path}: {e}");
        std::process::exit(1);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).is_some_and(|a| a == "--write-dump") {
        let Some(path) = args.get(2) else {
            eprintln!("usage: gs_bench --write-dump FILE [FRAMES]");
            std::process::exit(2);
        };
        write_dump(path, args.get(3).and_then(|f| f.parse().ok()).unwrap_or(8));
        return;
    }
    piney_gs::swizzle::warm_up();
    let bilinear = State {
        name: "bilinear",
        zbuf: Z_OFF,
        test: T_ALWAYS,
        tex0: TEX32,
        tex1: BILINEAR,
    };
    let nearest = State {
        name: "nearest",
        tex1: 0,
        ..bilinear
    };
    let clut8 = State {
        name: "8-bit CLUT nearest",
        tex0: TEX8,
        tex1: 0,
        ..bilinear
    };
    let ztest = State {
        name: "Z test and write",
        zbuf: Z_WRITE,
        test: T_GEQUAL,
        tex0: TEX32,
        tex1: 0,
    };
    let zwrite = State {
        name: "Z write",
        zbuf: Z_WRITE,
        test: T_ALWAYS,
        tex0: TEX32,
        tex1: 0,
    };
    let (iip, tme, abe, fst) = (1u64 << 3, 1u64 << 4, 1u64 << 6, 1u64 << 8);
    println!(
        "{:<58} {:>7} {:>7} {:>6} {:>7} {:>6}",
        "Mpixels/s", "general", "1 thr", "", "2 thr", ""
    );
    let tri = |prim| (triangles(2000, 200, prim), 2000.0 * 200.0);
    let (t, px) = tri(3 | iip | tme | abe | fst);
    run("Gouraud blended UV triangles ~200 px", &bilinear, &t, px, 3);
    let (t, px) = tri(3 | iip | tme | fst);
    run("Gouraud UV triangles ~200 px", &nearest, &t, px, 3);
    let (t, px) = tri(3 | iip | tme);
    run(
        "Gouraud STQ (perspective) triangles ~200 px",
        &nearest,
        &t,
        px,
        3,
    );
    let (t, px) = tri(3 | iip | tme | fst);
    run("Gouraud UV triangles ~200 px", &clut8, &t, px, 3);
    let (t, px) = tri(3 | iip);
    run("untextured Gouraud triangles ~200 px", &ztest, &t, px, 3);
    let (t, px) = tri(3 | iip | abe);
    run("untextured blended triangles ~200 px", &zwrite, &t, px, 3);
    let s = sprites(2000, 32, 32, true);
    run("UV sprites 32x32", &bilinear, &s, 2000.0 * 1024.0, 3);
    run("UV sprites 32x32", &nearest, &s, 2000.0 * 1024.0, 3);
    let s = sprites(500, 64, 64, false);
    run(
        "untextured sprites 64x64 (clears)",
        &zwrite,
        &s,
        500.0 * 4096.0,
        3,
    );
    if !wanted("busy 512x448 frame") {
        return;
    }
    // The busy frame, read out through the PCRTC.
    let frame = busy_scene();
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
