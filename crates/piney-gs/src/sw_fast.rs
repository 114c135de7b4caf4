//! The software renderer's specialised pixel pipelines: the same per-pixel rules as
//! [`crate::sw`]'s general path, with every per-draw decision taken once.
//!
//! - A draw's state is classified into a key ([`Plan::key`]): texturing (none, nearest,
//!   bilinear), Z test, Z write, blending, and one bit for the rarer stages (fog, an alpha test
//!   that can fail, the destination alpha test, dither, PABE). Each key is its own
//!   monomorphised span function, so a key without a stage has no code for it.
//! - Frame and Z addresses come from [`crate::swizzle`]'s tables (one add and one table read a
//!   pixel); texels from [`crate::texcache`]'s decoded textures (a wrap and one read a texel;
//!   bilinear filtering in two 32-bit lanes of 16 bits).
//! - Draws this path does not take (lines, points, mipmapping, region wraps reaching outside
//!   the texture, a texture that overlaps the pages the draw writes, render scales above 1) go
//!   the general way. Both paths are checked against each other on random states and
//!   primitives (sw_tests.rs).

use crate::draw::DrawCommand;
use crate::mem::MEM_WORDS;
use crate::psm::Psm;
use crate::raster::{PixelState, Span, Sprite, TexState, Triangle, persp_coord};
use crate::regs::Dimx;
use crate::swizzle::{Offsets, RowOffsets};
use crate::texcache::TexelRect;
use crate::texel::wrap;

/// Local memory as the fast path takes it.
pub type Words = [u32; MEM_WORDS];

/// Key bits (see the module's text). Texturing is the key divided by [`TEX_UNIT`].
const ZTEST: usize = 1;
const ZWRITE: usize = 2;
const BLEND: usize = 4;
const EXTRA: usize = 8;
const TEX_UNIT: usize = 16;
const TEX_NEAREST: usize = 1;
const TEX_LINEAR: usize = 2;
/// Keys run from 0 to 47.
pub const KEYS: usize = 3 * TEX_UNIT;

/// Calls `$f::<K>` for the run-time key (0 .. [`KEYS`]).
macro_rules! dispatch {
    ($key:expr, $f:ident, $args:tt) => {
        dispatch!(@arms $key, $f, $args, [
            0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30
            31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47
        ])
    };
    (@arms $key:expr, $f:ident, $args:tt, [$($k:literal)*]) => {
        match $key {
            $($k => $f::<$k> $args,)*
            _ => unreachable!("fast-path keys run to {}", KEYS - 1),
        }
    };
}

/// How a fast draw samples its texture: level 0, decoded.
#[derive(Clone, Copy)]
pub struct TexView<'a> {
    /// `w * h` packed texels (R bits 0-7 .. A bits 24-31).
    texels: &'a [u32],
    w_log: u32,
    w: i32,
    h: i32,
    wms: u32,
    wmt: u32,
    minu: i32,
    maxu: i32,
    minv: i32,
    maxv: i32,
}

impl TexView<'_> {
    #[inline(always)]
    fn texel(&self, x: i32, y: i32) -> u32 {
        let x = wrap(x, self.w, self.wms, self.minu, self.maxu);
        let y = wrap(y, self.h, self.wmt, self.minv, self.maxv);
        self.texels
            .get(((y as usize) << self.w_log) + x as usize)
            .copied()
            .unwrap_or(0)
    }

    #[inline(always)]
    fn nearest(&self, u: i32, v: i32) -> u32 {
        self.texel(u >> 4, v >> 4)
    }

    /// Bilinear: texel centres at +0.5, weights in sixteenths; each channel
    /// `sum(c * w) >> 8` with the weights summing to 256, so a channel's sum stays below 2^16
    /// and R/B and G/A are filtered as two 16-bit lanes of one word.
    #[inline(always)]
    fn bilinear(&self, u: i32, v: i32) -> u32 {
        let (u, v) = (u - 8, v - 8);
        let (x0, y0, fx, fy) = (u >> 4, v >> 4, (u & 15) as u32, (v & 15) as u32);
        let c00 = self.texel(x0, y0);
        let c10 = self.texel(x0 + 1, y0);
        let c01 = self.texel(x0, y0 + 1);
        let c11 = self.texel(x0 + 1, y0 + 1);
        let w = [
            (16 - fx) * (16 - fy),
            fx * (16 - fy),
            (16 - fx) * fy,
            fx * fy,
        ];
        let lane = |m: u32, sh: u32| {
            ((((c00 >> sh) & m) * w[0]
                + ((c10 >> sh) & m) * w[1]
                + ((c01 >> sh) & m) * w[2]
                + ((c11 >> sh) & m) * w[3])
                >> 8)
                & m
        };
        lane(0x00ff_00ff, 0) | (lane(0x00ff_00ff, 8) << 8)
    }
}

