//! Pixels [`W`] at a time: a row's pixels are gathered into a group (colour, Z and texel as
//! arrays of `W` lanes), and the arithmetic of a textured or blended pixel (bilinear
//! filtering, the texture function, blending, clamping, packing) is done on the arrays, lane
//! by lane in loops the compiler turns into vector instructions. Texels are fetched by AVX2
//! gathers in x86-64-v3 (super::Isa), one by one otherwise. Memory is read (Z, the
//! destination) for the whole group before any pixel of it is written, and written pixel by
//! pixel in order (one load a lane: measured faster than a gather, which waits for the
//! previous group's stores).
//!
//! That order equals one pixel after another only when no pixel of a group reads what another
//! writes: the pixels of a row have distinct frame addresses and distinct Z addresses, a
//! texture never overlaps the pages a fast draw writes (crate::sw's feedback check), and the
//! frame and the Z buffer must not share a page ([`Plan::groups`]). Groups take the keys
//! without the rarer stages (`EXTRA`: fog, an alpha test that can fail, DATE, dither, PABE)
//! and frames of 32 and 24 bits; everything else goes one pixel at a time. The random scenes
//! of sw_fast_tests.rs check both against the general path.
//!
//! Sprites go by groups in every instruction set. A triangle's interpolants are kept across
//! a group's pixels ([`Attr`], exact quotients and remainders stepped a group at a time by
//! [`GroupSteps`]); its spans go by groups when textured and in x86-64-v3 (measured with
//! gs_bench: faster there, slower for untextured keys; on the SSE2 baseline groups were
//! slower, a 32-bit multiply of four lanes taking several instructions there).

