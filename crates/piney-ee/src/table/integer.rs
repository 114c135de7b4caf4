//! Primary, SPECIAL and REGIMM sub-tables: the integer instruction set.

use super::{OpInfo, RESERVED};

/// By primary opcode (bits 26-31); 0x00, 0x01, 0x10-0x12 and 0x1c are sub-tables.
pub(super) static PRIMARY: [OpInfo; 64] = [RESERVED; 64];
/// SPECIAL (opcode 0) by funct.
pub(super) static SPECIAL: [OpInfo; 64] = [RESERVED; 64];
/// REGIMM (opcode 1) by rt.
pub(super) static REGIMM: [OpInfo; 32] = [RESERVED; 32];
