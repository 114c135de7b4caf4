//! `piney run` and `piney demo`: load a program and run it, headless or in a window.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use piney_gs::{FrameFormat, Image, Pcrtc};
use piney_machine::{Machine, MachineError, RunEnd, RunLimits};

/// Options shared by `run` and `demo`, as the command line gives them. Numeric options take a
/// leading `-` as part of their value (`--volume -1` is refused as a value, naming the option,
/// not read as an unknown flag). The options a player keeps have a key in settings.toml
/// (piney_settings::KEYS): a flag given here overrides the key for this run
/// ([`RunArgs::resolve`]).
#[derive(clap::Args, Debug, Clone)]
pub struct RunArgs {
    /// Run without a window or audio, as fast as possible. Reads settings.toml but never writes
    /// it.
    #[arg(long)]
    pub headless: bool,
    /// The settings file (default: settings.toml in piney's config folder,
    /// `$XDG_CONFIG_HOME/piney` or `~/.config/piney`); written with every default by a run in
    /// a window when it does not exist.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Stop after N frames (vertical blanks).
    #[arg(long, allow_hyphen_values = true, value_name = "N")]
    pub frames: Option<u64>,
    /// Stop after S seconds of emulated time (a positive number).
    #[arg(long, value_name = "S", allow_hyphen_values = true, value_parser = parse_seconds)]
    pub seconds: Option<f64>,
    /// Write each presented frame (one per vertical blank) as DIR/NNNNNN.png.
    #[arg(long, value_name = "DIR")]
    pub dump_frames: Option<PathBuf>,
    /// Write the presented frames (one per vertical blank, as --dump-frames does) to FILE as an
    /// animated PNG shown at 59.94 frames a second, headless or in a window (there F10 starts
    /// and stops a capture into the screenshot folder).
    #[arg(long, value_name = "FILE")]
    pub capture: Option<PathBuf>,
    /// The frames --capture takes, `A-B` (vertical blank numbers, as --dump-frames names its
    /// files; both included). Default: every frame of the run.
    #[arg(long, value_name = "A-B", requires = "capture", value_parser = crate::capture::parse_frame_range)]
    pub capture_frames: Option<(u64, u64)>,
    /// What --dump-frames and screenshots write: `presented` (what a player sees: moved by the
    /// display offset, 4:3) or `display` (the display circuits' own pixels, as PCSX2's GS
    /// runner writes them). Default: the setting `dump_format`, else `presented`.
    #[arg(long, value_enum)]
    pub dump_format: Option<crate::frames::DumpFormat>,
    /// Merge each line with the line below at ALP/255, as the console's frame mode does
    /// (setting `deflicker`).
    #[arg(long, overrides_with = "no_deflicker")]
    pub deflicker: bool,
    /// Do not merge lines, whatever the setting `deflicker` says.
    #[arg(long, overrides_with = "deflicker")]
    pub no_deflicker: bool,
    /// Where F12 in the window saves screenshots (in the --dump-format; default: the setting
    /// `screenshot_dir`, else the folder `screenshots` in piney's data folder).
    #[arg(long, value_name = "DIR")]
    pub screenshot_dir: Option<PathBuf>,
    /// The GS renderer: `sw`, the exact software reference, or `wgpu`, the same pixels on
    /// compute shaders. Default: the setting `renderer`, else `wgpu` in a window with a
    /// hardware GPU and `sw` otherwise.
    #[arg(long, value_enum)]
    pub renderer: Option<crate::frames::RendererKind>,
    /// Draw the frame buffer N times larger (1 to 8): finer triangle edges, 2D and text on the
    /// native grid, readbacks and guest-visible memory native; frames and screenshots are N
    /// times the size. Default: the setting `render_scale`, else 1.
    #[arg(long, allow_hyphen_values = true, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=8))]
    pub render_scale: Option<u32>,
    /// Threads the software renderer draws on, 1 to 64 (the same pixels whatever the number).
    /// Default: the setting `gs_threads`, else the machine's cores less one (the EE runs on the
    /// other).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=64))]
    pub gs_threads: Option<u32>,
    /// Draw every primitive through the software renderer's general path, the reference its
    /// specialised paths are checked against (slower; for bisecting a rendering difference).
    #[arg(long)]
    pub gs_general_path: bool,
    /// Record what the GS receives as a PCSX2 GS dump (FILE.gs, .gs.zst or .gs.xz), written
    /// when the run ends; `piney replay FILE` gives the run's frames again.
    #[arg(long, value_name = "FILE")]
    pub dump_gs: Option<PathBuf>,
    /// With --dump-gs: start recording at frame N (the first vertical blank from N where the GS
    /// and its GIF paths are between commands; the dump's state is the GS's registers and
    /// local memory then) instead of at power-on; works after --load-state too.
    #[arg(long, value_name = "FRAME", requires = "dump_gs")]
    pub dump_gs_at: Option<u64>,
    /// With --dump-gs: record only the first N frames (vertical blanks), the file finished
    /// then while the run goes on.
    #[arg(long, value_name = "N", requires = "dump_gs", value_parser = clap::value_parser!(u64).range(1..))]
    pub dump_gs_frames: Option<u64>,
    /// Write the sound (the SPU2's 48 kHz stereo output) to FILE as a 16-bit WAV, headless or
    /// in a window: the same program, input and options give the same file.
    #[arg(long, value_name = "FILE")]
    pub dump_audio: Option<PathBuf>,
    /// Play no sound in the window (the SPU2 still runs, so timing and --dump-audio are the
    /// same). Headless runs never play sound. The setting `audio = false` does the same.
    #[arg(long, overrides_with = "audio")]
    pub no_audio: bool,
    /// Play the sound in the window, whatever the setting `audio` says.
    #[arg(long, overrides_with = "no_audio")]
    pub audio: bool,
    /// The window's sound volume, 0 to 100 (a linear gain; --dump-audio is not affected).
    /// Default: the setting `volume`, else 100.
    #[arg(long, allow_hyphen_values = true, value_name = "N", value_parser = clap::value_parser!(u8).range(0..=100))]
    pub volume: Option<u8>,
    /// The sound while Tab fast-forwards the window: `mute`, or `stretch` (played at the
    /// game's speed, in step with the picture, higher in pitch). Default: the setting
    /// `fast_forward_audio`, else `mute`.
    #[arg(long, value_enum)]
    pub fast_forward_audio: Option<FastForwardAudio>,
    /// Print run statistics on stderr at the end (guest instructions, emulated time, frames),
    /// and the settings the run used.
    #[arg(long)]
    pub stats: bool,
    /// The EE engine: `jit`, the recompiler, or `interp`, the reference interpreter (the
    /// same state, output and frames, slower). Default: the setting `cpu`, else `jit`.
    #[arg(long, value_enum)]
    pub cpu: Option<CpuEngine>,
    /// With the recompiler: compile a block once N of its instructions ran interpreted (0:
    /// at its first visit; default 8192, where compiling pays for itself).
    #[arg(long, value_name = "N")]
    pub jit_threshold: Option<u32>,
    /// Turn every native hook off: the engine's functions run as emulated guest code.
    #[arg(long)]
    pub no_hle: bool,
    /// The game profile (TOML) naming the functions to hook (our own programs: their symbols).
    #[arg(long, value_name = "FILE")]
    pub profile: Option<PathBuf>,
    /// Play the pads from an input script: lines `F[-G] BUTTON[+BUTTON...]` with vertical blank
    /// numbers, sticks as `lx=N ly=N rx=N ry=N`, `p2:` for port 2 (see piney_input::script).
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,
    /// Keyboard and gamepad buttons from a mapping file (TOML `[keyboard]` and `[gamepad]`
    /// tables; crates/piney-input/default-mapping.toml is the default, spelled out). Default:
    /// the setting `mapping`.
    #[arg(long, value_name = "FILE")]
    pub mapping: Option<PathBuf>,
    /// The memory card in port 1: a folder (the card's files as host files) or a PCSX2 `.ps2`
    /// image; created on the program's first card call when missing. Default: the setting
    /// `memcard1`, else the folder `Mcd001` in piney's data folder (`$XDG_DATA_HOME/piney/memcards`,
    /// `~/.local/share/piney/memcards`, or `%APPDATA%\piney\memcards`).
    #[arg(long, value_name = "PATH")]
    pub memcard1: Option<PathBuf>,
    /// The memory card in port 2, as --memcard1 (default: the setting `memcard2`, else
    /// `Mcd002` beside `Mcd001`).
    #[arg(long, value_name = "PATH")]
    pub memcard2: Option<PathBuf>,
    /// A disc image (ISO, BIN/CUE, CHD, CSO, ZSO) in the drive while a program (an ELF) runs;
    /// `piney run DISC` boots a disc itself.
    #[arg(long, value_name = "IMAGE")]
    pub disc: Option<PathBuf>,
    /// Make every disc command complete at once instead of taking a console's seek, rotation
    /// and transfer time (4x DVD, 24x CD): quicker loads, but a game that streams or times its
    /// loads may behave differently than on a console. Default: the setting `fast_cdvd`, else
    /// off.
    #[arg(long, overrides_with = "no_fast_cdvd")]
    pub fast_cdvd: bool,
    /// Take a console's time for disc commands, whatever the setting `fast_cdvd` says.
    #[arg(long, overrides_with = "fast_cdvd")]
    pub no_fast_cdvd: bool,
    /// The window's initial inner size in pixels, WIDTHxHEIGHT (default: the setting
    /// `window_size`, else 1024x768).
    #[arg(long, value_name = "WxH", value_parser = piney_settings::parse_size)]
    pub window_size: Option<(u32, u32)>,
    /// Open the window in borderless fullscreen (setting `fullscreen`; F11 toggles it).
    #[arg(long, overrides_with = "windowed")]
    pub fullscreen: bool,
    /// Open a window, not fullscreen, whatever the setting `fullscreen` says.
    #[arg(long, overrides_with = "fullscreen")]
    pub windowed: bool,
    /// Tab fast-forwards at N times real time, paced (2 to 8; 0: as fast as it runs).
    /// Default: the setting `speed`, else 0.
    #[arg(long, allow_hyphen_values = true, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=8))]
    pub speed: Option<u32>,
    /// Present at most N pictures a second in the window (1 to 240; 0: no cap); the game still
    /// runs every vertical blank. Default: the setting `fps_cap`, else 0.
    #[arg(long, allow_hyphen_values = true, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=240))]
    pub fps_cap: Option<u32>,
    /// Present at the display's refresh without tearing (setting `vsync`, on by default).
    #[arg(long, overrides_with = "no_vsync")]
    pub vsync: bool,
    /// Present each picture as soon as it is ready (least latency; may tear).
    #[arg(long, overrides_with = "vsync")]
    pub no_vsync: bool,
    /// How the window scales the picture: `sharp` (sharp bilinear: solid texels, only the pixel
    /// two texels share mixed; exactly nearest at integer factors) or `nearest`. Default: the
    /// setting `scaling`, else `sharp`.
    #[arg(long, value_enum)]
    pub scaling: Option<WindowScaling>,
    /// Fill the whole window instead of keeping the picture 4:3 (setting `stretch`).
    #[arg(long, overrides_with = "no_stretch")]
    pub stretch: bool,
    /// Keep the picture 4:3, whatever the setting `stretch` says.
    #[arg(long, overrides_with = "stretch")]
    pub no_stretch: bool,
    /// Start from a save state (written by --save-state-at or the window's F1) instead of
    /// power-on: the same program (and disc) must be given; a state of another program, another
    /// piney version, or a damaged or cut file is refused with one line and exit status 1.
    /// --frames then counts the frames run after the state's.
    #[arg(long, value_name = "FILE")]
    pub load_state: Option<PathBuf>,
    /// Headless: write a save state of the whole machine to FILE when the vertical blank count
    /// reaches FRAME (frames as --dump-frames numbers them, counted from power-on), and run on;
    /// may be given more than once.
    #[arg(long, num_args = 2, value_names = ["FRAME", "FILE"], action = clap::ArgAction::Append)]
    pub save_state_at: Option<Vec<String>>,
    /// In a window with --frames N: keep showing frame N-1 for S seconds, then close (for
    /// tests that screenshot the window).
    #[arg(long, value_name = "S", hide = true)]
    pub hold: Option<f64>,
}

