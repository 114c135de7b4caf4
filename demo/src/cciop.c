/* cciop.c: the demo title's IOP start-up and the clients of its two modules (see cciop.h). */
#include "cciop.h"
#include "iopreset.h"
#include "loadfile.h"
#include "sifrpc.h"

/* ccmon's server id and its one function (demo/iop/ccmon.c). */
#define CCMON_SID 0x63634d4e
#define CCMON_STATUS 0
/* ccsnd's server id and its one function (demo/iop/ccsnd.c). */
#define CCSND_SID 0x6363534e
#define CCSND_PLAY_EFFECT 0

/* The modules, 64-byte aligned: SIF DMA reads whole quadwords from whole cache lines. */
__asm__(".section .rodata\n"
        ".balign 64\n"
        "ccmon_irx:\n"
        ".incbin \"demo/iop/ccmon.irx\"\n"
        "ccmon_irx_end:\n"
        ".balign 64\n"
        "ccsnd_irx:\n"
        ".incbin \"demo/iop/ccsnd.irx\"\n"
        "ccsnd_irx_end:\n"
        ".balign 16\n"
        ".previous\n");
extern u8 ccmon_irx[], ccmon_irx_end[];
extern u8 ccsnd_irx[], ccsnd_irx_end[];

ccIopStat ccIop;

static SifRpcClientData_t monitor;
static SifRpcClientData_t sound;
/* The reply lands here by SIF DMA: a cache line of its own. */
static u32 reply[16] __attribute__((aligned(64)));
static int inFlight;
static int soundInFlight;
static u32 frames;

static void load(const char *path)
{
    int id = SifLoadModule(path, 0, NULL);
    if (id < 0)
        printf("ccIop: %s failed to load (%d)\n", path, id);
}

/* Start an embedded module; its id, or <0 (with a line) when it did not start. */
static int exec(const char *name, u8 *irx, u8 *end)
{
    int result = -1;
    int id = SifExecModuleBuffer(irx, (u32)(end - irx), 0, NULL, &result);
    if (id < 0 || result != 0) {
        printf("ccIop: %s did not start (%d, %d)\n", name, id, result);
        return id < 0 ? id : -1;
    }
    return id;
}

/* A module's server thread registers once its _start has returned: bind until it answers. */
static int bind(SifRpcClientData_t *client, u32 sid)
{
    for (int tries = 0; tries < 100 && !client->server; tries++)
        if (SifBindRpc(client, sid, 0) < 0)
            break;
    return client->server != NULL;
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
    /* The console's sound library, which ccsnd imports (libsd). */
    load("rom0:LIBSD");
    ccIop.module = exec("ccmon", ccmon_irx, ccmon_irx_end);
    if (ccIop.module >= 0) {
        ccIop.bound = bind(&monitor, CCMON_SID);
        printf("ccIop: IOP reset, SIO2MAN PADMAN ccmon loaded, monitor %s\n",
               ccIop.bound ? "bound" : "not found");
    }
    /* The sound driver: it transfers its samples and starts its tune in its _start. */
    ccIop.soundModule = exec("ccsnd", ccsnd_irx, ccsnd_irx_end);
    if (ccIop.soundModule >= 0) {
        ccIop.soundBound = bind(&sound, CCSND_SID);
        printf("ccIop: LIBSD ccsnd loaded, sound %s\n", ccIop.soundBound ? "bound" : "not found");
    }
}

void ccIop_PlayEffect(void)
{
    /* One call in flight at a time: a press while the last is still on its way is dropped. */
    if (!ccIop.soundBound || (soundInFlight && SifCheckStatRpc(&sound)))
        return;
    soundInFlight = SifCallRpc(&sound, CCSND_PLAY_EFFECT, SIF_RPC_M_NOWAIT, NULL, 0, NULL, 0,
                               NULL, NULL) == 0;
    if (soundInFlight)
        ccIop.effects++;
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
