//! Durability and determinism: what a call changed is on the host when it returns (a second,
//! independent open of the same path sees it while the first card is still open); the same
//! calls give the same bytes; an untouched region keeps its bytes; a re-save changes nothing.

mod common;

use common::*;
use piney_memcard::{OpenFlags, open_card, open_image};
use std::fs;
use std::path::Path;

fn payload(seed: u8, n: usize) -> Vec<u8> {
    (0..n)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

fn separate_reader_sees_writes(p: &Path) {
    let mut writer = open_card(p, t(0)).unwrap();
    writer.mkdir(b"/BISLPS-25127", t(1)).unwrap();
    let fh = writer
        .open(
            b"/BISLPS-25127/data",
            OpenFlags::CREATE | OpenFlags::RDWR,
            t(2),
        )
        .unwrap();
    let first = payload(1, 3000);
    writer.write(fh, &first, t(3)).unwrap();
    // The file is still open in `writer`; a reader opened from scratch sees every byte.
    {
        let mut reader = open_card(p, t(9)).unwrap();
        let r = reader
            .open(b"/BISLPS-25127/data", OpenFlags::RDONLY, t(9))
            .unwrap();
        let mut buf = vec![0u8; 4000];
        assert_eq!(reader.read(r, &mut buf).unwrap(), 3000);
        assert_eq!(&buf[..3000], &first[..]);
        let l = reader.getdir(b"/BISLPS-25127/data", 1).unwrap();
        assert_eq!((l[0].length, l[0].modified), (3000, t(3)));
    }
    let more = payload(2, 700);
    writer.write(fh, &more, t(4)).unwrap();
    {
        let mut reader = open_card(p, t(9)).unwrap();
        let r = reader
            .open(b"/BISLPS-25127/data", OpenFlags::RDONLY, t(9))
            .unwrap();
        let mut buf = vec![0u8; 4000];
        assert_eq!(reader.read(r, &mut buf).unwrap(), 3700);
        assert_eq!(&buf[3000..3700], &more[..]);
    }
    writer.close(fh, t(5)).unwrap();
    let mut reader = open_card(p, t(9)).unwrap();
    assert_eq!(
        reader.getdir(b"/BISLPS-25127/data", 1).unwrap()[0].mode,
        0x8497
    );
}

#[test]
fn image_write_is_on_disk_when_it_returns() {
    let dir = scratch("durable_image");
    separate_reader_sees_writes(&dir.join("card.ps2"));
}

#[test]
fn folder_write_is_on_disk_when_it_returns() {
    let dir = scratch("durable_folder");
    separate_reader_sees_writes(&dir.join("card"));
}

fn scenario(p: &Path) {
    let mut card = open_card(p, t(0)).unwrap();
    for (i, name) in [&b"/A"[..], b"/B", b"/C"].into_iter().enumerate() {
        card.mkdir(name, t(i as u8 + 1)).unwrap();
    }
    for i in 0..5u8 {
        let path = format!("/B/file{i}");
        let fh = card
            .open(
                path.as_bytes(),
                OpenFlags::CREATE | OpenFlags::RDWR,
                t(10 + i),
            )
            .unwrap();
        card.write(fh, &payload(i, 700 * i as usize + 100), t(20 + i))
            .unwrap();
        card.close(fh, t(30 + i)).unwrap();
    }
    card.delete(b"/B/file1").unwrap();
    card.delete(b"/A").unwrap();
    card.rename(b"/C", b"D").unwrap();
}

#[test]
fn image_round_trip_is_bit_exact_and_deterministic() {
    let dir = scratch("round_trip");
    let (a, b) = (dir.join("a.ps2"), dir.join("b.ps2"));
    scenario(&a);
    scenario(&b);
    let img = fs::read(&a).unwrap();
    assert_eq!(img, fs::read(&b).unwrap(), "same calls, same bytes");

    // Reopen and read back identical data.
    let mut card = open_image(&a).unwrap();
    for i in [0u8, 2, 3, 4] {
        let fh = card
            .open(format!("/B/file{i}").as_bytes(), OpenFlags::RDONLY, t(50))
            .unwrap();
        let want = payload(i, 700 * i as usize + 100);
        let mut buf = vec![0u8; want.len() + 10];
        assert_eq!(card.read(fh, &mut buf).unwrap(), want.len());
        assert_eq!(&buf[..want.len()], &want[..]);
        card.close(fh, t(50)).unwrap();
    }
    assert_eq!(names(&card.getdir(b"/*", 9).unwrap()), ["B", "D"]);
    // Reading, listing, closing unwritten handles and flushing change nothing.
    card.flush().unwrap();
    drop(card);
    assert_eq!(fs::read(&a).unwrap(), img, "a re-save gives the same bytes");

    // A write changes only the pages it touches: the FAT page, the entry pages, the data.
    let mut card = open_image(&a).unwrap();
    let fh = card.open(b"/B/file4", OpenFlags::RDWR, t(60)).unwrap();
    card.write(fh, b"XY", t(61)).unwrap();
    card.close(fh, t(62)).unwrap();
    drop(card);
    let after = fs::read(&a).unwrap();
    let changed: Vec<usize> = (0..16384)
        .filter(|&pg| img[off(pg, 0)..off(pg + 1, 0)] != after[off(pg, 0)..off(pg + 1, 0)])
        .collect();
    // file4's entry (its mode, times) and /B's own entry in the root (its modified time), and
    // the first data page of file4.
    assert_eq!(changed.len(), 3, "changed pages {changed:?}");
    // The untouched region (everything from page 200 on) is byte-identical.
    assert_eq!(img[off(200, 0)..], after[off(200, 0)..]);
}

#[test]
fn folder_round_trip_is_deterministic() {
    let dir = scratch("folder_round_trip");
    let (a, b) = (dir.join("a"), dir.join("b"));
    scenario(&a);
    scenario(&b);
    for rel in [".piney-mc", "B/.piney-mc"] {
        assert_eq!(
            fs::read_to_string(a.join(rel)).unwrap(),
            fs::read_to_string(b.join(rel)).unwrap(),
            "{rel}"
        );
    }
    let mut card = open_card(&a, t(0)).unwrap();
    assert_eq!(names(&card.getdir(b"/*", 9).unwrap()), ["B", "D"]);
    assert_eq!(
        names(&card.getdir(b"/B/*", 9).unwrap()),
        [".", "..", "file0", "file2", "file3", "file4"]
    );
    assert_eq!(fs::read(a.join("B/file3")).unwrap(), payload(3, 2200));
}
