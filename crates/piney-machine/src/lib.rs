//! The PS2 machine around the EE core.
//!
//! Contract:
//! - [`Machine`] owns the EE core state, the bus (memory map and devices), the scheduler of timed
//!   events and the high-level-emulated kernel. [`Machine::run`] runs a loaded program until it
//!   exits, faults or reaches a limit, and returns why it stopped.
//! - Time is counted in EE cycles (294.912 MHz). One [`scheduler::Scheduler`] of timed events drives
//!   the timers, VBlank start and end (NTSC, 59.94 Hz) and everything else that happens at a time.
//!   Nothing reads the host clock: the same program and input give the same run.
//! - No BIOS is loaded: the EE kernel's syscalls, exceptions and interrupts are serviced natively
//!   ([`kernel`]). The BIOS region holds only small stubs of our own (see [`kernel::stubs`]).
//! - The IOP ([`piney_iop::Iop`]) runs beside the EE on the same timeline, joined to it only by
//!   the SIF ([`sif`]): its registers, the SIF0/SIF1 DMA channels, the vertical blank lines.
//!   `piney run MODULE.irx` is [`Machine::load_irx`].
//! - Guest output (the SIO transmit register, the IOP's printf and FILEIO writes to stdout) goes
//!   to [`Machine::stdout`], in time order; piney's own logs go elsewhere.

pub mod audio;
pub mod bus;
mod cop2;
pub mod disc;
pub mod dmac;
pub mod elf;
pub mod gif;
pub mod gsunit;
pub use gsunit::{BoxedRenderer, Displayed, GpuDisplayed};
pub mod hooks;
pub mod intc;
mod irx_run;
mod pollskip;
pub use irx_run::is_irx;
pub mod ipu;
pub mod kernel;
pub mod savestate;
pub mod scheduler;
pub mod sif;
pub mod timers;
pub mod vif;

use std::io::Write;

use piney_ee::{Cpu, Exception, ExceptionKind};

pub use bus::EeBus;
pub use scheduler::{Event, Scheduler};

/// The EE clock: 294.912 MHz.
pub const EE_CLOCK_HZ: u64 = 294_912_000;

/// Why a run stopped normally.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunEnd {
    /// The guest called Exit (or returned from main) with this status.
    Exited(i32),
    /// The frame limit (`--frames`) was reached.
    FrameLimit,
    /// The emulated time limit (`--seconds`) was reached.
    TimeLimit,
}

