//! Exceptions the core raises.

/// What went wrong (or what the program asked for), as the R5900's Cause.ExcCode names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExceptionKind {
    /// External interrupt (INTC on IP2, DMAC on IP3, COP0 timer on IP7). ExcCode 0.
    Interrupt,
    /// TLB modification. ExcCode 1.
    TlbModified,
    /// TLB miss on a load or fetch. ExcCode 2.
    TlbLoad,
    /// TLB miss on a store. ExcCode 3.
    TlbStore,
    /// Misaligned load or fetch. ExcCode 4.
    AddressLoad,
    /// Misaligned store. ExcCode 5.
    AddressStore,
    /// Bus error on fetch. ExcCode 6.
    BusFetch,
    /// Bus error on data access. ExcCode 7.
    BusData,
    /// SYSCALL. ExcCode 8.
    Syscall,
    /// BREAK. ExcCode 9.
    Break,
    /// Reserved (or not yet implemented) instruction. ExcCode 10.
    Reserved,
    /// Coprocessor unusable. ExcCode 11.
    CopUnusable,
    /// Integer overflow (ADD, ADDI, SUB, DADD, DADDI, DSUB). ExcCode 12.
    Overflow,
    /// Trap instruction taken. ExcCode 13.
    Trap,
}

impl ExceptionKind {
    /// The Cause.ExcCode value.
    pub fn code(self) -> u32 {
        match self {
            Self::Interrupt => 0,
            Self::TlbModified => 1,
            Self::TlbLoad => 2,
            Self::TlbStore => 3,
            Self::AddressLoad => 4,
            Self::AddressStore => 5,
            Self::BusFetch => 6,
            Self::BusData => 7,
            Self::Syscall => 8,
            Self::Break => 9,
            Self::Reserved => 10,
            Self::CopUnusable => 11,
            Self::Overflow => 12,
            Self::Trap => 13,
        }
    }
}

/// An exception, with what the caller needs to report or service it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exception {
    /// Which exception.
    pub kind: ExceptionKind,
    /// The address of the instruction that raised it.
    pub pc: u32,
    /// The instruction word (0 for interrupts).
    pub word: u32,
    /// The faulting data address for address and bus errors (else 0).
    pub addr: u32,
    /// Whether the instruction sat in a branch delay slot.
    pub in_delay_slot: bool,
}

impl Exception {
    /// An exception of `kind` with no address, to be completed by the interpreter.
    pub fn new(kind: ExceptionKind) -> Self {
        Self {
            kind,
            pc: 0,
            word: 0,
            addr: 0,
            in_delay_slot: false,
        }
    }
    /// An address or bus error at `addr`.
    pub fn at(kind: ExceptionKind, addr: u32) -> Self {
        Self {
            addr,
            ..Self::new(kind)
        }
    }
}

impl std::fmt::Display for Exception {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kind {
            ExceptionKind::Reserved => write!(
                f,
                "unimplemented or reserved instruction {:#010x} ({}) at pc {:#010x}",
                self.word,
                crate::disasm::disassemble(self.word, self.pc),
                self.pc
            ),
            ExceptionKind::AddressLoad | ExceptionKind::AddressStore => write!(
                f,
                "address error ({}) at {:#010x}, pc {:#010x}",
                if self.kind == ExceptionKind::AddressLoad {
                    "load"
                } else {
                    "store"
                },
                self.addr,
                self.pc
            ),
            ExceptionKind::BusFetch | ExceptionKind::BusData => {
                write!(f, "bus error at {:#010x}, pc {:#010x}", self.addr, self.pc)
            }
            k => write!(f, "{k:?} exception at pc {:#010x}", self.pc),
        }
    }
}
