//! The PS2 Image Processing Unit: an MPEG-1/MPEG-2 macroblock decoder with colour space
//! conversion, as a headless state machine with no I/O and no notion of time.
//!
//! Contract:
//! - Registers: [`Ipu::read32`] / [`Ipu::write32`] take the offset from 0x1000_2000: IPU_CMD
//!   (0x00 DATA, 0x04 BUSY in bit 31), IPU_CTRL (0x10), IPU_BP (0x20), IPU_TOP (0x30 the next 32
//!   bits, 0x34 BUSY in bit 31). The FIFOs: [`Ipu::push_in`] is IPU_in_FIFO (0x1000_7010, fed by
//!   toIPU, DMA channel 4), [`Ipu::pop_out`] is IPU_out_FIFO (0x1000_7000, drained by fromIPU,
//!   channel 3); 8 quadwords each.
//! - A command written to IPU_CMD runs as far as the data in the input FIFO and the room in the
//!   output FIFO let it, every time [`Ipu::run`] is called (after a command write, a push or a
//!   pop). When its work is done, [`Ipu::take_finished`] returns, once, the latency in EE cycles
//!   the owner should wait before calling [`Ipu::complete`], which clears BUSY and says that the
//!   IPU interrupt (INTC line 8) is raised. Until then CTRL.BUSY and CMD.BUSY read 1.
//! - Commands: BCLR, IDEC, BDEC, VDEC, FDEC, SETIQ, SETVQ, CSC, PACK, SETTH (code in bits 31-28).
//!   A bit stream that breaks the syntax (no VLC matches, a run past the 64th coefficient, an
//!   undefined command or picture type) sets CTRL.ECD and ends the command; nothing panics.
//! - Timing model (coarse, documented): decoding itself takes no time here; throughput is that of
//!   the DMA channels feeding and draining the FIFOs, and each command's end (BUSY clearing, the
//!   interrupt) comes [`latency`] cycles after its last data moved.
//!
//! Facts come from the IPU models of PCSX2 and Play! and from ISO/IEC 13818-2 (MPEG-2) and
//! 11172-2 (MPEG-1); where they leave a choice, the choice is written at the point of use.

pub mod bits;
pub mod csc;
pub mod idct;
pub mod vlc;

#[cfg(test)]
mod tests;

use std::collections::VecDeque;

use bits::{Cursor, InFifo, Short};
use csc::Thresholds;
use vlc::{Coef, Lookup, Vlc, tables};

/// Quadwords the IPU_out_FIFO holds.
pub const OUT_FIFO_QWORDS: usize = 8;

/// IPU_CTRL bits.
pub mod ctrl {
    /// IFC, input FIFO count (bits 0-3), read only.
    pub const IFC_SHIFT: u32 = 0;
    /// OFC, output FIFO count (bits 4-7), read only.
    pub const OFC_SHIFT: u32 = 4;
    /// CBP, the last coded block pattern (bits 8-13), read only.
    pub const CBP_SHIFT: u32 = 8;
    /// ECD: error code detected.
    pub const ECD: u32 = 1 << 14;
    /// SCD: start code detected.
    pub const SCD: u32 = 1 << 15;
    /// IDP: intra DC precision (bits 16-17: 0 8 bits .. 3 11 bits).
    pub const IDP_SHIFT: u32 = 16;
    /// AS: alternate scan.
    pub const AS: u32 = 1 << 20;
    /// IVF: intra VLC format (DCT table one for intra blocks).
    pub const IVF: u32 = 1 << 21;
    /// QST: q_scale_type (non-linear quantiser scale).
    pub const QST: u32 = 1 << 22;
    /// MP1: MPEG-1 bit stream.
    pub const MP1: u32 = 1 << 23;
    /// PCT: picture coding type (bits 24-26: 1 I, 2 P, 3 B, 4 D).
    pub const PCT_SHIFT: u32 = 24;
    /// RST: writing 1 resets the IPU.
    pub const RST: u32 = 1 << 30;
    /// BUSY.
    pub const BUSY: u32 = 1 << 31;
    /// The bits a write sets: IDP, AS, IVF, QST, MP1, PCT.
    pub const WRITABLE: u32 = 0x07f3_0000;
}

/// Command codes (IPU_CMD bits 31-28).
pub mod cmd {
    /// Clear the input FIFO, set BP.
    pub const BCLR: u32 = 0;
    /// Intra decode a slice to RGB.
    pub const IDEC: u32 = 1;
    /// Decode one macroblock to raw16 YCbCr.
    pub const BDEC: u32 = 2;
    /// Decode one VLC.
    pub const VDEC: u32 = 3;
    /// Fixed-length data: the next 32 bits.
    pub const FDEC: u32 = 4;
    /// Load a quantiser matrix.
    pub const SETIQ: u32 = 5;
    /// Load the VQ CLUT.
    pub const SETVQ: u32 = 6;
    /// Convert raw8 YCbCr macroblocks to RGB.
    pub const CSC: u32 = 7;
    /// Pack RGB32 to RGB16 or INDX4.
    pub const PACK: u32 = 8;
    /// Set the alpha thresholds.
    pub const SETTH: u32 = 9;
}

