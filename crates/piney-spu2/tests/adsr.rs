//! The ADSR envelope (psx-spx "SPU Volume and ADSR Generator", the rate rule as PCSX2
//! SPU2/ADSR.cpp steps it): each phase at a known rate, read back through ENVX.

mod common;
use common::*;

/// A silent looping block at 0x3000 (Loop Start + Loop End + Repeat) keeps the voice sounding.
fn setup(adsr1: u16, adsr2: u16) -> piney_spu2::Spu2 {
    let mut s = spu();
    load(&mut s, 0x3000, &block(0, 0, 7, &[0; 28]));
    s.write(vp(0, 0, PITCH), 0x1000);
    s.write(vp(0, 0, ADSR1), adsr1);
    s.write(vp(0, 0, ADSR2), adsr2);
    set_addr(&mut s, va(0, 0, 0), 0x3000);
    s.write(cr(0, KON), 1);
    // The voice starts on the second sample after KON; its envelope steps once per sample.
    s.tick();
    assert_eq!(s.read(vp(0, 0, ENVX)), 0);
    s
}

/// ENVX after each of `n` envelope steps; KOFF written before step `koff` if given.
fn envx(s: &mut piney_spu2::Spu2, n: usize, koff: Option<usize>) -> Vec<i32> {
    (0..n)
        .map(|k| {
            if koff == Some(k) {
                s.write(cr(0, KOFF), 1);
            }
            s.tick();
            s.read(vp(0, 0, ENVX)) as i32
        })
        .collect()
}

/// One step of the documented rule: counter += 0x8000 >> max(0, shift - 11) (at least 1; /4
/// for exponential increase above 0x6000); on overflow level += step << max(0, 11 - shift),
/// scaled by level / 0x8000 for exponential decrease, saturated to 0..0x7FFF.
fn step(level: &mut i32, counter: &mut u32, shift: u32, step: i32, exp: bool) {
    let decr = step < 0;
    let mut inc = (0x8000u32 >> shift.saturating_sub(11)).max(1);
    if exp && !decr && *level > 0x6000 {
        inc >>= 2;
    }
    *counter += inc;
    if *counter >= 0x8000 {
        *counter = 0;
        let mut d = step << 11u32.saturating_sub(shift);
        if exp && decr {
            d = (d * *level) >> 15;
        }
        *level = (*level + d).clamp(0, 0x7FFF);
    }
}

#[test]
fn linear_attack_shift_13_step_7_adds_7_every_4_samples() {
    // ADSR1 bits 14-10 = 13, bits 9-8 = 0 (+7): counter +0x2000 (4 samples), +7 per step.
    let mut s = setup(13 << 10, 0);
    let got = envx(&mut s, 400, None);
    let want: Vec<i32> = (1..=400).map(|k| 7 * (k / 4)).collect();
    assert_eq!(got, want);
}

#[test]
fn linear_attack_shift_9_step_6_adds_24_per_sample() {
    // Shift 9, step field 1 (+6): +6 << 2 = 24 each sample; then decay starts at 0x7FFF.
    let mut s = setup((9 << 10) | (1 << 8) | 0xF0 | 0xF, 0x1FC0);
    let got = envx(&mut s, 1400, None);
    for (k, &v) in got.iter().enumerate() {
        assert_eq!(v, (24 * (k as i32 + 1)).min(0x7FFF), "step {}", k + 1);
    }
}

#[test]
fn exponential_attack_slows_to_a_quarter_above_6000() {
    // Shift 10 step +7: +14 per sample up to level 0x6000 (1756 samples reach 24584), then
    // +14 every 4 samples (psx-spx: exponential increase is a slower linear rise).
    let mut s = setup(0x8000 | (10 << 10), 0);
    let got = envx(&mut s, 2600, None);
    for (k, &v) in got.iter().enumerate() {
        let k = k as i32 + 1;
        let want = if k <= 1756 {
            14 * k
        } else {
            24584 + 14 * ((k - 1756) / 4)
        };
        assert_eq!(v, want.min(0x7FFF), "step {k}");
    }
}

