//! Time of the presenter's drawing (a benchmark, not a test): a 512 x 448 picture presented
//! into a 1024 x 768 target (the window's default size) and read back, nearest and sharp
//! bilinear, without and with the deflicker, then sharp with a message on the on-screen
//! display, on the first adapter wgpu finds (Mesa's lavapipe on a machine without a GPU,
//! where the presenter's shader is the window's largest cost). Each figure is the mean of 20 renders after 3 unmeasured ones; the read-back of
//! the 3 MiB target is in it.
//!
//! `cargo run --release -p piney-frontend --example present_bench`

use piney_frontend::layout::{Filter, Scaling};
use piney_frontend::{Frame, Headless};
use std::time::Instant;

/// Milliseconds a picture of `frame` into 1024 x 768: the mean of 20 renders after 3.
fn time(headless: &mut Headless, frame: &Frame) -> f64 {
    for _ in 0..3 {
        headless.render(frame, 1024, 768).expect("render");
    }
    let t = Instant::now();
    for _ in 0..20 {
        headless.render(frame, 1024, 768).expect("render");
    }
    t.elapsed().as_secs_f64() * 1e3 / 20.0
}

fn main() {
    let (w, h) = (512u32, 448u32);
    // A ramp, so that neighbouring texels differ.
    let pixels: Vec<u8> = (0..w * h)
        .flat_map(|i| [(i % w) as u8, (i / w) as u8, (i % 251) as u8, 255])
        .collect();
    let mut headless = Headless::new().unwrap_or_else(|e| {
        eprintln!("no wgpu adapter: {e}");
        std::process::exit(1);
    });
    println!("adapter: {}", headless.adapter_info());
    for filter in [Filter::Nearest, Filter::Sharp] {
        for deflicker in [None, Some(128)] {
            headless.set_scaling(Scaling {
                filter,
                stretch: false,
            });
            let mut frame = Frame::new(w, h, pixels.clone()).expect("a 512 x 448 frame");
            frame.deflicker = deflicker;
            println!(
                "{filter:?}, deflicker {}: {:.2} ms a picture",
                if deflicker.is_some() { "on" } else { "off" },
                time(&mut headless, &frame)
            );
        }
    }
    // With a message on the on-screen display (sharp, no deflicker).
    let mut osd = piney_frontend::osd::Osd::default();
    osd.message("piney: a message on the on-screen display", 0);
    headless.set_overlay(osd.render().as_ref());
    let frame = Frame::new(w, h, pixels).expect("a 512 x 448 frame");
    println!(
        "Sharp, with a message on the on-screen display: {:.2} ms a picture",
        time(&mut headless, &frame)
    );
}
