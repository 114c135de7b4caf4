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
use crate::capture::FrameCapture;
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
    /// What screenshot and capture file names start with: the program's serial or name.
    name: String,
    /// `--capture`'s capture, and the one F10 started.
    capture: Option<FrameCapture>,
    key_capture: Option<FrameCapture>,
    /// The parts' clocks; the host time in `machine.run`; and their readings at the last
    /// overlay update (wall, run, IOP, SPU2, GS busy, GS waited).
    perf: PerfClocks,
    in_run: f64,
    perf_last: Option<(Instant, [f64; 5])>,
    /// Save state slots: the folder, the files' name, the program's identity, the slot.
    states: StateSlots,
    /// A dropped program or disc image to boot once this run ends.
    boot_next: Option<PathBuf>,
    /// How many frames F8's GS dump records (`--dump-gs-frames`; `None`: until F8 again).
    gs_capture_frames: Option<u64>,
    /// The window presents from the renderer's device: pictures stay on the GPU.
    gpu_frames: bool,
    /// The last picture handed to the window from the GPU: its serial and offset.
    last_gpu: Option<(u64, (i32, i32))>,
}

impl MachineSession<'_> {
    /// A new file in the screenshot folder: `NAME-YYYYMMDD-HHMMSS-FRAME[-K]-SUFFIX.png` (the
    /// host's UTC date; the vertical blank of the frame on screen).
    fn shot_path(&self, suffix: &str) -> Result<PathBuf, String> {
        let dir = self
            .screenshot_dir
            .clone()
            .ok_or("no folder for screenshots (set --screenshot-dir or HOME)")?;
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let n = self.machine.vblank_count.saturating_sub(1);
        let stem = format!("{}-{}-{n:06}", self.name, utc_stamp());
        let mut path = dir.join(format!("{stem}-{suffix}.png"));
        let mut k = 2;
        while path.exists() {
            path = dir.join(format!("{stem}-{k}-{suffix}.png"));
            k += 1;
        }
        Ok(path)
    }

    /// The picture on screen as a frame for the window: left on the GPU when the window
    /// presents from the renderer's device, else copied; `None` when nothing new is shown.
    fn shown_frame(&mut self) -> Result<Option<Frame>, String> {
        let pcrtc = piney_gs::Pcrtc {
            deflicker: self.deflicker,
        };
        if self.gpu_frames {
            let Some(shown) = self.machine.frame_on_gpu(pcrtc) else {
                return Ok(None);
            };
            let offset = (shown.presenter.offset_x, shown.presenter.offset_y);
            self.last = None;
            let Some(handle) = shown.picture else {
                // Nothing displayed (no read circuit on): the window stays as it is.
                return Ok(None);
            };
            if let Some(p) = handle.downcast_ref::<piney_gs_wgpu::GpuPicture>() {
                // Only a new picture (or a moved one) is presented again: the renderer numbers
                // its pictures, so no copy is compared.
                if self.last_gpu.replace((p.serial, offset)) == Some((p.serial, offset)) {
                    return Ok(None);
                }
                let pixels = piney_frontend::GpuPixels {
                    buffer: p.buffer.clone(),
                    stride: p.stride,
                };
                return Frame::on_gpu(p.width, p.height, pixels)
                    .map(|f| Some(f.with_offset(offset.0, offset.1)))
                    .map_err(|e| e.to_string());
            }
        }
        let Some(shown) = self.machine.frame(pcrtc) else {
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

    /// Frame `n` (just shown) to the captures that take it.
    fn feed_captures(&mut self) -> Result<(), String> {
        let n = self.machine.vblank_count.saturating_sub(1);
        let wanted = self.capture.as_ref().is_some_and(|c| c.wants(n))
            || self.key_capture.as_ref().is_some_and(|c| c.wants(n));
        if !wanted {
            return Ok(());
        }
        let Some(img) =
            crate::run::presented_frame(self.machine, self.deflicker, self.screenshot_format)
        else {
            return Ok(());
        };
        if let Some(c) = &mut self.capture {
            c.offer(n, &img)?;
        }
        if let Some(c) = &mut self.key_capture {
            c.offer(n, &img)?;
        }
        Ok(())
    }
}

/// The host-time clocks of the machine's parts, for the performance overlay: the IOP's slices
/// (the SPU2's samples among them) and the GS renderer's thread.
pub struct PerfClocks {
    /// Seconds in the IOP's slices.
    pub iop: std::rc::Rc<std::cell::Cell<f64>>,
    /// Seconds making the SPU2's samples.
    pub spu2: std::rc::Rc<std::cell::Cell<f64>>,
    /// The renderer's busy and waited-for time.
    pub gs: std::sync::Arc<piney_gs::RenderTimes>,
}

/// What the window is called, and what its screenshots and captures are named by.
pub struct Names<'a> {
    /// The window's title (after "piney: ").
    pub title: &'a str,
    /// The disc's serial or the program's name.
    pub files: &'a str,
}

