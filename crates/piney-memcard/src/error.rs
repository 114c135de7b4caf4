//! Errors: [`CardError`] says what is wrong with the storage (host I/O, a bad image, a bad
//! sidecar) naming the path and the place; [`McError`] is what an mcserv operation returns to
//! the EE, carrying the console's result code.
//!
//! Contract: every [`McError`] maps to exactly one `sceMcRes*` value through [`McError::code`];
//! the values are ps2sdk's (`common/include/libmc-common.h`, used by `iop/memorycard/mcman`).

use std::io;
use std::path::PathBuf;

/// The console's MCMAN result codes (`sceMcRes*`, ps2sdk `common/include/libmc-common.h`).
/// libmc hands them to the EE unchanged through `mcSync`.
pub mod res {
    /// `sceMcResSucceed`: success.
    pub const SUCCEED: i32 = 0;
    /// `sceMcResChangedCard`: a different card was inserted (or, from `mcGetInfo`, a formatted
    /// card is new since the last call).
    pub const CHANGED_CARD: i32 = -1;
    /// `sceMcResNoFormat`: the card is not formatted.
    pub const NO_FORMAT: i32 = -2;
    /// `sceMcResFullDevice`: no free cluster left.
    pub const FULL_DEVICE: i32 = -3;
    /// `sceMcResNoEntry`: no such file or directory; also a bad name, an existing directory
    /// given to `mcMkDir`, or an existing name given to `mcRename`.
    pub const NO_ENTRY: i32 = -4;
    /// `sceMcResDeniedPermit`: not allowed (bad fd, a read/write the handle was not opened for,
    /// a read-only entry, a file another handle has open).
    pub const DENIED_PERMIT: i32 = -5;
    /// `sceMcResNotEmpty`: deleting a directory that still has entries.
    pub const NOT_EMPTY: i32 = -6;
    /// `sceMcResUpLimitHandle`: all file descriptors are in use.
    pub const UP_LIMIT_HANDLE: i32 = -7;
    /// `sceMcResFailReplace`: bad-block replacement failed (never produced here).
    pub const FAIL_REPLACE: i32 = -8;
    /// `sceMcResFailResetAuth` (never produced here).
    pub const FAIL_RESET_AUTH: i32 = -11;
    /// `sceMcResFailDetect` (never produced here).
    pub const FAIL_DETECT: i32 = -12;
    /// `sceMcResFailDetect2` (never produced here).
    pub const FAIL_DETECT2: i32 = -13;
    /// `sceMcResDeniedPS1Permit` (never produced here).
    pub const DENIED_PS1_PERMIT: i32 = -51;
    /// `sceMcResFailAuth` (never produced here).
    pub const FAIL_AUTH: i32 = -90;
    /// What a [`super::McError::Card`] reports: -71 is what MCMAN's `McReadDirEntry` returns
    /// when a cluster of the card cannot be read. MCMAN treats every code below -9 as a device
    /// failure and invalidates the card's handles; so does this crate.
    pub const DEVICE_FAILURE: i32 = -71;
}

/// Something wrong with the storage behind a card, naming the file and the place.
#[derive(Debug, thiserror::Error)]
pub enum CardError {
    /// A host file operation failed.
    #[error("{}: {op}: {source}", .path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What was being done ("read", "write", "sync", ...).
        op: &'static str,
        /// The host's error.
        #[source]
        source: io::Error,
    },
    /// An image file whose size is not one of a card's.
    #[error(
        "{}: {size} bytes is not a PS2 memory card image (an 8 MiB card is 8650752 bytes with \
         spare area, 8388608 without; 16, 32 and 64 MiB cards scale alike)",
        .path.display()
    )]
    BadSize {
        /// The image file.
        path: PathBuf,
        /// Its size.
        size: u64,
    },
    /// Page 0 is neither erased nor a superblock.
    #[error(
        "{}: page 0 holds no \"Sony PS2 Memory Card Format \" superblock (and is not erased)",
        .path.display()
    )]
    BadMagic {
        /// The image file.
        path: PathBuf,
    },
    /// A superblock this crate does not handle (version, geometry, card type).
    #[error("{}: {what}", .path.display())]
    Unsupported {
        /// The image file.
        path: PathBuf,
        /// What and where.
        what: String,
    },
    /// A page whose ECC does not match its data.
    #[error("{}: ECC mismatch in page {page} ({what}), bytes {}..{}", .path.display(), .chunk * 128, .chunk * 128 + 128)]
    Ecc {
        /// The image file.
        path: PathBuf,
        /// Page number (0..16384 on an 8 MiB card).
        page: u32,
        /// The 128-byte chunk of the page (0..4).
        chunk: u32,
        /// What the page belongs to.
        what: String,
    },
    /// The filesystem contradicts itself (FAT loops, out-of-range clusters, lengths past the
    /// end of a chain...).
    #[error("{}: {what}", .path.display())]
    Corrupt {
        /// The image file.
        path: PathBuf,
        /// What and where.
        what: String,
    },
    /// A folder card's sidecar file that does not parse.
    #[error("{} line {line}: {what}", .path.display())]
    Sidecar {
        /// The sidecar file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        what: String,
    },
    /// The path is neither a directory nor a regular file.
    #[error("{}: not a memory card (neither a folder nor an image file)", .path.display())]
    NotACard {
        /// The path.
        path: PathBuf,
    },
    /// An earlier error found the image corrupt; it is not read or written any more.
    #[error("{}: not used after an earlier corruption error", .path.display())]
    Poisoned {
        /// The image file.
        path: PathBuf,
    },
}

