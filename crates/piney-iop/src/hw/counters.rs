//! The IOP's six root counters.
//!
//! Registers: counters 0..2 at 0x1f80_1100 + 0x10 n, 3..5 at 0x1f80_1480 + 0x10 (n - 3): COUNT
//! (+0), MODE (+4), TARGET (+8). Counters 0..2 are 16 bits wide, 3..5 32 bits. MODE (the PS1's
//! bits, with the PS2's prescaler): bit 3 resets the count after it reaches TARGET (else after
//! the all-ones value), bit 4 interrupts at TARGET, bit 5 at overflow, bit 6 repeats the
//! interrupt (else once), bit 8 selects the other clock source (counter 0: the pixel clock, 1
//! and 3: the horizontal blank), bit 9 divides counter 2 by 8, bits 13-14 divide counters 4 and
//! 5 by 1, 8, 16 or 256; bit 11 (reached TARGET) and bit 12 (reached overflow) read once then
//! clear. Writing MODE zeroes the count.
//!
//! Counting is computed from the cycle count (no per-cycle work); an interrupt is an event at
//! the cycle the count gets there. Interrupt lines: RTC0..2 (4..6), RTC3..5 (14..16).

use crate::hw::intc::line;

/// The system clock's cycles per horizontal line (NTSC: 15734 Hz at 36.864 MHz).
pub const HLINE_CYCLES: u64 = 2343;
/// The system clock's cycles per pixel clock tick, times 4 (13.5 MHz: 36.864 / 13.5 = 2.73).
const PIXEL_CYCLES_X4: u64 = 11;

/// One counter.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Counter {
    /// The count at `base`.
    pub count: u32,
    /// The cycle `count` was read or set at.
    pub base: u64,
    /// MODE.
    pub mode: u32,
    /// TARGET.
    pub target: u32,
    /// Whether this counter's once-only interrupt has fired.
    pub fired: bool,
}

/// The six counters.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Counters {
    /// Counters 0..5.
    pub c: [Counter; 6],
}

/// The interrupt line of counter `n`.
pub fn irq_line(n: usize) -> u32 {
    match n {
        0 => line::RTC0,
        1 => line::RTC1,
        2 => line::RTC2,
        3 => line::RTC3,
        4 => line::RTC4,
        _ => line::RTC5,
    }
}

/// Counter `n`'s register address (COUNT).
pub fn address(n: usize) -> u32 {
    if n < 3 {
        0x1f80_1100 + 0x10 * n as u32
    } else {
        0x1f80_1480 + 0x10 * (n as u32 - 3)
    }
}

impl Counters {
    /// Which counter and register a physical address is, if any.
    pub fn decode(p: u32) -> Option<(usize, u32)> {
        let (base, first) = match p {
            0x1f80_1100..=0x1f80_112f => (0x1f80_1100, 0),
            0x1f80_1480..=0x1f80_14af => (0x1f80_1480, 3),
            _ => return None,
        };
        let off = p - base;
        Some((first + (off / 0x10) as usize, off & 0xc))
    }

    fn width_mask(n: usize) -> u64 {
        if n < 3 { 0xffff } else { 0xffff_ffff }
    }

    /// System clock cycles per count of counter `n` (times 4, for the pixel clock's fraction).
    fn cycles_x4(&self, n: usize) -> u64 {
        let m = self.c[n].mode;
        let ext = m & (1 << 8) != 0;
        match n {
            0 if ext => PIXEL_CYCLES_X4,
            1 | 3 if ext => HLINE_CYCLES * 4,
            2 if m & (1 << 9) != 0 => 8 * 4,
            4 | 5 => 4 * [1, 8, 16, 256][((m >> 13) & 3) as usize],
            _ => 4,
        }
    }

    /// The period after which the count returns to 0.
    fn period(&self, n: usize) -> u64 {
        let c = &self.c[n];
        if c.mode & (1 << 3) != 0 {
            (c.target as u64 & Self::width_mask(n)) + 1
        } else {
            Self::width_mask(n) + 1
        }
    }

    /// The count of counter `n` at cycle `now`.
    pub fn count(&self, n: usize, now: u64) -> u32 {
        let c = &self.c[n];
        let ticks = (now.saturating_sub(c.base)) * 4 / self.cycles_x4(n);
        ((c.count as u64 + ticks) % self.period(n)) as u32
    }

