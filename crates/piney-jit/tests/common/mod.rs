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
