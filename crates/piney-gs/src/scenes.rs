//! Random GS scenes for differential tests of renderers: every primitive, frame, Z and
//! texture format, CLUT, filter, mipmap, test, blend, fog, dither and mask setting the
//! registers allow, recorded once through the GS state machine ([`scene`]) and replayed into
//! any renderer ([`replay`]). The software renderer's fast paths are checked against its general
//! path with them, and the wgpu renderer against the software renderer.

use crate::gs::reg;
use crate::mem::TransferRect;
use crate::{DisplayCommand, DrawCommand, Gs, Image, LocalMemory, MemCommand, Psm, Renderer};

/// One renderer call.
#[derive(Debug, Clone)]
pub enum Cmd {
    /// A draw.
    Draw(Box<DrawCommand>),
    /// A memory command.
    Mem(MemCommand),
    /// A readback (rectangle, first pixel, pixels).
    ReadBack(TransferRect, u64, u64),
}

/// Records the commands the state machine sends.
#[derive(Default)]
pub struct Recorder(pub Vec<Cmd>);

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
    fn read_clut(&mut self) -> Box<[u16; 512]> {
        Box::new([0; 512])
    }
    fn display(&mut self, _: &DisplayCommand) {}
    fn display_image(&mut self) -> Image {
        Image::new(0, 0, [0; 4])
    }
}

pub struct Rng(pub u64);

