//! The MCFS on a `.ps2` image: a format's layout field by field, and format -> mkdir -> create,
//! write, read, close -> getdir -> delete with the FAT and directory bytes derived by hand.

mod common;

use common::*;
use piney_memcard::{
    CardInfo, CardKind, DirEntry, IMAGE_8MB, McError, OpenFlags, SetInfoFlags, Whence, ecc, mode,
    open_card, open_image, res,
};
use std::fs;

fn data(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 7 + i / 256) as u8).collect()
}

/// `create_image` writes what Sony's format lays out (mymc's ps2mcfs document: ifc 8,
/// alloc_offset 41, alloc_end 8135, backup blocks 1023/1022) with MCMAN's field values.
#[test]
fn format_layout_field_by_field() {
    let dir = scratch("format_layout");
    let p = dir.join("card.ps2");
    let mut card = open_card(&p, t(0)).unwrap();
    assert_eq!(card.kind(), CardKind::Image { spare: true });
    assert_eq!(
        card.info().unwrap(),
        CardInfo {
            card_type: 2,
            // MCMAN's max_allocatable_clusters is 8001 on an 8 MiB card; the root uses one.
            free_clusters: 8000,
            formatted: true
        }
    );
    drop(card);
    let img = fs::read(&p).unwrap();
    assert_eq!(img.len() as u64, IMAGE_8MB);
    let sb = &img[..512];
    assert_eq!(&sb[..28], b"Sony PS2 Memory Card Format ");
    assert_eq!(&sb[0x1C..0x28], b"1.2.0.0\0\0\0\0\0");
    assert_eq!(u16_at(sb, 0x28), 512, "page_len");
    assert_eq!(u16_at(sb, 0x2A), 2, "pages_per_cluster");
    assert_eq!(u16_at(sb, 0x2C), 16, "pages_per_block");
    assert_eq!(u16_at(sb, 0x2E), 0xFF00);
    assert_eq!(u32_at(sb, 0x30), 8192, "clusters_per_card");
    assert_eq!(u32_at(sb, 0x34), 41, "alloc_offset");
    assert_eq!(u32_at(sb, 0x38), 8135, "alloc_end");
    assert_eq!(u32_at(sb, 0x3C), 0, "rootdir_cluster");
    assert_eq!(u32_at(sb, 0x40), 1023, "backup_block1");
    assert_eq!(u32_at(sb, 0x44), 1022, "backup_block2");
    assert_eq!(&sb[0x48..0x50], &[0; 8]);
    assert_eq!(u32_at(sb, 0x50), 8, "ifc_list[0]");
    assert!(
        (1..32).all(|k| u32_at(sb, 0x50 + 4 * k) == 0),
        "ifc_list[1..]"
    );
    assert!(
        sb[0xD0..0x150].iter().all(|&b| b == 0xFF),
        "bad_block_list = -1"
    );
    assert_eq!(sb[0x150], 2, "card_type");
    assert_eq!(sb[0x151], 0x2B, "card_flags");
    assert!(sb[0x152..].iter().all(|&b| b == 0));
    // Page 0's spare: its ECC, then four zero bytes.
    let spare: [u8; 16] = img[512..528].try_into().unwrap();
    assert_eq!(spare, ecc::page_spare(sb.try_into().unwrap()));
    assert_eq!(&spare[12..], &[0; 4]);
    // Page 1 (the rest of cluster 0) and the other unused pages are erased: 528 bytes 0xFF.
    assert!(img[off(1, 0)..off(2, 0)].iter().all(|&b| b == 0xFF));
    // Indirect FAT (cluster 8 = pages 16, 17): FAT clusters 9..=40, then 0xFFFFFFFF.
    for k in 0..256 {
        let v = u32_at(&img, off(16 + k / 128, (k % 128) * 4));
        assert_eq!(
            v,
            if k < 32 { 9 + k as u32 } else { 0xFFFF_FFFF },
            "ifc[{k}]"
        );
    }
    // FAT: entry 0 (the root) ends its chain, 1..8135 free, 8135..8192 chain ends.
    for i in 0..8192usize {
        let fc = i / 256;
        let page = (9 + fc) * 2 + (i % 256) / 128;
        let v = u32_at(&img, off(page, (i % 128) * 4));
        let want = if i == 0 || i >= 8135 {
            0xFFFF_FFFF
        } else {
            0x7FFF_FFFF
        };
        assert_eq!(v, want, "FAT[{i}]");
    }
    // Root directory in cluster 41 (pages 82, 83).
    let dot = &img[off(82, 0)..off(82, 512)];
    assert_eq!(u16_at(dot, 0), 0x8427, "'.' mode");
    assert_eq!(u32_at(dot, 4), 2, "'.' length = entries");
    assert_eq!(&dot[8..16], &t(0).to_bytes(), "created");
    assert_eq!(u32_at(dot, 16), 0, "cluster");
    assert_eq!(u32_at(dot, 20), 0, "dir_entry");
    assert_eq!(&dot[24..32], &t(0).to_bytes(), "modified");
    assert_eq!(&dot[64..66], b".\0");
    let dd = &img[off(83, 0)..off(83, 512)];
    assert_eq!(u16_at(dd, 0), 0xA426, "'..' mode");
    assert_eq!(u32_at(dd, 4), 0);
    assert_eq!(&dd[64..67], b"..\0");
    // Backup blocks erased.
    assert!(img[off(1022 * 16, 0)..].iter().all(|&b| b == 0xFF));
    // The same bytes as formatted_image_bytes.
    assert_eq!(img, piney_memcard::formatted_image_bytes(true, t(0)));
}

