//! Pipeline rules: pairing, I/E/D bits, Q latency and stalls (from the hardware results of
//! ps2autotests `tests/vu/lower/fdivdelay.expected`), flag latency, the branch VI rule.

mod common;
use common::*;
use piney_vu::{NullHost, Stop, Unit, Vu};

const ONE: u32 = 0x3f80_0000;

#[test]
fn add_and_broadcast() {
    let vu = run0(
        &format!("add.xyzw vf3, vf1, vf2\naddw.xy vf4, vf1, vf2w\n{EXIT}"),
        |vu| {
            vu.regs.vf[1] = [f(1.0), f(2.0), f(3.0), f(4.0)];
            vu.regs.vf[2] = [f(0.5), f(0.25), f(-3.0), f(8.0)];
        },
    );
    assert_eq!(vu.vf(3), [f(1.5), f(2.25), 0, f(12.0)]);
    // Only x and y written; z and w keep their reset value 0.
    assert_eq!(vu.vf(4), [f(9.0), f(10.0), 0, 0]);
}

#[test]
fn lower_reads_state_before_the_upper_of_its_pair() {
    let vu = run0(
        &format!(
            "add.xyzw vf1, vf2, vf2   move.xyzw vf4, vf1\n\
             add.x vf5, vf2, vf2      move.x vf5, vf6\n\
             nop                      sq.xyzw vf1, 4(vi0)\n\
             {EXIT}"
        ),
        |vu| {
            vu.regs.vf[1] = [f(7.0); 4];
            vu.regs.vf[2] = [f(1.0); 4];
            vu.regs.vf[6] = [f(-1.0); 4];
        },
    );
    // MOVE saw the old VF1.
    assert_eq!(vu.vf(4), [f(7.0); 4]);
    assert_eq!(vu.vf(1), [f(2.0); 4]);
    // Both wrote VF5.x: the upper result wins.
    assert_eq!(vu.vf(5)[0], f(2.0));
    // The store in the next pair sees the new VF1.
    assert_eq!(vu.data_word(0x40), f(2.0));
}

#[test]
fn i_bit_loads_after_the_upper_reads_i() {
    // ps2autotests fdivdelay "multiple": MULi in the pair that loads 16.0 still sees 4.0.
    let vu = run0(
        &format!(
            "nop loi 4.0\n\
             muli.w vf16, vf0, i   loi 16.0\n\
             muli.w vf17, vf0, i\n\
             {EXIT}"
        ),
        |_| {},
    );
    assert_eq!(vu.vf(16)[3], f(4.0));
    assert_eq!(vu.vf(17)[3], f(16.0));
    assert_eq!(vu.i(), f(16.0));
}

#[test]
fn e_bit_runs_one_delay_slot() {
    let (vu, stop) = run_with(
        Unit::Vu0,
        "nop [e]   iaddiu vi1, vi0, 1\n\
         nop       iaddiu vi2, vi0, 2\n\
         nop       iaddiu vi3, vi0, 3\n",
        &mut NullHost,
        |_| {},
    );
    assert_eq!(stop, Stop::Ended { pc: 16 });
    assert_eq!((vu.vi(1), vu.vi(2), vu.vi(3)), (1, 2, 0));
    assert_eq!(vu.regs.vi[26], 2, "TPC in pairs");
}

#[test]
fn d_bit_breaks_when_enabled() {
    let src = format!("nop iaddiu vi1, vi0, 1\nnop [d] iaddiu vi2, vi0, 2\n{EXIT}");
    let (vu, stop) = run_with(Unit::Vu0, &src, &mut NullHost, |vu| vu.debug_enable = true);
    assert_eq!(stop, Stop::Breakpoint { pc: 8, trap: false });
    assert_eq!((vu.vi(1), vu.vi(2)), (1, 0));
    // Disabled: the bit is ignored.
    let vu = run0(&src, |_| {});
    assert_eq!(vu.vi(2), 2);
}

/// The fdivdelay preamble: Q = 1.0, I = 4.0, VF16.w = 4.0, VF17.w = 16.0.
const PRE: &str = "nop div q, vf0w, vf0w\n\
                   nop waitq\n\
                   nop loi 4.0\n\
                   muli.w vf16, vf0, i   loi 16.0\n\
                   muli.w vf17, vf0, i\n";

