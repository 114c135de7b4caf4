//! What COP2 and VIF0 ask of the machine: VU0 micro mode (VCALLMS, VCALLMSR, and VIF0's
//! MSCAL/MSCALF/MSCNT), VU1 starts (a CTC2 to CMSAR1), and VPU-STAT's busy bits.
//!
//! Contract:
//! - VU0 shares its registers with COP2 (`cpu.vu0`); its micro and data memories are the bus's
//!   window at 0x1100_0000 and 0x1100_4000. Every VU0 start, from COP2 or from VIF0, goes through
//!   [`Machine::vu0_start`]: the microprogram runs to its end at once on `Machine::vu0` (COP2's
//!   registers swapped in), and VU0 then counts as busy for the cycles it took: VPU-STAT bit 0
//!   reads set and VIF0 waits (STAT.VEW) until [`crate::scheduler::Event::Vu0Done`].
//! - A VIF0 start is asked for inside the bus ([`crate::vif::Vif::vu0_request`]); the machine
//!   services it after the CPU instruction or the DMA event that decoded the MSCAL, then lets VIF0
//!   decode on. MSCNT continues at TPC. VU0 has no TOP/TOPS; XITOP reads VIF0's ITOP.
//! - The COP2 interlock: a VCALLMS/VCALLMSR while VU0 still runs makes the EE wait until it ends
//!   (the EE's cycle count moves to VU0's end). Every start also sets `cpu.vu0.busy_until`, so
//!   that the moves with the I bit (QMFC2.I, CFC2.I, QMTC2.I, CTC2.I) wait there too (the EE core
//!   does that wait itself, see `piney_ee::interp::cop2`). The register values any COP2
//!   instruction reads are the finished program's.
//! - FBRST (a CTC2 to vi28) RS0 resets VU0: it stops counting as busy, and a VIF0 waiting for
//!   it (FLUSHE, MSCAL: STAT.VEW) goes on at once; RS1 does the same for VU1 and VIF1, and the
//!   XGKICKs its run had not yet reached are dropped. (The microprogram already ran to its end:
//!   what it wrote stays.)
//! - VU1 is started through the same runner VIF1's MSCAL uses; VPU-STAT bit 8 (and the COP2
//!   condition BC2T/BC2F test) reads set for the cycles it runs, whether the start came from a
//!   CMSAR1 write or from VIF1 (MSCAL/MSCALF/MSCNT, [`crate::vif::Vif::vu1_started`]). VU0's view
//!   of VU1's registers (addresses 0x4000.. of its data space) is not attached: those loads read
//!   0 and stores are dropped.

use piney_ee::interp::cop2::ctrl;
use piney_vu::{Stop, VuHost};

use crate::scheduler::Event;
use crate::{Machine, MachineError};

/// The most cycles one VU0 microprogram may run before the run is stopped as a runaway.
const VU0_MAX_CYCLES: u64 = 1 << 24;

/// VPU-STAT bit 0: VU0 running (VBS0).
const VPU_STAT_VU0_BUSY: u32 = 1;
/// VPU-STAT bit 8: VU1 running (VBS1).
const VPU_STAT_VU1_BUSY: u32 = 1 << 8;

/// What VU0 reaches while it runs: VIF0's ITOP (XITOP).
struct Vu0Host {
    itop: u32,
}

impl VuHost for Vu0Host {
    fn vif1_itop(&mut self) -> u16 {
        self.itop as u16
    }
}

impl Machine {
    /// Whether the instruction (or the device access) just executed asked the machine for
    /// something [`Machine::service_cop2`] does.
    #[inline]
    pub(crate) fn cop2_service_due(&self) -> bool {
        let vu0 = &self.cpu.vu0;
        vu0.pending_call.is_some()
            || vu0.pending_vu1_start.is_some()
            || vu0.pending_reset != 0
            || self.bus.vif[0].vu0_request.is_some()
            || self.bus.vif[1].vu1_started
    }

