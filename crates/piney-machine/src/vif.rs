//! VIF0 and VIF1: the VU interfaces that decode VIFcodes from their FIFO.
//!
//! Contract:
//! - Words enter a VIF's FIFO ([`Vif::push_words`]; DMA channels 0/1 or a CPU write to the FIFO at
//!   0x1000_4000 / 0x1000_5000) and [`Vif::run`] decodes them as far as it can: it stops when the
//!   FIFO runs dry, on a stall (the i bit, an error, STOP/ForceBreak) until FBRST.STC, or while it
//!   waits for its VU (FLUSHE, MSCAL...) or the GIF (FLUSH, FLUSHA).
//! - UNPACK writes the VU's data memory, MPG its micro memory, both in the bus's `vu_mem` window.
//!   MSCAL/MSCALF/MSCNT start the VU. VIF1 starts VU1 through [`VuExec`], which runs it and says
//!   for how many EE cycles it stays busy. VU0's registers are COP2's, which only the machine
//!   reaches: VIF0 leaves a start request ([`Vif::vu0_request`]) and decodes nothing more until the
//!   machine has run VU0 (through the same code as VCALLMS) and set [`Vif::vu_busy_until`]; a
//!   later MSCAL/FLUSHE waits (STAT.VEW) until then. A VIF1 start is flagged
//!   ([`Vif::vu1_started`]) for the machine to mark VU1 busy in COP2's VPU-STAT (bit 8); the
//!   XGKICKs of the run reach PATH1 at their own cycles (see [`crate::gif`]). DIRECT/DIRECTHL
//!   hand qwords to GIF PATH2.
//! - VIF1's FIFO turns round for a GS->host download: STAT.FDR (bit 23, the one writable STAT bit)
//!   set, the FIFO gives the GS's local->host data to the EE (a 128-bit read of 0x1000_5000) or to
//!   DMA channel 1 with CHCR.DIR = 0; FQC then counts the qwords waiting (at most 16).
//! - The registers read as the EE User's Manual describes them (see [`Vif::read`]).
//! - Bad data never panics: an unknown VIFcode sets STAT.ER1 and stalls (unless ERR.ME1 masks it),
//!   as the hardware does.

use std::collections::VecDeque;

use crate::gif::{self, Gif};

/// VIF0's registers start here; VIF1's at 0x1000_3c00.
pub const VIF0_BASE: u32 = 0x1000_3800;
/// VIF1's registers.
pub const VIF1_BASE: u32 = 0x1000_3c00;
/// VIF0's FIFO (128-bit writes).
pub const VIF0_FIFO: u32 = 0x1000_4000;
/// VIF1's FIFO.
pub const VIF1_FIFO: u32 = 0x1000_5000;

/// STAT bits.
pub mod stat {
    /// VEW: waiting for the VU to end.
    pub const VEW: u32 = 1 << 2;
    /// VGW: waiting for the GIF (VIF1).
    pub const VGW: u32 = 1 << 3;
    /// MRK: a MARK was executed.
    pub const MRK: u32 = 1 << 6;
    /// DBF: the double buffer flag (VIF1).
    pub const DBF: u32 = 1 << 7;
    /// VSS: stopped by FBRST.STP.
    pub const VSS: u32 = 1 << 8;
    /// VFS: stopped by FBRST.FBK.
    pub const VFS: u32 = 1 << 9;
    /// VIS: stalled by the i bit.
    pub const VIS: u32 = 1 << 10;
    /// INT: the i-bit interrupt was raised.
    pub const INT: u32 = 1 << 11;
    /// ER0: DMAtag mismatch error.
    pub const ER0: u32 = 1 << 12;
    /// ER1: invalid VIFcode.
    pub const ER1: u32 = 1 << 13;
    /// FDR (VIF1): the FIFO's direction, 1 = VIF1 to memory (a GS download). The only STAT bit the
    /// EE can write.
    pub const FDR: u32 = 1 << 23;
    /// The stall bits: any of them stops decoding until FBRST.STC.
    pub const STALLS: u32 = VSS | VFS | VIS | ER0 | ER1;
}

/// The machine around the VIF that runs a VU's microprogram.
pub trait VuExec: Send {
    /// Start VU `unit` (0 or 1) at instruction index `pc` (`None`: continue where it stopped, for
    /// MSCNT) with the VIF's TOP and ITOP; the VU may kick GIF packets to `gif` (PATH1) and reads
    /// and writes `vu_mem` (the bus's window: VU0 micro 0x0000, data 0x4000; VU1 micro 0x8000, data
    /// 0xc000). Returns how many EE cycles the VU stays busy. A runner that times its XGKICKs
    /// stages them ([`Gif::push_path1_after`]); the start's EE cycle anchors them
    /// ([`Gif::path1_anchor`]: the VIF's start, or the bus's next sync, which follows a start at
    /// the same cycle).
    ///
    /// VIF0's starts come here only when [`VuExec::runs_vu0`] says so (a test double); otherwise
    /// the machine runs VU0 with COP2's registers.
    fn start(
        &mut self,
        unit: usize,
        pc: Option<u32>,
        top: u32,
        itop: u32,
        io: VuIo<'_>,
    ) -> Result<u64, String>;

