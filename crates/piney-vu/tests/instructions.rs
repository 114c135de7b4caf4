//! Instruction semantics: integer results from ps2autotests `tests/vu/lower/integer.expected`,
//! R from `random.expected`, the rest derived by hand from the instruction definitions.

mod common;
use common::*;
use piney_vu::{Stop, Unit, VuHost};

/// ps2autotests' WrSetIntegerRegister: values with bit 15 come from ISUBIU vi0.
fn set(r: usize, v: u16) -> String {
    if v & 0x8000 != 0 {
        format!("nop isubiu vi{r}, vi0, {:#x}\n", v & 0x7fff)
    } else {
        format!("nop iaddiu vi{r}, vi0, {v:#x}\n")
    }
}

fn int_op(op: &str, s: u16, t: &str) -> u16 {
    let src = format!(
        "{}{}nop {op}\n{EXIT}",
        set(2, s),
        if t.starts_with("vi") {
            set(3, 0x0f0f)
        } else {
            String::new()
        }
    );
    run0(&src, |_| {}).vi(1)
}

#[test]
fn integer_ops_match_the_hardware() {
    // 57005 = 0xDEAD is set up as 0 - 0x5EAD = 0xA153; 65535 as 0 - 0x7FFF = 0x8001.
    let dead = 0xdead;
    let run3 = |op: &str, t: u16| {
        let src = format!(
            "{}{}nop {op} vi1, vi2, vi3\n{EXIT}",
            set(2, dead),
            set(3, t)
        );
        run0(&src, |_| {}).vi(1)
    };
    assert_eq!(run3("iadd", 0xffff), 0x2154);
    assert_eq!(run3("iadd", 0x0f0f), 0xb062);
    assert_eq!(run3("iand", 0xffff), 0x8001);
    assert_eq!(run3("iand", 0x0f0f), 0x0103);
    assert_eq!(run3("ior", 0xffff), 0xa153);
    assert_eq!(run3("ior", 0x0f0f), 0xaf5f);
    assert_eq!(run3("isub", 0xffff), 0x2152);
    assert_eq!(run3("isub", 0x0f0f), 0x9244);
    assert_eq!(int_op("iaddiu vi1, vi2, 0x7fff", dead, ""), 0x2152);
    assert_eq!(int_op("iaddiu vi1, vi2, 0xf0f", dead, ""), 0xb062);
    assert_eq!(int_op("isubiu vi1, vi2, 0x7fff", dead, ""), 0x2154);
    assert_eq!(int_op("isubiu vi1, vi2, 0xf0f", dead, ""), 0x9244);
    assert_eq!(int_op("iaddi vi1, vi2, 1", 1233, ""), 0x04d2);
    // Writes to VI0 are dropped.
    let vu = run0(
        &format!(
            "{}nop iadd vi0, vi2, vi2\nnop ior vi1, vi0, vi0\n{EXIT}",
            set(2, 5)
        ),
        |_| {},
    );
    assert_eq!(vu.vi(1), 0);
}

#[test]
fn ilw_takes_the_low_16_bits_of_one_lane() {
    // "iaddi CVI_S16_MIN, -16: 7ff0", "iaddi CVI_S32_MAX, 15: 000e", "isub ONE, NEGONE: 0002".
    let vu = run0(
        &format!(
            "nop ilw.x vi2, 2(vi0)\n\
             nop ilw.x vi3, 3(vi0)\n\
             nop iaddi vi4, vi2, -16\n\
             nop iaddi vi5, vi3, 15\n\
             nop ilw.y vi6, 2(vi0)\n\
             {EXIT}"
        ),
        |vu| {
            vu.set_data_word(0x20, 0xffff_8000);
            vu.set_data_word(0x24, 0xffff_ffff);
            vu.set_data_word(0x30, 0x7fff_ffff);
        },
    );
    assert_eq!((vu.vi(4), vu.vi(5), vu.vi(6)), (0x7ff0, 0x000e, 0xffff));
}

