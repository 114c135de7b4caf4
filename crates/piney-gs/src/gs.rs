//! The GS register state machine: A+D register writes, image data, privileged registers,
//! the vertex queue and its kicks, transfers and CLUT loads.

use std::collections::VecDeque;

use crate::draw::{Context, DrawCommand, Env, MemCommand, PrimKind, Renderer, Vertex};
use crate::mem::TransferRect;
use crate::psm::Psm;
use crate::regs::*;

/// General register addresses (GS User's Manual, "General Purpose Registers").
pub mod reg {
    #![allow(missing_docs)]
    pub const PRIM: u8 = 0x00;
    pub const RGBAQ: u8 = 0x01;
    pub const ST: u8 = 0x02;
    pub const UV: u8 = 0x03;
    pub const XYZF2: u8 = 0x04;
    pub const XYZ2: u8 = 0x05;
    pub const TEX0_1: u8 = 0x06;
    pub const TEX0_2: u8 = 0x07;
    pub const CLAMP_1: u8 = 0x08;
    pub const CLAMP_2: u8 = 0x09;
    pub const FOG: u8 = 0x0a;
    pub const XYZF3: u8 = 0x0c;
    pub const XYZ3: u8 = 0x0d;
    pub const TEX1_1: u8 = 0x14;
    pub const TEX1_2: u8 = 0x15;
    pub const TEX2_1: u8 = 0x16;
    pub const TEX2_2: u8 = 0x17;
    pub const XYOFFSET_1: u8 = 0x18;
    pub const XYOFFSET_2: u8 = 0x19;
    pub const PRMODECONT: u8 = 0x1a;
    pub const PRMODE: u8 = 0x1b;
    pub const TEXCLUT: u8 = 0x1c;
    pub const SCANMSK: u8 = 0x22;
    pub const MIPTBP1_1: u8 = 0x34;
    pub const MIPTBP1_2: u8 = 0x35;
    pub const MIPTBP2_1: u8 = 0x36;
    pub const MIPTBP2_2: u8 = 0x37;
    pub const TEXA: u8 = 0x3b;
    pub const FOGCOL: u8 = 0x3d;
    pub const TEXFLUSH: u8 = 0x3f;
    pub const SCISSOR_1: u8 = 0x40;
    pub const SCISSOR_2: u8 = 0x41;
    pub const ALPHA_1: u8 = 0x42;
    pub const ALPHA_2: u8 = 0x43;
    pub const DIMX: u8 = 0x44;
    pub const DTHE: u8 = 0x45;
    pub const COLCLAMP: u8 = 0x46;
    pub const TEST_1: u8 = 0x47;
    pub const TEST_2: u8 = 0x48;
    pub const PABE: u8 = 0x49;
    pub const FBA_1: u8 = 0x4a;
    pub const FBA_2: u8 = 0x4b;
    pub const FRAME_1: u8 = 0x4c;
    pub const FRAME_2: u8 = 0x4d;
    pub const ZBUF_1: u8 = 0x4e;
    pub const ZBUF_2: u8 = 0x4f;
    pub const BITBLTBUF: u8 = 0x50;
    pub const TRXPOS: u8 = 0x51;
    pub const TRXREG: u8 = 0x52;
    pub const TRXDIR: u8 = 0x53;
    pub const HWREG: u8 = 0x54;
    pub const SIGNAL: u8 = 0x60;
    pub const FINISH: u8 = 0x61;
    pub const LABEL: u8 = 0x62;
}

/// Privileged register offsets from 0x12000000.
pub mod priv_reg {
    #![allow(missing_docs)]
    pub const PMODE: u32 = 0x0000;
    pub const SMODE1: u32 = 0x0010;
    pub const SMODE2: u32 = 0x0020;
    pub const SRFSH: u32 = 0x0030;
    pub const SYNCH1: u32 = 0x0040;
    pub const SYNCH2: u32 = 0x0050;
    pub const SYNCV: u32 = 0x0060;
    pub const DISPFB1: u32 = 0x0070;
    pub const DISPLAY1: u32 = 0x0080;
    pub const DISPFB2: u32 = 0x0090;
    pub const DISPLAY2: u32 = 0x00a0;
    pub const EXTBUF: u32 = 0x00b0;
    pub const EXTDATA: u32 = 0x00c0;
    pub const EXTWRITE: u32 = 0x00d0;
    pub const BGCOLOR: u32 = 0x00e0;
    pub const CSR: u32 = 0x1000;
    pub const IMR: u32 = 0x1010;
    pub const BUSDIR: u32 = 0x1040;
    pub const SIGLBLID: u32 = 0x1080;
}

/// CSR bits (GS User's Manual, CSR).
pub mod csr {
    #![allow(missing_docs)]
    pub const SIGNAL: u64 = 1 << 0;
    pub const FINISH: u64 = 1 << 1;
    pub const HSINT: u64 = 1 << 2;
    pub const VSINT: u64 = 1 << 3;
    pub const EDWINT: u64 = 1 << 4;
    pub const FLUSH: u64 = 1 << 8;
    pub const RESET: u64 = 1 << 9;
    pub const NFIELD: u64 = 1 << 12;
    pub const FIELD: u64 = 1 << 13;
    /// FIFO status: 01 = empty.
    pub const FIFO_EMPTY: u64 = 1 << 14;
    /// REV 0x1B and ID 0x55, the values PCSX2 reports (GSState CSR reset).
    pub const REV_ID: u64 = (0x1b << 16) | (0x55 << 24);
}

