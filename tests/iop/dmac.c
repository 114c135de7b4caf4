/* dmac.c: dmacman's functions (export indices from ps2sdk's iop/system/dmacman exports.tab)
 * against the registers they set:
 *   - at boot dmacman leaves DPCR and DPCR2 0x07777777, DPCR3 0x777, DMACEN 1;
 *   - the channel functions take the hardware's channel numbers (0..12); TADR exists for 4 and
 *     9, the "4_9_a" registers for 4, 9 and 10; other channels are ignored (getters: 0). MADR
 *     and TADR keep 24 bits (the IOP's address space);
 *   - sceSetDMAPriority puts a channel's priority into its DPCR, DPCR2 or DPCR3 nibble (67, the
 *     CPU: DPCR bits 28-30; 85, USB: DPCR2 bits 24-26), sceEnable/DisableDMAChannel its bit 3;
 *   - sceSetSliceDMA (not channel 6 or past 12): MADR, BCR = size | count << 16, CHCR = dir |
 *     0x200, | 0x40000000 when dir is 0; dmac_set_dma_chained_spu_sif0 (4, 9): CHCR 0x601;
 *     dmac_set_dma_sif0 (9), dmac_set_dma_sif1 (10): 0 for any other channel.
 * With an argument (its first letter counts) it starts a channel: "cdvd" starts channel 3,
 * which has no device behind it in piney (the run stops with an error naming it); "write"
 * starts it by writing its CHCR itself (the same error); "sif0" sends a four-word block through
 * SIF0 in chain mode (one tag, the end of the chain), as sifman would.
 * The imports are written here (tools/iop/irx.h has no dmacman lines). */
#include "irx.h"

IRX_ID("dmac", 1, 1);

IRX_IMPORTS(dmacman, 1, 1,
            IRX_STUB(dmac_ch_set_madr, 4)
            IRX_STUB(dmac_ch_get_madr, 5)
            IRX_STUB(dmac_ch_set_bcr, 6)
            IRX_STUB(dmac_ch_get_bcr, 7)
            IRX_STUB(dmac_ch_get_chcr, 9)
            IRX_STUB(dmac_ch_set_tadr, 10)
            IRX_STUB(dmac_ch_get_tadr, 11)
            IRX_STUB(dmac_set_4_9_a, 12)
            IRX_STUB(dmac_get_4_9_a, 13)
            IRX_STUB(dmac_get_dpcr, 15)
            IRX_STUB(dmac_get_dpcr2, 17)
            IRX_STUB(dmac_get_dpcr3, 19)
            IRX_STUB(dmac_get_BF801578, 27)
            IRX_STUB(sceSetSliceDMA, 28)
            IRX_STUB(dmac_set_dma_chained_spu_sif0, 29)
            IRX_STUB(dmac_set_dma_sif0, 30)
            IRX_STUB(dmac_set_dma_sif1, 31)
            IRX_STUB(sceStartDMA, 32)
            IRX_STUB(sceSetDMAPriority, 33)
            IRX_STUB(sceEnableDMAChannel, 34)
            IRX_STUB(sceDisableDMAChannel, 35));

void dmac_ch_set_madr(u32 ch, u32 v);
u32 dmac_ch_get_madr(u32 ch);
void dmac_ch_set_bcr(u32 ch, u32 v);
u32 dmac_ch_get_bcr(u32 ch);
u32 dmac_ch_get_chcr(u32 ch);
void dmac_ch_set_tadr(u32 ch, u32 v);
u32 dmac_ch_get_tadr(u32 ch);
void dmac_set_4_9_a(u32 ch, u32 v);
u32 dmac_get_4_9_a(u32 ch);
u32 dmac_get_dpcr(void);
u32 dmac_get_dpcr2(void);
u32 dmac_get_dpcr3(void);
u32 dmac_get_BF801578(void);
int sceSetSliceDMA(u32 ch, void *addr, u32 size, u32 count, int dir);
int dmac_set_dma_chained_spu_sif0(u32 ch, u32 size, u32 tadr);
int dmac_set_dma_sif0(u32 ch, u32 size, u32 tadr);
int dmac_set_dma_sif1(u32 ch, u32 size);
void sceStartDMA(u32 ch);
void sceSetDMAPriority(u32 ch, u32 priority);
void sceEnableDMAChannel(u32 ch);
void sceDisableDMAChannel(u32 ch);

/* One SIF0 tag (IOP address | end of chain, words, the EE's tag) and its block. */
static u32 tag[4] __attribute__((aligned(16)));
static u32 block[4] __attribute__((aligned(16))) = { 0x11111111, 0x22222222, 0x33333333,
                                                     0x44444444 };

