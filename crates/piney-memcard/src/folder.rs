//! The folder card: a host directory is the card's root; PS2 directories and files are host
//! directories and files of the same names; what the host cannot hold is in each directory's
//! sidecar ([`crate::sidecar`]).
//!
//! Contract:
//! * The host directory is the truth: every operation reads the sidecars and directory
//!   listings it needs afresh, so files added, removed or edited by hand show up. A host file
//!   or directory without a sidecar line gets defaults (mode 0x8497 for a file, 0x8427 for a
//!   directory, both times from its host modification time in JST) after the entries the
//!   sidecar lists, in byte order of their names; a listed entry whose host file is gone reads
//!   as a deleted slot. Host names that cannot be PS2 names (longer than 32 bytes, not UTF-8
//!   on hosts other than Unix), symbolic links and special files are not shown; nor are the
//!   sidecar files.
//! * Capacity is that of an 8 MiB card: MCMAN's 8001 allocatable clusters of 1024 bytes, of
//!   which each directory uses one per two slots ('.' and '..' included) and each file one per
//!   1024 bytes started, as on the real filesystem. A write or create that the card could not
//!   hold fails with `sceMcResFullDevice` and changes nothing.
//! * Durability: file data is written and synced before a write returns; a changed sidecar is
//!   written to a temporary file, synced, renamed into place and its directory synced, before
//!   the operation returns; created and removed host entries have their directory synced.
//! * Nothing is written by operations that only read.
//! * Where the host refuses a name the card allows (a name differing only in case from an
//!   existing one on a case-insensitive host, a name starting `.piney-mc`), creating or renaming
//!   to it fails with `sceMcResDeniedPermit`; nothing is hidden silently.

use crate::engine::{Entry, Loc, MAX_NAME, Store};
use crate::error::{CardError, McError};
use crate::sidecar::{self, Line, Meta, SIDECAR, SIDECAR_TMP, Sidecar};
use crate::types::{Timestamp, mode};
use std::collections::{BTreeMap, BTreeSet};
use std::ffi::{OsStr, OsString};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

/// Allocatable clusters of the 8 MiB card a folder card models (MCMAN's
/// `max_allocatable_clusters` for 8192 clusters from cluster 41: 8001).
pub(crate) const CAPACITY: u32 = 8001;
const CLUSTER: u64 = 1024;

/// A directory of a folder card: its names from the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FolderDir(Vec<Vec<u8>>);

#[derive(Debug, Clone)]
struct Slot {
    meta: Meta,
    name: Vec<u8>,
    is_dir: bool,
    len: u32,
}

#[derive(Debug, Clone)]
struct DirMeta {
    host: PathBuf,
    own: Option<Meta>,
    unformatted: bool,
    slots: Vec<Option<Slot>>,
}

impl DirMeta {
    fn len(&self) -> u32 {
        2 + self.slots.len() as u32
    }

    fn sidecar(&self) -> Sidecar {
        Sidecar {
            own: self.own,
            unformatted: self.unformatted,
            slots: self
                .slots
                .iter()
                .map(|s| match s {
                    Some(s) => Line::Entry {
                        meta: s.meta,
                        name: s.name.clone(),
                    },
                    None => Line::Free,
                })
                .collect(),
        }
    }
}

#[cfg(unix)]
fn to_host(name: &[u8]) -> Option<OsString> {
    use std::os::unix::ffi::OsStrExt;
    Some(OsStr::from_bytes(name).to_owned())
}

#[cfg(not(unix))]
fn to_host(name: &[u8]) -> Option<OsString> {
    std::str::from_utf8(name).ok().map(OsString::from)
}

#[cfg(unix)]
fn from_host(name: &OsStr) -> Option<Vec<u8>> {
    use std::os::unix::ffi::OsStrExt;
    Some(name.as_bytes().to_vec())
}

#[cfg(not(unix))]
fn from_host(name: &OsStr) -> Option<Vec<u8>> {
    name.to_str().map(|s| s.as_bytes().to_vec())
}

/// Whether a host name is shown as a card entry.
fn listable(name: &[u8]) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME
        && name != b"."
        && name != b".."
        && !name.starts_with(SIDECAR.as_bytes())
}

