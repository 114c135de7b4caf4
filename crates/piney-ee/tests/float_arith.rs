//! The float helpers against hardware results: input/output pairs transcribed from the
//! ps2autotests `cpu/ee_fpu` expected outputs (real PS2 hardware), plus hand-derived cases.

use piney_ee::float::{self, FloatFlags};

#[path = "float_vectors/hw.rs"]
mod hw;

const NEG_ZERO: u32 = 0x8000_0000;

/// The tests load ACC with `adda.s x, -0`.
fn set_acc(x: u32) -> u32 {
    float::add(x, NEG_ZERO).bits
}

/// The tests read ACC back with `madd.s fd, -0, +0`.
fn read_acc(acc: u32) -> u32 {
    float::madd(acc, NEG_ZERO, 0).bits
}

#[test]
fn hardware_vectors() {
    let mut failures = Vec::new();
    for &(op, a, s, t, want, want_acc) in hw::ARITH {
        let acc = set_acc(a);
        let (got, got_acc) = match op {
            "abs" => (float::abs(s), None),
            "neg" => (float::neg(s), None),
            "mov" => (s, None),
            "add" => (float::add(s, t).bits, None),
            "sub" => (float::sub(s, t).bits, None),
            "mul" => (float::mul(s, t).bits, None),
            "div" => (float::div(s, t).bits, None),
            "max" => (float::max(s, t), None),
            "min" => (float::min(s, t), None),
            "sqrt" => (float::sqrt(s).bits, None),
            "rsqrt" => (float::rsqrt(s, t).bits, None),
            "adda" => (read_acc(float::add(s, t).bits), None),
            "suba" => (read_acc(float::sub(s, t).bits), None),
            "mula" => (read_acc(float::mul(s, t).bits), None),
            "madd" => (float::madd(acc, s, t).bits, Some(read_acc(acc))),
            "msub" => (float::msub(acc, s, t).bits, Some(read_acc(acc))),
            "madda" => (read_acc(float::madd(acc, s, t).bits), None),
            "msuba" => (read_acc(float::msub(acc, s, t).bits), None),
            "cvt.w.s" => (float::to_int(s, 0), None),
            "cvt.s.w" => (float::from_int(s, 0), None),
            other => panic!("unknown op {other} in the vectors"),
        };
        if got != want || (want_acc != u32::MAX && got_acc != Some(want_acc)) {
            failures.push(format!(
                "{op} acc={a:08x} {s:08x}, {t:08x}: got {got:08x} (acc {got_acc:08x?}), want {want:08x} (acc {want_acc:08x})"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} vectors differ:\n{}",
        failures.len(),
        hw::ARITH.len(),
        failures.join("\n")
    );
}

#[test]
fn hardware_compare_vectors() {
    for &(cond, s, t, want) in hw::COMPARE {
        let got = match cond {
            "eq" => float::eq(s, t),
            "lt" => float::lt(s, t),
            "le" => float::le(s, t),
            "f" => false,
            other => panic!("unknown condition {other}"),
        };
        assert_eq!(got, want, "c.{cond}.s {s:08x}, {t:08x}");
    }
}

#[test]
fn overflow_clamps_with_sign_and_reports() {
    // FLT_MAX * FLT_MAX: the fcr test's "Overflow" case raises O.
    let r = float::mul(0x7f7f_ffff, 0x7f7f_ffff);
    assert_eq!(r.bits, 0x7fff_ffff);
    assert_eq!(r.flags, FloatFlags::OVERFLOW);
    let r = float::mul(0x7f7f_ffff, 0xff7f_ffff);
    assert_eq!(r.bits, 0xffff_ffff);
    // 0x7f800001 + itself is 2^129-ish: the fcr test's "NAN math" case raises O.
    let r = float::add(0x7f80_0001, 0x7f80_0001);
    assert_eq!((r.bits, r.flags), (0x7fff_ffff, FloatFlags::OVERFLOW));
    let r = float::sub(0xff80_0000, 0x7f80_0000);
    assert_eq!((r.bits, r.flags), (0xffff_ffff, FloatFlags::OVERFLOW));
}

#[test]
fn underflow_flushes_to_signed_zero() {
    // 2^-100 * -2^-100 = -2^-200: far below 2^-126.
    let r = float::mul(0x0d80_0000, 0x8d80_0000);
    assert_eq!((r.bits, r.flags), (0x8000_0000, FloatFlags::UNDERFLOW));
    // 1.5 * 2^-126 - 2^-126 = 2^-127.
    let r = float::sub(0x00c0_0000, 0x0080_0000);
    assert_eq!((r.bits, r.flags), (0, FloatFlags::UNDERFLOW));
    let r = float::sub(0x8080_0000, 0x80c0_0000);
    assert_eq!(r.bits, 0);
    let r = float::sub(0x80c0_0000, 0x8080_0000);
    assert_eq!((r.bits, r.flags), (0x8000_0000, FloatFlags::UNDERFLOW));
    // A denormal product is not an underflow: the operand is zero already.
    let r = float::mul(0x3f80_0000, 0x0000_0001);
    assert_eq!((r.bits, r.flags), (0, FloatFlags::empty()));
    // FLT_MIN / 3 flushes, but DIV reports no underflow (fcr test "Underflow").
    let r = float::div(0x0080_0000, 0x4040_0000);
    assert_eq!((r.bits, r.flags), (0, FloatFlags::empty()));
}

#[test]
fn division_flags() {
    // fcr test: 0/0 raises I, 1/0 raises D.
    assert_eq!(float::div(0, 0).flags, FloatFlags::INVALID);
    assert_eq!(float::div(0x3f80_0000, 0).flags, FloatFlags::DIV_ZERO);
    assert_eq!(float::div(0x3f80_0000, 0x8000_0000).bits, 0xffff_ffff);
    // sqrt(-1) raises I and gives 1.0.
    let r = float::sqrt(0xbf80_0000);
    assert_eq!((r.bits, r.flags), (0x3f80_0000, FloatFlags::INVALID));
    // rsqrt(x, 0) raises D with the sign of x alone; a negative ft raises I.
    let r = float::rsqrt(0x8000_0000, 0x8000_0000);
    assert_eq!((r.bits, r.flags), (0xffff_ffff, FloatFlags::DIV_ZERO));
    let r = float::rsqrt(0x3f80_0000, 0xc080_0000);
    assert_eq!((r.bits, r.flags), (0x3f00_0000, FloatFlags::INVALID));
    // 1/3 (fcr test "Inexact" uses 1 / 3.0000x): plain quotients raise nothing.
    assert_eq!(
        float::div(0x3f80_0000, 0x4040_0000).flags,
        FloatFlags::empty()
    );
}

#[test]
fn madd_reports_product_underflow_as_sticky_only() {
    // acc 1.0 + 2^-100 * 2^-100: the product underflows, the sum does not.
    let r = float::madd(0x3f80_0000, 0x0d80_0000, 0x0d80_0000);
    assert_eq!(r.bits, 0x3f80_0000);
    assert_eq!(r.flags, FloatFlags::empty());
    assert_eq!(r.sticky, FloatFlags::UNDERFLOW);
    // An overflowing product ends the operation: -max + (2^128 * 2) stays +max.
    let r = float::madd(0xffff_ffff, 0x7f80_0000, 0x4000_0000);
    assert_eq!((r.bits, r.flags), (0x7fff_ffff, FloatFlags::OVERFLOW));
}

#[test]
fn conversions() {
    assert_eq!(float::to_int(0x3fc0_0000, 0), 1); // 1.5
    assert_eq!(float::to_int(0x3fc0_0000, 4), 24); // 1.5 * 16
    assert_eq!(float::to_int(0xbfc0_0000, 12), (-6144i32) as u32);
    assert_eq!(float::to_int(0x4780_0000, 15), 0x7fff_ffff); // 2^16 * 2^15 saturates
    assert_eq!(float::to_int(0xc780_0000, 15), 0x8000_0000);
    assert_eq!(float::to_int(0x4700_0000, 15), 0x4000_0000); // 2^15 * 2^15
    assert_eq!(float::from_int(24, 4), 0x3fc0_0000);
    assert_eq!(float::from_int(1, 15), 0x3800_0000); // 2^-15
    assert_eq!(float::from_int((-6144i32) as u32, 12), 0xbfc0_0000);
    assert_eq!(float::from_int(0x8000_0000, 0), 0xcf00_0000);
}

#[test]
fn add_is_exact_then_truncated_property() {
    // For operands within 1 exponent of each other nothing is masked: the result is the exact
    // sum truncated toward zero. Compare with f64 arithmetic on a deterministic sample.
    let mut x = 0x1234_5678u32;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    };
    for _ in 0..20000 {
        let a = (next() & 0x807f_ffff) | (100 + next() % 50) << 23;
        let b = (a & 0x7f80_0000) ^ (next() & 0x807f_ffff) ^ ((next() & 1) << 23);
        let exact = f32::from_bits(a) as f64 + f32::from_bits(b) as f64;
        // Truncate the f64 to 24 significant bits.
        let bits = exact.to_bits();
        let truncated = f64::from_bits(bits & !((1u64 << 29) - 1)) as f32;
        let want = if exact == 0.0 { 0 } else { truncated.to_bits() };
        assert_eq!(float::add(a, b).bits, want, "{a:08x} + {b:08x}");
    }
}

/// A deterministic xorshift stream of normal floats with exponents in `lo..lo + span`.
fn normals(seed: u32, lo: u32, span: u32) -> impl FnMut() -> u32 {
    let mut x = seed;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    };
    move || {
        let r = next();
        (r & 0x807f_ffff) | (lo + next() % span) << 23
    }
}

