//! ioman: the IOP's file manager, native. One device table and one file table serve the whole
//! IOP: guest modules reach them through the `ioman` and `iomanx` libraries, the EE through
//! FILEIO ([`crate::modules::fileio`], an RPC front over [`exec`] and these libraries).
//!
//! Facts (ps2sdk `iop/system/ioman` and `iop/system/iomanx`: `exports.tab`, `ioman.h`,
//! `ioman_mod.h`, `iomanX.h`, `ioman.c`, `iomanX.c`, reconstructions of Sony's modules; the
//! code is our own):
//! - ioman 1.1 exports 4 open(name, flags), 5 close(fd), 6 read(fd, buf, size), 7 write, 8
//!   lseek(fd, offset, whence), 9 ioctl(fd, cmd, arg), 10 remove(name), 11 mkdir(name), 12
//!   rmdir, 13 dopen(name), 14 dclose(fd), 15 dread(fd, io_dirent_t *), 16 getstat(name,
//!   io_stat_t *), 17 chstat(name, stat, mask), 18 format(name), 20 AddDrv(iop_device_t *),
//!   21 DelDrv(name); 19 and 22..24 return at once. iomanx 1.1 has the same numbers (open takes
//!   a mode too, mkdir a mode, format (name, blockdev, arg, arglen); 14 is close as well; dread
//!   and getstat fill the 64-byte iox_stat_t), 22 GetDevType(fd), 23 StdioInit, 25 rename, 26
//!   chdir, 27 sync, 28 mount, 29 umount, 30 lseek64, 31 devctl, 32 symlink, 33 readlink, 34
//!   ioctl2 (the extended calls, made only for IOP_DT_FSEXT devices: -EUNSUP, 48, for others);
//!   19 and 24 return at once.
//! - A path is `[spaces]name[unit]:rest`: the unit is the name's trailing digits (0 without),
//!   the device the first slot holding that name (names of at most 31 bytes), and the driver
//!   gets a pointer to `rest` inside the caller's own string. No colon, no such device: -ENODEV.
//! - Devices: 16 slots, iop_device_t { name, type, version, desc, ops }. AddDrv takes the first
//!   free slot (-1 when none; names are not checked), calls the driver's init(device) and frees
//!   the slot again, answering -1, if it returns < 0; else 0. DelDrv(name): the first device of
//!   exactly that name: deinit(device), slot freed, 0; -1 when there is none.
//! - Files: 32 iop_file_t { mode, unit, device, privdata } (ioman alone keeps 16; the BIOS's
//!   IOMANX, whose table the console's ioman calls end in, 32). A call on a path takes a free
//!   file first (-EMFILE), then finds the device; open and dopen keep the file when the driver
//!   answers >= 0 (the result is then the fd), every other path call frees it after the driver
//!   and passes its result. mode is the open flags (dopen: 0; iomanx: FIO_O_DIROPEN, 8);
//!   privdata belongs to the driver and is never cleared. A bad fd (< 0, >= 32, free) is
//!   -EBADF; read needs mode & FIO_O_RDONLY, write mode & FIO_O_WRONLY (else -EBADF); lseek's
//!   whence must be 0..2 (else "invalid lseek arg\r\n" is written to fd 1 and the answer is
//!   -EINVAL); close and dclose free the file whatever the driver answers.
//! - iomanx in front of an ioman-style device (type without IOP_DT_FSEXT, 0x10000000): getstat
//!   and dread turn the driver's io_stat_t mode into iox_stat_t's (mode2modex: FIO_SO_IFLNK,
//!   IFREG, IFDIR 0x08, 0x10, 0x20 become 0x4000, 0x2000, 0x1000; each of the r, w, x bits 4,
//!   2, 1 becomes user, group and other), chstat the other way on a copy; close (5 and 14)
//!   calls dclose for a file dopen opened and answers the fd; remove, mkdir, rmdir, getstat,
//!   chstat and format answer 0 on success; dread needs a file dopen opened (-EBADF).
//!
//! Native devices ([`IoDevice`]: `tty`, `rom`, `host`, the folder
//! [`crate::modules::Modules::host_root`] names, and any the machine adds with
//! [`Ioman::set_device`]) and MCMAN's `mc` (once a native MCMAN is loaded; it takes the first
//! free slot then, as MCMAN's AddDrv would: [`fileio_mc`]) are answered in Rust by [`exec`]. A
//! guest device's calls run as its own code: ioman fills the file's iop_file_t in its table in
//! IOP RAM (allocated ALLOC_LAST at the first AddDrv), calls the driver's function from its ops
//! table with $ra at the kernel's continue point, and finishes the call (the fd kept or freed)
//! when it returns ([`op_continue`]). A bad pointer from a guest (a path, a buffer, a device, an
//! ops table, a driver function outside IOP RAM) stops the run naming it.
//!
//! Where piney differs: an unknown device is logged once on stderr (the console Kprintfs
//! "Unknown device" and its device list); ioctl, format and chstat on native devices other than
//! `mc` (and chstat on `mc`) answer -EIO with a note on stderr; iomanx's extended calls 25..34
//! (rename, chdir, sync, mount, umount, lseek64, devctl, symlink, readlink, ioctl2) answer what
//! iomanX answers for a device without IOP_DT_FSEXT (every native one: -EUNSUP, 48) but are not
//! made for a guest driver that has them (that stops the run naming the call). 23 StdioInit
//! reopens fds 0 and 1 on the tty (mode 0) or on a `dummytty` that drops what it is given
//! (mode 1); the stdio library's output goes to fd 1 ([`crate::Iop::stdio_write`]).

