//! MMI sub-tables (opcode 0x1c): MMI by funct, MMI0..MMI3 by sa.
//!
//! funct 0x08 is MMI0, 0x09 MMI2, 0x28 MMI1, 0x29 MMI3 (each by the sa field); PMFHL (0x30)
//! takes its format from sa (0 LW, 1 UW, 2 SLW, 3 LH, 4 SH) and PMTHL (0x31) only has LW (sa 0).
//! Costs: the multiplies and multiply-adds 4 cycles, the divides 37, the rest 1.

use super::Form as F;
use super::integer::{DIV_CYCLES, MUL_CYCLES};
use super::{OpInfo, RESERVED, table};
use crate::interp::mmi as m;
use crate::table::fields::{funct, sa};

/// All 128-bit HI and LO.
const HILO: super::Operands = o!(HI | LO | HI1 | LO1);

/// `rd, rs, rt` parallel op.
const fn p3(mn: &'static str, e: super::ExecFn) -> OpInfo {
    super::op(mn, F::RdRsRt, f!(MMI), o!(RS | RT), o!(RD), e)
}
/// `rd, rt` parallel op.
const fn p2(mn: &'static str, e: super::ExecFn) -> OpInfo {
    super::op(mn, F::RdRt, f!(MMI), o!(RT), o!(RD), e)
}
/// `rd, rt, sa` parallel shift.
const fn psh(mn: &'static str, e: super::ExecFn) -> OpInfo {
    super::op(mn, F::RdRtSa, f!(MMI), o!(RT), o!(RD), e)
}
/// Parallel multiply writing rd, HI and LO; `acc` when it also reads HI and LO.
const fn pmul(mn: &'static str, acc: bool, e: super::ExecFn) -> OpInfo {
    let reads = if acc {
        o!(RS | RT | HI | LO | HI1 | LO1)
    } else {
        o!(RS | RT)
    };
    super::op(
        mn,
        F::RdRsRt,
        f!(MMI),
        reads,
        o!(RD | HI | LO | HI1 | LO1),
        e,
    )
    .cost(MUL_CYCLES)
}
/// Parallel divide: `rs, rt`, writes HI and LO.
const fn pdiv(mn: &'static str, e: super::ExecFn) -> OpInfo {
    super::op(mn, F::RsRt, f!(MMI), o!(RS | RT), HILO, e).cost(DIV_CYCLES)
}

/// MMI by funct.
static MMI: [OpInfo; 64] = table(&[
    (
        0x00,
        super::op(
            "madd",
            F::RsRt,
            f!(MMI),
            o!(RS | RT | HI | LO),
            o!(RD | HI | LO),
            m::madd,
        )
        .cost(MUL_CYCLES),
    ),
    (
        0x01,
        super::op(
            "maddu",
            F::RsRt,
            f!(MMI),
            o!(RS | RT | HI | LO),
            o!(RD | HI | LO),
            m::maddu,
        )
        .cost(MUL_CYCLES),
    ),
    (
        0x04,
        super::op("plzcw", F::RdRs, f!(MMI), o!(RS), o!(RD), m::plzcw),
    ),
    (
        0x10,
        super::op("mfhi1", F::Rd, f!(MMI), o!(HI1), o!(RD), m::mfhi1),
    ),
    (
        0x11,
        super::op("mthi1", F::Rs, f!(MMI), o!(RS), o!(HI1), m::mthi1),
    ),
    (
        0x12,
        super::op("mflo1", F::Rd, f!(MMI), o!(LO1), o!(RD), m::mflo1),
    ),
    (
        0x13,
        super::op("mtlo1", F::Rs, f!(MMI), o!(RS), o!(LO1), m::mtlo1),
    ),
    (
        0x18,
        super::op(
            "mult1",
            F::RsRt,
            f!(MMI),
            o!(RS | RT),
            o!(RD | HI1 | LO1),
            m::mult1,
        )
        .cost(MUL_CYCLES),
    ),
    (
        0x19,
        super::op(
            "multu1",
            F::RsRt,
            f!(MMI),
            o!(RS | RT),
            o!(RD | HI1 | LO1),
            m::multu1,
        )
        .cost(MUL_CYCLES),
    ),
    (
        0x1a,
        super::op(
            "div1",
            F::RsRt,
            f!(MMI),
            o!(RS | RT),
            o!(HI1 | LO1),
            m::div1,
        )
        .cost(DIV_CYCLES),
    ),
    (
        0x1b,
        super::op(
            "divu1",
            F::RsRt,
            f!(MMI),
            o!(RS | RT),
            o!(HI1 | LO1),
            m::divu1,
        )
        .cost(DIV_CYCLES),
    ),
    (
        0x20,
        super::op(
            "madd1",
            F::RsRt,
            f!(MMI),
            o!(RS | RT | HI1 | LO1),
            o!(RD | HI1 | LO1),
            m::madd1,
        )
        .cost(MUL_CYCLES),
    ),
    (
        0x21,
        super::op(
            "maddu1",
            F::RsRt,
            f!(MMI),
            o!(RS | RT | HI1 | LO1),
            o!(RD | HI1 | LO1),
            m::maddu1,
        )
        .cost(MUL_CYCLES),
    ),
    (0x34, psh("psllh", m::psllh)),
    (0x36, psh("psrlh", m::psrlh)),
    (0x37, psh("psrah", m::psrah)),
    (0x3c, psh("psllw", m::psllw)),
    (0x3e, psh("psrlw", m::psrlw)),
    (0x3f, psh("psraw", m::psraw)),
]);

