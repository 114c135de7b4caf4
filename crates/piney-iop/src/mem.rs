//! The IOP's memory map, as the R3000A sees it through [`crate::cpu::Bus`].
//!
//! Contract: addresses are virtual; kuseg, kseg0 and kseg1 map to the same physical space by
//! dropping the top three bits. Physical map:
//! - `0x0000_0000..0x0080_0000`: the 2 MiB of RAM, mirrored four times (the console's memory
//!   controller decodes 8 MiB).
//! - `0x1d00_0000..`: the SIF registers ([`crate::hw::sif::Sif`], the IOP's view).
//! - `0x1f80_0000..0x1f80_0400`: the 1 KiB scratchpad (the PS1's data cache used as RAM).
//! - `0x1f80_1000..0x1f80_2000`, `0x1f80_8000..`: the hardware registers, routed to their units
//!   ([`crate::hw`]).
//! - `0x1f90_0000..0x1f90_0800`: the SPU2 (not emulated yet: reads 0, writes are dropped).
//! - `0x1fc0_0000..0x2000_0000`: the 4 MiB boot ROM. piney has no BIOS: it holds zeroes.
//! - `0xfffe_0130`: the cache control register (kseg2).
//!
//! Anything else is a bus error, which the CPU turns into a bus-error exception and the kernel
//! into one clear error naming the address.

use crate::cpu::{Bus, BusFault};
use crate::hw::Hardware;

/// The IOP's RAM: 2 MiB.
pub const RAM_SIZE: usize = 2 * 1024 * 1024;
/// The scratchpad: 1 KiB at physical 0x1f80_0000.
pub const SPAD_SIZE: usize = 1024;
/// Physical base of the scratchpad.
pub const SPAD_BASE: u32 = 0x1f80_0000;

/// The physical address of a virtual one (kuseg, kseg0 and kseg1 alias; kseg2 stays).
#[inline]
pub fn physical(addr: u32) -> u32 {
    if addr >= 0xc000_0000 {
        addr
    } else {
        addr & 0x1fff_ffff
    }
}

/// Memory and devices.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct IopBus {
    /// RAM (2 MiB).
    pub ram: Box<[u8]>,
    /// The scratchpad.
    #[serde(with = "piney_state::boxed")]
    pub spad: Box<[u8; SPAD_SIZE]>,
    /// The hardware units.
    pub hw: Hardware,
    /// The cache control register (0xfffe_0130): stored, not modelled.
    pub cache_ctrl: u32,
}

impl Default for IopBus {
    fn default() -> Self {
        Self::new()
    }
}

impl IopBus {
    /// Zeroed memory, devices at power-on.
    pub fn new() -> Self {
        Self {
            ram: vec![0u8; RAM_SIZE].into_boxed_slice(),
            spad: Box::new([0; SPAD_SIZE]),
            hw: Hardware::default(),
            cache_ctrl: 0,
        }
    }

    /// The RAM offset of a physical address in the RAM window, if it is one.
    #[inline]
    fn ram_offset(p: u32) -> Option<usize> {
        (p < 0x0080_0000).then_some((p as usize) & (RAM_SIZE - 1))
    }

    /// Read `buf.len()` bytes of RAM from physical or virtual `addr` (wrapping within RAM).
    pub fn read_ram(&self, addr: u32, buf: &mut [u8]) {
        let mut a = (physical(addr) as usize) & (RAM_SIZE - 1);
        for b in buf {
            *b = self.ram[a];
            a = (a + 1) & (RAM_SIZE - 1);
        }
    }

    /// Write bytes into RAM at `addr` (wrapping within RAM).
    pub fn write_ram(&mut self, addr: u32, data: &[u8]) {
        let mut a = (physical(addr) as usize) & (RAM_SIZE - 1);
        for b in data {
            self.ram[a] = *b;
            a = (a + 1) & (RAM_SIZE - 1);
        }
    }

    /// A little-endian word of RAM.
    pub fn ram_u32(&self, addr: u32) -> u32 {
        let mut b = [0; 4];
        self.read_ram(addr, &mut b);
        u32::from_le_bytes(b)
    }

    /// Store a little-endian word into RAM.
    pub fn set_ram_u32(&mut self, addr: u32, v: u32) {
        self.write_ram(addr, &v.to_le_bytes());
    }

    /// A little-endian halfword of RAM.
    pub fn ram_u16(&self, addr: u32) -> u16 {
        let mut b = [0; 2];
        self.read_ram(addr, &mut b);
        u16::from_le_bytes(b)
    }

    /// Store a little-endian halfword into RAM.
    pub fn set_ram_u16(&mut self, addr: u32, v: u16) {
        self.write_ram(addr, &v.to_le_bytes());
    }

