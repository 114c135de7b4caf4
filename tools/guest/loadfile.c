/* loadfile.c: the LOADFILE RPC client (see loadfile.h). Server id, function numbers and
 * argument layouts are the console's (as ps2sdk's loadfile and the IOP's LOADFILE use them);
 * the code is our own. */
#include "loadfile.h"
#include "iopheap.h"
#include "iopreset.h"

/* The argument block of the load, stop and search calls (512 bytes). */
typedef struct {
    int w0;               /* +0 arg_len / IOP address / id; answer: result */
    int w1;               /* +4 (0) / arg_len; answer: the start/stop result */
    char path[LF_PATH_MAX];  /* +8 */
    char args[LF_ARG_MAX];   /* +260 */
} LfArg;
_Static_assert(sizeof(LfArg) == 512, "loadfile argument block");

static SifRpcClientData_t lf_client __attribute__((aligned(64)));
static LfArg lf_arg __attribute__((aligned(64)));
static int lf_reboots;

/* A short pause between bind attempts (the server's thread may not run yet). */
static void pause_a_little(void)
{
    for (volatile int i = 0; i < 1000; i++)
        ;
}

int SifLoadFileInit(void)
{
    if (lf_reboots != SifIopRebootCount()) {
        SifLoadFileExit();
        lf_reboots = SifIopRebootCount();
    }
    if (lf_client.server)
        return 0;
    SifInitRpc(0);
    for (int tries = 0; tries < 10000; tries++) {
        if (SifBindRpc(&lf_client, LOADFILE_SID, 0) < 0)
            return -SCE_EBINDMISS;
        if (lf_client.server)
            return 0;
        pause_a_little();
    }
    return -SCE_EBINDMISS;
}

void SifLoadFileExit(void) { memset(&lf_client, 0, sizeof lf_client); }

static void copy_str(char *dst, const char *src, int max)
{
    int i = 0;
    if (src)
        for (; i < max - 1 && src[i]; i++)
            dst[i] = src[i];
    dst[i] = 0;
}

/* Copy the argument string: its length (at most LF_ARG_MAX), 0 without one. */
static int copy_args(const char *args, int arg_len)
{
    if (!args || arg_len <= 0)
        return 0;
    if (arg_len > LF_ARG_MAX)
        arg_len = LF_ARG_MAX;
    memcpy(lf_arg.args, args, (size_t)arg_len);
    return arg_len;
}

/* Call `fno` with the block; the answer's first `rsize` bytes come back onto it. */
static int call(int fno, int rsize)
{
    if (SifCallRpc(&lf_client, fno, 0, &lf_arg, sizeof lf_arg, &lf_arg, rsize, NULL, NULL) < 0)
        return -SCE_ECALLMISS;
    return 0;
}

int SifLoadStartModule(const char *path, int arg_len, const char *args, int *mod_res)
{
    if (SifLoadFileInit() < 0)
        return -SCE_EBINDMISS;
    memset(&lf_arg, 0, sizeof lf_arg);
    copy_str(lf_arg.path, path, LF_PATH_MAX);
    lf_arg.w0 = copy_args(args, arg_len);
    if (call(LF_F_MOD_LOAD, 8) < 0)
        return -SCE_ECALLMISS;
    if (mod_res)
        *mod_res = lf_arg.w1;
    return lf_arg.w0;
}

int SifLoadModule(const char *path, int arg_len, const char *args)
{
    return SifLoadStartModule(path, arg_len, args, NULL);
}

int SifLoadStartModuleBuffer(void *iop_addr, int arg_len, const char *args, int *mod_res)
{
    if (SifLoadFileInit() < 0)
        return -SCE_EBINDMISS;
    memset(&lf_arg, 0, sizeof lf_arg);
    lf_arg.w0 = (int)iop_addr;
    lf_arg.w1 = copy_args(args, arg_len);
    if (call(LF_F_MOD_BUF_LOAD, 8) < 0)
        return -SCE_ECALLMISS;
    if (mod_res)
        *mod_res = lf_arg.w1;
    return lf_arg.w0;
}

int SifLoadModuleBuffer(void *iop_addr, int arg_len, const char *args)
{
    return SifLoadStartModuleBuffer(iop_addr, arg_len, args, NULL);
}

int SifExecModuleBuffer(void *ptr, u32 size, u32 arg_len, const char *args, int *mod_res)
{
    /* Whole quadwords. */
    size = (size + 15) & ~15u;
    void *iop = SifAllocIopHeap((int)size);
    if (!iop)
        return -E_IOP_NO_MEMORY;
    SifDmaTransfer_t t __attribute__((aligned(16)));
    t.src = ptr;
    t.dest = iop;
    t.size = (int)size;
    t.attr = 0;
    SifWriteBackDCache(ptr, (int)size);
    u32 id;
    while (!(id = SifSetDma(&t, 1)))
        ;
    while (SifDmaStat(id) >= 0)
        ;
    int r = SifLoadStartModuleBuffer(iop, (int)arg_len, args, mod_res);
    SifFreeIopHeap(iop);
    return r;
}

int SifStopModule(int id, int arg_len, const char *args, int *mod_res)
{
    if (SifLoadFileInit() < 0)
        return -SCE_EBINDMISS;
    memset(&lf_arg, 0, sizeof lf_arg);
    lf_arg.w0 = id;
    lf_arg.w1 = copy_args(args, arg_len);
    if (call(LF_F_MOD_STOP, 8) < 0)
        return -SCE_ECALLMISS;
    if (mod_res)
        *mod_res = lf_arg.w1;
    return lf_arg.w0;
}

/* The calls with a 16-byte block and a 4-byte answer. */
static int small_call(int fno, int w0)
{
    if (SifLoadFileInit() < 0)
        return -SCE_EBINDMISS;
    memset(&lf_arg, 0, 16);
    lf_arg.w0 = w0;
    if (SifCallRpc(&lf_client, fno, 0, &lf_arg, 16, &lf_arg, 4, NULL, NULL) < 0)
        return -SCE_ECALLMISS;
    return lf_arg.w0;
}

int SifUnloadModule(int id) { return small_call(LF_F_MOD_UNLOAD, id); }

int SifSearchModuleByAddress(const void *ptr) { return small_call(LF_F_SEARCH_MOD_BY_ADDRESS, (int)ptr); }

int SifSearchModuleByName(const char *name)
{
    if (SifLoadFileInit() < 0)
        return -SCE_EBINDMISS;
    memset(&lf_arg, 0, sizeof lf_arg);
    copy_str(lf_arg.path, name, LF_PATH_MAX);
    if (call(LF_F_SEARCH_MOD_BY_NAME, 4) < 0)
        return -SCE_ECALLMISS;
    return lf_arg.w0;
}
