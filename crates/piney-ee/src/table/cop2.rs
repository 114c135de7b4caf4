//! COP2 (VU0 macro mode) sub-tables (opcode 0x12).

use super::{OpInfo, RESERVED};

pub(super) fn decode(_word: u32) -> &'static OpInfo {
    &RESERVED
}
