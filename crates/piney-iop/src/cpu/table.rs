//! The one opcode table of the R3000A (the IOP's MIPS I set).
//!
//! Contract: the table is nested the way the encoding is. The primary opcode (bits 26-31)
//! selects an entry of `PRIMARY` or a sub-table: SPECIAL by funct (bits 0-5), REGIMM by rt (the
//! R3000A's rule below), COP0 by rs (bits 21-25) and, for rs >= 16, by funct. Every leaf is an
//! [`OpInfo`] holding all the facts about one instruction; [`decode`] walks the table and never
//! fails (reserved encodings give an entry flagged [`OpFlags::RESERVED`] whose `exec` raises the
//! reserved instruction exception). The interpreter calls `exec`, the disassembler formats by
//! `form`, block analysis reads `flags`, `reads` and `writes`. [`entries`] lists every
//! instruction once with an encoding of it. Nothing else in the crate lists instructions.
//!
//! Decoding facts (psx-spx "CPU Opcode Encoding", DuckStation src/core/cpu_core.cpp):
//! - REGIMM: every rt decodes. Bit 16 picks BGEZ (1) or BLTZ (0); the branch links when bits
//!   17-20 are 0b1000 (rt = 0x10, 0x11). So rt = 0x02 is BLTZ, 0x13 is BGEZ, 0x12 BLTZ (no link).
//! - COP0: MFC0 (rs 0) and MTC0 (rs 4); RFE (CO, funct 0x10). CFC0/CTC0, the TLB operations and
//!   every other COP0 encoding are reserved (RI). BC0F/BC0T (rs 8) and LWC0/SWC0 raise
//!   coprocessor unusable even in kernel mode (psx-spx "COP0 - Misc").
//! - COP2, LWC2, SWC2: the PS2's IOP carries the PS1's GTE for PS1 mode (PCSX2's
//!   R3000AOpcodeTables.cpp decodes them to its GTE); piney does not model it. With SR.CU2
//!   clear (as IOP software leaves it) they raise coprocessor unusable with CE = 2, as the
//!   R3000A does (DuckStation); with CU2 set they raise reserved instruction, naming the
//!   missing GTE.
//! - COP1, COP3, LWC1, LWC3, SWC1, SWC3: no coprocessor answers; the R3000A executes them as
//!   no-ops (as DuckStation models them).
//!
//! Cycle model (deterministic, one cost per entry): 1 per instruction, memory accesses
//! included; MULT/MULTU cost [`MUL_CYCLES`] and DIV/DIVU [`DIV_CYCLES`], the time until HI/LO
//! are ready (the IOP interlocks a following MFHI/MFLO; the cost is charged at the multiply).

use super::Cpu;
use super::bus::Bus;
use super::exception::Exception;
use super::interp as i;

/// Cost of MULT/MULTU: psx-spx gives 6, 9 or 13 cycles by the size of rs (|rs| < 2^11, < 2^20,
/// larger); the middle one is charged.
pub const MUL_CYCLES: u8 = 9;
/// Cost of DIV/DIVU: 36 cycles whatever the operands (psx-spx).
pub const DIV_CYCLES: u8 = 36;

/// The interpreter function of an instruction: state, memory, the instruction word. It checks
/// for its exception before it changes anything, so a faulting instruction has no effect.
pub type ExecFn = fn(&mut Cpu, &mut dyn Bus, u32) -> Result<(), Exception>;

bitflags::bitflags! {
    /// What kind of instruction this is, for block analysis and a recompiler.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct OpFlags: u16 {
        /// A branch or jump: a block ends after its delay slot.
        const BRANCH = 1 << 0;
        /// Writes a return address (JAL, JALR, BLTZAL, BGEZAL), before its delay slot runs.
        const LINK = 1 << 1;
        /// Has a delay slot.
        const DELAY_SLOT = 1 << 2;
        /// Reads memory.
        const LOAD = 1 << 3;
        /// Writes memory.
        const STORE = 1 << 4;
        /// A COP0 instruction.
        const COP0 = 1 << 5;
        /// Raises an exception by design, or under a mode condition (SYSCALL, BREAK, overflow,
        /// coprocessor unusable).
        const MAY_TRAP = 1 << 6;
        /// Ends a block without a delay slot (SYSCALL, BREAK, MTC0, RFE).
        const ENDS_BLOCK = 1 << 7;
        /// A reserved encoding: raises the reserved instruction exception.
        const RESERVED = 1 << 8;
    }
}

