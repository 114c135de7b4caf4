//! The player's settings: `settings.toml` in the user's config folder (or the file `--config`
//! names), holding every option of `piney run` and `piney demo` that a player keeps from one
//! run to the next. Command-line flags override it for one run.
//!
//! - [`config_folder`]: where the file lives (`$XDG_CONFIG_HOME/piney` when that variable is
//!   set, on every platform, so that tests and scripts can point it elsewhere; else
//!   `~/.config/piney` on Linux and the BSDs, `~/Library/Application Support/piney` on macOS,
//!   `%APPDATA%\piney` on Windows).
//! - [`parse`]: the file's text to [`Settings`] and the [`Problem`]s found. A bad file (a TOML
//!   syntax error, an unknown key, a value of the wrong type or out of range, text that is not
//!   UTF-8) is never fatal: each problem names its line and key, and the keys it names keep
//!   their defaults while every good key is used.
//! - [`default_file`]: the file as written on first run, every key at its default with a
//!   comment giving its meaning, its default and its allowed values (the [`KEYS`] table).

use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::de::{DeTable, DeValue, ValueDeserializer};

/// The largest settings file read (a settings file is a few kilobytes).
pub const MAX_BYTES: usize = 1 << 20;

/// The file's name inside [`config_folder`].
pub const FILE_NAME: &str = "settings.toml";

/// `renderer`: the GS renderer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Renderer {
    /// `wgpu` in a window with a hardware GPU, else `sw`.
    Auto,
    /// The software reference.
    Sw,
    /// The compute-shader renderer.
    Wgpu,
}

/// `cpu`: the EE engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cpu {
    /// The reference interpreter.
    Interp,
    /// The recompiler.
    Jit,
}

/// `fast_forward_audio`: the sound while Tab fast-forwards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FastForwardAudio {
    /// Silence.
    Mute,
    /// The sound at the game's speed.
    Stretch,
}

/// `dump_format`: what frames and screenshots hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DumpFormat {
    /// Moved by the display offset, 4:3.
    Presented,
    /// The display circuits' own pixels.
    Display,
}

/// Every setting, at its default until a file says otherwise.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// `renderer`.
    pub renderer: Renderer,
    /// `render_scale`, 1 to 8.
    pub render_scale: u32,
    /// `gs_threads`, 1 to 64; `None` (0 in the file): the machine's cores less one.
    pub gs_threads: Option<u32>,
    /// `deflicker`.
    pub deflicker: bool,
    /// `fullscreen`.
    pub fullscreen: bool,
    /// `window_size`, each side 1 to 16384.
    pub window_size: (u32, u32),
    /// `dump_format`.
    pub dump_format: DumpFormat,
    /// `screenshot_dir`; `None` (`""`): `screenshots` in piney's data folder.
    pub screenshot_dir: Option<PathBuf>,
    /// `mapping`; `None` (`""`): the built-in keys and buttons.
    pub mapping: Option<PathBuf>,
    /// `memcard1`; `None` (`""`): `Mcd001` in piney's data folder.
    pub memcard1: Option<PathBuf>,
    /// `memcard2`; `None` (`""`): `Mcd002` in piney's data folder.
    pub memcard2: Option<PathBuf>,
    /// `audio`: play sound in the window.
    pub audio: bool,
    /// `volume`, 0 to 100.
    pub volume: u8,
    /// `fast_forward_audio`.
    pub fast_forward_audio: FastForwardAudio,
    /// `cpu`.
    pub cpu: Cpu,
    /// `fast_cdvd`.
    pub fast_cdvd: bool,
    /// `speed`: Tab fast-forwards at this many times real time; `None` (0): as fast as it runs.
    pub speed: Option<u32>,
    /// `fps_cap`: pictures presented a second at most; `None` (0): no cap.
    pub fps_cap: Option<u32>,
    /// `vsync`.
    pub vsync: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            renderer: Renderer::Auto,
            render_scale: 1,
            gs_threads: None,
            deflicker: false,
            fullscreen: false,
            window_size: (1024, 768),
            dump_format: DumpFormat::Presented,
            screenshot_dir: None,
            mapping: None,
            memcard1: None,
            memcard2: None,
            audio: true,
            volume: 100,
            fast_forward_audio: FastForwardAudio::Mute,
            cpu: Cpu::Jit,
            fast_cdvd: false,
            speed: None,
            fps_cap: None,
            vsync: true,
        }
    }
}

