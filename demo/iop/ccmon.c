/* ccmon.c: the demo title's own IOP module, an IOP monitor the EE asks once a second.
 *
 * The demo (demo/src/cciop.c) carries this module inside its ELF and starts it with
 * SifExecModuleBuffer after the IOP reset and the rom0 modules, so that every run of
 * `piney demo` goes through the whole IOP path: the IRX loader and its relocations, imports
 * of five system libraries, threads, the vblank library, a semaphore, and a SIF RPC server.
 *
 * The protocol:
 *   server id (sid) 0x63634d4e ("ccMN" read as a big-endian word), one function:
 *   fno 0  STATUS  no argument; the reply is four little-endian words (16 bytes):
 *            +0  the vertical blanks the monitor thread has seen since the module started
 *            +4  the IOP's free memory in bytes (QueryTotalFreeMemSize)
 *            +8  the largest free block in bytes (QueryMaxFreeMemSize)
 *            +12 the STATUS calls answered, this one included
 *   any other fno: no reply data.
 *
 * The module: _start creates a semaphore and two threads and stays resident (RESIDENT_END).
 * The monitor thread (priority 30) waits for each vertical blank start (WaitVblankStart) and
 * counts it under the semaphore; the server thread (priority 40) registers the server and
 * serves in sceSifRpcLoop, reading the count under the same semaphore. */
#include "irx.h"

IRX_ID("ccmon", 1, 1);

#define CCMON_SID 0x63634d4e

static SifRpcDataQueue_t queue;
static SifRpcServerData_t server;
static u32 buffer[16] __attribute__((aligned(16)));
static u32 status[4] __attribute__((aligned(16)));
static int lock;
static u32 vblanks;
static u32 calls;

static void *serve(int fno, void *data, int size)
{
    (void)data;
    (void)size;
    if (fno != 0)
        return NULL;
    WaitSema(lock);
    status[0] = vblanks;
    calls++;
    status[3] = calls;
    SignalSema(lock);
    status[1] = QueryTotalFreeMemSize();
    status[2] = QueryMaxFreeMemSize();
    return status;
}

static void monitor_thread(void *arg)
{
    (void)arg;
    for (;;) {
        WaitVblankStart();
        WaitSema(lock);
        vblanks++;
        SignalSema(lock);
    }
}

static void server_thread(void *arg)
{
    (void)arg;
    sceSifInitRpc(0);
    sceSifSetRpcQueue(&queue, GetThreadId());
    sceSifRegisterRpc(&server, CCMON_SID, serve, buffer, NULL, NULL, &queue);
    sceSifRpcLoop(&queue);
}

static int start(void (*entry)(void *), int priority)
{
    iop_thread_t t;
    t.attr = TH_C;
    t.option = 0;
    t.thread = entry;
    t.stacksize = 0x800;
    t.priority = priority;
    int thid = CreateThread(&t);
    if (thid <= 0)
        return thid;
    return StartThread(thid, NULL);
}

int _start(int argc, char **argv)
{
    iop_sema_t s;
    (void)argc;
    (void)argv;

    s.attr = 0;
    s.option = 0;
    s.initial = 1;
    s.max = 1;
    lock = CreateSema(&s);
    if (lock <= 0 || start(monitor_thread, 30) < 0 || start(server_thread, 40) < 0) {
        printf("ccmon: cannot start (semaphore %d)\n", lock);
        return NO_RESIDENT_END;
    }
    printf("ccmon: IOP monitor up, sid 0x%x\n", CCMON_SID);
    return RESIDENT_END;
}
