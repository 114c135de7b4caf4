//! The variable-length code tables of ISO/IEC 13818-2 annex B (the same codes MPEG-1 uses where
//! both define them), typed in as the standard prints them: each code as a string of bits, first
//! bit first, with the value it stands for.
//!
//! A [`Vlc`] turns a table into a lookup indexed by the next `max_len` bits of the stream, built
//! once on first use. Decoding with fewer bits available than `max_len` is exact: the lookup is
//! made on the available bits padded with zeros, and the match is accepted only when its length
//! fits in what is available (a prefix code cannot match a longer code's padded prefix falsely).

use std::sync::OnceLock;

/// Table B-1, macroblock_address_increment (1..=33). The escape (adds 33) and the MPEG-1 stuffing
/// code are separate: see [`MBA_ESCAPE`] and [`MBA_STUFFING`].
pub const MBA_INCREMENT: &[(&str, i16)] = &[
    ("1", 1),
    ("011", 2),
    ("010", 3),
    ("0011", 4),
    ("0010", 5),
    ("00011", 6),
    ("00010", 7),
    ("0000111", 8),
    ("0000110", 9),
    ("00001011", 10),
    ("00001010", 11),
    ("00001001", 12),
    ("00001000", 13),
    ("00000111", 14),
    ("00000110", 15),
    ("0000010111", 16),
    ("0000010110", 17),
    ("0000010101", 18),
    ("0000010100", 19),
    ("0000010011", 20),
    ("0000010010", 21),
    ("00000100011", 22),
    ("00000100010", 23),
    ("00000100001", 24),
    ("00000100000", 25),
    ("00000011111", 26),
    ("00000011110", 27),
    ("00000011101", 28),
    ("00000011100", 29),
    ("00000011011", 30),
    ("00000011010", 31),
    ("00000011001", 32),
    ("00000011000", 33),
];
/// macroblock_escape: the increment grows by 33 and another code follows.
pub const MBA_ESCAPE: &str = "00000001000";
/// macroblock_stuffing (MPEG-1 only): ignored.
pub const MBA_STUFFING: &str = "00000001111";

/// macroblock_type bits as the standard names them (and VDEC returns them).
pub mod mb {
    /// macroblock_quant.
    pub const QUANT: i16 = 0x10;
    /// macroblock_motion_forward.
    pub const FORWARD: i16 = 0x08;
    /// macroblock_motion_backward.
    pub const BACKWARD: i16 = 0x04;
    /// macroblock_pattern.
    pub const PATTERN: i16 = 0x02;
    /// macroblock_intra.
    pub const INTRA: i16 = 0x01;
}

/// Table B-2, macroblock_type in I pictures.
pub const MB_TYPE_I: &[(&str, i16)] = &[("1", mb::INTRA), ("01", mb::QUANT | mb::INTRA)];

/// Table B-3, macroblock_type in P pictures.
pub const MB_TYPE_P: &[(&str, i16)] = &[
    ("1", mb::FORWARD | mb::PATTERN),
    ("01", mb::PATTERN),
    ("001", mb::FORWARD),
    ("00011", mb::INTRA),
    ("00010", mb::QUANT | mb::FORWARD | mb::PATTERN),
    ("00001", mb::QUANT | mb::PATTERN),
    ("000001", mb::QUANT | mb::INTRA),
];

/// Table B-4, macroblock_type in B pictures.
pub const MB_TYPE_B: &[(&str, i16)] = &[
    ("10", mb::FORWARD | mb::BACKWARD),
    ("11", mb::FORWARD | mb::BACKWARD | mb::PATTERN),
    ("010", mb::BACKWARD),
    ("011", mb::BACKWARD | mb::PATTERN),
    ("0010", mb::FORWARD),
    ("0011", mb::FORWARD | mb::PATTERN),
    ("00011", mb::INTRA),
    (
        "00010",
        mb::QUANT | mb::FORWARD | mb::BACKWARD | mb::PATTERN,
    ),
    ("000011", mb::QUANT | mb::FORWARD | mb::PATTERN),
    ("000010", mb::QUANT | mb::BACKWARD | mb::PATTERN),
    ("000001", mb::QUANT | mb::INTRA),
];

