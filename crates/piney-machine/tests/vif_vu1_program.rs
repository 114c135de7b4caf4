//! A whole VIF1 path with the real VU1 interpreter: MPG uploads a microprogram, UNPACK puts a GIF
//! packet in VU1 data memory, MSCAL runs it, XGKICK sends the packet down PATH1, and the VU's
//! stores land in the bus's VU memory. Expected GS writes derived by hand.

mod dmac_support;

use dmac_support::*;
use piney_ee::Bus;
use piney_machine::Machine;
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

/// GIF_STAT's PATH1 bits: (P1Q bit 8, APATH bits 10-11).
fn p1q_apath(m: &mut Machine) -> (u32, u32) {
    let s = r32(m, 0x1000_3020);
    ((s >> 8) & 1, (s >> 10) & 3)
}

/// XGKICK timing: VU1 runs its microprogram at once, but each XGKICKed packet reaches PATH1 at
/// the XGKICK's cycle (the run's start + the VU cycles before it; VU1 runs at the EE clock), and
/// then crosses at 2 EE cycles a qword. The program kicks packet A at its first pair (VU cycle
/// 0), runs a loop of 100 four-pair iterations (VU cycles 3..402), kicks packet B at VU cycle
/// 403, and ends after the E bit's delay slot (406 cycles). Started by a VIF1 MSCAL at EE cycle
/// 1000: A (2 qwords) is requested at 1000 and has crossed at 1004; B is requested at 1403 and
/// has crossed at 1407. A FLUSH after the MSCAL waits for both (VU1's end and PATH1 idle).
#[test]
fn each_xgkick_reaches_path1_at_its_own_cycle() {
    let (mut m, h) = machine_rec();
    let prog = piney_vu::assemble(
        "nop xgkick vi00\n\
         nop iaddiu vi02, vi00, 2\n\
         nop iaddiu vi01, vi00, 100\n\
         loop: nop isubiu vi01, vi01, 1\n\
         nop nop\n\
         nop ibne vi01, vi00, loop\n\
         nop nop\n\
         nop xgkick vi02\n\
         nop[e] nop\n\
         nop nop\n",
    )
    .unwrap();
    for (i, p) in prog.iter().enumerate() {
        m.bus.vu_mem[0x8000 + 8 * i..0x8008 + 8 * i].copy_from_slice(&p.to_le_bytes());
    }
    let a_d = |reg: u128, v: u128| v | reg << 64;
    let packets = [
        giftag(1, true, None, 0, &[0xe]),
        a_d(0x4c, 5),
        giftag(1, true, None, 0, &[0xe]),
        a_d(0x4d, 7),
    ];
    for (i, q) in packets.iter().enumerate() {
        m.bus.vu_mem[0xc000 + 16 * i..0xc010 + 16 * i].copy_from_slice(&q.to_le_bytes());
    }
    m.run_events_until(1000).unwrap();
    assert_eq!(p1q_apath(&mut m), (0, 0));
    // MSCAL 0, FLUSH, MARK 9 through VIF1's FIFO at cycle 1000.
    m.bus.now = m.cpu.cycles;
    let codes = qw([
        vifcode(0x14, 0, 0),
        vifcode(0x11, 0, 0),
        vifcode(0x07, 0, 9),
        0,
    ]);
    m.bus.write128(0x1000_5000, codes).unwrap();
    assert_eq!(m.bus.vu1_busy_until(), 1406, "406 VU cycles from 1000");
    assert_eq!(
        p1q_apath(&mut m),
        (1, 1),
        "packet A asked for the GIF at 1000"
    );
    assert!(h.lock().unwrap().is_empty(), "nothing has crossed yet");
    m.run_events_until(1003).unwrap();
    assert!(h.lock().unwrap().is_empty());
    m.run_events_until(1004).unwrap();
    assert_eq!(*h.lock().unwrap(), vec![Reg(0x4c, 5)], "A crossed at 1004");
    assert_eq!(p1q_apath(&mut m), (0, 0), "PATH1 idle between the kicks");
    m.run_events_until(1402).unwrap();
    assert_eq!(
        h.lock().unwrap().len(),
        1,
        "B is not sent before its XGKICK"
    );
    assert_eq!(p1q_apath(&mut m), (0, 0), "B has not asked for the GIF");
    assert_eq!(r32(&mut m, 0x1000_3c30), 0, "FLUSH still waits");
    m.run_events_until(1403).unwrap();
    assert_eq!(p1q_apath(&mut m), (1, 1), "B asks for the GIF at 1403");
    m.run_events_until(1406).unwrap();
    assert_eq!(h.lock().unwrap().len(), 1);
    assert_eq!(r32(&mut m, 0x1000_3c30), 0, "FLUSH waits for PATH1 too");
    m.run_events_until(1407).unwrap();
    assert_eq!(
        *h.lock().unwrap(),
        vec![Reg(0x4c, 5), Reg(0x4d, 7)],
        "B crossed at 1407"
    );
    assert_eq!(p1q_apath(&mut m), (0, 0));
    m.run_events_until(2000).unwrap();
    assert_eq!(r32(&mut m, 0x1000_3c30), 9, "FLUSH done, MARK executed");
}
