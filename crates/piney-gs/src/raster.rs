//! What every renderer computes the same way before a pixel is shaded: the per-pixel state of a
//! draw ([`PixelState`], the state key), and each primitive's coverage and interpolants in exact
//! integers ([`sprite`], [`triangle`], [`line`], [`point`]). The software renderer walks them on
//! the CPU; the wgpu renderer packs the same numbers for its shader, so both shade the same
//! fragments with the same values by construction.
//!
//! Rules (GS User's Manual, "Drawing"; PCSX2's software renderer where the manual is silent):
//! - Pixels are sampled at integer window coordinates; vertices are 12.4. A pixel is covered when
//!   its sample lies in the half-open span of the primitive: rows `ceil(ytop) .. ceil(ybottom)`,
//!   columns `ceil(xleft) .. ceil(xright)` (the top-left rule), computed exactly in integers.
//! - Triangles: Gouraud colour, fog, Z and UV are `floor(sum(w_i * a_i) / area)`, the plane
//!   through the vertices evaluated exactly. Along a span this is kept as a quotient and a
//!   remainder ([`StepDiv`]): `q + dq * k + floor((r + dr * k) / den)` at the span's k-th pixel,
//!   which a shader evaluates directly and the CPU by stepping.
//! - Perspective (STQ) triangles: each of S, T and Q is turned into a 24-bit fixed-point value
//!   per vertex against the largest exponent of the three vertices (truncated toward zero;
//!   denormals, infinities and NaNs read as 0); `u = floor(2^(tw + 4) * S / Q)` is then the exact
//!   quotient of the two interpolated numerators ([`persp_coord`]), saturated to +-2^30, and the
//!   LOD's log2 Q comes from Q's exact value the same way ([`persp_log2q`]). Integer-only, so a
//!   GPU gives the same texel as the CPU.
//! - Flat shading takes the colour of the last (kicking) vertex; sprites take colour and Z of
//!   their second vertex. Sprites' U depends on the column and V on the row only.
//!
//! - AA1 (antialiasing, lines and triangles): the GS blends an edge pixel by its coverage; an
//!   interior pixel's coverage is 1.0. With ABE off every pixel's alpha becomes 0x80 after the
//!   texture function (it is what the alpha test sees and FBA and the write take) and nothing is
//!   blended; with ABE on the alpha is kept (PCSX2's software renderer: `aa1` with a coverage
//!   of 0x80 inside). Points and sprites ignore AA1.
//!
//! Not exact yet: the console's own interpolation rounding is undocumented; lines use a DDA along
//! the major axis with the minor coordinate rounded to nearest; AA1's edge coverage is not
//! computed (edge pixels are drawn as interior ones).

use crate::draw::{DrawCommand, PrimKind, Vertex};
use crate::psm::Psm;
use crate::regs::*;
use crate::texel::{clut_psm, texture_psm as tex_psm};

/// The texture state of a draw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TexState {
    /// Texel format (TEX0.PSM).
    pub psm: Psm,
    /// Base pointers of levels 0-6 (TEX0, MIPTBP1, MIPTBP2).
    pub bp: [u32; 7],
    /// Widths of levels 0-6.
    pub bw: [u32; 7],
    /// log2 width (at most 10).
    pub tw: u32,
    /// log2 height (at most 10).
    pub th: u32,
    /// TEX0.TCC.
    pub tcc: bool,
    /// TEX0.TFX.
    pub tfx: u32,
    /// CLAMP.
    pub clamp: Clamp,
    /// CLUT format.
    pub cpsm: Psm,
    /// CLUT offset.
    pub csa: u32,
    /// TEXA.
    pub texa: Texa,
    /// TEX1.
    pub tex1: Tex1,
}

impl TexState {
    /// True when the sampling depends on the LOD (mipmapping or differing filters) and the LOD
    /// depends on Q (LCM 0).
    pub fn lod_from_q(&self) -> bool {
        let t1 = self.tex1;
        !(t1.mmin() <= 1 && t1.mmag() == t1.mmin()) && t1.lcm() == 0
    }
}

