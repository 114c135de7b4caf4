//! MMI: parallel arithmetic, saturation, compares, pack/extend, shuffles, shifts, logic.
//! Expected values are worked out lane by lane from the instruction definitions.

#[path = "integer_asm.rs"]
mod asm;
use asm::*;

/// Run `word` (rd = 3, rs = 1, rt = 2) with the given rs and rt; return rd.
fn run(word: u32, s: u128, t: u128) -> u128 {
    let m = exec1(word, |m| {
        m.cpu.gpr[1] = s;
        m.cpu.gpr[2] = t;
        m.cpu.gpr[3] = 0x5555;
    });
    m.cpu.gpr[3]
}

#[test]
fn word_add_sub_compare() {
    let s = q(0x7fff_ffff, 0x8000_0000, 5, 0xffff_ffff);
    let t = q(1, 0xffff_ffff, 7, 1);
    assert_eq!(
        run(mmi0(0x00, 3, 1, 2), s, t),
        q(0x8000_0000, 0x7fff_ffff, 12, 0)
    );
    assert_eq!(
        run(mmi0(0x01, 3, 1, 2), s, t),
        q(0x7fff_fffe, 0x8000_0001, (-2i32) as u32, 0xffff_fffe)
    );
    // Saturating.
    assert_eq!(
        run(mmi0(0x10, 3, 1, 2), s, t),
        q(0x7fff_ffff, 0x8000_0000, 12, 0)
    );
    assert_eq!(
        run(mmi0(0x11, 3, 1, 2), s, t),
        q(0x7fff_fffe, 0x8000_0001, (-2i32) as u32, 0xffff_fffe)
    );
    assert_eq!(
        run(
            mmi0(0x11, 3, 1, 2),
            q(0x8000_0000, 0x7fff_ffff, 0, 0),
            q(1, 0xffff_ffff, 0, 0)
        ),
        q(0x8000_0000, 0x7fff_ffff, 0, 0)
    );
    assert_eq!(run(mmi0(0x02, 3, 1, 2), s, t), q(u32::MAX, 0, 0, 0)); // pcgtw
    assert_eq!(
        run(mmi0(0x03, 3, 1, 2), s, t),
        q(0x7fff_ffff, 0xffff_ffff, 7, 1)
    ); // pmaxw
    assert_eq!(
        run(mmi1(0x03, 3, 1, 2), s, t),
        q(1, 0x8000_0000, 5, 0xffff_ffff)
    ); // pminw
    assert_eq!(
        run(mmi1(0x02, 3, 1, 2), s, s),
        q(u32::MAX, u32::MAX, u32::MAX, u32::MAX)
    );
    // Unsigned saturating.
    assert_eq!(
        run(mmi1(0x10, 3, 1, 2), s, t),
        q(0x8000_0000, 0xffff_ffff, 12, 0xffff_ffff)
    );
    assert_eq!(
        run(mmi1(0x11, 3, 1, 2), s, t),
        q(0x7fff_fffe, 0, 0, 0xffff_fffe)
    );
}

#[test]
fn halfword_and_byte_saturation() {
    let s = qh([0x7fff, 0x8000, 0xffff, 10, 0x8000, 3, 0, 0x7ffe]);
    let t = qh([1, 0xffff, 1, 0xfffe, 1, 5, 0, 1]);
    assert_eq!(
        run(mmi0(0x14, 3, 1, 2), s, t), // paddsh
        qh([0x7fff, 0x8000, 0, 8, 0x8001, 8, 0, 0x7fff])
    );
    assert_eq!(
        run(mmi0(0x15, 3, 1, 2), s, t), // psubsh
        qh([0x7ffe, 0x8001, 0xfffe, 12, 0x8000, 0xfffe, 0, 0x7ffd])
    );
    assert_eq!(
        run(mmi0(0x04, 3, 1, 2), s, t), // paddh wraps
        qh([0x8000, 0x7fff, 0, 8, 0x8001, 8, 0, 0x7fff])
    );
    assert_eq!(
        run(mmi1(0x14, 3, 1, 2), s, t), // padduh
        qh([0x8000, 0xffff, 0xffff, 0xffff, 0x8001, 8, 0, 0x7fff])
    );
    assert_eq!(
        run(mmi1(0x15, 3, 1, 2), s, t), // psubuh
        qh([0x7ffe, 0, 0xfffe, 0, 0x7fff, 0, 0, 0x7ffd])
    );
    let mut sb = [0u8; 16];
    let mut tb = [0u8; 16];
    sb[..4].copy_from_slice(&[0x7f, 0x80, 0xff, 0x10]);
    tb[..4].copy_from_slice(&[0x01, 0x80, 0x02, 0xf0]);
    let r = |w| qb_first4(run(w, qb(sb), qb(tb)));
    assert_eq!(r(mmi0(0x18, 3, 1, 2)), [0x7f, 0x80, 0x01, 0x00]); // paddsb
    assert_eq!(r(mmi0(0x19, 3, 1, 2)), [0x7e, 0x00, 0xfd, 0x20]); // psubsb
    assert_eq!(r(mmi0(0x08, 3, 1, 2)), [0x80, 0x00, 0x01, 0x00]); // paddb
    assert_eq!(r(mmi1(0x18, 3, 1, 2)), [0x80, 0xff, 0xff, 0xff]); // paddub
    assert_eq!(r(mmi1(0x19, 3, 1, 2)), [0x7e, 0x00, 0xfd, 0x00]); // psubub
    assert_eq!(r(mmi0(0x0a, 3, 1, 2)), [0xff, 0x00, 0x00, 0xff]); // pcgtb
    assert_eq!(r(mmi1(0x0a, 3, 1, 2)), [0x00, 0xff, 0x00, 0x00]); // pceqb
}

