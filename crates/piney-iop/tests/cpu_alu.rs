//! The R3000A's ALU, shift, immediate and multiply/divide instructions, one by one.

#[path = "cpu_harness.rs"]
mod harness;

use harness::*;
use piney_iop::cpu::ExceptionKind;

/// Run one instruction with `$t0 = a`, `$t1 = b`; return the machine.
fn one(word: u32, a: u32, b: u32) -> Machine {
    let mut m = Machine::new(&[word]);
    m.cpu.gpr[T0] = a;
    m.cpu.gpr[T1] = b;
    m.run();
    m
}

/// `op $t2, $t0, $t1` with `$t0 = a`, `$t1 = b`.
fn rrr(op: fn(usize, usize, usize) -> u32, a: u32, b: u32) -> u32 {
    one(op(T2, T0, T1), a, b).r(T2)
}

/// `op $t2, $t0, imm` with `$t0 = a`.
fn rri(op: fn(usize, usize, i32) -> u32, a: u32, imm: i32) -> u32 {
    one(op(T2, T0, imm), a, 0).r(T2)
}

/// `op $t2, $t0, imm` (logical immediate) with `$t0 = a`.
fn rru(op: fn(usize, usize, u32) -> u32, a: u32, imm: u32) -> u32 {
    one(op(T2, T0, imm), a, 0).r(T2)
}

#[test]
fn add_and_addu() {
    assert_eq!(rrr(add, 5, 7), 12);
    assert_eq!(rrr(add, 0xffff_ffff, 1), 0);
    assert_eq!(rrr(addu, 0x7fff_ffff, 1), 0x8000_0000);
    assert_eq!(rrr(addu, 0xffff_ffff, 2), 1);
}

#[test]
fn add_overflow_traps_and_leaves_rd() {
    for (a, b) in [(0x7fff_ffff, 1), (0x8000_0000, 0xffff_ffff)] {
        let mut m = Machine::new(&[add(T2, T0, T1)]);
        m.cpu.gpr[T0] = a;
        m.cpu.gpr[T1] = b;
        m.cpu.gpr[T2] = 0xdead;
        let e = m.step().unwrap_err();
        assert_eq!(e.kind, ExceptionKind::Overflow);
        assert_eq!(e.pc, BASE);
        assert_eq!(m.r(T2), 0xdead, "rd unchanged");
        assert_eq!(m.cpu.pc, BASE, "the CPU still describes the ADD");
    }
}

#[test]
fn sub_and_subu() {
    assert_eq!(rrr(sub, 7, 5), 2);
    assert_eq!(rrr(sub, 5, 7), (-2i32) as u32);
    assert_eq!(rrr(subu, 0x8000_0000, 1), 0x7fff_ffff);
    for (a, b) in [(0x8000_0000u32, 1u32), (0x7fff_ffff, 0xffff_ffff)] {
        let mut m = Machine::new(&[sub(T2, T0, T1)]);
        m.cpu.gpr[T0] = a;
        m.cpu.gpr[T1] = b;
        let e = m.step().unwrap_err();
        assert_eq!(e.kind, ExceptionKind::Overflow);
        assert_eq!(m.r(T2), 0);
    }
}

#[test]
fn addi_and_addiu() {
    assert_eq!(rri(addi, 10, -3), 7);
    assert_eq!(rri(addiu, 0x7fff_ffff, 1), 0x8000_0000);
    assert_eq!(rri(addiu, 0, -16), 0xffff_fff0);
    let mut m = Machine::new(&[addi(T2, T0, 1)]);
    m.cpu.gpr[T0] = 0x7fff_ffff;
    m.cpu.gpr[T2] = 0x55;
    assert_eq!(m.step().unwrap_err().kind, ExceptionKind::Overflow);
    assert_eq!(m.r(T2), 0x55, "rt unchanged");
    let mut m = Machine::new(&[addi(T2, T0, -1)]);
    m.cpu.gpr[T0] = 0x8000_0000;
    assert_eq!(m.step().unwrap_err().kind, ExceptionKind::Overflow);
}

