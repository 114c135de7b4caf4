//! DMAC: normal, chain and interleave transfers through toSPR/fromSPR, timing, interrupts and bad
//! data. Expected values follow the hardware rules (EE User's Manual, DMAC chapter), by hand.

mod dmac_support;

use dmac_support::*;
use piney_machine::MachineError;

const TO_SPR: usize = 9;
const FROM_SPR: usize = 8;

fn q(i: u32) -> u128 {
    qw([i, i + 1, i + 2, i + 3])
}

#[test]
fn normal_to_spr_takes_time_and_raises_cis() {
    let mut m = machine();
    for i in 0..4 {
        put_qw(&mut m, 0x1000 + 16 * i, q(0x100 * i));
    }
    w32(&mut m, chreg(TO_SPR, 0x80), 0x20);
    send_normal(&mut m, TO_SPR, 0x1000, 4);
    // Start latency 16 cycles, then 4 quadwords at 2 cycles each: STR clears at cycle 24.
    m.run_events_until(23).unwrap();
    assert_ne!(
        r32(&mut m, chreg(TO_SPR, 0)) & STR,
        0,
        "a polling program sees the transfer running"
    );
    assert_eq!(r32(&mut m, D_STAT) & (1 << 9), 0);
    m.run_events_until(24).unwrap();
    assert_eq!(r32(&mut m, chreg(TO_SPR, 0)) & STR, 0);
    assert_eq!(r32(&mut m, D_STAT) & 0x3ff, 1 << 9);
    assert_eq!(
        r32(&mut m, chreg(TO_SPR, 0x10)),
        0x1040,
        "MADR advanced by the data"
    );
    assert_eq!(r32(&mut m, chreg(TO_SPR, 0x20)), 0, "QWC counted down");
    assert_eq!(r32(&mut m, chreg(TO_SPR, 0x80)), 0x60, "SADR advanced");
    for i in 0..4 {
        assert_eq!(spr_qw(&m, 0x20 + 16 * i as usize), q(0x100 * i));
    }
}

#[test]
fn sadr_and_madr_masks() {
    let mut m = machine();
    // SADR keeps bits 4-13 only; fromSPR/toSPR MADR drops the SPR bit.
    w32(&mut m, chreg(TO_SPR, 0x80), 0x8123_4028);
    assert_eq!(r32(&mut m, chreg(TO_SPR, 0x80)), 0x20);
    w32(&mut m, chreg(TO_SPR, 0x10), 0x8000_1234);
    assert_eq!(r32(&mut m, chreg(TO_SPR, 0x10)), 0x1230);
    w32(&mut m, chreg(1, 0x10), 0x8000_1234);
    assert_eq!(r32(&mut m, chreg(1, 0x10)), 0x8000_1230);
    w32(&mut m, chreg(1, 0x20), 0x12_3456);
    assert_eq!(r32(&mut m, chreg(1, 0x20)), 0x3456);
}

#[test]
fn source_chain_every_tag_and_the_address_stack() {
    let mut m = machine();
    put_qw(&mut m, 0x2000, dtag(1, CNT, false, 0, 0));
    put_qw(&mut m, 0x2010, q(0xd0));
    put_qw(&mut m, 0x2020, dtag(1, NEXT, false, 0x2100, 0));
    put_qw(&mut m, 0x2030, q(0xd1));
    put_qw(&mut m, 0x2100, dtag(2, REF, false, 0x3000, 0));
    put_qw(&mut m, 0x3000, q(0xa0));
    put_qw(&mut m, 0x3010, q(0xa1));
    put_qw(&mut m, 0x2110, dtag(1, CALL, false, 0x2200, 0));
    put_qw(&mut m, 0x2120, q(0xd3));
    put_qw(&mut m, 0x2200, dtag(0, CALL, false, 0x2300, 0));
    put_qw(&mut m, 0x2300, dtag(1, RET, false, 0, 0));
    put_qw(&mut m, 0x2310, q(0xd5));
    put_qw(&mut m, 0x2210, dtag(0, RET, false, 0, 0));
    put_qw(&mut m, 0x2130, dtag(1, REFS, false, 0x3100, 0));
    put_qw(&mut m, 0x3100, q(0xb0));
    put_qw(&mut m, 0x2140, dtag(1, END, false, 0, 0));
    put_qw(&mut m, 0x2150, q(0xe0));
    w32(&mut m, chreg(TO_SPR, 0x80), 0);
    send_chain(&mut m, TO_SPR, 0x2000, 0);
    run_until_done(&mut m, TO_SPR, 100_000);
    let want = [0xd0, 0xd1, 0xa0, 0xa1, 0xd3, 0xd5, 0xb0, 0xe0];
    for (i, w) in want.iter().enumerate() {
        assert_eq!(spr_qw(&m, 16 * i), q(*w), "scratchpad quadword {i}");
    }
    assert_eq!(r32(&mut m, chreg(TO_SPR, 0x80)), 0x80);
    // END leaves TADR on itself; MADR is past its data; the stack is empty again.
    assert_eq!(r32(&mut m, chreg(TO_SPR, 0x30)), 0x2140);
    assert_eq!(r32(&mut m, chreg(TO_SPR, 0x10)), 0x2160);
    assert_eq!(
        r32(&mut m, chreg(TO_SPR, 0x40)),
        0x2130,
        "ASR0: return address of the first CALL"
    );
    assert_eq!(
        r32(&mut m, chreg(TO_SPR, 0x50)),
        0x2210,
        "ASR1: return address of the second CALL"
    );
    assert_eq!(
        r32(&mut m, chreg(TO_SPR, 0)),
        0x7000_0005,
        "CHCR: END tag bits, ASP 0, chain, DIR"
    );
}

