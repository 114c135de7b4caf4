//! Block analysis and code generation.
//!
//! A block starts at a PC and runs straight on until, and including, a branch and its delay slot,
//! an instruction that ends a block (SYSCALL, BREAK, COP0, reserved encodings), before a hooked
//! instruction (see [`crate::HookSet`]), or after [`MAX_BLOCK`] instructions. Every instruction is either compiled natively or falls back to the
//! interpreter's `exec` through [`crate::ctx::h_interp`]. A native instruction checks what could
//! make it fault or leave plain RAM (overflow, alignment, a device address, a store into compiled
//! code, an unusable coprocessor) and hands exactly those cases to the same fallback, from the
//! same state, so the interpreter raises the exception or talks to the device.
//!
//! Guest registers stay in the [`Cpu`] struct in memory (no register allocation across
//! instructions); the cycle counter is kept in a variable and written back before every helper
//! call and at every exit. At an exit the block writes the state the interpreter would leave:
//! `pc`, `next_pc`, `cur_pc`, `in_delay_slot`, `delay_next` and `cycles`.

use std::mem::offset_of;

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    AbiParam, BlockArg, InstBuilder, MemFlagsData, Signature, Type, Value, types,
};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_codegen::{Context, isa};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::Module;
use piney_ee::cpu::{Cpu, status as st};
use piney_ee::table::OpFlags;
use piney_ee::table::fields::{fd, fs, ft, rd, rs, rt, sa, simm, target, uimm};
use piney_ee::{Bus, OpInfo, decode};

use crate::ctx::{Ctx, h_interp, status};
use crate::native::BlockFn;
use crate::pages::{FAST_SEGMENTS, PAGE_SHIFT, phys};
use crate::{Category, JitError, KillSwitches};

/// The most instructions in one block.
pub(crate) const MAX_BLOCK: usize = 64;

const NO: &[BlockArg] = &[];

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

/// A compiled block.
pub(crate) struct Compiled {
    /// The code.
    pub func: BlockFn,
    /// Instructions in the block.
    pub len: u32,
    /// Cycles the block needs left in the budget to run whole: its cost minus its last
    /// instruction's (the interpreter starts an instruction while `cycles < target`).
    pub need: u64,
    /// Native instructions per category (index [`Category::index`]).
    pub native: [u32; Category::COUNT],
    /// Fallback instructions.
    pub fallback: u32,
}

/// Owns the Cranelift JIT module and compiles blocks into it.
pub(crate) struct Compiler {
    module: Option<JITModule>,
    ctx: Context,
    fctx: FunctionBuilderContext,
    call_conv: isa::CallConv,
}

impl Compiler {
    /// A compiler for the host.
    pub fn new() -> Result<Self, JitError> {
        let mut flags = settings::builder();
        let set = |f: &mut settings::Builder, k: &str, v: &str| {
            f.set(k, v)
                .map_err(|e| JitError::Setup(format!("cranelift flag {k}={v}: {e}")))
        };
        set(&mut flags, "opt_level", "speed")?;
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
        Ok(Self {
            module: Some(module),
            ctx,
            fctx: FunctionBuilderContext::new(),
            call_conv,
        })
    }

    fn module(&mut self) -> &mut JITModule {
        self.module
            .as_mut()
            .expect("the module lives as long as the compiler")
    }

