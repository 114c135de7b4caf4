//! cdvdman's ioman device `cdrom` (`cdrom0:\DATA\FILE.BIN;1`, `cdrom:...`; unit 1 is a DVD's
//! second layer), as the native ioman ([`crate::kernel::ioman`]) reaches it, for the EE's fio
//! functions (FILEIO) and guest modules alike. CDVDMAN adds it at boot, so it is always there.
//!
//! Facts (ps2sdk `iop/cdvd/cdvdman/src/cdvdman.c`: `cdrom_open`, `cdvdman_cdfname`,
//! `cdrom_read`, `cdrom_lseek`, `cdrom_close`, `cdrom_getstat`, `cdrom_dopen`, `cdrom_dread`,
//! `cdvdman_fillstat`, `cdvdman_devready`):
//! - 16 files at most (-EMFILE); a unit other than 0 and 1 is -ENOENT; the tray open is -EIO.
//! - open: the name as given, with `;1` put after it unless its second-last character is `;` or
//!   its last is `1` (so `\README.TXT` finds `README.TXT;1`, and `\FILE1` stays as it is), then
//!   sceCdLayerSearchFile on the unit's layer ([`super::iso`]: names are case-sensitive, the disc's
//!   are upper case); not found (no disc too) is -ENOENT. `sce_cdvd_lsn<lsn>_size<size>` opens
//!   those sectors without a search. The file is opened for reading whatever the flags say.
//! - read: at most what is left of the file; the bytes read.
//! - lseek: whence 0 sets, 1 adds to the position, 2 is the size *minus* the offset (as cdvdman
//!   computes it); the result is capped at the size.
//! - getstat: `.`, `\` and the empty name are the root (`\.`); the name as given, else with `;1`
//!   added; mode FIO_SO_IFREG | r, or FIO_SO_IFDIR | r | x for a directory (iomanx shows them as
//!   FIO_S_IFREG 0x2000 | 0444 and FIO_S_IFDIR 0x1000 | 0555); size the entry's; the three
//!   times the entry's date (the layouts are the same: -, second, minute, hour, day, month,
//!   year).
//! - dopen: the name with `\.` added (`.` is the root) is searched, which caches the directory;
//!   dread gives its entries in the disc's order (`.` and `..` first, then the names with their
//!   `;1`), each with getstat's stat; the result is the name's length, 0 at the end.
//!
//! Where piney differs: the device's calls take no drive time (cdvdman's go through the drive:
//! a search and sector reads) and do not wait for a command in flight; a directory listing is
//! taken whole at dopen (cdvdman reads the cached directory as dread goes).

use super::iso;
use crate::Iop;
use crate::modules::fileio::{FIO_SO_IFDIR, FIO_SO_IFREG, IoStat, errno};

/// The most files cdvdman keeps open.
pub const MAX_FILES: usize = 16;

/// An open file of `cdrom`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CdFile {
    /// Its first sector.
    pub lsn: u32,
    /// Its size.
    pub size: u32,
    /// The read position.
    pub pos: i32,
}

/// `cdvdman_cdfname`: the name with `;1` put after it, unless it looks versioned already.
fn cdfname(name: &[u8]) -> Vec<u8> {
    let n = name.len();
    let mut v = name.to_vec();
    if !(n >= 3 && (name[n - 2] == b';' || name[n - 1] == b'1')) {
        v.extend_from_slice(b";1");
    }
    v
}

/// `strtol(s, 0, 10)` of the digits at the start of `s` (after spaces and a sign).
fn strtol(s: &[u8]) -> i64 {
    let s = s.trim_ascii_start();
    let (neg, s) = match s.first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let v = s
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .fold(0i64, |v, d| {
            v.saturating_mul(10).saturating_add(i64::from(d - b'0'))
        });
    if neg { -v } else { v }
}

/// A search through cdvdman's cache, without the drive's time: the entry and its absolute lsn.
fn search(iop: &mut Iop, path: &[u8], layer: u32) -> Option<(iso::Entry, u32)> {
    let fig = iop.cd_figures()?;
    let changed = iop.cdvd.media_changed(0);
    let disc = iop.disc.as_deref_mut()?;
    let mut r = iso::Reader::new(disc);
    let (e, base) = iso::search(&mut r, &mut iop.cdvd.fs, fig.layer1, path, layer, changed)?;
    let lsn = e.lsn.wrapping_add(base as u32);
    Some((e, lsn))
}

/// The tray's and the unit's checks.
fn ready(iop: &Iop, unit: u32) -> Result<(), i32> {
    if iop.cdvd.tray_open {
        return Err(-errno::EIO);
    }
    if unit >= 2 {
        return Err(-errno::ENOENT);
    }
    Ok(())
}

