//! Host pads behind one trait: [`PadBackend`] hands out, per PS2 port, the report a DualShock 2
//! would send, and takes what `ccPad::Ctrl` sends to the motors.
//!
//! [`HostPads`] implements it over any [`HostDevices`] (the raw host: devices coming and going,
//! their buttons and sticks, their force feedback): it assigns devices to ports 1 and 2 (a
//! device that arrives while both are taken waits for one to free), maps buttons through a
//! [`GamepadMap`], scales sticks to bytes, and turns motor sends into force-feedback levels.
//! The real host is gilrs ([`crate::GilrsDevices`]); [`FakeDevices`] is a scripted one for tests.
//!
//! Rumble is deferred: [`PadBackend::set_rumble`] only records the motors (the frame loop's
//! cost is a store), and the next [`PadBackend::poll`] hands changed levels to the host. With
//! gilrs that is a message to gilrs's own force-feedback thread, which drives the device; the
//! frame loop never waits on a device. Levels are held until the next send; a disconnect stops
//! them (and clears the port's rumble, so a pad plugged in later starts still), and so does
//! dropping the [`HostPads`].

use std::sync::{Arc, Mutex, MutexGuard};

use crate::{Buttons, GamepadMap, Motors};

/// A PS2 controller port.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Port {
    /// Port 1 (`ccPad` 0).
    One = 0,
    /// Port 2 (`ccPad` 1).
    Two = 1,
}

impl Port {
    /// Both ports, in order.
    pub const ALL: [Port; 2] = [Port::One, Port::Two];

    /// 0 for port 1, 1 for port 2.
    pub const fn index(self) -> usize {
        self as usize
    }
}

/// One frame's report of a pad, as a DualShock 2 sends it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PadReport {
    /// The two button bytes, active low (the first holds select..left, the second L2..square).
    pub buttons: [u8; 2],
    /// RX, RY, LX, LY (128 centred, 0 left / up) in analog mode; `None` in digital mode.
    pub sticks: Option<[u8; 4]>,
}

impl PadReport {
    /// Nothing held, digital mode.
    pub const IDLE: PadReport = PadReport {
        buttons: [0xff, 0xff],
        sticks: None,
    };

    /// A digital-mode report of `held`.
    pub const fn digital(held: Buttons) -> PadReport {
        PadReport {
            buttons: held.to_report(),
            sticks: None,
        }
    }

    /// The buttons held (active high).
    pub const fn held(&self) -> Buttons {
        Buttons::from_report(self.buttons)
    }

    /// Two reports as one pad (say, a gamepad and the keyboard on port 1): the buttons of
    /// either held, the sticks of the first that has them.
    pub fn merge(self, other: PadReport) -> PadReport {
        PadReport {
            buttons: [
                self.buttons[0] & other.buttons[0],
                self.buttons[1] & other.buttons[1],
            ],
            sticks: self.sticks.or(other.sticks),
        }
    }
}

/// A change of what is plugged into a port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PortEvent {
    /// A pad now serves `port`.
    Connected {
        /// The port.
        port: Port,
        /// The device's name, for the log.
        name: String,
        /// Whether it can rumble.
        rumble: bool,
    },
    /// The pad on `port` went away.
    Disconnected {
        /// The port.
        port: Port,
    },
}

/// Pads per PS2 port, wherever they come from.
pub trait PadBackend {
    /// Takes in what the host has to say (pads connected or lost, buttons, sticks) and hands
    /// changed rumble to the devices. Call once a frame, before [`PadBackend::report`].
    fn poll(&mut self) -> Vec<PortEvent>;
    /// The report of the pad on `port`, or `None` with no pad there.
    fn report(&self, port: Port) -> Option<PadReport>;
    /// What `ccPad::Ctrl` sent to the motors of the pad on `port`; held until the next send.
    /// Applied at the next [`PadBackend::poll`]. A port without a pad, or a pad without force
    /// feedback, ignores it.
    fn set_rumble(&mut self, port: Port, motors: Motors);
}

/// A host device's id, as its [`HostDevices`] numbers it.
pub type DeviceId = usize;

