//! dmacman: the DMA controller library, over piney's IOP DMAC ([`crate::hw::dmac`]).
//!
//! The console's facts (ps2sdk's reconstruction, iop/system/dmacman, and its exports.tab for the
//! indices; library version 1.2):
//! - Channels are numbered as the hardware's: 0 MDEC in, 1 MDEC out, 2 SIF2, 3 CDVD, 4 SPU2
//!   core 0, 5 PIO, 6 OTC, 7 SPU2 core 1, 8 DEV9, 9 SIF0, 10 SIF1, 11 SIO2 in, 12 SIO2 out; the
//!   channel register functions ignore (getters answer 0 for) any other number, TADR exists
//!   for 4 and 9 only, the "4_9_a" registers (0x1f80_1568, 0x1f80_1560, 0x1f80_1564) for 4, 9
//!   and 10 only.
//! - At boot dmacman sets DPCR and DPCR2 to 0x0777_7777 and DPCR3 (0x1f80_15f0) to 0x777, clears
//!   every channel's MADR, BCR and CHCR (and the TADRs and 4_9_a registers), and sets DMACEN
//!   (0x1f80_1578) to 1.
//! - sceSetSliceDMA(ch, addr, size, count, dir) (dmac_request): not for 6 or 13 and up (0);
//!   MADR = addr & 0xff_ffff, BCR = size | count << 16, CHCR = dir & 1 | 0x200 (slice mode) |
//!   0x4000_0000 when dir is 0 (to memory); 1. dmac_set_dma_chained_spu_sif0 (4 or 9): BCR,
//!   CHCR 0x601, TADR. dmac_set_dma_sif0 (9 only): CHCR 0x701. dmac_set_dma_sif1 (10 only): CHCR
//!   0x4000_0300. sceStartDMA(ch) (dmac_transfer), for ch < 15: CHCR |= 0x0100_0000 (start).
//! - sceSetDMAPriority(ch, p) (dmac_ch_set_dpcr) puts p & 7 into the channel's DPCR field (0-6:
//!   DPCR bits 4ch; 7-12: DPCR2 bits 4(ch-7); 13-15, the FDMA channels: DPCR3 bits 4(ch-13);
//!   67 ('C', the CPU): DPCR bits 28; 85 ('U', USB): DPCR2 bits 24); sceEnableDMAChannel and
//!   sceDisableDMAChannel (dmac_enable/disable) set or clear the bit above that field (not for
//!   the CPU), all with interrupts suspended.
//! - dmacman_deinit (export 2) sets DMACEN to 0 and clears each channel's start bit, warning
//!   about a channel still running.
//!
//! A channel started, through these functions or by a module writing CHCR itself, runs when a
//! device is behind it: SIF0 (9, in chain mode from memory) and SIF1 (10, in slice mode to
//! memory) run on piney's SIF ([`crate::kernel::sif`]). Any other channel stops the run with an
//! error naming it (the CDVD, the SPU2, SIO2 and DEV9 are not emulated yet): a module would
//! otherwise wait for its end for ever.

use super::{Iop, IopError, LibDef, Ret};
use crate::events::EventKind;
use crate::hw::dmac::{self, CHCR_BUSY, SIF0, SIF1, TAG_CYCLES, channel_base};

/// DPCR.
const DPCR: u32 = 0x1f80_10f0;
/// DICR.
const DICR: u32 = 0x1f80_10f4;
/// DPCR2.
const DPCR2: u32 = 0x1f80_1570;
/// DICR2.
const DICR2: u32 = 0x1f80_1574;
/// DMACEN: the second controller's enable.
const DMACEN: u32 = 0x1f80_1578;
/// DMACINTEN (dmacman's "BF80157C").
const DMACINTEN: u32 = 0x1f80_157c;
/// DPCR3: the FDMA channels' priorities.
const DPCR3: u32 = 0x1f80_15f0;
/// The channels (13 of them).
const CHANNELS: u32 = 13;
/// IOP_DMAC_OTC.
const OTC: u32 = 6;

/// The channels' names, for messages.
pub const NAMES: [&str; 13] = [
    "MDEC in",
    "MDEC out",
    "SIF2",
    "CDVD",
    "SPU2 core 0",
    "PIO",
    "OTC",
    "SPU2 core 1",
    "DEV9",
    "SIF0",
    "SIF1",
    "SIO2 in",
    "SIO2 out",
];

fn rd(iop: &mut Iop, p: u32) -> u32 {
    iop.bus.hw.read(p, 4).unwrap_or(0)
}

