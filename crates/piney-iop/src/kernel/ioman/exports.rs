//! The `ioman` and `iomanx` libraries' exports: the guest-callable entry points in front of
//! [`super::exec`] (native devices) and the guest drivers ([`super::guest`]).

use super::guest::*;
use super::*;

pub(super) fn open_common(iop: &mut Iop, x: bool, dir: bool) -> Result<Ret, IopError> {
    let at = Caller::of(iop);
    let (name, fl, mode) = (iop.arg(0), iop.arg(1), iop.arg(2));
    let path = guest_str(iop, if dir { "dopen's path" } else { "open's path" }, name)?;
    let req = if dir {
        IoReq::Dopen(path.clone())
    } else {
        IoReq::Open {
            path: path.clone(),
            flags: fl,
        }
    };
    if let Some((r, _)) = run(iop, &req)? {
        if x && dir && r >= 0 {
            iop.modules.ioman.files[r as usize]
                .as_mut()
                .expect("open")
                .mode = O_DIROPEN;
        }
        return v(r);
    }
    let (dev, unit, rest, fd) = guest_target(iop, &path)?;
    let fmode = match (dir, x) {
        (false, _) => fl,
        (true, true) => O_DIROPEN,
        (true, false) => 0,
    };
    let f = take_guest_file(iop, fd, fmode, unit, dev);
    let np = name.wrapping_add(rest);
    let (opi, args) = match (dir, x) {
        (true, _) => (op::DOPEN, vec![f, np]),
        (false, true) => (op::OPEN, vec![f, np, fl, mode]),
        (false, false) => (op::OPEN, vec![f, np, fl]),
    };
    call_driver(iop, at, dev, opi, &args, Post::Open(fd as u32))
}

/// close and dclose; iomanx's close picks by the file's mode and answers the fd.
pub(super) fn close_common(iop: &mut Iop, x: bool, dclose: bool) -> Result<Ret, IopError> {
    let at = Caller::of(iop);
    let fd = iop.arg(0) as i32;
    let dclose = if x {
        let io = &iop.modules.ioman;
        io.valid_fd(fd)
            .is_some_and(|i| io.files[i].as_ref().expect("open").mode & O_DIROPEN != 0)
    } else {
        dclose
    };
    let req = if dclose {
        IoReq::Dclose(fd)
    } else {
        IoReq::Close(fd)
    };
    if let Some((r, _)) = run(iop, &req)? {
        return v(if x && r >= 0 { fd } else { r });
    }
    let f = file_addr(iop, fd as u32);
    let dev = dev_of(iop, fd as usize);
    let opi = if dclose { op::DCLOSE } else { op::CLOSE };
    let post = Post::Free(fd as u32, if x { FD } else { 0 });
    call_driver(iop, at, dev, opi, &[f], post)
}

/// Whether fd `fd` is a native file open with mode bit `bit`.
pub(super) fn native_mode(iop: &Iop, fd: i32, bit: u32) -> bool {
    let io = &iop.modules.ioman;
    io.valid_fd(fd).is_some_and(|i| {
        let f = io.files[i].as_ref().expect("open");
        !matches!(f.handle, Handle::Guest) && f.mode & bit != 0
    })
}

pub(super) fn io_read(iop: &mut Iop) -> Result<Ret, IopError> {
    let at = Caller::of(iop);
    let (fd, buf, size) = (iop.arg(0) as i32, iop.arg(1), iop.arg(2) as i32);
    let len = size.max(0) as u32;
    match run(iop, &IoReq::Read { fd, len })? {
        Some((n, data)) => {
            write_guest(iop, "read's buffer", buf, &data)?;
            v(n)
        }
        None => {
            let f = file_addr(iop, fd as u32);
            let dev = dev_of(iop, fd as usize);
            call_driver(iop, at, dev, op::READ, &[f, buf, size as u32], Post::Ret)
        }
    }
}

pub(super) fn io_write(iop: &mut Iop) -> Result<Ret, IopError> {
    let at = Caller::of(iop);
    let (fd, buf, size) = (iop.arg(0) as i32, iop.arg(1), iop.arg(2) as i32);
    let data = if native_mode(iop, fd, flags::O_WRONLY) {
        read_guest(iop, "write's buffer", buf, size.max(0) as u32)?
    } else {
        Vec::new()
    };
    match run(iop, &IoReq::Write { fd, data })? {
        Some((n, _)) => v(n),
        None => {
            let f = file_addr(iop, fd as u32);
            let dev = dev_of(iop, fd as usize);
            call_driver(iop, at, dev, op::WRITE, &[f, buf, size as u32], Post::Ret)
        }
    }
}

