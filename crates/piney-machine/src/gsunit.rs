//! The GS behind the GIF: piney-gs's state machine, the one model of the GS's registers (the
//! general registers the GIF writes and the privileged ones at 0x1200_0000 the EE, the kernel
//! and the GIF's SIGNAL/FINISH/LABEL reach), drawing with the renderer the binary chose
//! ([`crate::Machine::attach_renderer`]; the machine never builds one).
//!
//! The renderer owns local memory. A renderer on its own thread (piney-gs's
//! `ThreadedRenderer`) lets the EE, the DMAC and the GIF run ahead while it draws; a frame (or a
//! GS->host transfer) waits for every earlier command, so the pictures are the same bit for bit
//! as drawing in line. A frame is a display command with the PCRTC's registers, answered by the
//! renderer with its picture; the display offset comes with it. With no renderer attached the
//! registers work and nothing is drawn.
//!
//! A GS->host download (TRXDIR = 1) is read when TRXDIR is written and waits in the GS's output
//! FIFO until VIF1 takes it ([`GsUnit::read_image`]).
//!
//! A capture ([`GsUnit::start_capture`], `piney run --dump-gs`) records what the GS takes from
//! each GIF path and the privileged registers at each vertical blank, as a PCSX2 GS dump.

use std::sync::{Arc, Mutex};

use piney_gs::capture::Capture;
use piney_gs::gs::{csr, priv_reg};
use piney_gs::{Gs, Image, MemCommand, Pcrtc, Presenter, Renderer};

/// A renderer the machine can hand to its GS (it may live on another thread).
pub type BoxedRenderer = Box<dyn Renderer + Send>;

/// One item of the GS's input, as a test's recording sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GsWrite {
    /// A register write.
    Reg(u8, u64),
    /// An IMAGE qword.
    Image(u128),
}

/// The GS.
pub struct GsUnit {
    /// The state machine and its renderer (`None`: none attached, nothing drawn).
    pub gs: Gs<Option<BoxedRenderer>>,
    /// Register writes the GS refused (addresses it does not have), which the hardware ignores.
    pub refused_writes: u64,
    /// Every write the GS takes, when a test records them ([`GsUnit::record`]).
    record: Option<Arc<Mutex<Vec<GsWrite>>>>,
    /// The GS dump being recorded.
    capture: Option<Box<Capture>>,
    /// Vertical blanks the capture still records (`--dump-gs-frames`), and the result of one
    /// that ended when they ran out.
    capture_left: Option<u64>,
    capture_done: Option<std::io::Result<u64>>,
    /// A capture asked for mid-run: its file, frames, game, and the vertical blank from which
    /// it starts (at the first one where the GS and the GIF paths are between commands).
    armed: Option<ArmedCapture>,
    /// Vertical blanks seen, and the one a mid-run capture started at.
    vsyncs: u64,
    started_at: Option<u64>,
}

/// A GS dump to start at a clean vertical blank ([`GsUnit::arm_capture`]).
#[derive(Debug, Clone)]
struct ArmedCapture {
    path: std::path::PathBuf,
    frames: Option<u64>,
    serial: String,
    crc: u32,
    from: u64,
}

impl Default for GsUnit {
    fn default() -> Self {
        Self::new()
    }
}

/// One shown frame: the display circuits' own pixels and how to present them.
#[derive(Debug, Clone, PartialEq)]
pub struct Displayed {
    /// The PCRTC's picture (the display circuits' pixels; 0x0 when no circuit is on).
    pub image: Image,
    /// The display offset this frame's registers give, in the picture's pixels.
    pub presenter: Presenter,
    /// The render scale the picture was drawn at.
    pub scale: u32,
}

/// A displayed frame whose picture stays on the GPU ([`GsUnit::frame_on_gpu`]).
pub struct GpuDisplayed {
    /// The renderer's handle of the picture (`Renderer::display_gpu`); `None` when no circuit
    /// is on, or when the renderer keeps its pictures on the CPU.
    pub picture: Option<piney_gs::GpuHandle>,
    /// The display offset this frame's registers give, in the picture's pixels.
    pub presenter: Presenter,
    /// The render scale the picture was drawn at.
    pub scale: u32,
}

impl GsUnit {
    /// A power-on GS with no renderer.
    pub fn new() -> Self {
        Self {
            gs: Gs::new(None),
            refused_writes: 0,
            record: None,
            capture: None,
            capture_left: None,
            capture_done: None,
            armed: None,
            vsyncs: 0,
            started_at: None,
        }
    }

    /// Draw with `renderer` from now on (its local memory starts zeroed).
    pub fn attach(&mut self, renderer: BoxedRenderer) {
        *self.gs.renderer_mut() = Some(renderer);
    }

    /// The attached renderer's line for `--stats` ([`piney_gs::Renderer::report`]).
    pub fn renderer_report(&mut self) -> Option<String> {
        self.gs.renderer_mut().report()
    }

