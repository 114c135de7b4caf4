//! The one scheduler of timed events, in EE cycles.
//!
//! Events are data (an enum), kept in a binary heap ordered by due time and, for equal times, by
//! insertion order. A handler is told how many cycles late it runs, so that periodic events keep
//! their period exactly.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// What happens at a time.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum Event {
    /// The start of the vertical blank (INTC VBON, the GS's VSINT).
    VBlankStart,
    /// The end of the vertical blank (INTC VBOF).
    VBlankEnd,
    /// EE timer `n` (0..=3) reaches its compare or overflow value.
    Timer(u8),
    /// A kernel alarm (SetAlarm) with this id expires.
    Alarm(u32),
    /// The IOP's next slice: it runs up to the EE's time (its event, a running thread's slice,
    /// or SIF work the EE gave it).
    Iop,
    /// DMA channel `n` (0..=9) has its next block or tag due.
    Dma(u8),
    /// VU1 finishes the microprogram a COP2 CMSAR1 write started.
    Vu1Done,
    /// The IPU's command ends: BUSY clears, INTC IPU is raised.
    Ipu,
    /// VU0 finishes a microprogram (VCALLMS or VIF0's MSCAL): VPU-STAT bit 0 clears.
    Vu0Done,
    /// The next slice of a PATH1 (XGKICK) transfer has crossed the GIF.
    Path1,
}

/// Timed events in EE cycles.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Scheduler {
    heap: BinaryHeap<Reverse<(u64, u64, Event)>>,
    seq: u64,
}

impl Scheduler {
    /// Schedule `event` at absolute cycle `at`.
    pub fn schedule_at(&mut self, at: u64, event: Event) {
        self.seq += 1;
        self.heap.push(Reverse((at, self.seq, event)));
    }

    /// Remove every pending instance of `event`.
    pub fn cancel(&mut self, event: Event) {
        self.heap.retain(|Reverse((_, _, e))| *e != event);
    }

    /// The due time of the earliest event (u64::MAX when none).
    pub fn next_due(&self) -> u64 {
        self.heap.peek().map_or(u64::MAX, |Reverse((t, _, _))| *t)
    }

    /// The due time of the next instance of `event`, if any.
    pub fn due_of(&self, event: Event) -> Option<u64> {
        self.heap
            .iter()
            .filter(|Reverse((_, _, e))| *e == event)
            .map(|Reverse((t, _, _))| *t)
            .min()
    }

    /// Take the earliest event due at or before `now`, with how many cycles late it is.
    pub fn pop_due(&mut self, now: u64) -> Option<(Event, u64)> {
        match self.heap.peek() {
            Some(Reverse((t, _, _))) if *t <= now => {
                let Reverse((t, _, e)) = self.heap.pop()?;
                Some((e, now - t))
            }
            _ => None,
        }
    }
}

/// NTSC timing: 59.94 Hz fields (60000/1001), so a field lasts 294,912,000 x 1001 / 60000 =
/// 4,920,115.2 EE cycles. Counted in fixed point so that no fraction is lost over a long run.
pub mod ntsc {
    /// EE cycles per field, times 5 (an integer: 24,600,576).
    pub const FIELD_CYCLES_X5: u64 = 24_600_576;
    /// Lines per NTSC field (262.5 per field; 525 per frame).
    pub const LINES_X2: u64 = 525;
    /// The vertical blank lasts 22.5 lines of the 262.5 (the active picture is 240 lines).
    pub const VBLANK_LINES_X2: u64 = 45;

    /// The cycle at which field `n` (0-based) starts its vertical blank.
    pub fn vblank_start(n: u64) -> u64 {
        (n + 1) * FIELD_CYCLES_X5 / 5
    }

    /// The cycle at which the vertical blank of field `n` ends.
    pub fn vblank_end(n: u64) -> u64 {
        vblank_start(n) + FIELD_CYCLES_X5 * VBLANK_LINES_X2 / LINES_X2 / 5
    }

    /// EE cycles per horizontal line (the HBLANK clock for timers): 294.912 MHz / 15,734.27 Hz.
    pub const CYCLES_PER_LINE_X5: u64 = FIELD_CYCLES_X5 * 2 / LINES_X2;
}

/// The events present from power-on.
pub fn schedule_initial(s: &mut Scheduler) {
    *s = Scheduler::default();
    s.schedule_at(ntsc::vblank_start(0), Event::VBlankStart);
    s.schedule_at(ntsc::vblank_end(0), Event::VBlankEnd);
}