bitflags::bitflags! {
    /// Registers an instruction reads or writes, by operand field.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct Operands: u16 {
        /// GPR in the rs field (bits 21-25).
        const RS = 1 << 0;
        /// GPR in the rt field (bits 16-20).
        const RT = 1 << 1;
        /// GPR in the rd field (bits 11-15).
        const RD = 1 << 2;
        /// GPR 31, the link register.
        const RA = 1 << 3;
        /// HI.
        const HI = 1 << 4;
        /// LO.
        const LO = 1 << 5;
        /// A COP0 register (rd field for MFC0/MTC0; SR for RFE).
        const COP0 = 1 << 6;
        /// Memory.
        const MEM = 1 << 7;
    }
}

/// The operand layout, for the disassembler.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// No operands (`rfe`).
    None,
    /// `rd, rs, rt`.
    RdRsRt,
    /// `rd, rt, rs` (variable shifts).
    RdRtRs,
    /// `rd, rt, sa`.
    RdRtSa,
    /// `rd, rs` (`jalr`; just `rs` when rd is `$ra`).
    RdRs,
    /// `rd` (`mfhi`, `mflo`).
    Rd,
    /// `rs` (`jr`, `mthi`, `mtlo`).
    Rs,
    /// `rs, rt` (`mult`, `div`...).
    RsRt,
    /// `rt, rs, imm`, signed.
    RtRsImm,
    /// `rt, rs, imm`, unsigned, in hexadecimal (`andi`, `ori`, `xori`).
    RtRsUimm,
    /// `rt, imm` (`lui`).
    RtImm,
    /// `rs, rt, target` (`beq`, `bne`).
    BranchRsRt,
    /// `rs, target` (`blez`, `bgez`...).
    BranchRs,
    /// `target` (`bc0f`, `bc0t`).
    Branch,
    /// `target` (`j`, `jal`).
    Jump,
    /// `rt, offset(base)`.
    Mem,
    /// `code` (`syscall`, `break`).
    Code,
    /// `rt, $rd` (`mfc0`, `mtc0`).
    Cop0Move,
    /// `imm25` (`cop1`, `cop2`, `cop3`).
    CopImm,
    /// `$rt, offset(base)` with rt a coprocessor register (`lwc2`, `swc0`...).
    CopMem,
}

/// Everything about one instruction.
#[derive(Clone, Copy)]
pub struct OpInfo {
    /// The mnemonic, lower case, as binutils spells it.
    pub mnemonic: &'static str,
    /// The operand layout.
    pub form: Form,
    /// What kind of instruction.
    pub flags: OpFlags,
    /// Registers read.
    pub reads: Operands,
    /// Registers written.
    pub writes: Operands,
    /// Cost in IOP cycles (the interpreter's timing model).
    pub cycles: u8,
    /// The reference semantics.
    pub exec: ExecFn,
}

impl std::fmt::Debug for OpInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpInfo")
            .field("mnemonic", &self.mnemonic)
            .field("form", &self.form)
            .field("flags", &self.flags)
            .finish()
    }
}

/// Operand set from flag names: `o!(RS | RT)`.
macro_rules! o {
    () => { Operands::empty() };
    ($($f:ident)|+) => { Operands::empty()$(.union(Operands::$f))+ };
}
/// Op flags from names: `f!(BRANCH | DELAY_SLOT)`.
macro_rules! f {
    () => { OpFlags::empty() };
    ($($f:ident)|+) => { OpFlags::empty()$(.union(OpFlags::$f))+ };
}