/// MPEG-1 D pictures (DC-only): macroblock_type is one bit, "1", intra.
pub const MB_TYPE_D: &[(&str, i16)] = &[("1", mb::INTRA)];

/// Table B-9, coded_block_pattern ("000000001", pattern 0, is MPEG-2's 4:2:0 addition).
pub const CBP: &[(&str, i16)] = &[
    ("111", 60),
    ("1101", 4),
    ("1100", 8),
    ("1011", 16),
    ("1010", 32),
    ("10011", 12),
    ("10010", 48),
    ("10001", 20),
    ("10000", 40),
    ("01111", 28),
    ("01110", 44),
    ("01101", 52),
    ("01100", 56),
    ("01011", 1),
    ("01010", 61),
    ("01001", 2),
    ("01000", 62),
    ("001111", 24),
    ("001110", 36),
    ("001101", 3),
    ("001100", 63),
    ("0010111", 5),
    ("0010110", 9),
    ("0010101", 17),
    ("0010100", 33),
    ("0010011", 6),
    ("0010010", 10),
    ("0010001", 18),
    ("0010000", 34),
    ("00011111", 7),
    ("00011110", 11),
    ("00011101", 19),
    ("00011100", 35),
    ("00011011", 13),
    ("00011010", 49),
    ("00011001", 21),
    ("00011000", 41),
    ("00010111", 14),
    ("00010110", 50),
    ("00010101", 22),
    ("00010100", 42),
    ("00010011", 15),
    ("00010010", 51),
    ("00010001", 23),
    ("00010000", 43),
    ("00001111", 25),
    ("00001110", 37),
    ("00001101", 26),
    ("00001100", 38),
    ("00001011", 29),
    ("00001010", 45),
    ("00001001", 53),
    ("00001000", 57),
    ("00000111", 30),
    ("00000110", 46),
    ("00000101", 54),
    ("00000100", 58),
    ("000000111", 31),
    ("000000110", 47),
    ("000000101", 55),
    ("000000100", 59),
    ("000000011", 27),
    ("000000010", 39),
    ("000000001", 0),
];

/// Table B-10, motion_code magnitude; every code but "1" (0) is followed by a sign bit (1:
/// negative).
pub const MOTION_CODE: &[(&str, i16)] = &[
    ("1", 0),
    ("01", 1),
    ("001", 2),
    ("0001", 3),
    ("000011", 4),
    ("0000101", 5),
    ("0000100", 6),
    ("0000011", 7),
    ("000001011", 8),
    ("000001010", 9),
    ("000001001", 10),
    ("0000010001", 11),
    ("0000010000", 12),
    ("0000001111", 13),
    ("0000001110", 14),
    ("0000001101", 15),
    ("0000001100", 16),
];

/// Table B-11, dmvector.
pub const DMVECTOR: &[(&str, i16)] = &[("0", 0), ("10", 1), ("11", -1)];

/// Table B-12, dct_dc_size_luminance.
pub const DC_SIZE_LUMA: &[(&str, i16)] = &[
    ("100", 0),
    ("00", 1),
    ("01", 2),
    ("101", 3),
    ("110", 4),
    ("1110", 5),
    ("11110", 6),
    ("111110", 7),
    ("1111110", 8),
    ("11111110", 9),
    ("111111110", 10),
    ("111111111", 11),
];

/// Table B-13, dct_dc_size_chrominance.
pub const DC_SIZE_CHROMA: &[(&str, i16)] = &[
    ("00", 0),
    ("01", 1),
    ("10", 2),
    ("110", 3),
    ("1110", 4),
    ("11110", 5),
    ("111110", 6),
    ("1111110", 7),
    ("11111110", 8),
    ("111111110", 9),
    ("1111111110", 10),
    ("1111111111", 11),
];

