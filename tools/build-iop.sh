#!/bin/sh
# Builds piney's IOP modules: every tests/iop/*.c and demo/iop/*.c becomes <name>.irx beside
# it, an IRX (the console's relocatable IOP module format) made by Debian's stock gcc-mipsel-linux-gnu
# and binutils-mipsel-linux-gnu with tools/iop's header and linker script:
#
#   1. each source is compiled for the R3000 (-march=r3000, o32, soft float, no PIC, no
#      small data, no implicit builtins);
#   2. the module's undefined symbols are looked up in tools/iop/irx.h's IOP_IMPORT lines and
#      an import table per system library is generated holding exactly those functions, with
#      the console's function indices;
#   3. ld -N -q -T tools/iop/irx.ld links everything at address 0 and keeps the relocations
#      (-q, --emit-relocs) that the IOP's loader applies at the load address;
#   4. a post-link step (dd, od and printf only) moves the .iopmod header to file offset 0x74,
#      right after the two program headers (and gives its section the type SHT_SCE_IOPMOD,
#      0x70000080), sets the program header count to 2 and the ELF type to 0xff80
#      (ET_SCE_IOPRELEXEC);
#   5. the result is checked: type, program headers, the .iopmod sizes against the segment,
#      relocation sections only for .text/.rodata/.data, relocation types only R_MIPS_32,
#      R_MIPS_26, R_MIPS_HI16 and R_MIPS_LO16, every HI16 directly followed by a LO16 of the
#      same symbol (the loader pairs them so), none against an absolute symbol, nothing
#      undefined.
#
# The output is deterministic (relative paths, no timestamps, no build id, no .comment), so the
# committed modules can be checked against their sources:
#
#   tools/build-iop.sh            rebuild every module in place
#   tools/build-iop.sh --check    rebuild into a temporary folder and fail if any committed
#                                 .irx differs (or is missing, or has no source)
#   tools/build-iop.sh NAME...    rebuild only these modules
#
# A module may link other sources of the repository too: a line
#   /* build: path/a.c path/b.c */
# in it names them (paths from the repository root; each compiled on its own with the same
# flags and linked after the module, in the order given).
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

CROSS=${CROSS:-mipsel-linux-gnu-}
CC=${CROSS}gcc
LD=${CROSS}ld
for tool in "$CC" "$LD" "${CROSS}nm" "${CROSS}readelf"; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "build-iop: $tool not found (apt-get install gcc-mipsel-linux-gnu binutils-mipsel-linux-gnu)" >&2
        exit 2
    fi
done

# The R3000 in o32: no FPU, no PIC, no small data (gp is not used), no builtins (a call to
# memcpy is sysclib's). gcc schedules the R3000's load and multiply delays itself for
# -march=r3000. -mno-explicit-relocs: every address is loaded by its own lui/addiu (or
# lui/load) pair, as the console's loader expects. -fno-tree-loop-distribute-patterns keeps
# loops loops (not memset calls).
CFLAGS="-march=r3000 -mabi=32 -msoft-float -mno-abicalls -fno-pic -G0 -mno-explicit-relocs \
 -ffreestanding -nostdlib -fno-builtin -O2 -Wall -Wextra -Werror -std=gnu11 \
 -fno-tree-loop-distribute-patterns -fno-asynchronous-unwind-tables -fno-unwind-tables \
 -fno-ident -ffile-prefix-map=$ROOT/= -Itools/iop"
LDFLAGS="-N -q -T tools/iop/irx.ld --build-id=none --strip-debug"

# The module folders: our test modules and the demo title's own.
MODULE_DIRS="tests/iop demo/iop"

CHECK=0
if [ "${1:-}" = "--check" ]; then
    CHECK=1
    shift
fi

TMP=$(mktemp -d)
trap '[ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT

