/* muldiv: the R5900 multiply/divide unit: three-operand MULT/MULTU, the
 * second pipeline (MULT1, MULTU1, DIV1, DIVU1, HI1/LO1), MADD/MADDU/MADD1/
 * MADDU1, MTHI/MTLO and their pipeline-1 forms, and the results of division
 * by zero and of 0x80000000 / -1 (no trap on the EE). */
#include "piney_rt.h"

struct hl {
    u32 rd, hi, lo, hi1, lo1;
};

/* Sets HI/LO/HI1/LO1 to known values, runs `insn` on a and b, reads back. */
#define RUN(insn, a, b)                                                           \
    ({                                                                            \
        struct hl r_;                                                             \
        __asm__ volatile(".set push\n\t.set noreorder\n\t"                        \
                         "li $8, 0x11111111\n\tmthi $8\n\t"                       \
                         "li $8, 0x22222222\n\tmtlo $8\n\t"                       \
                         "li $8, 0x33333333\n\tmthi1 $8\n\t"                      \
                         "li $8, 0x44444444\n\tmtlo1 $8\n\t"                      \
                         "li $10, 0x55555555\n\t" insn "\n\t"                     \
                         "sw $10, 0(%0)\n\t"                                      \
                         "mfhi $8\n\tsw $8, 4(%0)\n\tmflo $8\n\tsw $8, 8(%0)\n\t" \
                         "mfhi1 $8\n\tsw $8, 12(%0)\n\tmflo1 $8\n\tsw $8, 16(%0)\n\t" \
                         ".set pop"                                               \
                         :                                                        \
                         : "r"(&r_), "r"(a), "r"(b)                               \
                         : "$8", "$10", "hi", "lo", "memory");                    \
        r_;                                                                       \
    })

static void show(const char *what, u32 a, u32 b, struct hl r)
{
    printf("%-7s %08x %08x: rd %08x hi %08x lo %08x hi1 %08x lo1 %08x\n", what, a, b, r.rd,
           r.hi, r.lo, r.hi1, r.lo1);
}

static volatile u32 V[] = { 0x12345678, 0x9abcdef0, 7, 0xfffffff9, 0x80000000, 0xffffffff, 0,
                            0x7fffffff, 100, 3 };
#define N (sizeof V / sizeof V[0])

int main(void)
{
    for (unsigned i = 0; i + 1 < N; i++) {
        u32 a = V[i], b = V[i + 1];
        show("mult", a, b, RUN("mult $10, %1, %2", a, b));
        show("multu", a, b, RUN("multu $10, %1, %2", a, b));
        show("mult1", a, b, RUN("mult1 $10, %1, %2", a, b));
        show("multu1", a, b, RUN("multu1 $10, %1, %2", a, b));
        /* "div $0, rs, rt" is the raw instruction (gas would add a trap). */
        show("div", a, b, RUN("div $0, %1, %2", a, b));
        show("divu", a, b, RUN("divu $0, %1, %2", a, b));
        show("div1", a, b, RUN("div1 $0, %1, %2", a, b));
        show("divu1", a, b, RUN("divu1 $0, %1, %2", a, b));
        show("madd", a, b, RUN("madd $10, %1, %2", a, b));
        show("maddu", a, b, RUN("maddu $10, %1, %2", a, b));
        show("madd1", a, b, RUN("madd1 $10, %1, %2", a, b));
        show("maddu1", a, b, RUN("maddu1 $10, %1, %2", a, b));
    }
    puts("-- division corner cases");
    {
        u32 a = 0x80000000, b = 0xffffffff;
        show("div", a, b, RUN("div $0, %1, %2", a, b));
        show("div1", a, b, RUN("div1 $0, %1, %2", a, b));
        show("divu", a, b, RUN("divu $0, %1, %2", a, b));
        u32 z = 0, p = 53, n = 0xffffffcb; /* -53 */
        show("div", p, z, RUN("div $0, %1, %2", p, z));
        show("div", n, z, RUN("div $0, %1, %2", n, z));
        show("divu", n, z, RUN("divu $0, %1, %2", n, z));
        show("div1", n, z, RUN("div1 $0, %1, %2", n, z));
        show("divu1", p, z, RUN("divu1 $0, %1, %2", p, z));
    }
    puts("-- madd accumulates across calls");
    {
        u32 hi, lo, rd;
        __asm__ volatile("mthi $0\n\tmtlo $0\n\t"
                         "li $8, 0x10000\n\tli $9, 0x30000\n\t"
                         "madd $0, $8, $9\n\tmadd $0, $8, $9\n\tmadd %0, $8, $9\n\t"
                         "mfhi %1\n\tmflo %2"
                         : "=r"(rd), "=r"(hi), "=r"(lo)
                         :
                         : "$8", "$9", "hi", "lo");
        printf("3 * 0x10000*0x30000: rd %08x hi %08x lo %08x\n", rd, hi, lo);
    }
    return 0;
}