/// Everything the per-pixel pipeline of one draw depends on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PixelState {
    /// Frame format (8H/4HL/4HH frames become PSMCT32 under a mask).
    pub fpsm: Psm,
    /// Frame base in blocks.
    pub fbp: u32,
    /// Frame width in 64-pixel units (also the Z buffer's).
    pub fbw: u32,
    /// The bits the frame keeps.
    pub fbmsk: u32,
    /// Z format (the colour swizzle when the frame is a Z format).
    pub zpsm: Psm,
    /// Z base in blocks.
    pub zbp: u32,
    /// ZBUF.ZMSK.
    pub zmsk: bool,
    /// TEST.
    pub test: Test,
    /// ALPHA.
    pub alpha: Alpha,
    /// ABE.
    pub blend: bool,
    /// AA1 without ABE on a line or triangle: the source alpha is the coverage, 0x80 inside.
    pub coverage_alpha: bool,
    /// PABE.
    pub pabe: bool,
    /// FBA.
    pub fba: bool,
    /// COLCLAMP.
    pub colclamp: bool,
    /// The dither matrix when dithering applies.
    pub dither: Option<Dimx>,
    /// The fog colour when fogging.
    pub fog: Option<FogCol>,
    /// Scissor x0, x1, y0, y1 (inclusive).
    pub scissor: (i32, i32, i32, i32),
    /// SCANMSK.
    pub scanmsk: u64,
    /// The texture when TME.
    pub tex: Option<TexState>,
    /// PRIM.FST.
    pub fst: bool,
    /// Z is tested or written.
    pub need_z: bool,
}

