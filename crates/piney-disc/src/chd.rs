//! CHD (MAME Compressed Hunks of Data), version 5, through the `chd` crate.
//!
//! A CHD holds `logical bytes` of data in hunks of `hunk bytes`, each compressed with one of up
//! to four codecs named in the header, stored as is, or a copy of another hunk ("self"). The
//! data is a run of units:
//! - CD images (`chdman createcd`): units are 2448-byte frames, 2352 bytes of sector then 96 of
//!   subcode. Metadata `CHT2` (or the older `CHTR`) entries give each track's TYPE (MODE1 is
//!   2048-byte cooked data at the frame's start, MODE1_RAW and MODE2_RAW whole sectors, ...),
//!   FRAMES, PREGAP and PGTYPE (a pregap whose type starts with `V` is stored in the file).
//!   Each track is padded to a multiple of 4 frames (MAME `cdrom_file`).
//! - DVD images (`chdman createdvd`): units are 2048-byte sectors, with a `DVD ` metadata tag.
//!
//! The header, map and references are checked here before the `chd` crate is trusted with them:
//! it allocates from header fields and recurses through self references. Its map decoder and
//! codecs can still panic on some corrupt compressed data, so opening and each hunk's
//! decompression run under `catch_unwind`: a panic there becomes a [`DiscError::Corrupt`] or
//! [`DiscError::ChdHunk`] (the panic message still reaches the panic hook, i.e. stderr).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use chd::Chd;
use chd::map::{CompressionTypeV5, MapEntry};
use chd::metadata::MetadataTag;

use crate::raw::user_offset;
use crate::sector::{RAW_SECTOR_SIZE, SECTOR_SIZE, be32, be64, file_len, read_exact_at};
use crate::{DiscError, MediaKind, SectorSource};

pub(crate) const CHD_MAGIC: &[u8; 8] = b"MComprHD";
const V5_HEADER_SIZE: usize = 124;
/// A CD frame in a CHD: a 2352-byte sector and 96 bytes of subcode.
const CD_FRAME: u32 = 2448;
/// Optical media are under 10 GiB (a DVD-9 holds 8.5 GB); a bound on the map before it is read.
const MAX_LOGICAL_BYTES: u64 = 10 << 30;
/// The largest hunk accepted (MAME's own limit for v1-v4; chdman writes 19,584 for CDs).
const MAX_HUNK_BYTES: u32 = 16 << 20;
/// At most this many metadata entries are looked at (a CD has at most 99 tracks).
const MAX_METADATA: usize = 1024;

const fn tag(t: &[u8; 4]) -> u32 {
    u32::from_be_bytes(*t)
}
const TAG_CHT2: u32 = tag(b"CHT2");
const TAG_CHTR: u32 = tag(b"CHTR");
const TAG_CHCD: u32 = tag(b"CHCD");
const TAG_DVD: u32 = tag(b"DVD ");
/// The CD codecs whose hunks begin with an ECC bitmap and the length of the sector data (CD
/// FLAC, `cdfl`, starts straight with its FLAC frames).
const CD_CODECS: [u32; 3] = [tag(b"cdlz"), tag(b"cdzl"), tag(b"cdzs")];

/// CRC-16/CCITT-FALSE (polynomial 0x1021, initial 0xFFFF), MAME's hunk checksum.
const CRC16_TABLE: [u16; 256] = {
    let mut table = [0u16; 256];
    let mut i = 0;
    while i < 256 {
        let mut crc = (i as u16) << 8;
        let mut bit = 0;
        while bit < 8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
            bit += 1;
        }
        table[i] = crc;
        i += 1;
    }
    table
};

fn crc16(data: &[u8]) -> u16 {
    data.iter().fold(0xFFFF, |crc, &b| {
        (crc << 8) ^ CRC16_TABLE[((crc >> 8) as u8 ^ b) as usize]
    })
}

/// What is in each unit and where the disc starts.
#[derive(Debug, Clone, Copy)]
struct Layout {
    unit_bytes: u32,
    /// The unit holding LBA 0.
    first_unit: u64,
    sectors: u64,
    /// Where user data starts in a unit (when the sector's own header does not say).
    user_offset: usize,
    /// Units hold whole 2352-byte sectors with sync and header.
    raw: bool,
    kind: MediaKind,
}

