//! The one opcode table of the R5900.
//!
//! The table is nested the way the encoding is: the primary opcode (bits 26-31) selects an entry
//! of [`PRIMARY`] or a sub-table (SPECIAL by funct, REGIMM by rt, MMI by funct and its MMI0..3
//! sub-tables by sa, COP0/COP1/COP2 by rs and funct). Every leaf is an [`OpInfo`]: all the facts
//! about one instruction. [`decode`] walks it; the interpreter calls `exec`; the disassembler
//! formats by `form`; block analysis reads `flags`, `reads` and `writes`.
//!
//! Family files own their sub-tables: `integer` (primary, SPECIAL, REGIMM), `cop0`, `mmi`, `cop1`,
//! `cop2`.

use crate::bus::Bus;
use crate::cpu::Cpu;
use crate::exception::{Exception, ExceptionKind};

// The family files build their entries in const context with these two; defined before the
// `mod` lines so that they are in scope there.
/// Operand set from flag names: `o!(RS | RT)`.
macro_rules! o {
    () => { $crate::table::Operands::empty() };
    ($($f:ident)|+) => {
        $crate::table::Operands::empty()$(.union($crate::table::Operands::$f))+
    };
}
/// Op flags from names: `f!(BRANCH | DELAY_SLOT)`.
macro_rules! f {
    () => { $crate::table::OpFlags::empty() };
    ($($f:ident)|+) => {
        $crate::table::OpFlags::empty()$(.union($crate::table::OpFlags::$f))+
    };
}

mod cop0;
mod cop1;
mod cop2;
mod integer;
mod mmi;
mod ops;

pub use ops::Op;

/// The COP1 family's formatter, for the disassembler's [`Form::Fpu`] entries.
pub(crate) use cop1::disasm as cop1_disasm;
/// The COP2 family's formatter, for the disassembler's [`Form::Vu`] entries.
pub(crate) use cop2::disasm as cop2_disasm;

/// The interpreter function of an instruction: state, memory, the instruction word.
pub type ExecFn = fn(&mut Cpu, &mut dyn Bus, u32) -> Result<(), Exception>;

bitflags::bitflags! {
    /// What kind of instruction this is, for block analysis, the recompiler and its kill switches.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct OpFlags: u32 {
        /// A branch or jump: ends a block after its delay slot.
        const BRANCH = 1 << 0;
        /// Branch-likely: the delay slot is nullified when not taken.
        const LIKELY = 1 << 1;
        /// Writes a return address (JAL, JALR, BGEZAL...).
        const LINK = 1 << 2;
        /// Has a delay slot.
        const DELAY_SLOT = 1 << 3;
        /// Reads memory.
        const LOAD = 1 << 4;
        /// Writes memory.
        const STORE = 1 << 5;
        /// An MMI (128-bit multimedia) instruction.
        const MMI = 1 << 6;
        /// A COP0 instruction.
        const COP0 = 1 << 7;
        /// A COP1 (FPU) instruction.
        const COP1 = 1 << 8;
        /// A COP2 (VU0 macro) instruction.
        const COP2 = 1 << 9;
        /// May raise an exception by design (SYSCALL, BREAK, traps, overflow).
        const MAY_TRAP = 1 << 10;
        /// Ends a block without a delay slot (SYSCALL, BREAK, ERET, SYNC.P...).
        const ENDS_BLOCK = 1 << 11;
        /// Reserved encoding or not implemented.
        const RESERVED = 1 << 12;
    }
}

bitflags::bitflags! {
    /// Registers an instruction reads or writes, by operand field.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct Operands: u32 {
        /// GPR in the rs field (bits 21-25).
        const RS = 1 << 0;
        /// GPR in the rt field (bits 16-20).
        const RT = 1 << 1;
        /// GPR in the rd field (bits 11-15).
        const RD = 1 << 2;
        /// GPR 31 (link register).
        const RA = 1 << 3;
        /// HI (bits 0-63).
        const HI = 1 << 4;
        /// LO (bits 0-63).
        const LO = 1 << 5;
        /// HI1 (bits 64-127 of HI).
        const HI1 = 1 << 6;
        /// LO1 (bits 64-127 of LO).
        const LO1 = 1 << 7;
        /// The SA register.
        const SA = 1 << 8;
        /// FPR in the fs field (bits 11-15).
        const FS = 1 << 9;
        /// FPR in the ft field (bits 16-20).
        const FT = 1 << 10;
        /// FPR in the fd field (bits 6-10).
        const FD = 1 << 11;
        /// The FPU accumulator.
        const FACC = 1 << 12;
        /// FCR31 (condition and flags).
        const FCR31 = 1 << 13;
        /// A COP0 register.
        const COP0 = 1 << 14;
        /// VU0 VF registers (fs, ft, fd fields).
        const VF = 1 << 15;
        /// VU0 VI registers.
        const VI = 1 << 16;
        /// VU0 accumulator.
        const VACC = 1 << 17;
        /// VU0 Q, P, R, I registers.
        const VSPECIAL = 1 << 18;
        /// VU0 MAC, status or clip flags.
        const VFLAGS = 1 << 19;
        /// Memory.
        const MEM = 1 << 20;
    }
}

