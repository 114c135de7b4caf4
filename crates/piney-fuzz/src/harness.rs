//! The campaign: every seed as it is, then mutated cases, each under `catch_unwind`, the
//! watchdog and the allocation cap, each error checked to be one line naming what.
//!
//! A case is numbered: cases `0..seeds` are the seeds themselves, later ones are mutations
//! drawn from `(campaign seed, target name, index)`, so `PINEY_FUZZ_REPRO=target:seed:index`
//! makes one case again (and writes its bytes to a file).
//!
//! Settings, from the environment (the CI run uses none of them):
//! - `PINEY_FUZZ_SEED`: the campaign seed (default 1);
//! - `PINEY_FUZZ_CASES`: mutated cases per target (default: the target's CI count);
//! - `PINEY_FUZZ_SECONDS`: run each target this long instead (a hand run);
//! - `PINEY_FUZZ_TIMEOUT`: seconds a case may take before it counts as a hang (default 60);
//! - `PINEY_FUZZ_ALLOC_MB`: the cap on one allocation (default 64);
//! - `PINEY_FUZZ_FROM`: the first case's index (default 0);
//! - `PINEY_FUZZ_REPRO=target:seed:index`: run just that case;
//! - `PINEY_FUZZ_INPUT=target:path`: run a file as a case of that target.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::guard;
use crate::mutate::{self, Format, Rng, name_hash, splitmix};

/// One seed file.
#[derive(Debug, Clone)]
pub struct Seed {
    /// Where it comes from (a path in the repository, or what made it).
    pub name: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

/// A place on disk for targets whose code under test reads files (one folder per target run,
/// removed when dropped).
#[derive(Debug)]
pub struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    /// A fresh folder under the system's temporary folder.
    pub fn new(target: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!(
            "piney-fuzz-{}-{target}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("the scratch folder can be made");
        Scratch { dir }
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Writes `bytes` to `name` in the folder and returns its path.
    pub fn file(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let p = self.dir.join(name);
        std::fs::write(&p, bytes).expect("the scratch file can be written");
        p
    }

    /// An empty sub-folder `name` (emptied if it was there).
    pub fn folder(&self, name: &str) -> PathBuf {
        let p = self.dir.join(name);
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).expect("the scratch folder can be made");
        p
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A fuzz target: a format piney reads and what piney does with it.
pub struct Target {
    /// Its name (for reports, filters and `PINEY_FUZZ_REPRO`).
    pub name: &'static str,
    /// What it feeds and to what.
    pub about: &'static str,
    /// What the mutator knows of the format.
    pub format: Format,
    /// The seed corpus.
    pub seeds: fn() -> Vec<Seed>,
    /// Runs one input as piney would: `Ok` or the error piney would print (without its
    /// `piney: ` prefix). Must never panic, hang or allocate without bound.
    pub run: fn(&[u8], &Scratch) -> Result<(), String>,
    /// Mutated cases in the bounded (CI) run.
    pub ci_cases: u64,
}

/// The settings of a campaign.
#[derive(Debug, Clone)]
pub struct Config {
    /// The campaign seed.
    pub seed: u64,
    /// Mutated cases to run (after the seeds), when no time is given.
    pub cases: u64,
    /// Run for this long instead of a count.
    pub seconds: Option<f64>,
    /// How long one case may run.
    pub timeout: Duration,
    /// The first case's index (a hand run carries on after a failure from the next one).
    pub from: u64,
}

fn env<T: std::str::FromStr>(key: &str) -> Option<T> {
    let v = std::env::var(key).ok()?;
    match v.parse() {
        Ok(x) => Some(x),
        Err(_) => panic!("{key}={v:?} is not a valid value"),
    }
}

impl Config {
    /// The CI settings for `target`, changed by the `PINEY_FUZZ_*` variables.
    pub fn from_env(target: &Target) -> Config {
        if let Some(mb) = env::<usize>("PINEY_FUZZ_ALLOC_MB") {
            guard::set_alloc_limit(mb << 20);
        }
        Config {
            seed: env("PINEY_FUZZ_SEED").unwrap_or(1),
            cases: env("PINEY_FUZZ_CASES").unwrap_or(target.ci_cases),
            seconds: env("PINEY_FUZZ_SECONDS"),
            timeout: Duration::from_secs_f64(env("PINEY_FUZZ_TIMEOUT").unwrap_or(60.0)),
            from: env("PINEY_FUZZ_FROM").unwrap_or(0),
        }
    }
}

/// What a campaign did.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// The target.
    pub target: &'static str,
    /// The campaign seed.
    pub seed: u64,
    /// Cases run (seeds included).
    pub executions: u64,
    /// Seeds in the corpus.
    pub seeds: usize,
    /// Seeds that ran without an error.
    pub seeds_ok: usize,
    /// Mutated cases that ran without an error.
    pub cases_ok: u64,
    /// Errors by their first words (numbers and quoted text blanked), with a count.
    pub errors: BTreeMap<String, u64>,
    /// Wall time of the campaign.
    pub wall: Duration,
    /// The slowest case: its index and time.
    pub slowest: (u64, Duration),
    /// The largest single allocation a case made on the campaign's thread.
    pub largest_alloc: usize,
}

impl Report {
    /// One line: executions, their rate, errors, the slowest case, the largest allocation.
    pub fn summary(&self) -> String {
        let rate = self.executions as f64 / self.wall.as_secs_f64().max(1e-9);
        format!(
            "fuzz {}: {} executions in {:.1} s ({rate:.0}/s, seed {}): {} of {} seeds and {} mutants ran clean, {} kinds of error; slowest case #{} {:.2} s; largest allocation {}",
            self.target,
            self.executions,
            self.wall.as_secs_f64(),
            self.seed,
            self.seeds_ok,
            self.seeds,
            self.cases_ok,
            self.errors.len(),
            self.slowest.0,
            self.slowest.1.as_secs_f64(),
            if guard::cap_installed() {
                format!("{:.1} MiB", self.largest_alloc as f64 / (1 << 20) as f64)
            } else {
                "not measured (no CapAlloc)".to_string()
            }
        )
    }
}

/// A case that failed.
#[derive(Debug, Clone)]
pub struct Failure {
    /// The target.
    pub target: &'static str,
    /// The campaign seed.
    pub seed: u64,
    /// The case's index.
    pub index: u64,
    /// What went wrong.
    pub what: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} case {} (seed {}): {}; run it again with PINEY_FUZZ_REPRO={}:{}:{} cargo test -p piney-fuzz --test fuzz -- --nocapture {}",
            self.target,
            self.index,
            self.seed,
            self.what,
            self.target,
            self.seed,
            self.index,
            self.target
        )
    }
}

