//! Primary, SPECIAL and REGIMM sub-tables: the integer instruction set.
//!
//! Cycle costs (the interpreter's simple timing model): 1 for everything except the multiplies
//! (4, the EE's MULT latency to HI/LO) and divides (37). LWC1/SWC1 (primary 0x31, 0x39) and
//! LQC2/SQC2 (0x36, 0x3e) are the COP1 and COP2 families' entries, placed here.

use super::Form as F;
use super::{OpInfo, table};
use crate::interp::integer as i;

/// Cost of MULT/MULTU/MADD and the parallel multiplies.
pub(super) const MUL_CYCLES: u8 = 4;
/// Cost of DIV/DIVU and the parallel divides.
pub(super) const DIV_CYCLES: u8 = 37;

const fn alu3(m: &'static str, e: super::ExecFn) -> OpInfo {
    super::op(m, F::RdRsRt, f!(), o!(RS | RT), o!(RD), e)
}
const fn alu3t(m: &'static str, e: super::ExecFn) -> OpInfo {
    super::op(m, F::RdRsRt, f!(MAY_TRAP), o!(RS | RT), o!(RD), e)
}
const fn shift(m: &'static str, e: super::ExecFn) -> OpInfo {
    super::op(m, F::RdRtSa, f!(), o!(RT), o!(RD), e)
}
const fn shiftv(m: &'static str, e: super::ExecFn) -> OpInfo {
    super::op(m, F::RdRtRs, f!(), o!(RS | RT), o!(RD), e)
}
const fn imm(m: &'static str, e: super::ExecFn) -> OpInfo {
    super::op(m, F::RtRsImm, f!(), o!(RS), o!(RT), e)
}
const fn uimm(m: &'static str, e: super::ExecFn) -> OpInfo {
    super::op(m, F::RtRsUimm, f!(), o!(RS), o!(RT), e)
}
const fn load(m: &'static str, e: super::ExecFn) -> OpInfo {
    super::op(m, F::Mem, f!(LOAD), o!(RS | MEM), o!(RT), e)
}
/// LWL/LWR/LDL/LDR merge into rt, so they read it too.
const fn load_merge(m: &'static str, e: super::ExecFn) -> OpInfo {
    super::op(m, F::Mem, f!(LOAD), o!(RS | RT | MEM), o!(RT), e)
}
const fn store(m: &'static str, e: super::ExecFn) -> OpInfo {
    super::op(m, F::Mem, f!(STORE), o!(RS | RT), o!(MEM), e)
}
/// SWL/SWR/SDL/SDR read the memory word they merge into.
const fn store_merge(m: &'static str, e: super::ExecFn) -> OpInfo {
    super::op(m, F::Mem, f!(LOAD | STORE), o!(RS | RT | MEM), o!(MEM), e)
}
const fn br2(m: &'static str, e: super::ExecFn) -> OpInfo {
    super::op(
        m,
        F::BranchRsRt,
        f!(BRANCH | DELAY_SLOT),
        o!(RS | RT),
        o!(),
        e,
    )
}
const fn br2l(m: &'static str, e: super::ExecFn) -> OpInfo {
    super::op(
        m,
        F::BranchRsRt,
        f!(BRANCH | DELAY_SLOT | LIKELY),
        o!(RS | RT),
        o!(),
        e,
    )
}
const fn br1(m: &'static str, e: super::ExecFn) -> OpInfo {
    super::op(m, F::BranchRs, f!(BRANCH | DELAY_SLOT), o!(RS), o!(), e)
}
const fn br1l(m: &'static str, e: super::ExecFn) -> OpInfo {
    super::op(
        m,
        F::BranchRs,
        f!(BRANCH | DELAY_SLOT | LIKELY),
        o!(RS),
        o!(),
        e,
    )
}
const fn br1al(m: &'static str, e: super::ExecFn) -> OpInfo {
    super::op(
        m,
        F::BranchRs,
        f!(BRANCH | DELAY_SLOT | LINK),
        o!(RS),
        o!(RA),
        e,
    )
}
const fn br1all(m: &'static str, e: super::ExecFn) -> OpInfo {
    super::op(
        m,
        F::BranchRs,
        f!(BRANCH | DELAY_SLOT | LINK | LIKELY),
        o!(RS),
        o!(RA),
        e,
    )
}
const fn trap2(m: &'static str, e: super::ExecFn) -> OpInfo {
    super::op(m, F::RsRt, f!(MAY_TRAP), o!(RS | RT), o!(), e)
}
const fn trapi(m: &'static str, e: super::ExecFn) -> OpInfo {
    super::op(m, F::RsImm, f!(MAY_TRAP), o!(RS), o!(), e)
}