/// A DCT coefficient table's symbol: a (run, level) pair (level > 0; a sign bit follows the code),
/// the end of the block, or the escape (6-bit run and a fixed-length level follow).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Coef {
    /// run zeros, then a coefficient of magnitude level.
    RunLevel(u8, u8),
    /// End of block.
    #[default]
    Eob,
    /// Escape.
    Escape,
}

/// Table B-14, DCT coefficients table zero (MPEG-1's only table), without the sign bit, for every
/// coefficient but the first of a non-intra block (see [`DCT_ZERO_FIRST`]).
pub const DCT_ZERO: &[(&str, u8, u8)] = &[
    ("11", 0, 1),
    ("011", 1, 1),
    ("0100", 0, 2),
    ("0101", 2, 1),
    ("00101", 0, 3),
    ("00111", 3, 1),
    ("00110", 4, 1),
    ("000110", 1, 2),
    ("000111", 5, 1),
    ("000101", 6, 1),
    ("000100", 7, 1),
    ("0000110", 0, 4),
    ("0000100", 2, 2),
    ("0000111", 8, 1),
    ("0000101", 9, 1),
    ("00100110", 0, 5),
    ("00100001", 0, 6),
    ("00100101", 1, 3),
    ("00100100", 3, 2),
    ("00100111", 10, 1),
    ("00100011", 11, 1),
    ("00100010", 12, 1),
    ("00100000", 13, 1),
    ("0000001010", 0, 7),
    ("0000001100", 1, 4),
    ("0000001011", 2, 3),
    ("0000001111", 4, 2),
    ("0000001001", 5, 2),
    ("0000001110", 14, 1),
    ("0000001101", 15, 1),
    ("0000001000", 16, 1),
    ("000000011101", 0, 8),
    ("000000011000", 0, 9),
    ("000000010011", 0, 10),
    ("000000010000", 0, 11),
    ("000000011011", 1, 5),
    ("000000010100", 2, 4),
    ("000000011100", 3, 3),
    ("000000010010", 4, 3),
    ("000000011110", 6, 2),
    ("000000010101", 7, 2),
    ("000000010001", 8, 2),
    ("000000011111", 17, 1),
    ("000000011010", 18, 1),
    ("000000011001", 19, 1),
    ("000000010111", 20, 1),
    ("000000010110", 21, 1),
    ("0000000011010", 0, 12),
    ("0000000011001", 0, 13),
    ("0000000011000", 0, 14),
    ("0000000010111", 0, 15),
    ("0000000010110", 1, 6),
    ("0000000010101", 1, 7),
    ("0000000010100", 2, 5),
    ("0000000010011", 3, 4),
    ("0000000010010", 5, 3),
    ("0000000010001", 9, 2),
    ("0000000010000", 10, 2),
    ("0000000011111", 22, 1),
    ("0000000011110", 23, 1),
    ("0000000011101", 24, 1),
    ("0000000011100", 25, 1),
    ("0000000011011", 26, 1),
    ("00000000011111", 0, 16),
    ("00000000011110", 0, 17),
    ("00000000011101", 0, 18),
    ("00000000011100", 0, 19),
    ("00000000011011", 0, 20),
    ("00000000011010", 0, 21),
    ("00000000011001", 0, 22),
    ("00000000011000", 0, 23),
    ("00000000010111", 0, 24),
    ("00000000010110", 0, 25),
    ("00000000010101", 0, 26),
    ("00000000010100", 0, 27),
    ("00000000010011", 0, 28),
    ("00000000010010", 0, 29),
    ("00000000010001", 0, 30),
    ("00000000010000", 0, 31),
    ("000000000011000", 0, 32),
    ("000000000010111", 0, 33),
    ("000000000010110", 0, 34),
    ("000000000010101", 0, 35),
    ("000000000010100", 0, 36),
    ("000000000010011", 0, 37),
    ("000000000010010", 0, 38),
    ("000000000010001", 0, 39),
    ("000000000010000", 0, 40),
    ("000000000011111", 1, 8),
    ("000000000011110", 1, 9),
    ("000000000011101", 1, 10),
    ("000000000011100", 1, 11),
    ("000000000011011", 1, 12),
    ("000000000011010", 1, 13),
    ("000000000011001", 1, 14),
    ("0000000000010011", 1, 15),
    ("0000000000010010", 1, 16),
    ("0000000000010001", 1, 17),
    ("0000000000010000", 1, 18),
    ("0000000000010100", 6, 3),
    ("0000000000011010", 11, 2),
    ("0000000000011001", 12, 2),
    ("0000000000011000", 13, 2),
    ("0000000000010111", 14, 2),
    ("0000000000010110", 15, 2),
    ("0000000000010101", 16, 2),
    ("0000000000011111", 27, 1),
    ("0000000000011110", 28, 1),
    ("0000000000011101", 29, 1),
    ("0000000000011100", 30, 1),
    ("0000000000011011", 31, 1),
];
/// Table B-14's end of block.
pub const DCT_ZERO_EOB: &str = "10";
/// The first coefficient of a non-intra block in table zero: "1" is (0, 1) (there is no EOB).
pub const DCT_ZERO_FIRST: &str = "1";
/// The escape of both tables.
pub const DCT_ESCAPE: &str = "000001";