/// Buttons of a host gamepad in the usual (Xbox / DualShock) layout, named by position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HostButton {
    /// The bottom face button (cross on a DualShock, A on an Xbox pad).
    South,
    /// The right face button.
    East,
    /// The top face button.
    North,
    /// The left face button.
    West,
    /// The upper left shoulder.
    LeftTrigger,
    /// The lower left shoulder (trigger).
    LeftTrigger2,
    /// The upper right shoulder.
    RightTrigger,
    /// The lower right shoulder (trigger).
    RightTrigger2,
    /// Select / Share / Back.
    Select,
    /// Start / Options.
    Start,
    /// The logo button.
    Mode,
    /// The left stick pressed.
    LeftThumb,
    /// The right stick pressed.
    RightThumb,
    /// D-pad up.
    DPadUp,
    /// D-pad down.
    DPadDown,
    /// D-pad left.
    DPadLeft,
    /// D-pad right.
    DPadRight,
}

impl HostButton {
    /// How many there are.
    pub const COUNT: usize = 17;

    /// Every host button with its name in mapping files.
    pub const NAMED: [(&'static str, HostButton); HostButton::COUNT] = [
        ("south", HostButton::South),
        ("east", HostButton::East),
        ("north", HostButton::North),
        ("west", HostButton::West),
        ("left_trigger", HostButton::LeftTrigger),
        ("left_trigger2", HostButton::LeftTrigger2),
        ("right_trigger", HostButton::RightTrigger),
        ("right_trigger2", HostButton::RightTrigger2),
        ("select", HostButton::Select),
        ("start", HostButton::Start),
        ("mode", HostButton::Mode),
        ("left_thumb", HostButton::LeftThumb),
        ("right_thumb", HostButton::RightThumb),
        ("dpad_up", HostButton::DPadUp),
        ("dpad_down", HostButton::DPadDown),
        ("dpad_left", HostButton::DPadLeft),
        ("dpad_right", HostButton::DPadRight),
    ];

    /// The button named `name`.
    pub fn from_name(name: &str) -> Option<HostButton> {
        HostButton::NAMED
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, b)| b)
    }

    /// Its index in [`HostState::pressed`].
    pub const fn index(self) -> usize {
        self as usize
    }
}

/// What a host gamepad holds now.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HostState {
    /// Pressed, by [`HostButton::index`].
    pub pressed: [bool; HostButton::COUNT],
    /// The left stick: x -1 (left) to 1 (right), y -1 (down) to 1 (up), as gilrs reports it.
    pub left: [f32; 2],
    /// The right stick, likewise.
    pub right: [f32; 2],
}

impl HostState {
    /// Presses or releases `button`.
    pub fn set(&mut self, button: HostButton, pressed: bool) {
        self.pressed[button.index()] = pressed;
    }
}

/// A host stick axis (-1..1, up or right positive) as a DualShock byte: 128 centred, 0 at -1,
/// 255 at 1, rounded; out-of-range values are clamped and NaN reads as centred.
pub fn axis_byte(v: f32) -> u8 {
    if v.is_nan() {
        return 128;
    }
    let v = v.clamp(-1.0, 1.0);
    let off = if v >= 0.0 {
        (v * 127.0).round()
    } else {
        (v * 128.0).round()
    };
    (128.0 + off) as u8
}

/// Force-feedback motor levels: what the host's two motors are told.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FfLevels {
    /// The strong (low-frequency) motor, from the large motor's power.
    pub strong: u16,
    /// The weak (high-frequency) motor, from the small motor.
    pub weak: u16,
}

impl FfLevels {
    /// Both still.
    pub const OFF: FfLevels = FfLevels { strong: 0, weak: 0 };

    /// The levels for a send: the small motor (on or off) as the weak motor at full strength,
    /// the large motor's power (0-255) as the strong motor's magnitude (x 257, so 255 is full).
    pub const fn from_motors(m: Motors) -> FfLevels {
        FfLevels {
            strong: m.large as u16 * 257,
            weak: if m.small { u16::MAX } else { 0 },
        }
    }
}

