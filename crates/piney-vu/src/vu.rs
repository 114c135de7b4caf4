//! The VU state and the micro mode interpreter with its pipeline model.
//!
//! Pipeline model (facts from the VU User's Manual and the hardware results of ps2autotests
//! `tests/vu/lower/fdivdelay`):
//! - One instruction pair issues per cycle unless it stalls; a stall holds the whole pair.
//! - FMAC results (and every VF write of the lower unit) are readable 4 cycles after issue: a
//!   pair that reads a lane written less than 4 cycles before stalls until it is.
//! - The MAC, status (Z/S/U/O and their sticky bits) and clip flags an upper instruction writes
//!   become visible to the flag instructions 4 cycles after its issue.
//! - Q is written 7 cycles after DIV/SQRT issue and 13 after RSQRT; a second FDIV instruction
//!   stalls until the first one has written Q; WAITQ stalls until Q is written. P works the same
//!   way with the EFU latencies in the table. The status I and D bits come with Q.
//! - In a pair, the lower instruction reads the state from before the upper one, and the upper
//!   result wins when both write the same VF register.
//! - With the I bit the lower word is loaded into I after the upper instruction has read I.
//! - A conditional branch (IBxx) reading a VI that the immediately previous instruction wrote
//!   sees the value from before that write (flag-reading instructions excepted, as PCSX2's
//!   microVU does); JR and JALR see the new value.
//! - The E bit ends the program after one more pair (the delay slot); pipelines are then
//!   drained into the registers.
//! - The M bit (VU0/COP2 interlock) has no effect in micro mode here.

use crate::table::{self, ExecFn, OpFlags};
use piney_ee::cpu::Vu0Regs;

/// Control register indices in [`Vu0Regs::vi`] (the CFC2/CTC2 numbering).
pub mod reg {
    /// Status flag.
    pub const STATUS: usize = 16;
    /// MAC flag.
    pub const MAC: usize = 17;
    /// Clipping flag.
    pub const CLIP: usize = 18;
    /// R (random).
    pub const R: usize = 20;
    /// I.
    pub const I: usize = 21;
    /// Q.
    pub const Q: usize = 22;
    /// P (kept here for VU1; VU0 has no EFU).
    pub const P: usize = 23;
    /// TPC: where the last microprogram stopped (in pairs).
    pub const TPC: usize = 26;
}

/// Which vector unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Unit {
    /// VU0: 4 KiB micro memory, 4 KiB data memory, VU1's registers mapped at data 0x4000.
    Vu0,
    /// VU1: 16 KiB micro memory, 16 KiB data memory, EFU, XGKICK.
    Vu1,
}

impl Unit {
    /// Micro memory size in bytes.
    pub const fn micro_size(self) -> usize {
        match self {
            Unit::Vu0 => 4096,
            Unit::Vu1 => 16384,
        }
    }
    /// Data memory size in bytes.
    pub const fn data_size(self) -> usize {
        self.micro_size()
    }
}

/// Why [`Vu::run`] returned.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Stop {
    /// The program ended through the E bit (after its delay slot); `pc` is TPC in bytes.
    Ended {
        /// The address after the delay slot.
        pc: u32,
    },
    /// A D (debug) or T (trap) bit stopped the unit before executing the pair at `pc`.
    Breakpoint {
        /// The pair with the bit.
        pc: u32,
        /// true for the T bit, false for the D bit.
        trap: bool,
    },
    /// `max_cycles` ran out; [`Vu::resume`] continues.
    CycleLimit {
        /// The next pair to execute.
        pc: u32,
    },
    /// Something the hardware does not define or this interpreter does not implement.
    Error {
        /// The pair's address.
        pc: u32,
        /// What went wrong.
        what: String,
    },
}

/// What a VU needs from the machine around it. Every method has a do-nothing default.
pub trait VuHost {
    /// XGKICK (VU1): send the GIF packet at byte `addr` of VU1 data memory (`data`) down PATH1.
    /// `cycle` is the unit's [`Vu::cycle`] at which the XGKICK issues (its pair's stalls
    /// included): the host subtracts the cycle the run started at to time the transfer.
    fn xgkick(&mut self, data: &[u8], addr: u32, cycle: u64) {
        let _ = (data, addr, cycle);
    }
    /// XTOP (VU1): VIF1's TOP register.
    fn vif1_top(&mut self) -> u16 {
        0
    }
    /// XITOP: the ITOP register of the VU's own VIF (VIF1's for VU1; VIF0's when the VU is VU0).
    fn vif1_itop(&mut self) -> u16 {
        0
    }
    /// VU0 LQ/ILW from its window on VU1 (data addresses 0x4000..0x43FF): the quadword at byte
    /// offset `offset` (0..0x3FF): 0x000 VF0..VF31, 0x200 VI0..VI15, 0x300 the control
    /// registers in CFC2 order (16 status .. 31).
    fn vu1_window_read(&mut self, offset: u32) -> [u32; 4] {
        let _ = offset;
        [0; 4]
    }
    /// VU0 SQ/ISW to that window; `lanes` bit 0 = x.
    fn vu1_window_write(&mut self, offset: u32, value: [u32; 4], lanes: u8) {
        let _ = (offset, value, lanes);
    }
}

