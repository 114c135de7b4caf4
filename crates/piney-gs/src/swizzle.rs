//! Pixel addresses by tables: the swizzle of every storage layout split into a row part and a
//! column part, so that a span walks local memory with one add and one table read a pixel
//! instead of [`crate::mem::pixel_address`]'s bit shuffling.
//!
//! Why it splits (the facts are [`crate::mem`]'s): a pixel's address is
//! `((BP + page * 32 + block) & 0x3fff) << s | offset_in_block`, with `s` the log2 of the
//! format's units in a block (6 for words, 7 halfwords, 8 bytes, 9 nibbles). The page is
//! `(y >> ph) * BW' + (x >> pw)` and the block index inside the page is a bit interleave of x
//! and y bits that never share a bit position (the Z layouts XOR it with a constant, which
//! distributes over the disjoint parts), so the block part is a sum of a y term and an x term.
//! The offset inside the block is not separable for PSMT8 and PSMT4 (a bit of x is XORed with
//! bits of y), but it only depends on `y` modulo the block's height. So, modulo the memory's
//! size in units:
//!
//! `address(x, y) = BP << s  +  row[BW][y]  +  column[y % block_height][x]`
//!
//! with `row[BW][y] = address(0, y)` at BP 0 and `column[r][x] = address(x, r) - address(0, r)`
//! at BP 0 (which does not depend on BW: the x term of the page is `x >> pw`). The tables are
//! computed from [`crate::mem::pixel_address`] itself, once, and checked against it for every
//! layout in the tests.

use std::sync::OnceLock;

use crate::mem::{MEM_WORDS, pixel_address};
use crate::psm::Psm;

/// The distinct address layouts (PSMCT24 and the 8H/4HL/4HH formats share PSMCT32's, PSMZ24
/// PSMZ32's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Layout {
    /// PSMCT32, PSMCT24, PSMT8H, PSMT4HL, PSMT4HH: words.
    C32,
    /// PSMZ32, PSMZ24: words.
    Z32,
    /// PSMCT16: halfwords.
    C16,
    /// PSMCT16S: halfwords.
    C16s,
    /// PSMZ16: halfwords.
    Z16,
    /// PSMZ16S: halfwords.
    Z16s,
    /// PSMT8: bytes.
    T8,
    /// PSMT4: nibbles.
    T4,
}

const LAYOUTS: [Layout; 8] = [
    Layout::C32,
    Layout::Z32,
    Layout::C16,
    Layout::C16s,
    Layout::Z16,
    Layout::Z16s,
    Layout::T8,
    Layout::T4,
];

impl Layout {
    /// The layout a storage mode addresses by.
    pub fn of(psm: Psm) -> Layout {
        match psm {
            Psm::Ct32 | Psm::Ct24 | Psm::T8h | Psm::T4hl | Psm::T4hh => Layout::C32,
            Psm::Z32 | Psm::Z24 => Layout::Z32,
            Psm::Ct16 => Layout::C16,
            Psm::Ct16s => Layout::C16s,
            Psm::Z16 => Layout::Z16,
            Psm::Z16s => Layout::Z16s,
            Psm::T8 => Layout::T8,
            Psm::T4 => Layout::T4,
        }
    }

    /// A storage mode with this layout (the one the tables are computed with).
    fn psm(self) -> Psm {
        match self {
            Layout::C32 => Psm::Ct32,
            Layout::Z32 => Psm::Z32,
            Layout::C16 => Psm::Ct16,
            Layout::C16s => Psm::Ct16s,
            Layout::Z16 => Psm::Z16,
            Layout::Z16s => Psm::Z16s,
            Layout::T8 => Psm::T8,
            Layout::T4 => Psm::T4,
        }
    }

    fn index(self) -> usize {
        self as usize
    }

    /// log2 of the units in a block: an address is `block << shift | offset`.
    pub fn shift(self) -> u32 {
        match self {
            Layout::C32 | Layout::Z32 => 6,
            Layout::C16 | Layout::C16s | Layout::Z16 | Layout::Z16s => 7,
            Layout::T8 => 8,
            Layout::T4 => 9,
        }
    }

    /// Rows of a block (8 for the 32- and 16-bit layouts, 16 for PSMT8 and PSMT4).
    fn block_rows(self) -> u32 {
        match self {
            Layout::T8 | Layout::T4 => 16,
            _ => 8,
        }
    }

    /// The mask of an address in this layout's units (memory is `MEM_WORDS << (shift - 6)`
    /// units).
    pub fn unit_mask(self) -> u32 {
        ((MEM_WORDS as u32) << (self.shift() - 6)) - 1
    }
}

/// `column[r][x]` of one layout, `r` below the block's height, flattened (`r * 2048 + x`).
fn columns(layout: Layout) -> &'static [u32] {
    static COLUMNS: [OnceLock<Box<[u32]>>; 8] = [const { OnceLock::new() }; 8];
    COLUMNS[layout.index()].get_or_init(|| {
        let psm = layout.psm();
        let mask = layout.unit_mask();
        let mut t = Vec::with_capacity(layout.block_rows() as usize * 2048);
        for r in 0..layout.block_rows() {
            let a0 = pixel_address(psm, 0, r, 0, 1);
            t.extend((0..2048).map(|x| pixel_address(psm, x, r, 0, 1).wrapping_sub(a0) & mask));
        }
        t.into_boxed_slice()
    })
}