fn default_meta(is_dir: bool, mtime: Option<Timestamp>) -> Meta {
    let t = mtime.unwrap_or(Timestamp::RTC_FALLBACK);
    Meta {
        mode: if is_dir {
            mode::NEW_DIR
        } else {
            mode::CLOSED_FILE
        },
        attr: 0,
        created: t,
        modified: t,
    }
}

/// The root's own entry when its sidecar has none.
fn default_root() -> Meta {
    default_meta(true, None)
}

/// The kind bits follow the host.
fn with_kind(mut m: Meta, is_dir: bool) -> Meta {
    m.mode &= !(mode::FILE | mode::DIR);
    m.mode |= if is_dir { mode::DIR } else { mode::FILE };
    m
}

fn host_mtime(md: &fs::Metadata) -> Option<Timestamp> {
    let secs = md
        .modified()
        .ok()?
        .duration_since(UNIX_EPOCH)
        .ok()?
        .as_secs();
    Some(Timestamp::from_unix_jst(i64::try_from(secs).ok()?))
}

fn ceil_clusters(bytes: u64) -> u64 {
    bytes.div_ceil(CLUSTER)
}

/// A host directory as a memory card.
pub(crate) struct FolderStore {
    root: PathBuf,
    cache: BTreeMap<Vec<Vec<u8>>, DirMeta>,
    dirty: BTreeSet<Vec<Vec<u8>>>,
}

impl FolderStore {
    /// Opens a folder card, creating the directory (as a freshly formatted card) if it does not
    /// exist. Every sidecar is parsed, so a bad one is reported now.
    pub fn open(path: &Path, now: Timestamp) -> Result<FolderStore, CardError> {
        let mut st = FolderStore {
            root: path.to_path_buf(),
            cache: BTreeMap::new(),
            dirty: BTreeSet::new(),
        };
        match fs::metadata(path) {
            Ok(md) if md.is_dir() => {}
            Ok(_) => {
                return Err(CardError::NotACard {
                    path: path.to_path_buf(),
                });
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                fs::create_dir_all(path).map_err(|e| CardError::io(path, "create directory", e))?;
                crate::sync_parent(path)?;
                st.write_root(Some(fresh_root(now)), false)?;
            }
            Err(e) => return Err(CardError::io(path, "stat", e)),
        }
        st.used_clusters()?;
        st.cache.clear();
        Ok(st)
    }

    fn host_path(&self, comps: &[Vec<u8>]) -> Result<PathBuf, CardError> {
        let mut p = self.root.clone();
        for c in comps {
            let h = to_host(c).ok_or_else(|| {
                CardError::io(
                    &self.root,
                    "map name",
                    io::Error::new(
                        io::ErrorKind::InvalidInput,
                        "name is not valid on this host",
                    ),
                )
            })?;
            p.push(h);
        }
        Ok(p)
    }

    fn load(&mut self, comps: &[Vec<u8>]) -> Result<&mut DirMeta, CardError> {
        if !self.cache.contains_key(comps) {
            let host = self.host_path(comps)?;
            let sc_path = host.join(SIDECAR);
            let sc = match fs::read(&sc_path) {
                Ok(b) => sidecar::parse(&b, &sc_path, comps.is_empty())?,
                Err(e) if e.kind() == io::ErrorKind::NotFound => Sidecar::default(),
                Err(e) => return Err(CardError::io(&sc_path, "read", e)),
            };
            let mut on_host: BTreeMap<Vec<u8>, (bool, u32, Option<Timestamp>)> = BTreeMap::new();
            let rd = fs::read_dir(&host).map_err(|e| CardError::io(&host, "list", e))?;
            for ent in rd {
                let ent = ent.map_err(|e| CardError::io(&host, "list", e))?;
                let Some(name) = from_host(&ent.file_name()) else {
                    continue;
                };
                if !listable(&name) {
                    continue;
                }
                let ft = ent
                    .file_type()
                    .map_err(|e| CardError::io(ent.path(), "stat", e))?;
                if !ft.is_dir() && !ft.is_file() {
                    continue;
                }
                let md = ent
                    .metadata()
                    .map_err(|e| CardError::io(ent.path(), "stat", e))?;
                let len = if ft.is_file() {
                    u32::try_from(md.len()).unwrap_or(u32::MAX)
                } else {
                    0
                };
                on_host.insert(name, (ft.is_dir(), len, host_mtime(&md)));
            }
            let mut slots = Vec::with_capacity(sc.slots.len());
            for l in sc.slots {
                slots.push(match l {
                    Line::Entry { meta, name } => {
                        on_host.remove(&name).map(|(is_dir, len, _)| Slot {
                            meta: with_kind(meta, is_dir),
                            name,
                            is_dir,
                            len,
                        })
                    }
                    Line::Free => None,
                });
            }
            for (name, (is_dir, len, mtime)) in on_host {
                slots.push(Some(Slot {
                    meta: default_meta(is_dir, mtime),
                    name,
                    is_dir,
                    len,
                }));
            }
            self.cache.insert(
                comps.to_vec(),
                DirMeta {
                    host,
                    own: sc.own,
                    unformatted: sc.unformatted,
                    slots,
                },
            );
        }
        Ok(self.cache.get_mut(comps).expect("just loaded"))
    }

