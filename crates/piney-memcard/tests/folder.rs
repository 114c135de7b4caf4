//! The folder card: the same filesystem flow as on an image, the sidecar round trip, files
//! added by hand, malformed sidecars, capacity, format.

mod common;

use common::*;
use piney_memcard::{
    CardError, CardInfo, CardKind, DirEntry, OpenFlags, SetInfoFlags, Timestamp, mode, open_card,
    res,
};
use std::fs;
use std::time::{Duration, UNIX_EPOCH};

#[test]
fn folder_flow_and_sidecars() {
    let dir = scratch("folder_flow");
    let root = dir.join("card");
    let mut card = open_card(&root, t(0)).unwrap();
    assert_eq!(card.kind(), CardKind::Folder);
    assert_eq!(
        card.info().unwrap(),
        CardInfo {
            card_type: 2,
            free_clusters: 8000,
            formatted: true
        }
    );
    assert_eq!(
        fs::read_to_string(root.join(".piney-mc")).unwrap(),
        "piney-mc 1\nself mode=0x8427 attr=0x00000000 created=2004-05-06T07:08:00 modified=2004-05-06T07:08:00\n"
    );
    // The same cluster counts as on an image: the root grows to 2 clusters, the new directory
    // has 1; the file's entry needs the directory's second; 1500 bytes take 2.
    card.mkdir(b"/BESLUS-20267", t(1)).unwrap();
    assert_eq!(card.info().unwrap().free_clusters, 7998);
    let fh = card
        .open(
            b"/BESLUS-20267/icon.sys",
            OpenFlags::CREATE | OpenFlags::RDWR,
            t(2),
        )
        .unwrap();
    assert_eq!(card.info().unwrap().free_clusters, 7997);
    let body: Vec<u8> = (0..1500u32).map(|i| (i % 251) as u8).collect();
    card.write(fh, &body, t(3)).unwrap();
    assert_eq!(card.info().unwrap().free_clusters, 7995);
    card.close(fh, t(4)).unwrap();
    assert_eq!(fs::read(root.join("BESLUS-20267/icon.sys")).unwrap(), body);
    assert_eq!(
        fs::read_to_string(root.join(".piney-mc")).unwrap(),
        "piney-mc 1\n\
         self mode=0x8427 attr=0x00000000 created=2004-05-06T07:08:00 modified=2004-05-06T07:08:01\n\
         entry mode=0x8427 attr=0x00000000 created=2004-05-06T07:08:01 modified=2004-05-06T07:08:04 name=BESLUS-20267\n"
    );
    assert_eq!(
        fs::read_to_string(root.join("BESLUS-20267/.piney-mc")).unwrap(),
        "piney-mc 1\n\
         entry mode=0x8497 attr=0x00000000 created=2004-05-06T07:08:02 modified=2004-05-06T07:08:04 name=icon.sys\n"
    );
    let l = card.getdir(b"/BESLUS-20267/*", 10).unwrap();
    assert_eq!(names(&l), [".", "..", "icon.sys"]);
    assert_eq!((l[0].created, l[0].modified), (t(1), t(4)));
    assert_eq!((l[1].created, l[1].modified), (t(0), t(1)));
    assert_eq!((l[2].mode, l[2].length), (0x8497, 1500));
    let fh = card
        .open(b"/BESLUS-20267/icon.sys", OpenFlags::RDONLY, t(5))
        .unwrap();
    let mut buf = vec![0u8; 1600];
    assert_eq!(card.read(fh, &mut buf).unwrap(), 1500);
    assert_eq!(&buf[..1500], &body[..]);
    assert_eq!(
        card.delete(b"/BESLUS-20267/icon.sys").unwrap_err().code(),
        res::DENIED_PERMIT
    );
    card.close(fh, t(5)).unwrap();
    assert_eq!(
        card.delete(b"/BESLUS-20267").unwrap_err().code(),
        res::NOT_EMPTY
    );
    card.delete(b"/BESLUS-20267/icon.sys").unwrap();
    assert!(!root.join("BESLUS-20267/icon.sys").exists());
    // The deleted slot stays, as on the card: the next entry takes it.
    assert_eq!(
        fs::read_to_string(root.join("BESLUS-20267/.piney-mc")).unwrap(),
        "piney-mc 1\nfree\n"
    );
    assert_eq!(card.info().unwrap().free_clusters, 7997);
    card.delete(b"/BESLUS-20267").unwrap();
    assert!(!root.join("BESLUS-20267").exists());
    assert_eq!(card.info().unwrap().free_clusters, 7999);
    assert!(card.getdir(b"/*", 10).unwrap().is_empty());
    card.mkdir(b"/B", t(6)).unwrap();
    assert!(
        fs::read_to_string(root.join(".piney-mc"))
            .unwrap()
            .ends_with("name=B\n"),
        "slot 2 reused"
    );
}

