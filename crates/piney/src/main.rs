//! The `piney` command line: run a PS2 program, the demo title, replay and compare frames, trace
//! the pad reader. See DESIGN.md section 7; scripts depend on this interface.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod run;

/// piney: a PC port runtime for CyberConnect2's PS2 engine.
#[derive(Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a PS2 program (an ELF).
    Run {
        /// The program.
        program: std::path::PathBuf,
        #[command(flatten)]
        options: run::RunOptions,
    },
    /// Trace the engine's pad reader and rumble queue from a script (stdin by default).
    PadTrace {
        /// The script file.
        file: Option<std::path::PathBuf>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Run { program, options } => run::run(&program, &options),
        Command::PadTrace { file: _ } => {
            eprintln!("piney: pad-trace is not built yet");
            ExitCode::from(2)
        }
    }
}
