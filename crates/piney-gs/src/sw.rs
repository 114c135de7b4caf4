//! The software reference rasteriser: draws [`DrawCommand`]s into local memory by the GS's rules.
//!
//! Rules implemented (GS User's Manual, "Drawing" chapters; PCSX2's software renderer as a second
//! source where the manual is silent):
//! - Pixels are sampled at integer window coordinates; vertices are 12.4. A pixel is covered when
//!   its sample lies in the half-open span of the primitive: rows `ceil(ytop) .. ceil(ybottom)`,
//!   columns `ceil(xleft) .. ceil(xright)` (the top-left rule). Edge positions are computed
//!   exactly in integers.
//! - Gouraud colours, fog, Z and UV come from the plane through the three vertices evaluated
//!   exactly (integers, rounded down); S, T and Q likewise in f64, then divided per pixel.
//!   Flat shading takes the colour of the last (kicking) vertex; sprites take colour and Z of
//!   their second vertex.
//! - The per-pixel pipeline: scissor, SCANMSK, texture (CLAMP, TEXA, CLUT, nearest/bilinear,
//!   mipmap level from Q), texture function, fog, alpha test (AFAIL), destination alpha test,
//!   depth test, blending (PABE, COLCLAMP), dither (16-bit frames), FBA, FBMSK, writes.
//!
//! Not exact yet: the console's interpolation rounding of Gouraud colours and of S/T/Q is not
//! documented; lines use a DDA along the major axis with the minor coordinate rounded to nearest;
//! AA1 is treated as alpha blending without coverage.

use crate::draw::{DisplayCommand, DrawCommand, MemCommand, PrimKind, Renderer, Vertex};
use crate::image::Image;
use crate::mem::{LocalMemory, TransferRect, pixel_address};
use crate::psm::Psm;
use crate::regs::*;

/// The software renderer: local memory and the CLUT buffer.
#[derive(Clone, Debug)]
pub struct SoftwareRenderer {
    mem: LocalMemory,
    /// The 1 KiB CLUT buffer (crate::texel::Clut).
    clut: Clut,
    /// The picture of the last display command.
    displayed: Image,
}

impl Default for SoftwareRenderer {
    fn default() -> Self {
        Self::new()
    }
}

fn ceil_div(a: i64, b: i64) -> i64 {
    // b > 0
    -((-a).div_euclid(b))
}

#[derive(Clone, Copy)]
struct Frag {
    rgba: [i32; 4],
    z: u64,
    f: i32,
    /// Texel coordinates in 1/16 texel (level 0).
    u: i32,
    v: i32,
    q: f32,
}

struct TexState {
    psm: Psm,
    bp: [u32; 7],
    bw: [u32; 7],
    tw: u32,
    th: u32,
    tcc: bool,
    tfx: u32,
    clamp: Clamp,
    cpsm: Psm,
    csa: u32,
    texa: Texa,
    tex1: Tex1,
}

struct Setup {
    fpsm: Psm,
    fbp: u32,
    fbw: u32,
    fbmsk: u32,
    zpsm: Psm,
    zbp: u32,
    zmsk: bool,
    test: Test,
    alpha: Alpha,
    blend: bool,
    pabe: bool,
    fba: bool,
    colclamp: bool,
    dither: Option<Dimx>,
    fog: Option<FogCol>,
    scissor: (i32, i32, i32, i32),
    scanmsk: u64,
    tex: Option<TexState>,
    fst: bool,
    /// Z is tested or written.
    need_z: bool,
}

use crate::texel::{Clut, clut_psm, texture_psm as tex_psm, wrap};

impl SoftwareRenderer {
    /// Zeroed memory and CLUT.
    pub fn new() -> Self {
        SoftwareRenderer {
            mem: LocalMemory::new(),
            clut: Clut::default(),
            displayed: Image::new(0, 0, [0; 4]),
        }
    }

    /// The local memory.
    pub fn mem(&self) -> &LocalMemory {
        &self.mem
    }

    /// The local memory, writable.
    pub fn mem_mut(&mut self) -> &mut LocalMemory {
        &mut self.mem
    }

    /// The CLUT buffer (see the field's layout).
    pub fn clut(&self) -> &[u16; 512] {
        self.clut.halfwords()
    }

