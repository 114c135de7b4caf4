//! timrman: the hard timers (the root counters) handed out to modules.
//!
//! The console's table: counter 0 (16 bits; system clock, pixel clock; /1), 1 (16; system
//! clock, horizontal line; /1), 2 (16; system clock; up to /8), 3 (32; system clock, line;
//! /1), 4 and 5 (32; system clock; up to /256). AllocHardTimer(source, size, prescale) takes the
//! first free one that fits, looking at 2, 5, 4, 3, 0, 1 in that order, and names it
//! ((index + 1) << 28) | (COUNT's address >> 4); threadman's own system clock holds counter 5
//! from boot. A timer handler (SetTimerHandler) runs in interrupt context when the counter
//! reaches the compare value and returns the next compare value (0 stops the timer); an
//! overflow handler runs at overflow.

use super::{Cont, Iop, IopError, LibDef, Ret, kerr, ret};
use crate::events::EventKind;
use crate::hw::counters;

/// Clock sources (AllocHardTimer's `source`).
pub mod source {
    /// The system clock.
    pub const SYSCLOCK: u32 = 1;
    /// The pixel clock.
    pub const PIXEL: u32 = 2;
    /// The horizontal line.
    pub const HLINE: u32 = 4;
    /// The horizontal line, gated.
    pub const HOLD: u32 = 8;
}

/// One hard timer's facts and state.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
pub struct Timer {
    /// The counter.
    pub counter: usize,
    /// Clock sources it can count.
    pub sources: u32,
    /// 16 or 32.
    pub size: u32,
    /// The largest prescaler.
    pub max_prescale: u32,
    /// Users (0: free).
    pub users: u32,
    /// The mode SetupHardTimer chose (0: not set up).
    pub setup: u32,
    /// The timer handler and its argument.
    pub timeup: (u32, u32),
    /// The overflow handler and its argument.
    pub overflow: (u32, u32),
}

const fn timer(counter: usize, sources: u32, size: u32, max_prescale: u32) -> Timer {
    Timer {
        counter,
        sources,
        size,
        max_prescale,
        users: 0,
        setup: 0,
        timeup: (0, 0),
        overflow: (0, 0),
    }
}

/// The table at boot.
pub fn table() -> [Timer; 6] {
    let mut t = [
        timer(0, 0xb, 16, 1),
        timer(1, 0xd, 16, 1),
        timer(2, 1, 16, 8),
        timer(3, 5, 32, 1),
        timer(4, 1, 32, 256),
        timer(5, 1, 32, 256),
    ];
    // threadman's system clock.
    t[5].users = 1;
    t
}

/// The order AllocHardTimer looks at the timers in.
const SEARCH: [usize; 6] = [2, 5, 4, 3, 0, 1];

fn timid(i: usize) -> u32 {
    ((i as u32 + 1) << 28) | (counters::address(i) >> 4)
}

impl Iop {
    fn timer_of(&self, id: u32) -> Option<usize> {
        let i = (id >> 28) as usize;
        (1..=6)
            .contains(&i)
            .then(|| i - 1)
            .filter(|&i| timid(i) == id)
    }

    /// Reschedule the counters' interrupt events.
    pub fn reschedule_counters(&mut self) {
        self.bus.hw.counters_changed = false;
        let now = self.cpu.cycles;
        for n in 0..6 {
            self.events.cancel(EventKind::Counter(n as u8));
            if let Some(at) = self.bus.hw.counters.next_irq(n, now) {
                self.events.schedule(at, EventKind::Counter(n as u8));
            }
        }
    }

    /// Counter `n`'s interrupt time came.
    pub fn counter_event(&mut self, n: usize) {
        let now = self.cpu.cycles;
        if self.bus.hw.counters.fire(n, now) {
            self.bus.hw.intc.raise(counters::irq_line(n));
        }
        self.events.cancel(EventKind::Counter(n as u8));
        if let Some(at) = self.bus.hw.counters.next_irq(n, now) {
            self.events.schedule(at, EventKind::Counter(n as u8));
        }
    }

