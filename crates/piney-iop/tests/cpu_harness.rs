//! Shared helpers of the CPU tests: a flat RAM bus, a tiny assembler for the forms the tests
//! use, and a machine that loads a program and runs it.
//!
//! Included by the `cpu_*` test files with `#[path = "cpu_harness.rs"] mod harness;`; built on
//! its own it holds no tests.

// Each test file uses a different part of the helpers.
#![allow(dead_code)]

use piney_iop::cpu::{Bus, BusFault, Cpu, Exception, step};

/// 2 MiB of RAM at physical 0, seen through kuseg, kseg0 and kseg1 (masked with 0x1fff_ffff).
/// Any other physical address is a bus error. Writes are logged.
pub struct Ram {
    pub mem: Vec<u8>,
    pub writes: Vec<(u32, u32, u32)>,
}

pub const RAM_SIZE: usize = 2 << 20;

impl Default for Ram {
    fn default() -> Self {
        Self::new()
    }
}

impl Ram {
    pub fn new() -> Self {
        Self {
            mem: vec![0; RAM_SIZE],
            writes: Vec::new(),
        }
    }
    fn at(&self, addr: u32, len: usize) -> Result<usize, BusFault> {
        let a = (addr & 0x1fff_ffff) as usize;
        if a + len <= self.mem.len() {
            Ok(a)
        } else {
            Err(BusFault { addr })
        }
    }
    pub fn word(&self, addr: u32) -> u32 {
        let a = (addr & 0x1fff_ffff) as usize;
        u32::from_le_bytes(self.mem[a..a + 4].try_into().unwrap())
    }
    pub fn set_word(&mut self, addr: u32, v: u32) {
        let a = (addr & 0x1fff_ffff) as usize;
        self.mem[a..a + 4].copy_from_slice(&v.to_le_bytes());
    }
}

impl Bus for Ram {
    fn read8(&mut self, addr: u32) -> Result<u8, BusFault> {
        Ok(self.mem[self.at(addr, 1)?])
    }
    fn read16(&mut self, addr: u32) -> Result<u16, BusFault> {
        let a = self.at(addr, 2)?;
        Ok(u16::from_le_bytes([self.mem[a], self.mem[a + 1]]))
    }
    fn read32(&mut self, addr: u32) -> Result<u32, BusFault> {
        self.at(addr, 4)?;
        Ok(self.word(addr))
    }
    fn write8(&mut self, addr: u32, v: u8) -> Result<(), BusFault> {
        let a = self.at(addr, 1)?;
        self.mem[a] = v;
        self.writes.push((addr, 1, v as u32));
        Ok(())
    }
    fn write16(&mut self, addr: u32, v: u16) -> Result<(), BusFault> {
        let a = self.at(addr, 2)?;
        self.mem[a..a + 2].copy_from_slice(&v.to_le_bytes());
        self.writes.push((addr, 2, v as u32));
        Ok(())
    }
    fn write32(&mut self, addr: u32, v: u32) -> Result<(), BusFault> {
        self.at(addr, 4)?;
        self.set_word(addr, v);
        self.writes.push((addr, 4, v));
        Ok(())
    }
}

/// Where programs are loaded.
pub const BASE: u32 = 0x0000_1000;
/// A data area.
pub const DATA: u32 = 0x0001_0000;

/// The CPU, its RAM and the end of the loaded program.
pub struct Machine {
    pub cpu: Cpu,
    pub ram: Ram,
    pub end: u32,
}

