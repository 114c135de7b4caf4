/* libmc.c: the memory card library over mcserv (see libmc.h). Server id, function numbers,
 * argument and end-parameter layouts are the console's (as ps2sdk's libmc and mcserv use
 * them); the code is our own. */
#include "libmc.h"
#include "iopreset.h"

#define UNCACHED(p) ((void *)(((u32)(p) & 0x0fffffff) | 0x20000000))

/* The commands, and their function numbers in the two command sets. */
enum {
    C_INIT,
    C_GET_INFO,
    C_OPEN,
    C_CLOSE,
    C_SEEK,
    C_READ,
    C_WRITE,
    C_FLUSH,
    C_CH_DIR,
    C_GET_DIR,
    C_SET_INFO,
    C_DELETE,
    C_FORMAT,
    C_UNFORMAT,
    C_COUNT
};
static const u8 fno[2][C_COUNT] = {
    /* MC_TYPE_MC: rom0:MCSERV */
    {0x70, 0x78, 0x71, 0x72, 0x75, 0x73, 0x74, 0x7a, 0x7b, 0x76, 0x7c, 0x79, 0x77, 0x80},
    /* MC_TYPE_XMC: XMCSERV */
    {0xfe, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x0a, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11},
};

/* The descriptor block (48 bytes). */
typedef struct {
    int fd;       /* +0 */
    int port;     /* +4 */
    int slot;     /* +8 */
    int size;     /* +12 */
    int offset;   /* +16 */
    int origin;   /* +20 */
    void *buffer; /* +24 */
    void *param;  /* +28 */
    u8 data[16];  /* +32 */
} DescParam;
_Static_assert(sizeof(DescParam) == 48, "mcserv descriptor block");

/* The name block (1044 bytes). */
typedef struct {
    int port;         /* +0 */
    int slot;         /* +4 */
    int flags;        /* +8 */
    int maxent;       /* +12 */
    void *table;      /* +16 the table / the current directory buffer (EE) */
    char name[1024];  /* +20 */
} NameParam;
_Static_assert(sizeof(NameParam) == 1044, "mcserv name block");

/* The end parameters mcserv DMAs to `param`: old (64 bytes), XMC (192 bytes). */
typedef struct {
    int size1;    /* +0 head bytes; GET_INFO: type */
    int size2;    /* +4 tail bytes; GET_INFO: free clusters */
    u8 *dest1;    /* +8 */
    u8 *dest2;    /* +12 */
    u8 src1[16];  /* +16 */
    u8 src2[16];  /* +32 */
    u8 unused[16];
} EndParam;
_Static_assert(sizeof(EndParam) == 64, "mcserv end parameters");
typedef struct {
    int size1;
    int size2;
    u8 *dest1;
    u8 *dest2;
    u8 src1[64];    /* +16 */
    u8 src2[64];    /* +80 */
    int formatted;  /* +144 */
    u8 unused[44];
} EndParam2;
_Static_assert(sizeof(EndParam2) == 192, "xmcserv end parameters");

static SifRpcClientData_t mc_client __attribute__((aligned(64)));
static int mc_iface;    /* MC_TYPE_MC or MC_TYPE_XMC */
static int mc_current;  /* the MC_FUNC_* in flight */
static int mc_reboots;
static union {
    DescParam d;
    NameParam n;
} mc_arg __attribute__((aligned(64)));
/* The reply: the result word (INIT on XMC: result, mcserv version, mcman version). */
static union {
    int result;
    struct {
        int result;
        u32 mcserv_version;
        u32 mcman_version;
    } stat;
    u8 raw[64];
} mc_rdata __attribute__((aligned(64)));
/* What mcserv DMAs into EE memory besides the reply. */
static union {
    EndParam end;
    EndParam2 end2;
    char curdir[1024];
    sceMcTblGetDir info;
} mc_extra __attribute__((aligned(64)));
/* Where the end functions put what they found. */
static struct {
    int *type;
    int *free;
    int *format;
    char *curdir;
} mc_out;

static void pause_a_little(void)
{
    for (volatile int i = 0; i < 1000; i++)
        ;
}

