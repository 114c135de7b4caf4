//! The two guards around a case that cannot be checked after it returns: the allocation cap
//! and the watchdog. Both stop the whole process when they fire (an allocation that is too
//! large cannot be refused without aborting, and a hung thread cannot be stopped), after
//! printing every running case as a line that reproduces it.
//!
//! - [`CapAlloc`] is a global allocator around the system's: it fails the run when one
//!   allocation asks for more than [`alloc_limit`] bytes (default 64 MiB, `PINEY_FUZZ_ALLOC_MB`)
//!   or when the bytes live in the whole process pass [`LIVE_LIMIT`]. A binary opts in with
//!   `#[global_allocator] static A: piney_fuzz::guard::CapAlloc = piney_fuzz::guard::CapAlloc;`
//!   (the fuzz test and the example do). It also records the largest allocation each thread
//!   made, which the reports print.
//! - The watchdog is one thread that looks at the running cases every 50 ms and stops the
//!   process when one has run past its deadline: a hang is a failure.
//!
//! Nothing here allocates on the allocator's path: the case labels live in a fixed table.
// A global allocator is an `unsafe impl` that calls the system allocator's unsafe functions;
// it only forwards them and counts (workspace lint `unsafe_code = "deny"` is lifted for this
// module alone).
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::io::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The default cap on one allocation: 64 MiB. The targets need at most the EE's 32 MiB of RAM
/// (a machine) or a memory card image's 8.25 MiB twice over; a larger request comes from a size
/// read from the input, unchecked (a 4095 x 4095 readback asked for 128 MiB, a PNG header
/// 256 MiB).
pub const DEFAULT_ALLOC_LIMIT: usize = 64 << 20;

/// The cap on the bytes live in the whole process (all threads, all cases at once): 6 GiB.
pub const LIVE_LIMIT: usize = 6 << 30;

static LIMIT: AtomicUsize = AtomicUsize::new(DEFAULT_ALLOC_LIMIT);
static LIVE: AtomicUsize = AtomicUsize::new(0);
static INSTALLED: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// The largest allocation this thread made since [`take_largest`].
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

/// The cap on one allocation now in force.
pub fn alloc_limit() -> usize {
    LIMIT.load(Ordering::Relaxed)
}

/// Sets the cap on one allocation (bytes).
pub fn set_alloc_limit(bytes: usize) {
    LIMIT.store(bytes, Ordering::Relaxed);
}

/// Whether [`CapAlloc`] is the global allocator of this process (it has served a request).
pub fn cap_installed() -> bool {
    INSTALLED.load(Ordering::Relaxed)
}

/// Bytes live in the process now (0 without [`CapAlloc`]).
pub fn live_bytes() -> usize {
    LIVE.load(Ordering::Relaxed)
}

/// The largest allocation this thread made since the last call (0 without [`CapAlloc`]).
pub fn take_largest() -> usize {
    LARGEST.try_with(|l| l.replace(0)).unwrap_or(0)
}

/// The allocator: the system's, with the caps.
pub struct CapAlloc;

impl CapAlloc {
    #[inline]
    fn check(size: usize) {
        let _ = LARGEST.try_with(|l| {
            if size > l.get() {
                l.set(size);
            }
        });
        if size > LIMIT.load(Ordering::Relaxed) {
            fail(
                b"one allocation of ",
                size,
                b" bytes, past the cap of ",
                alloc_limit(),
            );
        }
        let live = LIVE.fetch_add(size, Ordering::Relaxed) + size;
        if live > LIVE_LIMIT {
            LIVE.fetch_sub(size, Ordering::Relaxed);
            fail(
                b"the process would hold ",
                live,
                b" bytes, past the cap of ",
                LIVE_LIMIT,
            );
        }
    }
}

