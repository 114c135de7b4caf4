//! `piney pad-trace`: a deterministic script of pad reads and motor calls, one per line,
//! printing what `ccPad::Read` and `ccPad::Ctrl` produce.
//!
//! ```text
//! pad B0 B1 [RX RY LX LY]   one ccPad::Read of that report (hex bytes as the pad sends them;
//!                           with the stick bytes the pad is in analog mode); prints
//!                           pad direct=XXXX push=XXXX unpush=XXXX repeat=XXXX pow=N
//! vibration on|off          ccPad::actuaterSw
//! set SMALL POWER MS        SetActuater (SMALL 0 or 1, POWER 0-255, MS milliseconds, decimal)
//! tick RATE                 ccSystem::Ctrl's countdown, RATE vblanks a frame (decimal)
//! ctrl                      ccPad::Ctrl; prints `ctrl -` or `ctrl small=0|1 large=N`
//! # ...                     a comment, to the end of the line (also after a command)
//! ```
//!
//! The script starts with a pad never read, an empty motor queue, nothing marked, the
//! vibration switch on and `ccPad::Ctrl` looking. Anything else is an error naming the line.

use std::io::{BufRead, Write};

use crate::{ActuatorQueue, PadReader};

/// Why a trace stopped.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// A line that is not a valid command.
    #[error("line {line}: {reason}: {text}")]
    Line {
        /// 1-based line number.
        line: usize,
        /// The line as written, its first 60 characters when longer (with "...").
        text: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Reading the script or writing the output failed.
    #[error("pad trace: {0}")]
    Io(#[from] std::io::Error),
}

/// The longest script line read.
pub const MAX_LINE: usize = 4096;

/// A line for an error message: its first 60 characters (lossy UTF-8, newline dropped,
/// control characters escaped).
fn quote(raw: &[u8]) -> String {
    let s = String::from_utf8_lossy(raw);
    crate::text::one_line(s.trim_end_matches(['\n', '\r']), 60)
}

/// A word of a line for an error message: its first 40 characters, control characters
/// escaped.
fn word(s: &str) -> String {
    crate::text::one_line(s, 40)
}

/// A hex byte of a report: one or two hex digits, optionally after `0x`.
fn hex_byte(s: &str) -> Result<u8, String> {
    let digits = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .unwrap_or(s);
    if digits.is_empty() || digits.len() > 2 || !digits.bytes().all(|c| c.is_ascii_hexdigit()) {
        return Err(format!("`{}` is not a hex byte", word(s)));
    }
    u8::from_str_radix(digits, 16).map_err(|e| format!("`{}`: {e}", word(s)))
}

/// A decimal number of type `T` (digits only), named `what` in errors.
fn decimal<T: std::str::FromStr>(s: &str, what: &str) -> Result<T, String> {
    if s.is_empty() || !s.bytes().all(|c| c.is_ascii_digit()) {
        return Err(format!("{what} `{}` is not a decimal number", word(s)));
    }
    s.parse()
        .map_err(|_| format!("{what} `{}` is out of range", word(s)))
}

/// Runs one command; `Err` holds the reason it is invalid.
fn command(
    words: &[&str],
    pad: &mut PadReader,
    motors: &mut ActuatorQueue,
    out: &mut impl Write,
) -> Result<Result<(), String>, std::io::Error> {
    let run = || -> Result<Option<Cmd>, String> {
        Ok(Some(match words {
            ["pad", args @ ..] => {
                if args.len() != 2 && args.len() != 6 {
                    return Err(format!("`pad` takes 2 or 6 hex bytes, not {}", args.len()));
                }
                let b: Vec<u8> = args.iter().map(|a| hex_byte(a)).collect::<Result<_, _>>()?;
                let sticks = (b.len() == 6).then(|| [b[2], b[3], b[4], b[5]]);
                Cmd::Pad([b[0], b[1]], sticks)
            }
            ["vibration", "on"] => Cmd::Vibration(true),
            ["vibration", "off"] => Cmd::Vibration(false),
            ["vibration", ..] => return Err("`vibration` takes `on` or `off`".into()),
            ["set", small, power, ms] => {
                let small = match *small {
                    "0" => false,
                    "1" => true,
                    s => return Err(format!("SMALL `{}` is not 0 or 1", word(s))),
                };
                Cmd::Set(small, decimal(power, "POWER")?, decimal(ms, "MS")?)
            }
            ["set", ..] => return Err("`set` takes SMALL POWER MS".into()),
            ["tick", rate] => Cmd::Tick(decimal(rate, "RATE")?),
            ["tick", ..] => return Err("`tick` takes RATE".into()),
            ["ctrl"] => Cmd::Ctrl,
            ["ctrl", ..] => return Err("`ctrl` takes nothing".into()),
            [] => return Ok(None),
            [w, ..] => return Err(format!("unknown command `{}`", word(w))),
        }))
    };
    let cmd = match run() {
        Ok(Some(c)) => c,
        Ok(None) => return Ok(Ok(())),
        Err(e) => return Ok(Err(e)),
    };
    match cmd {
        Cmd::Pad(buttons, sticks) => {
            pad.read(buttons, sticks);
            writeln!(
                out,
                "pad direct={:04x} push={:04x} unpush={:04x} repeat={:04x} pow={}",
                pad.direct.0, pad.push.0, pad.unpush.0, pad.repeat.0, pad.left.strength
            )?;
        }
        Cmd::Vibration(on) => motors.switch_on = on,
        Cmd::Set(small, power, ms) => motors.set_actuater(small, power, ms),
        Cmd::Tick(rate) => motors.tick(rate),
        Cmd::Ctrl => match motors.ctrl() {
            None => writeln!(out, "ctrl -")?,
            Some(m) => writeln!(out, "ctrl small={} large={}", m.small as u8, m.large)?,
        },
    }
    Ok(Ok(()))
}

/// A parsed script command.
enum Cmd {
    Pad([u8; 2], Option<[u8; 4]>),
    Vibration(bool),
    Set(bool, u8, u32),
    Tick(u16),
    Ctrl,
}

/// Runs a pad-trace script from `input`, writing one line to `out` for each `pad` and `ctrl`.
/// Stops at the first invalid line with [`TraceError::Line`] (what was printed before it
/// stays printed).
pub fn run_trace(input: impl BufRead, out: &mut impl Write) -> Result<(), TraceError> {
    let mut pad = PadReader::new();
    let mut motors = ActuatorQueue::new();
    let mut input = input;
    let mut raw = Vec::new();
    let mut line = 0;
    loop {
        raw.clear();
        // A line is read up to MAX_LINE bytes: an endless one (stdin from /dev/zero) is an
        // error, not an allocation without bound.
        let mut limited = std::io::Read::take(&mut input, MAX_LINE as u64 + 1);
        if limited.read_until(b'\n', &mut raw)? == 0 {
            break;
        }
        line += 1;
        let bad = |reason: String, raw: &[u8]| TraceError::Line {
            line,
            text: quote(raw),
            reason,
        };
        if raw.len() > MAX_LINE && !raw.ends_with(b"\n") {
            return Err(bad(format!("longer than {MAX_LINE} bytes"), &raw));
        }
        let Ok(text) = std::str::from_utf8(&raw) else {
            return Err(bad("not UTF-8 text".into(), &raw));
        };
        let code = text
            .trim_end_matches(['\n', '\r'])
            .split('#')
            .next()
            .unwrap_or("");
        let words: Vec<&str> = code.split_whitespace().collect();
        if let Err(reason) = command(&words, &mut pad, &mut motors, out)? {
            return Err(bad(reason, &raw));
        }
    }
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(script: &str) -> Result<String, String> {
        let mut out = Vec::new();
        match run_trace(script.as_bytes(), &mut out) {
            Ok(()) => Ok(String::from_utf8(out).unwrap()),
            Err(e) => Err(e.to_string()),
        }
    }

    #[test]
    fn pad_and_ctrl_print() {
        assert_eq!(
            run("pad ff bf # cross\n\n  # nothing\nctrl\nset 1 160 200\nctrl\n").unwrap(),
            "pad direct=0040 push=0040 unpush=0000 repeat=0040 pow=0\nctrl -\nctrl small=1 large=160\n"
        );
        assert_eq!(
            run("pad 0xFF 0Xbf 80 80 80 00\n").unwrap(),
            "pad direct=1040 push=1040 unpush=0000 repeat=1040 pow=255\n"
        );
    }

    #[test]
    fn switch_is_on_at_the_start() {
        assert_eq!(
            run("set 0 7 1000\nctrl\n").unwrap(),
            "ctrl small=0 large=7\n"
        );
        assert_eq!(
            run("vibration off\nset 0 7 1000\nctrl\n").unwrap(),
            "ctrl -\n"
        );
    }

    /// A bad word is quoted escaped and short, as the line is (piney-fuzz found a NUL in a
    /// command word printed raw).
    #[test]
    fn bad_words_are_quoted_escaped_and_short() {
        let long = "z".repeat(3000);
        for script in [
            "vibration\0on\n".to_string(),
            "pad \u{1b}[2J ff\n".to_string(),
            "set 2\u{7} 1 1\n".to_string(),
            format!("ct{}rl\n", "\u{17}".repeat(90)),
            format!("set 1 2{} 3\n", "\u{19}".repeat(90)),
            format!("{long}\n"),
            format!("tick {long}\n"),
        ] {
            let e = run(&script).unwrap_err();
            assert!(!e.chars().any(char::is_control), "{e:?}");
            assert!(e.len() < 250, "{} bytes", e.len());
        }
        assert_eq!(
            run("vibration\0on\n").unwrap_err(),
            "line 1: unknown command `vibration\\0on`: vibration\\0on"
        );
    }

    #[test]
    fn errors_name_the_line_and_its_text() {
        let bad = [
            (
                "pad ff\n",
                "line 1: `pad` takes 2 or 6 hex bytes, not 1: pad ff",
            ),
            (
                "ctrl\npad ff fg\n",
                "line 2: `fg` is not a hex byte: pad ff fg",
            ),
            (
                "pad ff ff 80 80 80\n",
                "line 1: `pad` takes 2 or 6 hex bytes, not 5: pad ff ff 80 80 80",
            ),
            (
                "pad 100 ff\n",
                "line 1: `100` is not a hex byte: pad 100 ff",
            ),
            (
                "vibration maybe\n",
                "line 1: `vibration` takes `on` or `off`: vibration maybe",
            ),
            ("set 2 1 1\n", "line 1: SMALL `2` is not 0 or 1: set 2 1 1"),
            (
                "set 1 256 1\n",
                "line 1: POWER `256` is out of range: set 1 256 1",
            ),
            (
                "set 1 -1 1\n",
                "line 1: POWER `-1` is not a decimal number: set 1 -1 1",
            ),
            ("set 1 1\n", "line 1: `set` takes SMALL POWER MS: set 1 1"),
            (
                "set 1 1 99999999999\n",
                "line 1: MS `99999999999` is out of range: set 1 1 99999999999",
            ),
            ("tick\n", "line 1: `tick` takes RATE: tick"),
            (
                "tick x\n",
                "line 1: RATE `x` is not a decimal number: tick x",
            ),
            ("ctrl now\n", "line 1: `ctrl` takes nothing: ctrl now"),
            (
                "\n# ok\nPAD ff ff\n",
                "line 3: unknown command `PAD`: PAD ff ff",
            ),
        ];
        for (script, msg) in bad {
            assert_eq!(run(script), Err(msg.to_string()), "{script:?}");
        }
    }

    #[test]
    fn output_before_an_error_stays() {
        let mut out = Vec::new();
        assert!(run_trace("ctrl\nbogus\nctrl\n".as_bytes(), &mut out).is_err());
        assert_eq!(out, b"ctrl -\n");
    }

    #[test]
    fn invalid_utf8_is_an_error_not_a_panic() {
        let mut out = Vec::new();
        let e = run_trace(&b"ctrl\n\xff\xfe\n"[..], &mut out).unwrap_err();
        assert!(matches!(e, TraceError::Line { line: 2, .. }), "{e}");
        assert!(e.to_string().starts_with("line 2: not UTF-8 text"), "{e}");
    }

    #[test]
    fn an_endless_line_is_an_error_quoting_a_short_prefix() {
        // stdin from /dev/zero: one line that never ends (issue 17: an 8 GiB allocation).
        let zeros = std::io::BufReader::new(std::io::repeat(0));
        let mut out = Vec::new();
        let e = run_trace(zeros, &mut out).unwrap_err().to_string();
        assert!(e.starts_with("line 1: longer than 4096 bytes: "), "{e}");
        assert!(e.len() < 300 && e.contains("\\0"), "{e}");
        // A long bad line is quoted short; a non-UTF-8 line is named.
        let long = format!("pad {}\n", "z".repeat(3000));
        let e = run(&long).unwrap_err();
        assert!(e.len() < 200 && e.ends_with("..."), "{e}");
    }
}
