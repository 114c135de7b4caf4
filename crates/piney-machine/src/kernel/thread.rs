//! Threads: creation, start, exit, termination, deletion, priorities, sleep and wakeup, suspend
//! and resume, status, and the start-up calls SetupThread and SetupHeap.

use piney_ee::cpu::status;

use super::{Context, Kernel, Ret, STACK_RESERVE, stubs};
use crate::{Machine, MachineError};

/// ps2sdk's thread status bits (`ee_thread_status_t.status`).
pub mod ths {
    /// Running.
    pub const RUN: u32 = 0x01;
    /// Ready to run.
    pub const READY: u32 = 0x02;
    /// Waiting (sleeping or on a semaphore).
    pub const WAIT: u32 = 0x04;
    /// Suspended.
    pub const SUSPEND: u32 = 0x08;
    /// Created or terminated, not started.
    pub const DORMANT: u32 = 0x10;
}

/// Where a thread is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ThreadState {
    /// Running or ready (unless suspended).
    Run,
    /// Waiting.
    Wait(WaitKind),
    /// Not started, exited or terminated.
    Dormant,
}

/// What a waiting thread waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum WaitKind {
    /// SleepThread (ps2sdk wait type 1).
    Sleep,
    /// WaitSema on this semaphore (wait type 2).
    Sema(u32),
}

/// One thread.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Thread {
    /// Run, wait or dormant.
    pub state: ThreadState,
    /// Suspended (SuspendThread), on top of `state`.
    pub suspended: bool,
    /// Entry function.
    pub entry: u32,
    /// Stack base.
    pub stack: u32,
    /// Stack size.
    pub stack_size: u32,
    /// `$gp` for the thread.
    pub gp: u32,
    /// Priority it was created with.
    pub init_priority: u32,
    /// Priority now.
    pub priority: u32,
    /// Attributes from CreateThread.
    pub attr: u32,
    /// Option word from CreateThread.
    pub option: u32,
    /// Wakeups received while not sleeping.
    pub wakeup_count: u32,
    /// Saved registers while not running.
    pub ctx: Option<Box<Context>>,
}

impl Thread {
    /// A dormant thread.
    pub fn new(
        entry: u32,
        stack: u32,
        stack_size: u32,
        gp: u32,
        prio: u32,
        attr: u32,
        option: u32,
    ) -> Self {
        Self {
            state: ThreadState::Dormant,
            suspended: false,
            entry,
            stack,
            stack_size,
            gp,
            init_priority: prio,
            priority: prio,
            attr,
            option,
            wakeup_count: 0,
            ctx: None,
        }
    }

    /// The status ps2sdk's ReferThreadStatus reports (`running`: it is the current thread).
    pub fn status_bits(&self, running: bool) -> u32 {
        match (self.state, self.suspended) {
            (ThreadState::Dormant, _) => ths::DORMANT,
            (ThreadState::Run, true) => ths::SUSPEND,
            (ThreadState::Run, false) if running => ths::RUN,
            (ThreadState::Run, false) => ths::READY,
            (ThreadState::Wait(_), false) => ths::WAIT,
            (ThreadState::Wait(_), true) => ths::WAIT | ths::SUSPEND,
        }
    }
}

impl Kernel {
    /// Put a thread in the ready queue behind every thread of its priority or better.
    pub(super) fn link(&mut self, id: u32) {
        self.unlink(id);
        let Some(prio) = self.thread(id).map(|t| t.priority) else {
            return;
        };
        let pos = self
            .ready
            .iter()
            .position(|&o| self.thread(o).is_some_and(|t| t.priority > prio))
            .unwrap_or(self.ready.len());
        self.ready.insert(pos, id);
    }

    /// Take a thread out of the ready queue.
    pub(super) fn unlink(&mut self, id: u32) {
        self.ready.retain(|&o| o != id);
    }

    /// A waiting thread's wait ends with `$v0 = result`: it becomes ready (or stays suspended).
    pub(super) fn release_wait(&mut self, id: u32, result: i32) {
        let Some(t) = self.thread_mut(id) else {
            return;
        };
        if let ThreadState::Wait(WaitKind::Sema(s)) = t.state
            && let Some(Some(sema)) = self.semas.get_mut(s as usize)
        {
            sema.waiters.retain(|&w| w != id);
        }
        let Some(t) = self.thread_mut(id) else {
            return;
        };
        t.state = ThreadState::Run;
        if let Some(ctx) = t.ctx.as_mut() {
            ctx.gpr[2] = (ctx.gpr[2] & !(u64::MAX as u128)) | (result as i64 as u64 as u128);
        }
        if !t.suspended {
            self.link(id);
        }
    }

