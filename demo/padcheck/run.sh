#!/bin/sh
# The demo's ccPad::Read and motor queue against piney-input's (`piney pad-trace`): the same
# script through both must give the same lines. Needs a host C compiler, python3 and a built
# piney (PINEY, default target/debug/piney).
#
#   demo/padcheck/run.sh
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
PINEY=${PINEY:-target/debug/piney}
HOSTCC=${HOSTCC:-cc}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

$HOSTCC -std=gnu11 -O1 -Wall -Wno-pointer-to-int-cast -Idemo/padcheck/host -Idemo/src \
    -Itools/guest demo/padcheck/padcheck.c demo/src/ccpad.c demo/src/mathf.c -lm \
    -o "$TMP/padcheck"
python3 demo/padcheck/gen_script.py >"$TMP/script.txt"
# ccpad.c's own debug line (what ccPad::Ctrl sent, for headless runs) is not part of the trace.
"$TMP/padcheck" <"$TMP/script.txt" | grep -v '^ccPad::Ctrl:' >"$TMP/c.out"
"$PINEY" pad-trace "$TMP/script.txt" >"$TMP/native.out"
if ! cmp -s "$TMP/c.out" "$TMP/native.out"; then
    echo "padcheck: demo/src/ccpad.c and piney-input differ:" >&2
    diff "$TMP/c.out" "$TMP/native.out" | head -n 20 >&2
    exit 1
fi
echo "padcheck: $(wc -l <"$TMP/native.out") lines identical ($(grep -c '^ctrl small' "$TMP/native.out") sends)"
