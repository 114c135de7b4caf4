//! Block analysis: where a block starts and ends (see the parent module's text), what each
//! instruction is, and which cached registers it reads and writes, all from the opcode table.

use piney_ee::table::fields::{rd, rs, rt, simm, target};
use piney_ee::table::{Op, OpFlags, Operands};
use piney_ee::{Bus, OpInfo, decode};

use crate::Category;
use crate::pages::phys;

/// The most instructions in one block.
pub(crate) const MAX_BLOCK: usize = 64;
/// The most conditional branches in one block (a superblock goes on past the first three).
/// Measured on tools/bench-compute.sh (CPU time, medians of five): 1 -> 260 ms, 2 -> 241, 3 ->
/// 226, 4 -> 225, 6 and 10 -> 224 (blocks then end at jumps, loop heads and MAX_BLOCK first).
/// Before blocks ended at loop heads, more than 2 compiled loop bodies over and over.
const MAX_BRANCHES: u32 = 4;

/// One decoded instruction of a block.
#[derive(Clone, Copy)]
pub(crate) struct Insn {
    /// Its address.
    pub addr: u32,
    /// Its word.
    pub word: u32,
    /// Its table entry.
    pub info: &'static OpInfo,
    /// It sits in the delay slot of the previous one.
    pub slot: bool,
}

/// Read a block's instructions starting at `pc` (see the module doc for where it ends); it also
/// ends before an instruction after the first that `hooked` names (not a delay slot: the machine
/// runs hooks only where an instruction starts on its own).
/// Empty when the first instruction cannot start a block (misaligned, unmapped, a delay-slot
/// chain); the caller then interprets it.
pub(crate) fn scan(bus: &mut dyn Bus, pc: u32, hooked: &dyn Fn(u32) -> bool) -> Vec<Insn> {
    let mut out = Vec::new();
    if pc & 3 != 0 {
        return out;
    }
    let fetch = |bus: &mut dyn Bus, a: u32| -> Option<u32> {
        // Stay on memory the page map tracks, in one 512 MiB segment.
        if phys(a).is_none() || (a >> 29) != (pc >> 29) {
            return None;
        }
        bus.fetch(a).ok()
    };
    let mut addr = pc;
    let mut branches = 0;
    while out.len() < MAX_BLOCK {
        if addr != pc && hooked(addr) {
            break;
        }
        let Some(word) = fetch(bus, addr) else { break };
        let info = decode(word);
        let f = info.flags;
        if f.contains(OpFlags::BRANCH) && !f.contains(OpFlags::COP0) {
            // The branch and its delay slot go together; a slot that branches, ends a block or
            // touches COP0 is left to the interpreter (the block stops before the branch).
            let slot_addr = addr.wrapping_add(4);
            let Some(sw) = fetch(bus, slot_addr) else {
                break;
            };
            let si = decode(sw);
            if si.flags.intersects(
                OpFlags::BRANCH | OpFlags::ENDS_BLOCK | OpFlags::COP0 | OpFlags::RESERVED,
            ) {
                break;
            }
            out.push(Insn {
                addr,
                word,
                info,
                slot: false,
            });
            out.push(Insn {
                addr: slot_addr,
                word: sw,
                info: si,
                slot: true,
            });
            // A superblock: past a conditional branch the block goes on with the fall-through
            // path (the taken one leaves it).
            if conditional(word) {
                branches += 1;
                if branches < MAX_BRANCHES && out.len() + 1 < MAX_BLOCK {
                    addr = slot_addr.wrapping_add(4);
                    continue;
                }
                break;
            }
            // Past an unconditional direct jump (J, JAL, B) the block goes on at its target (a
            // trace: no exit there at all), unless the target is already in the block (a loop:
            // the block ends and loops on itself, or leaves) or elsewhere than `pc`'s segment.
            let insn = out[out.len() - 2];
            if let Some(t) = inlined_target(&insn)
                && out.len() + 1 < MAX_BLOCK
                && (t >> 29) == (pc >> 29)
                && !out.iter().any(|i| i.addr == t)
            {
                addr = t;
                continue;
            }
            break;
        }
        out.push(Insn {
            addr,
            word,
            info,
            slot: false,
        });
        if f.intersects(OpFlags::ENDS_BLOCK | OpFlags::COP0 | OpFlags::RESERVED | OpFlags::BRANCH) {
            break;
        }
        addr = addr.wrapping_add(4);
    }
    let keep = before_inner_loop(&out);
    out.truncate(keep);
    out
}

