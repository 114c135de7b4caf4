//! Reverb on an impulse: one same-side reflection, read back by comb 1 through both
//! all-pass stages (volume 0, size 1: pure one-step delays), derived from psx-spx "SPU Reverb
//! Formula" with the SPU2's 48 kHz framing (PCSX2 SPU2/Reverb.cpp, ReverbResample.cpp):
//! left steps on even sample counts, right on odd; the work-area position is count / 2; the
//! 39-tap half-band filter (psx-spx "Reverb Buffer Resampling") reads the 39 inputs before
//! the current one going down, and the 39 zero-stuffed outputs up to the current one (taps
//! doubled, 32768 saturating to 32767) going up.

mod common;
use common::*;

const FIR: [i32; 39] = [
    -1, 0, 2, 0, -10, 0, 35, 0, -103, 0, 266, 0, -616, 0, 1332, 0, -2960, 0, 10246, 16384, 10246,
    0, -2960, 0, 1332, 0, -616, 0, 266, 0, -103, 0, 35, 0, -10, 0, 2, 0, -1,
];

fn mul(a: i32, b: i32) -> i32 {
    (a * b) >> 15
}

fn setup() -> piney_spu2::Spu2 {
    let mut s = spu();
    // Work area 0x10000..0x1FFFF (EEA names the 128 KiB region; its end is 0x1FFFF).
    set_addr(&mut s, cr(0, ESA_HI), 0x10000);
    s.write(cr(0, EEA_HI), 1);
    // Left: same reflection written at +0x200, comb 1 reads it back at +0x1C0 (0x40 steps
    // later); diff written at +0x300 (read by nothing); all-pass 1 and 2 at +0x400 / +0x500.
    for (r, v) in [
        (SAME_L_DST, 0x200),
        (COMB1_L_SRC, 0x1C0),
        (DIFF_L_DST, 0x300),
        (APF1_L_DST, 0x400),
        (APF2_L_DST, 0x500),
        (APF1_SIZE, 1),
        (APF2_SIZE, 1),
        // The right side works far away, on silence.
        (SAME_R_DST, 0x8000),
        (SAME_R_SRC, 0x8000),
        (DIFF_R_DST, 0x8100),
        (DIFF_L_SRC, 0x8000),
        (COMB1_R_SRC, 0x8200),
        (COMB2_R_SRC, 0x8200),
        (COMB3_R_SRC, 0x8200),
        (COMB4_R_SRC, 0x8200),
        (APF1_R_DST, 0x8300),
        (APF2_R_DST, 0x8400),
    ] {
        set_rvb(&mut s, 0, r, v);
    }
    s.write(ext(0, IIR_VOL), 0x7FFF);
    s.write(ext(0, COMB1_VOL), 0x7FFF);
    s.write(ext(0, IN_COEF_L), 0x7FFF);
    s.write(ext(0, EVOLL), 0x7FFF);
    // Core 0: only its sound data input (left) goes to the effect; core 1: only core 0's
    // output (left, dry) to the DAC.
    s.write(cr(0, MMIX), 0x020);
    s.write(cr(1, MMIX), 0x008);
    s.write(cr(0, ATTR), 0x80);
    // The impulse: one input sample at position 1 (the second sample, count 2: even, left).
    s.ram_mut()[0x2001] = 0x4000;
    s
}

fn expected(ticks: u64) -> Vec<[i16; 2]> {
    let w = mul(0x4000, 0x7FFF); // BVOL 0x7FFF (reset value)
    // It enters the downsampler's history at count 2; a left step at count t reads counts
    // t-39..t-1 against taps 0..38: count 22 meets the centre tap 19, the other left steps
    // meet odd taps (all 0).
    let d = (w * FIR[19]) >> 15;
    let inp = mul(0x7FFF, d); // IN_COEF_L
    let same = mul(0x7FFF, inp); // IIR_VOL, WALL 0, previous same 0; position 22 / 2 = 11
    // The next step's same is IIR * (0 - same) + same = 0 (floor of -same + same/0x8000).
    // Comb 1 reads the same reflection 0x40 steps later; each all-pass stage delays one step.
    let echo_pos = 11 + 0x40 + 2;
    let e = mul(0x7FFF, same); // COMB1_VOL
    let t0 = 2 * echo_pos; // the left step at position 77: count 154
    (1..=ticks)
        .map(|t| {
            let rv = if (t0..t0 + 39).contains(&t) {
                let j = 38 - (t - t0) as usize;
                let up = (2 * FIR[j]).min(0x7FFF);
                (e * up) >> 15
            } else {
                0
            };
            let out0 = mul(rv, 0x7FFF); // EVOLL
            let l = chain_after_core0(out0);
            [l as i16, 0]
        })
        .collect()
}

/// Core 0's output through MVOL0 (0x7FFE), AVOL (0x7FFF), MVOL1 (0x7FFE).
fn chain_after_core0(v: i32) -> i32 {
    mul(mul(mul(v, 0x7FFE), 0x7FFF), 0x7FFE)
}

#[test]
fn impulse_echoes_after_the_derived_delay() {
    let mut s = setup();
    let got: Vec<[i16; 2]> = (0..220).map(|_| s.tick()).collect();
    let want = expected(220);
    assert_eq!(got, want);
    // The echo: first tap at count 154, the centre of the upsampler at 154 + 19.
    assert!(got[..153].iter().all(|x| *x == [0, 0]));
    assert_ne!(got[153], [0, 0]);
    let peak = got.iter().enumerate().max_by_key(|(_, x)| x[0]).unwrap().0;
    assert_eq!(peak + 1, 173);
    // The reflection was written: left same at 0x10000 + 11 + 0x200.
    assert_eq!(s.ram()[0x10000 + 11 + 0x200] as i16, 0x4000 / 2 - 3);
}

#[test]
fn effect_disabled_writes_nothing_to_the_work_area() {
    let mut s = setup();
    s.write(cr(0, ATTR), 0);
    let got: Vec<[i16; 2]> = (0..220).map(|_| s.tick()).collect();
    assert!(got.iter().all(|x| *x == [0, 0]));
    assert!(s.ram()[0x10000..0x20000].iter().all(|&x| x == 0));
}

#[test]
fn esa_written_while_effects_run_waits_for_the_effect_bit_to_clear() {
    // PCSX2 RegWrite_Core REG_A_ESA: the new area applies once ATTR's effect bit clears.
    let mut s = setup();
    set_addr(&mut s, cr(0, ESA_HI), 0x30000);
    assert_eq!(s.read(cr(0, ESA_HI)), 1);
    s.write(cr(0, ATTR), 0);
    assert_eq!(s.read(cr(0, ESA_HI)), 3);
    assert_eq!(s.read(cr(0, ESA_HI + 2)), 0);
}
