//! Save states at the library level: the demo title (demo/demo.elf, no hooks, the software
//! renderer) run 30 frames and saved, run 30 more; a second machine made the same way and
//! loaded with the state runs the same 30 frames, bit for bit, and ends in the same state (its
//! own state file equal to the first machine's, byte for byte). A state of another program,
//! another format, a damaged or cut file is refused and leaves the machine as it was.

use std::path::Path;

use piney_gs::{Pcrtc, SoftwareRenderer};
use piney_machine::savestate::StateError;
use piney_machine::{Machine, RunEnd, RunLimits};

const PROGRAM: &str = "demo";

fn demo() -> Machine {
    let elf = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../demo/demo.elf"))
        .expect("demo/demo.elf");
    let mut m = Machine::new(Box::new(std::io::sink()));
    m.attach_renderer(Box::new(SoftwareRenderer::new()));
    m.kernel.args = vec!["host:demo".into()];
    m.load_elf(&elf).expect("the demo loads");
    m
}

/// Runs to frame `to`, the picture of each frame.
fn frames(m: &mut Machine, to: u64) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    while m.vblank_count < to {
        let next = m.vblank_count + 1;
        let end = m
            .run(RunLimits {
                frames: Some(next),
                seconds: None,
            })
            .expect("the demo runs");
        assert_eq!(end, RunEnd::FrameLimit);
        let shown = m.frame(Pcrtc { deflicker: false }).expect("a renderer");
        out.push(shown.image.rgba);
    }
    out
}

#[test]
fn a_loaded_state_continues_as_the_original_run() {
    let mut a = demo();
    frames(&mut a, 30);
    let state = a.save_state(PROGRAM).unwrap();
    let after_a = frames(&mut a, 60);
    let end_a = a.save_state(PROGRAM).unwrap();
    assert_ne!(after_a.first(), after_a.last(), "the demo's picture moves");

    let mut b = demo();
    frames(&mut b, 5);
    b.load_state(&state, PROGRAM).unwrap();
    assert_eq!(b.vblank_count, 30);
    let after_b = frames(&mut b, 60);
    assert!(after_a == after_b, "the frames after the state differ");
    assert!(a.cpu == b.cpu, "the EE's registers differ");
    assert!(
        end_a == b.save_state(PROGRAM).unwrap(),
        "the states at frame 60 differ"
    );
}

#[test]
fn bad_states_are_refused_and_change_nothing() {
    let mut a = demo();
    frames(&mut a, 10);
    let state = a.save_state(PROGRAM).unwrap();
    let mut b = demo();
    frames(&mut b, 3);
    let before = b.save_state(PROGRAM).unwrap();

    let refused = |b: &mut Machine, bytes: &[u8], program: &str| -> String {
        let e = b.load_state(bytes, program).unwrap_err();
        assert!(
            before == b.save_state(PROGRAM).unwrap(),
            "a refused state changed the machine ({e})"
        );
        e.to_string()
    };
    let e = refused(&mut b, &state, "another");
    assert!(e.contains("another program"), "{e}");

    // The header: magic, format, version length and text.
    let mut other_version = state.clone();
    let v = piney_machine::savestate::VERSION.len();
    other_version[16..16 + v].fill(b'9');
    let e = refused(&mut b, &other_version, PROGRAM);
    assert!(e.contains("a save state of piney 9"), "{e}");
    let mut other_format = state.clone();
    other_format[8] ^= 0x40;
    assert!(matches!(
        b.load_state(&other_format, PROGRAM),
        Err(StateError::Version { .. })
    ));

    let e = refused(&mut b, &state[..state.len() / 2], PROGRAM);
    assert!(e.contains("cut short"), "{e}");
    let mut damaged = state.clone();
    let n = damaged.len();
    damaged[n - 1000] ^= 1;
    let e = refused(&mut b, &damaged, PROGRAM);
    assert!(e.contains("damaged"), "{e}");
    let e = refused(&mut b, b"PNG and not a state", PROGRAM);
    assert!(e.contains("not a piney save state"), "{e}");

    // Payloads that pass the checksum but do not unpack, or do not read whole: refused before
    // any change.
    let head = 8 + 4 + 4 + v + 4 + PROGRAM.len();
    let forge = |raw_len: u64, body: &[u8]| {
        let mut forged = state[..head].to_vec();
        forged.extend(raw_len.to_le_bytes());
        forged.extend((body.len() as u64).to_le_bytes());
        forged.extend(crc32fast::hash(body).to_le_bytes());
        forged.extend(body);
        forged
    };
    let body = &state[head + 20..];
    let e = refused(&mut b, &forge(1 << 20, &body[..body.len() / 2]), PROGRAM);
    assert!(e.contains("does not unpack"), "{e}");
    let raw_len = u64::from_le_bytes(state[head..head + 8].try_into().unwrap());
    let short = vec![0u8; raw_len as usize - 64];
    let packed =
        ruzstd::encoding::compress_to_vec(&short[..], ruzstd::encoding::CompressionLevel::Fastest);
    let e = refused(&mut b, &forge(short.len() as u64, &packed), PROGRAM);
    assert!(e.contains("cannot be read"), "{e}");

    // The good state still loads.
    b.load_state(&state, PROGRAM).unwrap();
    assert_eq!(b.vblank_count, 10);
}
