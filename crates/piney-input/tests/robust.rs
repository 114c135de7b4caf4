//! Bad and random input: the trace language, mapping files and guest bytes give errors,
//! never panics, and the motor queue keeps its invariants under any sequence of calls.
//! A fixed xorshift generator keeps every run the same.

use piney_input::actuator::{LAYOUT_SIZE, QUEUE_DEPTH};
use piney_input::{ActuatorQueue, CtrlState, Mapping, run_trace};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len())]
    }
}

#[test]
fn random_trace_scripts_never_panic() {
    let words = [
        "pad",
        "ctrl",
        "set",
        "tick",
        "vibration",
        "on",
        "off",
        "ff",
        "0",
        "1",
        "00",
        "80",
        "7f",
        "0x10",
        "255",
        "256",
        "65535",
        "65536",
        "4294967295",
        "4294967296",
        "-1",
        "#",
        "x",
        "",
        "\u{e9}",
        "0x",
        "fff",
    ];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut errors = 0;
    for _ in 0..3000 {
        let mut script = String::new();
        for _ in 0..rng.below(8) {
            for _ in 0..rng.below(8) {
                script.push_str(rng.pick(&words));
                script.push(if rng.below(5) == 0 { '\t' } else { ' ' });
            }
            script.push('\n');
        }
        let mut out = Vec::new();
        if run_trace(script.as_bytes(), &mut out).is_err() {
            errors += 1;
        }
    }
    // Most soups are bad; some (comments, blank lines, lucky commands) are fine.
    assert!(errors > 1000 && errors < 3000, "{errors}");
    // Raw bytes, including invalid UTF-8.
    for _ in 0..500 {
        let bytes: Vec<u8> = (0..rng.below(64)).map(|_| rng.next() as u8).collect();
        let _ = run_trace(&bytes[..], &mut Vec::new());
    }
}

#[test]
fn random_mapping_files_never_panic() {
    let parts = [
        "[keyboard]\n",
        "[gamepad]\n",
        "[mouse]\n",
        "ArrowUp",
        "KeyZ",
        "south",
        "east",
        " = ",
        "\"cross\"",
        "\"none\"",
        "\"up\"",
        "3",
        "\n",
        "[",
        "]",
        "\"",
        "=",
        "#",
        "\u{e9}\u{301}",
        "{",
        "}",
        ".",
        "\\",
    ];
    let mut rng = Rng(0x1234_5678_9abc_def1);
    for _ in 0..3000 {
        let text: String = (0..rng.below(12)).map(|_| rng.pick(&parts)).collect();
        if let Err(e) = Mapping::parse(&text, "m.toml") {
            let msg = e.to_string();
            assert!(msg.starts_with("m.toml:"), "{msg}");
            let line: usize = msg["m.toml:".len()..]
                .split(':')
                .next()
                .unwrap()
                .parse()
                .unwrap();
            assert!(
                line >= 1 && line <= text.lines().count().max(1) + 1,
                "{msg} for {text:?}"
            );
        }
    }
}

#[test]
fn motor_queue_keeps_its_invariants() {
    let mut rng = Rng(0xdead_beef_cafe_f00d);
    for _ in 0..200 {
        let mut q = ActuatorQueue::new();
        let mut sent_last_frame = false;
        for _ in 0..200 {
            match rng.below(4) {
                0 => q.set_actuater(
                    rng.below(2) == 1,
                    rng.next() as u8,
                    (rng.next() % 3000) as u32,
                ),
                1 => q.tick(rng.below(4) as u16),
                2 => q.switch_on = rng.below(4) != 0,
                _ => {
                    let sent = q.ctrl();
                    // Never two sends in consecutive ccPad::Ctrl calls.
                    assert!(!(sent.is_some() && sent_last_frame));
                    if let Some(m) = sent {
                        assert_eq!(q.state(), CtrlState::Wait);
                        assert_eq!(q.last_sent(), m);
                    }
                    sent_last_frame = sent.is_some();
                }
            }
            assert!(q.count() <= QUEUE_DEPTH);
            let again =
                ActuatorQueue::from_bytes(&q.to_bytes(), q.switch_on, q.ready).expect("own bytes");
            assert_eq!(again, q);
        }
    }
}

#[test]
fn any_guest_bytes_are_refused_or_run() {
    let mut rng = Rng(0x0bad_5eed_0bad_5eed);
    let mut accepted = 0;
    for _ in 0..5000 {
        let mut b = [0u8; LAYOUT_SIZE];
        for x in &mut b {
            *x = rng.next() as u8;
        }
        if rng.below(2) == 0 {
            b[6] = [1, 4][rng.below(2)];
            b[7] = rng.below(4) as u8;
        }
        if let Ok(mut q) = ActuatorQueue::from_bytes(&b, true, true) {
            accepted += 1;
            for _ in 0..20 {
                q.set_actuater(true, 9, 500);
                q.tick(2);
                q.ctrl();
            }
            assert!(q.count() <= QUEUE_DEPTH);
        }
    }
    assert!(accepted > 2000, "{accepted}");
}
