//! The PCSX2 `.ps2` image: the raw card, pages of 512 data bytes each followed by 16 spare bytes
//! (8,650,752 bytes for an 8 MiB card), or the same pages without spare area (8,388,608 bytes;
//! PCSX2 takes those under the `.bin`/`.mc2` names), holding the PS2 memory card filesystem.
//!
//! Contract:
//! * Opening reads the whole image and checks all of it that the filesystem uses (superblock,
//!   indirect FAT and FAT, every directory and file reachable from the root, and the ECC of
//!   each of those pages) before anything else happens; any contradiction is one [`CardError`]
//!   naming the file and the place, and the file is not written.
//! * Every page this crate changes is written back with its ECC (4 × 3 bytes, then 4 zero
//!   bytes) and the file synced before the operation returns; pages it does not change keep
//!   their bytes exactly.
//! * After an error that finds the image corrupt, the image is neither read nor written again.
//!
//! Layout facts (8 MiB card; mymc's "ps2mcfs" document, PCSX2/myMCpp `docs/memcard.md`, and
//! ps2sdk `iop/memorycard/mcman`): 16384 pages of 512 bytes; a cluster is 2 pages (1024 bytes),
//! an erase block 16 pages (8 clusters). Block 0 holds the superblock (page 0); the indirect
//! FAT cluster is cluster 8, the FAT clusters 9..=40, allocatable clusters start at 41
//! (`alloc_offset`), `alloc_end` = 8135 of them lie before the backup blocks 1022 (backup 2)
//! and 1023 (backup 1). Cluster numbers in the FAT and in directory entries are relative to
//! `alloc_offset`.

mod check;
mod format;
mod store;

use crate::ecc;
use crate::engine::{Entry, Loc, Store};
use crate::error::{CardError, McError};
use crate::types::{Timestamp, mode};
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Data bytes of a page.
pub const PAGE_DATA: usize = 512;
/// Spare bytes following each page in a `.ps2` image.
pub const PAGE_SPARE: usize = 16;
/// Pages of an 8 MiB card.
pub const PAGES_8MB: u32 = 16384;
/// Size of an 8 MiB image with spare area: 16384 × 528.
pub const IMAGE_8MB: u64 = 8_650_752;
/// Size of an 8 MiB image without spare area: 16384 × 512.
pub const IMAGE_8MB_NO_SPARE: u64 = 8_388_608;

/// Bytes of a cluster (MCMAN's `MCMAN_CLUSTERSIZE`).
const CLUSTER: usize = 1024;
const PAGES_PER_CLUSTER: u32 = 2;
const PAGES_PER_BLOCK: u32 = 16;
const CLUSTERS_PER_BLOCK: u32 = PAGES_PER_BLOCK / PAGES_PER_CLUSTER;
/// FAT entries (u32) per cluster.
const FAT_PER_CLUSTER: u32 = 256;
/// Directory entries (512 bytes each, one page) per cluster.
const ENTRIES_PER_CLUSTER: u32 = 2;

/// FAT entry: bit 31 set = allocated; the low 31 bits link to the next cluster.
const FAT_USED: u32 = 0x8000_0000;
const FAT_MASK: u32 = 0x7FFF_FFFF;
/// FAT entry of the last cluster of a chain (allocated, link all ones). Also the value of an
/// empty file's first cluster in its directory entry.
const FAT_END: u32 = 0xFFFF_FFFF;
/// FAT entry of a free cluster after format (not allocated, link all ones).
const FAT_FREE: u32 = 0x7FFF_FFFF;

/// Superblock magic (28 bytes, ps2sdk `SUPERBLOCK_MAGIC`).
const MAGIC: &[u8; 28] = b"Sony PS2 Memory Card Format ";
/// Version written by format (`SUPERBLOCK_VERSION`, "1.2" = full bad-block-list support).
const VERSION: &[u8] = b"1.2.0.0";
/// Card flags written by format: what PCSX2's card answers to the "get specs" command
/// (`MemoryCardProtocol::GetSpecs` sends 0x2B where MCMAN reads the flags byte) and what
/// mymc writes: CF_USE_ECC (0x01) | 0x02 | CF_BAD_BLOCK (0x08) | 0x20. mymc's document lists
/// 0x52 as seen on real cards.
const CARD_FLAGS: u8 = 0x2B;
/// CF_ERASE_ZEROES: erased flash reads as zeros on such cards.
const CF_ERASE_ZEROES: u8 = 0x10;
/// The first indirect FAT cluster of a format: the cluster after block 0 (mymc:
/// `PS2MC_INDIRECT_FAT_OFFSET` 0x2000 bytes / 1024).
const FIRST_IFC: u32 = 8;

