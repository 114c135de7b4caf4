//! `ccPad::Read` (INF 0x00102d40): one frame's pad report turned into `direct`, `push`,
//! `unpush`, `repeat` and the sticks' direction and strength.

use std::f32::consts::PI;

use crate::Buttons;

/// Stick offsets up to this far from the centre count as none, on each axis separately.
pub const DEAD_ZONE: i32 = 48;
/// The centre of a stick axis byte.
pub const CENTRE: i32 = 128;
/// The steps past the dead zone that make full strength: 128 - 48, so a stick pushed fully
/// left or up on one axis reads 255 (and fully right or down, 79 steps, 251).
pub const STRENGTH_SPAN: f32 = 80.0;
/// Frames a combination stays held, after its first, with `repeat` empty.
pub const REPEAT_DELAY: u8 = 15;

/// A stick's (or the D-pad's) direction and strength as `ccPad` keeps them.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Stick {
    /// Radians, `atan2(-dx, dy)`: 0 down, pi/2 left, pi up, -pi/2 right.
    pub angle: f32,
    /// 0 (centred, or no direction) to 255.
    pub strength: u8,
}

/// One stick axis past the dead zone: 0 within 48 of the centre, else the signed steps
/// beyond it.
fn past_dead_zone(byte: u8) -> i32 {
    let d = byte as i32 - CENTRE;
    if d > DEAD_ZONE {
        d - DEAD_ZONE
    } else if d < -DEAD_ZONE {
        d + DEAD_ZONE
    } else {
        0
    }
}

/// `SetAnalogStick`: a stick's direction and strength, or `None` inside the dead zone.
///
/// The dead zone applies to each axis on its own ("a stick axis counts from 48 past the
/// centre"): the strength is 255 x the length of the vector of those per-axis remainders / 80,
/// truncated, at most 255. So (168, 168), 40 off on both axes, is inside, although 56 from the
/// centre. The angle comes from the raw offsets, except that a raw y of exactly 128 gives
/// angle 0 (down) whatever x is: the game tests the y offset before calling `atan2f` (quirk).
pub fn analog_stick(x: u8, y: u8) -> Option<Stick> {
    let (ax, ay) = (past_dead_zone(x), past_dead_zone(y));
    if ax == 0 && ay == 0 {
        return None;
    }
    let len = ((ax * ax + ay * ay) as f32).sqrt();
    // Truncation toward zero, as the FPU's cvt.w.s does; len > 0 so at least 3 (one step: 3.19).
    let strength = ((255.0 * len / STRENGTH_SPAN) as i32).min(255) as u8;
    let (dx, dy) = (x as i32 - CENTRE, y as i32 - CENTRE);
    let angle = if dy == 0 {
        0.0
    } else {
        ((-dx) as f32).atan2(dy as f32)
    };
    Some(Stick { angle, strength })
}

/// The D-pad bits the left stick presses at `angle`. The eighths are bounded by the odd
/// multiples of pi/8; the diagonals press both directions, except up-right, which presses
/// right alone (quirk). Integer stick offsets never land within f32 rounding of a bound
/// (tan(pi/8) is irrational and the nearest ratio of bytes, 53/128, is 7e-5 away), so the
/// comparisons are exact in effect.
pub fn eighth(angle: f32) -> Buttons {
    const E: f32 = PI / 8.0;
    if angle > 7.0 * E {
        Buttons::UP
    } else if angle > 5.0 * E {
        Buttons::UP | Buttons::LEFT
    } else if angle > 3.0 * E {
        Buttons::LEFT
    } else if angle > E {
        Buttons::DOWN | Buttons::LEFT
    } else if angle > -E {
        Buttons::DOWN
    } else if angle > -3.0 * E {
        Buttons::DOWN | Buttons::RIGHT
    } else if angle > -7.0 * E {
        // Both the right eighth (-5pi/8..-3pi/8) and the up-right one (-7pi/8..-5pi/8): right.
        Buttons::RIGHT
    } else {
        Buttons::UP
    }
}