#[test]
fn mcfs_flow_with_hand_derived_layout() {
    let dir = scratch("mcfs_flow");
    let p = dir.join("card.ps2");
    let mut card = open_card(&p, t(0)).unwrap();

    // mkdir: the root has 2 entries ('.', '..') in its one cluster (FAT 0); the new entry is
    // entry 2, which needs a second root cluster: the lowest free, FAT 1, linked from FAT 0.
    // Then the directory's own cluster: FAT 2. Free: 8000 - 2 = 7998.
    card.mkdir(b"/BESLUS-20267", t(1)).unwrap();
    assert_eq!(card.info().unwrap().free_clusters, 7998);
    let img = fs::read(&p).unwrap();
    assert_eq!(fat(&img, 0), 0x8000_0001);
    assert_eq!(fat(&img, 1), 0xFFFF_FFFF);
    assert_eq!(fat(&img, 2), 0xFFFF_FFFF);
    assert_eq!(fat(&img, 3), 0x7FFF_FFFF);
    assert_eq!(u32_at(&img, off(82, 4)), 3, "root '.' length");
    assert_eq!(
        &img[off(82, 24)..off(82, 32)],
        &t(1).to_bytes(),
        "root modified"
    );
    // Entry 2 of the root: cluster 1, first half = page 84.
    let e = &img[off(cluster_page(1, 0), 0)..off(cluster_page(1, 0), 512)];
    assert_eq!(u16_at(e, 0), 0x8427);
    assert_eq!(u32_at(e, 4), 2, "a new directory has '.' and '..'");
    assert_eq!(u32_at(e, 16), 2, "its cluster");
    assert_eq!(&e[64..77], b"BESLUS-20267\0");
    // Its '.' points back at (root cluster 0, entry 2); its '..' copies the root's '.'.
    let d = &img[off(cluster_page(2, 0), 0)..];
    assert_eq!(&d[64..66], b".\0");
    assert_eq!((u32_at(d, 16), u32_at(d, 20)), (0, 2));
    assert_eq!(&d[8..16], &t(1).to_bytes());
    let dd = &img[off(cluster_page(2, 1), 0)..];
    assert_eq!(&dd[64..67], b"..\0");
    assert_eq!((u32_at(dd, 16), u32_at(dd, 20)), (0, 0));
    assert_eq!(&dd[8..16], &t(0).to_bytes(), "'..' created = the root's");
    // Every page written carries its ECC and four zero bytes.
    for page in [0usize, 18, 82, 84, 86, 87] {
        let dat: [u8; 512] = img[off(page, 0)..off(page, 512)].try_into().unwrap();
        let spare: [u8; 16] = img[off(page, 512)..off(page, 528)].try_into().unwrap();
        assert_eq!(spare, ecc::page_spare(&dat), "page {page}");
    }

    // Create a file: the directory's entry 2 needs its second cluster, FAT 3 (7997 free).
    let fh = card
        .open(
            b"/BESLUS-20267/icon.sys",
            OpenFlags::CREATE | OpenFlags::RDWR,
            t(2),
        )
        .unwrap();
    assert_eq!(fh.0, 0);
    assert_eq!(card.info().unwrap().free_clusters, 7997);
    // 1500 bytes: two clusters, FAT 4 -> 5 (7995 free).
    let body = data(1500);
    assert_eq!(card.write(fh, &body, t(3)).unwrap(), 1500);
    assert_eq!(card.info().unwrap().free_clusters, 7995);
    let img = fs::read(&p).unwrap();
    assert_eq!(fat(&img, 2), 0x8000_0003);
    assert_eq!(fat(&img, 3), 0xFFFF_FFFF);
    assert_eq!(fat(&img, 4), 0x8000_0005);
    assert_eq!(fat(&img, 5), 0xFFFF_FFFF);
    let e = &img[off(cluster_page(3, 0), 0)..];
    assert_eq!(
        u16_at(e, 0),
        0x8417,
        "written, not yet closed: CLOSED clear"
    );
    assert_eq!(u32_at(e, 4), 1500);
    assert_eq!(u32_at(e, 16), 4);
    assert_eq!(&e[64..73], b"icon.sys\0");
    assert_eq!(
        &img[off(cluster_page(4, 0), 0)..off(cluster_page(4, 0), 512)],
        &body[..512]
    );
    assert_eq!(
        &img[off(cluster_page(5, 0), 0)..off(cluster_page(5, 0), 476)],
        &body[1024..]
    );
    card.close(fh, t(4)).unwrap();
    let img = fs::read(&p).unwrap();
    assert_eq!(
        u16_at(&img, off(cluster_page(3, 0), 0)),
        0x8497,
        "closed: CLOSED set"
    );
    assert_eq!(
        &img[off(cluster_page(3, 0), 24)..off(cluster_page(3, 0), 32)],
        &t(4).to_bytes()
    );

    // Listings: the root's leaves out '.' and '..', a subdirectory's starts with them; '.' is
    // the directory's own entry and '..' the root's.
    let l = card.getdir(b"/*", 10).unwrap();
    assert_eq!(names(&l), ["BESLUS-20267"]);
    assert_eq!((l[0].mode, l[0].length), (0x8427, 0));
    assert_eq!(l[0].modified, t(4), "writes date the directory");
    let l = card.getdir(b"/BESLUS-20267/*", 10).unwrap();
    assert_eq!(names(&l), [".", "..", "icon.sys"]);
    assert_eq!(
        (l[0].mode, l[0].created, l[0].modified),
        (0x8427, t(1), t(4))
    );
    assert_eq!(
        (l[1].mode, l[1].created, l[1].modified),
        (0x8427, t(0), t(1))
    );
    assert_eq!((l[2].mode, l[2].length, l[2].created), (0x8497, 1500, t(2)));
    // Patterns, and the listing continued one entry at a time.
    assert_eq!(
        names(&card.getdir(b"/BESLUS-20267/*.sys", 10).unwrap()),
        ["icon.sys"]
    );
    assert_eq!(
        names(&card.getdir(b"/BESLUS-20267/icon.???", 10).unwrap()),
        ["icon.sys"]
    );
    assert_eq!(names(&card.getdir(b"/BESLUS-20267/*", 1).unwrap()), ["."]);
    assert_eq!(names(&card.getdir_continue(1).unwrap()), [".."]);
    assert_eq!(names(&card.getdir_continue(5).unwrap()), ["icon.sys"]);
    assert!(card.getdir_continue(5).unwrap().is_empty());

    // Read back.
    let fh = card
        .open(b"/BESLUS-20267/icon.sys", OpenFlags::RDONLY, t(5))
        .unwrap();
    let mut buf = vec![0u8; 2000];
    assert_eq!(card.read(fh, &mut buf).unwrap(), 1500);
    assert_eq!(&buf[..1500], &body[..]);
    assert_eq!(card.read(fh, &mut buf).unwrap(), 0);
    assert_eq!(card.seek(fh, -500, Whence::End).unwrap(), 1000);
    assert_eq!(card.read(fh, &mut buf[..10]).unwrap(), 10);
    assert_eq!(&buf[..10], &body[1000..1010]);
    assert_eq!(card.seek(fh, -5000, Whence::Cur).unwrap(), 0);
    // Deleting an open file is refused.
    assert_eq!(
        card.delete(b"/BESLUS-20267/icon.sys").unwrap_err().code(),
        res::DENIED_PERMIT
    );
    card.close(fh, t(5)).unwrap();
    // A non-empty directory cannot go.
    assert_eq!(
        card.delete(b"/BESLUS-20267").unwrap_err().code(),
        res::NOT_EMPTY
    );

    // Delete: EXISTS cleared, the chain's entries lose bit 31 and keep their links.
    card.delete(b"/BESLUS-20267/icon.sys").unwrap();
    let img = fs::read(&p).unwrap();
    assert_eq!(fat(&img, 4), 0x0000_0005);
    assert_eq!(fat(&img, 5), 0x7FFF_FFFF);
    assert_eq!(u16_at(&img, off(cluster_page(3, 0), 0)), 0x0497);
    assert_eq!(card.info().unwrap().free_clusters, 7997);
    assert_eq!(
        names(&card.getdir(b"/BESLUS-20267/*", 10).unwrap()),
        [".", ".."]
    );
    card.delete(b"/BESLUS-20267").unwrap();
    // The directory's chain (2 -> 3) is freed; the root keeps its two clusters.
    let img = fs::read(&p).unwrap();
    assert_eq!(fat(&img, 2), 0x0000_0003);
    assert_eq!(fat(&img, 3), 0x7FFF_FFFF);
    assert_eq!(fat(&img, 0), 0x8000_0001);
    assert_eq!(card.info().unwrap().free_clusters, 7999);
    assert!(card.getdir(b"/*", 10).unwrap().is_empty());
    // A new entry reuses the root's free slot 2 (no new root cluster) and the lowest free
    // cluster, 2, for its own.
    card.mkdir(b"/B", t(6)).unwrap();
    let img = fs::read(&p).unwrap();
    assert_eq!(fat(&img, 2), 0xFFFF_FFFF);
    assert_eq!(u32_at(&img, off(82, 4)), 3, "root length unchanged");
    assert_eq!(
        &img[off(cluster_page(1, 0), 64)..off(cluster_page(1, 0), 66)],
        b"B\0"
    );
    assert_eq!(card.info().unwrap().free_clusters, 7998);

    // A fresh open of the file sees all of it.
    drop(card);
    let mut again = open_image(&p).unwrap();
    assert_eq!(names(&again.getdir(b"/*", 10).unwrap()), ["B"]);
}