/// The entry for a reserved encoding.
pub const RESERVED: OpInfo = OpInfo {
    mnemonic: "(reserved)",
    form: Form::None,
    flags: f!(RESERVED),
    reads: o!(),
    writes: o!(),
    cycles: 1,
    exec: i::reserved,
};

/// A reserved COP0 encoding: coprocessor unusable in user mode without SR.CU0, else reserved.
const COP0_RESERVED: OpInfo = OpInfo {
    flags: f!(RESERVED | COP0),
    exec: i::cop0_reserved,
    ..RESERVED
};

/// Shorthand for a table entry with a one-cycle cost.
const fn op(
    mnemonic: &'static str,
    form: Form,
    flags: OpFlags,
    reads: Operands,
    writes: Operands,
    exec: ExecFn,
) -> OpInfo {
    OpInfo {
        mnemonic,
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

    /// A reserved encoding.
    pub const fn is_reserved(&self) -> bool {
        self.flags.contains(OpFlags::RESERVED)
    }
}

/// A sub-table of `N` entries from `(index, entry)` pairs; the rest are `fill`.
const fn table<const N: usize>(fill: OpInfo, entries: &[(usize, OpInfo)]) -> [OpInfo; N] {
    let mut t = [fill; N];
    let mut k = 0;
    while k < entries.len() {
        t[entries[k].0] = entries[k].1;
        k += 1;
    }
    t
}

const fn alu3(m: &'static str, e: ExecFn) -> OpInfo {
    op(m, Form::RdRsRt, f!(), o!(RS | RT), o!(RD), e)
}
const fn alu3_trap(m: &'static str, e: ExecFn) -> OpInfo {
    op(m, Form::RdRsRt, f!(MAY_TRAP), o!(RS | RT), o!(RD), e)
}
const fn shift(m: &'static str, e: ExecFn) -> OpInfo {
    op(m, Form::RdRtSa, f!(), o!(RT), o!(RD), e)
}
const fn shiftv(m: &'static str, e: ExecFn) -> OpInfo {
    op(m, Form::RdRtRs, f!(), o!(RS | RT), o!(RD), e)
}
const fn imm(m: &'static str, e: ExecFn) -> OpInfo {
    op(m, Form::RtRsImm, f!(), o!(RS), o!(RT), e)
}
const fn uimm(m: &'static str, e: ExecFn) -> OpInfo {
    op(m, Form::RtRsUimm, f!(), o!(RS), o!(RT), e)
}
const fn load(m: &'static str, e: ExecFn) -> OpInfo {
    op(m, Form::Mem, f!(LOAD), o!(RS | MEM), o!(RT), e)
}
/// LWL/LWR merge into rt, so they read it too.
const fn load_merge(m: &'static str, e: ExecFn) -> OpInfo {
    op(m, Form::Mem, f!(LOAD), o!(RS | RT | MEM), o!(RT), e)
}
const fn store(m: &'static str, e: ExecFn) -> OpInfo {
    op(m, Form::Mem, f!(STORE), o!(RS | RT), o!(MEM), e)
}
/// SWL/SWR read the word they merge into.
const fn store_merge(m: &'static str, e: ExecFn) -> OpInfo {
    op(
        m,
        Form::Mem,
        f!(LOAD | STORE),
        o!(RS | RT | MEM),
        o!(MEM),
        e,
    )
}
const fn br2(m: &'static str, e: ExecFn) -> OpInfo {
    op(
        m,
        Form::BranchRsRt,
        f!(BRANCH | DELAY_SLOT),
        o!(RS | RT),
        o!(),
        e,
    )
}
const fn br1(m: &'static str, e: ExecFn) -> OpInfo {
    op(m, Form::BranchRs, f!(BRANCH | DELAY_SLOT), o!(RS), o!(), e)
}
const fn br1_link(m: &'static str, e: ExecFn) -> OpInfo {
    op(
        m,
        Form::BranchRs,
        f!(BRANCH | DELAY_SLOT | LINK),
        o!(RS),
        o!(RA),
        e,
    )
}
/// An absent coprocessor's operation: a no-op (COP1, COP3).
const fn cop_nop(m: &'static str) -> OpInfo {
    op(m, Form::CopImm, f!(), o!(), o!(), i::nop)
}
/// An absent coprocessor's load or store: a no-op (LWC1/3, SWC1/3).
const fn cop_mem_nop(m: &'static str) -> OpInfo {
    op(m, Form::CopMem, f!(), o!(RS), o!(), i::nop)
}
/// A COP0 form the R3000A refuses with coprocessor unusable (LWC0, SWC0, BC0F, BC0T).
const fn cop0_unusable(m: &'static str, form: Form) -> OpInfo {
    op(
        m,
        form,
        f!(COP0 | MAY_TRAP | ENDS_BLOCK),
        o!(),
        o!(),
        i::cop0_unusable,
    )
}
/// COP2 forms: coprocessor unusable (CU2 clear) or reserved (the GTE is not modelled).
const fn cop2(m: &'static str, form: Form) -> OpInfo {
    op(m, form, f!(MAY_TRAP | ENDS_BLOCK), o!(), o!(), i::cop2)
}

/// By primary opcode (bits 26-31). 0x00 (SPECIAL), 0x01 (REGIMM) and 0x10 (COP0) are
/// sub-tables; their slots here are never returned.
static PRIMARY: [OpInfo; 64] = table(
    RESERVED,
    &[
        (
            0x02,
            op("j", Form::Jump, f!(BRANCH | DELAY_SLOT), o!(), o!(), i::j),
        ),
        (
            0x03,
            op(
                "jal",
                Form::Jump,
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
            op("addi", Form::RtRsImm, f!(MAY_TRAP), o!(RS), o!(RT), i::addi),
        ),
        (0x09, imm("addiu", i::addiu)),
        (0x0a, imm("slti", i::slti)),
        (0x0b, imm("sltiu", i::sltiu)),
        (0x0c, uimm("andi", i::andi)),
        (0x0d, uimm("ori", i::ori)),
        (0x0e, uimm("xori", i::xori)),
        (0x0f, op("lui", Form::RtImm, f!(), o!(), o!(RT), i::lui)),
        (0x11, cop_nop("cop1")),
        (0x12, cop2("cop2", Form::CopImm)),
        (0x13, cop_nop("cop3")),
        (0x20, load("lb", i::lb)),
        (0x21, load("lh", i::lh)),
        (0x22, load_merge("lwl", i::lwl)),
        (0x23, load("lw", i::lw)),
        (0x24, load("lbu", i::lbu)),
        (0x25, load("lhu", i::lhu)),
        (0x26, load_merge("lwr", i::lwr)),
        (0x28, store("sb", i::sb)),
        (0x29, store("sh", i::sh)),
        (0x2a, store_merge("swl", i::swl)),
        (0x2b, store("sw", i::sw)),
        (0x2e, store_merge("swr", i::swr)),
        (0x30, cop0_unusable("lwc0", Form::CopMem)),
        (0x31, cop_mem_nop("lwc1")),
        (0x32, cop2("lwc2", Form::CopMem)),
        (0x33, cop_mem_nop("lwc3")),
        (0x38, cop0_unusable("swc0", Form::CopMem)),
        (0x39, cop_mem_nop("swc1")),
        (0x3a, cop2("swc2", Form::CopMem)),
        (0x3b, cop_mem_nop("swc3")),
    ],
);

/// SPECIAL (opcode 0) by funct.
static SPECIAL: [OpInfo; 64] = table(
    RESERVED,
    &[
        (0x00, shift("sll", i::sll)),
        (0x02, shift("srl", i::srl)),
        (0x03, shift("sra", i::sra)),
        (0x04, shiftv("sllv", i::sllv)),
        (0x06, shiftv("srlv", i::srlv)),
        (0x07, shiftv("srav", i::srav)),
        (
            0x08,
            op("jr", Form::Rs, f!(BRANCH | DELAY_SLOT), o!(RS), o!(), i::jr),
        ),
        (
            0x09,
            op(
                "jalr",
                Form::RdRs,
                f!(BRANCH | DELAY_SLOT | LINK),
                o!(RS),
                o!(RD),
                i::jalr,
            ),
        ),
        (
            0x0c,
            op(
                "syscall",
                Form::Code,
                f!(MAY_TRAP | ENDS_BLOCK),
                o!(),
                o!(),
                i::syscall,
            ),
        ),
        (
            0x0d,
            op(
                "break",
                Form::Code,
                f!(MAY_TRAP | ENDS_BLOCK),
                o!(),
                o!(),
                i::break_,
            ),
        ),
        (0x10, op("mfhi", Form::Rd, f!(), o!(HI), o!(RD), i::mfhi)),
        (0x11, op("mthi", Form::Rs, f!(), o!(RS), o!(HI), i::mthi)),
        (0x12, op("mflo", Form::Rd, f!(), o!(LO), o!(RD), i::mflo)),
        (0x13, op("mtlo", Form::Rs, f!(), o!(RS), o!(LO), i::mtlo)),
        (
            0x18,
            op("mult", Form::RsRt, f!(), o!(RS | RT), o!(HI | LO), i::mult).cost(MUL_CYCLES),
        ),
        (
            0x19,
            op(
                "multu",
                Form::RsRt,
                f!(),
                o!(RS | RT),
                o!(HI | LO),
                i::multu,
            )
            .cost(MUL_CYCLES),
        ),
        (
            0x1a,
            op("div", Form::RsRt, f!(), o!(RS | RT), o!(HI | LO), i::div).cost(DIV_CYCLES),
        ),
        (
            0x1b,
            op("divu", Form::RsRt, f!(), o!(RS | RT), o!(HI | LO), i::divu).cost(DIV_CYCLES),
        ),
        (0x20, alu3_trap("add", i::add)),
        (0x21, alu3("addu", i::addu)),
        (0x22, alu3_trap("sub", i::sub)),
        (0x23, alu3("subu", i::subu)),
        (0x24, alu3("and", i::and)),
        (0x25, alu3("or", i::or)),
        (0x26, alu3("xor", i::xor)),
        (0x27, alu3("nor", i::nor)),
        (0x2a, alu3("slt", i::slt)),
        (0x2b, alu3("sltu", i::sltu)),
    ],
);

/// REGIMM (opcode 1), indexed by `link << 1 | ge` (see the module notes).
static REGIMM: [OpInfo; 4] = [
    br1("bltz", i::bltz),
    br1("bgez", i::bgez),
    br1_link("bltzal", i::bltzal),
    br1_link("bgezal", i::bgezal),
];

/// The canonical rt of each [`REGIMM`] entry.
const REGIMM_RT: [u32; 4] = [0x00, 0x01, 0x10, 0x11];

/// COP0 (opcode 0x10) with rs < 16, by rs; rs = 8 (BC0) is [`BC0`].
static COP0_RS: [OpInfo; 16] = table(
    COP0_RESERVED,
    &[
        (
            0x00,
            op(
                "mfc0",
                Form::Cop0Move,
                f!(COP0 | MAY_TRAP),
                o!(COP0),
                o!(RT),
                i::mfc0,
            ),
        ),
        // MTC0 may unmask an interrupt or isolate the cache: it ends a block.
        (
            0x04,
            op(
                "mtc0",
                Form::Cop0Move,
                f!(COP0 | MAY_TRAP | ENDS_BLOCK),
                o!(RT),
                o!(COP0),
                i::mtc0,
            ),
        ),
    ],
);

/// BC0 (COP0 rs = 8) by rt bit 16 (false / true).
static BC0: [OpInfo; 2] = [
    cop0_unusable("bc0f", Form::Branch),
    cop0_unusable("bc0t", Form::Branch),
];

/// COP0 with the CO bit (rs >= 16), by funct. RFE changes SR's interrupt enable, so it ends a
/// block (it normally sits in a JR's delay slot, where the block ends anyway).
static COP0_CO: [OpInfo; 64] = table(
    COP0_RESERVED,
    &[(
        0x10,
        op(
            "rfe",
            Form::None,
            f!(COP0 | MAY_TRAP | ENDS_BLOCK),
            o!(COP0),
            o!(COP0),
            i::rfe,
        ),
    )],
);

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
    /// The 20-bit code of SYSCALL and BREAK, bits 6-25.
    #[inline]
    pub const fn code(w: u32) -> u32 {
        (w >> 6) & 0xf_ffff
    }
    /// The 25-bit coprocessor operation of COPn with the CO bit.
    #[inline]
    pub const fn cofun(w: u32) -> u32 {
        w & 0x01ff_ffff
    }
}

/// Decode an instruction word to its table entry. Never fails.
#[inline]
pub fn decode(word: u32) -> &'static OpInfo {
    use fields::*;
    match opcode(word) {
        0x00 => &SPECIAL[funct(word)],
        0x01 => {
            let rt = rt(word);
            let link = (rt & 0x1e) == 0x10;
            &REGIMM[((link as usize) << 1) | (rt & 1)]
        }
        0x10 => {
            let rs = rs(word);
            if rs & 0x10 != 0 {
                &COP0_CO[funct(word)]
            } else if rs == 8 {
                &BC0[rt(word) & 1]
            } else {
                &COP0_RS[rs]
            }
        }
        op => &PRIMARY[op],
    }
}

