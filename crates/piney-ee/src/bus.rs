//! The EE's view of memory.

/// A failed access: nothing mapped at that address, or an access the device refuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("bus error at {addr:#010x}")]
pub struct BusFault {
    /// The virtual address of the access.
    pub addr: u32,
}

/// Memory as the EE core sees it.
///
/// Addresses are *virtual* EE addresses (kuseg, kseg0, kseg1, the scratchpad at 0x70000000...): the
/// implementation applies the PS2 kernel's fixed mapping. The core checks alignment before calling,
/// so `read32` always gets a multiple of 4, `read128` a multiple of 16, and so on.
pub trait Bus {
    /// Read one byte.
    fn read8(&mut self, addr: u32) -> Result<u8, BusFault>;
    /// Read a halfword (2-aligned).
    fn read16(&mut self, addr: u32) -> Result<u16, BusFault>;
    /// Read a word (4-aligned).
    fn read32(&mut self, addr: u32) -> Result<u32, BusFault>;
    /// Read a doubleword (8-aligned).
    fn read64(&mut self, addr: u32) -> Result<u64, BusFault>;
    /// Read a quadword (16-aligned).
    fn read128(&mut self, addr: u32) -> Result<u128, BusFault>;
    /// Write one byte.
    fn write8(&mut self, addr: u32, value: u8) -> Result<(), BusFault>;
    /// Write a halfword (2-aligned).
    fn write16(&mut self, addr: u32, value: u16) -> Result<(), BusFault>;
    /// Write a word (4-aligned).
    fn write32(&mut self, addr: u32, value: u32) -> Result<(), BusFault>;
    /// Write a doubleword (8-aligned).
    fn write64(&mut self, addr: u32, value: u64) -> Result<(), BusFault>;
    /// Write a quadword (16-aligned).
    fn write128(&mut self, addr: u32, value: u128) -> Result<(), BusFault>;
    /// Fetch an instruction word (4-aligned). Defaults to a data read.
    fn fetch(&mut self, addr: u32) -> Result<u32, BusFault> {
        self.read32(addr)
    }
}

/// A flat little-endian memory at virtual address 0 (masked by its size), for unit tests.
pub struct FlatBus {
    /// The bytes; the length must be a power of two.
    pub mem: Vec<u8>,
}

impl FlatBus {
    /// A zeroed memory of `size` bytes (a power of two).
    pub fn new(size: usize) -> Self {
        assert!(size.is_power_of_two());
        Self { mem: vec![0; size] }
    }
    fn at(&self, addr: u32, len: usize) -> Result<usize, BusFault> {
        let a = (addr & 0x1fff_ffff) as usize;
        if a + len <= self.mem.len() {
            Ok(a)
        } else {
            Err(BusFault { addr })
        }
    }
    fn get<const N: usize>(&self, addr: u32) -> Result<[u8; N], BusFault> {
        let a = self.at(addr, N)?;
        let mut b = [0; N];
        b.copy_from_slice(&self.mem[a..a + N]);
        Ok(b)
    }
    fn put(&mut self, addr: u32, bytes: &[u8]) -> Result<(), BusFault> {
        let a = self.at(addr, bytes.len())?;
        self.mem[a..a + bytes.len()].copy_from_slice(bytes);
        Ok(())
    }
}

impl Bus for FlatBus {
    fn read8(&mut self, addr: u32) -> Result<u8, BusFault> {
        Ok(self.get::<1>(addr)?[0])
    }
    fn read16(&mut self, addr: u32) -> Result<u16, BusFault> {
        self.get(addr).map(u16::from_le_bytes)
    }
    fn read32(&mut self, addr: u32) -> Result<u32, BusFault> {
        self.get(addr).map(u32::from_le_bytes)
    }
    fn read64(&mut self, addr: u32) -> Result<u64, BusFault> {
        self.get(addr).map(u64::from_le_bytes)
    }
    fn read128(&mut self, addr: u32) -> Result<u128, BusFault> {
        self.get(addr).map(u128::from_le_bytes)
    }
    fn write8(&mut self, addr: u32, value: u8) -> Result<(), BusFault> {
        self.put(addr, &[value])
    }
    fn write16(&mut self, addr: u32, value: u16) -> Result<(), BusFault> {
        self.put(addr, &value.to_le_bytes())
    }
    fn write32(&mut self, addr: u32, value: u32) -> Result<(), BusFault> {
        self.put(addr, &value.to_le_bytes())
    }
    fn write64(&mut self, addr: u32, value: u64) -> Result<(), BusFault> {
        self.put(addr, &value.to_le_bytes())
    }
    fn write128(&mut self, addr: u32, value: u128) -> Result<(), BusFault> {
        self.put(addr, &value.to_le_bytes())
    }
}