#[test]
fn console_error_codes() {
    let dir = scratch("error_codes");
    let mut card = open_card(&dir.join("c.ps2"), t(0)).unwrap();
    let code = |r: Result<(), McError>| r.unwrap_err().code();
    card.mkdir(b"/A", t(1)).unwrap();
    // mkdir of an existing name: sceMcResNoEntry, as MCMAN returns.
    assert_eq!(code(card.mkdir(b"/A", t(1))), res::NO_ENTRY);
    assert_eq!(code(card.mkdir(b"/X/Y", t(1))), res::NO_ENTRY);
    assert_eq!(
        code(card.open(b"/nope", OpenFlags::RDONLY, t(1)).map(|_| ())),
        res::NO_ENTRY
    );
    assert_eq!(
        code(card.open(b"", OpenFlags::RDONLY, t(1)).map(|_| ())),
        res::NO_ENTRY
    );
    let long = [b'n'; 33];
    let mut p = b"/A/".to_vec();
    p.extend_from_slice(&long);
    assert_eq!(
        code(card.open(&p, OpenFlags::CREATE, t(1)).map(|_| ())),
        res::NO_ENTRY
    );
    // 32 bytes fill the name field exactly and work.
    let fh = card
        .open(&p[..35], OpenFlags::CREATE | OpenFlags::RDWR, t(1))
        .unwrap();
    card.close(fh, t(1)).unwrap();
    assert_eq!(card.getdir(b"/A/n*", 5).unwrap()[0].name.len(), 32);
    // Three descriptors, as MCMAN has; the fourth open (even a mkdir) fails.
    let a = card
        .open(b"/A/f1", OpenFlags::CREATE | OpenFlags::RDWR, t(2))
        .unwrap();
    let b = card
        .open(b"/A/f2", OpenFlags::CREATE | OpenFlags::RDWR, t(2))
        .unwrap();
    let c = card.open(b"/A/f1", OpenFlags::RDONLY, t(2)).unwrap();
    assert_eq!((a.0, b.0, c.0), (0, 1, 2));
    assert_eq!(
        code(card.open(b"/A/f3", OpenFlags::CREATE, t(2)).map(|_| ())),
        res::UP_LIMIT_HANDLE
    );
    assert_eq!(code(card.mkdir(b"/Z", t(2))), res::UP_LIMIT_HANDLE);
    // A read on a write-only handle, a write on a read-only one, a bad fd.
    let mut buf = [0u8; 4];
    card.close(b, t(2)).unwrap();
    let w = card.open(b"/A/f2", OpenFlags::WRONLY, t(2)).unwrap();
    assert_eq!(code(card.read(w, &mut buf).map(|_| ())), res::DENIED_PERMIT);
    assert_eq!(
        code(card.write(c, b"x", t(2)).map(|_| ())),
        res::DENIED_PERMIT
    );
    assert_eq!(
        code(card.close(piney_memcard::FileHandle(7), t(2))),
        res::DENIED_PERMIT
    );
    assert_eq!(
        code(card.close(piney_memcard::FileHandle(-1), t(2))),
        res::DENIED_PERMIT
    );
    // A second writer of the same file, and O_CREAT over an open file, are refused.
    assert_eq!(
        code(card.open(b"/A/f1", OpenFlags::RDWR, t(2)).map(|_| ())),
        res::UP_LIMIT_HANDLE
    );
    card.close(w, t(2)).unwrap();
    assert_eq!(
        code(card.open(b"/A/f1", OpenFlags::RDWR, t(2)).map(|_| ())),
        res::DENIED_PERMIT
    );
    assert_eq!(
        code(card.open(b"/A/f1", OpenFlags::CREATE, t(2)).map(|_| ())),
        res::DENIED_PERMIT
    );
    card.close(a, t(2)).unwrap();
    card.close(c, t(2)).unwrap();
    assert_eq!(
        code(card.close(c, t(2))),
        res::DENIED_PERMIT,
        "already closed"
    );
    // A read-only file cannot be opened for writing.
    let ro = DirEntry {
        mode: mode::READ | mode::EXECUTE,
        ..DirEntry::default()
    };
    card.set_file_info(b"/A/f1", &ro, SetInfoFlags::MODE)
        .unwrap();
    assert_eq!(
        code(card.open(b"/A/f1", OpenFlags::WRONLY, t(2)).map(|_| ())),
        res::DENIED_PERMIT
    );
    // Directories: readable only through getdir; reading a directory handle is refused.
    let d = card.open(b"/A", OpenFlags::RDONLY, t(2)).unwrap();
    assert_eq!(code(card.read(d, &mut buf).map(|_| ())), res::DENIED_PERMIT);
    card.close(d, t(2)).unwrap();
    assert_eq!(code(card.delete(b"/")), res::NO_ENTRY);
    assert_eq!(code(card.delete(b"/A/.")), res::NO_ENTRY);
    // A file used as a directory.
    assert_eq!(
        code(card.open(b"/A/f1/x", OpenFlags::RDONLY, t(2)).map(|_| ())),
        res::NO_ENTRY
    );
    // Unformatted: -2 everywhere, until format.
    card.unformat().unwrap();
    assert!(!card.info().unwrap().formatted);
    assert_eq!(card.info().unwrap().free_clusters, 0);
    assert_eq!(code(card.mkdir(b"/A", t(3))), res::NO_FORMAT);
    assert_eq!(code(card.getdir(b"/*", 1).map(|_| ())), res::NO_FORMAT);
    card.format(t(4)).unwrap();
    assert_eq!(card.info().unwrap().free_clusters, 8000);
}

