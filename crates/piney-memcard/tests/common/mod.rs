//! Helpers shared by the integration tests: scratch directories under Cargo's target tmpdir
//! (named after the test, emptied first, no randomness), fixed timestamps, raw image access.

#![allow(dead_code)]

use piney_memcard::Timestamp;
use std::fs;
use std::path::PathBuf;

/// An empty scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("piney-memcard")
        .join(name);
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

/// Timestamp number `n`: 2004-05-06 07:08:n (distinct, easy to read in failures).
pub fn t(n: u8) -> Timestamp {
    Timestamp::new(2004, 5, 6, 7, 8, n)
}

/// Raw bytes per page of a `.ps2` image.
pub const RAW: usize = 528;

/// Offset in a `.ps2` image of data byte `at` of page `page`.
pub fn off(page: usize, at: usize) -> usize {
    page * RAW + at
}

/// FAT entry `i` (< 128, in FAT cluster 9 = pages 18/19) of a freshly laid-out 8 MiB image.
pub fn fat(img: &[u8], i: usize) -> u32 {
    let page = 18 + i / 128;
    let o = off(page, (i % 128) * 4);
    u32::from_le_bytes(img[o..o + 4].try_into().unwrap())
}

/// Page of entry `half` (0/1) of allocatable cluster `c` (alloc_offset 41).
pub fn cluster_page(c: usize, half: usize) -> usize {
    (41 + c) * 2 + half
}

pub fn u32_at(img: &[u8], o: usize) -> u32 {
    u32::from_le_bytes(img[o..o + 4].try_into().unwrap())
}

pub fn u16_at(img: &[u8], o: usize) -> u16 {
    u16::from_le_bytes(img[o..o + 2].try_into().unwrap())
}

/// Names of a listing.
pub fn names(l: &[piney_memcard::DirEntry]) -> Vec<String> {
    l.iter().map(|e| e.name_lossy()).collect()
}
