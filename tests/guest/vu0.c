/* vu0: VU0 in macro mode from the EE (COP2): LQC2/SQC2, QMTC2/QMFC2,
 * CTC2/CFC2, the upper FMAC ops with dest masks and broadcast fields
 * (VADD/VSUB/VMUL/VMULA/VMADD/VMAX/VMINI/VABS), VOPMULA/VOPMSUB, VDIV and
 * VSQRT into Q with VWAITQ, VFTOI/VITOF, VMOVE/VMR32, VCLIP and the
 * integer unit (VIADD/VIADDI/VISUB/VIAND/VIOR). Vectors print x y z w as
 * IEEE bit patterns (integers for VFTOI). All results are exact. */
#include "piney_rt.h"

typedef struct {
    u32 v[4];
} __attribute__((aligned(16))) vec;

#define F_1 0x3f800000
#define F_2 0x40000000
#define F_3 0x40400000
#define F_4 0x40800000
#define F_8 0x41000000
#define F_HALF 0x3f000000
#define F_QUART 0x3e800000

static const vec V1 = { { F_1, F_2, F_3, F_4 } };              /* 1 2 3 4 */
static const vec V2 = { { F_HALF, F_QUART, F_2, F_8 } };       /* 0.5 0.25 2 8 */
static const vec V4 = { { 0x3fc00000, 0xc02ccccd, 0x42c9cccd, 0xbf000000 } }; /* 1.5 -2.7 100.9 -0.5 */
static const vec V6 = { { 0x41200000, 0xc1200000, 0x40a00000, F_1 } }; /* 10 -10 5 1 */
static const vec I5 = { { 1, 0xfffffffe, 100, 0 } };
static const vec I6 = { { 16, 0xffffffe0, 8, 0 } };

static void pv(const char *name, const vec *r)
{
    printf("%-22s %08x %08x %08x %08x\n", name, r->v[0], r->v[1], r->v[2], r->v[3]);
}

/* vf1 = V1, vf2 = V2, vf3 = V1 (so masked-out fields show V1), vf4 = V4,
   vf6 = V6; runs `insn`; prints vf3. */
#define VU(label, insn)                                                               \
    do {                                                                              \
        vec r_;                                                                       \
        __asm__ volatile("lqc2 $vf1, %1\n\tlqc2 $vf2, %2\n\tlqc2 $vf3, %1\n\t"        \
                         "lqc2 $vf4, %3\n\tlqc2 $vf6, %4\n\t" insn "\n\tsqc2 $vf3, %0" \
                         : "=m"(r_)                                                   \
                         : "m"(V1), "m"(V2), "m"(V4), "m"(V6)                         \
                         : "memory");                                                 \
        pv(label, &r_);                                                               \
    } while (0)

/* Sets vi1 = 5 and vi2 = 7 with CTC2, runs `insn` (result in vi3), reads vi3. */
#define VI(label, insn)                                                               \
    do {                                                                              \
        u32 r_;                                                                       \
        __asm__ volatile("li $8, 5\n\tctc2 $8, $vi1\n\tli $8, 7\n\tctc2 $8, $vi2\n\t"  \
                         insn "\n\tcfc2 %0, $vi3"                                     \
                         : "=r"(r_)                                                   \
                         :                                                            \
                         : "$8");                                                     \
        printf("%-22s %04x\n", label, r_ & 0xffff);                                         \
    } while (0)

