//! Raw CD images ("BIN"): whole sectors as the drive reads them.
//!
//! A 2352-byte sector starts with the 12-byte sync pattern `00 FF*10 00`, then a 4-byte header
//! (minute, second, frame in BCD, counted from 00:02:00 for LBA 0, and the mode byte). Mode 1
//! user data follows at byte 16; Mode 2 has an 8-byte subheader first, so Form 1 user data is at
//! byte 24. EDC/ECC fill the rest. A 2448-byte sector is the same followed by 96 bytes of
//! subchannel; a 2336-byte sector (cue `MODE2/2336`) is a Mode 2 sector without sync and header.

use std::fs::File;
use std::path::{Path, PathBuf};

use crate::sector::{RAW_SECTOR_SIZE, SECTOR_SIZE, read_exact_at};
use crate::{DiscError, MediaKind, SectorSource};

/// The sync pattern at the start of every raw CD data sector.
pub(crate) const SYNC: [u8; 12] = [0, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 0];

/// Sectors read from the file at once and kept.
const BLOCK_SECTORS: u64 = 16;

/// How a raw file's sectors are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RawLayout {
    /// Bytes per sector in the file: 2352, 2448 or 2336.
    pub(crate) sector_size: u32,
    /// Where user data starts when a sector's own header does not say (mode from the cue sheet).
    pub(crate) user_offset: usize,
}

impl RawLayout {
    /// Whether sectors carry sync and header (2352/2448), i.e. raw sectors can be handed out.
    fn has_sync(self) -> bool {
        self.sector_size >= RAW_SECTOR_SIZE as u32
    }
}

pub(crate) struct RawSource {
    path: PathBuf,
    file: File,
    layout: RawLayout,
    base: u64,
    sectors: u64,
    kind: MediaKind,
    block: Vec<u8>,
    block_lba: u64,
    block_len: u64,
}

impl RawSource {
    pub(crate) fn new(path: &Path, file: File, layout: RawLayout, base: u64, sectors: u64) -> Self {
        RawSource {
            path: path.to_path_buf(),
            file,
            layout,
            base,
            sectors,
            kind: if sectors > crate::sector::MAX_CD_SECTORS {
                MediaKind::Dvd
            } else {
                MediaKind::Cd
            },
            block: Vec::new(),
            block_lba: 0,
            block_len: 0,
        }
    }

    /// The file bytes of sector `lba`, from the cached block.
    fn sector(&mut self, lba: u64) -> Result<&[u8], DiscError> {
        if lba >= self.sectors {
            return Err(DiscError::past_end(&self.path, lba, self.sectors));
        }
        let size = self.layout.sector_size as u64;
        if !(self.block_lba..self.block_lba + self.block_len).contains(&lba) {
            let start = lba - lba % BLOCK_SECTORS;
            let len = BLOCK_SECTORS.min(self.sectors - start);
            self.block.resize((len * size) as usize, 0);
            self.block_len = 0;
            read_exact_at(
                &mut self.file,
                &self.path,
                self.base + start * size,
                &mut self.block,
            )?;
            self.block_lba = start;
            self.block_len = len;
        }
        let at = ((lba - self.block_lba) * size) as usize;
        Ok(&self.block[at..at + size as usize])
    }
}

/// Where a sector's 2048 bytes of user data start: its own mode byte when it has a header.
pub(crate) fn user_offset(sector: &[u8], default: usize) -> usize {
    if sector.len() >= 16 && sector[..12] == SYNC {
        match sector[15] {
            1 => return 16,
            2 => return 24,
            _ => {}
        }
    }
    default
}

impl SectorSource for RawSource {
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
        let layout = self.layout;
        let sector = self.sector(lba)?;
        let at = if layout.has_sync() {
            user_offset(sector, layout.user_offset)
        } else {
            layout.user_offset
        };
        buf.copy_from_slice(&sector[at..at + SECTOR_SIZE]);
        Ok(())
    }

    fn has_raw(&self) -> bool {
        self.layout.has_sync()
    }

    fn read_raw(&mut self, lba: u64, buf: &mut [u8; RAW_SECTOR_SIZE]) -> Result<(), DiscError> {
        if !self.layout.has_sync() {
            return Err(DiscError::invalid(
                &self.path,
                "a MODE2/2336 track has no sync or header: no raw 2352-byte sectors",
            ));
        }
        let sector = self.sector(lba)?;
        buf.copy_from_slice(&sector[..RAW_SECTOR_SIZE]);
        Ok(())
    }
}
