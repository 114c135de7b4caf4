//! COP1 instructions run through the interpreter: transfers, FCR31, arithmetic with flags,
//! the accumulator, conversions, compares and branches. Expected values are hand-derived or the
//! hardware results of ps2autotests `cpu/ee_fpu`.

#[path = "vu0_support/mod.rs"]
mod support;

use piney_ee::cpu::{cop0reg, status};
use piney_ee::exception::ExceptionKind;
use support::*;

#[test]
fn mfc1_sign_extends_and_keeps_the_upper_half() {
    // ps2autotests transfer: "mfc1 negative: 80f0000f 80f0000f ffffffff bf800000".
    let (mut cpu, mut bus) = setup(&[cop1_move(0, 2, 1), cop1_move(0, 3, 4), cop1_move(0, 0, 1)]);
    cpu.fpu.fpr[1] = NEG_ONE;
    cpu.fpu.fpr[4] = ONE;
    cpu.gpr[2] = 0x80f0_000f_80f0_000f_0000_0000_80f0_000f;
    cpu.gpr[3] = 0x00f0_000f_00f0_000f_0000_0000_00f0_000f;
    steps(&mut cpu, &mut bus, 3);
    assert_eq!(cpu.gpr[2], 0x80f0_000f_80f0_000f_ffff_ffff_bf80_0000);
    assert_eq!(cpu.gpr[3], 0x00f0_000f_00f0_000f_0000_0000_3f80_0000);
    assert_eq!(cpu.gpr[0], 0);
}

#[test]
fn mtc1_takes_the_low_word() {
    let (mut cpu, mut bus) = setup(&[cop1_move(4, 2, 7)]);
    cpu.gpr[2] = 0xffff_ffff_00f0_000f_ffff_ffff_80f0_000f;
    steps(&mut cpu, &mut bus, 1);
    assert_eq!(cpu.fpu.fpr[7], 0x80f0_000f);
}

#[test]
fn fcr_reads_and_writes() {
    // ps2autotests fcr: fcr0-15 read 0x2e30, fcr16-31 read fcr31; initial fcr31 0x01000001.
    for n in 0..32 {
        let (mut cpu, mut bus) = setup(&[cop1_move(2, 2, n)]);
        steps(&mut cpu, &mut bus, 1);
        let want = if n < 16 { 0x2e30 } else { 0x0100_0001 };
        assert_eq!(cpu.gpr[2] as u32, want, "fcr{n}");
    }
    // CTC1 -1 to fcr31 reads back 0x0183c079 (transfer "ctc1"); writes to fcr0 do nothing.
    let (mut cpu, mut bus) = setup(&[
        cop1_move(6, 2, 31),
        cop1_move(2, 3, 31),
        cop1_move(6, 2, 0),
        cop1_move(2, 4, 0),
    ]);
    cpu.gpr[2] = u64::MAX as u128;
    cpu.gpr[3] = 0x1234_5678_1234_5678_1234_5678_1234_5678;
    steps(&mut cpu, &mut bus, 4);
    assert_eq!(cpu.gpr[3], 0x1234_5678_1234_5678_0000_0000_0183_c079);
    assert_eq!(cpu.gpr[4] as u32, 0x2e30);
    // Each field written alone: 0x7c -> 0x79, enables 0xf80 -> nothing, cause 0x1f000 ->
    // 0x1c000, FCC 0x800000 -> 0x800000 (all from the fcr test).
    for (v, want) in [
        (0x7c, 0x0100_0079),
        (0xf80, 0x0100_0001),
        (0x1_f000, 0x0101_c001),
        (0x2_0000, 0x0102_0001),
        (0x80_0000, 0x0180_0001),
        (0xfe00_0000, 0x0100_0001),
        (0x1c_0000, 0x0100_0001),
        (3, 0x0100_0001),
    ] {
        let (mut cpu, mut bus) = setup(&[cop1_move(6, 2, 31), cop1_move(2, 3, 31)]);
        cpu.gpr[2] = v;
        steps(&mut cpu, &mut bus, 2);
        assert_eq!(cpu.gpr[3] as u32, want, "ctc1 {v:#x}");
    }
}

