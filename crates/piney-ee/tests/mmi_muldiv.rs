//! MMI: the second pipeline (MULT1, DIV1, MADD1, MFHI1...), MADD, the parallel multiply,
//! multiply-add and divide families, PMFHL/PMTHL and the 128-bit HI/LO moves.

#[path = "integer_asm.rs"]
mod asm;
use asm::*;

fn neg(v: i32) -> u32 {
    v as u32
}

/// Run `word` with rs (r1), rt (r2), LO and HI preset; return (rd = r3, LO, HI).
fn run(word: u32, s: u128, t: u128, lo: u128, hi: u128) -> (u128, u128, u128) {
    let m = exec1(word, |m| {
        m.cpu.gpr[1] = s;
        m.cpu.gpr[2] = t;
        m.cpu.gpr[3] = 0x5555_u128 << 64;
        m.cpu.lo = lo;
        m.cpu.hi = hi;
    });
    (m.cpu.gpr[3], m.cpu.lo, m.cpu.hi)
}

#[test]
fn pipeline1_multiply_and_divide() {
    let lo0 = 0x1111_u128;
    // mult1 r3, r1, r2: -3 * 5.
    let (rd, lo, hi) = run(mmi(0x18, 3, 1, 2, 0), neg(-3) as u128, 5, lo0, 0);
    assert_eq!(lo, q(0x1111, 0, neg(-15), u32::MAX));
    assert_eq!(hi, q(0, 0, u32::MAX, u32::MAX));
    assert_eq!(
        rd,
        0x5555_u128 << 64 | q(neg(-15), u32::MAX, 0, 0),
        "rd low 64 = LO1"
    );
    // multu1: 0xffffffff * 2 = 0x1_fffffffe.
    let (_, lo, hi) = run(mmi(0x19, 0, 1, 2, 0), 0xffff_ffff, 2, 0, 0);
    assert_eq!(lo >> 64, 0xffff_ffff_ffff_fffe);
    assert_eq!(hi >> 64, 1);
    // div1 by zero, divu1.
    let (_, lo, hi) = run(mmi(0x1a, 0, 1, 2, 0), 7, 0, lo0, 0);
    assert_eq!(
        (lo >> 64, hi >> 64, lo as u64),
        (u64::MAX as u128, 7, 0x1111)
    );
    let (_, lo, hi) = run(mmi(0x1a, 0, 1, 2, 0), neg(-7) as u128, 2, 0, 0);
    assert_eq!(
        (lo >> 64, hi >> 64),
        (u64::MAX as u128 - 2, u64::MAX as u128)
    );
    let (_, lo, hi) = run(mmi(0x1b, 0, 1, 2, 0), 0xffff_fff1, 0x10, 0, 0);
    assert_eq!((lo >> 64, hi >> 64), (0x0fff_ffff, 1));
    let (_, lo, hi) = run(mmi(0x1b, 0, 1, 2, 0), 0x8000_0000, 0, 0, 0);
    assert_eq!(
        (lo >> 64, hi >> 64),
        (u64::MAX as u128, 0xffff_ffff_8000_0000)
    );
}

#[test]
fn madd_family_accumulates() {
    // madd r3, r1, r2 on HI:LO = 0x00000000:ffffffff, + 1*1 -> 0x1:00000000.
    let (rd, lo, hi) = run(mmi(0x00, 3, 1, 2, 0), 1, 1, 0xffff_ffff, 0);
    assert_eq!((lo, hi), (0, 1));
    assert_eq!(rd as u64, 0);
    // madd signed: 0 + (-2) * 3 = -6.
    let (rd, lo, hi) = run(mmi(0x00, 3, 1, 2, 0), neg(-2) as u128, 3, 0, 0);
    assert_eq!(
        (lo, hi, rd as u64),
        (u64::MAX as u128 - 5, u64::MAX as u128, u64::MAX - 5)
    );
    // maddu: 0xffffffff * 0xffffffff + 0x1 = 0xfffffffe_00000002.
    let (_, lo, hi) = run(mmi(0x01, 0, 1, 2, 0), 0xffff_ffff, 0xffff_ffff, 1, 0);
    assert_eq!((lo, hi), (2, 0xffff_ffff_ffff_fffe));
    // madd1 works on LO1/HI1 and leaves LO/HI alone.
    let (rd, lo, hi) = run(mmi(0x20, 3, 1, 2, 0), 1, 1, q(9, 0, u32::MAX, u32::MAX), 8);
    assert_eq!((lo, hi), (9, q(8, 0, 1, 0)));
    assert_eq!(rd as u64, 0);
    let (_, lo, hi) = run(mmi(0x21, 0, 1, 2, 0), 0xffff_ffff, 2, 0, 0);
    assert_eq!((lo >> 64, hi >> 64), (0xffff_ffff_ffff_fffe, 1));
}

