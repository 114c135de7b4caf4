//! The disassembler: formats an instruction from its table entry's form.
//!
//! Contract: binutils-like syntax (`mipsel-linux-gnu-objdump -m mips:3000`) with `$`-prefixed
//! ABI register names and `", "` between operands: `addiu $sp, $sp, -16`, `lw $t0, 4($a0)`,
//! `ori $t0, $t0, 0x3344`, `sll $t0, $t1, 0x2`, `jalr $t1` (rd = `$ra` omitted),
//! `mfc0 $t0, $12`. Signed immediates and offsets are decimal; logical immediates, shift
//! amounts and codes hexadecimal; branch and jump targets absolute, as `0x` and 8 hex digits
//! (`beq $t0, $t1, 0x00001234`, `jal 0x00012340`). The all-zero word is `nop`; reserved
//! encodings show as `(reserved) 0x4c000000`.

use super::gpr_name;
use super::table::Form;
use super::table::decode;
use super::table::fields::{code, rd, rs, rt, sa, simm, target, uimm};

fn gpr(r: usize) -> String {
    format!("${}", gpr_name(r))
}

/// Disassemble `word`, found at address `pc` (for branch and jump targets).
pub fn disasm(word: u32, pc: u32) -> String {
    if word == 0 {
        return "nop".to_string();
    }
    let info = decode(word);
    if info.is_reserved() {
        return format!("(reserved) {word:#010x}");
    }
    let (s, t, d) = (rs(word), rt(word), rd(word));
    let branch_to = pc.wrapping_add(4).wrapping_add((simm(word) << 2) as u32);
    let ops = match info.form {
        Form::None => String::new(),
        Form::RdRsRt => format!("{}, {}, {}", gpr(d), gpr(s), gpr(t)),
        Form::RdRtRs => format!("{}, {}, {}", gpr(d), gpr(t), gpr(s)),
        Form::RdRtSa => format!("{}, {}, {:#x}", gpr(d), gpr(t), sa(word)),
        Form::RdRs if d == 31 => gpr(s),
        Form::RdRs => format!("{}, {}", gpr(d), gpr(s)),
        Form::Rd => gpr(d),
        Form::Rs => gpr(s),
        Form::RsRt => format!("{}, {}", gpr(s), gpr(t)),
        Form::RtRsImm => format!("{}, {}, {}", gpr(t), gpr(s), simm(word)),
        Form::RtRsUimm => format!("{}, {}, {:#x}", gpr(t), gpr(s), uimm(word)),
        Form::RtImm => format!("{}, {:#x}", gpr(t), uimm(word)),
        Form::BranchRsRt => format!("{}, {}, {branch_to:#010x}", gpr(s), gpr(t)),
        Form::BranchRs => format!("{}, {branch_to:#010x}", gpr(s)),
        Form::Branch => format!("{branch_to:#010x}"),
        Form::Jump => {
            let to = (pc.wrapping_add(4) & 0xf000_0000) | (target(word) << 2);
            format!("{to:#010x}")
        }
        Form::Mem => format!("{}, {}({})", gpr(t), simm(word), gpr(s)),
        Form::Code => {
            let c = code(word);
            if info.mnemonic == "break" {
                // binutils splits BREAK's code into bits 16-25 and 6-15.
                match (c >> 10, c & 0x3ff) {
                    (0, 0) => String::new(),
                    (c1, 0) => format!("{c1:#x}"),
                    (c1, c2) => format!("{c1:#x}, {c2:#x}"),
                }
            } else if c != 0 {
                format!("{c:#x}")
            } else {
                String::new()
            }
        }
        Form::Cop0Move => format!("{}, ${d}", gpr(t)),
        Form::CopImm => format!("{:#x}", word & 0x03ff_ffff),
        Form::CopMem => format!("${t}, {}({})", simm(word), gpr(s)),
    };
    if ops.is_empty() {
        info.mnemonic.to_string()
    } else {
        format!("{} {ops}", info.mnemonic)
    }
}
