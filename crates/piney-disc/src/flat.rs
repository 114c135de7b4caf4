//! Plain ISO images: 2048-byte sectors one after another (also a cue sheet's MODE1/2048 track).

use std::fs::File;
use std::path::{Path, PathBuf};

use crate::sector::{SECTOR_SIZE, read_exact_at};
use crate::{DiscError, MediaKind, SectorSource};

/// Sectors read from the file at once and kept: one 64 KiB block.
const BLOCK_SECTORS: u64 = 32;

/// A file of 2048-byte sectors, starting `base` bytes into the file.
pub(crate) struct FlatSource {
    path: PathBuf,
    file: File,
    base: u64,
    sectors: u64,
    kind: MediaKind,
    block: Vec<u8>,
    /// The first sector held in `block`, and how many it holds (0: nothing yet).
    block_lba: u64,
    block_len: u64,
}

impl FlatSource {
    pub(crate) fn new(path: &Path, file: File, base: u64, sectors: u64, kind: MediaKind) -> Self {
        FlatSource {
            path: path.to_path_buf(),
            file,
            base,
            sectors,
            kind,
            block: Vec::new(),
            block_lba: 0,
            block_len: 0,
        }
    }

    pub(crate) fn set_kind(&mut self, kind: MediaKind) {
        self.kind = kind;
    }
}

impl SectorSource for FlatSource {
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
        if !(self.block_lba..self.block_lba + self.block_len).contains(&lba) {
            // Blocks are aligned so that nearby random reads share one.
            let start = lba - lba % BLOCK_SECTORS;
            let len = BLOCK_SECTORS.min(self.sectors - start);
            self.block.resize(len as usize * SECTOR_SIZE, 0);
            self.block_len = 0;
            let offset = self.base + start * SECTOR_SIZE as u64;
            read_exact_at(&mut self.file, &self.path, offset, &mut self.block)?;
            self.block_lba = start;
            self.block_len = len;
        }
        let at = (lba - self.block_lba) as usize * SECTOR_SIZE;
        buf.copy_from_slice(&self.block[at..at + SECTOR_SIZE]);
        Ok(())
    }
}
