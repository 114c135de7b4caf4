//! COP2 (VU0 macro mode) instructions run through the interpreter: transfers, control
//! registers, FMAC arithmetic with MAC/status flags, the lower instructions, R, Q, clipping,
//! VU0 data memory and micro program calls. Expected values are hand-derived or the hardware
//! results of ps2autotests `cpu/vu0_macro` and `vu/lower/random`.

#[path = "vu0_support/mod.rs"]
mod support;
#[path = "vu0_support/vi_vectors.rs"]
mod vi_vectors;

use piney_ee::cpu::{Cpu, cop0reg, status};
use piney_ee::exception::ExceptionKind;
use support::*;

const STATUS: usize = 16;
const MAC: usize = 17;
const CLIP: usize = 18;
const R: usize = 20;
const I: usize = 21;
const Q: usize = 22;

fn fresh() -> (Cpu, TestBus) {
    setup(&[])
}

fn run(cpu: &mut Cpu, bus: &mut TestBus, words: &[u32]) {
    exec_all(cpu, bus, words);
}

#[test]
fn qmtc2_and_qmfc2_move_128_bits() {
    let (mut cpu, mut bus) = fresh();
    cpu.gpr[2] = 0x1234_5678_9abc_def0_0fed_cba9_8765_4321;
    run(
        &mut cpu,
        &mut bus,
        &[
            qmtc2(2, 5),
            qmfc2(3, 5),
            qmtc2(2, 0),
            qmfc2(4, 0),
            qmfc2(0, 5),
        ],
    );
    assert_eq!(
        cpu.vu0.vf[5],
        [0x8765_4321, 0x0fed_cba9, 0x9abc_def0, 0x1234_5678]
    );
    assert_eq!(cpu.gpr[3], cpu.gpr[2]);
    // VF0 ignores writes and reads (0, 0, 0, 1.0): "qmfc2: 3f800000 00000000 00000000 00000000".
    assert_eq!(cpu.gpr[4], 0x3f80_0000_u128 << 96);
    assert_eq!(cpu.gpr[0], 0);
}

#[test]
fn ctc2_then_cfc2_per_register() {
    // ps2autotests vu0_macro/transfer: write -1, read back.
    for (reg, want) in [
        (0, 0),
        (1, 0xffff),
        (15, 0xffff),
        (16, 0xfc0),
        (17, 0),
        (18, 0x00ff_ffff),
        (19, 0x2e30),
        (20, 0x007f_ffff),
        (21, 0xffff_ffff),
        (22, 0xffff_ffff),
        (23, 0),
        (24, 0x0c0c),
        (25, 0),
        (27, 0xffff),
        (28, 0),
        (29, 0),
        (31, 0xffff),
    ] {
        let (mut cpu, mut bus) = fresh();
        cpu.gpr[2] = u128::MAX;
        run(&mut cpu, &mut bus, &[ctc2(2, reg), cfc2(3, reg)]);
        assert_eq!(cpu.gpr[3] as u32, want, "vi{reg}");
    }
    // CFC2 sign-extends into the low 64 bits and keeps the upper 64:
    // "cfc2: 12345678 12345678 ffffffff ffffffff".
    let (mut cpu, mut bus) = fresh();
    cpu.vu0.vi[I] = 0xffff_ffff;
    cpu.gpr[3] = 0x1234_5678_1234_5678_0000_0000_1234_5678;
    run(&mut cpu, &mut bus, &[cfc2(3, 21), cfc2(0, 21)]);
    assert_eq!(cpu.gpr[3], 0x1234_5678_1234_5678_ffff_ffff_ffff_ffff);
    assert_eq!(cpu.gpr[0], 0);
}

#[test]
fn status_ctc2_keeps_the_live_flags() {
    let (mut cpu, mut bus) = fresh();
    cpu.vu0.vi[STATUS] = 0x3f;
    cpu.gpr[2] = 0;
    run(&mut cpu, &mut bus, &[ctc2(2, 16)]);
    assert_eq!(cpu.vu0.vi[STATUS], 0x3f);
}

