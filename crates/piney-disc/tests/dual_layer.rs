//! DVD-9 images: a second ISO 9660 volume for layer 1, and files over 4 GiB.
//!
//! On a dual-layer PS2 DVD image, layer 0's volume space size names the sector holding layer
//! 1's primary volume descriptor (PCSX2 `FindLayer1Start`: that sector is its `layer1start`);
//! layer 1's volume starts 16 sectors before it and its LBAs count from there (Open PS2
//! Loader: `layer1_start -= 16`, file LBAs `layer1_start + lba`).

mod common;

use std::fs::{self, File};
use std::io::{Seek, SeekFrom, Write};
use std::path::Path;
use std::time::Instant;

use common::*;
use piney_disc::{Extent, ImageFormat, MediaKind, SectorSource, VideoMode};

fn both16(v: u16) -> [u8; 4] {
    let (l, b) = (v.to_le_bytes(), v.to_be_bytes());
    [l[0], l[1], b[0], b[1]]
}

fn both32(v: u32) -> [u8; 8] {
    let (l, b) = (v.to_le_bytes(), v.to_be_bytes());
    [l[0], l[1], l[2], l[3], b[0], b[1], b[2], b[3]]
}

/// An ISO 9660 directory record (ECMA-119 9.1), padded to an even length.
fn record(name: &[u8], lba: u32, size: u32, flags: u8) -> Vec<u8> {
    let len = 33 + name.len() + (name.len() + 1) % 2;
    let mut r = vec![0u8; len];
    r[0] = len as u8;
    r[2..10].copy_from_slice(&both32(lba));
    r[10..18].copy_from_slice(&both32(size));
    r[25] = flags;
    r[28..32].copy_from_slice(&both16(1));
    r[32] = name.len() as u8;
    r[33..33 + name.len()].copy_from_slice(name);
    r
}

/// A primary volume descriptor (ECMA-119 8.4) for a volume of `space` sectors.
fn pvd(id: &str, space: u32, root_lba: u32, root_size: u32) -> Vec<u8> {
    let mut s = vec![0u8; SECTOR];
    s[0] = 1;
    s[1..6].copy_from_slice(b"CD001");
    s[6] = 1;
    s[40..72].fill(b' ');
    s[40..40 + id.len()].copy_from_slice(id.as_bytes());
    s[80..88].copy_from_slice(&both32(space));
    s[120..124].copy_from_slice(&both16(1));
    s[124..128].copy_from_slice(&both16(1));
    s[128..132].copy_from_slice(&both16(2048));
    s[156..190].copy_from_slice(&record(&[0], root_lba, root_size, 2));
    s[881] = 1;
    s
}

fn terminator() -> Vec<u8> {
    let mut s = vec![0u8; SECTOR];
    s[0] = 255;
    s[1..6].copy_from_slice(b"CD001");
    s[6] = 1;
    s
}

/// A directory's sectors: ".", "..", then `entries`; a record that does not fit in what is
/// left of a sector starts the next one.
fn directory(me: u32, parent: u32, entries: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut all = vec![record(&[0], me, 2048, 2), record(&[1], parent, 2048, 2)];
    all.extend(entries.iter().cloned());
    for r in all {
        let left = SECTOR - out.len() % SECTOR;
        if r.len() > left {
            out.resize(out.len() + left, 0);
        }
        out.extend(r);
    }
    out.resize(out.len().next_multiple_of(SECTOR), 0);
    out
}

fn write_at(file: &mut File, offset: u64, bytes: &[u8]) {
    file.seek(SeekFrom::Start(offset)).unwrap();
    file.write_all(bytes).unwrap();
}

const EXT1_SIZE: u64 = 0xFFFF_F800; // the largest whole-sector extent under 4 GiB
const EXT2_SIZE: u64 = 512 * 1024 * 1024 + 2048;
const BIG_LBA: u64 = 30;
const EXT2_LBA: u64 = BIG_LBA + EXT1_SIZE / 2048 + 10; // not right after extent 1
const LAYER0_SPACE: u64 = EXT2_LBA + EXT2_SIZE / 2048 + 64;
const LAYER1_SPACE: u64 = 64;

