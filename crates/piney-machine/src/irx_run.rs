//! `piney run MODULE.irx`: an IOP module run on its own, as IOP test programs (ps2autotests'
//! `tests/**/iop/*.irx`) are: the machine boots as for an EE program, the module is loaded and
//! started as the IOP's first user module, and the EE runs an idle program beside it (its one
//! thread sleeps; nothing of it prints). The run ends, with exit status 0, once the IOP has
//! nothing left to do: every queued module started, no IOP thread ready, none waiting for a
//! timer or a vertical blank, no reboot under way ([`piney_iop::Iop::quiescent`]); or at the run's
//! limits. A module that cannot be loaded ends the run with [`MachineError::IrxLoad`].

use crate::{Machine, MachineError};

/// Where the idle EE program lives (user RAM above the kernel's area).
const IDLE_PROGRAM: u32 = 0x0010_0000;

/// `loop: addiu $v1, $zero, 0x32 (SleepThread); syscall; b loop; nop`.
const IDLE_CODE: [u32; 4] = [0x2403_0032, 0x0000_000c, 0x1000_fffd, 0];

/// Whether `image` is an IOP module: an ELF whose type is ET_SCE_IOPRELEXEC (0xff80).
pub fn is_irx(image: &[u8]) -> bool {
    image.starts_with(b"\x7fELF") && image.get(16..18) == Some(&[0x80, 0xff][..])
}

impl Machine {
    /// Boot with the IRX `image` (named `path` in module listings and messages) as the first
    /// user module, beside an idle EE program.
    pub fn load_irx(&mut self, path: &str, image: &[u8]) -> Result<(), MachineError> {
        // Parse it now, so that a broken file is one error before anything runs.
        piney_iop::irx::parse(path, image)
            .map_err(|e| MachineError::Iop(piney_iop::IopError::Load(e)))?;
        for (i, w) in IDLE_CODE.iter().enumerate() {
            self.bus.ram[IDLE_PROGRAM as usize + 4 * i..][..4].copy_from_slice(&w.to_le_bytes());
        }
        self.invalidate_code();
        self.kernel_boot(IDLE_PROGRAM);
        // Its load failure ends the run with one line: the run's error says it.
        self.bus.iop.kernel.loadcore.quiet = true;
        self.bus.iop.queue_module(path, image.to_vec(), &[]);
        self.irx_run = Some(path.to_string());
        self.iop_wake_soon();
        Ok(())
    }

    /// In an IRX run, while the EE idles: whether the run is over (the IOP is done, or the
    /// module failed to load), as an exit request or an error.
    pub(crate) fn irx_run_check(&mut self) -> Result<(), MachineError> {
        let Some(path) = &self.irx_run else {
            return Ok(());
        };
        let loadcore = &mut self.bus.iop.kernel.loadcore;
        if let Some(o) = loadcore.outcomes.first() {
            if o.id < 0 {
                let why = loadcore.last_error.clone().unwrap_or_default();
                return Err(MachineError::IrxLoad {
                    path: path.clone(),
                    reason: format!("{why} (the load answers {})", o.id),
                });
            }
            loadcore.quiet = false;
        }
        let iop = &self.bus.iop;
        if iop.quiescent() {
            self.request_exit(0);
        }
        Ok(())
    }
}
