//! The task scheduler, natively (engine reference, "Tasks"; issue 6).
//!
//! Tasks are kernel threads described by `ccTscb` records (0x54 bytes, layout below), kept in
//! one list from `tscbTop` along `link`. Once a frame main wakes `ccThControl`, which walks the
//! list and, per task: serves a start request (`sr`: GoThread, CreateThread + StartThread);
//! at delete stage 2 runs `funcI(tmngI)` and terminates the thread, at stage 3 runs
//! `func(tmng)`, deletes the thread and unlinks and frees the record and stack; resumes a
//! suspended task; wakes a task waiting in Breath whose `sleep` is 0. It then wakes main and
//! sleeps. The woken tasks then run in kernel priority order (lowest number first; equal
//! priorities in the order they were woken, which is list order, which is start order), each
//! until its next `Breath`, and main (the lowest priority) last.
//!
//! Natively: `ccThControl`'s loop, the walk, `ccTscb::Breath` and `ccTscb::GoThread` are
//! hooks that call the HLE kernel's services directly (no syscall instruction, no guest code)
//! and hand control between tasks through it: a task's `Breath` puts its thread to sleep in the
//! kernel, which switches to the next woken task at once. The game's own callbacks and its heap
//! (`ccHeap_Free`) stay guest code, called from the native walk (see [`crate::guest`]).
//!
//! The `ccTscb` layout (the reference's; the demo's demo/src/tscb.h checks it):
//! `+0x00 entry, +0x04 tid (s16), +0x06 priority (s16), +0x08 sleep (s16), +0x0a sr (s8),
//! +0x0b del (s8), +0x0c size, +0x10 mask (0x08 suspended, 0x20 in Breath), +0x14 param[8],
//! +0x34 link, +0x38 name, +0x3c tmng, +0x40 func, +0x44 tmngI, +0x48 funcI, +0x4c stack,
//! +0x50 t0count (u16), +0x52 stackOverFlag (u16)`.

use piney_machine::hooks::HookResult;
use piney_machine::{Machine, MachineError};

use crate::guest::{self, Resume, reg, sys};

/// `ccTscb` field offsets.
mod tscb {
    pub const TID: u32 = 0x04;
    pub const PRIORITY: u32 = 0x06;
    pub const SLEEP: u32 = 0x08;
    pub const SR: u32 = 0x0a;
    pub const DEL: u32 = 0x0b;
    pub const SIZE: u32 = 0x0c;
    pub const MASK: u32 = 0x10;
    pub const LINK: u32 = 0x34;
    pub const NAME: u32 = 0x38;
    pub const TMNG: u32 = 0x3c;
    pub const FUNC: u32 = 0x40;
    pub const TMNG_I: u32 = 0x44;
    pub const FUNC_I: u32 = 0x48;
    pub const STACK: u32 = 0x4c;
    pub const T0COUNT: u32 = 0x50;
    pub const STACK_OVER: u32 = 0x52;
}

/// `mask`: suspended (SuspendThread'ed; the next walk resumes it).
const MASK_SUSPENDED: u32 = 0x08;
/// `mask`: waiting in Breath.
const MASK_BREATH: u32 = 0x20;
/// `del`: stage 2 (funcI, terminate).
const DEL_TERMINATE: i8 = 2;
/// `del`: stage 3 (func, delete, free).
const DEL_FREE: i8 = 3;
/// The word GoThread writes at the bottom of a task's stack; found changed by the walk, the
/// task's `stackOverFlag` is set (the demo's value, demo/src/tscb.c `STACK_GUARD`).
pub const STACK_GUARD: u32 = 0x57ac_6b0a;
/// EE Timer 0's count register (T0_COUNT): Breath keeps its low 16 bits in `t0count`.
const T0_COUNT: u32 = 0x1000_0000;

/// The guest addresses the scheduler natives need (from the profile).
#[derive(Debug, Clone, Copy)]
pub struct TaskSyms {
    /// `tscbTop`: the list head (a pointer).
    pub tscb_top: u32,
    /// `tscbMain`: main's thread id (an s32).
    pub tscb_main: u32,
    /// `ccThControl_Walk`: one walk (hooked itself, or guest code).
    pub walk: u32,
    /// `ccTscb_GoThread`.
    pub go_thread: u32,
    /// `ccHeap_Free`.
    pub heap_free: u32,
    /// `tscb_entry`: where every task's thread starts (the task's code, then its deletion).
    pub tscb_entry: u32,
}