/// Marker bytes written into the big file at these offsets; everything else is zero.
fn markers() -> Vec<(u64, [u8; 8])> {
    vec![
        (0, *b"FIRST..."),
        (1_000_005, *b"ODDPLACE"),
        (EXT1_SIZE - 4, *b"SPLITXXX"), // half in each extent
        (EXT1_SIZE + 0x1000_0000, *b"EXTENT2!"),
        (1 << 32, *b"4GIBMARK"),
        (EXT1_SIZE + EXT2_SIZE - 8, *b"THE END."),
    ]
}

/// Where a big-file offset is in the image.
fn big_offset_in_image(off: u64) -> u64 {
    if off < EXT1_SIZE {
        BIG_LBA * 2048 + off
    } else {
        EXT2_LBA * 2048 + (off - EXT1_SIZE)
    }
}

fn expected_big(off: u64, len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    for (at, m) in markers() {
        for (i, &b) in m.iter().enumerate() {
            let p = at + i as u64;
            if p >= off && p < off + len as u64 {
                v[(p - off) as usize] = b;
            }
        }
    }
    v
}

/// Writes the sparse DVD-9 image; returns layer 1's base (where its LBAs count from).
fn write_dvd9(path: &Path) -> u64 {
    let mut f = File::create(path).unwrap();
    let layer1 = LAYER0_SPACE - 16;
    f.set_len((layer1 + LAYER1_SPACE) * 2048).unwrap();
    let cnf0 = b"BOOT2 = cdrom0:\\SLUS_999.99;1\nVER = 1.02\nVMODE = PAL\n";
    let elf = b"\x7fELF layer 0 boot file";
    // Layer 0: descriptors, the root, SYSTEM.CNF, the boot ELF, and the 4.5 GiB file as two
    // records of the same name, the first flagged multi-extent (0x80).
    write_at(
        &mut f,
        16 * 2048,
        &pvd("LAYER0", LAYER0_SPACE as u32, 20, 2048),
    );
    write_at(&mut f, 17 * 2048, &terminator());
    let root0 = directory(
        20,
        20,
        &[
            record(b"BIG.DAT;1", BIG_LBA as u32, EXT1_SIZE as u32, 0x80),
            record(b"BIG.DAT;1", EXT2_LBA as u32, EXT2_SIZE as u32, 0),
            record(b"SLUS_999.99;1", 22, elf.len() as u32, 0),
            record(b"SYSTEM.CNF;1", 21, cnf0.len() as u32, 0),
        ],
    );
    write_at(&mut f, 20 * 2048, &root0);
    write_at(&mut f, 21 * 2048, cnf0);
    write_at(&mut f, 22 * 2048, elf);
    for (at, m) in markers() {
        for (i, &b) in m.iter().enumerate() {
            write_at(&mut f, big_offset_in_image(at + i as u64), &[b]);
        }
    }
    // Layer 1: its own volume, LBAs relative to its start; its descriptor at sector 16 of it,
    // which is the sector layer 0's space size names.
    let base = layer1 * 2048;
    write_at(
        &mut f,
        base + 16 * 2048,
        &pvd("LAYER1", LAYER1_SPACE as u32, 20, 2048),
    );
    write_at(&mut f, base + 17 * 2048, &terminator());
    let root1 = directory(
        20,
        20,
        &[
            record(b"L1DIR", 21, 2048, 2),
            record(b"ONLY1.BIN;1", 24, 5000, 0),
            record(b"SYSTEM.CNF;1", 30, 9, 0),
        ],
    );
    write_at(&mut f, base + 20 * 2048, &root1);
    write_at(
        &mut f,
        base + 21 * 2048,
        &directory(21, 20, &[record(b"DEEP.DAT;1", 28, 3000, 0)]),
    );
    write_at(&mut f, base + 24 * 2048, &Rng::new(24).bytes(5000));
    write_at(&mut f, base + 28 * 2048, &Rng::new(26).bytes(3000));
    write_at(&mut f, base + 30 * 2048, b"layer one");
    layer1
}

