//! Real pads through gilrs: [`GilrsDevices`] is the [`HostDevices`] over a `gilrs::Gilrs`, and
//! [`GilrsPads`] the [`PadBackend`](crate::PadBackend) over it.
//!
//! Force feedback: a level change builds one gilrs effect (a strong and a weak base effect
//! repeated without end) and plays it, then drops the previous one; `FfLevels::OFF` stops and
//! drops it. These are messages to gilrs's force-feedback thread, which writes the device, so
//! the caller never waits on hardware; and [`HostPads`] makes them only from `poll`, never from
//! `set_rumble`.

use std::collections::{BTreeMap, HashMap};

use gilrs::ff::{BaseEffect, BaseEffectType, Effect, EffectBuilder, Repeat, Replay, Ticks};
use gilrs::{Axis, Button, EventType, GamepadId, Gilrs};

use crate::GamepadMap;
use crate::backend::{DeviceId, FfLevels, HostButton, HostDevices, HostEvent, HostPads, HostState};

/// [`HostPads`] over gilrs.
pub type GilrsPads = HostPads<GilrsDevices>;

impl HostPads<GilrsDevices> {
    /// Opens gilrs; see [`GilrsDevices::new`].
    pub fn open(map: GamepadMap) -> Result<GilrsPads, String> {
        Ok(HostPads::new(GilrsDevices::new()?, map))
    }
}

/// The gilrs button for each [`HostButton`], in its order.
const BUTTONS: [Button; HostButton::COUNT] = [
    Button::South,
    Button::East,
    Button::North,
    Button::West,
    Button::LeftTrigger,
    Button::LeftTrigger2,
    Button::RightTrigger,
    Button::RightTrigger2,
    Button::Select,
    Button::Start,
    Button::Mode,
    Button::LeftThumb,
    Button::RightThumb,
    Button::DPadUp,
    Button::DPadDown,
    Button::DPadLeft,
    Button::DPadRight,
];

/// The host's gamepads as gilrs sees them.
pub struct GilrsDevices {
    gilrs: Gilrs,
    /// Connected gamepads reported so far.
    known: BTreeMap<DeviceId, GamepadId>,
    /// The effect playing on each gamepad that rumbles.
    effects: HashMap<DeviceId, Effect>,
}

impl GilrsDevices {
    /// Opens gilrs. On a platform gilrs does not support it still opens, with no pads. An
    /// error (gilrs could not start, e.g. no udev) says why.
    pub fn new() -> Result<GilrsDevices, String> {
        let gilrs = match Gilrs::new() {
            Ok(g) => g,
            Err(gilrs::Error::NotImplemented(g)) => g,
            Err(e) => return Err(format!("gamepads (gilrs): {e}")),
        };
        Ok(GilrsDevices {
            gilrs,
            known: BTreeMap::new(),
            effects: HashMap::new(),
        })
    }

    fn effect(&mut self, gid: GamepadId, levels: FfLevels) -> Result<Effect, gilrs::ff::Error> {
        // One second per round, repeated until stopped: held until the next send.
        let scheduling = Replay {
            after: Ticks::from_ms(0),
            play_for: Ticks::from_ms(1000),
            with_delay: Ticks::from_ms(0),
        };
        let base = |kind| BaseEffect {
            kind,
            scheduling,
            ..BaseEffect::default()
        };
        let effect = EffectBuilder::new()
            .add_effect(base(BaseEffectType::Strong {
                magnitude: levels.strong,
            }))
            .add_effect(base(BaseEffectType::Weak {
                magnitude: levels.weak,
            }))
            .repeat(Repeat::Infinitely)
            .gamepads(&[gid])
            .finish(&mut self.gilrs)?;
        effect.play()?;
        Ok(effect)
    }
}

