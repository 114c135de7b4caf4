//! The EE DMAC: ten channels moving quadwords between memory, the scratchpad and the devices.
//!
//! Contract:
//! - The channel and control registers live in the bus's plain I/O storage (`EeBus::io`, at their
//!   addresses), so that the kernel (D_STAT's mask bits) and the SIF (channel 5/6) read and write
//!   them as before; writes from the EE go through [`EeBus::dmac_write`], which masks the fields
//!   and starts a channel when CHCR.STR rises.
//! - A running channel advances on [`crate::scheduler::Event::Dma`] events: each event moves one
//!   block (at most [`BURST_QWORDS`]) or reads one DMAtag, and the next event comes when that work
//!   is done. Rate (a choice, documented, deterministic): the DMAC's 128-bit bus runs at BUSCLK
//!   (147.456 MHz), so a quadword costs [`CYCLES_PER_QWORD`] = 2 EE cycles; a tag read costs
//!   [`TAG_CYCLES`]; a start costs [`START_CYCLES`]. CHCR.STR stays set until the last event, so
//!   a program polling it sees the transfer running.
//! - Channel 1 with CHCR.DIR = 0 is VIF1's FIFO to memory (a GS->host download): it takes the GS's
//!   local->host qwords while VIF1_STAT.FDR is set, in normal mode whatever CHCR.MOD says (as
//!   PCSX2 treats it); with FDR clear, or the GS's data used up before QWC, the channel waits.
//! - Channel 0 VIF0, 1 VIF1, 2 GIF (PATH3), 8 fromSPR and 9 toSPR are modelled here, in normal,
//!   chain (source tags refe/cnt/next/ref/refs/call/ret/end; destination tags cnt/cnts/end for
//!   fromSPR) and interleave modes, with TTE, the address stack, TIE + tag IRQ, stall control
//!   (STS/STD, D_STADR), MFIFO (D_RBOR/D_RBSR: channel 8 fills, VIF1 or GIF drains), D_PCR (PCE/CDE
//!   and the CPCOND0 condition) and D_ENABLEW.CPND. Channels 5 and 6 (SIF0, SIF1) move words
//!   through the SIF's FIFOs to and from the IOP's DMAC ([`crate::sif::dma`]); channel 7 (SIF2)
//!   is not modelled (a start is an error naming it). Channel 4 (toIPU,
//!   normal or source chain; tags are never sent to the IPU) fills IPU_in_FIFO while it has room;
//!   channel 3 (fromIPU, normal mode only: chain mode is an error naming it) empties
//!   IPU_out_FIFO into memory while it has data. Either waits on the IPU otherwise and is kicked
//!   when the IPU takes or gives data ([`EeBus::ipu_run`]).
//! - At the end of a transfer STR clears and D_STAT.CISn is set; the CPU's IP3 follows
//!   `CIS & CIM | SIS & SIM | MEIS & MEIM | BEIS` ([`EeBus::dmac_irq_pending`]).
//! - Bad data never panics or hangs: a tag or data address outside memory sets D_STAT.BEIS, stops
//!   the channel and is reported; a chain that reads more than [`MAX_TAGS`] tags or moves more than
//!   [`MAX_QWORDS`] quadwords in one start is stopped and reported.

use crate::bus::{EeBus, RAM_SIZE, SPR_SIZE};
use crate::gif::path;
use crate::scheduler::Event;
use crate::vif::VifCtx;
use crate::{Machine, MachineError};

/// Register offsets of channel n, from 0x1000_0000.
pub const CHANNEL_BASE: [u32; 10] = [
    0x8000, 0x9000, 0xa000, 0xb000, 0xb400, 0xc000, 0xc400, 0xc800, 0xd000, 0xd400,
];
/// Dn_CHCR offset.
pub const CHCR: u32 = 0x00;
/// Dn_MADR offset.
pub const MADR: u32 = 0x10;
/// Dn_QWC offset.
pub const QWC: u32 = 0x20;
/// Dn_TADR offset.
pub const TADR: u32 = 0x30;
/// Dn_ASR0 offset.
pub const ASR0: u32 = 0x40;
/// Dn_ASR1 offset.
pub const ASR1: u32 = 0x50;
/// Dn_SADR offset (channels 8 and 9).
pub const SADR: u32 = 0x80;

/// D_CTRL: DMAE bit 0, RELE 1, MFD 2-3, STS 4-5, STD 6-7, RCYC 8-10.
pub const D_CTRL: u32 = 0x1000_e000;
/// D_STAT: CIS 0-9, SIS 13, MEIS 14, BEIS 15, CIM 16-25, SIM 29, MEIM 30.
pub const D_STAT: u32 = 0x1000_e010;
/// D_PCR: CPC 0-9, CDE 16-25, PCE 31.
pub const D_PCR: u32 = 0x1000_e020;
/// D_SQWC: SQWC 0-7 (skip), TQWC 16-23 (transfer), for interleave mode.
pub const D_SQWC: u32 = 0x1000_e030;
/// D_RBSR: the MFIFO ring size mask.
pub const D_RBSR: u32 = 0x1000_e040;
/// D_RBOR: the MFIFO ring base.
pub const D_RBOR: u32 = 0x1000_e050;
/// D_STADR: the stall address.
pub const D_STADR: u32 = 0x1000_e060;
/// D_ENABLEW: CPND bit 16 suspends every channel. D_ENABLER (0x1000_f520) reads it back.
pub const D_ENABLEW: u32 = 0x1000_f590;

/// CHCR.DIR: from memory.
pub const CHCR_DIR: u32 = 1;
/// CHCR.TTE: transfer the tag.
pub const CHCR_TTE: u32 = 1 << 6;
/// CHCR.TIE: stop on a tag's IRQ bit.
pub const CHCR_TIE: u32 = 1 << 7;
/// CHCR.STR: running.
pub const CHCR_STR: u32 = 1 << 8;