#[test]
fn isw_iswr_ilwr() {
    let vu = run0(
        &format!(
            "nop iaddiu vi1, vi0, 0x1234\n\
             nop iaddiu vi2, vi0, 5\n\
             nop isw.yw vi1, 1(vi2)\n\
             nop iswr.x vi2, (vi2)\n\
             nop ilwr.w vi3, (vi2)\n\
             {EXIT}"
        ),
        |vu| vu.set_data_word(0x50, 0xdead_beef),
    );
    // ISW writes the zero-extended VI into every dest lane of quadword 6.
    assert_eq!(vu.data_word(0x60), 0);
    assert_eq!(vu.data_word(0x64), 0x1234);
    assert_eq!(vu.data_word(0x6c), 0x1234);
    assert_eq!(vu.data_word(0x50), 5);
    assert_eq!(vu.vi(3), 0);
}

#[test]
fn quadword_loads_and_stores() {
    let vu = run0(
        &format!(
            "nop iaddiu vi1, vi0, 2\n\
             nop lqi.xyzw vf1, (vi1++)\n\
             nop lqi.xy vf2, (vi1++)\n\
             nop sqd.xyzw vf1, (--vi1)\n\
             nop sq.zw vf1, -1(vi1)\n\
             nop lq.xyzw vf3, 1(vi0)\n\
             {EXIT}"
        ),
        |vu| {
            for i in 0..4 {
                vu.set_data_word(0x20 + 4 * i, 0x100 + i);
                vu.set_data_word(0x30 + 4 * i, 0x200 + i);
            }
        },
    );
    assert_eq!(vu.vf(1), [0x100, 0x101, 0x102, 0x103]);
    assert_eq!(vu.vf(2), [0x200, 0x201, 0, 0]);
    // SQD: VI1 4 -> 3, VF1 to quadword 3; SQ.zw to quadword 2 - nothing changes there.
    assert_eq!(vu.vi(1), 3);
    assert_eq!(vu.data_word(0x30), 0x100);
    assert_eq!(vu.vf(3), [0; 4]);
    // VU0 data memory wraps at 4 KiB.
    let vu = run0(
        &format!("nop iaddiu vi1, vi0, 0x100\nnop sq.x vf1, 1(vi1)\n{EXIT}"),
        |vu| vu.regs.vf[1] = [7, 0, 0, 0],
    );
    assert_eq!(vu.data_word(0x10), 7);
}

#[test]
fn moves() {
    let vu = run0(
        &format!(
            "nop mr32.xyzw vf2, vf1\n\
             nop move.xz vf3, vf1\n\
             nop mfir.yw vf4, vi1\n\
             nop mtir vi2, vf1w\n\
             {EXIT}"
        ),
        |vu| {
            vu.regs.vf[1] = [1, 2, 3, 0x0001_fffe];
            vu.regs.vi[1] = 0x8001;
        },
    );
    assert_eq!(vu.vf(2), [2, 3, 0x0001_fffe, 1]);
    assert_eq!(vu.vf(3), [1, 0, 3, 0]);
    assert_eq!(vu.vf(4), [0, 0xffff_8001, 0, 0xffff_8001]);
    assert_eq!(vu.vi(2), 0xfffe);
}

