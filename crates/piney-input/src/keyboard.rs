//! The keyboard as a pad: keys by their physical names (the W3C `code` values that winit's
//! `KeyCode` variants carry, such as "ArrowUp" or "KeyX"; this crate does not depend on
//! winit) mapped to PS2 buttons, giving the same two-byte report a digital pad sends.

use crate::{Buttons, KeyMap, PadReport};

/// Every key name a mapping may use: winit 0.30's `KeyCode` variants (which follow the W3C
/// UI Events `code` values).
pub const KEY_NAMES: &[&str] = &[
    "Backquote",
    "Backslash",
    "BracketLeft",
    "BracketRight",
    "Comma",
    "Digit0",
    "Digit1",
    "Digit2",
    "Digit3",
    "Digit4",
    "Digit5",
    "Digit6",
    "Digit7",
    "Digit8",
    "Digit9",
    "Equal",
    "IntlBackslash",
    "IntlRo",
    "IntlYen",
    "KeyA",
    "KeyB",
    "KeyC",
    "KeyD",
    "KeyE",
    "KeyF",
    "KeyG",
    "KeyH",
    "KeyI",
    "KeyJ",
    "KeyK",
    "KeyL",
    "KeyM",
    "KeyN",
    "KeyO",
    "KeyP",
    "KeyQ",
    "KeyR",
    "KeyS",
    "KeyT",
    "KeyU",
    "KeyV",
    "KeyW",
    "KeyX",
    "KeyY",
    "KeyZ",
    "Minus",
    "Period",
    "Quote",
    "Semicolon",
    "Slash",
    "AltLeft",
    "AltRight",
    "Backspace",
    "CapsLock",
    "ContextMenu",
    "ControlLeft",
    "ControlRight",
    "Enter",
    "SuperLeft",
    "SuperRight",
    "ShiftLeft",
    "ShiftRight",
    "Space",
    "Tab",
    "Convert",
    "KanaMode",
    "Lang1",
    "Lang2",
    "Lang3",
    "Lang4",
    "Lang5",
    "NonConvert",
    "Delete",
    "End",
    "Help",
    "Home",
    "Insert",
    "PageDown",
    "PageUp",
    "ArrowDown",
    "ArrowLeft",
    "ArrowRight",
    "ArrowUp",
    "NumLock",
    "Numpad0",
    "Numpad1",
    "Numpad2",
    "Numpad3",
    "Numpad4",
    "Numpad5",
    "Numpad6",
    "Numpad7",
    "Numpad8",
    "Numpad9",
    "NumpadAdd",
    "NumpadBackspace",
    "NumpadClear",
    "NumpadClearEntry",
    "NumpadComma",
    "NumpadDecimal",
    "NumpadDivide",
    "NumpadEnter",
    "NumpadEqual",
    "NumpadHash",
    "NumpadMemoryAdd",
    "NumpadMemoryClear",
    "NumpadMemoryRecall",
    "NumpadMemoryStore",
    "NumpadMemorySubtract",
    "NumpadMultiply",
    "NumpadParenLeft",
    "NumpadParenRight",
    "NumpadStar",
    "NumpadSubtract",
    "Escape",
    "Fn",
    "FnLock",
    "PrintScreen",
    "ScrollLock",
    "Pause",
    "BrowserBack",
    "BrowserFavorites",
    "BrowserForward",
    "BrowserHome",
    "BrowserRefresh",
    "BrowserSearch",
    "BrowserStop",
    "Eject",
    "LaunchApp1",
    "LaunchApp2",
    "LaunchMail",
    "MediaPlayPause",
    "MediaSelect",
    "MediaStop",
    "MediaTrackNext",
    "MediaTrackPrevious",
    "Power",
    "Sleep",
    "AudioVolumeDown",
    "AudioVolumeMute",
    "AudioVolumeUp",
    "WakeUp",
    "Meta",
    "Hyper",
    "Turbo",
    "Abort",
    "Resume",
    "Suspend",
    "Again",
    "Copy",
    "Cut",
    "Find",
    "Open",
    "Paste",
    "Props",
    "Select",
    "Undo",
    "Hiragana",
    "Katakana",
    "F1",
    "F2",
    "F3",
    "F4",
    "F5",
    "F6",
    "F7",
    "F8",
    "F9",
    "F10",
    "F11",
    "F12",
    "F13",
    "F14",
    "F15",
    "F16",
    "F17",
    "F18",
    "F19",
    "F20",
    "F21",
    "F22",
    "F23",
    "F24",
    "F25",
    "F26",
    "F27",
    "F28",
    "F29",
    "F30",
    "F31",
    "F32",
    "F33",
    "F34",
    "F35",
];

