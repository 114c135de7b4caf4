//! The filesystem operations of [`Store`] on a `.ps2` image: directory entries, files' cluster
//! chains through the FAT, and commit (write-through with sync).

use super::*;

impl Store for ImageStore {
    type Dir = ImgDir;

    fn path(&self) -> &Path {
        &self.path
    }

    fn is_formatted(&mut self) -> Result<bool, CardError> {
        if self.poisoned {
            return Err(self.poisoned_err());
        }
        Ok(self.sb.is_some())
    }

    fn root(&self) -> ImgDir {
        let r = self.sb.as_ref().map_or(0, |s| s.root);
        ImgDir {
            first: r,
            own_dir: r,
            own_index: 0,
        }
    }

    fn own_entry(&mut self, dir: &ImgDir) -> Result<Entry, CardError> {
        Ok(self.raw_entry(dir.own_dir, dir.own_index)?.1.entry())
    }

    fn slot(&mut self, dir: &ImgDir, index: u32) -> Result<Option<Entry>, CardError> {
        let (_, e) = self.raw_entry(dir.first, index)?;
        Ok((e.mode & mode::EXISTS != 0).then(|| e.entry()))
    }

    fn child(&mut self, dir: &ImgDir, index: u32) -> Result<ImgDir, CardError> {
        let (_, e) = self.raw_entry(dir.first, index)?;
        Ok(ImgDir {
            first: e.cluster,
            own_dir: dir.first,
            own_index: index,
        })
    }

    fn update(&mut self, loc: &Loc<ImgDir>, f: &mut dyn FnMut(&mut Entry)) -> Result<(), McError> {
        self.writable()?;
        let p = self.loc_page(loc)?;
        let raw = RawEntry::parse(self.page(p)?);
        let mut e = raw.entry();
        f(&mut e);
        self.patch(p, DE_MODE, &e.mode.to_le_bytes());
        // A time is rewritten only if it changed, so that its reserved byte stays as it was.
        if e.created != raw.created {
            self.patch(p, DE_CREATED, &e.created.to_bytes());
        }
        if e.modified != raw.modified {
            self.patch(p, DE_MODIFIED, &e.modified.to_bytes());
        }
        self.patch(p, DE_ATTR, &e.attr.to_le_bytes());
        if e.name != raw.name {
            let mut n = [0u8; NAME_LEN];
            let l = e.name.len().min(NAME_LEN);
            n[..l].copy_from_slice(&e.name[..l]);
            self.patch(p, DE_NAME, &n);
        }
        Ok(())
    }

    /// As `mcman_open2` and `McCreateDirentry`: a slot past the directory's clusters first gets
    /// a new cluster linked to its chain (the lowest free one), then a new directory its own
    /// cluster holding '.' (pointing back at its entry) and '..' (a copy of the parent's '.'
    /// pointers). New clusters are zeroed.
    fn create(
        &mut self,
        dir: &ImgDir,
        index: u32,
        entry: &Entry,
        is_dir: bool,
    ) -> Result<(), McError> {
        self.writable()?;
        let (own_page, own) = self.raw_entry(dir.own_dir, dir.own_index)?;
        let mut chain = self.chain(dir.first)?;
        let extend = index >= own.length && (index / ENTRIES_PER_CLUSTER) as usize >= chain.len();
        let need = u32::from(extend) + u32::from(is_dir);
        if need > 0 && self.count_free()? < need {
            return Err(McError::FullDevice);
        }
        if extend {
            let n = self.alloc()?;
            self.zero_cluster(n);
            let last = *chain.last().expect("a directory has a cluster");
            self.fat_set(last, FAT_USED | n)?;
            chain.push(n);
        }
        let sub = if is_dir { Some(self.alloc()?) } else { None };
        let raw = RawEntry {
            mode: entry.mode,
            length: if is_dir { 2 } else { 0 },
            created: entry.created,
            cluster: sub.unwrap_or(FAT_END),
            dir_entry: 0,
            modified: entry.modified,
            attr: entry.attr,
            name: entry.name.clone(),
        };
        let p = self.cluster_page(chain[(index / ENTRIES_PER_CLUSTER) as usize], index % 2);
        self.put_page(p, &raw.to_page());
        if let Some(sub) = sub {
            let (_, pdot) = self.raw_entry(dir.first, 0)?;
            self.zero_cluster(sub);
            let dot = RawEntry {
                mode: mode::NEW_DIR,
                length: 0,
                created: entry.created,
                cluster: dir.first,
                dir_entry: index,
                modified: entry.created,
                attr: 0,
                name: b".".to_vec(),
            };
            let dotdot = RawEntry {
                mode: mode::NEW_DIR,
                length: 0,
                created: pdot.created,
                cluster: pdot.cluster,
                dir_entry: pdot.dir_entry,
                modified: pdot.created,
                attr: 0,
                name: b"..".to_vec(),
            };
            let p = self.cluster_page(sub, 0);
            self.put_page(p, &dot.to_page());
            self.put_page(p + 1, &dotdot.to_page());
        }
        if index >= own.length {
            self.patch(own_page, DE_LENGTH, &(index + 1).to_le_bytes());
        }
        Ok(())
    }

