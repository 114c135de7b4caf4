//! Draws packed for `shaders/gs_draw.wgsl`: the numbers of piney-gs's `raster` module laid out as
//! u32 words, binned into 16 x 16 tiles, with the page bookkeeping that decides when a batch
//! must end. No wgpu here: the packing is tested on the CPU.
//!
//! Layouts (word offsets; 64-bit values are low then high word, two's complement):
//! - State (35 words, shared by the primitives that use it): 0 flags (`F_*`), 1 FPSM | ZPSM << 8
//!   | SCANMSK << 16, 2 FBP, 3 FBW, 4 FBMSK, 5 ZBP, 6 TEST, 7 ALPHA A-D | FIX << 8, 8-11 scissor
//!   x0, x1, y0, y1, 12 FOGCOL, 13-14 DIMX, 15 texture PSM | CPSM << 8 | TW << 16 | TH << 20 |
//!   TCC << 24 | TFX << 25 | CSA << 27, 16-22 level base pointers, 23-29 level widths, 30-31
//!   CLAMP, 32 TA0 | AEM << 8 | TA1 << 16, 33-34 TEX1.
//! - Sprite: 0 kind 0, 1 state, 2-5 x0, x1, y0, y1, 6 U table, 7 V table, 8 RGBA, 9 Z, 10 F,
//!   11 log2 Q, 12 one-to-one copy; the tables follow (one word a column, a row).
//! - At render scale N triangles' rows and columns are fine pixels (N per pixel); everything
//!   else is in pixels. Bounding boxes for binning are in fine pixels.
//! - Triangle: 0 kind 1, 1 state, 2 first row, 3 rows, 4 row table, 5 row stride, 6 attribute
//!   mask (`A_*`), 7 flat RGBA, 8 log2 Q, 9-10 area, then the steps (dq, dr; 4 words each) of R,
//!   G, B, A at 11, Z at 27, F at 31, U and V at 35, the perspective numerators' steps (S, T, Q)
//!   at 43, the shifts of u and v at 49-50, Q's fixed-point unit exponent at 51. A row: lo, hi, then (q, r) of
//!   each attribute present, in that order, then the perspective numerators.
//! - Fragments (lines, points): 0 kind 2, 1 state, 2 x-major, 3 first major coordinate, 4
//!   count, then 8 words each: x, y, RGBA, Z, F, U, V, log2 Q.

use piney_gs::DrawCommand;
use piney_gs::PrimKind;
use piney_gs::Psm;
use piney_gs::raster::{self, PixelState, Span};

/// Tile edge in fine pixels (the shader's workgroup is one tile).
pub const TILE: u32 = 16;

/// State flags.
pub const F_TEX: u32 = 1;
/// Fogging.
pub const F_FOG: u32 = 2;
/// Blending.
pub const F_BLEND: u32 = 4;
/// PABE.
pub const F_PABE: u32 = 8;
/// FBA.
pub const F_FBA: u32 = 16;
/// COLCLAMP.
pub const F_COLCLAMP: u32 = 32;
/// Dithering.
pub const F_DITHER: u32 = 64;
/// ZMSK.
pub const F_ZMSK: u32 = 128;
/// The LOD comes from each pixel's Q.
pub const F_LOD_FROM_Q: u32 = 256;
/// AA1 without ABE: the source alpha is 0x80 (`PixelState::coverage_alpha`).
pub const F_COVERAGE_ALPHA: u32 = 512;

/// Triangle attributes.
const A_COL: u32 = 1;
const A_Z: u32 = 2;
const A_FOG: u32 = 4;
const A_UV: u32 = 8;
const A_PERSP: u32 = 16;

/// A set of the 512 pages of local memory (8 KiB each).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pages([u64; 8]);

impl Pages {
    fn add(&mut self, page: u32) {
        let p = page & 511;
        self.0[(p >> 6) as usize] |= 1 << (p & 63);
    }

