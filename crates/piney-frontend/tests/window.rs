//! The window for real: an X server (Xvfb) is started, a child process opens piney's window on
//! it with a test emulator drawing a known pattern, and a screenshot of the X display (xwd)
//! must show exactly what the headless presenter renders for that window size. Also: with no
//! display the run fails with "no display available; run with --headless".
//!
//! Its own `main` (harness = false): winit allows one event loop per process, so the window
//! runs in a child (this same executable with `PINEY_FRONTEND_WINDOW_CHILD` set).
//!
//! Needs Xvfb (package `xvfb`), xwd (package `x11-apps`) and a wgpu adapter (lavapipe:
//! `mesa-vulkan-drivers libvulkan1`). Missing ones fail the test, naming the package.

use std::io::{Read, Write};
use std::process::{Command, ExitCode, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use piney_frontend::{Emulator, Frame, Headless, WindowOptions, run_window};
use piney_input::{Motors, PadReport, Port};

const CHILD_ENV: &str = "PINEY_FRONTEND_WINDOW_CHILD";
/// The window's inner size: wider than 4:3, so there are bars left and right.
const SIZE: (u32, u32) = (800, 480);

/// The known frame: 64 x 48 of distinct colours, offset 3 pixels right and 2 rows down.
fn known_frame() -> Frame {
    let mut px = Vec::new();
    for y in 0..48u32 {
        for x in 0..64u32 {
            px.extend_from_slice(&[(x * 4) as u8, (y * 5) as u8, (255 - (x + y) * 2) as u8, 255]);
        }
    }
    Frame::new(64, 48, px).unwrap().with_offset(3, 2)
}

/// The child's machine: the known frame every second vblank (30 fps), until told "quit" on
/// stdin.
struct Pattern {
    vblank: u64,
    quit: Arc<AtomicBool>,
    started: Instant,
    /// The vertical blank at which `finished` first saw the quit request.
    quit_seen_at: std::cell::Cell<Option<u64>>,
}

impl Emulator for Pattern {
    fn run_vblank(&mut self) -> Result<Option<Frame>, String> {
        self.vblank += 1;
        Ok(self.vblank.is_multiple_of(2).then(known_frame))
    }
    fn set_pad(&mut self, _port: Port, _report: Option<PadReport>) {}
    fn take_rumble(&mut self) -> Vec<(Port, Motors)> {
        Vec::new()
    }
    fn finished(&self) -> bool {
        let quit = self.quit.load(Ordering::Relaxed);
        if quit && self.quit_seen_at.get().is_none() {
            self.quit_seen_at.set(Some(self.vblank));
        }
        // A safety net: never outlive the test by much.
        quit || self.started.elapsed() > Duration::from_secs(300)
    }
}

fn child() -> ExitCode {
    let quit = Arc::new(AtomicBool::new(false));
    let q = quit.clone();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = std::io::stdin().read_line(&mut line);
        q.store(true, Ordering::Relaxed);
    });
    let mut emu = Pattern {
        vblank: 0,
        quit,
        started: Instant::now(),
        quit_seen_at: std::cell::Cell::new(None),
    };
    let opts = WindowOptions {
        title: "piney window test".into(),
        size: SIZE,
        gamepads: None,
        ..WindowOptions::default()
    };
    match run_window(&mut emu, opts) {
        Ok(stats) => {
            // Vertical blanks the window ran once the emulator said it had finished (none,
            // unless the request came in during one): `-` when it closed for another reason.
            let after_quit = emu
                .quit_seen_at
                .get()
                .map_or("-".to_string(), |at| (emu.vblank - at).to_string());
            println!(
                "vblanks={} frames={} presented={} resyncs={} after_quit={after_quit}",
                stats.vblanks, stats.frames, stats.presented, stats.resyncs
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("piney: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Kills a child process when dropped.
#[path = "x11_support/mod.rs"]
mod x11;
use x11::{Killed, find, screenshot, start_xvfb};

fn child_command() -> Command {
    let mut cmd = Command::new(std::env::current_exe().expect("the test executable"));
    cmd.env(CHILD_ENV, "1");
    // Mesa warns without a runtime directory of mode 700.
    let runtime = std::env::temp_dir().join(format!("piney-frontend-xdg-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&runtime);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o700));
    }
    cmd.env("XDG_RUNTIME_DIR", runtime);
    cmd
}

fn no_display_is_a_clear_error() {
    let out = child_command()
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("WAYLAND_SOCKET")
        .stdin(Stdio::null())
        .output()
        .expect("running the child");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "ran without a display?");
    assert!(
        err.contains("piney: no display available; run with --headless"),
        "stderr: {err}"
    );
}

fn window_shows_the_pattern() {
    // What the window must show: the headless presenter at the window's size (itself checked
    // against the CPU reference in tests/headless.rs).
    let want = Headless::new()
        .and_then(|mut h| h.render(&known_frame(), SIZE.0, SIZE.1))
        .unwrap_or_else(|e| panic!("headless wgpu: {e}"));
    assert_eq!(
        want,
        piney_frontend::reference::present(&known_frame(), SIZE.0, SIZE.1)
    );
    let (_xvfb, display) = start_xvfb();
    let mut child = Killed(
        child_command()
            .env("DISPLAY", &display)
            .env_remove("WAYLAND_DISPLAY")
            .env_remove("WAYLAND_SOCKET")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("starting the window child"),
    );
    let deadline = Instant::now() + Duration::from_secs(60);
    let found = loop {
        std::thread::sleep(Duration::from_millis(250));
        if let Ok(Some(status)) = child.0.try_wait() {
            let mut err = String::new();
            let _ = child.0.stderr.take().unwrap().read_to_string(&mut err);
            panic!("the window closed early ({status}): {err}");
        }
        let shot = screenshot(&display);
        if let Some(at) = find(&shot, &want, SIZE) {
            break at;
        }
        if Instant::now() > deadline {
            panic!(
                "the pattern never appeared on {display}; pixel (100, 100) is {:?}, (300, 200) {:?}",
                shot.get(100, 100),
                shot.get(300, 200)
            );
        }
    };
    let shot = screenshot(&display);
    // Not blank: the letterbox bar is black, the root around the window white, the picture
    // coloured.
    let (ox, oy) = found;
    assert_eq!(shot.get(ox + 10, oy + 10), [0, 0, 0], "left bar");
    assert_eq!(shot.get(ox + SIZE.0 + 5, oy + 5), [255, 255, 255], "root");
    let centre = shot.get(ox + SIZE.0 / 2, oy + SIZE.1 / 2);
    assert!(
        centre != [0, 0, 0] && centre != [255, 255, 255],
        "the picture's centre is {centre:?}"
    );
    // Quit through the emulator and expect a clean exit with pictures presented. Whether the
    // window closed promptly is judged by what it did after the request (no vertical blank run
    // once the emulator said it had finished), not by the host's clock, which a loaded machine
    // stretches; the wall-clock limit only keeps a window that never closes from hanging the
    // test.
    child.0.stdin.take().unwrap().write_all(b"quit\n").unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.0.try_wait().unwrap() {
            break s;
        }
        assert!(
            start.elapsed() < Duration::from_secs(240),
            "the window did not close within 240 s of the quit request"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut out = String::new();
    let mut err = String::new();
    child
        .0
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    child
        .0
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(status.success(), "child failed: {err}");
    assert!(
        err.contains("piney: presenting with"),
        "no adapter line: {err}"
    );
    let presented: u64 = out
        .split_whitespace()
        .find_map(|kv| kv.strip_prefix("presented="))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no stats: {out}"));
    assert!(presented >= 1, "{out}");
    let after_quit: u64 = out
        .split_whitespace()
        .find_map(|kv| kv.strip_prefix("after_quit="))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("the window closed without seeing the quit request: {out}"));
    assert!(
        after_quit <= 1,
        "the window ran {after_quit} vertical blanks after the emulator finished: {out}"
    );
    eprintln!("window at ({ox}, {oy}) on {display}: {out}{err}");
}

fn main() -> ExitCode {
    if std::env::var_os(CHILD_ENV).is_some() {
        return child();
    }
    for (name, test) in [
        (
            "no_display_is_a_clear_error",
            no_display_is_a_clear_error as fn(),
        ),
        ("window_shows_the_pattern", window_shows_the_pattern),
    ] {
        println!("test {name} ...");
        test();
        println!("test {name} ... ok");
    }
    ExitCode::SUCCESS
}
