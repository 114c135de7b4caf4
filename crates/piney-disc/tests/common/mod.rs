//! Test helpers: a scratch folder, the external tools (which must be installed: CI installs
//! them, and a test that cannot run them fails), a tree of files for genisoimage, and our own
//! writers for the formats no Debian tool writes (CSO, ZSO, raw BIN).

#![allow(dead_code)] // each test binary uses a different part of this module

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

pub const SECTOR: usize = 2048;

/// A folder under cargo's per-test scratch space, removed when dropped.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Scratch {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("piney-disc-{name}-{}-{n}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// Runs an external tool; a missing tool fails the test with how to get it.
pub fn run_tool(tool: &str, package: &str, args: &[&str]) {
    let output = match Command::new(tool).args(args).output() {
        Ok(o) => o,
        Err(e) => panic!(
            "{tool} could not be run ({e}); install Debian's {package} (tools/test.sh does: apt-get install {package})"
        ),
    };
    assert!(
        output.status.success(),
        "{tool} {args:?} failed: {}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
}

pub fn genisoimage(args: &[&str]) {
    let mut all = vec!["-quiet"];
    all.extend_from_slice(args);
    run_tool("genisoimage", "genisoimage", &all);
}

pub fn chdman(args: &[&str]) {
    run_tool("chdman", "mame-tools", args);
}

/// xorshift64*: a small seeded generator, so that every failure names a seed to replay.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next() % n }
    }
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

/// A file of the test tree: its path under the tree (as written, mixed case), its bytes, and
/// its name on an ISO 9660 disc made by genisoimage (upper case).
pub struct TreeFile {
    pub path: &'static str,
    pub data: Vec<u8>,
}

pub const BOOT_NAME: &str = "SLUS_202.67";

pub fn system_cnf_text() -> &'static str {
    "BOOT2 = cdrom0:\\SLUS_202.67;1\r\nVER = 1.00\r\nVMODE = NTSC\r\nHDDUNITPOWER = NICHDD\r\n"
}

/// The files the images are made of: nested folders, upper and lower case names, an empty
/// file, one spanning many sectors, a folder of many entries (its directory spans sectors), a
/// SYSTEM.CNF and the boot file it names. Names are 8.3 so that ISO level 1 keeps them.
pub fn tree_files() -> Vec<TreeFile> {
    let mut rng = Rng::new(7);
    let mut files = vec![
        TreeFile {
            path: "SYSTEM.CNF",
            data: system_cnf_text().as_bytes().to_vec(),
        },
        TreeFile {
            path: BOOT_NAME,
            data: {
                let mut elf = b"\x7fELF\x01\x01\x01".to_vec();
                elf.extend(rng.bytes(12_345));
                elf
            },
        },
        TreeFile {
            path: "EMPTY.DAT",
            data: Vec::new(),
        },
        TreeFile {
            path: "readme.txt",
            data: b"lower case name\n".to_vec(),
        },
        TreeFile {
            path: "Mixed.Txt",
            data: b"Mixed Case Name\n".repeat(300),
        },
        TreeFile {
            path: "data/BIG.BIN",
            data: rng.bytes(150 * SECTOR + 1234),
        },
        TreeFile {
            path: "data/sub/deep/leaf.dat",
            data: rng.bytes(SECTOR * 3),
        },
        TreeFile {
            path: "data/sub/ONE.SEC",
            data: rng.bytes(SECTOR),
        },
    ];
    const MANY: [&str; 60] = [
        "F00.DAT", "F01.DAT", "F02.DAT", "F03.DAT", "F04.DAT", "F05.DAT", "F06.DAT", "F07.DAT",
        "F08.DAT", "F09.DAT", "F10.DAT", "F11.DAT", "F12.DAT", "F13.DAT", "F14.DAT", "F15.DAT",
        "F16.DAT", "F17.DAT", "F18.DAT", "F19.DAT", "F20.DAT", "F21.DAT", "F22.DAT", "F23.DAT",
        "F24.DAT", "F25.DAT", "F26.DAT", "F27.DAT", "F28.DAT", "F29.DAT", "F30.DAT", "F31.DAT",
        "F32.DAT", "F33.DAT", "F34.DAT", "F35.DAT", "F36.DAT", "F37.DAT", "F38.DAT", "F39.DAT",
        "F40.DAT", "F41.DAT", "F42.DAT", "F43.DAT", "F44.DAT", "F45.DAT", "F46.DAT", "F47.DAT",
        "F48.DAT", "F49.DAT", "F50.DAT", "F51.DAT", "F52.DAT", "F53.DAT", "F54.DAT", "F55.DAT",
        "F56.DAT", "F57.DAT", "F58.DAT", "F59.DAT",
    ];
    for (i, name) in MANY.iter().enumerate() {
        let path: &'static str = Box::leak(format!("many/{name}").into_boxed_str());
        files.push(TreeFile {
            path,
            data: rng.bytes(100 + i * 37),
        });
    }
    files
}

/// Writes the tree under `dir`.
pub fn write_tree(dir: &Path, files: &[TreeFile]) {
    for f in files {
        let p = dir.join(f.path);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(&p, &f.data).unwrap();
    }
}

/// Makes the tree and an ISO of it with genisoimage and `args`; returns the ISO's path.
pub fn make_iso(scratch: &Scratch, name: &str, args: &[&str]) -> PathBuf {
    let tree = scratch.path(&format!("{name}-tree"));
    write_tree(&tree, &tree_files());
    let iso = scratch.path(&format!("{name}.iso"));
    let mut all = vec!["-o", iso.to_str().unwrap()];
    all.extend_from_slice(args);
    all.push(tree.to_str().unwrap());
    genisoimage(&all);
    iso
}