    /// Service what the instruction (or the device access) just executed asked for: a VU reset
    /// through FBRST, a VIF0 start of VU0, a VCALLMS, a VU1 start (from CMSAR1 or VIF1).
    #[inline]
    pub(crate) fn service_cop2(&mut self) -> Result<(), MachineError> {
        let reset = std::mem::take(&mut self.cpu.vu0.pending_reset);
        if reset != 0 {
            self.vu_reset(reset);
        }
        if self.bus.vif[0].vu0_request.is_some() {
            self.service_vif0_start()?;
        }
        if let Some(addr) = self.cpu.vu0.pending_call.take() {
            // The interlock: a VCALLMS waits for VU0's previous microprogram to end.
            let start = self.vu0_start(Some(addr))?;
            self.cpu.cycles = self.cpu.cycles.max(start);
        }
        if let Some(pc) = self.cpu.vu0.pending_vu1_start.take() {
            self.bus.now = self.cpu.cycles;
            self.bus
                .vu1_start(pc)
                .map_err(|what| MachineError::Unimplemented {
                    what,
                    pc: self.cpu.cur_pc,
                })?;
            // The run's XGKICKs are timed from this start (dev_sync anchored them at `now`).
            self.vu1_busy_from_now();
        }
        if self.bus.vif[1].vu1_started {
            self.note_vif1_vu1_start();
        }
        Ok(())
    }

    /// VIF1 started VU1 (MSCAL/MSCALF/MSCNT): VPU-STAT bit 8 reads set while it runs, as for a
    /// CMSAR1 start (PCSX2 sets VPU-STAT bit 8 for every VU1 start, `vu1ExecMicro`).
    pub(crate) fn note_vif1_vu1_start(&mut self) {
        self.bus.vif[1].vu1_started = false;
        self.bus.now = self.cpu.cycles;
        self.vu1_busy_from_now();
    }

    /// VU1 runs until VIF1's `vu_busy_until`: VPU-STAT bit 8 set, [`Event::Vu1Done`] then.
    fn vu1_busy_from_now(&mut self) {
        if self.bus.vu1_busy() {
            self.cpu.vu0.vi[ctrl::VPU_STAT] |= VPU_STAT_VU1_BUSY;
            let at = self.bus.vu1_busy_until();
            self.bus.sched.cancel(Event::Vu1Done);
            self.bus.sched.schedule_at(at, Event::Vu1Done);
        }
    }

    /// FBRST's resets (`bits`: RS0 bit 1 for VU0, RS1 bit 9 for VU1; the EE has already cleared
    /// their VPU-STAT bits): the VU stops counting as busy now, and its VIF, if it waits for the
    /// VU (STAT.VEW), goes on (PCSX2's `vu0ResetRegs`/`vu1ResetRegs` clear VEW likewise).
    fn vu_reset(&mut self, bits: u32) {
        let now = self.cpu.cycles;
        self.bus.now = now;
        for (unit, bit, done) in [(0, 2, Event::Vu0Done), (1, 0x200, Event::Vu1Done)] {
            if bits & bit == 0 {
                continue;
            }
            let v = &mut self.bus.vif[unit];
            v.vu_busy_until = v.vu_busy_until.min(now);
            self.bus.sched.cancel(done);
            if unit == 1 {
                // VU1 stopped before the XGKICKs still ahead of it.
                self.bus.gif.path1_drop_after(now);
            }
            self.bus.vif_run(unit);
            self.bus.dmac_kick(if unit == 0 {
                crate::dmac::ch::VIF0
            } else {
                crate::dmac::ch::VIF1
            });
        }
    }

    /// VIF0 decoded an MSCAL/MSCALF/MSCNT: run VU0, then let VIF0 (and its DMA channel) go on.
    pub(crate) fn service_vif0_start(&mut self) -> Result<(), MachineError> {
        let Some(req) = self.bus.vif[0].vu0_request.take() else {
            return Ok(());
        };
        // MSCAL's immediate counts 64-bit instructions; MSCNT continues at TPC.
        let addr = req.map(|pc| pc * 8);
        // VIF0 waited for VU0 to end before it asked: the start is now.
        self.bus.vif[0].vu_busy_until = 0;
        self.vu0_start(addr)?;
        self.bus.now = self.cpu.cycles;
        self.bus.vif_run(0);
        self.bus.dmac_kick(crate::dmac::ch::VIF0);
        Ok(())
    }

