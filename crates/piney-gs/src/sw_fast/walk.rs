//! The specialised paths' triangle walker: a triangle's rows and spans at scale 1 exactly as
//! [`crate::raster::triangle`] makes them, its interpolants (colour, fog, texel coordinates, Z)
//! stepped from pixel to pixel and row to row as exact quotients and remainders ([`Lanes`])
//! instead of divided for every span.

use super::Band;
use crate::draw::DrawCommand;
use crate::raster::{PixelState, ceil_div};

/// The interpolants of a span, eight at a time in 32-bit lanes: R, G, B, A, fog, U, V, Z (Z's
/// lane read as a u32). Each lane is `floor(N / den)` kept as a quotient and a remainder and
/// stepped exactly as [`crate::raster::StepDiv`] steps it; at a covered pixel the quotient lies
/// between the vertices' values (the weights are non-negative and sum to `den`), so colour,
/// fog and texel coordinates fit, Z wraps modulo 2^32 to its true value, and the remainder,
/// below `den` < 2^29, never overflows.
#[derive(Clone, Copy, Debug, Default)]
pub struct Lanes {
    pub(super) q: [i32; 8],
    pub(super) r: [i32; 8],
    pub(super) dq: [i32; 8],
    pub(super) dr: [i32; 8],
}

pub(super) const LANE_FOG: usize = 4;
pub(super) const LANE_U: usize = 5;
pub(super) const LANE_V: usize = 6;
pub(super) const LANE_Z: usize = 7;

impl Lanes {
    /// One pixel right.
    #[inline(always)]
    pub(super) fn step(&mut self, den: i32) {
        for i in 0..8 {
            let r = self.r[i] + self.dr[i];
            let carry = -((r >= den) as i32);
            self.r[i] = r - (den & carry);
            self.q[i] = self.q[i].wrapping_add(self.dq[i]).wrapping_sub(carry);
        }
    }
}

/// A perspective triangle's steps: the S, T and Q numerators one pixel right, and the shifts
/// of U's and V's quotients ([`crate::raster::persp_coord`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct PerspStep {
    pub(super) dn: [i64; 3],
    pub(super) sh_s: i32,
    pub(super) sh_t: i32,
}

/// One span of a triangle for the span functions.
pub(super) struct Row {
    pub(super) y: i64,
    pub(super) lo: i64,
    pub(super) hi: i64,
    /// The interpolants at `lo`.
    pub(super) lanes: Lanes,
    /// Their divisor.
    pub(super) den: i32,
    pub(super) persp: Option<PerspStep>,
    /// The perspective numerators (S, T, Q) at `lo`.
    pub(super) n: [i64; 3],
}

/// The interpolants (the lanes of [`Lanes`]) as exact quotients and remainders over the
/// doubled area at a span's start, and their steps one pixel right and one row down: each
/// field one value a lane, so that a row's update runs on all lanes at once.
#[derive(Clone, Copy, Debug, Default)]
struct RowAttrs {
    q: [i64; 8],
    r: [i64; 8],
    dqx: [i64; 8],
    drx: [i64; 8],
    dqy: [i64; 8],
    dry: [i64; 8],
}

/// One exact step of every lane: `(q, r) += (dq, dr)` with the remainder kept in
/// `0..area` (one carry at most: both remainders are below `area`).
#[inline(always)]
fn step_up(q: &mut [i64; 8], r: &mut [i64; 8], dq: &[i64; 8], dr: &[i64; 8], area: i64) {
    for i in 0..8 {
        let s = r[i] + dr[i];
        let carry = -((s >= area) as i64);
        r[i] = s - (area & carry);
        q[i] = q[i] + dq[i] - carry;
    }
}

/// One exact step back: `(q, r) -= (dq, dr)`, the remainder kept in `0..area`.
#[inline(always)]
fn step_down(q: &mut [i64; 8], r: &mut [i64; 8], dq: &[i64; 8], dr: &[i64; 8], area: i64) {
    for i in 0..8 {
        let s = r[i] - dr[i];
        let borrow = -((s < 0) as i64);
        r[i] = s + (area & borrow);
        q[i] = q[i] - dq[i] + borrow;
    }
}

/// True when [`super::Plan::triangle`] takes the triangle (its area is within the lanes' range).
pub fn walkable(cmd: &DrawCommand) -> bool {
    let v = &cmd.vertices;
    let p = |i: usize| (v[i].x as i64, v[i].y as i64);
    let area = (p(1).0 - p(0).0) * (p(2).1 - p(0).1) - (p(2).0 - p(0).0) * (p(1).1 - p(0).1);
    area.abs() < MAX_AREA
}

/// The most columns a span's start may move from one row to the next for [`walk_triangle`]
/// to step its attributes there rather than divide (a step a column and lane against a
/// 64-bit division a lane).
const MAX_ROW_STEPS: i64 = 8;

