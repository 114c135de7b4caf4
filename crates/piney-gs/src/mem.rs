//! The GS local memory: 4 MiB, addressed through pages, blocks and columns.
//!
//! Facts (GS User's Manual, "Local Memory" / "Block Arrangement" / "Column Arrangement" figures;
//! the same tables are in PCSX2 `pcsx2/GS/GSTables.cpp`):
//! - A page is 8 KiB (2048 words) and holds 32 blocks of 256 bytes; a block holds 4 columns of
//!   64 bytes. Buffer base pointers (BP) count blocks (64 words), widths (BW) count 64 pixels.
//! - Page sizes: 32-bit formats 64x32, 16-bit 64x64, PSMT8 128x64, PSMT4 128x128 pixels.
//! - Blocks are arranged inside the page in a bit-interleaved order, and pixels inside the block's
//!   columns likewise. The functions below compute the published tables from their bit pattern
//!   (each one is checked against table entries in the tests).
//! - The block number is BP *plus* the block's offset (not an OR), wrapping at the end of memory.

use crate::psm::Psm;

/// Local memory size in bytes.
pub const MEM_BYTES: usize = 4 * 1024 * 1024;
/// Local memory size in 32-bit words.
pub const MEM_WORDS: usize = MEM_BYTES / 4;
/// Blocks in local memory (the address wraps at this many).
const BLOCK_MASK: u32 = 0x3fff;

/// Block index inside a page for the 32-bit layout (PSMCT32, also PSMT8): an 8x4 grid of blocks,
/// `bx` 0..7, `by` 0..3. Table: row 0 = 0 1 4 5 16 17 20 21, row 1 = 2 3 6 7 ..., row 2 = 8 9 12 13 ...
/// Bits: b0 = bx0, b1 = by0, b2 = bx1, b3 = by1, b4 = bx2.
fn block32(bx: u32, by: u32) -> u32 {
    (bx & 1) | ((by & 1) << 1) | ((bx & 2) << 1) | ((by & 2) << 2) | ((bx & 4) << 2)
}

/// Block index inside a page for the 16-bit layout (PSMCT16, also PSMT4): a 4x8 grid, `bx` 0..3,
/// `by` 0..7. Table: row 0 = 0 2 8 10, row 1 = 1 3 9 11, row 2 = 4 6 12 14, ..., row 4 = 16 18 24 26.
/// Bits: b0 = by0, b1 = bx0, b2 = by1, b3 = bx1, b4 = by2.
fn block16(bx: u32, by: u32) -> u32 {
    (by & 1) | ((bx & 1) << 1) | ((by & 2) << 1) | ((bx & 2) << 2) | ((by & 4) << 2)
}

/// Block index for PSMCT16S: row 0 = 0 2 16 18, row 2 = 8 10 24 26, row 4 = 4 6 20 22.
/// Bits: b0 = by0, b1 = bx0, b2 = by2, b3 = by1, b4 = bx1.
fn block16s(bx: u32, by: u32) -> u32 {
    (by & 1) | ((bx & 1) << 1) | (by & 4) | ((by & 2) << 2) | ((bx & 2) << 3)
}

/// Word index inside a block for 32-bit pixels (8x8 pixels, columns of 8x2).
/// Table row 0 = 0 1 4 5 8 9 12 13, row 1 = 2 3 6 7 ..., row 2 = 16 17 20 21 ...
fn column32(x: u32, y: u32) -> u32 {
    ((y >> 1) << 4) | ((y & 1) << 1) | (x & 1) | ((x >> 1) << 2)
}

/// Halfword index inside a block for 16-bit pixels (16x8 pixels).
/// Table row 0 = 0 2 8 10 16 18 24 26 1 3 9 11 17 19 25 27, row 1 = the same + 4, row 2 = + 32.
fn column16(x: u32, y: u32) -> u32 {
    ((y >> 1) << 5)
        | ((y & 1) << 2)
        | ((x & 1) << 1)
        | (((x >> 1) & 1) << 3)
        | (((x >> 2) & 1) << 4)
        | ((x >> 3) & 1)
}

/// The word of a 16-word column, shared by PSMT8 and PSMT4: in even columns rows 2-3 take the
/// other half of the words; in odd columns it is the other way round.
fn column_word_8_4(xx: u32, r: u32, column: u32) -> u32 {
    (xx & 1)
        | ((r & 1) << 1)
        | (((xx >> 1) & 1) << 2)
        | ((((xx >> 2) ^ (r >> 1) ^ column) & 1) << 3)
}

