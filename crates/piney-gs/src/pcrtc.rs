//! The PCRTC: the two read circuits, PMODE's merge, and the presenter.
//!
//! Facts (GS User's Manual, "PCRTC"; the engine reference, "The screen"):
//! - A read circuit shows the buffer DISPFB (FBP in pages, FBW, PSM, from (DBX, DBY)) in the
//!   rectangle DISPLAY: DX video clocks and DY lines from the sync, DW + 1 clocks by DH + 1
//!   lines; a buffer pixel lasts MAGH + 1 clocks and MAGV + 1 lines.
//! - In interlaced field mode (SMODE2 INT = 1, FFMD = 1) each field reads the buffer's rows
//!   again, so one buffer row spans two frame lines; otherwise one.
//! - PMODE: EN1/EN2 switch the circuits on; circuit 1 is blended over a background which is
//!   circuit 2 (SLBG 0) or BGCOLOR (SLBG 1), by ALP (MMOD 1) or circuit 1's pixel alpha (MMOD 0,
//!   0x80 = 1.0 as in PCSX2's merge). Where circuit 1 shows nothing, the background is shown.
//! - The merge's rounding on the console is not measured: piney rounds to nearest, as a GPU's
//!   unorm conversion of PCSX2's float merge does.
//! - The engine's frame-mode deflicker points both circuits at the same buffer with circuit 1 one
//!   line lower and ALP 127. piney's picture is progressive, so by default that pair shows
//!   circuit 2 alone; [`Pcrtc::deflicker`] set to true performs the merge.
//! - The display offset: a TV shows a fixed window of the scan, so moving DISPLAY's DX/DY moves
//!   the picture on the screen. [`DisplayCommand::offset`] measures the main circuit against the
//!   video mode's origin; [`Presenter`] moves the picture by it, black where it left.

use crate::gs::Privileged;
use crate::image::Image;
use crate::mem::LocalMemory;
use crate::psm::Psm;
use crate::regs::{BgColor, DispFb, Display, Pmode, Smode2};

/// The PCRTC's registers for one frame and the port's display switches: what a renderer's
/// [`crate::Renderer::display`] shows. The state machine builds it from the privileged
/// registers ([`DisplayCommand::new`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DisplayCommand {
    /// PMODE.
    pub pmode: Pmode,
    /// SMODE1 (raw; CMOD, bits 13-14, names the video mode: 2 NTSC, 3 PAL).
    pub smode1: u64,
    /// SMODE2.
    pub smode2: Smode2,
    /// DISPFB1 and DISPFB2.
    pub dispfb: [DispFb; 2],
    /// DISPLAY1 and DISPLAY2.
    pub display: [Display; 2],
    /// BGCOLOR.
    pub bgcolor: BgColor,
    /// Perform the frame-mode deflicker merge (`--deflicker`).
    pub deflicker: bool,
}

/// Where a picture at offset 0 starts, in video clocks and lines of the interlaced frame:
/// NTSC as Sony's libgraph sets DISPLAY by default (sceGsSetDefDispEnv, DX 636, DY 50; the
/// engine reference, "The screen"), PAL as ps2sdk's graph library does (DX 680, DY 72; its
/// NTSC DY is also 50). Progressive modes count lines of one field: DY / 2 + 1 (26, 37), the
/// relation ps2sdk's table uses. The BIOS's SetGsCrt writes SMODE1; with no video mode set
/// (SMODE1 0) or a DTV/VESA mode (CMOD 0) there is no TV window to move in.
fn video_origin(smode1: u64, smode2: Smode2) -> Option<(i64, i64)> {
    let (dx, dy) = match (smode1 >> 13) & 3 {
        2 => (636, 50),
        3 => (680, 72),
        _ => return None,
    };
    Some(if smode2.int() != 0 {
        (dx, dy)
    } else {
        (dx, dy / 2 + 1)
    })
}