const WHAT: &str = "the task list";

fn tid(m: &mut Machine, t: u32) -> Result<u32, MachineError> {
    // s16, sign-extended as the guest passes it.
    Ok(guest::rd16(m, t + tscb::TID, WHAT)? as i16 as i32 as u32)
}

/// `ccThControl(arg)`: the scheduler thread's whole loop. Entered when its thread starts; every
/// later step resumes at one of its [`Resume`] points. It never returns.
pub fn th_control(
    m: &mut Machine,
    s: &TaskSyms,
    at: Option<Resume>,
) -> Result<HookResult, MachineError> {
    let mut at = at.unwrap_or(Resume::ThControlMainWoken);
    let mut steps = 0;
    loop {
        steps += 1;
        if steps > guest::MAX_NATIVE_STEPS {
            return Err(guest::stuck(m, "ccThControl", &format!("at {at:?}")));
        }
        match at {
            // Sleep until main's WakeupThread, once a frame.
            Resume::ThControlMainWoken => {
                match guest::kernel(m, sys::SLEEP_THREAD, [0; 4], Resume::ThControlWoken)? {
                    Some(_) => at = Resume::ThControlWoken,
                    None => return Ok(HookResult::Continue),
                }
            }
            Resume::ThControlWoken => {
                return Ok(guest::call(m, s.walk, &[], Resume::ThControlWalked));
            }
            // Main has the lowest priority: it runs (ccSystem::Ctrl) once every woken task has
            // reached its next Breath.
            Resume::ThControlWalked => {
                let main = guest::rd32(m, s.tscb_main, "tscbMain")?;
                match guest::kernel(
                    m,
                    sys::WAKEUP_THREAD,
                    [main, 0, 0, 0],
                    Resume::ThControlMainWoken,
                )? {
                    Some(_) => at = Resume::ThControlMainWoken,
                    None => return Ok(HookResult::Continue),
                }
            }
            other => unreachable!("ccThControl does not resume at {other:?}"),
        }
    }
}

/// Where the walk is between its steps: `$s0` the address of the link being followed (at
/// first `tscbTop`), `$s1` the task it points at.
enum Walk {
    /// Look at the task `*s0`.
    Examine,
    /// Stage 2's callback ran: terminate.
    Terminate,
    /// Terminated: stage 3 comes at the next walk.
    Terminated,
    /// Stage 3's callback ran: delete the thread.
    Delete,
    /// Unlinked and the thread deleted: free the stack.
    Unlinked,
    /// Resumed: clear the suspended bit, then the Breath check.
    Resumed,
    /// The Breath check: wake a task waiting in Breath with `sleep` 0.
    WakeCheck,
    /// Done with this task: the stack check, then the next link.
    Next,
}

