//! MCMAN's filesystem semantics, once, over a [`Store`]: path resolution, open flags, the file
//! descriptor table, read/write/seek, `mcGetDir` listing, `mcSetFileInfo` masks, delete rules,
//! chdir, format. The two kinds of card only provide storage primitives.
//!
//! Contract: each public operation behaves as ps2sdk's MCMAN (`iop/memorycard/mcman/src/
//! ps2mc_fio.c` and `main.c`, a reconstruction of Sony's) behaves for a PS2 card with
//! `PS1CardFlag` at its default (1), except where a comment says otherwise (inputs on which the
//! console corrupts its own filesystem are refused instead). Every operation that changes the
//! card ends with [`Store::commit`], which puts the change on the host before it returns.

use crate::error::{CardError, McError, RestoreError};
use crate::pattern;
use crate::types::{
    CARD_TYPE_PS2, CardInfo, CardSession, DirEntry, FileHandle, MAX_OPEN_FILES, OpenFlags,
    SavedHandle, SavedListing, SetInfoFlags, Timestamp, Whence, absolute, mode,
};
use std::path::Path;

/// Longest name an entry can have: the card's name field is 32 bytes and MCMAN copies names
/// with `strncpy(.., 32)`, so a 32-byte name has no terminator but still works. Longer names
/// are refused here with `sceMcResNoEntry` (MCMAN would truncate them to 32 and then fail to
/// find them again).
pub(crate) const MAX_NAME: usize = 32;

/// An entry's metadata as the engine sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    pub mode: u16,
    /// Bytes for a file, slots (including '.' and '..') for a directory.
    pub length: u32,
    pub created: Timestamp,
    pub modified: Timestamp,
    pub attr: u32,
    pub name: Vec<u8>,
}

impl Entry {
    pub fn exists(&self) -> bool {
        self.mode & mode::EXISTS != 0
    }
    pub fn is_dir(&self) -> bool {
        self.mode & mode::DIR != 0
    }
}

/// Where an entry lives: a slot of a directory, or a directory's own entry (the root's is its
/// '.' entry; another directory's is its slot in its parent).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Loc<D> {
    Slot(D, u32),
    Own(D),
}

/// The storage primitives of one kind of card. Indices are directory slots: 0 is '.', 1 is
/// '..', entries from 2. Errors from metadata access are [`CardError`]s; operations that can
/// run out of space return [`McError`].
pub(crate) trait Store {
    /// Identifies a directory.
    type Dir: Clone + PartialEq + std::fmt::Debug + Send;

    /// The card's host path.
    fn path(&self) -> &Path;
    /// Whether the card holds a filesystem.
    fn is_formatted(&mut self) -> Result<bool, CardError>;
    /// The root directory.
    fn root(&self) -> Self::Dir;
    /// A directory's own entry (its length is its slot count).
    fn own_entry(&mut self, dir: &Self::Dir) -> Result<Entry, CardError>;
    /// A slot; `None` for a free (deleted or never used) slot below the length. The length of
    /// a directory slot need not be its slot count (use [`Store::own_entry`] of the child).
    fn slot(&mut self, dir: &Self::Dir, index: u32) -> Result<Option<Entry>, CardError>;
    /// The directory a slot holding a directory leads to.
    fn child(&mut self, dir: &Self::Dir, index: u32) -> Result<Self::Dir, CardError>;
    /// Changes the mode, times, attr or name of an existing entry (length is the store's).
    fn update(
        &mut self,
        loc: &Loc<Self::Dir>,
        f: &mut dyn FnMut(&mut Entry),
    ) -> Result<(), McError>;
    /// Creates an entry in slot `index` (a free slot, or the length to append), with its '.'
    /// and '..' if it is a directory. Fails with `FullDevice` before changing anything.
    fn create(
        &mut self,
        dir: &Self::Dir,
        index: u32,
        entry: &Entry,
        is_dir: bool,
    ) -> Result<(), McError>;
    /// Marks a slot free and releases its clusters.
    fn remove(&mut self, dir: &Self::Dir, index: u32) -> Result<(), McError>;
    /// Reads file bytes `pos..pos + buf.len()`, all below the file's length.
    fn read(
        &mut self,
        dir: &Self::Dir,
        index: u32,
        pos: u32,
        buf: &mut [u8],
    ) -> Result<(), CardError>;
    /// Writes file bytes at `pos`, growing the file (a gap reads as zeros). Fails with
    /// `FullDevice` before changing anything.
    fn write(&mut self, dir: &Self::Dir, index: u32, pos: u32, data: &[u8]) -> Result<(), McError>;
    /// Free clusters as `McGetFreeClusters` counts them.
    fn free_clusters(&mut self) -> Result<u32, CardError>;
    /// Makes a fresh, empty filesystem.
    fn format(&mut self, now: Timestamp) -> Result<(), CardError>;
    /// Erases the filesystem.
    fn unformat(&mut self) -> Result<(), CardError>;
    /// Puts every change on the host (written and synced) and drops any cached state.
    fn commit(&mut self) -> Result<(), CardError>;
    /// After the entry `old` in `parent` was renamed to `new`, fixes a directory id that went
    /// through it (ids made of names change; ids made of clusters do not).
    fn rename_fixup(&self, id: &mut Self::Dir, parent: &Self::Dir, old: &[u8], new: &[u8]);
}

