//! The one VU micro opcode table: every instruction's mnemonic, operand form, fixed encoding
//! bits, unit restrictions and interpreter function. The decoder, the disassembler and the
//! assembler all read it.
//!
//! Encoding facts (VU User's Manual; ps2autotests `tests/vu/assemble`):
//! - A micro instruction is 64 bits: the upper word (bits 63..32) for the FMAC unit and the lower
//!   word (bits 31..0) for the integer/load/store/branch/FDIV/EFU unit.
//! - Upper word: bit 31 I (the lower word is an immediate for the I register), 30 E (end), 29 M
//!   (VU0/COP2 interlock), 28 D (debug break), 27 T (trap); 24..21 dest x,y,z,w; 20..16 ft;
//!   15..11 fs; 10..6 fd; 5..0 opcode, where 0x3C..0x3F extend the opcode with bits 10..6.
//!   The bc forms keep the broadcast lane in bits 1..0.
//! - Lower word: with bit 31 set, bits 5..0 are the opcode (0x3C..0x3F again extended by bits
//!   10..6); with bit 31 clear, bits 31..25 are the opcode (loads, stores, immediates, flags,
//!   branches).

use crate::exec;
use crate::vu::{UpperResult, Vu, VuHost};
use std::sync::OnceLock;

/// Operand layout of an instruction: what the decoder extracts, the disassembler prints and the
/// assembler parses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// Upper `op.dest fd, fs, ft`.
    FdFsFt,
    /// Upper `opbc.dest fd, fs, ftbc` (broadcast lane in bits 1..0).
    FdFsBc,
    /// Upper `op.dest fd, fs, i`.
    FdFsI,
    /// Upper `op.dest fd, fs, q`.
    FdFsQ,
    /// Upper `op.dest acc, fs, ft`.
    AccFsFt,
    /// Upper `opbc.dest acc, fs, ftbc`.
    AccFsBc,
    /// Upper `op.dest acc, fs, i`.
    AccFsI,
    /// Upper `op.dest acc, fs, q`.
    AccFsQ,
    /// `op.dest ft, fs` (ABS, FTOI, ITOF; lower MOVE, MR32).
    FtFs,
    /// Upper `clipw.xyz fs, ftw`.
    Clip,
    /// Upper `opmula.xyz acc, fs, ft`.
    OpMula,
    /// Upper `opmsub.xyz fd, fs, ft`.
    OpMsub,
    /// No operands (upper NOP, lower NOP, WAITQ, WAITP).
    None,
    /// Lower `op id, is, it`.
    IdIsIt,
    /// Lower `iaddi it, is, imm5`.
    ItIsImm5,
    /// Lower `op it, is, imm15` (IADDIU, ISUBIU).
    ItIsImm15,
    /// Lower `lq.dest ft, imm11(is)`.
    Lq,
    /// Lower `sq.dest fs, imm11(it)`.
    Sq,
    /// Lower `lqi.dest ft, (is++)`.
    Lqi,
    /// Lower `lqd.dest ft, (--is)`.
    Lqd,
    /// Lower `sqi.dest fs, (it++)`.
    Sqi,
    /// Lower `sqd.dest fs, (--it)`.
    Sqd,
    /// Lower `ilw.dest it, imm11(is)` and ISW.
    Ilw,
    /// Lower `ilwr.dest it, (is)` and ISWR.
    Ilwr,
    /// Lower `mfir.dest ft, is`.
    Mfir,
    /// Lower `mtir it, fsfsf`.
    Mtir,
    /// Lower `mfp.dest ft, p`.
    Mfp,
    /// Lower `rnext.dest ft, r` / RGET.
    RDest,
    /// Lower `rinit r, fsfsf` / RXOR.
    RSrc,
    /// Lower `div q, fsfsf, ftftf` / RSQRT.
    Div,
    /// Lower `sqrt q, ftftf`.
    Sqrt,
    /// Lower EFU scalar `op p, fsfsf`.
    EfuScalar,
    /// Lower EFU vector `op p, fs` (the dest bits are fixed).
    EfuVector,
    /// Lower `fsand it, imm12` (FSAND, FSEQ, FSOR).
    FsIt,
    /// Lower `fsset imm12`.
    Fsset,
    /// Lower `fmand it, is` (FMAND, FMEQ, FMOR).
    FmItIs,
    /// Lower `fcand vi1, imm24` (FCAND, FCEQ, FCOR: the result always goes to VI1).
    Fc,
    /// Lower `fcset imm24`.
    Fcset,
    /// Lower `fcget it`.
    Fcget,
    /// Lower `b imm11`.
    B,
    /// Lower `bal it, imm11`.
    Bal,
    /// Lower `ibeq it, is, imm11` (IBEQ, IBNE).
    BranchItIs,
    /// Lower `ibltz is, imm11` (IBLTZ, IBGTZ, IBLEZ, IBGEZ).
    BranchIs,
    /// Lower `jr is`.
    Jr,
    /// Lower `jalr it, is`.
    Jalr,
    /// Lower `xgkick is`.
    Is,
    /// Lower `xtop it` / XITOP.
    It,
}

