//! The IOP's FILEIO RPC server (sid 0x8000_0001), served natively: what ps2sdk's `fio*`
//! functions, and through them its libc's printf, talk to.
//!
//! Function numbers and argument blocks follow ps2sdk's `fileio.c` (EE side) and the ROM FILEIO
//! module it talks to. Replies are one word (the result), except that READ and WRITE also move data:
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
//!   the end of a directory.
//!
//! Devices: `tty` (fds 0, 1 and 2 are open on it from boot; writes go to the guest's stdout,
//! reads find nothing), whatever [`IoDevice`]s are added, such as [`HostDir`], and MCMAN's `mc`
//! once MCMAN is loaded (answered by the native MCSERV's cards: [`super::fileio_mc`]). Opening
//! a path on another device fails with -ENODEV (19), as the IOP's ioman does for a device not
//! loaded.

use std::collections::HashSet;
use std::fs;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Component, Path, PathBuf};

use super::fileio_mc::{self, McFile};
use super::{NativeServer, Reply};
use crate::Iop;

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
/// The file table's size.
pub const MAX_FILES: usize = 32;
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
}

/// A device of the IOP's ioman (`name:` or `nameN:` in paths).
pub trait IoDevice {
    /// The device name without unit number or colon ("tty", "host", "cdrom").
    fn name(&self) -> &str;
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
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
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

/// The console: writes go to the guest's stdout, reads find nothing.
#[derive(Debug, Default)]
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
}

/// The `tty` device.
#[derive(Debug, Default)]
pub struct TtyDevice;