#[test]
fn lqc2_and_sqc2() {
    use piney_ee::interp::cop2::{lqc2, sqc2};
    let (mut cpu, mut bus) = fresh();
    cpu.gpr[4] = 0x2010;
    for (i, w) in [0x2345_6789u32, 0xabcd_ef01, 0xbeef_dead, 0xc0de_c0de]
        .iter()
        .enumerate()
    {
        bus.put32(0x2010 + 4 * i as u32, *w);
    }
    // lqc2 vf1, 0(a0); sqc2 vf1, 16(a0); lqc2 vf0 (ignored); the low four address bits are
    // ignored.
    lqc2(&mut cpu, &mut bus, mem(0x36, 1, 4, 0)).unwrap();
    assert_eq!(
        cpu.vu0.vf[1],
        [0x2345_6789, 0xabcd_ef01, 0xbeef_dead, 0xc0de_c0de]
    );
    sqc2(&mut cpu, &mut bus, mem(0x3e, 1, 4, 0x2c)).unwrap();
    assert_eq!(bus.get32(0x2030), 0x2345_6789);
    assert_eq!(bus.get32(0x203c), 0xc0de_c0de);
    lqc2(&mut cpu, &mut bus, mem(0x36, 0, 4, 0)).unwrap();
    assert_eq!(cpu.vu0.vf[0], [0, 0, 0, ONE]);
}

#[test]
fn integer_ops_match_hardware() {
    for &(op, s, t, want) in vi_vectors::VI_OPS {
        let (mut cpu, mut bus) = fresh();
        cpu.vu0.vi[1] = 0x1337;
        cpu.vu0.vi[2] = s;
        let word = match op {
            "viaddi" => vu1(0x32, 0, 1, 2, t as u32 & 0x1f),
            _ => {
                cpu.vu0.vi[3] = t as u32;
                let funct = match op {
                    "viadd" => 0x30,
                    "visub" => 0x31,
                    "viand" => 0x34,
                    "vior" => 0x35,
                    other => panic!("unknown {other}"),
                };
                vu1(funct, 0, 3, 2, 1)
            }
        };
        run(&mut cpu, &mut bus, &[word]);
        assert_eq!(cpu.vu0.vi[1], want, "{op} {s:#x}, {t}");
        assert_eq!(
            (cpu.vu0.vi[STATUS], cpu.vu0.vi[MAC]),
            (0, 0),
            "no flag changes"
        );
    }
    // A write to VI0 is dropped: "viadd -> $0: 0000".
    let (mut cpu, mut bus) = fresh();
    cpu.vu0.vi[2] = 0xdead;
    cpu.vu0.vi[3] = 0x7331;
    run(
        &mut cpu,
        &mut bus,
        &[vu1(0x30, 0, 3, 2, 0), vu1(0x35, 0, 0, 0, 1)],
    );
    assert_eq!(cpu.vu0.vi[0], 0);
    assert_eq!(cpu.vu0.vi[1], 0);
}

#[test]
fn vadd_writes_dest_lanes_and_mac_flags() {
    let (mut cpu, mut bus) = fresh();
    cpu.vu0.vf[1] = [ONE, 0xc000_0000, 0, THREE];
    cpu.vu0.vf[2] = [ONE, TWO, 0x8000_0000, 0xc040_0000];
    cpu.vu0.vf[3] = [7, 7, 7, 7];
    // vadd.xyzw vf3, vf1, vf2 = (2, 0, 0, 0): Z on y, z, w.
    run(&mut cpu, &mut bus, &[vu1(0x28, XYZW, 2, 1, 3)]);
    assert_eq!(cpu.vu0.vf[3], [TWO, 0, 0, 0]);
    assert_eq!(cpu.vu0.vi[MAC], 0x0007);
    assert_eq!(cpu.vu0.vi[STATUS], 0x041, "Z and its sticky copy");
    // vsub.xw vf4, vf2, vf1 = (0, -, -, -6): x zero, w negative; y and z untouched.
    cpu.vu0.vf[4] = [7, 7, 7, 7];
    run(&mut cpu, &mut bus, &[vu1(0x2c, X | W, 1, 2, 4)]);
    assert_eq!(cpu.vu0.vf[4], [0, 7, 7, 0xc0c0_0000]);
    assert_eq!(cpu.vu0.vi[MAC], 0x0018, "Z x (bit 3), S w (bit 4)");
    assert_eq!(cpu.vu0.vi[STATUS], 0x0c3, "Z S live, ZS SS sticky");
    // A flagless result clears the live bits, not the sticky ones.
    run(&mut cpu, &mut bus, &[vu1(0x28, X, 2, 1, 5)]);
    assert_eq!(cpu.vu0.vi[MAC], 0);
    assert_eq!(cpu.vu0.vi[STATUS], 0x0c0);
}

