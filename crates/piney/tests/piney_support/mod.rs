//! What every test that starts the piney binary shares.

use std::process::Command;

/// The piney binary, with a config folder of the tests' own: settings.toml is never the user's
/// (see README), so a player's settings cannot change a test and no test writes theirs.
pub fn command() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_piney"));
    c.env(
        "XDG_CONFIG_HOME",
        concat!(env!("CARGO_TARGET_TMPDIR"), "/config-home"),
    );
    c
}
