//! The differential harness: the recompiler against the reference interpreter.
//!
//! A seeded generator writes a random guest program (integer ALU, shifts, immediates, HI/LO,
//! multiply/divide, MMI, FPU, COP2 with VU starts, loads and stores, forward branches of every
//! kind with their delay slots, counted loops, calls through JAL/JALR, stores that rewrite
//! code ahead of them, and COP0: MFC0/MTC0 of Count, Compare, EPC, Status's interrupt bits and
//! Cause's software bits, EI/DI, SYNC, also in delay slots), with a random initial state (VU0
//! busy or not, interrupts enabled or not, the COP0 timer due soon or not) and, for some seeds,
//! native hooks at function entries, call continuations or any instruction. Both engines run it
//! from the same state with the same cycle budget, in the machine's loop: timed events raise
//! and drop interrupt lines at random cycles (inside blocks, at their edges, in delay slots) and
//! each run of the recompiler ends where the next event or the COP0 timer is due; a pending
//! interrupt is entered (the handler acknowledges it and returns with ERET); a hooked pc (not a
//! delay slot) runs the hook (which mixes the cycle count into $v0 and skips the instruction, or
//! declines), and a VU0 call or VU1 start (VCALLMS, VCALLMSR, CTC2 to CMSAR1) is serviced right
//! after the instruction that asked. The whole `Cpu` (128-bit GPRs, HI/LO, SA, FPRs, ACC, FCR31, VU0, COP0,
//! pc and delay-slot state, cycles), the exception (if any), all of memory and the log of hook
//! calls and VU starts (each with its cycle) must agree. A failure prints the seed, the
//! differences and the program, disassembled.
//!
//! `PINEY_JIT_SEEDS=N` runs N seeds in `long_run` (default: a short run), from seed
//! `PINEY_JIT_FIRST_SEED` (default 1000000), starting no seed after `PINEY_JIT_SECONDS` (CI's
//! larger run, tools/test.sh): `PINEY_JIT_SEEDS=1 PINEY_JIT_FIRST_SEED=S` reruns the seed S a
//! failure printed.

use piney_ee::bus::FlatBus;
use piney_ee::disasm::disassemble;
use piney_ee::table::{OpFlags, Operands};
use piney_ee::{Bus, BusFault, Cpu, Exception, decode};
use piney_jit::{Category, HookSet, Jit, JitBus, KillSwitches};
use piney_ram::GuestRam;

const MEM: usize = 0x40000;
const CODE: u32 = 0x1000;
const DATA: u32 = 0x20000;
/// The data base register (never a destination).
const BASE: usize = 28;
/// The loop counter register (only loops write it).
const COUNTER: usize = 29;

/// The scratchpad's address (16 KiB), served by the fast path.
const SPR: u32 = 0x7000_0000;
/// A small "device": 256 bytes of registers that count their accesses (so a missed or repeated
/// access shows), reached through the bus only.
const DEV: u32 = 0x1000_0000;

/// RAM (mirrored at the PS2's four segments for odd seeds, so both ways compiled code reaches
/// it run), a scratchpad and a device.
#[derive(Clone, PartialEq)]
struct TestBus {
    flat: GuestRam,
    spr: Vec<u8>,
    dev: Vec<u8>,
    accesses: u32,
    /// The machine's clock as last given (device reads mix it in, so a stale clock shows).
    now: u64,
}

enum Place {
    Flat,
    Spr(usize),
    Dev(usize),
    Fault,
}

impl TestBus {
    fn place(&self, addr: u32, n: usize) -> Place {
        if addr >> 28 == 0x7 {
            let off = (addr - SPR) as usize;
            if addr >= SPR && off + n <= self.spr.len() {
                Place::Spr(off)
            } else {
                Place::Fault
            }
        } else if (DEV..DEV + 0x100).contains(&addr) {
            let off = (addr - DEV) as usize;
            if off + n <= self.dev.len() {
                Place::Dev(off)
            } else {
                Place::Fault
            }
        } else {
            Place::Flat
        }
    }
    fn get<const N: usize>(&mut self, addr: u32) -> Result<[u8; N], BusFault> {
        let mut b = [0; N];
        match self.place(addr, N) {
            Place::Spr(o) => b.copy_from_slice(&self.spr[o..o + N]),
            Place::Dev(o) => {
                self.accesses += 1;
                b.copy_from_slice(&self.dev[o..o + N]);
                b[0] ^= self.now as u8;
            }
            Place::Fault => return Err(BusFault { addr }),
            Place::Flat => {
                let a = (addr & 0x1fff_ffff) as usize;
                if a + N > self.flat.len() {
                    return Err(BusFault { addr });
                }
                b.copy_from_slice(&self.flat[a..a + N]);
            }
        }
        Ok(b)
    }
    fn put(&mut self, addr: u32, v: &[u8]) -> Result<(), BusFault> {
        let n = v.len();
        match self.place(addr, n) {
            Place::Spr(o) => self.spr[o..o + n].copy_from_slice(v),
            Place::Dev(o) => {
                self.accesses += 1;
                self.dev[o..o + n].copy_from_slice(v);
            }
            Place::Fault => return Err(BusFault { addr }),
            Place::Flat => {
                let a = (addr & 0x1fff_ffff) as usize;
                if a + n > self.flat.len() {
                    return Err(BusFault { addr });
                }
                self.flat[a..a + n].copy_from_slice(v);
            }
        }
        Ok(())
    }
}

