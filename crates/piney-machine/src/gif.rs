//! The GIF: the three paths into the GS, their arbitration, GIFtag parsing and the conversion of
//! PACKED data into GS register writes.
//!
//! Contract:
//! - Data enters by path: PATH1 (VU1 XGKICK), PATH2 (VIF1 DIRECT/DIRECTHL), PATH3 (DMA channel 2 or
//!   the GIF FIFO at 0x1000_6000), one queue per path ([`Gif::push`]). [`Gif::pump`] moves queued
//!   qwords to the [`GsSink`] as a stream of `(register, value)` writes and IMAGE qwords.
//! - Arbitration (EE User's Manual, "GIF"): a path that starts a packet keeps the GIF until the
//!   GIFtag with EOP has had all its data. Between packets the highest-priority path with data wins:
//!   PATH1, then PATH2, then PATH3. PATH3 is masked (MSKPATH3 from VIF1, or GIF_MODE.M3R) only at a
//!   packet boundary. In intermittent mode (GIF_MODE.IMT) PATH3 IMAGE data gives the GIF up every
//!   8 qwords to a waiting PATH1, or to PATH2 unless PATH2's data came from DIRECTHL.
//! - Writes to SIGNAL (0x60), FINISH (0x61) and LABEL (0x62) are the GS privileged-register events:
//!   they are collected in [`Gif::priv_events`] for the bus to apply to CSR/SIGLBLID and INTC, and
//!   also passed to the sink.
//! - Bad data never panics: any bit pattern is a valid GIF stream.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// GIF_CTRL (write): RST bit 0, PSE bit 3.
pub const GIF_CTRL: u32 = 0x1000_3000;
/// GIF_MODE (write): M3R bit 0, IMT bit 2.
pub const GIF_MODE: u32 = 0x1000_3010;
/// GIF_STAT (read).
pub const GIF_STAT: u32 = 0x1000_3020;
/// GIF_TAG0..3 (read): the GIFtag being processed, by word.
pub const GIF_TAG0: u32 = 0x1000_3040;
/// GIF_CNT (read): LOOPCNT bits 0-14, REGCNT bits 16-19, VUADDR bits 20-29.
pub const GIF_CNT: u32 = 0x1000_3080;
/// GIF_P3CNT (read): PATH3's loop count when it was interrupted.
pub const GIF_P3CNT: u32 = 0x1000_3090;
/// GIF_P3TAG (read): PATH3's tag: LOOPCNT bits 0-14, EOP bit 15.
pub const GIF_P3TAG: u32 = 0x1000_30a0;

/// GS register numbers that are privileged-register events.
pub mod gsreg {
    /// PRIM.
    pub const PRIM: u8 = 0x00;
    /// RGBAQ.
    pub const RGBAQ: u8 = 0x01;
    /// ST.
    pub const ST: u8 = 0x02;
    /// UV.
    pub const UV: u8 = 0x03;
    /// XYZF2.
    pub const XYZF2: u8 = 0x04;
    /// XYZ2.
    pub const XYZ2: u8 = 0x05;
    /// FOG.
    pub const FOG: u8 = 0x0a;
    /// XYZF3.
    pub const XYZF3: u8 = 0x0c;
    /// XYZ3.
    pub const XYZ3: u8 = 0x0d;
    /// SIGNAL: sets CSR.SIGNAL and SIGLBLID.SIGID.
    pub const SIGNAL: u8 = 0x60;
    /// FINISH: sets CSR.FINISH.
    pub const FINISH: u8 = 0x61;
    /// LABEL: sets SIGLBLID.LBLID.
    pub const LABEL: u8 = 0x62;
}

/// Where the GIF's output goes: the GS.
pub trait GsSink: Send {
    /// A write of `value` to GS register `reg`.
    fn write_reg(&mut self, reg: u8, value: u64);
    /// One qword of IMAGE-mode data (to HWREG, the host -> local transfer).
    fn write_image(&mut self, qword: u128);
    /// The GS itself, when this sink is it (for frames).
    fn gs_unit(&mut self) -> Option<&mut crate::gsunit::GsUnit> {
        None
    }
}

/// One item of GIF output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GsWrite {
    /// A register write.
    Reg(u8, u64),
    /// An IMAGE qword.
    Image(u128),
}

