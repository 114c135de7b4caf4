/* pad: libpad over the IOP's padman (SIF RPC, the pad data frames the IOP writes each vertical
 * blank). Run with tests/guest/pad.input (piney run --input): the expected output follows from
 * that script and padman's documented timing (crates/piney-machine/src/sif/padman.rs): after
 * scePadPortOpen the pad shows FindCTP1 for 2 frames, ExecCmd for 10, then Stable in digital
 * mode; SetMainMode and SetActAlign are busy for 2 frames and done on the 3rd; the IOP writes
 * frame n at the n-th vertical blank after the open. padman serves once the program has loaded
 * rom0:SIO2MAN and rom0:PADMAN through LOADFILE, as on a console; that happens before the
 * vertical blank handler is installed, so the numbers below count from there. */
/* libs: iop */
#include "piney_sys.h"
#include "sifrpc.h"
#include "loadfile.h"
#include "libpad.h"

static volatile int vblanks;
static int seen;
static int vsema;
static u8 area[2][256] __attribute__((aligned(64)));

static s32 on_vblank(s32 cause)
{
    (void)cause;
    vblanks++;
    iSignalSema(vsema);
    ExitHandler();
    return 0;
}

/* Wait for the end of the next vertical blank (the IOP has written its frame by then); its
   number. */
static int wait_vblank(void)
{
    while (vblanks == seen)
        WaitSema(vsema);
    seen = vblanks;
    return seen;
}

static void show_read(int port)
{
    unsigned char d[32];
    int n = scePadRead(port, 0, d);
    printf("read %d:", n);
    for (int i = 0; i < n && i < 32; i++)
        printf(" %02x", d[i]);
    printf("\n");
}

static void show_frame(int v)
{
    printf("vblank %d frame %d: state %d req %d, ", v, scePadGetFrameCount(0, 0),
           scePadGetState(0, 0), scePadGetReqState(0, 0));
    show_read(0);
}

/* Wait until the request running completes, showing each frame. */
static void wait_request(void)
{
    for (int i = 0; i < 10; i++) {
        show_frame(wait_vblank());
        if (scePadGetReqState(0, 0) != scePadReqStateBusy)
            return;
    }
    puts("request still busy after 10 frames");
}

static void direct(unsigned char small, unsigned char large)
{
    unsigned char d[6] = {small, large, 0, 0, 0, 0};
    printf("SetActDirect %d %d: %d\n", small, large, scePadSetActDirect(0, 0, d));
}

int main(void)
{
    ee_sema_t s;
    memset(&s, 0, sizeof s);
    s.init_count = 0;
    s.max_count = 1;
    vsema = CreateSema(&s);
    SifInitRpc(0);
    SifLoadFileInit();
    printf("load rom0:SIO2MAN %s\n", SifLoadModule("rom0:SIO2MAN", 0, NULL) >= 0 ? "ok" : "failed");
    printf("load rom0:PADMAN %s\n", SifLoadModule("rom0:PADMAN", 0, NULL) >= 0 ? "ok" : "failed");
    /* The end of the vertical blank: padman's frame for this blank, sent over SIF0 when the
       blank starts, has landed by then. */
    AddIntcHandler(INTC_VBLANK_E, on_vblank, 0);
    EnableIntc(INTC_VBLANK_E);

    printf("scePadInit %d\n", scePadInit(0));
    int v = wait_vblank();
    printf("open at vblank %d: %d\n", v, scePadPortOpen(0, 0, area[0]));
    printf("before the first frame: state %d req %d frame %d\n", scePadGetState(0, 0),
           scePadGetReqState(0, 0), scePadGetFrameCount(0, 0));

    puts("-- finding the pad");
    int last = -1;
    for (int i = 0; i < 60; i++) {
        v = wait_vblank();
        int st = scePadGetState(0, 0);
        if (st != last)
            show_frame(v);
        last = st;
        if (st == scePadStateStable)
            break;
    }

    puts("-- digital");
    printf("modes %d: %d %d; current id %d ex id %d offs %d\n",
           scePadInfoMode(0, 0, InfoModeIdTable, -1), scePadInfoMode(0, 0, InfoModeIdTable, 0),
           scePadInfoMode(0, 0, InfoModeIdTable, 1), scePadInfoMode(0, 0, InfoModeCurID, 0),
           scePadInfoMode(0, 0, InfoModeCurExID, 0), scePadInfoMode(0, 0, InfoModeCurExOffs, 0));
    printf("actuators %d:", scePadInfoAct(0, 0, -1, 0));
    for (int a = 0; a < 2; a++)
        printf(" [%d %d %d %d]", scePadInfoAct(0, 0, a, InfoActFunc),
               scePadInfoAct(0, 0, a, InfoActSub), scePadInfoAct(0, 0, a, InfoActSize),
               scePadInfoAct(0, 0, a, InfoActCurr));
    printf("\n");

    puts("-- analog, locked");
    int r = scePadSetMainMode(0, 0, 1, 3);
    printf("SetMainMode: %d, state %d req %d\n", r, scePadGetState(0, 0), scePadGetReqState(0, 0));
    printf("again while busy: %d\n", scePadSetMainMode(0, 0, 1, 3));
    wait_request();
    printf("current id %d ex id %d offs %d\n", scePadInfoMode(0, 0, InfoModeCurID, 0),
           scePadInfoMode(0, 0, InfoModeCurExID, 0), scePadInfoMode(0, 0, InfoModeCurExOffs, 0));
    for (int i = 0; i < 3; i++) {
        printf("vblank %d: ", wait_vblank());
        show_read(0);
    }

    puts("-- motors");
    direct(1, 255); /* no alignment yet: nothing runs */
    printf("vblank %d\n", wait_vblank());
    unsigned char align[6] = {0, 1, 0xff, 0xff, 0xff, 0xff};
    printf("SetActAlign: %d\n", scePadSetActAlign(0, 0, align));
    wait_request(); /* the motors start with the frame that completes it */
    direct(0, 64);
    printf("vblank %d\n", wait_vblank());
    direct(1, 0);
    printf("vblank %d\n", wait_vblank());

    puts("-- port 2");
    printf("open: %d\n", scePadPortOpen(1, 0, area[1]));
    v = wait_vblank();
    printf("vblank %d: state %d, ", v, scePadGetState(1, 0));
    show_read(1);

    puts("-- close");
    printf("close port 1: %d\n", scePadPortClose(0, 0)); /* its motors stop */
    printf("close port 2: %d\n", scePadPortClose(1, 0));
    printf("state after close %d\n", scePadGetState(0, 0));
    printf("scePadEnd %d\n", scePadEnd());
    return 0;
}