/// A flag pair (`--x` / `--no-x`) over a setting: the flag given last wins, else the setting.
fn pick(on: bool, off: bool, setting: bool) -> bool {
    if on {
        true
    } else if off {
        false
    } else {
        setting
    }
}

impl RunArgs {
    /// The options of this run: each flag given, else its key in `settings`, else the default.
    pub fn resolve(self, settings: &piney_settings::Settings) -> RunOptions {
        use crate::frames::{DumpFormat, RendererKind};
        let s = settings;
        RunOptions {
            headless: self.headless,
            frames: self.frames,
            seconds: self.seconds,
            dump_frames: self.dump_frames,
            capture: self.capture,
            capture_frames: self.capture_frames,
            dump_format: self.dump_format.unwrap_or(match s.dump_format {
                piney_settings::DumpFormat::Presented => DumpFormat::Presented,
                piney_settings::DumpFormat::Display => DumpFormat::Display,
            }),
            deflicker: pick(self.deflicker, self.no_deflicker, s.deflicker),
            screenshot_dir: self.screenshot_dir.or_else(|| s.screenshot_dir.clone()),
            renderer: self.renderer.or(RendererKind::from_setting(s.renderer)),
            render_scale: self.render_scale.unwrap_or(s.render_scale),
            gs_threads: self.gs_threads.or(s.gs_threads),
            gs_general_path: self.gs_general_path,
            dump_gs: self.dump_gs,
            dump_gs_frames: self.dump_gs_frames,
            dump_gs_at: self.dump_gs_at,
            dump_audio: self.dump_audio,
            no_audio: !pick(self.audio, self.no_audio, s.audio),
            volume: self.volume.unwrap_or(s.volume),
            fast_forward_audio: self
                .fast_forward_audio
                .unwrap_or(match s.fast_forward_audio {
                    piney_settings::FastForwardAudio::Mute => FastForwardAudio::Mute,
                    piney_settings::FastForwardAudio::Stretch => FastForwardAudio::Stretch,
                }),
            stats: self.stats,
            cpu: self.cpu.unwrap_or(match s.cpu {
                piney_settings::Cpu::Interp => CpuEngine::Interp,
                piney_settings::Cpu::Jit => CpuEngine::Jit,
            }),
            jit_threshold: self.jit_threshold,
            no_hle: self.no_hle,
            profile: self.profile,
            input: self.input,
            mapping: self.mapping.or_else(|| s.mapping.clone()),
            memcard1: self.memcard1.or_else(|| s.memcard1.clone()),
            memcard2: self.memcard2.or_else(|| s.memcard2.clone()),
            disc: self.disc,
            fast_cdvd: pick(self.fast_cdvd, self.no_fast_cdvd, s.fast_cdvd),
            window_size: self.window_size.unwrap_or(s.window_size),
            fullscreen: pick(self.fullscreen, self.windowed, s.fullscreen),
            speed: self.speed.map_or(s.speed, |n| (n > 0).then_some(n)),
            fps_cap: self.fps_cap.map_or(s.fps_cap, |n| (n > 0).then_some(n)),
            vsync: pick(self.vsync, self.no_vsync, s.vsync),
            scaling: self.scaling.unwrap_or(match s.scaling {
                piney_settings::Scaling::Sharp => WindowScaling::Sharp,
                piney_settings::Scaling::Nearest => WindowScaling::Nearest,
            }),
            stretch: pick(self.stretch, self.no_stretch, s.stretch),
            hold: self.hold,
            load_state: self.load_state,
            save_state_at: self.save_state_at,
            settings_source: String::new(),
            remember_size_in: None,
            program_arg: None,
        }
    }
}

