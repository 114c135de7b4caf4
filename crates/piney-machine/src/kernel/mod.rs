//! The EE kernel, emulated at a high level.
//!
//! Contract:
//! - No BIOS is loaded. A SYSCALL reaches `Machine::kernel_syscall` with the CPU already inside
//!   the exception (EPC, Status.EXL, pc at the vector). The kernel services it natively, puts the
//!   result in `$v0` and returns to the instruction after the SYSCALL with EXL cleared, or switches
//!   to another thread.
//! - Threads follow the PS2 kernel: ids 1..=255 (0 means "the calling thread"; the thread the
//!   program starts in is 1, with priority 0), strict priority scheduling (0 highest, 127 lowest)
//!   with FIFO order within a priority, round robin only through RotateThreadReadyQueue. The ready
//!   queue holds the running thread too, at the head of its priority, so a preempted thread resumes
//!   before its equals. A thread's whole register set (GPRs, HI/LO, SA, the FPU with ACC and
//!   FCR31, pc, and Status' interrupt enables) is saved natively when it is switched out.
//! - Guest code the kernel calls (INTC/DMAC handlers, alarm callbacks, SetSyscall handlers) runs
//!   with EXL clear and Status.IE clear (interrupts off), `$ra` pointing at
//!   [`stubs::HANDLER_RETURN`]; the kernel keeps the caller's state in a native frame stack.
//!   Interrupt handlers get `a0` = the INTC line or DMAC channel, `a1` = the handler's argument,
//!   `a2` = the interrupted pc, `$gp` as it was when the handler was added, and a kernel stack.
//!   A handler returning a negative value ends the chain for that cause. Thread switches asked for
//!   inside a handler (iSignalSema, iWakeupThread...) happen when the dispatch ends, and only to a
//!   thread of strictly better priority than the interrupted one (an iRotateThreadReadyQueue takes
//!   effect at that thread's next syscall). iWakeupThread cannot wake the interrupted (running)
//!   thread, as on the real kernel.
//! - Interrupt service order: INTC lines pending in I_STAT & I_MASK from line 0 up, each
//!   acknowledged before its handlers run, then DMAC causes in D_STAT (CIS & CIM, SIS, MEIS, BEIS)
//!   from the highest channel down, each cleared first. Kernel alarms ride on INTC line 12
//!   (timer 3) as on the real kernel. The COP0 timer (IM7) is masked at boot.
//! - The syscall table lives in guest memory at [`SYSCALL_TABLE`] (kseg0), 256 words, so that
//!   guest code can read and patch it as on the real kernel (ps2sdk's GetSyscallHandler finds it
//!   through the `lui`/`addiu` pair at 0x800002f0). An entry that still holds its native stub
//!   address is serviced natively; any other address is guest code, called like a function with
//!   the caller's `a0..a3`, whose `$v0` is the syscall's result (SetSyscall).
//! - While no thread can run the CPU idles at [`stubs::IDLE`] with interrupts enabled;
//!   `Machine::kernel_idle` tells the run loop to skip to the next event. When nothing that could
//!   wake a thread remains (no enabled handler, no alarm), the run ends with
//!   [`MachineError::Deadlock`].
//! - The run ends (exit status `a0`) when the program's first thread calls ExitDeleteThread (what
//!   ps2sdk's crt0 does when main returns), or when the last thread that is not dormant exits.

mod alarm;
mod exec;
mod intr;
mod misc;
mod sema;
pub mod stubs;
mod thread;

use std::collections::VecDeque;

use piney_ee::cpu::{Fpu, cop0reg, status};
use piney_ee::{Bus, Exception};

use crate::{Machine, MachineError};

pub use alarm::Alarm;
pub use intr::Handler;
pub use sema::Sema;
pub use thread::{Thread, ThreadState, WaitKind};