/// A host with nothing attached.
#[derive(Debug, Default, Clone, Copy, serde::Serialize, serde::Deserialize)]
pub struct NullHost;
impl VuHost for NullHost {}

/// The result of an upper instruction, committed after the lower instruction of the pair.
#[derive(Debug, Clone, Copy, Default, serde::Serialize, serde::Deserialize)]
pub struct UpperResult {
    /// VF register, lanes (bit 0 = x), values.
    pub vf: Option<(usize, u8, [u32; 4])>,
    /// ACC lanes and values.
    pub acc: Option<(u8, [u32; 4])>,
    /// The MAC flag this instruction produced (instructions that set flags).
    pub mac: Option<u16>,
    /// The new clipping flag (CLIP).
    pub clip: Option<u32>,
}

#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
struct Pending {
    ready: u64,
    value: u32,
    /// Status I (bit 4) and D (bit 5) for FDIV results.
    status: u32,
}

#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
struct FlagWrite {
    ready: u64,
    mac: Option<u16>,
    clip: Option<u32>,
}

/// One vector unit in micro mode.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Vu {
    /// VU0 or VU1.
    pub unit: Unit,
    /// VF, VI, ACC and the control registers (VU0's are the same registers COP2 macro mode uses:
    /// the machine swaps them with `Cpu::vu0` around a VU0 run, or keeps them here).
    pub regs: Vu0Regs,
    /// Micro memory (little-endian 64-bit pairs).
    pub micro: Vec<u8>,
    /// Data memory.
    pub data: Vec<u8>,
    /// FBRST DE: whether a D bit stops the unit.
    pub debug_enable: bool,
    /// FBRST TE: whether a T bit stops the unit.
    pub trap_enable: bool,
    /// Cycles executed since reset (stalls included).
    pub cycle: u64,
    pc: u32,
    next_pc: u32,
    end_after: bool,
    vf_ready: [[u64; 4]; 32],
    q_pending: Option<Pending>,
    p_pending: Option<Pending>,
    flag_queue: Vec<FlagWrite>,
    /// The clip flag including writes not yet visible (CLIP shifts the newest value).
    clip_newest: u32,
    /// VI written by the previous pair's lower instruction: (register, value before).
    last_vi_write: Option<(usize, u16)>,
    /// A branch taken by the current lower instruction.
    pub(crate) branch_target: Option<u32>,
    /// The current pair's address.
    pub(crate) cur_pc: u32,
    /// The VI back-up that branches of the current pair see.
    pub(crate) vi_backup: Option<(usize, u16)>,
}

impl Vu {
    /// A unit after reset.
    pub fn new(unit: Unit) -> Vu {
        Vu {
            unit,
            regs: Vu0Regs::default(),
            micro: vec![0; unit.micro_size()],
            data: vec![0; unit.data_size()],
            debug_enable: false,
            trap_enable: false,
            cycle: 0,
            pc: 0,
            next_pc: 8,
            end_after: false,
            vf_ready: [[0; 4]; 32],
            q_pending: None,
            p_pending: None,
            flag_queue: Vec::new(),
            clip_newest: 0,
            last_vi_write: None,
            branch_target: None,
            cur_pc: 0,
            vi_backup: None,
        }
    }

    /// Copy 64-bit pairs into micro memory at byte `addr` (wrapping).
    pub fn load_micro(&mut self, addr: u32, code: &[u64]) {
        let size = self.micro.len();
        for (i, &w) in code.iter().enumerate() {
            let at = (addr as usize + i * 8) & (size - 1) & !7;
            self.micro[at..at + 8].copy_from_slice(&w.to_le_bytes());
        }
    }

    /// The pair at byte `addr` of micro memory.
    pub fn fetch(&self, addr: u32) -> u64 {
        let at = (addr as usize) & (self.micro.len() - 1) & !7;
        u64::from_le_bytes(self.micro[at..at + 8].try_into().unwrap_or([0; 8]))
    }