    /// Make a thread dormant: out of every queue, priority back to its initial one.
    fn make_dormant(&mut self, id: u32) {
        if let Some(ThreadState::Wait(WaitKind::Sema(s))) = self.thread(id).map(|t| t.state)
            && let Some(Some(sema)) = self.semas.get_mut(s as usize)
        {
            sema.waiters.retain(|&w| w != id);
        }
        self.unlink(id);
        if let Some(t) = self.thread_mut(id) {
            t.state = ThreadState::Dormant;
            t.suspended = false;
            t.priority = t.init_priority;
            t.wakeup_count = 0;
            t.ctx = None;
        }
    }

    /// Resolve id 0 to the calling thread.
    fn resolve(&self, id: u32) -> u32 {
        if id == 0 {
            self.current.unwrap_or(0)
        } else {
            id
        }
    }

    /// Whether any thread is not dormant.
    fn any_living(&self) -> bool {
        self.threads
            .iter()
            .flatten()
            .any(|t| t.state != ThreadState::Dormant)
    }
}

impl Machine {
    /// CreateThread(ee_thread_t *param).
    pub(super) fn sys_create_thread(&mut self, param: u32) -> Result<Ret, MachineError> {
        let mut w = [0u32; 9];
        for (i, v) in w.iter_mut().enumerate() {
            *v = self.kread32(param.wrapping_add(4 * i as u32), "CreateThread")?;
        }
        // ee_thread_t: status, func, stack, stack_size, gp_reg, initial_priority,
        // current_priority, attr, option.
        let [_, func, stack, stack_size, gp, prio, _, attr, option] = w;
        if prio >= 128 || stack_size == 0 {
            return Ok(Ret::V(-1));
        }
        let Some(id) = (1..super::MAX_THREADS).find(|&i| self.kernel.threads[i].is_none()) else {
            return Ok(Ret::V(-1));
        };
        self.kernel.threads[id] = Some(super::Thread::new(
            func, stack, stack_size, gp, prio, attr, option,
        ));
        Ok(Ret::V(id as i32))
    }

    /// DeleteThread(id): only a dormant thread other than the caller.
    pub(super) fn sys_delete_thread(&mut self, id: u32) -> Ret {
        if Some(id) == self.kernel.current
            || self
                .kernel
                .thread(id)
                .is_none_or(|t| t.state != ThreadState::Dormant)
        {
            return Ret::V(-1);
        }
        self.kernel.threads[id as usize] = None;
        Ret::V(id as i32)
    }

    /// StartThread(id, arg): a dormant thread starts at its entry with `a0 = arg`.
    pub(super) fn sys_start_thread(&mut self, id: u32, arg: u32) -> Ret {
        let Some(t) = self.kernel.thread_mut(id) else {
            return Ret::V(-1);
        };
        if t.state != ThreadState::Dormant {
            return Ret::V(-1);
        }
        let top = t.stack.wrapping_add(t.stack_size);
        let mut ctx = Context {
            pc: t.entry,
            ie: status::IE | status::EIE,
            ..Context::default()
        };
        ctx.gpr[4] = arg as i32 as i64 as u64 as u128;
        // sp and fp below the area the kernel reserves at the stack top.
        let sp = top.wrapping_sub(STACK_RESERVE) as i32 as i64 as u64 as u128;
        ctx.gpr[29] = sp;
        ctx.gpr[30] = sp;
        ctx.gpr[28] = t.gp as i32 as i64 as u64 as u128;
        ctx.gpr[31] = stubs::THREAD_EXIT as i32 as i64 as u64 as u128;
        t.ctx = Some(Box::new(ctx));
        t.state = ThreadState::Run;
        t.suspended = false;
        t.priority = t.init_priority;
        t.wakeup_count = 0;
        self.kernel.link(id);
        Ret::V(id as i32)
    }

    /// ExitThread / ExitDeleteThread: the caller becomes dormant (and is deleted).
    pub(super) fn sys_exit_thread(&mut self, delete: bool, pc: u32) -> Result<Ret, MachineError> {
        let name = if delete {
            "ExitDeleteThread"
        } else {
            "ExitThread"
        };
        if self.kernel.in_handler() {
            return Err(MachineError::Kernel {
                what: format!("{name} called from a handler"),
                pc,
            });
        }
        let Some(id) = self.kernel.current else {
            return Err(MachineError::Kernel {
                what: format!("{name} with no thread running"),
                pc,
            });
        };
        self.kernel.make_dormant(id);
        if delete {
            self.kernel.threads[id as usize] = None;
        }
        // ps2sdk's crt0 ends with ExitDeleteThread(status) when main returns: the program is
        // done. So is a program whose last thread exits.
        if delete && Some(id) == self.kernel.main_thread {
            self.request_exit(self.cpu.r32(4) as i32);
        } else if !self.kernel.any_living() {
            self.request_exit(if delete { self.cpu.r32(4) as i32 } else { 0 });
        }
        Ok(Ret::Done)
    }

