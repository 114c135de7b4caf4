/* vif1_download: a GS local->host transfer read back through VIF1's FIFO.
 *
 * 1. GIF DMA (channel 2, normal mode) uploads an 8x10 PSMCT32 image to GS local memory (block
 *    0x100, buffer width 64) with BITBLTBUF/TRXPOS/TRXREG/TRXDIR 0 and an IMAGE packet, then
 *    sets BITBLTBUF's source to the same place and writes TRXDIR = 1: the GS reads the 80
 *    pixels (20 qwords) for the host.
 * 2. GS BUSDIR = 1 and VIF1_STAT.FDR = 1 turn the FIFO round; VIF1_STAT.FQC counts the qwords
 *    waiting in it (16 at most).
 * 3. DMA channel 1 with CHCR.DIR = 0 (to memory), normal mode, moves 12 qwords to RAM; the CPU
 *    reads the other 8 from the FIFO (0x10005000) with 128-bit loads.
 * 4. The 80 words read back equal the 80 uploaded.
 * Register facts from the EE User's Manual and the GS User's Manual. */
#include "ps2dma.h"

#define VIF1_FIFO 0x10005000u
#define VIF1_STAT_FDR (1u << 23)
#define GS_BUSDIR 0x12001040u

#define GS_BITBLTBUF 0x50u
#define GS_TRXPOS 0x51u
#define GS_TRXREG 0x52u
#define GS_TRXDIR 0x53u
#define AD(lo, hi, reg) { { (u32)(lo), (u32)(hi), (u32)(reg), 0 } }

#define PIXELS 80
#define QWORDS (PIXELS / 4)

static qword gif_packet[30] = {
    GIFTAG(4, 1, 0, 0, 0, 1, GIF_AD),
    AD(0, 0x100u | (1u << 16), GS_BITBLTBUF), /* DBP 0x100, DBW 1, DPSM PSMCT32 */
    AD(0, 0, GS_TRXPOS),
    AD(8, 10, GS_TRXREG),                     /* 8 x 10 pixels */
    AD(0, 0, GS_TRXDIR),                      /* host -> local */
    GIFTAG(QWORDS, 1, 0, 0, 2, 0, 0),          /* IMAGE: 20 qwords */
    /* 6-25: the pixels, filled in main */
    [26] = GIFTAG(3, 1, 0, 0, 0, 1, GIF_AD),
    AD(0x100u | (1u << 16), 0, GS_BITBLTBUF), /* SBP 0x100, SBW 1, SPSM PSMCT32 */
    AD(8, 10, GS_TRXREG),
    AD(1, 0, GS_TRXDIR),                      /* local -> host */
};

static qword readback[QWORDS];

static u32 pixel(u32 i)
{
    return 0xa5000000u + i * 0x00010101u;
}

static u32 fqc(void)
{
    return (REG32(VIF1_STAT) >> 24) & 0x1f;
}

int main(void)
{
    /* Written through the uncached segment: the DMAC reads RAM, not the data cache. */
    volatile u32 *px = (volatile u32 *)((u32)gif_packet[6].w | 0xa0000000u);
    for (u32 i = 0; i < PIXELS; i++)
        px[i] = pixel(i);

    /* 1. The upload and the download's start, by PATH3. */
    REG32(D_CTRL) |= 1;
    REG32(D2_BASE + D_MADR) = PHYS(gif_packet);
    REG32(D2_BASE + D_QWC) = 30;
    REG32(D2_BASE + D_CHCR) = CHCR_DIR | CHCR_STR;
    if (dma_wait_idle(D2_BASE) != 0)
        return 1;

    /* 2. The FIFO turned round. */
    gs_put64(GS_BUSDIR, 1);
    REG32(VIF1_STAT) = VIF1_STAT_FDR;
    printf("fdr %u, fqc %u\n", (REG32(VIF1_STAT) >> 23) & 1, fqc());

    /* 3. 12 qwords by DMA channel 1 (DIR = 0, normal mode). */
    REG32(D1_BASE + D_MADR) = PHYS(readback);
    REG32(D1_BASE + D_QWC) = 12;
    REG32(D1_BASE + D_CHCR) = CHCR_STR;
    u32 i;
    for (i = 0; i < 1000000 && (REG32(D1_BASE + D_CHCR) & CHCR_STR); i++)
        ;
    printf("dma: str %u, qwc %u, madr +%u, fqc %u\n", (REG32(D1_BASE + D_CHCR) >> 8) & 1,
           REG32(D1_BASE + D_QWC), REG32(D1_BASE + D_MADR) - PHYS(readback), fqc());
    /* The DMAC wrote RAM behind the cache: read the buffer uncached. */
    volatile qword *rb = (volatile qword *)((u32)readback | 0xa0000000u);
    for (i = 12; i < QWORDS; i++)
        __asm__ volatile(GP64("lq $8, 0(%0)\n\tsq $8, 0(%1)")
                         :
                         : "r"(VIF1_FIFO), "r"(&rb[i])
                         : "$8", "memory");
    printf("cpu: fqc %u\n", fqc());
    REG32(VIF1_STAT) = 0;
    gs_put64(GS_BUSDIR, 0);
    printf("fdr %u\n", (REG32(VIF1_STAT) >> 23) & 1);

    /* 4. The data. */
    u32 same = 0;
    for (i = 0; i < PIXELS; i++)
        if (rb[i / 4].w[i % 4] == pixel(i))
            same++;
    printf("match %u of %u: first %08x, last %08x\n", same, PIXELS, rb[0].w[0],
           rb[QWORDS - 1].w[3]);
    puts("vif1_download: end");
    return 0;
}