mod exports;
mod guest;
pub(crate) mod stdio;

use std::collections::HashSet;

use super::{Cont, Iop, IopError, LibDef, Ret};
use crate::mem::{RAM_SIZE, physical};
use crate::modules::cdvd::device::{self as cd, CdFile};
use crate::modules::fileio::{HostDir, IoDevice, IoFile, IoStat, RomDevice, Tty, TtyDevice};
use crate::modules::fileio::{errno, flags};
use crate::modules::fileio_mc::{self, McFile};

/// Device slots.
pub const MAX_DEVICES: usize = 16;
/// Files (fds 0..31).
pub const MAX_FILES: usize = 32;
/// The size of an iop_file_t.
pub const FILE_T_SIZE: u32 = 16;
/// iomanx's mode bit of a file dopen opened.
pub const O_DIROPEN: u32 = 0x0008;
/// Device types.
pub const IOP_DT_CHAR: u32 = 0x01;
/// A file system.
pub const IOP_DT_FS: u32 = 0x10;
/// The device has iomanx's extended operations.
pub const IOP_DT_FSEXT: u32 = 0x1000_0000;
/// The longest path read from a guest.
const PATH_LIMIT: usize = 1024;

/// iop_device_t offsets.
mod dv {
    pub const NAME: u32 = 0;
    pub const TYPE: u32 = 4;
    pub const OPS: u32 = 16;
}

/// iop_file_t offsets.
mod ft {
    pub const MODE: u32 = 0;
    pub const UNIT: u32 = 4;
    pub const DEVICE: u32 = 8;
}

/// Indices of a driver's ops table (iop_device_ops_t; iomanx's begins the same way).
pub mod op {
    #![allow(missing_docs)]
    pub const INIT: u32 = 0;
    pub const DEINIT: u32 = 1;
    pub const FORMAT: u32 = 2;
    pub const OPEN: u32 = 3;
    pub const CLOSE: u32 = 4;
    pub const READ: u32 = 5;
    pub const WRITE: u32 = 6;
    pub const LSEEK: u32 = 7;
    pub const IOCTL: u32 = 8;
    pub const REMOVE: u32 = 9;
    pub const MKDIR: u32 = 10;
    pub const RMDIR: u32 = 11;
    pub const DOPEN: u32 = 12;
    pub const DCLOSE: u32 = 13;
    pub const DREAD: u32 = 14;
    pub const GETSTAT: u32 = 15;
    pub const CHSTAT: u32 = 16;
    /// The names, for messages.
    pub const NAMES: [&str; 17] = [
        "init", "deinit", "format", "open", "close", "read", "write", "lseek", "ioctl", "remove",
        "mkdir", "rmdir", "dopen", "dclose", "dread", "getstat", "chstat",
    ];
}

