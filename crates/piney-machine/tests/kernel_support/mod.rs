//! Shared by the kernel tests: a tiny MIPS assembler for hand-written guest programs, a way to run
//! them, and the event log they write.
//!
//! A program logs values by appending words to a log in RAM ([`LOG`]); the test reads the log
//! after the run. `$t7`, `$t8` and `$t9` are the assembler's scratch registers.

#![allow(dead_code)]

use std::collections::HashMap;

use piney_machine::{Machine, MachineError, RunEnd, RunLimits};

/// Where programs are loaded.
pub const BASE: u32 = 0x0010_0000;
/// The log's write pointer (a word).
pub const LOG_PTR: u32 = 0x0017_fff0;
/// The log's first word.
pub const LOG: u32 = 0x0018_0000;
/// Scratch data for programs (semaphore parameter blocks, status buffers...).
pub const DATA: u32 = 0x0017_0000;
/// Thread stacks: `STACKS + n * STACK_SIZE`.
pub const STACKS: u32 = 0x0019_0000;
/// Each test thread's stack size.
pub const STACK_SIZE: u32 = 0x4000;

/// Register numbers.
pub mod r {
    pub const ZERO: u32 = 0;
    pub const V0: u32 = 2;
    pub const V1: u32 = 3;
    pub const A0: u32 = 4;
    pub const A1: u32 = 5;
    pub const A2: u32 = 6;
    pub const A3: u32 = 7;
    pub const T0: u32 = 8;
    pub const T1: u32 = 9;
    pub const T2: u32 = 10;
    pub const T7: u32 = 15;
    pub const S0: u32 = 16;
    pub const S1: u32 = 17;
    pub const S2: u32 = 18;
    pub const T8: u32 = 24;
    pub const T9: u32 = 25;
    pub const GP: u32 = 28;
    pub const SP: u32 = 29;
    pub const RA: u32 = 31;
}

/// Syscall numbers used by the tests.
pub mod sc {
    pub const EXIT: i32 = 4;
    pub const ADD_INTC_HANDLER: i32 = 0x10;
    pub const REMOVE_INTC_HANDLER: i32 = 0x11;
    pub const ADD_DMAC_HANDLER: i32 = 0x12;
    pub const ENABLE_INTC: i32 = 0x14;
    pub const DISABLE_INTC: i32 = 0x15;
    pub const ENABLE_DMAC: i32 = 0x16;
    pub const SET_ALARM: i32 = 0x18;
    pub const RELEASE_ALARM: i32 = 0x19;
    pub const CREATE_THREAD: i32 = 0x20;
    pub const DELETE_THREAD: i32 = 0x21;
    pub const START_THREAD: i32 = 0x22;
    pub const EXIT_THREAD: i32 = 0x23;
    pub const EXIT_DELETE_THREAD: i32 = 0x24;
    pub const TERMINATE_THREAD: i32 = 0x25;
    pub const CHANGE_THREAD_PRIORITY: i32 = 0x29;
    pub const ROTATE_THREAD_READY_QUEUE: i32 = 0x2b;
    pub const GET_THREAD_ID: i32 = 0x2f;
    pub const REFER_THREAD_STATUS: i32 = 0x30;
    pub const SLEEP_THREAD: i32 = 0x32;
    pub const WAKEUP_THREAD: i32 = 0x33;
    pub const I_WAKEUP_THREAD: i32 = -0x34;
    pub const SUSPEND_THREAD: i32 = 0x37;
    pub const RESUME_THREAD: i32 = 0x39;
    pub const SETUP_THREAD: i32 = 0x3c;
    pub const SETUP_HEAP: i32 = 0x3d;
    pub const END_OF_HEAP: i32 = 0x3e;
    pub const CREATE_SEMA: i32 = 0x40;
    pub const DELETE_SEMA: i32 = 0x41;
    pub const SIGNAL_SEMA: i32 = 0x42;
    pub const I_SIGNAL_SEMA: i32 = -0x43;
    pub const WAIT_SEMA: i32 = 0x44;
    pub const POLL_SEMA: i32 = 0x45;
    pub const REFER_SEMA_STATUS: i32 = 0x47;
    pub const SET_OSD_CONFIG_PARAM: i32 = 0x4a;
    pub const GET_OSD_CONFIG_PARAM: i32 = 0x4b;
    pub const FLUSH_CACHE: i32 = 0x64;
    pub const GS_GET_IMR: i32 = 0x70;
    pub const GS_PUT_IMR: i32 = 0x71;
    pub const SET_SYSCALL: i32 = 0x74;
    pub const GET_MEMORY_SIZE: i32 = 0x7f;
}

#[derive(Clone, Copy)]
enum Fix {
    Branch,
    Jump,
    Hi,
    Lo,
}

/// A little assembler: instructions appended in order, labels resolved at [`Asm::finish`].
/// Branches and jumps get a `nop` in their delay slot.
pub struct Asm {
    words: Vec<u32>,
    labels: HashMap<String, u32>,
    fixups: Vec<(usize, String, Fix)>,
}

impl Default for Asm {
    fn default() -> Self {
        Self::new()
    }
}

