//! Benchmark (not a timed test): the reference interpreter's speed in guest instructions per
//! second on a compute-heavy guest program (tests/guest/bench_compute.elf), best of three runs.
//! `tools/bench-compute.sh` measures the ratio to qemu-mipsel on the same C program.
//!
//! Run: `cargo bench -p piney-machine --bench interp`.

use std::path::Path;
use std::time::Instant;

use piney_machine::{Machine, RunEnd, RunLimits};

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let elf = root.join("tests/guest/bench_compute.elf");
    let image = match std::fs::read(&elf) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("bench: cannot read {}: {e}", elf.display());
            std::process::exit(1);
        }
    };
    let mut best = f64::MAX;
    let mut instructions = 0;
    let mut output = Vec::new();
    for _ in 0..3 {
        let out = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let mut m = Machine::new(Box::new(SharedSink(out.clone())));
        m.load_elf(&image).expect("bench_compute.elf loads");
        let t = Instant::now();
        let end = m.run(RunLimits {
            frames: None,
            seconds: Some(600.0),
        });
        let dt = t.elapsed().as_secs_f64();
        match end {
            Ok(RunEnd::Exited(0)) => {}
            other => {
                eprintln!("bench: the guest did not exit cleanly: {other:?}");
                std::process::exit(1);
            }
        }
        best = best.min(dt);
        instructions = m.instructions;
        output = out.lock().unwrap().clone();
    }
    let ips = instructions as f64 / best;
    println!(
        "interpreter: {instructions} guest instructions in {best:.3} s: {:.1} M instructions/s",
        ips / 1e6
    );
    println!(
        "guest output: {}",
        String::from_utf8_lossy(&output).trim_end()
    );
}

struct SharedSink(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for SharedSink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
