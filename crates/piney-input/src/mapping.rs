//! The mapping file: which keyboard keys and which gamepad buttons press which PS2 buttons.
//!
//! ```toml
//! # Both tables are optional; a table given replaces that table's defaults as a whole.
//! [keyboard]          # key name (winit KeyCode / W3C code) = PS2 button
//! ArrowUp = "up"
//! KeyZ = "cross"
//!
//! [gamepad]           # host button (by position) = PS2 button, or "none"
//! south = "cross"
//! east = "circle"
//! ```
//!
//! PS2 buttons: cross, circle, square, triangle, l1, r1, l2, r2, l3, r3, select, start, up,
//! down, left, right. Host buttons: see [`HostButton::NAMED`]. Errors name the file and line.
//! `crates/piney-input/default-mapping.toml` spells out the defaults.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use crate::keyboard::is_key_name;
use crate::{Buttons, HostButton};

/// A bad mapping file.
#[derive(Debug, thiserror::Error)]
pub enum MappingError {
    /// It could not be read.
    #[error("{file}: {source}")]
    Io {
        /// The file.
        file: String,
        /// Why.
        source: std::io::Error,
    },
    /// Its contents are wrong.
    #[error("{file}:{line}: {message}")]
    Invalid {
        /// The file.
        file: String,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        message: String,
    },
}

/// Keyboard keys to PS2 buttons.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyMap {
    /// Sorted by key name, each once.
    entries: Vec<(String, Buttons)>,
}

impl Default for KeyMap {
    /// Arrows the D-pad; Z cross, X circle, C square, V triangle; A / S L1 / R1, Q / W L2 / R2,
    /// D / F L3 / R3; Enter start, Backspace select.
    fn default() -> Self {
        let pairs = [
            ("ArrowUp", Buttons::UP),
            ("ArrowDown", Buttons::DOWN),
            ("ArrowLeft", Buttons::LEFT),
            ("ArrowRight", Buttons::RIGHT),
            ("KeyZ", Buttons::CROSS),
            ("KeyX", Buttons::CIRCLE),
            ("KeyC", Buttons::SQUARE),
            ("KeyV", Buttons::TRIANGLE),
            ("KeyA", Buttons::L1),
            ("KeyS", Buttons::R1),
            ("KeyQ", Buttons::L2),
            ("KeyW", Buttons::R2),
            ("KeyD", Buttons::L3),
            ("KeyF", Buttons::R3),
            ("Enter", Buttons::START),
            ("Backspace", Buttons::SELECT),
        ];
        KeyMap::from_pairs(pairs).unwrap_or(KeyMap {
            entries: Vec::new(),
        })
    }
}

impl KeyMap {
    /// A map from (key name, buttons) pairs; an unknown key name is an error naming it. A
    /// key given twice keeps the last.
    pub fn from_pairs<'a>(
        pairs: impl IntoIterator<Item = (&'a str, Buttons)>,
    ) -> Result<KeyMap, String> {
        let mut m = BTreeMap::new();
        for (k, b) in pairs {
            if !is_key_name(k) {
                return Err(format!("unknown key `{k}`"));
            }
            m.insert(k.to_string(), b);
        }
        Ok(KeyMap {
            entries: m.into_iter().collect(),
        })
    }

    /// The (key, buttons) entries, sorted by key.
    pub fn entries(&self) -> &[(String, Buttons)] {
        &self.entries
    }

    /// The entry index of `key`.
    pub fn index_of(&self, key: &str) -> Option<usize> {
        self.entries
            .binary_search_by(|(k, _)| k.as_str().cmp(key))
            .ok()
    }

    /// What `key` presses.
    pub fn get(&self, key: &str) -> Option<Buttons> {
        self.index_of(key).map(|i| self.entries[i].1)
    }
}

/// Host gamepad buttons to PS2 buttons.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GamepadMap {
    /// By [`HostButton::index`]; [`Buttons::NONE`] for an unmapped one.
    pub buttons: [Buttons; HostButton::COUNT],
}

