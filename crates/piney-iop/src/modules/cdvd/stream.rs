//! Streaming (sceCdSt*, and the EE's STREAM N command): the drive reads ahead into a ring of
//! banks in IOP RAM while the program takes sectors out of it, as CDVDSTM (ps2sdk
//! `iop/cdvd/cdvdstm/src/cdvdstm.c`, `iop_stream_handler` and `ee_stream_handler_normal`;
//! `ee/rpc/cdvd/src/ncmd.c`, sceCdSt*) does it:
//!
//! - sceCdStInit(bufmax, bankmax, buffer): `bankmax` banks of `bufmax / bankmax` sectors at
//!   `buffer`; 1.
//! - sceCdStStart(lsn, mode) and sceCdStSeek(lsn) (sceCdStSeekF too): the ring empties and the
//!   drive starts reading at `lsn`; 1. sceCdStStop: the stream ends, the ring empties; 1.
//! - The drive fills the ring a bank at a time, at the drive's rate ([`super::timing`]: the
//!   head's move and the rotational wait before the first sector, then each sector's transfer
//!   time), and stops when all banks but the one being read from are full; when the reader frees
//!   a bank it goes on after a rotational wait (half a turn). It stops at the end of the disc.
//!   sceCdStPause stops it (1); sceCdStResume goes on, after half a turn (1).
//! - sceCdStStat: the sectors of the full banks not yet read (a bank read part-way counts
//!   whole).
//! - sceCdStRead(sectors, buf, mode, err*): the sectors of full banks, in order; mode 0
//!   (STMNBLK) takes what there is now and answers how many; mode 1 (STMBLK) waits until all
//!   have come (or the disc ended). `err` is 0. Not started: 0.
//! - The EE's STREAM { lsn, sectors, EE buffer, command, mode } answers { result }, READ's {
//!   error << 16 | sectors } (the EE's STMBLK loops over it), the sectors sent to the EE buffer.
//!
//! While a stream runs the drive is busy for other reads (sceCdRead answers 0).
//!
//! Where piney differs: one stream for the IOP and the EE together (CDVDSTM keeps one each;
//! one drive serves both); a blocking read gets its sectors at once and then waits the time
//! they take to come; the ring's memory is not written (the sectors go straight from the
//! disc to the reader's buffer); the stream's sectors do not call the sceCdstm callbacks; an
//! ioman file opened with SCE_CdSTREAM is not a stream.

use super::timing::{Figures, Head};
use crate::IOP_CLOCK_HZ;

/// A stream's ring and progress.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Stream {
    /// Sectors a bank.
    pub bank: u64,
    /// Banks.
    pub banks: u64,
    /// The ring in IOP RAM.
    pub ring: u32,
    /// The stream under way.
    pub run: Option<Run>,
}

/// A stream under way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Run {
    /// Its first sector.
    pub lsn: u64,
    /// Sectors the reader has taken.
    pub taken: u64,
    /// Sectors the drive had read when the current stretch began.
    pub base: u64,
    /// When the current stretch's first sector is under the head.
    pub start: u64,
    /// The drive has stopped (the ring full, a pause, the disc's end).
    pub stalled: bool,
    /// Paused by sceCdStPause.
    pub paused: bool,
    /// The sectors the disc has from `lsn`.
    pub left: u64,
}