/// Why a run stopped abnormally. Each names what and where.
#[derive(Debug, thiserror::Error)]
pub enum MachineError {
    /// The CPU raised an exception that nothing services (reserved instruction, address error...).
    #[error("{0}")]
    Cpu(Exception),
    /// A syscall number the HLE kernel does not know.
    #[error("unknown syscall {number} ({number:#x}) at pc {pc:#010x}")]
    UnknownSyscall {
        /// The syscall number ($v1, sign-extended).
        number: i32,
        /// The SYSCALL instruction's address.
        pc: u32,
    },
    /// A kernel service failed in a way the real kernel would hang or crash on.
    #[error("kernel: {what} at pc {pc:#010x}")]
    Kernel {
        /// What went wrong.
        what: String,
        /// The guest pc.
        pc: u32,
    },
    /// Every thread is waiting and nothing can wake one.
    #[error("deadlock: every thread is waiting and no event is pending (pc {pc:#010x})")]
    Deadlock {
        /// The pc when it was noticed.
        pc: u32,
    },
    /// A DMA channel stopped on bad data (an address outside memory, a runaway chain...).
    #[error("DMA channel {channel}: {what} (last tag at {tag_addr:#010x}) at pc {pc:#010x}")]
    Dma {
        /// The channel (0..=9).
        channel: u8,
        /// The address of the last DMAtag read.
        tag_addr: u32,
        /// What went wrong.
        what: String,
        /// The guest pc.
        pc: u32,
    },
    /// Loading the program failed.
    #[error(transparent)]
    Load(#[from] elf::ElfError),
    /// The IOP stopped (a fault in an IOP module, a module that cannot load).
    #[error(transparent)]
    Iop(piney_iop::IopError),
    /// `piney run MODULE.irx`: the module did not load (the IOP's loader said why on stderr).
    #[error("{path}: {reason}")]
    IrxLoad {
        /// The module's path.
        path: String,
        /// Why.
        reason: String,
    },
    /// A device was asked something it does not implement.
    #[error("{what} at pc {pc:#010x}")]
    Unimplemented {
        /// What.
        what: String,
        /// The guest pc.
        pc: u32,
    },
}

/// Limits on a run.
#[derive(Debug, Clone, Copy, Default)]
pub struct RunLimits {
    /// Stop after this many VBlanks (frames), if set.
    pub frames: Option<u64>,
    /// Stop after this many emulated seconds, if set.
    pub seconds: Option<f64>,
}

/// The PS2 as the EE sees it.
pub struct Machine {
    /// The EE core.
    pub cpu: Cpu,
    /// Memory and devices.
    pub bus: EeBus,
    /// The high-level EE kernel's state.
    pub kernel: kernel::Kernel,
    /// The EE kernel's side of the SIF (its SIF1 queue and software registers); the IOP itself
    /// is on the bus ([`EeBus::iop`]).
    pub sif: sif::SifEe,
    /// Where guest output goes.
    pub stdout: Box<dyn Write>,
    /// VBlanks since power-on.
    pub vblank_count: u64,
    /// The recompiler, when the run uses it (`--cpu jit`); the interpreter steps otherwise.
    pub jit: Option<Box<piney_jit::Jit>>,
    /// VU0 in micro mode (its registers are swapped in from `cpu.vu0` for a VCALLMS).
    pub vu0: piney_vu::Vu,
    /// Guest instructions the interpreter executed (for benchmarks; not architectural state;
    /// [`Machine::guest_instructions`] adds the recompiler's).
    pub instructions: u64,
    /// Native functions standing for guest functions ([`hooks`]); empty unless installed.
    pub hooks: hooks::Hooks,
    exit: Option<i32>,
    logged: std::collections::HashSet<String>,
    /// `piney run MODULE.irx`: the module's path (see [`irx_run`]).
    irx_run: Option<String>,
    /// The benchmark's watch on the IOP's slices.
    iop_watch: Option<Box<dyn sif::IopWatch>>,
    /// Who takes the sound ([`audio`]).
    audio_sink: Option<Box<dyn audio::AudioSink>>,
    /// Poll loops the recompiler's runs end in ([`pollskip`]).
    poll: pollskip::PollWatch,
}

impl Machine {
    /// A machine with empty memory, the kernel initialised, guest output to `stdout`.
    pub fn new(stdout: Box<dyn Write>) -> Self {
        let mut m = Self {
            cpu: Cpu::new(),
            bus: EeBus::new(),
            kernel: kernel::Kernel::default(),
            sif: sif::SifEe::default(),
            stdout,
            vblank_count: 0,
            vu0: piney_vu::Vu::new(piney_vu::Unit::Vu0),
            jit: None,
            instructions: 0,
            hooks: hooks::Hooks::default(),
            exit: None,
            logged: std::collections::HashSet::new(),
            irx_run: None,
            iop_watch: None,
            audio_sink: None,
            poll: Default::default(),
        };
        m.reset();
        m
    }

    /// Power on: devices reset, the kernel's stubs written, the first timed events scheduled.
    pub fn reset(&mut self) {
        self.bus.reset();
        kernel::stubs::install(&mut self.bus);
        scheduler::schedule_initial(&mut self.bus.sched);
        self.sif_reset();
        sif::padman::install(&mut self.bus.iop);
    }

    /// Load an ELF image (bytes) and point the CPU at its entry, as the kernel's LoadExecPS2 would.
    pub fn load_elf(&mut self, image: &[u8]) -> Result<(), MachineError> {
        let entry = elf::load(image, &mut self.bus)?;
        self.invalidate_code();
        self.kernel_boot(entry);
        Ok(())
    }

    /// Ask the run to end with this exit status (the guest's Exit).
    pub fn request_exit(&mut self, status: i32) {
        self.exit = Some(status);
    }

    /// Run the EE on the recompiler from now on (`--cpu jit`), hot blocks compiled on a thread
    /// of their own (the EE interprets a block until its code is ready; the machine is the same
    /// either way: see piney-jit's `worker`).
    pub fn use_recompiler(&mut self) -> Result<(), String> {
        let mut jit = piney_jit::Jit::new().map_err(|e| e.to_string())?;
        jit.set_background_compile(true)
            .map_err(|e| e.to_string())?;
        self.jit = Some(Box::new(jit));
        Ok(())
    }

