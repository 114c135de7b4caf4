/* intr.c: intrman: CpuSuspendIntr/CpuResumeIntr (a second suspend reports KE_CPUDI: they were
 * already off), QueryIntrContext outside and inside an interrupt handler, RegisterIntrHandler
 * (KE_FOUND_HANDLER for a taken line, KE_ILLEGAL_INTRCODE for a line that does not exist),
 * EnableIntr, DisableIntr (its second call: KE_INTRDISABLE) and ReleaseIntrHandler
 * (KE_NOTFOUND_HANDLER when none). The handler, on the VBlank line (IOP IRQ 0), counts, signals
 * a semaphore with iSignalSema (the calls for interrupt context) and, once, tries SignalSema
 * (the thread-only call, which refuses with KE_ILLEGAL_CONTEXT); it returns 1 to keep its line
 * enabled. The module waits for 5 vblanks with WaitSema.
 *
 * IRQ 0 belongs to vblank.irx on a console: the module first disables the line and releases
 * whatever handler it has (results not printed, so the output is the same whether a handler
 * was there or not), as ps2autotests' interrupt tests do. Values of the interrupt state words
 * are not printed (they are the hardware's), only the return codes. */
#include "irx.h"

IRX_ID("intr", 1, 1);

#define VBLANKS 5

static int sem;
static volatile int count, in_context, isignal_result, signal_result;

static int handler(void *arg)
{
    (void)arg;
    count++;
    if (count == 1) {
        in_context = QueryIntrContext() != 0;
        signal_result = SignalSema(sem);
    }
    if (count <= VBLANKS) {
        int r = iSignalSema(sem);
        if (count == 1)
            isignal_result = r;
    }
    return 1;
}

int _start(int argc, char **argv)
{
    iop_sema_t p;
    int s1, s2, a, b, c, d, i, res1, res2;
    (void)argc;
    (void)argv;

    printf("intr: QueryIntrContext in a thread -> %d\n", QueryIntrContext());

    a = CpuSuspendIntr(&s1); /* they were on: KE_OK */
    b = CpuSuspendIntr(&s2); /* already off: KE_CPUDI */
    c = CpuResumeIntr(s2);   /* still off */
    d = CpuResumeIntr(s1);   /* on again */
    printf("intr: CpuSuspendIntr -> %d, again -> %d, CpuResumeIntr -> %d %d\n", a, b, c, d);

    p.attr = SA_THFIFO;
    p.option = 0;
    p.initial = 0;
    p.max = VBLANKS;
    sem = CreateSema(&p);

    /* Take the VBlank line over (as a console test must, vblank.irx owns it there); whether a
       handler was there is not printed. Then register ours twice, and on no line at all. */
    CpuSuspendIntr(&s1);
    DisableIntr(IOP_IRQ_VBLANK, &res1);
    ReleaseIntrHandler(IOP_IRQ_VBLANK);
    a = RegisterIntrHandler(IOP_IRQ_VBLANK, IRX_INTR_C, handler, NULL);
    b = RegisterIntrHandler(IOP_IRQ_VBLANK, IRX_INTR_C, handler, NULL);
    c = RegisterIntrHandler(-1, IRX_INTR_C, handler, NULL);
    CpuResumeIntr(s1);
    printf("intr: RegisterIntrHandler(VBLANK) -> %d, again -> %d, line -1 -> %d\n", a, b, c);
    printf("intr: EnableIntr(VBLANK) -> %d\n", EnableIntr(IOP_IRQ_VBLANK));

    for (i = 0; i < VBLANKS; i++)
        WaitSema(sem);
    /* The fifth vblank was a few microseconds ago: the next is a frame away. */
    res1 = res2 = 12345;
    a = DisableIntr(IOP_IRQ_VBLANK, &res1);
    b = DisableIntr(IOP_IRQ_VBLANK, &res2);
    printf("intr: %d vblanks: count %d, in interrupt context %d, iSignalSema -> %d, "
           "SignalSema -> %d\n",
           VBLANKS, count, in_context, isignal_result, signal_result);
    printf("intr: DisableIntr -> %d (res %d), again -> %d (res %d)\n", a, res1, b, res2);
    a = ReleaseIntrHandler(IOP_IRQ_VBLANK);
    b = ReleaseIntrHandler(IOP_IRQ_VBLANK);
    printf("intr: ReleaseIntrHandler -> %d, again -> %d\n", a, b);
    printf("intr: DeleteSema -> %d\n", DeleteSema(sem));

    printf("-- done\n");
    return NO_RESIDENT_END;
}