fn q_lanes(vu: &Vu, n: usize) -> Vec<u32> {
    (1..=n).map(|r| vu.vf(r)[3]).collect()
}

fn muls(from: usize, to: usize) -> String {
    (from..=to)
        .map(|r| format!("mulq.xyzw vf{r}, vf0, q\n"))
        .collect()
}

#[test]
fn div_single_waitq() {
    let src = format!(
        "{PRE}mulq.xyzw vf1, vf0, q   div q, vf0w, vf16w\n\
         mulq.xyzw vf2, vf0, q   waitq\n\
         mulq.xyzw vf3, vf0, q\n{EXIT}"
    );
    let vu = run0(&src, |_| {});
    assert_eq!(q_lanes(&vu, 3), [ONE, f(0.25), f(0.25)]);
    assert_eq!(vu.vf(1)[..3], [0, 0, 0]);
}

#[test]
fn div_single_delayed_is_seven_cycles() {
    let src = format!("{PRE}nop div q, vf0w, vf16w\n{}{EXIT}", muls(1, 14));
    let vu = run0(&src, |_| {});
    let mut want = vec![ONE; 6];
    want.extend([f(0.25); 8]);
    assert_eq!(q_lanes(&vu, 14), want);
}

#[test]
fn sqrt_single_delayed_is_seven_cycles() {
    let src = format!("{PRE}nop sqrt q, vf16w\n{}{EXIT}", muls(1, 14));
    let vu = run0(&src, |_| {});
    let mut want = vec![ONE; 6];
    want.extend([f(2.0); 8]);
    assert_eq!(q_lanes(&vu, 14), want);
}

#[test]
fn rsqrt_single_delayed_is_thirteen_cycles() {
    let src = format!("{PRE}nop rsqrt q, vf0w, vf16w\n{}{EXIT}", muls(1, 14));
    let vu = run0(&src, |_| {});
    let mut want = vec![ONE; 12];
    want.extend([f(0.5); 2]);
    assert_eq!(q_lanes(&vu, 14), want);
}

#[test]
fn second_div_waits_for_the_first() {
    // "multiple delayed (1)": DIV, DIV back to back.
    let src = format!(
        "{PRE}nop div q, vf0w, vf16w\nnop div q, vf0w, vf17w\n{}{EXIT}",
        muls(1, 14)
    );
    let vu = run0(&src, |_| {});
    let mut want = vec![f(0.25); 6];
    want.extend([f(0.0625); 8]);
    assert_eq!(q_lanes(&vu, 14), want);

    // "multiple delayed (2)": one MULq between them.
    let src = format!(
        "{PRE}nop div q, vf0w, vf16w\nmulq.xyzw vf1, vf0, q\nnop div q, vf0w, vf17w\n{}{EXIT}",
        muls(2, 14)
    );
    let vu = run0(&src, |_| {});
    let mut want = vec![ONE];
    want.extend([f(0.25); 6]);
    want.extend([f(0.0625); 7]);
    assert_eq!(q_lanes(&vu, 14), want);
}

#[test]
fn vf_read_stalls_until_the_result_is_written() {
    // "stalled (n)": a CLIP reading the VF30 a MADD just wrote stalls; the Q result lands
    // during the stall, so only VF01 sees the old Q.
    for gap in 0..3 {
        let fill: String = (0..gap).map(|_| "mulq.xyzw vf0, vf0, q\n").collect();
        let src = format!(
            "{PRE}nop div q, vf0w, vf16w\nmadd.xyzw vf30, vf23, vf0\n{fill}clipw.xyz vf30, vf30w\n{}{EXIT}",
            muls(1, 14)
        );
        let vu = run0(&src, |_| {});
        let mut want = vec![ONE];
        want.extend([f(0.25); 13]);
        assert_eq!(q_lanes(&vu, 14), want, "gap {gap}");
    }
    // RSQRT "stalled (0)": VF01..VF07 old, VF08.. new.
    let src = format!(
        "{PRE}nop rsqrt q, vf0w, vf16w\nmadd.xyzw vf30, vf23, vf0\nclipw.xyz vf30, vf30w\n{}{EXIT}",
        muls(1, 14)
    );
    let vu = run0(&src, |_| {});
    let mut want = vec![ONE; 7];
    want.extend([f(0.5); 7]);
    assert_eq!(q_lanes(&vu, 14), want);
}

