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
//! - The disc in the drive ([`Iop::disc`]) is read through the native CDVDMAN and CDVDFSV and
//!   the `cdrom` device ([`modules::cdvd`]), with the drive's timing on the same event queue
//!   ([`Iop::cdvd`]: its `fast` switch is `--fast-cdvd`).
//! - Nothing here depends on graphics, audio, pads or the host: those reach the IOP through the
//!   machine.

pub mod cpu;
pub mod disc;
pub mod events;
pub mod hw;
pub mod irx;
pub mod kernel;
pub mod mem;
pub mod modules;
pub mod romdir;
pub mod sound;
pub mod state;

use cpu::Cpu;
use events::{EventKind, Events};
use kernel::Kernel;
use mem::IopBus;

/// The IOP clock: 36.864 MHz.
pub const IOP_CLOCK_HZ: u64 = 36_864_000;

/// Why the IOP stopped a run abnormally. Each names what and where.
#[derive(Debug, thiserror::Error, serde::Serialize, serde::Deserialize)]
pub enum IopError {
    /// Guest code did something the console would crash or hang on.
    #[error("IOP: {}{}", text(what), module.as_ref().map(|m| format!(" (in module {})", text(m))).unwrap_or_default())]
    Fault {
        /// The module whose code the pc is in and the pc's offset in it, if known.
        module: Option<String>,
        /// The guest pc.
        pc: u32,
        /// What went wrong, and at which pc.
        what: String,
    },
    /// A module could not be loaded.
    #[error("IOP: {0}")]
    Load(#[from] irx::IrxError),
    /// A native module could not go on (a memory card that cannot be read, a request it does
    /// not implement).
    #[error("IOP: {}: {}", text(module), text(what))]
    Native {
        /// The module, and what it was asked.
        module: String,
        /// What went wrong.
        what: String,
    },
}

/// Text a guest program chose (a module's name from its id record or .iopmod, a path it
/// asked for) as it goes into an error: control characters escaped as Rust writes them, at
/// most 200 characters written, so the error stays one line.
pub(crate) fn text(s: &str) -> String {
    let mut out = String::new();
    // The cut counts what is written (an escape is several characters).
    let mut written = 0;
    for c in s.chars() {
        let piece: String = if c.is_control() {
            c.escape_debug().collect()
        } else {
            c.to_string()
        };
        written += piece.chars().count();
        if written > 200 {
            out.push_str("...");
            break;
        }
        out.push_str(&piece);
    }
    out
}

/// [`Iop::ee_ram`] in a state: its bytes as a sequence, read back onto the heap.
mod ee_ram_state {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(v: &piney_ram::GuestRam, s: S) -> Result<S::Ok, S::Error> {
        v[..].serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<piney_ram::GuestRam, D::Error> {
        Vec::<u8>::deserialize(d).map(piney_ram::GuestRam::from)
    }
}

/// The IOP.
#[derive(serde::Serialize, serde::Deserialize)]
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
    /// The EE's RAM while the machine runs an IOP slice (native servers read it as their RDATA
    /// would); empty otherwise. (Saved as the byte sequence it is, as when this was a `Vec`.)
    #[serde(with = "ee_ram_state")]
    pub ee_ram: piney_ram::GuestRam,
    /// The disc in the drive (kept across reboots).
    #[serde(skip)]
    pub disc: Option<Box<dyn disc::Disc>>,
    /// The CD/DVD drive and cdvdman's state (the drive's part kept across reboots).
    pub cdvd: modules::cdvd::Cdvd,
    /// The SPU2 DMA channels' transfers (core 0, core 1).
    pub spu2_transfer: [sound::Transfer; 2],
}

impl Default for Iop {
    fn default() -> Self {
        Self::new()
    }
}

impl Iop {
    /// Power on: the kernel booted with its system libraries, no user module yet.
    pub fn new() -> Self {
        let mut iop = Self::new_with(hw::sif::Sif::default(), modules::boot_servers(), 0);
        iop.boot_end();
        iop
    }

    fn new_with(
        sif: hw::sif::Sif,
        servers: Vec<Box<dyn modules::NativeServer>>,
        cycles: u64,
    ) -> Self {
        let mut iop = Self {
            cpu: Cpu::new(),
            bus: IopBus::new(),
            kernel: Kernel::default(),
            events: Events::default(),
            out: Vec::new(),
            instructions: 0,
            modules: modules::Modules::default(),
            native_ret: 0,
            ee_ram: piney_ram::GuestRam::default(),
            disc: None,
            cdvd: modules::cdvd::Cdvd::default(),
            spu2_transfer: [sound::Transfer::default(); 2],
        };
        iop.cpu.cycles = cycles;
        iop.bus.hw.sif = sif;
        kernel::loadcore::boot(&mut iop);
        for mut s in servers {
            s.reset();
            iop.add_server(s);
        }
        // The boot servers' modules are resident: so the guest's module chain says.
        kernel::image::sync(&mut iop);
        iop.spu2_start();
        iop
    }

