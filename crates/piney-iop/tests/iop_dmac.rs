//! dmacman and the boot modules where a run goes further than a module's own output shows: a
//! channel started with a device behind it (SIF0) moves its data, one without (the CDVD, not
//! emulated yet) stops the run with an error naming it, whether dmacman or the module itself
//! started it; secrman's card authentication stops the run naming the function.

use piney_iop::{Iop, IopError};
use std::path::PathBuf;

fn image(name: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../../tests/iop/{name}.irx"));
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Run module `name` with argument `arg` on a bare IOP.
fn run(name: &str, arg: &str) -> (Iop, Result<bool, IopError>) {
    let mut iop = Iop::new();
    let mut args = arg.as_bytes().to_vec();
    args.push(0);
    iop.queue_module(name, image(name), &args);
    let r = iop.run_bare(piney_iop::IOP_CLOCK_HZ);
    (iop, r)
}

#[test]
fn a_cdvd_transfer_is_an_error_naming_the_channel() {
    for arg in ["cdvd", "write"] {
        let (mut iop, r) = run("dmac", arg);
        let e = r.expect_err("channel 3 has no device").to_string();
        assert!(
            e.contains("DMA channel 3 (CDVD) started") && e.contains("no CDVD device"),
            "{arg}: {e}"
        );
        assert!(e.contains("in module dmac"), "{arg}: names the module: {e}");
        let out = String::from_utf8_lossy(&iop.take_output()).into_owned();
        assert!(!out.contains("channel 3 ran"), "{arg}: {out}");
    }
}

#[test]
fn a_sif0_chain_started_through_dmacman_reaches_the_fifo() {
    let (mut iop, r) = run("dmac", "sif0");
    assert!(r.unwrap(), "the module finished");
    let out = String::from_utf8_lossy(&iop.take_output()).into_owned();
    assert!(
        out.contains("dmac: dmac_set_dma_sif0 -> 1\ndmac: SIF0 started\n"),
        "{out}"
    );
    // The EE's tag (with its two padding words), then the block's four words.
    let fifo: Vec<u32> = iop.bus.hw.sif.fifo0.iter().copied().collect();
    assert_eq!(
        fifo,
        [
            0x1000_0001,
            0x0010_0000,
            0,
            0,
            0x1111_1111,
            0x2222_2222,
            0x3333_3333,
            0x4444_4444
        ]
    );
    assert_eq!(
        iop.bus.hw.dmac.ch[9].chcr & 0x0100_0000,
        0,
        "the channel finished"
    );
}

#[test]
fn secrman_card_authentication_is_an_error_naming_it() {
    let (_, r) = run("bootmods", "auth");
    let e = r.expect_err("SecrAuthCard needs the card").to_string();
    assert!(e.contains("secrman's SecrAuthCard"), "{e}");
}
