//! Threads: the scheduler core and the thbase library.
//!
//! The console's rules, as ps2autotests' IOP thread tests pin them: a created thread is DORMANT
//! with current priority 0; StartThread gives it its initial priority; the highest priority
//! (lowest number, 1..126) ready thread runs; a thread made ready with a higher priority than the
//! running one preempts it at once, the preempted thread going to the *front* of its priority's
//! queue; otherwise it joins the back. TH_SELF (0) is refused by the calls that cannot apply to
//! the caller (KE_ILLEGAL_THID).

use super::{Context, Iop, IopError, LibDef, Ret, Thread, Wait, kerr, ret, tag, ths};

/// TH_C: the entry is a C function.
pub const TH_C: u32 = 0x0200_0000;
/// TH_ASM: the entry is assembly.
pub const TH_ASM: u32 = 0x0100_0000;
/// TH_UMODE: run in user mode.
pub const TH_UMODE: u32 = 0x0000_0008;
/// The attributes CreateThread accepts (the console refuses TH_NO_FILLSTACK and
/// TH_CLEAR_STACK: ps2autotests thread/create).
pub const TH_VALID: u32 = TH_C | TH_ASM | TH_UMODE;
/// Size of a thread control block in the kernel heap.
const THREAD_BLOCK: u32 = 0x70;
/// The smallest stack CreateThread accepts.
const MIN_STACK: u32 = 0x130;
/// Bytes reserved at the top of a thread's stack for its saved registers (the console's
/// RESERVED_REGCTX_SIZE): the thread's sp starts below them.
const REGCTX_SIZE: u32 = 0xb8;

impl Iop {
    /// Save the running thread's registers.
    pub fn save_context(&mut self) {
        // A load in flight belongs to the thread that issued it.
        self.cpu.flush_load_delay();
        if let Some(cur) = self.kernel.current {
            let ctx = Context {
                gpr: self.cpu.gpr,
                hi: self.cpu.hi,
                lo: self.cpu.lo,
                pc: self.cpu.pc,
                next_pc: self.cpu.next_pc,
                in_delay: self.cpu.in_delay,
            };
            if let Some(t) = self.kernel.threads.get_mut(&cur) {
                t.ctx = ctx;
            }
        }
    }

    /// Load thread `id`'s registers into the CPU and make it the running thread.
    fn load_context(&mut self, id: u32) {
        let t = self.kernel.threads.get_mut(&id).expect("thread exists");
        t.status = ths::RUN;
        let c = t.ctx;
        self.cpu.gpr = c.gpr;
        self.cpu.gpr[0] = 0;
        self.cpu.hi = c.hi;
        self.cpu.lo = c.lo;
        self.cpu.pc = c.pc;
        self.cpu.next_pc = c.next_pc;
        self.cpu.in_delay = c.in_delay;
        self.kernel.current = Some(id);
    }

    /// Put thread `id` at the back of its priority's ready queue.
    pub fn ready_back(&mut self, id: u32) {
        let t = self.kernel.threads.get_mut(&id).expect("thread exists");
        t.status = ths::READY;
        let p = t.priority as usize;
        self.kernel.ready[p].push_back(id);
    }

    /// Put thread `id` at the front of its priority's ready queue.
    pub fn ready_front(&mut self, id: u32) {
        let t = self.kernel.threads.get_mut(&id).expect("thread exists");
        t.status = ths::READY;
        let p = t.priority as usize;
        self.kernel.ready[p].push_front(id);
    }

    /// Take thread `id` out of the ready queues.
    pub fn ready_remove(&mut self, id: u32) {
        for q in &mut self.kernel.ready {
            q.retain(|&t| t != id);
        }
    }

    /// The highest priority with a ready thread (127 when none).
    pub fn highest_ready(&self) -> u32 {
        self.kernel
            .ready
            .iter()
            .position(|q| !q.is_empty())
            .map_or(127, |p| p as u32)
    }

