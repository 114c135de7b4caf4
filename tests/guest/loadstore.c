/* loadstore: EE loads and stores: sign/zero extension of LB/LBU/LH/LHU/LW/
 * LWU/LD, the unaligned pairs LWL/LWR, LDL/LDR, SWL/SWR, SDL/SDR at every
 * byte offset (little-endian), and the 128-bit LQ/SQ whose address low four
 * bits are ignored. */
#include "piney_rt.h"

static u8 src[32] __attribute__((aligned(16)));
static u8 dst[32] __attribute__((aligned(16)));

static void fill(void)
{
    for (int i = 0; i < 32; i++) {
        src[i] = (u8)(i * 0x11);
        dst[i] = 0xee;
    }
    src[16] = 0x80;
    src[17] = 0xf0;
}

static void dump_dst(const char *what, int k)
{
    printf("%s %d:", what, k);
    for (int i = 0; i < 16; i++)
        printf(" %02x", dst[i]);
    putchar('\n');
}

/* Runs a load into $10 (preset to 0x0102030405060708) and returns all 64 bits. */
#define LOAD(insn, base)                                                        \
    ({                                                                          \
        u64 r_;                                                                 \
        __asm__ volatile(GP64("lui $10, 0x0102\n\tori $10, $10, 0x0304\n\t"     \
                              "dsll32 $10, $10, 0\n\tlui $9, 0x0506\n\t"        \
                              "ori $9, $9, 0x0708\n\tdsll32 $9, $9, 0\n\t"      \
                              "dsrl32 $9, $9, 0\n\tor $10, $10, $9\n\t" insn    \
                              "\n\tsd $10, %0")                                 \
                         : "=m"(r_)                                             \
                         : "r"(base)                                            \
                         : "$9", "$10", "memory");                              \
        r_;                                                                     \
    })

/* Stores the 64-bit pattern 0xa1a2a3a4a5a6a7a8 from $10 with `insn`. */
#define STORE(insn, base)                                                       \
    __asm__ volatile(GP64("lui $10, 0xa1a2\n\tori $10, $10, 0xa3a4\n\t"         \
                          "dsll32 $10, $10, 0\n\tlui $9, 0xa5a6\n\t"            \
                          "ori $9, $9, 0xa7a8\n\tdsll32 $9, $9, 0\n\t"          \
                          "dsrl32 $9, $9, 0\n\tor $10, $10, $9\n\t" insn)       \
                     :                                                          \
                     : "r"(base)                                                \
                     : "$9", "$10", "memory")

int main(void)
{
    fill();
    u8 *s = src;
    puts("-- extension");
    printf("lb %016llx lbu %016llx\n", LOAD("lb $10, 16(%1)", s), LOAD("lbu $10, 16(%1)", s));
    printf("lh %016llx lhu %016llx\n", LOAD("lh $10, 16(%1)", s), LOAD("lhu $10, 16(%1)", s));
    printf("lw %016llx lwu %016llx\n", LOAD("lw $10, 16(%1)", s), LOAD("lwu $10, 16(%1)", s));
    printf("lw+4 %016llx ld %016llx\n", LOAD("lw $10, 4(%1)", s), LOAD("ld $10, 16(%1)", s));
    puts("-- lwl/lwr (low 32 bits)");
    for (int k = 0; k < 4; k++) {
        u8 *p = s + 4 + k;
        u32 l = (u32)LOAD("lwl $10, 0(%1)", p), r = (u32)LOAD("lwr $10, 0(%1)", p);
        u32 pair = (u32)LOAD("lwl $10, 3(%1)\n\tlwr $10, 0(%1)", p);
        printf("k=%d lwl %08x lwr %08x pair %08x\n", k, l, r, pair);
    }
    puts("-- ldl/ldr");
    for (int k = 0; k < 8; k++) {
        u8 *p = s + 8 + k;
        printf("k=%d ldl %016llx ldr %016llx pair %016llx\n", k, LOAD("ldl $10, 0(%1)", p),
               LOAD("ldr $10, 0(%1)", p), LOAD("ldl $10, 7(%1)\n\tldr $10, 0(%1)", p));
    }
    puts("-- swl/swr");
    for (int k = 0; k < 4; k++) {
        fill();
        STORE("swl $10, 0(%0)", dst + 4 + k);
        dump_dst("swl", k);
        fill();
        STORE("swr $10, 0(%0)", dst + 4 + k);
        dump_dst("swr", k);
    }
    fill();
    STORE("swl $10, 3(%0)\n\tswr $10, 0(%0)", dst + 5);
    dump_dst("swl+swr at", 5);
    puts("-- sdl/sdr");
    for (int k = 0; k < 8; k += 3) {
        fill();
        STORE("sdl $10, 0(%0)", dst + k);
        dump_dst("sdl", k);
        fill();
        STORE("sdr $10, 0(%0)", dst + k);
        dump_dst("sdr", k);
    }
    fill();
    STORE("sdl $10, 7(%0)\n\tsdr $10, 0(%0)", dst + 3);
    dump_dst("sdl+sdr at", 3);
    puts("-- sb/sh/sw/sd");
    fill();
    STORE("sb $10, 1(%0)\n\tsh $10, 2(%0)\n\tsw $10, 4(%0)\n\tsd $10, 8(%0)", dst);
    dump_dst("widths", 0);
    puts("-- lq/sq ignore the low four address bits");
    for (int k = 0; k < 16; k += 5) {
        fill();
        __asm__ volatile("lq $9, 0(%0)\n\tsq $9, 0(%1)"
                         :
                         : "r"(s + 16 + k), "r"(dst + k)
                         : "$9", "memory");
        dump_dst("lq/sq", k);
    }
    return 0;
}
