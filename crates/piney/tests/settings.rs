//! settings.toml through the binary: written on first run (by `piney settings`; headless runs
//! never write it), read back and used by `run`, `demo` and `replay`, overridden by flags for
//! one run, and a bad file reported on one line naming file, line and key while the run goes
//! on with the defaults for the bad keys. Every test gives piney a config folder of its own
//! (XDG_CONFIG_HOME), never the user's.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// piney with `home` as its config folder's parent (XDG_CONFIG_HOME).
fn piney(home: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_piney"))
        .env("XDG_CONFIG_HOME", home)
        .args(args)
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The `--stats` line of the settings a run used: `key=value` pairs by settings.toml's keys.
fn used(err: &str) -> Vec<(String, String)> {
    let line = err
        .lines()
        .find(|l| l.starts_with("piney: settings ") && l.contains("renderer="))
        .unwrap_or_else(|| panic!("no settings line in:\n{err}"));
    let (_, pairs) = line.split_once("): ").unwrap();
    pairs
        .split(' ')
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap();
            (k.to_string(), v.trim_matches('"').to_string())
        })
        .collect()
}

fn value(err: &str, key: &str) -> String {
    used(err)
        .into_iter()
        .find(|(k, _)| k == key)
        .unwrap_or_else(|| panic!("no {key} in:\n{err}"))
        .1
}

/// A headless demo run of `frames` frames with `--stats` and `extra`; it must succeed.
fn demo_stats(home: &Path, frames: &str, extra: &[&str]) -> String {
    let mut args = vec!["demo", "--headless", "--stats", "--frames", frames];
    args.extend_from_slice(extra);
    let o = piney(home, &args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{args:?}: {err}");
    err
}

#[test]
fn written_on_first_run_with_every_key_documented_then_read() {
    let home = scratch("settings-first-run");
    let file = home.join("piney/settings.toml");
    // A headless run reads the folder but never writes it.
    let err = demo_stats(&home, "1", &[]);
    assert!(!file.exists(), "a headless run wrote {}", file.display());
    assert!(
        err.contains(&format!("{} (not found)", file.display())),
        "{err}"
    );
    // `piney settings` writes it, every key at its default, each with its comment.
    let o = piney(&home, &["settings"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).trim(),
        file.display().to_string()
    );
    assert!(
        stderr(&o).contains("written with every default"),
        "{}",
        stderr(&o)
    );
    let text = std::fs::read_to_string(&file).unwrap();
    assert_eq!(text, piney_settings::default_file());
    for k in piney_settings::KEYS {
        let at = text
            .find(&format!("\n{} = {}\n", k.name, k.default))
            .unwrap_or_else(|| panic!("{} missing:\n{text}", k.name));
        let block = &text[..at];
        let block = &block[block.rfind("\n\n").unwrap()..];
        assert!(block.contains("# Allowed: "), "{}: {block}", k.name);
        assert!(
            block.contains(&format!("Default: {}.", k.default)),
            "{}: {block}",
            k.name
        );
        assert!(block.contains(&format!("Flags: {}", k.flags)), "{block}");
    }
    // Read back: every default, and the file named as read.
    let err = demo_stats(&home, "1", &[]);
    assert!(err.contains(&format!("{} (read)", file.display())), "{err}");
    assert_eq!(value(&err, "render_scale"), "1");
    assert_eq!(value(&err, "volume"), "100");
    // A file that is there is never written over.
    std::fs::write(&file, "volume = 35\n").unwrap();
    let o = piney(&home, &["settings"]);
    assert!(o.status.success());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "volume = 35\n");
    assert_eq!(value(&demo_stats(&home, "1", &[]), "volume"), "35");
}

