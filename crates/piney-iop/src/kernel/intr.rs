//! intrman: interrupt handlers, the interrupt controller's enables, and the CPU's global
//! interrupt enable (I_CTRL).
//!
//! The console's dispatch, which piney follows: an interrupt takes the lowest raised unmasked
//! line, masks it (I_MASK) and acknowledges it (I_STAT), and calls its handler in interrupt
//! context on the interrupt stack; when the handler returns non-zero the line is unmasked again,
//! when it returns 0 (or there is no handler) the line stays masked until EnableIntr. Wake-ups
//! done by the handler take effect when it returns: the highest-priority ready thread then runs,
//! the interrupted thread going to the front of its queue if it is preempted.
//! CpuSuspendIntr reads I_CTRL (which clears it) and returns it as the state; CpuResumeIntr
//! writes the state back.

use super::{Context, Iop, IopError, LibDef, Ret, kerr, ret};

/// The number of handler slots: lines 0..0x2d and the two software lines 0x3e/0x3f (stored at
/// 0x2e/0x2f, as the console's table does).
pub const SLOTS: usize = 0x30;
/// The first DMA channel interrupt code (IOP_IRQ_DMA_MDEC_IN): channels 0..6 are 0x20..0x26,
/// 0x27 is the DMA bus error, channels 7..12 are 0x28..0x2d.
pub const DMA_BASE: u32 = 0x20;
/// The last DMA interrupt code (IOP_IRQ_DMA_SIO2_OUT).
pub const DMA_LAST: u32 = 0x2d;
/// The size of the interrupt stack.
pub const STACK_SIZE: u32 = 0x800;

/// Where intrman keeps its handler table in IOP RAM, as the console does: a {handler | mode,
/// argument} pair of words a slot. Programs read and patch it directly (ps2sdk's poweroff.irx
/// chains its own handler in front of cdvdman's CDVD handler there), so the dispatcher reads
/// it from RAM.
pub const TABLE: u32 = 0x480;

/// A registered handler.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Handler {
    /// The handler address with the mode's low 2 bits, as the console stores it (0 = none; a
    /// NULL handler registered with mode bits counts as present).
    pub field: u32,
    /// Its argument.
    pub arg: u32,
}

/// What the CPU was doing when a handler started.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
pub struct IntrFrame {
    /// The interrupted thread (`None`: the IOP was idle).
    pub thread: Option<u32>,
    /// Its registers.
    pub ctx: Context,
    /// The line whose handler runs (or `u32::MAX` for an alarm handler).
    pub line: u32,
    /// The alarm whose handler runs, for alarm frames.
    pub alarm: u32,
    /// iTerminateThread named the interrupted thread.
    pub terminate: bool,
    /// iRotateThreadReadyQueue named the interrupted thread's priority.
    pub rotate: bool,
}

impl Iop {
    /// The thread an interrupt handler interrupted.
    pub fn intr_thread(&self) -> Option<u32> {
        self.kernel.intr.as_ref().and_then(|f| f.thread)
    }

    fn cpu_context(&mut self) -> Context {
        self.cpu.flush_load_delay();
        Context {
            gpr: self.cpu.gpr,
            hi: self.cpu.hi,
            lo: self.cpu.lo,
            pc: self.cpu.pc,
            next_pc: self.cpu.next_pc,
            in_delay: self.cpu.in_delay,
        }
    }

    /// Enter interrupt context to run guest handler `func(arg)`, returning to `ret_point`.
    pub fn enter_handler(&mut self, func: u32, arg: u32, line: u32, alarm: u32, ret_point: u32) {
        let frame = IntrFrame {
            thread: self.kernel.current,
            ctx: self.cpu_context(),
            line,
            alarm,
            terminate: false,
            rotate: false,
        };
        if let Some(t) = frame.thread {
            self.kernel.threads.get_mut(&t).expect("thread").ctx = frame.ctx;
        }
        self.kernel.current = None;
        self.kernel.intr = Some(frame);
        self.cpu.gpr[29] = self.kernel.intr_stack;
        self.call_guest(func & !3, &[arg], ret_point);
    }

