/* ccsystem.c: ccSystem::Ctrl (one frame), the VSync handler, and the screen: SetScreenMode,
 * SetScreenModeMain, SetDisplayOffset and SwapDoubleBuffer, as the engine reference's "Frames"
 * and "The screen" give them. */
#include "ccsystem.h"
#include "ccpad.h"
#include "draw.h"
#include "hw.h"
#include "piney_sys.h"
#include "tscb.h"

ccSystem ccSys;

/* ---- Vertical blanks ---- */

/* VSyncCallBack (INTC cause 2, V-blank start): frameRateCnt += 1, tick += 1, and release a
   sceGsSyncV wait. */
HOOKABLE s32 VSyncCallBack(s32 cause)
{
    (void)cause;
    ccSys.frameRateCnt++;
    ccSys.tick++;
    if (ccSys.vsyncWaiting) {
        ccSys.vsyncWaiting = 0;
        iSignalSema(ccSys.vsyncSema);
    }
    ExitHandler();
    return 0;
}

/* sceGsSyncV: wait for the next V-blank start (here on a semaphore the handler signals, so the
   CPU sleeps instead of polling CSR.VSINT; a V-blank between the flag and WaitSema leaves the
   semaphore signalled, so none is lost). */
static void ccSyncV(void)
{
    ccSys.vsyncWaiting = 1;
    WaitSema(ccSys.vsyncSema);
}

/* ---- DMA and the GS path ---- */

void ccGsWaitPath(void)
{
    /* Bounded, so that a machine that never finishes shows up as a count, not a hang. */
    u32 n = 0;
    const u32 limit = 2000000;
    while ((REG32(D1_BASE + D_CHCR) & CHCR_STR) || (REG32(D2_BASE + D_CHCR) & CHCR_STR)) {
        if (++n == limit)
            goto timeout;
    }
    /* VIF1 idle, not waiting on VU1 (VEW) or the GIF (VGW), FIFO empty; GIF on no path. */
    while ((REG32(VIF1_STAT) & 0x1f00000f) || GIF_STAT_APATH(REG32(GIF_STAT)) != 0) {
        if (++n == limit)
            goto timeout;
    }
    return;
timeout:
    if (ccSys.pathTimeouts++ == 0)
        printf("ccGsWaitPath: gave up (D1_CHCR %08x D2_CHCR %08x VIF1_STAT %08x GIF_STAT %08x)\n",
               REG32(D1_BASE + D_CHCR), REG32(D2_BASE + D_CHCR), REG32(VIF1_STAT), REG32(GIF_STAT));
}

void ccDmaChain(u32 base, const void *tadr, int tte)
{
    u32 n = 0;
    while (REG32(base + D_CHCR) & CHCR_STR)
        if (++n == 2000000) {
            ccSys.pathTimeouts++;
            return;
        }
    REG32(base + D_QWC) = 0;
    REG32(base + D_TADR) = (u32)tadr & 0x0fffffff;
    REG32(base + D_CHCR) = CHCR_DIR | CHCR_CHAIN | (tte ? CHCR_TTE : 0) | CHCR_STR;
    n = 0;
    while (REG32(base + D_CHCR) & CHCR_STR)
        if (++n == 2000000) {
            if (ccSys.pathTimeouts++ == 0)
                printf("ccDmaChain %08x: channel never finished\n", base);
            return;
        }
}

/* ---- The screen ---- */

/* sceGsResetGraph(mode 0, inter, omode, ffmode): reset the GS (CSR.RESET), mask its interrupts
   but VSync's (GsPutIMR 0xff00) and set the CRT mode through SetGsCrt. The BIOS's SetGsCrt for
   NTSC interlaced writes SMODE1 (first with the PLL reset, 0x740834504, then 0x740814504),
   SYNCH1, SYNCH2, SYNCV, SMODE2 (INT | FFMD << 1) and SRFSH; the same stores follow here so
   that the PCRTC has them whatever the kernel's SetGsCrt does. */
static void sceGsResetGraph(s32 mode, s32 inter, s32 omode, s32 ffmode)
{
    (void)mode;
    gs_put64(GS_CSR, GS_CSR_RESET);
    piney_syscall1(SYS_GsPutIMR, 0xff00);
    piney_syscall3(2 /* SetGsCrt */, (u32)inter, (u32)omode, (u32)ffmode);
    if (omode == 2) {
        gs_put64(GS_SMODE1, 0x740834504ull);
        gs_put64(GS_SYNCH1, 0x7f5b61f06f040ull);
        gs_put64(GS_SYNCH2, 0x33a4d8ull);
        gs_put64(GS_SYNCV, 0xc7800601a01801ull);
        gs_put64(GS_SMODE2, ((u64)ffmode << 1) | (u64)(inter & 1));
        gs_put64(GS_SRFSH, 8);
        gs_put64(GS_SMODE1, 0x740814504ull);
    }
}

