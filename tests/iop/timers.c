/* timers.c: thbase's time: USec2SysClock/SysClock2USec (pure arithmetic on the 36.864 MHz
 * system clock), GetSystemTime across a DelayThread, DelayThread ordering of two threads,
 * SetAlarm (a handler in interrupt context that re-arms itself by returning a clock count, and
 * stops by returning 0), SetAlarm of an alarm already set (KE_FOUND_HANDLER), CancelAlarm
 * (KE_NOTFOUND_HANDLER when none) and iSetAlarm outside an interrupt (KE_ILLEGAL_CONTEXT);
 * timrman's AllocHardTimer (KE_NO_TIMER when no timer fits), GetTimerCounter and
 * FreeHardTimer (KE_ILLEGAL_TIMERID for a freed one).
 *
 * The arithmetic (the console converts with 0x1200/125 = 36.864 clocks per microsecond, in 64
 * bits, rounding down; SysClock2USec splits the microseconds into seconds and the rest):
 *   USec2SysClock(1)         = 4608 / 125 = 36.864            -> hi 0, lo 36
 *   USec2SysClock(1000)      = 4608000 / 125                  -> hi 0, lo 36864
 *   USec2SysClock(123456789) = 568888883712 / 125 = 4551111069.696
 *                            = 1 * 2^32 + 256143773           -> hi 1, lo 256143773
 *   SysClock2USec(36864000)  = 36864000 * 125 / 4608 = 1000000 -> 1 s, 0 us
 *   SysClock2USec(100)       = 12500 / 4608 = 2.7             -> 0 s, 2 us
 *   SysClock2USec(9 * 2^32 + 0x12345678 = 38960125560)
 *                            = 4870015695000 / 4608 = 1056861044.05 -> 1056 s, 861044 us
 * Times measured on the running machine are only compared with bounds (a delay of N us lasts
 * at least USec2SysClock(N) clocks, and less than a second here), never printed.
 *
 * main is priority 8; SHORT and LONG have priority 10. */
#include "irx.h"

IRX_ID("timers", 1, 1);

static int sem;
static volatile int fired, in_context, stray;

static u64 now(void)
{
    iop_sys_clock_t c;
    GetSystemTime(&c);
    return (u64)c.hi << 32 | c.lo;
}

static unsigned int alarm_handler(void *arg)
{
    fired++;
    if (fired == 1)
        in_context = QueryIntrContext() != 0;
    iSignalSema(sem);
    /* Fire three times, 1 ms apart: the return value is the clocks until the next call. */
    return fired < 3 ? *(u32 *)arg : 0;
}

static unsigned int never_handler(void *arg)
{
    (void)arg;
    stray++;
    return 0;
}

static void sleeper(void *arg)
{
    int usec = (int)arg;
    printf("%s: DelayThread(%d)\n", usec < 2000 ? "SHORT" : "LONG", usec);
    DelayThread(usec);
    printf("%s: woke\n", usec < 2000 ? "SHORT" : "LONG");
    SignalSema(sem);
}

static int start(int usec)
{
    iop_thread_t t;
    int thid;
    t.attr = TH_C;
    t.option = 0;
    t.thread = sleeper;
    t.stacksize = 0x800;
    t.priority = 10;
    thid = CreateThread(&t);
    StartThread(thid, (void *)usec);
    return thid;
}

static const char *ok(int cond)
{
    return cond ? "OK" : "FAIL";
}

