//! Cue sheets: which file holds the first data track, in what sector mode, from which sector.
//!
//! Only what a PS2 image needs is read: `FILE "name" BINARY`, `TRACK nn MODE`, and
//! `INDEX nn mm:ss:ff` (75 frames a second, counted from the start of the FILE), and
//! `PREGAP mm:ss:ff` (silence before a track that is not in the file). Other commands (REM,
//! FLAGS, POSTGAP, TITLE...) are skipped. The data track runs from its INDEX 01 to the next
//! track's first index in the same file, or to the end of the file.

use std::path::Path;

use crate::DiscError;

/// A track's sector format, as the cue sheet names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CueMode {
    Audio,
    /// `MODE1/2048`: cooked sectors, user data only.
    Mode1Cooked,
    /// `MODE1/2352`: raw sectors, user data at 16.
    Mode1Raw,
    /// `MODE2/2352`: raw sectors, Form 1 user data at 24.
    Mode2Raw,
    /// `MODE2/2336`: no sync or header, Form 1 user data at 8.
    Mode2Headerless,
    Other(String),
}

impl CueMode {
    fn parse(text: &str) -> CueMode {
        match text.to_ascii_uppercase().as_str() {
            "AUDIO" => CueMode::Audio,
            "MODE1/2048" => CueMode::Mode1Cooked,
            "MODE1/2352" => CueMode::Mode1Raw,
            "MODE2/2352" => CueMode::Mode2Raw,
            "MODE2/2336" => CueMode::Mode2Headerless,
            _ => CueMode::Other(text.to_string()),
        }
    }