    /// Leave interrupt context: run the highest-priority thread (the interrupted one unless a
    /// handler woke a higher one).
    pub fn leave_handler(&mut self) {
        let Some(frame) = self.kernel.intr.take() else {
            return;
        };
        match frame.thread {
            Some(t) if self.kernel.threads.contains_key(&t) => {
                if frame.terminate {
                    let th = self.kernel.threads.get_mut(&t).expect("thread");
                    th.status = super::ths::DORMANT;
                    th.cont.clear();
                    self.leave();
                    return;
                }
                self.kernel.threads.get_mut(&t).expect("thread").ctx = frame.ctx;
                let prio = self.kernel.threads[&t].priority;
                if frame.rotate && self.highest_ready() <= prio {
                    self.ready_back(t);
                    self.leave();
                } else if self.highest_ready() < prio {
                    self.ready_front(t);
                    self.leave();
                } else {
                    self.kernel.current = Some(t);
                    self.kernel.threads.get_mut(&t).expect("thread").status = super::ths::RUN;
                    self.restore(frame.ctx);
                }
            }
            _ => {
                // The IOP was idle: run whatever became ready.
                self.leave();
            }
        }
    }

    fn restore(&mut self, c: Context) {
        self.cpu.gpr = c.gpr;
        self.cpu.hi = c.hi;
        self.cpu.lo = c.lo;
        self.cpu.pc = c.pc;
        self.cpu.next_pc = c.next_pc;
        self.cpu.in_delay = c.in_delay;
    }
}

/// The interrupt controller asserts the CPU's interrupt: dispatch the lowest raised line.
pub fn take_interrupt(iop: &mut Iop) -> Result<(), IopError> {
    iop.cpu.flush_load_delay();
    let intc = &mut iop.bus.hw.intc;
    let pending = intc.stat & intc.mask;
    if pending == 0 {
        return Ok(());
    }
    let line = pending.trailing_zeros();
    intc.mask &= !(1 << line);
    intc.stat &= !(1 << line);
    // An interrupt costs the dispatcher's few dozen instructions.
    iop.cpu.cycles += 40;
    let h = iop.intr_handler(line as usize);
    if h.field == 0 {
        return Ok(());
    }
    iop.enter_handler(h.field, h.arg, line, 0, ret::INTR_HANDLER);
    Ok(())
}

/// A line handler returned: unmask its line if it returned non-zero, then leave interrupt
/// context.
pub fn handler_returned(iop: &mut Iop) -> Result<(), IopError> {
    let Some(frame) = iop.kernel.intr else {
        return Err(iop.fault("an interrupt handler returned outside an interrupt".into()));
    };
    if iop.cpu.gpr[2] != 0 && frame.line < 32 {
        iop.bus.hw.intc.mask |= 1 << frame.line;
    }
    iop.leave_handler();
    Ok(())
}

impl Iop {
    /// The handler in table slot `slot` (of [`SLOTS`]).
    pub fn intr_handler(&self, slot: usize) -> Handler {
        let at = TABLE + 8 * slot as u32;
        Handler {
            field: self.bus.ram_u32(at),
            arg: self.bus.ram_u32(at.wrapping_add(4)),
        }
    }

    /// Set table slot `slot`.
    pub fn set_intr_handler(&mut self, slot: usize, h: Handler) {
        let at = TABLE + 8 * slot as u32;
        self.bus.set_ram_u32(at, h.field);
        self.bus.set_ram_u32(at.wrapping_add(4), h.arg);
    }
}

/// The handler table slot of an interrupt code, or None for a bad code.
fn slot(irq: u32) -> Option<usize> {
    match irq {
        0..=DMA_LAST => Some(irq as usize),
        0x3e | 0x3f => Some(irq as usize - 0x10),
        _ => None,
    }
}

fn v(x: i32) -> Result<Ret, IopError> {
    Ok(Ret::V(x as u32))
}

fn register(iop: &mut Iop) -> Result<Ret, IopError> {
    let (irq, mode, handler, arg) = (iop.arg(0), iop.arg(1), iop.arg(2), iop.arg(3));
    if iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    let Some(s) = slot(irq) else {
        return v(kerr::ILLEGAL_INTRCODE);
    };
    if iop.intr_handler(s).field != 0 {
        return v(kerr::FOUND_HANDLER);
    }
    // DMA handlers are stored without the mode bits.
    let field = if (DMA_BASE..=DMA_LAST).contains(&irq) {
        handler
    } else {
        handler | (mode & 3)
    };
    iop.set_intr_handler(s, Handler { field, arg });
    v(kerr::OK)
}

fn release(iop: &mut Iop) -> Result<Ret, IopError> {
    let irq = iop.arg(0);
    if iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    let Some(s) = slot(irq) else {
        return v(kerr::ILLEGAL_INTRCODE);
    };
    let mut h = iop.intr_handler(s);
    if h.field == 0 {
        return v(kerr::NOTFOUND_HANDLER);
    }
    h.field = 0;
    iop.set_intr_handler(s, h);
    v(kerr::OK)
}

