//! PCRTC and presenter tests; expectations from PMODE's formula and the reference's rules.

use crate::gs::Privileged;
use crate::image::Image;
use crate::mem::LocalMemory;
use crate::pcrtc::{DisplayCommand, Pcrtc, Presenter};
use crate::psm::Psm;
use crate::regs::*;

/// DISPLAY for a w x h picture with MAGH 3 (4 clocks a pixel) at (dx, dy).
fn display(dx: u64, dy: u64, w: u64, h: u64) -> Display {
    Display(dx | dy << 12 | 3 << 23 | (w * 4 - 1) << 32 | (h - 1) << 44)
}

/// A 4x4 PSMCT32 buffer at page `fbp`, pixel (x, y) = (x*10 + base, y*10, 0, a).
fn buffer(mem: &mut LocalMemory, fbp: u32, base: u32, a: u32) {
    for y in 0..4 {
        for x in 0..4 {
            mem.write_pixel(
                Psm::Ct32,
                x,
                y,
                fbp * 32,
                1,
                (x * 10 + base) | (y * 10) << 8 | a << 24,
            );
        }
    }
}

fn dispfb(fbp: u64, psm: u64, dbx: u64, dby: u64) -> DispFb {
    DispFb(fbp | 1 << 9 | psm << 15 | dbx << 32 | dby << 43)
}

#[test]
fn one_circuit_reads_its_buffer() {
    let mut mem = LocalMemory::new();
    buffer(&mut mem, 0, 0, 0x80);
    let mut p = Privileged {
        pmode: Pmode(2),
        ..Default::default()
    };
    p.dispfb[1] = dispfb(0, 0, 1, 2);
    p.display[1] = display(100, 20, 3, 2);
    let img = Pcrtc::default().frame(&mem, &p);
    assert_eq!((img.width, img.height), (3, 2));
    // (0,0) shows buffer (1,2).
    assert_eq!(img.get(0, 0), [10, 20, 0, 255]);
    assert_eq!(img.get(2, 1), [30, 30, 0, 255]);
    // A 16-bit buffer: channels << 3.
    mem.write_pixel(Psm::Ct16, 0, 0, 64 * 32, 1, 0x1f | 2 << 5 | 3 << 10);
    p.dispfb[1] = dispfb(64, 2, 0, 0);
    assert_eq!(
        Pcrtc::default().frame(&mem, &p).get(0, 0),
        [0xf8, 16, 24, 255]
    );
    // No circuit: an empty picture.
    p.pmode = Pmode(0);
    assert_eq!(Pcrtc::default().frame(&mem, &p).width, 0);
}

#[test]
fn merge_by_alp_pixel_alpha_and_bgcolor() {
    let mut mem = LocalMemory::new();
    buffer(&mut mem, 0, 200, 0x40); // circuit 1: red 200 + x*10
    buffer(&mut mem, 8, 0, 0); // circuit 2
    let mut p = Privileged {
        dispfb: [dispfb(0, 0, 0, 0), dispfb(8, 0, 0, 0)],
        display: [display(100, 20, 4, 4), display(100, 20, 4, 4)],
        ..Default::default()
    };
    // EN1, EN2, MMOD 1, ALP 128: R = (200 * 128 + 0 * 127 + 127) / 255 = 100.
    p.pmode = Pmode(3 | 1 << 5 | 128 << 8);
    let img = Pcrtc::default().frame(&mem, &p);
    assert_eq!(img.get(0, 0)[0], 100);
    // G at row 1: both 10 -> 10.
    assert_eq!(img.get(0, 1)[1], 10);
    // MMOD 0: circuit 1's alpha 0x40 counts double (0x80 = 1.0) -> 128, the same result.
    p.pmode = Pmode(3);
    assert_eq!(Pcrtc::default().frame(&mem, &p).get(0, 0)[0], 100);
    // SLBG 1: the background is BGCOLOR (R 50): (200 * 128 + 50 * 127 + 127) / 255 = 125.
    p.pmode = Pmode(3 | 1 << 5 | 1 << 7 | 128 << 8);
    p.bgcolor = BgColor(50);
    assert_eq!(Pcrtc::default().frame(&mem, &p).get(0, 0)[0], 125);
    // Circuit 1 moved right by 2 pixels (8 clocks): the union is 6 wide; where circuit 1
    // does not reach, the background (circuit 2) shows, and past circuit 2, BGCOLOR.
    p.pmode = Pmode(3 | 1 << 5 | 255 << 8);
    p.display[0] = display(108, 20, 4, 4);
    let img = Pcrtc::default().frame(&mem, &p);
    assert_eq!(img.width, 6);
    assert_eq!(img.get(0, 0)[0], 0); // circuit 2's (0,0)
    assert_eq!(img.get(2, 0)[0], 200); // circuit 1's (0,0) at full ALP
    assert_eq!(img.get(5, 0)[0], 230); // circuit 1's (3,0), past circuit 2
    // Past circuit 2 with circuit 1 switched off: BGCOLOR.
    p.pmode = Pmode(2 | 1 << 5 | 255 << 8);
    p.display[1] = display(100, 20, 2, 4);
    p.display[0] = display(108, 20, 4, 4);
    assert_eq!(Pcrtc::default().frame(&mem, &p).width, 2);
}