#[test]
fn chain_timing_is_tag_then_data() {
    let mut m = machine();
    put_qw(&mut m, 0x2000, dtag(2, END, false, 0, 0));
    send_chain(&mut m, TO_SPR, 0x2000, 0);
    // 16 start + 8 tag + 2 x 2 data = 28.
    m.run_events_until(27).unwrap();
    assert_ne!(r32(&mut m, chreg(TO_SPR, 0)) & STR, 0);
    m.run_events_until(28).unwrap();
    assert_eq!(r32(&mut m, chreg(TO_SPR, 0)) & STR, 0);
}

#[test]
fn refe_and_zero_qwc() {
    let mut m = machine();
    m.bus.spr[..16].fill(0x55);
    put_qw(&mut m, 0x2000, dtag(0, REFE, false, 0x3000, 0));
    send_chain(&mut m, TO_SPR, 0x2000, 0);
    run_until_done(&mut m, TO_SPR, 10_000);
    assert_eq!(
        spr_qw(&m, 0),
        u128::from_le_bytes([0x55; 16]),
        "a zero-sized REFE moves nothing"
    );
    assert_eq!(
        r32(&mut m, chreg(TO_SPR, 0x30)),
        0x2010,
        "REFE advances TADR past itself"
    );
    assert_eq!(r32(&mut m, chreg(TO_SPR, 0x10)), 0x3000);
}

fn tag_irq(tie: bool, irq: bool) -> (u32, u32, u32) {
    let mut m = machine();
    put_qw(&mut m, 0x1000, q(7));
    put_qw(&mut m, 0x2000, dtag(1, REF, irq, 0x1000, 0));
    put_qw(&mut m, 0x2010, dtag(1, REF, false, 0x1000, 0));
    put_qw(&mut m, 0x2020, dtag(0, END, false, 0, 0));
    send_chain(&mut m, TO_SPR, 0x2000, if tie { 0x80 } else { 0 });
    run_until_done(&mut m, TO_SPR, 10_000);
    let chcr = r32(&mut m, chreg(TO_SPR, 0));
    (
        chcr & 0xffff_0000,
        r32(&mut m, chreg(TO_SPR, 0x30)) - 0x2000,
        r32(&mut m, D_STAT) & 0x3ff,
    )
}

#[test]
fn tie_with_tag_irq_stops_after_that_tag() {
    assert_eq!(tag_irq(true, true), (0xb000_0000, 0x10, 0x200));
    assert_eq!(tag_irq(true, false), (0x7000_0000, 0x20, 0x200));
    assert_eq!(tag_irq(false, true), (0x7000_0000, 0x20, 0x200));
    assert_eq!(tag_irq(false, false), (0x7000_0000, 0x20, 0x200));
}

#[test]
fn tte_sends_the_tag_to_spr() {
    let mut m = machine();
    let t = dtag(1, END, false, 0, 0xdead_beef_1234_5678);
    put_qw(&mut m, 0x2000, t);
    put_qw(&mut m, 0x2010, q(9));
    send_chain(&mut m, TO_SPR, 0x2000, 0x40);
    run_until_done(&mut m, TO_SPR, 10_000);
    assert_eq!(spr_qw(&m, 0), t);
    assert_eq!(spr_qw(&m, 16), q(9));
}

