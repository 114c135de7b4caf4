//! PCSX2 GS dumps (`.gs`, `.gs.xz`, `.gs.zst`): reading, writing (for tests and tools) and
//! replaying through the same [`Gs`].
//!
//! Facts (PCSX2 `pcsx2/GS/GSDump.h`, `GSLzma.cpp`, `GSState.cpp` Freeze/Defrost,
//! `GSDumpReplayer.cpp`):
//! - New dumps start with 0xFFFFFFFF, a u32 header size and the header: state_version,
//!   state_size, serial_offset, serial_size, crc, screenshot_width, screenshot_height,
//!   screenshot_offset, screenshot_size (u32 each; offsets within the header bytes; the
//!   screenshot is 32-bit RGBA pixels). Then state_size bytes of GS state. Old dumps start with
//!   the CRC and a u32 state size, then the state.
//! - Then 8192 bytes: the privileged registers as at 0x12000000.
//! - Then packets, each a type byte: 0 Transfer (path byte: 0 path 1 "old", 1 path 1, 2 path 2,
//!   3 path 3; u32 length; GIF data), 1 VSync (one field byte), 2 ReadFIFO2 (u32 qword count),
//!   3 Registers (8192 bytes). PCSX2 drops a last packet cut short; so does this reader
//!   ([`GsDump::dropped_tail`]); anything cut short before the packets is an error.
//! - The state: u32 version; PRIM; (version <= 6: PRMODE); PRMODECONT, TEXCLUT, SCANMSK, TEXA,
//!   FOGCOL, DIMX, DTHE, COLCLAMP, PABE, BITBLTBUF, TRXDIR, TRXPOS, TRXREG, TRXREG again; per
//!   context XYOFFSET, TEX0, TEX1, (version <= 6: TEX2), CLAMP, MIPTBP1, MIPTBP2, SCISSOR,
//!   ALPHA, TEST, FBA, FRAME, ZBUF (version <= 4: 28 more bytes); RGBAQ, ST, UV, FOG, XYZ (all
//!   64-bit); then transfer position words, the 4 MiB of local memory, the GIF paths' tags
//!   (16 + 4 bytes each, 3 or 4 paths) and Q (4 bytes). Versions wrote 8 or 16 bytes between
//!   XYZ and memory, and version 9 more: memory is found where the front and the tail agree,
//!   or (version 9 and later) from the tail with 4 paths.
//! - Path 1 "old" transfers are replayed as plain GIF data (PCSX2 rebuilds VU1 memory for them).

use std::io::Read;
use std::path::Path;

use crate::draw::Renderer;
use crate::gif::GifPath;
use crate::gs::{Gs, reg};
use crate::image::Image;
use crate::mem::{LocalMemory, MEM_BYTES};

/// Size of the privileged register block.
pub const PRIV_BLOCK: usize = 8192;

/// Errors reading a dump. Each names what was wrong and where.
#[derive(Debug, thiserror::Error)]
pub enum DumpError {
    /// The file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The compressed stream is damaged.
    #[error("GS dump: {format} decompression failed: {msg}")]
    Decompress {
        /// "xz" or "zstd".
        format: &'static str,
        /// The decoder's message.
        msg: String,
    },
    /// The data ends inside a part that must be whole.
    #[error("GS dump truncated: {what} needs {need} bytes at offset {offset}, only {have} left")]
    Truncated {
        /// The part.
        what: &'static str,
        /// Its offset in the (decompressed) dump.
        offset: usize,
        /// Bytes it needs.
        need: usize,
        /// Bytes there are.
        have: usize,
    },
    /// The header contradicts itself.
    #[error("GS dump header: {0}")]
    BadHeader(String),
    /// The GS state blob has a layout this reader does not know.
    #[error("GS dump state (version {version}, {size} bytes): {msg}")]
    BadState {
        /// State version.
        version: u32,
        /// Blob size.
        size: usize,
        /// What is wrong.
        msg: String,
    },
    /// A frame could not be written.
    #[error(transparent)]
    Image(#[from] crate::image::ImageError),
    /// A packet of an unknown type.
    #[error("GS dump packet at offset {offset}: unknown type {id}")]
    BadPacket {
        /// Offset of the type byte.
        offset: usize,
        /// The type byte.
        id: u8,
    },
}

/// Compression of a dump file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// Plain `.gs`.
    None,
    /// `.gs.xz`.
    Xz,
    /// `.gs.zst`.
    Zstd,
}

