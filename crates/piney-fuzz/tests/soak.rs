//! The soak, shortened for CI: 15 emulated seconds of the demo with a seeded random input
//! script, every invariant of piney_fuzz::soak checked (tools/soak.sh runs the hour).

#[global_allocator]
static ALLOC: piney_fuzz::guard::CapAlloc = piney_fuzz::guard::CapAlloc;

#[test]
fn the_demo_soaks() {
    let opts = piney_fuzz::soak::SoakOptions {
        seconds: 15.0,
        seed: 1,
        sample_seconds: 5.0,
        warmup_seconds: 5.0,
        wall_limit: std::time::Duration::from_secs(900),
        ..Default::default()
    };
    match piney_fuzz::soak::run(&opts) {
        Ok(r) => {
            use std::io::Write;
            for l in r.lines() {
                let _ = writeln!(std::io::stderr(), "{l}");
            }
        }
        Err(e) => panic!("soak: {e}"),
    }
}