/// A [`GsSink`] that records everything into a shared log (for tests and tools).
#[derive(Debug, Clone, Default)]
pub struct RecordingSink {
    /// The writes so far, in order.
    pub log: Arc<Mutex<Vec<GsWrite>>>,
}

impl RecordingSink {
    /// A sink and a handle on its log.
    pub fn new() -> (Self, Arc<Mutex<Vec<GsWrite>>>) {
        let s = Self::default();
        let h = s.log.clone();
        (s, h)
    }
}

impl GsSink for RecordingSink {
    fn write_reg(&mut self, reg: u8, value: u64) {
        if let Ok(mut l) = self.log.lock() {
            l.push(GsWrite::Reg(reg, value));
        }
    }
    fn write_image(&mut self, qword: u128) {
        if let Ok(mut l) = self.log.lock() {
            l.push(GsWrite::Image(qword));
        }
    }
}

/// A [`GsSink`] that drops everything (the default until a GS is attached).
#[derive(Debug, Default)]
pub struct NullSink;

impl GsSink for NullSink {
    fn write_reg(&mut self, _: u8, _: u64) {}
    fn write_image(&mut self, _: u128) {}
}

/// The data formats of a GIFtag's FLG field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Flg {
    /// FLG 0: each qword is one register, converted by its descriptor.
    #[default]
    Packed,
    /// FLG 1: each 64-bit half is one register's raw value.
    Reglist,
    /// FLG 2 (and 3): the qwords go to HWREG.
    Image,
}

/// One path's GIFtag state.
#[derive(Debug, Clone, Copy, Default)]
struct PathState {
    /// Loops left; 0 means the next qword is a GIFtag.
    nloop: u32,
    nreg: u32,
    regs: u64,
    /// The descriptor index within one loop.
    reg: u32,
    flg: Flg,
    eop: bool,
    /// The path holds the GIF (a packet started and its EOP tag's data is not done).
    in_packet: bool,
}

/// Path numbers as indices (0 = PATH1, 1 = PATH2, 2 = PATH3).
pub mod path {
    /// PATH1: VU1 XGKICK.
    pub const P1: usize = 0;
    /// PATH2: VIF1 DIRECT/DIRECTHL.
    pub const P2: usize = 1;
    /// PATH3: GIF DMA (channel 2) and the GIF FIFO.
    pub const P3: usize = 2;
}

/// The GIF FIFO holds 16 qwords: PATH3 takes no more than that ahead of the GS.
pub const PATH3_FIFO_QWORDS: usize = 16;

/// The GIF.
pub struct Gif {
    /// GIF_MODE (M3R bit 0, IMT bit 2).
    pub mode: u32,
    /// GIF_CTRL.PSE: transfers paused.
    pub paused: bool,
    /// MSKPATH3 from VIF1 (GIF_STAT.M3P).
    pub mskpath3: bool,
    /// The data of PATH2's current queue came from DIRECTHL (it does not interrupt PATH3 IMAGE).
    pub path2_hl: bool,
    paths: [PathState; 3],
    queues: [VecDeque<u128>; 3],
    owner: Option<usize>,
    /// Qwords of PATH3 IMAGE data since it last took the GIF (for IMT's 8-qword slices).
    imt_count: u32,
    /// PATH3 was interrupted in intermittent mode (GIF_STAT.IP3).
    ip3: bool,
    /// The Q value the last ST left, for RGBAQ (float bits; 1.0 at each GIFtag).
    q: u32,
    /// The last GIFtag read on any path (GIF_TAG0..3).
    last_tag: u128,
    last_path: usize,
    /// SIGNAL/FINISH/LABEL writes not yet applied to the privileged registers.
    pub priv_events: Vec<(u8, u64)>,
    /// Where the output goes.
    pub sink: Box<dyn GsSink>,
    /// Words of a GIF FIFO quadword written 32 bits at a time.
    fifo_acc: [u32; 4],
    fifo_fill: usize,
}

impl Default for Gif {
    fn default() -> Self {
        Self::new(Box::new(NullSink))
    }
}

impl std::fmt::Debug for Gif {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gif")
            .field("mode", &self.mode)
            .field("owner", &self.owner)
            .finish_non_exhaustive()
    }
}

/// 1.0f, the Q of each new GIFtag.
const ONE_F32: u32 = 0x3f80_0000;

