//! sysmem: the IOP's memory manager.
//!
//! The console's rules: memory is handed out in 256-byte units; AllocSysMemory mode 0
//! (ALLOC_FIRST) takes the lowest free block that fits, from its bottom; mode 1 (ALLOC_LAST) the
//! highest free block that fits, from its top; mode 2 (ALLOC_ADDRESS) the given 256-aligned
//! address. A size of 0 (or one that rounds to 0) allocates nothing and returns 0. Freeing joins
//! free neighbours.
//!
//! The layout at boot: the kernel and the resident system modules take the bottom of RAM. On a
//! console that is the BIOS's own modules (sysmem, loadcore, excepman, intrman, ssbusc, dmacman,
//! timrman, sysclib, heaplib, threadman, vblank, modload, ioman, stdio, sifman, sifcmd, loadfile,
//! cdvdman...) followed by their heaps and thread stacks (stacks come from the top). piney
//! reserves [`BOOT_RESERVED`] bytes at the bottom for the same purpose (its native function
//! slots, export tables and the kernel heap live there) so that the first user module and the
//! first ALLOC_FIRST blocks land at console-like addresses. The exact figure differs between
//! BIOS versions and is not published; it is a named constant so that a measured value can
//! replace it.

use super::{Iop, IopError, LibDef, Ret};

/// RAM managed by sysmem (QueryMemSize): all 2 MiB.
pub const MEM_SIZE: u32 = 0x0020_0000;
/// The bottom of RAM the kernel and the resident system modules take at boot.
pub const BOOT_RESERVED: u32 = 0x0001_8000;

/// AllocSysMemory modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Mode {
    /// The lowest free block that fits, from its bottom.
    First,
    /// The highest free block that fits, from its top.
    Last,
    /// At a given address.
    Addr,
}

/// One block: `[start, start + size)`, in use or free.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Block {
    start: u32,
    size: u32,
    used: bool,
}

/// The block list, in address order, covering all of [0, MEM_SIZE).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct SysMem {
    blocks: Vec<Block>,
}

impl Default for SysMem {
    fn default() -> Self {
        Self {
            blocks: vec![Block {
                start: 0,
                size: MEM_SIZE,
                used: false,
            }],
        }
    }
}

impl SysMem {
    /// Allocate `size` bytes (rounded up to 256) with `mode`; `addr` for [`Mode::Addr`].
    pub fn alloc(&mut self, mode: Mode, size: u32, addr: u32) -> Option<u32> {
        let units = size.wrapping_add(255) >> 8;
        if units == 0 {
            return None;
        }
        let need = units << 8;
        let i = match mode {
            Mode::First => self.blocks.iter().position(|b| !b.used && b.size >= need)?,
            Mode::Last => self
                .blocks
                .iter()
                .rposition(|b| !b.used && b.size >= need)?,
            Mode::Addr => {
                if addr & 0xff != 0 {
                    return None;
                }
                let i = self
                    .blocks
                    .iter()
                    .position(|b| b.start <= addr && addr < b.start + b.size)?;
                let b = self.blocks[i];
                if b.used || addr as u64 + need as u64 > b.start as u64 + b.size as u64 {
                    return None;
                }
                // Split off the free part below the address.
                if addr > b.start {
                    self.blocks[i].size = addr - b.start;
                    self.blocks.insert(
                        i + 1,
                        Block {
                            start: addr,
                            size: b.start + b.size - addr,
                            used: false,
                        },
                    );
                    i + 1
                } else {
                    i
                }
            }
        };
        let b = self.blocks[i];
        if b.size == need {
            self.blocks[i].used = true;
            return Some(b.start);
        }
        match mode {
            Mode::Last => {
                self.blocks[i].size -= need;
                let start = b.start + b.size - need;
                self.blocks.insert(
                    i + 1,
                    Block {
                        start,
                        size: need,
                        used: true,
                    },
                );
                Some(start)
            }
            _ => {
                self.blocks[i] = Block {
                    start: b.start,
                    size: need,
                    used: true,
                };
                self.blocks.insert(
                    i + 1,
                    Block {
                        start: b.start + need,
                        size: b.size - need,
                        used: false,
                    },
                );
                Some(b.start)
            }
        }
    }

    /// Free the block starting at `addr`: 0, or -1 when no block in use starts there.
    pub fn free(&mut self, addr: u32) -> i32 {
        let Some(i) = self.blocks.iter().position(|b| b.used && b.start == addr) else {
            return -1;
        };
        self.blocks[i].used = false;
        // Join the next and the previous free blocks.
        if i + 1 < self.blocks.len() && !self.blocks[i + 1].used {
            self.blocks[i].size += self.blocks[i + 1].size;
            self.blocks.remove(i + 1);
        }
        if i > 0 && !self.blocks[i - 1].used {
            self.blocks[i - 1].size += self.blocks[i].size;
            self.blocks.remove(i);
        }
        0
    }

    /// The largest free block.
    pub fn max_free(&self) -> u32 {
        self.blocks
            .iter()
            .filter(|b| !b.used)
            .map(|b| b.size)
            .max()
            .unwrap_or(0)
    }

