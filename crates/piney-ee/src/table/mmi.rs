//! MMI sub-tables (opcode 0x1c): MMI by funct, MMI0..MMI3 by sa.

use super::{OpInfo, RESERVED};

pub(super) fn decode(_word: u32) -> &'static OpInfo {
    &RESERVED
}
