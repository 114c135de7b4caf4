//! Damaged images: each gives one clear error naming the file and the place, and the image's
//! bytes and modification time are the same afterwards (it is never written).

mod common;

use common::*;
use piney_memcard::{CardError, OpenFlags, ecc, open_card};
use std::fs;
use std::path::Path;

/// A card with /SAVE (cluster 2, entry page 84) holding `file` (entry page 88, 1500 bytes in
/// clusters 4 -> 5, data pages 90..=92), laid out as in `image_fs.rs`.
fn good_image(dir: &Path) -> Vec<u8> {
    let p = dir.join("good.ps2");
    let mut card = open_card(&p, t(0)).unwrap();
    card.mkdir(b"/SAVE", t(1)).unwrap();
    let fh = card
        .open(b"/SAVE/file", OpenFlags::CREATE | OpenFlags::RDWR, t(2))
        .unwrap();
    card.write(fh, &[0x5A; 1500], t(3)).unwrap();
    card.close(fh, t(4)).unwrap();
    drop(card);
    fs::read(&p).unwrap()
}

fn fix_ecc(img: &mut [u8], page: usize) {
    let d: [u8; 512] = img[off(page, 0)..off(page, 512)].try_into().unwrap();
    img[off(page, 512)..off(page, 528)].copy_from_slice(&ecc::page_spare(&d));
}

fn set_u32(img: &mut [u8], page: usize, at: usize, v: u32) {
    img[off(page, at)..off(page, at + 4)].copy_from_slice(&v.to_le_bytes());
    fix_ecc(img, page);
}

/// Writes `img`, expects opening it to fail with an error whose message contains `needle`,
/// and checks the file was not touched.
fn expect_error(dir: &Path, name: &str, img: &[u8], needle: &str) -> CardError {
    let p = dir.join(name);
    fs::write(&p, img).unwrap();
    let before = fs::metadata(&p).unwrap().modified().unwrap();
    let err = match open_card(&p, t(9)) {
        Ok(_) => panic!("{name}: opened a damaged image"),
        Err(e) => e,
    };
    let msg = err.to_string();
    assert!(msg.starts_with(&p.display().to_string()), "{msg}");
    assert!(msg.contains(needle), "{name}: {msg:?} lacks {needle:?}");
    assert_eq!(fs::read(&p).unwrap(), img, "{name}: bytes changed");
    assert_eq!(
        fs::metadata(&p).unwrap().modified().unwrap(),
        before,
        "{name}: mtime changed"
    );
    err
}

#[test]
fn damaged_images_are_refused_untouched() {
    let dir = scratch("corruption");
    let good = good_image(&dir);

    let e = expect_error(
        &dir,
        "truncated.ps2",
        &good[..good.len() - 1],
        "not a PS2 memory card image",
    );
    assert!(matches!(
        e,
        CardError::BadSize {
            size: 8_650_751,
            ..
        }
    ));
    expect_error(&dir, "empty.ps2", &[], "not a PS2 memory card image");

    let mut img = good.clone();
    img[0] = b'X';
    fix_ecc(&mut img, 0);
    let e = expect_error(&dir, "magic.ps2", &img, "superblock");
    assert!(matches!(e, CardError::BadMagic { .. }));

    // One data bit of the file flipped, its ECC left alone.
    let mut img = good.clone();
    img[off(91, 17)] ^= 0x04;
    let e = expect_error(
        &dir,
        "ecc.ps2",
        &img,
        "ECC mismatch in page 91 (data of /SAVE/file), bytes 0..128",
    );
    assert!(matches!(
        e,
        CardError::Ecc {
            page: 91,
            chunk: 0,
            ..
        }
    ));
    // A directory entry's ECC.
    let mut img = good.clone();
    img[off(88, 300)] ^= 0x80;
    expect_error(
        &dir,
        "ecc_dir.ps2",
        &img,
        "ECC mismatch in page 88 (entry 2 of directory /SAVE), bytes 256..384",
    );
    // A FAT page's ECC.
    let mut img = good.clone();
    img[off(18, 8)] ^= 1;
    expect_error(
        &dir,
        "ecc_fat.ps2",
        &img,
        "ECC mismatch in page 18 (FAT cluster 9",
    );

    // FAT loop: the file's second cluster (5) links back to its first (4).
    let mut img = good.clone();
    set_u32(&mut img, 18, 5 * 4, 0x8000_0004);
    let e = expect_error(
        &dir,
        "loop.ps2",
        &img,
        "FAT chain of /SAVE/file loops at cluster 4",
    );
    assert!(matches!(e, CardError::Corrupt { .. }));
    // A chain leaving the FAT (next cluster 9000 of 8135).
    let mut img = good.clone();
    set_u32(&mut img, 18, 4 * 4, 0x8000_0000 | 9000);
    expect_error(
        &dir,
        "range.ps2",
        &img,
        "FAT chain of /SAVE/file leaves the FAT at cluster 4 (next 9000",
    );
    // A first cluster outside the FAT.
    let mut img = good.clone();
    set_u32(&mut img, 88, 16, 12_345);
    expect_error(
        &dir,
        "first.ps2",
        &img,
        "/SAVE/file: first cluster 12345 is outside the FAT",
    );
    // A chain running into a free cluster.
    let mut img = good.clone();
    set_u32(&mut img, 18, 5 * 4, 0x7FFF_FFFF);
    expect_error(
        &dir,
        "free.ps2",
        &img,
        "FAT chain of /SAVE/file: cluster 5 is marked free",
    );
    // Two chains sharing a cluster: the file's first cluster is /SAVE's second.
    let mut img = good.clone();
    set_u32(&mut img, 88, 16, 3);
    expect_error(
        &dir,
        "cross.ps2",
        &img,
        "cluster 3 belongs to both /SAVE and /SAVE/file",
    );
    // A directory length past the end of its chain (2 clusters hold 4 entries).
    let mut img = good.clone();
    set_u32(&mut img, 84, 4, 100);
    expect_error(
        &dir,
        "dirlen.ps2",
        &img,
        "directory /SAVE claims 100 entries, but its 2 clusters hold 4",
    );
    // A file longer than its chain.
    let mut img = good.clone();
    set_u32(&mut img, 88, 4, 5000);
    expect_error(
        &dir,
        "filelen.ps2",
        &img,
        "file /SAVE/file is 5000 bytes, but its 2 clusters hold 2048",
    );
    // The root's '.' damaged.
    let mut img = good.clone();
    img[off(82, 64)] = b'x';
    fix_ecc(&mut img, 82);
    expect_error(
        &dir,
        "root.ps2",
        &img,
        "root directory: its first entry is not '.'",
    );
    // Superblock fields.
    let mut img = good.clone();
    set_u32(&mut img, 0, 0x38, 9000);
    expect_error(
        &dir,
        "alloc_end.ps2",
        &img,
        "superblock: 9000 allocatable clusters from cluster 41 run past the card's 8192",
    );
    let mut img = good.clone();
    set_u32(&mut img, 0, 0x30, 4096);
    expect_error(
        &dir,
        "clusters.ps2",
        &img,
        "superblock: 4096 clusters per card, but the image holds 8192",
    );
    let mut img = good.clone();
    set_u32(&mut img, 0, 0x50, 0);
    expect_error(&dir, "ifc.ps2", &img, "indirect FAT cluster 0 is cluster 0");
    let mut img = good.clone();
    set_u32(&mut img, 16, 0, 20_000);
    expect_error(
        &dir,
        "ifc_entry.ps2",
        &img,
        "indirect FAT entry 0 names cluster 20000",
    );
    let mut img = good.clone();
    img[off(0, 0x1E)] = b'0';
    fix_ecc(&mut img, 0);
    expect_error(&dir, "version.ps2", &img, "format version \"1.0.0.0\"");

    // And the good one still opens.
    let p = dir.join("good.ps2");
    let mut card = open_card(&p, t(9)).unwrap();
    assert_eq!(card.getdir(b"/SAVE/file", 1).unwrap()[0].length, 1500);
}