static int result_word(void) { return *(volatile int *)UNCACHED(&mc_rdata.result); }

/* Before a call: -1 without mcInit (or after an IOP reboot), the command in flight if any. */
static int pre(void)
{
    if (mc_reboots != SifIopRebootCount())
        mcReset();
    if (!mc_client.server)
        return -1;
    return mc_current;
}

/* Start command `c` (its MC_FUNC_* number `func`) with the descriptor (desc) or name block. */
static int post(int c, int func, int desc, void (*end)(void *))
{
    int r = SifCallRpc(&mc_client, fno[mc_iface][c], SIF_RPC_M_NOWAIT, &mc_arg,
                       desc ? (int)sizeof(DescParam) : (int)sizeof(NameParam), &mc_rdata, 4,
                       end, NULL);
    if (r < 0)
        return r;
    mc_current = func;
    return 0;
}

static void set_name(const char *name)
{
    int i = 0;
    if (name)
        for (; i < 1023 && name[i]; i++)
            mc_arg.n.name[i] = name[i];
    mc_arg.n.name[i] = 0;
}

static void name_block(int port, int slot, int flags, const char *name)
{
    memset(&mc_arg, 0, sizeof mc_arg);
    mc_arg.n.port = port;
    mc_arg.n.slot = slot;
    mc_arg.n.flags = flags;
    set_name(name);
}

static void desc_block(int fd, int port, int slot)
{
    memset(&mc_arg, 0, sizeof mc_arg);
    mc_arg.d.fd = fd;
    mc_arg.d.port = port;
    mc_arg.d.slot = slot;
}

/* A waited call during mcInit; the reply's `rsize` bytes land in mc_rdata. */
static int init_call(int f, int rsize)
{
    return SifCallRpc(&mc_client, f, 0, &mc_arg, sizeof(DescParam), &mc_rdata, rsize, NULL, NULL);
}

int mcReset(void)
{
    memset(&mc_client, 0, sizeof mc_client);
    mc_current = MC_FUNC_NONE;
    mc_reboots = SifIopRebootCount();
    return 0;
}

int mcInit(int type)
{
    (void)type;
    if (mc_reboots != SifIopRebootCount())
        mcReset();
    if (mc_client.server)
        return -1;
    SifInitRpc(0);
    int tries = 0;
    for (;;) {
        int r = SifBindRpc(&mc_client, MC_SID, 0);
        if (r < 0)
            return r;
        if (mc_client.server)
            break;
        if (++tries >= 10000)
            return -1;
        pause_a_little();
    }
    volatile int *stat = UNCACHED(&mc_rdata);

    /* FLUSH with fd -1 in both sets: the old set's answers -5 (sceMcResDeniedPermit). */
    desc_block(-1, 0, 0);
    init_call(fno[MC_TYPE_XMC][C_FLUSH], 4);
    init_call(fno[MC_TYPE_MC][C_FLUSH], 4);
    /* XMC's INIT: an old server leaves the -5. */
    if (init_call(fno[MC_TYPE_XMC][C_INIT], 12) < 0) {
        mcReset();
        return -100;
    }
    if (stat[0] != sceMcResDeniedPermit) {
        if ((u32)stat[1] < 0x205 || (u32)stat[2] < 0x206) {
            mcReset();
            return (u32)stat[1] < 0x205 ? -120 : -121;
        }
        mc_iface = MC_TYPE_XMC;
        mc_current = MC_FUNC_NONE;
        return stat[0];
    }
    /* The old INIT; offset -217 tells mcman that PS1 cards are welcome. */
    mc_arg.d.offset = -217;
    if (init_call(fno[MC_TYPE_MC][C_INIT], 4) < 0) {
        mcReset();
        return -100;
    }
    if (stat[0] == sceMcResDeniedPermit) {
        mcReset();
        return -122;
    }
    mc_iface = MC_TYPE_MC;
    mc_current = MC_FUNC_NONE;
    return stat[0];
}

/* ---- end functions (interrupt context, when the call's END arrives) ---- */