# ---- ELF field access, little endian, with od/dd/printf only -------------------------------
# rd FILE OFFSET COUNT: the COUNT-byte little-endian unsigned integer at OFFSET.
rd() {
    _bytes=$(od -A n -t u1 -j $(($2)) -N $(($3)) "$1")
    _v=0
    _s=0
    for _b in $_bytes; do
        _v=$((_v | (_b << _s)))
        _s=$((_s + 8))
    done
    echo "$_v"
}
# wr FILE OFFSET COUNT VALUE: write VALUE as COUNT little-endian bytes at OFFSET.
# (Offsets go to od and dd in decimal: dd reads "0x74" as 0 times 74.)
wr() {
    _esc=""
    _i=0
    while [ "$_i" -lt "$3" ]; do
        _esc="$_esc\\$(printf %03o $((($4 >> (8 * _i)) & 255)))"
        _i=$((_i + 1))
    done
    # shellcheck disable=SC2059
    printf "$_esc" | dd of="$1" bs=1 seek=$(($2)) conv=notrunc 2>/dev/null
}
zero() {
    dd if=/dev/zero of="$1" bs=1 seek=$(($2)) count=$(($3)) conv=notrunc 2>/dev/null
}
hex() {
    printf 0x%x "$1"
}

# ---- The import table of tools/iop/irx.h ----------------------------------------------------
# libraries: "name major minor" in the header's order; functions: "symbol library index".
sed -n 's/^IOP_LIBRARY(\([a-z0-9_]*\), *\([0-9]*\), *\([0-9]*\))$/\1 \2 \3/p' tools/iop/irx.h \
    >"$TMP/libraries"
sed -n 's/^IOP_IMPORT(\([a-z0-9_]*\), *\([0-9]*\), [^,]*, *\([A-Za-z_][A-Za-z0-9_]*\), .*/\3 \1 \2/p' \
    tools/iop/irx.h | LC_ALL=C sort >"$TMP/functions"
if [ ! -s "$TMP/libraries" ] || [ ! -s "$TMP/functions" ]; then
    echo "build-iop: no IOP_LIBRARY/IOP_IMPORT lines in tools/iop/irx.h" >&2
    exit 2
fi

# gen_imports NAME UNDEFINED_FILE OUT.c: the import tables for the symbols listed.
gen_imports() {
    {
        echo "/* Import tables of $1, generated by tools/build-iop.sh from tools/iop/irx.h. */"
        echo '#include "irx.h"'
        while read -r lib major minor; do
            stubs=$(while read -r sym slib idx; do
                        [ "$slib" = "$lib" ] && grep -qx "$sym" "$2" && echo "$idx $sym"
                    done <"$TMP/functions" | sort -n -k1,1)
            [ -n "$stubs" ] || continue
            echo "IRX_IMPORTS($lib, $major, $minor,"
            echo "$stubs" | while read -r idx sym; do
                echo "    IRX_STUB($sym, $idx)"
            done
            echo ");"
        done <"$TMP/libraries"
    } >"$3"
}

# ---- Post-link: the ELF that ld made becomes an IRX -----------------------------------------
# fixup IN.elf OUT.irx NAME
fixup() {
    cp "$1" "$2"
    f=$2
    label=$3
    if [ "$(rd "$f" 0x1c 4)" != 52 ] || [ "$(rd "$f" 0x2a 2)" != 32 ] || [ "$(rd "$f" 0x2c 2)" != 5 ]; then
        echo "build-iop: $label: unexpected program headers (not linked with tools/iop/irx.ld?)" >&2
        return 1
    fi
    shoff=$(rd "$f" 0x20 4)
    shentsize=$(rd "$f" 0x2e 2)
    if ! ${CROSS}readelf -W -S "$f" | grep -q '^ *\[ *1\] \.iopmod '; then
        echo "build-iop: $label: section 1 is not .iopmod" >&2
        return 1
    fi
    ish=$((shoff + shentsize))         # section header 1, .iopmod
    ioff=$(rd "$f" $((ish + 16)) 4)    # its sh_offset
    isize=$(rd "$f" $((ish + 20)) 4)   # its sh_size
    loadoff=$(rd "$f" 0x58 4)          # p_offset of the PT_LOAD (program header 1)
    if [ $((0x74 + isize)) -gt "$loadoff" ]; then
        echo "build-iop: $label: .iopmod ($isize bytes) does not fit before the segment at $(hex "$loadoff") (module name too long?)" >&2
        return 1
    fi
    zero "$f" 0x74 $((loadoff - 0x74))                  # the reserved program headers
    dd if="$f" of="$f" bs=1 skip="$ioff" seek=$((0x74)) count="$isize" conv=notrunc 2>/dev/null
    zero "$f" "$ioff" "$isize"                          # the old copy
    wr "$f" 0x38 4 $((0x74))                            # program header 0: p_offset
    wr "$f" $((ish + 4)) 4 $((0x70000080))              # .iopmod: sh_type SHT_SCE_IOPMOD
    wr "$f" $((ish + 16)) 4 $((0x74))                   # .iopmod: sh_offset
    wr "$f" 0x2c 2 2                                    # e_phnum
    wr "$f" 0x10 2 $((0xff80))                          # e_type: ET_SCE_IOPRELEXEC
}

