//! Formatting: a fresh filesystem laid out over an erased image as Sony's format does, and the
//! spare areas (ECC) of the pages it writes.

use super::*;

impl ImageStore {
    /// Lays out a fresh filesystem over an erased image, as Sony's format does (the layout
    /// mymc reproduces and PCSX2's folder cards assume): superblock, indirect FAT from cluster
    /// 8, FAT after it, root directory in the first allocatable cluster.
    pub(super) fn build_format(&mut self, now: Timestamp) {
        self.raw.fill(0xFF);
        self.sb = None;
        self.dirty.fill(Dirty::Clean);
        self.dirty_list.clear();
        self.verified.fill(true);
        self.full_rewrite = true;
        self.hint = 0;
        let clusters = self.pages / PAGES_PER_CLUSTER;
        let blocks = self.pages / PAGES_PER_BLOCK;
        // mymc: the FAT covers every cluster but the ones before the FAT and two.
        let fat_clusters = (clusters - (FIRST_IFC + 2)).div_ceil(FAT_PER_CLUSTER);
        let ifc_n = fat_clusters.div_ceil(FAT_PER_CLUSTER);
        let first_fat = FIRST_IFC + ifc_n;
        let alloc_offset = first_fat + fat_clusters;
        let (backup1, backup2) = (blocks - 1, blocks - 2);
        let alloc_end = backup2 * CLUSTERS_PER_BLOCK - alloc_offset;

        let mut sb = [0u8; PAGE_DATA];
        sb[..MAGIC.len()].copy_from_slice(MAGIC);
        sb[SB_VERSION..SB_VERSION + VERSION.len()].copy_from_slice(VERSION);
        sb[SB_PAGE_LEN..SB_PAGE_LEN + 2].copy_from_slice(&(PAGE_DATA as u16).to_le_bytes());
        sb[SB_PAGES_PER_CLUSTER..SB_PAGES_PER_CLUSTER + 2].copy_from_slice(&2u16.to_le_bytes());
        sb[SB_PAGES_PER_BLOCK..SB_PAGES_PER_BLOCK + 2].copy_from_slice(&16u16.to_le_bytes());
        sb[SB_FF00..SB_FF00 + 2].copy_from_slice(&0xFF00u16.to_le_bytes());
        for (o, v) in [
            (SB_CLUSTERS, clusters),
            (SB_ALLOC_OFFSET, alloc_offset),
            (SB_ALLOC_END, alloc_end),
            (SB_ROOTDIR, 0),
            (SB_BACKUP1, backup1),
            (SB_BACKUP2, backup2),
        ] {
            sb[o..o + 4].copy_from_slice(&v.to_le_bytes());
        }
        for k in 0..ifc_n {
            let o = SB_IFC_LIST + 4 * k as usize;
            sb[o..o + 4].copy_from_slice(&(FIRST_IFC + k).to_le_bytes());
        }
        // No bad blocks: all 32 entries -1.
        sb[SB_BAD_BLOCKS..SB_BAD_BLOCKS + 128].fill(0xFF);
        sb[SB_CARD_TYPE] = 2;
        sb[SB_CARD_FLAGS] = CARD_FLAGS;
        self.put_page(0, &sb);

        // Indirect FAT: the FAT's cluster numbers, then 0xFFFFFFFF.
        let mut cl = vec![0u8; CLUSTER];
        for k in 0..ifc_n {
            for j in 0..FAT_PER_CLUSTER {
                let n = k * FAT_PER_CLUSTER + j;
                let v = if n < fat_clusters {
                    first_fat + n
                } else {
                    FAT_END
                };
                cl[(j * 4) as usize..(j * 4 + 4) as usize].copy_from_slice(&v.to_le_bytes());
            }
            self.put_cluster_abs(FIRST_IFC + k, &cl);
        }
        // FAT: the root's cluster ends its chain, the allocatable ones are free, the entries
        // past alloc_end (no cluster behind them) read as chain ends.
        for fc in 0..fat_clusters {
            for j in 0..FAT_PER_CLUSTER {
                let i = fc * FAT_PER_CLUSTER + j;
                let v = if i == 0 || i >= alloc_end {
                    FAT_END
                } else {
                    FAT_FREE
                };
                cl[(j * 4) as usize..(j * 4 + 4) as usize].copy_from_slice(&v.to_le_bytes());
            }
            self.put_cluster_abs(first_fat + fc, &cl);
        }
        let bad: Vec<u32> = Vec::new();
        self.sb = Some(Sb {
            clusters,
            alloc_offset,
            alloc_end,
            root: 0,
            backup1,
            backup2,
            ifc: {
                let mut a = [0u32; 32];
                for (k, v) in a.iter_mut().enumerate().take(ifc_n as usize) {
                    *v = FIRST_IFC + k as u32;
                }
                a
            },
            card_flags: CARD_FLAGS,
            limit: max_allocatable(clusters, alloc_offset, &bad).min(alloc_end),
        });
        // Root directory: '.' is also the root's own entry (length = its entry count).
        let dot = RawEntry {
            mode: mode::NEW_DIR,
            length: 2,
            created: now,
            cluster: 0,
            dir_entry: 0,
            modified: now,
            attr: 0,
            name: b".".to_vec(),
        };
        let dotdot = RawEntry {
            mode: mode::ROOT_DOTDOT,
            length: 0,
            name: b"..".to_vec(),
            ..dot.clone()
        };
        let p = self.cluster_page(0, 0);
        self.put_page(p, &dot.to_page());
        self.put_page(p + 1, &dotdot.to_page());
    }

    pub(super) fn put_cluster_abs(&mut self, c: u32, data: &[u8]) {
        for half in 0..PAGES_PER_CLUSTER {
            let s = half as usize * PAGE_DATA;
            let page: [u8; PAGE_DATA] = data[s..s + PAGE_DATA].try_into().expect("page");
            self.put_page(c * PAGES_PER_CLUSTER + half, &page);
        }
    }

    // ---- writing -------------------------------------------------------------------------

    pub(super) fn compute_spares(&mut self) {
        if !self.spare {
            return;
        }
        for i in 0..self.dirty_list.len() {
            let p = self.dirty_list[i];
            if self.dirty[p as usize] == Dirty::Program {
                let o = self.off(p);
                let data: &[u8; PAGE_DATA] = self.raw[o..o + PAGE_DATA].try_into().expect("page");
                let spare = ecc::page_spare(data);
                self.raw[o + PAGE_DATA..o + PAGE_DATA + PAGE_SPARE].copy_from_slice(&spare);
            }
        }
    }

    pub(super) fn clear_dirty(&mut self) {
        for &p in &self.dirty_list {
            self.dirty[p as usize] = Dirty::Clean;
        }
        self.dirty_list.clear();
        self.full_rewrite = false;
    }
}
