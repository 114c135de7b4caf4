//! Booting a disc through the real command line: the demo title's disc (demo/disc/, made into an
//! image here by independent tools: genisoimage's ISO, chdman's CHD and tools/make-cso.py's CSO of it) booted with
//! `piney run DISC` presents exactly the frames of `piney demo`; `piney info` names the serial,
//! boot path, CRC and profile; broken discs are one clear error and exit 1.

mod piney_support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn piney() -> Command {
    piney_support::command()
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Run an independent tool; a missing one fails the test (CI installs them).
fn tool(name: &str, package: &str, args: &[&str]) {
    let out = Command::new(name)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{name} is needed (apt-get install {package}): {e}"));
    assert!(
        out.status.success(),
        "{name} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The demo disc as an ISO made by genisoimage from demo/disc.
fn demo_iso(dir: &Path) -> PathBuf {
    let iso = dir.join("demo.iso");
    let src = root().join("demo/disc");
    tool(
        "genisoimage",
        "genisoimage",
        &[
            "-quiet",
            "-V",
            "PINEYDEMO",
            "-o",
            iso.to_str().unwrap(),
            src.to_str().unwrap(),
        ],
    );
    iso
}

fn ok(o: &Output, what: &str) {
    assert!(
        o.status.success(),
        "{what}: {:?}\n{}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
}

/// The frames of a headless run (`args` after the subcommand), one PNG each.
fn frames(args: &[&str], dir: &Path) -> Vec<Vec<u8>> {
    let o = piney()
        .args(args)
        .args(["--headless", "--frames", "40", "--dump-frames"])
        .arg(dir)
        .output()
        .unwrap();
    ok(&o, &format!("piney {args:?}"));
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    assert_eq!(names.len(), 40, "{args:?}: one frame a vertical blank");
    names.iter().map(|p| std::fs::read(p).unwrap()).collect()
}

#[test]
fn the_demo_disc_boots_to_the_demos_frames() {
    let d = scratch("disc-boot");
    let iso = demo_iso(&d);
    let chd = d.join("demo.chd");
    tool(
        "chdman",
        "mame-tools",
        &[
            "createcd",
            "-i",
            iso.to_str().unwrap(),
            "-o",
            chd.to_str().unwrap(),
        ],
    );
    // The CSO by a converter written apart from piney's reader (tools/make-cso.py: Python's
    // zlib), in 4 KiB blocks with a 4-byte index shift so that blocks are not sector-sized.
    let cso = d.join("demo.cso");
    let status = Command::new("python3")
        .arg(root().join("tools/make-cso.py"))
        .args([&iso, &cso])
        .args(["--block-size", "4096", "--shift", "2"])
        .status()
        .expect("python3 runs tools/make-cso.py");
    assert!(status.success(), "tools/make-cso.py failed");
    let demo = frames(&["demo"], &d.join("demo-frames"));
    for image in [&iso, &chd, &cso] {
        let name = image.file_name().unwrap().to_string_lossy().into_owned();
        let disc = frames(
            &["run", image.to_str().unwrap()],
            &d.join(format!("{name}-frames")),
        );
        for (i, (a, b)) in demo.iter().zip(&disc).enumerate() {
            assert!(a == b, "{name}: frame {i} differs from piney demo's");
        }
    }
}

#[test]
fn info_describes_the_demo_disc() {
    let d = scratch("disc-info");
    let iso = demo_iso(&d);
    let o = piney().arg("info").arg(&iso).output().unwrap();
    ok(&o, "piney info");
    let text = String::from_utf8_lossy(&o.stdout);
    // PCSX2's CRC of the boot ELF: the XOR of its 32-bit words, computed here from the file.
    let elf = std::fs::read(root().join("demo/disc/PINY_000.01")).unwrap();
    let crc = elf
        .chunks_exact(4)
        .fold(0u32, |c, w| c ^ u32::from_le_bytes(w.try_into().unwrap()));
    for line in [
        "volume: PINEYDEMO".to_string(),
        "serial: PINY-00001".to_string(),
        format!("boot: cdrom0:\\PINY_000.01;1 ({} bytes)", elf.len()),
        "version: 1.00".to_string(),
        "video mode: NTSC".to_string(),
        format!("boot ELF CRC: {crc:08X}"),
        "profile: profiles/PINY-00001.toml".to_string(),
    ] {
        assert!(
            text.lines().any(|l| l == line),
            "no line {line:?} in:\n{text}"
        );
    }
}

/// The demo disc's boot file is the demo title itself.
#[test]
fn the_disc_holds_the_demo_elf() {
    assert!(
        std::fs::read(root().join("demo/disc/PINY_000.01")).unwrap()
            == std::fs::read(root().join("demo/demo.elf")).unwrap(),
        "demo/disc/PINY_000.01 differs from demo/demo.elf (run tools/build-demo.sh)"
    );
}

/// One line on stderr naming the file and the reason, exit 1.
fn refused(image: &Path, reason: &str) {
    for sub in ["run", "info"] {
        let o = piney()
            .arg(sub)
            .arg(image)
            .args(if sub == "run" {
                &["--headless"][..]
            } else {
                &[]
            })
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{sub} {}: {err}", image.display());
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(lines.len(), 1, "{sub}: one line: {err}");
        assert!(
            lines[0].contains(&image.display().to_string()) && lines[0].contains(reason),
            "{sub}: {:?} should name the file and say {reason:?}",
            lines[0]
        );
    }
}

#[test]
fn broken_discs_are_one_clear_error() {
    let d = scratch("disc-bad");
    // No SYSTEM.CNF.
    let empty = d.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    std::fs::write(empty.join("README.TXT"), b"no boot file here\n").unwrap();
    let no_cnf = d.join("nocnf.iso");
    tool(
        "genisoimage",
        "genisoimage",
        &[
            "-quiet",
            "-o",
            no_cnf.to_str().unwrap(),
            empty.to_str().unwrap(),
        ],
    );
    refused(&no_cnf, "no SYSTEM.CNF");
    // BOOT2 naming a file the disc lacks.
    let missing = d.join("missing");
    std::fs::create_dir_all(&missing).unwrap();
    std::fs::write(
        missing.join("SYSTEM.CNF"),
        b"BOOT2 = cdrom0:\\SLUS_999.99;1\nVER = 1.00\nVMODE = NTSC\n",
    )
    .unwrap();
    let bad_boot = d.join("badboot.iso");
    tool(
        "genisoimage",
        "genisoimage",
        &[
            "-quiet",
            "-o",
            bad_boot.to_str().unwrap(),
            missing.to_str().unwrap(),
        ],
    );
    refused(&bad_boot, "SLUS_999.99");
    // Garbage, and a truncated image.
    let garbage = d.join("garbage.bin");
    std::fs::write(&garbage, vec![0x5a; 70_000]).unwrap();
    let o = piney()
        .args(["run", "--headless"])
        .arg(&garbage)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&o.stderr).lines().count(), 1);
    let iso = std::fs::read(demo_iso(&d)).unwrap();
    let truncated = d.join("truncated.iso");
    std::fs::write(&truncated, &iso[..iso.len() / 2]).unwrap();
    refused(&truncated, "truncated");
}

/// LoadExecPS2 from one ELF on a disc to another with arguments (tests/guest/exec_first.c and
/// exec_second.c): the second runs on a fresh kernel (its first semaphore has the first one's
/// id), with argv = its path and the two arguments, after an IOP reboot; under both CPU engines.
#[test]
fn load_exec_chains_two_programs_on_a_disc() {
    let d = scratch("disc-exec");
    let files = d.join("files");
    std::fs::create_dir_all(files.join("BIN")).unwrap();
    let guest = root().join("tests/guest");
    std::fs::copy(guest.join("exec_first.elf"), files.join("FIRST.ELF")).unwrap();
    std::fs::copy(guest.join("exec_second.elf"), files.join("BIN/SECOND.ELF")).unwrap();
    std::fs::write(
        files.join("SYSTEM.CNF"),
        b"BOOT2 = cdrom0:\\FIRST.ELF;1\r\nVER = 1.00\r\nVMODE = NTSC\r\n",
    )
    .unwrap();
    let iso = d.join("exec.iso");
    tool(
        "genisoimage",
        "genisoimage",
        &[
            "-quiet",
            "-o",
            iso.to_str().unwrap(),
            files.to_str().unwrap(),
        ],
    );
    for cpu in ["interp", "jit"] {
        let o = piney()
            .args(["run", "--headless", "--seconds", "5", "--cpu", cpu])
            .arg(&iso)
            .output()
            .unwrap();
        ok(&o, cpu);
        assert_eq!(
            String::from_utf8_lossy(&o.stdout),
            "first: my first semaphore is 1\n\
             first: LoadExecPS2 cdrom0:\\BIN\\SECOND.ELF;1 one \"two words\"\n\
             second: argc 3: [cdrom0:\\BIN\\SECOND.ELF;1] [one] [two words]\n\
             second: my first semaphore is 1\n\
             second: SIF RPC up\n",
            "{cpu}"
        );
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("exited with status 7"),
            "{cpu}: the second program's exit status ends the run"
        );
    }
}

/// The EE's side of the CDVD through the machine (tests/guest/cdvd_ee.c: libcdvd's RPC to the
/// native cdvdfsv) with the demo's disc in the drive (`--disc`): the disc type, a file search,
/// a read timed as a 24x CD's (over 2 ms: half a turn before the transfer) and, with
/// --fast-cdvd, at once.
#[test]
fn a_program_reads_the_disc_in_the_drive() {
    let d = scratch("disc-ee");
    let iso = demo_iso(&d);
    let elf = root().join("tests/guest/cdvd_ee.elf");
    for (fast, slow) in [(false, "yes"), (true, "no")] {
        let mut cmd = piney();
        cmd.args(["run", "--headless", "--seconds", "5", "--disc"])
            .arg(&iso)
            .arg(&elf);
        if fast {
            cmd.arg("--fast-cdvd");
        }
        let o = cmd.output().unwrap();
        ok(&o, "cdvd_ee");
        assert_eq!(
            String::from_utf8_lossy(&o.stdout),
            format!(
                "bound: yes\n\
                 init: 1, cdvdfsv version above 0x104: yes\n\
                 disc type 0x12\n\
                 search: 1, SYSTEM.CNF;1, 54 bytes\n\
                 read:BOOT2 = cdrom\n\
                 the read took over 2 ms: {slow}\n"
            ),
            "--fast-cdvd {fast}"
        );
    }
}