/// A draw prepared for the fast path.
pub struct Plan<'a> {
    /// The specialisation (see the module's text).
    pub key: usize,
    s: &'a PixelState,
    fb: Offsets,
    fbits: u32,
    z: Offsets,
    zmax: u64,
    tex: Option<TexView<'a>>,
    /// TEX0.TFX and TEX0.TCC.
    tfx: u32,
    tcc: bool,
    /// The fog colour, when fogging.
    fog: Option<[i32; 3]>,
    dither: Option<Dimx>,
}

/// The per-draw facts [`Plan::new`] needs from the texture cache: the decoded texels.
pub struct Classified {
    /// The key without texturing.
    key: usize,
    /// Texturing: 0 none, [`TEX_NEAREST`], [`TEX_LINEAR`].
    tex: usize,
    /// The texel rectangle the draw can sample (when textured).
    pub rect: Option<TexelRect>,
}

/// Whether the fast path takes `cmd` (drawn at scale 1), and how: `None` for the general path.
pub fn classify(s: &PixelState, cmd: &DrawCommand, sprite: Option<&Sprite>) -> Option<Classified> {
    let t = s.test;
    let ztest = t.zte() != 0 && t.ztst() != 1;
    let alpha_can_fail = t.ate() != 0 && t.atst() != 1;
    let extra = s.fog.is_some()
        || alpha_can_fail
        || t.date() != 0
        || s.dither.is_some()
        || (s.blend && s.pabe);
    let key = (ztest as usize) * ZTEST
        + (!s.zmsk as usize) * ZWRITE
        + (s.blend as usize) * BLEND
        + (extra as usize) * EXTRA;
    let Some(tex) = &s.tex else {
        return Some(Classified {
            key,
            tex: 0,
            rect: None,
        });
    };
    let linear = level0_filter(tex)?;
    let (w, h) = (1i32 << tex.tw, 1i32 << tex.th);
    let c = tex.clamp;
    // Region wraps must stay inside the decoded texture.
    let inside = |mode: u32, min: u32, max: u32, size: i32| match mode {
        2 => (min.max(max) as i32) < size,
        3 => ((min | max) as i32) < size,
        _ => true,
    };
    if !inside(c.wms(), c.minu(), c.maxu(), w) || !inside(c.wmt(), c.minv(), c.maxv(), h) {
        return None;
    }
    // The range of U and V (sixteenths of a texel) the draw's pixels can take.
    let (ur, vr) = match (cmd.kind, sprite) {
        (_, Some(sp)) => (min_max(&sp.us), min_max(&sp.vs)),
        _ if s.fst => {
            let v = &cmd.vertices;
            (
                Some(min_max(&[v[0].u as i32, v[1].u as i32, v[2].u as i32])?),
                Some(min_max(&[v[0].v as i32, v[1].v as i32, v[2].v as i32])?),
            )
        }
        _ => crate::raster::persp_vertex_coords(s, cmd)
            .map_or((None, None), |(u, v)| (min_max(&u), min_max(&v))),
    };
    let span = |r: Option<(i32, i32)>, size: i32, mode: u32, min: u32, max: u32| {
        let full = (0, size as u32 - 1);
        let Some((lo, hi)) = r else {
            return full;
        };
        let (lo, hi) = if linear {
            ((lo - 8) >> 4, ((hi - 8) >> 4) + 1)
        } else {
            (lo >> 4, hi >> 4)
        };
        let (lo, hi) = (lo as i64, hi as i64);
        match mode {
            0 => {
                if hi - lo + 1 >= size as i64 {
                    return full;
                }
                let m = size as i64 - 1;
                let (a, b) = (lo & m, hi & m);
                if a <= b { (a as u32, b as u32) } else { full }
            }
            1 => (
                lo.clamp(0, size as i64 - 1) as u32,
                hi.clamp(0, size as i64 - 1) as u32,
            ),
            2 => {
                let (min, max) = (min as i64, min.max(max) as i64);
                (lo.clamp(min, max) as u32, hi.clamp(min, max) as u32)
            }
            // (c & MIN) | MAX lies between MAX and MIN | MAX.
            _ => (max, min | max),
        }
    };
    let (x0, x1) = span(ur, w, c.wms(), c.minu(), c.maxu());
    let (y0, y1) = span(vr, h, c.wmt(), c.minv(), c.maxv());
    Some(Classified {
        key,
        tex: if linear { TEX_LINEAR } else { TEX_NEAREST },
        rect: Some(TexelRect { x0, x1, y0, y1 }),
    })
}