macro_rules! access {
    ($r:ident, $w:ident, $t:ty) => {
        fn $r(&mut self, a: u32) -> Result<$t, BusFault> {
            self.get(a).map(<$t>::from_le_bytes)
        }
        fn $w(&mut self, a: u32, v: $t) -> Result<(), BusFault> {
            self.put(a, &v.to_le_bytes())
        }
    };
}

impl Bus for TestBus {
    access!(read8, write8, u8);
    access!(read16, write16, u16);
    access!(read32, write32, u32);
    access!(read64, write64, u64);
    access!(read128, write128, u128);
}

impl JitBus for TestBus {
    fn ram(&mut self) -> &mut [u8] {
        &mut self.flat
    }
    fn ram_mirrored(&mut self) -> bool {
        self.flat.mirrored()
    }
    fn scratchpad(&mut self) -> &mut [u8] {
        &mut self.spr
    }
    fn sync_cycles(&mut self, cycles: u64) {
        self.now = cycles;
    }
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    fn u32(&mut self) -> u32 {
        self.next() as u32
    }
    fn u128(&mut self) -> u128 {
        (self.next() as u128) << 64 | self.next() as u128
    }
    /// A register that random instructions may write.
    fn dest(&mut self) -> u32 {
        let r = 1 + self.below(28) as u32; // 1..=28
        if r == BASE as u32 || r == COUNTER as u32 {
            30
        } else {
            r
        }
    }
    /// Any register as a source.
    fn src(&mut self) -> u32 {
        self.below(32) as u32
    }
}

fn r_type(op: u32, rs: u32, rt: u32, rd: u32, sa: u32, funct: u32) -> u32 {
    op << 26 | rs << 21 | rt << 16 | rd << 11 | sa << 6 | funct
}
fn i_type(op: u32, rs: u32, rt: u32, imm: u32) -> u32 {
    op << 26 | rs << 21 | rt << 16 | (imm & 0xffff)
}

/// Force the register fields an instruction writes into the destination pool.
fn fix_dests(rng: &mut Rng, mut w: u32) -> u32 {
    let info = decode(w);
    if info.writes.contains(Operands::RD) {
        w = (w & !(31 << 11)) | rng.dest() << 11;
    }
    if info.writes.contains(Operands::RT) {
        w = (w & !(31 << 16)) | rng.dest() << 16;
    }
    w
}

/// One random instruction that neither branches nor touches memory nor COP0.
fn alu_word(rng: &mut Rng) -> u32 {
    loop {
        let w = match rng.below(10) {
            0..=2 => r_type(
                0,
                rng.src(),
                rng.src(),
                0,
                rng.below(32) as u32,
                rng.below(64) as u32,
            ),
            3..=4 => {
                let op = [0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x18, 0x19]
                    [rng.below(10) as usize];
                let imm = if rng.chance(50) {
                    rng.below(32) as u32
                } else {
                    rng.u32()
                };
                i_type(op, rng.src(), 0, imm)
            }
            5 => i_type(
                1,
                rng.src(),
                [0x18, 0x19, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0e][rng.below(8) as usize],
                rng.u32(),
            ),
            6..=7 => {
                // MMI; half the time in the MMI0..3 sub-tables, where most of them are.
                let w = 0x1c << 26 | (rng.u32() & 0x03ff_ffff);
                if rng.chance(50) {
                    (w & !63) | [0x08, 0x09, 0x28, 0x29][rng.below(4) as usize]
                } else {
                    w
                }
            }
            8 => {
                // COP1: moves and the S and W formats.
                let rs = [0, 2, 4, 6, 0x10, 0x10, 0x10, 0x14][rng.below(8) as usize];
                0x11 << 26 | rs << 21 | (rng.u32() & 0x001f_ffff)
            }
            _ if rng.chance(5) => match rng.below(4) {
                // A VU start, which the machine services right after the instruction.
                0 => 0x4a00_0038 | (rng.below(0x8000) as u32) << 6, // vcallms
                1 => 0x4a00_d839,                                   // vcallmsr
                2 => 0x48c0_f800 | rng.src() << 16,                 // ctc2 rt, CMSAR1
                // A COP2 move with the I bit, which waits while VU0 runs (the interlock):
                // qmfc2.i, cfc2.i (a VI register), qmtc2.i, ctc2.i (a VI register).
                _ => {
                    let rs = [1, 2, 5, 6][rng.below(4) as usize];
                    let reg = if rs == 2 || rs == 6 {
                        rng.below(16) as u32
                    } else {
                        rng.below(32) as u32
                    };
                    0x12 << 26 | rs << 21 | rng.src() << 16 | reg << 11 | 1
                }
            },
            _ => 0x12 << 26 | (rng.u32() & 0x03ff_ffff),
        };
        let info = decode(w);
        let f = info.flags;
        if f.intersects(
            OpFlags::BRANCH
                | OpFlags::LOAD
                | OpFlags::STORE
                | OpFlags::COP0
                | OpFlags::ENDS_BLOCK
                | OpFlags::RESERVED,
        ) {
            continue;
        }
        // Traps and overflow end a program: keep them rare.
        if f.contains(OpFlags::MAY_TRAP) && !rng.chance(10) {
            continue;
        }
        // CTC2 to the VU0 control registers (FBRST, CMSAR0...) is left out: only the machine
        // gives it meaning. CMSAR1 (a VU1 start) comes from the case above.
        if info.mnemonic == "ctc2" && (w >> 11) & 31 >= 16 && w & 0xffe0_ffff != 0x48c0_f800 {
            continue;
        }
        return fix_dests(rng, w);
    }
}

