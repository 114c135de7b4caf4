//! The small boot modules' libraries: excepman, ssbusc, secrman and eesync.
//!
//! Facts (ps2sdk's reconstructions, iop/system/excepman, ssbusc, eesync and iop/security/secrman,
//! with their exports.tab for the indices):
//! - excepman 1.1: GetExHandlersTable (3) returns the address of its variable holding the
//!   exception table's address, 0x440 (16 words: each exception code's first handler code).
//!   RegisterExceptionHandler(code, h) (4) is RegisterPriorityExceptionHandler(code, 2, h) (5):
//!   KE_EXPHANDLER_USED (-52) when the handler's `next` word is not 0, KE_ILLEGAL_EXPCODE (-50)
//!   for a code of 16 or more, else the handler joins the code's list before the first of equal
//!   or higher priority (priority & 3, lower first). A handler is { next, info, code[] }; in a
//!   list each handler's `next` holds the next one's code address (handler + 8), the last one's
//!   the default handler's code, and `table[code]` the first one's code (the default's when the
//!   list is empty). RegisterDefaultExceptionHandler (6): USED as above, else the handler's
//!   `next` takes the current default's code and its code becomes the default.
//!   ReleaseExceptionHandler(code, h) (7): ILLEGAL_EXPCODE, KE_EXPHANDLER_NOUSE (-51) when it is
//!   not in the list, else it leaves the list and its `next` is cleared.
//!   ReleaseDefaultExceptionHandler (8): NOUSE unless it is a default handler. excepman's own
//!   default handler loops for ever (`b .`).
//! - ssbusc 1.1: the SSBUS delay registers. SetDelay/GetDelay(device) (4, 5) and
//!   SetBaseAddress/GetBaseAddress (6, 7) address a per-device register (delay: 0x1f80_1008,
//!   0x100c, 0x1010, -, 0x1014, 0x1018, -, -, 0x101c, 0x1f80_1414, 0x1418, 0x141c, 0x1420; base:
//!   0x1f80_1000, 0x1f80_1400, -, -, 0x1404, 0x1408, -, -, 0x1004, 0x140c, -, 0x1410, -); a
//!   device past the table or without a register answers -1, a set answers the value. The
//!   common delay register 0x1f80_1020 holds the recovery (bits 0-3), hold (4-7), float (8-11)
//!   and strobe (12-15) times: Set*Time (8, 10, 12, 14) replace their field and answer the
//!   register, Get*Time (9, 11, 13, 15) their field; SetCommonDelay/GetCommonDelay (16, 17) the
//!   whole register.
//! - secrman (the BIOS's is 1.3): SecrSetMcCommandHandler (4) and SecrSetMcDevIDHandler (5)
//!   keep the memory card driver's functions. SecrAuthCard (6) answers 0 when no command handler
//!   is set; otherwise it runs the card's challenge and response, as do SecrResetAuthCard (7)
//!   and the decryption functions (8-19) with the console's keys.
//! - eesync 1.1: only the standard entries (1-5 return at once); its work is BOOTEND, which
//!   piney's boot raises.
//!
//! piney's choices: excepman keeps its lists in Rust and writes what the console's lists show
//! in guest memory (the handlers' `next` words and the table at 0x440), but piney never calls
//! an IOP module's exception handler: an exception in guest code stops the run, naming it
//! (logged once when a handler is registered). secrman's card authentication and decryption
//! need the card and the console's keys, which piney does not have: they stop the run with an
//! error naming the function.

use super::{Iop, IopError, LibDef, Ret};

/// The console's exception table address.
pub const EXCEPTION_TABLE: u32 = 0x440;
/// The exception codes excepman keeps lists for.
const CODES: usize = 16;
/// excepman's data in the kernel's image: the table pointer variable (4 bytes, padded to 8) and
/// its default handler { next, info, `b .`, nop }.
pub const EXCEPMAN_DATA: u32 = 8 + 16;
/// KE_ILLEGAL_EXPCODE.
const ILLEGAL_EXPCODE: i32 = -50;
/// KE_EXPHANDLER_NOUSE.
const EXPHANDLER_NOUSE: i32 = -51;
/// KE_EXPHANDLER_USED.
const EXPHANDLER_USED: i32 = -52;

/// excepman's and secrman's state.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct BootState {
    /// Per exception code: the handlers (address, priority), in list order.
    pub handlers: Vec<Vec<(u32, u32)>>,
    /// The default handlers, newest first (the last is excepman's own).
    pub defaults: Vec<u32>,
    /// The table pointer variable (GetExHandlersTable's answer).
    pub table_var: u32,
    /// secrman's memory card command handler.
    pub mc_command: u32,
    /// secrman's memory card device id handler.
    pub mc_dev_id: u32,
}

