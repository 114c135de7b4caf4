//! The disc in the drive, as the IOP's CDVD sees it: 2048-byte user-data sectors by logical
//! sector number, the medium, and its layers. The machine puts one in ([`crate::Iop::insert_disc`])
//! from whatever image the user brought (piney-disc reads ISO, BIN/CUE, CHD, CSO and ZSO); the
//! CDVD's native modules read it through this trait only, so they never see a file format.
//! A disc stays in the drive across IOP reboots, as on a console. A CD also has a table of
//! contents ([`Disc::tracks`]) and whole 2352-byte sectors for CD-DA reads ([`Disc::read_cdda`]).

/// What kind of disc is in the drive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Media {
    /// A CD (PS2 CD-ROM: Mode 1 or Mode 2 Form 1 data sectors).
    Cd,
    /// A DVD-ROM: single layer, or dual layer with layer 1's first sector (in the disc's one
    /// logical sector space, as the drive numbers them in PTP order).
    Dvd {
        /// Layer 1's first sector, on a dual-layer disc.
        layer1_start: Option<u64>,
    },
}

/// One track of a CD's table of contents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Track {
    /// Its number, 1..99.
    pub number: u8,
    /// Audio (CD-DA) rather than data.
    pub audio: bool,
    /// Its INDEX 01 as a disc sector number (LSN 0 is track 1's, at 00:02:00).
    pub start: u64,
}

/// Bytes of a whole CD sector, what a CD-DA read gives for each.
pub const CDDA_SECTOR: usize = 2352;

/// A disc image, read by sector.
pub trait Disc {
    /// How many 2048-byte sectors the disc holds (both layers).
    fn sectors(&self) -> u64;
    /// The medium.
    fn media(&self) -> Media;
    /// Read whole sectors from `lba` into `buf` (`buf.len()` a multiple of 2048). A read past
    /// the end, or an image that cannot be read, is an error naming the sector and the reason.
    fn read(&mut self, lba: u64, buf: &mut [u8]) -> Result<(), String>;
    /// The table of contents, in order (a DVD, or an image of one data track: that track).
    fn tracks(&self) -> Vec<Track> {
        vec![Track {
            number: 1,
            audio: false,
            start: 0,
        }]
    }
    /// The lead-out's sector: the end of the last track.
    fn lead_out(&self) -> u64 {
        self.sectors()
    }
    /// Whole 2352-byte sectors from `lsn` into `buf` (`buf.len()` a multiple of 2352), any
    /// track's: what the drive's CD-DA read returns. An image that keeps only 2048-byte user
    /// data cannot: an error naming the sector and the reason.
    fn read_cdda(&mut self, lsn: u64, buf: &mut [u8]) -> Result<(), String> {
        let _ = buf;
        Err(format!(
            "sector {lsn}: this disc image holds 2048-byte sectors only, not whole CD sectors"
        ))
    }
}

/// A disc held in memory: for tests, and for images small enough to read whole.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct MemoryDisc {
    /// The sectors, 2048 bytes each.
    pub data: Vec<u8>,
    /// The medium it says it is.
    pub media: Media,
}

impl Disc for MemoryDisc {
    fn sectors(&self) -> u64 {
        (self.data.len() / 2048) as u64
    }
    fn media(&self) -> Media {
        self.media
    }
    fn read(&mut self, lba: u64, buf: &mut [u8]) -> Result<(), String> {
        let start = lba
            .checked_mul(2048)
            .and_then(|s| usize::try_from(s).ok())
            .filter(|&s| {
                s.checked_add(buf.len())
                    .is_some_and(|e| e <= self.data.len())
            })
            .ok_or_else(|| {
                format!(
                    "sectors {lba}..{} are past the end of the disc ({} sectors)",
                    lba + (buf.len() / 2048) as u64,
                    self.sectors()
                )
            })?;
        buf.copy_from_slice(&self.data[start..start + buf.len()]);
        Ok(())
    }
}