    /// Drop every translated block (a program load, FlushCache, an overlay load).
    pub fn invalidate_code(&mut self) {
        if let Some(jit) = &mut self.jit {
            jit.invalidate_all();
        }
    }

    /// Guest instructions the EE executed, on either engine.
    pub fn guest_instructions(&self) -> u64 {
        self.instructions + self.jit.as_ref().map_or(0, |j| j.stats().instructions)
    }

    /// The guest's exit status, once it has exited.
    pub fn exit_status(&self) -> Option<i32> {
        self.exit
    }

    /// Run until the guest exits, faults or a limit is reached.
    pub fn run(&mut self, limits: RunLimits) -> Result<RunEnd, MachineError> {
        let cycle_limit = limits.seconds.map(|s| (s * EE_CLOCK_HZ as f64) as u64);
        loop {
            if let Some(status) = self.exit {
                self.flush_output();
                return Ok(RunEnd::Exited(status));
            }
            if let Some(f) = limits.frames
                && self.vblank_count >= f
            {
                self.flush_output();
                return Ok(RunEnd::FrameLimit);
            }
            if let Some(c) = cycle_limit
                && self.cpu.cycles >= c
            {
                self.flush_output();
                return Ok(RunEnd::TimeLimit);
            }
            // Run the CPU until the next timed event is due, then dispatch the due events.
            let target = self
                .bus
                .sched
                .next_due()
                .min(cycle_limit.unwrap_or(u64::MAX));
            let r = self
                .run_cpu_until(target)
                .and_then(|()| self.dispatch_events());
            self.flush_output();
            r?;
        }
    }

    /// Write the guest's pending debug output to [`Machine::stdout`] (and flush it: a line
    /// shows when the guest prints it). Nothing to write, nothing to flush: this runs at every
    /// timed event, and flushing the process's stdout there cost 0.5% of a CPU benchmark.
    pub fn flush_output(&mut self) {
        if !self.bus.out.is_empty() {
            let _ = self.stdout.write_all(&self.bus.out);
            self.bus.out.clear();
            let _ = self.stdout.flush();
        }
    }

    fn run_cpu_until(&mut self, target: u64) -> Result<(), MachineError> {
        // One loop per engine: the interpreter's per-step path carries no recompiler test, and
        // the recompiler's loop stays out of line so that the interpreter's keeps its step
        // inlined.
        if self.jit.is_some() {
            self.run_cpu_until_jit(target)
        } else {
            self.run_cpu_loop::<false>(target)
        }
    }

    #[inline(never)]
    fn run_cpu_until_jit(&mut self, target: u64) -> Result<(), MachineError> {
        self.run_cpu_loop::<true>(target)
    }

