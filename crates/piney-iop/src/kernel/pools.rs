//! Memory pools: variable-length (thvpool, a heaplib heap per pool) and fixed-length (thfpool,
//! a sysmem block cut into equal blocks).
//!
//! ps2autotests' vpool tests pin the console's arithmetic: a pool of `size` bytes is a heaplib
//! heap of `size` bytes, so ReferVplStatus reports `size - 40` usable bytes (heap and chunk
//! headers, one free fragment header); the size check against the pool is signed (a negative
//! request passes it and then fails in the heap, or wraps to one unit); a heap that could not be
//! made still gives a pool, whose sizes read heaplib's -4.

use std::collections::VecDeque;

use super::{Iop, IopError, LibDef, Ret, Wait, heaplib, kerr, tag};

/// Pool attributes: waiters by priority.
const A_THPRI: u32 = 0x001;
/// Pool attributes: memory from the top of RAM.
const A_MEMBTM: u32 = 0x200;

/// A variable-length pool.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Vpl {
    /// Its control block.
    pub block: u32,
    /// VA_* attributes.
    pub attr: u32,
    /// The creator's option.
    pub option: u32,
    /// The heap (0 when it could not be made).
    pub heap: u32,
    /// The pool's usable size when made (heaplib's total free size).
    pub size: i32,
    /// Waiting threads.
    pub waiters: VecDeque<u32>,
}

/// A fixed-length pool.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Fpl {
    /// Its control block.
    pub block: u32,
    /// FA_* attributes.
    pub attr: u32,
    /// The creator's option.
    pub option: u32,
    /// The sysmem block holding the pool's blocks.
    pub memory: u32,
    /// The block size asked for.
    pub block_size: u32,
    /// The number of blocks.
    pub blocks: u32,
    /// Free blocks, in the order they are handed out.
    pub free: VecDeque<u32>,
    /// Waiting threads.
    pub waiters: VecDeque<u32>,
}

fn v(x: i32) -> Result<Ret, IopError> {
    Ok(Ret::V(x as u32))
}

fn create_vpl(iop: &mut Iop) -> Result<Ret, IopError> {
    if iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    let p = iop.arg(0);
    let (attr, option, size) = (
        iop.bus.ram_u32(p),
        iop.bus.ram_u32(p.wrapping_add(4)),
        iop.bus.ram_u32(p.wrapping_add(8)),
    );
    if attr & !(A_THPRI | A_MEMBTM) != 0 {
        return v(kerr::ILLEGAL_ATTR);
    }
    if size == 0 {
        return v(kerr::ILLEGAL_MEMSIZE);
    }
    let Some((block, id)) = iop.alloc_block(tag::VPL, 4, 0x24) else {
        return v(kerr::NO_MEMORY);
    };
    // CreateHeap's flags from the attribute as the console computes them ((attr & MEMBTM) << 1,
    // which sets neither of heaplib's two flag bits).
    let heap = heaplib::create(iop, size, (attr & A_MEMBTM) << 1);
    let total = heaplib::total_free(iop, heap);
    iop.kernel.vpls.insert(
        id,
        Vpl {
            block,
            attr,
            option,
            heap,
            size: total,
            waiters: VecDeque::new(),
        },
    );
    Ok(Ret::V(id))
}

fn delete_vpl(iop: &mut Iop) -> Result<Ret, IopError> {
    if iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    let id = iop.arg(0);
    let Some(p) = iop.kernel.vpls.remove(&id) else {
        return v(kerr::UNKNOWN_VPLID);
    };
    heaplib::delete(iop, p.heap);
    iop.free_block(p.block);
    iop.cpu.gpr[2] = 0;
    iop.return_to_caller();
    let any = !p.waiters.is_empty();
    for t in p.waiters {
        iop.wake_later(t, kerr::WAIT_DELETE as u32);
    }
    if any {
        iop.preempt_check();
    }
    Ok(Ret::Done)
}

/// The allocation every AllocateVpl variant shares: Ok(address) or Err(kernel error); `None`
/// inside when the heap has no room (the caller waits or fails).
fn vpl_try(iop: &mut Iop, id: u32, size: u32, check_size: bool) -> Result<Option<u32>, i32> {
    let Some(p) = iop.kernel.vpls.get(&id) else {
        return Err(kerr::UNKNOWN_VPLID);
    };
    if check_size && (size == 0 || p.size < size as i32) {
        return Err(kerr::ILLEGAL_MEMSIZE);
    }
    let heap = p.heap;
    Ok(heaplib::alloc(iop, heap, size))
}

