//! The GIF: the three paths into the GS and their arbitration. Each path's packets are decoded
//! (GIFtags, PACKED conversion, REGLIST, IMAGE) by piney-gs's [`GifPath`], the decoder dump
//! replay uses too, so a live run and `piney replay` turn the same data into the same writes.
//!
//! Contract:
//! - Data enters by path: PATH1 (VU1 XGKICK), PATH2 (VIF1 DIRECT/DIRECTHL), PATH3 (DMA channel 2 or
//!   the GIF FIFO at 0x1000_6000), one queue per path ([`Gif::push`]). [`Gif::pump`] moves queued
//!   qwords to the GS ([`Gif::gs`], the [`GsUnit`]) as a stream of `(register, value)` writes
//!   and IMAGE qwords.
//! - Arbitration (EE User's Manual, "GIF"): a path that starts a packet keeps the GIF until the
//!   GIFtag with EOP has had all its data. Between packets the highest-priority path with data wins:
//!   PATH1, then PATH2, then PATH3. PATH3 is masked (MSKPATH3 from VIF1, or GIF_MODE.M3R) only at a
//!   packet boundary. In intermittent mode (GIF_MODE.IMT) PATH3 IMAGE data gives the GIF up every
//!   8 qwords to a waiting PATH1, or to PATH2 unless PATH2's data came from DIRECTHL.
//! - PATH1 takes time. VU1 runs a microprogram to its end at once, so its XGKICKs are timed: the
//!   runner hands each packet over with the VU cycles from the run's start to the XGKICK
//!   ([`Gif::push_path1_after`]), the start's EE cycle anchors them ([`Gif::path1_anchor`]), and a
//!   packet reaches PATH1's queue only when the EE clock gets there ([`Gif::path1_arrive`], from
//!   the timed [`crate::scheduler::Event::Path1`]). Once queued, the GIF moves PATH1 qwords to
//!   the GS only as [`Gif::path1_release`] allows; the machine releases them at
//!   [`PATH1_CYCLES_PER_QWORD`], in slices of [`PATH1_SLICE_QWORDS`]
//!   ([`crate::bus::EeBus::path1_step`]). PATH1 asks for the GIF when its packet is queued; once
//!   granted it holds the GIF (GIF_STAT.APATH = 1, OPH) until its EOP tag's data has crossed, so
//!   PATH2 and PATH3 wait, as on the console.
//! - The GS's local->host data (TRXDIR = 1) comes back from the GS ([`GsUnit::read_image`]),
//!   for VIF1's FIFO when STAT.FDR turns it round; GIF_STAT.DIR (bit 12) reads 1 while some waits.
//! - Writes to SIGNAL (0x60), FINISH (0x61) and LABEL (0x62) set the GS's CSR and SIGLBLID (in
//!   the GS, the one model of its registers); SIGNAL and FINISH are also collected in
//!   [`Gif::priv_events`] for the bus to raise the GS interrupt. A SIGNAL while CSR.SIGNAL is
//!   still set stalls the GIF until the CPU clears it (GS User's Manual, SIGNAL; ps2autotests
//!   gs/signal).
//! - Bad data never panics: any bit pattern is a valid GIF stream.

use std::collections::VecDeque;

use piney_gs::gif::{GifPath, GifSink};
use piney_gs::gs::csr;

use crate::gsunit::GsUnit;

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

/// GS register numbers, from the GS's own table: the PACKED conversions emit them, and SIGNAL,
/// FINISH and LABEL are privileged-register events.
pub use piney_gs::gs::reg as gsreg;

pub use crate::gsunit::GsWrite;

/// The GIF's output for one qword: the GS, and the interrupt events of SIGNAL and FINISH.
struct Emit<'a> {
    gs: &'a mut GsUnit,
    priv_events: &'a mut Vec<(u8, u64)>,
}

impl GifSink for Emit<'_> {
    fn write_reg(&mut self, reg: u8, value: u64) {
        // A SIGNAL while CSR.SIGNAL is still set waits (the GIF stalls) and raises nothing
        // until the CPU clears it.
        let waits = reg == gsreg::SIGNAL && self.gs.gs.privileged.csr & csr::SIGNAL != 0;
        self.gs.write_reg(reg, value);
        if matches!(reg, gsreg::SIGNAL | gsreg::FINISH) && !waits {
            self.priv_events.push((reg, value));
        }
    }
    fn write_image(&mut self, qword: u128) {
        self.gs.write_image(qword);
    }
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

