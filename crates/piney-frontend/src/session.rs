//! The windowed session's logic without a window: vblanks paced against a clock (or as fast as
//! they run while fast-forwarding), pads in, rumble and sound out, the newest picture handed on.
//! The window (`crate::window`) drives it; tests drive it with a fake clock, a fake emulator
//! and fake pads.

use piney_input::{Keyboard, PadBackend, Port, PortEvent};

use crate::audio::Player;
use crate::frame::{Emulator, Frame};
use crate::pacing::{NTSC_PERIOD_NS, Pacer};

/// Vblanks one [`Session::advance`] runs while fast-forwarding (then the window presents and
/// reads its events again).
pub const FAST_FORWARD_BATCH: u32 = 4;

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
    player: Option<Player>,
    audio: Vec<i16>,
    /// Fast-forward: since when (host ns) and how many vblanks since, for the speed.
    fast: Option<(u64, u64)>,
    speed: f64,
    /// Fast-forward at this many times real time (`--speed`), paced by its own schedule;
    /// `None`: as fast as the vblanks run.
    fast_speed: Option<u32>,
    fast_pacer: Pacer,
    /// Paused: no vblank runs except by [`Session::step_frame`].
    paused: bool,
    /// The first vblank has run (the program's start: loading, the first compiles, often many
    /// periods long): the next [`Session::advance`] starts the schedule afresh at its clock
    /// instead of catching that time up.
    resync_after_start: bool,
}

