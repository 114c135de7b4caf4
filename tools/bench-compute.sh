#!/bin/sh
# Interpreter speed benchmark (a benchmark, not a timed test): runs
# tests/guest/bench_compute.elf under `piney run --headless` and reports the
# wall time, the guest's instructions per second when piney reports its count
# on stderr as a line "guest instructions: N" (e.g. under --stats), and, when
# gcc-mipsel-linux-gnu and qemu-mipsel are present, the time of the same C
# program under qemu-mipsel for a ratio measured in the same run.
#
#   tools/bench-compute.sh [--piney PATH] [piney options...]
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
PINEY_BIN=${PINEY:-}
if [ "${1:-}" = "--piney" ]; then
    PINEY_BIN=$2
    shift 2
fi
if [ -z "$PINEY_BIN" ]; then
    for p in target/release/piney target/debug/piney; do
        if [ -x "$p" ]; then PINEY_BIN=$p; break; fi
    done
fi
if [ -z "$PINEY_BIN" ] || [ ! -x "$PINEY_BIN" ]; then
    echo "bench-compute: no piney binary (cargo build --release -p piney, or --piney PATH)" >&2
    exit 2
fi

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { print b - a }'; }
ratio() { awk -v a="$1" -v b="$2" -v k="$3" 'BEGIN { print a / b / k }'; }

t0=$(now)
"$PINEY_BIN" run tests/guest/bench_compute.elf --headless "$@" >"$TMP/out" 2>"$TMP/err"
t1=$(now)
piney_s=$(elapsed "$t0" "$t1")
if ! cmp -s "$TMP/out" tests/guest/bench_compute.stdout; then
    echo "bench-compute: wrong output from piney:" >&2
    cat "$TMP/out" "$TMP/err" >&2
    exit 1
fi
printf 'piney %s: %.3f s\n' "$PINEY_BIN" "$piney_s"
count=$(sed -n 's/.*guest instructions: *\([0-9][0-9]*\).*/\1/p' "$TMP/err" | tail -n 1)
if [ -n "$count" ]; then
    printf 'guest instructions: %s, %.1f million per second\n' "$count" \
        "$(ratio "$count" "$piney_s" 1000000)"
else
    echo "(piney did not report 'guest instructions: N' on stderr; no instructions per second)"
fi

CC=${CROSS:-mipsel-linux-gnu-}gcc
if command -v "$CC" >/dev/null 2>&1 && command -v qemu-mipsel >/dev/null 2>&1; then
    $CC -march=mips32r2 -mabi=32 -mno-abicalls -fno-pic -static -nostdlib -ffreestanding -O2 \
        -std=gnu11 -fno-tree-loop-distribute-patterns -DPINEY_HOST_SHIM -Itools/guest \
        tests/guest/bench_compute.c tools/guest/runtime.c tools/guest/qemu_shim.c \
        -Wl,-e,__start -lgcc -o "$TMP/bench" 2>/dev/null
    t0=$(now)
    qemu-mipsel "$TMP/bench" >/dev/null
    t1=$(now)
    qemu_s=$(elapsed "$t0" "$t1")
    printf 'qemu-mipsel (same C, MIPS32): %.3f s; piney/qemu time ratio %.2f\n' "$qemu_s" \
        "$(ratio "$piney_s" "$qemu_s" 1)"
fi
