//! What generated code sees while blocks run ([`Ctx`]), the block lookup table it chains
//! through ([`Lookup`]), and the helpers it calls.
//!
//! Generated code reads and writes [`Ctx`]'s first fields directly (by `offset_of!`): the cycle
//! target and the counters. The CPU state is passed to every block as its second argument; RAM,
//! the scratchpad, the code-page map and the lookup table are addresses fixed when the block
//! was compiled ([`crate::compile::Env`]). Everything else goes through the `extern "C"`
//! helpers here. [`h_interp`] runs one guest instruction with the interpreter's own `exec` from
//! the opcode table (described by a [`Site`]) through a [`TrackBus`] that notes device accesses and stores into compiled
//! code; [`h_exec`] runs an instruction that only touches registers, with no bus at all.

use piney_ee::float::{self, FloatResult};
use piney_ee::interp::cop1;
use piney_ee::{Bus, BusFault, Cpu, Exception, OpInfo};

use crate::JitBus;
use crate::pages::{PageMap, fast_phys, phys, spr_offset};

/// A block's exit status (the generated function's return value, and [`h_interp`]'s).
pub(crate) mod status {
    /// Ran to its end (or the instruction completed), and the next block was not found in the
    /// lookup table: the dispatcher looks it up.
    pub const OK: u32 = 0;
    /// An exception was entered; it is in [`super::Ctx::exception`].
    pub const EXCEPTION: u32 = 1;
    /// A device was accessed, COP0 state changed or a VU start is pending: return to the machine
    /// loop after this instruction, so that it services it and re-checks interrupts and timed
    /// events.
    pub const STOP_RUN: u32 = 2;
    /// Compiled code was written: leave the block, drop the stale blocks, go on.
    pub const STOP_BLOCK: u32 = 3;
    /// The block did not start: not all of its instructions may start before the cycle target.
    /// Nothing changed; the dispatcher steps the interpreter instead.
    pub const BUDGET: u32 = 4;
    /// The block did not start: a register it keeps as a 32-bit value across its labels held
    /// a value that is not a sign-extended 32-bit one. Nothing changed; the dispatcher drops
    /// the block and compiles it again without that assumption.
    pub const ASSUMPTION: u32 = 5;
}

/// One chained exit in [`Ctx::counts`].
pub(crate) const CHAINED_ONE: u64 = 1 << 40;

/// The most cycles one call into compiled code may run ([`Ctx::target`] is at most this far
/// ahead): every instruction costs a cycle at least, so the instructions and chained exits of a
/// call stay below 2^23, within their fields of [`Ctx::counts`].
pub(crate) const MAX_CALL_CYCLES: u64 = 1 << 23;

/// The state blocks run against. `repr(C)`: generated code reads its first fields by offset.
#[repr(C)]
pub(crate) struct Ctx<'a> {
    /// The cycle target of the run: a block starts only when every instruction of it would
    /// start before it.
    pub target: u64,
    /// Guest instructions completed by compiled code (a faulting one counts, as an interpreter
    /// step does) below bit 40, and from there the block exits that went straight into the
    /// next block through the lookup table ([`CHAINED_ONE`] each): a chained exit adds both
    /// with one add, which is all the counting it does (a dispatcher call runs at most
    /// [`MAX_CALL_CYCLES`], so neither count reaches the other's bits).
    pub counts: u64,
    /// Passes of blocks looping on themselves beyond the first of each run (added only by
    /// blocks that loop: each other run is one pass).
    pub passes: u64,
    /// Blocks entered (from the dispatcher or by a chained exit) that did not start for want of
    /// budget ([`status::BUDGET`]).
    pub budget_stops: u64,
    /// The CPU state (generated code gets it as an argument too).
    pub cpu: &'a mut Cpu,
    /// The machine's bus.
    pub bus: &'a mut dyn JitBus,
    /// The page map itself (the slow path records stores into code here).
    pub map: &'a mut PageMap,
    /// Native loads and stores whose slow path reached the scratchpad (their blocks are
    /// compiled again with its fast path).
    pub spr_seen: &'a mut Vec<u32>,
    /// The exception a block stopped on.
    pub exception: Option<Exception>,
}

