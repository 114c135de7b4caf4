//! MFIFO (fromSPR fills a ring in RAM, the GIF channel drains it) and stall control (fromSPR as
//! the source, the GIF channel as the drain). Expected values by hand from the DMAC rules.

mod dmac_support;

use dmac_support::*;
use piney_machine::gif::GsWrite::Reg;

const FROM_SPR: usize = 8;
const GIF: usize = 2;

fn ad(reg: u8, v: u64) -> u128 {
    v as u128 | (reg as u128) << 64
}

#[test]
fn mfifo_ring_filled_by_spr_drained_by_gif() {
    let (mut m, h) = machine_rec();
    let ring = 0x10_0000;
    // MFD = 3 (GIF drains), a 4 KiB ring.
    w32(&mut m, D_CTRL, 1 | 3 << 2);
    w32(&mut m, D_RBOR, ring);
    w32(&mut m, D_RBSR, 0xff0);
    w32(&mut m, chreg(FROM_SPR, 0x10), ring);
    // The drain starts first: the ring is empty, so it waits and D_STAT.MEIS is set.
    w32(&mut m, chreg(GIF, 0x20), 0);
    w32(&mut m, chreg(GIF, 0x30), ring);
    w32(&mut m, chreg(GIF, 0), STR | 1 | 1 << 2);
    m.run_events_until(2000).unwrap();
    assert_ne!(r32(&mut m, D_STAT) & (1 << 14), 0, "MEIS");
    assert!(h.lock().unwrap().is_empty());
    // fromSPR copies a DMAtag and a GIF packet into the ring.
    let items = [
        dtag(2, END, false, 0, 0),
        giftag(1, true, None, 0, &[0xe]),
        ad(0x4c, 0x1234),
    ];
    for (i, t) in items.iter().enumerate() {
        m.bus.spr[16 * i..16 * i + 16].copy_from_slice(&t.to_le_bytes());
    }
    w32(&mut m, chreg(FROM_SPR, 0x80), 0);
    w32(&mut m, chreg(FROM_SPR, 0x20), 3);
    w32(&mut m, chreg(FROM_SPR, 0), STR);
    run_until_done(&mut m, FROM_SPR, 10_000);
    run_until_done(&mut m, GIF, 10_000);
    assert_eq!(*h.lock().unwrap(), vec![Reg(0x4c, 0x1234)]);
    assert_eq!(r32(&mut m, chreg(FROM_SPR, 0x10)), ring + 0x30);
    assert_eq!(
        r32(&mut m, chreg(GIF, 0x10)),
        ring + 0x30,
        "the drain's MADR is past the data in the ring"
    );
}

#[test]
fn mfifo_ring_wraps() {
    let mut m = machine();
    let ring = 0x10_0000;
    w32(&mut m, D_CTRL, 1 | 2 << 2);
    w32(&mut m, D_RBOR, ring);
    w32(&mut m, D_RBSR, 0x1f0);
    // fromSPR's MADR near the end of the 512-byte ring: the second quadword wraps to the start.
    w32(&mut m, chreg(FROM_SPR, 0x10), ring + 0x1f0);
    m.bus.spr[..16].copy_from_slice(&[1; 16]);
    m.bus.spr[16..32].copy_from_slice(&[2; 16]);
    w32(&mut m, chreg(FROM_SPR, 0x80), 0);
    w32(&mut m, chreg(FROM_SPR, 0x20), 2);
    w32(&mut m, chreg(FROM_SPR, 0), STR);
    run_until_done(&mut m, FROM_SPR, 10_000);
    assert_eq!(m.bus.ram[ring as usize + 0x1f0], 1);
    assert_eq!(m.bus.ram[ring as usize], 2);
    assert_eq!(r32(&mut m, chreg(FROM_SPR, 0x10)), ring + 0x10);
}

#[test]
fn stall_control_holds_the_drain_at_stadr() {
    let (mut m, h) = machine_rec();
    // STS = fromSPR (2), STD = GIF (2).
    w32(&mut m, D_CTRL, 1 | 2 << 4 | 2 << 6);
    w32(&mut m, D_STADR, 0x6000);
    w32(&mut m, chreg(GIF, 0x10), 0x6000);
    w32(&mut m, chreg(GIF, 0x20), 2);
    w32(&mut m, chreg(GIF, 0), STR | 1);
    m.run_events_until(2000).unwrap();
    assert_ne!(
        r32(&mut m, D_STAT) & (1 << 13),
        0,
        "SIS: the drain reached D_STADR"
    );
    assert_eq!(r32(&mut m, chreg(GIF, 0x20)), 2);
    m.bus.spr[..16].copy_from_slice(&giftag(1, true, None, 0, &[0xe]).to_le_bytes());
    m.bus.spr[16..32].copy_from_slice(&ad(0x4c, 5).to_le_bytes());
    w32(&mut m, chreg(FROM_SPR, 0x80), 0);
    w32(&mut m, chreg(FROM_SPR, 0x10), 0x6000);
    w32(&mut m, chreg(FROM_SPR, 0x20), 2);
    w32(&mut m, chreg(FROM_SPR, 0), STR);
    run_until_done(&mut m, FROM_SPR, 10_000);
    assert_eq!(r32(&mut m, D_STADR), 0x6020, "D_STADR follows fromSPR");
    run_until_done(&mut m, GIF, 10_000);
    assert_eq!(*h.lock().unwrap(), vec![Reg(0x4c, 5)]);
}
