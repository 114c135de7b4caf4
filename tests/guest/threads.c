/* threads: the EE kernel's thread calls: CreateThread, StartThread (with
 * immediate preemption by a higher-priority thread), return from the entry
 * function, ExitThread, restart of a dormant thread, strict priority order,
 * ChangeThreadPriority (self and others), RotateThreadReadyQueue,
 * SleepThread/WakeupThread with counted wakeups, SuspendThread/
 * ResumeThread, TerminateThread, DeleteThread, ReferThreadStatus (including
 * TH_SELF = 0) and GetThreadId. Lower numbers are higher priorities. */
#include "piney_sys.h"

#define MAIN_PRIO 0x40
#define STACK 0x2000

extern char _gp[];
static u8 stacks[8][STACK] __attribute__((aligned(16)));
static int main_id, a_id;

static int make(void (*fn)(void *), int prio, int slot)
{
    ee_thread_t t;
    memset(&t, 0, sizeof t);
    t.func = (void *)fn;
    t.stack = stacks[slot];
    t.stack_size = STACK;
    t.gp_reg = _gp;
    t.initial_priority = prio;
    return CreateThread(&t);
}

static void stat(const char *who, int id)
{
    ee_thread_status_t st;
    memset(&st, 0, sizeof st);
    int r = ReferThreadStatus(id, &st);
    if (r < 0) {
        printf("  %s: ReferThreadStatus failed (%d)\n", who, r);
        return;
    }
    printf("  %s: result %02x status %02x init %02x cur %02x", who, r, st.status,
           st.initial_priority, st.current_priority);
    /* The wait type is only meaningful while the thread waits. */
    if (st.status & THS_WAIT)
        printf(" wait %u", st.waitType);
    printf(" wakeups %u\n", st.wakeupCount);
}

static void thread_a(void *arg)
{
    printf("A: running, arg %x, GetThreadId matches %d\n", (u32)arg, GetThreadId() == a_id);
    /* Returning from the entry function ends the thread like ExitThread. */
}

static void thread_named(void *arg)
{
    printf("%s: runs\n", (const char *)arg);
    ExitThread();
}

static void thread_d(void *arg)
{
    (void)arg;
    puts("D: sleeping");
    SleepThread();
    puts("D: woke, sleeping again");
    SleepThread();
    puts("D: must not get here");
    ExitThread();
}

static void thread_e(void *arg)
{
    (void)arg;
    SleepThread();
    SleepThread();
    puts("E: two SleepThread calls returned at once, third one sleeps");
    SleepThread();
    puts("E: must not get here");
    ExitThread();
}

static void thread_h(void *arg)
{
    (void)arg;
    stat("H (self, TH_SELF)", 0);
    ExitThread();
}

int main(void)
{
    puts("-- main thread");
    main_id = GetThreadId();
    printf("main id positive %d\n", main_id > 0);
    ChangeThreadPriority(main_id, MAIN_PRIO);
    ee_thread_status_t st;
    memset(&st, 0, sizeof st);
    printf("ReferThreadStatus(main) %02x cur %02x\n", ReferThreadStatus(main_id, &st),
           st.current_priority);
    memset(&st, 0, sizeof st);
    printf("ReferThreadStatus(TH_SELF) %02x cur %02x\n", ReferThreadStatus(0, &st),
           st.current_priority);

    puts("-- create and start a higher-priority thread");
    a_id = make(thread_a, 0x30, 0);
    printf("A id positive and new %d\n", a_id > 0 && a_id != main_id);
    stat("A before start", a_id);
    printf("StartThread(A) -> %d\n", StartThread(a_id, (void *)0x1234) >= 0);
    puts("main: back after A");
    stat("A after return", a_id);
    StartThread(a_id, (void *)0x5678);
    puts("main: A restarted and ended again");

    puts("-- strict priority order");
    int b = make(thread_named, 0x50, 1);
    int c = make(thread_named, 0x50, 2);
    StartThread(b, "B");
    StartThread(c, "C");
    puts("main: B and C started, not run yet");
    stat("B", b);
    ChangeThreadPriority(main_id, 0x60);
    puts("main: runs again after lowering itself below B and C");
    memset(&st, 0, sizeof st);
    printf("main status %02x cur %02x\n", ReferThreadStatus(main_id, &st), st.current_priority);
    ChangeThreadPriority(main_id, MAIN_PRIO);

    puts("-- sleep, suspend, resume, wakeup");
    int d = make(thread_d, 0x30, 3);
    StartThread(d, NULL);
    stat("D sleeping", d);
    SuspendThread(d);
    stat("D suspended", d);
    ResumeThread(d);
    stat("D resumed", d);
    WakeupThread(d);
    puts("main: after waking D");
    stat("D", d);

    puts("-- counted wakeups");
    int e = make(thread_e, 0x50, 4);
    StartThread(e, NULL);
    WakeupThread(e);
    WakeupThread(e);
    stat("E ready", e);
    ChangeThreadPriority(main_id, 0x60);
    ChangeThreadPriority(main_id, MAIN_PRIO);
    stat("E", e);

    puts("-- suspend a ready thread");
    int f = make(thread_named, 0x50, 5);
    StartThread(f, "F");
    SuspendThread(f);
    stat("F suspended", f);
    ChangeThreadPriority(main_id, 0x60);
    puts("main: F stays suspended at a higher priority");
    ResumeThread(f);
    puts("main: after ResumeThread(F)");
    ChangeThreadPriority(main_id, MAIN_PRIO);

    puts("-- rotate the ready queue");
    int g1 = make(thread_named, 0x50, 6);
    int g2 = make(thread_named, 0x50, 7);
    StartThread(g1, "G1");
    StartThread(g2, "G2");
    RotateThreadReadyQueue(0x50);
    ChangeThreadPriority(main_id, 0x60);
    ChangeThreadPriority(main_id, MAIN_PRIO);

    puts("-- change another thread's priority");
    DeleteThread(b);
    int h = make(thread_h, 0x50, 1);
    StartThread(h, NULL);
    ChangeThreadPriority(h, 0x20);
    puts("main: after raising H");

    puts("-- terminate and delete");
    printf("DeleteThread(D) while waiting fails %d\n", DeleteThread(d) < 0);
    printf("TerminateThread(D) ok %d\n", TerminateThread(d) >= 0);
    stat("D terminated", d);
    printf("DeleteThread(D) ok %d\n", DeleteThread(d) >= 0);
    /* No hardware result pins this: piney follows Play!'s kernel, which answers 0 with a
       zeroed status for a deleted thread (Metal Gear Solid 2 depends on it). */
    stat("D deleted", d);
    TerminateThread(e);
    printf("DeleteThread(E) ok %d\n", DeleteThread(e) >= 0);
    printf("StartThread(deleted) fails %d\n", StartThread(d, NULL) < 0);
    puts("done");
    return 0;
}