/// Which unit executes the instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// The upper (FMAC) word.
    Upper,
    /// The lower word.
    Lower,
}

/// The interpreter function of an instruction.
#[derive(Clone, Copy)]
pub enum ExecFn {
    /// Upper: computes its result from the pre-pair state; the caller commits it after the lower
    /// instruction has run.
    Upper(fn(&Vu, u32) -> UpperResult),
    /// Lower: acts on the state directly (the upper result of the pair is not yet visible).
    Lower(fn(&mut Vu, &mut dyn VuHost, u32) -> Result<(), String>),
}

impl std::fmt::Debug for ExecFn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ExecFn::Upper(_) => "Upper(fn)",
            ExecFn::Lower(_) => "Lower(fn)",
        })
    }
}

/// Instruction properties the pipeline model needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OpFlags(pub u16);

impl OpFlags {
    /// No special properties.
    pub const NONE: OpFlags = OpFlags(0);
    /// Only VU1 has it (EFU, XGKICK, XTOP, MFP, WAITP).
    pub const VU1_ONLY: OpFlags = OpFlags(1 << 0);
    /// A branch or jump (has a delay slot).
    pub const BRANCH: OpFlags = OpFlags(1 << 1);
    /// Writes the MAC and status flags (through the 4-cycle flag pipeline).
    pub const SETS_FLAGS: OpFlags = OpFlags(1 << 2);
    /// Uses the FDIV unit (Q).
    pub const FDIV: OpFlags = OpFlags(1 << 3);
    /// Uses the EFU (P).
    pub const EFU: OpFlags = OpFlags(1 << 4);
    /// Reads the MAC/status/clip flags (excluded from the branch VI back-up rule).
    pub const READS_FLAGS: OpFlags = OpFlags(1 << 5);
    /// Whether all bits of `other` are set.
    pub const fn contains(self, other: OpFlags) -> bool {
        self.0 & other.0 == other.0
    }
    /// The union.
    pub const fn with(self, other: OpFlags) -> OpFlags {
        OpFlags(self.0 | other.0)
    }
}

/// One instruction of the table.
#[derive(Debug, Clone, Copy)]
pub struct OpInfo {
    /// Lower-case mnemonic without the dest suffix; bc forms without the lane letter.
    pub mnemonic: &'static str,
    /// The operand layout.
    pub form: Form,
    /// Upper or lower word.
    pub slot: Slot,
    /// The bits that identify the instruction (within `mask`).
    pub fixed: u32,
    /// The identifying bits.
    pub mask: u32,
    /// Bits the assembler sets that the operands do not (fixed dest or field bits).
    pub implied: u32,
    /// Pipeline properties.
    pub flags: OpFlags,
    /// Latency in cycles of a Q or P result (FDIV and EFU instructions), else 0.
    pub latency: u8,
    /// The interpreter function.
    pub exec: ExecFn,
}

const UPPER_TYPE1: u32 = 0x3F;
const EXT: u32 = 0x7FF;
const BC0: u32 = 0x3C;
const BC2: u32 = 0x7FC;
const L1: u32 = 0x8000_003F;
const L3: u32 = 0x8000_07FF;
const L7: u32 = 0xFE00_0000;
const DEST_XYZ: u32 = 0xE << 21;
const DEST_XYZW: u32 = 0xF << 21;
const DEST_XY: u32 = 0xC << 21;
const DEST_XZ: u32 = 0xA << 21;

macro_rules! up {
    ($m:expr, $form:ident, $fixed:expr, $mask:expr, $flags:expr, $f:path) => {
        upx!($m, $form, $fixed, $mask, 0, $flags, $f)
    };
}