#[derive(Debug, Clone)]
struct Handle<D> {
    loc: Loc<D>,
    name: Vec<u8>,
    pos: u32,
    rd: bool,
    wr: bool,
    is_dir: bool,
    /// MCMAN's `unknown2`: written since open or the last flush; the entry's CLOSED bit is
    /// clear until close or flush sets it again.
    dirty: bool,
    /// The directories from the root (left out) down to the one `loc` is in (for
    /// `Loc::Own`, to that directory itself): what a save state finds it by again.
    path: Stack<D>,
}

#[derive(Debug, Clone)]
struct CwdElem<D> {
    dir: D,
    name: Vec<u8>,
}

#[derive(Debug, Clone)]
struct GetDirState<D> {
    /// The directories from the root (left out) down to `dir`.
    path: Stack<D>,
    dir: D,
    parent: Option<D>,
    next: u32,
    len: u32,
    pattern: Vec<u8>,
}

/// One element of a resolved path: a directory and its name (empty for the root).
type Stack<D> = Vec<CwdElem<D>>;

enum Target<D> {
    Found { loc: Loc<D>, entry: Entry },
    Missing { free_index: u32, name: Vec<u8> },
}

struct Resolved<D> {
    /// Root first; the last element is the directory the target is in (or, for a target that
    /// is a directory's own entry, that directory).
    stack: Stack<D>,
    target: Target<D>,
}

/// A directory a path names: the path to it (root first, itself last), itself, its parent.
type DirTarget<D> = (Stack<D>, D, Option<D>);

/// A card: the engine over one store.
pub(crate) struct Engine<S: Store> {
    store: S,
    handles: [Option<Handle<S::Dir>>; MAX_OPEN_FILES],
    cwd: Stack<S::Dir>,
    getdir: Option<GetDirState<S::Dir>>,
}

fn valid_new_name(name: &[u8]) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME
        && name != b"."
        && name != b".."
        && !name.contains(&b'/')
        && !name.contains(&0)
}

/// The names and ids of a path of directories from the root (left out) after the entry `old`
/// of `dir` became `new`.
fn rename_in_path<S: Store>(
    store: &S,
    path: &mut [CwdElem<S::Dir>],
    dir: &S::Dir,
    old: &[u8],
    new: &[u8],
) {
    let mut parent = store.root();
    for c in path.iter_mut() {
        if c.name == old && &parent == dir {
            c.name = new.to_vec();
        }
        store.rename_fixup(&mut c.dir, dir, old, new);
        parent = c.dir.clone();
    }
}

/// The names of a path of directories.
fn names<D>(path: &[CwdElem<D>]) -> Vec<Vec<u8>> {
    path.iter().map(|c| c.name.clone()).collect()
}

impl<S: Store> Engine<S> {
    pub fn new(store: S) -> Self {
        Engine {
            store,
            handles: Default::default(),
            cwd: Vec::new(),
            getdir: None,
        }
    }

    pub fn path(&self) -> &Path {
        self.store.path()
    }

    /// Ends an operation: commits what it changed, and after a storage failure drops every
    /// handle, as MCMAN does for results below -9.
    fn finish<T>(&mut self, r: Result<T, McError>) -> Result<T, McError> {
        match r {
            Err(McError::Card(e)) => {
                self.drop_state();
                // Whatever the failed operation changed in memory is still put on the host if
                // the store can (an image refuses once it found corruption).
                let _ = self.store.commit();
                Err(McError::Card(e))
            }
            r => match self.store.commit() {
                Ok(()) => r,
                Err(e) => {
                    self.drop_state();
                    Err(McError::Card(e))
                }
            },
        }
    }

    fn drop_state(&mut self) {
        self.handles = Default::default();
        self.getdir = None;
    }

    fn ensure_formatted(&mut self) -> Result<(), McError> {
        if self.store.is_formatted()? {
            Ok(())
        } else {
            Err(McError::NoFormat)
        }
    }

    fn root_stack(&self) -> Stack<S::Dir> {
        vec![CwdElem {
            dir: self.store.root(),
            name: Vec::new(),
        }]
    }

    /// Finds `name` among the existing entries of `dir`, and the first free slot (MCMAN's
    /// `maxent`: the lowest free index, or the length).
    fn find(&mut self, dir: &S::Dir, name: &[u8]) -> Result<(Option<(u32, Entry)>, u32), McError> {
        let len = self.store.own_entry(dir)?.length;
        let mut free = len;
        let mut found = None;
        for i in 0..len {
            match self.store.slot(dir, i)? {
                None => free = free.min(i),
                Some(e) => {
                    if !e.exists() {
                        free = free.min(i);
                    } else if i >= 2 && found.is_none() && e.name == name {
                        found = Some((i, e));
                    }
                }
            }
        }
        Ok((found, free))
    }

