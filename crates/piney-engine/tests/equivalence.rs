//! The proof that the native parts are faithful (issue 6, "Equivalence"): the demo title played
//! from the same input script with its hooks installed and with none (`--no-hle`) presents the
//! same frames and leaves the same guest-visible state.

use std::path::Path;

use piney_engine::elfsym::symbols;
use piney_engine::{Profile, fnv1a64, install};
use piney_gs::Pcrtc;
use piney_input::script::InputScript;
use piney_machine::sif::padman::ScriptPads;
use piney_machine::{Machine, RunEnd, RunLimits};

/// Buttons, the left stick (a full turn through its eighths), circle and triangle rumble, the
/// select 60/30 switch (twice, so both frame rates run), held long enough to repeat.
const SCRIPT: &str = "\
30-34 circle
40-41 triangle
50-52 select
60-90 lx=255 ly=128
66-72 lx=220 ly=30
73-78 lx=128 ly=0
79-84 lx=30 ly=30
85-90 lx=0 ly=200
95-97 circle
100-125 cross+left
112-114 triangle rx=0 ry=255
130-133 select
135-140 up+right
";

/// Frames run; the picture is compared every `STRIDE`th.
const FRAMES: u64 = 150;
const STRIDE: u64 = 10;

struct Run {
    /// Per compared frame: its number, the picture's hash, and the two pads' records then.
    frames: Vec<(u64, u64, Vec<u8>)>,
    /// The pictures themselves, to write out when they differ.
    images: Vec<piney_gs::Image>,
    state: Vec<(String, Vec<u8>)>,
    stdout: Vec<u8>,
    hook_calls: Vec<(String, u64)>,
}

struct Sink(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);
impl std::io::Write for Sink {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The frame buffer rows of the demo's "PLAY hh:mm:ss  WORK n HBLANKS  HEAP nK" line
/// (main.c: ccDraw_Printf at y 44, 7-row font drawn twice as high).
const WORK_LINE: std::ops::Range<usize> = 44..58;

/// Blank the line that shows how long the frame's work took (`ccSys.workT0`, EE Timer 0 in
/// H-blanks). That is the one thing the hooked run must not match: a native function takes less
/// emulated time than the guest code it replaces (one cycle a call), so the work ends earlier
/// and the count is lower. The play time on the same line is compared through `ccSys`.
fn mask_work_time(img: &mut piney_gs::Image) {
    assert_eq!(
        (img.width, img.height),
        (512, 448),
        "the demo's frame buffer"
    );
    let row = img.width as usize * 4;
    img.rgba[WORK_LINE.start * row..WORK_LINE.end * row].fill(0);
}

fn read(m: &mut Machine, at: u32, n: usize) -> Vec<u8> {
    let mut b = vec![0; n];
    m.bus.read_bytes(at, &mut b).unwrap();
    b
}

fn play(image: &[u8], hle: bool) -> Run {
    let out = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let mut m = Machine::new(Box::new(Sink(out.clone())));
    m.attach_renderer(Box::new(piney_gs::SoftwareRenderer::new()));
    let script = InputScript::parse("equivalence.txt", SCRIPT).unwrap();
    m.set_pad_input(Box::new(ScriptPads::new(script)));
    m.load_elf(image).unwrap();
    let profile = Profile::from_elf_symbols(image).unwrap();
    if hle {
        let installed = install(&mut m, &profile, image);
        assert!(installed.warnings.is_empty(), "{:?}", installed.warnings);
        let names: Vec<&str> = installed.hooks.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names.len(),
            piney_engine::NATIVES.len(),
            "every native function is installed: {names:?}"
        );
    }
    let mut frames = Vec::new();
    let mut images = Vec::new();
    for f in (STRIDE..=FRAMES).step_by(STRIDE as usize) {
        let end = m
            .run(RunLimits {
                frames: Some(f),
                seconds: None,
            })
            .unwrap();
        assert_eq!(end, RunEnd::FrameLimit);
        let mut img = m.frame(Pcrtc { deflicker: false }).expect("a GS").image;
        mask_work_time(&mut img);
        let hash = fnv1a64(&img.rgba) ^ ((img.width as u64) << 32 | img.height as u64);
        let pads = read(&mut m, profile.address("ccPads").unwrap(), 0xc0);
        frames.push((f, hash, pads));
        images.push(img);
    }
    // Every global of the demo except the stacks and the heap arena (stack frames below the
    // stack pointer differ where a native function ran instead of the guest's code), then the
    // task list (ccTscb records, 0x54 bytes, from tscbTop along +0x34), which lives in the arena.
    let mut state = Vec::new();
    for s in symbols(image).unwrap() {
        // pk: the frame's draw packets, which spell out the work time; what they draw is
        // compared as pictures above.
        if s.function || s.size == 0 || ["ctrlStack", "arena", "pk"].contains(&s.name.as_str()) {
            continue;
        }
        let mut bytes = read(&mut m, s.value, s.size as usize);
        if s.name == "ccSys" {
            // workT0: Timer 0 (H-blanks) at the end of the frame's work (see mask_work_time).
            bytes[0x34..0x38].fill(0);
        }
        state.push((s.name, bytes));
    }
    let top = profile.address("tscbTop").unwrap();
    let mut t = u32::from_le_bytes(read(&mut m, top, 4).try_into().unwrap());
    let mut n = 0;
    while t != 0 {
        let mut rec = read(&mut m, t, 0x54);
        // t0count: Timer 0 (H-blanks) when the task last entered Breath, a measure of emulated
        // time like workT0 (see mask_work_time).
        rec[0x50..0x52].fill(0);
        let next = u32::from_le_bytes(rec[0x34..0x38].try_into().unwrap());
        state.push((format!("task {n} at {t:#010x}"), rec));
        t = next;
        n += 1;
        assert!(n < 100, "the task list does not end");
    }
    assert!(n >= 5, "only {n} tasks");
    state.push(("vblanks".into(), m.vblank_count.to_le_bytes().to_vec()));
    let hook_calls = m
        .hooks
        .iter()
        .map(|(_, h)| (h.name.clone(), h.calls))
        .collect();
    let stdout = out.lock().unwrap().clone();
    Run {
        frames,
        images,
        state,
        stdout,
        hook_calls,
    }
}

