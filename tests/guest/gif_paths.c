/* gif_paths: the three GIF paths fed the way a game feeds them, one after the other.
 *
 * 1. PATH3: a GIF DMA source chain (channel 2): CNT with an A+D packet that sets up the
 *    drawing context (FRAME_1, ZBUF_1, SCISSOR_1, TEST_1, XYOFFSET_1, PRMODECONT), REF to a
 *    PACKED sprite packet (blue, pixels (16,16)-(48,40)), END.
 * 2. PATH1: a VIF1 DMA chain (channel 1): MPG uploads the microprogram below to VU1 micro
 *    memory, UNPACK V4-32 sends the matrix, the output GIFtag, three colours and three
 *    positions to VU1 data memory, MSCAL runs it; the microprogram transforms the vertices,
 *    converts them with FTOI4 and XGKICKs a PACKED triangle (PRIM 3, flat).
 * 3. PATH2: a VIF1 DMA chain whose DIRECT sends a REGLIST packet: a yellow sprite,
 *    pixels (200,20)-(240,60).
 * Then it points display circuit 2 at the frame buffer (256 pixels wide, PSMCT32 at 0).
 *
 * crates/piney/tests/data_paths.rs checks the exact GS register writes in order and the pixels
 * drawn. Each step waits until its channel, VIF1 and the GIF are idle. */
#include "ps2dma.h"

/* The VU1 microprogram (assembled by piney_vu::asm::assemble; upper word in the high half,
   lower word first in memory, as MPG loads it). VU1 data memory in quadwords:
   0-3 the matrix's columns c0-c3 (out = c0*x + c1*y + c2*z + c3*w), 4 the output GIFtag,
   5-7 the colours (integers), 8-10 the positions (x, y, z, 1). The packet is built at 16:
   the tag, then RGBA and XYZ2 per vertex. The loop counter is decremented well before the
   IBNE (a conditional branch right after the write would see the old value). */
static const u64 microprogram[30] __attribute__((aligned(16))) = {
    0x000002ff01e10000ull, /*  0: lq.xyzw vf1, 0(vi00) */
    0x000002ff01e20001ull, /*  1: lq.xyzw vf2, 1(vi00) */
    0x000002ff01e30002ull, /*  2: lq.xyzw vf3, 2(vi00) */
    0x000002ff01e40003ull, /*  3: lq.xyzw vf4, 3(vi00) */
    0x000002ff01e50004ull, /*  4: lq.xyzw vf5, 4(vi00) */
    0x000002ff10010008ull, /*  5: iaddiu vi01, vi00, 8 */
    0x000002ff10020005ull, /*  6: iaddiu vi02, vi00, 5 */
    0x000002ff10030011ull, /*  7: iaddiu vi03, vi00, 17 */
    0x000002ff10040003ull, /*  8: iaddiu vi04, vi00, 3 */
    0x000002ff03e02810ull, /*  9: sq.xyzw vf5, 16(vi00) */
    0x000002ff01e60800ull, /* 10: loop: lq.xyzw vf6, 0(vi01) */
    0x000002ff01e91000ull, /* 11: lq.xyzw vf9, 0(vi02) */
    0x000002ff12042001ull, /* 12: isubiu vi04, vi04, 1 */
    0x01e609bc8000033cull, /* 13: mulax.xyzw acc, vf1, vf6x */
    0x01e610bd8000033cull, /* 14: madday.xyzw acc, vf2, vf6y */
    0x01e618be8000033cull, /* 15: maddaz.xyzw acc, vf3, vf6z */
    0x01e621cb8000033cull, /* 16: maddw.xyzw vf7, vf4, vf6w */
    0x01e8397d8000033cull, /* 17: ftoi4.xyzw vf8, vf7 */
    0x000002ff03e34800ull, /* 18: sq.xyzw vf9, 0(vi03) */
    0x000002ff03e34001ull, /* 19: sq.xyzw vf8, 1(vi03) */
    0x000002ff10010801ull, /* 20: iaddiu vi01, vi01, 1 */
    0x000002ff10021001ull, /* 21: iaddiu vi02, vi02, 1 */
    0x000002ff10031802ull, /* 22: iaddiu vi03, vi03, 2 */
    0x000002ff520407f2ull, /* 23: ibne vi04, vi00, loop */
    0x000002ff8000033cull, /* 24: nop */
    0x000002ff10050010ull, /* 25: iaddiu vi05, vi00, 16 */
    0x000002ff80002efcull, /* 26: xgkick vi05 */
    0x400002ff8000033cull, /* 27: nop [e] */
    0x000002ff8000033cull, /* 28: nop */
    0x000002ff8000033cull, /* 29: nop (padding to whole quadwords) */
};

#define F_HALF 0x3f000000u
#define F_1 0x3f800000u
#define F_2 0x40000000u
#define F_8 0x41000000u
#define F_10 0x41200000u
#define F_20 0x41a00000u
#define F_40 0x42200000u
#define F_50 0x42480000u
#define F_60 0x42700000u
#define F_100 0x42c80000u

