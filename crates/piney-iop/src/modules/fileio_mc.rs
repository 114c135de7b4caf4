//! MCMAN's ioman device `mc` (`mc0:/DIR/FILE`, `mc1:...`) as the native ioman
//! ([`crate::kernel::ioman`]) reaches it, for the EE's fio functions and guest modules alike: the
//! native MCSERV's cards ([`McServ`]), through MCMAN's card detection and its 3 descriptors, the
//! ones MCSERV's RPC uses too (an open through either counts against both). A guest MCMAN's own
//! `mc` replaces this one once it has done DelDrv("mc") and AddDrv.
//!
//! Facts (ps2sdk `iop/memorycard/mcman/src/mcdev.c`, `main.c`, `ps2mc_fio.c` and
//! `iop/system/ioman/src/ioman.c`, reconstructions of Sony's modules; the code is our own):
//! - The device exists once MCMAN (or XMCMAN) is loaded (`mcman_initdev` adds it with AddDrv);
//!   before that ioman answers a path on it with -ENODEV.
//! - Unit n is port n & 1, slot (n >> 1) & 3 (`mcman_unit2card`); piney's cards are slot 0.
//! - open, mkdir (McOpen with 0x40), remove and rmdir (both McDelete with flags 0), dopen (McOpen
//!   with 0: a descriptor on the directory), getstat and format first call McDetectCard2 (the
//!   first look at a formatted card says -1, then 0) and go on only when it says at least -1
//!   (format: -2). close, read, write and lseek are McClose, McRead, McWrite and McSeek of the
//!   MCMAN descriptor the file keeps as its private data; ioctl does nothing and answers 0.
//! - Every result goes through `mcman_ioerrcode` ([`ioerrcode`]): a negative r maps by r + 8,
//!   0 -EIO, 1 -EMFILE, 2 -EEXIST, 3 -EACCES, 4 -ENOENT, 5 -ENOSPC, 6 -EFORMAT, anything else
//!   -ENXIO (no card, -11, is -ENXIO; a fourth descriptor, -7, is -EMFILE).
//! - ioman in front of every device: a path function needs a free file of its 32 (-EMFILE, the
//!   caller's check); read needs a file opened for reading, write one opened for writing
//!   (-EBADF); lseek's whence must be 0 to 2 (-EINVAL); close frees the file whatever the device
//!   answers. A descriptor MCMAN let go of (a format, a failed read) stays the file's number, as
//!   on the console: a later call finds it closed, or someone else's.
//! - getstat (`mcman_getstat2`): mode = the entry's R (1), W (2), X (4), copy-protected (8),
//!   PocketStation (0x800) and PS1 (0x1000) bits as the card has them (MCMAN is built for ioman
//!   with SCE_STM_R/W/X = 1/2/4, not ioman's FIO_SO_IROTH = 4 order), with FIO_SO_IFDIR (0x20)
//!   for a directory, else FIO_SO_IFREG (0x10); attr = the entry's attr word; size = its length
//!   (files only); ctime and mtime the card's creation and modification times (JST, as stored);
//!   atime and hisize 0.
//! - dread (`mcman_dread2`): the next entry of the directory the descriptor is open on, as an
//!   `io_dirent_t` (a stat as getstat's, the name, at most 32 bytes); the result is 1, or 0 at
//!   the end; -EACCES for a descriptor that is not open or not a directory's.
//!
//! Where piney differs: its cards ([`piney_memcard::Card`]) list directories only as mcGetDir
//! does, so a dopen takes its directory's listing once (MCMAN reads the slots as dread goes);
//! '.' and '..' are the directory's and its parent's entries (MCMAN reads their own slots: the
//! same mode and creation time, the creation time as modification time); a directory's size in
//! dread is 0 (MCMAN: its slot count); the root's '.' and '..', which mcGetDir leaves out, have
//! the modes MCMAN gives them (0x8427, 0xA426) and zero times. At the end of a directory nothing
//! is sent (the ROM FILEIO sends its buffer's stale 300 bytes). chstat (McSetFileInfo) is not
//! answered: FILEIO says -EIO, as for every device.

use piney_memcard::{DirEntry, Timestamp, mode, res};

use super::fileio::{FIO_SO_IFDIR, FIO_SO_IFREG, IoStat, errno, flags};
use super::mcserv::{Interface, McServ, interface};
use crate::Iop;

/// McOpen's flag for mkdir.
const MKDIR: u32 = 0x40;
/// McDetectCard2 without a card (what an MCMAN with no card server behind it finds).
const NO_CARD: i32 = -11;