/// A random load or store off the data base register.
fn mem_word(rng: &mut Rng) -> u32 {
    const OPS: [(u32, u32); 26] = [
        (0x20, 1),
        (0x24, 1),
        (0x21, 2),
        (0x25, 2),
        (0x23, 4),
        (0x27, 4),
        (0x37, 8),
        (0x1e, 16),
        (0x28, 1),
        (0x29, 2),
        (0x2b, 4),
        (0x3f, 8),
        (0x1f, 16),
        (0x22, 1),
        (0x26, 1),
        (0x1a, 1),
        (0x1b, 1),
        (0x2a, 1),
        (0x2e, 1),
        (0x2c, 1),
        (0x2d, 1),
        (0x31, 4),
        (0x39, 4),
        (0x36, 16),
        (0x3e, 16),
        (0x23, 4),
    ];
    let (op, size) = OPS[rng.below(OPS.len() as u64) as usize];
    let mut off = (rng.below(0x1000) as i32 - 0x800) & !(size as i32 - 1);
    if rng.chance(5) {
        off |= rng.below(16) as i32; // misaligned
    }
    let base = if rng.chance(3) {
        rng.src()
    } else {
        BASE as u32
    };
    let w = i_type(op, base, rng.src(), off as u32);
    fix_dests(rng, w)
}

/// A run of loads and stores of one size through one base register, their offsets a multiple
/// of the size apart (what the recompiler checks once for the whole run), sometimes across the
/// end of RAM (see the base register's values).
fn mem_run(rng: &mut Rng, w: &mut Vec<u32>) {
    // (load, store, size): LB/SB, LH/SH, LW/SW, LWU/SW, LD/SD, LWC1/SWC1.
    const KINDS: [(u32, u32, i32); 6] = [
        (0x20, 0x28, 1),
        (0x21, 0x29, 2),
        (0x23, 0x2b, 4),
        (0x27, 0x2b, 4),
        (0x37, 0x3f, 8),
        (0x31, 0x39, 4),
    ];
    let (load, store, size) = KINDS[rng.below(KINDS.len() as u64) as usize];
    let base = if rng.chance(25) {
        rng.src()
    } else {
        BASE as u32
    };
    // Now and then around offset 0x800 (RAM's end from one of the base register's values).
    let start = if rng.chance(40) {
        0x800 - size * rng.below(9) as i32
    } else {
        (rng.below(0x1000) as i32 - 0x800) & !(size - 1)
    };
    for _ in 0..2 + rng.below(4) {
        let off = start + size * (rng.below(17) as i32 - 8);
        let op = if rng.chance(35) { store } else { load };
        let word = i_type(op, base, rng.src(), off as u32);
        w.push(fix_dests(rng, word));
        if op == store && rng.chance(30) {
            // Read back at once (a load the recompiler may take the stored value for).
            let word = i_type(load, base, rng.src(), off as u32);
            w.push(fix_dests(rng, word));
        }
    }
}

/// A random straight-line item (one instruction).
fn plain(rng: &mut Rng) -> u32 {
    if rng.chance(30) {
        mem_word(rng)
    } else if rng.chance(3) {
        cop0_word(rng)
    } else {
        alu_word(rng)
    }
}

/// MFC0 rt, rd.
fn mfc0(rt: u32, rd: usize) -> u32 {
    0x4000_0000 | rt << 16 | (rd as u32) << 11
}
/// MTC0 rt, rd.
fn mtc0(rt: u32, rd: usize) -> u32 {
    0x4080_0000 | rt << 16 | (rd as u32) << 11
}
const EI: u32 = 0x4200_0038;
const DI: u32 = 0x4200_0039;

/// One COP0 instruction that keeps the CPU in kernel mode with EXL clear (so that the program
/// goes on as it is): MFC0 of the registers a program reads, MTC0 of Count, Compare, EPC and
/// Cause's software bits, EI and DI (interrupts on and off), SYNC (not COP0, but a barrier
/// programs put beside them).
fn cop0_word(rng: &mut Rng) -> u32 {
    use piney_ee::cpu::cop0reg as c;
    match rng.below(6) {
        0 | 1 => {
            const READ: [usize; 9] = [
                c::COUNT,
                c::COMPARE,
                c::EPC,
                c::STATUS,
                c::CAUSE,
                c::BAD_VADDR,
                c::PRID,
                c::CONFIG,
                c::INDEX,
            ];
            mfc0(rng.dest(), READ[rng.below(READ.len() as u64) as usize])
        }
        2 => mtc0(
            rng.src(),
            [c::COUNT, c::COMPARE, c::EPC, c::CAUSE][rng.below(4) as usize],
        ),
        3 => EI,
        4 => DI,
        _ => [0x0000_000f, 0x0000_040f][rng.below(2) as usize], // sync.l, sync.p
    }
}

/// A few COP0 instructions that do something together: the timer due soon (Compare = Count +
/// a few cycles), or Status's interrupt enables and masks (IE, IM2, IM3, IM7) toggled.
fn cop0_item(rng: &mut Rng, w: &mut Vec<u32>) {
    use piney_ee::cpu::cop0reg as c;
    let r = rng.dest();
    match rng.below(3) {
        0 => {
            w.push(mfc0(r, c::COUNT));
            w.push(i_type(0x09, r, r, rng.below(400) as u32)); // addiu r, r, k
            w.push(mtc0(r, c::COMPARE));
        }
        1 => {
            w.push(mfc0(r, c::STATUS));
            let bits = [0x0001, 0x0400, 0x0800, 0x8000, 0x8c01][rng.below(5) as usize];
            w.push(i_type(0x0e, r, r, bits)); // xori r, r, bits
            w.push(mtc0(r, c::STATUS));
        }
        _ => w.push(cop0_word(rng)),
    }
}

