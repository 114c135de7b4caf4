//! The PS2's float arithmetic (COP1, and VU0/VU1 lanes): IEEE single layout, but no denormals
//! (inputs and results flush to zero), no infinities or NaNs (exponent 255 is an ordinary
//! exponent on input; results that overflow clamp to the largest finite value with their sign),
//! and rounding towards zero.
//!
//! Every function works on raw `u32` bits and returns raw bits, so that COP1, COP2 macro mode, the
//! VU micro mode and the recompiler share one definition. The functions that can raise exception
//! conditions return a [`FloatResult`] carrying the [`FloatFlags`]; the caller maps them to FCR31
//! (COP1) or to the MAC/status flags (VU).
//!
//! Hardware facts modelled here (checked against the hardware results of ps2autotests
//! `cpu/ee_fpu`):
//! - The adder keeps one bit below the larger operand's last place: when the exponents differ by
//!   `d` in 2..=24 the smaller operand loses its low `d - 1` mantissa bits before the add, and by
//!   25 or more it counts only for its sign. The sum of what is left is exact and then truncated.
//! - The multiplier is a radix-4 Booth array whose lowest columns are not built: the product of
//!   the 24-bit significands is occasionally one unit low in bit 15, which shows in the result
//!   when the bits below the last place are small. Only `ft` (the second operand) is recoded, so
//!   `mul(1.0, x)` is not always `x` while `mul(x, 1.0)` is.
//! - Division and square root come from a radix-2 SRT unit with a carry-save remainder and no
//!   final correction, run for 25 quotient digits: the quotient is sometimes the truncated one,
//!   sometimes one above it (1.0 / 1.99999988 = 0x3f000001).

/// The sign bit.
pub const SIGN: u32 = 0x8000_0000;
/// The largest magnitude, (2 - 2^-23) * 2^128: what overflowing results clamp to.
pub const MAX: u32 = 0x7fff_ffff;
/// 1.0.
pub const ONE: u32 = 0x3f80_0000;

bitflags::bitflags! {
    /// The exception conditions an operation reports.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub struct FloatFlags: u8 {
        /// The result's magnitude exceeded [`MAX`] and was clamped.
        const OVERFLOW = 1 << 0;
        /// The result was nonzero and below 2^-126, and was flushed to a signed zero.
        const UNDERFLOW = 1 << 1;
        /// Division of a nonzero value by zero (or RSQRT of zero).
        const DIV_ZERO = 1 << 2;
        /// Invalid operation: 0 / 0, or the root of a negative number.
        const INVALID = 1 << 3;
    }
}

/// A result and the conditions it raised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FloatResult {
    /// The raw result bits.
    pub bits: u32,
    /// The conditions of the (last step of the) operation: what the cause bits show.
    pub flags: FloatFlags,
    /// Every condition raised on the way, a superset of `flags`: a multiply-accumulate that
    /// underflows in its product and not in its sum raises the sticky underflow bit only.
    pub sticky: FloatFlags,
}

impl FloatResult {
    const fn new(bits: u32, flags: FloatFlags) -> Self {
        Self {
            bits,
            flags,
            sticky: flags,
        }
    }
    const fn exact(bits: u32) -> Self {
        Self::new(bits, FloatFlags::empty())
    }
}

/// The exponent field.
#[inline]
pub const fn exponent(x: u32) -> u32 {
    (x >> 23) & 0xff
}

/// Whether the value counts as zero: exponent field 0 (zeros and what IEEE calls denormals).
#[inline]
pub const fn is_zero(x: u32) -> bool {
    exponent(x) == 0
}

/// The 24-bit significand with the hidden bit.
#[inline]
const fn significand(x: u32) -> u32 {
    (x & 0x007f_ffff) | 0x0080_0000
}

/// Assemble a normal result from a sign, an exponent and a 24-bit significand (hidden bit set),
/// clamping out-of-range exponents.
fn pack(sign: u32, exp: i32, sig: u64) -> FloatResult {
    if exp > 255 {
        FloatResult::new(sign | MAX, FloatFlags::OVERFLOW)
    } else if exp < 1 {
        FloatResult::new(sign, FloatFlags::UNDERFLOW)
    } else {
        FloatResult::exact(sign | (exp as u32) << 23 | (sig as u32 & 0x007f_ffff))
    }
}