#[test]
fn pipeline1_moves() {
    let mut m = M::new(&[
        mmi(0x11, 0, 1, 0, 0), // mthi1 r1
        mmi(0x13, 0, 2, 0, 0), // mtlo1 r2
        mmi(0x10, 3, 0, 0, 0), // mfhi1 r3
        mmi(0x12, 4, 0, 0, 0), // mflo1 r4
    ]);
    m.set(1, 0x1234_5678_9abc_def0);
    m.set(2, 0x0fed_cba9_8765_4321);
    m.cpu.hi = 0x77;
    m.run(4);
    assert_eq!(m.cpu.hi, 0x1234_5678_9abc_def0_u128 << 64 | 0x77);
    assert_eq!(m.get(3), 0x1234_5678_9abc_def0);
    assert_eq!(m.get(4), 0x0fed_cba9_8765_4321);
}

#[test]
fn hilo_128_moves() {
    let v = q(1, 2, 3, 4);
    let w = q(5, 6, 7, 8);
    let (_, lo, hi) = run(mmi3(0x08, 0, 1, 0), v, 0, 0, 0); // pmthi
    assert_eq!((lo, hi), (0, v));
    let (_, lo, _) = run(mmi3(0x09, 0, 1, 0), v, 0, 0, 0); // pmtlo
    assert_eq!(lo, v);
    assert_eq!(run(mmi2(0x08, 3, 0, 0), 0, 0, w, v).0, v); // pmfhi
    assert_eq!(run(mmi2(0x09, 3, 0, 0), 0, 0, w, v).0, w); // pmflo
}

#[test]
fn parallel_word_multiplies() {
    let s = q(0x8000_0000, 99, 3, 99);
    let t = q(2, 99, 0xffff_ffff, 99);
    let (rd, lo, hi) = run(mmi2(0x0c, 3, 1, 2), s, t, 0, 0); // pmultw
    assert_eq!(rd, q(0, 0xffff_ffff, neg(-3), u32::MAX));
    assert_eq!(lo, q(0, 0, neg(-3), u32::MAX));
    assert_eq!(hi, q(u32::MAX, u32::MAX, u32::MAX, u32::MAX));
    let (rd, lo, hi) = run(mmi3(0x0c, 3, 1, 2), s, t, 0, 0); // pmultuw
    assert_eq!(rd, q(0, 1, 0xffff_fffd, 2));
    assert_eq!(lo, q(0, 0, 0xffff_fffd, u32::MAX));
    assert_eq!(hi, q(1, 0, 2, 0));
}

#[test]
fn parallel_word_multiply_add() {
    // The ps2autotests pmaddw case "-2147483648, -1" with HI/LO preset.
    let hi = q(0x89ab_cdef, 0x0123_4567, 0xabcd_ef01, 0x2345_6789);
    let lo = q(0x9abc_def0, 0x1234_5678, 0xcdef_0123, 0x4567_89ab);
    let s = q(0x8000_0000, 0, 0x8000_0000, 0);
    let t = q(u32::MAX, 0, u32::MAX, 0);
    let (rd, l, h) = run(mmi2(0x00, 3, 1, 2), s, t, lo, hi);
    assert_eq!(rd, q(0x1abc_def0, 0x89ab_cdf0, 0x4def_0123, 0xabcd_ef02));
    assert_eq!(h, q(0x89ab_cdf0, u32::MAX, 0xabcd_ef02, u32::MAX));
    assert_eq!(l, q(0x1abc_def0, 0, 0x4def_0123, 0));
    // pmsubw subtracts the same product.
    let (rd, _, _) = run(mmi2(0x04, 3, 1, 2), s, t, lo, hi);
    assert_eq!(rd, q(0x1abc_def0, 0x89ab_cdef, 0x4def_0123, 0xabcd_ef01));
    // pmadduw: unsigned 0xffffffff * 0xffffffff + 1.
    let (rd, _, _) = run(
        mmi3(0x00, 3, 1, 2),
        q(u32::MAX, 0, 0, 0),
        q(u32::MAX, 0, 0, 0),
        1,
        0,
    );
    assert_eq!(rd, q(2, 0xffff_fffe, 0, 0));
}

