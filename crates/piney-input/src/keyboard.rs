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

/// Pad reads a key press reaches at least: a key tapped (down and up between two reads, as
/// `xdotool key` or a quick finger does) or held for less still shows as pressed in this many
/// reads, so that a game reading its pads once every two vertical blanks (30 fps) sees it,
/// and a game reading every one sees it for one more. Held keys are not lengthened.
pub const MIN_PRESS_READS: u8 = 2;

/// The keyboard's pad: the keys held, the presses still shown after their key came up, and
/// what they press.
#[derive(Clone, Debug, Default)]
pub struct Keyboard {
    map: KeyMap,
    /// Held mapped keys, as indices into the map's entries, with the reads each has been
    /// shown in since it went down.
    held: Vec<(usize, u8)>,
    /// Keys that came up before [`MIN_PRESS_READS`] reads showed them: index and reads left.
    lingering: Vec<(usize, u8)>,
}

impl Keyboard {
    /// A keyboard pad with `map` (see [`KeyMap::default`] for the default layout).
    pub fn new(map: KeyMap) -> Keyboard {
        Keyboard {
            map,
            held: Vec::new(),
            lingering: Vec::new(),
        }
    }

    /// A key went down or up; returns whether it is mapped. Repeats of a held key change
    /// nothing. A key that comes up before [`MIN_PRESS_READS`] reads showed it stays shown
    /// until they have ([`Keyboard::read`]).
    pub fn key(&mut self, name: &str, pressed: bool) -> bool {
        let Some(i) = self.map.index_of(name) else {
            return false;
        };
        if pressed {
            if !self.held.iter().any(|&(h, _)| h == i) {
                // Pressed again while still shown: the reads it has had count on.
                let shown = match self.lingering.iter().position(|&(l, _)| l == i) {
                    Some(at) => MIN_PRESS_READS - self.lingering.swap_remove(at).1,
                    None => 0,
                };
                self.held.push((i, shown));
            }
        } else if let Some(at) = self.held.iter().position(|&(h, _)| h == i) {
            let (_, shown) = self.held.remove(at);
            if shown < MIN_PRESS_READS {
                self.lingering.push((i, MIN_PRESS_READS - shown));
            }
        }
        true
    }

    /// Releases every key at once, lingering presses too (the window lost focus, say).
    pub fn release_all(&mut self) {
        self.held.clear();
        self.lingering.clear();
    }

    /// The buttons shown now: the held keys' and the lingering presses'.
    pub fn buttons(&self) -> Buttons {
        self.held
            .iter()
            .chain(&self.lingering)
            .fold(Buttons::NONE, |b, &(i, _)| b | self.map.entries()[i].1)
    }

    /// The digital report shown now (the two button bytes, active low), without counting a
    /// read.
    pub fn report(&self) -> PadReport {
        PadReport::digital(self.buttons())
    }

    /// The report for one read of the pad (once a vertical blank): [`Keyboard::report`], then
    /// each press shown counts the read and a lingering press that has had its reads ends.
    pub fn read(&mut self) -> PadReport {
        let report = self.report();
        for (_, shown) in &mut self.held {
            *shown = shown.saturating_add(1);
        }
        for (_, left) in &mut self.lingering {
            *left -= 1;
        }
        self.lingering.retain(|&(_, left)| left > 0);
        report
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
        // Held through two reads: released at once (a shorter press lingers, below).
        k.read();
        k.read();
        assert!(k.key("KeyZ", false));
        assert_eq!(k.buttons(), Buttons::UP);
        assert!(!k.key("F7", true));
        k.release_all();
        assert_eq!(k.buttons(), Buttons::NONE);
    }

    #[test]
    fn a_tap_between_two_reads_shows_in_two_reads() {
        let mut k = Keyboard::new(KeyMap::default());
        assert_eq!(k.read(), PadReport::IDLE);
        // Down and up before the next read (`xdotool key Backspace`).
        k.key("Backspace", true);
        k.key("Backspace", false);
        let select = PadReport::digital(Buttons::SELECT);
        assert_eq!(k.read(), select);
        assert_eq!(k.read(), select);
        assert_eq!(k.read(), PadReport::IDLE);
        // Held for one read: shown in one more after it comes up.
        k.key("KeyZ", true);
        assert_eq!(k.read(), PadReport::digital(Buttons::CROSS));
        k.key("KeyZ", false);
        assert_eq!(k.read(), PadReport::digital(Buttons::CROSS));
        assert_eq!(k.read(), PadReport::IDLE);
        // Held for many reads: released at once.
        k.key("KeyZ", true);
        for _ in 0..5 {
            assert_eq!(k.read(), PadReport::digital(Buttons::CROSS));
        }
        k.key("KeyZ", false);
        assert_eq!(k.read(), PadReport::IDLE);
        // Tapped twice between reads, or again while lingering: never longer than two reads
        // from the first press.
        k.key("KeyZ", true);
        k.key("KeyZ", false);
        k.key("KeyZ", true);
        k.key("KeyZ", false);
        assert_eq!(k.read(), PadReport::digital(Buttons::CROSS));
        k.key("KeyZ", true);
        k.key("KeyZ", false);
        assert_eq!(k.read(), PadReport::digital(Buttons::CROSS));
        assert_eq!(k.read(), PadReport::IDLE);
        // Focus lost: lingering presses end too.
        k.key("KeyZ", true);
        k.key("KeyZ", false);
        k.release_all();
        assert_eq!(k.read(), PadReport::IDLE);
    }

    #[test]
    fn two_keys_on_one_button_hold_it_until_both_are_up() {
        let map =
            KeyMap::from_pairs([("Space", Buttons::CROSS), ("KeyZ", Buttons::CROSS)]).unwrap();
        let mut k = Keyboard::new(map);
        k.key("Space", true);
        k.key("KeyZ", true);
        k.read();
        k.read();
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
