//! The window: winit 0.30's `ApplicationHandler` around a [`Session`], presenting through
//! the wgpu [`Presenter`].
//!
//! Keys: Escape quits, F11 or Alt+Enter toggles borderless fullscreen, F12 saves a screenshot
//! of the picture on screen (through [`Emulator::screenshot`]), F10 starts and stops an
//! animated capture ([`Emulator::toggle_capture`]), F8 a GS dump for PCSX2
//! ([`Emulator::toggle_gs_capture`]), F9 shows the performance overlay, a file
//! dropped on the window goes to [`Emulator::dropped`] (to boot it), F1
//! saves a state to the slot, F3 loads it, F2 selects the next slot (through
//! [`Emulator::state_key`]), Tab held fast-forwards (the
//! game unpaced, its sound muted or stretched as [`crate::AudioOptions`] say), every other key
//! goes to the keyboard pad (by winit `KeyCode` name). The sound plays through a
//! [`crate::Player`] on the default output device; with none, one line says so and the game
//! runs silent. The event loop sleeps until the next vblank
//! is due (`ControlFlow::WaitUntil`), runs what is due, and presents once per new picture.

use std::sync::Arc;
use std::time::{Duration, Instant};

use piney_input::{GamepadMap, KeyMap, Keyboard, PadBackend, PortEvent};
use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::error::EventLoopError;
use winit::event::{ElementState, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{KeyCode, ModifiersState, PhysicalKey};
use winit::window::{Fullscreen, Window, WindowId};

use crate::audio::{AudioOptions, AudioStats, Player};
use crate::error::FrontendError;
use crate::frame::{Emulator, Frame};
use crate::gpu::{Gpu, Presenter};
use crate::pacing::DEFAULT_MAX_CATCH_UP;
use crate::session::{Advance, Session};

/// How a window is opened.
#[derive(Clone)]
pub struct WindowOptions {
    /// The title.
    pub title: String,
    /// The initial inner size in physical pixels.
    pub size: (u32, u32),
    /// Start in (borderless) fullscreen.
    pub fullscreen: bool,
    /// The keyboard's layout for port 1.
    pub keys: KeyMap,
    /// Host gamepads through gilrs with this button mapping; `None` leaves them off.
    pub gamepads: Option<GamepadMap>,
    /// Vblanks run at most at once after a stall.
    pub max_catch_up: u32,
    /// The sound's output; `None` plays nothing.
    pub audio: Option<AudioOptions>,
    /// Present without tearing at the display's refresh (Mailbox, else FIFO); `false`: as
    /// soon as a picture is ready (Immediate where the surface has it: least latency, may tear).
    pub vsync: bool,
    /// Present at most this many pictures a second (the game still runs every vblank; the
    /// newest picture is shown when the cap allows).
    pub fps_cap: Option<u32>,
    /// Tab fast-forwards at this many times real time (2 to 8); `None`: as fast as it runs.
    pub fast_forward_speed: Option<u32>,
    /// How the picture is scaled into the window (default: sharp bilinear, 4:3).
    pub scaling: crate::layout::Scaling,
    /// The device the emulator's GPU renderer draws on: the window presents from it when the
    /// adapter can present to the window (then frames may lie on the GPU); `None`: a device of
    /// the window's own.
    pub shared_gpu: Option<crate::gpu::SharedGpu>,
}

impl Default for WindowOptions {
    /// "piney", 1024 x 768, windowed, the default keys, gamepads on, catch-up 3, sound on.
    fn default() -> WindowOptions {
        WindowOptions {
            title: "piney".into(),
            size: (1024, 768),
            fullscreen: false,
            keys: KeyMap::default(),
            gamepads: Some(GamepadMap::default()),
            max_catch_up: DEFAULT_MAX_CATCH_UP,
            audio: Some(AudioOptions::default()),
            vsync: true,
            fps_cap: None,
            fast_forward_speed: None,
            scaling: crate::layout::Scaling::default(),
            shared_gpu: None,
        }
    }
}

/// What a windowed run did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WindowStats {
    /// Vblanks emulated.
    pub vblanks: u64,
    /// New pictures the emulator produced.
    pub frames: u64,
    /// Pictures presented to the window.
    pub presented: u64,
    /// Times a stall moved the vblank schedule.
    pub resyncs: u64,
    /// What the sound's player did, when there was one.
    pub audio: Option<AudioStats>,
    /// The presented pictures' pacing, timed when each present returned.
    pub jitter: crate::jitter::Jitter,
    /// The same, timed when each present was called (the picture handed to the window
    /// system: the pacing the window controls; the rest is the window system's copy).
    pub call_jitter: crate::jitter::Jitter,
    /// The window's inner size when it was last resized while not fullscreen (`None`: never
    /// resized, or only by going fullscreen).
    pub resized_to: Option<(u32, u32)>,
}

