//! `piney demo` in a real window (issue 6, "What it must show"): under Xvfb, the window shows
//! the scene: a screenshot of the X display is not blank and equals the headless run's frame at
//! that point, presented the way the frontend presents it. wgpu runs there on whatever adapter
//! the machine has (Mesa's lavapipe on CI). Also: with no display, `piney demo` says so,
//! suggests `--headless` and fails.
//!
//! "At that point": `piney demo --frames N --hold S` runs N vertical blanks in the window, then
//! keeps showing the picture of vertical blank N (what `--headless --frames N --dump-frames`
//! writes as frame N-1) for S seconds. The window is 597 x 448, the 4:3 size of the demo's 448
//! rows, so the frontend's letterbox fills it and its nearest-neighbour stretch is the headless
//! presenter's.
//!
//! Both runs play tests/input/adjust_screen.txt: Adjust Screen moved to x +48, y +16, so the
//! window must show the picture moved 9 pixels right and 16 rows down, black where it left,
//! as the headless frame is (tests/adjust_screen.rs checks that frame against the display
//! circuits' pixels). Then F12, pressed with xdotool (package `xdotool`), saves a screenshot
//! that must equal that headless frame.
//!
//! Sound (issue 13): the window plays the demo's sound through cpal on a private PulseAudio
//! server's null sink (packages `pulseaudio`, `pulseaudio-utils`); what `parec` records from
//! the sink's monitor is the sound the same run writes with `--dump-audio` (windows of it found
//! there with a correlation above 0.9). With no sound device the run goes on silent, saying so
//! in one line.
//!
//! A key tapped with `xdotool key` (down and up between two pad reads) reaches the demo; P
//! pauses, N advances a frame, Tab fast-forwards, all as key events sent to the window. F2
//! selects the next save state slot, F1 saves the machine there (a file in the data folder that
//! a headless run loads), F3 loads it back (the machine at the saved frame again).
//!
//! The wgpu renderer in a window draws on the window's device: the window shows its frame 200
//! exactly, a `--stats` run shows every picture made on the GPU and none copied back, and a
//! `--capture` of its run holds the headless frames. F12 at `--render-scale 2` saves the scaled
//! picture; `--stretch` fills a window of another shape; a program dropped on the window (by
//! tools/xdnd-drop.py, the XDND protocol a file manager speaks; package `python3-xlib`) boots;
//! `--speed 2` paces Tab's fast-forward at twice real time.
//!
//! Its own `main` (harness = false): it starts processes and an X server. Needs Xvfb (package
//! `xvfb`), xwd (package `x11-apps`) and a wgpu adapter (lavapipe: `mesa-vulkan-drivers
//! libvulkan1`); a missing one fails the test, naming the package.

#[path = "piney_support/apng.rs"]
mod apng;
mod piney_support;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use piney_frontend::Frame;
use piney_gs::Image;

/// Vertical blanks run before the picture is compared: the scene, the panels and the text are
/// all up by then, and Adjust Screen has reached its corner.
const FRAMES: u64 = 201;

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/input/adjust_screen.txt")
}
/// The window's inner size: the 4:3 size of 448 rows (`Presenter::aspect_size(448)`).
const SIZE: (u32, u32) = (597, 448);

fn piney() -> Command {
    let mut cmd = piney_support::command();
    // Mesa warns without a runtime directory of mode 700.
    let runtime = std::env::temp_dir().join(format!("piney-demo-xdg-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&runtime);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o700));
    }
    cmd.env("XDG_RUNTIME_DIR", runtime);
    cmd.env_remove("WAYLAND_DISPLAY")
        .env_remove("WAYLAND_SOCKET");
    cmd
}

fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// piney-frontend's window-test support: our own Xvfb, `xwd` screenshots, a child killed on drop.
#[path = "../../piney-frontend/tests/x11_support/mod.rs"]
mod x11;
use x11::{Killed, Shot, find, screenshot, spawn_or_explain, start_xvfb};

/// How many pixels of the shot's `SIZE` rectangle at `at` differ from `want`.
fn differing(shot: &Shot, want: &[u8], at: (u32, u32)) -> usize {
    let (w, h) = SIZE;
    (0..h)
        .flat_map(|y| (0..w).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            let i = ((y * w + x) * 4) as usize;
            x + at.0 < shot.width
                && y + at.1 < shot.height
                && shot.get(at.0 + x, at.1 + y) != [want[i], want[i + 1], want[i + 2]]
        })
        .count()
}

/// A child's output read line by line on a thread of its own, every line kept for messages.
struct Lines {
    rx: mpsc::Receiver<String>,
    log: Vec<String>,
}