static void end_get_info(void *arg)
{
    (void)arg;
    if (mc_iface == MC_TYPE_MC) {
        volatile EndParam *e = UNCACHED(&mc_extra.end);
        int type = e->size1;
        if (mc_out.type)
            *mc_out.type = type;
        if (mc_out.free)
            *mc_out.free = e->size2;
        if (mc_out.format)
            *mc_out.format = (type == MC_TYPE_NONE || result_word() == sceMcResNoFormat) ? 0 : 1;
    } else {
        volatile EndParam2 *e = UNCACHED(&mc_extra.end2);
        if (mc_out.type)
            *mc_out.type = e->size1;
        if (mc_out.free)
            *mc_out.free = e->size2;
        if (mc_out.format)
            *mc_out.format = e->formatted;
    }
}

static void copy_part(u8 *dest, volatile const u8 *src, int n, int max)
{
    if (n > max)
        n = max;
    for (int i = 0; i < n; i++)
        dest[i] = src[i];
}

static void end_read(void *arg)
{
    (void)arg;
    if (mc_iface == MC_TYPE_MC) {
        volatile EndParam *e = UNCACHED(&mc_extra.end);
        copy_part(e->dest1, e->src1, e->size1, 16);
        copy_part(e->dest2, e->src2, e->size2, 16);
    } else {
        volatile EndParam2 *e = UNCACHED(&mc_extra.end2);
        copy_part(e->dest1, e->src1, e->size1, 64);
        copy_part(e->dest2, e->src2, e->size2, 64);
    }
}

static void end_chdir(void *arg)
{
    (void)arg;
    if (!mc_out.curdir)
        return;
    volatile const char *s = UNCACHED(mc_extra.curdir);
    int i = 0;
    for (; i < 1023 && s[i]; i++)
        mc_out.curdir[i] = s[i];
    mc_out.curdir[i] = 0;
}

/* ---- the calls ---- */

int mcGetInfo(int port, int slot, int *type, int *free, int *format)
{
    int r = pre();
    if (r)
        return r;
    desc_block(0, port, slot);
    if (mc_iface == MC_TYPE_MC) {
        /* (The type is asked for whenever "formatted" is: the old set derives it from it.) */
        mc_arg.d.size = (type || format) ? 1 : 0;
        mc_arg.d.offset = free ? 1 : 0;
        mc_arg.d.origin = format ? 1 : 0;
    } else {
        mc_arg.d.size = format ? 1 : 0;
        mc_arg.d.offset = free ? 1 : 0;
        mc_arg.d.origin = type ? 1 : 0;
    }
    mc_arg.d.param = &mc_extra;
    mc_out.type = type;
    mc_out.free = free;
    mc_out.format = format;
    SifWriteBackDCache(&mc_extra, sizeof(EndParam2));
    return post(C_GET_INFO, MC_FUNC_GET_INFO, 1, end_get_info);
}

int mcOpen(int port, int slot, const char *name, int mode)
{
    int r = pre();
    if (r)
        return r;
    name_block(port, slot, mode, name);
    return post(C_OPEN, MC_FUNC_OPEN, 0, NULL);
}

int mcMkDir(int port, int slot, const char *name)
{
    int r = pre();
    if (r)
        return r;
    name_block(port, slot, sceMcFileCreateDir, name);
    return post(C_OPEN, MC_FUNC_MK_DIR, 0, NULL);
}

int mcClose(int fd)
{
    int r = pre();
    if (r)
        return r;
    desc_block(fd, 0, 0);
    return post(C_CLOSE, MC_FUNC_CLOSE, 1, NULL);
}

int mcSeek(int fd, int offset, int origin)
{
    int r = pre();
    if (r)
        return r;
    desc_block(fd, 0, 0);
    mc_arg.d.offset = offset;
    mc_arg.d.origin = origin;
    return post(C_SEEK, MC_FUNC_SEEK, 1, NULL);
}

int mcFlush(int fd)
{
    int r = pre();
    if (r)
        return r;
    desc_block(fd, 0, 0);
    return post(C_FLUSH, MC_FUNC_FLUSH, 1, NULL);
}

