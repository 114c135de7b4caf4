//! The opcode table and the disassembler: unique mnemonics that decode back to themselves,
//! the whole MIPS I set present, consistent flags, a never-failing decoder, and one sample of
//! each disassembly form.

#[path = "cpu_harness.rs"]
mod harness;

use std::collections::HashSet;

use harness::*;
use piney_iop::cpu::table::{Form, OpFlags, Operands, entries};
use piney_iop::cpu::{decode, disasm};

#[test]
fn every_entry_is_unique_and_decodes_back_to_itself() {
    let mut seen = HashSet::new();
    for (word, e) in entries() {
        assert!(seen.insert(e.mnemonic), "{} twice", e.mnemonic);
        assert!(
            std::ptr::eq(decode(word), e),
            "{} ({word:#010x})",
            e.mnemonic
        );
        assert!(!e.is_reserved());
        let text = disasm(word, BASE);
        assert!(
            text.starts_with(e.mnemonic) || (word == 0 && text == "nop"),
            "{word:#010x}: {text}"
        );
    }
}

#[test]
fn the_mips_i_set_is_there() {
    let names: HashSet<_> = entries().into_iter().map(|(_, e)| e.mnemonic).collect();
    for m in [
        "lb", "lbu", "lh", "lhu", "lw", "lwl", "lwr", "sb", "sh", "sw", "swl", "swr", "add",
        "addu", "sub", "subu", "addi", "addiu", "slt", "sltu", "slti", "sltiu", "and", "or", "xor",
        "nor", "andi", "ori", "xori", "lui", "sll", "srl", "sra", "sllv", "srlv", "srav", "mult",
        "multu", "div", "divu", "mfhi", "mthi", "mflo", "mtlo", "j", "jal", "jr", "jalr", "beq",
        "bne", "blez", "bgtz", "bltz", "bgez", "bltzal", "bgezal", "syscall", "break", "mfc0",
        "mtc0", "rfe",
    ] {
        assert!(names.contains(m), "{m} missing");
    }
}

#[test]
fn flags_are_consistent() {
    for (word, e) in entries() {
        let f = e.flags;
        if f.contains(OpFlags::BRANCH) {
            assert!(f.contains(OpFlags::DELAY_SLOT), "{}", e.mnemonic);
        }
        if f.contains(OpFlags::LINK) {
            assert!(
                e.writes.intersects(Operands::RA | Operands::RD),
                "{}",
                e.mnemonic
            );
        }
        if f.contains(OpFlags::LOAD) && !f.contains(OpFlags::STORE) {
            assert_eq!(e.form, Form::Mem, "{}", e.mnemonic);
            assert!(e.writes.contains(Operands::RT));
        }
        if f.contains(OpFlags::STORE) {
            assert!(e.writes.contains(Operands::MEM), "{}", e.mnemonic);
        }
        assert!(e.cycles >= 1, "{word:#010x}");
    }
}

#[test]
fn decode_never_fails() {
    // A sweep of every primary opcode with every funct and rt, plus pseudo-random words.
    let mut x: u32 = 0x1234_5678;
    let mut words: Vec<u32> = (0..64u32)
        .flat_map(|op| (0..64u32).map(move |k| (op << 26) | (k << 16) | (k << 21) | k))
        .collect();
    for _ in 0..50_000 {
        x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        words.push(x);
    }
    for w in words {
        let e = decode(w);
        let text = disasm(w, 0x8000_1000);
        if e.is_reserved() {
            assert_eq!(text, format!("(reserved) {w:#010x}"));
        } else {
            assert!(!text.is_empty());
        }
    }
}

#[test]
fn disassembly_forms() {
    let pc = 0x0000_1230;
    let cases: &[(u32, &str)] = &[
        (0, "nop"),
        (addiu(SP, SP, -16), "addiu $sp, $sp, -16"),
        (lw(T0, 4, A0), "lw $t0, 4($a0)"),
        (sb(T1, -1, SP), "sb $t1, -1($sp)"),
        (beq(T0, T1, 0), "beq $t0, $t1, 0x00001234"),
        (bne(T0, ZERO, -1), "bne $t0, $zero, 0x00001230"),
        (bgez(A0, 3), "bgez $a0, 0x00001240"),
        (bltzal(A0, 1), "bltzal $a0, 0x00001238"),
        (blez(V0, 2), "blez $v0, 0x0000123c"),
        (jal(0x0001_2340), "jal 0x00012340"),
        (j(0x0000_1000), "j 0x00001000"),
        (jr(RA), "jr $ra"),
        (jalr(RA, T1), "jalr $t1"),
        (jalr(T0, T1), "jalr $t0, $t1"),
        (addu(V0, A0, A1), "addu $v0, $a0, $a1"),
        (sllv(T0, T1, T2), "sllv $t0, $t1, $t2"),
        (sll(T0, T1, 2), "sll $t0, $t1, 0x2"),
        (ori(T0, T0, 0x3344), "ori $t0, $t0, 0x3344"),
        (lui(T0, 0x1122), "lui $t0, 0x1122"),
        (slti(T0, T1, -5), "slti $t0, $t1, -5"),
        (mult(A0, A1), "mult $a0, $a1"),
        (mfhi(V0), "mfhi $v0"),
        (mtlo(V1), "mtlo $v1"),
        (mfc0(T0, 12), "mfc0 $t0, $12"),
        (mtc0(K0, 14), "mtc0 $k0, $14"),
        (rfe(), "rfe"),
        (syscall(0), "syscall"),
        (syscall(0x20), "syscall 0x20"),
        (brk(7 << 10), "break 0x7"),
        (brk((7 << 10) | 3), "break 0x7, 0x3"),
        (0x4a18_0001, "cop2 0x2180001"),
        (0xc885_0004, "lwc2 $5, 4($a0)"),
        (0x4100_0003, "bc0f 0x00001240"),
        (0x7000_0000, "(reserved) 0x70000000"),
        (0x4200_0001, "(reserved) 0x42000001"),
    ];
    for &(w, want) in cases {
        assert_eq!(disasm(w, pc), want, "{w:#010x}");
    }
    // J keeps the region of its delay slot.
    assert_eq!(disasm(j(0x0000_1000), 0x8000_0000), "j 0x80001000");
}