/// Whether a display server is named in the environment (on the platforms where winit needs
/// one); `Err` says what is missing.
pub fn check_display() -> Result<(), String> {
    #[cfg(all(
        unix,
        not(any(target_os = "macos", target_os = "ios", target_os = "android"))
    ))]
    {
        let set = |v: &str| std::env::var_os(v).is_some_and(|s| !s.is_empty());
        if !set("DISPLAY") && !set("WAYLAND_DISPLAY") && !set("WAYLAND_SOCKET") {
            return Err("neither DISPLAY nor WAYLAND_DISPLAY is set".into());
        }
    }
    Ok(())
}

/// Runs `emu` in a window until the window is closed, Escape is pressed, or the emulator
/// finishes (`Ok`) or fails (`Err(FrontendError::Emulator)`). Without a display it returns
/// [`FrontendError::NoDisplay`] at once. Gamepads that cannot be opened are a warning on
/// stderr, not an error. Call it once per process (winit allows one event loop).
pub fn run_window<E: Emulator + ?Sized>(
    emu: &mut E,
    opts: WindowOptions,
) -> Result<WindowStats, FrontendError> {
    check_display().map_err(|reason| FrontendError::NoDisplay { reason })?;
    #[cfg_attr(
        not(all(
            unix,
            not(any(target_os = "macos", target_os = "ios", target_os = "android"))
        )),
        allow(unused_mut)
    )]
    let mut builder = EventLoop::builder();
    #[cfg(all(
        unix,
        not(any(target_os = "macos", target_os = "ios", target_os = "android"))
    ))]
    {
        // The caller may run us off the main thread; X11 and Wayland allow it.
        use winit::platform::x11::EventLoopBuilderExtX11;
        builder.with_any_thread(true);
    }
    let event_loop = builder.build().map_err(|e| match e {
        EventLoopError::RecreationAttempt => {
            FrontendError::Window("a second window in one process (winit allows one)".into())
        }
        e => FrontendError::NoDisplay {
            reason: e.to_string(),
        },
    })?;
    let pads: Option<Box<dyn PadBackend>> = match opts.gamepads {
        Some(map) => match piney_input::GilrsPads::open(map) {
            Ok(p) => Some(Box::new(p)),
            Err(e) => {
                eprintln!("piney: warning: no gamepads ({e}); the keyboard still works");
                None
            }
        },
        None => None,
    };
    let keyboard = Keyboard::new(opts.keys.clone());
    let mut session = Session::new(emu, keyboard, pads, opts.max_catch_up);
    session.set_fast_forward_speed(opts.fast_forward_speed);
    if let Some(audio) = opts.audio {
        match Player::open(audio) {
            Ok(p) => {
                eprintln!("piney: sound on {}", p.stats().device);
                session.set_player(p);
            }
            Err(e) => eprintln!("piney: no sound: {e}"),
        }
    }
    let mut app = App {
        session,
        opts,
        epoch: Instant::now(),
        state: None,
        modifiers: ModifiersState::empty(),
        error: None,
        presented: 0,
        pending: None,
        due: None,
        jitter: Default::default(),
        call_jitter: Default::default(),
        last_present: None,
        held: false,
        title_at: (0, 0, 0),
        notices: Notices::default(),
        resized_to: None,
        shown: None,
    };
    event_loop
        .run_app(&mut app)
        .map_err(|e| FrontendError::Window(format!("event loop: {e}")))?;
    // The surface and window go before the event loop.
    app.state = None;
    if let Some(e) = app.error {
        return Err(e);
    }
    Ok(WindowStats {
        vblanks: app.session.vblanks(),
        frames: app.session.frames(),
        presented: app.presented,
        jitter: std::mem::take(&mut app.jitter),
        call_jitter: std::mem::take(&mut app.call_jitter),
        resized_to: app.resized_to,
        resyncs: app.session.pacer().resyncs(),
        audio: app.session.player().map(Player::stats),
    })
}