    /// `mcman_cachedirentry`: walks a path from the root ("/...") or the current directory.
    fn resolve(&mut self, path: &[u8]) -> Result<Resolved<S::Dir>, McError> {
        let (mut stack, rest) = match path.first() {
            Some(b'/') => (self.root_stack(), &path[1..]),
            _ => {
                let mut s = self.root_stack();
                s.extend(self.cwd.iter().cloned());
                (s, path)
            }
        };
        let mut comps: Vec<&[u8]> = if rest.is_empty() {
            Vec::new()
        } else {
            rest.split(|&c| c == b'/').collect()
        };
        // A trailing '/' is accepted ("SAVE/" names SAVE), as MCMAN accepts it.
        if comps.len() > 1 && comps.last().is_some_and(|c| c.is_empty()) {
            comps.pop();
        }
        if comps.is_empty() {
            let dir = stack.last().expect("root").dir.clone();
            let entry = self.store.own_entry(&dir)?;
            if !entry.exists() {
                return Err(McError::NoEntry);
            }
            return Ok(Resolved {
                stack,
                target: Target::Found {
                    loc: Loc::Own(dir),
                    entry,
                },
            });
        }
        let n = comps.len();
        for (k, comp) in comps.into_iter().enumerate() {
            let last = k + 1 == n;
            let cur = stack.last().expect("root").dir.clone();
            let own = self.store.own_entry(&cur)?;
            // Every directory searched must be readable and executable.
            if own.mode & (mode::READ | mode::EXECUTE) != mode::READ | mode::EXECUTE {
                return Err(McError::DeniedPermit);
            }
            match comp {
                // "A//B": MCMAN looks for a name starting with '/' and finds none.
                b"" => return Err(McError::NoEntry),
                b"." | b".." => {
                    if comp == b".." && stack.len() > 1 {
                        stack.pop();
                    }
                    if last {
                        let dir = stack.last().expect("root").dir.clone();
                        let entry = self.store.own_entry(&dir)?;
                        return Ok(Resolved {
                            stack,
                            target: Target::Found {
                                loc: Loc::Own(dir),
                                entry,
                            },
                        });
                    }
                }
                name => {
                    let (found, free) = self.find(&cur, name)?;
                    match found {
                        Some((index, entry)) if last => {
                            return Ok(Resolved {
                                stack,
                                target: Target::Found {
                                    loc: Loc::Slot(cur, index),
                                    entry,
                                },
                            });
                        }
                        Some((index, entry)) => {
                            // MCMAN would search a file as if it were a directory; refuse.
                            if !entry.is_dir() {
                                return Err(McError::NoEntry);
                            }
                            let dir = self.store.child(&cur, index)?;
                            stack.push(CwdElem {
                                dir,
                                name: name.to_vec(),
                            });
                        }
                        None if last => {
                            return Ok(Resolved {
                                stack,
                                target: Target::Missing {
                                    free_index: free,
                                    name: name.to_vec(),
                                },
                            });
                        }
                        None => return Err(McError::NoEntry),
                    }
                }
            }
        }
        unreachable!("the last component returns")
    }

    /// The directory a resolved target names, with its parent, or `NoEntry`.
    fn target_dir(&mut self, r: &Resolved<S::Dir>) -> Result<DirTarget<S::Dir>, McError> {
        match &r.target {
            Target::Found {
                loc: Loc::Own(d), ..
            } => {
                let parent = (r.stack.len() >= 2).then(|| r.stack[r.stack.len() - 2].dir.clone());
                Ok((r.stack.clone(), d.clone(), parent))
            }
            Target::Found {
                loc: Loc::Slot(p, i),
                entry,
            } if entry.is_dir() => {
                let d = self.store.child(p, *i)?;
                let mut stack = r.stack.clone();
                stack.push(CwdElem {
                    dir: d.clone(),
                    name: entry.name.clone(),
                });
                Ok((stack, d, Some(p.clone())))
            }
            _ => Err(McError::NoEntry),
        }
    }

    fn free_handle(&self) -> Result<usize, McError> {
        self.handles
            .iter()
            .position(Option::is_none)
            .ok_or(McError::UpLimitHandle)
    }

    fn handles_on(&self, loc: &Loc<S::Dir>) -> impl Iterator<Item = &Handle<S::Dir>> {
        self.handles.iter().flatten().filter(move |h| &h.loc == loc)
    }

    // ---- operations ------------------------------------------------------------------------

    pub fn info(&mut self) -> Result<CardInfo, CardError> {
        let r = self.info_inner().map_err(McError::Card);
        match self.finish(r) {
            Ok(i) => Ok(i),
            Err(McError::Card(e)) => Err(e),
            Err(_) => unreachable!("info fails only with storage errors"),
        }
    }

    fn info_inner(&mut self) -> Result<CardInfo, CardError> {
        let formatted = self.store.is_formatted()?;
        let free_clusters = if formatted {
            self.store.free_clusters()?
        } else {
            0
        };
        Ok(CardInfo {
            card_type: CARD_TYPE_PS2,
            free_clusters,
            formatted,
        })
    }

