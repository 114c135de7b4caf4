//! The IOP's kernel and system libraries, emulated natively (high-level emulation).
//!
//! Contract:
//! - There is no BIOS. Each system library (loadcore, sysmem, sysclib, stdio, thbase, thsemap,
//!   thevent, thmsgbx, thvpool, thfpool, intrman, timrman, heaplib, vblank, modload, sifman,
//!   sifcmd...) is a table of native functions ([`LibDef`]). At boot every function gets an
//!   address of its own in the kernel's low RAM ([`NATIVE_BASE`]..) and each library an export
//!   table in RAM in the console's layout, registered with loadcore exactly as a module's
//!   RegisterLibraryEntries would, inside its module's text ([`image`]: the module chain from
//!   0x800 and the library chain as programs that read the IOP's memory find them). A module's
//!   import stubs are linked to those addresses as the console's loadcore links them (`j
//!   address`), so guest code calls the kernel by jumping there; when the CPU reaches such an
//!   address the native function runs instead, reading its arguments from the registers and the
//!   stack (o32) and returning in v0 to $ra.
//! - The kernel's objects (threads, semaphores, event flags, message boxes, pools) live in Rust,
//!   but each has a control block in the kernel's heap in IOP RAM, so that handles are the
//!   console's (`address << 5 | id << 1 | 1`) and memory use matches.
//! - Threads: priorities 1..126 (lower runs first), FIFO within a priority, a woken thread of
//!   higher priority preempts at once, interrupt handlers run in interrupt context and their
//!   wake-ups take effect when the handler returns.
//! - A native function that must run guest code (a module's entry, an interrupt or alarm
//!   handler, an RPC server's function) sets the CPU up to call it with $ra at one of the
//!   kernel's return points ([`ret`]), and continues when the CPU reaches it.

pub mod bootmods;
pub mod clib;
pub mod dmacman;
pub mod heaplib;
pub mod image;
pub mod intr;
pub mod ioman;
pub mod loadcore;
pub mod pools;
pub mod sif;
pub mod sifcmd;
pub mod sync;
pub mod sysmem;
pub mod thread;
pub mod time;
pub mod timrman;

use std::collections::{BTreeMap, HashSet, VecDeque};

use crate::{Iop, IopError};

/// The first native function address: the kernel's image ([`image`]) starts here, and its
/// native function slots lie in it, between the modules' infos and export tables. Each function
/// has an 8-byte slot (two words of `jr $ra; nop` in RAM, for anyone who reads them; the CPU
/// never executes them).
pub const NATIVE_BASE: u32 = image::IMAGE_BASE;
/// The end of the kernel's image and its native function slots (room after the boot image for
/// native rom modules loaded later, such as rom0:LIBSD).
pub const NATIVE_END: u32 = 0x0000_3800;
/// The SYSCALL code marking a linked import stub's trap into the kernel (bits 16..19 of the
/// 20-bit code; the slot number is in the low 16 bits).
pub const STUB_TRAP: u32 = 0xf_0000;
/// The bits of a SYSCALL code that identify [`STUB_TRAP`].
pub const STUB_TRAP_MASK: u32 = 0xf_0000;
/// Kernel return points (one slot each) after the function slots.
pub const RETURN_BASE: u32 = NATIVE_END;
/// The end of the return points.
pub const RETURN_END: u32 = RETURN_BASE + 0x100;

/// Kernel return points: where guest code called by the kernel returns to.
pub mod ret {
    use super::RETURN_BASE;
    /// A thread's entry function returned: the thread exits (ExitThread).
    pub const THREAD_EXIT: u32 = RETURN_BASE;
    /// An interrupt handler returned.
    pub const INTR_HANDLER: u32 = RETURN_BASE + 8;
    /// An alarm handler returned (v0: the next interval, 0 to stop).
    pub const ALARM_HANDLER: u32 = RETURN_BASE + 16;
    /// A module's entry returned (v0: the start result).
    pub const MODULE_START: u32 = RETURN_BASE + 24;
    /// The module loader thread's main loop.
    pub const LOADER_LOOP: u32 = RETURN_BASE + 32;
    /// A guest function called by a native one returned: the native continuation runs.
    pub const CONTINUE: u32 = RETURN_BASE + 40;
}