#[test]
fn stalled_with_branch() {
    let src = format!(
        "{PRE}top: nop div q, vf0w, vf16w\n\
         madd.xyzw vf30, vf23, vf0   ibltz vi0, top\n\
         nop\n\
         clipw.xyz vf30, vf30w\n{}{EXIT}",
        muls(1, 14)
    );
    let vu = run0(&src, |_| {});
    let mut want = vec![ONE];
    want.extend([f(0.25); 13]);
    assert_eq!(q_lanes(&vu, 14), want);
}

#[test]
fn div_flags() {
    // 1/0 sets D (status bit 5, sticky bit 11); 0/0 sets I (bit 4, sticky 10); the result is the
    // largest magnitude.
    let vu = run0(&format!("nop div q, vf0w, vf0x\nnop waitq\n{EXIT}"), |_| {});
    assert_eq!(vu.q(), 0x7fff_ffff);
    assert_eq!(vu.status(), 0x820);
    let vu = run0(&format!("nop div q, vf0x, vf0x\nnop waitq\n{EXIT}"), |_| {});
    assert_eq!(vu.status(), 0x410);
}

#[test]
fn mac_flags_are_visible_four_cycles_later() {
    let vu = run0(
        &format!(
            "sub.xyzw vf1, vf0, vf0   iaddiu vi2, vi0, 0x7fff\n\
             nop fmand vi3, vi2\n\
             nop fmand vi4, vi2\n\
             nop fmand vi5, vi2\n\
             nop fmand vi6, vi2\n\
             nop fsand vi7, 0xfff\n\
             {EXIT}"
        ),
        |vu| vu.regs.vi[17] = 0,
    );
    // SUB issued at cycle 0 with all four lanes zero: Z = 0xF, visible from cycle 4.
    assert_eq!((vu.vi(3), vu.vi(4), vu.vi(5)), (0, 0, 0));
    assert_eq!(vu.vi(6), 0x000f);
    // Status Z (bit 0) and its sticky copy (bit 6).
    assert_eq!(vu.vi(7), 0x041);
}

#[test]
fn mac_flags_sign_overflow_underflow() {
    let vu = run0(&format!("mul.xyzw vf3, vf1, vf2\n{EXIT}"), |vu| {
        // x: 1 * -2 = -2 (S); y: 2^128 * 2 overflows (O, S clear); z: tiny * tiny underflows
        // (U, Z); w: 0 * -1 = -0 (Z, S).
        vu.regs.vf[1] = [f(1.0), 0x7f80_0000, 0x0100_0000, 0];
        vu.regs.vf[2] = [f(-2.0), f(2.0), 0x0100_0000, f(-1.0)];
    });
    assert_eq!(vu.vf(3), [f(-2.0), 0x7fff_ffff, 0, 0x8000_0000]);
    // Z: z, w (bits 1, 0); S: x, w (bits 7, 4); U: z (bit 9); O: y (bit 14).
    assert_eq!(vu.mac(), 0x4000 | 0x0200 | 0x0090 | 0x0003);
    // Status: Z S U O all set, and sticky.
    assert_eq!(vu.status(), 0x3cf);
}

#[test]
fn clip_flags_shift_and_land_late() {
    let vu = run0(
        &format!(
            "clipw.xyz vf1, vf2w\n\
             clipw.xyz vf3, vf2w\n\
             nop fcget vi1\n\
             nop fcget vi2\n\
             nop fcget vi3\n\
             nop fcget vi4\n\
             nop fcand vi1, 0x200\n\
             {EXIT}"
        ),
        |vu| {
            vu.regs.vf[1] = [f(2.0), f(-2.0), f(0.5), 0];
            vu.regs.vf[2] = [0, 0, 0, f(-1.0)];
            vu.regs.vf[3] = [f(0.0), f(0.0), f(-5.0), 0];
        },
    );
    // First CLIP: +x (bit 0) and -y (bit 3) = 0x9; second: -z (bit 5), after a shift by 6.
    let first = 0x9;
    let second = (first << 6) | 0x20;
    // FCGETs at cycles 2, 3, 4, 5: the first CLIP (cycle 0) lands at 4, the second at 5.
    assert_eq!((vu.vi(2), vu.vi(3)), (0, first as u16));
    assert_eq!(vu.vi(4), second as u16);
    // FCAND overwrote VI1: bit 9 (= +x of the first CLIP, shifted) is set.
    assert_eq!(vu.vi(1), 1);
    assert_eq!(vu.clip(), second);
}

