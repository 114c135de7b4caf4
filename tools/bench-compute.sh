#!/bin/sh
# CPU benchmark (a benchmark, not a timed test): the C program
# tests/guest/bench_compute.c (integer hashing, a matrix multiply, a sieve,
# CRC-32, sorting, a bytecode interpreter, 16.16 fixed-point transforms,
# memory copies) under `piney run --headless --cpu interp`, `--cpu jit` and,
# built from the same source for MIPS32 Linux, qemu-mipsel, in one run: the
# wall time of each, the ratios, the guest's instructions per second (from
# piney's --stats) and the recompiler's line (blocks, compile time per block,
# chained exits, loop passes, returns to the dispatcher). Then
# tests/guest/bench_float.c (single-precision matrix transforms: the FPU's
# adder and multiplier) under both engines, which must print the same (no
# qemu-mipsel figure: the PS2's float arithmetic is not IEEE's).
#
# With gcc-mipsel-linux-gnu present the program is built at BENCH_SCALE N
# (default 32: about 2,230 million guest instructions, half a second under the
# recompiler, so that the recompiler's fixed warm-up, about 20 ms here for its ~105
# blocks to compile while they run interpreted, weighs as little as a game's does; at
# --scale 8, 559 million, it is an eighth of the run) for piney (R5900, as
# tools/build-guest.sh builds it) and for qemu-mipsel, and every run must print
# what qemu-mipsel prints. Without it the committed tests/guest/bench_compute.elf
# (scale 1) runs and must print tests/guest/bench_compute.stdout.
#
# qemu-mipsel and `--cpu jit` run --runs N times each (default 3), alternating, and the
# fastest wall time of each is the one compared (every time is printed): on a shared machine a
# single run of either can be a fifth slower or more. With more than one round, the median of
# each round's own ratio (its qemu-mipsel run against its --cpu jit run, made one after the
# other) is printed too: the fastest runs of the two may come from different phases of a
# shared machine's load, a round's two runs mostly do not. The interpreter runs once.
#
#   tools/bench-compute.sh [--piney PATH] [--scale N] [--runs N] [piney options...]
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
PINEY_BIN=${PINEY:-}
SCALE=32
RUNS=3
while [ $# -gt 0 ]; do
    case "$1" in
        --piney) PINEY_BIN=$2; shift 2 ;;
        --scale) SCALE=$2; shift 2 ;;
        --runs) RUNS=$2; shift 2 ;;
        *) break ;;
    esac
done
case "$SCALE" in
    '' | *[!0-9]* | 0)
        echo "bench-compute: --scale must be a positive number, not '$SCALE'" >&2
        exit 2
        ;;
esac
case "$RUNS" in
    '' | *[!0-9]* | 0)
        echo "bench-compute: --runs must be a positive number, not '$RUNS'" >&2
        exit 2
        ;;
esac
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
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
# A time to the millisecond.
fmt() { awk -v a="$1" 'BEGIN { printf "%.3f", a }'; }
# The smaller of two times ($2 may be empty).
fastest() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a + 0 < b + 0) ? a : b }'; }

FLOAT_ELF=tests/guest/bench_float.elf
CROSS=${CROSS:-mipsel-linux-gnu-}
CC=${CROSS}gcc
ELF=tests/guest/bench_compute.elf
EXPECT=tests/guest/bench_compute.stdout
QEMU_BIN=""
if command -v "$CC" >/dev/null 2>&1; then
    # The R5900 build, as tools/build-guest.sh makes the committed ELF.
    R5900="-march=r5900 -mabi=32 -msingle-float -mno-abicalls -fno-pic -G0 -ffreestanding \
 -nostdlib -O2 -std=gnu11 -fno-tree-loop-distribute-patterns -fno-asynchronous-unwind-tables \
 -Itools/guest -DBENCH_SCALE=$SCALE"
    # shellcheck disable=SC2086
    $CC $R5900 -c tools/guest/crt0.S -o "$TMP/crt0.o"
    # shellcheck disable=SC2086
    $CC $R5900 -c tools/guest/runtime.c -o "$TMP/runtime.o"
    # shellcheck disable=SC2086
    $CC $R5900 -c tests/guest/bench_compute.c -o "$TMP/bench.o"
    # shellcheck disable=SC2086
    $CC $R5900 -nostdlib -static -T tools/guest/link.ld -Wl,-N -Wl,--build-id=none \
        "$TMP/crt0.o" "$TMP/bench.o" "$TMP/runtime.o" -o "$TMP/bench.elf"
    ELF=$TMP/bench.elf
    # shellcheck disable=SC2086
    $CC $R5900 -c tests/guest/bench_float.c -o "$TMP/float.o"
    # shellcheck disable=SC2086
    $CC $R5900 -nostdlib -static -T tools/guest/link.ld -Wl,-N -Wl,--build-id=none \
        "$TMP/crt0.o" "$TMP/float.o" "$TMP/runtime.o" -o "$TMP/float.elf"
    FLOAT_ELF=$TMP/float.elf
    if command -v qemu-mipsel >/dev/null 2>&1; then
        # shellcheck disable=SC2086
        $CC -march=mips32r2 -mabi=32 -mno-abicalls -fno-pic -static -nostdlib -ffreestanding \
            -O2 -std=gnu11 -fno-tree-loop-distribute-patterns -DPINEY_HOST_SHIM -Itools/guest \
            -DBENCH_SCALE=$SCALE tests/guest/bench_compute.c tools/guest/runtime.c \
            tools/guest/qemu_shim.c -Wl,-e,__start -lgcc -o "$TMP/bench.qemu" 2>/dev/null
        QEMU_BIN=$TMP/bench.qemu
    fi
    echo "bench_compute at scale $SCALE (built here; $(nproc) CPUs)"
