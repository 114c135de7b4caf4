//! heaplib: the console's heaps, kept in guest RAM in the console's own layout (so that a
//! module that walks or corrupts them sees what it would see on a console).
//!
//! A heap is a sysmem block holding a header and a first *chunk*; a growable heap adds chunks
//! from sysmem as needed. A chunk is a free list of *fragments* in 8-byte units (the K&R
//! allocator): each fragment starts with an 8-byte header { next fragment, size in units }.
//! Allocation is first fit, starting after the chunk's rover, and takes the *tail* of the free
//! fragment; a request of `n` bytes takes `((n < 8 ? 15 : n + 7) >> 3) + 1` units (32-bit
//! arithmetic, so a request near 4 GiB wraps to a tiny one, as ps2autotests vpool/pallocate
//! shows: -1 and -5 bytes take one unit). Freeing coalesces with both neighbours.
//!
//! Layouts (offsets in bytes):
//! - heap header: +0 key (heap + 1), +4 grow size | flag bit 0 (allocate chunks from the top),
//!   +8 list node { next, prev } of the extra chunks, +16 the first chunk.
//! - chunk: +0 key (chunk - 1), +4 size in bytes, +8 units in use, +12 rover, +16 the first
//!   fragment header; a zero-size sentinel fragment ends the chunk.
//! - an extra chunk's sysmem block: +0 list node, +8 the chunk.

use super::sysmem::Mode;
use super::{Iop, IopError, LibDef, Ret};

impl Iop {
    fn w(&self, a: u32) -> u32 {
        self.bus.ram_u32(a)
    }
    fn set(&mut self, a: u32, v: u32) {
        self.bus.set_ram_u32(a, v);
    }
}

/// Lay a chunk of `size` bytes out at `chunk` (HeapPrepare). Chunks under 41 bytes are left
/// alone.
pub fn prepare(iop: &mut Iop, chunk: u32, size: u32) {
    if chunk == 0 || size < 0x29 {
        return;
    }
    let units = (size - 16) >> 3;
    let first = chunk + 16;
    let sentinel = chunk + 8 + 8 * units;
    iop.set(chunk, chunk.wrapping_sub(1));
    iop.set(chunk + 4, size);
    iop.set(chunk + 8, 0);
    iop.set(chunk + 12, first);
    iop.set(first, sentinel);
    iop.set(first + 4, units - 1);
    iop.set(sentinel, first);
    iop.set(sentinel + 4, 0);
}

fn chunk_valid(iop: &Iop, chunk: u32) -> bool {
    chunk != 0 && iop.w(chunk) == chunk.wrapping_sub(1)
}

/// Allocate `n` bytes from one chunk; the payload address or `None`.
pub fn chunk_alloc(iop: &mut Iop, chunk: u32, n: u32) -> Option<u32> {
    if !chunk_valid(iop, chunk) {
        return None;
    }
    let want = (if n < 8 { 15 } else { n.wrapping_add(7) } >> 3).wrapping_add(1);
    let start = iop.w(chunk + 12);
    let mut prev = start;
    let mut f = iop.w(prev);
    // Bounded: a chunk has at most size / 8 fragments; a corrupted list ends the search.
    let limit = (iop.w(chunk + 4) / 8).saturating_add(2);
    let mut steps = 0;
    let size = loop {
        let s = iop.w(f + 4);
        if s as i32 >= want as i32 {
            break s;
        }
        prev = f;
        if f == start {
            return None;
        }
        f = iop.w(f);
        steps += 1;
        if steps > limit {
            return None;
        }
    };
    let mut frag = f;
    if size == want {
        let next = iop.w(f);
        iop.set(prev, next);
    } else {
        let rest = size - want;
        iop.set(f + 4, rest);
        frag = f.wrapping_add(8 * rest);
        iop.set(frag + 4, want);
    }
    iop.set(chunk + 12, prev);
    // An allocated fragment's header points to its chunk.
    iop.set(frag, chunk);
    let used = iop.w(chunk + 8).wrapping_add(want);
    iop.set(chunk + 8, used);
    Some(frag + 8)
}

