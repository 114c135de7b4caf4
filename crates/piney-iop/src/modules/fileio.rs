//! The IOP's FILEIO RPC server (sid 0x8000_0001), served natively: what ps2sdk's `fio*`
//! functions, and through them its libc's printf, talk to. On a console FILEIO is a thin RPC
//! front for ioman; so is this one: every function is a call of the IOP's one ioman
//! ([`crate::kernel::ioman`]), whose devices and fds guest modules share.
//!
//! Function numbers and argument blocks follow ps2sdk's `fileio.c` (EE side) and the ROM FILEIO
//! module it talks to (ps2sdk `iop/fs/fileio`). Replies are one word (the result), except that
//! READ and WRITE also move data:
//! - WRITE { fd, ptr, size, mis, `aligned[16]` }: the first `mis` bytes (up to the next 16-byte
//!   boundary of `ptr`) come in `aligned`; the rest is fetched from EE memory at `ptr + mis`, in
//!   blocks of 16 KiB (the IOP's transfer buffer). The result is the count written; errors count 0.
//! - READ { fd, ptr, size, read_data }: for a read of 16 bytes or more the 16-byte-aligned middle
//!   is sent straight to EE memory; the unaligned head (`ptr` up to the next boundary) and tail
//!   (after the last boundary) go to the EE's `read_data` { size1, size2, dest1, dest2, `buf1[16]`,
//!   `buf2[16]` }, which the client's end function copies into place. A shorter read goes all to
//!   buf1. The result is the count read; errors count 0.
//!
//! - GETSTAT { buf, name }: the 40-byte `io_stat_t` is sent to the EE's `buf`; DREAD { fd, buf }:
//!   the 300-byte `io_dirent_t` (stat, `name[256]`, 4 unused bytes) is sent to `buf`. The result is
//!   0 / the device's dread result (a host directory: the entry's name length; `mc`: 1), or 0 at
//!   the end of a directory. CHSTAT { mask, stat[40], name }, IOCTL { fd, request, data[1024] },
//!   ADDDRV { device (an IOP address) } and DELDRV { name } are ioman's calls with those.
//!
//! Native devices: `tty` (fds 0, 1 and 2 are open on it from boot; writes go to the guest's
//! stdout, reads find nothing), `rom` ([`RomDevice`]), `host` ([`HostDir`]), any [`IoDevice`]
//! added, and MCMAN's `mc` once MCMAN is loaded (answered by the native MCSERV's cards:
//! [`super::fileio_mc`]). A path on a device ioman does not have fails with -ENODEV (19).
//!
//! Where piney differs from the ROM module: the transfer buffer is only made (ALLOC_LAST) with
//! the FILEIO thread, at the first request that needs a guest driver (the ROM makes it at the
//! first open); a read that ends early has no tail (size2 0; the ROM reports the tail's size
//! with stale bytes); DREAD and GETSTAT of a native device send nothing when there is nothing
//! (at the end of a directory the ROM sends its buffer's stale bytes).

use std::collections::VecDeque;
use std::fs;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Component, Path, PathBuf};

use super::{NativeServer, Reply};
use crate::kernel::ioman::{self, IoReq};
use crate::kernel::thread::TH_C;
use crate::kernel::{Cont, Wait};
use crate::{Iop, IopError};

