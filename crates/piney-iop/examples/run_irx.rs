//! Run IRX modules on a bare IOP (no EE), with NTSC vertical blanks, until the first module's
//! start returned and the IOP idles: `cargo run -p piney-iop --example run_irx -- A.irx [B.irx...]`.

use std::io::Write;

/// NTSC: 59.94 fields a second.
const FIELD: u64 = piney_iop::IOP_CLOCK_HZ * 1001 / 60_000;
/// The vertical blank lasts about 22 of 262.5 lines.
const BLANK: u64 = FIELD * 22 / 262;

fn main() {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    let mut iop = piney_iop::Iop::new();
    let mut last = 0;
    for p in &paths {
        let image = std::fs::read(p).expect("read module");
        last = iop.load_and_start(p, &image, &[]);
        if last < 0 {
            eprintln!("load failed: {last}");
            std::process::exit(1);
        }
    }
    let mut next_vblank = FIELD;
    let mut in_blank = false;
    let limit = 60 * FIELD;
    loop {
        let target = if in_blank {
            next_vblank - FIELD + BLANK
        } else {
            next_vblank
        };
        if let Err(e) = iop.run_until(target) {
            std::io::stdout().write_all(&iop.take_output()).unwrap();
            eprintln!("{e}");
            std::process::exit(1);
        }
        std::io::stdout().write_all(&iop.take_output()).unwrap();
        if in_blank {
            iop.raise_irq(piney_iop::hw::intc::line::EVBLANK);
            in_blank = false;
        } else {
            iop.raise_irq(piney_iop::hw::intc::line::VBLANK);
            in_blank = true;
            next_vblank += FIELD;
        }
        if iop.start_result(last).is_some()
            && iop.loader_idle()
            && iop.idle()
            && iop.events.next_due().is_none()
        {
            break;
        }
        if iop.cycles() > limit {
            eprintln!("time limit");
            break;
        }
    }
}