#[test]
fn random_matches_the_hardware() {
    // random.expected: RINIT from 0x01234567 -> 3fa34567; RXOR chain from 1.0.
    let vu = run1(
        &format!(
            "nop rinit r, vf16x\n\
             nop rget.xyzw vf1, r\n\
             nop rinit r, vf0x\n\
             nop rxor r, vf16x\n\
             nop rxor r, vf16y\n\
             nop rget.xyzw vf2, r\n\
             nop rinit r, vf17y\n\
             nop rnext.xyzw vf3, r\n\
             nop rnext.xyzw vf4, r\n\
             nop rnext.xyzw vf5, r\n\
             nop rnext.xyzw vf6, r\n\
             {EXIT}"
        ),
        |vu| {
            vu.regs.vf[16] = [0x0123_4567, 0x89ab_cdef, 0xfedc_ba98, 0x7654_3210];
            vu.regs.vf[17] = [0x3f80_0000, 0x3fff_ffff, 0, 0xffff_ffff];
        },
    );
    assert_eq!(vu.vf(1), [0x3fa3_4567; 4]);
    assert_eq!(vu.vf(2), [0x3f88_8888; 4]);
    assert_eq!(
        [vu.vf(3)[0], vu.vf(4)[0], vu.vf(5)[0], vu.vf(6)[0]],
        [0x3fff_fffe, 0x3fff_fffc, 0x3fff_fff8, 0x3fff_fff0]
    );
}

#[test]
fn conversions_abs_max_mini() {
    let vu = run0(
        &format!(
            "ftoi4.xyzw vf2, vf1\n\
             itof0.xyzw vf3, vf4\n\
             abs.xyzw vf5, vf1\n\
             max.xyzw vf6, vf1, vf7\n\
             minii.xyzw vf8, vf1, i   loi -2.0\n\
             minii.xyzw vf9, vf1, i\n\
             {EXIT}"
        ),
        |vu| {
            vu.regs.vf[1] = [f(1.5), f(-2.25), f(0.0), f(100.0)];
            vu.regs.vf[4] = [3, 0xffff_fffe, 0, 1 << 24];
            vu.regs.vf[7] = [f(1.0); 4];
        },
    );
    assert_eq!(vu.vf(2), [24, (-36i32) as u32, 0, 1600]);
    assert_eq!(vu.vf(3), [f(3.0), f(-2.0), 0, f(16_777_216.0)]);
    assert_eq!(vu.vf(5), [f(1.5), f(2.25), 0, f(100.0)]);
    assert_eq!(vu.vf(6), [f(1.5), f(1.0), f(1.0), f(100.0)]);
    // I was 0 for the first MINIi (the immediate lands after the upper reads I).
    assert_eq!(vu.vf(8), [0, f(-2.25), 0, 0]);
    assert_eq!(vu.vf(9), [f(-2.0), f(-2.25), f(-2.0), f(-2.0)]);
}

#[test]
fn accumulator_and_cross_product() {
    // (1,2,3) x (4,5,6) = (2*6 - 3*5, 3*4 - 1*6, 1*5 - 2*4) = (-3, 6, -3).
    let vu = run0(
        &format!(
            "opmula.xyz acc, vf1, vf2\n\
             opmsub.xyz vf3, vf2, vf1\n\
             mulax.xyzw acc, vf1, vf2x\n\
             maddaw.xyzw acc, vf1, vf0w\n\
             maddi.xyzw vf4, vf1, i   loi 2.0\n\
             msubq.xyzw vf5, vf1, q\n\
             {EXIT}"
        ),
        |vu| {
            vu.regs.vf[1] = [f(1.0), f(2.0), f(3.0), f(0.0)];
            vu.regs.vf[2] = [f(4.0), f(5.0), f(6.0), f(0.0)];
            vu.regs.vi[22] = f(0.5);
        },
    );
    assert_eq!(vu.vf(3), [f(-3.0), f(6.0), f(-3.0), 0]);
    // ACC = v1 * 4 + v1 * 1 = 5 * v1; VF4 = ACC + v1 * I (I still 0 in that pair) = 5 * v1.
    assert_eq!(vu.vf(4), [f(5.0), f(10.0), f(15.0), 0]);
    // VF5 = ACC - v1 * 0.5.
    assert_eq!(vu.vf(5), [f(4.5), f(9.0), f(13.5), 0]);
}

