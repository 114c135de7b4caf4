/* intr: INTC interrupts and alarms through the EE kernel: a VBlank-start
 * handler (INTC line 2) counting calls and their spacing in COP0 Count
 * cycles (NTSC: 294.912 MHz / 59.94 Hz = 4920120 cycles), DisableIntc
 * stopping it, iWakeupThread from a handler, and SetAlarm/ReleaseAlarm
 * (H-SYNC ticks: NTSC 15734 Hz, ~18743 cycles per tick). */
#include "piney_sys.h"

static volatile int calls, last_cause = -1, wakeups;
static volatile u32 stamp[8];
static volatile int alarm_fired, alarm2_fired, alarm_id_seen = -1;
static volatile u32 alarm_stamp;
static void *volatile alarm_common;
static int main_id;
static int cookie;

static inline u32 count(void)
{
    u32 v;
    __asm__ volatile("mfc0 %0, $9" : "=r"(v));
    return v;
}

/* Busy-waits until *flag >= target or `limit` Count cycles pass. */
static int wait_for(volatile int *flag, int target, u32 limit)
{
    u32 start = count();
    while (*flag < target)
        if (count() - start > limit)
            return 0;
    return 1;
}

static void spin(u32 cycles)
{
    u32 start = count();
    while (count() - start < cycles)
        ;
}

static s32 counter(s32 cause)
{
    last_cause = cause;
    if (calls < 8)
        stamp[calls] = count();
    calls++;
    ExitHandler();
    return 0;
}

static s32 waker(s32 cause)
{
    (void)cause;
    wakeups++;
    iWakeupThread(main_id);
    ExitHandler();
    return 0;
}

static void on_alarm(s32 id, u16 time, void *common)
{
    (void)time;
    alarm_stamp = count();
    alarm_id_seen = id;
    alarm_common = common;
    alarm_fired = 1;
}

static void on_alarm2(s32 id, u16 time, void *common)
{
    (void)id;
    (void)time;
    (void)common;
    alarm2_fired = 1;
}

int main(void)
{
    main_id = GetThreadId();
    ChangeThreadPriority(main_id, 0x40);

    puts("-- VBlank start handler");
    int h = AddIntcHandler(INTC_VBLANK_S, counter, 0);
    printf("AddIntcHandler ok %d\n", h >= 0);
    EnableIntc(INTC_VBLANK_S);
    int ok = wait_for(&calls, 3, 60000000);
    DisableIntc(INTC_VBLANK_S);
    printf("three calls seen %d, calls %d, cause %d\n", ok, calls, last_cause);
    u32 gap = stamp[2] - stamp[1];
    printf("spacing within 1%% of 4920120 cycles %d\n", gap > 4870000 && gap < 4970000);
    spin(6000000);
    printf("disabled: still %d calls\n", calls);
    printf("RemoveIntcHandler ok %d\n", RemoveIntcHandler(INTC_VBLANK_S, h) >= 0);

    puts("-- iWakeupThread from a handler");
    h = AddIntcHandler(INTC_VBLANK_S, waker, 0);
    /* I_STAT latches VBlank starts while the line is masked (the spin above saw one). Clear
       the latched request (write 1 to clear) so that the first call comes at the next VBlank,
       while main sleeps: a call while main runs would wake nobody (iWakeupThread cannot wake
       the running thread), and the count would depend on that. */
    *(volatile u32 *)0xB000F000 = 1u << INTC_VBLANK_S;
    EnableIntc(INTC_VBLANK_S);
    for (int i = 0; i < 3; i++)
        SleepThread();
    DisableIntc(INTC_VBLANK_S);
    RemoveIntcHandler(INTC_VBLANK_S, h);
    printf("slept and woke three times, handler calls %d\n", wakeups);

    puts("-- alarms");
    u32 t0 = count();
    int a = SetAlarm(300, on_alarm, &cookie);
    printf("SetAlarm ok %d\n", a >= 0);
    ok = wait_for(&alarm_fired, 1, 60000000);
    printf("fired %d, id matches %d, common matches %d\n", ok, alarm_id_seen == a,
           alarm_common == &cookie);
    u32 took = alarm_stamp - t0;
    /* 300 H-SYNC ticks = ~5.62 M cycles; allow 10%. */
    printf("delay within 10%% of 300 lines %d\n", took > 5060000 && took < 6190000);
    int a2 = SetAlarm(100, on_alarm2, NULL);
    ReleaseAlarm(a2); /* (its return value is not reliable across kernels) */
    spin(4000000);
    printf("released alarm fired %d\n", alarm2_fired);
    puts("done");
    return 0;
}
