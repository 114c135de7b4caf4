//! Pixels [`W`] at a time: a row's pixels are gathered into a group (colour, Z and texel as
//! arrays of `W` lanes; the texels fetched one by one), and the arithmetic of a textured or
//! blended pixel (bilinear filtering, the texture function, blending, clamping, packing) is
//! done on the arrays, lane by lane in loops the compiler turns into vector instructions.
//! Memory is read (Z, the destination) for the whole group before any pixel of it is written,
//! and written pixel by pixel in order.
//!
//! That order equals one pixel after another only when no pixel of a group reads what another
//! writes: the pixels of a row have distinct frame addresses and distinct Z addresses, a
//! texture never overlaps the pages a fast draw writes (crate::sw's feedback check), and the
//! frame and the Z buffer must not share a page ([`Plan::groups`]). Groups take the keys
//! without the rarer stages (`EXTRA`: fog, an alpha test that can fail, DATE, dither, PABE)
//! and frames of 32 and 24 bits; everything else goes one pixel at a time. The random scenes
//! of sw_fast_tests.rs check both against the general path.
//!
//! Sprites go by groups in every instruction set. Triangles (whose interpolants must be
//! gathered into the lanes first) go by groups only when bilinear and in x86-64-v3
//! (super::Isa): measured with gs_bench, groups were slower for them on the SSE2 baseline
//! (bilinear blended triangles 35 against 41 Mpixels/s, a 32-bit multiply of four lanes
//! taking several instructions there) and for the cheaper keys, and faster for bilinear ones
//! with eight-lane AVX2 (47 against 44).

use super::{
    Axis, BLEND, LANE_U, LANE_V, LANE_Z, Lanes, Mem, Plan, Row, TEX_LINEAR, TEX_UNIT, TexView,
    ZTEST, ZWRITE, bilerp,
};
use crate::mem::MEM_WORDS;
use crate::swizzle::RowOffsets;

/// Pixels in a group.
pub(super) const W: usize = 8;

/// One value per pixel of a group.
type Lane<T> = [T; W];

/// A group of up to [`W`] pixels of one row, from column `x0`: the colour before texturing
/// (each channel 0..=255), Z (already saturated to the Z format) and the texel (packed).
pub(super) struct Group {
    /// Pixels in the group (1..=W); lanes past them hold zeros and are not stored.
    pub n: usize,
    pub x0: u32,
    pub rgba: [Lane<i32>; 4],
    pub z: Lane<u32>,
    pub texel: Lane<u32>,
}

impl Group {
    fn new(x0: u32, n: usize) -> Group {
        Group {
            n,
            x0,
            rgba: [[0; W]; 4],
            z: [0; W],
            texel: [0; W],
        }
    }
}

/// The channels of packed colours (R bits 0-7 .. A bits 24-31).
#[inline(always)]
fn channels(c: &Lane<u32>) -> [Lane<i32>; 4] {
    let mut out = [[0; W]; 4];
    for (ch, o) in out.iter_mut().enumerate() {
        for k in 0..W {
            o[k] = ((c[k] >> (8 * ch)) & 0xff) as i32;
        }
    }
    out
}

/// TEX0.TFX of texels `t` and vertex colours `f`, lane by lane (crate::sw::tfx).
#[inline(always)]
fn tfx(mode: u32, tcc: bool, t: &[Lane<i32>; 4], f: &[Lane<i32>; 4]) -> [Lane<i32>; 4] {
    let mut c = [[0; W]; 4];
    match mode {
        // MODULATE: C = Ct * Cf >> 7; A = At * Af >> 7 (TCC) or Af.
        0 => {
            for i in 0..4 {
                for k in 0..W {
                    c[i][k] = ((t[i][k] * f[i][k]) >> 7).min(255);
                }
            }
            if !tcc {
                c[3] = f[3];
            }
        }
        // DECAL: C = Ct; A = At or Af.
        1 => {
            c = *t;
            if !tcc {
                c[3] = f[3];
            }
        }
        // HIGHLIGHT and HIGHLIGHT2: C = (Ct * Cf >> 7) + Af; A = At + Af or At, or Af.
        _ => {
            for i in 0..3 {
                for k in 0..W {
                    c[i][k] = (((t[i][k] * f[i][k]) >> 7) + f[3][k]).min(255);
                }
            }
            c[3] = match (mode, tcc) {
                (2, true) => std::array::from_fn(|k| (t[3][k] + f[3][k]).min(255)),
                (_, true) => t[3],
                (_, false) => f[3],
            };
        }
    }
    c
}