/// The adder: `a + b`.
#[inline]
pub fn add(a: u32, b: u32) -> FloatResult {
    let (ea, eb) = (exponent(a), exponent(b));
    // Denormal operands are zeros that keep their sign.
    if ea == 0 && eb == 0 {
        // +0 unless both are negative (the IEEE rule, which truncation does not change).
        return FloatResult::exact(a & b & SIGN);
    }
    if ea == 0 {
        return FloatResult::exact(b);
    }
    if eb == 0 {
        return FloatResult::exact(a);
    }
    // Order by exponent; the smaller one goes through the one-guard-bit aligner.
    let (big, small) = if ea >= eb { (a, b) } else { (b, a) };
    let d = exponent(big) - exponent(small);
    if d >= 25 {
        // Nothing but the sign of the smaller operand reaches the adder.
        return FloatResult::exact(big);
    }
    let small = if d >= 2 {
        small & (u32::MAX << (d - 1))
    } else {
        small
    };
    // Exact sum in units of the smaller operand's last place.
    let signed = |x: u32, shift: u32| {
        let m = (significand(x) as i64) << shift;
        if x & SIGN != 0 { -m } else { m }
    };
    let sum = signed(big, d) + signed(small, 0);
    if sum == 0 {
        return FloatResult::exact(0);
    }
    let sign = if sum < 0 { SIGN } else { 0 };
    let mag = sum.unsigned_abs();
    let lead = 63 - mag.leading_zeros() as i32;
    let sig = if lead >= 23 {
        mag >> (lead - 23)
    } else {
        mag << (23 - lead)
    };
    pack(sign, exponent(small) as i32 + lead - 23, sig)
}

/// The adder: `a - b`.
pub fn sub(a: u32, b: u32) -> FloatResult {
    add(a, b ^ SIGN)
}

/// One radix-4 Booth digit of `b` (digit `i` covers bits 2i-1..2i+1) applied to `a`, as the
/// array builds it: the partial product in the low 32 columns, negative digits in one's
/// complement, and the `+1` that completes a negative digit returned separately.
fn booth_row(a: u32, b: u32, i: u32) -> (u32, u32) {
    let window = (((b as u64) << 1) >> (2 * i)) as u32 & 7;
    // Per window (bit `window` of each mask): 2a (3, 4), a negative digit (4..=6), a zero
    // digit (0, 7). Branch-free: the windows of real operands are unpredictable.
    let double = (0b0001_1000u32 >> window) & 1;
    let negative = (0b0111_0000u32 >> window) & 1;
    let zero = (0b1000_0001u32 >> window) & 1;
    let low = 1u32 << (2 * i);
    let mut row = (a << (2 * i)) << double;
    row ^= negative.wrapping_neg() & low.wrapping_neg();
    row &= zero.wrapping_sub(1);
    (row, negative * low)
}

/// A 3:2 carry-save adder: (sum, carry).
#[inline]
fn csa(a: u32, b: u32, c: u32) -> (u32, u32) {
    let u = a ^ b;
    (u ^ c, ((u & c) | (a & b)) << 1)
}

