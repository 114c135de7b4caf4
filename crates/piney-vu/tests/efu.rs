//! EFU results against hardware values from ps2autotests `tests/vu/lower/efu.expected` (the
//! test loads the operand, runs the op on its z lane or its vector, WAITP, MFP).

mod common;
use common::*;

const ZERO: [u32; 4] = [0; 4];
const NEGZERO: [u32; 4] = [0x8000_0000; 4];
const MAX: [u32; 4] = [0x7fff_ffff; 4];
const MIN: [u32; 4] = [0xffff_ffff; 4];
const MAX_MANTISSA: [u32; 4] = [0x3fff_ffff; 4];
const MAX_EXP: [u32; 4] = [0x7f80_0001; 4];
const ONE: [u32; 4] = [0x3f80_0000; 4];
const NEGONE: [u32; 4] = [0xbf80_0000; 4];
const MIN_EXP: [u32; 4] = [0x0000_0001; 4];
const GARBAGE1: [u32; 4] = [0x0000_1337; 4];
const GARBAGE2: [u32; 4] = [0xdead_beef; 4];
const INCREASING: [u32; 4] = [0x3f80_0000, 0x4000_0000, 0x4040_0000, 0x4080_0000];
const DECREASING: [u32; 4] = [0x4080_0000, 0x4040_0000, 0x4000_0000, 0x3f80_0000];
const PI_OVER2: [u32; 4] = [0x3fc9_0fdb; 4];
const PI: [u32; 4] = [0x4049_0fdb; 4];
const PI3_OVER2: [u32; 4] = [0x4096_cbe4; 4];

fn efu(op: &str, v: [u32; 4]) -> u32 {
    let scalar = ["eatan", "eexp", "ercpr", "ersqrt", "esin", "esqrt"].contains(&op);
    let operand = if scalar { "vf1z" } else { "vf1" };
    let vu = run1(
        &format!("nop {op} p, {operand}\nnop waitp\nnop mfp.x vf2, p\n{EXIT}"),
        |vu| vu.regs.vf[1] = v,
    );
    vu.vf(2)[0]
}

#[test]
fn arithmetic_efu_ops_match_the_hardware() {
    let cases: &[(&str, [u32; 4], u32)] = &[
        ("esadd", ZERO, 0),
        ("esadd", MAX, 0x7fff_ffff),
        ("esadd", MAX_MANTISSA, 0x413f_fffe),
        ("esadd", GARBAGE2, 0x7eb0_e16b),
        ("esadd", PI, 0x41ec_ded9),
        ("ersadd", NEGZERO, 0x7fff_ffff),
        ("ersadd", MAX_MANTISSA, 0x3daa_aaac),
        ("ersadd", INCREASING, 0x3d92_4925),
        ("eleng", MAX, 0x5fb5_04f3),
        ("eleng", ONE, 0x3fdd_b3d7),
        ("eleng", DECREASING, 0x40ac_5345),
        ("erleng", ZERO, 0x7fff_ffff),
        ("erleng", MAX_EXP, 0x1f35_04f3),
        ("erleng", ONE, 0x3f13_cd3a),
        ("erleng", PI_OVER2, 0x3ebc_2fda),
        ("esum", NEGZERO, 0x8000_0000),
        ("esum", MIN, 0xffff_ffff),
        ("esum", MAX_MANTISSA, 0x40ff_fffe),
        ("esum", GARBAGE2, 0xdfad_beee),
        ("esum", PI, 0x4149_0fda),
        ("ercpr", NEGZERO, 0xffff_ffff),
        ("ercpr", MIN, 0x8000_0000),
        ("ercpr", MAX_MANTISSA, 0x3f00_0001),
        ("ercpr", GARBAGE2, 0xa03c_98eb),
        ("ercpr", INCREASING, 0x3eaa_aaab),
        ("esqrt", NEGONE, 0x3f80_0000),
        ("esqrt", MAX_EXP, 0x5f80_0000),
        ("esqrt", GARBAGE2, 0x4f15_2108),
        ("esqrt", PI, 0x3fe2_dfc4),
        ("ersqrt", NEGZERO, 0x7fff_ffff),
        ("ersqrt", MAX_EXP, 0x1f80_0000),
        ("ersqrt", GARBAGE2, 0x2fdb_baac),
        ("ersqrt", PI_OVER2, 0x3f4c_4229),
    ];
    for &(op, v, want) in cases {
        assert_eq!(efu(op, v), want, "{op} {v:08x?}");
    }
}