/// How many of a scanned block's instructions to keep: all, unless a branch in it goes back to
/// one of its own instructions other than the first (a loop inside the block, which a
/// superblock or a trace took in). The block then ends just before the earliest such loop head,
/// falling through into it: the loop is a block of its own that loops on itself with its
/// registers in host registers, instead of an exit that reaches it from every block that took
/// its body in (measured on tools/bench-compute.sh: a fifth fewer instructions compiled, each
/// loop's body compiled once more than it runs otherwise). A head in a delay slot is not one
/// (a block cannot end between a branch and its slot).
fn before_inner_loop(out: &[Insn]) -> usize {
    let mut keep = out.len();
    for (i, insn) in out.iter().enumerate() {
        if i < 2 || insn.slot || inlined_target(insn).is_some() {
            continue;
        }
        let Some(t) = static_target(insn) else {
            continue;
        };
        if let Some(j) = out[1..i].iter().position(|h| h.addr == t && !h.slot) {
            keep = keep.min(j + 1);
        }
    }
    keep
}

/// Where a block goes on after `insn` and its delay slot when `insn` is an unconditional
/// direct jump that is not likely (J, JAL, BEQ of a register with itself): its target. The
/// compiler continues such a jump in the middle of a block at the next instruction of the
/// block, its target, with no exit (see `Gen::after_slot`).
pub(crate) fn inlined_target(insn: &Insn) -> Option<u32> {
    let w = insn.word;
    match w >> 26 {
        0x02 => static_target(insn),
        0x04 if rs(w) == rt(w) => static_target(insn),
        _ => None,
    }
}

/// Whether a branch word may go either way (not J, JAL, JR, JALR, nor BEQ/BEQL of a register
/// with itself): a block continues past it on the fall-through path.
pub(crate) fn conditional(word: u32) -> bool {
    match word >> 26 {
        0x00 | 0x02 | 0x03 => false,
        0x04 | 0x14 => rs(word) != rt(word),
        _ => true,
    }
}

/// The category an instruction belongs to, for the kill switches and the statistics.
pub(crate) fn category(info: &OpInfo) -> Category {
    let f = info.flags;
    if f.contains(OpFlags::COP2) {
        Category::Cop2
    } else if f.contains(OpFlags::COP1) {
        Category::Fpu
    } else if f.contains(OpFlags::MMI) {
        Category::Mmi
    } else if f.intersects(OpFlags::LOAD | OpFlags::STORE) {
        Category::LoadStore
    } else if f.contains(OpFlags::BRANCH) {
        Category::Branch
    } else {
        Category::Integer
    }
}

/// A branch's target when the instruction word fixes it (PC-relative branches, J, JAL).
pub(crate) fn static_target(insn: &Insn) -> Option<u32> {
    let f = insn.info.flags;
    if !f.contains(OpFlags::BRANCH) || f.contains(OpFlags::COP0) {
        return None;
    }
    match insn.word >> 26 {
        0x02 | 0x03 => Some((insn.addr.wrapping_add(4) & 0xf000_0000) | (target(insn.word) << 2)),
        0x00 => None, // JR, JALR
        _ => Some(branch_target(insn)),
    }
}

/// Registers the generator caches: the 32 GPRs (low 64 bits), then LO and HI (low 64 bits).
pub(super) const REGS: usize = 34;
/// The cache index of LO.
pub(super) const R_LO: usize = 32;
/// The cache index of HI.
pub(super) const R_HI: usize = 33;

/// The cached registers an instruction writes, as a bit mask, from the opcode table's operands.
pub(super) fn reg_writes(insn: &Insn) -> u64 {
    reg_mask(insn.info.writes, insn.word)
}

/// The cached registers an instruction reads, as a bit mask.
pub(super) fn reg_reads(insn: &Insn) -> u64 {
    reg_mask(insn.info.reads, insn.word)
}

fn reg_mask(o: Operands, w: u32) -> u64 {
    let mut m = 0u64;
    if o.contains(Operands::LO) {
        m |= 1 << R_LO;
    }
    if o.contains(Operands::HI) {
        m |= 1 << R_HI;
    }
    // COP1 and COP2 entries name their own registers in the same fields (FS/FT/FD, VF...):
    // only the integer operand flags name GPRs.
    if o.contains(Operands::RS) {
        m |= 1 << rs(w);
    }
    if o.contains(Operands::RT) {
        m |= 1 << rt(w);
    }
    if o.contains(Operands::RD) {
        m |= 1 << rd(w);
    }
    if o.contains(Operands::RA) {
        m |= 1 << 31;
    }
    m & !1
}