    /// True when the sets share a page.
    pub fn overlaps(&self, o: &Pages) -> bool {
        self.0.iter().zip(&o.0).any(|(a, b)| a & b != 0)
    }

    /// Adds every page of `o`.
    pub fn union(&mut self, o: &Pages) {
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            *a |= b;
        }
    }

    /// True when the set has no page.
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    /// The set as runs of consecutive pages, `(first, end)` in order.
    pub fn runs(&self) -> Vec<(u32, u32)> {
        let mut runs: Vec<(u32, u32)> = Vec::new();
        for p in 0..512u32 {
            if self.0[(p >> 6) as usize] & (1 << (p & 63)) == 0 {
                continue;
            }
            match runs.last_mut() {
                Some((_, end)) if *end == p => *end = p + 1,
                _ => runs.push((p, p + 1)),
            }
        }
        runs
    }

    /// The pages holding pixels `x0..x1` by `y0..y1` of a buffer (`bp` in blocks, `bw` in 64
    /// pixels), as the swizzles of [`piney_gs::mem`] place them.
    pub fn of_rect(
        psm: Psm,
        bp: u32,
        bw: u32,
        (x0, x1): (u32, u32),
        (y0, y1): (u32, u32),
    ) -> Pages {
        let mut set = Pages::default();
        if x0 >= x1 || y0 >= y1 {
            return set;
        }
        let (pw, ph) = psm.page_size();
        // PSMT8 and PSMT4 pages are 128 wide: a row of pages is BW / 2 of them.
        let row = if pw == 128 { bw >> 1 } else { bw };
        for py in y0 / ph..=(y1 - 1) / ph {
            for px in x0 / pw..=(x1 - 1) / pw {
                let block = bp + (py * row + px) * 32;
                // A buffer need not start on a page: its page may straddle two.
                set.add(block >> 5);
                set.add((block + 31) >> 5);
            }
        }
        set
    }

    /// Every page (a rectangle too large to bother).
    pub fn all() -> Pages {
        Pages([u64::MAX; 8])
    }
}

/// A buffer a draw writes, by its layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Target {
    psm: Psm,
    bp: u32,
    bw: u32,
}

/// What a draw touches in local memory.
#[derive(Clone, Debug)]
pub struct Footprint {
    /// Frame and Z pages (read and written by the pixel's own invocation).
    pub written: Pages,
    /// Texture pages.
    pub texture: Pages,
    targets: [Option<(Target, Pages)>; 2],
}

impl Footprint {
    /// True when the draw reads texels it may write itself (a feedback draw whose result
    /// depends on the order its own pixels are drawn in).
    pub fn feeds_back(&self) -> bool {
        self.written.overlaps(&self.texture)
    }
}

/// The texture pages a state can read (every level it may sample; region modes read up to
/// 1024 texels).
fn texture_pages(s: &PixelState) -> Pages {
    let mut set = Pages::default();
    let Some(t) = &s.tex else {
        return set;
    };
    // Levels above 0 are sampled only by the mipmapping filters (MMIN 2-5).
    let levels = if (2..=5).contains(&t.tex1.mmin()) {
        t.tex1.mxl().min(6) as usize
    } else {
        0
    };
    let c = t.clamp;
    for l in 0..=levels {
        let w = if c.wms() >= 2 { 1024 } else { 1u32 << t.tw };
        let h = if c.wmt() >= 2 { 1024 } else { 1u32 << t.th };
        let (w, h) = ((w >> l).max(1), (h >> l).max(1));
        set.union(&Pages::of_rect(t.psm, t.bp[l], t.bw[l], (0, w), (0, h)));
    }
    set
}