#[test]
fn create_over_existing_replaces_and_full_card() {
    let dir = scratch("replace_full");
    let mut card = open_card(&dir.join("c.ps2"), t(0)).unwrap();
    card.mkdir(b"/S", t(1)).unwrap();
    let fh = card
        .open(b"/S/a", OpenFlags::CREATE | OpenFlags::RDWR, t(2))
        .unwrap();
    card.write(fh, &data(3000), t(2)).unwrap();
    card.close(fh, t(2)).unwrap();
    let free = card.info().unwrap().free_clusters;
    // O_CREAT on an existing file: a new, empty entry (its clusters are released).
    let fh = card
        .open(b"/S/a", OpenFlags::CREATE | OpenFlags::WRONLY, t(3))
        .unwrap();
    card.close(fh, t(3)).unwrap();
    let l = card.getdir(b"/S/a", 2).unwrap();
    assert_eq!((l[0].length, l[0].created, l[0].mode), (0, t(3), 0x8417));
    assert_eq!(card.info().unwrap().free_clusters, free + 3);
    // O_TRUNC alone does nothing (MCMAN ignores it).
    let fh = card.open(b"/S/a", OpenFlags::RDWR, t(4)).unwrap();
    card.write(fh, b"hello", t(4)).unwrap();
    card.close(fh, t(4)).unwrap();
    let fh = card
        .open(b"/S/a", OpenFlags::RDWR | OpenFlags::TRUNC, t(4))
        .unwrap();
    card.close(fh, t(4)).unwrap();
    assert_eq!(card.getdir(b"/S/a", 2).unwrap()[0].length, 5);
    // Seek past the end and write: the gap reads as zeros.
    let fh = card.open(b"/S/a", OpenFlags::RDWR, t(5)).unwrap();
    assert_eq!(card.seek(fh, 2000, Whence::Set).unwrap(), 2000);
    card.write(fh, b"end", t(5)).unwrap();
    card.seek(fh, 0, Whence::Set).unwrap();
    let mut buf = vec![0xAA; 2003];
    assert_eq!(card.read(fh, &mut buf).unwrap(), 2003);
    assert_eq!(&buf[..5], b"hello");
    assert!(buf[5..2000].iter().all(|&b| b == 0));
    assert_eq!(&buf[2000..], b"end");
    card.close(fh, t(5)).unwrap();
    // Fill the card: a write that does not fit fails with -3 and writes nothing.
    let free = card.info().unwrap().free_clusters as usize;
    let fh = card
        .open(b"/S/big", OpenFlags::CREATE | OpenFlags::RDWR, t(6))
        .unwrap();
    let too_much = vec![1u8; (free + 1) * 1024];
    assert_eq!(
        card.write(fh, &too_much, t(6)).unwrap_err().code(),
        res::FULL_DEVICE
    );
    assert_eq!(card.info().unwrap().free_clusters as usize, free);
    // MCMAN closes a descriptor whose write failed.
    assert_eq!(card.close(fh, t(6)).unwrap_err().code(), res::DENIED_PERMIT);
    let fh = card.open(b"/S/big", OpenFlags::RDWR, t(6)).unwrap();
    card.write(fh, &too_much[..free * 1024], t(6)).unwrap();
    assert_eq!(card.info().unwrap().free_clusters, 0);
    assert_eq!(
        card.write(fh, b"x", t(6)).unwrap_err().code(),
        res::FULL_DEVICE
    );
    // No room for a new directory either (the directory /S has a free half-cluster for the
    // entry, but the new directory needs its own cluster).
    assert_eq!(
        card.mkdir(b"/S/d", t(7)).unwrap_err().code(),
        res::FULL_DEVICE
    );
    card.delete(b"/S/big").unwrap();
    card.mkdir(b"/S/d", t(7)).unwrap();
}

