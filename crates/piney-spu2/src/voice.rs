//! One voice: ADPCM decoding, the pitch counter with its 4-point interpolation, the ADSR
//! envelope and the two volume sweeps.

use crate::tables::{ADPCM_NEG, ADPCM_POS, GAUSS};
use crate::{IrqWatch, RAM_MASK};

/// ADPCM block flags (the block's second byte). psx-spx "SPU ADPCM Samples"; PCSX2
/// SPU2/Mixer.cpp notes that Loop Repeat only matters on the Loop End block.
pub(crate) const FLAG_LOOP_END: u8 = 1;
pub(crate) const FLAG_LOOP_REPEAT: u8 = 2;
pub(crate) const FLAG_LOOP_START: u8 = 4;

#[inline]
pub(crate) fn clamp16(v: i32) -> i32 {
    v.clamp(-0x8000, 0x7FFF)
}

/// The rate rule shared by the ADSR phases and the volume sweeps (psx-spx "SPU Volume and
/// ADSR Generator", "Envelope Operation"; PCSX2 SPU2/ADSR.cpp). The level moves by
/// `step << max(0, 11 - shift)` whenever a 15-bit counter, advanced by
/// `0x8000 >> max(0, shift - 11)` per sample, overflows. Exponential increase is a slower
/// linear rise (counter increment / 4) above level 0x6000; exponential decrease scales the
/// step by level / 0x8000. The counter increment is at least 1, except that a 7-bit rate with
/// all bits set (`stall`) never steps (psx-spx, hardware-tested 2024 update).
#[inline]
fn rate(shift: u32, step: i32, exp: bool, decr: bool, level: i32, stall: bool) -> (u32, i32) {
    let mut counter_inc = 0x8000u32 >> shift.saturating_sub(11);
    let mut level_inc = step << 11u32.saturating_sub(shift);
    if exp {
        if !decr && level > 0x6000 {
            counter_inc >>= 2;
        }
        if decr {
            level_inc = ((level_inc * level) >> 15) as i16 as i32;
        }
    }
    if !stall {
        counter_inc = counter_inc.max(1);
    }
    (counter_inc, level_inc)
}

#[derive(Clone, Copy, PartialEq, Eq, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) enum Phase {
    Off,
    Attack,
    Decay,
    Sustain,
    Release,
}

/// The ADSR envelope. ADSR1: bit 15 attack exponential, 14-10 attack shift, 9-8 attack step
/// (+7..+4), 7-4 decay shift (step -8, exponential), 3-0 sustain level ((n+1) * 0x800).
/// ADSR2: bit 15 sustain exponential, 14 sustain decreasing, 12-8 sustain shift, 7-6 sustain
/// step, 5 release exponential, 4-0 release shift (step -8). psx-spx "SPU Volume and ADSR
/// Generator" (the SPU2 keeps the PS1 layout).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct Envelope {
    adsr1: u16,
    adsr2: u16,
    pub phase: Phase,
    pub level: i32,
    counter: u32,
    /// The current phase's rate, decoded once per phase or register change.
    p: PhaseRate,
}

#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
struct PhaseRate {
    shift: u32,
    step: i32,
    exp: bool,
    decr: bool,
    stall: bool,
    target: i32,
}

impl Envelope {
    const fn new() -> Self {
        Self {
            adsr1: 0,
            adsr2: 0,
            phase: Phase::Off,
            level: 0,
            counter: 0,
            p: PhaseRate {
                shift: 0,
                step: 0,
                exp: false,
                decr: false,
                stall: false,
                target: 0,
            },
        }
    }

    pub(crate) fn adsr1(&self) -> u16 {
        self.adsr1
    }

    pub(crate) fn adsr2(&self) -> u16 {
        self.adsr2
    }

    pub(crate) fn set_adsr1(&mut self, v: u16) {
        self.adsr1 = v;
        self.decode_rate();
    }

    pub(crate) fn set_adsr2(&mut self, v: u16) {
        self.adsr2 = v;
        self.decode_rate();
    }

    fn enter(&mut self, phase: Phase) {
        self.phase = phase;
        self.decode_rate();
    }

