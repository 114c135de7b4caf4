//! One GIF and one register model (issue 11): a GS dump captured from a live run
//! (`piney demo --dump-gs`) replays (`piney replay`) to the live run's frames, pixel for pixel.
//! The live machine's GIF paths and the replay feed the same piney-gs decoder and state machine;
//! the dump holds what the GS took from each path in order and the privileged registers at each
//! vertical blank. The run plays tests/input/adjust_screen.txt, so the display offset (from the
//! registers the dump carries) moves the replayed frames as it moved the live ones.

mod piney_support;

use std::path::Path;

use piney_gs::Image;

const FRAMES: u64 = 201;

fn piney(args: &[&str], extra: &[&Path]) -> String {
    let o = piney_support::command()
        .args(args)
        .args(extra)
        .output()
        .expect("running piney");
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "piney {args:?}: {err}");
    err
}

#[test]
fn a_replayed_capture_gives_the_live_frames() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("gs-capture");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let dump = dir.join("demo.gs.zst");
    let (live, replayed) = (dir.join("live"), dir.join("replay"));
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/input/adjust_screen.txt");
    let err = piney(
        &["demo", "--headless", "--frames", &FRAMES.to_string()],
        &[
            Path::new("--input"),
            &script,
            Path::new("--dump-gs"),
            &dump,
            Path::new("--dump-frames"),
            &live,
        ],
    );
    assert!(err.contains(&format!("{FRAMES} frames")), "{err}");
    let err = piney(
        &["replay", "--headless"],
        &[&dump, Path::new("--dump-frames"), &replayed],
    );
    assert!(err.contains(&format!("{FRAMES} frames")), "{err}");
    for n in 0..FRAMES {
        let name = Image::frame_file_name(n);
        let a = Image::read_png(&live.join(&name)).unwrap();
        let b = Image::read_png(&replayed.join(&name)).unwrap();
        assert!(
            a == b,
            "frame {n} differs between the live run and its replay"
        );
    }
    // The last frame is the moved one: the offset came through the dump's registers.
    let last = Image::read_png(&live.join(Image::frame_file_name(FRAMES - 1))).unwrap();
    assert!((0..597).all(|x| last.get(x, 0) == [0, 0, 0, 255]));
}

/// `--dump-gs-frames N`: the dump holds the first N frames and is finished then, while the run
/// goes on; its replay gives the live run's first N frames. And a dump cannot start from a
/// loaded state (it records from power-on): a wrong command line.
#[test]
fn a_capture_of_the_first_frames() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("gs-capture-frames");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let dump = dir.join("first.gs");
    let (live, replayed) = (dir.join("live"), dir.join("replay"));
    let err = piney(
        &[
            "demo",
            "--headless",
            "--frames",
            "40",
            "--dump-gs-frames",
            "25",
        ],
        &[
            Path::new("--dump-gs"),
            &dump,
            Path::new("--dump-frames"),
            &live,
        ],
    );
    assert!(err.contains("25 frames"), "{err}");
    let err = piney(
        &["replay", "--headless"],
        &[&dump, Path::new("--dump-frames"), &replayed],
    );
    assert!(err.contains("25 frames"), "{err}");
    for n in 0..25 {
        let name = Image::frame_file_name(n);
        let a = Image::read_png(&live.join(&name)).unwrap();
        let b = Image::read_png(&replayed.join(&name)).unwrap();
        assert!(
            a == b,
            "frame {n} differs between the live run and its replay"
        );
    }
    assert!(!replayed.join(Image::frame_file_name(25)).exists());
    let o = piney_support::command()
        .args([
            "demo",
            "--headless",
            "--frames",
            "1",
            "--load-state",
            "x.state",
        ])
        .arg("--dump-gs")
        .arg(dir.join("x.gs"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
}

/// `--dump-gs-at FRAME`: a dump started mid-run (at the first vertical blank from FRAME where
/// the GS and its GIF paths are between commands; its state the GS's registers and local
/// memory then) replays to the live frames from there: replayed frame k is live frame
/// FRAME + k. The window's F8 starts the same kind of dump.
#[test]
fn a_capture_started_mid_run() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("gs-capture-at");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let dump = dir.join("mid.gs.zst");
    let (live, replayed) = (dir.join("live"), dir.join("replay"));
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/input/adjust_screen.txt");
    let err = piney(
        &[
            "demo",
            "--headless",
            "--frames",
            "100",
            "--dump-gs-at",
            "45",
            "--dump-gs-frames",
            "30",
        ],
        &[
            Path::new("--input"),
            &script,
            Path::new("--dump-gs"),
            &dump,
            Path::new("--dump-frames"),
            &live,
        ],
    );
    let at: u64 = err
        .split("30 frames from vertical blank ")
        .nth(1)
        .and_then(|t| t.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no start in {err}"));
    assert!((45..60).contains(&at), "{err}");
    let err = piney(
        &["replay", "--headless"],
        &[&dump, Path::new("--dump-frames"), &replayed],
    );
    assert!(err.contains("30 frames"), "{err}");
    for k in 0..30 {
        let a = Image::read_png(&live.join(Image::frame_file_name(at + k))).unwrap();
        let b = Image::read_png(&replayed.join(Image::frame_file_name(k))).unwrap();
        assert!(a == b, "replayed frame {k} is not live frame {}", at + k);
    }
}
