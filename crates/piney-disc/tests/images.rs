//! Every image format read back against the files and ISO it was made from. The ISOs and CHDs
//! are made by independent tools (genisoimage, chdman); CSO, ZSO and BIN/CUE by our writers in
//! tests/common, which follow the formats' documents.

mod common;

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use common::*;
use piney_disc::{
    FileEntry, ImageFormat, Iso9660, MediaKind, RAW_SECTOR_SIZE, SECTOR_SIZE, SectorSource,
    VideoMode,
};

/// The name genisoimage records for a tree path's last component.
fn iso_name(component: &str) -> String {
    component.to_ascii_uppercase()
}

/// Checks every file of the tree: looked up by several spellings, its bytes read back whole
/// and in pieces, and each directory listing has exactly the expected names.
fn check_tree<S: SectorSource>(fs: &mut Iso9660<S>) {
    check_tree_with(fs, &[]);
}

/// `check_tree`, with more names expected in the root directory.
fn check_tree_with<S: SectorSource>(fs: &mut Iso9660<S>, extra_root: &[&str]) {
    let files = tree_files();
    for f in &files {
        let entry = fs
            .lookup(f.path)
            .unwrap_or_else(|e| panic!("{}: {e}", f.path));
        assert!(!entry.is_dir);
        assert_eq!(entry.size, f.data.len() as u64, "{}", f.path);
        let whole = fs.read_file(&entry, 1 << 30).unwrap();
        assert!(whole == f.data, "{}: bytes differ", f.path);
        // Other spellings of the same path.
        let upper = f.path.to_ascii_uppercase();
        let spellings = [
            format!("cdrom0:\\{};1", upper.replace('/', "\\")),
            format!("CDROM0:\\{}", f.path.replace('/', "\\")),
            format!("/{}", f.path.to_ascii_lowercase()),
            format!("{upper};1"),
        ];
        for s in &spellings {
            let e2 = fs.lookup(s).unwrap_or_else(|e| panic!("{s}: {e}"));
            assert_eq!(e2.lba, entry.lba, "{s}");
        }
        // Reads at odd offsets and lengths, across sector boundaries.
        if f.data.len() > 5000 {
            let mut buf = vec![0u8; 4321];
            for offset in [1u64, 2047, 2048, 4095, (f.data.len() - 100) as u64] {
                let n = fs.read_file_range(&entry, offset, &mut buf).unwrap();
                let end = (offset as usize + buf.len()).min(f.data.len());
                assert_eq!(n, end - offset as usize);
                assert!(
                    buf[..n] == f.data[offset as usize..end],
                    "{} @{offset}",
                    f.path
                );
            }
            assert_eq!(
                fs.read_file_range(&entry, f.data.len() as u64, &mut buf)
                    .unwrap(),
                0
            );
        }
    }
    // Directory listings.
    let mut dirs: BTreeSet<String> = BTreeSet::new();
    dirs.insert(String::new());
    for f in &files {
        let mut prefix = String::new();
        for part in f
            .path
            .split('/')
            .collect::<Vec<_>>()
            .split_last()
            .unwrap()
            .1
        {
            if !prefix.is_empty() {
                prefix.push('/');
            }
            prefix.push_str(part);
            dirs.insert(prefix.clone());
        }
    }
    for dir in &dirs {
        let listed: BTreeSet<String> = fs
            .read_dir(dir)
            .unwrap()
            .iter()
            .map(|e: &FileEntry| e.name.to_ascii_uppercase())
            .collect();
        let mut expected: BTreeSet<String> = BTreeSet::new();
        if dir.is_empty() {
            expected.extend(extra_root.iter().map(|n| n.to_string()));
        }
        for f in &files {
            let rest = if dir.is_empty() {
                Some(f.path)
            } else {
                f.path.strip_prefix(&format!("{dir}/"))
            };
            if let Some(rest) = rest {
                expected.insert(iso_name(rest.split('/').next().unwrap()));
            }
        }
        assert_eq!(listed, expected, "listing of {dir:?}");
    }
    // SYSTEM.CNF and the boot file.
    let boot = fs.boot_info().unwrap();
    assert_eq!(boot.boot_path, "cdrom0:\\SLUS_202.67;1");
    assert_eq!(boot.serial.as_deref(), Some("SLUS-20267"));
    assert_eq!(boot.cnf.version.as_deref(), Some("1.00"));
    assert_eq!(boot.cnf.video_mode, Some(VideoMode::Ntsc));
    assert_eq!(boot.cnf.get("HDDUNITPOWER"), Some("NICHDD"));
    assert_eq!(boot.boot_file.name, BOOT_NAME);
    assert!(fs.lookup("NOPE.BIN").is_err());
    assert!(fs.lookup("data/NOPE/x").is_err());
    assert!(fs.lookup("SYSTEM.CNF/x").is_err());
}

