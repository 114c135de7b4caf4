//! Shared helpers for the COP1/COP2 tests: a bus with RAM at 0 and VU0 data memory at
//! 0x11004000, instruction encoders, and a runner.

#![allow(dead_code)]

use piney_ee::bus::{Bus, BusFault};
use piney_ee::cpu::Cpu;
use piney_ee::exception::Exception;

/// 64 KiB of RAM at 0 and the 4 KiB VU0 data memory at 0x11004000.
pub struct TestBus {
    pub ram: Vec<u8>,
    pub vu0: Vec<u8>,
}

impl TestBus {
    pub fn new() -> Self {
        Self {
            ram: vec![0; 0x10000],
            vu0: vec![0; 0x1000],
        }
    }
    fn slice(&mut self, addr: u32, len: usize) -> Result<&mut [u8], BusFault> {
        let a = addr & 0x1fff_ffff;
        let (mem, off) = if (0x1100_4000..0x1100_5000).contains(&a) {
            (&mut self.vu0, (a - 0x1100_4000) as usize)
        } else {
            (&mut self.ram, a as usize)
        };
        mem.get_mut(off..off + len).ok_or(BusFault { addr })
    }
    pub fn put32(&mut self, addr: u32, v: u32) {
        self.write32(addr, v).unwrap();
    }
    pub fn get32(&mut self, addr: u32) -> u32 {
        self.read32(addr).unwrap()
    }
}

macro_rules! rw {
    ($r:ident, $w:ident, $t:ty, $n:expr) => {
        fn $r(&mut self, addr: u32) -> Result<$t, BusFault> {
            let s = self.slice(addr, $n)?;
            Ok(<$t>::from_le_bytes(s.try_into().unwrap()))
        }
        fn $w(&mut self, addr: u32, v: $t) -> Result<(), BusFault> {
            self.slice(addr, $n)?.copy_from_slice(&v.to_le_bytes());
            Ok(())
        }
    };
}

impl Bus for TestBus {
    rw!(read8, write8, u8, 1);
    rw!(read16, write16, u16, 2);
    rw!(read32, write32, u32, 4);
    rw!(read64, write64, u64, 8);
    rw!(read128, write128, u128, 16);
}

pub const CODE: u32 = 0x1000;

/// A CPU about to run `words` at 0x1000.
pub fn setup(words: &[u32]) -> (Cpu, TestBus) {
    let mut bus = TestBus::new();
    for (i, &w) in words.iter().enumerate() {
        bus.put32(CODE + 4 * i as u32, w);
    }
    let mut cpu = Cpu::new();
    cpu.jump_to(CODE);
    (cpu, bus)
}

/// Step `n` instructions, panicking on an exception.
pub fn steps(cpu: &mut Cpu, bus: &mut TestBus, n: usize) {
    for _ in 0..n {
        piney_ee::interp::step(cpu, bus).unwrap_or_else(|e| panic!("{e}"));
    }
}

/// Run one instruction word on `cpu` (placed at its pc).
pub fn exec(cpu: &mut Cpu, bus: &mut TestBus, word: u32) -> Result<(), Exception> {
    bus.put32(cpu.pc, word);
    piney_ee::interp::step(cpu, bus)
}

/// Run a sequence of instruction words, one after the other.
pub fn exec_all(cpu: &mut Cpu, bus: &mut TestBus, words: &[u32]) {
    for &w in words {
        exec(cpu, bus, w).unwrap_or_else(|e| panic!("{e}"));
    }
}

// ---- COP1 encoders ----

pub fn cop1_s(funct: u32, fd: u32, fs: u32, ft: u32) -> u32 {
    0x11 << 26 | 16 << 21 | ft << 16 | fs << 11 | fd << 6 | funct
}
pub fn cop1_w(funct: u32, fd: u32, fs: u32) -> u32 {
    0x11 << 26 | 20 << 21 | fs << 11 | fd << 6 | funct
}
pub fn cop1_move(rs: u32, rt: u32, fs: u32) -> u32 {
    0x11 << 26 | rs << 21 | rt << 16 | fs << 11
}
pub fn bc1(kind: u32, offset: i16) -> u32 {
    0x11 << 26 | 8 << 21 | kind << 16 | offset as u16 as u32
}
pub fn mem(op: u32, rt: u32, base: u32, offset: i16) -> u32 {
    op << 26 | base << 21 | rt << 16 | offset as u16 as u32
}

pub const ADD_S: u32 = 0x00;
pub const SUB_S: u32 = 0x01;
pub const MUL_S: u32 = 0x02;
pub const DIV_S: u32 = 0x03;
pub const SQRT_S: u32 = 0x04;
pub const ABS_S: u32 = 0x05;
pub const MOV_S: u32 = 0x06;
pub const NEG_S: u32 = 0x07;
pub const RSQRT_S: u32 = 0x16;
pub const ADDA_S: u32 = 0x18;
pub const SUBA_S: u32 = 0x19;
pub const MULA_S: u32 = 0x1a;
pub const MADD_S: u32 = 0x1c;
pub const MSUB_S: u32 = 0x1d;
pub const MADDA_S: u32 = 0x1e;
pub const MSUBA_S: u32 = 0x1f;
pub const CVT_W_S: u32 = 0x24;
pub const MAX_S: u32 = 0x28;
pub const MIN_S: u32 = 0x29;
pub const C_F: u32 = 0x30;
pub const C_EQ: u32 = 0x32;
pub const C_LT: u32 = 0x34;
pub const C_LE: u32 = 0x36;

// ---- COP2 encoders ----

pub const X: u32 = 8;
pub const Y: u32 = 4;
pub const Z: u32 = 2;
pub const W: u32 = 1;
pub const XYZW: u32 = 15;

/// A SPECIAL1 VU instruction (funct 0x00-0x3b).
pub fn vu1(funct: u32, dest: u32, ft: u32, fs: u32, fd: u32) -> u32 {
    0x12 << 26 | 1 << 25 | dest << 21 | ft << 16 | fs << 11 | fd << 6 | funct
}
/// A SPECIAL2 VU instruction by its 7-bit index.
pub fn vu2(index: u32, dest: u32, ft: u32, fs: u32) -> u32 {
    0x12 << 26 | 1 << 25 | dest << 21 | ft << 16 | fs << 11 | (index >> 2) << 6 | 0x3c | (index & 3)
}
pub fn cop2_move(rs: u32, rt: u32, reg: u32) -> u32 {
    0x12 << 26 | rs << 21 | rt << 16 | reg << 11
}
pub fn qmfc2(rt: u32, vf: u32) -> u32 {
    cop2_move(1, rt, vf)
}
pub fn cfc2(rt: u32, vi: u32) -> u32 {
    cop2_move(2, rt, vi)
}
pub fn qmtc2(rt: u32, vf: u32) -> u32 {
    cop2_move(5, rt, vf)
}
pub fn ctc2(rt: u32, vi: u32) -> u32 {
    cop2_move(6, rt, vi)
}

/// 1.0 and friends.
pub const ONE: u32 = 0x3f80_0000;
pub const TWO: u32 = 0x4000_0000;
pub const THREE: u32 = 0x4040_0000;
pub const FOUR: u32 = 0x4080_0000;
pub const HALF: u32 = 0x3f00_0000;
pub const NEG_ONE: u32 = 0xbf80_0000;
