//! The `piney` command line: run a PS2 program, the demo title, replay and compare frames, trace
//! the pad reader. See DESIGN.md section 7; scripts depend on this interface.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod audio;
mod capture;
mod frames;
mod info;
mod run;
mod settings;
mod window;

/// The demo title (demo/, built by tools/build-demo.sh), embedded so that `piney demo` needs no
/// file.
const DEMO_ELF: &[u8] = include_bytes!("../../../demo/demo.elf");

/// piney: a PC port runtime for CyberConnect2's PS2 engine.
#[derive(Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a PS2 program (an ELF), an IOP module (an IRX) or a disc image (ISO, BIN/CUE, CHD,
    /// CSO, ZSO: booted from its SYSTEM.CNF).
    Run {
        /// The program, module or disc image.
        program: std::path::PathBuf,
        #[command(flatten)]
        options: run::RunArgs,
    },
    /// Run the embedded demo title: our own PS2 program, built like the engine.
    Demo {
        #[command(flatten)]
        options: run::RunArgs,
    },
    /// What a disc image is: serial, boot path, region, video mode, boot ELF CRC, profile.
    Info {
        /// The disc image.
        disc: std::path::PathBuf,
    },
    /// Replay a PCSX2 GS dump (.gs, .gs.xz, .gs.zst) through piney's GS.
    Replay(frames::ReplayArgs),
    /// Compare frames: two PNG files or two folders of numbered frames.
    Compare(frames::CompareArgs),
    /// The settings file: its path on stdout, written with every default (a comment per key)
    /// when it does not exist. `run` and `demo` read it (and `replay` its renderer keys);
    /// their flags override it for one run.
    Settings {
        /// Another settings file than settings.toml in piney's config folder.
        #[arg(long, value_name = "FILE")]
        config: Option<std::path::PathBuf>,
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
        Command::Run { program, options } => run::run(&program, &resolve(options)),
        Command::Demo { options } => run::run_image(
            DEMO_ELF,
            "demo",
            &resolve(options),
            true,
            None,
            run::Boot::host("demo"),
        ),
        Command::Settings { config } => settings::command(config.as_ref()),
        Command::Info { disc } => info::info(&disc),
        Command::Replay(args) => {
            let loaded = settings::load(args.config.as_deref(), false);
            frames::replay(&args, &loaded.settings)
        }
        Command::Compare(args) => frames::compare(&args),
        Command::PadTrace { file } => pad_trace(file.as_deref()),
    }
}

/// The options of a `run` or `demo`: its flags over settings.toml, which a run in a window
/// writes when there is none (settings.rs says why headless runs never do).
fn resolve(args: run::RunArgs) -> run::RunOptions {
    let loaded = settings::load(args.config.as_deref(), !args.headless);
    let mut opts = args.resolve(&loaded.settings);
    opts.settings_source = loaded.source;
    opts
}

/// `piney pad-trace [FILE]`: run a pad script (stdin without FILE), printing the trace on stdout.
fn pad_trace(file: Option<&std::path::Path>) -> ExitCode {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let result = match file {
        Some(path) => match std::fs::File::open(path) {
            Ok(f) => piney_input::trace::run_trace(std::io::BufReader::new(f), &mut out)
                .map_err(|e| format!("{}: {e}", path.display())),
            Err(e) => Err(format!("cannot read {}: {e}", path.display())),
        },
        None => piney_input::trace::run_trace(std::io::stdin().lock(), &mut out)
            .map_err(|e| format!("<stdin>: {e}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("piney: pad-trace: {e}");
            ExitCode::from(1)
        }
    }
}