/// Table B-15, DCT coefficients table one (MPEG-2 intra blocks with intra_vlc_format = 1): the
/// codes that differ from table zero. Every (run, level) not listed keeps its table zero code.
pub const DCT_ONE_CHANGES: &[(&str, u8, u8)] = &[
    ("10", 0, 1),
    ("110", 0, 2),
    ("0111", 0, 3),
    ("11100", 0, 4),
    ("11101", 0, 5),
    ("000101", 0, 6),
    ("000100", 0, 7),
    ("1111011", 0, 8),
    ("1111100", 0, 9),
    ("00100011", 0, 10),
    ("00100010", 0, 11),
    ("11111010", 0, 12),
    ("11111011", 0, 13),
    ("11111110", 0, 14),
    ("11111111", 0, 15),
    ("010", 1, 1),
    ("00110", 1, 2),
    ("1111001", 1, 3),
    ("00100111", 1, 4),
    ("00100000", 1, 5),
    ("00101", 2, 1),
    ("0000111", 2, 2),
    ("11111100", 2, 3),
    ("0000001100", 2, 4),
    ("00100110", 3, 2),
    ("000110", 4, 1),
    ("11111101", 4, 2),
    ("000000100", 5, 2),
    ("0000110", 6, 1),
    ("0000100", 7, 1),
    ("0000101", 8, 1),
    ("1111000", 9, 1),
    ("1111010", 10, 1),
    ("00100001", 11, 1),
    ("00100101", 12, 1),
    ("00100100", 13, 1),
    ("000000101", 14, 1),
    ("000000111", 15, 1),
    ("0000001101", 16, 1),
];
/// Table B-15's end of block.
pub const DCT_ONE_EOB: &str = "0110";

/// The result of a decode attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup<T> {
    /// A code of this many bits, standing for this value.
    Found(u32, T),
    /// Not enough bits are available to decide.
    NeedMore,
    /// The bits are no code of the table.
    Invalid,
}

/// A table turned into a lookup on the next `max_len` bits.
pub struct Vlc<T: Copy> {
    max_len: u32,
    /// Indexed by the next `max_len` bits: (code length, value); length 0 means no code.
    lut: Vec<(u8, T)>,
}