/// A little-endian word of a byte buffer (0 past its end).
pub fn word(b: &[u8], off: usize) -> u32 {
    b.get(off..off + 4)
        .map_or(0, |s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

/// Store a little-endian word into a byte buffer, growing it as needed.
pub fn put_word(b: &mut Vec<u8>, off: usize, v: u32) {
    if b.len() < off + 4 {
        b.resize(off + 4, 0);
    }
    b[off..off + 4].copy_from_slice(&v.to_le_bytes());
}

/// FILEIO's sid.
pub const FILEIO_SID: u32 = 0x8000_0001;

/// FILEIO function numbers.
pub mod fno {
    /// open(mode, name)
    pub const OPEN: u32 = 0;
    /// close(fd)
    pub const CLOSE: u32 = 1;
    /// read(fd, ptr, size, read_data)
    pub const READ: u32 = 2;
    /// write(fd, ptr, size, mis, aligned)
    pub const WRITE: u32 = 3;
    /// lseek(fd, offset, whence)
    pub const LSEEK: u32 = 4;
    /// ioctl(fd, request, data)
    pub const IOCTL: u32 = 5;
    /// remove(path)
    pub const REMOVE: u32 = 6;
    /// mkdir(path)
    pub const MKDIR: u32 = 7;
    /// rmdir(path)
    pub const RMDIR: u32 = 8;
    /// dopen(path)
    pub const DOPEN: u32 = 9;
    /// dclose(fd)
    pub const DCLOSE: u32 = 10;
    /// dread(fd, buf)
    pub const DREAD: u32 = 11;
    /// getstat(buf, name)
    pub const GETSTAT: u32 = 12;
    /// chstat(cbit, stat, name)
    pub const CHSTAT: u32 = 13;
    /// format(path)
    pub const FORMAT: u32 = 14;
    /// adddrv(device)
    pub const ADDDRV: u32 = 15;
    /// deldrv(name)
    pub const DELDRV: u32 = 16;
}

/// The IOP's error numbers (returned negated).
pub mod errno {
    /// No such file or directory.
    pub const ENOENT: i32 = 2;
    /// I/O error (also: the operation is not supported by the native device).
    pub const EIO: i32 = 5;
    /// No such device or address (the `mc` device: no card).
    pub const ENXIO: i32 = 6;
    /// Bad file number.
    pub const EBADF: i32 = 9;
    /// Permission denied.
    pub const EACCES: i32 = 13;
    /// File exists.
    pub const EEXIST: i32 = 17;
    /// No such device.
    pub const ENODEV: i32 = 19;
    /// Is a directory.
    pub const EISDIR: i32 = 21;
    /// Invalid argument.
    pub const EINVAL: i32 = 22;
    /// Too many open files.
    pub const EMFILE: i32 = 24;
    /// No space left on device.
    pub const ENOSPC: i32 = 28;
    /// Not formatted (ps2sdk's own number, `errno.h`).
    pub const EFORMAT: i32 = 47;
}

/// Open flags (ps2sdk `io_common.h`).
pub mod flags {
    /// Read.
    pub const O_RDONLY: u32 = 0x0001;
    /// Write.
    pub const O_WRONLY: u32 = 0x0002;
    /// Append.
    pub const O_APPEND: u32 = 0x0100;
    /// Create.
    pub const O_CREAT: u32 = 0x0200;
    /// Truncate.
    pub const O_TRUNC: u32 = 0x0400;
}

/// The IOP's FILEIO transfer buffer: writes are fetched and reads sent in blocks of this size.
pub const XFER_SIZE: usize = 0x4000;
/// The file table's size (ioman's).
pub const MAX_FILES: usize = ioman::MAX_FILES;
/// The longest path FILEIO takes (`FIO_PATH_MAX`).
pub const PATH_MAX: usize = 256;

/// An open file of an [`IoDevice`]. Results are byte counts or negated [`errno`]s.
pub trait IoFile {
    /// Read into `buf`.
    fn read(&mut self, buf: &mut [u8]) -> i32;
    /// Write `data`; `stdout` is the guest's output stream.
    fn write(&mut self, data: &[u8], stdout: &mut Vec<u8>) -> i32;
    /// Seek (whence 0 set, 1 current, 2 end); returns the new position.
    fn lseek(&mut self, offset: i32, whence: u32) -> i32;
    /// What a save state records of the open file to open it again ([`SavedFile`]); `None`
    /// for a file that cannot be saved.
    fn saved(&self) -> Option<SavedFile> {
        None
    }
    /// A host file read from a save state and not yet opened again (see
    /// [`SavedFile::reopen`]): what opens it.
    fn pending(&self) -> Option<&SavedFile> {
        None
    }
}

/// An open native file as a save state holds it: enough to open the same file again at the
/// same position when the state is loaded (the file's contents are the host's, not the
/// state's: a host file changed since is read as it is now). A host file is named by its path
/// on the `host:` device, never by a host path: a state is opened again under the loading
/// run's `host:` folder, with the device's own checks (no `..`), so a state file from
/// elsewhere cannot reach outside that folder.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum SavedFile {
    /// The console.
    Tty,
    /// StdioInit(1)'s `dummytty`.
    DummyTty,
    /// A file of `rom0:`, at `pos`.
    Rom {
        /// Its path on the device.
        path: String,
        /// The position.
        pos: u64,
    },
    /// A file of `host:`, at `pos`.
    Host {
        /// Its path on the device.
        path: String,
        /// Opened for reading.
        read: bool,
        /// Opened for writing.
        write: bool,
        /// Opened O_APPEND.
        append: bool,
        /// The position.
        pos: u64,
    },
}

impl SavedFile {
    /// The file opened again; a `host:` file waits for [`HostDir::reopen`] (the loading run's
    /// folder), which the IOP's state loading calls before anything changes.
    pub fn reopen(&self) -> Result<Box<dyn IoFile>, String> {
        match self {
            SavedFile::Tty => Ok(Box::new(Tty)),
            SavedFile::DummyTty => Ok(Box::new(crate::kernel::ioman::stdio::DummyTty)),
            SavedFile::Rom { path, pos } => {
                let data = RomDevice::file(path)
                    .ok_or_else(|| format!("rom0:{path} is not in piney's ROM"))?;
                Ok(Box::new(MemFile {
                    path: path.clone(),
                    data,
                    pos: *pos as usize,
                }))
            }
            SavedFile::Host { .. } => Ok(Box::new(PendingHostFile(self.clone()))),
        }
    }
}

/// A device of the IOP's ioman (`name:` or `nameN:` in paths).
pub trait IoDevice {
    /// The device name without unit number or colon ("tty", "host", "cdrom").
    fn name(&self) -> &str;
    /// The iop_device_t type iomanx's GetDevType answers (IOP_DT_FS, 0x10, unless said).
    fn dev_type(&self) -> u32 {
        ioman::IOP_DT_FS
    }
    /// Open `path` on unit `unit`.
    fn open(&mut self, unit: u32, path: &str, flags: u32) -> Result<Box<dyn IoFile>, i32>;
    /// Remove a file.
    fn remove(&mut self, _unit: u32, _path: &str) -> i32 {
        -errno::EIO
    }
    /// Make a directory.
    fn mkdir(&mut self, _unit: u32, _path: &str) -> i32 {
        -errno::EIO
    }
    /// Remove a directory.
    fn rmdir(&mut self, _unit: u32, _path: &str) -> i32 {
        -errno::EIO
    }
    /// The status of a path.
    fn getstat(&mut self, _unit: u32, _path: &str) -> Result<IoStat, i32> {
        Err(-errno::EIO)
    }
    /// The entries of a directory, in the order dread returns them.
    fn dopen(&mut self, _unit: u32, _path: &str) -> Result<Vec<(String, IoStat)>, i32> {
        Err(-errno::EIO)
    }
}

/// The IOP's `io_stat_t`: mode (FIO_SO_* bits), attributes, size, and creation, access and
/// modification times as { 0, sec, min, hour, day, month, year (16 bits) }.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct IoStat {
    /// FIO_SO_IFREG (0x10) or FIO_SO_IFDIR (0x20), with the rwx bits (4, 2, 1).
    pub mode: u32,
    /// Device-specific attributes.
    pub attr: u32,
    /// Size in bytes (low 32 bits).
    pub size: u32,
    /// Creation time.
    pub ctime: [u8; 8],
    /// Access time.
    pub atime: [u8; 8],
    /// Modification time.
    pub mtime: [u8; 8],
    /// Size, high 32 bits.
    pub hisize: u32,
}

/// `io_stat_t` mode: a regular file.
pub const FIO_SO_IFREG: u32 = 0x10;
/// `io_stat_t` mode: a directory.
pub const FIO_SO_IFDIR: u32 = 0x20;

impl IoStat {
    /// The 40 bytes the IOP sends.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(40);
        b.extend_from_slice(&self.mode.to_le_bytes());
        b.extend_from_slice(&self.attr.to_le_bytes());
        b.extend_from_slice(&self.size.to_le_bytes());
        b.extend_from_slice(&self.ctime);
        b.extend_from_slice(&self.atime);
        b.extend_from_slice(&self.mtime);
        b.extend_from_slice(&self.hisize.to_le_bytes());
        b
    }
}

