//! ALU, shifts, multiply/divide, HI/LO and SA: expected values worked out from the ISA.

#[path = "integer_asm.rs"]
mod asm;
use asm::*;
use piney_ee::cpu::{VECTOR_COMMON, cop0reg};
use piney_ee::exception::ExceptionKind;

const UPPER: u128 = 0xdead_beef_1111_2222u128 << 64;

#[test]
fn addu_sign_extends_and_keeps_upper_64() {
    let m = exec1(sp(0x21, 3, 1, 2, 0), |m| {
        m.set(1, 0x7fff_ffff);
        m.set(2, 1);
        m.cpu.gpr[3] = UPPER | 0x1234;
    });
    assert_eq!(m.get(3), 0xffff_ffff_8000_0000);
    assert_eq!(m.cpu.gpr[3] & !(u64::MAX as u128), UPPER);
}

#[test]
fn add_overflow_raises_and_leaves_rd() {
    let mut m = M::new(&[sp(0x20, 3, 1, 2, 0)]);
    m.set(1, 0x7fff_ffff);
    m.set(2, 1);
    m.set(3, 55);
    let e = m.step().unwrap_err();
    assert_eq!(e.kind, ExceptionKind::Overflow);
    assert_eq!(m.get(3), 55);
    assert_eq!(m.cpu.cop0.regs[cop0reg::EPC], BASE);
    assert_eq!((m.cpu.cop0.regs[cop0reg::CAUSE] >> 2) & 31, 12);
    assert_eq!(m.cpu.pc, VECTOR_COMMON);
}

#[test]
fn add_and_sub_without_overflow() {
    let m = exec1(sp(0x20, 3, 1, 2, 0), |m| {
        m.set(1, 0xffff_ffff_ffff_fffe); // -2
        m.set(2, 5);
    });
    assert_eq!(m.get(3), 3);
    let m = exec1(sp(0x22, 3, 1, 2, 0), |m| {
        m.set(1, 0);
        m.set(2, 0x7fff_ffff);
    });
    assert_eq!(m.get(3), 0xffff_ffff_8000_0001);
    let mut m = M::new(&[sp(0x22, 3, 1, 2, 0)]);
    m.set(1, 0xffff_ffff_8000_0000);
    m.set(2, 1);
    assert_eq!(m.step().unwrap_err().kind, ExceptionKind::Overflow);
}

#[test]
fn addi_daddi_overflow() {
    let mut m = M::new(&[imm(0x08, 2, 1, 1)]);
    m.set(1, 0x7fff_ffff);
    assert_eq!(m.step().unwrap_err().kind, ExceptionKind::Overflow);
    let mut m = M::new(&[imm(0x18, 2, 1, -1)]);
    m.set(1, 0x8000_0000_0000_0000);
    assert_eq!(m.step().unwrap_err().kind, ExceptionKind::Overflow);
    let m = exec1(imm(0x18, 2, 1, -1), |m| m.set(1, 0x8000_0000));
    assert_eq!(m.get(2), 0x7fff_ffff);
    let m = exec1(imm(0x19, 2, 1, -16), |m| m.set(1, 0x1_0000_0000));
    assert_eq!(m.get(2), 0xffff_fff0);
}

#[test]
fn dadd_dsub() {
    let mut m = M::new(&[sp(0x2c, 3, 1, 2, 0)]);
    m.set(1, 0x7fff_ffff_ffff_ffff);
    m.set(2, 1);
    assert_eq!(m.step().unwrap_err().kind, ExceptionKind::Overflow);
    let m = exec1(sp(0x2d, 3, 1, 2, 0), |m| {
        m.set(1, 0x7fff_ffff_ffff_ffff);
        m.set(2, 1);
    });
    assert_eq!(m.get(3), 0x8000_0000_0000_0000);
    let m = exec1(sp(0x2f, 3, 1, 2, 0), |m| {
        m.set(1, 0);
        m.set(2, 1);
    });
    assert_eq!(m.get(3), u64::MAX);
    let mut m = M::new(&[sp(0x2e, 3, 1, 2, 0)]);
    m.set(1, 0x8000_0000_0000_0000);
    m.set(2, 1);
    assert_eq!(m.step().unwrap_err().kind, ExceptionKind::Overflow);
}

