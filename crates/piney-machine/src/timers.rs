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
#[derive(Debug, Clone, Default, PartialEq, Eq)]
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
#[derive(Debug, Clone, Default, PartialEq, Eq)]
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

    /// The count at cycle `now` (16 bits; ZRET wrap at the compare value is folded in).
    pub fn count(&self, now: u64) -> u32 {
        if self.mode & CUE == 0 {
            return self.base_count;
        }
        let ticks = now.saturating_sub(self.base_cycle) * 5 / self.cycles_per_count_x5();
        let c = self.base_count as u64 + ticks;
        if self.mode & ZRET != 0 && self.comp != 0 && self.base_count <= self.comp {
            let period = self.comp as u64 + 1;
            if c > self.comp as u64 {
                return ((c - period) % period) as u32;
            }
            return c as u32;
        }
        (c & 0xffff) as u32
    }

    fn rebase(&mut self, now: u64, count: u32) {
        self.base_count = count & 0xffff;
        self.base_cycle = now;
    }

    /// The next cycle at which the count reaches compare (if CMPE) or overflows (if OVFE).
    fn next_event(&self, now: u64) -> Option<u64> {
        if self.mode & CUE == 0 || self.mode & (CMPE | OVFE) == 0 {
            return None;
        }
        let c = self.count(now) as u64;
        let target = if self.mode & CMPE != 0 && (self.comp as u64) > c {
            self.comp as u64
        } else {
            0x1_0000
        };
        let per = self.cycles_per_count_x5();
        // The cycle at which count becomes `target`, from the base.
        let ticks_needed = target - self.base_count as u64;
        let at = self.base_cycle + (ticks_needed * per).div_ceil(5);
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

    /// A timer's event is due: set its flags; returns whether it interrupts.
    pub fn event(&mut self, n: usize, now: u64, sched: &mut Scheduler) -> bool {
        let t = &mut self.t[n];
        let raw = t.base_count as u64
            + (now.saturating_sub(t.base_cycle) * 5 / t.cycles_per_count_x5());
        let mut irq = false;
        if t.mode & CMPE != 0 && raw >= t.comp as u64 && (t.base_count as u64) < t.comp as u64 + 1 {
            irq |= t.mode & EQUF == 0;
            t.mode |= EQUF;
            if t.mode & ZRET != 0 {
                t.rebase(now, (raw - t.comp as u64 - 1) as u32);
            }
        }
        if raw >= 0x1_0000 && t.mode & ZRET == 0 {
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
