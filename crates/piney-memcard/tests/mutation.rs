//! A valid image mutated 2,000 times by a seeded PRNG (bits flipped, interesting words
//! written into the filesystem's pages with or without fixing their ECC, pages erased, the
//! size changed): every open gives Ok or Err, never a panic; an image that opens survives
//! being listed, read and written, each step answering Ok or Err in bounded time.

mod common;

use common::*;
use piney_memcard::{Card, OpenFlags, Whence, ecc, open_card, open_image_bytes};
use std::fs;
use std::path::Path;
use std::time::Instant;

/// xorshift64*: small, seeded, good enough to spread mutations.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn base_image(dir: &Path) -> Vec<u8> {
    let p = dir.join("base.ps2");
    let mut card = open_card(&p, t(0)).unwrap();
    card.mkdir(b"/A", t(1)).unwrap();
    card.mkdir(b"/B", t(1)).unwrap();
    card.mkdir(b"/C", t(1)).unwrap();
    card.mkdir(b"/C/D", t(1)).unwrap();
    for (i, (path, len)) in [
        (&b"/A/icon.sys"[..], 964usize),
        (b"/A/list.ico", 3000),
        (b"/A/empty", 0),
        (b"/C/D/data", 5000),
        (b"/C/x", 1),
    ]
    .into_iter()
    .enumerate()
    {
        let fh = card
            .open(path, OpenFlags::CREATE | OpenFlags::RDWR, t(2))
            .unwrap();
        let body: Vec<u8> = (0..len).map(|k| (k * 13 + i) as u8).collect();
        card.write(fh, &body, t(3)).unwrap();
        card.close(fh, t(4)).unwrap();
    }
    card.delete(b"/C/x").unwrap();
    drop(card);
    fs::read(&p).unwrap()
}

fn fix_ecc(img: &mut [u8], page: usize) {
    let d: [u8; 512] = img[off(page, 0)..off(page, 512)].try_into().unwrap();
    img[off(page, 512)..off(page, 528)].copy_from_slice(&ecc::page_spare(&d));
}

const INTERESTING: [u32; 14] = [
    0,
    1,
    2,
    3,
    41,
    8134,
    8135,
    8191,
    8192,
    0x7FFF_FFFF,
    0x8000_0000,
    0x8000_0001,
    0xFFFF_FFFD,
    0xFFFF_FFFF,
];

fn mutate(img: &mut Vec<u8>, r: &mut Rng) {
    // The pages the filesystem of the base image uses: superblock, indirect FAT, FAT, and the
    // first allocatable clusters (directories and files).
    let hot = |r: &mut Rng| match r.below(4) {
        0 => 0,
        1 => 16 + r.below(4) as usize,
        _ => 82 + r.below(40) as usize,
    };
    for _ in 0..1 + r.below(3) {
        match r.below(20) {
            0..=6 => {
                let page = hot(r);
                for _ in 0..1 + r.below(4) {
                    let bit = r.below(512 * 8) as usize;
                    img[off(page, bit / 8)] ^= 1 << (bit % 8);
                }
                if r.below(10) < 7 {
                    fix_ecc(img, page);
                }
            }
            7..=12 => {
                let page = hot(r);
                let at = (r.below(128) * 4) as usize;
                let v = INTERESTING[r.below(INTERESTING.len() as u64) as usize];
                let v = if r.below(4) == 0 {
                    v.wrapping_add(r.below(16) as u32)
                } else {
                    v
                };
                img[off(page, at)..off(page, at + 4)].copy_from_slice(&v.to_le_bytes());
                fix_ecc(img, page);
            }
            13..=15 => {
                let i = r.below(img.len() as u64) as usize;
                img[i] = r.next() as u8;
            }
            16 | 17 => {
                let page = hot(r);
                if r.below(2) == 0 {
                    img[off(page, 512)..off(page, 528)].fill(0xFF);
                } else {
                    img[off(page, 0)..off(page, 528)].fill(0);
                }
            }
            18 => {
                let n = img.len() - 1 - r.below(1000) as usize;
                img.truncate(n);
            }
            _ => {
                let page = hot(r);
                let other = hot(r);
                let src = img[off(other, 0)..off(other, 528)].to_vec();
                img[off(page, 0)..off(page, 528)].copy_from_slice(&src);
            }
        }
    }
}

/// Walks everything reachable, reads every file, and changes the card a little; every result
/// is allowed but must come back.
fn exercise(card: &mut dyn Card) {
    let _ = card.info();
    let mut stack = vec![b"/".to_vec()];
    let mut seen = 0;
    while let Some(d) = stack.pop() {
        let mut pat = d.clone();
        pat.push(b'*');
        let Ok(list) = card.getdir(&pat, 100) else {
            continue;
        };
        for e in list {
            seen += 1;
            if seen > 500 || e.name == b"." || e.name == b".." {
                continue;
            }
            let mut p = d.clone();
            p.extend_from_slice(&e.name);
            if e.is_dir() {
                p.push(b'/');
                stack.push(p);
            } else if let Ok(fh) = card.open(&p, OpenFlags::RDONLY, t(50)) {
                let mut buf = vec![0u8; 4096];
                for _ in 0..4 {
                    if !matches!(card.read(fh, &mut buf), Ok(n) if n > 0) {
                        break;
                    }
                }
                let _ = card.close(fh, t(50));
            }
        }
    }
    if let Ok(fh) = card.open(b"/A/new", OpenFlags::CREATE | OpenFlags::RDWR, t(51)) {
        let _ = card.write(fh, &[0xAB; 2500], t(51));
        let _ = card.seek(fh, 100, Whence::Set);
        let _ = card.write(fh, b"xyz", t(51));
        let _ = card.close(fh, t(51));
    }
    let _ = card.mkdir(b"/B/sub", t(52));
    let _ = card.rename(b"/A/list.ico", b"list2.ico");
    let _ = card.delete(b"/A/icon.sys");
    let _ = card.delete(b"/C/D/data");
    let _ = card.get_ent_space(b"/C");
    let _ = card.chdir(b"/C/D");
    let _ = card.getdir(b"*", 10);
    let _ = card.info();
}

#[test]
fn two_thousand_mutations_never_panic() {
    let dir = scratch("mutation");
    let base = base_image(&dir);
    let name = dir.join("mutant.ps2");
    let mut r = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut ok, mut err) = (0, 0);
    let start = Instant::now();
    for i in 0..2000 {
        let mut img = base.clone();
        mutate(&mut img, &mut r);
        let one = Instant::now();
        match open_image_bytes(&name, img) {
            Ok(mut card) => {
                ok += 1;
                exercise(card.as_mut());
            }
            Err(e) => {
                err += 1;
                let m = e.to_string();
                assert!(
                    m.starts_with(&name.display().to_string()),
                    "mutation {i}: {m}"
                );
            }
        }
        assert!(
            one.elapsed().as_secs() < 20,
            "mutation {i} took {:?}",
            one.elapsed()
        );
    }
    eprintln!("{ok} opened, {err} refused, in {:?}", start.elapsed());
    assert!(ok > 100 && err > 100, "{ok} opened, {err} refused");
}