    pub fn open(
        &mut self,
        path: &[u8],
        flags: OpenFlags,
        now: Timestamp,
    ) -> Result<FileHandle, McError> {
        let r = self.open_inner(path, flags, now);
        self.finish(r)
    }

    /// `mcman_open2`.
    fn open_inner(
        &mut self,
        path: &[u8],
        flags: OpenFlags,
        now: Timestamp,
    ) -> Result<FileHandle, McError> {
        self.ensure_formatted()?;
        let mut f = flags.0;
        if f & OpenFlags::CREATE.0 != 0 {
            f |= OpenFlags::WRONLY.0;
        }
        if path.is_empty() {
            return Err(McError::NoEntry);
        }
        // MCMAN takes a descriptor before looking at the path, even for mkdir.
        let slot = self.free_handle()?;
        let create_dir = f & OpenFlags::CREATE_DIR.0 != 0;
        let create_file = f & OpenFlags::CREATE.0 != 0;
        let rd = f & OpenFlags::RDONLY.0 != 0;
        let wr = f & OpenFlags::WRONLY.0 != 0;
        let r = self.resolve(path)?;
        let dir = r.stack.last().expect("root").dir.clone();
        let (index, name) = match r.target {
            Target::Found { loc, entry } => {
                if create_dir {
                    // mkdir of an existing name.
                    return Err(McError::NoEntry);
                }
                if wr && entry.mode & mode::WRITE == 0 {
                    return Err(McError::DeniedPermit);
                }
                if entry.is_dir() {
                    if entry.mode & mode::READ == 0 {
                        return Err(McError::DeniedPermit);
                    }
                    self.handles[slot] = Some(Handle {
                        loc,
                        name: entry.name,
                        pos: 0,
                        rd: false,
                        wr: false,
                        is_dir: true,
                        dirty: false,
                        path: r.stack[1..].to_vec(),
                    });
                    return Ok(FileHandle(slot as i32));
                }
                let Loc::Slot(_, index) = loc else {
                    // A directory's own entry whose mode lost DIR (a hand-edited sidecar).
                    return Err(McError::NoEntry);
                };
                if wr && self.handles_on(&loc).any(|h| h.wr) {
                    return Err(McError::DeniedPermit);
                }
                if !create_file {
                    self.handles[slot] = Some(Handle {
                        loc,
                        name: entry.name,
                        pos: 0,
                        rd: rd && entry.mode & mode::READ != 0,
                        wr,
                        is_dir: false,
                        dirty: false,
                        path: r.stack[1..].to_vec(),
                    });
                    return Ok(FileHandle(slot as i32));
                }
                // O_CREAT on an existing file: the old entry is deleted (refused while any
                // handle has it open) and the new one takes the lowest free slot.
                if self.handles_on(&loc).next().is_some() {
                    return Err(McError::DeniedPermit);
                }
                let (_, free_before) = self.find(&dir, &entry.name)?;
                self.store.remove(&dir, index)?;
                (free_before.min(index), entry.name)
            }
            Target::Missing { free_index, name } => {
                if !create_dir && !create_file {
                    return Err(McError::NoEntry);
                }
                if !valid_new_name(&name) {
                    return Err(McError::NoEntry);
                }
                (free_index, name)
            }
        };
        // MCMAN copies these open flags into the new entry's mode (PS1CardFlag = 1).
        let extra = (f as u16) & (mode::HIDDEN | mode::PS1 | mode::POCKETSTATION);
        let entry = Entry {
            mode: extra
                | if create_dir {
                    mode::NEW_DIR
                } else {
                    mode::NEW_FILE
                },
            length: if create_dir { 2 } else { 0 },
            created: now,
            modified: now,
            attr: 0,
            name: name.clone(),
        };
        self.store.create(&dir, index, &entry, create_dir)?;
        self.store
            .update(&Loc::Own(dir.clone()), &mut |e| e.modified = now)?;
        if create_dir {
            // mkdir holds no descriptor; MCMAN returns 0.
            return Ok(FileHandle(0));
        }
        self.handles[slot] = Some(Handle {
            loc: Loc::Slot(dir, index),
            name,
            pos: 0,
            rd,
            wr,
            is_dir: false,
            dirty: false,
            path: r.stack[1..].to_vec(),
        });
        Ok(FileHandle(slot as i32))
    }

    fn handle(&self, fh: FileHandle) -> Result<&Handle<S::Dir>, McError> {
        usize::try_from(fh.0)
            .ok()
            .and_then(|i| self.handles.get(i))
            .and_then(Option::as_ref)
            .ok_or(McError::DeniedPermit)
    }

    /// The current entry of a file handle, following it if the store renumbered the slot (a
    /// folder card whose host directory changed); a vanished file closes the handle.
    fn file_entry(&mut self, fh: FileHandle) -> Result<(S::Dir, u32, Entry), McError> {
        let h = self.handle(fh)?.clone();
        match self.locate(&h)? {
            Some((dir, index, e)) => {
                if let Some(h) = &mut self.handles[fh.0 as usize] {
                    h.loc = Loc::Slot(dir.clone(), index);
                }
                Ok((dir, index, e))
            }
            None => {
                self.handles[fh.0 as usize] = None;
                Err(McError::NoEntry)
            }
        }
    }

