/* evflag.c: thevent's event flags: PollEventFlag conditions (AND, OR, CLEAR), SetEventFlag,
 * ClearEventFlag (which ANDs: its argument is the mask of bits to keep), ReferEventFlagStatus,
 * the error codes (KE_EVF_COND, KE_EVF_ILPAT, KE_ILLEGAL_MODE, KE_EVF_MULTI for a second waiter
 * on an EA_SINGLE flag, KE_WAIT_DELETE, KE_UNKNOWN_EVFID), and waiters: SetEventFlag checks
 * the waiters in arrival order, wakes each one whose condition holds (its result bits are the
 * flag's bits at that moment), and a WEF_CLEAR waiter clears all bits so the waiters after it
 * see none.
 *
 * main is priority 8; every waiter thread has priority 6, so it runs as soon as main starts it
 * (and waits), and runs as soon as main's SetEventFlag wakes it: its line is printed inside
 * main's call. When one SetEventFlag wakes two of them, they run in wake order (same priority,
 * FIFO ready queue), before main. */
#include "irx.h"

IRX_ID("evflag", 1, 1);

struct wait {
    const char *name;
    int ef;
    u32 bits;
    int mode;
};

static int threads[8], nthreads;

static void waiter(void *arg)
{
    struct wait *w = arg;
    u32 res = 0xdead;
    int r = WaitEventFlag(w->ef, w->bits, w->mode, &res);
    if (r < 0)
        printf("%s: WaitEventFlag(0x%x, %d) -> %d\n", w->name, w->bits, w->mode, r);
    else
        printf("%s: WaitEventFlag(0x%x, %d) -> %d, bits 0x%x\n", w->name, w->bits, w->mode, r,
               res);
}

static void start(struct wait *w)
{
    iop_thread_t t;
    t.attr = TH_C;
    t.option = 0;
    t.thread = waiter;
    t.stacksize = 0x800;
    t.priority = 6;
    threads[nthreads] = CreateThread(&t);
    StartThread(threads[nthreads++], w);
}

static void show(const char *what, int ef)
{
    iop_event_info_t info;
    int r = ReferEventFlagStatus(ef, &info);
    if (r < 0)
        printf("%s: refer %d\n", what, r);
    else
        printf("%s: refer %d attr %u option 0x%x init 0x%x bits 0x%x waiters %d\n", what, r,
               info.attr, info.option, info.initBits, info.currBits, info.numThreads);
}

static void poll(int ef, u32 bits, int mode)
{
    u32 res = 0xdead;
    int r = PollEventFlag(ef, bits, mode, &res);
    if (r < 0)
        printf("PollEventFlag(0x%x, 0x%x) -> %d\n", bits, mode, r);
    else
        printf("PollEventFlag(0x%x, 0x%x) -> %d, bits 0x%x\n", bits, mode, r, res);
}

static struct wait t1, t2, m1, m2, m3, m4, m5, m6;