/// EE cycles per quadword moved.
pub const CYCLES_PER_QWORD: u64 = 2;
/// EE cycles per DMAtag read.
pub const TAG_CYCLES: u64 = 8;
/// EE cycles from STR to the first transfer.
pub const START_CYCLES: u64 = 16;
/// The most quadwords one event moves.
pub const BURST_QWORDS: u32 = 64;
/// How long a channel blocked by its device (a full FIFO, a stall, a masked path) waits before it
/// looks again, when nothing else tells it.
pub const POLL_CYCLES: u64 = 256;
/// The most tags one start of a channel may read.
pub const MAX_TAGS: u64 = 1 << 18;
/// The most quadwords one start of a channel may move (twice the size of RAM).
pub const MAX_QWORDS: u64 = (2 * RAM_SIZE / 16) as u64;

/// Channel numbers.
pub mod ch {
    /// VIF0.
    pub const VIF0: usize = 0;
    /// VIF1.
    pub const VIF1: usize = 1;
    /// GIF (PATH3).
    pub const GIF: usize = 2;
    /// fromIPU.
    pub const FROM_IPU: usize = 3;
    /// toIPU.
    pub const TO_IPU: usize = 4;
    /// SIF0 (IOP -> EE).
    pub const SIF0: usize = 5;
    /// SIF1 (EE -> IOP).
    pub const SIF1: usize = 6;
    /// SIF2.
    pub const SIF2: usize = 7;
    /// fromSPR.
    pub const FROM_SPR: usize = 8;
    /// toSPR.
    pub const TO_SPR: usize = 9;
}

/// A channel's progress that is not in its registers.
#[derive(Debug, Clone, Copy, Default, serde::Serialize, serde::Deserialize)]
pub struct ChanRun {
    /// The chain ends once the current block is done (END, REFE, RET with an empty stack, TIE+IRQ).
    pub end_after: bool,
    /// The current block is under stall control (a REFS tag, or normal mode).
    pub stall_ctl: bool,
    /// The current block's data is in the MFIFO ring.
    pub ring: bool,
    /// Tags read since the start.
    pub tags: u64,
    /// Quadwords moved since the start.
    pub qwords: u64,
    /// Quadwords of the current interleave slice done.
    pub ilv: u32,
    /// Address of the last tag read.
    pub tag_addr: u32,
}

/// The DMAC's state outside the registers.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Dmac {
    /// Per channel.
    pub run: [ChanRun; 10],
    /// An error found outside an event (a CPU FIFO write that failed), reported by the next event.
    pub pending_error: Option<DmaFault>,
}

/// A channel stopped on bad data.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DmaFault {
    /// The channel.
    pub channel: usize,
    /// The last tag's address (or MADR for normal mode).
    pub tag_addr: u32,
    /// What went wrong.
    pub what: String,
}

fn idx(off: u32) -> usize {
    ((off & 0xffff) / 4) as usize
}

impl EeBus {
    /// A channel register (offset `CHCR`..`SADR`).
    pub fn dreg(&self, c: usize, off: u32) -> u32 {
        self.io[idx(CHANNEL_BASE[c] + off)]
    }

    fn set_dreg(&mut self, c: usize, off: u32, v: u32) {
        self.io[idx(CHANNEL_BASE[c] + off)] = v;
    }

    fn ctrl(&self) -> u32 {
        self.io[idx(D_CTRL)]
    }

    /// Whether the DMAC asserts its interrupt (the CPU's IP3): CIS & CIM, SIS & SIM, MEIS & MEIM,
    /// or BEIS.
    pub fn dmac_irq_pending(&self) -> bool {
        let s = self.io[idx(D_STAT)];
        (s & 0x3ff) & ((s >> 16) & 0x3ff) != 0
            || (s & 0x6000) & ((s >> 16) & 0x6000) != 0
            || s & (1 << 15) != 0
    }

    /// COP0's CPCOND0 (BC0T/BC0F): true when every channel selected by D_PCR.CPC has its D_STAT.CIS.
    pub fn dmac_cpcond0(&self) -> bool {
        let pcr = self.io[idx(D_PCR)];
        let stat = self.io[idx(D_STAT)];
        (pcr & !stat) & 0x3ff == 0
    }

    /// An EE write to a DMAC register (channel registers, D_CTRL, D_PCR, D_SQWC, D_RBSR, D_RBOR,
    /// D_STADR, D_ENABLEW). D_STAT is written by the bus itself.
    pub fn dmac_write(&mut self, p: u32, v: u32) {
        let off = p & 0xffff;
        if (0x8000..0xe000).contains(&off) {
            let Some(c) = CHANNEL_BASE.iter().rposition(|&b| off >= b) else {
                return;
            };
            let reg = off - CHANNEL_BASE[c];
            let v = match reg {
                CHCR => v,
                // fromSPR/toSPR ignore MADR's SPR bit; addresses are quadword aligned.
                MADR if c >= ch::FROM_SPR => v & 0x7fff_fff0,
                MADR | TADR | ASR0 | ASR1 => v & 0xffff_fff0,
                QWC => v & 0xffff,
                // SADR: a 16 KiB scratchpad offset, quadword aligned.
                SADR => v & 0x3ff0,
                _ => v,
            };
            let old = self.dreg(c, reg);
            self.io[idx(off)] = v;
            if reg == CHCR {
                if v & CHCR_STR != 0 && old & CHCR_STR == 0 {
                    self.dmac_start(c);
                } else if v & CHCR_STR == 0 {
                    self.sched.cancel(Event::Dma(c as u8));
                }
            }
            return;
        }
        match p {
            D_ENABLEW => {
                self.io[idx(p)] = v;
                self.dmac_kick_all();
            }
            D_CTRL => {
                self.io[idx(p)] = v;
                self.dmac_kick_all();
            }
            D_PCR => {
                self.io[idx(p)] = v;
                self.irq_changed();
                self.dmac_kick_all();
            }
            D_STADR => {
                self.io[idx(p)] = v & 0xffff_fff0;
                self.dmac_kick_all();
            }
            _ => self.io[idx(p)] = v,
        }
    }

