//! Time: the system clock, alarms (SetAlarm, DelayThread) and the vblank library.
//!
//! The system clock counts IOP cycles (36.864 MHz, the console's threadman runs it off a hard
//! timer at the system clock). USec2SysClock multiplies by 0x1200 / 125 (= 36.864), as the
//! console's threadman does; the shortest alarm is 100 us (3686 cycles). Alarm handlers run in
//! interrupt context; a non-zero return re-arms the alarm that many cycles after its last
//! expiry. The vblank library's own handlers sit on the VBLANK and EVBLANK lines, as the
//! console's vblank module registers them at boot: they release WaitVblank* waiters and run the
//! RegisterVblankHandler chain (a handler returning 0 is removed).

use std::collections::BTreeMap;

use super::{Cont, Iop, IopError, LibDef, Ret, Wait, kerr, ret};
use crate::events::EventKind;

/// The shortest alarm: 100 us in system clock cycles.
pub const MIN_WAIT: u64 = 3686;

/// Convert microseconds to system clock cycles (the console's multiply, 64-bit).
pub fn usec_to_clock(usec: u32) -> u64 {
    usec as u64 * 0x1200 / 125
}

/// What an alarm does when it expires.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum AlarmKind {
    /// Wake a thread in DelayThread.
    Delay(u32),
    /// Call a guest handler(arg).
    Guest {
        /// The handler.
        handler: u32,
        /// Its argument.
        arg: u32,
    },
}

/// One alarm.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
pub struct Alarm {
    /// When it expires (system clock).
    pub target: u64,
    /// What it does.
    pub kind: AlarmKind,
}

/// The alarms by id.
#[derive(Debug, Default, Clone, serde::Serialize, serde::Deserialize)]
pub struct Alarms {
    /// Pending alarms.
    pub map: BTreeMap<u32, Alarm>,
    next: u32,
}

/// The vblank library's state.
#[derive(Debug, Default, Clone, serde::Serialize, serde::Deserialize)]
pub struct Vblank {
    /// Threads in WaitVblankStart / WaitVblank.
    pub start_waiters: Vec<u32>,
    /// Threads in WaitVblankEnd / WaitNonVblank.
    pub end_waiters: Vec<u32>,
    /// RegisterVblankHandler handlers for the start (edge 0) and end (edge 1): (priority,
    /// handler, arg), in call order.
    pub handlers: [Vec<(u32, u32, u32)>; 2],
    /// Whether the vertical blank is in progress (between VBLANK and EVBLANK).
    pub in_vblank: bool,
}

/// Native wait ids for [`Wait::Native`]: the vblank waits.
pub const WAIT_VBLANK_START: u32 = 1;
/// See [`WAIT_VBLANK_START`].
pub const WAIT_VBLANK_END: u32 = 2;

impl Iop {
    /// Arm an alarm `delta` cycles from now (at least [`MIN_WAIT`]); returns its id.
    pub fn add_alarm(&mut self, delta: u64, kind: AlarmKind) -> u32 {
        let delta = delta.max(MIN_WAIT);
        let target = self.cpu.cycles + delta;
        self.kernel.alarms.next += 1;
        let id = self.kernel.alarms.next;
        self.kernel.alarms.map.insert(id, Alarm { target, kind });
        self.events.schedule(target, EventKind::Alarm(id));
        id
    }

    /// Cancel alarm `id`.
    pub fn cancel_alarm_id(&mut self, id: u32) {
        self.kernel.alarms.map.remove(&id);
        self.events.cancel(EventKind::Alarm(id));
    }

    fn find_guest_alarm(&self, handler: u32, arg: u32) -> Option<u32> {
        self.kernel
            .alarms
            .map
            .iter()
            .find(|(_, a)| a.kind == AlarmKind::Guest { handler, arg })
            .map(|(id, _)| *id)
    }

    /// Take thread `id` off the vblank waits.
    pub fn vblank_unwait(&mut self, id: u32) {
        self.kernel.vblank.start_waiters.retain(|&t| t != id);
        self.kernel.vblank.end_waiters.retain(|&t| t != id);
    }
}

