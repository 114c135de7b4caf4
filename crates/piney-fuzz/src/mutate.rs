//! The mutations: a seeded PRNG and the operators a case is made with.
//!
//! A case is a seed file (or two, for a splice) changed by one to eight operators drawn from
//! [`Op`]: bits flipped, bytes set, chunks inserted, deleted or duplicated, the file cut short,
//! interesting integers written at a format's header offsets (or anywhere), small additions to
//! a word, a splice of two seeds, and tokens from the target's dictionary (text formats).
//! Everything derives from one `u64`, so a case is reproduced from (target, seed, index).

/// xorshift64* (Marsaglia, Vigna): small, fast and good enough to spread mutations.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed` (any value; zero is moved off the fixed point).
    pub fn new(seed: u64) -> Self {
        Rng(splitmix(seed) | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A value in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }

    /// True with probability `num / den`.
    pub fn chance(&mut self, num: u64, den: u64) -> bool {
        self.next_u64() % den < num
    }

    /// One element of `items` (which must not be empty).
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// SplitMix64's finaliser: spreads related seeds (a campaign seed plus a case index) apart.
pub fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// FNV-1a of a name, to give each target its own stream of cases.
pub fn name_hash(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Integers that break parsers: zero, one, all ones, sign bits, powers of two around common
/// limits, sizes just past a buffer. Written as 8, 16, 32 or 64 bits, little- or big-endian.
pub const INTERESTING: [u64; 22] = [
    0,
    1,
    2,
    0x7f,
    0x80,
    0xff,
    0x100,
    0x7fff,
    0x8000,
    0xffff,
    0x1_0000,
    0x10_0000,
    0x40_0000,
    0x200_0000,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_fffe,
    0xffff_ffff,
    0x1_0000_0000,
    0x7fff_ffff_ffff_ffff,
    0x8000_0000_0000_0000,
    u64::MAX,
];

/// What a target tells the mutator about its format.
#[derive(Debug, Clone, Copy, Default)]
pub struct Format {
    /// Offsets of header fields (where interesting integers go most often).
    pub header: &'static [usize],
    /// Tokens for text formats (keywords, delimiters, escapes, numbers at the edges).
    pub dictionary: &'static [&'static str],
    /// When non-zero, most offsets are drawn from the first `focus` bytes (where a large
    /// image keeps its metadata).
    pub focus: usize,
    /// The largest case made, in bytes (0: twice the seed plus 64 KiB).
    pub max_len: usize,
    /// Applied to three cases in four after the operators: what keeps a format's checksums
    /// right (PNG chunk CRCs), so that a case gets past them to the code behind.
    pub fixup: Option<fn(&mut [u8])>,
}

/// The operators, named for reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// Flip one to eight bits.
    FlipBits,
    /// Set a byte to a random value.
    SetByte,
    /// Write an interesting integer at a header offset (or anywhere).
    Interesting,
    /// Add or subtract a small number to an aligned 32-bit word.
    Arith,
    /// Insert random bytes.
    InsertRandom,
    /// Delete a chunk.
    Delete,
    /// Copy a chunk over another place, or insert a copy of it.
    Duplicate,
    /// Cut the case short.
    Truncate,
    /// Take a prefix of this case and a suffix of another seed.
    Splice,
    /// Insert (or write over) a dictionary token.
    Token,
}

const OPS: [Op; 10] = [
    Op::FlipBits,
    Op::SetByte,
    Op::Interesting,
    Op::Arith,
    Op::InsertRandom,
    Op::Delete,
    Op::Duplicate,
    Op::Truncate,
    Op::Splice,
    Op::Token,
];

fn offset(rng: &mut Rng, len: usize, f: &Format) -> usize {
    if f.focus > 0 && rng.chance(9, 10) {
        rng.below(f.focus.min(len))
    } else {
        rng.below(len)
    }
}

fn chunk_len(rng: &mut Rng, len: usize) -> usize {
    // Mostly short, sometimes long.
    let cap = if rng.chance(1, 8) { len.max(1) } else { 32 };
    1 + rng.below(cap.min(len.max(1)))
}

