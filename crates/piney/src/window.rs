//! The windowed session: the machine behind piney-frontend's [`Emulator`] boundary. One vertical
//! blank of emulated time per call, the presented picture when it changed, the host's pads fed to
//! the emulated padman, and padman's motor sends back to the host's pads.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use piney_frontend::{AudioOptions, Emulator, Frame, StateKey, WindowOptions, run_window};
use piney_gs::{FrameFormat, Image, Presenter};
use piney_input::{Motors, PadReport, Port};
use piney_machine::sif::padman::PadInput;
use piney_machine::{Machine, RunEnd, RunLimits};

use crate::audio::{Queue, Tee, WavDump};
use crate::run::RunOptions;

/// What the window and the emulated padman share: the host pads' reports and the motors padman
/// last asked for.
#[derive(Debug, Default)]
struct HostPadState {
    reports: [Option<PadReport>; 2],
    rumble: Vec<(Port, Motors)>,
}

/// padman's pads, as the window's pads (keyboard and gilrs) report them.
struct HostPads(Arc<Mutex<HostPadState>>);

impl PadInput for HostPads {
    fn report(&mut self, port: u8) -> Option<PadReport> {
        let state = self.0.lock().unwrap_or_else(|e| e.into_inner());
        state.reports.get(port as usize).copied().flatten()
    }
    fn rumble(&mut self, port: u8, small: bool, large: u8) {
        let port = if port == 0 { Port::One } else { Port::Two };
        let mut state = self.0.lock().unwrap_or_else(|e| e.into_inner());
        state.rumble.push((port, Motors { small, large }));
    }
}

/// The machine as the window runs it.
struct MachineSession<'a> {
    machine: &'a mut Machine,
    pads: Arc<Mutex<HostPadState>>,
    deflicker: bool,
    frames: Option<u64>,
    seconds: Option<f64>,
    ended: bool,
    last: Option<(Vec<u8>, (i32, i32))>,
    /// `--hold`: how long the last picture stays once `--frames` is reached.
    hold: Option<Duration>,
    /// When the hold ends (set when `--frames` is reached).
    hold_until: Option<Instant>,
    /// Where F12's screenshots go, and in what format.
    screenshot_dir: Option<PathBuf>,
    screenshot_format: FrameFormat,
    /// The sound the machine made, for the window's player.
    sound: Option<Queue>,
    /// Save state slots: the folder, the files' name, the program's identity, the slot.
    states: StateSlots,
}

/// The window's save state slots (F1, F2, F3): `DIR/NAME.S.state` for slot S (0 to 9).
pub struct StateSlots {
    /// The folder (`states` in piney's data folder); `None` when the environment names none.
    pub dir: Option<PathBuf>,
    /// The files' name: the disc's serial, or the program's file name.
    pub name: String,
    /// What the states record as the program ([`crate::run::program_identity`]).
    pub program: String,
    /// The slot F1 and F3 use.
    pub slot: u32,
}

/// The number of slots, as PCSX2 has.
const SLOTS: u32 = 10;

impl StateSlots {
    fn path(&self) -> Result<PathBuf, String> {
        let dir = self
            .dir
            .as_ref()
            .ok_or("no folder for save states (set XDG_DATA_HOME or HOME)")?;
        Ok(dir.join(format!("{}.{}.state", self.name, self.slot)))
    }
}