/// Why an error message is not one clear line, if it is not: empty, more than one line, a
/// control character, or longer than 600 characters.
pub fn error_line_fault(msg: &str) -> Option<String> {
    if msg.trim().is_empty() {
        return Some("an empty error message".into());
    }
    if msg.contains(['\n', '\r']) {
        return Some("an error message of more than one line".into());
    }
    if let Some(c) = msg.chars().find(|c| c.is_control() && *c != '\t') {
        return Some(format!("a control character {c:?} in the error message"));
    }
    let n = msg.chars().count();
    if n > 600 {
        return Some(format!("an error message of {n} characters"));
    }
    None
}

/// The kind of an error: its text with numbers and quoted parts blanked, cut at 60 characters.
fn error_kind(msg: &str) -> String {
    let mut out = String::new();
    let mut quoted = None;
    for c in msg.chars() {
        match quoted {
            Some(q) if c == q => {
                quoted = None;
                out.push(c);
            }
            Some(_) => {}
            None if c == '`' || c == '"' => {
                quoted = Some(c);
                out.push(c);
            }
            None if c.is_ascii_digit() => {
                if !out.ends_with('#') {
                    out.push('#');
                }
            }
            None => out.push(c),
        }
    }
    // Scratch paths differ per run.
    let out = match out.find("piney-fuzz-") {
        Some(i) => {
            let end = out[i..].find(' ').map_or(out.len(), |e| i + e);
            format!("{}FILE{}", &out[..i], &out[end..])
        }
        None => out,
    };
    out.chars().take(60).collect()
}

/// The bytes of case `index` of `target` in the campaign `seed`.
pub fn make_case(target: &Target, seeds: &[Seed], seed: u64, index: u64) -> Vec<u8> {
    let n = seeds.len() as u64;
    if index < n {
        return seeds[index as usize].bytes.clone();
    }
    let mut rng = Rng::new(splitmix(seed ^ name_hash(target.name)).wrapping_add(index));
    let a = &seeds[rng.below(seeds.len())].bytes;
    let b = &seeds[rng.below(seeds.len())].bytes;
    mutate::mutate(a, b, &mut rng, &target.format).0
}

/// Runs one input under the guards; `Err` says why it failed.
pub fn run_one(
    target: &Target,
    data: &[u8],
    scratch: &Scratch,
    label: &str,
    timeout: Duration,
) -> Result<Result<(), String>, String> {
    let _guard = guard::enter(label, timeout);
    let result = catch_unwind(AssertUnwindSafe(|| (target.run)(data, scratch)));
    match result {
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "a panic without a message".into());
            Err(format!("panicked: {msg}"))
        }
        Ok(Err(msg)) => match error_line_fault(&msg) {
            Some(fault) => {
                // The failure's own report stays short: the message's start, escaped.
                let start: String = msg.chars().take(300).collect();
                Err(format!("{fault}: {start:?}..."))
            }
            None => Ok(Err(msg)),
        },
        Ok(Ok(())) => Ok(Ok(())),
    }
}