impl Rng {
    /// The next number.
    pub fn next_u64(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// A number below `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
    /// True one time in `one_in`.
    pub fn chance(&mut self, one_in: u64) -> bool {
        self.below(one_in) == 0
    }
    /// One of `v`.
    pub fn pick<T: Copy>(&mut self, v: &[T]) -> T {
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
        .map(|_| rng.next_u64() as u128 | (rng.next_u64() as u128) << 64)
        .collect();
    g.write_image(&data);
}

fn float(rng: &mut Rng, lo: f32, hi: f32) -> u64 {
    let t = rng.below(1 << 20) as f32 / (1 << 20) as f32;
    (lo + (hi - lo) * t).to_bits() as u64
}

/// A random scene's commands: `draws` draws with random state; with `feedback`, half of
/// them sample the frame they draw into.
pub fn scene(seed: u64, draws: usize, feedback: bool) -> Vec<Cmd> {
    scene_with(seed, draws, feedback, false)
}

/// [`scene`], or with `reuse` a scene whose draws sample the same textures again and again
/// (64 x 64, unfiltered or bilinear at level 0, CLUTs loaded rarely) while uploads, copies and
/// render-to-texture draws change them: what a texture cache must follow.
pub fn scene_with(seed: u64, draws: usize, feedback: bool, reuse: bool) -> Vec<Cmd> {
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
            rng.next_u64() & 0xffff_ffff
        } else {
            0
        };
        // Mostly the 128 x 128 frame at page 0; now and then a texture's pages (render to
        // texture: a later draw samples what this one drew).
        let fbp = if rng.chance(if reuse { 3 } else { 8 }) {
            rng.pick(&TEXTURES).1 as u64 / 32
        } else {
            0
        };
        g.write_reg(reg::FRAME_1, fbp | 2 << 16 | frame_psm << 24 | fbmsk << 32)
            .unwrap();
        g.write_reg(
            reg::ZBUF_1,
            16 | rng.pick(&[0u64, 1, 2, 0xa]) << 24 | (rng.below(2)) << 32,
        )
        .unwrap();
        g.write_reg(reg::TEST_1, rng.next_u64() & 0x7_ffff).unwrap();
        g.write_reg(
            reg::ALPHA_1,
            // A quarter of the time the usual (Cs - Cd) * As + Cd (A 0, B 1, C 0, D 1).
            if rng.chance(4) {
                0x44
            } else {
                rng.next_u64() & 0xff
            } | (rng.next_u64() & 0xff) << 32,
        )
        .unwrap();
        let (tpsm, tbp) = if feedback && rng.chance(2) {
            (Psm::Ct32, 0)
        } else {
            rng.pick(&TEXTURES)
        };
        let cpsm = if reuse { 2 } else { rng.pick(&[0u64, 2, 0xa]) };
        let cbp = if cpsm == 0 { CLUT_BP } else { CLUT_BP + 0x40 };
        let (tw, th) = if reuse {
            (6, 6)
        } else {
            (4 + rng.below(3), 4 + rng.below(3))
        };
        let cld = if reuse { rng.chance(4) } else { rng.chance(3) };
        let tex0 = tbp as u64
            | 1 << 14
            | (tpsm.code() as u64) << 20
            | tw << 26
            | th << 30
            | rng.below(2) << 34
            | rng.below(4) << 35
            | (cbp as u64) << 37
            | cpsm << 51
            | rng.below(2) << 55
            | if reuse { 0 } else { rng.below(32) } << 56
            | (cld as u64) << 61;
        g.write_reg(reg::TEXCLUT, 1 | rng.below(2) << 6 | rng.below(8) << 12)
            .unwrap();
        g.write_reg(reg::TEX0_1, tex0).unwrap();
        let tex1 = if reuse {
            // MMAG = MMIN, nearest or bilinear: level 0 whatever the LOD.
            rng.below(2) * (1 << 5 | 1 << 6)
        } else {
            rng.below(2)
                | rng.below(4) << 2
                | rng.below(2) << 5
                | rng.below(6) << 6
                | rng.below(4) << 19
                | (rng.next_u64() & 0xfff) << 32
        };
        g.write_reg(reg::TEX1_1, tex1).unwrap();
        let m = rng.pick(&TEXTURES).1 as u64;
        g.write_reg(
            reg::MIPTBP1_1,
            m | 1 << 14 | (m + 0x20) << 20 | 1 << 34 | (m + 0x30) << 40 | 1 << 54,
        )
        .unwrap();
        // Half the time the region wraps' bounds lie inside the smallest texture (16 x 16).
        let clamp = if rng.chance(2) {
            rng.next_u64() & 0xfff_ffff_ffff
        } else {
            rng.below(16)
                | rng.below(16) << 4
                | rng.below(16) << 14
                | rng.below(16) << 24
                | rng.below(16) << 34
        };
        g.write_reg(reg::CLAMP_1, clamp).unwrap();
        g.write_reg(
            reg::TEXA,
            rng.next_u64() & 0xff | rng.below(2) << 15 | (rng.next_u64() & 0xff) << 32,
        )
        .unwrap();
        g.write_reg(reg::FOGCOL, rng.next_u64() & 0xff_ffff)
            .unwrap();
        g.write_reg(reg::DIMX, rng.next_u64() & 0x7777_7777_7777_7777)
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
            | (rng.chance(4) as u64) << 7
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
            g.write_reg(reg::RGBAQ, rng.next_u64() & 0xffff_ffff | q << 32)
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
            g.write_reg(
                reg::XYZ2,
                x | y << 16 | (rng.next_u64() & 0xffff_ffff) << 32,
            )
            .unwrap();
        }
        // Now and then a copy between textures, or a readback of the frame.
        // Now and then new texels or a new CLUT source for later draws.
        if rng.chance(8) {
            let (psm, bp) = rng.pick(&TEXTURES);
            upload(&mut g, &mut rng, psm, bp, 1, 64, 64);
        }
        if rng.chance(if reuse { 3 } else { 16 }) {
            upload(&mut g, &mut rng, Psm::Ct16, CLUT_BP + 0x40, 1, 16, 16);
        }
        if i % 7 == 3 {
            let dst = if rng.chance(2) { 0x1700 } else { 0x1000 };
            g.write_reg(
                reg::BITBLTBUF,
                0x1400 | 1 << 16 | (dst as u64) << 32 | 1 << 48,
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

/// Replays `cmds` into `r` from power-on; the readbacks' data in order.
pub fn replay(r: &mut dyn Renderer, cmds: &[Cmd]) -> Vec<Vec<u8>> {
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

/// The first difference between two sets of planes, described; `None` when equal.
pub fn first_difference(a: &[LocalMemory], b: &[LocalMemory]) -> Option<String> {
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