/// kseg0 address of the syscall table (256 words) in the kernel's part of RDRAM.
pub const SYSCALL_TABLE: u32 = 0x8001_0000;
/// Where ps2sdk's GetSyscallHandler reads the table's address from: a `lui` at 0x800002f0 and an
/// `addiu` at 0x800002f8, as in the real kernel's syscall dispatcher.
pub const SYSCALL_TABLE_REF: u32 = 0x8000_02f0;
/// Top of the kernel stack that interrupt handlers and alarm callbacks run on (64 KiB below it,
/// kernel RAM).
pub const KERNEL_STACK_TOP: u32 = 0x8003_0000;
/// Bytes the kernel reserves at the top of a thread's stack (the real kernel keeps a thread's
/// saved context there; ours is native, but the stack pointer a thread starts with is the same).
pub const STACK_RESERVE: u32 = 0x2a0;
/// Number of thread ids (0 is "self"; 1..=255 usable).
pub const MAX_THREADS: usize = 256;
/// Number of semaphore ids (1..=255 usable).
pub const MAX_SEMAS: usize = 256;

/// A thread's register set, as the kernel saves it at a thread switch or an interrupt.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Context {
    /// The 32 GPRs, 128 bits each.
    pub gpr: [u128; 32],
    /// HI and HI1.
    pub hi: u128,
    /// LO and LO1.
    pub lo: u128,
    /// SA.
    pub sa: u32,
    /// Where execution resumes.
    pub pc: u32,
    /// The FPU (FPRs, ACC, FCR31).
    pub fpu: Fpu,
    /// Status.IE and Status.EIE as the thread had them.
    pub ie: u32,
}

/// The Status bits that enable interrupts, saved per context.
const IE_BITS: u32 = status::IE | status::EIE;

impl Context {
    /// The CPU's registers, resuming at `pc`.
    pub fn save(cpu: &piney_ee::Cpu, pc: u32) -> Self {
        Self {
            gpr: cpu.gpr,
            hi: cpu.hi,
            lo: cpu.lo,
            sa: cpu.sa,
            pc,
            fpu: cpu.fpu.clone(),
            ie: cpu.cop0.regs[cop0reg::STATUS] & IE_BITS,
        }
    }

    /// Put these registers into the CPU and continue at `pc` outside any exception.
    pub fn load(&self, cpu: &mut piney_ee::Cpu) {
        cpu.gpr = self.gpr;
        cpu.hi = self.hi;
        cpu.lo = self.lo;
        cpu.sa = self.sa;
        cpu.fpu = self.fpu.clone();
        let s = &mut cpu.cop0.regs[cop0reg::STATUS];
        *s = (*s & !(IE_BITS | status::EXL)) | self.ie;
        cpu.in_delay_slot = false;
        cpu.jump_to(self.pc);
    }
}

/// A guest call the kernel is waiting on (the caller's state, natively).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
enum Frame {
    /// Interrupt dispatch: the interrupted context and the handler calls still to make.
    Interrupt {
        /// The interrupted thread (or idle loop).
        saved: Box<Context>,
        /// Handler calls not made yet.
        calls: VecDeque<HandlerCall>,
        /// The group of the call now running (a negative return drops the rest of its group).
        group: u32,
    },
    /// A SetSyscall handler: where the SYSCALL returns to.
    Syscall {
        /// The caller's `$ra`.
        ra: u128,
        /// The instruction after the SYSCALL.
        ret_pc: u32,
        /// Status before the call.
        status: u32,
    },
}

/// One guest handler to call during interrupt dispatch.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
struct HandlerCall {
    addr: u32,
    a0: u32,
    a1: u32,
    a2: u32,
    gp: u32,
    /// Calls of one cause share a group.
    group: u32,
}

/// The mode set by SetGsCrt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GsCrt {
    /// Interlaced (1) or progressive (0).
    pub interlace: u32,
    /// The video mode (2 NTSC, 3 PAL, 0x1a.. VESA, 0x50.. DTV).
    pub mode: u32,
    /// Field (0) or frame (1) mode.
    pub ffmd: u32,
}

