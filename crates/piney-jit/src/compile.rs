//! Block analysis and code generation.
//!
//! A block starts at a PC and runs straight on until, and including, a jump (JAL, JR, JALR)
//! and its delay slot, an instruction that ends a block (SYSCALL, BREAK, COP0, reserved
//! encodings), before a hooked instruction (see [`crate::HookSet`]), or after about
//! [`MAX_BLOCK`] instructions. Past a conditional branch and its slot it goes on with the
//! fall-through path (a superblock): the taken path leaves the block there, into the next block
//! like any exit, unless it goes to an instruction of the block (a label, below). Past a J or an
//! unconditional B and its slot it goes on at the jump's target (a trace, with no exit there)
//! unless that target is already in the block or in another segment; the block then covers
//! several ranges of memory, each tracked for invalidation. A block ends before the head of a
//! loop it took in through a conditional branch back (an instruction other than its first that
//! such a branch goes back to): the loop is a block of its own.
//! Labels: an instruction of the block (not a delay slot) that one of its branches goes to by a
//! fixed target (its start, when it loops; a later instruction a forward branch skips to; the
//! head a J or B at its end goes back to) is a label: the branch goes on there inside the
//! compiled code, not through an exit (see `flow`).
//! Every instruction
//! is compiled natively, or runs the interpreter's own `exec` from the opcode table: through
//! [`crate::ctx::h_exec`] when it only touches registers (FPU and VU0 macro arithmetic, most
//! MMI), else through [`crate::ctx::h_interp`] with the sequencing state written first. A native
//! instruction checks what could make it fault or leave plain RAM (overflow, alignment, a device
//! address, a store into compiled code) and hands exactly those cases to `h_interp`, from the
//! same state, so the interpreter raises the exception or talks to the device; the block then
//! returns to the dispatcher (see [`Gen::join`]). Loads and stores of one size through one base
//! register on a straight path share one RAM check, made by the first for the whole range
//! (see `ops::access_groups`).
//!
//! The generated function (Cranelift's `tail` convention, `(ctx, cpu) -> status`):
//! - starts only when every instruction of its first segment may start before the run's cycle
//!   target (else it returns [`status::BUDGET`] having changed nothing), and goes on into each
//!   later segment (after a conditional branch's slot, and at each label, whichever way it is
//!   reached) only when all of it may (else it leaves there with the state written and
//!   [`status::BUDGET`]);
//! - keeps the GPRs it uses in host registers, written back to the [`Cpu`] before helper calls
//!   that may read them (not around the FPU's and VU0's arithmetic, which names none), at exits
//!   and, outside a loop's body, before each guarded instruction when no later instruction
//!   writes them again (else in its slow path) (after a helper only
//!   what the instruction writes, as the opcode table says, is read again); a block with labels
//!   loads the registers it uses up to its last branch to one at the entry and keeps them in
//!   host registers across every label (a loop's iterations);
//! - counts cycles as a constant offset from its start, written to the `Cpu` before helper calls
//!   and at exits; a loop whose passes all take the same cycles derives its passes from them
//!   at its exits instead of counting them around the loop;
//! - at its end writes the state the interpreter would leave (`pc`, `next_pc`, `cur_pc`,
//!   `in_delay_slot`, `delay_next`, `cycles`), looks the next pc up in the [`Lookup`] table and
//!   tail-calls that block when it is there (it then checks the budget itself), else returns
//!   [`status::OK`] to the dispatcher.
//!
//! - shares one copy per block of the cold code its budget stops and slow paths end with.
//!
//! Here: the compiler (the Cranelift module, signatures, the block's frame: state access,
//! cycle counting, exits, chaining, slow paths); `scan` reads a block and classifies its
//! instructions from the opcode table; `flow` compiles the block's control flow (entry,
//! branches, segments, labels); `ops` holds the native code of each kind in [`NATIVE`] and the
//! memory access path.

use std::mem::offset_of;

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    AbiParam, Block, BlockArg, InstBuilder, InstructionData, MemFlagsData, Opcode, SigRef,
    Signature, Type, Value, types,
};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_codegen::{Context, isa};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::Module;
use piney_ee::OpInfo;
use piney_ee::cpu::{Cpu, status as st};
use piney_ee::table::fields::{fd, fs, ft, rd, rs, rt, sa, simm, target, uimm};
use piney_ee::table::{Op, OpFlags};

use crate::ctx::{
    CHAINED_ONE, Ctx, LOOKUP_BITS, LOOKUP_MUL, Lookup, LookupEntry, Site, h_exec, h_fadd, h_fmadd,
    h_fmsub, h_fmul, h_fsub, h_interp, h_interp_leave, status,
};
use crate::native::{BlockCode, Trampoline};
use crate::pages::PAGE_SHIFT;
use crate::{Category, JitError, KillSwitches};

mod cond;
mod exits;
mod flow;
mod ops;
mod scan;

use flow::{labels, region_end, segment_needs};
pub use ops::NATIVE;
pub(crate) use scan::{Insn, MAX_BLOCK, category, conditional, scan};
use scan::{R_HI, R_LO, REGS, branch_target, reg_reads, reg_writes, register_only};
pub(crate) use scan::{inlined_target, static_target};