# ---- Checks of a finished IRX ----------------------------------------------------------------
# check_irx FILE NAME: fails (with a message about NAME) unless FILE is an IRX the console's
# loader can load.
check_irx() {
    f=$1
    label=$2
    bad() {
        echo "build-iop: $label: $*" >&2
        return 1
    }
    [ "$(rd "$f" 0x10 2)" = $((0xff80)) ] || bad "e_type is not 0xff80"
    [ "$(rd "$f" 0x12 2)" = 8 ] || bad "e_machine is not MIPS"
    [ "$(rd "$f" 0x2c 2)" = 2 ] || bad "not two program headers"
    [ "$(rd "$f" 0x34 4)" = $((0x70000080)) ] || bad "program header 0 is not PT_SCE_IOPMOD"
    [ "$(rd "$f" 0x38 4)" = $((0x74)) ] || bad ".iopmod is not at offset 0x74"
    [ "$(rd "$f" 0x54 4)" = 1 ] || bad "program header 1 is not PT_LOAD"
    [ "$(rd "$f" 0x5c 4)" = 0 ] || bad "the segment is not at address 0"
    text=$(rd "$f" $((0x74 + 12)) 4)
    data=$(rd "$f" $((0x74 + 16)) 4)
    bss=$(rd "$f" $((0x74 + 20)) 4)
    filesz=$(rd "$f" 0x64 4)
    memsz=$(rd "$f" 0x68 4)
    [ $((text + data)) = "$filesz" ] || bad "text $text + data $data != p_filesz $filesz"
    [ $((text + data + bss)) = "$memsz" ] || bad "text + data + bss $bss != p_memsz $memsz"
    if [ -n "$(${CROSS}nm -u "$f")" ]; then
        bad "undefined symbols: $(${CROSS}nm -u "$f" | tr '\n' ' ')"
    fi
    # Relocation sections: only for the sections of the segment.
    for s in $(${CROSS}readelf -W -S "$f" | sed -n 's/^ *\[ *[0-9]*\] \([^ ]*\) *REL[A]* .*/\1/p'); do
        case $s in
            .rel.text | .rel.rodata | .rel.data) ;;
            *) bad "relocation section $s" ;;
        esac
    done
    # Relocations: the console's four kinds, each HI16 directly followed by a LO16 of the
    # same symbol, none against an absolute symbol.
    ${CROSS}nm "$f" | sed -n 's/^[0-9a-f]* [aA] //p' >"$TMP/abs"
    ${CROSS}readelf -W -r "$f" >"$TMP/relocs"
    nrel=0
    prev=""
    prevsym=""
    : >"$TMP/relsyms"
    while read -r off info type value symname; do
        case $off in
            Relocation)
                [ "$prev" != R_MIPS_HI16 ] || bad "R_MIPS_HI16 at the end of a relocation section"
                prev=""
                continue
                ;;
            [0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]) ;;
            *) continue ;;
        esac
        sym=${info%??}
        case $type in
            R_MIPS_32 | R_MIPS_26 | R_MIPS_HI16 | R_MIPS_LO16) ;;
            *) bad "relocation $type at $off" ;;
        esac
        if [ "$prev" = R_MIPS_HI16 ]; then
            [ "$type" = R_MIPS_LO16 ] && [ "$sym" = "$prevsym" ] ||
                bad "R_MIPS_HI16 before $off is not followed by its R_MIPS_LO16"
        fi
        [ -z "${symname:-}" ] || echo "$symname" >>"$TMP/relsyms"
        prev=$type
        prevsym=$sym
        nrel=$((nrel + 1))
    done <"$TMP/relocs"
    [ "$prev" != R_MIPS_HI16 ] || bad "R_MIPS_HI16 at the end of a relocation section"
    if grep -qxF -f "$TMP/abs" "$TMP/relsyms"; then
        bad "relocation against an absolute symbol: $(grep -xF -f "$TMP/abs" "$TMP/relsyms" | sort -u | tr '\n' ' ')"
    fi
    [ "$nrel" -gt 0 ] || bad "no relocations"
}

