//! The SPU2 joined to the IOP: its clock on the IOP's event queue, its interrupt on INTC line 9,
//! and the IOP DMAC's channels 4 (core 0) and 7 (core 1).
//!
//! - Time: the SPU2 makes a sample every [`piney_spu2::IOP_CYCLES_PER_SAMPLE`] IOP cycles. It is
//!   brought up to date before every register access ([`crate::hw::Hardware::spu2_catch_up`])
//!   and by an event every [`BATCH`] samples, which also raises its interrupt and feeds AutoDMA.
//!   An interrupt raised by a voice therefore reaches the IOP at most [`BATCH`] samples late
//!   (0.33 ms), always at the same cycle for the same run. While the SPU2 can raise no
//!   interrupt (no core's ATTR enables one, or IRQINFO already shows it) and takes no AutoDMA
//!   data, the event has nothing to do that cannot wait: it comes every [`IDLE_BATCH`] samples
//!   instead (the samples are made at every vertical blank anyway), so that an idle sound
//!   chip does not stop the EE 3,000 times an emulated second. A register write or a DMA start
//!   that ends that state brings the event back to the next point of its [`BATCH`] grid
//!   (`Iop::spu2_rebatch`).
//! - Manual DMA (ADMAS clear for the core): the block-mode transfer of BCR's words moves at the
//!   start to (or from) sound RAM at the core's TSA; the channel ends [`CYCLES_PER_WORD`] IOP
//!   cycles a word later (a choice: about 37 MB/s, the SIF's rate), with its DICR interrupt and
//!   the SPU2 told ([`piney_spu2::Spu2::dma_end`]).
//! - AutoDMA (the core's ADMAS bit set): the channel moves what the core's input buffer takes
//!   ([`piney_spu2::Spu2::adma_wants`]) at each batch, and ends when BCR's words have gone.
//! - The output read back (ADMAS 4, a read: sceSdBlockTrans's read direction, TSA at one of
//!   the core's output areas): the words are read from TSA at the start as a manual read's
//!   are, TSA left where it was, and the channel ends one output sample per halfword later.

use crate::events::EventKind;
use crate::hw::dmac::CHCR_BUSY;
use crate::hw::intc::line;
use crate::{Iop, IopError};

/// Samples between the SPU2's events.
pub const BATCH: u64 = 16;
/// Samples between the SPU2's events while they have nothing to do (see the module doc): 64
/// batches, 21 ms.
pub const IDLE_BATCH: u64 = BATCH * 64;
/// IOP cycles per 32-bit word of a manual SPU2 transfer.
pub const CYCLES_PER_WORD: u64 = 4;

/// DMA channel of SPU2 core 0.
pub const CH_CORE0: usize = 4;
/// DMA channel of SPU2 core 1.
pub const CH_CORE1: usize = 7;

/// The SPU2 core a DMA channel serves.
fn core_of(ch: usize) -> usize {
    usize::from(ch == CH_CORE1)
}

/// A channel's transfer in progress.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Transfer {
    /// Halfwords still to move (AutoDMA).
    pub left: u32,
    /// AutoDMA: moved as the core takes it.
    pub auto: bool,
}

impl Iop {
    /// Start the SPU2's clock (at boot, and again after a reboot).
    pub(crate) fn spu2_start(&mut self) {
        self.events.cancel(EventKind::Spu2);
        let at = self.bus.hw.spu2_due.max(self.cpu.cycles)
            + (BATCH - 1) * piney_spu2::IOP_CYCLES_PER_SAMPLE;
        self.events.schedule(at, EventKind::Spu2);
    }

    /// The SPU2's batch event: its samples, its interrupt, AutoDMA.
    pub(crate) fn spu2_event(&mut self) -> Result<(), IopError> {
        self.spu2_sync();
        for ch in [CH_CORE0, CH_CORE1] {
            if self.spu2_transfer[core_of(ch)].auto {
                self.adma_feed(ch)?;
            }
        }
        let batch = if self.spu2_busy() { BATCH } else { IDLE_BATCH };
        let at = self.cpu.cycles + batch * piney_spu2::IOP_CYCLES_PER_SAMPLE;
        self.events.schedule(at, EventKind::Spu2);
        Ok(())
    }

    /// Whether the SPU2's batch event has work at each [`BATCH`]: a core may raise its
    /// interrupt, or a channel feeds it in AutoDMA.
    fn spu2_busy(&self) -> bool {
        self.spu2_transfer.iter().any(|t| t.auto)
            || self.bus.hw.spu2_touched && self.bus.hw.spu2.may_raise_irq()
    }

    /// After a register write or a DMA start: when the SPU2 now has work at each batch and its
    /// event waits for a long one, the event moves to the first point of its [`BATCH`] grid
    /// (the long batch's end less whole batches) not before now.
    pub(crate) fn spu2_rebatch(&mut self) {
        self.bus.hw.spu2_changed = false;
        if !self.spu2_busy() {
            return;
        }
        let Some(due) = self.events.due_of(EventKind::Spu2) else {
            return;
        };
        let step = BATCH * piney_spu2::IOP_CYCLES_PER_SAMPLE;
        let now = self.cpu.cycles;
        if due > now + step {
            let at = due - (due - now) / step * step;
            self.events.cancel(EventKind::Spu2);
            self.events.schedule(at, EventKind::Spu2);
        }
    }

    /// Bring the SPU2 to the CPU's time and raise its interrupt if it asked.
    pub fn spu2_sync(&mut self) {
        self.bus.hw.now = self.cpu.cycles;
        self.bus.hw.spu2_catch_up();
        if std::mem::take(&mut self.bus.hw.spu2_irq) {
            self.bus.hw.intc.raise(line::SPU);
        }
    }