#[test]
fn lwc1_and_swc1() {
    let (mut cpu, mut bus) = setup(&[mem(0x31, 5, 4, 4), mem(0x39, 5, 4, -4)]);
    cpu.gpr[4] = 0x2000;
    bus.put32(0x2004, 0x4f2b_cdef);
    steps(&mut cpu, &mut bus, 2);
    assert_eq!(cpu.fpu.fpr[5], 0x4f2b_cdef);
    assert_eq!(bus.get32(0x1ffc), 0x4f2b_cdef);
    // A misaligned address raises an address error.
    let (mut cpu, mut bus) = setup(&[mem(0x31, 5, 4, 2)]);
    cpu.gpr[4] = 0x2000;
    let e = piney_ee::interp::step(&mut cpu, &mut bus).unwrap_err();
    assert_eq!(e.kind, ExceptionKind::AddressLoad);
}

/// Run one S-format op on fs/ft values with FCR31 cleared; return (fd, fcr31 as CFC1 reads it).
fn s_op(funct: u32, fs: u32, ft: u32) -> (u32, u32) {
    let (mut cpu, mut bus) = setup(&[cop1_s(funct, 3, 1, 2), cop1_move(2, 8, 31)]);
    cpu.fpu.fpr[1] = fs;
    cpu.fpu.fpr[2] = ft;
    cpu.fpu.fpr[3] = 0x1337;
    steps(&mut cpu, &mut bus, 2);
    (cpu.fpu.fpr[3], cpu.gpr[8] as u32)
}

#[test]
fn flag_situations_from_the_fcr_test() {
    // sqrt(-1): I|SI, result 1.0.
    assert_eq!(s_op(SQRT_S, 0, NEG_ONE), (ONE, 0x0102_0041));
    // 0/0: I|SI.
    assert_eq!(s_op(DIV_S, 0, 0), (0x7fff_ffff, 0x0102_0041));
    // 1/0: D|SD.
    assert_eq!(s_op(DIV_S, ONE, 0), (0x7fff_ffff, 0x0101_0021));
    // 0x7f800001 + itself: O|SO.
    assert_eq!(
        s_op(ADD_S, 0x7f80_0001, 0x7f80_0001),
        (0x7fff_ffff, 0x0100_8011)
    );
    // FLT_MAX * FLT_MAX: O|SO.
    assert_eq!(s_op(MUL_S, 0x7f7f_ffff, 0x7f7f_ffff).1, 0x0100_8011);
    // FLT_MIN / 3: no flag at all, result 0.
    assert_eq!(s_op(DIV_S, 0x0080_0000, THREE), (0, 0x0100_0001));
    // 1 / 3.0000x: no inexact flag on this FPU.
    assert_eq!(s_op(DIV_S, ONE, 0x4040_ffff).1, 0x0100_0001);
}

#[test]
fn arithmetic_results() {
    // Hardware results (ee_fpu arithmetic/muldiv/sqrt).
    assert_eq!(s_op(ADD_S, 0x3fff_ffff, ONE).0, 0x403f_ffff);
    assert_eq!(s_op(SUB_S, ONE, 0x3fff_ffff).0, 0xbf7f_fffe);
    assert_eq!(s_op(SUB_S, 0x8000_0000, 0).0, 0x8000_0000);
    assert_eq!(s_op(MUL_S, ONE, 0x3fff_ffff).0, 0x3fff_fffe);
    assert_eq!(s_op(MUL_S, 0x3fff_ffff, ONE).0, 0x3fff_ffff);
    assert_eq!(s_op(DIV_S, ONE, 0x3fff_ffff).0, 0x3f00_0001);
    assert_eq!(s_op(SQRT_S, 0, 0x7fff_ffff).0, 0x5fb5_04f3);
    assert_eq!(s_op(RSQRT_S, 0x7fff_ffff, 0x7fff_ffff).0, 0x5fb5_04f2);
    assert_eq!(s_op(RSQRT_S, ONE, 0x41c8_0000).0, 0x3e4c_cccd);
    assert_eq!(s_op(MAX_S, 0xffff_ffff, ONE).0, ONE);
    assert_eq!(s_op(MIN_S, 0x1337, 0xdead_beef).0, 0xdead_beef);
    assert_eq!(s_op(ABS_S, 0xffff_ffff, 0).0, 0x7fff_ffff);
    assert_eq!(s_op(NEG_S, 0x1337, 0).0, 0x8000_1337);
    assert_eq!(s_op(MOV_S, 0xdead_beef, 0).0, 0xdead_beef);
    assert_eq!(s_op(CVT_W_S, 0xbfc0_0000, 0).0, 0xffff_ffff);
    assert_eq!(s_op(CVT_W_S, 0x4eff_ffff, 0).0, 0x7fff_ff80);
    assert_eq!(s_op(CVT_W_S, 0x7f80_0000, 0).0, 0x7fff_ffff);
    let (mut cpu, mut bus) = setup(&[cop1_w(0x20, 3, 1)]);
    cpu.fpu.fpr[1] = 0xdead_beef;
    steps(&mut cpu, &mut bus, 1);
    assert_eq!(cpu.fpu.fpr[3], 0xce05_4904);
}

