//! What the state machine hands to renderers: plain draw and memory commands.

use crate::image::Image;
use crate::mem::{LocalMemory, TransferRect};
pub use crate::pcrtc::DisplayCommand;
use crate::regs::*;

/// The primitive shape a [`DrawCommand`] draws. Strips and fans arrive as their triangles, line
/// strips as their lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum PrimKind {
    /// One vertex.
    Point,
    /// Two vertices.
    Line,
    /// Three vertices.
    Triangle,
    /// Two vertices, the opposite corners of an axis-aligned rectangle.
    Sprite,
}

impl PrimKind {
    /// Vertices this shape takes.
    pub fn vertex_count(self) -> usize {
        match self {
            PrimKind::Point => 1,
            PrimKind::Line | PrimKind::Sprite => 2,
            PrimKind::Triangle => 3,
        }
    }
}

/// One vertex as the GS latched it at the kick.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct Vertex {
    /// X in 12.4 fixed point, after XYOFFSET (window coordinate minus OFX; may be negative).
    pub x: i32,
    /// Y in 12.4 fixed point, after XYOFFSET.
    pub y: i32,
    /// Depth (32 bits from XYZ2/3, 24 from XYZF2/3).
    pub z: u32,
    /// Fog coefficient.
    pub f: u8,
    /// Colour R, G, B, A.
    pub rgba: [u8; 4],
    /// Q from RGBAQ.
    pub q: f32,
    /// S from ST.
    pub s: f32,
    /// T from ST.
    pub t: f32,
    /// U in 10.4 fixed point from UV.
    pub u: u32,
    /// V in 10.4 fixed point from UV.
    pub v: u32,
}

/// The registers of the drawing context a primitive uses (PRIM.CTXT, or PRMODE's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Context {
    /// TEX0.
    pub tex0: Tex0,
    /// TEX1.
    pub tex1: Tex1,
    /// CLAMP.
    pub clamp: Clamp,
    /// XYOFFSET (already applied to the vertices; kept for renderers that need it).
    pub xyoffset: XyOffset,
    /// MIPTBP1 (levels 1-3).
    pub miptbp1: MipTbp,
    /// MIPTBP2 (levels 4-6).
    pub miptbp2: MipTbp,
    /// SCISSOR.
    pub scissor: Scissor,
    /// ALPHA.
    pub alpha: Alpha,
    /// TEST.
    pub test: Test,
    /// FBA (bit 0).
    pub fba: u64,
    /// FRAME.
    pub frame: Frame,
    /// ZBUF.
    pub zbuf: Zbuf,
}

/// The registers shared by both contexts that affect drawing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Env {
    /// TEXA.
    pub texa: Texa,
    /// FOGCOL.
    pub fogcol: FogCol,
    /// DIMX.
    pub dimx: Dimx,
    /// DTHE (bit 0).
    pub dthe: u64,
    /// COLCLAMP (bit 0).
    pub colclamp: u64,
    /// PABE (bit 0).
    pub pabe: u64,
    /// SCANMSK (bits 0-1).
    pub scanmsk: u64,
    /// TEXCLUT (for reference; the CLUT itself was loaded by [`MemCommand::LoadClut`]).
    pub texclut: TexClut,
}

/// One primitive to draw with the complete state it needs.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct DrawCommand {
    /// The shape.
    pub kind: PrimKind,
    /// The effective PRIM: the type written to PRIM with the attributes of PRIM (PRMODECONT.AC
    /// = 1) or of PRMODE (AC = 0).
    pub prim: Prim,
    /// The vertices in kick order (the last is the one whose kick drew; flat shading uses it).
    /// Only the first [`PrimKind::vertex_count`] are meaningful.
    pub vertices: [Vertex; 3],
    /// The context registers.
    pub ctx: Context,
    /// The shared registers.
    pub env: Env,
}

/// Local memory traffic, ordered with the draws.
#[derive(Debug, Clone, PartialEq)]
pub enum MemCommand {
    /// Host->local image data: pixels `start..` of `rect`, packed as
    /// [`LocalMemory::write_transfer`] takes them.
    HostToLocal {
        /// The destination rectangle.
        rect: TransferRect,
        /// Index of the first pixel in `data`.
        start: u64,
        /// Packed pixels.
        data: Vec<u8>,
    },
    /// A local->local copy.
    LocalToLocal {
        /// Source rectangle.
        src: TransferRect,
        /// Destination rectangle.
        dst: TransferRect,
        /// TRXPOS.DIR.
        dir: u32,
    },
    /// Load the CLUT buffer from local memory as TEX0 (or TEX2) describes, TEXCLUT for CSM2.
    LoadClut {
        /// The TEX0 value (CBP, CPSM, CSM, CSA and PSM matter).
        tex0: Tex0,
        /// TEXCLUT at the time of the load.
        texclut: TexClut,
    },
    /// Replace the whole local memory (dump replay).
    SetMemory(Box<LocalMemory>),
    /// Power-on: local memory and the CLUT buffer zeroed (a machine reset).
    PowerOn,
    /// Replace the CLUT buffer (loading a save state), as 512 halfwords.
    SetClut(Box<[u16; 512]>),
    /// Replace the sample planes past plane 0 at a render scale (loading a save state made at
    /// the same scale, after its [`MemCommand::SetMemory`]): ignored unless there are exactly
    /// as many as the renderer draws (`scale * scale - 1`).
    SetSamplePlanes(Vec<LocalMemory>),
}

