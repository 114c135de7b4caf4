//! The IPU's input: the 8-quadword IPU_in_FIFO behind a 2-quadword internal buffer, read as one
//! bit stream.
//!
//! Facts (PCSX2's and Play!'s IPU models agree): the stream is the bytes of the quadwords in
//! memory order, each byte read from its most significant bit. IPU_BP reports BP (the bit
//! position in the first buffered quadword, 0..127), IFC (quadwords still in the FIFO) and FP
//! (quadwords in the internal buffer, 0..2). Here the buffer takes quadwords from the FIFO as
//! soon as it has room, so FP is `min(2, total)` and IFC the rest; the FIFO accepts a quadword
//! while IFC < 8.

use std::collections::VecDeque;

/// Quadwords the IPU_in_FIFO holds.
pub const FIFO_QWORDS: usize = 8;
/// Quadwords of the internal buffer in front of it.
pub const BUFFER_QWORDS: usize = 2;

/// The input FIFO and internal buffer as one bit stream.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct InFifo {
    /// Buffered quadwords, oldest first, in stream order (the first stream bit is bit 127).
    q: VecDeque<u128>,
    /// Bits of the first quadword already read (may exceed what is buffered after BCLR).
    bp: u32,
}

/// Why a read stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Short {
    /// Not enough bits are buffered yet.
    NeedMore,
}

impl InFifo {
    /// Empty the FIFO and the buffer and set BP (BCLR, reset).
    pub fn clear(&mut self, bp: u32) {
        self.q.clear();
        self.bp = bp;
    }

    /// IPU_BP.BP.
    pub fn bp(&self) -> u32 {
        self.bp & 0x7f
    }

    /// IPU_BP.FP: quadwords in the internal buffer.
    pub fn fp(&self) -> usize {
        self.q.len().min(BUFFER_QWORDS)
    }

    /// IFC: quadwords in the FIFO proper.
    pub fn ifc(&self) -> usize {
        self.q.len() - self.fp()
    }

    /// Room in the FIFO, in quadwords.
    pub fn room(&self) -> usize {
        FIFO_QWORDS - self.ifc()
    }

    /// Append a quadword as it is in memory (little-endian: byte 0 is bits 0-7). Returns false
    /// (and drops nothing) when the FIFO is full.
    pub fn push(&mut self, q: u128) -> bool {
        if self.room() == 0 {
            return false;
        }
        self.q.push_back(u128::from_be_bytes(q.to_le_bytes()));
        true
    }

    /// Bits that can be read.
    pub fn avail(&self) -> u32 {
        (self.q.len() as u32 * 128).saturating_sub(self.bp)
    }

    fn qword(&self, i: usize) -> u128 {
        self.q.get(i).copied().unwrap_or(0)
    }

    /// The `n` (1..=32) bits that start `skip` bits past the read position, first bit highest,
    /// with zeros past the end of what is buffered. Returns them left-aligned in a u32 (the first
    /// bit at bit 31) and how many of them are real.
    pub fn peek_padded(&self, skip: u32, n: u32) -> (u32, u32) {
        debug_assert!((1..=32).contains(&n));
        let p = self.bp + skip;
        let (i, off) = ((p / 128) as usize, p % 128);
        let hi = self.qword(i);
        let lo = self.qword(i + 1);
        let window = if off == 0 {
            hi
        } else {
            (hi << off) | (lo >> (128 - off))
        };
        let v = (window >> 96) as u32;
        let v = if n == 32 { v } else { v & !(u32::MAX >> n) };
        let real = (self.q.len() as u32 * 128).saturating_sub(p).min(n);
        (v, real)
    }

    /// Drop `n` bits (the caller has checked they are available).
    pub fn consume(&mut self, n: u32) {
        self.bp += n;
        while self.bp >= 128 && !self.q.is_empty() {
            self.q.pop_front();
            self.bp -= 128;
        }
    }

    /// Advance to the next byte boundary.
    pub fn align_byte(&mut self) {
        let pad = (8 - self.bp % 8) % 8;
        self.consume(pad);
    }
}

/// A read that commits only when a whole unit of the syntax has been read: bits are taken from
/// `pos` onwards and the FIFO consumes them on [`Cursor::commit`].
pub struct Cursor<'a> {
    fifo: &'a InFifo,
    pos: u32,
}

impl<'a> Cursor<'a> {
    /// A cursor at the FIFO's read position.
    pub fn new(fifo: &'a InFifo) -> Self {
        Self { fifo, pos: 0 }
    }

    /// Bits read so far.
    pub fn pos(&self) -> u32 {
        self.pos
    }

    /// Read `n` (0..=32) bits.
    pub fn get(&mut self, n: u32) -> Result<u32, Short> {
        if n == 0 {
            return Ok(0);
        }
        let (v, real) = self.fifo.peek_padded(self.pos, n);
        if real < n {
            return Err(Short::NeedMore);
        }
        self.pos += n;
        Ok(v >> (32 - n))
    }

    /// The next `n` bits padded with zeros and how many are real, without reading them.
    pub fn peek(&self, n: u32) -> (u32, u32) {
        self.fifo.peek_padded(self.pos, n)
    }

    /// Skip `n` bits already known to be there.
    pub fn skip(&mut self, n: u32) {
        self.pos += n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn qw(bytes: [u8; 16]) -> u128 {
        u128::from_le_bytes(bytes)
    }

    #[test]
    fn bits_come_in_memory_byte_order_msb_first() {
        let mut f = InFifo::default();
        let mut b = [0u8; 16];
        b[0] = 0xa5;
        b[1] = 0x3c;
        b[15] = 0x81;
        assert!(f.push(qw(b)));
        let mut c = Cursor::new(&f);
        assert_eq!(c.get(4), Ok(0xa));
        assert_eq!(c.get(8), Ok(0x53));
        assert_eq!(c.get(4), Ok(0xc));
        assert_eq!(f.peek_padded(120, 8), (0x8100_0000, 8));
        // Past the end: padded, and only 8 real.
        assert_eq!(f.peek_padded(120, 16), (0x8100_0000, 8));
    }

    #[test]
    fn reads_straddle_quadwords_and_consumption_frees_the_fifo() {
        let mut f = InFifo::default();
        let mut a = [0u8; 16];
        a[15] = 0x12;
        let mut b = [0u8; 16];
        b[0] = 0x34;
        f.push(qw(a));
        f.push(qw(b));
        assert_eq!(f.peek_padded(120, 16).0 >> 16, 0x1234);
        assert_eq!((f.fp(), f.ifc()), (2, 0));
        for _ in 0..8 {
            f.push(0);
        }
        assert_eq!((f.ifc(), f.room()), (8, 0));
        assert!(!f.push(0));
        f.consume(124);
        assert_eq!((f.bp(), f.ifc()), (124, 8));
        f.consume(4);
        assert_eq!((f.bp(), f.fp(), f.ifc()), (0, 2, 7));
        f.consume(3);
        f.align_byte();
        assert_eq!(f.bp(), 8);
    }

    #[test]
    fn bclr_bit_position_skips_into_the_first_quadword() {
        let mut f = InFifo::default();
        f.clear(8);
        assert_eq!(f.avail(), 0);
        let mut b = [0u8; 16];
        b[1] = 0xff;
        f.push(qw(b));
        assert_eq!(f.avail(), 120);
        assert_eq!(Cursor::new(&f).get(8), Ok(0xff));
    }
}
