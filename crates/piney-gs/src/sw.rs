//! The software reference renderer: draws [`DrawCommand`]s into local memory by the GS's rules.
//!
//! Coverage and interpolation come from [`crate::raster`] (shared with every renderer); this file
//! walks them on the CPU and runs the per-pixel pipeline: scissor, SCANMSK, texture (CLAMP, TEXA,
//! CLUT, nearest/bilinear, mipmap level from Q), texture function, fog, alpha test (AFAIL),
//! destination alpha test, depth test, blending (PABE, COLCLAMP), dither (16-bit frames), FBA,
//! FBMSK, writes.

use crate::draw::{DisplayCommand, DrawCommand, MemCommand, PrimKind, Renderer};
use crate::image::Image;
use crate::mem::{LocalMemory, TransferRect, pixel_address};

/// The software renderer: local memory and the CLUT buffer.
///
/// At render scale N it keeps N x N planes of local memory: plane `j * N + i` holds what every
/// pixel shows at the fine sample (i, j) of its N x N samples, and plane 0 (the sample at the
/// pixel itself) is local memory as the guest sees it, equal to a 1x render. Triangles are
/// sampled on the fine grid ([`crate::raster::triangle`]); sprites, lines and points keep the
/// native grid (every sample of a pixel gets the pixel's values, so 2D layers and text never
/// shift or seam); textures are read from plane 0, except by a sprite copying a region one
/// texel a pixel, which reads each sample from its own plane. Uploads write every plane, local
/// copies copy plane to plane, CLUTs load from plane 0, readbacks read plane 0.
#[derive(Clone, Debug)]
pub struct SoftwareRenderer {
    planes: Vec<LocalMemory>,
    scale: u32,
    /// The 1 KiB CLUT buffer (crate::texel::Clut).
    clut: Clut,
    /// The picture of the last display command.
    displayed: Image,
    /// Decoded textures and the page generations that check them (crate::texcache).
    texcache: TexCache,
    /// Draws take the specialised paths where they apply (crate::sw_fast); off, every draw
    /// runs the general path (the reference the fast paths are tested against).
    fast: bool,
    stats: SwStats,
    /// Draws waiting for the workers (crate::sw_batch), when there are any.
    batch: Batch,
    /// The workers: `None` draws everything on the calling thread.
    pool: Option<Arc<rayon::ThreadPool>>,
    /// The instruction set of the specialised paths (crate::sw_fast::Isa).
    isa: crate::sw_fast::Isa,
}

/// What the software renderer drew, and how.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SwStats {
    /// Draws by each specialised pipeline, by key (crate::sw_fast).
    pub fast_keys: Vec<u64>,
    /// Draws through the general path.
    pub general_draws: u64,
    /// Pixels the specialised paths covered, by key.
    pub key_pixels: Vec<u64>,
    /// Tiles of texture decoded by the texture cache.
    pub tiles_decoded: u64,
    /// Batches of draws rasterised by several threads at once.
    pub shared_batches: u64,
    /// Batches ended early by a draw that conflicts with them (it samples or writes what
    /// another worker's draw wrote).
    pub batch_ends: u64,
    /// Fast-path draws drawn on one thread because they could not be split between workers.
    pub unsplit_draws: u64,
}

impl Default for SoftwareRenderer {
    fn default() -> Self {
        Self::new()
    }
}

use std::sync::Arc;

use crate::raster::{Frag, PixelState as Setup, TexState, Triangle};
use crate::sw_batch::{Batch, Refused};
use crate::sw_fast::{Plan, Words};
use crate::texcache::{PageSet, TexCache};
use crate::texel::{Clut, wrap};

impl SoftwareRenderer {
    /// Zeroed memory and CLUT, at scale 1.
    pub fn new() -> Self {
        Self::with_scale(1)
    }

    /// Zeroed memory and CLUT at render scale `scale` (1 to 8).
    pub fn with_scale(scale: u32) -> Self {
        let scale = scale.clamp(1, 8);
        SoftwareRenderer {
            planes: vec![LocalMemory::new(); (scale * scale) as usize],
            scale,
            clut: Clut::default(),
            displayed: Image::new(0, 0, [0; 4]),
            texcache: TexCache::new(),
            fast: true,
            stats: SwStats {
                fast_keys: vec![0; crate::sw_fast::KEYS],
                key_pixels: vec![0; crate::sw_fast::KEYS],
                ..SwStats::default()
            },
            batch: Batch::new(1),
            pool: None,
            isa: crate::sw_fast::Isa::detect(),
        }
    }