/// The cycles from a command's last data to its end (BUSY clearing and the interrupt). A choice:
/// PCSX2 lets IDEC/BDEC start 64 cycles after the command write and treats the others as
/// immediate; here decode and conversion commands end 64 cycles after their last data, the
/// others 8.
pub fn latency(code: u32) -> u64 {
    match code {
        cmd::IDEC | cmd::BDEC | cmd::CSC | cmd::PACK => 64,
        _ => 8,
    }
}

/// Zigzag scan: scan position to raster index (ISO/IEC 13818-2 figure 7-2).
const ZIGZAG: [u8; 64] = [
    0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20,
    13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59,
    52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
];
/// Alternate scan (figure 7-3).
const ALTERNATE: [u8; 64] = [
    0, 8, 16, 24, 1, 9, 2, 10, 17, 25, 32, 40, 48, 56, 57, 49, 41, 33, 26, 18, 3, 11, 4, 12, 19,
    27, 34, 42, 50, 58, 35, 43, 51, 59, 20, 28, 5, 13, 6, 14, 21, 29, 36, 44, 52, 60, 37, 45, 53,
    61, 22, 30, 7, 15, 23, 31, 38, 46, 54, 62, 39, 47, 55, 63,
];
/// quantiser_scale for q_scale_type 1 (table 7-6); type 0 is 2 x code.
const NON_LINEAR_QSCALE: [u8; 32] = [
    0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 18, 20, 22, 24, 28, 32, 36, 40, 44, 48, 52, 56, 64,
    72, 80, 88, 96, 104, 112,
];

/// How a step of a command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
enum Step {
    /// The command's work is done.
    Done,
    /// It waits for input data or output room.
    Wait,
    /// The bit stream breaks the syntax (ECD).
    Error,
}

impl From<Short> for Step {
    fn from(_: Short) -> Self {
        Step::Wait
    }
}

/// Where a macroblock decode stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
enum Phase {
    Start,
    Header,
    Cbp,
    BlockStart,
    Dc,
    Ac,
    BlockEnd,
    Output,
    Mbai,
    EndCheck,
    Top,
}

/// The state of an IDEC or BDEC.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Dec {
    idec: bool,
    mpeg1: bool,
    ivf: bool,
    alt: bool,
    idp: u32,
    qst: bool,
    /// quantiser_scale (mapped).
    qscale: i32,
    /// Field DCT (dct_type 1).
    field: bool,
    /// IDEC: dct_type is in the stream (DTD).
    dtd: bool,
    intra: bool,
    /// BDEC: reset the DC predictors (DCR).
    dcr: bool,
    /// IDEC output: RGB16 (OFM), dither (DTE), signed (SGN).
    ofm: bool,
    dte: bool,
    sgn: bool,
    phase: Phase,
    cbp: u8,
    block: usize,
    /// Next scan position.
    idx: usize,
    #[serde(with = "serde_big_array::BigArray")]
    coefs: [i32; 64],
    #[serde(with = "piney_state::nested")]
    samples: [[i32; 64]; 6],
    escapes: u32,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
enum Op {
    Fdec,
    Vdec {
        tbl: u32,
        decoded: bool,
    },
    Setiq {
        non_intra: bool,
        n: usize,
        #[serde(with = "serde_big_array::BigArray")]
        buf: [u8; 64],
    },
    Setvq {
        n: usize,
        buf: [u8; 32],
    },
    Csc {
        left: u32,
        ofm: bool,
        dte: bool,
        n: usize,
        #[serde(with = "piney_state::boxed")]
        buf: Box<[u8; 384]>,
    },
    Pack {
        left: u32,
        ofm: bool,
        dte: bool,
        n: usize,
        #[serde(with = "piney_state::boxed")]
        buf: Box<[u8; 1024]>,
    },
    Dec(Box<Dec>),
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Active {
    code: u32,
    /// FB: bits still to skip before the command reads.
    skip: u32,
    op: Op,
}

/// The IPU.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Ipu {
    fifo: InFifo,
    /// Words written one at a time to IPU_in_FIFO, until a quadword is complete.
    partial: Vec<u32>,
    out: VecDeque<u128>,
    /// The quadword an EE read of IPU_out_FIFO's first word took (its other words read from it).
    out_latch: u128,
    /// A command's output not yet in the out FIFO.
    pending: VecDeque<u128>,
    /// CTRL's stored bits (WRITABLE, ECD, SCD).
    ctrl: u32,
    data: u32,
    /// DATA holds a VDEC/FDEC result (else it shows the next 32 bits).
    data_is_result: bool,
    top: u32,
    busy: bool,
    finished: Option<u64>,
    current: Option<Active>,
    /// Code of the command last written.
    last_code: u32,
    #[serde(with = "serde_big_array::BigArray")]
    iq: [u8; 64],
    #[serde(with = "serde_big_array::BigArray")]
    niq: [u8; 64],
    vqclut: [u16; 16],
    th: Thresholds,
    dc_pred: [i32; 3],
    cbp: u8,
}

