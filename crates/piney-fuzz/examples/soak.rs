//! The soak by hand (an hour of emulated time by default):
//!
//! ```sh
//! cargo run --release -p piney-fuzz --example soak -- [SECONDS] [SEED] [--jit]
//! ```
//!
//! Prints a line every 10 emulated seconds and the report at the end (piney_fuzz::soak says
//! what is checked); exits 1 naming the invariant that broke.

#[global_allocator]
static ALLOC: piney_fuzz::guard::CapAlloc = piney_fuzz::guard::CapAlloc;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let jit = args.iter().any(|a| a == "--jit");
    let nums: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let mut opts = piney_fuzz::soak::SoakOptions {
        verbose: true,
        jit,
        ..Default::default()
    };
    if let Some(s) = nums.first() {
        opts.seconds = s.parse().expect("SECONDS is a number");
    }
    if let Some(s) = nums.get(1) {
        opts.seed = s.parse().expect("SEED is a number");
    }
    match piney_fuzz::soak::run(&opts) {
        Ok(r) => {
            for l in r.lines() {
                println!("{l}");
            }
        }
        Err(e) => {
            eprintln!("soak: FAILED: {e}");
            std::process::exit(1);
        }
    }
}