/// A device slot.
#[derive(serde::Serialize, serde::Deserialize)]
pub enum Device {
    /// A device answered in Rust.
    Native(#[serde(with = "crate::state::native_device")] Box<dyn IoDevice>),
    /// `host`: the folder [`crate::modules::Modules::host_root`] names at the time of the call.
    Host,
    /// MCMAN's `mc`.
    Mc,
    /// cdvdman's `cdrom` ([`crate::modules::cdvd::device`]).
    Cdrom,
    /// A guest driver: its iop_device_t's address.
    Guest(u32),
}

/// What an open file is.
#[derive(serde::Serialize, serde::Deserialize)]
pub enum Handle {
    /// A native device's file.
    Native(#[serde(with = "crate::state::native_file")] Box<dyn IoFile>),
    /// A native directory: its entries and how far dread got.
    Dir(Vec<(String, IoStat)>, usize),
    /// A file or directory of `mc`.
    Mc(McFile),
    /// A file of `cdrom`.
    Cd(CdFile),
    /// A guest driver's: its iop_file_t in IOP RAM says the rest.
    Guest,
}

/// An open file.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct File {
    /// The open flags (0 or [`O_DIROPEN`] for dopen).
    pub mode: u32,
    /// The device's type (GetDevType) for a native device.
    pub dtype: u32,
    /// The file itself.
    pub handle: Handle,
}

/// ioman's state.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct Ioman {
    devices: Vec<Option<Device>>,
    files: Vec<Option<File>>,
    /// Whether the native `mc` has taken its slot (it then never comes back after a DelDrv).
    mc_added: bool,
    /// The iop_file_t table in IOP RAM (0 until the first AddDrv).
    table: u32,
    logged: HashSet<String>,
}

impl Default for Ioman {
    fn default() -> Self {
        Self::new()
    }
}

impl Ioman {
    /// Opens again the `host:` files of a state just read (see
    /// [`crate::modules::fileio::SavedFile`]) under `root`, the loading run's `host:` folder;
    /// `Err` names a file that cannot be.
    pub(crate) fn reopen_host_files(&mut self, root: &std::path::Path) -> Result<(), String> {
        let host = HostDir::new("host", root);
        for file in self.files.iter_mut().flatten() {
            if let Handle::Native(h) = &mut file.handle
                && let Some(saved) = h.pending()
            {
                *h = host.reopen(saved)?;
            }
        }
        Ok(())
    }

    /// At boot: `tty`, `rom` and `host`; fds 0 (read and write), 1 and 2 (write) open on the
    /// tty, as ioman's StdioInit leaves them (the console opens 0 and 1; piney's 2 is stderr).
    pub fn new() -> Self {
        let mut devices: Vec<Option<Device>> = (0..MAX_DEVICES).map(|_| None).collect();
        devices[0] = Some(Device::Native(Box::new(TtyDevice)));
        devices[1] = Some(Device::Native(Box::new(RomDevice)));
        devices[2] = Some(Device::Host);
        // CDVDMAN, in the boot list, adds its device.
        devices[3] = Some(Device::Cdrom);
        let mut files: Vec<Option<File>> = (0..MAX_FILES).map(|_| None).collect();
        for (fd, mode) in [(0, flags::O_RDONLY | flags::O_WRONLY), (1, flags::O_WRONLY)] {
            files[fd] = Some(tty_file(mode));
        }
        files[2] = Some(tty_file(flags::O_WRONLY));
        Self {
            devices,
            files,
            mc_added: false,
            table: 0,
            logged: HashSet::new(),
        }
    }