/// Errors the state machine reports; the write itself is ignored, as the hardware does.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
pub enum GsError {
    /// A general register address the GS does not define.
    #[error("GS: write to unknown register {0:#04x}")]
    UnknownRegister(u8),
    /// A privileged register offset the GS does not define.
    #[error("GS: access to unknown privileged register at 0x{0:08x}")]
    UnknownPrivileged(u32),
    /// A transfer with an undefined pixel storage mode.
    #[error("GS: {what} uses undefined PSM {code:#04x}")]
    BadPsm {
        /// Which register.
        what: &'static str,
        /// The code.
        code: u32,
    },
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct HostTransfer {
    rect: TransferRect,
    done: u64,
    pending: Vec<u8>,
}

/// The privileged registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Privileged {
    /// PMODE.
    pub pmode: Pmode,
    /// SMODE1 (raw).
    pub smode1: u64,
    /// SMODE2.
    pub smode2: Smode2,
    /// SRFSH (raw).
    pub srfsh: u64,
    /// SYNCH1 (raw).
    pub synch1: u64,
    /// SYNCH2 (raw).
    pub synch2: u64,
    /// SYNCV (raw).
    pub syncv: u64,
    /// DISPFB1 and DISPFB2.
    pub dispfb: [DispFb; 2],
    /// DISPLAY1 and DISPLAY2.
    pub display: [Display; 2],
    /// EXTBUF (raw).
    pub extbuf: u64,
    /// EXTDATA (raw).
    pub extdata: u64,
    /// EXTWRITE (raw).
    pub extwrite: u64,
    /// BGCOLOR.
    pub bgcolor: BgColor,
    /// CSR as stored (the event bits 0-4 and FIELD/NFIELD); reads add REV/ID and FIFO status.
    pub csr: u64,
    /// IMR.
    pub imr: u64,
    /// BUSDIR.
    pub busdir: u64,
    /// SIGLBLID: SIGID in bits 0-31, LBLID in 32-63.
    pub siglblid: u64,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct State {
    prim: Prim,
    prmode: u64,
    prmodecont: u64,
    rgbaq: Rgbaq,
    st: St,
    uv: Uv,
    fog: Fog,
    ctx: [Context; 2],
    env: Env,
    bitbltbuf: BitBltBuf,
    trxpos: TrxPos,
    trxreg: TrxReg,
    trxdir: u64,
    /// CBP0/CBP1: the CLUT buffer pointers compared by CLD 4 and 5.
    cbp: [u32; 2],
    queue: [Vertex; 3],
    queued: usize,
    host: Option<HostTransfer>,
}

impl State {
    fn new() -> Self {
        State {
            prim: Prim(0),
            prmode: 0,
            // PRMODECONT.AC resets to 1: PRIM's attributes are used.
            prmodecont: 1,
            // Q resets to 1.0.
            rgbaq: Rgbaq(0x3f80_0000_0000_0000),
            st: St(0),
            uv: Uv(0),
            fog: Fog(0),
            ctx: [Context::default(); 2],
            env: Env::default(),
            bitbltbuf: BitBltBuf(0),
            trxpos: TrxPos(0),
            trxreg: TrxReg(0),
            trxdir: 3,
            cbp: [0; 2],
            queue: [Vertex::default(); 3],
            queued: 0,
            host: None,
        }
    }
}

/// The GS: registers, vertex queue and transfers, driving a [`Renderer`].
pub struct Gs<R: Renderer> {
    renderer: R,
    s: State,
    /// Local->host bytes read from the renderer and not yet taken by the host.
    fifo: VecDeque<u8>,
    /// The local->host transfer still to read: its rectangle and the next pixel. The GS reads
    /// local memory as the host drains the FIFO, so the pixels are fetched from the renderer a
    /// chunk at a time as the host reads ([`Gs::read_image`]), never all at once: a rectangle
    /// of 4095 x 4095 32-bit pixels (64 MiB) costs a chunk of memory, not its size.
    download: Option<(TransferRect, u64)>,
    /// A SIGNAL that arrived while CSR.SIGNAL was set.
    pending_signal: Option<IdMask>,
    /// The privileged registers.
    pub privileged: Privileged,
    draws: u64,
    /// Image data gathered for the renderer (one host->local command for many qwords), sent
    /// before any other command.
    upload: Option<Upload>,
}

/// A [`Gs`] as a save state holds it ([`Gs::save_state`]).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct GsState {
    s: State,
    fifo: VecDeque<u8>,
    download: Option<(TransferRect, u64)>,
    pending_signal: Option<IdMask>,
    privileged: Privileged,
    draws: u64,
    memory: Box<crate::LocalMemory>,
    #[serde(with = "piney_state::boxed")]
    clut: Box<[u16; 512]>,
    /// The sample planes past plane 0 at a render scale (empty at 1x): a state loaded at the
    /// scale it was saved at continues with the same fine samples; at another scale they are
    /// rebuilt from `memory`.
    sample_planes: Vec<crate::LocalMemory>,
}

/// Host->local data not yet sent: pixels `start..` of `rect`.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Upload {
    rect: TransferRect,
    start: u64,
    data: Vec<u8>,
}

/// Gathered image data goes to the renderer at this size, if nothing else sends it first.
const UPLOAD_CHUNK: usize = 1 << 20;