/// Something that happened to the host's devices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HostEvent {
    /// A device appeared.
    Connected {
        /// Its id.
        id: DeviceId,
        /// Its name.
        name: String,
        /// Whether it supports force feedback.
        ff: bool,
    },
    /// A device went away.
    Disconnected {
        /// Its id.
        id: DeviceId,
    },
}

/// The raw host: its gamepads and their motors.
pub trait HostDevices {
    /// Devices that came or went since the last call, in order (every device present at the
    /// start comes as `Connected` on the first call). Also takes in input events.
    fn poll(&mut self) -> Vec<HostEvent>;
    /// A connected device's buttons and sticks.
    fn state(&self, id: DeviceId) -> Option<HostState>;
    /// Plays `levels` on a device until the next call; [`FfLevels::OFF`] stops it. Never
    /// blocks on the device. Failures (the device just went, say) are dropped: the device's
    /// `Disconnected` follows.
    fn set_force_feedback(&mut self, id: DeviceId, levels: FfLevels);
}

/// A device serving a port.
#[derive(Clone, Debug)]
struct Slot {
    id: DeviceId,
    ff: bool,
    /// What the device plays now.
    playing: FfLevels,
}

/// [`PadBackend`] over a [`HostDevices`]: port assignment, hot-plug, button mapping, sticks
/// and rumble.
pub struct HostPads<H: HostDevices> {
    host: H,
    map: GamepadMap,
    ports: [Option<Slot>; 2],
    /// Connected devices without a port, oldest first: (id, name, ff).
    waiting: Vec<(DeviceId, String, bool)>,
    /// What `ccPad::Ctrl` last sent, per port.
    wanted: [FfLevels; 2],
}

impl<H: HostDevices> HostPads<H> {
    /// Pads from `host`, buttons mapped by `map`. Nothing is connected until the first poll.
    pub fn new(host: H, map: GamepadMap) -> HostPads<H> {
        HostPads {
            host,
            map,
            ports: [None, None],
            waiting: Vec::new(),
            wanted: [FfLevels::OFF; 2],
        }
    }

    /// The host underneath.
    pub fn host(&self) -> &H {
        &self.host
    }

    /// The host underneath, mutably.
    pub fn host_mut(&mut self) -> &mut H {
        &mut self.host
    }

    /// The device serving `port`, if any.
    pub fn device(&self, port: Port) -> Option<DeviceId> {
        self.ports[port.index()].as_ref().map(|s| s.id)
    }

    /// Replaces the button mapping.
    pub fn set_map(&mut self, map: GamepadMap) {
        self.map = map;
    }

    fn assign(&mut self, id: DeviceId, name: String, ff: bool, events: &mut Vec<PortEvent>) {
        if let Some(port) = Port::ALL
            .into_iter()
            .find(|p| self.ports[p.index()].is_none())
        {
            self.ports[port.index()] = Some(Slot {
                id,
                ff,
                playing: FfLevels::OFF,
            });
            self.wanted[port.index()] = FfLevels::OFF;
            events.push(PortEvent::Connected {
                port,
                name,
                rumble: ff,
            });
        } else {
            self.waiting.push((id, name, ff));
        }
    }
}

impl<H: HostDevices> PadBackend for HostPads<H> {
    fn poll(&mut self) -> Vec<PortEvent> {
        let mut events = Vec::new();
        for ev in self.host.poll() {
            match ev {
                HostEvent::Connected { id, name, ff } => {
                    let known = self.ports.iter().flatten().any(|s| s.id == id)
                        || self.waiting.iter().any(|w| w.0 == id);
                    if !known {
                        self.assign(id, name, ff, &mut events);
                    }
                }
                HostEvent::Disconnected { id } => {
                    self.waiting.retain(|w| w.0 != id);
                    let Some(port) = Port::ALL
                        .into_iter()
                        .find(|p| self.ports[p.index()].as_ref().is_some_and(|s| s.id == id))
                    else {
                        continue;
                    };
                    if let Some(slot) = self.ports[port.index()].take()
                        && slot.playing != FfLevels::OFF
                    {
                        self.host.set_force_feedback(slot.id, FfLevels::OFF);
                    }
                    self.wanted[port.index()] = FfLevels::OFF;
                    events.push(PortEvent::Disconnected { port });
                    if !self.waiting.is_empty() {
                        let (id, name, ff) = self.waiting.remove(0);
                        self.assign(id, name, ff, &mut events);
                    }
                }
            }
        }
        for port in Port::ALL {
            let wanted = self.wanted[port.index()];
            if let Some(slot) = &mut self.ports[port.index()]
                && slot.ff
                && slot.playing != wanted
            {
                self.host.set_force_feedback(slot.id, wanted);
                slot.playing = wanted;
            }
        }
        events
    }

