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
//! - Sprites (and textured triangles in x86-64-v3) go eight pixels at a time through vector
//!   arithmetic (`wide`), their texels fetched by AVX2 gathers in x86-64-v3; each key's
//!   triangle function (the walk and its spans) and sprite function are compiled for the
//!   target's baseline and again for x86-64-v3, chosen at run time ([`Isa`]), once a
//!   primitive.
//! - Draws this path does not take (lines, points, mipmapping, region wraps reaching outside
//!   the texture, a texture that overlaps the pages the draw writes, render scales above 1) go
//!   the general way. Both paths are checked against each other on random states and
//!   primitives (sw_fast_tests.rs).

use crate::draw::DrawCommand;
use crate::mem::MEM_WORDS;
use crate::psm::Psm;
use crate::raster::{PixelState, Sprite, TexState, persp_coord};
use crate::regs::Dimx;
use crate::swizzle::{Offsets, RowOffsets};
use crate::texcache::TexelRect;

mod walk;
mod wide;

pub use walk::walkable;
use walk::{LANE_FOG, LANE_U, LANE_V, LANE_Z, Lanes, Row, walk_triangle};

/// Local memory as the fast path takes it.
pub type Words = [u32; MEM_WORDS];

/// Local memory as the fast path reads and writes it, by word index (below [`MEM_WORDS`]):
/// the whole of it ([`Words`]), or the pages one worker owns while several draw at once
/// ([`PagedMem`]).
pub trait Mem {
    /// The word at `i`.
    fn word(&self, i: usize) -> u32;
    /// Writes the word at `i`.
    fn set_word(&mut self, i: usize, v: u32);
    /// Writes the bits `mask` of `v` into the 64 words of the block starting at word `start`
    /// (a multiple of 64).
    #[inline(always)]
    fn fill_block(&mut self, start: usize, v: u32, mask: u32) {
        for i in start..start + 64 {
            self.set_word(i, (self.word(i) & !mask) | (v & mask));
        }
    }
}

impl Mem for Words {
    #[inline(always)]
    fn word(&self, i: usize) -> u32 {
        self[i & (MEM_WORDS - 1)]
    }
    #[inline(always)]
    fn set_word(&mut self, i: usize, v: u32) {
        self[i & (MEM_WORDS - 1)] = v;
    }
    #[inline(always)]
    fn fill_block(&mut self, start: usize, v: u32, mask: u32) {
        let start = start & (MEM_WORDS - 64);
        let block = &mut self[start..start + 64];
        if mask == u32::MAX {
            block.fill(v);
        } else {
            for w in block {
                *w = (*w & !mask) | (v & mask);
            }
        }
    }
}

/// Words in a page.
pub const PAGE_WORDS: usize = 2048;

/// The pages of local memory one worker owns (the others are `None`). A worker only touches
/// pixels of its own rows, and a batch is built so that those live in its own pages
/// (crate::sw's batching); a word outside them reads 0 and is not written.
pub struct PagedMem<'a> {
    /// Every page, in order.
    pub pages: Vec<Option<&'a mut [u32]>>,
}

impl Mem for PagedMem<'_> {
    #[inline(always)]
    fn word(&self, i: usize) -> u32 {
        match self.pages.get(i / PAGE_WORDS) {
            Some(Some(p)) => p.get(i % PAGE_WORDS).copied().unwrap_or(0),
            _ => 0,
        }
    }
    #[inline(always)]
    fn set_word(&mut self, i: usize, v: u32) {
        if let Some(Some(p)) = self.pages.get_mut(i / PAGE_WORDS)
            && let Some(w) = p.get_mut(i % PAGE_WORDS)
        {
            *w = v;
        }
    }
    #[inline(always)]
    fn fill_block(&mut self, start: usize, v: u32, mask: u32) {
        // A block's 64 words lie in one page.
        let i = (start % PAGE_WORDS) & !63;
        if let Some(Some(p)) = self.pages.get_mut(start / PAGE_WORDS)
            && let Some(block) = p.get_mut(i..i + 64)
        {
            if mask == u32::MAX {
                block.fill(v);
            } else {
                for w in block {
                    *w = (*w & !mask) | (v & mask);
                }
            }
        }
    }
}

/// The rows a worker draws: strips of [`STRIP_ROWS`] rows dealt out in turn to `of` workers
/// (every row when `of` is 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Band {
    /// This worker.
    pub worker: u32,
    /// Workers in all.
    pub of: u32,
}

/// Rows in a strip: a multiple of every frame and Z format's page height (32 or 64 rows), so
/// that a page of a frame or Z buffer holds rows of one strip only.
pub const STRIP_ROWS: u32 = 64;

impl Band {
    /// Every row.
    pub const ALL: Band = Band { worker: 0, of: 1 };

    /// The worker that draws row `y` among `of`.
    pub fn worker_of(y: u32, of: u32) -> u32 {
        (y / STRIP_ROWS) % of.max(1)
    }

    #[inline]
    fn has(&self, y: i64) -> bool {
        self.of <= 1 || Band::worker_of(y as u32, self.of) == self.worker
    }

