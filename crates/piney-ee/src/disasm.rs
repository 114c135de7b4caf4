//! The disassembler: formats an instruction from its table entry's form.

use crate::table::decode;

/// Disassemble one instruction word at `pc` (for branch targets).
pub fn disassemble(word: u32, _pc: u32) -> String {
    decode(word).mnemonic.to_string()
}