int _start(int argc, char **argv)
{
    iop_event_t p;
    int ef, r, i;
    u32 res;
    (void)argc;
    (void)argv;

    /* Without waiting: a single flag starting at 0x5. */
    p.attr = EA_SINGLE;
    p.option = 0x77;
    p.bits = 0x5;
    ef = CreateEventFlag(&p);
    show("single", ef);
    poll(ef, 0x1, WEF_AND);                /* 0x5 has bit 0 */
    poll(ef, 0x3, WEF_AND);                /* bit 1 missing: KE_EVF_COND */
    poll(ef, 0x3, WEF_OR);                 /* bit 0 is enough */
    poll(ef, 0x0, WEF_OR);                 /* no bits: KE_EVF_ILPAT */
    poll(ef, 0x1, 0x4);                    /* bad mode: KE_ILLEGAL_MODE */
    r = SetEventFlag(ef, 0x30);            /* 0x35 */
    i = ClearEventFlag(ef, ~0x4u);         /* keep all but bit 2: 0x31 */
    printf("SetEventFlag(0x30) -> %d, ClearEventFlag(~0x4) -> %d\n", r, i);
    show("set, cleared", ef);
    poll(ef, 0x11, WEF_AND | WEF_CLEAR);   /* holds; reports 0x31 and clears all */
    show("polled with WEF_CLEAR", ef);
    poll(ef, 0x1, WEF_OR);                 /* nothing left: KE_EVF_COND */
    SetEventFlag(ef, 0x1);
    res = 0;
    r = WaitEventFlag(ef, 0x1, WEF_OR, &res); /* already true: no wait */
    printf("WaitEventFlag(0x1, OR) -> %d, bits 0x%x\n", r, res);
    ClearEventFlag(ef, 0);

    /* A single flag takes one waiter: T1 waits, T2 is refused with KE_EVF_MULTI. */
    t1 = (struct wait){ "T1", ef, 0x2, WEF_AND };
    t2 = (struct wait){ "T2", ef, 0x4, WEF_AND };
    start(&t1);
    start(&t2);
    show("single, T1 waiting", ef);
    r = SetEventFlag(ef, 0x2); /* T1 wakes (6 beats 8) and prints first */
    printf("main: SetEventFlag(0x2) -> %d\n", r);
    printf("main: DeleteEventFlag -> %d\n", DeleteEventFlag(ef));
    r = SetEventFlag(ef, 1);
    printf("main: SetEventFlag on the deleted flag -> %d\n", r);
    show("deleted", ef);

    /* A multi flag, bits 0, waiters in this order: M1 (0x3 AND), M2 (0x1 OR CLEAR),
       M3 (0x2 OR). */
    p.attr = EA_MULTI;
    p.option = 0;
    p.bits = 0;
    ef = CreateEventFlag(&p);
    m1 = (struct wait){ "M1", ef, 0x3, WEF_AND };
    m2 = (struct wait){ "M2", ef, 0x1, WEF_OR | WEF_CLEAR };
    m3 = (struct wait){ "M3", ef, 0x2, WEF_OR };
    start(&m1);
    start(&m2);
    start(&m3);
    show("multi, 3 waiting", ef);
    /* 0x1: M1 lacks bit 1; M2 holds, gets 0x1 and clears; M3 is not even looked at (no bits
       left). One wakeup: M2 runs. */
    r = SetEventFlag(ef, 0x1);
    printf("main: SetEventFlag(0x1) -> %d\n", r);
    show("after M2", ef);
    /* 0x2: M1 still lacks bit 0; M3 gets 0x2. */
    r = SetEventFlag(ef, 0x2);
    printf("main: SetEventFlag(0x2) -> %d\n", r);
    /* 0x1 more: 0x3, M1 gets 0x3. */
    r = SetEventFlag(ef, 0x1);
    printf("main: SetEventFlag(0x1) -> %d\n", r);
    show("after M1", ef);

    /* Two wakeups by one call: M4 (0x4 OR) then M5 (0x8 OR); 0xc makes the bits 0xf; both
       run, M4 first, then main. */
    m4 = (struct wait){ "M4", ef, 0x4, WEF_OR };
    m5 = (struct wait){ "M5", ef, 0x8, WEF_OR };
    start(&m4);
    start(&m5);
    r = SetEventFlag(ef, 0xc);
    printf("main: SetEventFlag(0xc) -> %d\n", r);

    /* A waiter of a deleted flag: KE_WAIT_DELETE, and it runs before DeleteEventFlag returns. */
    m6 = (struct wait){ "M6", ef, 0x100, WEF_AND };
    start(&m6);
    r = DeleteEventFlag(ef);
    printf("main: DeleteEventFlag with a waiter -> %d\n", r);

    r = 0;
    for (i = 0; i < nthreads; i++)
        r |= DeleteThread(threads[i]);
    printf("main: DeleteThread of the %d waiters -> %d\n", nthreads, r);
    printf("-- done\n");
    return NO_RESIDENT_END;
}
