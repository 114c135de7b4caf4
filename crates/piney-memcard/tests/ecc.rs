//! The spare-area Hamming code: hand-derived values of a few chunks, agreement with a
//! bit-by-bit reference of the definition, and detection of every single flipped data bit.

use piney_memcard::ecc::{chunk_ecc, first_bad_chunk, page_spare, spare_is_erased};

fn chunk(f: impl Fn(usize) -> u8) -> [u8; 128] {
    std::array::from_fn(f)
}

/// Derivations (see `ecc.rs`: byte 0 = !(XOR of the bytes' column parities) & 0x77, packed
/// CP0 bit 0, CP2 bit 1, CP4 bit 2, CP1 bit 4, CP3 bit 5, CP5 bit 6; X = XOR of the indices of
/// the odd-parity bytes, N = their count; byte 2 = !X & 0x7F, byte 1 = !(X ^ (N odd ? 0x7F :
/// 0)) & 0x7F).
#[test]
fn hand_computed_chunks() {
    // All zero: no column parity, no odd byte: X = 0, N = 0 -> 0x77, 0x7F, 0x7F.
    assert_eq!(chunk_ecc(&[0; 128]), [0x77, 0x7F, 0x7F]);
    // All 0xFF: each byte has 8 bits set (even) and each mask covers 4 of them (even):
    // the same as zeros.
    assert_eq!(chunk_ecc(&[0xFF; 128]), [0x77, 0x7F, 0x7F]);
    // Byte 0 = 0x01: bit 0 lies in masks 0x55 (CP0), 0x33 (CP2), 0x0F (CP4): column 0x07,
    // byte 0 = !0x07 & 0x77 = 0x70. One odd byte at index 0: X = 0, N = 1:
    // byte 1 = !(0 ^ 0x7F) & 0x7F = 0x00, byte 2 = !0 & 0x7F = 0x7F.
    assert_eq!(chunk_ecc(&chunk(|i| u8::from(i == 0))), [0x70, 0x00, 0x7F]);
    // Byte 127 = 0x80: bit 7 lies in 0xAA (CP1), 0xCC (CP3), 0xF0 (CP5): column 0x70,
    // byte 0 = !0x70 & 0x77 = 0x07. X = 127, N = 1: byte 1 = !(127 ^ 127) & 0x7F = 0x7F,
    // byte 2 = !127 & 0x7F = 0x00.
    assert_eq!(
        chunk_ecc(&chunk(|i| if i == 127 { 0x80 } else { 0 })),
        [0x07, 0x7F, 0x00]
    );
    // Byte 5 = 0x10: bit 4 lies in 0x55 (CP0), 0x33 (CP2), 0xF0 (CP5): column 0x43,
    // byte 0 = !0x43 & 0x77 = 0x34. X = 5, N = 1: byte 1 = !(5 ^ 0x7F) & 0x7F = 0x05,
    // byte 2 = !5 & 0x7F = 0x7A.
    assert_eq!(
        chunk_ecc(&chunk(|i| if i == 5 { 0x10 } else { 0 })),
        [0x34, 0x05, 0x7A]
    );
    // Two odd bytes at indices 3 and 6 (0x01 each): columns cancel (0x77); X = 3 ^ 6 = 5,
    // N = 2 (even): byte 1 = byte 2 = !5 & 0x7F = 0x7A.
    assert_eq!(
        chunk_ecc(&chunk(|i| u8::from(i == 3 || i == 6))),
        [0x77, 0x7A, 0x7A]
    );
    // A page of zeros: four times 77 7F 7F, then four zero bytes.
    let s = page_spare(&[0; 512]);
    assert_eq!(
        s,
        [
            0x77, 0x7F, 0x7F, 0x77, 0x7F, 0x7F, 0x77, 0x7F, 0x7F, 0x77, 0x7F, 0x7F, 0, 0, 0, 0
        ]
    );
    assert!(!spare_is_erased(&s));
    assert!(spare_is_erased(&[0xFF; 16]));
}

/// The definition computed the slow way: MCMAN's loop, which XORs the complement of the index
/// of every odd byte into one line parity and the index itself into the other.
fn reference(d: &[u8; 128]) -> [u8; 3] {
    let mut cp = [0u8; 6];
    let masks = [0x55u8, 0xAA, 0x33, 0xCC, 0x0F, 0xF0];
    let (mut lp_not, mut lp) = (0u32, 0u32);
    for (i, &b) in d.iter().enumerate() {
        for (k, m) in masks.iter().enumerate() {
            cp[k] ^= ((b & m).count_ones() & 1) as u8;
        }
        if b.count_ones() % 2 == 1 {
            lp_not ^= !(i as u32);
            lp ^= i as u32;
        }
    }
    let col = cp[0] | cp[2] << 1 | cp[4] << 2 | cp[1] << 4 | cp[3] << 5 | cp[5] << 6;
    [!col & 0x77, (!lp_not & 0x7F) as u8, (!lp & 0x7F) as u8]
}

struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u8 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 56) as u8
    }
}

#[test]
fn agrees_with_the_definition() {
    let mut r = Lcg(1);
    for _ in 0..500 {
        let d: [u8; 128] = std::array::from_fn(|_| r.next());
        assert_eq!(chunk_ecc(&d), reference(&d));
    }
}

#[test]
fn every_single_bit_flip_is_detected() {
    let mut r = Lcg(7);
    let page: [u8; 512] = std::array::from_fn(|_| r.next());
    let spare = page_spare(&page);
    assert_eq!(first_bad_chunk(&page, &spare), None);
    for bit in 0..512 * 8 {
        let mut bad = page;
        bad[bit / 8] ^= 1 << (bit % 8);
        assert_eq!(
            first_bad_chunk(&bad, &spare),
            Some(bit / 8 / 128),
            "bit {bit}"
        );
    }
    // Flipping a stored code bit is detected too, but not the unused bits (byte 0 bits 3
    // and 7, bytes 1 and 2 bit 7), which carry nothing.
    for (byte, bit, seen) in [
        (0, 0, true),
        (1, 6, true),
        (2, 3, true),
        (0, 3, false),
        (0, 7, false),
        (1, 7, false),
    ] {
        let mut s = spare;
        s[byte] ^= 1 << bit;
        assert_eq!(
            first_bad_chunk(&page, &s).is_some(),
            seen,
            "spare byte {byte} bit {bit}"
        );
    }
}
