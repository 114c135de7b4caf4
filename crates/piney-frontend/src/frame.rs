//! What the emulator hands the frontend: a picture with the presenter's parameters, and the
//! [`Emulator`] trait the window drives.

use piney_input::{Motors, PadReport, Port};

/// The largest frame side accepted (512 x 448 at render scale 8 fits).
pub const MAX_FRAME_SIDE: u32 = 8192;

/// A picture already on the GPU, in a buffer of the window's own device (see
/// [`crate::SharedGpu`]): rows of `stride` RGBA8 pixels (R in the lowest byte), `stride * 4` a
/// multiple of 256, the frame's width of them shown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpuPixels {
    /// The buffer (usage COPY_SRC).
    pub buffer: wgpu::Buffer,
    /// Pixels from one row to the next.
    pub stride: u32,
}

/// Where a frame's pixels are.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Pixels {
    /// On the CPU, tightly packed.
    Cpu(Vec<u8>),
    /// On the GPU: the presenter copies them texture-side, never through the CPU.
    Gpu(GpuPixels),
}

/// One picture to present: RGBA8 pixels, row-major and tightly packed on the CPU or in a GPU
/// buffer ([`Frame::on_gpu`]), plus how to present it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    width: u32,
    height: u32,
    pixels: Pixels,
    /// The game's display offset x in native pixels, as `piney_gs::DisplayCommand::offset`
    /// gives it (the display circuit's DX against the video mode's origin, over the clocks a
    /// pixel lasts); right is positive.
    pub offset_x: i32,
    /// The display offset y in native rows; down is positive.
    pub offset_y: i32,
    /// How many frame pixels one native pixel is (the render scale, 1 to 8; 1 for the
    /// software renderer). The offset moves `scale` times as many frame pixels.
    pub scale: u32,
    /// The frame-mode deflicker: `Some(alp)` makes each line `alp`/255 of the line above and
    /// the rest of its own (the first line stays), as `piney_gs::Pcrtc::deflicker_image`;
    /// `None` (or `Some(0)`) leaves the picture alone.
    pub deflicker: Option<u8>,
}

/// Why a [`Frame`] could not be made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    /// A side is zero or above [`MAX_FRAME_SIDE`].
    #[error("frame size {width}x{height} is outside 1..={MAX_FRAME_SIDE} per side")]
    Size {
        /// The width asked for.
        width: u32,
        /// The height asked for.
        height: u32,
    },
    /// The pixel buffer is not `width * height * 4` bytes.
    #[error("frame of {width}x{height} needs {expected} bytes of RGBA8, got {got}")]
    Length {
        /// The width.
        width: u32,
        /// The height.
        height: u32,
        /// `width * height * 4`.
        expected: usize,
        /// The buffer's length.
        got: usize,
    },
}

impl Frame {
    /// A frame of `width` x `height` RGBA8 `pixels`, no offset, scale 1, no deflicker.
    pub fn new(width: u32, height: u32, pixels: Vec<u8>) -> Result<Frame, FrameError> {
        if width == 0 || height == 0 || width > MAX_FRAME_SIDE || height > MAX_FRAME_SIDE {
            return Err(FrameError::Size { width, height });
        }
        let expected = width as usize * height as usize * 4;
        if pixels.len() != expected {
            return Err(FrameError::Length {
                width,
                height,
                expected,
                got: pixels.len(),
            });
        }
        Ok(Frame {
            width,
            height,
            pixels: Pixels::Cpu(pixels),
            offset_x: 0,
            offset_y: 0,
            scale: 1,
            deflicker: None,
        })
    }

    /// A frame of `width` x `height` pixels lying in a GPU buffer of the window's device, no
    /// offset, scale 1, no deflicker.
    pub fn on_gpu(width: u32, height: u32, pixels: GpuPixels) -> Result<Frame, FrameError> {
        if width == 0 || height == 0 || width > MAX_FRAME_SIDE || height > MAX_FRAME_SIDE {
            return Err(FrameError::Size { width, height });
        }
        let expected = pixels.stride as u64 * 4 * height as u64;
        if pixels.stride < width
            || !(pixels.stride * 4).is_multiple_of(256)
            || pixels.buffer.size() < expected
        {
            return Err(FrameError::Length {
                width,
                height,
                expected: expected as usize,
                got: pixels.buffer.size() as usize,
            });
        }
        Ok(Frame {
            width,
            height,
            pixels: Pixels::Gpu(pixels),
            offset_x: 0,
            offset_y: 0,
            scale: 1,
            deflicker: None,
        })
    }

    /// The same frame with the display offset (native pixels and rows, see
    /// [`Frame::offset_x`]).
    pub fn with_offset(mut self, x: i32, y: i32) -> Frame {
        self.offset_x = x;
        self.offset_y = y;
        self
    }

    /// Width in pixels.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in pixels.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// The RGBA8 pixels, `width * height * 4` bytes; `None` for a frame on the GPU.
    pub fn pixels(&self) -> Option<&[u8]> {
        match &self.pixels {
            Pixels::Cpu(p) => Some(p),
            Pixels::Gpu(_) => None,
        }
    }