    /// TerminateThread(id): another thread becomes dormant.
    pub(super) fn sys_terminate_thread(&mut self, id: u32) -> Ret {
        if Some(id) == self.kernel.current
            || self
                .kernel
                .thread(id)
                .is_none_or(|t| t.state == ThreadState::Dormant)
        {
            return Ret::V(-1);
        }
        self.kernel.make_dormant(id);
        Ret::V(id as i32)
    }

    /// ChangeThreadPriority(id, prio): returns the old priority; a ready thread goes to the back
    /// of its new priority.
    pub(super) fn sys_change_priority(&mut self, id: u32, prio: u32) -> Ret {
        let id = self.kernel.resolve(id);
        if prio >= 128 {
            return Ret::V(-1);
        }
        let Some(t) = self.kernel.thread_mut(id) else {
            return Ret::V(-1);
        };
        if t.state == ThreadState::Dormant {
            return Ret::V(-1);
        }
        let old = t.priority;
        t.priority = prio;
        if self.kernel.ready.contains(&id) {
            self.kernel.link(id);
        }
        Ret::V(old as i32)
    }

    /// RotateThreadReadyQueue(prio): the first ready thread of that priority goes to the back of
    /// it.
    pub(super) fn sys_rotate_ready_queue(&mut self, prio: u32) -> Ret {
        if prio >= 128 {
            return Ret::V(-1);
        }
        let first = self
            .kernel
            .ready
            .iter()
            .copied()
            .find(|&id| self.kernel.thread(id).is_some_and(|t| t.priority == prio));
        if let Some(id) = first {
            self.kernel.link(id);
        }
        Ret::V(prio as i32)
    }

    /// ReleaseWaitThread(id): a waiting thread's wait ends with an error result.
    pub(super) fn sys_release_wait(&mut self, id: u32) -> Ret {
        match self.kernel.thread(id) {
            Some(t) if matches!(t.state, ThreadState::Wait(_)) => {
                self.kernel.release_wait(id, -1);
                Ret::V(id as i32)
            }
            _ => Ret::V(-1),
        }
    }

    /// ReferThreadStatus(id, ee_thread_status_t *st): returns the status bits; fills `st`
    /// unless it is null.
    pub(super) fn sys_refer_thread_status(
        &mut self,
        id: u32,
        st: u32,
    ) -> Result<Ret, MachineError> {
        let id = self.kernel.resolve(id);
        if id as usize >= super::MAX_THREADS {
            return Ok(Ret::V(-1));
        }
        let Some(t) = self.kernel.thread(id) else {
            // A deleted (or never created) thread reads as 0.
            return Ok(Ret::V(0));
        };
        let bits = t.status_bits(Some(id) == self.kernel.current);
        let (wait_type, wait_id) = match t.state {
            ThreadState::Wait(WaitKind::Sleep) => (1, 0),
            ThreadState::Wait(WaitKind::Sema(s)) => (2, s),
            _ => (0, 0),
        };
        // ee_thread_status_t: status, func, stack, stack_size, gp_reg, initial_priority,
        // current_priority, attr, option, waitType, waitId, wakeupCount.
        let words = [
            bits,
            t.entry,
            t.stack,
            t.stack_size,
            t.gp,
            t.init_priority,
            t.priority,
            t.attr,
            t.option,
            wait_type,
            wait_id,
            t.wakeup_count,
        ];
        if st != 0 {
            for (i, w) in words.iter().enumerate() {
                self.kwrite32(st.wrapping_add(4 * i as u32), *w, "ReferThreadStatus")?;
            }
        }
        Ok(Ret::V(bits as i32))
    }

    /// SleepThread: consume a pending wakeup, or wait for one. Returns the thread's id.
    pub(super) fn sys_sleep(&mut self, pc: u32) -> Result<Ret, MachineError> {
        let Some(id) = self.kernel.current else {
            return Err(MachineError::Kernel {
                what: "SleepThread with no thread running".into(),
                pc,
            });
        };
        let in_handler = self.kernel.in_handler();
        let t = self
            .kernel
            .thread_mut(id)
            .expect("the current thread exists");
        if t.wakeup_count > 0 {
            t.wakeup_count -= 1;
            return Ok(Ret::V(id as i32));
        }
        if in_handler {
            return Err(MachineError::Kernel {
                what: "SleepThread would block inside a handler".into(),
                pc,
            });
        }
        // Waiting replaces whatever state the caller had (a thread that suspended itself
        // included: the real kernel overwrites its status).
        t.state = ThreadState::Wait(WaitKind::Sleep);
        t.suspended = false;
        self.kernel.unlink(id);
        Ok(Ret::V(id as i32))
    }