impl DisplayCommand {
    /// The display registers of `p` with the port's switches.
    pub fn new(p: &Privileged, pcrtc: Pcrtc) -> Self {
        DisplayCommand {
            pmode: p.pmode,
            smode1: p.smode1,
            smode2: p.smode2,
            dispfb: p.dispfb,
            display: p.display,
            bgcolor: p.bgcolor,
            deflicker: pcrtc.deflicker,
        }
    }

    fn field_mode(&self) -> bool {
        self.smode2.int() != 0 && self.smode2.ffmd() != 0
    }

    /// The circuit the picture's resolution follows: circuit 2 when enabled, else 1.
    fn main_circuit(&self) -> Option<Circuit> {
        let n = if self.pmode.en2() != 0 {
            1
        } else if self.pmode.en1() != 0 {
            0
        } else {
            return None;
        };
        Some(Circuit::new(
            self.dispfb[n],
            self.display[n],
            self.field_mode(),
        ))
    }

    /// The display offset in picture pixels and rows: the main circuit's DX and DY against the
    /// video mode's origin, divided by the clocks a pixel lasts (MAGH + 1) and the lines a row
    /// spans, truncated toward zero. The engine's Adjust Screen x +48 at 512 wide (5 clocks a
    /// pixel) is 9 pixels, -48 is -9; y +16 is 16 rows. (0, 0) with no circuit on, or in a
    /// DTV/VESA mode.
    pub fn offset(&self) -> (i32, i32) {
        let (Some(c), Some((ox, oy))) =
            (self.main_circuit(), video_origin(self.smode1, self.smode2))
        else {
            return (0, 0);
        };
        (
            ((c.x0() - ox) / c.clock_step) as i32,
            ((c.y0() - oy) / c.line_step) as i32,
        )
    }

    /// The presenter for this frame (its offset).
    pub fn presenter(&self) -> Presenter {
        let (offset_x, offset_y) = self.offset();
        Presenter { offset_x, offset_y }
    }
}

/// Reads the display circuits and merges them into a picture.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Pcrtc {
    /// Perform the console's frame-mode deflicker merge (`--deflicker`).
    pub deflicker: bool,
}

#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
struct Circuit {
    fb: DispFb,
    disp: Display,
    /// Lines a buffer row spans (MAGV + 1, doubled in field mode).
    line_step: i64,
    clock_step: i64,
}

impl Circuit {
    fn new(fb: DispFb, disp: Display, field_mode: bool) -> Self {
        Circuit {
            fb,
            disp,
            line_step: (disp.magv() as i64 + 1) * if field_mode { 2 } else { 1 },
            clock_step: disp.magh() as i64 + 1,
        }
    }
    fn x0(&self) -> i64 {
        self.disp.dx() as i64
    }
    fn y0(&self) -> i64 {
        self.disp.dy() as i64
    }
    fn x1(&self) -> i64 {
        self.x0() + self.disp.dw() as i64 + 1
    }
    fn y1(&self) -> i64 {
        self.y0() + self.disp.dh() as i64 + 1
    }
}

/// Reads one buffer pixel as a display circuit does (PSMCT32, 24, 16, 16S; other codes read as
/// 32-bit). 5-bit channels are shifted up by 3.
pub fn read_display_pixel(mem: &LocalMemory, fb: DispFb, x: u32, y: u32) -> [u8; 4] {
    let psm = display_psm(fb);
    display_colour(psm, mem.read_pixel(psm, x, y, fb.fbp() * 32, fb.fbw()))
}

/// The format a display circuit reads its buffer in.
fn display_psm(fb: DispFb) -> Psm {
    match fb.psm() {
        0x01 => Psm::Ct24,
        0x02 => Psm::Ct16,
        0x0a => Psm::Ct16s,
        _ => Psm::Ct32,
    }
}

