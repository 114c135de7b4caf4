//! Conditions built already folded: a comparison of a comparison's widened result with zero is
//! that comparison (or its complement), a comparison of constants is a constant, and a branch
//! on a constant is a jump. Cranelift's optimiser would fold them too, at a cost per block; the
//! branch's own comparison also stays next to it, where the lowering fuses the two.

use super::*;
use cranelift_codegen::ir::Inst;
use cranelift_codegen::ir::condcodes::CondCode;

impl Gen<'_> {
    /// The comparison (an `icmp`) that defines `v`, looking through a widening.
    fn comparison_of(&self, v: Value) -> Option<Inst> {
        let inst = self.b.func.dfg.value_def(v).inst()?;
        match self.b.func.dfg.insts[inst] {
            InstructionData::IntCompare { .. } => Some(inst),
            InstructionData::Unary {
                opcode: Opcode::Uextend,
                arg,
            } => self.comparison_of(arg),
            _ => None,
        }
    }

    /// The comparison `inst` again, with condition `cc` (an i8).
    fn compare_again(&mut self, inst: Inst, cc: IntCC) -> Value {
        match self.b.func.dfg.insts[inst] {
            InstructionData::IntCompare { args, .. } => self.b.ins().icmp(cc, args[0], args[1]),
            _ => unreachable!("a comparison"),
        }
    }

    /// The condition of comparison `inst`.
    fn condition_of(&self, inst: Inst) -> IntCC {
        match self.b.func.dfg.insts[inst] {
            InstructionData::IntCompare { cond, .. } => cond,
            _ => unreachable!("a comparison"),
        }
    }

    /// `a cc imm` (an i8 condition), folded where `a` is a constant or a comparison's result
    /// compared with zero.
    pub(super) fn cmp_imm(&mut self, cc: IntCC, a: Value, imm: i64) -> Value {
        let ty = self.b.func.dfg.value_type(a);
        if let Some(x) = self.constant(a) {
            let (x, y) = if ty == types::I32 {
                (x as i32 as i64, imm as i32 as i64)
            } else {
                (x, imm)
            };
            let holds = match cc {
                IntCC::Equal => x == y,
                IntCC::NotEqual => x != y,
                IntCC::SignedLessThan => x < y,
                IntCC::SignedLessThanOrEqual => x <= y,
                IntCC::SignedGreaterThan => x > y,
                IntCC::SignedGreaterThanOrEqual => x >= y,
                IntCC::UnsignedLessThan => (x as u64) < (y as u64),
                IntCC::UnsignedLessThanOrEqual => (x as u64) <= (y as u64),
                IntCC::UnsignedGreaterThan => (x as u64) > (y as u64),
                IntCC::UnsignedGreaterThanOrEqual => (x as u64) >= (y as u64),
            };
            return self.b.ins().iconst(types::I8, holds as i64);
        }
        if imm == 0
            && matches!(cc, IntCC::Equal | IntCC::NotEqual)
            && let Some(inst) = self.comparison_of(a)
        {
            let inner = self.condition_of(inst);
            let cc = if cc == IntCC::Equal {
                inner.complement()
            } else {
                inner
            };
            return self.compare_again(inst, cc);
        }
        self.b.ins().icmp_imm_s(cc, a, imm)
    }

    /// `a cc b` (an i8 condition), folded as [`Gen::cmp_imm`] folds when `b` is a constant.
    pub(super) fn cmp(&mut self, cc: IntCC, a: Value, b: Value) -> Value {
        match (self.constant(a), self.constant(b)) {
            (_, Some(y)) => self.cmp_imm(cc, a, y),
            (Some(x), None) => self.cmp_imm(cc.swap_args(), b, x),
            _ => self.b.ins().icmp(cc, a, b),
        }
    }

    /// Whether the i8 condition `c` fails: the complementary comparison where a comparison
    /// defines it.
    pub(super) fn not(&mut self, c: Value) -> Value {
        self.cmp_imm(IntCC::Equal, c, 0)
    }

    /// Branch to `yes` when `c` holds, else to `no`: a jump when `c` is a constant.
    pub(super) fn branch_if(&mut self, c: Value, yes: Block, no: Block) {
        match self.constant(c) {
            Some(x) => {
                self.b.ins().jump(if x != 0 { yes } else { no }, &[]);
            }
            None => {
                self.b.ins().brif(c, yes, &[], no, &[]);
            }
        }
    }
}
