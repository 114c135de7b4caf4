//! The display path's own presented-frame jitter (a benchmark, not a test): the window's code,
//! pacing and presenter exactly as `piney demo` runs them, around an emulator that does no
//! work (a 512 x 448 picture, its bar moving one row a picture, every vblank or every second
//! one). What the demo's jitter has above this is piney's (the emulation competing with the
//! presents); the rest is the window system's: under Xvfb with lavapipe, each present copies
//! the whole window's pixels to the X server through its socket, and that copy's time varies
//! with how the host schedules the server.
//!
//! `cargo run --release -p piney-frontend --example jitter_floor -- [60|30] [SECONDS]`
//! (a display needed: `tools/bench-jitter.sh` runs it under Xvfb beside the demo).

use piney_frontend::{Emulator, Frame, WindowOptions, run_window};
use piney_input::{PadReport, Port};

/// A picture every `every` vblanks, for `vblanks` vblanks.
struct Idle {
    every: u64,
    vblank: u64,
    vblanks: u64,
}

impl Emulator for Idle {
    fn run_vblank(&mut self) -> Result<Option<Frame>, String> {
        self.vblank += 1;
        if !self.vblank.is_multiple_of(self.every) {
            return Ok(None);
        }
        let (w, h) = (512u32, 448u32);
        let bar = (self.vblank / self.every % u64::from(h)) as u32;
        let pixels = (0..w * h)
            .flat_map(|i| {
                let (x, y) = (i % w, i / w);
                if y == bar {
                    [255, 255, 255, 255]
                } else {
                    [(x / 2) as u8, (y / 2) as u8, 96, 255]
                }
            })
            .collect();
        Frame::new(w, h, pixels)
            .map(Some)
            .map_err(|e| e.to_string())
    }

    fn set_pad(&mut self, _port: Port, _report: Option<PadReport>) {}

    fn finished(&self) -> bool {
        self.vblank >= self.vblanks
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize, default: u64| match args.get(i) {
        None => default,
        Some(s) => s.parse().unwrap_or_else(|_| {
            eprintln!("jitter_floor: '{s}' is not a whole number (usage: [60|30] [SECONDS])");
            std::process::exit(2);
        }),
    };
    let every = match number(0, 60) {
        60 => 1,
        30 => 2,
        other => {
            eprintln!("jitter_floor: the rate is 60 or 30, not {other}");
            std::process::exit(2);
        }
    };
    let mut idle = Idle {
        every,
        vblank: 0,
        vblanks: number(1, 60) * 60,
    };
    // As `piney demo --no-audio` opens its window: the default size, no sound, no pads.
    let opts = WindowOptions {
        title: "piney: jitter floor".into(),
        gamepads: None,
        audio: None,
        ..WindowOptions::default()
    };
    match run_window(&mut idle, opts) {
        Ok(stats) => {
            println!("piney: {}", stats.jitter.line());
            println!(
                "piney: {}",
                stats.call_jitter.named_line("present-call jitter")
            );
        }
        Err(e) => {
            eprintln!("jitter_floor: {e}");
            std::process::exit(1);
        }
    }
}
