//! Memory cards through the whole path, as a player's saves go: a guest program's libmc calls
//! over SIF RPC to the native MCSERV, onto a card on the host.
//!
//! - `tests/guest/iop_startup.elf` (ps2sdk's usual start-up, then a directory, a file written
//!   and read back, a listing) prints exactly `iop_startup.stdout` with a fresh `.ps2` image in
//!   port 1 (the folder card is `guest_programs`' run of it); the file it wrote is on the card
//!   with its bytes, read back here through piney-memcard, and for the folder card as a plain
//!   host file.
//! - `tests/guest/iop_mcsave.elf` writes a 20000-byte save, prints "saved" and keeps running:
//!   piney is killed with SIGKILL at once, and the save must be whole on the host.
//! - A truncated or damaged image stops the run with one line naming the card, exit status 1,
//!   and the file is left byte for byte as it was.

mod piney_support;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use piney_memcard::{OpenFlags, Timestamp, open_card};

fn guest(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/guest")
        .join(name)
}

/// A fresh scratch folder for one test.
fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("memcards")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `piney run ELF --headless` with `card` in port 1 and nothing usable in port 2.
fn piney(elf: &str, card: &Path, seconds: &str) -> Command {
    let mut c = piney_support::command();
    c.arg("run")
        .arg(guest(elf))
        .args(["--headless", "--seconds", seconds, "--memcard1"])
        .arg(card)
        .arg("--memcard2")
        .arg(card.with_extension("port2"));
    c
}

/// The whole file `path` on the card at `card`, read through piney-memcard.
fn read_back(card: &Path, path: &str) -> Vec<u8> {
    let mut c = open_card(card, Timestamp::new(2000, 1, 1, 0, 0, 0))
        .unwrap_or_else(|e| panic!("{}: {e}", card.display()));
    let fh = c
        .open(
            path.as_bytes(),
            OpenFlags::RDONLY,
            Timestamp::new(2000, 1, 1, 0, 0, 0),
        )
        .unwrap_or_else(|e| panic!("{path} on {}: {e:?}", card.display()));
    let mut all = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let n = c.read(fh, &mut buf).expect("read");
        if n == 0 {
            break;
        }
        all.extend_from_slice(&buf[..n]);
    }
    all
}

/// iop_startup's file: byte i is i * 37 + i / 32.
fn startup_pattern() -> Vec<u8> {
    (0..1000u32).map(|i| (i * 37 + (i >> 5)) as u8).collect()
}

/// iop_mcsave's file: byte i is i * 7 + i / 251.
fn save_pattern() -> Vec<u8> {
    (0..20000u32).map(|i| (i * 7 + i / 251) as u8).collect()
}

#[test]
fn startup_program_on_a_ps2_image() {
    let dir = scratch("startup-ps2");
    let card = dir.join("card.ps2");
    let o = piney("iop_startup.elf", &card, "10").output().unwrap();
    let expected = std::fs::read_to_string(guest("iop_startup.stdout")).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        expected,
        "stderr: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(o.status.success());
    // PCSX2's size: 16384 pages of 512 + 16 bytes.
    assert_eq!(std::fs::metadata(&card).unwrap().len(), 8_650_752);
    assert_eq!(read_back(&card, "/PINEY/save.dat"), startup_pattern());
}

#[test]
fn startup_program_on_a_folder_card_leaves_plain_files() {
    let dir = scratch("startup-folder");
    let card = dir.join("Mcd001");
    let o = piney("iop_startup.elf", &card, "10").output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        std::fs::read(card.join("PINEY/save.dat")).unwrap(),
        startup_pattern()
    );
    assert_eq!(read_back(&card, "/PINEY/save.dat"), startup_pattern());
}

/// Run iop_mcsave until it says "saved", then SIGKILL piney.
fn save_and_kill(card: &Path) {
    let mut child = piney("iop_mcsave.elf", card, "600")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    let mut saw = Vec::new();
    for line in BufReader::new(out).lines() {
        let line = line.unwrap();
        let done = line == "saved";
        saw.push(line);
        if done {
            break;
        }
    }
    // Child::kill is SIGKILL on Unix: no destructor, no flush runs in piney.
    child.kill().unwrap();
    let status = child.wait().unwrap();
    assert_eq!(saw.last().map(String::as_str), Some("saved"), "{saw:?}");
    assert!(
        !status.success(),
        "piney ended by itself before the kill: {status:?}"
    );
}

#[test]
fn a_killed_piney_keeps_the_save_on_a_folder_card() {
    let card = scratch("kill-folder").join("Mcd001");
    save_and_kill(&card);
    assert_eq!(
        std::fs::read(card.join("PINEY-SAVE/data.bin")).unwrap(),
        save_pattern()
    );
    assert_eq!(read_back(&card, "/PINEY-SAVE/data.bin"), save_pattern());
}

#[test]
fn a_killed_piney_keeps_the_save_on_a_ps2_image() {
    let card = scratch("kill-ps2").join("card.ps2");
    save_and_kill(&card);
    assert_eq!(read_back(&card, "/PINEY-SAVE/data.bin"), save_pattern());
}

#[test]
fn damaged_images_stop_the_run_and_stay_untouched() {
    let dir = scratch("damaged");
    // A good image first, written by a run.
    let good = dir.join("good.ps2");
    let o = piney("iop_startup.elf", &good, "10").output().unwrap();
    assert!(o.status.success());
    let image = std::fs::read(&good).unwrap();
    let mut flipped = image.clone();
    // A bit of the superblock's page: its ECC no longer matches.
    flipped[100] ^= 0x04;
    for (name, bytes) in [
        ("truncated.ps2", image[..image.len() - 528].to_vec()),
        ("flipped.ps2", flipped),
    ] {
        let card = dir.join(name);
        std::fs::write(&card, &bytes).unwrap();
        let o = piney("iop_startup.elf", &card, "10").output().unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{name}: {stderr}");
        let lines: Vec<&str> = stderr
            .lines()
            .filter(|l| !l.contains("NOSUCHMOD"))
            .collect();
        assert_eq!(lines.len(), 1, "{name}: one line: {stderr}");
        assert!(
            lines[0].contains("memory card 1") && lines[0].contains(name),
            "{name}: the line names the card: {stderr}"
        );
        assert_eq!(
            std::fs::read(&card).unwrap(),
            bytes,
            "{name} was written to"
        );
    }
}
