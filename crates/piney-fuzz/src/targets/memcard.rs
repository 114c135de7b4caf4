//! Targets on memory cards: PCSX2 `.ps2` images (with and without the spare area) and folder
//! cards' sidecar files, opened as `--memcard1 PATH` opens them and then used as MCSERV uses a
//! card: every directory listed, every file read, a file written, renamed, deleted.
//!
//! The seeds are made by piney-memcard itself when loaded (an 8 MiB image does not belong in
//! the tree): a formatted card with a few folders and files, and the root sidecar a folder card
//! wrote for the same tree.

use std::path::Path;

use piney_memcard::{Card, OpenFlags, Timestamp, Whence};

use crate::harness::{Scratch, Seed, Target};
use crate::mutate::Format;

fn t(min: u8) -> Timestamp {
    Timestamp::new(2004, 5, 6, 7, min, 9)
}

/// The tree every seed card holds: folders, files of several sizes, a deleted file.
fn fill(card: &mut dyn Card) {
    for d in [&b"/BESLUS-20267"[..], b"/B", b"/B/C"] {
        card.mkdir(d, t(1)).expect("a folder on a new card");
    }
    for (i, (path, len)) in [
        (&b"/BESLUS-20267/icon.sys"[..], 964usize),
        (b"/BESLUS-20267/list.ico", 3000),
        (b"/BESLUS-20267/empty", 0),
        (b"/B/C/data", 5000),
        (b"/B/gone", 1),
    ]
    .into_iter()
    .enumerate()
    {
        let fh = card
            .open(path, OpenFlags::CREATE | OpenFlags::RDWR, t(2))
            .expect("a file on a new card");
        let body: Vec<u8> = (0..len).map(|k| (k * 13 + i) as u8).collect();
        card.write(fh, &body, t(3)).expect("writes to a new card");
        card.close(fh, t(4)).expect("closes on a new card");
    }
    card.delete(b"/B/gone").expect("deletes on a new card");
    card.flush().expect("the new card is written");
}

/// Walks everything reachable, reads every file, changes the card a little.
fn exercise(card: &mut dyn Card) -> Result<(), String> {
    card.info().map_err(|e| e.to_string())?;
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
            if seen > 300 || e.name == b"." || e.name == b".." {
                continue;
            }
            let mut p = d.clone();
            p.extend_from_slice(&e.name);
            if e.is_dir() {
                p.push(b'/');
                stack.push(p);
            } else if let Ok(fh) = card.open(&p, OpenFlags::RDONLY, t(50)) {
                let mut buf = vec![0u8; 4096];
                for _ in 0..3 {
                    if !matches!(card.read(fh, &mut buf), Ok(n) if n > 0) {
                        break;
                    }
                }
                let _ = card.seek(fh, -1, Whence::End);
                let _ = card.close(fh, t(50));
            }
        }
    }
    if let Ok(fh) = card.open(b"/B/new", OpenFlags::CREATE | OpenFlags::RDWR, t(51)) {
        let _ = card.write(fh, &[0xab; 2500], t(51));
        let _ = card.close(fh, t(51));
    }
    let _ = card.rename(b"/BESLUS-20267/list.ico", b"list2.ico");
    let _ = card.delete(b"/BESLUS-20267/icon.sys");
    let _ = card.mkdir(b"/B/C/D", t(52));
    let _ = card.get_ent_space(b"/B");
    let _ = card.chdir(b"/B/C");
    let _ = card.getdir(b"*", 10);
    card.flush().map_err(|e| e.to_string())
}

fn image_seeds() -> Vec<Seed> {
    let dir = Scratch::new("memcard-seeds");
    [true, false]
        .into_iter()
        .map(|spare| {
            let name = if spare { "seed.ps2" } else { "seed.bin" };
            let p = dir.file(name, &piney_memcard::formatted_image_bytes(spare, t(0)));
            let mut card = piney_memcard::open_image(&p).expect("a formatted image opens");
            fill(card.as_mut());
            drop(card);
            Seed {
                name: format!("formatted {name} with a few folders and files (piney-memcard)"),
                bytes: std::fs::read(&p).expect("the image was written"),
            }
        })
        .collect()
}

