//! COP1 (FPU) sub-tables (opcode 0x11), the FPU's primary-opcode loads and stores (LWC1 0x31,
//! SWC1 0x39, placed in PRIMARY by the integer family), and the COP1 disassembly.
//!
//! Encoding: rs (bits 21-25) selects MFC1 0, CFC1 2, MTC1 4, CTC1 6, BC1 8 (by rt), S 16 (by
//! funct) and W 20 (by funct: only CVT.S.W).

use super::fields::{fd, fs, ft, funct, rs, rt, simm};
use super::{Form, FpuForm, OpFlags as F, OpInfo, Operands as O, op, table};
use crate::interp::cop1 as x;

const COP1: F = F::COP1;
const BR: F = F::COP1.union(F::BRANCH).union(F::DELAY_SLOT);
const BRL: F = BR.union(F::LIKELY);
const NONE: O = O::empty();
const FS_FT: O = O::FS.union(O::FT);

const fn fpu(f: FpuForm) -> Form {
    Form::Fpu(f)
}

/// LWC1 ft, offset(base): primary opcode 0x31.
pub(crate) const LWC1: OpInfo = op(
    "lwc1",
    fpu(FpuForm::Mem),
    COP1.union(F::LOAD),
    O::RS.union(O::MEM),
    O::FT,
    x::lwc1,
);
/// SWC1 ft, offset(base): primary opcode 0x39.
pub(crate) const SWC1: OpInfo = op(
    "swc1",
    fpu(FpuForm::Mem),
    COP1.union(F::STORE),
    O::RS.union(O::FT),
    O::MEM,
    x::swc1,
);

/// By rs, for the move instructions.
static MOVES: [OpInfo; 32] = table(&[
    (
        0,
        op("mfc1", fpu(FpuForm::RtFs), COP1, O::FS, O::RT, x::mfc1),
    ),
    (
        2,
        op("cfc1", fpu(FpuForm::RtFcr), COP1, O::FCR31, O::RT, x::cfc1),
    ),
    (
        4,
        op("mtc1", fpu(FpuForm::RtFs), COP1, O::RT, O::FS, x::mtc1),
    ),
    (
        6,
        op("ctc1", fpu(FpuForm::RtFcr), COP1, O::RT, O::FCR31, x::ctc1),
    ),
]);

/// BC1 (rs 8) by rt.
static BC1: [OpInfo; 32] = table(&[
    (0, op("bc1f", Form::Branch, BR, O::FCR31, NONE, x::bc1f)),
    (1, op("bc1t", Form::Branch, BR, O::FCR31, NONE, x::bc1t)),
    (2, op("bc1fl", Form::Branch, BRL, O::FCR31, NONE, x::bc1fl)),
    (3, op("bc1tl", Form::Branch, BRL, O::FCR31, NONE, x::bc1tl)),
]);

const FFF: Form = fpu(FpuForm::FdFsFt);
const FF: Form = fpu(FpuForm::FdFs);
const AFF: Form = fpu(FpuForm::FsFt);
const FD_FLAGS: O = O::FD.union(O::FCR31);
const ACC_FLAGS: O = O::FACC.union(O::FCR31);
const MAC_READS: O = FS_FT.union(O::FACC);