impl Gif {
    /// A reset GIF writing to `sink`.
    pub fn new(sink: Box<dyn GsSink>) -> Self {
        Self {
            mode: 0,
            paused: false,
            mskpath3: false,
            path2_hl: false,
            paths: [PathState::default(); 3],
            queues: Default::default(),
            owner: None,
            imt_count: 0,
            ip3: false,
            q: ONE_F32,
            last_tag: 0,
            last_path: 0,
            priv_events: Vec::new(),
            sink,
            fifo_acc: [0; 4],
            fifo_fill: 0,
        }
    }

    /// GIF_CTRL.RST: every path and queue cleared; the sink is kept.
    pub fn reset(&mut self) {
        let sink = std::mem::replace(&mut self.sink, Box::new(NullSink));
        *self = Self::new(sink);
    }

    /// Replace the sink.
    pub fn set_sink(&mut self, sink: Box<dyn GsSink>) {
        self.sink = sink;
    }

    /// Queue qwords on a path (`path::P1..P3`). Nothing moves until [`Gif::pump`].
    pub fn push(&mut self, p: usize, data: &[u128]) {
        if let Some(q) = self.queues.get_mut(p) {
            q.extend(data.iter().copied());
        }
    }

    /// Collect one word written to the GIF FIFO; returns the quadword once four have come.
    pub fn fifo_word(&mut self, w: u32) -> Option<u128> {
        self.fifo_acc[self.fifo_fill] = w;
        self.fifo_fill += 1;
        if self.fifo_fill < 4 {
            return None;
        }
        self.fifo_fill = 0;
        Some(
            self.fifo_acc
                .iter()
                .rev()
                .fold(0u128, |a, &w| a << 32 | w as u128),
        )
    }

    /// How many qwords PATH3's FIFO can take now.
    pub fn path3_room(&self) -> usize {
        PATH3_FIFO_QWORDS.saturating_sub(self.queues[path::P3].len())
    }

    /// Whether a path has nothing queued and is not inside a packet.
    pub fn path_idle(&self, p: usize) -> bool {
        self.queues[p].is_empty() && !self.paths[p].in_packet
    }

    /// Whether PATH3 is masked (MSKPATH3 or GIF_MODE.M3R).
    pub fn path3_masked(&self) -> bool {
        self.mskpath3 || self.mode & 1 != 0
    }

    /// Which path holds the GIF now, if any.
    pub fn active_path(&self) -> Option<usize> {
        self.owner
    }

    /// Whether PATH3 is inside an IMAGE-mode packet (DIRECTHL waits for it).
    pub fn path3_in_image(&self) -> bool {
        let s = &self.paths[path::P3];
        s.in_packet && s.nloop > 0 && s.flg == Flg::Image
    }

    fn pick(&self) -> Option<usize> {
        (0..3).find(|&p| !(self.queues[p].is_empty() || p == path::P3 && self.path3_masked()))
    }

    /// Move queued data to the sink, by the arbitration rules, as far as it goes.
    pub fn pump(&mut self) {
        if self.paused {
            return;
        }
        loop {
            let p = match self.owner {
                Some(p) => p,
                None => match self.pick() {
                    Some(p) => p,
                    None => return,
                },
            };
            // A path inside a packet whose data has not arrived keeps the GIF and everything waits.
            let Some(q) = self.queues[p].pop_front() else {
                return;
            };
            if self.owner != Some(p) && p == path::P3 {
                self.imt_count = 0;
            }
            self.owner = Some(p);
            let was_image = self.paths[p].nloop > 0 && self.paths[p].flg == Flg::Image;
            self.process(p, q);
            if !self.paths[p].in_packet {
                self.owner = None;
                if p == path::P3 {
                    self.ip3 = false;
                }
                continue;
            }
            // IMT: PATH3 IMAGE data yields every 8 qwords to a waiting PATH1 / PATH2 (not DIRECTHL).
            if p == path::P3 && self.mode & 4 != 0 && was_image {
                self.imt_count += 1;
                if self.imt_count >= 8 {
                    self.imt_count = 0;
                    let p1 = !self.queues[path::P1].is_empty();
                    let p2 = !self.queues[path::P2].is_empty() && !self.path2_hl;
                    if p1 || p2 {
                        // PATH3 keeps its tag state and resumes once the others are done.
                        self.owner = None;
                        self.ip3 = true;
                        let next = if p1 { path::P1 } else { path::P2 };
                        self.run_until_free(next);
                    }
                }
            }
        }
    }

