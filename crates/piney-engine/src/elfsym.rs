//! The profile of one of our own programs, from its ELF symbol table (`.symtab`).

use crate::natives::NATIVES;
use crate::profile::{Profile, Symbol, fnv1a64};

/// A symbol table that cannot be read. Each names what and where in the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SymbolError {
    /// Not a 32-bit little-endian ELF.
    #[error("ELF symbols: not a 32-bit little-endian ELF file")]
    NotElf,
    /// A table or entry reaches past the end of the file.
    #[error(
        "ELF symbols: {what} at bytes {start}..{end} is past the end of the file ({len} bytes)"
    )]
    Truncated {
        /// Which part.
        what: String,
        /// Its start.
        start: u64,
        /// Its end.
        end: u64,
        /// The file length.
        len: usize,
    },
    /// No `.symtab` section (a stripped file).
    #[error("ELF symbols: no symbol table (SHT_SYMTAB): the file is stripped")]
    NoSymtab,
    /// A symbol's name is not a terminated string inside the string table.
    #[error(
        "ELF symbols: symbol {index}'s name at string table offset {offset} is not a terminated string"
    )]
    BadName {
        /// The symbol's index.
        index: usize,
        /// The name's offset in the string table.
        offset: u32,
    },
}

fn get<'a>(b: &'a [u8], start: u64, len: u64, what: &str) -> Result<&'a [u8], SymbolError> {
    let end = start.saturating_add(len);
    if end > b.len() as u64 {
        return Err(SymbolError::Truncated {
            what: what.to_string(),
            start,
            end,
            len: b.len(),
        });
    }
    Ok(&b[start as usize..end as usize])
}

fn u16_at(b: &[u8], o: usize) -> u16 {
    u16::from_le_bytes([b[o], b[o + 1]])
}

fn u32_at(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]])
}

/// How many instruction words of each function the derived profile pins.
pub const PINNED_WORDS: usize = 4;

/// One symbol from the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElfSymbol {
    /// Its name.
    pub name: String,
    /// Its value (the address).
    pub value: u32,
    /// Its size in bytes.
    pub size: u32,
    /// A function (STT_FUNC).
    pub function: bool,
}

/// The defined FUNC and OBJECT symbols of an ELF image.
pub fn symbols(image: &[u8]) -> Result<Vec<ElfSymbol>, SymbolError> {
    let eh = get(image, 0, 52, "the ELF header").map_err(|_| SymbolError::NotElf)?;
    if &eh[0..4] != b"\x7fELF" || eh[4] != 1 || eh[5] != 1 {
        return Err(SymbolError::NotElf);
    }
    let shoff = u32_at(eh, 32) as u64;
    let shentsize = u16_at(eh, 46) as u64;
    let shnum = u16_at(eh, 48) as u64;
    if shentsize < 40 {
        return Err(SymbolError::NoSymtab);
    }
    let section = |i: u64| -> Result<&[u8], SymbolError> {
        get(
            image,
            shoff + i * shentsize,
            40,
            &format!("section header {i}"),
        )
    };
    let mut symtab = None;
    for i in 0..shnum {
        let sh = section(i)?;
        if u32_at(sh, 4) == 2 {
            symtab = Some(sh);
            break;
        }
    }
    let sh = symtab.ok_or(SymbolError::NoSymtab)?;
    let (off, size, link, entsize) = (
        u32_at(sh, 16) as u64,
        u32_at(sh, 20) as u64,
        u32_at(sh, 24) as u64,
        u32_at(sh, 36) as u64,
    );
    let table = get(image, off, size, "the symbol table")?;
    let strsh = section(link)?;
    let strtab = get(
        image,
        u32_at(strsh, 16) as u64,
        u32_at(strsh, 20) as u64,
        "the symbol string table",
    )?;
    let entsize = if entsize < 16 { 16 } else { entsize as usize };
    let mut out = Vec::new();
    for (index, e) in table.chunks_exact(entsize).enumerate() {
        let (name_off, value, sz, info, shndx) = (
            u32_at(e, 0),
            u32_at(e, 4),
            u32_at(e, 8),
            e[12],
            u16_at(e, 14),
        );
        let kind = info & 0xf;
        // Defined (not SHN_UNDEF) objects (1) and functions (2).
        if shndx == 0 || !(kind == 1 || kind == 2) {
            continue;
        }
        let bad = SymbolError::BadName {
            index,
            offset: name_off,
        };
        let rest = strtab.get(name_off as usize..).ok_or(bad.clone())?;
        let len = rest.iter().position(|&b| b == 0).ok_or(bad.clone())?;
        let name = String::from_utf8_lossy(&rest[..len]).into_owned();
        if name.is_empty() {
            continue;
        }
        out.push(ElfSymbol {
            name,
            value,
            size: sz,
            function: kind == 2,
        });
    }
    Ok(out)
}

/// The words of the file at guest address `addr`, through the program headers (PT_LOAD).
fn words_at(image: &[u8], addr: u32, n: usize) -> Option<Vec<u32>> {
    let eh = image.get(..52)?;
    let (phoff, phentsize, phnum) = (
        u32_at(eh, 28) as usize,
        u16_at(eh, 42) as usize,
        u16_at(eh, 44) as usize,
    );
    for i in 0..phnum {
        let ph = image.get(phoff + i * phentsize..phoff + i * phentsize + 32)?;
        if u32_at(ph, 0) != 1 {
            continue;
        }
        let (offset, vaddr, filesz) = (u32_at(ph, 4), u32_at(ph, 8), u32_at(ph, 16));
        let end = addr as u64 + 4 * n as u64;
        if addr >= vaddr && end <= vaddr as u64 + filesz as u64 {
            let at = (offset + (addr - vaddr)) as usize;
            let b = image.get(at..at + 4 * n)?;
            return Some(b.chunks_exact(4).map(|w| u32_at(w, 0)).collect());
        }
    }
    None
}

impl Profile {
    /// The profile of one of our own programs: every defined function and data symbol at its
    /// address, each function's first [`PINNED_WORDS`] instruction words (fewer for a shorter
    /// function), the file's hash, and every native function whose guest symbol is present
    /// (see [`NATIVES`]) to be installed.
    pub fn from_elf_symbols(image: &[u8]) -> Result<Profile, SymbolError> {
        let syms = symbols(image)?;
        let mut p = Profile {
            source: "<elf symbols>".to_string(),
            elf_fnv1a64: Some(fnv1a64(image)),
            ..Profile::default()
        };
        for s in syms {
            let words = if s.function {
                let n = PINNED_WORDS.min(s.size as usize / 4);
                words_at(image, s.value, n).unwrap_or_default()
            } else {
                Vec::new()
            };
            p.symbols.insert(
                s.name,
                Symbol {
                    address: Some(s.value),
                    words,
                    note: None,
                },
            );
        }
        p.hooks = NATIVES
            .iter()
            .filter(|n| n.needs.iter().all(|s| p.symbols.contains_key(*s)))
            .map(|n| n.name.to_string())
            .collect();
        Ok(p)
    }
}
