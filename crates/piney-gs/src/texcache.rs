//! Decoded textures for the software renderer: a texture's texels turned into 32-bit RGBA once
//! for the CLUT and TEXA in force, kept until local memory under it, the CLUT or TEXA changes.
//!
//! - An entry holds level 0 of one texture (format, TBP, TBW, 2^TW x 2^TH, and the CLUT
//!   generation, CPSM, CSA and TEXA where its colours depend on them) as `w * h` packed texels
//!   (R in bits 0-7 ... A in bits 24-31), decoded lazily in 8 x 8 tiles: a draw asks for the
//!   texel rectangle it can sample and only those tiles are decoded.
//! - Validity is by page: every write to local memory (draws, uploads, copies, a whole-memory
//!   replacement) bumps the generation of the 8 KiB pages it touches ([`PageSet`]), and an
//!   entry remembers the generation of every page its texels live in. A changed page drops
//!   all the entry's tiles. A CLUT load bumps the CLUT's generation, which is part of the key
//!   of indexed textures.
//! - The colours are [`crate::texel::decode`]'s, so a decoded texel is exactly what the direct
//!   path reads.

use crate::mem::LocalMemory;
use crate::psm::Psm;
use crate::raster::TexState;
use crate::swizzle::{Layout, Offsets};
use crate::texel::Clut;

/// Pages in local memory (8 KiB each).
pub const PAGES: usize = 512;

/// A set of local memory pages.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PageSet([u64; PAGES / 64]);

impl PageSet {
    /// Every page.
    pub fn all() -> PageSet {
        PageSet([u64::MAX; PAGES / 64])
    }

    /// Adds page `p` (wrapping at the end of memory).
    #[inline]
    pub fn insert(&mut self, p: u32) {
        let p = p as usize % PAGES;
        self.0[p / 64] |= 1 << (p % 64);
    }

    /// True when page `p` is in the set.
    #[inline]
    pub fn contains(&self, p: u32) -> bool {
        let p = p as usize % PAGES;
        self.0[p / 64] & (1 << (p % 64)) != 0
    }

    /// True when the two sets share a page.
    pub fn intersects(&self, other: &PageSet) -> bool {
        self.0.iter().zip(&other.0).any(|(a, b)| a & b != 0)
    }

    /// Adds every page of `other`.
    pub fn union(&mut self, other: &PageSet) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a |= b;
        }
    }

    /// True when no page is in the set.
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|w| *w == 0)
    }

    /// The pages in the set, in order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        (0..PAGES as u32).filter(|&p| self.contains(p))
    }

    /// Adds the pages holding pixels `x0..=x1` x `y0..=y1` (coordinates wrapping at 2048, as
    /// the GS's do) of the buffer of `psm` at block `bp`, `bw` 64-pixel units wide. Facts: a
    /// pixel's page is `(bp >> 5) + (y >> ph) * BW' + (x >> pw)`, plus one when `bp` is not a
    /// page's first block and the block index carries past the page ([`crate::mem`]); BW' is
    /// BW, or BW / 2 for PSMT8 and PSMT4, whose pages are 128 pixels wide.
    pub fn add_rect(
        &mut self,
        psm: Psm,
        bp: u32,
        bw: u32,
        (x0, x1): (u32, u32),
        (y0, y1): (u32, u32),
    ) {
        if x1 < x0 || y1 < y0 {
            return;
        }
        let (pw, ph) = psm.page_size();
        let bwp = if matches!(psm, Psm::T8 | Psm::T4) {
            bw >> 1
        } else {
            bw
        };
        let spill = bp & 31 != 0;
        let base = bp >> 5;
        // Page rows and columns of the rectangle, the coordinates wrapped as the swizzle wraps
        // them, as bit masks (at most 2048 / 32 = 64 rows and 2048 / 64 columns of pages).
        let grid = |lo: u32, hi: u32, size: u32| -> u64 {
            let n = 2048 / size;
            if hi - lo >= 2047 {
                return u64::MAX >> (64 - n);
            }
            let mut m = 0u64;
            let mut c = lo;
            loop {
                m |= 1 << ((c & 2047) / size);
                if c >= hi {
                    break;
                }
                c = (c / size + 1) * size;
                c = c.min(hi);
            }
            m
        };
        let cols = grid(x0, x1, pw);
        let mut rows = grid(y0, y1, ph);
        while rows != 0 {
            let py = rows.trailing_zeros();
            rows &= rows - 1;
            let mut c = cols;
            while c != 0 {
                let px = c.trailing_zeros();
                c &= c - 1;
                let p = base + py * bwp + px;
                self.insert(p);
                if spill {
                    self.insert(p + 1);
                }
            }
        }
    }
}

/// Bits of the texel rectangle that a draw can sample, in level-0 texel coordinates after the
/// wrap mode (inclusive bounds, within the texture).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TexelRect {
    /// First column.
    pub x0: u32,
    /// Last column.
    pub x1: u32,
    /// First row.
    pub y0: u32,
    /// Last row.
    pub y1: u32,
}

