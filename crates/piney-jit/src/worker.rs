//! The compile thread: Cranelift's work for hot blocks, off the EE's thread.
//!
//! Compiling a block costs about a millisecond here, tens of thousands of interpreted guest
//! instructions' worth. With the thread, the dispatcher sends a hot block's instructions
//! ([`Request`]) and goes on interpreting it; the generated code comes back ([`Done`]) and is
//! placed in code memory by the dispatcher, at a turn of its loop (no compiled code running),
//! and runs from its next visit on. Which instructions run compiled and which interpreted then
//! depends on the host's timing, the emulated machine does not: the recompiler leaves the
//! interpreter's state and cycle count after every block (the differential harness and the
//! tests on both engines hold it to that), so where it takes over changes nothing but speed.
//!
//! A request carries a ticket; a block changed while it compiled (code rewritten, every block
//! dropped) no longer waits for that ticket, and its code is thrown away on arrival.
//!
//! Requests wait in a queue, oldest first. When a section of a program turns hot, several of its
//! blocks queue at once, and the EE's thread interprets each until its turn comes: a request
//! still waiting while the thread compiles another can be taken back ([`Worker::take_back`])
//! and compiled on the EE's thread, the two compiling side by side (bench_compute: 2.9 -> 1.6
//! million instructions interpreted while their blocks compiled; 18 of its 46 blocks taken
//! back).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

use crate::JitError;
use crate::compile::{Codegen, Generated, Source};

/// A block to compile.
pub(crate) struct Request {
    pub pc: u32,
    pub ticket: u64,
    pub source: Source,
}

/// A block's generated code, or why there is none.
pub(crate) struct Done {
    pub pc: u32,
    pub ticket: u64,
    pub result: Result<Generated, JitError>,
}

/// The requests waiting for the thread, and what it is doing.
#[derive(Default)]
struct Queue {
    /// Waiting requests, oldest first (tickets rising).
    waiting: Mutex<VecDeque<Request>>,
    /// Signalled when a request is queued or the queue closes.
    wake: Condvar,
    /// No more requests: the thread ends once the queue is empty.
    closed: AtomicBool,
    /// The ticket of the last request the thread took (tickets start at 1: 0 is none).
    taken: AtomicU64,
    /// The thread is compiling a request.
    busy: AtomicBool,
}

impl Queue {
    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<Request>> {
        // A panic on the thread poisons nothing the queue relies on: the requests are whole.
        self.waiting.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn push(&self, r: Request) {
        self.lock().push_back(r);
        self.wake.notify_one();
    }

    /// The thread's next request (it is busy from then on), waiting for one; `None` once the
    /// queue is closed and empty.
    fn take(&self) -> Option<Request> {
        let mut waiting = self.lock();
        loop {
            if let Some(r) = waiting.pop_front() {
                self.taken.store(r.ticket, Ordering::Release);
                self.busy.store(true, Ordering::Release);
                return Some(r);
            }
            if self.closed.load(Ordering::Acquire) {
                return None;
            }
            waiting = self.wake.wait(waiting).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Request `ticket`, removed, when it still waits while the thread is busy with another.
    fn take_back(&self, ticket: u64) -> Option<Request> {
        // Two loads, and no lock, for a request the thread took already or will take next.
        if ticket <= self.taken.load(Ordering::Acquire) || !self.busy.load(Ordering::Acquire) {
            return None;
        }
        let mut waiting = self.lock();
        let k = waiting.iter().position(|r| r.ticket == ticket)?;
        waiting.remove(k)
    }

    fn close(&self) {
        self.lock().clear();
        self.closed.store(true, Ordering::Release);
        self.wake.notify_one();
    }
}

/// Run the calling thread below the emulation's threads (nice 10): where cores are short (two,
/// with the EE's thread and the software GS's busy), compiling ahead and in the background
/// yields to them instead of slowing the frame; a block the EE needs meanwhile it takes back
/// and compiles itself (see [`Worker::take_back`]). Best effort: a host that refuses leaves the
/// thread as it is.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    // Allowed: setpriority only changes the scheduling weight of the calling thread (on Linux
    // the nice value is per thread, and `who` 0 names the caller); no memory is touched.
    #[allow(unsafe_code)]
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, 0, 10);
    }
}

/// The compile thread, its request queue and its results.
pub(crate) struct Worker {
    queue: Arc<Queue>,
    done: Receiver<Done>,
    thread: Option<JoinHandle<()>>,
    /// Requests sent and neither received back nor taken back.
    pub in_flight: usize,
    /// Results the thread has sent, and those received: the dispatcher looks at the queue
    /// only when they differ (one load, where a look at the queue costs dozens).
    finished: Arc<AtomicUsize>,
    received: usize,
}

/// What [`Worker::poll`] found.
pub(crate) enum Poll {
    Done(Done),
    Empty,
    /// The thread is gone (it panicked): compile on the EE's thread from now on.
    Gone,
}

