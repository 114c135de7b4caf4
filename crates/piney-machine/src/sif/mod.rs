//! The SIF, the EE's link to the IOP, and the IOP side of it served natively.
//!
//! Contract:
//! - [`SifRegs`] are the SIF registers as the EE's bus sees them (0x1000_F200..). After reset they
//!   show an IOP that has already booted: SMFLG has SIFINIT, CMDINIT and BOOTEND set and SMCOM holds
//!   the address of the IOP's command receive buffer, so that ps2sdk's `SifInitCmd`/`SifInitRpc`
//!   proceed without a BIOS.
//! - The kernel's SIF syscalls land in [`crate::Machine::sif_set_dma`], `sif_dma_stat`,
//!   `sif_set_dchain`, `sif_set_reg` and `sif_get_reg`.
//! - EE -> IOP transfers (SIF1, DMA channel 6) are timed ([`dma`]): the EE's bytes are taken when the
//!   transfer is queued and land in IOP RAM when it completes, in order. A transfer flagged for an
//!   IOP interrupt makes the native `sifcmd` ([`cmd`]) read its command buffer and act on the packet.
//! - IOP -> EE transfers (SIF0, DMA channel 5) are timed too. They are delivered only while the
//!   EE's channel 5 is armed (D5_CHCR.STR, set by SifSetDChain); a command packet ends the chain:
//!   STR clears, D_STAT.CIS5 is raised, and the EE's handler re-arms the channel.
//! - RPC servers are native and registered by sid ([`rpc::RpcServer`]); FILEIO (0x80000001) is
//!   one ([`fileio`]). All of it is driven by [`crate::scheduler::Event::Sif`].

pub mod cmd;
pub mod dma;
pub mod fileio;
pub mod padman;
pub mod rpc;

use std::collections::HashSet;

use crate::bus::EeBus;
use crate::scheduler::Event;
use crate::{Machine, MachineError};

/// SMFLG/MSFLG bit: the SIF is initialised.
pub const SIF_STAT_SIFINIT: u32 = 0x1_0000;
/// SMFLG/MSFLG bit: the SIF command layer is initialised.
pub const SIF_STAT_CMDINIT: u32 = 0x2_0000;
/// SMFLG bit: the IOP finished booting.
pub const SIF_STAT_BOOTEND: u32 = 0x4_0000;

/// SifSetReg/SifGetReg register numbers (ps2sdk `sifdma.h`): 1..4 are the hardware registers.
pub mod reg {
    /// MSCOM: main -> sub command buffer address.
    pub const MAINADDR: u32 = 1;
    /// SMCOM: sub -> main command buffer address (the IOP's receive buffer).
    pub const SUBADDR: u32 = 2;
    /// MSFLG: main -> sub flags.
    pub const MSFLAG: u32 = 3;
    /// SMFLG: sub -> main flags.
    pub const SMFLAG: u32 = 4;
    /// The first of the kernel's software registers (0x8000_0000 + n).
    pub const SYSTEM: u32 = 0x8000_0000;
    /// Software register: the IOP's command buffer address as the EE's cmd library last saw it.
    pub const SYS_SUBADDR: u32 = SYSTEM;
    /// Software register: the EE cmd library's data (its `struct cmd_data`).
    pub const SYS_MAINADDR: u32 = SYSTEM | 1;
    /// Software register: the RPC layer is initialised.
    pub const SYS_RPCINIT: u32 = SYSTEM | 2;
}

