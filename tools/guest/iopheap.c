/* iopheap.c: the IOP heap RPC client (see iopheap.h). Server id, function numbers and
 * argument layouts are the console's (as ps2sdk's iopheap and FILEIO's heap server use them);
 * the code is our own. */
#include "iopheap.h"
#include "iopreset.h"

static SifRpcClientData_t ih_client __attribute__((aligned(64)));
/* The argument block: one word, or the load's address and path (256 bytes). */
static union {
    int w[64];
    struct {
        u32 addr;
        char path[LIH_PATH_MAX];
    } load;
} ih_arg __attribute__((aligned(64)));
_Static_assert(sizeof(ih_arg) == 256, "iopheap argument block");
static int ih_reboots;

static void pause_a_little(void)
{
    for (volatile int i = 0; i < 1000; i++)
        ;
}

int SifInitIopHeap(void)
{
    if (ih_reboots != SifIopRebootCount()) {
        SifExitIopHeap();
        ih_reboots = SifIopRebootCount();
    }
    if (ih_client.server)
        return 0;
    SifInitRpc(0);
    for (int tries = 0; tries < 10000; tries++) {
        if (SifBindRpc(&ih_client, IOPHEAP_SID, 0) < 0)
            return -E_SIF_RPC_BIND;
        if (ih_client.server)
            return 0;
        pause_a_little();
    }
    return -E_SIF_RPC_BIND;
}

void SifExitIopHeap(void) { memset(&ih_client, 0, sizeof ih_client); }

/* Call `fno` with a one-word argument; its one-word answer in *out. 0, or an error. */
static int word_call(int fno, int arg, int *out)
{
    if (SifInitIopHeap() < 0)
        return -E_LIB_API_INIT;
    ih_arg.w[0] = arg;
    if (SifCallRpc(&ih_client, fno, 0, &ih_arg, 4, &ih_arg, 4, NULL, NULL) < 0)
        return -E_SIF_RPC_CALL;
    *out = ih_arg.w[0];
    return 0;
}

void *SifAllocIopHeap(int size)
{
    int addr;
    if (word_call(1, size, &addr) < 0)
        return NULL;
    return (void *)addr;
}

int SifFreeIopHeap(void *addr)
{
    int r;
    int e = word_call(2, (int)addr, &r);
    return e < 0 ? e : r;
}

int SifLoadIopHeap(const char *path, void *addr)
{
    if (SifInitIopHeap() < 0)
        return -E_LIB_API_INIT;
    memset(&ih_arg, 0, sizeof ih_arg);
    ih_arg.load.addr = (u32)addr;
    int i = 0;
    for (; path && i < LIH_PATH_MAX - 1 && path[i]; i++)
        ih_arg.load.path[i] = path[i];
    ih_arg.load.path[i] = 0;
    if (SifCallRpc(&ih_client, 3, 0, &ih_arg, sizeof ih_arg, &ih_arg, 4, NULL, NULL) < 0)
        return -E_SIF_RPC_CALL;
    return ih_arg.w[0];
}