/// PMFHL by sa.
static PMFHL: [OpInfo; 5] = [
    super::op("pmfhl.lw", F::Rd, f!(MMI), HILO, o!(RD), m::pmfhl_lw),
    super::op("pmfhl.uw", F::Rd, f!(MMI), HILO, o!(RD), m::pmfhl_uw),
    super::op("pmfhl.slw", F::Rd, f!(MMI), HILO, o!(RD), m::pmfhl_slw),
    super::op("pmfhl.lh", F::Rd, f!(MMI), HILO, o!(RD), m::pmfhl_lh),
    super::op("pmfhl.sh", F::Rd, f!(MMI), HILO, o!(RD), m::pmfhl_sh),
];
/// PMTHL.LW writes words 0 and 2 of HI and LO and keeps 1 and 3, so it reads them too.
static PMTHL_LW: OpInfo = super::op(
    "pmthl.lw",
    F::Rs,
    f!(MMI),
    o!(RS | HI | LO | HI1 | LO1),
    HILO,
    m::pmthl_lw,
);

/// MMI0 by sa.
static MMI0: [OpInfo; 32] = table(&[
    (0x00, p3("paddw", m::paddw)),
    (0x01, p3("psubw", m::psubw)),
    (0x02, p3("pcgtw", m::pcgtw)),
    (0x03, p3("pmaxw", m::pmaxw)),
    (0x04, p3("paddh", m::paddh)),
    (0x05, p3("psubh", m::psubh)),
    (0x06, p3("pcgth", m::pcgth)),
    (0x07, p3("pmaxh", m::pmaxh)),
    (0x08, p3("paddb", m::paddb)),
    (0x09, p3("psubb", m::psubb)),
    (0x0a, p3("pcgtb", m::pcgtb)),
    (0x10, p3("paddsw", m::paddsw)),
    (0x11, p3("psubsw", m::psubsw)),
    (0x12, p3("pextlw", m::pextlw)),
    (0x13, p3("ppacw", m::ppacw)),
    (0x14, p3("paddsh", m::paddsh)),
    (0x15, p3("psubsh", m::psubsh)),
    (0x16, p3("pextlh", m::pextlh)),
    (0x17, p3("ppach", m::ppach)),
    (0x18, p3("paddsb", m::paddsb)),
    (0x19, p3("psubsb", m::psubsb)),
    (0x1a, p3("pextlb", m::pextlb)),
    (0x1b, p3("ppacb", m::ppacb)),
    (0x1e, p2("pext5", m::pext5)),
    (0x1f, p2("ppac5", m::ppac5)),
]);