/// What a native function did.
#[derive(serde::Serialize, serde::Deserialize)]
pub enum Ret {
    /// Return this value in v0 to the caller ($ra).
    V(u32),
    /// The function arranged the CPU itself (a context switch, a call into guest code, a jump).
    Done,
}

/// A native function.
pub type NativeFn = fn(&mut Iop) -> Result<Ret, IopError>;

/// One native library: its name (at most 8 bytes), version (major << 8 | minor) and functions by
/// export index. Indices not listed are unused slots of the console's table (they return at
/// once, as the console's `_retonly` entries do).
pub struct LibDef {
    /// The library name.
    pub name: &'static str,
    /// major << 8 | minor.
    pub version: u16,
    /// (index, name, function).
    pub funcs: &'static [(u16, &'static str, NativeFn)],
}

/// A native function slot.
#[derive(Clone, Copy)]
pub struct Native {
    /// The library name.
    pub lib: &'static str,
    /// The export index.
    pub index: u16,
    /// The function's name.
    pub name: &'static str,
    /// The function, or `None` for an unused slot.
    pub func: Option<NativeFn>,
}

/// Thread status bits (ReferThreadStatus's `status`).
pub mod ths {
    /// Running.
    pub const RUN: u32 = 0x01;
    /// Ready to run.
    pub const READY: u32 = 0x02;
    /// Waiting.
    pub const WAIT: u32 = 0x04;
    /// Suspended.
    pub const SUSPEND: u32 = 0x08;
    /// Created or exited, not running.
    pub const DORMANT: u32 = 0x10;
}

/// Kernel error codes (the console's `kerr.h`).
pub mod kerr {
    #![allow(missing_docs)]
    pub const OK: i32 = 0;
    pub const ERROR: i32 = -1;
    pub const ILLEGAL_CONTEXT: i32 = -100;
    pub const ILLEGAL_INTRCODE: i32 = -101;
    pub const CPUDI: i32 = -102;
    pub const INTRDISABLE: i32 = -103;
    pub const FOUND_HANDLER: i32 = -104;
    pub const NOTFOUND_HANDLER: i32 = -105;
    pub const NO_TIMER: i32 = -150;
    pub const ILLEGAL_TIMERID: i32 = -151;
    pub const ILLEGAL_SOURCE: i32 = -152;
    pub const ILLEGAL_PRESCALE: i32 = -153;
    pub const TIMER_BUSY: i32 = -154;
    pub const TIMER_NOT_SETUP: i32 = -155;
    pub const TIMER_NOT_INUSE: i32 = -156;
    pub const LINKERR: i32 = -200;
    pub const ILLEGAL_OBJECT: i32 = -201;
    pub const UNKNOWN_MODULE: i32 = -202;
    pub const NOFILE: i32 = -203;
    pub const FILEERR: i32 = -204;
    pub const MEMINUSE: i32 = -205;
    pub const ALREADY_STARTED: i32 = -206;
    pub const NOT_STARTED: i32 = -207;
    pub const ALREADY_STOPPED: i32 = -208;
    pub const ALREADY_STOPPING: i32 = -216;
    pub const CAN_NOT_STOP: i32 = -209;
    pub const NOT_STOPPED: i32 = -210;
    pub const NOT_REMOVABLE: i32 = -211;
    pub const LIBRARY_FOUND: i32 = -212;
    pub const LIBRARY_NOTFOUND: i32 = -213;
    pub const ILLEGAL_LIBRARY: i32 = -214;
    pub const LIBRARY_INUSE: i32 = -215;
    pub const NO_MEMORY: i32 = -400;
    pub const ILLEGAL_ATTR: i32 = -401;
    pub const ILLEGAL_ENTRY: i32 = -402;
    pub const ILLEGAL_PRIORITY: i32 = -403;
    pub const ILLEGAL_STACK_SIZE: i32 = -404;
    pub const ILLEGAL_MODE: i32 = -405;
    pub const ILLEGAL_THID: i32 = -406;
    pub const UNKNOWN_THID: i32 = -407;
    pub const UNKNOWN_SEMID: i32 = -408;
    pub const UNKNOWN_EVFID: i32 = -409;
    pub const UNKNOWN_MBXID: i32 = -410;
    pub const UNKNOWN_VPLID: i32 = -411;
    pub const UNKNOWN_FPLID: i32 = -412;
    pub const DORMANT: i32 = -413;
    pub const NOT_DORMANT: i32 = -414;
    pub const NOT_SUSPEND: i32 = -415;
    pub const NOT_WAIT: i32 = -416;
    pub const CAN_NOT_WAIT: i32 = -417;
    pub const RELEASE_WAIT: i32 = -418;
    pub const SEMA_ZERO: i32 = -419;
    pub const SEMA_OVF: i32 = -420;
    pub const EVF_COND: i32 = -421;
    pub const EVF_MULTI: i32 = -422;
    pub const EVF_ILPAT: i32 = -423;
    pub const MBOX_NOMSG: i32 = -424;
    pub const WAIT_DELETE: i32 = -425;
    pub const ILLEGAL_MEMBLOCK: i32 = -426;
    pub const ILLEGAL_MEMSIZE: i32 = -427;
}