/// The operand layout, for the disassembler.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// No operands (`nop`, `sync`, `eret`, `tlbwi`).
    None,
    /// `rd, rs, rt`.
    RdRsRt,
    /// `rd, rt, rs` (variable shifts).
    RdRtRs,
    /// `rd, rt, sa`.
    RdRtSa,
    /// `rd, rs` (`jalr`, `plzcw`).
    RdRs,
    /// `rd, rt` (MMI unary: `pabsw`, `pexch`...).
    RdRt,
    /// `rd` (`mfhi`, `mfsa`, `pmfhl.lw`).
    Rd,
    /// `rs` (`jr`, `mthi`, `mtsa`).
    Rs,
    /// `rs, rt` (`mult` without rd, `div`, traps).
    RsRt,
    /// `rt, rs, imm` signed.
    RtRsImm,
    /// `rt, rs, imm` unsigned, shown in hex (`andi`, `ori`, `xori`).
    RtRsUimm,
    /// `rt, imm` (`lui`).
    RtImm,
    /// `rs, imm` (trap-immediates, `mtsab`, `mtsah`).
    RsImm,
    /// `rs, rt, target` (`beq`, `bne`).
    BranchRsRt,
    /// `rs, target` (`bgez`, `blez`...).
    BranchRs,
    /// `target` (`bc0f`, `bc1t`, `bc2f`...).
    Branch,
    /// `target` (`j`, `jal`).
    Jump,
    /// `rt, offset(base)`.
    Mem,
    /// `hint, offset(base)` (`pref`) or `op, offset(base)` (`cache`).
    MemHint,
    /// `code` (`syscall`, `break`).
    Code,
    /// `rt, cop0 register` (`mfc0`, `mtc0`).
    Cop0Move,
    /// `rt, index` (`mfbpc`, `mfpc`, `mfps`...).
    Cop0Indexed,
    /// A COP1 form, formatted by the COP1 family.
    Fpu(FpuForm),
    /// A COP2 (VU0 macro) form, formatted by the COP2 family.
    Vu(VuForm),
}

/// COP1 operand layouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FpuForm {
    /// `fd, fs, ft`.
    FdFsFt,
    /// `fd, fs`.
    FdFs,
    /// `fs, ft` (compare, accumulator ops).
    FsFt,
    /// `fd, ft` (`sqrt.s`).
    FdFt,
    /// `rt, fs` (`mfc1`, `mtc1`).
    RtFs,
    /// `rt, fcr` (`cfc1`, `ctc1`).
    RtFcr,
    /// `ft, offset(base)` (`lwc1`, `swc1`).
    Mem,
}

/// COP2 (VU0 macro mode) operand layouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VuForm {
    /// `.dest vfd, vfs, vft`.
    FdFsFt,
    /// `.dest vfd, vfs, vft.bc` (broadcast).
    FdFsFtBc,
    /// `.dest vfd, vfs, q|i`.
    FdFsSpecial,
    /// `.dest acc, vfs, vft`.
    AccFsFt,
    /// `.dest acc, vfs, vft.bc`.
    AccFsFtBc,
    /// `.dest acc, vfs, q|i`.
    AccFsSpecial,
    /// `.dest vft, vfs` (`vmove`, `vftoi0`, `vabs`...).
    FtFs,
    /// `vfs, vft` (`vclip`).
    FsFt,
    /// `q, vfs.fsf, vft.ftf` (`vdiv`, `vrsqrt`) or `q, vft.ftf` (`vsqrt`).
    Div,
    /// `vid, vis, vit`.
    IdIsIt,
    /// `vit, vis, imm5` (`viaddi`).
    ItIsImm,
    /// `.dest vft, (vis++)` / `(--vis)` (`vlqi`, `vsqi`, `vlqd`, `vsqd`) and `vilwr`/`viswr`.
    FtIs,
    /// `vit, vfs.fsf` (`vmtir`) or `vft.dest, vis` (`vmfir`).
    IntFloat,
    /// `.dest vft, r` / `r, vfs.fsf` (`vrnext`, `vrget`, `vrinit`, `vrxor`).
    Random,
    /// `rt, vfd` (`qmfc2`, `qmtc2`).
    RtVf,
    /// `rt, vi` (`cfc2`, `ctc2`).
    RtVi,
    /// `vft, offset(base)` (`lqc2`, `sqc2`).
    Mem,
    /// `imm15` (`vcallms`).
    Imm15,
    /// No operands (`vnop`, `vwaitq`, `vcallmsr`).
    None,
}

