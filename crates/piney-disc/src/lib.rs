//! PS2 disc images: the readers behind the CDVD.
//!
//! Contract:
//! - [`open`] takes an image path and finds its format from the content, never the extension:
//!   plain ISO (2048-byte sectors, CD or DVD), raw BIN (2352- or 2448-byte sectors, found by
//!   their sync pattern), a cue sheet (its first data track's file, mode and start), CSO v1/v2,
//!   ZSO, and CHD v5 (CD images from `chdman createcd`, DVD images from `chdman createdvd`).
//! - Every format reads through one interface, [`SectorSource`]: numbered 2048-byte user-data
//!   sectors (Mode 1, Mode 2 Form 1 or DVD), the medium's [`MediaKind`], and raw 2352-byte
//!   sectors where the image has them (BIN, raw-track CHDs).
//! - A CD's table of contents: [`Disc::tracks`] and [`Disc::lead_out`] (a cue sheet's or a CD
//!   CHD's every track, audio included, laid out one after another with their pregaps; other
//!   images one data track), and [`Disc::read_cdda`], the whole 2352-byte sector of any track
//!   as the drive's CD-DA read gives it (audio as little-endian samples, whatever the image
//!   stores). A cue sheet or CHD of audio tracks only is an audio CD: no data sectors, its
//!   tracks readable.
//! - Reads are buffered: each source keeps one block (a CSO/ZSO block, a CHD hunk, or a run of
//!   sectors of a flat file) besides the image's own index (4 bytes a CSO/ZSO block, 12 a CHD
//!   hunk); no image is ever read whole into memory.
//! - [`Iso9660`] reads the file system over any source as the PS2 does: `cdrom0:\DIR\FILE;1`
//!   paths (`\` or `/`, version optional, case-insensitive), files of several extents (over
//!   4 GiB), and a DVD-9's second layer ([`Iso9660::layer1_start`], [`Iso9660::layer1_base`]).
//!   [`SystemCnf`] parses the boot configuration and [`Iso9660::boot_info`] finds the boot ELF
//!   and the game's serial.
//! - Nothing here panics on any input: header fields are checked before they size an
//!   allocation or an offset, and every failure is a [`DiscError`] naming the file and the
//!   reason (for a read past the end, the LBA). The one outside party, the `chd` crate, can
//!   panic on some corrupt compressed data; those panics are caught and returned as errors.

mod chd;
mod cso;
mod cue;
mod error;
mod flat;
mod iso9660;
mod raw;
mod sector;
mod system_cnf;
mod toc;

use std::fs::File;
use std::path::{Path, PathBuf};

pub use error::DiscError;
pub use iso9660::{BootInfo, Extent, FileEntry, Iso9660};
pub use sector::{MAX_CD_SECTORS, MediaKind, RAW_SECTOR_SIZE, SECTOR_SIZE, SectorSource};
pub use system_cnf::{SystemCnf, VideoMode, serial_from_name};
pub use toc::Track;

use crate::cso::CisoFormat;
use crate::raw::{RawLayout, SYNC};
use crate::sector::{file_len, le32, read_up_to_at};

/// The largest cue sheet read (they are a few hundred bytes).
const MAX_CUE_BYTES: u64 = 1 << 20;

/// What kind of file an image was found to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageFormat {
    /// 2048-byte sectors.
    Iso,
    /// Raw sectors of this many bytes (2352 or 2448).
    Bin {
        sector_size: u32,
    },
    /// A cue sheet, whose data track has sectors of this many bytes in its file.
    Cue {
        sector_size: u32,
    },
    /// CSO, version 1 (or 0) or 2.
    Cso {
        version: u8,
    },
    Zso,
    Chd,
}

/// An opened disc image of any format.
pub struct Disc {
    path: PathBuf,
    format: ImageFormat,
    source: Box<dyn SectorSource + Send>,
    /// A cue sheet's tracks, all of them (the data source above is its first data track).
    layout: Option<toc::CueLayout>,
}

impl std::fmt::Debug for Disc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Disc")
            .field("path", &self.path)
            .field("format", &self.format)
            .field("sectors", &self.source.sector_count())
            .field("kind", &self.source.kind())
            .finish()
    }
}

impl Disc {
    /// Opens `path`, finding its format from its content.
    pub fn open(path: impl AsRef<Path>) -> Result<Disc, DiscError> {
        open(path)
    }

    /// The format the content was found to be.
    pub fn format(&self) -> ImageFormat {
        self.format
    }

    /// Its ISO 9660 file system.
    pub fn into_filesystem(self) -> Result<Iso9660<Disc>, DiscError> {
        Iso9660::new(self)
    }

