//! The GS behind the GIF: piney-gs's state machine drawing with the renderer the binary chose
//! ([`crate::Machine::attach_renderer`]; the machine never builds one), and the frames its
//! PCRTC shows.
//!
//! The renderer owns local memory. A renderer on its own thread (piney-gs's
//! `ThreadedRenderer`) lets the EE, the DMAC and the GIF run ahead while it draws; a frame (or a
//! GS->host transfer) waits for every earlier command, so the pictures are the same bit for bit
//! as drawing in line. A frame is a display command with the PCRTC's registers, answered by the
//! renderer with its picture; the display offset comes with it.
//!
//! A GS->host download (TRXDIR = 1) is read when TRXDIR is written and waits in the GS's output
//! FIFO until VIF1 takes it ([`GsSink::read_image`]).
//!
//! The privileged registers stay on the bus (`EeBus::gs_priv`, where the EE, the kernel and the
//! GIF's SIGNAL/FINISH/LABEL events read and write them); the display circuits' registers are
//! copied into the GS when a frame is taken.

use piney_gs::{Gs, Image, MemCommand, Pcrtc, Presenter, Renderer};

use crate::gif::GsSink;

/// A renderer the machine can hand to its GS (it may live on another thread).
pub type BoxedRenderer = Box<dyn Renderer + Send>;

/// The GS as the GIF's sink.
pub struct GsUnit {
    /// The state machine and its renderer.
    pub gs: Gs<BoxedRenderer>,
    /// Register writes the GS refused (addresses it does not have), which the hardware ignores.
    pub refused_writes: u64,
}

impl GsUnit {
    /// A power-on GS drawing with `renderer`.
    pub fn new(renderer: BoxedRenderer) -> Self {
        Self {
            gs: Gs::new(renderer),
            refused_writes: 0,
        }
    }
}

/// One shown frame: the display circuits' own pixels and how to present them.
#[derive(Debug, Clone, PartialEq)]
pub struct Displayed {
    /// The PCRTC's picture (the display circuits' pixels; 0x0 when no circuit is on).
    pub image: Image,
    /// The display offset this frame's registers give.
    pub presenter: Presenter,
}

impl GsSink for GsUnit {
    fn write_reg(&mut self, reg: u8, value: u64) {
        if self.gs.write_reg(reg, value).is_err() {
            self.refused_writes += 1;
        }
    }
    fn write_image(&mut self, qword: u128) {
        self.gs.write_image(&[qword]);
    }
    fn gs_unit(&mut self) -> Option<&mut GsUnit> {
        Some(self)
    }
    /// The GS's output FIFO, filled when TRXDIR = 1 starts a local->host transfer (the GS reads
    /// the BITBLTBUF/TRXPOS/TRXREG source rectangle then, after every earlier draw).
    fn read_image(&mut self, out: &mut [u128]) -> usize {
        self.gs.read_image(out)
    }
    fn readback_qwords(&self) -> usize {
        self.gs.readback_pending().div_ceil(16)
    }
    /// A machine reset: the GS's registers, queues and FIFO as at power-on, and local memory
    /// and the CLUT zeroed, so that a reset machine draws as a fresh one.
    fn reset(&mut self) {
        self.gs.reset();
        self.gs.privileged = Gs::<BoxedRenderer>::new_privileged();
        self.gs.renderer_mut().memory(MemCommand::PowerOn);
        self.refused_writes = 0;
    }
}

/// The privileged registers the PCRTC reads: PMODE, SMODE1, SMODE2, SRFSH, SYNCH1, SYNCH2,
/// SYNCV, DISPFB1, DISPLAY1, DISPFB2, DISPLAY2, EXTBUF, EXTDATA, EXTWRITE, BGCOLOR (0x00-0xe0).
const DISPLAY_REGS: std::ops::RangeInclusive<u32> = 0x00..=0xe0;

impl GsUnit {
    /// The frame the display circuits show now, from `gs_priv` (the bus's privileged
    /// registers, by 16-byte slot).
    pub fn frame(&mut self, gs_priv: &[u64], pcrtc: Pcrtc) -> Displayed {
        for off in DISPLAY_REGS.step_by(16) {
            let _ = self.gs.write_priv(off, gs_priv[(off / 16) as usize]);
        }
        let presenter = self.gs.display(pcrtc).presenter();
        Displayed {
            image: self.gs.renderer_mut().display_image(),
            presenter,
        }
    }
}

impl crate::Machine {
    /// Hands the GS the renderer to draw with (the binary's choice). Until one is attached the
    /// GIF's output goes nowhere and [`crate::Machine::frame`] is `None`. Local memory starts
    /// zeroed.
    pub fn attach_renderer(&mut self, renderer: BoxedRenderer) {
        self.bus.gif.set_sink(Box::new(GsUnit::new(renderer)));
    }

    /// The frame the GS's display circuits show now (the PCRTC's merge of both read circuits,
    /// made by the renderer) with its display offset, or `None` when no renderer is attached
    /// (or the GIF feeds a test's recording sink).
    pub fn frame(&mut self, pcrtc: Pcrtc) -> Option<Displayed> {
        let bus = &mut self.bus;
        let unit = bus.gif.sink.gs_unit()?;
        Some(unit.frame(&bus.gs_priv, pcrtc))
    }
}
