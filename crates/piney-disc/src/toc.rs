//! A CD's table of contents and its whole 2352-byte sectors, audio (CD-DA) tracks included.
//!
//! Disc sector numbers (LSN) are the drive's: LSN 0 is track 1's INDEX 01, which the disc's
//! time calls 00:02:00 (150 sectors of lead-in before it, Red Book / ECMA-130 section 22).
//! A cue sheet lays its tracks out one after another: the files in the order the sheet names
//! them, each track from its first INDEX in its file, `PREGAP` silence (not in any file) added
//! before the track that has one. A track ends where the next begins; the last ends at the
//! lead-out. Sectors in a PREGAP read as silence (zeros); CD-DA sectors are 588 stereo frames
//! of 16-bit little-endian samples, left first, at 44.1 kHz, as the file holds them.

use std::fs::File;
use std::path::{Path, PathBuf};

use crate::cue::{CueMode, CueTrack};
use crate::sector::{RAW_SECTOR_SIZE, SECTOR_SIZE, file_len, read_exact_at};
use crate::{DiscError, MediaKind, SectorSource};

/// One track of a disc's table of contents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Track {
    /// Its number, 1..99.
    pub number: u8,
    /// Audio (CD-DA) rather than data.
    pub audio: bool,
    /// Its INDEX 01 as a disc sector number.
    pub start: u64,
    /// Sectors from `start` to the next track's start (or to the lead-out).
    pub sectors: u64,
}

/// Where one track's sectors are in the image.
#[derive(Debug, Clone)]
struct Placed {
    track: Track,
    /// Index into [`CueLayout::files`].
    file: usize,
    /// Bytes per sector in that file.
    sector_size: u32,
    /// Disc sectors `in_file.0..in_file.1` are in the file, sector `in_file.0` at `file_sector`.
    in_file: (i64, i64),
    file_sector: u64,
}

/// A cue sheet's tracks laid out on the disc, with their files open.
pub(crate) struct CueLayout {
    cue: PathBuf,
    files: Vec<(PathBuf, File)>,
    placed: Vec<Placed>,
    lead_out: u64,
}