impl Machine {
    /// `prog` at [`BASE`], the CPU about to run it (kernel mode, SR as at power-on).
    pub fn new(prog: &[u32]) -> Self {
        let mut m = Self {
            cpu: Cpu::new(),
            ram: Ram::new(),
            end: 0,
        };
        m.load(BASE, prog);
        m.cpu.set_pc(BASE);
        m
    }
    /// Put `words` at `addr`; the program's end becomes the end of the last block loaded.
    pub fn load(&mut self, addr: u32, words: &[u32]) {
        for (k, &w) in words.iter().enumerate() {
            self.ram.set_word(addr + 4 * k as u32, w);
        }
        self.end = addr + 4 * words.len() as u32;
    }
    /// One instruction.
    pub fn step(&mut self) -> Result<(), Exception> {
        step(&mut self.cpu, &mut self.ram)
    }
    /// `n` instructions, none faulting.
    pub fn steps(&mut self, n: usize) {
        for _ in 0..n {
            self.step()
                .unwrap_or_else(|e| panic!("unexpected exception: {e}"));
        }
    }
    /// Run until `pc` reaches the program's end outside a delay slot (at most 10 000 steps).
    pub fn run(&mut self) {
        for _ in 0..10_000 {
            if self.cpu.pc == self.end && !self.cpu.in_delay {
                return;
            }
            self.step()
                .unwrap_or_else(|e| panic!("unexpected exception: {e}"));
        }
        panic!("program did not end (pc {:#010x})", self.cpu.pc);
    }
    /// Run until an instruction faults; return its exception.
    pub fn run_to_exception(&mut self) -> Exception {
        for _ in 0..10_000 {
            if let Err(e) = self.step() {
                return e;
            }
        }
        panic!("no exception (pc {:#010x})", self.cpu.pc);
    }
    /// GPR `r`.
    pub fn r(&self, r: usize) -> u32 {
        self.cpu.gpr[r]
    }
}

/// Run `prog` to its end and return the machine.
pub fn run(prog: &[u32]) -> Machine {
    let mut m = Machine::new(prog);
    m.run();
    m
}

// ---------------------------------------------------------------- registers

pub const ZERO: usize = 0;
pub const AT: usize = 1;
pub const V0: usize = 2;
pub const V1: usize = 3;
pub const A0: usize = 4;
pub const A1: usize = 5;
pub const A2: usize = 6;
pub const A3: usize = 7;
pub const T0: usize = 8;
pub const T1: usize = 9;
pub const T2: usize = 10;
pub const T3: usize = 11;
pub const S0: usize = 16;
pub const S1: usize = 17;
pub const K0: usize = 26;
pub const SP: usize = 29;
pub const RA: usize = 31;

// ---------------------------------------------------------------- encodings

/// R-type: SPECIAL with rs, rt, rd, sa, funct.
pub fn rtype(funct: u32, rd: usize, rs: usize, rt: usize, sa: u32) -> u32 {
    ((rs as u32) << 21) | ((rt as u32) << 16) | ((rd as u32) << 11) | (sa << 6) | funct
}
/// I-type: opcode, rs, rt, 16-bit immediate.
pub fn itype(op: u32, rt: usize, rs: usize, imm: i32) -> u32 {
    (op << 26) | ((rs as u32) << 21) | ((rt as u32) << 16) | (imm as u32 & 0xffff)
}
/// A PC-relative branch offset from the branch at `from` to `to`.
pub fn off(from: u32, to: u32) -> i32 {
    (to.wrapping_sub(from + 4) as i32) >> 2
}

