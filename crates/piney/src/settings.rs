//! settings.toml for the commands: found, written on first run, read, its problems reported.
//!
//! The rule that keeps tests and CI away from the player's own file: a headless run, `replay`
//! and every other command only read the settings; the file is written (every key at its
//! default, a comment per key) only by a run in a window (`piney run` or `piney demo` without
//! `--headless`) or by `piney settings`, and only when there is no file. The folder follows
//! `$XDG_CONFIG_HOME` on every platform, so that the tests point it at a folder of their own.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use piney_settings::{Found, Settings};

/// The settings of one command, and where they came from (for `--stats`).
pub struct Loaded {
    /// The settings (defaults for what the file lacks or has wrong).
    pub settings: Settings,
    /// The file and what was found there, in words.
    pub source: String,
    /// The file, when it was read (a window's size is remembered there).
    pub file: Option<PathBuf>,
}

/// The settings file (`--config`, else settings.toml in the config folder), read, and
/// written first when `write` and it does not exist. Every problem is one line on stderr; none
/// is fatal.
pub fn load(config: Option<&Path>, write: bool) -> Loaded {
    let Some(file) = piney_settings::file(config) else {
        return Loaded {
            settings: Settings::default(),
            source: "none (no config folder: HOME and XDG_CONFIG_HOME are unset)".into(),
            file: None,
        };
    };
    if write {
        match piney_settings::write_default(&file) {
            Ok(true) => eprintln!(
                "piney: settings {}: written with every default (edit it to keep your options)",
                file.display()
            ),
            Ok(false) => {}
            Err(e) => eprintln!(
                "piney: settings {}: cannot write it ({e}); the defaults are used",
                file.display()
            ),
        }
    }
    let (settings, problems, found) = piney_settings::read(&file);
    if let Some(line) = piney_settings::report(&file, &problems) {
        eprintln!("{line}");
    }
    let read = matches!(found, Found::Read);
    let state = match found {
        Found::Read => "read".to_string(),
        Found::Missing => {
            if config.is_some() {
                eprintln!(
                    "piney: settings {}: no such file; the defaults are used",
                    file.display()
                );
            }
            "not found".to_string()
        }
        Found::Unreadable(e) => {
            eprintln!(
                "piney: settings {}: cannot read it ({e}); the defaults are used",
                file.display()
            );
            format!("unreadable: {e}")
        }
    };
    Loaded {
        settings,
        source: format!("{} ({state})", file.display()),
        file: read.then_some(file),
    }
}

/// `piney settings`: the settings file's path on stdout, the file written with every default
/// when there is none, its problems on stderr (exit 0 even then: a bad key keeps its default).
pub fn command(config: Option<&PathBuf>) -> ExitCode {
    let Some(file) = piney_settings::file(config.map(PathBuf::as_path)) else {
        eprintln!(
            "piney: settings: no config folder (set HOME or XDG_CONFIG_HOME, or give --config)"
        );
        return ExitCode::from(1);
    };
    load(Some(&file), true);
    if !file.exists() {
        return ExitCode::from(1);
    }
    println!("{}", file.display());
    ExitCode::SUCCESS
}