    /// A 32-bit word of data memory at byte `addr` (wrapping).
    pub fn data_word(&self, addr: u32) -> u32 {
        let at = (addr as usize) & (self.data.len() - 1) & !3;
        u32::from_le_bytes(self.data[at..at + 4].try_into().unwrap_or([0; 4]))
    }

    /// Store a 32-bit word of data memory at byte `addr` (wrapping).
    pub fn set_data_word(&mut self, addr: u32, value: u32) {
        let at = (addr as usize) & (self.data.len() - 1) & !3;
        self.data[at..at + 4].copy_from_slice(&value.to_le_bytes());
    }

    /// VF register `r` as four raw lanes.
    pub fn vf(&self, r: usize) -> [u32; 4] {
        self.regs.vf[r & 31]
    }

    /// VI register `r` (16 bits).
    pub fn vi(&self, r: usize) -> u16 {
        self.regs.vi[r & 15] as u16
    }

    /// Write VI `r` (VI0 stays 0).
    pub fn set_vi(&mut self, r: usize, v: u16) {
        let r = r & 15;
        if r != 0 {
            self.regs.vi[r] = v as u32;
        }
    }

    /// Write lanes (bit 0 = x) of VF `r` (VF0 stays 0, 0, 0, 1.0).
    pub fn set_vf(&mut self, r: usize, lanes: u8, v: [u32; 4]) {
        let r = r & 31;
        if r == 0 {
            return;
        }
        for (l, &val) in v.iter().enumerate() {
            if lanes & (1 << l) != 0 {
                self.regs.vf[r][l] = val;
            }
        }
    }

    /// The visible status flag.
    pub fn status(&self) -> u32 {
        self.regs.vi[reg::STATUS] & 0xFFF
    }
    /// The visible MAC flag.
    pub fn mac(&self) -> u32 {
        self.regs.vi[reg::MAC] & 0xFFFF
    }
    /// The visible clipping flag.
    pub fn clip(&self) -> u32 {
        self.regs.vi[reg::CLIP] & 0xFF_FFFF
    }
    /// Q.
    pub fn q(&self) -> u32 {
        self.regs.vi[reg::Q]
    }
    /// P.
    pub fn p(&self) -> u32 {
        self.regs.vi[reg::P]
    }
    /// I.
    pub fn i(&self) -> u32 {
        self.regs.vi[reg::I]
    }
    /// R (23 random bits under the exponent of 1.0).
    pub fn r(&self) -> u32 {
        self.regs.vi[reg::R]
    }

    /// The current pc (the next pair to execute), in bytes.
    pub fn pc(&self) -> u32 {
        self.pc
    }

    /// Set the status flag's sticky bits (FSSET) immediately.
    pub(crate) fn set_status_sticky(&mut self, imm: u32) {
        let s = &mut self.regs.vi[reg::STATUS];
        *s = (*s & 0x3F) | (imm & 0xFC0);
    }

    /// Set the clip flag immediately (FCSET).
    pub(crate) fn set_clip_now(&mut self, v: u32) {
        self.clip_newest = v & 0xFF_FFFF;
        self.regs.vi[reg::CLIP] = self.clip_newest;
    }

    /// The clip flag including pending writes.
    pub(crate) fn clip_newest(&self) -> u32 {
        self.clip_newest
    }

    /// Start an FDIV (Q) result.
    pub(crate) fn start_q(&mut self, value: u32, status: u32, latency: u8) {
        self.q_pending = Some(Pending {
            ready: self.cycle + latency as u64,
            value,
            status,
        });
    }

    /// Start an EFU (P) result.
    pub(crate) fn start_p(&mut self, value: u32, latency: u8) {
        self.p_pending = Some(Pending {
            ready: self.cycle + latency as u64,
            value,
            status: 0,
        });
    }

    fn pc_mask(&self) -> u32 {
        self.micro.len() as u32 - 1
    }

    /// Run the microprogram at byte `start_pc` (as MSCAL/VCALLMS do) for at most `max_cycles`.
    pub fn run(&mut self, start_pc: u32, host: &mut dyn VuHost, max_cycles: u64) -> Stop {
        self.pc = start_pc & self.pc_mask() & !7;
        self.next_pc = (self.pc + 8) & self.pc_mask();
        self.end_after = false;
        self.last_vi_write = None;
        // The registers may have been written from outside since the last run (COP2 macro mode
        // shares VU0's, CTC2 clears the clip flag): the clip history starts from what they hold.
        self.clip_newest = self.regs.vi[reg::CLIP] & 0xFF_FFFF;
        self.resume(host, max_cycles)
    }