/// Alarm `id`'s time came.
pub fn alarm_due(iop: &mut Iop, id: u32) -> Result<(), IopError> {
    let Some(a) = iop.kernel.alarms.map.get(&id).copied() else {
        return Ok(());
    };
    if iop.in_interrupt() {
        // Handlers do not nest: the alarm's interrupt waits for the running handler to return.
        iop.events
            .schedule(iop.cpu.cycles + 8, EventKind::Alarm(id));
        return Ok(());
    }
    match a.kind {
        AlarmKind::Delay(t) => {
            iop.kernel.alarms.map.remove(&id);
            if iop
                .kernel
                .threads
                .get(&t)
                .is_some_and(|th| th.wait == Wait::Delay(id))
            {
                iop.wake(t, 0);
            }
        }
        AlarmKind::Guest { handler, arg } => {
            iop.cpu.flush_load_delay();
            iop.enter_handler(handler, arg, u32::MAX, id, ret::ALARM_HANDLER);
        }
    }
    Ok(())
}

/// An alarm handler returned: re-arm it by v0 cycles after its last expiry, or drop it.
pub fn alarm_handler_returned(iop: &mut Iop) -> Result<(), IopError> {
    let Some(frame) = iop.kernel.intr else {
        return Err(iop.fault("an alarm handler returned outside an interrupt".into()));
    };
    let next = iop.cpu.gpr[2] as u64;
    let id = frame.alarm;
    if let Some(a) = iop.kernel.alarms.map.get_mut(&id) {
        if next == 0 {
            iop.kernel.alarms.map.remove(&id);
        } else {
            a.target += next.max(MIN_WAIT);
            let t = a.target;
            iop.events.schedule(t, EventKind::Alarm(id));
        }
    }
    iop.leave_handler();
    Ok(())
}

fn v(x: i32) -> Result<Ret, IopError> {
    Ok(Ret::V(x as u32))
}

/// DelayThread(usec).
pub fn delay_thread(iop: &mut Iop) -> Result<Ret, IopError> {
    if iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    let usec = iop.arg(0);
    let cur = iop.current_thread();
    let id = iop.add_alarm(usec_to_clock(usec), AlarmKind::Delay(cur));
    iop.cpu.gpr[2] = 0;
    iop.return_to_caller();
    iop.wait_current(Wait::Delay(id));
    Ok(Ret::Done)
}

/// GetSystemTime(clock*).
pub fn get_system_time(iop: &mut Iop) -> Result<Ret, IopError> {
    let p = iop.arg(0);
    let now = iop.cpu.cycles;
    iop.bus.set_ram_u32(p, now as u32);
    iop.bus.set_ram_u32(p.wrapping_add(4), (now >> 32) as u32);
    v(kerr::OK)
}

/// GetSystemTimeLow().
pub fn get_system_time_low(iop: &mut Iop) -> Result<Ret, IopError> {
    Ok(Ret::V(iop.cpu.cycles as u32))
}

fn set_alarm_common(iop: &mut Iop) -> Result<Ret, IopError> {
    let (clock, handler, arg) = (iop.arg(0), iop.arg(1), iop.arg(2));
    if iop.find_guest_alarm(handler, arg).is_some() {
        return v(kerr::FOUND_HANDLER);
    }
    let lo = iop.bus.ram_u32(clock) as u64;
    let hi = iop.bus.ram_u32(clock.wrapping_add(4)) as u64;
    let delta = (hi << 32) | lo;
    if hi == 0 && lo < MIN_WAIT {
        // The console writes the clamped value back into the caller's clock.
        iop.bus.set_ram_u32(clock, MIN_WAIT as u32);
    }
    iop.add_alarm(delta, AlarmKind::Guest { handler, arg });
    v(kerr::OK)
}

/// SetAlarm(clock*, handler, arg).
pub fn set_alarm(iop: &mut Iop) -> Result<Ret, IopError> {
    if iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    set_alarm_common(iop)
}

/// iSetAlarm.
pub fn iset_alarm(iop: &mut Iop) -> Result<Ret, IopError> {
    if !iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    set_alarm_common(iop)
}