    /// Bytes per sector in the file.
    pub(crate) fn sector_size(&self) -> Option<u32> {
        match self {
            CueMode::Mode1Cooked => Some(2048),
            CueMode::Audio | CueMode::Mode1Raw | CueMode::Mode2Raw => Some(2352),
            CueMode::Mode2Headerless => Some(2336),
            CueMode::Other(_) => None,
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct CueTrack {
    pub(crate) file: String,
    pub(crate) mode: CueMode,
    /// The track's number, 1..99.
    pub(crate) number: u8,
    /// The cue sheet line of the TRACK command, for errors.
    pub(crate) line: usize,
    /// The first INDEX of the track (00 or 01), and INDEX 01, in frames from the file's start.
    pub(crate) first_index: Option<u64>,
    pub(crate) index1: Option<u64>,
    /// PREGAP: frames of silence before the track that are not in the file.
    pub(crate) pregap: u64,
}

/// Whether `bytes` look like a cue sheet: text with a FILE and a TRACK command.
pub(crate) fn looks_like_cue(bytes: &[u8]) -> bool {
    if bytes.contains(&0) {
        return false;
    }
    let Ok(text) = std::str::from_utf8(strip_bom(bytes)) else {
        return false;
    };
    let mut file = false;
    let mut track = false;
    for line in text.lines() {
        let mut words = line.split_whitespace();
        match words.next().map(str::to_ascii_uppercase).as_deref() {
            Some("FILE") => file = true,
            Some("TRACK") => track = true,
            _ => {}
        }
    }
    file && track
}

fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
}

/// `mm:ss:ff` to frames.
fn parse_msf(text: &str) -> Option<u64> {
    let mut parts = text.split(':');
    let m: u64 = parts.next()?.parse().ok()?;
    let s: u64 = parts.next()?.parse().ok()?;
    let f: u64 = parts.next()?.parse().ok()?;
    if parts.next().is_some() || s >= 60 || f >= 75 || m > 999 {
        return None;
    }
    Some((m * 60 + s) * 75 + f)
}

/// The FILE command's name: quoted (spaces allowed) or a single word; the file type follows.
fn parse_file_name(rest: &str) -> Option<String> {
    let rest = rest.trim();
    if let Some(quoted) = rest.strip_prefix('"') {
        let end = quoted.find('"')?;
        Some(quoted[..end].to_string())
    } else {
        rest.split_whitespace().next().map(str::to_string)
    }
}

/// Parses every track of a cue sheet.
pub(crate) fn parse(path: &Path, bytes: &[u8]) -> Result<Vec<CueTrack>, DiscError> {
    let err = |line: usize, detail: String| DiscError::Cue {
        path: path.to_path_buf(),
        line,
        detail,
    };
    let text = std::str::from_utf8(strip_bom(bytes))
        .map_err(|e| err(0, format!("not UTF-8 text ({e})")))?;
    let mut file: Option<String> = None;
    let mut tracks: Vec<CueTrack> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line_no = n + 1;
        let trimmed = line.trim();
        let (word, rest) = match trimmed.split_once(char::is_whitespace) {
            Some((w, r)) => (w, r.trim()),
            None => (trimmed, ""),
        };
        match word.to_ascii_uppercase().as_str() {
            "FILE" => {
                let name = parse_file_name(rest)
                    .ok_or_else(|| err(line_no, "FILE without a file name".into()))?;
                file = Some(name);
            }
            "TRACK" => {
                let Some(file) = file.clone() else {
                    return Err(err(line_no, "TRACK before any FILE".into()));
                };
                let mut words = rest.split_whitespace();
                let number = words.next().and_then(|w| w.parse::<u32>().ok());
                let mode = words.next();
                let (Some(number), Some(mode)) = (number, mode) else {
                    return Err(err(
                        line_no,
                        format!("TRACK needs a number and a mode, not \"{rest}\""),
                    ));
                };
                if number == 0 || number > 99 {
                    return Err(err(line_no, format!("track number {number} is not 1..99")));
                }
                tracks.push(CueTrack {
                    file,
                    mode: CueMode::parse(mode),
                    number: number as u8,
                    line: line_no,
                    first_index: None,
                    index1: None,
                    pregap: 0,
                });
            }
            "INDEX" => {
                let Some(track) = tracks.last_mut() else {
                    return Err(err(line_no, "INDEX before any TRACK".into()));
                };
                let mut words = rest.split_whitespace();
                let number = words.next().and_then(|w| w.parse::<u32>().ok());
                let at = words.next().and_then(parse_msf);
                let (Some(number), Some(at)) = (number, at) else {
                    return Err(err(
                        line_no,
                        format!("INDEX needs a number and mm:ss:ff, not \"{rest}\""),
                    ));
                };
                if track.first_index.is_none() {
                    track.first_index = Some(at);
                }
                if number == 1 {
                    track.index1 = Some(at);
                }
            }
            "PREGAP" => {
                let Some(track) = tracks.last_mut() else {
                    return Err(err(line_no, "PREGAP before any TRACK".into()));
                };
                track.pregap = parse_msf(rest).ok_or_else(|| {
                    err(line_no, format!("PREGAP needs mm:ss:ff, not \"{rest}\""))
                })?;
            }
            _ => {}
        }
    }
    if tracks.is_empty() {
        return Err(err(0, "no TRACK".into()));
    }
    Ok(tracks)
}

/// The first data track and where it ends in its file, in frames (None: the end of the file).
pub(crate) fn first_data_track(
    path: &Path,
    tracks: &[CueTrack],
) -> Result<(CueTrack, Option<u64>), DiscError> {
    let Some(pos) = tracks.iter().position(|t| t.mode != CueMode::Audio) else {
        return Err(DiscError::unsupported(
            path,
            "the cue sheet has only audio tracks",
        ));
    };
    let track = tracks[pos].clone();
    if let CueMode::Other(mode) = &track.mode {
        return Err(DiscError::Cue {
            path: path.to_path_buf(),
            line: track.line,
            detail: format!(
                "track mode {mode} is not supported (MODE1/2048, MODE1/2352, MODE2/2352, MODE2/2336)"
            ),
        });
    }
    let Some(start) = track.index1 else {
        return Err(DiscError::Cue {
            path: path.to_path_buf(),
            line: track.line,
            detail: "the data track has no INDEX 01".into(),
        });
    };
    let end = tracks[pos + 1..]
        .iter()
        .find(|t| t.file == track.file)
        .and_then(|t| t.first_index);
    if let Some(end) = end
        && end < start
    {
        return Err(DiscError::Cue {
            path: path.to_path_buf(),
            line: track.line,
            detail: format!("the next track starts at frame {end}, before this one ({start})"),
        });
    }
    Ok((track, end))
}