    /// Run VU0's microprogram at byte address `addr` (`None`: at TPC) on COP2's registers, once
    /// any earlier one has ended. Returns the EE cycle at which it started; VU0 is busy from then
    /// for the cycles it ran (VPU-STAT bit 0, VIF0's `vu_busy_until`, then [`Event::Vu0Done`]).
    pub(crate) fn vu0_start(&mut self, addr: Option<u32>) -> Result<u64, MachineError> {
        let now = self.cpu.cycles;
        let start = self.bus.vif[0].vu_busy_until.max(now);
        let addr = addr.unwrap_or((self.cpu.vu0.vi[ctrl::TPC] & 0xffff) * 8);
        let vu = &mut self.vu0;
        vu.micro.copy_from_slice(&self.bus.vu_mem[0x0000..0x1000]);
        vu.data.copy_from_slice(&self.bus.vu_mem[0x4000..0x5000]);
        std::mem::swap(&mut vu.regs, &mut self.cpu.vu0);
        let mut host = Vu0Host {
            itop: self.bus.vif[0].itop,
        };
        let before = vu.cycle;
        let stop = vu.run(addr, &mut host, VU0_MAX_CYCLES);
        // The pipelines run out after the program ends: Q and the flags land before the EE can
        // look (and nothing from this run may land on a later CTC2's values).
        vu.drain();
        let ran = vu.cycle - before;
        std::mem::swap(&mut vu.regs, &mut self.cpu.vu0);
        self.bus.vu_mem[0x4000..0x5000].copy_from_slice(&vu.data);
        // TPC: where VU0 stopped, in 64-bit instructions.
        self.cpu.vu0.vi[ctrl::TPC] = self.vu0.pc() / 8;
        let end = start + ran;
        self.bus.vif[0].vu_busy_until = end;
        // The COP2 moves with the I bit wait until then (the EE core reads it).
        self.cpu.vu0.busy_until = end;
        if end > now {
            self.cpu.vu0.vi[ctrl::VPU_STAT] |= VPU_STAT_VU0_BUSY;
            self.bus.sched.cancel(Event::Vu0Done);
            self.bus.sched.schedule_at(end, Event::Vu0Done);
        }
        match stop {
            Stop::Ended { .. } | Stop::Breakpoint { .. } => Ok(start),
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

    /// VU0 has finished: clear VPU-STAT bit 0, and let a VIF0 waiting for it (FLUSHE, MSCAL) go on.
    pub(crate) fn vu0_done(&mut self) {
        self.bus.now = self.cpu.cycles;
        if self.bus.vif[0].vu_busy_until <= self.cpu.cycles {
            self.cpu.vu0.vi[ctrl::VPU_STAT] &= !VPU_STAT_VU0_BUSY;
            self.bus.dmac_kick(crate::dmac::ch::VIF0);
        }
    }

    /// VU1 has finished: clear VPU-STAT bit 8.
    pub(crate) fn vu1_done(&mut self) {
        if !self.bus.vu1_busy() {
            self.cpu.vu0.vi[ctrl::VPU_STAT] &= !VPU_STAT_VU1_BUSY;
        }
    }

    /// The timed step of a PATH1 transfer (see [`crate::bus::EeBus::path1_step`]).
    pub(crate) fn path1_event(&mut self) {
        self.bus.now = self.cpu.cycles;
        self.bus.path1_step();
    }
}

#[cfg(test)]
mod tests {
    //! VU0 started by VIF0 and by VCALLMS: one VU0, its busy time, VIF0's waits. Expected values
    //! from the EE User's Manual (VIF0, VPU-STAT) and the VU User's Manual (E bit, TPC).
    use super::*;
    use crate::vif::{VIF0_BASE, VIF0_FIFO, stat};
    use piney_ee::Bus;

    /// Pairs 0-8: a loop of 100 iterations (about 400 cycles), vi05 = 0x77 and XITOP into vi02,
    /// the E bit at 7, so the end after the delay slot at TPC 9; pairs 9-10: vi03 += 2, the end
    /// at TPC 11.
    const PROGRAM: &str = "\
        nop iaddiu vi01, vi00, 100
        loop: nop isubiu vi01, vi01, 1
        nop nop
        nop ibne vi01, vi00, loop
        nop nop
        nop iaddiu vi05, vi00, 0x77
        nop xitop vi02
        nop[e] nop
        nop nop
        nop[e] iaddiu vi03, vi03, 2
        nop nop
        ";

    fn machine() -> Machine {
        let mut m = Machine::new(Box::new(std::io::sink()));
        let prog = piney_vu::assemble(PROGRAM).expect("the test program assembles");
        for (i, p) in prog.iter().enumerate() {
            m.bus.vu_mem[8 * i..8 * i + 8].copy_from_slice(&p.to_le_bytes());
        }
        m
    }

    fn vifcode(cmd: u32, imm: u32) -> u32 {
        cmd << 24 | imm
    }

    /// A 128-bit CPU store of four VIFcodes to VIF0's FIFO, then what the machine does after
    /// the instruction.
    fn vif0_store(m: &mut Machine, w: [u32; 4]) {
        m.bus.now = m.cpu.cycles;
        let q = w.iter().rev().fold(0u128, |a, &x| a << 32 | x as u128);
        m.bus.write128(VIF0_FIFO, q).unwrap();
        m.service_cop2().unwrap();
    }

    fn vif0(m: &mut Machine, reg: u32) -> u32 {
        m.bus.read32(VIF0_BASE + reg).unwrap()
    }

    fn run_to(m: &mut Machine, t: u64) {
        m.run_events_until(t).unwrap();
    }

    #[test]
    fn vif0_mscal_runs_vu0_with_cop2_registers_and_vif0_waits_for_it() {
        let mut m = machine();
        // ITOP 0x2a, MSCAL 0, FLUSHE, MARK 9.
        vif0_store(
            &mut m,
            [
                vifcode(0x04, 0x2a),
                vifcode(0x14, 0),
                vifcode(0x10, 0),
                vifcode(0x07, 9),
            ],
        );
        // VU0 has run on COP2's registers.
        assert_eq!(m.cpu.vu0.vi[5], 0x77);
        assert_eq!(m.cpu.vu0.vi[2], 0x2a, "XITOP reads VIF0's ITOP");
        assert_eq!(m.cpu.vu0.vi[ctrl::TPC], 9);
        // It is busy for the cycles it ran: VPU-STAT bit 0, and VIF0 waits in FLUSHE.
        let end = m.bus.vif[0].vu_busy_until;
        assert!(end > m.cpu.cycles + 300, "about 400 cycles: {end}");
        assert_eq!(m.cpu.vu0.vi[ctrl::VPU_STAT] & 1, 1);
        assert_ne!(vif0(&mut m, 0) & stat::VEW, 0, "STAT.VEW");
        assert_eq!(vif0(&mut m, 0x30), 0, "MARK waits");
        run_to(&mut m, end - 1);
        assert_eq!(m.cpu.vu0.vi[ctrl::VPU_STAT] & 1, 1);
        assert_eq!(vif0(&mut m, 0x30), 0);
        run_to(&mut m, end);
        assert_eq!(
            m.cpu.vu0.vi[ctrl::VPU_STAT] & 1,
            0,
            "VPU-STAT bit 0 clears at the end"
        );
        assert_eq!(vif0(&mut m, 0x30), 9, "FLUSHE done, MARK executed");
        assert_eq!(vif0(&mut m, 0) & stat::VEW, 0);
        assert_eq!(vif0(&mut m, 0xd0), 0x2a, "ITOP took ITOPS");
    }

    #[test]
    fn mscnt_continues_at_tpc() {
        let mut m = machine();
        vif0_store(&mut m, [vifcode(0x14, 0), 0, 0, 0]);
        let end = m.bus.vif[0].vu_busy_until;
        run_to(&mut m, end);
        m.cpu.vu0.vi[3] = 5;
        // MSCNT: from TPC 9, vi03 += 2, ending at 11.
        vif0_store(&mut m, [vifcode(0x17, 0), 0, 0, 0]);
        assert_eq!(m.cpu.vu0.vi[3], 7);
        assert_eq!(m.cpu.vu0.vi[ctrl::TPC], 11);
    }

    #[test]
    fn mscal_waits_for_a_running_vu0_then_starts() {
        let mut m = machine();
        vif0_store(&mut m, [vifcode(0x14, 0), vifcode(0x14, 9), 0, 0]);
        let end = m.bus.vif[0].vu_busy_until;
        assert!(m.bus.vif[0].waiting(), "the second MSCAL waits (STAT.VEW)");
        assert_eq!(m.cpu.vu0.vi[ctrl::TPC], 9);
        run_to(&mut m, end);
        // The second MSCAL ran at the end of the first.
        assert_eq!(m.cpu.vu0.vi[ctrl::TPC], 11);
        assert!(!m.bus.vif[0].waiting());
    }

    #[test]
    fn vcallms_shares_vu0_with_vif0() {
        let mut m = machine();
        // VCALLMS 0: VU0 busy; a VIF0 FLUSHE waits for it.
        m.cpu.vu0.pending_call = Some(0);
        m.service_cop2().unwrap();
        let end = m.bus.vif[0].vu_busy_until;
        assert!(end > m.cpu.cycles);
        assert_eq!(m.cpu.vu0.vi[ctrl::VPU_STAT] & 1, 1);
        vif0_store(&mut m, [vifcode(0x10, 0), vifcode(0x07, 3), 0, 0]);
        assert_ne!(vif0(&mut m, 0) & stat::VEW, 0);
        // A second VCALLMS while VU0 runs: the EE waits for the first to end (the interlock).
        let before = m.cpu.cycles;
        m.cpu.vu0.pending_call = Some(9 * 8);
        m.service_cop2().unwrap();
        assert_eq!(m.cpu.cycles, end, "the EE waited {} cycles", end - before);
        assert_eq!(m.cpu.vu0.vi[ctrl::TPC], 11);
        let end2 = m.bus.vif[0].vu_busy_until;
        run_to(&mut m, end2);
        assert_eq!(vif0(&mut m, 0x30), 3);
        assert_eq!(m.cpu.vu0.vi[ctrl::VPU_STAT] & 1, 0);
    }

    #[test]
    fn vif0_mscal_from_dma_runs_vu0() {
        let mut m = machine();
        // DMA channel 0, normal mode: one qword of VIFcodes (MSCAL 0, MARK 5).
        let q = [vifcode(0x14, 0), vifcode(0x07, 5), 0, 0]
            .iter()
            .rev()
            .fold(0u128, |a, &x| a << 32 | x as u128);
        m.bus.ram[0x1000..0x1010].copy_from_slice(&q.to_le_bytes());
        m.bus.write32(0x1000_e000, 1).unwrap();
        m.bus.write32(0x1000_8010, 0x1000).unwrap();
        m.bus.write32(0x1000_8020, 1).unwrap();
        m.bus.write32(0x1000_8000, 0x101).unwrap();
        run_to(&mut m, 10_000);
        assert_eq!(m.cpu.vu0.vi[5], 0x77);
        assert_eq!(vif0(&mut m, 0x30), 5);
        assert_eq!(
            m.bus.read32(0x1000_8000).unwrap() & 0x100,
            0,
            "channel 0 done"
        );
        assert_eq!(m.cpu.vu0.vi[ctrl::VPU_STAT] & 1, 0);
    }

    // ---- the COP2 interlock, FBRST resets, VPU-STAT for VIF1's starts. Facts: the EE Core
    // Instruction Set Manual (the .I bit of QMFC2/CFC2/QMTC2/CTC2 waits for VU0's microprogram);
    // the EE User's Manual (FBRST RS0 bit 1 / RS1 bit 9, VPU-STAT bits 0 and 8); PCSX2's
    // vu0ResetRegs/vu1ResetRegs (a reset clears the VIF's VEW).

    const CODE: u32 = 0x1000;

    /// `cfc2[.i] rt, id`.
    fn cfc2(rt: u32, id: u32, i: bool) -> u32 {
        0x4840_0000 | rt << 16 | id << 11 | i as u32
    }

    /// `ctc2 rt, id`.
    fn ctc2(rt: u32, id: u32) -> u32 {
        0x48c0_0000 | rt << 16 | id << 11
    }

    /// `vcallms addr` (addr in bytes).
    fn vcallms(addr: u32) -> u32 {
        0x4a00_0038 | (addr / 8) << 6
    }

    /// Put `words` at CODE and start the CPU there.
    fn load(m: &mut Machine, words: &[u32]) {
        for (i, w) in words.iter().enumerate() {
            let o = CODE as usize + 4 * i;
            m.bus.ram[o..o + 4].copy_from_slice(&w.to_le_bytes());
        }
        m.cpu.jump_to(CODE);
    }

    /// One instruction as the machine's loop runs it: the bus clock, the step, then the
    /// COP2/VIF services.
    fn step(m: &mut Machine) {
        m.bus.now = m.cpu.cycles;
        piney_ee::interp::step(&mut m.cpu, &mut m.bus).unwrap();
        if m.cop2_service_due() {
            m.service_cop2().unwrap();
        }
    }

    #[test]
    fn interlocked_cfc2_waits_for_the_vcallms_program_and_ni_does_not() {
        let mut m = machine();
        // vcallms 0 (about 400 cycles); cfc2.ni $3, VPU-STAT; cfc2.i $2, VPU-STAT; cfc2.i $4, vi05.
        load(
            &mut m,
            &[
                vcallms(0),
                cfc2(3, 29, false),
                cfc2(2, 29, true),
                cfc2(4, 5, true),
            ],
        );
        step(&mut m);
        let end = m.bus.vif[0].vu_busy_until;
        assert_eq!(
            m.cpu.vu0.busy_until, end,
            "the machine tells the EE VU0's end"
        );
        assert!(end > m.cpu.cycles + 300, "{end}");
        step(&mut m);
        assert_eq!(m.cpu.gpr[3] & 1, 1, ".NI: VU0 still running");
        assert!(m.cpu.cycles < end);
        step(&mut m);
        assert_eq!(m.cpu.cycles, end, ".I: the EE waited for VU0's end");
        assert_eq!(m.cpu.gpr[2] & 1, 0, "VPU-STAT bit 0 clear after the wait");
        step(&mut m);
        assert_eq!(m.cpu.cycles, end + 1, "VU0 idle: no more wait");
        assert_eq!(m.cpu.gpr[4], 0x77, "the finished program's vi05");
    }

    #[test]
    fn fbrst_rs0_ends_vif0s_wait_for_vu0() {
        let mut m = machine();
        // VU0 busy from a VCALLMS; VIF0 FLUSHE waits for it, then MARK 3.
        m.cpu.gpr[2] = 2;
        load(&mut m, &[vcallms(0), ctc2(2, 28), vcallms(9 * 8)]);
        step(&mut m);
        let end = m.bus.vif[0].vu_busy_until;
        vif0_store(&mut m, [vifcode(0x10, 0), vifcode(0x07, 3), 0, 0]);
        assert_ne!(vif0(&mut m, 0) & stat::VEW, 0, "FLUSHE waits");
        assert_eq!(vif0(&mut m, 0x30), 0);
        // ctc2 $2 (RS0), FBRST: VU0 reset.
        step(&mut m);
        let now = m.cpu.cycles;
        assert!(now < end);
        assert_eq!(vif0(&mut m, 0) & stat::VEW, 0, "VEW cleared by the reset");
        assert_eq!(vif0(&mut m, 0x30), 3, "FLUSHE done, MARK executed at once");
        assert_eq!(m.cpu.vu0.vi[ctrl::VPU_STAT] & 1, 0);
        assert_eq!(m.bus.sched.due_of(Event::Vu0Done), None);
        // The next VCALLMS starts now: no interlock wait for the reset program.
        step(&mut m);
        assert_eq!(m.cpu.cycles, now + 1);
        assert_eq!(m.cpu.vu0.vi[ctrl::TPC], 11);
    }

    /// A VU1 program of about 400 cycles (a loop of 100 four-pair iterations) in VU1 micro memory.
    fn load_vu1_loop(m: &mut Machine) {
        let prog = piney_vu::assemble(
            "nop iaddiu vi01, vi00, 100\n\
             loop: nop isubiu vi01, vi01, 1\n\
             nop nop\n\
             nop ibne vi01, vi00, loop\n\
             nop nop\n\
             nop[e] nop\n\
             nop nop\n",
        )
        .expect("the test program assembles");
        for (i, p) in prog.iter().enumerate() {
            m.bus.vu_mem[0x8000 + 8 * i..0x8008 + 8 * i].copy_from_slice(&p.to_le_bytes());
        }
    }

    fn vif1_store(m: &mut Machine, w: [u32; 4]) {
        m.bus.now = m.cpu.cycles;
        let q = w.iter().rev().fold(0u128, |a, &x| a << 32 | x as u128);
        m.bus.write128(crate::vif::VIF1_FIFO, q).unwrap();
        if m.cop2_service_due() {
            m.service_cop2().unwrap();
        }
    }

    #[test]
    fn vif1_mscal_sets_vpu_stat_bit_8_while_vu1_runs() {
        let mut m = machine();
        load_vu1_loop(&mut m);
        // BC2F/BC2T follow VPU-STAT bit 8.
        vif1_store(&mut m, [vifcode(0x14, 0), 0, 0, 0]);
        let end = m.bus.vu1_busy_until();
        assert!(end > m.cpu.cycles + 300, "{end}");
        assert_eq!(
            m.cpu.vu0.vi[ctrl::VPU_STAT] & VPU_STAT_VU1_BUSY,
            VPU_STAT_VU1_BUSY
        );
        run_to(&mut m, end - 1);
        assert_ne!(m.cpu.vu0.vi[ctrl::VPU_STAT] & VPU_STAT_VU1_BUSY, 0);
        run_to(&mut m, end);
        assert_eq!(m.cpu.vu0.vi[ctrl::VPU_STAT] & VPU_STAT_VU1_BUSY, 0);
    }

    #[test]
    fn vif1_mscal_from_dma_sets_vpu_stat_bit_8() {
        let mut m = machine();
        load_vu1_loop(&mut m);
        // DMA channel 1, normal mode: one qword, MSCAL 0.
        let q = vifcode(0x14, 0) as u128;
        m.bus.ram[0x2000..0x2010].copy_from_slice(&q.to_le_bytes());
        m.bus.write32(0x1000_e000, 1).unwrap();
        m.bus.write32(0x1000_9010, 0x2000).unwrap();
        m.bus.write32(0x1000_9020, 1).unwrap();
        m.bus.write32(0x1000_9000, 0x101).unwrap();
        // Step the events until VU1 has started.
        let mut t = 0;
        while m.bus.vif[1].vu_busy_until == 0 {
            t += 1;
            assert!(t < 10_000, "VIF1 never started VU1");
            run_to(&mut m, t);
        }
        let end = m.bus.vu1_busy_until();
        assert!(end > t + 300);
        assert_ne!(m.cpu.vu0.vi[ctrl::VPU_STAT] & VPU_STAT_VU1_BUSY, 0);
        run_to(&mut m, end);
        assert_eq!(m.cpu.vu0.vi[ctrl::VPU_STAT] & VPU_STAT_VU1_BUSY, 0);
    }

    #[test]
    fn fbrst_rs1_ends_vif1s_wait_for_vu1() {
        let mut m = machine();
        load_vu1_loop(&mut m);
        // MSCAL 0, FLUSHE, MARK 4.
        vif1_store(
            &mut m,
            [vifcode(0x14, 0), vifcode(0x10, 0), vifcode(0x07, 4), 0],
        );
        let end = m.bus.vu1_busy_until();
        assert_eq!(m.bus.read32(crate::vif::VIF1_BASE + 0x30).unwrap(), 0);
        run_to(&mut m, 100);
        m.cpu.gpr[2] = 0x200;
        load(&mut m, &[ctc2(2, 28)]);
        step(&mut m);
        assert!(m.cpu.cycles < end);
        assert_eq!(m.cpu.vu0.vi[ctrl::VPU_STAT] & VPU_STAT_VU1_BUSY, 0);
        assert_eq!(m.bus.read32(crate::vif::VIF1_BASE).unwrap() & stat::VEW, 0);
        assert_eq!(
            m.bus.read32(crate::vif::VIF1_BASE + 0x30).unwrap(),
            4,
            "FLUSHE done at the reset"
        );
        assert_eq!(m.bus.sched.due_of(Event::Vu1Done), None);
    }
}