    /// STR rose on channel `c`: a fresh start.
    fn dmac_start(&mut self, c: usize) {
        self.dmac.run[c] = ChanRun::default();
        let at = self.now + START_CYCLES;
        self.dmac_schedule(c, at);
    }

    /// (Re)schedule channel `c`'s next event at `at`.
    pub fn dmac_schedule(&mut self, c: usize, at: u64) {
        let e = Event::Dma(c as u8);
        self.sched.cancel(e);
        self.sched.schedule_at(at, e);
    }

    /// Look again at every running channel soon (a control register changed).
    fn dmac_kick_all(&mut self) {
        for c in 0..10 {
            self.dmac_kick(c);
        }
    }

    /// Look again at channel `c` soon, if it runs and is not already due sooner.
    pub fn dmac_kick(&mut self, c: usize) {
        if self.dreg(c, CHCR) & CHCR_STR == 0 {
            return;
        }
        let at = self.now + 1;
        match self.sched.due_of(Event::Dma(c as u8)) {
            Some(t) if t <= at => {}
            _ => self.dmac_schedule(c, at),
        }
    }

    /// Whether channel `c` may run now: D_CTRL.DMAE, not D_ENABLEW.CPND, and D_PCR.CDE when PCE.
    fn dmac_enabled(&self, c: usize) -> bool {
        let pcr = self.io[idx(D_PCR)];
        self.ctrl() & 1 != 0
            && self.io[idx(D_ENABLEW)] & (1 << 16) == 0
            && (pcr & (1 << 31) == 0 || pcr & (1 << (16 + c)) != 0)
    }

    /// The channel that drains the MFIFO, if MFIFO is on (D_CTRL.MFD: 2 VIF1, 3 GIF).
    fn mfifo_drain(&self) -> Option<usize> {
        match (self.ctrl() >> 2) & 3 {
            2 => Some(ch::VIF1),
            3 => Some(ch::GIF),
            _ => None,
        }
    }

    /// An address inside the MFIFO ring: RBOR + (addr & RBSR).
    fn ring_addr(&self, a: u32) -> u32 {
        let rbor = self.io[idx(D_RBOR)];
        let rbsr = self.io[idx(D_RBSR)];
        rbor.wrapping_add(a & rbsr) & 0xffff_fff0
    }

    /// Where a DMA address lands: bit 31 selects the scratchpad, otherwise physical RAM.
    fn dma_loc(&self, a: u32) -> Option<(bool, usize)> {
        if a & 0x8000_0000 != 0 {
            return Some((true, (a & 0x3ff0) as usize));
        }
        let mut p = a & 0x7fff_fff0;
        if matches!(p >> 28, 2 | 3) {
            p &= 0x0fff_ffff;
        }
        ((p as usize) < RAM_SIZE).then_some((false, p as usize))
    }

    /// Read a quadword for the DMAC.
    pub fn dma_read_qw(&self, a: u32) -> Option<u128> {
        let (spr, o) = self.dma_loc(a)?;
        let m = if spr {
            &self.spr[o..o + 16]
        } else {
            &self.ram[o..o + 16]
        };
        Some(u128::from_le_bytes(m.try_into().ok()?))
    }

    /// Write a quadword for the DMAC.
    pub fn dma_write_qw(&mut self, a: u32, v: u128) -> Option<()> {
        let (spr, o) = self.dma_loc(a)?;
        let m = if spr {
            &mut self.spr[o..o + 16]
        } else {
            self.device_writes.note(o, 16);
            &mut self.ram[o..o + 16]
        };
        m.copy_from_slice(&v.to_le_bytes());
        Some(())
    }

    fn spr_read(&self, sadr: u32) -> u128 {
        let o = (sadr as usize) & (SPR_SIZE - 16);
        u128::from_le_bytes(self.spr[o..o + 16].try_into().unwrap_or([0; 16]))
    }

    fn spr_write(&mut self, sadr: u32, v: u128) {
        let o = (sadr as usize) & (SPR_SIZE - 16);
        self.spr[o..o + 16].copy_from_slice(&v.to_le_bytes());
    }

    /// Stop channel `c` on bad data: D_STAT.BEIS, STR cleared.
    fn dma_fault(&mut self, c: usize, what: String) -> DmaFault {
        self.io[idx(D_STAT)] |= 1 << 15;
        let chcr = self.dreg(c, CHCR);
        self.set_dreg(c, CHCR, chcr & !CHCR_STR);
        self.sched.cancel(Event::Dma(c as u8));
        self.irq_changed();
        DmaFault {
            channel: c,
            tag_addr: self.dmac.run[c].tag_addr,
            what,
        }
    }

    /// Channel `c` is done: STR clears, CISn is set.
    fn dma_finish(&mut self, c: usize) {
        let chcr = self.dreg(c, CHCR);
        self.set_dreg(c, CHCR, chcr & !CHCR_STR);
        self.io[idx(D_STAT)] |= 1 << c;
        self.dmac.run[c].end_after = false;
        self.irq_changed();
    }