impl CueLayout {
    /// Lays out every track of `tracks` (parsed from the sheet at `cue`), opening their files
    /// from `dir`.
    pub(crate) fn new(cue: &Path, dir: &Path, tracks: &[CueTrack]) -> Result<Self, DiscError> {
        let bad = |line: usize, detail: String| DiscError::Cue {
            path: cue.to_path_buf(),
            line,
            detail,
        };
        let mut files: Vec<(PathBuf, File)> = Vec::new();
        let mut names: Vec<&str> = Vec::new();
        // (track, file, size, first abs, index 01 abs, file frame of first)
        let mut raw: Vec<(&CueTrack, usize, u32, i64, i64, u64)> = Vec::new();
        // Disc position (before normalising) of the current file's frame 0, and the file's
        // frames; the PREGAP silence so far.
        let mut file_pos: i64 = 0;
        let mut file_frames: Vec<u64> = Vec::new();
        let mut shift: i64 = 0;
        for t in tracks {
            let Some(size) = t.mode.sector_size() else {
                let mode = match &t.mode {
                    CueMode::Other(m) => m.as_str(),
                    _ => "?",
                };
                return Err(bad(
                    t.line,
                    format!(
                        "track mode {mode} is not supported (AUDIO, MODE1/2048, MODE1/2352, MODE2/2352, MODE2/2336)"
                    ),
                ));
            };
            if names.last() != Some(&t.file.as_str()) {
                if let Some(&frames) = file_frames.last() {
                    file_pos = file_pos.saturating_add(frames as i64);
                }
                let path = dir.join(&t.file);
                let file = File::open(&path)
                    .map_err(|e| bad(t.line, format!("cannot open {}: {e}", path.display())))?;
                let len = file_len(&file, &path)?;
                file_frames.push(len / u64::from(size));
                names.push(&t.file);
                files.push((path, file));
            }
            let Some(index1) = t.index1 else {
                return Err(bad(t.line, format!("track {} has no INDEX 01", t.number)));
            };
            let first = t.first_index.unwrap_or(index1).min(index1);
            shift = shift.saturating_add(t.pregap as i64);
            let at = |frame: u64| file_pos.saturating_add(frame as i64).saturating_add(shift);
            raw.push((t, files.len() - 1, size, at(first), at(index1), first));
        }
        let Some(&(_, _, _, _, base, _)) = raw.first() else {
            return Err(bad(0, "no TRACK".into()));
        };
        let mut placed: Vec<Placed> = Vec::with_capacity(raw.len());
        for (i, &(t, file, size, first, index1, file_first)) in raw.iter().enumerate() {
            let frames = file_frames[file] as i64;
            // The in-file part ends at the next track of the same file, else at the file's end.
            let end = match raw.get(i + 1) {
                Some(&(_, f, _, next_first, _, _)) if f == file => {
                    next_first.saturating_sub(raw[i + 1].0.pregap as i64)
                }
                _ => first.saturating_add(frames.saturating_sub(file_first as i64)),
            };
            if end < first || file_first as i64 > frames {
                return Err(bad(
                    t.line,
                    format!("track {} ends before it starts in its file", t.number),
                ));
            }
            let number = t.number;
            if let Some(prev) = placed.last()
                && prev.track.number >= number
            {
                return Err(bad(
                    t.line,
                    format!("track {number} follows track {}", prev.track.number),
                ));
            }
            let start = index1.saturating_sub(base);
            if start < 0 {
                return Err(bad(t.line, format!("track {number} starts before track 1")));
            }
            placed.push(Placed {
                track: Track {
                    number,
                    audio: t.mode == CueMode::Audio,
                    start: start as u64,
                    sectors: 0,
                },
                file,
                sector_size: size,
                in_file: (first.saturating_sub(base), end.saturating_sub(base)),
                file_sector: file_first,
            });
        }
        let lead_out = placed
            .last()
            .map_or(0, |p| p.in_file.1.max(p.track.start as i64) as u64);
        for i in 0..placed.len() {
            let next = placed.get(i + 1).map_or(lead_out, |n| n.track.start);
            placed[i].track.sectors = next.saturating_sub(placed[i].track.start);
        }
        Ok(CueLayout {
            cue: cue.to_path_buf(),
            files,
            placed,
            lead_out,
        })
    }

    pub(crate) fn tracks(&self) -> Vec<Track> {
        self.placed.iter().map(|p| p.track).collect()
    }

    pub(crate) fn lead_out(&self) -> u64 {
        self.lead_out
    }

    /// The whole sector `lsn`: from its track's file, or silence in a PREGAP.
    pub(crate) fn read_raw(
        &mut self,
        lsn: u64,
        buf: &mut [u8; RAW_SECTOR_SIZE],
    ) -> Result<(), DiscError> {
        if lsn >= self.lead_out {
            return Err(DiscError::past_end(&self.cue, lsn, self.lead_out));
        }
        let at = lsn as i64;
        let Some(p) = self
            .placed
            .iter()
            .find(|p| p.in_file.0 <= at && at < p.in_file.1)
        else {
            buf.fill(0);
            return Ok(());
        };
        if p.sector_size != RAW_SECTOR_SIZE as u32 {
            return Err(DiscError::invalid(
                &self.cue,
                format!(
                    "track {} holds {}-byte sectors, not whole 2352-byte ones",
                    p.track.number, p.sector_size
                ),
            ));
        }
        let sector = p.file_sector + (at - p.in_file.0) as u64;
        let (path, file) = &mut self.files[p.file];
        read_exact_at(file, path, sector * RAW_SECTOR_SIZE as u64, buf)
    }
}

/// The data source of a disc with no data track (an audio CD): no 2048-byte sectors at all.
pub(crate) struct NoData {
    pub(crate) path: PathBuf,
}

impl SectorSource for NoData {
    fn sector_count(&self) -> u64 {
        0
    }
    fn kind(&self) -> MediaKind {
        MediaKind::Cd
    }
    fn path(&self) -> &Path {
        &self.path
    }
    fn read_user(&mut self, lba: u64, _buf: &mut [u8; SECTOR_SIZE]) -> Result<(), DiscError> {
        Err(DiscError::past_end(&self.path, lba, 0))
    }
}