/// The state words of `s`.
pub fn state_words(s: &PixelState) -> [u32; 35] {
    let mut w = [0u32; 35];
    let mut flags = 0;
    let set = |c: bool, f: u32| if c { f } else { 0 };
    flags |= set(s.tex.is_some(), F_TEX);
    flags |= set(s.fog.is_some(), F_FOG);
    flags |= set(s.blend, F_BLEND);
    flags |= set(s.pabe, F_PABE);
    flags |= set(s.fba, F_FBA);
    flags |= set(s.colclamp, F_COLCLAMP);
    flags |= set(s.dither.is_some(), F_DITHER);
    flags |= set(s.zmsk, F_ZMSK);
    flags |= set(s.coverage_alpha, F_COVERAGE_ALPHA);
    flags |= set(
        s.tex.as_ref().is_some_and(raster::TexState::lod_from_q),
        F_LOD_FROM_Q,
    );
    w[0] = flags;
    // SCANMSK values other than 2 and 3 mask nothing.
    let scanmsk = if s.scanmsk <= 3 { s.scanmsk as u32 } else { 0 };
    w[1] = s.fpsm.code() as u32 | (s.zpsm.code() as u32) << 8 | scanmsk << 16;
    w[2] = s.fbp;
    w[3] = s.fbw;
    w[4] = s.fbmsk;
    w[5] = s.zbp;
    w[6] = s.test.0 as u32;
    w[7] = (s.alpha.0 & 0xff) as u32 | s.alpha.fix() << 8;
    let (x0, x1, y0, y1) = s.scissor;
    w[8..12].copy_from_slice(&[x0 as u32, x1 as u32, y0 as u32, y1 as u32]);
    w[12] = s.fog.map_or(0, |f| f.0 as u32 & 0xff_ffff);
    if let Some(d) = s.dither {
        w[13] = d.0 as u32;
        w[14] = (d.0 >> 32) as u32;
    }
    if let Some(t) = &s.tex {
        w[15] = t.psm.code() as u32
            | (t.cpsm.code() as u32) << 8
            | t.tw << 16
            | t.th << 20
            | (t.tcc as u32) << 24
            | (t.tfx & 3) << 25
            | (t.csa & 31) << 27;
        w[16..23].copy_from_slice(&t.bp);
        w[23..30].copy_from_slice(&t.bw);
        w[30] = t.clamp.0 as u32;
        w[31] = (t.clamp.0 >> 32) as u32;
        w[32] = t.texa.ta0() | t.texa.aem() << 8 | t.texa.ta1() << 16;
        w[33] = t.tex1.0 as u32;
        w[34] = (t.tex1.0 >> 32) as u32;
    }
    w
}

fn push64(out: &mut Vec<u32>, v: i64) {
    out.push(v as u32);
    out.push((v >> 32) as u32);
}

fn rgba_word(c: [i32; 4]) -> u32 {
    (c[0] as u32 & 0xff)
        | (c[1] as u32 & 0xff) << 8
        | (c[2] as u32 & 0xff) << 16
        | (c[3] as u32) << 24
}

/// A packed primitive: its words (with `state` as the state's offset, `base` its own offset)
/// and its bounding box on the fine grid of the render scale (`x0..x1`, `y0..y1`, inside
/// 0..2048 * scale).
pub struct Packed {
    /// The words.
    pub words: Vec<u32>,
    /// Columns.
    pub x: (u32, u32),
    /// Rows.
    pub y: (u32, u32),
}

impl Packed {
    /// The columns and rows of tiles its box touches.
    fn tile_ranges(&self) -> (std::ops::Range<u32>, std::ops::Range<u32>) {
        (
            self.x.0 / TILE..self.x.1.div_ceil(TILE),
            self.y.0 / TILE..self.y.1.div_ceil(TILE),
        )
    }

    /// How many tiles its box touches (its entries in the tile lists).
    pub fn tiles(&self) -> usize {
        let (xs, ys) = self.tile_ranges();
        xs.len() * ys.len()
    }
}

