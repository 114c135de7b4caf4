/* ps2dma.h: the DMAC, VIF1 and GIF registers and encodings the data-path test programs
 * (gif_paths, dma_bad_tag, dma_runaway) use. Facts from the EE User's Manual (the same ones
 * PCSX2 and ps2sdk use). */
#ifndef PS2DMA_H
#define PS2DMA_H

#include "piney_rt.h"

#define REG32(a) (*(volatile u32 *)(a))

/* A quadword as four 32-bit words (little-endian: word 0 holds bits 0-31). */
typedef struct {
    u32 w[4];
} __attribute__((aligned(16))) qword;

/* DMA addresses are physical: the low 28 bits of a KSEG0/KUSEG pointer to main RAM. */
#define PHYS(p) ((u32)(p) & 0x0fffffffu)

/* DMAC channel 1 (VIF1) at 0x10009000, channel 2 (GIF, PATH3) at 0x1000A000: CHCR +0x00,
   MADR +0x10, QWC +0x20, TADR +0x30. D_CTRL 0x1000E000: DMAE bit 0. */
#define D1_BASE 0x10009000u
#define D2_BASE 0x1000a000u
#define D_CHCR 0x00u
#define D_MADR 0x10u
#define D_QWC 0x20u
#define D_TADR 0x30u
#define D_CTRL 0x1000e000u
/* CHCR: DIR bit 0 (1 = from memory), MOD bits 2-3 (1 = source chain), STR bit 8. */
#define CHCR_DIR (1u << 0)
#define CHCR_CHAIN (1u << 2)
#define CHCR_STR (1u << 8)

/* Source-chain DMAtag, low 64 bits: QWC bits 0-15, ID bits 28-30, ADDR bits 32-62. The upper
   64 bits are not sent (CHCR.TTE = 0). */
#define DMA_REFE 0u
#define DMA_CNT 1u
#define DMA_NEXT 2u
#define DMA_REF 3u
#define DMA_END 7u
#define DMATAG(qwc, id, addr) \
    { { (u32)(qwc) | ((u32)(id) << 28), (u32)(addr), 0, 0 } }

/* VIFcodes: IMMEDIATE bits 0-15, NUM bits 16-23, CMD bits 24-30. */
#define VIFCODE(cmd, num, imm) (((u32)(cmd) << 24) | ((u32)(num) << 16) | (u32)(imm))
#define VIF_NOP VIFCODE(0x00, 0, 0)
#define VIF_STCYCL(cl, wl) VIFCODE(0x01, 0, ((wl) << 8) | (cl))
#define VIF_FLUSHE VIFCODE(0x10, 0, 0) /* wait for the end of the microprogram */
#define VIF_FLUSH VIFCODE(0x11, 0, 0)  /* ... and for PATH1/PATH2 to end their packets */
#define VIF_MSCAL(pc) VIFCODE(0x14, 0, (pc)) /* start at pc (64-bit units) */
#define VIF_MPG(pairs, at) VIFCODE(0x4a, (pairs), (at)) /* data: 64-bit aligned */
#define VIF_DIRECT(qwc) VIFCODE(0x50, 0, (qwc))         /* data: 128-bit aligned */
#define VIF_UNPACK_V4_32(num, addr) VIFCODE(0x6c, (num), (addr))

/* VIF1_STAT 0x10003C00: VPS bits 0-1, VEW 2, VGW 3, FQC bits 24-28. GIF_STAT 0x10003020: APATH
   bits 10-11 (0 idle), FQC bits 24-28. */
#define VIF1_STAT 0x10003c00u
#define GIF_STAT 0x10003020u

/* GIFtag low word pair: NLOOP bits 0-14, EOP 15; high word of the low half: PRE bit 46, PRIM
   47-57, FLG 58-59 (0 PACKED, 1 REGLIST, 2 IMAGE), NREG 60-63; words 2-3: the REGS nibbles. */
#define GIFTAG(nloop, eop, pre, prim, flg, nreg, regs)                                        \
    { { (u32)(nloop) | ((u32)(eop) << 15), ((u32)(pre) << 14) | ((u32)(prim) << 15) |       \
                                                ((u32)(flg) << 26) | ((u32)(nreg) << 28), \
        (u32)(regs), 0 } }
/* PACKED register descriptors. */
#define GIF_RGBAQ 0x1u
#define GIF_XYZ2 0x5u
#define GIF_AD 0xeu

/* GS privileged registers (64-bit stores). */
#define GS_PMODE 0x12000000u
#define GS_DISPFB2 0x12000090u
#define GS_DISPLAY2 0x120000a0u

/* A 64-bit store (under o32 gcc would split a u64 store into two `sw`). */
static inline void gs_put64(u32 addr, u64 v)
{
    __asm__ volatile(GP64("pextlw $8, %1, %0\n\tsd $8, 0(%2)")
                     :
                     : "r"((u32)v), "r"((u32)(v >> 32)), "r"(addr)
                     : "$8", "memory");
}

/* Start a source chain on channel `base` at `tadr` (TTE = 0) without waiting. */
static inline void dma_chain_start(u32 base, const void *tadr)
{
    REG32(D_CTRL) |= 1; /* DMAE */
    REG32(base + D_QWC) = 0;
    REG32(base + D_TADR) = PHYS(tadr);
    REG32(base + D_CHCR) = CHCR_DIR | CHCR_CHAIN | CHCR_STR;
}

/* Wait (bounded) until the channel's STR clears, VIF1 is idle and no GIF path is active;
   returns 0 when it did, -1 when it gave up. */
static inline int dma_wait_idle(u32 base)
{
    for (u32 i = 0; i < 1000000; i++) {
        if (!(REG32(base + D_CHCR) & CHCR_STR) && !(REG32(VIF1_STAT) & 0x1f00000fu) &&
            ((REG32(GIF_STAT) >> 10) & 3) == 0)
            return 0;
    }
    printf("timeout: CHCR %08x VIF1_STAT %08x GIF_STAT %08x\n", REG32(base + D_CHCR),
           REG32(VIF1_STAT), REG32(GIF_STAT));
    return -1;
}

#endif
