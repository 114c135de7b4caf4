//! Opening an image: the superblock read and its geometry checked, the FAT pages and their
//! ECC, the backup blocks of an interrupted erase, and every directory and file reachable from
//! the root walked before anything else happens.

use super::*;

impl ImageStore {
    pub(super) fn parse_superblock(&self) -> Result<Sb, CardError> {
        let b = &self.raw[..PAGE_DATA];
        let v = &b[SB_VERSION..SB_VERSION + 12];
        // MCMAN refuses version 1.0 ("1.2 indicates full support for bad_block_list").
        if !(v[0] == b'1' && v[1] == b'.' && (v[2] == b'1' || v[2] == b'2')) {
            let shown: String = v
                .iter()
                .take_while(|&&c| c != 0)
                .map(|&c| c as char)
                .collect();
            return Err(self.unsupported(format!(
                "superblock format version {shown:?} (only 1.1 and 1.2 exist on formatted cards)"
            )));
        }
        let (pl, ppc, ppb) = (
            rd16(b, SB_PAGE_LEN),
            rd16(b, SB_PAGES_PER_CLUSTER),
            rd16(b, SB_PAGES_PER_BLOCK),
        );
        if (pl, ppc, ppb) != (PAGE_DATA as u16, 2, 16) {
            return Err(self.unsupported(format!(
                "superblock geometry: {pl}-byte pages, {ppc} pages per cluster, {ppb} per block \
                 (PS2 cards have 512, 2, 16)"
            )));
        }
        if b[SB_CARD_TYPE] != 2 {
            return Err(self.unsupported(format!(
                "superblock card type {} (2 = PS2)",
                b[SB_CARD_TYPE]
            )));
        }
        let clusters = rd32(b, SB_CLUSTERS);
        if clusters != self.pages / PAGES_PER_CLUSTER {
            return Err(self.corrupt(format!(
                "superblock: {clusters} clusters per card, but the image holds {}",
                self.pages / PAGES_PER_CLUSTER
            )));
        }
        let alloc_offset = rd32(b, SB_ALLOC_OFFSET);
        let mut alloc_end = rd32(b, SB_ALLOC_END);
        let backup2 = rd32(b, SB_BACKUP2);
        // Version 1.1 cards may hold alloc_end counted from cluster 0 (`mcman_setdevinfos`).
        if v[2] == b'1'
            && u64::from(CLUSTERS_PER_BLOCK) * u64::from(backup2) == u64::from(alloc_end)
        {
            alloc_end = alloc_end.wrapping_sub(alloc_offset);
        }
        if alloc_offset == 0 || alloc_offset >= clusters {
            return Err(self.corrupt(format!(
                "superblock: first allocatable cluster {alloc_offset} is outside the card's \
                 {clusters} clusters"
            )));
        }
        if alloc_end == 0 || u64::from(alloc_offset) + u64::from(alloc_end) > u64::from(clusters) {
            return Err(self.corrupt(format!(
                "superblock: {alloc_end} allocatable clusters from cluster {alloc_offset} run past \
                 the card's {clusters}"
            )));
        }
        let root = rd32(b, SB_ROOTDIR);
        if root >= alloc_end {
            return Err(self.corrupt(format!(
                "superblock: root directory cluster {root} is outside the FAT ({alloc_end} entries)"
            )));
        }
        let blocks = self.pages / PAGES_PER_BLOCK;
        let backup1 = rd32(b, SB_BACKUP1);
        if backup1 >= blocks || backup2 >= blocks {
            return Err(self.corrupt(format!(
                "superblock: backup blocks {backup1} and {backup2} are not both below {blocks}"
            )));
        }
        let mut ifc = [0u32; 32];
        for (k, v) in ifc.iter_mut().enumerate() {
            *v = rd32(b, SB_IFC_LIST + 4 * k);
        }
        let fat_clusters = alloc_end.div_ceil(FAT_PER_CLUSTER);
        let ifc_needed = fat_clusters.div_ceil(FAT_PER_CLUSTER) as usize;
        if ifc_needed > 32 {
            return Err(self.corrupt(format!(
                "superblock: {alloc_end} FAT entries need {ifc_needed} indirect FAT clusters (32 fit)"
            )));
        }
        for (k, &c) in ifc.iter().enumerate().take(ifc_needed) {
            if c == 0 || c >= clusters {
                return Err(self.corrupt(format!(
                    "superblock: indirect FAT cluster {k} is cluster {c}, outside 1..{clusters}"
                )));
            }
        }
        let bad: Vec<u32> = (0..32)
            .map(|k| rd32(b, SB_BAD_BLOCKS + 4 * k))
            .filter(|&v| v < blocks)
            .collect();
        let limit = max_allocatable(clusters, alloc_offset, &bad).min(alloc_end);
        Ok(Sb {
            clusters,
            alloc_offset,
            alloc_end,
            root,
            backup1,
            backup2,
            ifc,
            card_flags: b[SB_CARD_FLAGS],
            limit,
        })
    }