/// Every instruction of the table once, with an encoding of it (all other fields zero), in
/// table order. For tests and tools that walk the instruction set.
pub fn entries() -> Vec<(u32, &'static OpInfo)> {
    let mut v = Vec::new();
    let mut add = |word: u32, e: &'static OpInfo| {
        if !e.is_reserved() {
            v.push((word, e));
        }
    };
    for (op, e) in PRIMARY.iter().enumerate() {
        if !matches!(op, 0x00 | 0x01 | 0x10) {
            add((op as u32) << 26, e);
        }
    }
    for (funct, e) in SPECIAL.iter().enumerate() {
        add(funct as u32, e);
    }
    for (e, rt) in REGIMM.iter().zip(REGIMM_RT) {
        add((0x01 << 26) | (rt << 16), e);
    }
    for (rs, e) in COP0_RS.iter().enumerate() {
        if rs != 8 {
            add((0x10 << 26) | ((rs as u32) << 21), e);
        }
    }
    for (rt, e) in BC0.iter().enumerate() {
        add((0x10 << 26) | (8 << 21) | ((rt as u32) << 16), e);
    }
    for (funct, e) in COP0_CO.iter().enumerate() {
        add((0x10 << 26) | (1 << 25) | funct as u32, e);
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regimm_follows_the_r3000a_rule() {
        let m = |rt: u32| decode((1 << 26) | (rt << 16)).mnemonic;
        assert_eq!(m(0x00), "bltz");
        assert_eq!(m(0x01), "bgez");
        assert_eq!(m(0x02), "bltz");
        assert_eq!(m(0x03), "bgez");
        assert_eq!(m(0x10), "bltzal");
        assert_eq!(m(0x11), "bgezal");
        assert_eq!(m(0x12), "bltz");
        assert_eq!(m(0x13), "bgez");
        assert_eq!(m(0x1f), "bgez");
    }

    #[test]
    fn reserved_encodings() {
        for w in [
            0x0000_0001u32,
            0x0000_003f,
            0x7000_0000,
            0xfc00_0000,
            0x4200_0001,
        ] {
            assert!(decode(w).is_reserved(), "{w:#010x}");
        }
        assert_eq!(decode(0x4200_0010).mnemonic, "rfe");
        assert_eq!(decode(0x4400_0000).mnemonic, "cop1");
    }
}