/// EE cycles per PATH1 qword. A choice, documented, deterministic: the GIF's path from VU1 data
/// memory is 128 bits wide at BUSCLK (147.456 MHz), the same rate the DMAC model uses.
pub const PATH1_CYCLES_PER_QWORD: u64 = 2;
/// PATH1 qwords moved per timed event.
pub const PATH1_SLICE_QWORDS: usize = 8;

/// The GIF.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct Gif {
    /// GIF_MODE (M3R bit 0, IMT bit 2).
    pub mode: u32,
    /// GIF_CTRL.PSE: transfers paused.
    pub paused: bool,
    /// MSKPATH3 from VIF1 (GIF_STAT.M3P).
    pub mskpath3: bool,
    /// The data of PATH2's current queue came from DIRECTHL (it does not interrupt PATH3 IMAGE).
    pub path2_hl: bool,
    /// Each path's packet decoding (piney-gs's, shared with dump replay).
    paths: [GifPath; 3],
    queues: [VecDeque<u128>; 3],
    owner: Option<usize>,
    /// Qwords of PATH3 IMAGE data since it last took the GIF (for IMT's 8-qword slices).
    imt_count: u32,
    /// PATH3 was interrupted in intermittent mode (GIF_STAT.IP3).
    ip3: bool,
    /// The last GIFtag read on any path (GIF_TAG0..3).
    last_tag: u128,
    last_path: usize,
    /// SIGNAL and FINISH events whose interrupt the bus has not raised yet.
    pub priv_events: Vec<(u8, u64)>,
    /// The GS the GIF feeds (a save state holds it apart: [`GsUnit::save_state`]).
    #[serde(skip, default = "GsUnit::new")]
    pub gs: GsUnit,
    /// Words of a GIF FIFO quadword written 32 bits at a time.
    fifo_acc: [u32; 4],
    fifo_fill: usize,
    /// PATH1 qwords whose transfer time has passed: the GIF may take that many from PATH1's queue.
    p1_ready: usize,
    /// XGKICKed packets of a VU1 run not yet anchored in time: (VU cycles after the run's start,
    /// the packet).
    p1_staged: Vec<(u64, Vec<u128>)>,
    /// XGKICKed packets waiting for their EE cycle, in order: (cycle, the packet).
    p1_timed: VecDeque<(u64, Vec<u128>)>,
    /// PATH1 qwords whose transfer is under way (the slice the pending PATH1 event lets cross).
    p1_inflight: usize,
}

