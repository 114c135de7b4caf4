//! Branches, jumps, delay slots, branch-likely nullification, traps, SYSCALL and BREAK.

#[path = "integer_asm.rs"]
mod asm;
use asm::*;
use piney_ee::cpu::{VECTOR_COMMON, cop0reg};
use piney_ee::exception::ExceptionKind;

/// `addiu rt, rt, n`.
fn inc(rt: u32, n: i32) -> u32 {
    imm(0x09, rt, rt, n)
}

#[test]
fn taken_branch_executes_delay_slot_then_target() {
    // 0: beq r1, r2, +2 (-> 12)   4: inc r3 (delay)   8: inc r4 (skipped)   12: inc r5
    let mut m = M::new(&[imm(0x04, 2, 1, 2), inc(3, 1), inc(4, 1), inc(5, 1)]);
    m.run(3);
    assert_eq!((m.get(3), m.get(4), m.get(5)), (1, 0, 1));
    assert_eq!(m.cpu.pc, BASE + 16);
}

#[test]
fn not_taken_branch_falls_through() {
    let mut m = M::new(&[imm(0x05, 2, 1, 2), inc(3, 1), inc(4, 1), inc(5, 1)]);
    m.run(4);
    assert_eq!((m.get(3), m.get(4), m.get(5)), (1, 1, 1));
}

#[test]
fn likely_not_taken_nullifies_delay_slot() {
    // bnel r1, r2 (equal: not taken): the delay slot is skipped.
    let mut m = M::new(&[imm(0x15, 2, 1, 2), inc(3, 1), inc(4, 1)]);
    m.run(2);
    assert_eq!((m.get(3), m.get(4)), (0, 1));
    // beql taken: delay slot runs.
    let mut m = M::new(&[imm(0x14, 2, 1, 2), inc(3, 1), inc(4, 1), inc(5, 1)]);
    m.run(3);
    assert_eq!((m.get(3), m.get(4), m.get(5)), (1, 0, 1));
}

#[test]
fn sign_branches() {
    let taken = |word: u32, v: u64| {
        let mut m = M::new(&[word, NOP, inc(4, 1), inc(5, 1)]);
        m.set(1, v);
        m.run(3);
        m.get(4) == 0
    };
    let neg = (-5i64) as u64;
    assert!(taken(imm(0x06, 0, 1, 2), 0)); // blez
    assert!(!taken(imm(0x06, 0, 1, 2), 1));
    assert!(taken(imm(0x07, 0, 1, 2), 1 << 40)); // bgtz, 64-bit compare
    assert!(!taken(imm(0x07, 0, 1, 2), neg));
    assert!(taken(regimm(0x00, 1, 2), neg)); // bltz
    assert!(!taken(regimm(0x00, 1, 2), 0));
    assert!(taken(regimm(0x01, 1, 2), 0)); // bgez
    assert!(!taken(regimm(0x01, 1, 2), neg));
}

#[test]
fn backward_branch_target() {
    // 0: inc r3; 4: bne r3, r2, -2 (-> 0); 8: nop; with r2 = 3 loops three times.
    let mut m = M::new(&[inc(3, 1), imm(0x05, 2, 3, -2), NOP, inc(4, 1)]);
    m.set(2, 3);
    m.run(3 * 3 + 1);
    assert_eq!(m.get(3), 3);
    assert_eq!(m.get(4), 1);
}

#[test]
fn jal_links_and_jumps() {
    let mut m = M::new(&[jump(0x03, BASE + 12), inc(3, 1), inc(4, 1), inc(5, 1)]);
    m.run(3);
    assert_eq!(m.get(31), (BASE + 8) as u64);
    assert_eq!((m.get(3), m.get(4), m.get(5)), (1, 0, 1));
}

#[test]
fn jump_targets_keep_the_region() {
    let mut m = M::new(&[]);
    m.cpu.jump_to(0x8000_1000);
    m.bus.mem[0x1000..0x1004].copy_from_slice(&jump(0x02, 0x0004_0000).to_le_bytes());
    m.run(2);
    assert_eq!(m.cpu.pc, 0x8004_0000);
    // jal in kseg0 links with a sign-extended address.
    let mut m = M::new(&[]);
    m.cpu.jump_to(0x8000_1000);
    m.bus.mem[0x1000..0x1004].copy_from_slice(&jump(0x03, 0x0004_0000).to_le_bytes());
    m.run(1);
    assert_eq!(m.get(31), 0xffff_ffff_8000_1008);
}

#[test]
fn jr_and_jalr() {
    let mut m = M::new(&[sp(0x09, 7, 6, 0, 0), inc(3, 1), inc(4, 1), inc(5, 1)]);
    m.set(6, (BASE + 12) as u64);
    m.run(3);
    assert_eq!(m.get(7), (BASE + 8) as u64);
    assert_eq!((m.get(3), m.get(4), m.get(5)), (1, 0, 1));
    // jalr r6, r6: the target is read before the link is written.
    let mut m = M::new(&[sp(0x09, 6, 6, 0, 0), NOP, inc(4, 1), inc(5, 1)]);
    m.set(6, (BASE + 12) as u64);
    m.run(3);
    assert_eq!(m.get(6), (BASE + 8) as u64);
    assert_eq!((m.get(4), m.get(5)), (0, 1));
    let mut m = M::new(&[sp(0x08, 0, 31, 0, 0), NOP, inc(4, 1), inc(5, 1)]);
    m.set(31, (BASE + 12) as u64);
    m.run(3);
    assert_eq!((m.get(4), m.get(5)), (0, 1));
}