/// The options of one `run` or `demo`: the command line over settings.toml
/// ([`RunArgs::resolve`]). The fields are [`RunArgs`]'s.
#[derive(Debug, Clone)]
#[allow(missing_docs)]
pub struct RunOptions {
    pub headless: bool,
    pub frames: Option<u64>,
    pub seconds: Option<f64>,
    pub dump_frames: Option<PathBuf>,
    pub capture: Option<PathBuf>,
    pub capture_frames: Option<(u64, u64)>,
    pub dump_format: crate::frames::DumpFormat,
    pub deflicker: bool,
    pub screenshot_dir: Option<PathBuf>,
    pub renderer: Option<crate::frames::RendererKind>,
    pub render_scale: u32,
    pub gs_threads: Option<u32>,
    pub gs_general_path: bool,
    pub dump_gs: Option<PathBuf>,
    pub dump_gs_frames: Option<u64>,
    pub dump_gs_at: Option<u64>,
    pub dump_audio: Option<PathBuf>,
    pub no_audio: bool,
    pub volume: u8,
    pub fast_forward_audio: FastForwardAudio,
    pub stats: bool,
    pub cpu: CpuEngine,
    pub jit_threshold: Option<u32>,
    pub no_hle: bool,
    pub profile: Option<PathBuf>,
    pub input: Option<PathBuf>,
    pub mapping: Option<PathBuf>,
    pub memcard1: Option<PathBuf>,
    pub memcard2: Option<PathBuf>,
    pub disc: Option<PathBuf>,
    pub fast_cdvd: bool,
    pub window_size: (u32, u32),
    pub fullscreen: bool,
    pub speed: Option<u32>,
    pub fps_cap: Option<u32>,
    pub vsync: bool,
    pub scaling: WindowScaling,
    pub stretch: bool,
    pub hold: Option<f64>,
    pub load_state: Option<PathBuf>,
    pub save_state_at: Option<Vec<String>>,
    /// The settings file and what was found there (for `--stats`).
    pub settings_source: String,
    /// Where a window's new size is remembered (the settings file read, when the command line
    /// did not give the size).
    pub remember_size_in: Option<PathBuf>,
    /// `run`'s program as the command line gave it (to replace it when a file is dropped on
    /// the window).
    pub program_arg: Option<PathBuf>,
}

impl RunOptions {
    /// The settings this run used, by settings.toml's key names, for `--stats`.
    pub fn settings_line(&self) -> String {
        let path = |p: &Option<PathBuf>| {
            format!(
                "{:?}",
                p.as_ref()
                    .map(|p| p.display().to_string())
                    .unwrap_or_default()
            )
        };
        let lower = |s: String| s.to_ascii_lowercase();
        format!(
            "renderer={} render_scale={} gs_threads={} deflicker={} fullscreen={} window_size={}x{} dump_format={} screenshot_dir={} mapping={} memcard1={} memcard2={} audio={} volume={} fast_forward_audio={} cpu={} fast_cdvd={} speed={} fps_cap={} vsync={} scaling={} stretch={}",
            self.renderer
                .map_or("auto".to_string(), |r| lower(format!("{r:?}"))),
            self.render_scale,
            self.gs_threads.unwrap_or(0),
            self.deflicker,
            self.fullscreen,
            self.window_size.0,
            self.window_size.1,
            lower(format!("{:?}", self.dump_format)),
            path(&self.screenshot_dir),
            path(&self.mapping),
            path(&self.memcard1),
            path(&self.memcard2),
            !self.no_audio,
            self.volume,
            lower(format!("{:?}", self.fast_forward_audio)),
            lower(format!("{:?}", self.cpu)),
            self.fast_cdvd,
            self.speed.unwrap_or(0),
            self.fps_cap.unwrap_or(0),
            self.vsync,
            lower(format!("{:?}", self.scaling)),
            self.stretch,
        )
    }
}