    /// True when one of rows `y0..y1` is this worker's (a draw wholly in other workers'
    /// strips is skipped before any setup: every worker sees every draw of a batch).
    #[inline]
    fn meets(&self, y0: i64, y1: i64) -> bool {
        if y0 >= y1 {
            return false;
        }
        if self.of <= 1 || y1 - y0 >= (STRIP_ROWS * self.of) as i64 {
            return true;
        }
        let strip = |y: i64| y.div_euclid(STRIP_ROWS as i64);
        (strip(y0)..=strip(y1 - 1)).any(|s| s.rem_euclid(self.of as i64) == self.worker as i64)
    }
}

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
            $($k => $f::<$k, _> $args,)*
            _ => unreachable!("fast-path keys run to {}", KEYS - 1),
        }
    };
}

/// The instruction set the pixel pipelines run in: the target's baseline, or (on x86-64
/// processors that have them) AVX2 and the other x86-64-v3 extensions, for which every
/// triangle and sprite function is compiled a second time. Same source, same integer arithmetic: the
/// same pixels (the random scenes of sw_fast_tests.rs run both).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isa {
    /// The target's baseline (SSE2 on x86-64).
    Baseline,
    /// x86-64-v3: AVX2, BMI1/2, FMA, LZCNT, POPCNT (checked at run time).
    X86V3,
}

impl Isa {
    /// The best the processor running this has.
    pub fn detect() -> Isa {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("bmi1")
                && std::arch::is_x86_feature_detected!("bmi2")
                && std::arch::is_x86_feature_detected!("fma")
                && std::arch::is_x86_feature_detected!("lzcnt")
                && std::arch::is_x86_feature_detected!("popcnt")
            {
                return Isa::X86V3;
            }
        }
        Isa::Baseline
    }
}

/// The triangle and sprite functions compiled for x86-64-v3 (see [`Isa`]).
#[cfg(target_arch = "x86_64")]
mod v3 {
    use super::{Band, DrawCommand, Mem, Plan, Sprite};

    #[target_feature(enable = "avx2,bmi1,bmi2,fma,lzcnt,popcnt")]
    pub(super) fn sprite<const K: usize, M: Mem>(p: &Plan, mem: &mut M, sp: &Sprite, band: Band) {
        super::sprite_k::<K, M>(p, mem, sp, band);
    }

    /// `texels[idx[k]]` for each of 8 lanes, 0 where `idx[k]` is outside `texels` (as
    /// `TexView::at`): one AVX2 gather, masked to the lanes in bounds.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(super) fn gather(texels: &[u32], idx: &[i32; 8]) -> [u32; 8] {
        use std::arch::x86_64::*;
        let len = texels.len().min(i32::MAX as usize) as i32;
        let mut out = [0u32; 8];
        // Allowed: the loads and the store are of 8 lanes of 8-lane arrays, and the gather
        // reads only the lanes its mask keeps, each an index below `texels.len()`.
        #[allow(unsafe_code)]
        unsafe {
            let vi = _mm256_loadu_si256(idx.as_ptr().cast());
            let below = _mm256_cmpgt_epi32(_mm256_set1_epi32(len), vi);
            let negative = _mm256_cmpgt_epi32(_mm256_setzero_si256(), vi);
            let keep = _mm256_andnot_si256(negative, below);
            let g = _mm256_mask_i32gather_epi32::<4>(
                _mm256_setzero_si256(),
                texels.as_ptr().cast(),
                vi,
                keep,
            );
            _mm256_storeu_si256(out.as_mut_ptr().cast(), g);
        }
        out
    }

    #[target_feature(enable = "avx2,bmi1,bmi2,fma,lzcnt,popcnt")]
    pub(super) fn triangle<const K: usize, M: Mem>(
        p: &Plan,
        mem: &mut M,
        cmd: &DrawCommand,
        band: Band,
    ) -> Option<u64> {
        super::triangle_k::<K, M>(p, mem, cmd, band)
    }
}

/// [`sprite_k`] in the plan's instruction set.
#[inline(never)]
fn sprite_in<const K: usize, M: Mem>(p: &Plan, mem: &mut M, sp: &Sprite, band: Band) {
    #[cfg(target_arch = "x86_64")]
    if p.isa == Isa::X86V3 {
        // Allowed: the function's only requirement is the processor features it is compiled
        // for, and a plan is X86V3 only where Isa::detect found every one of them.
        #[allow(unsafe_code)]
        unsafe {
            v3::sprite::<K, M>(p, mem, sp, band)
        };
        return;
    }
    sprite_k::<K, M>(p, mem, sp, band);
}

/// [`triangle_k`] in the plan's instruction set.
#[inline(never)]
fn triangle_in<const K: usize, M: Mem>(
    p: &Plan,
    mem: &mut M,
    cmd: &DrawCommand,
    band: Band,
) -> Option<u64> {
    #[cfg(target_arch = "x86_64")]
    if p.isa == Isa::X86V3 {
        // Allowed: as in sprite_in.
        #[allow(unsafe_code)]
        return unsafe { v3::triangle::<K, M>(p, mem, cmd, band) };
    }
    triangle_k::<K, M>(p, mem, cmd, band)
}

