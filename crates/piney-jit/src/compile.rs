//! Block analysis and code generation.
//!
//! A block starts at a PC and runs straight on until, and including, a jump (J, JAL, JR, JALR,
//! an unconditional B) and its delay slot, an instruction that ends a block (SYSCALL, BREAK, COP0,
//! reserved encodings), before a hooked instruction (see [`crate::HookSet`]), or after about
//! [`MAX_BLOCK`] instructions. Past a conditional branch and its slot it goes on with the
//! fall-through path (a superblock): the taken path leaves the block there, into the next block
//! like any exit. Every instruction
//! is compiled natively, or runs the interpreter's own `exec` from the opcode table: through
//! [`crate::ctx::h_exec`] when it only touches registers (FPU and VU0 macro arithmetic, most
//! MMI), else through [`crate::ctx::h_interp`] with the sequencing state written first. A native
//! instruction checks what could make it fault or leave plain RAM (overflow, alignment, a device
//! address, a store into compiled code) and hands exactly those cases to `h_interp`, from the
//! same state, so the interpreter raises the exception or talks to the device.
//!
//! The generated function (Cranelift's `tail` convention, `(ctx, cpu) -> status`):
//! - starts only when every instruction of it may start before the run's cycle target (else it
//!   returns [`status::BUDGET`] having changed nothing);
//! - keeps the GPRs it uses in host registers, written through to the [`Cpu`] at every write
//!   (so helper calls and exits need no flush; after a helper only what the instruction writes,
//!   as the opcode table says, is read again); a block whose branch returns to its own start
//!   loads the registers it reads once and keeps them across iterations;
//! - counts cycles as a constant offset from its start, written to the `Cpu` before helper calls
//!   and at exits;
//! - at its end writes the state the interpreter would leave (`pc`, `next_pc`, `cur_pc`,
//!   `in_delay_slot`, `delay_next`, `cycles`), looks the next pc up in the [`Lookup`] table and
//!   tail-calls that block when it is there (it then checks the budget itself), else returns
//!   [`status::OK`] to the dispatcher.

use std::mem::offset_of;

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    AbiParam, Block, BlockArg, InstBuilder, MemFlagsData, SigRef, Signature, Type, Value, types,
};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_codegen::{Context, isa};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::Module;
use piney_ee::cpu::{Cpu, status as st};
use piney_ee::table::fields::{fd, fs, ft, rd, rs, rt, sa, simm, target, uimm};
use piney_ee::table::{Op, OpFlags, Operands};
use piney_ee::{Bus, OpInfo, decode};

use crate::ctx::{
    Ctx, LOOKUP_BITS, LOOKUP_MUL, Lookup, LookupEntry, Site, h_exec, h_interp, status,
};
use crate::native::{BlockCode, Trampoline};
use crate::pages::{PAGE_SHIFT, phys};
use crate::{Category, JitError, KillSwitches};

/// The most instructions in one block.
pub(crate) const MAX_BLOCK: usize = 64;
/// The most branches in one block (a superblock goes on past the first conditional one only:
/// measured on tools/bench-compute.sh, more paths compile more code, often twice, for little
/// gain).
const MAX_BRANCHES: u32 = 2;

/// One decoded instruction of a block.
#[derive(Clone, Copy)]
pub(crate) struct Insn {
    /// Its address.
    pub addr: u32,
    /// Its word.
    pub word: u32,
    /// Its table entry.
    pub info: &'static OpInfo,
    /// It sits in the delay slot of the previous one.
    pub slot: bool,
}

/// Read a block's instructions starting at `pc` (see the module doc for where it ends); it also
/// ends before an instruction after the first that `hooked` names (not a delay slot: the machine
/// runs hooks only where an instruction starts on its own).
/// Empty when the first instruction cannot start a block (misaligned, unmapped, a delay-slot
/// chain); the caller then interprets it.
pub(crate) fn scan(bus: &mut dyn Bus, pc: u32, hooked: &dyn Fn(u32) -> bool) -> Vec<Insn> {
    let mut out = Vec::new();
    if pc & 3 != 0 {
        return out;
    }
    let fetch = |bus: &mut dyn Bus, a: u32| -> Option<u32> {
        // Stay on memory the page map tracks, in one 512 MiB segment.
        if phys(a).is_none() || (a >> 29) != (pc >> 29) {
            return None;
        }
        bus.fetch(a).ok()
    };
    let mut addr = pc;
    let mut branches = 0;
    while out.len() < MAX_BLOCK {
        if addr != pc && hooked(addr) {
            break;
        }
        let Some(word) = fetch(bus, addr) else { break };
        let info = decode(word);
        let f = info.flags;
        if f.contains(OpFlags::BRANCH) && !f.contains(OpFlags::COP0) {
            // The branch and its delay slot go together; a slot that branches, ends a block or
            // touches COP0 is left to the interpreter (the block stops before the branch).
            let slot_addr = addr.wrapping_add(4);
            let Some(sw) = fetch(bus, slot_addr) else {
                break;
            };
            let si = decode(sw);
            if si.flags.intersects(
                OpFlags::BRANCH | OpFlags::ENDS_BLOCK | OpFlags::COP0 | OpFlags::RESERVED,
            ) {
                break;
            }
            out.push(Insn {
                addr,
                word,
                info,
                slot: false,
            });
            out.push(Insn {
                addr: slot_addr,
                word: sw,
                info: si,
                slot: true,
            });
            // A superblock: past a conditional branch the block goes on with the fall-through
            // path (the taken one leaves it).
            branches += 1;
            if conditional(word) && branches < MAX_BRANCHES && out.len() + 1 < MAX_BLOCK {
                addr = slot_addr.wrapping_add(4);
                continue;
            }
            break;
        }
        out.push(Insn {
            addr,
            word,
            info,
            slot: false,
        });
        if f.intersects(OpFlags::ENDS_BLOCK | OpFlags::COP0 | OpFlags::RESERVED | OpFlags::BRANCH) {
            break;
        }
        addr = addr.wrapping_add(4);
    }
    out
}

/// Whether a branch word may go either way (not J, JAL, JR, JALR, nor BEQ/BEQL of a register
/// with itself): a block continues past it on the fall-through path.
fn conditional(word: u32) -> bool {
    match word >> 26 {
        0x00 | 0x02 | 0x03 => false,
        0x04 | 0x14 => rs(word) != rt(word),
        _ => true,
    }
}

/// The category an instruction belongs to, for the kill switches and the statistics.
pub(crate) fn category(info: &OpInfo) -> Category {
    let f = info.flags;
    if f.contains(OpFlags::COP2) {
        Category::Cop2
    } else if f.contains(OpFlags::COP1) {
        Category::Fpu
    } else if f.contains(OpFlags::MMI) {
        Category::Mmi
    } else if f.intersects(OpFlags::LOAD | OpFlags::STORE) {
        Category::LoadStore
    } else if f.contains(OpFlags::BRANCH) {
        Category::Branch
    } else {
        Category::Integer
    }
}

/// Where the code compiled now finds guest memory and the recompiler's tables (host addresses
/// fixed in the code; the `Jit` drops every block when one of them changes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Env {
    /// Host address of guest RAM's byte 0; 0: no RAM fast path.
    pub ram: u64,
    /// Address bits that must be clear for the RAM fast path: bit 30 (segments 0, 1, 4 and 5
    /// of the PS2 kernel's map have it clear) and, within `addr & 0x1fff_ffff`, every bit at or
    /// above the RAM's size (a power of two: the largest one the bus's RAM holds).
    pub ram_mask: u32,
    /// Host address of the scratchpad (16 KiB at 0x7000_0000); 0: none (the bus serves it).
    pub spr: u64,
    /// Host address of the code-page map.
    pub pages: u64,
    /// Host address of the lookup table.
    pub lookup: u64,
}

impl Env {
    /// The environment for RAM of `ram_len` bytes at `ram`, a scratchpad of `spr_len` bytes at
    /// `spr` (used only when it is the whole 16 KiB), and the recompiler's tables.
    pub fn new(
        ram: *mut u8,
        ram_len: u64,
        spr: *mut u8,
        spr_len: u64,
        pages: *const u8,
        lookup: *const LookupEntry,
    ) -> Self {
        let size = ram_len.min(0x2000_0000);
        let (ram, ram_mask) = if size == 0 {
            (0, 0)
        } else {
            let pow2 = 1u64 << (63 - size.leading_zeros());
            (ram as u64, 0x4000_0000 | (0x1fff_ffff & !(pow2 as u32 - 1)))
        };
        Self {
            ram,
            ram_mask,
            spr: if spr_len >= 0x4000 { spr as u64 } else { 0 },
            pages: pages as u64,
            lookup: lookup as u64,
        }
    }
}

/// A compiled block.
pub(crate) struct Compiled {
    /// The code.
    pub code: BlockCode,
    /// Instructions in the block.
    pub len: u32,
    /// Native instructions per category (index [`Category::index`]).
    pub native: [u32; Category::COUNT],
    /// Instructions that run the interpreter's function ([`h_exec`] or [`h_interp`]).
    pub fallback: u32,
}

/// Owns the Cranelift JIT module and compiles blocks into it.
pub(crate) struct Compiler {
    module: Option<JITModule>,
    ctx: Context,
    fctx: FunctionBuilderContext,
    call_conv: isa::CallConv,
    trampoline: Trampoline,
    /// Every compiled block's [`Site`]s (the code points at them; kept as long as the code,
    /// which the module keeps until the compiler goes).
    sites: Vec<Box<[Site]>>,
}

/// The block signature in the `tail` convention: `(ctx, cpu, cycles) -> status`. A chain of
/// blocks carries the cycle count in a register (the block that returns writes it to the
/// `Cpu`); each block adds its counts to the [`Ctx`]'s counters as it leaves. (Few arguments:
/// the others' registers stay free, and a small block needs no callee-saved ones.)
fn block_sig() -> Signature {
    let mut sig = Signature::new(isa::CallConv::Tail);
    for _ in 0..3 {
        sig.params.push(AbiParam::new(types::I64));
    }
    sig.returns.push(AbiParam::new(types::I32));
    sig
}

/// A helper's signature in the host's C convention: `(i64, i64, i32, [i64]) -> i32`.
fn helper_sig(cc: isa::CallConv, with_cycles: bool) -> Signature {
    let mut sig = Signature::new(cc);
    sig.params.push(AbiParam::new(types::I64));
    sig.params.push(AbiParam::new(types::I64));
    sig.params.push(AbiParam::new(types::I32));
    if with_cycles {
        sig.params.push(AbiParam::new(types::I64));
    }
    sig.returns.push(AbiParam::new(types::I32));
    sig
}