    /// Add a native device, or replace the native device of its name in its slot (ignored,
    /// with a note, when every slot is taken). A reboot forgets it.
    pub fn set_device(&mut self, dev: Box<dyn IoDevice>) {
        let same = self.devices.iter().position(|d| match d {
            Some(Device::Native(x)) => x.name() == dev.name(),
            Some(Device::Host) => dev.name() == "host",
            _ => false,
        });
        match same.or_else(|| self.devices.iter().position(Option::is_none)) {
            Some(i) => self.devices[i] = Some(Device::Native(dev)),
            None => eprintln!("piney: ioman: no free device slot for {}:", dev.name()),
        }
    }

    /// The number of open files.
    pub fn open_files(&self) -> usize {
        self.files.iter().filter(|f| f.is_some()).count()
    }

    /// The number of open files of `cdrom`.
    pub fn cd_files(&self) -> usize {
        self.files
            .iter()
            .filter(|f| {
                matches!(
                    f,
                    Some(File {
                        handle: Handle::Cd(_),
                        ..
                    })
                )
            })
            .count()
    }

    fn free_fd(&self) -> Option<usize> {
        self.files.iter().position(Option::is_none)
    }

    fn valid_fd(&self, fd: i32) -> Option<usize> {
        usize::try_from(fd)
            .ok()
            .filter(|&i| self.files.get(i).is_some_and(Option::is_some))
    }

    fn log_once(&mut self, key: String, msg: String) {
        if self.logged.insert(key) {
            eprintln!("piney: ioman: {msg}");
        }
    }
}

fn tty_file(mode: u32) -> File {
    File {
        mode,
        dtype: IOP_DT_CHAR,
        handle: Handle::Native(Box::new(Tty)),
    }
}

/// A request to ioman, with its data as bytes (FILEIO's calls; the natives' for native
/// devices).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum IoReq {
    /// open(path, flags)
    Open {
        /// The path.
        path: Vec<u8>,
        /// The open flags.
        flags: u32,
    },
    /// close(fd)
    Close(i32),
    /// read(fd, len): the bytes read come back.
    Read {
        /// The file.
        fd: i32,
        /// How many bytes.
        len: u32,
    },
    /// write(fd, data)
    Write {
        /// The file.
        fd: i32,
        /// The bytes.
        data: Vec<u8>,
    },
    /// lseek(fd, offset, whence)
    Lseek {
        /// The file.
        fd: i32,
        /// The offset.
        offset: i32,
        /// 0 set, 1 current, 2 end.
        whence: u32,
    },
    /// ioctl(fd, cmd, data)
    Ioctl {
        /// The file.
        fd: i32,
        /// The request.
        cmd: u32,
        /// Its argument block.
        data: Vec<u8>,
    },
    /// remove(path)
    Remove(Vec<u8>),
    /// mkdir(path)
    Mkdir(Vec<u8>),
    /// rmdir(path)
    Rmdir(Vec<u8>),
    /// dopen(path)
    Dopen(Vec<u8>),
    /// dclose(fd)
    Dclose(i32),
    /// dread(fd): the 300-byte io_dirent_t comes back (none at the end for native devices).
    Dread(i32),
    /// getstat(path): the 40-byte io_stat_t comes back.
    Getstat(Vec<u8>),
    /// chstat(path, stat, mask)
    Chstat {
        /// The path.
        path: Vec<u8>,
        /// The 40-byte io_stat_t.
        stat: Vec<u8>,
        /// Which fields.
        mask: u32,
    },
    /// format(path)
    Format(Vec<u8>),
    /// AddDrv(device): always a guest driver's init.
    AddDrv(u32),
    /// DelDrv(name)
    DelDrv(Vec<u8>),
}

/// The result of [`exec`]: the answer and any bytes, or `None` when a guest driver must
/// answer (nothing has changed then).
pub type Exec = Option<(i32, Vec<u8>)>;

fn done(r: i32) -> Result<Exec, String> {
    Ok(Some((r, Vec::new())))
}