impl Default for Ipu {
    fn default() -> Self {
        Self::new()
    }
}

impl Ipu {
    /// A powered-on IPU. The quantiser matrices, CLUT and thresholds start zeroed (their power-on
    /// contents are not documented; programs load them with SETIQ, SETVQ and SETTH).
    pub fn new() -> Self {
        Self {
            fifo: InFifo::default(),
            partial: Vec::new(),
            out: VecDeque::new(),
            out_latch: 0,
            pending: VecDeque::new(),
            ctrl: 0,
            data: 0,
            data_is_result: false,
            top: 0,
            busy: false,
            finished: None,
            current: None,
            last_code: 0,
            iq: [0; 64],
            niq: [0; 64],
            vqclut: [0; 16],
            th: Thresholds::default(),
            dc_pred: [0; 3],
            cbp: 0,
        }
    }

    /// CTRL.RST: the FIFOs empty, the command stops, BUSY clears. The matrices, CLUT and
    /// thresholds stay.
    pub fn soft_reset(&mut self) {
        self.fifo.clear(0);
        self.partial.clear();
        self.out.clear();
        self.pending.clear();
        self.ctrl &= !(ctrl::ECD | ctrl::SCD);
        self.data = 0;
        self.data_is_result = false;
        self.top = 0;
        self.busy = false;
        self.finished = None;
        self.current = None;
        self.cbp = 0;
    }

    /// Whether a command is running (CTRL.BUSY).
    pub fn busy(&self) -> bool {
        self.busy
    }

    /// Room in IPU_in_FIFO, in quadwords.
    pub fn in_room(&self) -> usize {
        self.fifo.room()
    }

    /// Quadwords waiting in IPU_out_FIFO.
    pub fn out_len(&self) -> usize {
        self.out.len()
    }

    /// Append a quadword to IPU_in_FIFO. Returns false when it is full (the quadword is not
    /// taken).
    pub fn push_in(&mut self, q: u128) -> bool {
        self.fifo.push(q)
    }

    /// A 32-bit EE write to IPU_in_FIFO: four make a quadword. Returns false if the quadword they
    /// completed did not fit.
    pub fn push_in_word(&mut self, w: u32) -> bool {
        self.partial.push(w);
        if self.partial.len() < 4 {
            return true;
        }
        let q = self
            .partial
            .drain(..)
            .enumerate()
            .fold(0u128, |q, (i, w)| q | (w as u128) << (32 * i));
        self.fifo.push(q)
    }

    /// Take a quadword from IPU_out_FIFO.
    pub fn pop_out(&mut self) -> Option<u128> {
        let q = self.out.pop_front();
        self.drain_pending();
        q
    }

    /// A 32-bit EE read of IPU_out_FIFO (word 0..=3 of 0x1000_7000): reading word 0 takes the next
    /// quadword (zero when the FIFO is empty); words 1-3 read the rest of it, so a 128-bit read
    /// (four words in order) takes one quadword.
    pub fn read_out_word(&mut self, word: u32) -> u32 {
        if word & 3 == 0 {
            self.out_latch = self.pop_out().unwrap_or(0);
        }
        (self.out_latch >> (32 * (word & 3))) as u32
    }

    /// The quadword at the head of IPU_out_FIFO, not taken.
    pub fn peek_out(&self) -> Option<u128> {
        self.out.front().copied()
    }

    /// Once per command, when its work is done: the cycles until [`Ipu::complete`] is due.
    pub fn take_finished(&mut self) -> Option<u64> {
        self.finished.take()
    }

    /// The end of the command: BUSY clears. Returns true when the IPU interrupt is raised (false
    /// if no command was ending, after a reset or a newer command).
    pub fn complete(&mut self) -> bool {
        if self.busy && self.current.is_none() {
            self.busy = false;
            true
        } else {
            false
        }
    }

    /// IPU_CMD, IPU_CTRL, IPU_BP, IPU_TOP (offset from 0x1000_2000, word aligned).
    pub fn read32(&mut self, off: u32) -> u32 {
        match off & 0xfc {
            0x00 => self.cmd_data(),
            0x04 => (self.busy as u32) << 31,
            0x10 => self.read_ctrl(),
            0x20 => self.fifo.bp() | (self.fifo.ifc() as u32) << 8 | (self.fifo.fp() as u32) << 16,
            0x30 => self.fifo.peek_padded(0, 32).0,
            0x34 => {
                let decoding = self.busy
                    && matches!(
                        self.last_code,
                        cmd::IDEC | cmd::BDEC | cmd::VDEC | cmd::FDEC
                    );
                ((decoding || self.fifo.avail() < 32) as u32) << 31
            }
            _ => 0,
        }
    }