#[test]
fn branch_sees_vi_from_before_the_previous_instruction() {
    let src = format!(
        "nop iaddiu vi1, vi0, 1\n\
         nop ibne vi1, vi0, skip\n\
         nop\n\
         nop iaddiu vi2, vi0, 5\n\
         skip: {EXIT}"
    );
    // The branch reads the old VI1 (0): not taken.
    let vu = run0(&src, |_| {});
    assert_eq!(vu.vi(2), 5);
    // With one pair in between, the new value is seen: taken.
    let src = format!(
        "nop iaddiu vi1, vi0, 1\n\
         nop\n\
         nop ibne vi1, vi0, skip\n\
         nop\n\
         nop iaddiu vi2, vi0, 5\n\
         skip: {EXIT}"
    );
    let vu = run0(&src, |_| {});
    assert_eq!(vu.vi(2), 0);
}

#[test]
fn bal_jr_and_delay_slots() {
    let (vu, stop) = run_with(
        Unit::Vu0,
        "      nop bal vi15, sub\n\
               nop iaddiu vi1, vi0, 1\n\
               nop [e]\n\
               nop\n\
         sub:  nop jr vi15\n\
               nop iaddiu vi2, vi0, 2\n",
        &mut NullHost,
        |_| {},
    );
    assert_eq!(stop, Stop::Ended { pc: 32 });
    assert_eq!((vu.vi(15), vu.vi(1), vu.vi(2)), (2, 1, 2));
}

#[test]
fn jalr_from_ps2autotests_branch() {
    // tests/vu/lower/branch: "JALR /w diff regs -> targetReg: 0006 returnReg: 0004 resultReg: 0001"
    // and "same regs -> 0004 0004 0001".
    let body = |t: usize, r: usize| {
        format!(
            "nop iaddi vi3, vi0, 0\n\
             nop iaddi vi{t}, vi0, 6\n\
             nop jalr vi{r}, vi{t}\n\
             nop\n\
             nop b exit\n\
             nop\n\
             nop iaddi vi3, vi0, 1\n\
             exit: {EXIT}"
        )
    };
    // JR and JALR read the VI the previous pair wrote (no branch VI delay for them): VI1 held
    // 0 before, and the jump still goes to pair 6.
    let vu = run0(&body(1, 2), |_| {});
    assert_eq!((vu.vi(1), vu.vi(2), vu.vi(3)), (6, 4, 1));
    let vu = run0(&body(1, 1), |_| {});
    assert_eq!((vu.vi(1), vu.vi(3)), (4, 1));
}

#[test]
fn jr_reads_the_vi_written_just_before() {
    // With the old VI5 (0) the jump would go back to pair 0 and count a second entry.
    let vu = run0(
        &format!(
            "nop iaddiu vi6, vi6, 1\n\
             nop iaddiu vi5, vi0, 6\n\
             nop jr vi5\n\
             nop\n\
             nop iaddiu vi2, vi0, 7\n\
             nop iaddiu vi3, vi0, 9\n\
             nop iaddiu vi4, vi0, 1\n\
             {EXIT}"
        ),
        |_| {},
    );
    assert_eq!((vu.vi(6), vu.vi(2), vu.vi(3), vu.vi(4)), (1, 0, 0, 1));
}

#[test]
fn runaway_program_hits_the_cycle_limit() {
    let mut vu = Vu::new(Unit::Vu1);
    vu.load_micro(0, &asm("loop: nop b loop\nnop\n"));
    let stop = vu.run(0, &mut NullHost, 1000);
    assert!(matches!(stop, Stop::CycleLimit { .. }), "{stop:?}");
    assert_eq!(vu.cycle, 1000);
}