    fn pop_highest(&mut self) -> Option<u32> {
        self.kernel.ready.iter_mut().find_map(|q| q.pop_front())
    }

    /// The running thread stops running (its status already says why: waiting, dormant, or
    /// ready and queued): save it and run the highest-priority ready thread, or idle.
    pub fn leave(&mut self) {
        self.save_context();
        self.kernel.current = None;
        if let Some(next) = self.pop_highest() {
            self.load_context(next);
        }
    }

    /// Thread `id` becomes ready while thread code runs (the console's thread_start): it
    /// preempts the running thread if its priority is higher, else it queues at the back.
    pub fn make_ready(&mut self, id: u32) {
        if self.kernel.intr.is_some() {
            // Interrupt context: queued now, switched to when the handler returns.
            self.ready_back(id);
            return;
        }
        let prio = self.kernel.threads[&id].priority;
        match self.kernel.current {
            Some(cur) if prio < self.kernel.threads[&cur].priority => {
                self.save_context();
                self.ready_front(cur);
                self.kernel.current = None;
                self.load_context(id);
            }
            Some(_) => self.ready_back(id),
            None => {
                // Nothing ran (a native call from the idle loop cannot happen; be safe).
                self.ready_back(id);
                self.leave();
            }
        }
    }

    /// After wake-ups done in thread context (several threads made ready at the back), let a
    /// higher-priority one preempt the running thread.
    pub fn preempt_check(&mut self) {
        if self.kernel.intr.is_some() {
            return;
        }
        if let Some(cur) = self.kernel.current
            && self.highest_ready() < self.kernel.threads[&cur].priority
        {
            self.ready_front(cur);
            self.leave();
        }
    }

    /// The running thread waits for `wait`; it has already been pointed at its return address.
    /// It resumes with v0 set by whoever wakes it.
    pub fn wait_current(&mut self, wait: Wait) {
        let cur = self.kernel.current.expect("a thread runs");
        let t = self.kernel.threads.get_mut(&cur).expect("thread exists");
        t.status = ths::WAIT;
        t.wait = wait;
        self.leave();
    }

    /// Wake waiting thread `id` with `v0` as its wait call's result (taking it off its wait).
    pub fn wake(&mut self, id: u32, v0: u32) {
        if let Some(t) = self.kernel.threads.get_mut(&id) {
            t.wait = Wait::None;
            t.ctx.gpr[2] = v0;
        }
        self.make_ready(id);
    }

    /// Wake waiting thread `id` onto the back of the ready queue without preempting (the
    /// caller runs [`Iop::preempt_check`] after waking all it wakes).
    pub fn wake_later(&mut self, id: u32, v0: u32) {
        if let Some(t) = self.kernel.threads.get_mut(&id) {
            t.wait = Wait::None;
            t.ctx.gpr[2] = v0;
        }
        self.ready_back(id);
    }

    /// Point the CPU at the native call's return address (before a blocking wait).
    pub fn return_to_caller(&mut self) {
        let ra = self.native_ret;
        self.cpu.set_pc(ra);
    }

    /// The running thread's handle (0 while idle).
    pub fn current_thread(&self) -> u32 {
        self.kernel.current.unwrap_or(0)
    }

    /// Whether a handler runs (QueryIntrContext).
    pub fn in_interrupt(&self) -> bool {
        self.kernel.intr.is_some()
    }

