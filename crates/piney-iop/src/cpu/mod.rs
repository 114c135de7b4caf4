//! The IOP's CPU: an R3000A (MIPS I) with its system control coprocessor, COP0.
//!
//! Contract:
//! - [`table`] is the only list of instructions. [`table::decode`] maps every word to an entry
//!   (never failing); the interpreter ([`interp`]) runs the entry's `exec`; the disassembler
//!   ([`mod@disasm`]) formats by its `form`.
//! - [`Cpu`] is the whole architectural state, plus the one load in flight. It sees memory only
//!   through [`Bus`], with virtual addresses; alignment is checked here, before the bus is asked.
//! - [`interp::step`] runs one instruction. An exception leaves the state as it was before that
//!   instruction (the pending load from the one before still pending, `pc` and `in_delay` naming
//!   the faulting instruction) and is returned; the caller either enters it
//!   ([`Cpu::enter_exception`], the hardware's entry sequence) or services it natively.
//! - Load delay (R3000A): a load's value reaches its register one instruction late. The
//!   instruction right after a load reads the old value; if it writes the register itself, the
//!   load is dropped; LWL/LWR merge into the value in flight; of two loads in a row to one
//!   register only the second lands. MFC0 is delayed the same way; MFHI/MFLO are not.
//! - Time: [`Cpu::cycles`] counts IOP cycles, each instruction costing its table entry's
//!   `cycles` (see [`table`] for the model).

pub mod bus;
pub mod disasm;
pub mod exception;
pub mod interp;
pub mod table;

pub use bus::{Bus, BusFault};
pub use disasm::disasm;
pub use exception::{Exception, ExceptionKind};
pub use interp::{RunExit, run, step};
pub use table::{OpInfo, decode};

/// The reset vector: the first instruction of the boot ROM (kseg1).
pub const RESET_VECTOR: u32 = 0xbfc0_0000;
/// The general exception vector with SR.BEV set (boot ROM, kseg1).
pub const EXCEPTION_VECTOR_BEV: u32 = 0xbfc0_0180;
/// The general exception vector with SR.BEV clear (RAM, kseg0).
pub const EXCEPTION_VECTOR: u32 = 0x8000_0080;

/// PRId as PCSX2 reports it for the IOP (`psxReset` in pcsx2/R3000A.cpp: 0x1f). The PS1's
/// CXD8606 reads 0x2 (psx-spx); the IOP's own silicon value is not documented elsewhere.
pub const IOP_PRID: u32 = 0x0000_001f;

/// COP0 register numbers (the `rd` field of MFC0/MTC0). Only these exist on the R3000A.
pub mod cop0reg {
    /// Breakpoint program counter.
    pub const BPC: usize = 3;
    /// Breakpoint data address.
    pub const BDA: usize = 5;
    /// Jump destination ("TAR"): the taken branch's target when an exception hits its delay slot.
    pub const JUMPDEST: usize = 6;
    /// Debug and cache invalidate control.
    pub const DCIC: usize = 7;
    /// The address of the last address error.
    pub const BAD_VADDR: usize = 8;
    /// Breakpoint data address mask.
    pub const BDAM: usize = 9;
    /// Breakpoint program counter mask.
    pub const BPCM: usize = 11;
    /// Status register.
    pub const SR: usize = 12;
    /// Cause of the last exception.
    pub const CAUSE: usize = 13;
    /// Exception program counter.
    pub const EPC: usize = 14;
    /// Processor revision id.
    pub const PRID: usize = 15;
}