    fn slot_mut(&mut self, comps: &[Vec<u8>], index: u32) -> Result<&mut Slot, CardError> {
        let root = self.root.clone();
        let d = self.load(comps)?;
        index
            .checked_sub(2)
            .and_then(|i| d.slots.get_mut(i as usize))
            .and_then(Option::as_mut)
            .ok_or_else(|| {
                CardError::io(
                    root,
                    "find entry",
                    io::Error::new(io::ErrorKind::NotFound, "entry vanished from the host"),
                )
            })
    }

    fn index_of(&mut self, comps: &[Vec<u8>], name: &[u8]) -> Result<u32, CardError> {
        let root = self.root.clone();
        let d = self.load(comps)?;
        d.slots
            .iter()
            .position(|s| s.as_ref().is_some_and(|s| s.name == name))
            .map(|i| i as u32 + 2)
            .ok_or_else(|| {
                CardError::io(
                    root,
                    "find directory",
                    io::Error::new(io::ErrorKind::NotFound, "directory vanished from the host"),
                )
            })
    }

    /// Clusters in use: per directory one per two slots, per file one per 1024 bytes started.
    fn used_clusters(&mut self) -> Result<u64, CardError> {
        let mut used = 0u64;
        let mut stack = vec![Vec::<Vec<u8>>::new()];
        while let Some(comps) = stack.pop() {
            let d = self.load(&comps)?;
            used += u64::from(d.len()).div_ceil(2);
            let mut subdirs = Vec::new();
            for s in d.slots.iter().flatten() {
                if s.is_dir {
                    subdirs.push(s.name.clone());
                } else {
                    used += ceil_clusters(u64::from(s.len));
                }
            }
            for n in subdirs {
                let mut c = comps.clone();
                c.push(n);
                stack.push(c);
            }
        }
        Ok(used)
    }

    fn free(&mut self) -> Result<u64, CardError> {
        Ok(u64::from(CAPACITY).saturating_sub(self.used_clusters()?))
    }

    fn write_sidecar(host: &Path, sc: &Sidecar) -> Result<(), CardError> {
        let tmp = host.join(SIDECAR_TMP);
        let fin = host.join(SIDECAR);
        {
            let mut f = File::create(&tmp).map_err(|e| CardError::io(&tmp, "create", e))?;
            f.write_all(sidecar::render(sc).as_bytes())
                .map_err(|e| CardError::io(&tmp, "write", e))?;
            f.sync_all().map_err(|e| CardError::io(&tmp, "sync", e))?;
        }
        fs::rename(&tmp, &fin).map_err(|e| CardError::io(&fin, "rename", e))?;
        crate::sync_dir(host)
    }

    fn write_root(&mut self, own: Option<Meta>, unformatted: bool) -> Result<(), CardError> {
        let sc = Sidecar {
            own,
            unformatted,
            slots: Vec::new(),
        };
        FolderStore::write_sidecar(&self.root, &sc)?;
        self.cache.clear();
        self.dirty.clear();
        Ok(())
    }

