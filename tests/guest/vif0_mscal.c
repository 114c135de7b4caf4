/* vif0_mscal: VU0 micro mode started by VIF0 (MSCAL, MSCALF, MSCNT) and by COP2 (VCALLMSR),
 * one VU0 for both.
 *
 * 1. DMA channel 0 (normal mode) sends VIF0: MPG (the microprogram below to VU0 micro memory),
 *    ITOP 0x2a, UNPACK V4-32 (1.0 2.0 3.0 4.0 to VU0 data qword 0), MSCAL 0. Program A counts
 *    vi1 down from 1000 (about 4000 cycles), doubles data qword 0 into qword 1, stores XITOP
 *    (VIF0's ITOP) at qword 2 and sets vi5 = 0x77. The EE sees VPU-STAT bit 0 (VU0 busy) set,
 *    then clear.
 * 2. The EE writes the VIF0 FIFO: MSCALF 0, FLUSHE, MARK 0x1234. While VU0 runs, VIF0 waits
 *    (STAT.VEW) and MARK is not yet done; once VU0 ends, MARK is 0x1234 and VEW clear.
 * 3. MSCNT continues at TPC: program A ended at pair 12, where program B sets vi3 = 1 and ends
 *    at 14; a second MSCNT adds 2 (vi3 = 3, TPC 16). CFC2.I (the interlock) reads the results.
 * 4. VCALLMSR runs program A on the same VU0: VPU-STAT bit 0 reads set right after it, a VIF0
 *    FLUSHE waits for it (VEW), and TPC is 12 again.
 * VU0 and VIF0 facts from the EE User's Manual and the VU User's Manual; the microprogram is
 * hand-encoded (lower word first in memory, upper in the high half). */
#include "ps2dma.h"

#define D0_BASE 0x10008000u
#define VIF0_STAT 0x10003800u
#define VIF0_MARK 0x10003830u
#define VIF0_ITOPS 0x10003890u
#define VIF0_ITOP 0x100038d0u
#define VIF0_FIFO 0x10004000u
#define VU0_DATA ((volatile u32 *)0x11004000u)

#define VIF_ITOP(v) VIFCODE(0x04, 0, (v))
#define VIF_MARK(v) VIFCODE(0x07, 0, (v))
#define VIF_MSCALF(pc) VIFCODE(0x15, 0, (pc))
#define VIF_MSCNT VIFCODE(0x17, 0, 0)

#define UNOP 0x000002ffull            /* upper NOP */
#define UNOP_E 0x400002ffull          /* upper NOP with the E bit */
#define LNOP 0x8000033cull            /* lower NOP */
#define PAIR(u, l) (((u64)(u) << 32) | (u64)(l))

static const u64 microprogram[16] __attribute__((aligned(16))) = {
    /* Program A. */
    PAIR(UNOP, 0x01e10000),       /*  0: lq.xyzw vf1, 0(vi00) */
    PAIR(UNOP, 0x100103e8),       /*  1: iaddiu vi01, vi00, 1000 */
    PAIR(UNOP, 0x800206bd),       /*  2: xitop vi02 */
    PAIR(UNOP, 0x12010801),       /*  3: loop: isubiu vi01, vi01, 1 */
    PAIR(UNOP, LNOP),             /*  4: (the branch must not read vi01 just written) */
    PAIR(UNOP, 0x520107fd),       /*  5: ibne vi01, vi00, loop */
    PAIR(0x01e108a8, LNOP),       /*  6: add.xyzw vf02, vf01, vf01 (delay slot) */
    PAIR(UNOP, 0x03e01001),       /*  7: sq.xyzw vf02, 1(vi00) */
    PAIR(UNOP, 0x0b020002),       /*  8: isw.x vi02, 2(vi00) */
    PAIR(UNOP, 0x10050077),       /*  9: iaddiu vi05, vi00, 0x77 */
    PAIR(UNOP_E, LNOP),           /* 10: nop[e] */
    PAIR(UNOP, LNOP),             /* 11: (delay slot); TPC = 12 */
    /* Program B: two parts, each ended by the E bit. */
    PAIR(UNOP_E, 0x10030001),     /* 12: iaddiu vi03, vi00, 1 [e] */
    PAIR(UNOP, LNOP),             /* 13: TPC = 14 */
    PAIR(UNOP_E, 0x10031802),     /* 14: iaddiu vi03, vi03, 2 [e] */
    PAIR(UNOP, LNOP),             /* 15: TPC = 16 */
};

#define F_1 0x3f800000u
#define F_2 0x40000000u
#define F_3 0x40400000u
#define F_4 0x40800000u

static qword packet[14] = {
    { { VIF_STCYCL(1, 1), VIF_NOP, VIF_NOP, VIF_MPG(16, 0) } },
    /* 1-8: the microprogram, copied in main */
    [9] = { { VIF_NOP, VIF_NOP, VIF_ITOP(0x2a), VIF_UNPACK_V4_32(1, 0) } },
    [10] = { { F_1, F_2, F_3, F_4 } },
    [11] = { { VIF_MSCAL(0), VIF_NOP, VIF_NOP, VIF_NOP } },
};

static inline u32 vpu_stat(void)
{
    u32 v;
    __asm__ volatile("cfc2 %0, $vi29" : "=r"(v));
    return v;
}