/// What an entry's colours depend on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TexKey {
    psm: Psm,
    bp: u32,
    bw: u32,
    tw: u32,
    th: u32,
    /// CLUT format, offset and generation (indexed formats), else zeros.
    clut: (Psm, u32, u64),
    /// TEXA where the format reads it, else 0.
    texa: u64,
}

impl TexKey {
    fn of(t: &TexState, clut_gen: u64) -> TexKey {
        let indexed = t.psm.is_indexed();
        let uses_texa = match t.psm {
            Psm::Ct24 | Psm::Z24 | Psm::Ct16 | Psm::Ct16s | Psm::Z16 | Psm::Z16s => true,
            _ => indexed && t.cpsm != Psm::Ct32,
        };
        TexKey {
            psm: t.psm,
            bp: t.bp[0],
            bw: t.bw[0],
            tw: t.tw,
            th: t.th,
            clut: if indexed {
                (t.cpsm, t.csa, clut_gen)
            } else {
                (Psm::Ct32, 0, 0)
            },
            texa: if uses_texa { t.texa.0 } else { 0 },
        }
    }
}

/// Tiles are 8 x 8 texels.
const TILE: u32 = 8;

struct Entry {
    key: TexKey,
    /// The pages the texture's texels live in and their generations when the tiles were made.
    pages: Vec<u32>,
    gens: Vec<u32>,
    data: Vec<u32>,
    /// One bit a tile, row-major, `tiles_w` tiles a row.
    valid: Vec<u64>,
    tiles_w: u32,
    /// Tiles in all, and how many of them are valid (when all are, a draw checks none).
    tiles: u32,
    decoded: u32,
    last_use: u64,
    /// Prepared for draws that have not run yet: not evicted until [`TexCache::unpin`].
    pinned: bool,
}

/// The texture cache and the page generations it is checked by.
pub struct TexCache {
    entries: Vec<Entry>,
    page_gen: Box<[u32; PAGES]>,
    clut_gen: u64,
    tick: u64,
    /// Texels held by every entry together.
    held: usize,
    /// Tiles decoded so far (a statistic).
    pub tiles_decoded: u64,
}

impl Default for TexCache {
    fn default() -> Self {
        Self::new()
    }
}

impl Clone for TexCache {
    /// A clone starts empty (it decodes again on first use): decoded texels are a cache.
    fn clone(&self) -> Self {
        TexCache::new()
    }
}

impl std::fmt::Debug for TexCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TexCache({} entries)", self.entries.len())
    }
}

/// The most texels kept decoded (64 MiB of RGBA); the least recently used entries go first.
const MAX_TEXELS: usize = 16 << 20;

impl TexCache {
    /// An empty cache.
    pub fn new() -> TexCache {
        TexCache {
            entries: Vec::new(),
            page_gen: Box::new([0; PAGES]),
            clut_gen: 0,
            tick: 0,
            held: 0,
            tiles_decoded: 0,
        }
    }

    /// Local memory changed in these pages.
    pub fn written(&mut self, pages: &PageSet) {
        for (w, bits) in pages.0.iter().enumerate() {
            let mut b = *bits;
            while b != 0 {
                let i = b.trailing_zeros() as usize;
                b &= b - 1;
                let g = &mut self.page_gen[w * 64 + i];
                *g = g.wrapping_add(1);
            }
        }
    }

    /// The CLUT buffer was loaded.
    pub fn clut_loaded(&mut self) {
        self.clut_gen += 1;
    }

    /// The decoded level 0 of `t` with at least `rect` decoded: `w * h` texels, row-major.
    pub fn texels(
        &mut self,
        mem: &LocalMemory,
        clut: &Clut,
        t: &TexState,
        rect: TexelRect,
    ) -> &[u32] {
        let key = self.prepare(mem, clut, t, rect);
        self.unpin();
        self.decoded(&key).unwrap_or(&[])
    }

    /// Decodes at least `rect` of `t`'s level 0 and keeps the entry (pinned) until
    /// [`TexCache::unpin`], for a draw that runs later; [`TexCache::decoded`] gives its texels.
    pub fn prepare(
        &mut self,
        mem: &LocalMemory,
        clut: &Clut,
        t: &TexState,
        rect: TexelRect,
    ) -> TexKey {
        self.tick += 1;
        let key = TexKey::of(t, self.clut_gen);
        let i = match self.entries.iter().position(|e| e.key == key) {
            Some(i) => i,
            None => self.insert(key),
        };
        let tick = self.tick;
        let page_gen = &self.page_gen;
        let e = &mut self.entries[i];
        e.last_use = tick;
        e.pinned = true;
        if e.pages
            .iter()
            .zip(&e.gens)
            .any(|(&p, &g)| page_gen[p as usize] != g)
        {
            e.valid.fill(0);
            e.decoded = 0;
            for (g, &p) in e.gens.iter_mut().zip(&e.pages) {
                *g = page_gen[p as usize];
            }
        }
        if e.decoded == e.tiles {
            return key;
        }
        let (w, h) = (1u32 << key.tw, 1u32 << key.th);
        let off = Offsets::new(key.psm, key.bp, key.bw);
        for ty in rect.y0 / TILE..=rect.y1.min(h - 1) / TILE {
            for tx in rect.x0 / TILE..=rect.x1.min(w - 1) / TILE {
                let bit = (ty * e.tiles_w + tx) as usize;
                if e.valid[bit / 64] & (1 << (bit % 64)) != 0 {
                    continue;
                }
                e.valid[bit / 64] |= 1 << (bit % 64);
                e.decoded += 1;
                self.tiles_decoded += 1;
                for y in ty * TILE..((ty + 1) * TILE).min(h) {
                    let row = off.row(y);
                    let out = &mut e.data[(y * w) as usize..];
                    for x in tx * TILE..((tx + 1) * TILE).min(w) {
                        let raw = mem.read_at(key.psm, row.address(x));
                        let c = crate::texel::decode(raw, t.psm, t.texa, clut, t.cpsm, t.csa);
                        out[x as usize] = c[0] as u32
                            | (c[1] as u32) << 8
                            | (c[2] as u32) << 16
                            | (c[3] as u32) << 24;
                    }
                }
            }
        }
        key
    }