#[test]
fn overflow_and_underflow_flags() {
    let (mut cpu, mut bus) = fresh();
    cpu.vu0.vf[1] = [0x7f7f_ffff, 0x0d80_0000, ONE, 0xff7f_ffff];
    // vmul.xyzw vf2, vf1, vf1: x overflows, y underflows (2^-200), w overflows positive.
    run(&mut cpu, &mut bus, &[vu1(0x2a, XYZW, 1, 1, 2)]);
    assert_eq!(cpu.vu0.vf[2], [0x7fff_ffff, 0, ONE, 0x7fff_ffff]);
    // O on x and w, U and Z on y.
    assert_eq!(cpu.vu0.vi[MAC], 0x9000 | 0x0400 | 0x0004);
    assert_eq!(cpu.vu0.vi[STATUS], 0x00d | 0x340);
}

#[test]
fn broadcast_q_and_i_forms() {
    let (mut cpu, mut bus) = fresh();
    cpu.vu0.vf[1] = [ONE, TWO, THREE, FOUR];
    cpu.vu0.vf[2] = [0, 0, TWO, 0];
    cpu.vu0.vi[Q] = HALF;
    cpu.vu0.vi[I] = THREE;
    run(
        &mut cpu,
        &mut bus,
        &[
            vu1(0x18 + 2, XYZW, 2, 1, 3), // vmulz vf3, vf1, vf2z
            vu1(0x1c, XYZW, 0, 1, 4),     // vmulq vf4, vf1, Q
            vu1(0x22, X | Y, 0, 1, 5),    // vaddi.xy vf5, vf1, I
            vu1(0x26, Z, 0, 1, 5),        // vsubi.z vf5, vf1, I
        ],
    );
    assert_eq!(cpu.vu0.vf[3], [TWO, FOUR, 0x40c0_0000, 0x4100_0000]);
    assert_eq!(cpu.vu0.vf[4], [HALF, ONE, 0x3fc0_0000, TWO]);
    assert_eq!(cpu.vu0.vf[5], [FOUR, 0x40a0_0000, 0, 0]);
}

#[test]
fn accumulator_chain() {
    // ACC = vf1 * vf2.x; ACC += vf1 * Q; vf3 = ACC + vf1 * I; vf4 = ACC - vf1 * vf1.
    let (mut cpu, mut bus) = fresh();
    cpu.vu0.vf[1] = [ONE, TWO, THREE, FOUR];
    cpu.vu0.vf[2] = [TWO, 0, 0, 0];
    cpu.vu0.vi[Q] = ONE;
    cpu.vu0.vi[I] = HALF;
    run(
        &mut cpu,
        &mut bus,
        &[
            vu2(0x18, XYZW, 2, 1),    // vmulax ACC, vf1, vf2x
            vu2(0x21, XYZW, 0, 1),    // vmaddaq ACC, vf1, Q
            vu1(0x23, XYZW, 0, 1, 3), // vmaddi vf3, vf1, I
            vu1(0x2d, XYZW, 1, 1, 4), // vmsub vf4, vf1, vf1
        ],
    );
    // ACC = 3 * vf1 = (3, 6, 9, 12).
    assert_eq!(cpu.vu0.acc, [THREE, 0x40c0_0000, 0x4110_0000, 0x4140_0000]);
    // 3.5 * vf1.
    assert_eq!(
        cpu.vu0.vf[3],
        [0x4060_0000, 0x40e0_0000, 0x4128_0000, 0x4160_0000]
    );
    // 3x - x^2 = (2, 2, 0, -4).
    assert_eq!(cpu.vu0.vf[4], [TWO, TWO, 0, 0xc080_0000]);
    assert_eq!(cpu.vu0.vi[MAC], 0x0012, "Z on z, S on w");
    // vsuba/vadda/vmsuba forms.
    run(
        &mut cpu,
        &mut bus,
        &[
            vu2(0x28, XYZW, 1, 1), // vadda ACC, vf1, vf1 = 2 vf1
            vu2(0x2d, XYZW, 2, 1), // vmsuba ACC, vf1, vf2 (x: -2)
            vu2(0x2c, Y, 1, 1),    // vsuba.y ACC = 0
        ],
    );
    assert_eq!(cpu.vu0.acc, [0, 0, 0x40c0_0000, 0x4100_0000]);
}