fn wr(iop: &mut Iop, p: u32, v: u32) {
    iop.bus.hw.write(p, 4, v);
}

/// dmacman's start: the registers as the console's dmacman leaves them.
pub fn boot(iop: &mut Iop) {
    wr(iop, DPCR, 0x0777_7777);
    wr(iop, DPCR2, 0x0777_7777);
    wr(iop, DPCR3, 0x777);
    for ch in 0..CHANNELS {
        let b = channel_base(ch as usize);
        // The SIF channels are piney's sifman's from here on; their registers start clear.
        wr(iop, b, 0);
        wr(iop, b + 4, 0);
        iop.bus.hw.dmac.ch[ch as usize].chcr = 0;
    }
    for r in [
        0x1f80_10cc,
        0x1f80_152c,
        0x1f80_1560,
        0x1f80_1564,
        0x1f80_1568,
    ] {
        wr(iop, r, 0);
    }
    wr(iop, DMACEN, 1);
}

impl Iop {
    /// Channels started since the last look ([`dmac::Dmac::started`]): the SIF channels run,
    /// any other is an error naming it.
    pub fn dma_started(&mut self) -> Result<(), IopError> {
        let started = std::mem::take(&mut self.bus.hw.dmac.started);
        for (n, name) in NAMES.iter().enumerate() {
            if started & (1 << n) == 0 {
                continue;
            }
            let c = self.bus.hw.dmac.ch[n];
            let mode = (c.chcr >> 9) & 3;
            let from_memory = c.chcr & 1 != 0;
            match n {
                SIF0 if mode == 3 && from_memory => {
                    // Chain mode from memory, tags at TADR: as sifman starts it.
                    self.bus.hw.dmac.sif0 = dmac::SifRun::default();
                    self.events.cancel(EventKind::Dma(SIF0 as u8));
                    self.events
                        .schedule(self.cpu.cycles + TAG_CYCLES, EventKind::Dma(SIF0 as u8));
                }
                SIF1 if mode == 1 && !from_memory => {
                    self.bus.hw.dmac.sif1 = dmac::SifRun::default();
                    self.events.cancel(EventKind::Dma(SIF1 as u8));
                    self.events
                        .schedule(self.cpu.cycles + TAG_CYCLES, EventKind::Dma(SIF1 as u8));
                }
                crate::sound::CH_CORE0 | crate::sound::CH_CORE1 => self.spu2_dma_start(n)?,
                SIF0 | SIF1 => {
                    return Err(self.fault(format!(
                        "DMA channel {n} ({name}) started with CHCR {:#010x}: piney moves SIF0 in chain mode from memory and SIF1 in slice mode to memory only",
                        c.chcr
                    )));
                }
                _ => {
                    return Err(self.fault(format!(
                        "DMA channel {n} ({name}) started (MADR {:#08x}, BCR {:#010x}, CHCR {:#010x}): piney has no {name} device behind the IOP's DMAC yet",
                        c.madr, c.bcr, c.chcr
                    )));
                }
            }
        }
        Ok(())
    }
}

/// A channel register (`reg`: 0 MADR, 4 BCR, 8 CHCR, 0xc TADR) of channel `ch`, if it has one.
fn channel_reg(ch: u32, reg: u32) -> Option<u32> {
    if ch >= CHANNELS || (reg == 0xc && ch != 4 && ch != 9) {
        return None;
    }
    Some(channel_base(ch as usize) + reg)
}

/// The "4_9_a" register of channel 4, 9 or 10.
fn reg_4_9_a(ch: u32) -> Option<u32> {
    match ch {
        4 => Some(0x1f80_1568),
        9 => Some(0x1f80_1560),
        10 => Some(0x1f80_1564),
        _ => None,
    }
}

fn set_ch(iop: &mut Iop, reg: u32) -> Result<Ret, IopError> {
    let (ch, val) = (iop.arg(0), iop.arg(1));
    if let Some(p) = channel_reg(ch, reg) {
        wr(iop, p, val);
        iop.dma_started()?;
    }
    Ok(Ret::V(0))
}

fn get_ch(iop: &mut Iop, reg: u32) -> Result<Ret, IopError> {
    let ch = iop.arg(0);
    Ok(Ret::V(channel_reg(ch, reg).map_or(0, |p| rd(iop, p))))
}