/// [`span_k`] of a solid key, as a function of its own (measured faster than inlined into the
/// walk: gs_bench's untextured Z-tested triangles).
#[inline(never)]
fn solid_span<const K: usize, M: Mem>(
    p: &Plan,
    mem: &mut M,
    flat: [i32; 4],
    gouraud: bool,
    row: &Row,
) {
    span_k::<K, M>(p, mem, flat, gouraud, row);
}

/// A triangle's rows, each span drawn by key `K`'s span function: the pixels covered, or
/// `None` (nothing drawn) when it is too large for the walker.
#[inline(always)]
fn triangle_k<const K: usize, M: Mem>(
    p: &Plan,
    mem: &mut M,
    cmd: &DrawCommand,
    band: Band,
) -> Option<u64> {
    let c = &cmd.vertices[2].rgba;
    let flat = [c[0] as i32, c[1] as i32, c[2] as i32, c[3] as i32];
    let gouraud = cmd.prim.iip() != 0;
    let mut spans = TriangleSpans::<K, M> {
        p,
        mem,
        flat,
        gouraud,
        steps: None,
        pixels: 0,
    };
    walk_triangle(p.s, cmd, band, &mut spans).then_some(spans.pixels)
}

/// A triangle's spans of key `K` ([`walk::Spans`]).
struct TriangleSpans<'a, 'p, const K: usize, M: Mem> {
    p: &'a Plan<'p>,
    mem: &'a mut M,
    flat: [i32; 4],
    gouraud: bool,
    /// The interpolants' steps across a group, made at the first grouped span.
    steps: Option<wide::GroupSteps>,
    /// Pixels covered.
    pixels: u64,
}

impl<const K: usize, M: Mem> walk::Spans for TriangleSpans<'_, '_, K, M> {
    #[inline(always)]
    fn span(&mut self, row: &Row) {
        let (p, flat, gouraud) = (self.p, self.flat, self.gouraud);
        self.pixels += (row.hi - row.lo) as u64;
        if Plan::solid::<K>() {
            solid_span::<K, M>(p, self.mem, flat, gouraud, row);
        } else if p.triangle_groups::<K>() {
            let steps = self
                .steps
                .get_or_insert_with(|| wide::GroupSteps::new(&row.lanes, row.den));
            wide::span_groups::<K, M>(p, self.mem, flat, gouraud, row, steps);
        } else {
            span_k::<K, M>(p, self.mem, flat, gouraud, row);
        }
    }
}

/// CLAMP's rule for one axis, branch-free: `((c & and) | or).clamp(lo, hi)`. REPEAT is
/// `c & (size - 1)`, CLAMP `c.clamp(0, size - 1)`, REGION_CLAMP `c.clamp(MIN, max(MIN, MAX))`
/// and REGION_REPEAT `(c & MIN) | MAX` (crate::texel::wrap).
#[derive(Clone, Copy, Debug)]
struct Wrap {
    and: i32,
    or: i32,
    lo: i32,
    hi: i32,
}

impl Wrap {
    fn new(mode: u32, size: i32, min: u32, max: u32) -> Wrap {
        let (min, max) = (min as i32, max as i32);
        let (and, or, lo, hi) = match mode {
            0 => (size - 1, 0, 0, i32::MAX),
            1 => (-1, 0, 0, size - 1),
            2 => (-1, 0, min, max.max(min)),
            _ => (min, max, 0, i32::MAX),
        };
        Wrap { and, or, lo, hi }
    }

    #[inline(always)]
    fn apply(&self, c: i32) -> i32 {
        ((c & self.and) | self.or).clamp(self.lo, self.hi)
    }
}

/// What specialisation `key` is, in words (for `--stats`).
pub fn key_name(key: usize) -> String {
    let tex = ["untextured", "nearest", "bilinear"][(key / TEX_UNIT).min(2)];
    let mut parts = vec![tex];
    for (bit, name) in [
        (ZTEST, "Z test"),
        (ZWRITE, "Z write"),
        (BLEND, "blend"),
        (EXTRA, "fog/alpha test/dither"),
    ] {
        if key & bit != 0 {
            parts.push(name);
        }
    }
    format!("[{}]", parts.join(", "))
}

/// How a fast draw samples its texture: level 0, decoded.
#[derive(Clone, Copy)]
pub struct TexView<'a> {
    /// `w * h` packed texels (R bits 0-7 .. A bits 24-31).
    texels: &'a [u32],
    w_log: u32,
    wrap_u: Wrap,
    wrap_v: Wrap,
}