/// One CD track as the CHD stores it.
#[derive(Debug, Clone, Copy)]
struct StoredTrack {
    track: crate::Track,
    /// Disc sectors `lsn..lsn + frames` are stored, from CHD unit `unit` on.
    lsn: i64,
    frames: u64,
    unit: u64,
}

/// A CD CHD's tracks on the disc (MAME `cdrom_file`: a pregap not stored in the CHD comes
/// before the track's stored frames; a stored one (PGTYPE V...) is its first frames; LSN 0 is
/// track 1's INDEX 01). Audio frames are stored with each 16-bit sample big-endian (chdman
/// swaps a BIN's little-endian samples); they are swapped back when read.
#[derive(Debug, Clone)]
struct CdTracks {
    tracks: Vec<StoredTrack>,
    lead_out: u64,
}

/// What a hunk's map entry says, once checked.
enum Stored {
    /// Read it from the file (compressed or not), with this CRC if the map has one.
    Data { crc: Option<u16> },
    /// A copy of this (stored) hunk.
    Copy { of: u32 },
}

pub(crate) struct ChdSource {
    path: PathBuf,
    chd: Chd<File>,
    codecs: [u32; 4],
    hunk_bytes: u32,
    units_per_hunk: u64,
    layout: Layout,
    /// A CD's every track, where it has more than one or audio ones.
    cd: Option<CdTracks>,
    hunk: Vec<u8>,
    /// The stored hunk whose data `hunk` holds.
    hunk_no: Option<u32>,
    compressed: Vec<u8>,
}

impl ChdSource {
    pub(crate) fn open(path: &Path, mut file: File) -> Result<ChdSource, DiscError> {
        let len = file_len(&file, path)?;
        if len < 16 {
            return Err(DiscError::truncated(path, "shorter than a CHD header"));
        }
        let mut prefix = [0u8; 16];
        read_exact_at(&mut file, path, 0, &mut prefix)?;
        if &prefix[..8] != CHD_MAGIC {
            return Err(DiscError::bad_magic(path, "not a CHD (no MComprHD)"));
        }
        let version = be32(&prefix, 12);
        if version != 5 {
            return Err(DiscError::unsupported(
                path,
                format!("CHD version {version}; only version 5 is read (chdman copy makes one)"),
            ));
        }
        if be32(&prefix, 8) as usize != V5_HEADER_SIZE {
            return Err(DiscError::corrupt(
                path,
                format!("a CHD v5 header is 124 bytes, not {}", be32(&prefix, 8)),
            ));
        }
        let mut header = [0u8; V5_HEADER_SIZE];
        read_exact_at(&mut file, path, 0, &mut header)?;
        let codecs = [
            be32(&header, 16),
            be32(&header, 20),
            be32(&header, 24),
            be32(&header, 28),
        ];
        let logical = be64(&header, 32);
        let map_offset = be64(&header, 40);
        let hunk_bytes = be32(&header, 56);
        let unit_bytes = be32(&header, 60);
        if header[104..124].iter().any(|&b| b != 0) {
            return Err(DiscError::unsupported(
                path,
                "a CHD with a parent (a delta CHD); merge it with chdman copy",
            ));
        }
        if unit_bytes == 0
            || hunk_bytes == 0
            || hunk_bytes > MAX_HUNK_BYTES
            || !hunk_bytes.is_multiple_of(unit_bytes)
        {
            return Err(DiscError::corrupt(
                path,
                format!(
                    "CHD hunk size {hunk_bytes} is not a whole number of {unit_bytes}-byte units up to {MAX_HUNK_BYTES}"
                ),
            ));
        }
        if unit_bytes != CD_FRAME && unit_bytes != SECTOR_SIZE as u32 {
            return Err(DiscError::unsupported(
                path,
                format!("CHD units of {unit_bytes} bytes: not a CD (2448) or DVD (2048) image"),
            ));
        }
        if logical == 0 || logical > MAX_LOGICAL_BYTES {
            return Err(DiscError::corrupt(
                path,
                format!("CHD logical size {logical} is not 1 byte to 10 GiB"),
            ));
        }
        let hunk_count = logical.div_ceil(hunk_bytes as u64);
        // The map must be in the file before the chd crate allocates for it.
        let map_fits = if codecs[0] == 0 {
            map_offset
                .checked_add(hunk_count * 4)
                .is_some_and(|end| end <= len)
        } else {
            let mut map_header = [0u8; 16];
            if map_offset.checked_add(16).is_none_or(|end| end > len) {
                false
            } else {
                read_exact_at(&mut file, path, map_offset, &mut map_header)?;
                let map_len = be32(&map_header, 0) as u64;
                map_offset + 16 + map_len <= len
            }
        };
        if !map_fits {
            return Err(DiscError::truncated(
                path,
                format!(
                    "the CHD map of {hunk_count} hunks at offset {map_offset} is not inside the {len}-byte file"
                ),
            ));
        }
        file.seek(SeekFrom::Start(0))
            .map_err(|e| DiscError::io(path, e))?;
        // The map's Huffman decoder indexes its tree unchecked: a panic there is a corrupt map.
        let mut chd = match catch_unwind(AssertUnwindSafe(|| Chd::open(file, None))) {
            Ok(Ok(chd)) => chd,
            Ok(Err(e)) => return Err(DiscError::corrupt(path, format!("CHD header or map: {e}"))),
            Err(_) => return Err(DiscError::corrupt(path, "the CHD map does not decode")),
        };
        check_map(path, &chd, len, &codecs, hunk_bytes)?;
        let (layout, cd) = read_layout(path, &mut chd, logical, unit_bytes)?;
        Ok(ChdSource {
            cd,
            path: path.to_path_buf(),
            codecs,
            hunk_bytes,
            units_per_hunk: (hunk_bytes / unit_bytes) as u64,
            layout,
            hunk: vec![0; hunk_bytes as usize],
            hunk_no: None,
            compressed: Vec::new(),
            chd,
        })
    }