impl Compiler {
    /// A compiler for the host. Settings chosen by measurement (`cargo bench -p piney-jit`):
    /// the optimiser on (`speed`), the IR verifier only in debug builds.
    pub fn new() -> Result<Self, JitError> {
        let mut flags = settings::builder();
        let set = |f: &mut settings::Builder, k: &str, v: &str| {
            f.set(k, v)
                .map_err(|e| JitError::Setup(format!("cranelift flag {k}={v}: {e}")))
        };
        set(&mut flags, "opt_level", "speed")?;
        set(
            &mut flags,
            "enable_verifier",
            if cfg!(debug_assertions) {
                "true"
            } else {
                "false"
            },
        )?;
        // Cranelift's tail calls (blocks chaining into blocks) need frame pointers.
        set(&mut flags, "preserve_frame_pointers", "true")?;
        set(&mut flags, "use_colocated_libcalls", "false")?;
        set(&mut flags, "is_pic", "false")?;
        let isa_builder = cranelift_native::builder()
            .map_err(|e| JitError::Setup(format!("host not supported by cranelift: {e}")))?;
        let isa = isa_builder
            .finish(settings::Flags::new(flags))
            .map_err(|e| JitError::Setup(format!("cranelift ISA: {e}")))?;
        let call_conv = isa.default_call_conv();
        let module = JITModule::new(JITBuilder::with_isa(
            isa,
            cranelift_module::default_libcall_names(),
        ));
        let ctx = module.make_context();
        let mut c = Self {
            module: Some(module),
            ctx,
            fctx: FunctionBuilderContext::new(),
            call_conv,
            trampoline: Trampoline::new(std::ptr::null()),
            sites: Vec::new(),
        };
        c.trampoline = Trampoline::new(c.build_trampoline()?);
        Ok(c)
    }

    /// The trampoline into blocks.
    pub fn trampoline(&self) -> Trampoline {
        self.trampoline
    }

    fn module(&mut self) -> &mut JITModule {
        self.module
            .as_mut()
            .expect("the module lives as long as the compiler")
    }

    /// `(ctx, cpu, block) -> status` in the C convention: calls `block(ctx, cpu, cpu.cycles)`.
    fn build_trampoline(&mut self) -> Result<*const u8, JitError> {
        let mut sig = Signature::new(self.call_conv);
        for _ in 0..3 {
            sig.params.push(AbiParam::new(types::I64));
        }
        sig.returns.push(AbiParam::new(types::I32));
        let id = self
            .module()
            .declare_anonymous_function(&sig)
            .map_err(|e| JitError::Setup(format!("declare: {e}")))?;
        self.ctx.func.signature = sig;
        {
            let mut b = FunctionBuilder::new(&mut self.ctx.func, &mut self.fctx);
            let entry = b.create_block();
            b.append_block_params_for_function_params(entry);
            b.switch_to_block(entry);
            let p = b.block_params(entry).to_vec();
            let tsig = b.import_signature(block_sig());
            let cycles = b.ins().load(types::I64, mf(), p[1], CYCLES);
            let call = b.ins().call_indirect(tsig, p[2], &[p[0], p[1], cycles]);
            let s = b.inst_results(call)[0];
            b.ins().return_(&[s]);
            b.seal_all_blocks();
            b.finalize(self.module.as_ref().expect("module").target_config());
        }
        self.finish(id, "the trampoline")
    }

    fn finish(&mut self, id: cranelift_module::FuncId, what: &str) -> Result<*const u8, JitError> {
        let module = self.module.as_mut().expect("module");
        let r = module.define_function(id, &mut self.ctx);
        module.clear_context(&mut self.ctx);
        r.map_err(|e| JitError::Compile(format!("{what}: {e:?}")))?;
        module
            .finalize_definitions()
            .map_err(|e| JitError::Compile(format!("finalize: {e}")))?;
        Ok(module.get_finalized_function(id))
    }

    /// Compile `insns` (from [`scan`]) into a block for `env`.
    pub fn compile(
        &mut self,
        insns: &[Insn],
        kill: KillSwitches,
        env: &Env,
    ) -> Result<Compiled, JitError> {
        let sig = block_sig();
        let id = self
            .module()
            .declare_anonymous_function(&sig)
            .map_err(|e| JitError::Compile(format!("declare: {e}")))?;
        self.ctx.func.signature = sig;
        let mut native = [0u32; Category::COUNT];
        let mut fallback = 0;
        let total: u64 = insns.iter().map(|i| i.info.cycles as u64).sum();
        let last = insns.last().map_or(0, |i| i.info.cycles as u64);
        let need = total - last;
        let start = insns.first().map_or(0, |i| i.addr);
        let sites: Box<[Site]> = insns
            .iter()
            .map(|insn| Site {
                info: insn.info,
                word: insn.word,
                addr: insn.addr,
                slot: insn.slot,
            })
            .collect();
        // A block with a branch back to its own start (a known target) loops inside: the
        // registers it uses are loaded before the loop header and stay in host registers.
        let loops = insns
            .iter()
            .any(|i| !i.slot && static_target(i) == Some(start));
        {
            let mut b = FunctionBuilder::new(&mut self.ctx.func, &mut self.fctx);
            let entry = b.create_block();
            b.append_block_params_for_function_params(entry);
            b.switch_to_block(entry);
            let params = b.block_params(entry).to_vec();
            let (ctxp, cpu) = (params[0], params[1]);
            let isig = b.import_signature(helper_sig(self.call_conv, true));
            let esig = b.import_signature(helper_sig(self.call_conv, false));
            let tsig = b.import_signature(block_sig());
            let base = b.declare_var(types::I64);
            let npc = b.declare_var(types::I32);
            let insns_var = b.declare_var(types::I64);
            let runs = b.declare_var(types::I64);
            b.def_var(base, params[2]);
            let zero = b.ins().iconst(types::I64, 0);
            b.def_var(insns_var, zero);
            b.def_var(runs, zero);
            let regs: [Variable; REGS] = std::array::from_fn(|_| b.declare_var(types::I64));
            let regs32: [Variable; REGS] = std::array::from_fn(|_| b.declare_var(types::I32));
            let header = b.create_block();
            let mut g = Gen {
                b,
                ctxp,
                cpu,
                base,
                off: 0,
                npc,
                insns: insns_var,
                runs,
                isig,
                esig,
                tsig,
                sites: &sites,
                kill,
                env: *env,
                header,
                need,
                regs,
                regs32,
                loaded: 0,
                dirty: 0,
                have32: 0,
                index: 0,
                skipped: 0,
                last_index: insns.len() as u32 - 1,
                start,
                loops,
                at_header: 0,
                dirty_at_header: 0,
                likely_not_taken: None,
            };
            g.prologue(insns, loops);
            g.body(insns, loops, &mut native, &mut fallback);
            g.b.seal_all_blocks();
            g.b.finalize(self.module.as_ref().expect("module").target_config());
        }
        // PINEY_JIT_DUMP=<start pc in hex>: print that block's IR and machine code (a debugging
        // aid for the recompiler's own developers).
        let dump = std::env::var_os("PINEY_JIT_DUMP")
            .is_some_and(|v| v.to_str() == Some(format!("{start:x}").as_str()));
        if dump {
            eprintln!("{}", self.ctx.func.display());
            self.ctx.set_disasm(true);
        }
        let module = self.module.as_mut().expect("module");
        let r = module.define_function(id, &mut self.ctx);
        if dump {
            if let Some(vcode) = self.ctx.compiled_code().and_then(|c| c.vcode.as_ref()) {
                eprintln!("{vcode}");
            }
            self.ctx.set_disasm(false);
        }
        module.clear_context(&mut self.ctx);
        r.map_err(|e| JitError::Compile(format!("block at {start:#010x}: {e:?}")))?;
        module
            .finalize_definitions()
            .map_err(|e| JitError::Compile(format!("finalize: {e}")))?;
        let code = module.get_finalized_function(id);
        // The code holds the sites' addresses: they live as long as it does.
        self.sites.push(sites);
        Ok(Compiled {
            code: BlockCode(code),
            len: insns.len() as u32,
            native,
            fallback,
        })
    }
}

impl Drop for Compiler {
    fn drop(&mut self) {
        if let Some(m) = self.module.take() {
            crate::native::free(m);
        }
    }
}

/// A branch's target when the instruction word fixes it (PC-relative branches, J, JAL).
fn static_target(insn: &Insn) -> Option<u32> {
    let f = insn.info.flags;
    if !f.contains(OpFlags::BRANCH) || f.contains(OpFlags::COP0) {
        return None;
    }
    match insn.word >> 26 {
        0x02 | 0x03 => Some((insn.addr.wrapping_add(4) & 0xf000_0000) | (target(insn.word) << 2)),
        0x00 => None, // JR, JALR
        _ => Some(branch_target(insn)),
    }
}

/// Registers the generator caches: the 32 GPRs (low 64 bits), then LO and HI (low 64 bits).
const REGS: usize = 34;
/// The cache index of LO.
const R_LO: usize = 32;
/// The cache index of HI.
const R_HI: usize = 33;

/// The cached registers an instruction writes, as a bit mask, from the opcode table's operands.
fn reg_writes(insn: &Insn) -> u64 {
    reg_mask(insn.info.writes, insn.word)
}

/// The cached registers an instruction reads, as a bit mask.
fn reg_reads(insn: &Insn) -> u64 {
    reg_mask(insn.info.reads, insn.word)
}

fn reg_mask(o: Operands, w: u32) -> u64 {
    let mut m = 0u64;
    if o.contains(Operands::LO) {
        m |= 1 << R_LO;
    }
    if o.contains(Operands::HI) {
        m |= 1 << R_HI;
    }
    // COP1 and COP2 entries name their own registers in the same fields (FS/FT/FD, VF...):
    // only the integer operand flags name GPRs.
    if o.contains(Operands::RS) {
        m |= 1 << rs(w);
    }
    if o.contains(Operands::RT) {
        m |= 1 << rt(w);
    }
    if o.contains(Operands::RD) {
        m |= 1 << rd(w);
    }
    if o.contains(Operands::RA) {
        m |= 1 << 31;
    }
    m & !1
}

/// Where cached register `r` lives in the `Cpu`.
fn reg_offset(r: usize) -> i32 {
    match r {
        R_LO => LO,
        R_HI => HI,
        _ => GPR + 16 * r as i32,
    }
}

