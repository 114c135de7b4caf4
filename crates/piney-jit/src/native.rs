//! The only `unsafe` in the crate: entering the code Cranelift compiled, and freeing it.
//!
//! Why it is needed: Cranelift's JIT module hands back a compiled function as a raw code address
//! (`*const u8`); Rust can only call it after turning it into a function pointer, which the
//! compiler cannot check. Everything else (building the IR, the helpers the code calls, the
//! state it touches) is safe code.
#![allow(unsafe_code)]

use cranelift_jit::JITModule;
use piney_ee::Cpu;

use crate::ctx::Ctx;

/// The entry trampoline: `extern "C" fn(ctx, cpu, block) -> u32`, which calls the block (a
/// function in Cranelift's `tail` convention: `(ctx, cpu) -> u32`) and returns its exit status.
/// Blocks chain into each other by tail calls, so the trampoline's call returns when the chain
/// ends.
#[derive(Clone, Copy)]
pub(crate) struct Trampoline(*const u8);

/// A compiled block's entry (Cranelift `tail` convention, `(ctx, cpu) -> u32`; only the
/// trampoline and other blocks call it).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct BlockCode(pub *const u8);

impl Trampoline {
    /// Wrap the address `JITModule::get_finalized_function` returned for the trampoline, a
    /// function declared as `(i64, i64, i64) -> i32` in the host's C convention.
    pub(crate) fn new(code: *const u8) -> Self {
        Self(code)
    }

    /// Run `block` (and whatever it chains into).
    #[inline]
    pub(crate) fn call(self, ctx: &mut Ctx<'_>, block: BlockCode) -> u32 {
        let cpu: *mut Cpu = &mut *ctx.cpu;
        // SAFETY: `self.0` is the finalized code of the trampoline, whose Cranelift signature is
        // `(i64, i64, i64) -> i32` in the host's default calling convention, i.e. this type.
        // `block.0` is the finalized code of a block compiled by the same module for the
        // current `Env` (the caller drops every block when RAM, the scratchpad or the tables
        // they address move). The module that owns the code lives in the `Jit` that owns the
        // block table, so all of it is valid for the call; the code only touches `*ctx`,
        // `*cpu` (the same CPU `ctx` borrows exclusively here), guest RAM and the scratchpad
        // the bus lent for this run, and the recompiler's own tables.
        let f: extern "C" fn(*mut Ctx<'_>, *mut Cpu, *const u8) -> u32 =
            unsafe { std::mem::transmute(self.0) };
        f(ctx, cpu, block.0)
    }
}

/// Release a module's code memory.
pub(crate) fn free(module: JITModule) {
    // SAFETY: called only when the owning `Jit` drops its module, after which no `BlockCode` of
    // it is reachable (they live in the same `Jit` and are dropped with it).
    unsafe { module.free_memory() }
}