/// Every key from the file is used, and every key's flag overrides it for one run.
#[test]
fn every_key_is_used_and_every_flag_overrides_it() {
    let home = scratch("settings-every-key");
    let dir = home.join("piney");
    std::fs::create_dir_all(&dir).unwrap();
    let mapping = Path::new(env!("CARGO_MANIFEST_DIR")).join("../piney-input/default-mapping.toml");
    let mapping = mapping.canonicalize().unwrap();
    std::fs::write(
        dir.join("settings.toml"),
        format!(
            "renderer = \"sw\"\nrender_scale = 2\ngs_threads = 3\ndeflicker = true\n\
             fullscreen = true\nwindow_size = \"800x600\"\ndump_format = \"display\"\n\
             screenshot_dir = \"shots\"\nmapping = {:?}\nmemcard1 = \"cards/one\"\n\
             memcard2 = \"cards/two.ps2\"\naudio = false\nvolume = 20\n\
             fast_forward_audio = \"stretch\"\ncpu = \"jit\"\nfast_cdvd = true\n\
             speed = 4\nfps_cap = 30\nvsync = false\n",
            mapping.display().to_string()
        ),
    )
    .unwrap();
    let err = demo_stats(&home, "2", &[]);
    assert!(
        !err.contains("piney: settings") || !err.contains("defaults are used"),
        "{err}"
    );
    let d = |p: &str| dir.join(p).display().to_string();
    let expect = |pairs: &[(&str, String)]| {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        used(&err),
        expect(&[
            ("renderer", "sw".into()),
            ("render_scale", "2".into()),
            ("gs_threads", "3".into()),
            ("deflicker", "true".into()),
            ("fullscreen", "true".into()),
            ("window_size", "800x600".into()),
            ("dump_format", "display".into()),
            ("screenshot_dir", d("shots")),
            ("mapping", mapping.display().to_string()),
            ("memcard1", d("cards/one")),
            ("memcard2", d("cards/two.ps2")),
            ("audio", "false".into()),
            ("volume", "20".into()),
            ("fast_forward_audio", "stretch".into()),
            ("cpu", "jit".into()),
            ("fast_cdvd", "true".into()),
            ("speed", "4".into()),
            ("fps_cap", "30".into()),
            ("vsync", "false".into()),
        ])
    );
    assert!(
        err.contains("renderer sw on 3 thread(s)") && err.contains("piney: recompiler:"),
        "the renderer's threads and the CPU engine come from the file: {err}"
    );
    let other = home.join("other");
    let other_s = other.display().to_string();
    let err = demo_stats(
        &home,
        "2",
        &[
            "--renderer",
            "sw",
            "--render-scale",
            "1",
            "--gs-threads",
            "2",
            "--no-deflicker",
            "--windowed",
            "--window-size",
            "640x480",
            "--dump-format",
            "presented",
            "--screenshot-dir",
            &other_s,
            "--mapping",
            mapping.to_str().unwrap(),
            "--memcard1",
            &format!("{other_s}/a"),
            "--memcard2",
            &format!("{other_s}/b"),
            "--audio",
            "--volume",
            "7",
            "--fast-forward-audio",
            "mute",
            "--cpu",
            "interp",
            "--no-fast-cdvd",
            "--speed",
            "2",
            "--fps-cap",
            "0",
            "--vsync",
        ],
    );
    assert_eq!(
        used(&err),
        expect(&[
            ("renderer", "sw".into()),
            ("render_scale", "1".into()),
            ("gs_threads", "2".into()),
            ("deflicker", "false".into()),
            ("fullscreen", "false".into()),
            ("window_size", "640x480".into()),
            ("dump_format", "presented".into()),
            ("screenshot_dir", other_s.clone()),
            ("mapping", mapping.display().to_string()),
            ("memcard1", format!("{other_s}/a")),
            ("memcard2", format!("{other_s}/b")),
            ("audio", "true".into()),
            ("volume", "7".into()),
            ("fast_forward_audio", "mute".into()),
            ("cpu", "interp".into()),
            ("fast_cdvd", "false".into()),
            ("speed", "2".into()),
            ("fps_cap", "0".into()),
            ("vsync", "true".into()),
        ])
    );
    assert!(
        err.contains("renderer sw on 2 thread(s)") && !err.contains("piney: recompiler:"),
        "{err}"
    );
    // The other halves of the flag pairs, over the defaults.
    std::fs::write(dir.join("settings.toml"), "").unwrap();
    let err = demo_stats(
        &home,
        "1",
        &["--fullscreen", "--no-audio", "--fast-cdvd", "--no-vsync"],
    );
    assert_eq!(value(&err, "vsync"), "false");
    assert_eq!(value(&err, "fullscreen"), "true");
    assert_eq!(value(&err, "audio"), "false");
    assert_eq!(value(&err, "fast_cdvd"), "true");
    // The last of a pair wins.
    let err = demo_stats(&home, "1", &["--deflicker", "--no-deflicker"]);
    assert_eq!(value(&err, "deflicker"), "false");
}

