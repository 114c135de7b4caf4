//! Hooks: guest address -> native function (DESIGN.md section 4).
//!
//! A hook replaces a whole guest function. When the CPU is about to execute the first
//! instruction of a hooked function (not as a delay slot), the native function runs instead: it
//! reads its arguments from `$a0..$a3` and guest memory, does the work, sets `$v0`, and returns
//! [`HookResult::Return`], after which the guest continues at `$ra`. A hook may also decline
//! ([`HookResult::RunGuest`]: the guest's own code runs this time) or continue somewhere it chose
//! itself ([`HookResult::Continue`]: it set `pc` and the argument registers, e.g. to call a guest
//! function in its place).
//!
//! The check is cheap: a bitmap over the 4-byte slots of the 32 MiB of RAM, looked at only while
//! at least one hook is installed and hooks are enabled.
//!
//! The interpreter loop asks before every instruction. The recompiler runs many instructions per
//! call, so it is handed the table as a [`piney_jit::HookSet`]: it stops before any hooked pc
//! (reached by a call, a jump, a return, a branch or falling through), and the machine runs the
//! hook there, exactly as between two interpreter steps.

use std::collections::HashMap;
use std::sync::Arc;

use crate::bus::RAM_SIZE;
use crate::{Machine, MachineError};

/// What the machine does after a hook ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookResult {
    /// The native function did the guest function's work: continue at `$ra`.
    Return,
    /// The hook declined: run the guest's own code for this call.
    RunGuest,
    /// The hook set `pc` itself (and whatever registers the code there expects).
    Continue,
}

/// A native function standing for a guest function.
pub type HookFn = Arc<dyn Fn(&mut Machine) -> Result<HookResult, MachineError> + Send + Sync>;

/// One installed hook.
#[derive(Clone)]
pub struct Hook {
    /// A name for messages (the guest symbol).
    pub name: String,
    /// The native function.
    pub func: HookFn,
    /// Times it ran (returned or continued), for statistics and tests.
    pub calls: u64,
}

/// The hook table.
#[derive(Default)]
pub struct Hooks {
    /// One bit per 4-byte slot of RAM (physical address / 4).
    bitmap: Vec<u64>,
    table: HashMap<u32, Hook>,
    /// Hooks are consulted only when this is set (`--no-hle` clears it).
    enabled: bool,
    /// Changes with every install, clear and enable ([`piney_jit::HookSet::generation`]).
    generation: u64,
}

/// The physical RAM address of `addr` (kuseg or kseg0/1), when it is in RAM.
fn ram_slot(addr: u32) -> Option<usize> {
    let phys = match addr >> 28 {
        0x8..=0xb => addr & 0x1fff_ffff,
        _ => addr,
    };
    ((phys as usize) < RAM_SIZE && addr & 3 == 0).then_some(phys as usize / 4)
}

impl Hooks {
    /// Install `func` at guest address `addr` (replacing any hook there) and enable hooks.
    /// Fails when `addr` is not a word-aligned RAM address.
    pub fn install(&mut self, addr: u32, name: &str, func: HookFn) -> Result<(), String> {
        let Some(slot) = ram_slot(addr) else {
            return Err(format!(
                "hook {name}: address {addr:#010x} is not a word-aligned address in RAM"
            ));
        };
        if self.bitmap.is_empty() {
            self.bitmap = vec![0; RAM_SIZE / 4 / 64];
        }
        self.bitmap[slot / 64] |= 1 << (slot % 64);
        self.table.insert(
            slot as u32 * 4,
            Hook {
                name: name.to_string(),
                func,
                calls: 0,
            },
        );
        self.enabled = true;
        self.generation += 1;
        Ok(())
    }

    /// Remove every hook.
    pub fn clear(&mut self) {
        self.bitmap.clear();
        self.table.clear();
        self.enabled = false;
        self.generation += 1;
    }

    /// Turn every hook on or off (`--no-hle`) without forgetting them.
    pub fn set_enabled(&mut self, on: bool) {
        self.enabled = on && !self.table.is_empty();
        self.generation += 1;
    }

    /// Whether hooks are consulted.
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// The hook at `addr`, if any.
    pub fn get(&self, addr: u32) -> Option<&Hook> {
        self.table.get(&(ram_slot(addr)? as u32 * 4))
    }

