//! Cost of the SPU2 per emulated second: all 48 voices playing looping ADPCM with ADSR,
//! reverb on both cores, AutoDMA feeding core 0's input.
//!
//! `cargo run --release -p piney-spu2 --example spu2_bench [seconds]`

use piney_spu2::Spu2;
use std::time::Instant;

fn main() {
    let seconds: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10);
    let mut s = Spu2::new();

    // 16 ADPCM blocks of pseudo-random nibbles at 0x10000, looping (Loop Start on the first,
    // Loop End + Repeat on the last); filters 0..4 and shifts 2..9 vary per block.
    let mut seed = 0x1234_5678u32;
    let mut rnd = || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        seed
    };
    for b in 0..16u32 {
        let flags = if b == 0 {
            4
        } else if b == 15 {
            3
        } else {
            0
        };
        let header = (flags << 8) | ((b % 5) << 4) | (2 + b % 8);
        let a = 0x1_0000 + b as usize * 8;
        s.ram_mut()[a] = header as u16;
        for k in 1..8 {
            s.ram_mut()[a + k] = rnd() as u16;
        }
    }

    for core in 0..2u32 {
        let base = core * 0x400;
        for v in 0..24u32 {
            let p = base + v * 0x10;
            s.write(p, 0x1800 + v as u16 * 0x40);
            s.write(p + 2, 0x2800 - v as u16 * 0x40);
            s.write(p + 4, 0x0800 + (v as u16 * 0x1F3) % 0x2800);
            s.write(p + 6, (8 << 10) | (0xA << 4) | 0x8);
            s.write(p + 8, 0x4000 | (0x14 << 8) | 0x20 | 0x10);
            let a = base + 0x1C0 + v * 0xC;
            s.write(a, 1);
            s.write(a + 2, 0);
        }
        // Reverb: work area 0x80000 + core * 0x20000, up to the region's end.
        s.write(base + 0x2E0, 8 + 2 * core as u16);
        s.write(base + 0x2E2, 0);
        s.write(base + 0x33C, 9 + 2 * core as u16);
        let offsets: [u32; 22] = [
            0x1A0, 0x120, 0x3E00, 0x3E00, 0x3A00, 0x3800, 0x3400, 0x3200, 0x3E04, 0x3E04, 0x3C00,
            0x3C00, 0x3000, 0x2E00, 0x2C00, 0x2A00, 0x3C04, 0x3C04, 0x2800, 0x2600, 0x2400, 0x2200,
        ];
        for (i, &o) in offsets.iter().enumerate() {
            let r = base + 0x2E4 + i as u32 * 4;
            s.write(r, (o >> 16) as u16);
            s.write(r + 2, o as u16);
        }
        let ext = 0x760 + core * 0x28;
        for (i, c) in [
            0x7000u16, 0x5000, 0xC000, 0x4000, 0xBC00, 0x6000, 0x6000, 0x5000, 0x5000, 0x5000,
        ]
        .into_iter()
        .enumerate()
        {
            s.write(ext + 0x14 + i as u32 * 2, c);
        }
        s.write(ext, 0x3FFF);
        s.write(ext + 2, 0x3FFF);
        s.write(ext + 4, 0x3000);
        s.write(ext + 6, 0x3000);
        s.write(base + 0x19A, 0x80);
        s.write(base + 0x1A0, 0xFFFF);
        s.write(base + 0x1A2, 0xFF);
    }
    s.write(0x1B0, 1);
    let block: Vec<u16> = (0..0x200).map(|i| (i * 131) as u16).collect();

    let samples = seconds * 48_000;
    let mut checksum = 0i64;
    let start = Instant::now();
    for _ in 0..samples {
        let [l, r] = s.tick();
        checksum = checksum.wrapping_add(l as i64 * 3 + r as i64);
        let want = s.adma_wants(0);
        if want > 0 {
            s.dma_write(0, &block[..want]);
        }
    }
    let elapsed = start.elapsed();
    let per_second = elapsed.as_secs_f64() / seconds as f64;
    println!(
        "{seconds} emulated s in {:.3} s: {:.2} ms per emulated second ({:.1}x real time), {:.0} ns per sample (checksum {checksum})",
        elapsed.as_secs_f64(),
        per_second * 1e3,
        1.0 / per_second,
        elapsed.as_nanos() as f64 / samples as f64,
    );
}
