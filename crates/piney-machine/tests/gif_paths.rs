//! GIF: GIFtag formats, PACKED conversion, the privileged-register events, and path arbitration
//! with MSKPATH3 and intermittent mode. Expected writes derived by hand from the GS User's Manual.

mod dmac_support;

use dmac_support::*;
use piney_ee::Bus;
use piney_machine::Machine;
use piney_machine::gif::GsWrite::{self, Image, Reg};

fn take(h: &std::sync::Arc<std::sync::Mutex<Vec<GsWrite>>>) -> Vec<GsWrite> {
    std::mem::take(&mut *h.lock().unwrap())
}

fn gif_fifo(m: &mut Machine, q: u128) {
    m.bus.write128(0x1000_6000, q).unwrap();
}

fn vif1_fifo(m: &mut Machine, w: [u32; 4]) {
    m.bus.write128(0x1000_5000, qw(w)).unwrap();
}

fn ad(reg: u8, v: u64) -> u128 {
    v as u128 | (reg as u128) << 64
}

#[test]
fn packed_conversion_through_path3_dma() {
    let (mut m, h) = machine_rec();
    let regs = [0x1, 0x2, 0x1, 0x3, 0x4, 0x5, 0xa, 0xe, 0xf, 0x4, 0x6];
    let data = [
        giftag(1, true, Some(0x06), 0, &regs),
        qw([0x1ff, 0x222, 0x333, 0x444]),
        qw([0x3f00_0000, 0x3e80_0000, 0x4000_0000, 0]),
        qw([1, 2, 3, 4]),
        qw([0x12345, 0x6789a, 0, 0]),
        qw([0x1234, 0x5678, 0x0abc_def0, 0x0000_0ab0]),
        qw([0x1111, 0x2222, 0xdead_beef, 0x8000]),
        qw([0, 0, 0, 0x0000_0cd0]),
        ad(0x4c, 0x12345),
        qw([7, 7, 7, 7]),
        qw([1, 2, 0x30, 0x8040]),
        0x0123_4567_89ab_cdef,
    ];
    for (i, d) in data.iter().enumerate() {
        put_qw(&mut m, 0x1000 + 16 * i as u32, *d);
    }
    send_normal(&mut m, 2, 0x1000, data.len() as u32);
    run_until_done(&mut m, 2, 10_000);
    assert_eq!(
        take(&h),
        vec![
            Reg(0x00, 0x06),
            Reg(0x01, 0x3f80_0000_4433_22ff),
            Reg(0x02, 0x3e80_0000_3f00_0000),
            Reg(0x01, 0x4000_0000_0403_0201),
            Reg(0x03, 0x389a_2345),
            Reg(0x04, 0xabab_cdef_5678_1234),
            Reg(0x0d, 0xdead_beef_2222_1111),
            Reg(0x0a, 0xcd << 56),
            Reg(0x4c, 0x12345),
            Reg(0x0c, 1 | 2 << 16 | 3 << 32 | 4 << 56),
            Reg(0x06, 0x0123_4567_89ab_cdef),
        ]
    );
}

#[test]
fn reglist_padding_and_image() {
    let (mut m, h) = machine_rec();
    gif_fifo(&mut m, giftag(3, false, Some(0x7), 1, &[0x6]));
    gif_fifo(&mut m, 0x22u128 << 64 | 0x11);
    gif_fifo(&mut m, 0xffffu128 << 64 | 0x33);
    // A+D and NOP descriptors write nothing in REGLIST mode.
    gif_fifo(&mut m, giftag(1, false, None, 1, &[0xe, 0x1]));
    gif_fifo(&mut m, 0x44u128 << 64 | 0x55);
    gif_fifo(&mut m, giftag(2, true, None, 2, &[]));
    gif_fifo(&mut m, 0xaaaa);
    gif_fifo(&mut m, 0xbbbb);
    assert_eq!(
        take(&h),
        vec![
            Reg(0x06, 0x11),
            Reg(0x06, 0x22),
            Reg(0x06, 0x33),
            Reg(0x01, 0x44),
            Image(0xaaaa),
            Image(0xbbbb)
        ],
        "PRE is ignored outside PACKED; the odd REGLIST quadword is padded"
    );
    assert!(m.bus.gif.path_idle(2));
}

#[test]
fn signal_finish_label_set_csr_and_interrupt_when_unmasked() {
    let (mut m, _h) = machine_rec();
    gif_fifo(&mut m, giftag(3, true, None, 0, &[0xe]));
    gif_fifo(&mut m, ad(0x60, 0x0000_ffff_0000_1234));
    gif_fifo(&mut m, ad(0x62, 0x0000_ff00_0000_abcd));
    gif_fifo(&mut m, ad(0x61, 0));
    assert_eq!(r32(&mut m, 0x1200_1000) & 3, 3, "CSR SIGNAL and FINISH");
    assert_eq!(r32(&mut m, 0x1200_1080), 0x1234, "SIGLBLID.SIGID");
    assert_eq!(
        r32(&mut m, 0x1200_1084),
        0xab00,
        "SIGLBLID.LBLID under its mask"
    );
    assert_eq!(m.bus.intc.stat & 1, 0, "IMR masks both at power-on");
    // CSR: writing 1 clears the event bits.
    w32(&mut m, 0x1200_1000, 3);
    assert_eq!(r32(&mut m, 0x1200_1000) & 3, 0);
    // Unmask FINISH (IMR bit 9).
    w32(&mut m, 0x1200_1010, 0x7f00 & !(1 << 9));
    gif_fifo(&mut m, giftag(1, true, None, 0, &[0xe]));
    gif_fifo(&mut m, ad(0x61, 0));
    assert_eq!(m.bus.intc.stat & 1, 1, "FINISH raises INTC line 0");
}

