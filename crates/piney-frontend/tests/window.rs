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

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use piney_frontend::{Emulator, Frame, Headless, WindowOptions, run_window};
use piney_input::{Motors, PadReport, Port};

const CHILD_ENV: &str = "PINEY_FRONTEND_WINDOW_CHILD";
/// The window's inner size: wider than 4:3, so there are bars left and right.
const SIZE: (u32, u32) = (800, 480);

/// The known frame: 64 x 48 of distinct colours, offset 15 clocks (3 pixels) right and 2 rows
/// down.
fn known_frame() -> Frame {
    let mut px = Vec::new();
    for y in 0..48u32 {
        for x in 0..64u32 {
            px.extend_from_slice(&[(x * 4) as u8, (y * 5) as u8, (255 - (x + y) * 2) as u8, 255]);
        }
    }
    Frame::new(64, 48, px).unwrap().with_offset(15, 2)
}

/// The child's machine: the known frame every second vblank (30 fps), until told "quit" on
/// stdin.
struct Pattern {
    vblank: u64,
    quit: Arc<AtomicBool>,
    started: Instant,
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
        // A safety net: never outlive the test by much.
        self.quit.load(Ordering::Relaxed) || self.started.elapsed() > Duration::from_secs(120)
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
    };
    let opts = WindowOptions {
        title: "piney window test".into(),
        size: SIZE,
        gamepads: None,
        ..WindowOptions::default()
    };
    match run_window(&mut emu, opts) {
        Ok(stats) => {
            println!(
                "vblanks={} frames={} presented={} resyncs={}",
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
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn spawn_or_explain(cmd: &mut Command, package: &str) -> Child {
    match cmd.spawn() {
        Ok(c) => c,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => panic!(
            "{:?} is not installed: install the `{package}` package (apt-get install {package})",
            cmd.get_program()
        ),
        Err(e) => panic!("starting {:?}: {e}", cmd.get_program()),
    }
}

/// Starts Xvfb on a free display number (it picks one and tells us through -displayfd).
fn start_xvfb() -> (Killed, String) {
    let mut xvfb = Killed(spawn_or_explain(
        Command::new("Xvfb")
            .args(["-displayfd", "1", "-screen", "0", "1024x768x24"])
            // A white root window, so black letterbox bars stand out; no TCP.
            .args(["-wr", "-nolisten", "tcp"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null()),
        "xvfb",
    ));
    let out = xvfb.0.stdout.take().expect("Xvfb's stdout");
    let mut line = String::new();
    BufReader::new(out)
        .read_line(&mut line)
        .expect("reading Xvfb's display number");
    let n: u32 = line
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("Xvfb did not start (said {line:?})"));
    (xvfb, format!(":{n}"))
}

/// An X screenshot: width, height, RGB rows.
struct Shot {
    width: u32,
    height: u32,
    rgb: Vec<u8>,
}

impl Shot {
    fn get(&self, x: u32, y: u32) -> [u8; 3] {
        let i = ((y * self.width + x) * 3) as usize;
        [self.rgb[i], self.rgb[i + 1], self.rgb[i + 2]]
    }
}

/// The root window of `display`, through `xwd`.
fn screenshot(display: &str) -> Shot {
    let out = spawn_or_explain(
        Command::new("xwd")
            .args(["-root", "-silent", "-display", display])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
        "x11-apps",
    )
    .wait_with_output()
    .expect("running xwd");
    assert!(
        out.status.success(),
        "xwd failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    parse_xwd(&out.stdout).unwrap_or_else(|e| panic!("xwd's output: {e}"))
}

/// Reads an XWD file (X11 window dump, version 7, ZPixmap, TrueColor at 24 or 32 bits per
/// pixel). The header is 25 big-endian 32-bit words, then the window name, the colour map
/// (12 bytes an entry) and the pixels in the header's byte order.
fn parse_xwd(d: &[u8]) -> Result<Shot, String> {
    let word = |i: usize| -> Result<u32, String> {
        d.get(i * 4..i * 4 + 4)
            .map(|b| u32::from_be_bytes(b.try_into().unwrap()))
            .ok_or_else(|| format!("truncated header at word {i}"))
    };
    let (header_size, version, format) = (word(0)?, word(1)?, word(2)?);
    if version != 7 || format != 2 {
        return Err(format!(
            "version {version} format {format}, want 7 and ZPixmap (2)"
        ));
    }
    let (width, height) = (word(4)?, word(5)?);
    let (byte_order, bpp, bytes_per_line) = (word(7)?, word(11)?, word(12)?);
    let masks = [word(14)?, word(15)?, word(16)?];
    let ncolors = word(19)?;
    if bpp != 32 && bpp != 24 {
        return Err(format!("{bpp} bits per pixel"));
    }
    let start = header_size as usize + ncolors as usize * 12;
    let need = start + bytes_per_line as usize * height as usize;
    if d.len() < need {
        return Err(format!("{} bytes, need {need}", d.len()));
    }
    let channel = |p: u32, m: u32| ((p & m) >> m.trailing_zeros()) as u8;
    let mut rgb = Vec::with_capacity((width * height * 3) as usize);
    for y in 0..height as usize {
        let row = &d[start + y * bytes_per_line as usize..];
        for x in 0..width as usize {
            let n = (bpp / 8) as usize;
            let mut b = [0u8; 4];
            b[..n].copy_from_slice(&row[x * n..x * n + n]);
            let p = if byte_order == 0 {
                u32::from_le_bytes(b)
            } else {
                u32::from_be_bytes(b) >> (32 - bpp)
            };
            rgb.extend(masks.map(|m| channel(p, m)));
        }
    }
    Ok(Shot { width, height, rgb })
}

/// Where `want` (RGBA rows, `SIZE`) appears in the shot, searching the top-left corner.
fn find(shot: &Shot, want: &[u8]) -> Option<(u32, u32)> {
    let (w, h) = SIZE;
    let matches_at = |ox: u32, oy: u32| {
        (0..h).all(|y| {
            (0..w).all(|x| {
                let i = ((y * w + x) * 4) as usize;
                shot.get(ox + x, oy + y) == [want[i], want[i + 1], want[i + 2]]
            })
        })
    };
    (0..=32.min(shot.height - h))
        .flat_map(|oy| (0..=32.min(shot.width - w)).map(move |ox| (ox, oy)))
        .find(|&(ox, oy)| matches_at(ox, oy))
}

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
        if let Some(at) = find(&shot, &want) {
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
    // Quit through the emulator and expect a clean exit with pictures presented.
    child.0.stdin.take().unwrap().write_all(b"quit\n").unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.0.try_wait().unwrap() {
            break s;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the window did not close"
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