/// MIPTBP1 as TEX1.MTBA derives it on a TEX0 write (not TEX2), for textures at least 32 texels
/// wide (TW 5..10) in a colour format. Facts from PCSX2 `GSState::GIFRegHandlerTEX0`: levels
/// are packed after level 0 from the width alone (TH and TBW are ignored): level 0 takes
/// w * w * bits / 8 bytes (in 256-byte blocks), each next level a quarter of the previous (at
/// least one block), widths halve from max(1, w / 64).
fn auto_miptbp1(t: Tex0) -> Option<MipTbp> {
    let psm = Psm::from_code(t.psm() as u64)?;
    if psm.is_depth() || !(5..=10).contains(&t.tw()) {
        return None;
    }
    // Memory bits a texel takes (24-bit and the H formats live in 32-bit words).
    let bits: u64 = match psm {
        Psm::Ct16 | Psm::Ct16s => 16,
        Psm::T8 => 8,
        Psm::T4 => 4,
        _ => 32,
    };
    let w = 1u64 << t.tw();
    let mut size = (w * w * bits / 4) >> 9;
    let mut bp = t.tbp0() as u64;
    let mut bw = (w >> 6).max(1);
    let mut v = 0u64;
    for level in 0..3 {
        bp += size;
        bw = (bw >> 1).max(1);
        size = (size >> 2).max(1);
        v |= ((bp & 0x3fff) | ((bw & 0x3f) << 14)) << (level * 20);
    }
    Some(MipTbp(v))
}

/// The privileged registers a dump's 8 KiB block carries, CSR aside (it is a command when
/// written).
const PRIV_BLOCK_REGS: [u32; 18] = [
    priv_reg::PMODE,
    priv_reg::SMODE1,
    priv_reg::SMODE2,
    priv_reg::SRFSH,
    priv_reg::SYNCH1,
    priv_reg::SYNCH2,
    priv_reg::SYNCV,
    priv_reg::DISPFB1,
    priv_reg::DISPLAY1,
    priv_reg::DISPFB2,
    priv_reg::DISPLAY2,
    priv_reg::EXTBUF,
    priv_reg::EXTDATA,
    priv_reg::EXTWRITE,
    priv_reg::BGCOLOR,
    priv_reg::IMR,
    priv_reg::BUSDIR,
    priv_reg::SIGLBLID,
];

fn psm_of(what: &'static str, code: u32) -> Result<Psm, GsError> {
    Psm::from_code(code as u64).ok_or(GsError::BadPsm { what, code })
}

impl<R: Renderer> Gs<R> {
    /// A GS after reset, drawing through `renderer`.
    pub fn new(renderer: R) -> Self {
        Gs {
            renderer,
            s: State::new(),
            fifo: VecDeque::new(),
            download: None,
            pending_signal: None,
            privileged: Self::new_privileged(),
            draws: 0,
            upload: None,
        }
    }

    /// The privileged registers at power-on: IMR masks every interrupt (bits 8-14).
    pub fn new_privileged() -> Privileged {
        Privileged {
            imr: 0x7f00,
            ..Privileged::default()
        }
    }

    /// The renderer. Image data of a host->local transfer may still be gathering here (see
    /// [`Gs::renderer_mut`]).
    pub fn renderer(&self) -> &R {
        &self.renderer
    }

    /// The renderer, mutably (to read its local memory, for instance), with every command so
    /// far sent to it.
    pub fn renderer_mut(&mut self) -> &mut R {
        self.out()
    }

    /// Gives the renderer back, with every command so far sent to it.
    pub fn into_renderer(mut self) -> R {
        self.send_upload();
        self.renderer
    }

    /// The renderer after the gathered image data: every command goes out through here, so
    /// the renderer sees them in order.
    /// The whole GS for a save state: its registers, queues and transfers, and the renderer's
    /// local memory and CLUT buffer after every command so far (the renderer's own objects are
    /// not part of it: any renderer takes the state back).
    pub fn save_state(&mut self) -> GsState {
        let memory = self.out().read_memory();
        let clut = self.renderer.read_clut();
        let sample_planes = self.renderer.read_sample_planes();
        GsState {
            s: self.s.clone(),
            fifo: self.fifo.clone(),
            download: self.download,
            pending_signal: self.pending_signal,
            privileged: self.privileged,
            draws: self.draws,
            memory,
            clut,
            sample_planes,
        }
    }

    /// Takes a [`Gs::save_state`] back: the registers replaced, the renderer given the local
    /// memory and CLUT buffer.
    pub fn load_state(&mut self, st: GsState) {
        self.upload = None;
        self.s = st.s;
        self.fifo = st.fifo;
        self.download = st.download;
        self.pending_signal = st.pending_signal;
        self.privileged = st.privileged;
        self.draws = st.draws;
        self.renderer.memory(MemCommand::SetMemory(st.memory));
        self.renderer
            .memory(MemCommand::SetSamplePlanes(st.sample_planes));
        self.renderer.memory(MemCommand::SetClut(st.clut));
    }

    fn out(&mut self) -> &mut R {
        self.send_upload();
        &mut self.renderer
    }

    fn send_upload(&mut self) {
        if let Some(Upload { rect, start, data }) = self.upload.take() {
            self.renderer
                .memory(MemCommand::HostToLocal { rect, start, data });
        }
    }

    /// Primitives drawn so far.
    pub fn draw_count(&self) -> u64 {
        self.draws
    }