/// By primary opcode (bits 26-31); 0x00, 0x01, 0x10-0x12 and 0x1c are sub-tables.
pub(super) static PRIMARY: [OpInfo; 64] = table(&[
    (
        0x02,
        super::op("j", F::Jump, f!(BRANCH | DELAY_SLOT), o!(), o!(), i::j),
    ),
    (
        0x03,
        super::op(
            "jal",
            F::Jump,
            f!(BRANCH | DELAY_SLOT | LINK),
            o!(),
            o!(RA),
            i::jal,
        ),
    ),
    (0x04, br2("beq", i::beq)),
    (0x05, br2("bne", i::bne)),
    (0x06, br1("blez", i::blez)),
    (0x07, br1("bgtz", i::bgtz)),
    (
        0x08,
        super::op("addi", F::RtRsImm, f!(MAY_TRAP), o!(RS), o!(RT), i::addi),
    ),
    (0x09, imm("addiu", i::addiu)),
    (0x0a, imm("slti", i::slti)),
    (0x0b, imm("sltiu", i::sltiu)),
    (0x0c, uimm("andi", i::andi)),
    (0x0d, uimm("ori", i::ori)),
    (0x0e, uimm("xori", i::xori)),
    (0x0f, super::op("lui", F::RtImm, f!(), o!(), o!(RT), i::lui)),
    (0x14, br2l("beql", i::beql)),
    (0x15, br2l("bnel", i::bnel)),
    (0x16, br1l("blezl", i::blezl)),
    (0x17, br1l("bgtzl", i::bgtzl)),
    (
        0x18,
        super::op("daddi", F::RtRsImm, f!(MAY_TRAP), o!(RS), o!(RT), i::daddi),
    ),
    (0x19, imm("daddiu", i::daddiu)),
    (0x1a, load_merge("ldl", i::ldl)),
    (0x1b, load_merge("ldr", i::ldr)),
    (0x1e, load("lq", i::lq)),
    (0x1f, store("sq", i::sq)),
    (0x20, load("lb", i::lb)),
    (0x21, load("lh", i::lh)),
    (0x22, load_merge("lwl", i::lwl)),
    (0x23, load("lw", i::lw)),
    (0x24, load("lbu", i::lbu)),
    (0x25, load("lhu", i::lhu)),
    (0x26, load_merge("lwr", i::lwr)),
    (0x27, load("lwu", i::lwu)),
    (0x28, store("sb", i::sb)),
    (0x29, store("sh", i::sh)),
    (0x2a, store_merge("swl", i::swl)),
    (0x2b, store("sw", i::sw)),
    (0x2c, store_merge("sdl", i::sdl)),
    (0x2d, store_merge("sdr", i::sdr)),
    (0x2e, store_merge("swr", i::swr)),
    (
        0x2f,
        super::op("cache", F::MemHint, f!(), o!(RS), o!(), i::nop),
    ),
    (0x31, super::cop1::LWC1),
    (
        0x33,
        super::op("pref", F::MemHint, f!(), o!(RS), o!(), i::nop),
    ),
    (0x36, super::cop2::LQC2),
    (0x37, load("ld", i::ld)),
    (0x39, super::cop1::SWC1),
    (0x3e, super::cop2::SQC2),
    (0x3f, store("sd", i::sd)),
]);