    fn decode_rate(&mut self) {
        let (a1, a2) = (self.adsr1 as u32, self.adsr2 as u32);
        let r = |shift, step, exp, decr, stall, target| PhaseRate {
            shift,
            step,
            exp,
            decr,
            stall,
            target,
        };
        self.p = match self.phase {
            Phase::Off => r(0, 0, false, false, true, 0),
            Phase::Attack => {
                let stepf = (a1 >> 8) & 3;
                let shift = (a1 >> 10) & 0x1F;
                r(
                    shift,
                    7 - stepf as i32,
                    a1 & 0x8000 != 0,
                    false,
                    shift == 0x1F && stepf == 3,
                    0x7FFF,
                )
            }
            Phase::Decay => r(
                (a1 >> 4) & 0xF,
                -8,
                true,
                true,
                false,
                (((a1 & 0xF) + 1) << 11) as i32,
            ),
            Phase::Sustain => {
                let stepf = (a2 >> 6) & 3;
                let shift = (a2 >> 8) & 0x1F;
                let decr = a2 & 0x4000 != 0;
                let step = if decr {
                    !(7 - stepf as i32)
                } else {
                    7 - stepf as i32
                };
                r(
                    shift,
                    step,
                    a2 & 0x8000 != 0,
                    decr,
                    shift == 0x1F && stepf == 3,
                    0,
                )
            }
            Phase::Release => r(a2 & 0x1F, -8, a2 & 0x20 != 0, true, false, 0),
        };
    }

    pub(crate) fn attack(&mut self) {
        self.enter(Phase::Attack);
        self.level = 0;
        self.counter = 0;
    }

    pub(crate) fn release(&mut self) {
        if self.phase != Phase::Off {
            self.enter(Phase::Release);
            self.counter = 0;
        }
    }

    pub(crate) fn off(&mut self) {
        self.enter(Phase::Off);
        self.level = 0;
    }

    /// One sample's envelope step (PCSX2 SPU2/ADSR.cpp `V_ADSR::Calculate`: the phase
    /// advances once its target is reached; a sustain that reaches 0, or a release that
    /// reaches 0, stops the voice).
    #[inline]
    pub(crate) fn tick(&mut self) {
        if self.phase == Phase::Off {
            return;
        }
        let p = self.p;
        let (counter_inc, level_inc) = rate(p.shift, p.step, p.exp, p.decr, self.level, p.stall);
        self.counter += counter_inc;
        if self.counter >= 0x8000 {
            self.counter = 0;
            self.level = (self.level + level_inc).clamp(0, 0x7FFF);
        }
        if self.phase == Phase::Sustain {
            if self.level == 0 {
                self.off();
            }
            return;
        }
        if (!p.decr && self.level >= p.target) || (p.decr && self.level <= p.target) {
            match self.phase {
                Phase::Attack => self.enter(Phase::Decay),
                Phase::Decay => self.enter(Phase::Sustain),
                _ => self.off(),
            }
        }
    }
}

/// A volume register with its sweep (VOLL/VOLR, MVOLL/MVOLR). Bit 15 clear: fixed volume,
/// bits 14-0 are volume / 2 (level = sign-extended `reg << 1`). Bit 15 set: sweep; bit 14
/// exponential, 13 decreasing, 12 negative phase, 6-2 shift, 1-0 step. psx-spx "SPU Volume
/// and ADSR Generator"; the sweep steps as PCSX2 SPU2/ADSR.cpp `V_VolumeSlide::Update`.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct Sweep {
    pub reg: u16,
    pub level: i32,
    counter: u32,
}

impl Sweep {
    pub(crate) const fn new() -> Self {
        Self {
            reg: 0,
            level: 0,
            counter: 0,
        }
    }

    pub(crate) fn set(&mut self, v: u16) {
        self.reg = v;
        self.counter = 0;
        if v & 0x8000 == 0 {
            self.level = ((v << 1) as i16) as i32;
        }
    }