    /// Whether this runner also runs VU0 for VIF0. The machine's own runner does not: VU0's
    /// registers are COP2's, so VIF0's starts go to the machine ([`Vif::vu0_request`]).
    fn runs_vu0(&self) -> bool {
        true
    }

    /// Save states: VU1's state when this runner keeps it (`None`: it keeps none).
    fn vu1(&self) -> Option<&piney_vu::Vu> {
        None
    }

    /// Save states: VU1's state, to replace, when this runner keeps it.
    fn vu1_mut(&mut self) -> Option<&mut piney_vu::Vu> {
        None
    }
}

/// What a VU run may touch.
pub struct VuIo<'a> {
    /// The bus's VU memory window (0x10000 bytes).
    pub vu_mem: &'a mut [u8],
    /// The GIF (XGKICK pushes to PATH1).
    pub gif: &'a mut Gif,
}

/// The [`VuExec`] used until a VU interpreter is attached: starting a VU is an error naming it.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct NoVu;

impl VuExec for NoVu {
    fn start(
        &mut self,
        unit: usize,
        pc: Option<u32>,
        _: u32,
        _: u32,
        _: VuIo<'_>,
    ) -> Result<u64, String> {
        Err(format!(
            "VU{unit} micro mode is not attached (start at {pc:?})"
        ))
    }
}

/// The most VU cycles one MSCAL may run before it is reported as a runaway microprogram.
pub const VU_MAX_CYCLES: u64 = 50_000_000;

/// The [`VuExec`] backed by the `piney-vu` interpreter. VU1 runs with its own registers; its
/// memories are the bus's window (copied in before a run, the data memory copied back after).
/// VU0 is not run here (its registers are COP2's, which the bus cannot reach): VIF0's starts go to
/// the machine ([`VuExec::runs_vu0`] is false).
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct MicroVu {
    /// VU1.
    pub vu1: piney_vu::Vu,
}

impl Default for MicroVu {
    fn default() -> Self {
        Self {
            vu1: piney_vu::Vu::new(piney_vu::Unit::Vu1),
        }
    }
}

/// What a VU1 run reaches: the GIF for XGKICK, VIF1's TOP and ITOP.
struct Vu1Host<'a> {
    gif: &'a mut Gif,
    top: u32,
    itop: u32,
    /// VU1's cycle count when the run started (XGKICKs are timed from it).
    start_cycle: u64,
}

impl piney_vu::VuHost for Vu1Host<'_> {
    /// XGKICK: the GIF packet at `addr` goes to PATH1, tag by tag until the EOP tag's data (at
    /// most one pass over the 16 KiB data memory; addresses wrap), taken as memory holds it at
    /// the XGKICK. It reaches PATH1 at the XGKICK's time: the VU cycles since the run's start,
    /// anchored by the caller at the start's EE cycle ([`Gif::path1_anchor`]).
    fn xgkick(&mut self, data: &[u8], addr: u32, cycle: u64) {
        let n = (data.len() / 16).max(1);
        let qw = |i: usize| {
            let o = (i % n) * 16;
            u128::from_le_bytes(data[o..o + 16].try_into().unwrap_or([0; 16]))
        };
        let mut i = addr as usize / 16;
        let mut out = Vec::new();
        while out.len() < n {
            let tag = qw(i);
            out.push(tag);
            i += 1;
            let lo = tag as u64;
            let nloop = (lo & 0x7fff) as usize;
            let nreg = match (lo >> 60) as usize {
                0 => 16,
                r => r,
            };
            let len = match (lo >> 58) & 3 {
                0 => nloop * nreg,
                1 => (nloop * nreg).div_ceil(2),
                _ => nloop,
            };
            for _ in 0..len.min(n.saturating_sub(out.len())) {
                out.push(qw(i));
                i += 1;
            }
            if lo & 0x8000 != 0 {
                break;
            }
        }
        self.gif
            .push_path1_after(cycle.saturating_sub(self.start_cycle), &out);
    }
    fn vif1_top(&mut self) -> u16 {
        self.top as u16
    }
    fn vif1_itop(&mut self) -> u16 {
        self.itop as u16
    }
}

impl VuExec for MicroVu {
    fn runs_vu0(&self) -> bool {
        false
    }

