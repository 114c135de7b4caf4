//! Save states: the whole machine in a versioned file, and back.
//!
//! Contract:
//! - [`Machine::save_state`] writes every unit's state: the EE (its registers, COP0/1/2, VU0),
//!   RAM, scratchpad, BIOS stubs, VU memories and VU1, the I/O registers, INTC, timers, DMAC,
//!   VIF0/1, GIF and GS (registers, queues, local memory, its sample planes at a render scale,
//!   and the CLUT buffer), IPU, SIF, the HLE
//!   kernel, the timed events, and the IOP whole (CPU, RAM, devices, SPU2, CDVD, its kernel and
//!   native modules). The native engine layer keeps its state in guest memory and registers
//!   (piney-engine's `guest` module), so it is saved with them.
//! - Not saved, because they are the host's: the renderer's objects (it is given the local
//!   memory and CLUT back), the recompiler's code (dropped; blocks are compiled again), the
//!   disc image's file, memory card files, the pads' input, the audio sink, the hooks (the
//!   same program installs the same ones). A state is loaded into a machine made for the same
//!   program the same way.
//! - The file: `PINEYST\0`, the format version, piney's version, the program's identity (the
//!   caller's: the boot ELF's hash and disc serial), the payload's size unpacked, its length
//!   and CRC-32 as stored, then the payload: the state in bincode 1.3, as one zstd frame
//!   (ruzstd's fastest level; RAM and local memory are mostly runs, so a state of the demo is a
//!   few MB rather than 46). A file of another format or piney version, of another program, cut
//!   short or damaged is refused with an error saying which, before anything changes: the
//!   payload is read and checked whole before the machine is replaced.

use serde::{Deserialize, Serialize};

use crate::Machine;

/// The file's first eight bytes.
pub const MAGIC: &[u8; 8] = b"PINEYST\0";
/// The most a payload may unpack to (a damaged size is refused before anything is allocated).
const MAX_RAW: u64 = 1 << 30;

/// The layout of the payload; a change to any unit's state changes it (with piney's version).
/// Format 2: the GS's sample planes at a render scale. Format 3: MCMAN's state over each
/// memory card (current directory, open files, a listing under way).
pub const FORMAT: u32 = 3;
/// piney's version, as states record it.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Why a state was not saved or loaded.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// Not a piney save state.
    #[error("not a piney save state")]
    NotAState,
    /// Another format or piney version.
    #[error(
        "a save state of piney {file} (format {format}); this is piney {VERSION} (format {FORMAT})"
    )]
    Version {
        /// The file's piney version.
        file: String,
        /// The file's format.
        format: u32,
    },
    /// Another program.
    #[error("a save state of another program ({file}); this is {ours}")]
    Program {
        /// The file's program.
        file: String,
        /// This run's.
        ours: String,
    },
    /// The file ends before its payload does.
    #[error("the save state is cut short ({have} of {want} bytes)")]
    Truncated {
        /// Bytes there.
        have: u64,
        /// Bytes the header says.
        want: u64,
    },
    /// The checksum does not match.
    #[error("the save state is damaged (its checksum does not match)")]
    Damaged,
    /// The payload does not read as this version's state.
    #[error("the save state cannot be read: {0}")]
    Content(String),
    /// Something in the machine cannot be saved now.
    #[error("cannot save the state now: {0}")]
    Unsaveable(String),
}

#[derive(Serialize)]
struct PayloadRef<'a> {
    cpu: &'a piney_ee::Cpu,
    kernel: &'a crate::kernel::Kernel,
    sif: &'a crate::sif::SifEe,
    vblank_count: u64,
    vu0: &'a piney_vu::Vu,
    exit: Option<i32>,
    irx_run: &'a Option<String>,
    ram: &'a [u8],
    spr: &'a Vec<u8>,
    bios: &'a Vec<u8>,
    vu_mem: &'a Vec<u8>,
    io: &'a Vec<u32>,
    intc: &'a crate::intc::Intc,
    timers: &'a crate::timers::Timers,
    sif1_done: bool,
    dmac: &'a crate::dmac::Dmac,
    vif: &'a [crate::vif::Vif; 2],
    gif: &'a crate::gif::Gif,
    ipu: &'a piney_ipu::Ipu,
    sched: &'a crate::scheduler::Scheduler,
    out: &'a Vec<u8>,
    field: u64,
    now: u64,
    device_writes: &'a crate::bus::DeviceWrites,
    irq_changed: bool,
    vu1: Option<&'a piney_vu::Vu>,
    gs: piney_gs::GsState,
    gs_refused: u64,
    iop: Vec<u8>,
}

