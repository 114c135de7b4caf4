//! IRX modules: the IOP's relocatable ELF executables.
//!
//! Contract: [`parse`] checks an image completely (ELF header, the two program headers, every
//! relocation's kind and place) before anything is loaded, and reports one clear
//! [`IrxError`] naming the module, what and where; [`Irx::relocate`] then produces the module's
//! bytes for a load address exactly as the console's loadcore applies them.
//!
//! The format (the console's `ET_SCE_IOPRELEXEC`): an ELF32 little-endian MIPS file of type
//! 0xff80 (or 0xff81); program header 0 has type 0x70000080 and points at the `.iopmod`
//! record { module id pointer, entry, gp, text size, data size, bss size, u16 version, name };
//! program header 1 is the image (vaddr 0; memsz includes the bss). Sections of type SHT_REL
//! hold the relocations, with offsets from the image's start:
//! - R_MIPS_32 (2): the word += base;
//! - R_MIPS_26 (4): the jump's 26-bit target += base >> 2 (within the 256 MiB segment);
//! - R_MIPS_HI16 (5): paired with the *next* relocation's LO16 to form the full address:
//!   hi = ((hi << 16) + (s16)lo + base + 0x8000) >> 16;
//! - R_MIPS_LO16 (6): the low half += base;
//! - R_MIPSSCE_MHI16 (250) + R_MIPSSCE_ADDEND (251): a chain of HI16s (linked through their
//!   immediates, in words) all set to the high half of base + the ADDEND's offset;
//! - R_MIPS_NONE (0), R_MIPS_16 (1), and R_MIPS_PC16 (10), R_MIPS_GPREL16 (7) in a module
//!   linked without gp use: the console leaves them alone; piney too.
//!
//! An ELF of type ET_EXEC (2) with absolute addresses is also a console module format; it is
//! loaded at its own address without relocation.

use std::fmt;

/// The largest module image accepted (the IOP has 2 MiB of RAM).
pub const MAX_IMAGE: usize = 2 * 1024 * 1024;

/// Why an image is not a loadable module.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct IrxError {
    /// The module's file name or path, as given.
    pub module: String,
    /// What is wrong, and where.
    pub what: String,
}

impl fmt::Display for IrxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The path may be one a guest program asked for.
        write!(
            f,
            "module {}: {}",
            crate::text(&self.module),
            crate::text(&self.what)
        )
    }
}

impl std::error::Error for IrxError {}

/// A relocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Reloc {
    /// Offset from the image's start.
    pub offset: u32,
    /// The type (low byte of r_info).
    pub kind: u8,
}

/// A parsed, checked module.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Irx {
    /// The module name from .iopmod.
    pub name: String,
    /// The module version (major << 8 | minor).
    pub version: u16,
    /// The module id record's offset (0xffff_ffff: none).
    pub mod_id: u32,
    /// The entry point's offset.
    pub entry: u32,
    /// gp's offset.
    pub gp: u32,
    /// Sizes from .iopmod.
    pub text_size: u32,
    /// Data size.
    pub data_size: u32,
    /// Bss size.
    pub bss_size: u32,
    /// The file part of the image.
    pub image: Vec<u8>,
    /// The memory size (file part and bss).
    pub mem_size: u32,
    /// Relocations, in file order.
    pub relocs: Vec<Reloc>,
    /// Whether the module is absolute (ET_EXEC): loaded at `load_addr` without relocation.
    pub absolute: Option<u32>,
}

