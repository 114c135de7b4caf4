//! The one interface every image format reads through: numbered 2048-byte user-data sectors, and
//! raw 2352-byte CD sectors where the image has them.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

use crate::DiscError;

/// Bytes of user data in a Mode 1, Mode 2 Form 1 or DVD sector: what the CDVD hands the game.
pub const SECTOR_SIZE: usize = 2048;
/// Bytes of a whole CD sector as it is on the disc: sync, header, (subheader,) data, EDC/ECC.
pub const RAW_SECTOR_SIZE: usize = 2352;

/// The medium the image is of. The CDVD answers differently for each (disc type, TOC, DVD layers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MediaKind {
    /// A CD-ROM (PS2 "blue" discs; raw sectors where the image kept them).
    Cd,
    /// A DVD-ROM, single or dual layer.
    Dvd,
}

/// The most sectors a CD holds (80 minutes at 75 sectors a second, plus lead-out slack). A "CD"
/// container holding more is a DVD image in a CD container (CHDs made by `chdman createcd` from
/// a DVD ISO are common).
pub const MAX_CD_SECTORS: u64 = 80 * 60 * 75 + 1_000;

/// Numbered sectors of a disc image. LBA 0 is the first sector of the (first data track of the)
/// disc; `sector_count` sectors follow it.
pub trait SectorSource {
    /// How many sectors the image holds.
    fn sector_count(&self) -> u64;

    /// CD or DVD.
    fn kind(&self) -> MediaKind;

    /// The image file, for error messages.
    fn path(&self) -> &Path;

    /// The 2048 bytes of user data of sector `lba` (Mode 1, Mode 2 Form 1 or DVD).
    fn read_user(&mut self, lba: u64, buf: &mut [u8; SECTOR_SIZE]) -> Result<(), DiscError>;

    /// Whether [`read_raw`](Self::read_raw) works: raw CD images (BIN, raw-track CHDs) only.
    fn has_raw(&self) -> bool {
        false
    }

    /// The whole 2352-byte sector `lba`, sync and headers included.
    fn read_raw(&mut self, lba: u64, buf: &mut [u8; RAW_SECTOR_SIZE]) -> Result<(), DiscError> {
        let _ = (lba, buf);
        Err(DiscError::invalid(
            self.path(),
            "this image holds only 2048-byte user data, not raw 2352-byte sectors",
        ))
    }

    /// The disc's tracks and lead-out, where the image knows more than one data track (a CD
    /// CHD's track metadata); `None` for one data track of every sector.
    fn toc(&self) -> Option<(Vec<crate::Track>, u64)> {
        None
    }

    /// The whole 2352-byte sector `lsn` of any track, by disc sector number (CD-DA reads).
    fn read_cdda(&mut self, lsn: u64, buf: &mut [u8; RAW_SECTOR_SIZE]) -> Result<(), DiscError> {
        self.read_raw(lsn, buf)
    }

    /// Consecutive sectors' user data into `buf`, whose length must be a multiple of 2048.
    fn read_sectors(&mut self, lba: u64, buf: &mut [u8]) -> Result<(), DiscError> {
        if !buf.len().is_multiple_of(SECTOR_SIZE) {
            return Err(DiscError::invalid(
                self.path(),
                format!("a read of {} bytes is not whole sectors", buf.len()),
            ));
        }
        for (i, chunk) in buf.chunks_exact_mut(SECTOR_SIZE).enumerate() {
            let sector: &mut [u8; SECTOR_SIZE] = chunk
                .try_into()
                .map_err(|_| DiscError::invalid(self.path(), "sector chunk"))?;
            let at = lba
                .checked_add(i as u64)
                .ok_or_else(|| DiscError::past_end(self.path(), u64::MAX, self.sector_count()))?;
            self.read_user(at, sector)?;
        }
        Ok(())
    }
}