impl GsCrt {
    /// SMODE1 for this mode. NTSC (2) and PAL (3) take the fields ps2sdk's graph library
    /// writes for them (RC 4, LC 32, T1248 1, CMOD, PRST 1, SINT 1, SPML 4, CLKSEL 1, NVCK 1,
    /// SLCK2 1, VCKSEL 1); DTV and VESA modes the same with CMOD 0 (no TV window).
    pub fn smode1(&self) -> u64 {
        let cmod: u64 = match self.mode {
            2 => 2,
            3 => 3,
            _ => 0,
        };
        4 | 32 << 3
            | 1 << 10
            | cmod << 13
            | 1 << 16
            | 1 << 17
            | 4 << 21
            | 1 << 30
            | 1 << 32
            | 1 << 33
            | 1 << 34
    }
}

/// The OSD configuration word as GetOsdConfigParam returns it by default: SPDIF on, 4:3, RGB
/// output, English (`language` 1, not Japanese), config version 2, timezone offset 0.
pub const DEFAULT_OSD_CONFIG: u32 = (1 << 4) | (2 << 13) | (1 << 16);

/// The kernel's state.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Kernel {
    /// Threads by id (index 0 unused: id 0 means "self").
    pub threads: Vec<Option<Thread>>,
    /// Runnable threads in dispatch order: by priority, FIFO within one; the running thread is
    /// at the head of its priority.
    pub ready: Vec<u32>,
    /// The running thread (None: idle, or no thread set up).
    pub current: Option<u32>,
    /// The program's first thread.
    pub main_thread: Option<u32>,
    /// Semaphores by id (index 0 unused).
    pub semas: Vec<Option<Sema>>,
    /// INTC handlers, in call order.
    pub intc_handlers: Vec<Handler>,
    /// DMAC handlers, in call order.
    pub dmac_handlers: Vec<Handler>,
    next_handler_id: u32,
    /// The handler SetSyscall(0x12c) installed for INTC line 12, by id.
    timer3_handler: Option<u32>,
    /// Alarms by id.
    pub alarms: Vec<Option<Alarm>>,
    /// Alarms that expired and wait for their callback.
    expired_alarms: Vec<u32>,
    frames: Vec<Frame>,
    /// The OSD configuration (Get/SetOsdConfigParam).
    pub osd_config: u32,
    /// The extended OSD configuration (Get/SetOsdConfigParam2).
    pub osd_config2: Vec<u8>,
    /// The last SetGsCrt.
    pub gs_crt: Option<GsCrt>,
    /// The IMR value GsPutIMR last set (0x7f00, all masked, at boot), which GsGetIMR returns.
    pub gs_imr: u32,
    /// SetVSyncFlag's two pointers, written at the next VBlank start.
    pub vsync_flag: Option<(u32, u32)>,
    /// The arguments SetupThread gives the program (argv).
    pub args: Vec<String>,
    /// The end of the heap (SetupHeap/EndOfHeap).
    pub heap_end: u32,
    /// The handlers set by SetVTLBRefillHandler/SetVCommonHandler/SetVInterruptHandler, by cause.
    pub vector_handlers: [u32; 32],
}

impl Default for Kernel {
    fn default() -> Self {
        Self {
            threads: vec![None; MAX_THREADS],
            ready: Vec::new(),
            current: None,
            main_thread: None,
            semas: vec![None; MAX_SEMAS],
            intc_handlers: Vec::new(),
            dmac_handlers: Vec::new(),
            next_handler_id: 1,
            timer3_handler: None,
            alarms: vec![None; alarm::MAX_ALARMS],
            expired_alarms: Vec::new(),
            frames: Vec::new(),
            osd_config: DEFAULT_OSD_CONFIG,
            osd_config2: Vec::new(),
            gs_crt: None,
            gs_imr: 0x7f00,
            vsync_flag: None,
            args: Vec::new(),
            heap_end: 0,
            vector_handlers: [0; 32],
        }
    }
}

