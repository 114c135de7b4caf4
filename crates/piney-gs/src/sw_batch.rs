//! The software renderer on several threads: draws the fast paths take are collected into a
//! batch and rasterised by every worker at once, each worker drawing its own rows, in the
//! draws' order. The pixels are the same as one thread's, bit for bit, whatever the number of
//! workers, because a batch is only ever built so that no word of memory is touched by two
//! workers and no draw reads what another draw of the batch wrote:
//!
//! - Rows are dealt out in strips of [`STRIP_ROWS`] (a multiple of every frame and Z page's
//!   height). A draw's rows in a strip write the frame and Z pages of those rows only; each
//!   page of memory the batch writes is owned by one worker. A draw whose pages would belong to
//!   two workers (buffers that alias across rows, a frame overlapping its Z buffer, coordinates
//!   that wrap) ends the batch and is drawn alone, on one thread.
//! - A draw whose texture lies in pages the batch already writes ends the batch first (it must
//!   see those pixels). Textures are decoded before the workers start ([`crate::texcache`]), so
//!   workers only ever touch their own pages.
//! - Everything else (memory commands, CLUT loads, readbacks, the display, draws of the general
//!   path) runs after the batch is drawn.

use std::sync::Arc;

use crate::draw::{DrawCommand, PrimKind};
use crate::mem::LocalMemory;
use crate::raster::{PixelState, Sprite};
use crate::sw_fast::{Band, Classified, PagedMem, Plan, STRIP_ROWS};
use crate::texcache::{PAGES, PageSet, TexCache};
use crate::texel::Clut;

/// One draw waiting in a batch.
#[derive(Clone, Debug)]
struct Batched {
    s: PixelState,
    cmd: DrawCommand,
    class: Classified,
    sprite: Option<Sprite>,
}

/// Draws waiting to be rasterised by the workers, and the pages each worker owns.
#[derive(Clone, Debug)]
pub struct Batch {
    draws: Vec<Batched>,
    /// The pages each worker writes.
    owned: Vec<PageSet>,
    /// Every page the batch writes.
    written: PageSet,
    /// The draws' pixels, at most (their bounding boxes).
    pixels: u64,
    workers: u32,
    /// Batches smaller than this many pixels are drawn on the calling thread.
    pub min_shared: u64,
    /// Batches drawn by the workers (a statistic).
    pub shared_runs: u64,
    /// Pixels the batches covered, by specialisation key (a statistic).
    pub key_pixels: Vec<u64>,
}

/// Batches smaller than this many pixels are drawn on the calling thread: handing them to the
/// workers costs more than it saves.
const MIN_SHARED_PIXELS: u64 = 8192;

/// A batch holds at most this many draws (their setup waits in memory until drawn).
const MAX_DRAWS: usize = 4096;

/// Why a draw could not join the batch.
#[derive(Debug, PartialEq, Eq)]
pub enum Refused {
    /// It conflicts with the batch: draw the batch, then try again.
    Flush,
    /// It cannot be split between workers at all: draw it on one thread.
    Alone,
}

/// The pixel rectangle a draw can touch (inclusive), within the scissor, as
/// `((x0, x1), (y0, y1))`; `None` when empty.
pub fn draw_bounds(s: &PixelState, cmd: &DrawCommand) -> Option<((u32, u32), (u32, u32))> {
    let v = &cmd.vertices[..cmd.kind.vertex_count()];
    let xmin = v.iter().map(|v| v.x).min()?;
    let xmax = v.iter().map(|v| v.x).max()?;
    let ymin = v.iter().map(|v| v.y).min()?;
    let ymax = v.iter().map(|v| v.y).max()?;
    let (sx0, sx1, sy0, sy1) = s.scissor;
    // One pixel wider each way (a line's rounding).
    let x0 = ((xmin >> 4) - 1).max(sx0).max(0);
    let x1 = ((xmax >> 4) + 2).min(sx1).min(2047);
    let y0 = ((ymin >> 4) - 1).max(sy0).max(0);
    let y1 = ((ymax >> 4) + 2).min(sy1).min(2047);
    (x0 <= x1 && y0 <= y1).then_some(((x0 as u32, x1 as u32), (y0 as u32, y1 as u32)))
}