/// The registers a thread keeps while it does not run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Context {
    /// General registers.
    pub gpr: [u32; 32],
    /// HI.
    pub hi: u32,
    /// LO.
    pub lo: u32,
    /// The next instruction.
    pub pc: u32,
    /// The one after it.
    pub next_pc: u32,
    /// Whether `pc` is a delay slot.
    pub in_delay: bool,
}

/// What a waiting thread waits for (ReferThreadStatus's wait type in comments).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Wait {
    /// Not waiting.
    None,
    /// SleepThread (1).
    Sleep,
    /// DelayThread (2), until the alarm with this id.
    Delay(u32),
    /// WaitSema (3).
    Sema(u32),
    /// WaitEventFlag (4): flag, pattern, mode, where to store the bits.
    EventFlag {
        /// The flag.
        id: u32,
        /// The pattern waited for.
        bits: u32,
        /// WEF_* mode.
        mode: u32,
        /// The guest's result pointer (0 for none).
        res: u32,
    },
    /// ReceiveMbx (5): box, where to store the message pointer.
    Mbx {
        /// The box.
        id: u32,
        /// The guest's result pointer.
        res: u32,
    },
    /// AllocateVpl (6): pool, size.
    Vpl {
        /// The pool.
        id: u32,
        /// The size asked for.
        size: u32,
    },
    /// AllocateFpl (7).
    Fpl(u32),
    /// A native module waits for something of its own (an RPC request...).
    Native(u32),
}

impl Wait {
    /// The console's wait type number.
    pub fn kind(&self) -> u32 {
        match self {
            Wait::None => 0,
            Wait::Sleep => 1,
            Wait::Delay(_) => 2,
            Wait::Sema(_) => 3,
            Wait::EventFlag { .. } => 4,
            Wait::Mbx { .. } => 5,
            Wait::Vpl { .. } => 6,
            Wait::Fpl(_) => 7,
            Wait::Native(_) => 0,
        }
    }

    /// The object waited on (ReferThreadStatus's waitId).
    pub fn object(&self) -> u32 {
        match *self {
            Wait::Sema(id) | Wait::Fpl(id) | Wait::Native(id) => id,
            Wait::EventFlag { id, .. } | Wait::Mbx { id, .. } | Wait::Vpl { id, .. } => id,
            _ => 0,
        }
    }
}

/// What a native function waiting for guest code to return does next.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Cont {
    /// Return `v0` unchanged to `ra` with `sp` restored (a plain native -> guest -> native
    /// call that ends by returning the guest's result to the native's caller).
    ReturnTo {
        /// The caller's return address.
        ra: u32,
        /// The caller's stack pointer.
        sp: u32,
    },
    /// A native module's own continuation, by tag and data (see the module).
    Module {
        /// Which continuation.
        tag: u32,
        /// Its data.
        data: [u32; 6],
    },
}

