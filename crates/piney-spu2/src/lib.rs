//! The PS2's sound processor, the SPU2, as the IOP sees it.
//!
//! Contract (the IOP owns one [`Spu2`] and is its only client):
//! - Registers: [`Spu2::read`] / [`Spu2::write`] take the 16-bit register's offset from the
//!   SPU2's physical base 0x1F90_0000 (0..0x800, even), as the IOP's bus decodes it. Core 0's
//!   registers are at 0x000.., core 1's at 0x400..; the volume and reverb-coefficient block of
//!   core 0 at 0x760.., of core 1 at 0x788..; the SPDIF registers at 0x7C0... Reads return what
//!   the hardware returns: ENVX/VOLXL/VOLXR/MVOLX the current envelope and volumes, NAX the
//!   decoder's current halfword, ENDX, STAT, SPDIF_IRQINFO; KON/KOFF read back the last value
//!   written (PCSX2 keeps them as plain storage); the data port 0x1AC reads sound RAM at TSA.
//! - Time: [`Spu2::tick`] makes one 48 kHz stereo output sample; the IOP calls it once per
//!   [`IOP_CYCLES_PER_SAMPLE`] of its cycles, from its one event scheduler. Nothing here reads a
//!   host clock: the same register writes, DMA and ticks give the same samples.
//! - Manual DMA: the IOP's DMAC channel 4 (core 0) and 7 (core 1) move halfwords with
//!   [`Spu2::dma_write`] (IOP to SPU2) / [`Spu2::dma_read`] (SPU2 to IOP): sound RAM at the
//!   core's TSA, TSA advancing (wrapping at 2 MiB). The first call of a transfer makes STAT
//!   show "busy" (bit 10 set, bit 7 clear); when the IOP ends the channel (its transfer time
//!   elapsed, before it raises the DMAC interrupt) it calls [`Spu2::dma_end`], after which STAT
//!   shows "ready" (bit 10 clear, bit 7 set while ATTR's DMA mode bits are non-zero).
//! - AutoDMA: with the core's ADMAS bit set (core 0: bit 0 of 0x1B0, core 1: bit 1 of 0x5B0),
//!   [`Spu2::dma_write`] feeds the core's input buffer instead of TSA. The buffer is sound RAM
//!   0x2000.. (core 0) / 0x2400.. (core 1), halfword addresses: 0x200 left samples, then 0x200
//!   right samples, each split in two halves of 0x100 that are played in turn at 48 kHz. One
//!   block is 0x200 halfwords (1 KiB): 0x100 left samples, then 0x100 right samples, and fills
//!   the half that is not playing (PCSX2 SPU2/Dma.cpp AutoDMAReadBuffer moves 0x100 left then
//!   0x100 right per half). [`Spu2::adma_wants`] says how many halfwords the core takes now:
//!   0x200 (less, if part of the block came) once the half not playing has been played, 0 when
//!   it is full or AutoDMA is off. So the IOP, while its channel runs in AutoDMA, calls
//!   `adma_wants` after each tick and moves that many halfwords (at most what its transfer has
//!   left) with `dma_write`; one block is needed per 256 samples. When its transfer has moved
//!   all its data the channel ends (the IOP calls [`Spu2::dma_end`] and raises its DMAC
//!   interrupt). At AutoDMA's start one block can go in at once.
//! - Interrupts: [`Spu2::take_irq`] reports (once) that a core raised its IRQ: with ATTR bit 6
//!   set, an access to the core's IRQA by a voice's decoder (either core's voices), the reverb
//!   work area, the input/output areas, the data port or a DMA transfer. SPDIF_IRQINFO (0x7C2)
//!   then shows bit 2 (core 0) / bit 3 (core 1); the bit stays set (no further IRQ from that
//!   core) until the core's ATTR IRQ enable is cleared or IRQINFO is written. The IOP raises
//!   INTC line 9 for it.
//! - No audio host, no threads: this crate only computes samples. No allocation per tick.
//!
//! Timing as modelled: a KON takes effect on the second sample after the write (a KON or KOFF
//! within 2 samples of the voice's last KON is dropped); a voice's decoder reaches a halfword
//! (for IRQA) at the end of the sample before the one that first uses it; a DMA's IRQA hit is
//! raised at once (PCSX2 waits for the DMA's end); stopped voices keep walking memory.
//!
//! Not modelled: the PS1-mode register window (0x1F801C00), the SPDIF bypass / CDDA play
//! modes (the input buffers always play as PCM; PS2 software plays a disc's CD-DA by reading
//! its sectors and sending them to the sound data input by AutoDMA, as ps2sdk's audsrv does,
//! and PCSX2 knows no PS2 program using the CDDA mode), ATTR's mute and core-reset bits, and PCSX2's
//! own output post-processing (its DC filter and 0x4FFF output scaling are not hardware).
//!
//! Hardware sources: psx-spx (PS1 SPU: ADPCM, pitch, Gaussian table, ADSR, sweeps, noise,
//! reverb formula; the SPU2's two cores are each that SPU), PCSX2 SPU2/ (the SPU2's register
//! map, mixing order, AutoDMA, DMA, IRQ, KON timing, reverb at 48 kHz), Neill Corlett's SPU2
//! notes (the core chaining and memory areas, as PCSX2 follows them).