    /// The GPU buffer of a frame made by [`Frame::on_gpu`].
    pub fn gpu_pixels(&self) -> Option<&GpuPixels> {
        match &self.pixels {
            Pixels::Gpu(p) => Some(p),
            Pixels::Cpu(_) => None,
        }
    }

    /// The pixel at (x, y); black outside the frame, and for a frame on the GPU.
    pub fn get(&self, x: u32, y: u32) -> [u8; 4] {
        let Some(pixels) = self.pixels().filter(|_| x < self.width && y < self.height) else {
            return [0, 0, 0, 255];
        };
        let i = (y as usize * self.width as usize + x as usize) * 4;
        [pixels[i], pixels[i + 1], pixels[i + 2], pixels[i + 3]]
    }

    /// The display offset in frame pixels: the native offset times the scale.
    pub fn offset_pixels(&self) -> (i32, i32) {
        let s = self.scale.clamp(1, 64) as i32;
        (
            self.offset_x.saturating_mul(s),
            self.offset_y.saturating_mul(s),
        )
    }

    /// The deflicker alpha, 0 when off.
    pub fn deflicker_alpha(&self) -> u8 {
        self.deflicker.unwrap_or(0)
    }
}

/// The save state keys, as PCSX2 players know them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StateKey {
    /// F1: save the machine to the current slot.
    Save,
    /// F2: select the next slot.
    NextSlot,
    /// F3: load the current slot.
    Load,
}

/// The emulated machine as the window drives it: one vertical blank at a time.
///
/// The window calls, per vertical blank: [`Emulator::set_pad`] for both ports, then
/// [`Emulator::run_vblank`], then [`Emulator::take_rumble`] and [`Emulator::take_audio`]; and
/// it ends the session once
/// [`Emulator::finished`] says so.
pub trait Emulator {
    /// The window says whether it presents from the device of the [`crate::SharedGpu`] it was
    /// given (`true`: frames made by [`Frame::on_gpu`] from that device are welcome; `false`,
    /// also the default before it says: CPU frames only). Called once its window is made.
    fn gpu_frames(&mut self, on: bool) {
        let _ = on;
    }

    /// Runs the machine to the next vertical blank (NTSC: 1/59.94 s of emulated time).
    /// `Ok(Some(frame))` when the PCRTC shows a new picture (every vblank at 60 fps, every
    /// second at 30 fps), `Ok(None)` when the picture did not change. `Err` ends the session
    /// with that message (a guest fault, say).
    fn run_vblank(&mut self) -> Result<Option<Frame>, String>;

    /// What the pad on `port` reports for the next read; `None` with no pad plugged in.
    fn set_pad(&mut self, port: Port, report: Option<PadReport>);

    /// A screenshot of `frame` (the picture on screen) was asked for (F12): saves it and
    /// returns where, or why not.
    fn screenshot(&mut self, frame: &Frame) -> Result<String, String> {
        let _ = frame;
        Err("screenshots are not available here".into())
    }

    /// The capture key (F10) was pressed: starts an animated capture of the frames from now on,
    /// or ends the one running; returns what it did, or why not.
    fn toggle_capture(&mut self) -> Result<String, String> {
        Err("captures are not available here".into())
    }

    /// Lines for the performance overlay (F9), asked once a second: where the host's time went
    /// since the last call (the machine's parts). The default has none.
    fn perf_lines(&mut self) -> Vec<String> {
        Vec::new()
    }

    /// A save state key was pressed (F1 save to the slot, F3 load the slot, F2 the next slot):
    /// does it and returns the line to show, or why not.
    fn state_key(&mut self, key: StateKey) -> Result<String, String> {
        let _ = key;
        Err("save states are not available here".into())
    }

    /// The GS capture key (F8) was pressed: starts a PCSX2-format GS dump of the running
    /// program (from the next clean vertical blank), or ends the one recording; returns what it
    /// did, or why not.
    fn toggle_gs_capture(&mut self) -> Result<String, String> {
        Err("GS captures are not available here".into())
    }

    /// A file was dropped on the window: when the emulator can boot it, it ends this run to do
    /// so and says what it boots; else why not (the run goes on).
    fn dropped(&mut self, path: &std::path::Path) -> Result<String, String> {
        Err(format!(
            "{}: booting a dropped file is not available here",
            path.display()
        ))
    }

    /// What `ccPad::Ctrl` sent to the motors since the last call, in order, per port.
    fn take_rumble(&mut self) -> Vec<(Port, Motors)> {
        Vec::new()
    }

    /// Moves the sound made since the last call (interleaved left, right, 48 kHz) onto the end
    /// of `out`; the window plays it. The default makes none.
    fn take_audio(&mut self, out: &mut Vec<i16>) {
        let _ = out;
    }

    /// Whether the run is over (the guest exited): the window closes and
    /// [`crate::run_window`] returns `Ok`.
    fn finished(&self) -> bool {
        false
    }
}
