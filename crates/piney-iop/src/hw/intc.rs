//! The IOP's interrupt controller: I_STAT (0x1f80_1070), I_MASK (0x1f80_1074) and I_CTRL
//! (0x1f80_1078).
//!
//! Contract: devices raise lines with [`Intc::raise`]; the CPU's hardware interrupt 0 (COP0
//! CAUSE bit 10) is asserted while [`Intc::pending`] holds. I_STAT bits are acknowledged by
//! writing 0s (a write ANDs); I_MASK is plain; reading I_CTRL returns it and clears it to 0 (the
//! console's global enable is a read-to-clear latch that intrman uses as a cheap critical section).

/// The interrupt lines (bit numbers of I_STAT and I_MASK).
pub mod line {
    /// Vertical blank start.
    pub const VBLANK: u32 = 0;
    /// The GPU (PS1 mode) / SBUS.
    pub const SBUS: u32 = 1;
    /// The CD/DVD drive.
    pub const CDVD: u32 = 2;
    /// The DMA controller (any channel's interrupt, through DICR/DICR2).
    pub const DMA: u32 = 3;
    /// Root counter 0.
    pub const RTC0: u32 = 4;
    /// Root counter 1.
    pub const RTC1: u32 = 5;
    /// Root counter 2.
    pub const RTC2: u32 = 6;
    /// SIO0 (the PS1-mode pad and card port).
    pub const SIO0: u32 = 7;
    /// SIO1.
    pub const SIO1: u32 = 8;
    /// The SPU2.
    pub const SPU: u32 = 9;
    /// PIO (the expansion port).
    pub const PIO: u32 = 10;
    /// Vertical blank end.
    pub const EVBLANK: u32 = 11;
    /// The DVD drive (second line).
    pub const DVD: u32 = 12;
    /// PCMCIA / DEV9.
    pub const DEV9: u32 = 13;
    /// Root counter 3.
    pub const RTC3: u32 = 14;
    /// Root counter 4.
    pub const RTC4: u32 = 15;
    /// Root counter 5.
    pub const RTC5: u32 = 16;
    /// SIO2 (the PS2's pad and card port).
    pub const SIO2: u32 = 17;
    /// USB.
    pub const USB: u32 = 22;
    /// FireWire.
    pub const ILINK: u32 = 24;
}

/// The interrupt controller's registers.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Intc {
    /// I_STAT: lines raised and not yet acknowledged.
    pub stat: u32,
    /// I_MASK: lines that interrupt the CPU.
    pub mask: u32,
    /// I_CTRL: the global enable (bit 0).
    pub ctrl: u32,
}

impl Intc {
    /// Power-on state: nothing raised, everything masked, disabled.
    pub fn reset(&mut self) {
        *self = Self::default();
    }

    /// A device raises `line`.
    pub fn raise(&mut self, line: u32) {
        self.stat |= 1 << line;
    }

    /// Whether the CPU's interrupt input is asserted: a raised, unmasked line with I_CTRL set.
    pub fn pending(&self) -> bool {
        self.ctrl & 1 != 0 && self.stat & self.mask != 0
    }

    /// Read a register at offset 0 (I_STAT), 4 (I_MASK) or 8 (I_CTRL).
    pub fn read(&mut self, offset: u32) -> u32 {
        match offset {
            0 => self.stat,
            4 => self.mask,
            // Reading I_CTRL clears it: intrman's critical sections read it to disable
            // interrupts and write the old value back to restore them.
            8 => std::mem::take(&mut self.ctrl),
            _ => 0,
        }
    }

    /// Write a register at offset 0, 4 or 8.
    pub fn write(&mut self, offset: u32, v: u32) {
        match offset {
            // Writing I_STAT acknowledges the lines written as 0.
            0 => self.stat &= v,
            4 => self.mask = v,
            8 => self.ctrl = v & 1,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ack_and_ctrl_latch() {
        let mut i = Intc::default();
        i.write(4, 1 << line::VBLANK);
        i.raise(line::VBLANK);
        i.raise(line::CDVD);
        assert!(!i.pending(), "I_CTRL is off after reset");
        i.write(8, 1);
        assert!(i.pending());
        assert_eq!(i.read(8), 1);
        assert_eq!(i.read(8), 0, "reading I_CTRL clears it");
        i.write(8, 1);
        i.write(0, !(1 << line::VBLANK));
        assert_eq!(i.stat, 1 << line::CDVD, "a 0 bit acknowledges");
        assert!(!i.pending(), "CDVD is masked");
    }
}