/// The 48-bit product of two 24-bit significands as the EE's multiplier array computes it: the
/// exact product, less 2^15 where the array's truncated low columns come out different in column
/// 15. `b` is the Booth-recoded operand (ft).
// Out of line: `mul` runs it for about one product in 256 (and the branch-free rows would
// otherwise be computed beside the shortcut).
#[cold]
#[inline(never)]
fn multiply_significands(a: u32, b: u32) -> u64 {
    let exact = a as u64 * b as u64;
    let rows: [(u32, u32); 8] = std::array::from_fn(|i| booth_row(a, b, i as u32));
    // The summation tree for the low columns. Digits 4 and 5 arrive without their lowest
    // columns; digits 0..=4 never get their negation `+1`.
    let (s0, c0) = csa(rows[1].0, rows[2].0, rows[3].0);
    let (s1, c1) = csa(rows[4].0 & !0x7ff, rows[5].0 & !0xfff, rows[6].0);
    // Bits of digit 5 and the completions of digits 5 and 6 ride on other rows.
    let c1 = c1 | rows[6].1 | (rows[5].0 & 0x800);
    let row7 = rows[7].0 | ((rows[5].0 & 0x400) + rows[5].1);
    let (s2, c2) = csa(rows[0].0, s0, c0);
    let (s3, c3) = csa(row7, s1, c1);
    let (s4, c4) = csa(c2, s3, c3);
    let (s5, c5) = csa(s2, s4, c4);
    let low = (s5 & !0x7fff).wrapping_add(c5.wrapping_add(rows[7].1) & !0x7fff);
    exact - ((low as u64 ^ exact) & 0x8000)
}

/// The multiplier: `a * b` (`b` is the instruction's ft).
#[inline]
pub fn mul(a: u32, b: u32) -> FloatResult {
    let (sa, sb) = (significand(a), significand(b));
    let exact = sa as u64 * sb as u64;
    // The array's error (2^15 less than the exact product, at most) reaches the result only by
    // a borrow out of the 23 bits below its last place: not when they hold 2^15 or more, as
    // they do for all but about one product in 256. Nor when ft's low 16 bits are zero (1.0,
    // 0.5, 3.0, a float of a small integer...): the digits of the array's low columns come
    // from those bits alone, all zero digits, so the low columns sum to zero and the model
    // gives the exact product whenever its bit 15 is clear. Those skip the array's model.
    // (bench_float: 56% of the products that reached the model before.)
    let product = if exact & 0x7f_ffff >= 0x8000 || sb & 0xffff == 0 {
        exact
    } else {
        multiply_significands(sa, sb)
    };
    round_product(a, b, product)
}

/// The multiplier's result for `a * b` from the 48-bit product of their significands: truncated
/// to 24 bits, zero operands giving a signed zero.
fn round_product(a: u32, b: u32, product: u64) -> FloatResult {
    let sign = (a ^ b) & SIGN;
    if is_zero(a) || is_zero(b) {
        return FloatResult::exact(sign);
    }
    let mut exp = exponent(a) as i32 + exponent(b) as i32 - 127;
    let sig = if product >> 47 != 0 {
        exp += 1;
        product >> 24
    } else {
        product >> 23
    };
    pack(sign, exp, sig)
}

/// Multiply-accumulate: `acc + a * b` (MADD, MADDA, VMADD...). The product is rounded first; a
/// product that overflows ends the operation with its clamped value, whatever the accumulator.
pub fn madd(acc: u32, a: u32, b: u32) -> FloatResult {
    accumulate(acc, mul(a, b))
}

/// Multiply-subtract: `acc - a * b` (MSUB, MSUBA, VMSUB...).
pub fn msub(acc: u32, a: u32, b: u32) -> FloatResult {
    let mut p = mul(a, b);
    p.bits ^= SIGN;
    accumulate(acc, p)
}

fn accumulate(acc: u32, product: FloatResult) -> FloatResult {
    if product.flags.contains(FloatFlags::OVERFLOW) {
        return product;
    }
    let mut r = add(acc, product.bits);
    r.sticky |= product.sticky;
    r
}

/// The result of a division by zero: the largest magnitude with the quotient's sign.
fn div_by_zero(sign: u32, flag: FloatFlags) -> FloatResult {
    FloatResult::new(sign | MAX, flag)
}

/// The SRT unit's quotient digit selection from a truncated estimate of the carry-save remainder
/// (binary point between bits 24 and 25).
fn srt_select(sum: u32, carry: u32) -> i32 {
    // Bits below 24 are or'ed rather than added: the estimate only propagates carries above.
    let low = (1u32 << 24) - 1;
    let estimate = ((sum & !low).wrapping_add(carry) | (sum & low)) as i32;
    if estimate >= 1 << 23 {
        1
    } else if estimate < (u32::MAX << 24) as i32 {
        -1
    } else {
        0
    }
}