/// The new-format header's contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DumpHeader {
    /// The state version PCSX2 wrote.
    pub state_version: u32,
    /// The game's serial.
    pub serial: String,
    /// PCSX2's screenshot, if the dump carries one.
    pub screenshot: Option<Image>,
}

/// One packet of the dump's stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Packet {
    /// GIF data on a path (0 path 1 old, 1 path 1, 2 path 2, 3 path 3).
    Transfer {
        /// The path index as stored.
        path: u8,
        /// The GIF data.
        data: Vec<u8>,
    },
    /// A vertical sync; the byte is the field.
    VSync(u8),
    /// A local->host readback of this many qwords.
    ReadFifo2(u32),
    /// The privileged registers, all 8192 bytes.
    Registers(Vec<u8>),
}

/// A parsed dump.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GsDump {
    /// The game CRC.
    pub crc: u32,
    /// The header (new-format dumps only).
    pub header: Option<DumpHeader>,
    /// The GS state blob.
    pub state: Vec<u8>,
    /// The initial privileged registers (8192 bytes).
    pub regs: Vec<u8>,
    /// The packet stream.
    pub packets: Vec<Packet>,
    /// Bytes of a last packet that was cut short and dropped, as PCSX2 does.
    pub dropped_tail: Option<usize>,
}