impl TexView<'_> {
    /// [`TexView::bilinear`] of each lane's (u, v): the texels fetched one lane at a time, the
    /// filter on all lanes.
    #[inline(always)]
    fn bilinear_lanes(&self, u: &Lane<i32>, v: &Lane<i32>) -> Lane<u32> {
        let (mut c00, mut c10, mut c01, mut c11) = ([0; W], [0; W], [0; W], [0; W]);
        let (mut fx, mut fy) = ([0; W], [0; W]);
        for k in 0..W {
            let (u, v) = (u[k] - 8, v[k] - 8);
            let (x0, y0) = (u >> 4, v >> 4);
            let (xa, xb) = (self.wrap_u.apply(x0), self.wrap_u.apply(x0 + 1));
            let ra = (self.wrap_v.apply(y0) as usize) << self.w_log;
            let rb = (self.wrap_v.apply(y0 + 1) as usize) << self.w_log;
            c00[k] = self.at(ra, xa);
            c10[k] = self.at(ra, xb);
            c01[k] = self.at(rb, xa);
            c11[k] = self.at(rb, xb);
            fx[k] = (u & 15) as u32;
            fy[k] = (v & 15) as u32;
        }
        std::array::from_fn(|k| bilerp(c00[k], c10[k], c01[k], c11[k], fx[k], fy[k]))
    }
}

