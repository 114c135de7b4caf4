//! The wgpu renderer against the software reference: random GS scenes (every primitive, frame,
//! Z and texture format, CLUT, filter, mipmap, test, blend, fog, dither and mask setting the
//! registers allow) are recorded once through the GS state machine and replayed into both
//! renderers; local memory must be equal word for word, and so must every readback. Runs on
//! whatever adapter wgpu finds (Mesa's lavapipe in CI); with none, the test fails and says so,
//! because a skipped check proves nothing.

use piney_gs::gs::reg;
use piney_gs::mem::TransferRect;
use piney_gs::{DisplayCommand, DrawCommand, Gs, Image, LocalMemory, MemCommand, Psm, Renderer};
use piney_gs_wgpu::WgpuRenderer;

/// One renderer call.
#[derive(Debug, Clone)]
enum Cmd {
    Draw(Box<DrawCommand>),
    Mem(MemCommand),
    ReadBack(TransferRect, u64, u64),
}

/// Records the commands the state machine sends.
#[derive(Default)]
struct Recorder(Vec<Cmd>);

impl Renderer for Recorder {
    fn draw(&mut self, cmd: &DrawCommand) {
        self.0.push(Cmd::Draw(Box::new(*cmd)));
    }
    fn memory(&mut self, cmd: MemCommand) {
        self.0.push(Cmd::Mem(cmd));
    }
    fn read_back(&mut self, rect: &TransferRect, start: u64, count: u64) -> Vec<u8> {
        self.0.push(Cmd::ReadBack(*rect, start, count));
        Vec::new()
    }
    fn read_memory(&mut self) -> Box<LocalMemory> {
        Box::new(LocalMemory::new())
    }
    fn display(&mut self, _: &DisplayCommand) {}
    fn display_image(&mut self) -> Image {
        Image::new(0, 0, [0; 4])
    }
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn chance(&mut self, one_in: u64) -> bool {
        self.below(one_in) == 0
    }
    fn pick<T: Copy>(&mut self, v: &[T]) -> T {
        v[self.below(v.len() as u64) as usize]
    }
}

/// Texture formats and where their 64 x 64 images live (block numbers, past the frame and Z).
const TEXTURES: [(Psm, u32); 6] = [
    (Psm::Ct32, 0x1000),
    (Psm::Ct16, 0x1100),
    (Psm::T8, 0x1200),
    (Psm::T4, 0x1300),
    (Psm::Ct24, 0x1400),
    (Psm::T8h, 0x1500),
];
/// CLUT source (block).
const CLUT_BP: u32 = 0x1800;

fn upload(g: &mut Gs<Recorder>, rng: &mut Rng, psm: Psm, bp: u32, bw: u32, w: u32, h: u32) {
    g.write_reg(
        reg::BITBLTBUF,
        (bp as u64) << 32 | (bw as u64) << 48 | (psm.code() as u64) << 56,
    )
    .unwrap();
    g.write_reg(reg::TRXPOS, 0).unwrap();
    g.write_reg(reg::TRXREG, w as u64 | (h as u64) << 32)
        .unwrap();
    g.write_reg(reg::TRXDIR, 0).unwrap();
    let qwords = (w * h * psm.transfer_bits()).div_ceil(128);
    let data: Vec<u128> = (0..qwords)
        .map(|_| rng.next() as u128 | (rng.next() as u128) << 64)
        .collect();
    g.write_image(&data);
}

fn float(rng: &mut Rng, lo: f32, hi: f32) -> u64 {
    let t = rng.below(1 << 20) as f32 / (1 << 20) as f32;
    (lo + (hi - lo) * t).to_bits() as u64
}