    /// `McSetDirEntryState`: EXISTS cleared, and every FAT entry of the chain loses bit 31
    /// (keeping its link, as MCMAN leaves it).
    fn remove(&mut self, dir: &ImgDir, index: u32) -> Result<(), McError> {
        self.writable()?;
        let (p, e) = self.raw_entry(dir.first, index)?;
        let chain = self.entry_chain(&e)?;
        self.patch(p, DE_MODE, &(e.mode & !mode::EXISTS).to_le_bytes());
        for c in chain {
            let v = self.fat_get(c)?;
            self.fat_set(c, v & FAT_MASK)?;
            self.hint = self.hint.min(c);
        }
        Ok(())
    }

    fn read(
        &mut self,
        dir: &ImgDir,
        index: u32,
        pos: u32,
        buf: &mut [u8],
    ) -> Result<(), CardError> {
        let (_, e) = self.raw_entry(dir.first, index)?;
        let chain = self.entry_chain(&e)?;
        let mut done = 0;
        let mut at = pos as usize;
        while done < buf.len() {
            let ci = at / CLUSTER;
            let co = at % CLUSTER;
            let Some(&c) = chain.get(ci) else {
                self.poisoned = true;
                return Err(self.corrupt(format!(
                    "file at cluster {} is shorter than its length",
                    e.cluster
                )));
            };
            let half = (co / PAGE_DATA) as u32;
            let po = co % PAGE_DATA;
            let n = (PAGE_DATA - po).min(buf.len() - done);
            let p = self.cluster_page(c, half);
            let data = self.page(p)?;
            buf[done..done + n].copy_from_slice(&data[po..po + n]);
            done += n;
            at += n;
        }
        Ok(())
    }

    /// As `mcman_write2`/`mcman_fatWseek`, with the free space checked first so that a write
    /// the card cannot hold changes nothing. New clusters and a gap before `pos` are zeros.
    fn write(&mut self, dir: &ImgDir, index: u32, pos: u32, data: &[u8]) -> Result<(), McError> {
        self.writable()?;
        let (p, e) = self.raw_entry(dir.first, index)?;
        let mut chain = self.entry_chain(&e)?;
        let end = pos as usize + data.len();
        let new_len = end.max(e.length as usize);
        let need = new_len.div_ceil(CLUSTER).saturating_sub(chain.len());
        if need > 0 && (self.count_free()? as usize) < need {
            return Err(McError::FullDevice);
        }
        for _ in 0..need {
            let n = self.alloc()?;
            self.zero_cluster(n);
            if let Some(&last) = chain.last() {
                self.fat_set(last, FAT_USED | n)?;
            }
            chain.push(n);
        }
        let put = |st: &mut ImageStore, at: usize, bytes: &[u8]| -> Result<(), CardError> {
            let mut done = 0;
            while done < bytes.len() {
                let a = at + done;
                let c = chain[a / CLUSTER];
                let half = ((a % CLUSTER) / PAGE_DATA) as u32;
                let po = a % PAGE_DATA;
                let n = (PAGE_DATA - po).min(bytes.len() - done);
                let pg = st.cluster_page(c, half);
                st.page(pg)?;
                st.patch(pg, po, &bytes[done..done + n]);
                done += n;
            }
            Ok(())
        };
        if pos as usize > e.length as usize {
            let gap = vec![0u8; pos as usize - e.length as usize];
            put(self, e.length as usize, &gap)?;
        }
        put(self, pos as usize, data)?;
        self.patch(p, DE_LENGTH, &(new_len as u32).to_le_bytes());
        if let Some(&first) = chain.first() {
            self.patch(p, DE_CLUSTER, &first.to_le_bytes());
        }
        Ok(())
    }

    fn free_clusters(&mut self) -> Result<u32, CardError> {
        self.count_free()
    }

    fn format(&mut self, now: Timestamp) -> Result<(), CardError> {
        if self.poisoned {
            return Err(self.poisoned_err());
        }
        if self.writable().is_err() {
            return Err(CardError::io(
                &self.path,
                "format",
                io::Error::from(io::ErrorKind::PermissionDenied),
            ));
        }
        self.build_format(now);
        Ok(())
    }

    /// `mcman_unformat2`: every block erased.
    fn unformat(&mut self) -> Result<(), CardError> {
        if self.poisoned {
            return Err(self.poisoned_err());
        }
        if self.writable().is_err() {
            return Err(CardError::io(
                &self.path,
                "unformat",
                io::Error::from(io::ErrorKind::PermissionDenied),
            ));
        }
        self.raw.fill(0xFF);
        self.sb = None;
        self.clear_dirty();
        self.verified.fill(true);
        self.full_rewrite = true;
        Ok(())
    }

    fn commit(&mut self) -> Result<(), CardError> {
        if self.poisoned {
            // Nothing is written after corruption was found.
            return Ok(());
        }
        if self.dirty_list.is_empty() && !self.full_rewrite {
            return Ok(());
        }
        self.compute_spares();
        self.write_out()?;
        self.clear_dirty();
        Ok(())
    }

    fn rename_fixup(&self, _: &mut ImgDir, _: &ImgDir, _: &[u8], _: &[u8]) {}
}
