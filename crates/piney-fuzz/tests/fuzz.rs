//! The bounded fuzz run of CI: every target's seeds and a fixed count of mutants, under the
//! allocation cap and the watchdog. Each target prints its executions (on the terminal even
//! when the test passes). See the crate's doc for the variables that make a longer run.

use std::io::Write;

#[global_allocator]
static ALLOC: piney_fuzz::guard::CapAlloc = piney_fuzz::guard::CapAlloc;

fn fuzz(name: &str) {
    let target = piney_fuzz::targets::by_name(name).expect("a target of that name");
    if let Some(r) = piney_fuzz::harness::reproduce(target) {
        if let Err(e) = r {
            panic!("{name}: {e}");
        }
        return;
    }
    let cfg = piney_fuzz::Config::from_env(target);
    match piney_fuzz::campaign(target, &cfg) {
        Ok(report) => {
            // Past the test harness's capture: the counts are part of CI's log.
            let _ = writeln!(std::io::stderr(), "{}", report.summary());
            assert!(
                report.seeds_ok > 0,
                "{name}: no seed runs clean, so the mutants start from broken files: {}",
                report.summary()
            );
        }
        Err(f) => panic!("{f}"),
    }
}

macro_rules! targets {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                fuzz(stringify!($name));
            }
        )*

        #[test]
        fn every_target_has_a_test() {
            let tested = [$(stringify!($name)),*];
            for t in piney_fuzz::targets::TARGETS {
                assert!(tested.contains(&t.name), "{} has no test here", t.name);
            }
        }
    };
}

targets!(
    elf_interp,
    elf_jit,
    irx,
    gif_dma,
    vif_dma,
    gs_dump,
    png,
    input_script,
    pad_trace,
    profile,
    mapping,
    settings,
    disc,
    cue,
    memcard_image,
    memcard_folder,
    save_state,
);