struct Cursor<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], DumpError> {
        let have = self.b.len() - self.pos;
        if n > have {
            return Err(DumpError::Truncated {
                what,
                offset: self.pos,
                need: n,
                have,
            });
        }
        let s = &self.b[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    fn u32(&mut self, what: &'static str) -> Result<u32, DumpError> {
        let s = self.take(4, what)?;
        Ok(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
    }
}

/// Decompresses by the stream's magic bytes (xz FD 37 7A 58 5A 00, zstd 28 B5 2F FD); other
/// data is taken as raw.
pub fn decompress(bytes: &[u8]) -> Result<Vec<u8>, DumpError> {
    if bytes.starts_with(&[0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]) {
        let mut out = Vec::new();
        lzma_rs::xz_decompress(&mut std::io::BufReader::new(bytes), &mut out).map_err(|e| {
            DumpError::Decompress {
                format: "xz",
                msg: e.to_string(),
            }
        })?;
        Ok(out)
    } else if bytes.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        let mut out = Vec::new();
        let mut input = bytes;
        // One or more frames back to back.
        while !input.is_empty() {
            let mut dec = ruzstd::decoding::StreamingDecoder::new(&mut input).map_err(|e| {
                DumpError::Decompress {
                    format: "zstd",
                    msg: e.to_string(),
                }
            })?;
            dec.read_to_end(&mut out)
                .map_err(|e| DumpError::Decompress {
                    format: "zstd",
                    msg: e.to_string(),
                })?;
        }
        Ok(out)
    } else {
        Ok(bytes.to_vec())
    }
}

/// Compresses a raw dump.
pub fn compress(raw: &[u8], c: Compression) -> Vec<u8> {
    match c {
        Compression::None => raw.to_vec(),
        Compression::Xz => {
            let mut out = Vec::new();
            // Writing into a Vec cannot fail.
            let _ = lzma_rs::xz_compress(&mut std::io::BufReader::new(raw), &mut out);
            out
        }
        Compression::Zstd => {
            ruzstd::encoding::compress_to_vec(raw, ruzstd::encoding::CompressionLevel::Fastest)
        }
    }
}

impl GsDump {
    /// Reads a dump file (raw, xz or zstd, told by its contents).
    pub fn read(path: &Path) -> Result<GsDump, DumpError> {
        let bytes = std::fs::read(path).map_err(|source| DumpError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Self::parse(&decompress(&bytes)?)
    }

    /// Parses decompressed dump bytes.
    pub fn parse(b: &[u8]) -> Result<GsDump, DumpError> {
        let mut c = Cursor { b, pos: 0 };
        let first = c.u32("CRC or header marker")?;
        let (crc, header, state) = if first == 0xffff_ffff {
            let hsize = c.u32("header size")? as usize;
            let h = c.take(hsize, "header")?;
            if hsize < 36 {
                return Err(DumpError::BadHeader(format!(
                    "header of {hsize} bytes, need at least 36"
                )));
            }
            let f = |i: usize| {
                u32::from_le_bytes([h[i * 4], h[i * 4 + 1], h[i * 4 + 2], h[i * 4 + 3]]) as usize
            };
            let (state_version, state_size, so, ss, crc) =
                (f(0) as u32, f(1), f(2), f(3), f(4) as u32);
            let (sw, sh, po, ps) = (f(5), f(6), f(7), f(8));
            let serial = if ss > 0 {
                let s = h.get(so..so.saturating_add(ss)).ok_or_else(|| {
                    DumpError::BadHeader(format!(
                        "serial at {so}+{ss} lies outside the {hsize}-byte header"
                    ))
                })?;
                String::from_utf8_lossy(s).into_owned()
            } else {
                String::new()
            };
            let need = sw.checked_mul(sh).and_then(|n| n.checked_mul(4));
            let screenshot = match need {
                Some(n) if ps > 0 && n > 0 && ps >= n => {
                    let px = h.get(po..po.saturating_add(n)).ok_or_else(|| {
                        DumpError::BadHeader(format!(
                            "screenshot at {po}+{n} lies outside the {hsize}-byte header"
                        ))
                    })?;
                    Some(Image {
                        width: sw as u32,
                        height: sh as u32,
                        rgba: px.to_vec(),
                    })
                }
                _ => None,
            };
            let state = c.take(state_size, "GS state")?.to_vec();
            (
                crc,
                Some(DumpHeader {
                    state_version,
                    serial,
                    screenshot,
                }),
                state,
            )
        } else {
            let ss = c.u32("state size")? as usize;
            (first, None, c.take(ss, "GS state")?.to_vec())
        };
        let regs = c.take(PRIV_BLOCK, "privileged registers")?.to_vec();
        let mut packets = Vec::new();
        let mut dropped_tail = None;
        while c.pos < b.len() {
            let at = c.pos;
            let id = c.take(1, "packet type")?[0];
            let body = match id {
                0 => (|| {
                    let path = c.take(1, "transfer path")?[0];
                    let len = c.u32("transfer length")? as usize;
                    Ok(Packet::Transfer {
                        path,
                        data: c.take(len, "transfer data")?.to_vec(),
                    })
                })(),
                1 => c.take(1, "vsync field").map(|f| Packet::VSync(f[0])),
                2 => c.u32("readfifo2 size").map(Packet::ReadFifo2),
                3 => c
                    .take(PRIV_BLOCK, "registers packet")
                    .map(|r| Packet::Registers(r.to_vec())),
                _ => return Err(DumpError::BadPacket { offset: at, id }),
            };
            match body {
                Ok(p) => packets.push(p),
                Err(DumpError::Truncated { .. }) => {
                    dropped_tail = Some(b.len() - at);
                    break;
                }
                Err(e) => return Err(e),
            }
        }
        Ok(GsDump {
            crc,
            header,
            state,
            regs,
            packets,
            dropped_tail,
        })
    }

    /// Serialises the dump (new-format header when [`GsDump::header`] is set, else the old
    /// CRC form), uncompressed.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = self.head_bytes();
        for p in &self.packets {
            write_packet(&mut out, p);
        }
        out
    }