    fn locate(&mut self, h: &Handle<S::Dir>) -> Result<Option<(S::Dir, u32, Entry)>, McError> {
        let Loc::Slot(dir, index) = h.loc.clone() else {
            unreachable!("file handles are slots")
        };
        if let Some(e) = self.store.slot(&dir, index)?
            && e.exists()
            && e.name == h.name
        {
            return Ok(Some((dir, index, e)));
        }
        let (found, _) = self.find(&dir, &h.name)?;
        Ok(found.filter(|(_, e)| !e.is_dir()).map(|(i, e)| (dir, i, e)))
    }

    pub fn close(&mut self, fh: FileHandle, now: Timestamp) -> Result<(), McError> {
        let r = self.close_inner(fh, now, true);
        self.finish(r)
    }

    pub fn flush_file(&mut self, fh: FileHandle, now: Timestamp) -> Result<(), McError> {
        let r = self.close_inner(fh, now, false);
        self.finish(r)
    }

    /// `McClose` / `McFlush`: a handle that wrote gets CLOSED set and the modification time of
    /// the file and of its directory updated (`mcman_close2`).
    fn close_inner(
        &mut self,
        fh: FileHandle,
        now: Timestamp,
        release: bool,
    ) -> Result<(), McError> {
        let h = self.handle(fh)?.clone();
        let idx = fh.0 as usize;
        if release {
            self.handles[idx] = None;
        } else if let Some(h) = &mut self.handles[idx] {
            h.dirty = false;
        }
        if !h.dirty || h.is_dir {
            return Ok(());
        }
        let Some((dir, index, _)) = self.locate(&h)? else {
            if !release {
                self.handles[idx] = None;
            }
            return Err(McError::NoEntry);
        };
        if !release && let Some(h) = &mut self.handles[idx] {
            h.loc = Loc::Slot(dir.clone(), index);
        }
        self.store
            .update(&Loc::Slot(dir.clone(), index), &mut |e| {
                e.mode |= mode::CLOSED;
                e.modified = now;
            })?;
        self.store
            .update(&Loc::Own(dir), &mut |e| e.modified = now)?;
        Ok(())
    }

    pub fn read(&mut self, fh: FileHandle, buf: &mut [u8]) -> Result<usize, McError> {
        let r = self.read_inner(fh, buf);
        self.finish(r)
    }

    fn read_inner(&mut self, fh: FileHandle, buf: &mut [u8]) -> Result<usize, McError> {
        let h = self.handle(fh)?;
        if !h.rd {
            return Err(McError::DeniedPermit);
        }
        let pos = h.pos;
        let r = (|| {
            let (dir, index, e) = self.file_entry(fh)?;
            if pos >= e.length {
                return Ok(0);
            }
            let n = buf.len().min((e.length - pos) as usize);
            self.store.read(&dir, index, pos, &mut buf[..n])?;
            Ok(n)
        })();
        match r {
            Ok(n) => {
                if let Some(h) = &mut self.handles[fh.0 as usize] {
                    h.pos = pos + n as u32;
                }
                Ok(n)
            }
            Err(e) => {
                // MCMAN closes a descriptor whose read failed.
                self.handles[fh.0 as usize] = None;
                Err(e)
            }
        }
    }

    pub fn write(&mut self, fh: FileHandle, data: &[u8], now: Timestamp) -> Result<usize, McError> {
        let r = self.write_inner(fh, data, now);
        self.finish(r)
    }

    /// `mcman_write2`: the entry's CLOSED bit is cleared for the first bytes written, and every
    /// write sets the modification time of the file and its directory.
    fn write_inner(
        &mut self,
        fh: FileHandle,
        data: &[u8],
        now: Timestamp,
    ) -> Result<usize, McError> {
        let h = self.handle(fh)?;
        if !h.wr {
            return Err(McError::DeniedPermit);
        }
        let (pos, dirty) = (h.pos, h.dirty || !data.is_empty());
        let r = (|| {
            let (dir, index, _) = self.file_entry(fh)?;
            let end = u64::from(pos) + data.len() as u64;
            if end > u64::from(u32::MAX) {
                return Err(McError::FullDevice);
            }
            if !data.is_empty() {
                self.store.write(&dir, index, pos, data)?;
            }
            self.store
                .update(&Loc::Slot(dir.clone(), index), &mut |e| {
                    if dirty {
                        e.mode &= !mode::CLOSED;
                    } else {
                        e.mode |= mode::CLOSED;
                    }
                    e.modified = now;
                })?;
            self.store
                .update(&Loc::Own(dir), &mut |e| e.modified = now)?;
            Ok(data.len())
        })();
        match r {
            Ok(n) => {
                if let Some(h) = &mut self.handles[fh.0 as usize] {
                    h.pos = pos + n as u32;
                    h.dirty = dirty;
                }
                Ok(n)
            }
            Err(e) => {
                // MCMAN closes a descriptor whose write failed.
                self.handles[fh.0 as usize] = None;
                Err(e)
            }
        }
    }