pub(super) fn io_lseek(iop: &mut Iop) -> Result<Ret, IopError> {
    let at = Caller::of(iop);
    let (fd, offset, whence) = (iop.arg(0) as i32, iop.arg(1) as i32, iop.arg(2));
    match run(iop, &IoReq::Lseek { fd, offset, whence })? {
        Some((n, _)) => v(n),
        None => {
            let f = file_addr(iop, fd as u32);
            let dev = dev_of(iop, fd as usize);
            let args = [f, offset as u32, whence];
            call_driver(iop, at, dev, op::LSEEK, &args, Post::Ret)
        }
    }
}

pub(super) fn io_ioctl(iop: &mut Iop) -> Result<Ret, IopError> {
    let at = Caller::of(iop);
    let (fd, cmd, arg) = (iop.arg(0) as i32, iop.arg(1), iop.arg(2));
    let req = IoReq::Ioctl {
        fd,
        cmd,
        data: Vec::new(),
    };
    match run(iop, &req)? {
        Some((n, _)) => v(n),
        None => {
            let f = file_addr(iop, fd as u32);
            let dev = dev_of(iop, fd as usize);
            call_driver(iop, at, dev, op::IOCTL, &[f, cmd, arg], Post::Ret)
        }
    }
}

/// dread; iomanx's fills an iox_dirent_t and needs a file dopen opened.
pub(super) fn dread_common(iop: &mut Iop, x: bool) -> Result<Ret, IopError> {
    let at = Caller::of(iop);
    let (fd, buf) = (iop.arg(0) as i32, iop.arg(1));
    if x {
        let io = &iop.modules.ioman;
        let dir = io
            .valid_fd(fd)
            .is_some_and(|i| io.files[i].as_ref().expect("open").mode & O_DIROPEN != 0);
        if !dir {
            return v(-errno::EBADF);
        }
    }
    match run(iop, &IoReq::Dread(fd))? {
        Some((r, d)) => {
            if !d.is_empty() {
                if x {
                    check(iop, "dread's iox_dirent_t", buf, 324)?;
                    put_xdirent(iop, buf, &d);
                } else {
                    write_guest(iop, "dread's io_dirent_t", buf, &d)?;
                }
            }
            v(r)
        }
        None => {
            let f = file_addr(iop, fd as u32);
            let dev = dev_of(iop, fd as usize);
            if !x || fsext(iop, dev) {
                return call_driver(iop, at, dev, op::DREAD, &[f, buf], Post::Ret);
            }
            // An ioman-style driver fills an io_dirent_t on iomanx's stack, converted after.
            check(iop, "dread's iox_dirent_t", buf, 324)?;
            let tmp = at.sp.wrapping_sub(304) & !7;
            check(iop, "the stack", tmp, 304)?;
            iop.cpu.gpr[29] = tmp;
            call_driver(iop, at, dev, op::DREAD, &[f, tmp], Post::XDread(tmp, buf))
        }
    }
}

/// The path calls that free their file after the driver.
#[derive(Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(super) enum PathOp {
    Remove,
    Mkdir,
    Rmdir,
    Getstat,
    Chstat,
    Format,
}

pub(super) fn path_common(iop: &mut Iop, which: PathOp, x: bool) -> Result<Ret, IopError> {
    let at = Caller::of(iop);
    let name = iop.arg(0);
    let (a1, a2, a3) = (iop.arg(1), iop.arg(2), iop.arg(3));
    let path = guest_str(iop, "the path", name)?;
    let req = match which {
        PathOp::Remove => IoReq::Remove(path.clone()),
        PathOp::Mkdir => IoReq::Mkdir(path.clone()),
        PathOp::Rmdir => IoReq::Rmdir(path.clone()),
        PathOp::Getstat => IoReq::Getstat(path.clone()),
        PathOp::Chstat => IoReq::Chstat {
            path: path.clone(),
            stat: Vec::new(),
            mask: a2,
        },
        PathOp::Format => IoReq::Format(path.clone()),
    };
    if let Some((r, mut d)) = run(iop, &req)? {
        if which == PathOp::Getstat && r >= 0 && !d.is_empty() {
            if x {
                let m = u32::from_le_bytes([d[0], d[1], d[2], d[3]]);
                d[..4].copy_from_slice(&mode2modex(m).to_le_bytes());
            }
            write_guest(iop, "getstat's stat", a1, &d)?;
        }
        return v(if x { r.min(0) } else { r });
    }
    let (dev, unit, rest, fd) = guest_target(iop, &path)?;
    let ext = fsext(iop, dev);
    let f = take_guest_file(iop, fd, 0, unit, dev);
    let np = name.wrapping_add(rest);
    let post = Post::Free(fd as u32, if x { ZERO } else { 0 });
    let (opi, args, post) = match which {
        PathOp::Remove => (op::REMOVE, vec![f, np], post),
        PathOp::Rmdir => (op::RMDIR, vec![f, np], post),
        PathOp::Mkdir if x => (op::MKDIR, vec![f, np, a1], post),
        PathOp::Mkdir => (op::MKDIR, vec![f, np], post),
        PathOp::Format if x => (op::FORMAT, vec![f, np, a1, a2, a3], post),
        PathOp::Format => (op::FORMAT, vec![f], post),
        PathOp::Getstat if x && !ext => {
            check(iop, "getstat's stat", a1, 40)?;
            (op::GETSTAT, vec![f, np, a1], Post::XStat(fd as u32, a1))
        }
        PathOp::Getstat => (op::GETSTAT, vec![f, np, a1], post),
        PathOp::Chstat if x && !ext => {
            // A copy on iomanx's stack with the mode as ioman-style drivers know it.
            let mut st = read_guest(iop, "chstat's stat", a1, 64)?;
            let m = u32::from_le_bytes([st[0], st[1], st[2], st[3]]);
            st[..4].copy_from_slice(&modex2mode(m).to_le_bytes());
            let tmp = at.sp.wrapping_sub(64) & !7;
            write_guest(iop, "the stack", tmp, &st)?;
            iop.cpu.gpr[29] = tmp;
            (op::CHSTAT, vec![f, np, tmp, a2], post)
        }
        PathOp::Chstat => (op::CHSTAT, vec![f, np, a1, a2], post),
    };
    call_driver(iop, at, dev, opi, &args, post)
}

