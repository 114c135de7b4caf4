//! Targets on disc images: an image of any format (ISO, CSO, CHD, BIN) and cue sheets, opened
//! as `piney info DISC` and `piney run DISC` open them: the format found by content, the ISO
//! 9660 file system, SYSTEM.CNF, the boot file read whole, every directory walked and sectors
//! read where the drive might be asked for them.
//!
//! The seeds are one small disc (corpus/disc: SYSTEM.CNF, a boot program, a folder) as
//! genisoimage made it (`-no-pad`), as tools/make-cso.py compresses it and as chdman's CD CHD
//! (corpus/README.md says how), and as a BIN of raw Mode 2 sectors made from the ISO here
//! ([`iso_to_bin`]), which the cue sheet seeds name.

use piney_disc::{FileEntry, Iso9660, SECTOR_SIZE, SectorSource};

use crate::harness::{Seed, Target};
use crate::mutate::Format;
use crate::targets::{corpus, files};

/// The largest boot program read (as piney's machine allows).
const MAX_BOOT: u64 = piney_machine::disc::MAX_PROGRAM_BYTES;

/// What piney does with a disc: `piney info`'s description and `piney run`'s boot, then what
/// the drive may be asked.
fn use_disc(path: &std::path::Path) -> Result<(), String> {
    let disc = piney_disc::open(path).map_err(|e| e.to_string())?;
    let _ = disc.format();
    let _ = disc.kind();
    let n = disc.sector_count();
    let mut fs = disc.into_filesystem().map_err(|e| e.to_string())?;
    let _ = fs.volume_id();
    let _ = fs.layer1_start();
    // Sectors the drive might be asked for: the ends, past the end, the volume descriptors.
    let mut buf = [0u8; SECTOR_SIZE];
    for lba in [
        0,
        16,
        17,
        n.saturating_sub(1),
        n,
        n + 1,
        u64::from(u32::MAX),
        u64::MAX,
    ] {
        let _ = fs.source_mut().read_user(lba, &mut buf);
    }
    if fs.source().has_raw() {
        let mut raw = [0u8; piney_disc::RAW_SECTOR_SIZE];
        for lba in [0, 16, n.saturating_sub(1), n] {
            let _ = fs.source_mut().read_raw(lba, &mut raw);
        }
    }
    // Lookups as cdvdman's and ioman's paths give them.
    for p in [
        "cdrom0:\\SYSTEM.CNF;1",
        "DIR/A.TXT",
        "\\DIR\\..\\SYSTEM.CNF",
        "",
        "/",
    ] {
        if let Ok(e) = fs.lookup(p) {
            let _ = fs.read_file_range(&e, 0, &mut buf);
        }
    }
    if let Some(root) = fs.root(0).cloned() {
        let mut budget = 200;
        walk(&mut fs, &root, 0, &mut budget);
    }
    let info = fs.boot_info().map_err(|e| e.to_string())?;
    fs.read_file(&info.boot_file, MAX_BOOT)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

fn walk<S: SectorSource>(fs: &mut Iso9660<S>, dir: &FileEntry, depth: u32, budget: &mut u32) {
    if depth > 8 || *budget == 0 {
        return;
    }
    let Ok(entries) = fs.read_dir_entry(dir) else {
        return;
    };
    for e in entries {
        if *budget == 0 {
            return;
        }
        *budget -= 1;
        if e.is_dir {
            walk(fs, &e, depth + 1, budget);
        } else {
            let mut buf = [0u8; SECTOR_SIZE];
            let _ = fs.read_file_range(&e, 0, &mut buf);
            let _ = fs.read_file_range(&e, e.size.saturating_sub(100), &mut buf);
        }
    }
}

/// The primary volume descriptor's fields (sector 16): type, identifier, volume space size
/// (both byte orders), logical block size, path table size and places, the root directory
/// record's extent, size and flags; and the CSO header's (magic, header size, total size,
/// block size, version, alignment, first index entries).
const DISC_HEADER: &[usize] = &[
    0, 4, 8, 16, 20, 21, 24, 28, 32768, 32769, 32848, 32852, 32896, 32900, 32908, 32926, 32930,
    32934, 32938, 32949,
];

/// Disc images of every format, found by content.
pub const DISC: Target = Target {
    name: "disc",
    about: "a disc image (ISO, CSO, CHD or BIN) opened, described and booted as piney info and piney run do, its tree walked",
    format: Format {
        header: DISC_HEADER,
        dictionary: &[],
        focus: 0,
        max_len: 1 << 20,
        fixup: None,
    },
    seeds: || {
        let mut v = files("crates/piney-fuzz/corpus/disc", &[".iso", ".cso", ".chd"]);
        v.push(Seed {
            name: "corpus/disc/a.iso as raw Mode 2 sectors".into(),
            bytes: iso_to_bin(&std::fs::read(corpus().join("disc/a.iso")).expect("a.iso")),
        });
        v
    },
    run: |data, scratch| {
        let path = scratch.file("case.img", data);
        use_disc(&path).map_err(|e| format!("{e} (and it is not an ELF program)"))
    },
    ci_cases: 2000,
};

/// Cue sheets, beside the seed disc's BIN (as `a.bin`).
pub const CUE: Target = Target {
    name: "cue",
    about: "a cue sheet naming the seed disc's BIN, opened and booted as piney run does",
    format: Format {
        header: &[],
        dictionary: &[
            "FILE ",
            "\"a.bin\"",
            "a.bin",
            "BINARY",
            "WAVE",
            "TRACK ",
            "01",
            "99",
            "00",
            "MODE1/2352",
            "MODE2/2352",
            "MODE2/2336",
            "MODE1/2048",
            "AUDIO",
            "INDEX ",
            "00:00:00",
            "99:59:74",
            "00:02:00",
            "PREGAP ",
            "REM ",
            "\n",
            "\r",
            "\"",
            " ",
            "../",
            "/etc/passwd",
            "\u{0}",
            "é",
        ],
        focus: 0,
        max_len: 16 << 10,
        fixup: None,
    },
    seeds: || files("crates/piney-fuzz/corpus/disc", &[".cue"]),
    run: |data, scratch| {
        let bin = scratch.dir().join("a.bin");
        if !bin.exists() {
            let iso = std::fs::read(corpus().join("disc/a.iso")).map_err(|e| e.to_string())?;
            std::fs::write(&bin, iso_to_bin(&iso)).map_err(|e| format!("a.bin: {e}"))?;
        }
        let path = scratch.file("case.cue", data);
        use_disc(&path)
    },
    ci_cases: 2000,
};

/// An ISO's sectors as a BIN of raw 2352-byte Mode 2 Form 1 sectors: the sync pattern, the
/// BCD minute/second/frame address counted from 00:02:00, mode 2, the subheader (twice, form
/// 1), the 2048 bytes, and EDC/ECC left zero (readers of user data do not check them).
pub fn iso_to_bin(iso: &[u8]) -> Vec<u8> {
    let bcd = |v: u64| (((v / 10) << 4) | (v % 10)) as u8;
    let mut out = Vec::with_capacity(iso.len() / SECTOR_SIZE * 2352);
    for (lba, data) in iso.chunks(SECTOR_SIZE).enumerate() {
        let at = lba as u64 + 150;
        let mut s = [0u8; 2352];
        s[1..11].fill(0xff);
        s[12] = bcd(at / 75 / 60);
        s[13] = bcd(at / 75 % 60);
        s[14] = bcd(at % 75);
        s[15] = 2;
        s[16..24].copy_from_slice(&[0, 0, 8, 0, 0, 0, 8, 0]);
        s[24..24 + data.len()].copy_from_slice(data);
        out.extend_from_slice(&s);
    }
    out
}

/// Both targets' seeds.
pub fn seeds() -> Vec<Seed> {
    let mut v = (DISC.seeds)();
    v.extend((CUE.seeds)());
    v
}