    fn vu1(&self) -> Option<&piney_vu::Vu> {
        Some(&self.vu1)
    }

    fn vu1_mut(&mut self) -> Option<&mut piney_vu::Vu> {
        Some(&mut self.vu1)
    }
    fn start(
        &mut self,
        unit: usize,
        pc: Option<u32>,
        top: u32,
        itop: u32,
        io: VuIo<'_>,
    ) -> Result<u64, String> {
        if unit != 1 {
            return Err(format!(
                "VU0 micro mode from VIF0 (start at {pc:?}) is run by the machine, not MicroVu"
            ));
        }
        let vu = &mut self.vu1;
        vu.micro.copy_from_slice(&io.vu_mem[0x8000..0xc000]);
        vu.data.copy_from_slice(&io.vu_mem[0xc000..0x1_0000]);
        let before = vu.cycle;
        let mut host = Vu1Host {
            gif: io.gif,
            top,
            itop,
            start_cycle: before,
        };
        let stop = match pc {
            // MSCAL's immediate counts 64-bit instructions.
            Some(p) => vu.run(p * 8, &mut host, VU_MAX_CYCLES),
            None => vu.resume(&mut host, VU_MAX_CYCLES),
        };
        if matches!(stop, piney_vu::Stop::Ended { .. }) {
            // The pipelines run out after the program ends.
            vu.drain();
        }
        io.vu_mem[0xc000..0x1_0000].copy_from_slice(&vu.data);
        match stop {
            piney_vu::Stop::Ended { .. } | piney_vu::Stop::Breakpoint { .. } => {
                Ok(vu.cycle - before)
            }
            // On the console a microprogram that never ends keeps VU1 busy while the EE goes on
            // (ps2autotests cpu/vu0_macro/transfer starts VU1 on uninitialised micro memory).
            // VU1 runs to completion here, so a runaway one is stopped after the budget and
            // counted busy for it, with a warning: the EE is not stopped.
            piney_vu::Stop::CycleLimit { pc } => {
                eprintln!(
                    "piney: warning: VU1 microprogram ran {VU_MAX_CYCLES} cycles without ending (VU pc {pc:#06x}); stopped"
                );
                Ok(vu.cycle - before)
            }
            piney_vu::Stop::Error { pc, what } => Err(format!("VU1 at {pc:#06x}: {what}")),
        }
    }
}

/// What the VIF needs from the bus while it decodes.
pub struct VifCtx<'a> {
    /// The VU memory window.
    pub vu_mem: &'a mut [u8],
    /// The GIF (PATH2, and the waits of FLUSH/FLUSHA/MSCALF).
    pub gif: &'a mut Gif,
    /// The VU runner.
    pub vu: &'a mut dyn VuExec,
    /// The current EE cycle.
    pub now: u64,
}

/// A command that takes data words after its VIFcode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
enum Data {
    Row { i: u8 },
    Col { i: u8 },
    Mask,
    Mpg { addr: u32, pos: u32, left: u32 },
    Direct { left: u32, have: u8, acc: u128 },
    Unpack(Unpack),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Unpack {
    /// Components - 1 (S, V2, V3, V4).
    vn: u32,
    /// 0: 32 bits, 1: 16, 2: 8, 3: 5-5-5-1.
    vl: u32,
    masked: bool,
    unsigned: bool,
    /// Qword address of the first write.
    addr: u32,
    /// Writes done and writes in all.
    done: u32,
    total: u32,
    /// Bits not yet used from the data words taken.
    bits: u64,
    nbits: u32,
}

/// Why the VIF waits before the current VIFcode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
enum Wait {
    Vu,
    Gif12,
    Gif123,
}

/// One VIF.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct Vif {
    /// 0 or 1.
    pub unit: usize,
    /// STAT's stored bits (VEW, MRK, DBF, VSS, VFS, VIS, INT, ER0, ER1); VPS and FQC are computed.
    pub stat: u32,
    /// ERR: MII bit 0 (mask i-bit interrupt), ME0 bit 1, ME1 bit 2 (mask VIFcode error).
    pub err: u32,
    /// MARK.
    pub mark: u32,
    /// CYCLE: CL bits 0-7, WL bits 8-15.
    pub cycle: u32,
    /// MODE: 0 none, 1 offset, 2 difference, 3 data kept in the row registers.
    pub mode: u32,
    /// MASK.
    pub mask: u32,
    /// CODE: the last VIFcode.
    pub code: u32,
    /// ITOPS.
    pub itops: u32,
    /// BASE (VIF1).
    pub base: u32,
    /// OFST (VIF1).
    pub ofst: u32,
    /// TOPS (VIF1).
    pub tops: u32,
    /// ITOP.
    pub itop: u32,
    /// TOP (VIF1).
    pub top: u32,
    /// R0-R3.
    pub row: [u32; 4],
    /// C0-C3.
    pub col: [u32; 4],
    /// The FIFO, in words.
    fifo: VecDeque<u32>,
    cur: Option<Data>,
    /// The current VIFcode had the i bit: interrupt and stall when it completes.
    ibit: bool,
    wait: Option<Wait>,
    /// The EE cycle until which the VU runs.
    pub vu_busy_until: u64,
    /// An interrupt for INTC (VIF0 line 4 / VIF1 line 5) is due.
    pub raise_intc: bool,
    /// A FBRST.STC or MSKPATH3 change asks the DMA channel to look again.
    pub kick: bool,
    /// VIF0: an MSCAL/MSCALF (`Some(Some(instruction index))`) or MSCNT (`Some(None)`) that the
    /// machine has not yet run VU0 for. Decoding stops until it has.
    pub vu0_request: Option<Option<u32>>,
    /// VIF1: the qword a FIFO read (0x1000_5000) took from the GS, for the reads of its other words.
    pub read_latch: u128,
    /// VIF1 started VU1 and the machine has not yet marked it busy in COP2's VPU-STAT (bit 8).
    pub vu1_started: bool,
}