static inline u32 tpc(void)
{
    u32 v;
    __asm__ volatile("cfc2 %0, $vi26" : "=r"(v));
    return v & 0xffff;
}

/* A 128-bit store to a FIFO. */
static inline void fifo_put(u32 addr, u32 a, u32 b, u32 c, u32 d)
{
    qword q = { { a, b, c, d } };
    __asm__ volatile(GP64("lq $8, 0(%0)\n\tsq $8, 0(%1)") : : "r"(&q), "r"(addr) : "$8", "memory");
}

/* Wait (bounded) until VPU-STAT bit 0 has been seen set and then clear; returns 1 if both. */
static int wait_vu0(int *seen_busy)
{
    for (u32 i = 0; i < 1000000; i++) {
        u32 s = vpu_stat();
        if (s & 1)
            *seen_busy = 1;
        else if (*seen_busy)
            return 1;
    }
    return 0;
}

/* Wait (bounded) until VIF0 has decoded everything: VPS idle, FQC 0. */
static int wait_vif0_idle(void)
{
    for (u32 i = 0; i < 1000000; i++)
        if ((REG32(VIF0_STAT) & 0x1f000003u) == 0)
            return 1;
    return 0;
}

int main(void)
{
    /* Written through the uncached segment: the DMAC reads RAM, not the data cache. */
    volatile u32 *dst = (volatile u32 *)((u32)&packet[1] | 0xa0000000u);
    const u32 *src = (const u32 *)microprogram;
    for (u32 k = 0; k < sizeof microprogram / 4; k++)
        dst[k] = src[k];

    /* 1. DMA channel 0, normal mode. */
    REG32(D_CTRL) |= 1;
    REG32(D0_BASE + D_MADR) = PHYS(packet);
    REG32(D0_BASE + D_QWC) = 12;
    REG32(D0_BASE + D_CHCR) = CHCR_DIR | CHCR_STR;
    int busy = 0;
    int ended = wait_vu0(&busy);
    printf("mscal: vu0 busy %d, then idle %d, dma str %u\n", busy, ended,
           (REG32(D0_BASE + D_CHCR) >> 8) & 1);
    printf("data1: %08x %08x %08x %08x\n", VU0_DATA[4], VU0_DATA[5], VU0_DATA[6], VU0_DATA[7]);
    printf("xitop: %08x, itops %02x, itop %02x\n", VU0_DATA[8], REG32(VIF0_ITOPS),
           REG32(VIF0_ITOP));
    u32 vi5;
    __asm__ volatile("cfc2 %0, $vi5" : "=r"(vi5));
    printf("vi5: %04x, tpc %u\n", vi5 & 0xffff, tpc());

    /* 2. MSCALF, FLUSHE, MARK through the FIFO. */
    fifo_put(VIF0_FIFO, VIF_MSCALF(0), VIF_FLUSHE, VIF_MARK(0x1234), VIF_NOP);
    u32 st = REG32(VIF0_STAT);
    u32 mk = REG32(VIF0_MARK);
    printf("mscalf+flushe: vew %u, mark %04x\n", (st >> 2) & 1, mk);
    busy = 0;
    ended = wait_vu0(&busy);
    u32 i;
    for (i = 0; i < 100000 && REG32(VIF0_MARK) != 0x1234; i++)
        ;
    printf("after vu0: busy seen %d, idle %d, mark %04x, vew %u\n", busy, ended,
           REG32(VIF0_MARK), (REG32(VIF0_STAT) >> 2) & 1);

    /* 3. MSCNT twice; CFC2.I waits for VU0 before it reads. */
    u32 vi3;
    fifo_put(VIF0_FIFO, VIF_MSCNT, VIF_NOP, VIF_NOP, VIF_NOP);
    wait_vif0_idle();
    __asm__ volatile("cfc2.i %0, $vi3" : "=r"(vi3));
    printf("mscnt: vi3 %u, tpc %u\n", vi3 & 0xffff, tpc());
    fifo_put(VIF0_FIFO, VIF_MSCNT, VIF_NOP, VIF_NOP, VIF_NOP);
    wait_vif0_idle();
    __asm__ volatile("cfc2.i %0, $vi3" : "=r"(vi3));
    printf("mscnt: vi3 %u, tpc %u\n", vi3 & 0xffff, tpc());

    /* 4. VCALLMSR: the same VU0, busy for VIF0 too. */
    u32 s0;
    __asm__ volatile("ctc2 $0, $vi27\n\tvcallmsr $vi27\n\tcfc2 %0, $vi29" : "=r"(s0));
    fifo_put(VIF0_FIFO, VIF_FLUSHE, VIF_MARK(0x5678), VIF_NOP, VIF_NOP);
    u32 vew = (REG32(VIF0_STAT) >> 2) & 1;
    u32 t;
    __asm__ volatile("cfc2.i %0, $vi26" : "=r"(t));
    for (i = 0; i < 100000 && REG32(VIF0_MARK) != 0x5678; i++)
        ;
    printf("vcallmsr: busy %u, vif0 vew %u, tpc %u, mark %04x\n", s0 & 1, vew, t & 0xffff,
           REG32(VIF0_MARK));
    puts("vif0_mscal: end");
    return 0;
}
