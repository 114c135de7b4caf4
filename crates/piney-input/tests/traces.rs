//! The hand-worked pad traces in `tests/traces/`: each `NAME.trace` run through
//! [`piney_input::run_trace`] must print exactly `NAME.out`. The expected outputs were worked
//! out by hand from the rules (the comments in each trace show the working), not recorded.

use std::path::Path;

#[test]
fn hand_worked_traces_reproduce() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/traces");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/traces")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "trace"))
        .collect();
    names.sort();
    assert!(
        names.len() >= 8,
        "expected the committed traces, found {}",
        names.len()
    );
    let mut failures = Vec::new();
    for trace in &names {
        let expected = std::fs::read_to_string(trace.with_extension("out"))
            .expect("an .out beside every .trace");
        let input = std::fs::read(trace).expect("trace");
        let mut out = Vec::new();
        if let Err(e) = piney_input::run_trace(&input[..], &mut out) {
            failures.push(format!("{}: {e}", trace.display()));
            continue;
        }
        let got = String::from_utf8(out).expect("utf-8 output");
        for (i, (g, x)) in got.lines().zip(expected.lines()).enumerate() {
            if g != x {
                failures.push(format!(
                    "{} output line {}: got `{g}`, expected `{x}`",
                    trace.display(),
                    i + 1
                ));
            }
        }
        if got.lines().count() != expected.lines().count() {
            failures.push(format!(
                "{}: {} lines printed, {} expected",
                trace.display(),
                got.lines().count(),
                expected.lines().count()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
