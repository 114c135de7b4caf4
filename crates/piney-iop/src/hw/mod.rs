//! The IOP's hardware units, each owning its registers, and the router from physical addresses
//! to them.
//!
//! Contract: [`Hardware::read`] and [`Hardware::write`] take a physical address and an access
//! size (1, 2 or 4 bytes); `None`/`false` means nothing answers there (a bus error). Units that
//! piney does not emulate at the register level (the CD/DVD drive's registers, DEV9) answer
//! reads with 0 and drop writes, so that probing drivers do not fault.
//!
//! The SPU2 (0x1f90_0000..0x1f90_0800, 16-bit registers; a 32-bit access is two of them, low
//! half first) is brought up to the bus's time before every access: it makes one 48 kHz sample
//! per [`piney_spu2::IOP_CYCLES_PER_SAMPLE`] IOP cycles, and its samples collect in
//! [`Hardware::audio`] for the machine to take.

pub mod counters;
pub mod dmac;
pub mod intc;
pub mod sif;

use intc::Intc;

/// Physical base of the hardware register window.
pub const HW_BASE: u32 = 0x1f80_1000;
/// The SPU2's registers: both cores (0x000 and 0x400) and the common block (0x760..0x800).
pub const SPU2_BASE: u32 = 0x1f90_0000;
/// The most samples [`Hardware::audio`] keeps untaken (4 s of stereo): older ones are dropped.
pub const AUDIO_KEPT: usize = 4 * 48_000 * 2;
/// The last word of the SPU2's registers.
pub const SPU2_END: u32 = 0x1f90_07fc;

/// Watches the SPU2's work, for benchmarks (the host time its samples take): told when a
/// batch of samples starts (`true`) and ends (`false`). The IOP itself holds no clock.
pub trait SectionWatch {
    /// A batch starts or ends.
    fn section(&mut self, start: bool);
}

/// The SPU2's [`SectionWatch`], if any.
#[derive(Default)]
pub struct Spu2Watch(pub Option<Box<dyn SectionWatch>>);

impl std::fmt::Debug for Spu2Watch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "watched"
        } else {
            "unwatched"
        })
    }
}

/// The hardware units.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Hardware {
    /// The interrupt controller.
    pub intc: Intc,
    /// The DMA controller.
    pub dmac: dmac::Dmac,
    /// The SIF registers and FIFOs.
    pub sif: sif::Sif,
    /// The root counters.
    pub counters: counters::Counters,
    /// The cycle count, as the CPU last told it (the counters read against it).
    pub now: u64,
    /// Counters whose interrupt timing changed (a register write), for the IOP to reschedule.
    pub counters_changed: bool,
    /// The sound processor.
    pub spu2: piney_spu2::Spu2,
    /// The IOP cycle the SPU2's next sample is due at (its samples so far times 768).
    pub spu2_due: u64,
    /// The SPU2's output not yet taken: 48 kHz stereo, left then right.
    pub audio: Vec<i16>,
    /// The SPU2 raised its interrupt during a catch-up (for the IOP to raise INTC line 9).
    pub spu2_irq: bool,
    /// Whether anything wrote the SPU2's registers or sent it DMA since power-on.
    pub spu2_touched: bool,
    /// A register write or a DMA start may have changed whether the SPU2 can raise its
    /// interrupt or take AutoDMA data, for the IOP to look at its batch again (cleared there at
    /// once, so never set in a saved state).
    #[serde(skip)]
    pub spu2_changed: bool,
    /// Silent samples made without running the SPU2 (before it was first touched); the SPU2
    /// runs them itself at its first touch, so its own clock stays the IOP's.
    pub spu2_idle_samples: u64,
    /// Told when the SPU2 starts and ends making samples (benchmarks; kept across resets).
    #[serde(skip)]
    pub spu2_watch: Spu2Watch,
    /// Registers stored as written, read back as stored, with no behaviour (the memory
    /// controller's delay and size registers at 0x1f80_1000.., 0x1f80_1400..; the POST register).
    plain: std::collections::BTreeMap<u32, u32>,
}

impl Hardware {
    /// Enable or disable the interrupt of DMA interrupt code `n` (IOP_IRQ_DMA_* - 0x20); returns
    /// whether it was enabled.
    pub fn dma_irq_enable(&mut self, n: u32, on: bool) -> bool {
        self.dmac.irq_enable(n, on)
    }

    /// Power-on state of every unit.
    pub fn reset(&mut self) {
        let watch = std::mem::take(&mut self.spu2_watch);
        *self = Self::default();
        self.spu2_watch = watch;
    }

    /// Bring the SPU2 up to the IOP cycle [`Hardware::now`]: every sample due by then is made.
    pub fn spu2_catch_up(&mut self) {
        if !self.spu2_touched {
            // Never written since power-on: its output is silence, made without running it
            // (most IOP programs never touch the SPU2). Its sample count is kept in step.
            if self.spu2_due <= self.now {
                let n = (self.now - self.spu2_due) / piney_spu2::IOP_CYCLES_PER_SAMPLE + 1;
                self.spu2_due += n * piney_spu2::IOP_CYCLES_PER_SAMPLE;
                self.spu2_idle_samples += n;
                let len = (self.audio.len() + 2 * n as usize).min(AUDIO_KEPT);
                self.audio.resize(len, 0);
            }
            return;
        }
        if self.spu2_due > self.now {
            return;
        }
        if let Some(w) = &mut self.spu2_watch.0 {
            w.section(true);
        }
        while self.spu2_due <= self.now {
            let [l, r] = self.spu2.tick();
            self.audio.extend_from_slice(&[l, r]);
            self.spu2_due += piney_spu2::IOP_CYCLES_PER_SAMPLE;
            if self.spu2.take_irq() {
                self.spu2_irq = true;
            }
        }
        if let Some(w) = &mut self.spu2_watch.0 {
            w.section(false);
        }
        if self.audio.len() > AUDIO_KEPT {
            // Nobody takes the sound (an IOP run without a machine): keep the newest.
            let extra = self.audio.len() - AUDIO_KEPT;
            self.audio.drain(..extra);
        }
    }