    fn setup(&self, cmd: &DrawCommand) -> Setup {
        let c = &cmd.ctx;
        let mut fbmsk = c.frame.fbmsk();
        // A frame in PSMT8H/4HH/4HL is PSMCT32 writing only those bits (PCSX2
        // GIFRegHandlerFRAME; tested for 8H there).
        let fpsm = match tex_psm(c.frame.psm()) {
            Psm::T8h => {
                fbmsk |= 0x00ff_ffff;
                Psm::Ct32
            }
            Psm::T4hh => {
                fbmsk |= 0x0fff_ffff;
                Psm::Ct32
            }
            Psm::T4hl => {
                fbmsk |= 0xf0ff_ffff;
                Psm::Ct32
            }
            Psm::T8 | Psm::T4 => Psm::Ct32,
            p => p,
        };
        let zpsm = Psm::from_code(0x30 | c.zbuf.psm() as u64).unwrap_or(Psm::Z32);
        // With the frame in a Z format the Z buffer takes the colour swizzle (hardware-tested,
        // PCSX2 GIFRegHandlerZBUF).
        let zpsm = if fpsm.is_depth() {
            match zpsm {
                Psm::Z32 => Psm::Ct32,
                Psm::Z24 => Psm::Ct24,
                Psm::Z16 => Psm::Ct16,
                _ => Psm::Ct16s,
            }
        } else {
            zpsm
        };
        let s = c.scissor;
        let tex = (cmd.prim.tme() != 0).then(|| {
            let t = c.tex0;
            let m1 = c.miptbp1;
            let m2 = c.miptbp2;
            TexState {
                psm: tex_psm(t.psm()),
                bp: [
                    t.tbp0(),
                    m1.tbp1(),
                    m1.tbp2(),
                    m1.tbp3(),
                    m2.tbp1(),
                    m2.tbp2(),
                    m2.tbp3(),
                ],
                bw: [
                    t.tbw(),
                    m1.tbw1(),
                    m1.tbw2(),
                    m1.tbw3(),
                    m2.tbw1(),
                    m2.tbw2(),
                    m2.tbw3(),
                ],
                // TW/TH above 10 are undefined; 1024 is the largest texture.
                tw: t.tw().min(10),
                th: t.th().min(10),
                tcc: t.tcc() != 0,
                tfx: t.tfx(),
                clamp: c.clamp,
                cpsm: clut_psm(t.cpsm()),
                csa: t.csa(),
                texa: cmd.env.texa,
                tex1: c.tex1,
            }
        });
        Setup {
            fpsm,
            fbp: c.frame.fbp() * 32,
            fbw: c.frame.fbw(),
            fbmsk,
            zpsm,
            zbp: c.zbuf.zbp() * 32,
            zmsk: c.zbuf.zmsk() != 0,
            test: c.test,
            alpha: c.alpha,
            blend: cmd.prim.abe() != 0 || cmd.prim.aa1() != 0,
            pabe: cmd.env.pabe != 0,
            fba: c.fba != 0,
            colclamp: cmd.env.colclamp != 0,
            // Dithering applies to 16-bit frame buffers only (PCSX2 GSRendererSW: DTHE with a
            // 16-bit FPSM).
            dither: (cmd.env.dthe != 0 && fpsm.transfer_bits() == 16).then_some(cmd.env.dimx),
            fog: (cmd.prim.fge() != 0).then_some(cmd.env.fogcol),
            scissor: (
                s.scax0() as i32,
                s.scax1() as i32,
                s.scay0() as i32,
                s.scay1() as i32,
            ),
            scanmsk: cmd.env.scanmsk,
            tex,
            fst: cmd.prim.fst() != 0,
            need_z: c.zbuf.zmsk() == 0 || (c.test.zte() != 0 && c.test.ztst() != 1),
        }
    }

    // ---- texture ----

    fn texel(&self, t: &TexState, level: usize, x: i32, y: i32) -> [i32; 4] {
        let raw = self
            .mem
            .read_pixel(t.psm, x as u32, y as u32, t.bp[level], t.bw[level]);
        crate::texel::decode(raw, t.psm, t.texa, &self.clut, t.cpsm, t.csa)
    }

    fn wrapped_texel(&self, t: &TexState, level: usize, x: i32, y: i32) -> [i32; 4] {
        let c = t.clamp;
        let w = (1i32 << t.tw) >> level;
        let h = (1i32 << t.th) >> level;
        let x = wrap(
            x,
            w.max(1),
            c.wms(),
            c.minu() as i32 >> level,
            c.maxu() as i32 >> level,
        );
        let y = wrap(
            y,
            h.max(1),
            c.wmt(),
            c.minv() as i32 >> level,
            c.maxv() as i32 >> level,
        );
        self.texel(t, level, x, y)
    }

    fn sample_level(&self, t: &TexState, level: usize, u: i32, v: i32, linear: bool) -> [i32; 4] {
        let (u, v) = (u >> level, v >> level);
        if !linear {
            return self.wrapped_texel(t, level, u >> 4, v >> 4);
        }
        // Bilinear: texel centres are at +0.5; weights in sixteenths.
        let (u, v) = (u - 8, v - 8);
        let (x0, y0, fx, fy) = (u >> 4, v >> 4, u & 15, v & 15);
        let c00 = self.wrapped_texel(t, level, x0, y0);
        let c10 = self.wrapped_texel(t, level, x0 + 1, y0);
        let c01 = self.wrapped_texel(t, level, x0, y0 + 1);
        let c11 = self.wrapped_texel(t, level, x0 + 1, y0 + 1);
        let mut out = [0; 4];
        for i in 0..4 {
            out[i] = (c00[i] * (16 - fx) * (16 - fy)
                + c10[i] * fx * (16 - fy)
                + c01[i] * (16 - fx) * fy
                + c11[i] * fx * fy)
                >> 8;
        }
        out
    }