#[test]
fn deflicker_pair() {
    let mut mem = LocalMemory::new();
    buffer(&mut mem, 0, 0, 0x80);
    // The engine's frame mode: both circuits on one buffer, circuit 1 one line lower, ALP 127.
    let p = Privileged {
        dispfb: [dispfb(0, 0, 0, 0), dispfb(0, 0, 0, 0)],
        display: [display(100, 21, 4, 4), display(100, 20, 4, 4)],
        pmode: Pmode(3 | 1 << 5 | 1 << 6 | 127 << 8),
        ..Default::default()
    };
    // Off (default): circuit 2 alone.
    let plain = Pcrtc::default().frame(&mem, &p);
    assert_eq!((plain.width, plain.height), (4, 4));
    assert_eq!(plain.get(0, 2), [0, 20, 0, 255]);
    // On: line y is 127/255 of line y-1 and 128/255 of its own: G at y=2 is
    // (10 * 127 + 20 * 128 + 127) / 255 = 15; line 0 has nothing above and stays.
    let merged = Pcrtc { deflicker: true }.frame(&mem, &p);
    assert_eq!((merged.width, merged.height), (4, 4));
    assert_eq!(merged.get(0, 2)[1], 15);
    assert_eq!(merged.get(0, 0)[1], 0);
    // The standalone filter gives the same picture.
    assert_eq!(Pcrtc::deflicker_image(&plain, 127), merged);
}

#[test]
fn field_mode_halves_rows() {
    let mut mem = LocalMemory::new();
    buffer(&mut mem, 0, 0, 0x80);
    let mut p = Privileged {
        pmode: Pmode(2),
        smode2: Smode2(3),
        ..Default::default()
    };
    p.dispfb[1] = dispfb(0, 0, 0, 0);
    p.display[1] = display(100, 20, 4, 8); // 8 frame lines = 4 buffer rows
    let img = Pcrtc::default().frame(&mem, &p);
    assert_eq!((img.width, img.height), (4, 4));
    assert_eq!(img.get(0, 3)[1], 30);
}

#[test]
fn presenter_offset_and_aspect() {
    let mut img = Image::new(8, 4, [0, 0, 0, 255]);
    for y in 0..4 {
        for x in 0..8 {
            img.set(x, y, [x as u8 + 1, y as u8 + 1, 0, 255]);
        }
    }
    // 3 pixels right, one row up. Black where the picture left.
    let out = Presenter {
        offset_x: 3,
        offset_y: -1,
    }
    .present(&img);
    assert_eq!(out.get(0, 0), [0, 0, 0, 255]);
    assert_eq!(out.get(3, 0), [1, 2, 0, 255]);
    assert_eq!(out.get(7, 2), [5, 4, 0, 255]);
    assert_eq!(out.get(4, 3), [0, 0, 0, 255]);
    // 9 pixels left.
    let out = Presenter {
        offset_x: -9,
        offset_y: 0,
    }
    .present(&Image::new(16, 1, [9, 9, 9, 255]));
    assert_eq!(out.get(6, 0), [9, 9, 9, 255]);
    assert_eq!(out.get(7, 0), [0, 0, 0, 255]);
    // 4:3 of 448 rows: 597 x 448.
    assert_eq!(Presenter::aspect_size(448), (597, 448));
    let wide = Presenter::default().present_4_3(&img);
    assert_eq!((wide.width, wide.height), (5, 4));
}

/// The engine's NTSC frame mode (sceGsSetDefDispEnv: DX 636, DY 50, MAGH 4, 512 x 448) moved
/// by SetDisplayOffset(x, y).
fn engine_display(x: i64, y: i64) -> DisplayCommand {
    let mut p = Privileged {
        pmode: Pmode(2),
        // SMODE1.CMOD = 2 (NTSC), SMODE2.INT = 1, FFMD = 0.
        smode1: 2 << 13,
        smode2: Smode2(1),
        ..Default::default()
    };
    let (dx, dy) = ((636 + x) as u64, (50 + y) as u64);
    p.display[1] = Display(dx | dy << 12 | 4 << 23 | (2559u64 << 32) | (447u64 << 44));
    DisplayCommand::new(&p, Pcrtc::default())
}

#[test]
fn display_offset_is_the_main_circuit_against_the_modes_origin() {
    assert_eq!(engine_display(0, 0).offset(), (0, 0));
    // Adjust Screen's extremes: 48 clocks are 9.6 pixels, truncated toward zero.
    assert_eq!(engine_display(48, 16).offset(), (9, 16));
    assert_eq!(engine_display(-48, -16).offset(), (-9, -16));
    assert_eq!(engine_display(4, 0).offset(), (0, 0));
    assert_eq!(
        engine_display(5, 0).presenter(),
        Presenter {
            offset_x: 1,
            offset_y: 0
        }
    );
    // PAL (CMOD 3) has its own origin; a DTV mode (CMOD 0 with other fields) none.
    let mut pal = engine_display(0, 0);
    pal.smode1 = 3 << 13;
    pal.display[1] = Display(690 | 80 << 12 | 4 << 23 | (2559u64 << 32) | (511u64 << 44));
    assert_eq!(pal.offset(), (2, 8));
    let mut dtv = engine_display(100, 100);
    dtv.smode1 = 1 << 3;
    assert_eq!(dtv.offset(), (0, 0));
    // No video mode set yet (SMODE1 0): nothing to measure against.
    dtv.smode1 = 0;
    assert_eq!(dtv.offset(), (0, 0));
    // Nothing on: no offset.
    let mut off = engine_display(48, 16);
    off.pmode = Pmode(0);
    assert_eq!(off.offset(), (0, 0));
}