/// The largest doubled triangle area (in 1/256 pixel squared) the walker takes: remainders
/// stay below 2^29, and a Z numerator (`area * 2^32` at most) fits in an i64.
const MAX_AREA: i64 = 1 << 29;

/// `ceil(x)` of one edge down the rows, as [`crate::raster`]'s `edge_ceil` gives it: the
/// numerator `-(a.x * dy + (b.x - a.x) * (y16 - a.y))` over `16 * dy`, floored and stepped.
#[derive(Clone, Copy, Debug)]
struct Edge {
    q: i64,
    r: i64,
    dq: i64,
    dr: i64,
    den: i64,
}

impl Edge {
    /// The edge a -> b (12.4, `b.y > a.y`) at row `py`.
    fn at(a: (i64, i64), b: (i64, i64), py: i64) -> Edge {
        let dy = b.1 - a.1;
        let den = 16 * dy;
        let m = -(a.0 * dy + (b.0 - a.0) * (py * 16 - a.1));
        let step = -16 * (b.0 - a.0);
        Edge {
            q: m.div_euclid(den),
            r: m.rem_euclid(den),
            dq: step.div_euclid(den),
            dr: step.rem_euclid(den),
            den,
        }
    }

    fn x(&self) -> i64 {
        -self.q
    }

    fn next_row(&mut self) {
        self.q += self.dq;
        self.r += self.dr;
        if self.r >= self.den {
            self.r -= self.den;
            self.q += 1;
        }
    }
}

/// What draws a triangle's spans for [`walk_triangle`]. A trait with an always-inlined
/// method rather than a closure: a closure was not always inlined into the x86-64-v3 copies
/// (with the workers' memory type its spans ran as baseline code, half as fast).
pub(super) trait Spans {
    /// Draws one span.
    fn span(&mut self, row: &Row);
}

