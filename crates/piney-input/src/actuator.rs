//! The pad's motor queue, as the game keeps it in `ccPad` +0x28..+0x3f: `SetActuater`
//! (INF 0x00102bf0) queues, `ccSystem::Ctrl` (0x0010a740) counts the top down each frame,
//! `ccPad::Ctrl` (0x00102a50) sends to the pad.
//!
//! # The 24 bytes at `ccPad` +0x28
//!
//! The reference gives the range, not its fields. This crate's layout (the demo title's C
//! code uses the same, so that hooked and emulated runs leave the same bytes):
//!
//! | offset | size | field |
//! |---|---|---|
//! | +0x28 | 6 | the last `scePadSetActDirect` buffer: small motor (0/1), large power, then four 0 |
//! | +0x2e | 1 | `ccPad::Ctrl`'s motor state: 1 looks, 4 waits on the request state |
//! | +0x2f | 1 | entries queued, 0..=3 |
//! | +0x30 + 4k | 4 | entry k (0 the idle entry, 1..=3 the queue, the top last): vblanks left (u16, little endian), flags (bit 0 small motor on, bit 1 marked to send), large motor power |
//!
//! The sending state and the entry count's place (+0x2e, +0x2f) and the entries' (+0x30, four
//! bytes each) follow what is known of the game; the packing inside an entry and the buffer at
//! +0x28 are this crate's choice. `ccPad::actuaterSw` is a static of the class, not in the
//! record: [`ActuatorQueue::switch_on`] is kept beside it.

/// What `ccPad::Ctrl` sends to the pad's two motors (`scePadSetActDirect`'s first two bytes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Motors {
    /// The small (high-frequency) motor: on or off.
    pub small: bool,
    /// The large motor's power, 0-255.
    pub large: u8,
}

impl Motors {
    /// Both motors off.
    pub const OFF: Motors = Motors {
        small: false,
        large: 0,
    };
}

/// One queue entry (or the idle entry 0).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ActuatorEntry {
    /// Vertical blanks left.
    pub time: u16,
    /// The motors while this entry is on top.
    pub motors: Motors,
    /// Marked to be sent (again) by `ccPad::Ctrl`.
    pub marked: bool,
}

/// `ccPad::Ctrl`'s motor sending state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CtrlState {
    /// State 1: looks for something to send.
    #[default]
    Look = 1,
    /// State 4: a send was made last frame (state 2, `scePadSetActDirect`, passes within the
    /// frame that sent); this frame waits on it (`scePadGetReqState`) and sends nothing. The
    /// request always completes at once here, so one frame of waiting, then state 1 again.
    Wait = 4,
}

/// Bad bytes for [`ActuatorQueue::from_bytes`].
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum LayoutError {
    /// The entry count at +0x2f is above 3.
    #[error("ccPad +0x2f: {0} actuator entries queued, at most 3")]
    Count(u8),
    /// The state at +0x2e is neither 1 nor 4.
    #[error("ccPad +0x2e: actuator state {0}, expected 1 or 4")]
    State(u8),
}

/// Size of the motor fields in `ccPad`.
pub const LAYOUT_SIZE: usize = 24;
/// Where they start in `ccPad`.
pub const LAYOUT_OFFSET: u32 = 0x28;
/// A queued entry is sent only with this many vertical blanks or more left.
pub const MIN_SEND_TIME: u16 = 6;
/// Entries the queue holds, the idle entry not counted.
pub const QUEUE_DEPTH: usize = 3;

/// One pad's motor queue and `ccPad::Ctrl`'s sending state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ActuatorQueue {
    /// `ccPad::actuaterSw`, the Vibration option: while off, `SetActuater` queues nothing
    /// (what is queued stays). On for a new queue.
    pub switch_on: bool,
    /// A DualShock is connected and its actuators are set up (`SetActuater` needs it). True
    /// for a new queue; the engine layer clears it for a pad without motors.
    pub ready: bool,
    /// Entry 0 is the idle entry (both motors off); 1..=`count` the queue, the top last.
    entries: [ActuatorEntry; QUEUE_DEPTH + 1],
    /// Entries queued, at most [`QUEUE_DEPTH`] (kept so: the fields are private).
    count: u8,
    /// `ccPad::Ctrl`'s state.
    state: CtrlState,
    /// What was sent last (the `scePadSetActDirect` buffer).
    last_sent: Motors,
}

impl Default for ActuatorQueue {
    fn default() -> Self {
        ActuatorQueue {
            switch_on: true,
            ready: true,
            entries: [ActuatorEntry::default(); QUEUE_DEPTH + 1],
            count: 0,
            state: CtrlState::Look,
            last_sent: Motors::OFF,
        }
    }
}

