//! Semaphores (thsemap), event flags (thevent) and message boxes (thmsgbx).
//!
//! Waiters queue FIFO, or by priority (FIFO within a priority) when the object's attribute has
//! its THPRI bit (bit 0). Deleting an object wakes its waiters with KE_WAIT_DELETE; ReleaseWait
//! wakes one with KE_RELEASE_WAIT.

use std::collections::VecDeque;

use super::{Iop, IopError, LibDef, Ret, Wait, kerr, tag};

/// Semaphore attribute: waiters by priority.
const SA_THPRI: u32 = 0x001;
/// Semaphore attributes CreateSema accepts (SA_THFIFO, SA_THPRI, SA_IHTHPRI).
const SA_VALID: u32 = 0x101;
/// Event flag attribute: several threads may wait.
const EA_MULTI: u32 = 0x002;
/// WaitEventFlag modes.
const WEF_OR: u32 = 0x01;
const WEF_CLEAR: u32 = 0x10;
/// Message box attributes: waiters by priority, messages by priority.
const MBA_THPRI: u32 = 0x001;
const MBA_MSPRI: u32 = 0x004;

/// A semaphore.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Sema {
    /// Its control block.
    pub block: u32,
    /// SA_* attributes.
    pub attr: u32,
    /// The creator's option.
    pub option: u32,
    /// The count.
    pub count: i32,
    /// The initial count.
    pub initial: i32,
    /// The maximum count.
    pub max: i32,
    /// Waiting threads, in wake order.
    pub waiters: VecDeque<u32>,
}

/// An event flag.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct EventFlag {
    /// Its control block.
    pub block: u32,
    /// EA_* attributes.
    pub attr: u32,
    /// The creator's option.
    pub option: u32,
    /// The bits.
    pub bits: u32,
    /// The initial bits.
    pub init_bits: u32,
    /// Waiting threads, in order.
    pub waiters: VecDeque<u32>,
}

/// A message box.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Mbx {
    /// Its control block.
    pub block: u32,
    /// MBA_* attributes.
    pub attr: u32,
    /// The creator's option.
    pub option: u32,
    /// The messages (guest addresses of iop_message_t), oldest first.
    pub messages: VecDeque<u32>,
    /// Waiting threads, in wake order.
    pub waiters: VecDeque<u32>,
}

impl Iop {
    /// Insert `thread` into a wait queue: at the back, or (by priority) after the waiters of
    /// the same or higher priority.
    pub fn enqueue_waiter(&self, q: &mut VecDeque<u32>, thread: u32, by_priority: bool) {
        if !by_priority {
            q.push_back(thread);
            return;
        }
        let p = self.kernel.threads[&thread].priority;
        let at = q
            .iter()
            .position(|t| self.kernel.threads.get(t).is_some_and(|w| w.priority > p))
            .unwrap_or(q.len());
        q.insert(at, thread);
    }

    /// A waiting thread's priority changed: re-sort it in its wait queue if that queue is
    /// ordered by priority.
    pub fn requeue_waiter(&mut self, id: u32) {
        let wait = self.kernel.threads[&id].wait;
        let (q, by_prio) = match wait {
            Wait::Sema(s) => match self.kernel.semas.get_mut(&s) {
                Some(s) => (std::mem::take(&mut s.waiters), s.attr & SA_THPRI != 0),
                None => return,
            },
            Wait::Mbx { id: m, .. } => match self.kernel.mbxs.get_mut(&m) {
                Some(m) => (std::mem::take(&mut m.waiters), m.attr & MBA_THPRI != 0),
                None => return,
            },
            Wait::Vpl { id: v, .. } => match self.kernel.vpls.get_mut(&v) {
                Some(v) => (std::mem::take(&mut v.waiters), v.attr & 1 != 0),
                None => return,
            },
            Wait::Fpl(f) => match self.kernel.fpls.get_mut(&f) {
                Some(f) => (std::mem::take(&mut f.waiters), f.attr & 1 != 0),
                None => return,
            },
            _ => return,
        };
        let mut q = q;
        if by_prio {
            q.retain(|&t| t != id);
            self.enqueue_waiter(&mut q, id, true);
        }
        match wait {
            Wait::Sema(s) => self.kernel.semas.get_mut(&s).expect("sema").waiters = q,
            Wait::Mbx { id: m, .. } => self.kernel.mbxs.get_mut(&m).expect("mbx").waiters = q,
            Wait::Vpl { id: v, .. } => self.kernel.vpls.get_mut(&v).expect("vpl").waiters = q,
            Wait::Fpl(f) => self.kernel.fpls.get_mut(&f).expect("fpl").waiters = q,
            _ => {}
        }
    }