#[test]
fn cross_product() {
    // a = (1, 2, 3), b = (4, 5, 6): a x b = (-3, 6, -3).
    let (mut cpu, mut bus) = fresh();
    cpu.vu0.vf[1] = [ONE, TWO, THREE, 0];
    cpu.vu0.vf[2] = [FOUR, 0x40a0_0000, 0x40c0_0000, 0];
    cpu.vu0.vf[3] = [9, 9, 9, 9];
    run(
        &mut cpu,
        &mut bus,
        &[
            vu2(0x2e, X | Y | Z, 2, 1),    // vopmula.xyz ACC, vf1, vf2
            vu1(0x2e, X | Y | Z, 1, 2, 3), // vopmsub.xyz vf3, vf2, vf1
        ],
    );
    assert_eq!(cpu.vu0.vf[3], [0xc040_0000, 0x40c0_0000, 0xc040_0000, 9]);
    assert_eq!(cpu.vu0.vi[MAC], 0x00a0, "S on x and z");
}

#[test]
fn max_min_abs_move_and_conversions() {
    let (mut cpu, mut bus) = fresh();
    cpu.vu0.vf[1] = [ONE, NEG_ONE, 0xffff_ffff, 0x4fc0_0000];
    cpu.vu0.vf[2] = [TWO, 0x8000_0000, ONE, 0];
    cpu.vu0.vi[I] = 0;
    run(
        &mut cpu,
        &mut bus,
        &[
            vu1(0x2b, XYZW, 2, 1, 3), // vmax vf3, vf1, vf2
            vu1(0x2f, XYZW, 2, 1, 4), // vmini vf4, vf1, vf2
            vu1(0x10, XYZW, 2, 1, 5), // vmaxx vf5, vf1, vf2x
            vu1(0x1f, XYZW, 0, 1, 6), // vminii vf6, vf1, I
            vu2(0x1d, XYZW, 7, 1),    // vabs vf7, vf1
            vu2(0x31, XYZW, 8, 1),    // vmr32 vf8, vf1
            vu2(0x30, X | W, 9, 1),   // vmove.xw vf9, vf1
        ],
    );
    assert_eq!(cpu.vu0.vf[3], [TWO, 0x8000_0000, ONE, 0x4fc0_0000]);
    assert_eq!(cpu.vu0.vf[4], [ONE, NEG_ONE, 0xffff_ffff, 0]);
    assert_eq!(cpu.vu0.vf[5], [TWO, TWO, TWO, 0x4fc0_0000]);
    assert_eq!(cpu.vu0.vf[6], [0, NEG_ONE, 0xffff_ffff, 0]);
    assert_eq!(cpu.vu0.vf[7], [ONE, ONE, 0x7fff_ffff, 0x4fc0_0000]);
    assert_eq!(cpu.vu0.vf[8], [NEG_ONE, 0xffff_ffff, 0x4fc0_0000, ONE]);
    assert_eq!(cpu.vu0.vf[9], [ONE, 0, 0, 0x4fc0_0000]);
    assert_eq!(cpu.vu0.vi[MAC], 0, "no FMAC op ran");
    // vftoi4 / vftoi0 / vitof12 / vitof15.
    cpu.vu0.vf[1] = [0x3fc0_0000, 0xbfc0_0000, 0x4fc0_0000, 0xcfc0_0000];
    cpu.vu0.vf[2] = [0x1800, 0xffff_e800, 0x8000, 1];
    run(
        &mut cpu,
        &mut bus,
        &[
            vu2(0x15, XYZW, 10, 1), // vftoi4
            vu2(0x14, XYZW, 11, 1), // vftoi0
            vu2(0x12, XYZW, 12, 2), // vitof12
            vu2(0x13, XYZW, 13, 2), // vitof15
        ],
    );
    assert_eq!(
        cpu.vu0.vf[10],
        [24, (-24i32) as u32, 0x7fff_ffff, 0x8000_0000]
    );
    assert_eq!(cpu.vu0.vf[11], [1, 0xffff_ffff, 0x7fff_ffff, 0x8000_0000]);
    assert_eq!(
        cpu.vu0.vf[12],
        [0x3fc0_0000, 0xbfc0_0000, 0x4100_0000, 0x3980_0000]
    );
    assert_eq!(cpu.vu0.vf[13], [0x3e40_0000, 0xbe40_0000, ONE, 0x3800_0000]);
}