/// `ccThControl_Walk()`: one walk of the task list (see the module doc for the rules).
pub fn walk(m: &mut Machine, s: &TaskSyms, at: Option<Resume>) -> Result<HookResult, MachineError> {
    let mut step = match at {
        None => {
            guest::push_frame(m, "ccThControl_Walk: its frame")?;
            guest::set(m, reg::S0, s.tscb_top);
            Walk::Examine
        }
        Some(Resume::WalkStarted) | Some(Resume::WalkWoke) => Walk::Next,
        Some(Resume::WalkStage2Callback) => Walk::Terminate,
        Some(Resume::WalkTerminated) => Walk::Terminated,
        Some(Resume::WalkStage3Callback) => Walk::Delete,
        Some(Resume::WalkDeleted) => Walk::Unlinked,
        Some(Resume::WalkFreedStack) => {
            let t = guest::get(m, reg::S1);
            return Ok(guest::call(m, s.heap_free, &[t], Resume::WalkFreedRecord));
        }
        // The record is gone; the same link now leads to the next task.
        Some(Resume::WalkFreedRecord) => Walk::Examine,
        Some(Resume::WalkResumed) => Walk::Resumed,
        Some(other) => unreachable!("the walk does not resume at {other:?}"),
    };
    loop {
        let t = guest::get(m, reg::S1);
        step = match step {
            Walk::Examine => {
                let link = guest::get(m, reg::S0);
                let t = guest::rd32(m, link, WHAT)?;
                if t == 0 {
                    guest::pop_frame(m, "ccThControl_Walk: its frame")?;
                    return Ok(guest::ret(m));
                }
                guest::set(m, reg::S1, t);
                let del = guest::rd8(m, t + tscb::DEL, WHAT)? as i8;
                if guest::rd8(m, t + tscb::SR, WHAT)? != 0 {
                    // Start request: the thread starts and runs its set-up up to its first
                    // Breath (after the walk, by priority).
                    guest::wr8(m, t + tscb::SR, 0, WHAT)?;
                    return Ok(guest::call(m, s.go_thread, &[t], Resume::WalkStarted));
                } else if del == DEL_TERMINATE {
                    let (f, a) = (
                        guest::rd32(m, t + tscb::FUNC_I, WHAT)?,
                        guest::rd32(m, t + tscb::TMNG_I, WHAT)?,
                    );
                    if f != 0 {
                        return Ok(guest::call(m, f, &[a], Resume::WalkStage2Callback));
                    }
                    Walk::Terminate
                } else if del == DEL_FREE {
                    let (f, a) = (
                        guest::rd32(m, t + tscb::FUNC, WHAT)?,
                        guest::rd32(m, t + tscb::TMNG, WHAT)?,
                    );
                    if f != 0 {
                        return Ok(guest::call(m, f, &[a], Resume::WalkStage3Callback));
                    }
                    Walk::Delete
                } else if guest::rd32(m, t + tscb::MASK, WHAT)? & MASK_SUSPENDED != 0 {
                    let id = tid(m, t)?;
                    match guest::kernel(m, sys::RESUME_THREAD, [id, 0, 0, 0], Resume::WalkResumed)?
                    {
                        Some(_) => Walk::Resumed,
                        None => return Ok(HookResult::Continue),
                    }
                } else {
                    Walk::WakeCheck
                }
            }
            Walk::Terminate => {
                let id = tid(m, t)?;
                match guest::kernel(
                    m,
                    sys::TERMINATE_THREAD,
                    [id, 0, 0, 0],
                    Resume::WalkTerminated,
                )? {
                    Some(_) => Walk::Terminated,
                    None => return Ok(HookResult::Continue),
                }
            }
            Walk::Terminated => {
                guest::wr8(m, t + tscb::DEL, DEL_FREE as u8, WHAT)?;
                Walk::Next
            }
            Walk::Delete => {
                let id = tid(m, t)?;
                match guest::kernel(m, sys::DELETE_THREAD, [id, 0, 0, 0], Resume::WalkDeleted)? {
                    Some(_) => Walk::Unlinked,
                    None => return Ok(HookResult::Continue),
                }
            }
            Walk::Unlinked => {
                let link = guest::get(m, reg::S0);
                let next = guest::rd32(m, t + tscb::LINK, WHAT)?;
                guest::wr32(m, link, next, WHAT)?;
                let stack = guest::rd32(m, t + tscb::STACK, WHAT)?;
                return Ok(guest::call(
                    m,
                    s.heap_free,
                    &[stack],
                    Resume::WalkFreedStack,
                ));
            }
            Walk::Resumed => {
                let mask = guest::rd32(m, t + tscb::MASK, WHAT)?;
                guest::wr32(m, t + tscb::MASK, mask & !MASK_SUSPENDED, WHAT)?;
                Walk::WakeCheck
            }
            Walk::WakeCheck => {
                let mask = guest::rd32(m, t + tscb::MASK, WHAT)?;
                let sleep = guest::rd16(m, t + tscb::SLEEP, WHAT)?;
                if mask & MASK_BREATH != 0 && sleep == 0 {
                    let id = tid(m, t)?;
                    match guest::kernel(m, sys::WAKEUP_THREAD, [id, 0, 0, 0], Resume::WalkWoke)? {
                        Some(_) => Walk::Next,
                        None => return Ok(HookResult::Continue),
                    }
                } else {
                    Walk::Next
                }
            }
            Walk::Next => {
                let stack = guest::rd32(m, t + tscb::STACK, WHAT)?;
                if stack != 0 && guest::rd32(m, stack, "a task's stack guard")? != STACK_GUARD {
                    guest::wr16(m, t + tscb::STACK_OVER, 1, WHAT)?;
                }
                guest::set(m, reg::S0, t + tscb::LINK);
                Walk::Examine
            }
        };
    }
}