impl Plan<'_> {
    /// The pixel pipeline of `super::shade` for a group (key `K` without `EXTRA`, a 32- or
    /// 24-bit frame).
    #[inline(always)]
    pub(super) fn shade_group<const K: usize, M: Mem>(
        &self,
        mem: &mut M,
        frow: &RowOffsets,
        zrow: &RowOffsets,
        g: &Group,
    ) {
        let s = self.s;
        let n = g.n;
        let c = if K / TEX_UNIT != 0 {
            tfx(self.tfx, self.tcc, &channels(&g.texel), &g.rgba)
        } else {
            g.rgba
        };
        let mut zaddr = [0u32; W];
        if K & (ZTEST | ZWRITE) != 0 {
            for (k, a) in zaddr.iter_mut().enumerate().take(n) {
                *a = zrow.address(g.x0 + k as u32);
            }
        }
        let mut pass = [true; W];
        if K & ZTEST != 0 {
            let ztst = s.test.ztst();
            for k in 0..n {
                let zd = self.load_z(mem, zaddr[k]);
                pass[k] = match ztst {
                    0 => false,
                    2 => g.z[k] >= zd,
                    _ => g.z[k] > zd,
                };
            }
        }
        let mut faddr = [0u32; W];
        for (k, a) in faddr.iter_mut().enumerate().take(n) {
            *a = frow.address(g.x0 + k as u32);
        }
        let mut out = [c[0], c[1], c[2]];
        if K & BLEND != 0 {
            let mut dst = [0u32; W];
            for k in 0..n {
                dst[k] = mem.word(faddr[k] as usize & (MEM_WORDS - 1));
            }
            let mut d = channels(&dst);
            if self.fbits == 24 {
                d[3] = [0x80; W];
            }
            if self.alpha_over {
                // The usual (Cs - Cd) * As >> 7 + Cd.
                for i in 0..3 {
                    for k in 0..W {
                        out[i][k] = (((c[i][k] - d[i][k]) * c[3][k]) >> 7) + d[i][k];
                    }
                }
            } else {
                let al = s.alpha;
                let cf = match al.c() {
                    0 => c[3],
                    1 => d[3],
                    _ => [al.fix() as i32; W],
                };
                let zero = [[0; W]; 3];
                let pick = |sel: u32| match sel {
                    0 => [c[0], c[1], c[2]],
                    1 => [d[0], d[1], d[2]],
                    _ => zero,
                };
                let (a, b, dd) = (pick(al.a()), pick(al.b()), pick(al.d()));
                for i in 0..3 {
                    for k in 0..W {
                        // Cv = ((A - B) * C >> 7) + D, arithmetic shift.
                        out[i][k] = (((a[i][k] - b[i][k]) * cf[k]) >> 7) + dd[i][k];
                    }
                }
            }
        }
        let fba = if s.fba { 0x80 } else { 0 };
        let mut v = [0u32; W];
        for (k, v) in v.iter_mut().enumerate() {
            let ch = |o: i32| {
                // COLCLAMP 1 clamps to 0..255, 0 keeps the low 8 bits.
                if s.colclamp {
                    o.clamp(0, 255) as u32
                } else {
                    (o & 0xff) as u32
                }
            };
            let a = (c[3][k] & 0xff) as u32 | fba;
            *v = ch(out[0][k]) | ch(out[1][k]) << 8 | ch(out[2][k]) << 16 | a << 24;
        }
        for k in 0..n {
            if pass[k] {
                self.store_colour(mem, faddr[k], v[k]);
                if K & ZWRITE != 0 {
                    self.store_z(mem, zaddr[k], g.z[k]);
                }
            }
        }
    }

    /// True when draws of this plan may go a group at a time (see the module's text): a 32- or
    /// 24-bit frame, and a Z buffer that shares no page with the frame (their pages from the
    /// base to the scissor's last row, wherever Z is read or written).
    pub(super) fn groups(&self) -> bool {
        let s = self.s;
        if self.fbits == 16 || s.fbw == 0 {
            return false;
        }
        if !(s.test.zte() != 0 && s.test.ztst() != 1) && s.zmsk {
            return true;
        }
        // The blocks a buffer spans: whole rows of pages (FBW wide) down to the scissor's last
        // row, a page is 32 rows of a 32- or 24-bit layout, 64 of a 16-bit one, and 32 blocks;
        // one page more for a base inside a page.
        let rows = s.scissor.3.max(0) as u32 + 1;
        let extent = |base: u32, bits: u32| {
            let page_rows = if bits == 16 { 64 } else { 32 };
            let pages = s.fbw * rows.div_ceil(page_rows) + 1;
            (base, base + pages * 32)
        };
        let (f0, f1) = extent(s.fbp, self.fbits);
        let (z0, z1) = extent(s.zbp, s.zpsm.transfer_bits());
        // Within memory's 16384 blocks, without wrapping, and apart.
        f1 <= 16384 && z1 <= 16384 && (f1 <= z0 || z1 <= f0)
    }
}

/// A triangle's span a group at a time (key `K` without `EXTRA`, affine texture coordinates).
#[inline(always)]
pub(super) fn span_groups<const K: usize, M: Mem>(
    p: &Plan,
    mem: &mut M,
    flat: [i32; 4],
    gouraud: bool,
    row: &Row,
    frow: &RowOffsets,
    zrow: &RowOffsets,
) {
    let mut l: Lanes = row.lanes;
    let mut x = row.lo;
    while x < row.hi {
        let n = ((row.hi - x) as usize).min(W);
        let mut g = Group::new(x as u32, n);
        // The interpolants of each pixel, then each one's lanes.
        let mut q = [[0i32; 8]; W];
        for qk in q.iter_mut().take(n) {
            *qk = l.q;
            l.step(row.den);
        }
        for c in 0..4 {
            g.rgba[c] = if gouraud {
                std::array::from_fn(|k| q[k][c].clamp(0, 255))
            } else {
                [flat[c]; W]
            };
        }
        g.z = std::array::from_fn(|k| (q[k][LANE_Z] as u32 as u64).min(p.zmax) as u32);
        if let Some(t) = &p.tex
            && K / TEX_UNIT != 0
        {
            let u: Lane<i32> = std::array::from_fn(|k| q[k][LANE_U]);
            let v: Lane<i32> = std::array::from_fn(|k| q[k][LANE_V]);
            g.texel = if K / TEX_UNIT == TEX_LINEAR {
                t.bilinear_lanes(&u, &v)
            } else {
                std::array::from_fn(|k| t.nearest(u[k], v[k]))
            };
        }
        p.shade_group::<K, M>(mem, frow, zrow, &g);
        x += n as i64;
    }
}