/// The boot modules' start: excepman's table and default handler.
pub fn boot(iop: &mut Iop) {
    let Some(data) = iop.kernel.loadcore.image.data_of("Exception_Manager") else {
        return;
    };
    let own = data + 8;
    iop.bus.set_ram_u32(data, EXCEPTION_TABLE);
    iop.bus.set_ram_u32(own, 0);
    iop.bus.set_ram_u32(own.wrapping_add(4), 0);
    // b . ; nop
    iop.bus.set_ram_u32(own.wrapping_add(8), 0x1000_ffff);
    iop.bus.set_ram_u32(own.wrapping_add(12), 0);
    let st = &mut iop.kernel.boot;
    st.handlers = vec![Vec::new(); CODES];
    st.defaults = vec![own];
    st.table_var = data;
    update_table(iop);
}

/// Rewrite the handlers' `next` words and the table from the lists.
fn update_table(iop: &mut Iop) {
    let st = iop.kernel.boot.clone();
    let code_of = |h: u32| h.wrapping_add(8);
    let default = st.defaults.first().map_or(0, |&h| code_of(h));
    for (i, &h) in st.defaults.iter().enumerate() {
        let older = st.defaults.get(i + 1).map_or(0, |&o| code_of(o));
        iop.bus.set_ram_u32(h, older);
    }
    for (code, list) in st.handlers.iter().enumerate() {
        for (i, &(h, _)) in list.iter().enumerate() {
            let next = list.get(i + 1).map_or(default, |n| code_of(n.0));
            iop.bus.set_ram_u32(h, next);
        }
        let first = list.first().map_or(default, |f| code_of(f.0));
        iop.bus
            .set_ram_u32(EXCEPTION_TABLE.wrapping_add(4 * code as u32), first);
    }
}

fn v(x: i32) -> Result<Ret, IopError> {
    Ok(Ret::V(x as u32))
}

fn get_ex_handlers_table(iop: &mut Iop) -> Result<Ret, IopError> {
    Ok(Ret::V(iop.kernel.boot.table_var))
}

fn register_priority(iop: &mut Iop, code: u32, prio: u32, h: u32) -> Result<Ret, IopError> {
    if iop.bus.ram_u32(h) != 0 {
        return v(EXPHANDLER_USED);
    }
    if code as usize >= CODES || iop.kernel.boot.handlers.len() < CODES {
        return v(ILLEGAL_EXPCODE);
    }
    let prio = prio & 3;
    let list = &mut iop.kernel.boot.handlers[code as usize];
    let at = list
        .iter()
        .position(|&(_, p)| p >= prio)
        .unwrap_or(list.len());
    list.insert(at, (h, prio));
    iop.log_once(
        "excepman",
        "excepman: an exception handler was registered; piney does not call IOP exception handlers (an exception in a module's code stops the run)",
    );
    update_table(iop);
    v(0)
}

fn register_exception_handler(iop: &mut Iop) -> Result<Ret, IopError> {
    let (code, h) = (iop.arg(0), iop.arg(1));
    register_priority(iop, code, 2, h)
}

fn register_priority_exception_handler(iop: &mut Iop) -> Result<Ret, IopError> {
    let (code, prio, h) = (iop.arg(0), iop.arg(1), iop.arg(2));
    register_priority(iop, code, prio, h)
}

fn register_default_exception_handler(iop: &mut Iop) -> Result<Ret, IopError> {
    let h = iop.arg(0);
    if iop.bus.ram_u32(h) != 0 {
        return v(EXPHANDLER_USED);
    }
    iop.kernel.boot.defaults.insert(0, h);
    update_table(iop);
    v(0)
}

fn release_exception_handler(iop: &mut Iop) -> Result<Ret, IopError> {
    let (code, h) = (iop.arg(0), iop.arg(1));
    let Some(list) = iop.kernel.boot.handlers.get_mut(code as usize) else {
        return v(ILLEGAL_EXPCODE);
    };
    let Some(i) = list.iter().position(|&(x, _)| x == h) else {
        return v(EXPHANDLER_NOUSE);
    };
    list.remove(i);
    iop.bus.set_ram_u32(h, 0);
    update_table(iop);
    v(0)
}

fn release_default_exception_handler(iop: &mut Iop) -> Result<Ret, IopError> {
    let h = iop.arg(0);
    let Some(i) = iop.kernel.boot.defaults.iter().position(|&x| x == h) else {
        return v(EXPHANDLER_NOUSE);
    };
    iop.kernel.boot.defaults.remove(i);
    iop.bus.set_ram_u32(h, 0);
    update_table(iop);
    v(0)
}