impl HostDevices for GilrsDevices {
    fn poll(&mut self) -> Vec<HostEvent> {
        let mut out = Vec::new();
        // Draining the events also updates gilrs's state that `state` reads.
        while let Some(ev) = self.gilrs.next_event() {
            let id = usize::from(ev.id);
            match ev.event {
                EventType::Connected if !self.known.contains_key(&id) => {
                    if let Some(g) = self.gilrs.connected_gamepad(ev.id) {
                        out.push(HostEvent::Connected {
                            id,
                            name: g.name().to_string(),
                            ff: g.is_ff_supported(),
                        });
                        self.known.insert(id, ev.id);
                    }
                }
                EventType::Disconnected if self.known.remove(&id).is_some() => {
                    self.effects.remove(&id);
                    out.push(HostEvent::Disconnected { id });
                }
                _ => {}
            }
        }
        // Pads present before gilrs opened (or whose events were missed).
        let now: Vec<(DeviceId, GamepadId, String, bool)> = self
            .gilrs
            .gamepads()
            .map(|(gid, g)| {
                (
                    usize::from(gid),
                    gid,
                    g.name().to_string(),
                    g.is_ff_supported(),
                )
            })
            .collect();
        for (id, gid, name, ff) in &now {
            if !self.known.contains_key(id) {
                self.known.insert(*id, *gid);
                out.push(HostEvent::Connected {
                    id: *id,
                    name: name.clone(),
                    ff: *ff,
                });
            }
        }
        let gone: Vec<DeviceId> = self
            .known
            .keys()
            .filter(|id| !now.iter().any(|n| n.0 == **id))
            .copied()
            .collect();
        for id in gone {
            self.known.remove(&id);
            self.effects.remove(&id);
            out.push(HostEvent::Disconnected { id });
        }
        out
    }

    fn state(&self, id: DeviceId) -> Option<HostState> {
        let g = self.gilrs.connected_gamepad(*self.known.get(&id)?)?;
        let mut s = HostState::default();
        for (i, b) in BUTTONS.iter().enumerate() {
            s.pressed[i] = g.is_pressed(*b);
        }
        s.left = [g.value(Axis::LeftStickX), g.value(Axis::LeftStickY)];
        s.right = [g.value(Axis::RightStickX), g.value(Axis::RightStickY)];
        Some(s)
    }

    fn set_force_feedback(&mut self, id: DeviceId, levels: FfLevels) {
        if levels == FfLevels::OFF {
            if let Some(e) = self.effects.remove(&id) {
                // Dropping the last handle also ends it; stop first so it ends now.
                let _ = e.stop();
            }
            return;
        }
        let Some(&gid) = self.known.get(&id) else {
            return;
        };
        match self.effect(gid, levels) {
            // The old effect (if any) drops after the new one plays: no gap.
            Ok(e) => {
                self.effects.insert(id, e);
            }
            // Gone or without force feedback: no rumble; a disconnect is reported by `poll`.
            Err(_) => {
                self.effects.remove(&id);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Motors, PadBackend, Port};

    /// This machine has no pads (and no /dev/uinput for a virtual one): gilrs opens, finds
    /// none, and rumble for an empty port goes nowhere.
    #[test]
    fn opens_without_pads() {
        let mut pads = match GilrsPads::open(GamepadMap::default()) {
            Ok(p) => p,
            // No udev at all in this environment: an error naming gilrs, not a panic.
            Err(e) => return assert!(e.starts_with("gamepads (gilrs): "), "{e}"),
        };
        let events = pads.poll();
        if events.is_empty() {
            assert_eq!(pads.report(Port::One), None);
            pads.set_rumble(
                Port::One,
                Motors {
                    small: true,
                    large: 255,
                },
            );
            pads.poll();
        }
        assert_eq!(pads.host().state(usize::MAX), None);
    }

    #[test]
    fn host_buttons_follow_gilrs_order() {
        for (i, (_, h)) in HostButton::NAMED.iter().enumerate() {
            assert_eq!(h.index(), i);
        }
        assert_eq!(BUTTONS[HostButton::DPadRight.index()], Button::DPadRight);
        assert_eq!(
            BUTTONS[HostButton::LeftTrigger2.index()],
            Button::LeftTrigger2
        );
        assert_eq!(BUTTONS[HostButton::Mode.index()], Button::Mode);
    }
}