    /// One event of channel `c` (not the SIF channels): move a block or read a tag.
    pub fn dma_step(&mut self, c: usize) -> Result<(), DmaFault> {
        if let Some(f) = self.dmac.pending_error.take() {
            return Err(f);
        }
        let chcr = self.dreg(c, CHCR);
        if chcr & CHCR_STR == 0 {
            // A VIF fed by the CPU (or left with data by its DMA) waits for its VU on this event.
            if c <= ch::VIF1 {
                self.vif_run(c);
            }
            return Ok(());
        }
        let now = self.now;
        if !self.dmac_enabled(c) {
            self.dmac_schedule(c, now + POLL_CYCLES);
            return Ok(());
        }
        if c == ch::FROM_IPU && (chcr >> 2) & 3 != 0 {
            return Err(self.dma_fault(
                c,
                "fromIPU (channel 3) has only normal mode (CHCR.MOD must be 0)".into(),
            ));
        }
        let qwc = self.dreg(c, QWC) & 0xffff;
        // VIF1 to memory (a GS download) is a normal-mode transfer whatever MOD says.
        let mode = if c == ch::VIF1 && chcr & CHCR_DIR == 0 {
            0
        } else {
            (chcr >> 2) & 3
        };
        if qwc > 0 {
            let moved = self.dma_move(c, qwc.min(BURST_QWORDS))?;
            let r = &mut self.dmac.run[c];
            r.qwords += moved as u64;
            if r.qwords > MAX_QWORDS {
                return Err(self.dma_fault(
                    c,
                    format!("runaway transfer: more than {MAX_QWORDS} quadwords"),
                ));
            }
            let next = if moved == 0 {
                self.dma_blocked_until(c)
            } else {
                now + moved as u64 * CYCLES_PER_QWORD
            };
            self.dmac_schedule(c, next);
            return Ok(());
        }
        // The current block is done. A VIF channel ends once its VIF has taken the data from its FIFO
        // (or stalled); a command still waiting for more data does not hold the DMA.
        if c <= ch::VIF1 && (mode != 1 || self.dmac.run[c].end_after) {
            self.vif_run(c);
            if !self.vif[c].fifo_empty() && !self.vif[c].stalled() {
                let at = self.dma_blocked_until(c);
                self.dmac_schedule(c, at);
                return Ok(());
            }
        }
        if mode != 1 || self.dmac.run[c].end_after {
            self.dma_finish(c);
            return Ok(());
        }
        self.dmac.run[c].tags += 1;
        if self.dmac.run[c].tags > MAX_TAGS {
            return Err(self.dma_fault(
                c,
                format!("runaway chain: more than {MAX_TAGS} tags without an end"),
            ));
        }
        let next = if c == ch::FROM_SPR {
            self.dma_dst_tag(c)?
        } else {
            self.dma_src_tag(c)?
        };
        if let Some(at) = next {
            self.dmac_schedule(c, at);
        }
        Ok(())
    }

    /// When a blocked channel should look again.
    fn dma_blocked_until(&self, c: usize) -> u64 {
        let now = self.now;
        if c <= 1 {
            let v = &self.vif[c];
            if v.waiting() && v.vu_busy_until > now {
                return v.vu_busy_until;
            }
            if v.stalled() {
                // A stalled VIF waits for FBRST.STC, which kicks the channel.
                return u64::MAX / 2;
            }
        }
        now + POLL_CYCLES
    }

    /// Read the next source-chain tag of channel `c` and set up its block. Returns when the next
    /// event is due (None: the channel waits for the MFIFO to fill).
    fn dma_src_tag(&mut self, c: usize) -> Result<Option<u64>, DmaFault> {
        let now = self.now;
        let mfifo = self.mfifo_drain() == Some(c);
        let mut t = self.dreg(c, TADR);
        if mfifo {
            t = self.ring_addr(t);
            // The ring is empty when the drain reaches what channel 8 has written: MEIS.
            if t == self.ring_addr(self.dreg(ch::FROM_SPR, MADR)) {
                self.io[idx(D_STAT)] |= 1 << 14;
                self.irq_changed();
                self.dmac.run[c].tags -= 1;
                return Ok(Some(now + POLL_CYCLES));
            }
        }
        self.dmac.run[c].tag_addr = t;
        let Some(tag) = self.dma_read_qw(t) else {
            return Err(self.dma_fault(c, format!("DMAtag address {t:#010x} is outside memory")));
        };
        let lo = tag as u64;
        let qwc = (lo & 0xffff) as u32;
        let id = (lo >> 28) & 7;
        let irq = lo >> 31 & 1 != 0;
        // ADDR bits 32-62, and bit 63 selects the scratchpad.
        let addr = ((lo >> 32) as u32 & 0x7fff_fff0) | ((lo >> 63) as u32) << 31;
        let mut chcr = self.dreg(c, CHCR);
        chcr = (chcr & 0xffff) | (lo as u32 & 0xffff_0000);
        let after = t.wrapping_add(16);
        let after_data = after.wrapping_add(qwc * 16);
        let wrap = |b: &Self, a: u32| if mfifo { b.ring_addr(a) } else { a };
        let mut end = false;
        let (madr, tadr, ring) = match id {
            // refe: data at ADDR, then end.
            0 => {
                end = true;
                (addr, after, false)
            }
            // cnt: data follows the tag; the next tag follows the data.
            1 => (after, wrap(self, after_data), true),
            // next: data follows the tag; the next tag is at ADDR.
            2 => (after, addr, true),
            // ref / refs: data at ADDR; the next tag follows this one.
            3 | 4 => (addr, after, false),
            // call: data follows; push the address after the data; the next tag is at ADDR.
            5 => {
                let asp = (chcr >> 4) & 3;
                match asp {
                    0 => self.set_dreg(c, ASR0, after_data),
                    1 => self.set_dreg(c, ASR1, after_data),
                    _ => {
                        self.set_dreg(c, CHCR, chcr);
                        return Err(self
                            .dma_fault(c, "CALL tag with a full address stack (ASP = 2)".into()));
                    }
                }
                chcr = (chcr & !0x30) | (asp + 1) << 4;
                (after, addr, true)
            }
            // ret: data follows; pop the next tag's address, or end when the stack is empty.
            6 => {
                let asp = (chcr >> 4) & 3;
                let tadr = match asp {
                    0 => {
                        end = true;
                        t
                    }
                    1 => self.dreg(c, ASR0),
                    _ => self.dreg(c, ASR1),
                };
                chcr = (chcr & !0x30) | asp.saturating_sub(1) << 4;
                (after, tadr, true)
            }
            // end: data follows, then end; TADR stays on the tag.
            _ => {
                end = true;
                (after, t, true)
            }
        };
        let madr = if mfifo && ring {
            self.ring_addr(madr)
        } else {
            madr
        };
        // TIE with the tag's IRQ bit: stop after this tag's data.
        if irq && chcr & CHCR_TIE != 0 {
            end = true;
        }
        self.set_dreg(c, CHCR, chcr);
        self.set_dreg(c, MADR, madr);
        self.set_dreg(c, TADR, tadr);
        self.set_dreg(c, QWC, qwc);
        let r = &mut self.dmac.run[c];
        r.end_after = end;
        r.stall_ctl = id == 4;
        r.ring = mfifo && ring;
        // TTE: VIF channels get the tag's upper 64 bits as two words; toSPR gets the whole tag.
        if chcr & CHCR_TTE != 0 {
            match c {
                ch::VIF0 | ch::VIF1 => {
                    self.vif[c].push_words(&[(tag >> 64) as u32, (tag >> 96) as u32]);
                    self.vif_run(c);
                }
                ch::TO_SPR => {
                    let sadr = self.dreg(c, SADR);
                    self.spr_write(sadr, tag);
                    self.set_dreg(c, SADR, (sadr + 16) & 0x3ff0);
                }
                _ => {}
            }
        }
        Ok(Some(now + TAG_CYCLES))
    }