/// `--seconds`: a positive, finite number of seconds (`-1` is read as a value and refused,
/// not taken for an unknown flag).
pub fn parse_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        Ok(_) => Err(format!("{s} is not a positive number of seconds")),
        Err(_) => Err(format!("{s} is not a number of seconds")),
    }
}

/// `--fast-forward-audio`.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum FastForwardAudio {
    /// Silence while fast-forwarding.
    Mute,
    /// The sound at the game's speed.
    Stretch,
}

impl From<FastForwardAudio> for piney_frontend::FastForwardAudio {
    fn from(f: FastForwardAudio) -> Self {
        match f {
            FastForwardAudio::Mute => piney_frontend::FastForwardAudio::Mute,
            FastForwardAudio::Stretch => piney_frontend::FastForwardAudio::Stretch,
        }
    }
}

/// The window's filters.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowScaling {
    /// Sharp bilinear.
    Sharp,
    /// Nearest neighbour.
    Nearest,
}

/// The EE engines.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum CpuEngine {
    /// The reference interpreter.
    Interp,
    /// The recompiler.
    Jit,
}

/// `--stats`: the host time the IOP's slices take (measured here, at the edge: the machine
/// holds no clock).
struct IopClock {
    since: Option<std::time::Instant>,
    total: std::rc::Rc<std::cell::Cell<f64>>,
}

impl IopClock {
    fn mark(&mut self, start: bool) {
        if start {
            self.since = Some(std::time::Instant::now());
        } else if let Some(t) = self.since.take() {
            self.total.set(self.total.get() + t.elapsed().as_secs_f64());
        }
    }
}

impl piney_machine::sif::IopWatch for IopClock {
    fn slice(&mut self, start: bool) {
        self.mark(start);
    }
}

/// The same clock for the SPU2's batches of samples.
impl piney_machine::sif::SectionWatch for IopClock {
    fn section(&mut self, start: bool) {
        self.mark(start);
    }
}

/// piney's folder for the player's data (memory cards): `$XDG_DATA_HOME/piney`, else
/// `~/.local/share/piney`, else `%APPDATA%\piney`; `None` when the environment names none
/// (the cards are then empty unless given).
pub fn data_folder() -> Option<PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    var("XDG_DATA_HOME")
        .or_else(|| var("HOME").map(|h| h.join(".local/share")))
        .or_else(|| var("APPDATA"))
        .map(|d| d.join("piney"))
}

/// `piney run`: the program, module or disc at `path` (told apart by content: an ELF or IRX
/// file runs as a program, anything else is opened as a disc image).
pub fn run(path: &Path, opts: &RunOptions) -> ExitCode {
    let mut head = [0u8; 4];
    let is_elf = match std::fs::File::open(path).and_then(|mut f| {
        use std::io::Read;
        f.read(&mut head)
    }) {
        Ok(n) => n == 4 && head == *b"\x7fELF",
        Err(e) => {
            eprintln!("piney: cannot read {}: {e}", path.display());
            return ExitCode::from(1);
        }
    };
    // `host:` is the program's (or the image's) folder, as PCSX2's host file system is.
    let folder = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if !is_elf {
        return boot_disc(path, opts, folder);
    }
    let image = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("piney: cannot read {}: {e}", path.display());
            return ExitCode::from(1);
        }
    };
    let disc = match &opts.disc {
        Some(d) => match piney_machine::disc::ImageDisc::open(d) {
            Ok(d) => Some(d),
            Err(e) => {
                eprintln!("piney: --disc {e}");
                return ExitCode::from(1);
            }
        },
        None => None,
    };
    let file = path.file_name().map_or_else(
        || path.display().to_string(),
        |f| f.to_string_lossy().into_owned(),
    );
    let boot = Boot {
        // argv[0], as LoadExecPS2 gives it: the program's path on the device it came from, here
        // `host:` (the program's folder).
        argv0: format!("host:{file}"),
        disc,
        serial: None,
    };
    run_image(
        &image,
        &path.display().to_string(),
        opts,
        false,
        Some(folder),
        boot,
    )
}

/// How a program is started: its argv[0], the disc in the drive, the disc's serial.
pub struct Boot {
    /// argv[0] (`host:NAME`, `cdrom0:\SLUS_202.67;1`).
    pub argv0: String,
    /// The disc in the drive.
    pub disc: Option<piney_machine::disc::ImageDisc>,
    /// The disc's serial, which picks the game's profile.
    pub serial: Option<String>,
}

impl Boot {
    /// A program from the host with no disc: argv[0] `host:NAME`.
    pub fn host(name: &str) -> Self {
        Self {
            argv0: format!("host:{name}"),
            disc: None,
            serial: None,
        }
    }
}

/// `piney run DISC`: boot a disc as the BIOS does: SYSTEM.CNF's BOOT2 names the ELF, which is
/// loaded from the disc and run with it as argv[0], the disc in the drive.
fn boot_disc(path: &Path, opts: &RunOptions, folder: &Path) -> ExitCode {
    if opts.disc.is_some() {
        eprintln!(
            "piney: --disc is for running a program with a disc in the drive; {} is booted as the disc itself",
            path.display()
        );
        return ExitCode::from(2);
    }
    let image = match piney_disc::open(path) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("piney: {e} (and it is not an ELF program)");
            return ExitCode::from(1);
        }
    };
    let booted = (|| {
        let mut fs = image.into_filesystem()?;
        let info = fs.boot_info()?;
        let elf = fs.read_file(&info.boot_file, piney_machine::disc::MAX_PROGRAM_BYTES)?;
        let layer1 = fs.layer1_start();
        Ok::<_, piney_disc::DiscError>((
            info,
            elf,
            piney_machine::disc::ImageDisc::new(fs.into_inner(), layer1),
        ))
    })();
    let (info, elf, disc) = match booted {
        Ok(b) => b,
        Err(e) => {
            eprintln!("piney: {e}");
            return ExitCode::from(1);
        }
    };
    let boot = Boot {
        argv0: info.boot_path.clone(),
        disc: Some(disc),
        serial: info.serial.clone(),
    };
    let name = format!("{} ({})", path.display(), info.boot_path);
    run_image(&elf, &name, opts, false, Some(folder), boot)
}