    /// IPU_CMD.DATA: a VDEC/FDEC result, or else (as PCSX2 and Play! show) the next 32 bits of
    /// the stream once 32 are there.
    fn cmd_data(&mut self) -> u32 {
        if !self.data_is_result && self.fifo.avail() >= 32 {
            self.data = self.fifo.peek_padded(0, 32).0;
        }
        self.data
    }

    fn read_ctrl(&self) -> u32 {
        (self.ctrl & (ctrl::WRITABLE | ctrl::ECD | ctrl::SCD))
            | (self.fifo.ifc() as u32) << ctrl::IFC_SHIFT
            | (self.out.len() as u32) << ctrl::OFC_SHIFT
            | (self.cbp as u32 & 0x3f) << ctrl::CBP_SHIFT
            | (self.busy as u32) << 31
    }

    /// A write to IPU_CMD or IPU_CTRL (offset from 0x1000_2000). Other offsets are read-only.
    pub fn write32(&mut self, off: u32, v: u32) {
        match off & 0xfc {
            0x00 => self.write_cmd(v),
            0x10 => {
                if v & ctrl::RST != 0 {
                    self.soft_reset();
                }
                self.ctrl = (self.ctrl & !ctrl::WRITABLE) | (v & ctrl::WRITABLE);
            }
            _ => {}
        }
    }

    /// The last TOP a decode command left (the next 32 bits when it ended).
    pub fn top(&self) -> u32 {
        self.top
    }

    fn write_cmd(&mut self, v: u32) {
        // A new command replaces a running one (undocumented; PCSX2 does the same).
        let code = v >> 28;
        self.ctrl &= !(ctrl::ECD | ctrl::SCD);
        self.pending.clear();
        self.current = None;
        self.finished = None;
        self.busy = true;
        self.last_code = code;
        self.data_is_result = matches!(code, cmd::VDEC | cmd::FDEC);
        let fb = v & 0x3f;
        let c = self.ctrl;
        let op = match code {
            cmd::BCLR => {
                self.fifo.clear(v & 0x7f);
                self.partial.clear();
                self.finished = Some(latency(code));
                return;
            }
            cmd::SETTH => {
                self.th = Thresholds {
                    th0: (v & 0x1ff) as u16,
                    th1: (v >> 16 & 0x1ff) as u16,
                };
                self.finished = Some(latency(code));
                return;
            }
            cmd::FDEC => Op::Fdec,
            cmd::VDEC => {
                self.data = 0;
                Op::Vdec {
                    tbl: (v >> 26) & 3,
                    decoded: false,
                }
            }
            cmd::SETIQ => Op::Setiq {
                non_intra: v & (1 << 27) != 0,
                n: 0,
                buf: [0; 64],
            },
            cmd::SETVQ => Op::Setvq { n: 0, buf: [0; 32] },
            cmd::CSC | cmd::PACK => {
                let (left, ofm, dte) = (v & 0x7ff, v & (1 << 27) != 0, v & (1 << 26) != 0);
                if code == cmd::CSC {
                    Op::Csc {
                        left,
                        ofm,
                        dte,
                        n: 0,
                        buf: Box::new([0; 384]),
                    }
                } else {
                    Op::Pack {
                        left,
                        ofm,
                        dte,
                        n: 0,
                        buf: Box::new([0; 1024]),
                    }
                }
            }
            cmd::IDEC | cmd::BDEC => {
                let idec = code == cmd::IDEC;
                let qst = c & ctrl::QST != 0;
                let qsc = (v >> 16) & 0x1f;
                Op::Dec(Box::new(Dec {
                    idec,
                    mpeg1: c & ctrl::MP1 != 0,
                    ivf: c & ctrl::IVF != 0,
                    alt: c & ctrl::AS != 0,
                    idp: (c >> ctrl::IDP_SHIFT) & 3,
                    qst,
                    // QSC is a quantiser_scale_code for both commands (Play! maps both; PCSX2
                    // maps BDEC's only).
                    qscale: qscale(qst, qsc),
                    // BDEC DT (bit 25) gives the DCT type; IDEC DTD (bit 24) says whether each
                    // macroblock carries dct_type.
                    field: !idec && v & (1 << 25) != 0,
                    dtd: idec && v & (1 << 24) != 0,
                    intra: idec || v & (1 << 27) != 0,
                    dcr: idec || v & (1 << 26) != 0,
                    ofm: idec && v & (1 << 27) != 0,
                    dte: idec && v & (1 << 26) != 0,
                    sgn: idec && v & (1 << 25) != 0,
                    phase: Phase::Start,
                    cbp: 0,
                    block: 0,
                    idx: 0,
                    coefs: [0; 64],
                    samples: [[0; 64]; 6],
                    escapes: 0,
                }))
            }
            _ => {
                // Codes 10-15 are not commands: an error that ends at once.
                self.ctrl |= ctrl::ECD;
                self.finished = Some(latency(code));
                return;
            }
        };
        // SETVQ, CSC and PACK have no FB field.
        let skip = if matches!(code, cmd::SETVQ | cmd::CSC | cmd::PACK) {
            0
        } else {
            fb
        };
        self.current = Some(Active { code, skip, op });
    }