/// An `io_stat_t` time from seconds since 1970 (UTC; the PS2 keeps local time, piney uses UTC).
pub fn io_time(secs: u64) -> [u8; 8] {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Days to a civil date (proleptic Gregorian), after Howard Hinnant's algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u8;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u8;
    let year = (yoe + era * 400 + i64::from(month <= 2)) as u16;
    let [y0, y1] = year.to_le_bytes();
    [
        0,
        (rem % 60) as u8,
        (rem / 60 % 60) as u8,
        (rem / 3600) as u8,
        day,
        month,
        y0,
        y1,
    ]
}

/// A `host:` file read from a save state, until [`HostDir::reopen`] opens it (never used as a
/// file: the state's loading replaces it before the IOP runs).
struct PendingHostFile(SavedFile);

impl IoFile for PendingHostFile {
    fn read(&mut self, _buf: &mut [u8]) -> i32 {
        -errno::EIO
    }
    fn write(&mut self, _data: &[u8], _stdout: &mut Vec<u8>) -> i32 {
        -errno::EIO
    }
    fn lseek(&mut self, _offset: i32, _whence: u32) -> i32 {
        -errno::EIO
    }
    fn saved(&self) -> Option<SavedFile> {
        Some(self.0.clone())
    }
    fn pending(&self) -> Option<&SavedFile> {
        Some(&self.0)
    }
}

/// The console: writes go to the guest's stdout, reads find nothing.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Tty;

impl IoFile for Tty {
    fn read(&mut self, _buf: &mut [u8]) -> i32 {
        0
    }
    fn write(&mut self, data: &[u8], stdout: &mut Vec<u8>) -> i32 {
        stdout.extend_from_slice(data);
        data.len() as i32
    }
    fn lseek(&mut self, _offset: i32, _whence: u32) -> i32 {
        0
    }
    fn saved(&self) -> Option<SavedFile> {
        Some(SavedFile::Tty)
    }
}

/// The `tty` device.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct TtyDevice;

impl IoDevice for TtyDevice {
    fn name(&self) -> &str {
        "tty"
    }
    fn dev_type(&self) -> u32 {
        // ioman's own tty device: IOP_DT_CHAR.
        ioman::IOP_DT_CHAR
    }
    fn open(&mut self, _unit: u32, _path: &str, _flags: u32) -> Result<Box<dyn IoFile>, i32> {
        Ok(Box::new(Tty))
    }
}

/// ROMVER, the file of the BIOS ROM a program reads the console's version and region from
/// (ps2sdk's GetRomName and libgraph's region check read it; the fifth byte is the region: J, A,
/// E, H or C; the sixth the kind: C console, D development): `VVVVRKYYYYMMDD`, then a line
/// feed and a NUL (16 bytes). piney carries no ROM and answers as a US console with ROM
/// version 1.60 of 2002-02-07 (SCPH-39001), the region of the SLUS discs piney targets first.
pub const ROMVER: &[u8; 16] = b"0160AC20020207\n\0";

/// A read-only file held in memory.
#[derive(Debug)]
pub struct MemFile {
    /// Its path on `rom0:`.
    path: String,
    data: &'static [u8],
    pos: usize,
}

impl IoFile for MemFile {
    fn saved(&self) -> Option<SavedFile> {
        Some(SavedFile::Rom {
            path: self.path.clone(),
            pos: self.pos as u64,
        })
    }
    fn read(&mut self, buf: &mut [u8]) -> i32 {
        let n = buf.len().min(self.data.len().saturating_sub(self.pos));
        buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        n as i32
    }
    fn write(&mut self, _data: &[u8], _stdout: &mut Vec<u8>) -> i32 {
        -errno::EACCES
    }
    fn lseek(&mut self, offset: i32, whence: u32) -> i32 {
        let base = match whence {
            0 => 0,
            1 => self.pos as i64,
            2 => self.data.len() as i64,
            _ => return -errno::EINVAL,
        };
        let to = base + i64::from(offset);
        if to < 0 {
            return -errno::EINVAL;
        }
        self.pos = to as usize;
        to as i32
    }
}

/// The BIOS ROM's file system, `rom0:` (`rom:`). Without a ROM it holds ROMVER only; the rom's
/// modules (`rom0:PADMAN`...) are loaded natively by modload, not read as files.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct RomDevice;

impl RomDevice {
    /// The file at `path`, if the ROM holds it.
    pub fn file(path: &str) -> Option<&'static [u8]> {
        let name = path.trim_start_matches(['/', '\\']);
        let name = name.split(';').next().unwrap_or(name);
        name.eq_ignore_ascii_case("ROMVER").then_some(&ROMVER[..])
    }
}

impl IoDevice for RomDevice {
    fn name(&self) -> &str {
        "rom"
    }
    fn open(&mut self, _unit: u32, path: &str, flags: u32) -> Result<Box<dyn IoFile>, i32> {
        // A ROM cannot be written (O_WRONLY, and O_RDWR which holds its bit).
        if flags & flags::O_WRONLY != 0 {
            return Err(-errno::EACCES);
        }
        match Self::file(path) {
            Some(data) => Ok(Box::new(MemFile {
                path: path.to_string(),
                data,
                pos: 0,
            })),
            None => Err(-errno::ENOENT),
        }
    }
    fn getstat(&mut self, _unit: u32, path: &str) -> Result<IoStat, i32> {
        let data = Self::file(path).ok_or(-errno::ENOENT)?;
        Ok(IoStat {
            mode: FIO_SO_IFREG | 4,
            size: data.len() as u32,
            ..IoStat::default()
        })
    }
}

/// A device backed by a host directory (paths below it; `..` is refused).
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct HostDir {
    name: String,
    root: PathBuf,
}

impl HostDir {
    /// Serve `root` as device `name` (e.g. "host").
    pub fn new(name: &str, root: impl Into<PathBuf>) -> Self {
        Self {
            name: name.to_string(),
            root: root.into(),
        }
    }

