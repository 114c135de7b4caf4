//! The SIF: the registers the EE and the IOP share, and the FIFOs between the two DMACs.
//!
//! Contract:
//! - The registers, as each side sees them (EE at 0x1000_f200.., IOP at 0x1d00_0000..): MSCOM
//!   (+0x00) is written by the EE; SMCOM (+0x10) by the IOP; MSFLG (+0x20): the EE sets bits by
//!   writing 1s, the IOP clears them the same way; SMFLG (+0x30): the IOP sets, the EE clears;
//!   CTRL (+0x40): bit 8 is the EE's, the rest the IOP's; BD6 (+0x60) is plain. Reads of CTRL
//!   show its fixed high bits (0xf000_0102 on the EE's side, 0xf000_0002 on the IOP's, as the
//!   console reads back).
//! - SIF1 (EE -> IOP) and SIF0 (IOP -> EE) are FIFOs of 32-bit words of [`FIFO_WORDS`] each. EE
//!   DMA channel 6 pushes into SIF1 and IOP DMA channel 10 takes from it; IOP channel 9 pushes
//!   into SIF0 and EE channel 5 takes from it. The words are the channels' tags and data:
//!   on SIF1 each EE tag (with CHCR.TTE) sends its upper 64 bits, the IOP's two-word tag
//!   { address | 0x8000_0000 (IRQ) | 0x4000_0000 (end), word count }, then the data; on SIF0
//!   each IOP tag sends the EE's tag as a quadword { EE tag low, EE tag high (address), 0, 0 }
//!   then the data, in quadwords.
//! - Whichever side pushes or takes sets [`Sif::iop_wake`] / [`Sif::ee_wake`], so that the
//!   machine lets the other side's channel look again: the two run in step on one timeline.

use std::collections::VecDeque;

/// Each FIFO's size in words (the console's SIF FIFOs hold 32 quadwords).
pub const FIFO_WORDS: usize = 128;

/// SMFLG/MSFLG bit: the SIF is initialised.
pub const STAT_SIFINIT: u32 = 0x1_0000;
/// SMFLG/MSFLG bit: the command layer is initialised.
pub const STAT_CMDINIT: u32 = 0x2_0000;
/// SMFLG bit: the IOP finished booting.
pub const STAT_BOOTEND: u32 = 0x4_0000;

/// The SIF unit.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Sif {
    /// MSCOM.
    pub mscom: u32,
    /// SMCOM.
    pub smcom: u32,
    /// MSFLG.
    pub msflg: u32,
    /// SMFLG.
    pub smflg: u32,
    /// CTRL.
    pub ctrl: u32,
    /// BD6.
    pub bd6: u32,
    /// SIF0: IOP -> EE.
    pub fifo0: VecDeque<u32>,
    /// SIF1: EE -> IOP.
    pub fifo1: VecDeque<u32>,
    /// The IOP's side should look at its SIF channels (the EE pushed or took words).
    pub iop_wake: bool,
    /// The EE's side should look at its SIF channels (the IOP pushed or took words).
    pub ee_wake: bool,
}

impl Default for Sif {
    fn default() -> Self {
        Self {
            mscom: 0,
            smcom: 0,
            msflg: 0,
            smflg: 0,
            ctrl: 0,
            bd6: 0,
            fifo0: VecDeque::with_capacity(FIFO_WORDS),
            fifo1: VecDeque::with_capacity(FIFO_WORDS),
            iop_wake: false,
            ee_wake: false,
        }
    }
}

impl Sif {
    /// Power-on state: empty FIFOs, registers zero.
    pub fn reset(&mut self) {
        *self = Self::default();
    }

    /// An EE read of register `offset` (0x00..0x70).
    pub fn ee_read(&self, offset: u32) -> u32 {
        match offset & 0xf0 {
            0x00 => self.mscom,
            0x10 => self.smcom,
            0x20 => self.msflg,
            0x30 => self.smflg,
            0x40 => self.ctrl | 0xf000_0102,
            0x60 => self.bd6,
            _ => 0,
        }
    }

    /// An EE write.
    pub fn ee_write(&mut self, offset: u32, v: u32) {
        match offset & 0xf0 {
            0x00 => self.mscom = v,
            0x20 => self.msflg |= v,
            0x30 => self.smflg &= !v,
            // CTRL: the EE writes only bit 8 (its half of the handshake); the rest is the IOP's.
            0x40 => self.ctrl = (self.ctrl & !0x100) | (v & 0x100),
            0x60 => self.bd6 = v,
            _ => {}
        }
        self.iop_wake = true;
    }

    /// An IOP read.
    pub fn iop_read(&self, offset: u32) -> u32 {
        match offset & 0xf0 {
            0x00 => self.mscom,
            0x10 => self.smcom,
            0x20 => self.msflg,
            0x30 => self.smflg,
            0x40 => self.ctrl | 0xf000_0002,
            0x60 => self.bd6,
            _ => 0,
        }
    }

    /// An IOP write.
    pub fn iop_write(&mut self, offset: u32, v: u32) {
        match offset & 0xf0 {
            0x10 => self.smcom = v,
            0x20 => self.msflg &= !v,
            0x30 => self.smflg |= v,
            0x40 => self.ctrl = (self.ctrl & 0x100) | (v & !0x100),
            0x60 => self.bd6 = v,
            _ => {}
        }
        self.ee_wake = true;
    }

    /// Room left in SIF1 (words).
    pub fn room1(&self) -> usize {
        FIFO_WORDS.saturating_sub(self.fifo1.len())
    }

    /// Room left in SIF0 (words).
    pub fn room0(&self) -> usize {
        FIFO_WORDS.saturating_sub(self.fifo0.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_set_and_clear_by_side() {
        let mut s = Sif::default();
        s.iop_write(0x30, STAT_SIFINIT | STAT_BOOTEND);
        assert_eq!(
            s.ee_read(0x30),
            STAT_SIFINIT | STAT_BOOTEND,
            "IOP sets SMFLG"
        );
        s.ee_write(0x30, STAT_BOOTEND);
        assert_eq!(s.ee_read(0x30), STAT_SIFINIT, "EE clears SMFLG");
        s.ee_write(0x20, 0x11);
        s.iop_write(0x20, 0x01);
        assert_eq!(s.iop_read(0x20), 0x10, "EE sets MSFLG, IOP clears");
        s.iop_write(0x10, 0x1234);
        s.ee_write(0x10, 0);
        assert_eq!(s.ee_read(0x10), 0x1234, "SMCOM is the IOP's");
    }
}