macro_rules! upx {
    ($m:expr, $form:ident, $fixed:expr, $mask:expr, $implied:expr, $flags:expr, $f:path) => {
        OpInfo {
            mnemonic: $m,
            form: Form::$form,
            slot: Slot::Upper,
            fixed: $fixed,
            mask: $mask,
            implied: $implied,
            flags: $flags,
            latency: 0,
            exec: ExecFn::Upper($f),
        }
    };
}

macro_rules! lo {
    ($m:expr, $form:ident, $fixed:expr, $mask:expr, $flags:expr, $f:path) => {
        lox!($m, $form, $fixed, $mask, 0, $flags, 0, $f)
    };
}

macro_rules! lox {
    ($m:expr, $form:ident, $fixed:expr, $mask:expr, $implied:expr, $flags:expr, $lat:expr, $f:path) => {
        OpInfo {
            mnemonic: $m,
            form: Form::$form,
            slot: Slot::Lower,
            fixed: $fixed,
            mask: $mask,
            implied: $implied,
            flags: $flags,
            latency: $lat,
            exec: ExecFn::Lower($f),
        }
    };
}

const F: OpFlags = OpFlags::SETS_FLAGS;
const N: OpFlags = OpFlags::NONE;
const BR: OpFlags = OpFlags::BRANCH;
const RF: OpFlags = OpFlags::READS_FLAGS;
const V1: OpFlags = OpFlags::VU1_ONLY;
const EFU: OpFlags = OpFlags::EFU.with(OpFlags::VU1_ONLY);
const FDIV: OpFlags = OpFlags::FDIV;

