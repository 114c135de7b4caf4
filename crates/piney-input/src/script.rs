//! Input scripts (`piney run --input FILE`): what the pads hold at each vertical blank, for
//! reproducible runs.
//!
//! One entry a line:
//!
//! ```text
//! # comment (from `#` to the end of the line)
//! 120 start                 # vertical blank 120: start held
//! 200-260 cross+up          # vertical blanks 200 to 260 (inclusive): cross and up held
//! 300-310 circle lx=0 ly=255
//! p2:400 select             # port 2 (the prefix `p1:` names port 1, the default)
//! 500 none                  # nothing held (sticks may still be given)
//! ```
//!
//! Items after the vertical blank numbers are separated by `+` or spaces: button names
//! (`cross circle square triangle l1 r1 l2 r2 l3 r3 select start up down left right`, any case),
//! `none`, and stick values `lx=N ly=N rx=N ry=N` (N from 0 to 255, decimal or `0x` hex; 0 is
//! left / up, 128 centred). Vertical blanks count from 1, the first vertical blank of the run.
//!
//! The report of a port at a vertical blank: the buttons of every line covering it held; a
//! stick axis from the last line covering it that gives one, the others centred; with no line
//! giving a stick value the report is digital (no sticks). Port 1 is always connected; port 2
//! only when some line names it.
//!
//! A bad line is an error naming the file and the line; nothing here panics.

use std::path::Path;

use crate::{Buttons, PadReport};

/// A parse or read error, naming the file (and line).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ScriptError {
    /// A line is not an input entry.
    #[error("{file}:{line}: {msg}")]
    Line {
        /// The file's name as given.
        file: String,
        /// The line number (from 1).
        line: usize,
        /// What is wrong.
        msg: String,
    },
    /// The file could not be read.
    #[error("{file}: {msg}")]
    Io {
        /// The file's name as given.
        file: String,
        /// The error.
        msg: String,
    },
}

/// One entry of a script.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScriptLine {
    /// The port: 0 for port 1, 1 for port 2.
    pub port: u8,
    /// The first vertical blank.
    pub first: u64,
    /// The last vertical blank (inclusive).
    pub last: u64,
    /// The buttons held.
    pub held: Buttons,
    /// RX, RY, LX, LY as given (`None`: not given by this line).
    pub sticks: [Option<u8>; 4],
    /// The line number in the file.
    pub line: usize,
}

/// A parsed input script.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InputScript {
    lines: Vec<ScriptLine>,
    port2: bool,
}

/// Stick names in report order (RX, RY, LX, LY).
const AXES: [&str; 4] = ["rx", "ry", "lx", "ly"];

impl InputScript {
    /// Parse a script; `file` names it in errors.
    pub fn parse(file: &str, text: &str) -> Result<InputScript, ScriptError> {
        let mut s = InputScript::default();
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let err = |msg: String| ScriptError::Line {
                file: file.to_string(),
                line,
                msg,
            };
            let body = raw.split('#').next().unwrap_or("").trim();
            if body.is_empty() {
                continue;
            }
            let entry = parse_line(body, line).map_err(err)?;
            s.port2 |= entry.port == 1;
            s.lines.push(entry);
        }
        Ok(s)
    }

    /// Read and parse the script at `path`.
    pub fn load(path: &Path) -> Result<InputScript, ScriptError> {
        let name = path.display().to_string();
        let text = crate::text::read_text(path).map_err(|msg| ScriptError::Io {
            file: name.clone(),
            msg,
        })?;
        InputScript::parse(&name, &text)
    }

    /// The entries, in file order.
    pub fn lines(&self) -> &[ScriptLine] {
        &self.lines
    }

    /// The report of `port` (0 = port 1, 1 = port 2) at vertical blank `vblank`; `None` for a
    /// port with no pad.
    pub fn report(&self, port: u8, vblank: u64) -> Option<PadReport> {
        if port > 1 || (port == 1 && !self.port2) {
            return None;
        }
        let mut held = Buttons::NONE;
        let mut sticks: [Option<u8>; 4] = [None; 4];
        for l in self
            .lines
            .iter()
            .filter(|l| l.port == port && (l.first..=l.last).contains(&vblank))
        {
            held |= l.held;
            for (s, v) in sticks.iter_mut().zip(l.sticks) {
                if v.is_some() {
                    *s = v;
                }
            }
        }
        let analog = sticks.iter().any(Option::is_some);
        Some(PadReport {
            buttons: held.to_report(),
            sticks: analog.then(|| sticks.map(|v| v.unwrap_or(0x80))),
        })
    }
}

