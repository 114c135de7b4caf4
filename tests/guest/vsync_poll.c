/* vsync_poll: waits for vertical blanks as ps2sdk's graph_wait_vsync does (clear CSR.VSINT,
 * then spin on a 64-bit load of the GS's CSR until VSINT is set again), between them a little
 * work, and prints the COP0 Count at each wake-up: the cycle the poll saw VSINT, which depends
 * on every cycle the loop took. Then the same wait on a RAM flag a VBlank interrupt handler
 * sets (a poll of memory, interrupted), and the CSR wait again with that handler on and a
 * kernel alarm firing in the middle of each wait (the handlers run between passes; the passes
 * after them are moved over with their own timing).
 *
 * No expected output file: the figures are the machine's timing. crates/piney/tests/
 * cpu_engines.rs runs it under both engines, which must print the same, run the same number
 * of guest instructions and end at the same pc, and checks that the recompiler moved over the
 * poll loop's passes (piney-machine pollskip.rs) instead of running them one by one. */
#include "piney_sys.h"

#define GS_CSR ((volatile u64 *)0x12001000)
#define CSR_VSINT 8

static volatile int flag;

static inline u32 count(void)
{
    u32 v;
    __asm__ volatile("mfc0 %0, $9" : "=r"(v));
    return v;
}

static void wait_vsync(void)
{
    /* Writing 1 clears VSINT. */
    *GS_CSR = *GS_CSR & CSR_VSINT;
    while (!(*GS_CSR & CSR_VSINT))
        ;
}

static volatile int vblanks, alarms;
static volatile u32 alarm_at;

static s32 on_vblank(s32 cause)
{
    (void)cause;
    flag = 1;
    vblanks++;
    ExitHandler();
    return 0;
}

static void on_alarm(s32 id, u16 time, void *common)
{
    (void)id;
    (void)time;
    (void)common;
    alarm_at = count();
    alarms++;
}

int main(void)
{
    u32 at[8];
    u32 sum = 0;
    wait_vsync();
    for (int i = 0; i < 8; i++) {
        /* Some work between the waits, a different amount each time. */
        for (int k = 0; k < 1000 * (i + 1); k++)
            sum += k ^ i;
        wait_vsync();
        at[i] = count();
    }
    for (int i = 1; i < 8; i++)
        printf("vsync %d: %u cycles after the one before\n", i, at[i] - at[i - 1]);
    printf("work: %u\n", sum);
    int id = AddIntcHandler(INTC_VBLANK_S, on_vblank, 0);
    EnableIntc(INTC_VBLANK_S);
    for (int i = 0; i < 3; i++) {
        flag = 0;
        u32 t = count();
        while (!flag)
            ;
        printf("flag %d: set by the handler after %s\n", i,
               count() - t > 1000 ? "more than 1000 cycles" : "1000 cycles or fewer");
    }
    u32 before = count();
    for (int i = 0; i < 3; i++) {
        /* 100 H-sync ticks: about a third of the way to the next vertical blank. */
        SetAlarm(100, on_alarm, 0);
        wait_vsync();
        u32 now = count();
        printf("wait %d: %u cycles, the alarm %u cycles before the end\n", i, now - before,
               now - alarm_at);
        before = now;
    }
    printf("handler calls %d, alarms %d\n", vblanks > 3 ? 1 : 0, alarms);
    DisableIntc(INTC_VBLANK_S);
    RemoveIntcHandler(INTC_VBLANK_S, id);
    puts("done");
    return 0;
}