/// excepman.
pub const EXCEPMAN: LibDef = LibDef {
    name: "excepman",
    version: 0x0101,
    funcs: &[
        (3, "GetExHandlersTable", get_ex_handlers_table),
        (4, "RegisterExceptionHandler", register_exception_handler),
        (
            5,
            "RegisterPriorityExceptionHandler",
            register_priority_exception_handler,
        ),
        (
            6,
            "RegisterDefaultExceptionHandler",
            register_default_exception_handler,
        ),
        (7, "ReleaseExceptionHandler", release_exception_handler),
        (
            8,
            "ReleaseDefaultExceptionHandler",
            release_default_exception_handler,
        ),
    ],
};

// ---- ssbusc ----

/// Per device: its delay register.
const DELAY: [u32; 13] = [
    0x1f80_1008,
    0x1f80_100c,
    0x1f80_1010,
    0,
    0x1f80_1014,
    0x1f80_1018,
    0,
    0,
    0x1f80_101c,
    0x1f80_1414,
    0x1f80_1418,
    0x1f80_141c,
    0x1f80_1420,
];
/// Per device: its base address register.
const BASE: [u32; 13] = [
    0x1f80_1000,
    0x1f80_1400,
    0,
    0,
    0x1f80_1404,
    0x1f80_1408,
    0,
    0,
    0x1f80_1004,
    0x1f80_140c,
    0,
    0x1f80_1410,
    0,
];
/// The common delay register.
const COMMON: u32 = 0x1f80_1020;

fn reg_of(table: &[u32; 13], device: u32) -> Option<u32> {
    table.get(device as usize).copied().filter(|&r| r != 0)
}

fn set_in(iop: &mut Iop, table: &[u32; 13]) -> Result<Ret, IopError> {
    let (d, val) = (iop.arg(0), iop.arg(1));
    match reg_of(table, d) {
        Some(r) => {
            iop.bus.hw.write(r, 4, val);
            Ok(Ret::V(val))
        }
        None => v(-1),
    }
}

fn get_in(iop: &mut Iop, table: &[u32; 13]) -> Result<Ret, IopError> {
    let d = iop.arg(0);
    match reg_of(table, d) {
        Some(r) => Ok(Ret::V(iop.bus.hw.read(r, 4).unwrap_or(0))),
        None => v(-1),
    }
}

fn set_delay(iop: &mut Iop) -> Result<Ret, IopError> {
    set_in(iop, &DELAY)
}
fn get_delay(iop: &mut Iop) -> Result<Ret, IopError> {
    get_in(iop, &DELAY)
}
fn set_base(iop: &mut Iop) -> Result<Ret, IopError> {
    set_in(iop, &BASE)
}
fn get_base(iop: &mut Iop) -> Result<Ret, IopError> {
    get_in(iop, &BASE)
}

/// Replace the 4-bit field at `shift` of the common delay register; the new register.
fn set_field(iop: &mut Iop, shift: u32) -> Result<Ret, IopError> {
    let val = iop.arg(0);
    let old = iop.bus.hw.read(COMMON, 4).unwrap_or(0);
    let new = (old & !(0xf << shift)) | ((val << shift) & (0xf << shift));
    iop.bus.hw.write(COMMON, 4, new);
    Ok(Ret::V(new))
}

fn get_field(iop: &mut Iop, shift: u32) -> Result<Ret, IopError> {
    Ok(Ret::V(
        (iop.bus.hw.read(COMMON, 4).unwrap_or(0) >> shift) & 0xf,
    ))
}

fn set_recovery(iop: &mut Iop) -> Result<Ret, IopError> {
    set_field(iop, 0)
}
fn get_recovery(iop: &mut Iop) -> Result<Ret, IopError> {
    get_field(iop, 0)
}
fn set_hold(iop: &mut Iop) -> Result<Ret, IopError> {
    set_field(iop, 4)
}
fn get_hold(iop: &mut Iop) -> Result<Ret, IopError> {
    get_field(iop, 4)
}
fn set_float(iop: &mut Iop) -> Result<Ret, IopError> {
    set_field(iop, 8)
}
fn get_float(iop: &mut Iop) -> Result<Ret, IopError> {
    get_field(iop, 8)
}
fn set_strobe(iop: &mut Iop) -> Result<Ret, IopError> {
    set_field(iop, 12)
}
fn get_strobe(iop: &mut Iop) -> Result<Ret, IopError> {
    get_field(iop, 12)
}

fn set_common(iop: &mut Iop) -> Result<Ret, IopError> {
    let val = iop.arg(0);
    iop.bus.hw.write(COMMON, 4, val);
    Ok(Ret::V(val))
}