/// What a key's value must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `true` or `false`.
    Bool,
    /// A whole number from `min` to `max`.
    Int {
        /// The least.
        min: i64,
        /// The most.
        max: i64,
    },
    /// One of these strings.
    Choice(&'static [&'static str]),
    /// A path (a string; `""` for the default).
    Path,
    /// `"WIDTHxHEIGHT"`, each 1 to 16384.
    Size,
}

/// One key of the file: its name, meaning, default (as written in the file), allowed values
/// and the command-line flag(s) that override it.
#[derive(Debug, Clone, Copy)]
pub struct Key {
    /// The key.
    pub name: &'static str,
    /// What it does.
    pub meaning: &'static str,
    /// The default, as TOML (`1`, `"auto"`, `false`).
    pub default: &'static str,
    /// What it takes.
    pub kind: Kind,
    /// The flags that override it for one run.
    pub flags: &'static str,
}

impl Key {
    /// The allowed values, in words.
    pub fn allowed(&self) -> String {
        match self.kind {
            Kind::Bool => "true or false".into(),
            Kind::Int { min, max } => format!("{min} to {max}"),
            Kind::Choice(c) => c
                .iter()
                .map(|s| format!("\"{s}\""))
                .collect::<Vec<_>>()
                .join(", "),
            Kind::Path => "a file or folder (relative to this file's folder), or \"\"".into(),
            Kind::Size => "\"WIDTHxHEIGHT\", each side 1 to 16384".into(),
        }
    }
}

/// Every key, in the order the written file has them.
pub const KEYS: &[Key] = &[
    Key {
        name: "renderer",
        meaning: "The GS renderer: \"sw\" is the exact software reference, \"wgpu\" the same pixels on compute shaders, \"auto\" wgpu in a window with a hardware GPU and sw otherwise.",
        default: "\"auto\"",
        kind: Kind::Choice(&["auto", "sw", "wgpu"]),
        flags: "--renderer",
    },
    Key {
        name: "render_scale",
        meaning: "Draw the frame buffer N times larger: finer edges; frames and screenshots are N times the size.",
        default: "1",
        kind: Kind::Int { min: 1, max: 8 },
        flags: "--render-scale",
    },
    Key {
        name: "gs_threads",
        meaning: "Threads the software renderer draws on (the same pixels whatever the number); 0: the machine's cores less one.",
        default: "0",
        kind: Kind::Int { min: 0, max: 64 },
        flags: "--gs-threads",
    },
    Key {
        name: "deflicker",
        meaning: "Merge each line with the line below at ALP/255, as the console's frame mode does.",
        default: "false",
        kind: Kind::Bool,
        flags: "--deflicker, --no-deflicker",
    },
    Key {
        name: "fullscreen",
        meaning: "Open the window in borderless fullscreen (F11 or Alt+Enter toggles it).",
        default: "false",
        kind: Kind::Bool,
        flags: "--fullscreen, --windowed",
    },
    Key {
        name: "window_size",
        meaning: "The window's initial inner size in pixels.",
        default: "\"1024x768\"",
        kind: Kind::Size,
        flags: "--window-size",
    },
    Key {
        name: "dump_format",
        meaning: "What screenshots and written frames hold: \"presented\" (what a player sees: moved by the display offset, 4:3) or \"display\" (the display circuits' own pixels).",
        default: "\"presented\"",
        kind: Kind::Choice(&["presented", "display"]),
        flags: "--dump-format",
    },
    Key {
        name: "screenshot_dir",
        meaning: "Where F12 saves screenshots; \"\": the folder screenshots in piney's data folder.",
        default: "\"\"",
        kind: Kind::Path,
        flags: "--screenshot-dir",
    },
    Key {
        name: "mapping",
        meaning: "A pad mapping file (TOML [keyboard] and [gamepad] tables); \"\": the built-in keys and buttons.",
        default: "\"\"",
        kind: Kind::Path,
        flags: "--mapping",
    },
    Key {
        name: "memcard1",
        meaning: "The memory card in port 1: a folder or a PCSX2 .ps2 image; \"\": the folder Mcd001 in piney's data folder.",
        default: "\"\"",
        kind: Kind::Path,
        flags: "--memcard1",
    },
    Key {
        name: "memcard2",
        meaning: "The memory card in port 2; \"\": the folder Mcd002 in piney's data folder.",
        default: "\"\"",
        kind: Kind::Path,
        flags: "--memcard2",
    },
    Key {
        name: "audio",
        meaning: "Play the sound in the window (the SPU2 runs either way; headless runs never play sound).",
        default: "true",
        kind: Kind::Bool,
        flags: "--audio, --no-audio",
    },
    Key {
        name: "volume",
        meaning: "The window's sound volume (a linear gain; --dump-audio is not affected).",
        default: "100",
        kind: Kind::Int { min: 0, max: 100 },
        flags: "--volume",
    },
    Key {
        name: "fast_forward_audio",
        meaning: "The sound while Tab fast-forwards: \"mute\", or \"stretch\" (at the game's speed, higher in pitch).",
        default: "\"mute\"",
        kind: Kind::Choice(&["mute", "stretch"]),
        flags: "--fast-forward-audio",
    },
    Key {
        name: "cpu",
        meaning: "The EE engine: \"jit\", the recompiler, or \"interp\", the reference interpreter.",
        default: "\"jit\"",
        kind: Kind::Choice(&["interp", "jit"]),
        flags: "--cpu",
    },
    Key {
        name: "fast_cdvd",
        meaning: "Complete every disc command at once instead of taking a console's seek, rotation and transfer time (quicker loads; a game that times its loads may behave differently).",
        default: "false",
        kind: Kind::Bool,
        flags: "--fast-cdvd, --no-fast-cdvd",
    },
    Key {
        name: "speed",
        meaning: "How fast Tab fast-forwards: 2 to 8 times real time, paced; 0: as fast as it runs.",
        default: "0",
        kind: Kind::Int { min: 0, max: 8 },
        flags: "--speed",
    },
    Key {
        name: "fps_cap",
        meaning: "Present at most this many pictures a second (the game still runs every vertical blank); 0: no cap.",
        default: "0",
        kind: Kind::Int { min: 0, max: 240 },
        flags: "--fps-cap",
    },
    Key {
        name: "vsync",
        meaning: "Present at the display's refresh without tearing; false: as soon as a picture is ready (may tear).",
        default: "true",
        kind: Kind::Bool,
        flags: "--vsync, --no-vsync",
    },
];