/// Bilinear filtering of four packed texels with weights in sixteenths (`fx`, `fy`): each
/// channel `sum(c * w) >> 8`. The weights sum to 256, so a channel's sum stays below 2^16 and
/// R/B and G/A are filtered as two 16-bit lanes of one word.
#[inline(always)]
fn bilerp(c00: u32, c10: u32, c01: u32, c11: u32, fx: u32, fy: u32) -> u32 {
    let w = [
        (16 - fx) * (16 - fy),
        fx * (16 - fy),
        (16 - fx) * fy,
        fx * fy,
    ];
    let lane = |sh: u32| {
        const M: u32 = 0x00ff_00ff;
        ((((c00 >> sh) & M) * w[0]
            + ((c10 >> sh) & M) * w[1]
            + ((c01 >> sh) & M) * w[2]
            + ((c11 >> sh) & M) * w[3])
            >> 8)
            & M
    };
    lane(0) | (lane(8) << 8)
}

impl TexView<'_> {
    /// The texel at wrapped column `x` of the row starting at `row` (a wrapped row << w_log).
    #[inline(always)]
    fn at(&self, row: usize, x: i32) -> u32 {
        self.texels.get(row + x as usize).copied().unwrap_or(0)
    }

    #[inline(always)]
    fn nearest(&self, u: i32, v: i32) -> u32 {
        let y = self.wrap_v.apply(v >> 4);
        self.at((y as usize) << self.w_log, self.wrap_u.apply(u >> 4))
    }

    /// Bilinear: texel centres at +0.5, weights in sixteenths.
    #[inline(always)]
    fn bilinear(&self, u: i32, v: i32) -> u32 {
        let (u, v) = (u - 8, v - 8);
        let (x0, y0) = (u >> 4, v >> 4);
        let (xa, xb) = (self.wrap_u.apply(x0), self.wrap_u.apply(x0 + 1));
        let ra = (self.wrap_v.apply(y0) as usize) << self.w_log;
        let rb = (self.wrap_v.apply(y0 + 1) as usize) << self.w_log;
        bilerp(
            self.at(ra, xa),
            self.at(ra, xb),
            self.at(rb, xa),
            self.at(rb, xb),
            (u & 15) as u32,
            (v & 15) as u32,
        )
    }
}

/// A sprite's texel columns or rows, wrapped once per sprite: for each pixel the first and
/// second texel (the second for bilinear; rows already multiplied by the texture's width) and
/// the weight in sixteenths.
#[derive(Default)]
struct Axis {
    a: Vec<i32>,
    b: Vec<i32>,
    f: Vec<u32>,
}

thread_local! {
    /// The columns and rows of the last textured sprite drawn on this thread, reused by the
    /// next ([`sprite_k`]).
    static SPRITE_AXES: std::cell::Cell<Option<Box<(Axis, Axis)>>> =
        const { std::cell::Cell::new(None) };
}

impl Axis {
    /// The axis of `coords` (replacing what it held).
    fn fill(&mut self, coords: &[i32], wrap: &Wrap, linear: bool, scale: i32) {
        let ax = self;
        ax.a.clear();
        ax.b.clear();
        ax.f.clear();
        for &c in coords {
            let (i, f) = if linear {
                ((c - 8) >> 4, ((c - 8) & 15) as u32)
            } else {
                (c >> 4, 0)
            };
            ax.a.push(wrap.apply(i) * scale);
            ax.b.push(wrap.apply(i + 1) * scale);
            ax.f.push(f);
        }
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
    /// The frame bits a 32- or 24-bit write changes (FBMSK's zeros within the format).
    write32: u32,
    /// The bits a 16-bit write keeps (FBMSK at the 5:5:5:1 positions).
    keep16: u32,
    /// How the Z buffer stores a value.
    zstore: ZStore,
    /// ALPHA is A = Cs, B = Cd, C = As, D = Cd (blending "over", the usual equation).
    alpha_over: bool,
    /// Pixels may go a group at a time ([`Plan::groups`]).
    grouped: bool,
    /// The instruction set its pipelines run in.
    isa: Isa,
}

/// The pixels a block fill covered: columns `x0..x1`, rows `y0..y1`.
#[derive(Clone, Copy, Debug)]
struct Fill {
    x0: i64,
    x1: i64,
    y0: i64,
    y1: i64,
}

/// A Z buffer's storage: whole words, the low 24 bits of words, or halfwords (the Z formats,
/// and the colour formats a Z buffer takes when the frame is a Z format).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ZStore {
    Word,
    Low24,
    Half,
}

/// The 32-bit FBMSK's bits at a 16-bit pixel's 5:5:5:1 positions.
#[inline(always)]
fn keep16_of(mask: u32) -> u32 {
    ((mask >> 3) & 0x1f) | ((mask >> 6) & 0x3e0) | ((mask >> 9) & 0x7c00) | ((mask >> 16) & 0x8000)
}