    /// From the first write on, the SPU2 runs: the silent samples it skipped are run first (a
    /// powered-on SPU2's own idle state), so every later sample is the hardware's.
    pub fn spu2_touch(&mut self) {
        if !self.spu2_touched {
            self.spu2_touched = true;
            for _ in 0..std::mem::take(&mut self.spu2_idle_samples) {
                self.spu2.tick();
            }
            self.spu2.take_irq();
        }
    }

    fn spu2_read(&mut self, word: u32) -> u32 {
        self.spu2_catch_up();
        let off = word - SPU2_BASE;
        self.spu2.read(off) as u32 | (self.spu2.read(off + 2) as u32) << 16
    }

    fn spu2_write(&mut self, p: u32, size: u32, v: u32) {
        self.spu2_catch_up();
        self.spu2_touch();
        self.spu2_changed = true;
        let off = p - SPU2_BASE;
        match size {
            4 => {
                self.spu2.write(off & !3, v as u16);
                self.spu2.write((off & !3) + 2, (v >> 16) as u16);
            }
            2 => self.spu2.write(off & !1, v as u16),
            _ => {
                // A byte store reaches the 16-bit register with the byte on both halves of
                // the bus; the SPU2 takes the whole halfword (no known driver does this).
                let b = v as u16 & 0xff;
                self.spu2.write(off & !1, b | b << 8);
            }
        }
        if self.spu2.take_irq() {
            self.spu2_irq = true;
        }
    }

    /// Read `size` bytes at physical `p`.
    pub fn read(&mut self, p: u32, size: u32) -> Option<u32> {
        let word = p & !3;
        let shift = (p & 3) * 8;
        let v = match word {
            0x1f80_1070..=0x1f80_107b => self.intc.read(word - 0x1f80_1070),
            0x1f80_1080..=0x1f80_10ff | 0x1f80_1500..=0x1f80_157f
                if self.dmac.read(word).is_some() =>
            {
                self.dmac.read(word).unwrap_or(0)
            }
            0x1d00_0000..=0x1d00_006f => self.sif.iop_read(word - 0x1d00_0000),
            0x1f80_1100..=0x1f80_112f | 0x1f80_1480..=0x1f80_14af => {
                let (n, reg) = counters::Counters::decode(word).expect("counter");
                self.counters.read(n, reg, self.now)
            }
            // Memory control, DMA, timers, SIO2, the POST register: stored.
            0x1f80_1000..=0x1f80_1fff | 0x1f80_8000..=0x1f80_8fff => {
                self.plain.get(&word).copied().unwrap_or(0)
            }
            SPU2_BASE..=SPU2_END => self.spu2_read(word),
            // The SPU2's mirror above its registers, the CD/DVD drive, DEV9: not emulated.
            0x1f90_0000..=0x1f90_ffff | 0x1f40_2000..=0x1f40_2fff | 0x1000_0000..=0x1001_ffff => 0,
            _ => return None,
        };
        Some(match size {
            1 => (v >> shift) & 0xff,
            2 => (v >> shift) & 0xffff,
            _ => v,
        })
    }

    /// Write `size` bytes of `v` at physical `p`.
    pub fn write(&mut self, p: u32, size: u32, v: u32) -> bool {
        let word = p & !3;
        let shift = (p & 3) * 8;
        let merge = |old: u32| match size {
            1 => (old & !(0xff << shift)) | ((v & 0xff) << shift),
            2 => (old & !(0xffff << shift)) | ((v & 0xffff) << shift),
            _ => v,
        };
        match word {
            0x1f80_1070..=0x1f80_107b => {
                let off = word - 0x1f80_1070;
                let old = match off {
                    0 => self.intc.stat,
                    4 => self.intc.mask,
                    _ => self.intc.ctrl,
                };
                // A partial write of I_STAT acknowledges only the bits it covers.
                let val = if off == 0 && size != 4 {
                    merge(old) | (old & !merge(0xffff_ffff))
                } else {
                    merge(old)
                };
                self.intc.write(off, val);
            }
            0x1f80_1100..=0x1f80_112f | 0x1f80_1480..=0x1f80_14af => {
                let (n, reg) = counters::Counters::decode(word).expect("counter");
                self.counters.write(n, reg, merge(0), self.now);
                self.counters_changed = true;
            }
            0x1d00_0000..=0x1d00_006f => {
                let old = self.sif.iop_read(word - 0x1d00_0000);
                self.sif
                    .iop_write(word - 0x1d00_0000, if size == 4 { v } else { merge(old) });
            }
            0x1f80_1080..=0x1f80_10ff | 0x1f80_1500..=0x1f80_157f
                if self.dmac.read(word).is_some() =>
            {
                let old = self.dmac.read(word).unwrap_or(0);
                self.dmac.write(word, merge(old));
            }
            0x1f80_1000..=0x1f80_1fff | 0x1f80_8000..=0x1f80_8fff => {
                let old = self.plain.get(&word).copied().unwrap_or(0);
                self.plain.insert(word, merge(old));
            }
            SPU2_BASE..=SPU2_END => self.spu2_write(p, size, v),
            0x1f90_0000..=0x1f90_ffff | 0x1f40_2000..=0x1f40_2fff | 0x1000_0000..=0x1001_ffff => {}
            _ => return false,
        }
        true
    }
}
