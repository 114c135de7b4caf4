//! The sidecar file of a folder card's directory, `.piney-mc`: the PS2 metadata a host
//! filesystem cannot hold (mode word, the card's timestamps, the attr word) and the order of the
//! directory's entries, deleted slots included.
//!
//! Contract: [`parse`] accepts exactly what [`render`] writes (plus comments, blank lines and
//! CRLF line ends) and rejects anything else with one [`CardError::Sidecar`] naming the file and
//! the line; it never panics. `render(parse(x))` is `x` for any `x` that `render` produced.
//!
//! The format, version 1, one item per line:
//!
//! ```text
//! piney-mc 1
//! # comments and blank lines are ignored
//! self mode=0x8427 attr=0x00000000 created=2004-05-06T07:08:09 modified=2004-05-06T07:08:09
//! unformatted
//! entry mode=0x8497 attr=0x00000000 created=2004-05-06T07:08:09 modified=2004-05-06T07:10:00 name=BESLUS-20267
//! free
//! ```
//!
//! * The first line is `piney-mc 1`.
//! * `self` (the directory's own entry: mode, times, attr) and `unformatted` may appear only in
//!   the card's root directory, at most once each, before the first `entry` or `free` line.
//!   Other directories keep their own entry in their parent's sidecar.
//! * `entry` and `free` lines are the directory's slots from slot 2 on, in order (slots 0 and 1
//!   are '.' and '..'); `free` is a deleted slot that the next new entry reuses.
//! * Fields come in the order shown, separated by one space: `mode` is `0x` and 4 hex digits,
//!   `attr` `0x` and 8, timestamps `Y-M-DTh:m:s` in decimal (year up to 65535, the others up to
//!   255: the card stores what the game sets), in the card's time zone (JST on a console).
//! * `name` is the entry's bytes (1 to 32, not `.` or `..`, no `/` or NUL), every byte outside
//!   `!`..`~` and every `%` written as `%` and two hex digits. Names are unique.
//! * An entry's mode must have EXISTS (0x8000) and one of FILE (0x10) or DIR (0x20); whether
//!   the entry is a file or a directory is the host's, and the bit follows it. The root's
//!   `self` mode must have EXISTS and DIR.

use crate::engine::MAX_NAME;
use crate::error::CardError;
use crate::types::{Timestamp, mode};
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

/// File name of a directory's sidecar.
pub(crate) const SIDECAR: &str = ".piney-mc";
/// Temporary name a sidecar is written under before it is renamed into place.
pub(crate) const SIDECAR_TMP: &str = ".piney-mc.tmp";
/// The first line.
const HEADER: &str = "piney-mc 1";

/// The metadata of one entry a sidecar keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Meta {
    pub mode: u16,
    pub attr: u32,
    pub created: Timestamp,
    pub modified: Timestamp,
}

/// One slot from slot 2 on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Line {
    Entry { meta: Meta, name: Vec<u8> },
    Free,
}

/// A parsed sidecar.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Sidecar {
    /// The root's own entry (`self`).
    pub own: Option<Meta>,
    /// The root says the card is unformatted.
    pub unformatted: bool,
    pub slots: Vec<Line>,
}

fn ts_text(t: Timestamp) -> String {
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
        t.year, t.month, t.day, t.hour, t.min, t.sec
    )
}

fn meta_text(m: &Meta) -> String {
    format!(
        "mode={:#06x} attr={:#010x} created={} modified={}",
        m.mode,
        m.attr,
        ts_text(m.created),
        ts_text(m.modified)
    )
}

/// Percent-encodes a name (see the module docs).
pub(crate) fn encode_name(name: &[u8]) -> String {
    let mut s = String::with_capacity(name.len());
    for &b in name {
        if (0x21..=0x7E).contains(&b) && b != b'%' {
            s.push(b as char);
        } else {
            let _ = write!(s, "%{b:02X}");
        }
    }
    s
}

/// The text of a sidecar.
pub(crate) fn render(sc: &Sidecar) -> String {
    let mut s = String::new();
    s.push_str(HEADER);
    s.push('\n');
    if let Some(m) = &sc.own {
        let _ = writeln!(s, "self {}", meta_text(m));
    }
    if sc.unformatted {
        s.push_str("unformatted\n");
    }
    for l in &sc.slots {
        match l {
            Line::Entry { meta, name } => {
                let _ = writeln!(s, "entry {} name={}", meta_text(meta), encode_name(name));
            }
            Line::Free => s.push_str("free\n"),
        }
    }
    s
}