    /// The context registers (0 or 1).
    pub fn context(&self, n: usize) -> &Context {
        &self.s.ctx[n & 1]
    }

    /// The shared drawing registers.
    pub fn env(&self) -> &Env {
        &self.s.env
    }

    /// The current PRIM register.
    pub fn prim(&self) -> Prim {
        self.s.prim
    }

    /// Vertices waiting in the queue.
    pub fn queued_vertices(&self) -> usize {
        self.s.queued
    }

    /// Whether nothing is half done: no vertex queued, no host-to-local transfer waiting for
    /// data. A GS dump may start here (its state holds registers and memory, not those).
    pub fn quiescent(&self) -> bool {
        self.s.queued == 0 && self.s.host.is_none()
    }

    /// The general registers as [`Gs::restore_reg`] takes them back: every register a GS
    /// dump's state holds (PCSX2's state version 8 order), with its stored value.
    pub fn reg_values(&self) -> Vec<(u8, u64)> {
        let s = &self.s;
        let mut v = vec![
            (reg::PRIM, s.prim.0),
            (reg::PRMODECONT, s.prmodecont),
            (reg::TEXCLUT, s.env.texclut.0),
            (reg::SCANMSK, s.env.scanmsk),
            (reg::TEXA, s.env.texa.0),
            (reg::FOGCOL, s.env.fogcol.0),
            (reg::DIMX, s.env.dimx.0),
            (reg::DTHE, s.env.dthe),
            (reg::COLCLAMP, s.env.colclamp),
            (reg::PABE, s.env.pabe),
            (reg::BITBLTBUF, s.bitbltbuf.0),
            (reg::TRXDIR, s.trxdir),
            (reg::TRXPOS, s.trxpos.0),
            (reg::TRXREG, s.trxreg.0),
            (reg::RGBAQ, s.rgbaq.0),
            (reg::ST, s.st.0),
            (reg::UV, s.uv.0),
            (reg::FOG, s.fog.0),
        ];
        for (c, x) in s.ctx.iter().enumerate() {
            let c = c as u8;
            v.extend([
                (reg::XYOFFSET_1 + c, x.xyoffset.0),
                (reg::TEX0_1 + c, x.tex0.0),
                (reg::TEX1_1 + c, x.tex1.0),
                (reg::CLAMP_1 + c, x.clamp.0),
                (reg::MIPTBP1_1 + c, x.miptbp1.0),
                (reg::MIPTBP2_1 + c, x.miptbp2.0),
                (reg::SCISSOR_1 + c, x.scissor.0),
                (reg::ALPHA_1 + c, x.alpha.0),
                (reg::TEST_1 + c, x.test.0),
                (reg::FBA_1 + c, x.fba),
                (reg::FRAME_1 + c, x.frame.0),
                (reg::ZBUF_1 + c, x.zbuf.0),
            ]);
        }
        v
    }

    /// True while a host->local transfer expects more image data.
    pub fn transfer_active(&self) -> bool {
        self.s.host.is_some()
    }

    /// Resets the drawing state (CSR.RESET): general registers, vertex queue, transfers and the
    /// readback FIFO. Local memory, the CLUT buffer and the display registers stay.
    pub fn reset(&mut self) {
        // Image data that arrived before the reset is in memory.
        self.send_upload();
        self.s = State::new();
        self.fifo.clear();
        self.download = None;
        self.pending_signal = None;
        self.privileged.csr = 0;
    }

