//! The IOP's timed events, in IOP cycles: an ordered queue, ties broken by insertion order.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// What happens at a time.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum EventKind {
    /// A kernel alarm (SetAlarm, DelayThread) with this id expires.
    Alarm(u32),
    /// DMA channel `n` has its next block due.
    Dma(u8),
    /// Root counter `n` reaches its interrupt.
    Counter(u8),
    /// The CD/DVD drive's command in flight completes.
    Cdvd,
    /// A stream read's sectors have come.
    CdvdStream,
    /// The SPU2's next batch of samples is due.
    Spu2,
}

/// The queue.
#[derive(Debug, Default, Clone, serde::Serialize, serde::Deserialize)]
pub struct Events {
    heap: BinaryHeap<Reverse<(u64, u64, EventKind)>>,
    seq: u64,
}

impl Events {
    /// Schedule `kind` at cycle `at`.
    pub fn schedule(&mut self, at: u64, kind: EventKind) {
        self.seq += 1;
        self.heap.push(Reverse((at, self.seq, kind)));
    }

    /// Remove every pending `kind`.
    pub fn cancel(&mut self, kind: EventKind) {
        self.heap.retain(|Reverse((_, _, k))| *k != kind);
    }

    /// When the next `kind` is due, if one is pending.
    pub fn due_of(&self, kind: EventKind) -> Option<u64> {
        self.heap
            .iter()
            .filter(|Reverse((_, _, k))| *k == kind)
            .map(|Reverse((t, _, _))| *t)
            .min()
    }

    /// The earliest due time.
    pub fn next_due(&self) -> Option<u64> {
        self.heap.peek().map(|Reverse((t, _, _))| *t)
    }

    /// The earliest event due at or before `now`, with how late it is.
    pub fn pop_due(&mut self, now: u64) -> Option<(EventKind, u64)> {
        match self.heap.peek() {
            Some(Reverse((t, _, _))) if *t <= now => {
                let Reverse((t, _, k)) = self.heap.pop()?;
                Some((k, now - t))
            }
            _ => None,
        }
    }
}