    fn counter_write(&mut self, n: usize, reg: u32, v: u32) {
        let now = self.cpu.cycles;
        self.bus.hw.counters.write(n, reg, v, now);
        self.reschedule_counters();
    }

    fn counter_read(&mut self, n: usize, reg: u32) -> u32 {
        let now = self.cpu.cycles;
        self.bus.hw.counters.read(n, reg, now)
    }
}

fn v(x: i32) -> Result<Ret, IopError> {
    Ok(Ret::V(x as u32))
}

fn alloc(iop: &mut Iop) -> Result<Ret, IopError> {
    let (src, size, prescale) = (iop.arg(0), iop.arg(1), iop.arg(2));
    if iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    for i in SEARCH {
        let t = iop.kernel.timers[i];
        if t.users != 0 || t.sources & src == 0 || t.size != size || t.max_prescale < prescale {
            continue;
        }
        iop.kernel.timers[i].users = 1;
        iop.kernel.timers[i].setup = 0;
        iop.kernel.timers[i].timeup = (0, 0);
        iop.kernel.timers[i].overflow = (0, 0);
        iop.counter_write(i, 4, 0);
        iop.bus.hw.intc.mask &= !(1 << counters::irq_line(i));
        return Ok(Ret::V(timid(i)));
    }
    v(kerr::NO_TIMER)
}

fn free(iop: &mut Iop) -> Result<Ret, IopError> {
    let id = iop.arg(0);
    if iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    match iop.timer_of(id) {
        Some(i) if iop.kernel.timers[i].users > 0 && i != 5 => {
            iop.kernel.timers[i].users -= 1;
            v(kerr::OK)
        }
        _ => v(kerr::ILLEGAL_TIMERID),
    }
}

fn refer(iop: &mut Iop) -> Result<Ret, IopError> {
    let (src, size, mode, mask) = (iop.arg(0), iop.arg(1), iop.arg(2), iop.arg(3));
    for i in 0..6 {
        let t = iop.kernel.timers[i];
        if t.users == 0 || t.sources & src == 0 || t.size != size {
            continue;
        }
        let m = iop.bus.hw.counters.c[i].mode;
        if m & mask == mode {
            return Ok(Ret::V(timid(i)));
        }
    }
    v(kerr::NO_TIMER)
}

/// The timer an id names, or the console's error as a native result.
fn timer_arg(iop: &mut Iop, id: u32) -> Result<usize, Ret> {
    iop.timer_of(id).ok_or(Ret::V(kerr::ILLEGAL_TIMERID as u32))
}

fn set_mode(iop: &mut Iop) -> Result<Ret, IopError> {
    let (id, mode) = (iop.arg(0), iop.arg(1));
    match timer_arg(iop, id) {
        Ok(i) => {
            iop.counter_write(i, 4, mode);
            v(kerr::OK)
        }
        Err(r) => Ok(r),
    }
}

fn get_status(iop: &mut Iop) -> Result<Ret, IopError> {
    let id = iop.arg(0);
    match timer_arg(iop, id) {
        Ok(i) => Ok(Ret::V(iop.counter_read(i, 4))),
        Err(r) => Ok(r),
    }
}

fn get_mode(iop: &mut Iop) -> Result<Ret, IopError> {
    let id = iop.arg(0);
    match timer_arg(iop, id) {
        Ok(i) => Ok(Ret::V(
            iop.bus.hw.counters.c[i].mode & !((1 << 11) | (1 << 12)),
        )),
        Err(r) => Ok(r),
    }
}

fn set_counter(iop: &mut Iop) -> Result<Ret, IopError> {
    let (id, c) = (iop.arg(0), iop.arg(1));
    match timer_arg(iop, id) {
        Ok(i) => {
            iop.counter_write(i, 0, c);
            v(kerr::OK)
        }
        Err(r) => Ok(r),
    }
}

fn get_counter(iop: &mut Iop) -> Result<Ret, IopError> {
    let id = iop.arg(0);
    match timer_arg(iop, id) {
        Ok(i) => Ok(Ret::V(iop.counter_read(i, 0))),
        Err(r) => Ok(r),
    }
}