if [ $# -gt 0 ]; then
    SOURCES=""
    for n in "$@"; do
        n=${n%.irx}
        n=${n##*/}
        found=""
        for d in $MODULE_DIRS; do
            [ -f "$d/$n.c" ] && found="$d/$n.c"
        done
        if [ -z "$found" ]; then
            echo "build-iop: no source for $n in $MODULE_DIRS" >&2
            exit 2
        fi
        SOURCES="$SOURCES $found"
    done
else
    SOURCES=""
    for d in $MODULE_DIRS; do
        SOURCES="$SOURCES $(ls "$d"/*.c 2>/dev/null | LC_ALL=C sort)"
    done
fi

mkdir -p "$TMP/out"
FAIL=0
for src in $SOURCES; do
    name=$(basename "$src" .c)
    dir=$(dirname "$src")
    objs="$TMP/$name.o"
    # shellcheck disable=SC2086
    $CC $CFLAGS -c "$src" -o "$TMP/$name.o"
    for x in $(sed -n 's|^/\* build: \(.*\) \*/$|\1|p' "$src"); do
        if [ ! -f "$x" ]; then
            echo "build-iop: $src: build source $x not found" >&2
            exit 2
        fi
        xobj="$TMP/$name-$(echo "$x" | tr /. __).o"
        # shellcheck disable=SC2086
        $CC $CFLAGS -c "$x" -o "$xobj"
        objs="$objs $xobj"
    done
    # The module's undefined symbols, each of which must be a system library function.
    # shellcheck disable=SC2086
    ${CROSS}nm -u $objs | sed -n 's/^ *U //p' | LC_ALL=C sort -u >"$TMP/$name.undef"
    # shellcheck disable=SC2086
    ${CROSS}nm --defined-only $objs | sed -n 's/^[0-9a-f]* [A-Za-z] //p' | LC_ALL=C sort -u >"$TMP/$name.def"
    LC_ALL=C comm -23 "$TMP/$name.undef" "$TMP/$name.def" >"$TMP/$name.need"
    cut -d ' ' -f 1 "$TMP/functions" | LC_ALL=C comm -23 "$TMP/$name.need" - >"$TMP/$name.unknown"
    if [ -s "$TMP/$name.unknown" ]; then
        echo "build-iop: $src: undefined: $(tr '\n' ' ' <"$TMP/$name.unknown")(not an IOP_IMPORT of tools/iop/irx.h)" >&2
        exit 1
    fi
    gen_imports "$name" "$TMP/$name.need" "$TMP/$name-imports.c"
    # shellcheck disable=SC2086
    $CC $CFLAGS -c "$TMP/$name-imports.c" -o "$TMP/$name-imports.o"
    # The import tables first: no function of the module lies at address 0.
    # shellcheck disable=SC2086
    $LD $LDFLAGS "$TMP/$name-imports.o" $objs -o "$TMP/$name.elf"
    fixup "$TMP/$name.elf" "$TMP/out/$name.irx" "$dir/$name.irx"
    check_irx "$TMP/out/$name.irx" "$dir/$name.irx"
    if [ $CHECK = 1 ]; then
        if ! cmp -s "$TMP/out/$name.irx" "$dir/$name.irx"; then
            echo "build-iop: $dir/$name.irx differs from its source (run tools/build-iop.sh)" >&2
            FAIL=1
        fi
    else
        cp "$TMP/out/$name.irx" "$dir/$name.irx"
        echo "built $dir/$name.irx ($(wc -c <"$dir/$name.irx") bytes)"
    fi
done

if [ $CHECK = 1 ]; then
    # A committed module without a source is stale too.
    for irx in $(for d in $MODULE_DIRS; do ls "$d"/*.irx 2>/dev/null; done); do
        name=$(basename "$irx" .irx)
        if [ ! -f "$(dirname "$irx")/$name.c" ]; then
            echo "build-iop: $irx has no source" >&2
            FAIL=1
        fi
    done
    if [ $FAIL = 0 ]; then
        echo "build-iop: every IRX matches its source"
    else
        echo "build-iop: (the committed modules come from Debian 12's gcc 12.2 and binutils 2.40;" >&2
        echo "build-iop:  this is $($CC --version | head -n 1))" >&2
    fi
    exit $FAIL
fi