    fn resolve(&self, path: &str) -> Result<PathBuf, i32> {
        let rel = path.replace('\\', "/");
        let rel = Path::new(rel.trim_start_matches('/'));
        if rel
            .components()
            .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
        {
            return Err(-errno::EACCES);
        }
        Ok(self.root.join(rel))
    }
}

fn io_err(e: &std::io::Error) -> i32 {
    use std::io::ErrorKind as K;
    -match e.kind() {
        K::NotFound => errno::ENOENT,
        K::PermissionDenied => errno::EACCES,
        K::AlreadyExists => errno::EEXIST,
        K::IsADirectory => errno::EISDIR,
        K::InvalidInput => errno::EINVAL,
        _ => errno::EIO,
    }
}

/// A file of a host folder device, with what a save state needs to open it again (its path on
/// the device, not on the host).
struct HostFile {
    file: fs::File,
    path: String,
    read: bool,
    write: bool,
    append: bool,
}

impl IoFile for HostFile {
    fn saved(&self) -> Option<SavedFile> {
        // The position without moving it (`Seek` for `&File`).
        let pos = (&self.file).stream_position().ok()?;
        Some(SavedFile::Host {
            path: self.path.clone(),
            read: self.read,
            write: self.write,
            append: self.append,
            pos,
        })
    }
    fn read(&mut self, buf: &mut [u8]) -> i32 {
        let mut n = 0;
        while n < buf.len() {
            match self.file.read(&mut buf[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return if n > 0 { n as i32 } else { io_err(&e) },
            }
        }
        n as i32
    }
    fn write(&mut self, data: &[u8], _stdout: &mut Vec<u8>) -> i32 {
        match self.file.write_all(data) {
            Ok(()) => data.len() as i32,
            Err(e) => io_err(&e),
        }
    }
    fn lseek(&mut self, offset: i32, whence: u32) -> i32 {
        let to = match whence {
            0 if offset >= 0 => SeekFrom::Start(offset as u64),
            1 => SeekFrom::Current(offset as i64),
            2 => SeekFrom::End(offset as i64),
            _ => return -errno::EINVAL,
        };
        match self.file.seek(to) {
            Ok(p) if p <= i32::MAX as u64 => p as i32,
            Ok(_) => -errno::EINVAL,
            Err(e) => io_err(&e),
        }
    }
}

impl HostDir {
    /// A `host:` file of a save state ([`SavedFile::Host`]) opened again under this folder, by
    /// the device's own path checks, at its position; never created or truncated. `Err` names
    /// the file when it cannot be.
    pub fn reopen(&self, saved: &SavedFile) -> Result<Box<dyn IoFile>, String> {
        let SavedFile::Host {
            path,
            read,
            write,
            append,
            pos,
        } = saved
        else {
            return saved.reopen();
        };
        let p = self.resolve(path).map_err(|_| {
            format!(
                "the state's open file {}:{path} is outside the folder",
                self.name
            )
        })?;
        let mut file = fs::OpenOptions::new()
            .read(*read)
            .write(*write)
            .append(*append)
            .open(&p)
            .map_err(|e| {
                format!(
                    "the state's open file {}:{path} ({}) cannot be opened: {e}",
                    self.name,
                    p.display()
                )
            })?;
        file.seek(SeekFrom::Start(*pos))
            .map_err(|e| format!("{}: {e}", p.display()))?;
        Ok(Box::new(HostFile {
            file,
            path: path.clone(),
            read: *read,
            write: *write,
            append: *append,
        }))
    }
}

impl IoDevice for HostDir {
    fn name(&self) -> &str {
        &self.name
    }
    fn open(&mut self, _unit: u32, path: &str, flags: u32) -> Result<Box<dyn IoFile>, i32> {
        let p = self.resolve(path)?;
        if p.is_dir() {
            return Err(-errno::EISDIR);
        }
        let mut o = fs::OpenOptions::new();
        let (read, write, append) = (
            flags & flags::O_RDONLY != 0,
            flags & flags::O_WRONLY != 0,
            flags & flags::O_APPEND != 0,
        );
        o.read(read)
            .write(write)
            .append(append)
            .create(flags & flags::O_CREAT != 0 && flags & flags::O_WRONLY != 0)
            .truncate(flags & flags::O_TRUNC != 0 && flags & flags::O_WRONLY != 0);
        if flags & 3 == 0 {
            return Err(-errno::EINVAL);
        }
        o.open(&p)
            .map(|file| {
                Box::new(HostFile {
                    file,
                    path: path.to_string(),
                    read,
                    write,
                    append,
                }) as Box<dyn IoFile>
            })
            .map_err(|e| io_err(&e))
    }
    fn remove(&mut self, _unit: u32, path: &str) -> i32 {
        match self.resolve(path) {
            Ok(p) => fs::remove_file(p).map_or_else(|e| io_err(&e), |()| 0),
            Err(e) => e,
        }
    }
    fn mkdir(&mut self, _unit: u32, path: &str) -> i32 {
        match self.resolve(path) {
            Ok(p) => fs::create_dir(p).map_or_else(|e| io_err(&e), |()| 0),
            Err(e) => e,
        }
    }
    fn rmdir(&mut self, _unit: u32, path: &str) -> i32 {
        match self.resolve(path) {
            Ok(p) => fs::remove_dir(p).map_or_else(|e| io_err(&e), |()| 0),
            Err(e) => e,
        }
    }
    fn getstat(&mut self, _unit: u32, path: &str) -> Result<IoStat, i32> {
        let p = self.resolve(path)?;
        fs::metadata(p)
            .map(|m| host_stat(&m))
            .map_err(|e| io_err(&e))
    }
    fn dopen(&mut self, _unit: u32, path: &str) -> Result<Vec<(String, IoStat)>, i32> {
        let p = self.resolve(path)?;
        let rd = fs::read_dir(p).map_err(|e| io_err(&e))?;
        let mut v: Vec<(String, IoStat)> = rd
            .filter_map(Result::ok)
            .filter_map(|e| {
                Some((
                    e.file_name().into_string().ok()?,
                    host_stat(&e.metadata().ok()?),
                ))
            })
            .collect();
        // Sorted, so that the same directory lists the same way on every host.
        v.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(v)
    }
}

fn host_stat(m: &fs::Metadata) -> IoStat {
    let secs = |t: std::io::Result<std::time::SystemTime>| {
        t.ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_secs())
    };
    let rw = if m.permissions().readonly() { 4 } else { 6 };
    IoStat {
        mode: if m.is_dir() {
            FIO_SO_IFDIR | rw | 1
        } else {
            FIO_SO_IFREG | rw
        },
        attr: 0,
        size: m.len() as u32,
        ctime: io_time(secs(m.created())),
        atime: io_time(secs(m.accessed())),
        mtime: io_time(secs(m.modified())),
        hisize: (m.len() >> 32) as u32,
    }
}

