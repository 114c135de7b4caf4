//! The PS2's I/O processor (IOP): an R3000A, its hardware, the IRX module loader and its system
//! libraries emulated natively.
//!
//! Contract:
//! - [`cpu`] is the R3000A: one opcode table read by the decoder, the interpreter and the
//!   disassembler; load delay slots; COP0 with exceptions, interrupts and the cache-isolate bit.
//!   It sees memory only through [`cpu::Bus`], which [`mem::IopBus`] implements: 2 MiB of RAM, the
//!   1 KiB scratchpad and the hardware units of [`hw`].
//! - [`kernel`] is the IOP's kernel and system libraries, native, as export tables that guest
//!   modules link against; [`irx`] loads and relocates IRX modules, which run as their own code.
//! - [`Iop::run_until`] runs the IOP to a cycle; its timed events (alarms, timers, DMA) are kept in
//!   an ordered queue and [`Iop::next_event`] tells the machine when the next one is due, so
//!   that the machine's one scheduler orders them with the EE's. Time is counted in IOP cycles
//!   (36.864 MHz, the EE clock / 8). Nothing reads the host clock: the same inputs give the same
//!   run.
//! - Guest output (stdio's printf and friends) is appended to [`Iop::out`]; the machine moves it
//!   to its output stream in order with the EE's.
//! - Nothing here depends on graphics, audio, pads or the host: those reach the IOP through the
//!   machine.

pub mod cpu;
pub mod events;
pub mod hw;
pub mod irx;
pub mod kernel;
pub mod mem;
pub mod modules;

use cpu::Cpu;
use events::{EventKind, Events};
use kernel::Kernel;
use mem::IopBus;

/// The IOP clock: 36.864 MHz.
pub const IOP_CLOCK_HZ: u64 = 36_864_000;

/// Why the IOP stopped a run abnormally. Each names what and where.
#[derive(Debug, thiserror::Error)]
pub enum IopError {
    /// Guest code did something the console would crash or hang on.
    #[error("IOP: {what} at pc {pc:#010x}{}", module.as_ref().map(|m| format!(" (in module {m})")).unwrap_or_default())]
    Fault {
        /// The module whose code the pc is in, if known.
        module: Option<String>,
        /// The guest pc.
        pc: u32,
        /// What went wrong.
        what: String,
    },
    /// A module could not be loaded.
    #[error("IOP: {0}")]
    Load(#[from] irx::IrxError),
}

/// The IOP.
pub struct Iop {
    /// The CPU.
    pub cpu: Cpu,
    /// Memory and devices.
    pub bus: IopBus,
    /// The kernel's state.
    pub kernel: Kernel,
    /// Timed events.
    pub events: Events,
    /// Guest output not yet taken by the machine.
    pub out: Vec<u8>,
    /// Guest instructions executed (for benchmarks; not architectural state).
    pub instructions: u64,
    /// Native modules' state.
    pub modules: modules::Modules,
    /// Where the native function being run returns to.
    pub native_ret: u32,
}

impl Default for Iop {
    fn default() -> Self {
        Self::new()
    }
}

impl Iop {
    /// Power on: the kernel booted with its system libraries, no user module yet.
    pub fn new() -> Self {
        let mut iop = Self {
            cpu: Cpu::new(),
            bus: IopBus::new(),
            kernel: Kernel::default(),
            events: Events::default(),
            out: Vec::new(),
            instructions: 0,
            modules: modules::Modules::default(),
            native_ret: 0,
        };
        kernel::loadcore::boot(&mut iop);
        iop
    }

    /// The cycle count.
    pub fn cycles(&self) -> u64 {
        self.cpu.cycles
    }

    /// When the next timed event is due (IOP cycles), if any.
    pub fn next_event(&self) -> Option<u64> {
        self.events.next_due()
    }

    /// Whether the IOP has nothing to run until an event or an interrupt: no thread is ready.
    pub fn idle(&self) -> bool {
        self.kernel.current.is_none() && self.kernel.intr.is_none()
    }

    /// A device outside the IOP (the machine: VBlank, the SIF...) raises interrupt `line`.
    pub fn raise_irq(&mut self, line: u32) {
        self.bus.hw.intc.raise(line);
    }

    /// Run until the cycle count reaches `target` (or an error).
    pub fn run_until(&mut self, target: u64) -> Result<(), IopError> {
        while self.cpu.cycles < target {
            // Events due now.
            while let Some((kind, _late)) = self.events.pop_due(self.cpu.cycles) {
                self.handle_event(kind)?;
            }
            if self.bus.hw.intc.pending() && self.kernel.intr.is_none() {
                kernel::intr::take_interrupt(self)?;
                continue;
            }
            if self.idle() {
                // Nothing runs: time passes to the next event.
                let next = self.events.next_due().unwrap_or(u64::MAX).min(target);
                self.cpu.cycles = self.cpu.cycles.max(next);
                continue;
            }
            // Run guest code until the next event, a kernel call or an interrupt.
            let until = self.events.next_due().unwrap_or(u64::MAX).min(target);
            self.run_cpu(until)?;
        }
        Ok(())
    }

    fn run_cpu(&mut self, until: u64) -> Result<(), IopError> {
        while self.cpu.cycles < until {
            if self.at_native() {
                self.native_call()?;
                // A kernel call may have raised an interrupt, scheduled an event or switched
                // threads: look again from the top.
                return Ok(());
            }
            self.instructions += 1;
            if let Err(e) = cpu::step(&mut self.cpu, &mut self.bus) {
                if e.kind == cpu::ExceptionKind::Syscall && self.stub_trap(&e)? {
                    return Ok(());
                }
                return Err(self.exception(e));
            }
            if self.bus.hw.intc.pending() {
                return Ok(());
            }
        }
        Ok(())
    }

    fn exception(&mut self, e: cpu::Exception) -> IopError {
        let pc = e.pc;
        IopError::Fault {
            module: self.module_name_at(pc),
            pc,
            what: e.to_string(),
        }
    }

    fn handle_event(&mut self, kind: EventKind) -> Result<(), IopError> {
        match kind {
            EventKind::Alarm(id) => kernel::time::alarm_due(self, id),
        }
    }

    /// The name of the module whose code holds `pc`, if any.
    pub fn module_name_at(&self, pc: u32) -> Option<String> {
        self.kernel
            .loadcore
            .module_at(pc & 0x1fff_ffff)
            .map(|m| m.name.clone())
    }

    /// Take the guest output produced so far.
    pub fn take_output(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.out)
    }
}