    fn sample(&self, t: &TexState, u: i32, v: i32, q: f32) -> [i32; 4] {
        let t1 = t.tex1;
        // Without mipmapping and with one filter either way, the LOD does not matter.
        if t1.mmin() <= 1 && t1.mmag() == t1.mmin() {
            return self.sample_level(t, 0, u, v, t1.mmag() != 0);
        }
        // LOD in sixteenths: K when LCM = 1, else log2(1/|Q|) * 2^L + K, with log2 taken from
        // the float's exponent and top mantissa bits (a linear approximation).
        let lod = if t1.lcm() != 0 {
            t1.k_signed()
        } else {
            let bits = q.abs().to_bits();
            let e = ((bits >> 23) & 0xff) as i32 - 127;
            let m = ((bits >> 19) & 15) as i32;
            (-(e * 16 + m) << t1.l()) + t1.k_signed()
        };
        if lod <= 0 {
            return self.sample_level(t, 0, u, v, t1.mmag() & 1 != 0);
        }
        let mxl = t1.mxl().min(6) as i32;
        match t1.mmin() {
            0 => self.sample_level(t, 0, u, v, false),
            1 => self.sample_level(t, 0, u, v, true),
            m @ (2 | 4) => {
                let level = ((lod + 8) >> 4).min(mxl) as usize;
                self.sample_level(t, level, u, v, m == 4)
            }
            m @ (3 | 5) => {
                let l0 = (lod >> 4).min(mxl) as usize;
                let l1 = ((lod >> 4) + 1).min(mxl) as usize;
                let f = lod & 15;
                let a = self.sample_level(t, l0, u, v, m == 5);
                let b = self.sample_level(t, l1, u, v, m == 5);
                let mut out = [0; 4];
                for i in 0..4 {
                    out[i] = (a[i] * (16 - f) + b[i] * f) >> 4;
                }
                out
            }
            // MMIN 6 and 7 are undefined: nearest.
            _ => self.sample_level(t, 0, u, v, false),
        }
    }

    // ---- the pixel pipeline ----