/// What the FILEIO server does next for a request.
#[derive(serde::Serialize, serde::Deserialize)]
enum Step {
    /// Make this ioman call and come back with its result.
    Req(IoReq),
    /// Answer the EE with this word.
    Reply(i32),
}

/// READ's progress (see the module documentation): the head into buf1, the middle in blocks
/// of [`XFER_SIZE`] straight to EE memory, the tail into buf2.
#[derive(serde::Serialize, serde::Deserialize)]
struct ReadSt {
    fd: i32,
    read_data: u32,
    head: u32,
    /// Middle bytes not read yet.
    left: u32,
    /// Where the next middle block goes in EE memory.
    at: u32,
    tail: u32,
    dest1: u32,
    dest2: u32,
    buf1: [u8; 16],
    buf2: [u8; 16],
    size1: u32,
    size2: u32,
    total: u32,
    /// 0 nothing read yet, 1 the head, 2 a middle block, 3 the tail is being read.
    phase: u8,
    want: u32,
}

impl ReadSt {
    fn new(args: &[u8]) -> Self {
        let (fd, ptr, size, read_data) = (
            word(args, 0) as i32,
            word(args, 4),
            word(args, 8) as i32,
            word(args, 12),
        );
        let size = size.max(0) as u32;
        // head: up to the next 16-byte boundary; mid: whole 16-byte blocks; tail: the rest.
        let (head, mid, tail, dest1, dest2) = if size >= 16 {
            let head = (16 - (ptr & 15)) & 15;
            let end = ptr.wrapping_add(size);
            let mid = (end & !15).wrapping_sub(ptr.wrapping_add(head));
            (head, mid, end & 15, ptr, end & !15)
        } else {
            (size, 0, 0, ptr, 0)
        };
        Self {
            fd,
            read_data,
            head,
            left: mid,
            at: ptr.wrapping_add(head),
            tail,
            dest1,
            dest2,
            buf1: [0; 16],
            buf2: [0; 16],
            size1: head,
            size2: tail,
            total: 0,
            phase: 0,
            want: 0,
        }
    }

    fn next(&mut self, iop: &mut Iop, last: Option<(i32, Vec<u8>)>) -> Step {
        if let Some((n, bytes)) = last {
            let b = &bytes[..bytes.len().min(16)];
            match self.phase {
                1 => {
                    self.buf1[..b.len()].copy_from_slice(b);
                    if n != self.head as i32 {
                        self.size1 = n.max(0) as u32;
                        self.total += self.size1;
                        return self.finish(iop, true);
                    }
                    self.total += self.head;
                }
                2 => {
                    if n > 0 {
                        self.total = self.total.wrapping_add(n as u32);
                        let len = bytes.len() as u32;
                        iop.send_to_ee(self.at, bytes);
                        self.at = self.at.wrapping_add(len);
                    }
                    if n != self.want as i32 {
                        return self.finish(iop, true);
                    }
                    self.left -= self.want;
                }
                _ => {
                    self.buf2[..b.len()].copy_from_slice(b);
                    self.size2 = n.max(0) as u32;
                    self.total += self.size2;
                    return self.finish(iop, false);
                }
            }
        }
        let fd = self.fd;
        if self.phase < 1 && self.head > 0 {
            (self.phase, self.want) = (1, self.head);
        } else if self.phase <= 2 && self.left > 0 {
            (self.phase, self.want) = (2, self.left.min(XFER_SIZE as u32));
        } else if self.phase < 3 && self.tail > 0 {
            (self.phase, self.want) = (3, self.tail);
        } else {
            return self.finish(iop, false);
        }
        Step::Req(IoReq::Read { fd, len: self.want })
    }

    /// The head and tail to the EE's read_data; a read that ended early has no tail.
    fn finish(&mut self, iop: &mut Iop, short: bool) -> Step {
        if short {
            self.size2 = 0;
        }
        let mut rd = Vec::with_capacity(48);
        put_word(&mut rd, 0, self.size1);
        put_word(&mut rd, 4, self.size2);
        put_word(&mut rd, 8, self.dest1);
        put_word(&mut rd, 12, self.dest2);
        rd.extend_from_slice(&self.buf1);
        rd.extend_from_slice(&self.buf2);
        if self.read_data != 0 {
            iop.send_to_ee(self.read_data, rd);
        }
        Step::Reply(self.total as i32)
    }
}

/// WRITE's progress: the `mis` head bytes from the block, then blocks of [`XFER_SIZE`]
/// fetched from EE memory.
#[derive(serde::Serialize, serde::Deserialize)]
struct WriteSt {
    fd: i32,
    mis: u32,
    done: i32,
    left: u32,
    at: u32,
    /// 0 nothing written yet, 1 the head, 2 a block is being written.
    phase: u8,
    want: u32,
}

impl WriteSt {
    fn new(args: &[u8]) -> Self {
        let (fd, ptr, size, mis) = (
            word(args, 0) as i32,
            word(args, 4),
            word(args, 8),
            word(args, 12).min(16),
        );
        Self {
            fd,
            mis,
            done: 0,
            left: size.saturating_sub(mis),
            at: ptr.wrapping_add(mis),
            phase: 0,
            want: 0,
        }
    }

