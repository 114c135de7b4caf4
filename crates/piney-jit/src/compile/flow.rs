//! The block's control flow: the entry (the budget check, the registers kept across labels),
//! the body instruction by instruction, where a branch goes after its delay slot (on, to a
//! label, or out), the budget checks at the start of each later segment, and the labels: the
//! instructions of the block its own branches go to, where every path arrives with the same
//! register state.

use super::*;

/// The budget each segment of a block needs, by the index of the segment's first instruction
/// (0 for other indices). A block is cut into segments after each conditional branch's delay
/// slot where it goes on (the fall-through path of a superblock) and before each label: the
/// block starts when its first segment fits in the budget, and each later one is checked where
/// it begins ([`Gen::segment_check`], [`Gen::go_to_label`]), so that a long superblock still runs
/// under the short budgets of a busy machine (events every few instructions) instead of leaving
/// them to the interpreter.
pub(super) fn segment_needs(insns: &[Insn], labels: &[bool]) -> Vec<u64> {
    let mut need = vec![0u64; insns.len()];
    let last = insns.len().saturating_sub(1);
    let mut start = 0;
    let mut sum = 0u64;
    for (i, insn) in insns.iter().enumerate() {
        let cost = insn.info.cycles as u64;
        let end = i == last
            || (insn.slot && i >= 1 && scan::conditional(insns[i - 1].word))
            || labels.get(i + 1).copied().unwrap_or(false);
        if end {
            // Every instruction of the segment but its last must start within the budget.
            need[start] = sum;
            start = i + 1;
            sum = 0;
        } else {
            sum += cost;
        }
    }
    need
}

/// Which instructions of a block are labels: those (not delay slots) that a branch of the block
/// goes to by a fixed target, other than the next instruction of a path that already runs on
/// into it (a branch to its own fall-through, a jump whose target the block continues with).
pub(super) fn labels(insns: &[Insn]) -> Vec<bool> {
    let mut labels = vec![false; insns.len()];
    for (n, insn) in insns.iter().enumerate() {
        if insn.slot {
            continue;
        }
        let Some(t) = static_target(insn) else {
            continue;
        };
        let next = insns.get(n + 2).map(|i| i.addr);
        if t == insn.addr.wrapping_add(8) || (inlined_target(insn).is_some() && next == Some(t)) {
            continue;
        }
        if let Some(k) = index_at(insns.iter().map(|i| (i.addr, i.slot)), t) {
            labels[k] = true;
        }
    }
    labels
}

/// Where a branch of a block to `addr` goes on inside it: the first instruction at that address
/// that is not a delay slot (a trace may hold an address twice; either is the same code). `at`
/// gives each instruction's address and whether it is a slot.
pub(super) fn index_at(at: impl IntoIterator<Item = (u32, bool)>, addr: u32) -> Option<usize> {
    at.into_iter().position(|(a, slot)| a == addr && !slot)
}

/// The index of the last instruction that goes to a label: the slot of the last branch whose
/// target is one (0 when none is).
pub(super) fn region_end(insns: &[Insn], labels: &[bool]) -> u32 {
    let mut end = 0;
    for (n, insn) in insns.iter().enumerate() {
        if insn.slot {
            continue;
        }
        if static_target(insn)
            .and_then(|t| index_at(insns.iter().map(|i| (i.addr, i.slot)), t))
            .is_some_and(|k| labels[k])
        {
            end = n as u32 + 1;
        }
    }
    end
}