/// The key called `name`.
pub fn key(name: &str) -> Option<&'static Key> {
    KEYS.iter().find(|k| k.name == name)
}

/// One thing wrong in a settings file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The line (from 1).
    pub line: usize,
    /// The key it concerns, when one is known (it keeps its default).
    pub key: Option<String>,
    /// Why, in one line.
    pub why: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}", self.line)?;
        if let Some(k) = &self.key {
            write!(f, ", key {}", cut(printable_key(k), KEY_CHARS))?;
        }
        write!(f, ": {}", cut(one_line(&self.why), WHY_CHARS))
    }
}

/// `s` cut to `n` characters (an ellipsis marking the cut), so that a report stays one short
/// line whatever the file holds.
fn cut(s: String, n: usize) -> String {
    if s.chars().count() <= n {
        s
    } else {
        let mut c: String = s.chars().take(n - 1).collect();
        c.push('…');
        c
    }
}

/// A key as it is printed: bare when it is a plain word, else quoted with its control
/// characters escaped (a key can hold any character).
fn printable_key(k: &str) -> String {
    if !k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        k.to_string()
    } else {
        format!("{k:?}")
    }
}

/// `s` with every control character (line ends, escapes) escaped, so that it stays on its line.
fn one_line(s: &str) -> String {
    s.chars()
        .flat_map(|c| {
            if c.is_control() || c == '\u{2028}' || c == '\u{2029}' {
                c.escape_default().collect::<Vec<_>>()
            } else {
                vec![c]
            }
        })
        .collect()
}

/// How long [`report`]'s list of problems grows (bytes) before the rest are only counted.
const REPORT_CHARS: usize = 400;

/// The longest key a report prints whole (escaped and quoted).
const KEY_CHARS: usize = 32;

/// The longest reason a report prints whole.
const WHY_CHARS: usize = 72;

