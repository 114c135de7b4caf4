#!/bin/sh
# Builds piney's guest programs: every tests/guest/*.c and tests/guest/*.S
# becomes tests/guest/<name>.elf, linked at 0x00100000 with tools/guest's
# crt0, linker script and runtime (and, for the programs that call them, the
# SIF RPC client and libpad of tools/guest), by Debian's gcc-mipsel-linux-gnu.
#
# Two libraries: libguest.a (the SIF RPC client and libpad) for every program,
# and libiop.a for the programs that talk to a real IOP, those whose source
# has the line
#   /* libs: iop */
# libiop.a holds the IOP variant of the SIF client (sifrpc.c compiled with
# -DPINEY_SIFRPC_IOP: IOP reboots, RDATA; see tools/guest/sifrpc.h), libpad,
# and the EE's IOP libraries: loadfile, iopheap, iopreset, libmc. (Two
# archives, so that the programs of libguest.a keep the plain SIF client and
# their ELFs do not change.)
#
# A program may embed files of the repository (`.incbin` in an asm block, the
# path from the repository root); a line
#   /* needs: tests/iop/rpcserver.irx */
# names them, and the build stops with a clear message when one is missing (a
# change to such a file needs the ELF rebuilt too; --check tells).
#
# The output is deterministic (relative paths, no timestamps, no build id,
# no .comment), so the committed ELFs can be checked against their sources:
#
#   tools/build-guest.sh            rebuild every ELF in place
#   tools/build-guest.sh --check    rebuild into a temporary folder and fail
#                                   if any committed ELF differs (or is missing)
#   tools/build-guest.sh NAME...    rebuild only these programs
#
# A program may link other sources of the repository too: a line
#   /* build: demo/src/tscb.c demo/src/heap.c */
# in it names them (paths from the repository root; each compiled on its own
# with the same flags and linked after the program, in the order given), so
# that e.g. tests/guest/tasks_*.c run the demo title's own scheduler (a
# change to such a source needs those ELFs rebuilt too; --check tells).
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

CROSS=${CROSS:-mipsel-linux-gnu-}
CC=${CROSS}gcc
if ! command -v "$CC" >/dev/null 2>&1; then
    echo "build-guest: $CC not found (apt-get install gcc-mipsel-linux-gnu)" >&2
    exit 2
fi

# The R5900 in o32: 32-bit ABI, single-precision FPU only, no PIC, no small
# data. -fno-tree-loop-distribute-patterns keeps gcc from turning the
# runtime's own memcpy/memset loops into calls to themselves.
CFLAGS="-march=r5900 -mabi=32 -msingle-float -mno-abicalls -fno-pic -G0 \
 -ffreestanding -nostdlib -O2 -Wall -Wextra -Werror -std=gnu11 \
 -fno-tree-loop-distribute-patterns -fno-asynchronous-unwind-tables \
 -ffile-prefix-map=$ROOT/=  -Itools/guest"
LDFLAGS="-nostdlib -static -T tools/guest/link.ld -Wl,-N -Wl,--build-id=none \
 -Wl,--strip-debug -Wl,--no-undefined"

CHECK=0
if [ "${1:-}" = "--check" ]; then
    CHECK=1
    shift
fi

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# Shared objects: crt0 and the runtime.
# shellcheck disable=SC2086
$CC $CFLAGS -c tools/guest/crt0.S -o "$TMP/crt0.o"
# shellcheck disable=SC2086
$CC $CFLAGS -c tools/guest/runtime.c -o "$TMP/runtime.o"
# The optional runtime libraries (the SIF command/RPC client, libpad) go into an archive, so
# that only the programs that call them link them (the others' ELFs do not change). `ar D`:
# deterministic (no timestamps, uids or modes).
LIBOBJS=""
for lib in sifrpc libpad; do
    # shellcheck disable=SC2086
    $CC $CFLAGS -c "tools/guest/$lib.c" -o "$TMP/$lib.o"
    LIBOBJS="$LIBOBJS $TMP/$lib.o"
