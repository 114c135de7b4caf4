#!/bin/sh
# Demo benchmark (a benchmark, not a timed test): runs `piney demo --headless --frames N --stats`
# once per EE engine and reports how many times faster than real time it ran (piney's own
# --stats line: emulated time over wall time), the EE's own time (--stats' EE line: the EE's
# thread's time less the IOP's slices and the waits for the GS, the part the engine changes)
# and the run's peak resident memory (the child's maximum RSS, from GNU time).
#
#   tools/bench-demo.sh [--piney PATH] [FRAMES]      (FRAMES defaults to 600, ten seconds)
#
# Without --piney (or $PINEY) it builds and uses the release binary
# (`cargo build --release -p piney`, honouring CARGO_TARGET_DIR). Needs /usr/bin/time
# (package `time`).
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
        echo "bench-demo: FRAMES must be a number, not '$FRAMES'" >&2
        exit 2
        ;;
esac
if [ ! -x /usr/bin/time ]; then
    echo "bench-demo: /usr/bin/time is missing (apt-get install time)" >&2
    exit 2
fi
if [ -z "$PINEY_BIN" ]; then
    cargo build --release -p piney --quiet
    PINEY_BIN=${CARGO_TARGET_DIR:-target}/release/piney
fi
if [ ! -x "$PINEY_BIN" ]; then
    echo "bench-demo: no piney binary at $PINEY_BIN" >&2
    exit 2
fi

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
echo "piney demo --headless --frames $FRAMES ($PINEY_BIN, $(nproc) CPUs)"
status=0
for cpu in interp jit; do
    if /usr/bin/time -v "$PINEY_BIN" demo --headless --config /dev/null --frames "$FRAMES" --stats --cpu "$cpu" \
        >/dev/null 2>"$TMP/err"; then
        factor=$(sed -n 's/.*(\([0-9.]*\)x real time).*/\1/p' "$TMP/err")
        rss=$(sed -n 's/.*Maximum resident set size (kbytes): *//p' "$TMP/err")
        if [ -z "$factor" ] || [ -z "$rss" ]; then
            echo "bench-demo: $cpu: no --stats or time line:" >&2
            cat "$TMP/err" >&2
            status=1
            continue
        fi
        # The EE's own time (its thread's, less the IOP's slices and the waits for the GS):
        # where the GS bounds the demo, the real-time factor is the GS's on either engine and
        # this is where the engines differ.
        ee=$(sed -n "s/^piney: EE: its thread's own time \([0-9.]*\) s.*/\1/p" "$TMP/err")
        if [ -z "$ee" ]; then
            echo "bench-demo: $cpu: no EE line in --stats:" >&2
            cat "$TMP/err" >&2
            status=1
            continue
        fi
        case $cpu in
            interp) ee_interp=$ee ;;
            jit) ee_jit=$ee ;;
        esac
        printf '%-7s %8sx real time   EE %s s   peak RSS %d MiB\n' "$cpu" "$factor" "$ee" \
            $((rss / 1024))
    else
        echo "bench-demo: $cpu failed:" >&2
        cat "$TMP/err" >&2
        status=1
    fi
done
if [ -n "${ee_interp:-}" ] && [ -n "${ee_jit:-}" ]; then
    echo "EE's own time, interp/jit: $(awk -v a="$ee_interp" -v b="$ee_jit" 'BEGIN { printf "%.2f", a / b }')x"
fi
exit $status