    /// Wake every thread in `waiters` with KE_WAIT_DELETE (an object was deleted), then let a
    /// higher-priority one run.
    fn wake_deleted(&mut self, waiters: VecDeque<u32>) {
        let any = !waiters.is_empty();
        for t in waiters {
            self.wake_later(t, kerr::WAIT_DELETE as u32);
        }
        if any {
            self.preempt_check();
        }
    }
}

fn v(x: i32) -> Result<Ret, IopError> {
    Ok(Ret::V(x as u32))
}

fn thread_ctx(iop: &Iop) -> Option<Result<Ret, IopError>> {
    iop.in_interrupt().then(|| v(kerr::ILLEGAL_CONTEXT))
}

fn intr_ctx(iop: &Iop) -> Option<Result<Ret, IopError>> {
    (!iop.in_interrupt()).then(|| v(kerr::ILLEGAL_CONTEXT))
}

// ---- semaphores ----

fn create_sema(iop: &mut Iop) -> Result<Ret, IopError> {
    if let Some(r) = thread_ctx(iop) {
        return r;
    }
    let p = iop.arg(0);
    let (attr, option, initial, max) = (
        iop.bus.ram_u32(p),
        iop.bus.ram_u32(p.wrapping_add(4)),
        iop.bus.ram_u32(p.wrapping_add(8)) as i32,
        iop.bus.ram_u32(p.wrapping_add(12)) as i32,
    );
    if attr & !SA_VALID != 0 {
        return v(kerr::ILLEGAL_ATTR);
    }
    let Some((block, id)) = iop.alloc_block(tag::SEMA, 1, 0x24) else {
        return v(kerr::NO_MEMORY);
    };
    iop.kernel.semas.insert(
        id,
        Sema {
            block,
            attr,
            option,
            count: initial,
            initial,
            max,
            waiters: VecDeque::new(),
        },
    );
    Ok(Ret::V(id))
}

fn delete_sema(iop: &mut Iop) -> Result<Ret, IopError> {
    if let Some(r) = thread_ctx(iop) {
        return r;
    }
    let id = iop.arg(0);
    let Some(s) = iop.kernel.semas.remove(&id) else {
        return v(kerr::UNKNOWN_SEMID);
    };
    iop.free_block(s.block);
    iop.cpu.gpr[2] = 0;
    iop.return_to_caller();
    iop.wake_deleted(s.waiters);
    Ok(Ret::Done)
}

fn signal_common(iop: &mut Iop, id: u32, intr: bool) -> Result<Ret, IopError> {
    let Some(s) = iop.kernel.semas.get_mut(&id) else {
        return v(kerr::UNKNOWN_SEMID);
    };
    if let Some(t) = s.waiters.pop_front() {
        if intr {
            iop.wake(t, 0);
            return v(kerr::OK);
        }
        iop.cpu.gpr[2] = 0;
        iop.return_to_caller();
        iop.wake(t, 0);
        return Ok(Ret::Done);
    }
    if s.count >= s.max {
        return v(kerr::SEMA_OVF);
    }
    s.count += 1;
    v(kerr::OK)
}