done
# shellcheck disable=SC2086
${CROSS}ar rcsD "$TMP/libguest.a" $LIBOBJS
# The IOP programs' library: the IOP variant of the SIF client, libpad, the IOP libraries.
# shellcheck disable=SC2086
$CC $CFLAGS -DPINEY_SIFRPC_IOP -c tools/guest/sifrpc.c -o "$TMP/sifrpc_iop.o"
IOPOBJS="$TMP/sifrpc_iop.o $TMP/libpad.o"
for lib in loadfile iopheap iopreset libmc; do
    # shellcheck disable=SC2086
    $CC $CFLAGS -c "tools/guest/$lib.c" -o "$TMP/$lib.o"
    IOPOBJS="$IOPOBJS $TMP/$lib.o"
done
# shellcheck disable=SC2086
${CROSS}ar rcsD "$TMP/libiop.a" $IOPOBJS

if [ $# -gt 0 ]; then
    SOURCES=""
    for n in "$@"; do
        n=${n%.elf}
        if [ -f "tests/guest/$n.c" ]; then
            SOURCES="$SOURCES tests/guest/$n.c"
        elif [ -f "tests/guest/$n.S" ]; then
            SOURCES="$SOURCES tests/guest/$n.S"
        else
            echo "build-guest: no source for $n in tests/guest" >&2
            exit 2
        fi
    done
else
    SOURCES=$(ls tests/guest/*.c tests/guest/*.S 2>/dev/null | LC_ALL=C sort)
fi

mkdir -p "$TMP/out"
FAIL=0
for src in $SOURCES; do
    base=$(basename "$src")
    name=${base%.*}
    obj="$TMP/$name.o"
    for x in $(sed -n 's|^/\* needs: \(.*\) \*/$|\1|p' "$src"); do
        if [ ! -f "$x" ]; then
            echo "build-guest: $src embeds $x, which does not exist (build it first)" >&2
            exit 2
        fi
    done
    LIB="$TMP/libguest.a"
    if grep -q '^/\* libs: iop \*/$' "$src"; then
        LIB="$TMP/libiop.a"
    fi
    # shellcheck disable=SC2086
    $CC $CFLAGS -c "$src" -o "$obj"
    EXTRA=""
    for x in $(sed -n 's|^/\* build: \(.*\) \*/$|\1|p' "$src"); do
        if [ ! -f "$x" ]; then
            echo "build-guest: $src: build source $x not found" >&2
            exit 2
        fi
        xobj="$TMP/$name-$(echo "$x" | tr /. __).o"
        # shellcheck disable=SC2086
        $CC $CFLAGS -c "$x" -o "$xobj"
        EXTRA="$EXTRA $xobj"
    done
    # shellcheck disable=SC2086
    $CC $CFLAGS $LDFLAGS "$TMP/crt0.o" "$obj" $EXTRA "$TMP/runtime.o" "$LIB" \
        -o "$TMP/out/$name.elf"
    # Never let an SPECIAL2 (MIPS32 libgcc) routine or an unresolved helper in.
    if ${CROSS}nm "$TMP/out/$name.elf" | grep -q ' U '; then
        echo "build-guest: $name.elf has undefined symbols" >&2
        exit 1
    fi
    if [ $CHECK = 1 ]; then
        if ! cmp -s "$TMP/out/$name.elf" "tests/guest/$name.elf"; then
            echo "build-guest: tests/guest/$name.elf differs from its source (run tools/build-guest.sh)" >&2
            FAIL=1
        fi
    else
        cp "$TMP/out/$name.elf" "tests/guest/$name.elf"
        echo "built tests/guest/$name.elf ($(wc -c <"tests/guest/$name.elf") bytes)"
    fi
done

if [ $CHECK = 1 ]; then
    # A committed ELF without a source is stale too.
    for elf in tests/guest/*.elf; do
        [ -e "$elf" ] || continue
        name=$(basename "$elf" .elf)
        if [ ! -f "tests/guest/$name.c" ] && [ ! -f "tests/guest/$name.S" ]; then
            echo "build-guest: $elf has no source" >&2
            FAIL=1
        fi
    done
    if [ $FAIL = 0 ]; then
        echo "build-guest: every ELF matches its source"
    else
        echo "build-guest: (the committed ELFs come from Debian 12's gcc 12.2 and binutils 2.40;" >&2
        echo "build-guest:  this is $($CC --version | head -n 1))" >&2
    fi
    exit $FAIL
fi
