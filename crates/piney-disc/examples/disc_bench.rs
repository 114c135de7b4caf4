//! Read speed and memory of disc images: `cargo run --release -p piney-disc --example
//! disc_bench -- IMAGE... [--max-sectors N]`.
//!
//! For each image: its format, medium and size; sectors per second read in order from LBA 0
//! (at most N sectors, all by default) and at random LBAs; and the process's peak resident
//! memory with the image open (VmHWM from /proc/self/status, reset before each image where
//! the kernel allows it), which shows that no image is read whole.

use std::time::Instant;

use piney_disc::{SECTOR_SIZE, SectorSource};

const RANDOM_READS: u64 = 4096;

fn status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() {
    let mut images = Vec::new();
    let mut max_sectors = u64::MAX;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--max-sectors" {
            max_sectors = args
                .next()
                .and_then(|n| n.parse().ok())
                .expect("--max-sectors needs a number");
        } else {
            images.push(arg);
        }
    }
    if images.is_empty() {
        eprintln!("usage: disc_bench IMAGE... [--max-sectors N]");
        std::process::exit(2);
    }
    for image in images {
        // "5" resets the peak resident set size (Linux 4.0 and later).
        let _ = std::fs::write("/proc/self/clear_refs", "5");
        let started = Instant::now();
        let mut disc = match piney_disc::open(&image) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("{e}");
                continue;
            }
        };
        let opened = started.elapsed();
        let n = disc.sector_count();
        println!(
            "{image}: {:?}, {:?}, {n} sectors ({:.1} MiB), opened in {opened:.1?}",
            disc.format(),
            disc.kind(),
            (n * SECTOR_SIZE as u64) as f64 / (1 << 20) as f64
        );
        let mut buf = [0u8; SECTOR_SIZE];
        let mut checksum = 0u64;
        let count = n.min(max_sectors);
        let t = Instant::now();
        for lba in 0..count {
            if let Err(e) = disc.read_user(lba, &mut buf) {
                eprintln!("{e}");
                break;
            }
            checksum = checksum.wrapping_add(buf[lba as usize % SECTOR_SIZE] as u64);
        }
        let secs = t.elapsed().as_secs_f64();
        println!(
            "  sequential: {count} sectors in {secs:.2} s = {:.0} sectors/s ({:.1} MiB/s)",
            count as f64 / secs,
            count as f64 * SECTOR_SIZE as f64 / secs / (1 << 20) as f64
        );
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let t = Instant::now();
        for _ in 0..RANDOM_READS {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let lba = state % n.max(1);
            if let Err(e) = disc.read_user(lba, &mut buf) {
                eprintln!("{e}");
                break;
            }
            checksum = checksum.wrapping_add(buf[0] as u64);
        }
        let secs = t.elapsed().as_secs_f64();
        println!(
            "  random: {RANDOM_READS} sectors in {secs:.2} s = {:.0} sectors/s",
            RANDOM_READS as f64 / secs
        );
        println!(
            "  peak RSS with the image open: {} KiB (now {} KiB) [checksum {checksum:x}]",
            status_kib("VmHWM:").map_or("?".into(), |k| k.to_string()),
            status_kib("VmRSS:").map_or("?".into(), |k| k.to_string()),
        );
    }
}
