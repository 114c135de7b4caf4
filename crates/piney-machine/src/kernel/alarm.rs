//! Alarms: SetAlarm(time, handler, arg) calls `handler(id, time, arg)` once, `time` HSYNC
//! ticks later, in interrupt context. The real kernel counts them with EE timer 3 and runs them
//! from its INTC interrupt (line 12); here the expiry is a scheduler event that raises that line,
//! and the dispatch calls the callbacks before any guest handler of the line.

use super::{HandlerCall, Ret};
use crate::scheduler::{Event, ntsc};
use crate::{Machine, MachineError};

/// How many alarms may be pending at once (the real kernel's table holds 64).
pub const MAX_ALARMS: usize = 64;

/// One pending alarm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Alarm {
    /// Guest callback.
    pub handler: u32,
    /// Its third argument.
    pub arg: u32,
    /// `$gp` when it was set.
    pub gp: u32,
    /// The HSYNC count at which it expires.
    pub due_line: u64,
}

/// HSYNC lines since power-on at `cycle`.
fn lines_at(cycle: u64) -> u64 {
    cycle * 5 / ntsc::CYCLES_PER_LINE_X5
}

impl Machine {
    /// SetAlarm / iSetAlarm(time, handler, arg): returns the alarm id, or -1.
    pub(super) fn sys_set_alarm(&mut self, time: u32, handler: u32, arg: u32) -> Ret {
        let time = time & 0xffff;
        let Some(id) = self.kernel.alarms.iter().position(Option::is_none) else {
            return Ret::V(-1);
        };
        let now = self.cpu.cycles;
        let due_line = lines_at(now) + time.max(1) as u64;
        self.kernel.alarms[id] = Some(Alarm {
            handler,
            arg,
            gp: self.cpu.r32(28),
            due_line,
        });
        let due = (due_line * ntsc::CYCLES_PER_LINE_X5)
            .div_ceil(5)
            .max(now + 1);
        self.bus.sched.schedule_at(due, Event::Alarm(id as u32));
        Ret::V(id as i32)
    }

    /// ReleaseAlarm / iReleaseAlarm(id): cancel a pending alarm. Returns the id, or -1.
    pub(super) fn sys_release_alarm(&mut self, id: u32) -> Ret {
        match self
            .kernel
            .alarms
            .get_mut(id as usize)
            .and_then(Option::take)
        {
            Some(_) => {
                self.bus.sched.cancel(Event::Alarm(id));
                self.kernel.expired_alarms.retain(|&a| a != id);
                Ret::V(id as i32)
            }
            None => Ret::V(-1),
        }
    }

    /// An alarm expired: its callback runs at the next interrupt of timer 3's INTC line.
    pub(crate) fn kernel_alarm(&mut self, id: u32) -> Result<(), MachineError> {
        if self
            .kernel
            .alarms
            .get(id as usize)
            .is_some_and(Option::is_some)
        {
            self.kernel.expired_alarms.push(id);
            let line = crate::intc::line::TIM0 + 3;
            self.bus.intc.raise(line);
            self.bus.intc.mask |= 1 << line;
            self.bus.irq_changed();
        }
        Ok(())
    }

    /// The callback call for expired alarm `id` (which is released).
    pub(super) fn alarm_call(&mut self, id: u32) -> Option<HandlerCall> {
        let a = self.kernel.alarms.get_mut(id as usize)?.take()?;
        Some(HandlerCall {
            addr: a.handler,
            a0: id,
            a1: (a.due_line & 0xffff) as u32,
            a2: a.arg,
            gp: a.gp,
            group: 0x200 + id,
        })
    }
}