/// Free `ptr` into one chunk: 0, or the console's negative codes (-4 bad chunk, -1 not this
/// chunk's, -2 outside it, -3 overlapping a free fragment).
pub fn chunk_free(iop: &mut Iop, chunk: u32, ptr: u32) -> i32 {
    if !chunk_valid(iop, chunk) {
        return -4;
    }
    if ptr == 0 {
        return -1;
    }
    let h = ptr.wrapping_sub(8);
    let hsize = iop.w(h + 4);
    if iop.w(h) != chunk || hsize as i32 <= 0 {
        return -1;
    }
    let csize = iop.w(chunk + 4);
    if h < chunk + 16 || h >= chunk.wrapping_add(csize) {
        return -2;
    }
    // Find the free fragment p with p < h < p.next in address order (or the wrap point).
    let limit = (csize / 8).saturating_add(2);
    let mut p = iop.w(chunk + 12);
    let mut steps = 0;
    loop {
        let next = iop.w(p);
        if (p < h && h < next) || (p >= next && (h > p || h < next)) {
            break;
        }
        if p == h {
            return -3;
        }
        p = next;
        steps += 1;
        if steps > limit {
            return -3;
        }
    }
    let next = iop.w(p);
    let psize = iop.w(p + 4);
    // Overlap with the next or the previous free fragment: a double free.
    if next < h.wrapping_add(8 * hsize) && next > h {
        return -3;
    }
    if p < h && h < p.wrapping_add(8 * psize) {
        return -3;
    }
    let used = iop.w(chunk + 8).wrapping_sub(hsize);
    iop.set(chunk + 8, used);
    // Join the next free fragment.
    let nsize = iop.w(next + 4);
    if h.wrapping_add(8 * hsize) == next && nsize as i32 > 0 {
        iop.set(h + 4, hsize + nsize);
        let nn = iop.w(next);
        iop.set(h, nn);
    } else {
        iop.set(h, next);
    }
    // Join the previous one.
    if p.wrapping_add(8 * psize) == h {
        let hs = iop.w(h + 4);
        iop.set(p + 4, psize + hs);
        let hn = iop.w(h);
        iop.set(p, hn);
    } else {
        iop.set(p, h);
    }
    iop.set(chunk + 12, p);
    0
}

/// The free bytes of one chunk (HeapChunkSize).
pub fn chunk_free_size(iop: &Iop, chunk: u32) -> u32 {
    let size = iop.w(chunk + 4);
    let used = iop.w(chunk + 8);
    8u32.wrapping_mul(
        ((size.wrapping_sub(16)) >> 3)
            .wrapping_sub(used)
            .wrapping_sub(1),
    )
}

/// CreateHeap(size, flags): bit 0 grows the heap by `size` chunks when full, bit 1 takes its
/// memory from the top of RAM. Returns the heap or 0.
pub fn create(iop: &mut Iop, size: u32, flags: u32) -> u32 {
    let size = size.wrapping_add(3) & !3;
    let mode = if flags & 2 != 0 {
        Mode::Last
    } else {
        Mode::First
    };
    let Some(h) = iop.sysmem_alloc(mode, size, 0) else {
        return 0;
    };
    iop.set(h, h + 1);
    let grow = if flags & 1 != 0 { size } else { 0 };
    iop.set(h + 4, grow | ((flags >> 1) & 1));
    iop.set(h + 8, h + 8);
    iop.set(h + 12, h + 8);
    prepare(iop, h + 16, size - 16);
    h
}

fn heap_valid(iop: &Iop, heap: u32) -> bool {
    heap != 0 && iop.w(heap) == heap.wrapping_add(1)
}

/// The chunks of a heap, newest first and the heap's own last.
fn chunks(iop: &Iop, heap: u32) -> Vec<u32> {
    let head = heap + 8;
    let mut out = Vec::new();
    let mut item = iop.w(head);
    while item != head && out.len() < 4096 {
        out.push(item + 8);
        item = iop.w(item);
    }
    out.push(heap + 16);
    out
}

/// AllocHeapMemory.
pub fn alloc(iop: &mut Iop, heap: u32, n: u32) -> Option<u32> {
    if !heap_valid(iop, heap) {
        return None;
    }
    for c in chunks(iop, heap) {
        if let Some(p) = chunk_alloc(iop, c, n) {
            return Some(p);
        }
    }
    let flags = iop.w(heap + 4);
    if flags < 4 {
        return None;
    }
    let mut grow = flags & !1;
    if (grow.wrapping_sub(40) as i32) < n as i32 {
        grow = n.wrapping_add(40);
    }
    let mode = if flags & 1 != 0 {
        Mode::Last
    } else {
        Mode::First
    };
    let block = iop.sysmem_alloc(mode, grow, 0)?;
    let size = iop.sysmem_block_size(block);
    // Link the new chunk first in the list.
    let head = heap + 8;
    let first = iop.w(head);
    iop.set(block, first);
    iop.set(block + 4, head);
    iop.set(first + 4, block);
    iop.set(head, block);
    prepare(iop, block + 8, size - 8);
    chunk_alloc(iop, block + 8, n)
}

