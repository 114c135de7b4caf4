//! The recompiler against the interpreter on whole programs: the same guest output, exit status,
//! error lines, guest instruction count and final EE pc (`--cpu jit` and `--cpu interp`) for
//! every guest program in tests/guest that runs end to end, each run as the other tests run it
//! (its input script, its memory cards, its disc, the files in its folder); with a check that
//! the recompiler compiled most of each program natively; for tests/guest/vsync_poll (a wait
//! on the GS's CSR, cycle counts printed) also that the machine moved over the poll loop's
//! passes under the recompiler, which the interpreter runs one by one. And on the demo (whose profile hooks
//! its engine functions) the same frames, bit for bit, and the same native hook calls: the
//! recompiler stops wherever a hook sits, so each runs as often as under the interpreter.

mod piney_support;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Mutex;

fn piney() -> Command {
    piney_support::command()
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn guest(name: &str) -> PathBuf {
    root().join("tests/guest").join(name)
}

/// A fresh scratch folder.
fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("engines")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The demo disc as an ISO made by genisoimage from demo/disc (for cdvd_ee's `--disc`).
fn demo_iso(dir: &Path) -> PathBuf {
    let iso = dir.join("demo.iso");
    let o = Command::new("genisoimage")
        .args(["-quiet", "-o"])
        .arg(&iso)
        .arg(root().join("demo/disc"))
        .output()
        .unwrap_or_else(|e| panic!("genisoimage (package genisoimage) is needed: {e}"));
    assert!(
        o.status.success(),
        "genisoimage: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    iso
}

/// A minimal EE executable: one PT_LOAD segment of `data` at `vaddr` (iop_loadelf's payloads,
/// as crates/piney/tests/loadfile_elf.rs writes them).
fn tiny_elf(vaddr: u32, data: &[u8]) -> Vec<u8> {
    let mut e = vec![0u8; 52 + 32];
    e[0..6].copy_from_slice(&[0x7f, b'E', b'L', b'F', 1, 1]);
    e[6] = 1;
    e[16..18].copy_from_slice(&2u16.to_le_bytes());
    e[18..20].copy_from_slice(&8u16.to_le_bytes());
    e[20..24].copy_from_slice(&1u32.to_le_bytes());
    e[24..28].copy_from_slice(&vaddr.to_le_bytes());
    e[28..32].copy_from_slice(&52u32.to_le_bytes());
    e[40..42].copy_from_slice(&52u16.to_le_bytes());
    e[42..44].copy_from_slice(&32u16.to_le_bytes());
    e[44..46].copy_from_slice(&1u16.to_le_bytes());
    let put = |e: &mut Vec<u8>, at: usize, v: u32| e[at..at + 4].copy_from_slice(&v.to_le_bytes());
    put(&mut e, 52, 1);
    put(&mut e, 56, 84);
    put(&mut e, 60, vaddr);
    put(&mut e, 64, vaddr);
    put(&mut e, 68, data.len() as u32);
    put(&mut e, 72, data.len() as u32);
    put(&mut e, 76, 7);
    e.extend_from_slice(data);
    e
}

/// One program and how the other tests run it.
struct Case {
    name: String,
    /// `piney run` arguments after `run` (the program and its options), without `--cpu`.
    args: Vec<OsString>,
    /// Where its memory cards go: `<cards>/<engine>/Mcd001` and `Mcd002`, fresh for each run
    /// (and compared after both).
    cards: Option<PathBuf>,
}

/// Every program's least native share, and the least share of its guest instructions run
/// inside compiled blocks (not stepped by the interpreter: code at a budget's end, delay slots
/// entered from outside a block). Measured with `--jit-threshold 0` on every program here:
/// 92.9% (vu0, where the VU0 macro arithmetic runs the interpreter's helpers) to 99.9%
/// natively compiled, and 93.7% (path1_timing, a short program that waits on DMA and the GIF
/// with device reads, each of which ends a run) to 100% run compiled; 90% leaves
/// room for code generation changes without letting a category fall back to the interpreter
/// unnoticed.
const NATIVE: f64 = 90.0;
const COMPILED_RUN: f64 = 90.0;

/// The least share of its guest instructions a program runs in compiled blocks:
/// [`COMPILED_RUN`], but for dma_runaway, whose endless DMA chain is a machine event every few
/// instructions (each tag), so that much of its polling loop runs at the end of a budget, where
/// the recompiler steps the interpreter up to the next block start (measured: 70.8% since
/// superblocks check the budget segment by segment; 25% when a block had to fit whole).
fn compiled_run_bound(name: &str) -> f64 {
    if name == "dma_runaway" {
        60.0
    } else {
        COMPILED_RUN
    }
}

/// The `--stats` figures both engines must agree on, and the recompiler's own.
#[derive(Debug)]
struct Run {
    code: Option<i32>,
    stdout: String,
    /// stderr without the `--stats` lines (error lines, warnings, the exit line).
    messages: String,
    /// "guest instructions: N" and the final "EE pc".
    instructions: u64,
    ee_pc: String,
    /// The recompiler's line: blocks compiled, the native share of their instructions, the
    /// instructions the interpreter stepped.
    blocks: u64,
    native_share: f64,
    interpreted: u64,
    /// Passes of poll loops the machine moved over (piney-machine pollskip.rs).
    poll_passes: u64,
}

fn field<'a>(line: &'a str, after: &str, until: char) -> &'a str {
    let rest = &line[line
        .find(after)
        .unwrap_or_else(|| panic!("no {after:?} in {line:?}"))
        + after.len()..];
    rest.split(until).next().unwrap()
}

fn run(case: &Case, cpu: &str) -> Run {
    let mut cmd = piney();
    cmd.arg("run").args(&case.args);
    if let Some(cards) = &case.cards {
        let cards = cards.join(cpu);
        let _ = std::fs::remove_dir_all(&cards);
        cmd.arg("--memcard1")
            .arg(cards.join("Mcd001"))
            .arg("--memcard2")
            .arg(cards.join("Mcd002"));
    }
    let o: Output = cmd
        .args([
            "--headless",
            "--stats",
            "--jit-threshold",
            "0",
            "--cpu",
            cpu,
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    let stats = err
        .lines()
        .find(|l| l.starts_with("piney: guest instructions: "))
        .unwrap_or_else(|| panic!("{} --cpu {cpu}: no statistics in:\n{err}", case.name));
    // The EE's own time (the engines' difference where the GS bounds a run): a time and a
    // rate, on either engine.
    let ee = err
        .lines()
        .find(|l| l.starts_with("piney: EE: its thread's own time "))
        .unwrap_or_else(|| panic!("{} --cpu {cpu}: no EE line in:\n{err}", case.name));
    let ee_secs: f64 = field(ee, "own time ", ' ').parse().unwrap();
    let ee_rate: f64 = field(ee, "waits for the GS), ", ' ').parse().unwrap();
    // A part of the run (its wall time is the statistics line's), and the rate is the run's
    // instructions over that time (both printed rounded: checked where rounding is small).
    let wall: f64 = field(stats, " s in ", ' ').parse().unwrap();
    assert!(ee_secs <= wall + 0.001, "{ee}\n{stats}");
    let instructions: f64 = field(stats, "guest instructions: ", ',').parse().unwrap();
    if ee_secs >= 0.05 && instructions >= 1e6 {
        let implied = ee_rate * 1e6 * ee_secs;
        assert!(
            (implied - instructions).abs() <= 0.02 * instructions,
            "{ee}\n{stats}"
        );
    }
    let jit = err.lines().find(|l| l.starts_with("piney: recompiler: "));
    let (blocks, native_share, interpreted, poll_passes) = match jit {
        Some(l) => (
            field(l, "recompiler: ", ' ').parse().unwrap(),
            field(l, "instructions, ", '%').parse().unwrap(),
            l.split(" instructions interpreted")
                .next()
                .and_then(|t| t.rsplit(", ").next())
                .unwrap_or_else(|| panic!("{l}"))
                .parse()
                .unwrap(),
            field(l, "interpreted; ", ' ').parse().unwrap(),
        ),
        None => (0, 0.0, 0, 0),
    };
    let stat_prefixes = [
        "piney: guest instructions: ",
        "piney: recompiler: ",
        "piney: IOP: ",
        "piney: EE: ",
        "piney: GS: ",
        "piney: SPU2: ",
        "piney: hook ",
        // The settings the run used: its engine and its own memory cards differ by design.
        "piney: settings ",
    ];
    Run {
        code: o.status.code(),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        messages: err
            .lines()
            .filter(|l| !stat_prefixes.iter().any(|p| l.starts_with(p)))
            .map(|l| format!("{l}\n"))
            .collect(),
        instructions: field(stats, "guest instructions: ", ',').parse().unwrap(),
        ee_pc: field(stats, "EE pc ", ',').to_string(),
        blocks,
        native_share,
        interpreted,
        poll_passes,
    }
}

/// Run `case` on both engines and describe every disagreement (empty: none).
fn compare(case: &Case) -> String {
    let interp = run(case, "interp");
    let jit = run(case, "jit");
    let name = &case.name;
    let mut problems = String::new();
    if interp.stdout.is_empty() {
        problems += &format!("{name}: printed nothing\n");
    }
    if let Ok(expected) = std::fs::read_to_string(guest(&format!("{name}.stdout")))
        && interp.stdout != expected
    {
        problems += &format!("{name}: the interpreter's output is not {name}.stdout\n");
    }
    let mut differ = |what: &str, a: &dyn std::fmt::Debug, b: &dyn std::fmt::Debug| {
        let (a, b) = (format!("{a:?}"), format!("{b:?}"));
        if a != b {
            problems += &format!("{name}: {what} differs:\n  interp {a}\n  jit    {b}\n");
        }
    };
    differ("the exit status", &interp.code, &jit.code);
    differ("stdout", &interp.stdout, &jit.stdout);
    differ("stderr", &interp.messages, &jit.messages);
    differ(
        "the guest instruction count",
        &interp.instructions,
        &jit.instructions,
    );
    differ("the final EE pc", &interp.ee_pc, &jit.ee_pc);
    if let Some(cards) = &case.cards {
        differ(
            "what the memory cards hold",
            &files(&cards.join("interp")),
            &files(&cards.join("jit")),
        );
    }
    let compiled_run = 100.0 * (1.0 - jit.interpreted as f64 / jit.instructions.max(1) as f64);
    let least_run = compiled_run_bound(name);
    if jit.blocks == 0 || jit.native_share < NATIVE || compiled_run < least_run {
        problems += &format!(
            "{name}: the recompiler compiled {} blocks, {:.1}% of their instructions natively \
             (at least {NATIVE}% expected), and ran {compiled_run:.1}% of the guest instructions \
             in them (at least {least_run}% expected)\n",
            jit.blocks, jit.native_share
        );
    }
    // vsync_poll waits in graph_wait_vsync's loop: its passes must be moved over, not run.
    if name == "vsync_poll" && jit.poll_passes < 1_000_000 {
        problems += &format!(
            "{name}: the recompiler's run moved over {} passes of its poll loops (millions \
             expected)\n",
            jit.poll_passes
        );
    }
    eprintln!(
        "{name}: {} instructions, {compiled_run:.1}% run compiled; {} blocks, {:.1}% native; {} \
         poll loop passes moved over",
        jit.instructions, jit.blocks, jit.native_share, jit.poll_passes
    );
    problems
}

/// Every file under `dir` with its contents, by path relative to `dir`.
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                let bytes = std::fs::read(&p).unwrap();
                out.push((p.strip_prefix(dir).unwrap().to_path_buf(), bytes));
            }
        }
    }
    out.sort();
    out
}