    /// fromSPR's destination chain: the tag is the next quadword in the scratchpad.
    fn dma_dst_tag(&mut self, c: usize) -> Result<Option<u64>, DmaFault> {
        let sadr = self.dreg(c, SADR);
        let tag = self.spr_read(sadr);
        self.dmac.run[c].tag_addr = sadr | 0x8000_0000;
        self.set_dreg(c, SADR, (sadr + 16) & 0x3ff0);
        let lo = tag as u64;
        let qwc = (lo & 0xffff) as u32;
        let id = (lo >> 28) & 7;
        let irq = lo >> 31 & 1 != 0;
        let addr = ((lo >> 32) as u32 & 0x7fff_fff0) | ((lo >> 63) as u32) << 31;
        let chcr = (self.dreg(c, CHCR) & 0xffff) | (lo as u32 & 0xffff_0000);
        self.set_dreg(c, CHCR, chcr);
        self.set_dreg(c, MADR, addr);
        self.set_dreg(c, QWC, qwc);
        let r = &mut self.dmac.run[c];
        // Destination tags: 0 cnt, 1 cnts (stall control), 7 end.
        r.end_after = id == 7 || (irq && chcr & CHCR_TIE != 0);
        r.stall_ctl = id == 1;
        if !matches!(id, 0 | 1 | 7) {
            return Err(self.dma_fault(
                c,
                format!("destination chain tag with ID {id} (only cnt, cnts, end exist)"),
            ));
        }
        Ok(Some(self.now + TAG_CYCLES))
    }

    /// Move up to `n` quadwords of channel `c`'s current block. Returns how many moved.
    fn dma_move(&mut self, c: usize, n: u32) -> Result<u32, DmaFault> {
        let ctrl = self.ctrl();
        let chcr = self.dreg(c, CHCR);
        let mode = (chcr >> 2) & 3;
        let download = c == ch::VIF1 && chcr & CHCR_DIR == 0;
        let mut n = n;
        // Stall control: a drain channel (D_CTRL.STD: 1 VIF1, 2 GIF, 3 SIF1) does not read past
        // D_STADR in normal mode or in a REFS block.
        let std = match (ctrl >> 6) & 3 {
            1 => Some(ch::VIF1),
            2 => Some(ch::GIF),
            _ => None,
        };
        if std == Some(c) && !download && (mode == 0 || self.dmac.run[c].stall_ctl) {
            let madr = self.dreg(c, MADR);
            let stadr = self.io[idx(D_STADR)];
            let room = stadr.saturating_sub(madr) / 16;
            if room == 0 {
                self.io[idx(D_STAT)] |= 1 << 13;
                self.irq_changed();
                return Ok(0);
            }
            n = n.min(room);
        }
        if c <= ch::VIF1 {
            self.vif_run(c);
        }
        let mut moved = 0;
        while moved < n {
            let madr = self.dreg(c, MADR);
            match c {
                ch::VIF1 if download => {
                    // VIF1's FIFO faces memory only with STAT.FDR set; the GS fills it from its
                    // local->host output. Without either, the channel waits.
                    if !self.vif[1].fdr() {
                        break;
                    }
                    let mut q = [0u128];
                    if self.gif.gs.read_image(&mut q) == 0 {
                        break;
                    }
                    if self.dma_write_qw(madr, q[0]).is_none() {
                        return Err(self.dma_fault(
                            c,
                            format!("destination address {madr:#010x} is outside memory"),
                        ));
                    }
                }
                ch::VIF0 | ch::VIF1 => {
                    // The DMA fills the FIFO even while the VIF is stalled or waits.
                    if self.vif[c].fifo_room() < 4 {
                        break;
                    }
                    let q = self.dma_src_read(c, madr)?;
                    self.vif[c].push_words(&[
                        q as u32,
                        (q >> 32) as u32,
                        (q >> 64) as u32,
                        (q >> 96) as u32,
                    ]);
                    self.vif_run(c);
                }
                ch::GIF => {
                    if self.gif.path3_room() == 0 {
                        self.gif.pump();
                        if self.gif.path3_room() == 0 {
                            break;
                        }
                    }
                    let q = self.dma_src_read(c, madr)?;
                    self.gif.push(path::P3, &[q]);
                    self.gif.pump();
                }
                ch::TO_IPU => {
                    if self.ipu.in_room() == 0 {
                        break;
                    }
                    let q = self.dma_src_read(c, madr)?;
                    self.ipu.push_in(q);
                    self.ipu_run();
                }
                ch::FROM_IPU => {
                    let Some(q) = self.ipu.pop_out() else {
                        break;
                    };
                    if self.dma_write_qw(madr, q).is_none() {
                        return Err(self.dma_fault(
                            c,
                            format!("destination address {madr:#010x} is outside memory"),
                        ));
                    }
                    self.ipu_run();
                }
                ch::TO_SPR => {
                    let q = self.dma_src_read(c, madr)?;
                    let sadr = self.dreg(c, SADR);
                    self.spr_write(sadr, q);
                    self.set_dreg(c, SADR, (sadr + 16) & 0x3ff0);
                }
                ch::FROM_SPR => {
                    let sadr = self.dreg(c, SADR);
                    let q = self.spr_read(sadr);
                    self.set_dreg(c, SADR, (sadr + 16) & 0x3ff0);
                    let dst = if self.mfifo_drain().is_some() {
                        self.ring_addr(madr)
                    } else {
                        madr
                    };
                    if self.dma_write_qw(dst, q).is_none() {
                        return Err(self.dma_fault(
                            c,
                            format!("destination address {dst:#010x} is outside memory"),
                        ));
                    }
                }
                _ => {
                    return Err(self.dma_fault(
                        c,
                        format!("DMA channel {c} is not handled by the DMAC model"),
                    ));
                }
            }
            moved += 1;
            let mut next = madr.wrapping_add(16);
            if self.dmac.run[c].ring || (c == ch::FROM_SPR && self.mfifo_drain().is_some()) {
                next = self.ring_addr(next);
            }
            // Interleave (fromSPR/toSPR): after TQWC quadwords, skip SQWC in memory.
            if mode == 2 && c >= ch::FROM_SPR {
                let sq = self.io[idx(D_SQWC)];
                let (skip, tq) = (sq & 0xff, (sq >> 16) & 0xff);
                let r = &mut self.dmac.run[c];
                r.ilv += 1;
                if r.ilv >= tq {
                    r.ilv = 0;
                    next = next.wrapping_add(skip * 16);
                }
            }
            self.set_dreg(c, MADR, next);
            let q = self.dreg(c, QWC);
            self.set_dreg(c, QWC, q - 1);
        }
        if moved > 0 && c == ch::FROM_SPR {
            // Stall control source (D_CTRL.STS = 2): D_STADR follows fromSPR's MADR.
            if (ctrl >> 4) & 3 == 2 {
                self.io[idx(D_STADR)] = self.dreg(c, MADR);
                if let Some(d) = std {
                    self.dmac_kick(d);
                }
            }
            if let Some(d) = self.mfifo_drain() {
                self.dmac_kick(d);
            }
        }
        Ok(moved)
    }

