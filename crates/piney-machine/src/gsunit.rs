//! The GS behind the GIF: piney-gs's state machine drawing with the software reference
//! rasteriser on its own thread, and the frames the PCRTC makes of its local memory.
//!
//! The rasteriser runs behind a channel ([`ThreadedRenderer`]): the EE, the DMAC and the GIF
//! run ahead while it draws, and a frame (or a GS->host transfer) waits for every earlier
//! command, so the pictures are the same bit for bit as drawing in line.
//!
//! A GS->host download (TRXDIR = 1) is read when TRXDIR is written and waits in the GS's output
//! FIFO until VIF1 takes it ([`GsSink::read_image`]).
//!
//! The privileged registers stay on the bus (`EeBus::gs_priv`, where the EE, the kernel and the
//! GIF's SIGNAL/FINISH/LABEL events read and write them); the display circuits' registers are
//! copied into the GS when a frame is taken.

use piney_gs::{Gs, Image, Pcrtc, SoftwareRenderer, ThreadedRenderer};

use crate::gif::GsSink;

/// The GS as the GIF's sink.
pub struct GsUnit {
    /// The state machine and its renderer (the software rasteriser on a worker thread).
    pub gs: Gs<ThreadedRenderer>,
    /// Register writes the GS refused (addresses it does not have), which the hardware ignores.
    pub refused_writes: u64,
}

impl Default for GsUnit {
    fn default() -> Self {
        Self {
            gs: Gs::new(ThreadedRenderer::new(SoftwareRenderer::new())),
            refused_writes: 0,
        }
    }
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
}

/// The privileged registers the PCRTC reads: PMODE, SMODE1, SMODE2, SRFSH, SYNCH1, SYNCH2,
/// SYNCV, DISPFB1, DISPLAY1, DISPFB2, DISPLAY2, EXTBUF, EXTDATA, EXTWRITE, BGCOLOR (0x00-0xe0).
const DISPLAY_REGS: std::ops::RangeInclusive<u32> = 0x00..=0xe0;

impl GsUnit {
    /// The picture the display circuits show now, from `gs_priv` (the bus's privileged
    /// registers, by 16-byte slot).
    pub fn frame(&mut self, gs_priv: &[u64], pcrtc: Pcrtc) -> Image {
        for off in DISPLAY_REGS.step_by(16) {
            let _ = self.gs.write_priv(off, gs_priv[(off / 16) as usize]);
        }
        self.gs.display_image(pcrtc)
    }
}

impl crate::Machine {
    /// The picture the GS's display circuits show now (the PCRTC's merge of both read circuits),
    /// or `None` when the GIF feeds something other than the GS (a test's recording sink).
    pub fn frame(&mut self, pcrtc: Pcrtc) -> Option<Image> {
        let bus = &mut self.bus;
        let unit = bus.gif.sink.gs_unit()?;
        Some(unit.frame(&bus.gs_priv, pcrtc))
    }
}