/// How the fast paths take a draw ([`classify`]).
#[derive(Clone, Debug)]
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
    if s.coverage_alpha {
        // AA1's alpha: the general path.
        return None;
    }
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
    /// The plan of a classified draw, drawn in `isa`; `texels` the decoded level 0 when
    /// textured.
    pub fn new(s: &'a PixelState, c: &Classified, texels: Option<&'a [u32]>, isa: Isa) -> Plan<'a> {
        let tex = s.tex.as_ref().zip(texels).map(|(t, texels)| {
            let cl = t.clamp;
            TexView {
                texels,
                w_log: t.tw,
                wrap_u: Wrap::new(cl.wms(), 1 << t.tw, cl.minu(), cl.maxu()),
                wrap_v: Wrap::new(cl.wmt(), 1 << t.th, cl.minv(), cl.maxv()),
            }
        });
        let tex_mode = if tex.is_some() { c.tex } else { 0 };
        let mut plan = Plan {
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
            write32: !s.fbmsk
                & if s.fpsm.transfer_bits() == 24 {
                    0x00ff_ffff
                } else {
                    u32::MAX
                },
            keep16: keep16_of(s.fbmsk),
            alpha_over: {
                let a = s.alpha;
                (a.a(), a.b(), a.c(), a.d()) == (0, 1, 0, 1)
            },
            zstore: match s.zpsm {
                Psm::Z16 | Psm::Z16s | Psm::Ct16 | Psm::Ct16s => ZStore::Half,
                Psm::Z24 | Psm::Ct24 => ZStore::Low24,
                _ => ZStore::Word,
            },
            grouped: false,
            isa,
        };
        plan.grouped = plan.groups();
        plan
    }

    /// Draws a sprite.
    pub fn sprite<M: Mem>(&self, mem: &mut M, sp: &Sprite, band: Band) -> u64 {
        dispatch!(self.key, sprite_in, (self, mem, sp, band));
        let rows = (sp.y0..sp.y1).filter(|&y| band.has(y)).count() as u64;
        (sp.x1 - sp.x0).max(0) as u64 * rows
    }

    /// Draws a triangle: the pixels it covered, or `None` (nothing drawn) when it is too
    /// large for the fast walker.
    pub fn triangle<M: Mem>(&self, mem: &mut M, cmd: &DrawCommand, band: Band) -> Option<u64> {
        dispatch!(self.key, triangle_in, (self, mem, cmd, band))
    }

    /// The stored form of colour `c` with no blend and no dither: each channel clamped
    /// (COLCLAMP 1) or wrapped to 8 bits, FBA on the alpha, packed as the frame stores it.
    #[inline(always)]
    fn pack(&self, c: [i32; 4]) -> u32 {
        let ch = |v: i32| {
            if self.s.colclamp {
                v.clamp(0, 255) as u32
            } else {
                (v & 0xff) as u32
            }
        };
        let a = (c[3] & 0xff) as u32 | if self.s.fba { 0x80 } else { 0 };
        if self.fbits == 16 {
            (ch(c[0]) >> 3) | ((ch(c[1]) >> 3) << 5) | ((ch(c[2]) >> 3) << 10) | ((a >> 7) << 15)
        } else {
            ch(c[0]) | (ch(c[1]) << 8) | (ch(c[2]) << 16) | (a << 24)
        }
    }

    /// Writes a packed colour at `faddr` under FBMSK.
    #[inline(always)]
    fn store_colour<M: Mem>(&self, mem: &mut M, faddr: u32, v: u32) {
        if self.fbits == 16 {
            write16_keep(mem, faddr, v, self.keep16);
        } else {
            let i = faddr as usize & (MEM_WORDS - 1);
            if self.write32 == u32::MAX {
                mem.set_word(i, v);
            } else {
                mem.set_word(i, (mem.word(i) & !self.write32) | (v & self.write32));
            }
        }
    }

    #[inline(always)]
    fn load_z<M: Mem>(&self, mem: &M, a: u32) -> u32 {
        match self.zstore {
            ZStore::Half => read16(mem, a),
            ZStore::Low24 => mem.word(a as usize & (MEM_WORDS - 1)) & 0x00ff_ffff,
            ZStore::Word => mem.word(a as usize & (MEM_WORDS - 1)),
        }
    }

    #[inline(always)]
    fn store_z<M: Mem>(&self, mem: &mut M, a: u32, z: u32) {
        let i = a as usize & (MEM_WORDS - 1);
        match self.zstore {
            ZStore::Half => write16_keep(mem, a, z, 0),
            ZStore::Low24 => mem.set_word(i, (mem.word(i) & 0xff00_0000) | (z & 0x00ff_ffff)),
            ZStore::Word => mem.set_word(i, z),
        }
    }

    /// True when key `K` draws without texture, blending or the rarer stages: a pixel is its
    /// packed colour, stored after the Z test.
    const fn solid<const K: usize>() -> bool {
        K / TEX_UNIT == 0 && K & (BLEND | EXTRA) == 0
    }

    /// True when the spans of key `K` go a group at a time ([`wide::span_groups`]): textured
    /// keys where the lanes are eight wide (x86-64-v3), whose texel fetches are gathers there.
    /// Measured with gs_bench: faster for every textured key (bilinear blended triangles 52 ->
    /// 88 Mpixels/s, nearest 90 -> 120), slower for untextured ones (blended 108 -> 70).
    #[inline(always)]
    fn triangle_groups<const K: usize>(&self) -> bool {
        K / TEX_UNIT != 0 && Self::grouped_key::<K>() && self.grouped && self.isa == Isa::X86V3
    }

    /// True when key `K` goes a group of pixels at a time where the plan allows ([`wide`]):
    /// textured or blended, without the rarer stages.
    const fn grouped_key<const K: usize>() -> bool {
        !Self::solid::<K>() && K & EXTRA == 0
    }

    /// A solid pixel (see [`Plan::solid`]): Z test, colour, Z.
    #[inline(always)]
    fn solid_pixel<const K: usize, M: Mem>(
        &self,
        mem: &mut M,
        x: u32,
        frow: &RowOffsets,
        zrow: &RowOffsets,
        colour: u32,
        z: u32,
    ) {
        let zaddr = if K & (ZTEST | ZWRITE) != 0 {
            zrow.address(x)
        } else {
            0
        };
        if K & ZTEST != 0 {
            let zd = self.load_z(mem, zaddr);
            let pass = match self.s.test.ztst() {
                0 => false,
                2 => z >= zd,
                _ => z > zd,
            };
            if !pass {
                return;
            }
        }
        self.store_colour(mem, frow.address(x), colour);
        if K & ZWRITE != 0 {
            self.store_z(mem, zaddr, z);
        }
    }

    /// Fills the whole blocks inside a solid sprite with its colour (and its Z when written),
    /// a block at a time, when the frame's blocks and the Z buffer's are 8 rows high and the
    /// two buffers do not share a page (so that writing all colours, then all Z values, leaves
    /// memory as pixel by pixel would). Returns the pixel rectangle filled (`x0..x1` by
    /// `y0..y1`; the rows and columns around it are the caller's), or `None` when nothing was.
    fn fill_blocks<const K: usize, M: Mem>(
        &self,
        mem: &mut M,
        sp: &Sprite,
        band: Band,
        colour: u32,
        z: u32,
    ) -> Option<Fill> {
        let s = self.s;
        if s.scanmsk >= 2 {
            return None;
        }
        // Block widths: 8 pixels for 32-bit layouts, 16 for 16-bit ones (both 8 rows high).
        let width = |psm: Psm| if psm.transfer_bits() == 16 { 16 } else { 8 };
        let (fw, zw) = (width(s.fpsm), width(s.zpsm));
        let bw = fw.max(zw);
        let fill = Fill {
            x0: (sp.x0 + bw - 1) / bw * bw,
            x1: sp.x1 / bw * bw,
            y0: (sp.y0 + 7) / 8 * 8,
            y1: sp.y1 / 8 * 8,
        };
        if fill.x0 >= fill.x1 || fill.y0 >= fill.y1 {
            return None;
        }
        let (xs, ys) = (
            (fill.x0 as u32, fill.x1 as u32 - 1),
            (fill.y0 as u32, fill.y1 as u32 - 1),
        );
        if K & ZWRITE != 0 {
            let mut fp = crate::texcache::PageSet::default();
            fp.add_rect(s.fpsm, s.fbp, s.fbw, xs, ys);
            let mut zp = crate::texcache::PageSet::default();
            zp.add_rect(s.zpsm, s.zbp, s.fbw, xs, ys);
            if fp.intersects(&zp) {
                return None;
            }
        }
        // The colour as the words of a block take it, and the bits written.
        let (fv, fmask) = if self.fbits == 16 {
            let keep = self.keep16 | self.keep16 << 16;
            (colour | colour << 16, !keep)
        } else {
            (colour, self.write32)
        };
        let (zv, zmask) = match self.zstore {
            ZStore::Half => (z & 0xffff | z << 16, u32::MAX),
            ZStore::Low24 => (z, 0x00ff_ffff),
            ZStore::Word => (z, u32::MAX),
        };
        // A block's first word: its address with the offset inside the block cleared (a block
        // is 64 words in every layout).
        let start = |o: &Offsets, psm: Psm, x: i64, y: i64| {
            let a = o.address(x as u32, y as u32) as usize;
            if psm.transfer_bits() == 16 {
                (a >> 7) << 6
            } else {
                (a >> 6) << 6
            }
        };
        for by in (fill.y0..fill.y1).step_by(8) {
            if !band.has(by) {
                continue;
            }
            for bx in (fill.x0..fill.x1).step_by(fw as usize) {
                mem.fill_block(start(&self.fb, s.fpsm, bx, by), fv, fmask);
            }
            if K & ZWRITE != 0 {
                for bx in (fill.x0..fill.x1).step_by(zw as usize) {
                    mem.fill_block(start(&self.z, s.zpsm, bx, by), zv, zmask);
                }
            }
        }
        Some(fill)
    }

    /// True when row `y` is masked out by SCANMSK (2: even rows, 3: odd rows).
    #[inline]
    fn row_masked(&self, y: u32) -> bool {
        let m = self.s.scanmsk;
        (m == 2 && y & 1 == 0) || (m == 3 && y & 1 == 1)
    }
}

