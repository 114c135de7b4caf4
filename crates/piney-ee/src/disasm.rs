//! The disassembler: formats an instruction from its table entry's form.
//!
//! Syntax follows GNU binutils (`mipsel-linux-gnu-objdump -m mips:5900`) with `$`-prefixed ABI
//! register names and `", "` between operands: `addiu $t0, $sp, -16`, `lq $v0, 16($v1)`,
//! `andi $t0, $t1, 0xff`, `sll $at, $v0, 0x3`. Signed immediates and memory offsets are decimal;
//! logical immediates, shift amounts, codes and hints hexadecimal; branch and jump targets are
//! absolute addresses in hexadecimal. COP0 registers use binutils' names (`c0_count`, `c0_sr`).
//! The all-zero word is `nop`. Reserved encodings show as `(reserved)` with the word.
//!
//! COP1 and COP2 forms ([`Form::Fpu`], [`Form::Vu`]) are formatted by those families
//! (`table::cop1_disasm`, `table::cop2_disasm`).

use std::fmt::Write;

use crate::table::fields::{rd, rs, rt, sa, simm, target, uimm};
use crate::table::{Form, OpFlags, decode};

/// ABI names of the 32 GPRs, as binutils prints them (without the `$`).
pub const GPR_NAMES: [&str; 32] = [
    "zero", "at", "v0", "v1", "a0", "a1", "a2", "a3", "t0", "t1", "t2", "t3", "t4", "t5", "t6",
    "t7", "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "t8", "t9", "k0", "k1", "gp", "sp", "fp",
    "ra",
];

/// binutils' names of the COP0 registers on the R5900.
pub const COP0_NAMES: [&str; 32] = [
    "c0_index",
    "c0_random",
    "c0_entrylo0",
    "c0_entrylo1",
    "c0_context",
    "c0_pagemask",
    "c0_wired",
    "$7",
    "c0_badvaddr",
    "c0_count",
    "c0_entryhi",
    "c0_compare",
    "c0_sr",
    "c0_cause",
    "c0_epc",
    "c0_prid",
    "c0_config",
    "$17",
    "$18",
    "$19",
    "$20",
    "$21",
    "$22",
    "c0_badpaddr",
    "c0_depc",
    "c0_perfcnt",
    "$26",
    "$27",
    "c0_taglo",
    "c0_taghi",
    "c0_errorepc",
    "$31",
];

fn gpr(r: usize) -> String {
    format!("${}", GPR_NAMES[r])
}

fn hex(v: u32) -> String {
    format!("{v:#x}")
}

/// Disassemble one instruction word at `pc` (for branch targets).
pub fn disassemble(word: u32, pc: u32) -> String {
    if word == 0 {
        return "nop".to_string();
    }
    let info = decode(word);
    if info.flags.contains(OpFlags::RESERVED) {
        return format!("(reserved) {word:#010x}");
    }
    let m = info.mnemonic;
    let mut s = String::from(m);
    let (rs_, rt_, rd_) = (rs(word), rt(word), rd(word));
    let branch_to = pc.wrapping_add(4).wrapping_add((simm(word) << 2) as u32);
    let ops = match info.form {
        Form::None => {
            if m == "sync" && sa(word) & 0x10 != 0 {
                s.push_str(".p");
            }
            String::new()
        }
        Form::RdRsRt => format!("{}, {}, {}", gpr(rd_), gpr(rs_), gpr(rt_)),
        Form::RdRtRs => format!("{}, {}, {}", gpr(rd_), gpr(rt_), gpr(rs_)),
        Form::RdRtSa => format!("{}, {}, {}", gpr(rd_), gpr(rt_), hex(sa(word))),
        Form::RdRs => {
            if m == "jalr" && rd_ == 31 {
                gpr(rs_)
            } else {
                format!("{}, {}", gpr(rd_), gpr(rs_))
            }
        }
        Form::RdRt => format!("{}, {}", gpr(rd_), gpr(rt_)),
        Form::Rd => gpr(rd_),
        Form::Rs => gpr(rs_),
        Form::RsRt => {
            // The EE's MULT/MADD family may name rd; traps may carry a code in bits 6-15.
            let code = (word >> 6) & 0x3ff;
            if rd_ != 0 && !m.starts_with('t') {
                format!("{}, {}, {}", gpr(rd_), gpr(rs_), gpr(rt_))
            } else if code != 0 && m.starts_with('t') {
                format!("{}, {}, {}", gpr(rs_), gpr(rt_), hex(code))
            } else {
                format!("{}, {}", gpr(rs_), gpr(rt_))
            }
        }
        Form::RtRsImm => format!("{}, {}, {}", gpr(rt_), gpr(rs_), simm(word)),
        Form::RtRsUimm => format!("{}, {}, {}", gpr(rt_), gpr(rs_), hex(uimm(word))),
        Form::RtImm => format!("{}, {}", gpr(rt_), hex(uimm(word))),
        Form::RsImm => format!("{}, {}", gpr(rs_), simm(word)),
        Form::BranchRsRt => format!("{}, {}, {}", gpr(rs_), gpr(rt_), hex(branch_to)),
        Form::BranchRs => format!("{}, {}", gpr(rs_), hex(branch_to)),
        Form::Branch => hex(branch_to),
        Form::Jump => hex((pc.wrapping_add(4) & 0xf000_0000) | (target(word) << 2)),
        Form::Mem => format!("{}, {}({})", gpr(rt_), simm(word), gpr(rs_)),
        Form::MemHint => format!("{}, {}({})", hex(rt_ as u32), simm(word), gpr(rs_)),
        Form::Code => {
            let code = (word >> 6) & 0xf_ffff;
            if m == "break" {
                let (c1, c2) = (code >> 10, code & 0x3ff);
                match (c1, c2) {
                    (0, 0) => String::new(),
                    (c1, 0) => hex(c1),
                    (c1, c2) => format!("{}, {}", hex(c1), hex(c2)),
                }
            } else if code != 0 {
                hex(code)
            } else {
                String::new()
            }
        }
        Form::Cop0Move => format!("{}, {}", gpr(rt_), COP0_NAMES[rd_]),
        Form::Cop0Indexed => {
            if rd_ == 24 {
                gpr(rt_)
            } else {
                format!("{}, {}", gpr(rt_), (word >> 1) & 31)
            }
        }
        Form::Fpu(_) => return crate::table::cop1_disasm(word, pc),
        Form::Vu(_) => return crate::table::cop2_disasm(word, pc),
    };
    if !ops.is_empty() {
        let _ = write!(s, " {ops}");
    }
    s
}