impl Default for GamepadMap {
    /// The DualShock layout by position: south cross, east circle, west square, north
    /// triangle, the shoulders L1 / R1 and triggers L2 / R2, select, start, the sticks pressed
    /// L3 / R3, the D-pad; the logo button nothing.
    fn default() -> Self {
        let mut buttons = [Buttons::NONE; HostButton::COUNT];
        for (h, b) in [
            (HostButton::South, Buttons::CROSS),
            (HostButton::East, Buttons::CIRCLE),
            (HostButton::North, Buttons::TRIANGLE),
            (HostButton::West, Buttons::SQUARE),
            (HostButton::LeftTrigger, Buttons::L1),
            (HostButton::LeftTrigger2, Buttons::L2),
            (HostButton::RightTrigger, Buttons::R1),
            (HostButton::RightTrigger2, Buttons::R2),
            (HostButton::Select, Buttons::SELECT),
            (HostButton::Start, Buttons::START),
            (HostButton::LeftThumb, Buttons::L3),
            (HostButton::RightThumb, Buttons::R3),
            (HostButton::DPadUp, Buttons::UP),
            (HostButton::DPadDown, Buttons::DOWN),
            (HostButton::DPadLeft, Buttons::LEFT),
            (HostButton::DPadRight, Buttons::RIGHT),
        ] {
            buttons[h.index()] = b;
        }
        GamepadMap { buttons }
    }
}

impl GamepadMap {
    /// Nothing mapped.
    pub const EMPTY: GamepadMap = GamepadMap {
        buttons: [Buttons::NONE; HostButton::COUNT],
    };

    /// The PS2 buttons the pressed host buttons press.
    pub fn buttons(&self, pressed: &[bool; HostButton::COUNT]) -> Buttons {
        pressed
            .iter()
            .zip(self.buttons)
            .filter(|(p, _)| **p)
            .fold(Buttons::NONE, |a, (_, b)| a | b)
    }
}

/// A whole mapping file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Mapping {
    /// The keyboard's.
    pub keyboard: KeyMap,
    /// The gamepads'.
    pub gamepad: GamepadMap,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMapping {
    keyboard: Option<BTreeMap<String, Spanned<String>>>,
    gamepad: Option<BTreeMap<String, Spanned<String>>>,
}

impl Mapping {
    /// Reads a mapping file.
    pub fn load(path: &Path) -> Result<Mapping, MappingError> {
        let file = path.display().to_string();
        let text = crate::text::read_text(path).map_err(|msg| MappingError::Io {
            file: file.clone(),
            source: std::io::Error::new(std::io::ErrorKind::InvalidData, msg),
        })?;
        Mapping::parse(&text, &file)
    }

