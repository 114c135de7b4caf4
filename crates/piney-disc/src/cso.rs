//! CSO (v1, v2) and ZSO: an ISO cut into equal blocks, each compressed on its own.
//!
//! Layout (little endian; maxcso's README_CSO.md and README_ZSO.md, PCSX2's CsoFileReader):
//! a 24-byte header (`CISO`/`ZISO`, header size u32, uncompressed size u64, block size u32,
//! version u8, index shift u8, 2 unused bytes), then `ceil(size / block) + 1` u32 index entries
//! right after it. Entry `i`'s low 31 bits shifted left by the index shift are where block `i`
//! starts in the file; block `i` runs to where entry `i + 1` points (so entries never decrease;
//! the space may end in alignment padding). The top bit:
//! - CSO v0/v1 and ZSO: set means the block is stored uncompressed; otherwise CSO blocks are raw
//!   deflate (no zlib header) and ZSO blocks raw LZ4 (block format, no frame).
//! - CSO v2: a block whose stored size is at least the block size is uncompressed; a smaller one
//!   is LZ4 when the bit is set and deflate otherwise. The header size must be 0x18.

use std::fs::File;
use std::path::{Path, PathBuf};

use flate2::{Decompress, FlushDecompress, Status};

use crate::sector::{SECTOR_SIZE, file_len, le32, le64, read_exact_at, read_up_to_at};
use crate::{DiscError, MediaKind, SectorSource};

pub(crate) const CSO_MAGIC: &[u8; 4] = b"CISO";
pub(crate) const ZSO_MAGIC: &[u8; 4] = b"ZISO";
const HEADER_SIZE: u64 = 24;
/// The largest block this reader accepts (maxcso writes 2 KiB to 16 KiB; a bound on the buffers).
const MAX_BLOCK_SIZE: u32 = 4 << 20;
const INDEX_FLAG: u32 = 0x8000_0000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CisoFormat {
    CsoV1,
    CsoV2,
    Zso,
}

impl CisoFormat {
    fn name(self) -> &'static str {
        match self {
            CisoFormat::CsoV1 => "CSO",
            CisoFormat::CsoV2 => "CSO v2",
            CisoFormat::Zso => "ZSO",
        }
    }
}

pub(crate) struct CisoSource {
    path: PathBuf,
    file: File,
    file_len: u64,
    format: CisoFormat,
    block_size: u32,
    shift: u8,
    total: u64,
    sectors: u64,
    index: Vec<u32>,
    kind: MediaKind,
    /// The decompressed block `block_no` (None: nothing cached).
    block: Vec<u8>,
    block_no: Option<u64>,
    raw: Vec<u8>,
    inflater: Decompress,
}