/// S format (rs 16) by funct.
static S: [OpInfo; 64] = table(&[
    (0x00, op("add.s", FFF, COP1, FS_FT, FD_FLAGS, x::add_s)),
    (0x01, op("sub.s", FFF, COP1, FS_FT, FD_FLAGS, x::sub_s)),
    (0x02, op("mul.s", FFF, COP1, FS_FT, FD_FLAGS, x::mul_s)),
    // The divide/square-root unit takes 7 cycles (RSQRT 13); the interpreter charges them at
    // issue.
    (
        0x03,
        op("div.s", FFF, COP1, FS_FT, FD_FLAGS, x::div_s).cost(7),
    ),
    (
        0x04,
        op(
            "sqrt.s",
            fpu(FpuForm::FdFt),
            COP1,
            O::FT,
            FD_FLAGS,
            x::sqrt_s,
        )
        .cost(7),
    ),
    (0x05, op("abs.s", FF, COP1, O::FS, FD_FLAGS, x::abs_s)),
    (0x06, op("mov.s", FF, COP1, O::FS, O::FD, x::mov_s)),
    (0x07, op("neg.s", FF, COP1, O::FS, FD_FLAGS, x::neg_s)),
    (
        0x16,
        op("rsqrt.s", FFF, COP1, FS_FT, FD_FLAGS, x::rsqrt_s).cost(13),
    ),
    (0x18, op("adda.s", AFF, COP1, FS_FT, ACC_FLAGS, x::adda_s)),
    (0x19, op("suba.s", AFF, COP1, FS_FT, ACC_FLAGS, x::suba_s)),
    (0x1a, op("mula.s", AFF, COP1, FS_FT, ACC_FLAGS, x::mula_s)),
    (
        0x1c,
        op("madd.s", FFF, COP1, MAC_READS, FD_FLAGS, x::madd_s),
    ),
    (
        0x1d,
        op("msub.s", FFF, COP1, MAC_READS, FD_FLAGS, x::msub_s),
    ),
    (
        0x1e,
        op("madda.s", AFF, COP1, MAC_READS, ACC_FLAGS, x::madda_s),
    ),
    (
        0x1f,
        op("msuba.s", AFF, COP1, MAC_READS, ACC_FLAGS, x::msuba_s),
    ),
    (0x24, op("cvt.w.s", FF, COP1, O::FS, O::FD, x::cvt_w_s)),
    (0x28, op("max.s", FFF, COP1, FS_FT, FD_FLAGS, x::max_s)),
    (0x29, op("min.s", FFF, COP1, FS_FT, FD_FLAGS, x::min_s)),
    (0x30, op("c.f.s", AFF, COP1, FS_FT, O::FCR31, x::c_f_s)),
    (0x32, op("c.eq.s", AFF, COP1, FS_FT, O::FCR31, x::c_eq_s)),
    (0x34, op("c.lt.s", AFF, COP1, FS_FT, O::FCR31, x::c_lt_s)),
    (0x36, op("c.le.s", AFF, COP1, FS_FT, O::FCR31, x::c_le_s)),
]);

/// W format (rs 20) by funct.
static W: [OpInfo; 64] = table(&[(0x20, op("cvt.s.w", FF, COP1, O::FS, O::FD, x::cvt_s_w))]);

pub(super) fn decode(word: u32) -> &'static OpInfo {
    match rs(word) {
        8 => &BC1[rt(word)],
        16 => &S[funct(word)],
        20 => &W[funct(word)],
        r => &MOVES[r],
    }
}

/// GPR names as binutils prints them.
pub(super) const GPR_NAMES: [&str; 32] = [
    "zero", "at", "v0", "v1", "a0", "a1", "a2", "a3", "t0", "t1", "t2", "t3", "t4", "t5", "t6",
    "t7", "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "t8", "t9", "k0", "k1", "gp", "sp", "fp",
    "ra",
];

/// `offset(base)` of a load or store.
pub(super) fn mem_operand(word: u32) -> String {
    format!("{}(${})", simm(word), GPR_NAMES[rs(word)])
}

/// Disassemble a COP1 instruction word (opcode 0x11, or LWC1/SWC1) at `pc`.
pub(crate) fn disasm(word: u32, pc: u32) -> String {
    let info = match word >> 26 {
        0x31 => &LWC1,
        0x39 => &SWC1,
        _ => decode(word),
    };
    let m = info.mnemonic;
    let gpr = |r: usize| GPR_NAMES[r];
    match info.form {
        Form::Fpu(FpuForm::FdFsFt) => {
            format!("{m} $f{}, $f{}, $f{}", fd(word), fs(word), ft(word))
        }
        Form::Fpu(FpuForm::FdFs) => format!("{m} $f{}, $f{}", fd(word), fs(word)),
        Form::Fpu(FpuForm::FsFt) => format!("{m} $f{}, $f{}", fs(word), ft(word)),
        Form::Fpu(FpuForm::FdFt) => format!("{m} $f{}, $f{}", fd(word), ft(word)),
        Form::Fpu(FpuForm::RtFs) => format!("{m} ${}, $f{}", gpr(rt(word)), fs(word)),
        Form::Fpu(FpuForm::RtFcr) => format!("{m} ${}, ${}", gpr(rt(word)), fs(word)),
        Form::Fpu(FpuForm::Mem) => format!("{m} $f{}, {}", ft(word), mem_operand(word)),
        Form::Branch => {
            let target = pc.wrapping_add(4).wrapping_add((simm(word) << 2) as u32);
            format!("{m} {target:#x}")
        }
        _ => m.to_string(),
    }
}