    fn next(
        &mut self,
        iop: &mut Iop,
        args: &[u8],
        last: Option<(i32, Vec<u8>)>,
    ) -> Result<Step, String> {
        if let Some((n, _)) = last {
            if n != self.want as i32 {
                return Ok(Step::Reply(self.done + n.max(0)));
            }
            self.done += n;
            if self.phase == 2 {
                self.left -= self.want;
                self.at = self.at.wrapping_add(self.want);
            }
        }
        let fd = self.fd;
        if self.phase == 0 && self.mis > 0 {
            (self.phase, self.want) = (1, self.mis);
            let head = args.get(16..16 + self.mis as usize).unwrap_or(&[]).to_vec();
            return Ok(Step::Req(IoReq::Write { fd, data: head }));
        }
        if self.left == 0 {
            return Ok(Step::Reply(self.done));
        }
        (self.phase, self.want) = (2, self.left.min(XFER_SIZE as u32));
        let data = iop.ee_read(self.at, self.want as usize)?;
        Ok(Step::Req(IoReq::Write { fd, data }))
    }
}

#[derive(serde::Serialize, serde::Deserialize)]
enum St {
    Start,
    /// One ioman call answers the request.
    One,
    Read(ReadSt),
    Write(WriteSt),
}

/// One FILEIO request.
#[derive(serde::Serialize, serde::Deserialize)]
struct Job {
    token: u32,
    f: u32,
    args: Vec<u8>,
    st: St,
    /// An ioman call worked out but not made yet (a guest driver's, left to the thread).
    pending: Option<IoReq>,
}

impl Job {
    fn new(token: u32, f: u32, args: &[u8]) -> Result<Self, String> {
        if f > fno::DELDRV {
            return Err(format!("no such FILEIO function {f}"));
        }
        Ok(Self {
            token,
            f,
            args: args.to_vec(),
            st: St::Start,
            pending: None,
        })
    }

    /// The one ioman call of a request other than READ and WRITE.
    fn single(&self) -> IoReq {
        let a = &self.args;
        let fd = word(a, 0) as i32;
        let path = |off| cbytes(a, off, PATH_MAX).to_vec();
        match self.f {
            fno::OPEN => IoReq::Open {
                path: path(4),
                flags: word(a, 0),
            },
            fno::CLOSE => IoReq::Close(fd),
            fno::LSEEK => IoReq::Lseek {
                fd,
                offset: word(a, 4) as i32,
                whence: word(a, 8),
            },
            fno::IOCTL => IoReq::Ioctl {
                fd,
                cmd: word(a, 4),
                data: a.get(8..a.len().min(8 + 1024)).unwrap_or(&[]).to_vec(),
            },
            fno::REMOVE => IoReq::Remove(path(0)),
            fno::MKDIR => IoReq::Mkdir(path(0)),
            fno::RMDIR => IoReq::Rmdir(path(0)),
            // The ROM's FILEIO passes dopen no mode.
            fno::DOPEN => IoReq::Dopen(path(0)),
            fno::DCLOSE => IoReq::Dclose(fd),
            fno::DREAD => IoReq::Dread(fd),
            fno::GETSTAT => IoReq::Getstat(path(4)),
            fno::CHSTAT => IoReq::Chstat {
                path: path(44),
                stat: a.get(4..44).unwrap_or(&[]).to_vec(),
                mask: word(a, 0),
            },
            fno::FORMAT => IoReq::Format(path(0)),
            fno::ADDDRV => IoReq::AddDrv(word(a, 0)),
            _ => IoReq::DelDrv(path(0)),
        }
    }

    fn next(&mut self, iop: &mut Iop, last: Option<(i32, Vec<u8>)>) -> Result<Step, String> {
        match &mut self.st {
            St::Start => {
                self.st = match self.f {
                    fno::READ => St::Read(ReadSt::new(&self.args)),
                    fno::WRITE => St::Write(WriteSt::new(&self.args)),
                    _ => {
                        self.st = St::One;
                        return Ok(Step::Req(self.single()));
                    }
                };
                self.next(iop, None)
            }
            St::One => {
                let (r, d) = last.unwrap_or((-errno::EIO, Vec::new()));
                // getstat and dread send their 40 and 300 bytes to the EE's buffer.
                let to = match self.f {
                    fno::GETSTAT => word(&self.args, 0),
                    fno::DREAD => word(&self.args, 4),
                    _ => 0,
                };
                if r >= 0 && !d.is_empty() {
                    iop.send_to_ee(to, d);
                }
                Ok(Step::Reply(r))
            }
            St::Read(rs) => Ok(rs.next(iop, last)),
            St::Write(ws) => ws.next(iop, &self.args, last),
        }
    }
}

/// The FILEIO thread's priority and stack (the ROM module's RPC thread).
const THREAD_PRIORITY: u32 = 96;
const THREAD_STACK: u32 = 0x1000;
/// Native wait id: the FILEIO thread waits for a request.
pub const WAIT_FILEIO: u32 = 6;
/// Continuation tag: the FILEIO thread's loop (started, or woken for a request).
pub const CONT_FIO_LOOP: u32 = 0x6669_0001;
/// Continuation tag: an ioman call the FILEIO thread made returned (data: kind, length, sp).
pub const CONT_FIO_CALL: u32 = 0x6669_0002;
/// The FILEIO thread's work area: the transfer buffer, then the argument copy (a path, an
/// ioctl block), then the stat and dirent buffer.
const AREA_ARGS: u32 = XFER_SIZE as u32;
const AREA_TMP: u32 = AREA_ARGS + 0x410;
const AREA_SIZE: u32 = AREA_TMP + 0x140;

/// The FILEIO server: FILEIO's RPC functions as calls of the IOP's one ioman
/// ([`crate::kernel::ioman`]). A request on native devices is answered at once; one that
/// reaches a guest driver (its code must run) goes to the FILEIO thread, as on the console
/// (priority 96, made with its 16 KiB transfer buffer at the first such request), which makes
/// the ioman calls through the library and answers later ([`Reply::Later`]); requests after it
/// wait their turn behind it.
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub struct FileIo {
    jobs: VecDeque<Job>,
    running: Option<Job>,
    thread: u32,
    area: u32,
}

impl FileIo {
    /// FILEIO.
    pub fn new() -> Self {
        Self::default()
    }