/// SPECIAL (opcode 0) by funct.
pub(super) static SPECIAL: [OpInfo; 64] = table(&[
    (0x00, shift("sll", i::sll)),
    (0x02, shift("srl", i::srl)),
    (0x03, shift("sra", i::sra)),
    (0x04, shiftv("sllv", i::sllv)),
    (0x06, shiftv("srlv", i::srlv)),
    (0x07, shiftv("srav", i::srav)),
    (
        0x08,
        super::op("jr", F::Rs, f!(BRANCH | DELAY_SLOT), o!(RS), o!(), i::jr),
    ),
    (
        0x09,
        super::op(
            "jalr",
            F::RdRs,
            f!(BRANCH | DELAY_SLOT | LINK),
            o!(RS),
            o!(RD),
            i::jalr,
        ),
    ),
    (
        0x0a,
        super::op("movz", F::RdRsRt, f!(), o!(RS | RT | RD), o!(RD), i::movz),
    ),
    (
        0x0b,
        super::op("movn", F::RdRsRt, f!(), o!(RS | RT | RD), o!(RD), i::movn),
    ),
    (
        0x0c,
        super::op(
            "syscall",
            F::Code,
            f!(MAY_TRAP | ENDS_BLOCK),
            o!(),
            o!(),
            i::syscall,
        ),
    ),
    (
        0x0d,
        super::op(
            "break",
            F::Code,
            f!(MAY_TRAP | ENDS_BLOCK),
            o!(),
            o!(),
            i::break_,
        ),
    ),
    (0x0f, super::op("sync", F::None, f!(), o!(), o!(), i::nop)),
    (
        0x10,
        super::op("mfhi", F::Rd, f!(), o!(HI), o!(RD), i::mfhi),
    ),
    (
        0x11,
        super::op("mthi", F::Rs, f!(), o!(RS), o!(HI), i::mthi),
    ),
    (
        0x12,
        super::op("mflo", F::Rd, f!(), o!(LO), o!(RD), i::mflo),
    ),
    (
        0x13,
        super::op("mtlo", F::Rs, f!(), o!(RS), o!(LO), i::mtlo),
    ),
    (0x14, shiftv("dsllv", i::dsllv)),
    (0x16, shiftv("dsrlv", i::dsrlv)),
    (0x17, shiftv("dsrav", i::dsrav)),
    (
        0x18,
        super::op(
            "mult",
            F::RsRt,
            f!(),
            o!(RS | RT),
            o!(RD | HI | LO),
            i::mult,
        )
        .cost(MUL_CYCLES),
    ),
    (
        0x19,
        super::op(
            "multu",
            F::RsRt,
            f!(),
            o!(RS | RT),
            o!(RD | HI | LO),
            i::multu,
        )
        .cost(MUL_CYCLES),
    ),
    (
        0x1a,
        super::op("div", F::RsRt, f!(), o!(RS | RT), o!(HI | LO), i::div).cost(DIV_CYCLES),
    ),
    (
        0x1b,
        super::op("divu", F::RsRt, f!(), o!(RS | RT), o!(HI | LO), i::divu).cost(DIV_CYCLES),
    ),
    (0x20, alu3t("add", i::add)),
    (0x21, alu3("addu", i::addu)),
    (0x22, alu3t("sub", i::sub)),
    (0x23, alu3("subu", i::subu)),
    (0x24, alu3("and", i::and)),
    (0x25, alu3("or", i::or)),
    (0x26, alu3("xor", i::xor)),
    (0x27, alu3("nor", i::nor)),
    (
        0x28,
        super::op("mfsa", F::Rd, f!(), o!(SA), o!(RD), i::mfsa),
    ),
    (
        0x29,
        super::op("mtsa", F::Rs, f!(), o!(RS), o!(SA), i::mtsa),
    ),
    (0x2a, alu3("slt", i::slt)),
    (0x2b, alu3("sltu", i::sltu)),
    (0x2c, alu3t("dadd", i::dadd)),
    (0x2d, alu3("daddu", i::daddu)),
    (0x2e, alu3t("dsub", i::dsub)),
    (0x2f, alu3("dsubu", i::dsubu)),
    (0x30, trap2("tge", i::tge)),
    (0x31, trap2("tgeu", i::tgeu)),
    (0x32, trap2("tlt", i::tlt)),
    (0x33, trap2("tltu", i::tltu)),
    (0x34, trap2("teq", i::teq)),
    (0x36, trap2("tne", i::tne)),
    (0x38, shift("dsll", i::dsll)),
    (0x3a, shift("dsrl", i::dsrl)),
    (0x3b, shift("dsra", i::dsra)),
    (0x3c, shift("dsll32", i::dsll32)),
    (0x3e, shift("dsrl32", i::dsrl32)),
    (0x3f, shift("dsra32", i::dsra32)),
]);

/// REGIMM (opcode 1) by rt.
pub(super) static REGIMM: [OpInfo; 32] = table(&[
    (0x00, br1("bltz", i::bltz)),
    (0x01, br1("bgez", i::bgez)),
    (0x02, br1l("bltzl", i::bltzl)),
    (0x03, br1l("bgezl", i::bgezl)),
    (0x08, trapi("tgei", i::tgei)),
    (0x09, trapi("tgeiu", i::tgeiu)),
    (0x0a, trapi("tlti", i::tlti)),
    (0x0b, trapi("tltiu", i::tltiu)),
    (0x0c, trapi("teqi", i::teqi)),
    (0x0e, trapi("tnei", i::tnei)),
    (0x10, br1al("bltzal", i::bltzal)),
    (0x11, br1al("bgezal", i::bgezal)),
    (0x12, br1all("bltzall", i::bltzall)),
    (0x13, br1all("bgezall", i::bgezall)),
    (
        0x18,
        super::op("mtsab", F::RsImm, f!(), o!(RS), o!(SA), i::mtsab),
    ),
    (
        0x19,
        super::op("mtsah", F::RsImm, f!(), o!(RS), o!(SA), i::mtsah),
    ),
]);
