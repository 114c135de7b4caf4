//! Compiling ahead: while the compile thread has nothing to do, the blocks that compiled code
//! goes on to (the static targets of its exits) compile before their first run, so that code
//! reaching them finds them compiled instead of interpreting them, at a thirtieth of their
//! compiled speed, for as long as one compile takes (about a millisecond here: qemu's
//! translator takes a few microseconds a block, and compiles every block at its first run).
//! Such a block is requested like a hot one: interpreted if it runs before its code is ready,
//! its pages watched, dropped when its code changes. Never at a hooked pc (the machine offers it
//! to its hook first), and no more of them than the hot blocks allow ([`AHEAD_PER_HOT`]).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::FastSet;
use crate::compile::{Insn, conditional, inlined_target, static_target};
use piney_ee::table::OpFlags;

/// How many steps of exits from a hot block compiling ahead follows: a loop's way out, the
/// code after a call, the next stretch of a long function.
pub(crate) const MAX_DEPTH: u8 = 6;

/// Blocks compiled ahead per hot block, at most (and [`AHEAD_FREE`] more): code that never
/// runs costs a core's time, which a machine of two shares with the software GS's thread. With
/// no bound the demo (GS-bound) compiled 296 blocks ahead for 60 hot ones; the compile thread's
/// lower priority (see `worker`) keeps that from slowing the GS (the demo: 6.1-6.2x real time
/// with 1 and 16, with 2 and 64, and with no bound), and more blocks found compiled at their
/// first run shorten a program's warm-up (tools/bench-compute.sh's program, scale 8, fastest
/// and median of 9 runs each, alternating; one set: 1 and 16 154.8 / 158.8 ms, 2 and 64 147.1 /
/// 149.1, no bound 144.4 / 151.0; another: 1 and 16 157.2 / 162.8, 2 and 64 146.3 / 157.0, 4
/// and 64 147.1 / 153.7; scale 32, fastest of 3: 540 -> 525 ms with 2 and 64).
pub(crate) const AHEAD_PER_HOT: u64 = 2;
/// See [`AHEAD_PER_HOT`].
pub(crate) const AHEAD_FREE: u64 = 64;

/// Block starts to compile ahead, each with its distance (in exits) from a hot block: the
/// nearest first, and of those the latest queued (the exits of the code that runs now).
#[derive(Default)]
pub(crate) struct Ahead {
    /// `(distance, order queued, start)`, the greatest first.
    queue: BinaryHeap<(Reverse<u8>, u64, u32)>,
    queued: u64,
    /// Hot blocks whose exits were queued, and blocks requested ahead (see [`AHEAD_PER_HOT`]).
    hot: u64,
    requested: u64,
    /// Starts queued once already (not again, until every block is dropped).
    seen: FastSet<u32>,
}

impl Ahead {
    /// Queue the exits of the block `insns` at `depth` steps from a hot block (0: a hot one).
    pub fn add_exits(&mut self, insns: &[Insn], depth: u8) {
        if depth == 0 {
            self.hot += 1;
        }
        if depth >= MAX_DEPTH {
            return;
        }
        for pc in exits(insns) {
            if self.seen.insert(pc) {
                self.queued += 1;
                self.queue.push((Reverse(depth + 1), self.queued, pc));
            }
        }
    }

    /// The next start to compile ahead, and its depth; none once as many were requested as the
    /// hot blocks allow (see [`AHEAD_PER_HOT`]: more hot blocks allow more).
    pub fn next(&mut self) -> Option<(u32, u8)> {
        if self.requested >= AHEAD_PER_HOT * self.hot + AHEAD_FREE {
            return None;
        }
        self.queue.pop().map(|(Reverse(d), _, pc)| (pc, d))
    }

    /// A start [`Ahead::next`] gave was requested from the compile thread.
    pub fn requested(&mut self) {
        self.requested += 1;
    }

    /// Forget the starts queued and seen (every block was dropped); the budget's counts go on.
    pub fn clear(&mut self) {
        self.queue.clear();
        self.seen.clear();
    }
}

