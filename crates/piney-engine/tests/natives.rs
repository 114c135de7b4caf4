//! Each native function against the demo's own compiled function, run in the interpreter on the
//! same inputs: the guest-visible bytes must be the same.

use std::path::Path;

use piney_engine::{Profile, install, ps2_atan2};
use piney_machine::Machine;
use piney_machine::hooks::HookResult;

fn demo_elf() -> Vec<u8> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../demo/demo.elf");
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Where a called guest function returns to: a word of RAM no code uses.
const SENTINEL: u32 = 0x01f0_0000;
/// Scratch memory for records and arguments.
const SCRATCH: u32 = 0x01e0_0000;

struct Rig {
    m: Machine,
    profile: Profile,
}

impl Rig {
    fn new() -> Rig {
        let image = demo_elf();
        let mut m = Machine::new(Box::new(std::io::sink()));
        m.attach_renderer(Box::new(piney_gs::SoftwareRenderer::new()));
        m.load_elf(&image).unwrap();
        let profile = Profile::from_elf_symbols(&image).unwrap();
        let installed = install(&mut m, &profile, &image);
        assert!(installed.warnings.is_empty(), "{:?}", installed.warnings);
        Rig { m, profile }
    }

    fn addr(&self, name: &str) -> u32 {
        self.profile.address(name).unwrap()
    }

    fn set_args(&mut self, args: &[u32]) {
        for (i, &a) in args.iter().enumerate() {
            self.m.cpu.gpr[4 + i] = a as i32 as i64 as u128;
        }
        self.m.cpu.gpr[31] = SENTINEL as u128;
        self.m.cpu.gpr[29] = (SENTINEL - 0x1000) as u128;
    }

    /// The guest's own code at `name`.
    fn call_guest(&mut self, name: &str, args: &[u32]) {
        let at = self.addr(name);
        self.set_args(args);
        self.m.cpu.pc = at;
        self.m.cpu.next_pc = at + 4;
        self.m.cpu.delay_next = false;
        for _ in 0..1_000_000 {
            if self.m.cpu.pc == SENTINEL {
                return;
            }
            piney_ee::interp::step(&mut self.m.cpu, &mut self.m.bus)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        panic!("{name} did not return");
    }

    /// The native function hooked at `name`.
    fn call_native(&mut self, name: &str, args: &[u32]) -> HookResult {
        let at = self.addr(name);
        self.set_args(args);
        self.m.cpu.pc = at;
        let f = self.m.hooks.get(at).expect("hooked").func.clone();
        f(&mut self.m).unwrap()
    }

    fn bytes(&mut self, at: u32, n: usize) -> Vec<u8> {
        let mut b = vec![0; n];
        self.m.bus.read_bytes(at, &mut b).unwrap();
        b
    }

    fn put(&mut self, at: u32, b: &[u8]) {
        self.m.bus.write_bytes(at, b).unwrap();
    }
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn byte(&mut self) -> u8 {
        self.next() as u8
    }
}

#[test]
fn atan2_matches_the_guests_bit_for_bit() {
    let mut r = Rig::new();
    // Every stick offset pair.
    for dx in -128i32..=127 {
        for dy in -128i32..=127 {
            let (y, x) = ((-dx as f32).to_bits(), (dy as f32).to_bits());
            r.m.cpu.fpu.fpr[12] = y;
            r.m.cpu.fpu.fpr[13] = x;
            r.call_guest("atan2f_", &[]);
            assert_eq!(
                ps2_atan2(y, x),
                r.m.cpu.fpu.fpr[0],
                "atan2f_({}, {})",
                -dx,
                dy
            );
        }
    }
}

#[test]
fn read_report_matches_the_guest() {
    let mut r = Rig::new();
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let (pad, buttons, sticks) = (SCRATCH, SCRATCH + 0x100, SCRATCH + 0x104);
    let mut rec = vec![0u8; 0x60];
    for round in 0..3000 {
        // A record the previous round left (so repeat counts run), sometimes scrambled.
        if round % 50 == 0 {
            rec.iter_mut().for_each(|b| *b = rng.byte());
        }
        let b = match rng.next() % 4 {
            0 => [0xff, 0xff],
            1 => [rng.byte(), rng.byte()],
            _ => [!((rng.next() % 16) as u8) << 4 | 0x0f, 0xff],
        };
        let st = [rng.byte(), rng.byte(), rng.byte(), rng.byte()];
        let st = match rng.next() % 4 {
            0 => [128, 128, st[2], 128],
            1 => [st[0], st[1], 128, 128],
            _ => st,
        };
        let digital = rng.next().is_multiple_of(5);
        let args = [pad, buttons, if digital { 0 } else { sticks }];
        r.put(buttons, &b);
        r.put(sticks, &st);
        r.put(pad, &rec);
        r.call_guest("ccPad_ReadReport", &args);
        let want = r.bytes(pad, 0x60);
        r.put(pad, &rec);
        assert_eq!(r.call_native("ccPad_ReadReport", &args), HookResult::Return);
        let have = r.bytes(pad, 0x60);
        assert_eq!(
            have, want,
            "round {round}: buttons {b:02x?} sticks {st:?} digital {digital}"
        );
        rec = want;
    }
}

#[test]
fn motor_queue_matches_the_guest() {
    let mut r = Rig::new();
    let mut rng = Rng(0x0bad_cafe_f00d_0001);
    let pad = SCRATCH;
    let sw = r.addr("ccPad_actuaterSw");
    let mut rec = vec![0u8; 0x60];
    rec[0x2e] = 1;
    rec[0x24] = 1;
    for round in 0..3000 {
        r.put(sw, &[!rng.next().is_multiple_of(8) as u8]);
        if round % 40 == 0 {
            rec[0x24] = !rng.next().is_multiple_of(8) as u8;
            rec[0x2e] = if rng.next().is_multiple_of(2) { 1 } else { 4 };
        }
        let (name, args) = if rng.next().is_multiple_of(2) {
            let ms = [0, 8, 9, 100, 160, 200, 1000][(rng.next() % 7) as usize];
            (
                "ccPad_SetActuater",
                vec![pad, (rng.next() % 2) as u32, rng.next() as u32 & 0x1ff, ms],
            )
        } else {
            ("ccPad_ActTick", vec![pad, 1 + (rng.next() % 2) as u32])
        };
        r.put(pad, &rec);
        r.call_guest(name, &args);
        let want = r.bytes(pad, 0x60);
        r.put(pad, &rec);
        assert_eq!(r.call_native(name, &args), HookResult::Return);
        let have = r.bytes(pad, 0x60);
        assert_eq!(have, want, "round {round}: {name}{args:?}");
        rec = want;
    }
}

#[test]
fn a_motor_state_the_queue_cannot_hold_runs_the_guest() {
    let mut r = Rig::new();
    let mut rec = vec![0u8; 0x60];
    rec[0x2e] = 9;
    r.put(SCRATCH, &rec);
    assert_eq!(
        r.call_native("ccPad_ActTick", &[SCRATCH, 1]),
        HookResult::RunGuest
    );
}
