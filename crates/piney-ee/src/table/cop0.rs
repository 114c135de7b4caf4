//! COP0 sub-tables (opcode 0x10).
//!
//! rs selects: 0 MF0 and 4 MT0 (by rd; rd 24 is the breakpoint group selected by funct 0, 2-7,
//! rd 25 the performance counters, funct bit 0 choosing PCCR (MFPS/MTPS) or PCR0/1
//! (MFPC/MTPC)), 8 BC0 (by rt), 16 C0 (TLB, ERET, EI, DI by funct).

use super::Form as F;
use super::{OpInfo, RESERVED, table};
use crate::interp::cop0 as c;
use crate::table::fields::{funct, rd, rs, rt};

static MFC0: OpInfo = super::op("mfc0", F::Cop0Move, f!(COP0), o!(COP0), o!(RT), c::mfc0);
/// MTC0 may unmask an interrupt or change the mode: it ends a block.
static MTC0: OpInfo = super::op(
    "mtc0",
    F::Cop0Move,
    f!(COP0 | ENDS_BLOCK),
    o!(RT),
    o!(COP0),
    c::mtc0,
);
static MFPS: OpInfo = super::op("mfps", F::Cop0Indexed, f!(COP0), o!(COP0), o!(RT), c::mfps);
static MTPS: OpInfo = super::op("mtps", F::Cop0Indexed, f!(COP0), o!(RT), o!(COP0), c::mtps);
static MFPC: OpInfo = super::op("mfpc", F::Cop0Indexed, f!(COP0), o!(COP0), o!(RT), c::mfpc);
static MTPC: OpInfo = super::op("mtpc", F::Cop0Indexed, f!(COP0), o!(RT), o!(COP0), c::mtpc);

const fn mfbp(m: &'static str) -> OpInfo {
    super::op(m, F::Cop0Indexed, f!(COP0), o!(COP0), o!(RT), c::mfbp)
}
const fn mtbp(m: &'static str) -> OpInfo {
    super::op(m, F::Cop0Indexed, f!(COP0), o!(RT), o!(COP0), c::mtbp)
}

/// MF0 with rd = 24, by funct (0..7).
static MF_BP: [OpInfo; 8] = table(&[
    (0, mfbp("mfbpc")),
    (2, mfbp("mfiab")),
    (3, mfbp("mfiabm")),
    (4, mfbp("mfdab")),
    (5, mfbp("mfdabm")),
    (6, mfbp("mfdvb")),
    (7, mfbp("mfdvbm")),
]);
/// MT0 with rd = 24, by funct (0..7).
static MT_BP: [OpInfo; 8] = table(&[
    (0, mtbp("mtbpc")),
    (2, mtbp("mtiab")),
    (3, mtbp("mtiabm")),
    (4, mtbp("mtdab")),
    (5, mtbp("mtdabm")),
    (6, mtbp("mtdvb")),
    (7, mtbp("mtdvbm")),
]);

const fn bc0(m: &'static str, likely: bool, e: super::ExecFn) -> OpInfo {
    let flags = if likely {
        f!(COP0 | BRANCH | DELAY_SLOT | LIKELY)
    } else {
        f!(COP0 | BRANCH | DELAY_SLOT)
    };
    super::op(m, F::Branch, flags, o!(COP0), o!(), e)
}

/// BC0 by rt.
static BC0: [OpInfo; 4] = [
    bc0("bc0f", false, c::bc0f),
    bc0("bc0t", false, c::bc0t),
    bc0("bc0fl", true, c::bc0fl),
    bc0("bc0tl", true, c::bc0tl),
];

/// C0 by funct.
static C0: [OpInfo; 64] = table(&[
    (
        0x01,
        super::op("tlbr", F::None, f!(COP0), o!(COP0), o!(COP0), c::tlbr),
    ),
    (
        0x02,
        super::op("tlbwi", F::None, f!(COP0), o!(COP0), o!(COP0), c::tlbwi),
    ),
    (
        0x06,
        super::op("tlbwr", F::None, f!(COP0), o!(COP0), o!(COP0), c::tlbwr),
    ),
    (
        0x08,
        super::op("tlbp", F::None, f!(COP0), o!(COP0), o!(COP0), c::tlbp),
    ),
    (
        0x18,
        super::op(
            "eret",
            F::None,
            f!(COP0 | ENDS_BLOCK),
            o!(COP0),
            o!(COP0),
            c::eret,
        ),
    ),
    (
        0x38,
        super::op(
            "ei",
            F::None,
            f!(COP0 | ENDS_BLOCK),
            o!(COP0),
            o!(COP0),
            c::ei,
        ),
    ),
    (
        0x39,
        super::op(
            "di",
            F::None,
            f!(COP0 | ENDS_BLOCK),
            o!(COP0),
            o!(COP0),
            c::di,
        ),
    ),
]);

pub(super) fn decode(w: u32) -> &'static OpInfo {
    match rs(w) {
        0x00 => match rd(w) {
            24 => MF_BP.get(funct(w)).unwrap_or(&RESERVED),
            25 if funct(w) & 1 == 0 => &MFPS,
            25 => &MFPC,
            _ => &MFC0,
        },
        0x04 => match rd(w) {
            24 => MT_BP.get(funct(w)).unwrap_or(&RESERVED),
            25 if funct(w) & 1 == 0 => &MTPS,
            25 => &MTPC,
            _ => &MTC0,
        },
        0x08 => BC0.get(rt(w)).unwrap_or(&RESERVED),
        0x10 => &C0[funct(w)],
        _ => &RESERVED,
    }
}
