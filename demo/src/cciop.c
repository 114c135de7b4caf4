/* cciop.c: the demo title's IOP start-up and its monitor module's client (see cciop.h). */
#include "cciop.h"
#include "iopreset.h"
#include "loadfile.h"
#include "sifrpc.h"

/* ccmon's server id and its one function (demo/iop/ccmon.c). */
#define CCMON_SID 0x63634d4e
#define CCMON_STATUS 0

/* The module, 64-byte aligned: SIF DMA reads whole quadwords from whole cache lines. */
__asm__(".section .rodata\n"
        ".balign 64\n"
        "ccmon_irx:\n"
        ".incbin \"demo/iop/ccmon.irx\"\n"
        "ccmon_irx_end:\n"
        ".balign 16\n"
        ".previous\n");
extern u8 ccmon_irx[], ccmon_irx_end[];

ccIopStat ccIop;

static SifRpcClientData_t monitor;
/* The reply lands here by SIF DMA: a cache line of its own. */
static u32 reply[16] __attribute__((aligned(64)));
static int inFlight;
static u32 frames;

static void load(const char *path)
{
    int id = SifLoadModule(path, 0, NULL);
    if (id < 0)
        printf("ccIop: %s failed to load (%d)\n", path, id);
}

void ccIop_Init(void)
{
    SifInitRpc(0);
    /* Reboot the IOP with the BIOS's own modules, then wait until it is up. */
    while (!SifIopReset("", 0))
        ;
    while (!SifIopSync())
        ;
    SifInitRpc(0);
    SifLoadFileInit();
    load("rom0:SIO2MAN");
    load("rom0:PADMAN");
    int result = -1;
    ccIop.module = SifExecModuleBuffer(ccmon_irx, (u32)(ccmon_irx_end - ccmon_irx), 0, NULL,
                                       &result);
    if (ccIop.module < 0 || result != 0) {
        printf("ccIop: ccmon did not start (%d, %d)\n", ccIop.module, result);
        return;
    }
    /* ccmon's server thread registers once its _start has returned: bind until it answers. */
    for (int tries = 0; tries < 100 && !monitor.server; tries++)
        if (SifBindRpc(&monitor, CCMON_SID, 0) < 0)
            break;
    ccIop.bound = monitor.server != NULL;
    printf("ccIop: IOP reset, SIO2MAN PADMAN ccmon loaded, monitor %s\n",
           ccIop.bound ? "bound" : "not found");
}

void ccIop_Poll(void)
{
    if (!ccIop.bound)
        return;
    if (inFlight) {
        if (SifCheckStatRpc(&monitor))
            return;
        inFlight = 0;
        ccIop.vblanks = reply[0];
        ccIop.freeBytes = reply[1];
        ccIop.maxBlock = reply[2];
        ccIop.calls = reply[3];
    }
    if (frames++ % 60 != 0)
        return;
    /* Nothing of the reply's line may stay in the data cache over the DMA. */
    SifWriteBackDCache(reply, sizeof reply);
    if (SifCallRpc(&monitor, CCMON_STATUS, SIF_RPC_M_NOWAIT, NULL, 0, reply, 16, NULL, NULL) == 0)
        inFlight = 1;
}