#[test]
fn sidecar_round_trip() {
    let dir = scratch("folder_sidecar");
    let root = dir.join("card");
    {
        let mut card = open_card(&root, t(0)).unwrap();
        card.mkdir(b"/SAVE", t(1)).unwrap();
        let fh = card
            .open(
                b"/SAVE/odd name%",
                OpenFlags::CREATE | OpenFlags::HIDDEN | OpenFlags::WRONLY,
                t(2),
            )
            .unwrap();
        card.write(fh, b"x", t(3)).unwrap();
        card.close(fh, t(4)).unwrap();
        let info = DirEntry {
            name: Vec::new(),
            mode: mode::PROTECTED | mode::READ | mode::WRITE | mode::EXECUTE,
            length: 0,
            created: Timestamp::new(1999, 12, 31, 23, 59, 59),
            modified: Timestamp::new(65535, 255, 0, 0, 0, 0),
            attr: 0x0102_0304,
        };
        card.set_file_info(
            b"/SAVE/odd name%",
            &info,
            SetInfoFlags::CREATED
                | SetInfoFlags::MODIFIED
                | SetInfoFlags::ATTR
                | SetInfoFlags::MODE_LIMITED,
        )
        .unwrap();
    }
    let text = fs::read_to_string(root.join("SAVE/.piney-mc")).unwrap();
    assert_eq!(
        text,
        "piney-mc 1\n\
         entry mode=0x849f attr=0x01020304 created=1999-12-31T23:59:59 modified=65535-255-00T00:00:00 name=odd%20name%25\n"
    );
    let mut card = open_card(&root, t(9)).unwrap();
    let l = card.getdir(b"/SAVE/odd*", 5).unwrap();
    assert_eq!(l.len(), 1);
    assert_eq!(l[0].name, b"odd name%");
    assert_eq!(l[0].mode, 0x849F);
    assert_eq!(l[0].attr, 0x0102_0304);
    assert_eq!(l[0].created, Timestamp::new(1999, 12, 31, 23, 59, 59));
    assert_eq!(l[0].modified, Timestamp::new(65535, 255, 0, 0, 0, 0));
    // Renaming moves the host file and keeps the metadata.
    card.rename(b"/SAVE/odd name%", b"even").unwrap();
    assert!(root.join("SAVE/even").is_file());
    assert!(fs::read_to_string(root.join("SAVE/.piney-mc")).unwrap().ends_with("attr=0x01020304 created=1999-12-31T23:59:59 modified=65535-255-00T00:00:00 name=even\n"));
    // A renamed directory keeps its open files working and the current directory right.
    let fh = card.open(b"/SAVE/even", OpenFlags::RDWR, t(10)).unwrap();
    assert_eq!(card.chdir(b"/SAVE").unwrap(), b"/SAVE");
    card.rename(b"/SAVE", b"SAVE2").unwrap();
    assert_eq!(card.chdir(b"").unwrap(), b"/SAVE2");
    card.write(fh, b"yz", t(11)).unwrap();
    card.close(fh, t(12)).unwrap();
    assert_eq!(fs::read(root.join("SAVE2/even")).unwrap(), b"yz");
    let mut buf = [0u8; 8];
    let fh = card.open(b"even", OpenFlags::RDONLY, t(13)).unwrap();
    assert_eq!(card.read(fh, &mut buf).unwrap(), 2);
}