use super::{
    Axis, BLEND, Isa, LANE_U, LANE_V, LANE_Z, Lanes, Mem, Plan, Row, TEX_LINEAR, TEX_UNIT, TexView,
    ZTEST, ZWRITE, bilerp,
};
use crate::mem::MEM_WORDS;
use crate::raster::persp_coord;
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
    /// The texels at indices `idx` (row << w_log plus column), each in bounds or 0
    /// ([`TexView::at`]): one gather where the lanes are eight wide.
    #[inline(always)]
    fn fetch(&self, isa: Isa, idx: &Lane<i32>) -> Lane<u32> {
        #[cfg(target_arch = "x86_64")]
        if isa == Isa::X86V3 {
            // Allowed: gather needs only AVX2, which an X86V3 plan's processor has (Isa::detect).
            #[allow(unsafe_code)]
            return unsafe { super::v3::gather(self.texels, idx) };
        }
        let _ = isa;
        let mut out = [0; W];
        for k in 0..W {
            out[k] = self.at(0, idx[k]);
        }
        out
    }

    /// [`TexView::nearest`] of each lane's (u, v).
    #[inline(always)]
    fn nearest_lanes(&self, isa: Isa, u: &Lane<i32>, v: &Lane<i32>, out: &mut Lane<u32>) {
        let mut idx = [0i32; W];
        for k in 0..W {
            idx[k] = (self.wrap_v.apply(v[k] >> 4) << self.w_log) + self.wrap_u.apply(u[k] >> 4);
        }
        *out = self.fetch(isa, &idx);
    }

    /// [`TexView::bilinear`] of each lane's (u, v): the four texels of every lane fetched by
    /// [`TexView::fetch`] (gathers in x86-64-v3), the filter on all lanes.
    #[inline(always)]
    fn bilinear_lanes(&self, isa: Isa, u: &Lane<i32>, v: &Lane<i32>, out: &mut Lane<u32>) {
        // The coordinates, weights and wrapped rows and columns lane by lane, then the
        // fetches (each in bounds or 0, TexView::at), then the filter.
        let (mut xa, mut xb, mut ra, mut rb) = ([0i32; W], [0i32; W], [0i32; W], [0i32; W]);
        let (mut fx, mut fy) = ([0; W], [0; W]);
        for k in 0..W {
            let (u, v) = (u[k] - 8, v[k] - 8);
            let (x0, y0) = (u >> 4, v >> 4);
            xa[k] = self.wrap_u.apply(x0);
            xb[k] = self.wrap_u.apply(x0 + 1);
            ra[k] = self.wrap_v.apply(y0) << self.w_log;
            rb[k] = self.wrap_v.apply(y0 + 1) << self.w_log;
            fx[k] = (u & 15) as u32;
            fy[k] = (v & 15) as u32;
        }
        let (mut i00, mut i10, mut i01, mut i11) = ([0i32; W], [0i32; W], [0i32; W], [0i32; W]);
        for k in 0..W {
            i00[k] = ra[k] + xa[k];
            i10[k] = ra[k] + xb[k];
            i01[k] = rb[k] + xa[k];
            i11[k] = rb[k] + xb[k];
        }
        let (c00, c10) = (self.fetch(isa, &i00), self.fetch(isa, &i10));
        let (c01, c11) = (self.fetch(isa, &i01), self.fetch(isa, &i11));
        for k in 0..W {
            out[k] = bilerp(c00[k], c10[k], c01[k], c11[k], fx[k], fy[k]);
        }
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
        // Addresses and reads for every lane (reading memory has no effect; lanes past `n`
        // are never stored), so that the loops have a fixed length.
        let zaddr: Lane<u32> = if K & (ZTEST | ZWRITE) != 0 {
            zrow.addresses::<W>(g.x0)
        } else {
            [0; W]
        };
        let mut pass = [true; W];
        if K & ZTEST != 0 {
            let ztst = s.test.ztst();
            let mut zd = [0u32; W];
            for k in 0..W {
                zd[k] = self.load_z(mem, zaddr[k]);
            }
            for k in 0..W {
                pass[k] = match ztst {
                    0 => false,
                    2 => g.z[k] >= zd[k],
                    _ => g.z[k] > zd[k],
                };
            }
        }
        let faddr: Lane<u32> = frow.addresses::<W>(g.x0);
        let mut out = [c[0], c[1], c[2]];
        if K & BLEND != 0 {
            // One load a lane: measured faster than an AVX2 gather here (the previous group's
            // stores are still in flight).
            let mut dst = [0u32; W];
            for k in 0..W {
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

/// The steps of a triangle's interpolants across a group, for each lane of [`Lanes`] (the
/// attribute `a`): `k` pixels right as an exact quotient and remainder (`mq[a][k]`,
/// `mr[a][k]`, the remainder below the divisor), and `W` pixels right (`wq[a]`, `wr[a]`). The
/// same for every span of the triangle.
pub(super) struct GroupSteps {
    mq: [Lane<i32>; 8],
    mr: [Lane<i32>; 8],
    wq: [i32; 8],
    wr: [i32; 8],
}

impl GroupSteps {
    /// The steps of `l`'s one-pixel steps, over divisor `den`: every lane stepped at once,
    /// pixel by pixel. (A function of its own: inlined, it made the bilinear triangle
    /// functions slower, 96 -> 42 Mpixels/s in gs_bench.)
    #[inline(never)]
    pub(super) fn new(l: &Lanes, den: i32) -> GroupSteps {
        let mut st = GroupSteps {
            mq: [[0; W]; 8],
            mr: [[0; W]; 8],
            wq: [0; 8],
            wr: [0; 8],
        };
        let (mut q, mut r) = ([0i32; 8], [0i32; 8]);
        for k in 0..W {
            for a in 0..8 {
                st.mq[a][k] = q[a];
                st.mr[a][k] = r[a];
            }
            for a in 0..8 {
                // Both below `den` < 2^29: one carry at most, no overflow.
                let s = r[a] + l.dr[a];
                let carry = -((s >= den) as i32);
                r[a] = s - (den & carry);
                q[a] = q[a].wrapping_add(l.dq[a]).wrapping_sub(carry);
            }
        }
        st.wq = q;
        st.wr = r;
        st
    }
}

/// One interpolant across a group: pixel `k`'s exact quotient and remainder.
#[derive(Clone, Copy)]
struct Attr {
    q: Lane<i32>,
    r: Lane<i32>,
}

impl Attr {
    /// Lane `a` of a span's start (`l`) and the `k`-pixel steps: `floor((N + k dN) / den)`
    /// for each pixel, one carry at most as both remainders are below `den`.
    #[inline(always)]
    fn at(l: &Lanes, a: usize, st: &GroupSteps, den: i32) -> Attr {
        let mut out = Attr {
            q: [0; W],
            r: [0; W],
        };
        for k in 0..W {
            let s = l.r[a] + st.mr[a][k];
            let carry = -((s >= den) as i32);
            out.r[k] = s - (den & carry);
            out.q[k] = l.q[a].wrapping_add(st.mq[a][k]).wrapping_sub(carry);
        }
        out
    }

    /// Every pixel `W` to the right (lane `a`'s steps).
    #[inline(always)]
    fn step(&mut self, a: usize, st: &GroupSteps, den: i32) {
        for k in 0..W {
            let s = self.r[k] + st.wr[a];
            let carry = -((s >= den) as i32);
            self.r[k] = s - (den & carry);
            self.q[k] = self.q[k].wrapping_add(st.wq[a]).wrapping_sub(carry);
        }
    }
}

/// A triangle's span a group at a time (key `K` without `EXTRA`):
/// each interpolant it needs kept across the group's pixels ([`Attr`]) and stepped a group
/// at a time by `steps` (the triangle's [`GroupSteps`]).
#[inline(always)]
pub(super) fn span_groups<const K: usize, M: Mem>(
    p: &Plan,
    mem: &mut M,
    flat: [i32; 4],
    gouraud: bool,
    row: &Row,
    steps: &GroupSteps,
) {
    let y = row.y as u32;
    if p.row_masked(y) {
        return;
    }
    let (frow, zrow) = (p.fb.row(y), p.z.row(y));
    let (l, den) = (&row.lanes, row.den);
    let textured = K / TEX_UNIT != 0 && p.tex.is_some();
    let zbuf = K & (ZTEST | ZWRITE) != 0;
    // (Loops rather than array maps: the maps' closures were not inlined into the x86-64-v3
    // copy of this function.)
    let zero = Attr {
        q: [0; W],
        r: [0; W],
    };
    let mut colour = [zero; 4];
    if gouraud {
        for (a, c) in colour.iter_mut().enumerate() {
            *c = Attr::at(l, a, steps, den);
        }
    }
    let (mut u, mut v) = (zero, zero);
    // Perspective coordinates: the S, T and Q numerators, stepped a pixel at a time.
    let persp = row.persp.filter(|_| textured);
    let mut nums = row.n;
    if textured && persp.is_none() {
        u = Attr::at(l, LANE_U, steps, den);
        v = Attr::at(l, LANE_V, steps, den);
    }
    let mut z = zero;
    if zbuf {
        z = Attr::at(l, LANE_Z, steps, den);
    }
    // Z saturates to the format's largest value (at most 2^32 - 1).
    let zmax = p.zmax.min(u32::MAX as u64) as u32;
    let mut flat_lanes = [[0; W]; 4];
    for (f, &c) in flat_lanes.iter_mut().zip(&flat) {
        *f = [c; W];
    }
    let mut x = row.lo;
    while x < row.hi {
        let n = ((row.hi - x) as usize).min(W);
        let mut g = Group::new(x as u32, n);
        if gouraud {
            for (ch, a) in g.rgba.iter_mut().zip(&colour) {
                for (c, q) in ch.iter_mut().zip(&a.q) {
                    *c = (*q).clamp(0, 255);
                }
            }
        } else {
            g.rgba = flat_lanes;
        }
        if zbuf {
            for k in 0..W {
                g.z[k] = (z.q[k] as u32).min(zmax);
            }
        }
        if let Some(pp) = &persp {
            for k in 0..W {
                u.q[k] = persp_coord(nums[0], nums[2], pp.sh_s);
                v.q[k] = persp_coord(nums[1], nums[2], pp.sh_t);
                for (n, d) in nums.iter_mut().zip(pp.dn) {
                    *n += d;
                }
            }
        }
        if let Some(t) = &p.tex
            && textured
        {
            if K / TEX_UNIT == TEX_LINEAR {
                t.bilinear_lanes(p.isa, &u.q, &v.q, &mut g.texel);
            } else {
                t.nearest_lanes(p.isa, &u.q, &v.q, &mut g.texel);
            }
        }
        p.shade_group::<K, M>(mem, &frow, &zrow, &g);
        x += n as i64;
        if x < row.hi {
            if gouraud {
                for (a, c) in colour.iter_mut().enumerate() {
                    c.step(a, steps, den);
                }
            }
            if textured && persp.is_none() {
                u.step(LANE_U, steps, den);
                v.step(LANE_V, steps, den);
            }
            if zbuf {
                z.step(LANE_Z, steps, den);
            }
        }
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
                // Texel indices (wrapped row << w_log plus wrapped column, both below 2^22),
                // fetched as TexView::at does, by gathers where the ISA has them.
                let ra = ra as i32;
                let (mut ia, mut ib) = ([0i32; W], [0i32; W]);
                for k in 0..W {
                    ia[k] = ra + ca[k];
                    ib[k] = ra + cb[k];
                }
                if linear {
                    let rb = rows.b[j];
                    let mut fx = [0u32; W];
                    for (k, f) in fx.iter_mut().enumerate() {
                        *f = cols.f.get(i + k).copied().unwrap_or(0);
                    }
                    let (mut ja, mut jb) = ([0i32; W], [0i32; W]);
                    for k in 0..W {
                        ja[k] = rb + ca[k];
                        jb[k] = rb + cb[k];
                    }
                    let (c00, c10) = (t.fetch(p.isa, &ia), t.fetch(p.isa, &ib));
                    let (c01, c11) = (t.fetch(p.isa, &ja), t.fetch(p.isa, &jb));
                    let fy = rows.f[j];
                    for k in 0..W {
                        g.texel[k] = bilerp(c00[k], c10[k], c01[k], c11[k], fx[k], fy);
                    }
                } else {
                    g.texel = t.fetch(p.isa, &ia);
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

#[cfg(test)]
mod tests {
    use super::{Attr, GroupSteps, Lanes, W};

    /// A group's interpolants, made from a span's start and stepped a group at a time, are
    /// `floor((N + x dN) / den)` at every pixel `x`: random numerators, steps of both signs
    /// and divisors from 1 (where a remainder meets the divisor exactly at many pixels) to
    /// the walker's largest.
    #[test]
    fn group_steps_equal_exact_division() {
        let mut rng = crate::scenes::Rng(0x9e37_79b9_7f4a_7c15);
        let mut next = move || rng.next_u64();
        for case in 0..2000 {
            let den: i64 = match case % 4 {
                0 => 1 + (next() % 8) as i64,
                1 => 1 + (next() % 300) as i64,
                2 => 1 + (next() % (1 << 20)) as i64,
                _ => (1 << 29) - 1 - (next() % 1000) as i64,
            };
            let mut lanes = Lanes::default();
            let mut n0 = [0i64; 8];
            let mut dn = [0i64; 8];
            for a in 0..8 {
                // Values that stay within i32 over the span (as the walker's do).
                let q = (next() % 4096) as i64 - 2048;
                n0[a] = q * den + (next() % den as u64) as i64;
                dn[a] = ((next() % 64) as i64 - 32) * den / 7 + (next() % 17) as i64 - 8;
                lanes.q[a] = n0[a].div_euclid(den) as i32;
                lanes.r[a] = n0[a].rem_euclid(den) as i32;
                lanes.dq[a] = dn[a].div_euclid(den) as i32;
                lanes.dr[a] = dn[a].rem_euclid(den) as i32;
            }
            let steps = GroupSteps::new(&lanes, den as i32);
            for a in 0..8 {
                let mut g = Attr::at(&lanes, a, &steps, den as i32);
                for group in 0..5 {
                    for k in 0..W {
                        let x = (group * W + k) as i64;
                        let n = n0[a] + x * dn[a];
                        assert_eq!(
                            (g.q[k], g.r[k]),
                            (n.div_euclid(den) as i32, n.rem_euclid(den) as i32),
                            "case {case}, lane {a}, pixel {x}, den {den}"
                        );
                    }
                    g.step(a, &steps, den as i32);
                }
            }
        }
    }
}