#[test]
fn parallel_word_divides() {
    let (_, lo, hi) = run(
        mmi2(0x0d, 0, 1, 2), // pdivw
        q(7, 0, 0x8000_0000, 0),
        q(0, 0, u32::MAX, 0),
        0,
        0,
    );
    assert_eq!(lo, q(u32::MAX, u32::MAX, 0x8000_0000, u32::MAX));
    assert_eq!(hi, q(7, 0, 0, 0));
    let (_, lo, hi) = run(
        mmi2(0x0d, 0, 1, 2),
        q(neg(-7), 0, 100, 0),
        q(2, 0, neg(-7), 0),
        0,
        0,
    );
    assert_eq!(lo, q(neg(-3), u32::MAX, neg(-14), u32::MAX));
    assert_eq!(hi, q(u32::MAX, u32::MAX, 2, 0));
    let (_, lo, hi) = run(mmi2(0x0d, 0, 1, 2), q(neg(-5), 0, 0, 0), 0, 0, 0);
    assert_eq!((lo as u64, hi as u64), (1, neg(-5) as i32 as u64));
    let (_, lo, hi) = run(
        mmi3(0x0d, 0, 1, 2), // pdivuw
        q(u32::MAX, 0, 5, 0),
        q(0x10, 0, 0, 0),
        0,
        0,
    );
    assert_eq!(lo, q(0x0fff_ffff, 0, u32::MAX, u32::MAX));
    assert_eq!(hi, q(0xf, 0, 5, 0));
}

#[test]
fn pdivbw_divides_by_a_halfword() {
    let s = q(100, neg(-100), 0x8000_0000, 7);
    let (_, lo, hi) = run(mmi2(0x1d, 0, 1, 2), s, 0xabcd_0007, 0, 0);
    assert_eq!(lo, q(14, neg(-14), 0xedb6_db6e, 1));
    assert_eq!(hi, q(2, neg(-2), neg(-2), 0));
    let (_, lo, hi) = run(mmi2(0x1d, 0, 1, 2), s, 0xffff, 0, 0);
    assert_eq!(lo, q(neg(-100), 100, 0x8000_0000, neg(-7)));
    assert_eq!(hi, q(0, 0, 0, 0));
    let (_, lo, hi) = run(mmi2(0x1d, 0, 1, 2), s, 0x1_0000, 0, 0);
    assert_eq!(lo, q(u32::MAX, 1, 1, u32::MAX));
    assert_eq!(hi, s);
}

fn hs() -> (u128, u128) {
    (
        qh([1, 2, 3, 4, 0xffff, 0x7fff, 0x8000, 5]),
        qh([10, 20, 30, 40, 2, 0x7fff, 0x8000, 0xffff]),
    )
}

#[test]
fn halfword_multiplies() {
    // Products: 10, 40, 90, 160, -2, 0x3fff0001, 0x40000000, -5.
    let (s, t) = hs();
    let (rd, lo, hi) = run(mmi2(0x1c, 3, 1, 2), s, t, 0, 0); // pmulth
    assert_eq!(lo, q(10, 40, neg(-2), 0x3fff_0001));
    assert_eq!(hi, q(90, 160, 0x4000_0000, neg(-5)));
    assert_eq!(rd, q(10, 90, neg(-2), 0x4000_0000));
    let (lo0, hi0) = (q(1, 1, 1, 1), q(2, 2, 2, 2));
    let (rd, lo, hi) = run(mmi2(0x10, 3, 1, 2), s, t, lo0, hi0); // pmaddh
    assert_eq!(lo, q(11, 41, neg(-1), 0x3fff_0002));
    assert_eq!(hi, q(92, 162, 0x4000_0002, neg(-3)));
    assert_eq!(rd, q(11, 92, neg(-1), 0x4000_0002));
    let (rd, lo, hi) = run(mmi2(0x14, 3, 1, 2), s, t, lo0, hi0); // pmsubh
    assert_eq!(lo, q(neg(-9), neg(-39), 3, 0xc001_0000));
    assert_eq!(hi, q(neg(-88), neg(-158), 0xc000_0002, 7));
    assert_eq!(rd, q(neg(-9), neg(-88), 3, 0xc000_0002));
}