/// A piece of a sidecar line quoted in an error: its first 40 characters, as Rust quotes a
/// string (control characters escaped), `...` after when there was more.
fn q(s: &str) -> String {
    let cut: String = s.chars().take(40).collect();
    if cut.len() < s.len() {
        format!("{cut:?}...")
    } else {
        format!("{cut:?}")
    }
}

/// Parses a sidecar's bytes; `is_root` allows `self` and `unformatted`.
pub(crate) fn parse(bytes: &[u8], path: &Path, is_root: bool) -> Result<Sidecar, CardError> {
    let err = |line: usize, what: String| CardError::Sidecar {
        path: path.to_path_buf(),
        line,
        what,
    };
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let line = bytes[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1;
        err(line, "not UTF-8 text".into())
    })?;
    let mut sc = Sidecar::default();
    let mut names = BTreeSet::new();
    let mut saw_header = false;
    let mut saw_slot = false;
    let mut saw_self = false;
    for (i, raw_line) in text.split('\n').enumerate() {
        let n = i + 1;
        let line = raw_line.strip_suffix('\r').unwrap_or(raw_line);
        if !saw_header {
            if line != HEADER {
                return Err(err(
                    n,
                    format!("first line must be {HEADER:?}, found {}", q(line)),
                ));
            }
            saw_header = true;
            continue;
        }
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
        match word {
            "self" | "unformatted" if !is_root => {
                return Err(err(
                    n,
                    format!("'{word}' belongs only in the card's root directory"),
                ));
            }
            "self" | "unformatted" if saw_slot => {
                return Err(err(n, format!("'{word}' must come before the entries")));
            }
            "self" => {
                if saw_self {
                    return Err(err(n, "a second 'self' line".into()));
                }
                saw_self = true;
                let mut f = Fields::new(rest);
                let meta = parse_meta(&mut f).map_err(|w| err(n, w))?;
                f.end().map_err(|w| err(n, w))?;
                if meta.mode & (mode::EXISTS | mode::DIR | mode::FILE) != mode::EXISTS | mode::DIR {
                    return Err(err(
                        n,
                        format!(
                            "the root's mode {:#06x} must have EXISTS and DIR, not FILE",
                            meta.mode
                        ),
                    ));
                }
                sc.own = Some(meta);
            }
            "unformatted" => {
                if !rest.is_empty() {
                    return Err(err(n, "'unformatted' takes no fields".into()));
                }
                if sc.unformatted {
                    return Err(err(n, "a second 'unformatted' line".into()));
                }
                sc.unformatted = true;
            }
            "free" => {
                if !rest.is_empty() {
                    return Err(err(n, "'free' takes no fields".into()));
                }
                saw_slot = true;
                sc.slots.push(Line::Free);
            }
            "entry" => {
                saw_slot = true;
                let mut f = Fields::new(rest);
                let meta = parse_meta(&mut f).map_err(|w| err(n, w))?;
                let name = f.field("name").map_err(|w| err(n, w))?;
                let name = decode_name(name).map_err(|w| err(n, w))?;
                f.end().map_err(|w| err(n, w))?;
                if meta.mode & mode::EXISTS == 0 {
                    return Err(err(
                        n,
                        format!(
                            "mode {:#06x} lacks EXISTS (0x8000); a deleted slot is 'free'",
                            meta.mode
                        ),
                    ));
                }
                if meta.mode & (mode::FILE | mode::DIR) == 0
                    || meta.mode & (mode::FILE | mode::DIR) == mode::FILE | mode::DIR
                {
                    return Err(err(
                        n,
                        format!(
                            "mode {:#06x} must have exactly one of FILE (0x10) and DIR (0x20)",
                            meta.mode
                        ),
                    ));
                }
                if !names.insert(name.clone()) {
                    return Err(err(n, format!("name {} appears twice", encode_name(&name))));
                }
                sc.slots.push(Line::Entry { meta, name });
            }
            _ => return Err(err(n, format!("unknown line {}", q(line)))),
        }
    }
    if !saw_header {
        return Err(err(
            1,
            format!("empty file: the first line must be {HEADER:?}"),
        ));
    }
    Ok(sc)
}

/// `key=value` fields separated by single spaces, taken in a fixed order.
struct Fields<'a> {
    rest: Option<&'a str>,
}

impl<'a> Fields<'a> {
    fn new(rest: &'a str) -> Self {
        Fields { rest: Some(rest) }
    }

