//! Our own IOP test modules (tests/iop/*.irx, built from their C sources by tools/build-iop.sh)
//! run on a bare IOP and print what their hand-derived .stdout files say. Each run's `host:` is
//! a fresh, empty folder under the target's temporary folder.

use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Run modules in order on a bare IOP; the output.
fn run(names: &[&str]) -> String {
    let mut iop = piney_iop::Iop::new();
    let host = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("piney-iop-modules")
        .join(names.join("+"));
    let _ = std::fs::remove_dir_all(&host);
    std::fs::create_dir_all(&host).unwrap();
    iop.set_host_root(host);
    for n in names {
        let p = root().join(format!("tests/iop/{n}.irx"));
        let image = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        iop.queue_module(n, image, &[]);
    }
    let done = iop
        .run_bare(10 * piney_iop::IOP_CLOCK_HZ)
        .unwrap_or_else(|e| panic!("{names:?}: {e}"));
    assert!(
        done,
        "{names:?} did not finish within 10 emulated seconds; output: {}",
        String::from_utf8_lossy(&iop.take_output())
    );
    for o in &iop.kernel.loadcore.outcomes {
        assert!(o.id >= 0, "{} failed to load: {}", o.path, o.id);
    }
    String::from_utf8_lossy(&iop.take_output()).into_owned()
}

fn expected(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| {
            std::fs::read_to_string(root().join(format!("tests/iop/{n}.stdout")))
                .unwrap_or_else(|e| panic!("{n}.stdout: {e}"))
        })
        .collect()
}

macro_rules! module_test {
    ($name:ident, $($m:literal),+) => {
        #[test]
        fn $name() {
            let names = [$($m),+];
            assert_eq!(run(&names), expected(&names));
        }
    };
}

module_test!(relocations, "reloc");
module_test!(threads, "threads");
module_test!(semaphores, "sema");
module_test!(event_flags, "evflag");
module_test!(message_boxes, "mbox");
module_test!(interrupts, "intr");
module_test!(the_handler_table_in_ram, "intrtab");
module_test!(timers_and_alarms, "timers");
module_test!(variable_pools, "vpl");
module_test!(fixed_pools, "fpl");
module_test!(rpc_server_module, "rpcserver");
module_test!(a_library_between_two_modules, "libexport", "libimport");
module_test!(stop_and_unload, "stopee", "stopper");
module_test!(a_module_cannot_stop_itself, "selfstop");
module_test!(plain_computation, "compute");
module_test!(files_through_ioman, "ioman");
module_test!(stdio_through_fd_1_and_stdio_init, "stdioinit");
module_test!(a_guest_device_driver, "iodriver");
// Files kept open across frames (crates/piney/tests/save_states.rs saves a state among them).
module_test!(files_kept_open, "hostlog");
// The demo title's module on its own (no EE calls it): it starts and stays.
#[test]
fn demo_monitor_module_starts() {
    let mut iop = piney_iop::Iop::new();
    let image = std::fs::read(root().join("demo/iop/ccmon.irx")).unwrap();
    iop.queue_module("ccmon", image, &[]);
    // It waits for vertical blanks for ever: not quiescent, so the run ends at its limit.
    let done = iop.run_bare(piney_iop::IOP_CLOCK_HZ / 10).unwrap();
    assert!(!done);
    assert_eq!(iop.kernel.loadcore.outcomes[0].result, Some(0));
    assert_eq!(
        String::from_utf8_lossy(&iop.take_output()),
        "ccmon: IOP monitor up, sid 0x63634d4e\n"
    );
}

#[test]
fn every_module_has_a_test() {
    let tested = [
        "reloc",
        "threads",
        "sema",
        "evflag",
        "mbox",
        "intr",
        "timers",
        "vpl",
        "fpl",
        "rpcserver",
        "libexport",
        "libimport",
        "stopee",
        "stopper",
        "compute",
        "ioman",
        "hostlog",
        "iodriver",
        "lcinfo",
        "dmac",
        "bootmods",
        "padcopy",
        // tests/cdvd.rs runs it with a disc in the drive.
        "cdvd",
        // tests/cdda.rs runs it with a CD of audio tracks in the drive.
        "cdda",
        "intrtab",
        "selfstop",
        "stdioinit",
        "sdload",
        "libsd",
    ];
    for e in std::fs::read_dir(root().join("tests/iop")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "irx") {
            let n = p.file_stem().unwrap().to_string_lossy().into_owned();
            assert!(
                tested.contains(&n.as_str()),
                "tests/iop/{n}.irx has no test"
            );
        }
    }
}
module_test!(loadcore_internal_data, "lcinfo");
module_test!(dmacman_registers, "dmac");
module_test!(boot_module_libraries, "bootmods");
// A module named "padman" with no native pad driver to stand in for it (the bare IOP: the
// machine adds the pad driver) runs as its own code.
module_test!(a_driver_with_no_native_stand_in_runs_as_code, "padcopy");
// rom0:LIBSD loaded by a small loader first (as a game's loader does: the sound driver's
// imports of libsd are linked when it loads), then the driver-style test of the library over
// the SPU2.
module_test!(libsd_over_the_spu2, "sdload", "libsd");
