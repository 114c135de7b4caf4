/* hw.h: the EE and GS hardware the demo title programs directly.
 *
 * Addresses and bit fields are the PS2's (EE User's Manual, GS User's Manual; the same facts
 * PCSX2 and ps2sdk use). Everything is accessed through KSEG1 (uncached) or the plain 0x1000xxxx
 * / 0x1200xxxx physical addresses, which the EE maps 1:1 in kernel mode and through the TLB in
 * user mode. */
#ifndef DEMO_HW_H
#define DEMO_HW_H

#include "hook.h"
#include "piney_rt.h"

#define REG32(a) (*(volatile u32 *)(a))
#define REG64(a) (*(volatile u64 *)(a))

/* 64-bit store for the GS privileged registers: under o32 gcc would split a u64 store into two
   `sw`, and the GS latches a register only on a 64-bit write. */
static inline void gs_put64(u32 addr, u64 v)
{
    __asm__ volatile(GP64("pextlw $8, %1, %0\n\tsd $8, 0(%2)")
                     : : "r"((u32)v), "r"((u32)(v >> 32)), "r"(addr) : "$8", "memory");
}
static inline u64 gs_get64(u32 addr)
{
    u32 lo, hi;
    __asm__ volatile(GP64("ld $8, 0(%2)\n\tdsrl32 %1, $8, 0\n\tsll %0, $8, 0")
                     : "=r"(lo), "=r"(hi) : "r"(addr) : "$8", "memory");
    return ((u64)hi << 32) | lo;
}

/* ---- EE timers. Timer 0: COUNT 0x10000000, MODE 0x10000010. MODE: CLKS bits 0-1 (3 = H-blank),
   CUE bit 7 (count enable). */
#define T0_COUNT 0x10000000
#define T0_MODE 0x10000010

/* ---- EE SIO (debug output) is in piney_rt.h. */

/* ---- GIF. GIF_STAT 0x10003020: APATH bits 10-11 (0 idle, 1 PATH1, 2 PATH2, 3 PATH3),
   FQC bits 24-28 (qwords in the GIF FIFO). */
#define GIF_STAT 0x10003020
#define GIF_STAT_APATH(s) (((s) >> 10) & 3)
#define GIF_STAT_FQC(s) (((s) >> 24) & 0x1f)

/* ---- VIF1. VIF1_STAT 0x10003C00: VPS bits 0-1 (0 idle), VEW bit 2 (waiting for the end of a
   VU1 microprogram), VGW bit 3 (waiting for the GIF), FQC bits 24-28. */
#define VIF1_STAT 0x10003c00

/* ---- DMAC. Channel 1 (VIF1) at 0x10009000, channel 2 (GIF, PATH3) at 0x1000A000:
   CHCR +0x00, MADR +0x10, QWC +0x20, TADR +0x30. D_CTRL 0x1000E000 (DMAE bit 0).
   CHCR: DIR bit 0 (1 = memory to peripheral), MOD bits 2-3 (0 normal, 1 source chain),
   TTE bit 6 (send the tag's upper 64 bits; VIF only), STR bit 8 (start; clear when done). */
#define D1_BASE 0x10009000
#define D2_BASE 0x1000a000
#define D_CHCR 0x00
#define D_MADR 0x10
#define D_QWC 0x20
#define D_TADR 0x30
#define D_CTRL 0x1000e000
#define D_STAT 0x1000e010
#define CHCR_DIR (1u << 0)
#define CHCR_CHAIN (1u << 2)
#define CHCR_TTE (1u << 6)
#define CHCR_STR (1u << 8)

/* Source-chain DMA tag (the low 64 bits of a qword): QWC bits 0-15, ID bits 28-30, ADDR bits
   32-62. The upper 64 bits go to the VIF as two VIFcodes when CHCR.TTE is set. */
#define DMA_REFE 0u
#define DMA_CNT 1u
#define DMA_NEXT 2u
#define DMA_REF 3u
#define DMA_END 7u
#define DMATAG(qwc, id, addr) \
    ((u64)(qwc) | ((u64)(id) << 28) | ((u64)((u32)(addr) & 0x7fffffff) << 32))