impl Vif {
    /// A reset VIF `unit`.
    pub fn new(unit: usize) -> Self {
        Self {
            unit,
            stat: 0,
            err: 0,
            mark: 0,
            cycle: 0,
            mode: 0,
            mask: 0,
            code: 0,
            itops: 0,
            base: 0,
            ofst: 0,
            tops: 0,
            itop: 0,
            top: 0,
            row: [0; 4],
            col: [0; 4],
            fifo: VecDeque::new(),
            cur: None,
            ibit: false,
            wait: None,
            vu_busy_until: 0,
            raise_intc: false,
            kick: false,
            vu0_request: None,
            read_latch: 0,
            vu1_started: false,
        }
    }

    /// The FIFO's size in words (VIF0 8 qwords, VIF1 16).
    pub fn fifo_capacity(&self) -> usize {
        if self.unit == 0 { 32 } else { 64 }
    }

    /// Free FIFO space in words.
    pub fn fifo_room(&self) -> usize {
        self.fifo_capacity().saturating_sub(self.fifo.len())
    }

    /// Append words to the FIFO (the caller respects [`Vif::fifo_room`] for DMA; CPU writes are
    /// taken whole).
    pub fn push_words(&mut self, w: &[u32]) {
        self.fifo.extend(w.iter().copied());
    }

    /// Whether a stall bit stops decoding.
    pub fn stalled(&self) -> bool {
        self.stat & stat::STALLS != 0
    }

    /// Whether decoding waits for the VU or the GIF (the DMA should retry later).
    pub fn waiting(&self) -> bool {
        self.wait.is_some()
    }

    /// Whether the FIFO is empty (a command may still wait for data).
    pub fn fifo_empty(&self) -> bool {
        self.fifo.is_empty()
    }

    /// Whether the VIF has nothing to do: FIFO empty and no command in progress.
    pub fn idle(&self) -> bool {
        self.fifo.is_empty() && self.cur.is_none()
    }

    fn mem_base(&self) -> usize {
        if self.unit == 0 { 0x4000 } else { 0xc000 }
    }

    /// Data memory size in qwords minus 1 (VU0 4 KiB, VU1 16 KiB).
    fn qmask(&self) -> u32 {
        if self.unit == 0 { 0xff } else { 0x3ff }
    }

    /// Decode as far as possible. Errors (a VU that fails) name what went wrong.
    pub fn run(&mut self, ctx: &mut VifCtx<'_>) -> Result<(), String> {
        loop {
            // VIF0 after an MSCAL: VU0 runs first (with the memories as they are now).
            if self.stalled() || self.vu0_request.is_some() {
                return Ok(());
            }
            if let Some(w) = self.wait {
                let ready = match w {
                    Wait::Vu => self.vu_busy_until <= ctx.now,
                    Wait::Gif12 => {
                        self.vu_busy_until <= ctx.now
                            && ctx.gif.path_idle(gif::path::P1)
                            && ctx.gif.path_idle(gif::path::P2)
                    }
                    Wait::Gif123 => {
                        self.vu_busy_until <= ctx.now
                            && ctx.gif.path_idle(gif::path::P1)
                            && ctx.gif.path_idle(gif::path::P2)
                            && ctx.gif.path_idle(gif::path::P3)
                    }
                };
                if !ready {
                    self.stat |= if w == Wait::Vu { stat::VEW } else { stat::VGW };
                    return Ok(());
                }
                self.stat &= !(stat::VEW | stat::VGW);
                self.wait = None;
                // Re-execute the waiting VIFcode now that its condition holds.
                self.exec_code(self.code, ctx, true)?;
                self.finish_code_if_done();
                continue;
            }
            match self.cur {
                None => {
                    let Some(w) = self.fifo.pop_front() else {
                        return Ok(());
                    };
                    self.code = w;
                    self.ibit = w & 0x8000_0000 != 0;
                    self.exec_code(w, ctx, false)?;
                    self.finish_code_if_done();
                }
                Some(d) => {
                    if !self.feed(d, ctx) {
                        return Ok(());
                    }
                    self.finish_code_if_done();
                }
            }
        }
    }