    fn hunk_error(&self, hunk: u32, detail: impl Into<String>) -> DiscError {
        DiscError::ChdHunk {
            path: self.path.clone(),
            hunk: hunk as u64,
            detail: detail.into(),
        }
    }

    /// Makes `self.hunk` hold hunk `n` (the data of the stored hunk it is, or is a copy of).
    fn load_hunk(&mut self, n: u32) -> Result<(), DiscError> {
        let (source, crc) = match stored(self.chd.map().get_entry(n as usize)) {
            Some(Stored::Data { crc }) => (n, crc),
            Some(Stored::Copy { of }) => match stored(self.chd.map().get_entry(of as usize)) {
                Some(Stored::Data { crc }) => (of, crc),
                _ => return Err(self.hunk_error(n, "copy of a hunk that is not stored")),
            },
            None => return Err(self.hunk_error(n, "no map entry")),
        };
        if self.hunk_no == Some(source) {
            return Ok(());
        }
        self.hunk_no = None;
        self.check_cd_header(source)?;
        let Self {
            chd,
            compressed,
            hunk,
            ..
        } = self;
        // The chd crate's codecs index their input unchecked in places; a panic there is a
        // corrupt hunk, not a bug in the caller, so it is caught and reported as one.
        let result = catch_unwind(AssertUnwindSafe(|| {
            chd.hunk(source)
                .and_then(|mut h| h.read_hunk_in(compressed, hunk))
        }));
        match result {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => return Err(self.hunk_error(n, format!("decompression failed: {e}"))),
            Err(_) => return Err(self.hunk_error(n, "decompression failed (corrupt data)")),
        }
        if let Some(crc) = crc {
            let actual = crc16(&self.hunk);
            if actual != crc {
                return Err(self.hunk_error(
                    n,
                    format!("checksum mismatch (CRC16 {actual:04x}, the map says {crc:04x})"),
                ));
            }
        }
        self.hunk_no = Some(source);
        Ok(())
    }