/* sceGsSetDefDispEnv for NTSC interlaced: MAGH = (2559 + w) / w - 1 (4 at 512), DX 636, DY 50,
   DW = w x (MAGH + 1) - 1, DH = 2h - 1 in field mode (224 a field), h - 1 otherwise. */
static void sceGsSetDefDispEnv(sceGsDispEnv *d, u32 fbp, s32 w, s32 h, s32 field)
{
    s32 magh = (2559 + w) / w - 1;
    s32 dh = field ? 2 * h - 1 : h - 1;
    d->pmode = PMODE_DEFAULT;
    d->smode2 = 1 | ((u64)field << 1);
    d->dispfb = GS_SET_DISPFB(fbp, w / 64, PSMCT32, 0, 0);
    d->display = GS_SET_DISPLAY(636, 50, magh, 0, w * (magh + 1) - 1, dh);
    d->bgcolor = 0;
}

static void set_draw_env(sceGifTag *tag, sceGsDrawEnv1 *e, sceGsClear *c, u32 fbp, s32 w, s32 h)
{
    tag->tag[0] = GIFTAG(14, 1, 0, 0, GIF_PACKED, 1);
    tag->tag[1] = GIF_REG_AD;
    e->frame1 = GS_SET_FRAME(fbp, w / 64, PSMCT32, 0);
    e->frame1addr = GS_FRAME_1;
    e->zbuf1 = GS_SET_ZBUF(ZBUF_PAGE, PSMZ32, 0);
    e->zbuf1addr = GS_ZBUF_1;
    /* The primitive coordinate 2048 is the screen's centre. */
    e->xyoffset1 = GS_SET_XYOFFSET((2048 - w / 2) << 4, (2048 - h / 2) << 4);
    e->xyoffset1addr = GS_XYOFFSET_1;
    e->scissor1 = GS_SET_SCISSOR(0, w - 1, 0, h - 1);
    e->scissor1addr = GS_SCISSOR_1;
    e->prmodecont = 1; /* PRIM's attributes, not PRMODE's */
    e->prmodecontaddr = GS_PRMODECONT;
    e->colclamp = 1;
    e->colclampaddr = GS_COLCLAMP;
    e->dthe = 0;
    e->dtheaddr = GS_DTHE;
    e->test1 = GS_SET_TEST(2); /* depth test GEQUAL: the VU program's larger Z is nearer */
    e->test1addr = GS_TEST_1;
    /* The clear: a sprite over the buffer with the depth test passing always, Z 0. */
    c->testa = GS_SET_TEST(1);
    c->testaaddr = GS_TEST_1;
    c->prim = PRIM_SPRITE;
    c->primaddr = GS_PRIM;
    c->rgbaq = GS_SET_RGBAQ(0x10, 0x10, 0x28, 0x80, 0x3f800000);
    c->rgbaqaddr = GS_RGBAQ;
    c->xyz2a = GS_SET_XYZ((2048 - w / 2) << 4, (2048 - h / 2) << 4, 0);
    c->xyz2aaddr = GS_XYZ2;
    c->xyz2b = GS_SET_XYZ((2048 + w / 2) << 4, (2048 + h / 2) << 4, 0);
    c->xyz2baddr = GS_XYZ2;
    c->testb = e->test1;
    c->testbaddr = GS_TEST_1;
}

/* sceGsSetDefDBuff: buffer 0 at page 0, buffer 1 after it, the Z buffer after both. disp[k]
   shows buffer k while draw k draws the other. */
static void sceGsSetDefDBuff(sceGsDBuff *db, s32 w, s32 h, s32 field)
{
    sceGsSetDefDispEnv(&db->disp[0], 0, w, h, field);
    sceGsSetDefDispEnv(&db->disp[1], FB_PAGES, w, h, field);
    set_draw_env(&db->giftag0, &db->draw0, &db->clear0, FB_PAGES, w, h);
    set_draw_env(&db->giftag1, &db->draw1, &db->clear1, 0, w, h);
}

HOOKABLE void SetScreenMode(s32 w, s32 h, s32 field)
{
    ccSys.width = (s16)w;
    ccSys.height = (s16)h;
    ccSys.field = (s16)(h <= 256 ? 0 : field);
    ccSys.screenModeReq = 1;
}

static u64 display_with(u64 display, s32 dx, s32 dy)
{
    if (dx < 0)
        dx = 0;
    if (dx > 4095)
        dx = 4095;
    if (dy < 0)
        dy = 0;
    if (dy > 2046)
        dy = 2046;
    return (display & ~0x7fffffull) | (u64)dx | ((u64)dy << 12);
}

HOOKABLE void SetDisplayOffset(s32 x, s32 y)
{
    ccSys.offsetX = (s16)x;
    ccSys.offsetY = (s16)y;
    for (int k = 0; k < 2; k++) {
        u64 *d = &ccSys.db.disp[k].display;
        *d = display_with(*d, ccSys.baseX + x, ccSys.baseY + y);
        /* Frame mode: read circuit 1 shows the same buffer a line lower. */
        if (ccSys.field == 0)
            ccSys.display1[k][0] = display_with(*d, ccSys.baseX + x, ccSys.baseY + y + 1);
    }
}

