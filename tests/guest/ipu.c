/* ipu: the Image Processing Unit fed and drained by DMA the way a movie player does it.
 *
 * toIPU is DMA channel 4 (0x1000B400, from memory, normal or source chain), fromIPU channel 3
 * (0x1000B000, to memory, normal mode). IPU_CMD 0x10002000 (64-bit: DATA, BUSY bit 63), IPU_CTRL
 * 0x10002010 (IFC 0-3, OFC 4-7, CBP 8-13, ECD 14, SCD 15, IDP 16-17, AS 20, IVF 21, QST 22,
 * MP1 23, PCT 24-26, RST 30, BUSY 31), IPU_BP 0x10002020 (BP 0-6, IFC 8-11, FP 16-17),
 * IPU_TOP 0x10002030. Each command ends with INTC line 8 (IPU) in I_STAT (0x1000F000; the line
 * stays masked, so no handler runs: the program reads and clears it).
 *
 * Every expected value in ipu.stdout is derived by hand below, from ISO/IEC 13818-2's tables
 * and the IPU's colour conversion (BT.601 in integers, as PCSX2 documents it):
 *   lum = max(0, Y - 16) * 0x95 >> 6, chroma terms (C - 128) * k >> 6 (arithmetic shift) with
 *   k = 0xcc (Cr->R), -0x68 (Cr->G), -0x32 (Cb->G), 0x102 (Cb->B); channel = (lum + terms + 1)
 *   >> 1 clamped to 0..255; RGB32 alpha 0x80; a pixel word is R | G << 8 | B << 16 | A << 24.
 *
 * 1. VDEC / FDEC on a stream fed by toIPU in normal mode.
 * 2. SETIQ (a flat intra matrix of 16) fed by a toIPU source chain (CNT then END).
 * 3. IDEC: a two-macroblock intra slice (MPEG-2, 8-bit DC precision, frame DCT, DC-only
 *    blocks) decoded to RGB32, drained by fromIPU; then SCD and TOP at the start code.
 * 4. BDEC: one intra macroblock to raw16 YCbCr, then CSC of the same macroblock as raw8 to RGB32.
 */
#include "ps2dma.h"
#include "piney_sys.h"

#define IPU_CMD 0x10002000u
#define IPU_CTRL 0x10002010u
#define IPU_BP 0x10002020u
#define IPU_TOP 0x10002030u
#define I_STAT 0x1000f000u
#define D_STAT 0x1000e010u
#define D3_BASE 0x1000b000u /* fromIPU */
#define D4_BASE 0x1000b400u /* toIPU */
#define INTC_IPU (1u << 8)

#define CMD(code, opts) (((u32)(code) << 28) | (u32)(opts))
#define BCLR 0
#define IDEC 1
#define BDEC 2
#define VDEC 3
#define FDEC 4
#define SETIQ 5
#define CSC 7

/* ---- a bit writer: bits first bit first, bytes in memory order (the IPU reads them so) ---- */
static u8 stream[512] __attribute__((aligned(16)));
static u32 nbits;

static void put(u32 v, u32 n)
{
    while (n--) {
        if ((v >> n) & 1)
            stream[nbits >> 3] |= 0x80 >> (nbits & 7);
        nbits++;
    }
}
/* A code written as a string of '0'/'1' (the form the standard's tables print). */
static void code(const char *s)
{
    for (; *s; s++)
        put(*s == '1', 1);
}
static void restart(void)
{
    memset(stream, 0, sizeof stream);
    nbits = 0;
}
static u32 stream_qwc(void) { return (nbits + 127) / 128; }

/* ---- DMA and IPU helpers ---- */
static qword outbuf[128];

static int wait_str(u32 base)
{
    for (u32 i = 0; i < 2000000; i++)
        if (!(REG32(base + D_CHCR) & CHCR_STR))
            return 0;
    printf("timeout: channel %08x CHCR %08x\n", base, REG32(base + D_CHCR));
    return -1;
}

static int wait_ipu(void)
{
    for (u32 i = 0; i < 2000000; i++)
        if (!(REG32(IPU_CTRL) & 0x80000000u))
            return 0;
    printf("timeout: IPU_CTRL %08x\n", REG32(IPU_CTRL));
    return -1;
}