/// The window and what draws into it.
struct WindowState {
    /// A picture drawn and submitted, waiting for its time to be presented. First: fields drop
    /// in order, and an image must go before its surface.
    prepared: Option<wgpu::SurfaceTexture>,
    /// The submission that draws it.
    drawing: Option<wgpu::SubmissionIndex>,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    /// The non-sRGB format the presenter draws through.
    view_format: wgpu::TextureFormat,
    presenter: Presenter,
    gpu: Gpu,
    window: Arc<Window>,
    /// Presenting from the emulator's shared device.
    shared: bool,
}

impl WindowState {
    fn new(event_loop: &ActiveEventLoop, opts: &WindowOptions) -> Result<Self, FrontendError> {
        let mut attrs = Window::default_attributes()
            .with_title(opts.title.clone())
            .with_inner_size(PhysicalSize::new(opts.size.0.max(1), opts.size.1.max(1)))
            .with_min_inner_size(PhysicalSize::new(64, 48))
            .with_resizable(true);
        if opts.fullscreen {
            attrs = attrs.with_fullscreen(Some(Fullscreen::Borderless(None)));
        }
        let window = Arc::new(
            event_loop
                .create_window(attrs)
                .map_err(|e| FrontendError::Window(format!("creating the window: {e}")))?,
        );
        // The emulator's device when it can present here (Vulkan and the others need no display
        // handle at the instance; GL does, so a shared GL device falls back here).
        let shared = opts.shared_gpu.as_ref().and_then(|s| {
            let surface = s.0.instance.create_surface(window.clone()).ok()?;
            if s.0.adapter.is_surface_supported(&surface) {
                Some((surface, s.0.clone()))
            } else {
                eprintln!(
                    "piney: the renderer's adapter cannot present to this window: presenting with a device of the window's own (each picture through the CPU)"
                );
                None
            }
        });
        let sharing = shared.is_some();
        let (surface, gpu) = match shared {
            Some(pair) => pair,
            None => {
                let instance = wgpu::Instance::new(
                    wgpu::InstanceDescriptor::new_with_display_handle(Box::new(
                        event_loop.owned_display_handle(),
                    ))
                    .with_env(),
                );
                let surface = instance.create_surface(window.clone()).map_err(|e| {
                    FrontendError::Gpu(format!("creating the window's surface: {e}"))
                })?;
                let gpu = Gpu::with_instance(instance, Some(&surface))?;
                (surface, gpu)
            }
        };
        let size = window.inner_size();
        let mut config = surface
            .get_default_config(&gpu.adapter, size.width.max(1), size.height.max(1))
            .ok_or_else(|| {
                FrontendError::Gpu(format!(
                    "the adapter {} cannot present to this window",
                    gpu.adapter_info()
                ))
            })?;
        let caps = surface.get_capabilities(&gpu.adapter);
        // Prefer a non-sRGB format; else draw through a non-sRGB view of an sRGB one. Either
        // way the frame's bytes reach the screen unchanged.
        let format = caps
            .formats
            .iter()
            .copied()
            .find(|f| !f.is_srgb())
            .unwrap_or(config.format);
        let view_format = format.remove_srgb_suffix();
        config.format = format;
        config.view_formats = if view_format == format {
            vec![]
        } else {
            vec![view_format]
        };
        // vsync: Mailbox (no tearing, never blocks) where there is one, else FIFO. Without:
        // Immediate (may tear, least latency), else the same. The vblank pacing is ours
        // either way.
        let order: &[wgpu::PresentMode] = if opts.vsync {
            &[wgpu::PresentMode::Mailbox]
        } else {
            &[wgpu::PresentMode::Immediate, wgpu::PresentMode::Mailbox]
        };
        config.present_mode = order
            .iter()
            .copied()
            .find(|m| caps.present_modes.contains(m))
            .unwrap_or(wgpu::PresentMode::Fifo);
        config.desired_maximum_frame_latency = 1;
        surface.configure(&gpu.device, &config);
        let mut presenter = Presenter::new(&gpu, view_format);
        presenter.set_scaling(opts.scaling);
        presenter.warm_up(&gpu);
        gpu.check("setting up the window's presenter")?;
        eprintln!(
            "piney: presenting with {} ({:?}){}",
            gpu.adapter_info(),
            config.present_mode,
            if sharing {
                ", from the renderer's own device"
            } else {
                ""
            }
        );
        Ok(WindowState {
            surface,
            config,
            view_format,
            presenter,
            gpu,
            window,
            shared: sharing,
            prepared: None,
            drawing: None,
        })
    }