/// `mcman_ioerrcode`: an MCMAN result as ioman's errno (results >= 0 pass).
pub fn ioerrcode(r: i32) -> i32 {
    -match r {
        0.. => return r,
        -8 => errno::EIO,
        -7 => errno::EMFILE,
        -6 => errno::EEXIST,
        -5 => errno::EACCES,
        -4 => errno::ENOENT,
        -3 => errno::ENOSPC,
        -2 => errno::EFORMAT,
        _ => errno::ENXIO,
    }
}

/// The unit and the path after the colon, when `path` names the `mc` device ("mc0:/DIR", "mc:x";
/// leading blanks skipped, the unit's digits read as strtol reads them).
pub fn mc_path(path: &[u8]) -> Option<(u32, &[u8])> {
    let start = path.iter().position(|&c| c != b' ' && c != b'\t')?;
    let p = &path[start..];
    let colon = p.iter().position(|&c| c == b':')?;
    let dev = &p[..colon];
    let digits = dev.iter().rev().take_while(|c| c.is_ascii_digit()).count();
    let (name, num) = dev.split_at(dev.len() - digits);
    if name != b"mc" {
        return None;
    }
    let unit = num
        .iter()
        .fold(0u32, |v, d| {
            v.saturating_mul(10).saturating_add(u32::from(d - b'0'))
        })
        .min(i32::MAX as u32);
    Some((unit, &p[colon + 1..]))
}

/// Whether the `mc` device is there: a native MCMAN or XMCMAN is loaded.
pub fn present(iop: &Iop) -> bool {
    iop.kernel.loadcore.modules.iter().any(|m| {
        m.text == 0
            && (m.name.eq_ignore_ascii_case("MCMAN") || m.name.eq_ignore_ascii_case("XMCMAN"))
    })
}

/// An ioman file open on the `mc` device.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct McFile {
    /// MCMAN's descriptor (the file's private data).
    fd: i32,
    /// ioman's open mode (0 for dopen).
    mode: u32,
    /// After dopen on a directory: its entries and how many dread gave.
    dir: Option<(Vec<DirEntry>, usize)>,
}

/// MCMAN's state for one call.
struct Dev<'a> {
    mc: &'a mut McServ,
    iface: Interface,
    now: Timestamp,
}

/// The device, or ioman's error when it is not there.
fn dev(iop: &mut Iop) -> Result<Result<Dev<'_>, i32>, String> {
    if !present(iop) {
        return Ok(Err(-errno::ENODEV));
    }
    let iface = interface(iop);
    let cycles = iop.cycles();
    let Some(mc) = iop.modules.server_mut::<McServ>() else {
        return Ok(Err(ioerrcode(NO_CARD)));
    };
    let now = mc.begin(cycles)?;
    Ok(Ok(Dev { mc, iface, now }))
}

fn card_of(unit: u32) -> (i32, i32) {
    ((unit & 1) as i32, ((unit >> 1) & 3) as i32)
}

