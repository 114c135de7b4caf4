//! Shared by the window tests (crates/piney-frontend/tests/window.rs and
//! crates/piney/tests/demo_window.rs, which include this file with `#[path]`): an Xvfb of our
//! own on a free display number, and screenshots of its root window through `xwd`. A missing
//! program fails the test naming the Debian package to install.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

pub struct Killed(pub Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub fn spawn_or_explain(cmd: &mut Command, package: &str) -> Child {
    match cmd.spawn() {
        Ok(c) => c,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => panic!(
            "{:?} is not installed: install the `{package}` package (apt-get install {package})",
            cmd.get_program()
        ),
        Err(e) => panic!("starting {:?}: {e}", cmd.get_program()),
    }
}

/// Starts Xvfb on a free display number (it picks one and tells us through -displayfd).
pub fn start_xvfb() -> (Killed, String) {
    let mut xvfb = Killed(spawn_or_explain(
        Command::new("Xvfb")
            .args(["-displayfd", "1", "-screen", "0", "1024x768x24"])
            // A white root window, so a picture's edges and black bars stand out; no TCP.
            .args(["-wr", "-nolisten", "tcp"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null()),
        "xvfb",
    ));
    let out = xvfb.0.stdout.take().expect("Xvfb's stdout");
    let mut line = String::new();
    BufReader::new(out)
        .read_line(&mut line)
        .expect("reading Xvfb's display number");
    let n: u32 = line
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("Xvfb did not start (said {line:?})"));
    (xvfb, format!(":{n}"))
}

/// An X screenshot: width, height, RGB rows.
pub struct Shot {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// RGB rows.
    pub rgb: Vec<u8>,
}

impl Shot {
    pub fn get(&self, x: u32, y: u32) -> [u8; 3] {
        let i = ((y * self.width + x) * 3) as usize;
        [self.rgb[i], self.rgb[i + 1], self.rgb[i + 2]]
    }
}

/// The root window of `display`, through `xwd`.
pub fn screenshot(display: &str) -> Shot {
    let out = spawn_or_explain(
        Command::new("xwd")
            .args(["-root", "-silent", "-display", display])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
        "x11-apps",
    )
    .wait_with_output()
    .expect("running xwd");
    assert!(
        out.status.success(),
        "xwd failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    parse_xwd(&out.stdout).unwrap_or_else(|e| panic!("xwd's output: {e}"))
}

/// Reads an XWD file (X11 window dump, version 7, ZPixmap, TrueColor at 24 or 32 bits per
/// pixel). The header is 25 big-endian 32-bit words, then the window name, the colour map
/// (12 bytes an entry) and the pixels in the header's byte order.
pub fn parse_xwd(d: &[u8]) -> Result<Shot, String> {
    let word = |i: usize| -> Result<u32, String> {
        d.get(i * 4..i * 4 + 4)
            .map(|b| u32::from_be_bytes(b.try_into().unwrap()))
            .ok_or_else(|| format!("truncated header at word {i}"))
    };
    let (header_size, version, format) = (word(0)?, word(1)?, word(2)?);
    if version != 7 || format != 2 {
        return Err(format!(
            "version {version} format {format}, want 7 and ZPixmap (2)"
        ));
    }
    let (width, height) = (word(4)?, word(5)?);
    let (byte_order, bpp, bytes_per_line) = (word(7)?, word(11)?, word(12)?);
    let masks = [word(14)?, word(15)?, word(16)?];
    let ncolors = word(19)?;
    if bpp != 32 && bpp != 24 {
        return Err(format!("{bpp} bits per pixel"));
    }
    let start = header_size as usize + ncolors as usize * 12;
    let need = start + bytes_per_line as usize * height as usize;
    if d.len() < need {
        return Err(format!("{} bytes, need {need}", d.len()));
    }
    let channel = |p: u32, m: u32| ((p & m) >> m.trailing_zeros()) as u8;
    let mut rgb = Vec::with_capacity((width * height * 3) as usize);
    for y in 0..height as usize {
        let row = &d[start + y * bytes_per_line as usize..];
        for x in 0..width as usize {
            let n = (bpp / 8) as usize;
            let mut b = [0u8; 4];
            b[..n].copy_from_slice(&row[x * n..x * n + n]);
            let p = if byte_order == 0 {
                u32::from_le_bytes(b)
            } else {
                u32::from_be_bytes(b) >> (32 - bpp)
            };
            rgb.extend(masks.map(|m| channel(p, m)));
        }
    }
    Ok(Shot { width, height, rgb })
}

/// Where `want` (RGBA rows of `size`) appears in the shot, searching the top-left corner.
pub fn find(shot: &Shot, want: &[u8], size: (u32, u32)) -> Option<(u32, u32)> {
    let (w, h) = size;
    let matches_at = |ox: u32, oy: u32| {
        (0..h).all(|y| {
            (0..w).all(|x| {
                let i = ((y * w + x) * 4) as usize;
                shot.get(ox + x, oy + y) == [want[i], want[i + 1], want[i + 2]]
            })
        })
    };
    (0..=32.min(shot.height.saturating_sub(h)))
        .flat_map(|oy| (0..=32.min(shot.width.saturating_sub(w))).map(move |ox| (ox, oy)))
        .find(|&(ox, oy)| matches_at(ox, oy))
}
