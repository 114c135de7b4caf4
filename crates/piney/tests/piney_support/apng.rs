//! Animated PNG captures split by a decoder that is not ours: Debian's `apngdis` writes
//! `apngframeNN.png` (and a `.txt` of its delay) beside its input, one a frame.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The frames of the animated PNG `apng`, in order, as PNG files apngdis wrote beside it (its
/// folder should hold no other capture's frames).
pub fn split(apng: &Path) -> Vec<PathBuf> {
    let dir = apng.parent().unwrap_or(Path::new("."));
    let out = Command::new("apngdis")
        .arg(apng)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| {
            panic!("apngdis could not be run ({e}); install Debian's apngdis (tools/test.sh does)")
        });
    assert!(
        out.status.success(),
        "apngdis: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let mut frames: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("apngframe"))
                && p.extension().is_some_and(|x| x == "png")
        })
        .collect();
    frames.sort();
    frames
}
