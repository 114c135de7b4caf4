//! Animated PNG captures: frames written one at a time as they come, through the `png` crate's
//! APNG encoder, so a capture of any length holds one frame in memory.
//!
//! Facts (the APNG specification, and the PNG one for chunks and CRCs): `acTL` (right after
//! `IHDR`) holds the number of frames and of plays (0: for ever); each frame has an `fcTL`
//! with its size, place and delay (`delay_num / delay_den` seconds). The number of frames must
//! be written before the first frame, and a capture may end early (the run stops), so the file
//! is opened with the most frames it may hold and its `acTL` rewritten with the count written
//! at the end (its CRC too). Every frame has the first frame's size: a later picture of another
//! size (a video mode change) is cropped or padded with black at its top left.

use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::image::{Image, ImageError};

/// Where `acTL`'s data starts: the 8-byte signature, IHDR (4 length, 4 type, 13 data, 4 CRC),
/// then acTL's own length and type. The `png` crate writes acTL straight after IHDR.
const ACTL_DATA: u64 = 8 + 25 + 8;

/// An animated PNG being written.
pub struct AnimatedPng {
    path: PathBuf,
    writer: Option<png::Writer<BufWriter<File>>>,
    width: u32,
    height: u32,
    frames: u32,
    /// Frames whose size was not the first's.
    resized: u32,
}

impl AnimatedPng {
    /// Starts `path` with frames of `width` x `height`, at most `max_frames` of them, each shown
    /// `delay_num / delay_den` seconds.
    pub fn create(
        path: &Path,
        width: u32,
        height: u32,
        max_frames: u32,
        delay: (u16, u16),
    ) -> Result<Self, ImageError> {
        let err = |e: png::EncodingError| ImageError::Encode {
            path: path.display().to_string(),
            msg: e.to_string(),
        };
        let file = File::create(path).map_err(|source| ImageError::Io {
            path: path.display().to_string(),
            source,
        })?;
        let mut enc = png::Encoder::new(BufWriter::new(file), width, height);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_animated(max_frames.max(1), 0).map_err(err)?;
        enc.set_frame_delay(delay.0, delay.1).map_err(err)?;
        let writer = enc.write_header().map_err(err)?;
        Ok(AnimatedPng {
            path: path.to_path_buf(),
            writer: Some(writer),
            width,
            height,
            frames: 0,
            resized: 0,
        })
    }

    /// The frames written so far.
    pub fn frames(&self) -> u32 {
        self.frames
    }

    /// Adds `image` as the next frame.
    pub fn add(&mut self, image: &Image) -> Result<(), ImageError> {
        let path = self.path.display().to_string();
        let Some(w) = self.writer.as_mut() else {
            return Ok(());
        };
        let data;
        let rgba = if image.width == self.width && image.height == self.height {
            &image.rgba
        } else {
            self.resized += 1;
            let mut fitted = Image::new(self.width, self.height, [0, 0, 0, 255]);
            for y in 0..self.height.min(image.height) {
                for x in 0..self.width.min(image.width) {
                    fitted.set(x, y, image.get(x, y));
                }
            }
            data = fitted.rgba;
            &data
        };
        w.write_image_data(rgba).map_err(|e| ImageError::Encode {
            path,
            msg: e.to_string(),
        })?;
        self.frames += 1;
        Ok(())
    }

    /// Ends the file: its `acTL` says how many frames were written. Returns that count and how
    /// many frames had to be fitted to the first one's size.
    pub fn finish(mut self) -> Result<(u32, u32), ImageError> {
        let path = self.path.display().to_string();
        let io = |source: std::io::Error| ImageError::Io {
            path: path.clone(),
            source,
        };
        if self.frames == 0 {
            // No frame came: no file (an APNG needs one).
            drop(self.writer.take());
            std::fs::remove_file(&self.path).map_err(io)?;
            return Ok((0, 0));
        }
        if let Some(w) = self.writer.take() {
            // The crate's sequence check (off by default) would refuse an early end; the count
            // is mended below.
            w.finish().map_err(|e| ImageError::Encode {
                path: path.clone(),
                msg: e.to_string(),
            })?;
        }
        let mut f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&self.path)
            .map_err(io)?;
        let mut chunk = [0u8; 16];
        f.seek(SeekFrom::Start(ACTL_DATA - 4)).map_err(io)?;
        f.read_exact(&mut chunk).map_err(io)?;
        if &chunk[..4] != b"acTL" {
            return Err(ImageError::Encode {
                path,
                msg: "no acTL after IHDR".into(),
            });
        }
        chunk[4..8].copy_from_slice(&self.frames.to_be_bytes());
        let crc = crc32(&chunk[..12]);
        chunk[12..16].copy_from_slice(&crc.to_be_bytes());
        f.seek(SeekFrom::Start(ACTL_DATA - 4)).map_err(io)?;
        f.write_all(&chunk).map_err(io)?;
        Ok((self.frames, self.resized))
    }
}

/// The PNG chunk CRC (CRC-32, polynomial 0xEDB88320 reflected, initial and final 0xFFFFFFFF).
fn crc32(data: &[u8]) -> u32 {
    let mut c = 0xFFFF_FFFFu32;
    for &b in data {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = if c & 1 != 0 {
                (c >> 1) ^ 0xEDB8_8320
            } else {
                c >> 1
            };
        }
    }
    !c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc_of_iend() {
        // Every PNG ends with IEND's CRC, AE 42 60 82.
        assert_eq!(crc32(b"IEND"), 0xAE42_6082);
    }

    #[test]
    fn an_early_end_gives_the_frames_written() {
        let dir = std::env::temp_dir().join(format!("piney-apng-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.png");
        let mut a = AnimatedPng::create(&path, 4, 2, 100, (1001, 60000)).unwrap();
        for i in 0..3u8 {
            a.add(&Image::new(4, 2, [i, 2 * i, 3 * i, 255])).unwrap();
        }
        a.add(&Image::new(5, 1, [9, 9, 9, 255])).unwrap();
        assert_eq!(a.finish().unwrap(), (4, 1));
        // The png crate's decoder reads it: 4 frames, each its colour.
        let dec = png::Decoder::new(std::io::BufReader::new(File::open(&path).unwrap()));
        let mut r = dec.read_info().unwrap();
        assert_eq!(r.info().animation_control().unwrap().num_frames, 4);
        let mut buf = vec![0; r.output_buffer_size().unwrap()];
        let mut firsts = Vec::new();
        for _ in 0..4 {
            r.next_frame(&mut buf).unwrap();
            firsts.push(buf[..4].to_vec());
        }
        assert_eq!(firsts[2], [2, 4, 6, 255]);
        // The 5 x 1 frame: cropped to 4 wide, its second row black.
        assert_eq!(firsts[3], [9, 9, 9, 255]);
        assert_eq!(buf[16..20], [0, 0, 0, 255]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
