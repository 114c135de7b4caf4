/* main.c: piney's demo title, built like CyberConnect2's engine (engine reference, "Boot",
 * "Frames", "Tasks"): main sets up the heap, the system and the task list, starts ccPadThread
 * and ccThMother, and then runs one frame per pass of
 *
 *     WakeupThread(tscbCtrl); SleepThread(); ccSystem::Ctrl(); ccAddPlayTime();
 *
 * ccThMother starts the title's tasks: the menu (pad input: frame rate, rumble, the Adjust
 * Screen page), a short-lived ticker (started and deleted over and over, through both delete
 * stages), the 3D scene and the 2D layer. Every task does one frame's work between two Breath
 * calls. Controls (pad 0): select 60/30 fps; circle a short hit (SetActuater(1, 0, 100))
 * and the sound effect (ccIop_PlayEffect: the IOP's sound driver keys its effect voice);
 * triangle a long low rumble (SetActuater(0, 80, 1000)); start the Adjust Screen page (D-pad
 * moves the picture, cross centres it); square suspends the scene task for a frame. */
#include "cciop.h"
#include "ccpad.h"
#include "ccsystem.h"
#include "draw.h"
#include "heap.h"
#include "mathf.h"
#include "piney_sys.h"
#include "tscb.h"

#define RGBA(r, g, b, a) ((u32)(r) | (u32)(g) << 8 | (u32)(b) << 16 | (u32)(a) << 24)
#define WHITE RGBA(0x80, 0x80, 0x80, 0x80)
#define YELLOW RGBA(0x80, 0x78, 0x30, 0x80)
#define CYAN RGBA(0x40, 0x80, 0x80, 0x80)
#define GREY RGBA(0x58, 0x58, 0x60, 0x80)
#define EDGE RGBA(0xf0, 0xe0, 0x60, 0x80)

/* The title's state, shared by its tasks. */
static int adjustPage;     /* the Adjust Screen page is open */
static ccTscb *sceneTask;  /* for the square button's one-frame suspend */
static ccTscb *tickerTask; /* the current ticker, NULL between lives */
static u32 tickerLives;    /* tickers started */
static u32 tickerFreed;    /* tickers that went through stage 3 */

/* ---- ccPadThread: ccPad::Ctrl for both ports each frame ---- */

static void ccPadThread(void *arg)
{
    (void)arg;
    ccPad_Init();
    for (;;) {
        ccPad_Ctrl(&ccPads[0]);
        ccPad_Ctrl(&ccPads[1]);
        ccTscb_Breath(1);
    }
}

/* ---- ccThMenu: what pad 0 asks ---- */

static void ccThMenu(void *arg)
{
    (void)arg;
    for (;;) {
        ccPad *p = &ccPads[0];
        if (p->push & PAD_SELECT) {
            SetFrameRate(ccSys.frameRate == 1 ? 2 : 1);
            printf("menu: frameRate %d (%d fps)\n", ccSys.frameRate, 60 / ccSys.frameRate);
        }
        if (p->push & PAD_CIRCLE) {
            ccPad_SetActuater(p, 1, 0, 100); /* a short hit: the small motor, 100 ms */
            ccIop_PlayEffect();              /* and its sound, the IOP's effect voice */
        }
        if (p->push & PAD_TRIANGLE)
            ccPad_SetActuater(p, 0, 80, 1000); /* a long low rumble: large motor 80, 1 s */
        if (p->push & PAD_SQUARE)
            ccSuspendThread(sceneTask);
        if (p->push & PAD_START)
            adjustPage = !adjustPage;
        if (adjustPage) {
            /* Adjust Screen: x by 3 within -48..48, y by 1 within -16..16. */
            s32 x = ccSys.offsetX, y = ccSys.offsetY;
            if ((p->repeat & PAD_LEFT) && x > -48)
                x -= 3;
            if ((p->repeat & PAD_RIGHT) && x < 48)
                x += 3;
            if ((p->repeat & PAD_UP) && y > -16)
                y -= 1;
            if ((p->repeat & PAD_DOWN) && y < 16)
                y += 1;
            if (p->push & PAD_CROSS)
                x = y = 0;
            if (x != ccSys.offsetX || y != ccSys.offsetY)
                SetDisplayOffset(x, y);
        }
        ccTscb_Breath(1);
    }
}

/* ---- ccThTicker: lives 120 frames, then is deleted (stage 2, then stage 3) ---- */