fn qb_first4(v: u128) -> [u8; 4] {
    let b = v.to_le_bytes();
    [b[0], b[1], b[2], b[3]]
}

#[test]
fn abs_saturates() {
    assert_eq!(
        run(
            mmi1(0x01, 3, 0, 2),
            0,
            q(0x8000_0000, 0xffff_ffff, 5, 0x8000_0001)
        ),
        q(0x7fff_ffff, 1, 5, 0x7fff_ffff)
    );
    assert_eq!(
        run(
            mmi1(0x05, 3, 0, 2),
            0,
            qh([0x8000, 0xffff, 2, 0x8001, 0, 0x7fff, 0xfffe, 0x8000])
        ),
        qh([0x7fff, 1, 2, 0x7fff, 0, 0x7fff, 2, 0x7fff])
    );
}

#[test]
fn halfword_compares_and_minmax() {
    let s = qh([1, 0xffff, 5, 5, 0x8000, 0x7fff, 0, 2]);
    let t = qh([0xffff, 1, 5, 6, 0x7fff, 0x8000, 0, 3]);
    assert_eq!(
        run(mmi0(0x06, 3, 1, 2), s, t),
        qh([0xffff, 0, 0, 0, 0, 0xffff, 0, 0])
    );
    assert_eq!(
        run(mmi1(0x06, 3, 1, 2), s, t),
        qh([0, 0, 0xffff, 0, 0, 0, 0xffff, 0])
    );
    assert_eq!(
        run(mmi0(0x07, 3, 1, 2), s, t),
        qh([1, 1, 5, 6, 0x7fff, 0x7fff, 0, 3])
    );
    assert_eq!(
        run(mmi1(0x07, 3, 1, 2), s, t),
        qh([0xffff, 0xffff, 5, 5, 0x8000, 0x8000, 0, 2])
    );
    // padsbh: lanes 0-3 subtract, 4-7 add.
    assert_eq!(
        run(
            mmi1(0x04, 3, 1, 2),
            qh([10, 10, 10, 10, 10, 10, 10, 10]),
            qh([1, 2, 3, 4, 1, 2, 3, 4])
        ),
        qh([9, 8, 7, 6, 11, 12, 13, 14])
    );
}

#[test]
fn extend_and_pack() {
    let s = q(0xa0a1a2a3, 0xb0b1b2b3, 0xc0c1c2c3, 0xd0d1d2d3);
    let t = q(0x00010203, 0x10111213, 0x20212223, 0x30313233);
    assert_eq!(
        run(mmi0(0x12, 3, 1, 2), s, t),
        q(0x00010203, 0xa0a1a2a3, 0x10111213, 0xb0b1b2b3)
    );
    assert_eq!(
        run(mmi1(0x12, 3, 1, 2), s, t),
        q(0x20212223, 0xc0c1c2c3, 0x30313233, 0xd0d1d2d3)
    );
    assert_eq!(
        run(mmi0(0x13, 3, 1, 2), s, t),
        q(0x00010203, 0x20212223, 0xa0a1a2a3, 0xc0c1c2c3)
    );
    // pextlh: t.h0 s.h0 t.h1 s.h1 ...
    assert_eq!(
        run(mmi0(0x16, 3, 1, 2), s, t),
        q(0xa2a3_0203, 0xa0a1_0001, 0xb2b3_1213, 0xb0b1_1011)
    );
    assert_eq!(
        run(mmi1(0x16, 3, 1, 2), s, t),
        q(0xc2c3_2223, 0xc0c1_2021, 0xd2d3_3233, 0xd0d1_3031)
    );
    // ppach: even halfwords of rt, then of rs.
    assert_eq!(
        run(mmi0(0x17, 3, 1, 2), s, t),
        q(0x1213_0203, 0x3233_2223, 0xb2b3_a2a3, 0xd2d3_c2c3)
    );
    // pextlb / pextub / ppacb.
    assert_eq!(
        run(mmi0(0x1a, 3, 1, 2), s, t),
        q(0xa202_a303, 0xa000_a101, 0xb212_b313, 0xb010_b111)
    );
    assert_eq!(
        run(mmi1(0x1a, 3, 1, 2), s, t),
        q(0xc222_c323, 0xc020_c121, 0xd232_d333, 0xd030_d131)
    );
    assert_eq!(
        run(mmi0(0x1b, 3, 1, 2), s, t),
        q(0x1113_0103, 0x3133_2123, 0xb1b3_a1a3, 0xd1d3_c1c3)
    );
    // pinth: t.h0 s.h4 t.h1 s.h5 ...; pinteh: even halfwords interleaved.
    assert_eq!(
        run(mmi2(0x0a, 3, 1, 2), s, t),
        q(0xc2c3_0203, 0xc0c1_0001, 0xd2d3_1213, 0xd0d1_1011)
    );
    assert_eq!(
        run(mmi3(0x0a, 3, 1, 2), s, t),
        q(0xa2a3_0203, 0xb2b3_1213, 0xc2c3_2223, 0xd2d3_3233)
    );
    // pcpyld / pcpyud.
    assert_eq!(
        run(mmi2(0x0e, 3, 1, 2), s, t),
        q(0x00010203, 0x10111213, 0xa0a1a2a3, 0xb0b1b2b3)
    );
    assert_eq!(
        run(mmi3(0x0e, 3, 1, 2), s, t),
        q(0xc0c1c2c3, 0xd0d1d2d3, 0x20212223, 0x30313233)
    );
}

