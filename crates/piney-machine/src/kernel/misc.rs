//! The remaining syscalls: exit, the OSD configuration, the GS CRT and IMR, SetVSyncFlag,
//! SetSyscall and the kernel-memory copy, caches, the memory size, the TLB set-up calls.

use piney_ee::cpu::cop0reg;

use super::{GsCrt, Ret, SYSCALL_TABLE, stubs};
use crate::{Machine, MachineError};

impl Machine {
    /// Syscalls outside the thread, semaphore, interrupt, alarm and SIF groups. `None`: unknown.
    pub(super) fn misc_syscall(
        &mut self,
        number: i32,
        a: [u32; 4],
        pc: u32,
    ) -> Result<Option<Ret>, MachineError> {
        let unimplemented = |what: &str| MachineError::Unimplemented {
            what: format!("syscall {number:#x} ({what})"),
            pc,
        };
        let r = match number {
            // ResetEE(mask): resets DMAC/VIF/GIF/VU/IPU units. The devices start reset and
            // programs call it before using them, so there is nothing left to reset.
            1 => Ret::V(0),
            2 => {
                let crt = GsCrt {
                    interlace: a[0],
                    mode: a[1],
                    ffmd: a[2],
                };
                self.kernel.gs_crt = Some(crt);
                // The BIOS's SetGsCrt programs the video mode: SMODE1 (its CMOD, bits 13-14,
                // is what the PCRTC's display offset measures against) and SMODE2 (INT bit 0,
                // FFMD bit 1).
                use piney_gs::gs::priv_reg::{SMODE1, SMODE2};
                let gs = &mut self.bus.gif.gs.gs;
                let _ = gs.write_priv(SMODE1, crt.smode1());
                let _ = gs.write_priv(
                    SMODE2,
                    (crt.interlace & 1) as u64 | ((crt.ffmd & 1) << 1) as u64,
                );
                Ret::V(0)
            }
            4 => {
                self.request_exit(a[0] as i32);
                Ret::Done
            }
            6 => self.load_exec_ps2(a, pc)?,
            7 => self.exec_ps2(a, pc)?,
            // ExecOSD: leave the program for the system menu. There is none: the run ends.
            0x7b => {
                self.request_exit(0);
                Ret::Done
            }
            // SetVTLBRefillHandler, SetVCommonHandler, SetVInterruptHandler(cause, handler):
            // recorded and the old one returned. piney's fixed memory map raises no TLB
            // exception, and other exceptions end the run, so they are never called.
            0x0d..=0x0f => {
                let slot = &mut self.kernel.vector_handlers[(a[0] & 31) as usize];
                Ret::V(std::mem::replace(slot, a[1]) as i32)
            }
            0x4a => {
                self.kernel.osd_config = self.kread32(a[0], "SetOsdConfigParam")?;
                Ret::V(0)
            }
            0x4b => {
                self.kwrite32(a[0], self.kernel.osd_config, "GetOsdConfigParam")?;
                Ret::V(0)
            }
            // SetOsdConfigParam2 / GetOsdConfigParam2(ptr, size, offset): the extended block.
            0x6e => {
                let (size, off) = (a[1].min(0x100) as usize, a[2].min(0x100) as usize);
                let mut buf = vec![0; size];
                self.bus
                    .read_bytes(a[0], &mut buf)
                    .map_err(|_| super::bad_addr("SetOsdConfigParam2", a[0], pc))?;
                let cfg = &mut self.kernel.osd_config2;
                if cfg.len() < off + size {
                    cfg.resize(off + size, 0);
                }
                cfg[off..off + size].copy_from_slice(&buf);
                Ret::V(0)
            }
            0x6f => {
                let (size, off) = (a[1].min(0x100) as usize, a[2].min(0x100) as usize);
                let buf: Vec<u8> = (off..off + size)
                    .map(|i| self.kernel.osd_config2.get(i).copied().unwrap_or(0))
                    .collect();
                self.bus
                    .write_bytes(a[0], &buf)
                    .map_err(|_| super::bad_addr("GetOsdConfigParam2", a[0], pc))?;
                Ret::V(0)
            }
            // Copy(dest, src, size): kernel-memory copy, used to install patches.
            0x5a => {
                let mut buf = vec![0; a[2].min(crate::bus::RAM_SIZE as u32) as usize];
                self.bus
                    .read_bytes(a[1], &mut buf)
                    .map_err(|_| super::bad_addr("Copy", a[1], pc))?;
                self.bus
                    .write_bytes(a[0], &buf)
                    .map_err(|_| super::bad_addr("Copy", a[0], pc))?;
                self.cache_flushed(0);
                Ret::V(0)
            }
            // GetEntryAddress(n): the address syscall n is serviced at.
            0x5b => {
                Ret::V(self.kread32(SYSCALL_TABLE + 4 * (a[0] & 0xff), "GetEntryAddress")? as i32)
            }
            0x55..=0x58 | -0x58..=-0x55 => {
                return Err(unimplemented(
                    "the TLB entry calls: piney's memory map is fixed",
                ));
            }
            // _InitTLB: the kernel's fixed map is what piney's bus implements.
            0x82 => Ret::V(0),
            // EnableCache / DisableCache, SetMemoryMode: no caches or memory modes to model.
            0x61 | 0x62 | 0x85 => Ret::V(0),
            0x63 | -0x67 => Ret::V(self.cpu.cop0.regs[(a[0] & 31) as usize] as i32),
            0x64 | -0x68 => {
                self.cache_flushed(a[0]);
                Ret::V(0)
            }
            0x66 | -0x6a => Ret::V(self.cpu.cop0.regs[cop0reg::CONFIG] as i32),
            // GsGetIMR returns the kernel's copy (IMR cannot be read); GsPutIMR keeps one and
            // writes the register.
            0x70 | -0x70 => Ret::V(self.kernel.gs_imr as i32),
            0x71 | -0x71 => {
                self.kernel.gs_imr = a[0];
                let _ = self
                    .bus
                    .gif
                    .gs
                    .gs
                    .write_priv(piney_gs::gs::priv_reg::IMR, a[0] as u64);
                Ret::V(0)
            }
            0x73 => {
                self.kernel.vsync_flag = Some((a[0], a[1]));
                Ret::V(0)
            }
            // SetSyscall(n, address): the table entry becomes guest code.
            0x74 => {
                if a[0] < stubs::SYSCALLS {
                    self.kwrite32(SYSCALL_TABLE + 4 * a[0], a[1], "SetSyscall")?;
                    Ret::V(0)
                } else if a[0] == 0x12c {
                    // The real kernel does not check the number: entry 0x12c lies past the table,
                    // on the kernel's own handler for INTC line 12 (timer 3). ps2sdk's alarm
                    // library installs its timer-3 service there.
                    self.set_kernel_timer3_handler(a[1]);
                    Ret::V(0)
                } else {
                    return Err(unimplemented(&format!(
                        "SetSyscall({:#x}) outside the syscall table",
                        a[0]
                    )));
                }
            }
            0x75 => return Err(unimplemented("_print")),
            // Deci2Call: there is no DECI2 debugger connection.
            0x7c => Ret::V(-1),
            0x7f => Ret::V(crate::bus::RAM_SIZE as i32),
            _ => return Ok(None),
        };
        Ok(Some(r))
    }

    /// FlushCache / iFlushCache(mode) and kernel copies: guest code or data may have changed.
    /// Memory has no cache to write back; a code translator must drop what it translated here.
    pub(super) fn cache_flushed(&mut self, _mode: u32) {
        // The recompiler sees every CPU store into translated code itself (and drops those
        // blocks), and engines flush every frame (ccSystem::Ctrl), so dropping everything here
        // would retranslate the whole program each frame. What it cannot see is RAM written by
        // devices (DMA to memory, SIF: an overlay loaded from the IOP): the pages they wrote
        // since the last flush lose their translated code now, as the instruction cache must be
        // flushed on the console before such code runs. (Any mode: programs flush the data
        // cache, 0, then the instruction cache, 2; either is a point where new code may run.)
        let pages = self.bus.device_writes.take();
        if let Some(jit) = &mut self.jit {
            for p in pages {
                jit.invalidate_range(p, crate::bus::DEVICE_PAGE as u32);
            }
        }
    }
}
