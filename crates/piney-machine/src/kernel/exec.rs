//! LoadExecPS2 and ExecPS2: one program handing the console to another.
//!
//! LoadExecPS2(path, argc, argv), as the BIOS does it through EELOAD: the IOP reboots with the
//! BIOS's modules (EELOAD's SifIopReset with rom0:EELOADCNF), the ELF at `path` is read from its
//! device (`cdrom0:`/`cdrom:` the disc in the drive, `host:`/`host0:` the host folder) and its
//! segments loaded (the rest of EE memory keeps what the old program left, as on a console), and
//! the kernel starts it afresh: every thread, semaphore, handler and alarm of the old program is
//! gone, thread 1 runs the new entry with argv[0] = `path` and then the given arguments. The
//! native hooks of the old program are removed (their addresses meant the old code).
//! ExecPS2(entry, gp, argc, argv) starts a program already in memory the same way, without a
//! load or an IOP reboot; its argv has no path (argv[0] is the first argument).

use super::Ret;
use crate::{Machine, MachineError};

/// The most arguments LoadExecPS2 and ExecPS2 pass on (the kernel's argument area holds 16).
const MAX_ARGS: u32 = 16;

impl Machine {
    /// The strings of `argv[0..argc]`.
    fn exec_args(&mut self, argc: u32, argv: u32, pc: u32) -> Result<Vec<String>, MachineError> {
        if argc > MAX_ARGS {
            return Err(MachineError::Kernel {
                what: format!("{argc} arguments (the kernel passes at most {MAX_ARGS})"),
                pc,
            });
        }
        let mut args = Vec::new();
        for i in 0..argc {
            let at = argv.wrapping_add(4 * i);
            let mut w = [0u8; 4];
            self.bus
                .read_bytes(at, &mut w)
                .map_err(|_| super::bad_addr("an argv entry", at, pc))?;
            let p = u32::from_le_bytes(w);
            let s = self
                .bus
                .read_cstr(p, 256)
                .map_err(|_| super::bad_addr("an argument", p, pc))?;
            args.push(s);
        }
        Ok(args)
    }

    /// The bytes of the program at `path`, from its device.
    fn read_program(&mut self, path: &str) -> Result<Vec<u8>, String> {
        let (dev, rest) = path.split_once(':').unwrap_or(("", path));
        match dev.to_ascii_lowercase().as_str() {
            "cdrom0" | "cdrom" => {
                let Some(disc) = self.bus.iop.disc.as_deref_mut() else {
                    return Err("no disc in the drive".into());
                };
                crate::disc::read_file(disc, path, crate::disc::MAX_PROGRAM_BYTES)
            }
            "host" | "host0" => {
                let rel = rest.trim_start_matches(['/', '\\']);
                let file = match &self.bus.iop.modules.host_root {
                    Some(root) => root.join(rel),
                    None => std::path::PathBuf::from(rel),
                };
                std::fs::read(&file).map_err(|e| format!("{}: {e}", file.display()))
            }
            _ => Err(format!(
                "device \"{dev}:\" holds no program piney can load (cdrom0: and host: can)"
            )),
        }
    }

    /// Start the program with `entry` (its segments in memory) as the kernel does after a load:
    /// a fresh kernel, `args` as argv, `gp` in $gp when given.
    fn exec_start(&mut self, entry: u32, gp: Option<u32>, args: Vec<String>) {
        self.hooks.clear();
        self.invalidate_code();
        self.kernel.args = args;
        self.kernel_boot(entry);
        if let Some(gp) = gp {
            self.cpu.set32(28, gp);
        }
    }

    /// LoadExecPS2 (syscall 6).
    pub(super) fn load_exec_ps2(&mut self, a: [u32; 4], pc: u32) -> Result<Ret, MachineError> {
        let path = self
            .bus
            .read_cstr(a[0], 256)
            .map_err(|_| super::bad_addr("LoadExecPS2's path", a[0], pc))?;
        let mut args = vec![path.clone()];
        args.extend(self.exec_args(a[1], a[2], pc)?);
        let image = self.read_program(&path).map_err(|e| MachineError::Kernel {
            what: format!("LoadExecPS2 \"{path}\": {e}"),
            pc,
        })?;
        let entry = crate::elf::load(&image, &mut self.bus).map_err(|e| MachineError::Kernel {
            what: format!("LoadExecPS2 \"{path}\": {e}"),
            pc,
        })?;
        // EELOAD's IOP reset to the BIOS's modules; the new program sees it done when it
        // initialises the SIF.
        piney_iop::modules::request_reboot(&mut self.bus.iop, "");
        self.schedule_iop();
        self.exec_start(entry, None, args);
        Ok(Ret::Replaced)
    }

    /// ExecPS2 (syscall 7).
    pub(super) fn exec_ps2(&mut self, a: [u32; 4], pc: u32) -> Result<Ret, MachineError> {
        let args = self.exec_args(a[2], a[3], pc)?;
        self.exec_start(a[0], Some(a[1]), args);
        Ok(Ret::Replaced)
    }
}