fn path_args(items: &[&dyn AsRef<std::ffi::OsStr>]) -> Vec<OsString> {
    items.iter().map(|a| a.as_ref().to_os_string()).collect()
}

/// Every guest program: those with an expected output (tests/guest/*.stdout, run as
/// guest_programs.rs runs them), those other tests run (data_paths.rs, disc_boot.rs,
/// loadfile_elf.rs, memcards.rs), with what they need, and bench_float (tools/bench-compute.sh's
/// FPU part: the PS2's float results, which only the two engines' agreement checks).
fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    let mut names: Vec<String> = std::fs::read_dir(root().join("tests/guest"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "stdout"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.len() >= 31, "{names:?}");
    for name in names {
        let elf = guest(&format!("{name}.elf"));
        let mut args = path_args(&[&elf, &"--seconds", &"10"]);
        let input = elf.with_extension("input");
        if input.exists() {
            args.extend(path_args(&[&"--input", &input]));
        }
        cases.push(Case {
            cards: Some(scratch(&format!("cards-{name}"))),
            name,
            args,
        });
    }
    for name in [
        "gif_paths",
        "dma_bad_tag",
        "dma_runaway",
        "vsync_poll",
        "bench_float",
    ] {
        cases.push(Case {
            name: name.into(),
            args: path_args(&[&guest(&format!("{name}.elf")), &"--seconds", &"5"]),
            cards: None,
        });
    }
    // cdvd_ee with the demo's disc in the drive.
    let iso = demo_iso(&scratch("cdvd_ee"));
    cases.push(Case {
        name: "cdvd_ee".into(),
        args: path_args(&[&"--seconds", &"5", &"--disc", &iso, &guest("cdvd_ee.elf")]),
        cards: None,
    });
    // iop_loadelf with its payloads in its folder (its `host:`).
    let d = scratch("iop_loadelf");
    std::fs::copy(guest("iop_loadelf.elf"), d.join("iop_loadelf.elf")).unwrap();
    std::fs::write(
        d.join("payload.elf"),
        tiny_elf(0x0180_0000, b"PINEY-ELF-LOADED"),
    )
    .unwrap();
    std::fs::write(
        d.join("low.elf"),
        tiny_elf(0x0004_0000, b"kernel memory!!!"),
    )
    .unwrap();
    cases.push(Case {
        name: "iop_loadelf".into(),
        args: path_args(&[&d.join("iop_loadelf.elf"), &"--seconds", &"5"]),
        cards: None,
    });
    // iop_mcsave saves on a fresh card in port 1, then spins until the time is up.
    cases.push(Case {
        name: "iop_mcsave".into(),
        args: path_args(&[&guest("iop_mcsave.elf"), &"--seconds", &"2"]),
        cards: Some(scratch("cards-iop_mcsave")),
    });
    // exec_first and exec_second: LoadExecPS2 from one to the other on a disc.
    let d = scratch("exec");
    let files = d.join("files");
    std::fs::create_dir_all(files.join("BIN")).unwrap();
    std::fs::copy(guest("exec_first.elf"), files.join("FIRST.ELF")).unwrap();
    std::fs::copy(guest("exec_second.elf"), files.join("BIN/SECOND.ELF")).unwrap();
    std::fs::write(
        files.join("SYSTEM.CNF"),
        b"BOOT2 = cdrom0:\\FIRST.ELF;1\r\nVER = 1.00\r\nVMODE = NTSC\r\n",
    )
    .unwrap();
    let iso = d.join("exec.iso");
    let o = Command::new("genisoimage")
        .args(["-quiet", "-o"])
        .arg(&iso)
        .arg(&files)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    cases.push(Case {
        name: "exec_first".into(),
        args: path_args(&[&iso, &"--seconds", &"5"]),
        cards: None,
    });
    cases
}

