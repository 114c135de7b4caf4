//! Loads and stores: sign/zero extension, unaligned pairs, LQ/SQ alignment, address errors.

#[path = "integer_asm.rs"]
mod asm;
use asm::*;
use piney_ee::cpu::cop0reg;
use piney_ee::exception::ExceptionKind;

const DATA: u32 = 0x8000;

/// A machine whose memory at DATA holds bytes 0x00, 0x11, 0x22 ... 0xff, with r1 = `base`.
fn mem_machine(code: &[u32], base: u32) -> M {
    let mut m = M::new(code);
    for i in 0..16 {
        m.bus.mem[DATA as usize + i] = (i as u8) * 0x11;
    }
    m.set(1, base as u64);
    m
}

#[test]
fn sign_and_zero_extension() {
    let ld = |op, off| {
        let mut m = mem_machine(&[imm(op, 2, 1, off)], DATA);
        m.set(2, 0x5555);
        m.run(1);
        m.get(2)
    };
    assert_eq!(ld(0x20, 9), 0xffff_ffff_ffff_ff99); // lb
    assert_eq!(ld(0x24, 9), 0x99); // lbu
    assert_eq!(ld(0x21, 8), 0xffff_ffff_ffff_9988); // lh
    assert_eq!(ld(0x25, 8), 0x9988); // lhu
    assert_eq!(ld(0x23, 8), 0xffff_ffff_bbaa_9988); // lw
    assert_eq!(ld(0x27, 8), 0xbbaa_9988); // lwu
    assert_eq!(ld(0x37, 8), 0xffee_ddcc_bbaa_9988); // ld
    assert_eq!(ld(0x23, 0), 0x3322_1100);
}

#[test]
fn loads_keep_upper_64_bits() {
    let mut m = mem_machine(&[imm(0x23, 2, 1, 0)], DATA);
    m.cpu.gpr[2] = 0xabcd_u128 << 64;
    m.run(1);
    assert_eq!(m.cpu.gpr[2], 0xabcd_u128 << 64 | 0x3322_1100);
}

#[test]
fn lq_sq_ignore_low_address_bits() {
    let mut m = mem_machine(&[imm(0x1e, 2, 1, 9)], DATA);
    m.run(1);
    assert_eq!(
        m.cpu.gpr[2],
        q(0x3322_1100, 0x7766_5544, 0xbbaa_9988, 0xffee_ddcc)
    );
    let mut m = mem_machine(&[imm(0x1f, 2, 1, 0x17)], DATA);
    m.cpu.gpr[2] = q(1, 2, 3, 4);
    m.run(1);
    assert_eq!(m.peek32(DATA + 0x10), 1);
    assert_eq!(m.peek32(DATA + 0x1c), 4);
    assert_eq!(m.peek32(DATA), 0x3322_1100, "untouched");
}

#[test]
fn stores() {
    let mut m = mem_machine(
        &[
            imm(0x28, 2, 1, 0), // sb
            imm(0x29, 2, 1, 2), // sh
            imm(0x2b, 2, 1, 4), // sw
            imm(0x3f, 2, 1, 8), // sd
        ],
        DATA,
    );
    m.set(2, 0x0102_0304_0506_0708);
    m.run(4);
    assert_eq!(m.peek32(DATA), 0x0708_1108);
    assert_eq!(m.peek32(DATA + 4), 0x0506_0708);
    assert_eq!(m.peek64(DATA + 8), 0x0102_0304_0506_0708);
}

#[test]
fn misaligned_access_raises_address_error() {
    for (op, off, kind) in [
        (0x23, 2, ExceptionKind::AddressLoad),  // lw
        (0x21, 1, ExceptionKind::AddressLoad),  // lh
        (0x37, 4, ExceptionKind::AddressLoad),  // ld
        (0x27, 6, ExceptionKind::AddressLoad),  // lwu
        (0x29, 1, ExceptionKind::AddressStore), // sh
        (0x2b, 2, ExceptionKind::AddressStore), // sw
        (0x3f, 4, ExceptionKind::AddressStore), // sd
    ] {
        let mut m = mem_machine(&[imm(op, 2, 1, off)], DATA);
        m.set(2, 0x77);
        let e = m.step().unwrap_err();
        assert_eq!(e.kind, kind, "op {op:#x}");
        assert_eq!(e.addr, DATA + off as u32);
        assert_eq!(m.cpu.cop0.regs[cop0reg::BAD_VADDR], DATA + off as u32);
        assert_eq!(m.cpu.cop0.regs[cop0reg::EPC], BASE);
        assert_eq!(m.get(2), 0x77, "no effect");
        assert_eq!(m.peek32(DATA), 0x3322_1100, "no effect");
    }
}