/// `[spaces]name[unit]:rest`: (name, unit, offset of rest).
pub fn split_path(path: &[u8]) -> Option<(&[u8], u32, usize)> {
    let start = path.iter().position(|&c| c != b' ')?;
    let colon = start + path[start..].iter().position(|&c| c == b':')?;
    let dev = &path[start..colon];
    if dev.is_empty() || dev.len() > 31 {
        return None;
    }
    let digits = dev.iter().rev().take_while(|c| c.is_ascii_digit()).count();
    let (name, num) = dev.split_at(dev.len() - digits);
    // strtol: the digits' value, LONG_MAX when it overflows.
    let unit = num
        .iter()
        .fold(0u32, |v, d| {
            v.saturating_mul(10).saturating_add(u32::from(d - b'0'))
        })
        .min(i32::MAX as u32);
    Some((name, unit, colon + 1))
}

/// The name of a slot's device (a guest's read from its iop_device_t; empty when unreadable).
fn slot_name(iop: &Iop, d: &Device) -> Vec<u8> {
    match d {
        Device::Native(x) => x.name().as_bytes().to_vec(),
        Device::Host => b"host".to_vec(),
        Device::Mc => b"mc".to_vec(),
        Device::Cdrom => b"cdrom".to_vec(),
        Device::Guest(a) => {
            let p = iop.bus.ram_u32(a + dv::NAME);
            if (physical(p) as usize) < RAM_SIZE {
                iop.bus
                    .ram_cbytes(p, 64.min(RAM_SIZE - physical(p) as usize))
            } else {
                Vec::new()
            }
        }
    }
}

/// MCMAN's AddDrv, done when a native MCMAN is first seen loaded.
fn sync_mc(iop: &mut Iop) {
    if !iop.modules.ioman.mc_added && fileio_mc::present(iop) {
        let io = &mut iop.modules.ioman;
        io.mc_added = true;
        match io.devices.iter().position(Option::is_none) {
            Some(i) => io.devices[i] = Some(Device::Mc),
            None => eprintln!("piney: ioman: no free device slot for MCMAN's mc:"),
        }
    }
}

/// The first slot holding a device named `name`.
fn lookup(iop: &mut Iop, name: &[u8]) -> Option<usize> {
    sync_mc(iop);
    let io = &iop.modules.ioman;
    (0..MAX_DEVICES).find(|&i| {
        io.devices[i]
            .as_ref()
            .is_some_and(|d| slot_name(iop, d) == name)
    })
}

/// The device slot, unit and offset of the rest a path names, or -ENODEV.
fn resolve(iop: &mut Iop, path: &[u8]) -> Result<(usize, u32, usize), i32> {
    let shown = String::from_utf8_lossy(path).into_owned();
    let Some((name, unit, rest)) = split_path(path) else {
        iop.modules.ioman.log_once(
            format!("nodev:{shown}"),
            format!("path \"{shown}\" names no device: -ENODEV"),
        );
        return Err(-errno::ENODEV);
    };
    let name = name.to_vec();
    match lookup(iop, &name) {
        Some(s) => Ok((s, unit, rest)),
        None => {
            let n = String::from_utf8_lossy(&name).into_owned();
            iop.modules.ioman.log_once(
                format!("nodev:{n}"),
                format!("no device \"{n}:\" (\"{shown}\"): -ENODEV"),
            );
            Err(-errno::ENODEV)
        }
    }
}

/// A path call's first steps: a free file (-EMFILE), then the device.
fn path_dev(iop: &mut Iop, path: &[u8]) -> Result<(usize, u32, usize), i32> {
    if iop.modules.ioman.free_fd().is_none() {
        return Err(-errno::EMFILE);
    }
    resolve(iop, path)
}

/// What kind of device a slot holds: 0 native, 1 `mc`, 2 guest, 3 `cdrom`.
fn kind(iop: &Iop, slot: usize) -> u8 {
    match iop.modules.ioman.devices[slot] {
        Some(Device::Mc) => 1,
        Some(Device::Guest(_)) => 2,
        Some(Device::Cdrom) => 3,
        _ => 0,
    }
}

