//! Frame pacing: when to run emulated vertical blanks against the host clock.
//!
//! A pure state machine over nanosecond timestamps (the window feeds it `Instant`s; tests
//! feed it a fake clock). Vblank `i` is due at `base_ns + (i - base_n) * period`, with the
//! period an exact fraction of nanoseconds (NTSC: 1001/60000 s = 50,050,000/3 ns), so there
//! is no drift however long it runs. After a stall the pacer runs at most `max_catch_up`
//! vblanks at once, then moves the schedule so the next vblank is one period later: the game
//! loses the stalled time rather than running fast to make it up.

/// NTSC's vertical blank period in nanoseconds, as a fraction: 1001/60000 s (59.94 Hz).
pub const NTSC_PERIOD_NS: (u64, u64) = (50_050_000, 3);

/// How many vblanks the window runs at most to catch up after a stall (50 ms of game time).
pub const DEFAULT_MAX_CATCH_UP: u32 = 3;

/// The vblank schedule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pacer {
    /// The period as `num / den` nanoseconds.
    num: u64,
    den: u64,
    max_catch_up: u32,
    /// Vblank `base_n` is due at `base_ns`.
    base_ns: u64,
    base_n: u64,
    /// Vblanks handed out so far (the next one is vblank `done`).
    done: u64,
    /// Times the schedule was moved after a stall.
    resyncs: u64,
}

impl Pacer {
    /// NTSC (59.94 Hz) with the first vblank due at `start_ns`.
    pub fn ntsc(start_ns: u64, max_catch_up: u32) -> Pacer {
        Pacer::new(NTSC_PERIOD_NS, start_ns, max_catch_up)
    }

    /// A period of `period.0 / period.1` ns (both at least 1), vblank 0 due at `start_ns`,
    /// at most `max_catch_up` (at least 1) vblanks per [`Pacer::tick`].
    pub fn new(period: (u64, u64), start_ns: u64, max_catch_up: u32) -> Pacer {
        Pacer {
            num: period.0.max(1),
            den: period.1.max(1),
            max_catch_up: max_catch_up.max(1),
            base_ns: start_ns,
            base_n: 0,
            done: 0,
            resyncs: 0,
        }
    }

    /// Nanoseconds from vblank `base_n` to vblank `base_n + k`.
    fn span(&self, k: u64) -> u64 {
        (k as u128 * self.num as u128 / self.den as u128) as u64
    }

    /// When vblank `i` (at or after the last resync) is due.
    pub fn deadline(&self, i: u64) -> u64 {
        self.base_ns + self.span(i.saturating_sub(self.base_n))
    }

    /// When the next vblank is due: wait until then.
    pub fn next_deadline(&self) -> u64 {
        self.deadline(self.done)
    }

    /// Vblanks run so far.
    pub fn done(&self) -> u64 {
        self.done
    }

    /// Times a stall moved the schedule.
    pub fn resyncs(&self) -> u64 {
        self.resyncs
    }