fn cancel_alarm_common(iop: &mut Iop) -> Result<Ret, IopError> {
    let (handler, arg) = (iop.arg(0), iop.arg(1));
    match iop.find_guest_alarm(handler, arg) {
        Some(id) => {
            iop.cancel_alarm_id(id);
            v(kerr::OK)
        }
        None => v(kerr::NOTFOUND_HANDLER),
    }
}

/// CancelAlarm(handler, arg).
pub fn cancel_alarm(iop: &mut Iop) -> Result<Ret, IopError> {
    if iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    cancel_alarm_common(iop)
}

/// iCancelAlarm.
pub fn icancel_alarm(iop: &mut Iop) -> Result<Ret, IopError> {
    if !iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    cancel_alarm_common(iop)
}

/// USec2SysClock(usec, clock*).
pub fn usec2sysclock(iop: &mut Iop) -> Result<Ret, IopError> {
    let (usec, p) = (iop.arg(0), iop.arg(1));
    let c = usec_to_clock(usec);
    iop.bus.set_ram_u32(p, c as u32);
    iop.bus.set_ram_u32(p.wrapping_add(4), (c >> 32) as u32);
    Ok(Ret::V(0))
}

/// SysClock2USec(clock*, sec*, usec*).
pub fn sysclock2usec(iop: &mut Iop) -> Result<Ret, IopError> {
    let (p, sec, usec) = (iop.arg(0), iop.arg(1), iop.arg(2));
    let c = iop.bus.ram_u32(p) as u64 | ((iop.bus.ram_u32(p.wrapping_add(4)) as u64) << 32);
    // The console: clock * 125 / 0x1200, then split into seconds and microseconds (64-bit).
    let total = (c as u128 * 125 / 0x1200) as u64;
    iop.bus.set_ram_u32(sec, (total / 1_000_000) as u32);
    iop.bus.set_ram_u32(usec, (total % 1_000_000) as u32);
    Ok(Ret::V(0))
}

/// GetSystemStatusFlag(): the system status event flag (none in piney: 0).
pub fn get_system_status_flag(_: &mut Iop) -> Result<Ret, IopError> {
    Ok(Ret::V(0))
}

// ---- the vblank library ----

/// The native handler on the VBLANK line: release the start waiters and run the start chain.
pub fn vblank_start_handler(iop: &mut Iop) -> Result<Ret, IopError> {
    iop.kernel.vblank.in_vblank = true;
    for t in std::mem::take(&mut iop.kernel.vblank.start_waiters) {
        iop.wake(t, 0);
    }
    run_chain(iop, 0, 0)
}

/// The native handler on the EVBLANK line.
pub fn vblank_end_handler(iop: &mut Iop) -> Result<Ret, IopError> {
    iop.kernel.vblank.in_vblank = false;
    for t in std::mem::take(&mut iop.kernel.vblank.end_waiters) {
        iop.wake(t, 0);
    }
    run_chain(iop, 1, 0)
}

/// Continuation tag: the vblank chain continues (data: edge, index of the handler that ran).
pub const CONT_VBLANK_CHAIN: u32 = 0x7662_0001;

/// Call the `edge` chain's handlers from `from` on; the line handler returns 1 (the line stays
/// enabled) when the chain is done.
fn run_chain(iop: &mut Iop, edge: u32, from: usize) -> Result<Ret, IopError> {
    let chain = &iop.kernel.vblank.handlers[edge as usize];
    let Some(&(_, handler, arg)) = chain.get(from) else {
        return Ok(Ret::V(1));
    };
    let ra = iop.native_ret;
    let sp = iop.cpu.gpr[29];
    iop.kernel.intr_cont.push(Cont::Module {
        tag: CONT_VBLANK_CHAIN,
        data: [edge, from as u32, handler, ra, sp, 0],
    });
    iop.call_guest(handler, &[arg], ret::CONTINUE);
    Ok(Ret::Done)
}