struct Program {
    words: Vec<u32>,
    /// Addresses a hook would sit at: function entries and call continuations.
    entries: Vec<u32>,
}

/// Pending fix-up: patch word `at` with a branch to item index `to` (PC-relative or absolute).
enum Fix {
    Rel { at: usize, to: usize },
    Func { at: usize, func: usize },
    FuncAddr { hi: usize, lo: usize, func: usize },
}

fn gen_program(rng: &mut Rng) -> Program {
    let mut w: Vec<u32> = Vec::new();
    let mut fixes = Vec::new();
    // Call continuations (word indices), for hooks.
    let mut conts = Vec::new();
    let mut funcs: Vec<Vec<u32>> = Vec::new();
    for _ in 0..1 + rng.below(3) {
        let mut f: Vec<u32> = (0..1 + rng.below(6)).map(|_| plain(rng)).collect();
        f.push(r_type(0, 31, 0, 0, 0, 0x08)); // jr $ra
        f.push(alu_word(rng));
        funcs.push(f);
    }
    let items = 10 + rng.below(50);
    for _ in 0..items {
        match rng.below(100) {
            0..=44 => w.push(plain(rng)),
            45..=50 => mem_run(rng, &mut w),
            51..=54 => cop0_item(rng, &mut w),
            55..=74 => {
                // A forward branch over 0..6 items, with a delay slot.
                let at = w.len();
                let kind = rng.below(16);
                let word = match kind {
                    0 => i_type(0x04, rng.src(), rng.src(), 0),
                    1 => i_type(0x05, rng.src(), rng.src(), 0),
                    2 => i_type(0x06, rng.src(), 0, 0),
                    3 => i_type(0x07, rng.src(), 0, 0),
                    4 => i_type(0x14, rng.src(), rng.src(), 0),
                    5 => i_type(0x15, rng.src(), rng.src(), 0),
                    6 => i_type(0x16, rng.src(), 0, 0),
                    7 => i_type(0x17, rng.src(), 0, 0),
                    8 => i_type(1, rng.src(), [0, 1, 2, 3][rng.below(4) as usize], 0),
                    9 => i_type(
                        1,
                        rng.src(),
                        [0x10, 0x11, 0x12, 0x13][rng.below(4) as usize],
                        0,
                    ),
                    10 => 0x11 << 26 | 8 << 21 | (rng.below(4) as u32) << 16, // bc1f/t/fl/tl
                    11 => i_type(0x04, 0, 0, 0),                              // b
                    12 => 0x02 << 26, // j (fixed up as absolute)
                    _ => i_type(0x05, rng.src(), rng.src(), 0),
                };
                w.push(word);
                w.push(plain(rng));
                let skip = rng.below(7) as usize;
                for _ in 0..skip {
                    w.push(plain(rng));
                }
                fixes.push(Fix::Rel { at, to: w.len() });
            }
            75..=81 => {
                // A counted loop.
                let n = 1 + rng.below(5) as u32;
                w.push(i_type(0x0d, 0, COUNTER as u32, n)); // ori counter, $0, n
                let top = w.len();
                for _ in 0..1 + rng.below(5) {
                    w.push(plain(rng));
                }
                w.push(i_type(0x09, COUNTER as u32, COUNTER as u32, 0xffff)); // addiu counter, -1
                let at = w.len();
                w.push(i_type(
                    if rng.chance(20) { 0x15 } else { 0x05 },
                    COUNTER as u32,
                    0,
                    0,
                ));
                w.push(alu_word(rng));
                fixes.push(Fix::Rel { at, to: top });
            }
            82..=88 => {
                // A call: JAL, or JALR through a register.
                let func = rng.below(funcs.len() as u64) as usize;
                if rng.chance(50) {
                    fixes.push(Fix::Func { at: w.len(), func });
                    w.push(0x03 << 26);
                } else {
                    let r = rng.dest();
                    fixes.push(Fix::FuncAddr {
                        hi: w.len(),
                        lo: w.len() + 1,
                        func,
                    });
                    w.push(i_type(0x0f, 0, r, 0));
                    w.push(i_type(0x0d, r, r, 0));
                    w.push(r_type(0, r, 0, 31, 0, 0x09));
                }
                w.push(plain(rng));
                conts.push(w.len());
            }
            _ => {
                // Rewrite an instruction a few words ahead (often in the same block).
                let (ra, rv) = (
                    rng.dest(),
                    loop {
                        let r = rng.dest();
                        if r != 0 {
                            break r;
                        }
                    },
                );
                let ra = if ra == rv {
                    if rv == 1 { 2 } else { 1 }
                } else {
                    ra
                };
                let k = rng.below(4) as usize;
                let target = CODE + 4 * (w.len() + 5 + k) as u32;
                let new = alu_word(rng);
                w.push(i_type(0x0f, 0, ra, target >> 16));
                w.push(i_type(0x0d, ra, ra, target));
                w.push(i_type(0x0f, 0, rv, new >> 16));
                w.push(i_type(0x0d, rv, rv, new));
                w.push(i_type(0x2b, ra, rv, 0)); // sw rv, 0(ra)
                for _ in 0..k {
                    w.push(alu_word(rng));
                }
                w.push(alu_word(rng)); // the word that gets rewritten
            }
        }
    }
    let end = w.len();
    w.push(0x0000_000c); // syscall
    let mut func_at = Vec::new();
    for f in &funcs {
        func_at.push(w.len());
        w.extend_from_slice(f);
    }
    for fx in fixes {
        match fx {
            Fix::Rel { at, to } => {
                let to = to.min(end);
                if w[at] >> 26 == 0x02 {
                    let t = CODE + 4 * to as u32;
                    w[at] = 0x02 << 26 | (t >> 2) & 0x03ff_ffff;
                } else {
                    let off = to as i64 - (at as i64 + 1);
                    w[at] = (w[at] & 0xffff_0000) | (off as u32 & 0xffff);
                }
            }
            Fix::Func { at, func } => {
                let t = CODE + 4 * func_at[func] as u32;
                w[at] = 0x03 << 26 | (t >> 2) & 0x03ff_ffff;
            }
            Fix::FuncAddr { hi, lo, func } => {
                let t = CODE + 4 * func_at[func] as u32;
                w[hi] |= t >> 16;
                w[lo] |= t & 0xffff;
            }
        }
    }
    let entries = func_at
        .iter()
        .chain(&conts)
        .map(|&i| CODE + 4 * i as u32)
        .collect();
    Program { words: w, entries }
}