    /// Compile `insns` (from [`scan`]) into a block.
    pub fn compile(&mut self, insns: &[Insn], kill: KillSwitches) -> Result<Compiled, JitError> {
        let ptr = types::I64;
        let mut sig = Signature::new(self.call_conv);
        sig.params.push(AbiParam::new(ptr));
        sig.returns.push(AbiParam::new(types::I32));
        let mut isig = Signature::new(self.call_conv);
        isig.params.push(AbiParam::new(ptr));
        isig.params.push(AbiParam::new(ptr));
        isig.params.push(AbiParam::new(types::I32));
        isig.returns.push(AbiParam::new(types::I32));

        let module = self.module.as_mut().expect("module");
        let id = module
            .declare_anonymous_function(&sig)
            .map_err(|e| JitError::Compile(format!("declare: {e}")))?;
        self.ctx.func.signature = sig;
        let mut native = [0u32; Category::COUNT];
        let mut fallback = 0;
        let total: u64 = insns.iter().map(|i| i.info.cycles as u64).sum();
        let last = insns.last().map_or(0, |i| i.info.cycles as u64);
        let need = total - last;
        {
            let mut b = FunctionBuilder::new(&mut self.ctx.func, &mut self.fctx);
            let entry = b.create_block();
            b.append_block_params_for_function_params(entry);
            b.switch_to_block(entry);
            let ctxp = b.block_params(entry)[0];
            let cpu = b.ins().load(
                ptr,
                MemFlagsData::trusted(),
                ctxp,
                offset_of!(Ctx<'_>, cpu) as i32,
            );
            let cyc = b.declare_var(types::I64);
            let c0 = b
                .ins()
                .load(types::I64, MemFlagsData::trusted(), cpu, CYCLES);
            b.def_var(cyc, c0);
            let npc = b.declare_var(types::I32);
            let zero = b.ins().iconst(types::I32, 0);
            b.def_var(npc, zero);
            let isig = b.import_signature(isig);
            // Instructions start here; a block whose branch comes back to its own start jumps
            // here again while the budget allows.
            let regs: [Variable; 32] = std::array::from_fn(|_| b.declare_var(types::I64));
            let header = b.create_block();
            b.ins().jump(header, NO);
            b.switch_to_block(header);
            let mut g = Gen {
                b,
                ctxp,
                cpu,
                cyc,
                npc,
                isig,
                kill,
                header,
                need,
                regs,
                loaded: 0,
                dirty: 0,
            };
            g.body(insns, &mut native, &mut fallback);
            g.b.seal_all_blocks();
            g.b.finalize(self.module.as_ref().expect("module").target_config());
        }
        let module = self.module.as_mut().expect("module");
        module.define_function(id, &mut self.ctx).map_err(|e| {
            JitError::Compile(format!(
                "block at {:#010x}: {e:?}",
                insns.first().map_or(0, |i| i.addr)
            ))
        })?;
        module.clear_context(&mut self.ctx);
        module
            .finalize_definitions()
            .map_err(|e| JitError::Compile(format!("finalize: {e}")))?;
        let code = self.module().get_finalized_function(id);
        Ok(Compiled {
            func: BlockFn::new(code),
            len: insns.len() as u32,
            need: total - last,
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
const STATUS: i32 = (offset_of!(Cpu, cop0) + offset_of!(piney_ee::cpu::Cop0, regs)) as i32
    + 4 * piney_ee::cpu::cop0reg::STATUS as i32;
const FPR: i32 = (offset_of!(Cpu, fpu) + offset_of!(piney_ee::cpu::Fpu, fpr)) as i32;
const FCR31: i32 = (offset_of!(Cpu, fpu) + offset_of!(piney_ee::cpu::Fpu, fcr31)) as i32;
const VF: i32 = (offset_of!(Cpu, vu0) + offset_of!(piney_ee::cpu::Vu0Regs, vf)) as i32;

/// Where a PC value comes from at an exit.
#[derive(Clone, Copy)]
enum Pc {
    /// Known when compiling.
    Const(u32),
    /// The `npc` variable (a branch's outcome).
    Npc,
}

struct Gen<'a> {
    b: FunctionBuilder<'a>,
    ctxp: Value,
    cpu: Value,
    cyc: Variable,
    npc: Variable,
    isig: cranelift_codegen::ir::SigRef,
    kill: KillSwitches,
    /// Where the block's first instruction begins.
    header: cranelift_codegen::ir::Block,
    /// The block's `need` (see [`Compiled::need`]).
    need: u64,
    /// One variable per GPR, caching its low 64 bits.
    regs: [Variable; 32],
    /// Registers whose variable holds the current value (bit per register).
    loaded: u32,
    /// Cached registers changed since they were last written back.
    dirty: u32,
}

/// Where a guarded native instruction meets its fallback paths.
struct Join {
    join: cranelift_codegen::ir::Block,
    tails: Vec<cranelift_codegen::ir::Block>,
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
    /// Low 64 bits of a GPR (cached in a variable from its first use in the block).
    fn r64(&mut self, r: usize) -> Value {
        if r == 0 {
            self.c64(0)
        } else if self.loaded & (1 << r) != 0 {
            self.b.use_var(self.regs[r])
        } else {
            let v = self.ld(types::I64, GPR + 16 * r as i32);
            self.b.def_var(self.regs[r], v);
            self.loaded |= 1 << r;
            v
        }
    }
    /// High 64 bits of a GPR.
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
        } else {
            let v = self.r64(r);
            self.b.ins().ireduce(types::I32, v)
        }
    }
    /// `Cpu::set64`: the low 64 bits, upper 64 kept; $0 ignores writes. Kept in the register's
    /// variable and written back before a helper call, a loop back and at exits.
    fn set64(&mut self, r: usize, v: Value) {
        if r != 0 {
            self.b.def_var(self.regs[r], v);
            self.loaded |= 1 << r;
            self.dirty |= 1 << r;
        }
    }
    /// Write the changed cached registers back to the `Cpu` (state unchanged: the caller decides
    /// what the path knows afterwards).
    fn flush_regs(&mut self) {
        let mut d = self.dirty;
        while d != 0 {
            let r = d.trailing_zeros() as usize;
            d &= d - 1;
            let v = self.b.use_var(self.regs[r]);
            self.st(v, GPR + 16 * r as i32);
        }
    }
    /// Reload every cached register from the `Cpu` (after the interpreter ran).
    fn reload_regs(&mut self) {
        let mut l = self.loaded;
        while l != 0 {
            let r = l.trailing_zeros() as usize;
            l &= l - 1;
            let v = self.ld(types::I64, GPR + 16 * r as i32);
            self.b.def_var(self.regs[r], v);
        }
    }
    /// `Cpu::set32`: a 32-bit value sign-extended to 64 bits.
    fn set32(&mut self, r: usize, v: Value) {
        if r != 0 {
            let v = self.b.ins().sextend(types::I64, v);
            self.set64(r, v);
        }
    }
    fn set128(&mut self, r: usize, lo: Value, hi: Value) {
        if r != 0 {
            self.set64(r, lo);
            self.st(hi, GPR + 16 * r as i32 + 8);
        }
    }
    fn bool64(&mut self, c: Value) -> Value {
        self.b.ins().uextend(types::I64, c)
    }

    // ------------------------------------------------------------ exits and the fallback

    fn flush_cycles(&mut self) {
        let c = self.b.use_var(self.cyc);
        self.st(c, CYCLES);
    }

    fn pc_value(&mut self, pc: Pc) -> Value {
        match pc {
            Pc::Const(v) => self.c32(v),
            Pc::Npc => self.b.use_var(self.npc),
        }
    }

    /// Write the sequencing state as the interpreter has it after (or, with `pc` the
    /// instruction's successor, during) the instruction at `cur`.
    fn write_seq(&mut self, cur: u32, slot: bool, pc: Pc) {
        let c = self.c32(cur);
        self.st(c, CUR_PC);
        let d = self.b.ins().iconst(types::I8, slot as i64);
        self.st(d, IN_DELAY);
        let z = self.b.ins().iconst(types::I8, 0);
        self.st(z, DELAY_NEXT);
        let p = self.pc_value(pc);
        self.st(p, PC);
        let n = self.b.ins().iadd_imm_s(p, 4);
        self.st(n, NEXT_PC);
    }

    /// Leave the block with the state after the instruction at `cur`.
    fn exit(&mut self, code: u32, cur: u32, slot: bool, pc: Pc) {
        self.flush_regs();
        self.write_seq(cur, slot, pc);
        self.flush_cycles();
        let s = self.b.ins().iconst(types::I32, code as i64);
        self.b.ins().return_(&[s]);
    }

    /// Call the interpreter for `insn` in line: afterwards no register is cached.
    fn call_fallback(&mut self, insn: &Insn) {
        self.call_interp(insn);
        self.loaded = 0;
        self.dirty = 0;
    }

    /// Call the interpreter for `insn` (cached registers and the sequencing state written
    /// first). Continues in a fresh block when it returns OK; otherwise the block returns its
    /// status. The register cache state is left as it was: the caller reloads or forgets.
    fn call_interp(&mut self, insn: &Insn) {
        self.flush_regs();
        let pc = if insn.slot {
            Pc::Npc
        } else {
            Pc::Const(insn.addr.wrapping_add(4))
        };
        self.write_seq(insn.addr, insn.slot, pc);
        self.flush_cycles();
        let f = self
            .b
            .ins()
            .iconst(types::I64, h_interp as *const () as usize as i64);
        let info = self
            .b
            .ins()
            .iconst(types::I64, insn.info as *const OpInfo as usize as i64);
        let w = self.c32(insn.word);
        let call = self
            .b
            .ins()
            .call_indirect(self.isig, f, &[self.ctxp, info, w]);
        let s = self.b.inst_results(call)[0];
        let out = self.b.create_block();
        let cont = self.b.create_block();
        self.b.set_cold_block(out);
        self.b.ins().brif(s, out, NO, cont, NO);
        self.b.switch_to_block(out);
        self.b.ins().return_(&[s]);
        self.b.switch_to_block(cont);
        let c = self.ld(types::I64, CYCLES);
        self.b.def_var(self.cyc, c);
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

    /// Branch to the fallback for `insn` when `fail` is non-zero; continue natively otherwise.
    /// Returns with the builder in the native path; call [`Gen::join`] when it is done.
    fn guard(&mut self, insn: &Insn, fail: Value) -> Join {
        let hot = self.b.create_block();
        let mut j = Join {
            join: self.b.create_block(),
            tails: Vec::new(),
        };
        self.side_fallback(insn, fail, hot, &mut j);
        j
    }

    /// When `fail`, run the fallback on a cold path that rejoins at `j` (through a tail block
    /// that [`Gen::join`] fills with register reloads); else continue at `hot`.
    fn side_fallback(
        &mut self,
        insn: &Insn,
        fail: Value,
        hot: cranelift_codegen::ir::Block,
        j: &mut Join,
    ) {
        let cold = self.b.create_block();
        let tail = self.b.create_block();
        self.b.set_cold_block(cold);
        self.b.set_cold_block(tail);
        self.b.ins().brif(fail, cold, NO, hot, NO);
        self.b.switch_to_block(cold);
        self.call_interp(insn);
        self.b.ins().jump(tail, NO);
        j.tails.push(tail);
        self.b.switch_to_block(hot);
    }

    /// End a native instruction's hot path and meet its fallbacks: their tails reload every
    /// register the hot path has cached (the interpreter may have changed any of them).
    fn join(&mut self, j: Join) {
        self.b.ins().jump(j.join, NO);
        for tail in j.tails {
            self.b.switch_to_block(tail);
            self.reload_regs();
            self.b.ins().jump(j.join, NO);
        }
        self.b.switch_to_block(j.join);
    }

    // ------------------------------------------------------------ the block

    fn body(&mut self, insns: &[Insn], native: &mut [u32], fallback: &mut u32) {
        let mut branch: Option<Insn> = None;
        for insn in insns {
            let c = self.b.use_var(self.cyc);
            let c = self.b.ins().iadd_imm_s(c, insn.info.cycles as i64);
            self.b.def_var(self.cyc, c);
            let cat = category(insn.info);
            let killed = self.kill.kills(insn.info);
            let done = !killed && self.native(insn);
            if done {
                native[cat.index()] += 1;
            } else {
                *fallback += 1;
                self.call_fallback(insn);
                if insn.info.flags.contains(OpFlags::BRANCH)
                    && !insn.info.flags.contains(OpFlags::COP0)
                {
                    self.fallback_branch_outcome(insn);
                }
            }
            if insn.info.flags.contains(OpFlags::BRANCH) {
                branch = Some(*insn);
            }
        }
        let last = insns.last().expect("a block has an instruction");
        match branch {
            Some(_) if last.slot => {
                // Back to our own start with the whole block still within the budget: loop
                // without leaving (the exit state is written by whichever exit ends it).
                let start = insns[0].addr;
                let n = self.b.use_var(self.npc);
                let again = self
                    .b
                    .ins()
                    .icmp_imm_s(IntCC::Equal, n, start as i32 as i64);
                let c = self.b.use_var(self.cyc);
                let c = self.b.ins().iadd_imm_s(c, self.need as i64);
                let t = self.b.ins().load(
                    types::I64,
                    mf(),
                    self.ctxp,
                    offset_of!(Ctx<'_>, target) as i32,
                );
                let fits = self.b.ins().icmp(IntCC::UnsignedLessThan, c, t);
                let go = self.b.ins().band(again, fits);
                // The loop header starts with nothing cached.
                self.flush_regs();
                self.dirty = 0;
                let out = self.b.create_block();
                self.b.ins().brif(go, self.header, NO, out, NO);
                self.b.switch_to_block(out);
                self.exit(status::OK, last.addr, true, Pc::Npc)
            }
            _ => self.exit(
                status::OK,
                last.addr,
                false,
                Pc::Const(last.addr.wrapping_add(4)),
            ),
        }
    }

    /// After the interpreter ran a branch: a likely branch not taken has skipped its slot (leave
    /// with the state as it is); otherwise the slot runs next and `next_pc` is where it goes.
    fn fallback_branch_outcome(&mut self, insn: &Insn) {
        if insn.info.flags.contains(OpFlags::LIKELY) {
            let dn = self.ld(types::I8, DELAY_NEXT);
            let out = self.b.create_block();
            let cont = self.b.create_block();
            self.b.ins().brif(dn, cont, NO, out, NO);
            self.b.switch_to_block(out);
            let s = self.b.ins().iconst(types::I32, status::OK as i64);
            self.b.ins().return_(&[s]);
            self.b.switch_to_block(cont);
        }
        let n = self.ld(types::I32, NEXT_PC);
        self.b.def_var(self.npc, n);
    }

    /// A native branch decided `taken` (an i8 condition) to `target`: set `npc`, and for a likely
    /// branch not taken leave the block (the slot is skipped).
    fn branch_to(&mut self, insn: &Insn, taken: Value, target: Value) {
        let fall = self.c32(insn.addr.wrapping_add(8));
        let n = self.b.ins().select(taken, target, fall);
        self.b.def_var(self.npc, n);
        if insn.info.flags.contains(OpFlags::LIKELY) {
            let out = self.b.create_block();
            let cont = self.b.create_block();
            self.b.ins().brif(taken, cont, NO, out, NO);
            self.b.switch_to_block(out);
            // Not taken: the interpreter advanced pc past the slot.
            self.exit(
                status::OK,
                insn.addr,
                false,
                Pc::Const(insn.addr.wrapping_add(8)),
            );
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

    /// The fast-path host address for a `size`-byte access at `ea`, or a jump to the fallback.
    /// Checks alignment (unless `mask16`: LQ/SQ ignore the low bits), then RAM (segment, bound
    /// and, for a store, the code-page map) or else the scratchpad (`0x7000_0000..0x7000_4000`).
    fn fast_addr(
        &mut self,
        insn: &Insn,
        ea: Value,
        size: u32,
        store: bool,
        mask16: bool,
    ) -> (Value, Join) {
        let i64t = types::I64;
        let ea = if mask16 {
            self.b.ins().band_imm_s(ea, !15i64)
        } else {
            ea
        };
        let mis = if size > 1 && !mask16 {
            let m = self.b.ins().band_imm_s(ea, (size - 1) as i64);
            Some(self.b.ins().icmp_imm_s(IntCC::NotEqual, m, 0))
        } else {
            None
        };
        // RAM: the segment may use it and `addr & 0x1fff_ffff` lies inside.
        let seg = self.b.ins().ushr_imm_s(ea, 29);
        let segs = self.b.ins().iconst(types::I32, FAST_SEGMENTS as i64);
        let bits = self.b.ins().ushr(segs, seg);
        let segok = self.b.ins().band_imm_s(bits, 1);
        let mut bad = self.b.ins().icmp_imm_s(IntCC::Equal, segok, 0);
        if let Some(mis) = mis {
            bad = self.b.ins().bor(bad, mis);
        }
        let p32 = self.b.ins().band_imm_s(ea, 0x1fff_ffff);
        let p = self.b.ins().uextend(i64t, p32);
        let len = self.ctx_field(offset_of!(Ctx<'_>, ram_len));
        let end = self.b.ins().iadd_imm_s(p, size as i64);
        let oob = self.b.ins().icmp(IntCC::UnsignedGreaterThan, end, len);
        bad = self.b.ins().bor(bad, oob);

        let mut j = Join {
            join: self.b.create_block(),
            tails: Vec::new(),
        };
        let access = self.b.create_block();
        let host_param = self.b.append_block_param(access, i64t);
        let ram_blk = self.b.create_block();
        let other = self.b.create_block();
        self.b.ins().brif(bad, other, NO, ram_blk, NO);

        self.b.switch_to_block(ram_blk);
        if store {
            // A store into a page that holds compiled code takes the slow path, which drops the
            // blocks it overwrites.
            let pages = self.ctx_field(offset_of!(Ctx<'_>, pages));
            let pg = self.b.ins().ushr_imm_s(p, PAGE_SHIFT as i64);
            let a = self.b.ins().iadd(pages, pg);
            let code = self.b.ins().load(types::I8, mf(), a, 0);
            let code = self.b.ins().icmp_imm_s(IntCC::NotEqual, code, 0);
            let hot = self.b.create_block();
            self.side_fallback(insn, code, hot, &mut j);
        }
        let ram = self.ctx_field(offset_of!(Ctx<'_>, ram));
        let host = self.b.ins().iadd(ram, p);
        self.b.ins().jump(access, &[BlockArg::Value(host)]);

        // Not RAM: the scratchpad, or the fallback (devices, faults).
        self.b.switch_to_block(other);
        let hi = self.b.ins().band_imm_s(ea, 0xffff_c000u32 as i32 as i64);
        let mut sbad = self.b.ins().icmp_imm_s(IntCC::NotEqual, hi, 0x7000_0000);
        if let Some(mis) = mis {
            sbad = self.b.ins().bor(sbad, mis);
        }
        let off32 = self.b.ins().band_imm_s(ea, 0x3fff);
        let off = self.b.ins().uextend(i64t, off32);
        let slen = self.ctx_field(offset_of!(Ctx<'_>, spr_len));
        let send = self.b.ins().iadd_imm_s(off, size as i64);
        let soob = self.b.ins().icmp(IntCC::UnsignedGreaterThan, send, slen);
        sbad = self.b.ins().bor(sbad, soob);
        let spr_blk = self.b.create_block();
        self.side_fallback(insn, sbad, spr_blk, &mut j);
        let spr = self.ctx_field(offset_of!(Ctx<'_>, spr));
        let host = self.b.ins().iadd(spr, off);
        self.b.ins().jump(access, &[BlockArg::Value(host)]);

        self.b.switch_to_block(access);
        (host_param, j)
    }

    /// A pointer-sized field of [`Ctx`].
    fn ctx_field(&mut self, off: usize) -> Value {
        self.b.ins().load(types::I64, mf(), self.ctxp, off as i32)
    }

    /// A coprocessor-usable guard (Status.CU1/CU2): the fallback raises the exception.
    fn cop_guard(&mut self, insn: &Insn, bit: u32) -> Join {
        let s = self.ld(types::I32, STATUS);
        let u = self.b.ins().band_imm_s(s, bit as i64);
        let bad = self.b.ins().icmp_imm_s(IntCC::Equal, u, 0);
        self.guard(insn, bad)
    }

    /// Compile `insn` natively if it is one of the native kinds. False: use the fallback.
    fn native(&mut self, insn: &Insn) -> bool {
        let w = insn.word;
        let m = insn.info.mnemonic;
        let i32t = types::I32;
        let i64t = types::I64;
        match m {
            // ---------------------------------------------------- ALU, register forms
            "addu" | "subu" => {
                let a = self.r32(rs(w));
                let c = self.r32(rt(w));
                let v = if m == "addu" {
                    self.b.ins().iadd(a, c)
                } else {
                    self.b.ins().isub(a, c)
                };
                self.set32(rd(w), v);
            }
            "add" | "sub" => {
                let a = self.r32(rs(w));
                let c = self.r32(rt(w));
                let (v, of) = self.add_sub_overflow(m == "add", a, c);
                let j = self.guard(insn, of);
                self.set32(rd(w), v);
                self.join(j);
            }
            "daddu" | "dsubu" | "and" | "or" | "xor" | "nor" => {
                let a = self.r64(rs(w));
                let c = self.r64(rt(w));
                let v = match m {
                    "daddu" => self.b.ins().iadd(a, c),
                    "dsubu" => self.b.ins().isub(a, c),
                    "and" => self.b.ins().band(a, c),
                    "or" => self.b.ins().bor(a, c),
                    "xor" => self.b.ins().bxor(a, c),
                    _ => {
                        let o = self.b.ins().bor(a, c);
                        self.b.ins().bnot(o)
                    }
                };
                self.set64(rd(w), v);
            }
            "dadd" | "dsub" => {
                let a = self.r64(rs(w));
                let c = self.r64(rt(w));
                let (v, of) = self.add_sub_overflow(m == "dadd", a, c);
                let j = self.guard(insn, of);
                self.set64(rd(w), v);
                self.join(j);
            }
            "slt" | "sltu" => {
                let a = self.r64(rs(w));
                let c = self.r64(rt(w));
                let cc = if m == "slt" {
                    IntCC::SignedLessThan
                } else {
                    IntCC::UnsignedLessThan
                };
                let f = self.b.ins().icmp(cc, a, c);
                let v = self.bool64(f);
                self.set64(rd(w), v);
            }
            "movz" | "movn" => {
                let t = self.r64(rt(w));
                let s = self.r64(rs(w));
                let d = self.r64(rd(w));
                let cc = if m == "movz" {
                    IntCC::Equal
                } else {
                    IntCC::NotEqual
                };
                let c = self.b.ins().icmp_imm_s(cc, t, 0);
                let v = self.b.ins().select(c, s, d);
                self.set64(rd(w), v);
            }
            // ---------------------------------------------------- immediates
            "addiu" => {
                let a = self.r32(rs(w));
                let v = self.b.ins().iadd_imm_s(a, simm(w) as i64);
                self.set32(rt(w), v);
            }
            "addi" => {
                let a = self.r32(rs(w));
                let c = self.c32(simm(w) as u32);
                let (v, of) = self.add_sub_overflow(true, a, c);
                let j = self.guard(insn, of);
                self.set32(rt(w), v);
                self.join(j);
            }
            "daddiu" => {
                let a = self.r64(rs(w));
                let v = self.b.ins().iadd_imm_s(a, simm(w) as i64);
                self.set64(rt(w), v);
            }
            "daddi" => {
                let a = self.r64(rs(w));
                let c = self.c64(simm(w) as i64 as u64);
                let (v, of) = self.add_sub_overflow(true, a, c);
                let j = self.guard(insn, of);
                self.set64(rt(w), v);
                self.join(j);
            }
            "slti" | "sltiu" => {
                let a = self.r64(rs(w));
                let cc = if m == "slti" {
                    IntCC::SignedLessThan
                } else {
                    IntCC::UnsignedLessThan
                };
                let f = self.b.ins().icmp_imm_s(cc, a, simm(w) as i64);
                let v = self.bool64(f);
                self.set64(rt(w), v);
            }
            "andi" | "ori" | "xori" => {
                let a = self.r64(rs(w));
                let k = uimm(w) as i64;
                let v = match m {
                    "andi" => self.b.ins().band_imm_s(a, k),
                    "ori" => self.b.ins().bor_imm_s(a, k),
                    _ => self.b.ins().bxor_imm_s(a, k),
                };
                self.set64(rt(w), v);
            }
            "lui" => {
                let v = self.c64((uimm(w) << 16) as i32 as i64 as u64);
                self.set64(rt(w), v);
            }
            // ---------------------------------------------------- shifts
            "sll" | "srl" | "sra" => {
                if rd(w) != 0 {
                    let a = self.r32(rt(w));
                    let k = sa(w) as i64;
                    let v = match m {
                        "sll" => self.b.ins().ishl_imm_s(a, k),
                        "srl" => self.b.ins().ushr_imm_s(a, k),
                        _ => self.b.ins().sshr_imm_s(a, k),
                    };
                    self.set32(rd(w), v);
                }
            }
            "sllv" | "srlv" | "srav" => {
                let a = self.r32(rt(w));
                let s = self.r32(rs(w));
                let s = self.b.ins().band_imm_s(s, 31);
                let v = match m {
                    "sllv" => self.b.ins().ishl(a, s),
                    "srlv" => self.b.ins().ushr(a, s),
                    _ => self.b.ins().sshr(a, s),
                };
                self.set32(rd(w), v);
            }
            "dsll" | "dsrl" | "dsra" | "dsll32" | "dsrl32" | "dsra32" => {
                let a = self.r64(rt(w));
                let k = sa(w) as i64 + if m.ends_with("32") { 32 } else { 0 };
                let v = match &m[..4] {
                    "dsll" => self.b.ins().ishl_imm_s(a, k),
                    "dsrl" => self.b.ins().ushr_imm_s(a, k),
                    _ => self.b.ins().sshr_imm_s(a, k),
                };
                self.set64(rd(w), v);
            }
            "dsllv" | "dsrlv" | "dsrav" => {
                let a = self.r64(rt(w));
                let s = self.r64(rs(w));
                let s = self.b.ins().band_imm_s(s, 63);
                let v = match m {
                    "dsllv" => self.b.ins().ishl(a, s),
                    "dsrlv" => self.b.ins().ushr(a, s),
                    _ => self.b.ins().sshr(a, s),
                };
                self.set64(rd(w), v);
            }
            // ---------------------------------------------------- HI/LO, multiply, SA
            "mfhi" | "mflo" => {
                let v = self.ld(i64t, if m == "mfhi" { HI } else { LO });
                self.set64(rd(w), v);
            }
            "mthi" | "mtlo" => {
                let v = self.r64(rs(w));
                self.st(v, if m == "mthi" { HI } else { LO });
            }
            "mult" | "multu" => {
                let a = self.r32(rs(w));
                let c = self.r32(rt(w));
                let (a, c) = if m == "mult" {
                    (self.b.ins().sextend(i64t, a), self.b.ins().sextend(i64t, c))
                } else {
                    (self.b.ins().uextend(i64t, a), self.b.ins().uextend(i64t, c))
                };
                let p = self.b.ins().imul(a, c);
                let lo = self.b.ins().ireduce(i32t, p);
                let lo = self.b.ins().sextend(i64t, lo);
                let hi = self.b.ins().sshr_imm_s(p, 32);
                let hi = self.b.ins().ireduce(i32t, hi);
                let hi = self.b.ins().sextend(i64t, hi);
                self.st(lo, LO);
                self.st(hi, HI);
                self.set64(rd(w), lo);
            }
            "div" | "divu" => {
                // The R5900 never traps here: by zero gives quotient -1 (1 for a negative signed
                // dividend) and remainder the dividend; 0x80000000 / -1 gives 0x80000000 rem 0.
                // A divisor of 1 stands in for the cases the host would trap on.
                let n = self.r32(rs(w));
                let d = self.r32(rt(w));
                let zero = self.b.ins().icmp_imm_s(IntCC::Equal, d, 0);
                let one = self.c32(1);
                let (q, r) = if m == "div" {
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
                self.st(q, LO);
                self.st(r, HI);
            }
            "mfsa" => {
                let s = self.ld(i32t, SA);
                let s = self.b.ins().ushr_imm_s(s, 3);
                let v = self.b.ins().uextend(i64t, s);
                self.set64(rd(w), v);
            }
            "mtsa" | "mtsab" | "mtsah" => {
                let a = self.r32(rs(w));
                let v = match m {
                    "mtsa" => {
                        let x = self.b.ins().band_imm_s(a, 15);
                        self.b.ins().ishl_imm_s(x, 3)
                    }
                    "mtsab" => {
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
            "sync" | "pref" | "cache" => {}
            // ---------------------------------------------------- branches and jumps
            "beq" | "bne" | "beql" | "bnel" => {
                let a = self.r64(rs(w));
                let c = self.r64(rt(w));
                let cc = if m.starts_with("beq") {
                    IntCC::Equal
                } else {
                    IntCC::NotEqual
                };
                let taken = self.b.ins().icmp(cc, a, c);
                let t = self.c32(branch_target(insn));
                self.branch_to(insn, taken, t);
            }
            "blez" | "bgtz" | "bltz" | "bgez" | "blezl" | "bgtzl" | "bltzl" | "bgezl"
            | "bltzal" | "bgezal" | "bltzall" | "bgezall" => {
                let a = self.r64(rs(w));
                let cc = match &m[..4] {
                    "blez" => IntCC::SignedLessThanOrEqual,
                    "bgtz" => IntCC::SignedGreaterThan,
                    "bltz" => IntCC::SignedLessThan,
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
            "j" | "jal" => {
                let t = (insn.addr.wrapping_add(4) & 0xf000_0000) | (target(w) << 2);
                if m == "jal" {
                    self.link(31, insn);
                }
                let t = self.c32(t);
                self.b.def_var(self.npc, t);
            }
            "jr" | "jalr" => {
                let t = self.r32(rs(w));
                if m == "jalr" {
                    self.link(rd(w), insn);
                }
                self.b.def_var(self.npc, t);
            }
            // ---------------------------------------------------- loads and stores
            "lb" | "lbu" | "lh" | "lhu" | "lw" | "lwu" | "ld" | "lq" => {
                let (size, ty) = match m {
                    "lb" | "lbu" => (1, types::I8),
                    "lh" | "lhu" => (2, types::I16),
                    "lw" | "lwu" => (4, i32t),
                    "ld" => (8, i64t),
                    _ => (16, i64t),
                };
                let ea = self.ea(w);
                let (host, j) = self.fast_addr(insn, ea, size, false, m == "lq");
                let v = self.b.ins().load(ty, mf(), host, 0);
                let r = rt(w);
                match m {
                    "lb" | "lh" | "lw" => {
                        let v = self.b.ins().sextend(i64t, v);
                        self.set64(r, v);
                    }
                    "lbu" | "lhu" | "lwu" => {
                        let v = self.b.ins().uextend(i64t, v);
                        self.set64(r, v);
                    }
                    "ld" => self.set64(r, v),
                    _ => {
                        let hi = self.b.ins().load(i64t, mf(), host, 8);
                        self.set128(r, v, hi);
                    }
                }
                self.join(j);
            }
            "sb" | "sh" | "sw" | "sd" | "sq" => {
                let size = match m {
                    "sb" => 1,
                    "sh" => 2,
                    "sw" => 4,
                    "sd" => 8,
                    _ => 16,
                };
                let ea = self.ea(w);
                let (host, j) = self.fast_addr(insn, ea, size, true, m == "sq");
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
                self.join(j);
            }
            // ---------------------------------------------------- MMI (128-bit)
            "pand" | "por" | "pxor" | "pnor" => {
                let a = [self.r64(rs(w)), self.r64h(rs(w))];
                let c = [self.r64(rt(w)), self.r64h(rt(w))];
                let v: [Value; 2] = std::array::from_fn(|i| match m {
                    "pand" => self.b.ins().band(a[i], c[i]),
                    "por" => self.b.ins().bor(a[i], c[i]),
                    "pxor" => self.b.ins().bxor(a[i], c[i]),
                    _ => {
                        let o = self.b.ins().bor(a[i], c[i]);
                        self.b.ins().bnot(o)
                    }
                });
                self.set128(rd(w), v[0], v[1]);
            }
            "pcpyld" | "pcpyud" => {
                let (lo, hi) = if m == "pcpyld" {
                    (self.r64(rt(w)), self.r64(rs(w)))
                } else {
                    (self.r64h(rs(w)), self.r64h(rt(w)))
                };
                self.set128(rd(w), lo, hi);
            }
            "paddw" | "psubw" => {
                let a = self.vec(rs(w));
                let c = self.vec(rt(w));
                let v = if m == "paddw" {
                    self.b.ins().iadd(a, c)
                } else {
                    self.b.ins().isub(a, c)
                };
                let r = rd(w);
                if r != 0 {
                    self.st(v, GPR + 16 * r as i32);
                    // The whole register was written in memory: forget the cached low half.
                    self.loaded &= !(1 << r);
                    self.dirty &= !(1 << r);
                }
            }
            "pmfhi" | "pmflo" => {
                let base = if m == "pmfhi" { HI } else { LO };
                let lo = self.ld(i64t, base);
                let hi = self.ld(i64t, base + 8);
                self.set128(rd(w), lo, hi);
            }
            "pmthi" | "pmtlo" => {
                let base = if m == "pmthi" { HI } else { LO };
                let lo = self.r64(rs(w));
                let hi = self.r64h(rs(w));
                self.st(lo, base);
                self.st(hi, base + 8);
            }
            // ---------------------------------------------------- COP1 moves and memory
            "mfc1" => {
                let j = self.cop_guard(insn, st::CU1);
                let v = self.ld(i32t, FPR + 4 * fs(w) as i32);
                self.set32(rt(w), v);
                self.join(j);
            }
            "mtc1" => {
                let j = self.cop_guard(insn, st::CU1);
                let v = self.r32(rt(w));
                self.st(v, FPR + 4 * fs(w) as i32);
                self.join(j);
            }
            "mov.s" | "neg.s" | "abs.s" => {
                let j = self.cop_guard(insn, st::CU1);
                let v = self.ld(i32t, FPR + 4 * fs(w) as i32);
                let v = match m {
                    "mov.s" => v,
                    "neg.s" => self.b.ins().bxor_imm_s(v, 0x8000_0000u32 as i32 as i64),
                    _ => self.b.ins().band_imm_s(v, 0x7fff_ffff),
                };
                self.st(v, FPR + 4 * fd(w) as i32);
                if m != "mov.s" {
                    // NEG.S and ABS.S clear the O and U cause bits.
                    let f = self.ld(i32t, FCR31);
                    let mask =
                        !(piney_ee::interp::cop1::fcr31::O | piney_ee::interp::cop1::fcr31::U);
                    let f = self.b.ins().band_imm_s(f, mask as i32 as i64);
                    self.st(f, FCR31);
                }
                self.join(j);
            }
            "lwc1" | "swc1" => {
                let j0 = self.cop_guard(insn, st::CU1);
                let ea = self.ea(w);
                let store = m == "swc1";
                let (host, j) = self.fast_addr(insn, ea, 4, store, false);
                if store {
                    let v = self.ld(i32t, FPR + 4 * ft(w) as i32);
                    self.b.ins().store(mf(), v, host, 0);
                } else {
                    let v = self.b.ins().load(i32t, mf(), host, 0);
                    self.st(v, FPR + 4 * ft(w) as i32);
                }
                self.join(j);
                self.join(j0);
            }
            // ---------------------------------------------------- COP2 moves and memory
            // The .I forms (bit 0) wait for VU0 (the COP2 interlock): the interpreter's.
            "qmfc2" | "qmtc2" if w & 1 != 0 => return false,
            "qmfc2" => {
                let j = self.cop_guard(insn, st::CU2);
                let lo = self.ld(i64t, VF + 16 * fs(w) as i32);
                let hi = self.ld(i64t, VF + 16 * fs(w) as i32 + 8);
                self.set128(rt(w), lo, hi);
                self.join(j);
            }
            "qmtc2" => {
                let j = self.cop_guard(insn, st::CU2);
                if fs(w) != 0 {
                    let lo = self.r64(rt(w));
                    let hi = self.r64h(rt(w));
                    self.st(lo, VF + 16 * fs(w) as i32);
                    self.st(hi, VF + 16 * fs(w) as i32 + 8);
                }
                self.join(j);
            }
            "lqc2" | "sqc2" => {
                let j0 = self.cop_guard(insn, st::CU2);
                let ea = self.ea(w);
                let store = m == "sqc2";
                let (host, j) = self.fast_addr(insn, ea, 16, store, true);
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
                self.join(j);
                self.join(j0);
            }
            _ => return false,
        }
        true
    }

    /// A GPR as four 32-bit lanes.
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
}

/// A PC-relative branch's target: the delay slot's address plus `offset << 2`.
fn branch_target(insn: &Insn) -> u32 {
    insn.addr
        .wrapping_add(4)
        .wrapping_add((simm(insn.word) << 2) as u32)
}

/// The mnemonics [`Gen::native`] compiles natively (for the report and the tests).
pub const NATIVE_MNEMONICS: &[&str] = &[
    "addu", "subu", "add", "sub", "daddu", "dsubu", "and", "or", "xor", "nor", "dadd", "dsub",
    "slt", "sltu", "movz", "movn", "addiu", "addi", "daddiu", "daddi", "slti", "sltiu", "andi",
    "ori", "xori", "lui", "sll", "srl", "sra", "sllv", "srlv", "srav", "dsll", "dsrl", "dsra",
    "dsll32", "dsrl32", "dsra32", "dsllv", "dsrlv", "dsrav", "mfhi", "mflo", "mthi", "mtlo",
    "mult", "multu", "div", "divu", "mfsa", "mtsa", "mtsab", "mtsah", "sync", "pref", "cache",
    "beq", "bne", "beql", "bnel", "blez", "bgtz", "bltz", "bgez", "blezl", "bgtzl", "bltzl",
    "bgezl", "bltzal", "bgezal", "bltzall", "bgezall", "j", "jal", "jr", "jalr", "lb", "lbu", "lh",
    "lhu", "lw", "lwu", "ld", "lq", "sb", "sh", "sw", "sd", "sq", "pand", "por", "pxor", "pnor",
    "pcpyld", "pcpyud", "paddw", "psubw", "pmfhi", "pmflo", "pmthi", "pmtlo", "mfc1", "mtc1",
    "mov.s", "neg.s", "abs.s", "lwc1", "swc1", "qmfc2", "qmtc2", "lqc2", "sqc2",
];