impl Worker {
    /// Start the thread with its own code generator.
    pub fn start(mut codegen: Codegen) -> Result<Self, JitError> {
        let queue = Arc::new(Queue::default());
        let (done_tx, done_rx) = mpsc::channel::<Done>();
        let finished = Arc::new(AtomicUsize::new(0));
        let sent = finished.clone();
        let q = queue.clone();
        let thread = std::thread::Builder::new()
            .name("piney-jit-compile".into())
            .spawn(move || {
                lower_priority();
                while let Some(r) = q.take() {
                    let result = codegen.generate(&r.source);
                    let d = Done {
                        pc: r.pc,
                        ticket: r.ticket,
                        result,
                    };
                    q.busy.store(false, Ordering::Release);
                    if done_tx.send(d).is_err() {
                        return;
                    }
                    sent.fetch_add(1, Ordering::Release);
                }
            })
            .map_err(|e| JitError::Setup(format!("compile thread: {e}")))?;
        Ok(Self {
            queue,
            done: done_rx,
            thread: Some(thread),
            in_flight: 0,
            finished,
            received: 0,
        })
    }

    /// Queue a request; false when the thread is gone.
    pub fn send(&mut self, r: Request) -> bool {
        if self.thread.as_ref().is_none_or(|t| t.is_finished()) {
            return false;
        }
        self.queue.push(r);
        self.in_flight += 1;
        true
    }

    /// Request `ticket` back, when it still waits while the thread compiles another: the
    /// caller compiles it itself rather than wait its turn (a section's blocks turning hot
    /// together queue up, and the EE's thread, interpreting meanwhile, would make little
    /// progress). `None` when the thread took it already or is about to (idle).
    pub fn take_back(&mut self, ticket: u64) -> Option<Request> {
        let r = self.queue.take_back(ticket)?;
        self.in_flight -= 1;
        Some(r)
    }

    /// Whether a result has arrived since the last [`Worker::poll`] took one (one load).
    pub fn arrived(&self) -> bool {
        self.in_flight > 0 && self.finished.load(Ordering::Acquire) != self.received
    }

    /// A finished request, waiting for one when `wait`.
    pub fn poll(&mut self, wait: bool) -> Poll {
        if self.in_flight == 0
            || (!wait
                && self.finished.load(Ordering::Acquire) == self.received
                && self.thread.as_ref().is_some_and(|t| !t.is_finished()))
        {
            return Poll::Empty;
        }
        let r = if wait {
            self.done.recv().map_err(|_| TryRecvError::Disconnected)
        } else {
            self.done.try_recv()
        };
        match r {
            Ok(d) => {
                self.in_flight -= 1;
                self.received += 1;
                Poll::Done(d)
            }
            Err(TryRecvError::Empty) => Poll::Empty,
            Err(TryRecvError::Disconnected) => Poll::Gone,
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // Closing the queue ends the thread after its current block (those waiting are
        // dropped).
        self.queue.close();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(ticket: u64) -> Request {
        Request {
            pc: 0x1000 + 4 * ticket as u32,
            ticket,
            source: Source {
                insns: Vec::new(),
                kill: crate::KillSwitches::default(),
                env: crate::compile::Env {
                    ram: 0,
                    mirrored: false,
                    ram_mask: 0,
                    spr: 0,
                    pages: 0,
                    lookup: 0,
                },
                spr: Vec::new(),
                assume32: true,
            },
        }
    }

    #[test]
    fn a_request_comes_back_only_while_it_waits_behind_a_busy_thread() {
        let q = Queue::default();
        for t in 1..=3 {
            q.push(request(t));
        }
        // The thread is idle: it takes the next request itself.
        assert!(q.take_back(2).is_none());
        assert_eq!(q.take().map(|r| r.ticket), Some(1));
        // Busy with 1: 1 is its own, 3 and 2 come back (once), in any order.
        assert!(q.take_back(1).is_none());
        assert_eq!(q.take_back(3).map(|r| r.pc), Some(0x100c));
        assert!(q.take_back(3).is_none());
        assert_eq!(q.take_back(2).map(|r| r.ticket), Some(2));
        // Idle again with nothing waiting; a closed queue ends the thread.
        q.busy.store(false, Ordering::Release);
        q.push(request(4));
        assert!(q.take_back(4).is_none());
        q.close();
        assert!(
            q.take().is_none(),
            "closing drops the requests still waiting"
        );
    }

    #[test]
    fn the_thread_never_compiles_a_request_taken_back() {
        let q = Queue::default();
        q.push(request(1));
        q.push(request(2));
        assert_eq!(q.take().map(|r| r.ticket), Some(1));
        assert!(q.take_back(2).is_some());
        q.push(request(3));
        assert_eq!(
            q.take().map(|r| r.ticket),
            Some(3),
            "2 is gone from the queue"
        );
    }
}