    /// Create a thread as CreateThread does; returns the handle or a kernel error.
    pub fn create_thread(
        &mut self,
        attr: u32,
        entry: u32,
        priority: u32,
        stack_size: u32,
        option: u32,
    ) -> i32 {
        if attr & !TH_VALID != 0 {
            return kerr::ILLEGAL_ATTR;
        }
        if !(1..=126).contains(&priority) {
            return kerr::ILLEGAL_PRIORITY;
        }
        if entry & 3 != 0 {
            return kerr::ILLEGAL_ENTRY;
        }
        if stack_size < MIN_STACK {
            return kerr::ILLEGAL_STACK_SIZE;
        }
        // The stack is rounded up to 256 bytes in 32 bits: ~0 wraps to 0 and the allocation
        // fails (ps2autotests thread/create: a huge stack gives KE_NO_MEMORY).
        let size = stack_size.wrapping_add(0xff) & !0xff;
        let Some((block, id)) = self.alloc_block(tag::THREAD, 0, THREAD_BLOCK) else {
            return kerr::NO_MEMORY;
        };
        let stack = if size == 0 {
            None
        } else {
            self.sysmem_alloc(super::sysmem::Mode::Last, size, 0)
        };
        let Some(stack) = stack else {
            self.free_block(block);
            return kerr::NO_MEMORY;
        };
        // The console fills a new stack with 0xff (for GetThreadStackFreeSize), all but the top
        // 0x30 bytes.
        for a in (stack..stack + size - 0x30).step_by(4) {
            self.bus.set_ram_u32(a, 0xffff_ffff);
        }
        let gp = self.cpu.gpr[28];
        self.kernel.threads.insert(
            id,
            Thread {
                id,
                block,
                attr,
                option,
                entry,
                stack,
                stack_size: size,
                gp,
                init_priority: priority,
                priority: 0,
                status: ths::DORMANT,
                wait: Wait::None,
                wakeup_count: 0,
                ctx: Context::default(),
                cont: Vec::new(),
            },
        );
        id as i32
    }

    /// Give dormant thread `id` its start registers: pc at the entry, $ra at the kernel's
    /// thread exit, sp below the saved-register area at the top of its stack, a0 = `arg`.
    fn init_start(&mut self, id: u32, a0: u32, a1: u32, stack_top: u32) {
        let t = self.kernel.threads.get_mut(&id).expect("thread exists");
        t.priority = t.init_priority;
        t.wait = Wait::None;
        t.wakeup_count = 0;
        t.cont.clear();
        let mut ctx = Context::default();
        ctx.gpr[4] = a0;
        ctx.gpr[5] = a1;
        ctx.gpr[28] = t.gp;
        ctx.gpr[29] = stack_top;
        ctx.gpr[30] = stack_top;
        ctx.gpr[31] = ret::THREAD_EXIT;
        ctx.pc = t.entry;
        ctx.next_pc = t.entry.wrapping_add(4);
        t.ctx = ctx;
    }

    /// Start dormant thread `id` with argument `arg` (StartThread without the checks).
    pub fn start_thread(&mut self, id: u32, arg: u32) {
        let t = &self.kernel.threads[&id];
        let top = t.stack + (t.stack_size & !3) - REGCTX_SIZE;
        self.init_start(id, arg, 0, top);
        self.make_ready(id);
    }

    /// The thread a handle names, or the kernel error for a bad one.
    fn thread_of(&self, id: u32) -> Result<u32, i32> {
        if self.kernel.threads.contains_key(&id) {
            Ok(id)
        } else {
            Err(kerr::UNKNOWN_THID)
        }
    }

    /// Take thread `id` off whatever it waits on (the wait object's queue, its alarm).
    pub fn unwait(&mut self, id: u32) {
        let wait = self.kernel.threads[&id].wait;
        match wait {
            Wait::Delay(alarm) => self.cancel_alarm_id(alarm),
            Wait::Sema(s) => {
                if let Some(s) = self.kernel.semas.get_mut(&s) {
                    s.waiters.retain(|&t| t != id);
                }
            }
            Wait::EventFlag { id: f, .. } => {
                if let Some(f) = self.kernel.evfs.get_mut(&f) {
                    f.waiters.retain(|&t| t != id);
                }
            }
            Wait::Mbx { id: m, .. } => {
                if let Some(m) = self.kernel.mbxs.get_mut(&m) {
                    m.waiters.retain(|&t| t != id);
                }
            }
            Wait::Vpl { id: v, .. } => {
                if let Some(v) = self.kernel.vpls.get_mut(&v) {
                    v.waiters.retain(|&t| t != id);
                }
            }
            Wait::Fpl(f) => {
                if let Some(f) = self.kernel.fpls.get_mut(&f) {
                    f.waiters.retain(|&t| t != id);
                }
            }
            Wait::Native(_) => crate::modules::unwait(self, id),
            Wait::Sleep | Wait::None => {}
        }
        if let Some(t) = self.kernel.threads.get_mut(&id) {
            t.wait = Wait::None;
        }
    }