fn signal_sema(iop: &mut Iop) -> Result<Ret, IopError> {
    if let Some(r) = thread_ctx(iop) {
        return r;
    }
    let id = iop.arg(0);
    signal_common(iop, id, false)
}

fn isignal_sema(iop: &mut Iop) -> Result<Ret, IopError> {
    if let Some(r) = intr_ctx(iop) {
        return r;
    }
    let id = iop.arg(0);
    signal_common(iop, id, true)
}

fn wait_sema(iop: &mut Iop) -> Result<Ret, IopError> {
    if let Some(r) = thread_ctx(iop) {
        return r;
    }
    let id = iop.arg(0);
    let Some(s) = iop.kernel.semas.get_mut(&id) else {
        return v(kerr::UNKNOWN_SEMID);
    };
    if s.count >= 1 {
        s.count -= 1;
        return v(kerr::OK);
    }
    let by_prio = s.attr & SA_THPRI != 0;
    let cur = iop.current_thread();
    let mut q = std::mem::take(&mut iop.kernel.semas.get_mut(&id).expect("sema").waiters);
    iop.enqueue_waiter(&mut q, cur, by_prio);
    iop.kernel.semas.get_mut(&id).expect("sema").waiters = q;
    iop.cpu.gpr[2] = 0;
    iop.return_to_caller();
    iop.wait_current(Wait::Sema(id));
    Ok(Ret::Done)
}

fn poll_sema(iop: &mut Iop) -> Result<Ret, IopError> {
    if let Some(r) = thread_ctx(iop) {
        return r;
    }
    let id = iop.arg(0);
    let Some(s) = iop.kernel.semas.get_mut(&id) else {
        return v(kerr::UNKNOWN_SEMID);
    };
    if s.count >= 1 {
        s.count -= 1;
        v(kerr::OK)
    } else {
        v(kerr::SEMA_ZERO)
    }
}

fn refer_sema_common(iop: &mut Iop) -> Result<Ret, IopError> {
    let (id, info) = (iop.arg(0), iop.arg(1));
    let Some(s) = iop.kernel.semas.get(&id) else {
        return v(kerr::UNKNOWN_SEMID);
    };
    let words = [
        s.attr,
        s.option,
        s.initial as u32,
        s.max as u32,
        s.count as u32,
        s.waiters.len() as u32,
    ];
    for (i, w) in words.iter().enumerate() {
        iop.bus.set_ram_u32(info.wrapping_add(4 * i as u32), *w);
    }
    v(kerr::OK)
}

fn refer_sema(iop: &mut Iop) -> Result<Ret, IopError> {
    if let Some(r) = thread_ctx(iop) {
        return r;
    }
    refer_sema_common(iop)
}

fn irefer_sema(iop: &mut Iop) -> Result<Ret, IopError> {
    if let Some(r) = intr_ctx(iop) {
        return r;
    }
    refer_sema_common(iop)
}

/// thsemap.
pub const THSEMAP: LibDef = LibDef {
    name: "thsemap",
    version: 0x0102,
    funcs: &[
        (4, "CreateSema", create_sema),
        (5, "DeleteSema", delete_sema),
        (6, "SignalSema", signal_sema),
        (7, "iSignalSema", isignal_sema),
        (8, "WaitSema", wait_sema),
        (9, "PollSema", poll_sema),
        (11, "ReferSemaStatus", refer_sema),
        (12, "iReferSemaStatus", irefer_sema),
    ],
};

// ---- event flags ----

fn evf_matches(bits: u32, want: u32, mode: u32) -> bool {
    if mode & WEF_OR != 0 {
        bits & want != 0
    } else {
        bits & want == want
    }
}