/// The filter of a texture sampled at level 0 whatever the LOD (`Some(linear)`), or `None`
/// when the level or the filter depends on the LOD (the general path's sampler).
fn level0_filter(t: &TexState) -> Option<bool> {
    let t1 = t.tex1;
    if t1.mmin() <= 1 && t1.mmag() == t1.mmin() {
        return Some(t1.mmag() != 0);
    }
    // LCM 1: the LOD is K for every pixel.
    if t1.lcm() != 0 {
        let lod = t1.k_signed();
        if lod <= 0 {
            return Some(t1.mmag() & 1 != 0);
        }
        if t1.mmin() <= 1 {
            return Some(t1.mmin() == 1);
        }
    }
    None
}

fn min_max(v: &[i32]) -> Option<(i32, i32)> {
    Some((*v.iter().min()?, *v.iter().max()?))
}

impl<'a> Plan<'a> {
    /// The plan of a classified draw; `texels` the decoded level 0 when textured.
    pub fn new(s: &'a PixelState, c: &Classified, texels: Option<&'a [u32]>) -> Plan<'a> {
        let tex = s.tex.as_ref().zip(texels).map(|(t, texels)| {
            let cl = t.clamp;
            TexView {
                texels,
                w_log: t.tw,
                w: 1 << t.tw,
                h: 1 << t.th,
                wms: cl.wms(),
                wmt: cl.wmt(),
                minu: cl.minu() as i32,
                maxu: cl.maxu() as i32,
                minv: cl.minv() as i32,
                maxv: cl.maxv() as i32,
            }
        });
        let tex_mode = if tex.is_some() { c.tex } else { 0 };
        Plan {
            key: c.key + tex_mode * TEX_UNIT,
            s,
            fb: Offsets::new(s.fpsm, s.fbp, s.fbw),
            fbits: s.fpsm.transfer_bits(),
            z: Offsets::new(s.zpsm, s.zbp, s.fbw),
            zmax: s.zpsm.value_mask() as u64,
            tex,
            tfx: s.tex.as_ref().map_or(0, |t| t.tfx),
            tcc: s.tex.as_ref().is_some_and(|t| t.tcc),
            fog: s
                .fog
                .map(|fc| [fc.fcr() as i32, fc.fcg() as i32, fc.fcb() as i32]),
            dither: s.dither,
        }
    }

    /// Draws a sprite.
    pub fn sprite(&self, mem: &mut Words, sp: &Sprite) {
        dispatch!(self.key, sprite_k, (self, mem, sp));
    }

    /// Draws one span of a triangle.
    pub fn span(&self, mem: &mut Words, tri: &Triangle, sp: &Span) {
        dispatch!(self.key, span_k, (self, mem, tri, sp));
    }

    /// True when row `y` is masked out by SCANMSK (2: even rows, 3: odd rows).
    #[inline]
    fn row_masked(&self, y: u32) -> bool {
        let m = self.s.scanmsk;
        (m == 2 && y & 1 == 0) || (m == 3 && y & 1 == 1)
    }
}

