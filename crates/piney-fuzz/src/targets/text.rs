//! Targets on piney's text files: input scripts (`--input`), pad traces (`piney pad-trace`),
//! game profiles (`--profile`, installed on the demo and run), pad mappings (`--mapping`) and
//! settings files (settings.toml, `--config`).
//! Each is written to a file and read through the loader piney calls, so the size and
//! encoding checks are in the path.

use piney_gs::SoftwareRenderer;
use piney_input::HostButton;
use piney_machine::{Machine, RunLimits};

use crate::harness::{Seed, Target};
use crate::mutate::Format;
use crate::targets::{file, files};

/// Input script tokens: line ends of every kind, comment marks, numbers at the edges of their
/// types, a byte-order mark, a NUL, a terminal escape, and the script's own words.
const SCRIPT_TOKENS: &[&str] = &[
    "\n",
    "\r",
    "\r\n",
    "\t",
    " ",
    "#",
    "\"",
    "0",
    "-1",
    "0x",
    "255",
    "256",
    "65535",
    "4294967296",
    "9223372036854775807",
    "18446744073709551615",
    "99999999999999999999999",
    "\u{feff}",
    "\u{0}",
    "\u{1b}[2J",
    "\u{2028}",
    "é",
    "-",
    "+",
    "p1:",
    "p2:",
    "p3:",
    "lx=",
    "ly=",
    "rx=",
    "ry=",
    "none",
    "start",
    "select",
    "cross",
    "circle",
    "up",
    "l3",
    "1-2",
    "20-1",
    "1-2-3",
    "0-0",
    "=",
    "x=1",
];

/// Input scripts, as `--input FILE`: loaded, then every port's report asked for the frames
/// around each line's range and at the ends of the counter.
pub const INPUT_SCRIPT: Target = Target {
    name: "input_script",
    about: "an input script read as --input reads it, and the pads' reports at the vertical blanks its lines name",
    format: Format {
        header: &[],
        dictionary: SCRIPT_TOKENS,
        focus: 0,
        max_len: 64 << 10,
        fixup: None,
    },
    seeds: || {
        let mut v = files("crates/piney/tests/input", &[".txt"]);
        v.extend(files("tests/guest", &[".input"]));
        v.extend(files("crates/piney-fuzz/corpus/input", &[".txt"]));
        v
    },
    run: |data, scratch| {
        let path = scratch.file("case.txt", data);
        let script =
            piney_input::script::InputScript::load(&path).map_err(|e| format!("--input {e}"))?;
        let mut frames: Vec<u64> = vec![0, 1, 2, u64::MAX];
        for l in script.lines().iter().take(64) {
            frames.extend([
                l.first.saturating_sub(1),
                l.first,
                l.last,
                l.last.saturating_add(1),
            ]);
        }
        for f in frames {
            for port in 0..3 {
                let _ = script.report(port, f);
            }
        }
        Ok(())
    },
    ci_cases: 2000,
};

/// Pad traces, as `piney pad-trace FILE`.
pub const PAD_TRACE: Target = Target {
    name: "pad_trace",
    about: "a pad-trace script run through the pad reader and the motor queue",
    format: Format {
        header: &[],
        dictionary: &[
            "pad ",
            "pad 0 0",
            "pad ff ff 80 80 80 80",
            "vibration on",
            "vibration off",
            "set ",
            "set 1 255 1000",
            "set 0 0 4294967295",
            "tick ",
            "tick 0",
            "tick 65535",
            "ctrl",
            "0x",
            "ff",
            "fff",
            "#",
            "\n",
            "\r",
            "\r\n",
            " ",
            "\u{0}",
            "\u{1b}",
            "é",
            "65536",
            "4294967296",
        ],
        focus: 0,
        max_len: 64 << 10,
        fixup: None,
    },
    seeds: || files("crates/piney-input/tests/traces", &[".trace"]),
    run: |data, _| {
        let mut out = Vec::new();
        piney_input::trace::run_trace(data, &mut out).map_err(|e| format!("pad-trace: case: {e}"))
    },
    ci_cases: 20000,
};