#[test]
fn link_branches_always_link() {
    // bltzal not taken still writes ra.
    let mut m = M::new(&[regimm(0x10, 1, 2), NOP, inc(4, 1)]);
    m.set(1, 1);
    m.run(3);
    assert_eq!(m.get(31), (BASE + 8) as u64);
    assert_eq!(m.get(4), 1);
    // bgezall not taken: links, skips the delay slot.
    let mut m = M::new(&[regimm(0x13, 1, 2), inc(3, 1), inc(4, 1)]);
    m.set(1, (-1i64) as u64);
    m.run(2);
    assert_eq!(m.get(31), (BASE + 8) as u64);
    assert_eq!((m.get(3), m.get(4)), (0, 1));
    // bgezal taken.
    let mut m = M::new(&[regimm(0x11, 0, 2), inc(3, 1), inc(4, 1), inc(5, 1)]);
    m.run(3);
    assert_eq!((m.get(3), m.get(4), m.get(5)), (1, 0, 1));
}

#[test]
fn exception_in_delay_slot_reports_the_branch() {
    // beq r0, r0, +2 ; delay slot: add overflow.
    let mut m = M::new(&[imm(0x04, 0, 0, 2), sp(0x20, 3, 1, 1, 0)]);
    m.set(1, 0x7fff_ffff);
    m.run(1);
    let e = m.step().unwrap_err();
    assert_eq!(e.kind, ExceptionKind::Overflow);
    assert!(e.in_delay_slot);
    assert_eq!(e.pc, BASE + 4);
    assert_eq!(m.cpu.cop0.regs[cop0reg::EPC], BASE);
    assert_ne!(m.cpu.cop0.regs[cop0reg::CAUSE] & (1 << 31), 0, "Cause.BD");
    assert_eq!(m.cpu.pc, VECTOR_COMMON);
}

#[test]
fn syscall_and_break() {
    let mut m = M::new(&[sp(0x0c, 0, 0, 0, 0) | (5 << 6)]);
    let e = m.step().unwrap_err();
    assert_eq!(e.kind, ExceptionKind::Syscall);
    assert_eq!(e.word >> 6, 5);
    assert_eq!((m.cpu.cop0.regs[cop0reg::CAUSE] >> 2) & 31, 8);
    assert_eq!(m.cpu.cop0.regs[cop0reg::EPC], BASE);
    let mut m = M::new(&[sp(0x0d, 0, 0, 0, 0)]);
    assert_eq!(m.step().unwrap_err().kind, ExceptionKind::Break);
    assert_eq!((m.cpu.cop0.regs[cop0reg::CAUSE] >> 2) & 31, 9);
}

#[test]
fn traps() {
    let traps = |word: u32, a: u64, b: u64| {
        let mut m = M::new(&[word]);
        m.set(1, a);
        m.set(2, b);
        match m.step() {
            Ok(()) => false,
            Err(e) => {
                assert_eq!(e.kind, ExceptionKind::Trap);
                true
            }
        }
    };
    let neg = u64::MAX;
    assert!(traps(sp(0x34, 0, 1, 2, 0), 3, 3)); // teq
    assert!(!traps(sp(0x34, 0, 1, 2, 0), 3, 4));
    assert!(traps(sp(0x36, 0, 1, 2, 0), 3, 4)); // tne
    assert!(traps(sp(0x30, 0, 1, 2, 0), 0, neg)); // tge signed
    assert!(!traps(sp(0x31, 0, 1, 2, 0), 0, neg)); // tgeu unsigned
    assert!(traps(sp(0x32, 0, 1, 2, 0), neg, 0)); // tlt
    assert!(traps(sp(0x33, 0, 1, 2, 0), 0, neg)); // tltu
    assert!(traps(regimm(0x08, 1, -1), 0, 0)); // tgei
    assert!(!traps(regimm(0x09, 1, -1), 0, 0)); // tgeiu: 0 >= 0xffff.. is false
    assert!(traps(regimm(0x0a, 1, 0), neg, 0)); // tlti
    assert!(traps(regimm(0x0b, 1, -1), 5, 0)); // tltiu
    assert!(traps(regimm(0x0c, 1, -1), neg, 0)); // teqi
    assert!(traps(regimm(0x0e, 1, 7), 6, 0)); // tnei
    assert!(!traps(regimm(0x0e, 1, 7), 7, 0));
    let mut m = M::new(&[sp(0x34, 0, 0, 0, 0)]);
    m.step().unwrap_err();
    assert_eq!((m.cpu.cop0.regs[cop0reg::CAUSE] >> 2) & 31, 13);
}

#[test]
fn misaligned_jump_target_faults_on_fetch() {
    let mut m = M::new(&[sp(0x08, 0, 1, 0, 0), NOP]);
    m.set(1, (BASE + 2) as u64);
    m.run(2);
    let e = m.step().unwrap_err();
    assert_eq!(e.kind, ExceptionKind::AddressLoad);
    assert_eq!(m.cpu.cop0.regs[cop0reg::BAD_VADDR], BASE + 2);
}

#[test]
fn cycles_follow_the_table() {
    let mut m = M::new(&[inc(3, 1), sp(0x18, 0, 1, 2, 0), sp(0x1a, 0, 1, 2, 0)]);
    m.run(3);
    assert_eq!(m.cpu.cycles, 1 + 4 + 37);
}
