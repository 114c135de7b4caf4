//! Frame comparison: two PNGs or two folders of numbered PNG frames.
//!
//! Per frame: PSNR over R, G and B (alpha is ignored: PNG screenshots carry none that matters),
//! the number and share of pixels whose RGB differ, and a diff image for each differing frame.
//! Sizes that differ by an integer factor in both directions (PCSX2 screenshots at an upscaled
//! internal resolution) are brought to the smaller size by taking the top-left pixel of each
//! block; a picture of the same height (after such a factor) but another width (a 4:3-stretched
//! picture against a native one) is resampled across to the narrower width, nearest pixel.
//! [`FrameResult::note`] says which was done and which documented frame size each side is
//! ([`frame_kind`]: the display circuits' pixels, 512 x 448 for the engine's mode as PCSX2's GS
//! runner and internal-resolution screenshots hold them, or piney's presented 4:3 picture,
//! 597 x 448, each at a render scale). Other size differences are errors.
//!
//! By default any differing pixel fails a frame; [`CompareOptions::max_diff_pixels`] and
//! [`CompareOptions::min_psnr`] loosen that (each one given must hold).

use std::path::{Path, PathBuf};

use crate::image::{Image, ImageError};

/// Thresholds and outputs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CompareOptions {
    /// At most this many differing pixels a frame (`--max-diff-pixels`).
    pub max_diff_pixels: Option<u64>,
    /// At least this PSNR in dB a frame (`--min-psnr`).
    pub min_psnr: Option<f64>,
    /// Where to write a diff image for each differing frame (none written when `None`).
    pub diff_dir: Option<PathBuf>,
}

/// The result for one pair of frames.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameResult {
    /// The frame's name (A's file name).
    pub name: String,
    /// The compared size.
    pub width: u32,
    /// The compared size.
    pub height: u32,
    /// PSNR in dB (infinite when identical).
    pub psnr: f64,
    /// Pixels whose RGB differ.
    pub diff_pixels: u64,
    /// `diff_pixels` over all pixels.
    pub diff_share: f64,
    /// Whether the frame meets the thresholds.
    pub passed: bool,
    /// The diff image written, if any.
    pub diff_image: Option<PathBuf>,
    /// How the sizes were brought together, when they differed.
    pub note: Option<String>,
}

/// The result of a comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct CompareReport {
    /// One entry per frame, in frame order.
    pub frames: Vec<FrameResult>,
}

impl CompareReport {
    /// True when every frame passed.
    pub fn passed(&self) -> bool {
        self.frames.iter().all(|f| f.passed)
    }
}