/// 25 quotient digits of `dividend / divisor` (significands scaled by 4), radix-2 SRT.
fn srt_divide(dividend: u32, divisor: u32) -> u32 {
    let (mut sum, mut carry) = (dividend << 2, 0u32);
    let divisor = divisor << 2;
    let mut q = 0u32;
    let mut digit = 1i32;
    for _ in 0..25 {
        q = (q << 1).wrapping_add(digit as u32);
        srt_step(&mut sum, &mut carry, &mut digit, divisor);
    }
    q
}

/// One radix-2 SRT step on the carry-save remainder `sum + carry`: subtract `operand` for digit
/// 1, add it for -1, leave it for 0; choose the next digit and shift the remainder left.
fn srt_step(sum: &mut u32, carry: &mut u32, digit: &mut i32, operand: u32) {
    let addend = match *digit {
        1 => !operand,
        -1 => operand,
        _ => 0,
    };
    if *digit > 0 {
        *carry = carry.wrapping_add(1);
    }
    let (s, c) = csa(*sum, *carry, addend);
    *digit = if *digit != 0 {
        srt_select(s, c)
    } else {
        srt_select(*sum, *carry)
    };
    *sum = s << 1;
    *carry = c << 1;
}

/// The divider: `a / b`. Reports [`FloatFlags::DIV_ZERO`] (x / 0) and [`FloatFlags::INVALID`]
/// (0 / 0), both giving the largest magnitude with the xor of the signs. Overflow and underflow
/// clamp but are not reported: the EE raises neither O nor U on DIV.S.
pub fn div(a: u32, b: u32) -> FloatResult {
    let sign = (a ^ b) & SIGN;
    match (is_zero(a), is_zero(b)) {
        (true, true) => return div_by_zero(sign, FloatFlags::INVALID),
        (false, true) => return div_by_zero(sign, FloatFlags::DIV_ZERO),
        (true, false) => return FloatResult::exact(sign),
        (false, false) => {}
    }
    let mut q = srt_divide(significand(a), significand(b));
    let mut exp = exponent(a) as i32 - exponent(b) as i32 + 126;
    if q >= 1 << 24 {
        exp += 1;
        q >>= 1;
    }
    FloatResult::exact(pack(sign, exp, q as u64).bits)
}

/// The square root of `|x|` as the SRT unit computes it (no flags).
fn srt_sqrt(x: u32) -> u32 {
    let e = exponent(x);
    if e == 0 {
        return 0;
    }
    // An even exponent field is an odd unbiased exponent: scale the significand by 2 more.
    let mut sum = significand(x) << 1;
    if x & 0x0080_0000 == 0 {
        sum <<= 1;
    }
    let mut carry = 0u32;
    let mut q = 0u32;
    let mut digit = 1i32;
    for i in 0..25u32 {
        // Adding the digit n at weight w to q adds n * (2q + n * w) * w to q^2, which is what
        // leaves the remainder.
        let adjust = q.wrapping_add((digit as u32) << (24 - i));
        q = q.wrapping_add((digit as u32) << (25 - i));
        srt_step(&mut sum, &mut carry, &mut digit, adjust);
    }
    (((e + 127) >> 1) << 23) | ((q >> 2) & 0x007f_ffff)
}

/// The square root of `|x|`. A set sign bit (even on -0) reports [`FloatFlags::INVALID`], and the
/// root of the magnitude is returned.
pub fn sqrt(x: u32) -> FloatResult {
    let flags = if x & SIGN != 0 {
        FloatFlags::INVALID
    } else {
        FloatFlags::empty()
    };
    FloatResult::new(srt_sqrt(x), flags)
}