    /// Removes every entry of the card from the host (format and unformat).
    fn wipe(&mut self) -> Result<(), CardError> {
        self.cache.clear();
        self.dirty.clear();
        let root = self.root.clone();
        let rd = fs::read_dir(&root).map_err(|e| CardError::io(&root, "list", e))?;
        for ent in rd {
            let ent = ent.map_err(|e| CardError::io(&root, "list", e))?;
            let Some(name) = from_host(&ent.file_name()) else {
                continue;
            };
            if !listable(&name) {
                continue;
            }
            let ft = ent
                .file_type()
                .map_err(|e| CardError::io(ent.path(), "stat", e))?;
            let p = ent.path();
            if ft.is_dir() {
                fs::remove_dir_all(&p).map_err(|e| CardError::io(&p, "remove", e))?;
            } else if ft.is_file() {
                fs::remove_file(&p).map_err(|e| CardError::io(&p, "remove", e))?;
            }
        }
        crate::sync_dir(&root)
    }

    fn entry_of(s: &Slot) -> Entry {
        Entry {
            mode: s.meta.mode,
            length: if s.is_dir { 0 } else { s.len },
            created: s.meta.created,
            modified: s.meta.modified,
            attr: s.meta.attr,
            name: s.name.clone(),
        }
    }
}

fn fresh_root(now: Timestamp) -> Meta {
    Meta {
        mode: mode::NEW_DIR,
        attr: 0,
        created: now,
        modified: now,
    }
}

impl Store for FolderStore {
    type Dir = FolderDir;

    fn path(&self) -> &Path {
        &self.root
    }

    fn is_formatted(&mut self) -> Result<bool, CardError> {
        Ok(!self.load(&[])?.unformatted)
    }

    fn root(&self) -> FolderDir {
        FolderDir(Vec::new())
    }

    fn own_entry(&mut self, dir: &FolderDir) -> Result<Entry, CardError> {
        let len = self.load(&dir.0)?.len();
        let (meta, name) = match dir.0.split_last() {
            None => (
                self.load(&[])?.own.unwrap_or_else(default_root),
                b".".to_vec(),
            ),
            Some((name, parent)) => {
                let i = self.index_of(parent, name)?;
                let s = self.slot_mut(parent, i)?;
                (s.meta, s.name.clone())
            }
        };
        Ok(Entry {
            mode: meta.mode,
            length: len,
            created: meta.created,
            modified: meta.modified,
            attr: meta.attr,
            name,
        })
    }

    fn slot(&mut self, dir: &FolderDir, index: u32) -> Result<Option<Entry>, CardError> {
        let is_root = dir.0.is_empty();
        let d = self.load(&dir.0)?;
        Ok(match index {
            0 | 1 => Some(Entry {
                mode: if index == 1 && is_root {
                    mode::ROOT_DOTDOT
                } else {
                    mode::NEW_DIR
                },
                length: 0,
                created: Timestamp::default(),
                modified: Timestamp::default(),
                attr: 0,
                name: if index == 0 {
                    b".".to_vec()
                } else {
                    b"..".to_vec()
                },
            }),
            i => d
                .slots
                .get(i as usize - 2)
                .and_then(Option::as_ref)
                .map(FolderStore::entry_of),
        })
    }

    fn child(&mut self, dir: &FolderDir, index: u32) -> Result<FolderDir, CardError> {
        let name = self.slot_mut(&dir.0, index)?.name.clone();
        let mut c = dir.0.clone();
        c.push(name);
        Ok(FolderDir(c))
    }