impl CisoSource {
    pub(crate) fn open(path: &Path, mut file: File) -> Result<CisoSource, DiscError> {
        let len = file_len(&file, path)?;
        let mut header = [0u8; HEADER_SIZE as usize];
        if len < HEADER_SIZE {
            return Err(DiscError::truncated(
                path,
                format!("a CSO/ZSO header is 24 bytes; the file has {len}"),
            ));
        }
        read_exact_at(&mut file, path, 0, &mut header)?;
        let header_size = le32(&header, 4);
        let total = le64(&header, 8);
        let block_size = le32(&header, 16);
        let version = header[20];
        let shift = header[21];
        let format = match &header[..4] {
            m if m == CSO_MAGIC => match version {
                0 | 1 => CisoFormat::CsoV1,
                2 => CisoFormat::CsoV2,
                v => return Err(DiscError::unsupported(path, format!("CSO version {v}"))),
            },
            m if m == ZSO_MAGIC => CisoFormat::Zso,
            m => {
                return Err(DiscError::bad_magic(
                    path,
                    format!("{m:02x?} is neither CISO nor ZISO"),
                ));
            }
        };
        let name = format.name();
        if format == CisoFormat::CsoV2 && header_size != HEADER_SIZE as u32 {
            return Err(DiscError::corrupt(
                path,
                format!("a CSO v2 header size must be 24, not {header_size}"),
            ));
        }
        if !block_size.is_power_of_two()
            || block_size < SECTOR_SIZE as u32
            || block_size > MAX_BLOCK_SIZE
        {
            return Err(DiscError::corrupt(
                path,
                format!(
                    "{name} block size {block_size} is not a power of two from 2048 to {MAX_BLOCK_SIZE}"
                ),
            ));
        }
        if shift > 31 {
            return Err(DiscError::corrupt(
                path,
                format!("{name} index shift {shift} is over 31"),
            ));
        }
        if total < SECTOR_SIZE as u64 {
            return Err(DiscError::corrupt(
                path,
                format!("{name} uncompressed size {total} is under one sector"),
            ));
        }
        let blocks = total.div_ceil(block_size as u64);
        // The index must fit in the file before anything is allocated for it.
        let index_bytes = blocks
            .checked_add(1)
            .and_then(|n| n.checked_mul(4))
            .filter(|&n| n <= len - HEADER_SIZE)
            .ok_or_else(|| {
                DiscError::truncated(
                    path,
                    format!(
                        "{name} of {total} bytes in {block_size}-byte blocks needs an index of {} entries; the file has {len} bytes",
                        blocks.saturating_add(1)
                    ),
                )
            })?;
        let mut index = Vec::with_capacity((blocks + 1) as usize);
        let mut chunk = vec![0u8; 64 * 1024];
        let mut at = 0u64;
        while at < index_bytes {
            let n = (index_bytes - at).min(chunk.len() as u64) as usize;
            read_exact_at(&mut file, path, HEADER_SIZE + at, &mut chunk[..n])?;
            index.extend(
                chunk[..n]
                    .chunks_exact(4)
                    .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            );
            at += n as u64;
        }
        // Every block must start after the index, no block before the one in front of it, and
        // the last end inside the file (give or take its alignment padding).
        let index_end = HEADER_SIZE + index_bytes;
        let slack = (1u64 << shift).saturating_sub(1);
        let mut previous = index_end;
        for (i, &entry) in index.iter().enumerate() {
            let offset = ((entry & !INDEX_FLAG) as u64) << shift;
            if offset < previous {
                return Err(DiscError::corrupt(
                    path,
                    if i == 0 {
                        format!(
                            "{name} index entry 0 points at offset {offset}, inside the header and index (which end at {index_end})"
                        )
                    } else {
                        format!(
                            "{name} index entry {i} (offset {offset}) is before entry {} (offset {previous}): entries out of order",
                            i - 1
                        )
                    },
                ));
            }
            if offset > len + slack {
                return Err(DiscError::corrupt(
                    path,
                    format!(
                        "{name} index entry {i} points at offset {offset}, past the end of the {len}-byte file"
                    ),
                ));
            }
            previous = offset;
        }
        let sectors = total / SECTOR_SIZE as u64;
        Ok(CisoSource {
            path: path.to_path_buf(),
            file,
            file_len: len,
            format,
            block_size,
            shift,
            total,
            sectors,
            index,
            kind: if sectors > crate::sector::MAX_CD_SECTORS {
                MediaKind::Dvd
            } else {
                MediaKind::Cd
            },
            block: vec![0; block_size as usize],
            block_no: None,
            raw: Vec::new(),
            inflater: Decompress::new(false),
        })
    }

    pub(crate) fn format(&self) -> CisoFormat {
        self.format
    }

    pub(crate) fn set_kind(&mut self, kind: MediaKind) {
        self.kind = kind;
    }

    fn block_error(&self, block: u64, detail: String) -> DiscError {
        DiscError::Block {
            path: self.path.clone(),
            format: self.format.name(),
            block,
            detail,
        }
    }