/// The registers a block with labels keeps in variables across them: those it touches up to its
/// last branch to a label (`region_end`), loaded at its entry, less a pass's temporaries that
/// would be carried around the loop only for its slow paths and exits: those that every label
/// writes before it reads them, after an instruction that may leave the block
/// ([`carried_for_exits`]). Kept, such a register is live across the back edge only so that
/// the exits before its write can store it (a loop of loads and many temporaries kept them all
/// in host registers or stack slots); not kept, it is written back when the path jumps to a
/// label (one store a pass) and lives in a register only within the pass. A temporary written
/// before any such instruction is not carried anyway, and stays kept (no store a pass).
pub(super) fn kept_at_labels(insns: &[Insn], region_end: u32) -> u64 {
    let body = &insns[..=(region_end as usize).min(insns.len() - 1)];
    let touched = body.iter().fold(0, |m, i| m | reg_reads(i) | reg_writes(i)) & !1;
    let not_kept = labels(insns)
        .iter()
        .enumerate()
        .filter(|&(_, &l)| l)
        .map(|(k, _)| carried_for_exits(&insns[k..]))
        .reduce(|a, b| a & b)
        .unwrap_or(0);
    touched & !not_kept
}

/// The registers that the path starting at `from[0]` surely writes before it reads them, and
/// only after an instruction that may leave the block (a load, a store, one that may trap or
/// runs through a helper: its slow path or exit stores the registers), up to its first branch
/// (the delay slot included, unless a likely branch may skip it): past a branch the path is not
/// known here.
pub(super) fn carried_for_exits(from: &[Insn]) -> u64 {
    let mut read = 0u64;
    let mut written = 0u64;
    let mut after_leave = 0u64;
    let mut left = false;
    let mut likely = false;
    for (n, insn) in from.iter().enumerate() {
        let f = insn.info.flags;
        left |= f.intersects(
            OpFlags::LOAD
                | OpFlags::STORE
                | OpFlags::MAY_TRAP
                | OpFlags::COP0
                | OpFlags::COP1
                | OpFlags::COP2
                | OpFlags::MMI
                | OpFlags::ENDS_BLOCK
                | OpFlags::RESERVED,
        );
        read |= reg_reads(insn) & !written;
        if !(insn.slot && likely) {
            let w = reg_writes(insn) & !read & !written;
            written |= w;
            if left {
                after_leave |= w;
            }
        }
        if insn.slot && n > 0 {
            break;
        }
        if f.contains(OpFlags::BRANCH) {
            likely = f.contains(OpFlags::LIKELY);
            if f.contains(OpFlags::COP0) {
                break;
            }
        }
    }
    after_leave
}

/// The registers worth keeping as 32-bit values across the labels (see `Gen::label_sext`):
/// those of [`kept_at_labels`] the block writes (a pass carries them to the next) and reads in
/// a bitwise operation (AND, OR, XOR, NOR and their immediate forms; not a move, an OR with
/// $0), which works on all 64 bits of a value not known to be a sign-extended 32-bit one: a
/// loop of 32-bit arithmetic and bitwise operations then kept every value in both widths.
/// Comparisons and branches compare 32 or 64 bits at the same cost, and each register kept
/// costs a check at every entry of the block (a loop entered often for a few passes, as a
/// sort's, would lose).
pub(super) fn narrow_at_labels(insns: &[Insn], region_end: u32) -> u64 {
    let body = &insns[..=(region_end as usize).min(insns.len() - 1)];
    let written = body.iter().fold(0, |m, i| m | reg_writes(i));
    let bitwise = body
        .iter()
        .filter(|i| {
            let move_ = i.info.op == Op::Or && (rs(i.word) == 0 || rt(i.word) == 0);
            !move_
                && matches!(
                    i.info.op,
                    Op::And | Op::Or | Op::Xor | Op::Nor | Op::Andi | Op::Ori | Op::Xori
                )
        })
        .fold(0, |m, i| m | reg_reads(i));
    written & bitwise & kept_at_labels(insns, region_end)
}

