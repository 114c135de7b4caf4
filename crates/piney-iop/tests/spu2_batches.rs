//! The SPU2's batch event: every `BATCH` samples while the SPU2 can raise its interrupt (or
//! takes AutoDMA data), every `IDLE_BATCH` samples while it has nothing to do that cannot wait;
//! a register write that enables the interrupt brings the event back onto its `BATCH` grid at
//! once, the same cycles as if it had never left it, and clearing it lets the batches grow
//! again.

use piney_iop::Iop;
use piney_iop::sound::{BATCH, IDLE_BATCH};
use piney_spu2::IOP_CYCLES_PER_SAMPLE;

/// Core 0's ATTR (bit 6 enables its interrupt).
const ATTR0: u32 = 0x1f90_019a;

/// Run the idle IOP through its next event; the event's cycle and the next one's.
fn take_next(iop: &mut Iop) -> (u64, u64) {
    let at = iop
        .next_event()
        .expect("the SPU2's clock keeps an event due");
    iop.run_until(at + 1).unwrap();
    (at, iop.next_event().expect("the next batch is due"))
}

#[test]
fn an_idle_spu2_takes_long_batches_and_an_enabled_interrupt_short_ones_on_the_same_grid() {
    let mut iop = Iop::new();
    assert!(
        iop.run_bare(piney_iop::IOP_CLOCK_HZ).unwrap(),
        "the IOP boots with nothing queued"
    );
    assert!(iop.idle(), "no module runs: the IOP idles");
    let step = BATCH * IOP_CYCLES_PER_SAMPLE;
    let long = IDLE_BATCH * IOP_CYCLES_PER_SAMPLE;

    // Untouched (and, below, touched with no interrupt enabled): long batches.
    let (first, next) = take_next(&mut iop);
    assert_eq!(next - first, long, "an idle SPU2's batch");
    iop.bus.hw.write(0x1f90_0188, 2, 0); // a register write with no interrupt enabled
    iop.run_until(first + 3 * step + 5).unwrap();
    assert_eq!(iop.next_event(), Some(next), "still one long batch");

    // The interrupt enabled between two points of the grid: the event moves to the next one.
    iop.bus.hw.write(ATTR0, 2, 0x40);
    let now = first + 3 * step + 7;
    iop.run_until(now).unwrap();
    assert_eq!(
        iop.next_event(),
        Some(first + 4 * step),
        "back on the grid of {BATCH} samples from {first}"
    );
    for k in 4..8 {
        let (at, next) = take_next(&mut iop);
        assert_eq!(at, first + k * step);
        assert_eq!(next - at, step, "a batch with the interrupt enabled");
    }

    // Disabled again: the batch after the next event is a long one.
    iop.bus.hw.write(ATTR0, 2, 0);
    let (at, next) = take_next(&mut iop);
    assert_eq!(at, first + 8 * step);
    assert_eq!(next - at, long);
}
