//! Poll loops moved over, not run pass by pass.
//!
//! A program waiting for the next picture with ps2sdk's `graph_wait_vsync` (or gsKit's
//! `gsKit_vsync_wait`) spins on `while (!(*GS_CSR & VSINT));`: a load of the GS's CSR, a mask,
//! a branch back, millions of times a second. Under the recompiler a device read ends the run,
//! so every pass is a return to the run loop; such a program spent 18 s running 5 s.
//!
//! The passes are all the same until something outside the loop happens, and in this machine
//! that is an event: the loop makes no store, and what it reads changes only at events or by
//! stores (the GS's CSR: VSINT, HSINT, FINISH, SIGNAL and FIELD are set by events and by GS
//! writes, cleared by stores; RAM and the scratchpad: by stores and DMA, whose transfers run in
//! events). So when two runs in a row end at the same pc with the same registers, each after
//! a few cycles, and the code between them is such a loop, the passes that would end before
//! the next event (or the COP0 timer) are taken at once: the clock moves by whole passes, each
//! as long as the one just seen, and the registers are already what every pass leaves. The
//! state after is the one running the passes gives, cycle for cycle; the interpreter, which
//! runs every pass, is the check (crates/piney/tests/cpu_engines.rs runs
//! tests/guest/vsync_poll.elf under both engines and compares).
//!
//! A loop qualifies when its code, a straight line from its head to one conditional branch
//! back to the head (not a likely branch) and its delay slot, holds only loads whose address
//! (from registers the loop does not write) lies in RAM, the scratchpad or at the GS's CSR,
//! and integer operations on registers, none of which reads a register the loop writes before
//! writing it (nothing is carried from pass to pass).

use piney_ee::bus::Bus;
use piney_ee::table::fields::{rs, rt, simm};
use piney_ee::table::{Op, Operands};
use piney_ee::{Cpu, decode};

use crate::bus::{EeBus, RAM_SIZE};

/// A run longer than this many cycles is not one pass of a poll loop.
const MAX_PASS_CYCLES: u64 = 64;
/// The longest loop looked for (instructions from the head to the delay slot).
const MAX_LOOP: u32 = 16;
/// The GS's CSR (physical address; a 64-bit register, read whole or by halves).
const GS_CSR: u32 = 0x1200_1000;

/// A loop's code as it was checked: its words, to see that they are still there.
#[derive(Debug, Clone)]
struct Loop {
    head: u32,
    words: Vec<u32>,
}

/// Where a run ended: its pc, cycle and the registers a poll loop's pass could change.
#[derive(Debug, Clone, Default)]
struct End {
    pc: u32,
    cycles: u64,
    gpr: [u128; 32],
    hi: u128,
    lo: u128,
    sa: u32,
}

impl End {
    fn of(cpu: &Cpu) -> Self {
        End {
            pc: cpu.pc,
            cycles: cpu.cycles,
            gpr: cpu.gpr,
            hi: cpu.hi,
            lo: cpu.lo,
            sa: cpu.sa,
        }
    }

    fn same_state(&self, cpu: &Cpu) -> bool {
        self.pc == cpu.pc
            && self.hi == cpu.hi
            && self.lo == cpu.lo
            && self.sa == cpu.sa
            && self.gpr == cpu.gpr
    }
}

/// How many ends of runs are kept: a pass of a loop with several device reads ends several
/// runs (an o32 program reads the 64-bit CSR as two words).
const ENDS: usize = 4;

/// The last runs' ends, to compare with the next one's.
#[derive(Debug, Default)]
pub(crate) struct PollWatch {
    /// A ring of the last [`ENDS`] ends; `next` is where the next one goes, `len` how many
    /// there are.
    ends: [End; ENDS],
    next: usize,
    len: usize,
    /// The pc last analysed and the loop there (`None`: not a poll loop).
    cached: Option<(u32, Option<Loop>)>,
}

impl PollWatch {
    /// Something other than the loop ran (machine code, an event): forget the last runs.
    pub fn reset(&mut self) {
        self.len = 0;
    }

