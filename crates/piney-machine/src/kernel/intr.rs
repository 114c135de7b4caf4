//! Interrupts: INTC and DMAC handler registration, Enable/Disable of INTC lines (I_MASK) and DMAC
//! channels (D_STAT's mask bits), and the dispatch of a taken interrupt to the guest's handlers.

use std::collections::VecDeque;

use piney_ee::Exception;
use piney_ee::cpu::{cop0reg, status};

use super::{Context, Frame, HandlerCall, KERNEL_STACK_TOP, Ret, stubs};
use crate::{Machine, MachineError};

/// D_STAT, the DMAC's interrupt status (bits 0-9 channel CIS, 13 SIS, 14 MEIS, 15 BEIS) and mask
/// (bits 16-25 CIM, 29 SIM, 30 MEIM), as an index into the bus's plain I/O words.
const D_STAT: usize = 0xe010 / 4;

/// A registered INTC or DMAC handler.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Handler {
    /// Its id (AddIntcHandler's result; also what `next` refers to).
    pub id: u32,
    /// INTC line or DMAC channel.
    pub cause: u32,
    /// Guest function.
    pub addr: u32,
    /// Argument passed in `a1`.
    pub arg: u32,
    /// `$gp` when it was added.
    pub gp: u32,
    /// EnableIntcHandler/DisableIntcHandler state.
    pub enabled: bool,
}

impl Machine {
    fn handlers(&mut self, dmac: bool) -> &mut Vec<Handler> {
        if dmac {
            &mut self.kernel.dmac_handlers
        } else {
            &mut self.kernel.intc_handlers
        }
    }

    /// AddIntcHandler2 / AddDmacHandler2(cause, handler, next, arg): `next` 0 puts the handler
    /// first, -1 last, otherwise before the handler with that id. Returns the id.
    pub(super) fn sys_add_handler(
        &mut self,
        dmac: bool,
        cause: u32,
        addr: u32,
        next: u32,
        arg: u32,
    ) -> Ret {
        if cause >= 15 {
            return Ret::V(-1);
        }
        let id = self.kernel.next_handler_id;
        self.kernel.next_handler_id += 1;
        let h = Handler {
            id,
            cause,
            addr,
            arg,
            gp: self.cpu.r32(28),
            enabled: true,
        };
        let list = self.handlers(dmac);
        let pos = match next as i32 {
            0 => 0,
            -1 => list.len(),
            n => match list.iter().position(|o| o.id == n as u32) {
                Some(p) => p,
                None => return Ret::V(-1),
            },
        };
        list.insert(pos, h);
        Ret::V(id as i32)
    }

    /// RemoveIntcHandler / RemoveDmacHandler(cause, id): returns how many handlers remain for
    /// the cause.
    pub(super) fn sys_remove_handler(&mut self, dmac: bool, cause: u32, id: u32) -> Ret {
        let list = self.handlers(dmac);
        let Some(p) = list.iter().position(|h| h.id == id && h.cause == cause) else {
            return Ret::V(-1);
        };
        list.remove(p);
        Ret::V(list.iter().filter(|h| h.cause == cause).count() as i32)
    }

    /// Enable/DisableIntcHandler, Enable/DisableDmacHandler(cause, id).
    pub(super) fn sys_enable_handler(&mut self, dmac: bool, cause: u32, id: u32, on: bool) -> Ret {
        match self
            .handlers(dmac)
            .iter_mut()
            .find(|h| h.id == id && h.cause == cause)
        {
            Some(h) => {
                h.enabled = on;
                Ret::V(0)
            }
            None => Ret::V(-1),
        }
    }

    /// Install the kernel-level handler of INTC line 12 (SetSyscall(0x12c, addr)): called first
    /// for the line, with the line unmasked.
    pub(super) fn set_kernel_timer3_handler(&mut self, addr: u32) {
        let line = crate::intc::line::TIM0 + 3;
        if let Some(old) = self.kernel.timer3_handler.take() {
            self.kernel.intc_handlers.retain(|h| h.id != old);
        }
        let id = self.kernel.next_handler_id;
        self.kernel.next_handler_id += 1;
        let h = Handler {
            id,
            cause: line,
            addr,
            arg: 0,
            gp: self.cpu.r32(28),
            enabled: true,
        };
        self.kernel.intc_handlers.insert(0, h);
        self.kernel.timer3_handler = Some(id);
        self.bus.intc.mask |= 1 << line;
        self.bus.irq_changed();
    }

    /// EnableIntc / DisableIntc(line) and the i-variants: set or clear the I_MASK bit. Returns 1
    /// when it changed, 0 when it already was so.
    pub(super) fn sys_enable_intc(&mut self, line: u32, on: bool) -> Ret {
        if line >= 15 {
            return Ret::V(-1);
        }
        let bit = 1 << line;
        let was = self.bus.intc.mask & bit != 0;
        if on {
            self.bus.intc.mask |= bit;
        } else {
            self.bus.intc.mask &= !bit;
        }
        self.bus.irq_changed();
        Ret::V((was != on) as i32)
    }

    /// EnableDmac / DisableDmac(channel) and the i-variants: set or clear D_STAT's mask bit
    /// 16 + channel. Returns 1 when it changed.
    pub(super) fn sys_enable_dmac(&mut self, ch: u32, on: bool) -> Ret {
        if ch >= 15 {
            return Ret::V(-1);
        }
        let bit = 1 << (16 + ch);
        let stat = &mut self.bus.io[D_STAT];
        let was = *stat & bit != 0;
        if on {
            *stat |= bit;
        } else {
            *stat &= !bit;
        }
        self.bus.irq_changed();
        Ret::V((was != on) as i32)
    }

