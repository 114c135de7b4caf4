/* ccsystem.h: ccSystem, the frame controller and the screen (engine reference, "Frames" and
 * "The screen"). The record keeps the reference's offsets where it gives them (+0x1c..+0x22 the
 * display base and offset, +0xbd0.. the screen mode, +0xbe0 the double buffer with its DISPLAY
 * registers at +0xbf8 and +0xc20, the circuit-1 copies at +0xe10 / +0xe20); the first words are
 * the demo's:
 *
 *   +0x00 u32 count         frames run (ccSystem::Ctrl calls)
 *   +0x04 s32 frameRate     vertical blanks a frame: 1 = 60 fps, 2 = 30 fps
 *   +0x08 s32 frameRateCnt  vertical blanks since the last frame (VSyncCallBack counts)
 *   +0x0c u32 tick          vertical blanks since boot (VSyncCallBack counts)
 *   +0x10 s32 screenModeReq SetScreenMode asked; SetScreenModeMain applies it on the next Ctrl
 *   +0x14 s32 dbId          the buffer shown by the next swap (the other one is drawn)
 *   +0x18 u32 pathTimeouts  waits for the GS path that gave up (should stay 0)
 *   +0x24 s32 vsyncHandler, +0x28 vsyncSema, +0x2c vsyncWaiting (sceGsSyncV's wait)
 *   +0x30 u32 playTime      vertical blanks played (ccAddPlayTime)
 *   +0x34 u32 workT0        EE Timer 0 (H-blanks) at the end of the last frame's work
 *   +0x38 u32 lastPrint     tick at the last once-a-second status line
 * piney's native ccSystem::Ctrl and VSyncCallBack (crates/piney-engine/src/frame.rs) use these
 * offsets: keep the two in step.
 */
#ifndef DEMO_CCSYSTEM_H
#define DEMO_CCSYSTEM_H

#include "piney_rt.h"

/* Sony's libgraph records (field order and sizes as libgraph lays them out). */
typedef struct {
    u64 pmode, smode2, dispfb, display, bgcolor;
} sceGsDispEnv;
typedef struct {
    u64 frame1, frame1addr, zbuf1, zbuf1addr, xyoffset1, xyoffset1addr, scissor1, scissor1addr;
    u64 prmodecont, prmodecontaddr, colclamp, colclampaddr, dthe, dtheaddr, test1, test1addr;
} sceGsDrawEnv1;
typedef struct {
    u64 testa, testaaddr, prim, primaddr, rgbaq, rgbaqaddr;
    u64 xyz2a, xyz2aaddr, xyz2b, xyz2baddr, testb, testbaddr;
} sceGsClear;
typedef struct {
    u64 tag[2];
} sceGifTag;
/* disp[k] shows buffer k; giftag/draw/clear k (15 qwords from giftagk) draw buffer 1 - k. */
typedef struct {
    sceGsDispEnv disp[2];
    sceGifTag giftag0;
    sceGsDrawEnv1 draw0;
    sceGsClear clear0;
    sceGifTag giftag1;
    sceGsDrawEnv1 draw1;
    sceGsClear clear1;
} sceGsDBuff;

typedef struct {
    u32 count;                 /* +0x00 */
    s32 frameRate;             /* +0x04 */
    volatile s32 frameRateCnt; /* +0x08 */
    volatile u32 tick;         /* +0x0c */
    s32 screenModeReq;         /* +0x10 */
    s32 dbId;                  /* +0x14 */
    u32 pathTimeouts;          /* +0x18 */
    s16 baseX, baseY;          /* +0x1c DISPLAY's DX and DY as SetScreenModeMain set them */
    s16 offsetX, offsetY;      /* +0x20 SetDisplayOffset's (x, y) */
    s32 vsyncHandler;          /* +0x24 */
    s32 vsyncSema;             /* +0x28 */
    volatile s32 vsyncWaiting; /* +0x2c */
    u32 playTime;              /* +0x30 */
    u32 workT0;                /* +0x34 */
    u32 lastPrint;             /* +0x38 */
    u8 unknown0[0xbd0 - 0x3c];
    s16 width;                 /* +0xbd0 */
    s16 height;                /* +0xbd2 */
    s16 field;                 /* +0xbd4 */
    u8 unknown1[0xbe0 - 0xbd6];
    sceGsDBuff db;             /* +0xbe0 */
    u64 display1[2][2];        /* +0xe10, +0xe20: circuit 1's DISPLAY (DY + 1) per buffer */
} __attribute__((aligned(16))) ccSystem;

_Static_assert(sizeof(sceGsDispEnv) == 0x28, "sceGsDispEnv");
_Static_assert(sizeof(sceGsDBuff) == 0x230, "sceGsDBuff");
_Static_assert(__builtin_offsetof(ccSystem, baseX) == 0x1c, "base");
_Static_assert(__builtin_offsetof(ccSystem, vsyncSema) == 0x28, "vsyncSema");
_Static_assert(__builtin_offsetof(ccSystem, workT0) == 0x34, "workT0");
_Static_assert(__builtin_offsetof(ccSystem, lastPrint) == 0x38, "lastPrint");
_Static_assert(__builtin_offsetof(ccSystem, offsetX) == 0x20, "offset");
_Static_assert(__builtin_offsetof(ccSystem, width) == 0xbd0, "width");
_Static_assert(__builtin_offsetof(ccSystem, field) == 0xbd4, "field");
_Static_assert(__builtin_offsetof(ccSystem, db) == 0xbe0, "dbuff");
_Static_assert(__builtin_offsetof(ccSystem, db.disp[0].display) == 0xbf8, "DISPLAY 0");
_Static_assert(__builtin_offsetof(ccSystem, db.disp[1].display) == 0xc20, "DISPLAY 1");
_Static_assert(__builtin_offsetof(ccSystem, display1) == 0xe10, "circuit 1 copies");
_Static_assert(sizeof(ccSystem) == 0xe30, "ccSystem");

extern ccSystem ccSys;

/* Frame buffers and textures in GS local memory (PSMCT32 512 x 448 = 112 pages of 2048 words). */
#define FB_PAGES 112
#define ZBUF_PAGE (2 * FB_PAGES)
#define TEX_CUBE_TBP ((3 * FB_PAGES) * 32) /* 64-word blocks: 32 a page */
#define TEX_FONT_TBP (TEX_CUBE_TBP + 64)   /* 64 x 64 x 4 bytes = 64 blocks */

/* ccSystem::Init: frame rate 1, SetScreenMode(512, 448, 0), the VSync handler, the DMAC. */
void ccSystem_Init(void);
/* ccSystem::Ctrl: one frame (engine reference, "Frames"). */
void ccSystem_Ctrl(void);
void SetScreenMode(s32 w, s32 h, s32 field);
/* SetScreenModeMain (INF 0x0010ad40): applies the mode SetScreenMode asked for. */
void SetScreenModeMain(void);
/* SwapDoubleBuffer (INF 0x0010ac40): shows buffer id on both read circuits. */
void SwapDoubleBuffer(s32 id);
/* VSyncCallBack: the V-blank start handler. */
s32 VSyncCallBack(s32 cause);
void SetDisplayOffset(s32 x, s32 y);
/* SetFrameRate(1 or 2). */
void SetFrameRate(s32 rate);
void ccAddPlayTime(void);
/* Waits for the GIF/VIF1 DMA channels, VU1 and the GIF to be idle (bounded). */
void ccGsWaitPath(void);
/* Start a source-chain DMA on channel 1 (VIF1, with TTE) or 2 (GIF) and wait for it. */
void ccDmaChain(u32 base, const void *tadr, int tte);

#endif
