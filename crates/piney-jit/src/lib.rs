//! The EE recompiler: guest blocks to host code through Cranelift, checked against the
//! interpreter.
//!
//! Contract:
//! - [`Jit::run`]`(cpu, bus, target)` runs guest code until `cpu.cycles >= target`, an exception
//!   (returned as `Err`, already entered architecturally, as [`piney_ee::interp::step`] does), or
//!   an early stop (`Ok` with `cycles < target`, see below). Whatever it ran, the state (every
//!   register, HI/LO, SA, FPU, VU0, COP0, `pc`/`next_pc`/`cur_pc`/delay-slot flags, `cycles`,
//!   memory) is exactly what the same instructions leave under the interpreter: the interpreter
//!   is the reference, and `tests/differential.rs` compares the two on random programs.
//! - Blocks end at a jump (JAL, JR, JALR) and its delay slot, at SYSCALL/BREAK/COP0/reserved
//!   instructions, before a hooked pc, or after 64 instructions; past a conditional branch and
//!   its slot a block goes on with the fall-through path (a superblock; the taken path leaves),
//!   and past a J or an unconditional B at its target (a trace) when that is not in the block
//!   yet (else the block ends there, looping on itself when it jumps to its start). A block
//!   that took in the head of a loop (a later branch of it goes back there) ends before that
//!   head, so every loop is a block of its own, looping on itself. Each
//!   instruction is compiled natively (ALU, shifts, immediates, LUI, HI/LO, MULT/DIV, SA
//!   moves, branches and jumps, loads and stores of every width including
//!   LWL/LWR/LDL/LDR/SWL/SWR/SDL/SDR through a RAM fast path (one mask test; with RAM mapped
//!   at all four segments, [`JitBus::ram_mirrored`], the address is then added to RAM's base as
//!   it is), and a scratchpad one for each
//!   load and store seen reaching the scratchpad (a block compiled before its instruction did
//!   takes the slow path there once, is dropped and compiled again with it), some MMI, COP1
//!   and COP2 moves, the COP1 add, subtract, multiply and multiply-accumulate forms (native
//!   operands, result and FCR31 flags around a call of the interpreter's own float function:
//!   the PS2's adder and multiplier, bit for bit), C.F/EQ/LT/LE.S and BC1F/T(L); see
//!   [`native_mnemonics`]), or runs the
//!   interpreter's own `exec` from the opcode table: directly when it only touches registers
//!   (the other FPU and the VU0 macro arithmetic, most MMI), else with the sequencing state
//!   written first. Native instructions hand every unusual case (overflow, misalignment,
//!   device addresses, stores into compiled code, unusable coprocessor) to that same fallback.
//!   GPRs, LO and HI live in host registers within a block and are written back before the
//!   interpreter's code runs (only around instructions that name them) and at exits; a block
//!   whose branch returns to its own start loops without leaving while the budget allows.
//!   A value known to be a sign-extended 32-bit one (written by a 32-bit operation) is kept in
//!   32 bits, and bitwise operations and comparisons on two such values stay 32-bit. Around a
//!   loop, the registers it carries into bitwise operations are kept that way too, checked at
//!   the block's entry: a block entered with a wider value there does not start, and is
//!   compiled again without keeping them (the state is the interpreter's either way).
//! - Blocks chain: a block's exit looks the next pc up in a direct-mapped table and tail-calls
//!   that block when it is compiled (it checks the budget itself), carrying the cycle count in
//!   a register; the dispatcher runs only on a miss, a stop, an exception or the budget's end.
//! - A block is compiled once [`HOT_INSTRUCTIONS`] of its instructions ran interpreted, so
//!   code that runs once or a few times (start-up, a jump into data) costs no compilation. With
//!   [`Jit::set_background_compile`] (the machine's setting) Cranelift's work runs on a thread of
//!   its own: a hot block is interpreted until its code arrives, then runs compiled (see the
//!   `worker` module; where that happens depends on the host, the state does not; a block whose
//!   request still waits behind another while the thread is busy is compiled on the EE's thread
//!   instead, at its next visit). While that thread has nothing to do, it compiles ahead the
//!   blocks that hot ones exit to (a loop's way out, the code after a call; a few steps deep,
//!   the nearest and latest first, two per hot block and some more: the `ahead` module), so
//!   that code often finds its next block compiled at its first run. The thread runs below the
//!   emulation's threads (nice 10 on Linux): where cores are short it yields to the EE and the
//!   software GS. Cold and
//!   pending blocks are interpreted from their decoded words (no fetch, no decode), each
//!   checked against RAM or on a page watched for writes, a visit following the pc through the
//!   block's own instructions (around its loop, through its branches) with no dispatcher turn
//!   between them. A
//!   block of zero words (NOPs) is never compiled: the dispatcher passes over it. Where a budget
//!   ends in the middle of a block, the next run interprets up to the next block start instead
//!   of compiling a block from there (so the same code is not compiled from every pc a budget
//!   happens to cut).
//! - Cycle accounting is the interpreter's (the sum of the table's costs). A block is cut into
//!   segments after each conditional branch's delay slot where it goes on; a segment only runs
//!   when the budget lets every instruction of it start (`cycles` before each is `< target`),
//!   checked where it begins; otherwise the block leaves there and the interpreter steps the rest
//!   of the budget, so `run` stops exactly where an interpreter loop `while cycles < target {
//!   step }` stops.
//! - Granularity for the machine: `run` returns early, right after the instruction, when an
//!   instruction accessed anything but plain RAM (a device: before the access the bus is told the
//!   cycle count, [`JitBus::sync_cycles`]) or executed a COP0 instruction (EI, DI, MTC0, ERET...).
//!   So interrupts can only become pending between `run` calls, except through COP0 Count
//!   reaching Compare: the machine checks interrupts and timed events before each `run` and passes
//!   a `target` no later than its next event and than [`cop0_timer_due`].
//! - Code invalidation: stores the core makes into pages that hold compiled code are caught
//!   (native stores test a page map and take the slow path there) and drop the blocks they
//!   overlap, also within the running block (it stops after the store). Writes the core does not
//!   make (DMA, the ELF loader, the HLE kernel, overlay loads) must be reported with
//!   [`Jit::invalidate_range`]; FlushCache should call [`Jit::invalidate_all`].
//! - Hooks: [`Jit::run_hooked`] takes the machine's [`HookSet`] (guest addresses where a native
//!   function stands for guest code). It never executes a hooked instruction that is not a delay
//!   slot except the one it was called at (the machine offers that one to its hook before the
//!   call; if the hook declined, that instruction is interpreted, never the start of a block):
//!   reaching any other hooked pc, whether by a jump, a call, a return, a branch or falling
//!   through, ends the run (`Ok`) before it. Blocks end before a hooked instruction, and a change
//!   of the set ([`HookSet::generation`]) drops every block.
//! - VU starts: an instruction that leaves a VU0 microprogram call, a VU1 start or a VU reset
//!   pending (VCALLMS, VCALLMSR, CTC2 to CMSAR1 or FBRST) ends the run after it, so that the
//!   machine services it right after that instruction, as after an interpreter step. So does a
//!   COP2 move with the I bit that waited for VU0 (the interlock moves the cycle count on; those
//!   forms always run through the interpreter's code).
//! - Kill switches ([`KillSwitches`]) force the fallback per category to bisect a bug.
//! - For the recompiler's own developers, two environment variables: `PINEY_JIT_DUMP=<pc in
//!   hex>` prints the IR and machine code of the block starting there; `PINEY_PERF_MAP=1`
//!   writes every block's host code range to `/tmp/perf-<pid>.map` (as `ee_<pc>`), where Linux
//!   `perf report` finds names for code that has no file.
//! - The only `unsafe` is in the private `native` module (calling the code Cranelift produced),
//!   `code_memory` (the pages it is written into) and the compile thread's one call lowering
//!   its priority (`worker`).

