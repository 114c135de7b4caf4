//! The ELF loader: good images load, bad ones give a clear error and never panic.

use piney_machine::elf::{ElfError, parse};
use piney_machine::{Machine, MachineError};

/// A minimal MIPS executable: one PT_LOAD segment of `code` at `vaddr`, entry at `vaddr`.
fn tiny_elf(vaddr: u32, code: &[u8], memsz_extra: u32) -> Vec<u8> {
    let mut f = vec![0u8; 52 + 32];
    f[0..4].copy_from_slice(b"\x7fELF");
    f[4] = 1; // 32-bit
    f[5] = 1; // little-endian
    f[6] = 1; // version
    f[16..18].copy_from_slice(&2u16.to_le_bytes()); // ET_EXEC
    f[18..20].copy_from_slice(&8u16.to_le_bytes()); // EM_MIPS
    f[20..24].copy_from_slice(&1u32.to_le_bytes());
    f[24..28].copy_from_slice(&vaddr.to_le_bytes()); // entry
    f[28..32].copy_from_slice(&52u32.to_le_bytes()); // phoff
    f[40..42].copy_from_slice(&52u16.to_le_bytes()); // ehsize
    f[42..44].copy_from_slice(&32u16.to_le_bytes()); // phentsize
    f[44..46].copy_from_slice(&1u16.to_le_bytes()); // phnum
    let ph = &mut f[52..84];
    ph[0..4].copy_from_slice(&1u32.to_le_bytes()); // PT_LOAD
    ph[4..8].copy_from_slice(&84u32.to_le_bytes()); // offset
    ph[8..12].copy_from_slice(&vaddr.to_le_bytes());
    ph[12..16].copy_from_slice(&vaddr.to_le_bytes());
    ph[16..20].copy_from_slice(&(code.len() as u32).to_le_bytes());
    ph[20..24].copy_from_slice(&(code.len() as u32 + memsz_extra).to_le_bytes());
    f.extend_from_slice(code);
    f
}

fn sink() -> Box<dyn std::io::Write> {
    Box::new(std::io::sink())
}

#[test]
fn loads_segments_and_zeroes_the_rest() {
    let code = [0x78u8, 0x56, 0x34, 0x12];
    let mut m = Machine::new(sink());
    m.bus.ram[0x100004] = 0xaa; // must be zeroed: inside memsz
    m.load_elf(&tiny_elf(0x0010_0000, &code, 8)).unwrap();
    assert_eq!(&m.bus.ram[0x100000..0x100004], &code);
    assert_eq!(m.bus.ram[0x100004], 0);
    assert_eq!(m.cpu.pc, 0x0010_0000);
}

#[test]
fn rejects_what_is_not_a_mips_executable() {
    let good = tiny_elf(0x0010_0000, &[0; 4], 0);
    let mut bad_magic = good.clone();
    bad_magic[0] = 0;
    assert_eq!(parse(&bad_magic), Err(ElfError::BadMagic));
    let mut x86 = good.clone();
    x86[18] = 3;
    assert!(matches!(parse(&x86), Err(ElfError::WrongKind(m)) if m.contains("machine 3")));
    let mut big = good.clone();
    big[5] = 2;
    assert!(matches!(parse(&big), Err(ElfError::WrongKind(_))));
    let mut elf64 = good;
    elf64[4] = 2;
    assert!(matches!(parse(&elf64), Err(ElfError::WrongKind(_))));
}

#[test]
fn rejects_segments_outside_ram() {
    let mut m = Machine::new(sink());
    let e = m.load_elf(&tiny_elf(0x1000_0000, &[0; 4], 0)).unwrap_err();
    assert!(matches!(
        e,
        MachineError::Load(ElfError::OutsideRam {
            vaddr: 0x1000_0000,
            ..
        })
    ));
    // Straddling the end of RDRAM.
    let e = m.load_elf(&tiny_elf(0x01ff_fffc, &[0; 8], 0)).unwrap_err();
    assert!(matches!(e, MachineError::Load(ElfError::OutsideRam { .. })));
    // Scratchpad and kseg0 are fine.
    m.load_elf(&tiny_elf(0x7000_0000, &[1; 8], 0)).unwrap();
    m.load_elf(&tiny_elf(0x8010_0000, &[1; 8], 0)).unwrap();
}

#[test]
fn every_truncation_is_an_error_not_a_panic() {
    let good = tiny_elf(0x0010_0000, &[1, 2, 3, 4, 5, 6, 7, 8], 16);
    for len in 0..good.len() {
        let r = parse(&good[..len]);
        assert!(r.is_err(), "truncated to {len} bytes must fail");
        let msg = r.unwrap_err().to_string();
        assert!(msg.starts_with("ELF:"), "{msg}");
    }
    assert!(parse(&good).is_ok());
}

#[test]
fn corrupt_bytes_never_panic() {
    // A deterministic xorshift walk over single-byte and multi-byte corruptions of a good image.
    let good = tiny_elf(0x0010_0000, &[1, 2, 3, 4, 5, 6, 7, 8], 16);
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut m = Machine::new(sink());
    for _ in 0..5_000 {
        let mut img = good.clone();
        for _ in 0..1 + next() % 4 {
            let i = (next() % img.len() as u64) as usize;
            img[i] = next() as u8;
        }
        let _ = m.load_elf(&img);
    }
}

#[test]
fn file_size_beyond_memory_size_is_rejected() {
    let mut img = tiny_elf(0x0010_0000, &[0; 8], 0);
    img[52 + 20..52 + 24].copy_from_slice(&4u32.to_le_bytes());
    assert!(matches!(
        parse(&img),
        Err(ElfError::BadSegment {
            filesz: 8,
            memsz: 4,
            ..
        })
    ));
}