// Superblock field offsets (mymc's document; ps2sdk `MCDevInfo`).
const SB_VERSION: usize = 0x1C;
const SB_PAGE_LEN: usize = 0x28;
const SB_PAGES_PER_CLUSTER: usize = 0x2A;
const SB_PAGES_PER_BLOCK: usize = 0x2C;
const SB_FF00: usize = 0x2E;
const SB_CLUSTERS: usize = 0x30;
const SB_ALLOC_OFFSET: usize = 0x34;
const SB_ALLOC_END: usize = 0x38;
const SB_ROOTDIR: usize = 0x3C;
const SB_BACKUP1: usize = 0x40;
const SB_BACKUP2: usize = 0x44;
const SB_IFC_LIST: usize = 0x50;
const SB_BAD_BLOCKS: usize = 0xD0;
const SB_CARD_TYPE: usize = 0x150;
const SB_CARD_FLAGS: usize = 0x151;

// Directory entry field offsets (ps2sdk `McFsEntry`, 512 bytes).
const DE_MODE: usize = 0;
const DE_LENGTH: usize = 4;
const DE_CREATED: usize = 8;
const DE_CLUSTER: usize = 16;
const DE_DIR_ENTRY: usize = 20;
const DE_MODIFIED: usize = 24;
const DE_ATTR: usize = 32;
const DE_NAME: usize = 64;
const NAME_LEN: usize = 32;

fn rd32(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes(b[o..o + 4].try_into().expect("4 bytes"))
}
fn rd16(b: &[u8], o: usize) -> u16 {
    u16::from_le_bytes(b[o..o + 2].try_into().expect("2 bytes"))
}

/// Geometry of an image file from its size: (pages, has spare area).
pub fn geometry_of_size(size: u64) -> Option<(u32, bool)> {
    [PAGES_8MB, 2 * PAGES_8MB, 4 * PAGES_8MB, 8 * PAGES_8MB]
        .into_iter()
        .find_map(|pages| {
            let p = u64::from(pages);
            if size == p * (PAGE_DATA + PAGE_SPARE) as u64 {
                Some((pages, true))
            } else if size == p * PAGE_DATA as u64 {
                Some((pages, false))
            } else {
                None
            }
        })
}

/// The superblock's fields this crate uses, checked.
#[derive(Debug, Clone)]
struct Sb {
    clusters: u32,
    alloc_offset: u32,
    alloc_end: u32,
    root: u32,
    backup1: u32,
    backup2: u32,
    ifc: [u32; 32],
    card_flags: u8,
    /// FAT indices below this may be allocated: MCMAN's `max_allocatable_clusters`, at most
    /// `alloc_end`.
    limit: u32,
}

/// MCMAN's `max_allocatable_clusters` (`mcman_setdevinfos`): counting from `alloc_offset`, the
/// clusters until (clusters / 1000) × 1000 + 1 good ones are seen, skipping bad blocks. For an
/// 8 MiB card without bad blocks: 8001, so a fresh card has 8000 free clusters.
fn max_allocatable(clusters: u32, alloc_offset: u32, bad_blocks: &[u32]) -> u32 {
    let wanted = clusters / 1000 * 1000 + 1;
    let (mut count, mut cur, mut good) = (0u32, alloc_offset, false);
    while count < wanted && cur < clusters {
        if cur % CLUSTERS_PER_BLOCK == 0 || cur == alloc_offset {
            good = !bad_blocks.contains(&(cur / CLUSTERS_PER_BLOCK));
        }
        if good {
            count += 1;
        }
        cur += 1;
    }
    cur - alloc_offset
}

/// A directory of an image: its first cluster and where its own entry is (for the root, its
/// '.' entry).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ImgDir {
    first: u32,
    own_dir: u32,
    own_index: u32,
}

