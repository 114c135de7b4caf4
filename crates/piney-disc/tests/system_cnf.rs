//! SYSTEM.CNF parsing: the forms discs use, and clear errors for the ones that are wrong.

use std::path::Path;

use piney_disc::{DiscError, SystemCnf, VideoMode, serial_from_name};

fn parse(text: &str) -> Result<SystemCnf, DiscError> {
    SystemCnf::parse(Path::new("game.iso"), text.as_bytes())
}

#[test]
fn usual_forms() {
    let crlf = parse("BOOT2 = cdrom0:\\SLUS_202.67;1\r\nVER = 1.00\r\nVMODE = NTSC\r\n").unwrap();
    assert_eq!(crlf.boot2.as_deref(), Some("cdrom0:\\SLUS_202.67;1"));
    assert_eq!(crlf.version.as_deref(), Some("1.00"));
    assert_eq!(crlf.video_mode, Some(VideoMode::Ntsc));
    assert_eq!(crlf.boot_file_name(), Some("SLUS_202.67"));
    assert_eq!(crlf.serial().as_deref(), Some("SLUS-20267"));
    assert!(!crlf.is_ps1());

    // No spaces, LF endings, no final newline, lower-case value, a key the BIOS ignores kept.
    let lf =
        parse("BOOT2=cdrom0:\\SCES_500.51;1\nVER=1.01\nVMODE=pal\nHDDUNITPOWER=NICHDD").unwrap();
    assert_eq!(lf.video_mode, Some(VideoMode::Pal));
    assert_eq!(lf.serial().as_deref(), Some("SCES-50051"));
    assert_eq!(lf.get("hddunitpower"), Some("NICHDD"));
    assert_eq!(lf.entries.len(), 4);
    assert_eq!(
        lf.entries[3],
        ("HDDUNITPOWER".to_string(), "NICHDD".to_string())
    );

    // Padding NULs and ^Z at the end, blank lines, tabs.
    let padded =
        parse("\r\nBOOT2\t=\tcdrom0:\\SLPM_650.01;1\r\n\r\nVER = 1.00\r\n\0\0\0\x1a").unwrap();
    assert_eq!(padded.serial().as_deref(), Some("SLPM-65001"));
    assert_eq!(padded.video_mode, None);

    // A homebrew boot file: no serial.
    let demo = parse("BOOT2 = cdrom0:\\DEMO.ELF;1\n").unwrap();
    assert_eq!(demo.boot_file_name(), Some("DEMO.ELF"));
    assert_eq!(demo.serial(), None);
}

#[test]
fn ps1_disc() {
    let ps1 =
        parse("BOOT = cdrom:\\SCUS_944.26;1\r\nTCB = 4\r\nEVENT = 10\r\nSTACK = 801FFFF0\r\n")
            .unwrap();
    assert!(ps1.is_ps1());
    assert_eq!(ps1.boot2, None);
    assert_eq!(ps1.serial().as_deref(), Some("SCUS-94426"));
    // The PS1 form without a backslash.
    let ps1 = parse("BOOT=cdrom:SLUS_000.67;1\n").unwrap();
    assert_eq!(ps1.boot_file_name(), Some("SLUS_000.67"));
}

fn error_of(text: &str) -> String {
    let e = parse(text).unwrap_err();
    assert!(matches!(e, DiscError::SystemCnf { .. }), "{e:?}");
    e.to_string()
}

#[test]
fn malformed() {
    let e = error_of("VER = 1.00\nVMODE = NTSC\n");
    assert!(e.starts_with("game.iso: SYSTEM.CNF"), "{e}");
    assert!(e.contains("no BOOT2"), "{e}");

    let e = error_of("BOOT2 = cdrom0:\\SLUS_202.67;1\nthis line has no equals sign\n");
    assert!(e.contains("line 2"), "{e}");

    let e = error_of("BOOT2 = cdrom0:\\SLUS_202.67;1\nVER = 1.00\nVMODE = SECAM\n");
    assert!(e.contains("line 3") && e.contains("VMODE"), "{e}");

    let e = error_of("BOOT2 = host:\\SLUS_202.67;1\n");
    assert!(e.contains("line 1") && e.contains("BOOT2"), "{e}");

    let e = error_of("BOOT2 =\n");
    assert!(e.contains("BOOT2"), "{e}");

    let e = error_of("BOOT2 = cdrom0:\\A.ELF;1\nboot2 = cdrom0:\\B.ELF;1\n");
    assert!(e.contains("line 2") && e.contains("first on line 1"), "{e}");

    let e = error_of(" = value\nBOOT2 = cdrom0:\\A.ELF;1\n");
    assert!(e.contains("line 1"), "{e}");

    let e = error_of("BOOT2 = cdrom0:\\A.ELF;1\nVER = \u{0}\u{0}x\n");
    assert!(e.contains("line 2") && e.contains("control"), "{e}");

    let mut bad_utf8 = b"BOOT2 = cdrom0:\\A.ELF;1\nVER = ".to_vec();
    bad_utf8.extend([0xFF, 0xFE, b'\n']);
    let e = SystemCnf::parse(Path::new("game.iso"), &bad_utf8).unwrap_err();
    assert!(e.to_string().contains("line 2"), "{e}");

    assert!(parse("").is_err());
}

#[test]
fn serials() {
    assert_eq!(
        serial_from_name("SLUS_202.67").as_deref(),
        Some("SLUS-20267")
    );
    assert_eq!(
        serial_from_name("slus_202.67").as_deref(),
        Some("SLUS-20267")
    );
    assert_eq!(serial_from_name("SLUS_20267"), None);
    assert_eq!(serial_from_name("SLUS-202.67"), None);
    assert_eq!(serial_from_name("SLU1_202.67"), None);
    assert_eq!(serial_from_name(""), None);
    assert_eq!(serial_from_name("ΣLUS_202.67"), None);
}