/// EE DMAC: D5_CHCR (SIF0, IOP -> EE).
pub const D5_CHCR: u32 = 0x1000_c000;
/// EE DMAC: D5_MADR.
pub const D5_MADR: u32 = 0x1000_c010;
/// EE DMAC: D6_CHCR (SIF1, EE -> IOP).
pub const D6_CHCR: u32 = 0x1000_c400;
/// EE DMAC: D_STAT.
pub const D_STAT: u32 = 0x1000_e010;
/// D_STAT: channel interrupt status bit of SIF0 (channel 5).
pub const D_STAT_CIS5: u32 = 1 << 5;
/// D_STAT: channel interrupt status bit of SIF1 (channel 6).
pub const D_STAT_CIS6: u32 = 1 << 6;
/// Dn_CHCR.STR: the channel runs.
pub const CHCR_STR: u32 = 0x100;
/// What SifSetDChain writes to D5_CHCR: STR | TIE (stop and interrupt on a tag's IRQ bit) |
/// MOD=chain (destination-chain mode, the tags come from the IOP).
pub const SIF0_DCHAIN: u32 = CHCR_STR | 0x80 | 0x4;

/// The SIF registers at 0x1000_F200 as the EE sees them: MSCOM (+0x00), SMCOM (+0x10), MSFLG
/// (+0x20), SMFLG (+0x30), CTRL (+0x40), BD6 (+0x60).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SifRegs {
    /// The registers by (offset / 16).
    pub regs: [u32; 16],
}

impl Default for SifRegs {
    /// The registers of a booted IOP: SMFLG = SIFINIT | CMDINIT | BOOTEND, SMCOM = the native
    /// sifcmd's receive buffer.
    fn default() -> Self {
        let mut regs = [0; 16];
        regs[1] = cmd::IOP_CMD_RECV_BUF;
        regs[3] = SIF_STAT_SIFINIT | SIF_STAT_CMDINIT | SIF_STAT_BOOTEND;
        Self { regs }
    }
}

impl SifRegs {
    /// MSCOM.
    pub fn mscom(&self) -> u32 {
        self.regs[0]
    }
    /// SMCOM.
    pub fn smcom(&self) -> u32 {
        self.regs[1]
    }
    /// MSFLG.
    pub fn msflg(&self) -> u32 {
        self.regs[2]
    }
    /// SMFLG.
    pub fn smflg(&self) -> u32 {
        self.regs[3]
    }

    /// Read a SIF register (physical address).
    pub fn read(&self, p: u32) -> u32 {
        self.regs[((p >> 4) & 15) as usize]
    }

    /// Write a SIF register from the EE (physical address), with the EE side's semantics.
    pub fn write(&mut self, p: u32, v: u32) {
        let i = ((p >> 4) & 15) as usize;
        match i {
            // SMCOM belongs to the IOP: the EE cannot write it.
            1 => {}
            // MSFLG: the EE sets bits (the IOP clears them).
            2 => self.regs[2] |= v,
            // SMFLG: the EE clears bits by writing 1s (the IOP sets them).
            3 => self.regs[3] &= !v,
            // CTRL: from the EE only bit 8 is written as is.
            4 => self.regs[4] = (self.regs[4] & !0x100) | (v & 0x100),
            _ => self.regs[i] = v,
        }
    }

    /// The IOP sets SMFLG bits.
    pub fn iop_set_smflg(&mut self, bits: u32) {
        self.regs[3] |= bits;
    }

    /// The IOP writes SMCOM.
    pub fn iop_set_smcom(&mut self, v: u32) {
        self.regs[1] = v;
    }
}

/// The SIF's state outside the registers: the transfer queues, the native IOP command layer and
/// its RPC servers, and the kernel's SIF software registers.
pub struct Sif {
    /// The kernel's software registers (SifSetReg 0x8000_0000 + n, n < 32).
    pub sysregs: [u32; 32],
    /// The transfers in flight, both ways.
    pub dma: dma::SifDma,
    /// The native IOP command layer.
    pub iop: cmd::IopCmd,
    /// The native RPC servers.
    pub rpc: rpc::RpcRegistry,
    logged: HashSet<String>,
}

impl Default for Sif {
    fn default() -> Self {
        Self::new()
    }
}