/// MMI1 by sa.
static MMI1: [OpInfo; 32] = table(&[
    (0x01, p2("pabsw", m::pabsw)),
    (0x02, p3("pceqw", m::pceqw)),
    (0x03, p3("pminw", m::pminw)),
    (0x04, p3("padsbh", m::padsbh)),
    (0x05, p2("pabsh", m::pabsh)),
    (0x06, p3("pceqh", m::pceqh)),
    (0x07, p3("pminh", m::pminh)),
    (0x0a, p3("pceqb", m::pceqb)),
    (0x10, p3("padduw", m::padduw)),
    (0x11, p3("psubuw", m::psubuw)),
    (0x12, p3("pextuw", m::pextuw)),
    (0x14, p3("padduh", m::padduh)),
    (0x15, p3("psubuh", m::psubuh)),
    (0x16, p3("pextuh", m::pextuh)),
    (0x18, p3("paddub", m::paddub)),
    (0x19, p3("psubub", m::psubub)),
    (0x1a, p3("pextub", m::pextub)),
    (
        0x1b,
        super::op(
            "qfsrv",
            F::RdRsRt,
            f!(MMI),
            o!(RS | RT | SA),
            o!(RD),
            m::qfsrv,
        ),
    ),
]);

/// MMI2 by sa.
static MMI2: [OpInfo; 32] = table(&[
    (0x00, pmul("pmaddw", true, m::pmaddw)),
    (
        0x02,
        super::op("psllvw", F::RdRtRs, f!(MMI), o!(RS | RT), o!(RD), m::psllvw),
    ),
    (
        0x03,
        super::op("psrlvw", F::RdRtRs, f!(MMI), o!(RS | RT), o!(RD), m::psrlvw),
    ),
    (0x04, pmul("pmsubw", true, m::pmsubw)),
    (
        0x08,
        super::op("pmfhi", F::Rd, f!(MMI), o!(HI | HI1), o!(RD), m::pmfhi),
    ),
    (
        0x09,
        super::op("pmflo", F::Rd, f!(MMI), o!(LO | LO1), o!(RD), m::pmflo),
    ),
    (0x0a, p3("pinth", m::pinth)),
    (0x0c, pmul("pmultw", false, m::pmultw)),
    (0x0d, pdiv("pdivw", m::pdivw)),
    (0x0e, p3("pcpyld", m::pcpyld)),
    (0x10, pmul("pmaddh", true, m::pmaddh)),
    (0x11, pmul("phmadh", false, m::phmadh)),
    (0x12, p3("pand", m::pand)),
    (0x13, p3("pxor", m::pxor)),
    (0x14, pmul("pmsubh", true, m::pmsubh)),
    (0x15, pmul("phmsbh", false, m::phmsbh)),
    (0x1a, p2("pexeh", m::pexeh)),
    (0x1b, p2("prevh", m::prevh)),
    (0x1c, pmul("pmulth", false, m::pmulth)),
    (0x1d, pdiv("pdivbw", m::pdivbw)),
    (0x1e, p2("pexew", m::pexew)),
    (0x1f, p2("prot3w", m::prot3w)),
]);

/// MMI3 by sa.
static MMI3: [OpInfo; 32] = table(&[
    (0x00, pmul("pmadduw", true, m::pmadduw)),
    (
        0x03,
        super::op("psravw", F::RdRtRs, f!(MMI), o!(RS | RT), o!(RD), m::psravw),
    ),
    (
        0x08,
        super::op("pmthi", F::Rs, f!(MMI), o!(RS), o!(HI | HI1), m::pmthi),
    ),
    (
        0x09,
        super::op("pmtlo", F::Rs, f!(MMI), o!(RS), o!(LO | LO1), m::pmtlo),
    ),
    (0x0a, p3("pinteh", m::pinteh)),
    (0x0c, pmul("pmultuw", false, m::pmultuw)),
    (0x0d, pdiv("pdivuw", m::pdivuw)),
    (0x0e, p3("pcpyud", m::pcpyud)),
    (0x12, p3("por", m::por)),
    (0x13, p3("pnor", m::pnor)),
    (0x1a, p2("pexch", m::pexch)),
    (0x1b, p2("pcpyh", m::pcpyh)),
    (0x1e, p2("pexcw", m::pexcw)),
]);

pub(super) fn decode(w: u32) -> &'static OpInfo {
    let s = sa(w) as usize;
    match funct(w) {
        0x08 => &MMI0[s],
        0x09 => &MMI2[s],
        0x28 => &MMI1[s],
        0x29 => &MMI3[s],
        0x30 => PMFHL.get(s).unwrap_or(&RESERVED),
        0x31 if s == 0 => &PMTHL_LW,
        0x31 => &RESERVED,
        f => &MMI[f],
    }
}