#[test]
fn rename_setinfo_chdir_entspace() {
    let dir = scratch("rename_setinfo");
    let p = dir.join("c.ps2");
    let mut card = open_card(&p, t(0)).unwrap();
    card.mkdir(b"/SAVE", t(1)).unwrap();
    let fh = card
        .open(b"/SAVE/f", OpenFlags::CREATE | OpenFlags::RDWR, t(2))
        .unwrap();
    card.write(fh, b"abc", t(2)).unwrap();
    // Renaming an open file keeps the handle working.
    card.rename(b"/SAVE/f", b"g").unwrap();
    card.write(fh, b"def", t(3)).unwrap();
    card.close(fh, t(3)).unwrap();
    assert_eq!(
        names(&card.getdir(b"/SAVE/*", 9).unwrap()),
        [".", "..", "g"]
    );
    assert_eq!(card.getdir(b"/SAVE/g", 9).unwrap()[0].length, 6);
    // Rename to an existing name, to a bad name, or of '.'.
    card.mkdir(b"/SAVE/h", t(3)).unwrap();
    assert_eq!(
        card.rename(b"/SAVE/g", b"h").unwrap_err().code(),
        res::NO_ENTRY
    );
    assert_eq!(
        card.rename(b"/SAVE/g", b"a/b").unwrap_err().code(),
        res::NO_ENTRY
    );
    assert_eq!(
        card.rename(b"/SAVE/g", b"..").unwrap_err().code(),
        res::NO_ENTRY
    );
    assert_eq!(
        card.rename(b"/SAVE/.", b"x").unwrap_err().code(),
        res::NO_ENTRY
    );
    // MCMAN keeps 31 bytes of a new name.
    card.rename(b"/SAVE/g", &[b'L'; 40]).unwrap();
    assert_eq!(card.getdir(b"/SAVE/L*", 9).unwrap()[0].name, vec![b'L'; 31]);
    // Set info: times, attr, the mode masks.
    let info = DirEntry {
        name: Vec::new(),
        mode: 0xFFFF,
        length: 0,
        created: t(40),
        modified: t(41),
        attr: 0xDEAD_BEEF,
    };
    card.set_file_info(
        b"/SAVE/h",
        &info,
        SetInfoFlags::CREATED | SetInfoFlags::ATTR,
    )
    .unwrap();
    let e = &card.getdir(b"/SAVE/h", 9).unwrap()[0];
    assert_eq!(
        (e.created, e.modified, e.attr, e.mode),
        (t(40), t(3), 0xDEAD_BEEF, 0x8427)
    );
    card.set_file_info(
        b"/SAVE/h",
        &info,
        SetInfoFlags::MODIFIED | SetInfoFlags::MODE_LIMITED,
    )
    .unwrap();
    let e = &card.getdir(b"/SAVE/h", 9).unwrap()[0];
    // 0x380F of 0xFFFF added to 0x8427: 0xBC2F.
    assert_eq!((e.modified, e.mode), (t(41), 0xBC2F));
    card.set_file_info(
        b"/SAVE/h",
        &DirEntry {
            mode: 0x0001,
            ..info.clone()
        },
        SetInfoFlags::MODE,
    )
    .unwrap();
    // Mask 0x7FCF replaces all but EXISTS, FILE, DIR: 0x8000 | 0x20 | 0x01.
    assert_eq!(card.getdir(b"/SAVE/h", 9).unwrap()[0].mode, 0x8021);
    // A directory without R|X cannot be searched: -5 (listing it is still allowed, as in
    // mcman_getdir2, which checks only the directories on the way).
    assert_eq!(
        card.open(b"/SAVE/h/x", OpenFlags::RDONLY, t(4))
            .unwrap_err()
            .code(),
        res::DENIED_PERMIT
    );
    assert_eq!(names(&card.getdir(b"/SAVE/h/*", 9).unwrap()), [".", ".."]);
    // chdir and relative paths.
    assert_eq!(card.chdir(b"/SAVE").unwrap(), b"/SAVE");
    assert_eq!(card.chdir(b"").unwrap(), b"/SAVE");
    assert_eq!(
        names(&card.getdir(b"*", 9).unwrap()),
        [".", "..", &"L".repeat(31), "h"]
    );
    let fh = card
        .open(b"rel", OpenFlags::CREATE | OpenFlags::RDWR, t(5))
        .unwrap();
    card.close(fh, t(5)).unwrap();
    assert_eq!(names(&card.getdir(b"/SAVE/r*", 9).unwrap()), ["rel"]);
    assert_eq!(card.chdir(b"..").unwrap(), b"/");
    assert_eq!(card.chdir(b"SAVE/../SAVE/").unwrap(), b"/SAVE");
    assert_eq!(card.chdir(b"rel").unwrap_err().code(), res::NO_ENTRY);
    assert_eq!(card.chdir(b"/").unwrap(), b"/");
    // Entry space: /SAVE has '.', '..', L..., h, rel = 5 entries in 3 clusters: 1 free half.
    assert_eq!(card.get_ent_space(b"/SAVE").unwrap(), 1);
    card.delete(b"/SAVE/rel").unwrap();
    assert_eq!(card.get_ent_space(b"/SAVE").unwrap(), 2);
    drop(card);
    let mut again = open_image(&p).unwrap();
    assert_eq!(again.getdir(b"/SAVE/h", 9).unwrap()[0].attr, 0xDEAD_BEEF);
}