/// A thread.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Thread {
    /// The handle.
    pub id: u32,
    /// The control block's address in the kernel heap.
    pub block: u32,
    /// TH_* attributes.
    pub attr: u32,
    /// The creator's option word.
    pub option: u32,
    /// The entry function.
    pub entry: u32,
    /// The stack's lowest address.
    pub stack: u32,
    /// The stack's size.
    pub stack_size: u32,
    /// The gp the thread starts with (its creator's).
    pub gp: u32,
    /// The priority it was created with.
    pub init_priority: u32,
    /// The current priority (0 until started, as the console reports).
    pub priority: u32,
    /// THS_* status.
    pub status: u32,
    /// What it waits for.
    pub wait: Wait,
    /// Wake-ups counted while not sleeping.
    pub wakeup_count: u32,
    /// The registers while not running.
    pub ctx: Context,
    /// Native continuations waiting for guest calls made on this thread to return.
    pub cont: Vec<Cont>,
}

/// The kernel's state.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct Kernel {
    /// Native function slots, by (address - NATIVE_BASE) / 8.
    pub natives: Vec<Native>,
    /// Native addresses by (library, index).
    #[serde(with = "crate::state::native_addr")]
    pub native_addr: BTreeMap<(&'static str, u16), u32>,
    /// Threads by handle.
    pub threads: BTreeMap<u32, Thread>,
    /// Ready threads by priority, FIFO.
    pub ready: Vec<VecDeque<u32>>,
    /// The running thread; `None` while the IOP idles.
    pub current: Option<u32>,
    /// Per-kind id counters (the console's tag ids, 6 bits used in handles).
    pub next_ids: [u32; 8],
    /// The kernel's object heap (heaplib) in IOP RAM.
    pub heap: u32,
    /// Interrupt context, while a handler runs.
    pub intr: Option<intr::IntrFrame>,
    /// The stack interrupt handlers run on.
    pub intr_stack: u32,
    /// Continuations of native code waiting for guest code called in interrupt context.
    pub intr_cont: Vec<Cont>,
    /// Semaphores.
    pub semas: BTreeMap<u32, sync::Sema>,
    /// Event flags.
    pub evfs: BTreeMap<u32, sync::EventFlag>,
    /// Message boxes.
    pub mbxs: BTreeMap<u32, sync::Mbx>,
    /// Variable-length pools.
    pub vpls: BTreeMap<u32, pools::Vpl>,
    /// Fixed-length pools.
    pub fpls: BTreeMap<u32, pools::Fpl>,
    /// Alarms.
    pub alarms: time::Alarms,
    /// System memory.
    pub sysmem: sysmem::SysMem,
    /// Libraries and modules.
    pub loadcore: loadcore::LoadCore,
    /// The vblank library's state.
    pub vblank: time::Vblank,
    /// sifman's state.
    pub sifman: sif::SifMan,
    /// sifcmd's state.
    pub sifcmd: sifcmd::SifCmd,
    /// timrman's hard timers.
    pub timers: [timrman::Timer; 6],
    /// excepman's and secrman's state.
    pub boot: bootmods::BootState,
    /// Messages already printed once.
    logged: HashSet<String>,
}

impl Default for Kernel {
    fn default() -> Self {
        Self {
            natives: Vec::new(),
            native_addr: BTreeMap::new(),
            threads: BTreeMap::new(),
            ready: vec![VecDeque::new(); 128],
            current: None,
            next_ids: [0; 8],
            heap: 0,
            intr: None,
            intr_stack: 0,
            intr_cont: Vec::new(),
            semas: BTreeMap::new(),
            evfs: BTreeMap::new(),
            mbxs: BTreeMap::new(),
            vpls: BTreeMap::new(),
            fpls: BTreeMap::new(),
            alarms: time::Alarms::default(),
            sysmem: sysmem::SysMem::default(),
            loadcore: loadcore::LoadCore::default(),
            vblank: time::Vblank::default(),
            sifman: sif::SifMan::default(),
            sifcmd: sifcmd::SifCmd::default(),
            timers: timrman::table(),
            boot: bootmods::BootState::default(),
            logged: HashSet::new(),
        }
    }
}

/// Heap tags of the kernel's control blocks (the console's TAG_* values).
pub mod tag {
    /// A thread.
    pub const THREAD: u16 = 0x7f01;
    /// A semaphore.
    pub const SEMA: u16 = 0x7f02;
    /// An event flag.
    pub const EVF: u16 = 0x7f03;
    /// A message box.
    pub const MBX: u16 = 0x7f04;
    /// A variable-length pool.
    pub const VPL: u16 = 0x7f05;
    /// A fixed-length pool.
    pub const FPL: u16 = 0x7f06;
}