/// Vertical blanks [`Session::step_frame`] runs at most looking for the next picture (a game
/// at 7.5 fps or faster makes one within them).
pub const STEP_MAX_VBLANKS: u32 = 8;

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
            player: None,
            audio: Vec::new(),
            fast: None,
            speed: 1.0,
            fast_speed: None,
            fast_pacer: Pacer::ntsc(0, max_catch_up),
            paused: false,
            resync_after_start: false,
        }
    }

    /// Fast-forward at `speed` times real time (2 to 8, paced), or with `None` (or 0 or 1) as
    /// fast as the vblanks run.
    pub fn set_fast_forward_speed(&mut self, speed: Option<u32>) {
        self.fast_speed = speed.filter(|&s| s >= 2);
    }

    /// Whether fast-forward runs unpaced (on, and no `--speed`).
    pub fn unpaced(&self) -> bool {
        self.fast.is_some() && self.fast_speed.is_none()
    }

    /// Pause on (no vblank runs: the emulated machine stands still, the sound goes silent)
    /// or off (paced again from `now_ns`, so the pause is not caught up).
    pub fn set_paused(&mut self, on: bool, now_ns: u64) {
        if self.paused && !on {
            self.restart_clock(now_ns);
        }
        self.paused = on;
    }

    /// Whether the session is paused.
    pub fn paused(&self) -> bool {
        self.paused
    }

    /// Frame advance: runs vblanks up to and including the next one that makes a picture (at
    /// most [`STEP_MAX_VBLANKS`]), paused or not.
    pub fn step_frame(&mut self) -> Result<Advance, String> {
        let mut adv = Advance::default();
        while adv.new_frames == 0 && adv.vblanks < STEP_MAX_VBLANKS && !self.emu.finished() {
            self.vblank(&mut adv)?;
        }
        Ok(adv)
    }

    /// Plays the emulator's sound through `player` from now on.
    pub fn set_player(&mut self, player: Player) {
        self.player = Some(player);
    }

    /// The sound's player, when there is one.
    pub fn player(&self) -> Option<&Player> {
        self.player.as_ref()
    }

    /// Fast-forward on (vblanks as fast as they run, [`FAST_FORWARD_BATCH`] per
    /// [`Session::advance`]) or off (paced again from `now_ns`).
    pub fn set_fast_forward(&mut self, on: bool, now_ns: u64) {
        match (on, self.fast.is_some()) {
            (true, false) => {
                self.fast = Some((now_ns, 0));
                // Until the first batches measure it: "faster than real time" (or the speed
                // asked for).
                self.speed = self.fast_speed.map_or(2.0, f64::from);
                if let Some(n) = self.fast_speed {
                    let (num, den) = NTSC_PERIOD_NS;
                    self.fast_pacer =
                        Pacer::new((num, den * u64::from(n)), now_ns, self.max_catch_up * n);
                }
                if let Some(p) = &mut self.player {
                    p.set_speed(self.speed);
                }
            }
            (false, true) => {
                self.fast = None;
                self.speed = 1.0;
                self.restart_clock(now_ns);
                if let Some(p) = &mut self.player {
                    p.set_speed(1.0);
                }
            }
            _ => {}
        }
    }

    /// The fast-forward on now: the vertical blanks it has run and the host seconds since it
    /// started at `now_ns` (`None` when it is off).
    pub fn fast_forward_run(&self, now_ns: u64) -> Option<(u64, f64)> {
        self.fast
            .map(|(since, done)| (done, now_ns.saturating_sub(since) as f64 / 1e9))
    }

    /// Whether fast-forward is on.
    pub fn fast_forward(&self) -> bool {
        self.fast.is_some()
    }

    /// The emulation's speed against real time while fast-forwarding (1 otherwise).
    pub fn speed(&self) -> f64 {
        self.speed
    }

    /// Passes a save state key to the emulator.
    pub fn state_key(&mut self, key: crate::StateKey) -> Result<String, String> {
        self.emu.state_key(key)
    }

    /// Asks the emulator for a screenshot of `frame`.
    pub fn screenshot(&mut self, frame: &Frame) -> Result<String, String> {
        self.emu.screenshot(frame)
    }

    /// The emulator's lines for the performance overlay (where its time went).
    pub fn perf_lines(&mut self) -> Vec<String> {
        self.emu.perf_lines()
    }

    /// Asks the emulator to start or end a GS dump.
    pub fn toggle_gs_capture(&mut self) -> Result<String, String> {
        self.emu.toggle_gs_capture()
    }

    /// Whether the window presents from the emulator's shared device ([`Emulator::gpu_frames`]).
    pub fn gpu_frames(&mut self, on: bool) {
        self.emu.gpu_frames(on)
    }

    /// A file dropped on the window, for the emulator to boot.
    pub fn dropped(&mut self, path: &std::path::Path) -> Result<String, String> {
        self.emu.dropped(path)
    }

    /// Asks the emulator to start or end an animated capture.
    pub fn toggle_capture(&mut self) -> Result<String, String> {
        self.emu.toggle_capture()
    }

    /// Starts the vblank schedule afresh with the next vblank due at `now_ns` (once the
    /// window is up, so its creation time is not caught up).
    pub fn restart_clock(&mut self, now_ns: u64) {
        self.pacer = Pacer::ntsc(now_ns, self.max_catch_up);
    }

    /// When the next vblank is due.
    pub fn next_deadline(&self) -> u64 {
        if self.fast.is_some() && self.fast_speed.is_some() {
            self.fast_pacer.next_deadline()
        } else {
            self.pacer.next_deadline()
        }
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
        if self.paused {
            return Ok(adv);
        }
        let due = match &mut self.fast {
            Some((_, done)) if self.fast_speed.is_some() => {
                // Paced at the speed asked for, by its own schedule.
                let n = self.fast_pacer.tick(now_ns);
                *done += u64::from(n);
                n
            }
            Some((since, done)) => {
                // The speed over the fast-forward so far: emulated time over host time.
                let (num, den) = NTSC_PERIOD_NS;
                let emulated = *done as f64 * num as f64 / den as f64;
                let host = now_ns.saturating_sub(*since) as f64;
                if *done >= FAST_FORWARD_BATCH as u64 && host > 0.0 {
                    self.speed = (emulated / host).max(1.0);
                    if let Some(p) = &mut self.player {
                        p.set_speed(self.speed.max(1.0 + 1e-9));
                    }
                }
                *done += FAST_FORWARD_BATCH as u64;
                FAST_FORWARD_BATCH
            }
            None => {
                if self.resync_after_start {
                    // The start is not caught up: the schedule begins after it.
                    self.resync_after_start = false;
                    self.restart_clock(now_ns);
                }
                match self.pacer.tick(now_ns) {
                    // The first vblank alone, then the clock is read again.
                    n if n > 0 && self.vblanks == 0 => {
                        self.resync_after_start = true;
                        1
                    }
                    n => n,
                }
            }
        };
        for _ in 0..due {
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
        let kb = self.keyboard.read();
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
        self.emu.take_audio(&mut self.audio);
        if let Some(p) = &mut self.player {
            p.push(&self.audio);
        }
        self.audio.clear();
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

    /// 800 frames of a constant 1000 per vblank.
    const FAKE_SOUND: i16 = 1000;

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
        fn take_audio(&mut self, out: &mut Vec<i16>) {
            out.extend(std::iter::repeat_n(FAKE_SOUND, 1600));
        }
    }

    /// `--speed 4`: Tab's fast-forward runs four times real time, paced (not as fast as the
    /// vblanks go), and real time again when released.
    #[test]
    fn fast_forward_at_a_set_speed_is_paced() {
        let mut emu = Fake::default();
        let mut s = Session::new(&mut emu, Keyboard::new(KeyMap::default()), None, 3);
        s.set_fast_forward_speed(Some(4));
        s.restart_clock(0);
        s.set_fast_forward(true, 0);
        assert!(s.fast_forward() && !s.unpaced());
        assert_eq!(s.speed(), 4.0);
        let (mut ran, mut t) = (0u32, 0u64);
        while t < 1_000_000_000 {
            ran += s.advance(t).unwrap().vblanks;
            t += 1_000_000;
        }
        // 4 x 59.94 = 239.76 vblanks due in the second (the first at 0).
        assert_eq!(ran, 240);
        s.set_fast_forward(false, t);
        let mut again = 0u32;
        for k in 0..1000u64 {
            again += s.advance(t + k * 1_000_000).unwrap().vblanks;
        }
        assert_eq!(again, 60, "real time after the release");
        // Without a speed: unpaced.
        s.set_fast_forward_speed(None);
        s.set_fast_forward(true, t);
        assert!(s.unpaced());
    }

    #[test]
    fn sound_reaches_the_player_and_fast_forward_runs_unpaced_and_mutes_it() {
        use crate::audio::{AudioOptions, Player};
        let mut emu = Fake::default();
        let mut s = Session::new(&mut emu, Keyboard::new(KeyMap::default()), None, 3);
        let (player, dev) = Player::detached(48_000, AudioOptions::default());
        s.set_player(player);
        s.restart_clock(0);
        // Four paced vblanks: 3200 frames, past the 60 ms start.
        for _ in 0..4 {
            s.advance(s.next_deadline()).unwrap();
        }
        let mut out = vec![[0.0f32; 2]; 100];
        dev.pull(&mut out);
        assert_eq!(out[50], [1000.0 / 32768.0; 2]);
        assert_eq!(s.player().unwrap().stats().pushed, 3200);
        // Fast-forward: a batch per call whatever the clock says; the sound muted at once.
        let now = s.next_deadline();
        s.set_fast_forward(true, now);
        assert_eq!(s.advance(now).unwrap().vblanks, FAST_FORWARD_BATCH);
        assert_eq!(
            s.advance(now + 1_000_000).unwrap().vblanks,
            FAST_FORWARD_BATCH
        );
        // The first batch (67 ms of game) took 1 ms of host time: the speed says so.
        assert!((s.speed() - 66.73).abs() < 0.01, "{}", s.speed());
        dev.pull(&mut out);
        assert!(out.iter().all(|f| *f == [0.0; 2]));
        // Off: paced again from now, the sound back.
        let (ran, secs) = s.fast_forward_run(now + 2_000_000).unwrap();
        assert!(ran > 0 && (secs - 0.002).abs() < 1e-9, "{ran} in {secs} s");
        s.set_fast_forward(false, now + 2_000_000);
        assert_eq!(s.fast_forward_run(now + 2_000_000), None);
        assert_eq!(s.speed(), 1.0);
        assert_eq!(s.advance(now + 2_000_000).unwrap().vblanks, 1);
        assert_eq!(s.advance(now + 2_000_001).unwrap().vblanks, 0);
        for k in 1..5 {
            s.advance(now + 2_000_000 + k * 16_683_334).unwrap();
        }
        dev.pull(&mut out);
        assert_eq!(out[50], [1000.0 / 32768.0; 2]);
        assert_eq!(s.player().unwrap().stats().underruns, 0);
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
    fn a_key_tapped_between_two_vblanks_reaches_the_next_two() {
        let mut emu = Fake::default();
        let mut s = Session::new(&mut emu, Keyboard::new(KeyMap::default()), None, 3);
        s.restart_clock(1000);
        s.advance(s.next_deadline()).unwrap();
        // Down and up while no vertical blank is due (a window faster than real time sees
        // both in one batch of events), then the next vertical blanks.
        s.key("Backspace", true);
        s.key("Backspace", false);
        for _ in 0..3 {
            let adv = s.advance(s.next_deadline()).unwrap();
            assert_eq!(adv.vblanks, 1);
        }
        drop(s);
        let select = Some(PadReport::digital(Buttons::SELECT));
        let port1: Vec<_> = emu.pads.iter().map(|p| p[0]).collect();
        assert_eq!(
            port1,
            [Some(PadReport::IDLE), select, select, Some(PadReport::IDLE)]
        );
    }

    #[test]
    fn paused_runs_nothing_and_frame_advance_runs_to_the_next_picture() {
        let mut emu = Fake::default();
        let mut s = Session::new(&mut emu, Keyboard::new(KeyMap::default()), None, 3);
        s.restart_clock(1000);
        assert_eq!(s.advance(s.next_deadline()).unwrap().vblanks, 1);
        s.set_paused(true, 2_000_000);
        assert!(s.paused());
        // A minute later: nothing ran.
        let later = 60_000_000_000;
        assert_eq!(s.advance(later).unwrap().vblanks, 0);
        assert_eq!(s.vblanks(), 1);
        // One step: vblank 2 makes the next picture (30 fps: every second vblank).
        let adv = s.step_frame().unwrap();
        assert_eq!((adv.vblanks, adv.new_frames), (1, 1));
        assert_eq!(adv.frame.unwrap().get(0, 0)[0], 2);
        let adv = s.step_frame().unwrap();
        assert_eq!((adv.vblanks, adv.new_frames), (2, 1));
        assert_eq!(adv.frame.unwrap().get(0, 0)[0], 4);
        assert_eq!(s.advance(later + 1).unwrap().vblanks, 0);
        // Resumed: paced from now, the pause is not caught up.
        s.set_paused(false, later + 2);
        assert_eq!(s.advance(later + 2).unwrap().vblanks, 1);
        assert_eq!(s.vblanks(), 5);
    }

    #[test]
    fn catching_up_presents_only_the_newest_picture() {
        let mut emu = Fake::default();
        let mut s = Session::new(&mut emu, Keyboard::new(KeyMap::default()), None, 3);
        assert_eq!(s.advance(0).unwrap().vblanks, 1);
        assert_eq!(s.advance(1).unwrap().vblanks, 1);
        // 5 s late: 3 vblanks, one picture shown (vblank 4's), and the clock moves on.
        let adv = s.advance(5_000_000_000).unwrap();
        assert_eq!((adv.vblanks, adv.new_frames), (3, 1));
        assert_eq!(adv.frame.unwrap().get(0, 0)[0], 4);
        assert_eq!(s.advance(5_000_000_000).unwrap().vblanks, 0);
        let adv = s.advance(5_000_000_000 + 16_683_333).unwrap();
        assert_eq!(adv.vblanks, 1);
        assert_eq!(adv.frame.unwrap().get(0, 0)[0], 6);
    }

    /// The program's first vblank (its start: 37 ms for the demo, loading and compiling) is
    /// not caught up: the schedule begins when it is over, so the first pictures come a
    /// period apart instead of two or three vblanks at a time.
    #[test]
    fn the_first_vblank_is_not_caught_up() {
        let mut emu = Fake::default();
        let mut s = Session::new(&mut emu, Keyboard::new(KeyMap::default()), None, 3);
        s.restart_clock(1000);
        assert_eq!(s.advance(1000).unwrap().vblanks, 1);
        // It took 40 ms (vblanks 1 and 2 were due at 16.7 and 33.4 ms): one now, the next a
        // period later.
        let after = 41_000_000;
        assert_eq!(s.advance(after).unwrap().vblanks, 1);
        assert_eq!(s.next_deadline(), after + 16_683_333);
        assert_eq!(s.advance(after + 16_683_332).unwrap().vblanks, 0);
        assert_eq!(s.advance(after + 16_683_333).unwrap().vblanks, 1);
        // Later delays are caught up (game time kept), as before.
        let late = after + 3 * 16_683_333 + 1;
        assert_eq!(s.advance(late).unwrap().vblanks, 2);
        assert_eq!(s.pacer().resyncs(), 0);
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
        s.advance(0).unwrap();
        s.advance(1).unwrap();
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