/// Where the code compiled now finds guest memory and the recompiler's tables (host addresses
/// fixed in the code; the `Jit` drops every block when one of them changes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Env {
    /// Host address of guest RAM's byte 0; 0: no RAM fast path.
    pub ram: u64,
    /// Whether RAM also shows at `ram` plus each segment's base (see
    /// [`crate::JitBus::ram_mirrored`]): an address that passes `ram_mask` is then added to
    /// `ram` unmasked.
    pub mirrored: bool,
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
    /// The environment for RAM of `ram_len` bytes at `ram` (`mirrored` or not), a scratchpad
    /// of `spr_len` bytes at `spr` (used only when it is the whole 16 KiB), and the
    /// recompiler's tables.
    pub fn new(
        ram: *mut u8,
        ram_len: u64,
        mirrored: bool,
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
            mirrored: mirrored && ram != 0,
            ram_mask,
            spr: if spr_len >= 0x4000 { spr as u64 } else { 0 },
            pages: pages as u64,
            lookup: lookup as u64,
        }
    }
}

/// What a block is compiled from.
pub(crate) struct Source {
    /// Its instructions (from [`scan`]).
    pub insns: Vec<Insn>,
    /// The categories that use the interpreter's functions.
    pub kill: KillSwitches,
    /// Where its code finds guest memory and the recompiler's tables.
    pub env: Env,
    /// Per instruction: seen reaching the scratchpad (only those loads and stores get its fast
    /// path, see [`Gen::mem_access`]).
    pub spr: Vec<bool>,
    /// Whether it may keep registers as 32-bit values across its labels (see
    /// [`Gen::label_sext`]).
    pub assume32: bool,
}

/// A block's machine code, generated but not placed in code memory yet: position-independent
/// (it calls helpers and other blocks by absolute addresses held in the code, so Cranelift
/// leaves no relocations), hence made on any thread and placed by [`Compiler::install`].
pub(crate) struct Generated {
    bytes: Vec<u8>,
    /// The alignment the code asks for.
    align: u64,
    /// The block's sites (the code holds their addresses: a boxed slice never moves).
    sites: Box<[Site]>,
    /// Instructions in the block.
    pub len: u32,
    /// Native instructions per category (index [`Category::index`]).
    pub native: [u32; Category::COUNT],
    /// Instructions that run the interpreter's function ([`h_exec`] or [`h_interp`]).
    pub fallback: u32,
    /// Host time spent generating it (for the statistics only).
    pub time: std::time::Duration,
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
    /// Host time spent compiling it (for the statistics only).
    pub time: std::time::Duration,
}

/// Generates blocks' machine code ([`Codegen::generate`]): Cranelift's target and its reusable
/// contexts. One lives in the [`Compiler`]; the compile thread (see `worker`) owns another.
pub(crate) struct Codegen {
    isa: isa::OwnedTargetIsa,
    ctx: Context,
    fctx: FunctionBuilderContext,
    call_conv: isa::CallConv,
}