#[inline(always)]
fn sprite_k<const K: usize, M: Mem>(p: &Plan, mem: &mut M, sp: &Sprite, band: Band) {
    if !band.meets(sp.y0, sp.y1) {
        return;
    }
    let b = &sp.base;
    let tex = K / TEX_UNIT;
    let linear = tex == TEX_LINEAR;
    // Texel columns and rows wrapped once for the whole sprite (U depends on the column
    // only, V on the row only), into this thread's axes kept from the last sprite (no
    // allocation a sprite once they are long enough).
    let axes = p.tex.filter(|_| tex != 0).map(|t| {
        let mut ax = SPRITE_AXES.take().unwrap_or_default();
        ax.0.fill(&sp.us, &t.wrap_u, linear, 1);
        ax.1.fill(&sp.vs, &t.wrap_v, linear, 1 << t.w_log);
        ax
    });
    // A solid sprite: one colour and one Z for every pixel.
    let solid = Plan::solid::<K>().then(|| (p.pack(b.rgba), b.z.min(p.zmax) as u32));
    // Without a Z test its pixels do not depend on memory: whole 8-row blocks inside it are
    // filled a block at a time (the rest pixel by pixel below).
    let fill = match solid {
        Some((colour, z)) if K & ZTEST == 0 => p.fill_blocks::<K, M>(mem, sp, band, colour, z),
        _ => None,
    };
    for (j, y) in (sp.y0..sp.y1).enumerate() {
        if !band.has(y) {
            continue;
        }
        let y = y as u32;
        if p.row_masked(y) {
            continue;
        }
        let (frow, zrow) = (p.fb.row(y), p.z.row(y));
        if let Some((colour, z)) = solid {
            if let Some(fill) = &fill {
                // Whole blocks were filled; the pixels of the rows and columns around them here.
                let y = y as i64;
                if y >= fill.y0 && y < fill.y1 {
                    for x in (sp.x0..fill.x0).chain(fill.x1..sp.x1) {
                        p.solid_pixel::<K, M>(mem, x as u32, &frow, &zrow, colour, z);
                    }
                    continue;
                }
            }
            for x in sp.x0..sp.x1 {
                p.solid_pixel::<K, M>(mem, x as u32, &frow, &zrow, colour, z);
            }
            continue;
        }
        if Plan::grouped_key::<K>() && p.grouped {
            wide::sprite_row_groups::<K, M>(p, mem, sp, j, axes.as_deref(), &frow, &zrow);
            continue;
        }
        for (i, x) in (sp.x0..sp.x1).enumerate() {
            let texel = match (axes.as_deref(), &p.tex) {
                (Some((cols, rows)), Some(t)) => {
                    let (ra, xa) = (rows.a[j] as usize, cols.a[i]);
                    if linear {
                        let (rb, xb) = (rows.b[j] as usize, cols.b[i]);
                        bilerp(
                            t.at(ra, xa),
                            t.at(ra, xb),
                            t.at(rb, xa),
                            t.at(rb, xb),
                            cols.f[i],
                            rows.f[j],
                        )
                    } else {
                        t.at(ra, xa)
                    }
                }
                _ => 0,
            };
            shade::<K, M>(p, mem, x as u32, y, &frow, &zrow, b.rgba, b.z, b.f, texel);
        }
    }
    if let Some(ax) = axes {
        SPRITE_AXES.set(Some(ax));
    }
}