#[test]
fn sparse_dvd9_with_a_4_5_gib_file() {
    let start = Instant::now();
    let s = Scratch::new("dvd9");
    let path = s.path("dvd9.iso");
    let layer1 = write_dvd9(&path);
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let meta = fs::metadata(&path).unwrap();
        assert!(meta.len() > 4_800_000_000);
        assert!(meta.blocks() * 512 < 16 << 20, "the image should be sparse");
    }

    let disc = piney_disc::open(&path).unwrap();
    assert_eq!(disc.format(), ImageFormat::Iso);
    assert_eq!(disc.kind(), MediaKind::Dvd);
    assert_eq!(disc.sector_count(), layer1 + LAYER1_SPACE);
    let mut fs = disc.into_filesystem().unwrap();
    assert_eq!(fs.volume_space_size(), LAYER0_SPACE);
    assert_eq!(fs.layer1_start(), Some(LAYER0_SPACE));
    assert_eq!(fs.layer1_base(), Some(LAYER0_SPACE - 16));
    assert_eq!(fs.volume_id(), "LAYER0");

    // The file of two extents.
    let big = fs.lookup("cdrom0:\\BIG.DAT;1").unwrap();
    assert_eq!(big.size, EXT1_SIZE + EXT2_SIZE);
    assert!(big.size > 1 << 32);
    assert_eq!(
        big.extents,
        vec![
            Extent {
                lba: BIG_LBA,
                size: EXT1_SIZE
            },
            Extent {
                lba: EXT2_LBA,
                size: EXT2_SIZE
            },
        ]
    );
    for (at, m) in markers() {
        let mut buf = [0u8; 8];
        assert_eq!(fs.read_file_range(&big, at, &mut buf).unwrap(), 8);
        assert_eq!(&buf, &m, "marker at {at}");
    }
    // A read across the extents' boundary, and one ending at the end of the file.
    for (off, len) in [
        (EXT1_SIZE - 2048 - 3, 4096usize),
        ((1 << 32) - 100, 300),
        (EXT1_SIZE + EXT2_SIZE - 3000, 5000),
    ] {
        let mut buf = vec![0xEEu8; len];
        let n = fs.read_file_range(&big, off, &mut buf).unwrap();
        let n_expected = len.min((big.size - off) as usize);
        assert_eq!(n, n_expected);
        assert!(buf[..n] == expected_big(off, n)[..], "range at {off}");
    }
    assert_eq!(
        fs.read_file_range(&big, big.size + 10, &mut [0u8; 4])
            .unwrap(),
        0
    );

    // Layer 0's SYSTEM.CNF boots layer 0's ELF.
    let boot = fs.boot_info().unwrap();
    assert_eq!(boot.serial.as_deref(), Some("SLUS-99999"));
    assert_eq!(boot.cnf.video_mode, Some(VideoMode::Pal));
    assert_eq!(boot.cnf.version.as_deref(), Some("1.02"));
    assert_eq!(boot.boot_file.layer, 0);

    // Files only on layer 1: found after layer 0, with image LBAs (layer base + recorded LBA).
    let only1 = fs.lookup("ONLY1.BIN").unwrap();
    assert_eq!(only1.layer, 1);
    assert_eq!(only1.lba, layer1 + 24);
    assert!(fs.read_file(&only1, 1 << 20).unwrap() == Rng::new(24).bytes(5000));
    let deep = fs.lookup("cdrom0:\\l1dir\\deep.dat;1").unwrap();
    assert_eq!(deep.lba, layer1 + 28);
    assert!(fs.read_file(&deep, 1 << 20).unwrap() == Rng::new(26).bytes(3000));
    let names: Vec<String> = fs
        .read_dir("L1DIR")
        .unwrap()
        .into_iter()
        .map(|e| e.name)
        .collect();
    assert_eq!(names, ["DEEP.DAT"]);
    // The same name on both layers: lookup takes layer 0's, lookup_in_layer either.
    let cnf1 = fs.lookup_in_layer(1, "SYSTEM.CNF").unwrap();
    assert_eq!(fs.read_file(&cnf1, 100).unwrap(), b"layer one");
    let cnf0 = fs.lookup("SYSTEM.CNF").unwrap();
    assert_eq!(cnf0.layer, 0);
    assert!(fs.lookup_in_layer(0, "ONLY1.BIN").is_err());
    assert!(fs.lookup_in_layer(1, "BIG.DAT").is_err());
    assert!(fs.lookup_in_layer(2, "BIG.DAT").is_err());

    assert!(
        start.elapsed().as_secs_f64() < 5.0,
        "took {:?}",
        start.elapsed()
    );
}