mod ahead;
mod code_memory;
mod compile;
mod ctx;
mod native;
mod pages;
mod worker;

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::rc::Rc;

use piney_ee::bus::FlatBus;
use piney_ee::table::{Op, OpFlags};
use piney_ee::{Bus, Cpu, Exception, OpInfo, decode};

use crate::compile::{Compiler, Env, scan};
use crate::ctx::{Ctx, Lookup, TrackBus, status};
use crate::native::{BlockCode, Trampoline};
use crate::pages::{PageMap, fast_phys, phys};
use crate::worker::{Poll, Request, Worker};

/// A bus the recompiler can run against: the core's [`Bus`] plus direct access to guest RAM.
pub trait JitBus: Bus {
    /// Guest RAM for the fast path: byte `p` of the slice is physical address `p`. Plain memory
    /// with no side effects; it must not move or change length during a [`Jit::run`]. Virtual
    /// addresses in `0x0000_0000..0x4000_0000` and `0x8000_0000..0xc000_0000` whose
    /// `addr & 0x1fff_ffff` falls in it are read and written here directly (the PS2 kernel's map;
    /// the uncached mirror `0x2000_0000` included). An empty slice turns the fast path off.
    fn ram(&mut self) -> &mut [u8];
    /// Whether every byte `p` of [`JitBus::ram`] also shows at `ram().as_ptr() + m + p` for each
    /// `m` of `0x2000_0000`, `0x8000_0000` and `0xa000_0000` (a mirrored `piney_ram::GuestRam`):
    /// compiled code then adds a RAM address that passed its test to that base as it is,
    /// without masking the segment off. False (the default): it masks.
    fn ram_mirrored(&mut self) -> bool {
        false
    }
    /// The scratchpad for the fast path: byte `o` is virtual address `0x7000_0000 + o` (up to
    /// `0x7000_4000`), plain memory like [`JitBus::ram`]. Empty (the default): the bus serves
    /// those addresses as a device.
    fn scratchpad(&mut self) -> &mut [u8] {
        &mut []
    }
    /// Called before an instruction accesses a device (anything outside [`JitBus::ram`]) with
    /// `cpu.cycles` as it was before that instruction, the time the machine loop gives the bus
    /// before an interpreter step.
    fn sync_cycles(&mut self, _cycles: u64) {}
}

impl JitBus for FlatBus {
    fn ram(&mut self) -> &mut [u8] {
        &mut self.mem
    }
}

/// Guest addresses where the machine runs a native function instead of guest code (hooks), as
/// [`Jit::run_hooked`] sees them.
pub trait HookSet {
    /// Whether any address is hooked now; when false, [`HookSet::is_hooked`] is not asked.
    fn active(&self) -> bool;
    /// Whether the machine must take over when execution reaches `pc` (not as a delay slot).
    fn is_hooked(&self, pc: u32) -> bool;
    /// A number that changes whenever the answer of [`HookSet::is_hooked`] may change for some
    /// address (a hook installed or removed, hooks turned on or off).
    fn generation(&self) -> u64;
}

/// No hooks at all ([`Jit::run`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoHooks;

impl HookSet for NoHooks {
    fn active(&self) -> bool {
        false
    }
    fn is_hooked(&self, _pc: u32) -> bool {
        false
    }
    fn generation(&self) -> u64 {
        0
    }
}

/// The kill switches: a set category always uses the interpreter fallback.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KillSwitches {
    /// Loads and stores (every instruction that reads or writes memory).
    pub load_store: bool,
    /// COP1 (FPU) instructions.
    pub fpu: bool,
    /// MMI (128-bit multimedia) instructions.
    pub mmi: bool,
    /// COP2 (VU0 macro) instructions.
    pub cop2: bool,
    /// Branches and jumps.
    pub branches: bool,
}

impl KillSwitches {
    /// Every category killed: the recompiler only strings fallbacks together.
    pub const ALL: KillSwitches = KillSwitches {
        load_store: true,
        fpu: true,
        mmi: true,
        cop2: true,
        branches: true,
    };

    /// Whether an instruction must use the fallback.
    pub fn kills(&self, info: &OpInfo) -> bool {
        let f = info.flags;
        (self.load_store && f.intersects(OpFlags::LOAD | OpFlags::STORE))
            || (self.fpu && f.contains(OpFlags::COP1))
            || (self.mmi && f.contains(OpFlags::MMI))
            || (self.cop2 && f.contains(OpFlags::COP2))
            || (self.branches && f.contains(OpFlags::BRANCH))
    }
}

/// Instruction categories, for statistics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Category {
    /// Integer ALU, shifts, immediates, HI/LO, SA.
    Integer,
    /// Loads and stores of the integer unit.
    LoadStore,
    /// Branches and jumps.
    Branch,
    /// MMI.
    Mmi,
    /// COP1.
    Fpu,
    /// COP2.
    Cop2,
}

impl Category {
    /// Number of categories.
    pub const COUNT: usize = 6;
    /// All, in index order.
    pub const ALL: [Category; 6] = [
        Category::Integer,
        Category::LoadStore,
        Category::Branch,
        Category::Mmi,
        Category::Fpu,
        Category::Cop2,
    ];
    /// Index into [`JitStats::native`].
    pub fn index(self) -> usize {
        self as usize
    }
    /// The category of an instruction (COP2, then COP1, MMI, load/store, branch, integer).
    pub fn of(info: &OpInfo) -> Category {
        compile::category(info)
    }
}

/// The instructions the recompiler compiles natively (everything else uses the fallback).
pub fn native_ops() -> &'static [Op] {
    compile::NATIVE
}

/// Their mnemonics.
pub fn native_mnemonics() -> Vec<&'static str> {
    compile::NATIVE.iter().map(|o| o.mnemonic()).collect()
}

