/* path1_timing: a PATH1 (VU1 XGKICK) transfer takes time, holds the GIF, and PATH3 waits.
 *
 * 1. VIF1 DMA (channel 1, normal mode): MPG loads a microprogram that XGKICKs VU1 data
 *    address 0 at once; two UNPACKs put a 305-qword PATH1 transfer there: an A+D packet
 *    writing LABEL = 1, a PACKED packet of 300 RGBAQ qwords (whatever VU1 memory holds), and
 *    an EOP A+D packet writing LABEL = 3; MSCAL 0 runs it.
 * 2. The EE waits until GIF_STAT shows PATH1 active (APATH = 1, OPH) with LABEL 1 done.
 * 3. It starts GIF DMA (channel 2) with an A+D packet writing LABEL = 2. PATH1 holds the GIF
 *    until its EOP packet is done: PATH3 waits (GIF_STAT.P3Q) and LABEL is still 1.
 * 4. Once PATH1 is done, PATH3 goes: LABEL ends 2 (after PATH1's 3), APATH 0.
 * GIF facts from the EE User's Manual (GIF_STAT: P3Q bit 6, OPH 9, APATH 10-11); LABEL and
 * SIGLBLID (LBLID, the upper word at 0x12001084) from the GS User's Manual. */
#include "ps2dma.h"

#define GS_LBLID 0x12001084u
#define GS_LABEL 0x62u
#define AD(lo, hi, reg) { { (u32)(lo), (u32)(hi), (u32)(reg), 0 } }

#define UNOP 0x000002ffu
#define UNOP_E 0x400002ffu
#define LNOP 0x8000033cu
#define XGKICK_VI00 0x800006fcu

static const qword vif1_packet[11] = {
    { { VIF_STCYCL(1, 1), VIF_NOP, VIF_NOP, VIF_MPG(4, 0) } },
    { { XGKICK_VI00, UNOP, LNOP, UNOP_E } },    /* nop xgkick vi00 ; nop[e] nop */
    { { LNOP, UNOP, LNOP, UNOP } },             /* nop nop (delay slot) ; padding */
    { { VIF_NOP, VIF_NOP, VIF_NOP, VIF_UNPACK_V4_32(3, 0) } },
    GIFTAG(1, 0, 0, 0, 0, 1, GIF_AD),
    AD(1, 0xffffffffu, GS_LABEL),
    GIFTAG(300, 0, 0, 0, 0, 1, GIF_RGBAQ),
    { { VIF_NOP, VIF_NOP, VIF_NOP, VIF_UNPACK_V4_32(2, 303) } },
    GIFTAG(1, 1, 0, 0, 0, 1, GIF_AD),
    AD(3, 0xffffffffu, GS_LABEL),
    { { VIF_MSCAL(0), VIF_NOP, VIF_NOP, VIF_NOP } },
};

static const qword path3_packet[2] = {
    GIFTAG(1, 1, 0, 0, 0, 1, GIF_AD),
    AD(2, 0xffffffffu, GS_LABEL),
};

static u32 apath(u32 g)
{
    return (g >> 10) & 3;
}

int main(void)
{
    REG32(D_CTRL) |= 1;
    REG32(D1_BASE + D_MADR) = PHYS(vif1_packet);
    REG32(D1_BASE + D_QWC) = 11;
    REG32(D1_BASE + D_CHCR) = CHCR_DIR | CHCR_STR;

    /* 2. PATH1 under way. */
    /* Nothing is printed until both observations are made: output takes time. */
    u32 g1 = 0, label1 = 0, g2 = 0, label2 = 0, i;
    for (i = 0; i < 1000000; i++) {
        g1 = REG32(GIF_STAT);
        label1 = REG32(GS_LBLID);
        if (apath(g1) == 1 && label1 == 1)
            break;
    }

    /* 3. PATH3 asks while PATH1 holds the GIF. */
    REG32(D2_BASE + D_MADR) = PHYS(path3_packet);
    REG32(D2_BASE + D_QWC) = 2;
    REG32(D2_BASE + D_CHCR) = CHCR_DIR | CHCR_STR;
    for (i = 0; i < 1000000; i++) {
        g2 = REG32(GIF_STAT);
        if ((g2 >> 6) & 1 || apath(g2) != 1)
            break;
    }
    label2 = REG32(GS_LBLID);
    printf("path1: apath %u, oph %u, label %u\n", apath(g1), (g1 >> 9) & 1, label1);
    printf("path3 waiting: apath %u, p3q %u, label %u\n", apath(g2), (g2 >> 6) & 1, label2);

    /* 4. Both done. */
    if (dma_wait_idle(D2_BASE) != 0)
        return 1;
    u32 g = REG32(GIF_STAT);
    printf("after: apath %u, p3q %u, label %u\n", apath(g), (g >> 6) & 1, REG32(GS_LBLID));
    puts("path1_timing: end");
    return 0;
}