/// Whether an instruction may run through [`h_exec`]: it reads and writes only registers
/// (no memory, no branch, no COP0, no trap by design) and asks nothing of the machine (VU
/// starts and resets through CTC2 and VCALLMS/VCALLMSR; the COP2 moves with the interlock bit,
/// which wait for VU0 and move the cycle count).
pub(super) fn register_only(insn: &Insn) -> bool {
    let f = insn.info.flags;
    if f.intersects(
        OpFlags::BRANCH
            | OpFlags::LOAD
            | OpFlags::STORE
            | OpFlags::COP0
            | OpFlags::MAY_TRAP
            | OpFlags::ENDS_BLOCK
            | OpFlags::RESERVED,
    ) {
        return false;
    }
    if f.contains(OpFlags::COP2) {
        return match insn.info.op {
            Op::Vcallms | Op::Vcallmsr | Op::Ctc2 => false,
            Op::Qmfc2 | Op::Qmtc2 | Op::Cfc2 => insn.word & 1 == 0,
            _ => true,
        };
    }
    true
}

/// A PC-relative branch's target: the delay slot's address plus `offset << 2`.
pub(super) fn branch_target(insn: &Insn) -> u32 {
    insn.addr
        .wrapping_add(4)
        .wrapping_add((simm(insn.word) << 2) as u32)
}

#[cfg(test)]
mod tests {
    use piney_ee::Cpu;
    use piney_ee::cpu::{cop0reg, status};

    use super::*;
    use crate::ctx::NoBus;

    /// `Gen::exec_registers` writes the cached registers back only for an instruction that
    /// names one ([`reg_reads`], [`reg_writes`]): a [`register_only`] instruction that names
    /// none (FPU and VU0 macro arithmetic; an MMI form on $0, or on HI1/LO1) must neither read
    /// nor write what the cache holds, the low 64 bits of GPRs 1-31, HI and LO. Checked on
    /// every such encoding of COP1, COP2 and MMI met among random words: run on two CPUs that
    /// differ only there, both end the same elsewhere and leave those bits untouched.
    #[test]
    fn register_only_instructions_naming_no_gpr_leave_the_cached_registers_alone() {
        let mut x = 0x1234_5678_9abc_def1_u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut checked = std::collections::BTreeSet::new();
        for _ in 0..300_000 {
            // COP1, COP2 and MMI words with random fields.
            let major = [0x11u32, 0x12, 0x1c][(next() % 3) as usize];
            let word = major << 26 | (next() as u32 & 0x03ff_ffff);
            let insn = Insn {
                addr: 0,
                word,
                info: decode(word),
                slot: false,
            };
            if !register_only(&insn) || reg_reads(&insn) | reg_writes(&insn) != 0 {
                continue;
            }
            let mut a = Cpu::new();
            a.cop0.regs[cop0reg::STATUS] |= status::CU1 | status::CU2;
            for v in a.fpu.fpr.iter_mut() {
                *v = next() as u32;
            }
            a.fpu.acc = next() as u32;
            for v in a.vu0.vf.iter_mut().skip(1) {
                for l in v.iter_mut() {
                    *l = next() as u32;
                }
            }
            for r in a.gpr.iter_mut().skip(1).chain([&mut a.hi, &mut a.lo]) {
                *r = (next() as u128) << 64 | next() as u128;
            }
            let mut b = a.clone();
            for r in b.gpr.iter_mut().skip(1).chain([&mut b.hi, &mut b.lo]) {
                *r = *r & !(u64::MAX as u128) | next() as u128;
            }
            // The cached bits.
            let low = |c: &Cpu| {
                let mut v: Vec<u64> = c.gpr.iter().map(|&r| r as u64).collect();
                v.extend([c.hi as u64, c.lo as u64]);
                v
            };
            let (la, lb) = (low(&a), low(&b));
            let m = insn.info.mnemonic;
            let ra = (insn.info.exec)(&mut a, &mut NoBus, word);
            let rb = (insn.info.exec)(&mut b, &mut NoBus, word);
            assert_eq!(ra, rb, "{m} ({word:#010x})");
            assert_eq!(low(&a), la, "{m} ({word:#010x}) wrote a cached register");
            assert_eq!(low(&b), lb, "{m} ({word:#010x}) wrote a cached register");
            for (x, y) in b.gpr.iter_mut().zip(a.gpr) {
                *x = *x & !(u64::MAX as u128) | y & u64::MAX as u128;
            }
            b.hi = b.hi & !(u64::MAX as u128) | a.hi & u64::MAX as u128;
            b.lo = b.lo & !(u64::MAX as u128) | a.lo & u64::MAX as u128;
            assert_eq!(a, b, "{m} ({word:#010x}) read a cached register");
            checked.insert(m);
        }
        // The FPU and VU0 arithmetic were among them.
        for m in ["add.s", "madd.s", "vadd", "vmul", "vmadd"] {
            assert!(checked.iter().any(|c| c.starts_with(m)), "{m}: {checked:?}");
        }
    }
}
