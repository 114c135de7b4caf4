//! Reading a small text file (an input script, a mapping, a profile) with a size limit checked
//! before reading, and its encoding checked, so that a huge or binary file is one clear error;
//! and quoting a file's text in a message so that the message stays one line.

use std::io::Read;
use std::path::Path;

/// The largest text file read: 16 MiB (a script of a million lines fits).
pub const MAX_TEXT_FILE: u64 = 16 << 20;

/// The file at `path` as UTF-8 text, or why not: the I/O error, "larger than 16 MiB", or
/// "not UTF-8 text (byte N)" with the offset of the first bad byte.
pub fn read_text(path: &Path) -> Result<String, String> {
    let f = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut bytes = Vec::new();
    f.take(MAX_TEXT_FILE + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > MAX_TEXT_FILE {
        return Err(format!("larger than {} MiB", MAX_TEXT_FILE >> 20));
    }
    String::from_utf8(bytes)
        .map_err(|e| format!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to()))
}

/// `text` as it may appear in a one-line message: control characters escaped as Rust writes
/// them (`\n`, `\r`, `\u{1b}`...), and cut after at most `max` characters written (escapes
/// counted as written) with `...` when longer. What a file says (a key, a value, a parser's message quoting them) goes through
/// this before it is printed.
pub fn one_line(text: &str, max: usize) -> String {
    let mut out = String::new();
    // The cut counts what is written (an escape is several characters).
    let mut written = 0;
    for c in text.chars() {
        let piece: String = if c.is_control() {
            c.escape_debug().collect()
        } else {
            c.to_string()
        };
        written += piece.chars().count();
        if written > max {
            out.push_str("...");
            break;
        }
        out.push_str(&piece);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_escapes_and_cuts() {
        assert_eq!(one_line("a\rb\nc\u{1b}[2J", 80), "a\\rb\\nc\\u{1b}[2J");
        assert_eq!(one_line("abcdef", 3), "abc...");
        assert_eq!(one_line("tab\tok é", 80), "tab\\tok é");
        // Escapes count as what they write: 40 control characters are not 240 written.
        let e = one_line(&"\u{17}".repeat(100), 40);
        assert_eq!(e, format!("{}...", "\\u{17}".repeat(6)));
    }

    #[test]
    fn size_and_encoding_are_checked() {
        let dir = std::env::temp_dir().join(format!("piney-text-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("t.txt");
        std::fs::write(&p, "ok\n").unwrap();
        assert_eq!(read_text(&p).unwrap(), "ok\n");
        std::fs::write(&p, b"ab\xffcd").unwrap();
        assert_eq!(read_text(&p).unwrap_err(), "not UTF-8 text (byte 2)");
        std::fs::write(&p, vec![b'a'; MAX_TEXT_FILE as usize + 1]).unwrap();
        assert_eq!(read_text(&p).unwrap_err(), "larger than 16 MiB");
        assert!(read_text(&dir.join("missing")).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