impl Sif {
    /// A SIF with empty queues and the default native servers (FILEIO) registered.
    pub fn new() -> Self {
        let mut s = Self {
            sysregs: [0; 32],
            dma: dma::SifDma::default(),
            iop: cmd::IopCmd::default(),
            rpc: rpc::RpcRegistry::default(),
            logged: HashSet::new(),
        };
        s.rpc.register(Box::new(fileio::FileIo::new()));
        padman::register(&mut s.rpc);
        s
    }

    /// Log `msg` to stderr once per `key`.
    pub fn log_once(&mut self, key: &str, msg: &str) {
        if self.logged.insert(key.to_string()) {
            eprintln!("piney: sif: {msg}");
        }
    }

    /// Lay the IOP side's structures out in IOP RAM (the server data of each registered server).
    pub fn install(&mut self, bus: &mut EeBus) {
        self.rpc.install(bus);
    }
}

impl Machine {
    /// Power-on state of the SIF: queues empty, native servers laid out in IOP RAM. Called by
    /// [`Machine::reset`] after the bus reset (which resets [`SifRegs`] to the booted state).
    pub fn sif_reset(&mut self) {
        let mut sif = Sif::new();
        sif.install(&mut self.bus);
        self.sif = sif;
    }

    /// Register a native RPC server (replacing one with the same sid) and lay it out in IOP RAM.
    pub fn sif_register_server(&mut self, server: Box<dyn rpc::RpcServer>) {
        self.sif.rpc.register(server);
        self.sif.rpc.install(&mut self.bus);
    }

    /// A native IOP module sends bytes to EE memory through SIF0 (as the IOP's sceSifSetDma does
    /// outside any RPC call): they land in order with the IOP's other sends, once channel 5 runs.
    pub fn sif_iop_send_to_ee(&mut self, dest: u32, data: Vec<u8>) {
        let now = self.cpu.cycles;
        self.sif.dma.queue_to_ee(now, dest, data, false);
        self.sif_reschedule();
    }

    /// The SIF's timed event: transfers complete, the IOP acts on what arrived, replies reach the EE.
    pub(crate) fn sif_event(&mut self) -> Result<(), MachineError> {
        let now = self.cpu.cycles;
        let r = self.sif_service(now);
        self.sif_reschedule();
        r
    }

    /// Let time pass to `cycle` with the CPU idle, running only the SIF's events on the way (for
    /// tests and tools that drive the SIF without a guest; other events stay due for [`Machine::run`]).
    pub fn sif_run_until(&mut self, cycle: u64) -> Result<(), MachineError> {
        while let Some(t) = self.bus.sched.due_of(Event::Sif)
            && t <= cycle
        {
            self.cpu.cycles = self.cpu.cycles.max(t);
            self.bus.now = self.cpu.cycles;
            self.sif_event()?;
        }
        self.cpu.cycles = self.cpu.cycles.max(cycle);
        Ok(())
    }

    /// Run everything due at or before `now`.
    fn sif_service(&mut self, now: u64) -> Result<(), MachineError> {
        if let Some(t) = self.sif.iop.reboot_due
            && t <= now
        {
            self.sif.iop.reboot_due = None;
            cmd::finish_reboot(&mut self.sif, &mut self.bus);
        }
        // EE -> IOP, in order; each completed packet transfer may queue IOP -> EE replies.
        while let Some(x) = self.sif.dma.pop_to_iop_due(now) {
            dma::write_iop(&mut self.bus, x.dest, &x.data).map_err(|what| self.sif_error(what))?;
            if x.attr & dma::SIF_DMA_INT_I != 0 {
                // The EE asked for its own interrupt when the transfer is done: channel 6 stops.
                self.bus.io[((D_STAT & 0xffff) / 4) as usize] |= D_STAT_CIS6;
                self.bus.irq_changed();
            }
            if x.attr & dma::SIF_DMA_INT_O != 0 {
                // The IOP's SIF1 DMA interrupt: its sifcmd handler reads the command buffer.
                cmd::iop_interrupt(&mut self.sif, &mut self.bus, x.due)
                    .map_err(|what| self.sif_error(what))?;
            }
        }
        // IOP -> EE, while channel 5 is armed.
        loop {
            if self.bus.io[((D5_CHCR & 0xffff) / 4) as usize] & CHCR_STR == 0 {
                break;
            }
            let Some(x) = self.sif.dma.pop_to_ee_due(now) else {
                break;
            };
            dma::write_ee(&mut self.bus, x.dest, &x.data).map_err(|what| self.sif_error(what))?;
            self.bus.io[((D5_MADR & 0xffff) / 4) as usize] =
                x.dest.wrapping_add(x.data.len() as u32);
            if x.irq {
                // The tag's IRQ bit with CHCR.TIE: the chain ends and channel 5 interrupts.
                self.bus.io[((D5_CHCR & 0xffff) / 4) as usize] &= !CHCR_STR;
                self.bus.io[((D_STAT & 0xffff) / 4) as usize] |= D_STAT_CIS5;
                self.bus.irq_changed();
                break;
            }
        }
        Ok(())
    }

