//! The counters and the exits: the cycle count and the instructions a block completed at any
//! point, the chained exit into the next block (or back to the dispatcher), and the code the
//! exits of a kind share ([`Tails`]).

use super::*;

impl Gen<'_> {
    /// `cycles` as the interpreter has it now.
    pub(super) fn cycles_now(&mut self) -> Value {
        let b = self.b.use_var(self.base);
        self.add_imm(b, self.off as i64)
    }

    pub(super) fn pc_value(&mut self, pc: Pc) -> Value {
        match pc {
            Pc::Const(v) => self.c32(v),
            Pc::Npc => self.b.use_var(self.npc),
        }
    }

    /// Write `pc` and `next_pc` for `pc` next, and the cycle count.
    pub(super) fn write_pc_cycles(&mut self, p: Value) {
        self.st(p, PC);
        let n = self.add_imm(p, 4);
        self.st(n, NEXT_PC);
        let c = self.cycles_now();
        self.st(c, CYCLES);
    }

    /// The instructions completed in the passes before the current one: `insns`, or with
    /// passes of a fixed length, that length times the passes before this one.
    pub(super) fn earlier_passes(&mut self) -> Value {
        match self.pass_len {
            Some(n) => {
                let before = self.passes_before();
                self.b.ins().imul_imm_s(before, n as i64)
            }
            None => self.b.use_var(self.insns),
        }
    }

    /// The instructions this block completed, with `done` of the current pass.
    pub(super) fn completed(&mut self, done: u32) -> Value {
        let i = self.earlier_passes();
        self.add_imm(i, done as i64)
    }

    /// Add this block's counts to the `Ctx`'s counters, with `done` instructions of the current
    /// pass completed.
    pub(super) fn count(&mut self, done: u32) {
        let i = self.completed(done);
        self.add_ctx(CTX_COUNTS, i);
        self.count_passes();
    }

    /// Add the passes of this run beyond its first to the `Ctx`'s (a block that does not loop
    /// has none: nothing to add).
    pub(super) fn count_passes(&mut self) {
        if self.loops {
            let r = self.runs_now();
            let more = self.add_imm(r, -1);
            self.add_ctx(CTX_PASSES, more);
        }
    }

    /// The passes of this block before the current one: from the cycle count when every pass
    /// takes the same cycles (`base - entry` is a multiple of them: an exact division, a shift
    /// and a multiplication by the inverse of their odd factor), else the count carried around
    /// the loop.
    pub(super) fn passes_before(&mut self) -> Value {
        match self.pass_cycles {
            Some((cycles, entry)) => {
                let b = self.b.use_var(self.base);
                let d = self.b.ins().isub(b, entry);
                let shift = cycles.trailing_zeros();
                let odd = cycles >> shift;
                let d = if shift > 0 {
                    self.b.ins().ushr_imm_s(d, shift as i64)
                } else {
                    d
                };
                if odd == 1 {
                    d
                } else {
                    self.b.ins().imul_imm_s(d, inverse_mod_2_64(odd) as i64)
                }
            }
            None => {
                let r = self.b.use_var(self.runs);
                self.add_imm(r, -1)
            }
        }
    }

    /// Passes of this block, the current one included once it started.
    pub(super) fn runs_now(&mut self) -> Value {
        match self.pass_cycles {
            Some(_) => {
                let before = self.passes_before();
                self.add_imm(before, 1)
            }
            None => self.b.use_var(self.runs),
        }
    }

    /// `ctx.field += v`.
    pub(super) fn add_ctx(&mut self, field: i32, v: Value) {
        if self.constant(v) == Some(0) {
            return;
        }
        let old = self.b.ins().load(types::I64, mf(), self.ctxp, field);
        let new = self.b.ins().iadd(old, v);
        self.b.ins().store(mf(), new, self.ctxp, field);
    }

    /// Count (see [`Gen::count`]) and return `s`.
    pub(super) fn ret_counted(&mut self, s: Value, done: u32) {
        self.count(done);
        self.b.ins().return_(&[s]);
    }

    /// Leave the block after the instruction at `cur` with `pc` next, `done` instructions of
    /// this pass completed: into the next block when the lookup table has it (the registers
    /// written back, the cycle count and the counters passed along), else back to the
    /// dispatcher with the whole state written.
    pub(super) fn exit_chain(&mut self, cur: u32, slot: bool, pc: Pc, done: u32) {
        self.flush();
        let p = self.pc_value(pc);
        let entry = match pc {
            Pc::Const(v) => {
                let off = (Lookup::index(v) * std::mem::size_of::<LookupEntry>()) as u64;
                self.c64(self.env.lookup + off)
            }
            Pc::Npc => {
                let i = self.b.ins().imul_imm_s(p, LOOKUP_MUL as i32 as i64);
                let i = self.b.ins().ushr_imm_s(i, (32 - LOOKUP_BITS) as i64);
                let i = self.b.ins().uextend(types::I64, i);
                let o = self.b.ins().imul_imm_s(i, size_of::<LookupEntry>() as i64);
                self.add_imm(o, self.env.lookup as i64)
            }
        };
        // cur_pc and the delay-slot state as immediates, the cycle count and the instructions
        // as values the block has at hand: on the chained way, the tail then adds no work to
        // unpack them.
        let c = self.c32(cur);
        self.st(c, CUR_PC);
        // in_delay_slot and delay_next (false) are adjacent bytes: one 16-bit store.
        debug_assert_eq!(DELAY_NEXT, IN_DELAY + 1);
        let d = self.b.ins().iconst(types::I16, slot as i64);
        self.st(d, IN_DELAY);
        let c = self.cycles_now();
        // The instructions with a chained exit counted (see `Ctx::counts`): one add of what the
        // exit has at hand on the chained way, the miss takes the exit back.
        let i = self.completed(done);
        let i = self.add_imm(i, CHAINED_ONE as i64);
        let tail = *self.tails.chain.get_or_insert_with(|| {
            let block = self.b.create_block();
            for t in [types::I64, types::I32, types::I64, types::I64] {
                self.b.append_block_param(block, t);
            }
            block
        });
        self.b
            .ins()
            .jump(tail, &[entry, p, c, i].map(BlockArg::Value));
    }

    /// The exits' shared part (see [`Tails::chain`]): the counts added; into the next block
    /// when the lookup table has it (the cycle count passed along), else back to the dispatcher
    /// with `pc`, `next_pc` and the cycle count written.
    pub(super) fn fill_chain(&mut self, tail: Block) {
        self.b.switch_to_block(tail);
        let p = self.b.block_params(tail).to_vec();
        let (entry, pc, c, i) = (p[0], p[1], p[2], p[3]);
        let epc = self
            .b
            .ins()
            .load(types::I32, mf(), entry, offset_of!(LookupEntry, pc) as i32);
        let hit = self.b.ins().icmp(IntCC::Equal, epc, pc);
        self.count_passes();
        let go = self.b.create_block();
        let miss = self.b.create_block();
        self.b.ins().brif(hit, go, &[], miss, &[]);
        self.b.switch_to_block(go);
        let code = self.b.ins().load(
            types::I64,
            mf(),
            entry,
            offset_of!(LookupEntry, code) as i32,
        );
        // The instructions and the chained exit (see `exit_chain`), in one add.
        self.add_ctx(CTX_COUNTS, i);
        self.b
            .ins()
            .return_call_indirect(self.tsig, code, &[self.ctxp, self.cpu, c]);
        self.b.switch_to_block(miss);
        // Not chained after all.
        let i = self.add_imm(i, (CHAINED_ONE as i64).wrapping_neg());
        self.add_ctx(CTX_COUNTS, i);
        self.st(pc, PC);
        let n = self.add_imm(pc, 4);
        self.st(n, NEXT_PC);
        self.st(c, CYCLES);
        let ok = self.b.ins().iconst(types::I32, status::OK as i64);
        self.b.ins().return_(&[ok]);
    }

    /// The code the exits share, after every other block (see [`Tails`]).
    pub(super) fn fill_tails(&mut self) {
        let t = self.tails;
        if let Some(chain) = t.chain {
            self.fill_chain(chain);
        }
        if let Some(stop) = t.stop {
            self.fill_stop(stop);
        }
        if let Some(slow) = t.slow {
            self.fill_slow(slow);
        }
    }

    /// A segment that does not fit: the state the interpreter would leave, and BUDGET.
    pub(super) fn fill_stop(&mut self, stop: Block) {
        self.b.switch_to_block(stop);
        let p = self.b.block_params(stop).to_vec();
        self.st(p[0], CUR_PC);
        debug_assert_eq!(DELAY_NEXT, IN_DELAY + 1);
        self.st(p[1], IN_DELAY);
        self.st(p[2], PC);
        let n = self.add_imm(p[2], 4);
        self.st(n, NEXT_PC);
        self.st(p[3], CYCLES);
        self.add_ctx(CTX_COUNTS, p[4]);
        self.count_passes();
        // The block ran (its pass is counted): no budget stop at an entry.
        let s = self.b.ins().iconst(types::I32, status::BUDGET as i64);
        self.b.ins().return_(&[s]);
    }

    /// A slow path: the interpreter's function for the instruction, which adds the counts too
    /// (the instruction counts whether it completes or faults).
    pub(super) fn fill_slow(&mut self, slow: Block) {
        self.b.switch_to_block(slow);
        let p = self.b.block_params(slow).to_vec();
        let f = self.c64(h_interp_leave as *const () as usize as u64);
        let r = self.runs_now();
        let call =
            self.b
                .ins()
                .call_indirect(self.lsig, f, &[self.ctxp, p[0], p[1], p[2], p[3], r]);
        let s = self.b.inst_results(call)[0];
        self.b.ins().return_(&[s]);
    }
}