    /// True when a renderer is attached.
    pub fn has_renderer(&self) -> bool {
        self.gs.renderer().is_some()
    }

    /// Records every write the GS takes from now on into the returned log (for tests).
    pub fn record(&mut self) -> Arc<Mutex<Vec<GsWrite>>> {
        let log = Arc::new(Mutex::new(Vec::new()));
        self.record = Some(log.clone());
        log
    }

    fn note(&self, w: GsWrite) {
        if let Some(log) = &self.record
            && let Ok(mut l) = log.lock()
        {
            l.push(w);
        }
    }

    /// A write of `value` to general register `reg` (from the GIF).
    pub fn write_reg(&mut self, reg: u8, value: u64) {
        self.note(GsWrite::Reg(reg, value));
        if self.gs.write_reg(reg, value).is_err() {
            self.refused_writes += 1;
        }
    }

    /// One qword of IMAGE data (HWREG).
    pub fn write_image(&mut self, qword: u128) {
        self.note(GsWrite::Image(qword));
        self.gs.write_image(&[qword]);
    }

    /// The GS's output FIFO, filled when TRXDIR = 1 starts a local->host transfer (the GS reads
    /// the BITBLTBUF/TRXPOS/TRXREG source rectangle then, after every earlier draw): fills `out`,
    /// returns the qwords filled.
    pub fn read_image(&mut self, out: &mut [u128]) -> usize {
        self.gs.read_image(out)
    }

    /// Qwords of local->host data waiting in the output FIFO.
    pub fn readback_qwords(&self) -> usize {
        self.gs.readback_pending().div_ceil(16)
    }

    /// True while a SIGNAL waits for the CPU to clear CSR.SIGNAL: the GIF stalls.
    pub fn signal_stalled(&self) -> bool {
        self.gs.signal_stalled()
    }

    /// A machine reset: the GS's registers, queues and FIFO as at power-on, and local memory
    /// and the CLUT zeroed, so that a reset machine draws as a fresh one. The renderer, a
    /// recording and a capture stay.
    pub fn reset(&mut self) {
        self.gs.reset();
        self.gs.privileged = Gs::<Option<BoxedRenderer>>::new_privileged();
        self.gs.renderer_mut().memory(MemCommand::PowerOn);
        self.refused_writes = 0;
    }

    /// A 32-bit EE read of the privileged register at `offset` (from 0x1200_0000): the low or
    /// high half of the 64-bit register. Undefined offsets read 0.
    pub fn priv_read32(&self, offset: u32) -> u32 {
        let v = self.gs.read_priv(offset & !0xf).unwrap_or(0);
        if offset & 4 != 0 {
            (v >> 32) as u32
        } else {
            v as u32
        }
    }

    /// A 32-bit EE write of the privileged register at `offset`. CSR takes its low half as a
    /// command (1s clear the event bits, RESET resets the GS, clearing SIGNAL releases a
    /// waiting one); the other registers take the half written. Undefined offsets ignore it.
    pub fn priv_write32(&mut self, offset: u32, v: u32) {
        let off = offset & !0xf;
        if off == priv_reg::CSR {
            if offset & 4 == 0 {
                let _ = self.gs.write_priv(off, v as u64);
            }
            return;
        }
        let Ok(old) = self.gs.read_priv(off) else {
            return;
        };
        let new = if offset & 4 != 0 {
            (old & 0xffff_ffff) | (v as u64) << 32
        } else {
            (old & !0xffff_ffff) | v as u64
        };
        let _ = self.gs.write_priv(off, new);
    }

    /// A vertical blank starts: CSR.VSINT, FIELD toggled; a capture notes it, and an armed one
    /// starts when nothing is half done (`paths_idle`: every GIF path between packets).
    pub fn vsync(&mut self, paths_idle: bool) {
        self.vsyncs += 1;
        let odd = self.gs.privileged.csr & csr::FIELD == 0;
        self.gs.vsync(odd);
        if self.capture.is_none()
            && paths_idle
            && self.gs.quiescent()
            && let Some(a) = self.armed.take_if(|a| self.vsyncs >= a.from)
        {
            let mem = self.gs.local_memory();
            let regs = self.gs.reg_values();
            match Capture::create_from(&a.path, &regs, &mem, self.gs.priv_block(), &a.serial, a.crc)
            {
                Ok(c) => {
                    self.capture = Some(Box::new(c));
                    self.capture_left = a.frames;
                    self.started_at = Some(self.vsyncs);
                }
                Err(e) => self.capture_done = Some(Err(e)),
            }
            return;
        }
        if let Some(c) = &mut self.capture {
            c.vsync(self.gs.priv_block(), odd as u8);
            if let Some(left) = &mut self.capture_left {
                *left = left.saturating_sub(1);
                if *left == 0 {
                    // Its frames are recorded: the file is finished now, the run goes on.
                    self.capture_left = None;
                    self.capture_done = self.capture.take().map(|c| c.finish());
                }
            }
        }
    }