    fn sif_error(&self, what: String) -> MachineError {
        MachineError::Unimplemented {
            what: format!("SIF: {what}"),
            pc: self.cpu.cur_pc,
        }
    }

    /// (Re)schedule the one pending [`Event::Sif`] at the next time something is due.
    fn sif_reschedule(&mut self) {
        let now = self.cpu.cycles;
        self.bus.sched.cancel(Event::Sif);
        let armed = self.bus.io[((D5_CHCR & 0xffff) / 4) as usize] & CHCR_STR != 0;
        let mut next: Option<u64> = None;
        let mut consider = |t: u64| next = Some(next.map_or(t, |n| n.min(t)));
        if let Some(t) = self.sif.dma.next_to_iop_due() {
            consider(t);
        }
        if let Some(t) = self.sif.dma.next_to_ee_due() {
            // A stalled SIF0 (channel 5 not re-armed yet) is polled, so that a guest arming
            // D5_CHCR by a plain store is noticed as well as one calling SifSetDChain.
            consider(if armed {
                t
            } else {
                t.max(now + dma::SIF0_STALL_POLL)
            });
        }
        if let Some(t) = self.sif.iop.reboot_due {
            consider(t);
        }
        if let Some(t) = next {
            self.bus.sched.schedule_at(t.max(now), Event::Sif);
        }
    }
}

/// The SIF services the kernel's syscalls call (SifSetDma 119, SifSetDChain 120, SifSetReg 121,
/// SifGetReg 122, SifDmaStat 118, and their i-variants). Owned by the SIF module.
impl Machine {
    /// SifSetDma(transfers, count): queue `count` transfers described at `transfers` (each
    /// { src, dest, size, attr }, 16 bytes) from EE memory to IOP RAM. Returns the transfer id
    /// (non-zero), or 0 when the queue is full.
    pub fn sif_set_dma(&mut self, transfers: u32, count: u32) -> Result<u32, MachineError> {
        let pc = self.cpu.cur_pc;
        let fault = |what: String| MachineError::Kernel { what, pc };
        if count == 0 || count > dma::SIF1_QUEUE_MAX as u32 {
            return Ok(0);
        }
        let mut list = Vec::with_capacity(count as usize);
        for i in 0..count {
            let at = transfers.wrapping_add(16 * i);
            let mut d = [0u8; 16];
            self.bus.read_bytes(at, &mut d).map_err(|e| {
                fault(format!(
                    "SifSetDma: transfer {i} at {at:#010x} unreadable ({:#010x})",
                    e.addr
                ))
            })?;
            let w =
                |k: usize| u32::from_le_bytes([d[4 * k], d[4 * k + 1], d[4 * k + 2], d[4 * k + 3]]);
            let (src, dest, size, attr) = (w(0), w(1), w(2), w(3));
            // The SIF moves whole 32-bit words.
            let len = (size as usize).min(dma::SIF_MAX_TRANSFER).div_ceil(4) * 4;
            let data = dma::read_ee(&mut self.bus, src, len).map_err(|a| {
                fault(format!(
                    "SifSetDma: source {src:#010x}+{len:#x} unreadable at {a:#010x}"
                ))
            })?;
            list.push((dest, data, attr));
        }
        let now = self.cpu.cycles;
        let id = self.sif.dma.queue_to_iop(now, list);
        self.sif_reschedule();
        Ok(id)
    }