    fn report(&self, port: Port) -> Option<PadReport> {
        let slot = self.ports[port.index()].as_ref()?;
        let state = self.host.state(slot.id)?;
        let held = self.map.buttons(&state.pressed);
        let sticks = [
            axis_byte(state.right[0]),
            axis_byte(-state.right[1]),
            axis_byte(state.left[0]),
            axis_byte(-state.left[1]),
        ];
        Some(PadReport {
            buttons: held.to_report(),
            sticks: Some(sticks),
        })
    }

    fn set_rumble(&mut self, port: Port, motors: Motors) {
        if self.ports[port.index()].is_some() {
            self.wanted[port.index()] = FfLevels::from_motors(motors);
        }
    }
}

impl<H: HostDevices> Drop for HostPads<H> {
    /// Stops every motor still running.
    fn drop(&mut self) {
        for slot in self.ports.iter().flatten() {
            if slot.playing != FfLevels::OFF {
                self.host.set_force_feedback(slot.id, FfLevels::OFF);
            }
        }
    }
}

/// What a [`FakeDevices`] holds, shared between its clones.
#[derive(Debug, Default)]
pub struct FakeHost {
    /// Connected devices: id, name, force feedback, state.
    pub devices: Vec<(DeviceId, String, bool, HostState)>,
    /// Events not yet polled.
    pub pending: Vec<HostEvent>,
    /// Every force-feedback call, in order.
    pub ff_log: Vec<(DeviceId, FfLevels)>,
}

/// A scripted host for tests: clones share one [`FakeHost`], so a test keeps a handle while a
/// [`HostPads`] owns another.
#[derive(Clone, Debug, Default)]
pub struct FakeDevices {
    shared: Arc<Mutex<FakeHost>>,
}

impl FakeDevices {
    /// No devices.
    pub fn new() -> FakeDevices {
        FakeDevices::default()
    }

    /// The shared state (a poisoned lock is taken over: the fake holds no invariants).
    pub fn lock(&self) -> MutexGuard<'_, FakeHost> {
        self.shared.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Plugs in device `id`.
    pub fn connect(&self, id: DeviceId, name: &str, ff: bool) {
        let mut h = self.lock();
        h.devices
            .push((id, name.to_string(), ff, HostState::default()));
        h.pending.push(HostEvent::Connected {
            id,
            name: name.to_string(),
            ff,
        });
    }

    /// Unplugs device `id`.
    pub fn disconnect(&self, id: DeviceId) {
        let mut h = self.lock();
        h.devices.retain(|d| d.0 != id);
        h.pending.push(HostEvent::Disconnected { id });
    }

    /// Changes what device `id` holds.
    pub fn update(&self, id: DeviceId, f: impl FnOnce(&mut HostState)) {
        if let Some(d) = self.lock().devices.iter_mut().find(|d| d.0 == id) {
            f(&mut d.3);
        }
    }

    /// Every force-feedback call so far.
    pub fn ff_log(&self) -> Vec<(DeviceId, FfLevels)> {
        self.lock().ff_log.clone()
    }

    /// What device `id` plays now (its last force-feedback call).
    pub fn playing(&self, id: DeviceId) -> FfLevels {
        self.lock()
            .ff_log
            .iter()
            .rev()
            .find(|c| c.0 == id)
            .map_or(FfLevels::OFF, |c| c.1)
    }
}

impl HostDevices for FakeDevices {
    fn poll(&mut self) -> Vec<HostEvent> {
        std::mem::take(&mut self.lock().pending)
    }