/// Byte index inside a block for 8-bit pixels (16x16 pixels, 4 columns of 16x4).
/// Table row 0 = 0 4 16 20 32 36 48 52 2 6 18 22 ..., row 2 = 33 37 49 53 1 5 17 21 ...,
/// row 4 (column 1) = 96 100 112 116 64 68 80 84 ...
fn column8(x: u32, y: u32) -> u32 {
    let column = y >> 2;
    let r = y & 3;
    let word = column_word_8_4(x & 7, r, column & 1);
    let byte = ((x >> 3) << 1) | (r >> 1);
    column * 64 + word * 4 + byte
}

/// Nibble index inside a block for 4-bit pixels (32x16 pixels, 4 columns of 32x4).
/// Table row 0 = 0 8 32 40 64 72 96 104 2 10 34 ..., row 2 = 65 73 97 105 1 9 33 41 ...,
/// row 4 (column 1) = 192 200 224 232 128 136 160 168 ...
fn column4(x: u32, y: u32) -> u32 {
    let column = y >> 2;
    let r = y & 3;
    let word = column_word_8_4(x & 7, r, column & 1);
    let nibble = (((x >> 3) & 3) << 1) | (r >> 1);
    column * 128 + word * 8 + nibble
}

/// Word address (0..1M) of a pixel in the 32-bit layout (PSMCT32/24, PSMT8H/4HL/4HH).
pub fn addr32(x: u32, y: u32, bp: u32, bw: u32) -> u32 {
    let (x, y) = (x & 2047, y & 2047);
    let page = (y >> 5) * bw + (x >> 6);
    let block = bp + page * 32 + block32((x >> 3) & 7, (y >> 3) & 3);
    ((block & BLOCK_MASK) << 6) | column32(x & 7, y & 7)
}

/// Word address of a PSMZ32/PSMZ24 pixel: the 32-bit layout with the block index XOR 24
/// (table row 0 = 24 25 28 29 8 9 12 13).
pub fn addr32z(x: u32, y: u32, bp: u32, bw: u32) -> u32 {
    let (x, y) = (x & 2047, y & 2047);
    let page = (y >> 5) * bw + (x >> 6);
    let block = bp + page * 32 + (block32((x >> 3) & 7, (y >> 3) & 3) ^ 24);
    ((block & BLOCK_MASK) << 6) | column32(x & 7, y & 7)
}

fn addr16_with(x: u32, y: u32, bp: u32, bw: u32, blk: fn(u32, u32) -> u32, z: bool) -> u32 {
    let (x, y) = (x & 2047, y & 2047);
    let page = (y >> 6) * bw + (x >> 6);
    let mut b = blk((x >> 4) & 3, (y >> 3) & 7);
    if z {
        b ^= 24;
    }
    let block = bp + page * 32 + b;
    ((block & BLOCK_MASK) << 7) | column16(x & 15, y & 7)
}

/// Halfword address (0..2M) of a PSMCT16 pixel.
pub fn addr16(x: u32, y: u32, bp: u32, bw: u32) -> u32 {
    addr16_with(x, y, bp, bw, block16, false)
}

/// Halfword address of a PSMCT16S pixel.
pub fn addr16s(x: u32, y: u32, bp: u32, bw: u32) -> u32 {
    addr16_with(x, y, bp, bw, block16s, false)
}

/// Halfword address of a PSMZ16 pixel (PSMCT16's blocks XOR 24: row 0 = 24 26 16 18).
pub fn addr16z(x: u32, y: u32, bp: u32, bw: u32) -> u32 {
    addr16_with(x, y, bp, bw, block16, true)
}

/// Halfword address of a PSMZ16S pixel (PSMCT16S's blocks XOR 24: row 0 = 24 26 8 10).
pub fn addr16sz(x: u32, y: u32, bp: u32, bw: u32) -> u32 {
    addr16_with(x, y, bp, bw, block16s, true)
}

/// Byte address (0..4M) of a PSMT8 pixel. A PSMT8 page is 128 pixels wide, so a row of pages is
/// BW / 2 pages.
pub fn addr8(x: u32, y: u32, bp: u32, bw: u32) -> u32 {
    let (x, y) = (x & 2047, y & 2047);
    let page = (y >> 6) * (bw >> 1) + (x >> 7);
    let block = bp + page * 32 + block32((x >> 4) & 7, (y >> 4) & 3);
    ((block & BLOCK_MASK) << 8) | column8(x & 15, y & 15)
}

