//! A test disc: a folder of mixed-case names made into an ISO 9660 image by genisoimage (the
//! test fails when it is missing: `apt-get install genisoimage`), as tests/iop/cdvd.c
//! describes it, with tests/iop/compute.irx as MODULES/COMPUTE.IRX;1.

// Each test binary that includes this module uses a part of it.
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime};

/// The date every file gets: 2004-05-06 07:08:09 UTC.
pub fn date() -> SystemTime {
    // Days from 1970-01-01 to 2004-05-06: 34 years with 8 leap days (1972, 1976... 2000),
    // then January to April 2004 (31 + 29 + 31 + 30) and 5 days.
    let days = 34 * 365 + 8 + 121 + 5;
    SystemTime::UNIX_EPOCH + Duration::from_secs(days * 86_400 + 7 * 3600 + 8 * 60 + 9)
}

/// File.bin's bytes.
pub fn file_bin() -> Vec<u8> {
    (0..5000u32).map(|i| (i * 7 + 3) as u8).collect()
}

/// big.dat's bytes: 400 sectors.
pub fn big_dat() -> Vec<u8> {
    (0..400 * 2048u32)
        .map(|o| ((o >> 11) * 5 + o) as u8)
        .collect()
}

/// SYSTEM.CNF's text (52 bytes).
pub const SYSTEM_CNF: &str = "BOOT2 = cdrom0:\\PINEY.ELF;1\nVER = 1.00\nVMODE = NTSC\n";

fn write(path: &Path, data: &[u8]) {
    fs::write(path, data).unwrap();
    fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(date())
        .unwrap();
}

/// The image's bytes, made in a fresh folder under the target's temporary folder.
pub fn make_iso(name: &str) -> Vec<u8> {
    // A folder of its own for each image (tests run at once in one process).
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("piney-iop-cdvd")
        .join(format!("{name}-{}-{n}", std::process::id()));
    let _ = fs::remove_dir_all(&base);
    let tree = base.join("tree");
    fs::create_dir_all(tree.join("Data/Sub")).unwrap();
    write(&tree.join("System.cnf"), SYSTEM_CNF.as_bytes());
    write(&tree.join("readme.txt"), b"read me\n");
    write(&tree.join("Data/File.bin"), &file_bin());
    write(&tree.join("Data/big.dat"), &big_dat());
    write(&tree.join("Data/Sub/Deep.txt"), b"deep file\n");
    // An IOP module to load from the disc.
    fs::create_dir_all(tree.join("Modules")).unwrap();
    let irx = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/iop/compute.irx");
    write(&tree.join("Modules/compute.irx"), &fs::read(irx).unwrap());
    let iso = base.join("disc.iso");
    let out = Command::new("genisoimage")
        .env("TZ", "UTC")
        .args(["-quiet", "-input-charset", "utf-8", "-V", "PINEY", "-o"])
        .arg(&iso)
        .arg(&tree)
        .output()
        .unwrap_or_else(|e| {
            panic!("genisoimage cannot be run ({e}): the CDVD tests need it (apt-get install genisoimage)")
        });
    assert!(
        out.status.success(),
        "genisoimage failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let data = fs::read(&iso).unwrap();
    assert_eq!(data.len() % 2048, 0, "an ISO image is whole sectors");
    data
}