    /// Queue a request for the thread, making the thread first, or waking it.
    fn queue(&mut self, iop: &mut Iop, job: Job) -> Result<(), String> {
        self.jobs.push_back(job);
        if self.thread == 0 {
            let area = iop
                .sysmem_alloc(crate::kernel::sysmem::Mode::Last, AREA_SIZE, 0)
                .ok_or("no IOP memory for the FILEIO thread's buffers")?;
            let entry = crate::kernel::ret::CONTINUE;
            let t = iop.create_thread(TH_C, entry, THREAD_PRIORITY, THREAD_STACK, 0);
            if t < 0 {
                return Err(format!("the FILEIO thread cannot be made (error {t})"));
            }
            let t = t as u32;
            (self.thread, self.area) = (t, area);
            iop.start_thread(t, 0);
            // It starts at the kernel's continue point, in its loop.
            let th = iop.kernel.threads.get_mut(&t).expect("the thread");
            th.cont.push(Cont::Module {
                tag: CONT_FIO_LOOP,
                data: [0; 6],
            });
        } else if iop
            .kernel
            .threads
            .get(&self.thread)
            .is_some_and(|t| t.wait == Wait::Native(WAIT_FILEIO))
        {
            iop.wake(self.thread, 0);
        }
        Ok(())
    }
}

/// The bytes of the NUL-terminated string in `b` from `off` (at most `max` bytes).
fn cbytes(b: &[u8], off: usize, max: usize) -> &[u8] {
    let s = b.get(off..b.len().min(off + max)).unwrap_or(&[]);
    &s[..s.iter().position(|&c| c == 0).unwrap_or(s.len())]
}

/// The NUL-terminated string in `b` from `off` (at most `max` bytes).
fn cstr(b: &[u8], off: usize, max: usize) -> String {
    String::from_utf8_lossy(cbytes(b, off, max)).into_owned()
}

impl NativeServer for FileIo {
    crate::whole_server_state!();

    fn sid(&self) -> u32 {
        FILEIO_SID
    }
    fn name(&self) -> &str {
        "FILEIO"
    }
    fn buffer_size(&self) -> u32 {
        // The ROM module's receive buffer: 0x112 words.
        0x448
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }

    fn call(&mut self, iop: &mut Iop, f: u32, args: &[u8], token: u32) -> Result<Reply, String> {
        let mut job = Job::new(token, f, args)?;
        if self.running.is_some() || !self.jobs.is_empty() {
            self.queue(iop, job)?;
            return Ok(Reply::Later(token));
        }
        let mut last = None;
        loop {
            match job.next(iop, last.take())? {
                Step::Reply(r) => return Ok(Reply::Now((r as u32).to_le_bytes().to_vec())),
                Step::Req(req) => match ioman::exec(iop, &req)? {
                    Some(res) => last = Some(res),
                    None => {
                        job.pending = Some(req);
                        self.queue(iop, job)?;
                        return Ok(Reply::Later(token));
                    }
                },
            }
        }
    }

    fn reset(&mut self) {
        *self = Self::default();
    }
}

fn fio_err(what: String) -> IopError {
    IopError::Native {
        module: "FILEIO".into(),
        what,
    }
}

/// The FILEIO thread's loop: run requests until none is left, then wait for one.
fn drive(iop: &mut Iop, mut last: Option<(i32, Vec<u8>)>) -> Result<(), IopError> {
    loop {
        let fio = iop
            .modules
            .server_mut::<FileIo>()
            .ok_or_else(|| fio_err("the FILEIO thread runs without its server".into()))?;
        let area = fio.area;
        let Some(mut job) = fio.running.take().or_else(|| fio.jobs.pop_front()) else {
            // Wait for a request, to resume here.
            let cur = iop.current_thread();
            if let Some(t) = iop.kernel.threads.get_mut(&cur) {
                t.cont.push(Cont::Module {
                    tag: CONT_FIO_LOOP,
                    data: [0; 6],
                });
            }
            iop.cpu.set_pc(crate::kernel::ret::CONTINUE);
            iop.wait_current(Wait::Native(WAIT_FILEIO));
            return Ok(());
        };
        let step = match job.pending.take() {
            Some(req) => Step::Req(req),
            None => job.next(iop, last.take()).map_err(fio_err)?,
        };
        let req = match step {
            Step::Reply(r) => {
                iop.complete_call(job.token, &(r as u32).to_le_bytes());
                continue;
            }
            Step::Req(req) => req,
        };
        let res = ioman::exec(iop, &req).map_err(fio_err)?;
        if res.is_none() {
            issue(iop, area, &req)?;
        }
        last = res;
        let fio = iop.modules.server_mut::<FileIo>().expect("FILEIO");
        fio.running = Some(job);
        if last.is_none() {
            return Ok(());
        }
    }
}

/// What an ioman call made by the thread brings back.
mod kind {
    pub const NONE: u32 = 0;
    pub const READ: u32 = 1;
    pub const DREAD: u32 = 2;
    pub const GETSTAT: u32 = 3;
}