const PROFILE_TOKENS: &[&str] = &[
    "\n",
    "\r",
    "\\r",
    "\\n",
    "\\u000d",
    "\\u001b",
    "\\U0010ffff",
    "\\",
    "\"",
    "'",
    "'''",
    "\"\"\"",
    "[",
    "]",
    "[[",
    "{",
    "}",
    ",",
    "=",
    "#",
    ".",
    "[symbols.\"",
    "[symbols.\"a\\rb\"]",
    "address = ",
    "address = 0x1014a4",
    "words = [",
    "note = \"",
    "hooks = [\"",
    "hooks = [\"a\\nb\"]",
    "serial = \"",
    "symbols_from_elf = true",
    "symbols_from_elf = false",
    "elf_fnv1a64 = \"",
    "unknown = 1",
    "ccSys",
    "ccPad::Read",
    "ccSystem::Ctrl",
    "tscbTop",
    "0x",
    "0xffffffff",
    "0x100000000",
    "-1",
    "99999999999999999999",
    "inf",
    "nan",
    "1e999",
    "true",
    "\u{feff}",
    "é",
];

/// The demo's ELF, which profile cases are installed on.
fn demo() -> &'static [u8] {
    static DEMO: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    DEMO.get_or_init(|| file("demo/demo.elf").bytes)
}

/// Emulated time a profile case runs the demo with its hooks: 5 vertical blanks (the frame
/// controller and the scheduler step every one).
pub const PROFILE_FRAMES: u64 = 5;

/// Game profiles, as `piney run demo.elf --profile FILE --frames 5 --headless`: parsed,
/// resolved against the demo, installed, and the demo run with those hooks.
pub const PROFILE: Target = Target {
    name: "profile",
    about: "a game profile read as --profile reads it, resolved against the demo, its hooks installed and the demo run for 5 vertical blanks",
    format: Format {
        header: &[],
        dictionary: PROFILE_TOKENS,
        focus: 0,
        max_len: 64 << 10,
        fixup: None,
    },
    seeds: || {
        let mut v = files("profiles", &[".toml"]);
        v.extend(files("crates/piney-fuzz/corpus/profile", &[".toml"]));
        v
    },
    run: |data, scratch| {
        let path = scratch.file("case.toml", data);
        let profile = piney_engine::Profile::load(&path).map_err(|e| format!("--profile {e}"))?;
        let image = demo();
        let source = profile.source.clone();
        let profile = match profile.resolve(image) {
            Ok(p) => p,
            // piney warns and runs without hooks: the warning must be one line too.
            Err(e) => return Err(format!("warning: {source}: no hooks: {e}")),
        };
        let mut m = Machine::new(Box::new(std::io::sink()));
        m.attach_renderer(Box::new(SoftwareRenderer::new()));
        m.bus.iop.set_host_root(scratch.folder("host"));
        m.load_elf(image).map_err(|e| format!("demo: {e}"))?;
        for w in piney_engine::install(&mut m, &profile, image).warnings {
            if let Some(fault) = crate::harness::error_line_fault(&w) {
                return Err(format!("warning: {fault}: {w:?}"));
            }
        }
        m.run(RunLimits {
            frames: Some(PROFILE_FRAMES),
            seconds: None,
        })
        .map(|_| ())
        .map_err(|e| e.to_string())
    },
    ci_cases: 100,
};

/// Pad mappings, as `--mapping FILE`: read, then asked for every gamepad button and key.
pub const MAPPING: Target = Target {
    name: "mapping",
    about: "a pad mapping read as --mapping reads it, then every key and gamepad button looked up",
    format: Format {
        header: &[],
        dictionary: &[
            "\n",
            "\r",
            "\\r",
            "\\n",
            "\\u000a",
            "\\u001b",
            "\"",
            "'",
            "'''",
            "=",
            "[",
            "]",
            "[keyboard]",
            "[gamepad]",
            "[mouse]",
            "KeyZ",
            "ArrowUp",
            "Enter",
            "south",
            "left_trigger",
            "= \"cross\"",
            "= \"none\"",
            "= \"cross+circle\"",
            "= 1",
            "\"a\\rb\" = \"cross\"",
            "#",
            "\u{feff}",
            "é",
            "\u{0}",
        ],
        focus: 0,
        max_len: 64 << 10,
        fixup: None,
    },
    seeds: || {
        let mut v = vec![file("crates/piney-input/default-mapping.toml")];
        v.extend(files("crates/piney-fuzz/corpus/mapping", &[".toml"]));
        v
    },
    run: |data, scratch| {
        let path = scratch.file("case.toml", data);
        let m = piney_input::Mapping::load(&path).map_err(|e| format!("--mapping {e}"))?;
        let mut pressed = [false; HostButton::COUNT];
        for i in 0..HostButton::COUNT {
            pressed[i] = true;
            let _ = m.gamepad.buttons(&pressed);
        }
        for (key, _) in m.keyboard.entries() {
            let _ = m.keyboard.get(key);
        }
        Ok(())
    },
    ci_cases: 2000,
};