fn create_evf(iop: &mut Iop) -> Result<Ret, IopError> {
    if let Some(r) = thread_ctx(iop) {
        return r;
    }
    let p = iop.arg(0);
    let (attr, option, bits) = (
        iop.bus.ram_u32(p),
        iop.bus.ram_u32(p.wrapping_add(4)),
        iop.bus.ram_u32(p.wrapping_add(8)),
    );
    if attr & !EA_MULTI != 0 {
        return v(kerr::ILLEGAL_ATTR);
    }
    let Some((block, id)) = iop.alloc_block(tag::EVF, 2, 0x20) else {
        return v(kerr::NO_MEMORY);
    };
    iop.kernel.evfs.insert(
        id,
        EventFlag {
            block,
            attr,
            option,
            bits,
            init_bits: bits,
            waiters: VecDeque::new(),
        },
    );
    Ok(Ret::V(id))
}

fn delete_evf(iop: &mut Iop) -> Result<Ret, IopError> {
    if let Some(r) = thread_ctx(iop) {
        return r;
    }
    let id = iop.arg(0);
    let Some(f) = iop.kernel.evfs.remove(&id) else {
        return v(kerr::UNKNOWN_EVFID);
    };
    iop.free_block(f.block);
    iop.cpu.gpr[2] = 0;
    iop.return_to_caller();
    iop.wake_deleted(f.waiters);
    Ok(Ret::Done)
}

/// After the bits of flag `id` changed: wake every waiter whose condition now holds, in queue
/// order (a WEF_CLEAR waiter clears the bits for those after it).
fn evf_release(iop: &mut Iop, id: u32) -> bool {
    let Some(f) = iop.kernel.evfs.get(&id) else {
        return false;
    };
    let waiters: Vec<u32> = f.waiters.iter().copied().collect();
    let mut woke = false;
    for t in waiters {
        let Wait::EventFlag {
            bits, mode, res, ..
        } = iop.kernel.threads[&t].wait
        else {
            continue;
        };
        let f = iop.kernel.evfs.get_mut(&id).expect("flag");
        if !evf_matches(f.bits, bits, mode) {
            continue;
        }
        let now = f.bits;
        if mode & WEF_CLEAR != 0 {
            f.bits = 0;
        }
        f.waiters.retain(|&w| w != t);
        if res != 0 {
            iop.bus.set_ram_u32(res, now);
        }
        iop.wake_later(t, 0);
        woke = true;
    }
    woke
}

fn set_evf_common(iop: &mut Iop, intr: bool) -> Result<Ret, IopError> {
    let (id, bits) = (iop.arg(0), iop.arg(1));
    let Some(f) = iop.kernel.evfs.get_mut(&id) else {
        return v(kerr::UNKNOWN_EVFID);
    };
    f.bits |= bits;
    let woke = evf_release(iop, id);
    if woke && !intr {
        iop.cpu.gpr[2] = 0;
        iop.return_to_caller();
        iop.preempt_check();
        return Ok(Ret::Done);
    }
    v(kerr::OK)
}

fn set_evf(iop: &mut Iop) -> Result<Ret, IopError> {
    if let Some(r) = thread_ctx(iop) {
        return r;
    }
    set_evf_common(iop, false)
}

fn iset_evf(iop: &mut Iop) -> Result<Ret, IopError> {
    if let Some(r) = intr_ctx(iop) {
        return r;
    }
    set_evf_common(iop, true)
}

fn clear_evf_common(iop: &mut Iop) -> Result<Ret, IopError> {
    let (id, bits) = (iop.arg(0), iop.arg(1));
    let Some(f) = iop.kernel.evfs.get_mut(&id) else {
        return v(kerr::UNKNOWN_EVFID);
    };
    f.bits &= bits;
    v(kerr::OK)
}

fn clear_evf(iop: &mut Iop) -> Result<Ret, IopError> {
    if let Some(r) = thread_ctx(iop) {
        return r;
    }
    clear_evf_common(iop)
}

fn iclear_evf(iop: &mut Iop) -> Result<Ret, IopError> {
    if let Some(r) = intr_ctx(iop) {
        return r;
    }
    clear_evf_common(iop)
}