/// Relocation types.
pub mod r {
    /// Nothing.
    pub const NONE: u8 = 0;
    /// A 16-bit field.
    pub const R16: u8 = 1;
    /// A word.
    pub const R32: u8 = 2;
    /// A jump target.
    pub const R26: u8 = 4;
    /// The high half of a HI16/LO16 pair.
    pub const HI16: u8 = 5;
    /// The low half.
    pub const LO16: u8 = 6;
    /// gp-relative (never in a -G0 module).
    pub const GPREL16: u8 = 7;
    /// PC-relative branch (position independent: nothing to do).
    pub const PC16: u8 = 10;
    /// SCE: a chain of HI16s.
    pub const MHI16: u8 = 250;
    /// SCE: the MHI16 chain's address.
    pub const ADDEND: u8 = 251;
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    b.get(at..at + 2).map(|s| u16::from_le_bytes([s[0], s[1]]))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    b.get(at..at + 4)
        .map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

/// Parse and check a module image. `module` names it in errors.
pub fn parse(module: &str, data: &[u8]) -> Result<Irx, IrxError> {
    let err = |what: String| IrxError {
        module: module.to_string(),
        what,
    };
    if data.len() > MAX_IMAGE {
        return Err(err(format!(
            "{} bytes is larger than the IOP's memory",
            data.len()
        )));
    }
    if data.len() < 52 {
        return Err(err(format!(
            "truncated: {} bytes is shorter than an ELF header",
            data.len()
        )));
    }
    if &data[0..4] != b"\x7fELF" {
        return Err(err("not an ELF file (bad magic)".into()));
    }
    if data[4] != 1 || data[5] != 1 {
        return Err(err("not a 32-bit little-endian ELF".into()));
    }
    let h16 = |at: usize| u16_at(data, at).unwrap_or(0);
    let h32 = |at: usize| u32_at(data, at).unwrap_or(0);
    let e_type = h16(16);
    let machine = h16(18);
    if machine != 8 {
        return Err(err(format!("not a MIPS ELF (machine {machine})")));
    }
    let (phoff, shoff) = (h32(28) as usize, h32(32) as usize);
    let (phentsize, phnum) = (h16(42) as usize, h16(44) as usize);
    let (shentsize, shnum) = (h16(46) as usize, h16(48) as usize);
    let relexec = e_type == 0xff80 || e_type == 0xff81;
    if !relexec && e_type != 2 {
        return Err(err(format!(
            "ELF type {e_type:#x} is not an IOP module (0xff80) or executable (2)"
        )));
    }
    if phentsize < 32 || phnum < 2 {
        return Err(err(format!(
            "{phnum} program headers of {phentsize} bytes: a module needs the .iopmod and the image headers"
        )));
    }
    let ph = |i: usize, f: usize| -> Result<u32, IrxError> {
        let at = phoff
            .checked_add(i * phentsize + f)
            .ok_or_else(|| err("program header offset overflows".into()))?;
        u32_at(data, at).ok_or_else(|| {
            err(format!(
                "truncated: program header {i} at {phoff:#x} lies past the end ({} bytes)",
                data.len()
            ))
        })
    };
    // Program header 0: .iopmod.
    if ph(0, 0)? != 0x7000_0080 {
        return Err(err(format!(
            "program header 0 has type {:#x}, not the .iopmod header (0x70000080)",
            ph(0, 0)?
        )));
    }
    let iopmod = ph(0, 4)? as usize;
    let rec = |f: usize| -> Result<u32, IrxError> {
        u32_at(data, iopmod + f).ok_or_else(|| {
            err(format!(
                "truncated: the .iopmod record at {iopmod:#x} lies past the end"
            ))
        })
    };
    let mod_id = rec(0)?;
    let entry = rec(4)?;
    let gp = rec(8)?;
    let text_size = rec(12)?;
    let data_size = rec(16)?;
    let bss_size = rec(20)?;
    let version = u16_at(data, iopmod + 24)
        .ok_or_else(|| err("truncated: the .iopmod record has no version".into()))?;
    let name_start = iopmod + 26;
    let name_bytes = data.get(name_start..).unwrap_or(&[]);
    let name_len = name_bytes
        .iter()
        .take(64)
        .position(|&c| c == 0)
        .unwrap_or(0);
    let name = String::from_utf8_lossy(&name_bytes[..name_len]).into_owned();
    // Program header 1: the image.
    let (off, vaddr, filesz, memsz) = (ph(1, 4)?, ph(1, 8)?, ph(1, 16)?, ph(1, 20)?);
    if ph(1, 0)? != 1 {
        return Err(err(format!(
            "program header 1 has type {:#x}, not the loadable image (1)",
            ph(1, 0)?
        )));
    }
    if memsz as usize > MAX_IMAGE || filesz > memsz {
        return Err(err(format!(
            "image of {filesz:#x} file bytes and {memsz:#x} memory bytes does not fit the IOP"
        )));
    }
    let image = data
        .get(off as usize..off as usize + filesz as usize)
        .ok_or_else(|| {
            err(format!(
                "truncated: the image ({filesz:#x} bytes at {off:#x}) lies past the end ({:#x} bytes)",
                data.len()
            ))
        })?
        .to_vec();
    if (text_size as u64 + data_size as u64 + bss_size as u64) > memsz as u64 + 16 {
        return Err(err(format!(
            ".iopmod sizes (text {text_size:#x}, data {data_size:#x}, bss {bss_size:#x}) exceed the image ({memsz:#x})"
        )));
    }
    if entry >= memsz.max(1) && relexec {
        return Err(err(format!(
            "entry {entry:#x} lies outside the image ({memsz:#x} bytes)"
        )));
    }
    // Relocations.
    let mut relocs = Vec::new();
    if relexec {
        if shnum > 0 && shentsize < 40 {
            return Err(err(format!("section headers of {shentsize} bytes")));
        }
        for i in 0..shnum {
            let at = shoff.saturating_add(i * shentsize);
            let sh = |f: usize| -> Result<u32, IrxError> {
                u32_at(data, at + f).ok_or_else(|| {
                    err(format!(
                        "truncated: section header {i} at {at:#x} lies past the end"
                    ))
                })
            };
            if sh(4)? != 9 {
                continue;
            }
            let (roff, rsize, entsize) = (sh(16)? as usize, sh(20)? as usize, sh(36)? as usize);
            if entsize < 8 {
                return Err(err(format!(
                    "relocation section {i} has entries of {entsize} bytes"
                )));
            }
            let table = data.get(roff..roff.saturating_add(rsize)).ok_or_else(|| {
                err(format!(
                    "truncated: relocation section {i} ({rsize:#x} bytes at {roff:#x}) lies past the end"
                ))
            })?;
            for (k, e) in table.chunks_exact(entsize).enumerate() {
                let offset = u32::from_le_bytes([e[0], e[1], e[2], e[3]]);
                let kind = e[4];
                let known = matches!(
                    kind,
                    r::NONE
                        | r::R16
                        | r::R32
                        | r::R26
                        | r::HI16
                        | r::LO16
                        | r::GPREL16
                        | r::PC16
                        | r::MHI16
                        | r::ADDEND
                );
                if !known {
                    return Err(err(format!(
                        "relocation {k} of section {i}: unknown type {kind} at offset {offset:#x}"
                    )));
                }
                if kind != r::NONE && offset.saturating_add(4) > memsz {
                    return Err(err(format!(
                        "relocation {k} of section {i} (type {kind}) at offset {offset:#x} lies outside the module ({memsz:#x} bytes)"
                    )));
                }
                // A relocation into the bss is applied to its zeroed word: loadcore copies the
                // file part, zeroes the bss, then relocates the whole image.
                relocs.push(Reloc { offset, kind });
            }
        }
        for (i, rl) in relocs.iter().enumerate() {
            if rl.kind == r::HI16 && relocs.get(i + 1).is_none_or(|n| n.kind != r::LO16) {
                return Err(err(format!(
                    "the HI16 relocation at offset {:#x} is not followed by its LO16",
                    rl.offset
                )));
            }
            if rl.kind == r::MHI16 && relocs.get(i + 1).is_none_or(|n| n.kind != r::ADDEND) {
                return Err(err(format!(
                    "the MHI16 relocation at offset {:#x} is not followed by its ADDEND",
                    rl.offset
                )));
            }
        }
    }
    Ok(Irx {
        name,
        version,
        mod_id,
        entry,
        gp,
        text_size,
        data_size,
        bss_size,
        image,
        mem_size: memsz,
        relocs,
        absolute: (!relexec).then_some(vaddr),
    })
}

impl Irx {
    /// The module's memory (file part, then zeroed bss) relocated for `base`.
    pub fn relocate(&self, base: u32) -> Vec<u8> {
        let mut m = self.image.clone();
        m.resize(self.mem_size as usize, 0);
        if self.absolute.is_some() {
            return m;
        }
        let rd = |m: &Vec<u8>, at: u32| u32_at(m, at as usize).unwrap_or(0);
        let wr = |m: &mut Vec<u8>, at: u32, v: u32| {
            if let Some(s) = m.get_mut(at as usize..at as usize + 4) {
                s.copy_from_slice(&v.to_le_bytes());
            }
        };
        let mut i = 0;
        while i < self.relocs.len() {
            let rl = self.relocs[i];
            let w = rd(&m, rl.offset);
            match rl.kind {
                r::R16 => {
                    let v = base.wrapping_add(w as u16 as i16 as i32 as u32);
                    wr(&mut m, rl.offset, (w & 0xffff_0000) | (v & 0xffff));
                }
                r::R32 => wr(&mut m, rl.offset, w.wrapping_add(base)),
                r::R26 => {
                    let target =
                        base.wrapping_add((rl.offset & 0xf000_0000) | ((w & 0x03ff_ffff) << 2));
                    wr(
                        &mut m,
                        rl.offset,
                        (w & 0xfc00_0000) | ((target >> 2) & 0x03ff_ffff),
                    );
                }
                r::HI16 => {
                    let lo_at = self.relocs[i + 1].offset;
                    let lo = rd(&m, lo_at) as u16 as i16 as i32 as u32;
                    let full = base.wrapping_add(lo).wrapping_add(w << 16);
                    let hi = (full.wrapping_add(0x8000) >> 16) & 0xffff;
                    wr(&mut m, rl.offset, (w & 0xffff_0000) | hi);
                }
                r::LO16 => {
                    let v = base.wrapping_add(w) & 0xffff;
                    wr(&mut m, rl.offset, (w & 0xffff_0000) | v);
                }
                r::MHI16 => {
                    let addend = self.relocs[i + 1].offset;
                    let hi = (base.wrapping_add(addend).wrapping_add(0x8000) >> 16) & 0xffff;
                    // The HI16s are chained through their immediates (a word offset, 0 ends).
                    let mut at = rl.offset;
                    for _ in 0..self.mem_size / 4 {
                        let x = rd(&m, at);
                        let step = ((x as u16 as i16) as i32) << 2;
                        wr(&mut m, at, (x & 0xffff_0000) | hi);
                        if step == 0 {
                            break;
                        }
                        at = at.wrapping_add(step as u32);
                        if at as usize + 4 > m.len() {
                            break;
                        }
                    }
                    i += 1;
                }
                _ => {}
            }
            i += 1;
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal module: .iopmod at 0x100, image at 0x200, one REL section at 0x300.
    fn module(code: &[u32], relocs: &[(u32, u8)], bss: u32) -> Vec<u8> {
        let mut f = vec![0u8; 0x400];
        f[0..4].copy_from_slice(b"\x7fELF");
        f[4] = 1;
        f[5] = 1;
        f[6] = 1;
        f[16..18].copy_from_slice(&0xff80u16.to_le_bytes());
        f[18..20].copy_from_slice(&8u16.to_le_bytes());
        f[28..32].copy_from_slice(&52u32.to_le_bytes());
        f[32..36].copy_from_slice(&0x380u32.to_le_bytes());
        f[42..44].copy_from_slice(&32u16.to_le_bytes());
        f[44..46].copy_from_slice(&2u16.to_le_bytes());
        f[46..48].copy_from_slice(&40u16.to_le_bytes());
        f[48..50].copy_from_slice(&2u16.to_le_bytes());
        let put =
            |f: &mut Vec<u8>, at: usize, v: u32| f[at..at + 4].copy_from_slice(&v.to_le_bytes());
        let size = (code.len() * 4) as u32;
        // phdr 0: iopmod.
        put(&mut f, 52, 0x7000_0080);
        put(&mut f, 56, 0x100);
        // phdr 1: the image.
        put(&mut f, 84, 1);
        put(&mut f, 88, 0x200);
        put(&mut f, 100, size);
        put(&mut f, 104, size + bss);
        // .iopmod: no module id, entry 0, gp 0, text = size.
        put(&mut f, 0x100, 0xffff_ffff);
        put(&mut f, 0x10c, size);
        put(&mut f, 0x114, bss);
        f[0x118..0x11a].copy_from_slice(&0x0101u16.to_le_bytes());
        f[0x11a..0x11e].copy_from_slice(b"test");
        for (i, w) in code.iter().enumerate() {
            put(&mut f, 0x200 + 4 * i, *w);
        }
        for (i, (off, kind)) in relocs.iter().enumerate() {
            put(&mut f, 0x300 + 8 * i, *off);
            put(&mut f, 0x304 + 8 * i, *kind as u32);
        }
        // Section 1: SHT_REL.
        put(&mut f, 0x380 + 40 + 4, 9);
        put(&mut f, 0x380 + 40 + 16, 0x300);
        put(&mut f, 0x380 + 40 + 20, 8 * relocs.len() as u32);
        put(&mut f, 0x380 + 40 + 36, 8);
        f.resize(0x380 + 80, 0);
        f
    }

    fn word(m: &[u8], i: usize) -> u32 {
        u32::from_le_bytes(m[4 * i..4 * i + 4].try_into().unwrap())
    }

    #[test]
    fn relocations_as_loadcore_applies_them() {
        // 0: .word 8 (R_MIPS_32); 1: jal 0x10 (R_MIPS_26); 2: lui at, 0 (HI16) 3: addiu at,
        // at, 0x8004 (LO16: -0x7ffc, the carry case); 4: lui (HI16) 5: lw, 0x0010 (LO16).
        let code = [
            8,
            0x0c00_0004,
            0x3c01_0000,
            0x2421_8004,
            0x3c02_0001,
            0x8c42_0010,
        ];
        let relocs = [(0, 2), (4, 4), (8, 5), (12, 6), (16, 5), (20, 6)];
        let irx = parse("t", &module(&code, &relocs, 16)).unwrap();
        assert_eq!(irx.name, "test");
        assert_eq!(irx.mem_size, 24 + 16);
        let m = irx.relocate(0x0001_7ff0);
        assert_eq!(word(&m, 0), 0x0001_7ff8);
        assert_eq!(word(&m, 1), 0x0c00_0000 | ((0x0001_7ff0 + 0x10) >> 2));
        // 0x17ff0 + (-0x7ffc) = 0xfff4: hi 0x0001 after the carry (0xfff4 + 0x8000 >> 16).
        assert_eq!(word(&m, 2) & 0xffff, 0x0001);
        assert_eq!(word(&m, 3) & 0xffff, (0x17ff0u32 + 0x8004) & 0xffff);
        // 0x10000 + 0x10 + 0x17ff0 = 0x28000: hi 0x0003 (0x28000 + 0x8000 = 0x30000).
        assert_eq!(word(&m, 4) & 0xffff, 0x0003);
        assert_eq!(word(&m, 5) & 0xffff, 0x8000);
        assert!(m[24..].iter().all(|&b| b == 0), "bss zeroed");
    }

    #[test]
    fn a_relocation_into_the_bss_relocates_the_zeroed_word() {
        // Word 2 is the bss's first: an R_MIPS_32 there becomes the load address.
        let irx = parse("t", &module(&[0, 0], &[(8, 2)], 16)).unwrap();
        let m = irx.relocate(0x0002_0000);
        assert_eq!(word(&m, 2), 0x0002_0000);
        assert!(m[12..].iter().all(|&b| b == 0));
    }

    #[test]
    fn bad_images_are_one_clear_error() {
        let good = module(&[0, 0], &[(0, 2)], 0);
        assert!(parse("m", &good).is_ok());
        let e = parse("m.irx", &good[..40]).unwrap_err();
        assert!(
            e.to_string().contains("m.irx") && e.to_string().contains("truncated"),
            "{e}"
        );
        let mut bad = good.clone();
        bad[0] = 0;
        assert!(parse("m", &bad).unwrap_err().what.contains("magic"));
        let e = parse("m", &module(&[0], &[(0, 5)], 0)).unwrap_err();
        assert!(e.what.contains("not followed by its LO16"), "{e}");
        let e = parse("m", &module(&[0], &[(0x100, 2)], 0)).unwrap_err();
        assert!(e.what.contains("outside the module"), "{e}");
        let e = parse("m", &module(&[0], &[(0, 99)], 0)).unwrap_err();
        assert!(e.what.contains("unknown type 99"), "{e}");
        // Every truncation of a good module is an error, never a panic.
        for n in 0..good.len() {
            let _ = parse("m", &good[..n]);
        }
    }
}
