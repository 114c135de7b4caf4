//! The SIF on the EE's side, and the IOP running in step with the EE.
//!
//! Contract:
//! - The IOP is [`piney_iop::Iop`], owned by the bus ([`crate::EeBus::iop`]): the EE reads IOP
//!   RAM at 0x1c00_0000 and the SIF registers at 0x1000_f200 through it. The machine runs the IOP
//!   to the EE's time / 8 (36.864 MHz) whenever the EE's run stops at an event, and keeps one
//!   [`Event::Iop`] on the one scheduler at the IOP's next event (or a short slice ahead while
//!   an IOP thread runs, or soon after the EE gave it SIF work), so that both CPUs share one
//!   timeline, deterministically.
//! - SIF DMA crosses for real: EE DMA channel 6 (SIF1) pushes its tags' upper halves (the IOP's
//!   tags) and data into the SIF1 FIFO, IOP channel 10 takes them; IOP channel 9 pushes the EE's
//!   tags and data into SIF0 and EE channel 5, in destination chain mode, takes them
//!   ([`dma`]). The kernel's syscalls are the EE kernel's: SifSetDma (119) builds a chain of
//!   `ref` tags ending in `refe` in the kernel's tag area and starts channel 6 (calls made
//!   while it runs wait their turn, as the kernel queues them); SifDmaStat (118) answers >0
//!   waiting, 0 running, <0 done; SifSetDChain (120) arms channel 5; SifSetReg (121) and
//!   SifGetReg (122) reach the SIF registers (1..4) and the kernel's software registers
//!   (0x8000_0000 + n); SifStopDma stops channel 5.
//! - The IOP's output (its printf) joins the EE's in [`crate::EeBus::out`] in time order, a
//!   slice at a time.

pub mod dma;
pub mod padman;

use std::collections::VecDeque;
use std::path::PathBuf;

use piney_iop::modules::mcserv::McServ;

use crate::dmac::{CHCR, CHCR_STR, ch};
use crate::scheduler::Event;
use crate::{Machine, MachineError};

/// SifSetReg/SifGetReg register numbers (ps2sdk `sifdma.h`): 1..4 are the hardware registers.
pub mod reg {
    /// MSCOM: main -> sub command buffer address.
    pub const MAINADDR: u32 = 1;
    /// SMCOM: sub -> main command buffer address (the IOP's receive buffer).
    pub const SUBADDR: u32 = 2;
    /// MSFLG: main -> sub flags.
    pub const MSFLAG: u32 = 3;
    /// SMFLG: sub -> main flags.
    pub const SMFLAG: u32 = 4;
    /// The first of the kernel's software registers (0x8000_0000 + n).
    pub const SYSTEM: u32 = 0x8000_0000;
}

pub use piney_iop::hw::sif::{STAT_BOOTEND, STAT_CMDINIT, STAT_SIFINIT};

/// Transfer attribute: interrupt the EE when the transfer is done.
pub const SIF_DMA_INT_I: u32 = 0x02;
/// Transfer attribute: interrupt the IOP when the transfer is done.
pub const SIF_DMA_INT_O: u32 = 0x04;
/// Transfer attribute: end the IOP's chain after this transfer.
pub const SIF_DMA_ERT: u32 = 0x40;
/// The kernel holds at most this many transfers in its SIF1 tag area.
pub const SIF1_QUEUE_MAX: usize = 32;
/// The kernel's SIF1 tag area in EE RAM (two 32-tag halves, 1 KiB), in kernel memory.
pub const TAG_AREA: u32 = 0x0003_e000;
/// The IOP runs in slices of at most this many EE cycles while one of its threads runs.
pub const IOP_SLICE: u64 = 8_192;
/// How soon after the EE gave the IOP SIF work the IOP looks at it.
pub const IOP_WAKE: u64 = 64;
/// The EE clock over the IOP's.
pub const CLOCK_RATIO: u64 = 8;

/// One SifSetDma call waiting for channel 6.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Batch {
    id: u32,
    /// The tags (each a quadword: the EE's tag and the IOP's).
    tags: Vec<u128>,
}

/// The EE kernel's SIF state.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct SifEe {
    /// The kernel's software registers (SifSetReg 0x8000_0000 + n, n < 32).
    pub sysregs: [u32; 32],
    waiting: VecDeque<Batch>,
    running: Option<u32>,
    last_id: u32,
    half: u32,
}

