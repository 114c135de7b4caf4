//! The four EE timers (T0 at 0x1000_0000, T1 0x1000_0800, T2 0x1000_1000, T3 0x1000_1800; each
//! with COUNT +0x00, MODE +0x10, COMP +0x20 and, for T0 and T1, HOLD +0x30).
//!
//! MODE: CLKS bits 0-1 (0 BUSCLK = EE/2, 1 BUSCLK/16, 2 BUSCLK/256, 3 HBLANK), GATE bit 2, GATS
//! bit 3, GATM bits 4-5, ZRET bit 6 (clear the count on a compare match), CUE bit 7 (count),
//! CMPE bit 8 (interrupt on compare), OVFE bit 9 (interrupt on overflow past 0xffff), EQUF bit 10
//! and OVFF bit 11 (the flags; writing 1 clears them).
//!
//! The count is kept lazily: it is derived from the EE cycle at which it was last set, so nothing
//! ticks per instruction. Compare and overflow are timed events on the scheduler. Gating by
//! HBLANK/VBLANK is not modelled yet: a gated timer counts as if ungated (logged nowhere; noted in
//! the issue).

use crate::scheduler::{Event, Scheduler, ntsc};

/// One timer.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Timer {
    /// MODE.
    pub mode: u32,
    /// COMP.
    pub comp: u32,
    /// HOLD.
    pub hold: u32,
    /// The count at `base_cycle` (scaled: in EE cycles times the clock divider's reciprocal).
    base_count: u32,
    /// The EE cycle at which `base_count` was the count.
    base_cycle: u64,
}

/// All four.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Timers {
    /// T0..T3.
    pub t: [Timer; 4],
}

const CUE: u32 = 1 << 7;
const ZRET: u32 = 1 << 6;
const CMPE: u32 = 1 << 8;
const OVFE: u32 = 1 << 9;
const EQUF: u32 = 1 << 10;
const OVFF: u32 = 1 << 11;

impl Timer {
    /// EE cycles per count, times 5 (HBLANK is not a whole number of EE cycles).
    fn cycles_per_count_x5(&self) -> u64 {
        match self.mode & 3 {
            0 => 2 * 5,
            1 => 32 * 5,
            2 => 512 * 5,
            _ => ntsc::CYCLES_PER_LINE_X5,
        }
    }

    /// Counts since `base_cycle` at cycle `now`.
    fn ticks(&self, now: u64) -> u64 {
        if self.mode & CUE == 0 {
            return 0;
        }
        now.saturating_sub(self.base_cycle) * 5 / self.cycles_per_count_x5()
    }

    /// The count at cycle `now` (16 bits). With ZRET a count that reaches COMP returns to 0 at
    /// once (the sequence is 0, 1, .., COMP - 1, 0), so the period is COMP counts; without it
    /// the count wraps past 0xffff.
    pub fn count(&self, now: u64) -> u32 {
        let c = self.base_count as u64 + self.ticks(now);
        if self.mode & ZRET != 0 && self.comp != 0 && (self.base_count as u64) < self.comp as u64 {
            return (c % self.comp as u64) as u32;
        }
        (c & 0xffff) as u32
    }

    fn rebase(&mut self, now: u64, count: u32) {
        self.base_count = count & 0xffff;
        self.base_cycle = now;
    }

    /// Counts from the current count `c` until the next compare match or overflow that raises
    /// something, if any.
    fn ticks_to_next(&self, c: u64) -> Option<u64> {
        let comp = self.comp as u64;
        let to_compare = if c < comp {
            comp - c
        } else {
            0x1_0000 - c + comp
        };
        let to_overflow = 0x1_0000 - c;
        let zret = self.mode & ZRET != 0 && comp != 0;
        match (
            self.mode & CMPE != 0 || zret,
            self.mode & OVFE != 0 && !zret,
        ) {
            (true, true) => Some(to_compare.min(to_overflow)),
            (true, false) => Some(to_compare),
            (false, true) => Some(to_overflow),
            (false, false) => None,
        }
    }

    /// The cycle of the next compare match or overflow that matters, from cycle `now`.
    fn next_event(&self, now: u64) -> Option<u64> {
        if self.mode & CUE == 0 {
            return None;
        }
        let ticks = self.ticks_to_next(self.count(now) as u64)?;
        // The cycle at which `ticks` more counts have happened, counted from the base.
        let done = self.ticks(now);
        let at = self.base_cycle + ((done + ticks) * self.cycles_per_count_x5()).div_ceil(5);
        Some(at.max(now + 1))
    }
}

impl Timers {
    fn index(p: u32) -> (usize, u32) {
        (((p >> 11) & 3) as usize, p & 0x7f0)
    }

    /// Read a timer register.
    pub fn read(&self, p: u32, now: u64) -> u32 {
        let (n, r) = Self::index(p);
        let t = &self.t[n];
        match r {
            0x00 => t.count(now),
            0x10 => t.mode,
            0x20 => t.comp,
            0x30 => t.hold,
            _ => 0,
        }
    }