/// The console's object handle: the control block's address shifted left by 5, the block's
/// 6-bit id in bits 1-6, and bit 0 set.
pub fn make_handle(block: u32, id: u32) -> u32 {
    (block << 5) | ((id & 0x3f) << 1) | 1
}

impl Iop {
    /// The `n`th argument of the native function being called (o32: a0-a3, then the stack).
    pub fn arg(&mut self, n: usize) -> u32 {
        if n < 4 {
            self.cpu.gpr[4 + n]
        } else {
            let sp = self.cpu.gpr[29];
            self.bus.ram_u32(sp.wrapping_add(16 + 4 * (n as u32 - 4)))
        }
    }

    /// Log `msg` on stderr once per `key`.
    pub fn log_once(&mut self, key: &str, msg: &str) {
        if self.kernel.logged.insert(key.to_string()) {
            eprintln!("piney: iop: {msg}");
        }
    }

    /// Whether the CPU is at a native function or a kernel return point.
    #[inline]
    pub fn at_native(&self) -> bool {
        let pc = self.cpu.pc & 0x1fff_ffff;
        (NATIVE_BASE..RETURN_END).contains(&pc) && !self.cpu.in_delay
    }

    /// Run the native function or return point the CPU has reached.
    pub fn native_call(&mut self) -> Result<(), IopError> {
        self.cpu.flush_load_delay();
        let pc = self.cpu.pc & 0x1fff_ffff;
        // Each kernel call costs a few cycles (the console's are a few dozen instructions).
        self.cpu.cycles += 20;
        if pc >= RETURN_BASE {
            return self.kernel_return(pc);
        }
        if !(pc - NATIVE_BASE).is_multiple_of(8) {
            return Err(self.fault(format!(
                "jump into the middle of a kernel function at {pc:#010x}"
            )));
        }
        let slot = ((pc - NATIVE_BASE) / 8) as usize;
        let ra = self.cpu.gpr[31];
        self.run_native(slot, ra)
    }

    /// A linked import stub ran: `jr $ra` with the kernel's trap (SYSCALL with code
    /// [`STUB_TRAP`] | slot) in its delay slot. The native runs in the delay slot and returns to
    /// where the `jr` was going: the caller's $ra as the `jr` read it (before a load in flight
    /// landed, as on the console, where ps2autotests' cpu/iop/lsudelay depends on it).
    pub fn stub_trap(&mut self, e: &crate::cpu::Exception) -> Result<bool, IopError> {
        let code = (e.word >> 6) & 0xf_ffff;
        if code & STUB_TRAP_MASK != STUB_TRAP || !e.in_delay {
            return Ok(false);
        }
        self.cpu.flush_load_delay();
        self.cpu.cycles += 20;
        let ret = self.cpu.next_pc;
        self.run_native((code & !STUB_TRAP_MASK) as usize, ret)?;
        Ok(true)
    }

    fn run_native(&mut self, slot: usize, ret: u32) -> Result<(), IopError> {
        let Some(native) = self.kernel.natives.get(slot).copied() else {
            return Err(self.fault(format!(
                "call of kernel function slot {slot}, which does not exist"
            )));
        };
        if native.lib.is_empty() {
            let at = NATIVE_BASE + 8 * slot as u32;
            return Err(self.fault(format!(
                "jump to {at:#010x}, in the kernel's data (a module info or export table), not a function"
            )));
        }
        self.native_ret = ret;
        let r = match native.func {
            Some(f) => f(self)?,
            None => {
                return Err(self.fault(format!(
                    "call of {} export {} ({}), which piney does not implement",
                    native.lib,
                    native.index,
                    if native.name.is_empty() {
                        "unnamed"
                    } else {
                        native.name
                    }
                )));
            }
        };
        if let Ret::V(v) = r {
            self.cpu.gpr[2] = v;
            let ret = self.native_ret;
            self.cpu.set_pc(ret);
        }
        Ok(())
    }

    fn kernel_return(&mut self, pc: u32) -> Result<(), IopError> {
        match pc {
            ret::THREAD_EXIT => thread::exit_current(self, false),
            ret::INTR_HANDLER => intr::handler_returned(self),
            ret::ALARM_HANDLER => time::alarm_handler_returned(self),
            ret::MODULE_START => loadcore::module_start_returned(self),
            ret::LOADER_LOOP => loadcore::loader_loop(self),
            ret::CONTINUE => self.continue_native(),
            _ => Err(self.fault(format!("jump into the kernel's return area at {pc:#010x}"))),
        }
    }