/// Everything about one instruction.
#[derive(Clone, Copy)]
pub struct OpInfo {
    /// The mnemonic, lower case, as binutils spells it.
    pub mnemonic: &'static str,
    /// The instruction by kind, for the recompiler's dispatch ([`Op::Other`] for those it
    /// does not tell apart); derived from the mnemonic.
    pub op: Op,
    /// The operand layout.
    pub form: Form,
    /// What kind of instruction.
    pub flags: OpFlags,
    /// Registers read.
    pub reads: Operands,
    /// Registers written.
    pub writes: Operands,
    /// Issue cost in CPU cycles (the interpreter's timing model).
    pub cycles: u8,
    /// The reference semantics.
    pub exec: ExecFn,
}

impl std::fmt::Debug for OpInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpInfo")
            .field("mnemonic", &self.mnemonic)
            .field("form", &self.form)
            .finish()
    }
}

/// The interpreter function of reserved encodings.
pub fn reserved(_: &mut Cpu, _: &mut dyn Bus, _: u32) -> Result<(), Exception> {
    Err(Exception::new(ExceptionKind::Reserved))
}

/// The entry for a reserved (or not yet implemented) encoding.
pub const RESERVED: OpInfo = OpInfo {
    mnemonic: "(reserved)",
    op: Op::Other,
    form: Form::None,
    flags: OpFlags::RESERVED,
    reads: Operands::empty(),
    writes: Operands::empty(),
    cycles: 1,
    exec: reserved,
};

/// Shorthand for a table entry with a one-cycle cost.
pub const fn op(
    mnemonic: &'static str,
    form: Form,
    flags: OpFlags,
    reads: Operands,
    writes: Operands,
    exec: ExecFn,
) -> OpInfo {
    OpInfo {
        mnemonic,
        op: Op::of(mnemonic),
        form,
        flags,
        reads,
        writes,
        cycles: 1,
        exec,
    }
}

impl OpInfo {
    /// The same entry with another cycle cost.
    pub const fn cost(mut self, cycles: u8) -> OpInfo {
        self.cycles = cycles;
        self
    }
}

/// Build a sub-table of `N` entries from `(index, entry)` pairs; the rest are [`RESERVED`].
pub const fn table<const N: usize>(entries: &[(usize, OpInfo)]) -> [OpInfo; N] {
    let mut t = [RESERVED; N];
    let mut i = 0;
    while i < entries.len() {
        t[entries[i].0] = entries[i].1;
        i += 1;
    }
    t
}

/// The instruction word's fields.
pub mod fields {
    /// Primary opcode, bits 26-31.
    #[inline]
    pub const fn opcode(w: u32) -> usize {
        (w >> 26) as usize
    }
    /// rs, bits 21-25.
    #[inline]
    pub const fn rs(w: u32) -> usize {
        ((w >> 21) & 31) as usize
    }
    /// rt, bits 16-20.
    #[inline]
    pub const fn rt(w: u32) -> usize {
        ((w >> 16) & 31) as usize
    }
    /// rd, bits 11-15.
    #[inline]
    pub const fn rd(w: u32) -> usize {
        ((w >> 11) & 31) as usize
    }
    /// sa, bits 6-10.
    #[inline]
    pub const fn sa(w: u32) -> u32 {
        (w >> 6) & 31
    }
    /// funct, bits 0-5.
    #[inline]
    pub const fn funct(w: u32) -> usize {
        (w & 63) as usize
    }
    /// The 16-bit immediate, sign-extended.
    #[inline]
    pub const fn simm(w: u32) -> i32 {
        w as u16 as i16 as i32
    }
    /// The 16-bit immediate, zero-extended.
    #[inline]
    pub const fn uimm(w: u32) -> u32 {
        w & 0xffff
    }
    /// The 26-bit jump target field.
    #[inline]
    pub const fn target(w: u32) -> u32 {
        w & 0x03ff_ffff
    }
    /// fs (COP1), bits 11-15.
    #[inline]
    pub const fn fs(w: u32) -> usize {
        rd(w)
    }
    /// ft (COP1), bits 16-20.
    #[inline]
    pub const fn ft(w: u32) -> usize {
        rt(w)
    }
    /// fd (COP1), bits 6-10.
    #[inline]
    pub const fn fd(w: u32) -> usize {
        sa(w) as usize
    }
}

/// Decode an instruction word to its table entry. Never fails: unknown encodings give [`RESERVED`].
#[inline]
pub fn decode(word: u32) -> &'static OpInfo {
    use fields::*;
    match opcode(word) {
        0x00 => &integer::SPECIAL[funct(word)],
        0x01 => &integer::REGIMM[rt(word)],
        0x10 => cop0::decode(word),
        0x11 => cop1::decode(word),
        0x12 => cop2::decode(word),
        0x1c => mmi::decode(word),
        op => &integer::PRIMARY[op],
    }
}