/// A PCSX2 card that was never formatted (all 0xFF, as PCSX2 creates it) opens as an
/// unformatted card; formatting it gives the standard layout.
#[test]
fn pcsx2_new_card_is_unformatted() {
    let dir = scratch("pcsx2_new");
    let p = dir.join("Mcd001.ps2");
    fs::write(&p, vec![0xFFu8; IMAGE_8MB as usize]).unwrap();
    let mut card = open_image(&p).unwrap();
    assert_eq!(
        card.info().unwrap(),
        CardInfo {
            card_type: 2,
            free_clusters: 0,
            formatted: false
        }
    );
    card.format(t(9)).unwrap();
    assert_eq!(card.info().unwrap().free_clusters, 8000);
    drop(card);
    assert_eq!(
        fs::read(&p).unwrap(),
        piney_memcard::formatted_image_bytes(true, t(9))
    );
}

/// The 8 MiB image without spare area: the same filesystem in 512-byte pages, read and
/// written in place (PCSX2 converts such `.bin`/`.mc2` files to the spare format while it
/// runs and back when it closes them).
#[test]
fn image_without_spare_area() {
    let dir = scratch("no_spare");
    let p = dir.join("card.mc2");
    let mut card = open_card(&p, t(0)).unwrap();
    assert_eq!(card.kind(), CardKind::Image { spare: false });
    card.mkdir(b"/D", t(1)).unwrap();
    let fh = card
        .open(b"/D/f", OpenFlags::CREATE | OpenFlags::RDWR, t(1))
        .unwrap();
    card.write(fh, &data(5000), t(1)).unwrap();
    card.close(fh, t(1)).unwrap();
    drop(card);
    let img = fs::read(&p).unwrap();
    assert_eq!(img.len(), 8_388_608);
    assert_eq!(&img[..28], b"Sony PS2 Memory Card Format ");
    // The same filesystem with spare area, page by page.
    let mut with = vec![0u8; IMAGE_8MB as usize];
    for page in 0..16384 {
        let d: [u8; 512] = img[page * 512..page * 512 + 512].try_into().unwrap();
        with[page * 528..page * 528 + 512].copy_from_slice(&d);
        with[page * 528 + 512..page * 528 + 528].copy_from_slice(&ecc::page_spare(&d));
    }
    let mut card = piney_memcard::open_image_bytes(std::path::Path::new("x.ps2"), with).unwrap();
    let fh = card.open(b"/D/f", OpenFlags::RDONLY, t(2)).unwrap();
    let mut buf = vec![0u8; 5000];
    assert_eq!(card.read(fh, &mut buf).unwrap(), 5000);
    assert_eq!(buf, data(5000));
}