/// Every upper instruction (the last entry is NOP).
pub static UPPER: &[OpInfo] = &[
    // Broadcast forms: bits 5..2 select the operation, bits 1..0 the lane.
    up!("add", FdFsBc, 0x00, BC0, F, exec::add_bc),
    up!("sub", FdFsBc, 0x04, BC0, F, exec::sub_bc),
    up!("madd", FdFsBc, 0x08, BC0, F, exec::madd_bc),
    up!("msub", FdFsBc, 0x0C, BC0, F, exec::msub_bc),
    up!("max", FdFsBc, 0x10, BC0, N, exec::max_bc),
    up!("mini", FdFsBc, 0x14, BC0, N, exec::mini_bc),
    up!("mul", FdFsBc, 0x18, BC0, F, exec::mul_bc),
    up!("mulq", FdFsQ, 0x1C, UPPER_TYPE1, F, exec::mul_q),
    up!("maxi", FdFsI, 0x1D, UPPER_TYPE1, N, exec::max_i),
    up!("muli", FdFsI, 0x1E, UPPER_TYPE1, F, exec::mul_i),
    up!("minii", FdFsI, 0x1F, UPPER_TYPE1, N, exec::mini_i),
    up!("addq", FdFsQ, 0x20, UPPER_TYPE1, F, exec::add_q),
    up!("maddq", FdFsQ, 0x21, UPPER_TYPE1, F, exec::madd_q),
    up!("addi", FdFsI, 0x22, UPPER_TYPE1, F, exec::add_i),
    up!("maddi", FdFsI, 0x23, UPPER_TYPE1, F, exec::madd_i),
    up!("subq", FdFsQ, 0x24, UPPER_TYPE1, F, exec::sub_q),
    up!("msubq", FdFsQ, 0x25, UPPER_TYPE1, F, exec::msub_q),
    up!("subi", FdFsI, 0x26, UPPER_TYPE1, F, exec::sub_i),
    up!("msubi", FdFsI, 0x27, UPPER_TYPE1, F, exec::msub_i),
    up!("add", FdFsFt, 0x28, UPPER_TYPE1, F, exec::add),
    up!("madd", FdFsFt, 0x29, UPPER_TYPE1, F, exec::madd),
    up!("mul", FdFsFt, 0x2A, UPPER_TYPE1, F, exec::mul),
    up!("max", FdFsFt, 0x2B, UPPER_TYPE1, N, exec::max),
    up!("sub", FdFsFt, 0x2C, UPPER_TYPE1, F, exec::sub),
    up!("msub", FdFsFt, 0x2D, UPPER_TYPE1, F, exec::msub),
    upx!(
        "opmsub",
        OpMsub,
        0x2E,
        UPPER_TYPE1,
        DEST_XYZ,
        F,
        exec::opmsub
    ),
    up!("mini", FdFsFt, 0x2F, UPPER_TYPE1, N, exec::mini),
    // Accumulator broadcast forms: bits 10..2 select the operation.
    up!("adda", AccFsBc, 0x03C, BC2, F, exec::adda_bc),
    up!("suba", AccFsBc, 0x07C, BC2, F, exec::suba_bc),
    up!("madda", AccFsBc, 0x0BC, BC2, F, exec::madda_bc),
    up!("msuba", AccFsBc, 0x0FC, BC2, F, exec::msuba_bc),
    up!("mula", AccFsBc, 0x1BC, BC2, F, exec::mula_bc),
    up!("itof0", FtFs, 0x13C, EXT, N, exec::itof0),
    up!("itof4", FtFs, 0x13D, EXT, N, exec::itof4),
    up!("itof12", FtFs, 0x13E, EXT, N, exec::itof12),
    up!("itof15", FtFs, 0x13F, EXT, N, exec::itof15),
    up!("ftoi0", FtFs, 0x17C, EXT, N, exec::ftoi0),
    up!("ftoi4", FtFs, 0x17D, EXT, N, exec::ftoi4),
    up!("ftoi12", FtFs, 0x17E, EXT, N, exec::ftoi12),
    up!("ftoi15", FtFs, 0x17F, EXT, N, exec::ftoi15),
    up!("mulaq", AccFsQ, 0x1FC, EXT, F, exec::mula_q),
    up!("abs", FtFs, 0x1FD, EXT, N, exec::abs),
    up!("mulai", AccFsI, 0x1FE, EXT, F, exec::mula_i),
    upx!("clipw", Clip, 0x1FF, EXT, DEST_XYZ, N, exec::clip),
    up!("addaq", AccFsQ, 0x23C, EXT, F, exec::adda_q),
    up!("maddaq", AccFsQ, 0x23D, EXT, F, exec::madda_q),
    up!("addai", AccFsI, 0x23E, EXT, F, exec::adda_i),
    up!("maddai", AccFsI, 0x23F, EXT, F, exec::madda_i),
    up!("subaq", AccFsQ, 0x27C, EXT, F, exec::suba_q),
    up!("msubaq", AccFsQ, 0x27D, EXT, F, exec::msuba_q),
    up!("subai", AccFsI, 0x27E, EXT, F, exec::suba_i),
    up!("msubai", AccFsI, 0x27F, EXT, F, exec::msuba_i),
    up!("adda", AccFsFt, 0x2BC, EXT, F, exec::adda),
    up!("madda", AccFsFt, 0x2BD, EXT, F, exec::madda),
    up!("mula", AccFsFt, 0x2BE, EXT, F, exec::mula),
    up!("suba", AccFsFt, 0x2FC, EXT, F, exec::suba),
    up!("msuba", AccFsFt, 0x2FD, EXT, F, exec::msuba),
    upx!("opmula", OpMula, 0x2FE, EXT, DEST_XYZ, F, exec::opmula),
    up!("nop", None, 0x2FF, EXT, N, exec::unop),
];