fn initial_state(rng: &mut Rng, prog: &Program, mirrored: bool) -> (Cpu, TestBus) {
    let mut cpu = Cpu::new();
    for r in 1..32 {
        cpu.gpr[r] = match rng.below(4) {
            0 => rng.below(16) as u128,
            1 => (rng.u32() as i32 as i64 as u64) as u128 | (rng.u128() & !(u64::MAX as u128)),
            _ => rng.u128(),
        };
    }
    // Memory operations work off RAM, the scratchpad or (rarely) the device, or RAM's last 2 KiB
    // (plain accesses stay in RAM; a run of them across offset 0x800 ends past it, its first
    // ones in RAM: see `mem_run`). RAM through any of the four segments that show it (KUSEG,
    // the uncached mirror, KSEG0, KSEG1).
    let segment = [0, 0x2000_0000, 0x8000_0000, 0xa000_0000][rng.below(4) as usize];
    cpu.gpr[BASE] = match rng.below(20) {
        0..=9 => segment | (DATA + 0x800),
        10..=11 => segment | (MEM as u32 - 0x800),
        12..=18 => SPR + 0x800 + 0x1000 * rng.below(3) as u32,
        _ => DEV + 0x80,
    } as i32 as i64 as u64 as u128;
    cpu.gpr[COUNTER] = 0;
    cpu.hi = rng.u128();
    cpu.lo = rng.u128();
    cpu.sa = (rng.below(16) * 8) as u32;
    for f in cpu.fpu.fpr.iter_mut() {
        *f = if rng.chance(50) {
            rng.u32()
        } else {
            (rng.below(200) as f32 - 100.0).to_bits()
        };
    }
    cpu.fpu.acc = rng.u32();
    cpu.fpu.fcr31 = rng.u32() & piney_ee::interp::cop1::fcr31::WRITABLE;
    for v in cpu.vu0.vf.iter_mut().skip(1) {
        for l in v.iter_mut() {
            *l = if rng.chance(50) {
                rng.u32()
            } else {
                (rng.below(64) as f32).to_bits()
            };
        }
    }
    cpu.vu0.acc = [rng.u32(), rng.u32(), rng.u32(), rng.u32()];
    for i in 1..16 {
        cpu.vu0.vi[i] = rng.u32() & 0xffff;
    }
    cpu.cycles = 1000 + rng.below(1000);
    cpu.cop0.count_sync = cpu.cycles;
    // Interrupts: enabled or not (IE, EIE, the masks of INTC, DMAC and the timer), lines
    // already raised, and the COP0 timer due soon or far off.
    {
        use piney_ee::cpu::{cop0reg as c, status as st};
        let regs = &mut cpu.cop0.regs;
        for bit in [st::IE, st::EIE, st::IM2, st::IM3, st::IM7] {
            if rng.chance(70) {
                regs[c::STATUS] |= bit;
            } else {
                regs[c::STATUS] &= !bit;
            }
        }
        regs[c::COUNT] = rng.u32();
        regs[c::COMPARE] = if rng.chance(50) {
            regs[c::COUNT].wrapping_add(rng.below(2000) as u32)
        } else {
            rng.u32()
        };
        for line in [2, 3] {
            if rng.chance(10) {
                cpu.set_interrupt_line(line, true);
            }
        }
    }
    // VU0 still running a microprogram for a while, for some seeds (the COP2 interlock).
    if rng.chance(30) {
        cpu.vu0.busy_until = cpu.cycles + rng.below(400);
    }
    cpu.jump_to(CODE);
    let mut bus = TestBus {
        flat: if mirrored {
            GuestRam::new(MEM)
        } else {
            GuestRam::from(FlatBus::new(MEM).mem)
        },
        spr: (0..0x4000).map(|_| rng.next() as u8).collect(),
        dev: (0..0x100).map(|_| rng.next() as u8).collect(),
        accesses: 0,
        now: 0,
    };
    for (i, w) in prog.words.iter().enumerate() {
        let a = CODE as usize + 4 * i;
        bus.flat[a..a + 4].copy_from_slice(&w.to_le_bytes());
    }
    for b in bus.flat[DATA as usize..DATA as usize + 0x1000].iter_mut() {
        *b = rng.next() as u8;
    }
    (cpu, bus)
}

