//! The IOP CPU's view of memory.
//!
//! Contract: addresses are the CPU's *virtual* addresses. The implementation maps kuseg, kseg0
//! and kseg1 onto the physical space (masking with 0x1fff_ffff) and handles kseg2 (the cache
//! control register at 0xfffe_0130) itself. The CPU checks alignment before it calls, so
//! `read16`/`write16` always get even addresses and `read32`/`write32`/`fetch` multiples of 4.
//! A [`BusFault`] becomes a bus error exception (instruction or data).

/// A failed access: nothing mapped at that address, or an access the device refuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("IOP bus error at {addr:#010x}")]
#[derive(serde::Serialize, serde::Deserialize)]
pub struct BusFault {
    /// The virtual address of the access.
    pub addr: u32,
}

/// Memory as the IOP's CPU sees it.
pub trait Bus {
    /// Read one byte.
    fn read8(&mut self, addr: u32) -> Result<u8, BusFault>;
    /// Read a halfword (2-aligned).
    fn read16(&mut self, addr: u32) -> Result<u16, BusFault>;
    /// Read a word (4-aligned).
    fn read32(&mut self, addr: u32) -> Result<u32, BusFault>;
    /// Write one byte.
    fn write8(&mut self, addr: u32, v: u8) -> Result<(), BusFault>;
    /// Write a halfword (2-aligned).
    fn write16(&mut self, addr: u32, v: u16) -> Result<(), BusFault>;
    /// Write a word (4-aligned).
    fn write32(&mut self, addr: u32, v: u32) -> Result<(), BusFault>;
    /// Fetch an instruction word (4-aligned). Defaults to a data read.
    fn fetch(&mut self, addr: u32) -> Result<u32, BusFault> {
        self.read32(addr)
    }
}
