//! One voice playing known ADPCM blocks: the decode, the pitch counter and the Gaussian
//! interpolation, derived here from psx-spx's formulas.

mod common;
use common::*;

/// Entries of psx-spx's gauss table ("SPU ADPCM Pitch") that phases 0 and 0x80 use.
fn g(i: usize) -> i32 {
    match i {
        0x000 => -0x0001,
        0x0FF => 0x12C7,
        0x100 => 0x1307,
        0x1FF => 0x59B3,
        0x07F => 0x019C,
        0x080 => 0x01A8,
        0x17F => 0x3DEF,
        0x180 => 0x3E4C,
        _ => panic!("table entry {i:#x} not quoted"),
    }
}

const A: [i8; 28] = [
    1, 7, -8, -1, 3, 0, -5, 2, 6, -3, 4, -7, 0, 1, 2, 3, -2, -4, 5, 7, -6, -8, 1, -1, 0, 4, -3, 2,
];
const B: [i8; 28] = [
    -8, -8, 7, 7, 7, -8, 0, 0, 3, -3, 5, -5, 6, -6, 1, 2, 4, -1, -2, -4, 7, 0, -7, 3, 2, 1, 0, -1,
];

/// The voice: SSA 0x3000 holding A (shift 4, filter 1, Loop Start) then B (shift 2,
/// filter 3, Loop End + Loop Repeat), so it plays A B A B ... with continuous filter history.
/// ADSR1 0x00FF: linear attack shift 0 step +7 (0x3800 per sample), decay shift 15
/// (one step per 16 samples), sustain level 15 (target 0x8000: decay ends at once);
/// ADSR2 0x1FC0: sustain rate 0x7F (all rate bits set: never steps, psx-spx).
fn setup(pitch: u16) -> piney_spu2::Spu2 {
    let mut s = spu();
    load(&mut s, 0x3000, &block(4, 1, 4, &A));
    load(&mut s, 0x3008, &block(2, 3, 3, &B));
    s.write(vp(0, 1, VOLL), 0x3FFF);
    s.write(vp(0, 1, VOLR), 0x3FFF);
    s.write(vp(0, 1, PITCH), pitch);
    s.write(vp(0, 1, ADSR1), 0x00FF);
    s.write(vp(0, 1, ADSR2), 0x1FC0);
    set_addr(&mut s, va(0, 1, 0), 0x3000);
    s.write(cr(0, KON), 1 << 1);
    s
}

/// Envelope level used for the voice's n-th sample: attack +0x3800, +0x3800, then 0x7FFF
/// (PCSX2 SPU2/Mixer.cpp: the envelope steps before it scales the sample).
fn env(n: usize) -> i32 {
    [0x3800, 0x7000][..].get(n).copied().unwrap_or(0x7FFF)
}

fn expected(pitch: u32, count: usize) -> Vec<i32> {
    let stream = decode(
        &[
            (4, 1, A),
            (2, 3, B),
            (4, 1, A),
            (2, 3, B),
            (4, 1, A),
            (2, 3, B),
            (4, 1, A),
            (2, 3, B),
        ],
        &mut (0, 0),
    );
    let s = |m: i64| if m < 0 { 0 } else { stream[m as usize] };
    (0..count)
        .map(|n| {
            let p = n as u32 * pitch;
            let m = (p >> 12) as i64;
            let i = ((p >> 4) & 0xFF) as usize;
            // psx-spx: gauss[0FFh-i]*oldest + gauss[1FFh-i]*older + gauss[100h+i]*old + gauss[i]*new,
            // each product >> 15.
            let interp = ((g(0xFF - i) * s(m - 3)) >> 15)
                + ((g(0x1FF - i) * s(m - 2)) >> 15)
                + ((g(0x100 + i) * s(m - 1)) >> 15)
                + ((g(i) * s(m)) >> 15);
            (interp * env(n)) >> 15
        })
        .collect()
}

/// Runs the voice; returns its post-envelope output per sample (voice 1's output area,
/// sound RAM 0x400 + position, PCSX2 Mixer.cpp) and the DAC samples.
fn run(s: &mut piney_spu2::Spu2, ticks: usize) -> (Vec<i32>, Vec<[i16; 2]>) {
    let mut area = Vec::new();
    let mut dac = Vec::new();
    for _ in 0..ticks {
        dac.push(s.tick());
        let pos = ((s.samples() - 1) & 0x1FF) as usize;
        area.push(s.ram()[0x400 + pos] as i16 as i32);
    }
    (area, dac)
}

fn check(pitch: u16) {
    let mut s = setup(pitch);
    let (area, dac) = run(&mut s, 122);
    // KON takes effect two samples after the write (PCSX2 spu2sys.cpp StartQueuedVoice).
    assert_eq!(&area[..1], &[0]);
    let want = expected(pitch as u32, 121);
    assert_eq!(&area[1..], &want[..], "pitch {pitch:#x}");
    for (n, &v) in want.iter().enumerate() {
        let c = chain(v) as i16;
        assert_eq!(dac[n + 1], [c, c], "DAC at voice sample {n}");
    }
}

#[test]
fn pitch_1000_plays_the_decoded_stream_through_phase_0() {
    // At pitch 0x1000 the phase stays 0: each output is the decoded stream through the
    // Gaussian's phase-0 weights (it is not the raw sample; psx-spx's formula at i = 0).
    check(0x1000);
}

#[test]
fn pitch_800_interpolates_half_steps() {
    check(0x800);
}

#[test]
fn pitch_1800_interpolates_one_and_a_half_steps() {
    check(0x1800);
}

#[test]
fn pitch_saturates_at_4000() {
    // psx-spx: a step above 0x3FFF is 0x4000; pitch 0xFFFF plays 4 samples per output.
    let mut fast = setup(0xFFFF);
    let mut four = setup(0x4000);
    for _ in 0..60 {
        assert_eq!(fast.tick(), four.tick());
    }
    assert_ne!(fast.read(va(0, 1, 5)), 0x3001);
}

#[test]
fn loop_end_with_repeat_sets_endx_and_jumps_to_loop_start() {
    let mut s = setup(0x1000);
    assert_eq!(s.read(cr(0, ENDX)) & 2, 0, "KON cleared ENDX");
    s.tick();
    s.tick();
    // Sample 0 played, the decoder is on halfword 1 of the first block (samples 0..3).
    assert_eq!(s.read(va(0, 1, 5)), 0x3001);
    for _ in 0..3 {
        s.tick();
    }
    assert_eq!(s.read(va(0, 1, 5)), 0x3002);
    // Samples 5..55 (B ends after sample 55, produced by tick 57).
    for _ in 0..51 {
        s.tick();
    }
    assert_eq!(s.read(va(0, 1, 5)), 0x300F);
    assert_eq!(s.read(cr(0, ENDX)) & 2, 0);
    s.tick();
    assert_eq!(
        s.read(cr(0, ENDX)) & 2,
        2,
        "ENDX set once the Loop End block is done"
    );
    // Loop Start on A set LSA (LSAX reads it) and the decoder is back at A.
    assert_eq!(s.read(va(0, 1, 3)), 0x3000);
    assert_eq!(s.read(va(0, 1, 5)), 0x3001);
    assert_eq!(s.read(vp(0, 1, ENVX)), 0x7FFF, "still sounding");
}
