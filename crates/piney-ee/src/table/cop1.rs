//! COP1 (FPU) sub-tables (opcode 0x11).

use super::{OpInfo, RESERVED};

pub(super) fn decode(_word: u32) -> &'static OpInfo {
    &RESERVED
}
