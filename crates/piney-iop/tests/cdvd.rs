//! The CD/DVD drive with tests/iop/cdvd.irx (cdvdman's library and the cdrom device, from an
//! IOP module) on a disc genisoimage makes at test time, as a DVD, a CD and a dual-layer DVD;
//! and the drive's answers without a disc, with a garbage disc, with `--fast-cdvd`.

mod cdvd_support;

use std::path::PathBuf;

use piney_iop::disc::{Disc, Media, MemoryDisc};
use piney_iop::{IOP_CLOCK_HZ, Iop};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn expected() -> String {
    std::fs::read_to_string(root().join("tests/iop/cdvd.stdout")).unwrap()
}

/// Run tests/iop/cdvd.irx with `disc` in the drive; the output.
fn run_module(disc: Option<MemoryDisc>, sectors: u64) -> String {
    let mut iop = Iop::new();
    iop.insert_disc(disc.map(|d| Box::new(d) as Box<dyn Disc>));
    let image = std::fs::read(root().join("tests/iop/cdvd.irx")).unwrap();
    iop.queue_module("cdvd", image, sectors.to_string().as_bytes());
    let done = iop
        .run_bare(30 * IOP_CLOCK_HZ)
        .unwrap_or_else(|e| panic!("cdvd: {e}"));
    let out = String::from_utf8_lossy(&iop.take_output()).into_owned();
    assert!(
        done,
        "cdvd did not finish within 30 emulated seconds; output: {out}"
    );
    out
}

#[test]
fn a_module_reads_a_dvd() {
    let data = cdvd_support::make_iso("dvd");
    let n = (data.len() / 2048) as u64;
    let disc = MemoryDisc {
        data,
        media: Media::Dvd { layer1_start: None },
    };
    assert_eq!(run_module(Some(disc), n), expected());
}

#[test]
fn a_module_reads_a_cd() {
    let data = cdvd_support::make_iso("cd");
    let n = (data.len() / 2048) as u64;
    let disc = MemoryDisc {
        data,
        media: Media::Cd,
    };
    // The same, as a CD (SCECdPS2CD, 0x12), the CD's timing in the module's expectations.
    let want = expected().replace("disk type 0x14", "disk type 0x12");
    assert_eq!(run_module(Some(disc), n), want);
}

#[test]
fn a_dual_layer_dvd_has_its_second_layer() {
    // The image twice: layer 1 starts where the first copy ends, and holds the same files.
    let one = cdvd_support::make_iso("dual");
    let l1 = (one.len() / 2048) as u64;
    let mut data = one.clone();
    data.extend_from_slice(&one);
    let disc = MemoryDisc {
        data,
        media: Media::Dvd {
            layer1_start: Some(l1),
        },
    };
    let want = expected()
        .replace(
            "dual info 1: on_dual 0 layer1 0",
            &format!("dual info 1: on_dual 1 layer1 {l1}"),
        )
        .replace(
            "layer 1 search -> 0, callbacks so far 0",
            "layer 1 search -> 1, callbacks so far 0",
        );
    // The module's sector count is layer 0's: its end-of-disc reads then fall inside layer 1
    // and are whole; it is given the whole disc's count instead.
    assert_eq!(run_module(Some(disc), 2 * l1), want);
}

#[test]
fn fast_cdvd_takes_no_drive_time() {
    let data = cdvd_support::make_iso("fast");
    let n = (data.len() / 2048) as u64;
    let mut iop = Iop::new();
    iop.cdvd.fast = true;
    iop.insert_disc(Some(Box::new(MemoryDisc {
        data,
        media: Media::Dvd { layer1_start: None },
    })));
    let image = std::fs::read(root().join("tests/iop/cdvd.irx")).unwrap();
    iop.queue_module("cdvd", image, n.to_string().as_bytes());
    assert!(iop.run_bare(30 * IOP_CLOCK_HZ).unwrap());
    let out = String::from_utf8_lossy(&iop.take_output()).into_owned();
    // Every timed read took the fixed 1000 cycles (and the calls' own few), not the model's.
    let timed: Vec<&str> = out.lines().filter(|l| l.contains(", time ")).collect();
    assert_eq!(timed.len(), 5, "{out}");
    assert!(
        out.contains(", stat 48\nstream: 100 ms later"),
        "the ring full right after the blocking read: {out}"
    );
    for l in &timed {
        let took: u32 = l
            .split("time ")
            .nth(1)
            .and_then(|t| t.split(',').next())
            .and_then(|t| t.parse().ok())
            .unwrap_or_else(|| panic!("no time in {l:?}"));
        assert!((1000..1200).contains(&took), "{l}");
    }
    // The rest is as the drive with its timing answers it, but for what depends on a command
    // taking time: no seek to see while busy (the status says reading), a 64-sector read done
    // before the module looks at its position, and the read the module breaks 1 ms after its
    // start long done (the break's SCECdErABRT stays; the callback was the read's), and a
    // stream whose drive reads a sector a cycle (more banks full right after a read).
    assert!(out.contains("status 0x6\nafter:"), "{out}");
    assert!(
        out.contains("read pos part-way: outside, status 0xa\n"),
        "{out}"
    );
    assert!(
        out.contains("break 1, the read 1 ends: error 0x1, callback 1\n"),
        "{out}"
    );
    let same = |s: &str| -> Vec<String> {
        s.lines()
            .filter(|l| {
                !l.contains(", time ")
                    && !["polled read", "busy:", "read pos part-way", "break"]
                        .iter()
                        .any(|p| l.starts_with(p))
            })
            .map(str::to_string)
            .collect()
    };
    assert_eq!(same(&out), same(&expected()));
}

#[test]
fn a_module_loads_from_the_disc() {
    let mut iop = Iop::new();
    iop.insert_disc(Some(Box::new(MemoryDisc {
        data: cdvd_support::make_iso("load"),
        media: Media::Dvd { layer1_start: None },
    })));
    let id = iop.load_path("cdrom0:\\MODULES\\COMPUTE.IRX;1");
    assert!(id > 0, "{id}");
    // Names as the disc has them: KE_NOFILE otherwise.
    assert_eq!(iop.load_path("cdrom0:\\modules\\compute.irx;1"), -203);
    iop.insert_disc(None);
    assert_eq!(iop.load_path("cdrom0:\\MODULES\\COMPUTE.IRX;1"), -203);
}
