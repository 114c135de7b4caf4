//! demo-vuasm: assembles the demo title's VU microprograms with piney-vu's assembler.
//!
//! `demo-vuasm [DIR]` (default `demo/vu`) turns every `DIR/*.vsm` into `DIR/*.bin`: the
//! 64-bit instruction pairs in little-endian order (lower word first, as VU micro memory holds
//! them and as VIF MPG loads them), padded with `nop` pairs to an even count so that the C build
//! can send the program as whole qwords. `--check` compares instead of writing and fails on a
//! difference. Errors name the file and line.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// An upper `nop` with a lower `nop`: padding that is never executed.
const NOP_PAIR: &str = "nop";

fn assemble_file(path: &Path) -> Result<Vec<u8>, String> {
    let src = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut pairs =
        piney_vu::asm::assemble(&src).map_err(|e| format!("{}: {e}", path.display()))?;
    if pairs.len() % 2 == 1 {
        let nop = piney_vu::asm::assemble(NOP_PAIR).map_err(|e| format!("nop: {e}"))?;
        pairs.extend(nop);
    }
    if pairs.len() > 2048 {
        return Err(format!(
            "{}: {} pairs do not fit VU1 micro memory (2048)",
            path.display(),
            pairs.len()
        ));
    }
    Ok(pairs.iter().flat_map(|p| p.to_le_bytes()).collect())
}

fn run(dir: &Path, check: bool) -> Result<(), String> {
    let mut sources: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "vsm"))
        .collect();
    sources.sort();
    if sources.is_empty() {
        return Err(format!("{}: no .vsm files", dir.display()));
    }
    for src in sources {
        let bin = src.with_extension("bin");
        let bytes = assemble_file(&src)?;
        if check {
            let old = std::fs::read(&bin).map_err(|e| format!("{}: {e}", bin.display()))?;
            if old != bytes {
                return Err(format!(
                    "{} differs from {} (run demo-vuasm)",
                    bin.display(),
                    src.display()
                ));
            }
        } else {
            std::fs::write(&bin, &bytes).map_err(|e| format!("{}: {e}", bin.display()))?;
            println!("{} ({} pairs)", bin.display(), bytes.len() / 8);
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let mut check = false;
    let mut dir = PathBuf::from("demo/vu");
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--check" => check = true,
            a if a.starts_with('-') => {
                eprintln!("demo-vuasm: unknown option {a} (usage: demo-vuasm [--check] [DIR])");
                return ExitCode::from(2);
            }
            a => dir = PathBuf::from(a),
        }
    }
    match run(&dir, check) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("demo-vuasm: {e}");
            ExitCode::FAILURE
        }
    }
}
