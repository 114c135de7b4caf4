//! A tiny R5900 encoder and test machine, shared by the integer_*, cop0_* and mmi_* tests
//! (included with `#[path]`), so that tests are written as hand-assembled words.
#![allow(dead_code)]

use piney_ee::Cpu;
use piney_ee::bus::FlatBus;
use piney_ee::exception::Exception;

/// Where test programs are placed.
pub const BASE: u32 = 0x1000;

/// SPECIAL-format word: `funct rd, rs, rt, sa`.
pub fn sp(funct: u32, rd: u32, rs: u32, rt: u32, sa: u32) -> u32 {
    (rs << 21) | (rt << 16) | (rd << 11) | (sa << 6) | funct
}
/// I-format word.
pub fn imm(op: u32, rt: u32, rs: u32, imm: i32) -> u32 {
    (op << 26) | (rs << 21) | (rt << 16) | (imm as u32 & 0xffff)
}
/// REGIMM word.
pub fn regimm(code: u32, rs: u32, imm: i32) -> u32 {
    (1 << 26) | (rs << 21) | (code << 16) | (imm as u32 & 0xffff)
}
/// J/JAL word.
pub fn jump(op: u32, target: u32) -> u32 {
    (op << 26) | ((target >> 2) & 0x03ff_ffff)
}
/// MMI word (opcode 0x1c): `funct rd, rs, rt, sa`.
pub fn mmi(funct: u32, rd: u32, rs: u32, rt: u32, sa: u32) -> u32 {
    (0x1c << 26) | sp(funct, rd, rs, rt, sa)
}
/// MMI0 (funct 8), MMI1 (0x28), MMI2 (9), MMI3 (0x29) sub-op.
pub fn mmi0(sub: u32, rd: u32, rs: u32, rt: u32) -> u32 {
    mmi(0x08, rd, rs, rt, sub)
}
/// MMI1 sub-op.
pub fn mmi1(sub: u32, rd: u32, rs: u32, rt: u32) -> u32 {
    mmi(0x28, rd, rs, rt, sub)
}
/// MMI2 sub-op.
pub fn mmi2(sub: u32, rd: u32, rs: u32, rt: u32) -> u32 {
    mmi(0x09, rd, rs, rt, sub)
}
/// MMI3 sub-op.
pub fn mmi3(sub: u32, rd: u32, rs: u32, rt: u32) -> u32 {
    mmi(0x29, rd, rs, rt, sub)
}
/// COP0 word: `rs` selector, rt, rd, funct.
pub fn cop0(sel: u32, rt: u32, rd: u32, funct: u32) -> u32 {
    (0x10 << 26) | (sel << 21) | (rt << 16) | (rd << 11) | funct
}

pub const NOP: u32 = 0;

/// A CPU and a 64 KiB flat memory with a program at [`BASE`].
pub struct M {
    pub cpu: Cpu,
    pub bus: FlatBus,
}

impl M {
    /// Load `code` at [`BASE`] and point the PC at it.
    pub fn new(code: &[u32]) -> M {
        let mut bus = FlatBus::new(0x10000);
        for (i, w) in code.iter().enumerate() {
            let a = BASE as usize + 4 * i;
            bus.mem[a..a + 4].copy_from_slice(&w.to_le_bytes());
        }
        let mut cpu = Cpu::new();
        cpu.jump_to(BASE);
        M { cpu, bus }
    }
    /// Execute one instruction.
    pub fn step(&mut self) -> Result<(), Exception> {
        piney_ee::interp::step(&mut self.cpu, &mut self.bus)
    }
    /// Execute `n` instructions, panicking on an exception.
    pub fn run(&mut self, n: usize) {
        for _ in 0..n {
            self.step().expect("unexpected exception");
        }
    }
    /// Set a GPR's low 64 bits (upper 64 zero).
    pub fn set(&mut self, r: usize, v: u64) {
        self.cpu.gpr[r] = v as u128;
    }
    /// A GPR's low 64 bits.
    pub fn get(&self, r: usize) -> u64 {
        self.cpu.gpr[r] as u64
    }
    /// Write a little-endian word to memory.
    pub fn poke32(&mut self, a: u32, v: u32) {
        let a = a as usize;
        self.bus.mem[a..a + 4].copy_from_slice(&v.to_le_bytes());
    }
    /// Read a little-endian word from memory.
    pub fn peek32(&self, a: u32) -> u32 {
        let a = a as usize;
        u32::from_le_bytes(self.bus.mem[a..a + 4].try_into().unwrap())
    }
    /// Read a little-endian doubleword from memory.
    pub fn peek64(&self, a: u32) -> u64 {
        let a = a as usize;
        u64::from_le_bytes(self.bus.mem[a..a + 8].try_into().unwrap())
    }
}

/// Run one instruction on a machine prepared by `setup`; return the machine.
pub fn exec1(word: u32, setup: impl FnOnce(&mut M)) -> M {
    let mut m = M::new(&[word]);
    setup(&mut m);
    m.run(1);
    m
}

/// A 128-bit value from four words, w0 least significant.
pub fn q(w0: u32, w1: u32, w2: u32, w3: u32) -> u128 {
    w0 as u128 | (w1 as u128) << 32 | (w2 as u128) << 64 | (w3 as u128) << 96
}
/// A 128-bit value from eight halfwords, h0 least significant.
pub fn qh(h: [u16; 8]) -> u128 {
    h.iter()
        .enumerate()
        .fold(0, |acc, (i, &x)| acc | (x as u128) << (16 * i))
}
/// A 128-bit value from sixteen bytes, b0 least significant.
pub fn qb(b: [u8; 16]) -> u128 {
    u128::from_le_bytes(b)
}
