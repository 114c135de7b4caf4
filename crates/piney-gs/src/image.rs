//! RGBA pictures and PNG input/output.

use std::path::Path;

/// Errors reading or writing pictures.
#[derive(Debug, thiserror::Error)]
pub enum ImageError {
    /// A file could not be opened or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// A PNG could not be decoded.
    #[error("{path}: not a readable PNG: {msg}")]
    Decode {
        /// The file.
        path: String,
        /// The decoder's message.
        msg: String,
    },
    /// A PNG could not be encoded.
    #[error("{path}: PNG encoding failed: {msg}")]
    Encode {
        /// The file.
        path: String,
        /// The encoder's message.
        msg: String,
    },
}

/// An 8-bit RGBA picture, rows top to bottom.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height * 4` bytes, R, G, B, A.
    pub rgba: Vec<u8>,
}

/// The largest PNG side [`Image::read_png`] reads: 8 times the console's 2048-pixel frame
/// buffer width (a PCSX2 screenshot at a high internal resolution fits).
pub const MAX_PNG_SIDE: u32 = 16384;
/// The most pixels [`Image::read_png`] reads (256 MiB of RGBA).
pub const MAX_PNG_PIXELS: u64 = 64 << 20;

impl Image {
    /// A picture filled with one colour.
    pub fn new(width: u32, height: u32, fill: [u8; 4]) -> Self {
        let n = width as usize * height as usize;
        let mut rgba = Vec::with_capacity(n * 4);
        for _ in 0..n {
            rgba.extend_from_slice(&fill);
        }
        Image {
            width,
            height,
            rgba,
        }
    }

    /// The pixel at (x, y).
    pub fn get(&self, x: u32, y: u32) -> [u8; 4] {
        let i = (y as usize * self.width as usize + x as usize) * 4;
        [
            self.rgba[i],
            self.rgba[i + 1],
            self.rgba[i + 2],
            self.rgba[i + 3],
        ]
    }

    /// Sets the pixel at (x, y).
    pub fn set(&mut self, x: u32, y: u32, c: [u8; 4]) {
        let i = (y as usize * self.width as usize + x as usize) * 4;
        self.rgba[i..i + 4].copy_from_slice(&c);
    }

    /// The file name of frame `n` in a `--dump-frames` folder: six digits, `000042.png`
    /// (more digits past 999999). [`crate::compare`] pairs frames by this number.
    pub fn frame_file_name(n: u64) -> String {
        format!("{n:06}.png")
    }

    /// Writes the picture as an 8-bit RGBA PNG.
    pub fn write_png(&self, path: &Path) -> Result<(), ImageError> {
        let name = path.display().to_string();
        let file = std::fs::File::create(path).map_err(|source| ImageError::Io {
            path: name.clone(),
            source,
        })?;
        let mut enc = png::Encoder::new(std::io::BufWriter::new(file), self.width, self.height);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        let err = |e: png::EncodingError| ImageError::Encode {
            path: name.clone(),
            msg: e.to_string(),
        };
        let mut w = enc.write_header().map_err(err)?;
        w.write_image_data(&self.rgba).map_err(err)?;
        w.finish().map_err(err)
    }

