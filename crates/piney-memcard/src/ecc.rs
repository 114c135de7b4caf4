//! The Hamming code a PS2 card keeps in each page's spare area: 3 bytes for every 128-byte
//! chunk, 4 chunks per 512-byte page, so 12 of the 16 spare bytes.
//!
//! Contract: [`chunk_ecc`] computes exactly what MCMAN's `McDataChecksum` writes (ps2sdk
//! `iop/memorycard/mcman/src/main.c`), which is also what mymc's `ps2mc_ecc.py` and PCSX2's
//! `CalculateECC` compute. Checking compares only the bits the code defines and never corrects.
//!
//! The code, from its definition (this is derived here, no table is copied):
//! * Column parity: for every byte, six parities of bit subsets: CP0 = bits 0,2,4,6 (mask 0x55),
//!   CP1 = bits 1,3,5,7 (0xAA), CP2 = bits 0,1,4,5 (0x33), CP3 = bits 2,3,6,7 (0xCC),
//!   CP4 = bits 0..3 (0x0F), CP5 = bits 4..7 (0xF0). XORed over the 128 bytes they form byte 0
//!   inverted: bit 0 = CP0, bit 1 = CP2, bit 2 = CP4, bit 4 = CP1, bit 5 = CP3, bit 6 = CP5
//!   (bits 3 and 7 unused: byte 0 is masked with 0x77).
//! * Line parity: let X be the XOR of the indices (0..128) of the bytes with an odd number of
//!   set bits, and N how many such bytes there are. Byte 2 = !X & 0x7F; byte 1 = the same
//!   with every index complemented, i.e. !(X ^ (0x7F if N is odd)) & 0x7F.
//!
//! A single flipped data bit changes exactly one byte's parity (so X changes by that byte's
//! index and N by one: both line bytes change) and half of the column parities, so every
//! single-bit error is visible.

/// Bytes of data each 3-byte code covers.
pub const CHUNK: usize = 128;
/// Data bytes of a page.
pub const PAGE_DATA: usize = 512;
/// Spare bytes of a page.
pub const PAGE_SPARE: usize = 16;

/// Parity (1 if odd) of a byte.
const fn parity(b: u8) -> u8 {
    (b.count_ones() & 1) as u8
}

/// Column-parity bits of one byte, packed as byte 0 of the code packs them (see module docs).
const fn column_bits(b: u8) -> u8 {
    parity(b & 0x55)
        | parity(b & 0x33) << 1
        | parity(b & 0x0F) << 2
        | parity(b & 0xAA) << 4
        | parity(b & 0xCC) << 5
        | parity(b & 0xF0) << 6
}

/// [`column_bits`] for every byte value, built at compile time from the definition.
const COLUMN: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = column_bits(i as u8);
        i += 1;
    }
    t
};

/// The 3-byte code of a 128-byte chunk.
pub fn chunk_ecc(data: &[u8; CHUNK]) -> [u8; 3] {
    let mut col = 0u8;
    let mut x = 0u8;
    let mut odd = 0u8;
    for (i, &b) in data.iter().enumerate() {
        col ^= COLUMN[b as usize];
        if parity(b) == 1 {
            x ^= i as u8;
            odd ^= 1;
        }
    }
    let comp = if odd == 1 { 0x7F } else { 0 };
    [!col & 0x77, !(x ^ comp) & 0x7F, !x & 0x7F]
}

/// The 16 spare bytes MCMAN programs with a page: the four chunk codes, then four zero bytes
/// (MCMAN's spare buffer is zero beyond the codes; mymc and PCSX2's spare-less conversion
/// write zeros there too).
pub fn page_spare(data: &[u8; PAGE_DATA]) -> [u8; PAGE_SPARE] {
    let mut spare = [0u8; PAGE_SPARE];
    for c in 0..PAGE_DATA / CHUNK {
        let chunk: &[u8; CHUNK] = data[c * CHUNK..(c + 1) * CHUNK]
            .try_into()
            .expect("128-byte chunk");
        spare[c * 3..c * 3 + 3].copy_from_slice(&chunk_ecc(chunk));
    }
    spare
}

/// Whether MCMAN would take a page with this spare area for an erased one and skip its ECC:
/// `McReadPage` does when the last spare byte is the erased value, 0xFF on cards whose flags
/// lack CF_ERASE_ZEROES (PCSX2's cards report flags 0x2B).
pub fn spare_is_erased(spare: &[u8; PAGE_SPARE]) -> bool {
    spare[PAGE_SPARE - 1] == 0xFF
}

/// The first 128-byte chunk whose stored code differs from the data's, comparing only the bits
/// the code defines (0x77, 0x7F, 0x7F: the others carry nothing and mymc ignores them too).
pub fn first_bad_chunk(data: &[u8; PAGE_DATA], spare: &[u8; PAGE_SPARE]) -> Option<usize> {
    (0..PAGE_DATA / CHUNK).find(|&c| {
        let chunk: &[u8; CHUNK] = data[c * CHUNK..(c + 1) * CHUNK]
            .try_into()
            .expect("128-byte chunk");
        let want = chunk_ecc(chunk);
        let have = &spare[c * 3..c * 3 + 3];
        (want[0] ^ have[0]) & 0x77 != 0
            || (want[1] ^ have[1]) & 0x7F != 0
            || (want[2] ^ have[2]) & 0x7F != 0
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_bits_match_hand_values() {
        // 0x01: bit 0 is in masks 0x55, 0x33, 0x0F -> CP0, CP2, CP4 -> bits 0, 1, 2 = 0x07.
        assert_eq!(column_bits(0x01), 0x07);
        // 0x80: bit 7 is in 0xAA, 0xCC, 0xF0 -> CP1, CP3, CP5 -> bits 4, 5, 6 = 0x70.
        assert_eq!(column_bits(0x80), 0x70);
        // 0xFF: every mask holds an even number of bits -> 0.
        assert_eq!(column_bits(0xFF), 0x00);
    }
}
