//! The SPU2 makes its samples inside the IOP's slices, as `--stats` times them: also those it
//! makes at a vertical blank for the frame's sound (nearly all of an idle SPU2's, whose batch
//! event is rare), so that the EE's own time excludes the sound chip's work.

mod kernel_support;

use std::cell::RefCell;
use std::rc::Rc;

use kernel_support::{Asm, r, run};
use piney_machine::sif::{IopWatch, SectionWatch};

/// What the watches saw, in order: ('i', start) for an IOP slice, ('s', start) for the SPU2.
type Log = Rc<RefCell<Vec<(char, bool)>>>;

struct Watch(Log, char);

impl IopWatch for Watch {
    fn slice(&mut self, start: bool) {
        self.0.borrow_mut().push((self.1, start));
    }
}

impl SectionWatch for Watch {
    fn section(&mut self, start: bool) {
        self.0.borrow_mut().push((self.1, start));
    }
}

#[test]
fn the_spu2_makes_its_samples_inside_the_iops_slices() {
    let mut a = Asm::new();
    a.label("spin").addiu(r::T0, r::T0, 1).j("spin");
    let mut m = kernel_support::machine(&a);
    run(&mut m, 2).unwrap();
    // A register written: the SPU2 runs from now on (no interrupt enabled: it is idle).
    assert!(m.bus.iop.bus.hw.write(0x1f90_0188, 2, 0));
    let log: Log = Rc::default();
    m.set_iop_watch(Box::new(Watch(log.clone(), 'i')));
    m.set_spu2_watch(Box::new(Watch(log.clone(), 's')));
    run(&mut m, 4).unwrap();

    let log = log.borrow();
    let sections = log.iter().filter(|&&(w, start)| w == 's' && start).count();
    assert!(
        sections >= 4,
        "the SPU2 made samples at least once a frame: {log:?}"
    );
    let mut in_slice = false;
    for (n, &(w, start)) in log.iter().enumerate() {
        match w {
            'i' => in_slice = start,
            _ => assert!(
                in_slice,
                "SPU2 section event {n} outside the IOP's slices: {log:?}"
            ),
        }
    }
}