/// Status register (SR, COP0 12) bits (psx-spx, "cop0r12").
pub mod sr {
    /// Current interrupt enable.
    pub const IEC: u32 = 1 << 0;
    /// Current mode: 1 = user.
    pub const KUC: u32 = 1 << 1;
    /// Previous interrupt enable.
    pub const IEP: u32 = 1 << 2;
    /// Previous mode.
    pub const KUP: u32 = 1 << 3;
    /// Old interrupt enable.
    pub const IEO: u32 = 1 << 4;
    /// Old mode.
    pub const KUO: u32 = 1 << 5;
    /// The KU/IE stack, bits 0-5: an exception pushes it by two bits, RFE pops it.
    pub const MODE_STACK: u32 = 0x3f;
    /// Interrupt mask, one bit per CAUSE.IP bit (bits 8-15).
    pub const IM: u32 = 0xff << 8;
    /// Isolate cache: stores go to the cache, not to memory (the kernel's cache flush).
    pub const ISC: u32 = 1 << 16;
    /// Swapped cache mode.
    pub const SWC: u32 = 1 << 17;
    /// Parity zero.
    pub const PZ: u32 = 1 << 18;
    /// Cache miss on the last isolated load (read-only).
    pub const CM: u32 = 1 << 19;
    /// Cache parity error (read-only).
    pub const PE: u32 = 1 << 20;
    /// TLB shutdown (read-only).
    pub const TS: u32 = 1 << 21;
    /// Bootstrap exception vectors: 0xbfc0_0180 instead of 0x8000_0080.
    pub const BEV: u32 = 1 << 22;
    /// Reverse endianness in user mode (no effect modelled).
    pub const RE: u32 = 1 << 25;
    /// COP0 usable in user mode (kernel mode may always use it).
    pub const CU0: u32 = 1 << 28;
    /// COP1 usable.
    pub const CU1: u32 = 1 << 29;
    /// COP2 (GTE) usable.
    pub const CU2: u32 = 1 << 30;
    /// COP3 usable.
    pub const CU3: u32 = 1 << 31;
    /// Bits MTC0 can change: all but CM, PE, TS and the always-zero bits 6-7, 23-24, 26-27.
    pub const WRITABLE: u32 = MODE_STACK | IM | ISC | SWC | PZ | BEV | RE | CU0 | CU1 | CU2 | CU3;
}

/// CAUSE register (COP0 13) bits (psx-spx, "cop0r13").
pub mod cause {
    /// ExcCode, bits 2-6.
    pub const EXC_CODE: u32 = 0x1f << 2;
    /// The two software interrupt bits (8-9): the only bits MTC0 can change.
    pub const SW: u32 = 3 << 8;
    /// Hardware interrupt 0 (bit 10): the IOP's interrupt controller (I_STAT & I_MASK, I_CTRL).
    pub const IP_INTC: u32 = 1 << 10;
    /// All interrupt-pending bits (8-15), matched against SR.IM.
    pub const IP: u32 = 0xff << 8;
    /// Coprocessor number of a coprocessor-unusable exception, bits 28-29.
    pub const CE: u32 = 3 << 28;
    /// With BD: the branch before the faulting instruction was taken.
    pub const BT: u32 = 1 << 30;
    /// The faulting instruction sat in a branch delay slot; EPC names the branch.
    pub const BD: u32 = 1 << 31;
}

/// COP0: exceptions, interrupts, the cache-isolate bit and the (unmodelled) debug registers.
///
/// Breakpoints (BPC/BDA and masks, DCIC's enables) are stored but never fire.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Cop0 {
    /// BPC (3).
    pub bpc: u32,
    /// BDA (5).
    pub bda: u32,
    /// JUMPDEST / TAR (6), read-only to MTC0.
    pub jumpdest: u32,
    /// DCIC (7).
    pub dcic: u32,
    /// BadVaddr (8), read-only to MTC0; written by address errors only.
    pub bad_vaddr: u32,
    /// BDAM (9).
    pub bdam: u32,
    /// BPCM (11).
    pub bpcm: u32,
    /// SR (12).
    pub sr: u32,
    /// CAUSE (13).
    pub cause: u32,
    /// EPC (14), read-only to MTC0.
    pub epc: u32,
    /// PRId (15), read-only.
    pub prid: u32,
}

/// DCIC bits that exist (psx-spx: 0-5 status, 12-15 jump redirection and unknown, 23-31 enables).
const DCIC_WRITABLE: u32 = 0xff80_f03f;