    /// Continue after [`Stop::CycleLimit`] or [`Stop::Breakpoint`] (the pair with the D/T bit
    /// then executes).
    pub fn resume(&mut self, host: &mut dyn VuHost, max_cycles: u64) -> Stop {
        let limit = self.cycle.saturating_add(max_cycles);
        let mut skip_break = true;
        loop {
            if self.cycle >= limit {
                self.regs.vi[reg::TPC] = self.pc / 8;
                return Stop::CycleLimit { pc: self.pc };
            }
            let pc = self.pc;
            let pair = self.fetch(pc);
            let upper = (pair >> 32) as u32;
            let lower = pair as u32;
            if !skip_break {
                let trap = upper & (1 << 27) != 0 && self.trap_enable;
                let debug = upper & (1 << 28) != 0 && self.debug_enable;
                if debug || trap {
                    self.regs.vi[reg::TPC] = pc / 8;
                    return Stop::Breakpoint { pc, trap };
                }
            }
            skip_break = false;
            if let Err(what) = self.step_pair(host, pc, upper, lower) {
                self.regs.vi[reg::TPC] = pc / 8;
                return Stop::Error { pc, what };
            }
            let ending = self.end_after;
            if upper & (1 << 30) != 0 {
                // E bit: one more pair (the delay slot), then stop.
                self.end_after = true;
            }
            if ending {
                self.end_after = false;
                self.drain();
                self.regs.vi[reg::TPC] = self.pc / 8;
                return Stop::Ended { pc: self.pc };
            }
        }
    }

    /// Land every pending result (the pipelines run out after the program ends).
    pub fn drain(&mut self) {
        self.land(u64::MAX);
        self.vf_ready = [[0; 4]; 32];
    }

    /// Make every pipeline result due by cycle `t` visible.
    fn land(&mut self, t: u64) {
        if let Some(q) = self.q_pending
            && q.ready <= t
        {
            self.regs.vi[reg::Q] = q.value;
            // I (bit 4) and D (bit 5) show the last FDIV result; bits 10 and 11 are sticky.
            let s = &mut self.regs.vi[reg::STATUS];
            *s = (*s & !0x30) | q.status | (q.status << 6);
            self.q_pending = None;
        }
        if let Some(p) = self.p_pending
            && p.ready <= t
        {
            self.regs.vi[reg::P] = p.value;
            self.p_pending = None;
        }
        let mut i = 0;
        while i < self.flag_queue.len() {
            if self.flag_queue[i].ready > t {
                i += 1;
                continue;
            }
            let f = self.flag_queue.remove(i);
            if let Some(m) = f.mac {
                self.regs.vi[reg::MAC] = m as u32;
                // Status Z, S, U, O are the OR of the MAC bits of the four lanes; their sticky
                // copies (bits 6..9) accumulate.
                let mut zsuo = 0;
                for (bit, shift) in [(1, 0), (2, 4), (4, 8), (8, 12)] {
                    if (m >> shift) & 0xF != 0 {
                        zsuo |= bit;
                    }
                }
                let s = &mut self.regs.vi[reg::STATUS];
                *s = (*s & !0xF) | zsuo | (zsuo << 6);
            }
            if let Some(c) = f.clip {
                self.regs.vi[reg::CLIP] = c;
            }
        }
    }

