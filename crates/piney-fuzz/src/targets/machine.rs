//! Targets on the whole machine: ELF programs under both CPU engines (with the hooks their
//! symbols give, as `piney demo` installs them), IOP modules as `piney run MODULE.irx` runs
//! them, and GIF and VIF streams sent to the machine by DMA.

use piney_ee::Bus;
use piney_gs::{FrameFormat, Pcrtc, SoftwareRenderer};
use piney_machine::{Machine, RunLimits};

use crate::harness::{Scratch, Seed, Target};
use crate::mutate::Format;
use crate::targets::{corpus, files};

/// Emulated time an ELF case runs: 20 ms (1.2 vertical blanks, 5.9 million EE cycles), enough
/// for a test program to reach its checks and the demo to boot its IOP modules.
pub const ELF_SECONDS: f64 = 0.02;

/// Emulated time an ELF case runs on the recompiler: 5 ms. A mutant that jumps into a run of
/// zero words costs the recompiler about 1.8 s of host time per emulated millisecond in a debug
/// build (PINEY_FUZZ_REPRO=elf_jit:1:43; the recompiler's cost on such code is its own issue),
/// so the bounded run keeps such cases to seconds.
pub const JIT_SECONDS: f64 = 0.005;

/// The ELF header's fields and the first two program headers (ELF32: e_ident's class and
/// data bytes, e_type, e_machine, e_entry, e_phoff, e_shoff, e_phentsize, e_phnum,
/// e_shentsize, e_shnum, e_shstrndx; p_type, p_offset, p_vaddr, p_paddr, p_filesz, p_memsz).
const ELF_HEADER: &[usize] = &[
    4, 5, 16, 18, 24, 28, 32, 42, 44, 46, 48, 50, 52, 56, 60, 64, 68, 72, 84, 88, 92, 96, 100, 104,
];

/// A machine as `piney run` builds one, drawing with the software renderer on this thread
/// (the window's threaded renderer is the soak's business), `host:` in a fresh folder so that
/// a mutated program's file writes land in the scratch space, no memory cards.
fn machine(scratch: &Scratch) -> Machine {
    let mut m = Machine::new(Box::new(std::io::sink()));
    m.attach_renderer(Box::new(SoftwareRenderer::new()));
    m.bus.iop.set_host_root(scratch.folder("host"));
    m
}

/// The picture at the end, as `--dump-frames` makes it.
fn present(m: &mut Machine) {
    if let Some(shown) = m.frame(Pcrtc::default()) {
        let _ = FrameFormat::Presented.apply_at(&shown.image, shown.presenter, shown.scale);
    }
}

fn run_elf(data: &[u8], scratch: &Scratch, jit: bool) -> Result<(), String> {
    let seconds = if jit { JIT_SECONDS } else { ELF_SECONDS };
    let mut m = machine(scratch);
    if jit {
        m.use_recompiler().map_err(|e| format!("--cpu jit: {e}"))?;
    }
    m.kernel.args = vec!["host:case.elf".into()];
    m.load_elf(data).map_err(|e| format!("case.elf: {e}"))?;
    // `piney demo`: the hooks from the program's own symbols; a program without them runs
    // with none (a warning).
    if let Ok(p) = piney_engine::Profile::from_elf_symbols(data)
        && let Ok(p) = p.resolve(data)
    {
        for w in piney_engine::install(&mut m, &p, data).warnings {
            if let Some(fault) = crate::harness::error_line_fault(&w) {
                return Err(format!("warning: {fault}: {w:?}"));
            }
        }
    }
    let r = m.run(RunLimits {
        frames: None,
        seconds: Some(seconds),
    });
    present(&mut m);
    r.map(|_| ()).map_err(|e| e.to_string())
}

fn elf_seeds() -> Vec<Seed> {
    let mut v = files("tests/guest", &[".elf"]);
    v.extend(files("demo", &["demo.elf"]));
    v
}

/// ELF programs on the interpreter.
pub const ELF_INTERP: Target = Target {
    name: "elf_interp",
    about: "an ELF loaded and run for 20 ms of emulated time on the interpreter, the hooks of its symbols installed",
    format: Format {
        header: ELF_HEADER,
        dictionary: &[],
        focus: 0,
        max_len: 0,
        fixup: None,
    },
    seeds: elf_seeds,
    run: |d, s| run_elf(d, s, false),
    ci_cases: 100,
};

/// ELF programs on the recompiler.
pub const ELF_JIT: Target = Target {
    name: "elf_jit",
    about: "an ELF loaded and run for 5 ms of emulated time on the recompiler, the hooks of its symbols installed",
    format: Format {
        header: ELF_HEADER,
        dictionary: &[],
        focus: 0,
        max_len: 0,
        fixup: None,
    },
    seeds: elf_seeds,
    run: |d, s| run_elf(d, s, true),
    ci_cases: 60,
};