    /// Service an interrupt: acknowledge every pending INTC line (I_STAT & I_MASK, lowest line
    /// first) and DMAC cause (D_STAT CIS & CIM, highest channel first), then call their
    /// handlers in order; when all returned, resume the interrupted thread or a thread they made
    /// ready that outranks it.
    pub(crate) fn kernel_interrupt(&mut self, _e: Exception) -> Result<(), MachineError> {
        let epc = self.cpu.cop0.regs[cop0reg::EPC];
        self.cpu.cop0.regs[cop0reg::STATUS] &= !status::EXL;
        let saved = Box::new(Context::save(&self.cpu, epc));
        // The COP0 timer (IP7) has no kernel service: a program that unmasked it gets it
        // acknowledged, as writing Compare does.
        self.cpu.cop0.regs[cop0reg::CAUSE] &= !(1 << 15);
        let mut calls = VecDeque::new();

        let pending = self.bus.intc.stat & self.bus.intc.mask & 0x7fff;
        // The kernel acknowledges the lines it services before calling their handlers.
        self.bus.intc.stat &= !pending;
        for line in 0..15 {
            if pending & (1 << line) == 0 {
                continue;
            }
            if line == crate::intc::line::TIM0 + 3 {
                // Timer 3 carries the kernel's alarms.
                for id in std::mem::take(&mut self.kernel.expired_alarms) {
                    if let Some(c) = self.alarm_call(id) {
                        calls.push_back(c);
                    }
                }
            }
            for h in self
                .kernel
                .intc_handlers
                .iter()
                .filter(|h| h.cause == line && h.enabled)
            {
                calls.push_back(HandlerCall {
                    addr: h.addr,
                    a0: line,
                    a1: h.arg,
                    a2: epc,
                    gp: h.gp,
                    group: line,
                });
            }
        }

        let stat = self.bus.io[D_STAT];
        // Channel interrupts, stall (13) and MFIFO-empty (14) are enabled by their mask bits;
        // a bus error (15) always interrupts.
        let dpending = (stat & (stat >> 16) & 0x63ff) | (stat & 0x8000);
        self.bus.io[D_STAT] &= !dpending;
        for ch in (0..16).rev() {
            if dpending & (1 << ch) == 0 {
                continue;
            }
            for h in self
                .kernel
                .dmac_handlers
                .iter()
                .filter(|h| h.cause == ch && h.enabled)
            {
                calls.push_back(HandlerCall {
                    addr: h.addr,
                    a0: ch,
                    a1: h.arg,
                    a2: epc,
                    gp: h.gp,
                    group: 0x100 + ch,
                });
            }
        }
        self.bus.irq_changed();
        self.update_interrupt_lines();

        self.kernel.frames.push(Frame::Interrupt {
            saved,
            calls,
            group: 0,
        });
        self.next_handler_call();
        Ok(())
    }

    /// Make the next handler call of the innermost interrupt dispatch, or end the dispatch.
    pub(super) fn next_handler_call(&mut self) {
        let Some(Frame::Interrupt { calls, group, .. }) = self.kernel.frames.last_mut() else {
            return;
        };
        match calls.pop_front() {
            Some(c) => {
                *group = c.group;
                let cpu = &mut self.cpu;
                cpu.set32(4, c.a0);
                cpu.set32(5, c.a1);
                cpu.set32(6, c.a2);
                cpu.set32(28, c.gp);
                cpu.set32(29, KERNEL_STACK_TOP - 0x10);
                cpu.set32(31, stubs::HANDLER_RETURN);
                // Handlers run with interrupts off and outside the exception level, so that
                // the syscalls they make (iSignalSema...) are ordinary exceptions.
                let s = &mut cpu.cop0.regs[cop0reg::STATUS];
                *s &= !(status::EXL | status::IE);
                cpu.in_delay_slot = false;
                cpu.jump_to(c.addr);
            }
            None => {
                let Some(Frame::Interrupt { saved, .. }) = self.kernel.frames.pop() else {
                    unreachable!()
                };
                saved.load(&mut self.cpu);
                // Back to the interrupted thread (or idle loop), unless a handler readied a
                // thread that outranks it or made it stop. Only a strictly better priority
                // preempts: a rotation of the ready queue from a handler
                // (iRotateThreadReadyQueue) takes effect at the thread's next syscall, as on the
                // real kernel.
                let k = &self.kernel;
                let prio = |id: u32| k.thread(id).map_or(u32::MAX, |t| t.priority);
                let preempt = match (k.current, k.ready.first()) {
                    (None, _) => true,
                    (Some(c), head) => {
                        !k.ready.contains(&c) || head.is_some_and(|&h| prio(h) < prio(c))
                    }
                };
                if preempt {
                    self.reschedule();
                }
            }
        }
    }

    /// VBlank start, as the kernel sees it: SetVSyncFlag's flags are written.
    pub(crate) fn kernel_vblank_start(&mut self) {
        if let Some((flag, csr_ptr)) = self.kernel.vsync_flag.take() {
            use piney_ee::Bus;
            let csr = self
                .bus
                .gif
                .gs
                .gs
                .read_priv(piney_gs::gs::priv_reg::CSR)
                .unwrap_or(0);
            if flag != 0 {
                let _ = self.bus.write32(flag, 1);
            }
            if csr_ptr != 0 {
                let _ = self.bus.write64(csr_ptr, csr);
            }
        }
    }
}
