//! `piney replay` (PCSX2 GS dumps through piney's GS) and `piney compare` (frames against frames).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use piney_frontend::SharedGpu;
use piney_gs::compare::{CompareOptions, compare_paths};
use piney_gs::dump::{ReplayOptions, replay_file};

/// The renderers.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum RendererKind {
    /// The exact software reference rasteriser.
    Sw,
    /// The GS on wgpu compute shaders (equal to `sw` at scale 1).
    Wgpu,
}

impl RendererKind {
    /// The renderer the setting `renderer` names (`None`: `auto`, the default choice).
    pub fn from_setting(r: piney_settings::Renderer) -> Option<RendererKind> {
        match r {
            piney_settings::Renderer::Auto => None,
            piney_settings::Renderer::Sw => Some(RendererKind::Sw),
            piney_settings::Renderer::Wgpu => Some(RendererKind::Wgpu),
        }
    }
}

/// The renderer `kind` names (or the default when none is given), built by the binary and
/// handed to the machine, on its own thread. The default is `wgpu` in a window where a hardware
/// adapter exists and `sw` otherwise (a software adapter such as lavapipe draws the same
/// pixels, slower than the native software renderer). `wgpu` with no adapter falls back to `sw`
/// with one line saying so.
///
/// `scale` is the render scale (1 to 8): both renderers draw the frame that many times larger
/// by the same rules (piney_gs::SoftwareRenderer's text). `gs_threads` is the number of threads
/// the software renderer draws on (default: [`default_gs_threads`]).
pub fn make_renderer(
    kind: Option<RendererKind>,
    windowed: bool,
    scale: u32,
    gs_threads: Option<u32>,
    general_path: bool,
) -> MadeRenderer {
    let threaded = |name: &'static str, r: piney_gs::ThreadedRenderer| MadeRenderer {
        name,
        times: r.times(),
        renderer: Box::new(r),
        threads: 1,
        shared_gpu: None,
    };
    // In a window, the wgpu renderer draws on a device the window presents from, so its
    // pictures reach the screen without a CPU copy.
    let wgpu = || -> Result<(piney_gs_wgpu::WgpuRenderer, Option<SharedGpu>), String> {
        if !windowed {
            return Ok((piney_gs_wgpu::WgpuRenderer::with_scale(scale)?, None));
        }
        let shared = SharedGpu::new(|a| piney_gs_wgpu::WgpuRenderer::required_limits(a, scale))
            .map_err(|e| e.to_string())?;
        let r = piney_gs_wgpu::WgpuRenderer::on_device(
            shared.device().clone(),
            shared.queue().clone(),
            &shared.adapter_info(),
            scale,
            shared.error_slot(),
        )?;
        Ok((r, Some(shared)))
    };
    let on_gpu = |(r, shared_gpu): (piney_gs_wgpu::WgpuRenderer, Option<SharedGpu>)| MadeRenderer {
        shared_gpu,
        ..threaded("wgpu", start(r, windowed))
    };
    let sw = || {
        let threads = gs_threads.unwrap_or_else(default_gs_threads);
        let r = if general_path {
            piney_gs::SoftwareRenderer::general_only(scale)
        } else {
            piney_gs::SoftwareRenderer::with_scale(scale)
        }
        .with_threads(threads);
        let threads = r.threads();
        MadeRenderer {
            threads,
            ..threaded("sw", start(r, windowed))
        }
    };
    match kind {
        Some(RendererKind::Sw) => sw(),
        None if !windowed => sw(),
        Some(RendererKind::Wgpu) => match wgpu() {
            Ok(made) => on_gpu(made),
            Err(e) => {
                eprintln!("piney: --renderer wgpu: {e}; drawing with the software renderer");
                sw()
            }
        },
        None => match wgpu() {
            Ok(made) if !made.0.is_software() => on_gpu(made),
            _ => sw(),
        },
    }
}

/// The renderer thread's nice value in a window.
const WINDOW_RENDERER_NICE: i32 = 5;

/// `r` on its own thread: in a window at nice [`WINDOW_RENDERER_NICE`], so that where cores
/// are short the window's thread (the emulation, its pacing and presents) and the display
/// server go first; the renderer has a vblank of slack (pictures are presented when the next
/// vblank is due). Measured on 2 cores, lavapipe under Xvfb, the demo at 30 fps for 20 s:
/// presented-frame jitter sd 1.7 ms, p99 8-9 ms at nice 0; sd 1.2-1.4 ms, p99 3.4-4 ms at 5.
/// Headless runs keep the normal priority (throughput is all they need).
fn start<R: piney_gs::Renderer + Send + 'static>(
    r: R,
    windowed: bool,
) -> piney_gs::ThreadedRenderer {
    if windowed {
        piney_gs::ThreadedRenderer::with_nice(r, WINDOW_RENDERER_NICE)
    } else {
        piney_gs::ThreadedRenderer::new(r)
    }
}

/// A renderer made by [`make_renderer`], with what `--stats` reports of it.
pub struct MadeRenderer {
    /// The renderer, on its own thread.
    pub renderer: piney_machine::BoxedRenderer,
    /// `sw` or `wgpu`.
    pub name: &'static str,
    /// Threads drawing (the software renderer's workers; 1 for wgpu).
    pub threads: u32,
    /// Host time spent drawing and waiting for the drawing.
    pub times: std::sync::Arc<piney_gs::RenderTimes>,
    /// The device a windowed wgpu renderer draws on, for the window to present from.
    pub shared_gpu: Option<SharedGpu>,
}

/// The software renderer's default threads: the machine's cores less one (the EE's), at least
/// one.
pub fn default_gs_threads() -> u32 {
    std::thread::available_parallelism().map_or(1, |n| (n.get() as u32).saturating_sub(1).max(1))
}

