//! ISO 9660 over any [`SectorSource`], as the PS2 reads it.
//!
//! Our own small reader rather than a crate: the PS2 needs things general ISO crates do not do
//! together (a DVD-9's second volume at the layer break with LBAs relative to it, files over
//! 4 GiB as multiple extents, `cdrom0:\NAME;1` paths matched case-insensitively), it must read
//! through our buffered sector sources of images of any format, and it must treat every byte
//! of the image as untrusted. The subset needed is small: volume descriptors and directory
//! records (ECMA-119 sections 8.4 and 9.1); path tables, Joliet and Rock Ridge are not used
//! (the CDVD looks files up by their ISO 9660 names).
//!
//! Facts used, at their point of use below: the volume descriptors start at sector 16, each
//! `type, "CD001", version`; the primary (type 1) holds the volume space size (a both-endian
//! u32 at byte 80), the logical block size (both-endian u16 at 128, 2048 here) and the root
//! directory's record (at 156). Directory records never straddle a sector: a zero length byte
//! means the rest of the sector is padding.

use std::path::Path;

use crate::sector::{SECTOR_SIZE, le16, le32};
use crate::system_cnf::SystemCnf;
use crate::{DiscError, SectorSource};

/// Directory record flag: the record is a directory.
const FLAG_DIRECTORY: u8 = 0x02;
/// Directory record flag: the file goes on in the next record (a file of several extents).
const FLAG_MULTI_EXTENT: u8 = 0x80;
/// The largest directory accepted (a bound on reading one; real ones are a few sectors).
const MAX_DIRECTORY_BYTES: u64 = 16 << 20;
/// The largest SYSTEM.CNF read (real ones are under 100 bytes).
const MAX_SYSTEM_CNF_BYTES: u64 = 64 << 10;
/// Volume descriptors looked at after sector 16 before giving up on a terminator.
const MAX_DESCRIPTORS: u64 = 64;

/// One extent of a file: consecutive sectors from `lba` (an image LBA) holding `size` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Extent {
    pub lba: u64,
    pub size: u64,
}

/// A file or directory on the disc.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEntry {
    /// The name as recorded, without the `;1` version and a bare trailing dot.
    pub name: String,
    /// The image LBA of the first extent: on layer 1 of a DVD-9, [`Iso9660::layer1_base`] plus
    /// the LBA recorded on the disc, as the CDVD reports it (`sceCdLayerSearchFile`).
    pub lba: u64,
    /// The size in bytes: all extents together.
    pub size: u64,
    /// The file's extents in order (one, unless the file is over 4 GiB or written so).
    pub extents: Vec<Extent>,
    /// A directory (flag 0x02 of its record).
    pub is_dir: bool,
    /// 0, or 1 for a file on a DVD-9's second layer.
    pub layer: u8,
    /// Recorded interleaved (file unit size or gap set), which this reader does not read.
    pub interleaved: bool,
}

/// One ISO 9660 volume: the whole disc, or one layer of a DVD-9.
#[derive(Debug, Clone)]
struct Volume {
    /// The image LBA of the volume's sector 0 (its LBAs are relative to it).
    base: u64,
    space: u64,
    id: String,
    root: FileEntry,
}

/// What SYSTEM.CNF says and the boot file it names.
#[derive(Debug, Clone)]
pub struct BootInfo {
    pub cnf: SystemCnf,
    /// BOOT2's value, e.g. `cdrom0:\SLUS_202.67;1`.
    pub boot_path: String,
    /// The boot ELF on the disc.
    pub boot_file: FileEntry,
    /// `SLUS-20267` for a boot file named `SLUS_202.67`; None for other names.
    pub serial: Option<String>,
}

/// The ISO 9660 file system of a disc (both layers of a DVD-9).
pub struct Iso9660<S> {
    source: S,
    volumes: Vec<Volume>,
    sector: Box<[u8; SECTOR_SIZE]>,
}

impl<S: SectorSource> std::fmt::Debug for Iso9660<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Iso9660")
            .field("image", &self.source.path())
            .field("volume_id", &self.volumes[0].id)
            .field("volume_space_size", &self.volumes[0].space)
            .field("layer1_start", &self.layer1_start())
            .field("layer1_base", &self.layer1_base())
            .finish()
    }
}