/// Every lower instruction. The lower NOP (`MOVE` with an empty dest and VF0, 0x8000033C) comes
/// first so that it decodes and disassembles as `nop`.
pub static LOWER: &[OpInfo] = &[
    lo!("nop", None, 0x8000_033C, 0xFFFF_FFFF, N, exec::lnop),
    lo!("iadd", IdIsIt, 0x8000_0030, L1, N, exec::iadd),
    lo!("isub", IdIsIt, 0x8000_0031, L1, N, exec::isub),
    lo!("iaddi", ItIsImm5, 0x8000_0032, L1, N, exec::iaddi),
    lo!("iand", IdIsIt, 0x8000_0034, L1, N, exec::iand),
    lo!("ior", IdIsIt, 0x8000_0035, L1, N, exec::ior),
    lo!("move", FtFs, 0x8000_033C, L3, N, exec::mov),
    lo!("mr32", FtFs, 0x8000_033D, L3, N, exec::mr32),
    lo!("lqi", Lqi, 0x8000_037C, L3, N, exec::lqi),
    lo!("sqi", Sqi, 0x8000_037D, L3, N, exec::sqi),
    lo!("lqd", Lqd, 0x8000_037E, L3, N, exec::lqd),
    lo!("sqd", Sqd, 0x8000_037F, L3, N, exec::sqd),
    lox!("div", Div, 0x8000_03BC, L3, 0, FDIV, 7, exec::div),
    lox!("sqrt", Sqrt, 0x8000_03BD, L3, 0, FDIV, 7, exec::sqrt),
    lox!("rsqrt", Div, 0x8000_03BE, L3, 0, FDIV, 13, exec::rsqrt),
    lo!("waitq", None, 0x8000_03BF, L3, N, exec::lnop),
    lo!("mtir", Mtir, 0x8000_03FC, L3, N, exec::mtir),
    lo!("mfir", Mfir, 0x8000_03FD, L3, N, exec::mfir),
    lo!("ilwr", Ilwr, 0x8000_03FE, L3, N, exec::ilwr),
    lo!("iswr", Ilwr, 0x8000_03FF, L3, N, exec::iswr),
    lo!("rnext", RDest, 0x8000_043C, L3, N, exec::rnext),
    lo!("rget", RDest, 0x8000_043D, L3, N, exec::rget),
    lo!("rinit", RSrc, 0x8000_043E, L3, N, exec::rinit),
    lo!("rxor", RSrc, 0x8000_043F, L3, N, exec::rxor),
    lo!("mfp", Mfp, 0x8000_067C, L3, V1, exec::mfp),
    lo!("xtop", It, 0x8000_06BC, L3, V1, exec::xtop),
    // XITOP exists on both VUs: VU0 reads VIF0's ITOP (PCSX2 _vuXITOP).
    lo!("xitop", It, 0x8000_06BD, L3, N, exec::xitop),
    lo!("xgkick", Is, 0x8000_06FC, L3, V1, exec::xgkick),
    // EFU latencies (cycles until P is readable) from the VU User's Manual.
    lox!(
        "esadd",
        EfuVector,
        0x8000_073C,
        L3,
        DEST_XYZ,
        EFU,
        11,
        exec::esadd
    ),
    lox!(
        "ersadd",
        EfuVector,
        0x8000_073D,
        L3,
        DEST_XYZ,
        EFU,
        18,
        exec::ersadd
    ),
    lox!(
        "eleng",
        EfuVector,
        0x8000_073E,
        L3,
        DEST_XYZ,
        EFU,
        18,
        exec::eleng
    ),
    lox!(
        "erleng",
        EfuVector,
        0x8000_073F,
        L3,
        DEST_XYZ,
        EFU,
        24,
        exec::erleng
    ),
    lox!(
        "eatanxy",
        EfuVector,
        0x8000_077C,
        L3,
        DEST_XY,
        EFU,
        54,
        exec::eatanxy
    ),
    lox!(
        "eatanxz",
        EfuVector,
        0x8000_077D,
        L3,
        DEST_XZ,
        EFU,
        54,
        exec::eatanxz
    ),
    lox!(
        "esum",
        EfuVector,
        0x8000_077E,
        L3,
        DEST_XYZW,
        EFU,
        12,
        exec::esum
    ),
    lox!("esqrt", EfuScalar, 0x8000_07BC, L3, 0, EFU, 12, exec::esqrt),
    lox!(
        "ersqrt",
        EfuScalar,
        0x8000_07BD,
        L3,
        0,
        EFU,
        18,
        exec::ersqrt
    ),
    lox!("ercpr", EfuScalar, 0x8000_07BE, L3, 0, EFU, 12, exec::ercpr),
    lo!("waitp", None, 0x8000_07BF, L3, V1, exec::lnop),
    lox!("esin", EfuScalar, 0x8000_07FC, L3, 0, EFU, 29, exec::esin),
    lox!("eatan", EfuScalar, 0x8000_07FD, L3, 0, EFU, 54, exec::eatan),
    lox!("eexp", EfuScalar, 0x8000_07FE, L3, 0, EFU, 44, exec::eexp),
    lo!("lq", Lq, 0x00 << 25, L7, N, exec::lq),
    lo!("sq", Sq, 0x01 << 25, L7, N, exec::sq),
    lo!("ilw", Ilw, 0x04 << 25, L7, N, exec::ilw),
    lo!("isw", Ilw, 0x05 << 25, L7, N, exec::isw),
    lo!("iaddiu", ItIsImm15, 0x08 << 25, L7, N, exec::iaddiu),
    lo!("isubiu", ItIsImm15, 0x09 << 25, L7, N, exec::isubiu),
    lo!("fceq", Fc, 0x10 << 25, L7, RF, exec::fceq),
    lo!("fcset", Fcset, 0x11 << 25, L7, N, exec::fcset),
    lo!("fcand", Fc, 0x12 << 25, L7, RF, exec::fcand),
    lo!("fcor", Fc, 0x13 << 25, L7, RF, exec::fcor),
    lo!("fseq", FsIt, 0x14 << 25, L7, RF, exec::fseq),
    lo!("fsset", Fsset, 0x15 << 25, L7, N, exec::fsset),
    lo!("fsand", FsIt, 0x16 << 25, L7, RF, exec::fsand),
    lo!("fsor", FsIt, 0x17 << 25, L7, RF, exec::fsor),
    lo!("fmeq", FmItIs, 0x18 << 25, L7, RF, exec::fmeq),
    lo!("fmand", FmItIs, 0x1A << 25, L7, RF, exec::fmand),
    lo!("fmor", FmItIs, 0x1B << 25, L7, RF, exec::fmor),
    lo!("fcget", Fcget, 0x1C << 25, L7, RF, exec::fcget),
    lo!("b", B, 0x20 << 25, L7, BR, exec::b),
    lo!("bal", Bal, 0x21 << 25, L7, BR, exec::bal),
    lo!("jr", Jr, 0x24 << 25, L7, BR, exec::jr),
    lo!("jalr", Jalr, 0x25 << 25, L7, BR, exec::jalr),
    lo!("ibeq", BranchItIs, 0x28 << 25, L7, BR, exec::ibeq),
    lo!("ibne", BranchItIs, 0x29 << 25, L7, BR, exec::ibne),
    lo!("ibltz", BranchIs, 0x2C << 25, L7, BR, exec::ibltz),
    lo!("ibgtz", BranchIs, 0x2D << 25, L7, BR, exec::ibgtz),
    lo!("iblez", BranchIs, 0x2E << 25, L7, BR, exec::iblez),
    lo!("ibgez", BranchIs, 0x2F << 25, L7, BR, exec::ibgez),
];

