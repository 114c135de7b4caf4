//! The drive's timing, in IOP cycles (36.864 MHz): how long a command takes from the moment
//! cdvdman hands it to the drive until the drive interrupts.
//!
//! The model (figures from PCSX2's `pcsx2/CDVD/CDVD.cpp` and `CDVD_internal.h`, which model the
//! drive from measurements, and from the media's standards; the arithmetic is piney's):
//!
//! - **Transfer.** A sector passes the head at the drive's top speed for the medium, which is
//!   what cdvdman asks for by default (`SCECdSpinMax`): a DVD at 4x, 4 * 1,385,000 bytes/s (1x
//!   DVD is 11.08 Mbit/s of user data, ECMA-267), a CD at 24x, 24 * 153,600 bytes/s (1x CD is 75
//!   sectors of 2048 bytes a second). `n` sectors take `n * 36,864,000 * 2048 / rate` cycles,
//!   rounded down once for the whole run: 13,627.7 cycles a DVD sector, 20,480 a CD sector. The
//!   drive is taken as reading at that rate everywhere on the disc (PCSX2's CAV model slows the
//!   hub to 40% of the rim; piney keeps one rate, a simplification).
//! - **Seek**, by the distance `d` from the sector after the last one the head read to the first
//!   one wanted: `d == 0`, a sequential read, no seek and no wait; `0 < d <` 16 sectors on a DVD
//!   (8 on a CD), no seek but the rotational wait; `d <` 14,764 sectors on a DVD (4,371 on a CD),
//!   a fast seek of 30 ms (1,105,920 cycles); farther, a full seek of 100 ms (3,686,400
//!   cycles). A jump between the two layers of a dual-layer disc is a full seek.
//! - **Rotational latency** after any seek or short jump: half a revolution on average (piney
//!   waits the average; PCSX2 waits a whole revolution). A CAV drive at full speed turns at 4 *
//!   570 rpm for a DVD and 24 * 214 rpm for a CD (PCSX2's `DVD_MIN_ROTATION_X1`,
//!   `CD_MIN_ROTATION_X1`: the rim's speed at 1x): half a turn is 485,052 cycles (13.2 ms) on a
//!   DVD, 215,327 cycles (5.8 ms) on a CD.
//! - **Spin-up**: a stopped disc (after sceCdStop) first spins up for 333 ms (12,288,000
//!   cycles, PCSX2's `PSXCLK / 3`), which includes the seek; the rotational wait follows.
//! - **Other commands**: sceCdStop takes 166 ms (6,144,000 cycles, PCSX2's `PSXCLK / 6`); a
//!   seek takes the seek time above (no rotational wait: PCSX2 adds none); standby reads sector
//!   16 (as cdvdman's sceCdStandby does); pause, nop, a break, GetToc and the error answers a
//!   drive gives before it moves take [`COMMAND_CYCLES`]. A read the drive refuses (start past the
//!   end of the disc, no sectors) answers after the rotational wait, as PCSX2's does.
//! - **`--fast-cdvd`** ([`crate::modules::cdvd::Cdvd::fast`]): every command completes
//!   [`FAST_CYCLES`] after it starts, the head still moving as the model says (a behaviour
//!   change: games that time their loads see none).
//!
//! On a console the drive also stops spinning by itself after a while idle, and the seek time
//! grows with the distance; both are left out.

use crate::IOP_CLOCK_HZ;

/// The bytes of a sector as cdvdman reads them (`SCECdSecS2048`).
pub const SECTOR: u64 = 2048;
/// A DVD's rate at 4x, bytes a second.
pub const DVD_RATE: u64 = 4 * 1_385_000;
/// A CD's rate at 24x, bytes a second.
pub const CD_RATE: u64 = 24 * 153_600;
/// A full seek: 100 ms.
pub const FULL_SEEK: u64 = IOP_CLOCK_HZ / 10;
/// A fast seek: 30 ms.
pub const FAST_SEEK: u64 = IOP_CLOCK_HZ * 30 / 1000;
/// Spin-up from a stopped disc: 333 ms.
pub const SPIN_UP: u64 = IOP_CLOCK_HZ / 3;
/// sceCdStop: 166 ms.
pub const STOP: u64 = IOP_CLOCK_HZ / 6;
/// Half a revolution of a DVD at 4 * 570 rpm.
pub const DVD_HALF_TURN: u64 = IOP_CLOCK_HZ * 60 / (4 * 570) / 2;
/// Half a revolution of a CD at 24 * 214 rpm.
pub const CD_HALF_TURN: u64 = IOP_CLOCK_HZ * 60 / (24 * 214) / 2;
/// Below this distance (sectors) a DVD read needs no seek.
pub const DVD_CONTIGUOUS: u64 = 16;
/// Below this distance (sectors) a CD read needs no seek.
pub const CD_CONTIGUOUS: u64 = 8;
/// Below this distance (sectors) a DVD seek is a fast one.
pub const DVD_FAST_SEEK_SECTORS: u64 = 14_764;
/// Below this distance (sectors) a CD seek is a fast one.
pub const CD_FAST_SEEK_SECTORS: u64 = 4_371;
/// What a command that does not move the head takes (about 27 µs).
pub const COMMAND_CYCLES: u64 = 1_000;
/// What every command takes with `--fast-cdvd`.
pub const FAST_CYCLES: u64 = 1_000;

/// Where the head is and whether the disc turns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Head {
    /// The sector after the last one read (or the one sought).
    pub pos: u64,
    /// Whether the disc spins.
    pub spinning: bool,
}

