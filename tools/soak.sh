#!/usr/bin/env bash
# The soak by hand: the demo for an hour of emulated time (or SECONDS) with a seeded random input
# script, checking its frame counter, task list, heap, kernel, sound and the host's memory and
# threads (crates/piney-fuzz/src/soak.rs). Usage: tools/soak.sh [SECONDS] [SEED] [--jit]
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo run --release -p piney-fuzz --example soak -- "$@"