    /// The CD codecs read a small header (ECC bitmap, then the sector data's compressed length)
    /// and slice by it without checking; check it here.
    fn check_cd_header(&mut self, n: u32) -> Result<(), DiscError> {
        let Some(MapEntry::V5Compressed(entry)) = self.chd.map().get_entry(n as usize) else {
            return Ok(());
        };
        let codec = match entry.hunk_type() {
            Ok(CompressionTypeV5::CompressionType0) => self.codecs[0],
            Ok(CompressionTypeV5::CompressionType1) => self.codecs[1],
            Ok(CompressionTypeV5::CompressionType2) => self.codecs[2],
            Ok(CompressionTypeV5::CompressionType3) => self.codecs[3],
            _ => return Ok(()),
        };
        if !CD_CODECS.contains(&codec) {
            return Ok(());
        }
        let (offset, length) = (entry.block_offset(), entry.block_size() as u64);
        let frames = (self.hunk_bytes / CD_FRAME) as u64;
        let length_bytes = if self.hunk_bytes < 65536 { 2 } else { 3 };
        let header_bytes = frames.div_ceil(8) + length_bytes;
        if length < header_bytes + 1 {
            return Err(self.hunk_error(n, format!("a CD hunk of {length} bytes has no data")));
        }
        let mut head = [0u8; 3];
        let at = offset + frames.div_ceil(8);
        let file = self.chd.inner();
        let read = file
            .seek(SeekFrom::Start(at))
            .and_then(|_| file.read_exact(&mut head[..length_bytes as usize]));
        read.map_err(|e| DiscError::io(&self.path, e))?;
        let sector_len = head[..length_bytes as usize]
            .iter()
            .fold(0u64, |v, &b| (v << 8) | b as u64);
        if sector_len > length - header_bytes {
            return Err(self.hunk_error(
                n,
                format!(
                    "the CD hunk says its sector data is {sector_len} bytes, but the hunk has {} after its header",
                    length - header_bytes
                ),
            ));
        }
        Ok(())
    }

    /// The bytes of the unit holding sector `lba`.
    fn unit(&mut self, lba: u64) -> Result<&[u8], DiscError> {
        if lba >= self.layout.sectors {
            return Err(DiscError::past_end(&self.path, lba, self.layout.sectors));
        }
        self.unit_at(self.layout.first_unit + lba)
    }

    /// The bytes of CHD unit `unit` (checked against the CHD's size when the layout was read).
    fn unit_at(&mut self, unit: u64) -> Result<&[u8], DiscError> {
        let hunk = (unit / self.units_per_hunk) as u32;
        self.load_hunk(hunk)?;
        let at = ((unit % self.units_per_hunk) * self.layout.unit_bytes as u64) as usize;
        Ok(&self.hunk[at..at + self.layout.unit_bytes as usize])
    }
}

/// Classifies a map entry (already checked by `check_map`).
fn stored(entry: Option<MapEntry<'_>>) -> Option<Stored> {
    match entry? {
        MapEntry::V5Compressed(e) => match e.hunk_type().ok()? {
            CompressionTypeV5::CompressionType0
            | CompressionTypeV5::CompressionType1
            | CompressionTypeV5::CompressionType2
            | CompressionTypeV5::CompressionType3
            | CompressionTypeV5::CompressionNone => Some(Stored::Data {
                crc: Some(e.hunk_crc()),
            }),
            CompressionTypeV5::CompressionSelf => Some(Stored::Copy {
                of: u32::try_from(e.block_offset()).ok()?,
            }),
            _ => None,
        },
        MapEntry::V5Uncompressed(_) => Some(Stored::Data { crc: None }),
        MapEntry::LegacyEntry(_) => None,
    }
}

