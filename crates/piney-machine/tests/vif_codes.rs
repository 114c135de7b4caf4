//! VIF0/VIF1: UNPACK formats, cycle skipping/filling, masks and modes, MPG, double buffering with
//! MSCAL, the i-bit stall, errors, registers, DIRECT and XGKICK. Expected values derived by hand from
//! the EE User's Manual's VIF chapter.

mod dmac_support;

use dmac_support::*;
use piney_ee::Bus;
use piney_machine::Machine;
use piney_machine::gif::GsWrite::Reg;

const VIF1_DATA: usize = 0xc000;

/// Put `words` (padded to quadwords) at `addr` and send them to VIF `unit` in normal mode.
fn send_words(m: &mut Machine, unit: usize, addr: u32, words: &[u32]) {
    let mut w = words.to_vec();
    while !w.len().is_multiple_of(4) {
        w.push(0);
    }
    put_words(m, addr, &w);
    send_normal(m, unit, addr, (w.len() / 4) as u32);
}

fn vu1(m: &Machine, qaddr: usize) -> [u32; 4] {
    let o = VIF1_DATA + qaddr * 16;
    [
        vu_word(m, o),
        vu_word(m, o + 4),
        vu_word(m, o + 8),
        vu_word(m, o + 12),
    ]
}

const STCYCL: u32 = 0x01;
const UNPACK: u32 = 0x60;
const S: u32 = 0;
const V2: u32 = 1 << 2;
const V3: u32 = 2 << 2;
const V4: u32 = 3 << 2;
const B32: u32 = 0;
const B16: u32 = 1;
const B8: u32 = 2;
const USN: u32 = 0x4000;

#[test]
fn unpack_formats_and_extension() {
    let mut m = machine();
    m.bus.vu_mem[VIF1_DATA + 3 * 16 + 12..VIF1_DATA + 3 * 16 + 16].copy_from_slice(&[0x77; 4]);
    let words = [
        vifcode(STCYCL, 0, 0x0101),
        vifcode(UNPACK | S | B8, 1, 0),
        0x88,
        vifcode(UNPACK | S | B8, 1, 1 | USN),
        0x88,
        vifcode(UNPACK | V2 | B16, 1, 2),
        0x9999_8888,
        vifcode(UNPACK | V3 | B8, 1, 3 | USN),
        0xbbaa_9988,
        vifcode(UNPACK | V4 | 3, 2, 4),
        0x0421_ffff,
        vifcode(UNPACK | V4 | B32, 1, 6),
        1,
        2,
        3,
        4,
        vifcode(UNPACK | V4 | B16, 1, 7),
        0x8000_7fff,
        0x0001_ffff,
    ];
    send_words(&mut m, 1, 0x1000, &words);
    run_until_done(&mut m, 1, 10_000);
    assert_eq!(vu1(&m, 0), [0xffff_ff88; 4]);
    assert_eq!(vu1(&m, 1), [0x88; 4]);
    assert_eq!(
        vu1(&m, 2),
        [0xffff_8888, 0xffff_9999, 0xffff_8888, 0xffff_9999]
    );
    assert_eq!(
        vu1(&m, 3),
        [0x88, 0x99, 0xaa, 0xbb],
        "V3's W: the next bits of the stream"
    );
    assert_eq!(vu1(&m, 4), [0xf8, 0xf8, 0xf8, 0x80]);
    assert_eq!(vu1(&m, 5), [8, 8, 8, 0]);
    assert_eq!(vu1(&m, 6), [1, 2, 3, 4]);
    assert_eq!(vu1(&m, 7), [0x7fff, 0xffff_8000, 0xffff_ffff, 1]);
    assert_eq!(r32(&mut m, 0x1000_3c40), 0x0101, "CYCLE");
}