    fn resize(&mut self, size: PhysicalSize<u32>) {
        // An image drawn at the old size is not presented (and is let go before configuring).
        self.prepared = None;
        self.config.width = size.width.max(1);
        self.config.height = size.height.max(1);
        self.surface.configure(&self.gpu.device, &self.config);
    }

    /// Draws the current picture and presents it; returns whether it reached the window.
    fn render(&mut self) -> Result<bool, FrontendError> {
        Ok(self.prepare()? && self.present_prepared()?)
    }

    /// Waits at most `timeout` for the picture [`WindowState::prepare`] drew to be drawn, so
    /// that presenting it is only handing it to the window system. (A wait that times out
    /// leaves the rest to the present, which waits for the drawing itself.)
    fn finish_drawing(&mut self, timeout: Duration) {
        if let Some(index) = self.drawing.take() {
            let _ = self.gpu.device.poll(wgpu::PollType::Wait {
                submission_index: Some(index),
                timeout: Some(timeout),
            });
        }
    }

    /// Presents the picture [`WindowState::prepare`] drew, if one waits.
    fn present_prepared(&mut self) -> Result<bool, FrontendError> {
        let Some(texture) = self.prepared.take() else {
            return Ok(false);
        };
        self.window.pre_present_notify();
        self.gpu.queue.present(texture);
        self.gpu.check("presenting")?;
        Ok(true)
    }

    /// Draws the current picture into the window's next image (the one already waiting, if
    /// any) and submits the drawing, so that it is done by the time the image is presented.
    /// Returns whether an image now waits.
    fn prepare(&mut self) -> Result<bool, FrontendError> {
        let texture = match self.prepared.take() {
            Some(t) => t,
            None => match self.acquire()? {
                Some(t) => t,
                None => return Ok(false),
            },
        };
        let view = texture.texture.create_view(&wgpu::TextureViewDescriptor {
            format: Some(self.view_format),
            ..Default::default()
        });
        let mut encoder = self
            .gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("present"),
            });
        let (w, h) = (self.config.width, self.config.height);
        self.presenter.draw(&self.gpu, &mut encoder, &view, w, h);
        self.drawing = Some(self.gpu.queue.submit([encoder.finish()]));
        self.gpu.check("drawing the window's picture")?;
        self.prepared = Some(texture);
        Ok(true)
    }

    /// The window's next image, or `None` when there is none to draw into now (the surface
    /// was made again or is hidden).
    fn acquire(&mut self) -> Result<Option<wgpu::SurfaceTexture>, FrontendError> {
        let texture = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t)
            | wgpu::CurrentSurfaceTexture::Suboptimal(t) => t,
            wgpu::CurrentSurfaceTexture::Timeout | wgpu::CurrentSurfaceTexture::Occluded => {
                return Ok(None);
            }
            wgpu::CurrentSurfaceTexture::Outdated => {
                self.resize(self.window.inner_size());
                return Ok(None);
            }
            wgpu::CurrentSurfaceTexture::Lost => {
                // Make the surface again; the device and the frame texture stay.
                self.surface = self
                    .gpu
                    .instance
                    .create_surface(self.window.clone())
                    .map_err(|e| FrontendError::Gpu(format!("recreating the surface: {e}")))?;
                self.resize(self.window.inner_size());
                return Ok(None);
            }
            other => {
                return Err(FrontendError::Gpu(format!(
                    "getting the window's next image: {other:?}"
                )));
            }
        };
        Ok(Some(texture))
    }

    fn toggle_fullscreen(&self) {
        if self.window.fullscreen().is_some() {
            self.window.set_fullscreen(None);
        } else {
            self.window
                .set_fullscreen(Some(Fullscreen::Borderless(None)));
        }
    }
}

