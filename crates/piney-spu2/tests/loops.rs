//! Loop flags (psx-spx "SPU ADPCM Samples", PCSX2 SPU2/Mixer.cpp): Loop End without Repeat
//! mutes and stops the voice (ENDX set, the decoder goes on at LSA); LSAX written after KON
//! wins over Loop Start flags. Noise (psx-spx "SPU Noise Generator") replaces the samples of
//! NON voices.

mod common;
use common::*;

fn setup(b_flags: u8) -> piney_spu2::Spu2 {
    let mut s = spu();
    load(&mut s, 0x3000, &block(1, 0, 4, &[1; 28]));
    load(&mut s, 0x3008, &block(1, 0, b_flags, &[2; 28]));
    load(&mut s, 0x3010, &block(1, 0, 3, &[3; 28]));
    s.write(vp(0, 1, PITCH), 0x1000);
    s.write(vp(0, 1, ADSR1), 0x00FF);
    s.write(vp(0, 1, ADSR2), 0x1FC0);
    set_addr(&mut s, va(0, 1, 0), 0x3000);
    s.write(cr(0, KON), 2);
    s
}

#[test]
fn loop_end_without_repeat_mutes_and_stops() {
    let mut s = setup(1);
    for _ in 0..56 {
        s.tick();
    }
    assert_eq!(s.read(vp(0, 1, ENVX)), 0x7FFF);
    assert_eq!(s.read(cr(0, ENDX)) & 2, 0);
    // Tick 57 produces sample 55, the last of B: then the flags apply.
    s.tick();
    assert_eq!(s.read(cr(0, ENDX)) & 2, 2);
    assert_eq!(s.read(vp(0, 1, ENVX)), 0);
    assert_eq!(s.read(va(0, 1, 5)), 0x3001, "the decoder goes on at LSA");
    // Silent from now on (voice 1's output area), though the decoder keeps walking.
    s.write(cr(0, ENDX), 0);
    for _ in 0..56 {
        s.tick();
        let pos = ((s.samples() - 1) & 0x1FF) as usize;
        assert_eq!(s.ram()[0x400 + pos], 0);
    }
    assert_eq!(
        s.read(cr(0, ENDX)) & 2,
        2,
        "a stopped voice still passes Loop End"
    );
    // KOFF does nothing to a stopped voice.
    s.write(cr(0, KOFF), 2);
    s.tick();
    assert_eq!(s.read(vp(0, 1, ENVX)), 0);
}

#[test]
fn lsax_written_after_kon_beats_loop_start() {
    let mut s = setup(3);
    s.tick();
    s.tick();
    set_addr(&mut s, va(0, 1, 2), 0x3010);
    for _ in 0..55 {
        s.tick();
    }
    assert_eq!(s.read(va(0, 1, 5)), 0x3011);
    assert_eq!(s.read(va(0, 1, 3)), 0x3010);
}

#[test]
fn lsax_written_before_kon_yields_to_loop_start() {
    let mut s = spu();
    load(&mut s, 0x3000, &block(1, 0, 4, &[1; 28]));
    load(&mut s, 0x3008, &block(1, 0, 3, &[2; 28]));
    s.write(vp(0, 1, PITCH), 0x1000);
    s.write(vp(0, 1, ADSR1), 0x00FF);
    set_addr(&mut s, va(0, 1, 0), 0x3000);
    set_addr(&mut s, va(0, 1, 2), 0x3010);
    s.write(cr(0, KON), 2);
    for _ in 0..57 {
        s.tick();
    }
    assert_eq!(s.read(va(0, 1, 5)), 0x3001);
}

#[test]
fn noise_voice_plays_the_lfsr() {
    let mut s = setup(3);
    // ATTR bits 13-8 = 0x3F: noise shift 15 (timer reload 0x20000 >> 15 = 4), step 3 (+4 = 7):
    // the timer runs out every sample, so the LFSR shifts once per sample.
    s.write(cr(0, ATTR), 0x3F00);
    s.write(cr(0, NON), 2);
    let mut level: u16 = 0;
    let mut timer: i32 = 0;
    let mut lfsr = |level: &mut u16| {
        timer -= 7;
        let l = *level;
        let parity = ((l >> 15) ^ (l >> 12) ^ (l >> 11) ^ (l >> 10) ^ 1) & 1;
        if timer < 0 {
            *level = (l << 1) | parity;
            timer += 4;
            if timer < 0 {
                timer += 4;
            }
        }
    };
    let env = [0x3800, 0x7000];
    for t in 1..200u64 {
        let used = level;
        s.tick();
        // The voice reads the noise level as it was before this sample's clock (PCSX2
        // Mixer.cpp updates the noise after the voices).
        lfsr(&mut level);
        let pos = ((s.samples() - 1) & 0x1FF) as usize;
        let got = s.ram()[0x400 + pos] as i16 as i32;
        let want = if t < 2 {
            0
        } else {
            (used as i16 as i32 * env.get(t as usize - 2).copied().unwrap_or(0x7FFF)) >> 15
        };
        assert_eq!(got, want, "sample {t}");
    }
    assert_ne!(level, 0);
}