/// Every hunk's data must lie inside the file, use a codec the header names, and copy only a
/// stored hunk before it (so that no copy leads to another, or to itself).
fn check_map(
    path: &Path,
    chd: &Chd<File>,
    len: u64,
    codecs: &[u32; 4],
    hunk_bytes: u32,
) -> Result<(), DiscError> {
    let map = chd.map();
    let bad = |hunk: usize, detail: String| DiscError::ChdHunk {
        path: path.to_path_buf(),
        hunk: hunk as u64,
        detail,
    };
    for n in 0..map.len() {
        let inside = |offset: u64, size: u64| offset.checked_add(size).is_some_and(|e| e <= len);
        match map.get_entry(n) {
            Some(MapEntry::V5Compressed(e)) => {
                let kind = e
                    .hunk_type()
                    .map_err(|_| bad(n, "unknown compression type in the map".into()))?;
                let codec = match kind {
                    CompressionTypeV5::CompressionType0 => Some(0),
                    CompressionTypeV5::CompressionType1 => Some(1),
                    CompressionTypeV5::CompressionType2 => Some(2),
                    CompressionTypeV5::CompressionType3 => Some(3),
                    _ => None,
                };
                match kind {
                    CompressionTypeV5::CompressionSelf => {
                        let of = e.block_offset();
                        let ok = of < n as u64
                            && matches!(
                                stored(map.get_entry(of as usize)),
                                Some(Stored::Data { .. })
                            );
                        if !ok {
                            return Err(bad(
                                n,
                                format!("copies hunk {of}, which is not a stored hunk before it"),
                            ));
                        }
                    }
                    CompressionTypeV5::CompressionParent => {
                        return Err(bad(n, "refers to a parent CHD".into()));
                    }
                    CompressionTypeV5::CompressionNone => {
                        if !inside(e.block_offset(), hunk_bytes as u64) {
                            return Err(bad(
                                n,
                                format!(
                                    "stored at offset {}, past the end of the file",
                                    e.block_offset()
                                ),
                            ));
                        }
                    }
                    _ => {
                        let Some(codec) = codec else {
                            return Err(bad(n, "map-only compression type in the map".into()));
                        };
                        if codecs[codec] == 0 {
                            return Err(bad(
                                n,
                                format!("uses codec slot {codec}, which the header leaves empty"),
                            ));
                        }
                        if e.block_size() == 0 || !inside(e.block_offset(), e.block_size() as u64) {
                            return Err(bad(
                                n,
                                format!(
                                    "{} compressed bytes at offset {}: not inside the file",
                                    e.block_size(),
                                    e.block_offset()
                                ),
                            ));
                        }
                    }
                }
            }
            Some(MapEntry::V5Uncompressed(e)) => {
                if e.block_offset() != 0 && !inside(e.block_offset(), hunk_bytes as u64) {
                    return Err(bad(
                        n,
                        format!(
                            "stored at offset {}, past the end of the file",
                            e.block_offset()
                        ),
                    ));
                }
            }
            _ => return Err(bad(n, "not a version 5 map entry".into())),
        }
    }
    Ok(())
}

/// One CD track from CHT2/CHTR metadata.
#[derive(Debug)]
struct Track {
    number: u32,
    kind: String,
    frames: u64,
    pregap: u64,
    pregap_stored: bool,
}

fn parse_track(path: &Path, text: &[u8]) -> Result<Track, DiscError> {
    let text = String::from_utf8_lossy(text);
    let text = text.trim_end_matches('\0');
    let mut track = Track {
        number: 0,
        kind: String::new(),
        frames: 0,
        pregap: 0,
        pregap_stored: false,
    };
    let bad =
        |what: &str| DiscError::corrupt(path, format!("CHD track metadata {text:?}: bad {what}"));
    for field in text.split_whitespace() {
        let Some((key, value)) = field.split_once(':') else {
            continue;
        };
        match key {
            "TRACK" => track.number = value.parse().map_err(|_| bad("TRACK"))?,
            "TYPE" => track.kind = value.to_string(),
            "FRAMES" => track.frames = value.parse().map_err(|_| bad("FRAMES"))?,
            "PREGAP" => track.pregap = value.parse().map_err(|_| bad("PREGAP"))?,
            "PGTYPE" => track.pregap_stored = value.starts_with('V'),
            _ => {}
        }
    }
    if track.kind.is_empty() {
        return Err(bad("TYPE"));
    }
    Ok(track)
}