static void show_channel(u32 ch)
{
    printf("dmac: channel %d: MADR 0x%06x BCR 0x%08x CHCR 0x%08x\n", (int)ch,
           dmac_ch_get_madr(ch), dmac_ch_get_bcr(ch), dmac_ch_get_chcr(ch));
}

/* 'c': start channel 3 (CDVD); 'w': start it by writing its CHCR; 's': send the block through
 * SIF0. */
static __attribute__((noinline)) void start(int mode)
{
    if (mode == 'c') {
        printf("dmac: starting channel 3\n");
        sceStartDMA(3);
        printf("dmac: channel 3 ran\n");
    } else if (mode == 'w') {
        printf("dmac: writing channel 3's CHCR\n");
        *(volatile u32 *)0xbf8010b8 = 0x01000201;
        printf("dmac: channel 3 ran\n");
    } else if (mode == 's') {
        tag[0] = (u32)block | 0x80000000;
        tag[1] = 4;
        tag[2] = 0x10000001; /* the EE's tag: one quadword (cnts) */
        tag[3] = 0x00100000; /* to EE 0x100000 */
        int r = dmac_set_dma_sif0(9, 0, (u32)tag);
        printf("dmac: dmac_set_dma_sif0 -> %d\n", r);
        sceStartDMA(9);
        printf("dmac: SIF0 started\n");
    }
}

int _start(int argc, char **argv)
{
    int r, r2;
    printf("dmac: at boot DPCR 0x%08x DPCR2 0x%08x DPCR3 0x%03x DMACEN %d\n", dmac_get_dpcr(),
           dmac_get_dpcr2(), dmac_get_dpcr3(), (int)dmac_get_BF801578());

    dmac_ch_set_madr(3, 0x81234568);
    dmac_ch_set_bcr(3, 0x00200010);
    show_channel(3);
    dmac_ch_set_madr(13, 5);
    printf("dmac: channel 13 MADR %d, channel 3 TADR %d\n", (int)dmac_ch_get_madr(13),
           (int)dmac_ch_get_tadr(3));
    dmac_ch_set_tadr(4, 0x1230);
    dmac_set_4_9_a(9, 5);
    printf("dmac: channel 4 TADR 0x%x, channel 9 4_9_a %d, channel 3 4_9_a %d\n",
           dmac_ch_get_tadr(4), (int)dmac_get_4_9_a(9), (int)dmac_get_4_9_a(3));

    sceSetDMAPriority(3, 2);
    sceDisableDMAChannel(3);
    printf("dmac: channel 3 priority 2, disabled: DPCR 0x%08x\n", dmac_get_dpcr());
    sceEnableDMAChannel(3);
    sceSetDMAPriority(67, 5);
    printf("dmac: channel 3 enabled, the CPU's priority 5: DPCR 0x%08x\n", dmac_get_dpcr());
    sceSetDMAPriority(85, 1);
    sceEnableDMAChannel(85);
    sceSetDMAPriority(14, 3);
    sceEnableDMAChannel(14);
    printf("dmac: USB priority 1, enabled: DPCR2 0x%08x; FDMA1 priority 3, enabled: DPCR3 0x%03x\n",
           dmac_get_dpcr2(), dmac_get_dpcr3());

    r = sceSetSliceDMA(6, block, 4, 1, 1);
    r2 = sceSetSliceDMA(13, block, 4, 1, 1);
    printf("dmac: sceSetSliceDMA on channel 6 -> %d, 13 -> %d\n", r, r2);
    printf("dmac: sceSetSliceDMA(3, 0x81234560, 16, 4, to memory) -> %d\n",
           sceSetSliceDMA(3, (void *)0x81234560, 16, 4, 0));
    show_channel(3);
    printf("dmac: sceSetSliceDMA(12, 0x2000, 32, 2, from memory) -> %d\n",
           sceSetSliceDMA(12, (void *)0x2000, 32, 2, 1));
    show_channel(12);
    r = dmac_set_dma_chained_spu_sif0(4, 0x20, 0x81001000);
    printf("dmac: chained on channel 4 -> %d, TADR 0x%x\n", r, dmac_ch_get_tadr(4));
    show_channel(4);
    r = dmac_set_dma_sif0(3, 4, 0);
    r2 = dmac_set_dma_sif1(9, 4);
    printf("dmac: dmac_set_dma_sif0 on channel 3 -> %d, dmac_set_dma_sif1 on channel 9 -> %d\n",
           r, r2);
    sceStartDMA(13);
    printf("dmac: sceStartDMA(13): nothing\n");

    if (argc > 1)
        start(argv[1][0]);
    printf("-- done\n");
    return NO_RESIDENT_END;
}