fn sprite_k<const K: usize>(p: &Plan, mem: &mut Words, sp: &Sprite) {
    let b = &sp.base;
    for (j, y) in (sp.y0..sp.y1).enumerate() {
        let y = y as u32;
        if p.row_masked(y) {
            continue;
        }
        let (frow, zrow) = (p.fb.row(y), p.z.row(y));
        let v = sp.vs.get(j).copied().unwrap_or(0);
        for (i, x) in (sp.x0..sp.x1).enumerate() {
            let u = sp.us.get(i).copied().unwrap_or(0);
            shade::<K>(p, mem, x as u32, y, &frow, &zrow, b.rgba, b.z, b.f, u, v);
        }
    }
}

fn span_k<const K: usize>(p: &Plan, mem: &mut Words, tri: &Triangle, sp: &Span) {
    let y = sp.y as u32;
    if p.row_masked(y) {
        return;
    }
    let (frow, zrow) = (p.fb.row(y), p.z.row(y));
    let mut col = sp.col;
    let mut z = sp.z;
    let mut f = sp.f;
    let mut uv = sp.uv;
    let mut n = sp.persp_n;
    let persp = tri.persp.filter(|_| K / TEX_UNIT != 0 && uv.is_none());
    let dn = persp.map_or([0; 3], |p| p.dn);
    for x in sp.lo..sp.hi {
        let rgba = match &col {
            Some(c) => c.map(|d| d.q.clamp(0, 255) as i32),
            None => tri.flat,
        };
        let zv = z.map_or(0, |d| d.q.clamp(0, u32::MAX as i128) as u64);
        let fv = f.map_or(0, |d| d.q.clamp(0, 255) as i32);
        let (u, v) = match (&uv, &persp) {
            (Some([du, dv]), _) => (du.q as i32, dv.q as i32),
            (None, Some(pp)) => (
                persp_coord(n[0], n[2], pp.sh_s),
                persp_coord(n[1], n[2], pp.sh_t),
            ),
            _ => (0, 0),
        };
        shade::<K>(p, mem, x as u32, y, &frow, &zrow, rgba, zv, fv, u, v);
        if let Some(c) = &mut col {
            c.iter_mut().for_each(crate::raster::StepDiv::step);
        }
        if let Some(d) = &mut z {
            d.step();
        }
        if let Some(d) = &mut f {
            d.step();
        }
        if let Some(d) = &mut uv {
            d.iter_mut().for_each(crate::raster::StepDiv::step);
        }
        for (ni, d) in n.iter_mut().zip(dn) {
            *ni += d;
        }
    }
}

#[inline(always)]
fn read16(mem: &Words, half: u32) -> u32 {
    (mem[(half >> 1) as usize & (MEM_WORDS - 1)] >> ((half & 1) * 16)) & 0xffff
}

#[inline(always)]
fn write16_keep(mem: &mut Words, half: u32, value: u32, keep: u32) {
    let sh = (half & 1) * 16;
    let w = &mut mem[(half >> 1) as usize & (MEM_WORDS - 1)];
    let old = (*w >> sh) & 0xffff;
    let v = (old & keep) | (value & !keep & 0xffff);
    *w = (*w & !(0xffff << sh)) | (v << sh);
}

/// A Z buffer value (the Z formats, or the colour formats a Z buffer takes when the frame is
/// a Z format), as [`crate::mem::LocalMemory::read_at`] reads it.
#[inline(always)]
fn read_z(mem: &Words, psm: Psm, a: u32) -> u32 {
    match psm {
        Psm::Z16 | Psm::Z16s | Psm::Ct16 | Psm::Ct16s => read16(mem, a),
        Psm::Z24 | Psm::Ct24 => mem[a as usize & (MEM_WORDS - 1)] & 0x00ff_ffff,
        _ => mem[a as usize & (MEM_WORDS - 1)],
    }
}

/// Writes a Z value as [`crate::mem::LocalMemory::write_at`] does.
#[inline(always)]
fn write_z(mem: &mut Words, psm: Psm, a: u32, z: u32) {
    match psm {
        Psm::Z16 | Psm::Z16s | Psm::Ct16 | Psm::Ct16s => write16_keep(mem, a, z, 0),
        Psm::Z24 | Psm::Ct24 => {
            let w = &mut mem[a as usize & (MEM_WORDS - 1)];
            *w = (*w & 0xff00_0000) | (z & 0x00ff_ffff);
        }
        _ => mem[a as usize & (MEM_WORDS - 1)] = z,
    }
}