/// Run an ELF image. Exit status 0 when the guest exits or a limit is reached; 1 on a guest
/// fault or bad input, with one line on stderr; 2 for a bad option. `own_program`: without
/// `--profile`, derive the hooks' profile from the image's symbol table (our own programs).
/// `host`: the folder `host:` names (the current folder when `None`).
pub fn run_image(
    image: &[u8],
    name: &str,
    opts: &RunOptions,
    own_program: bool,
    host: Option<&Path>,
    boot: Boot,
) -> ExitCode {
    if let Some(s) = opts.seconds
        && !(s.is_finite() && s >= 0.0)
    {
        eprintln!("piney: --seconds must be a non-negative number, not {s}");
        return ExitCode::from(2);
    }
    if opts.stats {
        eprintln!(
            "piney: settings {}: {}",
            opts.settings_source,
            opts.settings_line()
        );
    }
    // Read before the run starts, so that a bad file is one error line, window or not.
    let mapping = match &opts.mapping {
        Some(file) => match piney_input::Mapping::load(file) {
            Ok(m) => Some(m),
            Err(e) => {
                eprintln!("piney: --mapping {e}");
                return ExitCode::from(1);
            }
        },
        None => None,
    };
    let made = crate::frames::make_renderer(
        opts.renderer,
        !opts.headless,
        opts.render_scale,
        opts.gs_threads,
        opts.gs_general_path,
    );
    let (gs_name, gs_threads, gs_times) = (made.name, made.threads, made.times);
    let shared_gpu = made.shared_gpu;
    let mut machine = Machine::new(Box::new(std::io::stdout()));
    machine.attach_renderer(made.renderer);
    let card = |given: &Option<PathBuf>, n: u32| {
        given
            .clone()
            .or_else(|| data_folder().map(|d| d.join("memcards").join(format!("Mcd00{n}"))))
    };
    machine.set_memcards(card(&opts.memcard1, 1), card(&opts.memcard2, 2));
    if let Some(folder) = host {
        machine.bus.iop.set_host_root(folder.to_path_buf());
    }
    if let Some(file) = &opts.input {
        match piney_input::script::InputScript::load(file) {
            Ok(script) => machine.set_pad_input(Box::new(
                piney_machine::sif::padman::ScriptPads::new(script),
            )),
            Err(e) => {
                eprintln!("piney: --input {e}");
                return ExitCode::from(1);
            }
        }
    }
    if opts.cpu == CpuEngine::Jit
        && let Err(e) = machine.use_recompiler()
    {
        eprintln!("piney: --cpu jit: {e}");
        return ExitCode::from(1);
    }
    if let (Some(n), Some(jit)) = (opts.jit_threshold, &mut machine.jit) {
        jit.set_hot_threshold(n);
    }
    let irx = piney_machine::is_irx(image);
    machine.bus.iop.cdvd.fast = opts.fast_cdvd;
    machine.kernel.args = vec![boot.argv0.clone()];
    // Screenshots and captures are named by the disc's serial, else the program's name.
    let file_name = boot.serial.clone().unwrap_or_else(|| name.to_string());
    if let Some(disc) = boot.disc {
        machine.insert_disc(Some(Box::new(disc)));
    }
    let loaded = if irx {
        // An IOP module: run on its own beside an idle EE program.
        machine.load_irx(name, image)
    } else {
        machine.load_elf(image)
    };
    if let Err(e) = loaded {
        eprintln!("piney: {name}: {e}");
        return ExitCode::from(1);
    }
    if !opts.no_hle && !irx {
        let profile = match &opts.profile {
            Some(file) => match piney_engine::Profile::load(file) {
                Ok(p) => Some(p),
                Err(e) => {
                    eprintln!("piney: --profile {e}");
                    return ExitCode::from(1);
                }
            },
            None if boot.serial.is_some() => {
                crate::info::profile_for(boot.serial.as_deref().unwrap_or_default())
            }
            None if own_program => match piney_engine::Profile::from_elf_symbols(image) {
                Ok(p) => Some(p),
                Err(e) => {
                    eprintln!("piney: warning: {name}: no hooks: {e}");
                    None
                }
            },
            None => None,
        };
        let profile = profile.and_then(|p| {
            let source = p.source.clone();
            p.resolve(image)
                .map_err(|e| eprintln!("piney: warning: {source}: no hooks: {e}"))
                .ok()
        });
        if let Some(p) = profile {
            for w in piney_engine::install(&mut machine, &p, image).warnings {
                eprintln!("piney: warning: {w}");
            }
        }
    }
    if let Some(path) = &opts.dump_gs
        && opts.dump_gs_at.is_none()
    {
        // From the loaded program's first instruction: the GS as at power-on (after a loaded
        // state, --dump-gs-at says where to start from the GS's state then).
        if opts.load_state.is_some() {
            eprintln!(
                "piney: --dump-gs records from power-on; after --load-state give --dump-gs-at FRAME"
            );
            return ExitCode::from(2);
        }
        if let Err(e) = machine.bus.gif.gs.start_capture(path, "", 0) {
            eprintln!("piney: --dump-gs {}: {e}", path.display());
            return ExitCode::from(1);
        }
        if let Some(n) = opts.dump_gs_frames {
            machine.bus.gif.gs.limit_capture(n);
        }
    }
    let wav = match &opts.dump_audio {
        Some(path) => match crate::audio::WavDump::create(path) {
            Ok(w) => {
                machine.set_audio_sink(Box::new(w.clone()));
                Some(w)
            }
            Err(e) => {
                eprintln!("piney: {e}");
                return ExitCode::from(1);
            }
        },
        None => None,
    };
    let program = program_identity(image, boot.serial.as_deref());
    let mut save_at = Vec::new();
    for pair in opts
        .save_state_at
        .iter()
        .flatten()
        .collect::<Vec<_>>()
        .chunks(2)
    {
        match (pair[0].parse::<u64>(), pair.get(1)) {
            (Ok(_), Some(_)) if !opts.headless => {
                eprintln!(
                    "piney: --save-state-at is for headless runs (--headless); in the window F1 saves"
                );
                return ExitCode::from(2);
            }
            (Ok(frame), Some(file)) => save_at.push((frame, PathBuf::from(file))),
            _ => {
                eprintln!(
                    "piney: --save-state-at FRAME FILE: {} is not a frame number",
                    pair[0]
                );
                return ExitCode::from(2);
            }
        }
    }
    save_at.sort_by_key(|(f, _)| *f);
    if let Some(file) = &opts.load_state {
        let loaded = std::fs::read(file)
            .map_err(|e| e.to_string())
            .and_then(|bytes| {
                machine
                    .load_state(&bytes, &program)
                    .map_err(|e| e.to_string())
            });
        if let Err(e) = loaded {
            eprintln!("piney: --load-state {}: {e}", file.display());
            return ExitCode::from(1);
        }
        eprintln!(
            "piney: state loaded from {} (frame {})",
            file.display(),
            machine.vblank_count
        );
    }
    if let (Some(path), Some(from)) = (&opts.dump_gs, opts.dump_gs_at) {
        // Started by the machine at the first clean vertical blank from `from`.
        let serial = boot.serial.as_deref().unwrap_or_default();
        machine
            .bus
            .gif
            .gs
            .arm_capture(path, opts.dump_gs_frames, serial, 0, from);
    }
    let iop_time = std::rc::Rc::new(std::cell::Cell::new(0.0f64));
    let spu2_time = std::rc::Rc::new(std::cell::Cell::new(0.0f64));
    // The clocks feed --stats and the window's performance overlay (F9).
    if opts.stats || !opts.headless {
        machine.set_iop_watch(Box::new(IopClock {
            since: None,
            total: iop_time.clone(),
        }));
        machine.set_spu2_watch(Box::new(IopClock {
            since: None,
            total: spu2_time.clone(),
        }));
    }
    let started = std::time::Instant::now();
    // A program or disc image dropped on the window, booted once this run has ended.
    let mut boot_next: Option<PathBuf> = None;
    let result = if opts.headless {
        run_headless(&mut machine, opts, &save_at, &program)
    } else {
        let names = crate::window::Names {
            title: name,
            files: &file_name,
        };
        let perf = crate::window::PerfClocks {
            iop: iop_time.clone(),
            spu2: spu2_time.clone(),
            gs: gs_times.clone(),
        };
        let states = crate::window::StateSlots {
            dir: data_folder().map(|d| d.join("states")),
            name: slot_name(name, boot.serial.as_deref()),
            program: program.clone(),
            slot: 0,
        };
        match crate::window::run(
            &mut machine,
            opts,
            names,
            perf,
            mapping,
            wav.as_ref(),
            states,
            shared_gpu.clone(),
        ) {
            Ok(next) => {
                boot_next = next;
                Ok(RunEnd::Exited(machine.exit_status().unwrap_or(0)))
            }
            Err(e) => {
                eprintln!("piney: {e}");
                return ExitCode::from(1);
            }
        }
    };
    if opts.stats {
        let wall = started.elapsed().as_secs_f64();
        let emulated = machine.cpu.cycles as f64 / piney_machine::EE_CLOCK_HZ as f64;
        eprintln!(
            "piney: guest instructions: {}, emulated {emulated:.3} s in {wall:.3} s ({:.1}x real time), {} vblanks; EE pc {:#010x}, IOP pc {:#010x}",
            machine.guest_instructions(),
            emulated / wall.max(1e-9),
            machine.vblank_count,
            machine.cpu.pc,
            machine.bus.iop.cpu.pc
        );
        if let Some(jit) = &machine.jit {
            let s = jit.stats();
            let native: u64 = s.native.iter().sum();
            let ms = s.compile_time.as_secs_f64() * 1e3;
            eprintln!(
                "piney: recompiler: {} blocks compiled ({} instructions, {:.1}% native), {ms:.1} ms compiling ({:.0} us a block; {} on the compile thread ({} requested ahead of their first run), {} taken back from its queue while it was busy, {} more thrown away there as their code changed); {} block runs ({} of them passes of a block looping on itself); block exits: {} chained ({:.2}%), {} back to the dispatcher, {} instructions interpreted; {} passes of poll loops moved over; {} blocks compiled again without keeping a register 32-bit across their loop",
                s.blocks_compiled,
                s.compiled_instructions,
                100.0 * native as f64 / s.compiled_instructions.max(1) as f64,
                1e3 * ms / s.blocks_compiled.max(1) as f64,
                s.compiled_in_background,
                s.compiled_ahead,
                s.compiled_taken_back,
                s.compiles_dropped,
                s.block_runs,
                s.loop_passes,
                s.chained,
                100.0 * s.chained as f64 / (s.chained + s.dispatched).max(1) as f64,
                s.dispatched,
                s.interp_steps,
                s.poll_passes,
                s.assumption_misses,
            );
        }
        // What the IOP cost: its instructions, the host time of its slices, and the frame rate
        // the run would have had without that time.
        let iop = iop_time.get();
        let frames = machine.vblank_count as f64;
        eprintln!(
            "piney: IOP: {} instructions, {iop:.3} s in its slices ({:.1}% of the run): {:.1} frames/s, {:.1} without the IOP's time",
            machine.bus.iop.instructions,
            100.0 * iop / wall.max(1e-9),
            frames / wall.max(1e-9),
            frames / (wall - iop).max(1e-9)
        );
        // What the EE's engine (`--cpu`) cost: its thread's own time, the run less the IOP's
        // slices (the SPU2's samples inside them) and the waits for the GS: a run the GS bounds
        // has the GS's real-time factor whichever engine runs the EE, this figure shows the
        // engine's. It holds the machine's own work on that thread too (DMA, the kernel's
        // services, events) and the run's start, and is wall time: where busy threads outnumber
        // the cores, also the time the thread waited for one.
        let ee = (wall - iop - gs_times.waited()).max(0.0);
        eprintln!(
            "piney: EE: its thread's own time {ee:.3} s ({:.1}% of the run: the run less the IOP's slices and the waits for the GS), {:.1} million guest instructions a second of it",
            100.0 * ee / wall.max(1e-9),
            machine.guest_instructions() as f64 / ee.max(1e-9) / 1e6
        );
        // What the GS cost: its renderer's own thread(s), and how long the EE's thread waited
        // for it (a full queue, readbacks, the picture).
        eprintln!(
            "piney: GS: renderer {gs_name} on {gs_threads} thread(s), busy {:.3} s ({:.1}% of the run); the EE waited {:.3} s for it",
            gs_times.busy(),
            100.0 * gs_times.busy() / wall.max(1e-9),
            gs_times.waited()
        );
        if let Some(line) = machine.bus.gif.gs.renderer_report() {
            eprintln!("piney: GS: {line}");
        }
        // What the sound cost: the SPU2's samples (inside the IOP's slices).
        let spu2 = spu2_time.get();
        eprintln!(
            "piney: SPU2: {spu2:.3} s making its samples ({:.1}% of the run): {:.1} frames/s without it",
            100.0 * spu2 / wall.max(1e-9),
            frames / (wall - spu2).max(1e-9)
        );
        // By address: piney's resume points (kernel RAM) first, then the game's functions.
        let mut hooks: Vec<_> = machine.hooks.iter().collect();
        hooks.sort_by_key(|(addr, _)| *addr);
        for (addr, hook) in hooks {
            eprintln!(
                "piney: hook {} at {addr:#010x}: {} calls",
                hook.name, hook.calls
            );
        }
    }
    machine.flush_audio();
    if let Some(w) = &wav
        && let Err(e) = w.finish()
    {
        eprintln!("piney: {e}");
        return ExitCode::from(1);
    }
    let gs_dump = machine.bus.gif.gs.finish_capture();
    if let (Some(path), None, Some(from)) = (&opts.dump_gs, &gs_dump, opts.dump_gs_at) {
        eprintln!(
            "piney: --dump-gs {}: not started: no vertical blank from {from} on found the GS between commands",
            path.display()
        );
        return ExitCode::from(1);
    }
    if let (Some(path), Some(done)) = (&opts.dump_gs, gs_dump) {
        match done {
            Ok(frames) => match machine.bus.gif.gs.capture_started_at() {
                Some(at) => eprintln!(
                    "piney: --dump-gs {}: {frames} frames from vertical blank {at}",
                    path.display()
                ),
                None => eprintln!("piney: --dump-gs {}: {frames} frames", path.display()),
            },
            Err(e) => {
                eprintln!("piney: --dump-gs {}: {e}", path.display());
                return ExitCode::from(1);
            }
        }
    }
    if let Some(path) = boot_next {
        return reexec(&path, opts);
    }
    match result {
        Ok(RunEnd::Exited(status)) => {
            // DESIGN.md section 7: a guest that exits ends the run with status 0; its own status
            // is reported on stderr when it is not 0.
            if status != 0 {
                eprintln!("piney: the guest exited with status {status}");
            }
            ExitCode::SUCCESS
        }
        Ok(RunEnd::FrameLimit | RunEnd::TimeLimit) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("piney: {e}");
            ExitCode::from(1)
        }
    }
}