    /// Every installed hook by physical address.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &Hook)> {
        self.table.iter().map(|(a, h)| (*a, h))
    }

    /// Whether execution reaching `pc` runs a hook (hooks on and `pc` hooked). A recompiler
    /// running several blocks at once must stop before such a pc so that the machine runs it.
    #[inline]
    pub fn is_hooked(&self, pc: u32) -> bool {
        self.enabled && self.hit(pc).is_some()
    }

    /// The slot of the hook at `pc`, if `pc` is hooked (the fast path: one bit).
    #[inline]
    fn hit(&self, pc: u32) -> Option<usize> {
        let slot = ram_slot(pc)?;
        let word = self.bitmap.get(slot / 64)?;
        (word >> (slot % 64) & 1 != 0).then_some(slot)
    }
}

impl piney_jit::HookSet for Hooks {
    #[inline]
    fn active(&self) -> bool {
        self.enabled
    }
    #[inline]
    fn is_hooked(&self, pc: u32) -> bool {
        Hooks::is_hooked(self, pc)
    }
    fn generation(&self) -> u64 {
        self.generation
    }
}

impl Machine {
    /// Run the hook at the CPU's pc, if there is one and it applies. Returns `None` when no hook
    /// ran, else whether the hook took the step (`Some(false)`: it ran and declined); when it
    /// did not take it, the caller executes the guest instruction at pc at once. Kept out of
    /// line: the run loop's hot path is only the `enabled` test before the call.
    #[inline(never)]
    pub(crate) fn try_hook(&mut self) -> Result<Option<bool>, MachineError> {
        if !self.hooks.enabled || self.cpu.delay_next {
            return Ok(None);
        }
        let pc = self.cpu.pc;
        let Some(slot) = self.hooks.hit(pc) else {
            return Ok(None);
        };
        let key = slot as u32 * 4;
        let Some(func) = self.hooks.table.get(&key).map(|h| h.func.clone()) else {
            return Ok(None);
        };
        match func(self)? {
            HookResult::Return => {
                let ra = self.cpu.gpr[31] as u32;
                self.cpu.pc = ra;
                self.cpu.next_pc = ra.wrapping_add(4);
            }
            HookResult::Continue => {
                self.cpu.next_pc = self.cpu.pc.wrapping_add(4);
            }
            // The caller executes the guest instruction at pc next, without asking again.
            HookResult::RunGuest => return Ok(Some(false)),
        }
        if let Some(h) = self.hooks.table.get_mut(&key) {
            h.calls += 1;
        }
        // A native call is not free on the console either; charge one cycle so that time moves.
        self.cpu.cycles += 1;
        Ok(Some(true))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_cover_ram_and_its_mirrors_only() {
        assert_eq!(ram_slot(0x0010_0000), Some(0x0010_0000 / 4));
        assert_eq!(ram_slot(0x8010_0000), Some(0x0010_0000 / 4));
        assert_eq!(ram_slot(0xa010_0000), Some(0x0010_0000 / 4));
        assert_eq!(ram_slot(0x0010_0002), None);
        assert_eq!(ram_slot(0x0200_0000), None);
        assert_eq!(ram_slot(0x1fc0_0000), None);
    }

    /// Which engine runs the guest code in [`call_through_at`].
    #[derive(Clone, Copy, PartialEq, Eq, Debug)]
    enum Engine {
        Interp,
        Jit,
    }

    /// `jal f; nop; addiu v1, zero, 7; b .; nop` at `base`, `f: addiu v0, zero, 5; jr ra;
    /// nop` at `base + 0x100`, run for a few hundred cycles on `engine` with a hook at
    /// `base + hook_at` that returns `result` after setting $v0 = 9 (`Return`), or $v1 = 8 and
    /// pc past the hooked instruction (`Continue`). Returns ($v0, $v1, the hook's calls).
    fn call_through_at(
        engine: Engine,
        base: u32,
        hook_at: u32,
        result: Option<HookResult>,
    ) -> (u32, u32, u64) {
        let mut m = Machine::new(Box::new(std::io::sink()));
        if engine == Engine::Jit {
            m.use_recompiler().unwrap();
            // Blocks compiled at their first visit: the generated code is what is under test.
            if let Some(jit) = &mut m.jit {
                jit.set_hot_threshold(0);
            }
        }
        // jal's target: the low 28 bits of f's address, in words.
        let jal_f = 0x0c00_0000 | ((base + 0x100) & 0x0fff_ffff) >> 2;
        let code: [(u32, u32); 8] = [
            (0x000, jal_f),
            (0x004, 0),
            (0x008, 0x2403_0007),
            (0x00c, 0x1000_ffff),
            (0x010, 0),
            (0x100, 0x2402_0005),
            (0x104, 0x03e0_0008),
            (0x108, 0),
        ];
        let phys = (base & 0x1fff_ffff) as usize;
        for (a, w) in code {
            let a = phys + a as usize;
            m.bus.ram[a..a + 4].copy_from_slice(&w.to_le_bytes());
        }
        if let Some(r) = result {
            let f: HookFn = Arc::new(move |m: &mut Machine| {
                match r {
                    HookResult::Return => m.cpu.gpr[2] = 9,
                    HookResult::Continue => {
                        // A continuation: some native work, then on after the hooked word.
                        m.cpu.gpr[3] = 8;
                        m.cpu.pc += 4;
                    }
                    HookResult::RunGuest => {}
                }
                Ok(r)
            });
            m.hooks.install(base + hook_at, "f", f).unwrap();
        }
        m.cpu.pc = base;
        m.cpu.next_pc = base + 4;
        let end = m.cpu.cycles + 300;
        m.run_cpu_until(end).unwrap();
        if let Some(jit) = &m.jit {
            // The recompiler really ran blocks (the jal's, f's, the loop's).
            assert!(jit.stats().block_runs > 0, "{:?}", jit.stats());
        }
        let calls = m.hooks.get(base + hook_at).map_or(0, |h| h.calls);
        (m.cpu.gpr[2] as u32, m.cpu.gpr[3] as u32, calls)
    }

    /// [`call_through_at`] on the interpreter with `f` hooked.
    fn call_through(result: Option<HookResult>) -> (u32, u32, u64) {
        call_through_at(Engine::Interp, 0x0010_0000, 0x100, result)
    }

    #[test]
    fn a_hook_replaces_the_function_or_declines() {
        assert_eq!(call_through(None), (5, 7, 0));
        assert_eq!(call_through(Some(HookResult::Return)), (9, 7, 1));
        assert_eq!(call_through(Some(HookResult::RunGuest)), (5, 7, 0));
    }

    #[test]
    fn the_recompiler_stops_at_hooks() {
        for engine in [Engine::Interp, Engine::Jit] {
            // kuseg, and kseg0 as the kernel's continuations at 0x8007_f000.. are reached.
            for base in [0x0010_0000, 0x8007_f000] {
                let run = |at, r| call_through_at(engine, base, at, r);
                let what = format!("{engine:?} at {base:#010x}");
                assert_eq!(run(0x100, None), (5, 7, 0), "{what}");
                // f reached by the jal that ends the first block.
                assert_eq!(run(0x100, Some(HookResult::Return)), (9, 7, 1), "{what}");
                // The hook declines: f's own code runs (its first instruction interpreted).
                assert_eq!(run(0x100, Some(HookResult::RunGuest)), (5, 7, 0), "{what}");
                // A continuation reached by f's `jr ra`, from inside f's translated block: the
                // hook sets $v1 = 8 and goes on at the `b .`, so the addiu there never runs.
                assert_eq!(run(0x008, Some(HookResult::Continue)), (5, 8, 1), "{what}");
                // An instruction in the middle of f, reached by falling through.
                assert_eq!(run(0x104, Some(HookResult::Return)), (9, 7, 1), "{what}");
            }
        }
    }

    #[test]
    fn install_refuses_outside_ram_and_disable_keeps_the_table() {
        let mut h = Hooks::default();
        let f: HookFn = Arc::new(|_| Ok(HookResult::Return));
        assert!(h.install(0x1fc0_0000, "bios", f.clone()).is_err());
        assert!(!h.enabled());
        h.install(0x0010_0040, "f", f).unwrap();
        assert!(h.enabled());
        assert!(h.hit(0x8010_0040).is_some());
        assert!(h.hit(0x0010_0044).is_none());
        h.set_enabled(false);
        assert!(!h.enabled());
        assert!(h.get(0x0010_0040).is_some());
    }
}