/// The x field of quadwords 0..16 after a masked (all columns) V4-32 UNPACK of 8 writes.
fn cycle_pattern(cl: u32, wl: u32) -> String {
    let mut m = machine();
    let mut words = vec![
        vifcode(STCYCL, 0, wl << 8 | cl),
        vifcode(0x20, 0, 0),
        0xaaaa_aaaa,
        vifcode(0x31, 0, 0),
        1,
        2,
        3,
        4,
        vifcode(UNPACK | 0x10 | V4, 8, 0),
    ];
    words.extend(0..32);
    send_words(&mut m, 0, 0x1000, &words);
    run_until_done(&mut m, 0, 10_000);
    (0..16)
        .map(|q| format!("{:x}", vu_word(&m, 0x4000 + q * 16)))
        .collect()
}

#[test]
fn cycle_skipping_and_filling() {
    // Rows (cycle positions, at most 3) pick the column register; skipped quadwords stay 0.
    assert_eq!(cycle_pattern(1, 1), "1111111100000000");
    assert_eq!(cycle_pattern(2, 1), "1010101010101010");
    assert_eq!(cycle_pattern(3, 2), "1201201201200000");
    assert_eq!(cycle_pattern(4, 4), "1234123400000000");
    assert_eq!(cycle_pattern(0, 5), "1234412300000000");
    assert_eq!(cycle_pattern(2, 0), "1234444400000000", "WL 0 acts as 256");
}

#[test]
fn filling_takes_data_only_for_cl_writes() {
    let mut m = machine();
    let words = [
        vifcode(0x30, 0, 0),
        0xa,
        0xb,
        0xc,
        0xd,
        vifcode(STCYCL, 0, 2 << 8 | 1),
        vifcode(UNPACK | S | B32, 4, 0),
        100,
        200,
        vifcode(0x07, 0, 0x1234),
    ];
    send_words(&mut m, 1, 0x1000, &words);
    run_until_done(&mut m, 1, 10_000);
    assert_eq!(vu1(&m, 0), [100; 4]);
    assert_eq!(
        vu1(&m, 1),
        [0xa, 0xb, 0xc, 0xd],
        "filled from the row registers"
    );
    assert_eq!(vu1(&m, 2), [200; 4]);
    assert_eq!(vu1(&m, 3), [0xa, 0xb, 0xc, 0xd]);
    assert_eq!(
        r32(&mut m, 0x1000_3c30),
        0x1234,
        "the stream stayed in step: MARK ran"
    );
    assert_ne!(r32(&mut m, 0x1000_3c00) & (1 << 6), 0, "STAT.MRK");
    w32(&mut m, 0x1000_3c30, 0x55);
    assert_eq!(
        r32(&mut m, 0x1000_3c00) & (1 << 6),
        0,
        "a MARK write clears STAT.MRK"
    );
}

#[test]
fn mask_and_mode() {
    let mut m = machine();
    let words = [
        vifcode(STCYCL, 0, 0x0101),
        vifcode(0x30, 0, 0),
        10,
        20,
        30,
        40,
        vifcode(0x31, 0, 0),
        0xc0,
        0xc1,
        0xc2,
        0xc3,
        // Offset mode: data + row.
        vifcode(0x05, 0, 1),
        vifcode(UNPACK | V4, 1, 0),
        1,
        2,
        3,
        4,
        // Difference mode, masked: x data, y data, z row, w protected.
        vifcode(0x05, 0, 2),
        vifcode(0x20, 0, 0),
        0b11_01_00_00,
        vifcode(UNPACK | 0x10 | V4, 2, 1),
        1,
        1,
        1,
        1,
        5,
        5,
        5,
        5,
    ];
    m.bus.vu_mem[VIF1_DATA + 16 + 12..VIF1_DATA + 32].copy_from_slice(&[0xee; 4]);
    send_words(&mut m, 1, 0x1000, &words);
    run_until_done(&mut m, 1, 10_000);
    assert_eq!(vu1(&m, 0), [11, 22, 33, 44]);
    assert_eq!(vu1(&m, 1), [11, 21, 30, 0xeeee_eeee]);
    assert_eq!(vu1(&m, 2), [16, 26, 30, 0]);
    // Difference mode accumulated into R0/R1 only (z and w were not data).
    assert_eq!(
        [
            r32(&mut m, 0x1000_3d00),
            r32(&mut m, 0x1000_3d10),
            r32(&mut m, 0x1000_3d20),
            r32(&mut m, 0x1000_3d30)
        ],
        [16, 26, 30, 40]
    );
    assert_eq!(r32(&mut m, 0x1000_3d40), 0xc0);
    assert_eq!(r32(&mut m, 0x1000_3c70), 0b11_01_00_00, "MASK");
    assert_eq!(r32(&mut m, 0x1000_3c50), 2, "MODE");
}