/// What a save state records as the program: the boot ELF's FNV-1a hash, and the disc's
/// serial when a disc was booted.
pub fn program_identity(image: &[u8], serial: Option<&str>) -> String {
    let elf = format!("ELF {:016x}", piney_engine::fnv1a64(image));
    match serial {
        Some(s) => format!("{elf} from disc {s}"),
        None => elf,
    }
}

/// The name of the window's save state files: the disc's serial, else the program's file
/// name, with only letters, digits, `.`, `_` and `-`.
fn slot_name(name: &str, serial: Option<&str>) -> String {
    let base = serial.unwrap_or_else(|| {
        Path::new(name)
            .file_name()
            .and_then(|f| f.to_str())
            .unwrap_or(name)
    });
    base.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Whether `path` is something `piney run` boots: an ELF (or IRX), or a disc image with a
/// SYSTEM.CNF naming its boot file. `Err` says why not.
pub fn bootable(path: &Path) -> Result<(), String> {
    let mut head = [0u8; 4];
    let n = std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read(&mut f, &mut head))
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if n == 4 && head == *b"\x7fELF" {
        return Ok(());
    }
    piney_disc::open(path)
        .and_then(|d| d.into_filesystem())
        .and_then(|mut fs| fs.boot_info())
        .map(|_| ())
        .map_err(|e| format!("{e} (and it is not an ELF program)"))
}