/// Counters (not architectural state).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JitStats {
    /// Blocks compiled.
    pub blocks_compiled: u64,
    /// Blocks dropped because their code was written or invalidated.
    pub blocks_invalidated: u64,
    /// Instructions compiled natively, by [`Category::index`].
    pub native: [u64; Category::COUNT],
    /// Instructions compiled as fallbacks.
    pub fallback: u64,
    /// Block executions (a block looping on itself counts each pass): each was entered from the
    /// dispatcher, by a chained exit of another block, or by its own branch back to its start
    /// ([`JitStats::loop_passes`]).
    pub block_runs: u64,
    /// Block exits that went straight into the next compiled block (no dispatcher): direct and
    /// indirect jumps, returns, branches taken and fall-throughs alike.
    pub chained: u64,
    /// Calls from the dispatcher into compiled code: each chain of blocks ends with one return
    /// to the dispatcher, so `chained / (chained + dispatched)` is the share of block exits
    /// that chained.
    pub dispatched: u64,
    /// Block runs that began by the block's branch back to its own start (a loop kept inside
    /// the block: no exit at all).
    pub loop_passes: u64,
    /// Guest instructions executed, compiled and interpreted (and those of poll loop passes
    /// the machine moved over: [`Jit::count_moved_over`]).
    pub instructions: u64,
    /// Passes of poll loops the machine moved over instead of running them (their state is
    /// the same; see piney-machine's `pollskip`).
    pub poll_passes: u64,
    /// Zero words (NOPs) the dispatcher passed over without compiling them.
    pub nop_runs: u64,
    /// Instructions in the blocks compiled.
    pub compiled_instructions: u64,
    /// Host time spent compiling (a statistic; never seen by the emulated machine).
    pub compile_time: std::time::Duration,
    /// Instructions run by the interpreter directly (delay slots entered from outside a block,
    /// the tail of a cycle budget, code that cannot be compiled).
    pub interp_steps: u64,
    /// Blocks that did not start because a register they keep as a 32-bit value across their
    /// labels held a wider one (each is compiled again without that).
    pub assumption_misses: u64,
    /// Of `blocks_compiled`, those compiled on the compile thread (see
    /// [`Jit::set_background_compile`]).
    pub compiled_in_background: u64,
    /// Blocks compiled on the compile thread and thrown away on arrival: their code changed,
    /// or every block was dropped, while they compiled.
    pub compiles_dropped: u64,
    /// Blocks compiled on the EE's thread after all, their requests taken back from the compile
    /// thread's queue while it compiled another (see [`Jit::run_hooked`]).
    pub compiled_taken_back: u64,
    /// Blocks requested from the compile thread before they ran hot, as the exits of hot
    /// blocks (see the `ahead` module).
    pub compiled_ahead: u64,
    /// The last code generation error (a recompiler bug; the code was interpreted instead).
    pub last_error: Option<String>,
}

/// Why the recompiler could not be set up or compile a block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JitError {
    /// The host or Cranelift's settings.
    Setup(String),
    /// Code generation for a block.
    Compile(String),
}

impl std::fmt::Display for JitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JitError::Setup(s) => write!(f, "recompiler setup: {s}"),
            JitError::Compile(s) => write!(f, "recompiler: {s}"),
        }
    }
}

impl std::error::Error for JitError {}

/// A block table entry.
enum Entry {
    /// Compiled code, from the physical ranges (start, bytes) of its instructions (more than
    /// one when the block goes on through a jump: a trace).
    Block {
        code: BlockCode,
        ranges: Box<[(u32, u32)]>,
    },
    /// The instruction at this PC cannot start a block (or its block failed to compile):
    /// interpret it. Remembered, so that it is not tried again.
    Interpret { phys: u32 },
    /// A block of `len` zero words (NOPs): nothing to compile; the dispatcher moves the pc and
    /// the cycle count over it (a jump into a long run of zero words costs no compilation).
    Nops { phys: u32, len: u32 },
    /// A block on the compile thread, request `ticket`: interpreted until its code arrives. Its pages are tracked as a compiled block's, so that a write into its
    /// code while it compiles drops it (and the code, when it comes).
    Pending {
        ticket: u64,
        /// The block's instructions (address, word, table entry): what its visits interpret
        /// meanwhile, with no fetch and no decode (its pages are watched: a write there drops
        /// the entry).
        words: Words,
        ranges: Box<[(u32, u32)]>,
    },
}

impl Entry {
    /// The physical ranges (start, bytes) the entry stands for.
    fn ranges(&self) -> Vec<(u32, u32)> {
        match self {
            Entry::Block { ranges, .. } | Entry::Pending { ranges, .. } => ranges.to_vec(),
            &Entry::Interpret { phys } => vec![(phys, 4)],
            &Entry::Nops { phys, len } => vec![(phys, 4 * len)],
        }
    }

    /// Whether the entry overlaps the physical bytes `p..end`.
    fn overlaps(&self, p: u64, end: u64) -> bool {
        self.ranges()
            .iter()
            .any(|&(s, l)| (s as u64) < end && p < s as u64 + l as u64)
    }
}

/// A hasher for PCs (word-aligned 32-bit keys): one multiply.
#[derive(Default)]
struct PcHasher(u64);