#[test]
fn hand_added_files_get_defaults() {
    let dir = scratch("folder_hand_added");
    let root = dir.join("card");
    let mut card = open_card(&root, t(0)).unwrap();
    card.mkdir(b"/SAVE", t(1)).unwrap();
    let fh = card
        .open(b"/SAVE/known", OpenFlags::CREATE | OpenFlags::WRONLY, t(2))
        .unwrap();
    card.close(fh, t(2)).unwrap();
    // Added on the host behind the card's back: two files and a directory.
    fs::write(root.join("SAVE/zeta"), vec![7u8; 2048]).unwrap();
    fs::write(root.join("SAVE/alpha"), b"hi").unwrap();
    fs::create_dir(root.join("HAND")).unwrap();
    // 2001-02-03T04:05:06Z is 13:05:06 in JST.
    let when = UNIX_EPOCH + Duration::from_secs(981_173_106);
    fs::File::options()
        .write(true)
        .open(root.join("SAVE/alpha"))
        .unwrap()
        .set_modified(when)
        .unwrap();
    // Names the card cannot hold are not shown.
    fs::write(root.join("SAVE").join("x".repeat(40)), b"").unwrap();
    let l = card.getdir(b"/SAVE/*", 10).unwrap();
    // The sidecar's entries first, then the new ones in name order.
    assert_eq!(names(&l), [".", "..", "known", "alpha", "zeta"]);
    let alpha = &l[3];
    assert_eq!(alpha.mode, 0x8497);
    assert_eq!(alpha.length, 2);
    assert_eq!(alpha.created, Timestamp::new(2001, 2, 3, 13, 5, 6));
    assert_eq!(alpha.modified, Timestamp::new(2001, 2, 3, 13, 5, 6));
    assert_eq!(l[4].length, 2048);
    let l = card.getdir(b"/*", 10).unwrap();
    assert_eq!(names(&l), ["SAVE", "HAND"]);
    assert_eq!(l[1].mode, 0x8427);
    // Capacity counts them: root 2+2 entries = 2 clusters, SAVE 5 slots = 3, HAND 1, known 0,
    // alpha 1, zeta 2: 9 of 8001.
    assert_eq!(card.info().unwrap().free_clusters, 8001 - 9);
    // Reading a listing wrote nothing.
    assert!(
        !fs::read_to_string(root.join("SAVE/.piney-mc"))
            .unwrap()
            .contains("alpha")
    );
    // They can be read and changed like any other; a change writes them to the sidecar.
    let fh = card.open(b"/SAVE/alpha", OpenFlags::RDWR, t(3)).unwrap();
    let mut buf = [0u8; 4];
    assert_eq!(card.read(fh, &mut buf).unwrap(), 2);
    assert_eq!(&buf[..2], b"hi");
    card.write(fh, b"!", t(4)).unwrap();
    card.close(fh, t(5)).unwrap();
    let text = fs::read_to_string(root.join("SAVE/.piney-mc")).unwrap();
    assert!(
        text.contains("created=2001-02-03T13:05:06 modified=2004-05-06T07:08:05 name=alpha\n"),
        "{text}"
    );
    assert!(text.contains("name=zeta\n"));
    // A file that vanished from the host reads as a deleted slot.
    fs::remove_file(root.join("SAVE/known")).unwrap();
    assert_eq!(
        names(&card.getdir(b"/SAVE/*", 10).unwrap()),
        [".", "..", "alpha", "zeta"]
    );
    // A file that grew by hand past the card's size leaves no room.
    fs::write(root.join("HAND/huge"), vec![0u8; 9 * 1024 * 1024]).unwrap();
    assert_eq!(card.info().unwrap().free_clusters, 0);
    let fh = card.open(b"/SAVE/alpha", OpenFlags::RDWR, t(6)).unwrap();
    card.seek(fh, 0, piney_memcard::Whence::End).unwrap();
    assert_eq!(
        card.write(fh, &[1; 2000], t(6)).unwrap_err().code(),
        res::FULL_DEVICE
    );
    assert_eq!(fs::read(root.join("SAVE/alpha")).unwrap(), b"hi!");
}