    fn pixel(&mut self, s: &Setup, x: i32, y: i32, fr: &Frag) {
        let (sx0, sx1, sy0, sy1) = s.scissor;
        if x < sx0
            || x > sx1
            || y < sy0
            || y > sy1
            || !(0..2048).contains(&x)
            || !(0..2048).contains(&y)
        {
            return;
        }
        // SCANMSK 2: even lines are not drawn; 3: odd lines.
        if (s.scanmsk == 2 && y & 1 == 0) || (s.scanmsk == 3 && y & 1 == 1) {
            return;
        }
        let (ux, uy) = (x as u32, y as u32);
        let mut c = fr.rgba;
        if let Some(t) = &s.tex {
            let tc = self.sample(t, fr.u, fr.v, fr.q);
            c = tfx(t.tfx, t.tcc, tc, fr.rgba);
        }
        if let Some(fc) = s.fog {
            // C = (F * C + (255 - F) * FOGCOL) >> 8 for R, G, B.
            let fcol = [fc.fcr() as i32, fc.fcg() as i32, fc.fcb() as i32];
            for i in 0..3 {
                c[i] = (fr.f * c[i] + (255 - fr.f) * fcol[i]) >> 8;
            }
        }
        // Alpha test.
        let (mut fb_write, mut z_write, mut rgb_only) = (true, !s.zmsk, false);
        let t = s.test;
        if t.ate() != 0 {
            let (a, r) = (c[3], t.aref() as i32);
            let pass = match t.atst() {
                0 => false,
                1 => true,
                2 => a < r,
                3 => a <= r,
                4 => a == r,
                5 => a >= r,
                6 => a > r,
                _ => a != r,
            };
            if !pass {
                match t.afail() {
                    0 => return,
                    1 => z_write = false,
                    2 => fb_write = false,
                    _ => {
                        z_write = false;
                        rgb_only = true;
                    }
                }
            }
        }
        let fbits = s.fpsm.transfer_bits();
        let faddr = pixel_address(s.fpsm, ux, uy, s.fbp, s.fbw);
        // The destination is read only when the alpha test on it or blending needs it (a
        // load that misses the cache is the costliest part of an opaque pixel).
        let dst = if t.date() != 0 || (fb_write && s.blend) {
            match fbits {
                16 => self.mem.read_at(s.fpsm, faddr),
                _ => self.mem.read_word(faddr),
            }
        } else {
            0
        };
        // Destination alpha test: the stored alpha's top bit must equal DATM.
        if t.date() != 0 {
            let abit = match fbits {
                16 => (dst >> 15) & 1,
                24 => 1, // PSMCT24 has no alpha; it reads as 0x80.
                _ => (dst >> 31) & 1,
            };
            if abit != t.datm() {
                return;
            }
        }
        // Depth test in the Z buffer's format; the incoming Z saturates to the format's range.
        let z = fr.z.min(s.zpsm.value_mask() as u64) as u32;
        let ztest = t.zte() != 0 && t.ztst() != 1;
        let zaddr = if ztest || z_write {
            pixel_address(s.zpsm, ux, uy, s.zbp, s.fbw_z())
        } else {
            0
        };
        if ztest {
            let zd = self.mem.read_at(s.zpsm, zaddr);
            let pass = match t.ztst() {
                0 => false,
                2 => z >= zd,
                _ => z > zd,
            };
            if !pass {
                return;
            }
        }
        if fb_write {
            let d = match fbits {
                16 => [
                    ((dst & 0x1f) << 3) as i32,
                    (((dst >> 5) & 0x1f) << 3) as i32,
                    (((dst >> 10) & 0x1f) << 3) as i32,
                    if dst & 0x8000 != 0 { 0x80 } else { 0 },
                ],
                24 => [
                    dst as i32 & 0xff,
                    (dst >> 8) as i32 & 0xff,
                    (dst >> 16) as i32 & 0xff,
                    0x80,
                ],
                _ => [
                    dst as i32 & 0xff,
                    (dst >> 8) as i32 & 0xff,
                    (dst >> 16) as i32 & 0xff,
                    (dst >> 24) as i32,
                ],
            };
            let mut out = c;
            // PABE: no blending where the source alpha's MSB is 0.
            if s.blend && !(s.pabe && c[3] < 0x80) {
                let al = s.alpha;
                let cf = match al.c() {
                    0 => c[3],
                    1 => d[3],
                    _ => al.fix() as i32,
                };
                for i in 0..3 {
                    let pick = |sel: u32| match sel {
                        0 => c[i],
                        1 => d[i],
                        _ => 0,
                    };
                    // Cv = ((A - B) * C >> 7) + D, arithmetic shift.
                    out[i] = (((pick(al.a()) - pick(al.b())) * cf) >> 7) + pick(al.d());
                }
            }
            if let Some(dm) = s.dither {
                let dv = dm.value(ux, uy);
                for o in out.iter_mut().take(3) {
                    *o += dv;
                }
            }
            for o in out.iter_mut().take(3) {
                // COLCLAMP 1 clamps to 0..255, 0 keeps the low 8 bits.
                *o = if s.colclamp {
                    (*o).clamp(0, 255)
                } else {
                    *o & 0xff
                };
            }
            let mut a = c[3] & 0xff;
            // FBA sets the written alpha's MSB.
            if s.fba {
                a |= 0x80;
            }
            let mut mask = s.fbmsk;
            if rgb_only {
                mask |= 0xff00_0000;
            }
            match fbits {
                16 => {
                    let v = ((out[0] as u32) >> 3)
                        | (((out[1] as u32) >> 3) << 5)
                        | (((out[2] as u32) >> 3) << 10)
                        | (((a as u32) >> 7) << 15);
                    // The 32-bit FBMSK's bits at the 5:5:5:1 positions.
                    let keep = ((mask >> 3) & 0x1f)
                        | ((mask >> 6) & 0x3e0)
                        | ((mask >> 9) & 0x7c00)
                        | ((mask >> 16) & 0x8000);
                    self.mem.write16_masked(faddr, v, keep);
                }
                _ => {
                    let v = out[0] as u32
                        | ((out[1] as u32) << 8)
                        | ((out[2] as u32) << 16)
                        | ((a as u32) << 24);
                    let fmt = if fbits == 24 { 0x00ff_ffff } else { u32::MAX };
                    let keep = !mask & fmt;
                    if keep == u32::MAX {
                        self.mem.write_word(faddr, v);
                    } else {
                        self.mem.write_masked(faddr, v, keep);
                    }
                }
            }
        }
        if z_write {
            self.mem.write_at(s.zpsm, zaddr, z);
        }
    }

    // ---- primitives ----

    fn draw_sprite(&mut self, s: &Setup, cmd: &DrawCommand) {
        let (mut a, mut b) = (cmd.vertices[0], cmd.vertices[1]);
        let last = b;
        // Corners may come in any order; texture coordinates follow their corner.
        let (mut ua, mut ub) = ((a.u as i64, a.s as f64), (b.u as i64, b.s as f64));
        let (mut va, mut vb) = ((a.v as i64, a.t as f64), (b.v as i64, b.t as f64));
        if a.x > b.x {
            std::mem::swap(&mut a.x, &mut b.x);
            std::mem::swap(&mut ua, &mut ub);
        }
        if a.y > b.y {
            std::mem::swap(&mut a.y, &mut b.y);
            std::mem::swap(&mut va, &mut vb);
        }
        let x0 = ceil_div(a.x as i64, 16);
        let x1 = ceil_div(b.x as i64, 16);
        let y0 = ceil_div(a.y as i64, 16);
        let y1 = ceil_div(b.y as i64, 16);
        let (sx0, sx1, sy0, sy1) = s.scissor;
        let (x0, x1) = (x0.max(sx0 as i64), x1.min(sx1 as i64 + 1));
        let (y0, y1) = (y0.max(sy0 as i64), y1.min(sy1 as i64 + 1));
        let (dx, dy) = ((b.x - a.x) as i64, (b.y - a.y) as i64);
        let tw = s.tex.as_ref().map_or(0, |t| t.tw);
        let th = s.tex.as_ref().map_or(0, |t| t.th);
        if self.solid_sprite(s, &last, (x0, x1), (y0, y1)) {
            return;
        }
        let q = last.q;
        // U depends only on the column and V only on the row: computed once each.
        let tex_coord = |px: i64, a: i64, d: i64, c0: (i64, f64), c1: (i64, f64), log2: u32| {
            let f = px * 16 - a;
            if s.tex.is_none() {
                0
            } else if s.fst {
                lerp_i(c0.0, c1.0, f, d) as i32
            } else {
                st_to_fixed(lerp_f(c0.1, c1.1, f, d), q as f64, log2) as i32
            }
        };
        let us: Vec<i32> = (x0..x1)
            .map(|px| tex_coord(px, a.x as i64, dx, ua, ub, tw))
            .collect();
        let rgba = last.rgba.map(|c| c as i32);
        for py in y0..y1 {
            let v = tex_coord(py, a.y as i64, dy, va, vb, th);
            for (px, &u) in (x0..x1).zip(&us) {
                let fr = Frag {
                    rgba,
                    z: last.z as u64,
                    f: last.f as i32,
                    u,
                    v,
                    q,
                };
                self.pixel(s, px as i32, py as i32, &fr);
            }
        }
    }

