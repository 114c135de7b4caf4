//! PS2 memory cards on the host, for piney's native MCMAN/MCSERV: the storage behind every
//! operation mcserv (SIF RPC 0x80000400) offers the EE's libmc: get info, open, close, read,
//! write, seek, flush, mkdir, chdir, getdir, set file info (and rename), delete, get entry space,
//! format, unformat.
//!
//! Two kinds of card, behind one object-safe [`Card`] trait:
//! * a **folder card** (the default): a host directory is the card's root, PS2 directories and
//!   files are host directories and files of the same names, and the metadata a host cannot
//!   hold lives in a small sidecar file per directory, `.piney-mc` ([`open_folder`]);
//! * a **PCSX2 `.ps2` image**: the raw 8 MiB card with its spare area (or without it), holding
//!   the PS2 memory card filesystem with its ECC, read and written exactly.
//!
//! Contract:
//! * Results and error codes are the console's: [`McError::code`] gives the `sceMcRes*` value
//!   libmc returns to the EE, and the semantics follow MCMAN (ps2sdk `iop/memorycard/mcman`,
//!   reconstructed from Sony's module) as documented in `engine.rs`.
//! * Durability: when an operation returns, what it changed is on the host (written and
//!   synced, sidecars replaced atomically). A process killed right after loses nothing.
//! * No host clock: every time stamp comes from the caller (`now`). No randomness. The same
//!   calls on the same card give the same bytes.
//! * Bad input (a damaged image or sidecar) gives one [`CardError`] naming the file and the
//!   place, never a panic or an endless loop; a damaged image is not written.
//! * Paths are the EE's bytes: '/'-separated, case-sensitive, absolute from "/" or relative to
//!   the directory set by [`Card::chdir`]; names are 1 to 32 bytes.

#![warn(missing_docs)]

pub mod ecc;
mod engine;
mod error;
mod folder;
mod image;
mod pattern;
mod sidecar;
mod types;

pub use error::{CardError, McError, RestoreError, res};
pub use image::{IMAGE_8MB, IMAGE_8MB_NO_SPARE, PAGE_DATA, PAGE_SPARE, PAGES_8MB};
pub use types::{
    CARD_TYPE_PS2, CardInfo, CardSession, DirEntry, FileHandle, MAX_OPEN_FILES, OpenFlags,
    SavedHandle, SavedListing, SetInfoFlags, Timestamp, Whence, mode,
};

use engine::Engine;
use folder::FolderStore;
use image::ImageStore;
use std::fs;
use std::io;
use std::path::Path;

/// Which kind of storage a card is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CardKind {
    /// A host directory with sidecar files.
    Folder,
    /// A raw image; `spare` says whether its pages carry the 16-byte spare area (ECC).
    Image {
        /// Pages are 528 bytes (with ECC) rather than 512.
        spare: bool,
    },
}

