//! Memory for compiled blocks, packed one after another.
//!
//! Cranelift's default provider maps fresh pages for every `finalize_definitions`, and the
//! recompiler finalizes each block on its own: every block then started on a page boundary of a
//! page of its own. All the blocks' first cache lines fell into the same set of the host's
//! instruction cache (and of its micro-op cache and branch predictor), and a loop running
//! through a few dozen blocks kept evicting itself. Packed, blocks follow each other at the
//! alignment Cranelift asks for, as a translator's code buffer does.
//!
//! Memory is never writable and executable at once: the chunk's pages that hold finalized code
//! are read and execute; the page a new block starts in, when it holds the end of an earlier
//! block, is made writable again while the new block is written (compiling happens only in the
//! dispatcher, when no compiled code is running), and read and execute again when the new
//! block is finalized.

use cranelift_jit::{BranchProtection, JITMemoryKind, JITMemoryProvider};
use cranelift_module::{ModuleError, ModuleResult};
use std::io;

/// Bytes reserved at a time (blocks are a few KiB each; a larger request gets a chunk of its
/// own size).
const CHUNK: usize = 4 << 20;

/// One mapping that blocks are packed into.
struct Chunk {
    map: region::Allocation,
    /// Bytes handed out.
    used: usize,
    /// Bytes from the start made read and execute (a multiple of the page size).
    sealed: usize,
}

/// A [`JITMemoryProvider`] that packs code (see the module's doc). Data objects (the recompiler
/// declares none) are refused.
#[derive(Default)]
pub(crate) struct PackedCode {
    chunks: Vec<Chunk>,
}

#[allow(unsafe_code)]
// Allowed: the mappings belong to this provider alone (region's `Allocation` holds a raw
// pointer, hence not `Send` by itself); moving the provider to another thread moves them whole.
unsafe impl Send for PackedCode {}

fn page_ceil(n: usize) -> usize {
    let p = region::page::size();
    n.div_ceil(p) * p
}

fn page_floor(n: usize) -> usize {
    n / region::page::size() * region::page::size()
}

fn os_error(what: &str, e: region::Error) -> io::Error {
    io::Error::other(format!("code memory: {what}: {e}"))
}

impl Chunk {
    fn new(size: usize) -> io::Result<Self> {
        let map = region::alloc(page_ceil(size.max(CHUNK)), region::Protection::READ_WRITE)
            .map_err(|e| os_error("map", e))?;
        Ok(Self {
            map,
            used: 0,
            sealed: 0,
        })
    }

    fn base(&self) -> *const u8 {
        self.map.as_ptr::<u8>()
    }

    /// Set the protection of bytes `from..to` (page multiples) of the chunk.
    fn protect(&self, from: usize, to: usize, p: region::Protection) -> io::Result<()> {
        if from >= to {
            return Ok(());
        }
        #[allow(unsafe_code)]
        // Allowed: the range lies inside this chunk's own mapping (page-aligned offsets below
        // its length), and no code in it runs while it is writable (see the module's doc).
        unsafe {
            region::protect(self.base().add(from), to - from, p).map_err(|e| os_error("protect", e))
        }
    }

    /// `size` bytes at `align` in this chunk, if they fit; pages of finalized code they share
    /// are made writable again.
    fn take(&mut self, size: usize, align: usize) -> io::Result<Option<*mut u8>> {
        let start = self.used.next_multiple_of(align);
        if start + size > self.map.len() {
            return Ok(None);
        }
        let first = page_floor(start);
        if first < self.sealed {
            self.protect(first, self.sealed, region::Protection::READ_WRITE)?;
            self.sealed = first;
        }
        self.used = start + size;
        #[allow(unsafe_code)]
        // Allowed: `start + size` is within the mapping (checked above).
        Ok(Some(unsafe { self.map.as_mut_ptr::<u8>().add(start) }))
    }

    /// Make everything handed out read and execute.
    fn seal(&mut self) -> io::Result<()> {
        let end = page_ceil(self.used);
        self.protect(self.sealed, end, region::Protection::READ_EXECUTE)?;
        self.sealed = end;
        Ok(())
    }
}

impl JITMemoryProvider for PackedCode {
    fn allocate(&mut self, size: usize, align: u64, kind: JITMemoryKind) -> io::Result<*mut u8> {
        if !matches!(kind, JITMemoryKind::Executable) {
            return Err(io::Error::other(
                "code memory: the recompiler declares no data objects",
            ));
        }
        let align = usize::try_from(align)
            .ok()
            .filter(|a| a.is_power_of_two() && *a <= region::page::size())
            .ok_or_else(|| io::Error::other(format!("code memory: alignment {align}")))?;
        if let Some(chunk) = self.chunks.last_mut()
            && let Some(p) = chunk.take(size, align)?
        {
            return Ok(p);
        }
        // The last chunk is full: its code stays where it is (blocks point at each other).
        let mut chunk = Chunk::new(size)?;
        let p = chunk
            .take(size, align)?
            .expect("a new chunk holds the request");
        self.chunks.push(chunk);
        Ok(p)
    }

    #[allow(unsafe_code)]
    // Allowed: the trait's own contract (the caller guarantees no code of it runs any more).
    unsafe fn free_memory(&mut self) {
        self.chunks.clear();
    }

    fn finalize(&mut self, _: BranchProtection) -> ModuleResult<()> {
        // x86-64 keeps its instruction cache coherent with stores (the only host this provider
        // is used on, see `Compiler::new`); the protection change orders the writes.
        for chunk in &mut self.chunks {
            chunk.seal().map_err(|e| ModuleError::Backend(e.into()))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_packed_and_sealed_pages_reopen() {
        let mut m = PackedCode::default();
        let a = m.allocate(100, 16, JITMemoryKind::Executable).unwrap();
        m.finalize(BranchProtection::None).unwrap();
        let b = m.allocate(100, 16, JITMemoryKind::Executable).unwrap();
        assert_eq!(
            b as usize,
            a as usize + 112,
            "the next block follows at 16 bytes"
        );
        #[allow(unsafe_code)]
        // Allowed: `b` is 100 bytes handed out, writable until the next finalize.
        unsafe {
            b.write_bytes(0xc3, 100);
        }
        m.finalize(BranchProtection::None).unwrap();
        let big = m
            .allocate(CHUNK + 1, 16, JITMemoryKind::Executable)
            .unwrap();
        assert_eq!(
            m.chunks.len(),
            2,
            "a request past the chunk gets one of its own"
        );
        assert_eq!(big as usize % region::page::size(), 0);
        assert!(m.allocate(8, 16, JITMemoryKind::Writable).is_err());
        m.finalize(BranchProtection::None).unwrap();
        let r = region::query(b).unwrap();
        assert_eq!(r.protection(), region::Protection::READ_EXECUTE);
    }
}
