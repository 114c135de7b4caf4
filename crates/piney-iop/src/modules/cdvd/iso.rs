//! sceCdSearchFile's walk of the ISO 9660 file system, as cdvdman does it (ps2sdk
//! `iop/cdvd/cdvdman/src/cdvdman.c`: `CdSearchFileInner`, `CD_newmedia`, `cdvdman_finddir`,
//! `CD_cachefile`, `cdvdman_cmpname`; a reconstruction of Sony's module, the code is our own):
//!
//! - **The volume** (`CD_newmedia`, done when nothing is cached, after a disc change, or for the
//!   other layer): the primary volume descriptor at the layer's base + 16 must say `CD001` at
//!   byte 1; then one sector of the type-L path table, whose records `{ name length, extended
//!   length, extent (u32), parent (u16), name, a pad byte after an odd name }` make the
//!   directory table (at most 128 directories, only what that one sector holds; numbered from 1
//!   in order, the root first, named by their bytes, the root's name being one NUL).
//!   cdvdman reads a CD's path table where the PVD's type-L pointer (byte 140) says and a DVD's
//!   at sector 257 without looking, where Sony's mastering tools put it; piney follows the
//!   pointer for both (the same sector on a pressed DVD), so that images made by other tools
//!   (genisoimage, xorriso) work as they do on emulators.
//! - **The path** must start with `\`; each `\`-separated name before the last is a directory,
//!   found among the directories whose parent is the current one by an exact, case-sensitive
//!   comparison (`strcmp`), from the root (number 1); at most 8 levels. The last name is the
//!   file.
//! - **The directory** (`CD_cachefile`): one sector at its extent (the layer's base added on
//!   layer 1), its records up to the first of length 0 or the sector's end, at most 64: the
//!   first is named `.`, the second `..`, the others by their identifier bytes (a file's with its
//!   `;1`). Each gives the extent, the size, the ISO flags and the date as sceCdlFILE keeps it:
//!   `date[1..=7]` = second, minute, hour, day, month, year (u16, little endian); `date[0]` 0.
//!   The last directory read stays cached: a search in it reads nothing.
//! - **The name** matches by `strncmp(entry, name, 12)`: case-sensitive, the `;1` part of the
//!   name (`\SYSTEM.CNF;1`; `\SYSTEM.CNF` alone finds nothing), and only the first 12 bytes
//!   compared. The first match is the answer: sceCdlFILE { lsn (+ the layer's base on layer 1),
//!   size, `name[16]`, `date[8]` } and the entry's ISO flags after it (what cdvdfsv's 36-byte copy
//!   sends back).
//!
//! Where piney differs: a name longer than 15 bytes is cut to 15 and a NUL (cdvdman's copy runs
//! on into the date); a search on layer 1 of a disc without one finds nothing.

use crate::disc::Disc;

/// The most directories cdvdman's table holds.
pub const MAX_DIRS: usize = 128;
/// The most files of a directory cdvdman's table holds.
pub const MAX_FILES: usize = 64;
/// The most directory levels in a path.
pub const MAX_LEVELS: usize = 8;
/// How many bytes of a name are compared.
pub const NAME_CMP: usize = 12;

/// One directory of the path table.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Dir {
    /// Its extent (relative to the layer's base).
    pub extent: u32,
    /// Its parent's number (from 1).
    pub parent: u16,
    /// Its name's bytes.
    pub name: Vec<u8>,
}

/// One entry of a directory.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Entry {
    /// The extent (relative to the layer's base).
    pub lsn: u32,
    /// The size in bytes.
    pub size: u32,
    /// The identifier's bytes (with `;1`).
    pub name: Vec<u8>,
    /// sceCdlFILE's date.
    pub date: [u8; 8],
    /// The ISO flags (2: a directory).
    pub flags: u8,
}

impl Entry {
    /// The 36 bytes cdvdman copies: sceCdlFILE { lsn + `base`, size, `name[16]`, `date[8]` } and the
    /// flags word.
    pub fn to_bytes(&self, base: u32) -> [u8; 36] {
        let mut b = [0u8; 36];
        b[0..4].copy_from_slice(&self.lsn.wrapping_add(base).to_le_bytes());
        b[4..8].copy_from_slice(&self.size.to_le_bytes());
        let n = self.name.len().min(15);
        b[8..8 + n].copy_from_slice(&self.name[..n]);
        b[24..32].copy_from_slice(&self.date);
        b[32..36].copy_from_slice(&u32::from(self.flags).to_le_bytes());
        b
    }
}

/// What cdvdman keeps between searches.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct FsCache {
    /// The layer the directory table is of, when one is cached.
    pub layer: Option<u32>,
    /// The layer's base sector.
    pub base: u64,
    /// The directory table.
    pub dirs: Vec<Dir>,
    /// The directory whose entries are cached (its number) and them.
    pub cur: Option<(usize, Vec<Entry>)>,
}

/// A sector reader that records what it read (for the drive's timing).
pub struct Reader<'a> {
    disc: &'a mut dyn Disc,
    /// The sectors read, in order.
    pub reads: Vec<u64>,
    /// Whether a read failed (past the end, or the image could not be read).
    pub failed: bool,
}

impl<'a> Reader<'a> {
    /// A reader of `disc`.
    pub fn new(disc: &'a mut dyn Disc) -> Self {
        Self {
            disc,
            reads: Vec::new(),
            failed: false,
        }
    }