fn allocate_vpl(iop: &mut Iop) -> Result<Ret, IopError> {
    if iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    let (id, size) = (iop.arg(0), iop.arg(1));
    match vpl_try(iop, id, size, true) {
        Err(e) => v(e),
        Ok(Some(a)) => Ok(Ret::V(a)),
        Ok(None) => {
            let by_prio = iop.kernel.vpls[&id].attr & A_THPRI != 0;
            let cur = iop.current_thread();
            let mut q = std::mem::take(&mut iop.kernel.vpls.get_mut(&id).expect("vpl").waiters);
            iop.enqueue_waiter(&mut q, cur, by_prio);
            iop.kernel.vpls.get_mut(&id).expect("vpl").waiters = q;
            iop.return_to_caller();
            iop.wait_current(Wait::Vpl { id, size });
            Ok(Ret::Done)
        }
    }
}

fn p_allocate_vpl(iop: &mut Iop) -> Result<Ret, IopError> {
    if iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    let (id, size) = (iop.arg(0), iop.arg(1));
    match vpl_try(iop, id, size, true) {
        Err(e) => v(e),
        Ok(Some(a)) => Ok(Ret::V(a)),
        Ok(None) => v(kerr::NO_MEMORY),
    }
}

fn ip_allocate_vpl(iop: &mut Iop) -> Result<Ret, IopError> {
    if !iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    let (id, size) = (iop.arg(0), iop.arg(1));
    match vpl_try(iop, id, size, false) {
        Err(e) => v(e),
        Ok(Some(a)) => Ok(Ret::V(a)),
        Ok(None) => v(kerr::NO_MEMORY),
    }
}

fn free_vpl(iop: &mut Iop) -> Result<Ret, IopError> {
    if iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    let (id, mem) = (iop.arg(0), iop.arg(1));
    let Some(p) = iop.kernel.vpls.get(&id) else {
        return v(kerr::UNKNOWN_VPLID);
    };
    let heap = p.heap;
    if heaplib::free(iop, heap, mem) < 0 {
        return v(kerr::ERROR);
    }
    // The first waiter gets its memory if it fits now.
    let first = iop.kernel.vpls[&id].waiters.front().copied();
    if let Some(t) = first
        && let Wait::Vpl { size, .. } = iop.kernel.threads[&t].wait
        && let Some(a) = heaplib::alloc(iop, heap, size)
    {
        iop.kernel
            .vpls
            .get_mut(&id)
            .expect("vpl")
            .waiters
            .pop_front();
        iop.cpu.gpr[2] = 0;
        iop.return_to_caller();
        iop.wake(t, a);
        return Ok(Ret::Done);
    }
    v(kerr::OK)
}

fn refer_vpl(iop: &mut Iop) -> Result<Ret, IopError> {
    let (id, info) = (iop.arg(0), iop.arg(1));
    let Some(p) = iop.kernel.vpls.get(&id) else {
        return v(kerr::UNKNOWN_VPLID);
    };
    let (attr, option, size, heap, waiting) =
        (p.attr, p.option, p.size, p.heap, p.waiters.len() as u32);
    let free = heaplib::total_free(iop, heap);
    let words = [attr, option, size as u32, free as u32, waiting];
    for (i, w) in words.iter().enumerate() {
        iop.bus.set_ram_u32(info.wrapping_add(4 * i as u32), *w);
    }
    v(kerr::OK)
}

/// thvpool.
pub const THVPOOL: LibDef = LibDef {
    name: "thvpool",
    version: 0x0101,
    funcs: &[
        (4, "CreateVpl", create_vpl),
        (5, "DeleteVpl", delete_vpl),
        (6, "AllocateVpl", allocate_vpl),
        (7, "pAllocateVpl", p_allocate_vpl),
        (8, "ipAllocateVpl", ip_allocate_vpl),
        (9, "FreeVpl", free_vpl),
        (11, "ReferVplStatus", refer_vpl),
        (12, "iReferVplStatus", refer_vpl),
    ],
};

fn create_fpl(iop: &mut Iop) -> Result<Ret, IopError> {
    if iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    let p = iop.arg(0);
    let (attr, option, block_size, blocks) = (
        iop.bus.ram_u32(p),
        iop.bus.ram_u32(p.wrapping_add(4)),
        iop.bus.ram_u32(p.wrapping_add(8)),
        iop.bus.ram_u32(p.wrapping_add(12)),
    );
    if attr & !(A_THPRI | A_MEMBTM) != 0 {
        return v(kerr::ILLEGAL_ATTR);
    }
    if block_size == 0 || blocks == 0 {
        return v(kerr::ILLEGAL_MEMSIZE);
    }
    let stride = block_size.wrapping_add(3) & !3;
    let mem_size = stride.wrapping_mul(blocks);
    let mode = if attr & A_MEMBTM != 0 {
        super::sysmem::Mode::Last
    } else {
        super::sysmem::Mode::First
    };
    let Some(memory) = iop.sysmem_alloc(mode, mem_size, 0) else {
        return v(kerr::NO_MEMORY);
    };
    let Some((block, id)) = iop.alloc_block(tag::FPL, 5, 0x30) else {
        iop.sysmem_free(memory);
        return v(kerr::NO_MEMORY);
    };
    let free = (0..blocks).map(|i| memory + i * stride).collect();
    iop.kernel.fpls.insert(
        id,
        Fpl {
            block,
            attr,
            option,
            memory,
            block_size,
            blocks,
            free,
            waiters: VecDeque::new(),
        },
    );
    Ok(Ret::V(id))
}