/// A path function: McDetectCard2, then `op` when it said at least `least`; the result mapped.
fn on_card(
    iop: &mut Iop,
    unit: u32,
    least: i32,
    op: impl FnOnce(&mut Dev<'_>, i32, i32) -> Result<i32, String>,
) -> Result<i32, String> {
    let mut d = match dev(iop)? {
        Ok(d) => d,
        Err(e) => return Ok(e),
    };
    let (port, slot) = card_of(unit);
    let mut r = d.mc.detect_card2(port, slot)?;
    if r >= least {
        r = op(&mut d, port, slot)?;
    }
    Ok(ioerrcode(r))
}

/// open: the file, or the error.
pub fn open(
    iop: &mut Iop,
    unit: u32,
    path: &[u8],
    mode: u32,
) -> Result<Result<McFile, i32>, String> {
    let fd = on_card(iop, unit, -1, |d, p, s| {
        d.mc.mc_open(p, s, path, mode, d.iface, d.now)
    })?;
    if fd < 0 {
        return Ok(Err(fd));
    }
    Ok(Ok(McFile {
        fd,
        mode,
        dir: None,
    }))
}

/// dopen: a descriptor on the directory, with its listing (none when the path is a file's:
/// McOpen opens it all the same, and dread then refuses it).
pub fn dopen(iop: &mut Iop, unit: u32, path: &[u8]) -> Result<Result<McFile, i32>, String> {
    let fd = on_card(iop, unit, -1, |d, p, s| {
        d.mc.mc_open(p, s, path, 0, d.iface, d.now)
    })?;
    if fd < 0 {
        return Ok(Err(fd));
    }
    let dir = match dev(iop)? {
        Ok(mut d) => {
            let (p, s) = card_of(unit);
            listing(&mut d, p, s, path)?.map(|l| (l, 0))
        }
        Err(_) => None,
    };
    Ok(Ok(McFile { fd, mode: 0, dir }))
}

/// The entries of directory `path` in dread's order ('.' and '..' first), or `None` when it is
/// no directory.
fn listing(
    d: &mut Dev<'_>,
    port: i32,
    slot: i32,
    path: &[u8],
) -> Result<Option<Vec<DirEntry>>, String> {
    let t = path.strip_suffix(b"/").unwrap_or(path);
    let mut arg = t.to_vec();
    if !t.is_empty() || path.starts_with(b"/") {
        arg.push(b'/');
    }
    arg.push(b'*');
    let Ok(mut list) = d.mc.mc_list(port, slot, &arg, d.iface)? else {
        return Ok(None);
    };
    if list.first().is_none_or(|e| e.name != b".") {
        // The root: its '.' and '..' as McCreateDirentry writes them at format.
        let dot = |name: &[u8], mode| DirEntry {
            name: name.to_vec(),
            mode,
            ..DirEntry::default()
        };
        list.splice(
            0..0,
            [dot(b".", mode::NEW_DIR), dot(b"..", mode::ROOT_DOTDOT)],
        );
    }
    Ok(Some(list))
}

/// The entry `path` names, from its directory's listing (exactly by name: a name holding '*'
/// or '?' is no pattern here); '.', '..' and a path ending in '/' name a directory itself.
fn entry(
    d: &mut Dev<'_>,
    port: i32,
    slot: i32,
    path: &[u8],
) -> Result<Result<DirEntry, i32>, String> {
    let t = if path.len() > 1 {
        path.strip_suffix(b"/").unwrap_or(path)
    } else {
        path
    };
    let (dirpart, name) = match t.iter().rposition(|&c| c == b'/') {
        None => (&t[..0], t),
        Some(0) => (&t[..1], &t[1..]),
        Some(i) => (&t[..i], &t[i + 1..]),
    };
    if matches!(name, b"" | b"." | b"..") {
        return Ok(listing(d, port, slot, t)?
            .and_then(|l| l.into_iter().next())
            .ok_or(res::NO_ENTRY));
    }
    let mut arg = dirpart.to_vec();
    if !arg.is_empty() && !arg.ends_with(b"/") {
        arg.push(b'/');
    }
    arg.push(b'*');
    Ok(d.mc
        .mc_list(port, slot, &arg, d.iface)?
        .and_then(|l| l.into_iter().find(|e| e.name == name).ok_or(res::NO_ENTRY)))
}

/// An entry as `io_stat_t` (see the module documentation).
fn stat_of(e: &DirEntry) -> IoStat {
    let kept = mode::READ
        | mode::WRITE
        | mode::EXECUTE
        | mode::PROTECTED
        | mode::POCKETSTATION
        | mode::PS1;
    let dir = e.is_dir();
    IoStat {
        mode: u32::from(e.mode & kept) | if dir { FIO_SO_IFDIR } else { FIO_SO_IFREG },
        attr: e.attr,
        size: if dir { 0 } else { e.length },
        ctime: e.created.to_bytes(),
        atime: [0; 8],
        mtime: e.modified.to_bytes(),
        hisize: 0,
    }
}

/// getstat: the result, and the `io_stat_t` when it is 0.
pub fn getstat(iop: &mut Iop, unit: u32, path: &[u8]) -> Result<(i32, Option<IoStat>), String> {
    let mut st = None;
    let r = on_card(iop, unit, -1, |d, p, s| {
        Ok(match entry(d, p, s, path)? {
            Ok(e) => {
                st = Some(stat_of(&e));
                res::SUCCEED
            }
            Err(r) => r,
        })
    })?;
    Ok((r, st))
}

/// mkdir.
pub fn mkdir(iop: &mut Iop, unit: u32, path: &[u8]) -> Result<i32, String> {
    on_card(iop, unit, -1, |d, p, s| {
        d.mc.mc_open(p, s, path, MKDIR, d.iface, d.now)
    })
}

/// remove and rmdir (the same McDelete).
pub fn remove(iop: &mut Iop, unit: u32, path: &[u8]) -> Result<i32, String> {
    on_card(iop, unit, -1, |d, p, s| {
        d.mc.mc_delete(p, s, path, 0, d.iface)
    })
}

/// format.
pub fn format(iop: &mut Iop, unit: u32) -> Result<i32, String> {
    on_card(iop, unit, -2, |d, p, s| {
        d.mc.mc_format(p, s, d.iface, d.now, false)
    })
}

/// close and dclose (the same McClose).
pub fn close(iop: &mut Iop, f: McFile) -> Result<i32, String> {
    Ok(match dev(iop)? {
        Ok(d) => ioerrcode(d.mc.mc_close(f.fd, d.iface, d.now)?),
        Err(e) => e,
    })
}

/// read into `buf`: the count, or the error.
pub fn read(iop: &mut Iop, f: &McFile, buf: &mut [u8]) -> Result<i32, String> {
    if f.mode & flags::O_RDONLY == 0 {
        return Ok(-errno::EBADF);
    }
    let d = match dev(iop)? {
        Ok(d) => d,
        Err(e) => return Ok(e),
    };
    Ok(match d.mc.mc_read(f.fd, buf.len(), d.iface)? {
        Ok(b) => {
            buf[..b.len()].copy_from_slice(&b);
            b.len() as i32
        }
        Err(r) => ioerrcode(r),
    })
}

/// write `data`: the count, or the error.
pub fn write(iop: &mut Iop, f: &McFile, data: &[u8]) -> Result<i32, String> {
    if f.mode & flags::O_WRONLY == 0 {
        return Ok(-errno::EBADF);
    }
    Ok(match dev(iop)? {
        Ok(d) => ioerrcode(d.mc.mc_write(f.fd, data, d.iface, d.now)?),
        Err(e) => e,
    })
}

/// lseek: the new position, or the error.
pub fn lseek(iop: &mut Iop, f: &McFile, offset: i32, whence: u32) -> Result<i32, String> {
    if whence > 2 {
        return Ok(-errno::EINVAL);
    }
    Ok(match dev(iop)? {
        Ok(d) => ioerrcode(d.mc.mc_seek(f.fd, offset, whence as i32, d.iface)?),
        Err(e) => e,
    })
}

/// dread: the result and the next entry's 300-byte `io_dirent_t` (stat, `name[256]`, a word;
/// none at the end or on an error).
pub fn dread(iop: &mut Iop, f: &mut McFile) -> Result<(i32, Vec<u8>), String> {
    let Some((list, pos)) = &mut f.dir else {
        return Ok((ioerrcode(res::DENIED_PERMIT), Vec::new()));
    };
    let d = match dev(iop)? {
        Ok(d) => d,
        Err(e) => return Ok((e, Vec::new())),
    };
    let r = d.mc.mc_check(f.fd, d.iface)?;
    if r != res::SUCCEED {
        return Ok((ioerrcode(r), Vec::new()));
    }
    let Some(e) = list.get(*pos) else {
        return Ok((0, Vec::new()));
    };
    *pos += 1;
    let mut b = stat_of(e).to_bytes();
    let mut name = e.name.clone();
    name.truncate(32);
    name.resize(256, 0);
    b.extend_from_slice(&name);
    b.resize(300, 0);
    Ok((1, b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_map_as_mcman_ioerrcode() {
        assert_eq!(ioerrcode(2), 2);
        assert_eq!(ioerrcode(0), 0);
        assert_eq!(ioerrcode(-1), -errno::ENXIO);
        assert_eq!(ioerrcode(-2), -47);
        assert_eq!(ioerrcode(-3), -28);
        assert_eq!(ioerrcode(-4), -2);
        assert_eq!(ioerrcode(-5), -13);
        assert_eq!(ioerrcode(-6), -17);
        assert_eq!(ioerrcode(-7), -24);
        assert_eq!(ioerrcode(-8), -5);
        assert_eq!(ioerrcode(-11), -6);
        assert_eq!(ioerrcode(i32::MIN), -6);
    }

    #[test]
    fn mc_paths_name_unit_and_rest() {
        assert_eq!(mc_path(b"mc0:/DIR/F"), Some((0, &b"/DIR/F"[..])));
        assert_eq!(mc_path(b"  mc1:x"), Some((1, &b"x"[..])));
        assert_eq!(mc_path(b"mc:"), Some((0, &b""[..])));
        assert_eq!(mc_path(b"mc99999999999:a").map(|p| p.0), Some(0x7fff_ffff));
        assert_eq!(mc_path(b"host0:mc0:"), None);
        assert_eq!(mc_path(b"MC0:/x"), None);
        assert_eq!(mc_path(b"mcx0:/x"), None);
        assert_eq!(card_of(2), (0, 1));
        assert_eq!(card_of(3), (1, 1));
    }
}