/// `a / sqrt(|b|)`: the root is rounded to a single first, then divided. `b` zero reports
/// [`FloatFlags::DIV_ZERO`] and gives the largest magnitude with `a`'s sign; a negative `b`
/// reports [`FloatFlags::INVALID`].
pub fn rsqrt(a: u32, b: u32) -> FloatResult {
    if is_zero(b) {
        return div_by_zero(a & SIGN, FloatFlags::DIV_ZERO);
    }
    let flags = if b & SIGN != 0 {
        FloatFlags::INVALID
    } else {
        FloatFlags::empty()
    };
    FloatResult::new(div(a, srt_sqrt(b)).bits, flags)
}

/// MAX.S / VMAX: a comparison of the raw bits as sign-magnitude integers (exponent 255 and
/// denormals compare as what their bits say; nothing is flushed).
pub fn max(a: u32, b: u32) -> u32 {
    let (x, y) = (a as i32, b as i32);
    if x < 0 && y < 0 {
        x.min(y) as u32
    } else {
        x.max(y) as u32
    }
}

/// MIN.S / VMINI: see [`max`].
pub fn min(a: u32, b: u32) -> u32 {
    let (x, y) = (a as i32, b as i32);
    if x < 0 && y < 0 {
        x.max(y) as u32
    } else {
        x.min(y) as u32
    }
}

/// The ordering key of a value for comparisons: denormals are zero (both signs equal),
/// exponent 255 is finite, so the magnitude bits order the values.
fn order_key(x: u32) -> i64 {
    let mag = if is_zero(x) { 0 } else { (x & MAX) as i64 };
    if x & SIGN != 0 { -mag } else { mag }
}

/// C.EQ.S: `a == b`.
pub fn eq(a: u32, b: u32) -> bool {
    order_key(a) == order_key(b)
}

/// C.LT.S: `a < b`.
pub fn lt(a: u32, b: u32) -> bool {
    order_key(a) < order_key(b)
}

/// C.LE.S: `a <= b`.
pub fn le(a: u32, b: u32) -> bool {
    order_key(a) <= order_key(b)
}

/// ABS: clear the sign bit (the other bits pass unchanged).
pub const fn abs(x: u32) -> u32 {
    x & MAX
}

/// NEG: flip the sign bit (the other bits pass unchanged).
pub const fn neg(x: u32) -> u32 {
    x ^ SIGN
}

/// Float to fixed point with `frac` fraction bits (CVT.W.S is 0; VFTOI0/4/12/15), truncating
/// toward zero. Magnitudes of 2^31 and more saturate to 0x7fffffff or 0x80000000 by the sign;
/// exponent 0 gives 0.
pub fn to_int(x: u32, frac: u32) -> u32 {
    let e = exponent(x);
    if e == 0 {
        return 0;
    }
    let scaled = e + frac;
    if scaled >= 158 {
        return if x & SIGN != 0 {
            0x8000_0000
        } else {
            0x7fff_ffff
        };
    }
    if scaled < 127 {
        return 0;
    }
    // The significand is an integer times 2^(scaled - 150); shift it into place.
    let magnitude = (significand(x) << 7) >> (157 - scaled);
    if x & SIGN != 0 {
        magnitude.wrapping_neg()
    } else {
        magnitude
    }
}