/// Frame 20 of the demo (PNG bytes and size, the display circuits' pixels) with `extra`
/// options.
fn frame20(home: &Path, out: &Path, extra: &[&str]) -> (Vec<u8>, (u32, u32)) {
    let mut args = vec![
        "demo",
        "--headless",
        "--frames",
        "21",
        // The display circuits' pixels: exactly N times the size at scale N (the presented
        // picture is the 4:3 width of its rows, rounded).
        "--dump-format",
        "display",
        "--dump-frames",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let o = piney(home, &args);
    assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
    let path = out.join("000020.png");
    let img = piney_gs::Image::read_png(&path).unwrap();
    (std::fs::read(&path).unwrap(), (img.width, img.height))
}

/// The values are used: `render_scale = 2` doubles `--dump-frames`' frames (from the config
/// folder and from `--config`), `--render-scale 1` brings them back; `deflicker = true` is
/// `--deflicker`'s picture and `--no-deflicker` the plain one.
#[test]
fn settings_change_the_frames_and_flags_override_them() {
    let home = scratch("settings-frames");
    let (plain, size) = frame20(&home, &home.join("plain"), &[]);
    let dir = home.join("piney");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("settings.toml"), "render_scale = 2\n").unwrap();
    let (_, big) = frame20(&home, &home.join("big"), &[]);
    assert_eq!(
        big,
        (size.0 * 2, size.1 * 2),
        "render_scale = 2 from the folder"
    );
    let (one, one_size) = frame20(&home, &home.join("one"), &["--render-scale", "1"]);
    assert_eq!(
        (one_size, &one),
        (size, &plain),
        "--render-scale 1 overrides it"
    );
    // --config names another file; the folder's is not read then.
    let other = home.join("other.toml");
    std::fs::write(&other, "deflicker = true\n").unwrap();
    let cfg = other.to_str().unwrap();
    let (merged, msize) = frame20(&home, &home.join("merged"), &["--config", cfg]);
    assert_eq!(
        msize, size,
        "the folder's render_scale is not read with --config"
    );
    let (flag, _) = frame20(
        &home,
        &home.join("flag"),
        &["--config", "/nonexistent/x.toml", "--deflicker"],
    );
    assert_eq!(merged, flag, "deflicker = true is --deflicker");
    assert_ne!(merged, plain);
    let (off, _) = frame20(
        &home,
        &home.join("off"),
        &["--config", cfg, "--no-deflicker"],
    );
    assert_eq!(off, plain, "--no-deflicker overrides deflicker = true");
}