impl Cop0 {
    /// The power-on state: SR has BEV set and everything else clear (kernel mode, interrupts
    /// off, as an R3000 resets). PCSX2's psxReset writes 0x1090_0000 instead (CU0 and bits 20
    /// and 23, though its comment names BEV and TS); the BIOS rewrites SR before it matters.
    pub fn new() -> Self {
        Self {
            bpc: 0,
            bda: 0,
            jumpdest: 0,
            dcic: 0,
            bad_vaddr: 0,
            bdam: 0,
            bpcm: 0,
            sr: sr::BEV,
            cause: 0,
            epc: 0,
            prid: IOP_PRID,
        }
    }

    /// MFC0's view of register `reg` (0..31). `None` for the registers that raise a reserved
    /// instruction exception when read (0, 1, 2, 4, 10: the TLB registers the R3000A lacks);
    /// 16..31 read as 0 (the hardware returns garbage there, without an exception).
    pub fn read(&self, reg: usize) -> Option<u32> {
        use cop0reg::*;
        Some(match reg {
            BPC => self.bpc,
            BDA => self.bda,
            JUMPDEST => self.jumpdest,
            DCIC => self.dcic,
            BAD_VADDR => self.bad_vaddr,
            BDAM => self.bdam,
            BPCM => self.bpcm,
            SR => self.sr,
            CAUSE => self.cause,
            EPC => self.epc,
            PRID => self.prid,
            16..=31 => 0,
            _ => return None,
        })
    }

    /// MTC0 to register `reg`: SR takes its writable bits, CAUSE only the software interrupt
    /// bits 8-9, DCIC its existing bits; JUMPDEST, BadVaddr, EPC, PRId and the registers that do
    /// not exist ignore the write.
    pub fn write(&mut self, reg: usize, v: u32) {
        use cop0reg::*;
        match reg {
            BPC => self.bpc = v,
            BDA => self.bda = v,
            DCIC => self.dcic = v & DCIC_WRITABLE,
            BDAM => self.bdam = v,
            BPCM => self.bpcm = v,
            SR => self.sr = (self.sr & !sr::WRITABLE) | (v & sr::WRITABLE),
            CAUSE => self.cause = (self.cause & !cause::SW) | (v & cause::SW),
            _ => {}
        }
    }
}

impl Default for Cop0 {
    fn default() -> Self {
        Self::new()
    }
}

/// A load in flight: `value` reaches GPR `reg` after the next instruction. `reg == 0` means none.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PendingLoad {
    /// Destination register (0: no load pending).
    pub reg: u8,
    /// The loaded value.
    pub value: u32,
}

impl PendingLoad {
    /// No load in flight.
    pub const NONE: PendingLoad = PendingLoad { reg: 0, value: 0 };
}

/// ABI names of the 32 GPRs, without the `$`.
pub const GPR_NAMES: [&str; 32] = [
    "zero", "at", "v0", "v1", "a0", "a1", "a2", "a3", "t0", "t1", "t2", "t3", "t4", "t5", "t6",
    "t7", "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "t8", "t9", "k0", "k1", "gp", "sp", "fp",
    "ra",
];

/// The ABI name of GPR `r` (`0..32`), without the `$`: `gpr_name(29) == "sp"`.
pub fn gpr_name(r: usize) -> &'static str {
    GPR_NAMES[r & 31]
}

/// The R3000A's architectural state.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Cpu {
    /// The general registers; `gpr[0]` always reads 0 (write through [`Cpu::set_gpr`]).
    pub gpr: [u32; 32],
    /// HI: multiply high word, division remainder.
    pub hi: u32,
    /// LO: multiply low word, division quotient.
    pub lo: u32,
    /// Address of the next instruction to execute.
    pub pc: u32,
    /// The instruction after it: `pc + 4`, or a branch target when `pc` is a delay slot.
    pub next_pc: u32,
    /// The instruction at `pc` sits in a branch delay slot.
    pub in_delay: bool,
    /// Address of the instruction last started (for messages).
    pub cur_pc: u32,
    /// The load of the previous instruction, still in flight.
    pub load: PendingLoad,
    /// System control coprocessor.
    pub cop0: Cop0,
    /// IOP cycles since power-on.
    pub cycles: u64,
    /// The load the current instruction starts; it becomes `load` when the instruction
    /// completes. Always empty between instructions.
    next_load: PendingLoad,
}