/// Fixed point with `frac` fraction bits to float (CVT.S.W is 0; VITOF0/4/12/15), truncating the
/// significand toward zero.
pub fn from_int(i: u32, frac: u32) -> u32 {
    if i == 0 {
        return 0;
    }
    let sign = i & SIGN;
    let mag = (i as i32).unsigned_abs();
    let lead = 31 - mag.leading_zeros();
    let sig = if lead >= 23 {
        mag >> (lead - 23)
    } else {
        mag << (23 - lead)
    };
    let exp = 127 + lead as i32 - frac as i32;
    if exp < 1 {
        return sign;
    }
    sign | (exp as u32) << 23 | (sig & 0x007f_ffff)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The next value of a xorshift32 sequence in `x` (the tests' operands).
    fn xorshift(x: &mut u32) -> u32 {
        *x ^= *x << 13;
        *x ^= *x >> 17;
        *x ^= *x << 5;
        *x
    }

    #[test]
    fn booth_array_is_exact_for_zero_digits() {
        // A recoded operand of 1.0 has only zero digits below the top: the exact product.
        assert_eq!(
            multiply_significands(0xff_ffff, 0x80_0000),
            0xff_ffff * 0x80_0000
        );
        // Any recoded operand with its low 16 bits clear: the exact product, less its bit 15
        // (when that bit is set, the product's low 23 bits are 2^15 or more and `mul` does not
        // ask the model anyway).
        let mut x = 0x1234_5677_u32;
        for _ in 0..100_000 {
            let x = xorshift(&mut x);
            let a = x & 0xff_ffff | 0x80_0000;
            let b = x.rotate_left(11) & 0xff_0000 | 0x80_0000;
            let exact = a as u64 * b as u64;
            assert_eq!(
                multiply_significands(a, b),
                exact - (exact & 0x8000),
                "{a:#x} {b:#x}"
            );
        }
    }

    /// One Booth digit as the array builds it, written out case by case.
    fn booth_row_by_cases(a: u32, b: u32, i: u32) -> (u32, u32) {
        let window = if i == 0 { b << 1 } else { b >> (2 * i - 1) } & 7;
        let mut row = a << (2 * i);
        if window == 3 || window == 4 {
            row = row.wrapping_add(row);
        }
        let negative = (4..=6).contains(&window);
        if negative {
            row ^= 0u32.wrapping_sub(1 << (2 * i));
        }
        if window == 0 || window == 7 {
            row = 0;
        }
        (row, if negative { 1 << (2 * i) } else { 0 })
    }

    #[test]
    fn booth_rows_match_their_cases() {
        let mut x = 0x9e37_79b9_u32;
        for _ in 0..20_000 {
            let x = xorshift(&mut x);
            let a = x & 0xff_ffff | 0x80_0000;
            // Every window at every digit.
            for b in [x.rotate_left(7), !x, x ^ 0x5555_5555, 0x80_0000, 0xff_ffff] {
                let b = b & 0xff_ffff | 0x80_0000;
                for i in 0..8 {
                    assert_eq!(
                        booth_row(a, b, i),
                        booth_row_by_cases(a, b, i),
                        "{a:#x} {b:#x} {i}"
                    );
                }
            }
        }
    }

    /// `mul` as the array's model computes every product (no shortcut).
    fn mul_by_model(a: u32, b: u32) -> FloatResult {
        round_product(a, b, multiply_significands(significand(a), significand(b)))
    }

    #[test]
    fn mul_skips_the_array_only_where_it_cannot_show() {
        // Random operands (xorshift), and operands whose low product bits are small, where the
        // array's error shows: `mul` agrees with the model everywhere.
        let mut x = 0x2545_f491_u32;
        let mut next = || xorshift(&mut x);
        let mut shown = 0;
        for i in 0..2_000_000u32 {
            let a = next();
            // Every 4th pair: a power-of-two-ish ft, so that the low product bits are few; every
            // 4th from the 2nd: an ft with its low 15 bits clear (16, half of them) and a fs with
            // few low bits too.
            let (a, b) = match i % 4 {
                0 => (a, (next() & 0xff80_0000) | (next() & 0x0f)),
                1 => (a & !(0xffff >> (next() % 17)), next() & 0xffff_8000),
                _ => (a, next()),
            };
            let m = mul_by_model(a, b);
            assert_eq!(mul(a, b), m, "{a:#010x} * {b:#010x}");
            // Where the array's error changes the result (the exact product's would differ).
            let exact = significand(a) as u64 * significand(b) as u64;
            if round_product(a, b, exact) != m {
                shown += 1;
            }
        }
        // Results the array's error changes were among them, not only the shortcut's.
        assert!(shown > 100, "{shown}");
    }

    #[test]
    fn add_aligns_with_one_guard_bit() {
        // 1.0 - (1.0 + 2^-23) * 2^-2: d = 2, the smaller loses its last bit before the add, so
        // the difference is 0.75 exactly (a truncated exact difference would be 0x3f3fffff).
        let small = 0x3e80_0001;
        assert_eq!(sub(ONE, small).bits, 0x3f40_0000);
    }
}