#[test]
fn logic() {
    assert_eq!(rrr(and, 0xff00_ff00, 0x0ff0_0ff0), 0x0f00_0f00);
    assert_eq!(rrr(or, 0xff00_ff00, 0x0ff0_0ff0), 0xfff0_fff0);
    assert_eq!(rrr(xor, 0xff00_ff00, 0x0ff0_0ff0), 0xf0f0_f0f0);
    assert_eq!(rrr(nor, 0xff00_ff00, 0x0ff0_0ff0), 0x000f_000f);
    // Logical immediates are zero-extended.
    assert_eq!(rru(andi, 0xffff_ffff, 0x8001), 0x8001);
    assert_eq!(rru(ori, 0x1234_0000, 0x8765), 0x1234_8765);
    assert_eq!(rru(xori, 0xffff_ffff, 0xffff), 0xffff_0000);
    assert_eq!(one(lui(T2, 0x8123), 0, 0).r(T2), 0x8123_0000);
}

#[test]
fn compares() {
    assert_eq!(rrr(slt, (-1i32) as u32, 1), 1);
    assert_eq!(rrr(slt, 1, (-1i32) as u32), 0);
    assert_eq!(rrr(sltu, (-1i32) as u32, 1), 0);
    assert_eq!(rrr(sltu, 1, (-1i32) as u32), 1);
    assert_eq!(rrr(slt, 3, 3), 0);
    assert_eq!(rri(slti, (-5i32) as u32, -4), 1);
    assert_eq!(rri(slti, 5, -4), 0);
    // SLTIU sign-extends the immediate, then compares unsigned.
    assert_eq!(rri(sltiu, 0xffff_0000, -1), 1);
    assert_eq!(rri(sltiu, 0xffff_ffff, -1), 0);
    assert_eq!(rri(sltiu, 3, 4), 1);
}

#[test]
fn shifts() {
    let s = |op: fn(usize, usize, u32) -> u32, v: u32, sa: u32| one(op(T2, T0, sa), v, 0).r(T2);
    assert_eq!(s(sll, 0x8000_0001, 4), 0x0000_0010);
    assert_eq!(s(srl, 0x8000_0010, 4), 0x0800_0001);
    assert_eq!(s(sra, 0x8000_0010, 4), 0xf800_0001);
    assert_eq!(s(sll, 0x1234_5678, 0), 0x1234_5678);
    assert_eq!(s(sra, 0x8000_0000, 31), 0xffff_ffff);
    // Variable shifts take rs's low 5 bits: 36 shifts by 4.
    let v = |op: fn(usize, usize, usize) -> u32, val: u32, amount: u32| {
        one(op(T2, T0, T1), val, amount).r(T2)
    };
    assert_eq!(v(sllv, 0x8000_0001, 36), 0x0000_0010);
    assert_eq!(v(srlv, 0x8000_0010, 36), 0x0800_0001);
    assert_eq!(v(srav, 0x8000_0010, 36), 0xf800_0001);
    assert_eq!(v(srav, 0x4000_0000, 30), 1);
}

#[test]
fn writes_to_zero_are_dropped() {
    let m = run(&[addiu(ZERO, ZERO, 5), lui(ZERO, 0xffff), or(ZERO, T0, T1)]);
    assert_eq!(m.r(ZERO), 0);
}

/// `op $t0, $t1` with the given inputs; (hi, lo).
fn hilo(op: fn(usize, usize) -> u32, a: u32, b: u32) -> (u32, u32) {
    let m = one(op(T0, T1), a, b);
    (m.cpu.hi, m.cpu.lo)
}

