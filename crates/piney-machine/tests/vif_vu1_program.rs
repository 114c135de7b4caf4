//! A whole VIF1 path with the real VU1 interpreter: MPG uploads a microprogram, UNPACK puts a GIF
//! packet in VU1 data memory, MSCAL runs it, XGKICK sends the packet down PATH1, and the VU's
//! stores land in the bus's VU memory. Expected GS writes derived by hand.

mod dmac_support;

use dmac_support::*;
use piney_machine::gif::GsWrite::Reg;

fn words_of(q: u128) -> [u32; 4] {
    [
        q as u32,
        (q >> 32) as u32,
        (q >> 64) as u32,
        (q >> 96) as u32,
    ]
}

#[test]
fn mpg_unpack_mscal_xgkick() {
    let (mut m, h) = machine_rec();
    let prog = piney_vu::assemble(
        "nop    iaddiu vi01, vi00, 16\n\
         nop    xgkick vi01\n\
         nop    iaddiu vi02, vi00, 0x77\n\
         nop    isw.x vi02, 5(vi00)\n\
         nop    xtop vi03\n\
         nop    isw.y vi03, 5(vi00)\n\
         nop[e] nop\n\
         nop    nop\n",
    )
    .unwrap();
    let mut w = vec![vifcode(0x4a, prog.len() as u32, 0)];
    for p in &prog {
        w.push(*p as u32);
        w.push((*p >> 32) as u32);
    }
    // The packet: PRIM via PRE, then RGBAQ and XYZ2 in PACKED mode.
    let packet = [
        giftag(1, true, Some(0x6), 0, &[0x1, 0x5]),
        qw([0x10, 0x20, 0x30, 0x80]),
        qw([0x100, 0x200, 0x12345, 0]),
    ];
    w.push(vifcode(0x01, 0, 0x0101));
    w.push(vifcode(0x03, 0, 0x40));
    w.push(vifcode(0x02, 0, 0x20));
    w.push(vifcode(0x60 | 0x0c, 3, 16));
    for q in packet {
        w.extend(words_of(q));
    }
    w.push(vifcode(0x14, 0, 0));
    while !w.len().is_multiple_of(4) {
        w.push(0);
    }
    put_words(&mut m, 0x1000, &w);
    send_normal(&mut m, 1, 0x1000, (w.len() / 4) as u32);
    run_until_done(&mut m, 1, 100_000);
    assert_eq!(
        *h.lock().unwrap(),
        vec![
            Reg(0x00, 0x6),
            Reg(0x01, 0x3f80_0000_8030_2010),
            Reg(0x05, 0x0001_2345_0200_0100)
        ]
    );
    assert_eq!(
        vu_word(&m, 0xc000 + 5 * 16),
        0x77,
        "the VU's ISW reached the bus's VU1 data memory"
    );
    assert_eq!(
        vu_word(&m, 0xc000 + 5 * 16 + 4),
        0x40,
        "XTOP reads VIF1 TOP (TOPS = BASE at the first MSCAL)"
    );
}

#[test]
fn vu1_start_from_outside_the_vif() {
    let (mut m, h) = machine_rec();
    let prog = piney_vu::assemble("nop xgkick vi00\nnop[e] nop\nnop nop\n").unwrap();
    for (i, p) in prog.iter().enumerate() {
        m.bus.vu_mem[0x8000 + 8 * i..0x8008 + 8 * i].copy_from_slice(&p.to_le_bytes());
    }
    let pk = [giftag(1, true, None, 0, &[0xe]), 0x5u128 | 0x4cu128 << 64];
    for (i, q) in pk.iter().enumerate() {
        m.bus.vu_mem[0xc000 + 16 * i..0xc010 + 16 * i].copy_from_slice(&q.to_le_bytes());
    }
    m.bus.vu1_start(0).unwrap();
    assert!(m.bus.vu1_busy(), "the VU1 run takes time");
    // The PATH1 transfer takes time too: nothing has crossed the GIF yet.
    assert!(h.lock().unwrap().is_empty());
    m.run_events_until(1000).unwrap();
    assert_eq!(*h.lock().unwrap(), vec![Reg(0x4c, 5)]);
    assert!(!m.bus.vu1_busy());
}