    /// After a VIFcode (and its data) is done: the i bit interrupts and stalls.
    fn finish_code_if_done(&mut self) {
        if self.cur.is_none() && self.wait.is_none() && self.ibit {
            self.ibit = false;
            // ERR.MII masks the i-bit interrupt.
            if self.err & 1 == 0 {
                // MARK interrupts without stalling (ps2autotests dma/vif/intstall).
                let mark = (self.code >> 24) & 0x7f == 0x07;
                self.stat |= if mark {
                    stat::INT
                } else {
                    stat::INT | stat::VIS
                };
                self.raise_intc = true;
            }
        }
    }

    /// Execute VIFcode `w`. `resumed`: its wait condition now holds.
    fn exec_code(&mut self, w: u32, ctx: &mut VifCtx<'_>, resumed: bool) -> Result<(), String> {
        let cmd = (w >> 24) & 0x7f;
        let num = (w >> 16) & 0xff;
        let imm = w & 0xffff;
        let vif1 = self.unit == 1;
        match cmd {
            0x00 => {}
            // STCYCL: CL = imm bits 0-7, WL = bits 8-15.
            0x01 => self.cycle = imm,
            // OFFSET (VIF1): OFST, DBF cleared, TOPS = BASE.
            0x02 if vif1 => {
                self.ofst = imm & 0x3ff;
                self.stat &= !stat::DBF;
                self.tops = self.base;
            }
            // BASE (VIF1).
            0x03 if vif1 => self.base = imm & 0x3ff,
            0x02 | 0x03 => {}
            // ITOP.
            0x04 => self.itops = imm & 0x3ff,
            // STMOD.
            0x05 => self.mode = imm & 3,
            // MSKPATH3 (VIF1): bit 15 masks PATH3.
            0x06 if vif1 => {
                ctx.gif.mskpath3 = imm & 0x8000 != 0;
                ctx.gif.pump();
                self.kick = true;
            }
            0x06 => {}
            // MARK.
            0x07 => {
                self.mark = imm;
                self.stat |= stat::MRK;
            }
            // FLUSHE: wait for the VU to end.
            0x10 => {
                if !resumed {
                    self.wait = Some(Wait::Vu);
                }
            }
            // FLUSH / FLUSHA (VIF1): also wait for PATH1/PATH2 (and PATH3) to be idle.
            0x11 | 0x13 if vif1 => {
                if !resumed {
                    self.wait = Some(if cmd == 0x11 {
                        Wait::Gif12
                    } else {
                        Wait::Gif123
                    });
                }
            }
            0x11 | 0x13 => {}
            // MSCAL / MSCALF / MSCNT: wait, then start the VU.
            0x14 | 0x15 | 0x17 => {
                if !resumed {
                    // MSCALF waits for the VU and for GIF PATH1 and PATH2 to be idle, on VIF0
                    // as on VIF1 (PCSX2 checks both paths for either VIF).
                    self.wait = Some(if cmd == 0x15 { Wait::Gif12 } else { Wait::Vu });
                    return Ok(());
                }
                let pc = if cmd == 0x17 { None } else { Some(imm) };
                self.start_vu(pc, ctx)?;
            }
            // STMASK, STROW, STCOL: data follows.
            0x20 => self.cur = Some(Data::Mask),
            0x30 => self.cur = Some(Data::Row { i: 0 }),
            0x31 => self.cur = Some(Data::Col { i: 0 }),
            // MPG: NUM 64-bit instructions (0 = 256) to micro memory at imm; waits for the VU.
            0x4a => {
                if !resumed {
                    self.wait = Some(Wait::Vu);
                    return Ok(());
                }
                let n = if num == 0 { 256 } else { num };
                self.cur = Some(Data::Mpg {
                    addr: imm,
                    pos: 0,
                    left: n * 2,
                });
            }
            // DIRECT / DIRECTHL (VIF1): imm qwords (0 = 65536) to PATH2.
            0x50 | 0x51 if vif1 => {
                let n = if imm == 0 { 0x10000 } else { imm };
                ctx.gif.path2_hl = cmd == 0x51;
                self.cur = Some(Data::Direct {
                    left: n,
                    have: 0,
                    acc: 0,
                });
            }
            0x60..=0x7f => {
                let vn = (cmd >> 2) & 3;
                let vl = cmd & 3;
                let mut addr = imm & 0x3ff;
                // FLG (bit 15): the address is relative to TOPS (VIF1).
                if imm & 0x8000 != 0 && vif1 {
                    addr += self.tops;
                }
                let total = if num == 0 { 256 } else { num };
                self.cur = Some(Data::Unpack(Unpack {
                    vn,
                    vl,
                    masked: cmd & 0x10 != 0,
                    unsigned: imm & 0x4000 != 0,
                    addr,
                    done: 0,
                    total,
                    bits: 0,
                    nbits: 0,
                }));
            }
            _ => {
                // An invalid VIFcode: ER1 and a stall, unless ERR.ME1 masks the error.
                if self.err & 4 == 0 {
                    self.stat |= stat::ER1;
                    self.raise_intc = true;
                }
            }
        }
        Ok(())
    }