pub(super) fn add_drv(iop: &mut Iop) -> Result<Ret, IopError> {
    let at = Caller::of(iop);
    let dev = iop.arg(0);
    check(iop, "AddDrv's iop_device_t", dev, 20)?;
    let name = iop.bus.ram_u32(dev + dv::NAME);
    guest_str(iop, "AddDrv's device name", name)?;
    let ops = iop.bus.ram_u32(dev + dv::OPS);
    check(iop, "AddDrv's ops table", ops, 4 * op::NAMES.len() as u32)?;
    if let Some((r, _)) = run(iop, &IoReq::AddDrv(dev))? {
        return v(r);
    }
    if file_table(iop) == 0 {
        iop.log_once(
            "ioman-table",
            "no IOP memory for ioman's file table: AddDrv fails",
        );
        return v(-1);
    }
    let io = &mut iop.modules.ioman;
    let slot = io
        .devices
        .iter()
        .position(Option::is_none)
        .expect("a free slot");
    io.devices[slot] = Some(Device::Guest(dev));
    call_driver(iop, at, dev, op::INIT, &[dev], Post::AddDrv(slot as u32))
}

pub(super) fn del_drv(iop: &mut Iop) -> Result<Ret, IopError> {
    let at = Caller::of(iop);
    let ptr = iop.arg(0);
    let name = guest_str(iop, "DelDrv's name", ptr)?;
    if let Some((r, _)) = run(iop, &IoReq::DelDrv(name.clone()))? {
        return v(r);
    }
    let slot = lookup(iop, &name).expect("the device");
    let Some(Device::Guest(dev)) = iop.modules.ioman.devices[slot] else {
        return Err(native_err("DelDrv: the device changed kind".into()));
    };
    call_driver(iop, at, dev, op::DEINIT, &[dev], Post::DelDrv(slot as u32))
}

pub(super) fn get_dev_type(iop: &mut Iop) -> Result<Ret, IopError> {
    let fd = iop.arg(0) as i32;
    let io = &iop.modules.ioman;
    let Some(i) = io.valid_fd(fd) else {
        return v(-errno::EBADF);
    };
    let f = io.files[i].as_ref().expect("open");
    if matches!(f.handle, Handle::Guest) {
        let dev = dev_of(iop, i);
        return Ok(Ret::V(iop.bus.ram_u32(dev + dv::TYPE)));
    }
    Ok(Ret::V(f.dtype))
}