#[test]
fn logic_and_immediates() {
    let (a, b) = (0xf0f0_0000_ff00_1234u64, 0x0ff0_0000_0f0f_4321u64);
    let r = |f| {
        exec1(sp(f, 3, 1, 2, 0), |m| {
            m.set(1, a);
            m.set(2, b);
        })
        .get(3)
    };
    assert_eq!(r(0x24), a & b);
    assert_eq!(r(0x25), a | b);
    assert_eq!(r(0x26), a ^ b);
    assert_eq!(r(0x27), !(a | b));
    let ri = |op, i: i32| exec1(imm(op, 2, 1, i), |m| m.set(1, a)).get(2);
    assert_eq!(ri(0x0c, 0xff00u16 as i16 as i32), 0xff00 & a);
    assert_eq!(ri(0x0d, 0x8001u16 as i16 as i32), a | 0x8001);
    assert_eq!(ri(0x0e, 0xffff_u16 as i16 as i32), a ^ 0xffff);
    assert_eq!(ri(0x0f, 0x8000u16 as i16 as i32), 0xffff_ffff_8000_0000);
    assert_eq!(ri(0x0f, 0x1234), 0x1234_0000);
}

#[test]
fn set_less_than() {
    let r = |f, a: u64, b: u64| {
        exec1(sp(f, 3, 1, 2, 0), |m| {
            m.set(1, a);
            m.set(2, b);
        })
        .get(3)
    };
    assert_eq!(r(0x2a, u64::MAX, 0), 1);
    assert_eq!(r(0x2b, u64::MAX, 0), 0);
    assert_eq!(r(0x2a, 0x1_0000_0000, 5), 0);
    let ri = |op, a: u64, i| exec1(imm(op, 2, 1, i), |m| m.set(1, a)).get(2);
    assert_eq!(ri(0x0a, u64::MAX, 0), 1);
    // SLTIU compares with the sign-extended immediate: 5 < 0xffff...ffff.
    assert_eq!(ri(0x0b, 5, -1), 1);
    assert_eq!(ri(0x0b, u64::MAX, -1), 0);
}

#[test]
fn shifts_32_and_64() {
    let r = |f, v: u64, sa| exec1(sp(f, 3, 0, 2, sa), |m| m.set(2, v)).get(3);
    assert_eq!(r(0x00, 0x4000_0001, 1), 0xffff_ffff_8000_0002);
    assert_eq!(r(0x02, 0xffff_ffff_8000_0000, 4), 0x0800_0000);
    assert_eq!(r(0x03, 0x8000_0000, 4), 0xffff_ffff_f800_0000);
    assert_eq!(r(0x38, 0x8000_0001, 4), 0x8_0000_0010);
    assert_eq!(r(0x3a, 0x8000_0000_0000_0000, 4), 0x0800_0000_0000_0000);
    assert_eq!(r(0x3b, 0x8000_0000_0000_0000, 4), 0xf800_0000_0000_0000);
    assert_eq!(r(0x3c, 1, 3), 1 << 35);
    assert_eq!(r(0x3e, 0x8000_0000_0000_0000, 0), 0x8000_0000);
    assert_eq!(r(0x3f, 0x8000_0000_0000_0000, 31), u64::MAX);
    let rv = |f, v: u64, s: u64| {
        exec1(sp(f, 3, 1, 2, 0), |m| {
            m.set(1, s);
            m.set(2, v);
        })
        .get(3)
    };
    // Only rs[4:0] (32-bit) or rs[5:0] (64-bit) count.
    assert_eq!(rv(0x04, 1, 33), 2);
    assert_eq!(rv(0x06, 0x8000_0000, 31), 1);
    assert_eq!(rv(0x06, 0x8000_0000, 0), 0xffff_ffff_8000_0000);
    assert_eq!(rv(0x07, 0x8000_0000, 31), u64::MAX);
    assert_eq!(rv(0x14, 1, 64 + 40), 1 << 40);
    assert_eq!(rv(0x16, 1 << 63, 63), 1);
    assert_eq!(rv(0x17, 1 << 63, 63), u64::MAX);
}

#[test]
fn movz_movn() {
    let r = |f, t: u64| {
        exec1(sp(f, 3, 1, 2, 0), |m| {
            m.set(1, 0x1234_5678_9abc_def0);
            m.set(2, t);
            m.set(3, 7);
        })
        .get(3)
    };
    assert_eq!(r(0x0a, 0), 0x1234_5678_9abc_def0);
    assert_eq!(r(0x0a, 1), 7);
    assert_eq!(r(0x0b, 0), 7);
    assert_eq!(r(0x0b, 1 << 40), 0x1234_5678_9abc_def0);
}