#[test]
fn rt_shuffles() {
    let t = qh([0, 1, 2, 3, 4, 5, 6, 7]);
    assert_eq!(run(mmi2(0x1a, 3, 0, 2), 0, t), qh([2, 1, 0, 3, 6, 5, 4, 7])); // pexeh
    assert_eq!(run(mmi2(0x1b, 3, 0, 2), 0, t), qh([3, 2, 1, 0, 7, 6, 5, 4])); // prevh
    assert_eq!(run(mmi3(0x1a, 3, 0, 2), 0, t), qh([0, 2, 1, 3, 4, 6, 5, 7])); // pexch
    assert_eq!(run(mmi3(0x1b, 3, 0, 2), 0, t), qh([0, 0, 0, 0, 4, 4, 4, 4])); // pcpyh
    let t = q(0, 1, 2, 3);
    assert_eq!(run(mmi2(0x1e, 3, 0, 2), 0, t), q(2, 1, 0, 3)); // pexew
    assert_eq!(run(mmi2(0x1f, 3, 0, 2), 0, t), q(1, 2, 0, 3)); // prot3w
    assert_eq!(run(mmi3(0x1e, 3, 0, 2), 0, t), q(0, 2, 1, 3)); // pexcw
}

#[test]
fn pext5_ppac5() {
    // 1-5-5-5: A=1, B=0x1f, G=0x01, R=0x10 -> 0x8000 | 0x7c00 | 0x20 | 0x10.
    let c = 0x8000 | (0x1f << 10) | (0x01 << 5) | 0x10;
    let e = run(mmi0(0x1e, 3, 0, 2), 0, q(c, 0, 0xffff, 0));
    assert_eq!(e, q(0x80f8_0880, 0, 0x80f8_f8f8, 0));
    // ppac5 is the inverse on these values (the low 3 bits of each byte drop).
    assert_eq!(run(mmi0(0x1f, 3, 0, 2), 0, e), q(c, 0, 0xffff, 0));
    assert_eq!(
        run(mmi0(0x1f, 3, 0, 2), 0, q(0x7f07_0707, 0, 0, 0)),
        q(0, 0, 0, 0)
    );
}

#[test]
fn logic() {
    let s = q(0xf0f0_f0f0, 0, u32::MAX, 0x1234_5678);
    let t = q(0xff00_ff00, u32::MAX, 0, 0x1234_5678);
    assert_eq!(run(mmi2(0x12, 3, 1, 2), s, t), s & t);
    assert_eq!(run(mmi2(0x13, 3, 1, 2), s, t), s ^ t);
    assert_eq!(run(mmi3(0x12, 3, 1, 2), s, t), s | t);
    assert_eq!(run(mmi3(0x13, 3, 1, 2), s, t), !(s | t));
}

