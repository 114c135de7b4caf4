//! `piney run --input FILE`: a bad input script stops the run before it starts, with an error
//! naming the file and the line; a missing file names the file.

mod piney_support;

fn piney_run(input: &std::path::Path) -> (Option<i32>, String) {
    let elf = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/guest/hello.elf");
    let out = piney_support::command()
        .arg("run")
        .arg(&elf)
        .args(["--headless", "--frames", "1", "--input"])
        .arg(input)
        .output()
        .expect("piney runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_bad_line_is_an_error_naming_file_and_line() {
    let dir = std::env::temp_dir().join(format!("piney-input-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("bad.input");
    std::fs::write(&file, "# fine\n10 cross\n20-30 cross+jump\n").unwrap();
    let (code, err) = piney_run(&file);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains(&format!("{}:3: unknown button \"jump\"", file.display())),
        "{err}"
    );
    let (code, err) = piney_run(&dir.join("missing.input"));
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("missing.input: "), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--mapping FILE`: the shipped default mapping loads (the run goes on), and a bad one stops
/// the run before it starts with an error naming the file and the line.
#[test]
fn a_mapping_file_is_read_before_the_run() {
    let run = |mapping: &std::path::Path| {
        let elf =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/guest/hello.elf");
        let out = piney_support::command()
            .arg("run")
            .arg(&elf)
            .args(["--headless", "--frames", "1", "--mapping"])
            .arg(mapping)
            .output()
            .expect("piney runs");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let shipped = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../piney-input/default-mapping.toml");
    let (code, err) = run(&shipped);
    assert_eq!(code, Some(0), "{err}");
    let dir = std::env::temp_dir().join(format!("piney-mapping-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("pads.toml");
    std::fs::write(&file, "[keyboard]\nKeyZ = \"cross\"\nKeyX = \"jump\"\n").unwrap();
    let (code, err) = run(&file);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.starts_with("piney: --mapping ") && err.contains(&format!("{}:3:", file.display())),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