/// A directory entry as the card stores it.
#[derive(Debug, Clone)]
struct RawEntry {
    mode: u16,
    length: u32,
    created: Timestamp,
    cluster: u32,
    dir_entry: u32,
    modified: Timestamp,
    attr: u32,
    name: Vec<u8>,
}

impl RawEntry {
    fn parse(b: &[u8]) -> RawEntry {
        let n = &b[DE_NAME..DE_NAME + NAME_LEN];
        let end = n.iter().position(|&c| c == 0).unwrap_or(NAME_LEN);
        RawEntry {
            mode: rd16(b, DE_MODE),
            length: rd32(b, DE_LENGTH),
            created: Timestamp::from_bytes(b[DE_CREATED..DE_CREATED + 8].try_into().expect("8")),
            cluster: rd32(b, DE_CLUSTER),
            dir_entry: rd32(b, DE_DIR_ENTRY),
            modified: Timestamp::from_bytes(b[DE_MODIFIED..DE_MODIFIED + 8].try_into().expect("8")),
            attr: rd32(b, DE_ATTR),
            name: n[..end].to_vec(),
        }
    }

    /// A whole 512-byte entry as MCMAN builds a new one: zeros but for these fields.
    fn to_page(&self) -> [u8; PAGE_DATA] {
        let mut b = [0u8; PAGE_DATA];
        b[DE_MODE..DE_MODE + 2].copy_from_slice(&self.mode.to_le_bytes());
        b[DE_LENGTH..DE_LENGTH + 4].copy_from_slice(&self.length.to_le_bytes());
        b[DE_CREATED..DE_CREATED + 8].copy_from_slice(&self.created.to_bytes());
        b[DE_CLUSTER..DE_CLUSTER + 4].copy_from_slice(&self.cluster.to_le_bytes());
        b[DE_DIR_ENTRY..DE_DIR_ENTRY + 4].copy_from_slice(&self.dir_entry.to_le_bytes());
        b[DE_MODIFIED..DE_MODIFIED + 8].copy_from_slice(&self.modified.to_bytes());
        b[DE_ATTR..DE_ATTR + 4].copy_from_slice(&self.attr.to_le_bytes());
        let n = self.name.len().min(NAME_LEN);
        b[DE_NAME..DE_NAME + n].copy_from_slice(&self.name[..n]);
        b
    }

    fn entry(&self) -> Entry {
        Entry {
            mode: self.mode,
            length: self.length,
            created: self.created,
            modified: self.modified,
            attr: self.attr,
            name: self.name.clone(),
        }
    }

    fn is_dir(&self) -> bool {
        self.mode & mode::DIR != 0
    }
}

enum Backing {
    File { file: File, writable: bool },
    Memory,
}

/// How a page is to be written at commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dirty {
    Clean,
    /// Data changed: compute the spare area (ECC) from it.
    Program,
    /// Data and spare set as they are (an erased page).
    Raw,
}

/// A `.ps2` image held in memory and written through to its file.
pub(crate) struct ImageStore {
    path: PathBuf,
    backing: Backing,
    raw: Vec<u8>,
    spare: bool,
    pages: u32,
    sb: Option<Sb>,
    verified: Vec<bool>,
    dirty: Vec<Dirty>,
    dirty_list: Vec<u32>,
    full_rewrite: bool,
    /// No free FAT entry lies below this (MCMAN's `unknown2`).
    hint: u32,
    poisoned: bool,
}

impl ImageStore {
    // ---- opening -------------------------------------------------------------------------

    /// Opens an image file, checks it whole, then keeps it open for writing (or read-only if
    /// the host refuses writing: changes are then refused with `sceMcResDeniedPermit`).
    pub fn open_file(path: &Path) -> Result<ImageStore, CardError> {
        let mut f = File::open(path).map_err(|e| CardError::io(path, "open", e))?;
        let size = f
            .metadata()
            .map_err(|e| CardError::io(path, "stat", e))?
            .len();
        let (pages, spare) = geometry_of_size(size).ok_or_else(|| CardError::BadSize {
            path: path.to_path_buf(),
            size,
        })?;
        let mut raw = Vec::with_capacity(size as usize);
        f.read_to_end(&mut raw)
            .map_err(|e| CardError::io(path, "read", e))?;
        if raw.len() as u64 != size {
            return Err(CardError::BadSize {
                path: path.to_path_buf(),
                size: raw.len() as u64,
            });
        }
        let mut st = ImageStore::load(path.to_path_buf(), raw, pages, spare, Backing::Memory)?;
        st.backing = match OpenOptions::new().read(true).write(true).open(path) {
            Ok(file) => Backing::File {
                file,
                writable: true,
            },
            Err(e) if e.kind() == io::ErrorKind::PermissionDenied => Backing::File {
                file: f,
                writable: false,
            },
            Err(e) => return Err(CardError::io(path, "open for writing", e)),
        };
        // A recovery from the backup blocks is put on the card as MCMAN would.
        st.commit()?;
        Ok(st)
    }