/// `SetActuater`'s time: (3 ms + 25) / 50 vertical blanks, integer division (a 60 Hz vblank
/// is 50/3 ms; the 25 rounds half up), saturating at u16::MAX past about 1,092 seconds.
pub fn actuator_time(ms: u32) -> u16 {
    ((3 * ms as u64 + 25) / 50).min(u16::MAX as u64) as u16
}

impl ActuatorQueue {
    /// An empty queue, nothing marked, the switch on, looking.
    pub fn new() -> ActuatorQueue {
        ActuatorQueue::default()
    }

    /// The idle entry (0) and the queue (1..=[`ActuatorQueue::count`], the top last); the
    /// entries above the count are left-overs.
    pub fn entries(&self) -> &[ActuatorEntry; QUEUE_DEPTH + 1] {
        &self.entries
    }

    /// Entries queued, 0..=3.
    pub fn count(&self) -> usize {
        self.count as usize
    }

    /// `ccPad::Ctrl`'s sending state.
    pub fn state(&self) -> CtrlState {
        self.state
    }

    /// What `ccPad::Ctrl` sent last (both off before any send).
    pub fn last_sent(&self) -> Motors {
        self.last_sent
    }

    /// The top entry, if any is queued.
    pub fn top(&self) -> Option<&ActuatorEntry> {
        (self.count > 0).then(|| &self.entries[self.count as usize])
    }

    /// `SetActuater(small, power, ms)`. With the switch on and the pad ready: t = the time in
    /// vblanks; each queued entry loses t, or is dropped when it has t or less (the ones above
    /// it move down); then, with fewer than three left, the entry below the new top (the idle
    /// entry 0 when the queue is empty) is marked to send again and the new entry goes on top,
    /// marked. With three left the request is lost (but the others have lost t all the same).
    pub fn set_actuater(&mut self, small: bool, power: u8, ms: u32) {
        if !self.switch_on || !self.ready {
            return;
        }
        let t = actuator_time(ms);
        // From the top down; dropping moves the ones above down (order kept).
        let mut k = self.count as usize;
        while k > 0 {
            if self.entries[k].time > t {
                self.entries[k].time -= t;
            } else {
                self.entries.copy_within(k + 1..=self.count as usize, k);
                self.count -= 1;
            }
            k -= 1;
        }
        let n = self.count as usize;
        if n < QUEUE_DEPTH {
            self.entries[n].marked = true;
            self.entries[n + 1] = ActuatorEntry {
                time: t,
                motors: Motors {
                    small,
                    large: power,
                },
                marked: true,
            };
            self.count += 1;
        }
    }

    /// `ccSystem::Ctrl`'s part, once a frame: the finished entries (time 0) off the top, then
    /// the top loses `frame_rate` vblanks (1 at 60 fps, 2 at 30), not below 0.
    pub fn tick(&mut self, frame_rate: u16) {
        while self.count > 0 && self.entries[self.count as usize].time == 0 {
            self.count -= 1;
        }
        if self.count > 0 {
            let top = &mut self.entries[self.count as usize];
            top.time = top.time.saturating_sub(frame_rate);
        }
    }

    /// `ccPad::Ctrl` once a frame: the motors sent this frame, if any. The frame after a send
    /// only waits. Otherwise, with the queue empty and the idle entry marked, both motors off;
    /// with a marked top that has 6 vblanks or more left, the top's motors. Either unmarks
    /// what it sent.
    pub fn ctrl(&mut self) -> Option<Motors> {
        if self.state == CtrlState::Wait {
            self.state = CtrlState::Look;
            return None;
        }
        let n = self.count as usize;
        let entry = &mut self.entries[n];
        let send = if n == 0 {
            entry.marked
        } else {
            entry.marked && entry.time >= MIN_SEND_TIME
        };
        if !send {
            return None;
        }
        entry.marked = false;
        // The idle entry's motors are always off.
        let motors = if n == 0 { Motors::OFF } else { entry.motors };
        self.state = CtrlState::Wait;
        self.last_sent = motors;
        Some(motors)
    }

    /// The 24 bytes at `ccPad` +0x28, in the layout of the module documentation.
    pub fn to_bytes(&self) -> [u8; LAYOUT_SIZE] {
        let mut b = [0u8; LAYOUT_SIZE];
        b[0] = self.last_sent.small as u8;
        b[1] = self.last_sent.large;
        b[6] = self.state as u8;
        b[7] = self.count;
        for (k, e) in self.entries.iter().enumerate() {
            let at = 8 + 4 * k;
            b[at..at + 2].copy_from_slice(&e.time.to_le_bytes());
            b[at + 2] = e.motors.small as u8 | (e.marked as u8) << 1;
            b[at + 3] = e.motors.large;
        }
        b
    }