/// The one line a bad file gets on stderr: the file, then each problem (line, key, why), then
/// what piney does about it. `None` when there is no problem.
pub fn report(file: &Path, problems: &[Problem]) -> Option<String> {
    if problems.is_empty() {
        return None;
    }
    // As many problems as a short line holds (at least one), the rest counted.
    let mut list: Vec<String> = Vec::new();
    let mut len = 0;
    for (i, p) in problems.iter().enumerate() {
        let text = p.to_string();
        if i > 0 && len + text.len() > REPORT_CHARS {
            list.push(format!(
                "{} more after line {}",
                problems.len() - i,
                problems[i - 1].line
            ));
            break;
        }
        len += text.len() + 2;
        list.push(text);
    }
    Some(format!(
        "piney: settings {}: {}; the defaults are used for {}",
        one_line(&file.display().to_string()),
        list.join("; "),
        if problems.iter().all(|p| p.key.is_some()) {
            "these keys"
        } else {
            "the keys on these lines"
        }
    ))
}

/// What a value is, in words.
fn type_name(v: &DeValue<'_>) -> &'static str {
    match v {
        DeValue::String(_) => "a string",
        DeValue::Integer(_) => "a whole number",
        DeValue::Float(_) => "a number with a fraction",
        DeValue::Boolean(_) => "true or false",
        DeValue::Datetime(_) => "a date",
        DeValue::Array(_) => "an array",
        DeValue::Table(_) => "a table",
    }
}

/// A checked value.
enum Value {
    Bool(bool),
    Int(i64),
    Str(String),
    Size(u32, u32),
}

/// `"WIDTHxHEIGHT"`, each side 1 to 16384.
pub fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let bad = || format!("{s:?} is not WIDTHxHEIGHT (for example 1024x768)");
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(bad)?;
    let w: u32 = w.trim().parse().map_err(|_| bad())?;
    let h: u32 = h.trim().parse().map_err(|_| bad())?;
    if !(1..=16384).contains(&w) || !(1..=16384).contains(&h) {
        return Err(format!("{s:?}: each side must be 1 to 16384 pixels"));
    }
    Ok((w, h))
}

/// `value` checked against `kind`.
fn check(kind: Kind, value: toml::Spanned<DeValue<'_>>) -> Result<Value, String> {
    let what = type_name(value.get_ref());
    let de = || ValueDeserializer::from(value.clone());
    match kind {
        Kind::Bool => bool::deserialize(de())
            .map(Value::Bool)
            .map_err(|_| format!("is {what}, not true or false")),
        Kind::Int { min, max } => {
            let n = match value.get_ref() {
                DeValue::Integer(_) => i64::deserialize(de())
                    .map_err(|_| format!("is out of range ({min} to {max})"))?,
                _ => return Err(format!("is {what}, not a whole number ({min} to {max})")),
            };
            if (min..=max).contains(&n) {
                Ok(Value::Int(n))
            } else {
                Err(format!("{n} is out of range ({min} to {max})"))
            }
        }
        Kind::Choice(allowed) => {
            let s = String::deserialize(de())
                .map_err(|_| format!("is {what}, not one of {}", allowed.join(", ")))?;
            if allowed.contains(&s.as_str()) {
                Ok(Value::Str(s))
            } else {
                Err(format!("{s:?} is not one of {}", allowed.join(", ")))
            }
        }
        Kind::Path => {
            let s = String::deserialize(de()).map_err(|_| format!("is {what}, not a path"))?;
            if s.contains('\0') {
                return Err("a path cannot hold a NUL character".into());
            }
            Ok(Value::Str(s))
        }
        Kind::Size => {
            let s = String::deserialize(de())
                .map_err(|_| format!("is {what}, not \"WIDTHxHEIGHT\""))?;
            parse_size(&s).map(|(w, h)| Value::Size(w, h))
        }
    }
}

