//! The fuzz targets: every format piney reads, each fed to the code piney runs on it (the same
//! calls the binary makes), with its seed corpus.
//!
//! Seeds are our own files where they already are in the repository (tests/guest ELFs,
//! tests/iop IRX modules, the demo, golden PNGs, input scripts, pad traces, profiles, the
//! default mapping), and `corpus/` for the rest (GS dumps piney wrote, GIF and VIF streams,
//! cue sheets, sidecars). Disc images and memory card images are made when the seeds are
//! loaded, by our own code (piney-memcard's formatter, a small ISO 9660 writer here, CSO blocks
//! through the same deflate piney-disc reads), since their size would not belong in the tree.
//! Save states are made when the seeds are loaded (the demo run and saved).

pub mod disc;
pub mod gs;
pub mod machine;
pub mod memcard;
pub mod state;
pub mod text;

use std::path::{Path, PathBuf};

use crate::harness::{Seed, Target};

/// The repository's root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// This crate's corpus folder.
pub fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus")
}

/// Every file in `dir` (relative to the repository) whose name ends with one of `ends`, sorted.
pub fn files(dir: &str, ends: &[&str]) -> Vec<Seed> {
    let root = repo();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
        .unwrap_or_else(|e| panic!("seed folder {dir}: {e}"))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| ends.iter().any(|e| n.ends_with(e)))
        })
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| Seed {
            name: p.strip_prefix(&root).unwrap_or(&p).display().to_string(),
            bytes: std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display())),
        })
        .collect()
}

/// One file (relative to the repository) as a seed.
pub fn file(path: &str) -> Seed {
    Seed {
        name: path.to_string(),
        bytes: std::fs::read(repo().join(path)).unwrap_or_else(|e| panic!("{path}: {e}")),
    }
}

/// Every target, in the order CI runs them.
pub static TARGETS: &[Target] = &[
    machine::ELF_INTERP,
    machine::ELF_JIT,
    machine::IRX,
    machine::GIF_DMA,
    machine::VIF_DMA,
    gs::GS_DUMP,
    gs::PNG,
    text::INPUT_SCRIPT,
    text::PAD_TRACE,
    text::PROFILE,
    text::MAPPING,
    text::SETTINGS,
    disc::DISC,
    disc::CUE,
    memcard::MEMCARD_IMAGE,
    memcard::MEMCARD_FOLDER,
    state::SAVE_STATE,
];

/// The target called `name`.
pub fn by_name(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.name == name)
}