    pub fn seek(&mut self, fh: FileHandle, offset: i32, whence: Whence) -> Result<u32, McError> {
        let r = self.seek_inner(fh, offset, whence);
        self.finish(r)
    }

    /// `McSeek`: a negative result becomes 0; a position past the end is kept.
    fn seek_inner(&mut self, fh: FileHandle, offset: i32, whence: Whence) -> Result<u32, McError> {
        let h = self.handle(fh)?.clone();
        let size = if h.is_dir {
            // A directory descriptor's size is its slot count (its own entry's length).
            let d = match &h.loc {
                Loc::Own(d) => d.clone(),
                Loc::Slot(p, i) => self.store.child(p, *i)?,
            };
            self.store.own_entry(&d)?.length
        } else {
            self.file_entry(fh)?.2.length
        };
        let base = match whence {
            Whence::Set => 0,
            Whence::Cur => i64::from(h.pos),
            Whence::End => i64::from(size),
        };
        let p = (base + i64::from(offset)).clamp(0, i64::from(i32::MAX)) as u32;
        if let Some(h) = &mut self.handles[fh.0 as usize] {
            h.pos = p;
        }
        Ok(p)
    }

    pub fn mkdir(&mut self, path: &[u8], now: Timestamp) -> Result<(), McError> {
        let r = self
            .open_inner(path, OpenFlags::CREATE_DIR, now)
            .map(|_| ());
        self.finish(r)
    }

    pub fn delete(&mut self, path: &[u8]) -> Result<(), McError> {
        let r = self.delete_inner(path);
        self.finish(r)
    }

    /// `mcman_delete2`.
    fn delete_inner(&mut self, path: &[u8]) -> Result<(), McError> {
        self.ensure_formatted()?;
        let r = self.resolve(path)?;
        let Target::Found { loc, entry } = r.target else {
            return Err(McError::NoEntry);
        };
        // '.', '..' and the root cannot be deleted (MCMAN refuses the root and names starting
        // "."/".."; deleting the current directory through "." it would allow, leaving the
        // current directory dangling).
        let Loc::Slot(dir, index) = loc.clone() else {
            return Err(McError::NoEntry);
        };
        if entry.is_dir() {
            let child = self.store.child(&dir, index)?;
            let len = self.store.own_entry(&child)?.length;
            for i in 2..len {
                if self.store.slot(&child, i)?.is_some_and(|e| e.exists()) {
                    return Err(McError::NotEmpty);
                }
            }
            if self.handles_on(&Loc::Own(child.clone())).next().is_some() {
                return Err(McError::DeniedPermit);
            }
            // The current directory going away puts the current directory back at the root.
            if self.cwd.iter().any(|c| c.dir == child) {
                self.cwd.clear();
            }
            if self.getdir.as_ref().is_some_and(|g| g.dir == child) {
                self.getdir = None;
            }
        }
        if self.handles_on(&loc).next().is_some() {
            return Err(McError::DeniedPermit);
        }
        self.store.remove(&dir, index)
    }

    pub fn rename(&mut self, path: &[u8], new_name: &[u8]) -> Result<(), McError> {
        let info = DirEntry {
            name: new_name.to_vec(),
            ..DirEntry::default()
        };
        self.set_file_info(path, &info, SetInfoFlags::NAME)
    }

    pub fn set_file_info(
        &mut self,
        path: &[u8],
        info: &DirEntry,
        which: SetInfoFlags,
    ) -> Result<(), McError> {
        let r = self.set_file_info_inner(path, info, which);
        self.finish(r)
    }

    /// `mcman_setinfo2`.
    fn set_file_info_inner(
        &mut self,
        path: &[u8],
        info: &DirEntry,
        which: SetInfoFlags,
    ) -> Result<(), McError> {
        self.ensure_formatted()?;
        let r = self.resolve(path)?;
        let Target::Found { loc, entry } = r.target else {
            return Err(McError::NoEntry);
        };
        let mut new_name = None;
        if which.contains(SetInfoFlags::NAME) {
            let n = &info.name;
            if n.is_empty() || n == b"." || n == b".." || n.contains(&b'/') || n.contains(&0) {
                return Err(McError::NoEntry);
            }
            let Loc::Slot(dir, _) = &loc else {
                return Err(McError::NoEntry);
            };
            let dir = dir.clone();
            if self.find(&dir, n)?.0.is_some() {
                return Err(McError::NoEntry);
            }
            // MCMAN keeps at most 31 bytes of a new name (it terminates the copy at 31).
            let mut n = n.clone();
            n.truncate(MAX_NAME - 1);
            new_name = Some((dir, n));
        }
        let flags = which.0;
        self.store.update(&loc, &mut |e| {
            if flags & SetInfoFlags::ATTR.0 != 0 {
                e.attr = info.attr;
            }
            if flags & SetInfoFlags::MODE.0 != 0 {
                // MCMAN's mask 0xFFFF7FCF: everything but EXISTS, FILE and DIR.
                let m: u16 = 0x7FCF;
                e.mode = (e.mode & !m) | (info.mode & m);
            }
            if flags & SetInfoFlags::MODE_LIMITED.0 != 0 {
                // Mask 0x380F: R|W|X|PROTECTED, POCKETSTATION, PS1, HIDDEN.
                let m: u16 = 0x380F;
                e.mode = (e.mode & !m) | (info.mode & m);
            }
            if flags & SetInfoFlags::CREATED.0 != 0 {
                e.created = info.created;
            }
            if flags & SetInfoFlags::MODIFIED.0 != 0 {
                e.modified = info.modified;
            }
            if let Some((_, n)) = &new_name {
                e.name = n.clone();
            }
        })?;
        if let Some((dir, n)) = new_name {
            self.after_rename(&loc, &dir, &entry.name, &n);
        }
        Ok(())
    }