struct Lookup {
    /// Upper: index by bits 10..0.
    upper: Vec<Option<u16>>,
    /// Lower with bit 31 set: index by bits 10..0.
    lower_a: Vec<Option<u16>>,
    /// Lower with bit 31 clear: index by bits 31..25.
    lower_b: Vec<Option<u16>>,
}

fn lookup() -> &'static Lookup {
    static L: OnceLock<Lookup> = OnceLock::new();
    L.get_or_init(|| {
        // An entry serves a key when all its identifying bits lie inside the key and match.
        let find = |table: &[OpInfo], word: u32, key_mask: u32| {
            table
                .iter()
                .position(|op| {
                    op.mask != 0xFFFF_FFFF
                        && op.mask & !key_mask == 0
                        && (word & op.mask) == op.fixed
                })
                .map(|i| i as u16)
        };
        Lookup {
            upper: (0..2048u32).map(|k| find(UPPER, k, 0x7FF)).collect(),
            lower_a: (0..2048u32)
                .map(|k| find(LOWER, 0x8000_0000 | k, 0x8000_07FF))
                .collect(),
            lower_b: (0..128u32)
                .map(|k| find(LOWER, k << 25, 0xFE00_0000))
                .collect(),
        }
    })
}

/// Decode an upper word.
pub fn decode_upper(word: u32) -> Option<&'static OpInfo> {
    lookup().upper[(word & 0x7FF) as usize].map(|i| &UPPER[i as usize])
}

/// Decode a lower word (not valid when the pair's I bit is set: then it is an immediate).
pub fn decode_lower(word: u32) -> Option<&'static OpInfo> {
    if word == LOWER[0].fixed {
        return Some(&LOWER[0]);
    }
    let i = if word & 0x8000_0000 != 0 {
        lookup().lower_a[(word & 0x7FF) as usize]
    } else {
        lookup().lower_b[(word >> 25) as usize]
    };
    i.map(|i| &LOWER[i as usize])
}

/// Decoded operand fields of a word (all forms share the field positions).
#[derive(Debug, Clone, Copy)]
pub struct Fields {
    /// Dest mask as lanes: bit 0 = x .. bit 3 = w.
    pub lanes: u8,
    /// The raw dest field (bit 3 = x).
    pub dest: u32,
    /// Bits 20..16.
    pub ft: usize,
    /// Bits 15..11.
    pub fs: usize,
    /// Bits 10..6.
    pub fd: usize,
    /// Broadcast lane, bits 1..0.
    pub bc: usize,
    /// Lower fsf (bits 22..21).
    pub fsf: usize,
    /// Lower ftf (bits 24..23).
    pub ftf: usize,
    /// Sign-extended imm11 (bits 10..0).
    pub imm11: i32,
    /// Sign-extended imm5 (bits 10..6).
    pub imm5: i32,
    /// imm15: bits 24..21 above bits 10..0.
    pub imm15: u32,
    /// imm24 (bits 23..0).
    pub imm24: u32,
}