/// Nibble address (0..8M) of a PSMT4 pixel. Pages are 128x128, a row of pages is BW / 2 pages.
pub fn addr4(x: u32, y: u32, bp: u32, bw: u32) -> u32 {
    let (x, y) = (x & 2047, y & 2047);
    let page = (y >> 7) * (bw >> 1) + (x >> 7);
    let block = bp + page * 32 + block16((x >> 5) & 3, (y >> 4) & 7);
    ((block & BLOCK_MASK) << 9) | column4(x & 31, y & 15)
}

/// The address of a pixel in the unit of its format: words for the 32-bit layouts (including 24,
/// 8H, 4HL, 4HH), halfwords for 16-bit, bytes for PSMT8, nibbles for PSMT4.
pub fn pixel_address(psm: Psm, x: u32, y: u32, bp: u32, bw: u32) -> u32 {
    match psm {
        Psm::Ct32 | Psm::Ct24 | Psm::T8h | Psm::T4hl | Psm::T4hh => addr32(x, y, bp, bw),
        Psm::Z32 | Psm::Z24 => addr32z(x, y, bp, bw),
        Psm::Ct16 => addr16(x, y, bp, bw),
        Psm::Ct16s => addr16s(x, y, bp, bw),
        Psm::Z16 => addr16z(x, y, bp, bw),
        Psm::Z16s => addr16sz(x, y, bp, bw),
        Psm::T8 => addr8(x, y, bp, bw),
        Psm::T4 => addr4(x, y, bp, bw),
    }
}

/// The 4 MiB local memory.
#[derive(Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LocalMemory {
    words: Vec<u32>,
}

impl Default for LocalMemory {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for LocalMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LocalMemory(4 MiB)")
    }
}

impl LocalMemory {
    /// Zero-filled memory.
    pub fn new() -> Self {
        LocalMemory {
            words: vec![0; MEM_WORDS],
        }
    }

    /// The raw words (word address order).
    pub fn words(&self) -> &[u32] {
        &self.words
    }

    /// The raw words, writable (dump loading).
    pub fn words_mut(&mut self) -> &mut [u32] {
        &mut self.words
    }

    /// Reads a word by word address (wrapping).
    pub fn read_word(&self, addr: u32) -> u32 {
        self.words[addr as usize & (MEM_WORDS - 1)]
    }

    /// Writes a word by word address (wrapping).
    pub fn write_word(&mut self, addr: u32, value: u32) {
        self.words[addr as usize & (MEM_WORDS - 1)] = value;
    }

    fn read16(&self, half: u32) -> u32 {
        (self.read_word(half >> 1) >> ((half & 1) * 16)) & 0xffff
    }

    fn write16(&mut self, half: u32, value: u32) {
        let sh = (half & 1) * 16;
        let i = (half >> 1) as usize & (MEM_WORDS - 1);
        self.words[i] = (self.words[i] & !(0xffff << sh)) | ((value & 0xffff) << sh);
    }

    fn read8(&self, byte: u32) -> u32 {
        (self.read_word(byte >> 2) >> ((byte & 3) * 8)) & 0xff
    }

    fn write8(&mut self, byte: u32, value: u32) {
        let sh = (byte & 3) * 8;
        let i = (byte >> 2) as usize & (MEM_WORDS - 1);
        self.words[i] = (self.words[i] & !(0xff << sh)) | ((value & 0xff) << sh);
    }

    fn read4(&self, nib: u32) -> u32 {
        (self.read_word(nib >> 3) >> ((nib & 7) * 4)) & 0xf
    }

    fn write4(&mut self, nib: u32, value: u32) {
        let sh = (nib & 7) * 4;
        let i = (nib >> 3) as usize & (MEM_WORDS - 1);
        self.words[i] = (self.words[i] & !(0xf << sh)) | ((value & 0xf) << sh);
    }