impl Default for Cpu {
    fn default() -> Self {
        Self::new()
    }
}

impl Cpu {
    /// The power-on state: registers zero, `pc` at the reset vector, SR with BEV set.
    pub fn new() -> Self {
        Self {
            gpr: [0; 32],
            hi: 0,
            lo: 0,
            pc: RESET_VECTOR,
            next_pc: RESET_VECTOR.wrapping_add(4),
            in_delay: false,
            cur_pc: RESET_VECTOR,
            load: PendingLoad::NONE,
            cop0: Cop0::new(),
            cycles: 0,
            next_load: PendingLoad::NONE,
        }
    }

    /// Continue at `addr`: `pc = addr`, `next_pc = addr + 4`, not in a delay slot. A load still in
    /// flight lands first (it was issued; only its timing is lost).
    pub fn set_pc(&mut self, addr: u32) {
        self.flush_load_delay();
        self.pc = addr;
        self.next_pc = addr.wrapping_add(4);
        self.in_delay = false;
    }

    /// Land the load in flight now. Native code calls this before it reads guest registers.
    pub fn flush_load_delay(&mut self) {
        let l = std::mem::take(&mut self.load);
        if l.reg != 0 {
            self.gpr[l.reg as usize] = l.value;
        }
    }

    /// Write GPR `r` now (writes to 0 are dropped). A load in flight to the same register is
    /// cancelled: the later write wins.
    #[inline]
    pub fn set_gpr(&mut self, r: usize, v: u32) {
        if r != 0 {
            self.gpr[r] = v;
            if self.load.reg as usize == r {
                self.load = PendingLoad::NONE;
            }
        }
    }

    /// Start a delayed write of `v` to GPR `r` (loads, MFC0): it lands after the next
    /// instruction. A load in flight to the same register is dropped (the second load wins).
    #[inline]
    pub fn set_gpr_delayed(&mut self, r: usize, v: u32) {
        if r != 0 {
            if self.load.reg as usize == r {
                self.load = PendingLoad::NONE;
            }
            self.next_load = PendingLoad {
                reg: r as u8,
                value: v,
            };
        }
    }

    /// GPR `r` as LWL/LWR merge into it: the value in flight if a load to `r` is pending.
    #[inline]
    pub fn gpr_bypassed(&self, r: usize) -> u32 {
        if r != 0 && self.load.reg as usize == r {
            self.load.value
        } else {
            self.gpr[r]
        }
    }

    /// End the current instruction: the previous load lands, the current one goes in flight.
    #[inline]
    pub(crate) fn retire_load(&mut self) {
        self.flush_load_delay();
        self.load = std::mem::take(&mut self.next_load);
    }

    /// Drop the load the current instruction started (it faulted).
    #[inline]
    pub(crate) fn cancel_next_load(&mut self) {
        self.next_load = PendingLoad::NONE;
    }

    /// The CPU runs in user mode (SR.KUc).
    #[inline]
    pub fn user_mode(&self) -> bool {
        self.cop0.sr & sr::KUC != 0
    }

    /// An interrupt would be taken before the next instruction: SR.IEc set and a CAUSE.IP bit
    /// (software bits 8-9 or hardware bits 10-15) enabled in SR.IM.
    #[inline]
    pub fn interrupt_pending(&self) -> bool {
        self.cop0.sr & sr::IEC != 0 && (self.cop0.cause & self.cop0.sr & cause::IP) != 0
    }

    /// Drive hardware interrupt 0 (CAUSE bit 10), the line from the IOP's interrupt controller.
    /// The line is level-triggered: it stays pending until the controller drops it.
    #[inline]
    pub fn set_interrupt_line(&mut self, level: bool) {
        if level {
            self.cop0.cause |= cause::IP_INTC;
        } else {
            self.cop0.cause &= !cause::IP_INTC;
        }
    }

