//! The crate's one error type.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// Everything that can go wrong opening or reading a disc image. Every variant names the file
/// (the image, or the cue sheet/SYSTEM.CNF it came from) and the reason.
#[derive(Debug, thiserror::Error)]
pub enum DiscError {
    /// The operating system refused a read or an open.
    #[error("{}: {source}", q(&.path.display().to_string()))]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// The file is shorter than its own header, index or volume descriptor says it is.
    #[error("{}: truncated image: {}", q(&.path.display().to_string()), q(.detail))]
    Truncated { path: PathBuf, detail: String },
    /// A container's magic bytes or signature are wrong.
    #[error("{}: bad magic: {}", q(&.path.display().to_string()), q(.detail))]
    BadMagic { path: PathBuf, detail: String },
    /// A format, version or feature this crate does not read.
    #[error("{}: unsupported: {}", q(&.path.display().to_string()), q(.detail))]
    Unsupported { path: PathBuf, detail: String },
    /// A header field or index entry that cannot be right (out of range, out of order).
    #[error("{}: corrupt image: {}", q(&.path.display().to_string()), q(.detail))]
    Corrupt { path: PathBuf, detail: String },
    /// A CHD hunk that does not decompress, or whose checksum does not match.
    #[error("{}: CHD hunk {hunk}: {}", q(&.path.display().to_string()), q(.detail))]
    ChdHunk {
        path: PathBuf,
        hunk: u64,
        detail: String,
    },
    /// A compressed CSO/ZSO block that does not decompress to its size.
    #[error("{}: {format} block {block}: {}", q(&.path.display().to_string()), q(.detail))]
    Block {
        path: PathBuf,
        format: &'static str,
        block: u64,
        detail: String,
    },
    /// A sector number at or past the end of the disc.
    #[error("{}: read past the end of the disc: LBA {lba} (the disc has {sectors} sectors)", q(&.path.display().to_string()))]
    PastEnd {
        path: PathBuf,
        lba: u64,
        sectors: u64,
    },
    /// A cue sheet line that cannot be used.
    #[error("{}: cue sheet line {line}: {}", q(&.path.display().to_string()), q(.detail))]
    Cue {
        path: PathBuf,
        line: usize,
        detail: String,
    },
    /// ISO 9660 structures (volume descriptors, directory records) that cannot be right.
    #[error("{}: ISO 9660: {}", q(&.path.display().to_string()), q(.detail))]
    FileSystem { path: PathBuf, detail: String },
    /// A path looked up on the disc that is not there.
    #[error("{}: no file {} on the disc", q(&.path.display().to_string()), q(.name))]
    NotFound { path: PathBuf, name: String },
    /// The disc's root directory has no SYSTEM.CNF.
    #[error("{}: no SYSTEM.CNF in the disc's root directory", q(&.path.display().to_string()))]
    NoSystemCnf { path: PathBuf },
    /// A SYSTEM.CNF that cannot be parsed; `line` is 1-based where one line is to blame.
    #[error("{}: SYSTEM.CNF{}: {}", q(&.path.display().to_string()), LineSuffix(*line), q(.detail))]
    SystemCnf {
        path: PathBuf,
        line: Option<usize>,
        detail: String,
    },
    /// SYSTEM.CNF's BOOT2 names a file the disc does not have.
    #[error("{}: SYSTEM.CNF's BOOT2 names {}, which is not on the disc", q(&.path.display().to_string()), q(.boot))]
    BootFileMissing { path: PathBuf, boot: String },
    /// A PlayStation 1 disc (SYSTEM.CNF has `BOOT =`, not `BOOT2 =`).
    #[error("{}: a PlayStation 1 disc (SYSTEM.CNF: BOOT = {}); PS1 discs are not supported", q(&.path.display().to_string()), q(.boot))]
    Ps1Disc { path: PathBuf, boot: String },
    /// A caller's mistake: a buffer of the wrong size, raw sectors from an image without them.
    #[error("{}: {}", q(&.path.display().to_string()), q(.detail))]
    InvalidRequest { path: PathBuf, detail: String },
}

/// Text from an image, a cue sheet or SYSTEM.CNF (or a file name one of them gave) as it goes
/// into a message: control characters escaped as Rust writes them, at most 200 characters
/// written, so that every error is one line whatever the disc holds.
fn q(s: &str) -> String {
    let mut out = String::new();
    // The cut counts what is written (an escape is several characters).
    let mut written = 0;
    for c in s.chars() {
        let piece: String = if c.is_control() {
            c.escape_debug().collect()
        } else {
            c.to_string()
        };
        written += piece.chars().count();
        if written > 200 {
            out.push_str("...");
            break;
        }
        out.push_str(&piece);
    }
    out
}

struct LineSuffix(Option<usize>);

impl fmt::Display for LineSuffix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(line) => write!(f, " line {line}"),
            None => Ok(()),
        }
    }
}

impl DiscError {
    // Shorthands for the variants, for this crate and for other `SectorSource` implementations.

    /// An `Io` error for `path`.
    pub fn io(path: &Path, source: io::Error) -> Self {
        DiscError::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    /// A `Truncated` error for `path`.
    pub fn truncated(path: &Path, detail: impl Into<String>) -> Self {
        DiscError::Truncated {
            path: path.to_path_buf(),
            detail: detail.into(),
        }
    }

    /// A `Corrupt` error for `path`.
    pub fn corrupt(path: &Path, detail: impl Into<String>) -> Self {
        DiscError::Corrupt {
            path: path.to_path_buf(),
            detail: detail.into(),
        }
    }

    /// An `Unsupported` error for `path`.
    pub fn unsupported(path: &Path, detail: impl Into<String>) -> Self {
        DiscError::Unsupported {
            path: path.to_path_buf(),
            detail: detail.into(),
        }
    }

    /// A `BadMagic` error for `path`.
    pub fn bad_magic(path: &Path, detail: impl Into<String>) -> Self {
        DiscError::BadMagic {
            path: path.to_path_buf(),
            detail: detail.into(),
        }
    }

    /// A `FileSystem` error for `path`.
    pub fn fs(path: &Path, detail: impl Into<String>) -> Self {
        DiscError::FileSystem {
            path: path.to_path_buf(),
            detail: detail.into(),
        }
    }

    /// A `PastEnd` error: `lba` read from a disc of `sectors`.
    pub fn past_end(path: &Path, lba: u64, sectors: u64) -> Self {
        DiscError::PastEnd {
            path: path.to_path_buf(),
            lba,
            sectors,
        }
    }

    /// An `InvalidRequest` error for `path`.
    pub fn invalid(path: &Path, detail: impl Into<String>) -> Self {
        DiscError::InvalidRequest {
            path: path.to_path_buf(),
            detail: detail.into(),
        }
    }
}