/// Sectors passed between `from` and `to` at the figures' rate.
fn passed(fig: &Figures, from: u64, to: u64) -> u64 {
    if to <= from {
        return 0;
    }
    let n = u128::from(to - from) * u128::from(fig.rate)
        / (u128::from(IOP_CLOCK_HZ) * u128::from(super::timing::SECTOR));
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// The first cycle by which `n` sectors have passed since `from`.
fn after(fig: &Figures, from: u64, n: u64) -> u64 {
    let per = u128::from(IOP_CLOCK_HZ) * u128::from(super::timing::SECTOR);
    let t = (u128::from(n) * per).div_ceil(u128::from(fig.rate));
    from.saturating_add(u64::try_from(t).unwrap_or(u64::MAX))
}

impl Stream {
    /// The most the drive reads ahead of the bank being read from.
    fn limit(&self, r: &Run) -> u64 {
        let l = (r.taken / self.bank) * self.bank + (self.banks.saturating_sub(1)) * self.bank;
        l.min(r.left)
    }

    /// The sectors the drive has read by `now` (the stretch stopped where the ring filled).
    pub fn advance(&mut self, fig: &Figures, now: u64) {
        let limit = match &self.run {
            Some(r) => self.limit(r),
            None => return,
        };
        let Some(r) = &mut self.run else {
            return;
        };
        if r.stalled || r.paused {
            return;
        }
        let p = r.base + passed(fig, r.start, now);
        if p >= limit {
            r.base = limit;
            r.stalled = true;
        }
    }

    /// The sectors read by `now` (after [`Stream::advance`]).
    pub fn produced(&self, fig: &Figures, now: u64) -> u64 {
        match &self.run {
            Some(r) if r.stalled || r.paused => r.base,
            Some(r) => (r.base + passed(fig, r.start, now)).min(self.limit(r)),
            None => 0,
        }
    }

    /// The sectors of full banks not yet taken.
    pub fn ready(&self, fig: &Figures, now: u64) -> u64 {
        let Some(r) = &self.run else {
            return 0;
        };
        let p = self.produced(fig, now);
        let full = if p >= r.left {
            r.left
        } else {
            (p / self.bank) * self.bank
        };
        full.saturating_sub(r.taken)
    }

    /// sceCdStStat's answer: full banks not fully taken, in sectors.
    pub fn stat(&self, fig: &Figures, now: u64) -> u64 {
        let Some(r) = &self.run else {
            return 0;
        };
        let p = self.produced(fig, now);
        let full = p / self.bank + u64::from(p >= r.left && !p.is_multiple_of(self.bank));
        (full.saturating_sub(r.taken / self.bank)) * self.bank
    }

    /// Start (or restart) at `lsn` with the head at `head`: the head after.
    pub fn start(&mut self, fig: &Figures, head: Head, now: u64, lsn: u64, sectors: u64) {
        let start = now + fig.position(head, lsn);
        self.run = Some(Run {
            lsn,
            taken: 0,
            base: 0,
            start,
            stalled: false,
            paused: false,
            left: sectors.saturating_sub(lsn),
        });
    }

    /// The reader took `n` sectors at `now`: a drive the full ring had stopped goes on after
    /// half a turn.
    pub fn take(&mut self, fig: &Figures, now: u64, n: u64) {
        let before = self.run.as_ref().map(|r| self.limit(r));
        let Some(r) = &mut self.run else {
            return;
        };
        r.taken += n;
        let after_limit =
            (r.taken / self.bank) * self.bank + self.banks.saturating_sub(1) * self.bank;
        if r.stalled && !r.paused && before.is_some_and(|b| after_limit.min(r.left) > b) {
            r.stalled = false;
            r.start = now + fig.half_turn;
        }
    }

    /// When `n` more sectors will be ready for a reader who takes them as they come (the
    /// drive going on at once if it had stopped), or `None` if the disc ends first.
    pub fn ready_at(&mut self, fig: &Figures, now: u64, n: u64) -> Option<u64> {
        let bank = self.bank;
        let r = self.run.as_mut()?;
        let want = r.taken + n;
        if want > r.left {
            return None;
        }
        let need = if want == r.left {
            want
        } else {
            want.div_ceil(bank) * bank
        }
        .min(r.left);
        if r.base >= need {
            return Some(now);
        }
        if r.stalled && !r.paused {
            r.stalled = false;
            r.start = now + fig.half_turn;
        }
        if r.paused {
            return None;
        }
        Some(after(fig, r.start, need - r.base).max(now))
    }

    /// sceCdStPause at `now`.
    pub fn pause(&mut self, fig: &Figures, now: u64) {
        self.advance(fig, now);
        let p = self.produced(fig, now);
        if let Some(r) = &mut self.run {
            r.base = p;
            r.paused = true;
        }
    }

    /// sceCdStResume at `now`.
    pub fn resume(&mut self, fig: &Figures, now: u64) {
        if let Some(r) = &mut self.run
            && r.paused
        {
            r.paused = false;
            r.stalled = false;
            r.start = now + fig.half_turn;
        }
    }

    /// Where the head is at `now`.
    pub fn head(&self, fig: &Figures, now: u64) -> Option<Head> {
        let r = self.run.as_ref()?;
        Some(Head {
            pos: r.lsn + self.produced(fig, now),
            spinning: true,
        })
    }
}

/// The end of the disc stopped a stream read short.
pub const EOM: u32 = super::err::EOM as u32;

impl crate::Iop {
    /// The stream's figures: the drive's, or with `--fast-cdvd` a sector a cycle and
    /// [`super::timing::FAST_CYCLES`] for each wait.
    fn st_fig(&self) -> Option<Figures> {
        let f = self.cd_figures()?;
        Some(if self.cdvd.fast {
            Figures {
                rate: IOP_CLOCK_HZ * super::timing::SECTOR,
                half_turn: super::timing::FAST_CYCLES,
                ..f
            }
        } else {
            f
        })
    }

    /// sceCdStInit(bufmax, bankmax, buffer): 1, or 0 for a ring of no banks.
    pub fn st_init(&mut self, bufmax: u32, bankmax: u32, buffer: u32) -> u32 {
        if bankmax == 0 || bufmax / bankmax == 0 {
            return 0;
        }
        self.st_stop();
        let s = &mut self.cdvd.stream;
        s.bank = u64::from(bufmax / bankmax);
        s.banks = u64::from(bankmax);
        s.ring = buffer;
        1
    }

    /// sceCdStStart / sceCdStSeek(lsn): 1, or 0 (no ring, no disc).
    pub fn st_start(&mut self, lsn: u32) -> u32 {
        let Some(fig) = self.st_fig() else {
            return 0;
        };
        if self.cdvd.stream.bank == 0 {
            return 0;
        }
        let now = self.cpu.cycles;
        if let Some(h) = self.cdvd.stream.head(&fig, now) {
            self.cdvd.head = h;
        }
        // cdvdstm waits for the command in flight first.
        let at = self.cdvd.due().unwrap_or(now).max(now);
        let sectors = self.disc.as_ref().map_or(0, |d| d.sectors());
        // With --fast-cdvd the head is there at once: a stopped head spins up in no time.
        let head = if self.cdvd.fast {
            Head {
                pos: u64::from(lsn),
                spinning: true,
            }
        } else {
            self.cdvd.head
        };
        let at = if self.cdvd.fast {
            at + super::timing::FAST_CYCLES
        } else {
            at
        };
        self.cdvd
            .stream
            .start(&fig, head, at, u64::from(lsn), sectors);
        1
    }

    /// sceCdStStop: 1.
    pub fn st_stop(&mut self) -> u32 {
        let now = self.cpu.cycles;
        if let Some(fig) = self.st_fig()
            && let Some(h) = self.cdvd.stream.head(&fig, now)
        {
            self.cdvd.head = h;
        }
        self.cdvd.stream.run = None;
        1
    }

    /// sceCdStStat.
    pub fn st_stat(&mut self) -> u32 {
        let now = self.cpu.cycles;
        let Some(fig) = self.st_fig() else {
            return 0;
        };
        self.cdvd.stream.advance(&fig, now);
        self.cdvd.stream.stat(&fig, now) as u32
    }

    /// sceCdStPause / sceCdStResume: 1 (0 with no stream).
    pub fn st_pause(&mut self, pause: bool) -> u32 {
        let now = self.cpu.cycles;
        let Some(fig) = self.st_fig() else {
            return 0;
        };
        if self.cdvd.stream.run.is_none() {
            return 0;
        }
        if pause {
            self.cdvd.stream.pause(&fig, now);
        } else {
            self.cdvd.stream.resume(&fig, now);
        }
        1
    }

    /// Take up to `n` sectors now (`block`: all `n`, as they come): the sectors, when the last
    /// of them has come, and the error (0, or SCECdErEOM when the disc ends first).
    pub fn st_take(&mut self, n: u32, block: bool) -> (Vec<u8>, u64, u32) {
        let now = self.cpu.cycles;
        let Some(fig) = self.st_fig() else {
            return (Vec::new(), now, 0);
        };
        let s = &mut self.cdvd.stream;
        let Some(r) = s.run else {
            return (Vec::new(), now, 0);
        };
        s.advance(&fig, now);
        let (count, at, error) = if block {
            let left = r.left.saturating_sub(r.taken);
            let (count, error) = if u64::from(n) > left {
                (left, EOM)
            } else {
                (u64::from(n), 0)
            };
            let at = s.ready_at(&fig, now, count).unwrap_or(now);
            (count, at, error)
        } else {
            (u64::from(n).min(s.ready(&fig, now)), now, 0)
        };
        if count == 0 {
            return (Vec::new(), at, error);
        }
        let lsn = r.lsn + r.taken;
        let data = match self.cd_sectors(lsn, count, super::SectorKind::Data) {
            Ok(d) => d,
            Err(e) => return (Vec::new(), at, u32::from(e)),
        };
        self.cdvd.stream.take(&fig, at, count);
        (data, at, error)
    }

    /// Stream waits due: wake their threads with their results.
    pub fn st_due(&mut self) -> Result<(), crate::IopError> {
        let now = self.cpu.cycles;
        let (due, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut self.cdvd.st_waiters)
            .into_iter()
            .partition(|w| w.1 <= now);
        self.cdvd.st_waiters = rest;
        let mut woke = false;
        for (t, _, v0) in due {
            if self
                .kernel
                .threads
                .get(&t)
                .is_some_and(|th| th.wait == crate::kernel::Wait::Native(super::WAIT_STREAM))
            {
                self.wake_later(t, v0);
                woke = true;
            }
        }
        if woke && self.kernel.intr.is_none() {
            if self.kernel.current.is_none() {
                self.leave();
            } else {
                self.preempt_check();
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ring_fills_and_stops() {
        let fig = Figures::dvd(None);
        let mut s = Stream {
            bank: 16,
            banks: 4,
            ring: 0x10_0000,
            run: None,
        };
        let head = Head {
            pos: 100,
            spinning: true,
        };
        s.start(&fig, head, 0, 100, 10_000);
        assert_eq!(s.ready(&fig, 0), 0);
        // 16 sectors: 16 * 13,627.7 = 218,043.4 cycles.
        assert_eq!(s.ready(&fig, 218_043), 0);
        assert_eq!(s.ready(&fig, 218_044), 16);
        assert_eq!(s.stat(&fig, 218_044), 16);
        // Three banks at most (48 sectors) while the first is not taken.
        s.advance(&fig, 10_000_000);
        assert_eq!(s.ready(&fig, 10_000_000), 48);
        s.take(&fig, 10_000_000, 16);
        // The drive goes on half a turn later: 16 more sectors by then + 218,044.
        assert_eq!(s.ready(&fig, 10_000_000 + 485_052 + 218_043), 32);
        assert_eq!(s.ready(&fig, 10_000_000 + 485_052 + 218_044), 48);
    }
}
