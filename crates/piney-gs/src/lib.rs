//! The PS2 Graphics Synthesizer (GS).
//!
//! Contract:
//! - [`mem::LocalMemory`] is the GS's 4 MiB local memory with the exact page/block/column swizzle
//!   of every pixel storage mode ([`Psm`]), host<->local packing and local->local copies.
//! - [`Gs`] is the register state machine. It takes A+D register writes ([`Gs::write_reg`]),
//!   image data ([`Gs::write_image`], HWREG) and privileged
//!   register accesses ([`Gs::write_priv`], [`Gs::read_priv`]), runs the vertex queue and the
//!   transfers, and hands plain, ordered commands to a [`Renderer`]: [`DrawCommand`]s,
//!   [`MemCommand`]s (transfers, CLUT loads) and a [`DisplayCommand`] per shown frame (the
//!   PCRTC's registers). The renderer owns local memory; readback (the GS FIFO download, a copy
//!   of memory, the displayed picture) happens only on request. Renderers know nothing of GIF
//!   packets or registers beyond what a command carries.
//! - [`texel`] holds what every renderer reads textures by: formats, the CLUT buffer and its
//!   loads, TEXA, CLAMP; [`mem`] the swizzles of uploads and readback.
//! - [`sw::SoftwareRenderer`] is the reference rasteriser: deterministic integer arithmetic by
//!   the GS's rules, drawing into its local memory. Its general path is the reference; its
//!   specialised paths (per-state span functions, [`swizzle`] address tables, [`texcache`]
//!   decoded textures) and its worker threads give the same pixels, bit for bit, checked
//!   against the general path and across thread counts on random scenes ([`scenes`]).
//!   [`threaded::ThreadedRenderer`] runs any renderer on a worker thread behind a channel.
//! - [`pcrtc::picture`] (the PCRTC, run inside a renderer) reads the display circuits and merges
//!   them into an [`Image`]; [`DisplayCommand::offset`] is the display offset against the video
//!   mode's origin and [`pcrtc::Presenter`] applies it and the 4:3 shape; [`Image`] writes PNGs,
//!   [`apng::AnimatedPng`] animated ones frame by frame.
//! - [`gif`] decodes GIF packets (GIFtags, PACKED, REGLIST, IMAGE), the one decoder the
//!   machine's GIF paths and dump replay share; [`capture`] records a live run as a GS dump;
//!   [`dump`] reads, writes and replays PCSX2 GS dumps;
//!   [`compare`] compares PNG frames.
//! - No host clock, no wgpu/winit: the same input gives the same pictures, bit for bit. Bad
//!   input never panics: registers the GS does not define are reported and ignored, files give
//!   errors naming what and where.

pub mod apng;
pub mod capture;
pub mod compare;
pub mod draw;
pub mod dump;
pub mod gif;
pub mod gs;
pub mod image;
pub mod mem;
pub mod pcrtc;
pub mod psm;
pub mod raster;
pub mod regs;
pub mod scenes;
pub mod sw;
mod sw_batch;
mod sw_fast;
pub mod swizzle;
pub mod texcache;
pub mod texel;
pub mod threaded;

pub use draw::{Context, DrawCommand, Env, GpuHandle, MemCommand, PrimKind, Renderer, Vertex};
pub use gs::{Gs, GsError, GsState, Privileged};
pub use image::{Image, ImageError};
pub use mem::LocalMemory;
pub use pcrtc::{DisplayCommand, FrameFormat, Pcrtc, Presenter};
pub use psm::Psm;
pub use sw::{SoftwareRenderer, SwStats};
pub use threaded::{RenderTimes, ThreadedRenderer};

#[cfg(test)]
mod dump_tests;
#[cfg(test)]
mod gs_tests;
#[cfg(test)]
mod pcrtc_tests;
#[cfg(test)]
mod sw_fast_tests;
