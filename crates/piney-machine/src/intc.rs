//! INTC, the EE's interrupt controller: I_STAT (0x1000F000, write 1 to clear) and I_MASK
//! (0x1000F010, write 1 to toggle). It asserts the CPU's interrupt line IP2 while
//! `I_STAT & I_MASK` is non-zero.

/// INTC line numbers (bits of I_STAT / I_MASK).
pub mod line {
    /// GS interrupt.
    pub const GS: u32 = 0;
    /// SBUS (the IOP's interrupt to the EE, SIF).
    pub const SBUS: u32 = 1;
    /// VBlank start.
    pub const VBON: u32 = 2;
    /// VBlank end.
    pub const VBOF: u32 = 3;
    /// VIF0.
    pub const VIF0: u32 = 4;
    /// VIF1.
    pub const VIF1: u32 = 5;
    /// VU0.
    pub const VU0: u32 = 6;
    /// VU1.
    pub const VU1: u32 = 7;
    /// IPU.
    pub const IPU: u32 = 8;
    /// Timer 0 (timers 1-3 follow: 10, 11, 12).
    pub const TIM0: u32 = 9;
    /// SFIFO.
    pub const SFIFO: u32 = 13;
    /// VU0 watchdog.
    pub const VU0WD: u32 = 14;
}

/// The controller's two registers.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Intc {
    /// I_STAT: latched requests.
    pub stat: u32,
    /// I_MASK: enabled lines.
    pub mask: u32,
}

impl Intc {
    /// Latch a request on `line`.
    pub fn raise(&mut self, line: u32) {
        self.stat |= 1 << line;
    }
    /// Whether the CPU's IP2 is asserted.
    pub fn pending(&self) -> bool {
        self.stat & self.mask & 0x7fff != 0
    }
}