    /// Checks an image held in memory; writes stay in memory (for tools and fuzzing).
    pub fn open_bytes(name: &Path, raw: Vec<u8>) -> Result<ImageStore, CardError> {
        let (pages, spare) =
            geometry_of_size(raw.len() as u64).ok_or_else(|| CardError::BadSize {
                path: name.to_path_buf(),
                size: raw.len() as u64,
            })?;
        ImageStore::load(name.to_path_buf(), raw, pages, spare, Backing::Memory)
    }

    /// Creates a new, formatted image file (written to a temporary name, synced, renamed).
    pub fn create_file(
        path: &Path,
        pages: u32,
        spare: bool,
        now: Timestamp,
    ) -> Result<ImageStore, CardError> {
        let mut st = ImageStore::blank(path.to_path_buf(), pages, spare, Backing::Memory);
        st.build_format(now);
        st.compute_spares();
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(".piney-tmp");
        let tmp = PathBuf::from(tmp);
        {
            let mut f = File::create(&tmp).map_err(|e| CardError::io(&tmp, "create", e))?;
            f.write_all(&st.raw)
                .map_err(|e| CardError::io(&tmp, "write", e))?;
            f.sync_all().map_err(|e| CardError::io(&tmp, "sync", e))?;
        }
        std::fs::rename(&tmp, path).map_err(|e| CardError::io(path, "rename", e))?;
        crate::sync_parent(path)?;
        st.clear_dirty();
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(|e| CardError::io(path, "open", e))?;
        st.backing = Backing::File {
            file,
            writable: true,
        };
        Ok(st)
    }

    fn blank(path: PathBuf, pages: u32, spare: bool, backing: Backing) -> ImageStore {
        let raw_page = if spare {
            PAGE_DATA + PAGE_SPARE
        } else {
            PAGE_DATA
        };
        ImageStore::with_raw(
            path,
            vec![0xFF; pages as usize * raw_page],
            pages,
            spare,
            backing,
        )
    }

    fn with_raw(
        path: PathBuf,
        raw: Vec<u8>,
        pages: u32,
        spare: bool,
        backing: Backing,
    ) -> ImageStore {
        ImageStore {
            path,
            backing,
            raw,
            spare,
            pages,
            sb: None,
            verified: vec![false; pages as usize],
            dirty: vec![Dirty::Clean; pages as usize],
            dirty_list: Vec::new(),
            full_rewrite: false,
            hint: 0,
            poisoned: false,
        }
    }

    fn load(
        path: PathBuf,
        raw: Vec<u8>,
        pages: u32,
        spare: bool,
        backing: Backing,
    ) -> Result<ImageStore, CardError> {
        let mut st = ImageStore::with_raw(path, raw, pages, spare, backing);
        let p0 = &st.raw[..PAGE_DATA];
        // An erased page 0 is an unformatted card (what PCSX2 creates: all 0xFF).
        if p0.iter().all(|&b| b == 0xFF) || p0.iter().all(|&b| b == 0) {
            return Ok(st);
        }
        if &p0[..MAGIC.len()] != MAGIC {
            return Err(CardError::BadMagic { path: st.path });
        }
        st.verify(0, &|| "superblock".into())?;
        let sb = st.parse_superblock()?;
        st.sb = Some(sb);
        st.check_fat_pages()?;
        st.recover_backup()?;
        st.check_tree()?;
        Ok(st)
    }

    fn corrupt(&self, what: String) -> CardError {
        CardError::Corrupt {
            path: self.path.clone(),
            what,
        }
    }