/// log2 of the entries in the lookup table.
pub(crate) const LOOKUP_BITS: u32 = 13;
/// Entries in the lookup table.
pub(crate) const LOOKUP_SIZE: usize = 1 << LOOKUP_BITS;
/// The multiplier of [`Lookup::index`] (2^32 over the golden ratio).
pub(crate) const LOOKUP_MUL: u32 = 0x9e37_79b9;

/// One lookup entry: a compiled block's start pc and its code. Generated code indexes the table
/// by [`Lookup::index`] and jumps to `code` when `pc` matches.
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct LookupEntry {
    /// The block's start pc (an empty entry holds a pc of another index, which never matches).
    pub pc: u32,
    /// Padding.
    pub _pad: u32,
    /// The block's entry.
    pub code: *const u8,
}

/// The direct-mapped table compiled blocks chain through: a block's exit looks its successor
/// up here and tail-calls it; a miss returns to the dispatcher, which fills the entry.
pub(crate) struct Lookup {
    entries: Box<[LookupEntry]>,
}

impl Lookup {
    pub fn new() -> Self {
        let entries = (0..LOOKUP_SIZE)
            .map(|i| LookupEntry {
                pc: Self::empty_pc(i),
                _pad: 0,
                code: std::ptr::null(),
            })
            .collect();
        Self { entries }
    }

    /// A pc that maps to another entry than `i` (so an empty entry never matches any pc).
    fn empty_pc(i: usize) -> u32 {
        if Self::index(0) != i { 0 } else { 4 }
    }

    /// The entry of `pc`: the top bits of `pc * LOOKUP_MUL` (a multiplicative hash, so that
    /// blocks at a regular stride, such as a long run of 64-instruction blocks, spread over the
    /// table). Generated code computes the same.
    #[inline]
    pub fn index(pc: u32) -> usize {
        (pc.wrapping_mul(LOOKUP_MUL) >> (32 - LOOKUP_BITS)) as usize
    }

    /// The table's address (fixed for its lifetime).
    pub fn base(&self) -> *const LookupEntry {
        self.entries.as_ptr()
    }

    /// Point `pc`'s entry at `code`.
    #[inline]
    pub fn set(&mut self, pc: u32, code: *const u8) {
        self.entries[Self::index(pc)] = LookupEntry { pc, _pad: 0, code };
    }

    /// Forget `pc` (if its entry holds it).
    pub fn remove(&mut self, pc: u32) {
        let i = Self::index(pc);
        if self.entries[i].pc == pc {
            self.entries[i] = LookupEntry {
                pc: Self::empty_pc(i),
                _pad: 0,
                code: std::ptr::null(),
            };
        }
    }

    /// Forget everything.
    pub fn clear(&mut self) {
        for (i, e) in self.entries.iter_mut().enumerate() {
            *e = LookupEntry {
                pc: Self::empty_pc(i),
                _pad: 0,
                code: std::ptr::null(),
            };
        }
    }
}

/// One instruction of a compiled block as its slow path sees it (built before the block's code,
/// which passes its address; kept as long as the code).
#[repr(C)]
pub(crate) struct Site {
    /// Its table entry.
    pub info: &'static OpInfo,
    /// Its word.
    pub word: u32,
    /// Its address.
    pub addr: u32,
    /// It sits in a delay slot.
    pub slot: bool,
}

/// Run one instruction with the interpreter's own function: the per-instruction fallback, and
/// the slow path of every native instruction (faults, devices, stores into code).
///
/// First it writes the state the interpreter's `step` sets up before `exec`: `cur_pc`,
/// `in_delay_slot`, `delay_next`, `pc` (the next instruction: `npc`, the branch's outcome, for a
/// delay slot), `next_pc`, and `cycles` (with this instruction's cost). Returns a [`status`].
// The pointers cross the C ABI as plain addresses; generated code never looks inside them.
#[allow(improper_ctypes_definitions)]
pub(crate) extern "C" fn h_interp(ctx: &mut Ctx<'_>, site: &Site, npc: u32, cycles: u64) -> u32 {
    interp_site(ctx, site, npc, cycles).0
}