    fn field(&mut self, key: &str) -> Result<&'a str, String> {
        let Some(rest) = self.rest else {
            return Err(format!("missing field '{key}='"));
        };
        let (tok, next) = match rest.split_once(' ') {
            Some((t, n)) => (t, Some(n)),
            None => (rest, None),
        };
        let Some(v) = tok.strip_prefix(key).and_then(|t| t.strip_prefix('=')) else {
            return Err(format!("expected field '{key}=', found {}", q(tok)));
        };
        self.rest = next;
        Ok(v)
    }

    fn end(&self) -> Result<(), String> {
        match self.rest {
            None => Ok(()),
            Some(r) => Err(format!("unexpected {} at the end of the line", q(r))),
        }
    }
}

fn parse_meta(f: &mut Fields) -> Result<Meta, String> {
    let m = f.field("mode")?;
    let mode =
        parse_hex(m, 4).ok_or_else(|| format!("bad mode {} (want 0x and 4 hex digits)", q(m)))?;
    let a = f.field("attr")?;
    let attr =
        parse_hex(a, 8).ok_or_else(|| format!("bad attr {} (want 0x and 8 hex digits)", q(a)))?;
    let c = f.field("created")?;
    let created =
        parse_ts(c).ok_or_else(|| format!("bad timestamp {} (want Y-M-DTh:m:s)", q(c)))?;
    let m2 = f.field("modified")?;
    let modified =
        parse_ts(m2).ok_or_else(|| format!("bad timestamp {} (want Y-M-DTh:m:s)", q(m2)))?;
    Ok(Meta {
        mode: mode as u16,
        attr,
        created,
        modified,
    })
}

fn parse_hex(s: &str, digits: usize) -> Option<u32> {
    let h = s.strip_prefix("0x")?;
    if h.len() != digits || !h.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(h, 16).ok()
}

fn parse_dec(s: &str, max: u32) -> Option<u32> {
    if s.is_empty() || s.len() > 5 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse::<u32>().ok().filter(|&v| v <= max)
}

fn parse_ts(s: &str) -> Option<Timestamp> {
    let (date, time) = s.split_once('T')?;
    let mut d = date.split('-');
    let mut t = time.split(':');
    let year = parse_dec(d.next()?, 65535)? as u16;
    let month = parse_dec(d.next()?, 255)? as u8;
    let day = parse_dec(d.next()?, 255)? as u8;
    let hour = parse_dec(t.next()?, 255)? as u8;
    let min = parse_dec(t.next()?, 255)? as u8;
    let sec = parse_dec(t.next()?, 255)? as u8;
    if d.next().is_some() || t.next().is_some() {
        return None;
    }
    Some(Timestamp::new(year, month, day, hour, min, sec))
}

