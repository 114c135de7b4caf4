//! Animated captures of the presented frames (`--capture FILE [--capture-frames A-B]`, and the
//! window's capture key): each vertical blank's picture, as `--dump-frames` would write it,
//! appended to an animated PNG ([`piney_gs::apng::AnimatedPng`]) shown at the console's 59.94
//! fields a second.

use std::path::{Path, PathBuf};

use piney_gs::Image;
use piney_gs::apng::AnimatedPng;

/// How long each frame shows: one NTSC field, 1001/60000 s (the machine's vertical blank).
pub const FRAME_DELAY: (u16, u16) = (1001, 60000);

/// `A-B` (both included, A <= B): the frames a capture takes.
pub fn parse_frame_range(s: &str) -> Result<(u64, u64), String> {
    let (a, b) = s
        .split_once('-')
        .ok_or_else(|| format!("{s:?} is not a range A-B of frame numbers"))?;
    let num = |t: &str| {
        t.trim()
            .parse::<u64>()
            .map_err(|_| format!("{t:?} in {s:?} is not a frame number"))
    };
    let (a, b) = (num(a)?, num(b)?);
    if a > b {
        return Err(format!("{s:?}: the range ends before it starts"));
    }
    if b - a >= u64::from(u32::MAX) {
        return Err(format!("{s:?}: more frames than an animated PNG holds"));
    }
    Ok((a, b))
}

/// A capture in progress: the frames in its range go to its file as they come.
pub struct FrameCapture {
    path: PathBuf,
    range: (u64, u64),
    /// No range was given: every frame.
    open: bool,
    /// The most frames it may get (for the file's header; mended at the end).
    most: u32,
    file: Option<AnimatedPng>,
}

impl FrameCapture {
    /// A capture to `path` of frames `range` (None: every frame from now on), of at most `most`
    /// frames when that is known. The file is made now (an empty one, until the first frame),
    /// so a path that cannot be written is told before the run.
    pub fn new(path: &Path, range: Option<(u64, u64)>, most: Option<u64>) -> Result<Self, String> {
        std::fs::File::create(path).map_err(|e| format!("capture {}: {e}", path.display()))?;
        let open = range.is_none();
        let range = range.unwrap_or((0, u64::MAX));
        let span = (range.1 - range.0).saturating_add(1);
        let most = most.map_or(span, |m| m.min(span)).min(u64::from(u32::MAX)) as u32;
        Ok(FrameCapture {
            path: path.to_path_buf(),
            range,
            open,
            most,
            file: None,
        })
    }

    /// Whether frame `n` is one it takes.
    pub fn wants(&self, n: u64) -> bool {
        (self.range.0..=self.range.1).contains(&n)
    }

    /// Frame `n` is `image`: added when it is in the range.
    pub fn offer(&mut self, n: u64, image: &Image) -> Result<(), String> {
        if !self.wants(n) {
            return Ok(());
        }
        let err = |e: piney_gs::ImageError| format!("capture: {e}");
        if self.file.is_none() {
            self.file = Some(
                AnimatedPng::create(
                    &self.path,
                    image.width,
                    image.height,
                    self.most.max(1),
                    FRAME_DELAY,
                )
                .map_err(err)?,
            );
        }
        if let Some(f) = &mut self.file {
            f.add(image).map_err(err)?;
        }
        Ok(())
    }

    /// Ends the file; the line that says what it holds.
    pub fn finish(self) -> Result<String, String> {
        let shown = self.path.display();
        match self.file {
            None => {
                let _ = std::fs::remove_file(&self.path);
                let which = if self.open {
                    String::new()
                } else {
                    format!(" in {}-{}", self.range.0, self.range.1)
                };
                Ok(format!(
                    "capture {shown}: no frame{which} was shown, nothing written"
                ))
            }
            Some(f) => {
                let (n, fitted) = f.finish().map_err(|e| format!("capture: {e}"))?;
                let note = if fitted > 0 {
                    format!(" ({fitted} of another size fitted to the first's)")
                } else {
                    String::new()
                };
                Ok(format!("capture {shown}: {n} frames, animated PNG{note}"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse_frame_range;

    #[test]
    fn frame_ranges() {
        assert_eq!(parse_frame_range("10-40"), Ok((10, 40)));
        assert_eq!(parse_frame_range("7-7"), Ok((7, 7)));
        for bad in ["40-10", "10", "-5", "a-b", "1-2-3", "0-99999999999"] {
            assert!(parse_frame_range(bad).is_err(), "{bad}");
        }
    }
}