#[inline(always)]
fn span_k<const K: usize, M: Mem>(p: &Plan, mem: &mut M, flat: [i32; 4], gouraud: bool, row: &Row) {
    let y = row.y as u32;
    if p.row_masked(y) {
        return;
    }
    let (frow, zrow) = (p.fb.row(y), p.z.row(y));
    let mut l = row.lanes;
    if Plan::solid::<K>() {
        let flat_colour = p.pack(flat);
        for x in row.lo..row.hi {
            let colour = if gouraud {
                p.pack([l.q[0], l.q[1], l.q[2], l.q[3]].map(|c| c.clamp(0, 255)))
            } else {
                flat_colour
            };
            let z = (l.q[LANE_Z] as u32 as u64).min(p.zmax) as u32;
            p.solid_pixel::<K, M>(mem, x as u32, &frow, &zrow, colour, z);
            l.step(row.den);
        }
        return;
    }
    let mut n = row.n;
    let dn = row.persp.map_or([0; 3], |pp| pp.dn);
    for x in row.lo..row.hi {
        let rgba = if gouraud {
            [l.q[0], l.q[1], l.q[2], l.q[3]].map(|c| c.clamp(0, 255))
        } else {
            flat
        };
        let zv = l.q[LANE_Z] as u32 as u64;
        let fv = l.q[LANE_FOG].clamp(0, 255);
        let texel = match &p.tex {
            Some(t) if K / TEX_UNIT != 0 => {
                let (u, v) = match &row.persp {
                    Some(pp) => (
                        persp_coord(n[0], n[2], pp.sh_s),
                        persp_coord(n[1], n[2], pp.sh_t),
                    ),
                    None => (l.q[LANE_U], l.q[LANE_V]),
                };
                if K / TEX_UNIT == TEX_LINEAR {
                    t.bilinear(u, v)
                } else {
                    t.nearest(u, v)
                }
            }
            _ => 0,
        };
        shade::<K, M>(p, mem, x as u32, y, &frow, &zrow, rgba, zv, fv, texel);
        l.step(row.den);
        for (ni, d) in n.iter_mut().zip(dn) {
            *ni += d;
        }
    }
}