    /// An A+D write of general register `addr` (also what PACKED and REGLIST data become).
    pub fn write_reg(&mut self, addr: u8, value: u64) -> Result<(), GsError> {
        let s = &mut self.s;
        match addr {
            reg::PRIM => {
                // A PRIM write starts a new primitive: the vertex queue empties.
                s.prim = Prim(value & 0x7ff);
                s.queued = 0;
            }
            reg::RGBAQ => s.rgbaq = Rgbaq(value),
            reg::ST => s.st = St(value),
            reg::UV => s.uv = Uv(value),
            reg::XYZF2 | reg::XYZF3 => {
                let v = Xyzf(value);
                let f = v.f() as u8;
                self.vertex(v.x(), v.y(), v.z(), f, addr == reg::XYZF2);
            }
            reg::XYZ2 | reg::XYZ3 => {
                let v = Xyz(value);
                let f = self.s.fog.f() as u8;
                self.vertex(v.x(), v.y(), v.z(), f, addr == reg::XYZ2);
            }
            reg::TEX0_1 | reg::TEX0_2 => {
                let c = (addr - reg::TEX0_1) as usize;
                let t = Tex0(value);
                s.ctx[c].tex0 = t;
                if s.ctx[c].tex1.mtba() != 0
                    && let Some(m) = auto_miptbp1(t)
                {
                    s.ctx[c].miptbp1 = m;
                }
                self.clut_load(t);
            }
            reg::TEX2_1 | reg::TEX2_2 => {
                // TEX2 replaces TEX0's PSM (bits 20-25) and CLUT fields (bits 37-63) only.
                let c = (addr - reg::TEX2_1) as usize;
                let mask: u64 = (0x3f << 20) | (!0u64 << 37);
                let t = Tex0((s.ctx[c].tex0.0 & !mask) | (value & mask));
                s.ctx[c].tex0 = t;
                self.clut_load(t);
            }
            reg::CLAMP_1 | reg::CLAMP_2 => {
                s.ctx[(addr - reg::CLAMP_1) as usize].clamp = Clamp(value)
            }
            reg::FOG => s.fog = Fog(value),
            reg::TEX1_1 | reg::TEX1_2 => s.ctx[(addr - reg::TEX1_1) as usize].tex1 = Tex1(value),
            reg::XYOFFSET_1 | reg::XYOFFSET_2 => {
                s.ctx[(addr - reg::XYOFFSET_1) as usize].xyoffset = XyOffset(value)
            }
            reg::PRMODECONT => s.prmodecont = value & 1,
            reg::PRMODE => s.prmode = value & 0x7f8,
            reg::TEXCLUT => s.env.texclut = TexClut(value),
            reg::SCANMSK => s.env.scanmsk = value & 3,
            reg::MIPTBP1_1 | reg::MIPTBP1_2 => {
                s.ctx[(addr - reg::MIPTBP1_1) as usize].miptbp1 = MipTbp(value)
            }
            reg::MIPTBP2_1 | reg::MIPTBP2_2 => {
                s.ctx[(addr - reg::MIPTBP2_1) as usize].miptbp2 = MipTbp(value)
            }
            reg::TEXA => s.env.texa = Texa(value),
            reg::FOGCOL => s.env.fogcol = FogCol(value),
            // TEXFLUSH only orders texture reads after earlier writes; commands are in order here.
            reg::TEXFLUSH => {}
            reg::SCISSOR_1 | reg::SCISSOR_2 => {
                s.ctx[(addr - reg::SCISSOR_1) as usize].scissor = Scissor(value)
            }
            reg::ALPHA_1 | reg::ALPHA_2 => {
                s.ctx[(addr - reg::ALPHA_1) as usize].alpha = Alpha(value)
            }
            reg::DIMX => s.env.dimx = Dimx(value),
            reg::DTHE => s.env.dthe = value & 1,
            reg::COLCLAMP => s.env.colclamp = value & 1,
            reg::TEST_1 | reg::TEST_2 => s.ctx[(addr - reg::TEST_1) as usize].test = Test(value),
            reg::PABE => s.env.pabe = value & 1,
            reg::FBA_1 | reg::FBA_2 => s.ctx[(addr - reg::FBA_1) as usize].fba = value & 1,
            reg::FRAME_1 | reg::FRAME_2 => {
                s.ctx[(addr - reg::FRAME_1) as usize].frame = Frame(value)
            }
            reg::ZBUF_1 | reg::ZBUF_2 => s.ctx[(addr - reg::ZBUF_1) as usize].zbuf = Zbuf(value),
            reg::BITBLTBUF => s.bitbltbuf = BitBltBuf(value),
            reg::TRXPOS => s.trxpos = TrxPos(value),
            reg::TRXREG => s.trxreg = TrxReg(value),
            reg::TRXDIR => {
                s.trxdir = value & 3;
                return self.start_transfer();
            }
            reg::HWREG => self.image_bytes(&value.to_le_bytes()),
            reg::SIGNAL => {
                // A SIGNAL while CSR.SIGNAL is still set waits until the CPU clears it: the GIF
                // stalls ("Signal must be cleared to unstall GIF", ps2autotests gs/signal).
                if self.privileged.csr & csr::SIGNAL != 0 {
                    self.pending_signal = Some(IdMask(value));
                } else {
                    self.apply_signal(IdMask(value));
                }
            }
            reg::FINISH => {
                // Drawing is complete as soon as the command is handed over.
                self.privileged.csr |= csr::FINISH;
            }
            reg::LABEL => {
                let v = IdMask(value);
                let old = self.privileged.siglblid;
                let id = (((old >> 32) as u32) & !v.idmsk()) | (v.id() & v.idmsk());
                self.privileged.siglblid = (old & 0xffff_ffff) | ((id as u64) << 32);
            }
            _ => return Err(GsError::UnknownRegister(addr)),
        }
        Ok(())
    }

    /// Image data (IMAGE mode, or HWREG) for the active host->local transfer. Data with no
    /// transfer active is dropped, as the GS does.
    pub fn write_image(&mut self, qwords: &[u128]) {
        let mut bytes = Vec::with_capacity(qwords.len() * 16);
        for q in qwords {
            bytes.extend_from_slice(&q.to_le_bytes());
        }
        self.image_bytes(&bytes);
    }

    /// Reads local->host data from the readback FIFO into `out`; returns the qwords filled.
    pub fn read_image(&mut self, out: &mut [u128]) -> usize {
        let mut n = 0;
        while n < out.len() {
            if self.fifo.len() < 16 {
                self.fetch_download();
            }
            if self.fifo.is_empty() {
                break;
            }
            let mut b = [0u8; 16];
            for x in b.iter_mut() {
                *x = self.fifo.pop_front().unwrap_or(0);
            }
            out[n] = u128::from_le_bytes(b);
            n += 1;
        }
        n
    }

    /// Pixels of a local->host transfer fetched from the renderer at a time: 16384 (64 KiB of
    /// 32-bit pixels; a multiple of 32, so 4- and 24-bit chunks end on whole bytes).
    const DOWNLOAD_CHUNK: u64 = 16384;