    /// True when the GS's interrupt line is up for `bit` of CSR (0 SIGNAL, 1 FINISH, 3 VSINT):
    /// the event is set and IMR does not mask it.
    pub fn raises(&self, bit: u32) -> bool {
        let p = &self.gs.privileged;
        p.csr & (1 << bit) != 0 && p.imr & (1 << (8 + bit)) == 0
    }

    /// Starts recording a GS dump into `path` (for the game `serial`, boot ELF `crc`); it is
    /// written as the run goes.
    pub fn start_capture(
        &mut self,
        path: &std::path::Path,
        serial: &str,
        crc: u32,
    ) -> std::io::Result<()> {
        self.capture = Some(Box::new(Capture::create(
            path,
            self.gs.priv_block(),
            serial,
            crc,
        )?));
        Ok(())
    }

    /// Starts a GS dump into `path` during the run: at the first vertical blank from number
    /// `from` (counted from power-on) where the GS has no vertex queued and no transfer
    /// waiting and every GIF path is between packets; its state is the GS's registers and
    /// local memory then. `frames`: its length (None: to the end of the run).
    pub fn arm_capture(
        &mut self,
        path: &std::path::Path,
        frames: Option<u64>,
        serial: &str,
        crc: u32,
        from: u64,
    ) {
        self.armed = Some(ArmedCapture {
            path: path.to_path_buf(),
            frames,
            serial: serial.to_string(),
            crc,
            from,
        });
    }

    /// The vertical blank (counted from power-on) a mid-run capture started at, once it has.
    pub fn capture_started_at(&self) -> Option<u64> {
        self.started_at
    }

    /// Whether a capture is recording or waiting to start.
    pub fn capturing(&self) -> bool {
        self.capture.is_some() || self.armed.is_some()
    }

    /// Records only the next `frames` vertical blanks of the running capture, then finishes
    /// its file (the run goes on).
    pub fn limit_capture(&mut self, frames: u64) {
        self.capture_left = Some(frames.max(1));
    }

    /// Ends a running capture (its file completed and compressed), or gives the result of the
    /// one that ended at its frame limit: the frames it holds, or why it could not be written.
    /// `None` when no capture ran.
    pub fn finish_capture(&mut self) -> Option<std::io::Result<u64>> {
        self.capture
            .take()
            .map(|c| c.finish())
            .or_else(|| self.capture_done.take())
    }

    /// Notes a qword the GS takes from GIF path `path` in a running capture.
    pub fn capture_qword(&mut self, path: usize, qword: u128) {
        if let Some(c) = &mut self.capture {
            c.transfer(path, qword);
        }
    }

    /// Sends this frame's display command: the presenter (scaled) and the render scale, or
    /// `None` with no renderer attached.
    fn show(&mut self, pcrtc: Pcrtc) -> Option<(Presenter, u32)> {
        if !self.has_renderer() {
            return None;
        }
        let scale = self.gs.renderer().scale();
        Some((self.gs.display(pcrtc).presenter().scaled(scale), scale))
    }

    /// The frame the display circuits show now, or `None` with no renderer attached.
    pub fn frame(&mut self, pcrtc: Pcrtc) -> Option<Displayed> {
        let (presenter, scale) = self.show(pcrtc)?;
        Some(Displayed {
            image: self.gs.renderer_mut().display_image(),
            presenter,
            scale,
        })
    }

    /// [`GsUnit::frame`] with the picture left where the renderer made it: its GPU handle, no
    /// CPU copy. `None` with no renderer attached.
    pub fn frame_on_gpu(&mut self, pcrtc: Pcrtc) -> Option<GpuDisplayed> {
        let (presenter, scale) = self.show(pcrtc)?;
        Some(GpuDisplayed {
            picture: self.gs.renderer_mut().display_gpu(),
            presenter,
            scale,
        })
    }
}

impl crate::Machine {
    /// Hands the GS the renderer to draw with (the binary's choice). Until one is attached the
    /// GS's registers work, nothing is drawn and [`crate::Machine::frame`] is `None`.
    pub fn attach_renderer(&mut self, renderer: BoxedRenderer) {
        self.bus.gif.gs.attach(renderer);
    }

    /// The frame the GS's display circuits show now (the PCRTC's merge of both read circuits,
    /// made by the renderer) with its display offset, or `None` when no renderer is attached.
    pub fn frame(&mut self, pcrtc: Pcrtc) -> Option<Displayed> {
        self.bus.gif.gs.frame(pcrtc)
    }

    /// [`crate::Machine::frame`] with the picture left on the GPU (see
    /// [`GsUnit::frame_on_gpu`]).
    pub fn frame_on_gpu(&mut self, pcrtc: Pcrtc) -> Option<GpuDisplayed> {
        self.bus.gif.gs.frame_on_gpu(pcrtc)
    }
}