    /// For an opaque, untextured, unfogged primitive whose pixels all pass (no alpha,
    /// destination or depth test that can fail) into a 32- or 24-bit frame: the frame bits
    /// written (FBMSK and the format) and the Z format's largest value. Such a pixel stores its
    /// colour word and Z exactly as [`SoftwareRenderer::pixel`] would, without its per-pixel
    /// decisions ([`SoftwareRenderer::solid_store`]). `None` for every other primitive.
    fn solid_mode(s: &Setup) -> Option<Solid> {
        let t = s.test;
        let fbits = s.fpsm.transfer_bits();
        let simple = s.tex.is_none()
            && s.fog.is_none()
            && !s.blend
            && s.dither.is_none()
            && s.scanmsk < 2
            && (t.ate() == 0 || t.atst() == 1)
            && t.date() == 0
            && (t.zte() == 0 || t.ztst() == 1)
            && (fbits == 32 || fbits == 24);
        simple.then(|| Solid {
            keep: !s.fbmsk & if fbits == 24 { 0x00ff_ffff } else { u32::MAX },
            zmax: s.zpsm.value_mask() as u64,
        })
    }

    /// [`SoftwareRenderer::pixel`] for a [`Solid`] primitive: colour `c` (clamped or wrapped
    /// per COLCLAMP, FBA on the alpha) under the mask, then Z (saturated) unless masked.
    #[inline]
    fn solid_store(&mut self, s: &Setup, m: &Solid, x: i64, y: i64, c: [i32; 4], z: u64) {
        if !(0..2048).contains(&x) || !(0..2048).contains(&y) {
            return;
        }
        let (ux, uy) = (x as u32, y as u32);
        let out = c.map(|c| {
            if s.colclamp {
                c.clamp(0, 255)
            } else {
                c & 0xff
            }
        });
        let mut a = (c[3] & 0xff) as u32;
        if s.fba {
            a |= 0x80;
        }
        let colour = out[0] as u32 | ((out[1] as u32) << 8) | ((out[2] as u32) << 16) | (a << 24);
        let faddr = pixel_address(s.fpsm, ux, uy, s.fbp, s.fbw);
        if m.keep == u32::MAX {
            self.mem.write_word(faddr, colour);
        } else {
            self.mem.write_masked(faddr, colour, m.keep);
        }
        if !s.zmsk {
            let z = z.min(m.zmax) as u32;
            self.mem.write_pixel(s.zpsm, ux, uy, s.zbp, s.fbw_z(), z);
        }
    }

    /// A [`Solid`] sprite: every pixel the same colour and Z. False (nothing drawn) for any
    /// other sprite.
    fn solid_sprite(
        &mut self,
        s: &Setup,
        last: &Vertex,
        (x0, x1): (i64, i64),
        (y0, y1): (i64, i64),
    ) -> bool {
        let Some(m) = Self::solid_mode(s) else {
            return false;
        };
        let c = last.rgba.map(|c| c as i32);
        for py in y0..y1 {
            for px in x0..x1 {
                self.solid_store(s, &m, px, py, c, last.z as u64);
            }
        }
        true
    }