/// The D-pad's own direction: 255 strength and the angle of the pressed direction(s), for
/// one direction or two adjacent ones. For none, or a combination no D-pad can make (up with
/// down, left with right, three or four), no direction: angle 0, strength 0. (The game looks
/// this up in a 16-entry table by bits 12-15; the "impossible" entries give no direction.)
pub fn dpad_direction(now: Buttons) -> Stick {
    let angle = match now.0 >> 12 {
        0x1 => PI,                    // up
        0x2 => -PI / 2.0,             // right
        0x3 => -3.0 * PI / 4.0,       // up right
        0x4 => 0.0,                   // down
        0x6 => -PI / 4.0,             // down right
        0x8 => PI / 2.0,              // left
        0x9 => 3.0 * PI / 4.0,        // up left
        0xc => PI / 4.0,              // down left
        _ => return Stick::default(), // none, or impossible
    };
    Stick {
        angle,
        strength: 255,
    }
}

/// `ccPad::Read`'s state for one pad: what the game reads each frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PadReader {
    /// Held now (after the stick's D-pad presses).
    pub direct: Buttons,
    /// Pressed this frame: `now & !direct`.
    pub push: Buttons,
    /// Released this frame: `direct & !now`.
    pub unpush: Buttons,
    /// `now` on a combination's first frame, nothing for the next 15 frames it stays held,
    /// then `now` every frame.
    pub repeat: Buttons,
    /// Frames the current combination has been held after its first, saturating at 15.
    pub repeat_count: u8,
    /// The left stick's direction and strength, or the D-pad's while the stick is inside the
    /// dead zone (and always in digital mode).
    pub left: Stick,
    /// The right stick's (0 in digital mode or inside the dead zone). It presses nothing.
    pub right: Stick,
}

impl PadReader {
    /// A pad read for the first time: nothing held.
    pub fn new() -> PadReader {
        PadReader::default()
    }

    /// One `ccPad::Read` of a report: `buttons` the two bytes as the pad sends them (active
    /// low), `sticks` the four stick bytes RX, RY, LX, LY when the pad is in analog mode.
    ///
    /// Choices where the rules are silent: with the stick outside the dead zone its own
    /// strength and angle are kept even when a held D-pad stops it pressing the D-pad (the
    /// D-pad gives the direction only while the stick is inside the dead zone); in digital
    /// mode the D-pad gives the direction as if the stick were centred.
    pub fn read(&mut self, buttons: [u8; 2], sticks: Option<[u8; 4]>) {
        let mut now = Buttons::from_report(buttons);
        match sticks {
            Some([rx, ry, lx, ly]) => {
                match analog_stick(lx, ly) {
                    Some(stick) => {
                        self.left = stick;
                        // The stick presses the D-pad only when no D-pad button is held.
                        if !now.intersects(Buttons::DPAD) {
                            now |= eighth(stick.angle);
                        }
                    }
                    None => self.left = dpad_direction(now),
                }
                self.right = analog_stick(rx, ry).unwrap_or_default();
            }
            None => {
                self.left = dpad_direction(now);
                self.right = Stick::default();
            }
        }
        self.push = now & !self.direct;
        self.unpush = self.direct & !now;
        if !now.is_empty() && now == self.direct {
            // The same combination held again: 15 quiet frames, then every frame.
            if self.repeat_count < REPEAT_DELAY {
                self.repeat_count += 1;
                self.repeat = Buttons::NONE;
            } else {
                self.repeat = now;
            }
        } else {
            // A new combination (or nothing held): repeat at once, count from the start.
            self.repeat = now;
            self.repeat_count = 0;
        }
        self.direct = now;
    }
}