#[derive(Deserialize)]
struct Payload {
    cpu: piney_ee::Cpu,
    kernel: crate::kernel::Kernel,
    sif: crate::sif::SifEe,
    vblank_count: u64,
    vu0: piney_vu::Vu,
    exit: Option<i32>,
    irx_run: Option<String>,
    ram: Vec<u8>,
    spr: Vec<u8>,
    bios: Vec<u8>,
    vu_mem: Vec<u8>,
    io: Vec<u32>,
    intc: crate::intc::Intc,
    timers: crate::timers::Timers,
    sif1_done: bool,
    dmac: crate::dmac::Dmac,
    vif: [crate::vif::Vif; 2],
    gif: crate::gif::Gif,
    ipu: piney_ipu::Ipu,
    sched: crate::scheduler::Scheduler,
    out: Vec<u8>,
    field: u64,
    now: u64,
    device_writes: crate::bus::DeviceWrites,
    irq_changed: bool,
    vu1: Option<piney_vu::Vu>,
    gs: piney_gs::GsState,
    gs_refused: u64,
    iop: Vec<u8>,
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    out.extend((s.len() as u32).to_le_bytes());
    out.extend(s.as_bytes());
}

/// Reads the header fields in order, refusing a short file.
struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], StateError> {
        if self.b.len() - self.at < n {
            return Err(StateError::Truncated {
                have: self.b.len() as u64,
                want: (self.at + n) as u64,
            });
        }
        self.at += n;
        Ok(&self.b[self.at - n..self.at])
    }
    fn u32(&mut self) -> Result<u32, StateError> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().unwrap_or_default(),
        ))
    }
    fn u64(&mut self) -> Result<u64, StateError> {
        Ok(u64::from_le_bytes(
            self.take(8)?.try_into().unwrap_or_default(),
        ))
    }
    fn str(&mut self) -> Result<String, StateError> {
        let n = self.u32()? as usize;
        if n > 4096 {
            return Err(StateError::NotAState);
        }
        Ok(String::from_utf8_lossy(self.take(n)?).into_owned())
    }
}

/// Text from a file as it goes into an error: control characters escaped, at most 200 kept,
/// so that the error stays one line.
fn shown(s: &str) -> String {
    let mut out: String = s
        .chars()
        .flat_map(|c| {
            let e: Vec<char> = if c.is_control() {
                c.escape_debug().collect()
            } else {
                vec![c]
            };
            e
        })
        .take(200)
        .collect();
    if out.len() < s.len() && s.chars().count() > 200 {
        out.push_str("...");
    }
    out
}

/// The header of a state file: its piney version and program, read without the payload.
pub fn peek(bytes: &[u8]) -> Result<(String, u32, String), StateError> {
    if bytes.len() < 8 || &bytes[..8] != MAGIC {
        return Err(StateError::NotAState);
    }
    let mut r = Reader { b: bytes, at: 8 };
    let format = r.u32()?;
    let version = r.str()?;
    let program = r.str()?;
    Ok((version, format, program))
}

/// The payload unpacked: exactly `raw_len` bytes, or an error.
fn unpack(body: &[u8], raw_len: usize) -> Result<Vec<u8>, StateError> {
    use std::io::Read;
    let bad =
        |e: String| StateError::Content(format!("the payload does not unpack: {}", shown(&e)));
    let mut input = body;
    let dec =
        ruzstd::decoding::StreamingDecoder::new(&mut input).map_err(|e| bad(e.to_string()))?;
    let mut raw = Vec::with_capacity(raw_len);
    dec.take(raw_len as u64 + 1)
        .read_to_end(&mut raw)
        .map_err(|e| bad(e.to_string()))?;
    if raw.len() != raw_len {
        return Err(bad(format!("{} bytes, not {raw_len}", raw.len())));
    }
    Ok(raw)
}

impl Machine {
    /// The whole machine as a state file's bytes; `program` names what runs (the caller's:
    /// the boot ELF's hash, the disc's serial), which a load must match. Every command sent to
    /// the renderer so far is drawn first (the local memory is read back).
    pub fn save_state(&mut self, program: &str) -> Result<Vec<u8>, StateError> {
        let iop = self.bus.iop.save_state().map_err(StateError::Unsaveable)?;
        let gs = self.bus.gif.gs.gs.save_state();
        let b = &self.bus;
        let payload = PayloadRef {
            cpu: &self.cpu,
            kernel: &self.kernel,
            sif: &self.sif,
            vblank_count: self.vblank_count,
            vu0: &self.vu0,
            exit: self.exit,
            irx_run: &self.irx_run,
            ram: &b.ram,
            spr: &b.spr,
            bios: &b.bios,
            vu_mem: &b.vu_mem,
            io: &b.io,
            intc: &b.intc,
            timers: &b.timers,
            sif1_done: b.sif1_done,
            dmac: &b.dmac,
            vif: &b.vif,
            gif: &b.gif,
            ipu: &b.ipu,
            sched: &b.sched,
            out: &b.out,
            field: b.field,
            now: b.now,
            device_writes: &b.device_writes,
            irq_changed: b.irq_changed,
            vu1: b.vu_exec.vu1(),
            gs,
            gs_refused: b.gif.gs.refused_writes,
            iop,
        };
        let raw =
            bincode::serialize(&payload).map_err(|e| StateError::Unsaveable(e.to_string()))?;
        let body = ruzstd::encoding::compress_to_vec(
            &raw[..],
            ruzstd::encoding::CompressionLevel::Fastest,
        );
        let mut out = Vec::with_capacity(body.len() + 256);
        out.extend(MAGIC);
        out.extend(FORMAT.to_le_bytes());
        put_str(&mut out, VERSION);
        put_str(&mut out, program);
        out.extend((raw.len() as u64).to_le_bytes());
        out.extend((body.len() as u64).to_le_bytes());
        out.extend(crc32fast::hash(&body).to_le_bytes());
        out.extend(body);
        Ok(out)
    }