    /// The texels of a prepared entry.
    pub fn decoded(&self, key: &TexKey) -> Option<&[u32]> {
        self.entries
            .iter()
            .find(|e| e.key == *key)
            .map(|e| e.data.as_slice())
    }

    /// The draws prepared for have run: their entries may be evicted again.
    pub fn unpin(&mut self) {
        for e in &mut self.entries {
            e.pinned = false;
        }
    }

    fn insert(&mut self, key: TexKey) -> usize {
        let (w, h) = (1u32 << key.tw, 1u32 << key.th);
        let texels = (w * h) as usize;
        while self.held + texels > MAX_TEXELS {
            let Some(oldest) = (0..self.entries.len())
                .filter(|&i| !self.entries[i].pinned)
                .min_by_key(|&i| self.entries[i].last_use)
            else {
                break;
            };
            self.held -= self.entries[oldest].data.len();
            self.entries.swap_remove(oldest);
        }
        // The pages of every block of the texture (a block never straddles a page).
        let off = Offsets::new(key.psm, key.bp, key.bw);
        let shift = Layout::of(key.psm).shift() + 5;
        let (bw_px, bh_px) = block_size(key.psm);
        let mut set = PageSet::default();
        for y in (0..h).step_by(bh_px as usize) {
            let row = off.row(y);
            for x in (0..w).step_by(bw_px as usize) {
                set.insert(row.address(x) >> shift);
            }
        }
        let pages: Vec<u32> = set.iter().collect();
        let tiles_w = w.div_ceil(TILE);
        let tiles = (tiles_w * h.div_ceil(TILE)) as usize;
        self.held += texels;
        self.entries.push(Entry {
            key,
            gens: pages.iter().map(|&p| self.page_gen[p as usize]).collect(),
            pages,
            data: vec![0; texels],
            valid: vec![0; tiles.div_ceil(64)],
            tiles_w,
            tiles: tiles as u32,
            decoded: 0,
            last_use: self.tick,
            pinned: false,
        });
        self.entries.len() - 1
    }

    /// The pages `t`'s level 0 lives in (for a draw's feedback check).
    pub fn texture_pages(t: &TexState) -> PageSet {
        let mut set = PageSet::default();
        let (w, h) = (1u32 << t.tw, 1u32 << t.th);
        set.add_rect(t.psm, t.bp[0], t.bw[0], (0, w - 1), (0, h - 1));
        set
    }
}

/// A block's size in pixels for `psm` (8 KiB pages hold 32 blocks).
fn block_size(psm: Psm) -> (u32, u32) {
    match Layout::of(psm) {
        Layout::C32 | Layout::Z32 => (8, 8),
        Layout::T8 => (16, 16),
        Layout::T4 => (32, 16),
        _ => (16, 8),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mem::pixel_address;
    use crate::psm::ALL_PSMS;

    /// The page of a pixel, from its address.
    fn page_of(psm: Psm, x: u32, y: u32, bp: u32, bw: u32) -> u32 {
        pixel_address(psm, x, y, bp, bw) >> (Layout::of(psm).shift() + 5)
    }

    #[test]
    fn a_rect_holds_the_page_of_every_pixel_in_it() {
        for psm in ALL_PSMS {
            for (bp, bw, r) in [
                (0, 10, ((0, 639), (0, 447))),
                (0x1a40, 10, ((3, 300), (17, 200))),
                (0x3fe5, 4, ((100, 260), (5, 90))),
                (7, 0, ((0, 130), (0, 70))),
                (32, 2, ((2000, 2100), (2040, 2050))),
            ] {
                let mut set = PageSet::default();
                set.add_rect(psm, bp, bw, r.0, r.1);
                for y in (r.1.0..=r.1.1).step_by(3) {
                    for x in (r.0.0..=r.0.1).step_by(5) {
                        let p = page_of(psm, x & 2047, y & 2047, bp, bw);
                        assert!(set.contains(p), "{psm:?} bp {bp:#x} ({x},{y}) page {p}");
                    }
                }
            }
        }
    }
}
