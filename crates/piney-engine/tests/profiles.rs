//! The shipped profiles parse; garbage never panics and its errors name file and line; the demo's
//! profile comes from its symbols and a hook whose words do not match waits for its code.

use std::path::Path;

use piney_engine::{Profile, ProfileError, SymbolError, fnv1a64, install};
use piney_machine::Machine;

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn demo_elf() -> Vec<u8> {
    std::fs::read(root().join("demo/demo.elf")).unwrap()
}

#[test]
fn infection_us_profile_parses_with_the_references_addresses() {
    let p = Profile::load(&root().join("profiles/SLUS-20267.toml")).unwrap();
    assert_eq!(p.serial.as_deref(), Some("SLUS-20267"));
    for (name, addr) in [
        ("ccPad::Read", 0x0010_2d40),
        ("ccPad::SetActuater", 0x0010_2bf0),
        ("ccPad::Ctrl", 0x0010_2a50),
        ("ccSystem::Ctrl", 0x0010_a740),
        ("ccSystem::Init", 0x0010_a900),
        ("SetDisplayOffset", 0x0010_ab30),
        ("SwapDoubleBuffer", 0x0010_ac40),
        ("SetScreenModeMain", 0x0010_ad40),
        ("sceGsSetDefDispEnv", 0x0010_de50),
        ("ccThMother.mode1", 0x0016_7ca0),
        ("ccThMother.startup", 0x0016_7b18),
        ("ccThMother.mode0x1000", 0x0016_7d00),
    ] {
        assert_eq!(p.address(name), Some(addr), "{name}");
    }
    assert_eq!(p.address("ccThControl"), None);
    assert!(p.symbols.contains_key("ccThControl"));
}

#[test]
fn a_missing_profile_names_the_file() {
    let e = Profile::load(Path::new("/nonexistent/x.toml")).unwrap_err();
    assert!(matches!(e, ProfileError::Io { .. }));
    assert!(e.to_string().starts_with("/nonexistent/x.toml: "), "{e}");
}

/// Garbage (random bytes, and the shipped profile mutated byte by byte, cut and spliced) never
/// panics; every error names the file and a line that exists.
#[test]
fn garbage_never_panics_and_errors_name_file_and_line() {
    let base = std::fs::read_to_string(root().join("profiles/SLUS-20267.toml")).unwrap();
    let alphabet = b"[]{}=\"'.,#\n 0x1-_azAZ\\\t:+";
    let mut s: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut rnd = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let mut errors = 0;
    for round in 0..1500 {
        let mut b = base.clone().into_bytes();
        match round % 3 {
            0 => {
                for _ in 0..1 + rnd() % 4 {
                    let at = (rnd() as usize) % b.len();
                    b[at] = alphabet[(rnd() as usize) % alphabet.len()];
                }
            }
            1 => {
                let at = (rnd() as usize) % b.len();
                b.truncate(at);
            }
            _ => {
                b = (0..rnd() % 300).map(|_| rnd() as u8).collect();
            }
        }
        let text = String::from_utf8_lossy(&b).into_owned();
        if let Err(e) = Profile::parse(&text, "fuzz.toml") {
            errors += 1;
            let ProfileError::Syntax { file, line, .. } = &e else {
                panic!("{e}");
            };
            assert_eq!(file, "fuzz.toml");
            assert!(
                *line >= 1 && *line <= text.lines().count().max(1) + 1,
                "{e}"
            );
            assert!(e.to_string().starts_with(&format!("fuzz.toml:{line}: ")));
        }
    }
    assert!(errors > 300, "the fuzzer made only {errors} bad profiles");
}

#[test]
fn the_demo_profile_comes_from_its_symbols() {
    let image = demo_elf();
    let p = Profile::from_elf_symbols(&image).unwrap();
    assert_eq!(p.elf_fnv1a64, Some(fnv1a64(&image)));
    for f in [
        "ccPad_ReadReport",
        "ccSystem_Ctrl",
        "ccTscb_Breath",
        "VSyncCallBack",
    ] {
        let s = &p.symbols[f];
        assert!(s.address.is_some(), "{f}");
        assert_eq!(s.words.len(), 4, "{f}");
    }
    for d in ["ccPads", "ccSys", "ccPad_actuaterSw", "tscbTop"] {
        assert!(p.address(d).is_some(), "{d}");
    }
    // Every native function piney has: the demo has all of their symbols.
    assert_eq!(
        p.hooks,
        [
            "ccPad_ReadReport",
            "ccPad_SetActuater",
            "ccPad_ActTick",
            "ccPad_ActCtrl",
            "ccThControl",
            "ccThControl_Walk",
            "ccTscb_Breath",
            "ccTscb_GoThread",
            "ccSystem_Ctrl",
            "VSyncCallBack",
        ]
    );
}