mod reverb;
mod tables;
mod voice;

use reverb::Reverb;
use voice::{Phase, Sweep, Voice, clamp16};

/// Sound RAM: 2 MiB, addressed by the hardware in halfwords.
pub const RAM_HALFWORDS: usize = 0x10_0000;

/// IOP cycles per output sample: 36.864 MHz / 48 kHz.
pub const IOP_CYCLES_PER_SAMPLE: u64 = 768;

/// Halfwords in one AutoDMA block: 0x100 left samples then 0x100 right samples.
pub const ADMA_BLOCK_HALFWORDS: usize = 0x200;

pub(crate) const RAM_MASK: u32 = 0xF_FFFF;

/// ATTR bits (PCSX2 SPU2/spu2sys.cpp REG_C_ATTR): 5-4 DMA mode, 6 IRQ enable, 7 effect
/// (reverb work area write) enable, 13-8 noise clock.
const ATTR_IRQ: u16 = 0x40;
const ATTR_FX: u16 = 0x80;
/// STAT bits (PCSX2 SPU2/Dma.cpp): 7 DMA ready, 10 DMA busy.
const STAT_READY: u16 = 0x80;
const STAT_BUSY: u16 = 0x400;

/// The IRQA comparators of both cores: any access to an address is checked against both.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct IrqWatch {
    /// IRQA of each core while its IRQ is enabled, else `u32::MAX` (never an address).
    addr: [u32; 2],
    hit: [bool; 2],
}

impl IrqWatch {
    #[inline]
    pub(crate) fn any(&self) -> bool {
        self.addr[0] & self.addr[1] != u32::MAX
    }

    #[inline]
    pub(crate) fn touch(&mut self, a: u32) {
        self.hit[0] |= a == self.addr[0];
        self.hit[1] |= a == self.addr[1];
    }
}

/// The noise generator of a core (psx-spx "SPU Noise Generator"): ATTR bits 13-10 shift,
/// 9-8 step; a 16-bit LFSR clocked when a timer, counting down by step + 4 per sample, runs out.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
struct Noise {
    level: u16,
    timer: i32,
}

impl Noise {
    fn tick(&mut self, attr: u16) {
        let shift = ((attr >> 10) & 0xF) as u32;
        let step = ((attr >> 8) & 3) as i32 + 4;
        self.timer -= step;
        let l = self.level;
        let parity = ((l >> 15) ^ (l >> 12) ^ (l >> 11) ^ (l >> 10) ^ 1) & 1;
        if self.timer < 0 {
            self.level = (l << 1) | parity;
            self.timer += 0x2_0000 >> shift;
            if self.timer < 0 {
                self.timer += 0x2_0000 >> shift;
            }
        }
    }
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
struct Core {
    voices: [Voice; 24],
    pmon: u32,
    non: u32,
    vmixl: u32,
    vmixel: u32,
    vmixr: u32,
    vmixer: u32,
    mmix: u16,
    attr: u16,
    irqa: u32,
    tsa: u32,
    admas: u16,
    endx: u32,
    stat: u16,
    kon_pending: u32,
    mvol: [Sweep; 2],
    evol: [i16; 2],
    avol: [i16; 2],
    bvol: [i16; 2],
    reverb: Reverb,
    noise: Noise,
    /// AutoDMA: the input-buffer half being filled (the one not playing) and how much of the
    /// block it has.
    adma_half: u32,
    adma_fill: usize,
}

impl Core {
    fn new(index: usize) -> Self {
        // Reset values: PCSX2 SPU2/spu2sys.cpp V_Core::Init ("PS2 confirmed" ones: MMIX
        // 0xFF0/0xFFC, ENDX 0xFFFFFF, IRQ disabled; IRQA 0x800; STAT ready).
        Self {
            voices: std::array::from_fn(|_| Voice::new()),
            pmon: 0,
            non: 0,
            vmixl: 0xFF_FFFF,
            vmixel: 0xFF_FFFF,
            vmixr: 0xFF_FFFF,
            vmixer: 0xFF_FFFF,
            mmix: if index == 0 { 0xFF0 } else { 0xFFC },
            attr: 0,
            irqa: 0x800,
            tsa: 0,
            admas: 0,
            endx: 0xFF_FFFF,
            stat: STAT_READY,
            kon_pending: 0,
            mvol: [Sweep::new(), Sweep::new()],
            evol: [0; 2],
            avol: [0x7FFF; 2],
            bvol: [0x7FFF; 2],
            reverb: Reverb::new(index),
            noise: Noise { level: 0, timer: 0 },
            adma_half: 1,
            adma_fill: 0,
        }
    }

