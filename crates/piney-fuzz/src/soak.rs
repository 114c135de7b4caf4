//! The soak: the demo for a long stretch of emulated time (an hour by hand, less in CI) with a
//! seeded random input script that presses everything, checking at every vertical blank and
//! every sample that nothing drifts, leaks or stalls.
//!
//! The machine is built as `piney demo --headless` builds it: the demo's hooks from its symbols
//! (the native scheduler, frame controller, pad reader and motor queue), the GS on its own
//! thread (ThreadedRenderer around the software renderer), the pads from an input script read
//! through `InputScript::load`, the sound taken by a sink. A frame is presented every
//! `present_every` vertical blanks, as a window would.
//!
//! Checked at every vertical blank (from the demo's own records, read from guest memory at its
//! symbols; the layouts are demo/src/ccsystem.h, tscb.h, heap.c):
//! - `ccSys.tick` (vertical blanks the VSync handler counted) goes up by exactly one;
//! - `ccSys.count` (frames run by ccSystem::Ctrl) goes up by 0 or 1, `ccSys.frameRate` is 1 or
//!   2, and two frames are never closer than `frameRate` vertical blanks (the frame controller
//!   waits for `frameRateCnt >= frameRate`); frames further apart are counted as late;
//! - `ccSys.pathTimeouts` stays 0 (the demo never gave up waiting for the GS).
//!
//! Checked at every sample (`sample_seconds` of emulated time):
//! - the task list from `tscbTop`: no cycle, at most 16 records, each 4-aligned in RAM, named
//!   one of the demo's six tasks, each live task's thread known to the kernel, the five
//!   resident tasks present, at most one ticker, and `tickerLives - tickerFreed` 0 or 1, with
//!   tickers still being born (the task lifecycle has not stalled);
//! - the demo's heap (`arena`): its blocks tile the 256 KiB arena in address order, and with no
//!   ticker alive its free bytes are what they were the first time (no guest leak);
//! - the kernel: live threads and semaphores no more than at the first sample (plus a ticker);
//! - emulated time: vertical blanks are the cycles at 59.94 Hz, and the sound handed out is
//!   48,000 stereo samples an emulated second (within a vertical blank's worth);
//! - the host: the process's threads as at the first sample (nothing spawned and left on the
//!   GS side), its resident memory and (with [`crate::guard::CapAlloc`]) its live heap within
//!   a margin of the first sample after the warm-up.
//!
//! At the end: every button and stick was pressed, select switched the frame rate and start
//! the Adjust Screen page (as the demo's output says), circle and triangle ran the motors, and
//! after the quiet tail the motors are off.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use piney_gs::{Pcrtc, SoftwareRenderer, ThreadedRenderer};
use piney_input::PadReport;
use piney_machine::sif::padman::PadInput;
use piney_machine::{EE_CLOCK_HZ, Machine, RunLimits};

use crate::mutate::Rng;

/// NTSC vertical blanks a second: 60000/1001.
pub const VBLANK_HZ: f64 = 60_000.0 / 1001.0;

/// The settings of a soak.
#[derive(Debug, Clone)]
pub struct SoakOptions {
    /// Emulated seconds (the script and the run).
    pub seconds: f64,
    /// The script's seed.
    pub seed: u64,
    /// Use the recompiler.
    pub jit: bool,
    /// Emulated seconds between samples.
    pub sample_seconds: f64,
    /// Emulated seconds before the memory baselines are taken.
    pub warmup_seconds: f64,
    /// Present a frame every this many vertical blanks.
    pub present_every: u64,
    /// Stop with an error past this much wall time.
    pub wall_limit: Duration,
    /// Resident memory and live heap may grow this much past their baselines.
    pub memory_margin: u64,
    /// Print a line at every sample.
    pub verbose: bool,
}

impl Default for SoakOptions {
    fn default() -> Self {
        SoakOptions {
            seconds: 3600.0,
            seed: 1,
            jit: false,
            sample_seconds: 10.0,
            warmup_seconds: 30.0,
            present_every: 10,
            wall_limit: Duration::from_secs(3 * 3600),
            memory_margin: 16 << 20,
            verbose: false,
        }
    }
}