    /// Make thread `id` dormant wherever it is (TerminateThread's effect on another thread).
    fn terminate(&mut self, id: u32) {
        match self.kernel.threads[&id].status {
            ths::READY => self.ready_remove(id),
            ths::WAIT | ths::SUSPEND => self.unwait(id),
            _ => {}
        }
        let t = self.kernel.threads.get_mut(&id).expect("thread exists");
        t.status = ths::DORMANT;
        t.cont.clear();
    }
}

/// The running thread exits (its entry returned, or ExitThread / ExitDeleteThread).
pub fn exit_current(iop: &mut Iop, delete: bool) -> Result<(), IopError> {
    let Some(cur) = iop.kernel.current else {
        return Err(iop.fault("a thread exit with no thread running".into()));
    };
    if let Some(t) = iop.kernel.threads.get_mut(&cur) {
        t.status = ths::DORMANT;
        t.cont.clear();
    }
    iop.leave();
    if delete {
        delete_thread(iop, cur);
    }
    Ok(())
}

fn delete_thread(iop: &mut Iop, id: u32) {
    if let Some(t) = iop.kernel.threads.remove(&id) {
        iop.sysmem_free(t.stack);
        iop.free_block(t.block);
    }
}

fn v(x: i32) -> Result<Ret, IopError> {
    Ok(Ret::V(x as u32))
}

fn create_thread(iop: &mut Iop) -> Result<Ret, IopError> {
    if iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    let p = iop.arg(0);
    let b = &iop.bus;
    let (attr, option, entry, stack, prio) = (
        b.ram_u32(p),
        b.ram_u32(p.wrapping_add(4)),
        b.ram_u32(p.wrapping_add(8)),
        b.ram_u32(p.wrapping_add(12)),
        b.ram_u32(p.wrapping_add(16)),
    );
    v(iop.create_thread(attr, entry, prio, stack, option))
}

fn delete(iop: &mut Iop) -> Result<Ret, IopError> {
    let id = iop.arg(0);
    if iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    if id == 0 {
        return v(kerr::ILLEGAL_THID);
    }
    let id = match iop.thread_of(id) {
        Ok(t) => t,
        Err(e) => return v(e),
    };
    if iop.kernel.threads[&id].status != ths::DORMANT {
        return v(kerr::NOT_DORMANT);
    }
    delete_thread(iop, id);
    v(kerr::OK)
}

fn start(iop: &mut Iop) -> Result<Ret, IopError> {
    let (id, arg) = (iop.arg(0), iop.arg(1));
    if iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    if id == 0 {
        return v(kerr::ILLEGAL_THID);
    }
    let id = match iop.thread_of(id) {
        Ok(t) => t,
        Err(e) => return v(e),
    };
    if iop.kernel.threads[&id].status != ths::DORMANT {
        return v(kerr::NOT_DORMANT);
    }
    iop.cpu.gpr[2] = 0;
    iop.return_to_caller();
    iop.start_thread(id, arg);
    Ok(Ret::Done)
}