/// A piece of the line quoted in an error: at most 40 characters, control characters escaped
/// (a line may be megabytes long, or hold a NUL or a terminal escape).
fn q(s: &str) -> String {
    crate::text::one_line(s, 40)
}

/// Parse one non-empty, comment-free line.
fn parse_line(body: &str, line: usize) -> Result<ScriptLine, String> {
    let (head, rest) = match body.find(char::is_whitespace) {
        Some(i) => (&body[..i], &body[i..]),
        None => (body, ""),
    };
    let lower = head.to_ascii_lowercase();
    let (port, frames) = if let Some(f) = lower.strip_prefix("p1:") {
        (0, f)
    } else if let Some(f) = lower.strip_prefix("p2:") {
        (1, f)
    } else {
        (0, lower.as_str())
    };
    if frames.matches('-').count() > 1 {
        return Err(format!(
            "\"{}\" is not a vertical blank or a range (expected F or F-G, decimal)",
            q(frames)
        ));
    }
    let (first, last) = match frames.split_once('-') {
        Some((a, b)) => (vblank_number(a)?, vblank_number(b)?),
        None => {
            let f = vblank_number(frames)?;
            (f, f)
        }
    };
    if last < first {
        return Err(format!("the range {first}-{last} ends before it starts"));
    }
    let mut held = Buttons::NONE;
    let mut sticks: [Option<u8>; 4] = [None; 4];
    let mut items = 0;
    for item in rest
        .split(|c: char| c == '+' || c.is_whitespace())
        .filter(|t| !t.is_empty())
    {
        items += 1;
        let item = item.to_ascii_lowercase();
        if let Some((axis, value)) = item.split_once('=') {
            let Some(k) = AXES.iter().position(|a| *a == axis) else {
                return Err(format!(
                    "unknown stick axis \"{}\" (axes: lx ly rx ry)",
                    q(axis)
                ));
            };
            if sticks[k].is_some() {
                return Err(format!("{axis} given twice"));
            }
            sticks[k] = Some(stick_value(axis, value)?);
        } else if item == "none" {
        } else if let Some(b) = Buttons::from_name(&item) {
            held |= b;
        } else {
            return Err(format!(
                "unknown button \"{}\" (buttons: cross circle square triangle l1 r1 l2 r2 \
                 l3 r3 select start up down left right, or none)",
                q(&item)
            ));
        }
    }
    if items == 0 {
        return Err(format!(
            "\"{}\" holds nothing: give buttons, sticks or none",
            q(head)
        ));
    }
    Ok(ScriptLine {
        port,
        first,
        last,
        held,
        sticks,
        line,
    })
}

fn vblank_number(s: &str) -> Result<u64, String> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "\"{}\" is not a vertical blank number (expected F or F-G, decimal)",
            q(s)
        ));
    }
    match s.parse::<u64>() {
        Ok(0) => Err("vertical blank 0 never comes: they count from 1".into()),
        Ok(v) => Ok(v),
        Err(_) => Err(format!("vertical blank number {} is too large", q(s))),
    }
}