/// A stored display pixel's colour.
#[inline]
fn display_colour(psm: Psm, v: u32) -> [u8; 4] {
    match psm {
        Psm::Ct16 | Psm::Ct16s => [
            ((v & 0x1f) << 3) as u8,
            (((v >> 5) & 0x1f) << 3) as u8,
            (((v >> 10) & 0x1f) << 3) as u8,
            if v & 0x8000 != 0 { 0x80 } else { 0 },
        ],
        Psm::Ct24 => [v as u8, (v >> 8) as u8, (v >> 16) as u8, 0x80],
        _ => v.to_le_bytes(),
    }
}

fn mix(a: u8, b: u8, alpha: u32) -> u8 {
    // a * alpha/255 + b * (255 - alpha)/255, rounded to nearest.
    ((a as u32 * alpha + b as u32 * (255 - alpha) + 127) / 255) as u8
}

/// The picture at render scale `scale` from its `scale * scale` sample planes (see
/// `SoftwareRenderer`): each plane's picture, interleaved, so sample (i, j) of picture pixel
/// (x, y) lands at (x * scale + i, y * scale + j).
pub fn scaled_picture(planes: &[LocalMemory], scale: u32, p: &DisplayCommand) -> Image {
    if scale <= 1 || planes.len() < (scale * scale) as usize {
        return picture(&planes[0], p);
    }
    let pics: Vec<Image> = planes.iter().map(|m| picture(m, p)).collect();
    let (w, h) = (pics[0].width, pics[0].height);
    let mut out = Image::new(w * scale, h * scale, [0, 0, 0, 255]);
    for (k, pic) in pics.iter().enumerate() {
        let (i, j) = (k as u32 % scale, k as u32 / scale);
        for y in 0..h {
            for x in 0..w {
                out.set(x * scale + i, y * scale + j, pic.get(x, y));
            }
        }
    }
    out
}

/// One read circuit as a picture reads it: its display rectangle in video clocks and lines, how
/// long a buffer pixel lasts, and the buffer it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CircuitRead {
    /// The first video clock of the rectangle.
    pub x0: i64,
    /// The clock after its last.
    pub x1: i64,
    /// The first line.
    pub y0: i64,
    /// The line after its last.
    pub y1: i64,
    /// Clocks a buffer pixel lasts (MAGH + 1).
    pub clock_step: i64,
    /// Lines a buffer row spans (MAGV + 1, doubled in field mode).
    pub line_step: i64,
    /// The buffer: DISPFB's FBP (in blocks), FBW, DBX, DBY and the format it is read in.
    pub bp: u32,
    /// FBW.
    pub fbw: u32,
    /// DBX.
    pub dbx: u32,
    /// DBY.
    pub dby: u32,
    /// PSMCT32, 24, 16 or 16S (other codes read as 32-bit).
    pub psm: Psm,
}

impl CircuitRead {
    fn of(c: &Circuit) -> CircuitRead {
        CircuitRead {
            x0: c.x0(),
            x1: c.x1(),
            y0: c.y0(),
            y1: c.y1(),
            clock_step: c.clock_step,
            line_step: c.line_step,
            bp: c.fb.fbp() * 32,
            fbw: c.fb.fbw(),
            dbx: c.fb.dbx(),
            dby: c.fb.dby(),
            psm: display_psm(c.fb),
        }
    }

    /// The buffer column shown at video clock `clock`, or `None` outside the rectangle.
    pub fn column(&self, clock: i64) -> Option<u32> {
        (clock >= self.x0 && clock < self.x1)
            .then(|| (self.dbx as i64 + (clock - self.x0) / self.clock_step) as u32 & 2047)
    }

    /// The buffer row shown on line `line`, or `None` outside the rectangle.
    pub fn row(&self, line: i64) -> Option<u32> {
        (line >= self.y0 && line < self.y1)
            .then(|| (self.dby as i64 + (line - self.y0) / self.line_step) as u32 & 2047)
    }
}