fn clip_box(x0: i64, x1: i64, y0: i64, y1: i64, scale: u32) -> Option<((u32, u32), (u32, u32))> {
    let c = |v: i64| v.clamp(0, 2048 * scale as i64) as u32;
    let (x0, x1, y0, y1) = (c(x0), c(x1), c(y0), c(y1));
    (x0 < x1 && y0 < y1).then_some(((x0, x1), (y0, y1)))
}

/// Packs one draw at word offset `base` with its state at `state`; `None` when it covers no
/// pixel.
pub fn pack(
    s: &PixelState,
    cmd: &DrawCommand,
    base: u32,
    state: u32,
    scale: u32,
) -> Option<Packed> {
    let n = scale as i64;
    match cmd.kind {
        PrimKind::Sprite => {
            let sp = raster::sprite(s, cmd);
            let (x, y) = clip_box(sp.x0 * n, sp.x1 * n, sp.y0 * n, sp.y1 * n, scale)?;
            let f = sp.base;
            let us = base + 13;
            let vs = us + sp.us.len() as u32;
            let mut w = vec![
                0,
                state,
                sp.x0 as u32,
                sp.x1 as u32,
                sp.y0 as u32,
                sp.y1 as u32,
                us,
                vs,
                rgba_word(f.rgba),
                f.z as u32,
                f.f as u32,
                f.log2q as u32,
                sp.one_to_one as u32,
            ];
            w.extend(sp.us.iter().map(|&u| u as u32));
            w.extend(sp.vs.iter().map(|&v| v as u32));
            Some(Packed { words: w, x, y })
        }
        PrimKind::Triangle => pack_triangle(s, cmd, base, state, scale),
        PrimKind::Line | PrimKind::Point => {
            let fr = if cmd.kind == PrimKind::Line {
                raster::line(s, cmd)
            } else {
                raster::point(s, cmd)
            };
            let first = fr.frags.first()?;
            let m0 = if fr.xmajor { first.0 } else { first.1 };
            let (mut bx0, mut bx1, mut by0, mut by1) = (i64::MAX, i64::MIN, i64::MAX, i64::MIN);
            let mut w = vec![2, state, fr.xmajor as u32, m0 as u32, fr.frags.len() as u32];
            for (x, y, f) in &fr.frags {
                bx0 = bx0.min(*x as i64);
                bx1 = bx1.max(*x as i64 + 1);
                by0 = by0.min(*y as i64);
                by1 = by1.max(*y as i64 + 1);
                w.extend([
                    *x as u32,
                    *y as u32,
                    rgba_word(f.rgba),
                    f.z.min(u32::MAX as u64) as u32,
                    f.f as u32,
                    f.u as u32,
                    f.v as u32,
                    f.log2q as u32,
                ]);
            }
            let (x, y) = clip_box(bx0 * n, bx1 * n, by0 * n, by1 * n, scale)?;
            Some(Packed { words: w, x, y })
        }
    }
}

