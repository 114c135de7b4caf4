//! libpad over the native padman: `tests/guest/pad.elf` (our libpad, SIF RPC client and the pad
//! data frames) run with `tests/guest/pad.input` as its pads and a recording [`PadInput`]; its
//! stdout must be exactly `tests/guest/pad.stdout` and the motors must have been driven exactly
//! as the program asked. Both expectations are derived by hand from padman's documented
//! protocol and timing (see the comments in `tests/guest/pad.c`), never produced by piney.
//!
//! Also: the native server answers the raw protocol (bad areas, unknown commands, the
//! unimplemented pressure mode) without a guest.

use std::cell::RefCell;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use piney_input::PadReport;
use piney_input::script::InputScript;
use piney_machine::sif::padman::{PadInput, Padman, ScriptPads, cmd};
use piney_machine::{Machine, RunEnd, RunLimits};

fn guest(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/guest")
        .join(name)
}

/// Guest output into a shared buffer.
#[derive(Clone, Default)]
struct Shared(Rc<RefCell<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// (vblank, port, small, large) of every rumble call.
type RumbleLog = Rc<RefCell<Vec<(u64, u8, bool, u8)>>>;

/// Script pads that record what the motors are told.
struct Recording {
    pads: ScriptPads,
    vblank: u64,
    log: RumbleLog,
}

impl PadInput for Recording {
    fn begin_frame(&mut self, vblank: u64) {
        self.vblank = vblank;
        self.pads.begin_frame(vblank);
    }
    fn report(&mut self, port: u8) -> Option<PadReport> {
        self.pads.report(port)
    }
    fn rumble(&mut self, port: u8, small: bool, large: u8) {
        self.log
            .borrow_mut()
            .push((self.vblank, port, small, large));
    }
}

#[test]
fn libpad_program_reads_the_script_and_drives_the_motors() {
    let elf = std::fs::read(guest("pad.elf")).expect("tests/guest/pad.elf (tools/build-guest.sh)");
    let script = InputScript::load(&guest("pad.input")).expect("pad.input parses");
    let expected = std::fs::read_to_string(guest("pad.stdout")).expect("pad.stdout");

    let out = Shared::default();
    let mut m = Machine::new(Box::new(out.clone()));
    m.attach_renderer(Box::new(piney_gs::SoftwareRenderer::new()));
    let log = RumbleLog::default();
    m.set_pad_input(Box::new(Recording {
        pads: ScriptPads::new(script),
        vblank: 0,
        log: log.clone(),
    }));
    m.load_elf(&elf).expect("loads");
    let end = m.run(RunLimits {
        frames: Some(600),
        seconds: None,
    });
    let actual = String::from_utf8_lossy(&out.0.borrow()).into_owned();
    assert!(
        matches!(end, Ok(RunEnd::Exited(0))),
        "run ended {end:?}; output:\n{actual}"
    );
    assert_eq!(actual, expected);
    assert_eq!(
        *log.borrow(),
        vec![
            // SetActAlign completes at vblank 24: the direct values set before it (1, 255) run.
            (24, 0, true, 255),
            (25, 0, false, 64),
            (26, 0, true, 0),
            // Closing the port stops them.
            (27, 0, false, 0),
        ]
    );
}

fn call(p: &mut Padman, words: &[u32], bytes: &[(usize, u8)]) -> Result<Vec<u32>, String> {
    let mut args = vec![0u8; 128];
    for (i, w) in words.iter().enumerate() {
        args[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
    }
    for &(at, b) in bytes {
        args[at] = b;
    }
    let r = p.answer(1, &args)?;
    assert_eq!(r.len(), 128);
    Ok(r.chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

#[test]
fn raw_protocol_answers() {
    let mut p = Padman::new();
    assert_eq!(call(&mut p, &[cmd::INIT], &[]).unwrap()[3], 1);
    assert_eq!(call(&mut p, &[cmd::GET_PORT_MAX], &[]).unwrap()[3], 2);
    assert_eq!(call(&mut p, &[cmd::GET_SLOT_MAX, 0], &[]).unwrap()[3], 1);
    // Areas: 16-byte aligned, inside EE RAM; ports 0-1, slots 0-3.
    assert_eq!(
        call(&mut p, &[cmd::OPEN, 0, 0, 0, 0x10_0008], &[]).unwrap()[3],
        0
    );
    assert_eq!(
        call(&mut p, &[cmd::OPEN, 0, 0, 0, 0x01ff_ff80], &[]).unwrap()[3],
        0
    );
    assert_eq!(
        call(&mut p, &[cmd::OPEN, 2, 0, 0, 0x10_0000], &[]).unwrap()[3],
        0
    );
    assert_eq!(
        call(&mut p, &[cmd::OPEN, 0, 4, 0, 0x10_0000], &[]).unwrap()[3],
        0
    );
    assert_eq!(
        call(&mut p, &[cmd::OPEN, 0, 0, 0, 0x10_0000], &[]).unwrap()[3],
        1
    );
    // Not configured yet: no mode or actuator information, no mode change.
    assert_eq!(
        call(&mut p, &[cmd::INFO_MODE, 0, 0, 4, u32::MAX], &[]).unwrap()[5],
        0
    );
    assert_eq!(
        call(&mut p, &[cmd::SET_MAIN_MODE, 0, 0, 1, 3], &[]).unwrap()[5],
        0
    );
    // Direct values are taken on an open port only.
    assert_eq!(
        call(&mut p, &[cmd::SET_ACT_DIRECT, 0, 0], &[(12, 1)]).unwrap()[5],
        1
    );
    assert_eq!(
        call(&mut p, &[cmd::SET_ACT_DIRECT, 1, 0], &[(12, 1)]).unwrap()[5],
        0
    );
    assert_eq!(call(&mut p, &[cmd::CLOSE, 1, 0, 0, 1], &[]).unwrap()[3], 0);
    assert_eq!(call(&mut p, &[cmd::CLOSE, 0, 0, 0, 1], &[]).unwrap()[3], 1);
    for c in [
        cmd::GET_BUTTON_MASK,
        cmd::SET_BUTTON_INFO,
        cmd::SET_VREF_PARAM,
        cmd::INFO_COMB,
        0x8000_01ff,
    ] {
        let e = call(&mut p, &[c, 0, 0], &[]).unwrap_err();
        assert!(
            e.contains("not implemented") || e.contains("unknown command"),
            "{c:#x}: {e}"
        );
    }
}

/// A pad that comes and goes: Disconn while absent, found again from FindCTP1, and its mode
/// forgotten.
#[test]
fn frames_follow_the_pad() {
    struct Flaky(u64);
    impl PadInput for Flaky {
        fn begin_frame(&mut self, v: u64) {
            self.0 = v;
        }
        fn report(&mut self, port: u8) -> Option<PadReport> {
            (port == 0 && !(3..5).contains(&self.0)).then_some(PadReport::IDLE)
        }
        fn rumble(&mut self, _: u8, _: bool, _: u8) {}
    }
    const AREA: u32 = 0x0020_0000;
    let mut p = Padman::new();
    p.set_input(Box::new(Flaky(0)));
    assert_eq!(
        call(&mut p, &[cmd::OPEN, 0, 0, 0, AREA], &[]).unwrap()[3],
        1
    );
    let frame = |frames: Vec<(u32, Vec<u8>)>, n: u32| {
        let [(at, f)] = &frames[..] else {
            panic!("one open port, one frame: {frames:?}");
        };
        assert_eq!(*at, AREA + 0x80 * (n & 1));
        assert_eq!(f.len(), 0x80);
        assert_eq!(u32::from_le_bytes(f[0..4].try_into().unwrap()), n);
        (f[4], f[5], f[6], f[8..12].to_vec())
    };
    let mut states = Vec::new();
    let mut last = None;
    for v in 1..=20u32 {
        let f = frame(p.poll(v as u64), v);
        states.push(f.0);
        last = Some(f);
    }
    // 1-2 found, 3-4 gone, 5-6 found again, 7-16 queried, 17.. stable.
    assert_eq!(
        states,
        [2, 2, 0, 0, 2, 2, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 6, 6, 6, 6]
    );
    assert_eq!(last, Some((6, 0, 1, vec![0, 0x41, 0xff, 0xff])));
    assert_eq!(p.mode(0, 0), Some((0x41, false)));
}
