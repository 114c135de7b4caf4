//! `piney pad-trace`: the committed hand-worked traces through the real command line, from a file
//! and from stdin, and a bad script's error and exit status.

mod piney_support;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

fn traces() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../piney-input/tests/traces")
}

#[test]
fn every_committed_trace_reproduces_from_a_file() {
    let mut n = 0;
    for entry in std::fs::read_dir(traces()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "trace") {
            let expected = std::fs::read_to_string(path.with_extension("out")).unwrap();
            let out = piney_support::command()
                .arg("pad-trace")
                .arg(&path)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}: {}",
                path.display(),
                String::from_utf8_lossy(&out.stderr)
            );
            assert_eq!(
                String::from_utf8_lossy(&out.stdout),
                expected,
                "{}",
                path.display()
            );
            n += 1;
        }
    }
    assert!(n >= 5, "expected the committed traces, found {n}");
}

/// `piney pad-trace` with no file, `script` on its stdin.
fn pad_trace_stdin(script: &[u8]) -> Output {
    let mut child = piney_support::command()
        .arg("pad-trace")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(script).unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn stdin_is_the_default() {
    // Cross held (byte 1 bit 6 low): pressed this frame, repeat on the first frame.
    let out = pad_trace_stdin(b"# comment\npad ff bf\nctrl\n");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "pad direct=0040 push=0040 unpush=0000 repeat=0040 pow=0\nctrl -\n"
    );
}

#[test]
fn a_bad_line_is_an_error_naming_it() {
    let out = pad_trace_stdin(b"pad ff ff\nwobble 3\n");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 2") && err.contains("wobble"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn a_missing_file_is_an_error() {
    let out = piney_support::command()
        .args(["pad-trace", "/nonexistent/x.trace"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/x.trace"));
}
