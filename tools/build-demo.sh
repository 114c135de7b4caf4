#!/bin/sh
# Builds the demo title, demo/demo.elf, from demo/src/*.c|*.S, the VU1 microprogram
# demo/vu/*.bin (assembled from demo/vu/*.vsm by demo/vuasm and committed) and tools/guest's
# crt0, linker script, runtime, SIF RPC client (its IOP variant), libpad and IOP libraries
# (loadfile, iopheap, iopreset), and the title's IOP modules demo/iop/ccmon.irx and
# demo/iop/ccsnd.irx (built by tools/build-iop.sh), with Debian's gcc-mipsel-linux-gnu.
#
# The output is deterministic (relative paths, no timestamps, no build id, no .comment):
#
#   tools/build-demo.sh            rebuild demo/demo.elf (and demo/disc/PINY_000.01, its disc's boot file)
#   tools/build-demo.sh --check    rebuild into a temporary folder and fail if demo/demo.elf
#                                  differs; with cargo present, also check that every
#                                  demo/vu/*.bin matches its .vsm
#   tools/build-demo.sh --vu       reassemble demo/vu/*.vsm into demo/vu/*.bin (needs cargo)
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

CROSS=${CROSS:-mipsel-linux-gnu-}
CC=${CROSS}gcc

MODE=build
case "${1:-}" in
--check) MODE=check ;;
--vu) MODE=vu ;;
"") ;;
*)
    echo "build-demo: unknown option $1 (usage: build-demo.sh [--check | --vu])" >&2
    exit 2
    ;;
esac

VUASM="cargo run --quiet --offline --manifest-path demo/vuasm/Cargo.toml --"
if [ $MODE = vu ]; then
    $VUASM demo/vu
    exit 0
fi

if ! command -v "$CC" >/dev/null 2>&1; then
    echo "build-demo: $CC not found (apt-get install gcc-mipsel-linux-gnu)" >&2
    exit 2
fi

# The guest programs' flags (tools/build-guest.sh); -Idemo/src for the title's headers.
CFLAGS="-march=r5900 -mabi=32 -msingle-float -mno-abicalls -fno-pic -G0 \
 -ffreestanding -nostdlib -O2 -Wall -Wextra -Werror -std=gnu11 \
 -fno-tree-loop-distribute-patterns -fno-asynchronous-unwind-tables \
 -ffile-prefix-map=$ROOT/= -Itools/guest -Idemo/src"
LDFLAGS="-nostdlib -static -T tools/guest/link.ld -Wl,-N -Wl,--build-id=none \
 -Wl,--strip-debug -Wl,--no-undefined"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# crt0 first (the linker script puts its .text at the load address), then the title, then
# the runtime and the pad library.
OBJS="$TMP/crt0.o"
# shellcheck disable=SC2086
$CC $CFLAGS -c tools/guest/crt0.S -o "$TMP/crt0.o"
# The title's IOP modules are embedded (demo/src/cciop.c): tools/build-iop.sh builds them.
for m in ccmon ccsnd; do
    if [ ! -f demo/iop/$m.irx ]; then
        echo "build-demo: demo/iop/$m.irx is missing (run tools/build-iop.sh $m)" >&2
        exit 2
    fi
done
# The SIF client is the IOP variant (reset, RDATA; tools/guest/sifrpc.h), with the EE's IOP
# libraries: the title resets the IOP and loads modules.
for src in $(ls demo/src/*.c demo/src/*.S | LC_ALL=C sort) tools/guest/runtime.c \
    tools/guest/sifrpc.c tools/guest/libpad.c tools/guest/loadfile.c tools/guest/iopheap.c \
    tools/guest/iopreset.c; do
    obj="$TMP/$(basename "$src" | tr . _).o"
    EXTRA=""
    [ "$src" = tools/guest/sifrpc.c ] && EXTRA=-DPINEY_SIFRPC_IOP
    # shellcheck disable=SC2086
    $CC $CFLAGS $EXTRA -c "$src" -o "$obj"
    OBJS="$OBJS $obj"
done
# shellcheck disable=SC2086
$CC $CFLAGS $LDFLAGS $OBJS -o "$TMP/demo.elf"
if ${CROSS}nm "$TMP/demo.elf" | grep -q ' U '; then
    echo "build-demo: demo.elf has undefined symbols" >&2
    exit 1
fi

if [ $MODE = check ]; then
    FAIL=0
    if ! cmp -s "$TMP/demo.elf" demo/demo.elf; then
        echo "build-demo: demo/demo.elf differs from its sources (run tools/build-demo.sh)" >&2
        echo "build-demo: (built with $($CC --version | head -n 1))" >&2
        FAIL=1
    fi
    # The demo's disc (demo/disc/) boots the same ELF, as its boot file PINY_000.01.
    if ! cmp -s "$TMP/demo.elf" demo/disc/PINY_000.01; then
        echo "build-demo: demo/disc/PINY_000.01 differs from the demo's build (run tools/build-demo.sh)" >&2
        FAIL=1
    fi
    if command -v cargo >/dev/null 2>&1; then
        $VUASM --check demo/vu || FAIL=1
    fi
    [ $FAIL = 0 ] && echo "build-demo: demo/demo.elf matches its sources"
    exit $FAIL
fi
cp "$TMP/demo.elf" demo/demo.elf
cp "$TMP/demo.elf" demo/disc/PINY_000.01
echo "built demo/demo.elf and its disc's boot file demo/disc/PINY_000.01 ($(wc -c <demo/demo.elf) bytes)"