#[test]
fn flag_instructions() {
    let vu = run0(
        &format!(
            "nop fsset 0xfc5\n\
             nop fsor vi1, 0\n\
             nop fcset 0xabcdef\n\
             nop fceq vi1, 0xabcdef\n\
             nop fcget vi2\n\
             nop fcor vi1, 0x543210\n\
             nop iaddiu vi4, vi1, 0\n\
             nop fcand vi1, 0x000010\n\
             nop fseq vi3, 0xfc0\n\
             {EXIT}"
        ),
        |_| {},
    );
    // FSSET writes only the sticky bits; FSOR read 0xfc0; FCEQ = 1; FCOR: 0xabcdef | 0x543210 =
    // 0xffffff -> 1; FCAND: bit 4 of 0xabcdef is 0 -> 0.
    assert_eq!(vu.vi(2), 0xdef);
    assert_eq!(vu.vi(4), 1);
    assert_eq!(vu.vi(1), 0);
    assert_eq!(vu.vi(3), 1);
    assert_eq!(vu.status(), 0xfc0);
}

#[test]
fn efu_results_arrive_after_their_latency() {
    // ESADD: 11 cycles. MFPs at 1..12 after issue: 1..10 see P = 0, 11 and 12 see 1+4+9 = 14.
    let mfps: String = (1..=12).map(|r| format!("nop mfp.x vf{r}, p\n")).collect();
    let vu = run1(&format!("nop esadd p, vf20\n{mfps}{EXIT}"), |vu| {
        vu.regs.vf[20] = [f(1.0), f(2.0), f(3.0), f(9.0)];
    });
    let got: Vec<u32> = (1..=12).map(|r| vu.vf(r)[0]).collect();
    let mut want = vec![0; 10];
    want.extend([f(14.0); 2]);
    assert_eq!(got, want);

    let vu = run1(
        &format!(
            "nop esum p, vf20\nnop waitp\nnop mfp.x vf1, p\n\
             nop ercpr p, vf20y\nnop waitp\nnop mfp.x vf2, p\n\
             nop esqrt p, vf21x\nnop waitp\nnop mfp.x vf3, p\n\
             nop eleng p, vf22\nnop waitp\nnop mfp.x vf4, p\n\
             nop ersqrt p, vf21x\nnop waitp\nnop mfp.x vf5, p\n\
             nop eexp p, vf0x\nnop waitp\nnop mfp.x vf6, p\n\
             nop esin p, vf0x\nnop waitp\nnop mfp.x vf7, p\n\
             {EXIT}"
        ),
        |vu| {
            vu.regs.vf[20] = [f(1.0), f(2.0), f(3.0), f(9.0)];
            vu.regs.vf[21] = [f(16.0), 0, 0, 0];
            vu.regs.vf[22] = [f(3.0), f(4.0), 0, 0];
        },
    );
    assert_eq!(vu.vf(1)[0], f(15.0));
    assert_eq!(vu.vf(2)[0], f(0.5));
    assert_eq!(vu.vf(3)[0], f(4.0));
    assert_eq!(vu.vf(4)[0], f(5.0));
    assert_eq!(vu.vf(5)[0], f(0.25));
    // efu.expected: EEXP of zero is 1.0; ESIN of 0 is 0.
    assert_eq!(vu.vf(6)[0], f(1.0));
    assert_eq!(vu.vf(7)[0], 0);
}

#[derive(Default)]
struct FakeHost {
    kicks: Vec<(u32, Vec<u32>)>,
    /// The cycle each XGKICK issued at.
    kick_cycles: Vec<u64>,
    window_writes: Vec<(u32, [u32; 4], u8)>,
}

