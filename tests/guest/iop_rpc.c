/* iop_rpc: the EE side of tests/iop/rpcserver.irx, an IOP module with an RPC server (sid
 * 0x50494e59, "PINY"): function 1 answers the bytes it was sent in reverse order (as many as
 * were sent), function 2 answers one word, the 32-bit sum of the words it was sent.
 *
 * The program copies the module (embedded below) into IOP heap and starts it with
 * SifExecModuleBuffer, binds to the server (retrying while its thread has not registered it
 * yet), sends 48 KiB to function 1 (the arguments go by SIF DMA into the server's buffer, which
 * must hold 48 KiB; the reply comes back by SIF DMA into ours) and two small blocks to
 * function 2. Before that, the IOP heap server and RDATA: 256 bytes DMAed into a heap block
 * come back with SifGetOtherData.
 *
 * No IOP reboot: the program uses the IOP as the machine starts it (its BIOS modules, LOADFILE
 * and FILEIO's heap server among them). The expected output (iop_rpc.stdout) is derived by
 * hand; see the comments. */
/* libs: iop */
/* needs: tests/iop/rpcserver.irx */
#include "piney_sys.h"
#include "sifrpc.h"
#include "loadfile.h"
#include "iopheap.h"

#define SID 0x50494e59
#define BIG (48 * 1024)

/* The module, 64-byte aligned (SIF DMA reads whole quadwords). */
__asm__(".section .rodata\n"
        ".balign 64\n"
        "rpcserver_irx:\n"
        ".incbin \"tests/iop/rpcserver.irx\"\n"
        "rpcserver_irx_end:\n"
        ".balign 16\n"
        ".previous\n");
extern u8 rpcserver_irx[], rpcserver_irx_end[];

static SifRpcClientData_t client __attribute__((aligned(64)));
static u8 sbuf[BIG] __attribute__((aligned(64)));
static u8 rbuf[BIG] __attribute__((aligned(64)));
static u32 words[16] __attribute__((aligned(64)));
static u32 answer[4] __attribute__((aligned(64)));
static u8 hbuf[256] __attribute__((aligned(64)));
static u8 back[256] __attribute__((aligned(64)));
static SifRpcReceiveData_t rd __attribute__((aligned(64)));

static void pause_a_little(void)
{
    for (volatile int i = 0; i < 1000; i++)
        ;
}

/* Function 2 on `n` words: the sum the server answers. */
static u32 sum(int n)
{
    answer[0] = 0xdeadbeef;
    int r = SifCallRpc(&client, 2, 0, words, 4 * n, answer, 4, NULL, NULL);
    if (r < 0)
        printf("fno 2: SifCallRpc %d\n", r);
    return answer[0];
}

int main(void)
{
    puts("iop_rpc");
    SifInitRpc(0);

    /* The heap server (FILEIO's 0x80000003): 256 bytes, filled by SIF DMA, read back by RDATA,
       freed (FreeSysMemory: 0). */
    printf("SifInitIopHeap: %d\n", SifInitIopHeap());
    void *iop = SifAllocIopHeap(256);
    printf("SifAllocIopHeap 256: %s\n", iop ? "ok" : "none");
    if (iop) {
        for (int i = 0; i < 256; i++)
            hbuf[i] = (u8)(255 - i);
        SifDmaTransfer_t t __attribute__((aligned(16)));
        t.src = hbuf;
        t.dest = iop;
        t.size = 256;
        t.attr = 0;
        SifWriteBackDCache(hbuf, 256);
        u32 id;
        while (!(id = SifSetDma(&t, 1)))
            ;
        while (SifDmaStat(id) >= 0)
            ;
        int r = SifGetOtherData(&rd, iop, back, 256, 0);
        printf("SifGetOtherData 256: %d, %s\n", r,
               memcmp(back, hbuf, 256) ? "different" : "the same bytes");
        printf("SifFreeIopHeap: %d\n", SifFreeIopHeap(iop));
    }

    /* The module: a module id (>= 0); its _start answers MODULE_RESIDENT_END (0). */
    int mod_res = -1;
    int id = SifExecModuleBuffer(rpcserver_irx, (u32)(rpcserver_irx_end - rpcserver_irx), 0,
                                 NULL, &mod_res);
    if (id >= 0)
        printf("SifExecModuleBuffer rpcserver.irx: ok, start result %d\n", mod_res);
    else
        printf("SifExecModuleBuffer rpcserver.irx: %d\n", id);

    int bound = 0;
    for (int tries = 0; tries < 10000 && !bound; tries++) {
        if (SifBindRpc(&client, SID, 0) < 0)
            break;
        if (client.server)
            bound = 1;
        else
            pause_a_little();
    }
    printf("bind 0x%08x: %s\n", SID, bound ? "ok" : "no server");
    if (!bound)
        return 1;

    /* Function 1 on 48 KiB of i ^ (i >> 8): rbuf[k] = sbuf[BIG - 1 - k], so rbuf[0..3] are
       the bytes of 0xbfff, 0xbffe, 0xbffd, 0xbffc: 0xff ^ 0xbf = 0x40, then 0x41, 0x42, 0x43. */
    for (int i = 0; i < BIG; i++)
        sbuf[i] = (u8)(i ^ (i >> 8));
    memset(rbuf, 0, sizeof rbuf);
    int r = SifCallRpc(&client, 1, 0, sbuf, BIG, rbuf, BIG, NULL, NULL);
    int bad = 0;
    for (int k = 0; k < BIG; k++)
        bad += rbuf[k] != sbuf[BIG - 1 - k];
    printf("fno 1, %d bytes: %d, %d bytes not reversed, first %02x %02x %02x %02x\n", BIG, r,
           bad, rbuf[0], rbuf[1], rbuf[2], rbuf[3]);

    /* Function 2 on 0x01010101 * (1..16): 136 * 0x01010101 = 0x88888888. */
    for (int i = 0; i < 16; i++)
        words[i] = 0x01010101u * (u32)(i + 1);
    printf("fno 2, 16 words: 0x%08x\n", sum(16));
    /* On 0x80000000 + (0..3): 4 * 0x80000000 + 6 wraps to 6. */
    for (int i = 0; i < 4; i++)
        words[i] = 0x80000000u + (u32)i;
    printf("fno 2, 4 words: 0x%08x\n", sum(4));
    puts("done");
    return 0;
}