#[test]
fn clip_shifts_its_history() {
    let (mut cpu, mut bus) = fresh();
    cpu.vu0.vf[1] = [TWO, 0xc000_0000, HALF, 0];
    cpu.vu0.vf[2] = [0, 0, 0, NEG_ONE];
    // vclipw.xyz vf1, vf2w: +x (bit 0), -y (bit 3).
    let clip = vu2(0x1f, X | Y | Z, 2, 1);
    run(&mut cpu, &mut bus, &[clip]);
    assert_eq!(cpu.vu0.vi[CLIP], 0b001001);
    cpu.vu0.vf[1] = [0, 0, 0xc080_0000, 0];
    run(&mut cpu, &mut bus, &[clip]);
    assert_eq!(cpu.vu0.vi[CLIP], 0b001001 << 6 | 0b100000);
    // 24 bits: the last four judgements are kept, the first one falls off.
    run(&mut cpu, &mut bus, &[clip, clip, clip]);
    assert_eq!(cpu.vu0.vi[CLIP], 0x0082_0820);
}

#[test]
fn divide_unit_writes_q_and_status() {
    let (mut cpu, mut bus) = fresh();
    cpu.vu0.vf[1] = [ONE, FOUR, 0, NEG_ONE];
    cpu.vu0.vf[2] = [0, TWO, 0x41c8_0000, 0];
    // vdiv Q, vf1x, vf2y = 0.5.
    run(&mut cpu, &mut bus, &[vu2(0x38, 0b0100, 2, 1)]);
    assert_eq!(cpu.vu0.vi[Q], HALF);
    assert_eq!(cpu.vu0.vi[STATUS], 0);
    // vdiv Q, vf1y, vf2x: 4 / 0 sets D and DS, Q = +max. (dest holds ftf << 2 | fsf.)
    run(&mut cpu, &mut bus, &[vu2(0x38, 0b0001, 2, 1)]);
    assert_eq!(cpu.vu0.vi[Q], 0x7fff_ffff);
    assert_eq!(cpu.vu0.vi[STATUS], 0x820);
    // vdiv Q, vf1z, vf2x: 0 / 0 sets I (D clears, DS stays).
    run(&mut cpu, &mut bus, &[vu2(0x38, 0b0010, 2, 1)]);
    assert_eq!(cpu.vu0.vi[STATUS] & 0x30, 0x10);
    assert_eq!(cpu.vu0.vi[STATUS] & 0xc00, 0xc00);
    // vsqrt Q, vf2z = 5; vrsqrt Q, vf1x, vf2z = 0.2 (hardware: 0x3e4ccccd).
    run(&mut cpu, &mut bus, &[vu2(0x39, 0b1000, 2, 0)]);
    assert_eq!(cpu.vu0.vi[Q], 0x40a0_0000);
    assert_eq!(cpu.vu0.vi[STATUS] & 0x30, 0);
    run(&mut cpu, &mut bus, &[vu2(0x3a, 0b1000, 2, 1)]);
    assert_eq!(cpu.vu0.vi[Q], 0x3e4c_cccd);
    // vsqrt Q, vf1w (-1): I, the root of the magnitude.
    run(&mut cpu, &mut bus, &[vu2(0x39, 0b1100, 1, 0)]);
    assert_eq!(cpu.vu0.vi[Q], ONE);
    assert_eq!(cpu.vu0.vi[STATUS] & 0x30, 0x10);
    // vwaitq and vnop change nothing.
    let before = cpu.clone();
    run(
        &mut cpu,
        &mut bus,
        &[vu2(0x3b, 0, 0, 0), vu2(0x2f, 0, 0, 0)],
    );
    assert_eq!(cpu.vu0, before.vu0);
}