#[test]
fn malformed_sidecar_is_a_clear_error() {
    let dir = scratch("folder_bad_sidecar");
    let root = dir.join("card");
    let mut card = open_card(&root, t(0)).unwrap();
    card.mkdir(b"/SAVE", t(1)).unwrap();
    drop(card);
    let sc = root.join("SAVE/.piney-mc");
    fs::write(
        &sc,
        "piney-mc 1\n# ok\nentry mode=0x8497 attr=0x00000000 created=2004-13-99T07:08:01 modified=oops name=a\n",
    )
    .unwrap();
    let err = match open_card(&root, t(2)) {
        Ok(_) => panic!("opened a card with a bad sidecar"),
        Err(e) => e,
    };
    assert!(matches!(err, CardError::Sidecar { line: 3, .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!(
            "{} line 3: bad timestamp \"oops\" (want Y-M-DTh:m:s)",
            sc.display()
        )
    );
    // A sidecar damaged while the card is in use: the operation fails with a device error and
    // the message names the file and line; the card keeps working elsewhere.
    fs::write(&sc, "piney-mc 1\n").unwrap();
    let mut card = open_card(&root, t(2)).unwrap();
    fs::write(&sc, "piney-mc 1\nfree free\n").unwrap();
    let e = card.getdir(b"/SAVE/*", 5).unwrap_err();
    assert_eq!(e.code(), res::DEVICE_FAILURE);
    assert!(
        e.to_string()
            .contains(".piney-mc line 2: 'free' takes no fields"),
        "{e}"
    );
    assert_eq!(names(&card.getdir(b"/*", 5).unwrap()), ["SAVE"]);
    // Nothing rewrote the bad sidecar.
    assert_eq!(fs::read_to_string(&sc).unwrap(), "piney-mc 1\nfree free\n");
}

#[test]
fn folder_format_unformat_and_existing_dir() {
    let dir = scratch("folder_format");
    let root = dir.join("card");
    // An existing directory without a sidecar is a card already (files added by hand).
    fs::create_dir_all(root.join("BASLUS-00000")).unwrap();
    fs::write(root.join("BASLUS-00000/save.dat"), b"abc").unwrap();
    let mut card = open_card(&root, t(0)).unwrap();
    assert_eq!(names(&card.getdir(b"/*", 5).unwrap()), ["BASLUS-00000"]);
    assert!(!root.join(".piney-mc").exists(), "opening writes nothing");
    card.unformat().unwrap();
    assert!(!card.info().unwrap().formatted);
    assert!(!root.join("BASLUS-00000").exists());
    assert_eq!(card.mkdir(b"/X", t(1)).unwrap_err().code(), res::NO_FORMAT);
    drop(card);
    let mut card = open_card(&root, t(0)).unwrap();
    assert!(!card.info().unwrap().formatted, "unformatted stays so");
    card.format(t(3)).unwrap();
    assert_eq!(card.info().unwrap().free_clusters, 8000);
    assert_eq!(
        fs::read_to_string(root.join(".piney-mc")).unwrap(),
        "piney-mc 1\nself mode=0x8427 attr=0x00000000 created=2004-05-06T07:08:03 modified=2004-05-06T07:08:03\n"
    );
    // A name the host already has in another case (or a hidden one) cannot be created over.
    fs::write(root.join(".piney-mc-other"), b"").unwrap();
    assert_eq!(
        card.open(b"/.piney-mc-other", OpenFlags::CREATE, t(4))
            .unwrap_err()
            .code(),
        res::DENIED_PERMIT
    );
    assert_eq!(
        card.open(b"/.piney-mc-new", OpenFlags::CREATE, t(4))
            .unwrap_err()
            .code(),
        res::DENIED_PERMIT
    );
    assert!(!root.join(".piney-mc-new").exists());
}