impl Default for Gif {
    fn default() -> Self {
        Self::new(GsUnit::new())
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

impl Gif {
    /// Whether every GIF path is between packets (the next qword each takes is a GIFtag).
    pub fn paths_idle(&self) -> bool {
        self.paths.iter().all(|p| p.idle() && !p.in_packet())
    }

    /// A reset GIF feeding `gs`.
    pub fn new(gs: GsUnit) -> Self {
        Self {
            mode: 0,
            paused: false,
            mskpath3: false,
            path2_hl: false,
            paths: [GifPath::new(); 3],
            queues: Default::default(),
            owner: None,
            imt_count: 0,
            ip3: false,
            last_tag: 0,
            last_path: 0,
            priv_events: Vec::new(),
            gs,
            fifo_acc: [0; 4],
            fifo_fill: 0,
            p1_ready: 0,
            p1_staged: Vec::new(),
            p1_timed: VecDeque::new(),
            p1_inflight: 0,
        }
    }

    /// GIF_CTRL.RST: every path and queue cleared; the GS is kept.
    pub fn reset(&mut self) {
        let gs = std::mem::take(&mut self.gs);
        *self = Self::new(gs);
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

    /// An XGKICKed packet for PATH1, issued `vu_cycles` after the start of the VU1 run that kicks
    /// it; it waits until [`Gif::path1_anchor`] gives that start's EE cycle.
    pub fn push_path1_after(&mut self, vu_cycles: u64, data: &[u128]) {
        self.p1_staged.push((vu_cycles, data.to_vec()));
    }

    /// The VU1 run whose packets are staged started at EE cycle `start`. VU1 runs at the EE
    /// core's clock (294.912 MHz; PCSX2 likewise advances VU1 by the EE cycles elapsed,
    /// `cpuRegs.cycle - VU1.cycle`), so a VU cycle is an EE cycle: each packet is due at
    /// `start + vu_cycles`.
    pub fn path1_anchor(&mut self, start: u64) {
        for (after, data) in self.p1_staged.drain(..) {
            let at = start.saturating_add(after);
            // Later runs start after earlier ones end: the queue stays in time order, but keep
            // it so whatever the caller does.
            let pos = self.p1_timed.partition_point(|&(t, _)| t <= at);
            self.p1_timed.insert(pos, (at, data));
        }
    }

    /// Queue on PATH1 the XGKICKed packets due by EE cycle `now`, then pump. Returns whether any
    /// came.
    pub fn path1_arrive(&mut self, now: u64) -> bool {
        let mut any = false;
        while self.p1_timed.front().is_some_and(|&(t, _)| t <= now) {
            if let Some((_, data)) = self.p1_timed.pop_front() {
                self.queues[path::P1].extend(data);
                any = true;
            }
        }
        if any {
            self.pump();
        }
        any
    }

    /// Drop the XGKICKed packets due after EE cycle `now` (VU1 was reset before it reached
    /// those XGKICKs).
    pub fn path1_drop_after(&mut self, now: u64) {
        self.p1_staged.clear();
        self.p1_timed.retain(|&(t, _)| t <= now);
    }

    /// The EE cycle at which the next XGKICKed packet is due, if one waits.
    pub fn path1_next_arrival(&self) -> Option<u64> {
        self.p1_timed.front().map(|&(t, _)| t)
    }

    /// PATH1 qwords queued whose transfer time has not yet passed.
    pub fn path1_backlog(&self) -> usize {
        self.queues[path::P1].len().saturating_sub(self.p1_ready)
    }

    /// Let `n` more PATH1 qwords cross to the GS (their transfer time has passed), then pump.
    /// Returns how many were released.
    pub fn path1_release(&mut self, n: usize) -> usize {
        let n = n.min(self.path1_backlog());
        self.p1_ready += n;
        self.pump();
        n
    }

    /// Let every queued PATH1 qword cross at once (a test or tool that drives the GIF without a
    /// machine's clock).
    pub fn path1_release_all(&mut self) {
        let n = self.path1_backlog();
        self.path1_release(n);
    }

    /// How many qwords PATH3's FIFO can take now.
    pub fn path3_room(&self) -> usize {
        PATH3_FIFO_QWORDS.saturating_sub(self.queues[path::P3].len())
    }

    /// Whether a path has nothing queued and is not inside a packet (PATH1: and no XGKICKed
    /// packet waits for its time).
    pub fn path_idle(&self, p: usize) -> bool {
        self.queues[p].is_empty()
            && !self.paths[p].in_packet()
            && (p != path::P1 || self.p1_staged.is_empty() && self.p1_timed.is_empty())
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
        s.in_packet() && s.in_image()
    }

    fn pick(&self) -> Option<usize> {
        (0..3).find(|&p| !(self.queues[p].is_empty() || p == path::P3 && self.path3_masked()))
    }

    /// Move queued data to the GS, by the arbitration rules, as far as it goes.
    pub fn pump(&mut self) {
        if self.paused {
            return;
        }
        loop {
            // A SIGNAL waiting for CSR.SIGNAL to clear holds everything behind it.
            if self.gs.signal_stalled() {
                return;
            }
            let p = match self.owner {
                Some(p) => p,
                None => match self.pick() {
                    Some(p) => p,
                    None => return,
                },
            };
            // PATH1 asked for the GIF when its packet was queued: granted, it holds the GIF while
            // its qwords cross (GIF_STAT.APATH = 1), and everything else waits.
            if p == path::P1 && self.p1_ready == 0 {
                if !self.queues[p].is_empty() || self.paths[p].in_packet() {
                    self.owner = Some(p);
                }
                return;
            }
            // A path inside a packet whose data has not arrived keeps the GIF and everything waits.
            let Some(q) = self.queues[p].pop_front() else {
                return;
            };
            if p == path::P1 {
                self.p1_ready -= 1;
            }
            if self.owner != Some(p) && p == path::P3 {
                self.imt_count = 0;
            }
            self.owner = Some(p);
            let was_image = self.paths[p].in_image();
            self.process(p, q);
            if !self.paths[p].in_packet() {
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
                    if p1 {
                        // PATH3 keeps its tag state; PATH1 holds the GIF for its whole packet
                        // (its qwords cross in time), then PATH3 resumes at the next boundary.
                        self.owner = Some(path::P1);
                        self.ip3 = true;
                    } else if p2 {
                        self.owner = None;
                        self.ip3 = true;
                        self.run_until_free(path::P2);
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
            if self.gs.signal_stalled() {
                // The path keeps the GIF until the CPU clears CSR.SIGNAL.
                return;
            }
            if !self.paths[p].in_packet() {
                break;
            }
        }
        // PATH3 takes the GIF back (its packet is still open).
        self.owner = Some(path::P3);
    }

    /// One qword of path `p`, decoded by the path's [`GifPath`]; SIGNAL, FINISH and LABEL
    /// writes are also kept as privileged-register events.
    fn process(&mut self, p: usize, qw: u128) {
        if self.paths[p].idle() {
            self.last_tag = qw;
            self.last_path = p;
        }
        self.gs.capture_qword(p, qw);
        let mut out = Emit {
            gs: &mut self.gs,
            priv_events: &mut self.priv_events,
        };
        self.paths[p].step(qw, &mut out);
    }

    /// Read a GIF register (physical address).
    pub fn read(&self, p: u32) -> u32 {
        match p {
            GIF_MODE => self.mode,
            GIF_STAT => self.stat(),
            0x1000_3040..=0x1000_307f => (self.last_tag >> (32 * ((p - GIF_TAG0) >> 4))) as u32,
            GIF_CNT => {
                let s = &self.paths[self.last_path];
                (s.nloop() & 0x7fff) | (s.reg_index() & 0xf) << 16
            }
            GIF_P3CNT => self.paths[path::P3].nloop() & 0x7fff,
            GIF_P3TAG => {
                let s = &self.paths[path::P3];
                (s.nloop() & 0x7fff) | (s.eop() as u32) << 15
            }
            _ => 0,
        }
    }

    /// GIF_STAT: M3R 0, M3P 1, IMT 2, PSE 3, IP3 5, P3Q 6, P2Q 7, P1Q 8, OPH 9, APATH 10-11,
    /// DIR 12 (local->host data waits in the GS), FQC 24-28. OPH ("output path": data goes
    /// through the GIF) also reads 1 while a GS->host download waits to go out through VIF1
    /// (PCSX2 sets OPH with the GS->host direction and clears it when the download is done).
    pub fn stat(&self) -> u32 {
        let mut s = self.mode & 1;
        s |= (self.mskpath3 as u32) << 1;
        s |= self.mode & 4;
        s |= (self.paused as u32) << 3;
        s |= (self.ip3 as u32) << 5;
        s |= (!self.queues[path::P3].is_empty() as u32) << 6;
        s |= (!self.queues[path::P2].is_empty() as u32) << 7;
        s |= (!self.queues[path::P1].is_empty() as u32) << 8;
        let download = self.gs.readback_qwords() > 0;
        if let Some(p) = self.owner {
            s |= 1 << 9;
            s |= (p as u32 + 1) << 10;
        }
        s |= (download as u32) << 9;
        s |= (download as u32) << 12;
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

impl crate::bus::EeBus {
    /// Queue the XGKICKed packets due by now; make sure a PATH1 transfer with qwords still to
    /// cross has its next timed step, or, with none, that the next XGKICKed packet has one at its
    /// time.
    pub fn path1_schedule(&mut self) {
        use crate::scheduler::Event;
        // A VU1 run started at this cycle (a CMSAR1 write, see `EeBus::vu1_start`) left its
        // XGKICKs staged: the sync that follows the start anchors them at it.
        self.gif.path1_anchor(self.now);
        self.gif.path1_arrive(self.now);
        let backlog = self.gif.path1_backlog();
        let due = self.sched.due_of(Event::Path1);
        if backlog > 0 {
            // A step that only waits for a packet (nothing in flight) gives way to the slice.
            if due.is_none() || self.gif.p1_inflight == 0 {
                self.sched.cancel(Event::Path1);
                let slice = backlog.min(PATH1_SLICE_QWORDS);
                self.gif.p1_inflight = slice;
                self.sched.schedule_at(
                    self.now + slice as u64 * PATH1_CYCLES_PER_QWORD,
                    Event::Path1,
                );
            }
        } else if let Some(at) = self.gif.path1_next_arrival()
            && due.is_none_or(|d| d > at)
        {
            // No qword under way: the pending step (if any) only waits for a packet.
            self.gif.p1_inflight = 0;
            self.sched.cancel(Event::Path1);
            self.sched.schedule_at(at, Event::Path1);
        }
    }

    /// One timed step of PATH1: the slice of qwords under way has crossed since the last step, if
    /// PATH1 held the GIF (or could take it at a packet boundary; PATH1 has the highest
    /// priority). While another path holds the GIF in mid-packet, PATH1 waits and nothing
    /// crosses. Then the XGKICKed packets due now join PATH1's queue (behind what is left).
    pub fn path1_step(&mut self) {
        self.gif.pump();
        let owner = self.gif.active_path();
        let slice = std::mem::take(&mut self.gif.p1_inflight);
        if owner == Some(path::P1) {
            self.gif.path1_release(slice);
        }
        self.gif.path1_arrive(self.now);
        if self.gif.path_idle(path::P1) {
            // The GIF is free for PATH2/PATH3 (and a VIF1 FLUSH waiting on PATH1).
            self.dmac_kick(crate::dmac::ch::GIF);
            self.dmac_kick(crate::dmac::ch::VIF1);
        }
        // dev_sync also schedules the next step while qwords are left.
        self.dev_sync();
    }
}

#[cfg(test)]
mod tests {
    //! PATH1's timing and arbitration. Facts from the EE User's Manual's GIF chapter: a path
    //! holds the GIF until its EOP packet is done; at a boundary PATH1 > PATH2 > PATH3.
    use super::GsWrite::Reg;
    use super::*;
    use crate::Machine;

    /// A PACKED A+D GIFtag of `nloop` qwords.
    fn ad_tag(nloop: u128, eop: bool) -> u128 {
        nloop | (eop as u128) << 15 | 1 << 60 | 0xe << 64
    }

    fn ad(reg: u8, v: u64) -> u128 {
        v as u128 | (reg as u128) << 64
    }

    fn apath(g: &Gif) -> u32 {
        (g.stat() >> 10) & 3
    }

    #[test]
    fn path1_crosses_as_released_and_holds_the_gif() {
        let mut g = Gif::default();
        let log = g.gs.record();
        g.push(path::P1, &[ad_tag(2, true), ad(0x4c, 1), ad(0x4c, 2)]);
        g.pump();
        assert!(log.lock().unwrap().is_empty(), "nothing crossed yet");
        assert_eq!(apath(&g), 1, "PATH1 has the GIF");
        assert_ne!(g.stat() & 1 << 9, 0, "OPH");
        // PATH3 asks meanwhile: it waits for PATH1's EOP packet.
        g.push(path::P3, &[ad_tag(1, true), ad(0x4d, 9)]);
        g.pump();
        assert!(log.lock().unwrap().is_empty());
        assert_ne!(g.stat() & 1 << 6, 0, "P3Q");
        assert_eq!(g.path1_release(2), 2);
        assert_eq!(*log.lock().unwrap(), vec![Reg(0x4c, 1)]);
        assert_eq!(apath(&g), 1, "still inside PATH1's packet");
        assert_eq!(g.path1_release(8), 1, "only one qword was left");
        assert_eq!(
            *log.lock().unwrap(),
            vec![Reg(0x4c, 1), Reg(0x4c, 2), Reg(0x4d, 9)]
        );
        assert_eq!(apath(&g), 0);
        assert!(g.path_idle(path::P1) && g.path_idle(path::P3));
    }

    #[test]
    fn path1_waits_for_a_path3_packet_then_goes_before_path2_and_path3() {
        let mut g = Gif::default();
        let log = g.gs.record();
        // PATH3 inside a two-qword packet, its second qword not there yet.
        g.push(path::P3, &[ad_tag(2, true), ad(0x4d, 1)]);
        g.pump();
        assert_eq!(apath(&g), 3);
        g.push(path::P1, &[ad_tag(1, true), ad(0x4c, 7)]);
        g.path1_release_all();
        g.push(path::P2, &[ad_tag(1, true), ad(0x4e, 8)]);
        g.pump();
        assert_eq!(
            *log.lock().unwrap(),
            vec![Reg(0x4d, 1)],
            "PATH3 keeps the GIF"
        );
        // PATH3's packet ends; another PATH3 packet is queued behind it.
        g.push(path::P3, &[ad(0x4d, 2), ad_tag(1, true), ad(0x4d, 3)]);
        g.pump();
        assert_eq!(
            *log.lock().unwrap(),
            vec![
                Reg(0x4d, 1),
                Reg(0x4d, 2),
                Reg(0x4c, 7),
                Reg(0x4e, 8),
                Reg(0x4d, 3)
            ],
            "at the boundary: PATH1, then PATH2, then PATH3"
        );
    }

    #[test]
    fn a_second_signal_stalls_the_gif_until_the_cpu_clears_csr_signal() {
        use piney_ee::Bus;
        let mut m = Machine::new(Box::new(std::io::sink()));
        let log = m.bus.gif.gs.record();
        // SIGNAL id 1, SIGNAL id 2 (CSR.SIGNAL still set: it waits), then FRAME_1.
        let pk = [
            ad_tag(3, true),
            ad(gsreg::SIGNAL, 0xffff_ffff << 32 | 1),
            ad(gsreg::SIGNAL, 0xffff_ffff << 32 | 2),
            ad(0x4c, 7),
        ];
        m.bus.gif.push(path::P3, &pk);
        m.bus.gif.pump();
        m.bus.dev_sync();
        let csr = m.bus.read32(0x1200_1000).unwrap();
        assert_eq!(csr & 1, 1, "CSR.SIGNAL");
        assert_eq!(
            m.bus.read32(0x1200_1080).unwrap(),
            1,
            "SIGLBLID.SIGID of the first"
        );
        assert_eq!(
            log.lock().unwrap().len(),
            2,
            "FRAME_1 waits behind the second SIGNAL"
        );
        // The CPU clears CSR.SIGNAL: the second SIGNAL applies (CSR.SIGNAL set again) and the
        // GIF moves on.
        m.bus.write32(0x1200_1000, 1).unwrap();
        assert_eq!(m.bus.read32(0x1200_1080).unwrap(), 2);
        assert_eq!(m.bus.read32(0x1200_1000).unwrap() & 1, 1);
        assert_eq!(log.lock().unwrap().len(), 3);
        assert_eq!(m.bus.gif.gs.gs.context(0).frame.0, 7);
    }

    #[test]
    fn path1_takes_two_cycles_a_qword_on_the_machine() {
        let mut m = Machine::new(Box::new(std::io::sink()));
        let log = m.bus.gif.gs.record();
        // A 20-qword transfer (a tag and 19 A+D qwords) queued at cycle 1000.
        m.run_events_until(1000).unwrap();
        let mut pk = vec![ad_tag(19, true)];
        pk.extend((0..19).map(|i| ad(0x4c, i)));
        m.bus.gif.push(path::P1, &pk);
        m.bus.gif.pump();
        m.bus.dev_sync();
        assert_eq!(apath(&m.bus.gif), 1);
        // Slices of 8 qwords: 8 at 1016, 16 at 1032, the last 4 at 1040.
        m.run_events_until(1015).unwrap();
        assert!(log.lock().unwrap().is_empty());
        m.run_events_until(1016).unwrap();
        assert_eq!(log.lock().unwrap().len(), 7, "the tag and 7 registers");
        m.run_events_until(1039).unwrap();
        assert_eq!(log.lock().unwrap().len(), 15);
        assert_eq!(apath(&m.bus.gif), 1, "PATH1 still active");
        m.run_events_until(1040).unwrap();
        assert_eq!(log.lock().unwrap().len(), 19);
        assert_eq!(apath(&m.bus.gif), 0, "PATH1 done after 20 x 2 cycles");
    }

    #[test]
    fn timed_packets_wait_for_their_cycle_and_a_vu1_reset_drops_the_later_ones() {
        let mut g = Gif::default();
        let log = g.gs.record();
        // Three XGKICKs of one run, at VU cycles 0, 50 and 90; the run started at EE cycle 200.
        g.push_path1_after(50, &[ad_tag(1, true), ad(0x4c, 2)]);
        g.push_path1_after(0, &[ad_tag(1, true), ad(0x4c, 1)]);
        g.push_path1_after(90, &[ad_tag(1, true), ad(0x4c, 3)]);
        assert!(!g.path_idle(path::P1), "staged packets keep PATH1 busy");
        assert_eq!(g.path1_next_arrival(), None, "not anchored yet");
        g.path1_anchor(200);
        assert_eq!(g.path1_next_arrival(), Some(200), "in time order");
        assert!(!g.path1_arrive(199));
        assert_eq!(
            (g.stat() >> 8) & 1,
            0,
            "P1Q: nothing asked before its cycle"
        );
        assert!(g.path1_arrive(249));
        assert_eq!((g.stat() >> 8) & 1, 1, "P1Q");
        g.path1_release_all();
        assert_eq!(*log.lock().unwrap(), vec![Reg(0x4c, 1)]);
        // VU1 reset at 260: the XGKICK at 290 never happens; the one at 250 did.
        g.path1_drop_after(260);
        assert!(g.path1_arrive(260));
        g.path1_release_all();
        assert_eq!(*log.lock().unwrap(), vec![Reg(0x4c, 1), Reg(0x4c, 2)]);
        assert!(g.path_idle(path::P1));
        assert_eq!(g.path1_next_arrival(), None);
    }

    #[test]
    fn oph_reads_set_while_a_download_waits() {
        use piney_ee::Bus;
        let mut m = Machine::new(Box::new(std::io::sink()));
        m.attach_renderer(Box::new(piney_gs::SoftwareRenderer::new()));
        // A 4x8 PSMCT32 rectangle at block 0x80 (BITBLTBUF, TRXPOS, TRXREG), then TRXDIR = 1:
        // a local->host transfer of 8 qwords (GS User's Manual).
        for q in [
            ad_tag(4, true),
            ad(0x50, (0x80 | 1 << 16) << 32 | (0x80 | 1 << 16)),
            ad(0x51, 0),
            ad(0x52, 4 | 8 << 32),
            ad(0x53, 1),
        ] {
            m.bus.write128(0x1000_6000, q).unwrap();
        }
        let stat = m.bus.read32(GIF_STAT).unwrap();
        assert_ne!(stat & 1 << 12, 0, "DIR: the download waits in the GS");
        assert_ne!(stat & 1 << 9, 0, "OPH during the download");
        // VIF1's FIFO turned round (STAT.FDR), DMA channel 1 takes the 8 qwords to memory.
        m.bus.write32(0x1000_3c00, 1 << 23).unwrap();
        m.bus.write32(0x1000_e000, 1).unwrap();
        m.bus.write32(0x1000_9010, 0x2000).unwrap();
        m.bus.write32(0x1000_9020, 8).unwrap();
        m.bus.write32(0x1000_9000, 0x100).unwrap();
        m.run_events_until(1000).unwrap();
        assert_eq!(
            m.bus.read32(0x1000_9000).unwrap() & 0x100,
            0,
            "channel 1 done"
        );
        let stat = m.bus.read32(GIF_STAT).unwrap();
        assert_eq!(
            stat & (1 << 12 | 1 << 9),
            0,
            "DIR and OPH clear once it is done"
        );
    }
}