/// One memory card, as MCMAN serves it. Every method is one mcserv operation; the ones that
/// change the card have it on the host before they return.
pub trait Card: Send {
    /// The kind of storage.
    fn kind(&self) -> CardKind;
    /// The host path the card was opened from.
    fn path(&self) -> &Path;
    /// `mcGetInfo`: type (always PS2), free clusters, formatted.
    fn info(&mut self) -> Result<CardInfo, CardError>;
    /// `mcOpen`. [`OpenFlags::CREATE`] creates the file, or replaces an existing one (MCMAN has
    /// no truncation: O_TRUNC is ignored). Opening a directory gives a handle that can only be
    /// closed or seeked. With [`OpenFlags::CREATE_DIR`] (what `mcMkDir` sends) a directory is
    /// created instead, no handle is held, and the result is `FileHandle(0)`: MCMAN's 0.
    fn open(
        &mut self,
        path: &[u8],
        flags: OpenFlags,
        now: Timestamp,
    ) -> Result<FileHandle, McError>;
    /// `mcClose`. A handle that wrote marks the file closed properly and sets the modification
    /// time of the file and its directory to `now`.
    fn close(&mut self, fh: FileHandle, now: Timestamp) -> Result<(), McError>;
    /// `mcRead`: up to `buf.len()` bytes from the handle's position; 0 at or past the end.
    fn read(&mut self, fh: FileHandle, buf: &mut [u8]) -> Result<usize, McError>;
    /// `mcWrite`: all of `data` at the handle's position (a position past the end leaves a gap
    /// of zeros), or nothing with `sceMcResFullDevice`.
    fn write(&mut self, fh: FileHandle, data: &[u8], now: Timestamp) -> Result<usize, McError>;
    /// `mcSeek`: the new position (a negative one becomes 0).
    fn seek(&mut self, fh: FileHandle, offset: i32, whence: Whence) -> Result<u32, McError>;
    /// `mcFlush`: like close without releasing the handle.
    fn flush_file(&mut self, fh: FileHandle, now: Timestamp) -> Result<(), McError>;
    /// `mcMkDir`. An existing name gives `sceMcResNoEntry`, as on the console.
    fn mkdir(&mut self, path: &[u8], now: Timestamp) -> Result<(), McError>;
    /// `mcDelete`: a file, or an empty directory; not one that is open.
    fn delete(&mut self, path: &[u8]) -> Result<(), McError>;
    /// `mcRename`: a new name in the same directory (at most 31 bytes are kept, as MCMAN
    /// keeps); an existing name gives `sceMcResNoEntry`.
    fn rename(&mut self, path: &[u8], new_name: &[u8]) -> Result<(), McError>;
    /// `mcGetDir`, first call: `arg` is a directory and a pattern ("/*", "/DIR/*", "*.ico":
    /// '*' and '?' as MCMAN matches them); up to `max` entries. The root's listing leaves out
    /// '.' and '..'; another directory's starts with them.
    fn getdir(&mut self, arg: &[u8], max: usize) -> Result<Vec<DirEntry>, McError>;
    /// `mcGetDir` with a non-zero mode: the next entries of the last listing.
    fn getdir_continue(&mut self, max: usize) -> Result<Vec<DirEntry>, McError>;
    /// `mcSetFileInfo`: changes the fields `which` selects (see [`SetInfoFlags`]) to those of
    /// `info`.
    fn set_file_info(
        &mut self,
        path: &[u8],
        info: &DirEntry,
        which: SetInfoFlags,
    ) -> Result<(), McError>;
    /// `mcChdir`: sets the directory relative paths start from and returns it as an absolute
    /// path ("/" for the root). An empty path only reports the current directory.
    fn chdir(&mut self, path: &[u8]) -> Result<Vec<u8>, McError>;
    /// `mcGetEntSpace`: how many more entries a directory holds without a new cluster.
    fn get_ent_space(&mut self, path: &[u8]) -> Result<u32, McError>;
    /// `mcFormat`: a fresh, empty filesystem (all handles are dropped).
    fn format(&mut self, now: Timestamp) -> Result<(), McError>;
    /// `mcUnformat`: the filesystem erased (all handles are dropped).
    fn unformat(&mut self) -> Result<(), McError>;
    /// Puts anything pending on the host. Every operation already does; this only reports.
    fn flush(&mut self) -> Result<(), CardError>;
    /// What a save state keeps of this card's MCMAN state (see [`CardSession`]).
    fn session(&self) -> CardSession;
    /// Puts a [`Card::session`] back: the current directory, the handles (each under its
    /// number) and the listing, found again by their paths. On an error nothing changed.
    fn restore(&mut self, session: &CardSession) -> Result<(), RestoreError>;
}

struct Boxed<S: engine::Store> {
    engine: Engine<S>,
    kind: CardKind,
}

impl<S: engine::Store + Send> Card for Boxed<S> {
    fn kind(&self) -> CardKind {
        self.kind
    }
    fn path(&self) -> &Path {
        self.engine.path()
    }
    fn info(&mut self) -> Result<CardInfo, CardError> {
        self.engine.info()
    }
    fn open(
        &mut self,
        path: &[u8],
        flags: OpenFlags,
        now: Timestamp,
    ) -> Result<FileHandle, McError> {
        self.engine.open(path, flags, now)
    }
    fn close(&mut self, fh: FileHandle, now: Timestamp) -> Result<(), McError> {
        self.engine.close(fh, now)
    }
    fn read(&mut self, fh: FileHandle, buf: &mut [u8]) -> Result<usize, McError> {
        self.engine.read(fh, buf)
    }
    fn write(&mut self, fh: FileHandle, data: &[u8], now: Timestamp) -> Result<usize, McError> {
        self.engine.write(fh, data, now)
    }
    fn seek(&mut self, fh: FileHandle, offset: i32, whence: Whence) -> Result<u32, McError> {
        self.engine.seek(fh, offset, whence)
    }
    fn flush_file(&mut self, fh: FileHandle, now: Timestamp) -> Result<(), McError> {
        self.engine.flush_file(fh, now)
    }
    fn mkdir(&mut self, path: &[u8], now: Timestamp) -> Result<(), McError> {
        self.engine.mkdir(path, now)
    }
    fn delete(&mut self, path: &[u8]) -> Result<(), McError> {
        self.engine.delete(path)
    }
    fn rename(&mut self, path: &[u8], new_name: &[u8]) -> Result<(), McError> {
        self.engine.rename(path, new_name)
    }
    fn getdir(&mut self, arg: &[u8], max: usize) -> Result<Vec<DirEntry>, McError> {
        self.engine.getdir(arg, max)
    }
    fn getdir_continue(&mut self, max: usize) -> Result<Vec<DirEntry>, McError> {
        self.engine.getdir_continue(max)
    }
    fn set_file_info(
        &mut self,
        path: &[u8],
        info: &DirEntry,
        which: SetInfoFlags,
    ) -> Result<(), McError> {
        self.engine.set_file_info(path, info, which)
    }
    fn chdir(&mut self, path: &[u8]) -> Result<Vec<u8>, McError> {
        self.engine.chdir(path)
    }
    fn get_ent_space(&mut self, path: &[u8]) -> Result<u32, McError> {
        self.engine.get_ent_space(path)
    }
    fn format(&mut self, now: Timestamp) -> Result<(), McError> {
        self.engine.format(now)
    }
    fn unformat(&mut self) -> Result<(), McError> {
        self.engine.unformat()
    }
    fn flush(&mut self) -> Result<(), CardError> {
        self.engine.flush()
    }
    fn session(&self) -> CardSession {
        self.engine.session()
    }
    fn restore(&mut self, session: &CardSession) -> Result<(), RestoreError> {
        self.engine.restore(session)
    }
}