fn decode_name(s: &str) -> Result<Vec<u8>, String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'%' {
            let hex = b
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .filter(|h| h.bytes().all(|x| x.is_ascii_hexdigit()))
                .ok_or_else(|| {
                    format!("bad escape in name {} (want % and two hex digits)", q(s))
                })?;
            out.push(u8::from_str_radix(hex, 16).expect("hex digits"));
            i += 3;
        } else if (0x21..=0x7E).contains(&c) {
            out.push(c);
            i += 1;
        } else {
            return Err(format!(
                "name {} has a byte {c:#04x} that must be %-escaped",
                q(s)
            ));
        }
    }
    if out.is_empty() || out.len() > MAX_NAME {
        return Err(format!("name {} must be 1 to {MAX_NAME} bytes", q(s)));
    }
    if out == b"." || out == b".." || out.contains(&b'/') || out.contains(&0) {
        return Err(format!("name {} is not a valid entry name", q(s)));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p() -> &'static Path {
        Path::new("SAVE/.piney-mc")
    }

    #[test]
    fn round_trip() {
        let m = Meta {
            mode: 0x8497,
            attr: 0x1234_5678,
            created: Timestamp::new(2004, 5, 6, 7, 8, 9),
            modified: Timestamp::new(2004, 5, 6, 7, 10, 0),
        };
        let sc = Sidecar {
            own: Some(Meta { mode: 0x8427, ..m }),
            unformatted: false,
            slots: vec![
                Line::Entry {
                    meta: m,
                    name: b"icon sys%\x82\xa0".to_vec(),
                },
                Line::Free,
            ],
        };
        let text = render(&sc);
        assert_eq!(
            text,
            "piney-mc 1\n\
             self mode=0x8427 attr=0x12345678 created=2004-05-06T07:08:09 modified=2004-05-06T07:10:00\n\
             entry mode=0x8497 attr=0x12345678 created=2004-05-06T07:08:09 modified=2004-05-06T07:10:00 name=icon%20sys%25%82%A0\n\
             free\n"
        );
        assert_eq!(parse(text.as_bytes(), p(), true).unwrap(), sc);
    }

    /// A bad piece of a line is quoted escaped and at most 40 characters long (piney-fuzz found
    /// a 19,000-character field quoted whole).
    #[test]
    fn bad_pieces_are_quoted_short() {
        let long = "\u{10}".repeat(5000);
        let head = "piney-mc 1\n";
        for text in [
            format!("{head}entry mode=0x8497 att{long}r=0x00000000\n"),
            format!("{head}bogus{long}\n"),
            format!("{head}entry mode=0x8{long}\n"),
            format!(
                "{head}entry mode=0x8497 attr=0x00000000 created=2004-05-06T07:08:09 modified=2004-05-06T07:10:00 name={long}\n"
            ),
        ] {
            match parse(text.as_bytes(), p(), false) {
                Err(e @ CardError::Sidecar { .. }) => {
                    let msg = e.to_string();
                    assert!(msg.len() < 400, "{} bytes: {}", msg.len(), &msg[..400]);
                    assert!(!msg.chars().any(char::is_control), "{msg:?}");
                }
                other => panic!("expected a sidecar error, got {other:?}"),
            }
        }
    }

    fn bad(text: &str, line: usize, needle: &str) {
        match parse(text.as_bytes(), p(), false) {
            Err(CardError::Sidecar { line: l, what, .. }) => {
                assert_eq!(l, line, "{what}");
                assert!(what.contains(needle), "{what:?} lacks {needle:?}");
            }
            other => panic!("expected a sidecar error, got {other:?}"),
        }
    }

    #[test]
    fn strict() {
        let e = "entry mode=0x8497 attr=0x00000000 created=2004-05-06T07:08:09 modified=2004-05-06T07:08:09 name=A";
        bad("", 1, "first line");
        bad("piney-mc 2\n", 1, "first line");
        bad(&format!("piney-mc 1\n{e}\n{e}\n"), 3, "twice");
        bad(
            "piney-mc 1\nself mode=0x8427 attr=0x00000000 created=2004-05-06T07:08:09 modified=2004-05-06T07:08:09\n",
            2,
            "root",
        );
        bad(
            "piney-mc 1\nentry mode=0x849 attr=0x00000000 created=2004-05-06T07:08:09 modified=2004-05-06T07:08:09 name=A\n",
            2,
            "bad mode",
        );
        bad(
            "piney-mc 1\nentry mode=0x0497 attr=0x00000000 created=2004-05-06T07:08:09 modified=2004-05-06T07:08:09 name=A\n",
            2,
            "EXISTS",
        );
        bad(
            "piney-mc 1\nentry mode=0x8497 attr=0x00000000 created=2004-05-06 modified=2004-05-06T07:08:09 name=A\n",
            2,
            "timestamp",
        );
        bad(
            "piney-mc 1\nentry mode=0x8497 attr=0x00000000 created=2004-05-06T07:08:09 modified=2004-05-06T07:08:09 name=a%zz\n",
            2,
            "escape",
        );
        bad(
            "piney-mc 1\nentry mode=0x8497 attr=0x00000000 created=2004-05-06T07:08:09 modified=2004-05-06T07:08:09 name=..\n",
            2,
            "valid",
        );
        bad(&format!("piney-mc 1\n{e} extra\n"), 2, "unexpected");
        bad("piney-mc 1\nfree now\n", 2, "no fields");
        bad("piney-mc 1\nwhat\n", 2, "unknown");
        assert!(matches!(
            parse(b"piney-mc 1\nself mode=0x8417 attr=0x00000000 created=2004-05-06T07:08:09 modified=2004-05-06T07:08:09\n", p(), true),
            Err(CardError::Sidecar { line: 2, .. })
        ));
        bad("piney-mc 1\n\u{fffd}\n", 2, "unknown");
        assert!(matches!(
            parse(b"piney-mc 1\n\xff\n", p(), false),
            Err(CardError::Sidecar { line: 2, .. })
        ));
    }

    #[test]
    fn comments_and_crlf() {
        let sc = parse(b"piney-mc 1\r\n# hello\r\n\r\nfree\r\n", p(), false).unwrap();
        assert_eq!(sc.slots, vec![Line::Free]);
    }
}
