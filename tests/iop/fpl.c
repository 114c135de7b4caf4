/* fpl.c: thfpool's fixed-length pools: CreateFpl (blocks of block_size rounded up to 4 bytes,
 * laid out one after another), pAllocateFpl in block order while the pool is fresh and then in
 * the order blocks were freed (the free blocks form a FIFO queue: a freed block goes to the
 * back), KE_NO_MEMORY when empty, ReferFplStatus (block size as asked, counts), a waiter
 * (AllocateFpl) that gets the very block the next FreeFpl returns, KE_UNKNOWN_FPLID after
 * DeleteFpl.
 * Pool: 3 blocks of 30 bytes -> 32-byte blocks: b1 - b0 = 32, b2 - b1 = 32.
 * main is priority 8, the waiter W priority 6 (it runs as soon as main frees a block). */
#include "irx.h"

IRX_ID("fpl", 1, 1);

static int fpl;
static u8 *handed;

static void show(const char *what)
{
    iop_fpl_info_t info;
    int r = ReferFplStatus(fpl, &info);
    if (r < 0)
        printf("%s: refer %d\n", what, r);
    else
        printf("%s: refer %d attr %u option 0x%x block %d blocks %d free %d waiters %d\n", what, r,
               info.attr, info.option, info.blockSize, info.numBlocks, info.freeBlocks,
               info.numWaitThreads);
}

static void waiter(void *arg)
{
    u8 *b;
    int r;
    (void)arg;
    b = AllocateFpl(fpl); /* waits: the pool is empty */
    printf("W: AllocateFpl -> the block main freed %s\n", b == handed ? "OK" : "FAIL");
    r = FreeFpl(fpl, b);
    printf("W: FreeFpl -> %d\n", r);
}

int _start(int argc, char **argv)
{
    iop_fpl_param p;
    iop_thread_t t;
    u8 *b0, *b1, *b2, *x, *y;
    int r, a, thid;
    (void)argc;
    (void)argv;

    p.attr = FA_THFIFO;
    p.option = 0x55;
    p.block_size = 30;
    p.blocks = 3;
    fpl = CreateFpl(&p);
    show("CreateFpl(30 x 3)");

    b0 = pAllocateFpl(fpl);
    b1 = pAllocateFpl(fpl);
    b2 = pAllocateFpl(fpl);
    r = (int)pAllocateFpl(fpl);
    printf("pAllocateFpl x3: b1 - b0 = %d, b2 - b1 = %d; a 4th -> %d\n", b1 - b0, b2 - b1, r);
    show("empty");

    r = FreeFpl(fpl, b1);
    a = FreeFpl(fpl, b0);
    printf("FreeFpl(b1) -> %d, FreeFpl(b0) -> %d\n", r, a);
    show("two free");
    x = pAllocateFpl(fpl);
    y = pAllocateFpl(fpl);
    printf("pAllocateFpl x2: b1 first %s, then b0 %s\n", x == b1 ? "OK" : "FAIL",
           y == b0 ? "OK" : "FAIL");

    /* Empty again; W waits, main frees b2, which goes to W. */
    t.attr = TH_C;
    t.option = 0;
    t.thread = waiter;
    t.stacksize = 0x800;
    t.priority = 6;
    thid = CreateThread(&t);
    StartThread(thid, NULL);
    show("W waiting");
    handed = b2;
    r = FreeFpl(fpl, b2);
    printf("main: FreeFpl(b2) -> %d\n", r);
    show("after W");
    printf("main: DeleteThread(W) -> %d\n", DeleteThread(thid));

    r = FreeFpl(fpl, x) | FreeFpl(fpl, y);
    printf("FreeFpl of the rest -> %d\n", r);
    show("all free");
    r = DeleteFpl(fpl);
    a = (int)pAllocateFpl(fpl);
    printf("DeleteFpl -> %d, then pAllocateFpl -> %d\n", r, a);
    show("deleted");

    printf("-- done\n");
    return NO_RESIDENT_END;
}
