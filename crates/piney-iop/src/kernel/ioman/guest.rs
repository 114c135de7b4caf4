//! ioman's guest drivers: a guest device's calls run as its own code. Its file's iop_file_t
//! is kept in ioman's table in IOP RAM, the driver's function is called from its ops table
//! with $ra at the kernel's continue point, and the call finishes when it returns
//! ([`op_continue`]); the checks on the guest memory those calls name.

use super::*;

pub(super) fn in_ram(addr: u32, len: u32) -> bool {
    u64::from(physical(addr)) + u64::from(len) <= RAM_SIZE as u64
}

pub(super) fn check(iop: &Iop, what: &str, addr: u32, len: u32) -> Result<(), IopError> {
    if in_ram(addr, len) {
        Ok(())
    } else {
        Err(iop.fault(format!(
            "ioman: {what} at {addr:#010x} (+{len:#x}) is not in IOP RAM"
        )))
    }
}

/// A NUL-terminated string of the guest's (at most [`PATH_LIMIT`] bytes).
pub(super) fn guest_str(iop: &Iop, what: &str, addr: u32) -> Result<Vec<u8>, IopError> {
    check(iop, what, addr, 1)?;
    let max = (RAM_SIZE - physical(addr) as usize).min(PATH_LIMIT);
    Ok(iop.bus.ram_cbytes(addr, max))
}

pub(super) fn read_guest(iop: &Iop, what: &str, addr: u32, len: u32) -> Result<Vec<u8>, IopError> {
    if len == 0 {
        return Ok(Vec::new());
    }
    check(iop, what, addr, len)?;
    let mut b = vec![0; len as usize];
    iop.bus.read_ram(addr, &mut b);
    Ok(b)
}

pub(super) fn write_guest(
    iop: &mut Iop,
    what: &str,
    addr: u32,
    data: &[u8],
) -> Result<(), IopError> {
    if data.is_empty() {
        return Ok(());
    }
    check(iop, what, addr, data.len() as u32)?;
    iop.bus.write_ram(addr, data);
    Ok(())
}

pub(super) fn native_err(what: String) -> IopError {
    IopError::Native {
        module: "ioman".into(),
        what,
    }
}

pub(super) fn run(iop: &mut Iop, req: &IoReq) -> Result<Exec, IopError> {
    exec(iop, req).map_err(native_err)
}

// ---- guest drivers ----

/// Continuation tag: a driver function returned (data: post, a, ra, sp, b, 0).
pub const CONT_IOMAN: u32 = 0x696f_0001;

/// What ioman does when a driver function returns.
#[derive(Clone, Copy, serde::Serialize, serde::Deserialize)]
pub(super) enum Post {
    /// Its result passes.
    Ret,
    /// open/dopen on fd `0`: kept (the fd) or freed.
    Open(u32),
    /// Free fd `0`; `1`: [`ZERO`] and/or [`FD`].
    Free(u32, u32),
    /// AddDrv of slot `0`.
    AddDrv(u32),
    /// DelDrv of slot `0`.
    DelDrv(u32),
    /// iomanx getstat on an ioman-style device: free fd `0`, convert the mode at `1`.
    XStat(u32, u32),
    /// iomanx dread on an ioman-style device: the io_dirent_t at `0` into the iox_dirent_t
    /// at `1`.
    XDread(u32, u32),
}

/// [`Post::Free`]: answer 0 on success.
pub(super) const ZERO: u32 = 1;
/// [`Post::Free`]: answer the fd on success.
pub(super) const FD: u32 = 2;

impl Post {
    fn encode(self, ra: u32, sp: u32) -> [u32; 6] {
        let (c, a, b) = match self {
            Post::Ret => (0, 0, 0),
            Post::Open(fd) => (1, fd, 0),
            Post::Free(fd, f) => (2, fd, f),
            Post::AddDrv(s) => (3, s, 0),
            Post::DelDrv(s) => (4, s, 0),
            Post::XStat(fd, buf) => (5, fd, buf),
            Post::XDread(tmp, buf) => (6, tmp, buf),
        };
        [c, a, ra, sp, b, 0]
    }
}

/// Where the native call came from: its return address and stack pointer.
#[derive(Clone, Copy, serde::Serialize, serde::Deserialize)]
pub(super) struct Caller {
    pub(super) ra: u32,
    pub(super) sp: u32,
}