pub use piney_iop::hw::SectionWatch;

/// Watches the IOP's slices, for benchmarks (the host time they take): told when the machine
/// starts (`true`) and ends (`false`) running the IOP. The machine itself holds no clock.
pub trait IopWatch {
    /// A slice starts or ends.
    fn slice(&mut self, start: bool);
}

impl Machine {
    /// Watch the IOP's slices (see [`IopWatch`]).
    pub fn set_iop_watch(&mut self, watch: Box<dyn IopWatch>) {
        self.iop_watch = Some(watch);
    }

    /// Watch the SPU2's batches of samples (see [`SectionWatch`]; they run inside the
    /// IOP's slices).
    pub fn set_spu2_watch(&mut self, watch: Box<dyn SectionWatch>) {
        self.bus.iop.bus.hw.spu2_watch.0 = Some(watch);
    }

    /// The memory cards of ports 0 and 1 (`--memcard1`, `--memcard2`: a folder or a PCSX2
    /// `.ps2` image, see `piney_memcard::open_card`), served by the native MCSERV once a program
    /// loads rom0:MCSERV (or XMCSERV). Each is opened, and created when missing, on the
    /// program's first card call; `None` leaves the port empty.
    pub fn set_memcards(&mut self, card1: Option<PathBuf>, card2: Option<PathBuf>) {
        self.bus
            .iop
            .add_server(Box::new(McServ::on_first_use(card1, card2)));
    }

    /// SifSetDma(transfers, count): queue `count` transfers described at `transfers` (each
    /// { src, dest, size, attr }, 16 bytes). Returns the transfer id (non-zero), or 0 when the
    /// kernel's tag area cannot take them.
    pub fn sif_set_dma(&mut self, transfers: u32, count: u32) -> Result<u32, MachineError> {
        let pc = self.cpu.cur_pc;
        if count == 0 || count as usize > SIF1_QUEUE_MAX {
            return Ok(0);
        }
        let queued: usize = self.sif.waiting.iter().map(|b| b.tags.len()).sum();
        if queued + count as usize > 2 * SIF1_QUEUE_MAX {
            return Ok(0);
        }
        let mut tags = Vec::with_capacity(count as usize);
        for i in 0..count {
            let at = transfers.wrapping_add(16 * i);
            let mut d = [0u8; 16];
            self.bus
                .read_bytes(at, &mut d)
                .map_err(|e| MachineError::Kernel {
                    what: format!(
                        "SifSetDma: transfer {i} at {at:#010x} unreadable ({:#010x})",
                        e.addr
                    ),
                    pc,
                })?;
            let w =
                |k: usize| u32::from_le_bytes([d[4 * k], d[4 * k + 1], d[4 * k + 2], d[4 * k + 3]]);
            let (src, dest, size, attr) = (w(0), w(1), w(2), w(3));
            let qwc = size.div_ceil(16).min(0xffff);
            // The EE's tag: ref (3), or refe (0) for the last; the quadwords at src.
            let id = if i + 1 == count { 0 } else { 3 };
            let ee = qwc as u64 | (id << 28) | (((src & 0x7fff_fff0) as u64) << 32);
            // The IOP's tag, sent first by TTE: destination, interrupt, end; the words.
            let mut iop = dest & 0x00ff_ffff;
            if attr & SIF_DMA_INT_O != 0 {
                iop |= 0x8000_0000;
            }
            if attr & SIF_DMA_ERT != 0 {
                iop |= 0x4000_0000;
            }
            let words = qwc * 4;
            tags.push(ee as u128 | (iop as u128) << 64 | (words as u128) << 96);
        }
        self.sif.last_id = self.sif.last_id.wrapping_add(1).max(1);
        let id = self.sif.last_id;
        self.sif.waiting.push_back(Batch { id, tags });
        if self.sif.running.is_none() {
            self.sif1_start_next();
        }
        Ok(id)
    }