/// What a frame's picture is made of, worked out once from the PCRTC's registers: every
/// renderer's PCRTC (the CPU's [`picture`], the wgpu renderer's shader) walks this.
///
/// Picture pixel (x, y) shows video clock `x0 + x * clock_step` of line `y0 + y * line_step`:
/// circuit 1 (`top`) where it covers that point, blended over the background (circuit 2 where
/// `back_from_circuit` and it covers the point, else `bg`) by `alpha` (ALP) or, when `None`,
/// by circuit 1's pixel alpha doubled and clamped (0x80 = 1.0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PictureSetup {
    /// The picture's size in pixels (the main circuit's buffer resolution).
    pub width: u32,
    /// Its height in rows.
    pub height: u32,
    /// The video clock and line of pixel (0, 0).
    pub x0: i64,
    /// The line of row 0.
    pub y0: i64,
    /// Clocks between picture pixels (the main circuit's).
    pub clock_step: i64,
    /// Lines between picture rows (the main circuit's).
    pub line_step: i64,
    /// Circuit 1, when enabled and shown.
    pub top: Option<CircuitRead>,
    /// Circuit 2, when enabled.
    pub back: Option<CircuitRead>,
    /// The background is circuit 2 (SLBG 0) rather than BGCOLOR.
    pub back_from_circuit: bool,
    /// BGCOLOR.
    pub bg: [u8; 4],
    /// ALP when MMOD is 1.
    pub alpha: Option<u32>,
}

impl PictureSetup {
    /// The setup of `p`'s picture, or `None` when no circuit is enabled.
    pub fn new(p: &DisplayCommand) -> Option<PictureSetup> {
        let pm = p.pmode;
        let field_mode = p.field_mode();
        let c1 = (pm.en1() != 0).then(|| Circuit::new(p.dispfb[0], p.display[0], field_mode));
        let c2 = (pm.en2() != 0).then(|| Circuit::new(p.dispfb[1], p.display[1], field_mode));
        let mut c1 = c1;
        // The deflicker pair: the same buffer, circuit 1 a line or so lower.
        let pair = match (c1, c2) {
            (Some(a), Some(b)) => {
                a.fb == b.fb
                    && a.disp.dx() == b.disp.dx()
                    && a.disp.dy() > b.disp.dy()
                    && a.disp.dy() <= b.disp.dy() + 2
            }
            _ => false,
        };
        if pair && !p.deflicker {
            c1 = None;
        }
        let main = match (c2, c1) {
            (Some(m), _) | (None, Some(m)) => m,
            (None, None) => return None,
        };
        // The picture's rectangle: the union, except that the deflicker pair keeps the main
        // circuit's (circuit 1's extra last line would show the background).
        let (mut x0, mut y0, mut x1, mut y1) = (main.x0(), main.y0(), main.x1(), main.y1());
        if !pair {
            for c in [c1, c2].into_iter().flatten() {
                x0 = x0.min(c.x0());
                y0 = y0.min(c.y0());
                x1 = x1.max(c.x1());
                y1 = y1.max(c.y1());
            }
        }
        Some(PictureSetup {
            width: ((x1 - x0) / main.clock_step).max(0) as u32,
            height: ((y1 - y0) / main.line_step).max(0) as u32,
            x0,
            y0,
            clock_step: main.clock_step,
            line_step: main.line_step,
            top: c1.as_ref().map(CircuitRead::of),
            back: c2.as_ref().map(CircuitRead::of),
            back_from_circuit: pm.slbg() == 0,
            bg: [
                p.bgcolor.r() as u8,
                p.bgcolor.g() as u8,
                p.bgcolor.b() as u8,
                255,
            ],
            alpha: (pm.mmod() != 0).then(|| pm.alp()),
        })
    }