    /// Checks the ECC of every indirect FAT and FAT page, and that every FAT cluster the
    /// indirect FAT names is on the card.
    pub(super) fn check_fat_pages(&mut self) -> Result<(), CardError> {
        let sb = self.sb.clone().expect("formatted");
        let fat_clusters = sb.alloc_end.div_ceil(FAT_PER_CLUSTER);
        for k in 0..fat_clusters.div_ceil(FAT_PER_CLUSTER) as usize {
            for p in 0..PAGES_PER_CLUSTER {
                self.verify(sb.ifc[k] * PAGES_PER_CLUSTER + p, &|| {
                    format!("indirect FAT cluster {}", sb.ifc[k])
                })?;
            }
        }
        for fc in 0..fat_clusters {
            let c = self.fat_cluster(fc)?;
            for p in 0..PAGES_PER_CLUSTER {
                self.verify(c * PAGES_PER_CLUSTER + p, &|| {
                    format!(
                        "FAT cluster {c} (FAT entries {}..{})",
                        fc * 256,
                        fc * 256 + 256
                    )
                })?;
            }
        }
        Ok(())
    }

    /// MCMAN's crash recovery (`mcman_checkBackupBlocks`): backup block 2's first two pages
    /// say whether a block write was under way. Page 0 set and page 1 erased: the backup copy
    /// is incomplete and the target untouched, so backup block 2 is erased. Both set: the
    /// target block (page 0's value without bit 31) may be half written, so it is restored
    /// from backup block 1, then backup block 2 is erased. Unreadable pages change nothing.
    pub(super) fn recover_backup(&mut self) -> Result<(), CardError> {
        let sb = self.sb.clone().expect("formatted");
        let p0 = sb.backup2 * PAGES_PER_BLOCK;
        if !(self.ecc_ok(p0) && self.ecc_ok(p0 + 1)) {
            return Ok(());
        }
        let word = |st: &ImageStore, p: u32| {
            let v = rd32(st.page_bytes(p), 0);
            if v == FAT_END || (sb.card_flags & CF_ERASE_ZEROES != 0 && v == 0) {
                None
            } else {
                Some(v & FAT_MASK)
            }
        };
        match (word(self, p0), word(self, p0 + 1)) {
            (None, _) => Ok(()),
            (Some(_), None) => {
                self.erase_block(sb.backup2);
                Ok(())
            }
            (Some(target), Some(_)) => {
                let blocks = self.pages / PAGES_PER_BLOCK;
                if target == 0 || target >= blocks || target == sb.backup1 || target == sb.backup2 {
                    return Err(self.corrupt(format!(
                        "backup block {} records an interrupted write of block {target}, which \
                         cannot be restored",
                        sb.backup2
                    )));
                }
                for i in 0..PAGES_PER_BLOCK {
                    let src = sb.backup1 * PAGES_PER_BLOCK + i;
                    self.verify(src, &|| format!("backup block {}", sb.backup1))?;
                    let data: [u8; PAGE_DATA] = self.page_bytes(src).try_into().expect("page");
                    self.put_page(target * PAGES_PER_BLOCK + i, &data);
                }
                self.erase_block(sb.backup2);
                Ok(())
            }
        }
    }

