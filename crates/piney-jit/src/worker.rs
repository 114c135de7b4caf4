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

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};
use std::thread::JoinHandle;

use crate::compile::{Codegen, Env, Generated, Insn};
use crate::{JitError, KillSwitches};

/// A block to compile.
pub(crate) struct Request {
    pub pc: u32,
    pub ticket: u64,
    pub insns: Vec<Insn>,
    pub kill: KillSwitches,
    pub env: Env,
    /// Per instruction: seen reaching the scratchpad (see `Jit::spr_sites`).
    pub spr: Vec<bool>,
    pub assume32: bool,
}

/// A block's generated code, or why there is none.
pub(crate) struct Done {
    pub pc: u32,
    pub ticket: u64,
    pub result: Result<Generated, JitError>,
}

/// The compile thread and its two queues.
pub(crate) struct Worker {
    requests: Option<Sender<Request>>,
    done: Receiver<Done>,
    thread: Option<JoinHandle<()>>,
    /// Requests sent and not received back.
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
        let (req_tx, req_rx) = mpsc::channel::<Request>();
        let (done_tx, done_rx) = mpsc::channel::<Done>();
        let finished = Arc::new(AtomicUsize::new(0));
        let sent = finished.clone();
        let thread = std::thread::Builder::new()
            .name("piney-jit-compile".into())
            .spawn(move || {
                while let Ok(r) = req_rx.recv() {
                    let result = codegen.generate(&r.insns, r.kill, &r.env, &r.spr, r.assume32);
                    let d = Done {
                        pc: r.pc,
                        ticket: r.ticket,
                        result,
                    };
                    if done_tx.send(d).is_err() {
                        break;
                    }
                    sent.fetch_add(1, Ordering::Release);
                }
            })
            .map_err(|e| JitError::Setup(format!("compile thread: {e}")))?;
        Ok(Self {
            requests: Some(req_tx),
            done: done_rx,
            thread: Some(thread),
            in_flight: 0,
            finished,
            received: 0,
        })
    }

    /// Queue a request; false when the thread is gone.
    pub fn send(&mut self, r: Request) -> bool {
        let sent = self.requests.as_ref().is_some_and(|t| t.send(r).is_ok());
        if sent {
            self.in_flight += 1;
        }
        sent
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
        // Closing the request queue ends the thread after its current block.
        self.requests = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
