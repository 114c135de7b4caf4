//! The COP1 and COP2 decode tables against binutils' encodings: every word assembled by
//! `mipsel-linux-gnu-as -march=r5900` decodes to the mnemonic binutils disassembles it as.

use piney_ee::decode;

#[path = "vu0_support/binutils.rs"]
mod binutils;

#[test]
fn every_encoding_decodes_to_its_mnemonic() {
    for &(word, mnemonic) in binutils::ENCODINGS {
        // LQC2/SQC2 sit in the integer family's PRIMARY table (0x36, 0x3e); they are checked
        // through the COP2 family's own entries in vu0_ops.rs.
        if matches!(word >> 26, 0x36 | 0x3e) {
            continue;
        }
        assert_eq!(decode(word).mnemonic, mnemonic, "{word:#010x}");
    }
}

#[test]
fn cvt_w_s_decodes() {
    // cvt.w.s $f1, $f2 (binutils refuses it for -march=r5900; the EE has it as funct 0x24).
    assert_eq!(decode(0x4600_1064).mnemonic, "cvt.w.s");
}

#[test]
fn unassigned_encodings_are_reserved() {
    for word in [
        0x4a00_0033u32, // SPECIAL1 funct 0x33
        0x4a00_003a,    // SPECIAL1 funct 0x3a
        0x4a00_02bf,    // SPECIAL2 0x2b
        0x4a00_033e,    // SPECIAL2 0x32
        0x4a00_047c,    // SPECIAL2 0x44
        0x4620_0000,    // COP1 rs 17 (D format: not on the EE)
        0x4600_0008,    // COP1 S funct 8
        0x4904_0000,    // BC2 rt 4
        0x4860_0000,    // COP2 rs 3
    ] {
        assert_eq!(decode(word).mnemonic, "(reserved)", "{word:#010x}");
    }
}