/// Make ioman call `req` through the library on the FILEIO thread, its data in the work area.
fn issue(iop: &mut Iop, area: u32, req: &IoReq) -> Result<(), IopError> {
    let (xfer, argb, tmp) = (area, area + AREA_ARGS, area + AREA_TMP);
    let put = |iop: &mut Iop, at: u32, b: &[u8], nul: bool| {
        iop.bus.write_ram(at, b);
        if nul {
            iop.bus.write_ram(at + b.len() as u32, &[0]);
        }
    };
    let (index, args, k, want): (u16, Vec<u32>, u32, u32) = match req {
        IoReq::Open { path, flags } => {
            put(iop, argb, path, true);
            (4, vec![argb, *flags], kind::NONE, 0)
        }
        IoReq::Close(fd) => (5, vec![*fd as u32], kind::NONE, 0),
        IoReq::Read { fd, len } => (6, vec![*fd as u32, xfer, *len], kind::READ, *len),
        IoReq::Write { fd, data } => {
            put(iop, xfer, data, false);
            (7, vec![*fd as u32, xfer, data.len() as u32], kind::NONE, 0)
        }
        IoReq::Lseek { fd, offset, whence } => {
            (8, vec![*fd as u32, *offset as u32, *whence], kind::NONE, 0)
        }
        IoReq::Ioctl { fd, cmd, data } => {
            put(iop, argb, data, false);
            (9, vec![*fd as u32, *cmd, argb], kind::NONE, 0)
        }
        IoReq::Remove(p) | IoReq::Mkdir(p) | IoReq::Rmdir(p) | IoReq::Format(p) => {
            put(iop, argb, p, true);
            let i = match req {
                IoReq::Remove(_) => 10,
                IoReq::Mkdir(_) => 11,
                IoReq::Rmdir(_) => 12,
                _ => 18,
            };
            (i, vec![argb], kind::NONE, 0)
        }
        IoReq::Dopen(p) => {
            put(iop, argb, p, true);
            (13, vec![argb, 0], kind::NONE, 0)
        }
        IoReq::Dclose(fd) => (14, vec![*fd as u32], kind::NONE, 0),
        IoReq::Dread(fd) => (15, vec![*fd as u32, tmp], kind::DREAD, 0),
        IoReq::Getstat(p) => {
            put(iop, argb, p, true);
            (16, vec![argb, tmp], kind::GETSTAT, 0)
        }
        IoReq::Chstat { path, stat, mask } => {
            put(iop, argb, path, true);
            put(iop, tmp, stat, false);
            (17, vec![argb, tmp, *mask], kind::NONE, 0)
        }
        IoReq::AddDrv(dev) => (20, vec![*dev], kind::NONE, 0),
        IoReq::DelDrv(name) => {
            put(iop, argb, name, true);
            (21, vec![argb], kind::NONE, 0)
        }
    };
    let addr = iop
        .native_address("ioman", index)
        .ok_or_else(|| fio_err(format!("ioman has no export {index}")))?;
    let sp = iop.cpu.gpr[29];
    let cont = Cont::Module {
        tag: CONT_FIO_CALL,
        data: [k, want, sp, 0, 0, 0],
    };
    iop.call_guest_then(addr, &args, cont);
    Ok(())
}

/// The FILEIO thread was started or woken: run what is queued.
pub fn thread_loop(iop: &mut Iop, _data: [u32; 6]) -> Result<(), IopError> {
    drive(iop, None)
}

/// An ioman call the FILEIO thread made returned: take its result and go on.
pub fn call_returned(iop: &mut Iop, data: [u32; 6]) -> Result<(), IopError> {
    let [k, want, sp, ..] = data;
    iop.cpu.gpr[29] = sp;
    let r = iop.cpu.gpr[2] as i32;
    let area = iop.modules.server_mut::<FileIo>().map_or(0, |f| f.area);
    let (at, len) = match k {
        kind::READ if r > 0 => (area, (r as u32).min(want)),
        kind::DREAD if r >= 0 => (area + AREA_TMP, 300),
        kind::GETSTAT if r >= 0 => (area + AREA_TMP, 40),
        _ => (0, 0),
    };
    let mut bytes = vec![0; len as usize];
    iop.bus.read_ram(at, &mut bytes);
    drive(iop, Some((r, bytes)))
}

/// The IOP heap service (sid 0x8000_0003, part of the rom's FILEIO module): what ps2sdk's
/// SifAllocIopHeap, SifFreeIopHeap and SifLoadIopHeap call. fno 1: { size } -> the address of
/// an ALLOC_FIRST block (0 when none); fno 2: { address } -> FreeSysMemory's result; fno 3:
/// { address, `path[252]` } -> 0 when the file was read to the address, -1 when it could not be
/// opened.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct IopHeap;

/// The heap service's sid.
pub const IOPHEAP_SID: u32 = 0x8000_0003;

impl NativeServer for IopHeap {
    crate::whole_server_state!();

    fn sid(&self) -> u32 {
        IOPHEAP_SID
    }
    fn name(&self) -> &str {
        "FILEIO heap service"
    }
    fn buffer_size(&self) -> u32 {
        0x100
    }
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
    fn call(&mut self, iop: &mut Iop, f: u32, args: &[u8], _token: u32) -> Result<Reply, String> {
        let r = match f {
            1 => iop
                .sysmem_alloc(crate::kernel::sysmem::Mode::First, word(args, 0), 0)
                .unwrap_or(0),
            2 => iop.sysmem_free(word(args, 0)) as u32,
            3 => {
                let addr = word(args, 0);
                let path = cstr(args, 4, 252);
                match super::read_file(iop, &path) {
                    Ok(data) => {
                        iop.bus.write_ram(addr, &data);
                        0
                    }
                    Err(_) => u32::MAX,
                }
            }
            other => return Err(format!("no such heap service function {other}")),
        };
        let mut reply = Vec::with_capacity(4);
        put_word(&mut reply, 0, r);
        Ok(Reply::Now(reply))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_times_are_civil_dates() {
        // 2015-05-21 13:45:30 UTC.
        assert_eq!(io_time(1_432_215_930), [0, 30, 45, 13, 21, 5, 0xdf, 0x07]);
        assert_eq!(io_time(0), [0, 0, 0, 0, 1, 1, 0xb2, 0x07]);
        // 2000-02-29 (a leap day) 23:59:59.
        assert_eq!(io_time(951_868_799), [0, 59, 59, 23, 29, 2, 0xd0, 0x07]);
    }

    /// A save state's `host:` file is opened under the loading run's folder by the device's
    /// own checks: a state naming `../` cannot reach outside it.
    #[test]
    fn a_saved_host_file_stays_in_the_folder() {
        let h = HostDir::new("host", "/tmp/piney-no-such-folder");
        let saved = |path: &str| SavedFile::Host {
            path: path.into(),
            read: false,
            write: true,
            append: false,
            pos: 0,
        };
        let e = h.reopen(&saved("../etc/passwd")).err().unwrap_or_default();
        assert!(e.contains("outside the folder"), "{e}");
        let e = h.reopen(&saved("log.txt")).err().unwrap_or_default();
        assert!(
            e.contains("host:log.txt") && e.contains("cannot be opened"),
            "{e}"
        );
        // Read back from a state, it waits for the folder.
        let pending = saved("log.txt").reopen().unwrap();
        assert_eq!(pending.pending(), Some(&saved("log.txt")));
    }

    #[test]
    fn host_dir_refuses_to_leave_its_root() {
        let h = HostDir::new("host", "/tmp/x");
        assert_eq!(h.resolve("../etc/passwd").err(), Some(-errno::EACCES));
        assert_eq!(h.resolve("\\a\\b").ok(), Some(PathBuf::from("/tmp/x/a/b")));
    }
}