fn set_compare(iop: &mut Iop) -> Result<Ret, IopError> {
    let (id, c) = (iop.arg(0), iop.arg(1));
    match timer_arg(iop, id) {
        Ok(i) => {
            iop.counter_write(i, 8, c);
            v(kerr::OK)
        }
        Err(r) => Ok(r),
    }
}

fn get_compare(iop: &mut Iop) -> Result<Ret, IopError> {
    let id = iop.arg(0);
    match timer_arg(iop, id) {
        Ok(i) => Ok(Ret::V(iop.counter_read(i, 8))),
        Err(r) => Ok(r),
    }
}

fn intr_code(iop: &mut Iop) -> Result<Ret, IopError> {
    let id = iop.arg(0);
    match timer_arg(iop, id) {
        Ok(i) => Ok(Ret::V(counters::irq_line(i))),
        Err(r) => Ok(r),
    }
}

fn zero(_: &mut Iop) -> Result<Ret, IopError> {
    Ok(Ret::V(0))
}

fn set_handler_common(iop: &mut Iop, overflow: bool) -> Result<Ret, IopError> {
    let id = iop.arg(0);
    let i = match timer_arg(iop, id) {
        Ok(i) => i,
        Err(r) => return Ok(r),
    };
    if iop.bus.hw.counters.c[i].mode & 0x30 != 0 {
        // The timer runs: its handlers cannot change (the console's -156).
        return v(kerr::TIMER_NOT_INUSE);
    }
    if overflow {
        let (h, common) = (iop.arg(1), iop.arg(2));
        iop.kernel.timers[i].overflow = (h, common);
    } else {
        let (cmp, h, common) = (iop.arg(1), iop.arg(2), iop.arg(3));
        iop.kernel.timers[i].timeup = (h, common);
        iop.counter_write(i, 8, cmp);
    }
    // timrman's own interrupt handler on the timer's line.
    let native = iop.native_address("(kernel)", 5).expect("timer handler");
    let line = counters::irq_line(i) as usize;
    iop.set_intr_handler(
        line,
        super::intr::Handler {
            field: native,
            arg: i as u32,
        },
    );
    v(kerr::OK)
}

fn set_timer_handler(iop: &mut Iop) -> Result<Ret, IopError> {
    set_handler_common(iop, false)
}

fn set_overflow_handler(iop: &mut Iop) -> Result<Ret, IopError> {
    set_handler_common(iop, true)
}

fn setup(iop: &mut Iop) -> Result<Ret, IopError> {
    // SetupHardTimer(id, source, mode (gate), prescale).
    let (id, src, mode, prescale) = (iop.arg(0), iop.arg(1), iop.arg(2), iop.arg(3));
    let i = match timer_arg(iop, id) {
        Ok(i) => i,
        Err(r) => return Ok(r),
    };
    if iop.bus.hw.counters.c[i].mode & 0x30 != 0 {
        return v(kerr::TIMER_BUSY);
    }
    let t = iop.kernel.timers[i];
    if t.sources & src == 0 {
        return v(kerr::ILLEGAL_SOURCE);
    }
    if mode > 3 {
        return v(kerr::ILLEGAL_MODE);
    }
    let mut m = 0x8000_0000 | (mode << 1) | if mode != 0 { 1 } else { 0 };
    if src != source::SYSCLOCK {
        m |= 1 << 8;
    }
    m |= match (i, prescale) {
        (_, 1) => 0,
        (2, 8) => 1 << 9,
        (4 | 5, 8) => 1 << 13,
        (4 | 5, 16) => 2 << 13,
        (4 | 5, 256) => 3 << 13,
        _ => return v(kerr::ILLEGAL_PRESCALE),
    };
    iop.kernel.timers[i].setup = m;
    v(kerr::OK)
}