/// Owns the Cranelift JIT module (the code memory) and places blocks into it.
pub(crate) struct Compiler {
    module: Option<JITModule>,
    codegen: Codegen,
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
        let mut builder =
            JITBuilder::with_isa(isa.clone(), cranelift_module::default_libcall_names());
        // Blocks packed one after another instead of a page each (see `code_memory`); other
        // hosts keep Cranelift's provider, which also keeps their instruction caches coherent.
        if cfg!(target_arch = "x86_64") {
            builder.memory_provider(Box::new(crate::code_memory::PackedCode::default()));
        }
        let module = JITModule::new(builder);
        let ctx = module.make_context();
        let mut c = Self {
            module: Some(module),
            codegen: Codegen {
                isa,
                ctx,
                fctx: FunctionBuilderContext::new(),
                call_conv,
            },
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

    /// A code generator for another thread, for the same target.
    pub fn codegen(&self) -> Codegen {
        Codegen::new(self.codegen.isa.clone(), self.codegen.call_conv)
    }

    fn module(&mut self) -> &mut JITModule {
        self.module
            .as_mut()
            .expect("the module lives as long as the compiler")
    }

    /// `(ctx, cpu, block) -> status` in the C convention: calls `block(ctx, cpu, cpu.cycles)`.
    fn build_trampoline(&mut self) -> Result<*const u8, JitError> {
        let mut sig = Signature::new(self.codegen.call_conv);
        for _ in 0..3 {
            sig.params.push(AbiParam::new(types::I64));
        }
        sig.returns.push(AbiParam::new(types::I32));
        let id = self
            .module()
            .declare_anonymous_function(&sig)
            .map_err(|e| JitError::Setup(format!("declare: {e}")))?;
        let cg = &mut self.codegen;
        cg.ctx.func.signature = sig;
        {
            let mut b = FunctionBuilder::new(&mut cg.ctx.func, &mut cg.fctx);
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
            b.finalize(cg.isa.frontend_config());
        }
        self.finish(id, "the trampoline")
    }

    fn finish(&mut self, id: cranelift_module::FuncId, what: &str) -> Result<*const u8, JitError> {
        let module = self.module.as_mut().expect("module");
        let r = module.define_function(id, &mut self.codegen.ctx);
        module.clear_context(&mut self.codegen.ctx);
        r.map_err(|e| JitError::Compile(format!("{what}: {e:?}")))?;
        module
            .finalize_definitions()
            .map_err(|e| JitError::Compile(format!("finalize: {e}")))?;
        Ok(module.get_finalized_function(id))
    }

    /// Compile a block from `source`, on this thread ([`Codegen::generate`], then
    /// [`Compiler::install`]).
    pub fn compile(&mut self, source: &Source) -> Result<Compiled, JitError> {
        let t0 = std::time::Instant::now();
        let g = self.codegen.generate(source)?;
        let mut c = self.install(g)?;
        // Placing it counts too, here.
        c.time = t0.elapsed();
        Ok(c)
    }

    /// Place generated code in code memory: the block, ready to run.
    pub fn install(&mut self, g: Generated) -> Result<Compiled, JitError> {
        let module = self.module.as_mut().expect("module");
        let id = module
            .declare_anonymous_function(&block_sig())
            .map_err(|e| JitError::Compile(format!("declare: {e}")))?;
        module
            .define_function_bytes(id, g.align, &g.bytes, &[])
            .map_err(|e| JitError::Compile(format!("define: {e}")))?;
        module
            .finalize_definitions()
            .map_err(|e| JitError::Compile(format!("finalize: {e}")))?;
        let code = module.get_finalized_function(id);
        if let (Some(map), Some(first)) = (perf_map(), g.sites.first()) {
            map.block(code, g.bytes.len(), first.addr);
        }
        // The code holds the sites' addresses: they live as long as it does.
        self.sites.push(g.sites);
        Ok(Compiled {
            code: BlockCode(code),
            len: g.len,
            native: g.native,
            fallback: g.fallback,
            time: g.time,
        })
    }
}

impl Codegen {
    fn new(isa: isa::OwnedTargetIsa, call_conv: isa::CallConv) -> Self {
        Self {
            isa,
            ctx: Context::new(),
            fctx: FunctionBuilderContext::new(),
            call_conv,
        }
    }

