/* sema.c: thsemap's semaphores: counts, PollSema/SignalSema limits, ReferSemaStatus, the
 * error codes (KE_SEMA_ZERO, KE_SEMA_OVF, KE_UNKNOWN_SEMID after DeleteSema, KE_WAIT_DELETE
 * for the waiters of a deleted semaphore, KE_ILLEGAL_CONTEXT for iSignalSema in a thread), and
 * the order in which waiters are woken: arrival order for SA_THFIFO, priority order (FIFO
 * among equals) for SA_THPRI.
 *
 * The rules used: SignalSema with waiters hands the count to the first waiter (the count stays
 * 0); a woken waiter of higher priority than the signalling thread runs at once, one of lower
 * priority waits in the ready queue until the signaller blocks. DeleteSema readies every waiter
 * with KE_WAIT_DELETE and reschedules.
 *
 * main is priority 8. The waiters W1 (6), W2 (4), W3 (5), W4 (6) have higher priorities, so
 * each runs the moment main starts or wakes it: each WaitSema happens in the order main starts
 * them, and each "got it" line is printed inside main's SignalSema, in wake order. L (20) has a
 * lower one. */
#include "irx.h"

IRX_ID("sema", 1, 1);

static int sem;
static int threads[8], nthreads;

static void waiter(void *arg)
{
    int r = WaitSema(sem);
    printf("%s: WaitSema -> %d\n", (const char *)arg, r);
}

static int start(const char *name, int priority)
{
    iop_thread_t t;
    int thid;
    t.attr = TH_C;
    t.option = 0;
    t.thread = waiter;
    t.stacksize = 0x800;
    t.priority = priority;
    thid = CreateThread(&t);
    threads[nthreads++] = thid;
    StartThread(thid, (void *)name);
    return thid;
}

static int status_of(int thid)
{
    iop_thread_info_t info;
    int r = ReferThreadStatus(thid, &info);
    return r < 0 ? r : info.status;
}

static void show(const char *what, int semid)
{
    iop_sema_info_t info;
    int r = ReferSemaStatus(semid, &info);
    if (r < 0)
        printf("%s: refer %d\n", what, r);
    else
        printf("%s: refer %d attr %u option 0x%x initial %d max %d current %d waiters %d\n", what,
               r, info.attr, info.option, info.initial, info.max, info.current,
               info.numWaitThreads);
}

/* Three waiters started in the order W1 (6), W2 (4), W3 (5), then three signals. */
static void wake_order(u32 attr)
{
    iop_sema_t p;
    int r1, r2, r3;
    p.attr = attr;
    p.option = 0;
    p.initial = 0;
    p.max = 3;
    sem = CreateSema(&p);
    start("W1 (6)", 6);
    start("W2 (4)", 4);
    start("W3 (5)", 5);
    show(attr == SA_THPRI ? "SA_THPRI" : "SA_THFIFO", sem);
    r1 = SignalSema(sem);
    r2 = SignalSema(sem);
    r3 = SignalSema(sem);
    printf("main: SignalSema -> %d %d %d, DeleteSema -> %d\n", r1, r2, r3, DeleteSema(sem));
}

int _start(int argc, char **argv)
{
    iop_sema_t p;
    int a, b, c, d, e;
    (void)argc;
    (void)argv;

    /* Counts: initial 1, max 2. */
    p.attr = SA_THFIFO;
    p.option = 0x1234;
    p.initial = 1;
    p.max = 2;
    sem = CreateSema(&p);
    printf("CreateSema -> %s\n", sem > 0 ? "an id" : "FAIL");
    show("created", sem);
    a = PollSema(sem); /* 1 -> 0 */
    b = PollSema(sem); /* 0: KE_SEMA_ZERO */
    printf("PollSema -> %d, again -> %d\n", a, b);
    a = SignalSema(sem); /* 0 -> 1 */
    b = SignalSema(sem); /* 1 -> 2 */
    c = SignalSema(sem); /* 2 = max: KE_SEMA_OVF, stays 2 */
    printf("SignalSema -> %d %d %d\n", a, b, c);
    show("full", sem);
    a = WaitSema(sem); /* 2 -> 1, no wait */
    b = iSignalSema(sem);
    printf("WaitSema -> %d, iSignalSema in a thread -> %d\n", a, b);
    show("after WaitSema", sem);
    a = DeleteSema(sem);
    b = SignalSema(sem);
    c = WaitSema(sem);
    d = PollSema(sem);
    e = DeleteSema(sem);
    printf("DeleteSema -> %d, then SignalSema %d WaitSema %d PollSema %d DeleteSema %d\n", a, b,
           c, d, e);
    show("deleted", sem);

    /* Wake order: FIFO wakes W1, W2, W3 (arrival); THPRI wakes W2 (4), W3 (5), W1 (6). */
    wake_order(SA_THFIFO);
    wake_order(SA_THPRI);

    /* KE_WAIT_DELETE: W4 (6) waits; DeleteSema readies it with KE_WAIT_DELETE and it runs at
       once (6 beats 8), before DeleteSema returns to main. */
    p.attr = SA_THFIFO;
    p.option = 0;
    p.initial = 0;
    p.max = 1;
    sem = CreateSema(&p);
    start("W4 (6)", 6);
    a = DeleteSema(sem);
    printf("main: DeleteSema with a waiter -> %d\n", a);

    /* A lower-priority waiter: L (20) only runs when main lets it (main drops to 30 and back);
       the signal readies L without running it. */
    sem = CreateSema(&p);
    a = start("L (20)", 20);
    ChangeThreadPriority(TH_SELF, 30); /* L runs and waits in WaitSema */
    ChangeThreadPriority(TH_SELF, 8);
    printf("main: L's status %d\n", status_of(a));
    b = SignalSema(sem);
    printf("main: SignalSema -> %d, L's status %d\n", b, status_of(a));
    ChangeThreadPriority(TH_SELF, 30); /* L prints and exits */
    ChangeThreadPriority(TH_SELF, 8);
    show("after L", sem);
    printf("main: DeleteSema -> %d\n", DeleteSema(sem));

    /* Every waiter has exited (dormant): delete them. */
    a = 0;
    for (b = 0; b < nthreads; b++)
        a |= DeleteThread(threads[b]);
    printf("main: DeleteThread of the %d waiters -> %d\n", nthreads, a);

    printf("-- done\n");
    return NO_RESIDENT_END;
}