    /// The run loop: interrupts, idling, hooks, then one interpreter step (`JIT` false) or a
    /// recompiler run (`JIT` true, with [`Machine::jit`] set), then VU starts and the next event.
    #[inline]
    fn run_cpu_loop<const JIT: bool>(&mut self, target: u64) -> Result<(), MachineError> {
        let mut target = target;
        // Whether machine code (the kernel's exception and interrupt service, a hook, a VU
        // service) ran since the last look at the exit request and the threads: only it changes
        // them, never a guest instruction (the bus holds no kernel state), so the path from one
        // guest instruction to the next skips those looks.
        let mut machine_ran = true;
        // Events ran since the last run.
        self.poll.reset();
        while self.cpu.cycles < target {
            if machine_ran && self.exit.is_some() {
                break;
            }
            self.bus.now = self.cpu.cycles;
            if self.bus.take_irq_change() {
                self.update_interrupt_lines();
            }
            // Count follows the cycle counter; reaching Compare raises IP7.
            piney_ee::interp::cop0::tick_cop0(&mut self.cpu);
            if self.cpu.interrupt_pending() {
                let e = self.cpu.enter_interrupt();
                self.service_exception(e)?;
                machine_ran = true;
                // The handler's time is no pass of a poll loop.
                self.poll.reset();
                // A handler may have scheduled an earlier event (a SIF transfer...).
                target = target.min(self.bus.sched.next_due());
                continue;
            }
            if machine_ran {
                machine_ran = false;
                if self.kernel_idle()? {
                    // Every thread waits: time passes to the next event without the CPU.
                    self.cpu.cycles = target;
                    break;
                }
            }
            // A hooked guest function: its native version runs instead (one flag when none).
            if self.hooks.enabled()
                && let Some(took) = self.try_hook()?
            {
                machine_ran = true;
                self.poll.reset();
                if took {
                    target = target.min(self.bus.sched.next_due());
                    continue;
                }
            }
            let start = self.cpu.cycles;
            let result = if JIT {
                match &mut self.jit {
                    // The recompiler runs whole blocks, stopping at the target, after a device
                    // access, a COP0 instruction or a VU start, before the COP0 timer is due, or
                    // before a hooked pc (other than this one, which try_hook has just offered),
                    // so that interrupts, events and hooks are taken exactly where the
                    // interpreter would take them.
                    Some(jit) => {
                        let until = target.min(piney_jit::cop0_timer_due(&self.cpu));
                        jit.run_hooked(&mut self.cpu, &mut self.bus, until, &self.hooks)
                    }
                    // Not reached (this loop runs with a recompiler): one interpreter step,
                    // through piney-jit's copy of it, so that the interpreter loop below keeps
                    // the only call of `step` in this crate, inlined.
                    None => {
                        let one = self.cpu.cycles + 1;
                        piney_jit::interp_run(&mut self.cpu, &mut self.bus, one)
                    }
                }
            } else {
                self.instructions += 1;
                piney_ee::interp::step(&mut self.cpu, &mut self.bus)
            };
            if let Err(e) = result {
                self.service_exception(e)?;
                machine_ran = true;
            }
            if self.cop2_service_due() {
                self.service_cop2()?;
                machine_ran = true;
            }
            if machine_ran {
                self.poll.reset();
            } else if JIT && let Some(jit) = &mut self.jit {
                // A poll loop's passes up to the next event (or the COP0 timer): see pollskip.
                let bound = target
                    .min(self.bus.sched.next_due())
                    .min(piney_jit::cop0_timer_due(&self.cpu));
                let (passes, instructions) =
                    self.poll
                        .after_run(&mut self.cpu, &mut self.bus, start, bound);
                if passes != 0 {
                    jit.count_moved_over(passes, instructions);
                }
            }
            // A syscall (SifSetDma, SetAlarm...) or a device register store (a DMA start...) may
            // have scheduled an event earlier than the one the run was heading for.
            target = target.min(self.bus.sched.next_due());
        }
        Ok(())
    }

    /// Recompute the CPU's interrupt lines from INTC (IP2) and the DMAC (IP3).
    pub fn update_interrupt_lines(&mut self) {
        let intc = self.bus.intc.pending();
        let dmac = self.bus.dmac_irq_pending();
        self.cpu.set_interrupt_line(2, intc);
        self.cpu.set_interrupt_line(3, dmac);
        // COP0 CPCOND0 (BC0T/BC0F): the channels D_PCR.CPC selects have all finished.
        self.cpu.cop0.cpcond0 = self.bus.dmac_cpcond0();
    }

    fn service_exception(&mut self, e: Exception) -> Result<(), MachineError> {
        match e.kind {
            ExceptionKind::Syscall => self.kernel_syscall(e),
            ExceptionKind::Interrupt => self.kernel_interrupt(e),
            _ => self.kernel_exception(e),
        }
    }

    fn dispatch_events(&mut self) -> Result<(), MachineError> {
        self.bus.now = self.cpu.cycles;
        while let Some((event, late)) = self.bus.sched.pop_due(self.cpu.cycles) {
            self.handle_event(event, late)?;
        }
        Ok(())
    }

    fn handle_event(&mut self, event: Event, late: u64) -> Result<(), MachineError> {
        match event {
            Event::VBlankStart => {
                self.vblank_count += 1;
                self.bus.vblank_start(late);
                self.iop_vblank(true)?;
                self.kernel_vblank_start();
            }
            Event::VBlankEnd => {
                self.bus.vblank_end(late);
                self.iop_vblank(false)?;
            }
            Event::Timer(n) => self.bus.timer_event(n, late),
            Event::Alarm(id) => self.kernel_alarm(id)?,
            Event::Iop => self.iop_sync()?,
            Event::Dma(c) => self.dmac_event(c)?,
            Event::Vu1Done => self.vu1_done(),
            Event::Ipu => self.bus.ipu_event(),
            Event::Vu0Done => self.vu0_done(),
            Event::Path1 => self.path1_event(),
        }
        if self.bus.vif[1].vu1_started {
            self.note_vif1_vu1_start();
        }
        self.update_interrupt_lines();
        Ok(())
    }
}