    /// Take an interrupt if one is pending (see [`Cpu::interrupt_pending`]): enter the interrupt
    /// exception before the instruction at `pc`. Returns whether it did.
    pub fn take_interrupt(&mut self) -> bool {
        if self.interrupt_pending() {
            self.enter_exception(&Exception::interrupt(self.pc, self.in_delay));
            true
        } else {
            false
        }
    }

    /// The hardware's exception entry for `e`, raised by the instruction the CPU still describes
    /// (`pc`, `in_delay`, `next_pc`, as [`interp::step`] leaves them):
    /// - the load in flight lands first (psx-spx: an interrupt right after a load lets it land);
    /// - EPC = the faulting instruction, or the branch before it with CAUSE.BD when it sat in a
    ///   delay slot; then, if that branch was taken, CAUSE.BT and JUMPDEST = its target. A
    ///   branch to its own address + 8 looks not taken (its state is the same as not taken);
    /// - CAUSE.ExcCode = the kind's code, CAUSE.CE = the coprocessor for CopUnusable (else 0);
    /// - BadVaddr = the address for address errors only (bus errors leave it: psx-spx);
    /// - SR's KU/IE stack is pushed (bits 0-3 move to 2-5, kernel mode, interrupts off);
    /// - execution continues at 0xbfc0_0180 with SR.BEV, else at 0x8000_0080.
    pub fn enter_exception(&mut self, e: &Exception) {
        self.flush_load_delay();
        self.next_load = PendingLoad::NONE;
        let c = &mut self.cop0;
        let mut cs = c.cause & !(cause::EXC_CODE | cause::CE | cause::BT | cause::BD);
        cs |= e.kind.code() << 2;
        if e.kind == ExceptionKind::CopUnusable {
            cs |= ((e.cop as u32) & 3) << 28;
        }
        if e.in_delay {
            cs |= cause::BD;
            c.epc = e.pc.wrapping_sub(4);
            if self.next_pc != e.pc.wrapping_add(4) {
                cs |= cause::BT;
                c.jumpdest = self.next_pc;
            }
        } else {
            c.epc = e.pc;
        }
        c.cause = cs;
        if matches!(
            e.kind,
            ExceptionKind::AddressLoad | ExceptionKind::AddressStore
        ) {
            c.bad_vaddr = e.addr;
        }
        c.sr = (c.sr & !sr::MODE_STACK) | ((c.sr << 2) & sr::MODE_STACK);
        let vector = if c.sr & sr::BEV != 0 {
            EXCEPTION_VECTOR_BEV
        } else {
            EXCEPTION_VECTOR
        };
        self.pc = vector;
        self.next_pc = vector.wrapping_add(4);
        self.in_delay = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn power_on() {
        let c = Cpu::new();
        assert_eq!(c.pc, RESET_VECTOR);
        assert_eq!(c.next_pc, RESET_VECTOR + 4);
        assert_eq!(c.cop0.sr, sr::BEV);
        assert_eq!(c.cop0.read(cop0reg::PRID), Some(IOP_PRID));
        assert_eq!(gpr_name(31), "ra");
    }

    #[test]
    fn delayed_write_lands_after_retire() {
        let mut c = Cpu::new();
        c.set_gpr_delayed(8, 5);
        c.retire_load();
        assert_eq!(c.gpr[8], 0, "in flight during the next instruction");
        c.retire_load();
        assert_eq!(c.gpr[8], 5);
        c.set_gpr_delayed(0, 5);
        c.retire_load();
        assert_eq!(c.load, PendingLoad::NONE, "loads to $zero vanish");
    }

    #[test]
    fn cop0_write_masks() {
        let mut c = Cop0::new();
        c.write(cop0reg::CAUSE, 0xffff_ffff);
        assert_eq!(c.cause, cause::SW);
        c.write(cop0reg::SR, 0xffff_ffff);
        assert_eq!(c.sr, sr::WRITABLE);
        c.write(cop0reg::EPC, 0x1234);
        c.write(cop0reg::PRID, 0);
        assert_eq!((c.epc, c.prid), (0, IOP_PRID));
        assert_eq!(c.read(0), None);
        assert_eq!(c.read(10), None);
        assert_eq!(c.read(20), Some(0));
    }
}