fn stick_value(axis: &str, v: &str) -> Result<u8, String> {
    let parsed = if let Some(h) = v.strip_prefix("0x") {
        if h.is_empty() || !h.bytes().all(|b| b.is_ascii_hexdigit()) {
            None
        } else {
            u32::from_str_radix(h, 16).ok()
        }
    } else if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) {
        v.parse::<u32>().ok()
    } else {
        None
    };
    match parsed {
        Some(n) if n <= 255 => Ok(n as u8),
        _ => Err(format!("{axis}={}: a stick value is 0 to 255", q(v))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<InputScript, ScriptError> {
        InputScript::parse("t.input", text)
    }

    #[test]
    fn entries_and_reports() {
        let s = parse(
            "# a comment\n\n10 start\n20-22 cross+up   # trailing comment\n21 circle lx=0 LY=255\n\
             22 rx=0x10 + square\np2:30 SELECT\n",
        )
        .unwrap();
        assert_eq!(s.lines().len(), 5);
        assert_eq!(s.lines()[1].line, 4);
        assert_eq!(s.report(0, 9), Some(PadReport::IDLE));
        assert_eq!(s.report(0, 10), Some(PadReport::digital(Buttons::START)));
        assert_eq!(
            s.report(0, 20),
            Some(PadReport::digital(Buttons::CROSS | Buttons::UP))
        );
        assert_eq!(
            s.report(0, 21),
            Some(PadReport {
                buttons: (Buttons::CROSS | Buttons::UP | Buttons::CIRCLE).to_report(),
                sticks: Some([0x80, 0x80, 0, 255]),
            })
        );
        assert_eq!(
            s.report(0, 22),
            Some(PadReport {
                buttons: (Buttons::CROSS | Buttons::UP | Buttons::SQUARE).to_report(),
                sticks: Some([0x10, 0x80, 0x80, 0x80]),
            })
        );
        assert_eq!(s.report(0, 23), Some(PadReport::IDLE));
        assert_eq!(s.report(1, 30), Some(PadReport::digital(Buttons::SELECT)));
        assert_eq!(s.report(1, 31), Some(PadReport::IDLE));
        assert_eq!(s.report(2, 30), None);
    }

    #[test]
    fn port_2_is_absent_unless_named() {
        let s = parse("1 cross\np1:2 circle\n").unwrap();
        assert_eq!(s.report(1, 1), None);
        assert_eq!(s.report(0, 2), Some(PadReport::digital(Buttons::CIRCLE)));
        assert_eq!(parse("").unwrap().report(0, 5), Some(PadReport::IDLE));
    }

    #[test]
    fn later_lines_win_per_axis() {
        let s = parse("1-10 lx=1 ly=2\n5 lx=9\n").unwrap();
        assert_eq!(s.report(0, 5).unwrap().sticks, Some([0x80, 0x80, 9, 2]));
        assert_eq!(s.report(0, 6).unwrap().sticks, Some([0x80, 0x80, 1, 2]));
    }

    #[test]
    /// A bad piece of a line is quoted with its control characters escaped and at most 40
    /// characters of it (piney-fuzz found a NUL quoted raw; a megabyte token was quoted whole).
    fn bad_pieces_are_quoted_on_one_short_line() {
        let long = "x".repeat(1 << 20);
        for text in [
            "5 \0cross".to_string(),
            "5 \u{1b}[2Jcross".to_string(),
            format!("5 {long}"),
            format!("{long} cross"),
            format!("5 lx={long}"),
            format!("5 {long}=1"),
            format!("1-{long} cross"),
        ] {
            let msg = parse(&format!("{text}\n")).unwrap_err().to_string();
            assert!(!msg.chars().any(char::is_control), "{msg:?}");
            assert!(msg.len() < 200, "{} bytes: {}", msg.len(), &msg[..200]);
        }
        let msg = parse("5 \0cross\n").unwrap_err().to_string();
        assert!(msg.contains("unknown button \"\\0cross\""), "{msg}");
    }

    #[test]
    fn bad_lines_name_file_and_line() {
        let cases = [
            ("x cross", "not a vertical blank number"),
            ("5-3 cross", "ends before it starts"),
            ("5", "holds nothing"),
            ("5 crss", "unknown button \"crss\""),
            ("5 lx=256", "a stick value is 0 to 255"),
            ("5 lx=-1", "a stick value is 0 to 255"),
            ("5 lz=3", "unknown stick axis"),
            ("5 lx=1 lx=2", "lx given twice"),
            ("p3:5 cross", "not a vertical blank number"),
            ("99999999999999999999999 cross", "too large"),
            ("5 lx=0x", "a stick value"),
            (
                "1-2-3 cross",
                "\"1-2-3\" is not a vertical blank or a range",
            ),
            ("0 cross", "vertical blank 0 never comes"),
            ("0-4 cross", "vertical blank 0 never comes"),
        ];
        for (text, what) in cases {
            let e = parse(&format!("# ok\n1 cross\n{text}\n")).unwrap_err();
            let msg = e.to_string();
            assert!(msg.starts_with("t.input:3: "), "{text}: {msg}");
            assert!(msg.contains(what), "{text}: {msg}");
        }
    }

    #[test]
    fn io_errors_name_the_file() {
        let e = InputScript::load(Path::new("/nonexistent/piney.input")).unwrap_err();
        assert!(
            e.to_string().starts_with("/nonexistent/piney.input: "),
            "{e}"
        );
    }

    /// A small deterministic generator (xorshift64*), so that the property tests need no crate.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    /// Property: random garbage never panics; a failure names `g.input` and a line that exists
    /// and holds the bad text; a success reports on every port and vblank without panicking.
    #[test]
    fn garbage_never_panics_and_errors_name_the_line() {
        const PIECES: [&str; 24] = [
            "1",
            "42",
            "-",
            "+",
            " ",
            "\t",
            "#",
            "=",
            "cross",
            "up",
            "lx",
            "ry=",
            "0x",
            "ff",
            "255",
            "256",
            "p2:",
            "p1:",
            "none",
            "\u{e9}",
            "18446744073709551615",
            "0-0",
            "\n",
            "START",
        ];
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for _ in 0..3000 {
            let mut text = String::new();
            for _ in 0..rng.below(24) {
                if rng.below(5) == 0 {
                    // A raw character, any code point.
                    let c = char::from_u32((rng.next() % 0x11_0000) as u32).unwrap_or('?');
                    text.push(c);
                } else {
                    text.push_str(PIECES[rng.below(PIECES.len())]);
                }
            }
            match InputScript::parse("g.input", &text) {
                Ok(s) => {
                    for port in 0..3 {
                        for v in [0, 1, 42, 255, u64::MAX] {
                            let _ = s.report(port, v);
                        }
                    }
                }
                Err(ScriptError::Line { file, line, msg }) => {
                    assert_eq!(file, "g.input");
                    let bad = text.lines().nth(line - 1);
                    assert!(bad.is_some(), "line {line} of {text:?}: {msg}");
                    let bad = bad.unwrap().split('#').next().unwrap_or("").trim();
                    assert!(!bad.is_empty(), "line {line} of {text:?} is blank: {msg}");
                }
                Err(e) => panic!("unexpected {e:?}"),
            }
        }
    }

    /// Property: a well-formed line for random values parses back to those values.
    #[test]
    fn well_formed_lines_round_trip() {
        let mut rng = Rng(7);
        for _ in 0..2000 {
            let first = rng.next() % 100_000;
            let last = first + rng.next() % 1000;
            let mut held = Buttons::NONE;
            let mut items = Vec::new();
            for (name, b) in Buttons::NAMED {
                if rng.below(3) == 0 {
                    held |= b;
                    items.push(name.to_string());
                }
            }
            let mut sticks = [None; 4];
            for (k, axis) in AXES.iter().enumerate() {
                if rng.below(2) == 0 {
                    let v = rng.below(256) as u8;
                    sticks[k] = Some(v);
                    items.push(format!("{axis}={v}"));
                }
            }
            if items.is_empty() {
                items.push("none".into());
            }
            let port = rng.below(2) as u8;
            let text = format!(
                "{}{first}-{last} {}",
                if port == 1 { "p2:" } else { "" },
                items.join(if rng.below(2) == 0 { "+" } else { " " })
            );
            let s = InputScript::parse("r.input", &text).unwrap();
            assert_eq!(
                s.lines(),
                &[ScriptLine {
                    port,
                    first,
                    last,
                    held,
                    sticks,
                    line: 1
                }],
                "{text}"
            );
        }
    }
}