impl CardError {
    /// A host I/O error.
    pub(crate) fn io(path: impl Into<PathBuf>, op: &'static str, source: io::Error) -> Self {
        CardError::Io {
            path: path.into(),
            op,
            source,
        }
    }
}

/// The result of a failed mcserv operation, as the EE sees it.
#[derive(Debug, thiserror::Error)]
pub enum McError {
    /// `sceMcResChangedCard` (-1).
    #[error("sceMcResChangedCard (-1)")]
    ChangedCard,
    /// `sceMcResNoFormat` (-2).
    #[error("sceMcResNoFormat (-2): the card is not formatted")]
    NoFormat,
    /// `sceMcResFullDevice` (-3).
    #[error("sceMcResFullDevice (-3): the card is full")]
    FullDevice,
    /// `sceMcResNoEntry` (-4).
    #[error("sceMcResNoEntry (-4): no such entry, or a bad name")]
    NoEntry,
    /// `sceMcResDeniedPermit` (-5).
    #[error("sceMcResDeniedPermit (-5)")]
    DeniedPermit,
    /// `sceMcResNotEmpty` (-6).
    #[error("sceMcResNotEmpty (-6): the directory is not empty")]
    NotEmpty,
    /// `sceMcResUpLimitHandle` (-7).
    #[error("sceMcResUpLimitHandle (-7): no free file descriptor")]
    UpLimitHandle,
    /// The storage failed; reported to the EE as [`res::DEVICE_FAILURE`], except a host disk
    /// that is full, reported as `sceMcResFullDevice`.
    #[error(transparent)]
    Card(#[from] CardError),
}

/// Why a [`crate::CardSession`] cannot be put back on a card: what the session had (the
/// current directory, an open file or directory, a listing), its path on the card, and why.
#[derive(Debug, thiserror::Error)]
#[error("{what} {} cannot be found on the card again: {source}", String::from_utf8_lossy(.path))]
pub struct RestoreError {
    /// "the current directory", "the open file", "the open directory" or "the listing of".
    pub what: &'static str,
    /// Its absolute path on the card.
    pub path: Vec<u8>,
    /// What the card answered (a missing entry, a file where a directory was, a storage
    /// failure).
    pub source: McError,
}

impl McError {
    /// The `sceMcRes*` value the EE receives.
    pub fn code(&self) -> i32 {
        match self {
            McError::ChangedCard => res::CHANGED_CARD,
            McError::NoFormat => res::NO_FORMAT,
            McError::FullDevice => res::FULL_DEVICE,
            McError::NoEntry => res::NO_ENTRY,
            McError::DeniedPermit => res::DENIED_PERMIT,
            McError::NotEmpty => res::NOT_EMPTY,
            McError::UpLimitHandle => res::UP_LIMIT_HANDLE,
            McError::Card(CardError::Io { source, .. })
                if source.kind() == io::ErrorKind::StorageFull =>
            {
                res::FULL_DEVICE
            }
            McError::Card(_) => res::DEVICE_FAILURE,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_the_consoles() {
        assert_eq!(McError::ChangedCard.code(), -1);
        assert_eq!(McError::NoFormat.code(), -2);
        assert_eq!(McError::FullDevice.code(), -3);
        assert_eq!(McError::NoEntry.code(), -4);
        assert_eq!(McError::DeniedPermit.code(), -5);
        assert_eq!(McError::NotEmpty.code(), -6);
        assert_eq!(McError::UpLimitHandle.code(), -7);
        let full = McError::Card(CardError::io(
            "x",
            "write",
            io::Error::from(io::ErrorKind::StorageFull),
        ));
        assert_eq!(full.code(), -3);
        let other = McError::Card(CardError::Corrupt {
            path: "card.ps2".into(),
            what: "x".into(),
        });
        assert_eq!(other.code(), -71);
    }

    #[test]
    fn messages_name_path_and_place() {
        let e = CardError::Corrupt {
            path: "card.ps2".into(),
            what: "FAT chain of /BESLUS-20267/icon.sys loops at cluster 1234".into(),
        };
        assert_eq!(
            e.to_string(),
            "card.ps2: FAT chain of /BESLUS-20267/icon.sys loops at cluster 1234"
        );
        let e = CardError::Ecc {
            path: "card.ps2".into(),
            page: 82,
            chunk: 2,
            what: "root directory".into(),
        };
        assert_eq!(
            e.to_string(),
            "card.ps2: ECC mismatch in page 82 (root directory), bytes 256..384"
        );
    }
}