impl VuHost for FakeHost {
    fn xgkick(&mut self, data: &[u8], addr: u32, cycle: u64) {
        self.kick_cycles.push(cycle);
        let words = (0..4)
            .map(|i| {
                let at = (addr + 4 * i) as usize;
                u32::from_le_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]])
            })
            .collect();
        self.kicks.push((addr, words));
    }
    fn vif1_top(&mut self) -> u16 {
        0x1234
    }
    fn vif1_itop(&mut self) -> u16 {
        0x3ff
    }
    fn vu1_window_read(&mut self, offset: u32) -> [u32; 4] {
        [offset, 1, 2, 3]
    }
    fn vu1_window_write(&mut self, offset: u32, value: [u32; 4], lanes: u8) {
        self.window_writes.push((offset, value, lanes));
    }
}

#[test]
fn xgkick_xtop_through_the_host() {
    let mut host = FakeHost::default();
    let (vu, stop) = run_with(
        Unit::Vu1,
        &format!(
            "nop iaddiu vi1, vi0, 0x10\n\
             nop sq.xyzw vf1, 0(vi1)\n\
             nop xgkick vi1\n\
             nop xtop vi2\n\
             nop xitop vi3\n\
             {EXIT}"
        ),
        &mut host,
        |vu| vu.regs.vf[1] = [0x8000_0001, 0x1000_0000, 0xe, 0],
    );
    assert!(matches!(stop, Stop::Ended { .. }));
    assert_eq!(
        host.kicks,
        vec![(0x100, vec![0x8000_0001, 0x1000_0000, 0xe, 0])]
    );
    // TOP and ITOP are 10 bits.
    assert_eq!((vu.vi(2), vu.vi(3)), (0x234, 0x3ff));
    // The third pair, no stall before it: it issued at cycle 2.
    assert_eq!(host.kick_cycles, vec![2]);
}

#[test]
fn xgkick_reports_the_cycle_it_issues_at_stalls_included() {
    let mut host = FakeHost::default();
    // The SQ reads VF2, which the ADD at cycle 0 writes back 4 cycles later: the SQ's pair waits
    // until cycle 4, so the XGKICK after it issues at 5, and a second one at 6.
    let (_, stop) = run_with(
        Unit::Vu1,
        &format!(
            "add.xyzw vf2, vf1, vf1 iaddiu vi1, vi0, 0x10\n\
             nop sq.xyzw vf2, 0(vi1)\n\
             nop xgkick vi1\n\
             nop xgkick vi0\n\
             {EXIT}"
        ),
        &mut host,
        |vu| vu.regs.vf[1] = [0x3f80_0000; 4],
    );
    assert!(matches!(stop, Stop::Ended { .. }), "{stop:?}");
    assert_eq!(host.kick_cycles, vec![5, 6]);
    // The packet the first kick saw is the stored sum (2.0 in every lane).
    assert_eq!(host.kicks[0], (0x100, vec![0x4000_0000; 4]));
}

#[test]
fn vu1_only_instructions_fail_on_vu0() {
    let mut host = FakeHost::default();
    let (_, stop) = run_with(Unit::Vu0, "nop xgkick vi1\nnop\n", &mut host, |_| {});
    match stop {
        Stop::Error { pc: 0, what } => assert!(what.contains("XGKICK"), "{what}"),
        other => panic!("{other:?}"),
    }
    assert!(host.kicks.is_empty());
}

#[test]
fn vu0_reaches_vu1_registers_at_0x4000() {
    let mut host = FakeHost::default();
    let (vu, _) = run_with(
        Unit::Vu0,
        &format!(
            "nop iaddiu vi1, vi0, 0x400\n\
             nop lq.xyzw vf1, 0x21(vi1)\n\
             nop sq.xw vf2, 0x30(vi1)\n\
             {EXIT}"
        ),
        &mut host,
        |vu| vu.regs.vf[2] = [9, 8, 7, 6],
    );
    // Quadword 0x421 is byte 0x4210: VU1's VI1.
    assert_eq!(vu.vf(1), [0x210, 1, 2, 3]);
    assert_eq!(host.window_writes, vec![(0x300, [9, 8, 7, 6], 0b1001)]);
}