    /// The colour of a picture pixel: `top` (circuit 1's pixel, if it covers the point) over
    /// `back` (the background's).
    pub fn merge(&self, top: Option<[u8; 4]>, back: [u8; 4]) -> [u8; 4] {
        match top {
            None => [back[0], back[1], back[2], 255],
            Some(t) => {
                let a = self.alpha.unwrap_or_else(|| (t[3] as u32 * 2).min(255));
                [
                    mix(t[0], back[0], a),
                    mix(t[1], back[1], a),
                    mix(t[2], back[2], a),
                    255,
                ]
            }
        }
    }
}

/// The merged picture of the enabled circuits, at the buffer resolution of the main circuit
/// (circuit 2 when enabled, else 1), covering the enabled circuits' display rectangles: the
/// display circuits' own pixels, before the presenter's offset. A 0x0 picture when no circuit is
/// enabled. ([`PictureSetup`] says what each pixel is.)
pub fn picture(mem: &LocalMemory, p: &DisplayCommand) -> Image {
    let Some(s) = PictureSetup::new(p) else {
        return Image::new(0, 0, [0; 4]);
    };
    let (w, h) = (s.width, s.height);
    let mut out = Image::new(w, h, [0, 0, 0, 255]);
    // Each circuit's buffer column for every picture column (or none outside its rectangle),
    // worked out once a frame: a pixel is then two table reads and a swizzle-table address.
    let columns = |c: &CircuitRead| -> Vec<Option<u32>> {
        (0..w as i64)
            .map(|px| c.column(s.x0 + px * s.clock_step))
            .collect()
    };
    let back = s.back.filter(|_| s.back_from_circuit);
    let (cols1, cols2) = (s.top.map(|c| columns(&c)), back.map(|c| columns(&c)));
    let (read1, read2) = (
        s.top.map(|c| DisplayReader::new(&c)),
        back.map(|c| DisplayReader::new(&c)),
    );
    for py in 0..h {
        let line = s.y0 + py as i64 * s.line_step;
        let row1 = s.top.and_then(|c| c.row(line)).zip(read1.as_ref());
        let row2 = back.and_then(|c| c.row(line)).zip(read2.as_ref());
        let row_out = &mut out.rgba[(py * w * 4) as usize..((py + 1) * w * 4) as usize];
        for (px, o) in row_out.chunks_exact_mut(4).enumerate() {
            let back = match (row2, &cols2) {
                (Some((y, r)), Some(cols)) => cols[px].map_or(s.bg, |x| r.pixel(mem, x, y)),
                _ => s.bg,
            };
            let top = match (row1, &cols1) {
                (Some((y, r)), Some(cols)) => cols[px].map(|x| r.pixel(mem, x, y)),
                _ => None,
            };
            o.copy_from_slice(&s.merge(top, back));
        }
    }
    out
}

/// Reads a display buffer's pixels as a display circuit does ([`read_display_pixel`]'s rules),
/// with its addresses from [`crate::swizzle`]'s tables.
struct DisplayReader {
    psm: Psm,
    offsets: crate::swizzle::Offsets,
}

impl DisplayReader {
    fn new(c: &CircuitRead) -> DisplayReader {
        DisplayReader {
            psm: c.psm,
            offsets: crate::swizzle::Offsets::new(c.psm, c.bp, c.fbw),
        }
    }

    #[inline]
    fn pixel(&self, mem: &LocalMemory, x: u32, y: u32) -> [u8; 4] {
        display_colour(self.psm, mem.read_at(self.psm, self.offsets.address(x, y)))
    }
}

impl Pcrtc {
    /// [`picture`] of `p`'s display registers with these switches.
    pub fn frame(&self, mem: &LocalMemory, p: &Privileged) -> Image {
        picture(mem, &DisplayCommand::new(p, *self))
    }