#[test]
fn mult_writes_lo_hi_and_rd() {
    let m = exec1(sp(0x18, 3, 1, 2, 0), |m| {
        m.set(1, 0xffff_ffff_8000_0000); // -2^31
        m.set(2, 3);
    });
    // -3 * 2^31 = 0xfffffffe_80000000.
    assert_eq!(m.cpu.lo as u64, 0xffff_ffff_8000_0000);
    assert_eq!(m.cpu.hi as u64, 0xffff_ffff_ffff_fffe);
    assert_eq!(m.get(3), 0xffff_ffff_8000_0000);
    let m = exec1(sp(0x19, 3, 1, 2, 0), |m| {
        m.set(1, 0xffff_ffff);
        m.set(2, 0xffff_ffff);
        m.cpu.lo = 0xaaaa << 64;
    });
    // 0xffffffff^2 = 0xfffffffe_00000001; HI sign-extended from 32 bits.
    assert_eq!(m.cpu.lo as u64, 1);
    assert_eq!(m.cpu.hi as u64, 0xffff_ffff_ffff_fffe);
    assert_eq!(m.cpu.lo >> 64, 0xaaaa, "LO1 untouched");
    assert_eq!(m.get(3), 1);
}

#[test]
fn div_results_including_by_zero_and_overflow() {
    let d = |f, a: u64, b: u64| {
        let m = exec1(sp(f, 0, 1, 2, 0), |m| {
            m.set(1, a);
            m.set(2, b);
        });
        (m.cpu.lo as u64, m.cpu.hi as u64)
    };
    assert_eq!(d(0x1a, 53, 2), (26, 1));
    assert_eq!(d(0x1a, (-7i64) as u64, 2), ((-3i64) as u64, (-1i64) as u64));
    assert_eq!(d(0x1a, 1, 0), (u64::MAX, 1));
    assert_eq!(d(0x1a, (-53i64) as u64, 0), (1, (-53i64) as u64));
    assert_eq!(d(0x1a, 0, 0), (u64::MAX, 0));
    assert_eq!(
        d(0x1a, 0xffff_ffff_8000_0000, u64::MAX),
        (0xffff_ffff_8000_0000, 0)
    );
    assert_eq!(d(0x1b, 0xffff_fff0, 0x10), (0x0fff_ffff, 0));
    assert_eq!(d(0x1b, 0xffff_fff1, 0x10), (0x0fff_ffff, 1));
    assert_eq!(d(0x1b, 0x8000_0000, 1), (0xffff_ffff_8000_0000, 0));
    assert_eq!(d(0x1b, 5, 0), (u64::MAX, 5));
    assert_eq!(d(0x1b, 0x8000_0005, 0), (u64::MAX, 0xffff_ffff_8000_0005));
}

#[test]
fn hi_lo_moves() {
    let mut m = M::new(&[
        sp(0x11, 0, 1, 0, 0), // mthi r1
        sp(0x13, 0, 2, 0, 0), // mtlo r2
        sp(0x10, 3, 0, 0, 0), // mfhi r3
        sp(0x12, 4, 0, 0, 0), // mflo r4
    ]);
    m.set(1, 0x1111_2222_3333_4444);
    m.set(2, 0x5555_6666_7777_8888);
    m.cpu.hi = 0x99 << 64;
    m.run(4);
    assert_eq!(m.get(3), 0x1111_2222_3333_4444);
    assert_eq!(m.get(4), 0x5555_6666_7777_8888);
    assert_eq!(m.cpu.hi >> 64, 0x99, "HI1 kept");
}

#[test]
fn sa_register() {
    // mtsab r1, 5 with r1 = 3 -> SA = 6 bytes; mfsa reads 6.
    let mut m = M::new(&[regimm(0x18, 1, 5), sp(0x28, 3, 0, 0, 0)]);
    m.set(1, 3);
    m.run(2);
    assert_eq!(m.cpu.sa, 48);
    assert_eq!(m.get(3), 6);
    // mtsah r1, 2 with r1 = 5 -> (5 ^ 2) & 7 = 7 halfwords = 14 bytes.
    let m = exec1(regimm(0x19, 1, 2), |m| m.set(1, 5));
    assert_eq!(m.cpu.sa, 14 * 8);
    // mtsa keeps the low 4 bits of the byte count.
    let m = exec1(sp(0x29, 0, 1, 0, 0), |m| m.set(1, 0xffff));
    assert_eq!(m.cpu.sa, 15 * 8);
}

#[test]
fn r0_stays_zero() {
    let m = exec1(imm(0x09, 0, 0, 5), |_| {});
    assert_eq!(m.cpu.gpr[0], 0);
    let m = exec1(sp(0x18, 0, 1, 2, 0), |m| {
        m.set(1, 3);
        m.set(2, 4);
    });
    assert_eq!(m.cpu.gpr[0], 0);
    assert_eq!(m.cpu.lo as u64, 12);
}