/// Normalises a recorded or looked-up name: no `;version`, no bare trailing dot, upper case.
fn normalise(name: &str) -> String {
    let name = match name.rfind(';') {
        Some(at) => &name[..at],
        None => name,
    };
    let name = name.strip_suffix('.').unwrap_or(name);
    name.to_ascii_uppercase()
}

/// The components of a disc path: `cdrom0:\DIR\FILE.EXT;1`, `/dir/file`, `DIR/FILE`...
fn components(path: &str) -> Vec<&str> {
    let mut rest = path.trim();
    for prefix in ["cdrom0:", "cdrom:"] {
        if let Some(head) = rest.get(..prefix.len())
            && head.eq_ignore_ascii_case(prefix)
        {
            rest = &rest[prefix.len()..];
            break;
        }
    }
    rest.split(['\\', '/'])
        .filter(|c| !c.is_empty() && *c != ".")
        .collect()
}

/// Parses the directory record at the start of `rec` (already bounds-checked to its length).
fn parse_record(rec: &[u8]) -> Option<(Vec<u8>, u64, u64, u8, bool)> {
    if rec.len() < 34 {
        return None;
    }
    // Byte 1: extended attribute record length in sectors, which come before the data.
    let ear = rec[1] as u64;
    // Bytes 2 and 10: both-endian extent LBA and data length (the little-endian halves).
    let extent = le32(rec, 2) as u64 + ear;
    let size = le32(rec, 10) as u64;
    let flags = rec[25];
    // Bytes 26 and 27: file unit size and interleave gap (both 0 unless interleaved).
    let interleaved = rec[26] != 0 || rec[27] != 0;
    let name_len = rec[32] as usize;
    let name = rec.get(33..33 + name_len)?.to_vec();
    Some((name, extent, size, flags, interleaved))
}

impl<S: SectorSource> Iso9660<S> {
    /// Reads the volume descriptors (and a DVD-9's second layer's).
    pub fn new(mut source: S) -> Result<Self, DiscError> {
        let mut sector = Box::new([0u8; SECTOR_SIZE]);
        let count = source.sector_count();
        if count < 17 {
            return Err(DiscError::truncated(
                source.path(),
                format!("{count} sectors: an ISO 9660 volume needs at least 17"),
            ));
        }
        let first = read_volume(&mut source, &mut sector, 0, 0)?;
        if first.space > count {
            return Err(DiscError::truncated(
                source.path(),
                format!(
                    "the volume descriptor says {} sectors, the image has {count}",
                    first.space
                ),
            ));
        }
        let mut volumes = vec![first];
        if let Some(second) = find_layer1(&mut source, &mut sector, volumes[0].space)? {
            volumes.push(second);
        }
        Ok(Iso9660 {
            source,
            volumes,
            sector,
        })
    }

    /// The sectors the file system is read from.
    pub fn source(&self) -> &S {
        &self.source
    }

    pub fn source_mut(&mut self) -> &mut S {
        &mut self.source
    }

    /// Gives the sector source back.
    pub fn into_inner(self) -> S {
        self.source
    }

    fn path(&self) -> &Path {
        self.source.path()
    }

    /// The first volume's size in sectors (on a DVD-9, layer 0's).
    pub fn volume_space_size(&self) -> u64 {
        self.volumes[0].space
    }

    /// The first volume's identifier, trailing spaces removed.
    pub fn volume_id(&self) -> &str {
        &self.volumes[0].id
    }

    /// On a DVD-9 image, where layer 1 starts as the drive reports it (PCSX2's `layer1start`,
    /// which its DVD TOC encodes and `sceCdReadDvdDualInfo` returns): the sector holding layer
    /// 1's primary volume descriptor. PCSX2 (`CDVDisoReader.cpp` `FindLayer1Start`) looks for it
    /// at the sector layer 0's volume space size names; an image made by appending a second ISO
    /// has it 16 sectors later, which is also accepted. None on a single-layer disc.
    pub fn layer1_start(&self) -> Option<u64> {
        self.volumes.get(1).map(|v| v.base + 16)
    }

    /// On a DVD-9 image, the image LBA that layer 1's recorded LBAs count from: 16 sectors
    /// before [`layer1_start`](Self::layer1_start), so that its descriptor is its own sector 16
    /// (Open PS2 Loader: `layer1_start -= 16`, then `layer1_start + lba` for its files). On a
    /// real disc this overlaps layer 0's last 16 sectors, layer 1's unused system area.
    pub fn layer1_base(&self) -> Option<u64> {
        self.volumes.get(1).map(|v| v.base)
    }