#[test]
fn mult_and_multu() {
    // Values and results from ps2autotests tests/cpu/iop/muldiv.expected (hardware).
    assert_eq!(hilo(mult, (-1i32) as u32, 1), (0xffff_ffff, 0xffff_ffff));
    assert_eq!(hilo(mult, (-1i32) as u32, (-1i32) as u32), (0, 1));
    assert_eq!(hilo(mult, 0x8000_0000, (-1i32) as u32), (0, 0x8000_0000));
    assert_eq!(
        hilo(mult, 305_402_420, 1_450_727_032),
        (0x0626_0cac, 0x06e6_0060)
    );
    assert_eq!(hilo(mult, 0x7fff_ffff, 0x7fff_ffff), (0x3fff_ffff, 1));
    assert_eq!(
        hilo(multu, (-1i32) as u32, (-1i32) as u32),
        (0xffff_fffe, 1)
    );
    assert_eq!(
        hilo(multu, 0x8000_0000, (-1i32) as u32),
        (0x7fff_ffff, 0x8000_0000)
    );
    assert_eq!(
        hilo(multu, 0xffff_8000, 0xffff_8000),
        (0xffff_0000, 0x4000_0000)
    );
}

#[test]
fn div_and_divu_with_the_r3000a_edge_cases() {
    // (hi, lo) from ps2autotests muldiv.expected.
    assert_eq!(hilo(div, 53, 2), (1, 0x1a));
    assert_eq!(hilo(div, 0, 0), (0, 0xffff_ffff));
    assert_eq!(hilo(div, 53, 0), (53, 0xffff_ffff));
    assert_eq!(
        hilo(div, 0x8000_0000, 0),
        (0x8000_0000, 1),
        "negative / 0: lo = 1"
    );
    assert_eq!(hilo(div, 0x8000_0000, (-1i32) as u32), (0, 0x8000_0000));
    assert_eq!(hilo(div, (-1i32) as u32, 2), (0xffff_ffff, 0));
    assert_eq!(
        hilo(div, (-7i32) as u32, 2),
        ((-1i32) as u32, (-3i32) as u32)
    );
    assert_eq!(hilo(divu, 1, 0), (1, 0xffff_ffff));
    assert_eq!(hilo(divu, 0x8000_0000, 0), (0x8000_0000, 0xffff_ffff));
    assert_eq!(hilo(divu, 0x8000_0000, (-1i32) as u32), (0x8000_0000, 0));
    assert_eq!(hilo(divu, (-1i32) as u32, 2), (1, 0x7fff_ffff));
}

#[test]
fn hi_lo_moves_have_no_delay() {
    // ps2autotests tests/cpu/iop/hilodelay: MFHI/MFLO results are usable at once, and a
    // MULT/DIV result is there for the very next MFHI/MFLO (the IOP interlocks).
    let p = prog(&[
        &[
            ori(24, ZERO, 0x10),
            mthi(24),
            ori(24, ZERO, 0x20),
            mtlo(24),
            nop(),
        ],
        &[ori(24, ZERO, 1), mfhi(24), or(S0, 24, ZERO)],
        &[ori(24, ZERO, 2), mflo(24), or(S1, 24, ZERO)],
        &[
            ori(24, ZERO, 3),
            ori(25, ZERO, 2),
            div(24, 25),
            mfhi(A0),
            div(24, 25),
            mflo(A1),
        ],
        &[mult(24, 25), mfhi(A2), mult(24, 25), mflo(A3)],
    ]);
    let m = run(&p);
    assert_eq!((m.r(S0), m.r(S1)), (0x10, 0x20));
    assert_eq!((m.r(A0), m.r(A1)), (1, 1), "div delay: 1 1");
    assert_eq!((m.r(A2), m.r(A3)), (0, 6), "mult delay: 0 6");
}

#[test]
fn cycle_costs_come_from_the_table() {
    let m = run(&[
        nop(),
        addu(T0, T0, T1),
        mult(T0, T1),
        div(T0, T1),
        multu(T0, T1),
    ]);
    let t = |w: u32| piney_iop::cpu::decode(w).cycles as u64;
    assert_eq!(t(mult(T0, T1)), 9);
    assert_eq!(t(div(T0, T1)), 36);
    assert_eq!(m.cpu.cycles, 1 + 1 + 9 + 36 + 9);
}
