/* fpu: the EE's COP1 with its PS2 arithmetic: exact basic operations, no
 * infinities or NaNs (exponent 255 is an ordinary exponent, so overflow and
 * division by zero give the largest PS2 value, +-0x7fffffff), no denormals
 * (denormal results and inputs are zero), CVT.W.S truncation and saturation
 * (binutils names that encoding trunc.w.s), compares with BC1T/BC1F, the
 * accumulator forms (MULA/ADDA/MADD/MSUB/MADDA/MSUBA) and MAX/MIN/ABS/NEG.
 * Results print as IEEE bit patterns. */
#include "piney_rt.h"

#define F2(insn, a, b)                                                                 \
    ({                                                                                 \
        u32 r_;                                                                        \
        __asm__ volatile("mtc1 %1, $f1\n\tmtc1 %2, $f2\n\t" insn "\n\tmfc1 %0, $f0"     \
                         : "=r"(r_)                                                    \
                         : "r"(a), "r"(b)                                              \
                         : "$f0", "$f1", "$f2");                                       \
        r_;                                                                            \
    })
#define SHOW2(insn, a, b) printf("%-34s %08x %08x -> %08x\n", insn, a, b, F2(insn, a, b))
#define ACC2(label, insn, a, b) printf("%-34s %08x %08x -> %08x\n", label, a, b, F2(insn, a, b))
#define SHOW1(insn, a) printf("%-34s %08x -> %08x\n", insn, a, F2(insn, a, 0))

/* Compare a with b using `cmp`, then report bc1t, bc1f and FCR31's C bit (23). */
#define CMP(cmp, a, b)                                                                 \
    do {                                                                               \
        u32 t_, f_, c_;                                                                \
        __asm__ volatile(".set push\n\t.set noreorder\n\t"                             \
                         "mtc1 %3, $f1\n\tmtc1 %4, $f2\n\t" cmp " $f1, $f2\n\t"         \
                         "li %0, 0\n\tli %1, 0\n\tbc1t 1f\n\tnop\n\tli %0, 0\n\tb 2f\n\t" \
                         "nop\n1:\tli %0, 1\n2:\tbc1f 3f\n\tnop\n\tb 4f\n\tnop\n3:\t"   \
                         "li %1, 1\n4:\tcfc1 %2, $31\n\t.set pop"                       \
                         : "=&r"(t_), "=&r"(f_), "=&r"(c_)                              \
                         : "r"(a), "r"(b)                                              \
                         : "$f1", "$f2");                                              \
        printf("%-8s %08x %08x: bc1t %u bc1f %u C %u\n", cmp, a, b, t_, f_, (c_ >> 23) & 1); \
    } while (0)