    /// Mixes the 24 voices: returns the voice sums (dry L, dry R, wet L, wet R) and writes
    /// voices 1 and 3 to their output areas.
    fn mix_voices(
        &mut self,
        ram: &mut [u16],
        watch: &mut IrqWatch,
        index: usize,
        pos: u32,
    ) -> [i32; 4] {
        let mut sum = [0i32; 4];
        let mut prev_out = 0i32;
        let noise = self.noise.level as i16 as i32;
        for v in 0..24 {
            let bit = 1u32 << v;
            let voice = &mut self.voices[v];
            voice.vol[0].tick();
            voice.vol[1].tick();
            // psx-spx "SPU ADPCM Pitch": with PMON (not voice 0) the step is scaled by
            // (previous voice's output + 0x8000) / 0x8000, with the hardware's sign glitch
            // for pitches above 0x7FFF; the step saturates at 0x4000.
            let mut step = voice.pitch as u32;
            if v > 0 && self.pmon & bit != 0 {
                let factor = prev_out + 0x8000;
                step = (((voice.pitch as i16 as i32) * factor) >> 15) as u32 & 0xFFFF;
            }
            if step > 0x3FFF {
                step = 0x4000;
            }
            let mut value = 0;
            if voice.env.phase != Phase::Off {
                let s = if self.non & bit != 0 {
                    noise
                } else {
                    voice.interpolate()
                };
                // PCSX2 SPU2/Mixer.cpp: the envelope steps, then scales this sample.
                voice.env.tick();
                value = (s * voice.env.level) >> 15;
                let l = (value * voice.vol[0].level) >> 15;
                let r = (value * voice.vol[1].level) >> 15;
                if self.vmixl & bit != 0 {
                    sum[0] += l;
                }
                if self.vmixr & bit != 0 {
                    sum[1] += r;
                }
                if self.vmixel & bit != 0 {
                    sum[2] += l;
                }
                if self.vmixer & bit != 0 {
                    sum[3] += r;
                }
            }
            voice.out = value;
            prev_out = value;
            // Stopped voices keep walking through memory (ENDX, IRQA): PCSX2 Mixer.cpp.
            if voice.advance(ram, step, watch) {
                self.endx |= bit;
            }
            if v == 1 || v == 3 {
                // Voice 1 / 3 output areas: 0x400 / 0x600 (core 0), 0xC00 / 0xE00 (core 1).
                let a = 0x400 + (v as u32 - 1) * 0x100 + index as u32 * 0x800 + pos;
                write_area(ram, watch, a, value);
            }
        }
        sum
    }