pub fn nop() -> u32 {
    0
}
pub fn sll(rd: usize, rt: usize, sa: u32) -> u32 {
    rtype(0x00, rd, 0, rt, sa)
}
pub fn srl(rd: usize, rt: usize, sa: u32) -> u32 {
    rtype(0x02, rd, 0, rt, sa)
}
pub fn sra(rd: usize, rt: usize, sa: u32) -> u32 {
    rtype(0x03, rd, 0, rt, sa)
}
pub fn sllv(rd: usize, rt: usize, rs: usize) -> u32 {
    rtype(0x04, rd, rs, rt, 0)
}
pub fn srlv(rd: usize, rt: usize, rs: usize) -> u32 {
    rtype(0x06, rd, rs, rt, 0)
}
pub fn srav(rd: usize, rt: usize, rs: usize) -> u32 {
    rtype(0x07, rd, rs, rt, 0)
}
pub fn jr(rs: usize) -> u32 {
    rtype(0x08, 0, rs, 0, 0)
}
pub fn jalr(rd: usize, rs: usize) -> u32 {
    rtype(0x09, rd, rs, 0, 0)
}
pub fn syscall(code: u32) -> u32 {
    (code << 6) | 0x0c
}
pub fn brk(code: u32) -> u32 {
    (code << 6) | 0x0d
}
pub fn mfhi(rd: usize) -> u32 {
    rtype(0x10, rd, 0, 0, 0)
}
pub fn mthi(rs: usize) -> u32 {
    rtype(0x11, 0, rs, 0, 0)
}
pub fn mflo(rd: usize) -> u32 {
    rtype(0x12, rd, 0, 0, 0)
}
pub fn mtlo(rs: usize) -> u32 {
    rtype(0x13, 0, rs, 0, 0)
}
pub fn mult(rs: usize, rt: usize) -> u32 {
    rtype(0x18, 0, rs, rt, 0)
}
pub fn multu(rs: usize, rt: usize) -> u32 {
    rtype(0x19, 0, rs, rt, 0)
}
pub fn div(rs: usize, rt: usize) -> u32 {
    rtype(0x1a, 0, rs, rt, 0)
}
pub fn divu(rs: usize, rt: usize) -> u32 {
    rtype(0x1b, 0, rs, rt, 0)
}
pub fn add(rd: usize, rs: usize, rt: usize) -> u32 {
    rtype(0x20, rd, rs, rt, 0)
}
pub fn addu(rd: usize, rs: usize, rt: usize) -> u32 {
    rtype(0x21, rd, rs, rt, 0)
}
pub fn sub(rd: usize, rs: usize, rt: usize) -> u32 {
    rtype(0x22, rd, rs, rt, 0)
}
pub fn subu(rd: usize, rs: usize, rt: usize) -> u32 {
    rtype(0x23, rd, rs, rt, 0)
}
pub fn and(rd: usize, rs: usize, rt: usize) -> u32 {
    rtype(0x24, rd, rs, rt, 0)
}
pub fn or(rd: usize, rs: usize, rt: usize) -> u32 {
    rtype(0x25, rd, rs, rt, 0)
}
pub fn xor(rd: usize, rs: usize, rt: usize) -> u32 {
    rtype(0x26, rd, rs, rt, 0)
}
pub fn nor(rd: usize, rs: usize, rt: usize) -> u32 {
    rtype(0x27, rd, rs, rt, 0)
}
pub fn slt(rd: usize, rs: usize, rt: usize) -> u32 {
    rtype(0x2a, rd, rs, rt, 0)
}
pub fn sltu(rd: usize, rs: usize, rt: usize) -> u32 {
    rtype(0x2b, rd, rs, rt, 0)
}
/// REGIMM with any rt code (0 bltz, 1 bgez, 0x10 bltzal, 0x11 bgezal...).
pub fn regimm(code: u32, rs: usize, offset: i32) -> u32 {
    (1 << 26) | ((rs as u32) << 21) | (code << 16) | (offset as u32 & 0xffff)
}
pub fn bltz(rs: usize, offset: i32) -> u32 {
    regimm(0x00, rs, offset)
}
pub fn bgez(rs: usize, offset: i32) -> u32 {
    regimm(0x01, rs, offset)
}
pub fn bltzal(rs: usize, offset: i32) -> u32 {
    regimm(0x10, rs, offset)
}
pub fn bgezal(rs: usize, offset: i32) -> u32 {
    regimm(0x11, rs, offset)
}
/// J to the absolute `to` (same 256 MiB region).
pub fn j(to: u32) -> u32 {
    (0x02 << 26) | ((to >> 2) & 0x03ff_ffff)
}
pub fn jal(to: u32) -> u32 {
    (0x03 << 26) | ((to >> 2) & 0x03ff_ffff)
}
pub fn beq(rs: usize, rt: usize, offset: i32) -> u32 {
    itype(0x04, rt, rs, offset)
}
pub fn bne(rs: usize, rt: usize, offset: i32) -> u32 {
    itype(0x05, rt, rs, offset)
}
pub fn blez(rs: usize, offset: i32) -> u32 {
    itype(0x06, 0, rs, offset)
}
pub fn bgtz(rs: usize, offset: i32) -> u32 {
    itype(0x07, 0, rs, offset)
}
pub fn addi(rt: usize, rs: usize, imm: i32) -> u32 {
    itype(0x08, rt, rs, imm)
}
pub fn addiu(rt: usize, rs: usize, imm: i32) -> u32 {
    itype(0x09, rt, rs, imm)
}
pub fn slti(rt: usize, rs: usize, imm: i32) -> u32 {
    itype(0x0a, rt, rs, imm)
}
pub fn sltiu(rt: usize, rs: usize, imm: i32) -> u32 {
    itype(0x0b, rt, rs, imm)
}
pub fn andi(rt: usize, rs: usize, imm: u32) -> u32 {
    itype(0x0c, rt, rs, imm as i32)
}
pub fn ori(rt: usize, rs: usize, imm: u32) -> u32 {
    itype(0x0d, rt, rs, imm as i32)
}
pub fn xori(rt: usize, rs: usize, imm: u32) -> u32 {
    itype(0x0e, rt, rs, imm as i32)
}
pub fn lui(rt: usize, imm: u32) -> u32 {
    itype(0x0f, rt, 0, imm as i32)
}
pub fn mfc0(rt: usize, rd: usize) -> u32 {
    (0x10 << 26) | ((rt as u32) << 16) | ((rd as u32) << 11)
}
pub fn mtc0(rt: usize, rd: usize) -> u32 {
    (0x10 << 26) | (4 << 21) | ((rt as u32) << 16) | ((rd as u32) << 11)
}
pub fn rfe() -> u32 {
    0x4200_0010
}
pub fn lb(rt: usize, offset: i32, base: usize) -> u32 {
    itype(0x20, rt, base, offset)
}
pub fn lh(rt: usize, offset: i32, base: usize) -> u32 {
    itype(0x21, rt, base, offset)
}
pub fn lwl(rt: usize, offset: i32, base: usize) -> u32 {
    itype(0x22, rt, base, offset)
}
pub fn lw(rt: usize, offset: i32, base: usize) -> u32 {
    itype(0x23, rt, base, offset)
}
pub fn lbu(rt: usize, offset: i32, base: usize) -> u32 {
    itype(0x24, rt, base, offset)
}
pub fn lhu(rt: usize, offset: i32, base: usize) -> u32 {
    itype(0x25, rt, base, offset)
}
pub fn lwr(rt: usize, offset: i32, base: usize) -> u32 {
    itype(0x26, rt, base, offset)
}
pub fn sb(rt: usize, offset: i32, base: usize) -> u32 {
    itype(0x28, rt, base, offset)
}
pub fn sh(rt: usize, offset: i32, base: usize) -> u32 {
    itype(0x29, rt, base, offset)
}
pub fn swl(rt: usize, offset: i32, base: usize) -> u32 {
    itype(0x2a, rt, base, offset)
}
pub fn sw(rt: usize, offset: i32, base: usize) -> u32 {
    itype(0x2b, rt, base, offset)
}
pub fn swr(rt: usize, offset: i32, base: usize) -> u32 {
    itype(0x2e, rt, base, offset)
}

/// `lui rt, hi; ori rt, rt, lo`: load a 32-bit constant (two words).
pub fn li(rt: usize, v: u32) -> [u32; 2] {
    [lui(rt, v >> 16), ori(rt, rt, v & 0xffff)]
}

/// Concatenate program pieces.
pub fn prog(parts: &[&[u32]]) -> Vec<u32> {
    parts.concat()
}