    fn state(&self, id: DeviceId) -> Option<HostState> {
        self.lock().devices.iter().find(|d| d.0 == id).map(|d| d.3)
    }

    fn set_force_feedback(&mut self, id: DeviceId, levels: FfLevels) {
        self.lock().ff_log.push((id, levels));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ActuatorQueue;

    fn pads() -> (FakeDevices, HostPads<FakeDevices>) {
        let fake = FakeDevices::new();
        (fake.clone(), HostPads::new(fake, GamepadMap::default()))
    }

    #[test]
    fn axis_bytes() {
        assert_eq!(axis_byte(0.0), 128);
        assert_eq!(axis_byte(1.0), 255);
        assert_eq!(axis_byte(-1.0), 0);
        assert_eq!(axis_byte(2.0), 255);
        assert_eq!(axis_byte(-7.0), 0);
        assert_eq!(axis_byte(f32::NAN), 128);
        assert_eq!(axis_byte(0.5), 192); // 128 + 63.5 rounded
        assert_eq!(axis_byte(-0.5), 64);
    }

    #[test]
    fn levels_from_motors() {
        assert_eq!(
            FfLevels::from_motors(Motors {
                small: true,
                large: 0
            }),
            FfLevels {
                strong: 0,
                weak: 65535
            }
        );
        assert_eq!(
            FfLevels::from_motors(Motors {
                small: false,
                large: 255
            }),
            FfLevels {
                strong: 65535,
                weak: 0
            }
        );
        assert_eq!(
            FfLevels::from_motors(Motors {
                small: false,
                large: 160
            }),
            FfLevels {
                strong: 41120,
                weak: 0
            }
        );
        assert_eq!(FfLevels::from_motors(Motors::OFF), FfLevels::OFF);
    }

    #[test]
    fn reports_map_buttons_and_scale_sticks() {
        let (fake, mut p) = pads();
        assert_eq!(p.report(Port::One), None);
        fake.connect(7, "pad", false);
        assert_eq!(
            p.poll(),
            [PortEvent::Connected {
                port: Port::One,
                name: "pad".into(),
                rumble: false
            }]
        );
        assert_eq!(
            p.report(Port::One),
            Some(PadReport {
                buttons: [0xff, 0xff],
                sticks: Some([128; 4])
            })
        );
        fake.update(7, |s| {
            s.set(HostButton::South, true);
            s.set(HostButton::DPadUp, true);
            s.set(HostButton::LeftTrigger2, true);
            s.left = [-1.0, 1.0]; // left and up
            s.right = [1.0, -1.0]; // right and down
        });
        p.poll();
        let r = p.report(Port::One).unwrap();
        assert_eq!(r.held(), Buttons::CROSS | Buttons::UP | Buttons::L2);
        assert_eq!(r.sticks, Some([255, 255, 0, 0]));
        assert_eq!(p.report(Port::Two), None);
    }

    #[test]
    fn ports_fill_in_order_and_hot_plug_is_not_fatal() {
        let (fake, mut p) = pads();
        fake.connect(1, "a", true);
        fake.connect(2, "b", true);
        fake.connect(3, "c", false);
        let ev = p.poll();
        assert_eq!(ev.len(), 2);
        assert_eq!(
            (p.device(Port::One), p.device(Port::Two)),
            (Some(1), Some(2))
        );
        // Port 1's pad goes: the waiting one takes the port.
        fake.disconnect(1);
        assert_eq!(
            p.poll(),
            [
                PortEvent::Disconnected { port: Port::One },
                PortEvent::Connected {
                    port: Port::One,
                    name: "c".into(),
                    rumble: false
                }
            ]
        );
        assert_eq!(p.device(Port::One), Some(3));
        fake.disconnect(3);
        fake.disconnect(2);
        p.poll();
        assert_eq!((p.report(Port::One), p.report(Port::Two)), (None, None));
        // Unknown disconnects and repeated connects are ignored.
        fake.disconnect(99);
        assert_eq!(p.poll(), []);
        fake.connect(4, "d", true);
        fake.lock().pending.push(HostEvent::Connected {
            id: 4,
            name: "d".into(),
            ff: true,
        });
        assert_eq!(p.poll().len(), 1);
        assert_eq!(p.device(Port::One), Some(4));
    }

    #[test]
    fn sends_become_force_feedback_held_until_the_next() {
        let (fake, mut p) = pads();
        fake.connect(5, "ds", true);
        p.poll();
        let mut q = ActuatorQueue::new();
        q.set_actuater(true, 160, 200);
        let sent = q.ctrl().unwrap();
        p.set_rumble(Port::One, sent);
        assert_eq!(
            fake.ff_log(),
            [],
            "applied at the next poll, not in set_rumble"
        );
        p.poll();
        assert_eq!(
            fake.ff_log(),
            [(
                5,
                FfLevels {
                    strong: 160 * 257,
                    weak: 65535
                }
            )]
        );
        // Held: polls without a new send change nothing.
        p.poll();
        p.poll();
        assert_eq!(fake.ff_log().len(), 1);
        // The same levels again: nothing to tell the device.
        p.set_rumble(Port::One, sent);
        p.poll();
        assert_eq!(fake.ff_log().len(), 1);
        // The queue runs out: ccPad::Ctrl sends both off.
        for _ in 0..7 {
            q.tick(2);
        }
        q.ctrl(); // the wait after the first send
        let off = q.ctrl().unwrap();
        assert_eq!(off, Motors::OFF);
        p.set_rumble(Port::One, off);
        p.poll();
        assert_eq!(fake.playing(5), FfLevels::OFF);
        assert_eq!(fake.ff_log().len(), 2);
    }

    #[test]
    fn a_disconnect_stops_the_motors() {
        let (fake, mut p) = pads();
        fake.connect(5, "ds", true);
        fake.connect(6, "other", true);
        p.poll();
        p.set_rumble(
            Port::One,
            Motors {
                small: false,
                large: 255,
            },
        );
        p.set_rumble(
            Port::Two,
            Motors {
                small: true,
                large: 0,
            },
        );
        p.poll();
        assert_eq!(
            fake.playing(5),
            FfLevels {
                strong: 65535,
                weak: 0
            }
        );
        fake.disconnect(5);
        assert_eq!(p.poll(), [PortEvent::Disconnected { port: Port::One }]);
        assert_eq!(fake.playing(5), FfLevels::OFF);
        assert_eq!(
            fake.playing(6),
            FfLevels {
                strong: 0,
                weak: 65535
            }
        );
        // A pad plugged into the freed port starts still.
        fake.connect(8, "new", true);
        p.poll();
        assert_eq!(p.device(Port::One), Some(8));
        assert!(!fake.ff_log().iter().any(|c| c.0 == 8));
        // Dropping the backend stops what still runs.
        drop(p);
        assert_eq!(fake.playing(6), FfLevels::OFF);
        assert!(!fake.ff_log().iter().any(|c| c.0 == 8));
    }

    #[test]
    fn a_pad_without_force_feedback_does_not_rumble() {
        let (fake, mut p) = pads();
        fake.connect(5, "plain", false);
        p.poll();
        p.set_rumble(
            Port::One,
            Motors {
                small: true,
                large: 255,
            },
        );
        p.poll();
        drop(p);
        assert_eq!(fake.ff_log(), []);
    }

    #[test]
    fn rumble_for_an_empty_port_is_ignored() {
        let (fake, mut p) = pads();
        p.set_rumble(
            Port::Two,
            Motors {
                small: true,
                large: 1,
            },
        );
        fake.connect(5, "ds", true);
        fake.connect(6, "ds", true);
        p.poll();
        assert_eq!(fake.ff_log(), []);
    }

    #[test]
    fn merged_reports() {
        let pad = PadReport {
            buttons: Buttons::CROSS.to_report(),
            sticks: Some([1, 2, 3, 4]),
        };
        let kb = PadReport::digital(Buttons::UP);
        let m = kb.merge(pad);
        assert_eq!(m.held(), Buttons::CROSS | Buttons::UP);
        assert_eq!(m.sticks, Some([1, 2, 3, 4]));
        assert_eq!(PadReport::IDLE.held(), Buttons::NONE);
    }
}
