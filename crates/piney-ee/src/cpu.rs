//! The R5900's architectural state.

use crate::exception::{Exception, ExceptionKind};

/// COP0 register numbers (MFC0/MTC0 `rd`).
pub mod cop0reg {
    /// TLB index.
    pub const INDEX: usize = 0;
    /// TLB random.
    pub const RANDOM: usize = 1;
    /// TLB EntryLo0.
    pub const ENTRY_LO0: usize = 2;
    /// TLB EntryLo1.
    pub const ENTRY_LO1: usize = 3;
    /// TLB context.
    pub const CONTEXT: usize = 4;
    /// TLB page mask.
    pub const PAGE_MASK: usize = 5;
    /// TLB wired.
    pub const WIRED: usize = 6;
    /// Bad virtual address.
    pub const BAD_VADDR: usize = 8;
    /// Count: increments every CPU cycle.
    pub const COUNT: usize = 9;
    /// TLB EntryHi.
    pub const ENTRY_HI: usize = 10;
    /// Compare: Count == Compare sets Cause.IP7 (the COP0 timer interrupt).
    pub const COMPARE: usize = 11;
    /// Status.
    pub const STATUS: usize = 12;
    /// Cause.
    pub const CAUSE: usize = 13;
    /// Exception PC.
    pub const EPC: usize = 14;
    /// Processor id: 0x2e20 on the PS2's EE (implementation 0x2e, revision 0x20).
    pub const PRID: usize = 15;
    /// Config.
    pub const CONFIG: usize = 16;
    /// Bad physical address.
    pub const BAD_PADDR: usize = 23;
    /// Debug / breakpoint registers (MFBPC and friends).
    pub const DEBUG: usize = 24;
    /// Performance counters (MFPS/MFPC).
    pub const PERF: usize = 25;
    /// Cache TagLo.
    pub const TAG_LO: usize = 28;
    /// Cache TagHi.
    pub const TAG_HI: usize = 29;
    /// Error exception PC.
    pub const ERROR_EPC: usize = 30;
}

/// Status register bits.
pub mod status {
    /// Interrupt enable.
    pub const IE: u32 = 1 << 0;
    /// Exception level.
    pub const EXL: u32 = 1 << 1;
    /// Error level.
    pub const ERL: u32 = 1 << 2;
    /// Kernel/supervisor/user mode field (bits 3-4).
    pub const KSU: u32 = 3 << 3;
    /// Interrupt mask: IM2 (INTC), IM3 (DMAC), IM7 (COP0 timer) are the ones wired on the EE.
    pub const IM2: u32 = 1 << 10;
    /// DMAC interrupt mask.
    pub const IM3: u32 = 1 << 11;
    /// Bus error mask.
    pub const BEM: u32 = 1 << 12;
    /// COP0 timer interrupt mask.
    pub const IM7: u32 = 1 << 15;
    /// Enable IE: the EE's second interrupt enable, toggled by EI/DI.
    pub const EIE: u32 = 1 << 16;
    /// EI/DI usable in user mode.
    pub const EDI: u32 = 1 << 17;
    /// Cache hit.
    pub const CH: u32 = 1 << 18;
    /// Bootstrap exception vectors.
    pub const BEV: u32 = 1 << 22;
    /// Debug exception vectors.
    pub const DEV: u32 = 1 << 23;
    /// COP0 usable.
    pub const CU0: u32 = 1 << 28;
    /// COP1 usable.
    pub const CU1: u32 = 1 << 29;
    /// COP2 usable.
    pub const CU2: u32 = 1 << 30;
}

/// One TLB entry (48 on the EE).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TlbEntry {
    /// PageMask.
    pub page_mask: u32,
    /// EntryHi.
    pub entry_hi: u32,
    /// EntryLo0 (with the scratchpad S bit 31).
    pub entry_lo0: u32,
    /// EntryLo1.
    pub entry_lo1: u32,
}

/// COP0: system control.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Cop0 {
    /// The 32 registers as MFC0 sees them (Count is kept up to date by the interpreter).
    pub regs: [u32; 32],
    /// The 48-entry TLB.
    #[serde(with = "serde_big_array::BigArray")]
    pub tlb: [TlbEntry; 48],
    /// Performance counter control (PCCR).
    pub pccr: u32,
    /// Performance counter 0.
    pub pcr0: u32,
    /// Performance counter 1.
    pub pcr1: u32,
    /// Breakpoint registers: BPC, IAB, IABM, DAB, DABM, DVB, DVBM.
    pub bpc: [u32; 7],
    /// CPCOND0, the condition BC0F/BC0T/BC0FL/BC0TL test. On the EE it is wired to the DMAC:
    /// true when every DMA channel selected in D_PCR's CPC bits has finished. The machine
    /// keeps it up to date; it defaults to true (no DMA pending).
    pub cpcond0: bool,
    /// The value of [`Cpu::cycles`] up to which Count and the performance counters have been
    /// advanced (see `interp::cop0::tick_cop0`).
    pub count_sync: u64,
}