    /// The core's mixer after the voices (PCSX2 SPU2/Mixer.cpp MixCore): voice sums saturated
    /// and written to the output areas, MMIX gating of the sound data input, the voices and
    /// the external input (core 0's output, on core 1) into the dry and the wet mix, the
    /// effect, EVOL. Returns the core's output before its master volume.
    fn mix_core(
        &mut self,
        ram: &mut [u16],
        watch: &mut IrqWatch,
        index: usize,
        pos: u32,
        now: u64,
        voices: [i32; 4],
        input: [i32; 2],
        ext: [i32; 2],
    ) -> [i32; 2] {
        self.mvol[0].tick();
        self.mvol[1].tick();
        self.noise.tick(self.attr);
        let v = voices.map(clamp16);
        // Output areas: dry L/R 0x1000/0x1200, wet L/R 0x1400/0x1600 (core 1: +0x800).
        let base = 0x1000 + index as u32 * 0x800 + pos;
        for (k, &x) in v.iter().enumerate() {
            write_area(ram, watch, base + [0, 0x200, 0x400, 0x600][k], x);
        }
        // MMIX (PCSX2 RegWrite_Core REG_P_MMIX): bit 0/1 wet ext R/L, 2/3 dry ext R/L,
        // 4/5 wet input R/L, 6/7 dry input R/L, 8/9 wet voices R/L, 10/11 dry voices R/L;
        // core 0 has no external input (bits 3-0 ignored).
        let m = self.mmix & if index == 0 { 0xFF0 } else { 0xFFF };
        let g = |b: u16, x: i32| if m & b != 0 { x } else { 0 };
        let dry = [
            g(0x080, input[0]) + g(0x800, v[0]) + g(0x008, ext[0]),
            g(0x040, input[1]) + g(0x400, v[1]) + g(0x004, ext[1]),
        ];
        let wet = [
            g(0x020, input[0]) + g(0x200, v[2]) + g(0x002, ext[0]),
            g(0x010, input[1]) + g(0x100, v[3]) + g(0x001, ext[1]),
        ];
        let fx = self
            .reverb
            .process(ram, wet, now, self.attr & ATTR_FX != 0, watch);
        [
            dry[0] + ((fx[0] * self.evol[0] as i32) >> 15),
            dry[1] + ((fx[1] * self.evol[1] as i32) >> 15),
        ]
    }
}

#[inline]
fn write_area(ram: &mut [u16], watch: &mut IrqWatch, addr: u32, value: i32) {
    watch.touch(addr);
    ram[addr as usize] = value as u16;
}

#[inline]
fn lo(v: u32) -> u16 {
    v as u16
}

#[inline]
fn hi(v: u32) -> u16 {
    (v >> 16) as u16
}

#[inline]
fn set_lo(v: u32, x: u16) -> u32 {
    (v & 0xFFFF_0000) | x as u32
}

#[inline]
fn set_hi(v: u32, x: u16) -> u32 {
    (v & 0xFFFF) | ((x as u32) << 16)
}

/// The SPU2.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct Spu2 {
    ram: Vec<u16>,
    /// Registers that are plain storage (KON/KOFF, SPDIF, unknown ones), by halfword.
    raw: Vec<u16>,
    cores: Box<[Core; 2]>,
    irq: bool,
    /// SPDIF_IRQINFO (0x7C2): bit 2 + core set when the core raised its IRQ.
    irqinfo: u16,
    /// Samples made so far.
    cycles: u64,
    /// The position in the input/output areas (0..0x200), one step per sample.
    out_pos: u32,
    watch: IrqWatch,
}

impl Default for Spu2 {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Spu2 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Spu2")
            .field("samples", &self.cycles)
            .finish_non_exhaustive()
    }
}

impl Spu2 {
    /// Power-on state, with the idle block the IOP BIOS leaves at 0x2800 (8 halfwords of
    /// 0x0707: loop end + repeat + start, so idle voices loop on it; PCSX2 SPU2_InternalReset).
    pub fn new() -> Self {
        let mut ram = vec![0u16; RAM_HALFWORDS];
        ram[0x2800..0x2808].fill(0x0707);
        let mut cores = Box::new([Core::new(0), Core::new(1)]);
        for core in cores.iter_mut() {
            for v in core.voices.iter_mut() {
                v.flags = (ram[v.block as usize] >> 8) as u8;
            }
        }
        let mut s = Self {
            ram,
            raw: vec![0; 0x400],
            cores,
            irq: false,
            irqinfo: 0,
            cycles: 0,
            out_pos: 0,
            watch: IrqWatch {
                addr: [u32::MAX; 2],
                hit: [false; 2],
            },
        };
        s.update_watch();
        s
    }

    /// Back to the power-on state.
    pub fn reset(&mut self) {
        *self = Self::new();
    }

    fn update_watch(&mut self) {
        for c in 0..2 {
            let core = &self.cores[c];
            self.watch.addr[c] = if core.attr & ATTR_IRQ != 0 {
                core.irqa
            } else {
                u32::MAX
            };
        }
    }

    /// Raises the IRQ of each core whose IRQA was reached, unless IRQINFO already shows it
    /// (PCSX2 SPU2/spu2sys.cpp TimeUpdate).
    fn raise_irqs(&mut self) {
        for c in 0..2 {
            if std::mem::take(&mut self.watch.hit[c])
                && self.cores[c].attr & ATTR_IRQ != 0
                && self.irqinfo & (4 << c) == 0
            {
                self.irqinfo |= 4 << c;
                self.irq = true;
            }
        }
    }