    /// One sector, or `None` when it cannot be read.
    fn sector(&mut self, lsn: u64) -> Option<Vec<u8>> {
        self.reads.push(lsn);
        let mut b = vec![0u8; 2048];
        if lsn >= self.disc.sectors() || self.disc.read(lsn, &mut b).is_err() {
            self.failed = true;
            return None;
        }
        Some(b)
    }
}

fn u16le(b: &[u8], o: usize) -> u16 {
    u16::from_le_bytes([b[o], b[o + 1]])
}

fn u32le(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]])
}

/// `CD_newmedia`: the directory table of the layer at `base`, or `None`.
fn new_media(r: &mut Reader, base: u64) -> Option<Vec<Dir>> {
    let pvd = r.sector(base + 16)?;
    if &pvd[1..6] != b"CD001" {
        return None;
    }
    let pt = r.sector(base + u64::from(u32le(&pvd, 140)))?;
    let mut dirs = Vec::new();
    let mut at = 0usize;
    while dirs.len() < MAX_DIRS && at + 8 <= pt.len() && pt[at] != 0 {
        let len = usize::from(pt[at]);
        let end = (at + 8 + len).min(pt.len());
        dirs.push(Dir {
            extent: u32le(&pt, at + 2),
            parent: u16le(&pt, at + 6),
            name: pt[at + 8..end].to_vec(),
        });
        at += 8 + len + (len & 1);
    }
    Some(dirs)
}

/// `CD_cachefile`: the entries of directory `number`'s first sector.
fn read_dir(r: &mut Reader, base: u64, dir: &Dir) -> Option<Vec<Entry>> {
    let s = r.sector(base + u64::from(dir.extent))?;
    let mut out = Vec::new();
    let mut at = 0usize;
    while out.len() < MAX_FILES && at < s.len() {
        let len = usize::from(s[at]);
        if len == 0 {
            break;
        }
        if at + 33 > s.len() {
            break;
        }
        let name_len = usize::from(s[at + 32]);
        let name = match out.len() {
            0 => b".".to_vec(),
            1 => b"..".to_vec(),
            _ => s[at + 33..(at + 33 + name_len).min(s.len())].to_vec(),
        };
        let year = u16::from(s[at + 18]) + 1900;
        let date = [
            0,
            s[at + 23],
            s[at + 22],
            s[at + 21],
            s[at + 20],
            s[at + 19],
            year as u8,
            (year >> 8) as u8,
        ];
        out.push(Entry {
            lsn: u32le(&s, at + 2),
            size: u32le(&s, at + 10),
            name,
            date,
            flags: s[at + 25],
        });
        at += len;
    }
    Some(out)
}

/// A C string's bytes: up to the first NUL.
fn cstr(s: &[u8]) -> &[u8] {
    &s[..s.iter().position(|&c| c == 0).unwrap_or(s.len())]
}

/// `strncmp(a, b, 12) == 0` with C strings.
fn same_name(a: &[u8], b: &[u8]) -> bool {
    let (a, b) = (cstr(a), cstr(b));
    a[..a.len().min(NAME_CMP)] == b[..b.len().min(NAME_CMP)]
}

/// Where a layer starts: 0, or layer 1's first sector (`None`: the disc has no layer 1).
pub fn layer_base(layer1: Option<u64>, layer: u32) -> Option<u64> {
    if layer == 0 { Some(0) } else { layer1 }
}

/// sceCdLayerSearchFile's walk: the entry found (and the base its lsn is relative to), or
/// `None`. `media_ok` says whether the disc in the drive is a medium cdvdman searches at all;
/// `changed` whether the disc changed since the cache was made.
pub fn search(
    r: &mut Reader,
    cache: &mut FsCache,
    layer1: Option<u64>,
    path: &[u8],
    layer: u32,
    changed: bool,
) -> Option<(Entry, u64)> {
    if changed || cache.layer != Some(layer) {
        cache.layer = None;
        cache.cur = None;
        let base = layer_base(layer1, layer)?;
        cache.dirs = new_media(r, base)?;
        cache.base = base;
        cache.layer = Some(layer);
    }
    let rest = path.strip_prefix(b"\\")?;
    let parts: Vec<&[u8]> = rest.split(|&c| c == b'\\').collect();
    let (file, dirs) = parts.split_last()?;
    if dirs.len() >= MAX_LEVELS || file.is_empty() {
        return None;
    }
    let mut cur = 1usize;
    for d in dirs {
        // cdvdman's table ends at the first entry whose parent is 0.
        cur = cache
            .dirs
            .iter()
            .take_while(|x| x.parent != 0)
            .position(|x| usize::from(x.parent) == cur && cstr(&x.name) == *d)
            .map(|i| i + 1)?;
    }
    if cache.cur.as_ref().is_none_or(|(n, _)| *n != cur) {
        cache.cur = None;
        let dir = cache.dirs.get(cur - 1)?.clone();
        let entries = read_dir(r, cache.base, &dir)?;
        cache.cur = Some((cur, entries));
    }
    let (_, entries) = cache.cur.as_ref()?;
    entries
        .iter()
        .find(|e| same_name(&e.name, file))
        .map(|e| (e.clone(), cache.base))
}
