//! The demo title's sound through the binary: `--dump-audio` writes the SPU2's output (the
//! demo's own driver on the IOP, rom0:LIBSD native, its tune with reverb), the same bytes for
//! the same run, not silence; a button in the input script starts the effect at its frame.

mod piney_support;

use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("piney-audio-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `piney demo --headless --frames N --dump-audio OUT [args]`: the WAV's 16-bit samples.
fn demo_audio(dir: &Path, name: &str, frames: u32, args: &[&str]) -> (Vec<u8>, Vec<i16>) {
    let wav = dir.join(name);
    let o = piney_support::command()
        .args([
            "demo",
            "--headless",
            "--frames",
            &frames.to_string(),
            "--dump-audio",
        ])
        .arg(&wav)
        .args(args)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "piney demo failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let bytes = std::fs::read(&wav).unwrap();
    // A canonical 44-byte header: RIFF, WAVE, fmt (PCM, 2 channels, 48000 Hz, 16 bits), data.
    assert_eq!(&bytes[0..4], b"RIFF");
    assert_eq!(&bytes[8..16], b"WAVEfmt ");
    assert_eq!(u16::from_le_bytes([bytes[22], bytes[23]]), 2, "stereo");
    assert_eq!(
        u32::from_le_bytes([bytes[24], bytes[25], bytes[26], bytes[27]]),
        48_000
    );
    assert_eq!(u16::from_le_bytes([bytes[34], bytes[35]]), 16);
    assert_eq!(&bytes[36..40], b"data");
    let samples = bytes[44..]
        .chunks_exact(2)
        .map(|c| i16::from_le_bytes([c[0], c[1]]))
        .collect();
    (bytes, samples)
}

#[test]
fn the_demo_sounds_the_same_every_run() {
    let d = scratch("twice");
    let (a, sa) = demo_audio(&d, "a.wav", 180, &[]);
    let (b, _) = demo_audio(&d, "b.wav", 180, &[]);
    assert!(a == b, "two runs of the same demo wrote different WAVs");
    // 180 vertical blanks of NTSC (59.94 Hz) at 48 kHz: 3 s of sound, to within the last
    // batch of samples the SPU2 had made when the run stopped.
    let frames = sa.len() / 2;
    assert!(
        (144_000 - 800..=144_200).contains(&frames),
        "{frames} stereo samples for 180 frames"
    );
    // Not silent: the tune plays from the first second (the driver starts with the IOP).
    let second = &sa[96_000..192_000];
    let loud = second.iter().filter(|s| s.unsigned_abs() > 1000).count();
    assert!(
        loud > 10_000,
        "only {loud} samples above 1000 in the second second"
    );
}

#[test]
fn circle_starts_the_effect_at_its_frame() {
    let d = scratch("effect");
    let input = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/input/effect_at_150.txt");
    let (_, plain) = demo_audio(&d, "plain.wav", 200, &[]);
    let (_, pressed) = demo_audio(
        &d,
        "pressed.wav",
        200,
        &["--input", input.to_str().unwrap()],
    );
    let first = plain
        .iter()
        .zip(&pressed)
        .position(|(a, b)| a != b)
        .expect("the effect changed nothing");
    // The press is read at vertical blank 150 (the pad frame the engine reads), the EE sends the
    // RPC, the driver keys the voice on, which sounds two samples later: the first changed
    // sample comes within a few frames of 150 (one frame = 48000 / 59.94 = 800.8 samples).
    let at_frame = (first / 2) as f64 / (48_000.0 / 59.94);
    assert!(
        (150.0..154.0).contains(&at_frame),
        "the effect starts at frame {at_frame:.2}, not at the press (150)"
    );
}