/// What the window tells the player: each line on stderr and on the on-screen display.
#[derive(Default)]
struct Notices {
    osd: crate::osd::Osd,
    /// The overlay needs drawing again.
    dirty: bool,
}

impl Notices {
    fn say(&mut self, now_ns: u64, text: String) {
        eprintln!("piney: {text}");
        self.osd.message(text, now_ns);
        self.dirty = true;
    }
}

/// How long before a paced present's time the window wakes for it: to make sure its drawing
/// is done, then to sleep to the time exactly.
const PRESENT_LEAD_NS: u64 = 3_000_000;

struct App<'e, E: Emulator + ?Sized> {
    session: Session<'e, E>,
    opts: WindowOptions,
    /// Time zero of the session's clock.
    epoch: Instant,
    state: Option<WindowState>,
    modifiers: ModifiersState,
    error: Option<FrontendError>,
    presented: u64,
    /// A new picture waits to be presented: the vblank it is of.
    pending: Option<u64>,
    /// A picture drawn ahead for a paced present: the vblank it is of and when to present it
    /// (host ns): when the next vblank is due, so that pictures reach the window exactly a
    /// vblank period apart (at one period of latency) however long the emulation of each
    /// vblank and the drawing took.
    due: Option<(u64, u64)>,
    /// When the pictures reached the screen (their presents returned).
    jitter: crate::jitter::Jitter,
    /// When their presents were called.
    call_jitter: crate::jitter::Jitter,
    /// The last present (host ns), and a picture held back by the fps cap.
    last_present: Option<u64>,
    held: bool,
    /// The title's last update: when, and the vblanks and presents then.
    title_at: (u64, u64, u64),
    /// The on-screen display.
    notices: Notices,
    /// The last windowed size the user gave the window.
    resized_to: Option<(u32, u32)>,
    /// The picture on screen (for F12).
    shown: Option<Frame>,
}