fn boxed<S: engine::Store + Send + 'static>(store: S, kind: CardKind) -> Box<dyn Card> {
    Box::new(Boxed {
        engine: Engine::new(store),
        kind,
    })
}

/// Opens a card: a directory is a folder card, a file an image. A path that does not exist
/// becomes a new card: a formatted 8 MiB image with spare area if it ends in `.ps2`, one
/// without spare area if it ends in `.bin` or `.mc2` (PCSX2's names for those), a folder card
/// otherwise. `now` dates the root directory of a card created here.
pub fn open_card(path: &Path, now: Timestamp) -> Result<Box<dyn Card>, CardError> {
    match fs::metadata(path) {
        Ok(md) if md.is_dir() => open_folder(path, now),
        Ok(md) if md.is_file() => open_image(path),
        Ok(_) => Err(CardError::NotACard {
            path: path.to_path_buf(),
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let ext = path
                .extension()
                .and_then(|e| e.to_str())
                .map(str::to_ascii_lowercase);
            match ext.as_deref() {
                Some("ps2") => create_image(path, true, now),
                Some("bin" | "mc2") => create_image(path, false, now),
                _ => open_folder(path, now),
            }
        }
        Err(e) => Err(CardError::io(path, "stat", e)),
    }
}

/// Opens a folder card (creating the directory, formatted, if it does not exist).
pub fn open_folder(path: &Path, now: Timestamp) -> Result<Box<dyn Card>, CardError> {
    Ok(boxed(FolderStore::open(path, now)?, CardKind::Folder))
}

/// Opens an existing image file, checking all of it first.
pub fn open_image(path: &Path) -> Result<Box<dyn Card>, CardError> {
    let st = ImageStore::open_file(path)?;
    let spare = st.has_spare();
    Ok(boxed(st, CardKind::Image { spare }))
}

/// Creates a new, formatted 8 MiB image file (with or without spare area), replacing nothing:
/// the path must not exist.
pub fn create_image(path: &Path, spare: bool, now: Timestamp) -> Result<Box<dyn Card>, CardError> {
    if fs::symlink_metadata(path).is_ok() {
        return Err(CardError::io(
            path,
            "create",
            io::Error::from(io::ErrorKind::AlreadyExists),
        ));
    }
    let st = ImageStore::create_file(path, PAGES_8MB, spare, now)?;
    Ok(boxed(st, CardKind::Image { spare }))
}

/// Checks an image held in memory and serves it from there (changes stay in memory). `name`
/// only labels errors.
pub fn open_image_bytes(name: &Path, bytes: Vec<u8>) -> Result<Box<dyn Card>, CardError> {
    let spare = image::geometry_of_size(bytes.len() as u64).is_some_and(|g| g.1);
    Ok(boxed(
        ImageStore::open_bytes(name, bytes)?,
        CardKind::Image { spare },
    ))
}

/// The bytes of a freshly formatted image (8 MiB, with or without spare area) dated `now`:
/// what [`create_image`] writes.
pub fn formatted_image_bytes(spare: bool, now: Timestamp) -> Vec<u8> {
    let mut st = ImageStore::open_bytes(
        Path::new("<new>"),
        vec![
            0xFF;
            PAGES_8MB as usize
                * if spare {
                    PAGE_DATA + PAGE_SPARE
                } else {
                    PAGE_DATA
                }
        ],
    )
    .expect("an erased image is an unformatted card");
    engine::Store::format(&mut st, now).expect("formatting in memory");
    st.bytes().to_vec()
}

/// Syncs a directory, so that entries created, renamed or removed in it are on the host.
/// (Hosts other than Unix cannot open a directory; there the rename or creation itself is all
/// that can be done.)
pub(crate) fn sync_dir(dir: &Path) -> Result<(), CardError> {
    #[cfg(unix)]
    {
        fs::File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| CardError::io(dir, "sync directory", e))
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        Ok(())
    }
}

/// Syncs the directory holding `path`.
pub(crate) fn sync_parent(path: &Path) -> Result<(), CardError> {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => sync_dir(p),
        _ => sync_dir(Path::new(".")),
    }
}
