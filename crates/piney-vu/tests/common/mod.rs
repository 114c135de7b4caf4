//! Shared helpers for the VU tests.
#![allow(dead_code)]

use piney_vu::{NullHost, Stop, Unit, Vu, VuHost, assemble};

/// A float's bits.
pub fn f(x: f32) -> u32 {
    x.to_bits()
}

/// Assemble `src` (panicking with the assembler's message on error: tests only).
pub fn asm(src: &str) -> Vec<u64> {
    match assemble(src) {
        Ok(code) => code,
        Err(e) => panic!("{e}"),
    }
}

/// Run `src` on a fresh unit after `setup`, with `host`.
pub fn run_with(
    unit: Unit,
    src: &str,
    host: &mut dyn VuHost,
    setup: impl FnOnce(&mut Vu),
) -> (Vu, Stop) {
    let mut vu = Vu::new(unit);
    vu.load_micro(0, &asm(src));
    setup(&mut vu);
    let stop = vu.run(0, host, 10_000);
    (vu, stop)
}

/// Run `src` on VU0 with no host, expecting it to end through the E bit.
pub fn run0(src: &str, setup: impl FnOnce(&mut Vu)) -> Vu {
    let (vu, stop) = run_with(Unit::Vu0, src, &mut NullHost, setup);
    assert!(matches!(stop, Stop::Ended { .. }), "{stop:?}");
    vu
}

/// Run `src` on VU1 with no host, expecting it to end through the E bit.
pub fn run1(src: &str, setup: impl FnOnce(&mut Vu)) -> Vu {
    let (vu, stop) = run_with(Unit::Vu1, src, &mut NullHost, setup);
    assert!(matches!(stop, Stop::Ended { .. }), "{stop:?}");
    vu
}

/// The end of a program: an E bit and its delay slot.
pub const EXIT: &str = "nop [e]\nnop\n";