    fn step_pair(
        &mut self,
        host: &mut dyn VuHost,
        pc: u32,
        upper: u32,
        lower: u32,
    ) -> Result<(), String> {
        let uop = table::decode_upper(upper)
            .ok_or_else(|| format!("undefined upper instruction {upper:#010x}"))?;
        let i_bit = upper & (1 << 31) != 0;
        let lop = if i_bit {
            None
        } else {
            Some(
                table::decode_lower(lower)
                    .ok_or_else(|| format!("undefined lower instruction {lower:#010x}"))?,
            )
        };
        if let Some(l) = lop
            && l.flags.contains(OpFlags::VU1_ONLY)
            && self.unit == Unit::Vu0
        {
            return Err(format!(
                "{} does not exist on VU0",
                l.mnemonic.to_uppercase()
            ));
        }

        // Stalls: VF operands not yet written back, a busy FDIV/EFU, WAITQ/WAITP.
        let mut t = self.cycle;
        let lower_reads = lop.map_or([(0, 0); 2], |l| table::vf_reads(l, lower));
        for (r, lanes) in table::vf_reads(uop, upper).into_iter().chain(lower_reads) {
            if r == 0 {
                continue;
            }
            for l in 0..4 {
                if lanes & (1 << l) != 0 {
                    t = t.max(self.vf_ready[r][l]);
                }
            }
        }
        if let Some(l) = lop {
            if (l.flags.contains(OpFlags::FDIV) || l.mnemonic == "waitq")
                && let Some(q) = self.q_pending
            {
                t = t.max(q.ready);
            }
            if (l.flags.contains(OpFlags::EFU) || l.mnemonic == "waitp")
                && let Some(p) = self.p_pending
            {
                t = t.max(p.ready);
            }
        }
        self.cycle = t;
        self.land(t);

        self.cur_pc = pc;
        self.branch_target = None;
        // The branch VI rule: the previous pair's VI write is invisible to this pair's branch.
        self.vi_backup = self.last_vi_write.take();

        let up = match uop.exec {
            ExecFn::Upper(f) => f(self, upper),
            ExecFn::Lower(_) => return Err("upper table entry without an upper function".into()),
        };
        if i_bit {
            // The immediate reaches I after the upper instruction has read it.
            self.regs.vi[reg::I] = lower;
        } else if let Some(l) = lop {
            let vi_w = table::lower_vi_write(l, lower);
            let before = vi_w.map(|r| self.vi(r));
            match l.exec {
                ExecFn::Lower(f) => f(self, host, lower)?,
                ExecFn::Upper(_) => {
                    return Err("lower table entry without a lower function".into());
                }
            }
            if let (Some(r), Some(old)) = (vi_w, before)
                && !l.flags.contains(OpFlags::READS_FLAGS)
            {
                self.last_vi_write = Some((r, old));
            }
            if let Some((r, lanes)) = table::lower_vf_write(l, lower) {
                self.mark_vf(r, lanes, t);
            }
        }
        // Commit the upper result (it wins over a lower write to the same register).
        if let Some((r, lanes, v)) = up.vf {
            self.set_vf(r, lanes, v);
            self.mark_vf(r, lanes, t);
        }
        if let Some((lanes, v)) = up.acc {
            for (l, &val) in v.iter().enumerate() {
                if lanes & (1 << l) != 0 {
                    self.regs.acc[l] = val;
                }
            }
        }
        if let Some(c) = up.clip {
            self.clip_newest = c;
        }
        if up.mac.is_some() || up.clip.is_some() {
            self.flag_queue.push(FlagWrite {
                ready: t + 4,
                mac: up.mac,
                clip: up.clip,
            });
        }
        self.cycle = t + 1;
        let mask = self.pc_mask();
        self.pc = self.next_pc;
        self.next_pc = match self.branch_target {
            Some(target) => target & mask,
            None => (self.next_pc + 8) & mask,
        };
        Ok(())
    }

    fn mark_vf(&mut self, r: usize, lanes: u8, t: u64) {
        if r == 0 {
            return;
        }
        for l in 0..4 {
            if lanes & (1 << l) != 0 {
                self.vf_ready[r][l] = t + 4;
            }
        }
    }

    /// The value a branch in the current pair reads from VI `r`.
    pub(crate) fn branch_vi(&self, r: usize) -> u16 {
        match self.vi_backup {
            Some((br, old)) if br == (r & 15) => old,
            _ => self.vi(r),
        }
    }

    /// Byte address of a quadword index for loads and stores, with the unit's wrapping; `Err`
    /// carries the VU1-window offset for VU0.
    pub(crate) fn qaddr(&self, qword: u32) -> Result<u32, u32> {
        let byte = (qword & 0xFFFF) * 16;
        match self.unit {
            // VU0: bit 14 selects the window on VU1's registers, else 4 KiB wrap.
            Unit::Vu0 if byte & 0x4000 != 0 => Err(byte & 0x3FF),
            Unit::Vu0 => Ok(byte & 0xFFF),
            Unit::Vu1 => Ok(byte & 0x3FFF),
        }
    }

    /// Load the quadword at quadword index `qword`.
    pub(crate) fn load_q(&self, host: &mut dyn VuHost, qword: u32) -> [u32; 4] {
        match self.qaddr(qword) {
            Ok(a) => std::array::from_fn(|l| self.data_word(a + 4 * l as u32)),
            Err(off) => host.vu1_window_read(off),
        }
    }

    /// Store lanes of a quadword at quadword index `qword`.
    pub(crate) fn store_q(&mut self, host: &mut dyn VuHost, qword: u32, v: [u32; 4], lanes: u8) {
        match self.qaddr(qword) {
            Ok(a) => {
                for (l, &val) in v.iter().enumerate() {
                    if lanes & (1 << l) != 0 {
                        self.set_data_word(a + 4 * l as u32, val);
                    }
                }
            }
            Err(off) => host.vu1_window_write(off, v, lanes),
        }
    }
}