fn start_args(iop: &mut Iop) -> Result<Ret, IopError> {
    let (id, len, argp) = (iop.arg(0), iop.arg(1), iop.arg(2));
    if iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    if id == 0 {
        return v(kerr::ILLEGAL_THID);
    }
    let id = match iop.thread_of(id) {
        Ok(t) => t,
        Err(e) => return v(e),
    };
    if iop.kernel.threads[&id].status != ths::DORMANT {
        return v(kerr::NOT_DORMANT);
    }
    // The arguments are copied to the top of the thread's stack; the saved registers go below.
    let t = &iop.kernel.threads[&id];
    let top = t.stack + (t.stack_size & !3);
    let len4 = len.wrapping_add(3) & !3;
    let args_at = top.wrapping_sub(len4);
    if (len as i32) > 0 && argp != 0 {
        let mut buf = vec![0; len as usize];
        iop.bus.read_ram(argp, &mut buf);
        iop.bus.write_ram(args_at, &buf);
    }
    iop.init_start(id, len, args_at, args_at - REGCTX_SIZE);
    iop.cpu.gpr[2] = 0;
    iop.return_to_caller();
    iop.make_ready(id);
    Ok(Ret::Done)
}

fn exit(iop: &mut Iop) -> Result<Ret, IopError> {
    if iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    exit_current(iop, false)?;
    Ok(Ret::Done)
}

fn exit_delete(iop: &mut Iop) -> Result<Ret, IopError> {
    if iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    exit_current(iop, true)?;
    Ok(Ret::Done)
}

fn terminate(iop: &mut Iop) -> Result<Ret, IopError> {
    let id = iop.arg(0);
    if iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    if id == 0 || Some(id) == iop.kernel.current {
        return v(kerr::ILLEGAL_THID);
    }
    let id = match iop.thread_of(id) {
        Ok(t) => t,
        Err(e) => return v(e),
    };
    if iop.kernel.threads[&id].status == ths::DORMANT {
        return v(kerr::DORMANT);
    }
    iop.terminate(id);
    v(kerr::OK)
}

fn iterminate(iop: &mut Iop) -> Result<Ret, IopError> {
    let id = iop.arg(0);
    if !iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    if id == 0 {
        return v(kerr::ILLEGAL_THID);
    }
    let id = match iop.thread_of(id) {
        Ok(t) => t,
        Err(e) => return v(e),
    };
    if iop.kernel.threads[&id].status == ths::DORMANT {
        return v(kerr::DORMANT);
    }
    if Some(id) == iop.intr_thread() {
        // The interrupted thread: it becomes dormant when the handler returns.
        iop.kernel.intr.as_mut().expect("interrupt").terminate = true;
    } else {
        iop.terminate(id);
    }
    v(kerr::OK)
}

fn change_priority(iop: &mut Iop) -> Result<Ret, IopError> {
    let (id, prio) = (iop.arg(0), iop.arg(1));
    if iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    let cur = iop.current_thread();
    let id = if id == 0 {
        cur
    } else {
        match iop.thread_of(id) {
            Ok(t) => t,
            Err(e) => return v(e),
        }
    };
    if iop.kernel.threads[&id].status == ths::DORMANT {
        return v(kerr::DORMANT);
    }
    let prio = if prio == 0 {
        iop.kernel.threads[&cur].priority
    } else {
        prio
    };
    if !(1..=126).contains(&prio) {
        return v(kerr::ILLEGAL_PRIORITY);
    }
    iop.cpu.gpr[2] = 0;
    iop.return_to_caller();
    if id == cur {
        iop.kernel.threads.get_mut(&id).expect("thread").priority = prio;
        // The caller yields to any ready thread of higher or equal new priority (the console
        // puts it at the back of its new priority's queue).
        if prio >= iop.highest_ready() {
            iop.ready_back(id);
            iop.leave();
        }
    } else {
        let status = iop.kernel.threads[&id].status;
        iop.kernel.threads.get_mut(&id).expect("thread").priority = prio;
        if status == ths::READY {
            iop.ready_remove(id);
            iop.make_ready(id);
        } else if status == ths::WAIT {
            iop.requeue_waiter(id);
        }
    }
    Ok(Ret::Done)
}