    /// A run from cycle `start` has just ended with nothing else run since the last call; the
    /// next event or timer is due at `bound`. Moves the clock over the passes of a poll loop
    /// that end before it, and returns how many passes and the guest instructions they hold.
    pub fn after_run(
        &mut self,
        cpu: &mut Cpu,
        bus: &mut EeBus,
        start: u64,
        bound: u64,
    ) -> (u64, u64) {
        if cpu.cycles - start > MAX_PASS_CYCLES || cpu.delay_next {
            self.len = 0;
            return (0, 0);
        }
        // The last end at this pc (newest first): a pass ago when the state is the same.
        let found = (1..=self.len)
            .map(|back| (self.next + ENDS - back) % ENDS)
            .find(|&i| self.ends[i].pc == cpu.pc);
        let pass = match found {
            Some(i) if self.ends[i].same_state(cpu) => cpu.cycles - self.ends[i].cycles,
            _ => 0,
        };
        self.push(cpu);
        if pass == 0 {
            return (0, 0);
        }
        let Some(len) = self.poll_loop(cpu, bus) else {
            return (0, 0);
        };
        // Whole passes, each ending before the bound (the run that follows takes the last,
        // partial one to it, as it would have).
        let k = bound.saturating_sub(1).saturating_sub(cpu.cycles) / pass;
        if k == 0 {
            return (0, 0);
        }
        cpu.cycles += k * pass;
        // The ends kept move with it: each is a pass before the next visit to its pc.
        for e in &mut self.ends {
            e.cycles += k * pass;
        }
        (k, k * len as u64)
    }

    fn push(&mut self, cpu: &Cpu) {
        self.ends[self.next] = End::of(cpu);
        self.next = (self.next + 1) % ENDS;
        self.len = (self.len + 1).min(ENDS);
    }

    /// The length (instructions) of the poll loop the pc is in, checked against its code and
    /// the registers now; `None` when it is not one.
    fn poll_loop(&mut self, cpu: &Cpu, bus: &mut EeBus) -> Option<u32> {
        let pc = cpu.pc;
        let fresh = match &self.cached {
            Some((at, l)) if *at == pc => match l {
                Some(l) => still_there(l, bus),
                None => return None,
            },
            _ => false,
        };
        if !fresh {
            let l = find_loop(pc, bus);
            self.cached = Some((pc, l));
        }
        let l = self.cached.as_ref()?.1.as_ref()?;
        // The loads' addresses (from registers the loop does not write) must be stable sources.
        for w in &l.words {
            if let Some(size) = load_size(decode(*w).op) {
                let addr = (cpu.gpr[rs(*w)] as u32).wrapping_add(simm(*w) as u32);
                if !addr.is_multiple_of(size) || !stable_source(addr) {
                    return None;
                }
            }
        }
        Some(l.words.len() as u32)
    }
}

/// Whether the loop's words are still in memory.
fn still_there(l: &Loop, bus: &mut EeBus) -> bool {
    l.words
        .iter()
        .enumerate()
        .all(|(i, w)| bus.fetch(l.head.wrapping_add(4 * i as u32)) == Ok(*w))
}

/// The poll loop around `pc`: a conditional branch back to a head at or before `pc`, found
/// among the next instructions, with its body checked.
fn find_loop(pc: u32, bus: &mut EeBus) -> Option<Loop> {
    for i in 0..MAX_LOOP {
        let at = pc.wrapping_add(4 * i);
        let w = bus.fetch(at).ok()?;
        let info = decode(w);
        if !is_branch_back(info.op) {
            continue;
        }
        let head = at.wrapping_add(4).wrapping_add((simm(w) << 2) as u32);
        if head > pc || (at - head) / 4 + 2 > MAX_LOOP {
            return None;
        }
        let n = (at - head) / 4 + 2;
        let words = (0..n)
            .map(|k| bus.fetch(head.wrapping_add(4 * k)).ok())
            .collect::<Option<Vec<u32>>>()?;
        return body_qualifies(&words).then_some(Loop { head, words });
    }
    None
}

/// The conditional branches (not likely ones) a poll loop may end with.
fn is_branch_back(op: Op) -> bool {
    matches!(
        op,
        Op::Beq | Op::Bne | Op::Blez | Op::Bgtz | Op::Bltz | Op::Bgez
    )
}

/// Bytes a load reads, for the loads a poll loop may hold.
fn load_size(op: Op) -> Option<u32> {
    Some(match op {
        Op::Lb | Op::Lbu => 1,
        Op::Lh | Op::Lhu => 2,
        Op::Lw | Op::Lwu => 4,
        Op::Ld => 8,
        _ => return None,
    })
}

