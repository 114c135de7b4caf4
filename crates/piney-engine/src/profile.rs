//! Game profiles: what piney knows of one program's code (DESIGN.md section 4).
//!
//! A profile is a TOML file:
//!
//! ```toml
//! serial = "SLUS-20267"            # optional
//! title = "..."                    # optional
//! elf_fnv1a64 = "0x0123456789abcdef"  # optional: FNV-1a 64 of the ELF file (see fnv1a64)
//! hooks = ["ccPad_SetActuater"]    # the native functions to install (see crate::natives)
//! symbols_from_elf = false         # optional: true for a program that carries its symbol
//!                                  # table (our own titles): addresses and words come from it,
//!                                  # and no `hooks` means every native it has the symbols for
//!
//! [symbols."ccPad::Read"]
//! address = 0x00102d40             # absent: not known yet
//! words = [0x27bdffd0]             # optional: the instruction words expected there
//! note = "..."                     # optional
//! ```
//!
//! Every error names the file and the line.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

/// The FNV-1a 64-bit hash of `bytes` (offset basis 0xcbf29ce484222325, prime 0x100000001b3):
/// the profile's `elf_fnv1a64`. Not cryptographic; it tells one build of a program from another.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// One symbol of a profile.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Symbol {
    /// Its guest address, or `None` while unknown.
    pub address: Option<u32>,
    /// The instruction words expected at the address (may be empty: not checked).
    pub words: Vec<u32>,
    /// A remark (where the address comes from, why it is unknown).
    pub note: Option<String>,
}

/// A game profile.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Profile {
    /// Where it came from (a file name, or `<elf symbols>`), for messages.
    pub source: String,
    /// The disc serial, e.g. `SLUS-20267`.
    pub serial: Option<String>,
    /// The title, for messages.
    pub title: Option<String>,
    /// The FNV-1a 64 hash of the ELF it describes, when pinned.
    pub elf_fnv1a64: Option<u64>,
    /// The native functions to install, by name ([`crate::natives::NATIVES`]).
    pub hooks: Vec<String>,
    /// Symbol name -> what is known of it.
    pub symbols: BTreeMap<String, Symbol>,
    /// The program carries its symbol table: [`Profile::resolve`] takes addresses and words
    /// from it.
    pub symbols_from_elf: bool,
}