impl Default for Cop0 {
    fn default() -> Self {
        let mut regs = [0; 32];
        regs[cop0reg::PRID] = 0x2e20;
        // Config as the BIOS leaves it: 16 KiB I-cache, 8 KiB D-cache, data cache enabled,
        // branch prediction and non-blocking loads on.
        regs[cop0reg::CONFIG] = 0x0000_0440 | (1 << 12) | (1 << 13) | (1 << 16) | (1 << 17);
        regs[cop0reg::STATUS] = status::CU0
            | status::CU1
            | status::CU2
            | status::EIE
            | status::IE
            | status::IM2
            | status::IM3
            | status::IM7;
        Self {
            regs,
            tlb: [TlbEntry::default(); 48],
            pccr: 0,
            pcr0: 0,
            pcr1: 0,
            bpc: [0; 7],
            cpcond0: true,
            count_sync: 0,
        }
    }
}

/// COP1: the FPU, with the PS2's non-IEEE arithmetic (see [`crate::float`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Fpu {
    /// The 32 single-precision registers, as raw bits.
    pub fpr: [u32; 32],
    /// The accumulator (ADDA, MULA, MADD...), raw bits.
    pub acc: u32,
    /// FCR31: condition bit 23, sticky flags, cause flags.
    pub fcr31: u32,
}

impl Fpu {
    /// FCR0, the implementation/revision register: 0x2e30 on the EE.
    pub const FCR0: u32 = 0x2e30;
}

/// VU0 registers as COP2 (macro mode) sees them. The micro mode will share this state.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Vu0Regs {
    /// VF0..VF31, four raw float lanes x, y, z, w (VF0 is constant 0, 0, 0, 1.0).
    pub vf: [[u32; 4]; 32],
    /// VI0..VI15 (16 bits used; VI0 is always 0) and the control registers 16..31 as CFC2/CTC2
    /// address them: 16 Status, 17 MAC, 18 Clipping, 20 R, 21 I, 22 Q, 23 P, 26 TPC, 27 CMSAR0,
    /// 28 FBRST, 29 VPU-STAT, 31 CMSAR1.
    pub vi: [u32; 32],
    /// The accumulator ACC, four lanes.
    pub acc: [u32; 4],
    /// The byte address in VU0 micro memory of a microprogram that
    /// VCALLMS/VCALLMSR asked VU0 to run; the machine services and clears it.
    pub pending_call: Option<u32>,
    /// A VU1 start that a CTC2 to CMSAR1 asked for (the microprogram's address in 64-bit
    /// instructions); the machine services and clears it.
    pub pending_vu1_start: Option<u32>,
    /// The EE cycle at which VU0's microprogram ends (VU0 is idle once the count reaches it).
    /// The machine sets it when it starts VU0; the COP2 moves with the I bit wait for it.
    pub busy_until: u64,
    /// The FBRST reset bits a CTC2 wrote (RS0, bit 1: VU0; RS1, bit 9: VU1), for the machine,
    /// which owns VU1 and the VIFs' waits on their VUs, to service and clear.
    pub pending_reset: u32,
}

impl Default for Vu0Regs {
    fn default() -> Self {
        let mut vf = [[0; 4]; 32];
        vf[0][3] = 0x3f80_0000;
        Self {
            vf,
            vi: [0; 32],
            acc: [0; 4],
            pending_call: None,
            pending_vu1_start: None,
            busy_until: 0,
            pending_reset: 0,
        }
    }
}

/// The whole architectural state of the R5900.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Cpu {
    /// The 32 general purpose registers, 128 bits each ($0 is always 0).
    pub gpr: [u128; 32],
    /// HI (bits 0-63) and HI1 (bits 64-127), the second pipeline's HI.
    pub hi: u128,
    /// LO (bits 0-63) and LO1 (bits 64-127).
    pub lo: u128,
    /// The shift amount register for QFSRV, in bits as MTSAB/MTSAH set it (0..127, bytes x 8).
    pub sa: u32,
    /// Address of the next instruction to execute.
    pub pc: u32,
    /// Address of the instruction after it (a taken branch writes its target here).
    pub next_pc: u32,
    /// Address of the instruction being executed (valid during `exec`).
    pub cur_pc: u32,
    /// The instruction being executed sits in a delay slot.
    pub in_delay_slot: bool,
    /// The next instruction will sit in a delay slot (set by every branch and jump).
    pub delay_next: bool,
    /// COP0.
    pub cop0: Cop0,
    /// COP1.
    pub fpu: Fpu,
    /// COP2 (VU0 in macro mode).
    pub vu0: Vu0Regs,
    /// CPU cycles executed since reset.
    pub cycles: u64,
}

impl Default for Cpu {
    fn default() -> Self {
        Self::new()
    }
}

/// The general exception vector with Status.BEV clear.
pub const VECTOR_COMMON: u32 = 0x8000_0180;
/// The interrupt vector with Status.BEV clear.
pub const VECTOR_INTERRUPT: u32 = 0x8000_0200;