/// Whether an instruction may run through [`h_exec`]: it reads and writes only registers
/// (no memory, no branch, no COP0, no trap by design) and asks nothing of the machine (VU
/// starts and resets through CTC2 and VCALLMS/VCALLMSR; the COP2 moves with the interlock bit,
/// which wait for VU0 and move the cycle count).
fn register_only(insn: &Insn) -> bool {
    let f = insn.info.flags;
    if f.intersects(
        OpFlags::BRANCH
            | OpFlags::LOAD
            | OpFlags::STORE
            | OpFlags::COP0
            | OpFlags::MAY_TRAP
            | OpFlags::ENDS_BLOCK
            | OpFlags::RESERVED,
    ) {
        return false;
    }
    if f.contains(OpFlags::COP2) {
        return match insn.info.op {
            Op::Vcallms | Op::Vcallmsr | Op::Ctc2 => false,
            Op::Qmfc2 | Op::Qmtc2 | Op::Cfc2 => insn.word & 1 == 0,
            _ => true,
        };
    }
    true
}

// Field offsets in Cpu (generated code addresses the state in place).
const GPR: i32 = offset_of!(Cpu, gpr) as i32;
const HI: i32 = offset_of!(Cpu, hi) as i32;
const LO: i32 = offset_of!(Cpu, lo) as i32;
const SA: i32 = offset_of!(Cpu, sa) as i32;
const PC: i32 = offset_of!(Cpu, pc) as i32;
const NEXT_PC: i32 = offset_of!(Cpu, next_pc) as i32;
const CUR_PC: i32 = offset_of!(Cpu, cur_pc) as i32;
const IN_DELAY: i32 = offset_of!(Cpu, in_delay_slot) as i32;
const DELAY_NEXT: i32 = offset_of!(Cpu, delay_next) as i32;
const CYCLES: i32 = offset_of!(Cpu, cycles) as i32;
const FPR: i32 = (offset_of!(Cpu, fpu) + offset_of!(piney_ee::cpu::Fpu, fpr)) as i32;
const FCR31: i32 = (offset_of!(Cpu, fpu) + offset_of!(piney_ee::cpu::Fpu, fcr31)) as i32;
const VF: i32 = (offset_of!(Cpu, vu0) + offset_of!(piney_ee::cpu::Vu0Regs, vf)) as i32;
const STATUS: i32 = (offset_of!(Cpu, cop0) + offset_of!(piney_ee::cpu::Cop0, regs)) as i32
    + 4 * piney_ee::cpu::cop0reg::STATUS as i32;