/// Walks a triangle's spans at scale 1 exactly as [`crate::raster::triangle`] does (the same
/// rows, columns and values), stepping edges and interpolants from row to row instead of
/// dividing for every span. `f.span` gets the row, the columns and the lanes at the first
/// column (and the perspective numerators there). False when the triangle is too large for the lanes
/// (nothing was drawn; the caller walks it the general way).
#[inline(always)]
pub(super) fn walk_triangle(
    s: &PixelState,
    cmd: &DrawCommand,
    band: Band,
    f: &mut impl Spans,
) -> bool {
    let v = &cmd.vertices;
    let p = |i: usize| (v[i].x as i64, v[i].y as i64);
    let area = (p(1).0 - p(0).0) * (p(2).1 - p(0).1) - (p(2).0 - p(0).0) * (p(1).1 - p(0).1);
    if area == 0 {
        return true;
    }
    let sign = area.signum();
    let area = area.abs();
    if area >= MAX_AREA {
        return false;
    }
    let mut idx = [0usize, 1, 2];
    // By y, then by index (a sorting network of three).
    let key = |i: usize| (v[i].y, i);
    if key(idx[1]) < key(idx[0]) {
        idx.swap(0, 1);
    }
    if key(idx[2]) < key(idx[1]) {
        idx.swap(1, 2);
    }
    if key(idx[1]) < key(idx[0]) {
        idx.swap(0, 1);
    }
    let (t, m, b) = (p(idx[0]), p(idx[1]), p(idx[2]));
    let (sx0, sx1, sy0, sy1) = s.scissor;
    let (sx0, sx1) = (sx0 as i64, sx1 as i64);
    let ystart = ceil_div(t.1, 16).max(sy0 as i64);
    let yend = ceil_div(b.1, 16).min(sy1 as i64 + 1);
    if ystart >= yend || !band.meets(ystart, yend) {
        return true;
    }
    // Weights' steps one pixel right (x16 + 16) and one row down (y16 + 16).
    let dw = [
        sign * 16 * (p(1).1 - p(2).1),
        sign * 16 * (p(2).1 - p(0).1),
        sign * 16 * (p(0).1 - p(1).1),
    ];
    let dwy = [
        sign * 16 * (p(2).0 - p(1).0),
        sign * 16 * (p(0).0 - p(2).0),
        sign * 16 * (p(1).0 - p(0).0),
    ];
    let dot = |w: [i64; 3], a: [i64; 3]| w[0] * a[0] + w[1] * a[1] + w[2] * a[2];
    // The lanes' vertex values (zeros for what the draw does not interpolate). Loops rather
    // than array maps: the maps' closures were not inlined into the x86-64-v3 copy.
    let mut values = [[0i64; 3]; 8];
    let gouraud = cmd.prim.iip() != 0;
    let uv = s.tex.is_some() && s.fst;
    for k in 0..3 {
        if gouraud {
            for (lane, &c) in values.iter_mut().zip(&v[k].rgba) {
                lane[k] = c as i64;
            }
        }
        if s.fog.is_some() {
            values[LANE_FOG][k] = v[k].f as i64;
        }
        if uv {
            values[LANE_U][k] = v[k].u as i64;
            values[LANE_V][k] = v[k].v as i64;
        }
        if s.need_z {
            values[LANE_Z][k] = v[k].z as i64;
        }
    }
    let mut attrs = RowAttrs::default();
    // Lanes the draw does not interpolate stay zero (no divisions for them).
    let used = |a: &[i64; 3]| *a != [0; 3];
    for (i, a) in values.iter().enumerate().filter(|(_, a)| used(a)) {
        let (nx, ny) = (dot(dw, *a), dot(dwy, *a));
        attrs.dqx[i] = nx.div_euclid(area);
        attrs.drx[i] = nx.rem_euclid(area);
        attrs.dqy[i] = ny.div_euclid(area);
        attrs.dry[i] = ny.rem_euclid(area);
    }
    let persp = (s.tex.is_some() && !s.fst).then(|| {
        let (tw, th) = s.tex_log2();
        crate::raster::persp_setup(v, tw, th)
    });
    let persp_step = persp.map(|p| PerspStep {
        dn: p.fixed.map(|fx| dot(dw, fx)),
        sh_s: p.sh_s,
        sh_t: p.sh_t,
    });
    let mut long = Edge::at(t, b, ystart);
    let mut upper = (m.1 > t.1).then(|| Edge::at(t, m, ystart));
    let mut lower: Option<Edge> = None;
    // The position the attributes were last evaluated at.
    let mut anchor: Option<(i64, i64)> = None;
    let den = area as i32;
    for py in ystart..yend {
        let y16 = py * 16;
        if py > ystart {
            long.next_row();
            if let Some(e) = &mut upper {
                e.next_row();
            }
            if let Some(e) = &mut lower {
                e.next_row();
            }
        }
        let xl = long.x();
        let xs = if y16 < m.1 {
            upper.map_or(xl, |e| e.x())
        } else {
            lower.get_or_insert_with(|| Edge::at(m, b, py)).x()
        };
        let (lo, hi) = (xl.min(xs).max(sx0), xl.max(xs).min(sx1 + 1));
        if lo >= hi || !band.has(py) {
            continue;
        }
        let x16 = lo * 16;
        let e =
            |a: (i64, i64), c: (i64, i64)| (a.0 - x16) * (c.1 - y16) - (c.0 - x16) * (a.1 - y16);
        // The barycentric weights at the span's start (wanted at the first row, and at every
        // row for perspective numerators).
        let w = || {
            [
                sign * e(p(1), p(2)),
                sign * e(p(2), p(0)),
                sign * e(p(0), p(1)),
            ]
        };
        let a = &mut attrs;
        match anchor {
            None => {
                let w = w();
                for (i, val) in values.iter().enumerate().filter(|(_, a)| used(a)) {
                    let n = dot(w, *val);
                    a.q[i] = n.div_euclid(area);
                    a.r[i] = n.rem_euclid(area);
                }
            }
            Some((xa, ya)) if py - ya == 1 && (lo - xa).abs() <= MAX_ROW_STEPS => {
                // The next row, and the span's start a few columns over: one exact step down
                // and one a column, each with at most one carry (the remainders' steps are
                // below `area`), rather than a division a lane.
                let ddx = lo - xa;
                step_up(&mut a.q, &mut a.r, &a.dqy, &a.dry, area);
                for _ in 0..ddx.max(0) {
                    step_up(&mut a.q, &mut a.r, &a.dqx, &a.drx, area);
                }
                for _ in 0..(-ddx).max(0) {
                    step_down(&mut a.q, &mut a.r, &a.dqx, &a.drx, area);
                }
            }
            Some((xa, ya)) => {
                let (ddx, ddy) = (lo - xa, py - ya);
                for i in 0..8 {
                    let (q, r) = (&mut a.q[i], &mut a.r[i]);
                    *q += ddy * a.dqy[i] + ddx * a.dqx[i];
                    *r += ddy * a.dry[i] + ddx * a.drx[i];
                    if *r >= area {
                        if *r < 2 * area {
                            *r -= area;
                            *q += 1;
                        } else {
                            *q += *r / area;
                            *r %= area;
                        }
                    } else if *r < 0 {
                        let k = (-*r + area - 1) / area;
                        *q -= k;
                        *r += k * area;
                    }
                }
            }
        }
        anchor = Some((lo, py));
        let mut lanes = Lanes::default();
        for i in 0..8 {
            lanes.q[i] = a.q[i] as i32;
            lanes.r[i] = a.r[i] as i32;
            lanes.dq[i] = a.dqx[i] as i32;
            lanes.dr[i] = a.drx[i] as i32;
        }
        f.span(&Row {
            y: py,
            lo,
            hi,
            lanes,
            den,
            persp: persp_step,
            n: persp.map_or([0; 3], |p| {
                let w = w();
                p.fixed.map(|fx| dot(w, fx))
            }),
        });
    }
    true
}