fn i_type(op: u32, rs: u32, rt: u32, imm: u32) -> u32 {
    (op << 26) | (rs << 21) | (rt << 16) | (imm & 0xffff)
}

impl Asm {
    /// An empty program at [`BASE`].
    pub fn new() -> Self {
        Self {
            words: Vec::new(),
            labels: HashMap::new(),
            fixups: Vec::new(),
        }
    }
    fn pc(&self) -> u32 {
        BASE + 4 * self.words.len() as u32
    }
    /// Emit a raw word.
    pub fn word(&mut self, w: u32) -> &mut Self {
        self.words.push(w);
        self
    }
    /// Define a label here.
    pub fn label(&mut self, name: &str) -> &mut Self {
        let pc = self.pc();
        self.labels.insert(name.to_string(), pc);
        self
    }
    /// The address of a label defined so far.
    pub fn addr_of(&self, name: &str) -> u32 {
        *self
            .labels
            .get(name)
            .unwrap_or_else(|| panic!("undefined label {name}"))
    }
    pub fn nop(&mut self) -> &mut Self {
        self.word(0)
    }
    pub fn addiu(&mut self, rt: u32, rs: u32, imm: i32) -> &mut Self {
        self.word(i_type(9, rs, rt, imm as u32))
    }
    pub fn ori(&mut self, rt: u32, rs: u32, imm: u32) -> &mut Self {
        self.word(i_type(0xd, rs, rt, imm))
    }
    pub fn lui(&mut self, rt: u32, imm: u32) -> &mut Self {
        self.word(i_type(0xf, 0, rt, imm))
    }
    pub fn lw(&mut self, rt: u32, off: i32, base: u32) -> &mut Self {
        self.word(i_type(0x23, base, rt, off as u32))
    }
    pub fn sw(&mut self, rt: u32, off: i32, base: u32) -> &mut Self {
        self.word(i_type(0x2b, base, rt, off as u32))
    }
    pub fn addu(&mut self, rd: u32, rs: u32, rt: u32) -> &mut Self {
        self.word((rs << 21) | (rt << 16) | (rd << 11) | 0x21)
    }
    pub fn mv(&mut self, rd: u32, rs: u32) -> &mut Self {
        self.addu(rd, rs, 0)
    }
    /// Load a 32-bit constant.
    pub fn li(&mut self, rt: u32, v: u32) -> &mut Self {
        self.lui(rt, v >> 16).ori(rt, rt, v & 0xffff)
    }
    /// Load a label's address.
    pub fn la(&mut self, rt: u32, label: &str) -> &mut Self {
        self.fixups.push((self.words.len(), label.into(), Fix::Hi));
        self.lui(rt, 0);
        self.fixups.push((self.words.len(), label.into(), Fix::Lo));
        self.ori(rt, rt, 0)
    }
    pub fn jr(&mut self, rs: u32) -> &mut Self {
        self.word((rs << 21) | 8).nop()
    }
    /// `jalr $ra, rs`.
    pub fn jalr(&mut self, rs: u32) -> &mut Self {
        self.word((rs << 21) | (31 << 11) | 9).nop()
    }
    pub fn j(&mut self, label: &str) -> &mut Self {
        self.fixups
            .push((self.words.len(), label.into(), Fix::Jump));
        self.word(2 << 26).nop()
    }
    pub fn jal(&mut self, label: &str) -> &mut Self {
        self.fixups
            .push((self.words.len(), label.into(), Fix::Jump));
        self.word(3 << 26).nop()
    }
    pub fn beq(&mut self, rs: u32, rt: u32, label: &str) -> &mut Self {
        self.fixups
            .push((self.words.len(), label.into(), Fix::Branch));
        self.word(i_type(4, rs, rt, 0)).nop()
    }
    pub fn bne(&mut self, rs: u32, rt: u32, label: &str) -> &mut Self {
        self.fixups
            .push((self.words.len(), label.into(), Fix::Branch));
        self.word(i_type(5, rs, rt, 0)).nop()
    }
    /// `li $v1, n; syscall`.
    pub fn sys(&mut self, n: i32) -> &mut Self {
        self.addiu(r::V1, 0, n).word(0xc)
    }
    /// Append register `rt` to the log.
    pub fn log(&mut self, rt: u32) -> &mut Self {
        self.li(r::T9, LOG_PTR)
            .lw(r::T8, 0, r::T9)
            .sw(rt, 0, r::T8)
            .addiu(r::T8, r::T8, 4)
            .sw(r::T8, 0, r::T9)
    }
    /// Append a constant to the log.
    pub fn log_imm(&mut self, v: u32) -> &mut Self {
        self.li(r::T7, v).log(r::T7)
    }
    /// Store a constant word at an address.
    pub fn store_imm(&mut self, addr: u32, v: u32) -> &mut Self {
        self.li(r::T8, addr).li(r::T7, v).sw(r::T7, 0, r::T8)
    }
    /// Write an `ee_thread_t` at `param` and call CreateThread; the id is left in `$v0`.
    pub fn create_thread(
        &mut self,
        param: u32,
        entry: &str,
        stack_index: u32,
        prio: u32,
    ) -> &mut Self {
        self.store_imm(param, 0);
        self.la(r::T7, entry).li(r::T8, param).sw(r::T7, 4, r::T8);
        self.store_imm(param + 8, STACKS + stack_index * STACK_SIZE)
            .store_imm(param + 12, STACK_SIZE)
            .store_imm(param + 16, 0)
            .store_imm(param + 20, prio)
            .store_imm(param + 24, prio)
            .store_imm(param + 28, 0)
            .store_imm(param + 32, 0);
        self.li(r::A0, param).sys(sc::CREATE_THREAD)
    }
    /// Write an `ee_sema_t` at `param` and call CreateSema; the id is left in `$v0`.
    pub fn create_sema(&mut self, param: u32, init: u32, max: u32) -> &mut Self {
        for i in 0..6 {
            self.store_imm(param + 4 * i, 0);
        }
        self.store_imm(param + 4, max).store_imm(param + 8, init);
        self.li(r::A0, param).sys(sc::CREATE_SEMA)
    }
    /// `Exit(0)`.
    pub fn exit(&mut self) -> &mut Self {
        self.li(r::A0, 0).sys(sc::EXIT)
    }