    /// Channel 6 is idle: start the next waiting batch, its tags written into the kernel's tag
    /// area.
    fn sif1_start_next(&mut self) {
        let Some(b) = self.sif.waiting.pop_front() else {
            self.sif.running = None;
            return;
        };
        let base = TAG_AREA + 512 * self.sif.half;
        self.sif.half ^= 1;
        for (i, t) in b.tags.iter().enumerate() {
            let a = (base + 16 * i as u32) as usize;
            self.bus.ram[a..a + 16].copy_from_slice(&t.to_le_bytes());
        }
        self.sif.running = Some(b.id);
        let tadr = crate::dmac::CHANNEL_BASE[ch::SIF1] + crate::dmac::TADR;
        let qwc = crate::dmac::CHANNEL_BASE[ch::SIF1] + crate::dmac::QWC;
        let chcr = crate::dmac::CHANNEL_BASE[ch::SIF1] + CHCR;
        self.bus.now = self.cpu.cycles;
        self.bus.dmac_write(0x1000_0000 | tadr, base);
        self.bus.dmac_write(0x1000_0000 | qwc, 0);
        // Chain mode, TTE, STR, from memory.
        self.bus.dmac_write(
            0x1000_0000 | chcr,
            CHCR_STR | crate::dmac::CHCR_TTE | 0x4 | 0x1,
        );
    }

    /// Channel 6 finished a chain: the kernel starts the next batch.
    pub(crate) fn sif1_chain_done(&mut self) {
        self.sif.running = None;
        self.sif1_start_next();
    }

    /// SifDmaStat(id): >0 waiting, 0 running, <0 done.
    pub fn sif_dma_stat(&mut self, id: u32) -> i32 {
        if self.sif.waiting.iter().any(|b| b.id == id) {
            1
        } else if self.sif.running == Some(id) {
            0
        } else {
            -1
        }
    }

    /// SifSetDChain(): (re)arm the EE's SIF0 receive channel (DMA channel 5) in destination
    /// chain mode, stopping at a tag's IRQ bit (TIE).
    pub fn sif_set_dchain(&mut self) {
        let base = crate::dmac::CHANNEL_BASE[ch::SIF0];
        self.bus.now = self.cpu.cycles;
        self.bus
            .dmac_write(0x1000_0000 | (base + crate::dmac::QWC), 0);
        self.bus.dmac_write(
            0x1000_0000 | (base + CHCR),
            CHCR_STR | crate::dmac::CHCR_TIE | 0x4,
        );
    }

    /// Look at the SIF again now (kept for callers that arm channel 5 by a plain store: the
    /// DMAC notices by itself).
    pub fn sif_kick(&mut self) {
        self.bus.dmac_kick(ch::SIF0);
    }

    /// SifStopDma(): stop channel 5.
    pub fn sif_stop_dma(&mut self) {
        let a = 0x1000_0000 | (crate::dmac::CHANNEL_BASE[ch::SIF0] + CHCR);
        let v = self.bus.dreg(ch::SIF0, CHCR) & !CHCR_STR;
        self.bus.dmac_write(a, v);
    }

    /// SifSetReg(reg, value): returns the old value.
    pub fn sif_set_reg(&mut self, r: u32, value: u32) -> u32 {
        match r {
            reg::MAINADDR..=reg::SMFLAG => {
                let off = 0x10 * (r - 1);
                let sif = &mut self.bus.iop.bus.hw.sif;
                let old = sif.ee_read(off);
                sif.ee_write(off, value);
                self.iop_wake_soon();
                old
            }
            r if r & reg::SYSTEM != 0 && (r & 0x7fff_ffff) < 32 => {
                std::mem::replace(&mut self.sif.sysregs[(r & 31) as usize], value)
            }
            r => {
                self.log_once(
                    &format!("setreg{r:x}"),
                    &format!("SifSetReg of unknown register {r:#x} ignored"),
                );
                0
            }
        }
    }

    /// SifGetReg(reg).
    pub fn sif_get_reg(&mut self, r: u32) -> u32 {
        match r {
            reg::MAINADDR..=reg::SMFLAG => {
                // The EE polls these while it waits for the IOP: let the IOP catch up first.
                let _ = self.iop_sync();
                self.bus.iop.bus.hw.sif.ee_read(0x10 * (r - 1))
            }
            r if r & reg::SYSTEM != 0 && (r & 0x7fff_ffff) < 32 => {
                self.sif.sysregs[(r & 31) as usize]
            }
            r => {
                self.log_once(
                    &format!("getreg{r:x}"),
                    &format!("SifGetReg of unknown register {r:#x} reads 0"),
                );
                0
            }
        }
    }

    /// Log `msg` to stderr once per `key`.
    pub fn log_once(&mut self, key: &str, msg: &str) {
        if self.logged.insert(key.to_string()) {
            eprintln!("piney: {msg}");
        }
    }