/* VIFcodes: IMMEDIATE bits 0-15, NUM bits 16-23, CMD bits 24-30. */
#define VIF_CODE(cmd, num, imm) (((u32)(cmd) << 24) | ((u32)(num) << 16) | (u32)(imm))
#define VIF_NOP 0x00
#define VIF_STCYCL 0x01 /* imm: WL << 8 | CL */
#define VIF_FLUSHE 0x10 /* wait for the end of the microprogram */
#define VIF_FLUSH 0x11  /* ... and for PATH1/PATH2 to finish their GIF transfers */
#define VIF_MSCAL 0x14  /* imm: start address in 64-bit units */
#define VIF_MPG 0x4a    /* num: 64-bit words (0 = 256), imm: load address in 64-bit units */
#define VIF_UNPACK_V4_32 0x6c /* UNPACK, vn = 3, vl = 0: four 32-bit words a qword; imm: addr */

/* ---- GIF tag (the low 64 bits; the upper 64 are the REGS nibbles): NLOOP bits 0-14, EOP 15,
   PRE 46, PRIM 47-57, FLG 58-59 (0 PACKED, 1 REGLIST, 2 IMAGE), NREG 60-63. */
#define GIF_PACKED 0u
#define GIF_IMAGE 2u
#define GIFTAG(nloop, eop, pre, prim, flg, nreg)                                 \
    ((u64)(nloop) | ((u64)(eop) << 15) | ((u64)(pre) << 46) | ((u64)(prim) << 47) | \
     ((u64)(flg) << 58) | ((u64)(nreg) << 60))
/* PACKED register descriptors. */
#define GIF_REG_PRIM 0x0
#define GIF_REG_RGBAQ 0x1
#define GIF_REG_ST 0x2
#define GIF_REG_UV 0x3
#define GIF_REG_XYZ2 0x5
#define GIF_REG_AD 0xe

/* ---- GS general registers (written through A+D). */
#define GS_PRIM 0x00
#define GS_RGBAQ 0x01
#define GS_UV 0x03
#define GS_XYZ2 0x05
#define GS_TEX0_1 0x06
#define GS_CLAMP_1 0x08
#define GS_TEX1_1 0x14
#define GS_XYOFFSET_1 0x18
#define GS_PRMODECONT 0x1a
#define GS_TEXA 0x3b
#define GS_TEXFLUSH 0x3f
#define GS_SCISSOR_1 0x40
#define GS_ALPHA_1 0x42
#define GS_DTHE 0x45
#define GS_COLCLAMP 0x46
#define GS_TEST_1 0x47
#define GS_FRAME_1 0x4c
#define GS_ZBUF_1 0x4e
#define GS_BITBLTBUF 0x50
#define GS_TRXPOS 0x51
#define GS_TRXREG 0x52
#define GS_TRXDIR 0x53

/* PRIM: type bits 0-2 (3 triangle, 4 strip, 6 sprite), IIP 3 (Gouraud), TME 4, ABE 6, FST 8
   (UV instead of STQ). */
#define PRIM_TRI 3u
#define PRIM_TRISTRIP 4u
#define PRIM_SPRITE 6u
#define PRIM_IIP (1u << 3)
#define PRIM_TME (1u << 4)
#define PRIM_ABE (1u << 6)
#define PRIM_FST (1u << 8)

/* Pixel storage modes. */
#define PSMCT32 0x00
#define PSMZ32 0x00 /* ZBUF.PSM's four bits: PSMZ32 (0x30) is 0 there */

#define GS_SET_RGBAQ(r, g, b, a, q) \
    ((u64)(r) | ((u64)(g) << 8) | ((u64)(b) << 16) | ((u64)(a) << 24) | ((u64)(q) << 32))
/* XYZ2: X bits 0-15, Y 16-31 (12.4 fixed point), Z 32-63. */
#define GS_SET_XYZ(x, y, z) ((u64)(u16)(x) | ((u64)(u16)(y) << 16) | ((u64)(u32)(z) << 32))
/* UV: U bits 0-13, V bits 16-29 (10.4 fixed point texel coordinates). */
#define GS_SET_UV(u, v) ((u64)(u) | ((u64)(v) << 16))
/* FRAME: FBP bits 0-8 (2048-word pages), FBW 16-21 (width / 64), PSM 24-29. */
#define GS_SET_FRAME(fbp, fbw, psm, mask) \
    ((u64)(fbp) | ((u64)(fbw) << 16) | ((u64)(psm) << 24) | ((u64)(mask) << 32))