    fn dma_src_read(&mut self, c: usize, madr: u32) -> Result<u128, DmaFault> {
        match self.dma_read_qw(madr) {
            Some(q) => Ok(q),
            None => {
                Err(self.dma_fault(c, format!("source address {madr:#010x} is outside memory")))
            }
        }
    }

    /// Let VIF `unit` decode what it has; apply its side effects.
    pub fn vif_run(&mut self, unit: usize) {
        let mut ctx = VifCtx {
            vu_mem: &mut self.vu_mem,
            gif: &mut self.gif,
            vu: self.vu_exec.as_mut(),
            now: self.now,
        };
        if let Err(what) = self.vif[unit].run(&mut ctx)
            && self.dmac.pending_error.is_none()
        {
            self.dmac.pending_error = Some(DmaFault {
                channel: unit,
                tag_addr: self.dmac.run[unit].tag_addr,
                what,
            });
            self.dmac_schedule(unit, self.now);
        }
        // A VIF waiting for its VU looks again when the VU is done (if nothing else is due).
        let v = &self.vif[unit];
        if v.waiting() && self.sched.due_of(Event::Dma(unit as u8)).is_none() {
            let at = if v.vu_busy_until > self.now {
                v.vu_busy_until
            } else {
                self.now + POLL_CYCLES
            };
            self.sched.schedule_at(at, Event::Dma(unit as u8));
        }
        self.dev_sync();
    }

    /// Apply the devices' side effects: VIF interrupts to INTC, channel kicks, and the GS
    /// interrupts of the SIGNALs and FINISHes the GIF delivered.
    pub fn dev_sync(&mut self) {
        for u in 0..2 {
            if std::mem::take(&mut self.vif[u].raise_intc) {
                self.intc.raise(crate::intc::line::VIF0 + u as u32);
                self.irq_changed();
            }
            if std::mem::take(&mut self.vif[u].kick) {
                self.dmac_kick(u);
                self.dmac_kick(ch::GIF);
            }
        }
        if !self.gif.priv_events.is_empty() {
            let ev = std::mem::take(&mut self.gif.priv_events);
            for (reg, v) in ev {
                self.gs_priv_event(reg, v);
            }
        }
        // PATH1 qwords queued (an XGKICK) cross to the GS in time.
        self.path1_schedule();
    }

    /// A SIGNAL or FINISH the GS took (its CSR bit is set): the GS interrupt (INTC line 0)
    /// unless IMR masks it (SIGMSK bit 8, FINISHMSK bit 9).
    fn gs_priv_event(&mut self, reg: u8, _v: u64) {
        let bit = if reg == crate::gif::gsreg::SIGNAL {
            0
        } else {
            1
        };
        if self.gif.gs.raises(bit) {
            self.intc.raise(crate::intc::line::GS);
        }
        self.irq_changed();
    }

    /// An EE write to a FIFO window: VIF0 0x1000_4000, VIF1 0x1000_5000, GIF 0x1000_6000,
    /// IPU_in_FIFO 0x1000_7010 (IPU_out_FIFO, 0x1000_7000, ignores writes). `words` are the 32-bit
    /// words written, in order.
    pub fn fifo_write(&mut self, p: u32, words: &[u32]) {
        match p & 0xffff_f000 {
            0x1000_4000 | 0x1000_5000 => {
                let u = ((p >> 12) & 1) as usize;
                self.vif[u].push_words(words);
                self.vif_run(u);
            }
            0x1000_6000 => {
                for &w in words {
                    if let Some(q) = self.gif.fifo_word(w) {
                        self.gif.push(path::P3, &[q]);
                    }
                }
                self.gif.pump();
                self.dev_sync();
            }
            0x1000_7000 if p & 0xff0 == 0x010 => self.ipu_fifo_write(words),
            _ => {}
        }
    }