    /// Everything before the packets: the header (or the old CRC form), the state and the
    /// initial privileged registers.
    pub fn head_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        match &self.header {
            Some(h) => {
                out.extend_from_slice(&0xffff_ffffu32.to_le_bytes());
                let serial = h.serial.as_bytes();
                let shot = h.screenshot.as_ref();
                let shot_len = shot.map_or(0, |s| s.rgba.len());
                let size = 36 + serial.len() + shot_len;
                out.extend_from_slice(&(size as u32).to_le_bytes());
                let (sw, sh) = shot.map_or((0, 0), |s| (s.width, s.height));
                for v in [
                    h.state_version,
                    self.state.len() as u32,
                    36,
                    serial.len() as u32,
                    self.crc,
                    sw,
                    sh,
                    36 + serial.len() as u32,
                    shot_len as u32,
                ] {
                    out.extend_from_slice(&v.to_le_bytes());
                }
                out.extend_from_slice(serial);
                if let Some(s) = shot {
                    out.extend_from_slice(&s.rgba);
                }
            }
            None => {
                out.extend_from_slice(&self.crc.to_le_bytes());
                out.extend_from_slice(&(self.state.len() as u32).to_le_bytes());
            }
        }
        out.extend_from_slice(&self.state);
        let mut regs = self.regs.clone();
        regs.resize(PRIV_BLOCK, 0);
        out.extend_from_slice(&regs);
        out
    }
}

/// Appends one packet as a dump file stores it.
pub fn write_packet(out: &mut Vec<u8>, p: &Packet) {
    match p {
        Packet::Transfer { path, data } => {
            out.push(0);
            out.push(*path);
            out.extend_from_slice(&(data.len() as u32).to_le_bytes());
            out.extend_from_slice(data);
        }
        Packet::VSync(f) => out.extend_from_slice(&[1, *f]),
        Packet::ReadFifo2(n) => {
            out.push(2);
            out.extend_from_slice(&n.to_le_bytes());
        }
        Packet::Registers(r) => {
            out.push(3);
            let start = out.len();
            out.extend_from_slice(r);
            out.resize(start + PRIV_BLOCK, 0);
        }
    }
}

/// The registers a saved state holds, in its order, for a given version.
fn state_reg_order(version: u32) -> Vec<Option<u8>> {
    // None marks a 64-bit slot that is skipped (PRMODE, TEX2, the obsolete second TRXREG).
    let mut v = vec![Some(reg::PRIM)];
    if version <= 6 {
        v.push(None); // PRMODE
    }
    v.extend(
        [
            reg::PRMODECONT,
            reg::TEXCLUT,
            reg::SCANMSK,
            reg::TEXA,
            reg::FOGCOL,
            reg::DIMX,
            reg::DTHE,
            reg::COLCLAMP,
            reg::PABE,
            reg::BITBLTBUF,
            reg::TRXDIR,
            reg::TRXPOS,
            reg::TRXREG,
        ]
        .map(Some),
    );
    v.push(None); // TRXREG again
    for c in 0..2u8 {
        v.extend([reg::XYOFFSET_1 + c, reg::TEX0_1 + c, reg::TEX1_1 + c].map(Some));
        if version <= 6 {
            v.push(None); // TEX2
        }
        v.extend(
            [
                reg::CLAMP_1 + c,
                reg::MIPTBP1_1 + c,
                reg::MIPTBP2_1 + c,
                reg::SCISSOR_1 + c,
                reg::ALPHA_1 + c,
                reg::TEST_1 + c,
                reg::FBA_1 + c,
                reg::FRAME_1 + c,
                reg::ZBUF_1 + c,
            ]
            .map(Some),
        );
        if version <= 4 {
            // 7 words; kept as 3.5 slots by the caller.
            v.push(Some(0xff));
        }
    }
    v.extend([reg::RGBAQ, reg::ST, reg::UV, reg::FOG].map(Some));
    v.push(None); // XYZ
    v
}