    fn drain_pending(&mut self) {
        while self.out.len() < OUT_FIFO_QWORDS {
            match self.pending.pop_front() {
                Some(q) => self.out.push_back(q),
                None => break,
            }
        }
    }

    /// Run the current command as far as the FIFOs allow.
    pub fn run(&mut self) {
        self.drain_pending();
        let Some(mut a) = self.current.take() else {
            return;
        };
        if a.skip > 0 {
            if self.fifo.avail() < a.skip {
                self.current = Some(a);
                return;
            }
            self.fifo.consume(a.skip);
            a.skip = 0;
        }
        let step = self.step(&mut a.op);
        self.drain_pending();
        match step {
            Step::Wait => self.current = Some(a),
            Step::Done => self.finished = Some(latency(a.code)),
            Step::Error => {
                self.ctrl |= ctrl::ECD;
                self.finished = Some(latency(a.code));
            }
        }
    }

    fn step(&mut self, op: &mut Op) -> Step {
        match op {
            Op::Fdec => {
                // The next 32 bits, not consumed, in DATA and TOP.
                if self.fifo.avail() < 32 {
                    return Step::Wait;
                }
                self.data = self.fifo.peek_padded(0, 32).0;
                self.top = self.data;
                Step::Done
            }
            Op::Vdec { tbl, decoded } => {
                if !*decoded {
                    match self.vdec(*tbl) {
                        Step::Done => *decoded = true,
                        s => return s,
                    }
                }
                // Then TOP shows the next 32 bits, once they are there.
                if self.fifo.avail() < 32 {
                    return Step::Wait;
                }
                self.top = self.fifo.peek_padded(0, 32).0;
                Step::Done
            }
            Op::Setiq { non_intra, n, buf } => {
                // 64 bytes in stream order: the matrix in scan order (see `Dec::dequant`).
                if !self.read_bytes(&mut buf[..], n) {
                    return Step::Wait;
                }
                if *non_intra {
                    self.niq = *buf;
                } else {
                    self.iq = *buf;
                }
                Step::Done
            }
            Op::Setvq { n, buf } => {
                // 16 RGB16 entries as they lie in memory (little-endian halfwords, as PCSX2 reads
                // them).
                if !self.read_bytes(&mut buf[..], n) {
                    return Step::Wait;
                }
                for (i, e) in self.vqclut.iter_mut().enumerate() {
                    *e = u16::from_le_bytes([buf[2 * i], buf[2 * i + 1]]);
                }
                Step::Done
            }
            Op::Csc {
                left,
                ofm,
                dte,
                n,
                buf,
            } => loop {
                if *left == 0 {
                    return Step::Done;
                }
                if !self.pending.is_empty() {
                    return Step::Wait;
                }
                if !self.read_bytes(&mut buf[..], n) {
                    return Step::Wait;
                }
                let px = csc::csc(buf, self.th);
                self.emit_rgb(&px, *ofm, *dte);
                *n = 0;
                *left -= 1;
            },
            Op::Pack {
                left,
                ofm,
                dte,
                n,
                buf,
            } => loop {
                if *left == 0 {
                    return Step::Done;
                }
                if !self.pending.is_empty() {
                    return Step::Wait;
                }
                if !self.read_bytes(&mut buf[..], n) {
                    return Step::Wait;
                }
                let mut px = [0u32; 256];
                for (i, p) in px.iter_mut().enumerate() {
                    *p = u32::from_le_bytes(buf[4 * i..4 * i + 4].try_into().unwrap_or([0; 4]));
                }
                let p16 = csc::to_rgb16(&px, *dte);
                // OFM 1: RGB16; 0: INDX4.
                if *ofm {
                    self.emit_u16(&p16);
                } else {
                    let ix = csc::to_indx4(&p16, &self.vqclut);
                    self.emit_bytes(&ix);
                }
                *n = 0;
                *left -= 1;
            },
            Op::Dec(d) => self.dec(d),
        }
    }

    /// Fill `buf` from the stream a byte at a time from `*n`; true when full.
    fn read_bytes(&mut self, buf: &mut [u8], n: &mut usize) -> bool {
        while *n < buf.len() {
            if self.fifo.avail() < 8 {
                return false;
            }
            buf[*n] = (self.fifo.peek_padded(0, 8).0 >> 24) as u8;
            self.fifo.consume(8);
            *n += 1;
        }
        true
    }