impl Caller {
    pub(super) fn of(iop: &Iop) -> Self {
        Self {
            ra: iop.native_ret,
            sp: iop.cpu.gpr[29],
        }
    }
}

pub(super) fn device_name(iop: &Iop, dev: u32) -> String {
    String::from_utf8_lossy(&slot_name(iop, &Device::Guest(dev))).into_owned()
}

/// Call function `opi` of guest device `dev` with `args` (the fifth and later on the stack),
/// finishing with `post`.
pub(super) fn call_driver(
    iop: &mut Iop,
    at: Caller,
    dev: u32,
    opi: u32,
    args: &[u32],
    post: Post,
) -> Result<Ret, IopError> {
    let name = device_name(iop, dev);
    let opname = op::NAMES.get(opi as usize).copied().unwrap_or("extended");
    check(iop, &format!("device {name}:'s iop_device_t"), dev, 20)?;
    let ops = iop.bus.ram_u32(dev + dv::OPS);
    check(
        iop,
        &format!("device {name}:'s ops table"),
        ops,
        4 * (opi + 1),
    )?;
    let func = iop.bus.ram_u32(ops + 4 * opi);
    if func == 0 || func & 3 != 0 || !in_ram(func, 4) {
        return Err(iop.fault(format!(
            "ioman: device {name}:'s {opname} function is {func:#010x}, which is no code in IOP RAM"
        )));
    }
    if args.len() > 4 {
        let extra = (args.len() - 4) as u32;
        let base = iop.cpu.gpr[29].wrapping_sub(4 * extra) & !7;
        check(iop, "the stack", base.wrapping_sub(16), 16 + 4 * extra)?;
        for (i, a) in args[4..].iter().enumerate() {
            iop.bus.set_ram_u32(base.wrapping_add(4 * i as u32), *a);
        }
        iop.cpu.gpr[29] = base;
    }
    let cont = match post {
        Post::Ret => Cont::ReturnTo {
            ra: at.ra,
            sp: at.sp,
        },
        p => Cont::Module {
            tag: CONT_IOMAN,
            data: p.encode(at.ra, at.sp),
        },
    };
    iop.call_guest_then(func, &args[..args.len().min(4)], cont);
    Ok(Ret::Done)
}

/// A driver function returned: finish the call and return to its caller.
pub fn op_continue(iop: &mut Iop, data: [u32; 6]) -> Result<(), IopError> {
    let [c, a, ra, sp, b, _] = data;
    let r = iop.cpu.gpr[2] as i32;
    let v = match c {
        1 if r < 0 => {
            free_file(iop, a);
            r
        }
        1 => a as i32,
        2 => {
            free_file(iop, a);
            match r {
                0.. if b & ZERO != 0 => 0,
                0.. if b & FD != 0 => a as i32,
                _ => r,
            }
        }
        3 if r < 0 => {
            iop.modules.ioman.devices[a as usize] = None;
            -1
        }
        3 => 0,
        4 => {
            iop.modules.ioman.devices[a as usize] = None;
            0
        }
        5 => {
            free_file(iop, a);
            if r == 0 {
                let m = iop.bus.ram_u32(b);
                iop.bus.set_ram_u32(b, mode2modex(m));
            }
            r.min(0)
        }
        6 => {
            let mut d = vec![0; 300];
            iop.bus.read_ram(a, &mut d);
            put_xdirent(iop, b, &d);
            r
        }
        _ => r,
    };
    iop.cpu.gpr[29] = sp;
    iop.cpu.gpr[2] = v as u32;
    iop.cpu.set_pc(ra);
    Ok(())
}

/// The iop_file_t table in IOP RAM, made at the first AddDrv (0 when memory is short).
pub(super) fn file_table(iop: &mut Iop) -> u32 {
    if iop.modules.ioman.table == 0 {
        let size = FILE_T_SIZE * MAX_FILES as u32;
        if let Some(t) = iop.sysmem_alloc(crate::kernel::sysmem::Mode::Last, size, 0) {
            iop.bus.write_ram(t, &vec![0; size as usize]);
            iop.modules.ioman.table = t;
        }
    }
    iop.modules.ioman.table
}

