//! Time of feedback draws (draws that sample what they draw, done on the CPU copy of local
//! memory between GPU batches) through the wgpu renderer at render scales 1, 2 and 4, in one
//! run (a benchmark, not a test): ten random scenes of 40 draws with feedback (crate
//! piney_gs::scenes, about half of their draws sampling their own frame), then every plane
//! read back.
//!
//! `cargo run --release -p piney-gs-wgpu --example feedback_bench`

use std::time::Instant;

fn main() {
    for scale in [1u32, 2, 4] {
        let mut gpu = piney_gs_wgpu::WgpuRenderer::with_scale(scale).unwrap_or_else(|e| {
            eprintln!("no wgpu adapter: {e}");
            std::process::exit(1);
        });
        let t = Instant::now();
        for seed in 100..110 {
            let cmds = piney_gs::scenes::scene(seed, 40, true);
            piney_gs::scenes::replay(&mut gpu, &cmds);
        }
        let _ = gpu.read_planes();
        let s = gpu.stats();
        println!(
            "scale {scale}: {:.0} ms ({} draws on the GPU, {} on the CPU, {} read-backs)",
            t.elapsed().as_secs_f64() * 1e3,
            s.gpu_prims,
            s.cpu_draws,
            s.downloads
        );
    }
}