/// `row[BW][y]` of one layout and buffer width (BW 0..63).
fn rows(layout: Layout, bw: u32) -> &'static [u32; 2048] {
    static ROWS: [[OnceLock<Box<[u32; 2048]>>; 64]; 8] =
        [const { [const { OnceLock::new() }; 64] }; 8];
    ROWS[layout.index()][(bw & 63) as usize].get_or_init(|| {
        let psm = layout.psm();
        let mut t = Box::new([0u32; 2048]);
        for (y, a) in t.iter_mut().enumerate() {
            *a = pixel_address(psm, 0, y as u32, 0, bw & 63);
        }
        t
    })
}

/// The address tables of one buffer: a layout, a base pointer and a width.
#[derive(Clone, Copy, Debug)]
pub struct Offsets {
    base: u32,
    row: &'static [u32; 2048],
    column: &'static [u32],
    row_mask: u32,
    unit_mask: u32,
}

impl Offsets {
    /// The buffer of storage mode `psm` at block `bp`, `bw` 64-pixel units wide (as
    /// [`pixel_address`] takes them).
    pub fn new(psm: Psm, bp: u32, bw: u32) -> Offsets {
        let layout = Layout::of(psm);
        Offsets {
            base: bp.wrapping_shl(layout.shift()),
            row: rows(layout, bw),
            column: columns(layout),
            row_mask: layout.block_rows() - 1,
            unit_mask: layout.unit_mask(),
        }
    }

    /// The addresses of row `y` (wrapping at 2048, as the GS's coordinates do).
    #[inline]
    pub fn row(&self, y: u32) -> RowOffsets<'static> {
        let y = y & 2047;
        let r = (y & self.row_mask) as usize * 2048;
        RowOffsets {
            base: self.base.wrapping_add(self.row[y as usize]),
            column: self.column[r..r + 2048]
                .try_into()
                .expect("a column table has 2048 entries a row"),
            unit_mask: self.unit_mask,
        }
    }

    /// The address of pixel (x, y), equal to [`pixel_address`]'s.
    #[inline]
    pub fn address(&self, x: u32, y: u32) -> u32 {
        self.row(y).address(x)
    }
}

/// The addresses of one row of a buffer.
#[derive(Clone, Copy, Debug)]
pub struct RowOffsets<'a> {
    base: u32,
    column: &'a [u32; 2048],
    unit_mask: u32,
}

impl RowOffsets<'_> {
    /// The address of column `x` (wrapping at 2048) in the layout's units.
    #[inline]
    pub fn address(&self, x: u32) -> u32 {
        self.base.wrapping_add(self.column[(x & 2047) as usize]) & self.unit_mask
    }

    /// The addresses of `N` columns from `x`, each [`RowOffsets::address`]'s (one slice of the
    /// column table unless the columns wrap at 2048).
    #[inline(always)]
    pub fn addresses<const N: usize>(&self, x: u32) -> [u32; N] {
        let x = (x & 2047) as usize;
        match self.column.get(x..x + N) {
            Some(cols) => {
                let mut out = [0u32; N];
                for (o, &c) in out.iter_mut().zip(cols) {
                    *o = self.base.wrapping_add(c) & self.unit_mask;
                }
                out
            }
            None => std::array::from_fn(|k| self.address((x + k) as u32)),
        }
    }
}

/// Builds every layout's column table now (a renderer about to draw from several threads, or a
/// benchmark that should not time the first use).
pub fn warm_up() {
    for l in LAYOUTS {
        columns(l);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::psm::ALL_PSMS;

    #[test]
    fn tables_give_pixel_address_for_every_format_base_and_width() {
        let mut seed = 0x1234_5678_9abc_def0u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for psm in ALL_PSMS {
            // Every BW, and BPs near the end of memory so that the block index wraps.
            for bw in 0..64 {
                let bp = [0, 1, 31, 0x3fe0, 0x3fff, (next() & 0x3fff) as u32][bw as usize % 6];
                let o = Offsets::new(psm, bp, bw);
                for _ in 0..400 {
                    let (x, y) = ((next() & 2047) as u32, (next() & 2047) as u32);
                    assert_eq!(
                        o.address(x, y),
                        pixel_address(psm, x, y, bp, bw),
                        "{psm:?} bp {bp:#x} bw {bw} ({x},{y})"
                    );
                }
            }
            // A whole page region, row by row, at an unaligned base.
            let o = Offsets::new(psm, 0x123, 5);
            for y in 0..130 {
                let r = o.row(y);
                for x in 0..300 {
                    assert_eq!(r.address(x), pixel_address(psm, x, y, 0x123, 5));
                }
            }
        }
    }
}