impl IoDevice for TtyDevice {
    fn name(&self) -> &str {
        "tty"
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
    data: &'static [u8],
    pos: usize,
}

impl IoFile for MemFile {
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
#[derive(Debug, Default)]
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
            Some(data) => Ok(Box::new(MemFile { data, pos: 0 })),
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
#[derive(Debug)]
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

struct HostFile(fs::File);

impl IoFile for HostFile {
    fn read(&mut self, buf: &mut [u8]) -> i32 {
        let mut n = 0;
        while n < buf.len() {
            match self.0.read(&mut buf[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return if n > 0 { n as i32 } else { io_err(&e) },
            }
        }
        n as i32
    }
    fn write(&mut self, data: &[u8], _stdout: &mut Vec<u8>) -> i32 {
        match self.0.write_all(data) {
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
        match self.0.seek(to) {
            Ok(p) if p <= i32::MAX as u64 => p as i32,
            Ok(_) => -errno::EINVAL,
            Err(e) => io_err(&e),
        }
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
        o.read(flags & flags::O_RDONLY != 0)
            .write(flags & flags::O_WRONLY != 0)
            .append(flags & flags::O_APPEND != 0)
            .create(flags & flags::O_CREAT != 0 && flags & flags::O_WRONLY != 0)
            .truncate(flags & flags::O_TRUNC != 0 && flags & flags::O_WRONLY != 0);
        if flags & 3 == 0 {
            return Err(-errno::EINVAL);
        }
        o.open(&p)
            .map(|f| Box::new(HostFile(f)) as Box<dyn IoFile>)
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

/// Split an ioman path "devN:rest" into (device name, unit, rest). Leading blanks are skipped.
pub fn parse_path(path: &str) -> Option<(&str, u32, &str)> {
    let path = path.trim_start_matches([' ', '\t']);
    let (dev, rest) = path.split_once(':')?;
    let name = dev.trim_end_matches(|c: char| c.is_ascii_digit());
    let unit = dev[name.len()..].parse().unwrap_or(0);
    Some((name, unit, rest))
}

/// What an fd holds: an open file, an open directory's listing and how far dread got, or a
/// file or directory of the `mc` device.
enum Slot {
    File(Box<dyn IoFile>),
    Dir(Vec<(String, IoStat)>, usize),
    Mc(McFile),
}

/// The FILEIO server.
pub struct FileIo {
    devices: Vec<Box<dyn IoDevice>>,
    files: Vec<Option<Slot>>,
    logged: HashSet<String>,
}

impl Default for FileIo {
    fn default() -> Self {
        Self::new()
    }
}

impl FileIo {
    /// FILEIO with the tty device and fds 0, 1, 2 open on it.
    pub fn new() -> Self {
        let mut f = Self {
            devices: vec![
                Box::new(TtyDevice),
                Box::new(RomDevice),
                // The host's files: the current folder until the machine names the program's.
                Box::new(HostDir::new("host", ".")),
            ],
            files: Vec::new(),
            logged: HashSet::new(),
        };
        f.reset();
        f
    }

    /// Add (or replace, by name) a device.
    pub fn with_device(mut self, dev: Box<dyn IoDevice>) -> Self {
        self.set_device(dev);
        self
    }

    /// Add (or replace, by name) a device.
    pub fn set_device(&mut self, dev: Box<dyn IoDevice>) {
        self.devices.retain(|d| d.name() != dev.name());
        self.devices.push(dev);
    }

    fn unsupported(&mut self, f: u32) -> i32 {
        self.log_once(
            format!("fno{f}"),
            format!("function {f} is not supported by the native FILEIO; answered -EIO"),
        );
        -errno::EIO
    }

    fn log_once(&mut self, key: String, msg: String) {
        if self.logged.insert(key) {
            eprintln!("piney: fileio: {msg}");
        }
    }

    fn device(&mut self, path: &str) -> Result<(usize, u32, String), i32> {
        let Some((name, unit, rest)) = parse_path(path) else {
            self.log_once(
                format!("nodev:{path}"),
                format!("path \"{path}\" names no device: -ENODEV"),
            );
            return Err(-errno::ENODEV);
        };
        match self.devices.iter().position(|d| d.name() == name) {
            Some(i) => Ok((i, unit, rest.to_string())),
            None => {
                self.log_once(
                    format!("nodev:{name}"),
                    format!("no device \"{name}:\" (\"{path}\"): -ENODEV"),
                );
                Err(-errno::ENODEV)
            }
        }
    }

    fn open(&mut self, path: &str, mode: u32) -> i32 {
        let (d, unit, rest) = match self.device(path) {
            Ok(x) => x,
            Err(e) => return e,
        };
        let Some(fd) = self.files.iter().position(Option::is_none) else {
            return -errno::EMFILE;
        };
        match self.devices[d].open(unit, &rest, mode) {
            Ok(f) => {
                self.files[fd] = Some(Slot::File(f));
                fd as i32
            }
            Err(e) => e,
        }
    }

    fn dopen(&mut self, path: &str) -> i32 {
        let (d, unit, rest) = match self.device(path) {
            Ok(x) => x,
            Err(e) => return e,
        };
        let Some(fd) = self.files.iter().position(Option::is_none) else {
            return -errno::EMFILE;
        };
        match self.devices[d].dopen(unit, &rest) {
            Ok(list) => {
                self.files[fd] = Some(Slot::Dir(list, 0));
                fd as i32
            }
            Err(e) => e,
        }
    }

    /// DREAD: the next entry as an `io_dirent_t` sent to `buf`.
    fn dread(&mut self, fd: u32, buf: u32, iop: &mut Iop) -> i32 {
        let Some(Some(Slot::Dir(list, pos))) = self.files.get_mut(fd as usize) else {
            return -errno::EBADF;
        };
        let Some((name, st)) = list.get(*pos) else {
            return 0;
        };
        *pos += 1;
        let mut d = st.to_bytes();
        let mut n = name.as_bytes().to_vec();
        n.truncate(255);
        let len = n.len() as i32;
        n.resize(256, 0);
        d.extend_from_slice(&n);
        d.resize(300, 0);
        iop.send_to_ee(buf, d);
        len
    }

    fn io_read(&mut self, fd: u32, buf: &mut [u8], iop: &mut Iop) -> Result<i32, String> {
        Ok(match self.files.get_mut(fd as usize) {
            Some(Some(Slot::File(f))) => f.read(buf),
            Some(Some(Slot::Mc(m))) => fileio_mc::read(iop, m, buf)?,
            _ => -errno::EBADF,
        })
    }

    fn io_write(&mut self, fd: u32, data: &[u8], iop: &mut Iop) -> Result<i32, String> {
        Ok(match self.files.get_mut(fd as usize) {
            Some(Some(Slot::File(f))) => f.write(data, &mut iop.out),
            Some(Some(Slot::Mc(m))) => fileio_mc::write(iop, m, data)?,
            _ => -errno::EBADF,
        })
    }

    /// A path function on the `mc` device: ioman takes a file of its table for it first.
    fn mc_path_op(
        &mut self,
        iop: &mut Iop,
        op: impl FnOnce(&mut Iop) -> Result<i32, String>,
    ) -> Result<i32, String> {
        if !self.files.iter().any(Option::is_none) {
            return Ok(-errno::EMFILE);
        }
        op(iop)
    }

    /// open and dopen on the `mc` device.
    fn mc_open(
        &mut self,
        iop: &mut Iop,
        unit: u32,
        path: &[u8],
        mode: Option<u32>,
    ) -> Result<i32, String> {
        let Some(fd) = self.files.iter().position(Option::is_none) else {
            return Ok(-errno::EMFILE);
        };
        let r = match mode {
            Some(mode) => fileio_mc::open(iop, unit, path, mode)?,
            None => fileio_mc::dopen(iop, unit, path)?,
        };
        Ok(match r {
            Ok(f) => {
                self.files[fd] = Some(Slot::Mc(f));
                fd as i32
            }
            Err(e) => e,
        })
    }

    /// READ: see the module documentation for how the bytes travel.
    fn read(&mut self, args: &[u8], iop: &mut Iop) -> Result<i32, String> {
        let (fd, ptr, size, read_data) = (
            word(args, 0),
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
        let mut buf1 = [0u8; 16];
        let mut buf2 = [0u8; 16];
        let (mut size1, mut size2) = (head, tail);
        let mut total = 0u32;
        let mut short = false;
        if head > 0 {
            let n = self.io_read(fd, &mut buf1[..head as usize], iop)?;
            if n != head as i32 {
                size1 = n.max(0) as u32;
                short = true;
            }
            total += size1;
        }
        if !short && mid > 0 {
            let mut at = ptr.wrapping_add(head);
            let mut left = mid as usize;
            while left > 0 {
                let want = left.min(XFER_SIZE);
                let mut chunk = vec![0u8; want];
                let n = self.io_read(fd, &mut chunk, iop)?;
                if n > 0 {
                    chunk.truncate(n as usize);
                    total += n as u32;
                    iop.send_to_ee(at, chunk);
                    at = at.wrapping_add(n as u32);
                }
                if n != want as i32 {
                    short = true;
                    break;
                }
                left -= want;
            }
        }
        if short {
            // The read ended early: nothing of the tail.
            size2 = 0;
        } else if tail > 0 {
            let n = self.io_read(fd, &mut buf2[..tail as usize], iop)?;
            size2 = n.max(0) as u32;
            total += size2;
        }
        let mut rd = Vec::with_capacity(48);
        put_word(&mut rd, 0, size1);
        put_word(&mut rd, 4, size2);
        put_word(&mut rd, 8, dest1);
        put_word(&mut rd, 12, dest2);
        rd.extend_from_slice(&buf1);
        rd.extend_from_slice(&buf2);
        if read_data != 0 {
            iop.send_to_ee(read_data, rd);
        }
        Ok(total as i32)
    }

    /// WRITE: see the module documentation.
    fn write(&mut self, args: &[u8], iop: &mut Iop) -> Result<i32, String> {
        let (fd, ptr, size, mis) = (
            word(args, 0),
            word(args, 4),
            word(args, 8),
            word(args, 12).min(16),
        );
        let mut done = 0i32;
        if mis > 0 {
            let head = args.get(16..16 + mis as usize).unwrap_or(&[]).to_vec();
            let n = self.io_write(fd, &head, iop)?;
            if n != mis as i32 {
                return Ok(done + n.max(0));
            }
            done += n;
        }
        let mut left = size.saturating_sub(mis) as usize;
        let mut at = ptr.wrapping_add(mis);
        while left > 0 {
            let want = left.min(XFER_SIZE);
            let data = iop.ee_read(at, want)?;
            let n = self.io_write(fd, &data, iop)?;
            if n != want as i32 {
                return Ok(done + n.max(0));
            }
            done += n;
            left -= want;
            at = at.wrapping_add(want as u32);
        }
        Ok(done)
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

    fn call(&mut self, iop: &mut Iop, f: u32, args: &[u8], _token: u32) -> Result<Reply, String> {
        // Where the function's path is, and the `mc` device's unit and path when it names it.
        let path_at = match f {
            fno::OPEN | fno::GETSTAT => 4,
            _ => 0,
        };
        let mc = fileio_mc::mc_path(cbytes(args, path_at, PATH_MAX));
        let fd = word(args, 0);
        let r: i32 = match f {
            fno::OPEN => match mc {
                Some((unit, path)) => self.mc_open(iop, unit, path, Some(word(args, 0)))?,
                None => self.open(&cstr(args, 4, PATH_MAX), word(args, 0)),
            },
            fno::CLOSE | fno::DCLOSE => match self.files.get_mut(fd as usize).map(Option::take) {
                // ioman frees the file whatever the device answers; MCMAN closes both kinds.
                Some(Some(Slot::Mc(m))) => fileio_mc::close(iop, m)?,
                Some(Some(Slot::File(_))) if f == fno::CLOSE => 0,
                Some(Some(Slot::Dir(..))) if f == fno::DCLOSE => 0,
                Some(other) => {
                    // Not this kind: it stays open.
                    self.files[fd as usize] = other;
                    -errno::EBADF
                }
                None => -errno::EBADF,
            },
            fno::DOPEN => match mc {
                Some((unit, path)) => self.mc_open(iop, unit, path, None)?,
                None => self.dopen(&cstr(args, 0, PATH_MAX)),
            },
            fno::DREAD => match self.files.get_mut(fd as usize) {
                Some(Some(Slot::Mc(m))) => fileio_mc::dread(iop, m, word(args, 4))?,
                _ => self.dread(fd, word(args, 4), iop),
            },
            fno::GETSTAT => match mc {
                Some((unit, path)) => self.mc_path_op(iop, |iop| {
                    fileio_mc::getstat(iop, unit, path, word(args, 0))
                })?,
                None => match self.device(&cstr(args, 4, PATH_MAX)) {
                    Ok((d, unit, rest)) => match self.devices[d].getstat(unit, &rest) {
                        Ok(st) => {
                            iop.send_to_ee(word(args, 0), st.to_bytes());
                            0
                        }
                        Err(e) => e,
                    },
                    Err(e) => e,
                },
            },
            fno::READ => self.read(args, iop)?,
            fno::WRITE => self.write(args, iop)?,
            fno::LSEEK => match self.files.get_mut(fd as usize) {
                Some(Some(Slot::Mc(m))) => {
                    fileio_mc::lseek(iop, m, word(args, 4) as i32, word(args, 8))?
                }
                Some(Some(Slot::File(file))) => file.lseek(word(args, 4) as i32, word(args, 8)),
                _ => -errno::EBADF,
            },
            fno::REMOVE | fno::MKDIR | fno::RMDIR => match mc {
                Some((unit, path)) if f == fno::MKDIR => {
                    self.mc_path_op(iop, |iop| fileio_mc::mkdir(iop, unit, path))?
                }
                Some((unit, path)) => {
                    self.mc_path_op(iop, |iop| fileio_mc::remove(iop, unit, path))?
                }
                None => match self.device(&cstr(args, 0, PATH_MAX)) {
                    Ok((d, unit, rest)) => match f {
                        fno::REMOVE => self.devices[d].remove(unit, &rest),
                        fno::MKDIR => self.devices[d].mkdir(unit, &rest),
                        _ => self.devices[d].rmdir(unit, &rest),
                    },
                    Err(e) => e,
                },
            },
            fno::FORMAT => match mc {
                Some((unit, _)) => self.mc_path_op(iop, |iop| fileio_mc::format(iop, unit))?,
                None => self.unsupported(f),
            },
            // MCMAN's ioctl does nothing and answers 0.
            fno::IOCTL if matches!(self.files.get(fd as usize), Some(Some(Slot::Mc(_)))) => 0,
            fno::IOCTL | fno::CHSTAT | fno::ADDDRV | fno::DELDRV => self.unsupported(f),
            other => return Err(format!("no such FILEIO function {other}")),
        };
        let mut reply = Vec::with_capacity(4);
        put_word(&mut reply, 0, r as u32);
        Ok(Reply::Now(reply))
    }

    fn reset(&mut self) {
        self.files = (0..MAX_FILES).map(|_| None).collect();
        for fd in 0..3 {
            self.files[fd] = Some(Slot::File(Box::new(Tty)));
        }
    }
}

/// The IOP heap service (sid 0x8000_0003, part of the rom's FILEIO module): what ps2sdk's
/// SifAllocIopHeap, SifFreeIopHeap and SifLoadIopHeap call. fno 1: { size } -> the address of
/// an ALLOC_FIRST block (0 when none); fno 2: { address } -> FreeSysMemory's result; fno 3:
/// { address, `path[252]` } -> 0 when the file was read to the address, -1 when it could not be
/// opened.
pub struct IopHeap;

/// The heap service's sid.
pub const IOPHEAP_SID: u32 = 0x8000_0003;

impl NativeServer for IopHeap {
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
    fn paths_split_into_device_unit_and_rest() {
        assert_eq!(parse_path("host0:foo/bar"), Some(("host", 0, "foo/bar")));
        assert_eq!(
            parse_path("cdrom0:\\SLUS_123.45;1"),
            Some(("cdrom", 0, "\\SLUS_123.45;1"))
        );
        assert_eq!(parse_path("tty:"), Some(("tty", 0, "")));
        assert_eq!(parse_path("mc1:/x"), Some(("mc", 1, "/x")));
        assert_eq!(parse_path("nodevice"), None);
    }

    #[test]
    fn stat_times_are_civil_dates() {
        // 2015-05-21 13:45:30 UTC.
        assert_eq!(io_time(1_432_215_930), [0, 30, 45, 13, 21, 5, 0xdf, 0x07]);
        assert_eq!(io_time(0), [0, 0, 0, 0, 1, 1, 0xb2, 0x07]);
        // 2000-02-29 (a leap day) 23:59:59.
        assert_eq!(io_time(951_868_799), [0, 59, 59, 23, 29, 2, 0xd0, 0x07]);
    }

    #[test]
    fn host_dir_refuses_to_leave_its_root() {
        let h = HostDir::new("host", "/tmp/x");
        assert_eq!(h.resolve("../etc/passwd").err(), Some(-errno::EACCES));
        assert_eq!(h.resolve("\\a\\b").ok(), Some(PathBuf::from("/tmp/x/a/b")));
    }
}