/// The options a run given only to one program: not carried over to a dropped one.
const PER_PROGRAM: &[(&str, usize)] = &[
    ("--load-state", 1),
    ("--save-state-at", 2),
    ("--capture", 1),
    ("--capture-frames", 1),
    ("--dump-gs", 1),
    ("--dump-gs-frames", 1),
    ("--dump-audio", 1),
    ("--dump-frames", 1),
    ("--input", 1),
    ("--disc", 1),
    ("--profile", 1),
    ("--frames", 1),
    ("--seconds", 1),
    ("--hold", 1),
];

/// The command line that boots `dropped` in place of this run: `run DROPPED` and this run's
/// options (`args` without the program name), less its subcommand, its program (`program`, for
/// `run`) and the options [`PER_PROGRAM`] names (with their values, `--x v` or `--x=v`).
pub fn reexec_args(
    args: &[std::ffi::OsString],
    program: Option<&Path>,
    dropped: &Path,
) -> Vec<std::ffi::OsString> {
    let mut out: Vec<std::ffi::OsString> = vec!["run".into(), dropped.into()];
    let mut rest = args.iter().skip(1).peekable();
    let mut program_seen = program.is_none();
    while let Some(a) = rest.next() {
        let text = a.to_string_lossy();
        if let Some((_, n)) = PER_PROGRAM.iter().find(|(o, _)| text == *o) {
            for _ in 0..*n {
                rest.next();
            }
            continue;
        }
        if PER_PROGRAM
            .iter()
            .any(|(o, _)| text.starts_with(&format!("{o}=")))
        {
            continue;
        }
        if !program_seen && program.is_some_and(|p| p.as_os_str() == a.as_os_str()) {
            program_seen = true;
            continue;
        }
        out.push(a.clone());
    }
    out
}

/// Boots `dropped` as `piney run` would, with this run's options, in a new process (winit
/// allows one window a process), and exits with its status.
fn reexec(dropped: &Path, opts: &RunOptions) -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("piney: cannot boot {}: {e}", dropped.display());
            return ExitCode::from(1);
        }
    };
    let mut next = args.get(1..).unwrap_or_default().to_vec();
    // The subcommand (`run` or `demo`) is replaced.
    if !next.is_empty() {
        next.remove(0);
    }
    next.insert(0, "piney".into());
    let new = reexec_args(&next, opts.program_arg.as_deref(), dropped);
    eprintln!("piney: booting {}", dropped.display());
    match std::process::Command::new(exe).args(&new).status() {
        Ok(s) => ExitCode::from(s.code().unwrap_or(1).clamp(0, 255) as u8),
        Err(e) => {
            eprintln!("piney: cannot boot {}: {e}", dropped.display());
            ExitCode::from(1)
        }
    }
}