    /// Read the register at `offset` from 0x1F90_0000.
    pub fn read(&mut self, offset: u32) -> u16 {
        let offset = offset & 0x7FE;
        if offset >= 0x760 {
            return self.read_ext(offset);
        }
        let c = (offset >> 10) as usize;
        let o = offset & 0x3FF;
        let core = &self.cores[c];
        match o {
            0x000..=0x17F => {
                let v = &core.voices[(o >> 4) as usize];
                match (o >> 1) & 7 {
                    0 => v.vol[0].reg,
                    1 => v.vol[1].reg,
                    2 => v.pitch,
                    3 => v.env.adsr1(),
                    4 => v.env.adsr2(),
                    5 => v.env.level as u16,
                    6 => v.vol[0].level as u16,
                    _ => v.vol[1].level as u16,
                }
            }
            0x180..=0x197 => {
                let m = [
                    core.pmon,
                    core.non,
                    core.vmixl,
                    core.vmixel,
                    core.vmixr,
                    core.vmixer,
                ][((o - 0x180) >> 2) as usize];
                if o & 2 == 0 { lo(m) } else { hi(m) }
            }
            0x198 => core.mmix,
            0x19A => core.attr,
            0x19C => hi(core.irqa),
            0x19E => lo(core.irqa),
            0x1A8 => hi(core.tsa),
            0x1AA => lo(core.tsa),
            0x1AC => {
                // The data port reads sound RAM at TSA (PCSX2 SPU2read / DmaRead).
                let a = self.cores[c].tsa;
                self.watch.touch(a);
                self.cores[c].tsa = (a + 1) & RAM_MASK;
                let v = self.ram[a as usize];
                self.raise_irqs();
                v
            }
            0x1B0 => core.admas,
            0x1C0..=0x2DF => {
                let v = &core.voices[((o - 0x1C0) / 12) as usize];
                match ((o - 0x1C0) % 12) >> 1 {
                    0 => hi(v.ssa),
                    1 => lo(v.ssa),
                    2 => hi(v.lsa),
                    3 => lo(v.lsa),
                    4 => hi(v.nax()),
                    _ => lo(v.nax()),
                }
            }
            0x2E0 => hi(core.reverb.esa),
            0x2E2 => lo(core.reverb.esa),
            0x2E4..=0x33B => {
                let a = core.reverb.addr[((o - 0x2E4) >> 2) as usize];
                if o & 2 == 0 { hi(a) } else { lo(a) }
            }
            0x33C => hi(core.reverb.eea),
            0x33E => lo(core.reverb.eea),
            0x340 => lo(core.endx),
            0x342 => hi(core.endx),
            0x344 => core.stat,
            _ => self.raw[(offset >> 1) as usize],
        }
    }

    fn read_ext(&self, offset: u32) -> u16 {
        if offset < 0x7B0 {
            let c = ((offset - 0x760) / 0x28) as usize;
            let rel = (offset - 0x760) % 0x28;
            let core = &self.cores[c];
            return match rel {
                0x00 => core.mvol[0].reg,
                0x02 => core.mvol[1].reg,
                0x04 => core.evol[0] as u16,
                0x06 => core.evol[1] as u16,
                0x08 => core.avol[0] as u16,
                0x0A => core.avol[1] as u16,
                0x0C => core.bvol[0] as u16,
                0x0E => core.bvol[1] as u16,
                0x10 => core.mvol[0].level as u16,
                0x12 => core.mvol[1].level as u16,
                _ => core.reverb.coef[((rel - 0x14) >> 1) as usize] as u16,
            };
        }
        if offset == 0x7C2 {
            return self.irqinfo;
        }
        self.raw[(offset >> 1) as usize]
    }