/// The checks WaitEventFlag and PollEventFlag share; `Ok(true)` when the condition holds now
/// (the result pattern is written and WEF_CLEAR applied).
fn evf_try(iop: &mut Iop, id: u32, bits: u32, mode: u32, res: u32) -> Result<bool, i32> {
    if mode & !(WEF_OR | WEF_CLEAR) != 0 {
        return Err(kerr::ILLEGAL_MODE);
    }
    if bits == 0 {
        return Err(kerr::EVF_ILPAT);
    }
    let Some(f) = iop.kernel.evfs.get_mut(&id) else {
        return Err(kerr::UNKNOWN_EVFID);
    };
    // A single-wait flag with a thread already waiting refuses a second (ps2autotests
    // eventflag/poll: KE_EVF_MULTI, even for a poll).
    if f.attr & EA_MULTI == 0 && !f.waiters.is_empty() {
        return Err(kerr::EVF_MULTI);
    }
    if evf_matches(f.bits, bits, mode) {
        let now = f.bits;
        if mode & WEF_CLEAR != 0 {
            f.bits = 0;
        }
        if res != 0 {
            iop.bus.set_ram_u32(res, now);
        }
        return Ok(true);
    }
    Ok(false)
}

fn wait_evf(iop: &mut Iop) -> Result<Ret, IopError> {
    if let Some(r) = thread_ctx(iop) {
        return r;
    }
    let (id, bits, mode, res) = (iop.arg(0), iop.arg(1), iop.arg(2), iop.arg(3));
    match evf_try(iop, id, bits, mode, res) {
        Err(e) => v(e),
        Ok(true) => v(kerr::OK),
        Ok(false) => {
            let cur = iop.current_thread();
            iop.kernel
                .evfs
                .get_mut(&id)
                .expect("flag")
                .waiters
                .push_back(cur);
            iop.cpu.gpr[2] = 0;
            iop.return_to_caller();
            iop.wait_current(Wait::EventFlag {
                id,
                bits,
                mode,
                res,
            });
            Ok(Ret::Done)
        }
    }
}

fn poll_evf(iop: &mut Iop) -> Result<Ret, IopError> {
    if let Some(r) = thread_ctx(iop) {
        return r;
    }
    let (id, bits, mode, res) = (iop.arg(0), iop.arg(1), iop.arg(2), iop.arg(3));
    match evf_try(iop, id, bits, mode, res) {
        Err(e) => v(e),
        Ok(true) => v(kerr::OK),
        Ok(false) => v(kerr::EVF_COND),
    }
}

fn refer_evf_common(iop: &mut Iop) -> Result<Ret, IopError> {
    let (id, info) = (iop.arg(0), iop.arg(1));
    let Some(f) = iop.kernel.evfs.get(&id) else {
        return v(kerr::UNKNOWN_EVFID);
    };
    let words = [
        f.attr,
        f.option,
        f.init_bits,
        f.bits,
        f.waiters.len() as u32,
    ];
    for (i, w) in words.iter().enumerate() {
        iop.bus.set_ram_u32(info.wrapping_add(4 * i as u32), *w);
    }
    v(kerr::OK)
}

fn refer_evf(iop: &mut Iop) -> Result<Ret, IopError> {
    if let Some(r) = thread_ctx(iop) {
        return r;
    }
    refer_evf_common(iop)
}

fn irefer_evf(iop: &mut Iop) -> Result<Ret, IopError> {
    if let Some(r) = intr_ctx(iop) {
        return r;
    }
    refer_evf_common(iop)
}