    fn unsupported(&self, what: String) -> CardError {
        CardError::Unsupported {
            path: self.path.clone(),
            what,
        }
    }

    // ---- pages ---------------------------------------------------------------------------

    fn raw_page_len(&self) -> usize {
        if self.spare {
            PAGE_DATA + PAGE_SPARE
        } else {
            PAGE_DATA
        }
    }

    fn off(&self, p: u32) -> usize {
        p as usize * self.raw_page_len()
    }

    fn page_bytes(&self, p: u32) -> &[u8] {
        let o = self.off(p);
        &self.raw[o..o + PAGE_DATA]
    }

    fn poisoned_err(&self) -> CardError {
        CardError::Poisoned {
            path: self.path.clone(),
        }
    }

    /// Whether a page passes its ECC, without recording anything.
    fn ecc_ok(&self, p: u32) -> bool {
        if !self.spare || self.verified[p as usize] {
            return true;
        }
        let o = self.off(p);
        let data: &[u8; PAGE_DATA] = self.raw[o..o + PAGE_DATA].try_into().expect("page");
        let spare: &[u8; PAGE_SPARE] = self.raw[o + PAGE_DATA..o + PAGE_DATA + PAGE_SPARE]
            .try_into()
            .expect("spare");
        ecc::spare_is_erased(spare) || ecc::first_bad_chunk(data, spare).is_none()
    }

    /// Checks a page's ECC once (pages without spare area, pages MCMAN would take for erased,
    /// and pages written here pass).
    fn verify(&mut self, p: u32, what: &dyn Fn() -> String) -> Result<(), CardError> {
        if self.poisoned {
            return Err(self.poisoned_err());
        }
        if p >= self.pages {
            self.poisoned = true;
            return Err(self.corrupt(format!("page {p} is past the card's {}", self.pages)));
        }
        if !self.spare || self.verified[p as usize] {
            return Ok(());
        }
        let o = self.off(p);
        let data: &[u8; PAGE_DATA] = self.raw[o..o + PAGE_DATA].try_into().expect("page");
        let spare: &[u8; PAGE_SPARE] = self.raw[o + PAGE_DATA..o + PAGE_DATA + PAGE_SPARE]
            .try_into()
            .expect("spare");
        if !ecc::spare_is_erased(spare)
            && let Some(chunk) = ecc::first_bad_chunk(data, spare)
        {
            self.poisoned = true;
            let mut what = what();
            if what.is_empty() {
                what = format!("cluster {}", p / PAGES_PER_CLUSTER);
            }
            return Err(CardError::Ecc {
                path: self.path.clone(),
                page: p,
                chunk: chunk as u32,
                what,
            });
        }
        self.verified[p as usize] = true;
        Ok(())
    }

    /// Reads a page, checked.
    fn page(&mut self, p: u32) -> Result<&[u8], CardError> {
        self.verify(p, &String::new)?;
        Ok(self.page_bytes(p))
    }

    /// Records how a changed page is to be written: the last change decides (an erase after
    /// a program writes the erased page; a program after an erase computes the ECC).
    fn mark(&mut self, p: u32, how: Dirty) {
        if self.dirty[p as usize] == Dirty::Clean {
            self.dirty_list.push(p);
        }
        self.dirty[p as usize] = how;
        self.verified[p as usize] = true;
    }

    /// Changes bytes of a page's data; the page is rewritten with its ECC only if they differ.
    fn patch(&mut self, p: u32, at: usize, bytes: &[u8]) {
        let o = self.off(p) + at;
        if self.raw[o..o + bytes.len()] != *bytes {
            self.raw[o..o + bytes.len()].copy_from_slice(bytes);
            self.mark(p, Dirty::Program);
        }
    }

    fn put_page(&mut self, p: u32, data: &[u8; PAGE_DATA]) {
        self.patch(p, 0, data);
        // A page written whole is programmed even when its data did not change (it may have
        // been an erased page).
        if self.spare {
            let o = self.off(p) + PAGE_DATA;
            if ecc::spare_is_erased(self.raw[o..o + PAGE_SPARE].try_into().expect("spare")) {
                self.mark(p, Dirty::Program);
            }
        }
    }