/// A GS state blob, parsed.
#[derive(Debug, Clone, PartialEq)]
pub struct SavedState {
    /// The state version.
    pub version: u32,
    /// General registers (address, value) in the blob's order.
    pub regs: Vec<(u8, u64)>,
    /// Offset of the 4 MiB of local memory in the blob.
    pub vm_offset: usize,
}

impl SavedState {
    /// Parses a state blob of any known version.
    pub fn parse(state: &[u8]) -> Result<SavedState, DumpError> {
        let bad = |version: u32, msg: String| DumpError::BadState {
            version,
            size: state.len(),
            msg,
        };
        if state.len() < 4 {
            return Err(bad(0, "shorter than its version word".into()));
        }
        let version = u32::from_le_bytes([state[0], state[1], state[2], state[3]]);
        let mut off = 4;
        let mut regs = Vec::new();
        for slot in state_reg_order(version) {
            let len = if slot == Some(0xff) { 28 } else { 8 };
            let Some(b) = state.get(off..off + len) else {
                return Err(bad(version, format!("registers end at {off}")));
            };
            if let Some(r) = slot.filter(|&r| r != 0xff) {
                regs.push((r, u64::from_le_bytes(b.try_into().unwrap_or([0; 8]))));
            }
            off += len;
        }
        let len = state.len();
        let tails = [4 + 4 * 20, 4 + 3 * 20];
        let vm_offset = if version >= 9 {
            len.checked_sub(tails[0] + MEM_BYTES)
                .filter(|&o| o >= off + 8)
        } else {
            [off + 16, off + 8]
                .into_iter()
                .find(|&o| tails.iter().any(|&t| o + MEM_BYTES + t == len))
        };
        let vm_offset = vm_offset.ok_or_else(|| {
            bad(
                version,
                "local memory not found where the layout puts it".into(),
            )
        })?;
        Ok(SavedState {
            version,
            regs,
            vm_offset,
        })
    }