/// A random scene's commands.
fn scene(seed: u64, draws: usize, feedback: bool) -> Vec<Cmd> {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut g = Gs::new(Recorder::default());
    // Background and Z: the frame at page 0 (128 x 128), Z at page 16.
    upload(&mut g, &mut rng, Psm::Ct32, 0, 2, 128, 128);
    upload(&mut g, &mut rng, Psm::Z32, 16 * 32, 2, 128, 128);
    for (psm, bp) in TEXTURES {
        upload(&mut g, &mut rng, psm, bp, 1, 64, 64);
    }
    upload(&mut g, &mut rng, Psm::Ct32, CLUT_BP, 1, 16, 16);
    upload(&mut g, &mut rng, Psm::Ct16, CLUT_BP + 0x40, 1, 16, 16);
    for i in 0..draws {
        let frame_psm = rng.pick(&[0u64, 0, 0, 1, 2, 0xa, 0x1b, 0x24, 0x2c, 0x30, 0x32]);
        let fbmsk = if rng.chance(6) {
            rng.next() & 0xffff_ffff
        } else {
            0
        };
        g.write_reg(reg::FRAME_1, 2 << 16 | frame_psm << 24 | fbmsk << 32)
            .unwrap();
        g.write_reg(
            reg::ZBUF_1,
            16 | rng.pick(&[0u64, 1, 2, 0xa]) << 24 | (rng.below(2)) << 32,
        )
        .unwrap();
        g.write_reg(reg::TEST_1, rng.next() & 0x7_ffff).unwrap();
        g.write_reg(reg::ALPHA_1, rng.next() & 0xff | (rng.next() & 0xff) << 32)
            .unwrap();
        let (tpsm, tbp) = if feedback && rng.chance(2) {
            (Psm::Ct32, 0)
        } else {
            rng.pick(&TEXTURES)
        };
        let cpsm = rng.pick(&[0u64, 2, 0xa]);
        let cbp = if cpsm == 0 { CLUT_BP } else { CLUT_BP + 0x40 };
        let tex0 = tbp as u64
            | 1 << 14
            | (tpsm.code() as u64) << 20
            | (4 + rng.below(3)) << 26
            | (4 + rng.below(3)) << 30
            | rng.below(2) << 34
            | rng.below(4) << 35
            | (cbp as u64) << 37
            | cpsm << 51
            | rng.below(2) << 55
            | rng.below(32) << 56
            | if rng.chance(3) { 1 } else { 0 } << 61;
        g.write_reg(reg::TEXCLUT, 1 | rng.below(2) << 6 | rng.below(8) << 12)
            .unwrap();
        g.write_reg(reg::TEX0_1, tex0).unwrap();
        g.write_reg(
            reg::TEX1_1,
            rng.below(2)
                | rng.below(4) << 2
                | rng.below(2) << 5
                | rng.below(6) << 6
                | rng.below(4) << 19
                | (rng.next() & 0xfff) << 32,
        )
        .unwrap();
        let m = rng.pick(&TEXTURES).1 as u64;
        g.write_reg(
            reg::MIPTBP1_1,
            m | 1 << 14 | (m + 0x20) << 20 | 1 << 34 | (m + 0x30) << 40 | 1 << 54,
        )
        .unwrap();
        g.write_reg(reg::CLAMP_1, rng.next() & 0xfff_ffff_ffff)
            .unwrap();
        g.write_reg(
            reg::TEXA,
            rng.next() & 0xff | rng.below(2) << 15 | (rng.next() & 0xff) << 32,
        )
        .unwrap();
        g.write_reg(reg::FOGCOL, rng.next() & 0xff_ffff).unwrap();
        g.write_reg(reg::DIMX, rng.next() & 0x7777_7777_7777_7777)
            .unwrap();
        g.write_reg(reg::DTHE, rng.below(2)).unwrap();
        g.write_reg(reg::COLCLAMP, rng.below(2)).unwrap();
        g.write_reg(reg::PABE, rng.below(2)).unwrap();
        g.write_reg(reg::FBA_1, rng.below(2)).unwrap();
        g.write_reg(reg::SCANMSK, if rng.chance(8) { rng.below(4) } else { 0 })
            .unwrap();
        let (x0, y0) = (rng.below(40), rng.below(40));
        g.write_reg(
            reg::SCISSOR_1,
            x0 | (x0 + 20 + rng.below(107 - x0)) << 16
                | y0 << 32
                | (y0 + 20 + rng.below(107 - y0)) << 48,
        )
        .unwrap();
        g.write_reg(reg::XYOFFSET_1, 0).unwrap();
        let kind = rng.pick(&[0u64, 1, 2, 3, 3, 3, 4, 5, 6, 6]);
        let prim = kind
            | rng.below(2) << 3
            | rng.below(4).min(1) << 4
            | rng.below(2) << 5
            | rng.below(2) << 6
            | rng.below(2) << 8;
        g.write_reg(reg::PRIM, prim).unwrap();
        let vertices = match kind {
            0 => 2,
            1 | 6 => 2,
            2 => 4,
            3 => 3,
            _ => 5,
        };
        for _ in 0..vertices {
            let q = if rng.chance(10) {
                rng.pick(&[0u64, (-1.0f32).to_bits() as u64, 0x7fc0_0000])
            } else {
                float(&mut rng, 0.25, 4.0)
            };
            g.write_reg(reg::RGBAQ, rng.next() & 0xffff_ffff | q << 32)
                .unwrap();
            g.write_reg(
                reg::ST,
                float(&mut rng, -0.5, 1.5) | float(&mut rng, -0.5, 1.5) << 32,
            )
            .unwrap();
            g.write_reg(
                reg::UV,
                rng.below(64 * 16 + 64) | rng.below(64 * 16 + 64) << 16,
            )
            .unwrap();
            g.write_reg(reg::FOG, rng.below(256) << 56).unwrap();
            let (x, y) = (rng.below(136 * 16), rng.below(136 * 16));
            g.write_reg(reg::XYZ2, x | y << 16 | (rng.next() & 0xffff_ffff) << 32)
                .unwrap();
        }
        // Now and then a copy between textures, or a readback of the frame.
        if i % 7 == 3 {
            g.write_reg(
                reg::BITBLTBUF,
                0x1000 | 1 << 16 | (0x1700u64) << 32 | 1 << 48,
            )
            .unwrap();
            g.write_reg(reg::TRXPOS, rng.below(32) | rng.below(32) << 16)
                .unwrap();
            g.write_reg(reg::TRXREG, 32 | 32 << 32).unwrap();
            g.write_reg(reg::TRXDIR, 2).unwrap();
        }
        if i % 11 == 5 {
            g.write_reg(reg::BITBLTBUF, 2 << 16).unwrap();
            g.write_reg(reg::TRXPOS, 0).unwrap();
            g.write_reg(reg::TRXREG, 128 | 8 << 32).unwrap();
            g.write_reg(reg::TRXDIR, 1).unwrap();
            let mut out = vec![0u128; 128 * 8 / 4];
            g.read_image(&mut out);
        }
    }
    g.into_renderer().0
}