/// Applies one operator to `data`; `other` is another seed for splices.
pub fn apply(op: Op, data: &mut Vec<u8>, other: &[u8], rng: &mut Rng, f: &Format) {
    let len = data.len();
    match op {
        Op::FlipBits => {
            if len == 0 {
                return;
            }
            for _ in 0..1 + rng.below(8) {
                let at = offset(rng, len, f);
                data[at] ^= 1 << rng.below(8);
            }
        }
        Op::SetByte => {
            if len == 0 {
                data.push(rng.next_u64() as u8);
                return;
            }
            let at = offset(rng, len, f);
            data[at] = rng.next_u64() as u8;
        }
        Op::Interesting => {
            let width = *rng.pick(&[1usize, 2, 4, 4, 8]);
            let at = if !f.header.is_empty() && rng.chance(3, 4) {
                *rng.pick(f.header)
            } else {
                offset(rng, len, f)
            };
            let mut v = *rng.pick(&INTERESTING);
            if rng.chance(1, 4) {
                // One off the edge.
                v = if rng.chance(1, 2) {
                    v.wrapping_add(1)
                } else {
                    v.wrapping_sub(1)
                };
            }
            let bytes = if rng.chance(1, 4) {
                v.to_be_bytes()[8 - width..].to_vec()
            } else {
                v.to_le_bytes()[..width].to_vec()
            };
            for (i, b) in bytes.into_iter().enumerate() {
                if let Some(x) = data.get_mut(at + i) {
                    *x = b;
                }
            }
        }
        Op::Arith => {
            if len < 4 {
                return;
            }
            let at = offset(rng, len - 3, f) & !3;
            let w = u32::from_le_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]]);
            let d = 1 + rng.below(35) as u32;
            let w = if rng.chance(1, 2) {
                w.wrapping_add(d)
            } else {
                w.wrapping_sub(d)
            };
            data[at..at + 4].copy_from_slice(&w.to_le_bytes());
        }
        Op::InsertRandom => {
            let at = rng.below(len + 1);
            let most = if rng.chance(1, 8) { 4096 } else { 16 };
            let n = 1 + rng.below(most);
            let fill: Vec<u8> = if rng.chance(1, 2) {
                vec![rng.next_u64() as u8; n]
            } else {
                (0..n).map(|_| rng.next_u64() as u8).collect()
            };
            data.splice(at..at, fill);
        }
        Op::Delete => {
            if len == 0 {
                return;
            }
            let at = offset(rng, len, f);
            let n = chunk_len(rng, len - at);
            data.drain(at..at + n);
        }
        Op::Duplicate => {
            if len == 0 {
                return;
            }
            let from = rng.below(len);
            let n = chunk_len(rng, len - from);
            let piece = data[from..from + n].to_vec();
            let to = offset(rng, len, f);
            if rng.chance(1, 2) {
                data.splice(to..to, piece);
            } else {
                let end = (to + n).min(len);
                data[to..end].copy_from_slice(&piece[..end - to]);
            }
        }
        Op::Truncate => {
            if len == 0 {
                return;
            }
            let keep = if f.focus > 0 && rng.chance(1, 2) {
                rng.below(f.focus.min(len))
            } else {
                rng.below(len)
            };
            data.truncate(keep);
        }
        Op::Splice => {
            if other.is_empty() {
                return;
            }
            let cut = rng.below(len + 1);
            let from = rng.below(other.len());
            data.truncate(cut);
            data.extend_from_slice(&other[from..]);
        }
        Op::Token => {
            if f.dictionary.is_empty() {
                apply(Op::SetByte, data, other, rng, f);
                return;
            }
            let token = rng.pick(f.dictionary).as_bytes();
            // Mostly at a line or word boundary, where a parser looks.
            let mut at = rng.below(len + 1);
            if rng.chance(1, 2) {
                while at > 0 && !matches!(data[at - 1], b'\n' | b' ' | b'=' | b'+' | b'"') {
                    at -= 1;
                }
            }
            if rng.chance(1, 3) && at < len {
                let end = (at + token.len()).min(len);
                data.splice(at..end, token.iter().copied());
            } else {
                data.splice(at..at, token.iter().copied());
            }
        }
    }
}

/// Makes case `data` from `seed` (and `other`, another seed) with one to eight operators.
/// Returns the operators applied, for the report.
pub fn mutate(seed: &[u8], other: &[u8], rng: &mut Rng, f: &Format) -> (Vec<u8>, Vec<Op>) {
    let mut data = seed.to_vec();
    let max = if f.max_len > 0 {
        f.max_len
    } else {
        seed.len() * 2 + (64 << 10)
    };
    // Mostly one or two operators (a case near a valid file reaches deep), sometimes many.
    let count = match rng.below(8) {
        0..=3 => 1,
        4..=5 => 2,
        6 => 3 + rng.below(2),
        _ => 5 + rng.below(4),
    };
    let mut ops = Vec::with_capacity(count);
    for _ in 0..count {
        let op = *rng.pick(&OPS);
        apply(op, &mut data, other, rng, f);
        ops.push(op);
    }
    data.truncate(max);
    if let Some(fix) = f.fixup
        && rng.chance(3, 4)
    {
        fix(&mut data);
    }
    (data, ops)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cases_are_reproducible_from_their_seed() {
        let seed: Vec<u8> = (0..200u8).collect();
        let f = Format {
            header: &[0, 4, 8],
            dictionary: &["a", "\r"],
            ..Format::default()
        };
        let run = |s: u64| {
            let mut rng = Rng::new(s);
            (0..50)
                .map(|_| mutate(&seed, b"other", &mut rng, &f).0)
                .collect::<Vec<_>>()
        };
        assert_eq!(run(7), run(7));
        assert_ne!(run(7), run(8));
        // The cases differ from the seed and among themselves.
        let cases = run(7);
        assert!(cases.iter().filter(|c| **c != seed).count() >= 45);
        let distinct: std::collections::HashSet<_> = cases.iter().collect();
        assert!(distinct.len() >= 45, "{}", distinct.len());
    }

    #[test]
    fn every_operator_changes_a_buffer_and_stays_in_bounds() {
        let f = Format {
            header: &[2, 1000],
            dictionary: &["tok"],
            focus: 16,
            max_len: 0,
            fixup: None,
        };
        for op in OPS {
            let mut changed = 0;
            for s in 0..64 {
                let mut rng = Rng::new(s);
                let mut d: Vec<u8> = (0..64u8).collect();
                apply(op, &mut d, b"spliced in", &mut rng, &f);
                changed += (d != (0..64u8).collect::<Vec<_>>()) as u32;
                // Empty and one-byte inputs are fine too.
                for n in 0..2 {
                    let mut e = vec![7u8; n];
                    apply(op, &mut e, b"", &mut rng, &f);
                }
            }
            assert!(changed >= 32, "{op:?} changed {changed} of 64");
        }
    }

    #[test]
    fn below_stays_below() {
        let mut r = Rng::new(0);
        for n in 1..100 {
            assert!(r.below(n) < n);
        }
        assert_eq!(r.below(0), 0);
    }
}