    /// Channel 4 or 7 was started (CHCR's bit 24 written).
    pub(crate) fn spu2_dma_start(&mut self, ch: usize) -> Result<(), IopError> {
        self.spu2_sync();
        self.bus.hw.spu2_touch();
        self.bus.hw.spu2_changed = true;
        let c = self.bus.hw.dmac.ch[ch];
        let mode = (c.chcr >> 9) & 3;
        let from_memory = c.chcr & 1 != 0;
        let core = core_of(ch);
        // Block mode (1) is what drivers use; a BCR block count of 0 moves one block.
        let words = if mode == 0 {
            c.bcr & 0xffff
        } else {
            (c.bcr & 0xffff) * (c.bcr >> 16).max(1)
        };
        if mode == 2 {
            return Err(self.fault(format!(
                "DMA channel {ch} (SPU2 core {core}) started in linked-list mode (CHCR {:#010x}): the SPU2's channels move blocks",
                c.chcr
            )));
        }
        let admas = self.bus.hw.spu2.read(0x400 * core as u32 + 0x1b0);
        self.events.cancel(EventKind::Dma(ch as u8));
        if admas & (1 << core) != 0 && from_memory {
            self.spu2_transfer[core] = crate::sound::Transfer {
                left: words * 2,
                auto: true,
            };
            return self.adma_feed(ch);
        }
        self.spu2_transfer[core] = Transfer::default();
        let madr = c.madr & 0x00ff_fffc;
        let halves = (words * 2) as usize;
        if from_memory {
            let mut data = Vec::with_capacity(halves);
            for i in 0..halves as u32 {
                data.push(self.bus.ram_u16(madr.wrapping_add(2 * i)));
            }
            self.bus.hw.spu2.dma_write(core, &data);
        } else {
            // ADMAS 4: the core's output read back (sceSdBlockTrans's read; TSA at one of the
            // output areas, each a ring of 0x200 halfwords the core writes one of per sample).
            let memory_out = admas & 4 != 0;
            let tsa = (0x1a8 + 0x400 * core as u32, 0x1aa + 0x400 * core as u32);
            let at = (self.bus.hw.spu2.read(tsa.0), self.bus.hw.spu2.read(tsa.1));
            let mut data = vec![0u16; halves];
            self.bus.hw.spu2.dma_read(core, &mut data);
            for (i, h) in data.iter().enumerate() {
                self.bus.set_ram_u16(madr.wrapping_add(2 * i as u32), *h);
            }
            if memory_out {
                // A choice: each transfer takes the area from its start (TSA stays), and
                // ends once the core has made as many samples as it read halfwords, the
                // output's own pace (a looping read then comes back every 256 samples per
                // KiB, as a block write does).
                self.bus.hw.spu2.write(tsa.0, at.0);
                self.bus.hw.spu2.write(tsa.1, at.1);
                if self.bus.hw.spu2.take_irq() {
                    self.bus.hw.intc.raise(line::SPU);
                }
                self.bus.hw.dmac.ch[ch].madr = madr.wrapping_add(4 * words);
                self.events.schedule(
                    self.cpu.cycles + halves as u64 * piney_spu2::IOP_CYCLES_PER_SAMPLE,
                    EventKind::Dma(ch as u8),
                );
                return Ok(());
            }
        }
        if self.bus.hw.spu2.take_irq() {
            self.bus.hw.intc.raise(line::SPU);
        }
        self.bus.hw.dmac.ch[ch].madr = madr.wrapping_add(4 * words);
        self.events.schedule(
            self.cpu.cycles + words as u64 * CYCLES_PER_WORD,
            EventKind::Dma(ch as u8),
        );
        Ok(())
    }

    /// A manual transfer's end, or AutoDMA's next look.
    pub(crate) fn spu2_dma_event(&mut self, ch: usize) -> Result<(), IopError> {
        if self.bus.hw.dmac.ch[ch].chcr & CHCR_BUSY == 0 {
            return Ok(());
        }
        if self.spu2_transfer[core_of(ch)].auto {
            return self.adma_feed(ch);
        }
        self.spu2_channel_end(ch);
        Ok(())
    }

    fn spu2_channel_end(&mut self, ch: usize) {
        let core = core_of(ch);
        self.spu2_transfer[core] = Transfer::default();
        self.bus.hw.dmac.ch[ch].bcr &= 0xffff;
        self.bus.hw.spu2.dma_end(core);
        if self.bus.hw.dmac.finish(ch) {
            self.bus.hw.intc.raise(line::DMA);
        }
    }

    /// AutoDMA: move what the core takes now.
    fn adma_feed(&mut self, ch: usize) -> Result<(), IopError> {
        let core = core_of(ch);
        if self.bus.hw.dmac.ch[ch].chcr & CHCR_BUSY == 0 {
            self.spu2_transfer[core] = Transfer::default();
            return Ok(());
        }
        loop {
            let t = self.spu2_transfer[core];
            if t.left == 0 {
                self.spu2_channel_end(ch);
                return Ok(());
            }
            let n = self.bus.hw.spu2.adma_wants(core).min(t.left as usize);
            if n == 0 {
                return Ok(());
            }
            let madr = self.bus.hw.dmac.ch[ch].madr;
            let data: Vec<u16> = (0..n as u32)
                .map(|i| self.bus.ram_u16(madr.wrapping_add(2 * i)))
                .collect();
            self.bus.hw.spu2.dma_write(core, &data);
            self.bus.hw.dmac.ch[ch].madr = madr.wrapping_add(2 * n as u32);
            self.spu2_transfer[core].left -= n as u32;
        }
    }
}