#[inline(always)]
fn read16<M: Mem>(mem: &M, half: u32) -> u32 {
    (mem.word((half >> 1) as usize & (MEM_WORDS - 1)) >> ((half & 1) * 16)) & 0xffff
}

#[inline(always)]
fn write16_keep<M: Mem>(mem: &mut M, half: u32, value: u32, keep: u32) {
    let sh = (half & 1) * 16;
    let i = (half >> 1) as usize & (MEM_WORDS - 1);
    let w = mem.word(i);
    let old = (w >> sh) & 0xffff;
    let v = (old & keep) | (value & !keep & 0xffff);
    mem.set_word(i, (w & !(0xffff << sh)) | (v << sh));
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
/// interpolated colour, Z and fog, and the (filtered) texel when textured.
#[inline(always)]
fn shade<const K: usize, M: Mem>(
    p: &Plan,
    mem: &mut M,
    x: u32,
    y: u32,
    frow: &RowOffsets,
    zrow: &RowOffsets,
    rgba: [i32; 4],
    z: u64,
    f: i32,
    texel: u32,
) {
    let s = p.s;
    let t = s.test;
    let mut c = rgba;
    if K / TEX_UNIT != 0 {
        c = crate::sw::tfx(p.tfx, p.tcc, unpack(texel), rgba);
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
            _ => mem.word(faddr as usize & (MEM_WORDS - 1)),
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
        let zd = p.load_z(mem, zaddr);
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
            if p.alpha_over {
                // The usual (Cs - Cd) * As >> 7 + Cd.
                for i in 0..3 {
                    out[i] = (((c[i] - d[i]) * c[3]) >> 7) + d[i];
                }
            } else {
                let cf = match al.c() {
                    0 => c[3],
                    1 => d[3],
                    _ => al.fix() as i32,
                };
                let pick = |sel: u32| match sel {
                    0 => [c[0], c[1], c[2]],
                    1 => [d[0], d[1], d[2]],
                    _ => [0; 3],
                };
                let (a, b, dd) = (pick(al.a()), pick(al.b()), pick(al.d()));
                for (i, o) in out.iter_mut().enumerate().take(3) {
                    // Cv = ((A - B) * C >> 7) + D, arithmetic shift.
                    *o = (((a[i] - b[i]) * cf) >> 7) + dd[i];
                }
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
        if !rgb_only {
            let v = if fbits == 16 {
                ((out[0] as u32) >> 3)
                    | (((out[1] as u32) >> 3) << 5)
                    | (((out[2] as u32) >> 3) << 10)
                    | (((a as u32) >> 7) << 15)
            } else {
                out[0] as u32
                    | ((out[1] as u32) << 8)
                    | ((out[2] as u32) << 16)
                    | ((a as u32) << 24)
            };
            p.store_colour(mem, faddr, v);
        } else {
            // AFAIL RGB_ONLY: the alpha bits are kept as well as FBMSK's.
            let mask = s.fbmsk | 0xff00_0000;
            match fbits {
                16 => {
                    let v = ((out[0] as u32) >> 3)
                        | (((out[1] as u32) >> 3) << 5)
                        | (((out[2] as u32) >> 3) << 10)
                        | (((a as u32) >> 7) << 15);
                    write16_keep(mem, faddr, v, keep16_of(mask));
                }
                _ => {
                    let v = out[0] as u32
                        | ((out[1] as u32) << 8)
                        | ((out[2] as u32) << 16)
                        | ((a as u32) << 24);
                    let fmt = if fbits == 24 { 0x00ff_ffff } else { u32::MAX };
                    let write = !mask & fmt;
                    let i = faddr as usize & (MEM_WORDS - 1);
                    mem.set_word(i, (mem.word(i) & !write) | (v & write));
                }
            }
        }
    }
    if z_write {
        p.store_z(mem, zaddr, zv);
    }
}

#[cfg(test)]
mod band_tests {
    use super::Band;

    /// [`Band::meets`] says whether any row of a range is the worker's, as asking
    /// [`Band::has`] of every row does: ranges across strip edges, long and empty ones.
    #[test]
    fn meets_is_has_of_some_row() {
        let mut rng = crate::scenes::Rng(0x5eed_ba4d);
        for _ in 0..20_000 {
            let of = 1 + rng.below(5) as u32;
            let worker = rng.below(of as u64) as u32;
            let band = Band { worker, of };
            let y0 = rng.below(2048) as i64;
            let y1 = y0 + rng.below(700) as i64 - 20;
            let want = (y0..y1).any(|y| band.has(y));
            assert_eq!(band.meets(y0, y1), want, "{band:?} rows {y0}..{y1}");
        }
    }
}