fn check_iso_file(iso: &Path) {
    let disc = piney_disc::open(iso).unwrap();
    assert_eq!(disc.format(), ImageFormat::Iso);
    assert_eq!(disc.kind(), MediaKind::Cd);
    let bytes = fs::read(iso).unwrap();
    assert_eq!(disc.sector_count(), (bytes.len() / SECTOR) as u64);
    let mut fs = disc.into_filesystem().unwrap();
    assert_eq!(fs.volume_space_size(), (bytes.len() / SECTOR) as u64);
    assert_eq!(fs.layer1_start(), None);
    check_tree(&mut fs);
}

#[test]
fn genisoimage_rock_ridge_joliet() {
    let s = Scratch::new("rrj");
    let iso = make_iso(&s, "rrj", &["-R", "-J", "-V", "TEST"]);
    check_iso_file(&iso);
    let fs = piney_disc::open(&iso).unwrap().into_filesystem().unwrap();
    assert_eq!(fs.volume_id(), "TEST");
}

#[test]
fn genisoimage_plain_level1() {
    let s = Scratch::new("l1");
    let iso = make_iso(&s, "l1", &["-V", "PLAIN"]);
    check_iso_file(&iso);
}

#[test]
fn genisoimage_level2_long_names_no_versions() {
    let s = Scratch::new("l2");
    let tree = s.path("tree");
    write_tree(&tree, &tree_files());
    fs::write(tree.join("a_long_name_for_level2.data"), b"long").unwrap();
    let iso = s.path("l2.iso");
    // -iso-level 2 keeps 31-character names; -N leaves the ";1" off.
    genisoimage(&[
        "-o",
        iso.to_str().unwrap(),
        "-iso-level",
        "2",
        "-N",
        tree.to_str().unwrap(),
    ]);
    let mut fs = piney_disc::open(&iso).unwrap().into_filesystem().unwrap();
    let e = fs.lookup("cdrom0:\\A_LONG_NAME_FOR_LEVEL2.DATA;1").unwrap();
    assert_eq!(fs.read_file(&e, 100).unwrap(), b"long");
    let e = fs.lookup("a_long_name_for_level2.data").unwrap();
    assert_eq!(e.size, 4);
    check_tree_with(&mut fs, &["A_LONG_NAME_FOR_LEVEL2.DATA"]);
    // -l: long names in ISO 9660 (31 characters) with versions.
    let iso2 = s.path("l.iso");
    genisoimage(&["-o", iso2.to_str().unwrap(), "-l", tree.to_str().unwrap()]);
    let mut fs2 = piney_disc::open(&iso2).unwrap().into_filesystem().unwrap();
    assert_eq!(fs2.lookup("\\a_long_name_for_level2.data").unwrap().size, 4);
    check_tree_with(&mut fs2, &["A_LONG_NAME_FOR_LEVEL2.DATA"]);
}

fn check_same_sectors(a: &mut dyn SectorSource, b: &mut dyn SectorSource) {
    assert_eq!(a.sector_count(), b.sector_count());
    let mut x = [0u8; SECTOR_SIZE];
    let mut y = [0u8; SECTOR_SIZE];
    for lba in 0..a.sector_count() {
        a.read_user(lba, &mut x).unwrap();
        b.read_user(lba, &mut y).unwrap();
        assert!(x == y, "sector {lba} differs");
    }
    // Backwards too, so that no read relies on the one before it.
    for lba in (0..a.sector_count()).rev().step_by(7) {
        a.read_user(lba, &mut x).unwrap();
        b.read_user(lba, &mut y).unwrap();
        assert!(x == y, "sector {lba} differs (backwards)");
    }
}

#[test]
fn chdman_cd_from_iso() {
    let s = Scratch::new("chd");
    let iso = make_iso(&s, "chd", &["-R", "-J"]);
    let chd = s.path("x.chd");
    chdman(&[
        "createcd",
        "-i",
        iso.to_str().unwrap(),
        "-o",
        chd.to_str().unwrap(),
    ]);
    let mut from_iso = piney_disc::open(&iso).unwrap();
    let mut from_chd = piney_disc::open(&chd).unwrap();
    assert_eq!(from_chd.format(), ImageFormat::Chd);
    assert_eq!(from_chd.kind(), MediaKind::Cd);
    assert!(!from_chd.has_raw(), "MODE1 (cooked) track");
    check_same_sectors(&mut from_iso, &mut from_chd);
    check_tree(&mut from_chd.into_filesystem().unwrap());
}