impl PadReader {
    /// [`PadReader::read`] of a [`PadReport`](crate::PadReport) (from a host pad or the
    /// keyboard).
    pub fn read_report(&mut self, report: &crate::PadReport) {
        self.read(report.buttons, report.sticks);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CENTRED: [u8; 4] = [128, 128, 128, 128];

    fn left(lx: u8, ly: u8) -> PadReader {
        let mut r = PadReader::new();
        r.read([0xff, 0xff], Some([128, 128, lx, ly]));
        r
    }

    #[test]
    fn buttons_are_inverted_first_byte_high() {
        let mut r = PadReader::new();
        r.read([0x7f, 0xfe], None);
        assert_eq!(r.direct, Buttons::LEFT | Buttons::L2);
    }

    #[test]
    fn push_unpush_direct() {
        let mut r = PadReader::new();
        r.read(Buttons::CROSS.to_report(), None);
        assert_eq!(
            (r.direct, r.push, r.unpush),
            (Buttons::CROSS, Buttons::CROSS, Buttons::NONE)
        );
        r.read((Buttons::CROSS | Buttons::SQUARE).to_report(), None);
        assert_eq!((r.push, r.unpush), (Buttons::SQUARE, Buttons::NONE));
        r.read(Buttons::SQUARE.to_report(), None);
        assert_eq!(
            (r.direct, r.push, r.unpush),
            (Buttons::SQUARE, Buttons::NONE, Buttons::CROSS)
        );
        r.read([0xff, 0xff], None);
        assert_eq!(
            (r.direct, r.push, r.unpush),
            (Buttons::NONE, Buttons::NONE, Buttons::SQUARE)
        );
    }

    #[test]
    fn repeat_fires_first_then_waits_15_then_every_frame() {
        let mut r = PadReader::new();
        let x = Buttons::CROSS.to_report();
        r.read(x, None);
        assert_eq!(r.repeat, Buttons::CROSS);
        for frame in 0..15 {
            r.read(x, None);
            assert_eq!(r.repeat, Buttons::NONE, "quiet frame {frame}");
        }
        for _ in 0..40 {
            r.read(x, None);
            assert_eq!(r.repeat, Buttons::CROSS);
        }
        // A new combination starts over, even mid-repeat.
        let xo = (Buttons::CROSS | Buttons::CIRCLE).to_report();
        r.read(xo, None);
        assert_eq!(r.repeat, Buttons::CROSS | Buttons::CIRCLE);
        r.read(xo, None);
        assert_eq!(r.repeat, Buttons::NONE);
        // Nothing held: repeat empty and the count reset.
        r.read([0xff, 0xff], None);
        assert_eq!((r.repeat, r.repeat_count), (Buttons::NONE, 0));
        r.read([0xff, 0xff], None);
        assert_eq!((r.repeat, r.repeat_count), (Buttons::NONE, 0));
    }

    #[test]
    fn dead_zone_is_48_per_axis() {
        assert_eq!(analog_stick(128 + 48, 128), None);
        assert_eq!(analog_stick(128 - 48, 128 + 48), None);
        // 40 off on both axes: 56 from the centre, but inside on each axis.
        assert_eq!(analog_stick(168, 168), None);
        assert_eq!(analog_stick(128 + 49, 128).map(|s| s.strength), Some(3));
        assert_eq!(analog_stick(128 - 49, 128).map(|s| s.strength), Some(3));
        assert_eq!(left(168, 168).direct, Buttons::NONE);
    }

    #[test]
    fn strength_is_255_len_over_80_truncated_capped() {
        let s = |x, y| analog_stick(x, y).unwrap().strength;
        assert_eq!(s(0, 128), 255); // 80 steps
        assert_eq!(s(255, 128), 251); // 79 steps: 251.8
        assert_eq!(s(128, 216), 127); // 40 steps: 127.5
        assert_eq!(s(200, 200), 108); // 24 and 24: 33.94 -> 108.2
        assert_eq!(s(0, 0), 255); // 113 past: capped
    }

    #[test]
    fn eighths_and_the_up_right_quirk() {
        assert_eq!(left(128, 255).direct, Buttons::DOWN);
        assert_eq!(left(128, 0).direct, Buttons::UP);
        assert_eq!(left(0, 127).direct, Buttons::LEFT);
        assert_eq!(left(255, 127).direct, Buttons::RIGHT);
        assert_eq!(left(0, 0).direct, Buttons::UP | Buttons::LEFT);
        assert_eq!(left(0, 255).direct, Buttons::DOWN | Buttons::LEFT);
        assert_eq!(left(255, 255).direct, Buttons::DOWN | Buttons::RIGHT);
        // Quirk: up-right presses right alone.
        assert_eq!(left(255, 0).direct, Buttons::RIGHT);
        assert_eq!(left(200, 50).direct, Buttons::RIGHT);
        // Just either side of the bounds around up-right: up (past -7pi/8) and right.
        assert_eq!(left(150, 0).direct, Buttons::UP); // atan2(-22, -128): -2.97
        assert_eq!(eighth(-7.0 * PI / 8.0 + 0.001), Buttons::RIGHT);
        assert_eq!(eighth(-7.0 * PI / 8.0 - 0.001), Buttons::UP);
        assert_eq!(eighth(-5.0 * PI / 8.0 + 0.001), Buttons::RIGHT);
        assert_eq!(
            eighth(-3.0 * PI / 8.0 + 0.001),
            Buttons::DOWN | Buttons::RIGHT
        );
        assert_eq!(eighth(-PI / 8.0 + 0.001), Buttons::DOWN);
        assert_eq!(eighth(PI / 8.0 + 0.001), Buttons::DOWN | Buttons::LEFT);
        assert_eq!(eighth(3.0 * PI / 8.0 + 0.001), Buttons::LEFT);
        assert_eq!(eighth(5.0 * PI / 8.0 + 0.001), Buttons::UP | Buttons::LEFT);
        assert_eq!(eighth(7.0 * PI / 8.0 + 0.001), Buttons::UP);
        assert_eq!(eighth(PI), Buttons::UP);
        assert_eq!(eighth(-PI), Buttons::UP);
    }

    #[test]
    fn y_exactly_128_is_down() {
        // Straight right or left with y exactly centred: angle 0, down.
        let r = left(255, 128);
        assert_eq!(
            (r.direct, r.left.angle, r.left.strength),
            (Buttons::DOWN, 0.0, 251)
        );
        assert_eq!(left(0, 128).direct, Buttons::DOWN);
        // One step off centre in y: a real angle.
        assert_eq!(left(255, 129).direct, Buttons::RIGHT);
        assert_eq!(left(0, 127).direct, Buttons::LEFT);
    }

    #[test]
    fn angle_is_atan2_minus_dx_dy() {
        let a = |x, y| analog_stick(x, y).unwrap().angle;
        assert_eq!(a(128, 255), 0.0);
        assert!((a(128, 0) - PI).abs() < 1e-6);
        assert!((a(0, 127) - PI / 2.0).abs() < 0.01);
        assert!((a(255, 129) + PI / 2.0).abs() < 0.01);
    }

    #[test]
    fn a_held_dpad_wins_over_the_stick() {
        let mut r = PadReader::new();
        r.read(Buttons::LEFT.to_report(), Some([128, 128, 128, 255]));
        assert_eq!(r.direct, Buttons::LEFT);
        // The stick, outside the dead zone, still gives its strength and angle.
        assert_eq!((r.left.angle, r.left.strength), (0.0, 251));
        // Other buttons do not stop the stick.
        r.read(Buttons::CROSS.to_report(), Some([128, 128, 128, 255]));
        assert_eq!(r.direct, Buttons::CROSS | Buttons::DOWN);
    }

    #[test]
    fn dpad_gives_direction_inside_the_dead_zone_and_in_digital_mode() {
        let mut r = PadReader::new();
        r.read(Buttons::UP.to_report(), Some(CENTRED));
        assert_eq!((r.left.angle, r.left.strength), (PI, 255));
        r.read((Buttons::DOWN | Buttons::RIGHT).to_report(), None);
        assert_eq!((r.left.angle, r.left.strength), (-PI / 4.0, 255));
        r.read(Buttons::CROSS.to_report(), None);
        assert_eq!((r.left.angle, r.left.strength), (0.0, 0));
        r.read((Buttons::UP | Buttons::DOWN).to_report(), Some(CENTRED));
        assert_eq!(r.left.strength, 0);
        r.read([0xff, 0xff], Some(CENTRED));
        assert_eq!(r.left, Stick::default());
    }

    #[test]
    fn right_stick_reads_but_presses_nothing() {
        let mut r = PadReader::new();
        r.read([0xff, 0xff], Some([0, 128, 128, 128]));
        assert_eq!(r.direct, Buttons::NONE);
        assert_eq!(r.right.strength, 255);
        assert_eq!(r.left.strength, 0);
        r.read([0xff, 0xff], None);
        assert_eq!(r.right, Stick::default());
    }

    #[test]
    fn stick_presses_count_as_buttons_for_push_and_repeat() {
        let mut r = PadReader::new();
        r.read([0xff, 0xff], Some([128, 128, 128, 0]));
        assert_eq!((r.push, r.repeat), (Buttons::UP, Buttons::UP));
        r.read([0xff, 0xff], Some([128, 128, 128, 10]));
        assert_eq!((r.push, r.repeat), (Buttons::NONE, Buttons::NONE));
        r.read([0xff, 0xff], Some([128, 128, 128, 128]));
        assert_eq!(r.unpush, Buttons::UP);
    }

    /// Every stick position against an independent classification in f64 by slopes (no
    /// atan2): the eighth bounds at tan(pi/8) and tan(3pi/8), the dead zone, both quirks, and
    /// the strength truncated from 255 x length / 80.
    #[test]
    fn every_stick_position_matches_a_slope_classification() {
        let t = (std::f64::consts::PI / 8.0).tan();
        for lx in 0..=255u8 {
            for ly in 0..=255u8 {
                let (dx, dy) = (lx as i32 - 128, ly as i32 - 128);
                let axis = |d: i32| {
                    if d.abs() > 48 {
                        (d.abs() - 48) * d.signum()
                    } else {
                        0
                    }
                };
                let (ax, ay) = (axis(dx), axis(dy));
                let got = left(lx, ly);
                if ax == 0 && ay == 0 {
                    assert_eq!(
                        (got.direct, got.left.strength),
                        (Buttons::NONE, 0),
                        "({lx}, {ly})"
                    );
                    continue;
                }
                let len = ((ax * ax + ay * ay) as f64).sqrt();
                let strength = (255.0 * len / 80.0).min(255.0) as u8;
                // u: leftwards, v: downwards.
                let (u, v) = (-dx as f64, dy as f64);
                let want = if dy == 0 {
                    Buttons::DOWN
                } else if u.abs() < t * v.abs() {
                    if v > 0.0 { Buttons::DOWN } else { Buttons::UP }
                } else if v.abs() < t * u.abs() {
                    if u > 0.0 {
                        Buttons::LEFT
                    } else {
                        Buttons::RIGHT
                    }
                } else {
                    match (u > 0.0, v > 0.0) {
                        (true, true) => Buttons::DOWN | Buttons::LEFT,
                        (true, false) => Buttons::UP | Buttons::LEFT,
                        (false, true) => Buttons::DOWN | Buttons::RIGHT,
                        (false, false) => Buttons::RIGHT,
                    }
                };
                assert_eq!(
                    (got.direct, got.left.strength),
                    (want, strength),
                    "({lx}, {ly})"
                );
            }
        }
    }
}