    /// Generate the machine code of a block from `source`.
    pub fn generate(&mut self, source: &Source) -> Result<Generated, JitError> {
        let (insns, kill, env, spr, assume32) = (
            &source.insns[..],
            source.kill,
            &source.env,
            &source.spr[..],
            source.assume32,
        );
        let t0 = std::time::Instant::now();
        self.ctx.clear();
        self.ctx.func.signature = block_sig();
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
        // Labels: the instructions a branch of the block goes to (its start, a loop's head
        // inside it, a later instruction a forward branch skips to). Such a branch goes on there
        // inside the compiled code, with the registers in host registers, instead of leaving
        // the block for another. The registers the block touches up to its last such branch are
        // loaded at the entry and kept in variables across every label.
        let labels = labels(insns);
        let backs: Vec<usize> = insns
            .iter()
            .enumerate()
            .filter(|(_, i)| !i.slot && static_target(i) == Some(start))
            .map(|(n, _)| n)
            .collect();
        // A loop with one way back to the start, no other label and no likely branch (which may
        // skip a slot) completes the same number of instructions every pass: the instructions
        // of earlier passes are then a multiple of the passes, with no count of their own
        // carried around the loop.
        let likely = insns.iter().any(|i| i.info.flags.contains(OpFlags::LIKELY));
        let inner = labels.iter().skip(1).any(|&l| l);
        let region_end = region_end(insns, &labels);
        let pass_len = match backs[..] {
            [n] if !likely && !inner && insns.get(n + 1).is_some_and(|i| i.slot) => {
                Some(n as u32 + 2)
            }
            _ => None,
        };
        // Such a pass also takes the same cycles every time (the sum of its instructions'
        // costs): the passes then follow from the cycle count (see `Gen::runs_now`).
        let pass_cycles = pass_len
            .map(|n| {
                insns[..n as usize]
                    .iter()
                    .map(|i| i.info.cycles as u64)
                    .sum::<u64>()
            })
            .filter(|&c| c > 0);
        let need = segment_needs(insns, &labels);
        let mut later_writes = vec![0u64; insns.len()];
        let mut w = 0;
        for (k, insn) in insns.iter().enumerate().rev() {
            w |= reg_writes(insn);
            later_writes[k] = w;
        }
        // Per instruction: a later one reads HI before any writes it (see `Op::Mult`).
        let mut hi_read_later = vec![false; insns.len()];
        let mut read = false;
        for (k, insn) in insns.iter().enumerate().rev() {
            hi_read_later[k] = read;
            if reg_reads(insn) & (1 << R_HI) != 0 {
                read = true;
            } else if reg_writes(insn) & (1 << R_HI) != 0 {
                read = false;
            }
        }
        // Accesses that share one RAM check (see `ops::access_groups`): native ones (not
        // killed) without the scratchpad's path, in blocks with RAM's fast path.
        let cover = ops::access_groups(insns, &labels, |i| {
            env.ram != 0 && !kill.kills(insns[i].info) && !(env.spr != 0 && spr[i])
        });
        let any_label = labels.iter().any(|&l| l);
        // Registers kept as 32-bit values across the labels (see `Gen::label_sext`): at first
        // every register the labels keep; one that reaches a label without a known
        // sign-extended 32-bit value drops out, and the block is generated again.
        let kept = flow::narrow_at_labels(insns, region_end);
        let mut sext = if any_label && assume32 { kept } else { 0 };
        let mut native;
        let mut fallback;
        loop {
            native = [0u32; Category::COUNT];
            fallback = 0;
            let mut b = FunctionBuilder::new(&mut self.ctx.func, &mut self.fctx);
            let entry = b.create_block();
            b.append_block_params_for_function_params(entry);
            b.switch_to_block(entry);
            let params = b.block_params(entry).to_vec();
            let (ctxp, cpu) = (params[0], params[1]);
            let isig = b.import_signature(helper_sig(self.call_conv, true));
            let lsig = {
                let mut sig = helper_sig(self.call_conv, true);
                sig.params.push(AbiParam::new(types::I64));
                sig.params.push(AbiParam::new(types::I64));
                b.import_signature(sig)
            };
            let esig = b.import_signature(helper_sig(self.call_conv, false));
            let fsig = {
                // The FPU helpers: (acc, fs, ft) -> result bits | FCR31 bits << 32.
                let mut sig = Signature::new(self.call_conv);
                for _ in 0..3 {
                    sig.params.push(AbiParam::new(types::I32));
                }
                sig.returns.push(AbiParam::new(types::I64));
                b.import_signature(sig)
            };
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
            // The start's label is the header; every other label a block of its own.
            let label_blocks: Vec<Option<Block>> = labels
                .iter()
                .enumerate()
                .map(|(k, &l)| match (k, l) {
                    (_, false) => None,
                    (0, true) => Some(header),
                    (_, true) => Some(b.create_block()),
                })
                .collect();
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
                lsig,
                esig,
                fsig,
                tsig,
                sites: &sites,
                spr: spr.to_vec(),
                cover: cover.clone(),
                kill,
                env: *env,
                header,
                need: need.clone(),
                regs,
                regs32,
                loaded: 0,
                dirty: 0,
                have32: 0,
                index: 0,
                checked: false,
                skipped: 0,
                last_index: insns.len() as u32 - 1,
                labels: label_blocks,
                label_at: 0,
                pass_len,
                pass_cycles: pass_cycles.map(|c| (c, params[2])),
                loops: !backs.is_empty(),
                region_end,
                later_writes: &later_writes,
                hi_read_later: &hi_read_later,
                at_label: 0,
                dirty_at_label: 0,
                likely_not_taken: None,
                branch_taken: None,
                pending: Vec::new(),
                tails: Tails::default(),
                label_sext: sext,
                sext_lost: 0,
                stored: None,
                stored_now: None,
            };
            g.prologue(insns, any_label);
            g.body(insns, any_label, &mut native, &mut fallback);
            g.slow_paths();
            g.b.seal_all_blocks();
            let lost = g.sext_lost;
            g.b.finalize(self.isa.frontend_config());
            if lost == 0 {
                break;
            }
            sext &= !lost;
            self.ctx.clear();
            self.ctx.func.signature = block_sig();
        }
        // PINEY_JIT_DUMP=<start pc in hex>: print that block's IR and machine code (a debugging
        // aid for the recompiler's own developers).
        let dump = std::env::var_os("PINEY_JIT_DUMP")
            .is_some_and(|v| v.to_str() == Some(format!("{start:x}").as_str()));
        if dump {
            eprintln!("{}", self.ctx.func.display());
            self.ctx.set_disasm(true);
        }
        let r = self
            .ctx
            .compile(&*self.isa, &mut Default::default())
            .map(|c| {
                let relocs = c.buffer.relocs().len();
                (c.code_buffer().to_vec(), c.buffer.alignment as u64, relocs)
            })
            .map_err(|e| JitError::Compile(format!("block at {start:#010x}: {:?}", e.inner)));
        if dump {
            if let Some(vcode) = self.ctx.compiled_code().and_then(|c| c.vcode.as_ref()) {
                eprintln!("{vcode}");
            }
            self.ctx.set_disasm(false);
        }
        self.ctx.clear();
        let (bytes, align, relocs) = r?;
        if relocs != 0 {
            // Never seen: the code reaches everything through addresses it holds.
            return Err(JitError::Compile(format!(
                "block at {start:#010x}: {relocs} relocations"
            )));
        }
        Ok(Generated {
            bytes,
            align,
            sites,
            len: insns.len() as u32,
            native,
            fallback,
            time: t0.elapsed(),
        })
    }
}