    /// The clock reads `now_ns`: how many vblanks to run now (0 when the next is not due,
    /// at most `max_catch_up`). They count as run. When more were due than that, the rest
    /// are dropped and the next vblank is due one period after `now_ns`.
    pub fn tick(&mut self, now_ns: u64) -> u32 {
        if now_ns < self.base_ns {
            return 0;
        }
        // Vblanks due by now: base_n + k for every k with floor(k * num / den) <= elapsed,
        // that is k * num < (elapsed + 1) * den.
        let elapsed = (now_ns - self.base_ns) as u128;
        let k_max = ((elapsed + 1) * self.den as u128 - 1) / self.num as u128;
        let due = self.base_n as u128 + k_max + 1;
        let behind = due.saturating_sub(self.done as u128);
        if behind == 0 {
            return 0;
        }
        if behind <= self.max_catch_up as u128 {
            self.done += behind as u64;
            return behind as u32;
        }
        // A stall: run what catching up allows, then start the schedule afresh.
        self.done += self.max_catch_up as u64;
        self.base_n = self.done;
        self.base_ns = now_ns + self.span(1);
        self.resyncs += 1;
        self.max_catch_up
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn deadlines_are_exact_ntsc() {
        let p = Pacer::ntsc(1000, 3);
        assert_eq!(p.deadline(0), 1000);
        assert_eq!(p.deadline(1), 1000 + 16_683_333); // 16.683 ms
        assert_eq!(p.deadline(3), 1000 + 50_050_000);
        assert_eq!(p.deadline(60_000), 1000 + 1_001_000_000_000); // 1001 s for 60,000
    }

    #[test]
    fn ticking_at_each_deadline_runs_one_vblank_and_never_drifts() {
        let start = 5 * MS;
        let mut p = Pacer::ntsc(start, 3);
        for i in 0..10_000u64 {
            let now = p.next_deadline();
            assert_eq!(now, start + (i as u128 * 50_050_000 / 3) as u64);
            // Just before: nothing.
            if i > 0 {
                assert_eq!(p.tick(now - 1), 0, "vblank {i} early");
            }
            assert_eq!(p.tick(now), 1, "vblank {i}");
            assert_eq!(p.tick(now), 0, "vblank {i} twice");
        }
        assert_eq!(p.done(), 10_000);
        // 10,000 vblanks are 166.8333... s: no drift at all.
        assert_eq!(p.next_deadline(), start + 166_833_333_333);
        assert_eq!(p.resyncs(), 0);
    }

    #[test]
    fn a_60hz_host_runs_one_per_tick_with_a_rare_skip() {
        // The host wakes at 60.00 Hz (every 16.667 ms); the game runs at 59.94 Hz, so a tick
        // now and then runs nothing, and over 100 s exactly floor(t / period) + 1 have run.
        let mut p = Pacer::ntsc(0, 3);
        let (mut zeros, mut ones) = (0, 0);
        for t in 0..6000u64 {
            let now = t * 1_000_000_000 / 60;
            match p.tick(now) {
                0 => zeros += 1,
                1 => ones += 1,
                n => panic!("tick {t} ran {n}"),
            }
        }
        let last = 5999 * 1_000_000_000u64 / 60;
        assert_eq!(p.done(), (last as u128 * 3 / 50_050_000) as u64 + 1);
        assert_eq!(zeros, 6000 - p.done());
        assert_eq!(zeros, 6, "one skip per 1000 ticks");
        assert_eq!(ones, p.done());
    }

    #[test]
    fn jittery_ticks_keep_the_long_run_rate() {
        // Wake-ups anywhere from 1 to 30 ms apart (a deterministic LCG): the count always
        // equals the vblanks due, up to the catch-up bound, and there is no drift.
        let mut p = Pacer::ntsc(0, 3);
        let mut now = 0u64;
        let mut seed = 12345u64;
        for _ in 0..20_000 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            now += MS + (seed >> 33) % (29 * MS);
            let n = p.tick(now);
            assert!(n <= 2, "a 30 ms gap needs at most 2 vblanks, got {n}");
            // Everything due is run: the next deadline is in the future.
            assert!(p.next_deadline() > now);
            assert!(p.deadline(p.done() - 1) <= now);
        }
        assert_eq!(p.resyncs(), 0);
        assert_eq!(p.done(), (now as u128 * 3 / 50_050_000) as u64 + 1);
    }

    #[test]
    fn a_stall_is_bounded_and_the_game_does_not_run_fast_afterwards() {
        let mut p = Pacer::ntsc(0, 3);
        for _ in 0..10 {
            let d = p.next_deadline();
            assert_eq!(p.tick(d), 1);
        }
        assert_eq!(p.done(), 10);
        // The host stalls for a second (60 vblanks' worth).
        let now = p.deadline(9) + 1_000 * MS;
        assert_eq!(p.tick(now), 3, "at most 3 catch-up vblanks");
        assert_eq!(p.done(), 13);
        assert_eq!(p.resyncs(), 1);
        // Immediately after: nothing more; the next is one period on.
        assert_eq!(p.tick(now), 0);
        assert_eq!(p.tick(now + 16 * MS), 0);
        assert_eq!(p.next_deadline(), now + 16_683_333);
        // From then on, 59.94 Hz again: over the next 10 s, 599 vblanks (not 659).
        let mut ran = 0;
        let mut t = now;
        while t <= now + 10_000 * MS {
            ran += p.tick(t);
            t += MS;
        }
        assert_eq!(ran as u64, (10_000 * MS as u128 * 3 / 50_050_000) as u64);
        assert_eq!(p.resyncs(), 1);
    }

    #[test]
    fn small_delays_catch_up_without_resync() {
        let mut p = Pacer::ntsc(0, 3);
        assert_eq!(p.tick(0), 1);
        // 40 ms late: vblanks 1 and 2 are due (16.7 and 33.4 ms).
        assert_eq!(p.tick(40 * MS), 2);
        assert_eq!(p.resyncs(), 0);
        // The schedule is unchanged: vblank 3 at 50.05 ms.
        assert_eq!(p.next_deadline(), 50_050_000);
        assert_eq!(p.tick(49 * MS), 0);
        assert_eq!(p.tick(51 * MS), 1);
        // Before the start, nothing.
        let mut q = Pacer::ntsc(100 * MS, 3);
        assert_eq!(q.tick(0), 0);
        assert_eq!(q.tick(100 * MS), 1);
    }
}