    /// The table of contents: a cue sheet's tracks, else one data track of every sector.
    pub fn tracks(&self) -> Vec<Track> {
        match (&self.layout, self.source.toc()) {
            (Some(l), _) => l.tracks(),
            (None, Some((tracks, _))) => tracks,
            (None, None) => vec![Track {
                number: 1,
                audio: false,
                start: 0,
                sectors: self.source.sector_count(),
            }],
        }
    }

    /// The disc sector after the last track's last (the lead-out's LSN).
    pub fn lead_out(&self) -> u64 {
        match (&self.layout, self.source.toc()) {
            (Some(l), _) => l.lead_out(),
            (None, Some((_, lead_out))) => lead_out,
            (None, None) => self.source.sector_count(),
        }
    }

    /// The whole 2352-byte sector `lsn` of any track, as the drive's CD-DA read gives it:
    /// audio samples of an audio track, the raw data sector of a data track the image keeps
    /// whole, zeros in a PREGAP the image does not hold. An image of 2048-byte sectors only
    /// (ISO, CSO, a cooked cue track) cannot give a data sector whole: an error.
    pub fn read_cdda(
        &mut self,
        lsn: u64,
        buf: &mut [u8; RAW_SECTOR_SIZE],
    ) -> Result<(), DiscError> {
        match &mut self.layout {
            Some(l) => l.read_raw(lsn, buf),
            None => self.source.read_cdda(lsn, buf),
        }
    }
}

impl SectorSource for Disc {
    fn sector_count(&self) -> u64 {
        self.source.sector_count()
    }
    fn kind(&self) -> MediaKind {
        self.source.kind()
    }
    fn path(&self) -> &Path {
        &self.path
    }
    fn read_user(&mut self, lba: u64, buf: &mut [u8; SECTOR_SIZE]) -> Result<(), DiscError> {
        self.source.read_user(lba, buf)
    }
    fn has_raw(&self) -> bool {
        self.source.has_raw()
    }
    fn read_raw(&mut self, lba: u64, buf: &mut [u8; RAW_SECTOR_SIZE]) -> Result<(), DiscError> {
        self.source.read_raw(lba, buf)
    }
    fn toc(&self) -> Option<(Vec<Track>, u64)> {
        match &self.layout {
            Some(l) => Some((l.tracks(), l.lead_out())),
            None => self.source.toc(),
        }
    }
    fn read_cdda(&mut self, lsn: u64, buf: &mut [u8; RAW_SECTOR_SIZE]) -> Result<(), DiscError> {
        Disc::read_cdda(self, lsn, buf)
    }
}

/// Opens a disc image, finding its format from its content (see the crate documentation).
pub fn open(path: impl AsRef<Path>) -> Result<Disc, DiscError> {
    let path = path.as_ref();
    let mut file = File::open(path).map_err(|e| DiscError::io(path, e))?;
    let len = file_len(&file, path)?;
    let mut head = vec![0u8; len.min(40_000) as usize];
    let got = read_up_to_at(&mut file, path, 0, &mut head)?;
    head.truncate(got);
    let disc = |format, source: Box<dyn SectorSource + Send>| Disc {
        path: path.to_path_buf(),
        format,
        source,
        layout: None,
    };

    if head.starts_with(cso::CSO_MAGIC) || head.starts_with(cso::ZSO_MAGIC) {
        let mut source = cso::CisoSource::open(path, file)?;
        let format = match source.format() {
            CisoFormat::CsoV1 => ImageFormat::Cso { version: 1 },
            CisoFormat::CsoV2 => ImageFormat::Cso { version: 2 },
            CisoFormat::Zso => ImageFormat::Zso,
        };
        if let Some(kind) = guess_kind(&mut source) {
            source.set_kind(kind);
        }
        return Ok(disc(format, Box::new(source)));
    }
    if head.starts_with(chd::CHD_MAGIC) {
        return Ok(disc(
            ImageFormat::Chd,
            Box::new(chd::ChdSource::open(path, file)?),
        ));
    }
    if len <= MAX_CUE_BYTES && !head.starts_with(&SYNC) {
        let mut text = vec![0u8; len as usize];
        let got = read_up_to_at(&mut file, path, 0, &mut text)?;
        text.truncate(got);
        if cue::looks_like_cue(&text) {
            return open_cue(path, &text);
        }
    }
    // Plain ISO: a volume descriptor ("CD001" after its type byte) at sector 16.
    if head.get(16 * 2048 + 1..16 * 2048 + 6) == Some(b"CD001") {
        let mut source = flat::FlatSource::new(path, file, 0, len / 2048, MediaKind::Cd);
        if let Some(kind) = guess_kind(&mut source) {
            source.set_kind(kind);
        }
        return Ok(disc(ImageFormat::Iso, Box::new(source)));
    }
    // Raw CD sectors: each starts with the sync pattern; the next sector's sync tells the size.
    if head.starts_with(&SYNC) {
        let sector_size = if head.get(2352..2364) == Some(&SYNC[..]) {
            2352
        } else if head.get(2448..2460) == Some(&SYNC[..]) {
            2448
        } else if len < 2 * 2352 {
            2352
        } else {
            return Err(DiscError::unsupported(
                path,
                "a raw CD sync pattern at the start, but no second sector 2352 or 2448 bytes on",
            ));
        };
        // Mode byte (header byte 3) of the first sector: 1 puts user data at 16, 2 at 24.
        let user_offset = if head.get(15) == Some(&1) { 16 } else { 24 };
        let layout = RawLayout {
            sector_size,
            user_offset,
        };
        let sectors = len / sector_size as u64;
        return Ok(disc(
            ImageFormat::Bin { sector_size },
            Box::new(raw::RawSource::new(path, file, layout, 0, sectors)),
        ));
    }
    if len < 17 * 2048 {
        return Err(DiscError::truncated(
            path,
            format!(
                "{len} bytes, and no CSO/ZSO/CHD magic: too short for an ISO (17 sectors at least)"
            ),
        ));
    }
    Err(DiscError::unsupported(
        path,
        "not a known disc image: no ISO 9660 descriptor at sector 16, no raw CD sync, no CSO/ZSO/CHD magic, not a cue sheet",
    ))
}

