//! Broken images: each gives a clear error naming the file and the reason, never a panic.

mod common;

use std::fs;
use std::path::Path;

use common::*;
use piney_disc::{DiscError, SECTOR_SIZE, SectorSource};

fn open_err(path: &Path) -> DiscError {
    match piney_disc::open(path) {
        Ok(d) => panic!("{} opened as {:?}", path.display(), d),
        Err(e) => {
            let text = e.to_string();
            assert!(
                text.contains(&path.display().to_string()),
                "the error should name the file: {text}"
            );
            e
        }
    }
}

/// Opens the image and reads every sector and file; returns the first error.
fn read_everything(path: &Path) -> Result<(), DiscError> {
    let mut disc = piney_disc::open(path)?;
    let mut buf = [0u8; SECTOR_SIZE];
    for lba in 0..disc.sector_count() {
        disc.read_user(lba, &mut buf)?;
    }
    let mut fs = disc.into_filesystem()?;
    for f in tree_files() {
        let e = fs.lookup(f.path)?;
        fs.read_file(&e, 1 << 30)?;
    }
    Ok(())
}

#[test]
fn missing_empty_garbage() {
    let s = Scratch::new("garbage");
    let e = open_err(&s.path("nope.iso"));
    assert!(matches!(e, DiscError::Io { .. }), "{e:?}");

    let empty = s.path("empty.iso");
    fs::write(&empty, b"").unwrap();
    let e = open_err(&empty);
    assert!(matches!(e, DiscError::Truncated { .. }), "{e:?}");

    let garbage = s.path("garbage.bin");
    fs::write(&garbage, Rng::new(1).bytes(100_000)).unwrap();
    let e = open_err(&garbage);
    assert!(matches!(e, DiscError::Unsupported { .. }), "{e:?}");
    assert!(e.to_string().contains("not a known disc image"), "{e}");

    // Text that is not a cue sheet.
    let text = s.path("notes.txt");
    fs::write(&text, "hello\nworld\n".repeat(5000)).unwrap();
    assert!(matches!(open_err(&text), DiscError::Unsupported { .. }));
}

#[test]
fn truncated_iso() {
    let s = Scratch::new("trunc");
    let iso = make_iso(&s, "trunc", &[]);
    let bytes = fs::read(&iso).unwrap();
    // Too short to hold a volume descriptor.
    let short = s.path("short.iso");
    fs::write(&short, &bytes[..10 * SECTOR]).unwrap();
    let e = open_err(&short);
    assert!(matches!(e, DiscError::Truncated { .. }), "{e:?}");
    // The descriptor is there, the rest of the volume is not.
    let half = s.path("half.iso");
    fs::write(&half, &bytes[..40 * SECTOR + 100]).unwrap();
    let disc = piney_disc::open(&half).unwrap();
    let e = disc.into_filesystem().unwrap_err();
    assert!(matches!(e, DiscError::Truncated { .. }), "{e:?}");
    let text = e.to_string();
    assert!(text.contains("half.iso") && text.contains("40"), "{text}");
}

#[test]
fn read_past_the_end_names_the_lba() {
    let s = Scratch::new("pastend");
    let iso = make_iso(&s, "pastend", &[]);
    let iso_bytes = fs::read(&iso).unwrap();
    let cso = s.path("x.cso");
    fs::write(&cso, write_ciso(&iso_bytes, CisoKind::CsoV1, 2048, 0, 0)).unwrap();
    let bin = s.path("x.bin");
    fs::write(&bin, iso_to_bin(&iso_bytes, 2)).unwrap();
    let chd = s.path("x.chd");
    chdman(&[
        "createcd",
        "-i",
        iso.to_str().unwrap(),
        "-o",
        chd.to_str().unwrap(),
    ]);
    for path in [&iso, &cso, &bin, &chd] {
        let mut disc = piney_disc::open(path).unwrap();
        let n = disc.sector_count();
        let mut buf = [0u8; SECTOR_SIZE];
        disc.read_user(n - 1, &mut buf).unwrap();
        for lba in [n, n + 1, u64::MAX] {
            let e = disc.read_user(lba, &mut buf).unwrap_err();
            assert!(
                matches!(e, DiscError::PastEnd { lba: l, sectors, .. } if l == lba && sectors == n),
                "{e:?}"
            );
            let text = e.to_string();
            assert!(text.contains(&format!("LBA {lba}")), "{text}");
            assert!(text.contains(&path.display().to_string()), "{text}");
        }
        let mut two = vec![0u8; 2 * SECTOR_SIZE];
        assert!(matches!(
            disc.read_sectors(n - 1, &mut two),
            Err(DiscError::PastEnd { .. })
        ));
        assert!(matches!(
            disc.read_sectors(0, &mut [0u8; 100]),
            Err(DiscError::InvalidRequest { .. })
        ));
    }
    // No raw sectors from an ISO.
    let mut disc = piney_disc::open(&iso).unwrap();
    assert!(!disc.has_raw());
    assert!(matches!(
        disc.read_raw(0, &mut [0u8; 2352]),
        Err(DiscError::InvalidRequest { .. })
    ));
}