    /// Walks the whole tree from the root: every chain must stay inside the FAT, not loop, not
    /// meet another chain, not run into a free cluster, and hold its directory's entries or its
    /// file's bytes; every page read must pass its ECC.
    pub(super) fn check_tree(&mut self) -> Result<(), CardError> {
        let sb = self.sb.clone().expect("formatted");
        let mut owner = vec![u32::MAX; sb.alloc_end as usize];
        let mut names: Vec<String> = Vec::new();
        let root_chain = self.walk_chain(sb.root, "/".into(), &mut owner, &mut names)?;
        let dot_page = self.cluster_page(root_chain[0], 0);
        self.verify(dot_page, &|| "the root directory's '.' entry".into())?;
        let dot = RawEntry::parse(self.page_bytes(dot_page));
        if dot.name != b"." || dot.mode & (mode::DIR | mode::EXISTS) != mode::DIR | mode::EXISTS {
            return Err(self.corrupt("root directory: its first entry is not '.'".into()));
        }
        let mut stack = vec![("/".to_string(), root_chain, dot.length)];
        while let Some((path, chain, len)) = stack.pop() {
            if len < 2 || u64::from(len).div_ceil(2) > chain.len() as u64 {
                return Err(self.corrupt(format!(
                    "directory {path} claims {len} entries, but its {} clusters hold {}",
                    chain.len(),
                    chain.len() * 2
                )));
            }
            for i in 0..len {
                let page = self.cluster_page(chain[(i / 2) as usize], i % 2);
                self.verify(page, &|| format!("entry {i} of directory {path}"))?;
                let e = RawEntry::parse(self.page_bytes(page));
                if i < 2 {
                    let want: &[u8] = if i == 0 { b"." } else { b".." };
                    if e.name != want {
                        return Err(self.corrupt(format!(
                            "directory {path}: entry {i} is not '{}'",
                            String::from_utf8_lossy(want)
                        )));
                    }
                    continue;
                }
                if e.mode & mode::EXISTS == 0 {
                    continue;
                }
                let child = format!(
                    "{}{}{}",
                    path,
                    if path.ends_with('/') { "" } else { "/" },
                    String::from_utf8_lossy(&e.name)
                );
                if e.is_dir() {
                    let c = self.walk_chain(e.cluster, child.clone(), &mut owner, &mut names)?;
                    stack.push((child, c, e.length));
                } else if e.length > 0 {
                    let c = self.walk_chain(e.cluster, child.clone(), &mut owner, &mut names)?;
                    let need = (e.length as usize).div_ceil(CLUSTER);
                    if c.len() < need {
                        return Err(self.corrupt(format!(
                            "file {child} is {} bytes, but its {} clusters hold {}",
                            e.length,
                            c.len(),
                            c.len() * CLUSTER
                        )));
                    }
                    let pages = (e.length as usize).div_ceil(PAGE_DATA) as u32;
                    for p in 0..pages {
                        let page = self.cluster_page(c[(p / 2) as usize], p % 2);
                        self.verify(page, &|| format!("data of {child}"))?;
                    }
                }
            }
        }
        Ok(())
    }

    /// A chain from `first`, claiming its clusters for `path`.
    pub(super) fn walk_chain(
        &mut self,
        first: u32,
        path: String,
        owner: &mut [u32],
        names: &mut Vec<String>,
    ) -> Result<Vec<u32>, CardError> {
        let end = owner.len() as u32;
        let id = names.len() as u32;
        if first >= end {
            return Err(self.corrupt(format!(
                "{path}: first cluster {first} is outside the FAT ({end} entries)"
            )));
        }
        let mut chain = Vec::new();
        let mut c = first;
        loop {
            let o = owner[c as usize];
            if o == id {
                return Err(self.corrupt(format!("FAT chain of {path} loops at cluster {c}")));
            }
            if o != u32::MAX {
                return Err(self.corrupt(format!(
                    "cluster {c} belongs to both {} and {path}",
                    names[o as usize]
                )));
            }
            owner[c as usize] = id;
            chain.push(c);
            let e = self.fat_get(c)?;
            if e == FAT_END {
                break;
            }
            if e & FAT_USED == 0 {
                return Err(self.corrupt(format!(
                    "FAT chain of {path}: cluster {c} is marked free (entry {e:#010x})"
                )));
            }
            let next = e & FAT_MASK;
            if next >= end {
                return Err(self.corrupt(format!(
                    "FAT chain of {path} leaves the FAT at cluster {c} (next {next}, FAT has {end} \
                     entries)"
                )));
            }
            c = next;
        }
        names.push(path);
        Ok(chain)
    }
}