#[test]
fn bus_error_on_unmapped_memory() {
    let mut m = mem_machine(&[imm(0x23, 2, 1, 0)], 0x0100_0000);
    assert_eq!(m.step().unwrap_err().kind, ExceptionKind::BusData);
}

#[test]
fn lwl_lwr_unaligned_word() {
    // lwl r2, 3(r1); lwr r2, 0(r1) with r1 = DATA + 1: the word at DATA + 1.
    let mut m = mem_machine(&[imm(0x22, 2, 1, 3), imm(0x26, 2, 1, 0)], DATA + 1);
    m.set(2, 0xffff_ffff_ffff_ffff);
    m.run(2);
    assert_eq!(m.get(2), 0x4433_2211);
    // The same with a negative word: at DATA + 9 the bytes are 99 aa bb cc.
    let mut m = mem_machine(&[imm(0x22, 2, 1, 3), imm(0x26, 2, 1, 0)], DATA + 9);
    m.run(2);
    assert_eq!(m.get(2), 0xffff_ffff_ccbb_aa99);
}

#[test]
fn lwl_lwr_partial_merges() {
    // lwr at offset 2: low half from memory, bits 32-63 kept.
    let mut m = mem_machine(&[imm(0x26, 2, 1, 2)], DATA);
    m.set(2, 0xaaaa_bbbb_cccc_dddd);
    m.run(1);
    assert_eq!(m.get(2), 0xaaaa_bbbb_cccc_3322);
    // lwr at offset 0 loads the whole word and sign-extends.
    let mut m = mem_machine(&[imm(0x26, 2, 1, 8)], DATA);
    m.set(2, 0x1234);
    m.run(1);
    assert_eq!(m.get(2), 0xffff_ffff_bbaa_9988);
    // lwl at offset 1: top two bytes from memory, sign-extended.
    let mut m = mem_machine(&[imm(0x22, 2, 1, 1)], DATA);
    m.set(2, 0xaaaa_bbbb_cccc_dddd);
    m.run(1);
    assert_eq!(m.get(2), 0x1100_dddd);
}

#[test]
fn ldl_ldr_unaligned_doubleword() {
    let mut m = mem_machine(&[imm(0x1a, 2, 1, 7), imm(0x1b, 2, 1, 0)], DATA + 3);
    m.set(2, 0x0123_4567_89ab_cdef);
    m.run(2);
    assert_eq!(m.get(2), 0xaa99_8877_6655_4433);
    // ldl alone at offset 2 of a doubleword: top 3 bytes from memory.
    let mut m = mem_machine(&[imm(0x1a, 2, 1, 10)], DATA);
    m.set(2, 0x0123_4567_89ab_cdef);
    m.run(1);
    assert_eq!(m.get(2), 0xaa99_8867_89ab_cdef);
}

#[test]
fn swl_swr_unaligned_word() {
    let mut m = mem_machine(&[imm(0x2a, 2, 1, 3), imm(0x2e, 2, 1, 0)], DATA + 1);
    m.set(2, 0x4433_2211 ^ 0xffff_ffff);
    m.run(2);
    // Bytes DATA+1..DATA+4 = ee dd cc bb, the rest unchanged.
    assert_eq!(m.peek32(DATA), 0xccdd_ee00);
    assert_eq!(m.peek32(DATA + 4), 0x7766_55bb);
}

#[test]
fn sdl_sdr_unaligned_doubleword() {
    let mut m = mem_machine(&[imm(0x2c, 2, 1, 7), imm(0x2d, 2, 1, 0)], DATA + 3);
    m.set(2, 0x0807_0605_0403_0201);
    m.run(2);
    assert_eq!(m.peek64(DATA), 0x0504_0302_0122_1100);
    assert_eq!(m.peek64(DATA + 8), 0xffee_ddcc_bb08_0706);
}

#[test]
fn pref_cache_sync_do_nothing() {
    let mut m = mem_machine(
        &[
            imm(0x33, 0, 1, 0),
            imm(0x2f, 7, 1, 8),
            sp(0x0f, 0, 0, 0, 0),
            sp(0x0f, 0, 0, 0, 0x10),
        ],
        DATA,
    );
    let before = m.cpu.clone();
    m.run(4);
    assert_eq!(m.cpu.gpr, before.gpr);
    assert_eq!(m.cpu.pc, BASE + 16);
}