/* ZBUF: ZBP bits 0-8, PSM 24-27, ZMSK 32. */
#define GS_SET_ZBUF(zbp, psm, zmsk) ((u64)(zbp) | ((u64)(psm) << 24) | ((u64)(zmsk) << 32))
#define GS_SET_XYOFFSET(x, y) ((u64)(x) | ((u64)(y) << 32))
#define GS_SET_SCISSOR(x0, x1, y0, y1) \
    ((u64)(x0) | ((u64)(x1) << 16) | ((u64)(y0) << 32) | ((u64)(y1) << 48))
/* TEST: ATE 0, ATST 1-3, ZTE 16, ZTST 17-18 (1 always, 2 GEQUAL). */
#define GS_SET_TEST(ztst) ((1ull << 16) | ((u64)(ztst) << 17))
/* ALPHA: (A - B) * C >> 7 + D with A 0-1, B 2-3, C 4-5, D 6-7; 0x44 is (Cs - Cd) * As + Cd. */
#define GS_ALPHA_BLEND 0x44ull
/* TEX0: TBP0 bits 0-13 (64-word blocks), TBW 14-19, PSM 20-25, TW 26-29, TH 30-33 (log2),
   TCC 34 (take the texture's alpha), TFX 35-36 (0 MODULATE). */
#define GS_SET_TEX0(tbp, tbw, psm, tw, th, tcc)                                      \
    ((u64)(tbp) | ((u64)(tbw) << 14) | ((u64)(psm) << 20) | ((u64)(tw) << 26) | \
     ((u64)(th) << 30) | ((u64)(tcc) << 34))
/* BITBLTBUF: DBP bits 32-45, DBW 48-53, DPSM 56-61. TRXPOS: DSAX 32-42, DSAY 48-58.
   TRXREG: RRW 0-11, RRH 32-43. TRXDIR 0: host to local memory. */
#define GS_SET_BITBLTBUF_DST(dbp, dbw, dpsm) \
    (((u64)(dbp) << 32) | ((u64)(dbw) << 48) | ((u64)(dpsm) << 56))
#define GS_SET_TRXREG(w, h) ((u64)(w) | ((u64)(h) << 32))

/* ---- GS privileged registers (64-bit, at 0x12000000). */
#define GS_PMODE 0x12000000
#define GS_SMODE1 0x12000010
#define GS_SMODE2 0x12000020
#define GS_SRFSH 0x12000030
#define GS_SYNCH1 0x12000040
#define GS_SYNCH2 0x12000050
#define GS_SYNCV 0x12000060
#define GS_DISPFB1 0x12000070
#define GS_DISPLAY1 0x12000080
#define GS_DISPFB2 0x12000090
#define GS_DISPLAY2 0x120000a0
#define GS_BGCOLOR 0x120000e0
#define GS_CSR 0x12001000
#define GS_CSR_RESET 0x200ull /* CSR bit 9 */

/* DISPFB: FBP bits 0-8, FBW 9-14, PSM 15-19, DBX 32-42, DBY 43-53. */
#define GS_SET_DISPFB(fbp, fbw, psm, dbx, dby) \
    ((u64)(fbp) | ((u64)(fbw) << 9) | ((u64)(psm) << 15) | ((u64)(dbx) << 32) | ((u64)(dby) << 43))
/* DISPLAY: DX bits 0-11, DY 12-22, MAGH 23-26, MAGV 27-28, DW 32-43, DH 44-54. */
#define GS_SET_DISPLAY(dx, dy, magh, magv, dw, dh)                                   \
    ((u64)(dx) | ((u64)(dy) << 12) | ((u64)(magh) << 23) | ((u64)(magv) << 27) | \
     ((u64)(dw) << 32) | ((u64)(dh) << 44))
#define DISPLAY_DX(d) ((u32)(d) & 0xfff)
#define DISPLAY_DY(d) (((u32)(d) >> 12) & 0x7ff)
/* PMODE: EN1 bit 0, EN2 1, CRTMD 2-4 (always 1), MMOD 5 (ALP from the register), AMOD 6
   (circuit 2's alpha), SLBG 7, ALP 8-15. libgraph's default 0x66: EN2 | CRTMD 1 | MMOD | AMOD. */
#define PMODE_DEFAULT 0x66ull
#define PMODE_EN1 0x1ull
#define PMODE_ALP(a) ((u64)(a) << 8)

#endif