    fn emit_bytes(&mut self, b: &[u8]) {
        for c in b.chunks(16) {
            let mut q = [0u8; 16];
            q[..c.len()].copy_from_slice(c);
            self.pending.push_back(u128::from_le_bytes(q));
        }
    }

    fn emit_u16(&mut self, v: &[u16]) {
        let b: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        self.emit_bytes(&b);
    }

    fn emit_rgb(&mut self, px: &[u32; 256], ofm: bool, dte: bool) {
        if ofm {
            self.emit_u16(&csc::to_rgb16(px, dte));
        } else {
            let b: Vec<u8> = px.iter().flat_map(|x| x.to_le_bytes()).collect();
            self.emit_bytes(&b);
        }
    }

    /// VDEC: one VLC of table `tbl` (0 macroblock_address_increment, 1 macroblock_type for
    /// CTRL.PCT, 2 motion_code, 3 dmvector). DATA: the value in bits 0-15 (two's complement), the
    /// number of bits the code took (sign included) in bits 16-23 (PCSX2's layout, which leaves
    /// the sign bit out of motion codes' length: a choice).
    fn vdec(&mut self, tbl: u32) -> Step {
        let t = tables();
        let mut c = Cursor::new(&self.fifo);
        let mpeg1 = self.ctrl & ctrl::MP1 != 0;
        let r: Result<i32, Step> = match tbl {
            0 => match vlc_get(&mut c, &t.mba) {
                // The escape and stuffing codes read as 0x23 and 0x22 (PCSX2); stuffing exists
                // in MPEG-1 only.
                Ok(vlc::MBA_VALUE_ESCAPE) => Ok(0x23),
                Ok(vlc::MBA_VALUE_STUFFING) if mpeg1 => Ok(0x22),
                Ok(vlc::MBA_VALUE_STUFFING) => Err(Step::Error),
                r => r.map(i32::from),
            },
            1 => {
                // PCT 0 decodes as I (PCSX2: a game leaves it unset and expects I).
                let table = match (self.ctrl >> ctrl::PCT_SHIFT) & 7 {
                    0 | 1 => Some(&t.mb_i),
                    2 => Some(&t.mb_p),
                    3 => Some(&t.mb_b),
                    4 => Some(&t.mb_d),
                    _ => None,
                };
                match table {
                    Some(tb) => vlc_get(&mut c, tb).map(i32::from),
                    None => Err(Step::Error),
                }
            }
            2 => vlc_get(&mut c, &t.motion).and_then(|m| {
                if m == 0 {
                    return Ok(0);
                }
                let s = c.get(1)?;
                Ok(if s == 1 { -(m as i32) } else { m as i32 })
            }),
            _ => vlc_get(&mut c, &t.dmv).map(i32::from),
        };
        let len = c.pos();
        match r {
            Ok(v) => {
                self.fifo.consume(len);
                self.data = (len << 16) | (v as u32 & 0xffff);
                Step::Done
            }
            Err(Step::Error) => {
                self.data = 0;
                Step::Error
            }
            Err(s) => s,
        }
    }

    /// IDEC (a slice of intra macroblocks to RGB) and BDEC (one macroblock to raw16).
    fn dec(&mut self, d: &mut Dec) -> Step {
        loop {
            let s = match d.phase {
                Phase::Start => {
                    if d.dcr {
                        self.dc_pred = [128 << d.idp; 3];
                    }
                    d.phase = if d.idec {
                        Phase::Header
                    } else if d.intra {
                        d.cbp = 0x3f;
                        Phase::BlockStart
                    } else {
                        Phase::Cbp
                    };
                    Ok(())
                }
                Phase::Header => self.dec_header(d),
                Phase::Cbp => {
                    let mut c = Cursor::new(&self.fifo);
                    match vlc_get(&mut c, &tables().cbp) {
                        Ok(v) => {
                            let n = c.pos();
                            self.fifo.consume(n);
                            d.cbp = v as u8;
                            d.block = 0;
                            d.phase = Phase::BlockStart;
                            Ok(())
                        }
                        Err(s) => Err(s),
                    }
                }
                Phase::BlockStart => {
                    if d.block == 6 {
                        d.phase = Phase::Output;
                    } else if d.cbp & (0x20 >> d.block) == 0 {
                        d.samples[d.block] = [0; 64];
                        d.block += 1;
                    } else {
                        d.coefs = [0; 64];
                        d.idx = 0;
                        d.phase = if d.intra { Phase::Dc } else { Phase::Ac };
                    }
                    Ok(())
                }
                Phase::Dc => self.dec_dc(d),
                Phase::Ac => self.dec_ac(d),
                Phase::BlockEnd => {
                    // MPEG-2 mismatch control (7.4.4): an even sum toggles the last
                    // coefficient's lowest bit. MPEG-1 made each coefficient odd instead.
                    if !d.mpeg1 && d.coefs.iter().sum::<i32>() & 1 == 0 {
                        d.coefs[63] ^= 1;
                    }
                    let mut s = idct::idct(&d.coefs);
                    if d.intra {
                        for v in s.iter_mut() {
                            *v = (*v).clamp(0, 255);
                        }
                    }
                    d.samples[d.block] = s;
                    d.block += 1;
                    d.phase = Phase::BlockStart;
                    Ok(())
                }
                Phase::Output => {
                    self.cbp = d.cbp;
                    self.dec_output(d);
                    d.phase = if d.idec { Phase::Mbai } else { Phase::EndCheck };
                    Ok(())
                }
                Phase::Mbai => {
                    if !self.pending.is_empty() {
                        return Step::Wait;
                    }
                    self.dec_mbai(d)
                }
                Phase::EndCheck => {
                    if !self.pending.is_empty() {
                        return Step::Wait;
                    }
                    // Eight zero bits: a start code follows; align to it and set SCD.
                    if self.fifo.avail() < 8 {
                        return Step::Wait;
                    }
                    if self.fifo.peek_padded(0, 8).0 == 0 {
                        self.fifo.align_byte();
                        self.ctrl |= ctrl::SCD;
                    }
                    d.phase = Phase::Top;
                    Ok(())
                }
                Phase::Top => {
                    if self.fifo.avail() < 32 {
                        return Step::Wait;
                    }
                    self.top = self.fifo.peek_padded(0, 32).0;
                    return Step::Done;
                }
            };
            if let Err(s) = s {
                return s;
            }
        }
    }