impl Gen<'_> {
    /// Whether a segment needing `need` cycles fits in the budget from cycle count `cycles` (an
    /// i8): its last instruction starts before the run's target.
    pub(super) fn fits(&mut self, cycles: Value, need: u64) -> Value {
        let c = self.add_imm(cycles, need as i64);
        let t = self.b.ins().load(types::I64, mf(), self.ctxp, CTX_TARGET);
        self.b.ins().icmp(IntCC::UnsignedLessThan, c, t)
    }

    /// The entry: the budget check, the loop's registers, then the header (which counts a run).
    pub(super) fn prologue(&mut self, insns: &[Insn], labels: bool) {
        let c0 = self.b.use_var(self.base);
        let fits = self.fits(c0, self.need[0]);
        let go = self.b.create_block();
        let no = self.b.create_block();
        self.b.set_cold_block(no);
        self.b.ins().brif(fits, go, &[], no, &[]);
        self.b.switch_to_block(no);
        // Nothing ran: the state is the one the previous block left (its pc is this start).
        let p = self.c32(insns[0].addr);
        self.write_pc_cycles(p);
        let one = self.c64(1);
        self.add_ctx(CTX_BUDGET_STOPS, one);
        let s = self.b.ins().iconst(types::I32, status::BUDGET as i64);
        // No pass began: nothing to count.
        self.b.ins().return_(&[s]);
        self.b.switch_to_block(go);
        if labels {
            // Every register the block touches up to its last branch to a label lives in a
            // variable across the labels; those it writes are written back at its exits. (What
            // the block does after that, once, loads its own: a function's epilogue after its
            // last loop, say, would otherwise keep a dozen registers live around the loop, in
            // stack slots.)
            let mut l = kept_at_labels(insns, self.region_end);
            while l != 0 {
                let r = l.trailing_zeros() as usize;
                l &= l - 1;
                self.r64(r);
            }
            if self.label_sext != 0 {
                self.check_sext(insns[0].addr);
            }
        }
        self.b.ins().jump(self.header, &[]);
        self.b.switch_to_block(self.header);
        if self.pass_cycles.is_none() {
            let r = self.b.use_var(self.runs);
            let r = self.add_imm(r, 1);
            self.b.def_var(self.runs, r);
        }
    }

    /// The registers of `label_sext` must hold sign-extended 32-bit values at the entry (every
    /// later arrival at a label brings them so): else the block does not start, and the
    /// dispatcher compiles it again without the assumption. Their 32-bit values become the
    /// ones kept.
    fn check_sext(&mut self, start: u32) {
        let mut ok: Option<Value> = None;
        let mut l = self.label_sext;
        let mut low = Vec::new();
        while l != 0 {
            let r = l.trailing_zeros() as usize;
            l &= l - 1;
            let v = self.r64(r);
            let v32 = self.b.ins().ireduce(types::I32, v);
            let back = self.b.ins().sextend(types::I64, v32);
            let same = self.b.ins().icmp(IntCC::Equal, back, v);
            ok = Some(match ok {
                Some(o) => self.b.ins().band(o, same),
                None => same,
            });
            low.push((r, v32));
        }
        let Some(ok) = ok else {
            return;
        };
        let go = self.b.create_block();
        let no = self.b.create_block();
        self.b.set_cold_block(no);
        self.b.ins().brif(ok, go, &[], no, &[]);
        self.b.switch_to_block(no);
        // Nothing ran, as at a budget stop at the entry (counted as one).
        let p = self.c32(start);
        self.write_pc_cycles(p);
        let one = self.c64(1);
        self.add_ctx(CTX_BUDGET_STOPS, one);
        let s = self.b.ins().iconst(types::I32, status::ASSUMPTION as i64);
        self.b.ins().return_(&[s]);
        self.b.switch_to_block(go);
        for (r, v32) in low {
            self.b.def_var(self.regs32[r], v32);
            self.have32 |= 1 << r;
        }
    }

    pub(super) fn body(
        &mut self,
        insns: &[Insn],
        labels: bool,
        native: &mut [u32],
        fallback: &mut u32,
    ) {
        self.at_label = self.loaded;
        if labels {
            // Registers the block writes are dirty at every label (they may have been written
            // on the way there).
            self.dirty = insns.iter().fold(0, |m, i| m | reg_writes(i)) & self.at_label;
        }
        self.dirty_at_label = self.dirty;
        let mut branch: Option<Insn> = None;
        for (i, insn) in insns.iter().enumerate() {
            self.index = i as u32;
            self.checked = false;
            if i > 0
                && let Some(l) = self.labels[i]
            {
                // Every path here jumped (see [`Gen::go_to_label`]): the state is the labels'.
                self.b.switch_to_block(l);
                self.loaded = self.at_label;
                self.dirty = self.dirty_at_label;
                self.have32 = self.label_sext;
                self.off = 0;
                self.skipped = 0;
                self.label_at = i as u32;
            }
            self.off += insn.info.cycles as u64;
            let cat = category(insn.info);
            let killed = self.kill.kills(insn.info);
            let f = insn.info.flags;
            if f.contains(OpFlags::BRANCH) && !f.contains(OpFlags::COP0) {
                branch = Some(*insn);
                self.branch_taken = None;
            }
            // A store's value reaches a load only along one straight stretch (see `stored`).
            let straight = !insn.slot && !f.contains(OpFlags::BRANCH);
            if !straight || (i > 0 && self.labels[i].is_some()) {
                self.stored = None;
            }
            self.stored_now = None;
            if !killed && self.native(insn) {
                native[cat.index()] += 1;
            } else {
                *fallback += 1;
                if !killed && register_only(insn) {
                    self.exec_registers(insn);
                } else {
                    self.fallback(insn);
                    if f.contains(OpFlags::BRANCH) && !f.contains(OpFlags::COP0) {
                        self.fallback_branch_outcome(insn);
                    }
                }
            }
            self.stored = match self.stored_now.take() {
                Some(now) => Some(now),
                // A load or an instruction on registers leaves memory as it was.
                None if register_only(insn)
                    || (f.contains(OpFlags::LOAD) && !f.contains(OpFlags::STORE)) =>
                {
                    self.stored
                }
                None => None,
            }
            .filter(|&(base, _, _)| straight && reg_writes(insn) & (1 << base) == 0);
            if insn.slot {
                let br = branch.take().expect("a delay slot follows its branch");
                self.after_slot(&br, insn);
            }
            if !self.checked && self.labels.get(i + 1).is_some_and(|l| l.is_some()) {
                // Running on into a label: its segment begins.
                self.segment_check(insn.addr, insn.slot);
            }
        }
        let last = insns.last().expect("a block has an instruction");
        if !last.slot {
            self.exit_chain(
                last.addr,
                false,
                Pc::Const(last.addr.wrapping_add(4)),
                self.done(),
            );
        }
    }

    /// Instructions completed since the current path's last label (in this pass), once the
    /// current one has.
    pub(super) fn done(&self) -> u32 {
        self.index + 1 - self.label_at - self.skipped
    }

    /// The static state of the register cache and the counts, saved across a side exit.
    pub(super) fn save(&self) -> Saved {
        Saved {
            loaded: self.loaded,
            dirty: self.dirty,
            have32: self.have32,
            off: self.off,
            skipped: self.skipped,
        }
    }

    pub(super) fn restore(&mut self, s: Saved) {
        self.loaded = s.loaded;
        self.dirty = s.dirty;
        self.have32 = s.have32;
        self.off = s.off;
        self.skipped = s.skipped;
    }

    /// The delay slot `slot` of `br` has run: where the branch goes is `npc`. The block's last
    /// slot leaves the block (or loops back to its start); an earlier one leaves only when the
    /// branch was taken, and the block goes on with the fall-through path.
    pub(super) fn after_slot(&mut self, br: &Insn, slot: &Insn) {
        if self.index != self.last_index && inlined_target(br).is_some() {
            // An unconditional jump the block goes on through (`scan` continued at its target,
            // the next instruction here): no exit.
            return;
        }
        let fall = br.addr.wrapping_add(8);
        // The label the branch goes to when taken, if it is one.
        let back = static_target(br)
            .filter(|&t| t != fall)
            .and_then(|t| self.label_of(t));
        if let Some((not_taken, state)) = self.likely_not_taken.take() {
            // A likely branch in the middle of the block, and this is its taken path (the slot
            // ran): it goes to its label, or leaves. The block goes on where the branch was not
            // taken (the slot skipped).
            if let Some(k) = back {
                let yes = self.b.ins().iconst(types::I8, 1);
                self.loop_back(yes, k);
            }
            self.exit_chain(slot.addr, true, Pc::Npc, self.done());
            self.b.switch_to_block(not_taken);
            self.restore(state);
            self.skipped += 1;
            // Not taken: the branch was the last instruction to run (its slot skipped).
            self.segment_check(br.addr, br.slot);
            return;
        }
        // A native branch to a fixed target other than its fall-through: it went there exactly
        // when its condition held.
        let taken = self
            .branch_taken
            .take()
            .filter(|_| static_target(br).is_some_and(|t| t != fall));
        let n = self.b.use_var(self.npc);
        let again = match (back, taken) {
            (None, _) => None,
            (Some(_), Some(c)) => Some(c),
            (Some(k), None) => Some(self.b.ins().icmp_imm_s(
                IntCC::Equal,
                n,
                self.sites[k].addr as i32 as i64,
            )),
        };
        if self.index == self.last_index {
            if let (Some(again), Some(k)) = (again, back) {
                self.loop_back(again, k);
            }
            self.exit_chain(slot.addr, true, Pc::Npc, self.done());
            return;
        }
        let here = self.save();
        let leave = self.b.create_block();
        let cont = self.b.create_block();
        let goes = match taken {
            Some(c) => c,
            None => self
                .b
                .ins()
                .icmp_imm_s(IntCC::NotEqual, n, fall as i32 as i64),
        };
        if back.is_some() {
            // Taken, the branch goes back into the block (a loop): the hot way, laid out next
            // (see `loop_back`).
            let stay = self.not(goes);
            self.branch_if(stay, cont, leave);
        } else {
            self.branch_if(goes, leave, cont);
        }
        self.b.switch_to_block(leave);
        // Taken: a native branch's target is known here (no lookup by a computed pc).
        let to = match (taken, static_target(br)) {
            (Some(_), Some(t)) => Pc::Const(t),
            _ => Pc::Npc,
        };
        if let (Some(again), Some(k)) = (again, back) {
            // Within the taken path the branch's own condition holds: always to the label while
            // the budget allows.
            let again = if taken.is_some() {
                self.b.ins().iconst(types::I8, 1)
            } else {
                again
            };
            self.loop_back(again, k);
        }
        self.exit_chain(slot.addr, true, to, self.done());
        self.b.switch_to_block(cont);
        self.restore(here);
        self.segment_check(slot.addr, true);
    }

    /// At the start of a later segment of the block (the instruction after the current one, the
    /// last to run being at `cur`, a delay slot or not): go on when the whole segment fits in the
    /// budget, else leave with the state written and [`status::BUDGET`] (the interpreter steps
    /// the rest of the budget from here, as it would have).
    pub(super) fn segment_check(&mut self, cur: u32, slot: bool) {
        let next = self.index as usize + 1;
        let c = self.cycles_now();
        let fits = self.fits(c, self.need[next]);
        let go = self.b.create_block();
        let stop = self.b.create_block();
        self.b.set_cold_block(stop);
        self.b.ins().brif(fits, go, &[], stop, &[]);
        self.b.switch_to_block(stop);
        let saved = self.save();
        self.flush();
        let cur = self.c32(cur);
        let slot = self.b.ins().iconst(types::I16, slot as i64);
        let p = self.c32(self.sites[next].addr);
        let c = self.cycles_now();
        let i = self.completed(self.done());
        let params = [types::I32, types::I16, types::I32, types::I64, types::I64];
        let tail = *self
            .tails
            .stop
            .get_or_insert_with(|| cold_block(&mut self.b, &params));
        self.b
            .ins()
            .jump(tail, &[cur, slot, p, c, i].map(BlockArg::Value));
        self.restore(saved);
        self.b.switch_to_block(go);
        self.checked = true;
        if self.labels[next].is_some() {
            let c = self.cycles_now();
            self.go_to_label(next, c);
        }
    }

    /// The index of the label at `addr`, if the block has one there.
    pub(super) fn label_of(&self, addr: u32) -> Option<usize> {
        index_at(self.sites.iter().map(|s| (s.addr, s.slot)), addr)
            .filter(|&k| self.labels[k].is_some())
    }

    /// Go on at label `k` (its segment known to fit in the budget), `next` being the cycle
    /// count here: the registers brought to the labels' state (those dirty but not kept
    /// written back, those kept but not loaded read), the instructions since the last label
    /// counted, the cycle base moved here. The current path ends.
    pub(super) fn go_to_label(&mut self, k: usize, next: Value) {
        self.sext_lost |= self.label_sext & !self.have32;
        // The labels read the registers they keep 64-bit from the 64-bit variables: those
        // last written as 32-bit values get them here.
        let mut wide = self.have32 & self.at_label & !self.label_sext;
        while wide != 0 {
            let r = wide.trailing_zeros() as usize;
            wide &= wide - 1;
            let v = self.cached64(r);
            self.b.def_var(self.regs[r], v);
        }
        self.dirty &= !self.dirty_at_label;
        self.flush();
        let missing = self.at_label & !self.loaded;
        self.loaded |= missing;
        self.reload(missing);
        let done = self.done();
        if let Some(n) = self.pass_len {
            debug_assert_eq!(n, done, "a loop's passes are all {n} instructions long");
            if let Some((cycles, _)) = self.pass_cycles {
                debug_assert_eq!(cycles, self.off, "a loop's passes all take {cycles} cycles");
            }
        } else {
            let i = self.b.use_var(self.insns);
            let i = self.add_imm(i, done as i64);
            self.b.def_var(self.insns, i);
        }
        self.b.def_var(self.base, next);
        let l = self.labels[k].expect("a label");
        self.b.ins().jump(l, &[]);
    }

    /// Go on at label `k` when `again` (an i8 condition) holds and its segment still fits in
    /// the budget; otherwise continue here (with the state unchanged).
    pub(super) fn loop_back(&mut self, again: Value, k: usize) {
        // Two branches (the loop's own, then the budget), not one on their conjunction.
        let fit = self.b.create_block();
        let back = self.b.create_block();
        let out = self.b.create_block();
        // Cranelift lays a branch's second target out right after it (its reverse postorder
        // visits the first one first): the loop's way on is the second, so that a pass runs
        // straight through, with one taken branch (back to the label) instead of one at each
        // test.
        let stay = self.not(again);
        self.branch_if(stay, out, fit);
        self.b.switch_to_block(fit);
        let next = self.cycles_now();
        let fits = self.fits(next, self.need[k]);
        let over = self.not(fits);
        self.branch_if(over, out, back);
        self.b.switch_to_block(back);
        let saved = self.save();
        self.go_to_label(k, next);
        self.b.switch_to_block(out);
        self.restore(saved);
    }

    /// After the interpreter ran a branch: a likely branch not taken has skipped its slot (leave
    /// with the state as it is); otherwise the slot runs next and `next_pc` is where it goes.
    pub(super) fn fallback_branch_outcome(&mut self, insn: &Insn) {
        if insn.info.flags.contains(OpFlags::LIKELY) {
            let dn = self.ld(types::I8, DELAY_NEXT);
            let out = self.b.create_block();
            let cont = self.b.create_block();
            self.b.ins().brif(dn, cont, &[], out, &[]);
            self.b.switch_to_block(out);
            // The interpreter left the whole state (nothing is dirty after a fallback's flush).
            let ok = self.b.ins().iconst(types::I32, status::OK as i64);
            self.ret_counted(ok, self.done());
            self.b.switch_to_block(cont);
        }
        let n = self.ld(types::I32, NEXT_PC);
        self.b.def_var(self.npc, n);
    }

    /// A native branch decided `taken` (an i8 condition) to `target`: set `npc`. A likely
    /// branch not taken skips its slot: at the block's end it leaves the block; earlier, the
    /// block goes on there after the taken path (see [`Gen::after_slot`]).
    pub(super) fn branch_to(&mut self, insn: &Insn, taken: Value, target: Value) {
        let fall = self.c32(insn.addr.wrapping_add(8));
        let n = self.b.ins().select(taken, target, fall);
        self.b.def_var(self.npc, n);
        self.branch_taken = Some(taken);
        if insn.info.flags.contains(OpFlags::LIKELY) {
            let out = self.b.create_block();
            let cont = self.b.create_block();
            self.b.ins().brif(taken, cont, &[], out, &[]);
            if self.index + 1 < self.last_index {
                self.likely_not_taken = Some((out, self.save()));
                self.b.switch_to_block(cont);
                return;
            }
            self.b.switch_to_block(out);
            // Not taken: the interpreter advanced pc past the slot.
            let saved = self.save();
            self.exit_chain(
                insn.addr,
                insn.slot,
                Pc::Const(insn.addr.wrapping_add(8)),
                self.done(),
            );
            self.restore(saved);
            self.b.switch_to_block(cont);
        }
    }
}

