//! Long fuzz runs by hand:
//!
//! ```sh
//! PINEY_FUZZ_SECONDS=600 cargo run --release -p piney-fuzz --example fuzz -- [TARGET...]
//! ```
//!
//! Runs each target (all without names) for `PINEY_FUZZ_SECONDS` (or `PINEY_FUZZ_CASES`
//! mutants) with the campaign seed `PINEY_FUZZ_SEED`, each in a child process so that a hang or
//! an allocation past the cap (which stop the process) is recorded and the run carries on from
//! the next case. Prints each target's executions and every failure with the line that
//! reproduces it, and exits 1 if there was any.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Instant;

#[global_allocator]
static ALLOC: piney_fuzz::guard::CapAlloc = piney_fuzz::guard::CapAlloc;

/// The child: one campaign from `PINEY_FUZZ_FROM`; prints `result:` lines for the parent.
fn child(name: &str) -> ! {
    let target = piney_fuzz::targets::by_name(name).expect("a target of that name");
    let cfg = piney_fuzz::Config::from_env(target);
    // The panic hook's report would repeat the failure line.
    std::panic::set_hook(Box::new(|_| {}));
    let code = match piney_fuzz::campaign(target, &cfg) {
        Ok(r) => {
            println!("result: done {} {}", r.executions, r.summary());
            0
        }
        Err(f) => {
            println!("result: failed {} {f}", f.index);
            1
        }
    };
    let _ = std::io::stdout().flush();
    std::process::exit(code)
}

fn main() {
    if let Ok(name) = std::env::var("PINEY_FUZZ_CHILD") {
        child(&name);
    }
    let names: Vec<String> = std::env::args().skip(1).collect();
    let targets: Vec<_> = if names.is_empty() {
        piney_fuzz::targets::TARGETS.iter().collect()
    } else {
        names
            .iter()
            .map(|n| {
                piney_fuzz::targets::by_name(n).unwrap_or_else(|| {
                    eprintln!("fuzz: no target {n}; there are:");
                    for t in piney_fuzz::targets::TARGETS {
                        eprintln!("  {:16} {}", t.name, t.about);
                    }
                    std::process::exit(2)
                })
            })
            .collect()
    };
    let seconds: Option<f64> = std::env::var("PINEY_FUZZ_SECONDS")
        .ok()
        .map(|s| s.parse().expect("PINEY_FUZZ_SECONDS is a number"));
    let cases: Option<u64> = std::env::var("PINEY_FUZZ_CASES")
        .ok()
        .map(|s| s.parse().expect("PINEY_FUZZ_CASES is a number"));
    let exe = std::env::current_exe().expect("this program's path");
    let mut failures = Vec::new();
    let mut lines = Vec::new();
    for t in targets {
        let start = Instant::now();
        let mut from = 0u64;
        let mut executions = 0u64;
        let mut summary = String::new();
        // Count mode: the seeds and `cases` mutants in all, across restarts.
        let last = (t.seeds)().len() as u64 + cases.unwrap_or(t.ci_cases);
        loop {
            let mut cmd = Command::new(&exe);
            cmd.env("PINEY_FUZZ_CHILD", t.name)
                .env("PINEY_FUZZ_FROM", from.to_string())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            if let Some(s) = seconds {
                let left = s - start.elapsed().as_secs_f64();
                if left <= 0.0 {
                    break;
                }
                cmd.env("PINEY_FUZZ_SECONDS", left.to_string());
            } else {
                if from >= last {
                    break;
                }
                // The child runs from `from` to the larger of `from` and the seed count, plus this.
                let seeds = last - cases.unwrap_or(t.ci_cases);
                cmd.env("PINEY_FUZZ_CASES", (last - from.max(seeds)).to_string());
            }
            let mut c = cmd.spawn().expect("the child starts");
            let stderr = c.stderr.take().expect("piped");
            // The guards' lines name the case they stopped.
            let err_reader = std::thread::spawn(move || {
                BufReader::new(stderr)
                    .lines()
                    .map_while(Result::ok)
                    .collect::<Vec<String>>()
            });
            let out: Vec<String> = BufReader::new(c.stdout.take().expect("piped"))
                .lines()
                .map_while(Result::ok)
                .collect();
            let status = c.wait().expect("the child ends");
            let err = err_reader.join().unwrap_or_default();
            if let Some(done) = out.iter().find_map(|l| l.strip_prefix("result: done ")) {
                let (n, s) = done.split_once(' ').unwrap_or((done, ""));
                executions += n.parse::<u64>().unwrap_or(0);
                summary = s.to_string();
                break;
            }
            let (index, what) =
                if let Some(f) = out.iter().find_map(|l| l.strip_prefix("result: failed ")) {
                    let (i, w) = f.split_once(' ').unwrap_or((f, ""));
                    (i.parse::<u64>().unwrap_or(from), w.to_string())
                } else {
                    // Stopped by a guard (or killed): its lines name the case.
                    let index = err
                        .iter()
                        .rev()
                        .find_map(|l| {
                            let at = l.find("PINEY_FUZZ_REPRO=")?;
                            l[at..]
                                .split(':')
                                .nth(2)?
                                .split_whitespace()
                                .next()?
                                .parse()
                                .ok()
                        })
                        .unwrap_or(from);
                    let what = err
                        .iter()
                        .filter(|l| l.contains("piney-fuzz: "))
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(" | ");
                    (index, format!("{status}: {what}"))
                };
            eprintln!("fuzz {}: FAILED at case {index}: {what}", t.name);
            failures.push(format!("{} case {index}: {what}", t.name));
            executions += index + 1 - from;
            from = index + 1;
        }
        let line = format!(
            "{}: {executions} executions in {:.0} s{}",
            t.name,
            start.elapsed().as_secs_f64(),
            if summary.is_empty() {
                String::new()
            } else {
                format!(" (last stretch: {summary})")
            }
        );
        eprintln!("fuzz {line}");
        lines.push(line);
    }
    eprintln!("\nfuzz: summary");
    for l in &lines {
        eprintln!("  {l}");
    }
    for f in &failures {
        eprintln!("  FAILURE {f}");
    }
    std::process::exit(if failures.is_empty() { 0 } else { 1 });
}