/// `PINEY_PERF_MAP=1`: every block's host code range is written to `/tmp/perf-<pid>.map` as
/// `ee_<guest pc>`, the map Linux `perf` reads for code it finds no file for (a profiling aid
/// for the recompiler's own developers: `perf report` then names the guest code that ran).
fn perf_map() -> Option<&'static PerfMap> {
    static MAP: std::sync::OnceLock<Option<PerfMap>> = std::sync::OnceLock::new();
    MAP.get_or_init(|| {
        std::env::var_os("PINEY_PERF_MAP")?;
        let path = format!("/tmp/perf-{}.map", std::process::id());
        match std::fs::File::create(&path) {
            Ok(f) => Some(PerfMap(std::sync::Mutex::new(f))),
            Err(e) => {
                eprintln!("piney: PINEY_PERF_MAP: {path}: {e}");
                None
            }
        }
    })
    .as_ref()
}

/// The open perf map (see [`perf_map`]).
struct PerfMap(std::sync::Mutex<std::fs::File>);

impl PerfMap {
    fn block(&self, code: *const u8, len: usize, pc: u32) {
        use std::io::Write;
        if let Ok(mut f) = self.0.lock() {
            // Best effort: a full disk loses a profile's names, never the run.
            let _ = writeln!(f, "{:x} {len:x} ee_{pc:08x}", code as usize);
        }
    }
}

impl Drop for Compiler {
    fn drop(&mut self) {
        if let Some(m) = self.module.take() {
            crate::native::free(m);
        }
    }
}