/// Memory card images, as `--memcard1 CARD.ps2` opens them.
pub const MEMCARD_IMAGE: Target = Target {
    name: "memcard_image",
    about: "an 8 MiB memory card image (with or without ECC) checked, opened and used as MCSERV uses a card",
    format: Format {
        // The superblock: magic, version, page size, pages per cluster and block, clusters,
        // allocation offset and end, root cluster, backup blocks, the indirect FAT list, the
        // bad block list, card type and flags.
        header: &[
            0, 28, 40, 42, 44, 46, 48, 52, 56, 60, 64, 68, 80, 208, 336, 337,
        ],
        dictionary: &[],
        // The superblock, the indirect FAT, the FAT and the first clusters (directories).
        focus: 128 << 10,
        max_len: 9 << 20,
        fixup: None,
    },
    seeds: image_seeds,
    run: |data, _| {
        let mut card = piney_memcard::open_image_bytes(Path::new("case.ps2"), data.to_vec())
            .map_err(|e| format!("--memcard1 {e}"))?;
        exercise(card.as_mut())
    },
    ci_cases: 1000,
};

/// Copies the folder `from` into `to` (files and folders, nothing else).
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        let dest = to.join(e.file_name());
        if e.file_type()?.is_dir() {
            copy_tree(&e.path(), &dest)?;
        } else {
            std::fs::copy(e.path(), dest)?;
        }
    }
    Ok(())
}

fn folder_seeds() -> Vec<Seed> {
    let dir = Scratch::new("memcard-folder-seeds");
    let root = dir.folder("card");
    let mut card = piney_memcard::open_folder(&root, t(0)).expect("a new folder card");
    fill(card.as_mut());
    drop(card);
    vec![Seed {
        name: "the root sidecar of a folder card with a few folders and files (piney-memcard)"
            .into(),
        bytes: std::fs::read(root.join(".piney-mc")).expect("the folder card wrote a sidecar"),
    }]
}

/// Folder cards: the seed tree as host files, with the case as its root sidecar.
pub const MEMCARD_FOLDER: Target = Target {
    name: "memcard_folder",
    about: "a folder card's root sidecar (.piney-mc) beside the seed tree, opened and used as MCSERV uses a card",
    format: Format {
        header: &[],
        dictionary: &[
            "piney-mc 1",
            "self ",
            "entry ",
            "free",
            "unformatted",
            "mode=0x8427",
            "mode=0x8497",
            "mode=0x",
            "attr=0x00000000",
            "created=",
            "modified=",
            "2004-05-06T07:08:09",
            "65535-255-255T255:255:255",
            "name=",
            "name=BESLUS-20267",
            "name=B",
            "name=%2F",
            "name=%00",
            "name=.",
            "name=..",
            "%",
            "\n",
            "\r\n",
            "\r",
            " ",
            "#",
            "\u{0}",
            "é",
        ],
        focus: 0,
        max_len: 16 << 10,
        fixup: None,
    },
    seeds: folder_seeds,
    run: |data, scratch| {
        // The tree as the seed's card left it, copied afresh for every case (a case may change
        // it; making it through the card each time would sync every file).
        let template = scratch.dir().join("template");
        if !template.exists() {
            let mut card =
                piney_memcard::open_folder(&template, t(0)).map_err(|e| e.to_string())?;
            fill(card.as_mut());
        }
        let root = scratch.folder("card");
        copy_tree(&template, &root).map_err(|e| format!("copying the seed tree: {e}"))?;
        std::fs::write(root.join(".piney-mc"), data).map_err(|e| e.to_string())?;
        let mut card =
            piney_memcard::open_folder(&root, t(0)).map_err(|e| format!("--memcard1 {e}"))?;
        exercise(card.as_mut())
    },
    ci_cases: 1000,
};