/// thevent.
pub const THEVENT: LibDef = LibDef {
    name: "thevent",
    version: 0x0102,
    funcs: &[
        (4, "CreateEventFlag", create_evf),
        (5, "DeleteEventFlag", delete_evf),
        (6, "SetEventFlag", set_evf),
        (7, "iSetEventFlag", iset_evf),
        (8, "ClearEventFlag", clear_evf),
        (9, "iClearEventFlag", iclear_evf),
        (10, "WaitEventFlag", wait_evf),
        (11, "PollEventFlag", poll_evf),
        (13, "ReferEventFlagStatus", refer_evf),
        (14, "iReferEventFlagStatus", irefer_evf),
    ],
};

// ---- message boxes ----

impl Iop {
    /// Rewrite the `next` links of box `id`'s messages in guest memory as the console keeps
    /// them: a ring in which the newest message points to the oldest.
    fn mbx_relink(&mut self, id: u32) {
        let msgs: Vec<u32> = self.kernel.mbxs[&id].messages.iter().copied().collect();
        for (i, &m) in msgs.iter().enumerate() {
            let next = msgs[(i + 1) % msgs.len()];
            self.bus.set_ram_u32(m, next);
        }
    }
}

fn create_mbx(iop: &mut Iop) -> Result<Ret, IopError> {
    if let Some(r) = thread_ctx(iop) {
        return r;
    }
    let p = iop.arg(0);
    let (attr, option) = (iop.bus.ram_u32(p), iop.bus.ram_u32(p.wrapping_add(4)));
    if attr & !(MBA_THPRI | MBA_MSPRI) != 0 {
        return v(kerr::ILLEGAL_ATTR);
    }
    let Some((block, id)) = iop.alloc_block(tag::MBX, 3, 0x20) else {
        return v(kerr::NO_MEMORY);
    };
    iop.kernel.mbxs.insert(
        id,
        Mbx {
            block,
            attr,
            option,
            messages: VecDeque::new(),
            waiters: VecDeque::new(),
        },
    );
    Ok(Ret::V(id))
}

fn delete_mbx(iop: &mut Iop) -> Result<Ret, IopError> {
    if let Some(r) = thread_ctx(iop) {
        return r;
    }
    let id = iop.arg(0);
    let Some(m) = iop.kernel.mbxs.remove(&id) else {
        return v(kerr::UNKNOWN_MBXID);
    };
    iop.free_block(m.block);
    iop.cpu.gpr[2] = 0;
    iop.return_to_caller();
    iop.wake_deleted(m.waiters);
    Ok(Ret::Done)
}

fn send_common(iop: &mut Iop, intr: bool) -> Result<Ret, IopError> {
    let (id, msg) = (iop.arg(0), iop.arg(1));
    let Some(m) = iop.kernel.mbxs.get_mut(&id) else {
        return v(kerr::UNKNOWN_MBXID);
    };
    if let Some(t) = m.waiters.pop_front() {
        // A waiting receiver takes the message directly.
        if let Wait::Mbx { res, .. } = iop.kernel.threads[&t].wait
            && res != 0
        {
            iop.bus.set_ram_u32(res, msg);
        }
        if intr {
            iop.wake(t, 0);
            return v(kerr::OK);
        }
        iop.cpu.gpr[2] = 0;
        iop.return_to_caller();
        iop.wake(t, 0);
        return Ok(Ret::Done);
    }
    if m.attr & MBA_MSPRI != 0 {
        // By the message's priority byte (offset 4), lower first, FIFO among equals.
        let p = iop.bus.ram_u32(msg.wrapping_add(4)) & 0xff;
        let m = &iop.kernel.mbxs[&id];
        let at = m
            .messages
            .iter()
            .position(|&o| iop.bus.ram_u32(o.wrapping_add(4)) & 0xff > p)
            .unwrap_or(m.messages.len());
        iop.kernel
            .mbxs
            .get_mut(&id)
            .expect("mbx")
            .messages
            .insert(at, msg);
    } else {
        m.messages.push_back(msg);
    }
    iop.mbx_relink(id);
    v(kerr::OK)
}