int main(void)
{
    puts("-- exact arithmetic");
    SHOW2("add.s $f0, $f1, $f2", 0x3fc00000, 0x40100000); /* 1.5 + 2.25 */
    SHOW2("sub.s $f0, $f1, $f2", 0x3f800000, 0x40400000); /* 1 - 3 */
    SHOW2("mul.s $f0, $f1, $f2", 0x40400000, 0x3f000000); /* 3 * 0.5 */
    SHOW2("div.s $f0, $f1, $f2", 0x41200000, 0x40800000); /* 10 / 4 */
    /* SQRT.S fd, ft: the EE reads its operand from the ft field (bits 20..16;
       ps2dev's assembler encodes it there), but Debian's gas puts it in fs, so
       the word is written out: ft = $f2, fs = 0, fd = $f0. */
    SHOW2(".word 0x46020004 # sqrt.s $f0, $f2", 0x3f800000, 0x41800000); /* sqrt(16) */
    SHOW2("rsqrt.s $f0, $f1, $f2", 0x40800000, 0x41800000); /* 4 / sqrt(16) */
    SHOW1("abs.s $f0, $f1", 0xc0400000);
    SHOW1("neg.s $f0, $f1", 0x40400000);
    SHOW1("mov.s $f0, $f1", 0x12345678);
    SHOW2("max.s $f0, $f1, $f2", 0xbf800000, 0x40000000);
    SHOW2("min.s $f0, $f1, $f2", 0xbf800000, 0x40000000);
    puts("-- no infinities: clamp to +-0x7fffffff");
    SHOW2("mul.s $f0, $f1, $f2", 0x7f000000, 0x40800000); /* 2^127 * 4 */
    SHOW2("mul.s $f0, $f1, $f2", 0xff000000, 0x40800000);
    SHOW2("add.s $f0, $f1, $f2", 0x7f7fffff, 0x7f7fffff);
    SHOW2("sub.s $f0, $f1, $f2", 0xff7fffff, 0x7f7fffff);
    SHOW2("div.s $f0, $f1, $f2", 0x3f800000, 0x00000000); /* 1 / 0 */
    SHOW2("div.s $f0, $f1, $f2", 0xbf800000, 0x00000000); /* -1 / 0 */
    puts("-- no denormals: flushed to zero");
    SHOW2("mul.s $f0, $f1, $f2", 0x00800000, 0x3f000000); /* min normal * 0.5 */
    SHOW2("mul.s $f0, $f1, $f2", 0x00000001, 0x71800000); /* denormal * 2^100 */
    SHOW2("add.s $f0, $f1, $f2", 0x00400000, 0x00400000); /* denormal + denormal */
    puts("-- conversions");
    SHOW1("trunc.w.s $f0, $f1", 0x402ccccd); /* 2.7 */
    SHOW1("trunc.w.s $f0, $f1", 0xc02ccccd); /* -2.7 */
    SHOW1("trunc.w.s $f0, $f1", 0x4f32d05e); /* 3e9 */
    SHOW1("trunc.w.s $f0, $f1", 0xcf32d05e); /* -3e9 */
    SHOW1("trunc.w.s $f0, $f1", 0x4effffff); /* 2147483520 */
    SHOW1("cvt.s.w $f0, $f1", 7);
    SHOW1("cvt.s.w $f0, $f1", 0xffffffff);
    SHOW1("cvt.s.w $f0, $f1", 0x01000000);
    puts("-- accumulator");
    ACC2("mula.s; madd.s", "mula.s $f1, $f2\n\tmadd.s $f0, $f1, $f2", 0x40000000,
         0x40400000); /* 6 + 6 */
    ACC2("adda.s; madd.s", "adda.s $f1, $f2\n\tmadd.s $f0, $f2, $f2", 0x3f800000,
         0x40000000); /* 3 + 4 */
    ACC2("adda.s; msub.s", "adda.s $f1, $f2\n\tmsub.s $f0, $f2, $f2", 0x3f800000,
         0x40000000); /* 3 - 4 */
    ACC2("suba.s; madda.s; madd.s", "suba.s $f1, $f2\n\tmadda.s $f1, $f1\n\tmadd.s $f0, $f2, $f2",
         0x40a00000, 0x3f800000); /* (5 - 1) + 25 + 1 */
    ACC2("mula.s; msuba.s; madd.s", "mula.s $f1, $f2\n\tmsuba.s $f2, $f2\n\tmadd.s $f0, $f1, $f1",
         0x40400000, 0x40000000); /* 6 - 4 + 9 */
    puts("-- compares");
    CMP("c.eq.s", 0x3f800000, 0x3f800000);
    CMP("c.eq.s", 0x3f800000, 0x40000000);
    CMP("c.lt.s", 0x3f800000, 0x40000000);
    CMP("c.lt.s", 0x40000000, 0x3f800000);
    CMP("c.lt.s", 0xc0000000, 0x3f800000);
    CMP("c.le.s", 0x40000000, 0x40000000);
    CMP("c.le.s", 0x40400000, 0x40000000);
    CMP("c.f.s", 0x3f800000, 0x3f800000);
    CMP("c.eq.s", 0x00000000, 0x80000000); /* +0 == -0 */
    puts("-- C arithmetic through gcc");
    {
        volatile float x = 1.25f, y = 10.0f;
        float a = x, b = y;
        printf("%08x %08x %08x %08x %d\n", f2u(a + b), f2u(a * b), f2u(b / a), f2u(b - a * 4.0f),
               (int)(b * 3.5f));
    }
    return 0;
}