    /// A NUL-terminated string from RAM, at most `max` bytes (without the NUL), lossily decoded.
    pub fn ram_cstr(&self, addr: u32, max: usize) -> String {
        let mut out = Vec::new();
        let mut a = addr;
        while out.len() < max {
            let mut b = [0];
            self.read_ram(a, &mut b);
            if b[0] == 0 {
                break;
            }
            out.push(b[0]);
            a = a.wrapping_add(1);
        }
        String::from_utf8_lossy(&out).into_owned()
    }

    /// The raw bytes of a NUL-terminated string from RAM, at most `max` bytes.
    pub fn ram_cbytes(&self, addr: u32, max: usize) -> Vec<u8> {
        let mut out = Vec::new();
        let mut a = addr;
        while out.len() < max {
            let mut b = [0];
            self.read_ram(a, &mut b);
            if b[0] == 0 {
                break;
            }
            out.push(b[0]);
            a = a.wrapping_add(1);
        }
        out
    }

    fn read_phys(&mut self, p: u32, size: u32) -> Result<u32, BusFault> {
        if let Some(off) = Self::ram_offset(p) {
            let mut v = 0u32;
            for i in 0..size as usize {
                v |= (self.ram[(off + i) & (RAM_SIZE - 1)] as u32) << (8 * i);
            }
            return Ok(v);
        }
        if (SPAD_BASE..SPAD_BASE + SPAD_SIZE as u32).contains(&p) {
            let off = (p - SPAD_BASE) as usize;
            let mut v = 0u32;
            for i in 0..size as usize {
                v |= (self.spad[(off + i) % SPAD_SIZE] as u32) << (8 * i);
            }
            return Ok(v);
        }
        if (0x1fc0_0000..0x2000_0000).contains(&p) {
            // The boot ROM: piney carries no BIOS.
            return Ok(0);
        }
        if p == 0xfffe_0130 {
            return Ok(self.cache_ctrl);
        }
        self.hw.read(p, size).ok_or(BusFault { addr: p })
    }

    fn write_phys(&mut self, p: u32, size: u32, v: u32) -> Result<(), BusFault> {
        if let Some(off) = Self::ram_offset(p) {
            for i in 0..size as usize {
                self.ram[(off + i) & (RAM_SIZE - 1)] = (v >> (8 * i)) as u8;
            }
            return Ok(());
        }
        if (SPAD_BASE..SPAD_BASE + SPAD_SIZE as u32).contains(&p) {
            let off = (p - SPAD_BASE) as usize;
            for i in 0..size as usize {
                self.spad[(off + i) % SPAD_SIZE] = (v >> (8 * i)) as u8;
            }
            return Ok(());
        }
        if (0x1fc0_0000..0x2000_0000).contains(&p) {
            // Writes to ROM are dropped.
            return Ok(());
        }
        if (0xfffe_0000..0xfffe_0200).contains(&p) {
            if p == 0xfffe_0130 {
                self.cache_ctrl = v;
            }
            return Ok(());
        }
        if self.hw.write(p, size, v) {
            Ok(())
        } else {
            Err(BusFault { addr: p })
        }
    }
}

impl Bus for IopBus {
    fn read8(&mut self, addr: u32) -> Result<u8, BusFault> {
        self.read_phys(physical(addr), 1).map(|v| v as u8)
    }
    fn read16(&mut self, addr: u32) -> Result<u16, BusFault> {
        self.read_phys(physical(addr), 2).map(|v| v as u16)
    }
    #[inline]
    fn read32(&mut self, addr: u32) -> Result<u32, BusFault> {
        let p = physical(addr);
        if p < 0x0080_0000 {
            let off = (p as usize) & (RAM_SIZE - 1) & !3;
            return Ok(u32::from_le_bytes([
                self.ram[off],
                self.ram[off + 1],
                self.ram[off + 2],
                self.ram[off + 3],
            ]));
        }
        self.read_phys(p, 4)
    }
    fn write8(&mut self, addr: u32, v: u8) -> Result<(), BusFault> {
        self.write_phys(physical(addr), 1, v as u32)
    }
    fn write16(&mut self, addr: u32, v: u16) -> Result<(), BusFault> {
        self.write_phys(physical(addr), 2, v as u32)
    }
    #[inline]
    fn write32(&mut self, addr: u32, v: u32) -> Result<(), BusFault> {
        let p = physical(addr);
        if p < 0x0080_0000 {
            let off = (p as usize) & (RAM_SIZE - 1) & !3;
            self.ram[off..off + 4].copy_from_slice(&v.to_le_bytes());
            return Ok(());
        }
        self.write_phys(p, 4, v)
    }
    #[inline]
    fn fetch(&mut self, addr: u32) -> Result<u32, BusFault> {
        self.read32(addr)
    }
}
