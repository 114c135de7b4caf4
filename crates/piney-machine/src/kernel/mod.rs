//! The EE kernel, emulated at a high level. (Being written.)

pub mod stubs;

use piney_ee::Exception;

use crate::{Machine, MachineError};

/// The kernel's state.
#[derive(Debug, Default)]
pub struct Kernel {}

impl Machine {
    /// Start the loaded program at `entry`, as LoadExecPS2 leaves it.
    pub(crate) fn kernel_boot(&mut self, entry: u32) {
        self.cpu.jump_to(entry);
    }

    /// Service a SYSCALL (the number is in $v1).
    pub(crate) fn kernel_syscall(&mut self, e: Exception) -> Result<(), MachineError> {
        let number = self.cpu.r32(3) as i32;
        match number {
            4 => {
                self.request_exit(self.cpu.r32(4) as i32);
                Ok(())
            }
            _ => Err(MachineError::UnknownSyscall { number, pc: e.pc }),
        }
    }

    /// Service an interrupt.
    pub(crate) fn kernel_interrupt(&mut self, _e: Exception) -> Result<(), MachineError> {
        self.cpu.eret();
        Ok(())
    }

    /// Any other exception: the run stops naming it.
    pub(crate) fn kernel_exception(&mut self, e: Exception) -> Result<(), MachineError> {
        Err(MachineError::Cpu(e))
    }

    /// An alarm expired.
    pub(crate) fn kernel_alarm(&mut self, _id: u32) -> Result<(), MachineError> {
        Ok(())
    }

    /// Whether every thread is waiting (the CPU has nothing to run).
    pub(crate) fn kernel_idle(&self) -> bool {
        false
    }
}