fn get_common(iop: &mut Iop) -> Result<Ret, IopError> {
    Ok(Ret::V(iop.bus.hw.read(COMMON, 4).unwrap_or(0)))
}

/// ssbusc.
pub const SSBUSC: LibDef = LibDef {
    name: "ssbusc",
    version: 0x0101,
    funcs: &[
        (4, "SetDelay", set_delay),
        (5, "GetDelay", get_delay),
        (6, "SetBaseAddress", set_base),
        (7, "GetBaseAddress", get_base),
        (8, "SetRecoveryTime", set_recovery),
        (9, "GetRecoveryTime", get_recovery),
        (10, "SetHoldTime", set_hold),
        (11, "GetHoldTime", get_hold),
        (12, "SetFloatTime", set_float),
        (13, "GetFloatTime", get_float),
        (14, "SetStrobeTime", set_strobe),
        (15, "GetStrobeTime", get_strobe),
        (16, "SetCommonDelay", set_common),
        (17, "GetCommonDelay", get_common),
    ],
};

// ---- secrman ----

fn set_mc_command_handler(iop: &mut Iop) -> Result<Ret, IopError> {
    iop.kernel.boot.mc_command = iop.arg(0);
    v(0)
}

fn set_mc_dev_id_handler(iop: &mut Iop) -> Result<Ret, IopError> {
    iop.kernel.boot.mc_dev_id = iop.arg(0);
    v(0)
}

fn auth_card(iop: &mut Iop) -> Result<Ret, IopError> {
    if iop.kernel.boot.mc_command == 0 {
        // "mcCommand isn't assigned": not authenticated.
        return v(0);
    }
    needs_keys(iop, "SecrAuthCard")
}

/// A secrman function piney cannot answer: an error naming it.
fn needs_keys(iop: &mut Iop, name: &str) -> Result<Ret, IopError> {
    Err(iop.fault(format!(
        "call of secrman's {name}: it runs the memory card's or the drive's authentication with the console's keys, which piney does not have"
    )))
}

/// secrman functions that need the console's keys.
macro_rules! keyed {
    ($($f:ident, $name:literal);* $(;)?) => {
        $(fn $f(iop: &mut Iop) -> Result<Ret, IopError> {
            needs_keys(iop, $name)
        })*
    };
}

keyed!(
    reset_auth_card, "SecrResetAuthCard";
    card_boot_header, "SecrCardBootHeader";
    card_boot_block, "SecrCardBootBlock";
    card_boot_file, "SecrCardBootFile";
    disk_boot_header, "SecrDiskBootHeader";
    disk_boot_block, "SecrDiskBootBlock";
    disk_boot_file, "SecrDiskBootFile";
    download_header, "SecrDownloadHeader";
    download_block, "SecrDownloadBlock";
    download_file, "SecrDownloadFile";
    download_get_kbit, "SecrDownloadGetKbit";
    download_get_kc, "SecrDownloadGetKc";
    download_get_icvps2, "SecrDownloadGetICVPS2";
);

/// secrman.
pub const SECRMAN: LibDef = LibDef {
    name: "secrman",
    version: 0x0103,
    funcs: &[
        (4, "SecrSetMcCommandHandler", set_mc_command_handler),
        (5, "SecrSetMcDevIDHandler", set_mc_dev_id_handler),
        (6, "SecrAuthCard", auth_card),
        (7, "SecrResetAuthCard", reset_auth_card),
        (8, "SecrCardBootHeader", card_boot_header),
        (9, "SecrCardBootBlock", card_boot_block),
        (10, "SecrCardBootFile", card_boot_file),
        (11, "SecrDiskBootHeader", disk_boot_header),
        (12, "SecrDiskBootBlock", disk_boot_block),
        (13, "SecrDiskBootFile", disk_boot_file),
        (14, "SecrDownloadHeader", download_header),
        (15, "SecrDownloadBlock", download_block),
        (16, "SecrDownloadFile", download_file),
        (17, "SecrDownloadGetKbit", download_get_kbit),
        (18, "SecrDownloadGetKc", download_get_kc),
        (19, "SecrDownloadGetICVPS2", download_get_icvps2),
    ],
};

// ---- eesync ----

/// A standard entry that returns at once.
fn retonly(_: &mut Iop) -> Result<Ret, IopError> {
    v(0)
}

/// eesync.
pub const EESYNC: LibDef = LibDef {
    name: "eesync",
    version: 0x0101,
    funcs: &[
        (1, "_retonly", retonly),
        (2, "_retonly", retonly),
        (3, "_retonly", retonly),
        (4, "_retonly", retonly),
        (5, "_retonly", retonly),
    ],
};