#[test]
fn interleave_skips_in_memory() {
    let mut m = machine();
    for i in 0..8 {
        put_qw(&mut m, 0x1000 + 16 * i, q(i * 4));
    }
    // TQWC 1, SQWC 1: quadwords 0, 2, 4 are sent; MADR also skips after the last slice.
    w32(&mut m, D_SQWC, 1 << 16 | 1);
    w32(&mut m, D_CTRL, 1);
    w32(&mut m, chreg(TO_SPR, 0x10), 0x1000);
    w32(&mut m, chreg(TO_SPR, 0x20), 3);
    w32(&mut m, chreg(TO_SPR, 0), STR | 1 | 2 << 2);
    run_until_done(&mut m, TO_SPR, 10_000);
    assert_eq!(r32(&mut m, chreg(TO_SPR, 0x10)), 0x1060);
    assert_eq!(
        [spr_qw(&m, 0), spr_qw(&m, 16), spr_qw(&m, 32)],
        [q(0), q(8), q(16)]
    );
}

#[test]
fn from_spr_destination_chain() {
    let mut m = machine();
    let tags = [
        dtag(1, 0, false, 0x4000, 0),
        q(0xa),
        dtag(2, 7, false, 0x5000, 0),
        q(0xb),
        q(0xc),
    ];
    for (i, t) in tags.iter().enumerate() {
        m.bus.spr[16 * i..16 * i + 16].copy_from_slice(&t.to_le_bytes());
    }
    w32(&mut m, D_CTRL, 1);
    w32(&mut m, chreg(FROM_SPR, 0x80), 0);
    w32(&mut m, chreg(FROM_SPR, 0x20), 0);
    w32(&mut m, chreg(FROM_SPR, 0), STR | 1 << 2);
    run_until_done(&mut m, FROM_SPR, 10_000);
    let rd = |m: &piney_machine::Machine, a: usize| {
        u128::from_le_bytes(m.bus.ram[a..a + 16].try_into().unwrap())
    };
    assert_eq!(rd(&m, 0x4000), q(0xa));
    assert_eq!(rd(&m, 0x5000), q(0xb));
    assert_eq!(rd(&m, 0x5010), q(0xc));
    assert_eq!(r32(&mut m, chreg(FROM_SPR, 0x80)), 0x50);
    assert_eq!(r32(&mut m, chreg(FROM_SPR, 0)) >> 16, 0x7000);
}

#[test]
fn channel_interrupt_mask_cpcond_and_stat_writes() {
    let mut m = machine();
    // CIM9 toggles on by writing 1 to it; CPC9 selects channel 9 for CPCOND0.
    w32(&mut m, D_STAT, 1 << 25);
    w32(&mut m, D_PCR, 1 << 9);
    assert!(!m.cpu.cop0.cpcond0);
    send_normal(&mut m, TO_SPR, 0x1000, 1);
    assert!(!m.bus.dmac_irq_pending());
    run_until_done(&mut m, TO_SPR, 1000);
    assert!(
        m.bus.dmac_irq_pending(),
        "CIS9 & CIM9 assert the DMAC interrupt"
    );
    assert!(m.cpu.cop0.cpcond0, "CPCOND0: every CPC channel has CIS");
    assert_eq!(r32(&mut m, D_STAT), 1 << 25 | 1 << 9);
    w32(&mut m, D_STAT, 1 << 9);
    assert!(!m.bus.dmac_irq_pending());
    assert!(!m.cpu.cop0.cpcond0);
    assert_eq!(r32(&mut m, D_STAT), 1 << 25);
    // A masked CIS still latches.
    w32(&mut m, D_STAT, 1 << 25);
    send_normal(&mut m, TO_SPR, 0x1000, 1);
    run_until_done(&mut m, TO_SPR, 1000);
    assert_eq!(r32(&mut m, D_STAT), 1 << 9);
    assert!(!m.bus.dmac_irq_pending());
}

#[test]
fn dmae_off_and_cpnd_hold_the_channel() {
    let mut m = machine();
    w32(&mut m, 0x1000_f590, 1 << 16);
    assert_eq!(
        r32(&mut m, 0x1000_f520),
        1 << 16,
        "D_ENABLER reads D_ENABLEW"
    );
    send_normal(&mut m, TO_SPR, 0x1000, 1);
    m.run_events_until(5000).unwrap();
    assert_ne!(
        r32(&mut m, chreg(TO_SPR, 0)) & STR,
        0,
        "CPND suspends the DMAC"
    );
    w32(&mut m, 0x1000_f590, 0);
    run_until_done(&mut m, TO_SPR, 1000);
}