/// Every guest program on both engines, compiled at a block's first visit (`--jit-threshold
/// 0`: every block the program runs is compiled, so the generated code is what is under test),
/// two programs at a time.
#[test]
fn guest_programs_agree_on_both_engines() {
    let cases = cases();
    // Every program in tests/guest is here (exec_second through exec_first's LoadExecPS2).
    for e in std::fs::read_dir(root().join("tests/guest")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "elf") {
            let stem = p.file_stem().unwrap().to_string_lossy();
            assert!(
                stem == "exec_second" || cases.iter().any(|c| c.name == stem),
                "{stem}.elf runs on neither engine here"
            );
        }
    }
    let next = Mutex::new(cases.iter());
    let problems = Mutex::new(String::new());
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(2, 8);
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                loop {
                    let Some(case) = next.lock().unwrap().next() else {
                        break;
                    };
                    let p = compare(case);
                    problems.lock().unwrap().push_str(&p);
                }
            });
        }
    });
    let problems = problems.into_inner().unwrap();
    assert!(problems.is_empty(), "{problems}");
}

/// The recompiler at its default threshold (blocks compiled once hot on the compile thread,
/// interpreted until then: the two mixed wherever the host's timing puts the switch, as a run
/// without `--jit-threshold` has them) on programs that loop enough to compile: the same
/// output.
#[test]
fn hot_blocks_mixed_with_interpreted_code_agree() {
    for name in ["bench_compute", "mmi", "intr", "cop2_interlock"] {
        let elf = guest(&format!("{name}.elf"));
        let out = |cpu: &str| {
            let o = piney()
                .arg("run")
                .arg(&elf)
                .args(["--headless", "--seconds", "20", "--stats", "--cpu", cpu])
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&o.stderr).into_owned();
            assert!(o.status.success(), "{name} --cpu {cpu}: {err}");
            (o.stdout, err)
        };
        let (jit, stats) = out("jit");
        assert_eq!(
            String::from_utf8_lossy(&jit),
            String::from_utf8_lossy(&out("interp").0),
            "{name}"
        );
        if name == "bench_compute" {
            // Tens of millions of instructions: its loops' code arrives long before the end.
            let line = stats
                .lines()
                .find(|l| l.starts_with("piney: recompiler: "))
                .unwrap_or_else(|| panic!("{stats}"));
            let on_thread: u64 = field(line, "a block; ", ' ').parse().unwrap();
            assert!(on_thread >= 1, "{line}");
            // Compiled ahead: the idle compile thread took the exits of hot blocks (README).
            let ahead: u64 = field(line, "on the compile thread (", ' ').parse().unwrap();
            assert!(ahead >= 1 && ahead <= on_thread, "{line}");
        }
    }
}