fn space_size(iso: &[u8]) -> u64 {
    u32::from_le_bytes(iso[16 * 2048 + 80..16 * 2048 + 84].try_into().unwrap()) as u64
}

fn layer_trees(s: &Scratch) -> (Vec<u8>, Vec<u8>) {
    let iso0 = make_iso(s, "layer0", &["-R", "-V", "L0"]);
    let tree1 = s.path("tree1");
    fs::create_dir_all(tree1.join("second")).unwrap();
    fs::write(tree1.join("second/b.txt"), b"on layer one").unwrap();
    fs::write(tree1.join("L1ONLY.BIN"), Rng::new(9).bytes(10_000)).unwrap();
    let iso1 = s.path("layer1.iso");
    genisoimage(&[
        "-o",
        iso1.to_str().unwrap(),
        "-V",
        "L1",
        tree1.to_str().unwrap(),
    ]);
    (fs::read(iso0).unwrap(), fs::read(iso1).unwrap())
}

fn check_layer1(image: &Path, expected_base: u64) {
    let mut fs = piney_disc::open(image).unwrap().into_filesystem().unwrap();
    assert_eq!(fs.layer1_base(), Some(expected_base));
    assert_eq!(fs.layer1_start(), Some(expected_base + 16));
    let b = fs.lookup("cdrom0:\\SECOND\\B.TXT;1").unwrap();
    assert_eq!(b.layer, 1);
    assert!(b.lba > expected_base);
    assert_eq!(fs.read_file(&b, 100).unwrap(), b"on layer one");
    let e = fs.lookup("l1only.bin").unwrap();
    assert!(fs.read_file(&e, 1 << 20).unwrap() == Rng::new(9).bytes(10_000));
    // Layer 0 is still all there.
    let boot = fs.boot_info().unwrap();
    assert_eq!(boot.serial.as_deref(), Some("SLUS-20267"));
    let big = fs.lookup("data/BIG.BIN").unwrap();
    assert_eq!(big.layer, 0);
}

#[test]
fn genisoimage_layers_as_pcsx2_reads_them() {
    // Layer 1's volume laid over layer 0's last 16 sectors (genisoimage pads its images with
    // zero sectors, so those 16 are unused by layer 0, as on a real disc).
    let s = Scratch::new("dl-pcsx2");
    let (iso0, iso1) = layer_trees(&s);
    let space0 = space_size(&iso0);
    assert_eq!(space0 * 2048, iso0.len() as u64);
    let base = space0 - 16;
    assert!(iso0[base as usize * 2048..].iter().all(|&b| b == 0));
    let mut image = iso0[..base as usize * 2048].to_vec();
    image.extend_from_slice(&iso1);
    let path = s.path("dl.iso");
    fs::write(&path, &image).unwrap();
    check_layer1(&path, base);
    let fs = piney_disc::open(&path).unwrap().into_filesystem().unwrap();
    assert_eq!(
        fs.layer1_start(),
        Some(space0),
        "PCSX2's layer1start is layer 0's space size"
    );
}

#[test]
fn genisoimage_layers_appended() {
    // A second ISO appended whole: its descriptor 16 sectors after layer 0's end.
    let s = Scratch::new("dl-append");
    let (iso0, iso1) = layer_trees(&s);
    let space0 = space_size(&iso0);
    let mut image = iso0.clone();
    image.extend_from_slice(&iso1);
    let path = s.path("dl.iso");
    fs::write(&path, &image).unwrap();
    check_layer1(&path, space0);
}