    /// Resolve labels; the program's words.
    pub fn finish(&self) -> Vec<u32> {
        let mut w = self.words.clone();
        for (at, name, fix) in &self.fixups {
            let target = *self
                .labels
                .get(name)
                .unwrap_or_else(|| panic!("undefined label {name}"));
            let pc = BASE + 4 * *at as u32;
            w[*at] |= match fix {
                Fix::Branch => (target.wrapping_sub(pc + 4) >> 2) & 0xffff,
                Fix::Jump => (target >> 2) & 0x03ff_ffff,
                Fix::Hi => target >> 16,
                Fix::Lo => target & 0xffff,
            };
        }
        w
    }
}

/// A minimal MIPS executable holding `words` at [`BASE`], entry at [`BASE`].
pub fn elf(words: &[u32]) -> Vec<u8> {
    let code: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let mut f = vec![0u8; 52 + 32];
    f[0..4].copy_from_slice(b"\x7fELF");
    f[4] = 1;
    f[5] = 1;
    f[6] = 1;
    f[16..18].copy_from_slice(&2u16.to_le_bytes());
    f[18..20].copy_from_slice(&8u16.to_le_bytes());
    f[20..24].copy_from_slice(&1u32.to_le_bytes());
    f[24..28].copy_from_slice(&BASE.to_le_bytes());
    f[28..32].copy_from_slice(&52u32.to_le_bytes());
    f[40..42].copy_from_slice(&52u16.to_le_bytes());
    f[42..44].copy_from_slice(&32u16.to_le_bytes());
    f[44..46].copy_from_slice(&1u16.to_le_bytes());
    let ph = &mut f[52..84];
    ph[0..4].copy_from_slice(&1u32.to_le_bytes());
    ph[4..8].copy_from_slice(&84u32.to_le_bytes());
    ph[8..12].copy_from_slice(&BASE.to_le_bytes());
    ph[12..16].copy_from_slice(&BASE.to_le_bytes());
    ph[16..20].copy_from_slice(&(code.len() as u32).to_le_bytes());
    ph[20..24].copy_from_slice(&(code.len() as u32).to_le_bytes());
    f.extend_from_slice(&code);
    f
}

/// A machine with `asm`'s program loaded and the log empty.
pub fn machine(asm: &Asm) -> Machine {
    let mut m = Machine::new(Box::new(std::io::sink()));
    m.attach_renderer(Box::new(piney_gs::SoftwareRenderer::new()));
    m.load_elf(&elf(&asm.finish()))
        .expect("the test program loads");
    m.bus.write_bytes(LOG_PTR, &LOG.to_le_bytes()).expect("RAM");
    m
}

/// Run for at most `frames` VBlanks.
pub fn run(m: &mut Machine, frames: u64) -> Result<RunEnd, MachineError> {
    m.run(RunLimits {
        frames: Some(frames),
        seconds: None,
    })
}

/// Append a word to the program's log (what a native function standing for guest code logs).
pub fn log_word(m: &mut Machine, v: u32) {
    let mut p = [0u8; 4];
    m.bus.read_bytes(LOG_PTR, &mut p).expect("RAM");
    let at = u32::from_le_bytes(p);
    m.bus.write_bytes(at, &v.to_le_bytes()).expect("RAM");
    m.bus
        .write_bytes(LOG_PTR, &(at + 4).to_le_bytes())
        .expect("RAM");
}

/// The words the program logged.
pub fn log(m: &mut Machine) -> Vec<u32> {
    let mut p = [0u8; 4];
    m.bus.read_bytes(LOG_PTR, &mut p).expect("RAM");
    let end = u32::from_le_bytes(p);
    (LOG..end)
        .step_by(4)
        .map(|a| {
            m.bus.read_bytes(a, &mut p).expect("RAM");
            u32::from_le_bytes(p)
        })
        .collect()
}