/// A page the filesystem does not use may hold anything (PCSX2 keeps a checksum in page 1's
/// first bytes without updating its ECC): it is not checked.
#[test]
fn unused_pages_are_not_checked() {
    let dir = scratch("unused_pages");
    let mut img = good_image(&dir);
    img[off(1, 0)..off(1, 8)].copy_from_slice(&[1, 2, 3, 4, 5, 6, 7, 8]);
    img[off(1, 512)..off(1, 528)].fill(0);
    img[off(3000, 0)] = 0; // a free cluster's page
    let p = dir.join("pcsx2.ps2");
    fs::write(&p, &img).unwrap();
    let mut card = open_card(&p, t(9)).unwrap();
    assert_eq!(card.info().unwrap().free_clusters, 7995);
}

/// MCMAN's crash recovery: backup block 2 records an interrupted write of a block, backup
/// block 1 holds that block's new contents; opening restores it and erases backup block 2.
#[test]
fn interrupted_block_write_is_recovered() {
    let dir = scratch("backup_recovery");
    let good = good_image(&dir);
    let mut img = good.clone();
    // Block 5 (pages 80..96) holds the root's and /SAVE's entries and the file's data.
    for i in 0..16 {
        let (src, dst) = (80 + i, 1023 * 16 + i);
        let page: Vec<u8> = img[off(src, 0)..off(src, 528)].to_vec();
        img[off(dst, 0)..off(dst, 528)].copy_from_slice(&page);
    }
    // The target block half written: garbage in its file data page.
    img[off(90, 0)..off(90, 528)].fill(0);
    for page in [1022 * 16, 1022 * 16 + 1] {
        set_u32(&mut img, page, 0, 0x8000_0005);
    }
    let p = dir.join("crashed.ps2");
    fs::write(&p, &img).unwrap();
    let mut card = open_card(&p, t(9)).unwrap();
    let fh = card.open(b"/SAVE/file", OpenFlags::RDONLY, t(9)).unwrap();
    let mut buf = vec![0; 1500];
    assert_eq!(card.read(fh, &mut buf).unwrap(), 1500);
    assert!(buf.iter().all(|&b| b == 0x5A));
    drop(card);
    let now = fs::read(&p).unwrap();
    // Every page of the block is programmed again from the backup, as MCMAN writes the whole
    // block: the data is the good data, and each spare area its ECC.
    for page in 80..96 {
        let data = &now[off(page, 0)..off(page, 512)];
        assert!(data == &good[off(page, 0)..off(page, 512)], "page {page}");
        let spare: [u8; 16] = now[off(page, 512)..off(page, 528)].try_into().unwrap();
        assert_eq!(
            spare,
            ecc::page_spare(data.try_into().unwrap()),
            "page {page}"
        );
    }
    assert!(
        now[off(1022 * 16, 0)..off(1023 * 16, 0)]
            .iter()
            .all(|&b| b == 0xFF)
    );
}