    /// All free memory.
    pub fn total_free(&self) -> u32 {
        self.blocks.iter().filter(|b| !b.used).map(|b| b.size).sum()
    }

    /// The block holding `addr`: (start, size, used).
    pub fn block_of(&self, addr: u32) -> Option<(u32, u32, bool)> {
        self.blocks
            .iter()
            .find(|b| b.start <= addr && addr < b.start + b.size)
            .map(|b| (b.start, b.size, b.used))
    }
}

impl Iop {
    /// AllocSysMemory.
    pub fn sysmem_alloc(&mut self, mode: Mode, size: u32, addr: u32) -> Option<u32> {
        self.kernel.sysmem.alloc(mode, size, addr)
    }

    /// FreeSysMemory.
    pub fn sysmem_free(&mut self, addr: u32) -> i32 {
        self.kernel.sysmem.free(addr)
    }

    /// The size of the block starting at or holding `addr` (QueryBlockSize without the flag).
    pub fn sysmem_block_size(&self, addr: u32) -> u32 {
        self.kernel.sysmem.block_of(addr).map_or(0, |b| b.1)
    }
}

fn alloc(iop: &mut Iop) -> Result<Ret, IopError> {
    let (mode, size, addr) = (iop.arg(0), iop.arg(1), iop.arg(2));
    let mode = match mode {
        0 => Mode::First,
        1 => Mode::Last,
        2 => Mode::Addr,
        _ => return Ok(Ret::V(0)),
    };
    Ok(Ret::V(iop.sysmem_alloc(mode, size, addr).unwrap_or(0)))
}

fn free(iop: &mut Iop) -> Result<Ret, IopError> {
    let addr = iop.arg(0);
    Ok(Ret::V(iop.sysmem_free(addr) as u32))
}

fn query_mem_size(_: &mut Iop) -> Result<Ret, IopError> {
    Ok(Ret::V(MEM_SIZE))
}

fn query_max_free(iop: &mut Iop) -> Result<Ret, IopError> {
    Ok(Ret::V(iop.kernel.sysmem.max_free()))
}

fn query_total_free(iop: &mut Iop) -> Result<Ret, IopError> {
    Ok(Ret::V(iop.kernel.sysmem.total_free()))
}

fn query_block_top(iop: &mut Iop) -> Result<Ret, IopError> {
    let a = iop.arg(0);
    // The block's start; bit 31 set when the block is free; -1 outside memory.
    Ok(Ret::V(match iop.kernel.sysmem.block_of(a) {
        Some((s, _, true)) => s,
        Some((s, _, false)) => s | 0x8000_0000,
        None => u32::MAX,
    }))
}

fn query_block_size(iop: &mut Iop) -> Result<Ret, IopError> {
    let a = iop.arg(0);
    Ok(Ret::V(match iop.kernel.sysmem.block_of(a) {
        Some((_, n, true)) => n,
        Some((_, n, false)) => n | 0x8000_0000,
        None => u32::MAX,
    }))
}

fn kprintf(iop: &mut Iop) -> Result<Ret, IopError> {
    // The kernel's own printer, not ioman's fd 1.
    let text = super::clib::format_call(iop, 0);
    iop.out.extend_from_slice(&text);
    let n = text.len() as u32;
    Ok(Ret::V(n))
}

/// sysmem.
pub const SYSMEM: LibDef = LibDef {
    name: "sysmem",
    version: 0x0101,
    funcs: &[
        (4, "AllocSysMemory", alloc),
        (5, "FreeSysMemory", free),
        (6, "QueryMemSize", query_mem_size),
        (7, "QueryMaxFreeMemSize", query_max_free),
        (8, "QueryTotalFreeMemSize", query_total_free),
        (9, "QueryBlockTopAddress", query_block_top),
        (10, "QueryBlockSize", query_block_size),
        (14, "Kprintf", kprintf),
    ],
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_last_addr_and_join() {
        let mut m = SysMem::default();
        let a = m.alloc(Mode::First, 1, 0).unwrap();
        assert_eq!(a, 0, "256-byte units from the bottom");
        let b = m.alloc(Mode::First, 0x101, 0).unwrap();
        assert_eq!(b, 0x100);
        let top = m.alloc(Mode::Last, 0x800, 0).unwrap();
        assert_eq!(top, MEM_SIZE - 0x800, "from the top");
        assert_eq!(m.alloc(Mode::First, 0, 0), None, "nothing for 0 bytes");
        assert_eq!(m.alloc(Mode::Addr, 0x100, 0x1_0080), None, "unaligned");
        assert_eq!(m.alloc(Mode::Addr, 0x100, 0x1_0000), Some(0x1_0000));
        assert_eq!(m.alloc(Mode::Addr, 0x100, 0x1_0000), None, "taken");
        assert_eq!(m.free(b), 0);
        assert_eq!(m.free(b), -1);
        assert_eq!(m.free(a), 0);
        assert_eq!(
            m.alloc(Mode::First, 0x300, 0),
            Some(0),
            "the two freed blocks joined"
        );
        assert_eq!(
            m.total_free(),
            MEM_SIZE - 0x300 - 0x800 - 0x100,
            "free memory adds up"
        );
    }
}