#[test]
fn unary_and_minmax_clear_overflow_and_underflow_causes() {
    let (mut cpu, mut bus) = setup(&[cop1_s(ABS_S, 3, 1, 0), cop1_s(MOV_S, 4, 1, 0)]);
    cpu.fpu.fcr31 = 0x0000_c018; // O, U, SO, SU
    steps(&mut cpu, &mut bus, 1);
    assert_eq!(
        cpu.fpu.fcr31, 0x18,
        "ABS clears the causes, keeps the sticky bits"
    );
    cpu.fpu.fcr31 = 0x0000_c018;
    steps(&mut cpu, &mut bus, 1);
    assert_eq!(cpu.fpu.fcr31, 0xc018, "MOV touches nothing");
}

#[test]
fn arithmetic_clears_an_old_cause() {
    // An overflow, then a plain add: O clears, SO stays.
    let (mut cpu, mut bus) = setup(&[cop1_s(MUL_S, 3, 1, 1), cop1_s(ADD_S, 4, 2, 2)]);
    cpu.fpu.fpr[1] = 0x7f7f_ffff;
    cpu.fpu.fpr[2] = ONE;
    steps(&mut cpu, &mut bus, 1);
    assert_eq!(cpu.fpu.fcr31, 0x8010);
    steps(&mut cpu, &mut bus, 1);
    assert_eq!(cpu.fpu.fcr31, 0x0010);
    assert_eq!(cpu.fpu.fpr[4], TWO);
}

#[test]
fn accumulator_ops() {
    // ACC = 2 * 3; ACC += 1 * 4; f5 = ACC - 2 * 2; ACC -= 1 * 1; f6 = ACC + 0.
    let (mut cpu, mut bus) = setup(&[
        cop1_s(MULA_S, 0, 2, 3),
        cop1_s(MADDA_S, 0, 1, 4),
        cop1_s(MSUB_S, 5, 2, 2),
        cop1_s(MSUBA_S, 0, 1, 1),
        cop1_s(MADD_S, 6, 0, 0),
        cop1_s(ADDA_S, 0, 3, 3),
        cop1_s(SUBA_S, 0, 4, 1),
        cop1_s(MADD_S, 7, 0, 0),
    ]);
    cpu.fpu.fpr[1] = ONE;
    cpu.fpu.fpr[2] = TWO;
    cpu.fpu.fpr[3] = THREE;
    cpu.fpu.fpr[4] = FOUR;
    steps(&mut cpu, &mut bus, 5);
    assert_eq!(cpu.fpu.fpr[5], 0x40c0_0000, "10 - 4 = 6");
    assert_eq!(cpu.fpu.fpr[6], 0x4110_0000, "10 - 1 = 9");
    steps(&mut cpu, &mut bus, 3);
    assert_eq!(cpu.fpu.acc, THREE, "4 - 1");
    assert_eq!(cpu.fpu.fpr[7], THREE);
}

#[test]
fn madd_overflowing_product_wins() {
    // Hardware: madd (acc -max) 0x7fffffff * 0x7fffffff = +max, O set.
    let (mut cpu, mut bus) = setup(&[cop1_s(MADD_S, 3, 1, 1), cop1_move(2, 8, 31)]);
    cpu.fpu.acc = 0xffff_ffff;
    cpu.fpu.fpr[1] = 0x7fff_ffff;
    steps(&mut cpu, &mut bus, 2);
    assert_eq!(cpu.fpu.fpr[3], 0x7fff_ffff);
    assert_eq!(cpu.gpr[8] as u32, 0x0100_8011);
}

#[test]
fn compares_set_the_condition_bit() {
    for (funct, a, b, want) in [
        (C_EQ, 0, 0x8000_0000, true),
        (C_EQ, 0, 1, true),
        (C_EQ, 0x7f80_0000, 0x7f80_0001, false),
        (C_LT, 0xffff_ffff, 0x7fff_ffff, true),
        (C_LT, 0x7f80_0001, 0x7f80_0000, false),
        (C_LE, 0x8000_0000, 0, true),
        (C_LE, 0x1337, 0xdead_beef, false),
        (C_F, 0, 0, false),
    ] {
        let (mut cpu, mut bus) = setup(&[cop1_s(funct, 0, 1, 2)]);
        cpu.fpu.fpr[1] = a;
        cpu.fpu.fpr[2] = b;
        cpu.fpu.fcr31 = if want { 0 } else { 1 << 23 };
        steps(&mut cpu, &mut bus, 1);
        assert_eq!(
            cpu.fpu.fcr31 >> 23 & 1 == 1,
            want,
            "{funct:#x} {a:08x} {b:08x}"
        );
    }
}

