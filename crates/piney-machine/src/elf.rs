//! The ELF loader: 32-bit little-endian MIPS executables, PT_LOAD segments copied into guest
//! memory by their virtual address, the rest of each segment's memory size zeroed.
//! Every malformed input gives an [`ElfError`] naming what is wrong; nothing panics.

use crate::bus::EeBus;

/// A bad ELF.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ElfError {
    /// Shorter than a header or a table it points to.
    #[error("ELF: truncated ({what} needs bytes {start}..{end}, file has {len})")]
    Truncated {
        /// Which part.
        what: &'static str,
        /// Start offset.
        start: u64,
        /// End offset.
        end: u64,
        /// File length.
        len: usize,
    },
    /// Not an ELF file.
    #[error("ELF: not an ELF file (bad magic)")]
    BadMagic,
    /// Not 32-bit little-endian MIPS.
    #[error("ELF: not a 32-bit little-endian MIPS executable ({0})")]
    WrongKind(String),
    /// A segment that does not fit in guest memory.
    #[error("ELF: segment {index} at {vaddr:#010x} (+{size:#x} bytes) is outside guest RAM")]
    OutsideRam {
        /// Program header index.
        index: usize,
        /// Its address.
        vaddr: u32,
        /// Its memory size.
        size: u32,
    },
    /// A segment whose file size exceeds its memory size.
    #[error("ELF: segment {index} has file size {filesz:#x} larger than memory size {memsz:#x}")]
    BadSegment {
        /// Program header index.
        index: usize,
        /// File size.
        filesz: u32,
        /// Memory size.
        memsz: u32,
    },
    /// No loadable segment.
    #[error("ELF: no loadable segment")]
    Empty,
}

fn slice<'a>(
    image: &'a [u8],
    what: &'static str,
    start: u64,
    len: u64,
) -> Result<&'a [u8], ElfError> {
    let end = start + len;
    if end > image.len() as u64 {
        return Err(ElfError::Truncated {
            what,
            start,
            end,
            len: image.len(),
        });
    }
    Ok(&image[start as usize..end as usize])
}

fn u16_at(b: &[u8], o: usize) -> u16 {
    u16::from_le_bytes([b[o], b[o + 1]])
}
fn u32_at(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]])
}

/// One loadable segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    /// File offset.
    pub offset: u32,
    /// Load address.
    pub vaddr: u32,
    /// Bytes in the file.
    pub filesz: u32,
    /// Bytes in memory (the rest zeroed).
    pub memsz: u32,
}

/// A parsed executable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Elf {
    /// The entry point.
    pub entry: u32,
    /// The PT_LOAD segments.
    pub segments: Vec<Segment>,
}

/// Parse the headers.
pub fn parse(image: &[u8]) -> Result<Elf, ElfError> {
    let h = slice(image, "ELF header", 0, 52)?;
    if &h[0..4] != b"\x7fELF" {
        return Err(ElfError::BadMagic);
    }
    if h[4] != 1 {
        return Err(ElfError::WrongKind(format!("class {} is not 32-bit", h[4])));
    }
    if h[5] != 1 {
        return Err(ElfError::WrongKind("big-endian".into()));
    }
    let machine = u16_at(h, 18);
    if machine != 8 {
        return Err(ElfError::WrongKind(format!(
            "machine {machine} is not MIPS (8)"
        )));
    }
    let etype = u16_at(h, 16);
    if etype != 2 {
        return Err(ElfError::WrongKind(format!(
            "type {etype} is not an executable (2)"
        )));
    }
    let entry = u32_at(h, 24);
    let phoff = u32_at(h, 28) as u64;
    let phentsize = u16_at(h, 42) as u64;
    let phnum = u16_at(h, 44) as u64;
    if phnum > 0 && phentsize < 32 {
        return Err(ElfError::WrongKind(format!(
            "program header size {phentsize} < 32"
        )));
    }
    let mut segments = Vec::new();
    for i in 0..phnum {
        let ph = slice(image, "program header", phoff + i * phentsize, 32)?;
        if u32_at(ph, 0) != 1 {
            continue;
        }
        let seg = Segment {
            offset: u32_at(ph, 4),
            vaddr: u32_at(ph, 8),
            filesz: u32_at(ph, 16),
            memsz: u32_at(ph, 20),
        };
        if seg.filesz > seg.memsz {
            return Err(ElfError::BadSegment {
                index: i as usize,
                filesz: seg.filesz,
                memsz: seg.memsz,
            });
        }
        slice(image, "segment data", seg.offset as u64, seg.filesz as u64)?;
        segments.push(seg);
    }
    if segments.is_empty() {
        return Err(ElfError::Empty);
    }
    Ok(Elf { entry, segments })
}

/// Whether `[vaddr, vaddr + size)` lies in RDRAM (any of its mirrors) or the scratchpad.
fn in_ram(vaddr: u32, size: u32) -> bool {
    let end = vaddr as u64 + size as u64;
    let within = |base: u64, len: u64| vaddr as u64 >= base && end <= base + len;
    [
        0x0000_0000u64,
        0x2000_0000,
        0x3000_0000,
        0x8000_0000,
        0xa000_0000,
    ]
    .iter()
    .any(|&b| within(b, crate::bus::RAM_SIZE as u64))
        || within(0x7000_0000, crate::bus::SPR_SIZE as u64)
}

/// Load `image` into memory; returns the entry point.
pub fn load(image: &[u8], bus: &mut EeBus) -> Result<u32, ElfError> {
    let elf = parse(image)?;
    for (i, s) in elf.segments.iter().enumerate() {
        if !in_ram(s.vaddr, s.memsz) {
            return Err(ElfError::OutsideRam {
                index: i,
                vaddr: s.vaddr,
                size: s.memsz,
            });
        }
    }
    for s in &elf.segments {
        let data = &image[s.offset as usize..(s.offset + s.filesz) as usize];
        let mut zeroed = data.to_vec();
        zeroed.resize(s.memsz as usize, 0);
        bus.write_bytes(s.vaddr, &zeroed).expect("checked in RAM");
    }
    Ok(elf.entry)
}