/// [`h_interp`], and whether the instruction reached the scratchpad.
fn interp_site(ctx: &mut Ctx<'_>, site: &Site, npc: u32, cycles: u64) -> (u32, bool) {
    let cpu = &mut *ctx.cpu;
    cpu.cur_pc = site.addr;
    cpu.in_delay_slot = site.slot;
    cpu.delay_next = false;
    cpu.pc = if site.slot {
        npc
    } else {
        site.addr.wrapping_add(4)
    };
    cpu.next_pc = cpu.pc.wrapping_add(4);
    cpu.cycles = cycles;
    let info = site.info;
    let before = cycles.wrapping_sub(info.cycles as u64);
    let mut tb = TrackBus::new(&mut *ctx.bus, &mut *ctx.map, before);
    let r = (info.exec)(ctx.cpu, &mut tb, site.word);
    let spr = tb.spr;
    let status = match r {
        Ok(()) => {
            let (device, code) = (tb.device, tb.code);
            // An instruction that waited (a COP2 move with the I bit, for VU0) moved the cycle
            // count past its cost: the interpreter's loop looks at its target again after it.
            let waited = ctx.cpu.cycles != cycles;
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
            e.word = site.word;
            ctx.exception = Some(ctx.cpu.enter_exception(e));
            status::EXCEPTION
        }
    };
    (status, spr)
}

/// [`h_interp`] for a slow path that leaves the block whatever it returns: it first adds the
/// block's counts to the [`Ctx`] (`insns` instructions, this one included, and the passes of
/// its run beyond the first of `runs`), which the block would otherwise add itself before
/// returning. A native load or store compiled without the scratchpad's path that reached it is
/// noted in [`Ctx::spr_seen`].
#[allow(improper_ctypes_definitions)]
pub(crate) extern "C" fn h_interp_leave(
    ctx: &mut Ctx<'_>,
    site: &Site,
    npc: u32,
    cycles: u64,
    insns: u64,
    runs: u64,
) -> u32 {
    ctx.counts += insns;
    ctx.passes += runs.saturating_sub(1);
    let (status, spr) = interp_site(ctx, site, npc, cycles);
    if spr {
        ctx.spr_seen.push(site.addr);
    }
    status
}

/// COP1 arithmetic for native code, through the interpreter's own float functions: `(acc, fs,
/// ft)` to the result's bits in the low word and, in the high word, the FCR31 O/U cause and
/// sticky bits it sets ([`piney_ee::interp::cop1::ou_bits`], after the instruction cleared O
/// and U), exactly as the interpreter's ADD.S, MADD.S... write them.
fn float_op(r: FloatResult) -> u64 {
    r.bits as u64 | (cop1::ou_bits(r) as u64) << 32
}

/// ADD.S, ADDA.S (see [`float_op`]).
pub(crate) extern "C" fn h_fadd(_acc: u32, a: u32, b: u32) -> u64 {
    float_op(float::add(a, b))
}

/// SUB.S, SUBA.S.
pub(crate) extern "C" fn h_fsub(_acc: u32, a: u32, b: u32) -> u64 {
    float_op(float::sub(a, b))
}

/// MUL.S, MULA.S.
pub(crate) extern "C" fn h_fmul(_acc: u32, a: u32, b: u32) -> u64 {
    float_op(float::mul(a, b))
}

/// MADD.S, MADDA.S.
pub(crate) extern "C" fn h_fmadd(acc: u32, a: u32, b: u32) -> u64 {
    float_op(float::madd(acc, a, b))
}

/// MSUB.S, MSUBA.S.
pub(crate) extern "C" fn h_fmsub(acc: u32, a: u32, b: u32) -> u64 {
    float_op(float::msub(acc, a, b))
}