    /// Makes `self.block` hold block `n`.
    fn load_block(&mut self, n: u64) -> Result<(), DiscError> {
        if self.block_no == Some(n) {
            return Ok(());
        }
        self.block_no = None;
        let (Some(&entry), Some(&next)) =
            (self.index.get(n as usize), self.index.get(n as usize + 1))
        else {
            return Err(self.block_error(n, "past the end of the index".into()));
        };
        let start = ((entry & !INDEX_FLAG) as u64) << self.shift;
        let end = ((next & !INDEX_FLAG) as u64) << self.shift;
        let stored = end - start; // the index was checked to never decrease
        let block_size = self.block_size as u64;
        // Bytes of the image in this block: all of it but for the last block.
        let wanted = block_size.min(self.total - n * block_size) as usize;
        let flagged = entry & INDEX_FLAG != 0;
        enum Kind {
            Stored,
            Deflate,
            Lz4,
        }
        let kind = match self.format {
            CisoFormat::CsoV1 if flagged => Kind::Stored,
            CisoFormat::CsoV1 => Kind::Deflate,
            CisoFormat::Zso if flagged => Kind::Stored,
            CisoFormat::Zso => Kind::Lz4,
            CisoFormat::CsoV2 if stored >= block_size => Kind::Stored,
            CisoFormat::CsoV2 if flagged => Kind::Lz4,
            CisoFormat::CsoV2 => Kind::Deflate,
        };
        match kind {
            Kind::Stored => {
                if stored < wanted as u64 {
                    return Err(self.block_error(
                        n,
                        format!("stored uncompressed in {stored} bytes, but it holds {wanted}"),
                    ));
                }
                let got = read_up_to_at(&mut self.file, &self.path, start, &mut self.block)?;
                if got < wanted {
                    return Err(DiscError::truncated(
                        &self.path,
                        format!(
                            "{} block {n} is stored at offset {start} but the file ends after {got} of its {wanted} bytes",
                            self.format.name()
                        ),
                    ));
                }
            }
            Kind::Deflate | Kind::Lz4 => {
                // Compressed data never needs more than a block and its padding; anything
                // beyond is unused space between blocks.
                let cap = stored.min(2 * block_size + (1u64 << self.shift));
                let cap = cap.min(self.file_len.saturating_sub(start));
                self.raw.resize(cap as usize, 0);
                let got = read_up_to_at(&mut self.file, &self.path, start, &mut self.raw)?;
                self.raw.truncate(got);
                let produced = match kind {
                    Kind::Deflate => {
                        self.inflater.reset(false);
                        let status = self.inflater.decompress(
                            &self.raw,
                            &mut self.block,
                            FlushDecompress::Finish,
                        );
                        let out = self.inflater.total_out() as usize;
                        match status {
                            Ok(Status::StreamEnd) => out,
                            // The block buffer filled before the stream said it ended.
                            Ok(_) if out == self.block.len() => out,
                            Ok(s) => {
                                return Err(self.block_error(
                                    n,
                                    format!("deflate stopped ({s:?}) after {out} bytes"),
                                ));
                            }
                            Err(e) => return Err(self.block_error(n, format!("deflate: {e}"))),
                        }
                    }
                    _ => {
                        let used = lz4_block_len(&self.raw, wanted, self.block.len())
                            .ok_or_else(|| self.block_error(n, "not a valid LZ4 block".into()))?;
                        lz4_flex::block::decompress_into(&self.raw[..used], &mut self.block)
                            .map_err(|e| self.block_error(n, format!("LZ4: {e}")))?
                    }
                };
                if produced < wanted {
                    return Err(self.block_error(
                        n,
                        format!("decompressed to {produced} bytes, not {wanted}"),
                    ));
                }
            }
        }
        self.block_no = Some(n);
        Ok(())
    }
}

/// How many bytes of `input` make up an LZ4 block that yields at least `wanted` bytes, never
/// more than `capacity`: the alignment padding after a block is not part of it, and LZ4 has no
/// end marker, so the sequences are walked without decoding. A block ends after a literal run;
/// this stops after the first literal run that ends the input or reaches `wanted`.
fn lz4_block_len(input: &[u8], wanted: usize, capacity: usize) -> Option<usize> {
    fn length(input: &[u8], pos: &mut usize, nibble: usize) -> Option<usize> {
        let mut n = nibble;
        if nibble == 15 {
            loop {
                let b = *input.get(*pos)?;
                *pos += 1;
                n = n.checked_add(b as usize)?;
                if b != 255 {
                    break;
                }
            }
        }
        Some(n)
    }
    let mut pos = 0usize;
    let mut out = 0usize;
    loop {
        let token = *input.get(pos)?;
        pos += 1;
        let literals = length(input, &mut pos, (token >> 4) as usize)?;
        pos = pos.checked_add(literals)?;
        out = out.checked_add(literals)?;
        if pos > input.len() || out > capacity {
            return None;
        }
        if pos == input.len() || out >= wanted {
            return Some(pos);
        }
        pos += 2; // the match offset
        if pos > input.len() {
            return None;
        }
        let matched = length(input, &mut pos, (token & 15) as usize)?.checked_add(4)?;
        out = out.checked_add(matched)?;
        if out > capacity {
            return None;
        }
    }
}

impl SectorSource for CisoSource {
    fn sector_count(&self) -> u64 {
        self.sectors
    }

    fn kind(&self) -> MediaKind {
        self.kind
    }

    fn path(&self) -> &Path {
        &self.path
    }

    fn read_user(&mut self, lba: u64, buf: &mut [u8; SECTOR_SIZE]) -> Result<(), DiscError> {
        if lba >= self.sectors {
            return Err(DiscError::past_end(&self.path, lba, self.sectors));
        }
        let byte = lba * SECTOR_SIZE as u64;
        let block_size = self.block_size as u64;
        self.load_block(byte / block_size)?;
        let at = (byte % block_size) as usize;
        buf.copy_from_slice(&self.block[at..at + SECTOR_SIZE]);
        Ok(())
    }
}
