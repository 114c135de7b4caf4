/* rpcserver.c: a SIF RPC server on the IOP, for an EE program to call (tests/guest/iop_rpc.c).
 *
 * The protocol:
 *   server id (sid)  0x50494e59 ("PINY" read as a big-endian word)
 *   the EE binds it with sceSifBindRpc(&client, 0x50494e59, 0) and calls
 *   sceSifCallRpc(&client, fno, 0, send, ssize, receive, rsize, NULL, NULL);
 *   the IOP receives the ssize bytes of `send` into its 64 KiB buffer (so ssize <= 65536) and
 *   sends back rsize bytes from the reply below into `receive`:
 *     fno 1  reverse: the reply is the ssize bytes received, in reverse order (byte i of the
 *            reply is byte ssize - 1 - i of the request); call with rsize = ssize.
 *     fno 2  sum: the request is ssize / 4 little-endian 32-bit words; the reply is one 32-bit
 *            word, their sum modulo 2^32 (followed by 12 zero bytes); call with rsize = 4 (up
 *            to 16).
 *     other  no reply data (the server function returns NULL).
 *   Buffers on the EE side follow the usual SIF rules (16-byte aligned receive buffers, whole
 *   cache lines), which are the EE program's business.
 *
 * The module: _start creates the server thread (priority 40, below the module loader's 8, so
 * it only runs once _start has returned), prints, and stays resident (RESIDENT_END). The thread
 * does sceSifInitRpc(0) (which, on the console, waits until the SIF is up), sceSifSetRpcQueue,
 * sceSifRegisterRpc and then serves requests in sceSifRpcLoop for ever. It prints nothing, so
 * the module's own output is the same whether an EE program talks to it or not. */
#include "irx.h"

IRX_ID("rpcserver", 1, 1);

#define PINY_SID 0x50494e59

static SifRpcDataQueue_t queue;
static SifRpcServerData_t server;
static u8 buffer[65536] __attribute__((aligned(16)));
static u32 sum_reply[4] __attribute__((aligned(16)));

static void *serve(int fno, void *data, int size)
{
    u8 *bytes = data;
    u32 *words = data;
    u32 sum;
    int i;

    switch (fno) {
    case 1:
        for (i = 0; i < size / 2; i++) {
            u8 t = bytes[i];
            bytes[i] = bytes[size - 1 - i];
            bytes[size - 1 - i] = t;
        }
        return data;
    case 2:
        sum = 0;
        for (i = 0; i < size / 4; i++)
            sum += words[i];
        sum_reply[0] = sum;
        sum_reply[1] = sum_reply[2] = sum_reply[3] = 0;
        return sum_reply;
    default:
        return NULL;
    }
}

static void server_thread(void *arg)
{
    (void)arg;
    sceSifInitRpc(0);
    sceSifSetRpcQueue(&queue, GetThreadId());
    sceSifRegisterRpc(&server, PINY_SID, serve, buffer, NULL, NULL, &queue);
    sceSifRpcLoop(&queue);
}

int _start(int argc, char **argv)
{
    iop_thread_t t;
    int thid, r;
    (void)argc;
    (void)argv;

    t.attr = TH_C;
    t.option = 0;
    t.thread = server_thread;
    t.stacksize = 0x1000;
    t.priority = 40;
    thid = CreateThread(&t);
    r = StartThread(thid, NULL);
    printf("rpcserver: server thread %s, StartThread -> %d, sid 0x%x\n",
           thid > 0 ? "created" : "FAIL", r, PINY_SID);
    printf("-- done\n");
    return RESIDENT_END;
}
