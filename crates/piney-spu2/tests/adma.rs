//! AutoDMA: blocks of 0x100 left + 0x100 right halfwords written through `dma_write` fill
//! the half of the core's input buffer (0x2000.. core 0) that is not playing, and come out of
//! `tick()` one sample per tick, 256 samples after they went in (PCSX2 SPU2/ReadInput.cpp,
//! Dma.cpp; the input passes BVOL, MMIX's dry input bits, the master volume, AVOL of core 1).

mod common;
use common::*;
use piney_spu2::ADMA_BLOCK_HALFWORDS;

fn mul(a: i32, b: i32) -> i32 {
    (a * b) >> 15
}

fn block(n: i32) -> Vec<u16> {
    let l = (0..0x100).map(|i| (i * 97 - 12000 + n * 1000) as i16 as u16);
    let r = (0..0x100).map(|i| (9000 - i * 61 - n * 777) as i16 as u16);
    l.chain(r).collect()
}

#[test]
fn blocks_play_at_48khz_with_the_volumes_set() {
    let mut s = spu();
    // BVOL 0x6000 / 0x2000 (raw 16-bit volumes); MVOL core 0 fixed 0x2000 (level 0x4000),
    // core 1 fixed 0x3FFF (0x7FFE); AVOL of core 1 at its reset value 0x7FFF.
    s.write(ext(0, BVOLL), 0x6000);
    s.write(ext(0, BVOLR), 0x2000);
    s.write(ext(0, MVOLL), 0x2000);
    s.write(ext(0, MVOLR), 0x2000);
    assert_eq!(s.adma_wants(0), 0, "not in AutoDMA");
    s.write(cr(0, ADMAS), 1);
    assert_eq!(s.adma_wants(0), ADMA_BLOCK_HALFWORDS);
    assert_eq!(s.adma_wants(1), 0);
    // A block can also come in parts.
    let b0 = block(0);
    s.dma_write(0, &b0[..0x100]);
    assert_eq!(s.adma_wants(0), 0x100);
    s.dma_write(0, &b0[0x100..]);
    assert_eq!(s.adma_wants(0), 0);
    let expect = |x: u16, bvol: i32| {
        let v = mul(x as i16 as i32, bvol);
        mul(mul(mul(v, 0x4000), 0x7FFF), 0x7FFE) as i16
    };
    let mut prev = b0;
    for n in 1..4 {
        for i in 0..0x100 {
            let out = s.tick();
            let want = if n == 1 {
                // The first half plays what was there (nothing) while block 0 waits.
                [0, 0]
            } else {
                [expect(prev[i], 0x6000), expect(prev[0x100 + i], 0x2000)]
            };
            assert_eq!(out, want, "round {n} sample {i}");
            if i < 0xFF {
                assert_eq!(s.adma_wants(0), 0);
            }
        }
        // The half just played is free: one block per 256 samples.
        assert_eq!(s.adma_wants(0), ADMA_BLOCK_HALFWORDS);
        let b = block(n);
        s.dma_write(0, &b);
        if n > 1 {
            prev = block(n - 1);
        }
    }
    // Halfwords beyond the block are not taken.
    assert_eq!(s.adma_wants(0), 0);
}

#[test]
fn core1_input_and_admas_off() {
    let mut s = spu();
    s.write(cr(1, ADMAS), 2);
    assert_eq!(s.adma_wants(1), ADMA_BLOCK_HALFWORDS);
    let b: Vec<u16> = (0..0x200).map(|i| i as u16).collect();
    s.dma_write(1, &b);
    // Core 1's buffer: 0x2400 + 0x100 (left, second half), 0x2600 + 0x100 (right).
    assert_eq!(&s.ram()[0x2500..0x2600], &b[..0x100]);
    assert_eq!(&s.ram()[0x2700..0x2800], &b[0x100..]);
    s.write(cr(1, ADMAS), 0);
    assert_eq!(s.adma_wants(1), 0);
}