/// Run `f` on a slot's native device (`host` made for the call from the host root).
fn with_native<R>(iop: &mut Iop, slot: usize, f: impl FnOnce(&mut dyn IoDevice) -> R) -> R {
    let root = iop.modules.host_root.clone().unwrap_or_else(|| ".".into());
    match &mut iop.modules.ioman.devices[slot] {
        Some(Device::Native(d)) => f(d.as_mut()),
        _ => f(&mut HostDir::new("host", root)),
    }
}

fn unsupported(iop: &mut Iop, what: &str, path: &[u8]) -> i32 {
    let p = String::from_utf8_lossy(path).into_owned();
    iop.modules.ioman.log_once(
        format!("unsup:{what}"),
        format!("{what} (\"{p}\") is not supported by piney's native devices; answered -EIO"),
    );
    -errno::EIO
}

/// Take file `fd` out of the table for a call that needs the whole IOP, and put it back.
fn with_file<R>(iop: &mut Iop, fd: usize, f: impl FnOnce(&mut Iop, &mut File) -> R) -> R {
    let mut file = iop.modules.ioman.files[fd].take().expect("an open file");
    let r = f(iop, &mut file);
    iop.modules.ioman.files[fd] = Some(file);
    r
}

fn is_guest_file(iop: &Iop, fd: usize) -> bool {
    matches!(
        iop.modules.ioman.files[fd],
        Some(File {
            handle: Handle::Guest,
            ..
        })
    )
}