fn ichange_priority(iop: &mut Iop) -> Result<Ret, IopError> {
    let (id, prio) = (iop.arg(0), iop.arg(1));
    if !iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    if id == 0 {
        return v(kerr::ILLEGAL_THID);
    }
    let id = match iop.thread_of(id) {
        Ok(t) => t,
        Err(e) => return v(e),
    };
    if iop.kernel.threads[&id].status == ths::DORMANT {
        return v(kerr::DORMANT);
    }
    if !(1..=126).contains(&prio) {
        return v(kerr::ILLEGAL_PRIORITY);
    }
    let status = iop.kernel.threads[&id].status;
    iop.kernel.threads.get_mut(&id).expect("thread").priority = prio;
    if status == ths::READY {
        iop.ready_remove(id);
        iop.ready_back(id);
    } else if status == ths::WAIT {
        iop.requeue_waiter(id);
    }
    v(kerr::OK)
}

fn rotate(iop: &mut Iop) -> Result<Ret, IopError> {
    let prio = iop.arg(0);
    if iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    if prio >= 127 {
        return v(kerr::ILLEGAL_PRIORITY);
    }
    let cur = iop.current_thread();
    let my = iop.kernel.threads[&cur].priority;
    let prio = if prio == 0 { my } else { prio } as usize;
    if iop.kernel.ready[prio].is_empty() {
        return v(kerr::OK);
    }
    if prio as u32 != my {
        let q = &mut iop.kernel.ready[prio];
        if let Some(t) = q.pop_front() {
            q.push_back(t);
        }
        return v(kerr::OK);
    }
    iop.cpu.gpr[2] = 0;
    iop.return_to_caller();
    iop.ready_back(cur);
    iop.leave();
    Ok(Ret::Done)
}

fn irotate(iop: &mut Iop) -> Result<Ret, IopError> {
    let prio = iop.arg(0);
    if !iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    if prio >= 126 {
        return v(kerr::ILLEGAL_PRIORITY);
    }
    let interrupted = iop.intr_thread();
    let my = interrupted.map_or(127, |t| iop.kernel.threads[&t].priority);
    let prio = if prio == 0 {
        iop.highest_ready().min(my)
    } else {
        prio
    } as usize;
    if prio < 127 && !iop.kernel.ready[prio].is_empty() {
        if prio as u32 == my {
            iop.kernel.intr.as_mut().expect("interrupt").rotate = true;
        } else {
            let q = &mut iop.kernel.ready[prio];
            if let Some(t) = q.pop_front() {
                q.push_back(t);
            }
        }
    }
    v(kerr::OK)
}

fn release_wait(iop: &mut Iop) -> Result<Ret, IopError> {
    let id = iop.arg(0);
    if iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    if id == 0 || Some(id) == iop.kernel.current {
        return v(kerr::ILLEGAL_THID);
    }
    let id = match iop.thread_of(id) {
        Ok(t) => t,
        Err(e) => return v(e),
    };
    if iop.kernel.threads[&id].status != ths::WAIT {
        return v(kerr::NOT_WAIT);
    }
    iop.unwait(id);
    iop.cpu.gpr[2] = 0;
    iop.return_to_caller();
    iop.wake(id, kerr::RELEASE_WAIT as u32);
    Ok(Ret::Done)
}

fn irelease_wait(iop: &mut Iop) -> Result<Ret, IopError> {
    let id = iop.arg(0);
    if !iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    if id == 0 {
        return v(kerr::ILLEGAL_THID);
    }
    let id = match iop.thread_of(id) {
        Ok(t) => t,
        Err(e) => return v(e),
    };
    if iop.kernel.threads[&id].status != ths::WAIT {
        return v(kerr::NOT_WAIT);
    }
    iop.unwait(id);
    iop.wake(id, kerr::RELEASE_WAIT as u32);
    v(kerr::OK)
}

fn get_thread_id(iop: &mut Iop) -> Result<Ret, IopError> {
    if iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    Ok(Ret::V(iop.current_thread()))
}

fn check_stack(iop: &mut Iop) -> Result<Ret, IopError> {
    if iop.in_interrupt() {
        return v(kerr::OK);
    }
    let cur = iop.current_thread();
    let sp = iop.cpu.gpr[29];
    let t = &iop.kernel.threads[&cur];
    Ok(Ret::V(sp.wrapping_sub(t.stack)))
}