/// What a soak measured.
#[derive(Debug, Clone, Default)]
pub struct SoakReport {
    /// Emulated seconds run.
    pub emulated_seconds: f64,
    /// Vertical blanks.
    pub vblanks: u64,
    /// Frames the demo ran (ccSys.count).
    pub frames: u64,
    /// Frames that came later than `frameRate` vertical blanks after the one before.
    pub late_frames: u64,
    /// Frames presented (pictures taken from the renderer).
    pub presented: u64,
    /// Wall time.
    pub wall: Duration,
    /// Resident memory at the baseline, at its peak (VmHWM) and at the end, in KiB.
    pub rss_kib: (u64, u64, u64),
    /// Live heap bytes at the baseline, the largest seen at a sample, and at the end (0
    /// without CapAlloc).
    pub heap: (u64, u64, u64),
    /// Host threads at the first sample and at the end.
    pub threads: (u64, u64),
    /// Tickers born and freed.
    pub tickers: (u32, u32),
    /// Samples taken.
    pub samples: u64,
    /// Checks made, by invariant.
    pub checks: Vec<(&'static str, u64)>,
    /// Motor changes seen: (small on, large on).
    pub rumble_starts: (u64, u64),
    /// Frame-rate switches the demo reported and Adjust Screen page toggles.
    pub switches: (u64, u64),
    /// Changes of the display offset (Adjust Screen moving the picture).
    pub offset_moves: u64,
    /// Sound samples (stereo pairs) handed out.
    pub audio_frames: u64,
}

impl SoakReport {
    /// The report as lines.
    pub fn lines(&self) -> Vec<String> {
        let mut v = vec![
            format!(
                "soak: {:.3} emulated hours ({:.0} s), {} vertical blanks, {} demo frames ({} late), {} presented, in {:.0} s wall",
                self.emulated_seconds / 3600.0,
                self.emulated_seconds,
                self.vblanks,
                self.frames,
                self.late_frames,
                self.presented,
                self.wall.as_secs_f64()
            ),
            format!(
                "soak: resident memory {} KiB after the warm-up, peak {} KiB, final {} KiB",
                self.rss_kib.0, self.rss_kib.1, self.rss_kib.2
            ),
            format!(
                "soak: live heap {:.1} MiB after the warm-up, largest {:.1} MiB, final {:.1} MiB; host threads {} then {}",
                self.heap.0 as f64 / 1048576.0,
                self.heap.1 as f64 / 1048576.0,
                self.heap.2 as f64 / 1048576.0,
                self.threads.0,
                self.threads.1
            ),
            format!(
                "soak: tickers born {} freed {}; motors started (small, large) {:?}; frame-rate switches {}, Adjust Screen toggles {}, offset changes {}; {} sound frames",
                self.tickers.0,
                self.tickers.1,
                self.rumble_starts,
                self.switches.0,
                self.switches.1,
                self.offset_moves,
                self.audio_frames
            ),
        ];
        v.push(format!("soak: {} samples; checks:", self.samples));
        for (name, n) in &self.checks {
            v.push(format!("soak:   {n:>9} x {name}"));
        }
        v
    }
}

/// The buttons of the script, by name.
const BUTTONS: [&str; 16] = [
    "cross", "circle", "square", "triangle", "l1", "r1", "l2", "r2", "l3", "r3", "select", "start",
    "up", "down", "left", "right",
];

/// A seeded random input script up to vertical blank `vblanks`: spans of nothing, the D-pad (with cross, which centres the Adjust Screen page),
/// circle and triangle (the motors), select (30/60), start (Adjust Screen), square (suspends
/// the scene a frame), the shoulder and stick buttons, and the sticks anywhere.
pub fn random_script(seed: u64, vblanks: u64) -> String {
    let mut rng = Rng::new(seed);
    let mut out = format!("# piney-fuzz soak script, seed {seed}\n");
    // First a tour, from vertical blank 60 (the demo's pad is up by then), so that even a
    // short soak presses everything: Adjust Screen opened, the picture moved every way and
    // centred, the page closed, 30 fps and back, both motors, the scene suspended, the rest of
    // the buttons, the sticks.
    let tour = [
        "start",
        "right",
        "down",
        "left",
        "up",
        "cross",
        "start",
        "select",
        "select",
        "circle",
        "triangle",
        "square",
        "l1",
        "r1",
        "l2",
        "r2",
        "l3",
        "r3",
        "lx=0 ly=255",
        "rx=255 ry=0",
    ];
    let mut f = 60u64;
    for item in tour {
        if f + 12 >= vblanks {
            break;
        }
        out.push_str(&format!("{f}-{} {item}\n", f + 11));
        f += 24;
    }
    while f < vblanks {
        let r = rng.below(100);
        let len = match r {
            0..=29 => 1 + rng.below(120) as u64,
            _ => 1 + rng.below(30) as u64,
        };
        let last = (f + len - 1).min(vblanks);
        let mut items: Vec<String> = Vec::new();
        match r {
            0..=29 => {}
            30..=54 => {
                items.push((*rng.pick(&["up", "down", "left", "right"])).into());
                if rng.chance(1, 3) {
                    items.push((*rng.pick(&["up", "down", "left", "right"])).into());
                }
                if rng.chance(1, 6) {
                    items.push("cross".into());
                }
            }
            55..=64 => items.push("circle".into()),
            65..=72 => items.push("triangle".into()),
            73..=77 => items.push("select".into()),
            78..=81 => items.push("start".into()),
            82..=86 => items.push("square".into()),
            87..=94 => {
                for s in ["lx", "ly", "rx", "ry"] {
                    if rng.chance(2, 3) {
                        items.push(format!("{s}={}", rng.below(256)));
                    }
                }
            }
            _ => {
                for _ in 0..1 + rng.below(4) {
                    items.push((*rng.pick(&BUTTONS)).into());
                }
            }
        }
        if !items.is_empty() {
            let span = if last > f {
                format!("{f}-{last}")
            } else {
                f.to_string()
            };
            let port = if rng.chance(1, 50) { "p2:" } else { "" };
            out.push_str(&format!("{port}{span} {}\n", items.join("+")));
        }
        f = last + 1 + rng.below(20) as u64;
    }
    out
}

/// Pads from the script, with the motors' changes recorded.
struct SoakPads {
    script: piney_input::script::InputScript,
    vblank: u64,
    motors: Rc<RefCell<Motors>>,
}

#[derive(Debug, Default)]
struct Motors {
    small: bool,
    large: u8,
    starts: (u64, u64),
}

impl PadInput for SoakPads {
    fn begin_frame(&mut self, vblank: u64) {
        self.vblank = vblank;
    }
    fn report(&mut self, port: u8) -> Option<PadReport> {
        self.script.report(port, self.vblank)
    }
    fn rumble(&mut self, port: u8, small: bool, large: u8) {
        if port != 0 {
            return;
        }
        let mut m = self.motors.borrow_mut();
        if small && !m.small {
            m.starts.0 += 1;
        }
        if large > 0 && m.large == 0 {
            m.starts.1 += 1;
        }
        m.small = small;
        m.large = large;
    }
}

/// Counts the sound handed out.
struct CountAudio(Rc<RefCell<u64>>);

impl piney_machine::audio::AudioSink for CountAudio {
    fn samples(&mut self, stereo: &[i16]) {
        *self.0.borrow_mut() += stereo.len() as u64 / 2;
    }
}

/// Collects the demo's output lines (its menu prints the frame-rate switches).
#[derive(Clone, Default)]
struct Output(Rc<RefCell<(Vec<u8>, u64, u64)>>);

impl std::io::Write for Output {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        let mut o = self.0.borrow_mut();
        o.0.extend_from_slice(b);
        while let Some(n) = o.0.iter().position(|&c| c == b'\n') {
            let line: Vec<u8> = o.0.drain(..=n).collect();
            if line.starts_with(b"menu: frameRate") {
                o.1 += 1;
            }
        }
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A field of /proc/self/status (a number, in kB for memory).
fn proc_status(key: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(key))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

/// The demo's symbols the checks read.
struct Syms {
    cc_sys: u32,
    tscb_top: u32,
    ticker_lives: u32,
    ticker_freed: u32,
    adjust_page: u32,
    arena: u32,
    arena_size: u32,
}

fn syms(image: &[u8]) -> Result<Syms, String> {
    let all = piney_engine::elfsym::symbols(image).map_err(|e| e.to_string())?;
    let find = |n: &str| {
        all.iter()
            .find(|s| s.name == n)
            .ok_or_else(|| format!("the demo has no symbol {n}"))
    };
    Ok(Syms {
        cc_sys: find("ccSys")?.value,
        tscb_top: find("tscbTop")?.value,
        ticker_lives: find("tickerLives")?.value,
        ticker_freed: find("tickerFreed")?.value,
        adjust_page: find("adjustPage")?.value,
        arena: find("arena")?.value,
        arena_size: find("arena")?.size,
    })
}

/// A word of guest RAM (physical), or why not.
fn rd32(m: &Machine, addr: u32, what: &str) -> Result<u32, String> {
    let a = (addr & 0x1fff_ffff) as usize;
    m.bus
        .ram
        .get(a..a + 4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .ok_or_else(|| format!("{what}: {addr:#010x} is outside RAM"))
}

fn rd16(m: &Machine, addr: u32, what: &str) -> Result<u16, String> {
    let a = (addr & 0x1fff_ffff) as usize;
    m.bus
        .ram
        .get(a..a + 2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .ok_or_else(|| format!("{what}: {addr:#010x} is outside RAM"))
}

fn c_string(m: &Machine, addr: u32) -> Result<String, String> {
    let a = (addr & 0x1fff_ffff) as usize;
    let bytes = m
        .bus
        .ram
        .get(a..(a + 32).min(m.bus.ram.len()))
        .ok_or_else(|| format!("a task name at {addr:#010x} is outside RAM"))?;
    let end = bytes
        .iter()
        .position(|&b| b == 0)
        .ok_or_else(|| format!("the task name at {addr:#010x} has no end within 32 bytes"))?;
    String::from_utf8(bytes[..end].to_vec())
        .map_err(|_| format!("the task name at {addr:#010x} is not text"))
}

/// The demo's tasks.
const RESIDENT: [&str; 5] = [
    "ccPadThread",
    "ccThMother",
    "ccThMenu",
    "ccThScene",
    "ccThLayer",
];

struct Checks(Vec<(&'static str, u64)>);

impl Checks {
    fn check(
        &mut self,
        name: &'static str,
        ok: bool,
        why: impl FnOnce() -> String,
    ) -> Result<(), String> {
        match self.0.iter_mut().find(|(n, _)| *n == name) {
            Some((_, c)) => *c += 1,
            None => self.0.push((name, 1)),
        }
        if ok {
            Ok(())
        } else {
            Err(format!("{name}: {}", why()))
        }
    }
}

/// Runs the soak. `Err` names the invariant that broke, when and how.
pub fn run(opts: &SoakOptions) -> Result<SoakReport, String> {
    let image = std::fs::read(crate::targets::repo().join("demo/demo.elf"))
        .map_err(|e| format!("demo/demo.elf: {e}"))?;
    let s = syms(&image)?;
    let vblanks = (opts.seconds * VBLANK_HZ).round() as u64;
    // A quiet tail of two seconds (the longest rumble the demo asks for is one), so the motors
    // are seen to stop.
    let script_end = vblanks.saturating_sub(120).max(1);
    let text = random_script(opts.seed, script_end);
    let dir = crate::harness::Scratch::new("soak");
    let script_path = dir.file("soak.txt", text.as_bytes());
    let script = piney_input::script::InputScript::load(&script_path).map_err(|e| e.to_string())?;
    // Every button and stick is in the script.
    let mut checks = Checks(Vec::new());
    for b in BUTTONS.iter().chain(&["lx=", "ly=", "rx=", "ry="]) {
        checks.check(
            "the script presses every button and moves every stick",
            text.contains(b),
            || format!("seed {} never gives {b}", opts.seed),
        )?;
    }

    let output = Output::default();
    let mut m = Machine::new(Box::new(output.clone()));
    m.attach_renderer(Box::new(ThreadedRenderer::new(SoftwareRenderer::new())));
    m.bus.iop.set_host_root(dir.folder("host"));
    m.kernel.args = vec!["host:demo".into()];
    let motors = Rc::new(RefCell::new(Motors::default()));
    m.set_pad_input(Box::new(SoakPads {
        script,
        vblank: 0,
        motors: motors.clone(),
    }));
    let audio = Rc::new(RefCell::new(0u64));
    m.set_audio_sink(Box::new(CountAudio(audio.clone())));
    if opts.jit {
        m.use_recompiler()?;
    }
    m.load_elf(&image).map_err(|e| e.to_string())?;
    let profile = piney_engine::Profile::from_elf_symbols(&image).map_err(|e| e.to_string())?;
    let installed = piney_engine::install(&mut m, &profile, &image);
    if !installed.warnings.is_empty() {
        return Err(format!(
            "the demo's hooks: {}",
            installed.warnings.join("; ")
        ));
    }

    let start = Instant::now();
    let mut report = SoakReport::default();
    let sys = s.cc_sys;
    let (mut last_tick, mut last_count) = (None::<u32>, 0u32);
    let mut last_frame_at = 0u64;
    let mut rate_at_last_frame = 1u32;
    let sample_every = ((opts.sample_seconds * VBLANK_HZ) as u64).max(1);
    let warmup = (opts.warmup_seconds * VBLANK_HZ) as u64;
    let mut baseline: Option<(u64, u64)> = None;
    let mut first: Option<(u64, usize, usize)> = None;
    let mut heap_free_idle: Option<u32> = None;
    let mut lives_at_sample = 0u32;
    let mut lives_seen_at = 0u64;
    let mut heap_peak = 0u64;
    let (mut last_page, mut adjust_toggles, mut last_offset, mut offset_moves) =
        (0u32, 0u64, (0i16, 0i16), 0u64);
    let live_threads = |m: &Machine| m.kernel.threads.iter().flatten().count();
    let live_semas = |m: &Machine| m.kernel.semas.iter().flatten().count();
    while m.vblank_count < vblanks {
        if start.elapsed() > opts.wall_limit {
            return Err(format!(
                "the wall-time limit of {:?} passed at vertical blank {} of {vblanks}",
                opts.wall_limit, m.vblank_count
            ));
        }
        let v = m.vblank_count + 1;
        m.run(RunLimits {
            frames: Some(v),
            seconds: None,
        })
        .map_err(|e| format!("vertical blank {v}: {e}"))?;
        if v.is_multiple_of(opts.present_every) {
            let shown = m.frame(Pcrtc::default());
            checks_frame(&mut checks, shown.as_ref(), v)?;
            report.presented += 1;
        }
        // Every vertical blank: the frame controller's counters.
        let tick = rd32(&m, sys + 0x0c, "ccSys.tick")?;
        let count = rd32(&m, sys, "ccSys.count")?;
        let rate = rd32(&m, sys + 0x04, "ccSys.frameRate")?;
        if let Some(t) = last_tick
            && t != 0
        {
            checks.check(
                "ccSys.tick goes up by one a vertical blank",
                tick == t.wrapping_add(1),
                || format!("vertical blank {v}: tick {t} then {tick}"),
            )?;
        }
        last_tick = Some(tick);
        checks.check(
            "ccSys.frameRate is 1 or 2",
            matches!(rate, 1 | 2) || count == 0,
            || format!("vertical blank {v}: frameRate {rate}"),
        )?;
        let d = count.wrapping_sub(last_count);
        checks.check(
            "ccSys.count goes up by 0 or 1 a vertical blank",
            d <= 1,
            || format!("vertical blank {v}: count {last_count} then {count}"),
        )?;
        if d == 1 && last_count > 0 {
            // The rate the frame controller waited for: the one in force over the gap (a switch
            // made during the last frame takes effect from the next wait).
            let want = rate.min(rate_at_last_frame) as u64;
            let gap = v - last_frame_at;
            checks.check("frames are at least frameRate vertical blanks apart", gap >= want, || {
                format!("vertical blank {v}: a frame {gap} vertical blanks after the last at frameRate {rate} (was {rate_at_last_frame})")
            })?;
            if gap > rate.max(rate_at_last_frame) as u64 {
                report.late_frames += 1;
            }
        }
        if d == 1 {
            last_frame_at = v;
            rate_at_last_frame = rate;
        }
        last_count = count;
        let page = rd32(&m, s.adjust_page, "adjustPage")?;
        if page != last_page {
            adjust_toggles += 1;
            last_page = page;
        }
        let ox = rd16(&m, sys + 0x20, "ccSys.offsetX")? as i16;
        let oy = rd16(&m, sys + 0x22, "ccSys.offsetY")? as i16;
        if (ox, oy) != last_offset {
            offset_moves += 1;
            last_offset = (ox, oy);
        }
        checks.check(
            "the display offset stays within Adjust Screen's -48..48, -16..16",
            (-48..=48).contains(&ox) && (-16..=16).contains(&oy),
            || format!("vertical blank {v}: offset ({ox}, {oy})"),
        )?;
        let timeouts = rd32(&m, sys + 0x18, "ccSys.pathTimeouts")?;
        checks.check("ccSys.pathTimeouts stays 0", timeouts == 0, || {
            format!("vertical blank {v}: {timeouts} GS path waits gave up")
        })?;

        if !v.is_multiple_of(sample_every) && v != vblanks {
            continue;
        }
        // Every sample.
        report.samples += 1;
        let lives = rd32(&m, s.ticker_lives, "tickerLives")?;
        let freed = rd32(&m, s.ticker_freed, "tickerFreed")?;
        let tasks = task_list(&m, &s, &mut checks, v)?;
        let tickers = tasks.iter().filter(|n| *n == "ccThTicker").count();
        checks.check(
            "tickerLives - tickerFreed is 0 or 1, and at most one ticker is listed",
            lives.wrapping_sub(freed) <= 1 && tickers <= 1 && tickers as u32 <= lives - freed + 1,
            || format!("vertical blank {v}: {lives} born, {freed} freed, {tickers} listed"),
        )?;
        // A full window since the last look (the end's sample may come sooner).
        if v - lives_seen_at >= (10.0 * VBLANK_HZ) as u64 {
            checks.check("tickers are still born (a life and the wait after it are about 182 frames: 10 s holds one even at 30 fps)", lives > lives_at_sample, || {
                format!("vertical blank {v}: no ticker born since vertical blank {lives_seen_at} ({lives} in all)")
            })?;
            lives_at_sample = lives;
            lives_seen_at = v;
        }
        let free = heap_check(&m, &s, &mut checks, v)?;
        if lives == freed {
            match heap_free_idle {
                None => heap_free_idle = Some(free),
                Some(f) => checks.check(
                    "the demo's heap is as free as before with no ticker alive",
                    free == f,
                    || format!("vertical blank {v}: {free} bytes free, {f} before"),
                )?,
            }
        }
        let (threads, semas) = (live_threads(&m), live_semas(&m));
        let host_threads = proc_status("Threads:");
        match first {
            None => first = Some((host_threads, threads, semas)),
            Some((h, t, sm)) => {
                checks.check("the kernel's threads and semaphores do not grow", threads <= t + 1 && semas <= sm, || {
                    format!("vertical blank {v}: {threads} threads and {semas} semaphores, {t} and {sm} at the first sample")
                })?;
                checks.check("the host's threads stay as they were", host_threads == h, || {
                    format!("vertical blank {v}: {host_threads} host threads, {h} at the first sample")
                })?;
            }
        }
        let cycles = m.cpu.cycles;
        let expect_vb = cycles as f64 * VBLANK_HZ / EE_CLOCK_HZ as f64;
        checks.check(
            "vertical blanks keep to the cycles at 59.94 Hz",
            (expect_vb - v as f64).abs() < 1.5,
            || format!("vertical blank {v} at cycle {cycles} ({expect_vb:.2} expected)"),
        )?;
        m.flush_audio();
        let sound = *audio.borrow();
        let expect_sound = cycles as f64 * 48_000.0 / EE_CLOCK_HZ as f64;
        checks.check(
            "the sound keeps to emulated time (48 kHz)",
            (sound as f64 - expect_sound).abs() <= 1600.0,
            || format!("vertical blank {v}: {sound} sound frames, {expect_sound:.0} expected"),
        )?;
        let rss = proc_status("VmRSS:");
        let heap = crate::guard::live_bytes() as u64;
        heap_peak = heap_peak.max(heap);
        if v >= warmup {
            match baseline {
                None => baseline = Some((rss, heap)),
                Some((r, h)) => {
                    checks.check(
                        "resident memory stays flat",
                        rss <= r + opts.memory_margin / 1024,
                        || {
                            format!(
                                "vertical blank {v}: {rss} KiB resident, {r} KiB after the warm-up"
                            )
                        },
                    )?;
                    checks.check(
                        "the live heap stays flat",
                        heap <= h + opts.memory_margin,
                        || format!("vertical blank {v}: {heap} bytes live, {h} after the warm-up"),
                    )?;
                }
            }
        }
        if opts.verbose {
            eprintln!(
                "soak: {:.0} s emulated, {:.0} s wall: frame {count} (rate {rate}), {} tasks, tickers {lives}/{freed}, heap free {free}, RSS {rss} KiB, live heap {:.1} MiB, {host_threads} host threads",
                v as f64 / VBLANK_HZ,
                start.elapsed().as_secs_f64(),
                tasks.len(),
                heap as f64 / 1048576.0
            );
        }
    }
    // The end: motors stopped after the quiet tail; everything was used.
    let mo = motors.borrow();
    checks.check(
        "the motors are off after the quiet tail",
        !mo.small && mo.large == 0,
        || format!("small {} large {}", mo.small, mo.large),
    )?;
    checks.check(
        "circle and triangle started both motors",
        mo.starts.0 > 0 && mo.starts.1 > 0,
        || format!("motor starts {:?}", mo.starts),
    )?;
    let switches = output.0.borrow().1;
    checks.check("select switched the frame rate", switches > 0, || {
        "no `menu: frameRate` line".into()
    })?;
    checks.check(
        "start opened Adjust Screen and the D-pad moved the picture",
        adjust_toggles > 0 && offset_moves > 0,
        || format!("{adjust_toggles} page toggles, {offset_moves} offset changes"),
    )?;
    report.emulated_seconds = m.cpu.cycles as f64 / EE_CLOCK_HZ as f64;
    report.vblanks = m.vblank_count;
    report.frames = last_count as u64;
    report.wall = start.elapsed();
    let (r0, h0) = baseline.unwrap_or((proc_status("VmRSS:"), crate::guard::live_bytes() as u64));
    report.rss_kib = (r0, proc_status("VmHWM:"), proc_status("VmRSS:"));
    report.heap = (h0, heap_peak, crate::guard::live_bytes() as u64);
    report.threads = (first.map_or(0, |f| f.0), proc_status("Threads:"));
    report.tickers = (
        rd32(&m, s.ticker_lives, "tickerLives")?,
        rd32(&m, s.ticker_freed, "tickerFreed")?,
    );
    report.rumble_starts = mo.starts;
    report.switches = (switches, adjust_toggles);
    report.offset_moves = offset_moves;
    report.audio_frames = *audio.borrow();
    report.checks = checks.0;
    Ok(report)
}

fn checks_frame(
    checks: &mut Checks,
    shown: Option<&piney_machine::Displayed>,
    v: u64,
) -> Result<(), String> {
    let ok = shown.is_some_and(|d| d.image.width == 512 && d.image.height == 448);
    checks.check("the presented picture is the demo's 512 x 448", ok, || {
        format!(
            "vertical blank {v}: {:?}",
            shown.map(|d| (d.image.width, d.image.height))
        )
    })
}

/// The task list's names, checked.
fn task_list(m: &Machine, s: &Syms, checks: &mut Checks, v: u64) -> Result<Vec<String>, String> {
    let mut names = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut at = rd32(m, s.tscb_top, "tscbTop")?;
    while at != 0 {
        checks.check(
            "the task list has no cycle and at most 16 records",
            seen.insert(at) && seen.len() <= 16,
            || {
                format!(
                    "vertical blank {v}: record {at:#010x} again or too many ({})",
                    seen.len()
                )
            },
        )?;
        checks.check(
            "task records are 4-aligned in RAM",
            at % 4 == 0 && ((at & 0x1fff_ffff) as usize) < m.bus.ram.len(),
            || format!("vertical blank {v}: record at {at:#010x}"),
        )?;
        let name = c_string(m, rd32(m, at + 0x38, "ccTscb.name")?)?;
        checks.check(
            "every task is one of the demo's",
            RESIDENT.contains(&name.as_str()) || name == "ccThTicker",
            || format!("vertical blank {v}: a task named {name:?}"),
        )?;
        let tid = rd16(m, at + 0x04, "ccTscb.tid")? as i16;
        let del = m.bus.ram[((at + 0x0b) & 0x1fff_ffff) as usize] as i8;
        let sr = m.bus.ram[((at + 0x0a) & 0x1fff_ffff) as usize] as i8;
        if tid > 0 && del == 0 && sr == 0 {
            checks.check("each live task's thread is known to the kernel", m.kernel.thread(tid as u32).is_some(), || {
                format!("vertical blank {v}: {name} names thread {tid}, which the kernel does not have")
            })?;
        }
        names.push(name);
        at = rd32(m, at + 0x34, "ccTscb.link")?;
    }
    for r in RESIDENT {
        checks.check(
            "the five resident tasks are listed",
            names.iter().any(|n| n == r),
            || format!("vertical blank {v}: {r} is missing from {names:?}"),
        )?;
    }
    Ok(names)
}

/// The demo's heap: its blocks tile the arena; returns the free bytes.
fn heap_check(m: &Machine, s: &Syms, checks: &mut Checks, v: u64) -> Result<u32, String> {
    let (mut at, mut units, mut free, mut n) = (s.arena, 0u32, 0u32, 0);
    let end = s.arena + s.arena_size;
    while at != 0 {
        n += 1;
        let u = rd32(m, at, "a heap block's size")?;
        let used = rd32(m, at + 4, "a heap block's flag")?;
        let next = rd32(m, at + 8, "a heap block's link")?;
        let ok = u > 0
            && used <= 1
            && n <= 4096
            && (next == 0 || next == at + u * 64)
            && at + u * 64 <= end;
        checks.check("the demo's heap blocks follow each other in the arena", ok, || {
            format!("vertical blank {v}: block {n} at {at:#010x}: {u} units, used {used}, next {next:#010x}")
        })?;
        units += u;
        if used == 0 {
            free += (u - 1) * 64;
        }
        at = next;
    }
    checks.check(
        "the demo's heap blocks cover the arena",
        units * 64 == s.arena_size,
        || {
            format!(
                "vertical blank {v}: {units} units of 64 bytes in a {}-byte arena",
                s.arena_size
            )
        },
    )?;
    Ok(free)
}

#[cfg(test)]
mod tests {
    #[test]
    fn scripts_are_seeded_and_parse() {
        let a = super::random_script(5, 20_000);
        assert_eq!(a, super::random_script(5, 20_000));
        assert_ne!(a, super::random_script(6, 20_000));
        let s = piney_input::script::InputScript::parse("soak", &a).expect("the script parses");
        assert!(s.lines().len() > 100);
        assert!(s.lines().iter().all(|l| l.last < 20_000));
    }
}