/// The frame pages, and the Z pages when Z is written, of pixels `xs` x `ys`.
pub fn target_pages(s: &PixelState, xs: (u32, u32), ys: (u32, u32)) -> PageSet {
    let mut set = PageSet::default();
    set.add_rect(s.fpsm, s.fbp, s.fbw, xs, ys);
    if !s.zmsk {
        set.add_rect(s.zpsm, s.zbp, s.fbw, xs, ys);
    }
    set
}

impl Batch {
    /// An empty batch for `workers` workers.
    pub fn new(workers: u32) -> Batch {
        let workers = workers.max(1);
        Batch {
            draws: Vec::new(),
            owned: vec![PageSet::default(); workers as usize],
            written: PageSet::default(),
            pixels: 0,
            workers,
            min_shared: MIN_SHARED_PIXELS,
            shared_runs: 0,
            key_pixels: vec![0; crate::sw_fast::KEYS],
        }
    }

    /// True when no draw waits.
    pub fn is_empty(&self) -> bool {
        self.draws.is_empty()
    }

    /// Adds a draw the fast paths take (`class`, with `sprite` for sprites), or says why not.
    pub fn push(
        &mut self,
        s: &PixelState,
        cmd: &DrawCommand,
        class: &Classified,
        sprite: Option<&Sprite>,
    ) -> Result<(), Refused> {
        let Some((xs, ys)) = draw_bounds(s, cmd) else {
            // Nothing to draw: it may join any batch.
            return Ok(());
        };
        if cmd.kind == PrimKind::Triangle && !crate::sw_fast::walkable(cmd) {
            return Err(Refused::Alone);
        }
        // Each worker's pages for this draw: its strips' rows.
        let n = self.workers;
        let mut mine = vec![PageSet::default(); n as usize];
        let mut y = ys.0;
        while y <= ys.1 {
            let strip_end = (y / STRIP_ROWS + 1) * STRIP_ROWS - 1;
            let rows = (y, strip_end.min(ys.1));
            let w = Band::worker_of(y, n) as usize;
            mine[w].union(&target_pages(s, xs, rows));
            if s.zmsk && s.need_z {
                // A Z test reads the Z buffer's pages even when Z is not written.
                mine[w].add_rect(s.zpsm, s.zbp, s.fbw, xs, rows);
            }
            y = strip_end + 1;
        }
        for a in 0..n as usize {
            for b in a + 1..n as usize {
                if mine[a].intersects(&mine[b]) {
                    return Err(Refused::Alone);
                }
            }
        }
        if self.draws.len() >= MAX_DRAWS {
            return Err(Refused::Flush);
        }
        let texture = s.tex.as_ref().map(TexCache::texture_pages);
        if texture.is_some_and(|t| t.intersects(&self.written)) {
            return Err(Refused::Flush);
        }
        for (w, set) in mine.iter().enumerate() {
            for (v, owned) in self.owned.iter().enumerate() {
                if v != w && set.intersects(owned) {
                    return Err(Refused::Flush);
                }
            }
        }
        for (owned, set) in self.owned.iter_mut().zip(&mine) {
            owned.union(set);
            self.written.union(set);
        }
        self.pixels += (xs.1 - xs.0 + 1) as u64 * (ys.1 - ys.0 + 1) as u64;
        self.draws.push(Batched {
            s: s.clone(),
            cmd: *cmd,
            class: class.clone(),
            sprite: sprite.cloned(),
        });
        Ok(())
    }