impl Hasher for PcHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }
    fn write_u32(&mut self, v: u32) {
        self.0 = (v as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 16;
    }
    fn write_usize(&mut self, v: usize) {
        self.0 = (v as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 16;
    }
}

type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<PcHasher>>;
type FastSet<K> = HashSet<K, BuildHasherDefault<PcHasher>>;

/// The recompiler: a block cache keyed by PC, its code, the lookup table compiled blocks chain
/// through, and the code-page map.
pub struct Jit {
    compiler: Compiler,
    trampoline: Trampoline,
    blocks: FastMap<u32, Entry>,
    /// Block start PCs by code page.
    page_blocks: FastMap<usize, Vec<u32>>,
    map: PageMap,
    lookup: Lookup,
    /// Where the compiled blocks find guest memory (`None` before the first run).
    env: Option<Env>,
    kill: KillSwitches,
    stats: JitStats,
    /// The [`HookSet::generation`] the blocks were compiled for.
    hook_generation: u64,
    /// Instructions interpreted from block starts not compiled yet: a block is compiled once
    /// `hot` of them ran, interpreted before that.
    visits: FastMap<u32, u32>,
    /// See `visits` ([`HOT_INSTRUCTIONS`] unless set).
    hot: u32,
    /// The instructions of the block (address, word, table entry) at each pc in `visits`, which
    /// its cold visits interpret with no decode (read at the first visit, forgotten when every
    /// block is dropped; hooks, where `scan` stops, change only with that). Cold pages are not
    /// watched: each word is compared with RAM before it runs, and one gone stale (cold code
    /// rewritten) is fetched and decoded as usual. (Watching
    /// them, or forgetting them at every reported write, DMA into any RAM included, rescanned
    /// them all the time: 0.6% of the demo's time.)
    cold: FastMap<u32, Words>,
    /// Where the last run stopped because its budget ended (see [`Jit::run_hooked`]).
    resume_pc: Option<u32>,
    /// Loads and stores (by pc) seen reaching the scratchpad: only these get its fast path
    /// when compiled. Kept across invalidations (a FlushCache or an overlay load rarely
    /// changes what an address's instruction touches; one that did costs only a second path).
    spr_sites: FastSet<u32>,
    /// Blocks (by start pc) that entered with a register they keep as a 32-bit value across
    /// their labels holding a wider value: compiled without that from then on (kept across
    /// invalidations, as `spr_sites`).
    wide_at_labels: FastSet<u32>,
    /// The compile thread, when blocks compile in the background
    /// ([`Jit::set_background_compile`]).
    worker: Option<Worker>,
    /// The next compile request's ticket.
    next_ticket: u64,
    /// Blocks to compile ahead of their first run while the compile thread is idle (see the
    /// `ahead` module).
    ahead: ahead::Ahead,
}

/// A block is compiled once this many instructions ran interpreted from its start (its
/// visits times its length, about). Compiling a block costs about a millisecond here, as much as
/// interpreting some tens of thousands of instructions: code that runs once or a few times
/// (start-up, a frame's set-up, a jump into data) is cheaper interpreted, and a loop is native
/// after its first few hundred iterations. Chosen by measurement (tools/bench-compute.sh and
/// tools/bench-demo.sh: 8192 against 1024 and 32 visits, fewer blocks compiled for the same
/// speed once hot).
pub const HOT_INSTRUCTIONS: u32 = 8192;

impl Jit {
    /// A recompiler for the host, every category native.
    pub fn new() -> Result<Self, JitError> {
        Self::with_kill_switches(KillSwitches::default())
    }

    /// A recompiler with these categories forced to the fallback.
    pub fn with_kill_switches(kill: KillSwitches) -> Result<Self, JitError> {
        let compiler = Compiler::new()?;
        Ok(Self {
            trampoline: compiler.trampoline(),
            compiler,
            blocks: FastMap::default(),
            page_blocks: FastMap::default(),
            map: PageMap::new(),
            lookup: Lookup::new(),
            env: None,
            kill,
            stats: JitStats::default(),
            hook_generation: 0,
            visits: FastMap::default(),
            hot: HOT_INSTRUCTIONS,
            cold: FastMap::default(),
            resume_pc: None,
            spr_sites: FastSet::default(),
            wide_at_labels: FastSet::default(),
            worker: None,
            next_ticket: 1,
            ahead: ahead::Ahead::default(),
        })
    }

    /// Compile hot blocks on a thread of their own (`true`) instead of on the caller's, which
    /// then interprets a hot block until its code is ready instead of waiting for it (see the
    /// `worker` module: the emulated machine is the same either way, only faster). Off at
    /// first; turning it off waits for the blocks on the way and places them.
    pub fn set_background_compile(&mut self, on: bool) -> Result<(), JitError> {
        if on && self.worker.is_none() {
            self.worker = Some(Worker::start(self.compiler.codegen())?);
        } else if !on && self.worker.is_some() {
            self.finish_compiles();
            self.worker = None;
        }
        Ok(())
    }

    /// Whether blocks compile on the compile thread.
    pub fn background_compile(&self) -> bool {
        self.worker.is_some()
    }

    /// Wait for every block on the compile thread and place it (each runs compiled from its
    /// next visit). For tests and measurements that want every hot block compiled now.
    pub fn finish_compiles(&mut self) {
        self.take_compiled(true);
    }

    /// The compile thread died (a code generator panic): blocks compile on this thread from now
    /// on, and those it had go back to being hot, compiled at their next visit.
    fn worker_gone(&mut self) {
        self.worker = None;
        let pending: Vec<u32> = self
            .blocks
            .iter()
            .filter(|(_, e)| matches!(e, Entry::Pending { .. }))
            .map(|(&pc, _)| pc)
            .collect();
        for pc in pending {
            self.remove(pc);
            self.visits.insert(pc, self.hot);
        }
        self.stats.last_error = Some("the compile thread stopped".into());
    }

    /// Place the blocks the compile thread finished (all those on the way when `wait`).
    fn take_compiled(&mut self, wait: bool) {
        loop {
            let Some(w) = &mut self.worker else { return };
            let d = match w.poll(wait) {
                Poll::Done(d) => d,
                Poll::Empty => return,
                Poll::Gone => {
                    self.worker_gone();
                    return;
                }
            };
            let waiting = matches!(self.blocks.get(&d.pc),
                Some(&Entry::Pending { ticket, .. }) if ticket == d.ticket);
            if !waiting {
                self.stats.compiles_dropped += 1;
                continue;
            }
            let r = d.result.and_then(|g| self.compiler.install(g));
            if r.is_ok() {
                self.stats.compiled_in_background += 1;
            }
            self.settle(d.pc, r);
        }
    }

    /// Enter the pending block at `pc` as its compile `r` came out: its code, or interpreted
    /// from now on when it failed to compile.
    fn settle(&mut self, pc: u32, r: Result<compile::Compiled, JitError>) {
        let Some(Entry::Pending { ranges, .. }) = self.blocks.remove(&pc) else {
            unreachable!("a block settles from its pending entry");
        };
        let entry = match r {
            Ok(c) => {
                self.count_compiled(&c);
                self.lookup.set(pc, c.code.0);
                Entry::Block {
                    code: c.code,
                    ranges,
                }
            }
            Err(e) => {
                // Interpreted from now on, as a block that failed to compile here.
                self.stats.last_error = Some(e.to_string());
                self.untrack(pc, &ranges);
                Entry::Interpret {
                    phys: phys(pc).expect("a compiled block's start has a physical address"),
                }
            }
        };
        self.enter(pc, entry);
    }

    /// Compile the pending block at `pc` on this thread when its request still waits behind
    /// another on the compile thread (see [`Worker::take_back`]); whether it did.
    fn take_back(&mut self, pc: u32, ticket: u64) -> bool {
        let Some(r) = self.worker.as_mut().and_then(|w| w.take_back(ticket)) else {
            return false;
        };
        let c = self.compiler.compile(&r.source);
        if c.is_ok() {
            self.stats.compiled_taken_back += 1;
        }
        self.settle(pc, c);
        true
    }

    /// Compile a block once `n` of its instructions ran interpreted (0: at its first visit,
    /// before it runs, on the caller's thread even with the compile thread on: for tests of the
    /// generated code).
    pub fn set_hot_threshold(&mut self, n: u32) {
        self.hot = n;
    }

    /// The kill switches.
    pub fn kill_switches(&self) -> KillSwitches {
        self.kill
    }

    /// Forget what was learned about the instructions at each pc (loads and stores that reached
    /// the scratchpad, loops that met a 64-bit value) and drop every block: for another program
    /// at the same addresses, which then compiles as if it were the first.
    pub fn forget_learned(&mut self) {
        self.spr_sites.clear();
        self.wide_at_labels.clear();
        self.invalidate_all();
    }

    /// Change the kill switches (drops every compiled block).
    pub fn set_kill_switches(&mut self, kill: KillSwitches) {
        self.kill = kill;
        self.invalidate_all();
    }

    /// The counters.
    pub fn stats(&self) -> &JitStats {
        &self.stats
    }

    /// The machine moved the clock over `passes` passes of a poll loop, `instructions` guest
    /// instructions in all, as if they had run here.
    pub fn count_moved_over(&mut self, passes: u64, instructions: u64) {
        self.stats.poll_passes += passes;
        self.stats.instructions += instructions;
    }

    /// Run until `cpu.cycles >= target`, an exception (`Err`, entered as the interpreter enters
    /// it) or an early stop after a device access or a COP0 instruction (`Ok`), with no hooks.
    /// See the crate doc.
    pub fn run(
        &mut self,
        cpu: &mut Cpu,
        bus: &mut dyn JitBus,
        target: u64,
    ) -> Result<(), Exception> {
        self.run_hooked(cpu, bus, target, &NoHooks)
    }

    /// [`Jit::run`], also stopping before any hooked pc but the one it starts at (which the
    /// caller has offered to its hook already: if the run starts there, that instruction is
    /// interpreted). See the crate doc.
    pub fn run_hooked(
        &mut self,
        cpu: &mut Cpu,
        bus: &mut dyn JitBus,
        target: u64,
        hooks: &dyn HookSet,
    ) -> Result<(), Exception> {
        let generation = hooks.generation();
        if generation != self.hook_generation {
            // Blocks compiled for other hooks may run through a newly hooked address.
            self.invalidate_all();
            self.hook_generation = generation;
        }
        // Blocks address RAM and the scratchpad where the bus keeps them: when those move (a
        // new bus), every block goes.
        let mirrored = bus.ram_mirrored();
        let ram = bus.ram();
        let (ram_ptr, ram_len) = (ram.as_mut_ptr(), ram.len() as u64);
        let spr = bus.scratchpad();
        let (spr_ptr, spr_len) = (spr.as_mut_ptr(), spr.len().min(0x4000) as u64);
        let env = Env::new(
            ram_ptr,
            ram_len,
            mirrored,
            spr_ptr,
            spr_len,
            self.map.bytes.as_ptr(),
            self.lookup.base(),
        );
        if self.env != Some(env) {
            self.invalidate_all();
            self.env = Some(env);
        }
        self.map.ram_len = ram_len;
        self.map.spr_len = spr_len;
        let hooked = hooks.active();
        let mut first = true;
        loop {
            if self.worker.as_ref().is_some_and(|w| w.in_flight > 0) {
                self.take_compiled(false);
            }
            if self.worker.as_ref().is_some_and(|w| w.in_flight == 0) && self.hot > 0 {
                self.compile_ahead(bus, if hooked { Some(hooks) } else { None });
            }
            if cpu.cycles >= target {
                // The budget ended here, wherever that falls in a block: the next run resumes
                // at a pc that is no block's start.
                self.resume_pc = Some(cpu.pc);
                return Ok(());
            }
            // A hooked pc (not a delay slot, where the machine would not run a hook either).
            if hooked && !cpu.delay_next && hooks.is_hooked(cpu.pc) {
                if !first {
                    return Ok(());
                }
                // The caller offered this pc to its hook, which declined: the guest's own
                // instruction runs, interpreted (a block that starts at a hook is never run).
                first = false;
                if self.step(cpu, bus)? {
                    return Ok(());
                }
                continue;
            }
            first = false;
            // Blocks start on an ordinary instruction: a pending delay slot (or a pc that a
            // branch in a slot left irregular) is stepped by the interpreter.
            if cpu.delay_next || cpu.next_pc != cpu.pc.wrapping_add(4) {
                if self.step(cpu, bus)? {
                    return Ok(());
                }
                continue;
            }
            let pc = cpu.pc;
            let resumed = self.resume_pc.take() == Some(pc);
            let code = match self.blocks.get(&pc) {
                Some(Entry::Block { code, .. }) => {
                    // Blocks that chain here find it from now on.
                    self.lookup.set(pc, code.0);
                    Some(*code)
                }
                Some(Entry::Interpret { .. }) => None,
                Some(&Entry::Nops { len, .. }) => {
                    let cost = decode(0).cycles as u64;
                    if cpu.cycles + cost * (len as u64 - 1) < target {
                        // Every NOP starts within the budget: as the interpreter leaves them.
                        cpu.cur_pc = pc.wrapping_add(4 * (len - 1));
                        cpu.in_delay_slot = false;
                        cpu.jump_to(pc.wrapping_add(4 * len));
                        cpu.cycles += cost * len as u64;
                        self.stats.instructions += len as u64;
                        self.stats.nop_runs += len as u64;
                        continue;
                    }
                    None
                }
                None if resumed && !self.visits.contains_key(&pc) => {
                    // Resuming where a budget ended is no visit of a block start: interpreted
                    // up to the next block start (known, reached by a branch, or on the grid
                    // of MAX_BLOCK instructions, so that straight code that budgets cut
                    // anywhere still falls into the same blocks). Compiling at every pc where
                    // a budget happens to end would compile the same code over and over.
                    if self.step(cpu, bus)? {
                        return Ok(());
                    }
                    if cpu.pc == pc.wrapping_add(4)
                        && !cpu.delay_next
                        && !cpu.pc.is_multiple_of(4 * compile::MAX_BLOCK as u32)
                    {
                        self.resume_pc = Some(cpu.pc);
                    }
                    continue;
                }
                Some(&Entry::Pending {
                    ticket, ref words, ..
                }) => {
                    let words = words.clone();
                    if self.take_back(pc, ticket) {
                        continue;
                    }
                    // On the compile thread: its instructions interpreted meanwhile.
                    if self
                        .run_words(cpu, bus, pc, &words, target, true, u32::MAX)
                        .1?
                    {
                        return Ok(());
                    }
                    continue;
                }
                None => {
                    let hookset = if hooked { Some(hooks) } else { None };
                    let ran = *self.visits.entry(pc).or_insert(0);
                    if ran < self.hot {
                        // Cold: the block's instructions interpreted, one by one (its words
                        // read and decoded once, at the first visit).
                        let words = match self.cold.get(&pc) {
                            Some(w) => w.clone(),
                            None => {
                                let w = match phys(pc) {
                                    Some(_) => block_words(&scan(bus, pc, &|a| {
                                        hookset.is_some_and(|h| h.is_hooked(a))
                                    })),
                                    None => Rc::from([]),
                                };
                                self.cold.insert(pc, w.clone());
                                w
                            }
                        };
                        let (ran, stop) =
                            self.run_words(cpu, bus, pc, &words, target, false, self.hot - ran);
                        // The visit counts the instructions it ran (the one that stopped it,
                        // an exception's too), in one update.
                        if let Some(v) = self.visits.get_mut(&pc) {
                            *v = v.saturating_add(ran);
                        }
                        if stop? {
                            return Ok(());
                        }
                        continue;
                    }
                    self.visits.remove(&pc);
                    self.cold.remove(&pc);
                    let code = self.compile(bus, pc, hookset);
                    if matches!(
                        self.blocks.get(&pc),
                        Some(Entry::Nops { .. } | Entry::Pending { .. })
                    ) {
                        // Passed over, or interpreted while it compiles, by the next turn.
                        continue;
                    }
                    code
                }
            };
            let Some(code) = code else {
                if self.step(cpu, bus)? {
                    return Ok(());
                }
                continue;
            };
            let mut spr_seen = Vec::new();
            let mut ctx = Ctx {
                // At most MAX_CALL_CYCLES ahead (see `Ctx::counts`); a run that goes further
                // comes back here on the way and calls again.
                target: target.min(cpu.cycles.saturating_add(ctx::MAX_CALL_CYCLES)),
                counts: 0,
                passes: 0,
                budget_stops: 0,
                cpu: &mut *cpu,
                bus: &mut *bus,
                map: &mut self.map,
                spr_seen: &mut spr_seen,
                exception: None,
            };
            self.stats.dispatched += 1;
            let s = self.trampoline.call(&mut ctx, code);
            let exception = ctx.exception.take();
            let chained = ctx.counts / ctx::CHAINED_ONE;
            self.stats.instructions += ctx.counts % ctx::CHAINED_ONE;
            self.stats.chained += chained;
            // The blocks this call started: the first and every chained one, less those that
            // found too little budget; every other run was a pass looping in place.
            let entered = (1 + chained).saturating_sub(ctx.budget_stops);
            self.stats.block_runs += entered + ctx.passes;
            self.stats.loop_passes += ctx.passes;
            for at in spr_seen {
                self.saw_spr(at);
            }
            self.process_writes();
            match s {
                // Not every instruction of the block may start within the budget (a chain may
                // have reached it already): the interpreter steps.
                status::BUDGET => {
                    if cpu.cycles >= target || self.step(cpu, bus)? {
                        return Ok(());
                    }
                    // What is left of the budget is the end of one: the next pcs are resumed
                    // as where a budget ended, not visited as block starts (else every pc of
                    // a hot loop that budgets cut became a block start of its own, compiled
                    // once its visits added up).
                    if !cpu.delay_next {
                        self.resume_pc = Some(cpu.pc);
                    }
                }
                status::EXCEPTION => {
                    return Err(exception.expect("an exception status carries the exception"));
                }
                status::STOP_RUN => return Ok(()),
                status::ASSUMPTION => {
                    // The block at `cpu.pc` met a 64-bit value where it keeps 32 bits across
                    // its labels: compiled again (at once) without that.
                    let pc = cpu.pc;
                    self.stats.assumption_misses += 1;
                    self.wide_at_labels.insert(pc);
                    self.remove(pc);
                    self.visits.insert(pc, self.hot);
                }
                _ => {}
            }
        }
    }

    /// A visit of the block at `pc`, interpreted from its instructions `words` (see
    /// [`block_words`]; none: the one instruction at `pc`, which starts no block), one by one,
    /// while the budget lasts and the pc stays on them: after each step the next is the
    /// instruction at the new pc, the block's next one, its start (a loop: the visit goes on
    /// around it, unless `limit` instructions ran or code arrived from the compile thread) or
    /// another of its own (a branch inside it). A pc outside the block (a jump away, a branch
    /// that leaves) hands back to the dispatcher, which looks at hooks, slots and blocks again.
    /// `watched`: the words' pages are watched (a pending block's), so that they are what
    /// memory holds; else each is compared with RAM first. The instructions run (the one that
    /// stopped it too), and whether the run stops (see [`Jit::step`]).
    #[allow(clippy::too_many_arguments)] // Allowed: the visit's block, budget and limits, each a plain value.
    fn run_words(
        &mut self,
        cpu: &mut Cpu,
        bus: &mut dyn JitBus,
        pc: u32,
        words: &[(u32, u32, &'static OpInfo)],
        target: u64,
        watched: bool,
        limit: u32,
    ) -> (u32, Result<bool, Exception>) {
        if words.is_empty() {
            if cpu.pc != pc || cpu.cycles >= target {
                return (0, Ok(false));
            }
            return (1, self.step(cpu, bus));
        }
        let mut ran = 0u32;
        let mut watched = watched;
        let dropped = self.stats.blocks_invalidated;
        let ram_len = self.map.ram_len;
        let mut i = 0;
        loop {
            // A stretch of plain steps against one tracking bus, nothing to look at between
            // them: it ends at a step that touched anything but RAM, wrote compiled code,
            // faulted or began a VU program (finished below as [`Jit::step_word`] finishes
            // one), or before a word RAM no longer holds or a COP0 instruction (stepped by
            // `step_word`).
            let mut tb = TrackBus::new(&mut *bus, &mut self.map, 0);
            let mut plain = 0u32;
            let end = loop {
                if cpu.cycles >= target {
                    break StretchEnd::Done;
                }
                if words.get(i).is_none_or(|w| w.0 != cpu.pc) {
                    match words.iter().position(|w| w.0 == cpu.pc) {
                        Some(0)
                            if ran + plain >= limit
                                || self.worker.as_ref().is_some_and(Worker::arrived) =>
                        {
                            break StretchEnd::Done;
                        }
                        Some(k) => i = k,
                        None => break StretchEnd::Done,
                    }
                }
                let (at, word, info) = words[i];
                let known = watched || ram_word(tb.bus, ram_len, at) == Some(word);
                if !known || info.flags.contains(OpFlags::COP0) {
                    break StretchEnd::Word(known.then_some((word, info)));
                }
                tb.cycles = cpu.cycles;
                let r = piney_ee::interp::step_word(cpu, &mut tb, word, info);
                i += 1;
                plain += 1;
                if r.is_err() || tb.device || tb.spr || tb.code || vu_start_pending(cpu) {
                    break StretchEnd::Step {
                        result: r,
                        device: tb.device,
                        spr: tb.spr.then_some(at),
                    };
                }
            };
            self.stats.interp_steps += plain as u64;
            self.stats.instructions += plain as u64;
            ran += plain;
            let stop = match end {
                StretchEnd::Done => return (ran, Ok(false)),
                StretchEnd::Word(known) => {
                    i += 1;
                    ran += 1;
                    self.step_word(cpu, bus, known)
                }
                StretchEnd::Step {
                    result,
                    device,
                    spr,
                } => self.finish_step(cpu, result, device, spr, false),
            };
            if !matches!(stop, Ok(false)) {
                return (ran, stop);
            }
            // A step that wrote code dropped blocks (this one, maybe): the words left are
            // compared with RAM from then on.
            watched &= self.stats.blocks_invalidated == dropped;
        }
    }

    /// One interpreter step through the tracking bus. `Ok(true)`: stop the run (a device or
    /// COP0 was touched, or a VU start is pending).
    fn step(&mut self, cpu: &mut Cpu, bus: &mut dyn JitBus) -> Result<bool, Exception> {
        self.step_word(cpu, bus, None)
    }

    /// [`Jit::step`], for the instruction `known` (its word and table entry) when the caller
    /// holds it (see [`piney_ee::interp::step_word`]).
    #[inline]
    fn step_word(
        &mut self,
        cpu: &mut Cpu,
        bus: &mut dyn JitBus,
        known: Option<(u32, &'static OpInfo)>,
    ) -> Result<bool, Exception> {
        self.stats.interp_steps += 1;
        self.stats.instructions += 1;
        let at = cpu.pc;
        let mut tb = TrackBus::new(bus, &mut self.map, cpu.cycles);
        let r = match known {
            Some((word, info)) => piney_ee::interp::step_word(cpu, &mut tb, word, info),
            None => piney_ee::interp::step(cpu, &mut tb),
        };
        let (device, spr) = (tb.device, tb.spr);
        let cop0 = match known {
            Some((_, info)) => info.flags.contains(OpFlags::COP0),
            // The instruction's word, as the step fetched it (a step that completed fetched
            // it).
            None => tb
                .fetched
                .is_some_and(|w| decode(w).flags.contains(OpFlags::COP0)),
        };
        self.finish_step(cpu, r, device, spr.then_some(at), cop0)
    }

    /// After an interpreter step through a tracking bus: the scratchpad site it showed (`spr`:
    /// its pc) noted, the blocks it wrote dropped; `Ok(true)` when the run stops (it touched a
    /// device, was a COP0 instruction, or began a VU program).
    fn finish_step(
        &mut self,
        cpu: &Cpu,
        r: Result<(), Exception>,
        device: bool,
        spr: Option<u32>,
        cop0: bool,
    ) -> Result<bool, Exception> {
        if let Some(at) = spr {
            self.saw_spr(at);
        }
        self.process_writes();
        r.map(|()| device || cop0 || vu_start_pending(cpu))
    }

    /// Compile the block at `pc` (it ends before any instruction `hooks` names but its first)
    /// and enter it in the tables; its code, or `None` when it is interpreted.
    fn compile(
        &mut self,
        bus: &mut dyn JitBus,
        pc: u32,
        hooks: Option<&dyn HookSet>,
    ) -> Option<BlockCode> {
        self.compile_at(bus, pc, hooks, 0)
    }

    /// The next block to compile ahead (see the `ahead` module), requested from the idle
    /// compile thread: the first start queued that is no block yet.
    fn compile_ahead(&mut self, bus: &mut dyn JitBus, hooks: Option<&dyn HookSet>) {
        while let Some((pc, depth)) = self.ahead.next() {
            // A hooked pc starts no block (the dispatcher offers it to its hook first; a block
            // there would be reached by chained exits past the hook).
            if self.blocks.contains_key(&pc)
                || phys(pc).is_none()
                || hooks.is_some_and(|h| h.is_hooked(pc))
            {
                continue;
            }
            self.visits.remove(&pc);
            self.cold.remove(&pc);
            self.compile_at(bus, pc, hooks, depth);
            if matches!(self.blocks.get(&pc), Some(Entry::Pending { .. })) {
                self.stats.compiled_ahead += 1;
                self.ahead.requested();
                return;
            }
        }
    }

    /// [`Jit::compile`], for a block `depth` exits from a hot one (0: hot itself).
    fn compile_at(
        &mut self,
        bus: &mut dyn JitBus,
        pc: u32,
        hooks: Option<&dyn HookSet>,
        depth: u8,
    ) -> Option<BlockCode> {
        let env = self.env?;
        let Some(p) = phys(pc) else {
            // Never compiled (the scratchpad, kseg2/3): no page to track it by.
            return None;
        };
        let insns = scan(bus, pc, &|a| hooks.is_some_and(|h| h.is_hooked(a)));
        if insns.is_empty() {
            return self.enter(pc, Entry::Interpret { phys: p });
        }
        if insns.iter().all(|i| i.word == 0) {
            let len = insns.len() as u32;
            return self.enter(pc, Entry::Nops { phys: p, len });
        }
        let source = compile::Source {
            // Per instruction: seen reaching the scratchpad (only those get its fast path).
            spr: insns
                .iter()
                .map(|i| self.spr_sites.contains(&i.addr))
                .collect(),
            insns,
            kill: self.kill,
            env,
            assume32: !self.wide_at_labels.contains(&pc),
        };
        let ranges = phys_ranges(&source.insns);
        let entry = if let Some(w) = self.worker.as_mut().filter(|_| self.hot > 0) {
            self.ahead.add_exits(&source.insns, depth);
            let ticket = self.next_ticket;
            self.next_ticket += 1;
            let words = block_words(&source.insns);
            if w.send(Request { pc, ticket, source }) {
                Entry::Pending {
                    ticket,
                    words,
                    ranges,
                }
            } else {
                self.worker_gone();
                return self.compile_at(bus, pc, hooks, depth);
            }
        } else {
            match self.compiler.compile(&source) {
                Ok(c) => {
                    self.count_compiled(&c);
                    Entry::Block {
                        code: c.code,
                        ranges,
                    }
                }
                Err(e) => {
                    self.stats.last_error = Some(e.to_string());
                    Entry::Interpret { phys: p }
                }
            }
        };
        self.enter(pc, entry)
    }

    /// Count a block compiled.
    fn count_compiled(&mut self, c: &compile::Compiled) {
        // Host time, for the statistics only (it never reaches the emulated machine).
        self.stats.compile_time += c.time;
        self.stats.blocks_compiled += 1;
        self.stats.compiled_instructions += c.len as u64;
        for (n, s) in self.stats.native.iter_mut().zip(c.native) {
            *n += s as u64;
        }
        self.stats.fallback += c.fallback as u64;
    }

    /// Enter `entry` as the block at `pc`, its pages tracked; its code, when it has some.
    fn enter(&mut self, pc: u32, entry: Entry) -> Option<BlockCode> {
        for (start, len) in entry.ranges() {
            for page in PageMap::pages(start, len) {
                let list = self.page_blocks.entry(page).or_default();
                if !list.contains(&pc) {
                    list.push(pc);
                }
                if let Some(b) = self.map.bytes.get_mut(page) {
                    *b = 1;
                }
            }
        }
        let code = match entry {
            Entry::Block { code, .. } => {
                self.lookup.set(pc, code.0);
                Some(code)
            }
            Entry::Interpret { .. } | Entry::Nops { .. } | Entry::Pending { .. } => None,
        };
        self.blocks.insert(pc, entry);
        code
    }

    /// The instruction at `pc` reached the scratchpad (in the interpreter, or in a compiled
    /// block's slow path): from now on it is compiled with the scratchpad's fast path, and the
    /// blocks compiled without it are dropped (compiled again once hot).
    fn saw_spr(&mut self, pc: u32) {
        if self.spr_sites.insert(pc)
            && let Some(p) = phys(pc)
        {
            self.invalidate_phys(p, 4);
        }
    }

    fn process_writes(&mut self) {
        while let Some((p, len)) = self.map.written.pop() {
            self.invalidate_phys(p, len);
        }
    }

    /// Drop the blocks that overlap `len` bytes at virtual address `addr` (DMA into code, an
    /// overlay load, the loader). Cheap where no code is.
    pub fn invalidate_range(&mut self, addr: u32, len: u32) {
        if len == 0 {
            return;
        }
        if let Some(p) = phys(addr) {
            self.invalidate_phys(p, len);
        }
    }

    /// Drop every block (FlushCache, a new program).
    pub fn invalidate_all(&mut self) {
        self.stats.blocks_invalidated += self.blocks.len() as u64;
        self.blocks.clear();
        self.ahead.clear();
        self.visits.clear();
        self.cold.clear();
        self.lookup.clear();
        for (page, _) in self.page_blocks.drain() {
            if let Some(b) = self.map.bytes.get_mut(page) {
                *b = 0;
            }
        }
        self.map.written.clear();
    }

    fn invalidate_phys(&mut self, p: u32, len: u32) {
        let end = p as u64 + len as u64;
        for page in PageMap::pages(p, len) {
            let Some(list) = self.page_blocks.get(&page) else {
                continue;
            };
            let hit: Vec<u32> = list
                .iter()
                .copied()
                .filter(|pc| {
                    self.blocks
                        .get(pc)
                        .is_some_and(|e| e.overlaps(p as u64, end))
                })
                .collect();
            for pc in hit {
                self.remove(pc);
            }
        }
    }

    fn remove(&mut self, pc: u32) {
        let Some(e) = self.blocks.remove(&pc) else {
            return;
        };
        self.lookup.remove(pc);
        self.stats.blocks_invalidated += 1;
        self.untrack(pc, &e.ranges());
    }

    /// Take the block at `pc` off the lists of the pages `ranges` cover (a page no block is
    /// on any more is no code page).
    fn untrack(&mut self, pc: u32, ranges: &[(u32, u32)]) {
        for &(s, l) in ranges {
            for page in PageMap::pages(s, l) {
                if let Some(list) = self.page_blocks.get_mut(&page) {
                    list.retain(|&x| x != pc);
                    if list.is_empty() {
                        self.page_blocks.remove(&page);
                        if let Some(b) = self.map.bytes.get_mut(page) {
                            *b = 0;
                        }
                    }
                }
            }
        }
    }
}

/// A block's instructions as its visits interpret them: address, word, table entry.
type Words = Rc<[(u32, u32, &'static OpInfo)]>;

/// The instructions of `insns` (a block as `scan` read it) for [`Jit::run_words`].
fn block_words(insns: &[compile::Insn]) -> Words {
    insns.iter().map(|i| (i.addr, i.word, i.info)).collect()
}

/// The physical ranges (start, bytes) of a block's instructions: one per straight run of
/// addresses (a block that goes on through a jump has more than one).
fn phys_ranges(insns: &[compile::Insn]) -> Box<[(u32, u32)]> {
    let mut out: Vec<(u32, u32)> = Vec::new();
    for i in insns {
        // `scan` keeps a block in one segment with a physical address.
        let p = phys(i.addr).expect("a compiled instruction has a physical address");
        match out.last_mut() {
            Some((s, l)) if *s + *l == p => *l += 4,
            _ => out.push((p, 4)),
        }
    }
    out.into_boxed_slice()
}

/// The cycle at which COP0 Count reaches Compare (raising Cause.IP7), or `u64::MAX` while
/// Status.IM7 masks the COP0 timer. A machine loop that checks interrupts between
/// [`Jit::run`] calls passes a target no later than this, so the timer interrupt is taken at the
/// same instruction as under the interpreter (which checks before every instruction).
pub fn cop0_timer_due(cpu: &Cpu) -> u64 {
    use piney_ee::cpu::{cop0reg, status};
    let regs = &cpu.cop0.regs;
    if regs[cop0reg::STATUS] & status::IM7 == 0 {
        return u64::MAX;
    }
    // Count as of `count_sync`; it hits Compare after `compare - count` more cycles (a full
    // wrap when they are equal now).
    let d = regs[cop0reg::COMPARE].wrapping_sub(regs[cop0reg::COUNT]);
    let d = if d == 0 { 1u64 << 32 } else { d as u64 };
    cpu.cop0.count_sync.saturating_add(d)
}

/// Whether the last instruction asked the machine for a VU0 microprogram call, a VU1 start or a
/// VU reset through FBRST (serviced right after that instruction).
#[inline]
pub(crate) fn vu_start_pending(cpu: &Cpu) -> bool {
    cpu.vu0.pending_call.is_some()
        || cpu.vu0.pending_vu1_start.is_some()
        || cpu.vu0.pending_reset != 0
}

/// What ended a stretch of plain steps in [`Jit::run_words`].
enum StretchEnd {
    /// The words ran out, the pc left them, or the budget ended.
    Done,
    /// The next word is one to step alone: its word and entry when RAM still holds it.
    Word(Option<(u32, &'static OpInfo)>),
    /// A step that needs looking at: its result, whether it touched a device, and its pc when
    /// it reached the scratchpad.
    Step {
        result: Result<(), Exception>,
        device: bool,
        spr: Option<u32>,
    },
}

/// The word RAM holds at `addr`, when the RAM fast path serves it (as a fetch there reads).
fn ram_word(bus: &mut dyn JitBus, ram_len: u64, addr: u32) -> Option<u32> {
    let p = fast_phys(addr, ram_len)? as usize;
    let b = bus.ram().get(p..p + 4)?;
    Some(u32::from_le_bytes(b.try_into().ok()?))
}

/// Run the reference interpreter with the same contract as [`Jit::run`] minus the early stops:
/// until `cpu.cycles >= target` or an exception. For comparisons and benchmarks.
pub fn interp_run(cpu: &mut Cpu, bus: &mut dyn Bus, target: u64) -> Result<(), Exception> {
    while cpu.cycles < target {
        piney_ee::interp::step(cpu, bus)?;
    }
    Ok(())
}