impl Fields {
    /// Extract every field of `word`.
    pub fn of(word: u32) -> Fields {
        let dest = (word >> 21) & 0xF;
        let lanes =
            (((dest >> 3) & 1) | ((dest >> 1) & 2) | ((dest << 1) & 4) | ((dest << 3) & 8)) as u8;
        Fields {
            lanes,
            dest,
            ft: ((word >> 16) & 0x1F) as usize,
            fs: ((word >> 11) & 0x1F) as usize,
            fd: ((word >> 6) & 0x1F) as usize,
            bc: (word & 3) as usize,
            fsf: ((word >> 21) & 3) as usize,
            ftf: ((word >> 23) & 3) as usize,
            imm11: ((word << 21) as i32) >> 21,
            imm5: ((word << 21) as i32) >> 27,
            imm15: (word & 0x7FF) | ((word >> 10) & 0x7800),
            imm24: word & 0x00FF_FFFF,
        }
    }
}

/// Up to two VF reads of an instruction as (register, lane mask) for the stall check.
pub fn vf_reads(op: &OpInfo, word: u32) -> [(usize, u8); 2] {
    let f = Fields::of(word);
    let lane = |l: usize| 1u8 << l;
    match op.form {
        Form::FdFsFt | Form::AccFsFt => [(f.fs, f.lanes), (f.ft, f.lanes)],
        Form::FdFsBc | Form::AccFsBc => [(f.fs, f.lanes), (f.ft, lane(f.bc))],
        Form::FdFsI | Form::FdFsQ | Form::AccFsI | Form::AccFsQ => [(f.fs, f.lanes), (0, 0)],
        Form::FtFs => {
            if op.mnemonic == "mr32" {
                [(f.fs, 0xF), (0, 0)]
            } else {
                [(f.fs, f.lanes), (0, 0)]
            }
        }
        Form::Clip => [(f.fs, 7), (f.ft, 8)],
        Form::OpMula | Form::OpMsub => [(f.fs, 7), (f.ft, 7)],
        Form::Sq | Form::Sqi | Form::Sqd => [(f.fs, f.lanes), (0, 0)],
        Form::Mtir | Form::RSrc | Form::EfuScalar => [(f.fs, lane(f.fsf)), (0, 0)],
        Form::Div => [(f.fs, lane(f.fsf)), (f.ft, lane(f.ftf))],
        Form::Sqrt => [(f.ft, lane(f.ftf)), (0, 0)],
        Form::EfuVector => [(f.fs, f.lanes), (0, 0)],
        _ => [(0, 0), (0, 0)],
    }
}

/// The VF register a lower instruction writes, with its lanes (for the 4-cycle result latency).
pub fn lower_vf_write(op: &OpInfo, word: u32) -> Option<(usize, u8)> {
    let f = Fields::of(word);
    match op.form {
        Form::FtFs | Form::Lq | Form::Lqi | Form::Lqd | Form::Mfir | Form::Mfp | Form::RDest => {
            Some((f.ft, f.lanes))
        }
        _ => None,
    }
}

/// The VI register a lower instruction writes (for the branch VI back-up rule).
pub fn lower_vi_write(op: &OpInfo, word: u32) -> Option<usize> {
    let f = Fields::of(word);
    let r = match op.form {
        Form::IdIsIt => f.fd & 0xF,
        Form::ItIsImm5
        | Form::ItIsImm15
        | Form::Mtir
        | Form::It
        | Form::FsIt
        | Form::FmItIs
        | Form::Fcget => f.ft & 0xF,
        Form::Ilw | Form::Ilwr if op.mnemonic.starts_with("ilw") => f.ft & 0xF,
        Form::Lqi | Form::Lqd => f.fs & 0xF,
        Form::Sqi | Form::Sqd => f.ft & 0xF,
        Form::Fc => 1,
        Form::Bal | Form::Jalr => f.ft & 0xF,
        _ => return None,
    };
    (r != 0).then_some(r)
}