    /// Replaces the machine's state with a state file's (`program` as for
    /// [`Machine::save_state`]). The file is read and checked whole first: on an error nothing
    /// has changed. The recompiler's code is dropped; the renderer is given the state's local
    /// memory and CLUT buffer.
    pub fn load_state(&mut self, bytes: &[u8], program: &str) -> Result<(), StateError> {
        let (version, format, file_program) = peek(bytes)?;
        if version != VERSION || format != FORMAT {
            return Err(StateError::Version {
                file: shown(&version),
                format,
            });
        }
        if file_program != program {
            return Err(StateError::Program {
                file: shown(&file_program),
                ours: program.to_string(),
            });
        }
        let mut r = Reader {
            b: bytes,
            at: 8 + 4 + 4 + version.len() + 4 + file_program.len(),
        };
        let raw_len = r.u64()?;
        let len = r.u64()?;
        let crc = r.u32()?;
        let have = (bytes.len() - r.at) as u64;
        if have != len {
            return Err(if have < len {
                StateError::Truncated {
                    have: bytes.len() as u64,
                    want: r.at as u64 + len,
                }
            } else {
                StateError::Content(format!("{} bytes after the payload", have - len))
            });
        }
        let body = &bytes[r.at..];
        if crc32fast::hash(body) != crc {
            return Err(StateError::Damaged);
        }
        if raw_len > MAX_RAW {
            return Err(StateError::Content(format!(
                "a payload of {raw_len} bytes unpacked, past the {MAX_RAW} a state may have"
            )));
        }
        let raw = unpack(body, raw_len as usize)?;
        let p: Payload =
            piney_iop::state::decode(&raw).map_err(|e| StateError::Content(shown(&e)))?;
        drop(raw);
        let iop = self
            .bus
            .iop
            .decode_state(&p.iop)
            .map_err(|e| StateError::Content(shown(&e)))?;
        let sizes = [
            (p.ram.len(), self.bus.ram.len(), "RAM"),
            (p.spr.len(), self.bus.spr.len(), "scratchpad"),
            (p.bios.len(), self.bus.bios.len(), "BIOS"),
            (p.vu_mem.len(), self.bus.vu_mem.len(), "VU memory"),
            (p.io.len(), self.bus.io.len(), "I/O registers"),
        ];
        if let Some((a, b, what)) = sizes.iter().find(|(a, b, _)| a != b) {
            return Err(StateError::Content(format!("{what} of {a} bytes, not {b}")));
        }
        if p.vu1.is_some() != self.bus.vu_exec.vu1().is_some() {
            return Err(StateError::Content(
                "VU1's state and this machine's VU runner do not match".into(),
            ));
        }
        // Everything is read and checked: replace.
        self.cpu = p.cpu;
        self.kernel = p.kernel;
        self.sif = p.sif;
        self.vblank_count = p.vblank_count;
        self.vu0 = p.vu0;
        self.exit = p.exit;
        self.irx_run = p.irx_run;
        let b = &mut self.bus;
        b.ram.copy_from_slice(&p.ram);
        b.spr = p.spr;
        b.bios = p.bios;
        b.vu_mem = p.vu_mem;
        b.io = p.io;
        b.intc = p.intc;
        b.timers = p.timers;
        b.sif1_done = p.sif1_done;
        b.dmac = p.dmac;
        b.vif = p.vif;
        let mut gif = p.gif;
        std::mem::swap(&mut gif.gs, &mut b.gif.gs);
        b.gif = gif;
        b.gif.gs.gs.load_state(p.gs);
        b.gif.gs.refused_writes = p.gs_refused;
        b.ipu = p.ipu;
        b.sched = p.sched;
        b.out = p.out;
        b.field = p.field;
        b.now = p.now;
        b.device_writes = p.device_writes;
        b.irq_changed = p.irq_changed;
        if let (Some(v), Some(dst)) = (p.vu1, b.vu_exec.vu1_mut()) {
            *dst = v;
        }
        b.iop.apply_state(iop);
        self.invalidate_code();
        Ok(())
    }
}