fn set_madr(iop: &mut Iop) -> Result<Ret, IopError> {
    set_ch(iop, 0)
}
fn get_madr(iop: &mut Iop) -> Result<Ret, IopError> {
    get_ch(iop, 0)
}
fn set_bcr(iop: &mut Iop) -> Result<Ret, IopError> {
    set_ch(iop, 4)
}
fn get_bcr(iop: &mut Iop) -> Result<Ret, IopError> {
    get_ch(iop, 4)
}
fn set_chcr(iop: &mut Iop) -> Result<Ret, IopError> {
    set_ch(iop, 8)
}
fn get_chcr(iop: &mut Iop) -> Result<Ret, IopError> {
    get_ch(iop, 8)
}
fn set_tadr(iop: &mut Iop) -> Result<Ret, IopError> {
    set_ch(iop, 0xc)
}
fn get_tadr(iop: &mut Iop) -> Result<Ret, IopError> {
    get_ch(iop, 0xc)
}

fn set_4_9_a(iop: &mut Iop) -> Result<Ret, IopError> {
    let (ch, val) = (iop.arg(0), iop.arg(1));
    if let Some(p) = reg_4_9_a(ch) {
        wr(iop, p, val);
    }
    Ok(Ret::V(0))
}

fn get_4_9_a(iop: &mut Iop) -> Result<Ret, IopError> {
    let ch = iop.arg(0);
    Ok(Ret::V(reg_4_9_a(ch).map_or(0, |p| rd(iop, p))))
}

/// A setter and a getter of a whole register.
macro_rules! register {
    ($set:ident, $get:ident, $reg:expr) => {
        fn $set(iop: &mut Iop) -> Result<Ret, IopError> {
            let v = iop.arg(0);
            wr(iop, $reg, v);
            Ok(Ret::V(0))
        }
        fn $get(iop: &mut Iop) -> Result<Ret, IopError> {
            Ok(Ret::V(rd(iop, $reg)))
        }
    };
}

register!(set_dpcr, get_dpcr, DPCR);
register!(set_dpcr2, get_dpcr2, DPCR2);
register!(set_dpcr3, get_dpcr3, DPCR3);
register!(set_dicr, get_dicr, DICR);
register!(set_dicr2, get_dicr2, DICR2);
register!(set_dmacinten, get_dmacinten, DMACINTEN);
register!(set_dmacen, get_dmacen, DMACEN);

fn deinit(iop: &mut Iop) -> Result<Ret, IopError> {
    wr(iop, DMACEN, 0);
    for ch in 0..CHANNELS {
        let p = channel_base(ch as usize) + 8;
        let v = rd(iop, p);
        if v & CHCR_BUSY != 0 {
            iop.out.extend_from_slice(
                format!("WARNING:DMA {ch}ch has been continued until shutdown\n").as_bytes(),
            );
        }
        wr(iop, p, v & !CHCR_BUSY);
    }
    Ok(Ret::V(1))
}

fn set_slice_dma(iop: &mut Iop) -> Result<Ret, IopError> {
    let (ch, addr, size, count, dir) = (iop.arg(0), iop.arg(1), iop.arg(2), iop.arg(3), iop.arg(4));
    if ch >= CHANNELS || ch == OTC {
        return Ok(Ret::V(0));
    }
    let b = channel_base(ch as usize);
    wr(iop, b, addr & 0x00ff_ffff);
    wr(iop, b + 4, (size & 0xffff) | (count << 16));
    let to_memory = if dir == 0 { 0x4000_0000 } else { 0 };
    wr(iop, b + 8, (dir & 1) | 0x200 | to_memory);
    iop.dma_started()?;
    Ok(Ret::V(1))
}

/// Set up a chain (`chcr`) on channel `ch` if it is one of `allowed`: BCR, CHCR, TADR.
fn set_chain(iop: &mut Iop, allowed: &[u32], chcr: u32) -> Result<Ret, IopError> {
    let (ch, size, tadr) = (iop.arg(0), iop.arg(1), iop.arg(2));
    if !allowed.contains(&ch) {
        return Ok(Ret::V(0));
    }
    let b = channel_base(ch as usize);
    wr(iop, b + 4, size & 0xffff);
    wr(iop, b + 8, chcr);
    wr(iop, b + 0xc, tadr & 0x00ff_ffff);
    iop.dma_started()?;
    Ok(Ret::V(1))
}

fn set_dma_chained_spu_sif0(iop: &mut Iop) -> Result<Ret, IopError> {
    set_chain(iop, &[4, 9], 0x601)
}

fn set_dma_sif0(iop: &mut Iop) -> Result<Ret, IopError> {
    set_chain(iop, &[9], 0x701)
}

