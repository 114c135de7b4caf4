//! The wgpu renderer against the software reference: random GS scenes (every primitive, frame,
//! Z and texture format, CLUT, filter, mipmap, test, blend, fog, dither and mask setting the
//! registers allow) are recorded once through the GS state machine and replayed into both
//! renderers; local memory must be equal word for word, and so must every readback. Runs on
//! whatever adapter wgpu finds (Mesa's lavapipe in CI); with none, the test fails and says so,
//! because a skipped check proves nothing.

use piney_gs::scenes::{first_difference, replay, scene};
use piney_gs::{LocalMemory, Renderer};
use piney_gs_wgpu::WgpuRenderer;

fn gpu(scale: u32) -> WgpuRenderer {
    WgpuRenderer::with_scale(scale).unwrap_or_else(|e| {
        panic!("no wgpu adapter ({e}); install mesa-vulkan-drivers for lavapipe")
    })
}

/// Scene `seed` through the software renderer and `gpu` at the same scale: every sample plane
/// and every readback equal. Returns the software renderer's planes.
fn check(gpu: &mut WgpuRenderer, seed: u64, draws: usize, feedback: bool) -> Vec<LocalMemory> {
    let cmds = scene(seed, draws, feedback);
    let mut sw = piney_gs::SoftwareRenderer::with_scale(gpu.scale());
    let sw_reads = replay(&mut sw, &cmds);
    let gpu_reads = replay(gpu, &cmds);
    gpu.check().unwrap();
    assert_eq!(sw_reads, gpu_reads, "scene {seed}: readbacks differ");
    let sw_planes = sw.planes_mut().to_vec();
    if let Some(d) = first_difference(&sw_planes, &gpu.read_planes()) {
        panic!("scene {seed} at scale {}: {d}", gpu.scale());
    }
    sw_planes
}

#[test]
fn random_scenes_equal_the_software_renderer() {
    let mut gpu = gpu(1);
    eprintln!("adapter: {}", gpu.adapter());
    for seed in 0..40 {
        check(&mut gpu, seed, 60, false);
    }
    let s = gpu.stats();
    assert!(s.gpu_prims > 1000, "{s:?}");
}

#[test]
fn feedback_draws_equal_the_software_renderer() {
    let mut gpu = gpu(1);
    for seed in 100..110 {
        check(&mut gpu, seed, 40, true);
    }
    assert!(gpu.stats().cpu_draws > 0, "{:?}", gpu.stats());
}

/// At render scales 2, 3, 4 and 8 every sample plane equals the software reference's, and plane
/// 0 (local memory as the guest sees it) equals the 1x render: scaling never changes what the
/// guest reads back.
#[test]
fn scaled_scenes_equal_the_software_renderer_and_keep_native_memory() {
    for (scale, seeds) in [
        (2u32, 200..206u64),
        (3, 206..209),
        (4, 209..211),
        (8, 211..212),
    ] {
        let mut gpu = gpu(scale);
        for seed in seeds {
            let planes = check(&mut gpu, seed, 40, seed % 2 == 0);
            let mut native = piney_gs::SoftwareRenderer::new();
            replay(&mut native, &scene(seed, 40, seed % 2 == 0));
            assert!(
                planes[0] == *native.mem(),
                "scene {seed}: plane 0 at scale {scale} differs from the 1x render"
            );
            // The finer samples differ somewhere (the scene has triangle edges).
            assert!(planes.iter().any(|p| p != &planes[0]), "scene {seed}");
        }
    }
}
