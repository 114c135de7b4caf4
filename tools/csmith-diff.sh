#!/bin/sh
# A random differential of piney's EE against a real MIPS CPU: csmith (Debian's csmith and
# libcsmith-dev) writes random, well-defined C programs that print a checksum of their global
# state; each is compiled twice from the same source, as a piney guest (-march=r5900, our crt0,
# runtime and linker script) and as a MIPS32 Linux program (tools/guest/qemu_shim.c), and its
# checksum under piney's interpreter and recompiler must equal qemu-mipsel's. A disagreement
# prints the seed (rerun: tools/csmith-diff.sh 1 SEED; KEEP=DIR keeps the sources and ELFs).
#
#   tools/csmith-diff.sh [COUNT [FIRST_SEED]]     default 20 programs from seed 1
#   PINEY=path/to/piney                           default target/debug/piney
#
# Programs qemu does not finish within 10 s (csmith can write very long loops) are skipped and
# counted. Exit status 0 when every program agreed, 1 on a disagreement, 2 on a missing tool.
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

COUNT=${1:-20}
FIRST=${2:-1}
PINEY=${PINEY:-target/debug/piney}
CC=${CROSS:-mipsel-linux-gnu-}gcc
QEMU=${QEMU:-qemu-mipsel}
HEADERS=/usr/include/csmith
for tool in csmith "$CC" "$QEMU" "$PINEY"; do
    if ! command -v "$tool" >/dev/null 2>&1 && [ ! -x "$tool" ]; then
        echo "csmith-diff: $tool not found" >&2
        exit 2
    fi
done
if [ ! -f "$HEADERS/csmith.h" ]; then
    echo "csmith-diff: $HEADERS/csmith.h not found (apt-get install libcsmith-dev)" >&2
    exit 2
fi

TMP=${KEEP:-$(mktemp -d)}
mkdir -p "$TMP"
[ -n "${KEEP:-}" ] || trap 'rm -rf "$TMP"' EXIT

# csmith's runtime headers, with the few C library headers they include given as freestanding
# declarations (the guest has no C library; the runtime provides printf, memcpy, memset...).
mkdir -p "$TMP/inc"
cp "$HEADERS"/*.h "$TMP/inc/"
cat >"$TMP/inc/string.h" <<'EOF'
#include <stddef.h>
void *memcpy(void *, const void *, size_t);
void *memset(void *, int, size_t);
int strcmp(const char *, const char *);
size_t strlen(const char *);
EOF
echo 'int printf(const char *, ...);' >"$TMP/inc/stdio.h"
echo '#define assert(x) ((void)0)' >"$TMP/inc/assert.h"
: >"$TMP/inc/math.h"
cat >"$TMP/inc/limits.h" <<'EOF'
#define CHAR_BIT 8
#define SCHAR_MIN (-128)
#define SCHAR_MAX 127
#define UCHAR_MAX 255
#define CHAR_MIN SCHAR_MIN
#define CHAR_MAX SCHAR_MAX
#define SHRT_MIN (-32768)
#define SHRT_MAX 32767
#define USHRT_MAX 65535
#define INT_MAX 2147483647
#define INT_MIN (-INT_MAX - 1)
#define UINT_MAX 4294967295U
#define LONG_MAX 2147483647L
#define LONG_MIN (-LONG_MAX - 1L)
#define ULONG_MAX 4294967295UL
#define LLONG_MAX 9223372036854775807LL
#define LLONG_MIN (-LLONG_MAX - 1LL)
#define ULLONG_MAX 18446744073709551615ULL
EOF

COMMON="-mabi=32 -mno-abicalls -fno-pic -ffreestanding -nostdlib -O2 -w -std=gnu11 \
 -fno-tree-loop-distribute-patterns -fno-asynchronous-unwind-tables -Itools/guest -I$TMP/inc"
EE="-march=r5900 -msingle-float -G0 $COMMON"
HOST="-march=mips32r2 -static -DPINEY_HOST_SHIM $COMMON"
# shellcheck disable=SC2086
$CC $EE -c tools/guest/crt0.S -o "$TMP/crt0.o"
# shellcheck disable=SC2086
$CC $EE -c tools/guest/runtime.c -o "$TMP/runtime.o"

start=$(date +%s)
agreed=0
skipped=0
seed=$FIRST
last=$((FIRST + COUNT - 1))
while [ "$seed" -le "$last" ]; do
    src="$TMP/p$seed.c"
    # csmith writes a platform.info beside where it runs: in the scratch folder.
    (cd "$TMP" && csmith --seed "$seed" --max-funcs 4 --max-block-depth 3 --max-expr-complexity 6 -o "$src")
    # shellcheck disable=SC2086
    $CC $EE -c "$src" -o "$TMP/p$seed.o"
    # shellcheck disable=SC2086
    $CC $EE -static -T tools/guest/link.ld -Wl,-N -Wl,--build-id=none "$TMP/crt0.o" \
        "$TMP/p$seed.o" "$TMP/runtime.o" -lgcc -o "$TMP/p$seed.elf" 2>/dev/null
    # shellcheck disable=SC2086
    $CC $HOST "$src" tools/guest/runtime.c tools/guest/qemu_shim.c -Wl,-e,__start -lgcc \
        -o "$TMP/p$seed.host" 2>/dev/null
    if ! timeout 10 "$QEMU" "$TMP/p$seed.host" >"$TMP/p$seed.qemu" 2>/dev/null; then
        skipped=$((skipped + 1))
        seed=$((seed + 1))
        continue
    fi
    for cpu in interp jit; do
        if ! timeout 120 "$PINEY" run --headless --seconds 60 --cpu "$cpu" "$TMP/p$seed.elf" \
            >"$TMP/p$seed.$cpu" 2>"$TMP/p$seed.$cpu.err"; then
            echo "csmith-diff: seed $seed: piney --cpu $cpu failed: $(head -n 1 "$TMP/p$seed.$cpu.err")" >&2
            exit 1
        fi
        if ! cmp -s "$TMP/p$seed.qemu" "$TMP/p$seed.$cpu"; then
            echo "csmith-diff: seed $seed: piney --cpu $cpu prints $(cat "$TMP/p$seed.$cpu"), qemu-mipsel $(cat "$TMP/p$seed.qemu")" >&2
            exit 1
        fi
    done
    agreed=$((agreed + 1))
    seed=$((seed + 1))
done
echo "csmith-diff: $agreed programs agreed with qemu-mipsel under both CPU engines, $skipped skipped (qemu over 10 s), seeds $FIRST..$last, $(($(date +%s) - start)) s"
