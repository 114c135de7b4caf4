#!/bin/sh
# Cross-checks the portable guest programs against real MIPS semantics:
# each program listed below is compiled from the same C source for ordinary
# MIPS32 (o32, static, Linux) with tools/guest/qemu_shim.c in place of crt0
# and the SIO, run under qemu-mipsel, and its stdout compared with the
# committed tests/guest/<name>.stdout. Needs gcc-mipsel-linux-gnu and
# qemu-user (qemu-mipsel).
#
#   tools/check-qemu.sh            check every portable program
#   tools/check-qemu.sh NAME...    check only these
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

CC=${CROSS:-mipsel-linux-gnu-}gcc
QEMU=${QEMU:-qemu-mipsel}
for tool in "$CC" "$QEMU"; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "check-qemu: $tool not found" >&2
        exit 2
    fi
done

# Programs in plain C: no MMI, COP0, COP2, PS2 float semantics or kernel.
PORTABLE="hello alu muldiv64 control bench_compute"
if [ $# -gt 0 ]; then
    PORTABLE="$*"
fi

CFLAGS="-march=mips32r2 -mabi=32 -mno-abicalls -fno-pic -static -nostdlib \
 -ffreestanding -O2 -Wall -Werror -std=gnu11 -fno-tree-loop-distribute-patterns \
 -DPINEY_HOST_SHIM -Itools/guest"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

pass=0
fail=0
for name in $PORTABLE; do
    # Debian's libgcc supplies the 64-bit division helpers here (checking the
    # runtime's own against it); its PIC objects make ld warn, so show the
    # compiler's messages only when the build fails.
    # shellcheck disable=SC2086
    if ! $CC $CFLAGS "tests/guest/$name.c" tools/guest/runtime.c tools/guest/qemu_shim.c \
        -Wl,-e,__start -lgcc -o "$TMP/$name" 2>"$TMP/cc.err"; then
        cat "$TMP/cc.err" >&2
        exit 1
    fi
    if "$QEMU" "$TMP/$name" >"$TMP/$name.out"; then
        if cmp -s "$TMP/$name.out" "tests/guest/$name.stdout"; then
            echo "PASS $name"
            pass=$((pass + 1))
        else
            echo "FAIL $name (stdout differs from tests/guest/$name.stdout)"
            diff "tests/guest/$name.stdout" "$TMP/$name.out" | head -20 || true
            fail=$((fail + 1))
        fi
    else
        echo "FAIL $name (exit status $?)"
        fail=$((fail + 1))
    fi
done
echo "$pass passed, $fail failed"
[ $fail = 0 ]
