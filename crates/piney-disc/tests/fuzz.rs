//! Seeded mutation fuzzing: valid ISO, CSO, ZSO, CHD, BIN, cue sheet and SYSTEM.CNF bytes,
//! mutated thousands of times, and arbitrary lookup paths; opening, looking up and reading must
//! never panic. A failure
//! names the format and the seed, and `PINEY_FUZZ_SEED=<format>:<seed>` replays just that one.

mod common;

use std::fs::{self, File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::panic::{self, AssertUnwindSafe};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use common::*;
use piney_disc::{FileEntry, Iso9660, SECTOR_SIZE, SectorSource, SystemCnf};

/// Mutants per image format (and ten times as many SYSTEM.CNF texts, which are cheap).
const MUTANTS: u64 = 1000;

/// A small tree, so that each mutant is quick to write and read whole.
fn write_small_tree(dir: &Path) {
    let mut rng = Rng::new(99);
    let files: [(&str, Vec<u8>); 6] = [
        ("SYSTEM.CNF", system_cnf_text().as_bytes().to_vec()),
        (BOOT_NAME, rng.bytes(3000)),
        ("EMPTY.DAT", Vec::new()),
        ("dir/A.TXT", b"a small file".to_vec()),
        ("dir/sub/B.BIN", rng.bytes(9000)),
        ("dir/sub/deeper/C.BIN", rng.bytes(2048)),
    ];
    for (path, data) in files {
        let p = dir.join(path);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, data).unwrap();
    }
}

/// Reads what it can of an image the way the emulator would; errors are fine, panics are not.
fn exercise(path: &Path, rng: &mut Rng) {
    let Ok(mut disc) = piney_disc::open(path) else {
        return;
    };
    let n = disc.sector_count();
    let mut buf = [0u8; SECTOR_SIZE];
    let mut raw = [0u8; 2352];
    for lba in [0, 16, n.saturating_sub(1), n, n + 5, u64::MAX] {
        let _ = disc.read_user(lba, &mut buf);
    }
    for _ in 0..16 {
        let lba = rng.below(n + 2);
        let _ = disc.read_user(lba, &mut buf);
        if disc.has_raw() {
            let _ = disc.read_raw(lba, &mut raw);
        }
    }
    let Ok(mut fs) = disc.into_filesystem() else {
        return;
    };
    let _ = fs.layer1_start();
    let _ = fs.boot_info();
    let _ = fs.lookup("cdrom0:\\DIR\\SUB\\B.BIN;1");
    let _ = fs.lookup("dir/sub/deeper/c.bin");
    if let Some(root) = fs.root(0).cloned() {
        let mut budget = 200;
        walk(&mut fs, &root, 0, &mut budget);
    }
}

fn walk<S: SectorSource>(fs: &mut Iso9660<S>, dir: &FileEntry, depth: u32, budget: &mut u32) {
    if depth > 4 || *budget == 0 {
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
            let mut buf = vec![0u8; 20_000];
            let _ = fs.read_file_range(&e, 0, &mut buf);
            let _ = fs.read_file_range(&e, e.size.saturating_sub(100), &mut buf[..300]);
            let _ = fs.read_file_range(&e, 1 << 32, &mut buf[..10]);
        }
    }
}

/// Mutates `base`: a few bytes (often in `hot`, where the headers and tables are), sometimes
/// a truncation or a spliced run.
fn mutate(base: &[u8], hot: &[std::ops::Range<usize>], rng: &mut Rng) -> Vec<u8> {
    let mut b = base.to_vec();
    let edits = 1 + rng.below(8);
    for _ in 0..edits {
        if b.is_empty() {
            break;
        }
        let at = if !hot.is_empty() && rng.below(4) != 0 {
            let r = &hot[rng.below(hot.len() as u64) as usize];
            let (start, end) = (r.start.min(b.len() - 1), r.end.min(b.len()));
            start + rng.below((end - start).max(1) as u64) as usize
        } else {
            rng.below(b.len() as u64) as usize
        };
        match rng.below(6) {
            0 => b[at] ^= 1 << rng.below(8),
            1 => b[at] = rng.next() as u8,
            2 => b[at] = 0,
            3 => b[at] = 0xFF,
            4 => {
                let v = (rng.next() as u32).to_le_bytes();
                for (i, x) in v.iter().enumerate() {
                    if let Some(slot) = b.get_mut(at + i) {
                        *slot = *x;
                    }
                }
            }
            _ => {
                let v = [0u8, 1, 0x7F, 0x80, 0xFF][rng.below(5) as usize];
                for i in 0..4 {
                    if let Some(slot) = b.get_mut(at + i) {
                        *slot = v;
                    }
                }
            }
        }
    }
    match rng.below(16) {
        0 => {
            let len = rng.below(b.len() as u64 + 1) as usize;
            b.truncate(len);
        }
        // Copy a run from elsewhere over another spot.
        1 if b.len() > 64 => {
            let from = rng.below(b.len() as u64 - 32) as usize;
            let to = rng.below(b.len() as u64 - 32) as usize;
            let run: Vec<u8> = b[from..from + 32].to_vec();
            b[to..to + 32].copy_from_slice(&run);
        }
        _ => {}
    }
    b
}