#[test]
fn parallel_shifts() {
    let t = qh([0x8001, 1, 0xffff, 0, 0x4000, 2, 3, 0x8000]);
    assert_eq!(
        run(mmi(0x34, 3, 0, 2, 4), 0, t), // psllh 4
        qh([0x0010, 0x10, 0xfff0, 0, 0, 0x20, 0x30, 0])
    );
    assert_eq!(
        run(mmi(0x36, 3, 0, 2, 15), 0, t), // psrlh 15
        qh([1, 0, 1, 0, 0, 0, 0, 1])
    );
    assert_eq!(
        run(mmi(0x37, 3, 0, 2, 15), 0, t), // psrah 15
        qh([0xffff, 0, 0xffff, 0, 0, 0, 0, 0xffff])
    );
    let t = q(0x8000_0001, 1, 0xffff_ffff, 0x4000_0000);
    assert_eq!(
        run(mmi(0x3c, 3, 0, 2, 31), 0, t),
        q(0x8000_0000, 0x8000_0000, 0x8000_0000, 0)
    );
    assert_eq!(run(mmi(0x3e, 3, 0, 2, 31), 0, t), q(1, 0, 1, 0));
    assert_eq!(
        run(mmi(0x3f, 3, 0, 2, 31), 0, t),
        q(u32::MAX, 0, u32::MAX, 0)
    );
    // Variable word shifts: words 0 and 2, results sign-extended to 64 bits.
    let s = q(33, 99, 4, 99);
    let t = q(0x4000_0001, 7, 0x8000_0000, 7);
    assert_eq!(
        run(mmi2(0x02, 3, 1, 2), s, t),
        q(0x8000_0002, u32::MAX, 0, 0)
    );
    assert_eq!(
        run(mmi2(0x03, 3, 1, 2), s, t),
        q(0x2000_0000, 0, 0x0800_0000, 0)
    );
    assert_eq!(
        run(mmi3(0x03, 3, 1, 2), s, t),
        q(0x2000_0000, 0, 0xf800_0000, u32::MAX)
    );
    // psrlvw by 0 of a negative word: still sign-extended.
    assert_eq!(
        run(mmi2(0x03, 3, 1, 2), 0, q(0x8000_0000, 0, 0, 0)),
        q(0x8000_0000, u32::MAX, 0, 0)
    );
}

#[test]
fn qfsrv_funnel_shift() {
    let s = q(0x1234_5678, 0x9abc_def0, 0x1122_3344, 0xdead_beef);
    let t = q(0xaabb_ccdd, 0x1212_1212, 0xffff_ffff, 0x1337_c0de);
    let shifted = |sa_bytes: u32| {
        let m = exec1(mmi1(0x1b, 3, 1, 2), |m| {
            m.cpu.gpr[1] = s;
            m.cpu.gpr[2] = t;
            m.cpu.sa = sa_bytes * 8;
        });
        m.cpu.gpr[3]
    };
    assert_eq!(shifted(0), t);
    assert_eq!(
        shifted(1),
        q(0x12aa_bbcc, 0xff12_1212, 0xdeff_ffff, 0x7813_37c0)
    );
    assert_eq!(
        shifted(4),
        q(0x1212_1212, 0xffff_ffff, 0x1337_c0de, 0x1234_5678)
    );
    assert_eq!(
        shifted(8),
        q(0xffff_ffff, 0x1337_c0de, 0x1234_5678, 0x9abc_def0)
    );
    assert_eq!(
        shifted(15),
        q(0x3456_7813, 0xbcde_f012, 0x2233_449a, 0xadbe_ef11)
    );
}

#[test]
fn plzcw_counts_sign_bits() {
    let m = exec1(mmi(0x04, 3, 1, 0, 0), |m| {
        m.cpu.gpr[1] = q(0, 0xffff_ffff, 0, 0);
        m.cpu.gpr[3] = 0xabcd << 64;
    });
    assert_eq!(m.cpu.gpr[3], q(31, 31, 0, 0) | 0xabcd << 64);
    let m = exec1(mmi(0x04, 3, 1, 0, 0), |m| {
        m.cpu.gpr[1] = q(1, 0x8000_0000, 0, 0)
    });
    assert_eq!(m.cpu.gpr[3] as u64, q(30, 0, 0, 0) as u64);
    let m = exec1(mmi(0x04, 3, 1, 0, 0), |m| {
        m.cpu.gpr[1] = q(0xf000_ffff, 0x0000_ffff, 0, 0)
    });
    assert_eq!(m.cpu.gpr[3] as u64, q(3, 15, 0, 0) as u64);
}

#[test]
fn parallel_results_write_all_128_bits_and_rd0_is_ignored() {
    let m = exec1(mmi0(0x00, 3, 1, 2), |m| {
        m.cpu.gpr[1] = q(1, 2, 3, 4);
        m.cpu.gpr[2] = q(1, 1, 1, 1);
        m.cpu.gpr[3] = u128::MAX;
    });
    assert_eq!(m.cpu.gpr[3], q(2, 3, 4, 5));
    let m = exec1(mmi0(0x00, 0, 1, 2), |m| m.cpu.gpr[1] = q(1, 2, 3, 4));
    assert_eq!(m.cpu.gpr[0], 0);
}