/// Runs a campaign: the seeds, then mutants until the count or the time is reached. Stops at
/// the first failure. The allocation cap and the watchdog stop the process instead.
pub fn campaign(target: &Target, cfg: &Config) -> Result<Report, Failure> {
    let seeds = (target.seeds)();
    assert!(
        !seeds.is_empty(),
        "{}: the seed corpus is empty",
        target.name
    );
    let scratch = Scratch::new(target.name);
    let start = Instant::now();
    let mut report = Report {
        target: target.name,
        seed: cfg.seed,
        seeds: seeds.len(),
        ..Report::default()
    };
    guard::take_largest();
    // From the start: the seeds and then `cases` mutants; from a later case: `cases` more.
    let total = cfg.from.max(seeds.len() as u64) + cfg.cases;
    let mut index = cfg.from;
    loop {
        let more = match cfg.seconds {
            Some(s) => index < seeds.len() as u64 || start.elapsed().as_secs_f64() < s,
            None => index < total,
        };
        if !more {
            break;
        }
        let data = make_case(target, &seeds, cfg.seed, index);
        let label = format!(
            "{} case {} (seed {}): PINEY_FUZZ_REPRO={}:{}:{}",
            target.name, index, cfg.seed, target.name, cfg.seed, index
        );
        let t = Instant::now();
        let outcome = run_one(target, &data, &scratch, &label, cfg.timeout);
        let took = t.elapsed();
        report.largest_alloc = report.largest_alloc.max(guard::take_largest());
        if took > report.slowest.1 {
            report.slowest = (index, took);
        }
        report.executions += 1;
        let is_seed = index < seeds.len() as u64;
        match outcome {
            Err(what) => {
                return Err(Failure {
                    target: target.name,
                    seed: cfg.seed,
                    index,
                    what: if is_seed {
                        format!("seed {}: {what}", seeds[index as usize].name)
                    } else {
                        what
                    },
                });
            }
            Ok(Ok(())) if is_seed => report.seeds_ok += 1,
            Ok(Ok(())) => report.cases_ok += 1,
            Ok(Err(msg)) => *report.errors.entry(error_kind(&msg)).or_default() += 1,
        }
        index += 1;
    }
    report.wall = start.elapsed();
    Ok(report)
}

/// Runs what `PINEY_FUZZ_REPRO` or `PINEY_FUZZ_INPUT` names, if either names `target`:
/// prints the case's outcome and where its bytes were written. `None` when neither is set for
/// this target.
pub fn reproduce(target: &Target) -> Option<Result<(), String>> {
    let timeout = Duration::from_secs_f64(env("PINEY_FUZZ_TIMEOUT").unwrap_or(60.0));
    let (data, label) = if let Ok(v) = std::env::var("PINEY_FUZZ_REPRO") {
        let parts: Vec<&str> = v.split(':').collect();
        let [name, seed, index] = parts[..] else {
            panic!("PINEY_FUZZ_REPRO={v:?}: expected target:seed:index");
        };
        if name != target.name {
            return None;
        }
        let (seed, index) = (
            seed.parse().expect("PINEY_FUZZ_REPRO's seed"),
            index.parse().expect("PINEY_FUZZ_REPRO's index"),
        );
        let seeds = (target.seeds)();
        (make_case(target, &seeds, seed, index), v.clone())
    } else if let Ok(v) = std::env::var("PINEY_FUZZ_INPUT") {
        let (name, path) = v.split_once(':').expect("PINEY_FUZZ_INPUT=target:path");
        if name != target.name {
            return None;
        }
        (
            std::fs::read(path).expect("PINEY_FUZZ_INPUT's file"),
            v.clone(),
        )
    } else {
        return None;
    };
    let out = std::env::temp_dir().join(format!("piney-fuzz-case-{}.bin", target.name));
    let _ = std::fs::write(&out, &data);
    eprintln!(
        "piney-fuzz: {label}: {} bytes, written to {}",
        data.len(),
        out.display()
    );
    let scratch = Scratch::new(target.name);
    let r = run_one(target, &data, &scratch, &label, timeout);
    eprintln!("piney-fuzz: {label}: {r:?}");
    Some(r.map(|_| ()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_errors() {
        assert_eq!(error_line_fault("file.toml:3: unknown key `x`"), None);
        assert!(error_line_fault("").is_some());
        assert!(
            error_line_fault("a\nb")
                .unwrap()
                .contains("more than one line")
        );
        assert!(
            error_line_fault("a\rb")
                .unwrap()
                .contains("more than one line")
        );
        assert!(error_line_fault("a\u{1b}[31m").unwrap().contains("control"));
        assert!(error_line_fault(&"x".repeat(601)).is_some());
        assert_eq!(error_line_fault("tab\tis fine"), None);
    }

    #[test]
    fn error_kinds_blank_numbers_and_quotes() {
        assert_eq!(
            error_kind("f.txt:12: unknown button `foo` at 0x1f"),
            "f.txt:#: unknown button `` at #x#f"
        );
        assert_eq!(
            error_kind("/tmp/piney-fuzz-1-x/case.png: bad"),
            "/tmp/FILE bad"
        );
    }
}