    /// Builds a version 8 state blob (4 GIF paths, all idle) from registers and memory.
    pub fn build_v8(regs: &[(u8, u64)], mem: &LocalMemory) -> Vec<u8> {
        let mut out = 8u32.to_le_bytes().to_vec();
        for slot in state_reg_order(8) {
            let v = slot
                .and_then(|r| regs.iter().find(|(a, _)| *a == r))
                .map_or(0, |(_, v)| *v);
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&[0; 16]); // obsolete register, transfer x/y
        for w in mem.words() {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out.extend_from_slice(&[0; 4 * 20]);
        out.extend_from_slice(&1.0f32.to_le_bytes());
        out
    }

    /// The local memory held in `state` (the blob this was parsed from).
    pub fn memory(&self, state: &[u8]) -> Result<Box<LocalMemory>, DumpError> {
        let src = state
            .get(self.vm_offset..self.vm_offset + MEM_BYTES)
            .ok_or_else(|| DumpError::BadState {
                version: self.version,
                size: state.len(),
                msg: format!("no 4 MiB of local memory at offset {}", self.vm_offset),
            })?;
        let mut m = Box::new(LocalMemory::new());
        for (w, b) in m.words_mut().iter_mut().zip(src.chunks_exact(4)) {
            *w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
        Ok(m)
    }
}

/// What a replay did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReplayStats {
    /// VSync packets seen.
    pub vsyncs: u64,
    /// Transfer packets replayed.
    pub transfers: u64,
    /// Register writes the GS refused (unknown addresses), ignored as the GS does.
    pub register_errors: u64,
    /// Transfer bytes past the last whole qword, ignored.
    pub partial_bytes: u64,
}

/// Replays a dump through a fresh [`Gs`] drawing with `renderer`. `on_vsync` runs at each VSync
/// packet with the GS and the frame number (from 0), and returns false to stop early.
pub fn replay<R: Renderer>(
    dump: &GsDump,
    renderer: R,
    mut on_vsync: impl FnMut(&mut Gs<R>, u64) -> bool,
) -> Result<(Gs<R>, ReplayStats), DumpError> {
    let saved = SavedState::parse(&dump.state)?;
    let mut gs = Gs::new(renderer);
    let mut stats = ReplayStats::default();
    gs.load_priv_block(&dump.regs);
    for (r, v) in &saved.regs {
        if gs.restore_reg(*r, *v).is_err() {
            stats.register_errors += 1;
        }
    }
    gs.set_memory(saved.memory(&dump.state)?);
    let mut paths = [GifPath::new(), GifPath::new(), GifPath::new()];
    for p in &dump.packets {
        match p {
            Packet::Transfer { path, data } => {
                stats.transfers += 1;
                // 0 and 1 are both GIF path 1.
                let gp = &mut paths[(*path as usize).saturating_sub(1).min(2)];
                let whole = data.len() / 16 * 16;
                stats.partial_bytes += (data.len() - whole) as u64;
                let q: Vec<u128> = data[..whole]
                    .chunks_exact(16)
                    .map(|c| u128::from_le_bytes(c.try_into().unwrap_or([0; 16])))
                    .collect();
                if gp.feed(&mut gs, &q).is_err() {
                    stats.register_errors += 1;
                }
            }
            Packet::VSync(field) => {
                gs.vsync(field & 1 != 0);
                let n = stats.vsyncs;
                stats.vsyncs += 1;
                if !on_vsync(&mut gs, n) {
                    break;
                }
            }
            Packet::ReadFifo2(n) => {
                // The host drains `n` qwords (PCSX2 reads them and drops them), a buffer at a
                // time: the packet's count is the file's word, not a size to allocate.
                let mut sink = [0u128; 256];
                let mut left = *n as usize;
                while left > 0 {
                    let take = left.min(sink.len());
                    if gs.read_image(&mut sink[..take]) < take {
                        break;
                    }
                    left -= take;
                }
            }
            Packet::Registers(r) => gs.load_priv_block(r),
        }
    }
    Ok((gs, stats))
}

/// Options for [`replay_file`].
#[derive(Debug, Clone, Default)]
pub struct ReplayOptions {
    /// The display circuits' merge (deflicker or not).
    pub pcrtc: crate::Pcrtc,
    /// What each frame holds: presented (moved by the display offset, 4:3) or the display
    /// circuits' own pixels.
    pub format: crate::FrameFormat,
    /// Write each frame as `DIR/NNNNNN.png` ([`Image::frame_file_name`]).
    pub dump_frames: Option<std::path::PathBuf>,
    /// Stop after this many frames.
    pub max_frames: Option<u64>,
}

/// Reads a dump file and replays it with `renderer`, presenting a frame at each VSync and
/// writing it when asked (`piney replay DUMP --dump-frames DIR`). Returns the stats and the last
/// presented frame.
pub fn replay_file<R: Renderer>(
    path: &Path,
    opts: &ReplayOptions,
    renderer: R,
) -> Result<(ReplayStats, Option<Image>), DumpError> {
    let dump = GsDump::read(path)?;
    if let Some(dir) = &opts.dump_frames {
        std::fs::create_dir_all(dir).map_err(|source| DumpError::Io {
            path: dir.display().to_string(),
            source,
        })?;
    }
    let mut last = None;
    let mut failure = None;
    let (_, stats) = replay(&dump, renderer, |gs, n| {
        if opts.max_frames.is_some_and(|m| n >= m) {
            return false;
        }
        // The display offset comes with the frame's registers.
        let scale = gs.renderer().scale();
        let presenter = gs.display(opts.pcrtc).presenter().scaled(scale);
        let img = gs.renderer_mut().display_image();
        let img = opts.format.apply_at(&img, presenter, scale);
        if let Some(dir) = &opts.dump_frames
            && let Err(e) = img.write_png(&dir.join(Image::frame_file_name(n)))
        {
            failure = Some(e);
            return false;
        }
        last = Some(img);
        true
    })?;
    match failure {
        Some(e) => Err(e.into()),
        None => Ok((stats, last)),
    }
}
