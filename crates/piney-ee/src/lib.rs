//! The R5900 Emotion Engine core.
//!
//! Contract:
//! - [`table`] is the *one* opcode table: every fact about an instruction (mnemonic, operand form,
//!   registers read and written, flags, cycle cost, the interpreter function) lives there, and the
//!   decoder ([`decode`]), the interpreter ([`interp::step`]) and the disassembler ([`disasm`]) read it.
//! - [`interp`] is the reference semantics. Anything faster (the recompiler) must agree with it.
//! - The core knows nothing of the machine around it: memory is reached through the [`Bus`] trait
//!   (virtual addresses, already aligned by the core), and exceptions are architecturally entered
//!   (EPC, Cause, Status.EXL) and then reported to the caller as an [`Exception`], so that a
//!   high-level kernel can service them natively.
//! - [`float`] holds the PS2's non-IEEE float arithmetic, shared by COP1, COP2 (VU0 macro mode) and
//!   later the VU micro mode and the recompiler.
//! - No host clock, no threads, no I/O: the same state and the same bus give the same result.

pub mod bus;
pub mod cpu;
pub mod disasm;
pub mod exception;
pub mod float;
pub mod interp;
pub mod table;

pub use bus::{Bus, BusFault};
pub use cpu::Cpu;
pub use exception::{Exception, ExceptionKind};
pub use table::{OpInfo, decode};
