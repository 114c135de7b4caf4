//! Targets on the GS's files: PCSX2 GS dumps (raw, .xz, .zst) replayed as `piney replay`
//! does, and PNGs compared as `piney compare` does.

use piney_gs::compare::{CompareOptions, compare_paths};
use piney_gs::dump::{ReplayOptions, replay_file};
use piney_gs::{Pcrtc, SoftwareRenderer};

use crate::harness::{Seed, Target};
use crate::mutate::Format;
use crate::targets::files;

/// Frames a dump case replays (each presented and written as a PNG).
pub const DUMP_FRAMES: u64 = 3;

/// The corpus's dumps (piney's own, written by `--dump-gs`, and small ones made by
/// examples/make_corpus.rs), each as stored and decompressed.
fn dump_seeds() -> Vec<Seed> {
    let stored = files(
        "crates/piney-fuzz/corpus/gsdump",
        &[".gs", ".gs.xz", ".gs.zst"],
    );
    let mut v = Vec::new();
    for s in stored {
        if !s.name.ends_with(".gs") {
            let raw =
                piney_gs::dump::decompress(&s.bytes).unwrap_or_else(|e| panic!("{}: {e}", s.name));
            v.push(Seed {
                name: format!("{} (decompressed)", s.name),
                bytes: raw,
            });
        }
        v.push(s);
    }
    v
}

/// GS dumps, as `piney replay DUMP --headless --frames 3 --dump-frames DIR`.
pub const GS_DUMP: Target = Target {
    name: "gs_dump",
    about: "a GS dump (raw, xz or zstd) replayed through the GS and the software renderer, 3 frames presented and written as PNGs",
    format: Format {
        // The new header: marker, size, state version, state size, serial offset and size,
        // CRC, screenshot width, height, offset, size; the old form's state size; the state's
        // version word.
        header: &[0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44],
        dictionary: &[],
        focus: 0,
        max_len: 16 << 20,
        fixup: None,
    },
    seeds: dump_seeds,
    run: |data, scratch| {
        let path = scratch.file("case.gs", data);
        let opts = ReplayOptions {
            pcrtc: Pcrtc::default(),
            format: piney_gs::FrameFormat::Presented,
            dump_frames: Some(scratch.folder("frames")),
            max_frames: Some(DUMP_FRAMES),
        };
        replay_file(&path, &opts, SoftwareRenderer::new())
            .map(|_| ())
            .map_err(|e| format!("{}: {e}", path.display()))
    },
    ci_cases: 200,
};

/// Recomputes every chunk's CRC (PNG: CRC-32 over the chunk type and data), walking the chunks
/// by their lengths while they fit.
pub fn fix_png_crcs(data: &mut [u8]) {
    let mut at = 8;
    while at + 12 <= data.len() {
        let len = u32::from_be_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]]) as usize;
        let Some(end) = (at + 8).checked_add(len).filter(|e| e + 4 <= data.len()) else {
            return;
        };
        let crc = crc32(&data[at + 4..end]);
        data[end..end + 4].copy_from_slice(&crc.to_be_bytes());
        at = end + 4;
    }
}

/// CRC-32 (ISO-HDLC, PNG's), bitwise.
pub fn crc32(data: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in data {
        c ^= b as u32;
        for _ in 0..8 {
            c = if c & 1 != 0 {
                0xedb8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
    }
    !c
}

/// PNGs, as `piney compare CASE.png GOLDEN.png` (with a diff image when they differ).
pub const PNG: Target = Target {
    name: "png",
    about: "a PNG compared with a golden frame as piney compare does (read, sizes brought together, PSNR, a diff image written)",
    format: Format {
        // IHDR: width, height, depth, colour type, compression, filter, interlace; the first
        // chunk after it.
        header: &[8, 16, 20, 24, 25, 26, 27, 28, 33, 37],
        dictionary: &[],
        focus: 0,
        max_len: 0,
        fixup: Some(fix_png_crcs),
    },
    seeds: || {
        let mut v = files("crates/piney-gs/tests/golden", &[".png"]);
        v.extend(files("crates/piney-fuzz/corpus/png", &[".png"]));
        v
    },
    run: |data, scratch| {
        let a = scratch.file("case.png", data);
        let b = crate::targets::repo().join("crates/piney-gs/tests/golden/textured.png");
        let opts = CompareOptions {
            max_diff_pixels: None,
            min_psnr: None,
            diff_dir: Some(scratch.folder("diff")),
        };
        // Both ways round, as a user may give them.
        compare_paths(&a, &b, &opts).map_err(|e| format!("compare: {e}"))?;
        compare_paths(&b, &a, &opts)
            .map(|_| ())
            .map_err(|e| format!("compare: {e}"))
    },
    ci_cases: 1500,
};

#[cfg(test)]
mod tests {
    #[test]
    fn crc32_check_value() {
        // The catalogue's check value for CRC-32/ISO-HDLC.
        assert_eq!(super::crc32(b"123456789"), 0xcbf4_3926);
    }
}
