//! Our own BIOS content: small code stubs the HLE kernel points guest code at.
//!
//! No Sony BIOS is ever loaded. The kernel is native Rust; the ROM only holds a few instruction
//! sequences that guest code runs through, each ending in a SYSCALL that the kernel recognises by
//! its address (not by `$v1`):
//! - [`HANDLER_RETURN`]: the `$ra` of every guest function the kernel calls (interrupt, DMAC and
//!   alarm handlers, SetSyscall handlers). Its SYSCALL tells the kernel the call returned.
//! - [`THREAD_EXIT`]: the `$ra` of every thread's entry function: `li $v1, 0x23; syscall`
//!   (ExitThread), as the real kernel makes a returning thread exit.
//! - [`IDLE`]: where the CPU sits, interruptible, while no thread is ready (`b .`).
//! - [`NATIVE_BASE`]: one 16-byte stub per syscall number (`syscall; jr $ra; nop; nop`). The
//!   kernel's syscall table (see [`crate::kernel`]) holds these addresses for the syscalls it
//!   services natively, so that guest code that reads a handler address from the table (ps2sdk's
//!   GetSyscallHandler) and calls it reaches the native service.

use crate::bus::{BIOS_BASE, EeBus};

/// kseg1 address of the BIOS ROM, as the stubs are executed.
const ROM: u32 = 0xa000_0000 | BIOS_BASE;

/// The return address given to guest functions the kernel calls.
pub const HANDLER_RETURN: u32 = ROM + 0x100;
/// The return address of a thread's entry function: ExitThread.
pub const THREAD_EXIT: u32 = ROM + 0x110;
/// The idle loop.
pub const IDLE: u32 = ROM + 0x120;
/// The first native syscall stub (syscall number 0); stub `n` is at `NATIVE_BASE + 16 * n`.
pub const NATIVE_BASE: u32 = ROM + 0x1000;
/// How many syscall numbers have a table entry (0..=255).
pub const SYSCALLS: u32 = 256;

/// `syscall` with a code field.
const fn syscall(code: u32) -> u32 {
    0x0000_000c | (code & 0xf_ffff) << 6
}
const NOP: u32 = 0;
/// `beq $zero, $zero, .` (branch to itself).
const BRANCH_SELF: u32 = 0x1000_ffff;
/// `jr $ra`.
const JR_RA: u32 = 0x03e0_0008;
/// `addiu $v1, $zero, 0x23` (ExitThread).
const LI_V1_EXIT_THREAD: u32 = 0x2403_0023;

/// The native stub address for syscall `n` (0..=255).
pub const fn native_entry(n: u32) -> u32 {
    NATIVE_BASE + 16 * n
}

/// Whether `pc` (any segment) is the stub at `stub`.
pub fn is(pc: u32, stub: u32) -> bool {
    pc & 0x1fff_ffff == stub & 0x1fff_ffff
}

/// The syscall number whose native stub holds the SYSCALL at `pc`, if any.
pub fn native_number(pc: u32) -> Option<u32> {
    let off = (pc & 0x1fff_ffff).wrapping_sub(NATIVE_BASE & 0x1fff_ffff);
    (off < 16 * SYSCALLS && off.is_multiple_of(16)).then_some(off / 16)
}

fn put(bus: &mut EeBus, addr: u32, words: &[u32]) {
    let off = ((addr & 0x1fff_ffff) - BIOS_BASE) as usize;
    for (i, w) in words.iter().enumerate() {
        bus.bios[off + 4 * i..off + 4 * i + 4].copy_from_slice(&w.to_le_bytes());
    }
}

/// Write the stubs into the BIOS ROM.
pub fn install(bus: &mut EeBus) {
    // The SYSCALL code fields are only a help for someone reading a trace; the kernel goes by
    // address.
    put(
        bus,
        HANDLER_RETURN,
        &[syscall(0xface), NOP, BRANCH_SELF, NOP],
    );
    put(
        bus,
        THREAD_EXIT,
        &[LI_V1_EXIT_THREAD, syscall(0), BRANCH_SELF, NOP],
    );
    put(bus, IDLE, &[BRANCH_SELF, NOP]);
    for n in 0..SYSCALLS {
        put(bus, native_entry(n), &[syscall(n), JR_RA, NOP, NOP]);
    }
}