static void ticker_stage2(void *arg)
{
    ccTscb *t = arg;
    printf("ccThTicker: delete stage 2 after %u frames (funcI)\n", t->param[0]);
    tickerTask = NULL;
}

static void ticker_stage3(void *arg)
{
    (void)arg;
    tickerFreed++;
    printf("ccThTicker: stage 3, deleted and freed (func)\n");
}

static void ccThTicker(void *arg)
{
    ccTscb *t = arg;
    while (t->param[0] < 120) {
        t->param[0]++;
        ccTscb_Breath(1);
    }
    /* Returning ends the task: its deletion is asked, and ccThControl does the rest. */
}

/* ---- ccThScene: the 3D scene through VU1 ---- */

static void ccThScene(void *arg)
{
    (void)arg;
    float a = 0;
    for (;;) {
        /* The same speed at 30 and 60 fps: the angle moves by the vertical blanks a frame. */
        a += 0.015f * (float)ccSys.frameRate;
        if (a > 2 * PI_F * 8)
            a -= 2 * PI_F * 8;
        /* An opaque cube circling, then a large blended one in the middle. */
        ccDraw_Cube(a * 1.7f, a * 2.3f, 2.6f * cosf_(a), 0.9f * sinf_(a * 2), 7.0f + 2.6f * sinf_(a),
                    0.45f, 0x80);
        ccDraw_Cube(a * 0.7f, a, 0, 0, 7.0f, 1.25f, 0x58);
        ccTscb_Breath(1);
    }
}


/* ---- ccThLayer: the 2D layer (font and panels through PATH3) ---- */

static const char *sign(s32 v) { return v < 0 ? "-" : "+"; }
static s32 absv(s32 v) { return v < 0 ? -v : v; }

static void draw_pad(s32 x, s32 y, const ccPad *p)
{
    ccDraw_Panel(x - 4, y - 4, 248, 124, RGBA(0x00, 0x00, 0x10, 0x50));
    if (p->state != PADST_READY) {
        ccDraw_Printf(x, y, GREY, "PAD%d STATE %02X (LOOKING)", p->port, p->state);
        return;
    }
    ccDraw_Printf(x, y, YELLOW, "PAD%d MODE %02X %s", p->port, p->mode,
                  p->analog ? "ANALOG" : "DIGITAL");
    ccDraw_Printf(x, y + 16, WHITE, "DIRECT %04X PUSH %04X", p->direct, p->push);
    ccDraw_Printf(x, y + 32, WHITE, "REPEAT %04X UNPUSH %04X", p->repeat, p->unpush);
    ccDraw_Printf(x, y + 48, WHITE, "L %4d' %3d  R %4d' %3d", (int)(p->leftAngle * 57.29578f),
                  p->leftPow, (int)(p->rightAngle * 57.29578f), p->rightPow);
    ccDraw_Printf(x, y + 64, CYAN, "MOTOR ST %d Q %d SENT %d/%d", p->actState, p->actCount,
                  p->sent[0], p->sent[1]);
    char q[64];
    int n = 0;
    for (int k = 0; k <= p->actCount && k < 4; k++)
        n += snprintf(q + n, sizeof q - (u32)n, "%d:%d%s%d ", k, p->act[k].time,
                      (p->act[k].flags & ACT_MARKED) ? "*" : " ", p->act[k].power);
    ccDraw_Text(x, y + 80, CYAN, q);
    /* The sticks: a box each with a dot where the stick is. */
    for (int s = 0; s < 2; s++) {
        s32 bx = x + 200, by = y + s * 50 + 4;
        u8 sx = p->stick[s == 0 ? 2 : 0], sy = p->stick[s == 0 ? 3 : 1];
        ccDraw_Panel(bx, by, 36, 36, RGBA(0x40, 0x40, 0x40, 0x60));
        ccDraw_Panel(bx + 16 + (sx - 128) / 8, by + 16 + (sy - 128) / 8, 4, 4,
                     s == 0 ? YELLOW : CYAN);
    }
}