fn pack_triangle(
    s: &PixelState,
    cmd: &DrawCommand,
    base: u32,
    state: u32,
    scale: u32,
) -> Option<Packed> {
    let mut spans: Vec<Span> = Vec::new();
    let mut tri: Option<raster::Triangle> = None;
    raster::triangle(s, cmd, scale, |t, sp| {
        tri.get_or_insert_with(|| t.clone());
        spans.push(*sp);
    });
    let tri = tri?;
    let first = spans[0];
    let last = spans[spans.len() - 1];
    let mask = first.col.map_or(0, |_| A_COL)
        | first.z.map_or(0, |_| A_Z)
        | first.f.map_or(0, |_| A_FOG)
        | first.uv.map_or(0, |_| A_UV)
        | tri.persp.map_or(0, |_| A_PERSP);
    let stride = 2
        + first.col.map_or(0, |_| 16)
        + first.z.map_or(0, |_| 4)
        + first.f.map_or(0, |_| 4)
        + first.uv.map_or(0, |_| 8)
        + tri.persp.map_or(0, |_| 6);
    let rows = (last.y - first.y + 1) as u32;
    let table = base + 52;
    let mut w = vec![
        1,
        state,
        first.y as u32,
        rows,
        table,
        stride,
        mask,
        rgba_word(tri.flat),
        tri.log2q as u32,
    ];
    push64(&mut w, tri.area);
    w.resize(52, 0);
    let put = |w: &mut Vec<u32>, at: usize, dq: i64, dr: i64| {
        w[at] = dq as u32;
        w[at + 1] = (dq >> 32) as u32;
        w[at + 2] = dr as u32;
        w[at + 3] = (dr >> 32) as u32;
    };
    if let Some(c) = first.col {
        for (i, d) in c.iter().enumerate() {
            put(&mut w, 11 + 4 * i, d.dq, d.dr);
        }
    }
    if let Some(z) = first.z {
        put(&mut w, 27, z.dq as i64, z.dr as i64);
    }
    if let Some(f) = first.f {
        put(&mut w, 31, f.dq, f.dr);
    }
    if let Some(uv) = first.uv {
        put(&mut w, 35, uv[0].dq, uv[0].dr);
        put(&mut w, 39, uv[1].dq, uv[1].dr);
    }
    if let Some(p) = tri.persp {
        for (i, d) in p.dn.iter().enumerate() {
            w[43 + 2 * i] = *d as u32;
            w[44 + 2 * i] = (*d >> 32) as u32;
        }
        w[49] = p.sh_s as u32;
        w[50] = p.sh_t as u32;
        w[51] = p.q_unit as u32;
    }
    let (mut x0, mut x1) = (i64::MAX, i64::MIN);
    let mut next = spans.iter().peekable();
    for y in first.y..=last.y {
        let start = w.len();
        match next.next_if(|sp| sp.y == y) {
            Some(sp) => {
                x0 = x0.min(sp.lo);
                x1 = x1.max(sp.hi);
                w.extend([sp.lo as u32, sp.hi as u32]);
                let mut qr = |q: i64, r: i64| {
                    push64(&mut w, q);
                    push64(&mut w, r);
                };
                if let Some(c) = sp.col {
                    c.iter().for_each(|d| qr(d.q, d.r));
                }
                if let Some(z) = sp.z {
                    qr(z.q as i64, z.r as i64);
                }
                if let Some(f) = sp.f {
                    qr(f.q, f.r);
                }
                if let Some(uv) = sp.uv {
                    uv.iter().for_each(|d| qr(d.q, d.r));
                }
                if tri.persp.is_some() {
                    sp.persp_n.iter().for_each(|&n| push64(&mut w, n));
                }
            }
            None => w.extend([0, 0]),
        }
        w.resize(start + stride as usize, 0);
    }
    let (x, y) = clip_box(x0, x1, first.y, last.y + 1, scale)?;
    Some(Packed { words: w, x, y })
}

/// The pages a draw touches (`p`'s box in fine pixels at render scale `scale`).
pub fn footprint(s: &PixelState, p: &Packed, texture: &Pages, scale: u32) -> Footprint {
    let native = |(a, b): (u32, u32)| (a / scale, b.div_ceil(scale));
    let (px, py) = (native(p.x), native(p.y));
    let frame = Target {
        psm: s.fpsm,
        bp: s.fbp,
        bw: s.fbw,
    };
    let fpages = Pages::of_rect(frame.psm, frame.bp, frame.bw, px, py);
    let z = s.need_z.then(|| {
        let t = Target {
            psm: s.zpsm,
            bp: s.zbp,
            bw: s.fbw,
        };
        (t, Pages::of_rect(t.psm, t.bp, t.bw, px, py))
    });
    let mut written = fpages;
    if let Some((_, zp)) = &z {
        written.union(zp);
    }
    Footprint {
        written,
        texture: *texture,
        targets: [Some((frame, fpages)), z],
    }
}