    /// Reads a pixel's stored value (masked to [`Psm::value_mask`]; 8H, 4HL and 4HH give their
    /// field shifted down to bit 0).
    pub fn read_pixel(&self, psm: Psm, x: u32, y: u32, bp: u32, bw: u32) -> u32 {
        // One match: each arm computes its own address (texel fetches come through here;
        // `self.read_at(psm, pixel_address(..))` ran 2.6% more instructions in gs_bench under
        // cachegrind).
        match psm {
            Psm::Ct32 => self.read_word(addr32(x, y, bp, bw)),
            Psm::Z32 => self.read_word(addr32z(x, y, bp, bw)),
            Psm::Ct24 => self.read_word(addr32(x, y, bp, bw)) & 0x00ff_ffff,
            Psm::Z24 => self.read_word(addr32z(x, y, bp, bw)) & 0x00ff_ffff,
            Psm::T8h => self.read_word(addr32(x, y, bp, bw)) >> 24,
            Psm::T4hl => (self.read_word(addr32(x, y, bp, bw)) >> 24) & 0xf,
            Psm::T4hh => self.read_word(addr32(x, y, bp, bw)) >> 28,
            Psm::Ct16 => self.read16(addr16(x, y, bp, bw)),
            Psm::Ct16s => self.read16(addr16s(x, y, bp, bw)),
            Psm::Z16 => self.read16(addr16z(x, y, bp, bw)),
            Psm::Z16s => self.read16(addr16sz(x, y, bp, bw)),
            Psm::T8 => self.read8(addr8(x, y, bp, bw)),
            Psm::T4 => self.read4(addr4(x, y, bp, bw)),
        }
    }

    /// [`LocalMemory::read_pixel`] at `a`, the pixel's [`pixel_address`] for `psm` (for a
    /// caller that also writes the pixel and so computes its address once).
    #[inline]
    pub fn read_at(&self, psm: Psm, a: u32) -> u32 {
        match psm {
            Psm::Ct32 | Psm::Z32 => self.read_word(a),
            Psm::Ct24 | Psm::Z24 => self.read_word(a) & 0x00ff_ffff,
            Psm::T8h => self.read_word(a) >> 24,
            Psm::T4hl => (self.read_word(a) >> 24) & 0xf,
            Psm::T4hh => self.read_word(a) >> 28,
            Psm::Ct16 | Psm::Ct16s | Psm::Z16 | Psm::Z16s => self.read16(a),
            Psm::T8 => self.read8(a),
            Psm::T4 => self.read4(a),
        }
    }

    /// Writes a pixel's value; only the format's bits change (PSMCT24/PSMZ24 keep bits 24-31,
    /// 8H/4HL/4HH keep the rest of the word).
    pub fn write_pixel(&mut self, psm: Psm, x: u32, y: u32, bp: u32, bw: u32, value: u32) {
        self.write_at(psm, pixel_address(psm, x, y, bp, bw), value);
    }

    /// [`LocalMemory::write_pixel`] at `a`, the pixel's [`pixel_address`] for `psm`.
    #[inline]
    pub fn write_at(&mut self, psm: Psm, a: u32, value: u32) {
        match psm {
            Psm::Ct32 | Psm::Z32 => self.write_word(a, value),
            Psm::Ct24 | Psm::Z24 => self.write_masked(a, value, 0x00ff_ffff),
            Psm::T8h => self.write_masked(a, value << 24, 0xff00_0000),
            Psm::T4hl => self.write_masked(a, value << 24, 0x0f00_0000),
            Psm::T4hh => self.write_masked(a, value << 28, 0xf000_0000),
            Psm::Ct16 | Psm::Ct16s | Psm::Z16 | Psm::Z16s => self.write16(a, value),
            Psm::T8 => self.write8(a, value),
            Psm::T4 => self.write4(a, value),
        }
    }

    /// Writes only the bits of `value` that are set in `mask` into the word at `addr`.
    pub fn write_masked(&mut self, addr: u32, value: u32, mask: u32) {
        let i = addr as usize & (MEM_WORDS - 1);
        self.words[i] = (self.words[i] & !mask) | (value & mask);
    }

    /// Writes the 16-bit pixel at halfword address `a` keeping the bits set in `keep` (a 16-bit
    /// FBMSK).
    pub fn write16_masked(&mut self, a: u32, value: u32, keep: u32) {
        let old = self.read16(a);
        self.write16(a, (old & keep) | (value & !keep));
    }
}

/// A host<->local or local<->local transfer rectangle: one side of BITBLTBUF/TRXPOS with TRXREG.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TransferRect {
    /// Base pointer in blocks (64 words).
    pub bp: u32,
    /// Buffer width in 64-pixel units.
    pub bw: u32,
    /// Storage mode.
    pub psm: Psm,
    /// Upper-left corner.
    pub x: u32,
    /// Upper-left corner.
    pub y: u32,
    /// Width in pixels (TRXREG.RRW).
    pub w: u32,
    /// Height in pixels (TRXREG.RRH).
    pub h: u32,
}

impl TransferRect {
    /// Pixels in the rectangle.
    pub fn pixels(&self) -> u64 {
        self.w as u64 * self.h as u64
    }