#[inline(always)]
fn unpack(c: u32) -> [i32; 4] {
    [
        (c & 0xff) as i32,
        ((c >> 8) & 0xff) as i32,
        ((c >> 16) & 0xff) as i32,
        (c >> 24) as i32,
    ]
}

/// The pixel pipeline of [`crate::sw`]'s general path for key `K`, at pixel (x, y) with the
/// interpolated colour, Z, fog and texel coordinates.
#[inline(always)]
fn shade<const K: usize>(
    p: &Plan,
    mem: &mut Words,
    x: u32,
    y: u32,
    frow: &RowOffsets,
    zrow: &RowOffsets,
    rgba: [i32; 4],
    z: u64,
    f: i32,
    u: i32,
    v: i32,
) {
    let s = p.s;
    let t = s.test;
    let mut c = rgba;
    if K / TEX_UNIT != 0
        && let Some(tv) = &p.tex
    {
        let tc = unpack(if K / TEX_UNIT == TEX_LINEAR {
            tv.bilinear(u, v)
        } else {
            tv.nearest(u, v)
        });
        c = crate::sw::tfx(p.tfx, p.tcc, tc, rgba);
    }
    let (mut fb_write, mut z_write, mut rgb_only) = (true, K & ZWRITE != 0, false);
    if K & EXTRA != 0 {
        if let Some(fcol) = p.fog {
            // C = (F * C + (255 - F) * FOGCOL) >> 8 for R, G, B.
            for i in 0..3 {
                c[i] = (f * c[i] + (255 - f) * fcol[i]) >> 8;
            }
        }
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
    }
    let date = K & EXTRA != 0 && t.date() != 0;
    let fbits = p.fbits;
    let faddr = frow.address(x);
    let dst = if date || (fb_write && K & BLEND != 0) {
        match fbits {
            16 => read16(mem, faddr),
            _ => mem[faddr as usize & (MEM_WORDS - 1)],
        }
    } else {
        0
    };
    if date {
        let abit = match fbits {
            16 => (dst >> 15) & 1,
            24 => 1,
            _ => (dst >> 31) & 1,
        };
        if abit != t.datm() {
            return;
        }
    }
    let zv = z.min(p.zmax) as u32;
    let zaddr = if K & (ZTEST | ZWRITE) != 0 {
        zrow.address(x)
    } else {
        0
    };
    if K & ZTEST != 0 {
        let zd = read_z(mem, s.zpsm, zaddr);
        let pass = match t.ztst() {
            0 => false,
            2 => zv >= zd,
            _ => zv > zd,
        };
        if !pass {
            return;
        }
    }
    if fb_write {
        let mut out = c;
        if K & BLEND != 0 && !(K & EXTRA != 0 && s.pabe && c[3] < 0x80) {
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
                _ => unpack(dst),
            };
            let al = s.alpha;
            let cf = match al.c() {
                0 => c[3],
                1 => d[3],
                _ => al.fix() as i32,
            };
            let pick = |sel: u32, i: usize| match sel {
                0 => c[i],
                1 => d[i],
                _ => 0,
            };
            for (i, o) in out.iter_mut().enumerate().take(3) {
                // Cv = ((A - B) * C >> 7) + D, arithmetic shift.
                *o = (((pick(al.a(), i) - pick(al.b(), i)) * cf) >> 7) + pick(al.d(), i);
            }
        }
        if K & EXTRA != 0
            && let Some(dm) = p.dither
        {
            let dv = dm.value(x, y);
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
                write16_keep(mem, faddr, v, keep);
            }
            _ => {
                let v = out[0] as u32
                    | ((out[1] as u32) << 8)
                    | ((out[2] as u32) << 16)
                    | ((a as u32) << 24);
                let fmt = if fbits == 24 { 0x00ff_ffff } else { u32::MAX };
                let write = !mask & fmt;
                let w = &mut mem[faddr as usize & (MEM_WORDS - 1)];
                *w = (*w & !write) | (v & write);
            }
        }
    }
    if z_write {
        write_z(mem, s.zpsm, zaddr, zv);
    }
}