#[test]
fn exponential_decay_to_sustain_level() {
    // Attack shift 0 (+0x3800 per sample), decay shift 4 (-8 << 7 = -1024 scaled by
    // level / 0x8000), sustain level 7 (target 0x4000); sustain rate 0x7F holds.
    let mut s = setup((4 << 4) | 7, 0x1FC0);
    let got = envx(&mut s, 80, None);
    let mut want = vec![0x3800, 0x7000, 0x7FFF];
    let mut l = 0x7FFF;
    while want.len() < 80 {
        if l > 0x4000 {
            l += (-1024 * l) >> 15;
        }
        want.push(l);
    }
    assert_eq!(got, want);
    assert_eq!(got[3], 0x7FFF - 1024);
    assert!(*got.last().unwrap() <= 0x4000 && *got.last().unwrap() > 0x3C00);
}

/// Attack to 0x7FFF in 3 samples, decay ends at once (sustain level 15), then sustain as
/// ADSR2 says.
fn sustain(adsr2: u16, shift: u32, stepv: i32, exp: bool, n: usize) {
    let mut s = setup(0x00FF, adsr2);
    let got = envx(&mut s, n, None);
    let mut want = vec![0x3800, 0x7000, 0x7FFF];
    // The decay step (shift 15: counter +0x800) does not overflow: still 0x7FFF.
    want.push(0x7FFF);
    let (mut l, mut c) = (0x7FFF, 0u32);
    while want.len() < n {
        step(&mut l, &mut c, shift, stepv, exp);
        want.push(l);
    }
    assert_eq!(got, want, "ADSR2 {adsr2:#06x}");
}

#[test]
fn sustain_linear_decrease_then_voice_off() {
    // ADSR2: bit 14 decrease, shift 12, step field 2 (NOT(7-2) = -6): -6 every 2 samples.
    sustain(0x4000 | (12 << 8) | (2 << 6), 12, -6, false, 200);
    let mut s = setup(0x00FF, 0x4000 | (2 << 6));
    // Shift 0 step -6: -6 << 11 = -12288 per sample; reaches 0 and the voice stops.
    let got = envx(&mut s, 10, None);
    assert_eq!(&got[4..], &[0x7FFF - 12288, 0x7FFF - 2 * 12288, 0, 0, 0, 0]);
}

#[test]
fn sustain_exponential_decrease() {
    sustain(0xC000 | (8 << 8), 8, -8, true, 300);
}

#[test]
fn sustain_linear_and_exponential_increase_hold_at_max() {
    // From 0x7FFF an increase saturates; the phase stays sustain.
    sustain(5 << 8, 5, 7, false, 50);
    sustain(0x8000 | (5 << 8), 5, 7, true, 50);
}

#[test]
fn koff_starts_linear_release() {
    // Release linear shift 10: -8 << 1 = -16 per sample from 0x7FFF to 0, then off.
    let mut s = setup(0x00FF, 0x1FC0 | 10);
    let got = envx(&mut s, 2100, Some(10));
    assert_eq!(got[9], 0x7FFF);
    for (k, &v) in got[10..].iter().enumerate() {
        assert_eq!(v, (0x7FFF - 16 * (k as i32 + 1)).max(0));
    }
    // Once released to 0 the voice is off: KOFF again changes nothing, ENVX stays 0.
    assert_eq!(*got.last().unwrap(), 0);
}

#[test]
fn koff_starts_exponential_release() {
    // Release exponential shift 6: (-8 << 5) * level >> 15 per sample.
    let mut s = setup(0x00FF, 0x1FC0 | 0x20 | 6);
    let got = envx(&mut s, 300, Some(10));
    let mut l = 0x7FFF;
    for &v in &got[10..] {
        l = (l + ((-256 * l) >> 15)).max(0);
        assert_eq!(v, l);
    }
}

#[test]
fn koff_within_two_samples_of_kon_is_ignored() {
    // PCSX2 spu2sys.cpp StopVoices: a key off less than 2 samples after the key on is dropped.
    let mut s = spu();
    load(&mut s, 0x3000, &block(0, 0, 7, &[0; 28]));
    s.write(vp(0, 0, ADSR1), 0x00FF);
    s.write(vp(0, 0, ADSR2), 0x1FC0);
    set_addr(&mut s, va(0, 0, 0), 0x3000);
    s.write(cr(0, KON), 1);
    s.tick();
    s.write(cr(0, KOFF), 1);
    for _ in 0..4 {
        s.tick();
    }
    assert_eq!(s.read(vp(0, 0, ENVX)), 0x7FFF);
}