    /// Calls `f(i, x, y, len)` for each run of pixels `start .. start + count` within one row:
    /// the run's first pixel number counted from `start`, its first column (to wrap at 2048 as
    /// the pixels go on) and row, both already wrapped as [`TransferRect::pixel_xy`] does, and
    /// its length.
    pub fn for_each_row(&self, start: u64, count: u64, mut f: impl FnMut(u64, u32, u32, u32)) {
        let w = self.w.max(1) as u64;
        let mut n = 0;
        while n < count {
            let p = start + n;
            let (row, col) = (p / w, p % w);
            let len = (w - col).min(count - n);
            f(
                n,
                ((self.x as u64 + col) & 2047) as u32,
                ((self.y as u64 + row) & 2047) as u32,
                len as u32,
            );
            n += len;
        }
    }

    /// Coordinates of pixel number `n` (row-major), wrapping at 2048 as the GS's 11-bit
    /// coordinates do.
    pub fn pixel_xy(&self, n: u64) -> (u32, u32) {
        let w = self.w.max(1) as u64;
        (
            ((self.x as u64 + n % w) & 2047) as u32,
            ((self.y as u64 + n / w) & 2047) as u32,
        )
    }
}

impl LocalMemory {
    /// Writes host image data into `rect`, starting at pixel number `start` of the rectangle.
    /// `data` is packed as the GS expects it: 32-bit little-endian words, 24-bit pixels as three
    /// bytes (R, G, B), 16-bit halfwords, bytes, and two 4-bit pixels a byte (the first in the low
    /// nibble). Pixels past the rectangle are ignored. Returns the number of pixels written.
    pub fn write_transfer(&mut self, rect: &TransferRect, start: u64, data: &[u8]) -> u64 {
        let total = rect.pixels();
        let bits = rect.psm.transfer_bits() as usize;
        let count = ((data.len() * 8 / bits) as u64).min(total.saturating_sub(start));
        let value = |i: usize| match bits {
            32 => u32::from_le_bytes([
                data[i * 4],
                data[i * 4 + 1],
                data[i * 4 + 2],
                data[i * 4 + 3],
            ]),
            24 => u32::from_le_bytes([data[i * 3], data[i * 3 + 1], data[i * 3 + 2], 0]),
            16 => u16::from_le_bytes([data[i * 2], data[i * 2 + 1]]) as u32,
            8 => data[i] as u32,
            _ => (data[i / 2] as u32 >> ((i & 1) * 4)) & 0xf,
        };
        rect.for_each_row(start, count, |n, x, y, len| {
            let row = crate::swizzle::Offsets::new(rect.psm, rect.bp, rect.bw).row(y);
            for k in 0..len {
                let a = row.address((x + k) & 2047);
                self.write_at(rect.psm, a, value((n + k as u64) as usize));
            }
        });
        count
    }

    /// Reads `count` pixels of `rect` from pixel number `start`, packed like
    /// [`LocalMemory::write_transfer`]'s input (a trailing odd 4-bit pixel fills the low nibble).
    pub fn read_transfer(&self, rect: &TransferRect, start: u64, count: u64) -> Vec<u8> {
        let bits = rect.psm.transfer_bits();
        let count = count.min(rect.pixels().saturating_sub(start));
        let mut out = Vec::with_capacity((count as usize * bits as usize).div_ceil(8));
        for n in 0..count {
            let (x, y) = rect.pixel_xy(start + n);
            let v = self.read_pixel(rect.psm, x, y, rect.bp, rect.bw);
            match bits {
                32 => out.extend_from_slice(&v.to_le_bytes()),
                24 => out.extend_from_slice(&v.to_le_bytes()[..3]),
                16 => out.extend_from_slice(&(v as u16).to_le_bytes()),
                8 => out.push(v as u8),
                _ => {
                    if n & 1 == 0 {
                        out.push(v as u8);
                    } else if let Some(last) = out.last_mut() {
                        *last |= (v as u8) << 4;
                    }
                }
            }
        }
        out
    }