    fn draw_triangle(&mut self, s: &Setup, cmd: &DrawCommand) {
        let v = &cmd.vertices;
        let p = |i: usize| (v[i].x as i64, v[i].y as i64);
        let area = (p(1).0 - p(0).0) * (p(2).1 - p(0).1) - (p(2).0 - p(0).0) * (p(1).1 - p(0).1);
        if area == 0 {
            return;
        }
        // Either winding: the weights take the area's sign, so that dividing by |area| rounds
        // down in both.
        let sign = area.signum();
        let area = area.abs();
        // Sort by y for the span walk.
        let mut idx = [0usize, 1, 2];
        idx.sort_by_key(|&i| (v[i].y, i));
        let (t, m, b) = (p(idx[0]), p(idx[1]), p(idx[2]));
        let gouraud = cmd.prim.iip() != 0;
        let last = v[2];
        let flat = last.rgba.map(|c| c as i32);
        let tw = s.tex.as_ref().map_or(0, |t| t.tw);
        let th = s.tex.as_ref().map_or(0, |t| t.th);
        let (sx0, sx1, sy0, sy1) = s.scissor;
        let solid = Self::solid_mode(s);
        let ystart = ceil_div(t.1, 16).max(sy0 as i64);
        let yend = ceil_div(b.1, 16).min(sy1 as i64 + 1);
        for py in ystart..yend {
            let y16 = py * 16;
            let xl = edge_ceil(t, b, y16);
            let xs = if y16 < m.1 {
                edge_ceil(t, m, y16)
            } else {
                edge_ceil(m, b, y16)
            };
            let (lo, hi) = (xl.min(xs).max(sx0 as i64), xl.max(xs).min(sx1 as i64 + 1));
            if lo >= hi {
                continue;
            }
            // Edge functions at the span's first pixel: w[i] is the weight of vertex i times the
            // doubled area (exact in i64: coordinate differences stay below 2^18). Each step
            // right adds dw[i]; every interpolant is floor(sum(w[i] * a[i]) / area), kept as a
            // quotient and remainder that step exactly, with no division per pixel.
            let x16 = lo * 16;
            let e = |a: (i64, i64), c: (i64, i64)| {
                (a.0 - x16) * (c.1 - y16) - (c.0 - x16) * (a.1 - y16)
            };
            let mut w = [
                sign * e(p(1), p(2)),
                sign * e(p(2), p(0)),
                sign * e(p(0), p(1)),
            ];
            let dw = [
                sign * 16 * (p(1).1 - p(2).1),
                sign * 16 * (p(2).1 - p(0).1),
                sign * 16 * (p(0).1 - p(1).1),
            ];
            let attr = |a: [i64; 3]| {
                let n = w[0] * a[0] + w[1] * a[1] + w[2] * a[2];
                let d = dw[0] * a[0] + dw[1] * a[1] + dw[2] * a[2];
                StepDiv::new(n, d, area)
            };
            let mut col =
                gouraud.then(|| [0, 1, 2, 3].map(|i| attr([0, 1, 2].map(|k| v[k].rgba[i] as i64))));
            let mut zs = s.need_z.then(|| {
                let (z, n) = ([0, 1, 2].map(|k| v[k].z as i128), w.map(|x| x as i128));
                let d = dw.map(|x| x as i128);
                WideStepDiv::new(
                    n[0] * z[0] + n[1] * z[1] + n[2] * z[2],
                    d[0] * z[0] + d[1] * z[1] + d[2] * z[2],
                    area as i128,
                )
            });
            let mut fs = s
                .fog
                .is_some()
                .then(|| attr([0, 1, 2].map(|k| v[k].f as i64)));
            let mut uvs = (s.tex.is_some() && s.fst).then(|| {
                [
                    attr([0, 1, 2].map(|k| v[k].u as i64)),
                    attr([0, 1, 2].map(|k| v[k].v as i64)),
                ]
            });
            for px in lo..hi {
                let rgba = match &col {
                    Some(c) => c.map(|d| d.q.clamp(0, 255) as i32),
                    None => flat,
                };
                // Z needs 128 bits (32-bit Z times a 34-bit weight); only computed when used.
                let z = zs.map_or(0, |d| d.q.clamp(0, u32::MAX as i128) as u64);
                let f = fs.map_or(0, |d| d.q.clamp(0, 255) as i32);
                if let Some(m) = &solid {
                    self.solid_store(s, m, px, py, rgba, z);
                } else {
                    let (mut u, mut vv, mut q) = (0, 0, last.q);
                    if let Some([du, dv]) = &uvs {
                        u = du.q as i32;
                        vv = dv.q as i32;
                    } else if s.tex.is_some() {
                        let af = area as f64;
                        let wf = [w[0] as f64 / af, w[1] as f64 / af, w[2] as f64 / af];
                        let fi = |g: &dyn Fn(&Vertex) -> f64| {
                            wf[0] * g(&v[0]) + wf[1] * g(&v[1]) + wf[2] * g(&v[2])
                        };
                        let sq = fi(&|vx| vx.s as f64);
                        let tq = fi(&|vx| vx.t as f64);
                        let qq = fi(&|vx| vx.q as f64);
                        q = qq as f32;
                        u = st_to_fixed(sq, qq, tw) as i32;
                        vv = st_to_fixed(tq, qq, th) as i32;
                    }
                    let fr = Frag {
                        rgba,
                        z,
                        f,
                        u,
                        v: vv,
                        q,
                    };
                    self.pixel(s, px as i32, py as i32, &fr);
                }
                for (wi, d) in w.iter_mut().zip(dw) {
                    *wi += d;
                }
                if let Some(c) = &mut col {
                    c.iter_mut().for_each(StepDiv::step);
                }
                if let Some(d) = &mut zs {
                    d.step();
                }
                if let Some(d) = &mut fs {
                    d.step();
                }
                if let Some(d) = &mut uvs {
                    d.iter_mut().for_each(StepDiv::step);
                }
            }
        }
    }