#[test]
fn mpg_writes_micro_memory() {
    let mut m = machine();
    let words = [vifcode(0x4a, 2, 4), 0x1111, 0x2222, 0x3333, 0x4444];
    send_words(&mut m, 1, 0x1000, &words);
    run_until_done(&mut m, 1, 10_000);
    assert_eq!(
        [
            vu_word(&m, 0x8020),
            vu_word(&m, 0x8024),
            vu_word(&m, 0x8028),
            vu_word(&m, 0x802c)
        ],
        [0x1111, 0x2222, 0x3333, 0x4444]
    );
    let words = [vifcode(0x4a, 1, 0x1ff), 0x5555, 0x6666];
    send_words(&mut m, 0, 0x1000, &words);
    run_until_done(&mut m, 0, 10_000);
    assert_eq!(
        [vu_word(&m, 0xff8), vu_word(&m, 0xffc)],
        [0x5555, 0x6666],
        "VU0 micro memory"
    );
}

#[test]
fn double_buffering_and_mscal() {
    let mut m = machine();
    let vu = FakeVu {
        busy: 1000,
        ..Default::default()
    };
    let starts = vu.starts.clone();
    m.bus.vu_exec = Box::new(vu);
    let words = [
        vifcode(STCYCL, 0, 0x0101),
        vifcode(0x03, 0, 0x100),
        vifcode(0x02, 0, 0x80),
        vifcode(0x04, 0, 5),
        vifcode(0x14, 0, 0x10),
        vifcode(UNPACK | S | B32, 1, 2 | 0x8000),
        0x42,
        vifcode(0x14, 0, 0x20),
        vifcode(0x17, 0, 0),
    ];
    send_words(&mut m, 1, 0x1000, &words);
    // The first MSCAL starts at once; the second waits 1000 cycles for the VU (STAT.VEW).
    m.run_events_until(500).unwrap();
    assert_eq!(starts.lock().unwrap().len(), 1);
    assert_ne!(r32(&mut m, 0x1000_3c00) & (1 << 2), 0, "STAT.VEW");
    assert_ne!(r32(&mut m, chreg(1, 0)) & STR, 0);
    run_until_done(&mut m, 1, 10_000);
    assert_eq!(
        *starts.lock().unwrap(),
        vec![
            (1, Some(0x10), 0x100, 5),
            (1, Some(0x20), 0x180, 5),
            (1, None, 0x100, 5)
        ]
    );
    assert_eq!(vu1(&m, 0x182), [0x42; 4], "FLG: address relative to TOPS");
    assert_eq!(r32(&mut m, 0x1000_3cc0), 0x180, "TOPS");
    assert_eq!(r32(&mut m, 0x1000_3ce0), 0x100, "TOP");
    assert_eq!(r32(&mut m, 0x1000_3ca0), 0x100, "BASE");
    assert_eq!(r32(&mut m, 0x1000_3cb0), 0x80, "OFST");
    assert_ne!(
        r32(&mut m, 0x1000_3c00) & (1 << 7),
        0,
        "DBF after three starts"
    );
    assert_eq!(r32(&mut m, 0x1000_3c90), 5, "ITOPS");
}

#[test]
fn ibit_interrupts_and_stalls_until_stc() {
    let mut m = machine();
    let words = [0x8000_0000, vifcode(0x07, 0, 5), 0, 0, 0, 0, 0, 0];
    send_words(&mut m, 1, 0x1000, &words);
    m.run_events_until(10_000).unwrap();
    let stat = r32(&mut m, 0x1000_3c00);
    assert_eq!(stat, 3 << 10 | 2, "STAT: VIS, INT, VPS decoding, FQC 0");
    assert_eq!(m.bus.intc.stat & (1 << 5), 1 << 5, "INTC VIF1");
    assert_eq!(
        r32(&mut m, 0x1000_3c30),
        0,
        "the MARK after the i bit waits"
    );
    assert_eq!(
        r32(&mut m, chreg(1, 0)) & STR,
        0,
        "the DMA still completes into the FIFO"
    );
    w32(&mut m, 0x1000_3c10, 8);
    assert_eq!(r32(&mut m, 0x1000_3c30), 5, "FBRST.STC resumes decoding");
    assert_eq!(r32(&mut m, 0x1000_3c00) & (3 << 10), 0);
}