/// FreeHeapMemory: 0, -4 for a bad heap, -1 when no chunk holds `ptr`.
pub fn free(iop: &mut Iop, heap: u32, ptr: u32) -> i32 {
    if !heap_valid(iop, heap) {
        return -4;
    }
    let head = heap + 8;
    for c in chunks(iop, heap) {
        if chunk_free(iop, c, ptr) == 0 {
            // An extra chunk with nothing left in use goes back to sysmem.
            if c != heap + 16 && iop.w(c + 8) == 0 {
                let node = c - 8;
                let (next, prev) = (iop.w(node), iop.w(node + 4));
                iop.set(prev, next);
                iop.set(next + 4, prev);
                iop.set(c, 0);
                iop.sysmem_free(node);
            }
            let _ = head;
            return 0;
        }
    }
    -1
}

/// HeapTotalFreeSize: the free bytes of every chunk, or -4 for a bad heap.
pub fn total_free(iop: &Iop, heap: u32) -> i32 {
    if !heap_valid(iop, heap) {
        return -4;
    }
    chunks(iop, heap)
        .into_iter()
        .map(|c| chunk_free_size(iop, c))
        .fold(0u32, u32::wrapping_add) as i32
}

/// DeleteHeap: every chunk back to sysmem.
pub fn delete(iop: &mut Iop, heap: u32) {
    if !heap_valid(iop, heap) {
        return;
    }
    let list = chunks(iop, heap);
    iop.set(heap, 0);
    for c in list {
        iop.set(c, 0);
        if c != heap + 16 {
            iop.sysmem_free(c - 8);
        }
    }
    iop.sysmem_free(heap);
}

fn n_create(iop: &mut Iop) -> Result<Ret, IopError> {
    let (size, flags) = (iop.arg(0), iop.arg(1));
    Ok(Ret::V(create(iop, size, flags)))
}

fn n_delete(iop: &mut Iop) -> Result<Ret, IopError> {
    let heap = iop.arg(0);
    delete(iop, heap);
    Ok(Ret::V(0))
}

fn n_alloc(iop: &mut Iop) -> Result<Ret, IopError> {
    let (heap, n) = (iop.arg(0), iop.arg(1));
    Ok(Ret::V(alloc(iop, heap, n).unwrap_or(0)))
}

fn n_free(iop: &mut Iop) -> Result<Ret, IopError> {
    let (heap, p) = (iop.arg(0), iop.arg(1));
    Ok(Ret::V(free(iop, heap, p) as u32))
}

fn n_total(iop: &mut Iop) -> Result<Ret, IopError> {
    let heap = iop.arg(0);
    Ok(Ret::V(total_free(iop, heap) as u32))
}

fn n_prepare(iop: &mut Iop) -> Result<Ret, IopError> {
    let (c, size) = (iop.arg(0), iop.arg(1));
    prepare(iop, c, size);
    Ok(Ret::V(0))
}

fn n_chunk_valid(iop: &mut Iop) -> Result<Ret, IopError> {
    let c = iop.arg(0);
    Ok(Ret::V((chunk_valid(iop, c) && iop.w(c + 8) == 0) as u32))
}

fn n_chunk_alloc(iop: &mut Iop) -> Result<Ret, IopError> {
    let (c, n) = (iop.arg(0), iop.arg(1));
    Ok(Ret::V(chunk_alloc(iop, c, n).unwrap_or(0)))
}

fn n_chunk_free(iop: &mut Iop) -> Result<Ret, IopError> {
    let (c, p) = (iop.arg(0), iop.arg(1));
    Ok(Ret::V(chunk_free(iop, c, p) as u32))
}

fn n_chunk_size(iop: &mut Iop) -> Result<Ret, IopError> {
    let c = iop.arg(0);
    Ok(Ret::V(chunk_free_size(iop, c)))
}

/// heaplib.
pub const HEAPLIB: LibDef = LibDef {
    name: "heaplib",
    version: 0x0101,
    funcs: &[
        (4, "CreateHeap", n_create),
        (5, "DeleteHeap", n_delete),
        (6, "AllocHeapMemory", n_alloc),
        (7, "FreeHeapMemory", n_free),
        (8, "HeapTotalFreeSize", n_total),
        (11, "HeapPrepare", n_prepare),
        (12, "HeapChunkIsValid", n_chunk_valid),
        (13, "HeapChunkAllocate", n_chunk_alloc),
        (14, "HeapChunkFree", n_chunk_free),
        (15, "HeapChunkSize", n_chunk_size),
    ],
};