// SAFETY: every function forwards to `System` with the caller's layout and pointer unchanged;
// the bookkeeping touches only atomics and a const-initialised thread-local `Cell`.
unsafe impl GlobalAlloc for CapAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        INSTALLED.store(true, Ordering::Relaxed);
        Self::check(layout.size());
        // SAFETY: the caller's contract for `alloc` is passed on unchanged.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        INSTALLED.store(true, Ordering::Relaxed);
        Self::check(layout.size());
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `ptr` was allocated by `System` with `layout` (every path above forwards).
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            let grow = new_size - layout.size();
            let _ = LARGEST.try_with(|l| {
                if new_size > l.get() {
                    l.set(new_size);
                }
            });
            if new_size > LIMIT.load(Ordering::Relaxed) {
                fail(
                    b"one allocation of ",
                    new_size,
                    b" bytes, past the cap of ",
                    alloc_limit(),
                );
            }
            LIVE.fetch_add(grow, Ordering::Relaxed);
        } else {
            LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        // SAFETY: as for `alloc`; `ptr` and `layout` come from this allocator.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// A running case, as the guards see it.
#[derive(Clone, Copy)]
struct Slot {
    used: bool,
    label: [u8; 160],
    len: usize,
    started: Option<Instant>,
    deadline: Duration,
}

const EMPTY: Slot = Slot {
    used: false,
    label: [0; 160],
    len: 0,
    started: None,
    deadline: Duration::ZERO,
};

static RUNNING: Mutex<[Slot; 32]> = Mutex::new([EMPTY; 32]);

/// A case registered with the guards; dropping it ends the case.
pub struct CaseGuard {
    slot: usize,
}

/// Registers a case: `label` (at most 160 bytes are kept) is what the guards print should it
/// fail; `deadline` is how long it may run. Starts the watchdog on first use.
pub fn enter(label: &str, deadline: Duration) -> CaseGuard {
    start_watchdog();
    let mut table = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
    let slot = table
        .iter()
        .position(|s| !s.used)
        .unwrap_or(table.len() - 1);
    let mut s = EMPTY;
    s.used = true;
    s.len = label.len().min(s.label.len());
    s.label[..s.len].copy_from_slice(&label.as_bytes()[..s.len]);
    s.started = Some(Instant::now());
    s.deadline = deadline;
    table[slot] = s;
    CaseGuard { slot }
}

impl Drop for CaseGuard {
    fn drop(&mut self) {
        let mut table = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
        table[self.slot] = EMPTY;
    }
}

fn start_watchdog() {
    static STARTED: std::sync::Once = std::sync::Once::new();
    STARTED.call_once(|| {
        std::thread::Builder::new()
            .name("piney-fuzz watchdog".into())
            .spawn(|| {
                loop {
                    std::thread::sleep(Duration::from_millis(50));
                    let table = *RUNNING.lock().unwrap_or_else(|e| e.into_inner());
                    for s in table.iter().filter(|s| s.used) {
                        let Some(t) = s.started else { continue };
                        if t.elapsed() > s.deadline {
                            let mut err = std::io::stderr().lock();
                            let _ = writeln!(
                                err,
                                "\npiney-fuzz: HANG: {} ran past its deadline of {:?}",
                                String::from_utf8_lossy(&s.label[..s.len]),
                                s.deadline
                            );
                            let _ = err.flush();
                            drop(err);
                            std::process::exit(3);
                        }
                    }
                }
            })
            .expect("the watchdog thread starts");
    });
}

/// Stops the process after printing, without allocating, why and every running case.
fn fail(what: &[u8], n: usize, past: &[u8], cap: usize) -> ! {
    let mut err = std::io::stderr();
    let mut num = [0u8; 20];
    let _ = err.write_all(b"\npiney-fuzz: ALLOCATION: ");
    let _ = err.write_all(what);
    let _ = err.write_all(decimal(n, &mut num));
    let _ = err.write_all(past);
    let _ = err.write_all(decimal(cap, &mut num));
    let _ = err.write_all(b" bytes; running:\n");
    if let Ok(table) = RUNNING.try_lock() {
        for s in table.iter().filter(|s| s.used) {
            let _ = err.write_all(b"  ");
            let _ = err.write_all(&s.label[..s.len]);
            let _ = err.write_all(b"\n");
        }
    }
    std::process::abort()
}

fn decimal(mut n: usize, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return &buf[i..];
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn decimals() {
        let mut b = [0; 20];
        assert_eq!(super::decimal(0, &mut b), b"0");
        assert_eq!(super::decimal(536870912, &mut b), b"536870912");
        assert_eq!(
            super::decimal(usize::MAX, &mut b),
            usize::MAX.to_string().as_bytes()
        );
    }
}