#[test]
fn series_efu_ops_match_the_hardware_bit_for_bit() {
    // ESIN, EATAN, EATANxy, EATANxz and EEXP on every operand of the hardware test: the series
    // evaluated step by step with the FMAC's adder and multiplier reproduce each result exactly.
    let cases: &[(&str, [u32; 4], u32)] = &[
        ("esin", ZERO, 0x0000_0000),
        ("esin", NEGZERO, 0x0000_0000),
        ("esin", MAX, 0x7fd7_6aa2),
        ("esin", MIN, 0xffd7_6aa2),
        ("esin", MAX_MANTISSA, 0x3f68_c816),
        ("esin", MAX_EXP, 0x7f2e_d54b),
        ("esin", MIN_EXP, 0x0000_0000),
        ("esin", ONE, 0x3f57_6aa4),
        ("esin", NEGONE, 0xbf57_6aa4),
        ("esin", GARBAGE1, 0x0000_0000),
        ("esin", GARBAGE2, 0x7ea2_556c),
        ("esin", INCREASING, 0x3e12_6230),
        ("esin", DECREASING, 0x3f68_c815),
        ("esin", PI_OVER2, 0x3f80_0000),
        ("esin", PI, 0x3b56_5de0),
        ("esin", PI3_OVER2, 0xbf1a_9934),
        ("eatan", ZERO, 0x33e6_0000),
        ("eatan", NEGZERO, 0x33e6_0000),
        ("eatan", MAX, 0x3fc9_0fd9),
        ("eatan", MIN, 0x3fc9_0fd9),
        ("eatan", MAX_MANTISSA, 0x3f8d_b70b),
        ("eatan", MAX_EXP, 0x3fc9_0fd9),
        ("eatan", MIN_EXP, 0x33e6_0000),
        ("eatan", ONE, 0x3f49_0fda),
        ("eatan", NEGONE, 0xffc9_0fd7),
        ("eatan", GARBAGE1, 0x33e6_0000),
        ("eatan", GARBAGE2, 0x3fc9_0fd9),
        ("eatan", INCREASING, 0x3f9f_e0ba),
        ("eatan", DECREASING, 0x3f8d_b70b),
        ("eatan", PI_OVER2, 0x3f80_7f4c),
        ("eatan", PI, 0x3fa1_9dc4),
        ("eatan", PI3_OVER2, 0x3fae_4be7),
        ("eatanxy", ZERO, 0x7fc9_0fd7),
        ("eatanxy", NEGZERO, 0xffc9_0fd7),
        ("eatanxy", MAX, 0x3f49_0fda),
        ("eatanxy", MIN, 0x3f49_0fda),
        ("eatanxy", MAX_MANTISSA, 0x3f49_0fda),
        ("eatanxy", MAX_EXP, 0x3f49_0fda),
        ("eatanxy", MIN_EXP, 0x7fc9_0fd7),
        ("eatanxy", ONE, 0x3f49_0fda),
        ("eatanxy", NEGONE, 0x3f49_0fda),
        ("eatanxy", GARBAGE1, 0x7fc9_0fd7),
        ("eatanxy", GARBAGE2, 0x3f49_0fda),
        ("eatanxy", INCREASING, 0x3f8d_b70b),
        ("eatanxy", DECREASING, 0x3f24_bc7d),
        ("eatanxy", PI_OVER2, 0x3f49_0fda),
        ("eatanxy", PI, 0x3f49_0fda),
        ("eatanxy", PI3_OVER2, 0x3f49_0fda),
        ("eatanxz", ZERO, 0x7fc9_0fd7),
        ("eatanxz", NEGZERO, 0xffc9_0fd7),
        ("eatanxz", MAX, 0x3f49_0fda),
        ("eatanxz", MIN, 0x3f49_0fda),
        ("eatanxz", MAX_MANTISSA, 0x3f49_0fda),
        ("eatanxz", MAX_EXP, 0x3f49_0fda),
        ("eatanxz", MIN_EXP, 0x7fc9_0fd7),
        ("eatanxz", ONE, 0x3f49_0fda),
        ("eatanxz", NEGONE, 0x3f49_0fda),
        ("eatanxz", GARBAGE1, 0x7fc9_0fd7),
        ("eatanxz", GARBAGE2, 0x3f49_0fda),
        ("eatanxz", INCREASING, 0x3f9f_e0ba),
        ("eatanxz", DECREASING, 0x3eed_6339),
        ("eatanxz", PI_OVER2, 0x3f49_0fda),
        ("eatanxz", PI, 0x3f49_0fda),
        ("eatanxz", PI3_OVER2, 0x3f49_0fda),
        ("eexp", ZERO, 0x3f80_0000),
        ("eexp", NEGZERO, 0x3f80_0000),
        ("eexp", MAX, 0x0000_0000),
        ("eexp", MIN, 0x0000_0000),
        ("eexp", MAX_MANTISSA, 0x3e0a_9554),
        ("eexp", MAX_EXP, 0x0000_0000),
        ("eexp", MIN_EXP, 0x3f80_0000),
        ("eexp", ONE, 0x3ebc_5abf),
        ("eexp", NEGONE, 0x402d_f0aa),
        ("eexp", GARBAGE1, 0x3f80_0000),
        ("eexp", GARBAGE2, 0x0000_0000),
        ("eexp", INCREASING, 0x3d4b_ed7f),
        ("eexp", DECREASING, 0x3e0a_9554),
        ("eexp", PI_OVER2, 0x3e54_de73),
        ("eexp", PI, 0x3d31_0121),
        ("eexp", PI3_OVER2, 0x3c13_2f25),
    ];
    for &(op, v, want) in cases {
        assert_eq!(efu(op, v), want, "{op} {v:08x?}");
    }
}