/* The 11 quadwords UNPACK V4-32 writes at VU1 data address 0. */
static const qword vu_data[11] = {
    { { F_2, F_HALF, 0, 0 } },     /* c0 */
    { { 0, F_2, 0, 0 } },          /* c1 */
    { { 0, 0, F_1, 0 } },          /* c2 */
    { { F_100, F_50, 0, F_1 } },   /* c3 */
    GIFTAG(3, 1, 1, 3, 0, 2, (GIF_XYZ2 << 4) | GIF_RGBAQ), /* PRE, PRIM triangle (flat) */
    { { 255, 0, 0, 128 } },        /* red */
    { { 0, 255, 0, 128 } },        /* green */
    { { 255, 255, 255, 128 } },    /* white */
    { { F_10, F_20, F_8, F_1 } },  /* -> (120, 95) */
    { { F_40, F_20, F_8, F_1 } },  /* -> (180, 110) */
    { { F_10, F_60, F_8, F_1 } },  /* -> (120, 175) */
};

/* PATH1: the VIF1 chain. TTE = 0: the tags' upper halves are not sent, so the VIFcodes sit in
   the data qwords. MPG's data must start 64-bit aligned, UNPACK's 32-bit aligned: each code
   is the last word of its qword here. */
static qword path1_chain[] = {
    DMATAG(1, DMA_CNT, 0),
    { { VIF_STCYCL(1, 1), VIF_NOP, VIF_NOP, VIF_MPG(30, 0) } },
    DMATAG(15, DMA_REF, 0), /* ADDR patched: the microprogram */
    DMATAG(1, DMA_CNT, 0),
    { { VIF_NOP, VIF_NOP, VIF_NOP, VIF_UNPACK_V4_32(11, 0) } },
    DMATAG(11, DMA_REF, 0), /* ADDR patched: vu_data */
    DMATAG(1, DMA_END, 0),
    { { VIF_MSCAL(0), VIF_FLUSH, VIF_NOP, VIF_NOP } },
};

/* PATH2: DIRECT with a REGLIST packet: PRIM, RGBAQ, XYZ2, XYZ2 as raw 64-bit values. */
static const qword path2_chain[] = {
    DMATAG(4, DMA_END, 0),
    { { VIF_NOP, VIF_NOP, VIF_NOP, VIF_DIRECT(3) } },
    GIFTAG(1, 1, 0, 0, 1, 4, 0x5510),
    { { 6, 0, 0x8000ffffu, F_1 } },                 /* PRIM sprite; RGBAQ yellow, Q 1.0 */
    { { (320u << 16) | 3200u, 0, (960u << 16) | 3840u, 0 } }, /* (200,20), (240,60) */
};

/* PATH3: the setup packet (A+D) in the chain, the sprite packet by REF. */
static qword path3_chain[] = {
    DMATAG(7, DMA_CNT, 0),
    GIFTAG(6, 0, 0, 0, 0, 1, GIF_AD),
    { { 4u << 16, 0, 0x4c, 0 } },                   /* FRAME_1: FBP 0, FBW 4, PSMCT32 */
    { { 0x50, 1, 0x4e, 0 } },                       /* ZBUF_1: ZBP 0x50, ZMSK */
    { { 255u << 16, 223u << 16, 0x40, 0 } },        /* SCISSOR_1: (0,0)-(255,223) */
    { { 3u << 16, 0, 0x47, 0 } },                   /* TEST_1: ZTE, ZTST always */
    { { 0, 0, 0x18, 0 } },                          /* XYOFFSET_1: 0, 0 */
    { { 1, 0, 0x1a, 0 } },                          /* PRMODECONT: PRIM's attributes */
    DMATAG(4, DMA_REF, 0),                          /* ADDR patched: sprite3 */
    DMATAG(0, DMA_END, 0),
};

static const qword sprite3[4] = {
    GIFTAG(1, 1, 1, 6, 0, 3, (GIF_XYZ2 << 8) | (GIF_XYZ2 << 4) | GIF_RGBAQ),
    { { 0, 0, 255, 128 } },                 /* blue */
    { { 16 * 16, 16 * 16, 0, 0 } },         /* (16,16) */
    { { 48 * 16, 40 * 16, 0, 0 } },         /* (48,40) */
};

static int step(const char *name, u32 base, const void *chain)
{
    dma_chain_start(base, chain);
    if (dma_wait_idle(base) != 0) {
        printf("%s: did not finish\n", name);
        return -1;
    }
    printf("%s: done\n", name);
    return 0;
}

int main(void)
{
    /* The chains live in .data/.rodata; REF addresses are filled in here. */
    qword *p1 = path1_chain;
    p1[2].w[1] = PHYS(microprogram);
    p1[5].w[1] = PHYS(vu_data);
    path3_chain[8].w[1] = PHYS(sprite3);

    if (step("path3", D2_BASE, path3_chain) || step("path1", D1_BASE, path1_chain) ||
        step("path2", D1_BASE, path2_chain))
        return 1;

    /* Display circuit 2: the 256-pixel-wide buffer at 0, 4 video clocks a pixel. */
    gs_put64(GS_DISPFB2, (4ull << 9));
    gs_put64(GS_DISPLAY2, 636ull | (50ull << 12) | (3ull << 23) | (1023ull << 32) | (223ull << 44));
    gs_put64(GS_PMODE, 0x66);
    puts("gif_paths: end");
    return 0;
}
