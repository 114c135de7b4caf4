//! Run IRX modules on a bare IOP (no EE), with NTSC vertical blanks, until the IOP has nothing
//! left to do: `cargo run -p piney-iop --example run_irx -- A.irx [B.irx...]`. Each module is
//! loaded and started after the one before it, as a console's loader does.

use std::io::Write;

fn main() {
    let mut iop = piney_iop::Iop::new();
    for p in std::env::args().skip(1) {
        let image = std::fs::read(&p).unwrap_or_else(|e| {
            eprintln!("{p}: {e}");
            std::process::exit(2);
        });
        iop.queue_module(&p, image, &[]);
    }
    let r = iop.run_bare(60 * piney_iop::IOP_CLOCK_HZ);
    std::io::stdout().write_all(&iop.take_output()).unwrap();
    match r {
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
        Ok(false) => eprintln!("time limit"),
        Ok(true) => {}
    }
    if let Some(o) = iop.kernel.loadcore.outcomes.iter().find(|o| o.id < 0) {
        eprintln!("load of {} failed: {}", o.path, o.id);
        std::process::exit(1);
    }
}