#[test]
fn mark_with_ibit_interrupts_without_stalling() {
    let mut m = machine();
    send_words(
        &mut m,
        0,
        0x1000,
        &[vifcode(0x87, 0, 0xbeef), vifcode(0x20, 0, 0), 0xcccc_cccc],
    );
    run_until_done(&mut m, 0, 10_000);
    assert_eq!(
        r32(&mut m, 0x1000_3800),
        0x840,
        "STAT: INT and MRK, no stall"
    );
    assert_eq!(r32(&mut m, 0x1000_3870), 0xcccc_cccc);
}

#[test]
fn ibit_masked_by_err_mii() {
    let mut m = machine();
    w32(&mut m, 0x1000_3c20, 1);
    send_words(&mut m, 1, 0x1000, &[0x8000_0000, vifcode(0x07, 0, 5)]);
    run_until_done(&mut m, 1, 10_000);
    assert_eq!(r32(&mut m, 0x1000_3c30), 5);
    assert_eq!(m.bus.intc.stat & (1 << 5), 0);
}

#[test]
fn unknown_vifcode_sets_er1_unless_masked() {
    let mut m = machine();
    send_words(
        &mut m,
        0,
        0x1000,
        &[vifcode(0x08, 0, 0), vifcode(0x07, 0, 7)],
    );
    m.run_events_until(10_000).unwrap();
    assert_ne!(r32(&mut m, 0x1000_3800) & (1 << 13), 0, "STAT.ER1");
    assert_eq!(m.bus.intc.stat & (1 << 4), 1 << 4, "INTC VIF0");
    assert_eq!(r32(&mut m, 0x1000_3830), 0);
    assert_eq!(r32(&mut m, 0x1000_3880), vifcode(0x08, 0, 0), "CODE");
    w32(&mut m, 0x1000_3810, 8);
    run_until_done(&mut m, 0, 10_000);
    assert_eq!(r32(&mut m, 0x1000_3830), 7);
    // With ERR.ME1 the bad code is skipped.
    w32(&mut m, 0x1000_3820, 4);
    send_words(
        &mut m,
        0,
        0x1000,
        &[vifcode(0x7f & 0x0f, 0, 0), vifcode(0x07, 0, 9)],
    );
    run_until_done(&mut m, 0, 10_000);
    assert_eq!(r32(&mut m, 0x1000_3830), 9);
}

#[test]
fn partial_unpack_shows_vps_and_num() {
    let mut m = machine();
    m.bus
        .write128(
            0x1000_4000,
            qw([vifcode(STCYCL, 0, 0x101), 0, 0, vifcode(UNPACK | V4, 3, 0)]),
        )
        .unwrap();
    assert_eq!(r32(&mut m, 0x1000_3800) & 3, 1, "VPS: waiting for data");
    assert_eq!(r32(&mut m, 0x1000_3860), 3, "NUM");
    m.bus.write128(0x1000_4000, qw([1, 2, 3, 4])).unwrap();
    assert_eq!(r32(&mut m, 0x1000_3860), 2);
    w32(&mut m, 0x1000_3810, 1);
    assert_eq!(r32(&mut m, 0x1000_3800), 0, "FBRST.RST");
}

#[test]
fn direct_through_a_chain_with_tte() {
    let (mut m, h) = machine_rec();
    // The tag's upper half holds two VIFcodes: NOP and DIRECT 2.
    put_qw(
        &mut m,
        0x2000,
        dtag(2, END, false, 0, (vifcode(0x50, 0, 2) as u64) << 32),
    );
    put_qw(&mut m, 0x2010, giftag(1, true, None, 0, &[0xe]));
    put_qw(&mut m, 0x2020, 0x77u128 | 0x4cu128 << 64);
    send_chain(&mut m, 1, 0x2000, 0x40);
    run_until_done(&mut m, 1, 10_000);
    assert_eq!(*h.lock().unwrap(), vec![Reg(0x4c, 0x77)]);
}