fn set_u32(bytes: &mut [u8], at: usize, v: u32) {
    bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

#[test]
fn bad_cso_headers_and_indexes() {
    let s = Scratch::new("badcso");
    let iso = make_iso(&s, "badcso", &[]);
    let iso_bytes = fs::read(&iso).unwrap();
    let good = write_ciso(&iso_bytes, CisoKind::CsoV1, 2048, 0, 0);
    let path = s.path("bad.cso");
    let try_with = |edit: &dyn Fn(&mut Vec<u8>)| {
        let mut b = good.clone();
        edit(&mut b);
        fs::write(&path, &b).unwrap();
        open_err(&path)
    };
    // Index entries out of order.
    let e = try_with(&|b| {
        let (x, y) = (
            u32::from_le_bytes(b[24 + 12..28 + 12].try_into().unwrap()),
            u32::from_le_bytes(b[28 + 12..32 + 12].try_into().unwrap()),
        );
        set_u32(b, 24 + 12, y);
        set_u32(b, 28 + 12, x);
    });
    assert!(
        matches!(e, DiscError::Corrupt { .. }) && e.to_string().contains("out of order"),
        "{e}"
    );
    // The last entry past the end of the file.
    let blocks = iso_bytes.len() / 2048;
    let e = try_with(&|b| set_u32(b, 24 + blocks * 4, 0x7FFF_FFF0));
    assert!(e.to_string().contains("past the end"), "{e}");
    // The first block inside the index.
    let e = try_with(&|b| set_u32(b, 24, 8));
    assert!(matches!(e, DiscError::Corrupt { .. }), "{e}");
    // A header claiming a petabyte: the index would not fit, so nothing is allocated for it.
    let e = try_with(&|b| b[8..16].copy_from_slice(&(1u64 << 50).to_le_bytes()));
    assert!(matches!(e, DiscError::Truncated { .. }), "{e}");
    // Block sizes and versions.
    let e = try_with(&|b| set_u32(b, 16, 3000));
    assert!(e.to_string().contains("block size"), "{e}");
    let e = try_with(&|b| set_u32(b, 16, 0));
    assert!(matches!(e, DiscError::Corrupt { .. }), "{e}");
    let e = try_with(&|b| b[20] = 9);
    assert!(matches!(e, DiscError::Unsupported { .. }), "{e}");
    let e = try_with(&|b| b[21] = 40);
    assert!(e.to_string().contains("shift"), "{e}");
    let e = try_with(&|b| b.truncate(20));
    assert!(matches!(e, DiscError::Truncated { .. }), "{e}");
    let e = try_with(&|b| b.truncate(24 + 40));
    assert!(matches!(e, DiscError::Truncated { .. }), "{e}");
}

#[test]
fn corrupt_cso_and_zso_blocks() {
    let s = Scratch::new("badblock");
    let iso = make_iso(&s, "badblock", &[]);
    let iso_bytes = fs::read(&iso).unwrap();
    for kind in [CisoKind::CsoV1, CisoKind::CsoV2, CisoKind::Zso] {
        let mut image = write_ciso(&iso_bytes, kind, 2048, 0, 0);
        // Block 16 (the volume descriptor) compresses well; overwrite its data with noise.
        let entry = |b: &[u8], i: usize| {
            (u32::from_le_bytes(b[24 + i * 4..28 + i * 4].try_into().unwrap()) & 0x7FFF_FFFF)
                as usize
        };
        let (start, end) = (entry(&image, 16), entry(&image, 17));
        assert!(
            end - start < 2048,
            "{kind:?}: block 16 should be compressed"
        );
        let noise = Rng::new(16).bytes(end - start);
        image[start..end].copy_from_slice(&noise);
        let path = s.path("bad.cso");
        fs::write(&path, &image).unwrap();
        let mut disc = piney_disc::open(&path).unwrap();
        let mut buf = [0u8; SECTOR_SIZE];
        disc.read_user(15, &mut buf).unwrap();
        match disc.read_user(16, &mut buf) {
            Err(e @ DiscError::Block { .. }) => {
                let text = e.to_string();
                assert!(
                    text.contains("block 16") && text.contains("bad.cso"),
                    "{text}"
                );
            }
            Err(e) => panic!("{kind:?}: {e:?}"),
            // Noise that happens to decode is still no panic, but the bytes must differ.
            Ok(()) => assert!(buf[..] != iso_bytes[16 * 2048..17 * 2048], "{kind:?}"),
        }
        disc.read_user(17, &mut buf).unwrap();
        assert!(buf[..] == iso_bytes[17 * 2048..18 * 2048]);
    }
}

/// The CHD header's fields (big endian).
fn chd_u64(b: &[u8], at: usize) -> u64 {
    u64::from_be_bytes(b[at..at + 8].try_into().unwrap())
}

#[test]
fn corrupt_chd() {
    let s = Scratch::new("badchd");
    let iso = make_iso(&s, "badchd", &["-R"]);
    let chd = s.path("good.chd");
    chdman(&[
        "createcd",
        "-i",
        iso.to_str().unwrap(),
        "-o",
        chd.to_str().unwrap(),
    ]);
    let good = fs::read(&chd).unwrap();
    let path = s.path("bad.chd");
    let write = |b: &[u8]| {
        let _ = fs::remove_file(&path);
        fs::write(&path, b).unwrap();
    };

    // Flipped bytes in the hunks (between the header and the map): opening works (header and
    // map are intact), reading reports the hunk.
    let map_offset = chd_u64(&good, 40) as usize;
    let mut hit = 0;
    for seed in 0..8u64 {
        let mut b = good.clone();
        let mut rng = Rng::new(seed);
        let at = 400 + rng.below((map_offset - 500) as u64) as usize;
        for i in 0..16 {
            b[at + i] ^= 0x5A;
        }
        write(&b);
        match read_everything(&path) {
            Err(e @ DiscError::ChdHunk { .. }) => {
                hit += 1;
                let text = e.to_string();
                assert!(
                    text.contains("bad.chd") && text.contains("CHD hunk"),
                    "{text}"
                );
            }
            Err(e) => panic!("seed {seed}: {e:?}"),
            // The flipped bytes were in metadata or padding nothing reads.
            Ok(()) => {}
        }
    }
    assert!(hit >= 4, "only {hit} of 8 corruptions were noticed");

    // Header fields.
    let header_case = |at: usize, bytes: &[u8]| {
        let mut b = good.clone();
        b[at..at + bytes.len()].copy_from_slice(bytes);
        write(&b);
        open_err(&path)
    };
    let e = header_case(12, &4u32.to_be_bytes());
    assert!(matches!(e, DiscError::Unsupported { .. }), "{e}");
    let e = header_case(56, &0u32.to_be_bytes());
    assert!(matches!(e, DiscError::Corrupt { .. }), "{e}");
    let e = header_case(32, &(1u64 << 60).to_be_bytes());
    assert!(matches!(e, DiscError::Corrupt { .. }), "{e}");
    let e = header_case(60, &512u32.to_be_bytes());
    assert!(
        matches!(e, DiscError::Corrupt { .. } | DiscError::Unsupported { .. }),
        "{e}"
    );
    let e = header_case(40, &(u64::MAX - 5).to_be_bytes());
    assert!(matches!(e, DiscError::Truncated { .. }), "{e}");
    let e = header_case(104, &[1u8; 20]);
    assert!(e.to_string().contains("parent"), "{e}");
    let e = header_case(0, b"MComprHX");
    assert!(matches!(e, DiscError::Unsupported { .. }), "{e}");
    write(&good[..100]);
    assert!(matches!(open_err(&path), DiscError::Truncated { .. }));
    write(&good[..map_offset + 4]);
    assert!(matches!(open_err(&path), DiscError::Truncated { .. }));
}

#[test]
fn no_or_bad_system_cnf() {
    let s = Scratch::new("cnf");
    let make = |name: &str, cnf: Option<&str>| {
        let tree = s.path(&format!("{name}-tree"));
        let mut files = tree_files();
        files.retain(|f| f.path != "SYSTEM.CNF");
        write_tree(&tree, &files);
        if let Some(cnf) = cnf {
            fs::write(tree.join("SYSTEM.CNF"), cnf).unwrap();
        }
        let iso = s.path(&format!("{name}.iso"));
        genisoimage(&["-o", iso.to_str().unwrap(), tree.to_str().unwrap()]);
        piney_disc::open(&iso).unwrap().into_filesystem().unwrap()
    };
    let e = make("none", None).boot_info().unwrap_err();
    assert!(matches!(e, DiscError::NoSystemCnf { .. }), "{e:?}");
    assert!(e.to_string().contains("none.iso") && e.to_string().contains("SYSTEM.CNF"));

    let e = make(
        "bad",
        Some("BOOT2 = cdrom0:\\SLUS_202.67;1\nVMODE = MESECAM\n"),
    )
    .boot_info()
    .unwrap_err();
    assert!(e.to_string().contains("line 2"), "{e}");

    let e = make("missing", Some("BOOT2 = cdrom0:\\SLUS_999.99;1\n"))
        .boot_info()
        .unwrap_err();
    assert!(
        matches!(&e, DiscError::BootFileMissing { boot, .. } if boot == "cdrom0:\\SLUS_999.99;1"),
        "{e:?}"
    );
    assert!(e.to_string().contains("SLUS_999.99"));

    // BOOT2 naming a directory.
    let e = make("dir", Some("BOOT2 = cdrom0:\\DATA;1\n"))
        .boot_info()
        .unwrap_err();
    assert!(matches!(e, DiscError::BootFileMissing { .. }), "{e:?}");

    let e = make("ps1", Some("BOOT = cdrom:\\SCUS_944.26;1\r\nTCB = 4\r\n"))
        .boot_info()
        .unwrap_err();
    assert!(matches!(e, DiscError::Ps1Disc { .. }), "{e:?}");
    assert!(e.to_string().contains("PlayStation 1"), "{e}");
}

#[test]
fn corrupt_directories() {
    let s = Scratch::new("baddir");
    let iso = make_iso(&s, "baddir", &[]);
    let good = fs::read(&iso).unwrap();
    let root_lba =
        u32::from_le_bytes(good[16 * 2048 + 158..16 * 2048 + 162].try_into().unwrap()) as usize;
    let path = s.path("bad.iso");
    let with = |edit: &dyn Fn(&mut Vec<u8>)| {
        let mut b = good.clone();
        edit(&mut b);
        fs::write(&path, &b).unwrap();
        piney_disc::open(&path).unwrap()
    };
    // A record too short to be one.
    let mut fs_ = with(&|b| b[root_lba * 2048] = 5).into_filesystem().unwrap();
    let e = fs_.lookup("SYSTEM.CNF").unwrap_err();
    assert!(
        matches!(e, DiscError::FileSystem { .. }) && e.to_string().contains("does not fit"),
        "{e}"
    );
    // A record running off the end of its sector: the last one in the first sector of MANY's
    // directory (two sectors long), made longer than what is left.
    let many = piney_disc::open(&iso)
        .unwrap()
        .into_filesystem()
        .unwrap()
        .lookup("many")
        .unwrap();
    assert!(many.size > 2048);
    let at = many.lba as usize * 2048;
    let mut pos = 0;
    let mut last = 0;
    while pos < 2048 && good[at + pos] != 0 {
        last = pos;
        pos += good[at + pos] as usize;
    }
    assert!(last + 255 > 2048, "the last record is at {last}");
    let mut fs_ = with(&|b| b[at + last] = 255).into_filesystem().unwrap();
    let e = fs_.read_dir("MANY").unwrap_err();
    assert!(e.to_string().contains("does not fit"), "{e}");
    // The root directory pointing past the end of the image.
    let e = with(&|b| {
        b[16 * 2048 + 158..16 * 2048 + 162].copy_from_slice(&0x00FF_FFFFu32.to_le_bytes())
    })
    .into_filesystem()
    .unwrap()
    .read_dir("")
    .unwrap_err();
    assert!(matches!(e, DiscError::PastEnd { .. }), "{e:?}");
    // A block size the PS2 does not use.
    let e = with(&|b| b[16 * 2048 + 128..16 * 2048 + 130].copy_from_slice(&512u16.to_le_bytes()))
        .into_filesystem()
        .unwrap_err();
    assert!(matches!(e, DiscError::Unsupported { .. }), "{e:?}");
    // No primary descriptor: the type byte changed.
    let e = with(&|b| b[16 * 2048] = 2).into_filesystem().unwrap_err();
    assert!(e.to_string().contains("primary volume descriptor"), "{e}");
}

#[test]
fn bad_cue_sheets() {
    let s = Scratch::new("badcue");
    let iso = make_iso(&s, "badcue", &[]);
    fs::write(s.path("x.bin"), iso_to_bin(&fs::read(&iso).unwrap(), 2)).unwrap();
    let cue = s.path("x.cue");
    let case = |text: &str| {
        fs::write(&cue, text).unwrap();
        open_err(&cue)
    };
    let e = case("FILE \"missing.bin\" BINARY\n  TRACK 01 MODE2/2352\n    INDEX 01 00:00:00\n");
    assert!(
        matches!(e, DiscError::Cue { line: 2, .. }) && e.to_string().contains("missing.bin"),
        "{e}"
    );
    let e = case("  TRACK 01 MODE2/2352\nFILE x.bin BINARY\n");
    assert!(matches!(e, DiscError::Cue { line: 1, .. }), "{e}");
    let e = case("FILE x.bin BINARY\n  TRACK 01 MODE2/2352\n    INDEX 01 00:99:00\n");
    assert!(matches!(e, DiscError::Cue { line: 3, .. }), "{e}");
    // Audio tracks only: an audio CD (tests/cdda.rs), no data sectors; a bad mode among
    // several tracks is named as for one.
    fs::write(
        &cue,
        "FILE x.bin BINARY\n  TRACK 01 AUDIO\n    INDEX 01 00:00:00\n",
    )
    .unwrap();
    assert_eq!(piney_disc::open(&cue).unwrap().sector_count(), 0);
    let e = case(
        "FILE x.bin BINARY\n  TRACK 01 MODE2/2352\n INDEX 01 00:00:00\n TRACK 02 CDG\n INDEX 01 00:04:00\n",
    );
    assert!(
        matches!(e, DiscError::Cue { line: 4, .. }) && e.to_string().contains("CDG"),
        "{e}"
    );
    let e = case("FILE x.bin BINARY\n  TRACK 01 CDG\n    INDEX 01 00:00:00\n");
    assert!(e.to_string().contains("CDG"), "{e}");
    let e = case("FILE x.bin BINARY\n  TRACK 01 MODE2/2352\n");
    assert!(e.to_string().contains("INDEX 01"), "{e}");
    let e = case("FILE x.bin BINARY\n  TRACK 01 MODE2/2352\n    INDEX 01 99:00:00\n");
    assert!(e.to_string().contains("past the end"), "{e}");
    let e = case(
        "FILE x.bin BINARY\n  TRACK 01 MODE2/2352\n INDEX 01 00:10:00\n TRACK 02 AUDIO\n INDEX 01 00:02:00\n",
    );
    assert!(matches!(e, DiscError::Cue { .. }), "{e}");
}

/// What a cue sheet or SYSTEM.CNF says goes into messages escaped and cut short, so every
/// error stays one line (piney-fuzz found a cue sheet's track mode with a control character
/// printed raw).
#[test]
fn quoted_text_stays_one_line() {
    let s = Scratch::new("oneline");
    let iso = make_iso(&s, "oneline", &[]);
    fs::write(s.path("x.bin"), iso_to_bin(&fs::read(&iso).unwrap(), 2)).unwrap();
    let cue = s.path("x.cue");
    let long = "M".repeat(100_000);
    for text in [
        "FILE x.bin BINARY\n  TRACK 01 MODE2/2352\u{2}\n    INDEX 01 00:00:00\n".to_string(),
        "FILE \"x\u{1b}[2J.bin\" BINARY\n  TRACK 01 MODE2/2352\n    INDEX 01 00:00:00\n"
            .to_string(),
        "FILE x.bin BINARY\n  TRACK 01\u{0}\n".to_string(),
        format!("FILE x.bin BINARY\n  TRACK 01 {long}\n    INDEX 01 00:00:00\n"),
        format!("FILE x.bin BINARY\n  TRACK 01 MODE2/2352\n    INDEX 1 {long}\n"),
    ] {
        fs::write(&cue, &text).unwrap();
        let e = open_err(&cue).to_string();
        assert!(!e.chars().any(char::is_control), "{e:?}");
        assert!(e.len() < 400, "{} bytes", e.len());
    }
    fs::write(
        &cue,
        "FILE x.bin BINARY\n  TRACK 01 MODE2/2352\u{2}\n    INDEX 01 00:00:00\n",
    )
    .unwrap();
    let e = open_err(&cue).to_string();
    assert!(
        e.contains("track mode MODE2/2352\\u{2} is not supported"),
        "{e}"
    );
}