static void ccThLayer(void *arg)
{
    (void)arg;
    for (;;) {
        u32 secs = ccSys.playTime / 60;
        ccIop_Poll();
        ccDraw_Panel(8, 8, 496, 86, RGBA(0x00, 0x00, 0x00, 0x48));
        ccDraw_Text(16, 12, YELLOW, "PINEY DEMO  CCSYSTEM / CCTSCB / CCPAD");
        ccDraw_Printf(16, 28, WHITE, "%d FPS (FRAMERATE %d)  FRAME %u  TICK %u", 60 / ccSys.frameRate,
                      ccSys.frameRate, ccSys.count, ccSys.tick);
        ccDraw_Printf(16, 44, WHITE, "PLAY %02u:%02u:%02u  WORK %u HBLANKS  HEAP %uK",
                      secs / 3600, secs / 60 % 60, secs % 60, ccSys.workT0, ccHeap_FreeBytes() / 1024);
        ccDraw_Printf(16, 60, GREY, "OFFSET X %s%d Y %s%d  TICKERS %u/%u", sign(ccSys.offsetX),
                      absv(ccSys.offsetX), sign(ccSys.offsetY), absv(ccSys.offsetY), tickerFreed,
                      tickerLives);
        ccDraw_Printf(16, 76, CYAN, "IOP VBLANK %u  FREE %uK (BLOCK %uK)  CALLS %u", ccIop.vblanks,
                      ccIop.freeBytes / 1024, ccIop.maxBlock / 1024, ccIop.calls);
        draw_pad(12, 292, &ccPads[0]);
        draw_pad(264, 292, &ccPads[1]);
        /* The task list, in walk order. */
        s32 y = 96;
        for (ccTscb *t = tscbTop; t && y < 270; t = t->link, y += 16)
            ccDraw_Printf(360, y, t->del ? GREY : WHITE, "%-11s %2d %02X", t->name, t->priority,
                          t->mask);
        ccDraw_Text(16, 420, GREY, "SELECT 30/60  O HIT  /\\ RUMBLE  START ADJUST");
        if (adjustPage) {
            ccDraw_Panel(112, 150, 288, 84, RGBA(0x20, 0x10, 0x00, 0x60));
            ccDraw_Text(200, 158, YELLOW, "ADJUST SCREEN");
            ccDraw_Printf(144, 182, WHITE, "X %s%d (-48..48)  Y %s%d (-16..16)", sign(ccSys.offsetX),
                          absv(ccSys.offsetX), sign(ccSys.offsetY), absv(ccSys.offsetY));
            ccDraw_Text(144, 206, GREY, "D-PAD MOVE  X CENTRE  START DONE");
            /* The picture's edges, to line up with the TV's. */
            ccDraw_Panel(0, 0, SCREEN_W, 2, EDGE);
            ccDraw_Panel(0, SCREEN_H - 2, SCREEN_W, 2, EDGE);
            ccDraw_Panel(0, 0, 2, SCREEN_H, EDGE);
            ccDraw_Panel(SCREEN_W - 2, 0, 2, SCREEN_H, EDGE);
        }
        ccTscb_Breath(1);
    }
}

/* ---- ccThMother: the title's set-up, then the ticker's lives ---- */

static void ccThMother(void *arg)
{
    (void)arg;
    /* One frame first: ccSystem::Ctrl applies the screen mode (the GS reset) before the
       textures go to the GS. */
    ccTscb_Breath(1);
    ccDraw_Init();
    ccStartThread(ccThMenu, PRIO_THMENU, 8192, "ccThMenu");
    sceneTask = ccStartThread(ccThScene, PRIO_THSCENE, 8192, "ccThScene");
    ccStartThread(ccThLayer, PRIO_THLAYER, 8192, "ccThLayer");
    u32 idle = 0;
    for (;;) {
        /* A ticker lives 120 frames; 60 frames after one is freed, the next starts. */
        if (!tickerTask && ++idle >= 60) {
            idle = 0;
            tickerTask = ccStartThread(ccThTicker, PRIO_THTICKER, 4096, "ccThTicker");
            if (tickerTask) {
                tickerTask->funcI = ticker_stage2;
                tickerTask->tmngI = tickerTask;
                tickerTask->func = ticker_stage3;
                tickerTask->tmng = NULL;
                tickerLives++;
            }
        }
        ccTscb_Breath(1);
    }
}

int main(void)
{
    printf("piney demo title: boot\n");
    ccHeap_InitFirst();
    /* The IOP first, as InitCCSys and ccLoad_SndModules do: pads and sound live there. */
    ccIop_Init();
    ccSystem_Init();
    ccInitThread();
    ccStartThread(ccPadThread, PRIO_PADTHREAD, 16384, "ccPadThread");
    ccStartThread(ccThMother, PRIO_THMOTHER, 16384, "ccThMother");
    for (;;) {
        WakeupThread(tscbCtrl);
        SleepThread();
        ccSystem_Ctrl();
        ccAddPlayTime();
    }
}