    /// Put `disc` in the drive (replacing any), or empty it with `None`: a command in flight
    /// ends with SCECdErTRMOPN, cdvdman sees a new disc, detected at once, the head at its start.
    pub fn insert_disc(&mut self, disc: Option<Box<dyn disc::Disc>>) {
        self.disc = disc;
        self.cd_media_changed();
        self.cdvd.head = modules::cdvd::timing::Head::default();
    }

    /// The cycle count.
    pub fn cycles(&self) -> u64 {
        self.cpu.cycles
    }

    /// When the next timed event is due (IOP cycles), if any (a reboot in progress counts).
    pub fn next_event(&self) -> Option<u64> {
        let r = self.modules.reboot.as_ref().map(|r| r.0);
        match (self.events.next_due(), r) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Reboot: a fresh kernel with the boot set, the same native servers (unloaded unless
    /// they are the boot set's), the SIF's FIFOs and the EE's side of its registers kept. The
    /// IOP's side comes up again as a booting IOP does: SMCOM, then SIFINIT and CMDINIT, then
    /// BOOTEND.
    ///
    /// `arg` is the reboot command's argument: empty for the BIOS's own modules, or
    /// `rom0:UDNL IMAGE...` (options `-v`, `-nb`, `-nc`... ignored) for IOPRP images (a rom0
    /// image piney does not carry, such as rom0:EELOADCNF, is the BIOS's own set). Their
    /// modules join rom0 (`rom0:NAME` finds them); their boot list (IOPBTCONF, the newest
    /// image's), when they carry one, is booted: the modules piney emulates natively are
    /// answered natively, every other module runs as its own code, in the list's order, and
    /// BOOTEND comes once they have started. An image that cannot be read or parsed stops the
    /// run with an error naming it (a console would never finish the reboot).
    pub fn reboot(&mut self, arg: &str) -> Result<(), IopError> {
        let mut words = arg.split_whitespace();
        let mut images = Vec::new();
        match words.next() {
            None => {}
            Some(m) if m.to_ascii_uppercase().ends_with("UDNL") => {
                for path in words.filter(|w| !w.starts_with('-')) {
                    // An image of the BIOS ROM itself (rom0:EELOADCNF, the boot list for
                    // programs the EE loads) lists the BIOS's modules: piney's native set.
                    if path.len() > 5
                        && path[..5].eq_ignore_ascii_case("rom0:")
                        && modules::read_file(self, path).is_err()
                    {
                        continue;
                    }
                    let data = modules::read_file(self, path).map_err(|e| IopError::Native {
                        module: "UDNL".into(),
                        what: format!("the IOPRP image {path} cannot be read (error {e})"),
                    })?;
                    images.push(romdir::parse(path, &data).map_err(|what| IopError::Native {
                        module: "UDNL".into(),
                        what,
                    })?);
                }
            }
            Some(m) => eprintln!(
                "piney: iop: reboot with \"{m}\": piney boots the BIOS's modules (it carries no rom to read {m} from)"
            ),
        }
        let sif = std::mem::take(&mut self.bus.hw.sif);
        let servers = self.modules.take_servers();
        let cycles = self.cpu.cycles;
        let out = std::mem::take(&mut self.out);
        let ee_ram = std::mem::take(&mut self.ee_ram);
        let host_root = self.modules.host_root.take();
        let disc = self.disc.take();
        let cdvd = self.cdvd.rebooted();
        let instructions = self.instructions;
        // The SPU2 is a device of its own: an IOP reboot leaves its state, its clock and the
        // samples not yet taken (a reboot's DMA is stopped).
        self.spu2_sync();
        let spu2 = std::mem::take(&mut self.bus.hw.spu2);
        let (spu2_due, audio) = (self.bus.hw.spu2_due, std::mem::take(&mut self.bus.hw.audio));
        let (touched, idle) = (self.bus.hw.spu2_touched, self.bus.hw.spu2_idle_samples);
        let watch = std::mem::take(&mut self.bus.hw.spu2_watch);
        *self = Iop::new_with(sif, servers, cycles);
        self.bus.hw.spu2_watch = watch;
        self.bus.hw.spu2 = spu2;
        self.bus.hw.spu2_due = spu2_due;
        self.bus.hw.spu2_touched = touched;
        self.bus.hw.spu2_idle_samples = idle;
        self.bus.hw.audio = audio;
        self.spu2_start();
        self.out = out;
        self.ee_ram = ee_ram;
        self.modules.host_root = host_root;
        self.disc = disc;
        self.cdvd = cdvd;
        self.instructions = instructions;
        self.modules.rom_images = images;
        if modules::boot_images(self) == 0 {
            self.boot_end();
        }
        Ok(())
    }

    /// EESYNC, the boot list's last module: tell the EE the IOP is up.
    pub fn boot_end(&mut self) {
        self.bus.hw.sif.iop_write(0x30, hw::sif::STAT_BOOTEND);
    }

    /// Whether the IOP has nothing to run until an event or an interrupt: no thread is ready.
    pub fn idle(&self) -> bool {
        self.kernel.current.is_none() && self.kernel.intr.is_none()
    }

    /// Whether the IOP has nothing left to do by itself: the loader has started everything
    /// queued, no thread runs, no alarm is pending, no thread waits for a vertical blank, no
    /// reboot is under way, the CD/DVD drive has no command in flight. (The EE's commands can
    /// still wake it.)
    pub fn quiescent(&self) -> bool {
        self.loader_idle()
            && self.idle()
            && self.kernel.alarms.map.is_empty()
            && self.kernel.vblank.start_waiters.is_empty()
            && self.kernel.vblank.end_waiters.is_empty()
            && self.modules.reboot.is_none()
            && !self.cdvd.pending()
    }

    /// A device outside the IOP (the machine: VBlank, the SIF...) raises interrupt `line`.
    pub fn raise_irq(&mut self, line: u32) {
        self.bus.hw.intc.raise(line);
    }

    /// Run until the cycle count reaches `target` (or an error).
    pub fn run_until(&mut self, target: u64) -> Result<(), IopError> {
        if std::mem::take(&mut self.bus.hw.sif.iop_wake) {
            self.sif_wake();
        }
        while self.cpu.cycles < target {
            if self.bus.hw.spu2_changed {
                self.spu2_rebatch();
            }
            if let Some((at, _)) = &self.modules.reboot
                && *at <= self.cpu.cycles
            {
                let (_, arg) = self.modules.reboot.take().expect("reboot");
                self.reboot(&arg)?;
            }
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
                let reboot = self.modules.reboot.as_ref().map_or(u64::MAX, |r| r.0);
                let next = self
                    .events
                    .next_due()
                    .unwrap_or(u64::MAX)
                    .min(target)
                    .min(reboot);
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
            self.bus.hw.now = self.cpu.cycles;
            if let Err(e) = cpu::step(&mut self.cpu, &mut self.bus) {
                if e.kind == cpu::ExceptionKind::Syscall && self.stub_trap(&e)? {
                    return Ok(());
                }
                return Err(self.exception(e));
            }
            if self.bus.hw.counters_changed {
                self.reschedule_counters();
                return Ok(());
            }
            if self.bus.hw.spu2_changed {
                self.spu2_rebatch();
                return Ok(());
            }
            if self.bus.hw.dmac.started != 0 {
                // A module started a DMA channel by writing its CHCR.
                self.dma_started()?;
                return Ok(());
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
            module: self.module_place(pc),
            pc,
            what: e.to_string(),
        }
    }

    fn handle_event(&mut self, kind: EventKind) -> Result<(), IopError> {
        match kind {
            EventKind::Alarm(id) => kernel::time::alarm_due(self, id),
            EventKind::Dma(c) => self.dma_event(c as usize),
            EventKind::Counter(n) => {
                self.counter_event(n as usize);
                Ok(())
            }
            EventKind::Cdvd => self.cd_complete(),
            EventKind::CdvdStream => self.st_due(),
            EventKind::Spu2 => self.spu2_event(),
        }
    }

    /// The name of the module whose code holds `pc`, if any.
    pub fn module_name_at(&self, pc: u32) -> Option<String> {
        self.kernel
            .loadcore
            .module_at(pc & 0x1fff_ffff)
            .map(|m| m.name.clone())
    }

    /// The module holding `pc` and the offset in it: "reloc, +0x128" (offsets as the module's
    /// own file and listing count them).
    pub fn module_place(&self, pc: u32) -> Option<String> {
        self.kernel
            .loadcore
            .module_at(pc & 0x1fff_ffff)
            .map(|m| format!("{}, +{:#x}", m.name, (pc & 0x1fff_ffff) - m.start()))
    }

    /// Run a bare IOP (no EE beside it), with NTSC vertical blanks raised on the VBLANK and
    /// EVBLANK lines, until it is [`Iop::quiescent`] or `limit` cycles have passed. Returns
    /// whether it got quiescent. (The machine runs the IOP in step with the EE instead; this is
    /// for IOP programs on their own: the conformance tests and the benchmark.)
    pub fn run_bare(&mut self, limit: u64) -> Result<bool, IopError> {
        // NTSC: 59.94 fields a second; the blank lasts about 22 of 262.5 lines.
        let field = IOP_CLOCK_HZ * 1001 / 60_000;
        let blank = field * 22 / 262;
        let end = self.cycles() + limit;
        loop {
            let phase = self.cycles() % field;
            let (target, raise) = if phase < blank {
                (self.cycles() - phase + blank, hw::intc::line::EVBLANK)
            } else {
                (self.cycles() - phase + field, hw::intc::line::VBLANK)
            };
            self.run_until(target.min(end))?;
            if self.quiescent() {
                return Ok(true);
            }
            if self.cycles() >= end {
                return Ok(false);
            }
            self.raise_irq(raise);
        }
    }

    /// Take the guest output produced so far.
    pub fn take_output(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.out)
    }
}