    fn draw_line(&mut self, s: &Setup, cmd: &DrawCommand) {
        let (a, b) = (cmd.vertices[0], cmd.vertices[1]);
        let gouraud = cmd.prim.iip() != 0;
        let (dx, dy) = ((b.x - a.x) as i64, (b.y - a.y) as i64);
        let xmajor = dx.abs() >= dy.abs();
        let (len, start, end) = if xmajor {
            (dx, a.x as i64, b.x as i64)
        } else {
            (dy, a.y as i64, b.y as i64)
        };
        if len == 0 {
            return;
        }
        let (lo, hi) = (start.min(end), start.max(end));
        let tw = s.tex.as_ref().map_or(0, |t| t.tw);
        let th = s.tex.as_ref().map_or(0, |t| t.th);
        // Pixels along the major axis from ceil(start) to ceil(end) - 1 (the last one is left
        // for the next line of a strip); the minor coordinate is rounded to nearest.
        for m in ceil_div(lo, 16)..ceil_div(hi, 16) {
            let num = m * 16 - start;
            let (px, py) = if xmajor {
                let y = a.y as i64 + floor_div(dy * num, len);
                (m, (y + 8) >> 4)
            } else {
                let x = a.x as i64 + floor_div(dx * num, len);
                ((x + 8) >> 4, m)
            };
            let li = |p: i64, q: i64| p + floor_div((q - p) * num, len);
            let rgba = if gouraud {
                let mut c = [0; 4];
                for (i, ci) in c.iter_mut().enumerate() {
                    *ci = li(a.rgba[i] as i64, b.rgba[i] as i64).clamp(0, 255) as i32;
                }
                c
            } else {
                [
                    b.rgba[0] as i32,
                    b.rgba[1] as i32,
                    b.rgba[2] as i32,
                    b.rgba[3] as i32,
                ]
            };
            let fr_t = num as f64 / len as f64;
            let q = a.q as f64 + (b.q as f64 - a.q as f64) * fr_t;
            let (u, v) = if s.fst {
                (li(a.u as i64, b.u as i64), li(a.v as i64, b.v as i64))
            } else {
                let sv = a.s as f64 + (b.s as f64 - a.s as f64) * fr_t;
                let tv = a.t as f64 + (b.t as f64 - a.t as f64) * fr_t;
                (st_to_fixed(sv, q, tw), st_to_fixed(tv, q, th))
            };
            let fr = Frag {
                rgba,
                z: li(a.z as i64, b.z as i64).max(0) as u64,
                f: li(a.f as i64, b.f as i64).clamp(0, 255) as i32,
                u: u as i32,
                v: v as i32,
                q: q as f32,
            };
            self.pixel(s, px as i32, py as i32, &fr);
        }
    }

    fn draw_point(&mut self, s: &Setup, cmd: &DrawCommand) {
        let a = cmd.vertices[0];
        // A point covers the pixel a 1x1 sprite from the vertex would: ceil of its coordinates.
        let (px, py) = (ceil_div(a.x as i64, 16), ceil_div(a.y as i64, 16));
        let tw = s.tex.as_ref().map_or(0, |t| t.tw);
        let th = s.tex.as_ref().map_or(0, |t| t.th);
        let (u, v) = if s.fst {
            (a.u as i64, a.v as i64)
        } else {
            (
                st_to_fixed(a.s as f64, a.q as f64, tw),
                st_to_fixed(a.t as f64, a.q as f64, th),
            )
        };
        let fr = Frag {
            rgba: [
                a.rgba[0] as i32,
                a.rgba[1] as i32,
                a.rgba[2] as i32,
                a.rgba[3] as i32,
            ],
            z: a.z as u64,
            f: a.f as i32,
            u: u as i32,
            v: v as i32,
            q: a.q,
        };
        if (i32::MIN as i64..i32::MAX as i64).contains(&px)
            && (i32::MIN as i64..i32::MAX as i64).contains(&py)
        {
            self.pixel(s, px as i32, py as i32, &fr);
        }
    }
}

impl Setup {
    /// The Z buffer shares the frame's width (ZBUF has no width field).
    fn fbw_z(&self) -> u32 {
        self.fbw
    }
}

/// Texture function (TEX0.TFX) of texel `t` and vertex colour `f`.
fn tfx(mode: u32, tcc: bool, t: [i32; 4], f: [i32; 4]) -> [i32; 4] {
    let modulate = |i: usize| ((t[i] * f[i]) >> 7).min(255);
    match mode {
        // MODULATE: C = Ct * Cf >> 7; A = At * Af >> 7 (TCC) or Af.
        0 => [
            modulate(0),
            modulate(1),
            modulate(2),
            if tcc { modulate(3) } else { f[3] },
        ],
        // DECAL: C = Ct; A = At or Af.
        1 => [t[0], t[1], t[2], if tcc { t[3] } else { f[3] }],
        // HIGHLIGHT: C = (Ct * Cf >> 7) + Af; A = At + Af or Af.
        2 => {
            let h = |i: usize| (((t[i] * f[i]) >> 7) + f[3]).min(255);
            [
                h(0),
                h(1),
                h(2),
                if tcc { (t[3] + f[3]).min(255) } else { f[3] },
            ]
        }
        // HIGHLIGHT2: C as HIGHLIGHT; A = At or Af.
        _ => {
            let h = |i: usize| (((t[i] * f[i]) >> 7) + f[3]).min(255);
            [h(0), h(1), h(2), if tcc { t[3] } else { f[3] }]
        }
    }
}