    /// Draws the batch into `mem` (textures decoded through `texcache` with `clut`) on `pool`'s
    /// workers, or on this thread when it is small; empties it. Returns the pages it wrote.
    pub fn run(
        &mut self,
        mem: &mut LocalMemory,
        clut: &Clut,
        texcache: &mut TexCache,
        pool: &Arc<rayon::ThreadPool>,
        isa: crate::sw_fast::Isa,
        stats: &mut [u64],
    ) -> PageSet {
        let draws = std::mem::take(&mut self.draws);
        let written = self.written;
        let owned = std::mem::replace(
            &mut self.owned,
            vec![PageSet::default(); self.workers as usize],
        );
        let pixels = self.pixels;
        self.written = PageSet::default();
        self.pixels = 0;
        if draws.is_empty() {
            return written;
        }
        // Every texture decoded now, before any worker draws: no draw of the batch writes a
        // page another of its draws samples.
        let keys: Vec<_> = draws
            .iter()
            .map(|d| match (&d.s.tex, d.class.rect) {
                (Some(t), Some(r)) => Some(texcache.prepare(mem, clut, t, r)),
                _ => None,
            })
            .collect();
        {
            let tc: &TexCache = texcache;
            let plans: Vec<Plan> = draws
                .iter()
                .zip(&keys)
                .map(|(d, k)| {
                    Plan::new(&d.s, &d.class, k.as_ref().and_then(|k| tc.decoded(k)), isa)
                })
                .collect();
            for p in &plans {
                if let Some(n) = stats.get_mut(p.key) {
                    *n += 1;
                }
            }
            if pixels < self.min_shared {
                if let Ok(words) = <&mut crate::sw_fast::Words>::try_from(mem.words_mut()) {
                    for (p, d) in plans.iter().zip(&draws) {
                        let px = draw_one(p, d, words, Band::ALL);
                        if let Some(n) = self.key_pixels.get_mut(p.key) {
                            *n += px;
                        }
                    }
                }
            } else {
                let n = self.workers;
                self.shared_runs += 1;
                let mut pages: Vec<Vec<Option<&mut [u32]>>> =
                    (0..n).map(|_| (0..PAGES).map(|_| None).collect()).collect();
                for (p, chunk) in mem
                    .words_mut()
                    .chunks_mut(crate::sw_fast::PAGE_WORDS)
                    .enumerate()
                {
                    if let Some(w) = owned.iter().position(|o| o.contains(p as u32)) {
                        pages[w][p] = Some(chunk);
                    }
                }
                let (plans, draws) = (&plans, &draws);
                let drawn = std::sync::Mutex::new(vec![0u64; crate::sw_fast::KEYS]);
                let drawn_ref = &drawn;
                pool.scope(|scope| {
                    for (w, pages) in pages.into_iter().enumerate() {
                        scope.spawn(move |_| {
                            let mut m = PagedMem { pages };
                            let band = Band {
                                worker: w as u32,
                                of: n,
                            };
                            let mut px = vec![0u64; crate::sw_fast::KEYS];
                            for (p, d) in plans.iter().zip(draws) {
                                if let Some(n) = px.get_mut(p.key) {
                                    *n += draw_one(p, d, &mut m, band);
                                }
                            }
                            if let Ok(mut total) = drawn_ref.lock() {
                                for (t, n) in total.iter_mut().zip(px) {
                                    *t += n;
                                }
                            }
                        });
                    }
                });
                if let Ok(total) = drawn.into_inner() {
                    for (t, n) in self.key_pixels.iter_mut().zip(total) {
                        *t += n;
                    }
                }
            }
        }
        texcache.unpin();
        written
    }
}

/// Draws one batched draw's rows of `band`; the pixels it covered there.
fn draw_one<M: crate::sw_fast::Mem>(p: &Plan, d: &Batched, mem: &mut M, band: Band) -> u64 {
    match &d.sprite {
        Some(sp) => p.sprite(mem, sp, band),
        // Walkable: checked when the draw joined the batch.
        None => p.triangle(mem, &d.cmd, band).unwrap_or(0),
    }
}
