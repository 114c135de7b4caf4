//! The SIF: the EE side of the link to the IOP. (Being written.)

/// The SIF registers at 0x1000_F200: MSCOM (+0x00), SMCOM (+0x10), MSFLG (+0x20), SMFLG (+0x30),
/// CTRL (+0x40), BD6 (+0x60).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SifRegs {
    /// The registers by (offset / 16).
    pub regs: [u32; 16],
}

impl SifRegs {
    /// Read a SIF register (physical address).
    pub fn read(&self, p: u32) -> u32 {
        self.regs[((p >> 4) & 15) as usize]
    }
    /// Write a SIF register (physical address).
    pub fn write(&mut self, p: u32, v: u32) {
        self.regs[((p >> 4) & 15) as usize] = v;
    }
}

impl crate::Machine {
    /// The SIF's timed event: the IOP side has work to do.
    pub(crate) fn sif_event(&mut self) -> Result<(), crate::MachineError> {
        Ok(())
    }
}