#[test]
fn bc1_branches() {
    // bc1t +2 (to 0x100c), delay slot at 0x1004.
    for (kind, c, taken, delay_runs) in [
        (0, false, true, true),
        (0, true, false, true),
        (1, true, true, true),
        (1, false, false, true),
        (2, false, true, true),
        (2, true, false, false),
        (3, true, true, true),
        (3, false, false, false),
    ] {
        let (mut cpu, mut bus) = setup(&[bc1(kind, 2), cop1_s(MOV_S, 9, 1, 0)]);
        cpu.fpu.fpr[1] = ONE;
        cpu.fpu.fcr31 = if c { 1 << 23 } else { 0 };
        steps(&mut cpu, &mut bus, 1);
        if delay_runs {
            assert_eq!(cpu.pc, CODE + 4);
            steps(&mut cpu, &mut bus, 1);
        }
        assert_eq!(
            cpu.fpu.fpr[9] == ONE,
            delay_runs,
            "kind {kind} c {c}: delay slot"
        );
        let want = if taken { CODE + 12 } else { CODE + 8 };
        assert_eq!(cpu.pc, want, "kind {kind} c {c}");
    }
}

#[test]
fn bc1t_chain_in_delay_slots_ends_at_the_last_target() {
    // ps2autotests cpu/ee_fpu/branchdelay (hardware): four BC1Ts in a row, each in the previous
    // one's delay slot, end at the fourth target; four BC1TLs end at the second (as BEQs do).
    // Targets: CODE+20, +24, +28, +32 (each offset 4 from its own delay slot).
    let chain = |kind| [bc1(kind, 4), bc1(kind, 4), bc1(kind, 4), bc1(kind, 4), 0];
    let (mut cpu, mut bus) = setup(&chain(1));
    cpu.fpu.fcr31 = 1 << 23;
    steps(&mut cpu, &mut bus, 5);
    assert_eq!(cpu.pc, CODE + 32, "bc1t chain");
    let (mut cpu, mut bus) = setup(&chain(3));
    cpu.fpu.fcr31 = 1 << 23;
    // bc1tl 1 -> its slot bc1tl 2 -> one instruction at target 1 -> target 2.
    steps(&mut cpu, &mut bus, 3);
    assert_eq!(cpu.pc, CODE + 24, "bc1tl chain");
}

#[test]
fn cop1_unusable() {
    let (mut cpu, mut bus) = setup(&[cop1_s(ADD_S, 3, 1, 2)]);
    cpu.cop0.regs[cop0reg::STATUS] &= !status::CU1;
    let e = piney_ee::interp::step(&mut cpu, &mut bus).unwrap_err();
    assert_eq!(e.kind, ExceptionKind::CopUnusable);
    assert_eq!(
        cpu.cop0.regs[cop0reg::CAUSE] >> 28 & 3,
        1,
        "Cause.CE names COP1"
    );
    assert_eq!(cpu.cop0.regs[cop0reg::CAUSE] >> 2 & 31, 11);
}

#[test]
fn disassembly() {
    use piney_ee::disasm::disassemble;
    assert_eq!(
        disassemble(cop1_s(ADD_S, 1, 2, 3), 0),
        "add.s $f1, $f2, $f3"
    );
    assert_eq!(disassemble(cop1_s(SQRT_S, 1, 0, 3), 0), "sqrt.s $f1, $f3");
    assert_eq!(disassemble(cop1_s(C_LT, 0, 2, 3), 0), "c.lt.s $f2, $f3");
    assert_eq!(disassemble(cop1_move(0, 2, 1), 0), "mfc1 $v0, $f1");
    assert_eq!(disassemble(cop1_move(6, 2, 31), 0), "ctc1 $v0, $31");
    assert_eq!(disassemble(mem(0x31, 1, 29, -8), 0), "lwc1 $f1, -8($sp)");
    assert_eq!(disassemble(cop1_w(0x20, 1, 2), 0), "cvt.s.w $f1, $f2");
}