/// A vblank chain handler returned.
pub fn vblank_chain_continue(iop: &mut Iop, data: [u32; 6]) -> Result<(), IopError> {
    let [edge, index, handler, ra, sp, _] = data;
    let keep = iop.cpu.gpr[2] != 0;
    let chain = &mut iop.kernel.vblank.handlers[edge as usize];
    let mut next = index as usize + 1;
    if !keep && chain.get(index as usize).is_some_and(|h| h.1 == handler) {
        chain.remove(index as usize);
        next -= 1;
    }
    iop.cpu.gpr[29] = sp;
    iop.native_ret = ra;
    match run_chain(iop, edge, next)? {
        Ret::V(v) => {
            iop.cpu.gpr[2] = v;
            iop.cpu.set_pc(ra);
        }
        Ret::Done => {}
    }
    Ok(())
}

fn wait_vblank(iop: &mut Iop, start: bool, only_if_needed: bool) -> Result<Ret, IopError> {
    if iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    let vb = &iop.kernel.vblank;
    // WaitVblank returns at once inside the blank; WaitNonVblank at once outside it.
    if only_if_needed && vb.in_vblank == start {
        return v(kerr::OK);
    }
    let cur = iop.current_thread();
    if start {
        iop.kernel.vblank.start_waiters.push(cur);
    } else {
        iop.kernel.vblank.end_waiters.push(cur);
    }
    iop.cpu.gpr[2] = 0;
    iop.return_to_caller();
    iop.wait_current(Wait::Native(if start {
        WAIT_VBLANK_START
    } else {
        WAIT_VBLANK_END
    }));
    Ok(Ret::Done)
}

fn wait_vblank_start(iop: &mut Iop) -> Result<Ret, IopError> {
    wait_vblank(iop, true, false)
}

fn wait_vblank_end(iop: &mut Iop) -> Result<Ret, IopError> {
    wait_vblank(iop, false, false)
}

fn wait_vblank_any(iop: &mut Iop) -> Result<Ret, IopError> {
    wait_vblank(iop, true, true)
}

fn wait_non_vblank(iop: &mut Iop) -> Result<Ret, IopError> {
    wait_vblank(iop, false, true)
}

fn register_vblank_handler(iop: &mut Iop) -> Result<Ret, IopError> {
    let (edge, prio, handler, arg) = (iop.arg(0), iop.arg(1), iop.arg(2), iop.arg(3));
    if iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    let chain = &mut iop.kernel.vblank.handlers[(edge != 0) as usize];
    if chain.iter().any(|h| h.1 == handler) {
        return v(kerr::FOUND_HANDLER);
    }
    // The console keeps 16 slots for both chains.
    if iop
        .kernel
        .vblank
        .handlers
        .iter()
        .map(Vec::len)
        .sum::<usize>()
        >= 16
    {
        return v(kerr::NO_MEMORY);
    }
    let chain = &mut iop.kernel.vblank.handlers[(edge != 0) as usize];
    let at = chain
        .iter()
        .position(|h| (prio as i32) < h.0 as i32)
        .unwrap_or(chain.len());
    chain.insert(at, (prio, handler, arg));
    v(kerr::OK)
}

fn release_vblank_handler(iop: &mut Iop) -> Result<Ret, IopError> {
    let (edge, handler) = (iop.arg(0), iop.arg(1));
    if iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    let chain = &mut iop.kernel.vblank.handlers[(edge != 0) as usize];
    match chain.iter().position(|h| h.1 == handler) {
        Some(i) => {
            chain.remove(i);
            v(kerr::OK)
        }
        None => v(kerr::NOTFOUND_HANDLER),
    }
}

/// vblank.
pub const VBLANK: LibDef = LibDef {
    name: "vblank",
    version: 0x0101,
    funcs: &[
        (4, "WaitVblankStart", wait_vblank_start),
        (5, "WaitVblankEnd", wait_vblank_end),
        (6, "WaitVblank", wait_vblank_any),
        (7, "WaitNonVblank", wait_non_vblank),
        (8, "RegisterVblankHandler", register_vblank_handler),
        (9, "ReleaseVblankHandler", release_vblank_handler),
    ],
};