/// Why a headless run stopped abnormally.
#[derive(Debug, thiserror::Error)]
pub enum HeadlessError {
    /// The machine stopped.
    #[error(transparent)]
    Machine(#[from] MachineError),
    /// A frame could not be written.
    #[error("--dump-frames: {0}")]
    Frames(#[from] piney_gs::ImageError),
    /// An animated capture could not be written.
    #[error("{0}")]
    Capture(String),
    /// A save state could not be written.
    #[error("--save-state-at {path}: {what}")]
    State {
        /// The file.
        path: String,
        /// Why.
        what: String,
    },
    /// The frame folder could not be made.
    #[error("--dump-frames {path}: {source}")]
    Folder {
        /// The folder.
        path: String,
        /// Why.
        source: std::io::Error,
    },
}

/// The picture at this moment in `format`: the PCRTC's merge of the read circuits, presented
/// (moved by the display offset, 4:3) or as the display circuits' own pixels.
pub fn presented_frame(
    machine: &mut Machine,
    deflicker: bool,
    format: FrameFormat,
) -> Option<Image> {
    let shown = machine.frame(Pcrtc { deflicker })?;
    // Nothing displayed yet (no read circuit enabled) gives a black NTSC picture.
    Some(format.apply_at(&shown.image, shown.presenter, shown.scale))
}

fn run_headless(
    machine: &mut Machine,
    opts: &RunOptions,
    save_at: &[(u64, PathBuf)],
    program: &str,
) -> Result<RunEnd, HeadlessError> {
    // --frames counts the frames of this run: after a loaded state's.
    let end = opts.frames.map(|f| f + machine.vblank_count);
    if let Some(dir) = &opts.dump_frames {
        std::fs::create_dir_all(dir).map_err(|source| HeadlessError::Folder {
            path: dir.display().to_string(),
            source,
        })?;
    }
    let mut capture = match &opts.capture {
        Some(path) => {
            let most = opts.frames;
            Some(
                crate::capture::FrameCapture::new(path, opts.capture_frames, most)
                    .map_err(HeadlessError::Capture)?,
            )
        }
        None => None,
    };
    let result = frame_by_frame(machine, opts, save_at, program, end, capture.as_mut());
    if let Some(c) = capture {
        // After a failed run the file is closed and the run's error is the one line said.
        let line = c.finish();
        if result.is_ok() {
            eprintln!("piney: {}", line.map_err(HeadlessError::Capture)?);
        }
    }
    result
}

/// A headless run to `end`: save states made at their frames, and each frame written where
/// the options say (one vertical blank at a time then; the frame shown as vertical blank N
/// starts is frame N-1).
fn frame_by_frame(
    machine: &mut Machine,
    opts: &RunOptions,
    save_at: &[(u64, PathBuf)],
    program: &str,
    end: Option<u64>,
    mut capture: Option<&mut crate::capture::FrameCapture>,
) -> Result<RunEnd, HeadlessError> {
    // The saves still to make, in frame order.
    let start = machine.vblank_count;
    let mut saves = save_at.iter().filter(|(f, _)| *f >= start).peekable();
    loop {
        while let Some((frame, path)) = saves.next_if(|(f, _)| *f == machine.vblank_count) {
            let written = machine
                .save_state(program)
                .map_err(|e| e.to_string())
                .and_then(|b| std::fs::write(path, b).map_err(|e| e.to_string()));
            written.map_err(|what| HeadlessError::State {
                path: path.display().to_string(),
                what,
            })?;
            eprintln!("piney: state saved to {} (frame {frame})", path.display());
        }
        if end.is_some_and(|f| machine.vblank_count >= f) {
            return Ok(RunEnd::FrameLimit);
        }
        // One vertical blank at a time while frames are written; else up to the next save or
        // the end.
        let mut stop = end;
        if opts.dump_frames.is_some() || capture.is_some() {
            let next = machine.vblank_count + 1;
            stop = Some(stop.map_or(next, |f| f.min(next)));
        }
        if let Some((frame, _)) = saves.peek() {
            stop = Some(stop.map_or(*frame, |f| f.min(*frame)));
        }
        let before = machine.vblank_count;
        match machine.run(RunLimits {
            frames: stop,
            seconds: opts.seconds,
        })? {
            RunEnd::FrameLimit => {
                if machine.vblank_count == before {
                    continue;
                }
                let n = machine.vblank_count - 1;
                let wanted = capture.as_ref().is_some_and(|c| c.wants(n));
                if (opts.dump_frames.is_some() || wanted)
                    && let Some(img) =
                        presented_frame(machine, opts.deflicker, opts.dump_format.into())
                {
                    if let Some(dir) = &opts.dump_frames {
                        img.write_png(&dir.join(Image::frame_file_name(n)))?;
                    }
                    if let Some(c) = capture.as_deref_mut() {
                        c.offer(n, &img).map_err(HeadlessError::Capture)?;
                    }
                }
            }
            other => return Ok(other),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_dropped_file_runs_with_this_runs_options() {
        use std::ffi::OsString;
        use std::path::Path;
        let args = |v: &[&str]| v.iter().map(OsString::from).collect::<Vec<_>>();
        // `piney demo --render-scale 2 --frames 600 --load-state s.state --volume=50`: the
        // subcommand is already gone (args[0] is the program's name).
        let got = super::reexec_args(
            &args(&[
                "piney",
                "--render-scale",
                "2",
                "--frames",
                "600",
                "--load-state",
                "s.state",
                "--volume=50",
                "--capture-frames=1-2",
            ]),
            None,
            Path::new("/games/x.iso"),
        );
        assert_eq!(
            got,
            args(&["run", "/games/x.iso", "--render-scale", "2", "--volume=50"])
        );
        // `piney run old.elf --save-state-at 10 a.state --cpu interp`: the old program goes.
        let got = super::reexec_args(
            &args(&[
                "piney",
                "old.elf",
                "--save-state-at",
                "10",
                "a.state",
                "--cpu",
                "interp",
            ]),
            Some(Path::new("old.elf")),
            Path::new("new.elf"),
        );
        assert_eq!(got, args(&["run", "new.elf", "--cpu", "interp"]));
    }

    #[test]
    fn what_can_be_booted() {
        let dir = std::env::temp_dir().join(format!("piney-bootable-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let elf = dir.join("a.elf");
        std::fs::write(&elf, b"\x7fELF\x01\x01\x01").unwrap();
        assert_eq!(super::bootable(&elf), Ok(()));
        let junk = dir.join("junk.bin");
        std::fs::write(&junk, b"not a program").unwrap();
        let e = super::bootable(&junk).unwrap_err();
        assert!(e.contains("not an ELF"), "{e}");
        assert!(super::bootable(&dir.join("missing")).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn seconds_are_positive_numbers() {
        assert_eq!(super::parse_seconds("2.5"), Ok(2.5));
        for bad in ["-1", "0", "inf", "NaN", "x"] {
            assert!(super::parse_seconds(bad).is_err(), "{bad}");
        }
    }
}