    fn erase_block(&mut self, block: u32) {
        let len = self.raw_page_len();
        for i in 0..PAGES_PER_BLOCK {
            let p = block * PAGES_PER_BLOCK + i;
            let o = self.off(p);
            if self.raw[o..o + len].iter().any(|&b| b != 0xFF) {
                self.raw[o..o + len].fill(0xFF);
                self.mark(p, Dirty::Raw);
            }
        }
    }

    /// Page `half` (0 or 1) of allocatable cluster `c` (relative to `alloc_offset`).
    fn cluster_page(&self, c: u32, half: u32) -> u32 {
        let sb = self.sb.as_ref().expect("formatted");
        (sb.alloc_offset + c) * PAGES_PER_CLUSTER + half
    }

    fn sb(&self) -> Result<&Sb, CardError> {
        if self.poisoned {
            return Err(self.poisoned_err());
        }
        self.sb
            .as_ref()
            .ok_or_else(|| self.corrupt("the card is not formatted".into()))
    }

    // ---- FAT -----------------------------------------------------------------------------

    /// The card cluster holding FAT cluster `fc`, through the indirect FAT.
    fn fat_cluster(&mut self, fc: u32) -> Result<u32, CardError> {
        let sb = self.sb()?.clone();
        let ifc = sb.ifc[(fc / FAT_PER_CLUSTER) as usize];
        let k = fc % FAT_PER_CLUSTER;
        let p = ifc * PAGES_PER_CLUSTER + k / 128;
        let c = rd32(self.page(p)?, ((k % 128) * 4) as usize);
        if c == 0 || c >= sb.clusters {
            self.poisoned = true;
            return Err(self.corrupt(format!(
                "indirect FAT entry {fc} names cluster {c}, outside 1..{}",
                sb.clusters
            )));
        }
        Ok(c)
    }

    fn fat_loc(&mut self, i: u32) -> Result<(u32, usize), CardError> {
        let end = self.sb()?.alloc_end;
        if i >= end {
            self.poisoned = true;
            return Err(self.corrupt(format!("FAT index {i} is past the FAT's {end} entries")));
        }
        let c = self.fat_cluster(i / FAT_PER_CLUSTER)?;
        let k = i % FAT_PER_CLUSTER;
        Ok((c * PAGES_PER_CLUSTER + k / 128, ((k % 128) * 4) as usize))
    }

    fn fat_get(&mut self, i: u32) -> Result<u32, CardError> {
        let (p, o) = self.fat_loc(i)?;
        Ok(rd32(self.page(p)?, o))
    }

    fn fat_set(&mut self, i: u32, v: u32) -> Result<(), CardError> {
        let (p, o) = self.fat_loc(i)?;
        self.page(p)?;
        self.patch(p, o, &v.to_le_bytes());
        Ok(())
    }

    /// A chain at run time (already checked at open; a contradiction now is corruption).
    fn chain(&mut self, first: u32) -> Result<Vec<u32>, CardError> {
        let end = self.sb()?.alloc_end;
        let mut seen = vec![false; end as usize];
        let mut chain = Vec::new();
        let mut c = first;
        loop {
            if c >= end || seen[c as usize] {
                self.poisoned = true;
                return Err(self.corrupt(format!(
                    "FAT chain from cluster {first} is broken at cluster {c}"
                )));
            }
            seen[c as usize] = true;
            chain.push(c);
            let e = self.fat_get(c)?;
            if e == FAT_END {
                return Ok(chain);
            }
            if e & FAT_USED == 0 {
                self.poisoned = true;
                return Err(self.corrupt(format!(
                    "FAT chain from cluster {first} runs into free cluster {c}"
                )));
            }
            c = e & FAT_MASK;
        }
    }

    fn count_free(&mut self) -> Result<u32, CardError> {
        let limit = self.sb()?.limit;
        let mut n = 0;
        for i in 0..limit {
            if self.fat_get(i)? & FAT_USED == 0 {
                n += 1;
            }
        }
        Ok(n)
    }

    /// MCMAN's `mcman_findfree2` with reserve: the lowest free cluster becomes a chain end.
    fn alloc(&mut self) -> Result<u32, McError> {
        let limit = self.sb()?.limit;
        for i in self.hint..limit {
            if self.fat_get(i)? & FAT_USED == 0 {
                self.fat_set(i, FAT_END)?;
                self.hint = i + 1;
                return Ok(i);
            }
        }
        Err(McError::FullDevice)
    }