    /// IDEC's macroblock header: macroblock_type (I table), dct_type when DTD, then
    /// quantiser_scale_code when macroblock_quant.
    fn dec_header(&mut self, d: &mut Dec) -> Result<(), Step> {
        let mut c = Cursor::new(&self.fifo);
        let t = vlc_get(&mut c, &tables().mb_i)?;
        let field = if d.dtd { c.get(1)? == 1 } else { false };
        let q = if t & vlc::mb::QUANT != 0 {
            Some(c.get(5)?)
        } else {
            None
        };
        let n = c.pos();
        self.fifo.consume(n);
        d.field = field;
        if let Some(q) = q {
            d.qscale = qscale(d.qst, q);
        }
        d.cbp = 0x3f;
        d.block = 0;
        d.phase = Phase::BlockStart;
        Ok(())
    }

    /// An intra block's DC: dct_dc_size, then that many bits of differential.
    fn dec_dc(&mut self, d: &mut Dec) -> Result<(), Step> {
        let t = tables();
        let cc = d.block.saturating_sub(3);
        let mut c = Cursor::new(&self.fifo);
        let size = vlc_get(&mut c, if cc == 0 { &t.dc_luma } else { &t.dc_chroma })? as u32;
        let diff = if size == 0 {
            0
        } else {
            let v = c.get(size)? as i32;
            // A leading 0 bit means negative: v - (2^size - 1).
            if v & (1 << (size - 1)) == 0 {
                v - ((1 << size) - 1)
            } else {
                v
            }
        };
        let n = c.pos();
        self.fifo.consume(n);
        // Bounded so that a long run of bad differentials cannot overflow.
        let p = (self.dc_pred[cc] + diff).clamp(-65536, 65536);
        self.dc_pred[cc] = p;
        // intra_dc_mult = 8 >> IDP.
        d.coefs[0] = (p << (3 - d.idp)).clamp(-2048, 2047);
        d.idx = 1;
        d.phase = Phase::Ac;
        Ok(())
    }

    /// AC coefficients (and a non-intra block's first), one per pass, until the end of block.
    fn dec_ac(&mut self, d: &mut Dec) -> Result<(), Step> {
        let t = tables();
        loop {
            let table: &Vlc<Coef> = if d.intra && d.ivf && !d.mpeg1 {
                &t.dct_one
            } else if !d.intra && d.idx == 0 {
                &t.dct_zero_first
            } else {
                &t.dct_zero
            };
            let mut c = Cursor::new(&self.fifo);
            let sym = vlc_get(&mut c, table)?;
            let (run, level) = match sym {
                Coef::Eob => {
                    let n = c.pos();
                    self.fifo.consume(n);
                    d.phase = Phase::BlockEnd;
                    return Ok(());
                }
                Coef::RunLevel(r, l) => {
                    let s = c.get(1)?;
                    (r as usize, if s == 1 { -(l as i32) } else { l as i32 })
                }
                Coef::Escape => {
                    let r = c.get(6)? as usize;
                    let l = if d.mpeg1 {
                        // MPEG-1: 8 bits signed; 0x00 and 0x80 extend to 16 bits.
                        let v = c.get(8)? as i32;
                        match v {
                            0 => c.get(8)? as i32,
                            0x80 => c.get(8)? as i32 - 256,
                            v => (v as u8 as i8) as i32,
                        }
                    } else {
                        // MPEG-2: 12 bits signed.
                        let v = c.get(12)? as i32;
                        (v << 20) >> 20
                    };
                    (r, l)
                }
            };
            let i = d.idx + run;
            if i >= 64 {
                // A run past the last coefficient.
                return Err(Step::Error);
            }
            let n = c.pos();
            self.fifo.consume(n);
            let scan = if d.alt { &ALTERNATE } else { &ZIGZAG };
            d.coefs[scan[i] as usize] = self.dequant(d, i, level);
            d.idx = i + 1;
        }
    }