/// Opens the first data track a cue sheet names.
fn open_cue(cue_path: &Path, text: &[u8]) -> Result<Disc, DiscError> {
    let tracks = cue::parse(cue_path, text)?;
    let dir = cue_path.parent().unwrap_or_else(|| Path::new("."));
    if tracks.iter().all(|t| t.mode == cue::CueMode::Audio) {
        // An audio CD: no data sectors, only its tracks.
        let layout = toc::CueLayout::new(cue_path, dir, &tracks)?;
        return Ok(Disc {
            path: cue_path.to_path_buf(),
            format: ImageFormat::Cue { sector_size: 2352 },
            source: Box::new(toc::NoData {
                path: cue_path.to_path_buf(),
            }),
            layout: Some(layout),
        });
    }
    let (track, end) = cue::first_data_track(cue_path, &tracks)?;
    // One track: the data track alone, read as before. More: every track laid out.
    let layout = if tracks.len() > 1 {
        Some(toc::CueLayout::new(cue_path, dir, &tracks)?)
    } else {
        None
    };
    let bin_path = dir.join(&track.file);
    let file = File::open(&bin_path).map_err(|e| DiscError::Cue {
        path: cue_path.to_path_buf(),
        line: track.line,
        detail: format!("cannot open {}: {e}", bin_path.display()),
    })?;
    let len = file_len(&file, &bin_path)?;
    let sector_size = track.mode.sector_size().unwrap_or(2352);
    let start = track.index1.unwrap_or(0);
    let base = start.saturating_mul(sector_size as u64);
    let file_sectors = len / sector_size as u64;
    if start > file_sectors {
        return Err(DiscError::Cue {
            path: cue_path.to_path_buf(),
            line: track.line,
            detail: format!(
                "the data track starts at sector {start}, past the end of {} ({file_sectors} sectors)",
                bin_path.display()
            ),
        });
    }
    let sectors = end.unwrap_or(file_sectors).min(file_sectors) - start;
    let source: Box<dyn SectorSource + Send> = match track.mode {
        cue::CueMode::Mode1Cooked => {
            let mut source = flat::FlatSource::new(&bin_path, file, base, sectors, MediaKind::Cd);
            if sectors > MAX_CD_SECTORS {
                source.set_kind(MediaKind::Dvd);
            }
            Box::new(source)
        }
        mode => {
            let user_offset = match mode {
                cue::CueMode::Mode1Raw => 16,
                cue::CueMode::Mode2Headerless => 8,
                _ => 24,
            };
            Box::new(raw::RawSource::new(
                &bin_path,
                file,
                RawLayout {
                    sector_size,
                    user_offset,
                },
                base,
                sectors,
            ))
        }
    };
    Ok(Disc {
        path: cue_path.to_path_buf(),
        format: ImageFormat::Cue { sector_size },
        source,
        layout,
    })
}

/// CD or DVD for a format that does not say (ISO, CSO, ZSO), as PCSX2's `InputIsoFile` guesses:
/// more sectors than a CD holds is a DVD; otherwise a root directory of exactly one sector
/// (its record's data length, byte 166 of the primary volume descriptor) is a CD.
fn guess_kind(source: &mut dyn SectorSource) -> Option<MediaKind> {
    if source.sector_count() > MAX_CD_SECTORS {
        return Some(MediaKind::Dvd);
    }
    let mut pvd = [0u8; SECTOR_SIZE];
    source.read_user(16, &mut pvd).ok()?;
    if &pvd[1..6] != b"CD001" {
        return None;
    }
    Some(if le32(&pvd, 166) == SECTOR_SIZE as u32 {
        MediaKind::Cd
    } else {
        MediaKind::Dvd
    })
}