impl<S: SectorSource + ?Sized> SectorSource for Box<S> {
    fn sector_count(&self) -> u64 {
        (**self).sector_count()
    }
    fn kind(&self) -> MediaKind {
        (**self).kind()
    }
    fn path(&self) -> &Path {
        (**self).path()
    }
    fn read_user(&mut self, lba: u64, buf: &mut [u8; SECTOR_SIZE]) -> Result<(), DiscError> {
        (**self).read_user(lba, buf)
    }
    fn has_raw(&self) -> bool {
        (**self).has_raw()
    }
    fn read_raw(&mut self, lba: u64, buf: &mut [u8; RAW_SECTOR_SIZE]) -> Result<(), DiscError> {
        (**self).read_raw(lba, buf)
    }
    fn toc(&self) -> Option<(Vec<crate::Track>, u64)> {
        (**self).toc()
    }
    fn read_cdda(&mut self, lsn: u64, buf: &mut [u8; RAW_SECTOR_SIZE]) -> Result<(), DiscError> {
        (**self).read_cdda(lsn, buf)
    }
}

impl<S: SectorSource + ?Sized> SectorSource for &mut S {
    fn sector_count(&self) -> u64 {
        (**self).sector_count()
    }
    fn kind(&self) -> MediaKind {
        (**self).kind()
    }
    fn path(&self) -> &Path {
        (**self).path()
    }
    fn read_user(&mut self, lba: u64, buf: &mut [u8; SECTOR_SIZE]) -> Result<(), DiscError> {
        (**self).read_user(lba, buf)
    }
    fn has_raw(&self) -> bool {
        (**self).has_raw()
    }
    fn read_raw(&mut self, lba: u64, buf: &mut [u8; RAW_SECTOR_SIZE]) -> Result<(), DiscError> {
        (**self).read_raw(lba, buf)
    }
    fn toc(&self) -> Option<(Vec<crate::Track>, u64)> {
        (**self).toc()
    }
    fn read_cdda(&mut self, lsn: u64, buf: &mut [u8; RAW_SECTOR_SIZE]) -> Result<(), DiscError> {
        (**self).read_cdda(lsn, buf)
    }
}

/// Reads `buf.len()` bytes at `offset`, or fails with `Truncated` when the file ends first.
pub(crate) fn read_exact_at(
    file: &mut File,
    path: &Path,
    offset: u64,
    buf: &mut [u8],
) -> Result<(), DiscError> {
    file.seek(SeekFrom::Start(offset))
        .map_err(|e| DiscError::io(path, e))?;
    match file.read_exact(buf) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Err(DiscError::truncated(
            path,
            format!(
                "the file ends inside the {} bytes at offset {offset}",
                buf.len()
            ),
        )),
        Err(e) => Err(DiscError::io(path, e)),
    }
}

/// Reads as much of `buf` as the file has at `offset`; returns how many bytes that was.
pub(crate) fn read_up_to_at(
    file: &mut File,
    path: &Path,
    offset: u64,
    buf: &mut [u8],
) -> Result<usize, DiscError> {
    file.seek(SeekFrom::Start(offset))
        .map_err(|e| DiscError::io(path, e))?;
    let mut done = 0;
    while done < buf.len() {
        match file.read(&mut buf[done..]) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(DiscError::io(path, e)),
        }
    }
    Ok(done)
}

/// The length of an open file.
pub(crate) fn file_len(file: &File, path: &Path) -> Result<u64, DiscError> {
    file.metadata()
        .map(|m| m.len())
        .map_err(|e| DiscError::io(path, e))
}

pub(crate) fn le16(bytes: &[u8], at: usize) -> u16 {
    match bytes.get(at..at + 2) {
        Some(b) => u16::from_le_bytes([b[0], b[1]]),
        None => 0,
    }
}

pub(crate) fn le32(bytes: &[u8], at: usize) -> u32 {
    match bytes.get(at..at + 4) {
        Some(b) => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
        None => 0,
    }
}

pub(crate) fn le64(bytes: &[u8], at: usize) -> u64 {
    match bytes.get(at..at + 8) {
        Some(b) => u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]),
        None => 0,
    }
}

pub(crate) fn be32(bytes: &[u8], at: usize) -> u32 {
    match bytes.get(at..at + 4) {
        Some(b) => u32::from_be_bytes([b[0], b[1], b[2], b[3]]),
        None => 0,
    }
}

pub(crate) fn be64(bytes: &[u8], at: usize) -> u64 {
    match bytes.get(at..at + 8) {
        Some(b) => u64::from_be_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]),
        None => 0,
    }
}