/// Store a checked value.
fn set(s: &mut Settings, name: &str, v: Value) {
    let path = |p: String| (!p.is_empty()).then(|| PathBuf::from(p));
    match (name, v) {
        ("renderer", Value::Str(v)) => {
            s.renderer = match v.as_str() {
                "sw" => Renderer::Sw,
                "wgpu" => Renderer::Wgpu,
                _ => Renderer::Auto,
            }
        }
        ("render_scale", Value::Int(n)) => s.render_scale = n as u32,
        ("gs_threads", Value::Int(n)) => s.gs_threads = (n > 0).then_some(n as u32),
        ("deflicker", Value::Bool(b)) => s.deflicker = b,
        ("fullscreen", Value::Bool(b)) => s.fullscreen = b,
        ("window_size", Value::Size(w, h)) => s.window_size = (w, h),
        ("dump_format", Value::Str(v)) => {
            s.dump_format = if v == "display" {
                DumpFormat::Display
            } else {
                DumpFormat::Presented
            }
        }
        ("screenshot_dir", Value::Str(p)) => s.screenshot_dir = path(p),
        ("mapping", Value::Str(p)) => s.mapping = path(p),
        ("memcard1", Value::Str(p)) => s.memcard1 = path(p),
        ("memcard2", Value::Str(p)) => s.memcard2 = path(p),
        ("audio", Value::Bool(b)) => s.audio = b,
        ("volume", Value::Int(n)) => s.volume = n as u8,
        ("speed", Value::Int(n)) => s.speed = (n > 0).then_some(n as u32),
        ("fps_cap", Value::Int(n)) => s.fps_cap = (n > 0).then_some(n as u32),
        ("vsync", Value::Bool(b)) => s.vsync = b,
        ("fast_forward_audio", Value::Str(v)) => {
            s.fast_forward_audio = if v == "stretch" {
                FastForwardAudio::Stretch
            } else {
                FastForwardAudio::Mute
            }
        }
        ("cpu", Value::Str(v)) => s.cpu = if v == "jit" { Cpu::Jit } else { Cpu::Interp },
        ("fast_cdvd", Value::Bool(b)) => s.fast_cdvd = b,
        // KEYS and this match name the same keys with the same kinds (a unit test checks).
        _ => unreachable!("setting {name} of another kind"),
    }
}

/// A settings file's bytes: the settings (defaults for every key that is missing or bad) and
/// what was wrong, each problem naming its line and, when there is one, its key.
pub fn parse(bytes: &[u8]) -> (Settings, Vec<Problem>) {
    let mut settings = Settings::default();
    let mut problems = Vec::new();
    if bytes.len() > MAX_BYTES {
        problems.push(Problem {
            line: 1,
            key: None,
            why: format!(
                "the file is {} bytes, more than a settings file's {MAX_BYTES}; none of it is read",
                bytes.len()
            ),
        });
        return (settings, problems);
    }
    let owned;
    let (text, not_utf8) = match std::str::from_utf8(bytes) {
        Ok(t) => (t, None),
        Err(e) => {
            // Read the rest; the keys on the line of the bad bytes keep their defaults.
            owned = String::from_utf8_lossy(bytes).into_owned();
            (owned.as_str(), Some(e.valid_up_to()))
        }
    };
    let lines = Lines::new(text);
    // The problems by line: at most one a line (the first found).
    let mut by_line: std::collections::BTreeMap<usize, Problem> = Default::default();
    if let Some(at) = not_utf8 {
        let line = lines.of(at);
        by_line.insert(
            line,
            Problem {
                line,
                key: lines.key_on(line),
                why: "the text is not UTF-8".into(),
            },
        );
    }
    let (doc, errors) = DeTable::parse_recoverable(text);
    for e in errors {
        let line = e.span().map_or(1, |s| lines.of(s.start));
        // The parser's later complaints about a line it has already refused are left out.
        by_line.entry(line).or_insert_with(|| {
            let why: String = e
                .message()
                .lines()
                .next()
                .unwrap_or("")
                .trim()
                .chars()
                .take(WHY_CHARS)
                .collect();
            Problem {
                line,
                key: lines.key_on(line),
                why: format!(
                    "TOML syntax: {}",
                    if why.is_empty() { "an error" } else { &why }
                ),
            }
        });
    }
    let mut good = Vec::new();
    for (k, v) in doc.into_inner() {
        let line = lines.of(k.span().start);
        let name = k.get_ref().to_string();
        let value_line = lines.of(v.span().start);
        if by_line.contains_key(&line) || by_line.contains_key(&value_line) {
            // A syntax error on its line: already reported, and the key keeps its default.
            for l in [line, value_line] {
                if let Some(p) = by_line.get_mut(&l)
                    && p.key.is_none()
                {
                    p.key = Some(name.clone());
                }
            }
            if let Some(key) = key(&name) {
                good.retain(|(n, _)| *n != key.name);
            }
            continue;
        }
        let Some(key) = key(&name) else {
            let why = if matches!(v.get_ref(), DeValue::Table(_)) {
                "not a setting (the file has no tables)"
            } else {
                "not a setting"
            };
            by_line.insert(
                line,
                Problem {
                    line,
                    key: Some(name),
                    why: why.into(),
                },
            );
            continue;
        };
        match check(key.kind, v) {
            Ok(value) => good.push((key.name, value)),
            Err(why) => {
                by_line.insert(
                    line,
                    Problem {
                        line,
                        key: Some(name),
                        why,
                    },
                );
            }
        }
    }
    let problems: Vec<Problem> = by_line.into_values().collect();
    // A key named by any problem keeps its default (for example one given twice).
    let named: std::collections::HashSet<&str> =
        problems.iter().filter_map(|p| p.key.as_deref()).collect();
    for (name, value) in good {
        if !named.contains(name) {
            set(&mut settings, name, value);
        }
    }
    (settings, problems)
}