    /// Read register `reg` (0 COUNT, 4 MODE, 8 TARGET) of counter `n` at `now`.
    pub fn read(&mut self, n: usize, reg: u32, now: u64) -> u32 {
        match reg {
            0 => self.count(n, now),
            4 => {
                let m = self.c[n].mode;
                self.c[n].mode &= !((1 << 11) | (1 << 12));
                m
            }
            8 => self.c[n].target,
            _ => 0,
        }
    }

    /// Write register `reg` of counter `n` at `now`.
    pub fn write(&mut self, n: usize, reg: u32, v: u32, now: u64) {
        let mask = Self::width_mask(n) as u32;
        match reg {
            0 => {
                self.c[n].count = v & mask;
                self.c[n].base = now;
            }
            4 => {
                // Writing MODE zeroes the count and clears the interrupt request (bit 10 reads 1).
                self.c[n].mode = (v & 0xe3ff) | (1 << 10);
                self.c[n].count = 0;
                self.c[n].base = now;
                self.c[n].fired = false;
            }
            8 => {
                let cur = self.count(n, now);
                self.c[n].count = cur;
                self.c[n].base = now;
                self.c[n].target = v & mask;
            }
            _ => {}
        }
    }

    /// The next cycle after `now` at which counter `n` interrupts, if it will.
    pub fn next_irq(&self, n: usize, now: u64) -> Option<u64> {
        let c = &self.c[n];
        let at_target = c.mode & (1 << 4) != 0;
        let at_overflow = c.mode & (1 << 5) != 0;
        if !(at_target || at_overflow) || (c.fired && c.mode & (1 << 6) == 0) {
            return None;
        }
        let cur = self.count(n, now) as u64;
        let period = self.period(n);
        let mut best: Option<u64> = None;
        let mut consider = |v: u64| {
            // Ticks until the count next equals `v` (after now).
            let d = if v > cur { v - cur } else { v + period - cur };
            best = Some(best.map_or(d, |b: u64| b.min(d)));
        };
        if at_target {
            consider(c.target as u64 & Self::width_mask(n));
        }
        if at_overflow && c.mode & (1 << 3) == 0 {
            consider(Self::width_mask(n));
        }
        let ticks = best?;
        // The tick boundary: from the counter's base, in whole counts.
        let cx4 = self.cycles_x4(n);
        let elapsed = (now.saturating_sub(c.base)) * 4 / cx4;
        let due = c.base + ((elapsed + ticks) * cx4).div_ceil(4);
        Some(due.max(now + 1))
    }

    /// Counter `n` reached its interrupt at `now`: set the reached bits, clear the request bit.
    /// Returns whether the line is raised.
    pub fn fire(&mut self, n: usize, now: u64) -> bool {
        let cur = self.count(n, now);
        let c = &mut self.c[n];
        if c.fired && c.mode & (1 << 6) == 0 {
            return false;
        }
        if cur == c.target & Self::width_mask(n) as u32 || c.mode & (1 << 3) != 0 && cur == 0 {
            c.mode |= 1 << 11;
        } else {
            c.mode |= 1 << 12;
        }
        c.mode &= !(1 << 10);
        c.fired = true;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_wraps_and_interrupts() {
        let mut t = Counters::default();
        // Counter 5 at the system clock: counts cycles.
        t.write(5, 4, 0, 100);
        assert_eq!(t.count(5, 150), 50);
        // Counter 2 divided by 8.
        t.write(2, 4, 1 << 9, 0);
        assert_eq!(t.count(2, 80), 10);
        // Zero return at target 9, interrupt at target, repeating.
        t.write(0, 8, 9, 0);
        t.write(0, 4, (1 << 3) | (1 << 4) | (1 << 6), 0);
        assert_eq!(t.count(0, 25), 5, "period 10");
        assert_eq!(t.next_irq(0, 0), Some(9));
        assert!(t.fire(0, 9));
        assert_ne!(t.read(0, 4, 9) & (1 << 11), 0, "reached target");
        assert_eq!(t.read(0, 4, 9) & (1 << 11), 0, "read clears it");
        assert_eq!(t.next_irq(0, 9), Some(19));
    }
}