    /// A guest function called with [`Iop::call_guest`] returned: run the continuation.
    fn continue_native(&mut self) -> Result<(), IopError> {
        let cont = if self.kernel.intr.is_some() {
            self.kernel.intr_cont.pop()
        } else {
            let Some(cur) = self.kernel.current else {
                return Err(self.fault("a guest call returned with no thread running".into()));
            };
            self.kernel.threads.get_mut(&cur).and_then(|t| t.cont.pop())
        };
        match cont {
            Some(Cont::ReturnTo { ra, sp }) => {
                self.cpu.gpr[29] = sp;
                self.cpu.set_pc(ra);
                Ok(())
            }
            Some(Cont::Module { tag, data }) => self.module_continuation(tag, data),
            None => {
                Err(self
                    .fault("a guest call returned to the kernel with nothing to continue".into()))
            }
        }
    }

    /// Hook for the native modules' continuations (SIF RPC servers and the like).
    fn module_continuation(&mut self, tag: u32, data: [u32; 6]) -> Result<(), IopError> {
        crate::modules::continuation(self, tag, data)
    }

    /// A module entry for a native module (no code): its id.
    pub fn native_module(&mut self, name: &str) -> i32 {
        if let Some(m) = self
            .kernel
            .loadcore
            .modules
            .iter()
            .find(|m| m.name == name && m.text == 0)
        {
            return m.id;
        }
        self.add_native_module(name)
    }

    /// Call guest function `pc` with `args` (at most 4) on the current stack, returning to the
    /// kernel return point `ret`.
    pub fn call_guest(&mut self, pc: u32, args: &[u32], ret: u32) {
        for (i, a) in args.iter().enumerate().take(4) {
            self.cpu.gpr[4 + i] = *a;
        }
        // o32: the callee may spill its four argument registers into the 16 bytes above sp.
        self.cpu.gpr[29] = self.cpu.gpr[29].wrapping_sub(16) & !7;
        self.cpu.gpr[31] = ret;
        self.cpu.set_pc(pc);
    }

    /// Call guest function `pc` from a native function on the current thread, and continue with
    /// `cont` when it returns to [`ret::CONTINUE`].
    pub fn call_guest_then(&mut self, pc: u32, args: &[u32], cont: Cont) {
        if self.kernel.intr.is_some() {
            self.kernel.intr_cont.push(cont);
        } else if let Some(cur) = self.kernel.current
            && let Some(t) = self.kernel.threads.get_mut(&cur)
        {
            t.cont.push(cont);
        }
        self.call_guest(pc, args, ret::CONTINUE);
    }

    /// An error that ends the run, naming the module and address the CPU was at.
    pub fn fault(&self, what: String) -> IopError {
        let pc = self.cpu.cur_pc;
        IopError::Fault {
            module: self.module_place(pc),
            pc,
            what: format!("{what} at pc {pc:#010x}"),
        }
    }

    /// A control block of `size` bytes with heap tag `tag` in the kernel heap; returns (block
    /// address, handle). The block starts with the tag and the kind's next id, as the console's.
    pub fn alloc_block(&mut self, tag: u16, kind: usize, size: u32) -> Option<(u32, u32)> {
        let heap = self.kernel.heap;
        let block = heaplib::alloc(self, heap, size)?;
        for i in (0..size).step_by(4) {
            self.bus.set_ram_u32(block + i, 0);
        }
        self.kernel.next_ids[kind] = self.kernel.next_ids[kind].wrapping_add(1);
        let id = self.kernel.next_ids[kind] & 0xffff;
        self.bus.set_ram_u16(block, tag);
        self.bus.set_ram_u16(block.wrapping_add(2), id as u16);
        Some((block, make_handle(block, id)))
    }

    /// Free a control block (its tag is cleared first, as the console does).
    pub fn free_block(&mut self, block: u32) {
        self.bus.set_ram_u16(block, 0);
        let heap = self.kernel.heap;
        heaplib::free(self, heap, block);
    }
}
