//! The windowed session's logic without a window: vblanks paced against a clock, pads in,
//! rumble out, the newest picture handed on. The window (`crate::window`) drives it; tests
//! drive it with a fake clock, a fake emulator and fake pads.

use piney_input::{Keyboard, PadBackend, Port, PortEvent};

use crate::frame::{Emulator, Frame};
use crate::pacing::Pacer;

/// What one [`Session::advance`] did.
#[derive(Debug, Default)]
pub struct Advance {
    /// Vblanks run.
    pub vblanks: u32,
    /// New pictures the emulator produced (at most `vblanks`).
    pub new_frames: u32,
    /// The newest of them, to present. When catching up after a delay only the newest is
    /// presented; the ones before it are dropped (their vblanks still ran).
    pub frame: Option<Frame>,
    /// Pads plugged in or out.
    pub events: Vec<PortEvent>,
}

/// Vblanks, pads and rumble between an [`Emulator`] and the host.
pub struct Session<'e, E: Emulator + ?Sized> {
    emu: &'e mut E,
    pacer: Pacer,
    max_catch_up: u32,
    keyboard: Keyboard,
    pads: Option<Box<dyn PadBackend + 'e>>,
    vblanks: u64,
    frames: u64,
}

impl<'e, E: Emulator + ?Sized> Session<'e, E> {
    /// A session on `emu` with the keyboard on port 1 and, when given, host pads on both
    /// ports (a pad on port 1 and the keyboard act as one). The clock starts at 0 ns; see
    /// [`Session::restart_clock`].
    pub fn new(
        emu: &'e mut E,
        keyboard: Keyboard,
        pads: Option<Box<dyn PadBackend + 'e>>,
        max_catch_up: u32,
    ) -> Session<'e, E> {
        Session {
            emu,
            pacer: Pacer::ntsc(0, max_catch_up),
            max_catch_up,
            keyboard,
            pads,
            vblanks: 0,
            frames: 0,
        }
    }

    /// Asks the emulator for a screenshot of `frame`.
    pub fn screenshot(&mut self, frame: &Frame) -> Result<String, String> {
        self.emu.screenshot(frame)
    }

    /// Starts the vblank schedule afresh with the next vblank due at `now_ns` (once the
    /// window is up, so its creation time is not caught up).
    pub fn restart_clock(&mut self, now_ns: u64) {
        self.pacer = Pacer::ntsc(now_ns, self.max_catch_up);
    }

    /// When the next vblank is due.
    pub fn next_deadline(&self) -> u64 {
        self.pacer.next_deadline()
    }

    /// The pacer (for its counters).
    pub fn pacer(&self) -> &Pacer {
        &self.pacer
    }

    /// Vblanks run so far.
    pub fn vblanks(&self) -> u64 {
        self.vblanks
    }

    /// New pictures produced so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Whether the emulator says the run is over.
    pub fn finished(&self) -> bool {
        self.emu.finished()
    }

    /// A key (winit `KeyCode` name) went down or up.
    pub fn key(&mut self, name: &str, pressed: bool) {
        self.keyboard.key(name, pressed);
    }

    /// Releases every key (the window lost focus).
    pub fn release_keys(&mut self) {
        self.keyboard.release_all();
    }

    /// The clock reads `now_ns`: runs the vblanks due (bounded, see [`Pacer::tick`]).
    pub fn advance(&mut self, now_ns: u64) -> Result<Advance, String> {
        let mut adv = Advance::default();
        for _ in 0..self.pacer.tick(now_ns) {
            if self.emu.finished() {
                break;
            }
            self.vblank(&mut adv)?;
        }
        Ok(adv)
    }

    /// One vblank: pads in, the machine, motors out.
    fn vblank(&mut self, adv: &mut Advance) -> Result<(), String> {
        let (pad1, pad2) = match &mut self.pads {
            Some(p) => {
                adv.events.extend(p.poll());
                (p.report(Port::One), p.report(Port::Two))
            }
            None => (None, None),
        };
        let kb = self.keyboard.report();
        // The keyboard is always on port 1; a pad there adds its buttons and sticks.
        let port1 = pad1.map_or(kb, |p| p.merge(kb));
        self.emu.set_pad(Port::One, Some(port1));
        self.emu.set_pad(Port::Two, pad2);
        let frame = self.emu.run_vblank()?;
        self.vblanks += 1;
        adv.vblanks += 1;
        if let Some(f) = frame {
            self.frames += 1;
            adv.new_frames += 1;
            adv.frame = Some(f);
        }
        for (port, motors) in self.emu.take_rumble() {
            if let Some(p) = &mut self.pads {
                p.set_rumble(port, motors);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use piney_input::{
        Buttons, FakeDevices, FfLevels, GamepadMap, HostButton, HostPads, KeyMap, Motors, PadReport,
    };

    /// A machine at 30 fps (a picture every second vblank) that records its pads, rumbles
    /// on request, and can fail or finish.
    #[derive(Default)]
    struct Fake {
        vblank: u64,
        pads: Vec<[Option<PadReport>; 2]>,
        current: [Option<PadReport>; 2],
        rumble: Vec<(Port, Motors)>,
        fail_at: Option<u64>,
        finish_at: Option<u64>,
    }

    impl Emulator for Fake {
        fn run_vblank(&mut self) -> Result<Option<Frame>, String> {
            if self.fail_at == Some(self.vblank) {
                return Err(format!("guest fault at vblank {}", self.vblank));
            }
            self.pads.push(self.current);
            self.vblank += 1;
            if self.vblank.is_multiple_of(2) {
                let v = self.vblank as u8;
                Ok(Some(Frame::new(1, 1, vec![v, 0, 0, 255]).unwrap()))
            } else {
                Ok(None)
            }
        }
        fn set_pad(&mut self, port: Port, report: Option<PadReport>) {
            self.current[port.index()] = report;
        }
        fn take_rumble(&mut self) -> Vec<(Port, Motors)> {
            std::mem::take(&mut self.rumble)
        }
        fn finished(&self) -> bool {
            self.finish_at.is_some_and(|f| self.vblank >= f)
        }
    }

    #[test]
    fn thirty_fps_presents_every_second_vblank() {
        let mut emu = Fake::default();
        let mut s = Session::new(&mut emu, Keyboard::new(KeyMap::default()), None, 3);
        s.restart_clock(1000);
        let mut presented = Vec::new();
        for _ in 0..10 {
            let adv = s.advance(s.next_deadline()).unwrap();
            assert_eq!(adv.vblanks, 1);
            presented.push(adv.frame.map(|f| f.get(0, 0)[0]));
        }
        assert_eq!(
            presented,
            [
                None,
                Some(2),
                None,
                Some(4),
                None,
                Some(6),
                None,
                Some(8),
                None,
                Some(10)
            ]
        );
        assert_eq!((s.vblanks(), s.frames()), (10, 5));
    }

    #[test]
    fn catching_up_presents_only_the_newest_picture() {
        let mut emu = Fake::default();
        let mut s = Session::new(&mut emu, Keyboard::new(KeyMap::default()), None, 3);
        // 5 s late: 3 vblanks, one picture shown (vblank 2's), and the clock moves on.
        let adv = s.advance(5_000_000_000).unwrap();
        assert_eq!((adv.vblanks, adv.new_frames), (3, 1));
        assert_eq!(adv.frame.unwrap().get(0, 0)[0], 2);
        assert_eq!(s.advance(5_000_000_000).unwrap().vblanks, 0);
        let adv = s.advance(5_000_000_000 + 16_683_333).unwrap();
        assert_eq!(adv.vblanks, 1);
        assert_eq!(adv.frame.unwrap().get(0, 0)[0], 4);
    }

    #[test]
    fn keyboard_and_pads_reach_the_ports_and_rumble_reaches_the_pad() {
        let fake = FakeDevices::new();
        let pads = HostPads::new(fake.clone(), GamepadMap::default());
        let mut emu = Fake::default();
        {
            let mut s = Session::new(
                &mut emu,
                Keyboard::new(KeyMap::default()),
                Some(Box::new(pads)),
                3,
            );
            // Keyboard only: port 1 digital, port 2 empty.
            s.key("ArrowUp", true);
            s.advance(0).unwrap();
            // A pad arrives (takes port 1) and a second one (port 2).
            fake.connect(1, "pad a", true);
            fake.connect(2, "pad b", true);
            fake.update(1, |h| h.set(HostButton::South, true));
            fake.update(2, |h| h.set(HostButton::East, true));
            let adv = s.advance(s.next_deadline()).unwrap();
            assert_eq!(adv.events.len(), 2);
            s.release_keys();
            s.advance(s.next_deadline()).unwrap();
        }
        assert_eq!(
            emu.pads[0],
            [Some(PadReport::digital(Buttons::UP)), None],
            "keyboard alone"
        );
        let p1 = emu.pads[1][0].unwrap();
        assert_eq!(
            p1.held(),
            Buttons::UP | Buttons::CROSS,
            "pad and keyboard merged"
        );
        assert_eq!(p1.sticks, Some([128; 4]), "the pad's sticks");
        assert_eq!(emu.pads[1][1].unwrap().held(), Buttons::CIRCLE);
        assert_eq!(
            emu.pads[2][0].unwrap().held(),
            Buttons::CROSS,
            "keys released"
        );

        // Rumble: what the machine sends after a vblank plays at the next poll.
        let fake = FakeDevices::new();
        fake.connect(7, "ds", true);
        let pads = HostPads::new(fake.clone(), GamepadMap::default());
        let mut emu = Fake::default();
        let mut s = Session::new(&mut emu, Keyboard::default(), Some(Box::new(pads)), 3);
        s.advance(0).unwrap();
        s.emu.rumble.push((
            Port::One,
            Motors {
                small: true,
                large: 255,
            },
        ));
        s.advance(s.next_deadline()).unwrap(); // taken after this vblank
        assert_eq!(fake.playing(7), FfLevels::OFF);
        s.advance(s.next_deadline()).unwrap(); // applied at this one's poll
        assert_eq!(
            fake.playing(7),
            FfLevels {
                strong: 65535,
                weak: 65535
            }
        );
        drop(s);
        assert_eq!(
            fake.playing(7),
            FfLevels::OFF,
            "stopped when the session ends"
        );
    }

    #[test]
    fn an_emulator_error_or_finish_stops_the_session() {
        let mut emu = Fake {
            fail_at: Some(2),
            ..Fake::default()
        };
        let mut s = Session::new(&mut emu, Keyboard::default(), None, 3);
        assert_eq!(
            s.advance(10_000_000_000).unwrap_err(),
            "guest fault at vblank 2"
        );
        let mut emu = Fake {
            finish_at: Some(1),
            ..Fake::default()
        };
        let mut s = Session::new(&mut emu, Keyboard::default(), None, 3);
        let adv = s.advance(10_000_000_000).unwrap();
        assert_eq!(adv.vblanks, 1);
        assert!(s.finished());
    }
}
