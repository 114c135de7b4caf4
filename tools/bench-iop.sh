#!/bin/sh
# IOP benchmark (a benchmark, not a timed test), from piney's own --stats lines, in one run:
#
#   1. the IOP's speed: tests/iop/compute.irx (a sieve, CRC-32 and a multiply/divide chain, no
#      kernel calls in its loops) under `piney run --headless --stats`: IOP instructions per
#      second of host time in the IOP's slices, and how many times faster than the console's
#      36.864 MHz IOP it ran (emulated time over wall time);
#   2. what the IOP costs the demo: `piney demo --headless --frames N --stats`: the host time
#      spent in the IOP's slices (and its native modules' per-frame work), the share of the
#      run, and the frame rate with it and without it;
#   3. what sound costs the demo: the host time of the SPU2's samples, its share and the frame
#      rate without it (the SPU2's own cost with all 48 voices on: `cargo run --release -p
#      piney-spu2 --example spu2_bench`).
#
#   tools/bench-iop.sh [--piney PATH] [FRAMES]      (FRAMES defaults to 600, ten seconds)
#
# Without --piney (or $PINEY) it builds and uses the release binary
# (`cargo build --release -p piney`, honouring CARGO_TARGET_DIR).
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
PINEY_BIN=${PINEY:-}
if [ "${1:-}" = "--piney" ]; then
    PINEY_BIN=$2
    shift 2
fi
FRAMES=${1:-600}
case "$FRAMES" in
    '' | *[!0-9]*)
        echo "bench-iop: FRAMES must be a number, not '$FRAMES'" >&2
        exit 2
        ;;
esac
if [ -z "$PINEY_BIN" ]; then
    cargo build --release -p piney --quiet
    PINEY_BIN=${CARGO_TARGET_DIR:-target}/release/piney
fi
if [ ! -x "$PINEY_BIN" ]; then
    echo "bench-iop: no piney binary at $PINEY_BIN" >&2
    exit 2
fi

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
echo "IOP benchmark ($PINEY_BIN, $(nproc) CPUs)"

if ! "$PINEY_BIN" run tests/iop/compute.irx --headless --config /dev/null --stats >"$TMP/out" 2>"$TMP/err"; then
    echo "bench-iop: compute.irx failed:" >&2
    cat "$TMP/err" >&2
    exit 1
fi
if ! cmp -s "$TMP/out" tests/iop/compute.stdout; then
    echo "bench-iop: compute.irx printed something else than tests/iop/compute.stdout" >&2
    exit 1
fi
insns=$(sed -n 's/^piney: IOP: \([0-9]*\) instructions, \([0-9.]*\) s in its slices.*/\1/p' "$TMP/err")
secs=$(sed -n 's/^piney: IOP: \([0-9]*\) instructions, \([0-9.]*\) s in its slices.*/\2/p' "$TMP/err")
factor=$(sed -n 's/.*(\([0-9.]*\)x real time).*/\1/p' "$TMP/err")
if [ -z "$insns" ] || [ -z "$secs" ] || [ -z "$factor" ]; then
    echo "bench-iop: no --stats lines:" >&2
    cat "$TMP/err" >&2
    exit 1
fi
awk -v n="$insns" -v s="$secs" -v f="$factor" 'BEGIN {
    printf "compute.irx   %d IOP instructions in %.3f s: %.1f million a second, %sx the console IOP'\''s speed\n", n, s, n / s / 1e6, f }'

if ! "$PINEY_BIN" demo --headless --config /dev/null --frames "$FRAMES" --stats >/dev/null 2>"$TMP/err"; then
    echo "bench-iop: the demo failed:" >&2
    cat "$TMP/err" >&2
    exit 1
fi
line=$(sed -n 's/^piney: IOP: //p' "$TMP/err")
if [ -z "$line" ]; then
    echo "bench-iop: no IOP --stats line from the demo:" >&2
    cat "$TMP/err" >&2
    exit 1
fi
echo "demo, $FRAMES frames: $line"
# 3. what sound costs the demo: the host time of the SPU2's samples (inside the IOP's slices).
line=$(sed -n 's/^piney: SPU2: //p' "$TMP/err")
if [ -z "$line" ]; then
    echo "bench-iop: no SPU2 --stats line from the demo:" >&2
    cat "$TMP/err" >&2
    exit 1
fi
echo "demo, $FRAMES frames, SPU2: $line"