/// Where a text's lines start, to find a byte's line and a line's text quickly.
struct Lines<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Lines { text, starts }
    }

    /// The line (from 1) that byte `at` is on.
    fn of(&self, at: usize) -> usize {
        self.starts.partition_point(|&s| s <= at).max(1)
    }

    /// The key line `line` assigns, read from its text (`name =`, `"name" =`): for syntax
    /// errors, where the document holds no entry for it.
    fn key_on(&self, line: usize) -> Option<String> {
        let start = *self.starts.get(line - 1)?;
        let end = self.starts.get(line).map_or(self.text.len(), |e| e - 1);
        let (name, _) = self.text.get(start..end)?.split_once('=')?;
        let name = name.trim().trim_matches(['"', '\'']).trim();
        (!name.is_empty() && !name.starts_with('#') && !name.starts_with('['))
            .then(|| name.chars().take(KEY_CHARS).collect())
    }
}

/// What [`read`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// The file was read.
    Read,
    /// There is no file: every key at its default.
    Missing,
    /// The file could not be read (the message): every key at its default.
    Unreadable(String),
}

/// The settings file at `path`: its settings (paths in it made relative to its folder), its
/// problems, and whether it was there.
pub fn read(path: &Path) -> (Settings, Vec<Problem>, Found) {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return (Settings::default(), Vec::new(), Found::Missing);
        }
        Err(e) => {
            return (
                Settings::default(),
                Vec::new(),
                Found::Unreadable(e.to_string()),
            );
        }
    };
    let (mut s, problems) = parse(&bytes);
    if let Some(dir) = path.parent() {
        for p in [
            &mut s.screenshot_dir,
            &mut s.mapping,
            &mut s.memcard1,
            &mut s.memcard2,
        ]
        .into_iter()
        .flatten()
        {
            if p.is_relative() {
                *p = dir.join(&*p);
            }
        }
    }
    (s, problems, Found::Read)
}

/// The file written on first run: a header, then every key at its default with a comment
/// giving its meaning, its allowed values, its default and the flags that override it.
pub fn default_file() -> String {
    let mut out = String::from(
        "# piney's settings, read by every `piney run` and `piney demo` (and by `piney replay`\n\
         # for renderer, render_scale and gs_threads). A flag on the command line overrides the\n\
         # setting for that run. A bad line is reported on stderr and its key keeps its default.\n\
         # Delete this file to get it written again with every default.\n",
    );
    for k in KEYS {
        out.push('\n');
        for line in wrap(k.meaning, 96) {
            out.push_str("# ");
            out.push_str(&line);
            out.push('\n');
        }
        out.push_str(&format!(
            "# Allowed: {}. Default: {}. Flags: {}.\n{} = {}\n",
            k.allowed(),
            k.default,
            k.flags,
            k.name,
            k.default
        ));
    }
    out
}

/// `text` in lines of at most `width` characters (at spaces).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut cur = String::new();
    for word in text.split(' ') {
        if !cur.is_empty() && cur.len() + 1 + word.len() > width {
            lines.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(word);
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    lines
}

/// Write [`default_file`] to `path` when no file is there (its folder made as needed; written
/// to a temporary name and renamed, so that a reader never sees half a file). `Ok(true)` when
/// written, `Ok(false)` when a file was already there.
pub fn write_default(path: &Path) -> std::io::Result<bool> {
    if path.exists() {
        return Ok(false);
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension(format!("toml.new-{}", std::process::id()));
    std::fs::write(&tmp, default_file())?;
    // Another piney may have written it meanwhile: keep theirs.
    if path.exists() {
        let _ = std::fs::remove_file(&tmp);
        return Ok(false);
    }
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })?;
    Ok(true)
}