/* SetScreenModeMain: the mode asked by SetScreenMode. */
HOOKABLE void SetScreenModeMain(void)
{
    s32 w = ccSys.width, h = ccSys.height, field = ccSys.field;
    if (h <= 256)
        sceGsResetGraph(0, 0, 2, 1);
    else
        sceGsResetGraph(0, 1, 2, field);
    sceGsSetDefDBuff(&ccSys.db, w, h, field);
    ccSys.baseX = (s16)DISPLAY_DX(ccSys.db.disp[0].display);
    ccSys.baseY = (s16)DISPLAY_DY(ccSys.db.disp[0].display);
    if (field == 0 && h > 256) {
        /* The deflicker merge: circuit 1 on too, ALP 127 (a line is 127/255 the one above). */
        for (int k = 0; k < 2; k++)
            ccSys.db.disp[k].pmode |= PMODE_EN1 | PMODE_ALP(127);
    }
    SetDisplayOffset(ccSys.offsetX, ccSys.offsetY);
    ccSys.screenModeReq = 0;
    printf("SetScreenModeMain: %dx%d field %d, PMODE %08x DISPLAY %08x%08x\n", w, h, field,
           (u32)ccSys.db.disp[0].pmode, (u32)(ccSys.db.disp[0].display >> 32),
           (u32)ccSys.db.disp[0].display);
}

/* SwapDoubleBuffer: circuit 1 reads the shown buffer with the +0xe10 DISPLAY copy (frame mode
   only), then sceGsSwapDBuff puts circuit 2's PMODE, SMODE2, DISPFB2, DISPLAY2 and BGCOLOR. */
HOOKABLE void SwapDoubleBuffer(s32 id)
{
    const sceGsDispEnv *d = &ccSys.db.disp[id];
    if (ccSys.field == 0) {
        gs_put64(GS_DISPFB1, d->dispfb);
        gs_put64(GS_DISPLAY1, ccSys.display1[id][0]);
    }
    gs_put64(GS_PMODE, d->pmode);
    gs_put64(GS_SMODE2, d->smode2);
    gs_put64(GS_DISPFB2, d->dispfb);
    gs_put64(GS_DISPLAY2, d->display);
    gs_put64(GS_BGCOLOR, d->bgcolor);
}

void SetFrameRate(s32 rate) { ccSys.frameRate = rate == 2 ? 2 : 1; }

void ccAddPlayTime(void) { ccSys.playTime += (u32)ccSys.frameRate; }

void ccSystem_Init(void)
{
    memset(&ccSys, 0, sizeof ccSys);
    SetFrameRate(1);
    SetScreenMode(512, 448, 0);
    /* EE Timer 0 counts H-blanks (CLKS 3, CUE): the frame's work time. */
    REG32(T0_MODE) = 0x83;
    REG32(T0_COUNT) = 0;
    REG32(D_CTRL) |= 1; /* DMAE */
    ee_sema_t s = {0};
    s.init_count = 0;
    s.max_count = 1;
    ccSys.vsyncSema = CreateSema(&s);
    ccSys.vsyncHandler = AddIntcHandler(INTC_VBLANK_S, VSyncCallBack, 0);
    EnableIntc(INTC_VBLANK_S);
}

HOOKABLE void ccSystem_Ctrl(void)
{
    ccSys.workT0 = REG32(T0_COUNT);
    /* Wait for the GS path (the last frame's lists), then for the frame's vertical blanks. */
    ccGsWaitPath();
    while (ccSys.frameRateCnt < ccSys.frameRate)
        ccSyncV();
    ccSys.frameRateCnt = 0;
    REG32(T0_COUNT) = 0;
    ccSys.count++;
    if (ccSys.screenModeReq)
        SetScreenModeMain();
    FlushCache(0);
    /* Show what the last frame drew; this frame's lists draw the other buffer. */
    s32 id = ccSys.dbId;
    SwapDoubleBuffer(id);
    ccDraw_SendFrame(id);
    ccSys.dbId = id ^ 1;
    /* Pads 0 and 1, then each one's motor countdown. */
    for (int port = 0; port < 2; port++) {
        ccPad_Read(&ccPads[port]);
        ccPad_ActTick(&ccPads[port], (u16)ccSys.frameRate);
    }
    /* A line a second (60 vertical blanks) for headless runs. */
    if (ccSys.tick - ccSys.lastPrint >= 60) {
        ccSys.lastPrint = ccSys.tick;
        printf("frame %u tick %u: %d fps (frameRate %d), %d tasks, pad0 %02x direct %04x, "
               "path timeouts %u\n",
               ccSys.count, ccSys.tick, 60 / ccSys.frameRate, ccSys.frameRate,
               (int)ccThreadCount(), ccPads[0].mode, ccPads[0].direct, ccSys.pathTimeouts);
    }
}