    /// Have the IOP look at the SIF soon (the EE gave it work).
    pub(crate) fn iop_wake_soon(&mut self) {
        let at = self.cpu.cycles + IOP_WAKE;
        match self.bus.sched.due_of(Event::Iop) {
            Some(t) if t <= at => {}
            _ => {
                self.bus.sched.cancel(Event::Iop);
                self.bus.sched.schedule_at(at, Event::Iop);
            }
        }
    }

    /// Run the IOP up to the EE's time and let each side see what the other did.
    pub fn iop_sync(&mut self) -> Result<(), MachineError> {
        let target = self.cpu.cycles / CLOCK_RATIO;
        let bus = &mut self.bus;
        if bus.iop.cycles() < target || bus.iop.bus.hw.sif.iop_wake {
            if let Some(w) = &mut self.iop_watch {
                w.slice(true);
            }
            // The IOP's native servers read EE RAM (as their RDATA would) while it runs.
            bus.iop.ee_ram = std::mem::take(&mut bus.ram);
            let r = bus.iop.run_until(target);
            bus.ram = std::mem::take(&mut bus.iop.ee_ram);
            if let Some(w) = &mut self.iop_watch {
                w.slice(false);
            }
            let out = bus.iop.take_output();
            bus.out.extend_from_slice(&out);
            r.map_err(MachineError::Iop)?;
        }
        if std::mem::take(&mut self.bus.iop.bus.hw.sif.ee_wake) {
            self.bus.now = self.cpu.cycles;
            self.bus.dmac_kick(ch::SIF0);
            self.bus.dmac_kick(ch::SIF1);
        }
        self.schedule_iop();
        Ok(())
    }

    /// (Re)schedule [`Event::Iop`]: a slice ahead while an IOP thread runs, else at the IOP's
    /// next event.
    pub(crate) fn schedule_iop(&mut self) {
        let now = self.cpu.cycles;
        let iop = &self.bus.iop;
        let mut at = if iop.idle() {
            // The IOP takes an event due at its cycle `t` in a slice that runs past `t`
            // (`Iop::run_until` stops on reaching its target, before that cycle's events), that
            // is once the EE is at `(t + 1) * CLOCK_RATIO`. Woken at `t * CLOCK_RATIO`, it ran
            // to `t` and was woken again at every EE cycle up to then: eight slices that did
            // nothing, each ending the EE's budget there (bench_compute: 55,700 IOP events in
            // 2.1 emulated seconds, where the SPU2's 16-sample batches make 6,300).
            iop.next_event().map_or(u64::MAX, |t| {
                t.saturating_add(1).saturating_mul(CLOCK_RATIO)
            })
        } else {
            now + IOP_SLICE
        };
        if iop.bus.hw.sif.iop_wake {
            at = at.min(now + IOP_WAKE);
        }
        self.bus.sched.cancel(Event::Iop);
        if at != u64::MAX {
            self.bus.sched.schedule_at(at.max(now + 1), Event::Iop);
        }
    }

    /// Power-on state of the SIF's EE side (the IOP is reset with the bus).
    pub fn sif_reset(&mut self) {
        self.sif = SifEe::default();
        self.schedule_iop();
    }

    /// The vertical blank reaches the IOP: its VBLANK line, and its native modules' per-frame
    /// work (the pad driver's frames).
    pub(crate) fn iop_vblank(&mut self, start: bool) -> Result<(), MachineError> {
        self.iop_sync()?;
        let iop = &mut self.bus.iop;
        if start {
            iop.raise_irq(piney_iop::hw::intc::line::VBLANK);
            if let Some(w) = &mut self.iop_watch {
                w.slice(true);
            }
            iop.ee_ram = std::mem::take(&mut self.bus.ram);
            iop.native_vblank(self.vblank_count);
            self.bus.ram = std::mem::take(&mut self.bus.iop.ee_ram);
            // The frame's sound: everything the SPU2 made up to now (the IOP's side's work,
            // timed with its slices: an idle SPU2 makes most of its samples here).
            self.bus.iop.spu2_sync();
            if let Some(w) = &mut self.iop_watch {
                w.slice(false);
            }
            self.flush_audio();
        } else {
            iop.raise_irq(piney_iop::hw::intc::line::EVBLANK);
        }
        self.schedule_iop();
        if self.bus.iop.bus.hw.sif.iop_wake {
            self.iop_wake_soon();
        }
        Ok(())
    }
}