// Field offsets in Ctx.
const CTX_TARGET: i32 = offset_of!(Ctx<'_>, target) as i32;
const CTX_INSNS: i32 = offset_of!(Ctx<'_>, insns) as i32;
const CTX_RUNS: i32 = offset_of!(Ctx<'_>, block_runs) as i32;
const CTX_CHAINED: i32 = offset_of!(Ctx<'_>, chained) as i32;

/// Where a PC value comes from at an exit.
#[derive(Clone, Copy)]
enum Pc {
    /// Known when compiling.
    Const(u32),
    /// The `npc` variable (a branch's outcome).
    Npc,
}

/// How a memory access treats the low address bits.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Align {
    /// Misaligned: the slow path (which raises the address error).
    Check,
    /// Ignored: the access is at `ea & !mask` (LQ/SQ, and the aligned word of LWL and kin).
    Mask(u32),
}

struct Gen<'a> {
    b: FunctionBuilder<'a>,
    ctxp: Value,
    cpu: Value,
    /// Cycles at the block's start (or the loop header's).
    base: Variable,
    /// Cycles of the instructions started since `base` (the current one included).
    off: u64,
    npc: Variable,
    /// Instructions this block completed in the passes before the current one (a block that
    /// loops on itself).
    insns: Variable,
    /// Passes of this block (the current one included once it started).
    runs: Variable,
    /// [`h_interp`]'s signature.
    isig: SigRef,
    /// [`h_exec`]'s signature.
    esig: SigRef,
    tsig: SigRef,
    /// The block's instructions as [`h_interp`] sees them.
    sites: &'a [Site],
    kill: KillSwitches,
    env: Env,
    /// Where the block's first instruction begins.
    header: Block,
    /// Cycles the block needs left in the budget to run whole: its cost minus its last
    /// instruction's (the interpreter starts an instruction while `cycles < target`).
    need: u64,
    /// One variable per cached register (see [`REGS`]), holding its low 64 bits.
    regs: [Variable; REGS],
    /// The same registers' low 32 bits, where the last write was a 32-bit result (so reading
    /// them back as 32 bits needs no narrowing).
    regs32: [Variable; REGS],
    /// Registers whose variable holds the current value (bit per register).
    loaded: u64,
    /// Cached registers whose value is not in the `Cpu` yet (written back before any helper
    /// call and at every exit).
    dirty: u64,
    /// Registers whose `regs32` variable is current.
    have32: u64,
    /// The instruction being compiled (index in the block).
    index: u32,
    /// Instructions of the block the current path skipped (slots of likely branches not
    /// taken).
    skipped: u32,
    /// The index of the block's last instruction.
    last_index: u32,
    /// The block's start.
    start: u32,
    /// The block loops back to its start.
    loops: bool,
    /// Registers loaded before the loop header.
    at_header: u64,
    /// Registers dirty at the loop header.
    dirty_at_header: u64,
    /// Where a likely branch in the middle of the block goes on when not taken, and the state
    /// there (set by [`Gen::branch_to`], used after the slot).
    likely_not_taken: Option<(Block, Saved)>,
}

/// See [`Gen::save`].
#[derive(Clone, Copy)]
struct Saved {
    loaded: u64,
    dirty: u64,
    have32: u64,
    off: u64,
    skipped: u32,
}

/// Where a guarded native instruction meets its slow path.
struct Join {
    join: Block,
    /// The slow path, once a guard needs it.
    slow: Option<Block>,
    /// The registers dirty before the instruction: its slow path writes them back before the
    /// interpreter runs.
    dirty: u64,
}

fn mf() -> MemFlagsData {
    MemFlagsData::trusted()
}

impl Gen<'_> {
    // ------------------------------------------------------------ state access

    fn ld(&mut self, ty: Type, off: i32) -> Value {
        self.b.ins().load(ty, mf(), self.cpu, off)
    }
    fn st(&mut self, v: Value, off: i32) {
        self.b.ins().store(mf(), v, self.cpu, off);
    }
    fn c32(&mut self, v: u32) -> Value {
        self.b.ins().iconst(types::I32, v as i32 as i64)
    }
    fn c64(&mut self, v: u64) -> Value {
        self.b.ins().iconst(types::I64, v as i64)
    }
    /// Low 64 bits of a cached register (GPR, LO or HI), from its variable once used.
    fn r64(&mut self, r: usize) -> Value {
        if r == 0 {
            self.c64(0)
        } else if self.loaded & (1 << r) != 0 {
            self.b.use_var(self.regs[r])
        } else {
            let v = self.ld(types::I64, reg_offset(r));
            self.b.def_var(self.regs[r], v);
            self.loaded |= 1 << r;
            v
        }
    }
    /// High 64 bits of a GPR (always in memory).
    fn r64h(&mut self, r: usize) -> Value {
        if r == 0 {
            self.c64(0)
        } else {
            self.ld(types::I64, GPR + 16 * r as i32 + 8)
        }
    }
    /// Low 32 bits of a GPR.
    fn r32(&mut self, r: usize) -> Value {
        if r == 0 {
            self.c32(0)
        } else if self.have32 & (1 << r) != 0 {
            self.b.use_var(self.regs32[r])
        } else {
            let v = self.r64(r);
            self.b.ins().ireduce(types::I32, v)
        }
    }
    /// `Cpu::set64`: the low 64 bits, upper 64 kept; $0 ignores writes. Kept in the register's
    /// variable; written back to the `Cpu` at the next flush.
    fn set64(&mut self, r: usize, v: Value) {
        if r != 0 {
            self.b.def_var(self.regs[r], v);
            self.loaded |= 1 << r;
            self.dirty |= 1 << r;
            self.have32 &= !(1 << r);
        }
    }
    /// `Cpu::set32`: a 32-bit value sign-extended to 64 bits.
    fn set32(&mut self, r: usize, v: Value) {
        if r != 0 {
            let x = self.b.ins().sextend(types::I64, v);
            self.set64(r, x);
            self.b.def_var(self.regs32[r], v);
            self.have32 |= 1 << r;
        }
    }
    fn set128(&mut self, r: usize, lo: Value, hi: Value) {
        if r != 0 {
            self.set64(r, lo);
            self.st(hi, GPR + 16 * r as i32 + 8);
        }
    }
    /// Write the dirty registers back to the `Cpu`.
    fn flush(&mut self) {
        let mut d = self.dirty;
        while d != 0 {
            let r = d.trailing_zeros() as usize;
            d &= d - 1;
            let v = self.b.use_var(self.regs[r]);
            self.st(v, reg_offset(r));
        }
        self.dirty = 0;
    }
    /// Load (again) the cached registers in `mask` from the `Cpu` (after a helper wrote them).
    fn reload(&mut self, mask: u64) {
        let mut l = self.loaded & mask;
        while l != 0 {
            let r = l.trailing_zeros() as usize;
            l &= l - 1;
            let v = self.ld(types::I64, reg_offset(r));
            self.b.def_var(self.regs[r], v);
        }
        self.have32 &= !mask;
    }
    /// Forget the cached registers in `mask` (a helper wrote them): read from the `Cpu` at the
    /// next use.
    fn forget(&mut self, mask: u64) {
        self.loaded &= !mask;
        self.dirty &= !mask;
        self.have32 &= !mask;
    }
    fn bool64(&mut self, c: Value) -> Value {
        self.b.ins().uextend(types::I64, c)
    }
    /// A GPR as four 32-bit lanes, from memory (written back first when dirty).
    fn vec(&mut self, r: usize) -> Value {
        if r == 0 {
            let z = self.c32(0);
            self.b.ins().splat(types::I32X4, z)
        } else {
            if self.dirty & (1 << r) != 0 {
                let v = self.b.use_var(self.regs[r]);
                self.st(v, GPR + 16 * r as i32);
                self.dirty &= !(1 << r);
            }
            self.ld(types::I32X4, GPR + 16 * r as i32)
        }
    }

    // ------------------------------------------------------------ counters, exits, helpers

    /// `cycles` as the interpreter has it now.
    fn cycles_now(&mut self) -> Value {
        let b = self.b.use_var(self.base);
        self.b.ins().iadd_imm_s(b, self.off as i64)
    }

    fn pc_value(&mut self, pc: Pc) -> Value {
        match pc {
            Pc::Const(v) => self.c32(v),
            Pc::Npc => self.b.use_var(self.npc),
        }
    }

    /// Write `cur_pc`, `in_delay_slot` and `delay_next` as the interpreter leaves them after
    /// the instruction at `cur`.
    fn write_cur(&mut self, cur: u32, slot: bool) {
        let c = self.c32(cur);
        self.st(c, CUR_PC);
        // in_delay_slot and delay_next (false) are adjacent bytes: one 16-bit store.
        debug_assert_eq!(DELAY_NEXT, IN_DELAY + 1);
        let d = self.b.ins().iconst(types::I16, slot as i64);
        self.st(d, IN_DELAY);
    }

    /// Write `pc` and `next_pc` for `pc` next, and the cycle count.
    fn write_pc_cycles(&mut self, p: Value) {
        self.st(p, PC);
        let n = self.b.ins().iadd_imm_s(p, 4);
        self.st(n, NEXT_PC);
        let c = self.cycles_now();
        self.st(c, CYCLES);
    }

    /// Add this block's counts to the `Ctx`'s counters, with `done` instructions of the current
    /// pass completed.
    fn count(&mut self, done: u32) {
        let i = self.b.use_var(self.insns);
        let i = self.b.ins().iadd_imm_s(i, done as i64);
        self.add_ctx(CTX_INSNS, i);
        let r = self.b.use_var(self.runs);
        self.add_ctx(CTX_RUNS, r);
    }

    /// `ctx.field += v`.
    fn add_ctx(&mut self, field: i32, v: Value) {
        let old = self.b.ins().load(types::I64, mf(), self.ctxp, field);
        let new = self.b.ins().iadd(old, v);
        self.b.ins().store(mf(), new, self.ctxp, field);
    }

    /// Count (see [`Gen::count`]) and return `s`.
    fn ret_counted(&mut self, s: Value, done: u32) {
        self.count(done);
        self.b.ins().return_(&[s]);
    }

    /// Leave the block after the instruction at `cur` with `pc` next, `done` instructions of
    /// this pass completed: into the next block when the lookup table has it (the registers
    /// written back, the cycle count and the counters passed along), else back to the
    /// dispatcher with the whole state written.
    fn exit_chain(&mut self, cur: u32, slot: bool, pc: Pc, done: u32) {
        self.flush();
        self.write_cur(cur, slot);
        let p = self.pc_value(pc);
        let entry = match pc {
            Pc::Const(v) => {
                let off = (Lookup::index(v) * std::mem::size_of::<LookupEntry>()) as u64;
                self.c64(self.env.lookup + off)
            }
            Pc::Npc => {
                let i = self.b.ins().imul_imm_s(p, LOOKUP_MUL as i32 as i64);
                let i = self.b.ins().ushr_imm_s(i, (32 - LOOKUP_BITS) as i64);
                let i = self.b.ins().uextend(types::I64, i);
                let o = self.b.ins().imul_imm_s(i, size_of::<LookupEntry>() as i64);
                self.b.ins().iadd_imm_s(o, self.env.lookup as i64)
            }
        };
        let epc = self
            .b
            .ins()
            .load(types::I32, mf(), entry, offset_of!(LookupEntry, pc) as i32);
        let hit = self.b.ins().icmp(IntCC::Equal, epc, p);
        let go = self.b.create_block();
        let miss = self.b.create_block();
        self.b.ins().brif(hit, go, &[], miss, &[]);
        self.b.switch_to_block(go);
        let code = self.b.ins().load(
            types::I64,
            mf(),
            entry,
            offset_of!(LookupEntry, code) as i32,
        );
        self.count(done);
        let one = self.c64(1);
        self.add_ctx(CTX_CHAINED, one);
        let c = self.cycles_now();
        self.b
            .ins()
            .return_call_indirect(self.tsig, code, &[self.ctxp, self.cpu, c]);
        self.b.switch_to_block(miss);
        self.write_pc_cycles(p);
        let ok = self.b.ins().iconst(types::I32, status::OK as i64);
        self.ret_counted(ok, done);
    }

    /// Call the interpreter for `insn` (which writes the sequencing state and the cycle count
    /// first); returns its status. The registers must be written back.
    fn call_interp(&mut self, insn: &Insn) -> Value {
        let npc = if insn.slot {
            self.b.use_var(self.npc)
        } else {
            self.c32(0)
        };
        let c = self.cycles_now();
        let f = self.c64(h_interp as *const () as usize as u64);
        let site = self.c64(&self.sites[self.index as usize] as *const Site as usize as u64);
        let call = self
            .b
            .ins()
            .call_indirect(self.isig, f, &[self.ctxp, site, npc, c]);
        self.b.inst_results(call)[0]
    }

    /// Return `s` (a stop or an exception after this instruction) when it is not OK; continue
    /// in a fresh block otherwise.
    fn stop_unless_ok(&mut self, s: Value) {
        let out = self.b.create_block();
        let cont = self.b.create_block();
        self.b.set_cold_block(out);
        self.b.ins().brif(s, out, &[], cont, &[]);
        self.b.switch_to_block(out);
        self.ret_counted(s, self.done());
        self.b.switch_to_block(cont);
    }

    /// Run `insn` through the interpreter in line; afterwards the registers it writes are read
    /// from the `Cpu` again.
    fn fallback(&mut self, insn: &Insn) {
        self.flush();
        let s = self.call_interp(insn);
        self.stop_unless_ok(s);
        self.forget(reg_writes(insn));
    }

    /// Run a register-only instruction through [`h_exec`] (the interpreter's `h_interp` path
    /// when it fails).
    fn exec_registers(&mut self, insn: &Insn) {
        self.flush();
        let f = self.c64(h_exec as *const () as usize as u64);
        let info = self.c64(insn.info as *const OpInfo as usize as u64);
        let w = self.c32(insn.word);
        let call = self
            .b
            .ins()
            .call_indirect(self.esig, f, &[self.cpu, info, w]);
        let s = self.b.inst_results(call)[0];
        let mut j = self.new_join();
        let hot = self.b.create_block();
        let slow = self.slow_path(&mut j);
        self.b.ins().brif(s, slow, &[], hot, &[]);
        self.b.switch_to_block(hot);
        // What the instruction wrote is read from the `Cpu` at its next use, on either path.
        self.forget(reg_writes(insn));
        self.join(insn, j, 0);
    }

    fn new_join(&mut self) -> Join {
        Join {
            join: self.b.create_block(),
            slow: None,
            dirty: self.dirty,
        }
    }

    /// The slow path of the instruction for `j` (one per join, filled in by [`Gen::join`]):
    /// the interpreter runs the instruction; a stop or an exception leaves the block, otherwise
    /// it continues at the join with the registers the instruction writes read again. The
    /// registers must be written back before the first guard that branches here.
    fn slow_path(&mut self, j: &mut Join) -> Block {
        if let Some(s) = j.slow {
            return s;
        }
        let cold = self.b.create_block();
        self.b.set_cold_block(cold);
        j.slow = Some(cold);
        cold
    }

    /// Branch to the instruction's slow path when `fail` is non-zero; continue natively
    /// otherwise.
    fn guard(&mut self, fail: Value, j: &mut Join) {
        let slow = self.slow_path(j);
        let hot = self.b.create_block();
        self.b.ins().brif(fail, slow, &[], hot, &[]);
        self.b.switch_to_block(hot);
    }

    /// End a native instruction's hot path and meet its slow path, after which the registers
    /// in `writes` (those the instruction writes) are read from the `Cpu` again.
    fn join(&mut self, insn: &Insn, j: Join, writes: u64) {
        self.b.ins().jump(j.join, &[]);
        if let Some(cold) = j.slow {
            self.b.switch_to_block(cold);
            // The interpreter reads the registers from the `Cpu`.
            let dirty = self.dirty;
            self.dirty = j.dirty;
            self.flush();
            self.dirty = dirty;
            let s = self.call_interp(insn);
            let out = self.b.create_block();
            let tail = self.b.create_block();
            self.b.set_cold_block(out);
            self.b.set_cold_block(tail);
            self.b.ins().brif(s, out, &[], tail, &[]);
            self.b.switch_to_block(out);
            self.ret_counted(s, self.done());
            self.b.switch_to_block(tail);
            self.reload(writes);
            self.b.ins().jump(j.join, &[]);
        }
        self.b.switch_to_block(j.join);
    }

    /// `a + c` (`add`) or `a - c`, and whether it overflowed as a signed number of the operands'
    /// width (ADD/SUB on 32 bits, DADD/DSUB on 64): the sign bit of
    /// `(a ^ v) & (c ^ v)` for an add, `(a ^ c) & (a ^ v)` for a subtract.
    fn add_sub_overflow(&mut self, add: bool, a: Value, c: Value) -> (Value, Value) {
        let (v, x, y) = if add {
            let v = self.b.ins().iadd(a, c);
            (v, self.b.ins().bxor(a, v), self.b.ins().bxor(c, v))
        } else {
            let v = self.b.ins().isub(a, c);
            (v, self.b.ins().bxor(a, c), self.b.ins().bxor(a, v))
        };
        let sign = self.b.ins().band(x, y);
        (v, self.b.ins().icmp_imm_s(IntCC::SignedLessThan, sign, 0))
    }

    // ------------------------------------------------------------ the block

    /// The entry: the budget check, the loop's registers, then the header (which counts a run).
    fn prologue(&mut self, insns: &[Insn], loops: bool) {
        let c0 = self.b.use_var(self.base);
        let t = self.b.ins().load(types::I64, mf(), self.ctxp, CTX_TARGET);
        let c = self.b.ins().iadd_imm_s(c0, self.need as i64);
        let fits = self.b.ins().icmp(IntCC::UnsignedLessThan, c, t);
        let go = self.b.create_block();
        let no = self.b.create_block();
        self.b.set_cold_block(no);
        self.b.ins().brif(fits, go, &[], no, &[]);
        self.b.switch_to_block(no);
        // Nothing ran: the state is the one the previous block left (its pc is this start).
        let p = self.c32(insns[0].addr);
        self.write_pc_cycles(p);
        let s = self.b.ins().iconst(types::I32, status::BUDGET as i64);
        self.ret_counted(s, 0);
        self.b.switch_to_block(go);
        if loops {
            // Every register the loop touches lives in a variable across iterations; those it
            // writes are written back at its exits.
            let mut l = insns
                .iter()
                .fold(0, |m, i| m | reg_reads(i) | reg_writes(i));
            while l != 0 {
                let r = l.trailing_zeros() as usize;
                l &= l - 1;
                self.r64(r);
            }
        }
        self.b.ins().jump(self.header, &[]);
        self.b.switch_to_block(self.header);
        let r = self.b.use_var(self.runs);
        let r = self.b.ins().iadd_imm_s(r, 1);
        self.b.def_var(self.runs, r);
    }

    fn body(&mut self, insns: &[Insn], loops: bool, native: &mut [u32], fallback: &mut u32) {
        self.at_header = self.loaded;
        if loops {
            // Registers written in one pass are dirty at the header of the next.
            self.dirty = insns.iter().fold(0, |m, i| m | reg_writes(i)) & self.at_header;
        }
        self.dirty_at_header = self.dirty;
        let mut branch: Option<Insn> = None;
        for (i, insn) in insns.iter().enumerate() {
            self.index = i as u32;
            self.off += insn.info.cycles as u64;
            let cat = category(insn.info);
            let killed = self.kill.kills(insn.info);
            let f = insn.info.flags;
            if f.contains(OpFlags::BRANCH) && !f.contains(OpFlags::COP0) {
                branch = Some(*insn);
            }
            if !killed && self.native(insn) {
                native[cat.index()] += 1;
            } else {
                *fallback += 1;
                if !killed && register_only(insn) {
                    self.exec_registers(insn);
                } else {
                    self.fallback(insn);
                    if f.contains(OpFlags::BRANCH) && !f.contains(OpFlags::COP0) {
                        self.fallback_branch_outcome(insn);
                    }
                }
            }
            if insn.slot {
                let br = branch.take().expect("a delay slot follows its branch");
                self.after_slot(&br, insn);
            }
        }
        let last = insns.last().expect("a block has an instruction");
        if !last.slot {
            self.exit_chain(
                last.addr,
                false,
                Pc::Const(last.addr.wrapping_add(4)),
                self.done(),
            );
        }
    }

    /// Instructions of the current pass completed once the current one has.
    fn done(&self) -> u32 {
        self.index + 1 - self.skipped
    }

    /// The static state of the register cache and the counts, saved across a side exit.
    fn save(&self) -> Saved {
        Saved {
            loaded: self.loaded,
            dirty: self.dirty,
            have32: self.have32,
            off: self.off,
            skipped: self.skipped,
        }
    }

    fn restore(&mut self, s: Saved) {
        self.loaded = s.loaded;
        self.dirty = s.dirty;
        self.have32 = s.have32;
        self.off = s.off;
        self.skipped = s.skipped;
    }

    /// The delay slot `slot` of `br` has run: where the branch goes is `npc`. The block's last
    /// slot leaves the block (or loops back to its start); an earlier one leaves only when the
    /// branch was taken, and the block goes on with the fall-through path.
    fn after_slot(&mut self, br: &Insn, slot: &Insn) {
        let back = self.loops && static_target(br) == Some(self.start);
        if let Some((not_taken, state)) = self.likely_not_taken.take() {
            // A likely branch in the middle of the block, and this is its taken path (the slot
            // ran): it leaves. The block goes on where the branch was not taken (the slot
            // skipped).
            if back {
                let yes = self.b.ins().iconst(types::I8, 1);
                self.loop_back(yes);
            }
            self.exit_chain(slot.addr, true, Pc::Npc, self.done());
            self.b.switch_to_block(not_taken);
            self.restore(state);
            self.skipped += 1;
            return;
        }
        let n = self.b.use_var(self.npc);
        let again = if back {
            let again = self
                .b
                .ins()
                .icmp_imm_s(IntCC::Equal, n, self.start as i32 as i64);
            Some(again)
        } else {
            None
        };
        if self.index == self.last_index {
            if let Some(again) = again {
                self.loop_back(again);
            }
            self.exit_chain(slot.addr, true, Pc::Npc, self.done());
            return;
        }
        let here = self.save();
        let leave = self.b.create_block();
        let cont = self.b.create_block();
        let fall = br.addr.wrapping_add(8);
        let goes = self
            .b
            .ins()
            .icmp_imm_s(IntCC::NotEqual, n, fall as i32 as i64);
        self.b.ins().brif(goes, leave, &[], cont, &[]);
        self.b.switch_to_block(leave);
        if let Some(again) = again {
            self.loop_back(again);
        }
        self.exit_chain(slot.addr, true, Pc::Npc, self.done());
        self.b.switch_to_block(cont);
        self.restore(here);
    }

    /// Jump back to the block's start (its loop header) when `again` (an i8 condition) holds
    /// and the whole block still fits in the budget; otherwise continue here (with the state
    /// unchanged).
    fn loop_back(&mut self, again: Value) {
        let next = self.cycles_now();
        let c = self.b.ins().iadd_imm_s(next, self.need as i64);
        let t = self.b.ins().load(types::I64, mf(), self.ctxp, CTX_TARGET);
        let fits = self.b.ins().icmp(IntCC::UnsignedLessThan, c, t);
        let go = self.b.ins().band(again, fits);
        let back = self.b.create_block();
        let out = self.b.create_block();
        self.b.ins().brif(go, back, &[], out, &[]);
        self.b.switch_to_block(back);
        let saved = self.save();
        // The header expects the loop's registers in their variables, and at most those of
        // them dirty.
        self.dirty &= !self.dirty_at_header;
        self.flush();
        let missing = self.at_header & !self.loaded;
        self.loaded |= missing;
        self.reload(missing);
        let done = self.done();
        let i = self.b.use_var(self.insns);
        let i = self.b.ins().iadd_imm_s(i, done as i64);
        self.b.def_var(self.insns, i);
        self.b.def_var(self.base, next);
        self.b.ins().jump(self.header, &[]);
        self.b.switch_to_block(out);
        self.restore(saved);
    }

    /// After the interpreter ran a branch: a likely branch not taken has skipped its slot (leave
    /// with the state as it is); otherwise the slot runs next and `next_pc` is where it goes.
    fn fallback_branch_outcome(&mut self, insn: &Insn) {
        if insn.info.flags.contains(OpFlags::LIKELY) {
            let dn = self.ld(types::I8, DELAY_NEXT);
            let out = self.b.create_block();
            let cont = self.b.create_block();
            self.b.ins().brif(dn, cont, &[], out, &[]);
            self.b.switch_to_block(out);
            // The interpreter left the whole state (nothing is dirty after a fallback's flush).
            let ok = self.b.ins().iconst(types::I32, status::OK as i64);
            self.ret_counted(ok, self.done());
            self.b.switch_to_block(cont);
        }
        let n = self.ld(types::I32, NEXT_PC);
        self.b.def_var(self.npc, n);
    }

    /// A native branch decided `taken` (an i8 condition) to `target`: set `npc`. A likely
    /// branch not taken skips its slot: at the block's end it leaves the block; earlier, the
    /// block goes on there after the taken path (see [`Gen::after_slot`]).
    fn branch_to(&mut self, insn: &Insn, taken: Value, target: Value) {
        let fall = self.c32(insn.addr.wrapping_add(8));
        let n = self.b.ins().select(taken, target, fall);
        self.b.def_var(self.npc, n);
        if insn.info.flags.contains(OpFlags::LIKELY) {
            let out = self.b.create_block();
            let cont = self.b.create_block();
            self.b.ins().brif(taken, cont, &[], out, &[]);
            if self.index + 1 < self.last_index {
                self.likely_not_taken = Some((out, self.save()));
                self.b.switch_to_block(cont);
                return;
            }
            self.b.switch_to_block(out);
            // Not taken: the interpreter advanced pc past the slot.
            let saved = self.save();
            self.exit_chain(
                insn.addr,
                insn.slot,
                Pc::Const(insn.addr.wrapping_add(8)),
                self.done(),
            );
            self.restore(saved);
            self.b.switch_to_block(cont);
        }
    }

    fn link(&mut self, r: usize, insn: &Insn) {
        let v = self.c32(insn.addr.wrapping_add(8));
        self.set32(r, v);
    }

    /// `rs + simm`, the effective address (i32).
    fn ea(&mut self, w: u32) -> Value {
        let b = self.r32(rs(w));
        self.b.ins().iadd_imm_s(b, simm(w) as i64)
    }

    /// The host address for a `size`-byte access at `ea`, or a branch to the slow path: RAM
    /// (the segment and bound by one mask test with the alignment, and for a store the code-page
    /// map) or else the scratchpad (`0x7000_0000..0x7000_4000`).
    fn fast_addr(
        &mut self,
        ea: Value,
        size: u32,
        store: bool,
        align: Align,
        j: &mut Join,
    ) -> Value {
        let i64t = types::I64;
        let (ea, low) = match align {
            Align::Check => (ea, size - 1),
            Align::Mask(m) => (self.b.ins().band_imm_s(ea, !(m as i64)), 0),
        };
        let access = self.b.create_block();
        let host_param = self.b.append_block_param(access, i64t);
        let other = if self.env.spr != 0 {
            self.b.create_block()
        } else {
            self.slow_path(j)
        };
        if self.env.ram != 0 {
            let bad = self
                .b
                .ins()
                .band_imm_s(ea, (self.env.ram_mask | low) as i64);
            let ram = self.b.create_block();
            self.b.ins().brif(bad, other, &[], ram, &[]);
            self.b.switch_to_block(ram);
            let p32 = self.b.ins().band_imm_s(ea, 0x1fff_ffff);
            let p = self.b.ins().uextend(i64t, p32);
            if store {
                // A store into a page that holds compiled code takes the slow path, which drops
                // the blocks it overwrites.
                let pg = self.b.ins().ushr_imm_s(p, PAGE_SHIFT as i64);
                let a = self.b.ins().iadd_imm_s(pg, self.env.pages as i64);
                let code = self.b.ins().load(types::I8, mf(), a, 0);
                self.guard(code, j);
            }
            let host = self.b.ins().iadd_imm_s(p, self.env.ram as i64);
            self.b.ins().jump(access, &[BlockArg::Value(host)]);
        } else {
            self.b.ins().jump(other, &[]);
        }
        if self.env.spr != 0 {
            // Not RAM: the scratchpad, or the slow path (devices, faults).
            self.b.switch_to_block(other);
            let hi = self
                .b
                .ins()
                .band_imm_s(ea, (0xffff_c000 | low) as i32 as i64);
            let sbad = self.b.ins().icmp_imm_s(IntCC::NotEqual, hi, 0x7000_0000);
            self.guard(sbad, j);
            let off32 = self.b.ins().band_imm_s(ea, 0x3fff);
            let off = self.b.ins().uextend(i64t, off32);
            let host = self.b.ins().iadd_imm_s(off, self.env.spr as i64);
            self.b.ins().jump(access, &[BlockArg::Value(host)]);
        }
        self.b.switch_to_block(access);
        host_param
    }

    /// A coprocessor-usable guard (Status.CU1/CU2): the slow path raises the exception.
    fn cop_guard(&mut self, bit: u32, j: &mut Join) {
        let s = self.ld(types::I32, STATUS);
        let u = self.b.ins().band_imm_s(s, bit as i64);
        let bad = self.b.ins().icmp_imm_s(IntCC::Equal, u, 0);
        self.guard(bad, j);
    }

    /// Compile `insn` natively if it is one of the native kinds. False: use the fallback.
    fn native(&mut self, insn: &Insn) -> bool {
        let w = insn.word;
        let m = insn.info.op;
        let i32t = types::I32;
        let i64t = types::I64;
        match m {
            // ---------------------------------------------------- ALU, register forms
            Op::Addu | Op::Subu => {
                let a = self.r32(rs(w));
                let c = self.r32(rt(w));
                let v = if m == Op::Addu {
                    self.b.ins().iadd(a, c)
                } else {
                    self.b.ins().isub(a, c)
                };
                self.set32(rd(w), v);
            }
            Op::Add | Op::Sub => {
                let a = self.r32(rs(w));
                let c = self.r32(rt(w));
                let (v, of) = self.add_sub_overflow(m == Op::Add, a, c);
                let mut j = self.new_join();
                self.guard(of, &mut j);
                self.set32(rd(w), v);
                self.join(insn, j, reg_writes(insn));
            }
            Op::Daddu | Op::Dsubu | Op::And | Op::Or | Op::Xor | Op::Nor => {
                let a = self.r64(rs(w));
                let c = self.r64(rt(w));
                let v = match m {
                    Op::Daddu => self.b.ins().iadd(a, c),
                    Op::Dsubu => self.b.ins().isub(a, c),
                    Op::And => self.b.ins().band(a, c),
                    Op::Or => self.b.ins().bor(a, c),
                    Op::Xor => self.b.ins().bxor(a, c),
                    _ => {
                        let o = self.b.ins().bor(a, c);
                        self.b.ins().bnot(o)
                    }
                };
                self.set64(rd(w), v);
            }
            Op::Dadd | Op::Dsub => {
                let a = self.r64(rs(w));
                let c = self.r64(rt(w));
                let (v, of) = self.add_sub_overflow(m == Op::Dadd, a, c);
                let mut j = self.new_join();
                self.guard(of, &mut j);
                self.set64(rd(w), v);
                self.join(insn, j, reg_writes(insn));
            }
            Op::Slt | Op::Sltu => {
                let a = self.r64(rs(w));
                let c = self.r64(rt(w));
                let cc = if m == Op::Slt {
                    IntCC::SignedLessThan
                } else {
                    IntCC::UnsignedLessThan
                };
                let f = self.b.ins().icmp(cc, a, c);
                let v = self.bool64(f);
                self.set64(rd(w), v);
            }
            Op::Movz | Op::Movn => {
                let t = self.r64(rt(w));
                let s = self.r64(rs(w));
                let d = self.r64(rd(w));
                let cc = if m == Op::Movz {
                    IntCC::Equal
                } else {
                    IntCC::NotEqual
                };
                let c = self.b.ins().icmp_imm_s(cc, t, 0);
                let v = self.b.ins().select(c, s, d);
                self.set64(rd(w), v);
            }
            // ---------------------------------------------------- immediates
            Op::Addiu => {
                let a = self.r32(rs(w));
                let v = self.b.ins().iadd_imm_s(a, simm(w) as i64);
                self.set32(rt(w), v);
            }
            Op::Addi => {
                let a = self.r32(rs(w));
                let c = self.c32(simm(w) as u32);
                let (v, of) = self.add_sub_overflow(true, a, c);
                let mut j = self.new_join();
                self.guard(of, &mut j);
                self.set32(rt(w), v);
                self.join(insn, j, reg_writes(insn));
            }
            Op::Daddiu => {
                let a = self.r64(rs(w));
                let v = self.b.ins().iadd_imm_s(a, simm(w) as i64);
                self.set64(rt(w), v);
            }
            Op::Daddi => {
                let a = self.r64(rs(w));
                let c = self.c64(simm(w) as i64 as u64);
                let (v, of) = self.add_sub_overflow(true, a, c);
                let mut j = self.new_join();
                self.guard(of, &mut j);
                self.set64(rt(w), v);
                self.join(insn, j, reg_writes(insn));
            }
            Op::Slti | Op::Sltiu => {
                let a = self.r64(rs(w));
                let cc = if m == Op::Slti {
                    IntCC::SignedLessThan
                } else {
                    IntCC::UnsignedLessThan
                };
                let f = self.b.ins().icmp_imm_s(cc, a, simm(w) as i64);
                let v = self.bool64(f);
                self.set64(rt(w), v);
            }
            Op::Andi | Op::Ori | Op::Xori => {
                let a = self.r64(rs(w));
                let k = uimm(w) as i64;
                let v = match m {
                    Op::Andi => self.b.ins().band_imm_s(a, k),
                    Op::Ori => self.b.ins().bor_imm_s(a, k),
                    _ => self.b.ins().bxor_imm_s(a, k),
                };
                self.set64(rt(w), v);
            }
            Op::Lui => {
                let v = self.c64((uimm(w) << 16) as i32 as i64 as u64);
                self.set64(rt(w), v);
            }
            // ---------------------------------------------------- shifts
            Op::Sll | Op::Srl | Op::Sra => {
                if rd(w) != 0 {
                    let a = self.r32(rt(w));
                    let k = sa(w) as i64;
                    let v = match m {
                        Op::Sll => self.b.ins().ishl_imm_s(a, k),
                        Op::Srl => self.b.ins().ushr_imm_s(a, k),
                        _ => self.b.ins().sshr_imm_s(a, k),
                    };
                    self.set32(rd(w), v);
                }
            }
            Op::Sllv | Op::Srlv | Op::Srav => {
                let a = self.r32(rt(w));
                let s = self.r32(rs(w));
                let s = self.b.ins().band_imm_s(s, 31);
                let v = match m {
                    Op::Sllv => self.b.ins().ishl(a, s),
                    Op::Srlv => self.b.ins().ushr(a, s),
                    _ => self.b.ins().sshr(a, s),
                };
                self.set32(rd(w), v);
            }
            Op::Dsll | Op::Dsrl | Op::Dsra | Op::Dsll32 | Op::Dsrl32 | Op::Dsra32 => {
                let a = self.r64(rt(w));
                let k = sa(w) as i64
                    + if matches!(m, Op::Dsll32 | Op::Dsrl32 | Op::Dsra32) {
                        32
                    } else {
                        0
                    };
                let v = match m {
                    Op::Dsll | Op::Dsll32 => self.b.ins().ishl_imm_s(a, k),
                    Op::Dsrl | Op::Dsrl32 => self.b.ins().ushr_imm_s(a, k),
                    _ => self.b.ins().sshr_imm_s(a, k),
                };
                self.set64(rd(w), v);
            }
            Op::Dsllv | Op::Dsrlv | Op::Dsrav => {
                let a = self.r64(rt(w));
                let s = self.r64(rs(w));
                let s = self.b.ins().band_imm_s(s, 63);
                let v = match m {
                    Op::Dsllv => self.b.ins().ishl(a, s),
                    Op::Dsrlv => self.b.ins().ushr(a, s),
                    _ => self.b.ins().sshr(a, s),
                };
                self.set64(rd(w), v);
            }
            // ---------------------------------------------------- HI/LO, multiply, SA
            Op::Mfhi | Op::Mflo => {
                let v = self.r64(if m == Op::Mfhi { R_HI } else { R_LO });
                self.set64(rd(w), v);
            }
            Op::Mthi | Op::Mtlo => {
                let v = self.r64(rs(w));
                self.set64(if m == Op::Mthi { R_HI } else { R_LO }, v);
            }
            Op::Mult | Op::Multu => {
                let a = self.r32(rs(w));
                let c = self.r32(rt(w));
                let (a, c) = if m == Op::Mult {
                    (self.b.ins().sextend(i64t, a), self.b.ins().sextend(i64t, c))
                } else {
                    (self.b.ins().uextend(i64t, a), self.b.ins().uextend(i64t, c))
                };
                let p = self.b.ins().imul(a, c);
                let lo = self.b.ins().ireduce(i32t, p);
                let hi = self.b.ins().sshr_imm_s(p, 32);
                let hi = self.b.ins().ireduce(i32t, hi);
                self.set32(R_LO, lo);
                self.set32(R_HI, hi);
                self.set32(rd(w), lo);
            }
            Op::Div | Op::Divu => {
                // The R5900 never traps here: by zero gives quotient -1 (1 for a negative signed
                // dividend) and remainder the dividend; 0x80000000 / -1 gives 0x80000000 rem 0.
                // A divisor of 1 stands in for the cases the host would trap on.
                let n = self.r32(rs(w));
                let d = self.r32(rt(w));
                let zero = self.b.ins().icmp_imm_s(IntCC::Equal, d, 0);
                let one = self.c32(1);
                let (q, r) = if m == Op::Div {
                    let min = self.b.ins().icmp_imm_s(IntCC::Equal, n, i32::MIN as i64);
                    let m1 = self.b.ins().icmp_imm_s(IntCC::Equal, d, -1);
                    let ovf = self.b.ins().band(min, m1);
                    let odd = self.b.ins().bor(zero, ovf);
                    let ds = self.b.ins().select(odd, one, d);
                    let q = self.b.ins().sdiv(n, ds);
                    let r = self.b.ins().srem(n, ds);
                    let neg = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, n, 0);
                    let all = self.c32(u32::MAX);
                    let qz = self.b.ins().select(neg, one, all);
                    (
                        self.b.ins().select(zero, qz, q),
                        self.b.ins().select(zero, n, r),
                    )
                } else {
                    let ds = self.b.ins().select(zero, one, d);
                    let q = self.b.ins().udiv(n, ds);
                    let r = self.b.ins().urem(n, ds);
                    let all = self.c32(u32::MAX);
                    (
                        self.b.ins().select(zero, all, q),
                        self.b.ins().select(zero, n, r),
                    )
                };
                let q = self.b.ins().sextend(i64t, q);
                let r = self.b.ins().sextend(i64t, r);
                self.set64(R_LO, q);
                self.set64(R_HI, r);
            }
            Op::Mfsa => {
                let s = self.ld(i32t, SA);
                let s = self.b.ins().ushr_imm_s(s, 3);
                let v = self.b.ins().uextend(i64t, s);
                self.set64(rd(w), v);
            }
            Op::Mtsa | Op::Mtsab | Op::Mtsah => {
                let a = self.r32(rs(w));
                let v = match m {
                    Op::Mtsa => {
                        let x = self.b.ins().band_imm_s(a, 15);
                        self.b.ins().ishl_imm_s(x, 3)
                    }
                    Op::Mtsab => {
                        let x = self.b.ins().bxor_imm_s(a, uimm(w) as i64);
                        let x = self.b.ins().band_imm_s(x, 15);
                        self.b.ins().ishl_imm_s(x, 3)
                    }
                    _ => {
                        let x = self.b.ins().bxor_imm_s(a, uimm(w) as i64);
                        let x = self.b.ins().band_imm_s(x, 7);
                        self.b.ins().ishl_imm_s(x, 4)
                    }
                };
                self.st(v, SA);
            }
            Op::Sync | Op::Pref | Op::Cache => {}
            // ---------------------------------------------------- branches and jumps
            Op::Beq | Op::Bne | Op::Beql | Op::Bnel => {
                let a = self.r64(rs(w));
                let c = self.r64(rt(w));
                let cc = if matches!(m, Op::Beq | Op::Beql) {
                    IntCC::Equal
                } else {
                    IntCC::NotEqual
                };
                let taken = self.b.ins().icmp(cc, a, c);
                let t = self.c32(branch_target(insn));
                self.branch_to(insn, taken, t);
            }
            Op::Blez
            | Op::Bgtz
            | Op::Bltz
            | Op::Bgez
            | Op::Blezl
            | Op::Bgtzl
            | Op::Bltzl
            | Op::Bgezl
            | Op::Bltzal
            | Op::Bgezal
            | Op::Bltzall
            | Op::Bgezall => {
                let a = self.r64(rs(w));
                let cc = match m {
                    Op::Blez | Op::Blezl => IntCC::SignedLessThanOrEqual,
                    Op::Bgtz | Op::Bgtzl => IntCC::SignedGreaterThan,
                    Op::Bltz | Op::Bltzl | Op::Bltzal | Op::Bltzall => IntCC::SignedLessThan,
                    _ => IntCC::SignedGreaterThanOrEqual,
                };
                let taken = self.b.ins().icmp_imm_s(cc, a, 0);
                if insn.info.flags.contains(OpFlags::LINK) {
                    // Linked whether taken or not (after the condition read rs).
                    self.link(31, insn);
                }
                let t = self.c32(branch_target(insn));
                self.branch_to(insn, taken, t);
            }
            Op::J | Op::Jal => {
                let t = (insn.addr.wrapping_add(4) & 0xf000_0000) | (target(w) << 2);
                if m == Op::Jal {
                    self.link(31, insn);
                }
                let t = self.c32(t);
                self.b.def_var(self.npc, t);
            }
            Op::Jr | Op::Jalr => {
                let t = self.r32(rs(w));
                if m == Op::Jalr {
                    self.link(rd(w), insn);
                }
                self.b.def_var(self.npc, t);
            }
            // ---------------------------------------------------- loads and stores
            Op::Lb | Op::Lbu | Op::Lh | Op::Lhu | Op::Lw | Op::Lwu | Op::Ld | Op::Lq => {
                let (size, ty) = match m {
                    Op::Lb | Op::Lbu => (1, types::I8),
                    Op::Lh | Op::Lhu => (2, types::I16),
                    Op::Lw | Op::Lwu => (4, i32t),
                    Op::Ld => (8, i64t),
                    _ => (16, i64t),
                };
                let ea = self.ea(w);
                let mut j = self.new_join();
                let align = if m == Op::Lq {
                    Align::Mask(15)
                } else {
                    Align::Check
                };
                let host = self.fast_addr(ea, size, false, align, &mut j);
                let v = self.b.ins().load(ty, mf(), host, 0);
                let r = rt(w);
                match m {
                    Op::Lb | Op::Lh | Op::Lw => {
                        let v = self.b.ins().sextend(i64t, v);
                        self.set64(r, v);
                    }
                    Op::Lbu | Op::Lhu | Op::Lwu => {
                        let v = self.b.ins().uextend(i64t, v);
                        self.set64(r, v);
                    }
                    Op::Ld => self.set64(r, v),
                    _ => {
                        let hi = self.b.ins().load(i64t, mf(), host, 8);
                        self.set128(r, v, hi);
                    }
                }
                self.join(insn, j, reg_writes(insn));
            }
            Op::Sb | Op::Sh | Op::Sw | Op::Sd | Op::Sq => {
                let size = match m {
                    Op::Sb => 1,
                    Op::Sh => 2,
                    Op::Sw => 4,
                    Op::Sd => 8,
                    _ => 16,
                };
                let ea = self.ea(w);
                let mut j = self.new_join();
                let align = if m == Op::Sq {
                    Align::Mask(15)
                } else {
                    Align::Check
                };
                let host = self.fast_addr(ea, size, true, align, &mut j);
                let r = rt(w);
                let v = self.r64(r);
                match size {
                    1 => {
                        let x = self.b.ins().ireduce(types::I8, v);
                        self.b.ins().store(mf(), x, host, 0);
                    }
                    2 => {
                        let x = self.b.ins().ireduce(types::I16, v);
                        self.b.ins().store(mf(), x, host, 0);
                    }
                    4 => {
                        let x = self.b.ins().ireduce(i32t, v);
                        self.b.ins().store(mf(), x, host, 0);
                    }
                    8 => {
                        self.b.ins().store(mf(), v, host, 0);
                    }
                    _ => {
                        let h = self.r64h(r);
                        self.b.ins().store(mf(), v, host, 0);
                        self.b.ins().store(mf(), h, host, 8);
                    }
                }
                self.join(insn, j, reg_writes(insn));
            }
            Op::Lwl | Op::Lwr | Op::Ldl | Op::Ldr => {
                // The aligned word (doubleword) holding the addressed byte, merged into rt.
                let wide = matches!(m, Op::Ldl | Op::Ldr);
                let (bytes, ty) = if wide { (8u32, i64t) } else { (4, i32t) };
                let ea = self.ea(w);
                let mut j = self.new_join();
                let host = self.fast_addr(ea, bytes, false, Align::Mask(bytes - 1), &mut j);
                let mem = self.b.ins().load(ty, mf(), host, 0);
                let sh = self.b.ins().band_imm_s(ea, (bytes - 1) as i64);
                let sh = self.b.ins().ishl_imm_s(sh, 3);
                let sh = if wide {
                    self.b.ins().uextend(i64t, sh)
                } else {
                    sh
                };
                let top = 8 * bytes as i64 - 8;
                let r = rt(w);
                let old = self.r64(r);
                let top = self.b.ins().iconst(ty, top);
                let inv = self.b.ins().isub(top, sh);
                match m {
                    Op::Lwl => {
                        let old = self.b.ins().ireduce(i32t, old);
                        let k = self.c32(0x00ff_ffff);
                        let keep = self.b.ins().ushr(k, sh);
                        let kept = self.b.ins().band(old, keep);
                        let new = self.b.ins().ishl(mem, inv);
                        let v = self.b.ins().bor(kept, new);
                        self.set32(r, v);
                    }
                    Op::Lwr => {
                        // Aligned: the whole word, sign-extended; otherwise bits 32-63 stay.
                        let old32 = self.b.ins().ireduce(i32t, old);
                        let k = self.c32(0xffff_ff00);
                        let keep = self.b.ins().ishl(k, inv);
                        let kept = self.b.ins().band(old32, keep);
                        let new = self.b.ins().ushr(mem, sh);
                        let v = self.b.ins().bor(kept, new);
                        let v = self.b.ins().uextend(i64t, v);
                        let upper = self.b.ins().band_imm_s(old, !0xffff_ffffi64);
                        let merged = self.b.ins().bor(upper, v);
                        let full = self.b.ins().sextend(i64t, mem);
                        let v = self.b.ins().select(sh, merged, full);
                        self.set64(r, v);
                    }
                    Op::Ldl => {
                        let k = self.c64(0x00ff_ffff_ffff_ffff);
                        let keep = self.b.ins().ushr(k, sh);
                        let kept = self.b.ins().band(old, keep);
                        let new = self.b.ins().ishl(mem, inv);
                        let v = self.b.ins().bor(kept, new);
                        self.set64(r, v);
                    }
                    _ => {
                        // 0xff..ff00 << 56 is 0: nothing kept when aligned.
                        let k = self.c64(0xffff_ffff_ffff_ff00);
                        let keep = self.b.ins().ishl(k, inv);
                        let kept = self.b.ins().band(old, keep);
                        let new = self.b.ins().ushr(mem, sh);
                        let v = self.b.ins().bor(kept, new);
                        self.set64(r, v);
                    }
                }
                self.join(insn, j, reg_writes(insn));
            }
            Op::Swl | Op::Swr | Op::Sdl | Op::Sdr => {
                // Read-modify-write of the aligned word (doubleword) holding the addressed byte.
                let wide = matches!(m, Op::Sdl | Op::Sdr);
                let (bytes, ty) = if wide { (8u32, i64t) } else { (4, i32t) };
                let ea = self.ea(w);
                let mut j = self.new_join();
                let host = self.fast_addr(ea, bytes, true, Align::Mask(bytes - 1), &mut j);
                let mem = self.b.ins().load(ty, mf(), host, 0);
                let sh = self.b.ins().band_imm_s(ea, (bytes - 1) as i64);
                let sh = self.b.ins().ishl_imm_s(sh, 3);
                let sh = if wide {
                    self.b.ins().uextend(i64t, sh)
                } else {
                    sh
                };
                let top = 8 * bytes as i64 - 8;
                let v = self.r64(rt(w));
                let v = if wide {
                    v
                } else {
                    self.b.ins().ireduce(i32t, v)
                };
                let (keep, new) = if matches!(m, Op::Swl | Op::Sdl) {
                    // 0xff..ff00 << top is 0: nothing of memory kept at the last byte.
                    let k = self.b.ins().iconst(
                        ty,
                        if wide {
                            0xffff_ffff_ffff_ff00u64 as i64
                        } else {
                            0xffff_ff00u32 as i32 as i64
                        },
                    );
                    let keep = self.b.ins().ishl(k, sh);
                    let top = self.b.ins().iconst(ty, top);
                    let inv = self.b.ins().isub(top, sh);
                    (keep, self.b.ins().ushr(v, inv))
                } else {
                    let one = self.b.ins().iconst(ty, 1);
                    let bit = self.b.ins().ishl(one, sh);
                    (self.b.ins().iadd_imm_s(bit, -1), self.b.ins().ishl(v, sh))
                };
                let kept = self.b.ins().band(mem, keep);
                let out = self.b.ins().bor(kept, new);
                self.b.ins().store(mf(), out, host, 0);
                self.join(insn, j, 0);
            }
            // ---------------------------------------------------- MMI (128-bit)
            Op::Pand | Op::Por | Op::Pxor | Op::Pnor => {
                let a = [self.r64(rs(w)), self.r64h(rs(w))];
                let c = [self.r64(rt(w)), self.r64h(rt(w))];
                let v: [Value; 2] = std::array::from_fn(|i| match m {
                    Op::Pand => self.b.ins().band(a[i], c[i]),
                    Op::Por => self.b.ins().bor(a[i], c[i]),
                    Op::Pxor => self.b.ins().bxor(a[i], c[i]),
                    _ => {
                        let o = self.b.ins().bor(a[i], c[i]);
                        self.b.ins().bnot(o)
                    }
                });
                self.set128(rd(w), v[0], v[1]);
            }
            Op::Pcpyld | Op::Pcpyud => {
                let (lo, hi) = if m == Op::Pcpyld {
                    (self.r64(rt(w)), self.r64(rs(w)))
                } else {
                    (self.r64h(rs(w)), self.r64h(rt(w)))
                };
                self.set128(rd(w), lo, hi);
            }
            Op::Paddw | Op::Psubw => {
                let a = self.vec(rs(w));
                let c = self.vec(rt(w));
                let v = if m == Op::Paddw {
                    self.b.ins().iadd(a, c)
                } else {
                    self.b.ins().isub(a, c)
                };
                let r = rd(w);
                if r != 0 {
                    self.st(v, GPR + 16 * r as i32);
                    // The whole register was written in memory: forget the cached low half.
                    self.forget(1 << r);
                }
            }
            Op::Pmfhi | Op::Pmflo => {
                let (r, base) = if m == Op::Pmfhi {
                    (R_HI, HI)
                } else {
                    (R_LO, LO)
                };
                let lo = self.r64(r);
                let hi = self.ld(i64t, base + 8);
                self.set128(rd(w), lo, hi);
            }
            Op::Pmthi | Op::Pmtlo => {
                let (r, base) = if m == Op::Pmthi {
                    (R_HI, HI)
                } else {
                    (R_LO, LO)
                };
                let lo = self.r64(rs(w));
                let hi = self.r64h(rs(w));
                self.set64(r, lo);
                self.st(hi, base + 8);
            }
            // ---------------------------------------------------- COP1 moves and memory
            Op::Mfc1 => {
                let mut j = self.new_join();
                self.cop_guard(st::CU1, &mut j);
                let v = self.ld(i32t, FPR + 4 * fs(w) as i32);
                self.set32(rt(w), v);
                self.join(insn, j, reg_writes(insn));
            }
            Op::Mtc1 => {
                let mut j = self.new_join();
                self.cop_guard(st::CU1, &mut j);
                let v = self.r32(rt(w));
                self.st(v, FPR + 4 * fs(w) as i32);
                self.join(insn, j, reg_writes(insn));
            }
            Op::MovS | Op::NegS | Op::AbsS => {
                let mut j = self.new_join();
                self.cop_guard(st::CU1, &mut j);
                let v = self.ld(i32t, FPR + 4 * fs(w) as i32);
                let v = match m {
                    Op::MovS => v,
                    Op::NegS => self.b.ins().bxor_imm_s(v, 0x8000_0000u32 as i32 as i64),
                    _ => self.b.ins().band_imm_s(v, 0x7fff_ffff),
                };
                self.st(v, FPR + 4 * fd(w) as i32);
                if m != Op::MovS {
                    // NEG.S and ABS.S clear the O and U cause bits.
                    let f = self.ld(i32t, FCR31);
                    let mask =
                        !(piney_ee::interp::cop1::fcr31::O | piney_ee::interp::cop1::fcr31::U);
                    let f = self.b.ins().band_imm_s(f, mask as i32 as i64);
                    self.st(f, FCR31);
                }
                self.join(insn, j, reg_writes(insn));
            }
            Op::Lwc1 | Op::Swc1 => {
                let mut j = self.new_join();
                self.cop_guard(st::CU1, &mut j);
                let ea = self.ea(w);
                let store = m == Op::Swc1;
                let host = self.fast_addr(ea, 4, store, Align::Check, &mut j);
                if store {
                    let v = self.ld(i32t, FPR + 4 * ft(w) as i32);
                    self.b.ins().store(mf(), v, host, 0);
                } else {
                    let v = self.b.ins().load(i32t, mf(), host, 0);
                    self.st(v, FPR + 4 * ft(w) as i32);
                }
                self.join(insn, j, reg_writes(insn));
            }
            // ---------------------------------------------------- COP2 moves and memory
            // The .I forms (bit 0) wait for VU0 (the COP2 interlock): the interpreter's.
            Op::Qmfc2 | Op::Qmtc2 if w & 1 != 0 => return false,
            Op::Qmfc2 => {
                let mut j = self.new_join();
                self.cop_guard(st::CU2, &mut j);
                let lo = self.ld(i64t, VF + 16 * fs(w) as i32);
                let hi = self.ld(i64t, VF + 16 * fs(w) as i32 + 8);
                self.set128(rt(w), lo, hi);
                self.join(insn, j, reg_writes(insn));
            }
            Op::Qmtc2 => {
                let mut j = self.new_join();
                self.cop_guard(st::CU2, &mut j);
                if fs(w) != 0 {
                    let lo = self.r64(rt(w));
                    let hi = self.r64h(rt(w));
                    self.st(lo, VF + 16 * fs(w) as i32);
                    self.st(hi, VF + 16 * fs(w) as i32 + 8);
                }
                self.join(insn, j, reg_writes(insn));
            }
            Op::Lqc2 | Op::Sqc2 => {
                let mut j = self.new_join();
                self.cop_guard(st::CU2, &mut j);
                let ea = self.ea(w);
                let store = m == Op::Sqc2;
                let host = self.fast_addr(ea, 16, store, Align::Mask(15), &mut j);
                let r = ft(w);
                if store {
                    let lo = self.ld(i64t, VF + 16 * r as i32);
                    let hi = self.ld(i64t, VF + 16 * r as i32 + 8);
                    self.b.ins().store(mf(), lo, host, 0);
                    self.b.ins().store(mf(), hi, host, 8);
                } else if r != 0 {
                    let lo = self.b.ins().load(i64t, mf(), host, 0);
                    let hi = self.b.ins().load(i64t, mf(), host, 8);
                    self.st(lo, VF + 16 * r as i32);
                    self.st(hi, VF + 16 * r as i32 + 8);
                }
                self.join(insn, j, reg_writes(insn));
            }
            _ => return false,
        }
        true
    }
}