    /// Let `p` run one whole packet while PATH3 is interrupted.
    fn run_until_free(&mut self, p: usize) {
        while let Some(q) = self.queues[p].pop_front() {
            self.owner = Some(p);
            self.process(p, q);
            if !self.paths[p].in_packet {
                break;
            }
        }
        // PATH3 takes the GIF back (its packet is still open).
        self.owner = Some(path::P3);
    }

    fn emit(&mut self, reg: u8, value: u64) {
        if matches!(reg, gsreg::SIGNAL | gsreg::FINISH | gsreg::LABEL) {
            self.priv_events.push((reg, value));
        }
        self.sink.write_reg(reg, value);
    }

    /// One qword of path `p`.
    fn process(&mut self, p: usize, qw: u128) {
        let st = self.paths[p];
        if st.nloop == 0 {
            self.read_tag(p, qw);
            return;
        }
        match st.flg {
            Flg::Packed => {
                let desc = ((st.regs >> (4 * st.reg)) & 0xf) as u8;
                self.packed(desc, qw);
                self.advance_reg(p);
            }
            Flg::Reglist => {
                for half in [qw as u64, (qw >> 64) as u64] {
                    let s = self.paths[p];
                    if s.nloop == 0 {
                        // The odd last register's qword is padded.
                        break;
                    }
                    let desc = ((s.regs >> (4 * s.reg)) & 0xf) as u8;
                    // In REGLIST mode A+D (0xe) and NOP (0xf) write nothing.
                    if desc < 0xe {
                        self.emit(desc, half);
                    }
                    self.advance_reg(p);
                }
            }
            Flg::Image => {
                self.sink.write_image(qw);
                self.paths[p].nloop -= 1;
            }
        }
        self.end_check(p);
    }

    fn advance_reg(&mut self, p: usize) {
        let s = &mut self.paths[p];
        s.reg += 1;
        if s.reg >= s.nreg {
            s.reg = 0;
            s.nloop -= 1;
        }
    }

    fn end_check(&mut self, p: usize) {
        let s = &mut self.paths[p];
        if s.nloop == 0 && s.eop {
            s.in_packet = false;
        }
    }

    /// GIFtag: NLOOP bits 0-14, EOP bit 15, PRE bit 46, PRIM bits 47-57, FLG bits 58-59, NREG
    /// bits 60-63 (0 means 16), REGS bits 64-127.
    fn read_tag(&mut self, p: usize, tag: u128) {
        let lo = tag as u64;
        let nloop = (lo & 0x7fff) as u32;
        let eop = lo & 0x8000 != 0;
        let pre = (lo >> 46) & 1 != 0;
        let prim = (lo >> 47) & 0x7ff;
        let flg = match (lo >> 58) & 3 {
            0 => Flg::Packed,
            1 => Flg::Reglist,
            _ => Flg::Image,
        };
        let nreg = match (lo >> 60) as u32 {
            0 => 16,
            n => n,
        };
        self.last_tag = tag;
        self.last_path = p;
        self.paths[p] = PathState {
            nloop,
            nreg,
            regs: (tag >> 64) as u64,
            reg: 0,
            flg,
            eop,
            in_packet: true,
        };
        // Q is reset to 1.0 by every GIFtag.
        self.q = ONE_F32;
        if pre && flg == Flg::Packed {
            self.emit(gsreg::PRIM, prim);
        }
        self.end_check(p);
    }

