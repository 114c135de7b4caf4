//! The README's exit codes, through the binary: 1 with one `piney: ...` line for bad input
//! (files, scripts, mappings, profiles), 2 for a wrong command line (the first line names it).

mod piney_support;

use std::path::Path;

fn scratch() -> std::path::PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("exit-codes");
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn piney(args: &[&str]) -> (Option<i32>, String) {
    let o = piney_support::command().args(args).output().unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn bad_input_exits_1_with_one_line_and_bad_usage_exits_2() {
    let d = scratch();
    let garbage = d.join("garbage");
    std::fs::write(&garbage, "x y z\n").unwrap();
    let g = garbage.to_str().unwrap();
    let missing = d.join("missing.elf");
    let m = missing.to_str().unwrap();
    for args in [
        vec!["run", g, "--headless"],
        vec!["run", m, "--headless"],
        vec!["replay", g],
        vec!["demo", "--headless", "--frames", "1", "--input", g],
        vec!["demo", "--headless", "--frames", "1", "--mapping", g],
        vec!["demo", "--headless", "--frames", "1", "--profile", g],
    ] {
        let (code, err) = piney(&args);
        assert_eq!(code, Some(1), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        // One line, naming the file.
        assert!(
            err.starts_with("piney: ") && (err.contains(g) || err.contains(m)),
            "{args:?}: {err}"
        );
    }
    for args in [
        vec!["demo", "--headless", "--bogus"],
        vec!["demo", "--headless", "--render-scale", "9"],
        vec!["demo", "--headless", "--seconds", "-1"],
        vec!["demo", "--headless", "--renderer", "vulkan"],
    ] {
        let (code, err) = piney(&args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        let first = err.lines().next().unwrap_or("");
        assert!(first.starts_with("error: "), "{args:?}: {err}");
    }
}