#[test]
fn vu0_data_memory() {
    let (mut cpu, mut bus) = fresh();
    cpu.vu0.vf[1] = [ONE, TWO, THREE, FOUR];
    cpu.vu0.vi[2] = 0x00ff; // the last quadword: wraps at 4 KiB
    cpu.vu0.vi[3] = 5;
    run(
        &mut cpu,
        &mut bus,
        &[
            vu2(0x35, XYZW, 2, 1),  // vsqi vf1, (vi2++)
            vu2(0x37, X | Z, 3, 1), // vsqd.xz vf1, (--vi3)
            vu2(0x34, XYZW, 4, 3),  // vlqi vf4, (vi3++)
            vu2(0x36, Y, 5, 2),     // vlqd.y vf5, (--vi2)
        ],
    );
    assert_eq!(&bus.vu0[0xff0..0xff4], &ONE.to_le_bytes());
    assert_eq!(cpu.vu0.vi[2], 0x00ff);
    assert_eq!(bus.get32(0x1100_4040), ONE);
    assert_eq!(bus.get32(0x1100_4044), 0);
    assert_eq!(bus.get32(0x1100_4048), THREE);
    assert_eq!(cpu.vu0.vi[3], 5);
    assert_eq!(cpu.vu0.vf[4], [ONE, 0, THREE, 0]);
    assert_eq!(cpu.vu0.vf[5], [0, TWO, 0, 0]);
    // vilwr.y vi6, (vi3): the low 16 bits; viswr.zw vi7, (vi3); vmfir/vmtir.
    bus.put32(0x1100_4054, 0xdead_beef);
    cpu.vu0.vi[7] = 0x8001;
    cpu.vu0.vf[8] = [0, 0, 0x1234_5678, 0];
    run(
        &mut cpu,
        &mut bus,
        &[
            vu2(0x3e, Y, 6, 3),     // vilwr.y vi6, (vi3)
            vu2(0x3f, Z | W, 7, 3), // viswr.zw vi7, (vi3)
            vu2(0x3d, X | Y, 9, 7), // vmfir.xy vf9, vi7
        ],
    );
    assert_eq!(cpu.vu0.vi[6], 0xbeef);
    assert_eq!(bus.get32(0x1100_4058), 0x8001);
    assert_eq!(bus.get32(0x1100_405c), 0x8001);
    assert_eq!(cpu.vu0.vf[9], [0xffff_8001, 0xffff_8001, 0, 0]);
    // vmtir vi10, vf8z: fsf is bits 21-22 (z = 2).
    run(&mut cpu, &mut bus, &[vu2(0x3c, 0b0010, 10, 8)]);
    assert_eq!(cpu.vu0.vi[10], 0x5678);
}

#[test]
fn random_register_matches_hardware() {
    // ps2autotests vu/lower/random: RINIT from each lane of (0x01234567, 0x89abcdef,
    // 0xfedcba98, 0x76543210), RXOR, then RNEXT sequences.
    let (mut cpu, mut bus) = fresh();
    cpu.vu0.vf[16] = [0x0123_4567, 0x89ab_cdef, 0xfedc_ba98, 0x7654_3210];
    let want_init = [0x3fa3_4567, 0x3fab_cdef, 0x3fdc_ba98, 0x3fd4_3210];
    for (lane, want) in want_init.into_iter().enumerate() {
        // fsf = lane in bits 21-22: the dest field's low two bits.
        run(
            &mut cpu,
            &mut bus,
            &[vu2(0x42, lane as u32, 0, 16), vu2(0x41, XYZW, 1, 0)],
        );
        assert_eq!(cpu.vu0.vf[1], [want; 4], "rinit {lane}");
    }
    run(&mut cpu, &mut bus, &[vu2(0x42, 0, 0, 0)]);
    let want_xor = [0x3fa3_4567, 0x3f88_8888, 0x3fd4_3210, 0x3f80_0000];
    for (lane, want) in want_xor.into_iter().enumerate() {
        run(
            &mut cpu,
            &mut bus,
            &[vu2(0x43, lane as u32, 0, 16), vu2(0x41, XYZW, 1, 0)],
        );
        assert_eq!(cpu.vu0.vf[1], [want; 4], "rxor {lane}");
    }
    // CFC2 reads R's 23 bits.
    assert_eq!(cpu.vu0.vi[R], 0);
    for (lane, seq) in [
        (0, [0x3fc6_8ace, 0x3f8d_159d, 0x3f9a_2b3b, 0x3fb4_5677]),
        (1, [0x3fd7_9bde, 0x3faf_37bc, 0x3fde_6f79, 0x3fbc_def2]),
        (2, [0x3fb9_7530, 0x3ff2_ea61, 0x3fe5_d4c3, 0x3fcb_a987]),
        (3, [0x3fa8_6420, 0x3fd0_c840, 0x3fa1_9081, 0x3fc3_2102]),
    ] {
        run(&mut cpu, &mut bus, &[vu2(0x42, lane, 0, 16)]);
        for want in seq {
            run(&mut cpu, &mut bus, &[vu2(0x40, XYZW, 2, 0)]);
            assert_eq!(cpu.vu0.vf[2], [want; 4], "rnext from lane {lane}");
        }
    }
}