/* toIPU, normal mode: qwc quadwords of the stream. */
static void to_ipu_normal(u32 qwc)
{
    FlushCache(0);
    REG32(D4_BASE + D_MADR) = PHYS(stream);
    REG32(D4_BASE + D_QWC) = qwc;
    REG32(D4_BASE + D_CHCR) = CHCR_DIR | CHCR_STR;
}

/* fromIPU, normal mode, into outbuf. */
static void from_ipu(u32 qwc)
{
    memset(outbuf, 0, sizeof outbuf);
    FlushCache(0);
    REG32(D3_BASE + D_MADR) = PHYS(outbuf);
    REG32(D3_BASE + D_QWC) = qwc;
    REG32(D3_BASE + D_CHCR) = CHCR_STR;
}

static u32 take_ipu_irq(void)
{
    u32 s = REG32(I_STAT) & INTC_IPU;
    REG32(I_STAT) = INTC_IPU;
    return s ? 1 : 0;
}

static u32 count_words(const u32 *w, u32 n, u32 v)
{
    u32 c = 0;
    for (u32 i = 0; i < n; i++)
        c += w[i] == v;
    return c;
}

int main(void)
{
    REG32(D_CTRL) |= 1;
    /* Reset the IPU: FIFOs empty, BP 0. */
    REG32(IPU_CTRL) = 1u << 30;
    take_ipu_irq();

    /* ---- 1. VDEC and FDEC ----
     * Stream bytes 05 a5 a5 a5 a5 5a 00...: bits 0000 0101 1010 0101 1010 0101 ...
     * VDEC table 0 (macroblock_address_increment, table B-1): "0000 0101 10" is increment 17,
     * 10 bits. IPU_CMD.DATA = length << 16 | value = 0x000a0011. BP advances to 10.
     * FDEC (FB 0) reads the next 32 bits without consuming them: from bit 10,
     *   bits 10-15 of a5 (1010 0101): 100101, then a5 a5 (16 bits), then bits 32-41: a5 5a's
     *   first 10 bits 1010 0101 01: 100101 10100101 10100101 1010010101 = 0x9696_9695.
     * BP stays 10; IFC 0 and FP 1 (one quadword, buffered). */
    restart();
    {
        static const u8 b[6] = {0x05, 0xa5, 0xa5, 0xa5, 0xa5, 0x5a};
        memcpy(stream, b, 6);
        nbits = 48;
    }
    REG32(IPU_CMD) = CMD(VDEC, 0);
    to_ipu_normal(1);
    wait_str(D4_BASE);
    wait_ipu();
    printf("VDEC data %08x bp %08x\n", REG32(IPU_CMD), REG32(IPU_BP));
    REG32(IPU_CMD) = CMD(FDEC, 0);
    wait_ipu();
    printf("FDEC data %08x bp %08x irq %u\n", REG32(IPU_CMD), REG32(IPU_BP), take_ipu_irq());

    /* ---- 2. SETIQ through a toIPU source chain ----
     * 64 bytes of 16 (the intra matrix, scan order) = 4 quadwords: CNT with QWC 2 (the data
     * follows the tag), then END with QWC 2 (the next two quadwords follow it). BCLR first:
     * VDEC/FDEC left the rest of their quadword. */
    REG32(IPU_CMD) = CMD(BCLR, 0);
    wait_ipu();
    {
        static qword iq[6] = {
            DMATAG(2, DMA_CNT, 0),
            {{0x10101010, 0x10101010, 0x10101010, 0x10101010}},
            {{0x10101010, 0x10101010, 0x10101010, 0x10101010}},
            DMATAG(2, DMA_END, 0),
            {{0x10101010, 0x10101010, 0x10101010, 0x10101010}},
            {{0x10101010, 0x10101010, 0x10101010, 0x10101010}},
        };
        REG32(IPU_CMD) = CMD(SETIQ, 0);
        FlushCache(0);
        dma_chain_start(D4_BASE, iq);
        wait_str(D4_BASE);
        wait_ipu();
        printf("SETIQ ctrl %08x irq %u\n", REG32(IPU_CTRL), take_ipu_irq());
    }

    /* ---- 3. IDEC: two intra macroblocks to RGB32 ----
     * IPU_CTRL 0: MPEG-2, IDP 0 (DC precision 8 bits: predictors start at 128, DC coefficient
     * = predictor * 8), zigzag, table zero (IVF 0), linear quantiser scale. IDEC QSC 1, no DTD
     * (frame DCT), RGB32, no dither, unsigned.
     * Macroblock 0: macroblock_type "1" (intra, no quant; table B-2). Blocks are DC-only: each
     * is dct_dc_size (B-12 luma / B-13 chroma), the differential, then EOB "10" (B-14).
     *   Y0: -47 (Y 128 - 47 = 81): size 6, luma "11110", bits -47 + 63 = 16 = 010000.
     *   Y1-Y3: 0: luma size 0 "100". Cb: -38 (Cb 90): chroma size 6 "111110",
     *   bits -38 + 63 = 25 = 011001. Cr: +112 (Cr 240): chroma size 7 "1111110", 1110000.
     * A flat block's samples equal its DC: 8 * V / 8 (mismatch control toggles F[7][7] of an
     * even sum by 1, which moves a sample by under 0.01: nothing after rounding).
     * Pixel (Y 81, Cb 90, Cr 240): lum = 65 * 149 >> 6 = 9685 >> 6 = 151;
     *   Cr - 128 = 112: R term 112 * 204 >> 6 = 22848 >> 6 = 357; G term -11648 >> 6 = -182;
     *   Cb - 128 = -38: G term 1900 >> 6 = 29; B term -9804 >> 6 = -154 (floor);
     *   R = (151 + 357 + 1) >> 1 = 254; G = (151 - 182 + 29 + 1) >> 1 = -1 -> 0;
     *   B = (151 - 154 + 1) >> 1 = -1 -> 0: word 0x800000fe, all 256 pixels.
     * macroblock_address_increment "1" (1: no skip, the predictors carry on).
     * Macroblock 1: "1"; Y0 +154 (81 + 154 = 235): luma size 8 "1111110", 10011010; Y1-Y3 0;
     *   Cb +38 (90 + 38 = 128): "111110" 100110; Cr -112 (240 - 112 = 128): "1111110",
     *   -112 + 127 = 15 = 0001111. Y 235: lum = 219 * 149 >> 6 = 32631 >> 6 = 509;
     *   (509 + 1) >> 1 = 255 in each channel: 0x80ffffff.
     * Then a byte-aligned start code 00 00 01 b7: the increment decode finds no code, the slice
     * ends; the next 8 bits are zero, so BP aligns to the byte and CTRL.SCD (bit 15) is set;
     * TOP = the next 32 bits = 0x000001b7. CTRL then reads 0x00008000 + CBP 0x3f << 8 =
     * 0x0000bf00 with the FIFO counts 0 (the stream is two quadwords, both used up to the start
     * code, which sits in the buffer: IFC 0). Both DMA channels have ended: D_STAT CIS3 and
     * CIS4 (bits 3 and 4) read 3 after the shift. */
    REG32(IPU_CMD) = CMD(BCLR, 0);
    wait_ipu();
    REG32(IPU_CTRL) = 0;
    restart();
    code("1");
    code("11110"); put(16, 6); code("10");
    for (int i = 0; i < 3; i++) { code("100"); code("10"); }
    code("111110"); put(25, 6); code("10");
    code("1111110"); put(112, 7); code("10");
    code("1");
    code("1");
    code("1111110"); put(154, 8); code("10");
    for (int i = 0; i < 3; i++) { code("100"); code("10"); }
    code("111110"); put(38, 6); code("10");
    code("1111110"); put(15, 7); code("10");
    nbits = (nbits + 7) & ~7u;
    put(0x000001b7, 32);
    take_ipu_irq();
    REG32(D_STAT) = 3u << 3; /* clear CIS3 and CIS4 (write 1 to clear) */
    REG32(IPU_CMD) = CMD(IDEC, 1u << 16);
    to_ipu_normal(stream_qwc());
    from_ipu(128);
    wait_str(D4_BASE);
    wait_str(D3_BASE);
    wait_ipu();
    {
        const u32 *w = (const u32 *)outbuf;
        printf("IDEC mb0 %08x x%u mb1 %08x x%u\n", w[0], count_words(w, 256, 0x800000fe),
               w[256], count_words(w + 256, 256, 0x80ffffff));
        printf("IDEC ctrl %08x top %08x irq %u dstat %x\n", REG32(IPU_CTRL), REG32(IPU_TOP),
               take_ipu_irq(), (REG32(D_STAT) >> 3) & 3);
    }

    /* ---- 4. BDEC to raw16, then CSC of it as raw8 ----
     * BDEC MBI 1 (intra), DCR 1 (predictors reset to 128), DT 0, QSC 1. Luma differentials
     * +8, 0, -16, 0 give blocks 136, 136, 120, 120 (prediction carries from block to block);
     * Cb +10 -> 138 (chroma size 4 "1110", 1010); Cr -20 -> 108 (size 5 "11110", -20 + 31 =
     * 11 = 01011). Luma +8: size 4 "110", 1000; -16: size 5 "1110", -16 + 31 = 15 = 01111.
     * raw16 is Y 16x16 (row-major), Cb 8x8, Cr 8x8, 16 bits each: 48 quadwords. Y(0,0) = 136,
     * Y(8,0) (column 8, top) = 136, Y(0,8) (row 8) = 120, Cb = 138, Cr = 108. After the
     * macroblock the stream holds 32 one-bits: not a start code (SCD 0); TOP = 0xffffffff.
     * CSC (MBC 1, RGB32) of the same macroblock as raw8 (Y bytes, then Cb, then Cr: 24 qwords):
     *   Y 136: lum = 120 * 149 >> 6 = 17880 >> 6 = 279. Cr - 128 = -20: R term
     *   -4080 >> 6 = -64 (floor of -63.75), G term 2080 >> 6 = 32; Cb - 128 = 10: G term
     *   -500 >> 6 = -8 (floor of -7.8), B term 2580 >> 6 = 40.
     *   R = (279 - 64 + 1) >> 1 = 108 (0x6c), G = (279 + 32 - 8 + 1) >> 1 = 152 (0x98),
     *   B = (279 + 40 + 1) >> 1 = 160 (0xa0): 0x80a0986c.
     *   Y 120: lum = 104 * 149 >> 6 = 15496 >> 6 = 242; R = (242 - 64 + 1) >> 1 = 89 (0x59),
     *   G = (242 + 32 - 8 + 1) >> 1 = 133 (0x85), B = (242 + 40 + 1) >> 1 = 141 (0x8d):
     *   0x808d8559. 128 pixels of each. */
    REG32(IPU_CMD) = CMD(BCLR, 0);
    wait_ipu();
    restart();
    code("110"); put(8, 4); code("10");
    code("100"); code("10");
    code("1110"); put(15, 5); code("10");
    code("100"); code("10");
    code("1110"); put(10, 4); code("10");
    code("11110"); put(11, 5); code("10");
    put(0xffffffffu, 32);
    take_ipu_irq();
    REG32(IPU_CMD) = CMD(BDEC, (1u << 27) | (1u << 26) | (1u << 16));
    to_ipu_normal(stream_qwc());
    from_ipu(48);
    wait_str(D4_BASE);
    wait_str(D3_BASE);
    wait_ipu();
    {
        const u16 *h = (const u16 *)outbuf;
        printf("BDEC y %u %u %u cb %u cr %u\n", h[0], h[8], h[8 * 16], h[256], h[320]);
        printf("BDEC ctrl %08x top %08x irq %u\n", REG32(IPU_CTRL), REG32(IPU_TOP),
               take_ipu_irq());
        /* raw16 -> raw8 for CSC. */
        restart();
        for (int i = 0; i < 384; i++)
            stream[i] = (u8)h[i];
        nbits = 384 * 8;
    }
    REG32(IPU_CMD) = CMD(BCLR, 0);
    wait_ipu();
    REG32(IPU_CMD) = CMD(CSC, 1);
    to_ipu_normal(24);
    from_ipu(64);
    wait_str(D4_BASE);
    wait_str(D3_BASE);
    wait_ipu();
    {
        const u32 *w = (const u32 *)outbuf;
        printf("CSC top %08x x%u bottom %08x x%u irq %u\n", w[0],
               count_words(w, 128, 0x80a0986c), w[128], count_words(w + 128, 128, 0x808d8559),
               take_ipu_irq());
    }
    return 0;
}