/// How our CSO/ZSO writer lays blocks out.
#[derive(Clone, Copy, Debug)]
pub enum CisoKind {
    CsoV1,
    CsoV2,
    Zso,
}

/// Writes `iso` as CSO/ZSO following maxcso's README_CSO.md/README_ZSO.md. Every `store_every`th
/// block is stored uncompressed even if it compresses; blocks start aligned to `1 << shift`.
pub fn write_ciso(
    iso: &[u8],
    kind: CisoKind,
    block_size: u32,
    shift: u8,
    store_every: usize,
) -> Vec<u8> {
    let bs = block_size as usize;
    let blocks = iso.len().div_ceil(bs);
    let align = 1usize << shift;
    let mut out = Vec::new();
    out.extend_from_slice(match kind {
        CisoKind::Zso => b"ZISO",
        _ => b"CISO",
    });
    out.extend_from_slice(&0x18u32.to_le_bytes());
    out.extend_from_slice(&(iso.len() as u64).to_le_bytes());
    out.extend_from_slice(&block_size.to_le_bytes());
    out.push(match kind {
        CisoKind::CsoV2 => 2,
        _ => 1,
    });
    out.push(shift);
    out.extend_from_slice(&[0, 0]);
    let index_at = out.len();
    out.resize(index_at + (blocks + 1) * 4, 0);
    let mut index = Vec::with_capacity(blocks + 1);
    let pad = |out: &mut Vec<u8>| {
        while !out.len().is_multiple_of(align) {
            out.push(0);
        }
    };
    for (i, block) in iso.chunks(bs).enumerate() {
        pad(&mut out);
        let pos = (out.len() >> shift) as u32;
        let deflated = {
            let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
            e.write_all(block).unwrap();
            e.finish().unwrap()
        };
        let lz4 = lz4_flex::block::compress(block);
        let force_store = store_every != 0 && i % store_every == store_every - 1;
        let entry = match kind {
            CisoKind::CsoV1 => {
                if force_store || deflated.len() >= block.len() {
                    out.extend_from_slice(block);
                    pos | 0x8000_0000
                } else {
                    out.extend_from_slice(&deflated);
                    pos
                }
            }
            CisoKind::Zso => {
                if force_store || lz4.len() >= block.len() {
                    out.extend_from_slice(block);
                    pos | 0x8000_0000
                } else {
                    out.extend_from_slice(&lz4);
                    pos
                }
            }
            CisoKind::CsoV2 => {
                // Stored when its space (padding included) would reach the block size; else
                // LZ4 (top bit) on odd blocks and deflate on even ones, to mix both.
                let (data, lz) = if i % 2 == 1 {
                    (&lz4, true)
                } else {
                    (&deflated, false)
                };
                let padded = data.len().next_multiple_of(align);
                if force_store || padded >= bs {
                    out.extend_from_slice(block);
                    // A stored block must take at least block_size bytes of index space.
                    while out.len() - ((pos as usize) << shift) < bs {
                        out.push(0);
                    }
                    pos
                } else {
                    out.extend_from_slice(data);
                    if lz { pos | 0x8000_0000 } else { pos }
                }
            }
        };
        index.push(entry);
    }
    pad(&mut out);
    index.push((out.len() >> shift) as u32);
    for (i, e) in index.iter().enumerate() {
        out[index_at + i * 4..index_at + i * 4 + 4].copy_from_slice(&e.to_le_bytes());
    }
    out
}

fn bcd(v: u64) -> u8 {
    (((v / 10) << 4) | (v % 10)) as u8
}

/// One raw 2352-byte sector for user data `data` at `lba`: sync, BCD MSF header (LBA 0 is
/// 00:02:00, 150 frames in), mode byte, (Mode 2: an 8-byte subheader for a Form 1 data
/// sector,) the data, and zero EDC/ECC.
pub fn raw_sector(data: &[u8], lba: u64, mode: u8) -> Vec<u8> {
    let mut s = vec![0u8; 2352];
    s[0] = 0;
    s[1..11].fill(0xFF);
    let f = lba + 150;
    s[12] = bcd(f / 4500);
    s[13] = bcd(f / 75 % 60);
    s[14] = bcd(f % 75);
    s[15] = mode;
    if mode == 1 {
        s[16..16 + SECTOR].copy_from_slice(data);
    } else {
        s[18] = 0x08; // submode: data
        s[22] = 0x08;
        s[24..24 + SECTOR].copy_from_slice(data);
    }
    s
}

/// The ISO's sectors as a raw BIN of `mode` (1 or 2).
pub fn iso_to_bin(iso: &[u8], mode: u8) -> Vec<u8> {
    let mut out = Vec::with_capacity(iso.len() / SECTOR * 2352);
    for (lba, data) in iso.chunks(SECTOR).enumerate() {
        out.extend(raw_sector(data, lba as u64, mode));
    }
    out
}

/// Every sector of a source, as one byte vector.
pub fn all_sectors(source: &mut dyn piney_disc::SectorSource) -> Vec<u8> {
    let n = source.sector_count() as usize;
    let mut out = vec![0u8; n * SECTOR];
    source.read_sectors(0, &mut out).unwrap();
    out
}