#[test]
fn the_demo_draws_the_same_frames_on_both_engines() {
    let frames = |cpu: &str| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("engines-{cpu}"));
        let _ = std::fs::remove_dir_all(&dir);
        let o = piney()
            .args([
                "demo",
                "--headless",
                "--frames",
                "45",
                "--cpu",
                cpu,
                "--stats",
                "--dump-frames",
            ])
            .arg(&dir)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "--cpu {cpu}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let mut names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        names.sort();
        // `--stats` lists every hook with its calls, one line each.
        let mut hooks: Vec<String> = String::from_utf8_lossy(&o.stderr)
            .lines()
            .filter(|l| l.starts_with("piney: hook "))
            .map(str::to_string)
            .collect();
        hooks.sort();
        let frames = names
            .iter()
            .map(|p| std::fs::read(p).unwrap())
            .collect::<Vec<_>>();
        (frames, hooks)
    };
    let ((interp, interp_hooks), (jit, jit_hooks)) = (frames("interp"), frames("jit"));
    // The hooks ran (the demo's profile is in use), and as often on both engines.
    assert!(
        interp_hooks.iter().any(|l| !l.ends_with(": 0 calls")),
        "{interp_hooks:?}"
    );
    assert_eq!(jit_hooks, interp_hooks);
    assert_eq!(interp.len(), 45);
    assert_eq!(jit.len(), 45);
    for (n, (a, b)) in interp.iter().zip(&jit).enumerate() {
        assert!(
            a == b,
            "frame {n} differs between the interpreter and the recompiler"
        );
    }
}