    /// The queue from the 24 bytes at `ccPad` +0x28; `switch_on` and `ready` are not in them
    /// and are taken as given.
    pub fn from_bytes(
        bytes: &[u8; LAYOUT_SIZE],
        switch_on: bool,
        ready: bool,
    ) -> Result<ActuatorQueue, LayoutError> {
        let state = match bytes[6] {
            1 => CtrlState::Look,
            4 => CtrlState::Wait,
            s => return Err(LayoutError::State(s)),
        };
        if bytes[7] as usize > QUEUE_DEPTH {
            return Err(LayoutError::Count(bytes[7]));
        }
        let mut entries = [ActuatorEntry::default(); QUEUE_DEPTH + 1];
        for (k, e) in entries.iter_mut().enumerate() {
            let at = 8 + 4 * k;
            *e = ActuatorEntry {
                time: u16::from_le_bytes([bytes[at], bytes[at + 1]]),
                motors: Motors {
                    small: bytes[at + 2] & 1 != 0,
                    large: bytes[at + 3],
                },
                marked: bytes[at + 2] & 2 != 0,
            };
        }
        Ok(ActuatorQueue {
            switch_on,
            ready,
            entries,
            count: bytes[7],
            state,
            last_sent: Motors {
                small: bytes[0] & 1 != 0,
                large: bytes[1],
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(small: bool, large: u8) -> Motors {
        Motors { small, large }
    }

    fn times(q: &ActuatorQueue) -> Vec<u16> {
        q.entries[1..=q.count as usize]
            .iter()
            .map(|e| e.time)
            .collect()
    }

    fn marks(q: &ActuatorQueue) -> Vec<bool> {
        q.entries[..=q.count as usize]
            .iter()
            .map(|e| e.marked)
            .collect()
    }

    #[test]
    fn time_is_3ms_plus_25_over_50() {
        assert_eq!(actuator_time(0), 0);
        assert_eq!(actuator_time(8), 0); // 49/50
        assert_eq!(actuator_time(9), 1); // 52/50
        assert_eq!(actuator_time(100), 6); // 325/50 = 6.5
        assert_eq!(actuator_time(200), 12); // 625/50 = 12.5
        assert_eq!(actuator_time(1000), 60); // 3025/50
        assert_eq!(actuator_time(u32::MAX), u16::MAX);
    }

    #[test]
    fn first_entry_marks_the_idle_entry() {
        let mut q = ActuatorQueue::new();
        q.set_actuater(true, 160, 200);
        assert_eq!(q.count, 1);
        assert_eq!(marks(&q), [true, true]);
        assert_eq!(
            q.entries[1],
            ActuatorEntry {
                time: 12,
                motors: m(true, 160),
                marked: true
            }
        );
    }

    #[test]
    fn entries_lose_t_or_drop_at_t_or_less() {
        let mut q = ActuatorQueue::new();
        q.set_actuater(true, 10, 2000); // 120
        q.set_actuater(false, 20, 200); // 12: 108, 12
        q.set_actuater(true, 30, 160); // 10: 98, 2, 10
        assert_eq!(times(&q), [98, 2, 10]);
        q.set_actuater(false, 40, 100); // 6: the middle (2) drops, the top (4) moves down
        assert_eq!(times(&q), [92, 4, 6]);
        assert_eq!(q.entries[2].motors, m(true, 30));
        assert_eq!(q.entries[3].motors, m(false, 40));
        assert_eq!(marks(&q), [true, true, true, true]);
        // Exactly t: dropped.
        q.set_actuater(true, 50, 100); // 6: 6 drops, 4 drops, 92 -> 86
        assert_eq!(times(&q), [86, 6]);
        assert_eq!(q.entries[1].motors, m(true, 10));
    }

    #[test]
    fn overflow_loses_the_request_but_the_others_lose_its_time() {
        let mut q = ActuatorQueue::new();
        q.set_actuater(true, 10, 2000); // 120
        q.set_actuater(false, 20, 1000); // 60
        q.set_actuater(true, 30, 500); // 30
        assert_eq!(times(&q), [30, 30, 30]);
        for e in &mut q.entries {
            e.marked = false;
        }
        q.set_actuater(false, 40, 100); // 6: no room
        assert_eq!(q.count, 3);
        assert_eq!(times(&q), [24, 24, 24]);
        assert_eq!(q.entries[3].motors, m(true, 30));
        // No room, nothing marked either.
        assert_eq!(marks(&q), [false; 4]);
    }

    #[test]
    fn switch_off_or_not_ready_queues_nothing() {
        let mut q = ActuatorQueue {
            switch_on: false,
            ..ActuatorQueue::new()
        };
        q.set_actuater(true, 255, 1000);
        assert_eq!(
            q,
            ActuatorQueue {
                switch_on: false,
                ..ActuatorQueue::new()
            }
        );
        let mut q = ActuatorQueue {
            ready: false,
            ..ActuatorQueue::new()
        };
        q.set_actuater(true, 255, 1000);
        assert_eq!(q.count, 0);
        assert_eq!(q.ctrl(), None);
    }

    #[test]
    fn tick_pops_finished_then_counts_the_top_not_below_zero() {
        let mut q = ActuatorQueue::new();
        q.set_actuater(true, 10, 2000); // 120
        q.set_actuater(false, 20, 100); // 6: 114, 6
        q.tick(2);
        assert_eq!(times(&q), [114, 4]);
        q.tick(5);
        assert_eq!(times(&q), [114, 0]);
        q.tick(2); // pops the 0, then 114 - 2
        assert_eq!(times(&q), [112]);
        q.tick(200);
        assert_eq!(times(&q), [0]);
        q.tick(1);
        assert_eq!(q.count, 0);
        q.tick(1);
        assert_eq!(q.count, 0);
    }

    #[test]
    fn tick_pops_several_finished_entries() {
        let mut q = ActuatorQueue::new();
        q.set_actuater(true, 10, 100); // 6
        q.set_actuater(false, 20, 100); // 6: the 6 drops; 6
        q.set_actuater(true, 30, 8); // 0: the 6 stays; 6, 0
        assert_eq!(times(&q), [6, 0]);
        q.entries[1].time = 0;
        q.tick(1);
        assert_eq!(q.count, 0);
    }

    #[test]
    fn ctrl_sends_then_waits_then_looks() {
        let mut q = ActuatorQueue::new();
        assert_eq!(q.ctrl(), None);
        q.set_actuater(true, 160, 200);
        assert_eq!(q.ctrl(), Some(m(true, 160)));
        assert_eq!(q.state, CtrlState::Wait);
        q.set_actuater(false, 200, 1000); // the 12 drops; idle marked
        assert_eq!(q.ctrl(), None); // waiting
        assert_eq!(q.ctrl(), Some(m(false, 200)));
        assert_eq!(q.ctrl(), None);
        assert_eq!(q.ctrl(), None); // nothing marked
        assert_eq!(q.last_sent, m(false, 200));
    }

    #[test]
    fn ctrl_needs_six_vblanks_left() {
        let mut q = ActuatorQueue::new();
        q.set_actuater(false, 255, 100); // 6
        q.tick(1); // 5
        assert_eq!(q.ctrl(), None);
        assert!(q.entries[1].marked);
        q.entries[1].time = 6;
        assert_eq!(q.ctrl(), Some(m(false, 255)));
    }

    #[test]
    fn empty_queue_sends_off_once_when_idle_is_marked() {
        let mut q = ActuatorQueue::new();
        q.set_actuater(true, 100, 100); // 6
        q.tick(6);
        q.tick(1); // popped
        assert_eq!(q.count, 0);
        assert_eq!(q.ctrl(), Some(Motors::OFF));
        assert_eq!(q.ctrl(), None);
        assert_eq!(q.ctrl(), None);
    }

    #[test]
    fn the_entry_below_is_sent_again_after_the_top() {
        let mut q = ActuatorQueue::new();
        q.set_actuater(true, 64, 1000); // 60
        assert_eq!(q.ctrl(), Some(m(true, 64)));
        q.ctrl();
        q.set_actuater(false, 255, 200); // 12 over 48
        assert_eq!(q.ctrl(), Some(m(false, 255)));
        q.ctrl();
        for _ in 0..6 {
            q.tick(2);
        }
        assert_eq!(q.ctrl(), None);
        q.tick(2); // pop, 48 -> 46
        assert_eq!(q.ctrl(), Some(m(true, 64)));
    }

    #[test]
    fn bytes_round_trip_in_the_documented_layout() {
        let mut q = ActuatorQueue::new();
        q.set_actuater(true, 10, 2000);
        q.set_actuater(false, 20, 200);
        assert_eq!(q.ctrl(), Some(m(false, 20)));
        let b = q.to_bytes();
        assert_eq!(&b[0..8], &[0, 20, 0, 0, 0, 0, 4, 2]);
        assert_eq!(&b[8..12], &[0, 0, 2, 0]); // idle: marked
        assert_eq!(&b[12..16], &[108, 0, 3, 10]); // 108, small on + marked, 10
        assert_eq!(&b[16..20], &[12, 0, 0, 20]); // 12, sent (unmarked), 20
        assert_eq!(ActuatorQueue::from_bytes(&b, true, true), Ok(q));
        let mut bad = b;
        bad[7] = 4;
        assert_eq!(
            ActuatorQueue::from_bytes(&bad, true, true),
            Err(LayoutError::Count(4))
        );
        bad[6] = 2;
        assert_eq!(
            ActuatorQueue::from_bytes(&bad, true, true),
            Err(LayoutError::State(2))
        );
    }
}