#[test]
fn bad_elves_are_named_not_panicked_on() {
    assert_eq!(
        Profile::from_elf_symbols(b"nope").unwrap_err(),
        SymbolError::NotElf
    );
    let image = demo_elf();
    // Every truncation of the headers and tables gives an error or a profile, never a panic.
    for cut in (0..image.len()).step_by(997) {
        let _ = Profile::from_elf_symbols(&image[..cut]);
    }
    // No section headers: stripped.
    let mut stripped = image.clone();
    stripped[48] = 0;
    stripped[49] = 0;
    assert_eq!(
        Profile::from_elf_symbols(&stripped).unwrap_err(),
        SymbolError::NoSymtab
    );
}

/// A hook whose words are not the loaded code waits: the guest's own code runs while they
/// differ, and the native function runs once the profile's code is there (an overlay loaded
/// later, here written into memory as a DMA would).
#[test]
fn a_hook_whose_words_differ_waits_for_its_code() {
    let image = demo_elf();
    let mut p = Profile::from_elf_symbols(&image).unwrap();
    p.symbols.get_mut("ccPad_ActTick").unwrap().words[1] ^= 1;
    let want = p.symbols["ccPad_ActTick"].words[1];
    let mut m = Machine::new(Box::new(std::io::sink()));
    m.load_elf(&image).unwrap();
    let got = install(&mut m, &p, &image);
    assert_eq!(got.hooks.len(), piney_engine::NATIVES.len() - 1);
    assert_eq!(got.warnings.len(), 1);
    assert!(
        got.warnings[0].contains("hook ccPad_ActTick waits: the word at"),
        "{:?}",
        got.warnings
    );
    let at = p.address("ccPad_ActTick").unwrap();
    let run = |m: &mut Machine, frames: u64| {
        m.run(piney_machine::RunLimits {
            frames: Some(frames),
            seconds: None,
        })
        .unwrap();
    };
    run(&mut m, 30);
    assert_eq!(m.hooks.get(at).expect("installed, waiting").calls, 0);
    // The profile's code arrives: the hook runs from its next call.
    m.bus.write_bytes(at + 4, &want.to_le_bytes()).unwrap();
    m.invalidate_code();
    run(&mut m, 60);
    assert!(m.hooks.get(at).unwrap().calls > 0);
    // Another ELF's profile: nothing installed.
    p.elf_fnv1a64 = Some(1);
    let mut m = Machine::new(Box::new(std::io::sink()));
    m.load_elf(&image).unwrap();
    let got = install(&mut m, &p, &image);
    assert!(got.hooks.is_empty());
    assert!(
        got.warnings[0].contains("no hooks installed"),
        "{:?}",
        got.warnings
    );
}

/// Issue 17: a profile that puts `ccSys` at a code address (here the demo's `main`) made the
/// native frame controller spin without emulated time passing (WaitSema on a garbage semaphore
/// id returns at once, `frameRateCnt < frameRate` never changes), so `--frames` never ended the
/// run. Now each failed wait lets time pass to the next event, as the guest's polling loop would:
/// three frames end (whatever the garbage does to the program), within a wall-clock bound.
#[test]
fn a_garbage_ccsys_cannot_stop_emulated_time() {
    let image = demo_elf();
    let mut p = Profile::from_elf_symbols(&image).unwrap();
    let main = p.address("main").expect("the demo has main");
    p.symbols.get_mut("ccSys").expect("ccSys").address = Some(main);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut m = Machine::new(Box::new(std::io::sink()));
        m.load_elf(&image).unwrap();
        let _ = install(&mut m, &p, &image);
        let end = m.run(piney_machine::RunLimits {
            frames: Some(3),
            seconds: Some(1.0),
        });
        let _ = tx.send((format!("{end:?}"), m.vblank_count, m.cpu.cycles));
    });
    let (end, vblanks, cycles) = rx
        .recv_timeout(std::time::Duration::from_secs(120))
        .expect("the run ends (it spun without emulated time passing)");
    assert!(cycles > 0, "{end}");
    assert!(
        end.contains("FrameLimit") || end.contains("TimeLimit") || end.contains("Err"),
        "{end} after {vblanks} vblanks"
    );
}