int _start(int argc, char **argv)
{
    iop_sys_clock_t c;
    iop_sema_t p;
    u32 sec, usec, one_ms, c1, c2;
    u64 t1, t2;
    int r, a, b, timer, short_id, long_id;
    (void)argc;
    (void)argv;

    USec2SysClock(1, &c);
    printf("USec2SysClock(1) -> hi %u lo %u\n", c.hi, c.lo);
    USec2SysClock(1000, &c);
    printf("USec2SysClock(1000) -> hi %u lo %u\n", c.hi, c.lo);
    one_ms = c.lo;
    USec2SysClock(123456789, &c);
    printf("USec2SysClock(123456789) -> hi %u lo %u\n", c.hi, c.lo);
    c.hi = 0;
    c.lo = 36864000;
    SysClock2USec(&c, &sec, &usec);
    printf("SysClock2USec(36864000) -> %u s %u us\n", sec, usec);
    c.lo = 100;
    SysClock2USec(&c, &sec, &usec);
    printf("SysClock2USec(100) -> %u s %u us\n", sec, usec);
    c.hi = 9;
    c.lo = 0x12345678;
    SysClock2USec(&c, &sec, &usec);
    printf("SysClock2USec(9:0x12345678) -> %u s %u us\n", sec, usec);

    /* GetSystemTime around a 2 ms delay: at least 73728 clocks pass. */
    t1 = now();
    r = DelayThread(2000);
    t2 = now();
    printf("DelayThread(2000) -> %d, elapsed >= 2 ms %s, < 1 s %s\n", r,
           ok(t2 - t1 >= (u64)(2 * one_ms)), ok(t2 - t1 < (u64)(1000 * one_ms)));

    /* Two sleepers: LONG starts first (FIFO at priority 10) and waits 3 ms, SHORT 1 ms; SHORT
       wakes first. main waits for both on the semaphore. */
    p.attr = SA_THFIFO;
    p.option = 0;
    p.initial = 0;
    p.max = 10;
    sem = CreateSema(&p);
    long_id = start(3000);
    short_id = start(1000);
    WaitSema(sem); /* SHORT's signal */
    WaitSema(sem); /* LONG's: main (8) preempts LONG inside its SignalSema */
    ChangeThreadPriority(TH_SELF, 11); /* let LONG return (exit) */
    ChangeThreadPriority(TH_SELF, 8);
    a = DeleteThread(long_id);
    b = DeleteThread(short_id);
    printf("main: both woke, DeleteThread -> %d %d\n", a, b);

    /* An alarm 1 ms away that re-arms itself twice (1 ms each) and stops. */
    c.hi = 0;
    c.lo = one_ms;
    r = SetAlarm(&c, alarm_handler, &one_ms);
    a = SetAlarm(&c, alarm_handler, &one_ms); /* the same handler and argument: refused */
    b = iSetAlarm(&c, alarm_handler, &one_ms);
    printf("SetAlarm -> %d, again -> %d, iSetAlarm in a thread -> %d\n", r, a, b);
    WaitSema(sem);
    WaitSema(sem);
    WaitSema(sem);
    r = CancelAlarm(alarm_handler, &one_ms); /* it ended by returning 0 */
    printf("alarm: fired %d times, in interrupt context %d, CancelAlarm after -> %d\n", fired,
           in_context, r);

    /* An alarm cancelled before it fires never runs. */
    c.lo = 2 * one_ms;
    r = SetAlarm(&c, never_handler, NULL);
    a = CancelAlarm(never_handler, NULL);
    b = CancelAlarm(never_handler, NULL);
    DelayThread(5000);
    printf("SetAlarm -> %d, CancelAlarm -> %d, again -> %d, handler ran %d times\n", r, a, b,
           stray);

    /* A hardware timer: a 32-bit one counting the system clock. */
    r = AllocHardTimer(TC_SYSCLOCK, 16, 256); /* no 16-bit timer divides by 256 */
    timer = AllocHardTimer(TC_SYSCLOCK, 32, 1);
    c1 = GetTimerCounter(timer);
    DelayThread(1000);
    c2 = GetTimerCounter(timer);
    printf("AllocHardTimer(16 bit, /256) -> %d, (32 bit, /1) %s, counter +1 ms %s\n", r,
           ok(timer > 0), ok(c2 - c1 >= one_ms));
    a = FreeHardTimer(timer);
    b = FreeHardTimer(timer);
    printf("FreeHardTimer -> %d, again -> %d\n", a, b);
    printf("DeleteSema -> %d\n", DeleteSema(sem));

    printf("-- done\n");
    return NO_RESIDENT_END;
}
