//! `piney run`: load a program and run it.

use std::path::Path;
use std::process::ExitCode;

use piney_machine::{Machine, RunEnd, RunLimits};

/// Options shared by `run` and `demo`.
#[derive(clap::Args, Debug, Clone)]
pub struct RunOptions {
    /// Run without a window or audio, as fast as possible.
    #[arg(long)]
    pub headless: bool,
    /// Stop after N frames (vertical blanks).
    #[arg(long, value_name = "N")]
    pub frames: Option<u64>,
    /// Stop after S seconds of emulated time.
    #[arg(long, value_name = "S")]
    pub seconds: Option<f64>,
    /// Print run statistics on stderr at the end (guest instructions, emulated time, frames).
    #[arg(long)]
    pub stats: bool,
    /// The EE engine.
    #[arg(long, value_enum, default_value = "interp")]
    pub cpu: CpuEngine,
    /// Play the pads from an input script: lines `F[-G] BUTTON[+BUTTON...]` with vertical blank
    /// numbers, sticks as `lx=N ly=N rx=N ry=N`, `p2:` for port 2 (see piney_input::script).
    #[arg(long, value_name = "FILE")]
    pub input: Option<std::path::PathBuf>,
}

/// The EE engines.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum CpuEngine {
    /// The reference interpreter.
    Interp,
    /// The recompiler.
    Jit,
}

/// Run the program at `path`. Exit status 0 when the guest exits or a limit is reached; 1 on a
/// guest fault or bad input, with one line on stderr; 2 for a bad option.
pub fn run(path: &Path, opts: &RunOptions) -> ExitCode {
    if opts.cpu == CpuEngine::Jit {
        eprintln!("piney: --cpu jit: the recompiler is not built yet; use --cpu interp");
        return ExitCode::from(2);
    }
    if !opts.headless {
        eprintln!("piney: no window yet: the windowed frontend is not built; use --headless");
        return ExitCode::from(2);
    }
    if let Some(s) = opts.seconds
        && !(s.is_finite() && s >= 0.0)
    {
        eprintln!("piney: --seconds must be a non-negative number, not {s}");
        return ExitCode::from(2);
    }
    let image = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("piney: cannot read {}: {e}", path.display());
            return ExitCode::from(1);
        }
    };
    let mut machine = Machine::new(Box::new(std::io::stdout()));
    if let Some(file) = &opts.input {
        match piney_input::script::InputScript::load(file) {
            Ok(script) => machine.set_pad_input(Box::new(
                piney_machine::sif::padman::ScriptPads::new(script),
            )),
            Err(e) => {
                eprintln!("piney: --input {e}");
                return ExitCode::from(1);
            }
        }
    }
    if let Err(e) = machine.load_elf(&image) {
        eprintln!("piney: {}: {e}", path.display());
        return ExitCode::from(1);
    }
    let limits = RunLimits {
        frames: opts.frames,
        seconds: opts.seconds,
    };
    let started = std::time::Instant::now();
    let result = machine.run(limits);
    if opts.stats {
        let wall = started.elapsed().as_secs_f64();
        let emulated = machine.cpu.cycles as f64 / piney_machine::EE_CLOCK_HZ as f64;
        eprintln!(
            "piney: guest instructions: {}, emulated {emulated:.3} s in {wall:.3} s ({:.1}x real time), {} vblanks",
            machine.instructions,
            emulated / wall.max(1e-9),
            machine.vblank_count
        );
    }
    match result {
        Ok(RunEnd::Exited(status)) => {
            // DESIGN.md section 7: a guest that exits ends the run with status 0; its own status
            // is reported on stderr when it is not 0.
            if status != 0 {
                eprintln!("piney: the guest exited with status {status}");
            }
            ExitCode::SUCCESS
        }
        Ok(RunEnd::FrameLimit | RunEnd::TimeLimit) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("piney: {e}");
            ExitCode::from(1)
        }
    }
}