/// The task records in list order, from `tscbTop` along `link`. A list that does not end (a
/// loop in its links) is an error.
pub(crate) fn task_list(m: &mut Machine, tscb_top: u32) -> Result<Vec<u32>, MachineError> {
    let mut out = Vec::new();
    let mut t = guest::rd32(m, tscb_top, "tscbTop")?;
    while t != 0 {
        if out.len() >= 1 << 16 {
            return Err(MachineError::Kernel {
                what: "native scheduler: the task list does not end (a loop in its links)".into(),
                pc: m.cpu.pc,
            });
        }
        out.push(t);
        t = guest::rd32(m, t + tscb::LINK, WHAT)?;
    }
    Ok(out)
}

/// The calling thread's task record (ccGetTscb: the task whose `tid` is the running thread's),
/// 0 when none.
fn current_task(m: &mut Machine, s: &TaskSyms) -> Result<u32, MachineError> {
    let me = guest::thread_id(m) as i32;
    for t in task_list(m, s.tscb_top)? {
        if tid(m, t)? as i32 == me {
            return Ok(t);
        }
    }
    Ok(0)
}

/// Where Breath is between the kernel's sleeps.
#[derive(Debug)]
enum Breath {
    /// Sleep, to resume at this point.
    Sleep(Resume),
    /// One of the `n` wake-ups came.
    Count,
    /// The hold: keep sleeping while `sleep` or `del` is set.
    Hold,
}

/// `ccTscb::Breath(n)`: `do SleepThread(); while (--n > 0);`, then `while (sleep || del)
/// SleepThread();`. `t0count` takes Timer 0 and `mask` the Breath bit meanwhile. State across
/// the kernel's sleeps: `$t0` the task, `$t1` the wake-ups still to sleep through.
pub fn breath(
    m: &mut Machine,
    s: &TaskSyms,
    at: Option<Resume>,
) -> Result<HookResult, MachineError> {
    let mut step = match at {
        None => {
            let n = guest::arg(m, 0);
            let t = current_task(m, s)?;
            if t == 0 {
                let id = guest::thread_id(m);
                guest::print(m, &format!("Breath outside a task (thread {id})\n"));
                return Ok(guest::ret(m));
            }
            let t0 = guest::rd32(m, T0_COUNT, "Timer 0")?;
            guest::wr16(m, t + tscb::T0COUNT, t0 as u16, WHAT)?;
            let mask = guest::rd32(m, t + tscb::MASK, WHAT)?;
            guest::wr32(m, t + tscb::MASK, mask | MASK_BREATH, WHAT)?;
            guest::set(m, reg::T0, t);
            guest::set(m, reg::T1, n);
            Breath::Sleep(Resume::BreathWoken)
        }
        Some(Resume::BreathWoken) => Breath::Count,
        Some(Resume::BreathHeld) => Breath::Hold,
        Some(other) => unreachable!("Breath does not resume at {other:?}"),
    };
    let mut steps = 0;
    loop {
        steps += 1;
        if steps > guest::MAX_NATIVE_STEPS {
            return Err(guest::stuck(m, "ccTscb::Breath", &format!("at {step:?}")));
        }
        let t = guest::get(m, reg::T0);
        step = match step {
            Breath::Sleep(then) => match guest::kernel(m, sys::SLEEP_THREAD, [0; 4], then)? {
                Some(_) if then == Resume::BreathWoken => Breath::Count,
                Some(_) => Breath::Hold,
                None => return Ok(HookResult::Continue),
            },
            Breath::Count => {
                let n = (guest::get(m, reg::T1) as i32).wrapping_sub(1);
                guest::set(m, reg::T1, n as u32);
                if n > 0 {
                    Breath::Sleep(Resume::BreathWoken)
                } else {
                    Breath::Hold
                }
            }
            Breath::Hold => {
                let sleep = guest::rd16(m, t + tscb::SLEEP, WHAT)?;
                let del = guest::rd8(m, t + tscb::DEL, WHAT)?;
                if sleep != 0 || del != 0 {
                    Breath::Sleep(Resume::BreathHeld)
                } else {
                    let mask = guest::rd32(m, t + tscb::MASK, WHAT)?;
                    guest::wr32(m, t + tscb::MASK, mask & !MASK_BREATH, WHAT)?;
                    return Ok(guest::ret(m));
                }
            }
        };
    }
}