fn delete_fpl(iop: &mut Iop) -> Result<Ret, IopError> {
    if iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    let id = iop.arg(0);
    let Some(p) = iop.kernel.fpls.remove(&id) else {
        return v(kerr::UNKNOWN_FPLID);
    };
    iop.sysmem_free(p.memory);
    iop.free_block(p.block);
    iop.cpu.gpr[2] = 0;
    iop.return_to_caller();
    let any = !p.waiters.is_empty();
    for t in p.waiters {
        iop.wake_later(t, kerr::WAIT_DELETE as u32);
    }
    if any {
        iop.preempt_check();
    }
    Ok(Ret::Done)
}

fn allocate_fpl(iop: &mut Iop) -> Result<Ret, IopError> {
    if iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    let id = iop.arg(0);
    let Some(p) = iop.kernel.fpls.get_mut(&id) else {
        return v(kerr::UNKNOWN_FPLID);
    };
    if let Some(b) = p.free.pop_front() {
        return Ok(Ret::V(b));
    }
    let by_prio = p.attr & A_THPRI != 0;
    let cur = iop.current_thread();
    let mut q = std::mem::take(&mut iop.kernel.fpls.get_mut(&id).expect("fpl").waiters);
    iop.enqueue_waiter(&mut q, cur, by_prio);
    iop.kernel.fpls.get_mut(&id).expect("fpl").waiters = q;
    iop.return_to_caller();
    iop.wait_current(Wait::Fpl(id));
    Ok(Ret::Done)
}

fn p_allocate_fpl_common(iop: &mut Iop) -> Result<Ret, IopError> {
    let id = iop.arg(0);
    let Some(p) = iop.kernel.fpls.get_mut(&id) else {
        return v(kerr::UNKNOWN_FPLID);
    };
    match p.free.pop_front() {
        Some(b) => Ok(Ret::V(b)),
        None => v(kerr::NO_MEMORY),
    }
}

fn p_allocate_fpl(iop: &mut Iop) -> Result<Ret, IopError> {
    if iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    p_allocate_fpl_common(iop)
}

fn ip_allocate_fpl(iop: &mut Iop) -> Result<Ret, IopError> {
    if !iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    p_allocate_fpl_common(iop)
}

fn free_fpl(iop: &mut Iop) -> Result<Ret, IopError> {
    if iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    let (id, mem) = (iop.arg(0), iop.arg(1));
    let Some(p) = iop.kernel.fpls.get_mut(&id) else {
        return v(kerr::UNKNOWN_FPLID);
    };
    let stride = p.block_size.wrapping_add(3) & !3;
    let inside = mem >= p.memory
        && mem < p.memory + stride * p.blocks
        && (mem - p.memory) % stride == 0
        && !p.free.contains(&mem);
    if !inside {
        return v(kerr::ILLEGAL_MEMBLOCK);
    }
    if let Some(t) = p.waiters.pop_front() {
        iop.cpu.gpr[2] = 0;
        iop.return_to_caller();
        iop.wake(t, mem);
        return Ok(Ret::Done);
    }
    p.free.push_back(mem);
    v(kerr::OK)
}

fn refer_fpl(iop: &mut Iop) -> Result<Ret, IopError> {
    let (id, info) = (iop.arg(0), iop.arg(1));
    let Some(p) = iop.kernel.fpls.get(&id) else {
        return v(kerr::UNKNOWN_FPLID);
    };
    let words = [
        p.attr,
        p.option,
        p.block_size,
        p.blocks,
        p.free.len() as u32,
        p.waiters.len() as u32,
    ];
    for (i, w) in words.iter().enumerate() {
        iop.bus.set_ram_u32(info.wrapping_add(4 * i as u32), *w);
    }
    v(kerr::OK)
}

/// thfpool.
pub const THFPOOL: LibDef = LibDef {
    name: "thfpool",
    version: 0x0101,
    funcs: &[
        (4, "CreateFpl", create_fpl),
        (5, "DeleteFpl", delete_fpl),
        (6, "AllocateFpl", allocate_fpl),
        (7, "pAllocateFpl", p_allocate_fpl),
        (8, "ipAllocateFpl", ip_allocate_fpl),
        (9, "FreeFpl", free_fpl),
        (11, "ReferFplStatus", refer_fpl),
        (12, "iReferFplStatus", refer_fpl),
    ],
};