    /// Moves the next chunk of the local->host transfer into the FIFO; the transfer's last
    /// chunk is padded to whole qwords, as the FIFO moves them.
    fn fetch_download(&mut self) {
        let Some((rect, next)) = self.download else {
            return;
        };
        let count = (rect.pixels() - next).min(Self::DOWNLOAD_CHUNK);
        let data = self.out().read_back(&rect, next, count);
        self.fifo.extend(data);
        if next + count >= rect.pixels() {
            self.download = None;
            while !self.fifo.len().is_multiple_of(16) {
                self.fifo.push_back(0);
            }
        } else {
            self.download = Some((rect, next + count));
        }
    }

    /// Bytes waiting in the readback FIFO: those fetched and the rest of the transfer, in whole
    /// qwords.
    pub fn readback_pending(&self) -> usize {
        let rest = self.download.map_or(0, |(rect, next)| {
            ((rect.pixels() - next) * rect.psm.transfer_bits() as u64).div_ceil(8)
        });
        (self.fifo.len() as u64 + rest).next_multiple_of(16) as usize
    }

    fn image_bytes(&mut self, bytes: &[u8]) {
        let Some(h) = self.s.host.as_mut() else {
            return;
        };
        h.pending.extend_from_slice(bytes);
        let bits = h.rect.psm.transfer_bits() as usize;
        // Whole pixels only (4-bit data goes a byte, two pixels, at a time).
        let usable = if bits == 24 {
            h.pending.len() / 3 * 3
        } else {
            h.pending.len()
        };
        if usable == 0 {
            return;
        }
        let start = h.done;
        let px = (usable * 8 / bits) as u64;
        h.done += px;
        let rect = h.rect;
        // Gathered with the data before it when it follows on (one command for many qwords).
        match &mut self.upload {
            Some(u)
                if u.rect == rect
                    && u.start + (u.data.len() * 8 / bits) as u64 == start
                    && u.data.len() < UPLOAD_CHUNK =>
            {
                u.data.extend(h.pending.drain(..usable));
            }
            _ => {
                let data: Vec<u8> = h.pending.drain(..usable).collect();
                self.send_upload();
                self.upload = Some(Upload { rect, start, data });
            }
        }
        if let Some(h) = &self.s.host
            && h.done >= rect.pixels()
        {
            // The transfer ends with its last pixel; anything after it is dropped.
            self.s.host = None;
            self.s.trxdir = 3;
        }
    }

    fn dest_rect(&self) -> Result<TransferRect, GsError> {
        let (b, p, r) = (self.s.bitbltbuf, self.s.trxpos, self.s.trxreg);
        Ok(TransferRect {
            bp: b.dbp(),
            bw: b.dbw(),
            psm: psm_of("BITBLTBUF.DPSM", b.dpsm())?,
            x: p.dsax(),
            y: p.dsay(),
            w: r.rrw(),
            h: r.rrh(),
        })
    }

    fn src_rect(&self) -> Result<TransferRect, GsError> {
        let (b, p, r) = (self.s.bitbltbuf, self.s.trxpos, self.s.trxreg);
        Ok(TransferRect {
            bp: b.sbp(),
            bw: b.sbw(),
            psm: psm_of("BITBLTBUF.SPSM", b.spsm())?,
            x: p.ssax(),
            y: p.ssay(),
            w: r.rrw(),
            h: r.rrh(),
        })
    }

    fn start_transfer(&mut self) -> Result<(), GsError> {
        self.s.host = None;
        match self.s.trxdir {
            0 => {
                let rect = self.dest_rect()?;
                if rect.pixels() > 0 {
                    self.s.host = Some(HostTransfer {
                        rect,
                        done: 0,
                        pending: Vec::new(),
                    });
                }
            }
            1 => {
                let rect = self.src_rect()?;
                if rect.pixels() > 0 {
                    // A transfer started before the last one was read replaces what is left of
                    // it; bytes already in the FIFO stay. The first chunk is read now (a
                    // transfer of up to 16384 pixels is read whole as it starts).
                    self.download = Some((rect, 0));
                    self.fetch_download();
                }
            }
            2 => {
                let src = self.src_rect()?;
                let dst = self.dest_rect()?;
                let dir = self.s.trxpos.dir();
                self.out()
                    .memory(MemCommand::LocalToLocal { src, dst, dir });
            }
            _ => {}
        }
        Ok(())
    }

    fn clut_load(&mut self, t: Tex0) {
        // Only indexed textures load a CLUT (PCSX2 GSState: the CLUT write needs a palettized PSM).
        if !Psm::from_code(t.psm() as u64).is_some_and(|p| p.is_indexed()) {
            return;
        }
        let cbp = t.cbp();
        let load = match t.cld() {
            1 => true,
            2 => {
                self.s.cbp[0] = cbp;
                true
            }
            3 => {
                self.s.cbp[1] = cbp;
                true
            }
            4 if self.s.cbp[0] != cbp => {
                self.s.cbp[0] = cbp;
                true
            }
            5 if self.s.cbp[1] != cbp => {
                self.s.cbp[1] = cbp;
                true
            }
            _ => false,
        };
        if load {
            let texclut = self.s.env.texclut;
            self.out().memory(MemCommand::LoadClut { tex0: t, texclut });
        }
    }