/// `PINEY_PERF_MAP=1` (the recompiler's profiling aid): the run writes /tmp/perf-<pid>.map, a
/// line `<host address> <size> ee_<guest pc>` (hex) for every block it compiled, the blocks
/// of the guest program among them.
#[test]
fn the_perf_map_names_every_compiled_block() {
    let child = piney()
        .arg("run")
        .arg(guest("bench_compute.elf"))
        .args(["--headless", "--jit-threshold", "0", "--stats"])
        .env("PINEY_PERF_MAP", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let map = PathBuf::from(format!("/tmp/perf-{}.map", child.id()));
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let text = std::fs::read_to_string(&map).unwrap();
    let _ = std::fs::remove_file(&map);
    let stats = String::from_utf8_lossy(&out.stderr);
    let compiled: usize = field(
        stats.lines().find(|l| l.contains("recompiler:")).unwrap(),
        "recompiler: ",
        ' ',
    )
    .parse()
    .unwrap();
    let mut pcs = Vec::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split(' ').collect();
        assert_eq!(f.len(), 3, "{line}");
        assert!(u64::from_str_radix(f[0], 16).unwrap() > 0, "{line}");
        assert!(u64::from_str_radix(f[1], 16).unwrap() > 0, "{line}");
        let pc = u32::from_str_radix(f[2].strip_prefix("ee_").unwrap(), 16).unwrap();
        pcs.push(pc);
    }
    assert_eq!(pcs.len(), compiled, "{text}");
    // The program's own code (its text starts at 0x00100000).
    assert!(
        pcs.iter()
            .any(|&pc| (0x0010_0000..0x0020_0000).contains(&pc)),
        "{text}"
    );
}
