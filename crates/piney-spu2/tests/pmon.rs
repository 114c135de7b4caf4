//! Pitch modulation (psx-spx "SPU ADPCM Pitch"): with PMON, voice x's step is
//! `(pitch * (OUTX(x-1) + 0x8000)) >> 15` from the previous voice's output of the same sample.

mod common;
use common::*;

#[test]
fn step_scaled_by_previous_voice_output() {
    let mut s = spu();
    // Voice 0: a constant 0x4000 (nibble 4, shift 0, filter 0), looping.
    load(&mut s, 0x3000, &block(0, 0, 7, &[4; 28]));
    for v in 0..2 {
        s.write(vp(0, v, PITCH), 0x1000);
        s.write(vp(0, v, ADSR1), 0x00FF);
        s.write(vp(0, v, ADSR2), 0x1FC0);
    }
    set_addr(&mut s, va(0, 0, 0), 0x3000);
    // Voice 1 walks silent blocks from 0x5000 (no flags: one block after another).
    set_addr(&mut s, va(0, 1, 0), 0x5000);
    s.write(cr(0, PMON), 2);
    s.write(cr(0, KON), 3);
    s.tick();

    // Voice 0's output per sample: phase 0 weights (-1, 0x1307, 0x59B3, 0x12C7 for new, old,
    // older, oldest; each product >> 15) over the constant, missing taps 0 at the start; the
    // envelope 0x3800, 0x7000, then 0x7FFF.
    let w = [-1, 0x1307, 0x59B3, 0x12C7];
    let env = |n: usize| [0x3800, 0x7000].get(n).copied().unwrap_or(0x7FFF);
    let mut pos = 0u32;
    for n in 0..400usize {
        s.tick();
        let interp: i32 = (0..4)
            .filter(|&k| k <= n)
            .map(|k| (w[k] * 0x4000) >> 15)
            .sum();
        let out0 = (interp * env(n)) >> 15;
        pos += ((0x1000 * (out0 + 0x8000)) >> 15) as u32;
        let idx = pos >> 12;
        let nax = 0x5000 + 8 * (idx / 28) + 1 + (idx % 28) / 4;
        assert_eq!(s.read(va(0, 1, 5)) as u32, nax, "sample {n}");
    }
    // The steady step: (0x1000 * (16317 + 0x8000)) >> 15 = 0x17F7.
    assert_eq!(((0x1000 * (16317 + 0x8000)) >> 15), 0x17F7);
}