    /// The root directory of layer 0 (or 1).
    pub fn root(&self, layer: u8) -> Option<&FileEntry> {
        self.volumes.get(layer as usize).map(|v| &v.root)
    }

    /// The entries of a directory, `.` and `..` left out.
    pub fn read_dir_entry(&mut self, dir: &FileEntry) -> Result<Vec<FileEntry>, DiscError> {
        if !dir.is_dir {
            return Err(DiscError::invalid(
                self.path(),
                format!("{} is not a directory", dir.name),
            ));
        }
        let Some(base) = self.volumes.get(dir.layer as usize).map(|v| v.base) else {
            return Err(DiscError::invalid(self.path(), "no such layer"));
        };
        if dir.size > MAX_DIRECTORY_BYTES {
            return Err(DiscError::fs(
                self.path(),
                format!("directory {} claims {} bytes", dir.name, dir.size),
            ));
        }
        let sectors = dir.size.div_ceil(SECTOR_SIZE as u64);
        let mut entries: Vec<FileEntry> = Vec::new();
        // A file of several extents: the extents so far, while its records go on.
        let mut pending: Option<FileEntry> = None;
        for i in 0..sectors {
            let lba = dir.lba + i;
            self.source.read_user(lba, &mut self.sector)?;
            let s: &[u8] = &self.sector[..];
            let mut pos = 0usize;
            while pos < SECTOR_SIZE {
                let len = s[pos] as usize;
                if len == 0 {
                    break; // the rest of this sector is padding
                }
                let bad = || {
                    DiscError::fs(
                        self.source.path(),
                        format!(
                            "directory {} sector {lba}: a {len}-byte record at byte {pos} does not fit",
                            dir.name
                        ),
                    )
                };
                let rec = s.get(pos..pos + len).ok_or_else(bad)?;
                let (raw_name, extent, size, flags, interleaved) =
                    parse_record(rec).ok_or_else(bad)?;
                pos += len;
                if raw_name == [0] || raw_name == [1] {
                    continue; // "." and ".."
                }
                let name: String = raw_name.iter().map(|&b| b as char).collect();
                let name = match name.rfind(';') {
                    Some(at) if flags & FLAG_DIRECTORY == 0 => name[..at].to_string(),
                    _ => name,
                };
                let name = match name.strip_suffix('.') {
                    Some(n) if flags & FLAG_DIRECTORY == 0 => n.to_string(),
                    _ => name,
                };
                let lba = base.saturating_add(extent);
                let part = Extent { lba, size };
                let continues = flags & FLAG_MULTI_EXTENT != 0 && flags & FLAG_DIRECTORY == 0;
                match pending.take() {
                    Some(mut file) if file.name == name => {
                        file.extents.push(part);
                        file.size += size;
                        file.interleaved |= interleaved;
                        if continues {
                            pending = Some(file);
                        } else {
                            entries.push(file);
                        }
                    }
                    other => {
                        // A chain cut short by another name ends where it was cut.
                        entries.extend(other);
                        let file = FileEntry {
                            name,
                            lba,
                            size,
                            extents: vec![part],
                            is_dir: flags & FLAG_DIRECTORY != 0,
                            layer: dir.layer,
                            interleaved,
                        };
                        if continues {
                            pending = Some(file);
                        } else {
                            entries.push(file);
                        }
                    }
                }
            }
        }
        entries.extend(pending);
        Ok(entries)
    }

    /// Looks `path` up on one layer.
    pub fn lookup_in_layer(&mut self, layer: u8, path: &str) -> Result<FileEntry, DiscError> {
        let not_found = |me: &Self| DiscError::NotFound {
            path: me.path().to_path_buf(),
            name: path.to_string(),
        };
        let Some(mut current) = self.root(layer).cloned() else {
            return Err(not_found(self));
        };
        for component in components(path) {
            if !current.is_dir {
                return Err(not_found(self));
            }
            let want = normalise(component);
            let entries = self.read_dir_entry(&current)?;
            match entries
                .into_iter()
                .find(|e| e.name.eq_ignore_ascii_case(&want))
            {
                Some(e) => current = e,
                None => return Err(not_found(self)),
            }
        }
        Ok(current)
    }