fn send_mbx(iop: &mut Iop) -> Result<Ret, IopError> {
    if let Some(r) = thread_ctx(iop) {
        return r;
    }
    send_common(iop, false)
}

fn isend_mbx(iop: &mut Iop) -> Result<Ret, IopError> {
    if let Some(r) = intr_ctx(iop) {
        return r;
    }
    send_common(iop, true)
}

fn take_message(iop: &mut Iop, id: u32, res: u32) -> bool {
    let m = iop.kernel.mbxs.get_mut(&id).expect("mbx");
    let Some(msg) = m.messages.pop_front() else {
        return false;
    };
    if !m.messages.is_empty() {
        iop.mbx_relink(id);
    }
    if res != 0 {
        iop.bus.set_ram_u32(res, msg);
    }
    true
}

fn receive_mbx(iop: &mut Iop) -> Result<Ret, IopError> {
    if let Some(r) = thread_ctx(iop) {
        return r;
    }
    let (res, id) = (iop.arg(0), iop.arg(1));
    let Some(m) = iop.kernel.mbxs.get(&id) else {
        return v(kerr::UNKNOWN_MBXID);
    };
    let by_prio = m.attr & MBA_THPRI != 0;
    if take_message(iop, id, res) {
        return v(kerr::OK);
    }
    let cur = iop.current_thread();
    let mut q = std::mem::take(&mut iop.kernel.mbxs.get_mut(&id).expect("mbx").waiters);
    iop.enqueue_waiter(&mut q, cur, by_prio);
    iop.kernel.mbxs.get_mut(&id).expect("mbx").waiters = q;
    iop.cpu.gpr[2] = 0;
    iop.return_to_caller();
    iop.wait_current(Wait::Mbx { id, res });
    Ok(Ret::Done)
}

fn poll_mbx(iop: &mut Iop) -> Result<Ret, IopError> {
    if let Some(r) = thread_ctx(iop) {
        return r;
    }
    let (res, id) = (iop.arg(0), iop.arg(1));
    if !iop.kernel.mbxs.contains_key(&id) {
        return v(kerr::UNKNOWN_MBXID);
    }
    if take_message(iop, id, res) {
        v(kerr::OK)
    } else {
        v(kerr::MBOX_NOMSG)
    }
}

fn refer_mbx_common(iop: &mut Iop) -> Result<Ret, IopError> {
    let (id, info) = (iop.arg(0), iop.arg(1));
    let Some(m) = iop.kernel.mbxs.get(&id) else {
        return v(kerr::UNKNOWN_MBXID);
    };
    let words = [
        m.attr,
        m.option,
        m.waiters.len() as u32,
        m.messages.len() as u32,
        m.messages.front().copied().unwrap_or(0),
    ];
    for (i, w) in words.iter().enumerate() {
        iop.bus.set_ram_u32(info.wrapping_add(4 * i as u32), *w);
    }
    v(kerr::OK)
}

fn refer_mbx(iop: &mut Iop) -> Result<Ret, IopError> {
    if let Some(r) = thread_ctx(iop) {
        return r;
    }
    refer_mbx_common(iop)
}

fn irefer_mbx(iop: &mut Iop) -> Result<Ret, IopError> {
    if let Some(r) = intr_ctx(iop) {
        return r;
    }
    refer_mbx_common(iop)
}

/// thmsgbx.
pub const THMSGBX: LibDef = LibDef {
    name: "thmsgbx",
    version: 0x0102,
    funcs: &[
        (4, "CreateMbx", create_mbx),
        (5, "DeleteMbx", delete_mbx),
        (6, "SendMbx", send_mbx),
        (7, "iSendMbx", isend_mbx),
        (8, "ReceiveMbx", receive_mbx),
        (9, "PollMbx", poll_mbx),
        (11, "ReferMbxStatus", refer_mbx),
        (12, "iReferMbxStatus", irefer_mbx),
    ],
};
