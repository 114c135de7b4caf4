/* libpad.c: Sony's libpad API (libpad.h) over the IOP's padman RPC, for piney's guest programs.
 *
 * The protocol is the one of Sony's libpad with the BIOS's rom0:PADMAN (ps2sdk builds it as
 * libpad without _XPAD): two RPC servers, 0x8000010f (the pad functions) and 0x8000011f (the
 * "extended" service, bound but not called); every call is RPC function 1 with a 128-byte
 * block whose word 0 is the command (0x80000100 + n, INIT 0x100), answered in place: most
 * results in word 5, the open/close/end/port-count results in word 3. (The newer XPADMAN /
 * padman.irx protocol binds 0x80000100/0x80000101 with small command numbers and another pad
 * data layout; it is not used here.)
 *
 * The pad data area (256 bytes, scePadPortOpen's `addr`) holds two 128-byte frames the IOP writes
 * alternately, once a vertical blank:
 *   +0x00 u32 frame counter (the IOP's, from 1; the newer frame has the larger count)
 *   +0x04 u8  state (scePadState*)     +0x05 u8 request state (scePadReqState*)
 *   +0x06 u8  ok (1 when the data is valid)
 *   +0x08 u8  data[32] (what scePadRead returns)
 *   +0x28 u32 the number of valid data bytes
 * The EE reads it through the uncached mirror of RDRAM: no cache line can hold a stale frame. */
#include "libpad.h"
#include "sifrpc.h"

#define PAD_SID 0x8000010f
#define PAD_SID_EXT 0x8000011f

#define PAD_CMD_OPEN 0x80000100
#define PAD_CMD_INFO_ACT 0x80000102
#define PAD_CMD_INFO_MODE 0x80000104
#define PAD_CMD_SET_MMODE 0x80000105
#define PAD_CMD_SET_ACTDIR 0x80000106
#define PAD_CMD_SET_ACTALIGN 0x80000107
#define PAD_CMD_CLOSE 0x8000010d
#define PAD_CMD_END 0x8000010e

#define UNCACHED(p) ((void *)(((u32)(p) & 0x0fffffff) | 0x20000000))

/* One frame of the pad data area. */
typedef struct {
    u32 frame;
    u8 state;
    u8 req_state;
    u8 ok;
    u8 pad0;
    u8 data[32];
    u32 length;
    u8 reserved[0x80 - 0x2c];
} PadFrame;
_Static_assert(sizeof(PadFrame) == 0x80, "pad frame size");

static SifRpcClientData_t client[2] __attribute__((aligned(64)));
/* The argument block, reused for every call (calls are made one at a time). */
static union {
    u32 w[32];
    u8 b[128];
} rpc_buf __attribute__((aligned(64)));
static int initialised;
/* The areas of the open ports (uncached views), by [port][slot]. */
static volatile PadFrame *areas[2][4];

static int call(void)
{
    return SifCallRpc(&client[0], 1, 0, &rpc_buf, 128, &rpc_buf, 128, NULL, NULL);
}

static int valid(int port, int slot) { return port >= 0 && port < 2 && slot >= 0 && slot < 4; }

/* The newer of the two frames (the larger counter). */
static volatile PadFrame *newest(int port, int slot)
{
    if (!valid(port, slot) || !areas[port][slot])
        return NULL;
    volatile PadFrame *f = areas[port][slot];
    return f[0].frame < f[1].frame ? &f[1] : &f[0];
}

static int bind(SifRpcClientData_t *c, u32 sid)
{
    /* The IOP answers a bind to a server not yet registered with a NULL server: try again. */
    for (int tries = 0; tries < 100; tries++) {
        if (SifBindRpc(c, sid, 0) < 0)
            return 0;
        if (c->server)
            return 1;
    }
    return 0;
}

int scePadInit(int mode)
{
    (void)mode;
    if (initialised)
        return 1;
    SifInitRpc(0);
    if (!bind(&client[0], PAD_SID) || !bind(&client[1], PAD_SID_EXT))
        return 0;
    for (int p = 0; p < 2; p++)
        for (int s = 0; s < 4; s++)
            areas[p][s] = NULL;
    initialised = 1;
    return 1;
}

int scePadEnd(void)
{
    if (!initialised)
        return 0;
    rpc_buf.w[0] = PAD_CMD_END;
    if (call() < 0)
        return 0;
    int r = (int)rpc_buf.w[3];
    if (r == 1) {
        initialised = 0;
        for (int p = 0; p < 2; p++)
            for (int s = 0; s < 4; s++)
                areas[p][s] = NULL;
    }
    return r;
}