#[cfg(test)]
mod tests {
    use piney_ee::decode;

    use super::*;

    /// A block of `words` from 0x1000, each after a branch a delay slot.
    fn block(words: &[u32]) -> Vec<Insn> {
        let mut slot = false;
        words
            .iter()
            .enumerate()
            .map(|(n, &word)| {
                let info = decode(word);
                let insn = Insn {
                    addr: 0x1000 + 4 * n as u32,
                    word,
                    info,
                    slot,
                };
                slot = info.flags.contains(OpFlags::BRANCH);
                insn
            })
            .collect()
    }

    const T0: u64 = 1 << 8;
    const T1: u64 = 1 << 9;
    const T2: u64 = 1 << 10;
    const T3: u64 = 1 << 11;
    const A0: u64 = 1 << 4;

    /// A loop's temporaries written after its first load are not kept across its labels; one
    /// written before any instruction that may leave, and those it reads first, are.
    #[test]
    fn temporaries_written_after_a_load_are_not_kept_at_labels() {
        let insns = block(&[
            0x240a_0001, // addiu t2, zero, 1: before any load
            0x8c88_0000, // lw t0, 0(a0)
            0x0108_4821, // addu t1, t0, t0
            0x8c8b_0004, // lw t3, 4(a0)
            0x016b_5821, // addu t3, t3, t3: written first by the load above
            0x1480_fffa, // bne a0, zero, 0x1000
            0x2484_0004, // addiu a0, a0, 4 (the slot)
        ]);
        let heads = labels(&insns);
        assert!(heads[0], "the loop's head is a label");
        assert_eq!(carried_for_exits(&insns), T0 | T1 | T3);
        let end = region_end(&insns, &heads);
        assert_eq!(kept_at_labels(&insns, end), A0 | T2);

        // In a likely branch's slot a write may be skipped: not surely written.
        let insns = block(&[
            0x8c88_0000, // lw t0, 0(a0)
            0x5480_fffe, // bnel a0, zero, 0x1000
            0x0108_4821, // addu t1, t0, t0 (the slot)
        ]);
        assert_eq!(carried_for_exits(&insns), T0);
        let end = region_end(&insns, &labels(&insns));
        assert_eq!(kept_at_labels(&insns, end), A0 | T1);
    }
}