    fn start_vu(&mut self, pc: Option<u32>, ctx: &mut VifCtx<'_>) -> Result<(), String> {
        // ITOP takes ITOPS at every start. VIF0 has no TOP/TOPS: VU0 has no double buffer.
        self.itop = self.itops;
        if self.unit == 0 && !ctx.vu.runs_vu0() {
            // VU0 runs on COP2's registers: the machine runs it, then sets `vu_busy_until`. Until
            // then VU0 counts as busy.
            self.vu0_request = Some(pc);
            self.vu_busy_until = u64::MAX;
            return Ok(());
        }
        if self.unit == 1 {
            // Double buffering: TOP takes TOPS, and TOPS flips between BASE and BASE + OFST.
            self.top = self.tops;
            if self.stat & stat::DBF != 0 {
                self.tops = self.base;
                self.stat &= !stat::DBF;
            } else {
                self.tops = (self.base + self.ofst) & 0x3ff;
                self.stat |= stat::DBF;
            }
        }
        let io = VuIo {
            vu_mem: ctx.vu_mem,
            gif: ctx.gif,
        };
        let cycles = ctx.vu.start(self.unit, pc, self.top, self.itop, io)?;
        self.vu_busy_until = ctx.now + cycles;
        self.vu1_started = self.unit == 1;
        // The run's XGKICKs reach PATH1 at their times from now (the bus's next sync queues them).
        ctx.gif.path1_anchor(ctx.now);
        ctx.gif.pump();
        Ok(())
    }

    /// Give the current command data words. Returns false when the FIFO ran dry.
    fn feed(&mut self, d: Data, ctx: &mut VifCtx<'_>) -> bool {
        match d {
            Data::Mask => {
                let Some(w) = self.fifo.pop_front() else {
                    return false;
                };
                self.mask = w;
                self.cur = None;
            }
            Data::Row { i } | Data::Col { i } => {
                let Some(w) = self.fifo.pop_front() else {
                    return false;
                };
                let row = matches!(d, Data::Row { .. });
                if row {
                    self.row[i as usize] = w;
                } else {
                    self.col[i as usize] = w;
                }
                self.cur = match (i + 1, row) {
                    (4, _) => None,
                    (n, true) => Some(Data::Row { i: n }),
                    (n, false) => Some(Data::Col { i: n }),
                };
            }
            Data::Mpg { addr, pos, left } => {
                let Some(w) = self.fifo.pop_front() else {
                    return false;
                };
                // Micro memory: VU0 4 KiB at 0x0000, VU1 16 KiB at 0x8000; imm counts 64-bit units.
                let (base, size) = if self.unit == 0 {
                    (0x0000usize, 0x1000usize)
                } else {
                    (0x8000, 0x4000)
                };
                let off = ((addr as usize) * 8 + pos as usize * 4) & (size - 1);
                ctx.vu_mem[base + off..base + off + 4].copy_from_slice(&w.to_le_bytes());
                self.cur = if left > 1 {
                    Some(Data::Mpg {
                        addr,
                        pos: pos + 1,
                        left: left - 1,
                    })
                } else {
                    None
                };
            }
            Data::Direct { left, have, acc } => {
                let Some(w) = self.fifo.pop_front() else {
                    return false;
                };
                let acc = acc | (w as u128) << (32 * have as u32);
                if have == 3 {
                    ctx.gif.push(gif::path::P2, &[acc]);
                    ctx.gif.pump();
                    self.cur = if left > 1 {
                        Some(Data::Direct {
                            left: left - 1,
                            have: 0,
                            acc: 0,
                        })
                    } else {
                        None
                    };
                } else {
                    self.cur = Some(Data::Direct {
                        left,
                        have: have + 1,
                        acc,
                    });
                }
            }
            Data::Unpack(u) => return self.unpack_step(u, ctx),
        }
        true
    }