/// Native hooks at some addresses, as a machine has them.
struct TestHooks {
    addrs: Vec<u32>,
    generation: u64,
}

impl HookSet for TestHooks {
    fn active(&self) -> bool {
        !self.addrs.is_empty()
    }
    fn is_hooked(&self, pc: u32) -> bool {
        self.addrs.contains(&pc)
    }
    fn generation(&self) -> u64 {
        self.generation
    }
}

/// What the machine side did, with the cycle count at which it did it (both engines must do the
/// same things at the same times); and, for the interpreter's side only, how many COP2
/// interlocks made an instruction wait (not compared).
#[derive(Debug, Default)]
struct Log(Vec<(u64, u32, &'static str, u32)>, usize);

impl PartialEq for Log {
    fn eq(&self, other: &Log) -> bool {
        self.0 == other.0
    }
}

impl Log {
    /// Run the hook at `cpu.pc` if there is one and it applies (the machine's `try_hook`): it
    /// mixes the cycle count into $v0, skips the hooked instruction and costs one cycle; every
    /// third call declines (the guest's instruction runs). Returns whether the hook took the step.
    fn hook(&mut self, cpu: &mut Cpu, hooks: &TestHooks) -> bool {
        if cpu.delay_next || !hooks.is_hooked(cpu.pc) {
            return false;
        }
        let n = self.0.iter().filter(|e| e.2 == "hook").count();
        self.0.push((cpu.cycles, cpu.pc, "hook", n as u32));
        if n % 3 == 2 {
            return false;
        }
        cpu.gpr[2] ^= cpu.cycles as u128;
        cpu.pc = cpu.pc.wrapping_add(4);
        cpu.next_pc = cpu.pc.wrapping_add(4);
        cpu.cycles += 1;
        true
    }

    /// Take a pending interrupt as the machine does before each step or run (Count brought up
    /// to date first): enter it architecturally, then a handler that acknowledges every line
    /// (INTC, DMAC, the timer), costs some cycles and returns with ERET. Returns whether one was
    /// taken.
    fn interrupt(&mut self, cpu: &mut Cpu) -> bool {
        piney_ee::interp::cop0::tick_cop0(cpu);
        if !cpu.interrupt_pending() {
            return false;
        }
        let cause = cpu.cop0.regs[piney_ee::cpu::cop0reg::CAUSE];
        let e = cpu.enter_interrupt();
        self.0.push((cpu.cycles, e.pc, "interrupt", cause));
        for line in [2, 3, 7] {
            cpu.set_interrupt_line(line, false);
        }
        cpu.cycles += 20;
        cpu.eret();
        true
    }

    /// Service a VU0 call or VU1 start the last instruction asked for (the machine's
    /// `service_cop2`).
    fn service(&mut self, cpu: &mut Cpu) {
        if let Some(a) = cpu.vu0.pending_call.take() {
            self.0.push((cpu.cycles, cpu.cur_pc, "vu0 call", a));
            // The machine runs the microprogram from now: VU0 is busy for its cycles.
            cpu.vu0.busy_until = cpu.cycles + 40 + (a as u64 & 63);
        }
        if let Some(a) = cpu.vu0.pending_vu1_start.take() {
            self.0.push((cpu.cycles, cpu.cur_pc, "vu1 start", a));
        }
    }
}

/// Timed events of the machine: at each cycle count, an interrupt line (INTC's or the DMAC's)
/// goes up or down, as the machine's events raise and drop them.
#[derive(Clone)]
struct Events {
    list: Vec<(u64, u32, bool)>,
    next: usize,
}

impl Events {
    /// Apply the events due by now (the machine does so before each step or run).
    fn apply(&mut self, cpu: &mut Cpu) {
        while let Some(&(at, line, on)) = self.list.get(self.next) {
            if at > cpu.cycles {
                break;
            }
            cpu.set_interrupt_line(line, on);
            self.next += 1;
        }
    }
    /// When the next event is due.
    fn due(&self) -> u64 {
        self.list.get(self.next).map_or(u64::MAX, |e| e.0)
    }
}

/// The reference: the machine's interpreter loop (timed events and interrupts, hooks, the bus
/// clock set before every step, VU starts serviced after it).
fn interp_machine_run(
    cpu: &mut Cpu,
    bus: &mut TestBus,
    target: u64,
    hooks: &TestHooks,
    log: &mut Log,
    mut events: Events,
) -> Result<(), Exception> {
    while cpu.cycles < target {
        events.apply(cpu);
        if log.interrupt(cpu) {
            continue;
        }
        if log.hook(cpu, hooks) {
            continue;
        }
        bus.now = cpu.cycles;
        let before = cpu.cycles;
        let r = piney_ee::interp::step(cpu, bus);
        if cpu.cycles > before + 1 && cpu.cycles == cpu.vu0.busy_until {
            log.1 += 1;
        }
        log.service(cpu);
        r?;
    }
    Ok(())
}

/// The recompiler in the same loop (again after each early stop), each run ending where the
/// next event or the COP0 timer is due, as the machine's.
fn jit_run(
    jit: &mut Jit,
    cpu: &mut Cpu,
    bus: &mut TestBus,
    target: u64,
    hooks: &TestHooks,
    log: &mut Log,
    mut events: Events,
) -> Result<(), Exception> {
    while cpu.cycles < target {
        events.apply(cpu);
        if log.interrupt(cpu) {
            continue;
        }
        if log.hook(cpu, hooks) {
            continue;
        }
        let until = target.min(events.due()).min(piney_jit::cop0_timer_due(cpu));
        let r = jit.run_hooked(cpu, bus, until, hooks);
        log.service(cpu);
        r?;
    }
    Ok(())
}

fn listing(prog: &Program) -> String {
    prog.words
        .iter()
        .enumerate()
        .map(|(i, &w)| {
            let pc = CODE + 4 * i as u32;
            format!("  {pc:08x}: {w:08x}  {}\n", disassemble(w, pc))
        })
        .collect()
}

fn diff(a: &Cpu, b: &Cpu) -> String {
    let mut s = String::new();
    for r in 0..32 {
        if a.gpr[r] != b.gpr[r] {
            s += &format!(
                "  gpr[{r}]: interp {:#034x} jit {:#034x}\n",
                a.gpr[r], b.gpr[r]
            );
        }
    }
    macro_rules! field {
        ($($f:tt)+) => {
            if a.$($f)+ != b.$($f)+ {
                s += &format!("  {}: interp {:x?} jit {:x?}\n", stringify!($($f)+), a.$($f)+, b.$($f)+);
            }
        };
    }
    field!(hi);
    field!(lo);
    field!(sa);
    field!(pc);
    field!(next_pc);
    field!(cur_pc);
    field!(in_delay_slot);
    field!(delay_next);
    field!(cycles);
    field!(fpu);
    field!(vu0);
    field!(cop0);
    s
}

/// Run one seed on both engines; `Ok` has the machine-side log, `Err` describes the first
/// disagreement.
fn check_seed(seed: u64, kill: KillSwitches, jit: &mut Jit) -> Result<Log, String> {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let prog = gen_program(&mut rng);
    let (cpu0, bus0) = initial_state(&mut rng, &prog, seed % 2 == 1);
    let budget = if rng.chance(30) {
        1 + rng.below(300)
    } else {
        100_000
    };
    let target = cpu0.cycles + budget;
    // Hooks for half the seeds: at function entries and call continuations, and at any
    // instruction (a delay slot too, where no hook runs).
    let mut hooks = TestHooks {
        addrs: Vec::new(),
        generation: seed,
    };
    if rng.chance(50) {
        for _ in 0..1 + rng.below(3) {
            let a = if !prog.entries.is_empty() && rng.chance(70) {
                prog.entries[rng.below(prog.entries.len() as u64) as usize]
            } else {
                CODE + 4 * rng.below(prog.words.len() as u64) as u32
            };
            hooks.addrs.push(a);
        }
    }

    // Interrupt lines rising and falling at random times, for most seeds: within a block, at
    // its edges, in delay slots.
    let mut list = Vec::new();
    if rng.chance(70) {
        for _ in 0..1 + rng.below(8) {
            let at = cpu0.cycles + rng.below(budget.min(3000));
            list.push((at, 2 + rng.below(2) as u32, rng.chance(70)));
        }
    }
    list.sort();
    let events = Events { list, next: 0 };

    let (mut ci, mut bi) = (cpu0.clone(), bus0.clone());
    let mut li = Log::default();
    let ri = interp_machine_run(&mut ci, &mut bi, target, &hooks, &mut li, events.clone());
    let (mut cj, mut bj) = (cpu0, bus0);
    let mut lj = Log::default();
    // Each seed compiles as if alone (a seed reruns by itself as it ran among others).
    jit.forget_learned();
    // Mostly compiled at the first visit (the generated code is what is under test), sometimes
    // after a few instructions ran interpreted (the two mixed), or after hundreds (a cold visit
    // goes around a block's loop many times, its words compared with memory at every step).
    jit.set_hot_threshold([0, 0, 3, 12, 0, 0, 3, 400][(seed % 8) as usize]);
    // One seed in eight compiles on the compile thread: hot blocks interpreted until their code
    // arrives, wherever that falls (the host's timing; the state must not depend on it).
    let background = seed % 8 == 7;
    jit.set_background_compile(background)
        .expect("the compile thread starts");
    let rj = jit_run(
        jit,
        &mut cj,
        &mut bj,
        target,
        &hooks,
        &mut lj,
        events.clone(),
    );

    // Count is brought up to date lazily (the interpreter's loop does it before every step,
    // the recompiler's before every run): compare it as of the end.
    piney_ee::interp::cop0::tick_cop0(&mut ci);
    piney_ee::interp::cop0::tick_cop0(&mut cj);
    let mut problems = String::new();
    if ri != rj {
        problems += &format!("  result: interp {ri:?}\n          jit    {rj:?}\n");
    }
    if li != lj {
        problems += &format!(
            "  hooks and VU starts (cycle, pc, what, n):\n    interp {:x?}\n    jit    {:x?}\n",
            li.0, lj.0
        );
    }
    if ci != cj {
        problems += &diff(&ci, &cj);
    }
    for (name, a, b) in [
        ("RAM", &bi.flat[..], &bj.flat[..]),
        ("scratchpad", &bi.spr[..], &bj.spr[..]),
        ("device", &bi.dev[..], &bj.dev[..]),
    ] {
        if a != b {
            let at = a.iter().zip(b).position(|(x, y)| x != y).unwrap_or(0);
            problems += &format!(
                "  {name} differs first at {at:#x}: interp {:02x} jit {:02x}\n",
                a[at], b[at]
            );
        }
    }
    if bi.accesses != bj.accesses {
        problems += &format!(
            "  device accesses: interp {} jit {}\n",
            bi.accesses, bj.accesses
        );
    }
    if problems.is_empty() {
        Ok(li)
    } else {
        Err(format!(
            "seed {seed} (kill switches {kill:?}, background compile {background}, budget {budget}, hooks at {:x?}, interrupt lines (cycle, line, up) {:?}): the recompiler disagrees with the interpreter (rerun: PINEY_JIT_SEEDS=1 PINEY_JIT_FIRST_SEED={seed} cargo test -p piney-jit --test differential long_run)\n{problems}program:\n{}",
            hooks.addrs,
            events.list,
            listing(&prog)
        ))
    }
}

/// Run seeds; returns the recompiler and how many times each kind of machine-side action
/// (hook calls, VU starts) happened.
fn run_seeds_logged(
    seeds: std::ops::Range<u64>,
    kill: KillSwitches,
) -> (Jit, std::collections::BTreeMap<&'static str, usize>) {
    run_seeds_until(seeds, kill, None)
}

/// [`run_seeds_logged`], stopping after the seed that ends past `deadline`; the seeds run are
/// counted under "seeds".
fn run_seeds_until(
    seeds: std::ops::Range<u64>,
    kill: KillSwitches,
    deadline: Option<std::time::Instant>,
) -> (Jit, std::collections::BTreeMap<&'static str, usize>) {
    let mut jit = Jit::with_kill_switches(kill).expect("the recompiler starts on this host");
    let mut kinds = std::collections::BTreeMap::new();
    for seed in seeds {
        if deadline.is_some_and(|d| std::time::Instant::now() > d) {
            break;
        }
        *kinds.entry("seeds").or_default() += 1;
        match check_seed(seed, kill, &mut jit) {
            Ok(log) => {
                for e in log.0 {
                    *kinds.entry(e.2).or_default() += 1;
                }
                *kinds.entry("interlock waits").or_default() += log.1;
            }
            Err(e) => panic!("{e}"),
        }
    }
    assert_eq!(jit.stats().last_error, None, "code generation failed");
    (jit, kinds)
}

fn run_seeds(seeds: std::ops::Range<u64>, kill: KillSwitches) -> Jit {
    run_seeds_logged(seeds, kill).0
}

#[test]
fn random_programs_agree() {
    let (jit, kinds) = run_seeds_logged(0..2000, KillSwitches::default());
    // Hooks were reached and VU starts were asked for, on the recompiler's side too (the logs
    // agree).
    for k in [
        "hook",
        "vu0 call",
        "vu1 start",
        "interlock waits",
        "interrupt",
    ] {
        assert!(kinds.get(k).is_some_and(|&n| n > 20), "{k}: {kinds:?}");
    }
    let s = jit.stats();
    // The run really used compiled code, natively, in every category the generator covers.
    assert!(s.block_runs > 10_000, "{s:?}");
    for c in Category::ALL {
        assert!(
            s.native[c.index()] > 0,
            "no native {c:?} instructions: {s:?}"
        );
    }
    assert!(s.fallback > 0, "{s:?}");
    eprintln!("2000 seeds: {s:?}, machine side: {kinds:?}");
}

#[test]
fn long_run() {
    let var = |name: &str| std::env::var(name).ok().and_then(|v| v.parse().ok());
    let n: u64 = var("PINEY_JIT_SEEDS").unwrap_or(200);
    let first: u64 = var("PINEY_JIT_FIRST_SEED").unwrap_or(1_000_000);
    // `PINEY_JIT_SECONDS=S`: stop starting seeds after S seconds of host time (CI's bound).
    let deadline = var("PINEY_JIT_SECONDS")
        .map(|s: u64| std::time::Instant::now() + std::time::Duration::from_secs(s));
    let (_, kinds) = run_seeds_until(first..first + n, KillSwitches::default(), deadline);
    let ran = kinds.get("seeds").copied().unwrap_or(0) as u64;
    eprintln!(
        "long_run: seeds {first}..{} agree ({ran} of {n}); machine side: {kinds:?}",
        first + ran
    );
    assert!(ran > 0);
}

fn kill_test(kill: KillSwitches, cat: Category) {
    let jit = run_seeds(5000..5150, kill);
    assert_eq!(
        jit.stats().native[cat.index()],
        0,
        "{kill:?} still compiled {cat:?} natively"
    );
    // Without the switch the same seeds do compile that category natively.
    let free = run_seeds(5000..5150, KillSwitches::default());
    assert!(free.stats().native[cat.index()] > 0);
}

#[test]
fn kill_load_store() {
    kill_test(
        KillSwitches {
            load_store: true,
            ..Default::default()
        },
        Category::LoadStore,
    );
}

#[test]
fn kill_fpu() {
    kill_test(
        KillSwitches {
            fpu: true,
            ..Default::default()
        },
        Category::Fpu,
    );
}

#[test]
fn kill_mmi() {
    kill_test(
        KillSwitches {
            mmi: true,
            ..Default::default()
        },
        Category::Mmi,
    );
}

#[test]
fn kill_cop2() {
    kill_test(
        KillSwitches {
            cop2: true,
            ..Default::default()
        },
        Category::Cop2,
    );
}

#[test]
fn kill_branches() {
    kill_test(
        KillSwitches {
            branches: true,
            ..Default::default()
        },
        Category::Branch,
    );
}

#[test]
fn kill_everything() {
    let jit = run_seeds(7000..7150, KillSwitches::ALL);
    let s = jit.stats();
    for c in [
        Category::LoadStore,
        Category::Branch,
        Category::Mmi,
        Category::Fpu,
        Category::Cop2,
    ] {
        assert_eq!(s.native[c.index()], 0, "{c:?}: {s:?}");
    }
}