/// Lays a CD's tracks out on the disc ([`CdTracks`]); `None` for a single data track.
fn cd_tracks(path: &Path, tracks: &[Track], units: u64) -> Result<Option<CdTracks>, DiscError> {
    if tracks.len() < 2 && tracks.iter().all(|t| t.kind != "AUDIO") {
        return Ok(None);
    }
    let (mut logical, mut unit) = (0i64, 0u64);
    let mut placed: Vec<(StoredTrack, i64)> = Vec::new();
    for t in tracks {
        if !t.pregap_stored {
            logical = logical.saturating_add(t.pregap as i64);
        }
        let index1 = logical.saturating_add(if t.pregap_stored { t.pregap as i64 } else { 0 });
        if unit.saturating_add(t.frames) > units {
            return Err(DiscError::truncated(
                path,
                format!(
                    "CHD track {} ends at frame {}, but the CHD holds {units}",
                    t.number,
                    unit.saturating_add(t.frames)
                ),
            ));
        }
        let number = u8::try_from(t.number)
            .ok()
            .filter(|n| (1..=99).contains(n))
            .ok_or_else(|| {
                DiscError::corrupt(path, format!("CHD track number {} is not 1..99", t.number))
            })?;
        placed.push((
            StoredTrack {
                track: crate::Track {
                    number,
                    audio: t.kind == "AUDIO",
                    start: 0,
                    sectors: 0,
                },
                lsn: logical,
                frames: t.frames,
                unit,
            },
            index1,
        ));
        logical = logical.saturating_add(t.frames as i64);
        unit = unit.saturating_add(t.frames.next_multiple_of(4));
    }
    let base = placed.first().map_or(0, |p| p.1);
    let lead_out = logical.saturating_sub(base).max(0) as u64;
    let mut out: Vec<StoredTrack> = placed
        .iter()
        .map(|(st, index1)| StoredTrack {
            track: crate::Track {
                start: index1.saturating_sub(base).max(0) as u64,
                ..st.track
            },
            lsn: st.lsn.saturating_sub(base),
            ..*st
        })
        .collect();
    for i in 0..out.len() {
        let next = out.get(i + 1).map_or(lead_out, |n| n.track.start);
        out[i].track.sectors = next.saturating_sub(out[i].track.start);
    }
    Ok(Some(CdTracks {
        tracks: out,
        lead_out,
    }))
}

/// Finds the first data track (CD) or the DVD sectors from the metadata, and a CD's tracks.
fn read_layout(
    path: &Path,
    chd: &mut Chd<File>,
    logical: u64,
    unit_bytes: u32,
) -> Result<(Layout, Option<CdTracks>), DiscError> {
    let refs: Vec<_> = chd.metadata_refs().take(MAX_METADATA).collect();
    let mut tracks = Vec::new();
    let mut dvd = false;
    for r in refs {
        let r = r.map_err(|e| DiscError::corrupt(path, format!("CHD metadata: {e}")))?;
        match r.metatag() {
            TAG_CHT2 | TAG_CHTR => {
                let meta = r
                    .read(chd.inner())
                    .map_err(|e| DiscError::corrupt(path, format!("CHD metadata: {e}")))?;
                tracks.push(parse_track(path, &meta.value)?);
            }
            TAG_DVD => dvd = true,
            TAG_CHCD => {
                return Err(DiscError::unsupported(
                    path,
                    "old binary CHCD track metadata; re-create the CHD with a current chdman",
                ));
            }
            _ => {}
        }
    }
    let units = logical / unit_bytes as u64;
    if tracks.is_empty() {
        if !(dvd || unit_bytes == SECTOR_SIZE as u32) {
            return Err(DiscError::unsupported(
                path,
                "a CHD with neither CD track nor DVD metadata (a hard disk or LaserDisc?)",
            ));
        }
        if unit_bytes != SECTOR_SIZE as u32 {
            return Err(DiscError::corrupt(
                path,
                format!("a DVD CHD's units must be 2048 bytes, not {unit_bytes}"),
            ));
        }
        return Ok((
            Layout {
                unit_bytes,
                first_unit: 0,
                sectors: units,
                user_offset: 0,
                raw: false,
                kind: MediaKind::Dvd,
            },
            None,
        ));
    }
    if unit_bytes != CD_FRAME {
        return Err(DiscError::corrupt(
            path,
            format!("a CD CHD's units must be 2448-byte frames, not {unit_bytes}"),
        ));
    }
    tracks.sort_by_key(|t| t.number);
    let cd = cd_tracks(path, &tracks, units)?;
    let mut chd_frame = 0u64;
    for t in &tracks {
        let (user_offset, raw) = match t.kind.as_str() {
            "AUDIO" => {
                chd_frame = chd_frame.saturating_add(t.frames.next_multiple_of(4));
                continue;
            }
            "MODE1" | "MODE2_FORM1" => (0, false),
            "MODE1_RAW" => (16, true),
            "MODE2_RAW" => (24, true),
            "MODE2" | "MODE2_FORM_MIX" => (8, false),
            other => {
                return Err(DiscError::unsupported(
                    path,
                    format!("CHD data track {} of type {other}", t.number),
                ));
            }
        };
        let gap = if t.pregap_stored { t.pregap } else { 0 };
        let sectors = t.frames.checked_sub(gap).ok_or_else(|| {
            DiscError::corrupt(
                path,
                format!("CHD track {}: pregap over its frames", t.number),
            )
        })?;
        let first_unit = chd_frame.saturating_add(gap);
        if first_unit.saturating_add(sectors) > units {
            return Err(DiscError::truncated(
                path,
                format!(
                    "CHD track {} ends at frame {}, but the CHD holds {units}",
                    t.number,
                    first_unit.saturating_add(sectors)
                ),
            ));
        }
        return Ok((
            Layout {
                unit_bytes,
                first_unit,
                sectors,
                user_offset,
                raw,
                kind: if sectors > crate::sector::MAX_CD_SECTORS {
                    MediaKind::Dvd
                } else {
                    MediaKind::Cd
                },
            },
            cd,
        ));
    }
    // Audio tracks only: an audio CD, no data sectors.
    Ok((
        Layout {
            unit_bytes,
            first_unit: 0,
            sectors: 0,
            user_offset: 0,
            raw: false,
            kind: MediaKind::Cd,
        },
        cd,
    ))
}