    /// CL and WL as the unpacker uses them: WL 0 acts as 256 (CL 0 stays 0, which is filling).
    fn cl_wl(&self) -> (u32, u32) {
        let cl = self.cycle & 0xff;
        let wl = match (self.cycle >> 8) & 0xff {
            0 => 256,
            n => n,
        };
        (cl, wl)
    }

    /// Do one UNPACK write. Returns false when it needs data the FIFO does not have yet.
    fn unpack_step(&mut self, mut u: Unpack, ctx: &mut VifCtx<'_>) -> bool {
        let (cl, wl) = self.cl_wl();
        let i = u.done;
        let cpos = i % wl;
        // Skipping (CL >= WL): WL qwords written of every CL. Filling (CL < WL): contiguous
        // writes, data taken only in the first CL of each WL.
        let (qaddr, takes_data) = if cl >= wl {
            (u.addr + (i / wl) * cl + cpos, true)
        } else {
            (u.addr + i, cpos < cl)
        };
        let mut data = [0u32; 4];
        let mut have = [false; 4];
        if takes_data {
            let comps = u.vn + 1;
            let (elem_bits, n) = if u.vl == 3 {
                (16, 1)
            } else {
                (32 >> u.vl, comps)
            };
            let need = elem_bits * n;
            // The whole element must be in the FIFO before any of it is used.
            if self.fifo.len() < need.saturating_sub(u.nbits).div_ceil(32) as usize {
                self.cur = Some(Data::Unpack(u));
                return false;
            }
            let fifo = &mut self.fifo;
            let mut take = |u: &mut Unpack, b: u32| -> u32 {
                if u.nbits < b {
                    u.bits |= (fifo.pop_front().unwrap_or(0) as u64) << u.nbits;
                    u.nbits += 32;
                }
                let v = (u.bits & ((1u64 << b) - 1)) as u32;
                u.bits >>= b;
                u.nbits -= b;
                v
            };
            let ext = |v: u32, b: u32, unsigned: bool| -> u32 {
                if b == 32 || unsigned {
                    v
                } else {
                    ((v << (32 - b)) as i32 >> (32 - b)) as u32
                }
            };
            if u.vl == 3 {
                // V4-5 (RGBA 5-5-5-1): each 5-bit field shifted to the top of a byte.
                let v = take(&mut u, 16);
                data = [
                    (v & 0x1f) << 3,
                    ((v >> 5) & 0x1f) << 3,
                    ((v >> 10) & 0x1f) << 3,
                    ((v >> 15) & 1) << 7,
                ];
                have = [true; 4];
            } else {
                let mut c = [0u32; 4];
                for x in c.iter_mut().take(comps as usize) {
                    *x = ext(take(&mut u, elem_bits), elem_bits, u.unsigned);
                }
                if u.vn == 2 {
                    // V3: W gets the next element-sized bits of the stream, which are not used up
                    // (ps2autotests dma/vif/unpack).
                    let (mut b, mut nb) = (u.bits, u.nbits);
                    if nb < elem_bits
                        && let Some(w) = self.fifo.front()
                    {
                        b |= (*w as u64) << nb;
                        nb += 32;
                    }
                    let v = if nb >= elem_bits {
                        (b & ((1u64 << elem_bits) - 1)) as u32
                    } else {
                        0
                    };
                    c[3] = ext(v, elem_bits, u.unsigned);
                }
                match u.vn {
                    // S: one value in all four fields.
                    0 => {
                        data = [c[0]; 4];
                        have = [true; 4];
                    }
                    // V2: X, Y, and again X, Y in Z, W.
                    1 => {
                        data = [c[0], c[1], c[0], c[1]];
                        have = [true; 4];
                    }
                    2 => {
                        data = c;
                        have = [true; 4];
                    }
                    _ => {
                        data = c;
                        have = [true; 4];
                    }
                }
            }
        }
        // Write with the mask (row = cycle position, at most 3) and the mode.
        let mrow = cpos.min(3);
        let base = self.mem_base();
        let off = base + ((qaddr & self.qmask()) as usize) * 16;
        for e in 0..4 {
            let m = if u.masked {
                (self.mask >> (mrow * 8 + e as u32 * 2)) & 3
            } else {
                0
            };
            let v = match m {
                0 => {
                    if takes_data {
                        if !have[e] {
                            continue;
                        }
                        match self.mode {
                            1 => data[e].wrapping_add(self.row[e]),
                            2 => {
                                self.row[e] = self.row[e].wrapping_add(data[e]);
                                self.row[e]
                            }
                            // Mode 3 writes the data and keeps it in the row register
                            // (ps2autotests dma/vif/stmod).
                            3 => {
                                self.row[e] = data[e];
                                data[e]
                            }
                            _ => data[e],
                        }
                    } else {
                        // A filling write with no data: the row register fills the field.
                        self.row[e]
                    }
                }
                1 => self.row[e],
                2 => self.col[mrow as usize],
                _ => continue,
            };
            ctx.vu_mem[off + 4 * e..off + 4 * e + 4].copy_from_slice(&v.to_le_bytes());
        }
        u.done += 1;
        if u.done >= u.total {
            // The data of an UNPACK ends on a word boundary: leftover bits are padding.
            self.cur = None;
        } else {
            self.cur = Some(Data::Unpack(u));
        }
        true
    }