    /// Write the register at `offset` from 0x1F90_0000.
    pub fn write(&mut self, offset: u32, value: u16) {
        let offset = offset & 0x7FE;
        self.raw[(offset >> 1) as usize] = value;
        if offset >= 0x760 {
            self.write_ext(offset, value);
            return;
        }
        let c = (offset >> 10) as usize;
        let o = offset & 0x3FF;
        let cycles = self.cycles as i64;
        let core = &mut self.cores[c];
        match o {
            0x000..=0x17F => {
                let v = &mut core.voices[(o >> 4) as usize];
                match (o >> 1) & 7 {
                    0 => v.vol[0].set(value),
                    1 => v.vol[1].set(value),
                    2 => v.pitch = value,
                    3 => v.env.set_adsr1(value),
                    4 => v.env.set_adsr2(value),
                    // ENVX and VOLX are not writable (PCSX2 RegWrite_VoiceParams, hardware-confirmed).
                    _ => {}
                }
            }
            0x180..=0x197 => {
                let m = match (o - 0x180) >> 2 {
                    0 => &mut core.pmon,
                    1 => &mut core.non,
                    2 => &mut core.vmixl,
                    3 => &mut core.vmixel,
                    4 => &mut core.vmixr,
                    _ => &mut core.vmixer,
                };
                *m = if o & 2 == 0 {
                    set_lo(*m, value)
                } else {
                    set_hi(*m, value & 0xFF)
                };
            }
            0x198 => core.mmix = value,
            0x19A => self.write_attr(c, value),
            0x19C => {
                core.irqa = set_hi(core.irqa, value);
                self.update_watch();
            }
            0x19E => {
                core.irqa = set_lo(core.irqa, value);
                self.update_watch();
            }
            0x1A0 | 0x1A2 => {
                let bits = if o == 0x1A0 {
                    value as u32
                } else {
                    (value as u32 & 0xFF) << 16
                };
                for v in 0..24 {
                    let bit = 1 << v;
                    // PCSX2 StartVoices: a voice keyed on within 2 samples of its last key on
                    // ignores it; ENDX clears now, the voice starts 2 samples later.
                    if bits & bit == 0 || cycles - core.voices[v].play_cycle < 2 {
                        continue;
                    }
                    core.voices[v].play_cycle = cycles;
                    core.voices[v].lsa_written = false;
                    core.kon_pending |= bit;
                    core.endx &= !bit;
                }
            }
            0x1A4 | 0x1A6 => {
                let bits = if o == 0x1A4 {
                    value as u32
                } else {
                    (value as u32 & 0xFF) << 16
                };
                for v in 0..24 {
                    // PCSX2 StopVoices: no key off within 2 samples of a key on.
                    if bits & (1 << v) != 0 && cycles - core.voices[v].play_cycle >= 2 {
                        core.voices[v].env.release();
                    }
                }
            }
            0x1A8 => core.tsa = set_hi(core.tsa, value & 0xF),
            0x1AA => core.tsa = set_lo(core.tsa, value),
            0x1AC => {
                // The data port writes sound RAM at TSA (PCSX2 RegWrite_Core REG__1AC: the
                // address written is checked against IRQA).
                let a = core.tsa;
                core.tsa = (a + 1) & RAM_MASK;
                self.watch.touch(a);
                self.ram[a as usize] = value;
                self.raise_irqs();
            }
            0x1B0 => {
                let on = value & (1 << c) != 0;
                if on && core.admas & (1 << c) == 0 {
                    core.adma_half = 1 - (self.out_pos >> 8);
                    core.adma_fill = 0;
                }
                if !on {
                    core.adma_fill = 0;
                }
                core.admas = value;
            }
            0x1C0..=0x2DF => {
                let v = &mut core.voices[((o - 0x1C0) / 12) as usize];
                match ((o - 0x1C0) % 12) >> 1 {
                    // SSA/LSAX are block addresses: the low word's bits 2-0 are dropped
                    // (PCSX2 RegWrite_VoiceAddr).
                    0 => v.ssa = ((value as u32 & 0xF) << 16) | (v.ssa & 0xFFF8),
                    1 => v.ssa = (v.ssa & 0xF_0000) | (value as u32 & 0xFFF8),
                    r @ (2 | 3) => {
                        v.lsa = if r == 2 {
                            ((value as u32 & 0xF) << 16) | (v.lsa & 0xFFF8)
                        } else {
                            (v.lsa & 0xF_0000) | (value as u32 & 0xFFF8)
                        };
                        v.lsa_written = true;
                    }
                    r => {
                        let nax = v.nax();
                        let a = if r == 4 {
                            ((value as u32 & 0xF) << 16) | (nax & 0xFFFF)
                        } else {
                            (nax & 0xF_0000) | value as u32
                        };
                        v.set_nax(&self.ram, a, &mut self.watch);
                    }
                }
            }
            // ESA/EEA take effect only while effects are disabled; written while enabled they
            // wait for ATTR's effect bit to clear (PCSX2 RegWrite_Core REG_A_ESA/EEA). EEA is a
            // high word only: the end is that 128 KiB region's last halfword.
            0x2E0 | 0x2E2 => {
                let r = &mut core.reverb;
                r.ext_esa = if o == 0x2E0 {
                    set_hi(r.ext_esa, value & 0xF)
                } else {
                    set_lo(r.ext_esa, value)
                };
                if core.attr & ATTR_FX == 0 {
                    r.esa = r.ext_esa;
                }
            }
            0x2E4..=0x33B => {
                let a = &mut core.reverb.addr[((o - 0x2E4) >> 2) as usize];
                *a = if o & 2 == 0 {
                    set_hi(*a, value & 0xF)
                } else {
                    set_lo(*a, value)
                };
            }
            0x33C => {
                let r = &mut core.reverb;
                r.ext_eea = ((value as u32 & 0xF) << 16) | 0xFFFF;
                if core.attr & ATTR_FX == 0 {
                    r.eea = r.ext_eea;
                }
            }
            // Writing either ENDX half clears it (PCSX2 RegWrite_Core REG_S_ENDX).
            0x340 => core.endx &= 0xFF_0000,
            0x342 => core.endx &= 0xFFFF,
            _ => {}
        }
    }