fn set_dma_sif1(iop: &mut Iop) -> Result<Ret, IopError> {
    let (ch, size) = (iop.arg(0), iop.arg(1));
    if ch != 10 {
        return Ok(Ret::V(0));
    }
    let b = channel_base(10);
    wr(iop, b + 4, size & 0xffff);
    wr(iop, b + 8, 0x4000_0300);
    iop.dma_started()?;
    Ok(Ret::V(1))
}

fn start_dma(iop: &mut Iop) -> Result<Ret, IopError> {
    let ch = iop.arg(0);
    if ch < CHANNELS {
        let p = channel_base(ch as usize) + 8;
        let v = rd(iop, p);
        wr(iop, p, v | CHCR_BUSY);
        iop.dma_started()?;
    }
    Ok(Ret::V(0))
}

/// The register and bit position of channel `ch`'s priority field (its enable bit is the one
/// above it).
fn priority_field(ch: u32) -> Option<(u32, u32)> {
    match ch {
        0..=6 => Some((DPCR, 4 * ch)),
        7..=12 => Some((DPCR2, 4 * (ch - 7))),
        13..=15 => Some((DPCR3, 4 * (ch - 13))),
        67 => Some((DPCR, 28)),
        85 => Some((DPCR2, 24)),
        _ => None,
    }
}

fn set_priority(iop: &mut Iop) -> Result<Ret, IopError> {
    let (ch, p) = (iop.arg(0), iop.arg(1));
    if let Some((reg, shift)) = priority_field(ch) {
        let v = rd(iop, reg);
        wr(iop, reg, (v & !(7 << shift)) | ((p & 7) << shift));
    }
    Ok(Ret::V(0))
}

fn enable(iop: &mut Iop, on: bool) -> Result<Ret, IopError> {
    let ch = iop.arg(0);
    // The CPU's field has no enable bit.
    if let Some((reg, shift)) = priority_field(ch).filter(|_| ch != 67) {
        let v = rd(iop, reg);
        let bit = 8 << shift;
        wr(iop, reg, if on { v | bit } else { v & !bit });
    }
    Ok(Ret::V(0))
}

fn enable_channel(iop: &mut Iop) -> Result<Ret, IopError> {
    enable(iop, true)
}

fn disable_channel(iop: &mut Iop) -> Result<Ret, IopError> {
    enable(iop, false)
}

/// dmacman.
pub const DMACMAN: LibDef = LibDef {
    name: "dmacman",
    version: 0x0102,
    funcs: &[
        (2, "dmacman_deinit", deinit),
        (4, "dmac_ch_set_madr", set_madr),
        (5, "dmac_ch_get_madr", get_madr),
        (6, "dmac_ch_set_bcr", set_bcr),
        (7, "dmac_ch_get_bcr", get_bcr),
        (8, "dmac_ch_set_chcr", set_chcr),
        (9, "dmac_ch_get_chcr", get_chcr),
        (10, "dmac_ch_set_tadr", set_tadr),
        (11, "dmac_ch_get_tadr", get_tadr),
        (12, "dmac_set_4_9_a", set_4_9_a),
        (13, "dmac_get_4_9_a", get_4_9_a),
        (14, "dmac_set_dpcr", set_dpcr),
        (15, "dmac_get_dpcr", get_dpcr),
        (16, "dmac_set_dpcr2", set_dpcr2),
        (17, "dmac_get_dpcr2", get_dpcr2),
        (18, "dmac_set_dpcr3", set_dpcr3),
        (19, "dmac_get_dpcr3", get_dpcr3),
        (20, "dmac_set_dicr", set_dicr),
        (21, "dmac_get_dicr", get_dicr),
        (22, "dmac_set_dicr2", set_dicr2),
        (23, "dmac_get_dicr2", get_dicr2),
        (24, "dmac_set_BF80157C", set_dmacinten),
        (25, "dmac_get_BF80157C", get_dmacinten),
        (26, "dmac_set_BF801578", set_dmacen),
        (27, "dmac_get_BF801578", get_dmacen),
        (28, "sceSetSliceDMA", set_slice_dma),
        (
            29,
            "dmac_set_dma_chained_spu_sif0",
            set_dma_chained_spu_sif0,
        ),
        (30, "dmac_set_dma_sif0", set_dma_sif0),
        (31, "dmac_set_dma_sif1", set_dma_sif1),
        (32, "sceStartDMA", start_dma),
        (33, "sceSetDMAPriority", set_priority),
        (34, "sceEnableDMAChannel", enable_channel),
        (35, "sceDisableDMAChannel", disable_channel),
    ],
};
