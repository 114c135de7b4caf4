//! Save states: the file `--load-state` reads, loaded into the demo as `piney demo` makes it.

use piney_gs::SoftwareRenderer;
use piney_machine::{Machine, RunLimits};

use crate::harness::{Seed, Target};
use crate::mutate::Format;

/// What the seed's and the cases' machine records as its program.
const PROGRAM: &str = "fuzz: demo/demo.elf";

/// The demo, booted (not run), drawing with the software renderer.
fn demo() -> Result<Machine, String> {
    let elf = std::fs::read(crate::targets::repo().join("demo/demo.elf"))
        .map_err(|e| format!("demo/demo.elf: {e}"))?;
    let mut m = Machine::new(Box::new(std::io::sink()));
    m.attach_renderer(Box::new(SoftwareRenderer::new()));
    m.kernel.args = vec!["host:demo".into()];
    m.load_elf(&elf).map_err(|e| format!("demo: {e}"))?;
    Ok(m)
}

/// Where the payload starts: after the magic, the format, the two length-prefixed texts, the
/// payload's unpacked size, length and CRC (`None` when the header does not fit).
fn payload_start(data: &[u8]) -> Option<usize> {
    let text = |at: usize| -> Option<usize> {
        let n = u32::from_le_bytes(data.get(at..at + 4)?.try_into().ok()?) as usize;
        at.checked_add(4)?.checked_add(n)
    };
    let after_program = text(text(12)?)?;
    let start = after_program.checked_add(20)?;
    (start <= data.len()).then_some(start)
}

/// Keeps the payload's length and CRC right, so that a case reaches the payload's reader.
fn fix_state(data: &mut [u8]) {
    let Some(start) = payload_start(data) else {
        return;
    };
    let len = (data.len() - start) as u64;
    let crc = crc32fast::hash(&data[start..]);
    data[start - 12..start - 4].copy_from_slice(&len.to_le_bytes());
    data[start - 4..start].copy_from_slice(&crc.to_le_bytes());
}

/// One state: the demo run two vertical blanks and saved.
fn seeds() -> Vec<Seed> {
    let mut m = demo().expect("the demo boots");
    m.run(RunLimits {
        frames: Some(2),
        seconds: None,
    })
    .expect("the demo runs");
    vec![Seed {
        name: "the demo at frame 2 (saved at seed time)".into(),
        bytes: m.save_state(PROGRAM).expect("the demo's state saves"),
    }]
}

/// Save states, as `piney demo --load-state FILE` reads them.
pub const SAVE_STATE: Target = Target {
    name: "save_state",
    about: "a save state (its length and CRC kept right in most cases) loaded into the demo as --load-state loads it: refused with a reason, or loaded",
    format: Format {
        // The format word, the version's and program's lengths.
        header: &[8, 12, 16, 20, 24],
        dictionary: &[],
        // Most mutations in the header and the first units (the EE, the kernel, the SIF),
        // not in the 32 MiB of RAM that follow them.
        focus: 64 << 10,
        max_len: 60 << 20,
        fixup: Some(fix_state),
    },
    seeds,
    run: |data, _| {
        let mut m = demo()?;
        m.load_state(data, PROGRAM)
            .map_err(|e| format!("--load-state: {e}"))
    },
    ci_cases: 100,
};