#[test]
fn micro_program_calls() {
    let (mut cpu, mut bus) = fresh();
    // vcallms 0x7ff8: imm15 = 0xfff.
    run(&mut cpu, &mut bus, &[vu1(0x38, 0, 0, 0, 0) | 0xfff << 6]);
    assert_eq!(cpu.vu0.pending_call, Some(0x7ff8));
    cpu.vu0.pending_call = None;
    cpu.vu0.vi[27] = 0x20;
    run(&mut cpu, &mut bus, &[vu1(0x39, 0, 0, 27, 0)]);
    assert_eq!(cpu.vu0.pending_call, Some(0x100));
}

#[test]
fn bc2_follows_vu1_running() {
    let bc2 = |kind: u32| 0x12 << 26 | 8 << 21 | kind << 16 | 2;
    for (kind, running, taken) in [
        (0, false, true),
        (0, true, false),
        (1, true, true),
        (1, false, false),
    ] {
        let (mut cpu, mut bus) = setup(&[bc2(kind), 0]);
        cpu.vu0.vi[29] = if running { 0x100 } else { 0 };
        steps(&mut cpu, &mut bus, 2);
        assert_eq!(
            cpu.pc,
            if taken { CODE + 12 } else { CODE + 8 },
            "bc2 {kind} {running}"
        );
    }
    // Likely forms skip the delay slot when not taken.
    let (mut cpu, mut bus) = setup(&[bc2(3), 0]);
    steps(&mut cpu, &mut bus, 1);
    assert_eq!(cpu.pc, CODE + 8);
}

#[test]
fn vf0_is_constant() {
    let (mut cpu, mut bus) = fresh();
    cpu.vu0.vf[1] = [ONE; 4];
    run(
        &mut cpu,
        &mut bus,
        &[vu1(0x28, XYZW, 1, 1, 0), vu2(0x30, XYZW, 0, 1)],
    );
    assert_eq!(cpu.vu0.vf[0], [0, 0, 0, ONE]);
}

#[test]
fn cop2_unusable() {
    let (mut cpu, mut bus) = setup(&[vu1(0x28, XYZW, 1, 1, 2)]);
    cpu.cop0.regs[cop0reg::STATUS] &= !status::CU2;
    let e = piney_ee::interp::step(&mut cpu, &mut bus).unwrap_err();
    assert_eq!(e.kind, ExceptionKind::CopUnusable);
    assert_eq!(
        cpu.cop0.regs[cop0reg::CAUSE] >> 28 & 3,
        2,
        "Cause.CE names COP2"
    );
}

#[test]
fn clip_judgements_match_hardware() {
    // ps2autotests vu/upper/clip "Basic test" rows: (fs, ft.w, clip flag).
    let full_pos = [TWO; 3];
    let full_neg = [0xc000_0000; 3];
    let half_pos = [TWO, 0xc000_0000, TWO];
    let half_neg = [0xc000_0000, TWO, 0xc000_0000];
    for (fs, w, want) in [
        (full_pos, NEG_ONE, 0x15),
        (full_neg, NEG_ONE, 0x2a),
        (half_pos, NEG_ONE, 0x19),
        (half_neg, NEG_ONE, 0x26),
        (half_neg, 0, 0x26),
        (half_neg, 0x8000_0000, 0x26),
        ([0; 3], 0x8000_0000, 0),
        ([0x8000_0000; 3], 0, 0),
        (full_pos, TWO, 0),
        (half_neg, TWO, 0),
        ([0xffff_ffff; 3], 0, 0x2a),
        ([0x7fff_ffff; 3], 0, 0x15),
        ([0; 3], 0xffff_ffff, 0),
        ([0; 3], 0x7fff_ffff, 0),
    ] {
        let (mut cpu, mut bus) = fresh();
        cpu.vu0.vf[1] = [fs[0], fs[1], fs[2], 0];
        cpu.vu0.vf[2] = [0, 0, 0, w];
        run(&mut cpu, &mut bus, &[vu2(0x1f, X | Y | Z, 2, 1)]);
        assert_eq!(cpu.vu0.vi[CLIP], want, "{fs:08x?} against {w:08x}");
    }
}