/// iomanx's extended calls (25..34) on a path (`by_fd`: on an fd): after ioman's checks, a
/// device without IOP_DT_FSEXT (every native one) answers -EUNSUP (48), as iomanX does; rename
/// and symlink (`two`) first need the new name on the same device and unit (-EXDEV, 18). An
/// extended driver's own calls are not made.
pub(super) fn extended(iop: &mut Iop, name: &str, by_fd: bool, two: bool) -> Result<Ret, IopError> {
    const EUNSUP: i32 = 48;
    const EXDEV: i32 = 18;
    let (a0, a1) = (iop.arg(0), iop.arg(1));
    // lseek64 answers 64 bits: v1 is the sign.
    iop.cpu.gpr[3] = u32::MAX;
    let dev = if by_fd {
        let Some(i) = iop.modules.ioman.valid_fd(a0 as i32) else {
            return v(-errno::EBADF);
        };
        is_guest_file(iop, i).then(|| dev_of(iop, i))
    } else {
        let path = guest_str(iop, "the path", a0)?;
        let (slot, unit, _) = match path_dev(iop, &path) {
            Ok(x) => x,
            Err(e) => return v(e),
        };
        if two && a1 != 0 {
            let new = guest_str(iop, "the new name", a1)?;
            let same = |r: Result<(usize, u32, usize), i32>| {
                r.is_ok_and(|(s, u, _)| (s, u) == (slot, unit))
            };
            if new.contains(&b':') && !same(resolve(iop, &new)) {
                return v(-EXDEV);
            }
        }
        match iop.modules.ioman.devices[slot] {
            Some(Device::Guest(d)) => Some(d),
            _ => None,
        }
    };
    match dev {
        Some(d) if fsext(iop, d) => Err(iop.fault(format!(
            "iomanx {name} of an extended driver (device {}:) is not implemented by piney",
            device_name(iop, d)
        ))),
        _ => v(-EUNSUP),
    }
}

/// The unused entries: they return at once, leaving v0 as it was.
pub(super) fn retonly(iop: &mut Iop) -> Result<Ret, IopError> {
    Ok(Ret::V(iop.cpu.gpr[2]))
}

/// ioman.
pub const IOMAN: LibDef = LibDef {
    name: "ioman",
    version: 0x0101,
    funcs: &[
        (4, "open", |iop| open_common(iop, false, false)),
        (5, "close", |iop| close_common(iop, false, false)),
        (6, "read", io_read),
        (7, "write", io_write),
        (8, "lseek", io_lseek),
        (9, "ioctl", io_ioctl),
        (10, "remove", |iop| path_common(iop, PathOp::Remove, false)),
        (11, "mkdir", |iop| path_common(iop, PathOp::Mkdir, false)),
        (12, "rmdir", |iop| path_common(iop, PathOp::Rmdir, false)),
        (13, "dopen", |iop| open_common(iop, false, true)),
        (14, "dclose", |iop| close_common(iop, false, true)),
        (15, "dread", |iop| dread_common(iop, false)),
        (16, "getstat", |iop| {
            path_common(iop, PathOp::Getstat, false)
        }),
        (17, "chstat", |iop| path_common(iop, PathOp::Chstat, false)),
        (18, "format", |iop| path_common(iop, PathOp::Format, false)),
        (19, "_retonly", retonly),
        (20, "AddDrv", add_drv),
        (21, "DelDrv", del_drv),
        (22, "_retonly", retonly),
        (23, "_retonly", retonly),
        (24, "_retonly", retonly),
    ],
};

/// iomanx (see the module documentation for what is left out).
pub const IOMANX: LibDef = LibDef {
    name: "iomanx",
    version: 0x0101,
    funcs: &[
        (1, "_retonly", retonly),
        (4, "open", |iop| open_common(iop, true, false)),
        (5, "close", |iop| close_common(iop, true, false)),
        (6, "read", io_read),
        (7, "write", io_write),
        (8, "lseek", io_lseek),
        (9, "ioctl", io_ioctl),
        (10, "remove", |iop| path_common(iop, PathOp::Remove, true)),
        (11, "mkdir", |iop| path_common(iop, PathOp::Mkdir, true)),
        (12, "rmdir", |iop| path_common(iop, PathOp::Rmdir, true)),
        (13, "dopen", |iop| open_common(iop, true, true)),
        (14, "close", |iop| close_common(iop, true, false)),
        (15, "dread", |iop| dread_common(iop, true)),
        (16, "getstat", |iop| path_common(iop, PathOp::Getstat, true)),
        (17, "chstat", |iop| path_common(iop, PathOp::Chstat, true)),
        (18, "format", |iop| path_common(iop, PathOp::Format, true)),
        (19, "_retonly", retonly),
        (20, "AddDrv", add_drv),
        (21, "DelDrv", del_drv),
        (22, "GetDevType", get_dev_type),
        (23, "StdioInit", stdio_init),
        (24, "_retonly", retonly),
        (25, "rename", |iop| extended(iop, "rename", false, true)),
        (26, "chdir", |iop| extended(iop, "chdir", false, false)),
        (27, "sync", |iop| extended(iop, "sync", false, false)),
        (28, "mount", |iop| extended(iop, "mount", false, false)),
        (29, "umount", |iop| extended(iop, "umount", false, false)),
        (30, "lseek64", |iop| extended(iop, "lseek64", true, false)),
        (31, "devctl", |iop| extended(iop, "devctl", false, false)),
        (32, "symlink", |iop| extended(iop, "symlink", false, true)),
        (33, "readlink", |iop| {
            extended(iop, "readlink", false, false)
        }),
        (34, "ioctl2", |iop| extended(iop, "ioctl2", true, false)),
    ],
};