/// Why two inputs could not be compared.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    /// An image could not be read or written.
    #[error(transparent)]
    Image(#[from] ImageError),
    /// A path is neither a PNG file nor a folder.
    #[error("{0}: not a PNG file or a folder")]
    NotFound(String),
    /// One side is a file and the other a folder.
    #[error("{a} and {b}: cannot compare a file with a folder")]
    KindMismatch {
        /// First input.
        a: String,
        /// Second input.
        b: String,
    },
    /// A folder could not be listed.
    #[error("{path}: {source}")]
    Io {
        /// The folder.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// A folder holds no PNG frames.
    #[error("{0}: no PNG frames")]
    EmptyFolder(String),
    /// The folders hold different numbers of frames.
    #[error("{a} has {na} frames but {b} has {nb}")]
    FrameCountMismatch {
        /// First folder.
        a: String,
        /// Its frame count.
        na: usize,
        /// Second folder.
        b: String,
        /// Its frame count.
        nb: usize,
    },
    /// Two frames have sizes that cannot be brought together.
    #[error("{a} is {aw}x{ah} but {b} is {bw}x{bh}")]
    SizeMismatch {
        /// First file.
        a: String,
        /// Its width.
        aw: u32,
        /// Its height.
        ah: u32,
        /// Second file.
        b: String,
        /// Its width.
        bw: u32,
        /// Its height.
        bh: u32,
    },
}

/// PSNR and the differing-pixel count of two pictures of the same size.
pub fn compare_images(a: &Image, b: &Image) -> (f64, u64) {
    let mut sq: u64 = 0;
    let mut diff = 0;
    for (pa, pb) in a.rgba.chunks_exact(4).zip(b.rgba.chunks_exact(4)) {
        let mut d = false;
        for i in 0..3 {
            let e = pa[i] as i64 - pb[i] as i64;
            sq += (e * e) as u64;
            d |= e != 0;
        }
        diff += d as u64;
    }
    let n = (a.width as u64 * a.height as u64 * 3).max(1);
    let psnr = if sq == 0 {
        f64::INFINITY
    } else {
        10.0 * (255.0f64 * 255.0 / (sq as f64 / n as f64)).log10()
    };
    (psnr, diff)
}

/// The diff picture: differing pixels in red by their largest channel difference (at least
/// 64), the rest as A's grey level at a quarter.
pub fn diff_image(a: &Image, b: &Image) -> Image {
    let mut out = Image::new(a.width, a.height, [0, 0, 0, 255]);
    for y in 0..a.height {
        for x in 0..a.width {
            let (pa, pb) = (a.get(x, y), b.get(x, y));
            let m = (0..3)
                .map(|i| (pa[i] as i32 - pb[i] as i32).unsigned_abs())
                .max()
                .unwrap_or(0);
            let c = if m > 0 {
                [m.clamp(64, 255) as u8, 0, 0, 255]
            } else {
                let g = ((pa[0] as u32 * 77 + pa[1] as u32 * 150 + pa[2] as u32 * 29) >> 10) as u8;
                [g, g, g, 255]
            };
            out.set(x, y, c);
        }
    }
    out
}

fn downscale(img: &Image, fx: u32, fy: u32) -> Image {
    let (w, h) = (img.width / fx, img.height / fy);
    let mut out = Image::new(w, h, [0; 4]);
    for y in 0..h {
        for x in 0..w {
            out.set(x, y, img.get(x * fx, y * fy));
        }
    }
    out
}

/// Which documented frame size `w` x `h` is: the display circuits' pixels of the engine's mode
/// (512 x 448, or 640 x 448 for a 640-wide mode) or the presented 4:3 picture (597 x 448), at
/// render scale 1 to 8; `None` for any other size.
pub fn frame_kind(w: u32, h: u32) -> Option<String> {
    (1..=8u32).find_map(|s| {
        // Scaled frames are N times the native ones: 597 x 448 becomes 1194 x 896 at 2.
        let (pw, ph) = crate::Presenter::aspect_size(448);
        let (pw, ph) = (pw * s, ph * s);
        if (w, h) == (512 * s, 448 * s) || (w, h) == (640 * s, 448 * s) {
            Some(format!("display pixels at scale {s}"))
        } else if (w, h) == (pw, ph) {
            Some(format!("presented 4:3 at scale {s}"))
        } else {
            None
        }
    })
}

fn describe(w: u32, h: u32) -> String {
    match frame_kind(w, h) {
        Some(k) => format!("{w}x{h}, {k}"),
        None => format!("{w}x{h}, not a documented frame size"),
    }
}

/// Brings two pictures to a common size: the larger is reduced by integer factors in both
/// directions (an upscaled capture), or, with the same height after that, resampled across
/// (nearest) to the narrower width (a 4:3-stretched picture against a native one). Returns a
/// note saying what was done.
fn common_size(
    a: Image,
    b: Image,
    an: &str,
    bn: &str,
) -> Result<(Image, Image, Option<String>), CompareError> {
    if (a.width, a.height) == (b.width, b.height) {
        return Ok((a, b, None));
    }
    let mismatch = || CompareError::SizeMismatch {
        a: an.into(),
        aw: a.width,
        ah: a.height,
        b: bn.into(),
        bw: b.width,
        bh: b.height,
    };
    if a.width == 0 || a.height == 0 || b.width == 0 || b.height == 0 {
        return Err(mismatch());
    }
    let (a_big, (big, small)) = if (a.height, a.width) >= (b.height, b.width) {
        (true, (&a, &b))
    } else {
        (false, (&b, &a))
    };
    if !big.height.is_multiple_of(small.height) {
        return Err(mismatch());
    }
    let fy = big.height / small.height;
    let reduced = if big.width.is_multiple_of(small.width) {
        downscale(big, big.width / small.width, fy)
    } else {
        let tall = downscale(big, 1, fy);
        let mut out = Image::new(small.width, small.height, [0; 4]);
        for y in 0..small.height {
            for x in 0..small.width {
                let sx = (x as u64 * tall.width as u64 / small.width as u64) as u32;
                out.set(x, y, tall.get(sx, y));
            }
        }
        out
    };
    let note = format!(
        "{} scaled from {}x{} to {}x{} (A {}; B {})",
        if a_big { "A" } else { "B" },
        big.width,
        big.height,
        small.width,
        small.height,
        describe(a.width, a.height),
        describe(b.width, b.height)
    );
    if a_big {
        Ok((reduced, b, Some(note)))
    } else {
        Ok((a, reduced, Some(note)))
    }
}

fn frame_number(p: &Path) -> Option<u64> {
    let stem = p.file_stem()?.to_str()?;
    let digits: String = stem
        .chars()
        .rev()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(|c| c.is_ascii_digit())
        .collect();
    digits.chars().rev().collect::<String>().parse().ok()
}

fn list_frames(dir: &Path) -> Result<Vec<PathBuf>, CompareError> {
    let name = dir.display().to_string();
    let rd = std::fs::read_dir(dir).map_err(|source| CompareError::Io {
        path: name.clone(),
        source,
    })?;
    let mut v = Vec::new();
    for e in rd {
        let p = e
            .map_err(|source| CompareError::Io {
                path: name.clone(),
                source,
            })?
            .path();
        if p.extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("png"))
        {
            v.push(p);
        }
    }
    if v.is_empty() {
        return Err(CompareError::EmptyFolder(name));
    }
    // Frame order: the number in the name (its last run of digits), then the name.
    v.sort_by(|x, y| (frame_number(x), x.file_name()).cmp(&(frame_number(y), y.file_name())));
    Ok(v)
}