impl Default for Head {
    /// A console that booted from the disc: spinning, at its start.
    fn default() -> Self {
        Self {
            pos: 0,
            spinning: true,
        }
    }
}

/// The medium's figures.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
pub struct Figures {
    /// Bytes a second.
    pub rate: u64,
    /// Distance below which no seek is needed.
    pub contiguous: u64,
    /// Distance below which a seek is fast.
    pub fast_seek: u64,
    /// Half a revolution.
    pub half_turn: u64,
    /// Layer 1's first sector on a dual-layer disc.
    pub layer1: Option<u64>,
}

impl Figures {
    /// A DVD's (with its layer 1 start, if dual-layer).
    pub fn dvd(layer1: Option<u64>) -> Self {
        Self {
            rate: DVD_RATE,
            contiguous: DVD_CONTIGUOUS,
            fast_seek: DVD_FAST_SEEK_SECTORS,
            half_turn: DVD_HALF_TURN,
            layer1,
        }
    }

    /// A CD's.
    pub fn cd() -> Self {
        Self {
            rate: CD_RATE,
            contiguous: CD_CONTIGUOUS,
            fast_seek: CD_FAST_SEEK_SECTORS,
            half_turn: CD_HALF_TURN,
            layer1: None,
        }
    }

    /// The time `n` sectors take to pass the head.
    pub fn transfer(&self, n: u64) -> u64 {
        let cycles =
            u128::from(n) * u128::from(IOP_CLOCK_HZ) * u128::from(SECTOR) / u128::from(self.rate);
        u64::try_from(cycles).unwrap_or(u64::MAX)
    }

    fn layer_of(&self, lsn: u64) -> u8 {
        match self.layer1 {
            Some(l1) if lsn >= l1 => 1,
            _ => 0,
        }
    }

    /// The time to get the head from `head` to `lsn` and wait for the sector (spin-up, seek,
    /// rotational latency), without the transfer.
    pub fn position(&self, head: Head, lsn: u64) -> u64 {
        if !head.spinning {
            return SPIN_UP + self.half_turn;
        }
        let d = lsn.abs_diff(head.pos);
        if d == 0 {
            0
        } else if self.layer_of(lsn) != self.layer_of(head.pos) {
            FULL_SEEK + self.half_turn
        } else if d < self.contiguous {
            self.half_turn
        } else if d < self.fast_seek {
            FAST_SEEK + self.half_turn
        } else {
            FULL_SEEK + self.half_turn
        }
    }

    /// A seek command's time (no rotational wait).
    pub fn seek(&self, head: Head, lsn: u64) -> u64 {
        if !head.spinning {
            return SPIN_UP;
        }
        let d = lsn.abs_diff(head.pos);
        if d == 0 || d < self.contiguous {
            COMMAND_CYCLES
        } else if self.layer_of(lsn) != self.layer_of(head.pos) || d >= self.fast_seek {
            FULL_SEEK
        } else {
            FAST_SEEK
        }
    }
}

/// A read of `n` sectors from `lsn`: (time until the first sector is under the head, the
/// whole time), and the head after it.
pub fn read(fig: &Figures, head: Head, lsn: u64, n: u64) -> (u64, u64, Head) {
    let pos = fig.position(head, lsn);
    let total = pos.saturating_add(fig.transfer(n));
    (
        pos,
        total,
        Head {
            pos: lsn.saturating_add(n),
            spinning: true,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_as_documented() {
        assert_eq!(FULL_SEEK, 3_686_400);
        assert_eq!(FAST_SEEK, 1_105_920);
        assert_eq!(SPIN_UP, 12_288_000);
        assert_eq!(STOP, 6_144_000);
        // 36,864,000 * 60 / 2280 = 970,105.26; half: 485,052.
        assert_eq!(DVD_HALF_TURN, 485_052);
        // 36,864,000 * 60 / 5136 = 430,654.2; half: 215,327.
        assert_eq!(CD_HALF_TURN, 215_327);
        let dvd = Figures::dvd(None);
        // 36,864,000 * 2048 / 5,540,000 = 13,627.7.
        assert_eq!(dvd.transfer(1), 13_627);
        assert_eq!(dvd.transfer(3), 40_883);
        assert_eq!(Figures::cd().transfer(3), 61_440);
    }

    #[test]
    fn seeks_by_distance() {
        let f = Figures::dvd(Some(1000));
        let h = Head {
            pos: 100,
            spinning: true,
        };
        assert_eq!(f.position(h, 100), 0);
        assert_eq!(f.position(h, 115), DVD_HALF_TURN);
        assert_eq!(f.position(h, 85), DVD_HALF_TURN);
        assert_eq!(f.position(h, 84), FAST_SEEK + DVD_HALF_TURN);
        assert_eq!(f.position(h, 116), FAST_SEEK + DVD_HALF_TURN);
        assert_eq!(f.position(h, 1001), FULL_SEEK + DVD_HALF_TURN);
        let far = Figures::dvd(None);
        assert_eq!(far.position(h, 100 + 14_764), FULL_SEEK + DVD_HALF_TURN);
        let stopped = Head {
            pos: 100,
            spinning: false,
        };
        assert_eq!(far.position(stopped, 100), SPIN_UP + DVD_HALF_TURN);
        let (first, all, after) = read(&far, h, 100, 2);
        assert_eq!((first, all, after.pos), (0, 27_255, 102));
    }
}