/// A consumer of the GS's output: it owns local memory. Implementations draw; they see no GIF
/// packets or registers beyond what a command carries. Every call is ordered after every
/// earlier one; reads (readback, a memory copy, a displayed picture) are answered only when
/// asked, after every earlier command has taken effect.
/// A renderer's GPU-side picture ([`Renderer::display_gpu`]): opaque here (this crate knows no
/// GPU API), downcast by the code that made the renderer.
pub type GpuHandle = std::sync::Arc<dyn std::any::Any + Send + Sync>;

pub trait Renderer {
    /// Draws one primitive.
    fn draw(&mut self, cmd: &DrawCommand);
    /// Applies a memory command, in order with the draws.
    fn memory(&mut self, cmd: MemCommand);
    /// Reads `count` pixels of `rect` from pixel `start` (local->host, the GS FIFO download).
    fn read_back(&mut self, rect: &TransferRect, start: u64, count: u64) -> Vec<u8>;
    /// A copy of the whole local memory (dumps, tests).
    fn read_memory(&mut self) -> Box<LocalMemory>;
    /// A copy of the CLUT buffer, 512 halfwords (save states), after every earlier command.
    fn read_clut(&mut self) -> Box<[u16; 512]>;
    /// Copies of the sample planes past plane 0 (plane 0 is [`Renderer::read_memory`]) at a
    /// render scale above 1, after every earlier command (save states); empty at scale 1 and
    /// for renderers without planes.
    fn read_sample_planes(&mut self) -> Vec<LocalMemory> {
        Vec::new()
    }
    /// Shows a frame: the PCRTC's registers for it. The renderer runs the PCRTC over its own
    /// local memory as it stands after every earlier command.
    fn display(&mut self, cmd: &DisplayCommand);
    /// The picture of the last [`Renderer::display`] on the CPU (the display circuits' own
    /// pixels; 0x0 before any, or when no circuit is on), for `--dump-frames`, screenshots and
    /// a CPU presenter.
    fn display_image(&mut self) -> Image;
    /// The picture of the last [`Renderer::display`] where it already lies on a GPU: the
    /// renderer's own handle (the wgpu renderer's `GpuPicture`), for a presenter on the same
    /// device to draw from without a CPU copy. `None` (the default) for a CPU renderer, or
    /// when no circuit is on.
    fn display_gpu(&mut self) -> Option<GpuHandle> {
        None
    }
    /// The render scale: pictures are this many times the display circuits' size (readbacks and
    /// [`Renderer::read_memory`] stay native).
    fn scale(&self) -> u32 {
        1
    }
    /// A line on how the renderer drew so far (for `--stats`), after every earlier command;
    /// `None` when it keeps no such figures.
    fn report(&mut self) -> Option<String> {
        None
    }
}

/// A boxed renderer is a renderer, so the choice can be made at run time
/// (`Gs<Box<dyn Renderer + Send>>`).
impl<R: Renderer + ?Sized> Renderer for Box<R> {
    fn draw(&mut self, cmd: &DrawCommand) {
        (**self).draw(cmd)
    }
    fn memory(&mut self, cmd: MemCommand) {
        (**self).memory(cmd)
    }
    fn read_back(&mut self, rect: &TransferRect, start: u64, count: u64) -> Vec<u8> {
        (**self).read_back(rect, start, count)
    }
    fn read_memory(&mut self) -> Box<LocalMemory> {
        (**self).read_memory()
    }
    fn read_clut(&mut self) -> Box<[u16; 512]> {
        (**self).read_clut()
    }
    fn read_sample_planes(&mut self) -> Vec<LocalMemory> {
        (**self).read_sample_planes()
    }
    fn display(&mut self, cmd: &DisplayCommand) {
        (**self).display(cmd)
    }
    fn display_image(&mut self) -> Image {
        (**self).display_image()
    }
    fn display_gpu(&mut self) -> Option<GpuHandle> {
        (**self).display_gpu()
    }
    fn scale(&self) -> u32 {
        (**self).scale()
    }
    fn report(&mut self) -> Option<String> {
        (**self).report()
    }
}

/// No renderer: the state machine runs and nothing is drawn. Readback gives zeros (as zeroed
/// local memory would), a display shows nothing.
impl<R: Renderer> Renderer for Option<R> {
    fn draw(&mut self, cmd: &DrawCommand) {
        if let Some(r) = self {
            r.draw(cmd)
        }
    }
    fn memory(&mut self, cmd: MemCommand) {
        if let Some(r) = self {
            r.memory(cmd)
        }
    }
    fn read_back(&mut self, rect: &TransferRect, start: u64, count: u64) -> Vec<u8> {
        match self {
            Some(r) => r.read_back(rect, start, count),
            None => LocalMemory::new().read_transfer(rect, start, count),
        }
    }
    fn read_memory(&mut self) -> Box<LocalMemory> {
        match self {
            Some(r) => r.read_memory(),
            None => Box::new(LocalMemory::new()),
        }
    }
    fn read_clut(&mut self) -> Box<[u16; 512]> {
        match self {
            Some(r) => r.read_clut(),
            None => Box::new([0; 512]),
        }
    }
    fn read_sample_planes(&mut self) -> Vec<LocalMemory> {
        self.as_mut()
            .map_or_else(Vec::new, |r| r.read_sample_planes())
    }
    fn display(&mut self, cmd: &DisplayCommand) {
        if let Some(r) = self {
            r.display(cmd)
        }
    }
    fn display_image(&mut self) -> Image {
        match self {
            Some(r) => r.display_image(),
            None => Image::new(0, 0, [0; 4]),
        }
    }
    fn display_gpu(&mut self) -> Option<GpuHandle> {
        self.as_mut().and_then(|r| r.display_gpu())
    }
    fn scale(&self) -> u32 {
        self.as_ref().map_or(1, |r| r.scale())
    }
    fn report(&mut self) -> Option<String> {
        self.as_mut().and_then(|r| r.report())
    }
}