/// Whether `name` is a key name a mapping may use.
pub fn is_key_name(name: &str) -> bool {
    KEY_NAMES.contains(&name)
}

/// The keyboard's pad: the keys held and what they press.
#[derive(Clone, Debug, Default)]
pub struct Keyboard {
    map: KeyMap,
    /// Held mapped keys, as indices into the map's entries.
    held: Vec<usize>,
}

impl Keyboard {
    /// A keyboard pad with `map` (see [`KeyMap::default`] for the default layout).
    pub fn new(map: KeyMap) -> Keyboard {
        Keyboard {
            map,
            held: Vec::new(),
        }
    }

    /// A key went down or up; returns whether it is mapped. Repeats of a held key change
    /// nothing.
    pub fn key(&mut self, name: &str, pressed: bool) -> bool {
        let Some(i) = self.map.index_of(name) else {
            return false;
        };
        if pressed {
            if !self.held.contains(&i) {
                self.held.push(i);
            }
        } else {
            self.held.retain(|&h| h != i);
        }
        true
    }

    /// Releases every key (the window lost focus, say).
    pub fn release_all(&mut self) {
        self.held.clear();
    }

    /// The buttons the held keys press.
    pub fn buttons(&self) -> Buttons {
        self.held
            .iter()
            .fold(Buttons::NONE, |b, &i| b | self.map.entries()[i].1)
    }

    /// The digital report for the held keys: the two button bytes, active low.
    pub fn report(&self) -> PadReport {
        PadReport::digital(self.buttons())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_layout_presses_the_dpad_and_face_buttons() {
        let mut k = Keyboard::new(KeyMap::default());
        assert_eq!(k.report(), PadReport::IDLE);
        assert!(k.key("ArrowUp", true));
        assert!(k.key("KeyZ", true));
        assert_eq!(k.buttons(), Buttons::UP | Buttons::CROSS);
        assert_eq!(k.report().buttons, [0xef, 0xbf]);
        assert_eq!(k.report().sticks, None);
        assert!(k.key("KeyZ", true)); // a repeat
        assert!(k.key("KeyZ", false));
        assert_eq!(k.buttons(), Buttons::UP);
        assert!(!k.key("F7", true));
        k.release_all();
        assert_eq!(k.buttons(), Buttons::NONE);
    }

    #[test]
    fn two_keys_on_one_button_hold_it_until_both_are_up() {
        let map =
            KeyMap::from_pairs([("Space", Buttons::CROSS), ("KeyZ", Buttons::CROSS)]).unwrap();
        let mut k = Keyboard::new(map);
        k.key("Space", true);
        k.key("KeyZ", true);
        k.key("Space", false);
        assert_eq!(k.buttons(), Buttons::CROSS);
        k.key("KeyZ", false);
        assert_eq!(k.buttons(), Buttons::NONE);
    }

    #[test]
    fn key_names_are_winits() {
        for n in [
            "ArrowUp",
            "KeyX",
            "Enter",
            "Backspace",
            "Digit1",
            "Numpad5",
            "F12",
            "ShiftLeft",
            "Space",
        ] {
            assert!(is_key_name(n), "{n}");
        }
        assert!(!is_key_name("Up"));
        assert!(!is_key_name("x"));
    }
}