    #[inline]
    pub(crate) fn tick(&mut self) {
        let v = self.reg as u32;
        if v & 0x8000 == 0 {
            return;
        }
        let exp = v & 0x4000 != 0;
        let decr = v & 0x2000 != 0;
        let negative = v & 0x1000 != 0;
        let shift = (v >> 2) & 0x1F;
        let stepf = v & 3;
        let step = if decr {
            !(7 - stepf as i32)
        } else {
            7 - stepf as i32
        };
        let (counter_inc, mut level_inc) = rate(
            shift,
            step,
            exp,
            decr,
            self.level,
            shift == 0x1F && stepf == 3,
        );
        self.counter += counter_inc;
        // A negative phase sweeps towards -0x8000 (increase) or towards 0 (decrease), except
        // for exponential decrease, which scales by the (signed) level itself.
        if !(exp && decr) && negative {
            level_inc = -level_inc;
        }
        if self.counter >= 0x8000 {
            self.counter = 0;
            let (lo, hi) = if !decr {
                (-0x8000, 0x7FFF)
            } else if exp {
                (0, 0x7FFF)
            } else if negative {
                (-0x8000, 0)
            } else {
                (0, 0x7FFF)
            };
            self.level = (self.level + level_inc).clamp(lo, hi);
        }
    }
}

/// Decodes one 16-byte (8-halfword) ADPCM block at halfword address `block` into 28 samples.
/// Header byte: bits 3-0 shift (13..15 act as 9), bits 7-4 filter. Each sample is
/// `(nibble << 12) >> shift` plus `(old * pos + older * neg + 32) >> 6`, saturated to 16 bits.
/// psx-spx "SPU ADPCM Samples".
fn decode_block(ram: &[u16], block: u32, prev: &mut [i32; 2], out: &mut [i16]) {
    let header = ram[block as usize];
    let mut shift = (header & 0xF) as u32;
    if shift > 12 {
        shift = 9;
    }
    let filter = ((header >> 4) & 0xF) as usize;
    let (pos, neg) = (ADPCM_POS[filter], ADPCM_NEG[filter]);
    let (mut p1, mut p2) = (prev[0], prev[1]);
    for j in 0..7u32 {
        let w = ram[((block + 1 + j) & RAM_MASK) as usize];
        for k in 0..4 {
            let nibble = ((w >> (4 * k)) & 0xF) << 12;
            let s = ((nibble as i16) as i32) >> shift;
            let s = clamp16(s + ((p1 * pos + p2 * neg + 32) >> 6));
            out[(j * 4 + k) as usize] = s as i16;
            p2 = p1;
            p1 = s;
        }
    }
    *prev = [p1, p2];
}

/// One voice of a core.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct Voice {
    pub vol: [Sweep; 2],
    pub pitch: u16,
    pub env: Envelope,
    /// SSA, LSAX (halfword addresses, 8-aligned).
    pub ssa: u32,
    pub lsa: u32,
    /// LSAX was written since the voice started: Loop Start flags no longer set it.
    pub lsa_written: bool,
    /// The block being played (NAX's block) and the 4.12 position in it (sample = `>> 12`).
    pub block: u32,
    pub counter: u32,
    pub flags: u8,
    prev: [i32; 2],
    /// `[0..3]`: the previous block's last three samples; `[3..31]`: this block's 28.
    buf: [i16; 31],
    /// The last output after the envelope (ENVX-scaled sample), for the next voice's PMON.
    pub out: i32,
    /// The sample count at the last accepted KON write.
    pub play_cycle: i64,
}

impl Voice {
    pub(crate) fn new() -> Self {
        // PCSX2 SPU2/spu2sys.cpp V_Core::Init: pitch 0x3FFF, SSA/LSA 0x2800 (where the BIOS
        // leaves a silent looping block).
        Self {
            vol: [Sweep::new(), Sweep::new()],
            pitch: 0x3FFF,
            env: Envelope::new(),
            ssa: 0x2800,
            lsa: 0x2800,
            lsa_written: false,
            block: 0x2800,
            counter: 0,
            flags: 0,
            prev: [0; 2],
            buf: [0; 31],
            out: 0,
            play_cycle: i64::MIN / 2,
        }
    }