/// One ioman call on native devices. `Ok(None)`: the call is a guest driver's (nothing has
/// changed; make it through the library, see the module documentation). `Err`: a native
/// device cannot go on (a damaged memory card).
pub fn exec(iop: &mut Iop, req: &IoReq) -> Result<Exec, String> {
    match req {
        IoReq::Open { path, .. } | IoReq::Dopen(path) => {
            let open = matches!(req, IoReq::Open { .. });
            let fl = if let IoReq::Open { flags, .. } = req {
                *flags
            } else {
                0
            };
            let Some(fd) = iop.modules.ioman.free_fd() else {
                return done(-errno::EMFILE);
            };
            let (slot, unit, rest) = match resolve(iop, path) {
                Ok(x) => x,
                Err(e) => return done(e),
            };
            let rest = &path[rest..];
            let (handle, dtype) = match kind(iop, slot) {
                2 => return Ok(None),
                3 => {
                    let r = if open {
                        cd::open(iop, unit, rest).map(Handle::Cd)
                    } else {
                        cd::dopen(iop, unit, rest).map(|l| Handle::Dir(l, 0))
                    };
                    match r {
                        // cdvdman opens its files for reading, whatever was asked.
                        Ok(h @ Handle::Cd(_)) => {
                            iop.modules.ioman.files[fd] = Some(File {
                                mode: flags::O_RDONLY,
                                dtype: IOP_DT_FS,
                                handle: h,
                            });
                            return done(fd as i32);
                        }
                        Ok(h) => (h, IOP_DT_FS),
                        Err(e) => return done(e),
                    }
                }
                1 => {
                    let r = if open {
                        fileio_mc::open(iop, unit, rest, fl)?
                    } else {
                        fileio_mc::dopen(iop, unit, rest)?
                    };
                    match r {
                        Ok(m) => (Handle::Mc(m), IOP_DT_FS),
                        Err(e) => return done(e),
                    }
                }
                _ => {
                    let r = String::from_utf8_lossy(rest).into_owned();
                    let h = with_native(iop, slot, |d| {
                        let t = d.dev_type();
                        if open {
                            d.open(unit, &r, fl).map(|f| (Handle::Native(f), t))
                        } else {
                            d.dopen(unit, &r).map(|l| (Handle::Dir(l, 0), t))
                        }
                    });
                    match h {
                        Ok(h) => h,
                        Err(e) => return done(e),
                    }
                }
            };
            iop.modules.ioman.files[fd] = Some(File {
                mode: fl,
                dtype,
                handle,
            });
            done(fd as i32)
        }
        IoReq::Close(fd) | IoReq::Dclose(fd) => {
            let dclose = matches!(req, IoReq::Dclose(_));
            let Some(i) = iop.modules.ioman.valid_fd(*fd) else {
                return done(-errno::EBADF);
            };
            if is_guest_file(iop, i) {
                return Ok(None);
            }
            let f = iop.modules.ioman.files[i].take().expect("an open file");
            match f.handle {
                // MCMAN's close closes both kinds.
                Handle::Mc(m) => done(fileio_mc::close(iop, m)?),
                Handle::Native(_) | Handle::Cd(_) if !dclose => done(0),
                Handle::Dir(..) if dclose => done(0),
                handle => {
                    // Not this kind: the native device refuses and the file stays open.
                    iop.modules.ioman.files[i] = Some(File { handle, ..f });
                    done(-errno::EBADF)
                }
            }
        }
        IoReq::Read { fd, len } => {
            let Some(i) = iop.modules.ioman.valid_fd(*fd) else {
                return done(-errno::EBADF);
            };
            if iop.modules.ioman.files[i].as_ref().expect("open").mode & flags::O_RDONLY == 0 {
                return done(-errno::EBADF);
            }
            if is_guest_file(iop, i) {
                return Ok(None);
            }
            let mut buf = vec![0u8; (*len as usize).min(RAM_SIZE)];
            let n = with_file(iop, i, |iop, f| match &mut f.handle {
                Handle::Native(file) => Ok(file.read(&mut buf)),
                Handle::Mc(m) => fileio_mc::read(iop, m, &mut buf),
                Handle::Cd(c) => Ok(cd::read(iop, c, &mut buf)),
                _ => Ok(-errno::EBADF),
            })?;
            buf.truncate(n.clamp(0, buf.len() as i32) as usize);
            Ok(Some((n, buf)))
        }
        IoReq::Write { fd, data } => {
            let Some(i) = iop.modules.ioman.valid_fd(*fd) else {
                return done(-errno::EBADF);
            };
            if iop.modules.ioman.files[i].as_ref().expect("open").mode & flags::O_WRONLY == 0 {
                return done(-errno::EBADF);
            }
            if is_guest_file(iop, i) {
                return Ok(None);
            }
            done(with_file(iop, i, |iop, f| match &mut f.handle {
                Handle::Native(file) => Ok(file.write(data, &mut iop.out)),
                Handle::Mc(m) => fileio_mc::write(iop, m, data),
                _ => Ok(-errno::EBADF),
            })?)
        }
        IoReq::Lseek { fd, offset, whence } => {
            let Some(i) = iop.modules.ioman.valid_fd(*fd) else {
                return done(-errno::EBADF);
            };
            if *whence > 2 {
                let msg = b"invalid lseek arg\r\n".to_vec();
                if exec(iop, &IoReq::Write { fd: 1, data: msg })?.is_none() {
                    iop.log_once("lseek-msg", "invalid lseek arg (fd 1 is a guest driver's)");
                }
                return done(-errno::EINVAL);
            }
            if is_guest_file(iop, i) {
                return Ok(None);
            }
            done(with_file(iop, i, |iop, f| match &mut f.handle {
                Handle::Native(file) => Ok(file.lseek(*offset, *whence)),
                Handle::Mc(m) => fileio_mc::lseek(iop, m, *offset, *whence),
                Handle::Cd(c) => Ok(cd::lseek(c, *offset, *whence)),
                _ => Ok(-errno::EBADF),
            })?)
        }
        IoReq::Ioctl { fd, .. } => {
            let Some(i) = iop.modules.ioman.valid_fd(*fd) else {
                return done(-errno::EBADF);
            };
            match iop.modules.ioman.files[i].as_ref().expect("open").handle {
                Handle::Guest => Ok(None),
                // MCMAN's ioctl does nothing and answers 0.
                Handle::Mc(_) => done(0),
                _ => done(unsupported(iop, "ioctl", b"")),
            }
        }
        IoReq::Remove(path) | IoReq::Mkdir(path) | IoReq::Rmdir(path) => {
            let (slot, unit, rest) = match path_dev(iop, path) {
                Ok(x) => x,
                Err(e) => return done(e),
            };
            let rest = &path[rest..];
            match kind(iop, slot) {
                2 => Ok(None),
                3 => done(unsupported(iop, "remove, mkdir and rmdir on cdrom:", rest)),
                1 => done(match req {
                    IoReq::Mkdir(_) => fileio_mc::mkdir(iop, unit, rest)?,
                    // McDelete for both.
                    _ => fileio_mc::remove(iop, unit, rest)?,
                }),
                _ => {
                    let r = String::from_utf8_lossy(rest).into_owned();
                    done(with_native(iop, slot, |d| match req {
                        IoReq::Remove(_) => d.remove(unit, &r),
                        IoReq::Mkdir(_) => d.mkdir(unit, &r),
                        _ => d.rmdir(unit, &r),
                    }))
                }
            }
        }
        IoReq::Format(path) => {
            let (slot, unit, _) = match path_dev(iop, path) {
                Ok(x) => x,
                Err(e) => return done(e),
            };
            match kind(iop, slot) {
                2 => Ok(None),
                1 => done(fileio_mc::format(iop, unit)?),
                _ => done(unsupported(iop, "format", path)),
            }
        }
        IoReq::Chstat { path, .. } => {
            let (slot, ..) = match path_dev(iop, path) {
                Ok(x) => x,
                Err(e) => return done(e),
            };
            match kind(iop, slot) {
                2 => Ok(None),
                _ => done(unsupported(iop, "chstat", path)),
            }
        }
        IoReq::Getstat(path) => {
            let (slot, unit, rest) = match path_dev(iop, path) {
                Ok(x) => x,
                Err(e) => return done(e),
            };
            let rest = &path[rest..];
            match kind(iop, slot) {
                2 => Ok(None),
                3 => Ok(Some(match cd::getstat(iop, unit, rest) {
                    Ok(st) => (0, st.to_bytes()),
                    Err(e) => (e, Vec::new()),
                })),
                1 => {
                    let (r, st) = fileio_mc::getstat(iop, unit, rest)?;
                    Ok(Some((r, st.map(|s| s.to_bytes()).unwrap_or_default())))
                }
                _ => {
                    let r = String::from_utf8_lossy(rest).into_owned();
                    Ok(Some(
                        match with_native(iop, slot, |d| d.getstat(unit, &r)) {
                            Ok(st) => (0, st.to_bytes()),
                            Err(e) => (e, Vec::new()),
                        },
                    ))
                }
            }
        }
        IoReq::Dread(fd) => {
            let Some(i) = iop.modules.ioman.valid_fd(*fd) else {
                return done(-errno::EBADF);
            };
            if is_guest_file(iop, i) {
                return Ok(None);
            }
            Ok(Some(with_file(iop, i, |iop, f| match &mut f.handle {
                Handle::Dir(list, pos) => Ok(match list.get(*pos) {
                    Some((name, st)) => {
                        *pos += 1;
                        let mut d = st.to_bytes();
                        let mut n = name.as_bytes().to_vec();
                        n.truncate(255);
                        let len = n.len() as i32;
                        n.resize(256, 0);
                        d.extend_from_slice(&n);
                        d.resize(300, 0);
                        (len, d)
                    }
                    None => (0, Vec::new()),
                }),
                Handle::Mc(m) => fileio_mc::dread(iop, m),
                _ => Ok((-errno::EBADF, Vec::new())),
            })?))
        }
        IoReq::AddDrv(_) => {
            sync_mc(iop);
            if iop.modules.ioman.devices.iter().all(Option::is_some) {
                return done(-1);
            }
            Ok(None)
        }
        IoReq::DelDrv(name) => {
            let Some(slot) = lookup(iop, name) else {
                return done(-1);
            };
            if kind(iop, slot) == 2 {
                return Ok(None);
            }
            // A native device has nothing to deinit; `mc` does not come back.
            iop.modules.ioman.devices[slot] = None;
            done(0)
        }
    }
}

pub use exports::{IOMAN, IOMANX};
pub use guest::{CONT_IOMAN, mode2modex, modex2mode, op_continue};
use stdio::*;