impl Kernel {
    /// The thread with this id, if it exists.
    pub fn thread(&self, id: u32) -> Option<&Thread> {
        self.threads.get(id as usize).and_then(Option::as_ref)
    }
    fn thread_mut(&mut self, id: u32) -> Option<&mut Thread> {
        self.threads.get_mut(id as usize).and_then(Option::as_mut)
    }
    /// Whether guest code called by the kernel (a handler) is running.
    pub fn in_handler(&self) -> bool {
        !self.frames.is_empty()
    }
}

/// What a kernel service called by a native function ([`Machine::native_kernel_call`]) did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum NativeCall {
    /// The calling thread goes on: the service's `$v0`, and the pc is the resume address.
    Returned(i32),
    /// The service switched threads (the caller blocked, or woke a better one): the caller's
    /// registers are saved to resume at the resume address, with `$v0` set, when it runs again.
    /// The native function must return at once, touching no register.
    Switched,
}

impl Machine {
    /// Call kernel service `number` (a syscall number; negative for the `i` variants) from a
    /// native function, as a guest `syscall` at the current pc would: `args` in `a0..a3`, the
    /// result in `$v0`, and the thread continues at `resume_pc`, now or, when the call blocks
    /// or switches threads, once it is scheduled again. Native functions that wait (a native
    /// `SleepThread` loop) keep their state in registers the context switch saves.
    pub fn native_kernel_call(
        &mut self,
        number: i32,
        args: [u32; 4],
        resume_pc: u32,
    ) -> Result<NativeCall, MachineError> {
        for (i, a) in args.into_iter().enumerate() {
            self.cpu.set32(4 + i, a);
        }
        let before = self.kernel.current;
        let pc = self.cpu.pc;
        self.native_syscall(number, resume_pc, pc)?;
        if self.kernel.current == before && self.cpu.pc == resume_pc {
            Ok(NativeCall::Returned(self.cpu.r32(2) as i32))
        } else {
            Ok(NativeCall::Switched)
        }
    }
}

/// What a syscall service leaves in `$v0`.
#[derive(serde::Serialize, serde::Deserialize)]
enum Ret {
    /// A 32-bit result, sign-extended.
    V(i32),
    /// `$v0` already set, or the call does not return to its caller.
    Done,
    /// Another program has replaced the caller (LoadExecPS2, ExecPS2): nothing of the caller's
    /// context is resumed.
    Replaced,
}

/// The error for a guest address the kernel could not access.
fn bad_addr(what: &str, addr: u32, pc: u32) -> MachineError {
    MachineError::Kernel {
        what: format!("{what}: bad guest address {addr:#010x}"),
        pc,
    }
}

impl Machine {
    /// Start the loaded program at `entry`, as LoadExecPS2 leaves it: thread 1 running at
    /// priority 0, the syscall table in kernel memory.
    pub(crate) fn kernel_boot(&mut self, entry: u32) {
        let args = std::mem::take(&mut self.kernel.args);
        self.kernel = Kernel {
            args,
            ..Kernel::default()
        };
        // The table reference ps2sdk's GetSyscallHandler decodes: `lui $k1, hi` / `addiu $k1, lo`.
        let table = SYSCALL_TABLE;
        let _ = self
            .bus
            .write32(SYSCALL_TABLE_REF, 0x3c1b_0000 | (table >> 16));
        let _ = self
            .bus
            .write32(SYSCALL_TABLE_REF + 8, 0x277b_0000 | (table & 0xffff));
        for n in 0..stubs::SYSCALLS {
            let _ = self.bus.write32(table + 4 * n, stubs::native_entry(n));
        }
        let top = crate::bus::RAM_SIZE as u32;
        let mut t = Thread::new(0, top - 0x1000, 0x1000, 0, 0, 0, 0);
        t.state = ThreadState::Run;
        self.kernel.threads[1] = Some(t);
        self.kernel.ready.push(1);
        self.kernel.current = Some(1);
        self.kernel.main_thread = Some(1);
        self.cpu.set32(29, top - STACK_RESERVE);
        // The kernel runs programs as the console's does, Status 0x70030c13 before its ERET
        // (0x70030c11 after): COP0-2 usable, user mode, EDI (so that user code's EI and DI take
        // effect: ps2sdk's EIntr after a kernel-mode section relies on it), EIE and IE, and only
        // INTC (IM2) and DMAC (IM3) unmasked: the COP0 timer (IM7) is off.
        self.cpu.cop0.regs[cop0reg::STATUS] = status::CU0
            | status::CU1
            | status::CU2
            | status::EDI
            | status::EIE
            | status::IM2
            | status::IM3
            | 2 << 3 // KSU: user mode
            | status::IE;
        self.cpu.jump_to(entry);
    }

