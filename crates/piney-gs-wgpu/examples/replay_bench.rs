//! Frame time of a GS dump replayed through the software and the wgpu renderer at each render
//! scale, in one run (a benchmark, not a test):
//! `cargo run --release -p piney-gs-wgpu --example replay_bench -- DUMP.gs [FRAMES] [SCALES]`
//! with SCALES like `1,2,4,8` (default 1); the first frame is replayed but not timed. For each
//! scale: the software renderer (its picture
//! made on the CPU), the wgpu renderer with each picture read back (what `--dump-frames` and
//! captures pay), and the wgpu renderer with the picture left on the GPU, waiting for the
//! device at every frame (what a window pays before its presenter: the GPU goal's figure); and
//! how many of the wgpu renderer's pictures equal the software renderer's (all of them, where
//! the renderer is exact on that adapter; otherwise it exits with 3 after every figure).

use std::time::Instant;

use piney_gs::dump::GsDump;
use piney_gs::{Gs, Pcrtc, Renderer};
use piney_gs_wgpu::WgpuRenderer;

/// Milliseconds a frame over the dump's first `frames` frames but the first (which holds the
/// state's load and a GPU driver's first use of its pipelines), the frames timed, and the
/// renderer.
fn run<R: Renderer>(
    dump: &GsDump,
    r: R,
    frames: u64,
    mut show: impl FnMut(&mut Gs<R>),
) -> (f64, u64, R) {
    let mut t = Instant::now();
    let mut n = 0;
    let (gs, _) = piney_gs::dump::replay(dump, r, |gs, _| {
        show(gs);
        if n == 0 {
            t = Instant::now();
        }
        n += 1;
        n < frames
    })
    .expect("replay");
    let timed = n.saturating_sub(1);
    (
        t.elapsed().as_secs_f64() * 1000.0 / timed.max(1) as f64,
        timed,
        gs.into_renderer(),
    )
}

/// Shows the frame, reads its picture back and keeps a hash of it in `seen`.
fn read_back<R: Renderer>(gs: &mut Gs<R>, seen: &mut Vec<u64>) {
    use std::hash::{Hash, Hasher};
    let image = gs.display_image(Pcrtc::default());
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (image.width, image.height, &image.rgba).hash(&mut h);
    seen.push(h.finish());
}

fn gpu(scale: u32) -> WgpuRenderer {
    WgpuRenderer::with_scale(scale).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1);
    })
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: replay_bench DUMP.gs [FRAMES] [SCALES]");
        std::process::exit(2);
    };
    let frames = args.get(2).and_then(|f| f.parse().ok()).unwrap_or(u64::MAX);
    let scales: Vec<u32> = args
        .get(3)
        .map(|s| s.split(',').filter_map(|v| v.parse().ok()).collect())
        .unwrap_or_else(|| vec![1]);
    let dump = GsDump::read(std::path::Path::new(path)).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(1);
    });
    let mut all_equal = true;
    for scale in scales {
        let (mut sw_seen, mut gpu_seen) = (Vec::new(), Vec::new());
        let (sw, n, _) = run(
            &dump,
            piney_gs::SoftwareRenderer::with_scale(scale),
            frames,
            |gs| read_back(gs, &mut sw_seen),
        );
        let first = gpu(scale);
        let name = first.adapter().to_string();
        let (read, _, first) = run(&dump, first, frames, |gs| read_back(gs, &mut gpu_seen));
        let same = sw_seen
            .iter()
            .zip(&gpu_seen)
            .filter(|(a, b)| a == b)
            .count();
        all_equal &= same == sw_seen.len() && gpu_seen.len() == sw_seen.len();
        let (kept, _, last) = run(&dump, gpu(scale), frames, |gs| {
            gs.display(Pcrtc::default());
            gs.renderer_mut().wait();
        });
        println!(
            "scale {scale}: {n} frames: sw {sw:.1} ms/frame; wgpu ({name}) {read:.1} ms/frame \
             read back, {kept:.1} ms/frame left on the GPU; wgpu/sw {:.2}; pictures equal to \
             sw's: {same} of {}; {:?}",
            kept / sw,
            sw_seen.len(),
            last.stats(),
        );
        // A device error means frames not drawn: no figure.
        if let Err(e) = first.check().and_then(|()| last.check()) {
            eprintln!("replay_bench: scale {scale}: the wgpu renderer failed: {e}");
            std::process::exit(1);
        }
    }
    // Every figure is printed first; then a difference from the reference fails the run.
    if !all_equal {
        eprintln!("replay_bench: the wgpu renderer's pictures differ from the software renderer's");
        std::process::exit(3);
    }
}