/// Write thread `id`'s iop_thread_info_t at `info`.
fn write_status(iop: &mut Iop, id: u32, info: u32) {
    let t = iop.kernel.threads[&id].clone();
    let words = [
        t.attr,
        t.option,
        t.status,
        t.entry,
        t.stack,
        t.stack_size,
        t.gp,
        t.init_priority,
        t.priority,
        t.wait.kind(),
        t.wait.object(),
        t.wakeup_count,
        0,
    ];
    for (i, w) in words.iter().enumerate() {
        iop.bus.set_ram_u32(info.wrapping_add(4 * i as u32), *w);
    }
}

fn refer_status(iop: &mut Iop) -> Result<Ret, IopError> {
    let (id, info) = (iop.arg(0), iop.arg(1));
    if iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    let id = if id == 0 {
        iop.current_thread()
    } else {
        match iop.thread_of(id) {
            Ok(t) => t,
            Err(e) => return v(e),
        }
    };
    write_status(iop, id, info);
    v(kerr::OK)
}

fn irefer_status(iop: &mut Iop) -> Result<Ret, IopError> {
    let (id, info) = (iop.arg(0), iop.arg(1));
    if id == 0 {
        return v(kerr::ILLEGAL_THID);
    }
    let id = match iop.thread_of(id) {
        Ok(t) => t,
        Err(e) => return v(e),
    };
    write_status(iop, id, info);
    v(kerr::OK)
}

fn sleep(iop: &mut Iop) -> Result<Ret, IopError> {
    if iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    let cur = iop.current_thread();
    let t = iop.kernel.threads.get_mut(&cur).expect("thread");
    if t.wakeup_count > 0 {
        t.wakeup_count -= 1;
        return v(kerr::OK);
    }
    iop.cpu.gpr[2] = 0;
    iop.return_to_caller();
    iop.wait_current(Wait::Sleep);
    Ok(Ret::Done)
}

fn wakeup_common(iop: &mut Iop, id: u32, from_intr: bool) -> Result<Ret, IopError> {
    if id == 0 || (!from_intr && Some(id) == iop.kernel.current) {
        return v(kerr::ILLEGAL_THID);
    }
    let id = match iop.thread_of(id) {
        Ok(t) => t,
        Err(e) => return v(e),
    };
    let t = iop.kernel.threads.get_mut(&id).expect("thread");
    if t.status == ths::DORMANT {
        return v(kerr::DORMANT);
    }
    if t.status == ths::WAIT && t.wait == Wait::Sleep {
        iop.cpu.gpr[2] = 0;
        if !from_intr {
            iop.return_to_caller();
        }
        iop.wake(id, 0);
        return if from_intr {
            v(kerr::OK)
        } else {
            Ok(Ret::Done)
        };
    }
    t.wakeup_count += 1;
    v(kerr::OK)
}

fn wakeup(iop: &mut Iop) -> Result<Ret, IopError> {
    let id = iop.arg(0);
    if iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    wakeup_common(iop, id, false)
}

fn iwakeup(iop: &mut Iop) -> Result<Ret, IopError> {
    let id = iop.arg(0);
    if !iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    wakeup_common(iop, id, true)
}

fn cancel_wakeup(iop: &mut Iop) -> Result<Ret, IopError> {
    let id = iop.arg(0);
    if iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    let id = if id == 0 {
        iop.current_thread()
    } else {
        match iop.thread_of(id) {
            Ok(t) => t,
            Err(e) => return v(e),
        }
    };
    let t = iop.kernel.threads.get_mut(&id).expect("thread");
    Ok(Ret::V(std::mem::take(&mut t.wakeup_count)))
}

fn icancel_wakeup(iop: &mut Iop) -> Result<Ret, IopError> {
    let id = iop.arg(0);
    if !iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    if id == 0 {
        return v(kerr::ILLEGAL_THID);
    }
    let id = match iop.thread_of(id) {
        Ok(t) => t,
        Err(e) => return v(e),
    };
    let t = iop.kernel.threads.get_mut(&id).expect("thread");
    Ok(Ret::V(std::mem::take(&mut t.wakeup_count)))
}