impl<T: Copy + Default> Vlc<T> {
    /// Build the lookup. Panics (a programming error in the typed tables, caught by the tests) if
    /// a code is not made of 0 and 1 or two codes overlap.
    pub fn new(codes: &[(&str, T)]) -> Self {
        let max_len = codes.iter().map(|(c, _)| c.len() as u32).max().unwrap_or(1);
        let mut lut = vec![(0u8, T::default()); 1 << max_len];
        for &(code, v) in codes {
            let len = code.len() as u32;
            let bits = u32::from_str_radix(code, 2).expect("a VLC code is a string of bits");
            let base = (bits << (max_len - len)) as usize;
            for e in &mut lut[base..base + (1 << (max_len - len))] {
                assert_eq!(e.0, 0, "VLC code {code} overlaps another");
                *e = (len as u8, v);
            }
        }
        Self { max_len, lut }
    }

    /// The longest code's length.
    pub fn max_len(&self) -> u32 {
        self.max_len
    }

    /// Decode from `bits` (the next bits of the stream, first bit at bit 31, zeros past the
    /// available ones) of which `avail` are real.
    pub fn lookup(&self, bits: u32, avail: u32) -> Lookup<T> {
        let (len, v) = self.lut[(bits >> (32 - self.max_len)) as usize];
        if len != 0 && len as u32 <= avail {
            Lookup::Found(len as u32, v)
        } else if avail < self.max_len {
            Lookup::NeedMore
        } else {
            Lookup::Invalid
        }
    }
}

/// The lookups, built on first use.
pub struct Tables {
    /// B-1 with the escape (value -1) and the stuffing code (value -2).
    pub mba: Vlc<i16>,
    /// B-2.
    pub mb_i: Vlc<i16>,
    /// B-3.
    pub mb_p: Vlc<i16>,
    /// B-4.
    pub mb_b: Vlc<i16>,
    /// MPEG-1 D pictures.
    pub mb_d: Vlc<i16>,
    /// B-9.
    pub cbp: Vlc<i16>,
    /// B-10.
    pub motion: Vlc<i16>,
    /// B-11.
    pub dmv: Vlc<i16>,
    /// B-12.
    pub dc_luma: Vlc<i16>,
    /// B-13.
    pub dc_chroma: Vlc<i16>,
    /// B-14 for every coefficient but a non-intra block's first.
    pub dct_zero: Vlc<Coef>,
    /// B-14 for a non-intra block's first coefficient.
    pub dct_zero_first: Vlc<Coef>,
    /// B-15.
    pub dct_one: Vlc<Coef>,
}

/// Value of the escape in [`Tables::mba`].
pub const MBA_VALUE_ESCAPE: i16 = -1;
/// Value of the stuffing code in [`Tables::mba`].
pub const MBA_VALUE_STUFFING: i16 = -2;