pub(super) fn file_addr(iop: &Iop, fd: u32) -> u32 {
    iop.modules.ioman.table + FILE_T_SIZE * fd
}

/// Take fd `fd` for a guest device's call: its iop_file_t gets `mode`, `unit` and `dev`.
pub(super) fn take_guest_file(iop: &mut Iop, fd: usize, mode: u32, unit: u32, dev: u32) -> u32 {
    iop.modules.ioman.files[fd] = Some(File {
        mode,
        dtype: 0,
        handle: Handle::Guest,
    });
    let f = file_addr(iop, fd as u32);
    iop.bus.set_ram_u32(f + ft::MODE, mode);
    iop.bus.set_ram_u32(f + ft::UNIT, unit);
    iop.bus.set_ram_u32(f + ft::DEVICE, dev);
    f
}

pub(super) fn free_file(iop: &mut Iop, fd: u32) {
    if let Some(f) = iop.modules.ioman.files.get_mut(fd as usize) {
        *f = None;
        let a = file_addr(iop, fd);
        iop.bus.set_ram_u32(a + ft::MODE, 0);
        iop.bus.set_ram_u32(a + ft::DEVICE, 0);
    }
}

/// The guest device of fd `fd` (a guest file's).
pub(super) fn dev_of(iop: &Iop, fd: usize) -> u32 {
    iop.bus.ram_u32(file_addr(iop, fd as u32) + ft::DEVICE)
}

/// The guest device a path names, with the unit, the rest's offset and a free fd (after
/// [`exec`] said the call is a guest's).
pub(super) fn guest_target(iop: &mut Iop, path: &[u8]) -> Result<(u32, u32, u32, usize), IopError> {
    let fd = iop.modules.ioman.free_fd();
    match (resolve(iop, path), fd) {
        (Ok((slot, unit, rest)), Some(fd)) => match iop.modules.ioman.devices[slot] {
            Some(Device::Guest(dev)) => Ok((dev, unit, rest as u32, fd)),
            _ => Err(native_err(
                "a guest device went away in the middle of a call".into(),
            )),
        },
        _ => Err(native_err(
            "a guest device went away in the middle of a call".into(),
        )),
    }
}

pub(super) fn fsext(iop: &Iop, dev: u32) -> bool {
    iop.bus.ram_u32(dev + dv::TYPE) & 0xf000_0000 == IOP_DT_FSEXT
}

/// mode2modex: an io_stat_t mode as iox_stat_t's.
pub fn mode2modex(mode: u32) -> u32 {
    let mut x = 0;
    for (from, to) in [(0x08, 0x4000), (0x10, 0x2000), (0x20, 0x1000)] {
        if mode & from != 0 {
            x |= to;
        }
    }
    for (from, to) in [(4, 0o444), (2, 0o222), (1, 0o111)] {
        if mode & from != 0 {
            x |= to;
        }
    }
    x
}

/// modex2mode: an iox_stat_t mode as io_stat_t's.
pub fn modex2mode(x: u32) -> u32 {
    let mut mode = 0;
    for (from, to) in [(0x4000, 0x08), (0x2000, 0x10), (0x1000, 0x20)] {
        if x & from != 0 {
            mode |= to;
        }
    }
    for (from, to) in [(0o444, 4), (0o222, 2), (0o111, 1)] {
        if x & from != 0 {
            mode |= to;
        }
    }
    mode
}

/// An io_dirent_t (300 bytes) into the iox_dirent_t at `buf`: the stat's fields with the mode
/// converted, then the name (strncpy of 256); the private words stay.
pub(super) fn put_xdirent(iop: &mut Iop, buf: u32, d: &[u8]) {
    let mut st = d[..40].to_vec();
    let m = u32::from_le_bytes([st[0], st[1], st[2], st[3]]);
    st[..4].copy_from_slice(&mode2modex(m).to_le_bytes());
    iop.bus.write_ram(buf, &st);
    let name = &d[40..296];
    let n = name.iter().position(|&c| c == 0).unwrap_or(256);
    let mut out = name[..n].to_vec();
    out.resize(256, 0);
    iop.bus.write_ram(buf.wrapping_add(64), &out);
}

pub(super) fn v(x: i32) -> Result<Ret, IopError> {
    Ok(Ret::V(x as u32))
}