/// A bad profile.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProfileError {
    /// The file could not be read.
    #[error("{file}: {message}")]
    Io {
        /// The file.
        file: String,
        /// Why.
        message: String,
    },
    /// The TOML is malformed or does not fit the profile's shape.
    #[error("{file}:{line}: {message}")]
    Syntax {
        /// The file.
        file: String,
        /// The 1-based line of the fault.
        line: usize,
        /// What is wrong.
        message: String,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProfile {
    serial: Option<String>,
    title: Option<String>,
    elf_fnv1a64: Option<String>,
    #[serde(default)]
    hooks: Vec<String>,
    #[serde(default)]
    symbols: BTreeMap<String, RawSymbol>,
    #[serde(default)]
    symbols_from_elf: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSymbol {
    address: Option<i64>,
    #[serde(default)]
    words: Vec<i64>,
    note: Option<String>,
}

fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The 1-based line where `key` is defined as a table header or a key, for values checked
/// after parsing; line 1 when it cannot be found.
fn line_of_key(text: &str, key: &str) -> usize {
    text.lines()
        .position(|l| {
            let t = l.trim_start();
            t.starts_with(key) || (t.starts_with('[') && t.contains(key))
        })
        .map_or(1, |i| i + 1)
}

fn u32_value(v: i64, what: &str) -> Result<u32, String> {
    u32::try_from(v).map_err(|_| format!("{what} {v} is not a 32-bit unsigned value"))
}

impl Profile {
    /// Parse a profile's text; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<Profile, ProfileError> {
        let raw: RawProfile = toml::from_str(text).map_err(|e| ProfileError::Syntax {
            file: file.to_string(),
            line: e.span().map_or(1, |s| line_of(text, s.start)),
            // The parser's message quotes the file's keys and values as they are.
            message: piney_input::text::one_line(e.message().trim_end(), 200),
        })?;
        let err = |key: &str, message: String| ProfileError::Syntax {
            file: file.to_string(),
            line: line_of_key(text, key),
            message,
        };
        let elf_fnv1a64 = match &raw.elf_fnv1a64 {
            None => None,
            Some(s) => {
                let digits = s.strip_prefix("0x").unwrap_or(s);
                Some(u64::from_str_radix(digits, 16).map_err(|_| {
                    err(
                        "elf_fnv1a64",
                        format!("elf_fnv1a64 {s:?} is not a 64-bit hexadecimal number"),
                    )
                })?)
            }
        };
        // Names are what messages and `--stats` print: no control characters.
        let hooks = raw.hooks.iter().map(|n| ("hooks", n));
        for (key, name) in hooks.chain(raw.symbols.keys().map(|n| (n.as_str(), n))) {
            if name.chars().any(char::is_control) {
                return Err(err(
                    key,
                    format!("the name {name:?} has a control character in it"),
                ));
            }
        }
        let mut symbols = BTreeMap::new();
        for (name, s) in raw.symbols {
            let address = match s.address {
                None => None,
                Some(a) => {
                    let a = u32_value(a, &format!("symbol {name:?}: address"))
                        .map_err(|m| err(&name, m))?;
                    Some(a)
                }
            };
            let words = s
                .words
                .iter()
                .map(|&w| u32_value(w, &format!("symbol {name:?}: word")))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|m| err(&name, m))?;
            if address.is_none() && !words.is_empty() {
                return Err(err(
                    &name,
                    format!("symbol {name:?}: words given without an address"),
                ));
            }
            symbols.insert(
                name,
                Symbol {
                    address,
                    words,
                    note: s.note,
                },
            );
        }
        Ok(Profile {
            source: file.to_string(),
            serial: raw.serial,
            title: raw.title,
            elf_fnv1a64,
            hooks: raw.hooks,
            symbols,
            symbols_from_elf: raw.symbols_from_elf,
        })
    }

    /// The profile for the loaded program `image`: itself, or, with `symbols_from_elf`, the
    /// program's own symbols under this profile's name (its `hooks` when it lists any, else
    /// every native the symbols allow).
    pub fn resolve(self, image: &[u8]) -> Result<Profile, crate::elfsym::SymbolError> {
        if !self.symbols_from_elf {
            return Ok(self);
        }
        let mut p = Profile::from_elf_symbols(image)?;
        p.source = format!("{} (symbols from the ELF)", self.source);
        p.serial = self.serial;
        p.title = self.title;
        if !self.hooks.is_empty() {
            p.hooks = self.hooks;
        }
        Ok(p)
    }

    /// Read and parse the profile at `path`.
    pub fn load(path: &Path) -> Result<Profile, ProfileError> {
        let file = path.display().to_string();
        let text = piney_input::text::read_text(path).map_err(|message| ProfileError::Io {
            file: file.clone(),
            message,
        })?;
        Profile::parse(&text, &file)
    }

    /// The address of symbol `name`, when known.
    pub fn address(&self, name: &str) -> Option<u32> {
        self.symbols.get(name)?.address
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a64_known_values() {
        // The algorithm's published test vectors.
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn parses_a_profile() {
        let p = Profile::parse(
            "serial = \"X\"\nelf_fnv1a64 = \"0x10\"\nhooks = [\"a\"]\n\
             [symbols.f]\naddress = 0x100\nwords = [1, 2]\n[symbols.g]\nnote = \"unknown\"\n",
            "t.toml",
        )
        .unwrap();
        assert_eq!(p.serial.as_deref(), Some("X"));
        assert_eq!(p.elf_fnv1a64, Some(0x10));
        assert_eq!(p.address("f"), Some(0x100));
        assert_eq!(p.symbols["f"].words, [1, 2]);
        assert_eq!(p.address("g"), None);
        assert_eq!(p.hooks, ["a"]);
    }

    #[test]
    fn errors_name_file_and_line() {
        let e = Profile::parse("serial = \"X\"\n\n[symbols.f]\naddress = \"x\"\n", "p.toml")
            .unwrap_err();
        assert!(e.to_string().starts_with("p.toml:4: "), "{e}");
        let e = Profile::parse("serial = \"X\"\nfoo = 2\n", "p.toml").unwrap_err();
        assert!(e.to_string().starts_with("p.toml:2: unknown field"), "{e}");
        let e = Profile::parse("[symbols.f]\naddress = -1\n", "p.toml").unwrap_err();
        assert_eq!(
            e.to_string(),
            "p.toml:1: symbol \"f\": address -1 is not a 32-bit unsigned value"
        );
        let e = Profile::parse("\n[symbols.f]\nwords = [1]\n", "q.toml").unwrap_err();
        assert_eq!(
            e.to_string(),
            "q.toml:2: symbol \"f\": words given without an address"
        );
        let e = Profile::parse("elf_fnv1a64 = \"zz\"\n", "q.toml").unwrap_err();
        assert!(e.to_string().starts_with("q.toml:1: "), "{e}");
    }

    /// TOML strings may hold escaped line ends: an unknown key with one is quoted escaped, and
    /// a hook or symbol name with a control character is refused at its line (piney-fuzz found
    /// both making messages of several lines: the parser's, and install's warning naming the
    /// hook).
    #[test]
    fn names_and_messages_stay_one_line() {
        let e = Profile::parse("\"fo\\ro\" = 2\n", "p.toml")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("p.toml:1: unknown field `fo\\ro`"), "{e:?}");
        let e = Profile::parse("serial = \"X\"\nhooks = [\"ccPad\\nRead\"]\n", "p.toml")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "p.toml:2: the name \"ccPad\\nRead\" has a control character in it"
        );
        let e = Profile::parse("[symbols.\"a\\u001bb\"]\naddress = 1\n", "p.toml")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "p.toml:1: the name \"a\\u{1b}b\" has a control character in it"
        );
    }
}