    /// Parses a mapping file's text; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<Mapping, MappingError> {
        let line_at = |at: usize| text.bytes().take(at).filter(|&b| b == b'\n').count() + 1;
        let invalid = |at: usize, message: String| MappingError::Invalid {
            file: file.to_string(),
            line: line_at(at),
            message,
        };
        let raw: RawMapping = toml::from_str(text).map_err(|e| {
            let at = e.span().map_or(0, |s| s.start);
            invalid(at, crate::text::one_line(e.message().trim(), 200))
        })?;
        let button = |v: &Spanned<String>, none_ok: bool| -> Result<Buttons, MappingError> {
            match Buttons::from_name(v.get_ref()) {
                Some(b) => Ok(b),
                None if none_ok && v.get_ref() == "none" => Ok(Buttons::NONE),
                None => Err(invalid(
                    v.span().start,
                    format!(
                        "unknown PS2 button `{}`",
                        crate::text::one_line(v.get_ref(), 40)
                    ),
                )),
            }
        };
        let mut mapping = Mapping::default();
        if let Some(table) = raw.keyboard {
            let mut pairs = Vec::new();
            for (key, v) in &table {
                if !is_key_name(key) {
                    return Err(invalid(
                        v.span().start,
                        format!(
                            "unknown key `{}` (keys are named as winit's KeyCode: ArrowUp, KeyZ, Enter...)",
                            crate::text::one_line(key, 40)
                        ),
                    ));
                }
                pairs.push((key.as_str(), button(v, false)?));
            }
            mapping.keyboard = KeyMap::from_pairs(pairs)
                .map_err(|m| invalid(0, crate::text::one_line(&m, 200)))?;
        }
        if let Some(table) = raw.gamepad {
            let mut map = GamepadMap::EMPTY;
            for (name, v) in &table {
                let Some(h) = HostButton::from_name(name) else {
                    return Err(invalid(
                        v.span().start,
                        format!(
                            "unknown gamepad button `{}`",
                            crate::text::one_line(name, 40)
                        ),
                    ));
                };
                map.buttons[h.index()] = button(v, true)?;
            }
            mapping.gamepad = map;
        }
        Ok(mapping)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        Mapping::parse(text, "pads.toml").unwrap_err().to_string()
    }

    #[test]
    fn empty_file_gives_the_defaults() {
        let m = Mapping::parse("# nothing\n", "x").unwrap();
        assert_eq!(m, Mapping::default());
        assert_eq!(m.keyboard.get("ArrowLeft"), Some(Buttons::LEFT));
        assert_eq!(m.gamepad.buttons[HostButton::South.index()], Buttons::CROSS);
    }

    #[test]
    fn a_table_replaces_its_defaults() {
        let m = Mapping::parse("[keyboard]\nSpace = \"cross\"\nKeyJ = \"left\"\n\n[gamepad]\nsouth = \"circle\"\neast = \"none\"\n", "x").unwrap();
        assert_eq!(m.keyboard.entries().len(), 2);
        assert_eq!(m.keyboard.get("Space"), Some(Buttons::CROSS));
        assert_eq!(m.keyboard.get("ArrowUp"), None);
        let mut pressed = [false; HostButton::COUNT];
        pressed[HostButton::South.index()] = true;
        pressed[HostButton::East.index()] = true;
        pressed[HostButton::DPadUp.index()] = true;
        assert_eq!(m.gamepad.buttons(&pressed), Buttons::CIRCLE);
        assert_eq!(
            GamepadMap::default().buttons(&pressed),
            Buttons::CROSS | Buttons::CIRCLE | Buttons::UP
        );
    }

    /// TOML strings may hold escaped line ends; a key or value quoted in an error comes out
    /// escaped, so the error stays one line (piney-fuzz found `"a\rb"` keys splitting it).
    #[test]
    fn errors_quoting_the_file_stay_one_line() {
        for (text, want) in [
            (
                "[keyboard]\n\"Key\\rZ\" = \"cross\"\n",
                "pads.toml:2: unknown key `Key\\rZ` (keys",
            ),
            (
                "[keyboard]\nKeyZ = \"cro\\nss\"\n",
                "pads.toml:2: unknown PS2 button `cro\\nss`",
            ),
            (
                "[gamepad]\n\"so\\u001buth\" = \"cross\"\n",
                "pads.toml:2: unknown gamepad button `so\\u{1b}uth`",
            ),
            (
                "\"x\\r\\ny\" = 1\n",
                "pads.toml:1: unknown field `x\\r\\ny`",
            ),
        ] {
            let e = err(text);
            assert!(!e.contains(['\n', '\r', '\u{1b}']), "{e:?}");
            assert!(e.starts_with(want), "{e:?}");
        }
    }

    #[test]
    fn errors_name_file_and_line() {
        assert_eq!(
            err("[keyboard]\nArrowUp = \"up\"\nKeyZ = \"ex\"\n"),
            "pads.toml:3: unknown PS2 button `ex`"
        );
        assert_eq!(
            err("[keyboard]\n\nUp = \"up\"\n"),
            "pads.toml:3: unknown key `Up` (keys are named as winit's KeyCode: ArrowUp, KeyZ, Enter...)"
        );
        assert_eq!(
            err("[gamepad]\nsouth = \"cross\"\nlogo = \"start\"\n"),
            "pads.toml:3: unknown gamepad button `logo`"
        );
        assert_eq!(
            err("[keyboard]\nKeyZ = \"none\"\n"),
            "pads.toml:2: unknown PS2 button `none`"
        );
        assert!(err("[keyboard]\nKeyZ = 3\n").starts_with("pads.toml:2: "));
        assert!(err("\n\n[keyboard\n").starts_with("pads.toml:3: "));
        assert!(err("[mouse]\n").starts_with("pads.toml:1: "));
    }

    #[test]
    fn the_shipped_file_spells_out_the_defaults() {
        let text = include_str!("../default-mapping.toml");
        assert_eq!(
            Mapping::parse(text, "default-mapping.toml").unwrap(),
            Mapping::default()
        );
    }

    #[test]
    fn missing_file_names_it() {
        let e = Mapping::load(Path::new("/nonexistent/pads.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("/nonexistent/pads.toml: "), "{e}");
    }
}
