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

/// The SIF services the kernel's syscalls call (SifSetDma 119, SifSetDChain 120, SifSetReg 121,
/// SifGetReg 122, SifDmaStat 118, and their i-variants). Owned by the SIF module.
impl crate::Machine {
    /// SifSetDma(transfers, count): queue `count` transfers described at `transfers` (each
    /// { src, dest, size, attr }, 16 bytes) from EE memory to IOP RAM. Returns the transfer id
    /// (non-zero), or 0 when the queue is full.
    pub(crate) fn sif_set_dma(&mut self, _transfers: u32, _count: u32) -> Result<u32, crate::MachineError> {
        Err(crate::MachineError::Unimplemented { what: "SifSetDma".into(), pc: self.cpu.cur_pc })
    }
    /// SifDmaStat(id): >0 queued, 0 running, <0 done.
    pub(crate) fn sif_dma_stat(&mut self, _id: u32) -> i32 {
        -1
    }
    /// SifSetDChain(): (re)arm the EE's SIF0 receive channel (DMA channel 5) in chain mode.
    pub(crate) fn sif_set_dchain(&mut self) {}
    /// SifSetReg(reg, value): returns the old value.
    pub(crate) fn sif_set_reg(&mut self, _reg: u32, _value: u32) -> u32 {
        0
    }
    /// SifGetReg(reg).
    pub(crate) fn sif_get_reg(&mut self, _reg: u32) -> u32 {
        0
    }
}