fn start(iop: &mut Iop) -> Result<Ret, IopError> {
    let id = iop.arg(0);
    let i = match timer_arg(iop, id) {
        Ok(i) => i,
        Err(r) => return Ok(r),
    };
    let t = iop.kernel.timers[i];
    if t.setup == 0 {
        return v(kerr::TIMER_NOT_SETUP);
    }
    let mut m = t.setup & 0xe3ff;
    if t.timeup.0 != 0 {
        // Zero return at the compare value, interrupt there, repeating.
        m |= (1 << 3) | (1 << 4) | (1 << 6);
    }
    if t.overflow.0 != 0 {
        m |= (1 << 5) | (1 << 6);
    }
    iop.counter_write(i, 4, m);
    iop.bus.hw.intc.mask |= 1 << counters::irq_line(i);
    v(kerr::OK)
}

fn stop(iop: &mut Iop) -> Result<Ret, IopError> {
    let id = iop.arg(0);
    let i = match timer_arg(iop, id) {
        Ok(i) => i,
        Err(r) => return Ok(r),
    };
    iop.counter_write(i, 4, 0);
    iop.bus.hw.intc.mask &= !(1 << counters::irq_line(i));
    v(kerr::OK)
}

/// Continuation tag: a timer's handler returned (data: timer, overflow?, ra, sp).
pub const CONT_TIMER: u32 = 0x746d_0001;

/// timrman's interrupt handler for timer `a0`: call its timer (or overflow) handler.
pub fn timer_irq(iop: &mut Iop) -> Result<Ret, IopError> {
    let i = iop.arg(0) as usize;
    let Some(t) = iop.kernel.timers.get(i).copied() else {
        return Ok(Ret::V(0));
    };
    let mode = iop.bus.hw.counters.c[i].mode;
    let (h, common, ovf) = if mode & (1 << 12) != 0 && t.overflow.0 != 0 {
        (t.overflow.0, t.overflow.1, 1)
    } else {
        (t.timeup.0, t.timeup.1, 0)
    };
    iop.bus.hw.counters.c[i].mode &= !((1 << 11) | (1 << 12));
    if h == 0 {
        return Ok(Ret::V(1));
    }
    let ra = iop.native_ret;
    let sp = iop.cpu.gpr[29];
    iop.kernel.intr_cont.push(Cont::Module {
        tag: CONT_TIMER,
        data: [i as u32, ovf, ra, sp, 0, 0],
    });
    iop.call_guest(h, &[common], ret::CONTINUE);
    Ok(Ret::Done)
}

/// A timer handler returned: its result is the next compare value (0 stops the timer).
pub fn timer_continue(iop: &mut Iop, data: [u32; 6]) -> Result<(), IopError> {
    let [i, ovf, ra, sp, ..] = data;
    let r = iop.cpu.gpr[2];
    let i = i as usize;
    let keep = if ovf == 0 {
        if r != 0 {
            iop.counter_write(i, 8, r);
            true
        } else {
            iop.counter_write(i, 4, 0);
            false
        }
    } else {
        r != 0
    };
    iop.cpu.gpr[29] = sp;
    iop.cpu.gpr[2] = keep as u32;
    iop.cpu.set_pc(ra);
    Ok(())
}

/// timrman.
pub const TIMRMAN: LibDef = LibDef {
    name: "timrman",
    version: 0x0103,
    funcs: &[
        (4, "AllocHardTimer", alloc),
        (5, "ReferHardTimer", refer),
        (6, "FreeHardTimer", free),
        (7, "SetTimerMode", set_mode),
        (8, "GetTimerStatus", get_status),
        (9, "SetTimerCounter", set_counter),
        (10, "GetTimerCounter", get_counter),
        (11, "SetTimerCompare", set_compare),
        (12, "GetTimerCompare", get_compare),
        (13, "SetHoldMode", zero),
        (14, "GetHoldMode", zero),
        (15, "GetHoldReg", zero),
        (16, "GetHardTimerIntrCode", intr_code),
        (17, "GetTimerMode", get_mode),
        (20, "SetTimerHandler", set_timer_handler),
        (21, "SetOverflowHandler", set_overflow_handler),
        (22, "SetupHardTimer", setup),
        (23, "StartHardTimer", start),
        (24, "StopHardTimer", stop),
    ],
};