/// A file kept equal to the latest mutant by writing only the bytes that changed, so that
/// thousands of mutants cost little I/O.
struct Mirror {
    file: File,
    current: Vec<u8>,
}

impl Mirror {
    fn new(path: &Path) -> Mirror {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)
            .unwrap();
        Mirror {
            file,
            current: Vec::new(),
        }
    }

    fn update(&mut self, new: &[u8]) {
        let common = self.current.len().min(new.len());
        let mut i = 0;
        while i < common {
            if self.current[i] == new[i] {
                i += 1;
                continue;
            }
            let start = i;
            while i < common && self.current[i] != new[i] {
                i += 1;
            }
            self.file.seek(SeekFrom::Start(start as u64)).unwrap();
            self.file.write_all(&new[start..i]).unwrap();
        }
        if new.len() > common {
            self.file.seek(SeekFrom::Start(common as u64)).unwrap();
            self.file.write_all(&new[common..]).unwrap();
        }
        self.file.set_len(new.len() as u64).unwrap();
        self.current = new.to_vec();
    }
}

struct Case {
    name: &'static str,
    file: &'static str,
    bytes: Vec<u8>,
    hot: Vec<std::ops::Range<usize>>,
}

#[test]
fn mutated_images_never_panic() {
    let started = Instant::now();
    let s = Scratch::new("fuzz");
    let tree = s.path("tree");
    write_small_tree(&tree);
    let iso_path = s.path("base.iso");
    genisoimage(&[
        "-o",
        iso_path.to_str().unwrap(),
        "-R",
        tree.to_str().unwrap(),
    ]);
    let iso = fs::read(&iso_path).unwrap();
    let chd_path = s.path("base.chd");
    chdman(&[
        "createcd",
        "-i",
        iso_path.to_str().unwrap(),
        "-o",
        chd_path.to_str().unwrap(),
    ]);
    let chd = fs::read(&chd_path).unwrap();
    let dvd_path = s.path("dvd.chd");
    chdman(&[
        "createraw",
        "-i",
        iso_path.to_str().unwrap(),
        "-o",
        dvd_path.to_str().unwrap(),
        "-hs",
        "4096",
        "-us",
        "2048",
        "-c",
        "lzma,zlib,huff,flac",
    ]);
    let dvd = fs::read(&dvd_path).unwrap();
    let bin = iso_to_bin(&iso, 2);
    fs::write(s.path("track.bin"), &bin).unwrap();

    // Where each format keeps what a reader trusts: headers, indexes, maps, descriptors and
    // directories.
    let iso_hot = vec![
        16 * 2048..16 * 2048 + 200,
        17 * 2048..17 * 2048 + 8,
        18 * 2048..40 * 2048,
    ];
    let chd_map = u64::from_be_bytes(chd[40..48].try_into().unwrap()) as usize;
    let dvd_map = u64::from_be_bytes(dvd[40..48].try_into().unwrap()) as usize;
    let index_hot = |image: &[u8]| vec![0..24, 24..24 + (iso.len() / 2048 + 1) * 4, 0..image.len()];
    let cso1 = write_ciso(&iso, CisoKind::CsoV1, 2048, 0, 5);
    let cso2 = write_ciso(&iso, CisoKind::CsoV2, 4096, 2, 3);
    let zso = write_ciso(&iso, CisoKind::Zso, 2048, 1, 4);
    let cases = vec![
        Case { name: "iso", file: "m.iso", bytes: iso.clone(), hot: iso_hot.clone() },
        Case { name: "cso1", file: "m.cso", hot: index_hot(&cso1), bytes: cso1 },
        Case { name: "cso2", file: "m.cso", hot: index_hot(&cso2), bytes: cso2 },
        Case { name: "zso", file: "m.zso", hot: index_hot(&zso), bytes: zso },
        Case {
            name: "chd",
            file: "m.chd",
            hot: vec![0..124, 124..400, chd_map..chd.len()],
            bytes: chd.clone(),
        },
        Case {
            name: "chd-dvd",
            file: "d.chd",
            hot: vec![0..124, dvd_map..dvd.len()],
            bytes: dvd.clone(),
        },
        Case {
            name: "bin",
            file: "m.bin",
            hot: vec![0..16, 16 * 2352..17 * 2352, 18 * 2352..30 * 2352],
            bytes: bin.clone(),
        },
        Case {
            name: "cue",
            file: "m.cue",
            hot: vec![],
            bytes: b"REM fuzz\r\nFILE \"track.bin\" BINARY\r\n  TRACK 01 MODE2/2352\r\n    INDEX 00 00:00:00\r\n    INDEX 01 00:00:00\r\n  TRACK 02 AUDIO\r\n    INDEX 01 00:03:00\r\n".to_vec(),
        },
    ];

    // Panics inside the library that it catches itself (the chd crate's codecs) are counted;
    // the hook keeps them off stderr so that only escaping panics are noisy.
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let seen_hook = seen.clone();
    let default_hook = panic::take_hook();
    panic::set_hook(Box::new(move |info| {
        seen_hook.lock().unwrap().push(info.to_string());
    }));

    let only = std::env::var("PINEY_FUZZ_SEED").ok();
    let mut escaped: Vec<String> = Vec::new();
    let mut runs = 0u64;
    for case in &cases {
        let case_started = Instant::now();
        let path = s.path(case.file);
        let mut mirror = Mirror::new(&path);
        for seed in 0..MUTANTS {
            let id = format!("{}:{seed}", case.name);
            if only.as_deref().is_some_and(|o| o != id) {
                continue;
            }
            let mut rng = Rng::new(seed * 7919 + case.name.len() as u64);
            let mutant = mutate(&case.bytes, &case.hot, &mut rng);
            mirror.update(&mutant);
            let before = seen.lock().unwrap().len();
            let result = panic::catch_unwind(AssertUnwindSafe(|| exercise(&path, &mut rng)));
            runs += 1;
            if result.is_err() {
                let message = seen
                    .lock()
                    .unwrap()
                    .get(before)
                    .cloned()
                    .unwrap_or_default();
                escaped.push(format!("{id}: {message}"));
            }
        }
        eprintln!("fuzz: {} in {:.1?}", case.name, case_started.elapsed());
    }
    // SYSTEM.CNF texts.
    let cnf = system_cnf_text().as_bytes();
    for seed in 0..MUTANTS * 10 {
        let id = format!("cnf:{seed}");
        if only.as_deref().is_some_and(|o| o != id) {
            continue;
        }
        let mut rng = Rng::new(seed);
        let mutant = mutate(cnf, &[], &mut rng);
        let before = seen.lock().unwrap().len();
        let result = panic::catch_unwind(|| {
            if let Ok(c) = SystemCnf::parse(Path::new("fuzz"), &mutant) {
                let _ = (c.serial(), c.boot_file_name(), c.is_ps1());
            }
        });
        runs += 1;
        if result.is_err() {
            let message = seen
                .lock()
                .unwrap()
                .get(before)
                .cloned()
                .unwrap_or_default();
            escaped.push(format!("{id}: {message}"));
        }
    }
    // Paths looked up on a good disc: any string, multi-byte characters included.
    let mut fs = piney_disc::open(&iso_path)
        .unwrap()
        .into_filesystem()
        .unwrap();
    let pieces = [
        "cdrom0:",
        "CDROM0:",
        "cdrom:",
        "\\",
        "/",
        ";1",
        ";",
        ".",
        "..",
        "DIR",
        "sub",
        "B.BIN",
        "SYSTEM.CNF",
        "Н",
        "é",
        "\u{0}",
        " ",
        "cdromН:",
        "c",
    ];
    for seed in 0..MUTANTS * 2 {
        let id = format!("path:{seed}");
        if only.as_deref().is_some_and(|o| o != id) {
            continue;
        }
        let mut rng = Rng::new(seed);
        let path: String = (0..rng.below(8))
            .map(|_| pieces[rng.below(pieces.len() as u64) as usize])
            .collect();
        let before = seen.lock().unwrap().len();
        let result = panic::catch_unwind(AssertUnwindSafe(|| {
            let _ = fs.lookup(&path);
            let _ = fs.read_dir(&path);
        }));
        runs += 1;
        if result.is_err() {
            let message = seen
                .lock()
                .unwrap()
                .get(before)
                .cloned()
                .unwrap_or_default();
            escaped.push(format!("{id} ({path:?}): {message}"));
        }
    }
    panic::set_hook(default_hook);
    let caught_inside = seen.lock().unwrap().len() - escaped.len();
    eprintln!(
        "fuzz: {runs} mutants in {:.1?}; {caught_inside} panics inside the chd crate were caught and reported as errors",
        started.elapsed()
    );
    assert!(
        escaped.is_empty(),
        "{} mutants panicked (replay one with PINEY_FUZZ_SEED=<format>:<seed>):\n{}",
        escaped.len(),
        escaped.join("\n")
    );
}