    /// SifDmaStat(id): >0 queued, 0 running, <0 done.
    pub fn sif_dma_stat(&mut self, id: u32) -> i32 {
        self.sif.dma.stat(id)
    }

    /// SifSetDChain(): (re)arm the EE's SIF0 receive channel (DMA channel 5) in chain mode.
    pub fn sif_set_dchain(&mut self) {
        let i = ((D5_CHCR & 0xffff) / 4) as usize;
        self.bus.io[i] = SIF0_DCHAIN;
        // D5_QWC = 0: the tags come from the IOP.
        self.bus.io[((0x1000_c020 & 0xffff) / 4) as usize] = 0;
        self.sif_reschedule();
    }

    /// Look at the SIF's queues again now: for the DMAC, when the guest starts channel 5 by a
    /// plain CHCR store (otherwise noticed within [`dma::SIF0_STALL_POLL`] cycles).
    pub fn sif_kick(&mut self) {
        self.sif_reschedule();
    }

    /// SifStopDma(): stop channel 5 (the IOP's pending sends wait until it is armed again).
    pub fn sif_stop_dma(&mut self) {
        self.bus.io[((D5_CHCR & 0xffff) / 4) as usize] &= !CHCR_STR;
        self.sif_reschedule();
    }

    /// SifSetReg(reg, value): returns the old value.
    pub fn sif_set_reg(&mut self, reg: u32, value: u32) -> u32 {
        let base = 0x1000_f200;
        match reg {
            reg::MAINADDR..=reg::SMFLAG => {
                let p = base + 0x10 * (reg - 1);
                let old = self.bus.sif.read(p);
                self.bus.sif.write(p, value);
                old
            }
            r if r & reg::SYSTEM != 0 && (r & 0x7fff_ffff) < 32 => {
                let i = (r & 31) as usize;
                std::mem::replace(&mut self.sif.sysregs[i], value)
            }
            r => {
                self.sif.log_once(
                    &format!("setreg{r:x}"),
                    &format!("SifSetReg of unknown register {r:#x} ignored"),
                );
                0
            }
        }
    }

    /// SifGetReg(reg).
    pub fn sif_get_reg(&mut self, reg: u32) -> u32 {
        match reg {
            reg::MAINADDR..=reg::SMFLAG => self.bus.sif.read(0x1000_f200 + 0x10 * (reg - 1)),
            r if r & reg::SYSTEM != 0 && (r & 0x7fff_ffff) < 32 => {
                self.sif.sysregs[(r & 31) as usize]
            }
            r => {
                self.sif.log_once(
                    &format!("getreg{r:x}"),
                    &format!("SifGetReg of unknown register {r:#x} reads 0"),
                );
                0
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regs_have_ee_side_semantics() {
        let mut r = SifRegs::default();
        assert_eq!(r.smflg(), 0x7_0000);
        r.write(0x1000_f230, SIF_STAT_BOOTEND);
        assert_eq!(r.smflg(), 0x3_0000, "EE writes clear SMFLG bits");
        r.write(0x1000_f220, 0x10);
        r.write(0x1000_f220, 0x01);
        assert_eq!(r.msflg(), 0x11, "EE writes set MSFLG bits");
        r.write(0x1000_f210, 5);
        assert_eq!(r.smcom(), cmd::IOP_CMD_RECV_BUF, "SMCOM is the IOP's");
        r.write(0x1000_f200, 0x1234);
        assert_eq!(r.mscom(), 0x1234);
    }
}