/// IOP modules as `piney run MODULE.irx` runs them: loaded beside an idle EE program and run
/// until the IOP has nothing left to do, or the emulated time is up.
pub const IRX: Target = Target {
    name: "irx",
    about: "an IRX module loaded and run on the IOP for 20 ms of emulated time",
    format: Format {
        header: ELF_HEADER,
        dictionary: &[],
        focus: 0,
        max_len: 0,
        fixup: None,
    },
    seeds: || {
        let mut v = files("tests/iop", &[".irx"]);
        v.extend(files("demo/iop", &[".irx"]));
        v
    },
    run: |data, scratch| {
        let mut m = machine(scratch);
        if !piney_machine::is_irx(data) {
            // `piney run` takes any other file for an ELF program or a disc image.
            return m.load_elf(data).map_err(|e| format!("case.irx: {e}"));
        }
        m.load_irx("case.irx", data)
            .map_err(|e| format!("case.irx: {e}"))?;
        m.run(RunLimits {
            frames: None,
            seconds: Some(ELF_SECONDS),
        })
        .map(|_| ())
        .map_err(|e| e.to_string())
    },
    ci_cases: 150,
};

/// EE cycles a DMA case may take: 4 million (13.6 ms).
const DMA_CYCLES: u64 = 4_000_000;

/// Where a DMA case's data goes in RAM.
const DMA_DATA: u32 = 0x1000;

/// Runs a DMA case. The first qword is the control block: byte 0 picks the VIF (0 VIF0, 1 VIF1,
/// by its lowest bit) unless `channel` is given, byte 1 bit 0 a source chain (else a normal
/// transfer), bit 1 CHCR.TTE. The rest is the data, at 0x1000 in RAM.
fn run_dma(data: &[u8], scratch: &Scratch, channel: Option<usize>) -> Result<(), String> {
    let mut m = machine(scratch);
    let ctl = data.get(..16).unwrap_or(&[]);
    let ch = channel.unwrap_or(ctl.first().map_or(1, |b| *b as usize & 1));
    let flags = ctl.get(1).copied().unwrap_or(0);
    let body = data.get(16..).unwrap_or(&[]);
    // RAM holds the data whole (32 MiB minus where it starts).
    let n = body.len().min(m.bus.ram.len() - DMA_DATA as usize);
    m.bus.ram[DMA_DATA as usize..DMA_DATA as usize + n].copy_from_slice(&body[..n]);
    let qwc = (n / 16).min(0xffff) as u32;
    let base = 0x1000_0000 + piney_machine::dmac::CHANNEL_BASE[ch];
    let w = |m: &mut Machine, a: u32, v: u32| -> Result<(), String> {
        m.bus.now = m.cpu.cycles;
        m.bus
            .write32(a, v)
            .map_err(|e| format!("DMA setup at {a:#010x}: {e:?}"))?;
        m.update_interrupt_lines();
        Ok(())
    };
    // D_CTRL.DMAE, then the channel: MADR, QWC, TADR, CHCR with STR and DIR (from memory).
    w(&mut m, 0x1000_e000, 1)?;
    let chain = flags & 1 != 0;
    let tte = ((flags >> 1) & 1) as u32;
    if chain {
        w(&mut m, base + 0x20, 0)?;
        w(&mut m, base + 0x30, DMA_DATA)?;
        w(&mut m, base, 0x100 | 1 | 1 << 2 | tte << 6)?;
    } else {
        w(&mut m, base + 0x10, DMA_DATA)?;
        w(&mut m, base + 0x20, qwc)?;
        w(&mut m, base, 0x100 | 1)?;
    }
    // Events until the channel is done (STR clear) or the time is up.
    let end = m.cpu.cycles + DMA_CYCLES;
    let mut r = Ok(());
    while m.cpu.cycles < end {
        let busy = m
            .bus
            .read32(base)
            .map_err(|e| format!("CHCR read: {e:?}"))?
            & 0x100
            != 0;
        if !busy {
            break;
        }
        let t = m.bus.sched.next_due().min(end);
        if let Err(e) = m.run_events_until(t) {
            r = Err(e.to_string());
            break;
        }
    }
    present(&mut m);
    r
}

/// GIF streams: the GIF channel (2), normal or chain.
pub const GIF_DMA: Target = Target {
    name: "gif_dma",
    about: "GIF packets sent by DMA channel 2 (normal or source chain), drawn by the software renderer, then a frame presented",
    format: Format {
        header: &[0, 1, 16, 20, 24, 28, 32, 40, 48],
        dictionary: &[],
        focus: 0,
        max_len: 256 << 10,
        fixup: None,
    },
    seeds: || files("crates/piney-fuzz/corpus/gif", &[".bin"]),
    run: |d, s| run_dma(d, s, Some(2)),
    ci_cases: 200,
};

/// VIF streams: VIF0 or VIF1 (with VU0/VU1 microprograms, UNPACK, DIRECT to the GIF...).
pub const VIF_DMA: Target = Target {
    name: "vif_dma",
    about: "VIF codes sent by DMA channel 0 or 1 (normal or source chain): VU microprograms run, GIF packets drawn, a frame presented",
    format: Format {
        header: &[0, 1, 16, 19, 20, 23, 24, 27, 28, 31, 32, 35],
        dictionary: &[],
        focus: 0,
        max_len: 256 << 10,
        fixup: None,
    },
    seeds: || files("crates/piney-fuzz/corpus/vif", &[".bin"]),
    run: |d, s| run_dma(d, s, None),
    ci_cases: 150,
};

/// The corpus folder of the DMA targets (for the corpus maker).
pub fn dma_corpus(kind: &str) -> std::path::PathBuf {
    corpus().join(kind)
}