impl PixelState {
    /// The state of `cmd`'s draw.
    pub fn new(cmd: &DrawCommand) -> PixelState {
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
            let (m1, m2) = (c.miptbp1, c.miptbp2);
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
        PixelState {
            fpsm,
            fbp: c.frame.fbp() * 32,
            fbw: c.frame.fbw(),
            fbmsk,
            zpsm,
            zbp: c.zbuf.zbp() * 32,
            zmsk: c.zbuf.zmsk() != 0,
            test: c.test,
            alpha: c.alpha,
            blend: cmd.prim.abe() != 0,
            coverage_alpha: cmd.prim.aa1() != 0
                && cmd.prim.abe() == 0
                && matches!(cmd.kind, PrimKind::Line | PrimKind::Triangle),
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

    /// log2 of the texture's width and height (0, 0 untextured).
    pub fn tex_log2(&self) -> (u32, u32) {
        self.tex.as_ref().map_or((0, 0), |t| (t.tw, t.th))
    }
}

/// One fragment's interpolated values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frag {
    /// Colour (each 0..=255).
    pub rgba: [i32; 4],
    /// Z before saturation to the Z format.
    pub z: u64,
    /// Fog coefficient.
    pub f: i32,
    /// Texel coordinates in 1/16 texel (level 0).
    pub u: i32,
    /// Texel coordinates in 1/16 texel (level 0).
    pub v: i32,
    /// log2 |Q| in sixteenths (exponent * 16 + the top four mantissa bits), for the LOD.
    pub log2q: i32,
}

/// [`Frag::log2q`] of a float Q: its exponent and top four mantissa bits, as the GS's linear
/// log2 approximation reads them.
pub fn log2q_f32(q: f32) -> i32 {
    let bits = q.abs().to_bits();
    let e = ((bits >> 23) & 0xff) as i32 - 127;
    let m = ((bits >> 19) & 15) as i32;
    e * 16 + m
}

/// `ceil(a / b)` for `b > 0`.
pub fn ceil_div(a: i64, b: i64) -> i64 {
    -((-a).div_euclid(b))
}

/// `floor(a / b)` for either sign of `b` (`b != 0`).
pub fn floor_div(a: i64, b: i64) -> i64 {
    if b < 0 {
        (-a).div_euclid(-b)
    } else {
        a.div_euclid(b)
    }
}

/// Defines a `floor(n / den)` (`den` > 0) for an `n` that grows by a constant `step` each
/// pixel: the quotient and remainder step exactly, so a span costs a few divisions, not one a
/// pixel. At the k-th step the quotient is `q + dq * k + floor((r + dr * k) / den)`.
macro_rules! step_div {
    ($name:ident, $t:ty) => {
        /// A stepped exact quotient (see the macro's text).
        #[derive(Clone, Copy, Debug)]
        pub struct $name {
            /// The current quotient.
            pub q: $t,
            /// The current remainder (0 <= r < den).
            pub r: $t,
            /// The quotient of the step.
            pub dq: $t,
            /// The remainder of the step (0 <= dr < den).
            pub dr: $t,
            /// The divisor.
            pub den: $t,
        }

        impl $name {
            /// `floor(n / den)` stepping by `step / den`.
            pub fn new(n: $t, step: $t, den: $t) -> $name {
                $name {
                    q: n.div_euclid(den),
                    r: n.rem_euclid(den),
                    dq: step.div_euclid(den),
                    dr: step.rem_euclid(den),
                    den,
                }
            }

            /// One pixel right.
            #[inline]
            pub fn step(&mut self) {
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

// Colour, fog and UV: weights below 2^36 times values below 2^16, three of them, fit in i64.
step_div!(StepDiv, i64);
// Z: 32-bit values need 128 bits.
step_div!(WideStepDiv, i128);

/// The saturation bound of [`div_scaled`].
pub const DIV_SATURATE: u64 = 1 << 31;

/// `floor(a * 2^sh / b)` for `a < 2^62` and `0 < b < 2^62`, saturated at [`DIV_SATURATE`], and
/// whether the division was exact. The wgpu renderer's shader runs these same steps.
#[inline]
pub fn div_scaled(a: u64, b: u64, sh: i32) -> (u64, bool) {
    // The same quotient by one division where `a * 2^sh` fits in 64 or 128 bits (the
    // exactness flag only matters below the saturation bound, where both ways agree).
    if sh >= 0 && a != 0 {
        if (sh as u32) < a.leading_zeros() {
            let n = a << sh;
            return ((n / b).min(DIV_SATURATE), n.is_multiple_of(b));
        }
        if sh <= 64 {
            let n = (a as u128) << sh;
            let q = n / b as u128;
            return (
                q.min(DIV_SATURATE as u128) as u64,
                n.is_multiple_of(b as u128),
            );
        }
    }
    div_scaled_stepwise(a, b, sh)
}

/// [`div_scaled`] a bit at a time (the steps the wgpu renderer's shader runs).
#[inline(never)]
fn div_scaled_stepwise(a: u64, b: u64, sh: i32) -> (u64, bool) {
    let (mut q, mut r) = (a / b, a % b);
    if sh < 0 {
        let n = (-sh) as u32;
        if n >= 64 {
            return (0, a == 0);
        }
        return (
            (q >> n).min(DIV_SATURATE),
            r == 0 && q & ((1 << n) - 1) == 0,
        );
    }
    for _ in 0..sh {
        if q >= DIV_SATURATE || (q == 0 && r == 0) {
            break;
        }
        q <<= 1;
        r <<= 1;
        if r >= b {
            r -= b;
            q += 1;
        }
    }
    (q.min(DIV_SATURATE), r == 0)
}

/// A perspective texel coordinate in sixteenths: `floor(ns * 2^sh / nq)` saturated to +-2^30
/// (0 when `nq` is 0).
#[inline]
pub fn persp_coord(ns: i64, nq: i64, sh: i32) -> i32 {
    if nq == 0 {
        return 0;
    }
    let (q, exact) = div_scaled(ns.unsigned_abs(), nq.unsigned_abs(), sh);
    let v = if (ns < 0) != (nq < 0) && ns != 0 {
        -(q as i64) - i64::from(!exact)
    } else {
        q as i64
    };
    v.clamp(-(1 << 30), 1 << 30) as i32
}

/// [`Frag::log2q`] of `Q = nq * 2^unit / area` (`area > 0`), read from its exact value as
/// [`log2q_f32`] reads a float.
pub fn persp_log2q(nq: i64, area: i64, unit: i32) -> i32 {
    if nq == 0 {
        return log2q_f32(0.0);
    }
    let (a, b) = (nq.unsigned_abs(), area as u64);
    let msb = |v: u64| 63 - v.leading_zeros() as i32;
    // t = floor(|Q'| * 2^s) lies in 16..64 (five or six significant bits).
    let s = 5 + msb(b) - msb(a);
    let (t, _) = div_scaled(a, b, s);
    let et = msb(t);
    let m = ((t >> (et - 4)) & 15) as i32;
    (et - s + unit) * 16 + m
}

/// A float as `(mantissa with its implicit bit, exponent)`; `None` for zero, denormals,
/// infinities and NaNs, which read as 0 in fixed point.
fn float_parts(v: f32) -> Option<(i64, i32)> {
    let bits = v.to_bits();
    let e = ((bits >> 23) & 0xff) as i32;
    if e == 0 || e == 255 {
        return None;
    }
    let m = ((bits & 0x7f_ffff) | 0x80_0000) as i64;
    Some((if bits >> 31 != 0 { -m } else { m }, e - 127))
}

/// Three vertex values as `bits`-bit fixed point (sign apart) against their largest exponent
/// `e`: value = `f * 2^(e - bits + 1)`.
pub fn common_fixed(v: [f32; 3], bits: i32) -> ([i64; 3], i32) {
    let parts = v.map(float_parts);
    let e = parts.iter().flatten().map(|p| p.1).max().unwrap_or(0);
    let f = parts.map(|p| match p {
        Some((m, pe)) if e - pe + 24 - bits < 24 => {
            // Truncation toward zero (the 24-bit mantissa to `bits` bits at exponent e).
            let sh = (e - pe + 24 - bits) as u32;
            if m < 0 { -((-m) >> sh) } else { m >> sh }
        }
        _ => 0,
    });
    (f, e)
}

// ---- sprites ----

/// A sprite's covered rectangle and values.
#[derive(Clone, Debug)]
pub struct Sprite {
    /// Columns `x0..x1` and rows `y0..y1`, already scissored.
    pub x0: i64,
    /// End column (exclusive).
    pub x1: i64,
    /// First row.
    pub y0: i64,
    /// End row (exclusive).
    pub y1: i64,
    /// U of each column (empty when untextured).
    pub us: Vec<i32>,
    /// V of each row (empty when untextured).
    pub vs: Vec<i32>,
    /// Every pixel's values but U and V: the second vertex's colour, Z, fog and log2 Q.
    pub base: Frag,
    /// Textured by UV one texel a pixel in both directions (a copy of a drawn region, a 2D
    /// layer): at a render scale it reads the source's fine pixels one to one.
    pub one_to_one: bool,
}

impl Sprite {
    /// The fragment at column index `i` and row index `j` (relative to x0, y0).
    pub fn frag(&self, i: usize, j: usize) -> Frag {
        Frag {
            u: self.us.get(i).copied().unwrap_or(0),
            v: self.vs.get(j).copied().unwrap_or(0),
            ..self.base
        }
    }
}

/// A sprite's coverage and texel coordinates.
pub fn sprite(s: &PixelState, cmd: &DrawCommand) -> Sprite {
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
    let (sx0, sx1, sy0, sy1) = s.scissor;
    let x0 = ceil_div(a.x as i64, 16).max(sx0 as i64);
    let x1 = ceil_div(b.x as i64, 16).min(sx1 as i64 + 1);
    let y0 = ceil_div(a.y as i64, 16).max(sy0 as i64);
    let y1 = ceil_div(b.y as i64, 16).min(sy1 as i64 + 1);
    let (dx, dy) = ((b.x - a.x) as i64, (b.y - a.y) as i64);
    let (tw, th) = s.tex_log2();
    let q = last.q;
    let coords = |from: i64, to: i64, a: i64, d: i64, c0: (i64, f64), c1: (i64, f64), log2| {
        if s.tex.is_none() || from >= to {
            return Vec::new();
        }
        (from..to)
            .map(|px| {
                let f = px * 16 - a;
                if s.fst {
                    lerp_i(c0.0, c1.0, f, d) as i32
                } else {
                    st_to_fixed(lerp_f(c0.1, c1.1, f, d), q as f64, log2) as i32
                }
            })
            .collect()
    };
    Sprite {
        x0,
        x1,
        y0,
        y1,
        us: coords(x0, x1, a.x as i64, dx, ua, ub, tw),
        vs: coords(y0, y1, a.y as i64, dy, va, vb, th),
        base: Frag {
            rgba: last.rgba.map(|c| c as i32),
            z: last.z as u64,
            f: last.f as i32,
            u: 0,
            v: 0,
            log2q: log2q_f32(last.q),
        },
        one_to_one: s.tex.is_some() && s.fst && ub.0 - ua.0 == dx && vb.0 - va.0 == dy,
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

// ---- triangles ----

/// A triangle's constants: what every span shares.
#[derive(Clone, Debug)]
pub struct Triangle {
    /// The doubled area, the divisor of every interpolant (> 0).
    pub area: i64,
    /// The step of each vertex weight one pixel right.
    pub dw: [i64; 3],
    /// Gouraud shading (else `flat`).
    pub gouraud: bool,
    /// The flat colour (the last vertex's).
    pub flat: [i32; 4],
    /// The last vertex's log2 Q (the LOD of UV-textured triangles).
    pub log2q: i32,
    /// Perspective texturing: see [`Persp`].
    pub persp: Option<Persp>,
}

/// A perspective triangle's fixed-point S, T, Q (see the module's rules).
#[derive(Clone, Copy, Debug)]
pub struct Persp {
    /// The numerators' steps one pixel right (S, T, Q).
    pub dn: [i64; 3],
    /// The shift of u's quotient: `es - eq + tw + 4`.
    pub sh_s: i32,
    /// The shift of v's quotient.
    pub sh_t: i32,
    /// The exponent of Q's fixed-point unit (Q = numerator * 2^unit / area).
    pub q_unit: i32,
    /// Per-vertex fixed-point values (S, T, Q).
    pub fixed: [[i64; 3]; 3],
}

/// One span of a triangle: row `y`, columns `lo..hi`, every interpolant at `lo`.
#[derive(Clone, Copy, Debug)]
pub struct Span {
    /// The row.
    pub y: i64,
    /// The first column.
    pub lo: i64,
    /// The end column (exclusive).
    pub hi: i64,
    /// Gouraud R, G, B, A.
    pub col: Option<[StepDiv; 4]>,
    /// Z when tested or written.
    pub z: Option<WideStepDiv>,
    /// Fog when fogging.
    pub f: Option<StepDiv>,
    /// U and V when textured with UV.
    pub uv: Option<[StepDiv; 2]>,
    /// The perspective numerators (S, T, Q) at `lo`.
    pub persp_n: [i64; 3],
}

impl Triangle {
    /// The fragment values at the span's current position; `n` the perspective numerators
    /// there. Texture coordinates are 0 untextured.
    pub fn frag(&self, s: &PixelState, sp: &Span, n: [i64; 3]) -> Frag {
        let rgba = match &sp.col {
            Some(c) => c.map(|d| d.q.clamp(0, 255) as i32),
            None => self.flat,
        };
        let z = sp.z.map_or(0, |d| d.q.clamp(0, u32::MAX as i128) as u64);
        let f = sp.f.map_or(0, |d| d.q.clamp(0, 255) as i32);
        let (mut u, mut v, mut log2q) = (0, 0, self.log2q);
        if let Some([du, dv]) = &sp.uv {
            u = du.q as i32;
            v = dv.q as i32;
        } else if let Some(p) = &self.persp {
            u = persp_coord(n[0], n[2], p.sh_s);
            v = persp_coord(n[1], n[2], p.sh_t);
            if s.tex.as_ref().is_some_and(TexState::lod_from_q) {
                log2q = persp_log2q(n[2], self.area, p.q_unit);
            }
        }
        Frag {
            rgba,
            z,
            f,
            u,
            v,
            log2q,
        }
    }
}

/// A perspective triangle's fixed-point S, T and Q (with no steps yet).
pub fn persp_setup(v: &[Vertex; 3], tw: u32, th: u32) -> Persp {
    // Fixed-point bits so that a weight (at most 2 * extent^2 at scale 8) times a value,
    // three of them, fits in an i64; the same at every scale, from the unscaled extent
    // (vertices and the 2048-pixel drawing space).
    let ext = |c: fn(&Vertex) -> i32| {
        let lo = v.iter().map(|x| c(x) as i64).min().unwrap_or(0).min(0);
        let hi = v
            .iter()
            .map(|x| c(x) as i64)
            .max()
            .unwrap_or(0)
            .max(2048 * 16);
        (hi - lo) as u64
    };
    let e = ext(|x| x.x).max(ext(|x| x.y));
    let bits = (52 - 2 * (64 - e.leading_zeros() as i32)).clamp(8, 24);
    let (fs, es) = common_fixed([v[0].s, v[1].s, v[2].s], bits);
    let (ft, et) = common_fixed([v[0].t, v[1].t, v[2].t], bits);
    let (fq, eq) = common_fixed([v[0].q, v[1].q, v[2].q], bits);
    Persp {
        dn: [0; 3],
        sh_s: es - eq + tw as i32 + 4,
        sh_t: et - eq + th as i32 + 4,
        q_unit: eq - bits + 1,
        fixed: [fs, ft, fq],
    }
}

/// The texel coordinates (sixteenths, as [`Triangle::frag`] gives them) of a perspective
/// triangle's three vertices, or `None` when its Q values are not all of one sign (then a
/// covered pixel's coordinate is not bounded by them). Every covered pixel's U lies between
/// the vertices' smallest and largest U (likewise V): its S and Q numerators are sums of the
/// vertices' values with non-negative weights, so their quotient lies between the vertices'
/// quotients, and the rounding down and saturation keep the order.
pub fn persp_vertex_coords(s: &PixelState, cmd: &DrawCommand) -> Option<([i32; 3], [i32; 3])> {
    let (tw, th) = s.tex_log2();
    let p = persp_setup(&cmd.vertices, tw, th);
    let [fs, ft, fq] = p.fixed;
    if !(fq.iter().all(|&q| q > 0) || fq.iter().all(|&q| q < 0)) {
        return None;
    }
    let u = [0, 1, 2].map(|i| persp_coord(fs[i], fq[i], p.sh_s));
    let v = [0, 1, 2].map(|i| persp_coord(ft[i], fq[i], p.sh_t));
    Some((u, v))
}

/// x at row `y16` on the edge a->b (12.4), as the first pixel column at or right of it.
fn edge_ceil(a: (i64, i64), b: (i64, i64), y16: i64) -> i64 {
    let dy = b.1 - a.1;
    if dy == 0 {
        return ceil_div(a.0.min(b.0), 16);
    }
    ceil_div(a.0 * dy + (b.0 - a.0) * (y16 - a.1), 16 * dy)
}

/// Walks a triangle's spans top to bottom (scissored; empty rows skipped), calling `f` with the
/// triangle's constants and each span. Degenerate triangles call nothing.
///
/// At `scale` N the triangle is sampled on a grid N times finer: vertices and the scissor are
/// scaled, spans come in fine pixels (fine pixel X belongs to pixel X / N), and the fine pixel
/// N * x is sampled where pixel x is, so it gets exactly pixel x's values.
pub fn triangle(
    s: &PixelState,
    cmd: &DrawCommand,
    scale: u32,
    mut f: impl FnMut(&Triangle, &Span),
) {
    let v = &cmd.vertices;
    let n = scale.max(1) as i64;
    let p = |i: usize| (v[i].x as i64 * n, v[i].y as i64 * n);
    let area = (p(1).0 - p(0).0) * (p(2).1 - p(0).1) - (p(2).0 - p(0).0) * (p(1).1 - p(0).1);
    if area == 0 {
        return;
    }
    // Either winding: the weights take the area's sign, so that dividing by |area| rounds down
    // in both.
    let sign = area.signum();
    let area = area.abs();
    let mut idx = [0usize, 1, 2];
    idx.sort_by_key(|&i| (v[i].y, i));
    let (t, m, b) = (p(idx[0]), p(idx[1]), p(idx[2]));
    let (tw, th) = s.tex_log2();
    let persp = (s.tex.is_some() && !s.fst).then(|| persp_setup(v, tw, th));
    let dw = [
        sign * 16 * (p(1).1 - p(2).1),
        sign * 16 * (p(2).1 - p(0).1),
        sign * 16 * (p(0).1 - p(1).1),
    ];
    let dot = |w: [i64; 3], a: [i64; 3]| w[0] * a[0] + w[1] * a[1] + w[2] * a[2];
    let tri = Triangle {
        area,
        dw,
        gouraud: cmd.prim.iip() != 0,
        flat: v[2].rgba.map(|c| c as i32),
        log2q: log2q_f32(v[2].q),
        persp: persp.map(|p| Persp {
            dn: p.fixed.map(|fx| dot(dw, fx)),
            ..p
        }),
    };
    let (sx0, sx1, sy0, sy1) = s.scissor;
    // The scissor in fine pixels: pixel x0 starts at fine x0 * N, pixel x1 ends before
    // (x1 + 1) * N.
    let (sx0, sx1) = (sx0 as i64 * n, (sx1 as i64 + 1) * n - 1);
    let (sy0, sy1) = (sy0 as i64 * n, (sy1 as i64 + 1) * n - 1);
    let ystart = ceil_div(t.1, 16).max(sy0);
    let yend = ceil_div(b.1, 16).min(sy1 + 1);
    for py in ystart..yend {
        let y16 = py * 16;
        let xl = edge_ceil(t, b, y16);
        let xs = if y16 < m.1 {
            edge_ceil(t, m, y16)
        } else {
            edge_ceil(m, b, y16)
        };
        let (lo, hi) = (xl.min(xs).max(sx0), xl.max(xs).min(sx1 + 1));
        if lo >= hi {
            continue;
        }
        // Edge functions at the span's first pixel: w[i] is the weight of vertex i times the
        // doubled area (exact in i64: coordinate differences stay below 2^18).
        let x16 = lo * 16;
        let e =
            |a: (i64, i64), c: (i64, i64)| (a.0 - x16) * (c.1 - y16) - (c.0 - x16) * (a.1 - y16);
        let w = [
            sign * e(p(1), p(2)),
            sign * e(p(2), p(0)),
            sign * e(p(0), p(1)),
        ];
        let attr = |a: [i64; 3]| StepDiv::new(dot(w, a), dot(dw, a), area);
        let span = Span {
            y: py,
            lo,
            hi,
            col: tri
                .gouraud
                .then(|| [0, 1, 2, 3].map(|i| attr([0, 1, 2].map(|k| v[k].rgba[i] as i64)))),
            // Z needs 128 bits (32-bit Z times a 34-bit weight).
            z: s.need_z.then(|| {
                let (z, n) = ([0, 1, 2].map(|k| v[k].z as i128), w.map(|x| x as i128));
                let d = dw.map(|x| x as i128);
                WideStepDiv::new(
                    n[0] * z[0] + n[1] * z[1] + n[2] * z[2],
                    d[0] * z[0] + d[1] * z[1] + d[2] * z[2],
                    area as i128,
                )
            }),
            f: s.fog
                .is_some()
                .then(|| attr([0, 1, 2].map(|k| v[k].f as i64))),
            uv: (s.tex.is_some() && s.fst).then(|| {
                [
                    attr([0, 1, 2].map(|k| v[k].u as i64)),
                    attr([0, 1, 2].map(|k| v[k].v as i64)),
                ]
            }),
            persp_n: persp.map_or([0; 3], |p| p.fixed.map(|fx| dot(w, fx))),
        };
        f(&tri, &span);
    }
}

// ---- lines and points ----

/// A line's (or point's) fragments: at most one per step along the major axis.
#[derive(Clone, Debug, Default)]
pub struct Fragments {
    /// The major axis is x (else y).
    pub xmajor: bool,
    /// Each fragment with its pixel.
    pub frags: Vec<(i32, i32, Frag)>,
}

/// A line's fragments: pixels along the major axis from ceil(start) to ceil(end) - 1 (the last
/// one is left for the next line of a strip); the minor coordinate rounded to nearest.
pub fn line(s: &PixelState, cmd: &DrawCommand) -> Fragments {
    let (a, b) = (cmd.vertices[0], cmd.vertices[1]);
    let gouraud = cmd.prim.iip() != 0;
    let (dx, dy) = ((b.x - a.x) as i64, (b.y - a.y) as i64);
    let xmajor = dx.abs() >= dy.abs();
    let (len, start, end) = if xmajor {
        (dx, a.x as i64, b.x as i64)
    } else {
        (dy, a.y as i64, b.y as i64)
    };
    let mut out = Fragments {
        xmajor,
        frags: Vec::new(),
    };
    if len == 0 {
        return out;
    }
    let (lo, hi) = (start.min(end), start.max(end));
    let (tw, th) = s.tex_log2();
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
            [0, 1, 2, 3].map(|i| li(a.rgba[i] as i64, b.rgba[i] as i64).clamp(0, 255) as i32)
        } else {
            b.rgba.map(|c| c as i32)
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
            log2q: log2q_f32(q as f32),
        };
        out.frags.push((px as i32, py as i32, fr));
    }
    out
}

/// A point's fragment: it covers the pixel a 1x1 sprite from the vertex would (ceil of its
/// coordinates).
pub fn point(s: &PixelState, cmd: &DrawCommand) -> Fragments {
    let a = cmd.vertices[0];
    let (px, py) = (ceil_div(a.x as i64, 16), ceil_div(a.y as i64, 16));
    let (tw, th) = s.tex_log2();
    let (u, v) = if s.fst {
        (a.u as i64, a.v as i64)
    } else {
        (
            st_to_fixed(a.s as f64, a.q as f64, tw),
            st_to_fixed(a.t as f64, a.q as f64, th),
        )
    };
    let fr = Frag {
        rgba: a.rgba.map(|c| c as i32),
        z: a.z as u64,
        f: a.f as i32,
        u: u as i32,
        v: v as i32,
        log2q: log2q_f32(a.q),
    };
    Fragments {
        xmajor: true,
        frags: vec![(px as i32, py as i32, fr)],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaled_division_is_the_exact_floor() {
        for (a, b, sh) in [
            (7u64, 3u64, 0),
            (7, 3, 5),
            (7, 3, -1),
            (1, 1 << 40, 60),
            (12345, 77, 20),
            (0, 5, 100),
        ] {
            let exact = ((a as u128) << sh.max(0)) >> (-sh).max(0);
            let want = (exact / b as u128).min(DIV_SATURATE as u128) as u64;
            assert_eq!(div_scaled(a, b, sh).0, want, "{a} {b} {sh}");
        }
        // Saturation, and early exits with huge shifts.
        assert_eq!(div_scaled(1, 1, 200).0, DIV_SATURATE);
        assert_eq!(div_scaled(5, 1 << 61, 300).0, DIV_SATURATE);
        // Negative quotients round down.
        assert_eq!(persp_coord(-7, 2, 0), -4);
        assert_eq!(persp_coord(-8, 2, 0), -4);
        assert_eq!(persp_coord(7, -2, 1), -7);
        assert_eq!(persp_coord(1, 0, 3), 0);
        assert_eq!(persp_coord(1 << 40, 1, 10), 1 << 30);
    }

    #[test]
    fn one_division_gives_the_stepwise_quotient() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..200_000 {
            let a = next() >> (2 + next() % 62);
            let b = (next() >> (2 + next() % 62)).max(1);
            let sh = (next() % 140) as i32 - 40;
            let (q, exact) = div_scaled(a, b, sh);
            let (q2, exact2) = div_scaled_stepwise(a, b, sh);
            assert_eq!(q, q2, "{a} {b} {sh}");
            if q < DIV_SATURATE {
                assert_eq!(exact, exact2, "{a} {b} {sh}");
            }
        }
    }

    #[test]
    fn fixed_point_against_the_largest_exponent() {
        let (f, e) = common_fixed([1.0, 0.5, -3.0], 24);
        assert_eq!(e, 1);
        assert_eq!(f, [1 << 22, 1 << 21, -(3 << 22)]);
        let (f, e) = common_fixed([0.0, f32::NAN, 2.0], 24);
        assert_eq!((f, e), ([0, 0, 1 << 23], 1));
        // Fewer bits truncate toward zero.
        assert_eq!(common_fixed([1.0, -0.75, 0.0], 4).0, [8, -6, 0]);
        // log2 Q of 1.0 and of 3.0 (exponent 1, mantissa 0.5 -> 8) from exact values.
        assert_eq!(persp_log2q(1 << 23, 1, -23), log2q_f32(1.0));
        assert_eq!(persp_log2q(3 << 22, 1, -22), log2q_f32(3.0));
        assert_eq!(persp_log2q(3 << 22, 4, -22), log2q_f32(0.75));
        assert_eq!(persp_log2q(0, 4, -22), log2q_f32(0.0));
    }
}