    /// Inverse quantisation (7.4.2) of the coefficient at scan position `i`. The weight is the
    /// matrix entry at the scan position (the matrix is loaded in scan order by SETIQ), as both
    /// PCSX2 and Play! index it. Saturated to -2048..=2047; MPEG-1 makes non-zero values odd
    /// (towards zero).
    fn dequant(&self, d: &Dec, i: usize, level: i32) -> i32 {
        let w = if d.intra { self.iq[i] } else { self.niq[i] } as i32;
        let mag = level.abs();
        let mut f = if d.intra {
            (mag * w * d.qscale) >> 4
        } else {
            ((2 * mag + 1) * w * d.qscale) >> 5
        };
        if d.mpeg1 && f != 0 && f & 1 == 0 {
            f -= 1;
        }
        let f = if level < 0 { -f } else { f };
        f.clamp(-2048, 2047)
    }

    /// The decoded macroblock into the output: IDEC converts to RGB32/RGB16; BDEC writes raw16
    /// (Y 16x16, then Cb and Cr 8x8, signed 16-bit).
    fn dec_output(&mut self, d: &Dec) {
        let mut y = [0i32; 256];
        for b in 0..4 {
            let bx = (b & 1) * 8;
            for r in 0..8 {
                // Field DCT: blocks 0/1 hold the even lines, 2/3 the odd ones.
                let row = if d.field {
                    (b >> 1) + 2 * r
                } else {
                    (b >> 1) * 8 + r
                };
                for c in 0..8 {
                    y[row * 16 + bx + c] = d.samples[b][r * 8 + c];
                }
            }
        }
        if d.idec {
            let mut raw = [0u8; 384];
            for (o, v) in raw.iter_mut().zip(
                y.iter()
                    .chain(d.samples[4].iter())
                    .chain(d.samples[5].iter()),
            ) {
                *o = (*v).clamp(0, 255) as u8;
            }
            let mut px = csc::csc(&raw, self.th);
            if d.sgn {
                // SGN: RGB as signed values (each channel minus 128).
                for p in px.iter_mut() {
                    *p ^= 0x0080_8080;
                }
            }
            self.emit_rgb(&px, d.ofm, d.dte);
        } else {
            let v: Vec<u16> = y
                .iter()
                .chain(d.samples[4].iter())
                .chain(d.samples[5].iter())
                .map(|&s| s as i16 as u16)
                .collect();
            self.emit_u16(&v);
        }
    }

    /// IDEC between macroblocks: macroblock_address_increment (escapes add 33, MPEG-1 stuffing
    /// is skipped). An increment above 1 skips macroblocks, which resets the DC predictors. Any
    /// other bits end the slice.
    fn dec_mbai(&mut self, d: &mut Dec) -> Result<(), Step> {
        let (bits, avail) = self.fifo.peek_padded(0, 11);
        match tables().mba.lookup(bits, avail) {
            Lookup::NeedMore => Err(Step::Wait),
            Lookup::Invalid => {
                d.phase = Phase::EndCheck;
                Ok(())
            }
            Lookup::Found(len, v) => {
                if v == vlc::MBA_VALUE_STUFFING && !d.mpeg1 {
                    d.phase = Phase::EndCheck;
                    return Ok(());
                }
                self.fifo.consume(len);
                if v == vlc::MBA_VALUE_ESCAPE {
                    d.escapes += 1;
                } else if v != vlc::MBA_VALUE_STUFFING {
                    if v as u32 + 33 * d.escapes > 1 {
                        self.dc_pred = [128 << d.idp; 3];
                    }
                    d.escapes = 0;
                    d.phase = Phase::Header;
                }
                Ok(())
            }
        }
    }
}

fn qscale(qst: bool, code: u32) -> i32 {
    if qst {
        NON_LINEAR_QSCALE[(code & 31) as usize] as i32
    } else {
        2 * (code & 31) as i32
    }
}

/// Decode one symbol of `t` at the cursor.
fn vlc_get<T: Copy + Default>(c: &mut Cursor, t: &Vlc<T>) -> Result<T, Step> {
    let (bits, avail) = c.peek(t.max_len());
    match t.lookup(bits, avail) {
        Lookup::Found(len, v) => {
            c.skip(len);
            Ok(v)
        }
        Lookup::NeedMore => Err(Step::Wait),
        Lookup::Invalid => Err(Step::Error),
    }
}