    /// Writes zeros over both pages of a cluster.
    fn zero_cluster(&mut self, c: u32) {
        for half in 0..PAGES_PER_CLUSTER {
            let p = self.cluster_page(c, half);
            self.put_page(p, &[0u8; PAGE_DATA]);
        }
    }

    // ---- directory entries ---------------------------------------------------------------

    fn entry_page(&mut self, dir_first: u32, index: u32) -> Result<u32, CardError> {
        let chain = self.chain(dir_first)?;
        let Some(&c) = chain.get((index / ENTRIES_PER_CLUSTER) as usize) else {
            self.poisoned = true;
            return Err(self.corrupt(format!(
                "directory at cluster {dir_first} has no cluster for entry {index}"
            )));
        };
        Ok(self.cluster_page(c, index % ENTRIES_PER_CLUSTER))
    }

    fn raw_entry(&mut self, dir_first: u32, index: u32) -> Result<(u32, RawEntry), CardError> {
        let p = self.entry_page(dir_first, index)?;
        let e = RawEntry::parse(self.page(p)?);
        Ok((p, e))
    }

    fn loc_page(&mut self, loc: &Loc<ImgDir>) -> Result<u32, CardError> {
        match loc {
            Loc::Own(d) => self.entry_page(d.own_dir, d.own_index),
            Loc::Slot(d, i) => self.entry_page(d.first, *i),
        }
    }

    /// The chain of a file or directory entry (none for an empty file).
    fn entry_chain(&mut self, e: &RawEntry) -> Result<Vec<u32>, CardError> {
        if e.is_dir() || e.length > 0 {
            self.chain(e.cluster)
        } else {
            Ok(Vec::new())
        }
    }

    fn writable(&self) -> Result<(), McError> {
        match self.backing {
            Backing::File {
                writable: false, ..
            } => Err(McError::DeniedPermit),
            _ => Ok(()),
        }
    }

    /// Whether pages carry the spare area.
    pub fn has_spare(&self) -> bool {
        self.spare
    }

    /// The image bytes as they are in memory (with the spare areas of changed pages computed).
    pub fn bytes(&mut self) -> &[u8] {
        self.compute_spares();
        &self.raw
    }

    fn write_out(&mut self) -> Result<(), CardError> {
        let Backing::File {
            file,
            writable: true,
        } = &mut self.backing
        else {
            return Ok(());
        };
        let len = if self.spare {
            PAGE_DATA + PAGE_SPARE
        } else {
            PAGE_DATA
        };
        let path = &self.path;
        let io = |op, e| CardError::io(path, op, e);
        if self.full_rewrite {
            file.seek(SeekFrom::Start(0)).map_err(|e| io("seek", e))?;
            file.write_all(&self.raw).map_err(|e| io("write", e))?;
        } else {
            self.dirty_list.sort_unstable();
            let mut i = 0;
            while i < self.dirty_list.len() {
                let start = self.dirty_list[i];
                let mut end = start;
                while i + 1 < self.dirty_list.len() && self.dirty_list[i + 1] == end + 1 {
                    i += 1;
                    end += 1;
                }
                i += 1;
                let (a, b) = (start as usize * len, (end as usize + 1) * len);
                file.seek(SeekFrom::Start(a as u64))
                    .map_err(|e| io("seek", e))?;
                file.write_all(&self.raw[a..b])
                    .map_err(|e| io("write", e))?;
            }
        }
        file.sync_all().map_err(|e| io("sync", e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(geometry_of_size(IMAGE_8MB), Some((16384, true)));
        assert_eq!(geometry_of_size(IMAGE_8MB_NO_SPARE), Some((16384, false)));
        assert_eq!(geometry_of_size(4 * IMAGE_8MB), Some((65536, true)));
        assert_eq!(geometry_of_size(IMAGE_8MB - 1), None);
    }

    #[test]
    fn allocatable_limit() {
        // 8 MiB card, clusters from 41: 8001 good clusters are counted.
        assert_eq!(max_allocatable(8192, 41, &[]), 8001);
        // A bad block (block 10 = clusters 80..88) is skipped over: 8 more clusters.
        assert_eq!(max_allocatable(8192, 41, &[10]), 8009);
    }
}