fn compare_files(a: &Path, b: &Path, opts: &CompareOptions) -> Result<FrameResult, CompareError> {
    let (an, bn) = (a.display().to_string(), b.display().to_string());
    let (ia, ib, note) = common_size(Image::read_png(a)?, Image::read_png(b)?, &an, &bn)?;
    let (psnr, diff_pixels) = compare_images(&ia, &ib);
    let total = (ia.width as u64 * ia.height as u64).max(1);
    let passed = match (opts.max_diff_pixels, opts.min_psnr) {
        (None, None) => diff_pixels == 0,
        (m, p) => m.is_none_or(|m| diff_pixels <= m) && p.is_none_or(|p| psnr >= p),
    };
    let name = a
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or(an);
    let mut diff_path = None;
    if diff_pixels > 0
        && let Some(dir) = &opts.diff_dir
    {
        std::fs::create_dir_all(dir).map_err(|source| CompareError::Io {
            path: dir.display().to_string(),
            source,
        })?;
        let stem = Path::new(&name)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let p = dir.join(format!("{stem}-diff.png"));
        diff_image(&ia, &ib).write_png(&p)?;
        diff_path = Some(p);
    }
    Ok(FrameResult {
        name,
        width: ia.width,
        height: ia.height,
        psnr,
        diff_pixels,
        diff_share: diff_pixels as f64 / total as f64,
        passed,
        diff_image: diff_path,
        note,
    })
}