    /// Service a SYSCALL (the number is in $v1).
    pub(crate) fn kernel_syscall(&mut self, e: Exception) -> Result<(), MachineError> {
        let pc = e.pc;
        if stubs::is(pc, stubs::HANDLER_RETURN) {
            return self.handler_returned(pc);
        }
        if e.in_delay_slot {
            return Err(MachineError::Kernel {
                what: "SYSCALL in a branch delay slot".into(),
                pc,
            });
        }
        let ret_pc = pc.wrapping_add(4);
        if let Some(n) = stubs::native_number(pc) {
            return self.native_syscall(n as i32, ret_pc, pc);
        }
        let number = self.cpu.r32(3) as i32;
        let n = number.unsigned_abs();
        if n < stubs::SYSCALLS {
            let entry = self.bus.read32(SYSCALL_TABLE + 4 * n).unwrap_or(0);
            if entry != 0 && entry != stubs::native_entry(n) {
                return self.custom_syscall(n, entry, ret_pc);
            }
        }
        self.native_syscall(number, ret_pc, pc)
    }

    /// Leave the syscall exception: `$v0` per `ret`, continue at `ret_pc` with EXL clear, then
    /// switch threads if the call changed who should run.
    fn finish_syscall(&mut self, ret: Ret, ret_pc: u32) {
        match ret {
            Ret::V(v) => self.cpu.set32(2, v as u32),
            Ret::Done => {}
            // The kernel started the new program in kernel_boot.
            Ret::Replaced => return,
        }
        self.cpu.cop0.regs[cop0reg::STATUS] &= !status::EXL;
        self.cpu.jump_to(ret_pc);
        self.reschedule();
    }

    /// Run a SetSyscall handler: a guest function called with the caller's arguments.
    fn custom_syscall(&mut self, n: u32, entry: u32, ret_pc: u32) -> Result<(), MachineError> {
        let st = self.cpu.cop0.regs[cop0reg::STATUS] & !status::EXL;
        self.kernel.frames.push(Frame::Syscall {
            ra: self.cpu.gpr[31],
            ret_pc,
            status: st,
        });
        self.cpu.set32(3, n);
        self.cpu.set32(31, stubs::HANDLER_RETURN);
        self.cpu.cop0.regs[cop0reg::STATUS] = st & !status::IE;
        self.cpu.jump_to(entry);
        Ok(())
    }

    /// A guest function the kernel called returned (through [`stubs::HANDLER_RETURN`]).
    fn handler_returned(&mut self, pc: u32) -> Result<(), MachineError> {
        match self.kernel.frames.last_mut() {
            Some(Frame::Syscall { .. }) => {
                let Some(Frame::Syscall {
                    ra,
                    ret_pc,
                    status: st,
                }) = self.kernel.frames.pop()
                else {
                    unreachable!()
                };
                self.cpu.gpr[31] = ra;
                self.cpu.cop0.regs[cop0reg::STATUS] = st;
                self.cpu.jump_to(ret_pc);
                if self.kernel.frames.is_empty() {
                    self.reschedule();
                }
                Ok(())
            }
            Some(Frame::Interrupt { calls, group, .. }) => {
                if (self.cpu.r32(2) as i32) < 0 {
                    let g = *group;
                    calls.retain(|c| c.group != g);
                }
                self.next_handler_call();
                Ok(())
            }
            None => Err(MachineError::Kernel {
                what: "return to the kernel's handler-return stub outside any handler".into(),
                pc,
            }),
        }
    }