    /// Start VU1's microprogram at instruction index `pc` from outside the VIF (COP2's CMSAR1
    /// write): it runs through [`EeBus::vu_exec`] with VIF1's TOP/ITOP, its XGKICKs go to PATH1,
    /// and VIF1 sees it busy ([`EeBus::vu1_busy`]) for the cycles it took.
    pub fn vu1_start(&mut self, pc: u32) -> Result<(), String> {
        let v = &self.vif[1];
        let (top, itop) = (v.top, v.itop);
        let io = crate::vif::VuIo {
            vu_mem: &mut self.vu_mem,
            gif: &mut self.gif,
        };
        let cycles = self.vu_exec.start(1, Some(pc), top, itop, io)?;
        self.vif[1].vu_busy_until = self.now + cycles;
        self.gif.pump();
        self.dev_sync();
        Ok(())
    }

    /// Whether VU1 is still running (COP2's VPU-STAT bit 8).
    pub fn vu1_busy(&self) -> bool {
        self.vif[1].vu_busy_until > self.now
    }

    /// The cycle at which VU1 stops being busy.
    pub fn vu1_busy_until(&self) -> u64 {
        self.vif[1].vu_busy_until
    }

    /// An EE read of a VIF or GIF register or FIFO (physical address), if `p` is one.
    pub fn dev_read(&mut self, p: u32) -> Option<u32> {
        match p {
            0x1000_3000..=0x1000_37ff => Some(self.gif.read(p & !0xf)),
            0x1000_3800..=0x1000_3bff => Some(self.vif[0].read(p & 0x3f0)),
            0x1000_3c00..=0x1000_3fff => {
                let mut v = self.vif[1].read(p & 0x3f0);
                // With the FIFO turned round (FDR), FQC counts the GS's local->host qwords
                // waiting (at most 16).
                if p & 0x3f0 == 0 && self.vif[1].fdr() {
                    let n = self.gif.gs.readback_qwords().min(16) as u32;
                    v = (v & !(0x1f << 24)) | n << 24;
                }
                Some(v)
            }
            0x1000_5000..=0x1000_5fff => Some(self.vif1_fifo_read(p)),
            0x1000_7000..=0x1000_700f => Some(self.ipu_fifo_read(p)),
            0x1000_4000..=0x1000_7fff => Some(0),
            _ => None,
        }
    }

    /// An EE read of VIF1's FIFO (0x1000_5000; a 128-bit read takes its four words in order):
    /// with STAT.FDR set, the read of word 0 takes the next qword of the GS's local->host data
    /// (zero when none waits); without it the FIFO reads zero.
    fn vif1_fifo_read(&mut self, p: u32) -> u32 {
        let word = (p >> 2) & 3;
        if word == 0 {
            let mut q = [0u128];
            if !self.vif[1].fdr() || self.gif.gs.read_image(&mut q) == 0 {
                q[0] = 0;
            }
            self.vif[1].read_latch = q[0];
        }
        (self.vif[1].read_latch >> (32 * word)) as u32
    }

    /// An EE write of a VIF or GIF register. Returns false if `p` is not one.
    pub fn dev_write(&mut self, p: u32, v: u32) -> bool {
        match p {
            0x1000_3000..=0x1000_37ff => {
                self.gif.write(p & !0xf, v);
                // Unmasking or unpausing PATH3 lets channel 2 go on.
                self.dmac_kick(ch::GIF);
                self.dev_sync();
            }
            0x1000_3800..=0x1000_3fff => {
                let u = ((p >> 10) & 1) as usize;
                self.vif[u].write(p & 0x3f0, v);
                self.vif_run(u);
            }
            0x1000_4000..=0x1000_7fff => self.fifo_write(p & !0xf, &[v]),
            _ => return false,
        }
        true
    }
}

impl Machine {
    /// The timed event of DMA channel `c`.
    pub(crate) fn dmac_event(&mut self, c: u8) -> Result<(), MachineError> {
        self.bus.now = self.cpu.cycles;
        let c = c as usize;
        if matches!(c, ch::SIF0 | ch::SIF1) {
            let r = self.bus.sif_step(c);
            if std::mem::take(&mut self.bus.sif1_done) {
                self.sif1_chain_done();
            }
            if self.bus.iop.bus.hw.sif.iop_wake {
                self.iop_wake_soon();
            }
            return r.map_err(|f| MachineError::Dma {
                channel: f.channel as u8,
                tag_addr: f.tag_addr,
                what: f.what,
                pc: self.cpu.cur_pc,
            });
        }
        if c == ch::SIF2 {
            return self.dmac_sif_start(c);
        }
        let r = self.bus.dma_step(c);
        self.bus.dev_sync();
        r.map_err(|f| MachineError::Dma {
            channel: f.channel as u8,
            tag_addr: f.tag_addr,
            what: f.what,
            pc: self.cpu.cur_pc,
        })?;
        // VIF0 decoded an MSCAL: VU0 runs now (on COP2's registers), then VIF0 goes on.
        self.service_vif0_start()
    }

    /// SIF2 (channel 7, the PS1-mode and debug link) started by a CHCR write: not modelled.
    pub fn dmac_sif_start(&mut self, c: usize) -> Result<(), MachineError> {
        if self.bus.dreg(c, CHCR) & CHCR_STR == 0 {
            return Ok(());
        }
        Err(MachineError::Dma {
            channel: c as u8,
            tag_addr: self.bus.dreg(c, TADR),
            what: format!("SIF2 DMA (channel {c}) is not modelled"),
            pc: self.cpu.cur_pc,
        })
    }

    /// Let time pass to `cycle` with the CPU idle, running every timed event due on the way (for
    /// tests and tools that drive devices without a guest program).
    pub fn run_events_until(&mut self, cycle: u64) -> Result<(), MachineError> {
        // A VIF0 start asked for by a bus access made outside a CPU step.
        self.bus.now = self.cpu.cycles;
        self.service_vif0_start()?;
        while self.bus.sched.next_due() <= cycle {
            let t = self.bus.sched.next_due();
            self.cpu.cycles = self.cpu.cycles.max(t);
            self.bus.now = self.cpu.cycles;
            self.dispatch_events()?;
        }
        self.cpu.cycles = self.cpu.cycles.max(cycle);
        self.bus.now = self.cpu.cycles;
        self.update_interrupt_lines();
        Ok(())
    }
}