/// piney's config folder: `$XDG_CONFIG_HOME/piney` when that variable is set (on every
/// platform), else the platform's usual place (`~/.config/piney`; on macOS
/// `~/Library/Application Support/piney`; on Windows `%APPDATA%\piney`). `None` when the
/// environment names no home.
///
/// Derived from the environment as `dirs` does, rather than through it: the same few lines as
/// piney's data folder, and an XDG variable honoured everywhere, so that tests and scripts
/// point piney away from the player's own file on any platform.
pub fn config_folder() -> Option<PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let platform = if cfg!(windows) {
        var("APPDATA")
    } else if cfg!(target_os = "macos") {
        var("HOME").map(|h| h.join("Library/Application Support"))
    } else {
        var("HOME").map(|h| h.join(".config"))
    };
    var("XDG_CONFIG_HOME")
        .filter(|p| p.is_absolute())
        .or(platform)
        .map(|d| d.join("piney"))
}

/// The settings file: `config` when given (`--config`), else `settings.toml` in
/// [`config_folder`].
pub fn file(config: Option<&Path>) -> Option<PathBuf> {
    match config {
        Some(c) => Some(c.to_path_buf()),
        None => config_folder().map(|d| d.join(FILE_NAME)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_file_reads_back_as_the_defaults() {
        let (s, problems) = parse(default_file().as_bytes());
        assert_eq!(problems, vec![]);
        assert_eq!(s, Settings::default());
    }

    /// Every key is written with its meaning, allowed values, default and flags, and every
    /// key of the table is one the parser stores (with a value of its kind).
    #[test]
    fn every_key_is_documented_and_settable() {
        let text = default_file();
        for k in KEYS {
            let at = text
                .find(&format!("\n{} = {}\n", k.name, k.default))
                .unwrap_or_else(|| panic!("{} is not written", k.name));
            let comment = &text[..at];
            let block = &comment[comment.rfind("\n\n").unwrap()..];
            assert!(
                block.contains(&format!("Allowed: {}.", k.allowed())),
                "{block}"
            );
            assert!(
                block.contains(&format!("Default: {}.", k.default)),
                "{block}"
            );
            assert!(block.contains(&format!("Flags: {}.", k.flags)), "{block}");
            let first = k.meaning.split(' ').take(3).collect::<Vec<_>>().join(" ");
            assert!(block.contains(&first), "{block}");
            // Each key's default parses alone to the default settings.
            let (s, p) = parse(format!("{} = {}\n", k.name, k.default).as_bytes());
            assert_eq!((s, p), (Settings::default(), vec![]), "{}", k.name);
        }
        assert_eq!(text.matches(" = ").count(), KEYS.len());
    }

    #[test]
    fn values_are_used() {
        let (s, p) = parse(
            b"renderer = \"sw\"\nrender_scale = 3\ngs_threads = 4\ndeflicker = true\n\
              fullscreen = true\nwindow_size = \"800x600\"\ndump_format = \"display\"\n\
              screenshot_dir = \"shots\"\nmapping = \"/m.toml\"\nmemcard1 = \"a\"\n\
              memcard2 = \"b.ps2\"\naudio = false\nvolume = 0\nfast_forward_audio = \"stretch\"\n\
              cpu = \"jit\"\nfast_cdvd = true\nspeed = 4\nfps_cap = 30\nvsync = false\n",
        );
        assert_eq!(p, vec![]);
        assert_eq!(
            s,
            Settings {
                renderer: Renderer::Sw,
                render_scale: 3,
                gs_threads: Some(4),
                deflicker: true,
                fullscreen: true,
                window_size: (800, 600),
                dump_format: DumpFormat::Display,
                screenshot_dir: Some("shots".into()),
                mapping: Some("/m.toml".into()),
                memcard1: Some("a".into()),
                memcard2: Some("b.ps2".into()),
                audio: false,
                volume: 0,
                fast_forward_audio: FastForwardAudio::Stretch,
                cpu: Cpu::Jit,
                fast_cdvd: true,
                speed: Some(4),
                fps_cap: Some(30),
                vsync: false,
            }
        );
    }

    fn problem(text: &str) -> (Settings, Vec<(usize, Option<String>, String)>) {
        let (s, p) = parse(text.as_bytes());
        (
            s,
            p.into_iter()
                .map(|p| (p.line, p.key, p.why))
                .collect::<Vec<_>>(),
        )
    }

    #[test]
    fn bad_values_keep_their_defaults_and_name_line_and_key() {
        let (s, p) = problem(
            "render_scale = 9\nvolume = 50\ncpu = \"fast\"\ndeflicker = 1\ncolour = 2\n\
             window_size = \"0x5\"\ngs_threads = 99999999999999999999\n[video]\nx = 1\n",
        );
        assert_eq!(s.volume, 50, "a good key is used");
        assert_eq!(s.render_scale, 1);
        assert_eq!(s.cpu, Cpu::Jit);
        let lines: Vec<(usize, Option<&str>)> =
            p.iter().map(|(l, k, _)| (*l, k.as_deref())).collect();
        assert_eq!(
            lines,
            vec![
                (1, Some("render_scale")),
                (3, Some("cpu")),
                (4, Some("deflicker")),
                (5, Some("colour")),
                (6, Some("window_size")),
                (7, Some("gs_threads")),
                (8, Some("video")),
            ],
            "{p:?}"
        );
        assert_eq!(p[0].2, "9 is out of range (1 to 8)");
        assert_eq!(p[2].2, "is a whole number, not true or false");
        assert!(p[3].2.starts_with("not a setting"), "{p:?}");
    }

    #[test]
    fn a_syntax_error_costs_only_its_line() {
        let (s, p) = problem("volume = 30\nrender_scale = = 2\ncpu = \"interp\"\n");
        assert_eq!(s.volume, 30);
        assert_eq!(s.cpu, Cpu::Interp);
        assert_eq!(s.render_scale, 1);
        assert_eq!(p.len(), 1, "{p:?}");
        assert_eq!((p[0].0, p[0].1.as_deref()), (2, Some("render_scale")));
        assert!(p[0].2.starts_with("TOML syntax"), "{p:?}");
        // Twice the same key: reported on the second line, and neither value is used.
        let (s, p) = problem("volume = 30\nvolume = 40\n");
        assert_eq!(s.volume, 100);
        assert_eq!((p[0].0, p[0].1.as_deref()), (2, Some("volume")), "{p:?}");
    }

    #[test]
    fn the_report_is_one_line_naming_file_line_and_key() {
        let (_, p) = parse(b"\"a\\nb\" = 1\nvolume = \"loud\"\n\xff = 2\n");
        let line = report(Path::new("/c/settings.toml"), &p).unwrap();
        assert!(!line.contains('\n') && !line.contains('\r'), "{line}");
        assert!(line.starts_with("piney: settings /c/settings.toml: line 1, key \"a\\nb\": "));
        assert!(line.contains("line 2, key volume: is a string, not a whole number (0 to 100)"));
        assert!(line.contains("line 3"), "{line}");
        assert!(report(Path::new("x"), &[]).is_none());
        // Many bad lines, long keys and values: still one short line, the rest counted.
        let mut text = String::new();
        for i in 0..1500 {
            text.push_str(&format!(
                "{}{i} = \"{}\"\nvolume = \"{}\"\n",
                "k".repeat(200),
                "v".repeat(300),
                "\u{1b}".repeat(100)
            ));
        }
        assert!(text.len() < MAX_BYTES);
        let started = std::time::Instant::now();
        let (s, p) = parse(text.as_bytes());
        assert!(
            started.elapsed().as_secs_f64() < 5.0,
            "{:?}",
            started.elapsed()
        );
        assert_eq!(s, Settings::default());
        assert_eq!(p.len(), 3000, "a problem on every line");
        let line = report(Path::new("/c/settings.toml"), &p).unwrap();
        assert!(line.chars().count() < 600, "{line}");
        assert!(line.contains(" more after line "), "{line}");
        assert!(!line.chars().any(char::is_control), "{line}");
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("597x448"), Ok((597, 448)));
        assert_eq!(parse_size("800X600"), Ok((800, 600)));
        for bad in ["", "640", "x480", "640x", "0x480", "640x99999", "axb"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }
}