impl<E: Emulator + ?Sized> App<'_, E> {
    fn now_ns(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }

    fn fail(&mut self, event_loop: &ActiveEventLoop, e: FrontendError) {
        self.error.get_or_insert(e);
        event_loop.exit();
    }

    /// Hands an advance's picture to the presenter and logs its pad events.
    fn show(&mut self, event_loop: &ActiveEventLoop, adv: Advance) {
        let now = self.now_ns();
        for e in &adv.events {
            self.notices.say(now, Self::port_line(e));
        }
        let capped = self.cap_wait().is_some();
        let paced = self.paced_presents();
        if let Some(frame) = adv.frame
            && let Some(state) = &mut self.state
        {
            if let Err(e) = state.presenter.upload(&state.gpu, &frame) {
                return self.fail(event_loop, e);
            }
            self.shown = Some(frame);
            let vblank = self.session.vblanks();
            if paced {
                // Drawn now, presented when the next vblank is due (a picture still waiting
                // is replaced, as a mailbox would).
                match state.prepare() {
                    Ok(true) => {
                        self.due = Some((vblank, self.session.next_deadline()));
                        return;
                    }
                    Ok(false) => {}
                    Err(e) => return self.fail(event_loop, e),
                }
            }
            self.pending = Some(vblank);
            if capped {
                // The fps cap: the newest picture waits for its turn (about_to_wait).
                self.held = true;
            } else {
                state.window.request_redraw();
            }
        }
    }

    /// Whether pictures are presented on the vblank schedule: at speed 1, neither paused nor
    /// fast-forwarding, with no fps cap.
    fn paced_presents(&self) -> bool {
        !self.session.fast_forward()
            && !self.session.paused()
            && self.opts.fps_cap.filter(|&c| c > 0).is_none()
    }

    /// Presents the picture drawn ahead once its time is near (`now_ns` at most
    /// [`PRESENT_LEAD_NS`] before it): waits for its drawing to be done, then for its time
    /// (a sleep, which is precise to tens of microseconds where the event loop's wake-up is
    /// not), then presents it.
    fn present_due(&mut self, event_loop: &ActiveEventLoop, now_ns: u64) {
        let Some((vblank, at)) = self.due else {
            return;
        };
        if now_ns + PRESENT_LEAD_NS < at {
            return;
        }
        self.due = None;
        let Some(state) = &mut self.state else {
            return;
        };
        state.finish_drawing(Duration::from_nanos(at.saturating_sub(now_ns)));
        let now = self.epoch.elapsed().as_nanos() as u64;
        if now < at {
            std::thread::sleep(Duration::from_nanos(at - now));
        }
        let called = self.epoch.elapsed().as_nanos() as u64;
        // Drawn again if the image was let go (a resize).
        let shown = match state.present_prepared() {
            Ok(false) => state.render(),
            other => other,
        };
        match shown {
            Ok(true) => self.count_present(vblank, called),
            Ok(false) => {}
            Err(e) => self.fail(event_loop, e),
        }
    }

    /// The picture of `vblank` was presented, by a present called at `called_ns` that has
    /// just returned: counted, and timed unless fast-forward or pause break the pacing.
    fn count_present(&mut self, vblank: u64, called_ns: u64) {
        let now = self.now_ns();
        self.presented += 1;
        self.last_present = Some(now);
        if self.session.fast_forward() || self.session.paused() {
            self.jitter.break_sequence();
            self.call_jitter.break_sequence();
        } else {
            self.jitter.presented(vblank, now);
            self.call_jitter.presented(vblank, called_ns);
        }
    }

    /// Once a second: the title says the program and the speed (emulated time over host time
    /// in the last second) and the pictures presented a second; paused when paused.
    fn update_title(&mut self, now: u64) {
        let (at, vblanks, presented) = self.title_at;
        if now < at + 1_000_000_000 {
            return;
        }
        let secs = (now - at) as f64 / 1e9;
        let speed = (self.session.vblanks() - vblanks) as f64 / 59.94 / secs;
        let fps = (self.presented - presented) as f64 / secs;
        self.title_at = (now, self.session.vblanks(), self.presented);
        let what = if self.session.paused() {
            "paused".to_string()
        } else {
            format!("{:.0}% speed, {fps:.0} fps", speed * 100.0)
        };
        if let Some(state) = &self.state {
            state
                .window
                .set_title(&format!("{} ({what})", self.opts.title));
        }
        if self.notices.osd.perf_on() {
            let mut lines = vec![
                format!("{fps:.1} fps, {:.0}% speed", speed * 100.0),
                format!(
                    "vertical blank {}, frame {}",
                    self.session.vblanks(),
                    self.session.frames()
                ),
            ];
            lines.extend(self.session.perf_lines());
            self.notices.osd.set_perf(lines);
            self.notices.dirty = true;
        }
    }

    /// With an fps cap, when the next present is allowed if that is still to come.
    fn cap_wait(&self) -> Option<u64> {
        let cap = self.opts.fps_cap.filter(|&c| c > 0)?;
        let next = self.last_present? + 1_000_000_000 / u64::from(cap);
        (next > self.now_ns()).then_some(next)
    }

    fn port_line(event: &PortEvent) -> String {
        match event {
            PortEvent::Connected { port, name, rumble } => format!(
                "pad \"{name}\" on port {}{}",
                port.index() + 1,
                if *rumble { " (rumble)" } else { "" }
            ),
            PortEvent::Disconnected { port } => {
                format!("pad on port {} unplugged", port.index() + 1)
            }
        }
    }

    /// Draws the on-screen display again when it changed (a message came or went, the
    /// performance lines were updated).
    fn refresh_overlay(&mut self, now: u64) {
        if self.notices.osd.expire(now) {
            self.notices.dirty = true;
        }
        if !std::mem::take(&mut self.notices.dirty) {
            return;
        }
        if let Some(state) = &mut self.state {
            let image = self.notices.osd.render();
            state.presenter.set_overlay(&state.gpu, image.as_ref());
            state.window.request_redraw();
        }
    }
}