    fn write_attr(&mut self, c: usize, value: u16) {
        let core = &mut self.cores[c];
        let old = core.attr;
        core.attr = value;
        if old & ATTR_IRQ != 0 && value & ATTR_IRQ == 0 {
            self.irqinfo &= !(4 << c);
        }
        if old & ATTR_FX != 0 && value & ATTR_FX == 0 {
            core.reverb.esa = core.reverb.ext_esa;
            core.reverb.eea = core.reverb.ext_eea;
        }
        // PCSX2 RegWrite_Core REG_C_ATTR: DMA mode 0 with no transfer busy clears "ready";
        // entering a DMA mode sets it.
        let (old_mode, mode) = ((old >> 4) & 3, (value >> 4) & 3);
        if mode == 0 && core.stat & STAT_BUSY == 0 {
            core.stat &= !STAT_READY;
        } else if old_mode == 0 && mode != 0 {
            core.stat |= STAT_READY;
        }
        self.update_watch();
    }

    fn write_ext(&mut self, offset: u32, value: u16) {
        if offset < 0x7B0 {
            let c = ((offset - 0x760) / 0x28) as usize;
            let rel = (offset - 0x760) % 0x28;
            let core = &mut self.cores[c];
            match rel {
                0x00 => core.mvol[0].set(value),
                0x02 => core.mvol[1].set(value),
                0x04 => core.evol[0] = value as i16,
                0x06 => core.evol[1] = value as i16,
                0x08 => core.avol[0] = value as i16,
                0x0A => core.avol[1] = value as i16,
                0x0C => core.bvol[0] = value as i16,
                0x0E => core.bvol[1] = value as i16,
                // MVOLX is not writable (PCSX2 RegWrite_CoreExt).
                0x10 | 0x12 => {}
                _ => core.reverb.coef[((rel - 0x14) >> 1) as usize] = value as i16,
            }
        } else if offset == 0x7C2 {
            self.irqinfo = value;
        }
    }

    /// One 48 kHz output sample, left and right.
    pub fn tick(&mut self) -> [i16; 2] {
        self.cycles += 1;
        let now = self.cycles;
        let pos = self.out_pos;
        let Self {
            ram, cores, watch, ..
        } = self;
        let ram = &mut ram[..];

        // Voices keyed on 2 samples ago start now (PCSX2 TimeUpdate / StartQueuedVoice).
        for core in cores.iter_mut() {
            let mut pending = core.kon_pending;
            while pending != 0 {
                let v = pending.trailing_zeros() as usize;
                pending &= pending - 1;
                let voice = &mut core.voices[v];
                if now as i64 - voice.play_cycle >= 2 {
                    let keep = voice.lsa_written;
                    voice.start(ram, watch, keep);
                    core.kon_pending &= !(1 << v);
                }
            }
        }

        // Sound data input (the AutoDMA buffers) at this position, times BVOL.
        let mut input = [[0i32; 2]; 2];
        for (c, core) in cores.iter().enumerate() {
            let l = 0x2000 + c as u32 * 0x400 + pos;
            watch.touch(l);
            watch.touch(l + 0x200);
            input[c] = [
                (ram[l as usize] as i16 as i32 * core.bvol[0] as i32) >> 15,
                (ram[(l + 0x200) as usize] as i16 as i32 * core.bvol[1] as i32) >> 15,
            ];
        }

        let v0 = cores[0].mix_voices(ram, watch, 0, pos);
        let v1 = cores[1].mix_voices(ram, watch, 1, pos);
        let out0 = cores[0].mix_core(ram, watch, 0, pos, now, v0, input[0], [0, 0]);
        // Core 0's output, after its master volume, is core 1's external input (AVOL).
        let mv0 = [cores[0].mvol[0].level, cores[0].mvol[1].level];
        let ext = [
            (clamp16(out0[0]) * mv0[0]) >> 15,
            (clamp16(out0[1]) * mv0[1]) >> 15,
        ];
        write_area(ram, watch, 0x800 + pos, ext[0]);
        write_area(ram, watch, 0xA00 + pos, ext[1]);
        let av = cores[1].avol;
        let ext = [(ext[0] * av[0] as i32) >> 15, (ext[1] * av[1] as i32) >> 15];
        let out1 = cores[1].mix_core(ram, watch, 1, pos, now, v1, input[1], ext);
        let mv1 = [cores[1].mvol[0].level, cores[1].mvol[1].level];
        let out = [
            clamp16((clamp16(out1[0]) * mv1[0]) >> 15) as i16,
            clamp16((clamp16(out1[1]) * mv1[1]) >> 15) as i16,
        ];

        self.out_pos = (pos + 1) & 0x1FF;
        if self.out_pos & 0xFF == 0 {
            // Playback entered the other half: the half just played is the one to fill.
            for core in self.cores.iter_mut() {
                core.adma_half = 1 - (self.out_pos >> 8);
                core.adma_fill = 0;
            }
        }
        self.raise_irqs();
        out
    }

