//! Frame time of a GS dump replayed through the software and the wgpu renderer at each render
//! scale, in one run (a benchmark, not a test):
//! `cargo run --release -p piney-gs-wgpu --example replay_bench -- DUMP.gs [FRAMES] [SCALES]`
//! with SCALES like `1,2,4,8` (default 1).

use std::time::Instant;

use piney_gs::dump::GsDump;
use piney_gs::{Pcrtc, Renderer};

fn run<R: Renderer>(dump: &GsDump, r: R, frames: u64) -> (f64, u64, R) {
    let t = Instant::now();
    let mut n = 0;
    let (gs, _) = piney_gs::dump::replay(dump, r, |gs, _| {
        let _ = gs.display_image(Pcrtc::default());
        n += 1;
        n < frames
    })
    .expect("replay");
    (
        t.elapsed().as_secs_f64() * 1000.0 / n.max(1) as f64,
        n,
        gs.into_renderer(),
    )
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
    for scale in scales {
        let (sw, n, _) = run(&dump, piney_gs::SoftwareRenderer::with_scale(scale), frames);
        let gpu = piney_gs_wgpu::WgpuRenderer::with_scale(scale).unwrap_or_else(|e| {
            eprintln!("{e}");
            std::process::exit(1);
        });
        let name = gpu.adapter().to_string();
        let (wg, _, gpu) = run(&dump, gpu, frames);
        println!(
            "scale {scale}: {n} frames: sw {sw:.1} ms/frame, wgpu ({name}) {wg:.1} ms/frame, wgpu/sw {:.2}; {:?} {:?}",
            wg / sw,
            gpu.stats(),
            gpu.check()
        );
    }
}