#[test]
fn horizontal_halfword_multiplies() {
    let (s, t) = hs();
    let (rd, lo, hi) = run(mmi2(0x11, 3, 1, 2), s, t, 0, 0); // phmadh
    assert_eq!(lo, q(50, 40, 0x3ffe_ffff, 0x3fff_0001));
    assert_eq!(hi, q(250, 160, 0x3fff_fffb, neg(-5)));
    assert_eq!(rd, q(50, 250, 0x3ffe_ffff, 0x3fff_fffb));
    let (rd, lo, hi) = run(mmi2(0x15, 3, 1, 2), s, t, 0, 0); // phmsbh
    assert_eq!(lo, q(30, !40, 0x3fff_0003, !0x3fff_0001));
    assert_eq!(hi, q(70, !160, 0xbfff_fffb, 4));
    assert_eq!(rd, q(30, 70, 0x3fff_0003, 0xbfff_fffb));
}

#[test]
fn pmfhl_formats() {
    let lo = q(0x1111_1111, 0x2222_2222, 0x3333_3333, 0x4444_4444);
    let hi = q(0x5555_5555, 0x6666_6666, 0x7777_7777, 0x8888_8888);
    let f = |fmt| run(mmi(0x30, 3, 0, 0, fmt), 0, 0, lo, hi).0;
    assert_eq!(f(0), q(0x1111_1111, 0x5555_5555, 0x3333_3333, 0x7777_7777));
    assert_eq!(f(1), q(0x2222_2222, 0x6666_6666, 0x4444_4444, 0x8888_8888));
    assert_eq!(
        f(3),
        qh([
            0x1111, 0x2222, 0x5555, 0x6666, 0x3333, 0x4444, 0x7777, 0x8888
        ])
    );
    let lo = q(5, 0xffff_8000, 0x8000, 0xffff_7fff);
    let hi = q(0x7fff, 0xffff_fffe, 0x1234_5678, 0x8000_0000);
    assert_eq!(
        run(mmi(0x30, 3, 0, 0, 4), 0, 0, lo, hi).0,
        qh([5, 0x8000, 0x7fff, 0xfffe, 0x7fff, 0x8000, 0x7fff, 0x8000])
    );
}

#[test]
fn pmfhl_slw_saturates() {
    let slw = |hi0: u32, lo0: u32| {
        let (rd, _, _) = run(
            mmi(0x30, 3, 0, 0, 2),
            0,
            0,
            q(lo0, 0, 7, 0),
            q(hi0, 0, 0, 0),
        );
        assert_eq!(rd >> 64, 7, "second lane: 0:7 -> 7");
        rd as u64
    };
    assert_eq!(slw(0, 0x7fff_ffff), 0x7fff_ffff);
    assert_eq!(slw(0, 0x8000_0000), 0x7fff_ffff);
    assert_eq!(slw(1, 0), 0x7fff_ffff);
    assert_eq!(slw(u32::MAX, 0x8000_0000), 0xffff_ffff_8000_0000);
    assert_eq!(slw(u32::MAX, 0x7fff_ffff), 0xffff_ffff_8000_0000);
    assert_eq!(slw(u32::MAX, 0xffff_fffe), 0xffff_ffff_ffff_fffe);
    assert_eq!(slw(0xffff_fffe, 0), 0xffff_ffff_8000_0000);
}

#[test]
fn pmthl_lw_keeps_odd_words() {
    let (_, lo, hi) = run(
        mmi(0x31, 0, 1, 0, 0),
        q(0xa, 0xb, 0xc, 0xd),
        0,
        q(1, 2, 3, 4),
        q(5, 6, 7, 8),
    );
    assert_eq!(lo, q(0xa, 2, 0xc, 4));
    assert_eq!(hi, q(0xb, 6, 0xd, 8));
}