/// The host's date and time, UTC, as YYYYMMDD-HHMMSS (for file names only: nothing in the
/// machine reads the host's clock).
fn utc_stamp() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    // Days since 1970-01-01 to a civil date (proleptic Gregorian, eras of 400 years).
    let z = secs / 86_400 + 719_468;
    let (era, doe) = (z / 146_097, z % 146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + u64::from(m <= 2);
    let t = secs % 86_400;
    format!(
        "{y:04}{m:02}{d:02}-{:02}{:02}{:02}",
        t / 3600,
        t / 60 % 60,
        t % 60
    )
}

/// A program's name as a file name: letters, digits, `-`, `_` and `.` kept, others `_`.
fn file_name_part(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    if s.is_empty() { "piney".into() } else { s }
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
        let started = Instant::now();
        let end = self.machine.run(limits).map_err(|e| e.to_string());
        self.in_run += started.elapsed().as_secs_f64();
        match end? {
            RunEnd::FrameLimit => self.feed_captures()?,
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
        self.shown_frame()
    }

    fn gpu_frames(&mut self, on: bool) {
        self.gpu_frames = on;
    }

    /// The picture on screen as `--dump-frames` writes it (presented: moved by the display
    /// offset, 4:3; or the display circuits' pixels), as DIR/screenshot-NNNNNN.png (the vertical
    /// blank; -2, -3 ... when taken again at the same one).
    fn screenshot(&mut self, frame: &Frame) -> Result<String, String> {
        let out = match frame.pixels() {
            Some(rgba) => {
                let img = Image {
                    width: frame.width(),
                    height: frame.height(),
                    rgba: rgba.to_vec(),
                };
                let presenter = Presenter {
                    offset_x: frame.offset_x,
                    offset_y: frame.offset_y,
                };
                self.screenshot_format.apply(&img, presenter)
            }
            // A picture on the GPU: the renderer's copy of the one on screen (the machine
            // stands at the vertical blank that showed it).
            None => {
                crate::run::presented_frame(self.machine, self.deflicker, self.screenshot_format)
                    .ok_or("no picture to save")?
            }
        };
        let path = self.shot_path("shot")?;
        out.write_png(&path).map_err(|e| e.to_string())?;
        Ok(path.display().to_string())
    }

    fn toggle_capture(&mut self) -> Result<String, String> {
        if let Some(c) = self.key_capture.take() {
            return c.finish();
        }
        let path = self.shot_path("capture")?;
        let from = self.machine.vblank_count;
        self.key_capture = Some(FrameCapture::new(&path, Some((from, u64::MAX - 1)), None)?);
        Ok(format!(
            "capture {} started at frame {from} (F10 again ends it)",
            path.display()
        ))
    }

    fn perf_lines(&mut self) -> Vec<String> {
        let now = Instant::now();
        let p = &self.perf;
        let read = [
            self.in_run,
            p.iop.get(),
            p.spu2.get(),
            p.gs.busy(),
            p.gs.waited(),
        ];
        let Some((at, last)) = self.perf_last.replace((now, read)) else {
            return vec!["(measuring)".into()];
        };
        let wall = now.duration_since(at).as_secs_f64().max(1e-9);
        let d: Vec<f64> = read
            .iter()
            .zip(last)
            .map(|(a, b)| (a - b).max(0.0))
            .collect();
        let pct = |x: f64| 100.0 * x / wall;
        // The EE's own time: the machine's run less the IOP's slices and the waits for the GS.
        let ee = (d[0] - d[1] - d[4]).max(0.0);
        vec![
            format!(
                "EE {:.0}%, IOP {:.0}% (SPU2 {:.0}%), waiting for the GS {:.0}%",
                pct(ee),
                pct(d[1]),
                pct(d[2]),
                pct(d[4])
            ),
            format!("GS renderer busy {:.0}% (its own thread)", pct(d[3])),
        ]
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
                self.last_gpu = None;
                self.ended = false;
                Ok(format!(
                    "state loaded from slot {slot} (frame {}): {}",
                    self.machine.vblank_count,
                    path.display()
                ))
            }
        }
    }

    fn toggle_gs_capture(&mut self) -> Result<String, String> {
        let gs = &mut self.machine.bus.gif.gs;
        if gs.capturing() {
            return match gs.finish_capture() {
                Some(Ok(frames)) => Ok(format!("GS capture ended: {frames} frames")),
                Some(Err(e)) => Err(e.to_string()),
                None => Ok("GS capture ended before it started".into()),
            };
        }
        let png = self.shot_path("gs")?;
        let path = png.with_extension("gs.zst");
        let from = self.machine.vblank_count + 1;
        self.machine
            .bus
            .gif
            .gs
            .arm_capture(&path, self.gs_capture_frames, &self.name, 0, from);
        Ok(format!(
            "GS capture {} from the next clean vertical blank (F8 again ends it)",
            path.display()
        ))
    }

    fn dropped(&mut self, path: &std::path::Path) -> Result<String, String> {
        crate::run::bootable(path)?;
        self.boot_next = Some(path.to_path_buf());
        self.ended = true;
        Ok(format!("booting {}", path.display()))
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
    names: Names<'_>,
    perf: PerfClocks,
    mapping: Option<piney_input::Mapping>,
    wav: Option<&WavDump>,
    states: StateSlots,
    shared_gpu: Option<piney_frontend::SharedGpu>,
) -> Result<Option<PathBuf>, String> {
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
    let capture = match &opts.capture {
        Some(path) => Some(FrameCapture::new(path, opts.capture_frames, opts.frames)?),
        None => None,
    };
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
        name: file_name_part(names.files),
        capture,
        key_capture: None,
        perf,
        in_run: 0.0,
        perf_last: None,
        states,
        boot_next: None,
        gs_capture_frames: opts.dump_gs_frames,
        gpu_frames: false,
        last_gpu: None,
    };
    let mut options = WindowOptions {
        title: format!("piney: {}", names.title),
        ..Default::default()
    };
    options.audio = (!opts.no_audio).then_some(AudioOptions {
        volume: opts.volume,
        fast_forward: opts.fast_forward_audio.into(),
        ..AudioOptions::default()
    });
    options.size = opts.window_size;
    options.fullscreen = opts.fullscreen;
    options.vsync = opts.vsync;
    options.scaling = piney_frontend::layout::Scaling {
        filter: match opts.scaling {
            crate::run::WindowScaling::Sharp => piney_frontend::layout::Filter::Sharp,
            crate::run::WindowScaling::Nearest => piney_frontend::layout::Filter::Nearest,
        },
        stretch: opts.stretch,
    };
    options.fps_cap = opts.fps_cap;
    options.fast_forward_speed = opts.speed;
    options.shared_gpu = shared_gpu;
    if let Some(m) = mapping {
        options.keys = m.keyboard;
        options.gamepads = options.gamepads.map(|_| m.gamepad);
    }
    let stats = run_window(&mut session, options).map_err(|e| e.to_string());
    // Captures end with the window, whatever ended it.
    let captures = [session.capture.take(), session.key_capture.take()];
    if opts.dump_gs.is_none()
        && let Some(done) = session.machine.bus.gif.gs.finish_capture()
    {
        match done {
            Ok(frames) => eprintln!("piney: GS capture ended with the window: {frames} frames"),
            Err(e) => eprintln!("piney: GS capture: {e}"),
        }
    }
    for c in captures.into_iter().flatten() {
        match c.finish() {
            Ok(line) => eprintln!("piney: {line}"),
            Err(e) => eprintln!("piney: {e}"),
        }
    }
    let stats = stats?;
    // The window's new size, remembered for the next run (settings.toml's window_size).
    if let (Some(file), Some((w, h))) = (&opts.remember_size_in, stats.resized_to)
        && (w, h) != opts.window_size
    {
        match piney_settings::set_key(file, "window_size", &format!("\"{w}x{h}\"")) {
            Ok(()) => eprintln!(
                "piney: settings {}: window_size = \"{w}x{h}\" (the window's size, remembered)",
                file.display()
            ),
            Err(e) => eprintln!(
                "piney: settings {}: cannot remember the window's size ({e})",
                file.display()
            ),
        }
    }
    if opts.stats {
        if let Some(a) = &stats.audio {
            eprintln!("piney: {}", a.line());
        }
        eprintln!(
            "piney: window: {} vertical blanks, {} pictures made, {} presented",
            stats.vblanks, stats.frames, stats.presented
        );
        eprintln!("piney: {}", stats.jitter.line());
        eprintln!(
            "piney: {}",
            stats.call_jitter.named_line("present-call jitter")
        );
    }
    Ok(session.boot_next.take())
}
