//! What COP2 asks of the machine: VU0 micro mode (VCALLMS, VCALLMSR) and VU1 starts (a CTC2 to
//! CMSAR1), and VPU-STAT's busy bits.
//!
//! VU0 shares its registers with COP2 (`cpu.vu0`); its micro and data memories are the bus's
//! window at 0x1100_0000 and 0x1100_4000. A VCALLMS runs the microprogram to its end at once (the
//! EE sees VU0 finished by its next instruction: VPU-STAT bit 0 never reads set). VU1 is started
//! through the same runner VIF1's MSCAL uses; VPU-STAT bit 8 reads set for the cycles it runs.
//! VU0's view of VU1's registers (addresses 0x4000.. of its data space) is not attached: those
//! loads read 0 and stores are dropped.

use piney_ee::interp::cop2::ctrl;
use piney_vu::{NullHost, Stop};

use crate::scheduler::Event;
use crate::{Machine, MachineError};

/// The most cycles one VCALLMS may run before the run is stopped as a runaway microprogram.
const VU0_MAX_CYCLES: u64 = 1 << 24;

/// VPU-STAT bit 8: VU1 running.
const VPU_STAT_VU1_BUSY: u32 = 1 << 8;

impl Machine {
    /// Service a VCALLMS or a VU1 start that the instruction just executed asked for.
    #[inline]
    pub(crate) fn service_cop2(&mut self) -> Result<(), MachineError> {
        if let Some(addr) = self.cpu.vu0.pending_call.take() {
            self.vu0_call(addr)?;
        }
        if let Some(pc) = self.cpu.vu0.pending_vu1_start.take() {
            self.bus.now = self.cpu.cycles;
            self.bus
                .vu1_start(pc)
                .map_err(|what| MachineError::Unimplemented {
                    what,
                    pc: self.cpu.cur_pc,
                })?;
            if self.bus.vu1_busy() {
                self.cpu.vu0.vi[ctrl::VPU_STAT] |= VPU_STAT_VU1_BUSY;
                let at = self.bus.vu1_busy_until();
                self.bus.sched.cancel(Event::Vu1Done);
                self.bus.sched.schedule_at(at, Event::Vu1Done);
            }
        }
        Ok(())
    }

    /// VU1 has finished: clear VPU-STAT bit 8.
    pub(crate) fn vu1_done(&mut self) {
        if !self.bus.vu1_busy() {
            self.cpu.vu0.vi[ctrl::VPU_STAT] &= !VPU_STAT_VU1_BUSY;
        }
    }

    fn vu0_call(&mut self, addr: u32) -> Result<(), MachineError> {
        let vu = &mut self.vu0;
        vu.micro.copy_from_slice(&self.bus.vu_mem[0x0000..0x1000]);
        vu.data.copy_from_slice(&self.bus.vu_mem[0x4000..0x5000]);
        std::mem::swap(&mut vu.regs, &mut self.cpu.vu0);
        let stop = vu.run(addr, &mut NullHost, VU0_MAX_CYCLES);
        // The pipelines run out after the program ends: Q, P and the flags land before the EE can
        // look (and nothing from this run may land on a later CTC2's values).
        vu.drain();
        std::mem::swap(&mut vu.regs, &mut self.cpu.vu0);
        self.bus.vu_mem[0x4000..0x5000].copy_from_slice(&vu.data);
        // TPC: where VU0 stopped, in 64-bit instructions.
        let pc = self.cur_vu0_pc();
        self.cpu.vu0.vi[ctrl::TPC] = pc;
        match stop {
            Stop::Ended { .. } | Stop::Breakpoint { .. } => Ok(()),
            Stop::CycleLimit { pc } => Err(MachineError::Unimplemented {
                what: format!(
                    "VU0 microprogram ran {VU0_MAX_CYCLES} cycles without ending (VU pc {pc:#06x})"
                ),
                pc: self.cpu.cur_pc,
            }),
            Stop::Error { pc, what } => Err(MachineError::Unimplemented {
                what: format!("VU0 at {pc:#06x}: {what}"),
                pc: self.cpu.cur_pc,
            }),
        }
    }

    fn cur_vu0_pc(&self) -> u32 {
        self.vu0.pc() / 8
    }
}
