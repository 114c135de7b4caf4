//! The scratchpad's fast path is compiled only into loads and stores seen reaching it: a block
//! compiled before its instruction touched the scratchpad takes the slow path there once, is
//! dropped, and runs natively through the scratchpad's path when compiled again; the state is
//! the interpreter's all along.

use piney_ee::bus::{Bus, BusFault};
use piney_ee::{Cpu, Exception};
use piney_jit::{Jit, JitBus, interp_run};

const CODE: u32 = 0x1000;
const SPR: u32 = 0x7000_0000;

/// 64 KiB of RAM and the 16 KiB scratchpad at 0x7000_0000 (plain memory, lent to the fast path).
#[derive(Clone, PartialEq, Debug)]
struct SprBus {
    ram: Vec<u8>,
    spr: Vec<u8>,
}

impl SprBus {
    fn slice(&mut self, addr: u32, n: usize) -> Result<&mut [u8], BusFault> {
        let (mem, at) = if addr >> 14 == SPR >> 14 {
            (&mut self.spr, (addr - SPR) as usize)
        } else {
            (&mut self.ram, (addr & 0x1fff_ffff) as usize)
        };
        mem.get_mut(at..at + n).ok_or(BusFault { addr })
    }
}

macro_rules! access {
    ($r:ident, $w:ident, $t:ty) => {
        fn $r(&mut self, a: u32) -> Result<$t, BusFault> {
            let s = self.slice(a, size_of::<$t>())?;
            Ok(<$t>::from_le_bytes(s.try_into().unwrap()))
        }
        fn $w(&mut self, a: u32, v: $t) -> Result<(), BusFault> {
            self.slice(a, size_of::<$t>())?
                .copy_from_slice(&v.to_le_bytes());
            Ok(())
        }
    };
}

impl Bus for SprBus {
    access!(read8, write8, u8);
    access!(read16, write16, u16);
    access!(read32, write32, u32);
    access!(read64, write64, u64);
    access!(read128, write128, u128);
}

impl JitBus for SprBus {
    fn ram(&mut self) -> &mut [u8] {
        &mut self.ram
    }
    fn scratchpad(&mut self) -> &mut [u8] {
        &mut self.spr
    }
}

/// A loop of 100 passes storing its counter through `$4` and reading it back, `$4` at `base`,
/// then SYSCALL.
fn program(base: u32) -> SprBus {
    let words = [
        0x3c04_0000 | base >> 16, // lui $4, base >> 16
        0x2405_0064,              // addiu $5, $0, 100
        0xac85_0000,              // loop: sw $5, 0($4)
        0x8c86_0000,              // lw $6, 0($4)
        0x00e6_3821,              // addu $7, $7, $6
        0x24a5_ffff,              // addiu $5, $5, -1
        0x14a0_fffb,              // bne $5, $0, loop
        0x2484_0004,              // addiu $4, $4, 4 (the slot)
        0x0000_000c,              // syscall
    ];
    let mut bus = SprBus {
        ram: vec![0; 0x10000],
        spr: vec![0; 0x4000],
    };
    for (i, w) in words.iter().enumerate() {
        let at = CODE as usize + 4 * i;
        bus.ram[at..at + 4].copy_from_slice(&w.to_le_bytes());
    }
    bus
}

/// Run the program on both engines (every block compiled at its first visit) and compare.
fn both(base: u32) -> (Jit, Cpu, Result<(), Exception>) {
    let mut bus = program(base);
    let mut cpu = Cpu::new();
    cpu.jump_to(CODE);
    let (mut ci, mut bi) = (cpu.clone(), bus.clone());
    let ri = interp_run(&mut ci, &mut bi, 100_000);
    let mut jit = Jit::new().unwrap();
    jit.set_hot_threshold(0);
    let mut rj = Ok(());
    // The recompiler returns early after a slow path; the interpreter's run goes on to the
    // exception.
    for _ in 0..10 {
        rj = jit.run(&mut cpu, &mut bus, 100_000);
        if rj.is_err() {
            break;
        }
    }
    assert_eq!(ri, rj);
    assert_eq!(ci, cpu);
    assert_eq!(bi, bus);
    (jit, cpu, rj)
}

#[test]
fn a_block_learns_its_scratchpad_accesses() {
    let (jit, cpu, r) = both(SPR);
    assert!(r.is_err(), "the program ends at its SYSCALL");
    assert_eq!(cpu.gpr[7] as u32, (1..=100).sum::<u32>());
    let s = jit.stats();
    // The loop's block, compiled without the scratchpad's path, took its slow path at the
    // store and was dropped; compiled again, it ran the other passes natively.
    assert!(s.blocks_invalidated >= 1, "{s:?}");
    assert!(s.interp_steps < 20, "{s:?}");
    assert!(s.loop_passes >= 90, "{s:?}");
}

#[test]
fn ram_only_code_is_compiled_once() {
    let (jit, _, r) = both(0x8000);
    assert!(r.is_err());
    let s = jit.stats();
    assert_eq!(s.blocks_invalidated, 0, "{s:?}");
    assert!(s.loop_passes >= 98, "{s:?}");
}
