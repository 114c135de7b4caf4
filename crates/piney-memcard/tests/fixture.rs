//! The hand-written folder card in `tests/fixtures/folder-card` (copied to a scratch directory
//! first) reads as its sidecars say; rebuilt on an image through the mcserv operations it
//! lists the same entries and counts the same free clusters.

mod common;

use common::*;
use piney_memcard::{Card, DirEntry, OpenFlags, SetInfoFlags, Timestamp, open_card, open_folder};
use std::fs;
use std::path::Path;

fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dst = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &dst);
        } else {
            fs::copy(e.path(), dst).unwrap();
        }
    }
}

fn listing(card: &mut dyn Card) -> Vec<DirEntry> {
    let mut all = card.getdir(b"/*", 50).unwrap();
    all.extend(card.getdir(b"/BESLUS-20267/*", 50).unwrap());
    all
}

#[test]
fn hand_written_folder_card() {
    let dir = scratch("fixture");
    let root = dir.join("card");
    copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/folder-card"),
        &root,
    );
    let mut folder = open_folder(&root, t(0)).unwrap();
    let l = listing(folder.as_mut());
    assert_eq!(
        names(&l),
        ["BESLUS-20267", ".", "..", "icon.sys", "save data"]
    );
    let ts = |d, s| Timestamp::new(2003, 6, d, 8, 9, s);
    assert_eq!(
        (l[0].mode, l[0].created, l[0].modified),
        (0x8427, ts(7, 10), ts(7, 12))
    );
    // '..' of the save directory is the root's own entry (its `self` line).
    assert_eq!(
        (l[2].created, l[2].modified),
        (Timestamp::new(2003, 1, 1, 0, 0, 0), ts(7, 10))
    );
    assert_eq!((l[3].mode, l[3].length), (0x8497, 26));
    assert_eq!((l[4].mode, l[4].length, l[4].attr), (0xA497, 18, 7));
    // Root: 3 slots = 2 clusters; the save directory: 5 slots (one free) = 3; the files 1 each.
    assert_eq!(folder.info().unwrap().free_clusters, 8001 - 7);
    let fh = folder
        .open(b"/BESLUS-20267/save data", OpenFlags::RDONLY, t(1))
        .unwrap();
    let mut buf = [0u8; 64];
    let n = folder.read(fh, &mut buf).unwrap();
    assert_eq!(&buf[..n], b"fixture save data\n");
    folder.close(fh, t(1)).unwrap();

    // The same card built on an image.
    let mut image = open_card(&dir.join("same.ps2"), Timestamp::new(2003, 1, 1, 0, 0, 0)).unwrap();
    image.mkdir(b"/BESLUS-20267", ts(7, 10)).unwrap();
    for (name, body) in [
        (&b"icon.sys"[..], &b"PS2D: a stand-in icon.sys\n"[..]),
        (b"gone", b""),
        (b"save data", b"fixture save data\n"),
    ] {
        let mut p = b"/BESLUS-20267/".to_vec();
        p.extend_from_slice(name);
        let fh = image
            .open(&p, OpenFlags::CREATE | OpenFlags::RDWR, ts(7, 10))
            .unwrap();
        image.write(fh, body, ts(7, 10)).unwrap();
        image.close(fh, ts(7, 10)).unwrap();
    }
    image.delete(b"/BESLUS-20267/gone").unwrap();
    let set = |c: &mut dyn Card, p: &[u8], e: &DirEntry, f| c.set_file_info(p, e, f).unwrap();
    let all =
        SetInfoFlags::CREATED | SetInfoFlags::MODIFIED | SetInfoFlags::MODE | SetInfoFlags::ATTR;
    for e in &l {
        let p: &[u8] = match e.name.as_slice() {
            b"BESLUS-20267" => b"/BESLUS-20267",
            b"." | b".." => continue,
            b"icon.sys" => b"/BESLUS-20267/icon.sys",
            _ => b"/BESLUS-20267/save data",
        };
        set(image.as_mut(), p, e, all);
    }
    set(image.as_mut(), b"/", &l[2], all);
    assert_eq!(listing(image.as_mut()), l);
    assert_eq!(image.info().unwrap().free_clusters, 8001 - 7);
}