#[test]
fn hooked_and_emulated_demo_runs_agree() {
    let image =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../demo/demo.elf")).unwrap();
    let native = play(&image, true);
    let emulated = play(&image, false);
    // The hooks did run: each native function's entry (the resume points' hooks are named
    // "name (point)"). The reader, the countdown, the frame controller, the VSync handler, the
    // walk and Breath each frame; SetActuater for each of the four rumble presses; ccThControl's
    // thread starts once and then lives in its resume points; GoThread once per task started.
    for (name, calls) in native.hook_calls.iter().filter(|(n, _)| !n.contains(" (")) {
        let least = match name.as_str() {
            "ccPad_SetActuater" => 4,
            "ccThControl" => 1,
            "ccTscb_GoThread" => 5,
            _ => 50,
        };
        assert!(*calls >= least, "hook {name} ran {calls} times");
    }
    let resumed: u64 = native
        .hook_calls
        .iter()
        .filter(|(n, _)| n.starts_with("ccThControl ("))
        .map(|(_, c)| c)
        .sum();
    assert!(resumed >= FRAMES, "ccThControl resumed {resumed} times");
    for (i, ((f, a, pa), (_, b, pb))) in native.frames.iter().zip(&emulated.frames).enumerate() {
        assert_eq!(pa, pb, "the ccPad records differ at frame {f}");
        if a != b {
            let dir = std::env::temp_dir();
            let (na, nb) = (
                dir.join(format!("piney-equivalence-{f}-hle.png")),
                dir.join(format!("piney-equivalence-{f}-no-hle.png")),
            );
            native.images[i].write_png(&na).unwrap();
            emulated.images[i].write_png(&nb).unwrap();
            panic!("frame {f} differs: {} and {}", na.display(), nb.display());
        }
    }
    assert_eq!(native.state.len(), emulated.state.len());
    for ((name, a), (_, b)) in native.state.iter().zip(&emulated.state) {
        assert_eq!(a, b, "{name} differs");
    }
    assert_eq!(
        String::from_utf8_lossy(&native.stdout),
        String::from_utf8_lossy(&emulated.stdout)
    );
    // The script did reach the game: both frame rates ran, and the motors were driven.
    let out = String::from_utf8_lossy(&native.stdout);
    assert!(out.contains("scePadSetActDirect small 1"), "{out}");
}
