//! The PS2 pad's button bits as `ccPad` holds them (`direct`, `push`, ...), and their names.

/// A set of PS2 pad buttons, active high, in the bit layout `ccPad::Read` builds: the pad's
/// first report byte in bits 8-15, the second in bits 0-7 (both inverted, since the pad reports
/// active low).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Buttons(pub u16);

impl Buttons {
    /// No button.
    pub const NONE: Buttons = Buttons(0);
    /// L2 (second byte, bit 0).
    pub const L2: Buttons = Buttons(0x0001);
    /// R2.
    pub const R2: Buttons = Buttons(0x0002);
    /// L1.
    pub const L1: Buttons = Buttons(0x0004);
    /// R1.
    pub const R1: Buttons = Buttons(0x0008);
    /// Triangle.
    pub const TRIANGLE: Buttons = Buttons(0x0010);
    /// Circle.
    pub const CIRCLE: Buttons = Buttons(0x0020);
    /// Cross.
    pub const CROSS: Buttons = Buttons(0x0040);
    /// Square.
    pub const SQUARE: Buttons = Buttons(0x0080);
    /// Select (first byte, bit 0).
    pub const SELECT: Buttons = Buttons(0x0100);
    /// L3, the left stick pressed.
    pub const L3: Buttons = Buttons(0x0200);
    /// R3, the right stick pressed.
    pub const R3: Buttons = Buttons(0x0400);
    /// Start.
    pub const START: Buttons = Buttons(0x0800);
    /// D-pad up.
    pub const UP: Buttons = Buttons(0x1000);
    /// D-pad right.
    pub const RIGHT: Buttons = Buttons(0x2000);
    /// D-pad down.
    pub const DOWN: Buttons = Buttons(0x4000);
    /// D-pad left.
    pub const LEFT: Buttons = Buttons(0x8000);
    /// The four D-pad bits, which the left stick can also press.
    pub const DPAD: Buttons = Buttons(0xf000);

    /// Every button with its name, as input files and mapping files spell them.
    pub const NAMED: [(&'static str, Buttons); 16] = [
        ("l2", Buttons::L2),
        ("r2", Buttons::R2),
        ("l1", Buttons::L1),
        ("r1", Buttons::R1),
        ("triangle", Buttons::TRIANGLE),
        ("circle", Buttons::CIRCLE),
        ("cross", Buttons::CROSS),
        ("square", Buttons::SQUARE),
        ("select", Buttons::SELECT),
        ("l3", Buttons::L3),
        ("r3", Buttons::R3),
        ("start", Buttons::START),
        ("up", Buttons::UP),
        ("right", Buttons::RIGHT),
        ("down", Buttons::DOWN),
        ("left", Buttons::LEFT),
    ];

    /// The button named `name` (lower case, as in [`Buttons::NAMED`]).
    pub fn from_name(name: &str) -> Option<Buttons> {
        Buttons::NAMED
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, b)| b)
    }

    /// The raw bits.
    pub const fn bits(self) -> u16 {
        self.0
    }

    /// True when no bit is set.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// True when any bit of `other` is set here.
    pub const fn intersects(self, other: Buttons) -> bool {
        self.0 & other.0 != 0
    }

    /// True when every bit of `other` is set here.
    pub const fn contains(self, other: Buttons) -> bool {
        self.0 & other.0 == other.0
    }

    /// The two report bytes a pad would send for these buttons held (active low, first byte
    /// from bits 8-15).
    pub const fn to_report(self) -> [u8; 2] {
        [!(self.0 >> 8) as u8, !self.0 as u8]
    }

    /// The buttons held in a pad's two report bytes (active low): what `ccPad::Read` inverts.
    pub const fn from_report(bytes: [u8; 2]) -> Buttons {
        Buttons(!(((bytes[0] as u16) << 8) | bytes[1] as u16))
    }
}

impl std::ops::BitOr for Buttons {
    type Output = Buttons;
    fn bitor(self, rhs: Buttons) -> Buttons {
        Buttons(self.0 | rhs.0)
    }
}

impl std::ops::BitOrAssign for Buttons {
    fn bitor_assign(&mut self, rhs: Buttons) {
        self.0 |= rhs.0;
    }
}

impl std::ops::BitAnd for Buttons {
    type Output = Buttons;
    fn bitand(self, rhs: Buttons) -> Buttons {
        Buttons(self.0 & rhs.0)
    }
}

impl std::ops::Not for Buttons {
    type Output = Buttons;
    fn not(self) -> Buttons {
        Buttons(!self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_bytes_are_active_low_first_byte_high() {
        // Cross is bit 6 of the second byte; up bit 4 of the first.
        assert_eq!(Buttons::from_report([0xff, 0xbf]), Buttons::CROSS);
        assert_eq!(Buttons::from_report([0xef, 0xff]), Buttons::UP);
        assert_eq!(Buttons::from_report([0xff, 0xff]), Buttons::NONE);
        assert_eq!(Buttons::from_report([0x00, 0x00]), Buttons(0xffff));
        assert_eq!((Buttons::UP | Buttons::CROSS).to_report(), [0xef, 0xbf]);
        for (name, b) in Buttons::NAMED {
            assert_eq!(Buttons::from_name(name), Some(b));
            assert_eq!(Buttons::from_report(b.to_report()), b);
        }
        assert_eq!(Buttons::from_name("x"), None);
        let all = Buttons::NAMED
            .iter()
            .fold(Buttons::NONE, |a, &(_, b)| a | b);
        assert_eq!(all, Buttons(0xffff));
    }
}