    /// Looks `path` up: on layer 0, then on layer 1 of a DVD-9.
    pub fn lookup(&mut self, path: &str) -> Result<FileEntry, DiscError> {
        match self.lookup_in_layer(0, path) {
            Err(DiscError::NotFound { .. }) if self.volumes.len() > 1 => {
                self.lookup_in_layer(1, path)
            }
            other => other,
        }
    }

    /// The entries of the directory at `path` (layer 0, then layer 1).
    pub fn read_dir(&mut self, path: &str) -> Result<Vec<FileEntry>, DiscError> {
        let dir = self.lookup(path)?;
        self.read_dir_entry(&dir)
    }

    /// Reads file bytes from `offset` into `buf`; returns how many (fewer at the end of the
    /// file, 0 past it).
    pub fn read_file_range(
        &mut self,
        entry: &FileEntry,
        offset: u64,
        buf: &mut [u8],
    ) -> Result<usize, DiscError> {
        if entry.interleaved {
            return Err(DiscError::unsupported(
                self.path(),
                format!("{} is recorded interleaved", entry.name),
            ));
        }
        if offset >= entry.size {
            return Ok(0);
        }
        let total = (buf.len() as u64).min(entry.size - offset) as usize;
        let mut done = 0usize;
        let mut extent_start = 0u64; // the file offset where the current extent begins
        for extent in &entry.extents {
            if done == total {
                break;
            }
            let extent_end = extent_start + extent.size;
            let at = offset + done as u64;
            if at >= extent_end {
                extent_start = extent_end;
                continue;
            }
            let mut within = at - extent_start;
            while within < extent.size && done < total {
                let lba = extent
                    .lba
                    .checked_add(within / SECTOR_SIZE as u64)
                    .ok_or_else(|| {
                        DiscError::past_end(
                            self.source.path(),
                            u64::MAX,
                            self.source.sector_count(),
                        )
                    })?;
                let in_sector = (within % SECTOR_SIZE as u64) as usize;
                let n = (SECTOR_SIZE - in_sector)
                    .min(total - done)
                    .min((extent.size - within) as usize);
                let out = &mut buf[done..done + n];
                if n == SECTOR_SIZE {
                    let whole: &mut [u8; SECTOR_SIZE] = out
                        .try_into()
                        .map_err(|_| DiscError::invalid(self.source.path(), "sector"))?;
                    self.source.read_user(lba, whole)?;
                } else {
                    self.source.read_user(lba, &mut self.sector)?;
                    out.copy_from_slice(&self.sector[in_sector..in_sector + n]);
                }
                done += n;
                within += n as u64;
            }
            extent_start = extent_end;
        }
        Ok(done)
    }

    /// The whole file, if it is at most `limit` bytes.
    pub fn read_file(&mut self, entry: &FileEntry, limit: u64) -> Result<Vec<u8>, DiscError> {
        if entry.size > limit {
            return Err(DiscError::invalid(
                self.path(),
                format!(
                    "{} is {} bytes, over the {limit} asked for",
                    entry.name, entry.size
                ),
            ));
        }
        let mut out = vec![0u8; entry.size as usize];
        let n = self.read_file_range(entry, 0, &mut out)?;
        out.truncate(n);
        Ok(out)
    }

    /// SYSTEM.CNF from layer 0's root directory, parsed.
    pub fn system_cnf(&mut self) -> Result<SystemCnf, DiscError> {
        let entry = match self.lookup_in_layer(0, "SYSTEM.CNF") {
            Ok(e) if !e.is_dir => e,
            Ok(_) | Err(DiscError::NotFound { .. }) => {
                return Err(DiscError::NoSystemCnf {
                    path: self.path().to_path_buf(),
                });
            }
            Err(e) => return Err(e),
        };
        if entry.size > MAX_SYSTEM_CNF_BYTES {
            return Err(DiscError::SystemCnf {
                path: self.path().to_path_buf(),
                line: None,
                detail: format!("{} bytes: too large for a SYSTEM.CNF", entry.size),
            });
        }
        let bytes = self.read_file(&entry, MAX_SYSTEM_CNF_BYTES)?;
        SystemCnf::parse(self.path(), &bytes)
    }