impl Lines {
    fn of(stream: impl std::io::Read + Send + 'static) -> Lines {
        let (tx, rx) = mpsc::channel::<String>();
        std::thread::spawn(move || {
            // Read to the end even when nobody listens, so the child never blocks on a
            // full pipe.
            for line in BufReader::new(stream).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        Lines {
            rx,
            log: Vec::new(),
        }
    }

    /// The next line holding `what`, within `seconds` (the child ending first fails).
    fn wait_for(&mut self, what: &str, seconds: u64) -> String {
        let deadline = Instant::now() + Duration::from_secs(seconds);
        loop {
            match self.rx.recv_timeout(Duration::from_millis(200)) {
                Ok(line) => {
                    self.log.push(line.clone());
                    if line.contains(what) {
                        return line;
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    panic!("piney ended before {what:?}: {}", self.log.join("\n"))
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
            }
            assert!(
                Instant::now() < deadline,
                "no {what:?} in {seconds} s: {}",
                self.log.join("\n")
            );
        }
    }
}

/// Runs xdotool (package `xdotool`) on `display`; it must succeed.
fn xdotool(display: &str, args: &[&str]) -> String {
    let out = Command::new("xdotool")
        .args(args)
        .env("DISPLAY", display)
        .output()
        .unwrap_or_else(|e| panic!("xdotool: {e}: install the `xdotool` package"));
    assert!(out.status.success(), "xdotool {args:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The piney window on `display` (waiting for it to be mapped), focused.
fn focused_window(display: &str) -> String {
    let id = xdotool(display, &["search", "--sync", "--name", "piney: "])
        .lines()
        .next()
        .unwrap_or_else(|| panic!("no piney window on {display}"))
        .trim()
        .to_string();
    xdotool(display, &["windowfocus", "--sync", &id]);
    id
}

fn no_display_says_so() {
    let out = piney()
        .args(["demo", "--frames", "1"])
        .env_remove("DISPLAY")
        .stdin(Stdio::null())
        .output()
        .expect("running piney");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "ran without a display? {err}");
    assert!(
        err.contains("no display available") && err.contains("--headless"),
        "stderr: {err}"
    );
}

/// The headless run's frame N-1: the picture the window must hold.
/// `piney demo --frames N --hold 30` in a window on `display` with `extra` options (stdout
/// dropped), once it shows frame N - 1: the child and its stderr lines.
fn held_window(display: &str, frames: u64, extra: &[&std::ffi::OsStr]) -> (Killed, Lines) {
    let mut child = Killed(
        piney()
            .args(["demo", "--frames", &frames.to_string(), "--hold", "30"])
            .args(extra)
            .env("DISPLAY", display)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("starting piney demo"),
    );
    let mut lines = Lines::of(child.0.stderr.take().unwrap());
    lines.wait_for(
        &format!("--frames {frames} reached: showing frame {}", frames - 1),
        240,
    );
    (child, lines)
}

/// `cmd` (a piney run) in a window on `display`, stdout and stderr read line by line: the
/// child (killed on drop), its stdout and its stderr lines.
fn in_window(mut cmd: Command, display: &str) -> (Killed, Lines, Lines) {
    let mut child = Killed(
        cmd.env("DISPLAY", display)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("starting piney"),
    );
    let out = Lines::of(child.0.stdout.take().unwrap());
    let err = Lines::of(child.0.stderr.take().unwrap());
    (child, out, err)
}

/// Waits (on the run's stderr `err`) until the window presents; its window id.
fn presenting(err: &mut Lines, display: &str) -> String {
    err.wait_for("piney: presenting with", 240);
    focused_window(display)
}

/// `piney demo --headless --frames N` with `extra` options, frames dumped into a fresh scratch
/// folder `name`: the folder.
fn headless_frames(name: &str, frames: u64, extra: &[&std::ffi::OsStr]) -> PathBuf {
    let dir = scratch(name);
    let out = piney()
        .args(["demo", "--headless", "--frames", &frames.to_string()])
        .args(extra)
        .arg("--dump-frames")
        .arg(&dir)
        .stdin(Stdio::null())
        .output()
        .expect("running piney demo --headless");
    assert!(
        out.status.success(),
        "headless run failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir
}

/// Frame `n` of a [`headless_frames`] folder.
fn frame_in(dir: &Path, n: u64) -> Image {
    let path = dir.join(Image::frame_file_name(n));
    Image::read_png(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The headless frame the window tests compare with: frame FRAMES - 1 under the script.
fn headless_frame() -> Image {
    let script = script();
    let dir = headless_frames(
        "demo-window-frames",
        FRAMES,
        &["--input".as_ref(), script.as_os_str()],
    );
    frame_in(&dir, FRAMES - 1)
}

fn window_shows_the_demo() {
    shows_the_demo(&[], "piney: presenting with");
}

/// The same picture from the wgpu renderer, which draws on the window's device: its pictures
/// go from its buffer to the window's texture on the GPU (the adapter line says so), and F12
/// still saves the headless frame.
fn window_shows_the_wgpu_renderers_picture() {
    shows_the_demo(&["--renderer", "wgpu"], "from the renderer's own device");
}

/// A window run of the wgpu renderer copies no picture, and no local memory, back to the CPU:
/// every picture the PCRTC made on the GPU reached the window as it was.
fn wgpu_pictures_stay_on_the_gpu() {
    let (_xvfb, display) = start_xvfb();
    let dir = scratch("demo-window-gpu-stats");
    let err = demo_stats_in_window(&display, &dir, &["--frames", "40", "--renderer", "wgpu"]);
    let line = err
        .lines()
        .find(|l| l.contains("piney: GS: wgpu on"))
        .unwrap_or_else(|| panic!("no wgpu report: {err}"));
    let made: u64 = line
        .split(" pictures made on the GPU")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{line}"));
    assert!(made >= 30, "{line}");
    assert!(
        line.contains(" 0 copied back; 0 copies of local memory back"),
        "{line}"
    );
    assert!(err.contains("from the renderer's own device"), "{err}");
}

/// F12 at `--render-scale 2`: the screenshot is the scaled picture (896 rows, 4:3: 1195 x 896,
/// the width rounded to nearest), the same as the headless run's frame at that scale.
fn screenshot_at_render_scale_2() {
    const AT: u64 = 40;
    let dir = headless_frames(
        "demo-window-scale2-frames",
        AT,
        &["--render-scale".as_ref(), "2".as_ref()],
    );
    let frame = frame_in(&dir, AT - 1);
    assert_eq!((frame.width, frame.height), (1195, 896));

    let shots = scratch("demo-window-scale2-shots");
    let (_xvfb, display) = start_xvfb();
    let size = format!("{}x{}", SIZE.0, SIZE.1);
    let (_child, mut lines) = held_window(
        &display,
        AT,
        &[
            "--no-audio".as_ref(),
            "--render-scale".as_ref(),
            "2".as_ref(),
            "--screenshot-dir".as_ref(),
            shots.as_os_str(),
            "--window-size".as_ref(),
            size.as_ref(),
        ],
    );
    let id = focused_window(&display);
    xdotool(&display, &["key", "--window", &id, "F12"]);
    let line = lines.wait_for("piney: screenshot", 30);
    let path = line.trim_start_matches("piney: screenshot ").trim();
    let shot = Image::read_png(Path::new(path)).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert_eq!(
        (shot.width, shot.height),
        (frame.width, frame.height),
        "{path}"
    );
    assert!(
        shot == frame,
        "the F12 screenshot {path} is not the headless frame at scale 2"
    );
}

/// A program dropped on the window is booted: tools/xdnd-drop.py drops tests/guest/alu.elf on
/// the demo's window by the XDND protocol, as a file manager would (needs `python3-xlib`); the
/// demo's run ends, piney boots the program in its place (a new process, a new window), and its
/// output is the program's expected output.
fn a_dropped_program_boots() {
    let (_xvfb, display) = start_xvfb();
    let (mut child, mut out, mut err) = demo_running(&display);
    let id = presenting(&mut err, &display);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let elf = root.join("tests/guest/alu.elf");
    let dropped = Command::new("/usr/bin/python3")
        .arg(root.join("tools/xdnd-drop.py"))
        .arg(&id)
        .arg(&elf)
        .env("DISPLAY", &display)
        .output()
        .unwrap_or_else(|e| panic!("running tools/xdnd-drop.py (package python3-xlib): {e}"));
    assert!(
        dropped.status.success(),
        "the drop failed: {}",
        String::from_utf8_lossy(&dropped.stderr)
    );
    err.wait_for("piney: booting", 30);
    let status = child.0.wait().expect("waiting for piney");
    assert!(status.success(), "{status}; {}", err.log.join("\n"));
    let want = std::fs::read_to_string(root.join("tests/guest/alu.stdout")).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        while let Ok(line) = out.rx.try_recv() {
            out.log.push(line);
        }
        if out.log.join("\n").ends_with(want.trim_end()) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the dropped program's output is not alu.stdout: {}",
            out.log.join("\n")
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// `--capture` given to a window run of the wgpu renderer (whose pictures stay on the GPU): the
/// animated PNG, split by a decoder not ours (`apngdis`), holds frames 12 to 35, each equal to
/// the headless software run's frame of that vertical blank.
fn a_window_run_captures_frames() {
    let frames = headless_frames("demo-window-capture-frames", 40, &[]);
    let dir = scratch("demo-window-capture");
    let (_xvfb, display) = start_xvfb();
    let apng = dir.join("window.png");
    let out = piney()
        .args(["demo", "--no-audio", "--frames", "40", "--renderer", "wgpu"])
        .arg("--capture")
        .arg(&apng)
        .args(["--capture-frames", "12-35"])
        .env("DISPLAY", &display)
        .stdin(Stdio::null())
        .output()
        .expect("running piney demo");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("from the renderer's own device"), "{err}");
    assert!(
        err.contains(&format!("capture {}: 24 frames", apng.display())),
        "{err}"
    );
    let parts = apng::split(&apng);
    assert_eq!(parts.len(), 24, "{parts:?}");
    for (i, p) in parts.iter().enumerate() {
        let got = Image::read_png(p).unwrap();
        let want = frame_in(&frames, 12 + i as u64);
        assert!(
            got == want,
            "capture frame {i} is not headless frame {}",
            12 + i
        );
    }
}

/// `--stretch` in a window of another shape (800 x 448): the picture fills the whole window, as
/// piney-frontend's CPU reference of the presenter stretches the display circuits' pixels.
fn stretch_fills_the_window() {
    const AT: u64 = 40;
    const WINDOW: (u32, u32) = (800, 448);
    let dir = headless_frames(
        "demo-window-stretch",
        AT,
        &["--dump-format".as_ref(), "display".as_ref()],
    );
    let display_px = frame_in(&dir, AT - 1);
    let want = piney_frontend::reference::present_with(
        &Frame::new(display_px.width, display_px.height, display_px.rgba).unwrap(),
        WINDOW.0,
        WINDOW.1,
        piney_frontend::layout::Scaling {
            filter: piney_frontend::layout::Filter::Nearest,
            stretch: true,
        },
    );
    let (_xvfb, display) = start_xvfb();
    let size = format!("{}x{}", WINDOW.0, WINDOW.1);
    let (_child, lines) = held_window(
        &display,
        AT,
        &[
            "--no-audio".as_ref(),
            "--stretch".as_ref(),
            "--scaling".as_ref(),
            "nearest".as_ref(),
            "--window-size".as_ref(),
            size.as_ref(),
        ],
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    while find(&screenshot(&display), &want, WINDOW).is_none() {
        assert!(
            Instant::now() < deadline,
            "the stretched frame {} never filled the window; log: {}",
            AT - 1,
            lines.log.join("\n")
        );
        std::thread::sleep(Duration::from_millis(250));
    }
}

/// `--speed 2`: Tab held fast-forwards at twice real time, paced. The program is the demo's IOP
/// module alone (demo/iop/ccmon.irx, beside an idle EE program): it waits for vertical blanks
/// for ever and shows no picture, so the machine itself runs far faster than real time (more
/// than 4x unpaced, the first run, here ~170x) and only the pacing holds it at 2x.
fn speed_paces_fast_forward() {
    let dir = scratch("demo-window-speed");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    std::fs::copy(root.join("demo/iop/ccmon.irx"), dir.join("ccmon.irx")).unwrap();
    let (_xvfb, display) = start_xvfb();
    let rate = |extra: &[&str]| -> f64 {
        let mut cmd = piney();
        cmd.current_dir(&dir)
            .args(["run", "ccmon.irx", "--no-audio", "--frames", "1000000"])
            .args(extra);
        let (_child, _, mut lines) = in_window(cmd, &display);
        let id = presenting(&mut lines, &display);
        xdotool(&display, &["keydown", "--window", &id, "Tab"]);
        std::thread::sleep(Duration::from_secs(3));
        xdotool(&display, &["keyup", "--window", &id, "Tab"]);
        let line = lines.wait_for("piney: fast-forward:", 30);
        // "... vertical blanks in S s (X.XXx real time)"
        line.rsplit('(')
            .next()
            .and_then(|t| t.split('x').next())
            .and_then(|x| x.trim().parse().ok())
            .unwrap_or_else(|| panic!("no speed in {line}"))
    };
    let unpaced = rate(&[]);
    assert!(
        unpaced > 4.0,
        "unpaced fast-forward at {unpaced}x: the test cannot tell a cap"
    );
    let paced = rate(&["--speed", "2"]);
    assert!(
        (1.7..=2.3).contains(&paced),
        "--speed 2 fast-forwarded at {paced}x real time"
    );
}

fn shows_the_demo(extra: &[&str], adapter_line: &str) {
    let frame = headless_frame();
    assert_eq!(
        (frame.width, frame.height),
        SIZE,
        "the demo's 4:3 frame size"
    );
    // Not blank: the scene, panels and text give many colours.
    let colours: std::collections::HashSet<[u8; 4]> = frame
        .rgba
        .chunks_exact(4)
        .map(|p| p.try_into().unwrap())
        .collect();
    assert!(
        colours.len() >= 16,
        "frame {} has {} colours",
        FRAMES - 1,
        colours.len()
    );
    // Moved by Adjust Screen: the top 16 rows are black.
    assert!(
        (0..16).all(|y| (0..SIZE.0).all(|x| frame.get(x, y) == [0, 0, 0, 255])),
        "frame {} is not moved down",
        FRAMES - 1
    );
    // What the window must show: the frame presented by the frontend's CPU reference of its
    // shader at the window's size.
    let want = piney_frontend::reference::present(
        &Frame::new(frame.width, frame.height, frame.rgba.clone()).unwrap(),
        SIZE.0,
        SIZE.1,
    );

    let shots = scratch("demo-window-shots");
    let (_xvfb, display) = start_xvfb();
    let (script, size) = (script(), format!("{}x{}", SIZE.0, SIZE.1));
    // Nearest, as the headless 4:3 frame is made (the window's default, sharp bilinear, is
    // checked against its CPU reference in piney-frontend's headless tests). stderr: the
    // adapter line, then the hold line.
    let mut args: Vec<&std::ffi::OsStr> = vec!["--scaling".as_ref(), "nearest".as_ref()];
    args.extend(extra.iter().map(std::ffi::OsStr::new));
    args.extend([
        "--input".as_ref(),
        script.as_os_str(),
        "--screenshot-dir".as_ref(),
        shots.as_os_str(),
        "--window-size".as_ref(),
        size.as_ref(),
    ]);
    let (_child, mut lines) = held_window(&display, FRAMES, &args);
    // The last picture reaches the screen at the next redraw.
    let deadline = Instant::now() + Duration::from_secs(20);
    let (shot, at) = loop {
        let shot = screenshot(&display);
        if let Some(at) = find(&shot, &want, SIZE) {
            break (shot, at);
        }
        if Instant::now() > deadline {
            panic!(
                "frame {} never appeared on {display}: {} pixels differ at (0, 0); log: {}",
                FRAMES - 1,
                differing(&shot, &want, (0, 0)),
                lines.log.join("\n")
            );
        }
        std::thread::sleep(Duration::from_millis(250));
    };
    // The root window around the picture is white; the picture is not.
    if at.0 + SIZE.0 < shot.width {
        assert_eq!(
            shot.get(at.0 + SIZE.0 + 2, at.1 + 2),
            [255, 255, 255],
            "root"
        );
    }
    assert!(
        lines.log.iter().any(|l| l.contains(adapter_line)),
        "no line with \"{adapter_line}\": {}",
        lines.log.join("\n")
    );
    eprintln!(
        "frame {} shown at {at:?} on {display}; {}",
        FRAMES - 1,
        lines.log.join("; ")
    );
    // F12, as a player presses it: the screenshot is the picture on screen, as the headless run
    // presents it (moved by Adjust Screen, 4:3).
    let id = focused_window(&display);
    xdotool(&display, &["key", "--window", &id, "F12"]);
    let line = lines.wait_for("piney: screenshot", 30);
    let path = line.trim_start_matches("piney: screenshot ").trim();
    let shot_img = Image::read_png(Path::new(path)).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert!(
        shot_img == frame,
        "the F12 screenshot {path} is not the headless frame {}",
        FRAMES - 1
    );
    assert!(path.starts_with(&*shots.to_string_lossy()), "{path}");
    // The rest of the hold is not needed: the child is killed on drop.
}

/// A PulseAudio server of our own with one null sink `piney_test` at 48 kHz, its socket in
/// `dir`; the server's address for `PULSE_SERVER`.
fn start_pulse(dir: &Path) -> (Killed, String) {
    let socket = dir.join("native");
    let server = format!("unix:{}", socket.display());
    let child = Killed(spawn_or_explain(
        Command::new("pulseaudio")
            .args([
                "-n",
                "--daemonize=no",
                "--exit-idle-time=-1",
                "--use-pid-file=no",
                "--load=module-null-sink sink_name=piney_test rate=48000",
            ])
            .arg(format!(
                "--load=module-native-protocol-unix auth-anonymous=1 socket={}",
                socket.display()
            ))
            // Its state and cookie in our folder, not the user's.
            .env("HOME", dir)
            .env("XDG_RUNTIME_DIR", dir)
            .env_remove("PULSE_SERVER")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null()),
        "pulseaudio",
    ));
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let up = Command::new("pactl")
            .args(["--server", &server, "info"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap_or_else(|e| panic!("pactl: {e}: install the `pulseaudio-utils` package"));
        if up.success() {
            return (child, server);
        }
        assert!(
            Instant::now() < deadline,
            "pulseaudio did not start in 20 s"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Runs `piney demo` in a window on `display` with `env`; its stderr (it must succeed).
fn demo_in_window(display: &str, args: &[&str], env: &[(&str, &str)]) -> String {
    let mut cmd = piney();
    cmd.args(["demo"])
        .args(args)
        .args(["--window-size", &format!("{}x{}", SIZE.0, SIZE.1)])
        .env("DISPLAY", display)
        .stdin(Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("running piney demo");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "piney demo failed: {err}");
    err
}

/// Normalised correlation of `a` with `b` at its best lag (a brute-force search).
fn best_correlation(a: &[f32], b: &[f32]) -> (f64, usize) {
    let energy = |x: &[f32]| x.iter().map(|&v| v as f64 * v as f64).sum::<f64>();
    let ea = energy(a);
    let mut best = (0.0, 0);
    let mut eb = energy(&b[..a.len()]);
    for lag in 0..=b.len() - a.len() {
        if lag > 0 {
            let (out, inn) = (b[lag - 1] as f64, b[lag + a.len() - 1] as f64);
            eb += inn * inn - out * out;
        }
        let w = &b[lag..lag + a.len()];
        let dot: f64 = a.iter().zip(w).map(|(&x, &y)| x as f64 * y as f64).sum();
        let c = dot / (ea * eb.max(1e-9)).sqrt();
        if c > best.0 {
            best = (c, lag);
        }
    }
    best
}

fn window_plays_the_sound() {
    let dir = scratch("demo-window-sound");
    let (_pulse, server) = start_pulse(&dir);
    let recording = dir.join("recorded.raw");
    let mut parec = Killed(spawn_or_explain(
        Command::new("parec")
            .args(["--server", &server, "-d", "piney_test.monitor"])
            .args(["--format=s16le", "--rate=48000", "--channels=2", "--raw"])
            .arg("--latency-msec=20")
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(&recording).unwrap())
            .stderr(Stdio::null()),
        "pulseaudio-utils",
    ));
    let (_xvfb, display) = start_xvfb();
    let wav = dir.join("dumped.wav");
    let err = demo_in_window(
        &display,
        &[
            "--frames",
            "300",
            "--stats",
            "--dump-audio",
            wav.to_str().unwrap(),
        ],
        &[("PULSE_SERVER", &server)],
    );
    std::thread::sleep(Duration::from_millis(300));
    let _ = parec.0.kill();
    let _ = parec.0.wait();
    assert!(
        err.lines()
            .any(|l| l.starts_with("piney: sound on PulseAudio")),
        "no sound line: {err}"
    );
    let stats = err
        .lines()
        .find(|l| l.starts_with("piney: audio: "))
        .unwrap_or_else(|| panic!("no audio stats line: {err}"));
    // The dumped sound: 300 vblanks of it (5 s), the demo's tune.
    let dumped: Vec<f32> = hound::WavReader::open(&wav)
        .unwrap()
        .into_samples::<i16>()
        .step_by(2)
        .map(|s| s.unwrap() as f32)
        .collect();
    assert!(dumped.len() > 4 * 48_000, "{} frames dumped", dumped.len());
    let recorded: Vec<f32> = std::fs::read(&recording)
        .unwrap()
        .chunks_exact(4)
        .map(|f| i16::from_le_bytes([f[0], f[1]]) as f32)
        .collect();
    // The loud parts of the recording (the window may play with gaps when the machine runs
    // slower than real time, and stretches by up to 0.5%, 6 frames over 25 ms: each 25 ms
    // window must be the dump's sound).
    let window = 1200;
    let loud: Vec<usize> = (0..recorded.len().saturating_sub(window))
        .step_by(window)
        .filter(|&i| {
            recorded[i..i + window]
                .iter()
                .filter(|v| v.abs() > 200.0)
                .count()
                > window / 2
        })
        .collect();
    assert!(
        loud.len() >= 10,
        "only {} loud 25 ms windows recorded ({} frames); {stats}",
        loud.len(),
        recorded.len()
    );
    let mut found = 0;
    let picks = [loud[1], loud[loud.len() / 2], loud[loud.len() - 2]];
    for &i in &picks {
        let (c, lag) = best_correlation(&recorded[i..i + window], &dumped);
        eprintln!("recorded frame {i}: correlation {c:.4} with the dump at frame {lag}");
        if c > 0.9 {
            found += 1;
        }
    }
    assert!(found >= 2, "the recording is not the dumped sound; {stats}");
    eprintln!("{stats}");
}

fn no_sound_device_is_one_line() {
    let dir = scratch("demo-window-no-sound");
    let (_xvfb, display) = start_xvfb();
    // No PulseAudio server where it points, and ALSA told to open a card that is not there.
    let asoundrc = dir.join(".asoundrc");
    std::fs::write(
        &asoundrc,
        "pcm.!default { type hw card 99 }\nctl.!default { type hw card 99 }\n",
    )
    .unwrap();
    let err = demo_in_window(
        &display,
        &["--frames", "20"],
        &[
            ("PULSE_SERVER", "unix:/nonexistent/piney-no-pulse"),
            ("HOME", dir.to_str().unwrap()),
        ],
    );
    let sound: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("sound") || l.contains("ALSA") || l.contains("audio"))
        .collect();
    assert_eq!(sound.len(), 1, "one line about the sound: {err}");
    assert!(sound[0].starts_with("piney: no sound: "), "{err}");
}

/// `piney demo` running in a window on `display` for as long as the test needs it (silent):
/// the child (killed on drop), its stdout (the demo's own lines) and its stderr (piney's), each
/// read line by line.
fn demo_running(display: &str) -> (Killed, Lines, Lines) {
    let mut cmd = piney();
    cmd.args(["demo", "--frames", "100000", "--no-audio"])
        .args(["--window-size", &format!("{}x{}", SIZE.0, SIZE.1)])
        .arg("--screenshot-dir")
        .arg(scratch("demo-window-running-shots"));
    in_window(cmd, display)
}

/// A key tapped as `xdotool key` taps it (down and up at once, between two pad reads) reaches
/// the demo: a tap of Backspace (select) switches it to 30 fps, as its menu prints.
fn a_tapped_key_reaches_the_demo() {
    let (_xvfb, display) = start_xvfb();
    let (_child, mut lines, _) = demo_running(&display);
    // The demo's line a second: its frame controller and pad reader run.
    lines.wait_for("fps (frameRate 1)", 240);
    let id = focused_window(&display);
    xdotool(&display, &["key", "--window", &id, "BackSpace"]);
    lines.wait_for("menu: frameRate 2 (30 fps)", 60);
}

/// Pause, frame advance and fast-forward through the window's own key events: P pauses (no
/// vertical blank runs while paused, however long), N advances to the next picture (one
/// vertical blank at the demo's 60 fps), P resumes, and Tab held runs vertical blanks unpaced.
fn pause_frame_advance_and_fast_forward_by_keys() {
    let (_xvfb, display) = start_xvfb();
    let (_child, _, mut lines) = demo_running(&display);
    let id = presenting(&mut lines, &display);
    let key = |args: &[&str]| {
        xdotool(&display, args);
    };
    // The number after `word` in `line`.
    let number = |line: &str, word: &str| -> u64 {
        let at = line
            .find(word)
            .unwrap_or_else(|| panic!("{word:?} in {line}"))
            + word.len();
        line[at..]
            .split(|c: char| !c.is_ascii_digit())
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("a number after {word:?} in {line}"))
    };
    // Let the demo run a little, then pause.
    std::thread::sleep(Duration::from_secs(3));
    key(&["key", "--window", &id, "p"]);
    let paused = number(&lines.wait_for("piney: paused at", 30), "vertical blank ");
    assert!(paused > 0, "nothing ran before the pause");
    // The on-screen display shows the line in the window's corner (white letters over the
    // picture, 8 pixels in) and takes it away after 3 s; the paused picture stays the same.
    let geometry = xdotool(&display, &["getwindowgeometry", "--shell", &id]);
    let at = |key: &str| -> u32 {
        geometry
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{key}=")))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| panic!("{key} in {geometry}"))
    };
    let (wx, wy) = (at("X"), at("Y"));
    let white_in_corner = || {
        let shot = screenshot(&display);
        (wy + 11..wy + 19)
            .flat_map(|y| (wx + 11..wx + 211).map(move |x| (x, y)))
            .filter(|&(x, y)| shot.get(x, y) == [255, 255, 255])
            .count()
    };
    std::thread::sleep(Duration::from_millis(500));
    let during = white_in_corner();
    std::thread::sleep(Duration::from_secs(4));
    let after = white_in_corner();
    assert!(
        during > after + 20,
        "no message in the corner: {during} white pixels while shown, {after} after"
    );
    // F9: the performance overlay stays in the corner (its lines updated once a second, past
    // the messages' 3 s) until F9 again.
    key(&["key", "--window", &id, "F9"]);
    std::thread::sleep(Duration::from_secs(5));
    let overlay = white_in_corner();
    key(&["key", "--window", &id, "F9"]);
    std::thread::sleep(Duration::from_secs(1));
    let gone = white_in_corner();
    assert!(
        overlay > gone + 20,
        "no performance overlay: {overlay} white pixels with it, {gone} without"
    );
    // Paused for 3 s: the next frame advance is the very next vertical blank.
    std::thread::sleep(Duration::from_secs(3));
    let mut at = paused;
    for _ in 0..2 {
        key(&["key", "--window", &id, "n"]);
        let next = number(
            &lines.wait_for("piney: frame advance:", 30),
            "vertical blank ",
        );
        // The demo's next picture comes at the next vertical blank (60 fps, animated); a
        // frame advance never runs the vertical blanks of the pause.
        assert!(
            (at + 1..=at + 2).contains(&next),
            "a frame advance from vertical blank {at} reached {next}"
        );
        at = next;
    }
    key(&["key", "--window", &id, "p"]);
    lines.wait_for("piney: resumed", 30);
    // Tab held for 3 s: vertical blanks run unpaced, and the release says how many.
    key(&["keydown", "--window", &id, "Tab"]);
    std::thread::sleep(Duration::from_secs(3));
    key(&["keyup", "--window", &id, "Tab"]);
    let ff = lines.wait_for("piney: fast-forward:", 30);
    assert!(number(&ff, "fast-forward: ") > 0, "{ff}");
    // F10 starts an animated capture, F10 again ends it: a decoder not ours (apngdis) finds
    // as many frames as the line says, each of the presented picture's size.
    key(&["key", "--window", &id, "F10"]);
    lines.wait_for("started at frame", 30);
    std::thread::sleep(Duration::from_secs(2));
    key(&["key", "--window", &id, "F10"]);
    let done = lines.wait_for("frames, animated PNG", 30);
    let path = done
        .trim_start_matches("piney: capture ")
        .split(": ")
        .next()
        .unwrap()
        .to_string();
    let n = number(&done, ".png: ");
    assert!(n >= 2, "{done}");
    let split = scratch("demo-window-capture-split");
    std::fs::copy(&path, split.join("capture.png")).unwrap();
    let frames = apng::split(&split.join("capture.png"));
    assert_eq!(frames.len() as u64, n, "{done}");
    // The presented picture: the demo's 448 lines at 4:3 (597 x 448), as --dump-frames.
    for f in frames {
        let img = Image::read_png(&f).unwrap();
        assert_eq!((img.width, img.height), (597, 448), "{done}");
    }
    // F8 starts a GS dump for PCSX2 at the next clean vertical blank, F8 again ends it; the
    // file replays.
    key(&["key", "--window", &id, "F8"]);
    let started = lines.wait_for("from the next clean vertical blank", 30);
    let gs = started
        .trim_start_matches("piney: GS capture ")
        .split(" from the next")
        .next()
        .unwrap()
        .to_string();
    std::thread::sleep(Duration::from_secs(2));
    key(&["key", "--window", &id, "F8"]);
    let ended = lines.wait_for("GS capture ended", 30);
    let frames = number(&ended, "ended: ");
    assert!(frames >= 1, "{ended}");
    let out = piney()
        .args(["replay", "--headless", &gs])
        .output()
        .expect("piney replay");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && err.contains(&format!("{frames} frames")),
        "replaying {gs}: {err}"
    );
}

/// Save state keys (issue 16) through the window's own key events: F2 picks slot 1 (empty),
/// F1 saves it (`states/demo.1.state` in the data folder, one line saying so and the frame),
/// F3 loads it (one line, the same frame), and the demo runs on from there: its own line of
/// frame numbers counts on from the loaded frame. The file loads in a headless run too.
fn save_state_keys() {
    let dir = scratch("demo-window-states");
    let (_xvfb, display) = start_xvfb();
    let mut cmd = piney();
    cmd.args(["demo", "--frames", "100000", "--no-audio"])
        .args(["--window-size", &format!("{}x{}", SIZE.0, SIZE.1)])
        .env("XDG_DATA_HOME", &dir);
    let (child, mut out, mut err) = in_window(cmd, &display);
    let id = presenting(&mut err, &display);
    let key = |k: &str| {
        xdotool(&display, &["key", "--window", &id, k]);
    };
    let file = dir.join("piney/states/demo.1.state");
    key("F2");
    let line = err.wait_for("save state slot", 30);
    assert_eq!(
        line,
        format!("piney: save state slot 1 (empty): {}", file.display())
    );
    // The demo's line a second: frames are running.
    out.wait_for("fps (frameRate 1)", 240);
    key("F1");
    let saved = err.wait_for("state saved to slot", 30);
    let frame = |line: &str| -> u64 {
        let at = line.find("(frame ").unwrap_or_else(|| panic!("{line}")) + 7;
        line[at..]
            .split(|c: char| !c.is_ascii_digit())
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{line}"))
    };
    let at = frame(&saved);
    assert!(saved.ends_with(&file.display().to_string()), "{saved}");
    assert!(file.exists(), "{saved}");
    // Run on a while (two of the demo's lines), then load: back at the saved frame.
    out.wait_for("fps (frameRate 1)", 60);
    out.wait_for("fps (frameRate 1)", 60);
    key("F3");
    let loaded = err.wait_for("state loaded from slot", 30);
    assert_eq!(frame(&loaded), at, "{loaded}");
    // The demo prints `frame N tick N` every 60 frames: the next one after the load is the
    // first multiple of 60 past the saved frame.
    let next = out.wait_for("fps (frameRate 1)", 60);
    let n: u64 = next
        .strip_prefix("frame ")
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{next}"));
    assert_eq!(n, (at / 60 + 1) * 60, "after loading frame {at}: {next}");
    drop(child);
    // The slot's file is a state that a headless run loads.
    let o = piney()
        .args(["demo", "--headless", "--frames", "2", "--load-state"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// settings.toml (issue 16): the first run in a window writes it, every key at its default with
/// its comment, into the config folder it is given (never the user's: XDG_CONFIG_HOME); a
/// second run leaves the file that is there alone and uses it.
fn a_window_run_writes_the_settings_file() {
    let dir = scratch("demo-window-settings");
    let file = dir.join("piney/settings.toml");
    let (_xvfb, display) = start_xvfb();
    let env = [("XDG_CONFIG_HOME", dir.to_str().unwrap())];
    let err = demo_in_window(&display, &["--frames", "5", "--no-audio"], &env);
    assert!(
        err.contains(&format!("piney: settings {}: written", file.display())),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        piney_settings::default_file()
    );
    std::fs::write(&file, "volume = 35\n").unwrap();
    let err = demo_in_window(&display, &["--frames", "5", "--no-audio", "--stats"], &env);
    assert!(!err.contains("written"), "{err}");
    assert!(err.contains(" volume=35 "), "{err}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "volume = 35\n");
    // The window remembers its size: resized by the player (xdotool), closed with Escape, the
    // file gets window_size and keeps the rest; the next run opens at that size.
    let mut cmd = piney();
    cmd.args(["demo", "--frames", "100000", "--no-audio"])
        .env("XDG_CONFIG_HOME", &dir);
    let (_child, _, mut lines) = in_window(cmd, &display);
    let id = presenting(&mut lines, &display);
    xdotool(&display, &["windowsize", &id, "700", "500"]);
    std::thread::sleep(Duration::from_secs(2));
    xdotool(&display, &["key", "--window", &id, "Escape"]);
    lines.wait_for("the window's size, remembered", 60);
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "volume = 35\nwindow_size = \"700x500\"\n"
    );
    let err = demo_stats_in_window(&display, &dir, &["--frames", "5"]);
    assert!(err.contains(" window_size=700x500 "), "{err}");
    // --vsync and --no-vsync pick the present mode the adapter line names (lavapipe has
    // Mailbox and Immediate).
    assert!(err.contains("(Mailbox)"), "{err}");
    let err = demo_stats_in_window(&display, &dir, &["--frames", "5", "--no-vsync"]);
    assert!(err.contains("(Immediate)"), "{err}");
    // --fps-cap 10: 120 vertical blanks (2 s) of a 60 fps game, at most 10 pictures a second
    // presented (and the game still made a picture every vblank).
    let err = demo_stats_in_window(&display, &dir, &["--frames", "120", "--fps-cap", "10"]);
    let window = err
        .lines()
        .find(|l| l.starts_with("piney: window: "))
        .unwrap_or_else(|| panic!("no window line: {err}"));
    // "N vertical blanks, M pictures made, P presented".
    let n: Vec<u64> = window
        .trim_start_matches("piney: window: ")
        .split(", ")
        .filter_map(|p| p.split_whitespace().next()?.parse().ok())
        .collect();
    let [vblanks, made, presented] = n[..] else {
        panic!("{window}")
    };
    assert!(vblanks >= 120, "{window}");
    assert!(made >= 100, "{window}");
    assert!((1..=24).contains(&presented), "{window}");
    // Without a cap the pictures are presented on the vblank schedule (drawn ahead, presented
    // when the next vblank is due): intervals one vblank apart are measured, timed both when
    // the presents were called and when they returned.
    let err = demo_stats_in_window(&display, &dir, &["--frames", "60"]);
    for name in ["presented-frame jitter", "present-call jitter"] {
        assert!(
            err.lines()
                .any(|l| l.starts_with(&format!("piney: {name}: 60 fps: "))),
            "{name}: {err}"
        );
    }
}

/// A short window run with the settings in `dir`, no --window-size, `extra` options: its
/// stderr.
fn demo_stats_in_window(display: &str, dir: &Path, extra: &[&str]) -> String {
    let out = piney()
        .args(["demo", "--no-audio", "--stats"])
        .args(extra)
        .env("DISPLAY", display)
        .env("XDG_CONFIG_HOME", dir)
        .stdin(Stdio::null())
        .output()
        .expect("running piney demo");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn main() -> ExitCode {
    for (name, test) in [
        ("no_display_says_so", no_display_says_so as fn()),
        (
            "a_tapped_key_reaches_the_demo",
            a_tapped_key_reaches_the_demo,
        ),
        ("window_shows_the_demo", window_shows_the_demo),
        (
            "window_shows_the_wgpu_renderers_picture",
            window_shows_the_wgpu_renderers_picture,
        ),
        (
            "wgpu_pictures_stay_on_the_gpu",
            wgpu_pictures_stay_on_the_gpu,
        ),
        ("screenshot_at_render_scale_2", screenshot_at_render_scale_2),
        ("a_dropped_program_boots", a_dropped_program_boots),
        ("a_window_run_captures_frames", a_window_run_captures_frames),
        ("stretch_fills_the_window", stretch_fills_the_window),
        ("speed_paces_fast_forward", speed_paces_fast_forward),
        ("window_plays_the_sound", window_plays_the_sound),
        ("no_sound_device_is_one_line", no_sound_device_is_one_line),
        (
            "pause_frame_advance_and_fast_forward_by_keys",
            pause_frame_advance_and_fast_forward_by_keys,
        ),
        (
            "a_window_run_writes_the_settings_file",
            a_window_run_writes_the_settings_file,
        ),
        ("save_state_keys", save_state_keys),
    ] {
        // PINEY_WINDOW_TEST=name runs that one alone (by hand).
        if std::env::var("PINEY_WINDOW_TEST").is_ok_and(|only| only != name) {
            continue;
        }
        println!("test {name} ...");
        test();
        println!("test {name} ... ok");
    }
    ExitCode::SUCCESS
}