fn replay(r: &mut dyn Renderer, cmds: &[Cmd]) -> Vec<Vec<u8>> {
    r.memory(MemCommand::PowerOn);
    let mut reads = Vec::new();
    for c in cmds {
        match c {
            Cmd::Draw(d) => r.draw(d),
            Cmd::Mem(m) => r.memory(m.clone()),
            Cmd::ReadBack(rect, start, count) => reads.push(r.read_back(rect, *start, *count)),
        }
    }
    reads
}

fn gpu(scale: u32) -> WgpuRenderer {
    WgpuRenderer::with_scale(scale).unwrap_or_else(|e| {
        panic!("no wgpu adapter ({e}); install mesa-vulkan-drivers for lavapipe")
    })
}

fn first_difference(a: &[LocalMemory], b: &[LocalMemory]) -> Option<String> {
    for (p, (x, y)) in a.iter().zip(b).enumerate() {
        let diffs: Vec<usize> = x
            .words()
            .iter()
            .zip(y.words())
            .enumerate()
            .filter(|(_, (a, b))| a != b)
            .map(|(i, _)| i)
            .collect();
        if let Some(&i) = diffs.first() {
            return Some(format!(
                "plane {p}: {} words differ, first at {i:#x}: {:#010x} vs {:#010x}",
                diffs.len(),
                x.words()[i],
                y.words()[i]
            ));
        }
    }
    None
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