#[test]
fn undefined_instruction_is_an_error() {
    let mut vu = Vu::new(Unit::Vu0);
    // Upper opcode 0x30 is not defined.
    vu.load_micro(0, &[0x0000_0030_8000_033c]);
    match vu.run(0, &mut NullHost, 100) {
        Stop::Error { pc: 0, what } => assert!(what.contains("upper"), "{what}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn clip_matches_the_hardware() {
    // ps2autotests tests/vu/upper/clip: "Basic" (CLIP, three NOPs, FCGET) ...
    let basic = |s: [u32; 4], t: [u32; 4]| {
        let vu = run0(
            &format!("clipw.xyz vf1, vf2w\nnop\nnop\nnop\nnop fcget vi1\n{EXIT}"),
            |vu| {
                vu.regs.vf[1] = s;
                vu.regs.vf[2] = t;
            },
        );
        vu.vi(1)
    };
    let (pos, neg) = ([0x4000_0000u32; 4], [0xc000_0000u32; 4]);
    let half_neg = [0xc000_0000, 0x4000_0000, 0xc000_0000, 0x4000_0000];
    let negone = [0xbf80_0000; 4];
    assert_eq!(basic(pos, negone), 0x15);
    assert_eq!(basic(neg, negone), 0x2a);
    assert_eq!(basic(half_neg, [0; 4]), 0x26);
    assert_eq!(basic(half_neg, [0x8000_0000; 4]), 0x26);
    assert_eq!(basic([0; 4], [0x8000_0000; 4]), 0);
    assert_eq!(basic(pos, pos), 0);
    assert_eq!(basic([0xffff_ffff; 4], [0; 4]), 0x2a);
    assert_eq!(basic([0x7fff_ffff; 4], [0; 4]), 0x15);
    assert_eq!(basic([0; 4], [0x7fff_ffff; 4]), 0);

    // ... and "Multi": four CLIPs against VF0 with FCGETs in the same pairs, then six FCGETs.
    let vu = run0(
        &format!(
            "clipw.xyz vf1, vf0w   fcget vi1\n\
             clipw.xyz vf2, vf0w   fcget vi2\n\
             clipw.xyz vf3, vf0w   fcget vi3\n\
             clipw.xyz vf4, vf0w   fcget vi4\n\
             nop fcget vi5\nnop fcget vi6\nnop fcget vi7\n\
             nop fcget vi8\nnop fcget vi9\nnop fcget vi10\n{EXIT}"
        ),
        |vu| {
            vu.regs.vf[1] = pos;
            vu.regs.vf[2] = neg;
            vu.regs.vf[3] = [0x4000_0000, 0xc000_0000, 0x4000_0000, 0xc000_0000];
            vu.regs.vf[4] = half_neg;
        },
    );
    let got: Vec<u16> = (1..=10).map(|r| vu.vi(r)).collect();
    assert_eq!(got, [0, 0, 0, 0, 0x15, 0x56a, 0xa99, 0x666, 0x666, 0x666]);
}

#[test]
fn triace_game_sequence_matches_the_hardware() {
    // ps2autotests tests/vu/games/triace: MULi/ADDi chains with an immediate in every pair.
    let vu = run0(
        &format!(
            "nop                    loi 0x42fecccd\n\
             muli.x vf2, vf1, i     loi 0x42546666\n\
             addi.x vf3, vf2, i     loi 0x43d80d3e\n\
             muli.y vf2, vf1, i     loi 0xc7f079b3\n\
             addi.y vf3, vf2, i     loi 0x43a0da10\n\
             muli.z vf2, vf1, i     loi 0x43a02666\n\
             addi.z vf3, vf2, i     loi 0x43546e14\n\
             muli.w vf2, vf1, i     loi 0x42f23333\n\
             addi.w vf3, vf2, i     loi 0x3dd3dd98\n\
             {EXIT}"
        ),
        |vu| vu.regs.vf[1] = [0xb063_b75b, 0x8701_ce82, 0x46fc_c888, 0x793c_c535],
    );
    assert_eq!(
        vu.vf(2),
        [0xb3e2_a618, 0x8b5b_19e9, 0x4b1e_d4a7, 0x7d1c_a47b]
    );
    assert_eq!(
        vu.vf(3),
        [0x4254_6666, 0xc7f0_79b3, 0x4b1e_d5e7, 0x7d1c_a47b]
    );
}