/// The draws of one dispatch: packed words, tile lists, and what they touch.
pub struct Batch {
    /// States and primitives.
    pub words: Vec<u32>,
    lists: Vec<Vec<u32>>,
    touched: Vec<u32>,
    written: Pages,
    texture: Pages,
    targets: Vec<(Target, Pages)>,
    last_state: Option<(PixelState, u32, Pages)>,
    /// Primitives in the batch.
    pub prims: usize,
    scale: u32,
    /// Tiles a side of the fine drawing space.
    tiles: u32,
    /// Entries in the tile lists (the primitives' tiles, counted once per tile each covers).
    listed: usize,
    /// The most entries a batch takes before it is drawn ([`LIST_WORDS`] but in tests).
    list_limit: usize,
}

impl Default for Batch {
    fn default() -> Self {
        Batch::new(1)
    }
}

impl Batch {
    /// An empty batch for render scale `scale`.
    pub fn new(scale: u32) -> Batch {
        Batch::with_list_limit(scale, LIST_WORDS)
    }

    /// An empty batch for render scale `scale` that is drawn before its tile lists would
    /// exceed `limit` entries (tests split batches with a small one).
    pub fn with_list_limit(scale: u32, limit: usize) -> Batch {
        let tiles = 2048 * scale / TILE;
        Batch {
            words: Vec::new(),
            lists: vec![Vec::new(); (tiles * tiles) as usize],
            touched: Vec::new(),
            written: Pages::default(),
            texture: Pages::default(),
            targets: Vec::new(),
            last_state: None,
            prims: 0,
            scale,
            tiles,
            listed: 0,
            list_limit: limit,
        }
    }
}

/// Words of primitives a batch takes before it is drawn.
const BATCH_WORDS: usize = 4 << 20;

/// Tile-list entries a batch takes before it is drawn: 16M words (64 MiB). The lists grow with
/// the area drawn times the render scale squared (a 640 x 448 layer is 1,120 entries at 1x,
/// 71,680 at 8x), and the tile buffer must stay within a storage binding (128 MiB where the
/// adapter gives no more): with three header words for each of at most 2^20 tiles (2048 x
/// 2048 pixels at 8x) it holds at most 76 MiB. An empty batch takes any one primitive (at
/// most 2^20 entries).
pub const LIST_WORDS: usize = 16 << 20;

/// What [`Batch::add`] did.
#[derive(Debug, PartialEq, Eq)]
pub enum Added {
    /// In the batch (or covering nothing).
    Yes,
    /// The batch must be drawn first; call again after.
    Flush,
    /// The draw reads what it writes: draw it alone, in order (on the CPU); the pages it may
    /// write.
    Feedback(Pages),
}