/// A PC-relative branch's target: the delay slot's address plus `offset << 2`.
fn branch_target(insn: &Insn) -> u32 {
    insn.addr
        .wrapping_add(4)
        .wrapping_add((simm(insn.word) << 2) as u32)
}

/// The instructions [`Gen::native`] compiles natively (for the report and the tests).
pub const NATIVE: &[Op] = &[
    Op::Addu,
    Op::Subu,
    Op::Add,
    Op::Sub,
    Op::Daddu,
    Op::Dsubu,
    Op::And,
    Op::Or,
    Op::Xor,
    Op::Nor,
    Op::Dadd,
    Op::Dsub,
    Op::Slt,
    Op::Sltu,
    Op::Movz,
    Op::Movn,
    Op::Addiu,
    Op::Addi,
    Op::Daddiu,
    Op::Daddi,
    Op::Slti,
    Op::Sltiu,
    Op::Andi,
    Op::Ori,
    Op::Xori,
    Op::Lui,
    Op::Sll,
    Op::Srl,
    Op::Sra,
    Op::Sllv,
    Op::Srlv,
    Op::Srav,
    Op::Dsll,
    Op::Dsrl,
    Op::Dsra,
    Op::Dsll32,
    Op::Dsrl32,
    Op::Dsra32,
    Op::Dsllv,
    Op::Dsrlv,
    Op::Dsrav,
    Op::Mfhi,
    Op::Mflo,
    Op::Mthi,
    Op::Mtlo,
    Op::Mult,
    Op::Multu,
    Op::Div,
    Op::Divu,
    Op::Mfsa,
    Op::Mtsa,
    Op::Mtsab,
    Op::Mtsah,
    Op::Sync,
    Op::Pref,
    Op::Cache,
    Op::Beq,
    Op::Bne,
    Op::Beql,
    Op::Bnel,
    Op::Blez,
    Op::Bgtz,
    Op::Bltz,
    Op::Bgez,
    Op::Blezl,
    Op::Bgtzl,
    Op::Bltzl,
    Op::Bgezl,
    Op::Bltzal,
    Op::Bgezal,
    Op::Bltzall,
    Op::Bgezall,
    Op::J,
    Op::Jal,
    Op::Jr,
    Op::Jalr,
    Op::Lb,
    Op::Lbu,
    Op::Lh,
    Op::Lhu,
    Op::Lw,
    Op::Lwu,
    Op::Ld,
    Op::Lq,
    Op::Sb,
    Op::Sh,
    Op::Sw,
    Op::Sd,
    Op::Sq,
    Op::Lwl,
    Op::Lwr,
    Op::Ldl,
    Op::Ldr,
    Op::Swl,
    Op::Swr,
    Op::Sdl,
    Op::Sdr,
    Op::Pand,
    Op::Por,
    Op::Pxor,
    Op::Pnor,
    Op::Pcpyld,
    Op::Pcpyud,
    Op::Paddw,
    Op::Psubw,
    Op::Pmfhi,
    Op::Pmflo,
    Op::Pmthi,
    Op::Pmtlo,
    Op::Mfc1,
    Op::Mtc1,
    Op::MovS,
    Op::NegS,
    Op::AbsS,
    Op::Lwc1,
    Op::Swc1,
    Op::Qmfc2,
    Op::Qmtc2,
    Op::Lqc2,
    Op::Sqc2,
];
