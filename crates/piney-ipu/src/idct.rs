//! The 8x8 inverse DCT.
//!
//! How the console's IPU rounds its IDCT is not publicly documented. This one is chosen to
//! conform to the standard (ISO/IEC 13818-2 annex A, IEEE 1180 accuracy): the separable
//! definition computed exactly in integers with cosines scaled by 2^20 (rounded to the nearest
//! integer), the result rounded to the nearest integer (halves up) and saturated to -256..=255.
//! Its distance from the double-precision definition is far inside IEEE 1180's limits (the tests
//! measure it), and it is the same on every host.

/// 2^20 x cos(k pi / 16) / 2 for k = 0..=8 (k = 0 uses the DC weight 1/sqrt(2): see [`coef`]).
const COS: [i64; 9] = [
    524288, 514214, 484379, 435930, 370728, 291279, 200636, 102284, 0,
];
/// 2^20 x (1/sqrt 2) x 1/2: the weight of frequency 0.
const DC: i64 = 370728;

/// C(u, x) = c(u)/2 x cos((2x+1) u pi / 16), scaled by 2^20.
const fn coef(u: usize, x: usize) -> i64 {
    if u == 0 {
        return DC;
    }
    // cos(k pi / 16) for k = (2x+1)u mod 32, folded into 0..=8.
    let mut k = ((2 * x + 1) * u) % 32;
    let mut sign = 1;
    if k > 16 {
        k = 32 - k;
    }
    if k > 8 {
        k = 16 - k;
        sign = -1;
    }
    sign * COS[k]
}

const fn table() -> [[i64; 8]; 8] {
    let mut t = [[0; 8]; 8];
    let mut u = 0;
    while u < 8 {
        let mut x = 0;
        while x < 8 {
            t[u][x] = coef(u, x);
            x += 1;
        }
        u += 1;
    }
    t
}

const C: [[i64; 8]; 8] = table();

/// Inverse-transform `f` (coefficients in raster order, F[v][u] at `v * 8 + u`, each in
/// -2048..=2047) into samples in raster order, saturated to -256..=255.
pub fn idct(f: &[i32; 64]) -> [i32; 64] {
    // Rows: t[v][x] = sum_u C(u, x) F[v][u]  (scale 2^20).
    let mut t = [0i64; 64];
    for v in 0..8 {
        for x in 0..8 {
            let mut s = 0i64;
            for u in 0..8 {
                s += C[u][x] * f[v * 8 + u] as i64;
            }
            t[v * 8 + x] = s;
        }
    }
    // Columns: out[y][x] = sum_v C(v, y) t[v][x]  (scale 2^40), rounded.
    let mut out = [0i32; 64];
    for y in 0..8 {
        for x in 0..8 {
            let mut s = 0i64;
            for v in 0..8 {
                s += C[v][y] * t[v * 8 + x];
            }
            let r = (s + (1 << 39)) >> 40;
            out[y * 8 + x] = r.clamp(-256, 255) as i32;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference(f: &[i32; 64]) -> [f64; 64] {
        let c = |u: usize| if u == 0 { 0.5f64.sqrt() } else { 1.0 };
        let mut out = [0.0; 64];
        for y in 0..8 {
            for x in 0..8 {
                let mut s = 0.0;
                for v in 0..8 {
                    for u in 0..8 {
                        s += c(u) * c(v) / 4.0
                            * f[v * 8 + u] as f64
                            * (((2 * x + 1) * u) as f64 * std::f64::consts::PI / 16.0).cos()
                            * (((2 * y + 1) * v) as f64 * std::f64::consts::PI / 16.0).cos();
                    }
                }
                out[y * 8 + x] = s;
            }
        }
        out
    }

    #[test]
    fn dc_only_block_is_flat() {
        let mut f = [0; 64];
        // F[0][0] = 8 x 128: a flat 128 (the DC term of an intra block at 8-bit precision).
        f[0] = 1024;
        assert!(idct(&f).iter().all(|&p| p == 128));
        f[0] = -80;
        assert!(idct(&f).iter().all(|&p| p == -10));
    }

    #[test]
    fn agrees_with_the_double_precision_definition() {
        // IEEE 1180-style: random blocks in -256..=255 (a fixed LCG), peak error <= 1, mean
        // square error far under 0.06, mean error under 0.015 per sample.
        let mut seed = 0x1234_5678u32;
        let mut rnd = || {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
            (seed >> 16) as i32
        };
        let (mut sq, mut sum, mut n) = (0.0f64, 0.0f64, 0.0f64);
        for _ in 0..2000 {
            let mut f = [0i32; 64];
            for c in f.iter_mut() {
                *c = rnd() % 512 - 256;
            }
            let r = reference(&f);
            let o = idct(&f);
            for i in 0..64 {
                let want = r[i].round().clamp(-256.0, 255.0);
                let e = o[i] as f64 - want;
                assert!(e.abs() <= 1.0, "sample {i}: {} vs {}", o[i], r[i]);
                sq += e * e;
                sum += e;
                n += 1.0;
            }
        }
        assert!(sq / n < 0.001, "mse {}", sq / n);
        assert!((sum / n).abs() < 0.001, "mean {}", sum / n);
    }
}
