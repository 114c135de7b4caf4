//! What the recompiler takes from the opcode table around the interpreter functions it calls
//! for register-only instructions: one that names no GPR, HI or LO operand (FPU and VU0 macro
//! arithmetic) neither reads nor writes them, so the GPRs a block keeps in host registers are
//! not written back around it. Checked on every such encoding of COP1, COP2 and MMI met among
//! random words: run on two CPUs that differ only in their GPRs, HI and LO, both end the same
//! elsewhere and leave those untouched.

use piney_ee::bus::{Bus, BusFault};
use piney_ee::cpu::{cop0reg, status};
use piney_ee::table::{OpFlags, Operands};
use piney_ee::{Cpu, decode};

/// No memory at all: a register-only instruction never reaches it.
struct NoBus;

macro_rules! fault {
    ($r:ident, $w:ident, $t:ty) => {
        fn $r(&mut self, addr: u32) -> Result<$t, BusFault> {
            Err(BusFault { addr })
        }
        fn $w(&mut self, addr: u32, _: $t) -> Result<(), BusFault> {
            Err(BusFault { addr })
        }
    };
}

impl Bus for NoBus {
    fault!(read8, write8, u8);
    fault!(read16, write16, u16);
    fault!(read32, write32, u32);
    fault!(read64, write64, u64);
    fault!(read128, write128, u128);
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn u128(&mut self) -> u128 {
        (self.next() as u128) << 64 | self.next() as u128
    }
}

const GPR_OPERANDS: Operands = Operands::RS
    .union(Operands::RT)
    .union(Operands::RD)
    .union(Operands::RA)
    .union(Operands::HI)
    .union(Operands::LO);

#[test]
fn instructions_naming_no_gpr_leave_the_gprs_alone() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let mut checked = std::collections::BTreeSet::new();
    for _ in 0..300_000 {
        // COP1, COP2 and MMI words with random fields.
        let major = [0x11u32, 0x12, 0x1c][(rng.next() % 3) as usize];
        let w = major << 26 | (rng.next() as u32 & 0x03ff_ffff);
        let info = decode(w);
        let f = info.flags;
        if f.intersects(
            OpFlags::BRANCH
                | OpFlags::LOAD
                | OpFlags::STORE
                | OpFlags::COP0
                | OpFlags::MAY_TRAP
                | OpFlags::ENDS_BLOCK
                | OpFlags::RESERVED,
        ) || (info.reads | info.writes).intersects(GPR_OPERANDS)
        {
            continue;
        }
        let mut a = Cpu::new();
        a.cop0.regs[cop0reg::STATUS] |= status::CU1 | status::CU2;
        for v in a.fpu.fpr.iter_mut() {
            *v = rng.next() as u32;
        }
        a.fpu.acc = rng.next() as u32;
        for v in a.vu0.vf.iter_mut().skip(1) {
            for l in v.iter_mut() {
                *l = rng.next() as u32;
            }
        }
        for r in a.gpr.iter_mut().skip(1) {
            *r = rng.u128();
        }
        a.hi = rng.u128();
        a.lo = rng.u128();
        let mut b = a.clone();
        for r in b.gpr.iter_mut().skip(1) {
            *r = rng.u128();
        }
        b.hi = rng.u128();
        b.lo = rng.u128();
        let (ga, gb) = ((a.gpr, a.hi, a.lo), (b.gpr, b.hi, b.lo));
        let ra = (info.exec)(&mut a, &mut NoBus, w);
        let rb = (info.exec)(&mut b, &mut NoBus, w);
        assert_eq!(ra, rb, "{} ({w:#010x})", info.mnemonic);
        assert_eq!((a.gpr, a.hi, a.lo), ga, "{} wrote a GPR", info.mnemonic);
        assert_eq!((b.gpr, b.hi, b.lo), gb, "{} wrote a GPR", info.mnemonic);
        (b.gpr, b.hi, b.lo) = ga;
        assert_eq!(a, b, "{} ({w:#010x}) read a GPR", info.mnemonic);
        checked.insert(info.mnemonic);
    }
    // The FPU and VU0 arithmetic were among them.
    for m in ["add.s", "madd.s", "vadd", "vmul", "vmadd"] {
        assert!(checked.iter().any(|c| c.starts_with(m)), "{m}: {checked:?}");
    }
}