    /// WakeupThread(id) / iWakeupThread: wake a sleeping thread, or count the wakeup.
    pub(super) fn sys_wakeup(&mut self, id: u32) -> Ret {
        if id == 0 || Some(id) == self.kernel.current {
            return Ret::V(-1);
        }
        let Some(t) = self.kernel.thread_mut(id) else {
            return Ret::V(-1);
        };
        match t.state {
            ThreadState::Dormant => return Ret::V(-1),
            ThreadState::Wait(WaitKind::Sleep) => self.kernel.release_wait(id, id as i32),
            _ => t.wakeup_count += 1,
        }
        Ret::V(id as i32)
    }

    /// CancelWakeupThread(id): returns and clears the pending wakeups. (Id 0 means "self" only
    /// for ReferThreadStatus and ChangeThreadPriority on the EE.)
    pub(super) fn sys_cancel_wakeup(&mut self, id: u32) -> Ret {
        match self.kernel.thread_mut(id) {
            Some(t) if t.state != ThreadState::Dormant => {
                Ret::V(std::mem::take(&mut t.wakeup_count) as i32)
            }
            _ => Ret::V(-1),
        }
    }

    /// SuspendThread(id). A thread suspending itself is marked suspended but keeps running
    /// until it next waits (as the real kernel does).
    pub(super) fn sys_suspend(&mut self, id: u32) -> Ret {
        let cur = self.kernel.current;
        let Some(t) = self.kernel.thread_mut(id) else {
            return Ret::V(-1);
        };
        if t.state == ThreadState::Dormant || t.suspended {
            return Ret::V(-1);
        }
        t.suspended = true;
        if Some(id) != cur {
            self.kernel.unlink(id);
        }
        Ret::V(id as i32)
    }

    /// ResumeThread(id).
    pub(super) fn sys_resume(&mut self, id: u32) -> Ret {
        if Some(id) == self.kernel.current {
            return Ret::V(-1);
        }
        let Some(t) = self.kernel.thread_mut(id) else {
            return Ret::V(-1);
        };
        if !t.suspended {
            return Ret::V(-1);
        }
        t.suspended = false;
        if t.state == ThreadState::Run {
            self.kernel.link(id);
        }
        Ret::V(id as i32)
    }

    /// SetupThread(gp, stack, stack_size, args, root): the calling thread's stack (`stack == -1`:
    /// at the top of RAM, less 4 KiB as the real kernel leaves), its argv written to `args`
    /// (argc, then up to 16 pointers, then the strings). Returns the stack pointer.
    pub(super) fn sys_setup_thread(
        &mut self,
        gp: u32,
        stack: u32,
        size: u32,
        args: u32,
    ) -> Result<Ret, MachineError> {
        let top = if stack == u32::MAX {
            crate::bus::RAM_SIZE as u32 - 0x1000
        } else {
            stack.wrapping_add(size)
        };
        if args != 0 {
            // crt0's buffer: argc, 16 pointers, 256 bytes of strings.
            let list: Vec<String> = self.kernel.args.iter().take(16).cloned().collect();
            let at = |off: usize| args.wrapping_add(off as u32);
            let mut used = 0;
            let mut argc = 0;
            for a in &list {
                let mut bytes = a.as_bytes().to_vec();
                bytes.push(0);
                if used + bytes.len() > 256 {
                    break;
                }
                let payload = at(4 + 4 * 16 + used);
                let pc = self.cpu.cur_pc;
                self.bus
                    .write_bytes(payload, &bytes)
                    .map_err(|_| super::bad_addr("SetupThread", payload, pc))?;
                self.kwrite32(at(4 + 4 * argc), payload, "SetupThread")?;
                used += bytes.len();
                argc += 1;
            }
            self.kwrite32(args, argc as u32, "SetupThread")?;
            if argc < 16 {
                self.kwrite32(at(4 + 4 * argc), 0, "SetupThread")?;
            }
        }
        if let Some(id) = self.kernel.current
            && let Some(t) = self.kernel.thread_mut(id)
        {
            t.stack = top.wrapping_sub(size);
            t.stack_size = size;
            t.gp = gp;
        }
        Ok(Ret::V(top.wrapping_sub(STACK_RESERVE) as i32))
    }

    /// SetupHeap(base, size): the heap ends at `base + size`, or at the thread's stack when
    /// `size == -1`. Returns the end.
    pub(super) fn sys_setup_heap(&mut self, base: u32, size: u32) -> Ret {
        let end = if size == u32::MAX {
            self.kernel
                .current
                .and_then(|id| self.kernel.thread(id))
                .map_or(base, |t| t.stack)
        } else {
            base.wrapping_add(size)
        };
        self.kernel.heap_end = end;
        Ret::V(end as i32)
    }
}