int main(void)
{
    puts("-- FMAC");
    VU("vadd.xyzw", "vadd.xyzw $vf3, $vf1, $vf2");
    VU("vaddx.xyzw", "vaddx.xyzw $vf3, $vf1, $vf2x");
    VU("vsub.xyzw", "vsub.xyzw $vf3, $vf1, $vf2");
    VU("vmul.xyz (w kept)", "vmul.xyz $vf3, $vf1, $vf2");
    VU("vmulw.xyzw", "vmulw.xyzw $vf3, $vf1, $vf2w");
    VU("vmuly.xw (yz kept)", "vmuly.xw $vf3, $vf2, $vf1y");
    VU("vmula+vmadd", "vmula.xyzw $ACC, $vf1, $vf2\n\tvmadd.xyzw $vf3, $vf1, $vf1");
    VU("vmula+vmaddz", "vmula.xyzw $ACC, $vf1, $vf1\n\tvmaddz.xyzw $vf3, $vf2, $vf1z");
    VU("vmula+vmsub", "vmula.xyzw $ACC, $vf1, $vf2\n\tvmsub.xyzw $vf3, $vf2, $vf2");
    VU("vmax.xyzw", "vmax.xyzw $vf3, $vf1, $vf2");
    VU("vmini.xyzw", "vmini.xyzw $vf3, $vf1, $vf2");
    VU("vabs.xyzw", "vabs.xyzw $vf3, $vf6");
    VU("vopmula+vopmsub", "vopmula.xyz $ACC, $vf1, $vf2\n\tvopmsub.xyz $vf3, $vf2, $vf1");
    puts("-- Q");
    VU("vdiv 1/0.25, vmulq", "vdiv $Q, $vf1x, $vf2y\n\tvwaitq\n\tvmulq.xyzw $vf3, $vf1, $Q");
    VU("vsqrt 4, vaddq.x", "vsqrt $Q, $vf1w\n\tvwaitq\n\tvaddq.x $vf3, $vf1, $Q");
    puts("-- conversions and moves");
    VU("vftoi0", "vftoi0.xyzw $vf3, $vf4");
    VU("vftoi4", "vftoi4.xyzw $vf3, $vf4");
    {
        vec r;
        __asm__ volatile("lqc2 $vf5, %1\n\tvitof0.xyzw $vf5, $vf5\n\tsqc2 $vf5, %0"
                         : "=m"(r) : "m"(I5) : "memory");
        pv("vitof0", &r);
        __asm__ volatile("lqc2 $vf5, %1\n\tvitof4.xyzw $vf5, $vf5\n\tsqc2 $vf5, %0"
                         : "=m"(r) : "m"(I6) : "memory");
        pv("vitof4", &r);
        __asm__ volatile("sqc2 $vf0, %0" : "=m"(r) : : "memory");
        pv("vf0", &r);
        __asm__ volatile("lq $8, %1\n\tqmtc2 $8, $vf5\n\tqmfc2 $9, $vf5\n\tsq $9, %0"
                         : "=m"(r) : "m"(V4) : "$8", "$9", "memory");
        pv("qmtc2/qmfc2", &r);
    }
    VU("vmove.xyzw", "vmove.xyzw $vf3, $vf2");
    VU("vmr32.xyzw", "vmr32.xyzw $vf3, $vf1");
    VU("vmr32.yw", "vmr32.yw $vf3, $vf2");
    puts("-- clip (four judgments fill the 24-bit flag)");
    {
        u32 clip;
        __asm__ volatile("lqc2 $vf1, %1\n\tlqc2 $vf2, %2\n\tlqc2 $vf6, %3\n\t"
                         "vclipw.xyz $vf1xyz, $vf2w\n\tvclipw.xyz $vf6xyz, $vf2w\n\t"
                         "vclipw.xyz $vf1xyz, $vf6w\n\tvclipw.xyz $vf6xyz, $vf1w\n\t"
                         "vnop\n\tvnop\n\tvnop\n\tvnop\n\tcfc2 %0, $vi18"
                         : "=r"(clip)
                         : "m"(V1), "m"(V2), "m"(V6));
        printf("%-22s %06x\n", "clip flag", clip & 0xffffff);
    }
    puts("-- integer unit");
    VI("viadd 5+7", "viadd $vi3, $vi1, $vi2");
    VI("visub 5-7", "visub $vi3, $vi1, $vi2");
    VI("viaddi 7-3", "viaddi $vi3, $vi2, -3");
    VI("viand 5&7", "viand $vi3, $vi1, $vi2");
    VI("vior 5|7", "vior $vi3, $vi1, $vi2");
    return 0;
}
