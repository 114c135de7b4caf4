//! COP0 sub-tables (opcode 0x10).

use super::{OpInfo, RESERVED};

pub(super) fn decode(_word: u32) -> &'static OpInfo {
    &RESERVED
}