impl Emulator for MachineSession<'_> {
    fn run_vblank(&mut self) -> Result<Option<Frame>, String> {
        if self.hold_until.is_some() {
            // Holding: the machine stays at the frame limit and the window keeps its picture.
            return Ok(None);
        }
        let next = self.machine.vblank_count + 1;
        let limits = RunLimits {
            frames: Some(next),
            seconds: self.seconds,
        };
        match self.machine.run(limits).map_err(|e| e.to_string())? {
            RunEnd::FrameLimit => {}
            RunEnd::Exited(_) | RunEnd::TimeLimit => self.ended = true,
        }
        if let Some(f) = self.frames
            && self.machine.vblank_count >= f
        {
            match self.hold {
                // The picture returned below is what headless `--dump-frames` writes as frame
                // N-1 (the frame shown as vertical blank N starts).
                Some(hold) if !self.ended => {
                    eprintln!(
                        "piney: --frames {f} reached: showing frame {} for {:.1} s",
                        f.saturating_sub(1),
                        hold.as_secs_f64()
                    );
                    self.hold_until = Some(Instant::now() + hold);
                }
                _ => self.ended = true,
            }
        }
        let Some(shown) = self.machine.frame(piney_gs::Pcrtc {
            deflicker: self.deflicker,
        }) else {
            return Ok(None);
        };
        let img = shown.image;
        if img.width == 0 || img.height == 0 {
            // Nothing displayed yet (no read circuit enabled): the window stays black.
            return Ok(None);
        }
        // Only a changed picture (or a moved one) is presented again.
        let offset = (shown.presenter.offset_x, shown.presenter.offset_y);
        if let Some((rgba, off)) = &self.last
            && *rgba == img.rgba
            && *off == offset
        {
            return Ok(None);
        }
        self.last = Some((img.rgba.clone(), offset));
        Frame::new(img.width, img.height, img.rgba)
            .map(|f| Some(f.with_offset(offset.0, offset.1)))
            .map_err(|e| e.to_string())
    }

    /// The picture on screen as `--dump-frames` writes it (presented: moved by the display
    /// offset, 4:3; or the display circuits' pixels), as DIR/screenshot-NNNNNN.png (the vertical
    /// blank; -2, -3 ... when taken again at the same one).
    fn screenshot(&mut self, frame: &Frame) -> Result<String, String> {
        let dir = self
            .screenshot_dir
            .clone()
            .ok_or("no folder for screenshots (set --screenshot-dir or HOME)")?;
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let img = Image {
            width: frame.width(),
            height: frame.height(),
            rgba: frame.pixels().to_vec(),
        };
        let presenter = Presenter {
            offset_x: frame.offset_x,
            offset_y: frame.offset_y,
        };
        let out = self.screenshot_format.apply(&img, presenter);
        let n = self.machine.vblank_count.saturating_sub(1);
        let mut path = dir.join(format!("screenshot-{n:06}.png"));
        let mut k = 2;
        while path.exists() {
            path = dir.join(format!("screenshot-{n:06}-{k}.png"));
            k += 1;
        }
        out.write_png(&path).map_err(|e| e.to_string())?;
        Ok(path.display().to_string())
    }

    fn state_key(&mut self, key: StateKey) -> Result<String, String> {
        let slot = self.states.slot;
        match key {
            StateKey::NextSlot => {
                self.states.slot = (slot + 1) % SLOTS;
                let path = self.states.path()?;
                let what = if path.exists() { "" } else { " (empty)" };
                Ok(format!(
                    "save state slot {}{what}: {}",
                    self.states.slot,
                    path.display()
                ))
            }
            StateKey::Save => {
                let path = self.states.path()?;
                if let Some(dir) = path.parent() {
                    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
                }
                let bytes = self
                    .machine
                    .save_state(&self.states.program)
                    .map_err(|e| e.to_string())?;
                std::fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
                Ok(format!(
                    "state saved to slot {slot} (frame {}): {}",
                    self.machine.vblank_count,
                    path.display()
                ))
            }
            StateKey::Load => {
                let path = self.states.path()?;
                let bytes = std::fs::read(&path)
                    .map_err(|e| format!("slot {slot}: {}: {e}", path.display()))?;
                self.machine
                    .load_state(&bytes, &self.states.program)
                    .map_err(|e| format!("slot {slot}: {}: {e}", path.display()))?;
                // The loaded machine's picture is shown at the next vertical blank.
                self.last = None;
                self.ended = false;
                Ok(format!(
                    "state loaded from slot {slot} (frame {}): {}",
                    self.machine.vblank_count,
                    path.display()
                ))
            }
        }
    }

    fn set_pad(&mut self, port: Port, report: Option<PadReport>) {
        let mut state = self.pads.lock().unwrap_or_else(|e| e.into_inner());
        state.reports[port as usize] = report;
    }

    fn take_rumble(&mut self) -> Vec<(Port, Motors)> {
        let mut state = self.pads.lock().unwrap_or_else(|e| e.into_inner());
        std::mem::take(&mut state.rumble)
    }

    fn take_audio(&mut self, out: &mut Vec<i16>) {
        if let Some(q) = &self.sound {
            q.take(out);
        }
    }

    fn finished(&self) -> bool {
        self.ended || self.hold_until.is_some_and(|t| Instant::now() >= t)
    }
}

/// Run `machine` in a window until the guest exits, a limit is reached or the window closes;
/// the sound goes to the window's player (unless `--no-audio`) and to `wav` when given. With
/// `--stats`, what the player did is printed at the end.
pub fn run(
    machine: &mut Machine,
    opts: &RunOptions,
    title: &str,
    mapping: Option<piney_input::Mapping>,
    wav: Option<&WavDump>,
    states: StateSlots,
) -> Result<(), String> {
    if opts.dump_frames.is_some() {
        return Err(
            "--dump-frames needs --headless (frames are written from headless runs)".into(),
        );
    }
    let hold = match opts.hold {
        Some(s) if !(s.is_finite() && (0.0..=3600.0).contains(&s)) => {
            return Err(format!("--hold must be 0 to 3600 seconds, not {s}"));
        }
        Some(_) if opts.frames.is_none() => return Err("--hold needs --frames".into()),
        h => h,
    };
    let pads = Arc::new(Mutex::new(HostPadState::default()));
    if opts.input.is_none() {
        machine.set_pad_input(Box::new(HostPads(pads.clone())));
    }
    let sound = (!opts.no_audio).then(Queue::default);
    if let Some(q) = &sound {
        let mut sinks: Vec<Box<dyn piney_machine::audio::AudioSink>> = vec![Box::new(q.clone())];
        if let Some(w) = wav {
            sinks.push(Box::new(w.clone()));
        }
        machine.set_audio_sink(Box::new(Tee(sinks)));
    }
    // --frames counts the frames of this run (after a loaded state's), as headless.
    let frames = opts.frames.map(|f| f + machine.vblank_count);
    let mut session = MachineSession {
        machine,
        pads,
        deflicker: opts.deflicker,
        frames,
        seconds: opts.seconds,
        ended: false,
        last: None,
        hold: hold.map(Duration::from_secs_f64),
        hold_until: None,
        screenshot_dir: opts
            .screenshot_dir
            .clone()
            .or_else(|| crate::run::data_folder().map(|d| d.join("screenshots"))),
        screenshot_format: opts.dump_format.into(),
        sound,
        states,
    };
    let mut options = WindowOptions {
        title: format!("piney: {title}"),
        ..Default::default()
    };
    options.audio = (!opts.no_audio).then_some(AudioOptions {
        volume: opts.volume,
        fast_forward: opts.fast_forward_audio.into(),
        ..AudioOptions::default()
    });
    options.size = opts.window_size;
    options.fullscreen = opts.fullscreen;
    if let Some(m) = mapping {
        options.keys = m.keyboard;
        options.gamepads = options.gamepads.map(|_| m.gamepad);
    }
    let stats = run_window(&mut session, options).map_err(|e| e.to_string())?;
    if opts.stats
        && let Some(a) = &stats.audio
    {
        eprintln!("piney: {}", a.line());
    }
    Ok(())
}
