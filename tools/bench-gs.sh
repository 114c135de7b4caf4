#!/bin/sh
# GS renderer benchmark (a benchmark, not a timed test): the frame time of the demo and of a busy
# scene, replayed from GS dumps through the software renderer and the wgpu renderer at each
# render scale, in one run (piney-gs-wgpu's replay_bench: sw; wgpu with each picture read back;
# wgpu with the picture left on the GPU, as a window has it, the GPU goal's figure).
#
#   tools/bench-gs.sh [--frames N] [--scales 1,2,4,8] [DUMP...]
#
# Without DUMP it records its two scenes first: the demo from vertical blank 300 (`piney demo
# --headless --dump-gs-at 300`: the VU1 3D scene, its layers and text) and gs_bench's busy frame
# (`gs_bench --write-dump`: a full-screen bilinear sprite under 3,000 blended bilinear
# triangles). With DUMP (PCSX2's or piney's, .gs/.gs.xz/.gs.zst) it replays those instead.
# FRAMES (default 6) frames of each, the first not timed; SCALES default 1,2,4,8. It fails when
# the wgpu renderer's pictures are not the software renderer's (or the device fails).
# Builds the release binaries unless $PINEY, $REPLAY_BENCH and $GS_BENCH name them (a machine
# without the toolchain, such as a lent GPU machine, runs prebuilt ones).
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
FRAMES=6
SCALES=1,2,4,8
while [ $# -gt 0 ]; do
    case "$1" in
    --frames) FRAMES=$2; shift 2 ;;
    --scales) SCALES=$2; shift 2 ;;
    -h | --help) sed -n '2,16p' "$0"; exit 0 ;;
    -*) echo "bench-gs: unknown option $1" >&2; exit 2 ;;
    *) break ;;
    esac
done
case "$FRAMES" in
'' | *[!0-9]* | 0 | 1)
    echo "bench-gs: --frames must be a number of at least 2, not '$FRAMES'" >&2
    exit 2
    ;;
esac
case "$SCALES" in
'' | *[!0-9,]*)
    echo "bench-gs: --scales must be like 1,2,4,8, not '$SCALES'" >&2
    exit 2
    ;;
esac

TARGET=${CARGO_TARGET_DIR:-target}
REPLAY_BENCH=${REPLAY_BENCH:-}
if [ -z "$REPLAY_BENCH" ]; then
    cargo build --release --locked --quiet -p piney-gs-wgpu --example replay_bench
    REPLAY_BENCH=$TARGET/release/examples/replay_bench
fi

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
if [ $# -eq 0 ]; then
    PINEY_BIN=${PINEY:-}
    GS_BENCH=${GS_BENCH:-}
    if [ -z "$PINEY_BIN" ]; then
        cargo build --release --locked --quiet -p piney
        PINEY_BIN=$TARGET/release/piney
    fi
    if [ -z "$GS_BENCH" ]; then
        cargo build --release --locked --quiet -p piney-gs --example gs_bench
        GS_BENCH=$TARGET/release/examples/gs_bench
    fi
    "$PINEY_BIN" demo --headless --no-audio --frames $((300 + FRAMES + 1)) --dump-gs-at 300 \
        --dump-gs-frames "$FRAMES" --dump-gs "$TMP/demo.gs" >/dev/null 2>&1 || {
        echo "bench-gs: recording the demo's dump failed ($PINEY_BIN demo ... --dump-gs)" >&2
        exit 1
    }
    "$GS_BENCH" --write-dump "$TMP/busy.gs" "$FRAMES"
    set -- "$TMP/demo.gs" "$TMP/busy.gs"
fi
# Every dump is timed; a failure (a device error, or pictures not equal to the software
# renderer's) fails the run at the end.
failed=0
for dump in "$@"; do
    case "$dump" in
    "$TMP"/*) echo "== $(basename "$dump" .gs)" ;;
    *) echo "== $dump" ;;
    esac
    "$REPLAY_BENCH" "$dump" "$FRAMES" "$SCALES" || failed=1
done
exit $failed