    /// Fixes handles, the current directory and a listing in progress after the entry `old`
    /// of `dir` (at `loc`) became `new`.
    fn after_rename(&mut self, loc: &Loc<S::Dir>, dir: &S::Dir, old: &[u8], new: &[u8]) {
        let store = &self.store;
        for h in self.handles.iter_mut().flatten() {
            if &h.loc == loc {
                h.name = new.to_vec();
            }
            match &mut h.loc {
                Loc::Slot(d, _) | Loc::Own(d) => store.rename_fixup(d, dir, old, new),
            }
            rename_in_path(store, &mut h.path, dir, old, new);
        }
        rename_in_path(store, &mut self.cwd, dir, old, new);
        if let Some(g) = &mut self.getdir {
            store.rename_fixup(&mut g.dir, dir, old, new);
            if let Some(p) = &mut g.parent {
                store.rename_fixup(p, dir, old, new);
            }
            rename_in_path(store, &mut g.path, dir, old, new);
        }
    }

    pub fn chdir(&mut self, path: &[u8]) -> Result<Vec<u8>, McError> {
        let r = self.chdir_inner(path);
        self.finish(r)
    }

    /// `mcman_chdir`: returns the new current directory as an absolute path ("/" for the root).
    fn chdir_inner(&mut self, path: &[u8]) -> Result<Vec<u8>, McError> {
        self.ensure_formatted()?;
        let r = self.resolve(path)?;
        let (stack, _, _) = self.target_dir(&r)?;
        self.cwd = stack.into_iter().skip(1).collect();
        let mut out = Vec::new();
        for c in &self.cwd {
            out.push(b'/');
            out.extend_from_slice(&c.name);
        }
        if out.is_empty() {
            out.push(b'/');
        }
        Ok(out)
    }

    pub fn getdir(&mut self, arg: &[u8], max: usize) -> Result<Vec<DirEntry>, McError> {
        let r = self.getdir_first(arg).and_then(|()| self.getdir_more(max));
        self.finish(r)
    }

    pub fn getdir_continue(&mut self, max: usize) -> Result<Vec<DirEntry>, McError> {
        let r = self.ensure_formatted().and_then(|()| self.getdir_more(max));
        self.finish(r)
    }

    /// The first call of `mcman_getdir2`: the directory part is resolved and the listing
    /// starts at slot 0 ('.'), or at slot 2 for the root (whose '.' and '..' are not listed).
    fn getdir_first(&mut self, arg: &[u8]) -> Result<(), McError> {
        self.ensure_formatted()?;
        self.getdir = None;
        let (dirpart, pat) = pattern::split_dir_pattern(arg);
        let r = self.resolve(dirpart)?;
        let (stack, dir, parent) = self.target_dir(&r)?;
        let len = self.store.own_entry(&dir)?.length;
        let is_root = dir == self.store.root();
        self.getdir = Some(GetDirState {
            path: stack[1..].to_vec(),
            dir,
            parent,
            next: if is_root { 2 } else { 0 },
            len,
            pattern: pat.to_vec(),
        });
        Ok(())
    }

    fn getdir_more(&mut self, max: usize) -> Result<Vec<DirEntry>, McError> {
        let Some(mut st) = self.getdir.take() else {
            return Err(McError::NoEntry);
        };
        let mut out = Vec::new();
        while out.len() < max && st.next < st.len {
            let i = st.next;
            st.next += 1;
            let Some(e) = self.store.slot(&st.dir, i)? else {
                continue;
            };
            if !e.exists() || !pattern::matches(&e.name, &st.pattern) {
                continue;
            }
            // '.' reports the directory's own entry, '..' its parent's (the root's for a
            // directory in the root), under the dot names.
            let (src, name) = match i {
                0 => (self.store.own_entry(&st.dir)?, b".".to_vec()),
                1 => {
                    let p = st.parent.clone().unwrap_or_else(|| self.store.root());
                    (self.store.own_entry(&p)?, b"..".to_vec())
                }
                _ => (e.clone(), e.name.clone()),
            };
            out.push(DirEntry {
                name,
                mode: src.mode,
                length: if src.is_dir() { 0 } else { src.length },
                created: src.created,
                modified: src.modified,
                attr: src.attr,
            });
        }
        self.getdir = Some(st);
        Ok(out)
    }