/// Where a block's exits go, as far as its code tells: the target of each branch or jump that
/// leaves it (not one it runs on through, nor one back into itself), the return address of each
/// call, and the address after its end unless it ends in a jump that always goes elsewhere.
pub(crate) fn exits(insns: &[Insn]) -> Vec<u32> {
    let inside = |a: u32| insns.iter().any(|i| i.addr == a && !i.slot);
    let mut out = Vec::new();
    let add = |a: u32, out: &mut Vec<u32>| {
        if !inside(a) && !out.contains(&a) {
            out.push(a);
        }
    };
    let mut falls_off = true;
    for (n, insn) in insns.iter().enumerate() {
        if insn.slot || !insn.info.flags.contains(OpFlags::BRANCH) {
            continue;
        }
        let next = insns.get(n + 2).map(|i| i.addr);
        let last = n + 2 >= insns.len();
        if let Some(t) = static_target(insn)
            && !(inlined_target(insn).is_some() && next == Some(t))
        {
            add(t, &mut out);
        }
        if insn.info.flags.contains(OpFlags::LINK) {
            add(insn.addr.wrapping_add(8), &mut out);
        }
        if last {
            // The block ends with this branch: past it only where it may not be taken.
            if conditional(insn.word) {
                add(insn.addr.wrapping_add(8), &mut out);
            }
            falls_off = false;
        }
    }
    if falls_off && let Some(l) = insns.last() {
        add(l.addr.wrapping_add(4), &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(words: &[(u32, u32, bool)]) -> Vec<Insn> {
        words
            .iter()
            .map(|&(addr, word, slot)| Insn {
                addr,
                word,
                info: piney_ee::decode(word),
                slot,
            })
            .collect()
    }

    #[test]
    fn the_exits_of_a_superblock_with_a_call_and_a_loop() {
        let b = block(&[
            // 0x1000: beq $4, $5, 0x1100 (leaves), its slot
            (0x1000, 0x1085_003f, false),
            (0x1004, 0, true),
            // 0x1008: bne $29, $0, 0x1000 (back into the block), its slot
            (0x1008, 0x17a0_fffd, false),
            (0x100c, 0, true),
            // 0x1010: jal 0x2000 (a call: the callee and the return address), its slot
            (0x1010, 0x0c00_0800, false),
            (0x1014, 0, true),
        ]);
        assert_eq!(exits(&b), vec![0x1100, 0x2000, 0x1018]);
    }

    #[test]
    fn compiling_ahead_stops_at_its_budget_of_hot_blocks() {
        let mut a = Ahead::default();
        // A hot block, then many blocks compiled ahead, each with exits of its own.
        let hot = block(&[(0x1000, 0x17a0_07ff, false), (0x1004, 0, true)]);
        a.add_exits(&hot, 0);
        let mut n = 0u64;
        let mut at = 0x10_0000;
        while let Some((_, depth)) = a.next() {
            a.requested();
            n += 1;
            at += 0x100;
            // bne $29, $0, (two targets further on); slot.
            let b = block(&[(at, 0x17a0_0010, false), (at + 4, 0, true)]);
            a.add_exits(&b, depth.min(1));
        }
        assert_eq!(n, AHEAD_PER_HOT + AHEAD_FREE);
        // Another hot block allows more.
        a.add_exits(
            &block(&[(0x2000, 0x17a0_07ff, false), (0x2004, 0, true)]),
            0,
        );
        assert!(a.next().is_some());
    }

    #[test]
    fn a_block_ending_in_a_conditional_branch_also_falls_through() {
        // bne $29, $0, 0x3000; slot.
        let b = block(&[(0x1000, 0x17a0_07ff, false), (0x1004, 0, true)]);
        assert_eq!(exits(&b), vec![0x3000, 0x1008]);
        // jr $31; slot: nothing known.
        let b = block(&[(0x1000, 0x03e0_0008, false), (0x1004, 0, true)]);
        assert!(exits(&b).is_empty());
        // A block cut before a loop head goes on into it.
        let b = block(&[(0x1000, 0x2402_0001, false)]);
        assert_eq!(exits(&b), vec![0x1004]);
    }
}
