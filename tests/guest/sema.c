/* sema: EE kernel semaphores: CreateSema, PollSema, SignalSema, WaitSema
 * (immediate and blocking, waiters released in FIFO order), ReferSemaStatus
 * (count, max, waiting threads), DeleteSema, and iSignalSema from a
 * VBlank interrupt handler waking the main thread. */
#include "piney_sys.h"

#define MAIN_PRIO 0x40
#define STACK 0x2000

extern char _gp[];
static u8 stacks[2][STACK] __attribute__((aligned(16)));
static int sid, vsid;
static volatile int vblank_calls;

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

static void refer(const char *what, int id)
{
    ee_sema_t s;
    memset(&s, 0, sizeof s);
    int r = ReferSemaStatus(id, &s);
    if (r < 0)
        printf("  %s: ReferSemaStatus failed\n", what);
    else
        /* (The kernel does not report init_count.) */
        printf("  %s: count %d max %d waiting %d\n", what, s.count, s.max_count,
               s.wait_threads);
}

static void waiter(void *name)
{
    printf("%s: waiting\n", (const char *)name);
    int r = WaitSema(sid);
    printf("%s: got the semaphore (ok %d)\n", (const char *)name, r >= 0);
    ExitThread();
}

static s32 vblank_handler(s32 cause)
{
    (void)cause;
    vblank_calls++;
    iSignalSema(vsid);
    ExitHandler();
    return 0;
}

int main(void)
{
    ChangeThreadPriority(GetThreadId(), MAIN_PRIO);

    puts("-- create, poll, signal, wait");
    ee_sema_t p;
    memset(&p, 0, sizeof p);
    p.init_count = 1;
    p.max_count = 2;
    sid = CreateSema(&p);
    printf("CreateSema ok %d\n", sid >= 0);
    refer("new", sid);
    printf("PollSema (count 1) ok %d\n", PollSema(sid) >= 0);
    printf("PollSema (count 0) fails %d\n", PollSema(sid) < 0);
    SignalSema(sid);
    SignalSema(sid);
    refer("after two signals", sid);
    printf("WaitSema (count 2) ok %d\n", WaitSema(sid) >= 0);
    printf("WaitSema (count 1) ok %d\n", WaitSema(sid) >= 0);
    refer("after two waits", sid);

    puts("-- blocking waiters");
    int w1 = make(waiter, 0x30, 0);
    int w2 = make(waiter, 0x30, 1);
    StartThread(w1, "W1");
    StartThread(w2, "W2");
    refer("two waiting", sid);
    ee_thread_status_t st;
    memset(&st, 0, sizeof st);
    ReferThreadStatus(w1, &st);
    printf("W1 status %02x wait type %u\n", st.status, st.waitType);
    puts("main: signal");
    SignalSema(sid);
    puts("main: signal");
    SignalSema(sid);
    refer("after releasing both", sid);

    puts("-- iSignalSema from a VBlank handler");
    memset(&p, 0, sizeof p);
    p.init_count = 0;
    p.max_count = 10;
    vsid = CreateSema(&p);
    int hid = AddIntcHandler(INTC_VBLANK_S, vblank_handler, 0);
    printf("AddIntcHandler ok %d\n", hid >= 0);
    EnableIntc(INTC_VBLANK_S);
    for (int i = 0; i < 3; i++)
        WaitSema(vsid);
    DisableIntc(INTC_VBLANK_S);
    printf("woke three times, handler calls %d\n", vblank_calls);
    printf("RemoveIntcHandler ok %d\n", RemoveIntcHandler(INTC_VBLANK_S, hid) >= 0);

    puts("-- delete");
    printf("DeleteSema ok %d\n", DeleteSema(sid) >= 0);
    refer("deleted", sid);
    printf("WaitSema on deleted fails %d\n", WaitSema(sid) < 0);
    printf("DeleteSema again fails %d\n", DeleteSema(sid) < 0);
    DeleteSema(vsid);
    puts("done");
    return 0;
}