    /// DMA from the IOP to core `core` (0: channel 4, 1: channel 7): to sound RAM at TSA, or
    /// in AutoDMA to the core's input buffer (at most [`Spu2::adma_wants`] halfwords are taken).
    pub fn dma_write(&mut self, core: usize, data: &[u16]) {
        let c = core & 1;
        if self.cores[c].admas & (1 << c) != 0 {
            self.adma_write(c, data);
            return;
        }
        let st = &mut self.cores[c].stat;
        *st = (*st & !STAT_READY) | STAT_BUSY;
        let mut tsa = self.cores[c].tsa;
        for &w in data {
            self.ram[tsa as usize] = w;
            // PCSX2 Dma.cpp FinishDMAwrite: IRQA fires when it lies in (start, end], i.e. when
            // the advanced address reaches it.
            tsa = (tsa + 1) & RAM_MASK;
            self.watch.touch(tsa);
        }
        self.cores[c].tsa = tsa;
        self.raise_irqs();
    }

    fn adma_write(&mut self, c: usize, data: &[u16]) {
        let core = &mut self.cores[c];
        for &w in data {
            if core.adma_fill >= ADMA_BLOCK_HALFWORDS {
                break;
            }
            let side = (core.adma_fill >> 8) as u32;
            let i = (core.adma_fill & 0xFF) as u32;
            let a = 0x2000 + c as u32 * 0x400 + side * 0x200 + core.adma_half * 0x100 + i;
            self.ram[a as usize] = w;
            core.adma_fill += 1;
        }
    }

    /// DMA from core `core` to the IOP: sound RAM at TSA, TSA advancing.
    pub fn dma_read(&mut self, core: usize, out: &mut [u16]) {
        let c = core & 1;
        let st = &mut self.cores[c].stat;
        *st = (*st & !STAT_READY) | STAT_BUSY;
        let mut tsa = self.cores[c].tsa;
        for w in out.iter_mut() {
            *w = self.ram[tsa as usize];
            tsa = (tsa + 1) & RAM_MASK;
            self.watch.touch(tsa);
        }
        self.cores[c].tsa = tsa;
        self.raise_irqs();
    }

    /// The IOP ended DMA channel 4/7 (core `core`): STAT shows the transfer done (PCSX2
    /// SPU2interruptDMA4/7: busy clears, ready sets while ATTR's DMA mode is non-zero).
    pub fn dma_end(&mut self, core: usize) {
        let core = &mut self.cores[core & 1];
        if (core.attr >> 4) & 3 != 0 {
            core.stat |= STAT_READY;
        }
        core.stat &= !STAT_BUSY;
    }

    /// In AutoDMA, how many halfwords core `core` takes now (0 when not in AutoDMA or full).
    pub fn adma_wants(&self, core: usize) -> usize {
        let c = core & 1;
        let core = &self.cores[c];
        if core.admas & (1 << c) == 0 {
            0
        } else {
            ADMA_BLOCK_HALFWORDS - core.adma_fill
        }
    }

    /// Whether a core can raise its interrupt now: its ATTR enables it and IRQINFO does not show
    /// one already (the IOP's clock for the SPU2 then runs in short batches, see piney-iop).
    pub fn may_raise_irq(&self) -> bool {
        (0..2).any(|c| self.cores[c].attr & ATTR_IRQ != 0 && self.irqinfo & (4 << c) == 0)
    }

    /// Whether a core raised its interrupt since the last call.
    pub fn take_irq(&mut self) -> bool {
        std::mem::take(&mut self.irq)
    }

    /// Samples made since power-on.
    pub fn samples(&self) -> u64 {
        self.cycles
    }

    /// Sound RAM (for tests and dumps).
    pub fn ram(&self) -> &[u16] {
        &self.ram
    }

    /// Sound RAM, writable (for tests and state loading; no IRQA check).
    pub fn ram_mut(&mut self) -> &mut [u16] {
        &mut self.ram
    }
}