/// Integer operations on registers only (no HI/LO, no exception but none that can trap).
fn is_register_op(op: Op) -> bool {
    matches!(
        op,
        Op::Addu
            | Op::Addiu
            | Op::Subu
            | Op::Daddu
            | Op::Daddiu
            | Op::Dsubu
            | Op::And
            | Op::Andi
            | Op::Or
            | Op::Ori
            | Op::Xor
            | Op::Xori
            | Op::Nor
            | Op::Lui
            | Op::Slt
            | Op::Sltu
            | Op::Slti
            | Op::Sltiu
            | Op::Sll
            | Op::Srl
            | Op::Sra
            | Op::Sllv
            | Op::Srlv
            | Op::Srav
            | Op::Dsll
            | Op::Dsrl
            | Op::Dsra
            | Op::Dsll32
            | Op::Dsrl32
            | Op::Dsra32
            | Op::Dsllv
            | Op::Dsrlv
            | Op::Dsrav
            | Op::Movz
            | Op::Movn
            | Op::Sync
    )
}

/// The GPRs an instruction reads or writes, as a bit mask, from the opcode table's operands.
fn gprs(o: Operands, w: u32) -> u32 {
    let mut m = 0;
    if o.contains(Operands::RS) {
        m |= 1 << rs(w);
    }
    if o.contains(Operands::RT) {
        m |= 1 << rt(w);
    }
    if o.contains(Operands::RD) {
        m |= 1 << piney_ee::table::fields::rd(w);
    }
    m & !1
}

/// The body rule: loads and register operations, then the branch and its slot; no register
/// read before the pass writes it (nothing carried between passes).
fn body_qualifies(words: &[u32]) -> bool {
    let last = words.len() - 1;
    let written = words.iter().fold(0, |m, w| m | gprs(decode(*w).writes, *w));
    let mut so_far = 0u32;
    for (i, w) in words.iter().enumerate() {
        let info = decode(*w);
        let ok = if i == last - 1 {
            is_branch_back(info.op)
        } else {
            load_size(info.op).is_some() || is_register_op(info.op)
        };
        let extra = info.reads.contains(Operands::HI)
            || info.reads.contains(Operands::LO)
            || info.writes.contains(Operands::HI)
            || info.writes.contains(Operands::LO);
        if !ok || extra {
            return false;
        }
        let reads = gprs(info.reads, *w);
        if reads & written & !so_far != 0 {
            return false;
        }
        so_far |= gprs(info.writes, *w);
    }
    true
}

/// Whether reads of `addr` (virtual) return what they did until the next event or store: RAM,
/// the scratchpad, the GS's CSR.
fn stable_source(addr: u32) -> bool {
    if addr & 0xffff_c000 == 0x7000_0000 {
        return true;
    }
    EeBus::phys(addr).is_some_and(|p| (p as usize) < RAM_SIZE || p & !7 == GS_CSR)
}

#[cfg(test)]
mod tests {
    use super::*;

    // graph_wait_vsync's wait: ld v0,0(a1); andi v0,v0,8; nop; beqz v0,-4; nop.
    const WAIT: [u32; 5] = [0xdca2_0000, 0x3042_0008, 0, 0x1040_fffc, 0];

    #[test]
    fn the_vsync_wait_qualifies() {
        assert!(body_qualifies(&WAIT));
        assert!(stable_source(0x1200_1000) && stable_source(0xb200_1004));
        assert!(stable_source(0x0010_0000) && stable_source(0x7000_3ff8));
        // Timers count between events; other devices too.
        assert!(!stable_source(0x1000_0000) && !stable_source(0x1000_f000));
    }

    #[test]
    fn carried_registers_stores_and_likely_branches_do_not() {
        // A counter: addiu v1,v1,1 reads what the pass writes.
        let mut w = WAIT.to_vec();
        w[2] = 0x2463_0001;
        assert!(!body_qualifies(&w));
        // A store: sw v0,0(a1).
        let mut w = WAIT.to_vec();
        w[2] = 0xaca2_0000;
        assert!(!body_qualifies(&w));
        // beqzl instead of beqz.
        let mut w = WAIT.to_vec();
        w[3] = 0x5040_fffc;
        assert!(!body_qualifies(&w));
        // mflo v1 (HI/LO).
        let mut w = WAIT.to_vec();
        w[2] = 0x0000_1812;
        assert!(!body_qualifies(&w));
    }
}