/// Where cached register `r` lives in the `Cpu`.
fn reg_offset(r: usize) -> i32 {
    match r {
        R_LO => LO,
        R_HI => HI,
        _ => GPR + 16 * r as i32,
    }
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
const FPU_ACC: i32 = (offset_of!(Cpu, fpu) + offset_of!(piney_ee::cpu::Fpu, acc)) as i32;
const VF: i32 = (offset_of!(Cpu, vu0) + offset_of!(piney_ee::cpu::Vu0Regs, vf)) as i32;
const STATUS: i32 = (offset_of!(Cpu, cop0) + offset_of!(piney_ee::cpu::Cop0, regs)) as i32
    + 4 * piney_ee::cpu::cop0reg::STATUS as i32;

// Field offsets in Ctx.
const CTX_TARGET: i32 = offset_of!(Ctx<'_>, target) as i32;
const CTX_COUNTS: i32 = offset_of!(Ctx<'_>, counts) as i32;
const CTX_PASSES: i32 = offset_of!(Ctx<'_>, passes) as i32;
const CTX_BUDGET_STOPS: i32 = offset_of!(Ctx<'_>, budget_stops) as i32;

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
    /// [`h_interp_leave`]'s signature.
    lsig: SigRef,
    /// [`h_exec`]'s signature.
    esig: SigRef,
    /// The FPU arithmetic helpers' signature ([`crate::ctx::h_fadd`] and the others).
    fsig: SigRef,
    tsig: SigRef,
    /// The block's instructions as [`h_interp`] sees them.
    sites: &'a [Site],
    /// Per instruction: it has been seen reaching the scratchpad.
    spr: Vec<bool>,
    /// How each instruction's RAM access is checked (see `ops::access_groups`).
    cover: Vec<ops::Cover>,
    kill: KillSwitches,
    env: Env,
    /// Where the block's first instruction begins.
    header: Block,
    /// Per instruction that starts a segment (the block's first, and the first after each
    /// conditional branch's slot where the block goes on), the cycles the segment needs left in
    /// the budget to run whole: its cost minus its last instruction's (the interpreter starts
    /// an instruction while `cycles < target`). See [`segment_needs`].
    need: Vec<u64>,
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
    /// A segment check already ran after the current instruction ([`Gen::segment_check`]).
    checked: bool,
    /// Instructions of the block the current path skipped (slots of likely branches not
    /// taken).
    skipped: u32,
    /// The index of the block's last instruction.
    last_index: u32,
    /// Per instruction: its label's Cranelift block, where a branch of the block goes on to it
    /// (the header for the first instruction).
    labels: Vec<Option<Block>>,
    /// The index of the label the current path last passed (0 at the start): the instructions
    /// of the current pass are counted from there.
    label_at: u32,
    /// Instructions in every pass of the loop when they are the same for all (see
    /// [`Gen::earlier_passes`]).
    pass_len: Option<u32>,
    /// With `pass_len`, the cycles of every pass and the cycle count at the entry: the passes
    /// are then `(base - entry) / cycles + 1`, with no count carried around the loop.
    pass_cycles: Option<(u64, Value)>,
    /// The block branches back to its start: a run may take more than one pass.
    loops: bool,
    /// Per instruction: the registers it or a later instruction of the block writes.
    later_writes: &'a [u64],
    /// Per instruction: a later instruction of the block reads HI before one writes it.
    hi_read_later: &'a [bool],
    /// The index of the last instruction that goes to a label (the slot of the last branch to
    /// one; 0 when there is none): past it, code runs once per block run.
    region_end: u32,
    /// Registers loaded at every label (loaded at the entry, kept in their variables).
    at_label: u64,
    /// Registers dirty at every label (at most these; written back at the exits).
    dirty_at_label: u64,
    /// Where a likely branch in the middle of the block goes on when not taken, and the state
    /// there (set by [`Gen::branch_to`], used after the slot).
    likely_not_taken: Option<(Block, Saved)>,
    /// The condition of the branch whose slot is being compiled, when it was compiled natively
    /// ([`Gen::branch_to`]): where the branch goes then follows from it, with no comparison of
    /// `npc` (see [`Gen::after_slot`]).
    branch_taken: Option<Value>,
    /// Slow paths to fill in after the body.
    pending: Vec<Pending>,
    /// The shared exit code.
    tails: Tails,
    /// Registers every path brings to the labels as known sign-extended 32-bit values (their
    /// `regs32` variables current; the block checks them at its entry): across the labels
    /// their 32-bit value is the one kept, the 64 bits derived where needed. 32-bit code then
    /// stays 32-bit around a loop instead of keeping both widths of every value.
    label_sext: u64,
    /// Registers of `label_sext` that some path brought to a label without such a value: the
    /// block is generated again without them.
    sext_lost: u64,
    /// The last word stored natively, `(base register, offset, value)`, while a load from the
    /// same address would read it back: on one straight stretch of the block (no label, branch
    /// or delay slot since), with no other store, no instruction run by the interpreter and no
    /// write of the base register since. A load there takes the value instead of reading it
    /// (see [`Gen::forwarded`]).
    stored: Option<(usize, i32, Value)>,
    /// The store the current instruction made (see `stored`).
    stored_now: Option<(usize, i32, Value)>,
}

/// Blocks that the exits of a kind share (cold code compiled once per block, the per-exit part
/// being the registers' write-back and a jump with the exit's values), each created when an exit
/// first needs it.
#[derive(Clone, Copy, Default)]
struct Tails {
    /// A later segment does not fit in the budget: `(cur_pc, in_delay_slot and delay_next as
    /// an i16, pc, cycles, instructions completed)`.
    stop: Option<Block>,
    /// A slow path: `(site, npc, cycles, instructions completed)`, the registers written back.
    slow: Option<Block>,
    /// An exit to a known next pc (chained when the lookup table has it): `(lookup entry, pc,
    /// cycles, instructions completed)`, the registers and `cur_pc` written back. Not cold:
    /// chained exits are the hot way from block to block.
    chain: Option<Block>,
}

/// A cold block with parameters of these types.
fn cold_block(b: &mut FunctionBuilder<'_>, params: &[types::Type]) -> Block {
    let block = b.create_block();
    for &t in params {
        b.append_block_param(block, t);
    }
    b.set_cold_block(block);
    block
}

/// A slow path to fill in after the body (see [`Gen::join`]), and the state of its
/// instruction.
struct Pending {
    block: Block,
    /// The registers dirty before the instruction.
    dirty: u64,
    /// [`Join::have32`].
    have32: u64,
    index: u32,
    label_at: u32,
    skipped: u32,
    off: u64,
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

/// A guarded native instruction's slow path.
struct Join {
    /// The slow path, once a guard needs it.
    slow: Option<Block>,
    /// The registers dirty before the instruction: its slow path writes them back before the
    /// interpreter runs.
    dirty: u64,
    /// The registers known as sign-extended 32-bit values before the instruction (their values
    /// written back from the 32 bits, see [`Gen::r64`]).
    have32: u64,
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
    /// The constant `v` holds, when an `iconst` defines it.
    fn constant(&self, v: Value) -> Option<i64> {
        let inst = self.b.func.dfg.value_def(v).inst()?;
        match self.b.func.dfg.insts[inst] {
            InstructionData::UnaryImm {
                opcode: Opcode::Iconst,
                imm,
            } => Some(imm.bits()),
            _ => None,
        }
    }
    /// `v + imm` (an i32 or i64): `v` itself for 0, a constant for a constant (no instruction
    /// for Cranelift's optimiser to fold: blocks compile faster).
    fn add_imm(&mut self, v: Value, imm: i64) -> Value {
        if imm == 0 {
            return v;
        }
        let ty = self.b.func.dfg.value_type(v);
        match self.constant(v) {
            Some(c) if ty == types::I32 => self.c32((c as i32).wrapping_add(imm as i32) as u32),
            Some(c) if ty == types::I64 => self.c64(c.wrapping_add(imm) as u64),
            _ => {
                // `(x + a) + imm` as `x + (a + imm)`.
                if let Some(inst) = self.b.func.dfg.value_def(v).inst()
                    && let InstructionData::Binary {
                        opcode: Opcode::Iadd,
                        args: [arg, c],
                    } = self.b.func.dfg.insts[inst]
                    && let Some(a) = self.constant(c)
                {
                    let sum = if ty == types::I32 {
                        (a as i32).wrapping_add(imm as i32) as i64
                    } else {
                        a.wrapping_add(imm)
                    };
                    return if sum == 0 {
                        arg
                    } else {
                        self.b.ins().iadd_imm_s(arg, sum)
                    };
                }
                self.b.ins().iadd_imm_s(v, imm)
            }
        }
    }
    /// Low 64 bits of a cached register (GPR, LO or HI), from its variable once used.
    fn r64(&mut self, r: usize) -> Value {
        if r == 0 {
            self.c64(0)
        } else if (self.have32 | self.loaded) & (1 << r) != 0 {
            self.cached64(r)
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
    /// The value of register `r`, which is in its variables (dirty, or loaded). Where its 32
    /// bits are current, the 64 are their sign extension (see `set32`), derived from them so
    /// that a register kept 32-bit across labels needs no 64-bit variable. (Slow paths flush
    /// with this, not [`Gen::r64`], which reads a register not loaded from the `Cpu`: a slow
    /// path has the state of its instruction, not the one where the body's generation ended.)
    fn cached64(&mut self, r: usize) -> Value {
        if self.have32 & (1 << r) != 0 {
            let v = self.b.use_var(self.regs32[r]);
            self.b.ins().sextend(types::I64, v)
        } else {
            self.b.use_var(self.regs[r])
        }
    }
    /// Whether register `r`'s value is known to be a sign-extended 32-bit one ($0, or last
    /// written as one: its `regs32` variable current).
    fn known32(&self, r: usize) -> bool {
        r == 0 || self.have32 & (1 << r) != 0
    }
    /// Registers `a` and `b` for a comparison or a bitwise operation: their 32 bits when both
    /// are known sign-extended 32-bit values (signed and unsigned order and equality are then
    /// those of the 64 bits, and a bitwise result is sign-extended too), else their 64.
    fn pair(&mut self, a: usize, b: usize) -> (Value, Value) {
        if self.known32(a) && self.known32(b) {
            (self.r32(a), self.r32(b))
        } else {
            (self.r64(a), self.r64(b))
        }
    }
    /// Register `r` for a comparison or a bitwise operation with an immediate (see
    /// [`Gen::pair`]).
    fn one(&mut self, r: usize) -> Value {
        if self.known32(r) {
            self.r32(r)
        } else {
            self.r64(r)
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
    /// `Cpu::set32`: a 32-bit value sign-extended to 64 bits. Only the 32-bit variable is set:
    /// the 64 bits are derived where they are used (see [`Gen::cached64`]; a label that keeps
    /// the register 64-bit gets them on the way there, see `go_to_label`).
    fn set32(&mut self, r: usize, v: Value) {
        if r != 0 {
            self.b.def_var(self.regs32[r], v);
            self.loaded |= 1 << r;
            self.dirty |= 1 << r;
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
        self.flush_mask(self.dirty);
    }
    /// Write the dirty registers of `mask` back to the `Cpu`.
    fn flush_mask(&mut self, mask: u64) {
        let mut d = self.dirty & mask;
        while d != 0 {
            let r = d.trailing_zeros() as usize;
            d &= d - 1;
            let v = self.cached64(r);
            self.st(v, reg_offset(r));
        }
        self.dirty &= !mask;
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
    /// A GPR as four 32-bit lanes, from memory (written back first when dirty).
    fn vec(&mut self, r: usize) -> Value {
        if r == 0 {
            let z = self.c32(0);
            self.b.ins().splat(types::I32X4, z)
        } else {
            if self.dirty & (1 << r) != 0 {
                let v = self.cached64(r);
                self.st(v, GPR + 16 * r as i32);
                self.dirty &= !(1 << r);
            }
            self.ld(types::I32X4, GPR + 16 * r as i32)
        }
    }

    // ------------------------------------------------------------ helpers

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
        // The cached registers are written back only for an instruction that names one (MMI,
        // the COP1/COP2 moves): FPU and VU0 macro arithmetic touch only their own register
        // files, so a loop's GPRs stay in host registers around them (the slow path, which
        // runs the whole instruction through the interpreter, writes them back itself).
        if reg_reads(insn) | reg_writes(insn) != 0 {
            self.flush();
        }
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
        self.join(j);
    }

    fn new_join(&mut self) -> Join {
        // Outside a loop's body (code run once per block run), a dirty register that no later
        // instruction of the block writes is written back before a guarded instruction rather
        // than in its slow path: that store is the one the exit would make anyway, made
        // earlier, and the slow paths stay short (every slow path storing every register still
        // dirty made a run of n loads, a function's epilogue, compile n * n / 2 stores). A
        // register written again later stays in its host register, written back by the slow
        // path only, instead of a store at every guard. bench_compute at --jit-threshold 0
        // (callgrind): generated code 3923.1M -> 3796.1M instructions, Codegen::generate
        // 471.3M -> 479.8M (writing every register back eagerly, as before; none at all:
        // 3802.3M and 516.2M). Inside a loop they stay in host registers.
        if self.index > self.region_end {
            let keep = self.later_writes[self.index as usize];
            self.flush_mask(self.dirty & !keep);
        }
        Join {
            slow: None,
            dirty: self.dirty,
            have32: self.have32,
        }
    }

    /// The slow path of the instruction for `j` (one per instruction, filled in after the
    /// block's body by [`Gen::slow_paths`]):
    /// the interpreter runs the instruction and the block returns to the dispatcher. The
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

    /// End a native instruction's hot path: it goes on in the current Cranelift block (no join:
    /// the slow path never comes back). The slow path leaves the block whatever the
    /// interpreter's function returns: with the state it wrote (registers written back first,
    /// this instruction completed or its exception entered), the dispatcher goes on at the next
    /// pc. Slow paths that could go on in the block are rare (a fault, a device, a store into a
    /// code page all stop the block anyway), and with nothing of the block live across the call
    /// a block with no other call needs no callee-saved registers (no saves and restores at
    /// every entry and exit). Its code is emitted after the body ([`Gen::slow_paths`]): fewer
    /// Cranelift blocks and jumps to compile.
    fn join(&mut self, j: Join) {
        if let Some(block) = j.slow {
            self.pending.push(Pending {
                block,
                dirty: j.dirty,
                have32: j.have32,
                index: self.index,
                label_at: self.label_at,
                skipped: self.skipped,
                off: self.off,
            });
        }
    }

    /// Fill in the slow paths [`Gen::join`] left, each as at its instruction: the registers
    /// dirty before it written back (their values are the ones reaching the slow path through
    /// its guards), then the interpreter runs the instruction and the block returns.
    fn slow_paths(&mut self) {
        for p in std::mem::take(&mut self.pending) {
            self.b.switch_to_block(p.block);
            self.index = p.index;
            self.label_at = p.label_at;
            self.skipped = p.skipped;
            self.off = p.off;
            // The interpreter reads the registers from the `Cpu`.
            self.dirty = p.dirty;
            self.have32 = p.have32;
            self.flush();
            // The helper adds the counts too (the instruction counts whether it completes or
            // faults): nothing is needed after the call, and the cold path stays short.
            // A delay slot: the interpreter is told where its branch goes.
            let npc = if self.sites[p.index as usize].slot {
                self.b.use_var(self.npc)
            } else {
                self.c32(0)
            };
            let c = self.cycles_now();
            let site = self.c64(&self.sites[self.index as usize] as *const Site as usize as u64);
            let i = self.completed(self.done());
            let tail = *self.tails.slow.get_or_insert_with(|| {
                cold_block(
                    &mut self.b,
                    &[types::I64, types::I32, types::I64, types::I64],
                )
            });
            self.b
                .ins()
                .jump(tail, &[site, npc, c, i].map(BlockArg::Value));
        }
        self.fill_tails();
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

    fn link(&mut self, r: usize, insn: &Insn) {
        let v = self.c32(insn.addr.wrapping_add(8));
        self.set32(r, v);
    }

    /// The i64 that orders a PS2 float as C.EQ/LT/LE.S compare (`piney_ee::float`'s order):
    /// its magnitude bits, 0 for exponent 0, negated when the sign is set.
    fn float_order_key(&mut self, x: Value) -> Value {
        let e = self.b.ins().band_imm_s(x, 0x7f80_0000);
        let zero = self.b.ins().icmp_imm_s(IntCC::Equal, e, 0);
        let mag = self.b.ins().band_imm_s(x, 0x7fff_ffff);
        let mag = self.b.ins().uextend(types::I64, mag);
        let z = self.c64(0);
        let mag = self.b.ins().select(zero, z, mag);
        let neg = self.b.ins().ineg(mag);
        let sign = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, x, 0);
        self.b.ins().select(sign, neg, mag)
    }

    /// A coprocessor-usable guard (Status.CU1/CU2): the slow path raises the exception.
    fn cop_guard(&mut self, bit: u32, j: &mut Join) {
        let s = self.ld(types::I32, STATUS);
        let u = self.b.ins().band_imm_s(s, bit as i64);
        let bad = self.b.ins().icmp_imm_s(IntCC::Equal, u, 0);
        self.guard(bad, j);
    }
}

/// The inverse of the odd number `x` modulo 2^64 (Newton's iteration: each step doubles the
/// bits that are right, from the 3 that `x` itself gets right).
fn inverse_mod_2_64(x: u64) -> u64 {
    debug_assert!(x & 1 == 1);
    let mut y = x;
    for _ in 0..5 {
        y = y.wrapping_mul(2u64.wrapping_sub(x.wrapping_mul(y)));
    }
    y
}

#[cfg(test)]
mod tests {
    use super::inverse_mod_2_64;

    #[test]
    fn the_inverse_of_an_odd_number_modulo_2_64() {
        for x in [1u64, 3, 5, 7, 25, 0x9e37_79b9, u64::MAX, (1 << 63) + 1] {
            assert_eq!(x.wrapping_mul(inverse_mod_2_64(x)), 1, "{x}");
        }
        // Exact division of multiples, as blocks count their passes: 13 cycles a pass.
        for k in [0u64, 1, 2, 1000, 1 << 40] {
            assert_eq!((k * 13).wrapping_mul(inverse_mod_2_64(13)), k);
        }
    }
}
