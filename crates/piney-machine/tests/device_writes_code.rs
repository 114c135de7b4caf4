//! Code written into RAM by a device (here the fromSPR DMA channel) runs once the program has
//! flushed the caches, under both CPU engines: the recompiler drops what it had translated
//! there at the FlushCache (it sees CPU stores itself, but not the DMAC's).

mod kernel_support;

use kernel_support::{Asm, log, machine, r, run, sc};
use piney_machine::RunEnd;

/// fromSPR (channel 8): CHCR, MADR, QWC, SADR; D_CTRL.
const D8_CHCR: u32 = 0x1000_d000;
const D8_MADR: u32 = 0x1000_d010;
const D8_QWC: u32 = 0x1000_d020;
const D8_SADR: u32 = 0x1000_d080;
const D_CTRL: u32 = 0x1000_e000;

/// `addiu v0, zero, 2; jr ra; nop; nop`: the new body of `f`, one quadword.
const NEW_F: [u32; 4] = [0x2402_0002, 0x03e0_0008, 0, 0];

fn program() -> Asm {
    let mut a = Asm::new();
    a.jal("f").log(r::V0);
    // The new f from the scratchpad over the old one, by DMA, waited on.
    a.store_imm(D_CTRL, 1);
    a.la(r::T0, "f").li(r::T1, D8_MADR).sw(r::T0, 0, r::T1);
    a.store_imm(D8_SADR, 0)
        .store_imm(D8_QWC, 1)
        .store_imm(D8_CHCR, 0x100);
    a.label("wait");
    a.li(r::T1, D8_CHCR).lw(r::T0, 0, r::T1);
    a.li(r::T1, 0x100).word(0x0109_4024); // and t0, t0, t1
    a.bne(r::T0, r::ZERO, "wait");
    a.li(r::A0, 0).sys(sc::FLUSH_CACHE);
    a.jal("f").log(r::V0);
    a.exit();
    // f, quadword-aligned: `addiu v0, zero, 1; jr ra; nop`.
    while !a.label("here").addr_of("here").is_multiple_of(16) {
        a.nop();
    }
    a.label("f");
    a.li(r::V0, 1).jr(r::RA);
    a
}

fn run_with(jit: bool) -> Vec<u32> {
    let mut m = machine(&program());
    if jit {
        m.use_recompiler().unwrap();
        // f's block compiled at its first call, so that the second runs stale code unless the
        // DMA's write dropped it.
        if let Some(j) = &mut m.jit {
            j.set_hot_threshold(0);
        }
    }
    for (i, w) in NEW_F.iter().enumerate() {
        m.bus.spr[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
    }
    assert_eq!(run(&mut m, 10).unwrap(), RunEnd::Exited(0));
    log(&mut m)
}

#[test]
fn code_a_dma_wrote_runs_after_flush_cache_interpreted() {
    assert_eq!(run_with(false), [1, 2]);
}

#[test]
fn code_a_dma_wrote_runs_after_flush_cache_recompiled() {
    assert_eq!(run_with(true), [1, 2]);
}