/// Options of `piney replay`.
#[derive(clap::Args, Debug, Clone)]
pub struct ReplayArgs {
    /// The dump: `.gs`, `.gs.xz` or `.gs.zst`.
    pub dump: PathBuf,
    /// The settings file whose renderer keys (`renderer`, `render_scale`, `gs_threads`) the
    /// replay uses when their flags are not given (default: settings.toml in piney's config
    /// folder).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Replay without a window (the only mode for now).
    #[arg(long)]
    pub headless: bool,
    /// Write each presented frame as DIR/NNNNNN.png.
    #[arg(long, value_name = "DIR")]
    pub dump_frames: Option<PathBuf>,
    /// Stop after N frames.
    #[arg(long, allow_hyphen_values = true, value_name = "N")]
    pub frames: Option<u64>,
    /// Merge each line with the line below at ALP/255, as the console's frame mode does.
    #[arg(long)]
    pub deflicker: bool,
    /// The GS renderer: `sw` (the exact software reference, the default here) or `wgpu`
    /// (default: the setting `renderer` when it names one).
    #[arg(long, value_enum)]
    pub renderer: Option<RendererKind>,
    /// Draw the frame buffer N times larger (1 to 8): finer triangle edges, 2D on the native
    /// grid, readbacks native; frames are N times the size. Default: the setting
    /// `render_scale`, else 1.
    #[arg(long, allow_hyphen_values = true, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=8))]
    pub render_scale: Option<u32>,
    /// Threads the software renderer draws on, 1 to 64 (the same pixels whatever the number).
    /// Default: the setting `gs_threads`, else the machine's cores less one.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=64))]
    pub gs_threads: Option<u32>,
    /// Draw every primitive through the software renderer's general path, the reference its
    /// specialised paths are checked against (slower; for bisecting a rendering difference).
    #[arg(long)]
    pub gs_general_path: bool,
    /// What --dump-frames writes: `presented` (what a player sees: moved by the display offset,
    /// 4:3) or `display` (the display circuits' own pixels, as PCSX2's GS runner writes them).
    #[arg(long, value_enum, default_value = "presented")]
    pub dump_format: DumpFormat,
}

/// What a written frame holds (piney_gs::FrameFormat).
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum DumpFormat {
    /// Moved by the display offset and stretched to 4:3.
    Presented,
    /// The display circuits' own pixels (512 x 448 for the engine's mode).
    Display,
}

impl From<DumpFormat> for piney_gs::FrameFormat {
    fn from(f: DumpFormat) -> Self {
        match f {
            DumpFormat::Presented => piney_gs::FrameFormat::Presented,
            DumpFormat::Display => piney_gs::FrameFormat::Display,
        }
    }
}

/// `piney replay`: exit 0 when the dump replays, 1 with one line on stderr when it cannot.
pub fn replay(args: &ReplayArgs, settings: &piney_settings::Settings) -> ExitCode {
    let renderer = make_renderer(
        args.renderer
            .or(RendererKind::from_setting(settings.renderer)),
        false,
        args.render_scale.unwrap_or(settings.render_scale),
        args.gs_threads.or(settings.gs_threads),
        args.gs_general_path,
    )
    .renderer;
    let opts = ReplayOptions {
        pcrtc: piney_gs::Pcrtc {
            deflicker: args.deflicker,
        },
        format: args.dump_format.into(),
        dump_frames: args.dump_frames.clone(),
        max_frames: args.frames,
    };
    match replay_file(&args.dump, &opts, renderer) {
        Ok((stats, _)) => {
            eprintln!(
                "piney: replayed {}: {} frames, {} transfers, {} refused register writes",
                args.dump.display(),
                stats.vsyncs,
                stats.transfers,
                stats.register_errors
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("piney: {}: {e}", args.dump.display());
            ExitCode::from(1)
        }
    }
}

/// Options of `piney compare`.
#[derive(clap::Args, Debug, Clone)]
pub struct CompareArgs {
    /// A PNG file or a folder of numbered frames.
    pub a: PathBuf,
    /// The PNG file or folder to compare it with.
    pub b: PathBuf,
    /// Pass a frame with at most N differing pixels (default: none may differ).
    #[arg(long, allow_hyphen_values = true, value_name = "N")]
    pub max_diff_pixels: Option<u64>,
    /// Pass a frame whose PSNR is at least DB.
    #[arg(long, allow_hyphen_values = true, value_name = "DB")]
    pub min_psnr: Option<f64>,
    /// Where to write a diff image per differing frame (default: DIR = `<B>.diff` beside B).
    #[arg(long, value_name = "DIR")]
    pub diff_dir: Option<PathBuf>,
}

fn default_diff_dir(b: &Path) -> PathBuf {
    let mut s = b.as_os_str().to_owned();
    s.push(".diff");
    PathBuf::from(s)
}

/// `piney compare`: one line per frame; exit 0 when every frame passes, 1 when one differs past
/// the thresholds, 2 when the inputs cannot be compared.
pub fn compare(args: &CompareArgs) -> ExitCode {
    let opts = CompareOptions {
        max_diff_pixels: args.max_diff_pixels,
        min_psnr: args.min_psnr,
        diff_dir: Some(
            args.diff_dir
                .clone()
                .unwrap_or_else(|| default_diff_dir(&args.b)),
        ),
    };
    match compare_paths(&args.a, &args.b, &opts) {
        Ok(report) => {
            for f in &report.frames {
                println!("{}", f.summary());
            }
            let failed = report.frames.iter().filter(|f| !f.passed).count();
            println!("{} frames, {} differ", report.frames.len(), failed);
            if report.passed() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(e) => {
            eprintln!("piney: compare: {e}");
            ExitCode::from(2)
        }
    }
}