/// `piney replay` takes the renderer keys from the file: a dump of the demo replayed with
/// `render_scale = 2` gives frames twice the size, `--render-scale 1` the native ones.
#[test]
fn replay_reads_the_renderer_keys() {
    let home = scratch("settings-replay");
    let dump = home.join("demo.gs");
    let o = piney(
        &home,
        &[
            "demo",
            "--headless",
            "--frames",
            "12",
            "--dump-gs",
            dump.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let cfg = home.join("s.toml");
    std::fs::write(&cfg, "render_scale = 2\ncpu = \"jit\"\n").unwrap();
    let size = |extra: &[&str]| {
        let out = home.join(format!("frames{}", extra.len()));
        let _ = std::fs::remove_dir_all(&out);
        let mut args = vec![
            "replay",
            dump.to_str().unwrap(),
            "--headless",
            "--config",
            cfg.to_str().unwrap(),
            "--dump-format",
            "display",
            "--dump-frames",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let o = piney(&home, &args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        let mut frames: Vec<_> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        frames.sort();
        let img = piney_gs::Image::read_png(frames.last().unwrap()).unwrap();
        (img.width, img.height)
    };
    let (w2, h2) = size(&[]);
    let (w1, h1) = size(&["--render-scale", "1"]);
    assert_eq!((w2, h2), (w1 * 2, h1 * 2));
}

/// A bad file: one line on stderr naming the file and each bad line and key, the good keys
/// used, the bad ones at their defaults, and the run succeeds as without the file.
#[test]
fn a_bad_file_is_one_line_and_the_defaults_are_used() {
    let home = scratch("settings-bad");
    let cfg = home.join("bad.toml");
    std::fs::write(
        &cfg,
        "volume = 50\nrender_scale = 9\ncolour = \"blue\"\ndeflicker = = true\ncpu = 1\n\
         gs_threads = 2\n",
    )
    .unwrap();
    let err = demo_stats(&home, "2", &["--config", cfg.to_str().unwrap()]);
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("bad.toml") && !l.contains("renderer="))
        .collect();
    assert_eq!(lines.len(), 1, "{err}");
    let line = lines[0];
    assert!(
        line.starts_with(&format!("piney: settings {}: ", cfg.display())),
        "{line}"
    );
    for part in [
        "line 2, key render_scale: 9 is out of range (1 to 8)",
        "line 3, key colour: not a setting",
        "line 4, key deflicker: TOML syntax",
        "line 5, key cpu: is a whole number, not one of interp, jit",
        "the defaults are used",
    ] {
        assert!(line.contains(part), "{part:?} not in {line}");
    }
    assert!(
        !line.contains("line 1") && !line.contains("line 6"),
        "{line}"
    );
    assert_eq!(value(&err, "volume"), "50");
    assert_eq!(value(&err, "gs_threads"), "2");
    assert_eq!(value(&err, "render_scale"), "1");
    assert_eq!(value(&err, "deflicker"), "false");
    assert_eq!(value(&err, "cpu"), "jit");
    // Not TOML at all, and not UTF-8: still one line, and the run goes on.
    for (name, bytes) in [
        ("junk.toml", &b"[[[\n"[..]),
        ("binary.toml", &b"\xff\xfe\x00volume = 3\n"[..]),
    ] {
        let f = home.join(name);
        std::fs::write(&f, bytes).unwrap();
        let err = demo_stats(&home, "1", &["--config", f.to_str().unwrap()]);
        let n = err
            .lines()
            .filter(|l| l.contains("the defaults are used"))
            .count();
        assert_eq!(n, 1, "{err}");
        assert!(
            err.contains(&format!("piney: settings {}: line 1", f.display())),
            "{err}"
        );
    }
    // The exit code of a failing run is its own, settings or not.
    let o = piney(
        &home,
        &[
            "run",
            "/nonexistent/x.elf",
            "--headless",
            "--config",
            cfg.to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
}

/// `--config` naming a file that is not there: a headless run says so on one line, uses the
/// defaults and writes nothing; `piney settings --config FILE` writes it.
#[test]
fn a_missing_config_file_is_written_only_by_the_settings_command() {
    let home = scratch("settings-missing");
    let f = home.join("sub/mine.toml");
    let err = demo_stats(&home, "1", &["--config", f.to_str().unwrap()]);
    assert!(err.contains("no such file; the defaults are used"), "{err}");
    assert!(!f.exists());
    let o = piney(&home, &["settings", "--config", f.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).trim(),
        f.display().to_string()
    );
    assert_eq!(
        std::fs::read_to_string(&f).unwrap(),
        piney_settings::default_file()
    );
    assert!(
        !home.join("piney").exists(),
        "the config folder is left alone"
    );
}

/// README's table has a row for every key: its default and every flag that overrides it, each
/// of which `piney run --help` lists.
#[test]
fn the_readme_documents_every_key() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"))
            .unwrap();
    let o = piney(Path::new("/nonexistent"), &["run", "--help"]);
    let help = String::from_utf8_lossy(&o.stdout).into_owned();
    let rows: Vec<&str> = readme.lines().filter(|l| l.starts_with("| `")).collect();
    for k in piney_settings::KEYS {
        let row = rows
            .iter()
            .find(|r| r.starts_with(&format!("| `{}` |", k.name)))
            .unwrap_or_else(|| panic!("README has no row for {}", k.name));
        assert!(row.contains(&format!("`{}`", k.default)), "{row}");
        for flag in k.flags.split(", ") {
            assert!(row.contains(&format!("`{flag}`")), "{flag} not in {row}");
            assert!(
                help.contains(&format!("{flag} ")) || help.contains(&format!("{flag}\n")),
                "{flag} not in --help"
            );
        }
    }
    assert!(help.contains("--config <FILE>"), "{help}");
}