fn suspend(iop: &mut Iop) -> Result<Ret, IopError> {
    // SuspendThread/ResumeThread: the console's threadman answers KE_ERROR for these in the
    // versions games ship with (no thread is ever THS_SUSPEND).
    iop.log_once(
        "suspend",
        "SuspendThread/ResumeThread called; the console's threadman refuses them (KE_ERROR)",
    );
    v(kerr::ERROR)
}

fn get_thread_current_priority(iop: &mut Iop) -> Result<Ret, IopError> {
    if iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    let cur = iop.current_thread();
    Ok(Ret::V(iop.kernel.threads[&cur].priority))
}

fn get_stack_free(iop: &mut Iop) -> Result<Ret, IopError> {
    let id = iop.arg(0);
    if iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    let id = if id == 0 {
        iop.current_thread()
    } else {
        match iop.thread_of(id) {
            Ok(t) => t,
            Err(e) => return v(e),
        }
    };
    let t = &iop.kernel.threads[&id];
    let (stack, size) = (t.stack, t.stack_size);
    let mut free = 0;
    while free < size && iop.bus.ram_u32(stack + free) == 0xffff_ffff {
        free += 4;
    }
    Ok(Ret::V(free))
}

fn disable_dispatch(_iop: &mut Iop) -> Result<Ret, IopError> {
    v(kerr::ERROR)
}

/// The thread library.
pub const THBASE: LibDef = LibDef {
    name: "thbase",
    version: 0x0102,
    funcs: &[
        (4, "CreateThread", create_thread),
        (5, "DeleteThread", delete),
        (6, "StartThread", start),
        (7, "StartThreadArgs", start_args),
        (8, "ExitThread", exit),
        (9, "ExitDeleteThread", exit_delete),
        (10, "TerminateThread", terminate),
        (11, "iTerminateThread", iterminate),
        (12, "DisableDispatchThread", disable_dispatch),
        (13, "EnableDispatchThread", disable_dispatch),
        (14, "ChangeThreadPriority", change_priority),
        (15, "iChangeThreadPriority", ichange_priority),
        (16, "RotateThreadReadyQueue", rotate),
        (17, "iRotateThreadReadyQueue", irotate),
        (18, "ReleaseWaitThread", release_wait),
        (19, "iReleaseWaitThread", irelease_wait),
        (20, "GetThreadId", get_thread_id),
        (21, "CheckThreadStack", check_stack),
        (22, "ReferThreadStatus", refer_status),
        (23, "iReferThreadStatus", irefer_status),
        (24, "SleepThread", sleep),
        (25, "WakeupThread", wakeup),
        (26, "iWakeupThread", iwakeup),
        (27, "CancelWakeupThread", cancel_wakeup),
        (28, "iCancelWakeupThread", icancel_wakeup),
        (29, "SuspendThread", suspend),
        (30, "iSuspendThread", suspend),
        (31, "ResumeThread", suspend),
        (32, "iResumeThread", suspend),
        (33, "DelayThread", super::time::delay_thread),
        (34, "GetSystemTime", super::time::get_system_time),
        (35, "SetAlarm", super::time::set_alarm),
        (36, "iSetAlarm", super::time::iset_alarm),
        (37, "CancelAlarm", super::time::cancel_alarm),
        (38, "iCancelAlarm", super::time::icancel_alarm),
        (39, "USec2SysClock", super::time::usec2sysclock),
        (40, "SysClock2USec", super::time::sysclock2usec),
        (
            41,
            "GetSystemStatusFlag",
            super::time::get_system_status_flag,
        ),
        (42, "GetThreadCurrentPriority", get_thread_current_priority),
        (43, "GetSystemTimeLow", super::time::get_system_time_low),
        (46, "GetThreadStackFreeSize", get_stack_free),
    ],
};