#[cfg(test)]
mod download_tests {
    //! VIF1's FIFO turned round for a GS local->host transfer: VIF1_STAT.FDR, FQC, the CPU's FIFO
    //! reads and channel 1 with CHCR.DIR = 0. Facts from the EE User's Manual (VIF1_STAT, D1_CHCR)
    //! and the GS User's Manual (BITBLTBUF, TRXPOS, TRXREG, TRXDIR).
    use super::*;
    use piney_ee::Bus;

    const VIF1_STAT: u32 = 0x1000_3c00;
    const FDR: u32 = 1 << 23;

    fn ad(reg: u8, v: u64) -> u128 {
        v as u128 | (reg as u128) << 64
    }

    fn pixel(i: u32) -> u32 {
        0x5a00_0000 | (i * 0x0101)
    }

    /// A machine whose GS holds a 4x8 PSMCT32 image at block 0x80 (32 words, 8 qwords), with a
    /// local->host transfer of it started (TRXDIR = 1).
    fn machine_with_download() -> Machine {
        let mut m = Machine::new(Box::new(std::io::sink()));
        m.attach_renderer(Box::new(piney_gs::SoftwareRenderer::new()));
        let mut gif = vec![
            // A+D, 4 registers, then IMAGE, 8 qwords.
            4u128 | 1 << 15 | 1 << 60 | 0xe << 64,
            ad(0x50, (0x80 | 1 << 16) << 32),
            ad(0x51, 0),
            ad(0x52, 4 | 8 << 32),
            ad(0x53, 0),
            8u128 | 1 << 15 | 2 << 58,
        ];
        gif.extend((0..8).map(|q| {
            (0..4)
                .rev()
                .fold(0u128, |a, w| a << 32 | pixel(4 * q + w) as u128)
        }));
        // The download: source = the same rectangle.
        gif.push(2u128 | 1 << 15 | 1 << 60 | 0xe << 64);
        gif.push(ad(0x50, 0x80 | 1 << 16));
        gif.push(ad(0x53, 1));
        for q in gif {
            m.bus.write128(0x1000_6000, q).unwrap();
        }
        m
    }

    fn stat(m: &mut Machine) -> u32 {
        m.bus.read32(VIF1_STAT).unwrap()
    }

    #[test]
    fn fqc_counts_the_waiting_qwords_once_fdr_is_set() {
        let mut m = machine_with_download();
        assert_eq!(stat(&mut m) >> 24, 0, "FQC: the FIFO faces the VIF");
        assert_ne!(
            m.bus.read32(0x1000_3020).unwrap() & 1 << 12,
            0,
            "GIF_STAT.DIR"
        );
        m.bus.write32(VIF1_STAT, FDR | 0xff).unwrap();
        assert_eq!(
            stat(&mut m),
            FDR | 8 << 24,
            "only FDR is writable; 8 qwords wait"
        );
    }

    #[test]
    fn the_cpu_reads_the_fifo_a_qword_at_a_time() {
        let mut m = machine_with_download();
        assert_eq!(
            m.bus.read128(0x1000_5000).unwrap(),
            0,
            "FDR clear: the FIFO reads 0"
        );
        m.bus.write32(VIF1_STAT, FDR).unwrap();
        let q = m.bus.read128(0x1000_5000).unwrap();
        assert_eq!(q as u32, pixel(0));
        assert_eq!((q >> 96) as u32, pixel(3));
        assert_eq!(stat(&mut m) >> 24 & 0x1f, 7);
    }

    #[test]
    fn channel_1_to_memory_moves_the_download() {
        let mut m = machine_with_download();
        m.bus.write32(VIF1_STAT, FDR).unwrap();
        m.bus.write32(D_CTRL, 1).unwrap();
        m.bus.write32(0x1000_9010, 0x2000).unwrap();
        m.bus.write32(0x1000_9020, 8).unwrap();
        // DIR = 0, chain mode asked for: a download is a normal transfer.
        m.bus.write32(0x1000_9000, CHCR_STR | 1 << 2).unwrap();
        m.run_events_until(1000).unwrap();
        assert_eq!(m.bus.dreg(ch::VIF1, CHCR) & CHCR_STR, 0, "done");
        assert_eq!(m.bus.dreg(ch::VIF1, MADR), 0x2080);
        for i in 0..32 {
            let o = 0x2000 + 4 * i as usize;
            let w = u32::from_le_bytes(m.bus.ram[o..o + 4].try_into().unwrap());
            assert_eq!(w, pixel(i), "word {i}");
        }
        assert_eq!(stat(&mut m) >> 24 & 0x1f, 0);
    }

    #[test]
    fn channel_1_to_memory_waits_for_fdr_and_for_data() {
        let mut m = machine_with_download();
        m.bus.write32(D_CTRL, 1).unwrap();
        m.bus.write32(0x1000_9010, 0x2000).unwrap();
        m.bus.write32(0x1000_9020, 10).unwrap();
        m.bus.write32(0x1000_9000, CHCR_STR).unwrap();
        // FDR clear: the FIFO faces the VIF and nothing comes.
        m.run_events_until(5000).unwrap();
        assert_ne!(m.bus.dreg(ch::VIF1, CHCR) & CHCR_STR, 0);
        assert_eq!(m.bus.dreg(ch::VIF1, QWC), 10);
        // FDR set: the 8 qwords the GS has come; the channel waits for the other 2.
        m.bus.now = m.cpu.cycles;
        m.bus.write32(VIF1_STAT, FDR).unwrap();
        m.run_events_until(10_000).unwrap();
        assert_eq!(m.bus.dreg(ch::VIF1, QWC), 2);
        assert_ne!(m.bus.dreg(ch::VIF1, CHCR) & CHCR_STR, 0);
    }
}