    fn vertex(&mut self, x: u32, y: u32, z: u32, f: u8, kick: bool) {
        let s = &mut self.s;
        let attrs = if s.prmodecont & 1 != 0 {
            s.prim.0 & 0x7f8
        } else {
            s.prmode
        };
        let prim = Prim((s.prim.0 & 7) | attrs);
        let c = prim.ctxt() as usize;
        let off = s.ctx[c].xyoffset;
        let v = Vertex {
            x: x as i32 - off.ofx() as i32,
            y: y as i32 - off.ofy() as i32,
            z,
            f,
            rgba: [
                s.rgbaq.r() as u8,
                s.rgbaq.g() as u8,
                s.rgbaq.b() as u8,
                s.rgbaq.a() as u8,
            ],
            q: s.rgbaq.q(),
            s: s.st.s(),
            t: s.st.t(),
            u: s.uv.u(),
            v: s.uv.v(),
        };
        // The queue: [oldest .. newest]. How many a primitive needs and what stays after a
        // kick (GS User's Manual, "Vertex Queue" / drawing kick per primitive type).
        let (kind, need) = match prim.prim() {
            0 => (PrimKind::Point, 1),
            1 | 2 => (PrimKind::Line, 2),
            3..=5 => (PrimKind::Triangle, 3),
            6 => (PrimKind::Sprite, 2),
            // 7 is undefined: nothing is drawn.
            _ => {
                s.queued = 0;
                return;
            }
        };
        s.queue[s.queued] = v;
        s.queued += 1;
        if s.queued < need {
            return;
        }
        let cmd = DrawCommand {
            kind,
            prim,
            vertices: s.queue,
            ctx: s.ctx[c],
            env: s.env,
        };
        match prim.prim() {
            // Line strip: the last vertex starts the next line.
            2 => {
                s.queue[0] = s.queue[1];
                s.queued = 1;
            }
            // Triangle strip: the last two stay.
            4 => {
                s.queue[0] = s.queue[1];
                s.queue[1] = s.queue[2];
                s.queued = 2;
            }
            // Fan: the first vertex and the last stay.
            5 => {
                s.queue[1] = s.queue[2];
                s.queued = 2;
            }
            _ => s.queued = 0,
        }
        if kick {
            self.draws += 1;
            self.out().draw(&cmd);
        }
    }

    /// Sets a general register's stored value without its side effects (no CLUT load for
    /// TEX0/TEX2, no transfer start for TRXDIR, no vertex for XYZ*, no SIGNAL/FINISH/LABEL
    /// events): restoring a saved state.
    pub fn restore_reg(&mut self, addr: u8, value: u64) -> Result<(), GsError> {
        match addr {
            reg::TEX0_1 | reg::TEX0_2 => {
                self.s.ctx[(addr - reg::TEX0_1) as usize].tex0 = Tex0(value)
            }
            reg::TEX2_1 | reg::TEX2_2 => {
                let c = (addr - reg::TEX2_1) as usize;
                let mask: u64 = (0x3f << 20) | (!0u64 << 37);
                self.s.ctx[c].tex0 = Tex0((self.s.ctx[c].tex0.0 & !mask) | (value & mask));
            }
            reg::TRXDIR => self.s.trxdir = value & 3,
            reg::XYZF2
            | reg::XYZ2
            | reg::XYZF3
            | reg::XYZ3
            | reg::HWREG
            | reg::SIGNAL
            | reg::FINISH
            | reg::LABEL => {}
            _ => return self.write_reg(addr, value),
        }
        Ok(())
    }

    /// Replaces local memory (dump replay, save states), in order with earlier commands.
    pub fn set_memory(&mut self, mem: Box<crate::LocalMemory>) {
        self.out().memory(MemCommand::SetMemory(mem));
    }

    /// The privileged registers as an 8 KiB block laid out as at 0x12000000 (the form GS dumps
    /// keep them in; [`Gs::load_priv_block`] reads it back). CSR holds its stored bits.
    pub fn priv_block(&self) -> Vec<u8> {
        let mut block = vec![0u8; 0x2000];
        for off in PRIV_BLOCK_REGS {
            // Every offset in the list is defined; they read back what was written.
            let v = self.read_priv(off).unwrap_or(0);
            block[off as usize..off as usize + 8].copy_from_slice(&v.to_le_bytes());
        }
        let c = priv_reg::CSR as usize;
        block[c..c + 8].copy_from_slice(&self.privileged.csr.to_le_bytes());
        block
    }