else
    SCALE=1
    echo "bench_compute at scale 1 (the committed ELF: no $CC; $(nproc) CPUs)"
fi

# One run of qemu-mipsel: its wall time (its output, the expected one, in $TMP/qemu.out).
run_qemu() {
    t0=$(now)
    qemu-mipsel "$QEMU_BIN" >"$TMP/qemu.out"
    t1=$(now)
    elapsed "$t0" "$t1"
}

# One run of piney with --cpu $1 (and the other arguments): its wall time; its output must be
# the expected one.
run_piney() {
    cpu=$1
    shift
    t0=$(now)
    "$PINEY_BIN" run "$ELF" --headless --config /dev/null --seconds 1000 --stats --cpu "$cpu" \
        "$@" >"$TMP/$cpu.out" 2>"$TMP/$cpu.err" || true
    t1=$(now)
    if ! cmp -s "$TMP/$cpu.out" "$EXPECT"; then
        echo "bench-compute: --cpu $cpu printed something else than $EXPECT:" >&2
        cat "$TMP/$cpu.out" "$TMP/$cpu.err" >&2
        return 1
    fi
    elapsed "$t0" "$t1"
}

# The line of a piney run: time, guest instructions and their rate, the recompiler's line.
report() {
    count=$(sed -n 's/.*guest instructions: *\([0-9][0-9]*\).*/\1/p' "$TMP/$1.err" | tail -n 1)
    line=$(printf 'piney --cpu %s' "$1")
    if [ -n "$count" ]; then
        printf '%-28s %8.3f s  %s guest instructions, %.1f million a second%s\n' "$line" "$2" \
            "$count" "$(awk -v a="$count" -v b="$2" 'BEGIN { print a / b / 1e6 }')" "$3"
    else
        printf '%-28s %8.3f s%s\n' "$line" "$2" "$3"
    fi
    sed -n 's/^piney: recompiler: /    recompiler: /p' "$TMP/$1.err"
}

if [ -n "$QEMU_BIN" ]; then
    run_qemu >/dev/null
    EXPECT=$TMP/qemu.out
fi
interp_s=$(run_piney interp "$@")
qemu_s=""
qemu_all=""
jit_s=""
jit_all=""
# Each round's own jit/qemu ratio: the two runs of a round side by side, so that a slow phase
# of a shared machine weighs on both.
round_ratios=""
i=0
while [ $i -lt "$RUNS" ]; do
    if [ -n "$QEMU_BIN" ]; then
        q=$(run_qemu)
        qemu_all="$qemu_all $(fmt "$q")"
        qemu_s=$(fastest "$q" "$qemu_s")
    fi
    s=$(run_piney jit "$@")
    jit_all="$jit_all $(fmt "$s")"
    jit_s=$(fastest "$s" "$jit_s")
    if [ -n "$QEMU_BIN" ]; then
        round_ratios="$round_ratios $(ratio "$s" "$q")"
    fi
    i=$((i + 1))
done
# Every time of a repeated run, after the fastest.
all() {
    if [ "$RUNS" -gt 1 ]; then
        printf ' (fastest of %s:%s)' "$RUNS" "$1"
    fi
}
if [ -n "$QEMU_BIN" ]; then
    printf '%-28s %8.3f s%s\n' "qemu-mipsel (MIPS32)" "$qemu_s" "$(all "$qemu_all")"
fi
report interp "$interp_s" ""
report jit "$jit_s" "$(all "$jit_all")"
status=0
[ $status -eq 0 ] || exit $status
echo "jit speed-up over interp: $(ratio "$interp_s" "$jit_s")x"
if [ -n "$qemu_s" ]; then
    echo "time ratio jit/qemu: $(ratio "$jit_s" "$qemu_s"), interp/qemu: $(ratio "$interp_s" "$qemu_s")"
    if [ "$RUNS" -gt 1 ]; then
        # shellcheck disable=SC2086
        median=$(printf '%s\n' $round_ratios | sort -n | awk '{ v[NR] = $1 } END {
            if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
        echo "time ratio jit/qemu, median of the $RUNS rounds' own:$round_ratios -> $median"
    fi
fi

echo "bench_float (the FPU), both engines:"
for cpu in interp jit; do
    t0=$(now)
    "$PINEY_BIN" run "$FLOAT_ELF" --headless --config /dev/null --seconds 1000 --stats --cpu "$cpu" "$@" \
        >"$TMP/float-$cpu.out" 2>"$TMP/float-$cpu.err" || true
    t1=$(now)
    eval "float_${cpu}_s=$(elapsed "$t0" "$t1")"
    count=$(sed -n 's/.*guest instructions: *\([0-9][0-9]*\).*/\1/p' "$TMP/float-$cpu.err" | tail -n 1)
    eval "s=\$float_${cpu}_s"
    printf '%-28s %8.3f s  %s guest instructions\n' "piney --cpu $cpu" "$s" "${count:-?}"
done
if ! cmp -s "$TMP/float-interp.out" "$TMP/float-jit.out"; then
    echo "bench-compute: bench_float printed differently under the two engines:" >&2
    cat "$TMP/float-interp.out" "$TMP/float-jit.out" >&2
    exit 1
fi
echo "jit speed-up over interp (FPU): $(ratio "$float_interp_s" "$float_jit_s")x"