impl SectorSource for ChdSource {
    fn sector_count(&self) -> u64 {
        self.layout.sectors
    }

    fn kind(&self) -> MediaKind {
        self.layout.kind
    }

    fn path(&self) -> &Path {
        &self.path
    }

    fn read_user(&mut self, lba: u64, buf: &mut [u8; SECTOR_SIZE]) -> Result<(), DiscError> {
        let layout = self.layout;
        let unit = self.unit(lba)?;
        let at = if layout.raw {
            user_offset(unit, layout.user_offset)
        } else {
            layout.user_offset
        };
        buf.copy_from_slice(&unit[at..at + SECTOR_SIZE]);
        Ok(())
    }

    fn has_raw(&self) -> bool {
        self.layout.raw
    }

    fn read_raw(&mut self, lba: u64, buf: &mut [u8; RAW_SECTOR_SIZE]) -> Result<(), DiscError> {
        if !self.layout.raw {
            return Err(DiscError::invalid(
                &self.path,
                "this CHD's data track is cooked (2048-byte sectors): no raw 2352-byte sectors",
            ));
        }
        let unit = self.unit(lba)?;
        buf.copy_from_slice(&unit[..RAW_SECTOR_SIZE]);
        Ok(())
    }

    fn toc(&self) -> Option<(Vec<crate::Track>, u64)> {
        let cd = self.cd.as_ref()?;
        Some((cd.tracks.iter().map(|t| t.track).collect(), cd.lead_out))
    }

    fn read_cdda(&mut self, lsn: u64, buf: &mut [u8; RAW_SECTOR_SIZE]) -> Result<(), DiscError> {
        let Some(cd) = &self.cd else {
            return self.read_raw(lsn, buf);
        };
        if lsn >= cd.lead_out {
            return Err(DiscError::past_end(&self.path, lsn, cd.lead_out));
        }
        let at = lsn as i64;
        let Some(t) = cd
            .tracks
            .iter()
            .find(|t| t.lsn <= at && at < t.lsn.saturating_add(t.frames as i64))
            .copied()
        else {
            // A pregap the CHD does not store: silence.
            buf.fill(0);
            return Ok(());
        };
        if !t.track.audio && !self.layout.raw {
            return Err(DiscError::invalid(
                &self.path,
                "this CHD's data track is cooked (2048-byte sectors): no raw 2352-byte sectors",
            ));
        }
        let unit = self.unit_at(t.unit + (at - t.lsn) as u64)?;
        buf.copy_from_slice(&unit[..RAW_SECTOR_SIZE]);
        if t.track.audio {
            for pair in buf.chunks_exact_mut(2) {
                pair.swap(0, 1);
            }
        }
        Ok(())
    }
}
