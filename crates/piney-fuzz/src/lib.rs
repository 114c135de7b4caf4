//! Seeded mutation fuzzing of every parser and loader piney has, on stable Rust.
//!
//! Contract:
//! - [`targets::TARGETS`] lists one [`harness::Target`] per format piney reads (ELF under both
//!   CPU engines, IRX, GIF and VIF streams by DMA, GS dumps raw/xz/zstd, PNG, input scripts,
//!   pad traces, profiles, mappings, disc images and cue sheets, memory card images and folder
//!   sidecars). A target feeds its input to the same calls the `piney` binary makes and returns
//!   `Ok` or the error line piney would print. Settings files and save states do not exist yet
//!   (issue 16) and have no target.
//! - [`harness::campaign`] runs a target's seeds, then mutants ([`mutate`]) drawn from a campaign
//!   seed: the same seed gives the same cases on every machine. Every case runs under
//!   `catch_unwind` (a panic fails it), the watchdog (a case past its deadline is a hang and
//!   stops the process) and, where the binary installs [`guard::CapAlloc`], the allocation cap
//!   (one allocation over 64 MiB stops the process). An error must be one line of at most 600
//!   characters with no control character ([`harness::error_line_fault`]).
//! - A failure names the target, the seed and the case's index, and
//!   `PINEY_FUZZ_REPRO=target:seed:index` runs that case alone and writes its bytes to a file.
//! - `cargo test -p piney-fuzz` is the bounded run CI makes (a fixed count of cases per target,
//!   each target's executions printed); `PINEY_FUZZ_SECONDS`, `PINEY_FUZZ_CASES` and
//!   `PINEY_FUZZ_SEED` make it longer, and `examples/fuzz.rs` is the same for hand runs in
//!   release builds.
//!
//! - [`soak`] runs the demo for a long stretch of emulated time with a seeded random input script,
//!   checking its frame counter, task list, heap, the kernel, emulated time, sound and the host's
//!   memory and threads (`examples/soak.rs` by hand, `tests/soak.rs` shortened in CI).
//!
//! The corpus (`corpus/`, and our own files elsewhere in the repository that the targets read in
//! place) holds only files made by this project and its tools.

pub mod guard;
pub mod harness;
pub mod mutate;
pub mod soak;
pub mod targets;

pub use harness::{Config, Failure, Report, Scratch, Seed, Target, campaign};
