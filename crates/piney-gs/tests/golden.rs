//! Golden pictures of small scenes built as GIF data (golden/scenes.rs), drawn by the software
//! renderer and read out through the PCRTC. They guard against regressions; the exact
//! expectations live in the unit tests. Each case has a tolerance (differing pixels allowed)
//! and an expected-failure flag: an expected failure that starts to pass fails the test, so the
//! flag gets cleared. piney-gs-wgpu's tests/goldens.rs holds the wgpu renderer to the same
//! pictures.
//!
//! `PINEY_BLESS=1 cargo test -p piney-gs --test golden` rewrites the PNGs.

#[path = "golden/scenes.rs"]
mod scenes;

use std::path::PathBuf;

use piney_gs::{Image, SoftwareRenderer};
use scenes::{CASES, Case, render, verdict};

#[test]
fn golden_scenes() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let bless = std::env::var_os("PINEY_BLESS").is_some();
    let mut errors = Vec::new();
    for case in CASES {
        let (got, _) = render(SoftwareRenderer::new(), &(case.build)());
        let path = dir.join(format!("{}.png", case.name));
        if bless {
            got.write_png(&path).unwrap();
            continue;
        }
        match Image::read_png(&path) {
            Ok(golden) => {
                if let Err(e) = verdict(case, &got, &golden) {
                    errors.push(e);
                }
            }
            Err(e) => errors.push(format!("{e} (PINEY_BLESS=1 writes it)")),
        }
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

#[test]
fn expected_failure_flag_logic() {
    let a = Image::new(2, 2, [0, 0, 0, 255]);
    let mut b = a.clone();
    b.set(0, 0, [1, 0, 0, 255]);
    let case = |tolerance, expected_failure| Case {
        name: "t",
        tolerance,
        expected_failure,
        build: Vec::new,
    };
    assert!(verdict(&case(0, false), &a, &a).is_ok());
    assert!(verdict(&case(0, false), &a, &b).is_err());
    assert!(verdict(&case(1, false), &a, &b).is_ok());
    assert!(verdict(&case(0, true), &a, &b).is_ok());
    assert!(verdict(&case(0, true), &a, &a).is_err());
    assert!(verdict(&case(0, false), &a, &Image::new(1, 1, [0; 4])).is_err());
}