/// Compares two PNG files, or two folders of numbered PNG frames (paired in frame order).
pub fn compare_paths(
    a: &Path,
    b: &Path,
    opts: &CompareOptions,
) -> Result<CompareReport, CompareError> {
    let (an, bn) = (a.display().to_string(), b.display().to_string());
    match (a.is_dir(), b.is_dir()) {
        (true, true) => {
            let (fa, fb) = (list_frames(a)?, list_frames(b)?);
            if fa.len() != fb.len() {
                return Err(CompareError::FrameCountMismatch {
                    a: an,
                    na: fa.len(),
                    b: bn,
                    nb: fb.len(),
                });
            }
            let frames = fa
                .iter()
                .zip(&fb)
                .map(|(x, y)| compare_files(x, y, opts))
                .collect::<Result<_, _>>()?;
            Ok(CompareReport { frames })
        }
        (false, false) => {
            for (p, n) in [(a, &an), (b, &bn)] {
                if !p.is_file() {
                    return Err(CompareError::NotFound(n.clone()));
                }
            }
            Ok(CompareReport {
                frames: vec![compare_files(a, b, opts)?],
            })
        }
        _ => Err(CompareError::KindMismatch { a: an, b: bn }),
    }
}

impl FrameResult {
    /// One line for the CLI: name, PSNR, differing pixels and share, pass/fail.
    pub fn summary(&self) -> String {
        let psnr = if self.psnr.is_infinite() {
            "inf".to_string()
        } else {
            format!("{:.2}", self.psnr)
        };
        let note = self
            .note
            .as_ref()
            .map_or_else(String::new, |n| format!("; {n}"));
        format!(
            "{}: {}x{} PSNR {} dB, {} differing pixels ({:.4}%) {}{note}",
            self.name,
            self.width,
            self.height,
            psnr,
            self.diff_pixels,
            self.diff_share * 100.0,
            if self.passed { "ok" } else { "DIFFERENT" }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("piney-gs-cmp-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn psnr_and_counts() {
        let a = Image::new(2, 2, [10, 10, 10, 255]);
        let mut b = a.clone();
        assert_eq!(compare_images(&a, &b), (f64::INFINITY, 0));
        // One channel off by 10 in one pixel: MSE = 100 / 12; PSNR = 10 log10(65025 * 12 / 100).
        b.set(1, 1, [20, 10, 10, 0]);
        let (p, d) = compare_images(&a, &b);
        assert_eq!(d, 1);
        assert!((p - 10.0 * (65025.0f64 * 12.0 / 100.0).log10()).abs() < 1e-9);
        // Alpha alone does not count.
        let mut c = a.clone();
        c.set(0, 0, [10, 10, 10, 0]);
        assert_eq!(compare_images(&a, &c).1, 0);
    }

    #[test]
    fn files_folders_thresholds_and_errors() {
        let (da, db, dd) = (tmp("a"), tmp("b"), tmp("d"));
        let base = Image::new(4, 4, [50, 60, 70, 255]);
        let mut other = base.clone();
        other.set(0, 0, [0, 0, 0, 255]);
        for i in [1, 2, 10] {
            base.write_png(&da.join(format!("frame{i}.png"))).unwrap();
            let img = if i == 10 { &other } else { &base };
            img.write_png(&db.join(format!("frame{i}.png"))).unwrap();
        }
        let opts = CompareOptions {
            diff_dir: Some(dd.clone()),
            ..Default::default()
        };
        let r = compare_paths(&da, &db, &opts).unwrap();
        // Numeric order: frame1, frame2, frame10.
        assert_eq!(
            r.frames.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(),
            ["frame1.png", "frame2.png", "frame10.png"]
        );
        assert!(!r.passed());
        assert_eq!(r.frames[2].diff_pixels, 1);
        assert_eq!(r.frames[2].diff_share, 1.0 / 16.0);
        let diff = Image::read_png(r.frames[2].diff_image.as_ref().unwrap()).unwrap();
        assert_eq!(diff.get(0, 0), [70, 0, 0, 255]);
        assert!(r.frames[0].diff_image.is_none());
        // Loosened.
        let loose = CompareOptions {
            max_diff_pixels: Some(1),
            ..Default::default()
        };
        assert!(compare_paths(&da, &db, &loose).unwrap().passed());
        let psnr = CompareOptions {
            min_psnr: Some(99.0),
            ..Default::default()
        };
        assert!(!compare_paths(&da, &db, &psnr).unwrap().passed());
        // Two files.
        let r = compare_paths(
            &da.join("frame1.png"),
            &db.join("frame1.png"),
            &CompareOptions::default(),
        )
        .unwrap();
        assert!(r.passed());
        // A 2x upscaled copy compares equal.
        let mut big = Image::new(8, 8, [0; 4]);
        for y in 0..8 {
            for x in 0..8 {
                big.set(x, y, base.get(x / 2, y / 2));
            }
        }
        big.write_png(&dd.join("big.png")).unwrap();
        assert!(
            compare_paths(
                &da.join("frame1.png"),
                &dd.join("big.png"),
                &CompareOptions::default()
            )
            .unwrap()
            .passed()
        );
        // A 4:3 stretch (6 wide for 4) is resampled across: 6 -> 4 takes columns 0, 1, 3, 4.
        let mut wide = Image::new(6, 4, [50, 60, 70, 255]);
        let mut narrow = base.clone();
        for x in 0..6 {
            wide.set(x, 0, [x as u8 * 10, 60, 70, 255]);
        }
        for (x, sx) in [0u8, 1, 3, 4].iter().enumerate() {
            narrow.set(x as u32, 0, [sx * 10, 60, 70, 255]);
        }
        wide.write_png(&dd.join("wide.png")).unwrap();
        narrow.write_png(&dd.join("narrow.png")).unwrap();
        let r = compare_paths(
            &dd.join("narrow.png"),
            &dd.join("wide.png"),
            &CompareOptions::default(),
        )
        .unwrap();
        assert!(r.passed(), "{:?}", r.frames[0]);
        assert_eq!(
            r.frames[0].note.as_deref(),
            Some(
                "B scaled from 6x4 to 4x4 (A 4x4, not a documented frame size; B 6x4, not a \
                 documented frame size)"
            )
        );
        assert_eq!(
            frame_kind(597, 448).as_deref(),
            Some("presented 4:3 at scale 1")
        );
        assert_eq!(
            frame_kind(2048, 1792).as_deref(),
            Some("display pixels at scale 4")
        );
        assert_eq!(
            frame_kind(1194, 896).as_deref(),
            Some("presented 4:3 at scale 2")
        );
        assert_eq!(frame_kind(500, 448), None);
        // Errors: 3 rows against 4 cannot be brought together.
        Image::new(3, 3, [0; 4])
            .write_png(&dd.join("odd.png"))
            .unwrap();
        assert!(matches!(
            compare_paths(&da.join("frame1.png"), &dd.join("odd.png"), &opts),
            Err(CompareError::SizeMismatch { .. })
        ));
        std::fs::remove_file(db.join("frame2.png")).unwrap();
        assert!(matches!(
            compare_paths(&da, &db, &opts),
            Err(CompareError::FrameCountMismatch { na: 3, nb: 2, .. })
        ));
        std::fs::write(db.join("frame2.png"), b"junk").unwrap();
        assert!(matches!(
            compare_paths(&da, &db, &opts),
            Err(CompareError::Image(_))
        ));
        assert!(matches!(
            compare_paths(&da, &da.join("frame1.png"), &opts),
            Err(CompareError::KindMismatch { .. })
        ));
        assert!(matches!(
            compare_paths(&da.join("nope.png"), &da.join("frame1.png"), &opts),
            Err(CompareError::NotFound(_))
        ));
        let empty = tmp("e");
        assert!(matches!(
            compare_paths(&empty, &da, &opts),
            Err(CompareError::EmptyFolder(_))
        ));
        for d in [da, db, dd, empty] {
            std::fs::remove_dir_all(d).unwrap();
        }
    }
}