    /// SYSTEM.CNF and the boot ELF it names; a PS1 disc (BOOT, no BOOT2) is an error.
    pub fn boot_info(&mut self) -> Result<BootInfo, DiscError> {
        let cnf = self.system_cnf()?;
        let Some(boot_path) = cnf.boot2.clone() else {
            return Err(DiscError::Ps1Disc {
                path: self.path().to_path_buf(),
                boot: cnf.boot.clone().unwrap_or_default(),
            });
        };
        let boot_file = match self.lookup(&boot_path) {
            Ok(e) if !e.is_dir => e,
            Ok(_) | Err(DiscError::NotFound { .. }) => {
                return Err(DiscError::BootFileMissing {
                    path: self.path().to_path_buf(),
                    boot: boot_path,
                });
            }
            Err(e) => return Err(e),
        };
        let serial = cnf.serial();
        Ok(BootInfo {
            cnf,
            boot_path,
            boot_file,
            serial,
        })
    }
}

/// Whether `sector` is an ISO 9660 volume descriptor of `kind` (1: primary).
fn is_descriptor(sector: &[u8; SECTOR_SIZE], kind: u8) -> bool {
    sector[0] == kind && &sector[1..6] == b"CD001"
}

/// Reads the volume whose sector 0 is image LBA `base`: its descriptors from its sector 16.
fn read_volume<S: SectorSource>(
    source: &mut S,
    sector: &mut [u8; SECTOR_SIZE],
    base: u64,
    layer: u8,
) -> Result<Volume, DiscError> {
    let count = source.sector_count();
    let mut primary: Option<Volume> = None;
    for i in 0..MAX_DESCRIPTORS {
        let lba = base + 16 + i;
        if lba >= count {
            break;
        }
        source.read_user(lba, sector)?;
        if &sector[1..6] != b"CD001" {
            break;
        }
        match sector[0] {
            1 if primary.is_none() => {
                let block = le16(&sector[..], 128);
                if block != SECTOR_SIZE as u16 {
                    return Err(DiscError::unsupported(
                        source.path(),
                        format!("ISO 9660 logical block size {block}; only 2048 is read"),
                    ));
                }
                let space = le32(&sector[..], 80) as u64;
                if space < 17 {
                    return Err(DiscError::fs(
                        source.path(),
                        format!("volume space size {space} sectors is too small"),
                    ));
                }
                let id: String = sector[40..72].iter().map(|&b| b as char).collect();
                let record = &sector[156..190];
                let bad_root =
                    || DiscError::fs(source.path(), "the root directory record is invalid");
                if (record[0] as usize) < 34 {
                    return Err(bad_root());
                }
                let (_, extent, size, flags, _) = parse_record(record).ok_or_else(bad_root)?;
                if flags & FLAG_DIRECTORY == 0 {
                    return Err(bad_root());
                }
                let lba = base.saturating_add(extent);
                primary = Some(Volume {
                    base,
                    space,
                    id: id.trim_end().to_string(),
                    root: FileEntry {
                        name: String::new(),
                        lba,
                        size,
                        extents: vec![Extent { lba, size }],
                        is_dir: true,
                        layer,
                        interleaved: false,
                    },
                });
            }
            255 => break, // the set terminator
            _ => {}
        }
    }
    primary.ok_or_else(|| {
        DiscError::fs(
            source.path(),
            format!(
                "no primary volume descriptor (CD001) at sector {}",
                base + 16
            ),
        )
    })
}

/// A DVD-9 image holds a second volume after layer 0's: its primary descriptor at the sector
/// layer 0's space size names (PCSX2, OPL), or, for an image made by appending a second ISO,
/// 16 sectors later. The sector checked must hold `01 CD001`.
fn find_layer1<S: SectorSource>(
    source: &mut S,
    sector: &mut [u8; SECTOR_SIZE],
    layer0_space: u64,
) -> Result<Option<Volume>, DiscError> {
    let count = source.sector_count();
    for descriptor in [layer0_space, layer0_space + 16] {
        if descriptor >= count {
            break;
        }
        source.read_user(descriptor, sector)?;
        if !is_descriptor(sector, 1) {
            continue;
        }
        let volume = read_volume(source, sector, descriptor - 16, 1)?;
        if volume.base + volume.space > count {
            return Err(DiscError::truncated(
                source.path(),
                format!(
                    "layer 1's volume descriptor says {} sectors from sector {}, the image has {count}",
                    volume.space, volume.base
                ),
            ));
        }
        return Ok(Some(volume));
    }
    Ok(None)
}