    /// Reads a PNG of any colour type and depth, converted to 8-bit RGBA.
    pub fn read_png(path: &Path) -> Result<Image, ImageError> {
        let name = path.display().to_string();
        let file = std::fs::File::open(path).map_err(|source| ImageError::Io {
            path: name.clone(),
            source,
        })?;
        let derr = |msg: String| ImageError::Decode {
            path: name.clone(),
            msg,
        };
        let file_len = file
            .metadata()
            .map_err(|source| ImageError::Io {
                path: name.clone(),
                source,
            })?
            .len();
        let mut dec = png::Decoder::new(std::io::BufReader::new(file));
        // Expand palettes and low bit depths, strip 16-bit to 8.
        dec.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
        let mut reader = dec.read_info().map_err(|e| derr(e.to_string()))?;
        // The header's size is checked before anything is allocated for it.
        let (hw, hh) = (reader.info().width, reader.info().height);
        if hw > MAX_PNG_SIDE || hh > MAX_PNG_SIDE || hw as u64 * hh as u64 > MAX_PNG_PIXELS {
            return Err(derr(format!(
                "{hw}x{hh} is larger than piney reads ({MAX_PNG_SIDE} a side, {} M pixels)",
                MAX_PNG_PIXELS >> 20
            )));
        }
        let size = reader
            .output_buffer_size()
            .ok_or_else(|| derr("image too large".into()))?;
        // Nor more than the file can hold: its scanlines are deflate data, which expands at
        // most 1032 times (a 258-byte match in one bit), and expanding 1-bit palette entries
        // to RGBA makes at most 32 bytes of a scanline byte (plus the decoder's row slack). A
        // 57-byte file claiming 8192 x 8192 pixels is refused before 256 MiB are set aside.
        let most = file_len.saturating_mul(1032 * 32).saturating_add(1 << 16);
        if size as u64 > most {
            return Err(derr(format!(
                "{hw}x{hh} pixels cannot come from a {file_len}-byte file"
            )));
        }
        let mut buf = vec![0; size];
        let info = reader
            .next_frame(&mut buf)
            .map_err(|e| derr(e.to_string()))?;
        let (w, h) = (info.width, info.height);
        let data = &buf[..info.buffer_size()];
        let px = w as usize * h as usize;
        let mut rgba = Vec::with_capacity(px * 4);
        let stride = info.line_size;
        let chans = match info.color_type {
            png::ColorType::Grayscale => 1,
            png::ColorType::GrayscaleAlpha => 2,
            png::ColorType::Rgb => 3,
            png::ColorType::Rgba => 4,
            png::ColorType::Indexed => return Err(derr("palette not expanded".into())),
        };
        for y in 0..h as usize {
            let row = &data[y * stride..];
            for x in 0..w as usize {
                let p = &row[x * chans..x * chans + chans];
                let c = match chans {
                    1 => [p[0], p[0], p[0], 255],
                    2 => [p[0], p[0], p[0], p[1]],
                    3 => [p[0], p[1], p[2], 255],
                    _ => [p[0], p[1], p[2], p[3]],
                };
                rgba.extend_from_slice(&c);
            }
        }
        Ok(Image {
            width: w,
            height: h,
            rgba,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn png_round_trip() {
        let dir = std::env::temp_dir().join(format!("piney-gs-png-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut img = Image::new(3, 2, [1, 2, 3, 255]);
        img.set(2, 1, [200, 100, 50, 7]);
        let p = dir.join("a.png");
        img.write_png(&p).unwrap();
        assert_eq!(Image::read_png(&p).unwrap(), img);
        std::fs::write(dir.join("bad.png"), b"not a png").unwrap();
        assert!(matches!(
            Image::read_png(&dir.join("bad.png")),
            Err(ImageError::Decode { .. })
        ));
        assert!(matches!(
            Image::read_png(&dir.join("missing.png")),
            Err(ImageError::Io { .. })
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// CRC-32 (PNG's, ISO-HDLC) of `data`.
    fn crc32(data: &[u8]) -> u32 {
        let mut c = !0u32;
        for &b in data {
            c ^= b as u32;
            for _ in 0..8 {
                c = if c & 1 != 0 {
                    (c >> 1) ^ 0xedb8_8320
                } else {
                    c >> 1
                };
            }
        }
        !c
    }

    /// A PNG whose IHDR claims `w` x `h` (CRC right), with a tiny IDAT.
    fn claimed_png(w: u32, h: u32) -> Vec<u8> {
        let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
        let mut chunk = |kind: &[u8], body: &[u8]| {
            out.extend_from_slice(&(body.len() as u32).to_be_bytes());
            let mut c = kind.to_vec();
            c.extend_from_slice(body);
            out.extend_from_slice(&c);
            out.extend_from_slice(&crc32(&c).to_be_bytes());
        };
        let mut ihdr = w.to_be_bytes().to_vec();
        ihdr.extend_from_slice(&h.to_be_bytes());
        ihdr.extend_from_slice(&[8, 6, 0, 0, 0]);
        chunk(b"IHDR", &ihdr);
        chunk(b"IDAT", &[0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]);
        chunk(b"IEND", &[]);
        out
    }

    #[test]
    fn a_huge_claimed_size_is_refused_before_allocating() {
        let dir = std::env::temp_dir().join(format!("piney-png-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // The sizes that aborted `piney compare` (issue 17), and one just past each limit.
        for (w, h) in [
            (1, 0x8000_0000u32),
            (65535, 65535),
            (1, 0x7fff_ffff),
            (16385, 1),
            (16384, 16384),
        ] {
            let p = dir.join(format!("{w}x{h}.png"));
            std::fs::write(&p, claimed_png(w, h)).unwrap();
            let e = Image::read_png(&p).unwrap_err().to_string();
            assert!(e.contains("larger than piney reads"), "{w}x{h}: {e}");
            assert!(!e.contains('\n'), "one line: {e}");
        }
        // Within the limits the header passes and the tiny data is what fails (no abort).
        let p = dir.join("ok.png");
        std::fs::write(&p, claimed_png(4, 4)).unwrap();
        assert!(Image::read_png(&p).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