impl<E: Emulator + ?Sized> ApplicationHandler for App<'_, E> {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.state.is_some() {
            return;
        }
        match WindowState::new(event_loop, &self.opts) {
            Ok(state) => {
                state.window.request_redraw();
                self.session.gpu_frames(state.shared);
                self.state = Some(state);
                // The schedule starts now, not when the process did.
                let now = self.now_ns();
                self.session.restart_clock(now);
            }
            Err(e) => self.fail(event_loop, e),
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        let Some(state) = &mut self.state else {
            return;
        };
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(size) => {
                state.resize(size);
                state.window.request_redraw();
                let now = (size.width, size.height);
                if state.window.fullscreen().is_none()
                    && (now != self.opts.size || self.resized_to.is_some())
                {
                    self.resized_to = Some(now);
                }
            }
            WindowEvent::ModifiersChanged(m) => self.modifiers = m.state(),
            WindowEvent::DroppedFile(path) => {
                let line = match self.session.dropped(&path) {
                    Ok(line) => line,
                    Err(e) => format!("cannot boot it: {e}"),
                };
                let now = self.now_ns();
                self.notices.say(now, line);
            }
            WindowEvent::Focused(false) => {
                self.session.release_keys();
                let now = self.now_ns();
                self.session.set_fast_forward(false, now);
            }
            WindowEvent::KeyboardInput { event, .. } => {
                let PhysicalKey::Code(code) = event.physical_key else {
                    return;
                };
                let pressed = event.state == ElementState::Pressed;
                let fullscreen_key = code == KeyCode::F11
                    || (matches!(code, KeyCode::Enter | KeyCode::NumpadEnter)
                        && self.modifiers.alt_key());
                if code == KeyCode::Escape && pressed {
                    event_loop.exit();
                } else if code == KeyCode::F12 {
                    if pressed
                        && !event.repeat
                        && let Some(frame) = &self.shown
                    {
                        let line = match self.session.screenshot(frame) {
                            Ok(path) => format!("screenshot {path}"),
                            Err(e) => format!("screenshot: {e}"),
                        };
                        let now = self.now_ns();
                        self.notices.say(now, line);
                    }
                } else if code == KeyCode::F10 {
                    if pressed && !event.repeat {
                        let line = match self.session.toggle_capture() {
                            Ok(what) => what,
                            Err(e) => format!("capture: {e}"),
                        };
                        let now = self.now_ns();
                        self.notices.say(now, line);
                    }
                } else if code == KeyCode::F8 {
                    if pressed && !event.repeat {
                        let line = match self.session.toggle_gs_capture() {
                            Ok(what) => what,
                            Err(e) => format!("GS capture: {e}"),
                        };
                        let now = self.now_ns();
                        self.notices.say(now, line);
                    }
                } else if code == KeyCode::F9 {
                    if pressed && !event.repeat {
                        let on = !self.notices.osd.perf_on();
                        self.notices.osd.set_perf_on(on);
                        // The first figures come at the next second's update.
                        self.title_at.0 = 0;
                        self.notices.dirty = true;
                    }
                } else if matches!(code, KeyCode::F1 | KeyCode::F2 | KeyCode::F3) {
                    if pressed && !event.repeat {
                        let key = match code {
                            KeyCode::F1 => crate::StateKey::Save,
                            KeyCode::F2 => crate::StateKey::NextSlot,
                            _ => crate::StateKey::Load,
                        };
                        let line = match self.session.state_key(key) {
                            Ok(line) => line,
                            Err(e) => format!("save state: {e}"),
                        };
                        let now = self.now_ns();
                        self.notices.say(now, line);
                    }
                } else if code == KeyCode::Tab {
                    let now = self.now_ns();
                    if !pressed && let Some((vblanks, secs)) = self.session.fast_forward_run(now) {
                        self.notices.say(
                            now,
                            format!(
                                "fast-forward: {vblanks} vertical blanks in {secs:.1} s \
                                 ({:.2}x real time)",
                                vblanks as f64 / 59.94 / secs.max(1e-9)
                            ),
                        );
                    } else if pressed && !self.session.fast_forward() {
                        self.notices.say(now, "fast-forward".into());
                    }
                    self.session.set_fast_forward(pressed, now);
                } else if matches!(code, KeyCode::KeyP | KeyCode::Pause) {
                    if pressed && !event.repeat {
                        let now = self.now_ns();
                        let on = !self.session.paused();
                        self.session.set_paused(on, now);
                        let line = if on {
                            format!(
                                "paused at vertical blank {} (frame {}); N advances a frame, P \
                                 resumes",
                                self.session.vblanks(),
                                self.session.frames()
                            )
                        } else {
                            "resumed".into()
                        };
                        self.notices.say(now, line);
                    }
                } else if code == KeyCode::KeyN && self.session.paused() {
                    if pressed {
                        match self.session.step_frame() {
                            Ok(adv) => {
                                let now = self.now_ns();
                                self.notices.say(
                                    now,
                                    format!(
                                        "frame advance: vertical blank {} (frame {})",
                                        self.session.vblanks(),
                                        self.session.frames()
                                    ),
                                );
                                self.show(event_loop, adv);
                            }
                            Err(e) => self.fail(event_loop, FrontendError::Emulator(e)),
                        }
                    }
                } else if fullscreen_key {
                    if pressed && !event.repeat {
                        state.toggle_fullscreen();
                    }
                } else {
                    // KeyCode's Debug is its variant name, the W3C `code` value the keyboard
                    // map uses ("ArrowUp", "KeyX").
                    self.session.key(&format!("{code:?}"), pressed);
                }
            }
            // A picture drawn ahead is drawn again (an overlay change) and still waits for
            // its time.
            WindowEvent::RedrawRequested if self.due.is_some() => {
                if let Err(e) = state.prepare() {
                    self.fail(event_loop, e);
                }
            }
            WindowEvent::RedrawRequested => {
                // Timed before the drawing: a present made at once (off the vblank schedule:
                // paused, fast-forward, an fps cap) draws in the same call.
                let called = self.epoch.elapsed().as_nanos() as u64;
                match state.render() {
                    Ok(true) => {
                        if let Some(vblank) = self.pending.take() {
                            self.count_present(vblank, called);
                        }
                    }
                    Ok(false) => {}
                    Err(e) => self.fail(event_loop, e),
                }
            }
            _ => {}
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        if self.state.is_none() || self.error.is_some() {
            return;
        }
        let now = self.now_ns();
        // The picture due now goes first: its time is the vblank's that runs next.
        self.present_due(event_loop, now);
        let adv = match self.session.advance(now) {
            Ok(a) => a,
            Err(e) => return self.fail(event_loop, FrontendError::Emulator(e)),
        };
        self.show(event_loop, adv);
        if self.session.finished() {
            event_loop.exit();
            return;
        }
        self.update_title(now);
        self.refresh_overlay(now);
        let mut wake = self.session.next_deadline();
        if let Some((_, at)) = self.due {
            wake = wake.min(at.saturating_sub(PRESENT_LEAD_NS));
        }
        if self.held {
            match self.cap_wait() {
                Some(at) => wake = wake.min(at),
                None => {
                    self.held = false;
                    if let Some(state) = &self.state {
                        state.window.request_redraw();
                    }
                }
            }
        }
        if self.session.unpaced() {
            // Unpaced: the next batch as soon as the events are read.
            event_loop.set_control_flow(ControlFlow::Poll);
        } else {
            let next = self.epoch + Duration::from_nanos(wake);
            event_loop.set_control_flow(ControlFlow::WaitUntil(next));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The keyboard map takes winit's `KeyCode` names, which the window makes with `{:?}`.
    #[test]
    fn key_codes_print_as_the_keyboard_maps_names() {
        for code in [
            KeyCode::ArrowUp,
            KeyCode::KeyX,
            KeyCode::Enter,
            KeyCode::Space,
            KeyCode::Digit1,
            KeyCode::Numpad5,
            KeyCode::ShiftLeft,
            KeyCode::F12,
        ] {
            let name = format!("{code:?}");
            assert!(piney_input::keyboard::is_key_name(&name), "{name}");
        }
        let mut k = Keyboard::new(KeyMap::default());
        assert!(k.key(&format!("{:?}", KeyCode::ArrowUp), true));
        assert_eq!(k.buttons(), piney_input::Buttons::UP);
    }
}