#[test]
fn tag_outside_memory_is_reported() {
    let mut m = machine();
    send_chain(&mut m, TO_SPR, 0x0400_0000, 0);
    let e = m.run_events_until(1000).unwrap_err();
    match e {
        MachineError::Dma {
            channel, tag_addr, ..
        } => assert_eq!((channel, tag_addr), (9, 0x0400_0000)),
        e => panic!("unexpected {e}"),
    }
    assert_ne!(r32(&mut m, D_STAT) & (1 << 15), 0, "BEIS");
    assert_eq!(r32(&mut m, chreg(TO_SPR, 0)) & STR, 0);
    assert!(m.bus.dmac_irq_pending(), "BEIS always interrupts");
}

#[test]
fn ref_outside_memory_is_reported() {
    let mut m = machine();
    put_qw(&mut m, 0x2000, dtag(1, REF, false, 0x1800_0000, 0));
    send_chain(&mut m, TO_SPR, 0x2000, 0);
    let e = m.run_events_until(1000).unwrap_err().to_string();
    assert!(
        e.contains("DMA channel 9") && e.contains("0x18000000") && e.contains("0x00002000"),
        "{e}"
    );
}

#[test]
fn runaway_chain_is_bounded() {
    let mut m = machine();
    // A NEXT tag that points at itself never ends.
    put_qw(&mut m, 0x2000, dtag(0, NEXT, false, 0x2000, 0));
    send_chain(&mut m, TO_SPR, 0x2000, 0);
    let e = m.run_events_until(u64::MAX / 4).unwrap_err().to_string();
    assert!(
        e.contains("runaway chain") && e.contains("0x00002000"),
        "{e}"
    );
}

#[test]
fn call_with_full_stack_is_reported() {
    let mut m = machine();
    put_qw(&mut m, 0x2000, dtag(0, CALL, false, 0x2010, 0));
    put_qw(&mut m, 0x2010, dtag(0, CALL, false, 0x2020, 0));
    put_qw(&mut m, 0x2020, dtag(0, CALL, false, 0x2030, 0));
    send_chain(&mut m, TO_SPR, 0x2000, 0);
    let e = m.run_events_until(10_000).unwrap_err().to_string();
    assert!(
        e.contains("address stack") && e.contains("0x00002020"),
        "{e}"
    );
}

/// toIPU (channel 4) fills the IPU's input: its 2-quadword bit-stream buffer (IPU_BP.FP, bits
/// 16-17), then the 8-quadword FIFO (IPU_CTRL.IFC, bits 0-3), and waits while both are full.
/// fromIPU (channel 3) has no chain mode: asked for one, the run stops naming the channel.
#[test]
fn ipu_channels_fill_the_fifo_and_refuse_a_from_ipu_chain() {
    const IPU_CTRL: u32 = 0x1000_2010;
    const IPU_BP: u32 = 0x1000_2020;
    let mut m = machine();
    send_normal(&mut m, 4, 0x1000, 3);
    run_until_done(&mut m, 4, 5000);
    assert_eq!(r32(&mut m, IPU_BP) >> 16 & 3, 2);
    assert_eq!(r32(&mut m, IPU_CTRL) & 0xf, 1);
    send_normal(&mut m, 4, 0x1000, 12);
    m.run_events_until(20_000).unwrap();
    assert_eq!(r32(&mut m, IPU_CTRL) & 0xf, 8, "the FIFO is full");
    assert_ne!(r32(&mut m, chreg(4, 0)) & STR, 0, "toIPU waits for room");
    let mut m = machine();
    send_chain(&mut m, 3, 0x1000, 0);
    let e = m.run_events_until(1000).unwrap_err().to_string();
    assert!(e.contains("DMA channel 3"), "{e}");
}

#[test]
fn pcr_pce_gates_channels_by_cde() {
    let mut m = machine();
    // PCE with only CDE8: channel 9 may not run.
    w32(&mut m, D_PCR, 1 << 31 | 1 << 24);
    send_normal(&mut m, TO_SPR, 0x1000, 1);
    m.run_events_until(5000).unwrap();
    assert_ne!(r32(&mut m, chreg(TO_SPR, 0)) & STR, 0);
    w32(&mut m, D_PCR, 1 << 31 | 1 << 25);
    run_until_done(&mut m, TO_SPR, 1000);
}
