//! What generated code sees while a block runs ([`Ctx`]), and the helpers it calls.
//!
//! Generated code reads [`Ctx`]'s first fields directly (by `offset_of!`): the CPU state, the
//! RAM fast path and the code-page map. Everything else goes through the `extern "C"` helpers
//! here, which take `&mut Ctx` (a plain pointer in the C ABI). The one helper that runs guest
//! instructions, [`h_interp`], calls the interpreter's own `exec` from the opcode table, through a
//! [`TrackBus`] that notes device accesses and stores into compiled code.

use piney_ee::{Bus, BusFault, Cpu, Exception, OpInfo};

use crate::JitBus;
use crate::pages::{PageMap, fast_phys, phys, spr_offset};

/// A block's exit status (the generated function's return value, and [`h_interp`]'s).
pub(crate) mod status {
    /// Ran to its end (or the instruction completed): continue.
    pub const OK: u32 = 0;
    /// An exception was entered; it is in [`super::Ctx::exception`].
    pub const EXCEPTION: u32 = 1;
    /// A device was accessed, COP0 state changed or a VU start is pending: return to the machine
    /// loop after this instruction, so that it services it and re-checks interrupts and timed
    /// events.
    pub const STOP_RUN: u32 = 2;
    /// Compiled code was written: leave the block, drop the stale blocks, go on.
    pub const STOP_BLOCK: u32 = 3;
}

/// The state a block runs against. `repr(C)`: generated code reads its fields by offset.
#[repr(C)]
pub(crate) struct Ctx<'a> {
    /// The CPU state; generated code reads and writes its fields in place.
    pub cpu: &'a mut Cpu,
    /// Base of guest RAM (the fast path), physical address 0.
    pub ram: *mut u8,
    /// Bytes of guest RAM.
    pub ram_len: u64,
    /// The code-page map (one byte per [`crate::pages::PAGE_SHIFT`] page of physical space):
    /// non-zero where compiled code lives, so stores there take the slow path.
    pub pages: *const u8,
    /// Base of the scratchpad (the fast path for `0x7000_0000..0x7000_4000`).
    pub spr: *mut u8,
    /// Bytes of scratchpad (0: none; the bus serves those addresses).
    pub spr_len: u64,
    /// The cycle target of the run (a block loops back to its own start only while the whole
    /// block still fits before it).
    pub target: u64,
    /// The machine's bus.
    pub bus: &'a mut dyn JitBus,
    /// The page map itself (the slow path records stores into code here).
    pub map: &'a mut PageMap,
    /// The exception a block stopped on.
    pub exception: Option<Exception>,
}

/// Run one instruction with the interpreter's own function: the per-instruction fallback, and
/// the slow path of every native instruction (faults, devices, stores into code).
///
/// The caller (generated code) has written the state the interpreter's `step` would have set up
/// before `exec`: `cur_pc`, `in_delay_slot`, `delay_next`, `pc`, `next_pc` and `cycles` (with
/// this instruction's cost). Returns a [`status`].
// The pointers cross the C ABI as plain addresses; generated code never looks inside OpInfo.
#[allow(improper_ctypes_definitions)]
pub(crate) extern "C" fn h_interp(ctx: &mut Ctx<'_>, info: &'static OpInfo, word: u32) -> u32 {
    let before = ctx.cpu.cycles.wrapping_sub(info.cycles as u64);
    let mut tb = TrackBus {
        bus: &mut *ctx.bus,
        map: &mut *ctx.map,
        cycles: before,
        device: false,
        code: false,
    };
    match (info.exec)(ctx.cpu, &mut tb, word) {
        Ok(()) => {
            let (device, code) = (tb.device, tb.code);
            // An instruction that waited (a COP2 move with the I bit, for VU0) moved the cycle
            // count past its cost: the interpreter's loop looks at its target again after it.
            let waited = ctx.cpu.cycles != before.wrapping_add(info.cycles as u64);
            if device
                || waited
                || info.flags.contains(piney_ee::table::OpFlags::COP0)
                || crate::vu_start_pending(ctx.cpu)
            {
                status::STOP_RUN
            } else if code {
                status::STOP_BLOCK
            } else {
                status::OK
            }
        }
        Err(mut e) => {
            e.word = word;
            ctx.exception = Some(ctx.cpu.enter_exception(e));
            status::EXCEPTION
        }
    }
}

/// The bus as the interpreter sees it inside the recompiler: every access is forwarded; accesses
/// outside plain RAM are devices (the bus is told the cycle count first, and the run returns to
/// the machine after the instruction); stores into pages that hold compiled code are recorded
/// for invalidation.
pub(crate) struct TrackBus<'b> {
    /// The machine's bus.
    pub bus: &'b mut dyn JitBus,
    /// Code pages, and the invalidations to do.
    pub map: &'b mut PageMap,
    /// `cpu.cycles` before the instruction, as the machine loop sets its clock before a step.
    pub cycles: u64,
    /// A device (anything but plain RAM) was accessed.
    pub device: bool,
    /// Compiled code was written.
    pub code: bool,
}

impl TrackBus<'_> {
    #[inline]
    fn touch(&mut self, addr: u32) {
        let ram_len = self.bus.ram().len() as u64;
        let spr_len = self.bus.scratchpad().len() as u64;
        if fast_phys(addr, ram_len).is_none() && spr_offset(addr, spr_len).is_none() {
            self.device = true;
            self.bus.sync_cycles(self.cycles);
        }
    }
    #[inline]
    fn store(&mut self, addr: u32, len: u32) {
        self.touch(addr);
        if let Some(p) = phys(addr)
            && self.map.write(p, len)
        {
            self.code = true;
        }
    }
}

macro_rules! track {
    ($read:ident, $write:ident, $t:ty, $n:expr) => {
        fn $read(&mut self, addr: u32) -> Result<$t, BusFault> {
            self.touch(addr);
            self.bus.$read(addr)
        }
        fn $write(&mut self, addr: u32, value: $t) -> Result<(), BusFault> {
            self.store(addr, $n);
            self.bus.$write(addr, value)
        }
    };
}

impl Bus for TrackBus<'_> {
    track!(read8, write8, u8, 1);
    track!(read16, write16, u16, 2);
    track!(read32, write32, u32, 4);
    track!(read64, write64, u64, 8);
    track!(read128, write128, u128, 16);
    fn fetch(&mut self, addr: u32) -> Result<u32, BusFault> {
        self.bus.fetch(addr)
    }
}