    /// NAX as read back: the halfword the decoder is on (header + 1 + sample / 4).
    pub(crate) fn nax(&self) -> u32 {
        (self.block + 1 + (self.counter >> 14)) & RAM_MASK
    }

    /// Key on takes effect: NAX = SSA, envelope to attack from 0, decoder history cleared.
    pub(crate) fn start(&mut self, ram: &[u16], irq: &mut IrqWatch, keep_lsa: bool) {
        self.env.attack();
        self.lsa_written = keep_lsa;
        self.prev = [0; 2];
        self.buf = [0; 31];
        self.counter = 0;
        self.out = 0;
        self.load_block(ram, self.ssa, irq);
        irq.touch((self.block + 1) & RAM_MASK);
    }

    /// Enters the block at `addr`: reads its header (flags; Loop Start sets LSA unless LSAX
    /// was written), and decodes it if the voice is sounding.
    fn load_block(&mut self, ram: &[u16], addr: u32, irq: &mut IrqWatch) {
        self.block = addr & RAM_MASK & !7;
        irq.touch(self.block);
        self.flags = (ram[self.block as usize] >> 8) as u8;
        if self.flags & FLAG_LOOP_START != 0 && !self.lsa_written {
            self.lsa = self.block;
        }
        if self.env.phase != Phase::Off {
            decode_block(ram, self.block, &mut self.prev, &mut self.buf[3..]);
        }
    }

    /// NAX written: the decoder continues at that block.
    pub(crate) fn set_nax(&mut self, ram: &[u16], addr: u32, irq: &mut IrqWatch) {
        self.counter &= 0xFFF;
        self.load_block(ram, addr, irq);
    }

    /// The 4-point interpolation at the current position (psx-spx "SPU ADPCM Pitch"):
    /// i = counter bits 11-4; new/old/older/oldest weighted by gauss[i], gauss[100h+i],
    /// gauss[1FFh-i], gauss[0FFh-i], each product shifted right by 15.
    #[inline]
    pub(crate) fn interpolate(&self) -> i32 {
        let i = ((self.counter >> 4) & 0xFF) as usize;
        let n = (self.counter >> 12) as usize;
        let s = &self.buf[n..n + 4];
        ((GAUSS[0xFF - i] as i32 * s[0] as i32) >> 15)
            + ((GAUSS[0x1FF - i] as i32 * s[1] as i32) >> 15)
            + ((GAUSS[0x100 + i] as i32 * s[2] as i32) >> 15)
            + ((GAUSS[i] as i32 * s[3] as i32) >> 15)
    }

    /// Moves the position by `step` (after this sample was produced): crossing the end of
    /// the block applies its flags (Loop End: ENDX, jump to LSA, and without Loop Repeat the
    /// voice is muted and stopped), then enters the next block. Each halfword the decoder
    /// reaches is an access for IRQA. Returns whether ENDX is to be set.
    #[inline]
    pub(crate) fn advance(&mut self, ram: &[u16], step: u32, irq: &mut IrqWatch) -> bool {
        let old_h = self.counter >> 14;
        self.counter += step;
        if self.counter < 28 << 12 {
            let h = self.counter >> 14;
            if h != old_h && irq.any() {
                for k in old_h + 1..=h {
                    irq.touch((self.block + 1 + k) & RAM_MASK);
                }
            }
            return false;
        }
        // A step is at most 0x4000, so at most one block end per sample.
        self.counter -= 28 << 12;
        let mut endx = false;
        let next = if self.flags & FLAG_LOOP_END != 0 {
            endx = true;
            if self.flags & FLAG_LOOP_REPEAT == 0 {
                self.env.off();
            }
            self.lsa
        } else {
            self.block + 8
        };
        if self.env.phase != Phase::Off {
            self.buf.copy_within(28..31, 0);
        }
        self.load_block(ram, next, irq);
        if irq.any() {
            for k in 0..=self.counter >> 14 {
                irq.touch((self.block + 1 + k) & RAM_MASK);
            }
        }
        endx
    }
}