/// Row `j` of a sprite (at `y`, columns `sp.x0..sp.x1`) a group at a time (key `K` without
/// `EXTRA`), its texels from the sprite's wrapped columns and rows (`axes`).
#[inline(always)]
pub(super) fn sprite_row_groups<const K: usize, M: Mem>(
    p: &Plan,
    mem: &mut M,
    sp: &crate::raster::Sprite,
    j: usize,
    axes: Option<&(Axis, Axis)>,
    frow: &RowOffsets,
    zrow: &RowOffsets,
) {
    let b = &sp.base;
    let linear = K / TEX_UNIT == TEX_LINEAR;
    let len = (sp.x1 - sp.x0).max(0) as usize;
    let rgba = b.rgba.map(|c| [c; W]);
    let z = [b.z.min(p.zmax) as u32; W];
    let mut g = Group::new(0, W);
    g.rgba = rgba;
    g.z = z;
    let mut i = 0;
    while i < len {
        let n = (len - i).min(W);
        g.x0 = (sp.x0 + i as i64) as u32;
        g.n = n;
        if let (Some((cols, rows)), Some(t)) = (axes, &p.tex)
            && K / TEX_UNIT != 0
        {
            let ra = rows.a[j] as usize;
            // A whole group: the texel rows and the group's columns as slices, each texel
            // read in bounds or as 0 (TexView::at), with no other check.
            let whole = (n == W)
                .then(|| {
                    let lanes =
                        |v: &[i32]| -> Option<[i32; W]> { v.get(i..i + W)?.try_into().ok() };
                    Some((lanes(&cols.a)?, lanes(&cols.b)?))
                })
                .flatten();
            if let Some((ca, cb)) = whole {
                let row = |r: usize| t.texels.get(r..).unwrap_or(&[]);
                let at = |row: &[u32], x: i32| row.get(x as usize).copied().unwrap_or(0);
                let row_a = row(ra);
                if linear {
                    let row_b = row(rows.b[j] as usize);
                    let fx: [u32; W] =
                        std::array::from_fn(|k| cols.f.get(i + k).copied().unwrap_or(0));
                    let c00: [u32; W] = std::array::from_fn(|k| at(row_a, ca[k]));
                    let c10: [u32; W] = std::array::from_fn(|k| at(row_a, cb[k]));
                    let c01: [u32; W] = std::array::from_fn(|k| at(row_b, ca[k]));
                    let c11: [u32; W] = std::array::from_fn(|k| at(row_b, cb[k]));
                    let fy = rows.f[j];
                    g.texel =
                        std::array::from_fn(|k| bilerp(c00[k], c10[k], c01[k], c11[k], fx[k], fy));
                } else {
                    g.texel = std::array::from_fn(|k| at(row_a, ca[k]));
                }
            } else if linear {
                let (rb, fy) = (rows.b[j] as usize, rows.f[j]);
                let (mut c00, mut c10, mut c01, mut c11, mut fx) =
                    ([0; W], [0; W], [0; W], [0; W], [0; W]);
                for k in 0..n {
                    let (xa, xb) = (cols.a[i + k], cols.b[i + k]);
                    c00[k] = t.at(ra, xa);
                    c10[k] = t.at(ra, xb);
                    c01[k] = t.at(rb, xa);
                    c11[k] = t.at(rb, xb);
                    fx[k] = cols.f[i + k];
                }
                g.texel =
                    std::array::from_fn(|k| bilerp(c00[k], c10[k], c01[k], c11[k], fx[k], fy));
            } else {
                for k in 0..n {
                    g.texel[k] = t.at(ra, cols.a[i + k]);
                }
            }
        }
        p.shade_group::<K, M>(mem, frow, zrow, &g);
        i += n;
    }
}