/// x at row `y16` on the edge a->b (12.4), as the first pixel column at or right of it.
fn edge_ceil(a: (i64, i64), b: (i64, i64), y16: i64) -> i64 {
    let dy = b.1 - a.1;
    if dy == 0 {
        return ceil_div(a.0.min(b.0), 16);
    }
    ceil_div(a.0 * dy + (b.0 - a.0) * (y16 - a.1), 16 * dy)
}

/// What [`SoftwareRenderer::solid_store`] needs of a primitive that always passes.
struct Solid {
    /// The frame bits written: FBMSK's zeros within the format's bits.
    keep: u32,
    /// The Z format's largest value (the incoming Z saturates to it).
    zmax: u64,
}

/// Defines a `floor(n / den)` (`den` > 0) for an `n` that grows by a constant `step` each
/// pixel: the quotient and remainder step exactly, so a span costs a few divisions, not one a
/// pixel.
macro_rules! step_div {
    ($name:ident, $t:ty) => {
        #[derive(Clone, Copy)]
        struct $name {
            /// The current quotient.
            q: $t,
            r: $t,
            dq: $t,
            dr: $t,
            den: $t,
        }

        impl $name {
            fn new(n: $t, step: $t, den: $t) -> $name {
                $name {
                    q: n.div_euclid(den),
                    r: n.rem_euclid(den),
                    dq: step.div_euclid(den),
                    dr: step.rem_euclid(den),
                    den,
                }
            }

            #[inline]
            fn step(&mut self) {
                self.q += self.dq;
                self.r += self.dr;
                if self.r >= self.den {
                    self.r -= self.den;
                    self.q += 1;
                }
            }
        }
    };
}

// Colour, fog and UV: weights below 2^36 times values below 2^16, three of them, fit in i64
// (as the per-pixel division they replace assumed).
step_div!(StepDiv, i64);
// Z: 32-bit values need 128 bits.
step_div!(WideStepDiv, i128);

/// a / b rounded down, for either sign of b (b != 0).
fn floor_div(a: i64, b: i64) -> i64 {
    if b < 0 {
        (-a).div_euclid(-b)
    } else {
        a.div_euclid(b)
    }
}

fn lerp_i(a: i64, b: i64, num: i64, den: i64) -> i64 {
    if den == 0 {
        a
    } else {
        a + floor_div((b - a) * num, den)
    }
}

fn lerp_f(a: f64, b: f64, num: i64, den: i64) -> f64 {
    if den == 0 {
        a
    } else {
        a + (b - a) * num as f64 / den as f64
    }
}

/// S/Q (or T/Q) to texel coordinates in sixteenths for a texture of 2^`log2` texels.
fn st_to_fixed(s: f64, q: f64, log2: u32) -> i64 {
    let v = if q == 0.0 {
        0.0
    } else {
        s / q * (1u32 << log2) as f64 * 16.0
    };
    if v.is_finite() {
        v.floor().clamp(-(1 << 30) as f64, (1 << 30) as f64) as i64
    } else {
        0
    }
}

impl Renderer for SoftwareRenderer {
    fn draw(&mut self, cmd: &DrawCommand) {
        let s = self.setup(cmd);
        match cmd.kind {
            PrimKind::Sprite => self.draw_sprite(&s, cmd),
            PrimKind::Triangle => self.draw_triangle(&s, cmd),
            PrimKind::Line => self.draw_line(&s, cmd),
            PrimKind::Point => self.draw_point(&s, cmd),
        }
    }

    fn memory(&mut self, cmd: MemCommand) {
        match cmd {
            MemCommand::HostToLocal { rect, start, data } => {
                self.mem.write_transfer(&rect, start, &data);
            }
            MemCommand::LocalToLocal { src, dst, dir } => self.mem.copy_local(&src, &dst, dir),
            MemCommand::LoadClut { tex0, texclut } => self.clut.load(&self.mem, tex0, texclut),
            MemCommand::SetMemory(m) => self.mem = *m,
            MemCommand::PowerOn => {
                self.mem = LocalMemory::new();
                self.clut.clear();
            }
        }
    }

    fn read_back(&mut self, rect: &TransferRect, start: u64, count: u64) -> Vec<u8> {
        self.mem.read_transfer(rect, start, count)
    }

    fn read_memory(&mut self) -> Box<LocalMemory> {
        Box::new(self.mem.clone())
    }

    fn display(&mut self, cmd: &DisplayCommand) {
        self.displayed = crate::pcrtc::picture(&self.mem, cmd);
    }

    fn display_image(&mut self) -> Image {
        self.displayed.clone()
    }
}