    /// Loads every privileged register from an image of the 8 KiB block at 0x12000000 (as GS
    /// dumps store it): 64-bit little-endian values at their offsets. CSR keeps its event and
    /// field bits; IMR, BUSDIR and SIGLBLID are taken as stored. Short blocks load what they hold.
    pub fn load_priv_block(&mut self, block: &[u8]) {
        let rd = |off: u32| -> Option<u64> {
            let o = off as usize;
            block
                .get(o..o + 8)
                .map(|b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
        };
        for r in PRIV_BLOCK_REGS {
            if let Some(v) = rd(r) {
                // Every offset in the list is defined.
                let _ = self.write_priv(r, v);
            }
        }
        if let Some(v) = rd(priv_reg::CSR) {
            self.privileged.csr = v & (0x1f | csr::NFIELD | csr::FIELD);
        }
    }

    fn apply_signal(&mut self, v: IdMask) {
        // SIGLBLID.SIGID takes ID's bits where IDMSK is set; CSR.SIGNAL is raised.
        let old = self.privileged.siglblid;
        let id = ((old as u32) & !v.idmsk()) | (v.id() & v.idmsk());
        self.privileged.siglblid = (old & !0xffff_ffff) | id as u64;
        self.privileged.csr |= csr::SIGNAL;
    }

    /// True while a SIGNAL waits for the CPU to clear CSR.SIGNAL: the GIF must not send more
    /// data until then.
    pub fn signal_stalled(&self) -> bool {
        self.pending_signal.is_some()
    }

    /// A privileged register write (offset from 0x12000000).
    pub fn write_priv(&mut self, offset: u32, value: u64) -> Result<(), GsError> {
        let p = &mut self.privileged;
        match offset & !0xf {
            priv_reg::PMODE => p.pmode = Pmode(value),
            priv_reg::SMODE1 => p.smode1 = value,
            priv_reg::SMODE2 => p.smode2 = Smode2(value),
            priv_reg::SRFSH => p.srfsh = value,
            priv_reg::SYNCH1 => p.synch1 = value,
            priv_reg::SYNCH2 => p.synch2 = value,
            priv_reg::SYNCV => p.syncv = value,
            priv_reg::DISPFB1 => p.dispfb[0] = DispFb(value),
            priv_reg::DISPLAY1 => p.display[0] = Display(value),
            priv_reg::DISPFB2 => p.dispfb[1] = DispFb(value),
            priv_reg::DISPLAY2 => p.display[1] = Display(value),
            priv_reg::EXTBUF => p.extbuf = value,
            priv_reg::EXTDATA => p.extdata = value,
            priv_reg::EXTWRITE => p.extwrite = value,
            priv_reg::BGCOLOR => p.bgcolor = BgColor(value),
            priv_reg::CSR => {
                // Bits 0-4: writing 1 clears the event. RESET resets the GS.
                p.csr &= !(value & 0x1f);
                if value & csr::SIGNAL != 0
                    && let Some(v) = self.pending_signal.take()
                {
                    self.apply_signal(v);
                }
                if value & csr::RESET != 0 {
                    self.reset();
                }
            }
            priv_reg::IMR => p.imr = value & 0x7f00,
            priv_reg::BUSDIR => p.busdir = value & 1,
            priv_reg::SIGLBLID => p.siglblid = value,
            _ => return Err(GsError::UnknownPrivileged(0x1200_0000 + offset)),
        }
        Ok(())
    }

    /// A privileged register read. Only CSR and SIGLBLID are readable on the hardware; the
    /// others read back what was written (as PCSX2 does).
    pub fn read_priv(&self, offset: u32) -> Result<u64, GsError> {
        let p = &self.privileged;
        Ok(match offset & !0xf {
            priv_reg::PMODE => p.pmode.0,
            priv_reg::SMODE1 => p.smode1,
            priv_reg::SMODE2 => p.smode2.0,
            priv_reg::SRFSH => p.srfsh,
            priv_reg::SYNCH1 => p.synch1,
            priv_reg::SYNCH2 => p.synch2,
            priv_reg::SYNCV => p.syncv,
            priv_reg::DISPFB1 => p.dispfb[0].0,
            priv_reg::DISPLAY1 => p.display[0].0,
            priv_reg::DISPFB2 => p.dispfb[1].0,
            priv_reg::DISPLAY2 => p.display[1].0,
            priv_reg::EXTBUF => p.extbuf,
            priv_reg::EXTDATA => p.extdata,
            priv_reg::EXTWRITE => p.extwrite,
            priv_reg::BGCOLOR => p.bgcolor.0,
            priv_reg::CSR => {
                let fifo = if self.readback_pending() == 0 {
                    csr::FIFO_EMPTY
                } else {
                    0
                };
                (p.csr & (0x1f | csr::NFIELD | csr::FIELD)) | fifo | csr::REV_ID
            }
            priv_reg::IMR => p.imr,
            priv_reg::BUSDIR => p.busdir,
            priv_reg::SIGLBLID => p.siglblid,
            _ => return Err(GsError::UnknownPrivileged(0x1200_0000 + offset)),
        })
    }

    /// True while an unmasked GS event (SIGNAL, FINISH, HSYNC, VSYNC, EDW) is pending: the GS
    /// interrupt line to the INTC. IMR bits 8-12 mask CSR bits 0-4.
    pub fn interrupt_pending(&self) -> bool {
        let p = &self.privileged;
        p.csr & 0x1f & !((p.imr >> 8) & 0x1f) != 0
    }

    /// Marks the start of vertical blank: raises CSR.VSINT and flips FIELD for interlaced modes.
    pub fn vsync(&mut self, odd_field: bool) {
        let p = &mut self.privileged;
        p.csr |= csr::VSINT;
        p.csr &= !(csr::FIELD | csr::NFIELD);
        if odd_field {
            p.csr |= csr::FIELD;
        }
    }

    /// Raises CSR.HSINT (start of a horizontal blank).
    pub fn hsync(&mut self) {
        self.privileged.csr |= csr::HSINT;
    }

    /// A copy of local memory with every command applied (a readback from the renderer).
    pub fn local_memory(&mut self) -> Box<crate::LocalMemory> {
        self.out().read_memory()
    }

    /// Shows this frame: sends the PCRTC's registers to the renderer and returns them.
    pub fn display(&mut self, pcrtc: crate::Pcrtc) -> crate::DisplayCommand {
        let cmd = crate::DisplayCommand::new(&self.privileged, pcrtc);
        self.out().display(&cmd);
        cmd
    }

    /// [`Gs::display`], then the picture the display circuits show, read back from the renderer
    /// (see [`crate::pcrtc::picture`]).
    pub fn display_image(&mut self, pcrtc: crate::Pcrtc) -> crate::Image {
        self.display(pcrtc);
        self.out().display_image()
    }
}
