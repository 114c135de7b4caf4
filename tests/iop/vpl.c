/* vpl.c: thvpool's variable-length pools, whose sizes follow the console's heaplib:
 *   - a pool of S bytes has S - 40 usable (ReferVplStatus' size and, when empty, its free size):
 *     0x1000 -> 4056;
 *   - a block of n bytes takes 8-byte units plus one 8-byte header: ((n + 7) / 8 + 1) * 8 for
 *     n >= 8, 16 for n = 1..7: 128 -> 136, 129 and 136 -> 144, 137 -> 152, 1 -> 16, 100 -> 112;
 *   - pAllocateVpl refuses 0 bytes and more than the pool's size with KE_ILLEGAL_MEMSIZE, and
 *     answers KE_NO_MEMORY when the request fits the pool but not its free space; FreeVpl of a
 *     pointer that is not an allocated block answers KE_ERROR;
 *   - blocks are carved from the END of the free space (K&R-style), so the second of two
 *     allocations in a fresh pool lies exactly its own size below the first: p1 - p2 is p2's
 *     size (144), p2 - p3 = 144, p3 - p4 = 152;
 *   - a waiter (AllocateVpl) is served by the FreeVpl that makes room.
 * The free sizes, step by step (4056 to start):
 *   128 -> 3920, 129 -> 3776, 136 -> 3632, 137 -> 3480, 1 -> 3464; free p2 -> 3608;
 *   free p1, p3, p4, p5 -> 4056; 4048 (506 + 1 units = 4056 bytes: all of it) -> 0.
 * main is priority 8, the waiter W priority 6 (it runs as soon as main frees room for it). */
#include "irx.h"

IRX_ID("vpl", 1, 1);

static int vpl;

static int free_size(void)
{
    iop_vpl_info_t info;
    int r = ReferVplStatus(vpl, &info);
    return r < 0 ? r : info.freeSize;
}

static void waiter(void *arg)
{
    void *p;
    int r;
    (void)arg;
    p = AllocateVpl(vpl, 100); /* waits: the pool is full */
    printf("W: AllocateVpl(100) -> %s, free %d\n", (int)p > 0 ? "a block" : "FAIL", free_size());
    r = FreeVpl(vpl, p);
    printf("W: FreeVpl -> %d, free %d\n", r, free_size());
}

int _start(int argc, char **argv)
{
    iop_vpl_param p;
    iop_vpl_info_t info;
    iop_thread_t t;
    u8 *p1, *p2, *p3, *p4, *p5, *all;
    int r, a, b, c, thid;
    (void)argc;
    (void)argv;

    p.attr = VA_THFIFO;
    p.option = 0x99;
    p.size = 0x1000;
    vpl = CreateVpl(&p);
    r = ReferVplStatus(vpl, &info);
    printf("CreateVpl(0x1000): refer %d attr %u option 0x%x size %d free %d waiters %d\n", r,
           info.attr, info.option, info.size, info.freeSize, info.numWaitThreads);

    p1 = pAllocateVpl(vpl, 128);
    printf("pAllocateVpl(128): free %d\n", free_size());
    p2 = pAllocateVpl(vpl, 129);
    printf("pAllocateVpl(129): free %d\n", free_size());
    p3 = pAllocateVpl(vpl, 136);
    printf("pAllocateVpl(136): free %d\n", free_size());
    p4 = pAllocateVpl(vpl, 137);
    printf("pAllocateVpl(137): free %d\n", free_size());
    p5 = pAllocateVpl(vpl, 1);
    printf("pAllocateVpl(1): free %d\n", free_size());
    printf("addresses: p1 - p2 = %d, p2 - p3 = %d, p3 - p4 = %d, p4 - p5 = %d\n", p1 - p2,
           p2 - p3, p3 - p4, p4 - p5);

    a = (int)pAllocateVpl(vpl, 0);
    b = (int)pAllocateVpl(vpl, 4057);
    c = (int)pAllocateVpl(vpl, 4000);
    printf("pAllocateVpl: 0 -> %d, 4057 -> %d, 4000 -> %d\n", a, b, c);

    a = FreeVpl(vpl, p2);
    printf("FreeVpl(p2) -> %d, free %d\n", a, free_size());
    a = FreeVpl(vpl, p2);
    b = FreeVpl(vpl, &info);
    printf("FreeVpl(p2) again -> %d, of a stack address -> %d\n", a, b);
    a = FreeVpl(vpl, p1) | FreeVpl(vpl, p3) | FreeVpl(vpl, p4) | FreeVpl(vpl, p5);
    printf("FreeVpl of the rest -> %d, free %d\n", a, free_size());

    all = pAllocateVpl(vpl, 4048);
    a = free_size();
    b = (int)pAllocateVpl(vpl, 1);
    printf("pAllocateVpl(4048) -> %s, free %d, then 1 -> %d\n", (int)all > 0 ? "a block" : "FAIL",
           a, b);

    /* W waits for 100 bytes; main's FreeVpl makes room: W gets them and runs at once. */
    t.attr = TH_C;
    t.option = 0;
    t.thread = waiter;
    t.stacksize = 0x800;
    t.priority = 6;
    thid = CreateThread(&t);
    StartThread(thid, NULL);
    ReferVplStatus(vpl, &info);
    printf("main: W waiting: waiters %d\n", info.numWaitThreads);
    r = FreeVpl(vpl, all);
    printf("main: FreeVpl -> %d, free %d\n", r, free_size());
    printf("main: DeleteThread(W) -> %d\n", DeleteThread(thid));

    a = DeleteVpl(vpl);
    b = ReferVplStatus(vpl, &info);
    c = (int)pAllocateVpl(vpl, 8);
    printf("DeleteVpl -> %d, then ReferVplStatus -> %d, pAllocateVpl -> %d\n", a, b, c);

    printf("-- done\n");
    return NO_RESIDENT_END;
}