    /// The console's frame-mode deflicker applied to a progressive picture: each line becomes
    /// `alp`/255 of the line above and the rest of its own (the first line stays).
    pub fn deflicker_image(img: &Image, alp: u8) -> Image {
        let mut out = img.clone();
        for y in 1..img.height {
            for x in 0..img.width {
                let (up, own) = (img.get(x, y - 1), img.get(x, y));
                let a = alp as u32;
                out.set(
                    x,
                    y,
                    [
                        mix(up[0], own[0], a),
                        mix(up[1], own[1], a),
                        mix(up[2], own[2], a),
                        own[3],
                    ],
                );
            }
        }
        out
    }
}

/// Presents pictures: the display offset (Adjust Screen) and the 4:3 shape.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Presenter {
    /// The display offset x in picture pixels ([`DisplayCommand::offset`]; right is positive).
    pub offset_x: i32,
    /// The display offset y in picture rows (down is positive).
    pub offset_y: i32,
}

impl Presenter {
    /// The offset for a picture drawn at render scale `n` (n times as many pixels).
    pub fn scaled(self, n: u32) -> Presenter {
        let n = n.max(1) as i32;
        Presenter {
            offset_x: self.offset_x * n,
            offset_y: self.offset_y * n,
        }
    }

    /// The picture moved by the display offset, black where the picture left.
    pub fn present(&self, img: &Image) -> Image {
        let (dx, dy) = (self.offset_x as i64, self.offset_y as i64);
        let mut out = Image::new(img.width, img.height, [0, 0, 0, 255]);
        for y in 0..img.height as i64 {
            let sy = y - dy;
            if sy < 0 || sy >= img.height as i64 {
                continue;
            }
            for x in 0..img.width as i64 {
                let sx = x - dx;
                if sx >= 0 && sx < img.width as i64 {
                    out.set(x as u32, y as u32, img.get(sx as u32, sy as u32));
                }
            }
        }
        out
    }

    /// The 4:3 size for a picture `height` rows tall (width rounded to nearest).
    pub fn aspect_size(height: u32) -> (u32, u32) {
        ((height * 4 + 1) / 3, height)
    }

    /// [`Presenter::present`], then stretched horizontally (nearest neighbour) to 4:3.
    pub fn present_4_3(&self, img: &Image) -> Image {
        let moved = self.present(img);
        let (w, h) = Self::aspect_size(img.height);
        if img.width == 0 || h == 0 {
            return moved;
        }
        let mut out = Image::new(w, h, [0, 0, 0, 255]);
        for y in 0..h {
            for x in 0..w {
                let sx = (x as u64 * img.width as u64 / w as u64) as u32;
                out.set(x, y, moved.get(sx, y));
            }
        }
        out
    }
}

/// What a written frame (`--dump-frames`, a screenshot) holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum FrameFormat {
    /// What a player sees: moved by the display offset and stretched to 4:3
    /// ([`Presenter::present_4_3`]).
    #[default]
    Presented,
    /// The display circuits' own pixels (512 x 448 for the engine's mode), as PCSX2's GS runner
    /// and its internal-resolution screenshots write them: no offset, no 4:3.
    Display,
}

impl FrameFormat {
    /// `img` (a PCRTC picture) in this format, moved by `presenter` when presented. With no
    /// circuit on (an empty picture) the screen is black: an NTSC picture's size (512 x 448,
    /// presented 597 x 448).
    pub fn apply(self, img: &Image, presenter: Presenter) -> Image {
        self.apply_at(img, presenter, 1)
    }

    /// [`FrameFormat::apply`] for a picture drawn at render scale `scale` (the black screen of
    /// no circuit is `scale` times as large).
    pub fn apply_at(self, img: &Image, presenter: Presenter, scale: u32) -> Image {
        if img.width == 0 || img.height == 0 {
            let n = scale.max(1);
            let (w, h) = match self {
                FrameFormat::Presented => Presenter::aspect_size(448 * n),
                FrameFormat::Display => (512 * n, 448 * n),
            };
            return Image::new(w, h, [0, 0, 0, 255]);
        }
        match self {
            FrameFormat::Presented => presenter.present_4_3(img),
            FrameFormat::Display => img.clone(),
        }
    }
}
