#!/bin/sh
# Runs every .elf (an EE program) and every .irx (an IOP module, run on its own
# beside an idle EE program) under a folder with `piney run --headless` and
# compares the guest's stdout with the neighbouring .expected file (the
# ps2autotests layout: foo.elf or foo.irx beside foo.expected). Prints
# PASS/FAIL per test and a last line "N passed, M failed"; exits non-zero when
# any test failed.
#
#   tools/run-autotests.sh [options] FOLDER
#     --piney PATH     the piney binary (default: $PINEY, else target/release/piney,
#                      else target/debug/piney, else piney on PATH)
#     --timeout S      wall-clock seconds per test (default 60)
#     --seconds S      emulated seconds per test, passed to piney (default 20)
#     --diff           show the first lines of the difference for failures
#   Extra piney options can be given in $PINEY_ARGS (e.g. "--cpu interp").
#
# Line endings are compared exactly (the suite's .expected files use LF).
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PINEY_BIN=${PINEY:-}
TIMEOUT=60
SECONDS_ARG=20
SHOW_DIFF=0
DIR=""

while [ $# -gt 0 ]; do
    case "$1" in
    --piney) PINEY_BIN=$2; shift 2 ;;
    --timeout) TIMEOUT=$2; shift 2 ;;
    --seconds) SECONDS_ARG=$2; shift 2 ;;
    --diff) SHOW_DIFF=1; shift ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    -*) echo "run-autotests: unknown option $1" >&2; exit 2 ;;
    *) DIR=$1; shift ;;
    esac
done

if [ -z "$DIR" ] || [ ! -d "$DIR" ]; then
    echo "run-autotests: give a folder of .elf / .irx tests (see --help)" >&2
    exit 2
fi
if [ -z "$PINEY_BIN" ]; then
    for p in "$ROOT/target/release/piney" "$ROOT/target/debug/piney"; do
        if [ -x "$p" ]; then PINEY_BIN=$p; break; fi
    done
fi
if [ -z "$PINEY_BIN" ]; then
    PINEY_BIN=$(command -v piney || true)
fi
if [ -z "$PINEY_BIN" ] || [ ! -x "$PINEY_BIN" ]; then
    echo "run-autotests: no piney binary (build it, or pass --piney PATH)" >&2
    exit 2
fi

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

pass=0
fail=0
skip=0
find "$DIR" \( -name '*.elf' -o -name '*.irx' \) -type f | LC_ALL=C sort >"$TMP/list"
while IFS= read -r elf; do
    name=${elf#"$DIR"/}
    expected=${elf%.*}.expected
    if [ ! -f "$expected" ]; then
        echo "SKIP $name (no .expected)"
        skip=$((skip + 1))
        continue
    fi
    rc=0
    # shellcheck disable=SC2086
    timeout "$TIMEOUT" "$PINEY_BIN" run "$elf" --headless --config /dev/null --seconds "$SECONDS_ARG" ${PINEY_ARGS:-} \
        >"$TMP/out" 2>"$TMP/err" </dev/null || rc=$?
    if cmp -s "$TMP/out" "$expected" && [ $rc = 0 ]; then
        echo "PASS $name"
        pass=$((pass + 1))
    else
        why="stdout differs"
        if [ $rc = 124 ]; then
            why="timed out after ${TIMEOUT}s"
        elif [ $rc != 0 ]; then
            why="exit status $rc: $(tail -n 1 "$TMP/err")"
        fi
        echo "FAIL $name ($why)"
        if [ $SHOW_DIFF = 1 ]; then
            diff "$expected" "$TMP/out" | head -n 20 | sed 's/^/    /' || true
        fi
        fail=$((fail + 1))
    fi
done <"$TMP/list"

if [ $skip -gt 0 ]; then
    echo "$skip skipped (no .expected)"
fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]