/// Settings files, as `piney run`, `demo` and `replay` read settings.toml: read from a file,
/// each problem one line naming its line, every value in its range whatever the file holds, and
/// the same bytes read twice the same.
pub const SETTINGS: Target = Target {
    name: "settings",
    about: "a settings.toml read as run, demo and replay read it: the values in range, the report one line",
    format: Format {
        header: &[],
        dictionary: &[
            "\n",
            "\r",
            "\r\n",
            "\\n",
            "\\u001b",
            "\"",
            "'",
            "\"\"\"",
            "=",
            " = ",
            "[",
            "]",
            "[video]",
            "[[x]]",
            "{",
            "}",
            "#",
            "renderer",
            "render_scale",
            "gs_threads",
            "deflicker",
            "fullscreen",
            "window_size",
            "dump_format",
            "screenshot_dir",
            "mapping",
            "memcard1",
            "memcard2",
            "audio",
            "volume",
            "fast_forward_audio",
            "cpu",
            "fast_cdvd",
            "\"sw\"",
            "\"wgpu\"",
            "\"jit\"",
            "\"16384x16384\"",
            "\"0x0\"",
            "true",
            "false",
            "0",
            "-1",
            "8",
            "9",
            "64",
            "65",
            "100",
            "101",
            "255",
            "256",
            "4294967297",
            "9223372036854775807",
            "99999999999999999999",
            "1.5",
            "nan",
            "inf",
            "0x10",
            "1979-05-27",
            "\u{feff}",
            "\u{0}",
            "\u{2028}",
            "é",
        ],
        focus: 0,
        max_len: 64 << 10,
        fixup: None,
    },
    seeds: || files("crates/piney-fuzz/corpus/settings", &[".toml"]),
    run: |data, scratch| {
        let path = scratch.file("settings.toml", data);
        let (s, problems, _) = piney_settings::read(&path);
        let lines = data.iter().filter(|&&b| b == b'\n').count() + 1;
        for p in &problems {
            assert!(
                (1..=lines).contains(&p.line),
                "a problem on line {} of {lines}: {p:?}",
                p.line
            );
        }
        assert!((1..=8).contains(&s.render_scale), "{s:?}");
        assert!(s.volume <= 100, "{s:?}");
        assert!(s.gs_threads.is_none_or(|n| (1..=64).contains(&n)), "{s:?}");
        let (w, h) = s.window_size;
        assert!(
            (1..=16384).contains(&w) && (1..=16384).contains(&h),
            "{s:?}"
        );
        let (again, problems_again) = piney_settings::parse(data);
        assert_eq!(problems, problems_again, "the same bytes read twice");
        assert_eq!(
            (again.render_scale, again.volume, again.cpu),
            (s.render_scale, s.volume, s.cpu)
        );
        match piney_settings::report(&path, &problems) {
            // What piney prints, checked by the harness as an error line.
            Some(line) => Err(line.trim_start_matches("piney: ").to_string()),
            None => Ok(()),
        }
    },
    ci_cases: 3000,
};

/// The seeds of the text targets, for the corpus test.
pub fn all_seeds() -> Vec<Seed> {
    let mut v = (INPUT_SCRIPT.seeds)();
    v.extend((PAD_TRACE.seeds)());
    v.extend((PROFILE.seeds)());
    v.extend((MAPPING.seeds)());
    v.extend((SETTINGS.seeds)());
    v
}
