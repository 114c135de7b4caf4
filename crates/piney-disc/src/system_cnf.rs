//! SYSTEM.CNF, the disc's boot configuration: `KEY = VALUE` lines.
//!
//! A PS2 disc has `BOOT2 = cdrom0:\SLUS_202.67;1` (the ELF the BIOS runs), `VER = 1.00` and
//! `VMODE = NTSC` or `PAL`; a PS1 disc has `BOOT = cdrom:\SCUS_944.26;1` instead. Spaces around
//! `=` are optional, lines end in CRLF or LF, and other keys (e.g. `HDDUNITPOWER`) are kept.

use std::path::Path;

use crate::DiscError;

/// SYSTEM.CNF's VMODE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VideoMode {
    Ntsc,
    Pal,
}

/// A parsed SYSTEM.CNF.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemCnf {
    /// BOOT2: the PS2 boot ELF's path.
    pub boot2: Option<String>,
    /// BOOT: a PS1 disc's boot executable.
    pub boot: Option<String>,
    /// VER.
    pub version: Option<String>,
    /// VMODE.
    pub video_mode: Option<VideoMode>,
    /// Every `KEY = VALUE` line in order, the known keys included.
    pub entries: Vec<(String, String)>,
}

impl SystemCnf {
    /// Parses SYSTEM.CNF's bytes; `file` names it (or its disc image) in errors.
    pub fn parse(file: &Path, bytes: &[u8]) -> Result<SystemCnf, DiscError> {
        let err = |line: Option<usize>, detail: String| DiscError::SystemCnf {
            path: file.to_path_buf(),
            line,
            detail,
        };
        let mut cnf = SystemCnf {
            boot2: None,
            boot: None,
            version: None,
            video_mode: None,
            entries: Vec::new(),
        };
        let mut seen: Vec<(String, usize)> = Vec::new();
        for (n, raw) in bytes.split(|&b| b == b'\n').enumerate() {
            let line_no = n + 1;
            // Discs pad the file with NULs or end it with ^Z; neither is content.
            let raw: &[u8] = match raw.iter().position(|&b| b == 0 || b == 0x1A) {
                Some(end)
                    if raw[end..]
                        .iter()
                        .all(|&b| b == 0 || b == 0x1A || b == b'\r') =>
                {
                    &raw[..end]
                }
                _ => raw,
            };
            let Ok(line) = std::str::from_utf8(raw) else {
                return Err(err(Some(line_no), "not UTF-8 text".into()));
            };
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            if line.chars().any(|c| c.is_control() && c != '\t') {
                return Err(err(Some(line_no), "a control character in the line".into()));
            }
            let Some((key, value)) = line.split_once('=') else {
                return Err(err(Some(line_no), format!("{line:?} is not KEY = VALUE")));
            };
            let (key, value) = (key.trim(), value.trim());
            if key.is_empty() || key.contains(char::is_whitespace) {
                return Err(err(Some(line_no), format!("{key:?} is not a key")));
            }
            let upper = key.to_ascii_uppercase();
            if let Some((_, first)) = seen.iter().find(|(k, _)| *k == upper) {
                return Err(err(
                    Some(line_no),
                    format!("{key} given again (first on line {first})"),
                ));
            }
            seen.push((upper.clone(), line_no));
            match upper.as_str() {
                "BOOT2" => {
                    let prefix = "cdrom0:";
                    let has_prefix = value
                        .get(..prefix.len())
                        .is_some_and(|p| p.eq_ignore_ascii_case(prefix));
                    if !has_prefix || value.len() == prefix.len() {
                        return Err(err(
                            Some(line_no),
                            format!("BOOT2 = {value:?} does not name a cdrom0: file"),
                        ));
                    }
                    cnf.boot2 = Some(value.to_string());
                }
                "BOOT" => {
                    if value.is_empty() {
                        return Err(err(Some(line_no), "BOOT has no value".into()));
                    }
                    cnf.boot = Some(value.to_string());
                }
                "VER" => cnf.version = Some(value.to_string()),
                "VMODE" => {
                    cnf.video_mode = Some(if value.eq_ignore_ascii_case("NTSC") {
                        VideoMode::Ntsc
                    } else if value.eq_ignore_ascii_case("PAL") {
                        VideoMode::Pal
                    } else {
                        return Err(err(
                            Some(line_no),
                            format!("VMODE = {value:?} is neither NTSC nor PAL"),
                        ));
                    })
                }
                _ => {}
            }
            cnf.entries.push((key.to_string(), value.to_string()));
        }
        if cnf.boot2.is_none() && cnf.boot.is_none() {
            return Err(err(None, "no BOOT2 (or BOOT) line".into()));
        }
        Ok(cnf)
    }

    /// A key's value (keys compared case-insensitively).
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v.as_str())
    }

    /// Whether this is a PS1 disc's SYSTEM.CNF (BOOT, no BOOT2).
    pub fn is_ps1(&self) -> bool {
        self.boot2.is_none() && self.boot.is_some()
    }

    /// The boot file's name without its folder and version: `SLUS_202.67`.
    pub fn boot_file_name(&self) -> Option<&str> {
        let path = self.boot2.as_deref().or(self.boot.as_deref())?;
        let name = path.rsplit(['\\', '/', ':']).next()?;
        let name = match name.rfind(';') {
            Some(at) => &name[..at],
            None => name,
        };
        (!name.is_empty()).then_some(name)
    }

    /// The game's serial from the boot file's name: `SLUS_202.67` is `SLUS-20267`. None when
    /// the name is not four letters, `_`, three digits, `.`, two digits (homebrew, demos).
    pub fn serial(&self) -> Option<String> {
        serial_from_name(self.boot_file_name()?)
    }
}

/// `SLUS_202.67` to `SLUS-20267`.
pub fn serial_from_name(name: &str) -> Option<String> {
    let b = name.as_bytes();
    let ok = b.len() == 11
        && b[..4].iter().all(u8::is_ascii_alphabetic)
        && b[4] == b'_'
        && b[5..8].iter().all(u8::is_ascii_digit)
        && b[8] == b'.'
        && b[9..11].iter().all(u8::is_ascii_digit);
    ok.then(|| {
        format!(
            "{}-{}{}",
            name[..4].to_ascii_uppercase(),
            &name[5..8],
            &name[9..11]
        )
    })
}