int scePadPortOpen(int port, int slot, void *addr)
{
    if (!initialised || !valid(port, slot) || ((u32)addr & 0x3f))
        return 0;
    /* Both frames: no data yet, a command running, a request busy; counter 0 so that the
       IOP's first frame (counter 1) is the newer. */
    volatile PadFrame *f = UNCACHED(addr);
    for (int i = 0; i < 2; i++) {
        for (int k = 0; k < 32; k++)
            f[i].data[k] = 0xff;
        f[i].frame = 0;
        f[i].length = 0;
        f[i].state = scePadStateExecCmd;
        f[i].req_state = scePadReqStateBusy;
        f[i].ok = 0;
    }
    rpc_buf.w[0] = PAD_CMD_OPEN;
    rpc_buf.w[1] = (u32)port;
    rpc_buf.w[2] = (u32)slot;
    rpc_buf.w[3] = 0;
    rpc_buf.w[4] = (u32)addr;
    if (call() < 0)
        return 0;
    int r = (int)rpc_buf.w[3];
    if (r == 1)
        areas[port][slot] = f;
    return r;
}

int scePadPortClose(int port, int slot)
{
    if (!initialised || !valid(port, slot))
        return 0;
    rpc_buf.w[0] = PAD_CMD_CLOSE;
    rpc_buf.w[1] = (u32)port;
    rpc_buf.w[2] = (u32)slot;
    rpc_buf.w[3] = 0;
    rpc_buf.w[4] = 1; /* close mode: wait for the pad's motors to stop */
    if (call() < 0)
        return 0;
    areas[port][slot] = NULL;
    return (int)rpc_buf.w[3];
}

int scePadRead(int port, int slot, unsigned char *rdata)
{
    volatile PadFrame *f = newest(port, slot);
    if (!f)
        return 0;
    for (int i = 0; i < 32; i++)
        rdata[i] = f->data[i];
    return f->ok ? (int)f->length : 0;
}

int scePadGetState(int port, int slot)
{
    volatile PadFrame *f = newest(port, slot);
    if (!f)
        return scePadStateDisconn;
    int st = f->state;
    /* A stable pad with a request in progress reports that it executes a command. */
    if (st == scePadStateStable && f->req_state == scePadReqStateBusy)
        return scePadStateExecCmd;
    return st;
}

int scePadGetReqState(int port, int slot)
{
    volatile PadFrame *f = newest(port, slot);
    return f ? f->req_state : scePadReqStateFaild;
}

int scePadGetFrameCount(int port, int slot)
{
    volatile PadFrame *f = newest(port, slot);
    return f ? (int)f->frame : 0;
}

/* The request is accepted: until the IOP's next frame says otherwise, it is busy. */
static void mark_busy(int port, int slot)
{
    volatile PadFrame *f = newest(port, slot);
    if (f)
        f->req_state = scePadReqStateBusy;
}

static int four_args(u32 cmd, int port, int slot, int a, int b)
{
    if (!initialised || !valid(port, slot))
        return 0;
    rpc_buf.w[0] = cmd;
    rpc_buf.w[1] = (u32)port;
    rpc_buf.w[2] = (u32)slot;
    rpc_buf.w[3] = (u32)a;
    rpc_buf.w[4] = (u32)b;
    if (call() < 0)
        return 0;
    return (int)rpc_buf.w[5];
}

int scePadInfoMode(int port, int slot, int term, int offs)
{
    return four_args(PAD_CMD_INFO_MODE, port, slot, term, offs);
}

int scePadSetMainMode(int port, int slot, int offs, int lock)
{
    int r = four_args(PAD_CMD_SET_MMODE, port, slot, offs, lock);
    if (r == 1)
        mark_busy(port, slot);
    return r;
}

int scePadInfoAct(int port, int slot, int actno, int term)
{
    return four_args(PAD_CMD_INFO_ACT, port, slot, actno, term);
}

static int six_bytes(u32 cmd, int port, int slot, const unsigned char *data)
{
    if (!initialised || !valid(port, slot))
        return 0;
    rpc_buf.w[0] = cmd;
    rpc_buf.w[1] = (u32)port;
    rpc_buf.w[2] = (u32)slot;
    for (int i = 0; i < 6; i++)
        rpc_buf.b[12 + i] = data[i];
    if (call() < 0)
        return 0;
    return (int)rpc_buf.w[5];
}

int scePadSetActAlign(int port, int slot, const unsigned char *data)
{
    int r = six_bytes(PAD_CMD_SET_ACTALIGN, port, slot, data);
    if (r == 1)
        mark_busy(port, slot);
    return r;
}

int scePadSetActDirect(int port, int slot, const unsigned char *data)
{
    return six_bytes(PAD_CMD_SET_ACTDIR, port, slot, data);
}
