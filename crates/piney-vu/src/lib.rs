//! VU0 and VU1 in micro mode, and a VU assembler.
//!
//! Contract:
//! - [`table`] is the one opcode table (mnemonic, operand form, encoding, pipeline properties,
//!   interpreter function) for the upper and lower instruction sets; [`table::decode_upper`] /
//!   [`table::decode_lower`], the interpreter ([`Vu::run`]), the disassembler ([`disasm`]) and
//!   the assembler ([`asm`]) all read it.
//! - [`Vu`] is one unit (VU0: 4 KiB micro and data memory; VU1: 16 KiB each) with its registers in
//!   the layout of `piney_ee::cpu::Vu0Regs` (VU0's registers are the ones COP2 macro mode uses).
//!   [`Vu::run`] executes from a start address until the E bit's delay slot, a D/T bit (when
//!   enabled), a cycle budget, or an error, and reports a [`Stop`]; bad code never panics.
//! - The pipeline facts that programs can observe are modelled (see [`vu`]): upper/lower pairing,
//!   the I/E/M/D/T bits, VF result latency stalls, Q and P latencies, the delayed MAC/status/clip
//!   flags, and the branch VI rule.
//! - The machine around the unit is reached through [`VuHost`]: XGKICK (VU1 -> GIF PATH1), XTOP /
//!   XITOP (the VU's own VIF: VIF1 for VU1, VIF0 for VU0), and VU0's window on VU1's registers at
//!   data address 0x4000.
//! - Float arithmetic is `piney_ee::float`, shared with COP1 and COP2.

pub mod asm;
pub mod disasm;
pub mod exec;
pub mod table;
pub mod vu;

pub use asm::{AsmError, assemble};
pub use disasm::disassemble;
pub use table::{Form, OpInfo, decode_lower, decode_upper};
pub use vu::{NullHost, Stop, Unit, Vu, VuHost};