impl Batch {
    /// True when nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.prims == 0
    }

    /// Drops the queued draws undrawn (a power-on); the limits stay.
    pub fn discard(&mut self) {
        *self = Batch::with_list_limit(self.scale, self.list_limit);
    }

    /// The frame and Z pages the queued draws may write.
    pub fn written(&self) -> Pages {
        self.written
    }

    /// Adds a draw, unless it must wait for the batch (see [`Added`]).
    pub fn add(&mut self, cmd: &DrawCommand) -> Added {
        let s = PixelState::new(cmd);
        let (state, tex) = match &self.last_state {
            Some((ls, off, tex)) if *ls == s => (*off, *tex),
            _ => (u32::MAX, texture_pages(&s)),
        };
        let base = self.words.len() as u32 + if state == u32::MAX { 35 } else { 0 };
        let state_at = if state == u32::MAX {
            self.words.len() as u32
        } else {
            state
        };
        let Some(p) = pack(&s, cmd, base, state_at, self.scale) else {
            return Added::Yes;
        };
        let fp = footprint(&s, &p, &tex, self.scale);
        let listed = p.tiles();
        if fp.feeds_back() {
            return if self.is_empty() {
                Added::Feedback(fp.written)
            } else {
                Added::Flush
            };
        }
        if !self.is_empty() {
            let clash = fp.texture.overlaps(&self.written)
                || fp.written.overlaps(&self.texture)
                || fp.targets.iter().flatten().any(|(t, pages)| {
                    self.targets
                        .iter()
                        .any(|(bt, bp)| bt != t && bp.overlaps(pages))
                })
                || self.words.len() + p.words.len() > BATCH_WORDS
                || self.listed + listed > self.list_limit;
            if clash {
                return Added::Flush;
            }
        }
        if state == u32::MAX {
            self.words.extend_from_slice(&state_words(&s));
            self.last_state = Some((s, state_at, tex));
        }
        self.words.extend_from_slice(&p.words);
        self.listed += listed;
        let (xs, ys) = p.tile_ranges();
        for ty in ys {
            for tx in xs.clone() {
                let t = ty * self.tiles + tx;
                let list = &mut self.lists[t as usize];
                if list.is_empty() {
                    self.touched.push(t);
                }
                list.push(base);
            }
        }
        self.written.union(&fp.written);
        self.texture.union(&fp.texture);
        for (t, pages) in fp.targets.into_iter().flatten() {
            match self.targets.iter_mut().find(|(bt, _)| *bt == t) {
                Some((_, bp)) => bp.union(&pages),
                None => self.targets.push((t, pages)),
            }
        }
        self.prims += 1;
        Added::Yes
    }

    /// The tile words (the render scale, the number of tiles, then X | Y << 16, first, count
    /// for each tile, then the lists) and the number of tiles; the batch is emptied for reuse.
    pub fn take_tiles(&mut self) -> (Vec<u32>, u32) {
        let n = self.touched.len();
        let total: usize = self
            .touched
            .iter()
            .map(|&t| self.lists[t as usize].len())
            .sum();
        let mut out = Vec::with_capacity(2 + n * 3 + total);
        out.extend([self.scale, n as u32]);
        let mut first = (2 + n * 3) as u32;
        for &t in &self.touched {
            let len = self.lists[t as usize].len() as u32;
            out.extend([(t % self.tiles) | (t / self.tiles) << 16, first, len]);
            first += len;
        }
        for &t in &self.touched {
            out.append(&mut self.lists[t as usize]);
        }
        self.touched.clear();
        self.words.clear();
        self.written = Pages::default();
        self.texture = Pages::default();
        self.targets.clear();
        self.last_state = None;
        self.prims = 0;
        self.listed = 0;
        (out, n as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_of_a_frame() {
        // 640 x 448 PSMCT32 at page 0, FBW 10: 10 x 14 pages.
        let p = Pages::of_rect(Psm::Ct32, 0, 10, (0, 640), (0, 448));
        assert_eq!(p.0.iter().map(|w| w.count_ones()).sum::<u32>(), 140);
        // A texture at block 16 straddles pages 0 and 1.
        let t = Pages::of_rect(Psm::Ct32, 16, 1, (0, 8), (0, 8));
        assert_eq!(t.0[0], 0b11);
        // PSMT4: 128 x 128 pages, BW 2 is one page wide.
        let t = Pages::of_rect(Psm::T4, 0, 2, (0, 256), (0, 128));
        assert_eq!(t.0[0], 0b11);
    }

    /// A set's runs of consecutive pages, across the words of the set and to its last page.
    #[test]
    fn runs_of_pages() {
        let mut p = Pages::default();
        assert!(p.is_empty());
        assert_eq!(p.runs(), []);
        for page in [0, 1, 2, 5, 63, 64, 65, 511] {
            p.add(page);
        }
        assert!(!p.is_empty());
        assert_eq!(p.runs(), [(0, 3), (5, 6), (63, 66), (511, 512)]);
        assert_eq!(Pages::all().runs(), [(0, 512)]);
    }
}