#[test]
fn mskpath3_holds_path3_while_path2_goes() {
    let (mut m, h) = machine_rec();
    vif1_fifo(&mut m, [vifcode(0x06, 0, 0x8000), 0, 0, 0]);
    assert_ne!(r32(&mut m, 0x1000_3020) & 2, 0, "GIF_STAT.M3P");
    put_qw(&mut m, 0x1000, giftag(1, true, None, 0, &[0xe]));
    put_qw(&mut m, 0x1010, ad(0x4c, 3));
    send_normal(&mut m, 2, 0x1000, 2);
    run_until_done(&mut m, 2, 10_000);
    assert!(take(&h).is_empty(), "masked PATH3 waits in the FIFO");
    assert_ne!(r32(&mut m, 0x1000_3020) & (1 << 6), 0, "GIF_STAT.P3Q");
    vif1_fifo(&mut m, [0, 0, 0, vifcode(0x50, 0, 2)]);
    m.bus
        .write128(0x1000_5000, giftag(1, true, None, 0, &[0xe]))
        .unwrap();
    m.bus.write128(0x1000_5000, ad(0x4c, 2)).unwrap();
    assert_eq!(take(&h)[..], [Reg(0x4c, 2)][..]);
    vif1_fifo(&mut m, [vifcode(0x06, 0, 0), 0, 0, 0]);
    assert_eq!(take(&h)[..], [Reg(0x4c, 3)][..]);
}

#[test]
fn path3_keeps_the_gif_until_eop() {
    let (mut m, h) = machine_rec();
    gif_fifo(&mut m, giftag(1, false, None, 0, &[0xe]));
    gif_fifo(&mut m, ad(0x4c, 1));
    let stat = r32(&mut m, 0x1000_3020);
    assert_eq!((stat >> 9) & 7, 1 | 3 << 1, "OPH, APATH = PATH3");
    assert_eq!(
        r32(&mut m, 0x1000_3040),
        giftag(1, false, None, 0, &[0xe]) as u32,
        "GIF_TAG0"
    );
    vif1_fifo(&mut m, [0, 0, 0, vifcode(0x50, 0, 2)]);
    m.bus
        .write128(0x1000_5000, giftag(1, true, None, 0, &[0xe]))
        .unwrap();
    m.bus.write128(0x1000_5000, ad(0x4c, 2)).unwrap();
    assert_ne!(
        r32(&mut m, 0x1000_3020) & (1 << 7),
        0,
        "GIF_STAT.P2Q: PATH2 waits"
    );
    gif_fifo(&mut m, giftag(1, true, None, 0, &[0xe]));
    gif_fifo(&mut m, ad(0x4c, 3));
    assert_eq!(take(&h), vec![Reg(0x4c, 1), Reg(0x4c, 3), Reg(0x4c, 2)]);
    assert_eq!(r32(&mut m, 0x1000_3020) & 0xe00, 0, "idle");
}

fn imt_run(hl: bool) -> Vec<GsWrite> {
    let (mut m, h) = machine_rec();
    w32(&mut m, 0x1000_3010, 4);
    gif_fifo(&mut m, giftag(16, true, None, 2, &[]));
    for i in 0..4 {
        gif_fifo(&mut m, i);
    }
    vif1_fifo(
        &mut m,
        [0, 0, 0, vifcode(if hl { 0x51 } else { 0x50 }, 0, 2)],
    );
    m.bus
        .write128(0x1000_5000, giftag(1, true, None, 0, &[0xe]))
        .unwrap();
    m.bus.write128(0x1000_5000, ad(0x4c, 9)).unwrap();
    for i in 4..16 {
        gif_fifo(&mut m, i);
    }
    take(&h)
}

#[test]
fn intermittent_mode_lets_direct_in_every_8_image_qwords() {
    let mut want: Vec<GsWrite> = (0..8).map(Image).collect();
    want.push(Reg(0x4c, 9));
    want.extend((8..16).map(Image));
    assert_eq!(imt_run(false), want);
    let mut hl: Vec<GsWrite> = (0..16).map(Image).collect();
    hl.push(Reg(0x4c, 9));
    assert_eq!(imt_run(true), hl, "DIRECTHL does not interrupt PATH3 IMAGE");
}

#[test]
fn gif_ctrl_reset_drops_the_packet() {
    let (mut m, h) = machine_rec();
    gif_fifo(&mut m, giftag(2, true, None, 0, &[0xe]));
    gif_fifo(&mut m, ad(0x4c, 1));
    w32(&mut m, 0x1000_3000, 1);
    assert!(m.bus.gif.path_idle(2));
    gif_fifo(&mut m, giftag(1, true, None, 0, &[0xe]));
    gif_fifo(&mut m, ad(0x4c, 2));
    assert_eq!(take(&h), vec![Reg(0x4c, 1), Reg(0x4c, 2)]);
}