    pub fn get_ent_space(&mut self, path: &[u8]) -> Result<u32, McError> {
        let r = self.get_ent_space_inner(path);
        self.finish(r)
    }

    /// `mcman_getentspace`: free slots of a directory, counting the free half of its last
    /// cluster (each cluster holds two entries).
    fn get_ent_space_inner(&mut self, path: &[u8]) -> Result<u32, McError> {
        self.ensure_formatted()?;
        let r = self.resolve(path)?;
        let (_, dir, _) = self.target_dir(&r)?;
        let len = self.store.own_entry(&dir)?.length;
        let mut n = len & 1;
        for i in 0..len {
            if !self.store.slot(&dir, i)?.is_some_and(|e| e.exists()) {
                n += 1;
            }
        }
        Ok(n)
    }

    pub fn format(&mut self, now: Timestamp) -> Result<(), McError> {
        self.drop_state();
        self.cwd.clear();
        let r = self.store.format(now).map_err(McError::Card);
        self.finish(r)
    }

    pub fn unformat(&mut self) -> Result<(), McError> {
        self.drop_state();
        self.cwd.clear();
        let r = self.store.unformat().map_err(McError::Card);
        self.finish(r)
    }

    pub fn flush(&mut self) -> Result<(), CardError> {
        self.store.commit()
    }

    /// See [`crate::Card::session`].
    pub fn session(&self) -> CardSession {
        let handles = self
            .handles
            .iter()
            .enumerate()
            .filter_map(|(i, h)| {
                let h = h.as_ref()?;
                Some(SavedHandle {
                    handle: FileHandle(i as i32),
                    dir: names(&h.path),
                    name: matches!(h.loc, Loc::Slot(..)).then(|| h.name.clone()),
                    is_dir: h.is_dir,
                    pos: h.pos,
                    read: h.rd,
                    write: h.wr,
                    dirty: h.dirty,
                })
            })
            .collect();
        CardSession {
            cwd: names(&self.cwd),
            handles,
            listing: self.getdir.as_ref().map(|g| SavedListing {
                dir: names(&g.path),
                next: g.next,
                len: g.len,
                pattern: g.pattern.clone(),
            }),
        }
    }

    /// See [`crate::Card::restore`]: everything is found first, then set.
    pub fn restore(&mut self, s: &CardSession) -> Result<(), RestoreError> {
        let fail = |what, path: Vec<u8>| move |source| RestoreError { what, path, source };
        let cwd = if s.cwd.is_empty() {
            Vec::new()
        } else {
            let path = absolute(&s.cwd);
            self.find_dir(&path)
                .map_err(fail("the current directory", path))?
                .0
        };
        let mut handles: [Option<Handle<S::Dir>>; MAX_OPEN_FILES] = Default::default();
        for h in &s.handles {
            let path = h.path();
            let what = if h.is_dir {
                "the open directory"
            } else {
                "the open file"
            };
            let slot = usize::try_from(h.handle.0)
                .ok()
                .filter(|&i| i < MAX_OPEN_FILES && handles[i].is_none())
                .ok_or(McError::UpLimitHandle)
                .map_err(fail(what, path.clone()))?;
            handles[slot] = Some(
                self.find_handle(h, &path)
                    .map_err(fail(what, path.clone()))?,
            );
        }
        let getdir = match &s.listing {
            None => None,
            Some(l) => {
                let path = absolute(&l.dir);
                let (path, dir, parent) =
                    self.find_dir(&path).map_err(fail("the listing of", path))?;
                Some(GetDirState {
                    path,
                    dir,
                    parent,
                    next: l.next,
                    len: l.len,
                    pattern: l.pattern.clone(),
                })
            }
        };
        self.cwd = cwd;
        self.handles = handles;
        self.getdir = getdir;
        Ok(())
    }

    /// The directory an absolute path names: the path to it (root left out), it, its parent.
    fn find_dir(&mut self, path: &[u8]) -> Result<DirTarget<S::Dir>, McError> {
        self.ensure_formatted()?;
        let r = self.resolve(path)?;
        let (stack, dir, parent) = self.target_dir(&r)?;
        Ok((stack[1..].to_vec(), dir, parent))
    }

    /// A saved handle's entry found again at `path`, of the same kind.
    fn find_handle(&mut self, h: &SavedHandle, path: &[u8]) -> Result<Handle<S::Dir>, McError> {
        self.ensure_formatted()?;
        let r = self.resolve(path)?;
        let Target::Found { loc, entry } = r.target else {
            return Err(McError::NoEntry);
        };
        if entry.is_dir() != h.is_dir || matches!(loc, Loc::Own(_)) != h.name.is_none() {
            return Err(McError::NoEntry);
        }
        Ok(Handle {
            loc,
            name: entry.name,
            pos: h.pos,
            rd: h.read,
            wr: h.write,
            is_dir: h.is_dir,
            dirty: h.dirty,
            path: r.stack[1..].to_vec(),
        })
    }
}
