#!/bin/sh
# Presented-frame jitter in the window (a benchmark, not a timed test): the demo in a real
# window under Xvfb for a minute at 60 fps and a minute at 30 fps (select pressed once at
# vertical blank 60, which switches the demo's frame controller to 30 fps), with --stats: the
# window's "presented-frame jitter" line gives, per frame rate, the error of each interval
# between two presented pictures (timed when each present returned) against their vertical
# blanks' distance (1001/60000 s each): mean, standard deviation, 99th percentile and largest;
# the "present-call jitter" line the same, timed when each present was called.
#
# Before each demo run, the display path's floor at the same rate for as long: the window's
# code around an emulator that does no work (crates/piney-frontend/examples/jitter_floor.rs).
# Under Xvfb with lavapipe each present copies the window's pixels to the X server through its
# socket, and that copy's time varies with how the host schedules the server; what the demo
# has above the floor is piney's.
#
#   tools/bench-jitter.sh [--piney PATH] [SECONDS]      (SECONDS defaults to 60 for each rate)
#
# Needs Xvfb; sound goes nowhere (--no-audio) so that only the picture's pacing is measured.
# Without --piney (or $PINEY) it builds and uses the release binary; the floor's example is
# built (release) unless $JITTER_FLOOR names it.
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
PINEY_BIN=${PINEY:-}
if [ "${1:-}" = "--piney" ]; then
    PINEY_BIN=$2
    shift 2
fi
SECONDS_EACH=${1:-60}
case "$SECONDS_EACH" in
    '' | *[!0-9]*)
        echo "bench-jitter: SECONDS must be a whole number, not '$SECONDS_EACH'" >&2
        exit 2
        ;;
esac
if [ -z "$PINEY_BIN" ]; then
    cargo build --release --locked -p piney >&2
    PINEY_BIN=${CARGO_TARGET_DIR:-$ROOT/target}/release/piney
fi
FLOOR_BIN=${JITTER_FLOOR:-}
if [ -z "$FLOOR_BIN" ]; then
    cargo build --release --locked -p piney-frontend --example jitter_floor >&2
    FLOOR_BIN=${CARGO_TARGET_DIR:-$ROOT/target}/release/examples/jitter_floor
fi
TMP=$(mktemp -d)
trap 'kill $XVFB_PID 2>/dev/null; rm -rf "$TMP"' EXIT
DISPLAY_NO=:$((90 + $$ % 100))
Xvfb "$DISPLAY_NO" -screen 0 1280x1024x24 >/dev/null 2>&1 &
XVFB_PID=$!
sleep 2
export DISPLAY="$DISPLAY_NO"
export XDG_CONFIG_HOME="$TMP/config"
FRAMES=$((SECONDS_EACH * 60))
printf '# select once: the demo goes to 30 fps\n60 select\n' >"$TMP/30fps.txt"
for rate in 60 30; do
    line=$("$FLOOR_BIN" "$rate" "$SECONDS_EACH" 2>/dev/null |
        grep 'presented-frame jitter\|present-call jitter' || true)
    printf '%s\n' "$line" | sed "s/^piney: /bench-jitter: ${rate} fps floor (the window alone), ${SECONDS_EACH} s: /"
    if [ "$rate" = 30 ]; then
        set -- --input "$TMP/30fps.txt"
    else
        set --
    fi
    line=$("$PINEY_BIN" demo --frames "$FRAMES" --no-audio --stats "$@" 2>&1 >/dev/null |
        grep 'presented-frame jitter\|present-call jitter' || true)
    printf '%s\n' "$line" | sed "s/^piney: /bench-jitter: ${rate} fps run, ${SECONDS_EACH} s: /"
done