    /// VPS: 0 idle, 1 waiting for data, 2 decoding, 3 transferring data.
    fn vps(&self) -> u32 {
        if self.stat & stat::VIS != 0 {
            return 2;
        }
        match self.cur {
            None if self.wait.is_some() => 2,
            None => 0,
            Some(_) if self.fifo.is_empty() => 1,
            Some(_) => 3,
        }
    }

    /// STAT as read.
    pub fn read_stat(&self) -> u32 {
        // While stalled by the i bit the FIFO count reads 0 (ps2autotests dma/vif/intstall: the
        // words after the stall wait inside the VIF, not in the FIFO).
        let fqc = if self.stat & stat::VIS != 0 {
            0
        } else {
            (self.fifo.len().div_ceil(4) as u32).min(if self.unit == 0 { 8 } else { 16 })
        };
        self.vps() | self.stat | fqc << 24
    }

    /// STAT.FDR: the FIFO faces memory (VIF1 only).
    pub fn fdr(&self) -> bool {
        self.stat & stat::FDR != 0
    }

    /// NUM: the writes (UNPACK) or instructions (MPG) left; VIF0's register is 8 bits wide.
    fn num(&self) -> u32 {
        let n = match self.cur {
            Some(Data::Unpack(u)) => u.total - u.done,
            Some(Data::Mpg { left, .. }) => left.div_ceil(2),
            _ => 0,
        };
        if self.unit == 0 { n & 0xff } else { n & 0x1ff }
    }

    /// Read a register by its offset from the VIF's base (0x00 STAT .. 0x170 C3).
    pub fn read(&self, off: u32) -> u32 {
        match off & 0x1f0 {
            0x000 => self.read_stat(),
            0x020 => self.err,
            0x030 => self.mark,
            0x040 => self.cycle,
            0x050 => self.mode,
            0x060 => self.num(),
            0x070 => self.mask,
            0x080 => self.code,
            0x090 => self.itops,
            0x0a0 => self.base,
            0x0b0 => self.ofst,
            0x0c0 => self.tops,
            0x0d0 => self.itop,
            0x0e0 => self.top,
            0x100..=0x130 => self.row[((off - 0x100) >> 4) as usize],
            0x140..=0x170 => self.col[((off - 0x140) >> 4) as usize],
            _ => 0,
        }
    }

    /// Write a register by offset: FBRST, ERR, MARK (which clears STAT.MRK), R0-R3, C0-C3.
    pub fn write(&mut self, off: u32, v: u32) {
        match off & 0x1f0 {
            // STAT: only FDR (bit 23, VIF1) is writable; turning the FIFO round lets a waiting
            // channel 1 look again.
            0x000 if self.unit == 1 => {
                self.stat = (self.stat & !stat::FDR) | (v & stat::FDR);
                self.kick = true;
            }
            // FBRST: RST bit 0, FBK bit 1, STP bit 2, STC bit 3.
            0x010 => {
                if v & 1 != 0 {
                    let unit = self.unit;
                    // The VU keeps running (and a VU0 start already asked for still happens).
                    let (busy, req) = (self.vu_busy_until, self.vu0_request);
                    *self = Self::new(unit);
                    self.vu_busy_until = busy;
                    self.vu0_request = req;
                    self.kick = true;
                }
                if v & 2 != 0 {
                    self.stat |= stat::VFS;
                }
                if v & 4 != 0 {
                    self.stat |= stat::VSS;
                }
                if v & 8 != 0 {
                    self.stat &=
                        !(stat::VSS | stat::VFS | stat::VIS | stat::INT | stat::ER0 | stat::ER1);
                    self.kick = true;
                }
            }
            0x020 => self.err = v & 7,
            0x030 => {
                self.mark = v & 0xffff;
                self.stat &= !stat::MRK;
            }
            0x100..=0x130 => self.row[((off - 0x100) >> 4) as usize] = v,
            0x140..=0x170 => self.col[((off - 0x140) >> 4) as usize] = v,
            _ => {}
        }
    }
}