fn enable(iop: &mut Iop) -> Result<Ret, IopError> {
    let irq = iop.arg(0) & 0xff;
    if irq < DMA_BASE {
        iop.bus.hw.intc.mask |= 1 << irq;
    } else if irq <= DMA_LAST {
        iop.bus.hw.dma_irq_enable(irq - DMA_BASE, true);
        iop.bus.hw.intc.mask |= 1 << super::super::hw::intc::line::DMA;
    } else {
        return v(kerr::ILLEGAL_INTRCODE);
    }
    v(kerr::OK)
}

fn disable(iop: &mut Iop) -> Result<Ret, IopError> {
    let (irq, res) = (iop.arg(0) & 0xff, iop.arg(1));
    let was = if irq < DMA_BASE {
        let m = iop.bus.hw.intc.mask;
        iop.bus.hw.intc.mask = m & !(1 << irq);
        m & (1 << irq) != 0
    } else if irq <= DMA_LAST {
        iop.bus.hw.dma_irq_enable(irq - DMA_BASE, false)
    } else {
        return v(kerr::ILLEGAL_INTRCODE);
    };
    if res != 0 {
        let r = if was { irq } else { kerr::INTRDISABLE as u32 };
        iop.bus.set_ram_u32(res, r);
    }
    v(if was { kerr::OK } else { kerr::INTRDISABLE })
}

fn suspend(iop: &mut Iop) -> Result<Ret, IopError> {
    let p = iop.arg(0);
    let state = iop.bus.hw.intc.read(8);
    if p != 0 {
        iop.bus.set_ram_u32(p, state);
    }
    v(if state == 0 { kerr::CPUDI } else { kerr::OK })
}

fn resume(iop: &mut Iop) -> Result<Ret, IopError> {
    let state = iop.arg(0);
    iop.bus.hw.intc.write(8, state);
    v(kerr::OK)
}

fn cpu_disable(iop: &mut Iop) -> Result<Ret, IopError> {
    let state = iop.bus.hw.intc.read(8);
    v(if state == 0 { kerr::CPUDI } else { kerr::OK })
}

fn cpu_enable(iop: &mut Iop) -> Result<Ret, IopError> {
    iop.bus.hw.intc.write(8, 1);
    v(kerr::OK)
}

fn get_ictrl(iop: &mut Iop) -> Result<Ret, IopError> {
    Ok(Ret::V(iop.bus.hw.intc.read(8)))
}

fn query_context(iop: &mut Iop) -> Result<Ret, IopError> {
    Ok(Ret::V(iop.in_interrupt() as u32))
}

fn query_stack(iop: &mut Iop) -> Result<Ret, IopError> {
    let sp = iop.arg(0);
    let top = iop.kernel.intr_stack;
    Ok(Ret::V((sp <= top && sp > top - STACK_SIZE) as u32))
}

fn invoke_kmode(iop: &mut Iop) -> Result<Ret, IopError> {
    // CpuInvokeInKmode(func, a, b, c): call func(a, b, c) (piney runs everything in kernel mode).
    let (f, a, b, c) = (iop.arg(0), iop.arg(1), iop.arg(2), iop.arg(3));
    let ra = iop.native_ret;
    let sp = iop.cpu.gpr[29];
    iop.call_guest_then(f, &[a, b, c], super::Cont::ReturnTo { ra, sp });
    Ok(Ret::Done)
}

fn nop_ok(_: &mut Iop) -> Result<Ret, IopError> {
    v(kerr::OK)
}

/// intrman.
pub const INTRMAN: LibDef = LibDef {
    name: "intrman",
    version: 0x0102,
    funcs: &[
        (4, "RegisterIntrHandler", register),
        (5, "ReleaseIntrHandler", release),
        (6, "EnableIntr", enable),
        (7, "DisableIntr", disable),
        (8, "CpuDisableIntr", cpu_disable),
        (9, "CpuEnableIntr", cpu_enable),
        (12, "CpuGetICTRL", get_ictrl),
        (13, "CpuEnableICTRL", cpu_enable),
        (14, "CpuInvokeInKmode", invoke_kmode),
        (15, "DisableDispatchIntr", nop_ok),
        (16, "EnableDispatchIntr", nop_ok),
        (17, "CpuSuspendIntr", suspend),
        (18, "CpuResumeIntr", resume),
        (19, "CpuSuspendIntr", suspend),
        (20, "CpuResumeIntr", resume),
        (23, "QueryIntrContext", query_context),
        (24, "QueryIntrStack", query_stack),
    ],
};