fn dct_codes(one: bool, first: bool) -> Vec<(&'static str, Coef)> {
    let mut v: Vec<(&'static str, Coef)> = DCT_ZERO
        .iter()
        .map(|&(c, r, l)| {
            let code = if one {
                DCT_ONE_CHANGES
                    .iter()
                    .find(|&&(_, r1, l1)| (r1, l1) == (r, l))
                    .map_or(c, |&(c1, _, _)| c1)
            } else if first && (r, l) == (0, 1) {
                DCT_ZERO_FIRST
            } else {
                c
            };
            (code, Coef::RunLevel(r, l))
        })
        .collect();
    v.push((DCT_ESCAPE, Coef::Escape));
    if !first {
        v.push((if one { DCT_ONE_EOB } else { DCT_ZERO_EOB }, Coef::Eob));
    }
    v
}

/// The tables.
pub fn tables() -> &'static Tables {
    static T: OnceLock<Tables> = OnceLock::new();
    T.get_or_init(|| {
        let mut mba: Vec<(&str, i16)> = MBA_INCREMENT.to_vec();
        mba.push((MBA_ESCAPE, MBA_VALUE_ESCAPE));
        mba.push((MBA_STUFFING, MBA_VALUE_STUFFING));
        Tables {
            mba: Vlc::new(&mba),
            mb_i: Vlc::new(MB_TYPE_I),
            mb_p: Vlc::new(MB_TYPE_P),
            mb_b: Vlc::new(MB_TYPE_B),
            mb_d: Vlc::new(MB_TYPE_D),
            cbp: Vlc::new(CBP),
            motion: Vlc::new(MOTION_CODE),
            dmv: Vlc::new(DMVECTOR),
            dc_luma: Vlc::new(DC_SIZE_LUMA),
            dc_chroma: Vlc::new(DC_SIZE_CHROMA),
            dct_zero: Vlc::new(&dct_codes(false, false)),
            dct_zero_first: Vlc::new(&dct_codes(false, true)),
            dct_one: Vlc::new(&dct_codes(true, false)),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kraft sum of a code set, in units of 2^-16 (complete prefix code: exactly 65536).
    fn kraft(codes: &[&str]) -> u64 {
        codes.iter().map(|c| 1u64 << (16 - c.len())).sum()
    }

    #[test]
    fn every_table_builds_without_overlap() {
        let t = tables();
        assert_eq!(t.dct_zero.max_len(), 16);
        assert_eq!(t.dct_one.max_len(), 16);
        assert_eq!(t.mba.max_len(), 11);
        assert_eq!(t.cbp.max_len(), 9);
    }

    #[test]
    fn complete_tables_fill_the_code_space() {
        // Tables whose codes cover every bit pattern (no invalid prefix).
        let c: Vec<&str> = CBP.iter().map(|e| e.0).collect();
        assert_eq!(
            kraft(&c),
            65536 - (1 << 7),
            "CBP leaves only 00000000 0 free"
        );
        let c: Vec<&str> = DC_SIZE_LUMA.iter().map(|e| e.0).collect();
        assert_eq!(kraft(&c), 65536);
        let c: Vec<&str> = DC_SIZE_CHROMA.iter().map(|e| e.0).collect();
        assert_eq!(kraft(&c), 65536);
        let c: Vec<&str> = MB_TYPE_I.iter().map(|e| e.0).collect();
        assert_eq!(
            kraft(&c),
            65536 - (1 << 14),
            "00 is not an I macroblock type"
        );
    }

    #[test]
    fn cbp_values_are_each_pattern_once() {
        let mut seen = [false; 64];
        for &(_, v) in CBP {
            assert!(!seen[v as usize], "pattern {v} twice");
            seen[v as usize] = true;
        }
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn dct_tables_list_111_run_level_pairs_each_once() {
        assert_eq!(DCT_ZERO.len(), 111);
        for (i, a) in DCT_ZERO.iter().enumerate() {
            for b in &DCT_ZERO[i + 1..] {
                assert_ne!((a.1, a.2), (b.1, b.2));
            }
        }
        for &(_, r, l) in DCT_ONE_CHANGES {
            assert!(DCT_ZERO.iter().any(|e| (e.1, e.2) == (r, l)));
        }
        // Each (run, level) code stands for two codes (its sign bit). Unused code space, in units
        // of 2^-16: table zero leaves only the twelve-zero prefix (16); table one also leaves the
        // codes its shorter ones replaced (128 more).
        for (one, unused) in [(false, 16u64), (true, 144)] {
            let codes = dct_codes(one, false);
            let sum: u64 = codes.iter().map(|(c, _)| 1u64 << (16 - c.len())).sum();
            assert_eq!(65536 - sum, unused, "table one={one}");
        }
    }

    #[test]
    fn lookup_with_few_bits() {
        let t = tables();
        // "1" is I intra: decodable from one bit.
        assert_eq!(t.mb_i.lookup(0x8000_0000, 1), Lookup::Found(1, mb::INTRA));
        // "0" alone: need the second bit.
        assert_eq!(t.mb_i.lookup(0, 1), Lookup::NeedMore);
        // "00": invalid.
        assert_eq!(t.mb_i.lookup(0, 2), Lookup::Invalid);
        assert_eq!(t.mba.lookup(0x0100_0000, 11), Lookup::Found(11, -1));
    }
}
