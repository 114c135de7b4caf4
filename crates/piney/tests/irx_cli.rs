//! `piney run MODULE.irx`: an IOP module on its own (beside an idle EE program). Our own test
//! modules print their hand-derived output and the run ends by itself once the IOP is done;
//! broken modules (cut short, a relocation the loader does not know, a missing import, an
//! unknown instruction, a load from nowhere) end the run with exit status 1 and one line on
//! stderr that names the module, the place and the reason.

mod piney_support;

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn module(name: &str) -> Vec<u8> {
    std::fs::read(root().join(format!("tests/iop/{name}.irx"))).unwrap()
}

/// Run `piney run FILE --headless` on `image` written as `name`: (exit code, stdout, stderr).
fn run(name: &str, image: &[u8]) -> (Option<i32>, String, String) {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("irx-cli");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, image).unwrap();
    let o = piney_support::command()
        .arg("run")
        .arg(&path)
        .args(["--headless", "--seconds", "20"])
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// The file offset of the module's entry point (its first instruction).
fn entry_offset(image: &[u8]) -> usize {
    // Program header 1 is the PT_LOAD; the .iopmod record's second word is the entry.
    let phoff = u32_at(image, 28) as usize;
    let load_offset = u32_at(image, phoff + 32 + 4) as usize;
    load_offset + u32_at(image, 0x74 + 4) as usize
}

/// The file offset of the first relocation entry of the first SHT_REL section.
fn first_relocation(image: &[u8]) -> usize {
    let shoff = u32_at(image, 32) as usize;
    let shnum = u16::from_le_bytes([image[48], image[49]]) as usize;
    (0..shnum)
        .map(|i| shoff + 40 * i)
        .find(|&sh| u32_at(image, sh + 4) == 9)
        .map(|sh| u32_at(image, sh + 16) as usize)
        .expect("a SHT_REL section")
}

#[test]
fn our_modules_run_on_their_own() {
    for name in ["reloc", "threads", "timers", "rpcserver"] {
        let (code, out, err) = run(&format!("{name}.irx"), &module(name));
        let expected =
            std::fs::read_to_string(root().join(format!("tests/iop/{name}.stdout"))).unwrap();
        assert_eq!(out, expected, "{name}: stderr {err}");
        assert_eq!(code, Some(0), "{name}: {err}");
    }
}

/// The one line a broken module ends with.
fn one_line(name: &str, image: &[u8]) -> String {
    let (code, _, err) = run(name, image);
    assert_eq!(code, Some(1), "{name}: {err}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "{name}: one line: {err}");
    lines[0].to_string()
}

#[test]
fn broken_modules_end_with_one_line() {
    let reloc = module("reloc");

    let cut = one_line("cut.irx", &reloc[..reloc.len() / 2]);
    assert!(
        cut.contains("cut.irx") && cut.contains("truncated"),
        "{cut}"
    );

    let mut bad_rel = reloc.clone();
    // r_info's type byte: 9 (R_MIPS_GOT16), which no IOP loader relocates.
    bad_rel[first_relocation(&reloc) + 4] = 9;
    let rel = one_line("badrel.irx", &bad_rel);
    assert!(
        rel.contains("badrel.irx") && rel.contains("relocation"),
        "{rel}"
    );

    // libimport needs libexport's library, which is not loaded.
    let import = one_line("libimport.irx", &module("libimport"));
    assert!(
        import.contains("libimport.irx")
            && import.contains("\"pinytest\"")
            && import.contains("import 4")
            && import.contains("KE_LINKERR"),
        "{import}"
    );

    let at = entry_offset(&reloc);
    let mut bad_op = reloc.clone();
    bad_op[at..at + 4].copy_from_slice(&0xfc00_0000u32.to_le_bytes());
    let op = one_line("badop.irx", &bad_op);
    assert!(
        op.contains("reserved instruction 0xfc000000")
            && op.contains("at pc 0x")
            && op.contains("in module reloc, +0x"),
        "{op}"
    );

    // lui $t0, 0x1e00; lw $t0, 0($t0): nothing answers at 0x1e000000.
    let mut bad_addr = reloc.clone();
    bad_addr[at..at + 4].copy_from_slice(&0x3c08_1e00u32.to_le_bytes());
    bad_addr[at + 4..at + 8].copy_from_slice(&0x8d08_0000u32.to_le_bytes());
    let addr = one_line("badaddr.irx", &bad_addr);
    assert!(
        addr.contains("bus error")
            && addr.contains("0x1e000000")
            && addr.contains("in module reloc"),
        "{addr}"
    );
}