    /// Rasterises on `threads` worker threads (1 draws on the calling thread). The pixels do
    /// not depend on the number (crate::sw_batch). Workers that cannot be started leave the
    /// renderer on one thread, which is reported in [`SoftwareRenderer::threads`].
    pub fn with_threads(mut self, threads: u32) -> Self {
        self.flush();
        let threads = threads.clamp(1, 64);
        self.pool = (threads > 1)
            .then(|| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads as usize)
                    .thread_name(|i| format!("piney-gs-{i}"))
                    .build()
                    .ok()
            })
            .flatten()
            .map(Arc::new);
        self.batch = Batch::new(if self.pool.is_some() { threads } else { 1 });
        self
    }

    /// Hands every batch to the workers however small (tests of the workers' split).
    #[cfg(test)]
    pub(crate) fn share_every_batch(mut self) -> Self {
        self.batch.min_shared = 0;
        self
    }

    /// The number of threads drawing.
    pub fn threads(&self) -> u32 {
        self.pool
            .as_ref()
            .map_or(1, |p| p.current_num_threads() as u32)
    }

    /// Draws the waiting batch, if any.
    fn flush(&mut self) {
        if self.batch.is_empty() {
            return;
        }
        let Some(pool) = self.pool.clone() else {
            return;
        };
        let written = self.batch.run(
            &mut self.planes[0],
            &self.clut,
            &mut self.texcache,
            &pool,
            self.isa,
            &mut self.stats.fast_keys,
        );
        // Textures decoded for the batch saw memory before it: drop them where it drew.
        self.texcache.written(&written);
    }

    /// Adds a fast-path draw to the workers' batch; false when it must be drawn here.
    fn try_batch(&mut self, s: &Setup, cmd: &DrawCommand, written: &PageSet) -> bool {
        if !matches!(cmd.kind, PrimKind::Triangle | PrimKind::Sprite) {
            return false;
        }
        let sprite = (cmd.kind == PrimKind::Sprite).then(|| crate::raster::sprite(s, cmd));
        let Some(class) = crate::sw_fast::classify(s, cmd, sprite.as_ref()) else {
            return false;
        };
        if s.tex
            .as_ref()
            .is_some_and(|t| TexCache::texture_pages(t).intersects(written))
        {
            return false;
        }
        let joined = match self.batch.push(s, cmd, &class, sprite.as_ref()) {
            Ok(()) => true,
            Err(Refused::Alone) => false,
            Err(Refused::Flush) => {
                self.stats.batch_ends += 1;
                self.flush();
                self.batch.push(s, cmd, &class, sprite.as_ref()).is_ok()
            }
        };
        if !joined {
            self.stats.unsplit_draws += 1;
        }
        joined
    }

    /// The specialised paths in the target's baseline instruction set even where the processor
    /// has more (tests compare the two; the pixels are the same).
    pub fn baseline_isa(mut self) -> Self {
        self.isa = crate::sw_fast::Isa::Baseline;
        self
    }

    /// A renderer that draws everything through the general path (the reference the
    /// specialised paths are checked against; slower).
    pub fn general_only(scale: u32) -> Self {
        SoftwareRenderer {
            fast: false,
            ..Self::with_scale(scale)
        }
    }

    /// What was drawn so far, and how.
    pub fn stats(&self) -> SwStats {
        SwStats {
            tiles_decoded: self.texcache.tiles_decoded,
            shared_batches: self.batch.shared_runs,
            key_pixels: self
                .stats
                .key_pixels
                .iter()
                .zip(&self.batch.key_pixels)
                .map(|(a, b)| a + b)
                .collect(),
            ..self.stats.clone()
        }
    }

    /// The local memory (plane 0 at a render scale), after every draw so far.
    pub fn mem(&mut self) -> &LocalMemory {
        self.flush();
        &self.planes[0]
    }

    /// The local memory, writable (plane 0). Decoded textures are dropped: the caller may
    /// change any of it.
    pub fn mem_mut(&mut self) -> &mut LocalMemory {
        self.flush();
        self.texcache.written(&PageSet::all());
        &mut self.planes[0]
    }

    /// Every plane (one at scale 1; see the type's text). Decoded textures are dropped, as by
    /// [`SoftwareRenderer::mem_mut`].
    pub fn planes_mut(&mut self) -> &mut [LocalMemory] {
        self.flush();
        self.texcache.written(&PageSet::all());
        &mut self.planes
    }

    /// The render scale.
    pub fn scale(&self) -> u32 {
        self.scale
    }

    /// Replaces the CLUT buffer (a GPU renderer drawing one primitive here).
    pub fn set_clut(&mut self, halfwords: &[u16; 512]) {
        self.clut.set(halfwords);
        self.texcache.clut_loaded();
    }

    /// The CLUT buffer (see the field's layout).
    pub fn clut(&self) -> &[u16; 512] {
        self.clut.halfwords()
    }

    // ---- texture ----

    fn texel(&self, t: &TexState, plane: usize, level: usize, x: i32, y: i32) -> [i32; 4] {
        let raw =
            self.planes[plane].read_pixel(t.psm, x as u32, y as u32, t.bp[level], t.bw[level]);
        crate::texel::decode(raw, t.psm, t.texa, &self.clut, t.cpsm, t.csa)
    }

    fn wrapped_texel(&self, t: &TexState, p: usize, level: usize, x: i32, y: i32) -> [i32; 4] {
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
        self.texel(t, p, level, x, y)
    }

    fn sample_level(
        &self,
        t: &TexState,
        p: usize,
        level: usize,
        u: i32,
        v: i32,
        linear: bool,
    ) -> [i32; 4] {
        let (u, v) = (u >> level, v >> level);
        if !linear {
            return self.wrapped_texel(t, p, level, u >> 4, v >> 4);
        }
        // Bilinear: texel centres are at +0.5; weights in sixteenths.
        let (u, v) = (u - 8, v - 8);
        let (x0, y0, fx, fy) = (u >> 4, v >> 4, u & 15, v & 15);
        let c00 = self.wrapped_texel(t, p, level, x0, y0);
        let c10 = self.wrapped_texel(t, p, level, x0 + 1, y0);
        let c01 = self.wrapped_texel(t, p, level, x0, y0 + 1);
        let c11 = self.wrapped_texel(t, p, level, x0 + 1, y0 + 1);
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

    fn sample(&self, t: &TexState, p: usize, u: i32, v: i32, log2q: i32) -> [i32; 4] {
        let t1 = t.tex1;
        // Without mipmapping and with one filter either way, the LOD does not matter.
        if t1.mmin() <= 1 && t1.mmag() == t1.mmin() {
            return self.sample_level(t, p, 0, u, v, t1.mmag() != 0);
        }
        // LOD in sixteenths: K when LCM = 1, else log2(1/|Q|) * 2^L + K, with log2 taken from
        // the float's exponent and top mantissa bits (a linear approximation).
        let lod = if t1.lcm() != 0 {
            t1.k_signed()
        } else {
            (-log2q << t1.l()) + t1.k_signed()
        };
        if lod <= 0 {
            return self.sample_level(t, p, 0, u, v, t1.mmag() & 1 != 0);
        }
        let mxl = t1.mxl().min(6) as i32;
        match t1.mmin() {
            0 => self.sample_level(t, p, 0, u, v, false),
            1 => self.sample_level(t, p, 0, u, v, true),
            m @ (2 | 4) => {
                let level = ((lod + 8) >> 4).min(mxl) as usize;
                self.sample_level(t, p, level, u, v, m == 4)
            }
            m @ (3 | 5) => {
                let l0 = (lod >> 4).min(mxl) as usize;
                let l1 = ((lod >> 4) + 1).min(mxl) as usize;
                let f = lod & 15;
                let a = self.sample_level(t, p, l0, u, v, m == 5);
                let b = self.sample_level(t, p, l1, u, v, m == 5);
                let mut out = [0; 4];
                for i in 0..4 {
                    out[i] = (a[i] * (16 - f) + b[i] * f) >> 4;
                }
                out
            }
            // MMIN 6 and 7 are undefined: nearest.
            _ => self.sample_level(t, p, 0, u, v, false),
        }
    }

    // ---- the pixel pipeline ----

    /// The pipeline for pixel (x, y) of plane `plane`, texels from plane `tex`.
    fn pixel(&mut self, s: &Setup, x: i32, y: i32, fr: &Frag, plane: usize, tex: usize) {
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
            let tc = self.sample(t, tex, fr.u, fr.v, fr.log2q);
            c = tfx(t.tfx, t.tcc, tc, fr.rgba);
        }
        if let Some(fc) = s.fog {
            // C = (F * C + (255 - F) * FOGCOL) >> 8 for R, G, B.
            let fcol = [fc.fcr() as i32, fc.fcg() as i32, fc.fcb() as i32];
            for i in 0..3 {
                c[i] = (fr.f * c[i] + (255 - fr.f) * fcol[i]) >> 8;
            }
        }
        // AA1 without ABE: the alpha is the coverage, 1.0 inside (see crate::raster).
        if s.coverage_alpha {
            c[3] = 0x80;
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
                16 => self.planes[plane].read_at(s.fpsm, faddr),
                _ => self.planes[plane].read_word(faddr),
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
            pixel_address(s.zpsm, ux, uy, s.zbp, s.fbw)
        } else {
            0
        };
        if ztest {
            let zd = self.planes[plane].read_at(s.zpsm, zaddr);
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
                    self.planes[plane].write16_masked(faddr, v, keep);
                }
                _ => {
                    let v = out[0] as u32
                        | ((out[1] as u32) << 8)
                        | ((out[2] as u32) << 16)
                        | ((a as u32) << 24);
                    let fmt = if fbits == 24 { 0x00ff_ffff } else { u32::MAX };
                    let keep = !mask & fmt;
                    if keep == u32::MAX {
                        self.planes[plane].write_word(faddr, v);
                    } else {
                        self.planes[plane].write_masked(faddr, v, keep);
                    }
                }
            }
        }
        if z_write {
            self.planes[plane].write_at(s.zpsm, zaddr, z);
        }
    }

    // ---- primitives ----

    fn draw_sprite(&mut self, s: &Setup, cmd: &DrawCommand) {
        let sp = crate::raster::sprite(s, cmd);
        if self.solid_sprite(s, &sp.base, (sp.x0, sp.x1), (sp.y0, sp.y1)) {
            return;
        }
        // Every sample of a pixel takes the pixel's values (the native grid).
        for p in 0..self.planes.len() {
            let tex = if sp.one_to_one { p } else { 0 };
            for (j, py) in (sp.y0..sp.y1).enumerate() {
                for (i, px) in (sp.x0..sp.x1).enumerate() {
                    self.pixel(s, px as i32, py as i32, &sp.frag(i, j), p, tex);
                }
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
            && !s.coverage_alpha
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
    fn solid_store(
        &mut self,
        s: &Setup,
        m: &Solid,
        (x, y): (i64, i64),
        c: [i32; 4],
        z: u64,
        p: usize,
    ) {
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
            self.planes[p].write_word(faddr, colour);
        } else {
            self.planes[p].write_masked(faddr, colour, m.keep);
        }
        if !s.zmsk {
            let z = z.min(m.zmax) as u32;
            self.planes[p].write_pixel(s.zpsm, ux, uy, s.zbp, s.fbw, z);
        }
    }

    /// A [`Solid`] sprite: every pixel the same colour and Z. False (nothing drawn) for any
    /// other sprite.
    fn solid_sprite(
        &mut self,
        s: &Setup,
        base: &Frag,
        (x0, x1): (i64, i64),
        (y0, y1): (i64, i64),
    ) -> bool {
        let Some(m) = Self::solid_mode(s) else {
            return false;
        };
        for p in 0..self.planes.len() {
            for py in y0..y1 {
                for px in x0..x1 {
                    self.solid_store(s, &m, (px, py), base.rgba, base.z, p);
                }
            }
        }
        true
    }

    fn draw_triangle(&mut self, s: &Setup, cmd: &DrawCommand) {
        let solid = Self::solid_mode(s);
        let n = self.scale as i64;
        crate::raster::triangle(s, cmd, self.scale, |tri: &Triangle, span| {
            let mut sp = *span;
            let mut nm = sp.persp_n;
            let dn = tri.persp.map_or([0; 3], |p| p.dn);
            // Fine pixel X of row Y is sample (X % N, Y % N) of pixel (X / N, Y / N).
            let (y, j) = (sp.y.div_euclid(n), sp.y.rem_euclid(n));
            for fx in sp.lo..sp.hi {
                let fr = tri.frag(s, &sp, nm);
                let (x, i) = (fx.div_euclid(n), fx.rem_euclid(n));
                let p = (j * n + i) as usize;
                match &solid {
                    Some(m) => self.solid_store(s, m, (x, y), fr.rgba, fr.z, p),
                    None => self.pixel(s, x as i32, y as i32, &fr, p, 0),
                }
                if let Some(c) = &mut sp.col {
                    c.iter_mut().for_each(crate::raster::StepDiv::step);
                }
                if let Some(d) = &mut sp.z {
                    d.step();
                }
                if let Some(d) = &mut sp.f {
                    d.step();
                }
                if let Some(d) = &mut sp.uv {
                    d.iter_mut().for_each(crate::raster::StepDiv::step);
                }
                for (ni, d) in nm.iter_mut().zip(dn) {
                    *ni += d;
                }
            }
        });
    }

    fn draw_fragments(&mut self, s: &Setup, frags: &crate::raster::Fragments) {
        for p in 0..self.planes.len() {
            for (x, y, fr) in &frags.frags {
                self.pixel(s, *x, *y, fr, p, 0);
            }
        }
    }
}

/// Texture function (TEX0.TFX) of texel `t` and vertex colour `f`.
#[inline(always)]
pub(crate) fn tfx(mode: u32, tcc: bool, t: [i32; 4], f: [i32; 4]) -> [i32; 4] {
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

/// What [`SoftwareRenderer::solid_store`] needs of a primitive that always passes.
struct Solid {
    /// The frame bits written: FBMSK's zeros within the format's bits.
    keep: u32,
    /// The Z format's largest value (the incoming Z saturates to it).
    zmax: u64,
}

/// The pages a draw can write: its bounding box within the scissor
/// ([`crate::sw_batch::draw_bounds`]), in the frame's layout, and in the Z buffer's when Z is
/// written.
fn written_pages(s: &Setup, cmd: &DrawCommand) -> PageSet {
    crate::sw_batch::draw_bounds(s, cmd).map_or_else(PageSet::default, |(xs, ys)| {
        crate::sw_batch::target_pages(s, xs, ys)
    })
}

/// The pages a transfer rectangle covers.
fn rect_pages(r: &TransferRect) -> PageSet {
    let mut set = PageSet::default();
    if r.w > 0 && r.h > 0 {
        set.add_rect(
            r.psm,
            r.bp,
            r.bw,
            (r.x, r.x + r.w - 1),
            (r.y, r.y + r.h - 1),
        );
    }
    set
}

impl SoftwareRenderer {
    /// Draws `cmd` by the specialised paths when they take it (scale 1, a triangle or sprite
    /// whose texture is sampled at level 0 from a cacheable region and does not overlap the
    /// pages the draw writes). False when it drew nothing.
    fn draw_fast(&mut self, s: &Setup, cmd: &DrawCommand, written: &PageSet) -> bool {
        if !matches!(cmd.kind, PrimKind::Triangle | PrimKind::Sprite) {
            return false;
        }
        let sprite = (cmd.kind == PrimKind::Sprite).then(|| crate::raster::sprite(s, cmd));
        let Some(class) = crate::sw_fast::classify(s, cmd, sprite.as_ref()) else {
            return false;
        };
        if let Some(t) = &s.tex
            && TexCache::texture_pages(t).intersects(written)
        {
            // A draw sampling what it draws sees its own pixels in drawing order.
            return false;
        }
        let SoftwareRenderer {
            planes,
            clut,
            texcache,
            ..
        } = self;
        let texels = match (&s.tex, class.rect) {
            (Some(t), Some(r)) => Some(texcache.texels(&planes[0], clut, t, r)),
            _ => None,
        };
        let plan = Plan::new(s, &class, texels, self.isa);
        let Ok(mem) = <&mut Words>::try_from(planes[0].words_mut()) else {
            return false;
        };
        let pixels = match &sprite {
            Some(sp) => plan.sprite(mem, sp, crate::sw_fast::Band::ALL),
            None => match plan.triangle(mem, cmd, crate::sw_fast::Band::ALL) {
                Some(px) => px,
                None => return false,
            },
        };
        if let Some(n) = self.stats.key_pixels.get_mut(plan.key) {
            *n += pixels;
        }
        if let Some(n) = self.stats.fast_keys.get_mut(plan.key) {
            *n += 1;
        }
        true
    }
}

impl Renderer for SoftwareRenderer {
    fn draw(&mut self, cmd: &DrawCommand) {
        let s = Setup::new(cmd);
        let written = written_pages(&s, cmd);
        if self.pool.is_some() && self.fast && self.scale == 1 {
            if self.try_batch(&s, cmd, &written) {
                self.texcache.written(&written);
                return;
            }
            self.flush();
        }
        if !(self.fast && self.scale == 1 && self.draw_fast(&s, cmd, &written)) {
            self.stats.general_draws += 1;
            match cmd.kind {
                PrimKind::Sprite => self.draw_sprite(&s, cmd),
                PrimKind::Triangle => self.draw_triangle(&s, cmd),
                PrimKind::Line => self.draw_fragments(&s, &crate::raster::line(&s, cmd)),
                PrimKind::Point => self.draw_fragments(&s, &crate::raster::point(&s, cmd)),
            }
        }
        self.texcache.written(&written);
    }

    fn memory(&mut self, cmd: MemCommand) {
        self.flush();
        match cmd {
            MemCommand::HostToLocal { rect, start, data } => {
                for m in &mut self.planes {
                    m.write_transfer(&rect, start, &data);
                }
                self.texcache.written(&rect_pages(&rect));
            }
            MemCommand::LocalToLocal { src, dst, dir } => {
                for m in &mut self.planes {
                    m.copy_local(&src, &dst, dir);
                }
                self.texcache.written(&rect_pages(&dst));
            }
            MemCommand::LoadClut { tex0, texclut } => {
                self.clut.load(&self.planes[0], tex0, texclut);
                self.texcache.clut_loaded();
            }
            MemCommand::SetMemory(m) => {
                self.planes.fill(*m);
                self.texcache.written(&PageSet::all());
            }
            MemCommand::SetClut(c) => self.set_clut(&c),
            MemCommand::SetSamplePlanes(planes) => {
                if planes.len() + 1 == self.planes.len() {
                    for (p, m) in self.planes[1..].iter_mut().zip(planes) {
                        *p = m;
                    }
                    self.texcache.written(&PageSet::all());
                }
            }
            MemCommand::PowerOn => {
                self.planes.fill(LocalMemory::new());
                self.clut.clear();
                self.texcache.written(&PageSet::all());
                self.texcache.clut_loaded();
            }
        }
    }

    fn read_back(&mut self, rect: &TransferRect, start: u64, count: u64) -> Vec<u8> {
        self.flush();
        self.planes[0].read_transfer(rect, start, count)
    }

    fn read_sample_planes(&mut self) -> Vec<LocalMemory> {
        self.flush();
        self.planes[1..].to_vec()
    }

    fn read_memory(&mut self) -> Box<LocalMemory> {
        self.flush();
        Box::new(self.planes[0].clone())
    }

    fn read_clut(&mut self) -> Box<[u16; 512]> {
        self.flush();
        Box::new(*self.clut())
    }

    fn display(&mut self, cmd: &DisplayCommand) {
        self.flush();
        self.displayed = crate::pcrtc::scaled_picture(&self.planes, self.scale, cmd);
    }

    fn display_image(&mut self) -> Image {
        self.displayed.clone()
    }

    fn scale(&self) -> u32 {
        self.scale
    }

    fn report(&mut self) -> Option<String> {
        self.flush();
        let st = self.stats();
        let fast: u64 = st.fast_keys.iter().sum();
        let pixels: u64 = st.key_pixels.iter().sum();
        // The three pipelines that drew the most pixels.
        let mut keys: Vec<usize> = (0..st.key_pixels.len()).collect();
        keys.sort_by_key(|&k| std::cmp::Reverse(st.key_pixels[k]));
        let top: Vec<String> = keys
            .iter()
            .take(3)
            .filter(|&&k| st.key_pixels[k] > 0)
            .map(|&k| {
                format!(
                    "{} {:.0}%",
                    crate::sw_fast::key_name(k),
                    100.0 * st.key_pixels[k] as f64 / pixels.max(1) as f64
                )
            })
            .collect();
        Some(format!(
            "{fast} draws by the specialised paths ({pixels} pixels; most by {}), {} by the \
             general path; {} texture tiles decoded; {} threads: {} batches shared, {} ended by \
             a conflict, {} draws not split",
            top.join(", "),
            st.general_draws,
            st.tiles_decoded,
            self.threads(),
            st.shared_batches,
            st.batch_ends,
            st.unsplit_draws
        ))
    }
}