impl Cpu {
    /// The state after reset, with the kernel's usual Status (all coprocessors usable).
    pub fn new() -> Self {
        Self {
            gpr: [0; 32],
            hi: 0,
            lo: 0,
            sa: 0,
            pc: 0xbfc0_0000,
            next_pc: 0xbfc0_0004,
            cur_pc: 0xbfc0_0000,
            in_delay_slot: false,
            delay_next: false,
            cop0: Cop0::default(),
            fpu: Fpu::default(),
            vu0: Vu0Regs::default(),
            cycles: 0,
        }
    }

    /// Continue execution at `pc` (no delay slot pending).
    pub fn jump_to(&mut self, pc: u32) {
        self.pc = pc;
        self.next_pc = pc.wrapping_add(4);
        self.delay_next = false;
    }

    /// The low 64 bits of a GPR.
    #[inline]
    pub fn r64(&self, r: usize) -> u64 {
        self.gpr[r] as u64
    }
    /// The low 32 bits of a GPR.
    #[inline]
    pub fn r32(&self, r: usize) -> u32 {
        self.gpr[r] as u32
    }
    /// Write the low 64 bits of a GPR, keeping the upper 64 (as every non-MMI EE instruction does).
    #[inline]
    pub fn set64(&mut self, r: usize, v: u64) {
        if r != 0 {
            self.gpr[r] = (self.gpr[r] & !(u64::MAX as u128)) | v as u128;
        }
    }
    /// Write a 32-bit result sign-extended to 64 bits, keeping the upper 64.
    #[inline]
    pub fn set32(&mut self, r: usize, v: u32) {
        self.set64(r, v as i32 as i64 as u64);
    }
    /// Write all 128 bits of a GPR.
    #[inline]
    pub fn set128(&mut self, r: usize, v: u128) {
        if r != 0 {
            self.gpr[r] = v;
        }
    }

    /// Whether an interrupt would be taken now: Status IE and EIE set, EXL and ERL clear, and a
    /// pending Cause.IP bit enabled in Status.IM.
    pub fn interrupt_pending(&self) -> bool {
        let s = self.cop0.regs[cop0reg::STATUS];
        let c = self.cop0.regs[cop0reg::CAUSE];
        s & status::IE != 0
            && s & status::EIE != 0
            && s & (status::EXL | status::ERL) == 0
            && (s & c & 0x8c00) != 0
    }

    /// Set or clear a Cause.IP bit (2 = INTC, 3 = DMAC, 7 = COP0 timer).
    pub fn set_interrupt_line(&mut self, line: u32, on: bool) {
        let bit = 1 << (8 + line);
        let c = &mut self.cop0.regs[cop0reg::CAUSE];
        if on {
            *c |= bit;
        } else {
            *c &= !bit;
        }
    }

    /// Enter an exception architecturally: EPC (the branch for a delay slot), Cause.BD and
    /// ExcCode, Status.EXL, BadVAddr for address errors; then continue at the vector. Returns the
    /// completed [`Exception`] for the caller to service or report.
    pub fn enter_exception(&mut self, mut e: Exception) -> Exception {
        e.pc = self.cur_pc;
        e.in_delay_slot = self.in_delay_slot;
        let regs = &mut self.cop0.regs;
        let epc = if self.in_delay_slot {
            self.cur_pc.wrapping_sub(4)
        } else {
            self.cur_pc
        };
        let mut cause = regs[cop0reg::CAUSE] & !(0x7c | (1 << 31));
        cause |= e.kind.code() << 2;
        if regs[cop0reg::STATUS] & status::EXL == 0 {
            regs[cop0reg::EPC] = epc;
            if self.in_delay_slot {
                cause |= 1 << 31;
            }
        }
        regs[cop0reg::CAUSE] = cause;
        if matches!(
            e.kind,
            ExceptionKind::AddressLoad
                | ExceptionKind::AddressStore
                | ExceptionKind::TlbLoad
                | ExceptionKind::TlbStore
                | ExceptionKind::TlbModified
        ) {
            regs[cop0reg::BAD_VADDR] = e.addr;
        }
        regs[cop0reg::STATUS] |= status::EXL;
        self.in_delay_slot = false;
        self.delay_next = false;
        let vector = if e.kind == ExceptionKind::Interrupt {
            VECTOR_INTERRUPT
        } else {
            VECTOR_COMMON
        };
        self.jump_to(vector);
        e
    }

    /// Take a pending interrupt before the instruction at `pc` (EPC = pc).
    pub fn enter_interrupt(&mut self) -> Exception {
        self.cur_pc = self.pc;
        // In a delay slot EPC becomes the branch, which is executed again on return, as the
        // hardware does.
        self.in_delay_slot = self.delay_next;
        self.enter_exception(Exception::new(ExceptionKind::Interrupt))
    }

    /// ERET: return from an exception to ErrorEPC (ERL set) or EPC, clearing ERL or EXL.
    pub fn eret(&mut self) {
        let s = self.cop0.regs[cop0reg::STATUS];
        let target = if s & status::ERL != 0 {
            self.cop0.regs[cop0reg::STATUS] &= !status::ERL;
            self.cop0.regs[cop0reg::ERROR_EPC]
        } else {
            self.cop0.regs[cop0reg::STATUS] &= !status::EXL;
            self.cop0.regs[cop0reg::EPC]
        };
        self.jump_to(target);
    }
}