    /// Switch to the thread that should run, if it is not the running one. Deferred while guest
    /// handler code runs (the dispatch's end calls it again).
    fn reschedule(&mut self) {
        if self.kernel.in_handler() {
            return;
        }
        let next = self.kernel.ready.first().copied();
        if next == self.kernel.current {
            return;
        }
        if let Some(cur) = self.kernel.current {
            let ctx = Context::save(&self.cpu, self.cpu.pc);
            if let Some(t) = self.kernel.thread_mut(cur) {
                t.ctx = Some(Box::new(ctx));
            }
        }
        self.kernel.current = next;
        match next
            .and_then(|id| self.kernel.thread_mut(id))
            .and_then(|t| t.ctx.take())
        {
            Some(ctx) => ctx.load(&mut self.cpu),
            None => self.enter_idle(),
        }
    }

    /// Put the CPU in the idle loop, interruptible.
    fn enter_idle(&mut self) {
        self.kernel.current = None;
        let s = &mut self.cpu.cop0.regs[cop0reg::STATUS];
        *s = (*s & !status::EXL) | IE_BITS;
        self.cpu.in_delay_slot = false;
        self.cpu.jump_to(stubs::IDLE);
    }

    /// Any other exception: the run stops naming it.
    pub(crate) fn kernel_exception(&mut self, e: Exception) -> Result<(), MachineError> {
        Err(MachineError::Cpu(e))
    }

    /// Whether no thread can run, so that the run loop may skip to the next event. Errors with
    /// [`MachineError::Deadlock`] when nothing could ever wake a thread.
    pub(crate) fn kernel_idle(&mut self) -> Result<bool, MachineError> {
        let k = &self.kernel;
        if k.current.is_some() || k.main_thread.is_none() || k.in_handler() {
            return Ok(false);
        }
        if self.irx_run.is_some() {
            // The EE program only sleeps: the IOP decides when the run ends.
            self.irx_run_check()?;
            return Ok(true);
        }
        if !self.can_wake() {
            return Err(MachineError::Deadlock { pc: self.cpu.pc });
        }
        Ok(true)
    }

    /// Whether some enabled interrupt handler or alarm could still run guest code.
    fn can_wake(&self) -> bool {
        let mask = self.bus.intc.mask;
        let dmask = self.bus.io[(0xe010 / 4) as usize] >> 16;
        self.kernel.alarms.iter().any(Option::is_some)
            || !self.kernel.expired_alarms.is_empty()
            || self.bus.intc.pending()
            || self.bus.dmac_irq_pending()
            || self
                .kernel
                .intc_handlers
                .iter()
                .any(|h| h.enabled && mask & (1 << h.cause) != 0)
            || self
                .kernel
                .dmac_handlers
                .iter()
                .any(|h| h.enabled && dmask & (1 << h.cause) != 0)
    }

    /// Read a guest word for a kernel service.
    fn kread32(&mut self, addr: u32, what: &str) -> Result<u32, MachineError> {
        let pc = self.cpu.cur_pc;
        self.bus.read32(addr).map_err(|_| bad_addr(what, addr, pc))
    }

    /// Write a guest word for a kernel service.
    fn kwrite32(&mut self, addr: u32, v: u32, what: &str) -> Result<(), MachineError> {
        let pc = self.cpu.cur_pc;
        self.bus
            .write32(addr, v)
            .map_err(|_| bad_addr(what, addr, pc))
    }

    /// The syscall's arguments a0..a3 (32-bit).
    fn args4(&self) -> [u32; 4] {
        [
            self.cpu.r32(4),
            self.cpu.r32(5),
            self.cpu.r32(6),
            self.cpu.r32(7),
        ]
    }

