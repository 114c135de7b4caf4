//! Exceptions the R3000A raises.
//!
//! Contract: an [`Exception`] says what happened and where (the instruction's address and word,
//! whether it sat in a delay slot, the faulting address, the coprocessor). Raising one changes
//! nothing; [`crate::cpu::Cpu::enter_exception`] does what the hardware does with it.

/// What went wrong, or what the program asked for, by CAUSE.ExcCode. The R3000A's TLB
/// exceptions (1-3) cannot happen: it has no TLB.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ExceptionKind {
    /// External or software interrupt. ExcCode 0.
    Interrupt,
    /// Misaligned load or fetch, or a user-mode access outside kuseg (AdEL). ExcCode 4.
    AddressLoad,
    /// Misaligned store, or a user-mode store outside kuseg (AdES). ExcCode 5.
    AddressStore,
    /// Bus error on an instruction fetch (IBE). ExcCode 6.
    BusFetch,
    /// Bus error on a data load or store (DBE). ExcCode 7.
    BusData,
    /// SYSCALL. ExcCode 8.
    Syscall,
    /// BREAK. ExcCode 9.
    Break,
    /// Reserved instruction (RI). ExcCode 10.
    Reserved,
    /// Coprocessor unusable (CpU); [`Exception::cop`] names the coprocessor. ExcCode 11.
    CopUnusable,
    /// Signed overflow in ADD, ADDI or SUB. ExcCode 12.
    Overflow,
}

impl ExceptionKind {
    /// The CAUSE.ExcCode value.
    pub const fn code(self) -> u32 {
        match self {
            Self::Interrupt => 0,
            Self::AddressLoad => 4,
            Self::AddressStore => 5,
            Self::BusFetch => 6,
            Self::BusData => 7,
            Self::Syscall => 8,
            Self::Break => 9,
            Self::Reserved => 10,
            Self::CopUnusable => 11,
            Self::Overflow => 12,
        }
    }

    /// A short lower-case name for messages.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Interrupt => "interrupt",
            Self::AddressLoad => "address error (load/fetch)",
            Self::AddressStore => "address error (store)",
            Self::BusFetch => "bus error (fetch)",
            Self::BusData => "bus error (data)",
            Self::Syscall => "syscall",
            Self::Break => "break",
            Self::Reserved => "reserved instruction",
            Self::CopUnusable => "coprocessor unusable",
            Self::Overflow => "integer overflow",
        }
    }
}

/// An exception, with what a handler or an error message needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Exception {
    /// Which exception.
    pub kind: ExceptionKind,
    /// The address of the instruction that raised it (for interrupts: the next to execute).
    pub pc: u32,
    /// The instruction word (0 for interrupts and failed fetches).
    pub word: u32,
    /// The faulting address for address and bus errors (else 0).
    pub addr: u32,
    /// The instruction sat in a branch delay slot.
    pub in_delay: bool,
    /// The coprocessor number for [`ExceptionKind::CopUnusable`] (else 0).
    pub cop: u8,
}

impl Exception {
    /// An exception of `kind`; the interpreter fills in `pc`, `word` and `in_delay`.
    pub const fn new(kind: ExceptionKind) -> Self {
        Self {
            kind,
            pc: 0,
            word: 0,
            addr: 0,
            in_delay: false,
            cop: 0,
        }
    }

    /// An address or bus error at `addr`.
    pub const fn at(kind: ExceptionKind, addr: u32) -> Self {
        let mut e = Self::new(kind);
        e.addr = addr;
        e
    }

    /// Coprocessor `cop` unusable.
    pub const fn cop_unusable(cop: u8) -> Self {
        let mut e = Self::new(ExceptionKind::CopUnusable);
        e.cop = cop;
        e
    }

    /// An interrupt taken before the instruction at `pc`.
    pub const fn interrupt(pc: u32, in_delay: bool) -> Self {
        let mut e = Self::new(ExceptionKind::Interrupt);
        e.pc = pc;
        e.in_delay = in_delay;
        e
    }
}

impl std::fmt::Display for Exception {
    /// One line: `reserved instruction 0x4c000000 at pc 0x00012340`, with the address for
    /// address and bus errors, the coprocessor for CpU and a note for delay slots.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kind {
            ExceptionKind::Interrupt => write!(f, "interrupt at pc {:#010x}", self.pc)?,
            ExceptionKind::CopUnusable => write!(
                f,
                "coprocessor {} unusable: {:#010x} at pc {:#010x}",
                self.cop, self.word, self.pc
            )?,
            k => write!(
                f,
                "{} {:#010x} at pc {:#010x}",
                k.name(),
                self.word,
                self.pc
            )?,
        }
        if matches!(
            self.kind,
            ExceptionKind::AddressLoad
                | ExceptionKind::AddressStore
                | ExceptionKind::BusFetch
                | ExceptionKind::BusData
        ) {
            write!(f, ", address {:#010x}", self.addr)?;
        }
        if self.in_delay {
            write!(f, " (in a branch delay slot)")?;
        }
        Ok(())
    }
}

impl std::error::Error for Exception {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display() {
        let mut e = Exception::new(ExceptionKind::Reserved);
        e.pc = 0x12340;
        e.word = 0x4c00_0000;
        assert_eq!(
            e.to_string(),
            "reserved instruction 0x4c000000 at pc 0x00012340"
        );
        let mut e = Exception::at(ExceptionKind::AddressStore, 0x1001);
        e.pc = 0x100;
        e.word = 0xac01_0001;
        e.in_delay = true;
        assert_eq!(
            e.to_string(),
            "address error (store) 0xac010001 at pc 0x00000100, address 0x00001001 \
             (in a branch delay slot)"
        );
    }
}