#[test]
fn mscal_xgkick_reaches_path1() {
    let (mut m, h) = machine_rec();
    m.bus.vu_exec = Box::new(FakeVu {
        kick: Some((0, 2)),
        ..Default::default()
    });
    let t = giftag(1, true, None, 0, &[0xe]);
    let d = 0x99u128 | 0x4cu128 << 64;
    let wq = |q: u128| {
        [
            q as u32,
            (q >> 32) as u32,
            (q >> 64) as u32,
            (q >> 96) as u32,
        ]
    };
    let mut words = vec![vifcode(STCYCL, 0, 0x101), vifcode(UNPACK | V4, 2, 0)];
    words.extend(wq(t));
    words.extend(wq(d));
    words.push(vifcode(0x14, 0, 0));
    send_words(&mut m, 1, 0x1000, &words);
    run_until_done(&mut m, 1, 10_000);
    assert_eq!(*h.lock().unwrap(), vec![Reg(0x4c, 0x99)]);
}

#[test]
fn mscal_without_a_vu_is_an_error() {
    let mut m = machine();
    m.bus.vu_exec = Box::new(piney_machine::vif::NoVu);
    send_words(&mut m, 1, 0x1000, &[vifcode(0x14, 0, 0)]);
    let e = m.run_events_until(10_000).unwrap_err().to_string();
    assert!(e.contains("VU1") && e.contains("DMA channel 1"), "{e}");
}

#[test]
fn flusha_waits_for_path3() {
    let (mut m, h) = machine_rec();
    // GIF_MODE.M3R holds PATH3's packet in the FIFO.
    w32(&mut m, 0x1000_3010, 1);
    assert_eq!(r32(&mut m, 0x1000_3020) & 1, 1, "GIF_STAT.M3R");
    m.bus
        .write128(0x1000_6000, giftag(1, true, None, 0, &[0xe]))
        .unwrap();
    m.bus
        .write128(0x1000_6000, 0x11u128 | 0x4cu128 << 64)
        .unwrap();
    m.bus
        .write128(
            0x1000_5000,
            qw([vifcode(0x13, 0, 0), vifcode(0x07, 0, 3), 0, 0]),
        )
        .unwrap();
    assert_ne!(
        r32(&mut m, 0x1000_3c00) & (1 << 3),
        0,
        "STAT.VGW: FLUSHA waits for the GIF"
    );
    assert_eq!(r32(&mut m, 0x1000_3c30), 0);
    w32(&mut m, 0x1000_3010, 0);
    assert_eq!(*h.lock().unwrap(), vec![Reg(0x4c, 0x11)]);
    m.run_events_until(m.cpu.cycles + 1000).unwrap();
    assert_eq!(
        r32(&mut m, 0x1000_3c30),
        3,
        "FLUSHA done once PATH3 was idle"
    );
    assert_eq!(r32(&mut m, 0x1000_3c00) & (1 << 3), 0);
}

#[test]
fn flushe_waits_for_the_vu() {
    let mut m = machine();
    m.bus.vu_exec = Box::new(FakeVu {
        busy: 500,
        ..Default::default()
    });
    m.bus
        .write128(
            0x1000_4000,
            qw([
                vifcode(0x14, 0, 0),
                vifcode(0x10, 0, 0),
                vifcode(0x07, 0, 4),
                0,
            ]),
        )
        .unwrap();
    assert_ne!(r32(&mut m, 0x1000_3800) & (1 << 2), 0, "STAT.VEW");
    m.run_events_until(499).unwrap();
    assert_eq!(r32(&mut m, 0x1000_3830), 0);
    m.run_events_until(500).unwrap();
    assert_eq!(r32(&mut m, 0x1000_3830), 4, "FLUSHE done when the VU ended");
}
