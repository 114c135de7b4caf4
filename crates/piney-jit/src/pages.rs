//! Which guest memory holds compiled code, and the address map the recompiler relies on.
//!
//! Physical addresses follow the PS2 kernel's fixed map (as the machine's bus does): kuseg
//! `0x0000_0000..0x2000_0000` one to one, `0x2000_0000..0x4000_0000` (the uncached mirrors)
//! `addr & 0x0fff_ffff`, kseg0/kseg1 `addr & 0x1fff_ffff`. The scratchpad (0x7000_0000) and
//! kseg2/3 have no physical address here: code there is interpreted, never compiled.

/// Code pages are this many bytes (2^8): small, so that data next to code rarely shares a page.
pub(crate) const PAGE_SHIFT: u32 = 8;
/// Pages in the 512 MiB physical space.
const PAGES: usize = 1 << (29 - PAGE_SHIFT);

/// The physical address of a virtual one, or `None` where code is never compiled.
#[inline]
pub(crate) fn phys(addr: u32) -> Option<u32> {
    match addr >> 28 {
        0x0 | 0x1 => Some(addr),
        0x2 | 0x3 => Some(addr & 0x0fff_ffff),
        0x8..=0xb => Some(addr & 0x1fff_ffff),
        _ => None,
    }
}

/// The RAM offset of `addr` when the fast path may serve it: segments `0x0000_0000..0x4000_0000`
/// and `0x8000_0000..0xc000_0000` (512 MiB each, selected by bits 29-31: 0, 1, 4, 5) whose
/// `addr & 0x1fff_ffff` lies in RAM. Generated code computes the same test.
#[inline]
pub(crate) fn fast_phys(addr: u32, ram_len: u64) -> Option<u32> {
    let p = addr & 0x1fff_ffff;
    ((FAST_SEGMENTS >> (addr >> 29)) & 1 != 0 && (p as u64) < ram_len).then_some(p)
}

/// The scratchpad offset of `addr` when the fast path may serve it: `0x7000_0000..0x7000_4000`
/// (as the PS2 kernel maps it) within the bus's scratchpad. Generated code computes the same test.
#[inline]
pub(crate) fn spr_offset(addr: u32, spr_len: u64) -> Option<u32> {
    let off = addr & 0x3fff;
    (addr & 0xffff_c000 == 0x7000_0000 && (off as u64) < spr_len).then_some(off)
}

/// Bit `n` set: the 512 MiB segment `n` (address bits 29-31) may use the fast path.
pub(crate) const FAST_SEGMENTS: u32 = 0b0011_0011;

/// One byte per page of physical space, non-zero while compiled blocks (or PCs marked to be
/// interpreted) lie on it, and the stores into code still to process.
pub(crate) struct PageMap {
    /// The flags; generated code tests `bytes[p >> PAGE_SHIFT] != 0` before a fast store.
    pub bytes: Vec<u8>,
    /// Physical ranges (start, length) written while they held code.
    pub written: Vec<(u32, u32)>,
    /// Bytes of RAM the bus lends for this run (the slow path's test for plain memory).
    pub ram_len: u64,
    /// Bytes of scratchpad the bus lends for this run.
    pub spr_len: u64,
}

impl PageMap {
    /// An empty map.
    pub fn new() -> Self {
        Self {
            bytes: vec![0; PAGES],
            written: Vec::new(),
            ram_len: 0,
            spr_len: 0,
        }
    }

    /// Note a store of `len` bytes at physical `p`: true (and recorded) when it touches code.
    #[inline]
    pub fn write(&mut self, p: u32, len: u32) -> bool {
        let first = (p >> PAGE_SHIFT) as usize;
        let last = ((p + len - 1) >> PAGE_SHIFT) as usize;
        let hit = (first..=last).any(|i| self.bytes.get(i).is_some_and(|&b| b != 0));
        if hit {
            self.written.push((p, len));
        }
        hit
    }

    /// The pages a physical range covers.
    pub fn pages(p: u32, len: u32) -> std::ops::RangeInclusive<usize> {
        (p >> PAGE_SHIFT) as usize..=((p + len.max(1) - 1) >> PAGE_SHIFT) as usize
    }
}