    /// Service syscall `number` natively (negative: the interrupt-context variant).
    fn native_syscall(&mut self, number: i32, ret_pc: u32, pc: u32) -> Result<(), MachineError> {
        let [a0, a1, a2, a3] = self.args4();
        let int = number < 0;
        let ret = match number {
            // Thread management.
            0x20 => self.sys_create_thread(a0)?,
            0x21 => self.sys_delete_thread(a0),
            0x22 => self.sys_start_thread(a0, a1),
            0x23 => self.sys_exit_thread(false, pc)?,
            0x24 => self.sys_exit_thread(true, pc)?,
            0x25 | -0x26 => self.sys_terminate_thread(a0),
            // DisableDispatchThread / EnableDispatchThread: the real kernel does not implement
            // them (ps2sdk: "not supported"); they change nothing.
            0x27 | 0x28 => Ret::V(0),
            0x29 | -0x2a => self.sys_change_priority(a0, a1),
            0x2b | -0x2c => self.sys_rotate_ready_queue(a0),
            0x2d | -0x2e => self.sys_release_wait(a0),
            0x2f | -0x2f => Ret::V(self.kernel.current.unwrap_or(0) as i32),
            0x30 | -0x31 => self.sys_refer_thread_status(a0, a1)?,
            0x32 => self.sys_sleep(pc)?,
            0x33 | -0x34 => self.sys_wakeup(a0),
            0x35 | -0x36 => self.sys_cancel_wakeup(a0),
            0x37 | -0x38 => self.sys_suspend(a0),
            0x39 | -0x3a => self.sys_resume(a0),
            0x3c => self.sys_setup_thread(a0, a1, a2, a3)?,
            0x3d => self.sys_setup_heap(a0, a1),
            0x3e => Ret::V(self.kernel.heap_end as i32),
            // Semaphores.
            0x40 => self.sys_create_sema(a0)?,
            0x41 | -0x49 => self.sys_delete_sema(a0),
            0x42 | -0x43 => self.sys_signal_sema(a0),
            0x44 => self.sys_wait_sema(a0, pc)?,
            0x45 | -0x46 => self.sys_poll_sema(a0),
            0x47 | -0x48 => self.sys_refer_sema(a0, a1)?,
            // Interrupts.
            0x10 => self.sys_add_handler(false, a0, a1, a2, a3),
            0x11 => self.sys_remove_handler(false, a0, a1),
            0x12 => self.sys_add_handler(true, a0, a1, a2, a3),
            0x13 => self.sys_remove_handler(true, a0, a1),
            0x14 | -0x1a => self.sys_enable_intc(a0, true),
            0x15 | -0x1b => self.sys_enable_intc(a0, false),
            0x16 | -0x1c => self.sys_enable_dmac(a0, true),
            0x17 | -0x1d => self.sys_enable_dmac(a0, false),
            0x5c | -0x5c => self.sys_enable_handler(false, a0, a1, true),
            0x5d | -0x5d => self.sys_enable_handler(false, a0, a1, false),
            0x5e | -0x5e => self.sys_enable_handler(true, a0, a1, true),
            0x5f | -0x5f => self.sys_enable_handler(true, a0, a1, false),
            // Alarms (the kernel's, and the numbers newer ps2sdk gives its own).
            0x18 | -0x1e | 0xfc | -0xfd => self.sys_set_alarm(a0, a1, a2),
            0x19 | -0x1f | 0xfe | -0xff => self.sys_release_alarm(a0),
            // SIF.
            0x76 | -0x76 => Ret::V(self.sif_dma_stat(a0)),
            0x77 | -0x77 => Ret::V(self.sif_set_dma(a0, a1)? as i32),
            0x78 | -0x78 => {
                self.sif_set_dchain();
                Ret::V(0)
            }
            0x79 => Ret::V(self.sif_set_reg(a0, a1) as i32),
            0x7a => Ret::V(self.sif_get_reg(a0) as i32),
            0x6b => {
                self.sif_stop_dma();
                Ret::V(0)
            }
            _ => match self.misc_syscall(number, [a0, a1, a2, a3], pc)? {
                Some(r) => r,
                None => return Err(MachineError::UnknownSyscall { number, pc }),
            },
        };
        let _ = int;
        self.finish_syscall(ret, ret_pc);
        Ok(())
    }
}