    /// A local->local copy (TRXDIR = 2). `dir` is TRXPOS.DIR, the order pixels move in, which
    /// matters when the rectangles overlap: 0 upper-left to lower-right, 1 lower-left to
    /// upper-right, 2 upper-right to lower-left, 3 lower-right to upper-left. Values move raw
    /// (the destination's format bits of the source's value).
    pub fn copy_local(&mut self, src: &TransferRect, dst: &TransferRect, dir: u32) {
        let (w, h) = (dst.w, dst.h);
        for j in 0..h {
            let row = if dir & 1 != 0 { h - 1 - j } else { j };
            for i in 0..w {
                let col = if dir & 2 != 0 { w - 1 - i } else { i };
                let v = self.read_pixel(
                    src.psm,
                    (src.x + col) & 2047,
                    (src.y + row) & 2047,
                    src.bp,
                    src.bw,
                );
                self.write_pixel(
                    dst.psm,
                    (dst.x + col) & 2047,
                    (dst.y + row) & 2047,
                    dst.bp,
                    dst.bw,
                    v,
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::psm::ALL_PSMS;

    // Published table entries (GS User's Manual block/column arrangement figures; PCSX2
    // GSTables.cpp blockTable32/16/16S, columnTable32/16/8/4), checked one by one.
    #[test]
    fn block_tables_match_published_rows() {
        let t32: [[u32; 8]; 4] = [
            [0, 1, 4, 5, 16, 17, 20, 21],
            [2, 3, 6, 7, 18, 19, 22, 23],
            [8, 9, 12, 13, 24, 25, 28, 29],
            [10, 11, 14, 15, 26, 27, 30, 31],
        ];
        for (by, row) in t32.iter().enumerate() {
            for (bx, &v) in row.iter().enumerate() {
                assert_eq!(block32(bx as u32, by as u32), v, "block32 ({bx},{by})");
            }
        }
        let t16: [[u32; 4]; 8] = [
            [0, 2, 8, 10],
            [1, 3, 9, 11],
            [4, 6, 12, 14],
            [5, 7, 13, 15],
            [16, 18, 24, 26],
            [17, 19, 25, 27],
            [20, 22, 28, 30],
            [21, 23, 29, 31],
        ];
        let t16s: [[u32; 4]; 8] = [
            [0, 2, 16, 18],
            [1, 3, 17, 19],
            [8, 10, 24, 26],
            [9, 11, 25, 27],
            [4, 6, 20, 22],
            [5, 7, 21, 23],
            [12, 14, 28, 30],
            [13, 15, 29, 31],
        ];
        for by in 0..8 {
            for bx in 0..4 {
                assert_eq!(block16(bx, by), t16[by as usize][bx as usize]);
                assert_eq!(block16s(bx, by), t16s[by as usize][bx as usize]);
            }
        }
    }

    #[test]
    fn column_tables_match_published_entries() {
        assert_eq!(
            (0..8).map(|x| column32(x, 0)).collect::<Vec<_>>(),
            [0, 1, 4, 5, 8, 9, 12, 13]
        );
        assert_eq!(
            (0..8).map(|x| column32(x, 3)).collect::<Vec<_>>(),
            [18, 19, 22, 23, 26, 27, 30, 31]
        );
        assert_eq!(column32(7, 7), 63);
        assert_eq!(
            (0..16).map(|x| column16(x, 0)).collect::<Vec<_>>(),
            [0, 2, 8, 10, 16, 18, 24, 26, 1, 3, 9, 11, 17, 19, 25, 27]
        );
        assert_eq!(column16(0, 7), 100);
        assert_eq!(column16(15, 7), 127);
        assert_eq!(
            (0..16).map(|x| column8(x, 2)).collect::<Vec<_>>(),
            [33, 37, 49, 53, 1, 5, 17, 21, 35, 39, 51, 55, 3, 7, 19, 23]
        );
        assert_eq!(
            (0..16).map(|x| column8(x, 4)).collect::<Vec<_>>(),
            [
                96, 100, 112, 116, 64, 68, 80, 84, 98, 102, 114, 118, 66, 70, 82, 86
            ]
        );
        assert_eq!(column8(15, 15), 255);
        assert_eq!(column8(0, 14), 193);
        assert_eq!(
            (0..32).map(|x| column4(x, 2)).collect::<Vec<_>>(),
            [
                65, 73, 97, 105, 1, 9, 33, 41, 67, 75, 99, 107, 3, 11, 35, 43, 69, 77, 101, 109, 5,
                13, 37, 45, 71, 79, 103, 111, 7, 15, 39, 47
            ]
        );
        assert_eq!(column4(0, 4), 192);
        assert_eq!(column4(4, 4), 128);
        assert_eq!(column4(31, 15), 511);
        assert_eq!(column4(0, 12), 448);
    }

    #[test]
    fn known_addresses() {
        // PSMCT32, BP 0, BW 1: (8,0) is block 1 -> word 64; (1,1) column word 3; (63,31) is the
        // page's last word; (0,32) starts page 1.
        assert_eq!(addr32(8, 0, 0, 1), 64);
        assert_eq!(addr32(1, 1, 0, 1), 3);
        assert_eq!(addr32(0, 2, 0, 1), 16);
        assert_eq!(addr32(63, 31, 0, 1), 2047);
        assert_eq!(addr32(0, 32, 0, 1), 2048);
        // BW 10 (640 pixels): (64,0) is page 1, (0,32) page 10.
        assert_eq!(addr32(64, 0, 0, 10), 2048);
        assert_eq!(addr32(0, 32, 0, 10), 20480);
        // BP counts 64-word blocks and is added: BP 0x1a40 at (0,0) is word 0x1a40 * 64.
        assert_eq!(addr32(0, 0, 0x1a40, 10), 0x1a40 * 64);
        // BP 1 plus block 1 = block 2 (addition, not OR).
        assert_eq!(addr32(8, 0, 1, 1), 128);
        // PSMZ32 (0,0) is block 24.
        assert_eq!(addr32z(0, 0, 0, 1), 24 * 64);
        assert_eq!(addr32z(32, 0, 0, 1), 8 * 64);
        // PSMCT16: (16,0) block 2 = halfword 256; (8,0) halfword 1; (0,8) block 1.
        assert_eq!(addr16(16, 0, 0, 1), 256);
        assert_eq!(addr16(1, 0, 0, 1), 2);
        assert_eq!(addr16(8, 0, 0, 1), 1);
        assert_eq!(addr16(0, 8, 0, 1), 128);
        assert_eq!(addr16(32, 0, 0, 1), 8 * 128);
        assert_eq!(addr16(0, 64, 0, 1), 4096);
        // PSMCT16S: (32,0) is block 16, (0,16) block 8.
        assert_eq!(addr16s(32, 0, 0, 1), 16 * 128);
        assert_eq!(addr16s(0, 16, 0, 1), 8 * 128);
        // PSMZ16 (0,0) block 24, PSMZ16S (32,0) block 8.
        assert_eq!(addr16z(0, 0, 0, 1), 24 * 128);
        assert_eq!(addr16sz(32, 0, 0, 1), 8 * 128);
        // PSMT8: (16,0) block 1; (1,0) byte 4; (0,2) byte 33; (4,2) byte 1; (128,0) page 1 with BW 2.
        assert_eq!(addr8(16, 0, 0, 2), 256);
        assert_eq!(addr8(1, 0, 0, 2), 4);
        assert_eq!(addr8(0, 2, 0, 2), 33);
        assert_eq!(addr8(4, 2, 0, 2), 1);
        assert_eq!(addr8(128, 0, 0, 2), 8192);
        assert_eq!(addr8(0, 64, 0, 4), 2 * 8192);
        // PSMT4: (1,0) nibble 8; (0,2) nibble 65; (32,0) block 2; (0,128) page BW/2.
        assert_eq!(addr4(1, 0, 0, 2), 8);
        assert_eq!(addr4(0, 2, 0, 2), 65);
        assert_eq!(addr4(32, 0, 0, 2), 1024);
        assert_eq!(addr4(0, 128, 0, 4), 2 * 16384);
    }

    #[test]
    fn each_format_maps_a_page_one_to_one() {
        for psm in ALL_PSMS {
            let (pw, ph) = psm.page_size();
            let bw = if matches!(psm, Psm::T8 | Psm::T4) {
                2
            } else {
                1
            };
            let mut seen = std::collections::HashSet::new();
            for y in 0..ph {
                for x in 0..pw {
                    let a = pixel_address(psm, x, y, 0, bw);
                    assert!(seen.insert(a), "{psm:?} ({x},{y}) collides");
                }
            }
            // Every element of the page's 8 KiB is used.
            let units = match psm.transfer_bits() {
                16 => 4096,
                8 if psm == Psm::T8 => 8192,
                4 if psm == Psm::T4 => 16384,
                _ => 2048,
            };
            assert_eq!(seen.len(), units, "{psm:?}");
            assert!(seen.iter().all(|&a| a < units as u32), "{psm:?}");
        }
    }

    #[test]
    fn round_trip_every_format() {
        for psm in ALL_PSMS {
            let mut m = LocalMemory::new();
            let (bp, bw) = (0x40, 4);
            let val = |x: u32, y: u32| {
                (x.wrapping_mul(2654435761) ^ y.wrapping_mul(40503) ^ 0x5a5a_a5a5)
                    & psm.value_mask()
            };
            for y in 0..70 {
                for x in 0..140 {
                    m.write_pixel(psm, x, y, bp, bw, val(x, y));
                }
            }
            for y in 0..70 {
                for x in 0..140 {
                    assert_eq!(
                        m.read_pixel(psm, x, y, bp, bw),
                        val(x, y),
                        "{psm:?} ({x},{y})"
                    );
                }
            }
        }
    }

    #[test]
    fn sub_word_formats_keep_the_rest_of_the_word() {
        let mut m = LocalMemory::new();
        m.write_pixel(Psm::Ct32, 3, 3, 0, 1, 0x1122_3344);
        m.write_pixel(Psm::Ct24, 3, 3, 0, 1, 0xaabbcc);
        assert_eq!(m.read_pixel(Psm::Ct32, 3, 3, 0, 1), 0x11aa_bbcc);
        m.write_pixel(Psm::T4hh, 3, 3, 0, 1, 0x9);
        assert_eq!(m.read_pixel(Psm::Ct32, 3, 3, 0, 1), 0x91aa_bbcc);
        m.write_pixel(Psm::T4hl, 3, 3, 0, 1, 0x7);
        assert_eq!(m.read_pixel(Psm::Ct32, 3, 3, 0, 1), 0x97aa_bbcc);
        assert_eq!(m.read_pixel(Psm::T8h, 3, 3, 0, 1), 0x97);
    }

    #[test]
    fn transfer_packing_round_trips() {
        for psm in ALL_PSMS {
            let mut m = LocalMemory::new();
            let rect = TransferRect {
                bp: 0x100,
                bw: 2,
                psm,
                x: 5,
                y: 3,
                w: 13,
                h: 7,
            };
            let bytes = (rect.pixels() * psm.transfer_bits() as u64).div_ceil(8) as usize;
            let data: Vec<u8> = (0..bytes).map(|i| (i * 37 + 11) as u8).collect();
            assert_eq!(m.write_transfer(&rect, 0, &data), rect.pixels());
            let back = m.read_transfer(&rect, 0, rect.pixels());
            if psm.transfer_bits() == 4 {
                // 91 pixels: the last byte holds one pixel.
                assert_eq!(back[..45], data[..45]);
                assert_eq!(back[45], data[45] & 0xf);
            } else {
                assert_eq!(back, data, "{psm:?}");
            }
        }
        // 24-bit packing: bytes R, G, B of pixel 0 then pixel 1.
        let mut m = LocalMemory::new();
        let rect = TransferRect {
            bp: 0,
            bw: 1,
            psm: Psm::Ct24,
            x: 0,
            y: 0,
            w: 2,
            h: 1,
        };
        m.write_transfer(&rect, 0, &[1, 2, 3, 4, 5, 6]);
        assert_eq!(m.read_pixel(Psm::Ct32, 0, 0, 0, 1), 0x030201);
        assert_eq!(m.read_pixel(Psm::Ct32, 1, 0, 0, 1), 0x060504);
        // 4-bit: low nibble first.
        let rect = TransferRect {
            bp: 0,
            bw: 2,
            psm: Psm::T4,
            x: 0,
            y: 0,
            w: 2,
            h: 1,
        };
        m.write_transfer(&rect, 0, &[0x5a]);
        assert_eq!(m.read_pixel(Psm::T4, 0, 0, 0, 2), 0xa);
        assert_eq!(m.read_pixel(Psm::T4, 1, 0, 0, 2), 0x5);
    }

    #[test]
    fn local_copy_directions() {
        let mut m = LocalMemory::new();
        for x in 0..8 {
            m.write_pixel(Psm::Ct32, x, 0, 0, 1, x + 1);
        }
        // Overlapping copy one pixel to the right: moving right to left (DIR 2) keeps the data.
        let src = TransferRect {
            bp: 0,
            bw: 1,
            psm: Psm::Ct32,
            x: 0,
            y: 0,
            w: 7,
            h: 1,
        };
        let dst = TransferRect { x: 1, ..src };
        m.copy_local(&src, &dst, 2);
        let row: Vec<u32> = (0..8)
            .map(|x| m.read_pixel(Psm::Ct32, x, 0, 0, 1))
            .collect();
        assert_eq!(row, [1, 1, 2, 3, 4, 5, 6, 7]);
        // Left to right (DIR 0) smears the first pixel.
        m.copy_local(&src, &dst, 0);
        let row: Vec<u32> = (0..8)
            .map(|x| m.read_pixel(Psm::Ct32, x, 0, 0, 1))
            .collect();
        assert_eq!(row, [1; 8]);
    }
}
