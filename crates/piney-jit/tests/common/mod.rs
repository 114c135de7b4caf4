//! Shared by the tests on hand-written programs: a program loaded at [`CODE`], the encodings
//! they use, and a copy of a machine for the second engine.

use piney_ee::Cpu;
use piney_ee::bus::FlatBus;

/// Where the programs start.
pub const CODE: u32 = 0x1000;

/// `words` at [`CODE`] in a 64 KiB memory, and a CPU about to run them.
pub fn load(words: &[u32]) -> (Cpu, FlatBus) {
    let mut bus = FlatBus::new(0x10000);
    for (i, w) in words.iter().enumerate() {
        let a = CODE as usize + 4 * i;
        bus.mem[a..a + 4].copy_from_slice(&w.to_le_bytes());
    }
    let mut cpu = Cpu::new();
    cpu.jump_to(CODE);
    (cpu, bus)
}

/// `addiu $rt, $rs, imm`.
pub fn addiu(rt: u32, rs: u32, imm: u16) -> u32 {
    0x09 << 26 | rs << 21 | rt << 16 | imm as u32
}

/// A copy of the CPU and its memory (the other engine's machine).
pub fn twin(cpu: &Cpu, bus: &FlatBus) -> (Cpu, FlatBus) {
    (
        cpu.clone(),
        FlatBus {
            mem: bus.mem.clone(),
        },
    )
}

/// A loop that writes a new word into itself at every pass, loaded at [`CODE`]:
/// ```text
/// L: sw $4, 0($3)       ($3 = PATCH, $4 = addiu $2, $2, 5 at first)
/// PATCH: addiu $2, $2, 1
///   addiu $4, $4, 1     (the next pass's word adds one more)
///   addiu $29, $29, -1  ($29 = 50 passes)
///   bne $29, $0, L
///   nop
///   syscall
/// ```
/// Every pass runs the word it wrote (see [`assert_every_patch_ran`]).
pub fn self_patching_loop() -> (Cpu, FlatBus) {
    let (mut cpu, bus) = load(&[
        0xac64_0000,
        addiu(2, 2, 1),
        addiu(4, 4, 1),
        addiu(29, 29, 0xffff),
        0x17a0_fffb,
        0,
        0x0000_000c,
    ]);
    cpu.gpr[3] = (CODE + 4) as u128;
    cpu.gpr[4] = addiu(2, 2, 5) as u128;
    cpu.gpr[29] = 50;
    (cpu, bus)
}

/// The interpreter's end of [`self_patching_loop`] (`interp`) ran every word the loop wrote,
/// and the other engine's end (`other`) is the same, memory included.
pub fn assert_every_patch_ran(interp: (&Cpu, &FlatBus), other: (&Cpu, &FlatBus)) {
    // 5 + 6 + ... + 54.
    assert_eq!(
        interp.0.gpr[2],
        5 * 50 + 49 * 50 / 2,
        "every pass ran its new addiu"
    );
    assert_eq!(interp.0, other.0);
    assert_eq!(interp.1.mem, other.1.mem);
}
