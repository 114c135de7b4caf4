//! The on-screen display: short messages (a screenshot written, a pad plugged in, fast-forward
//! on...) that fade after a few seconds, and the performance overlay (F9). Drawn on the CPU
//! into a small RGBA image, which the presenter blends over the window's top left corner at an
//! integer scale: never into the emulated frame, its screenshots or its dumps.
//!
//! Letters are the `font8x8` crate's public-domain 8x8 bitmaps of ASCII (bit 0 of each row
//! byte is the leftmost pixel); other characters show as `?`.

use std::collections::VecDeque;

/// How long a message stays, in host nanoseconds.
pub const MESSAGE_NS: u64 = 3_000_000_000;
/// At most this many messages show at once (the oldest go first).
pub const MAX_MESSAGES: usize = 4;
/// Pixels of margin around the text inside its box.
const PAD: u32 = 3;
/// Text rows are this many pixels apart (8 high letters, 2 between lines).
const LINE: u32 = 10;
/// The most characters a line shows.
const MAX_CHARS: usize = 80;

/// What the overlay shows.
#[derive(Debug, Default, Clone)]
pub struct Osd {
    messages: VecDeque<(String, u64)>,
    perf: Option<Vec<String>>,
}

/// An RGBA image with straight alpha.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OverlayImage {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Rows of RGBA bytes.
    pub rgba: Vec<u8>,
}

impl Osd {
    /// Shows `text` from `now_ns` for [`MESSAGE_NS`].
    pub fn message(&mut self, text: impl Into<String>, now_ns: u64) {
        self.messages.push_back((text.into(), now_ns + MESSAGE_NS));
        while self.messages.len() > MAX_MESSAGES {
            self.messages.pop_front();
        }
    }

    /// Drops the messages whose time is over; whether anything changed.
    pub fn expire(&mut self, now_ns: u64) -> bool {
        let before = self.messages.len();
        self.messages.retain(|(_, until)| *until > now_ns);
        before != self.messages.len()
    }

    /// Whether the performance overlay is on.
    pub fn perf_on(&self) -> bool {
        self.perf.is_some()
    }

    /// Turns the performance overlay on (empty until [`Osd::set_perf`]) or off.
    pub fn set_perf_on(&mut self, on: bool) {
        self.perf = on.then(Vec::new);
    }

    /// The performance overlay's lines (kept only while it is on).
    pub fn set_perf(&mut self, lines: Vec<String>) {
        if let Some(p) = &mut self.perf {
            *p = lines;
        }
    }

    /// The lines shown now: the performance overlay's, then the messages.
    pub fn lines(&self) -> Vec<&str> {
        let perf = self.perf.iter().flatten().map(String::as_str);
        perf.chain(self.messages.iter().map(|(t, _)| t.as_str()))
            .collect()
    }

    /// The overlay as an image (white letters on a translucent black box), or `None` when
    /// there is nothing to show.
    pub fn render(&self) -> Option<OverlayImage> {
        let lines = self.lines();
        if lines.is_empty() {
            return None;
        }
        let chars = lines
            .iter()
            .map(|l| l.chars().count().min(MAX_CHARS))
            .max()
            .unwrap_or(0) as u32;
        let width = chars * 8 + 2 * PAD;
        let height = lines.len() as u32 * LINE - 2 + 2 * PAD;
        let mut rgba = [0u8, 0, 0, 160].repeat((width * height) as usize);
        for (row, line) in lines.iter().enumerate() {
            for (col, ch) in line.chars().take(MAX_CHARS).enumerate() {
                let glyph = glyph(ch);
                for (gy, bits) in glyph.iter().enumerate() {
                    for gx in 0..8u32 {
                        if bits >> gx & 1 != 0 {
                            let x = PAD + col as u32 * 8 + gx;
                            let y = PAD + row as u32 * LINE + gy as u32;
                            let at = ((y * width + x) * 4) as usize;
                            rgba[at..at + 4].copy_from_slice(&[255, 255, 255, 255]);
                        }
                    }
                }
            }
        }
        Some(OverlayImage {
            width,
            height,
            rgba,
        })
    }
}

/// The 8 rows of `ch`'s letter (`?` for what the font has not).
fn glyph(ch: char) -> [u8; 8] {
    let i = if ch.is_ascii() && !ch.is_ascii_control() {
        ch as usize
    } else {
        '?' as usize
    };
    font8x8::legacy::BASIC_LEGACY[i]
}

/// The overlay's scale in a window `height` pixels high: 1 under 600, else one step per 480
/// rows (2 at 1080p, 4 at 2160p), so the letters stay readable and sharp.
pub fn scale_for(height: u32) -> u32 {
    if height < 600 {
        1
    } else {
        (height / 480).clamp(1, 8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_expire_and_stay_few() {
        let mut o = Osd::default();
        assert!(o.render().is_none());
        for i in 0..6 {
            o.message(format!("m{i}"), i);
        }
        assert_eq!(o.lines(), ["m2", "m3", "m4", "m5"]);
        assert!(!o.expire(MESSAGE_NS));
        assert!(o.expire(MESSAGE_NS + 3));
        assert_eq!(o.lines(), ["m4", "m5"]);
        o.set_perf_on(true);
        o.set_perf(vec!["60 fps".into()]);
        assert_eq!(o.lines(), ["60 fps", "m4", "m5"]);
        o.set_perf_on(false);
        assert_eq!(o.lines(), ["m4", "m5"]);
    }

    #[test]
    fn letters_are_drawn_from_the_font() {
        let mut o = Osd::default();
        o.message("I", 0);
        let img = o.render().unwrap();
        assert_eq!((img.width, img.height), (8 + 2 * PAD, 8 + 2 * PAD));
        // font8x8's 'I' (0x1E, 0x0C x5, 0x1E, 0): its first row lights columns 1..=4.
        let px = |x: u32, y: u32| {
            let at = ((y * img.width + x) * 4) as usize;
            img.rgba[at..at + 4].to_vec()
        };
        assert_eq!(px(PAD + 1, PAD), [255, 255, 255, 255]);
        assert_eq!(px(PAD, PAD), [0, 0, 0, 160]);
        assert_eq!(px(PAD + 5, PAD), [0, 0, 0, 160]);
        // A character the font lacks shows as '?'.
        assert_eq!(glyph('é'), glyph('?'));
    }
}