int mcRead(int fd, void *buffer, int size)
{
    int r = pre();
    if (r)
        return r;
    desc_block(fd, 0, 0);
    mc_arg.d.size = size;
    mc_arg.d.buffer = buffer;
    mc_arg.d.param = &mc_extra;
    /* The middle arrives by DMA: no cache line of the buffer may be stale or dirty. */
    SifWriteBackDCache(buffer, size);
    SifWriteBackDCache(&mc_extra, sizeof(EndParam2));
    return post(C_READ, MC_FUNC_READ, 1, end_read);
}

int mcWrite(int fd, const void *buffer, int size)
{
    int r = pre();
    if (r)
        return r;
    desc_block(fd, 0, 0);
    const u8 *b = buffer;
    int head;
    if (size < 17) {
        head = size;
        mc_arg.d.size = 0;
        mc_arg.d.buffer = NULL;
    } else {
        head = (16 - ((u32)b & 15)) & 15;
        mc_arg.d.size = size - head;
        mc_arg.d.buffer = (void *)(b + head);
    }
    mc_arg.d.origin = head;
    for (int i = 0; i < head; i++)
        mc_arg.d.data[i] = b[i];
    /* The server fetches the rest from memory (RDATA). */
    if (mc_arg.d.size > 0)
        SifWriteBackDCache(mc_arg.d.buffer, mc_arg.d.size);
    return post(C_WRITE, MC_FUNC_WRITE, 1, NULL);
}

int mcChdir(int port, int slot, const char *newDir, char *currentDir)
{
    int r = pre();
    if (r)
        return r;
    name_block(port, slot, 0, newDir);
    mc_arg.n.table = mc_extra.curdir;
    mc_out.curdir = currentDir;
    SifWriteBackDCache(mc_extra.curdir, sizeof mc_extra.curdir);
    return post(C_CH_DIR, MC_FUNC_CH_DIR, 0, end_chdir);
}

int mcGetDir(int port, int slot, const char *name, unsigned mode, int maxent, sceMcTblGetDir *table)
{
    int r = pre();
    if (r)
        return r;
    name_block(port, slot, (int)mode, name);
    mc_arg.n.maxent = maxent;
    mc_arg.n.table = table;
    SifWriteBackDCache(table, maxent * (int)sizeof(sceMcTblGetDir));
    return post(C_GET_DIR, MC_FUNC_GET_DIR, 0, NULL);
}

int mcSetFileInfo(int port, int slot, const char *name, const sceMcTblGetDir *info, unsigned flags)
{
    int r = pre();
    if (r)
        return r;
    name_block(port, slot, (int)flags, name);
    memcpy(&mc_extra.info, info, sizeof mc_extra.info);
    mc_arg.n.table = &mc_extra.info;
    /* The server fetches the entry from memory (RDATA). */
    SifWriteBackDCache(&mc_extra.info, sizeof mc_extra.info);
    return post(C_SET_INFO, MC_FUNC_SET_INFO, 0, NULL);
}

int mcDelete(int port, int slot, const char *name)
{
    int r = pre();
    if (r)
        return r;
    name_block(port, slot, 0, name);
    return post(C_DELETE, MC_FUNC_DELETE, 0, NULL);
}

int mcFormat(int port, int slot)
{
    int r = pre();
    if (r)
        return r;
    desc_block(0, port, slot);
    return post(C_FORMAT, MC_FUNC_FORMAT, 1, NULL);
}

int mcUnformat(int port, int slot)
{
    int r = pre();
    if (r)
        return r;
    desc_block(0, port, slot);
    return post(C_UNFORMAT, MC_FUNC_UNFORMAT, 1, NULL);
}

int mcSync(int mode, int *cmd, int *result)
{
    if (mc_current == MC_FUNC_NONE)
        return -1;
    int busy = SifCheckStatRpc(&mc_client);
    if (mode == MC_WAIT) {
        while (SifCheckStatRpc(&mc_client))
            pause_a_little();
        busy = 0;
    }
    if (cmd)
        *cmd = mc_current;
    if (busy)
        return 0;
    mc_current = MC_FUNC_NONE;
    if (result)
        *result = result_word();
    return 1;
}