fn as_f64(x: u32) -> f64 {
    f32::from_bits(x) as f64
}

#[test]
fn mul_is_truncated_or_one_ulp_low() {
    let mut sample = normals(0x9e37_79b9, 96, 64);
    for _ in 0..20000 {
        let (a, b) = (sample(), sample());
        let exact = as_f64(a) * as_f64(b);
        let truncated = f64::from_bits(exact.to_bits() & !((1u64 << 29) - 1)) as f32;
        let t = truncated.to_bits();
        let got = float::mul(a, b).bits;
        assert!(
            got == t || got + 1 == t,
            "{a:08x} * {b:08x}: {got:08x}, truncated {t:08x}"
        );
        // Only ft is Booth-recoded: x * 1.0 is always exact.
        assert_eq!(float::mul(a, 0x3f80_0000).bits, a);
    }
}

#[test]
fn div_and_sqrt_are_within_one_ulp_above_truncation() {
    let mut sample = normals(0x1357_9bdf, 96, 64);
    for _ in 0..20000 {
        let (a, b) = (sample(), sample());
        let q = as_f64(a) / as_f64(b);
        let t = (f64::from_bits(q.to_bits() & !((1u64 << 29) - 1)) as f32).to_bits();
        let got = float::div(a, b).bits;
        assert!(
            got == t || got == t + 1,
            "{a:08x} / {b:08x}: {got:08x}, truncated {t:08x}"
        );
        let r = as_f64(a).abs().sqrt();
        let t = (f64::from_bits(r.to_bits() & !((1u64 << 29) - 1)) as f32).to_bits();
        let got = float::sqrt(a).bits;
        assert!(
            got == t || got == t + 1,
            "sqrt {a:08x}: {got:08x}, truncated {t:08x}"
        );
    }
}