#[test]
fn interlocked_moves_wait_for_vu0_and_the_ni_forms_do_not() {
    // VU0's microprogram (started by the machine) ends at cycle 500. Each move costs one cycle.
    // The .NI forms (bit 0 clear) go on at once; the .I forms (bit 0 set) wait until 500.
    for (name, word) in [
        ("qmfc2", qmfc2(3, 5)),
        ("cfc2", cfc2(3, 29)),
        ("qmtc2", qmtc2(3, 5)),
        ("ctc2", ctc2(3, 21)),
    ] {
        let (mut cpu, mut bus) = setup(&[word, word | 1, word | 1]);
        cpu.cycles = 100;
        cpu.vu0.busy_until = 500;
        cpu.vu0.vi[29] = 1;
        steps(&mut cpu, &mut bus, 1);
        assert_eq!(cpu.cycles, 101, "{name}.ni does not wait");
        assert_eq!(cpu.vu0.vi[29] & 1, 1, "{name}.ni: VU0 still runs");
        steps(&mut cpu, &mut bus, 1);
        assert_eq!(cpu.cycles, 500, "{name}.i waits for VU0's end");
        assert_eq!(cpu.vu0.vi[29] & 1, 0, "{name}.i: VU0 has ended");
        // VU0 idle: the interlock costs nothing more.
        steps(&mut cpu, &mut bus, 1);
        assert_eq!(cpu.cycles, 501, "{name}.i with VU0 idle");
    }
    // CFC2.I of VPU-STAT reads bit 0 clear after the wait.
    let (mut cpu, mut bus) = setup(&[cfc2(3, 29) | 1]);
    cpu.vu0.busy_until = cpu.cycles + 50;
    cpu.vu0.vi[29] = 0x101;
    steps(&mut cpu, &mut bus, 1);
    assert_eq!(cpu.gpr[3], 0x100);
}

#[test]
fn fbrst_resets_reach_the_machine() {
    let (mut cpu, mut bus) = fresh();
    cpu.vu0.busy_until = cpu.cycles + 1000;
    cpu.vu0.vi[29] = 0x101;
    cpu.vu0.vi[STATUS] = 0xfff;
    cpu.gpr[2] = 2;
    run(&mut cpu, &mut bus, &[ctc2(2, 28)]);
    // RS0: VU0 stopped (VPU-STAT bit 0, no interlock wait), its flags cleared.
    assert_eq!(cpu.vu0.vi[29], 0x100);
    assert_eq!(cpu.vu0.busy_until, 0);
    assert_eq!(cpu.vu0.vi[STATUS], 0);
    assert_eq!(cpu.vu0.pending_reset, 2);
    cpu.vu0.pending_reset = 0;
    // RS1: VU1 stopped (VPU-STAT bit 8); VU0's flags untouched.
    cpu.vu0.vi[STATUS] = 0x40;
    cpu.gpr[2] = 0x200;
    run(&mut cpu, &mut bus, &[ctc2(2, 28)]);
    assert_eq!(cpu.vu0.vi[29], 0);
    assert_eq!(cpu.vu0.vi[STATUS], 0x40);
    assert_eq!(cpu.vu0.pending_reset, 0x200);
    // The other bits (force breaks, DE/TE) ask for no reset.
    cpu.vu0.pending_reset = 0;
    cpu.gpr[2] = 0x0d0d;
    run(&mut cpu, &mut bus, &[ctc2(2, 28)]);
    assert_eq!(cpu.vu0.pending_reset, 0);
}