    /// PACKED-mode conversion of one qword by register descriptor `desc` (GS User's Manual,
    /// "PACKED Mode").
    fn packed(&mut self, desc: u8, qw: u128) {
        let w = |i: u32| (qw >> (32 * i)) as u32 as u64;
        let lo = qw as u64;
        match desc {
            // PRIM: bits 0-10.
            0x0 => self.emit(gsreg::PRIM, lo & 0x7ff),
            // RGBAQ: R, G, B, A in the low bytes of the four words; Q from the last ST.
            0x1 => {
                let v =
                    (w(0) & 0xff) | (w(1) & 0xff) << 8 | (w(2) & 0xff) << 16 | (w(3) & 0xff) << 24;
                let q = self.q as u64;
                self.emit(gsreg::RGBAQ, v | q << 32);
            }
            // ST: S and T as given; Q (word 2) is kept for the next RGBAQ.
            0x2 => {
                self.q = w(2) as u32;
                self.emit(gsreg::ST, lo);
            }
            // UV: 14-bit U and V.
            0x3 => self.emit(gsreg::UV, (w(0) & 0x3fff) | (w(1) & 0x3fff) << 16),
            // XYZF2: X, Y 16 bits; Z bits 4-27 of word 2; F bits 4-11 of word 3; ADC (bit 111)
            // makes it XYZF3 (no drawing kick).
            0x4 | 0xc => {
                let adc = w(3) >> 15 & 1 != 0;
                let v = (w(0) & 0xffff)
                    | (w(1) & 0xffff) << 16
                    | ((w(2) >> 4) & 0xff_ffff) << 32
                    | ((w(3) >> 4) & 0xff) << 56;
                let reg = if desc == 0xc || adc {
                    gsreg::XYZF3
                } else {
                    gsreg::XYZF2
                };
                self.emit(reg, v);
            }
            // XYZ2: X, Y 16 bits; Z the whole word 2; ADC makes it XYZ3.
            0x5 | 0xd => {
                let adc = w(3) >> 15 & 1 != 0;
                let v = (w(0) & 0xffff) | (w(1) & 0xffff) << 16 | w(2) << 32;
                let reg = if desc == 0xd || adc {
                    gsreg::XYZ3
                } else {
                    gsreg::XYZ2
                };
                self.emit(reg, v);
            }
            // TEX0_1, TEX0_2, CLAMP_1, CLAMP_2: the low 64 bits as they are.
            0x6..=0x9 => self.emit(desc, lo),
            // FOG: F in bits 100-107.
            0xa => self.emit(gsreg::FOG, ((w(3) >> 4) & 0xff) << 56),
            // A+D: the register number in bits 64-71, the value in the low 64 bits.
            0xe => self.emit((qw >> 64) as u8, lo),
            // 0xb is reserved and 0xf is NOP: nothing is written.
            _ => {}
        }
    }

    /// Read a GIF register (physical address).
    pub fn read(&self, p: u32) -> u32 {
        match p {
            GIF_MODE => self.mode,
            GIF_STAT => self.stat(),
            0x1000_3040..=0x1000_307f => (self.last_tag >> (32 * ((p - GIF_TAG0) >> 4))) as u32,
            GIF_CNT => {
                let s = &self.paths[self.last_path];
                (s.nloop & 0x7fff) | (s.reg & 0xf) << 16
            }
            GIF_P3CNT => self.paths[path::P3].nloop & 0x7fff,
            GIF_P3TAG => {
                let s = &self.paths[path::P3];
                (s.nloop & 0x7fff) | (s.eop as u32) << 15
            }
            _ => 0,
        }
    }

    /// GIF_STAT: M3R 0, M3P 1, IMT 2, PSE 3, IP3 5, P3Q 6, P2Q 7, P1Q 8, OPH 9, APATH 10-11,
    /// DIR 12, FQC 24-28.
    pub fn stat(&self) -> u32 {
        let mut s = self.mode & 1;
        s |= (self.mskpath3 as u32) << 1;
        s |= self.mode & 4;
        s |= (self.paused as u32) << 3;
        s |= (self.ip3 as u32) << 5;
        s |= (!self.queues[path::P3].is_empty() as u32) << 6;
        s |= (!self.queues[path::P2].is_empty() as u32) << 7;
        s |= (!self.queues[path::P1].is_empty() as u32) << 8;
        if let Some(p) = self.owner {
            s |= 1 << 9;
            s |= (p as u32 + 1) << 10;
        }
        s |= (self.queues[path::P3].len().min(16) as u32) << 24;
        s
    }

    /// Write a GIF register (physical address).
    pub fn write(&mut self, p: u32, v: u32) {
        match p {
            GIF_CTRL => {
                if v & 1 != 0 {
                    self.reset();
                }
                self.paused = v & 8 != 0;
                if !self.paused {
                    self.pump();
                }
            }
            GIF_MODE => {
                self.mode = v & 5;
                self.pump();
            }
            _ => {}
        }
    }
}
