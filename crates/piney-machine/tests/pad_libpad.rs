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
use piney_machine::sif::padman::{Layout, PadInput, Padman, Protocol, ScriptPads, cmd, xcmd};
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
    // The old INIT, which no padman implements: the block comes back unchanged.
    assert_eq!(
        call(&mut p, &[cmd::INIT, 0, 0, 7], &[]).unwrap()[..4],
        [cmd::INIT, 0, 0, 7]
    );
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
    // The pressure-sensitive mode's commands on a closed port: 0 in their result words (3, 4
    // and 7), nothing started.
    for (c, at) in [
        (cmd::GET_BUTTON_MASK, 3),
        (cmd::SET_BUTTON_INFO, 4),
        (cmd::SET_VREF_PARAM, 7),
    ] {
        let r = call(&mut p, &[c, 0, 0, 0xfff], &[]).unwrap();
        assert_eq!(r[at], 0, "{c:#x}");
    }
    // An invalid function code: printed, and the block comes back (as both padmans do).
    assert_eq!(
        call(&mut p, &[0x8000_01ff, 1, 2, 3], &[]).unwrap()[..4],
        [0x8000_01ff, 1, 2, 3]
    );
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

fn call_new(p: &mut Padman, words: &[u32]) -> Vec<u32> {
    let mut args = vec![0u8; 128];
    for (i, w) in words.iter().enumerate() {
        args[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
    }
    let r = p
        .answer_as(1, &args, Protocol::New, Layout::New)
        .expect("answered");
    r.chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// XPADMAN's protocol: INIT names a status area, frames are the new 128-byte layout with the
/// mode and actuator tables libpad reads itself, an old command number maps to the new one.
#[test]
fn new_protocol_frames_and_status() {
    const STATUS: u32 = 0x0010_0000;
    const AREA: u32 = 0x0010_0100;
    let mut p = Padman::new();
    assert_eq!(call_new(&mut p, &[xcmd::INIT, 0, 0, 0, STATUS])[3], 1);
    assert_eq!(call_new(&mut p, &[xcmd::GET_MODVER])[3], 0x0306);
    assert_eq!(call_new(&mut p, &[xcmd::GET_PORT_MAX])[3], 2);
    // Old numbering through the new server: 0x8000_010c is GET_SLOT_MAX.
    assert_eq!(call_new(&mut p, &[cmd::GET_SLOT_MAX, 0])[3], 1);
    assert_eq!(call_new(&mut p, &[xcmd::OPEN, 0, 0, 0, AREA])[3], 1);
    // An unknown command: the block comes back.
    assert_eq!(call_new(&mut p, &[0x11, 5])[..2], [0x11, 5]);

    let mut seen = Vec::new();
    for v in 1..=14u32 {
        let frames = p.poll(v as u64);
        let [(sa, st), (fa, f)] = &frames[..] else {
            panic!("a status block and one frame: {frames:?}");
        };
        // Status: odd counts at +0, even at +0x80; port 1's word has bit 0 (a pad), port 2's not.
        assert_eq!(*sa, STATUS + if v % 2 == 0 { 0x80 } else { 0 });
        assert_eq!(
            &st[0..12],
            [v.to_le_bytes(), 1u32.to_le_bytes(), 0u32.to_le_bytes()].concat()
        );
        assert_eq!((*fa, f.len()), (AREA + 0x80 * (v & 1), 0x80));
        assert_eq!(u32::from_le_bytes(f[0x58..0x5c].try_into().unwrap()), v);
        seen.push((f[0x70], f[0x72], f[0x64], f[0x65], f[0x67]));
    }
    // (state, task, mode config, id, data ready): found (FindCTP1, digital data), 10 frames of
    // query (config mode, no data), then Stable with the tables filled.
    assert_eq!(seen[0], (2, 1, 0, 0x41, 1));
    assert_eq!(seen[2], (5, 2, 0, 0xf3, 0));
    assert_eq!(seen[11], (5, 2, 0, 0xf3, 0));
    assert_eq!(seen[12], (6, 1, 2, 0x41, 1));
    let f = &p.poll(15)[1].1;
    assert_eq!(&f[0..4], [0, 0x41, 0xff, 0xff], "data at +0");
    assert_eq!(u32::from_le_bytes(f[0x60..0x64].try_into().unwrap()), 4);
    assert_eq!(&f[0x30..0x38], [1, 2, 0, 10, 1, 1, 1, 20], "actuators");
    assert_eq!(&f[0x50..0x54], [4, 0, 7, 0], "mode table");
    assert_eq!((f[0x66], f[0x68], f[0x69], f[0x6a]), (3, 2, 0, 2));

    // Analog, locked: three frames in config mode (task SET_MAIN_MODE), then id 0x73.
    assert_eq!(call_new(&mut p, &[xcmd::SET_MAIN_MODE, 0, 0, 1, 3])[5], 1);
    let modes: Vec<(u8, u8, u8, u8, u8)> = (16..=18)
        .map(|v| {
            let f = &p.poll(v)[1].1;
            (f[0x70], f[0x71], f[0x72], f[0x65], f[0x6e])
        })
        .collect();
    assert_eq!(
        modes,
        [(5, 2, 4, 0xf3, 3), (5, 2, 4, 0xf3, 3), (6, 0, 1, 0x73, 3)]
    );
    assert_eq!(call_new(&mut p, &[xcmd::END])[3], 1);
    assert!(
        p.poll(19).is_empty(),
        "END forgets the status area and closes the ports"
    );
}

/// The old protocol's two frame layouts, told apart by what the client cleared before the open.
#[test]
fn old_frames_are_64_or_128_bytes() {
    let mut area = vec![0u8; 256];
    // ps2sdk's libpad: the data of frames at +0 and +0x40 cleared.
    area[0x08..0x28].fill(0xff);
    area[0x48..0x68].fill(0xff);
    assert_eq!(Layout::detect_old(&area), Layout::Old64);
    // A client with 128-byte frames clears +0x08 and +0x88.
    let mut area = vec![0u8; 256];
    area[0x08..0x28].fill(0xff);
    area[0x88..0xa8].fill(0xff);
    assert_eq!(Layout::detect_old(&area), Layout::Old128);

    const AREA: u32 = 0x0020_0000;
    let mut p = Padman::new();
    let mut args = vec![0u8; 128];
    for (i, w) in [cmd::OPEN, 0, 0, 0, AREA].iter().enumerate() {
        args[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
    }
    p.answer_as(1, &args, Protocol::Old, Layout::Old64).unwrap();
    for v in 1..=2u32 {
        let frames = p.poll(v as u64);
        let [(at, f)] = &frames[..] else {
            panic!("one frame: {frames:?}");
        };
        assert_eq!((*at, f.len()), (AREA + 0x40 * (v & 1), 0x40));
        assert_eq!(u32::from_le_bytes(f[0..4].try_into().unwrap()), v);
        assert_eq!(f[4], 2, "FindCTP1");
    }
}
