//! The disc in the drive: an image piney-disc opened, handed to the IOP as its
//! [`piney_iop::disc::Disc`], and the files on whatever disc the drive holds, read as the BIOS
//! reads a boot ELF (`cdrom0:\PATH;1`: ISO 9660, names case-insensitive, the version optional).

use std::path::{Path, PathBuf};

use piney_disc::{DiscError, Iso9660, MediaKind, RAW_SECTOR_SIZE, SECTOR_SIZE, SectorSource};
use piney_iop::disc::{Disc as DriveDisc, Media, Track};

use crate::Machine;

/// The largest file read whole from a disc (a boot ELF or a program LoadExecPS2 starts): the
/// EE's 32 MiB of RAM.
pub const MAX_PROGRAM_BYTES: u64 = 32 << 20;

/// An opened image in the drive.
pub struct ImageDisc {
    image: piney_disc::Disc,
    media: Media,
}

impl ImageDisc {
    /// `image`, whose DVD second layer (if any) starts at `layer1_start` (from its file system).
    pub fn new(image: piney_disc::Disc, layer1_start: Option<u64>) -> Self {
        let media = match image.kind() {
            MediaKind::Cd => Media::Cd,
            MediaKind::Dvd => Media::Dvd { layer1_start },
        };
        Self { image, media }
    }

    /// Open the image at `path` (any format piney-disc reads) with its layers. An audio CD
    /// (a cue sheet of audio tracks only) has no file system and goes in as it is.
    pub fn open(path: &Path) -> Result<Self, DiscError> {
        let image = piney_disc::open(path)?;
        if image.sector_count() == 0 && image.tracks().iter().all(|t| t.audio) {
            return Ok(Self::new(image, None));
        }
        let fs = image.into_filesystem()?;
        let layer1 = fs.layer1_start();
        Ok(Self::new(fs.into_inner(), layer1))
    }
}

impl DriveDisc for ImageDisc {
    fn sectors(&self) -> u64 {
        self.image.sector_count()
    }
    fn media(&self) -> Media {
        self.media
    }
    fn read(&mut self, lba: u64, buf: &mut [u8]) -> Result<(), String> {
        self.image.read_sectors(lba, buf).map_err(|e| e.to_string())
    }
    fn tracks(&self) -> Vec<Track> {
        self.image
            .tracks()
            .iter()
            .map(|t| Track {
                number: t.number,
                audio: t.audio,
                start: t.start,
            })
            .collect()
    }
    fn lead_out(&self) -> u64 {
        self.image.lead_out()
    }
    fn read_cdda(&mut self, lsn: u64, buf: &mut [u8]) -> Result<(), String> {
        if !buf.len().is_multiple_of(RAW_SECTOR_SIZE) {
            return Err(format!(
                "a CD-DA read of {} bytes is not whole sectors",
                buf.len()
            ));
        }
        for (i, chunk) in buf.chunks_exact_mut(RAW_SECTOR_SIZE).enumerate() {
            let sector: &mut [u8; RAW_SECTOR_SIZE] =
                chunk.try_into().map_err(|_| "a CD-DA sector".to_string())?;
            self.image
                .read_cdda(lsn + i as u64, sector)
                .map_err(|e| e.to_string())?;
        }
        Ok(())
    }
}

/// The drive's disc as a sector source, for reading its file system.
struct Drive<'a> {
    disc: &'a mut dyn DriveDisc,
    name: PathBuf,
}

impl SectorSource for Drive<'_> {
    fn sector_count(&self) -> u64 {
        self.disc.sectors()
    }
    fn kind(&self) -> MediaKind {
        match self.disc.media() {
            Media::Cd => MediaKind::Cd,
            Media::Dvd { .. } => MediaKind::Dvd,
        }
    }
    fn path(&self) -> &Path {
        &self.name
    }
    fn read_user(&mut self, lba: u64, buf: &mut [u8; SECTOR_SIZE]) -> Result<(), DiscError> {
        self.disc
            .read(lba, buf)
            .map_err(|detail| DiscError::InvalidRequest {
                path: self.name.clone(),
                detail,
            })
    }
}

/// The bytes of the file at `path` (`cdrom0:\DIR\FILE;1`) on `disc`, at most `limit` of them.
pub fn read_file(disc: &mut dyn DriveDisc, path: &str, limit: u64) -> Result<Vec<u8>, String> {
    let drive = Drive {
        disc,
        name: PathBuf::from("the disc in the drive"),
    };
    let mut fs = Iso9660::new(drive).map_err(|e| e.to_string())?;
    let entry = fs.lookup(path).map_err(|e| e.to_string())?;
    if entry.is_dir {
        return Err(format!("{path} is a directory"));
    }
    if entry.size > limit {
        return Err(format!(
            "{path} is {} bytes, more than the {limit} a program may have",
            entry.size
        ));
    }
    fs.read_file(&entry, limit).map_err(|e| e.to_string())
}

impl Machine {
    /// Put `disc` in the drive (replacing any), or empty it with `None`.
    pub fn insert_disc(&mut self, disc: Option<Box<dyn DriveDisc>>) {
        self.bus.iop.insert_disc(disc);
    }
}