    /// Write a timer register and reschedule its event.
    pub fn write(&mut self, p: u32, v: u32, now: u64, sched: &mut Scheduler) {
        let (n, r) = Self::index(p);
        let t = &mut self.t[n];
        let count = t.count(now);
        match r {
            0x00 => t.rebase(now, v),
            0x10 => {
                t.rebase(now, count);
                let flags = t.mode & (EQUF | OVFF) & !(v & (EQUF | OVFF));
                t.mode = (v & 0x3ff) | flags;
            }
            0x20 => t.comp = v & 0xffff,
            0x30 => t.hold = v & 0xffff,
            _ => {}
        }
        Self::reschedule(t, n, now, sched);
    }

    fn reschedule(t: &Timer, n: usize, now: u64, sched: &mut Scheduler) {
        sched.cancel(Event::Timer(n as u8));
        if let Some(at) = t.next_event(now) {
            sched.schedule_at(at, Event::Timer(n as u8));
        }
    }

    /// A timer's event is due: set its flags; returns whether it interrupts (a flag that is
    /// already set does not interrupt again until the program clears it).
    pub fn event(&mut self, n: usize, now: u64, sched: &mut Scheduler) -> bool {
        let t = &mut self.t[n];
        let raw = t.base_count as u64 + t.ticks(now);
        let comp = t.comp as u64;
        let zret = t.mode & ZRET != 0 && comp != 0;
        let mut irq = false;
        if (t.base_count as u64) < comp && raw >= comp {
            if t.mode & CMPE != 0 {
                irq |= t.mode & EQUF == 0;
                t.mode |= EQUF;
            }
            if zret {
                t.rebase(now, ((raw - comp) % comp) as u32);
            }
        }
        let raw = t.base_count as u64 + t.ticks(now);
        if raw > 0xffff && !zret {
            if t.mode & OVFE != 0 {
                irq |= t.mode & OVFF == 0;
                t.mode |= OVFF;
            }
            t.rebase(now, (raw & 0xffff) as u32);
        }
        Self::reschedule(t, n, now, sched);
        irq
    }

    /// At VBlank: nothing yet (gating is not modelled).
    pub fn vblank(&mut self, _now: u64) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0_COUNT: u32 = 0x1000_0000;
    const T0_MODE: u32 = 0x1000_0010;
    const T0_COMP: u32 = 0x1000_0020;

    /// Runs the scheduler's timer events up to `until`, returning the cycles at which timer 0
    /// interrupted.
    fn irqs(t: &mut Timers, s: &mut Scheduler, until: u64) -> Vec<u64> {
        let mut out = Vec::new();
        while let Some((Event::Timer(n), late)) = s.pop_due(until) {
            let at = until - late;
            if t.event(n as usize, at, s) {
                out.push(at);
            }
        }
        out
    }

    #[test]
    fn zret_compare_period_is_comp_counts() {
        let (mut t, mut s) = (Timers::default(), Scheduler::default());
        // BUSCLK (2 EE cycles a count), COMP 100, ZRET | CUE | CMPE.
        t.write(T0_COMP, 100, 0, &mut s);
        t.write(T0_MODE, ZRET | CUE | CMPE, 0, &mut s);
        assert_eq!(t.read(T0_COUNT, 198), 99);
        // The count reaches 100 at cycle 200 and is 0 there; EQUF interrupts once until cleared.
        assert_eq!(irqs(&mut t, &mut s, 200), vec![200]);
        assert_eq!(t.read(T0_COUNT, 200), 0);
        assert_eq!(t.read(T0_COUNT, 202), 1);
        assert_eq!(
            irqs(&mut t, &mut s, 1000),
            Vec::<u64>::new(),
            "EQUF still set"
        );
        // Clearing EQUF (write 1) lets the next match interrupt: matches every 200 cycles.
        t.write(T0_MODE, ZRET | CUE | CMPE | EQUF, 1000, &mut s);
        assert_eq!(irqs(&mut t, &mut s, 1200), vec![1200]);
    }

    #[test]
    fn overflow_interrupts_past_0xffff() {
        let (mut t, mut s) = (Timers::default(), Scheduler::default());
        // BUSCLK/256: 512 EE cycles a count. Start at 0xfff0: 16 counts to overflow.
        t.write(T0_COUNT, 0xfff0, 0, &mut s);
        t.write(T0_MODE, 2 | CUE | OVFE, 0, &mut s);
        assert_eq!(t.read(T0_COUNT, 15 * 512), 0xffff);
        assert_eq!(irqs(&mut t, &mut s, 16 * 512), vec![16 * 512]);
        assert_eq!(t.read(T0_COUNT, 16 * 512), 0);
        assert_ne!(t.read(T0_MODE, 16 * 512) & OVFF, 0);
    }

    #[test]
    fn a_stopped_timer_holds_its_count() {
        let (mut t, mut s) = (Timers::default(), Scheduler::default());
        t.write(T0_COUNT, 42, 0, &mut s);
        t.write(T0_MODE, 0, 0, &mut s);
        assert_eq!(t.read(T0_COUNT, 1_000_000), 42);
        assert_eq!(s.next_due(), u64::MAX);
    }
}