fn open_count(iop: &Iop) -> usize {
    iop.modules.ioman.cd_files()
}

/// open(unit, name).
pub fn open(iop: &mut Iop, unit: u32, name: &[u8]) -> Result<CdFile, i32> {
    if open_count(iop) >= MAX_FILES {
        return Err(-errno::EMFILE);
    }
    if unit >= 2 {
        return Err(-errno::ENOENT);
    }
    if let Some(rest) = name.strip_prefix(b"sce_cdvd_lsn") {
        let us = rest.iter().position(|&c| c == b'_').ok_or(-errno::ENOENT)?;
        let size_at = us + 5;
        if size_at > rest.len() {
            return Err(-errno::ENOENT);
        }
        let mut lsn = strtol(&rest[..us]) as u32;
        let size = strtol(&rest[size_at..]) as u32;
        if unit == 1 {
            let l1 = iop
                .cd_figures()
                .and_then(|f| f.layer1)
                .ok_or(-errno::ENOENT)?;
            lsn = lsn.wrapping_add(l1 as u32);
        }
        return Ok(CdFile { lsn, size, pos: 0 });
    }
    ready(iop, unit)?;
    let (e, lsn) = search(iop, &cdfname(name), unit).ok_or(-errno::ENOENT)?;
    Ok(CdFile {
        lsn,
        size: e.size,
        pos: 0,
    })
}

/// read(file, buf): the bytes read.
pub fn read(iop: &mut Iop, f: &mut CdFile, buf: &mut [u8]) -> i32 {
    if let Err(e) = ready(iop, 0) {
        return e;
    }
    let left = i64::from(f.size) - i64::from(f.pos);
    let n = (buf.len() as i64).min(left.max(0)) as usize;
    if n == 0 {
        return 0;
    }
    let start = u64::from(f.pos as u32);
    let first = u64::from(f.lsn) + start / 2048;
    let last = u64::from(f.lsn) + (start + n as u64).div_ceil(2048);
    let Some(disc) = iop.disc.as_mut() else {
        return -errno::EIO;
    };
    let mut data = vec![0u8; ((last - first) * 2048) as usize];
    if last > disc.sectors() || disc.read(first, &mut data).is_err() {
        return -errno::EIO;
    }
    let off = (start % 2048) as usize;
    buf[..n].copy_from_slice(&data[off..off + n]);
    f.pos = f.pos.wrapping_add(n as i32);
    n as i32
}

/// lseek(file, offset, whence).
pub fn lseek(f: &mut CdFile, offset: i32, whence: u32) -> i32 {
    let size = f.size as i32;
    let r = match whence {
        0 => offset,
        1 => f.pos.wrapping_add(offset),
        _ => size.wrapping_sub(offset),
    };
    let r = if r > size { size } else { r };
    f.pos = r;
    r
}

fn stat_of(e: &iso::Entry) -> IoStat {
    let mode = if e.flags & 2 != 0 {
        FIO_SO_IFDIR | 4 | 1
    } else {
        FIO_SO_IFREG | 4
    };
    IoStat {
        mode,
        attr: 0,
        size: e.size,
        ctime: e.date,
        atime: e.date,
        mtime: e.date,
        hisize: 0,
    }
}

/// getstat(unit, name).
pub fn getstat(iop: &mut Iop, unit: u32, name: &[u8]) -> Result<IoStat, i32> {
    ready(iop, unit)?;
    let name: &[u8] = match name {
        b"." | b"\\" | b"" => b"\\.",
        n => n,
    };
    let found = search(iop, name, unit).or_else(|| search(iop, &cdfname(name), unit));
    let (e, _) = found.ok_or(-errno::ENOENT)?;
    Ok(stat_of(&e))
}

/// dopen(unit, name): the directory's entries.
pub fn dopen(iop: &mut Iop, unit: u32, name: &[u8]) -> Result<Vec<(String, IoStat)>, i32> {
    if open_count(iop) >= MAX_FILES {
        return Err(-errno::EMFILE);
    }
    ready(iop, unit)?;
    let mut path = if name == b"." {
        b"\\.".to_vec()
    } else {
        name.to_vec()
    };
    if !path.ends_with(b"\\.") {
        path.extend_from_slice(b"\\.");
    }
    search(iop, &path, unit).ok_or(-errno::ENOENT)?;
    let entries = iop
        .cdvd
        .fs
        .cur
        .as_ref()
        .map(|(_, e)| e.clone())
        .unwrap_or_default();
    Ok(entries
        .iter()
        .map(|e| {
            let n = &e.name[..e.name.len().min(15)];
            (String::from_utf8_lossy(n).into_owned(), stat_of(e))
        })
        .collect())
}