/// Bytes GoThread takes below `$sp` for CreateThread's parameter block (ee_thread_t, 0x24
/// bytes), 16-byte aligned.
const GO_FRAME: u32 = 0x30;

/// `ccTscb::GoThread(t)`: the guard word at the stack's bottom, CreateThread (entry
/// `tscb_entry`, the task's stack, size and priority, the caller's `$gp`) and StartThread with
/// the record as the argument; a failed CreateThread prints and marks the task for freeing.
/// State across the kernel calls: `$t0` the task.
pub fn go_thread(
    m: &mut Machine,
    s: &TaskSyms,
    at: Option<Resume>,
) -> Result<HookResult, MachineError> {
    match at {
        None => {
            let t = guest::arg(m, 0);
            let stack = guest::rd32(m, t + tscb::STACK, WHAT)?;
            guest::wr32(m, stack, STACK_GUARD, "a task's stack guard")?;
            let size = guest::rd32(m, t + tscb::SIZE, WHAT)?;
            let prio = guest::rd16(m, t + tscb::PRIORITY, WHAT)? as i16 as i32 as u32;
            let gp = guest::get(m, 28);
            // ee_thread_t: status, func, stack, stack_size, gp_reg, initial_priority,
            // current_priority, attr, option.
            let param = [0, s.tscb_entry, stack, size, gp, prio, 0, 0, 0];
            let sp = guest::get(m, reg::SP).wrapping_sub(GO_FRAME);
            let bytes: Vec<u8> = param.iter().flat_map(|w: &u32| w.to_le_bytes()).collect();
            guest::write_bytes(m, sp, &bytes, "ccTscb_GoThread: CreateThread's parameters")?;
            guest::set(m, reg::SP, sp);
            guest::set(m, reg::T0, t);
            match guest::kernel(m, sys::CREATE_THREAD, [sp, 0, 0, 0], Resume::GoCreated)? {
                Some(_) => go_thread(m, s, Some(Resume::GoCreated)),
                None => Ok(HookResult::Continue),
            }
        }
        Some(Resume::GoCreated) => {
            let t = guest::get(m, reg::T0);
            let id = guest::get(m, reg::V0) as i32;
            let sp = guest::get(m, reg::SP).wrapping_add(GO_FRAME);
            guest::set(m, reg::SP, sp);
            if id < 0 {
                let name_at = guest::rd32(m, t + tscb::NAME, WHAT)?;
                let name = m
                    .bus
                    .read_cstr(name_at, 256)
                    .map_err(|_| guest::fault(m, "GoThread: the task's name", name_at))?;
                guest::print(m, &format!("GoThread {name}: CreateThread failed ({id})\n"));
                guest::wr8(m, t + tscb::DEL, DEL_FREE as u8, WHAT)?;
                return Ok(guest::ret(m));
            }
            guest::wr16(m, t + tscb::TID, id as u16, WHAT)?;
            match guest::kernel(
                m,
                sys::START_THREAD,
                [id as u32, t, 0, 0],
                Resume::GoStarted,
            )? {
                Some(_) => Ok(guest::ret(m)),
                None => Ok(HookResult::Continue),
            }
        }
        Some(Resume::GoStarted) => Ok(guest::ret(m)),
        Some(other) => unreachable!("GoThread does not resume at {other:?}"),
    }
}
