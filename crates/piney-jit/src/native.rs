//! The only `unsafe` in the crate: calling a block Cranelift compiled, and freeing the code.
//!
//! Why it is needed: Cranelift's JIT module hands back a compiled function as a raw code address
//! (`*const u8`); Rust can only call it after turning it into a function pointer, which the
//! compiler cannot check. Everything else (building the IR, the helpers the code calls, the
//! state it touches) is safe code.
#![allow(unsafe_code)]

use cranelift_jit::JITModule;

use crate::ctx::Ctx;

/// A compiled block's entry: `extern "C" fn(&mut Ctx) -> u32` (an exit status).
#[derive(Clone, Copy)]
pub(crate) struct BlockFn(*const u8);

impl BlockFn {
    /// Wrap the address `JITModule::get_finalized_function` returned for a function declared
    /// with the block signature (one pointer argument, an i32 result, the host's C convention).
    pub(crate) fn new(code: *const u8) -> Self {
        Self(code)
    }

    /// Run the block.
    #[inline]
    pub(crate) fn call(self, ctx: &mut Ctx<'_>) -> u32 {
        // SAFETY: `self.0` is the finalized code of a function whose Cranelift signature is
        // `(i64) -> i32` in the host's default calling convention, i.e. this type. The module
        // that owns the code lives in the `Jit` that owns the block table, so the code is valid
        // for the call; the code only touches `*ctx` (through its fields and the helpers, which
        // take `&mut Ctx`) while `ctx` is exclusively borrowed here.
        let f: extern "C" fn(&mut Ctx<'_>) -> u32 = unsafe { std::mem::transmute(self.0) };
        f(ctx)
    }
}

/// Release a module's code memory.
pub(crate) fn free(module: JITModule) {
    // SAFETY: called only when the owning `Jit` drops its module, after which no `BlockFn` of it
    // is reachable (they live in the same `Jit` and are dropped with it).
    unsafe { module.free_memory() }
}