#[test]
fn chdman_cd_from_raw_bin_cue() {
    let s = Scratch::new("chdraw");
    let iso = make_iso(&s, "chdraw", &[]);
    let iso_bytes = fs::read(&iso).unwrap();
    for (mode, cue_mode) in [(1u8, "MODE1/2352"), (2, "MODE2/2352")] {
        let bin = iso_to_bin(&iso_bytes, mode);
        fs::write(s.path("raw.bin"), &bin).unwrap();
        let cue = s.path("raw.cue");
        fs::write(
            &cue,
            format!("FILE \"raw.bin\" BINARY\n  TRACK 01 {cue_mode}\n    INDEX 01 00:00:00\n"),
        )
        .unwrap();
        let chd = s.path(&format!("raw{mode}.chd"));
        chdman(&[
            "createcd",
            "-f",
            "-i",
            cue.to_str().unwrap(),
            "-o",
            chd.to_str().unwrap(),
        ]);
        let mut from_chd = piney_disc::open(&chd).unwrap();
        assert!(from_chd.has_raw());
        let mut from_iso = piney_disc::open(&iso).unwrap();
        check_same_sectors(&mut from_iso, &mut from_chd);
        // The raw sectors are ours, byte for byte (their zero EDC/ECC kept as they were).
        let mut raw = [0u8; RAW_SECTOR_SIZE];
        for lba in [0u64, 16, 17, 100] {
            from_chd.read_raw(lba, &mut raw).unwrap();
            let at = lba as usize * 2352;
            assert!(
                raw[..] == bin[at..at + 2352],
                "mode {mode} raw sector {lba}"
            );
        }
        check_tree(&mut from_chd.into_filesystem().unwrap());
    }
}

#[test]
fn chdman_dvd_units() {
    // chdman 0.251 has no createdvd; createraw with 2048-byte units, with and without the
    // "DVD " tag createdvd adds, is the same layout.
    let s = Scratch::new("chddvd");
    let iso = make_iso(&s, "chddvd", &["-R"]);
    let raw = s.path("raw.chd");
    chdman(&[
        "createraw",
        "-i",
        iso.to_str().unwrap(),
        "-o",
        raw.to_str().unwrap(),
        "-hs",
        "8192",
        "-us",
        "2048",
        "-c",
        "none",
    ]);
    // addmeta writes in place (only into an uncompressed CHD), and chdman makes CHDs read-only.
    let mut perms = fs::metadata(&raw).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)] // the test's own scratch file
    perms.set_readonly(false);
    fs::set_permissions(&raw, perms).unwrap();
    chdman(&[
        "addmeta",
        "-i",
        raw.to_str().unwrap(),
        "-t",
        "DVD ",
        "-vt",
        "1",
    ]);
    // And one without the tag: 2048-byte units alone say DVD.
    let untagged = s.path("untagged.chd");
    chdman(&[
        "createraw",
        "-i",
        iso.to_str().unwrap(),
        "-o",
        untagged.to_str().unwrap(),
        "-hs",
        "4096",
        "-us",
        "2048",
        "-c",
        "lzma",
    ]);
    for (name, compression) in [
        ("raw.chd", None),
        ("untagged.chd", None),
        ("lzma.chd", Some("lzma,zlib")),
        ("huff.chd", Some("huff")),
    ] {
        let chd = s.path(name);
        if let Some(c) = compression {
            chdman(&[
                "copy",
                "-i",
                raw.to_str().unwrap(),
                "-o",
                chd.to_str().unwrap(),
                "-c",
                c,
            ]);
        }
        let mut from_chd = piney_disc::open(&chd).unwrap();
        assert_eq!(from_chd.kind(), MediaKind::Dvd, "{name}");
        let mut from_iso = piney_disc::open(&iso).unwrap();
        check_same_sectors(&mut from_iso, &mut from_chd);
        check_tree(&mut from_chd.into_filesystem().unwrap());
    }
}

#[test]
fn cso_and_zso() {
    let s = Scratch::new("ciso");
    let iso = make_iso(&s, "ciso", &["-R", "-J"]);
    let iso_bytes = fs::read(&iso).unwrap();
    let cases = [
        (CisoKind::CsoV1, 2048u32, 0u8, 5usize),
        (CisoKind::CsoV1, 16384, 2, 3),
        (CisoKind::CsoV2, 2048, 0, 4),
        (CisoKind::CsoV2, 8192, 3, 0),
        (CisoKind::Zso, 2048, 0, 6),
        (CisoKind::Zso, 32768, 4, 2),
    ];
    for (kind, block, shift, store_every) in cases {
        let image = write_ciso(&iso_bytes, kind, block, shift, store_every);
        let path = s.path("x.cso");
        fs::write(&path, &image).unwrap();
        let what = format!("{kind:?} block {block} shift {shift}");
        let mut disc = piney_disc::open(&path).unwrap();
        assert_eq!(
            disc.format(),
            match kind {
                CisoKind::CsoV1 => ImageFormat::Cso { version: 1 },
                CisoKind::CsoV2 => ImageFormat::Cso { version: 2 },
                CisoKind::Zso => ImageFormat::Zso,
            },
            "{what}"
        );
        assert_eq!(disc.kind(), MediaKind::Cd);
        assert!(
            all_sectors(&mut disc) == iso_bytes,
            "{what}: sectors differ"
        );
        let mut from_iso = piney_disc::open(&iso).unwrap();
        check_same_sectors(&mut from_iso, &mut disc);
        check_tree(&mut disc.into_filesystem().unwrap());
    }
}

