//! IOP reboots with IOPRP images (`rom0:UDNL IMAGE`, what sceSifRebootIop sends): the image's
//! boot list (IOPBTCONF) boots, its native names answered natively and its other modules run
//! as code in order, BOOTEND only once they have started; the image's modules are rom0's
//! afterwards; a broken or missing image stops the run with an error naming it.

use std::path::{Path, PathBuf};

use piney_iop::hw::sif::STAT_BOOTEND;
use piney_iop::romdir;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn module(name: &str) -> Vec<u8> {
    std::fs::read(root().join(format!("tests/iop/{name}.irx"))).unwrap()
}

fn stdout_of(name: &str) -> String {
    std::fs::read_to_string(root().join(format!("tests/iop/{name}.stdout"))).unwrap()
}

/// A folder of its own for `host:` with `files` in it.
fn host(test: &str, files: &[(&str, &[u8])]) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("ioprp")
        .join(test);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    for (n, b) in files {
        std::fs::write(d.join(n), b).unwrap();
    }
    d
}

fn booted(iop: &piney_iop::Iop) -> bool {
    iop.bus.hw.sif.smflg & STAT_BOOTEND != 0
}

#[test]
fn an_ioprp_boot_list_runs_its_own_modules_as_code() {
    let reloc = module("reloc");
    let threads = module("threads");
    let conf = b"# piney's test image\nSYSMEM\nLOADCORE\n@800\nSIO2MAN\nRELOC\nIOMANX\nEESYNC\n";
    let image = romdir::build(&[
        ("IOPBTCONF", conf, None),
        ("RELOC", &reloc, Some(0x0101)),
        ("THREADS", &threads, Some(0x0101)),
        // A newer copy of a module piney emulates: answered natively, never run.
        ("SIO2MAN", &[0xff; 64], Some(0x0300)),
    ]);
    let dir = host("boot", &[("TEST.IMG", &image)]);
    let mut iop = piney_iop::Iop::new();
    iop.set_host_root(dir);
    // The EE clears SMFLG.BOOTEND before it asks for the reset (SifIopReset).
    iop.bus.hw.sif.ee_write(0x30, STAT_BOOTEND);
    iop.reboot("rom0:UDNL host:TEST.IMG -v").unwrap();
    assert!(!booted(&iop), "BOOTEND waits for the boot list's modules");
    assert!(iop.run_bare(piney_iop::IOP_CLOCK_HZ).unwrap());
    assert!(booted(&iop));
    assert_eq!(
        String::from_utf8_lossy(&iop.take_output()),
        stdout_of("reloc")
    );
    let loaded: Vec<_> = iop
        .kernel
        .loadcore
        .outcomes
        .iter()
        .map(|o| &o.path)
        .collect();
    assert_eq!(loaded, ["rom0:RELOC"]);
    // The image's other module is rom0's now.
    assert_eq!(
        piney_iop::modules::read_file(&mut iop, "rom0:THREADS"),
        Ok(threads)
    );
    // A plain reboot forgets the image.
    iop.bus.hw.sif.ee_write(0x30, STAT_BOOTEND);
    iop.reboot("").unwrap();
    assert!(booted(&iop));
    assert!(piney_iop::modules::read_file(&mut iop, "rom0:THREADS").is_err());
}

#[test]
fn an_image_without_a_boot_list_boots_the_bios_set() {
    let image = romdir::build(&[("RELOC", &module("reloc"), None)]);
    let dir = host("nolist", &[("TEST.IMG", &image)]);
    let mut iop = piney_iop::Iop::new();
    iop.set_host_root(dir);
    iop.bus.hw.sif.ee_write(0x30, STAT_BOOTEND);
    iop.reboot("rom0:UDNL host:TEST.IMG").unwrap();
    assert!(booted(&iop));
    assert!(iop.run_bare(piney_iop::IOP_CLOCK_HZ).unwrap());
    assert!(iop.take_output().is_empty());
}

#[test]
fn broken_or_missing_images_are_errors_naming_them() {
    let image = romdir::build(&[("RELOC", &module("reloc"), None)]);
    let dir = host("broken", &[("CUT.IMG", &image[..100])]);
    let mut iop = piney_iop::Iop::new();
    iop.set_host_root(dir);
    let e = iop
        .reboot("rom0:UDNL host:CUT.IMG")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("host:CUT.IMG") && e.contains("past the end"),
        "{e}"
    );
    let e = iop
        .reboot("rom0:UDNL host:NONE.IMG")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("host:NONE.IMG") && e.contains("cannot be read"),
        "{e}"
    );
}