/// Run an instruction that only reads and writes registers (no memory, no pc, no cycle count,
/// nothing the machine must see) with the interpreter's own function, without the sequencing
/// state: 0 when it completed; 1 when it failed (an unusable coprocessor), in which case it
/// changed nothing (the interpreter's contract) and the caller runs it again through
/// [`h_interp`], which enters the exception.
#[allow(improper_ctypes_definitions)]
pub(crate) extern "C" fn h_exec(cpu: &mut Cpu, info: &'static OpInfo, word: u32) -> u32 {
    match (info.exec)(cpu, &mut NoBus, word) {
        Ok(()) => 0,
        Err(_) => 1,
    }
}

/// The bus of [`h_exec`]'s instructions, which never touch memory: every access faults.
pub(crate) struct NoBus;

impl Bus for NoBus {
    fn read8(&mut self, addr: u32) -> Result<u8, BusFault> {
        Err(BusFault { addr })
    }
    fn read16(&mut self, addr: u32) -> Result<u16, BusFault> {
        Err(BusFault { addr })
    }
    fn read32(&mut self, addr: u32) -> Result<u32, BusFault> {
        Err(BusFault { addr })
    }
    fn read64(&mut self, addr: u32) -> Result<u64, BusFault> {
        Err(BusFault { addr })
    }
    fn read128(&mut self, addr: u32) -> Result<u128, BusFault> {
        Err(BusFault { addr })
    }
    fn write8(&mut self, addr: u32, _: u8) -> Result<(), BusFault> {
        Err(BusFault { addr })
    }
    fn write16(&mut self, addr: u32, _: u16) -> Result<(), BusFault> {
        Err(BusFault { addr })
    }
    fn write32(&mut self, addr: u32, _: u32) -> Result<(), BusFault> {
        Err(BusFault { addr })
    }
    fn write64(&mut self, addr: u32, _: u64) -> Result<(), BusFault> {
        Err(BusFault { addr })
    }
    fn write128(&mut self, addr: u32, _: u128) -> Result<(), BusFault> {
        Err(BusFault { addr })
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
    /// Bytes of RAM the bus lends ([`JitBus::ram`]).
    pub ram_len: u64,
    /// Bytes of scratchpad the bus lends ([`JitBus::scratchpad`]).
    pub spr_len: u64,
    /// `cpu.cycles` before the instruction, as the machine loop sets its clock before a step.
    pub cycles: u64,
    /// A device (anything but plain RAM) was accessed.
    pub device: bool,
    /// Compiled code was written.
    pub code: bool,
    /// The first word fetched through this bus (the instruction of the step it serves).
    pub fetched: Option<u32>,
    /// The scratchpad was accessed.
    pub spr: bool,
}

impl<'b> TrackBus<'b> {
    /// A tracking bus over `bus` for the code pages of `map`, its clock at `cycles`, nothing
    /// touched yet.
    pub fn new(bus: &'b mut dyn JitBus, map: &'b mut PageMap, cycles: u64) -> Self {
        Self {
            bus,
            ram_len: map.ram_len,
            spr_len: map.spr_len,
            map,
            cycles,
            device: false,
            code: false,
            fetched: None,
            spr: false,
        }
    }

    #[inline]
    fn touch(&mut self, addr: u32) {
        if fast_phys(addr, self.ram_len).is_none() {
            if spr_offset(addr, self.spr_len).is_some() {
                self.spr = true;
            } else {
                self.device = true;
                self.bus.sync_cycles(self.cycles);
            }
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
        let w = self.bus.fetch(addr)?;
        if self.fetched.is_none() {
            self.fetched = Some(w);
        }
        Ok(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_entry_matches_no_pc() {
        // The two pcs empty entries hold map elsewhere than the entries holding them.
        assert_ne!(Lookup::index(0), Lookup::index(4));
        let l = Lookup::new();
        for (i, e) in l.entries.iter().enumerate() {
            assert_ne!(Lookup::index(e.pc), i);
        }
    }
}