#[test]
fn bin_and_cue() {
    let s = Scratch::new("bin");
    let iso = make_iso(&s, "bin", &["-J"]);
    let iso_bytes = fs::read(&iso).unwrap();
    let sectors = (iso_bytes.len() / SECTOR) as u64;
    for mode in [1u8, 2] {
        let bin = iso_to_bin(&iso_bytes, mode);
        let bin_path = s.path("game.bin");
        fs::write(&bin_path, &bin).unwrap();
        // The BIN on its own, found by its sync pattern.
        let mut disc = piney_disc::open(&bin_path).unwrap();
        assert_eq!(disc.format(), ImageFormat::Bin { sector_size: 2352 });
        assert_eq!(disc.kind(), MediaKind::Cd);
        assert!(disc.has_raw());
        assert!(all_sectors(&mut disc) == iso_bytes, "mode {mode}");
        let mut raw = [0u8; RAW_SECTOR_SIZE];
        disc.read_raw(16, &mut raw).unwrap();
        assert!(raw[..] == bin[16 * 2352..17 * 2352]);
        check_tree(&mut disc.into_filesystem().unwrap());

        // Through a cue sheet (named .txt: the format is found from the content), with an
        // audio track after the data in the same file, CRLF lines and comments.
        let mut with_audio = bin.clone();
        with_audio.extend(Rng::new(3).bytes(2352 * 200));
        fs::write(s.path("game two.bin"), &with_audio).unwrap();
        let m = sectors + 2 * 75; // the audio track's INDEX 01, after a 2-second pregap
        let (m0, m1) = (sectors, m);
        let msf = |f: u64| format!("{:02}:{:02}:{:02}", f / 4500, f / 75 % 60, f % 75);
        let cue = format!(
            "REM made by the test\r\nFILE \"game two.bin\" BINARY\r\n  TRACK 01 MODE{mode}/2352\r\n    INDEX 01 00:00:00\r\n  TRACK 02 AUDIO\r\n    INDEX 00 {}\r\n    INDEX 01 {}\r\n",
            msf(m0),
            msf(m1)
        );
        let cue_path = s.path("game.txt");
        fs::write(&cue_path, cue).unwrap();
        let mut disc = piney_disc::open(&cue_path).unwrap();
        assert_eq!(disc.format(), ImageFormat::Cue { sector_size: 2352 });
        assert_eq!(disc.sector_count(), sectors);
        assert!(all_sectors(&mut disc) == iso_bytes, "cue mode {mode}");
        assert!(disc.read_user(sectors, &mut [0u8; SECTOR_SIZE]).is_err());
        check_tree(&mut disc.into_filesystem().unwrap());
    }
    // MODE1/2048: the cue names the ISO itself.
    let cue_path = s.path("cooked.cue");
    fs::write(
        &cue_path,
        "FILE bin.iso BINARY\n TRACK 1 MODE1/2048\n  INDEX 1 0:0:0\n",
    )
    .unwrap();
    let mut disc = piney_disc::open(&cue_path).unwrap();
    assert_eq!(disc.format(), ImageFormat::Cue { sector_size: 2048 });
    assert!(!disc.has_raw());
    assert!(all_sectors(&mut disc) == iso_bytes);
}

#[test]
fn raw_2448_bin() {
    // Raw sectors with 96 bytes of subchannel after each.
    let s = Scratch::new("bin2448");
    let iso = make_iso(&s, "bin2448", &[]);
    let iso_bytes = fs::read(&iso).unwrap();
    let mut bin = Vec::new();
    for (lba, data) in iso_bytes.chunks(SECTOR).enumerate() {
        bin.extend(raw_sector(data, lba as u64, 2));
        bin.extend([0xA5u8; 96]);
    }
    let path = s.path("sub.img");
    fs::write(&path, &bin).unwrap();
    let mut disc = piney_disc::open(&path).unwrap();
    assert_eq!(disc.format(), ImageFormat::Bin { sector_size: 2448 });
    assert!(all_sectors(&mut disc) == iso_bytes);
}