    fn update(
        &mut self,
        loc: &Loc<FolderDir>,
        f: &mut dyn FnMut(&mut Entry),
    ) -> Result<(), McError> {
        let (comps, index) = match loc {
            Loc::Own(d) if d.0.is_empty() => {
                let m = self.load(&[])?.own.unwrap_or_else(default_root);
                let mut e = Entry {
                    mode: m.mode,
                    length: 0,
                    created: m.created,
                    modified: m.modified,
                    attr: m.attr,
                    name: b".".to_vec(),
                };
                f(&mut e);
                let new = Meta {
                    mode: e.mode,
                    attr: e.attr,
                    created: e.created,
                    modified: e.modified,
                };
                let d = self.load(&[])?;
                if d.own != Some(new) {
                    d.own = Some(new);
                    self.dirty.insert(Vec::new());
                }
                return Ok(());
            }
            Loc::Own(d) => {
                let (name, parent) = d.0.split_last().expect("not the root");
                let i = self.index_of(parent, name)?;
                (parent.to_vec(), i)
            }
            Loc::Slot(d, i) => (d.0.clone(), *i),
        };
        let s = self.slot_mut(&comps, index)?.clone();
        let mut e = FolderStore::entry_of(&s);
        f(&mut e);
        let meta = Meta {
            mode: e.mode,
            attr: e.attr,
            created: e.created,
            modified: e.modified,
        };
        if e.name != s.name {
            // A rename: flush what is pending, read the directory as it is, then rename on
            // the host and record the new name in that (cached) reading.
            self.commit()?;
            self.load(&comps)?;
            let host = self.host_path(&comps)?;
            let from = host.join(to_host(&s.name).ok_or(McError::NoEntry)?);
            let to = host.join(to_host(&e.name).ok_or(McError::NoEntry)?);
            if !listable(&e.name) || fs::symlink_metadata(&to).is_ok() {
                // The host has that name already (a case-insensitive host, or a name the card
                // does not show).
                return Err(McError::DeniedPermit);
            }
            fs::rename(&from, &to).map_err(|er| CardError::io(&from, "rename", er))?;
            crate::sync_dir(&host)?;
        }
        let slot = self.slot_mut(&comps, index)?;
        if slot.meta != meta || slot.name != e.name {
            slot.meta = with_kind(meta, slot.is_dir);
            slot.name = e.name.clone();
            self.dirty.insert(comps);
        }
        Ok(())
    }

