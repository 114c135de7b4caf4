//! An idle IOP (no thread ready) is woken when it can take its next event, once: the EE's
//! `Iop` event falls on the first EE cycle at which the IOP's slice runs past that event's
//! cycle. Woken earlier, the slice stops where the event is due without taking it, and the
//! machine woke the IOP again at every EE cycle up to then (eight wake-ups for one event, each
//! ending the EE's cycle budget there).

mod kernel_support;

use kernel_support::{Asm, r, run};
use piney_machine::scheduler::Event;
use piney_machine::sif::CLOCK_RATIO;

#[test]
fn an_idle_iop_is_woken_once_for_its_next_event() {
    // The EE spins; the IOP boots and idles between the SPU2's batches of samples.
    let mut a = Asm::new();
    a.label("spin").addiu(r::T0, r::T0, 1).j("spin");
    let mut m = kernel_support::machine(&a);
    run(&mut m, 3).unwrap();
    assert!(m.bus.iop.idle(), "the IOP idles once booted");

    let next = m
        .bus
        .iop
        .next_event()
        .expect("the SPU2's batches keep an event due");
    let due = m
        .bus
        .sched
        .due_of(Event::Iop)
        .expect("the IOP's wake-up is scheduled");
    assert_eq!(
        due,
        (next + 1) * CLOCK_RATIO,
        "woken at the first EE cycle whose slice runs past the IOP's event at {next}"
    );

    // One EE cycle earlier the IOP's slice ends at the event's cycle without taking it ...
    m.cpu.cycles = due - 1;
    m.iop_sync().unwrap();
    assert_eq!(m.bus.iop.next_event(), Some(next));
    assert_eq!(m.bus.sched.due_of(Event::Iop), Some(due), "still due then");
    // ... at `due` it takes it, and the next wake-up follows the IOP's next event.
    m.cpu.cycles = due;
    m.iop_sync().unwrap();
    let after = m.bus.iop.next_event().unwrap();
    assert!(
        after > next,
        "the event at {next} was taken (next now {after})"
    );
    assert_eq!(
        m.bus.sched.due_of(Event::Iop),
        Some((after + 1) * CLOCK_RATIO)
    );
}
