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

/// A random display command: either circuit or both, every PMODE merge setting, the display
/// formats (and a code read as 32-bit), magnifications, buffer origins that wrap at 2048, field
/// and frame mode, and the frame-mode deflicker pair with and without `--deflicker`.
fn display_command(rng: &mut piney_gs::scenes::Rng) -> piney_gs::DisplayCommand {
    use piney_gs::regs::{BgColor, DispFb, Display, Pmode, Smode2};
    let mut fb = || {
        // Page 0 is the scenes' frame (drawn, different in every sample plane).
        let fbp = if rng.chance(2) { 0 } else { rng.below(512) };
        let psm = rng.pick(&[0u64, 1, 2, 0x0a, 0x13]);
        let (dbx, dby) = if rng.chance(4) {
            (rng.below(2048), rng.below(2048))
        } else {
            (rng.below(64), rng.below(64))
        };
        DispFb(fbp | (1 + rng.below(10)) << 9 | psm << 15 | dbx << 32 | dby << 43)
    };
    let (fb1, fb2) = (fb(), fb());
    let mut display = || {
        let magh = rng.below(5);
        let magv = rng.below(2);
        let w = 1 + rng.below(160);
        let h = 1 + rng.below(96);
        Display(
            rng.below(700)
                | rng.below(80) << 12
                | magh << 23
                | magv << 27
                | (w * (magh + 1) - 1) << 32
                | (h * (magv + 1) - 1) << 44,
        )
    };
    let (d1, d2) = (display(), display());
    let mut cmd = piney_gs::DisplayCommand {
        pmode: Pmode(rng.below(4) | rng.below(2) << 5 | rng.below(2) << 7 | rng.below(256) << 8),
        smode1: rng.pick(&[0u64, 2 << 13, 3 << 13]),
        smode2: Smode2(rng.below(4)),
        dispfb: [fb1, fb2],
        display: [d1, d2],
        bgcolor: BgColor(rng.next_u64() & 0xff_ffff),
        deflicker: rng.chance(2),
    };
    if rng.chance(5) {
        // The engine's deflicker pair: the same buffer, circuit 1 one line lower, ALP 127.
        cmd.pmode = Pmode(3 | 1 << 5 | 127 << 8);
        cmd.dispfb[0] = cmd.dispfb[1];
        cmd.display[0] = Display(cmd.display[1].0 + (1 << 12));
    }
    cmd
}

/// The PCRTC on the GPU makes the software renderer's picture, pixel for pixel, at scales 1, 2
/// and 3 (odd scales place samples differently), over a scene's sample planes and random memory;
/// the picture never needs local memory copied back.
#[test]
fn gpu_pcrtc_pictures_equal_the_software_renderers() {
    for (scale, seed) in [(1u32, 300u64), (2, 301), (3, 302)] {
        let mut rng = piney_gs::scenes::Rng((seed * 0x9e37_79b9) | 1);
        let mut mem = LocalMemory::new();
        for w in mem.words_mut() {
            *w = rng.next_u64() as u32;
        }
        let mut sw = piney_gs::SoftwareRenderer::with_scale(scale);
        let mut gpu = gpu(scale);
        let cmds = scene(seed, 30, false);
        for r in [&mut sw as &mut dyn Renderer, &mut gpu] {
            r.memory(piney_gs::MemCommand::SetMemory(Box::new(mem.clone())));
            replay(r, &cmds);
        }
        let downloads = gpu.stats().downloads;
        let mut shown = 0;
        for k in 0..40 {
            let cmd = display_command(&mut rng);
            sw.display(&cmd);
            gpu.display(&cmd);
            let (a, b) = (sw.display_image(), gpu.display_image());
            gpu.check().unwrap();
            assert_eq!(
                (a.width, a.height),
                (b.width, b.height),
                "scale {scale}, command {k}: {cmd:?}"
            );
            if let Some(i) =
                (0..a.rgba.len() / 4).find(|&i| a.rgba[i * 4..][..4] != b.rgba[i * 4..][..4])
            {
                let (x, y) = (i as u32 % a.width, i as u32 / a.width);
                panic!(
                    "scale {scale}, command {k}: pixel ({x}, {y}) is {:?} on the GPU, {:?} in the reference; {cmd:?}",
                    b.get(x, y),
                    a.get(x, y)
                );
            }
            shown += u32::from(a.width > 0);
        }
        assert!(shown >= 20, "scale {scale}: only {shown} pictures");
        let s = gpu.stats();
        assert_eq!(
            s.downloads, downloads,
            "a picture copied local memory back: {s:?}"
        );
        assert_eq!(s.gpu_pictures, shown as u64, "{s:?}");
    }
}

/// A display with the same registers and no command since shows the same picture: no PCRTC
/// pass, the same [`piney_gs_wgpu::GpuPicture::serial`] (a window need not present it again);
/// a draw or other registers make a new one.
#[test]
fn an_unchanged_picture_keeps_its_number() {
    use piney_gs_wgpu::GpuPicture;
    let mut gpu = gpu(1);
    let mut rng = piney_gs::scenes::Rng(7);
    let cmds = scene(400, 10, false);
    replay(&mut gpu, &cmds);
    let cmd = loop {
        let c = display_command(&mut rng);
        if c.pmode.0 & 3 != 0 && c.pmode.0 & 1 << 7 == 0 {
            break c;
        }
    };
    let serial = |gpu: &mut WgpuRenderer| {
        let h = gpu.display_gpu().expect("a picture on the GPU");
        h.downcast_ref::<GpuPicture>().expect("a GpuPicture").serial
    };
    gpu.display(&cmd);
    let first = serial(&mut gpu);
    let made = gpu.stats().gpu_pictures;
    gpu.display(&cmd);
    assert_eq!(serial(&mut gpu), first);
    assert_eq!(
        gpu.stats().gpu_pictures,
        made,
        "the unchanged picture was made again"
    );
    replay(&mut gpu, &scene(401, 2, false));
    gpu.display(&cmd);
    assert_ne!(serial(&mut gpu), first, "a draw since: a new picture");
    let other = piney_gs::DisplayCommand {
        bgcolor: piney_gs::regs::BgColor(cmd.bgcolor.0 ^ 0xff),
        ..cmd
    };
    let second = serial(&mut gpu);
    gpu.display(&other);
    assert_ne!(serial(&mut gpu), second, "other registers: a new picture");
}