    fn create(
        &mut self,
        dir: &FolderDir,
        index: u32,
        entry: &Entry,
        is_dir: bool,
    ) -> Result<(), McError> {
        let len = self.load(&dir.0)?.len();
        let extend = index >= len && index.is_multiple_of(2);
        let need = u64::from(extend) + u64::from(is_dir);
        if need > 0 && self.free()? < need {
            return Err(McError::FullDevice);
        }
        if !listable(&entry.name) {
            // A name the folder would not show (the sidecar's own).
            return Err(McError::DeniedPermit);
        }
        let host = self.host_path(&dir.0)?;
        let p = host.join(to_host(&entry.name).ok_or(McError::NoEntry)?);
        if is_dir {
            match fs::create_dir(&p) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    return Err(McError::DeniedPermit);
                }
                Err(e) => return Err(CardError::io(&p, "create directory", e).into()),
            }
        } else {
            match OpenOptions::new().write(true).create_new(true).open(&p) {
                Ok(f) => f.sync_all().map_err(|e| CardError::io(&p, "sync", e))?,
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    return Err(McError::DeniedPermit);
                }
                Err(e) => return Err(CardError::io(&p, "create", e).into()),
            }
        }
        crate::sync_dir(&host)?;
        let slot = Slot {
            meta: with_kind(
                Meta {
                    mode: entry.mode,
                    attr: entry.attr,
                    created: entry.created,
                    modified: entry.modified,
                },
                is_dir,
            ),
            name: entry.name.clone(),
            is_dir,
            len: 0,
        };
        let d = self.load(&dir.0)?;
        let i = (index - 2) as usize;
        if i < d.slots.len() {
            d.slots[i] = Some(slot);
        } else {
            d.slots.push(Some(slot));
        }
        self.dirty.insert(dir.0.clone());
        if is_dir {
            let mut c = dir.0.clone();
            c.push(entry.name.clone());
            self.cache.remove(&c);
        }
        Ok(())
    }

    fn remove(&mut self, dir: &FolderDir, index: u32) -> Result<(), McError> {
        let s = self.slot_mut(&dir.0, index)?.clone();
        let host = self.host_path(&dir.0)?;
        let p = host.join(to_host(&s.name).ok_or(McError::NoEntry)?);
        if s.is_dir {
            for n in [SIDECAR, SIDECAR_TMP] {
                match fs::remove_file(p.join(n)) {
                    Ok(()) => {}
                    Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                    Err(e) => return Err(CardError::io(p.join(n), "remove", e).into()),
                }
            }
            match fs::remove_dir(&p) {
                Ok(()) => {}
                // Host files the card does not show are left alone: the directory is not empty.
                Err(e) if e.kind() == io::ErrorKind::DirectoryNotEmpty => {
                    return Err(McError::NotEmpty);
                }
                Err(e) => return Err(CardError::io(&p, "remove", e).into()),
            }
            let mut c = dir.0.clone();
            c.push(s.name.clone());
            self.cache.retain(|k, _| !k.starts_with(&c));
            self.dirty.retain(|k| !k.starts_with(&c));
        } else {
            fs::remove_file(&p).map_err(|e| CardError::io(&p, "remove", e))?;
        }
        crate::sync_dir(&host)?;
        let d = self.load(&dir.0)?;
        d.slots[(index - 2) as usize] = None;
        self.dirty.insert(dir.0.clone());
        Ok(())
    }

    fn read(
        &mut self,
        dir: &FolderDir,
        index: u32,
        pos: u32,
        buf: &mut [u8],
    ) -> Result<(), CardError> {
        let s = self.slot_mut(&dir.0, index)?.clone();
        let p = self
            .host_path(&dir.0)?
            .join(to_host(&s.name).unwrap_or_default());
        let mut f = File::open(&p).map_err(|e| CardError::io(&p, "open", e))?;
        f.seek(SeekFrom::Start(u64::from(pos)))
            .map_err(|e| CardError::io(&p, "seek", e))?;
        let mut done = 0;
        while done < buf.len() {
            match f.read(&mut buf[done..]) {
                Ok(0) => break,
                Ok(n) => done += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(CardError::io(&p, "read", e)),
            }
        }
        // A host file shortened behind the card's back reads as zeros past its end.
        buf[done..].fill(0);
        Ok(())
    }

    fn write(&mut self, dir: &FolderDir, index: u32, pos: u32, data: &[u8]) -> Result<(), McError> {
        let s = self.slot_mut(&dir.0, index)?.clone();
        let end = u64::from(pos) + data.len() as u64;
        let new_len = end.max(u64::from(s.len));
        let need = ceil_clusters(new_len).saturating_sub(ceil_clusters(u64::from(s.len)));
        if need > 0 && self.free()? < need {
            return Err(McError::FullDevice);
        }
        let p = self
            .host_path(&dir.0)?
            .join(to_host(&s.name).ok_or(McError::NoEntry)?);
        let mut f = OpenOptions::new()
            .write(true)
            .open(&p)
            .map_err(|e| CardError::io(&p, "open", e))?;
        f.seek(SeekFrom::Start(u64::from(pos)))
            .map_err(|e| CardError::io(&p, "seek", e))?;
        f.write_all(data)
            .map_err(|e| CardError::io(&p, "write", e))?;
        f.sync_all().map_err(|e| CardError::io(&p, "sync", e))?;
        self.slot_mut(&dir.0, index)?.len = u32::try_from(new_len).unwrap_or(u32::MAX);
        Ok(())
    }

    fn free_clusters(&mut self) -> Result<u32, CardError> {
        Ok(self.free()? as u32)
    }

    fn format(&mut self, now: Timestamp) -> Result<(), CardError> {
        self.wipe()?;
        self.write_root(Some(fresh_root(now)), false)
    }

    fn unformat(&mut self) -> Result<(), CardError> {
        self.wipe()?;
        self.write_root(None, true)
    }

    fn commit(&mut self) -> Result<(), CardError> {
        let dirty = std::mem::take(&mut self.dirty);
        for comps in &dirty {
            if let Some(d) = self.cache.get(comps) {
                FolderStore::write_sidecar(&d.host, &d.sidecar())?;
            }
        }
        self.cache.clear();
        Ok(())
    }

    fn rename_fixup(&self, id: &mut FolderDir, parent: &FolderDir, old: &[u8], new: &[u8]) {
        let n = parent.0.len();
        if id.0.len() > n && id.0[..n] == parent.0[..] && id.0[n] == old {
            id.0[n] = new.to_vec();
        }
    }
}
