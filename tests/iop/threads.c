/* threads.c: thbase's threads: creation errors, preemption by priority, FIFO order among equal
 * priorities, ChangeThreadPriority, RotateThreadReadyQueue, SleepThread/WakeupThread (with the
 * wakeup count), DelayThread, ReferThreadStatus, ExitThread, TerminateThread, DeleteThread and
 * restarting a dormant thread.
 *
 * The rules used (the console's thread manager): the highest-priority ready thread runs (lower
 * number = higher priority); a thread made ready by the running one (StartThread, WakeupThread,
 * a priority change) preempts it at once when its priority is strictly higher, the preempted
 * thread going back to the FRONT of its priority's ready queue; otherwise the readied thread
 * goes to the BACK of its queue. A thread that gives up the CPU on its own (ChangeThreadPriority
 * of itself to a priority not higher than the best ready one, RotateThreadReadyQueue) goes to
 * the BACK of its queue. A thread whose entry returns exits (ExitThread). Thread ids are never
 * printed (they are kernel addresses), only compared.
 *
 * main is the module's start thread, priority 8. The other threads: HI (6), A and B (10), D (6).
 * The order of the lines is derived in the comments (ready queues written [front, ..., back]).
 */
#include "irx.h"

IRX_ID("threads", 1, 1);

static int main_id, id_a, id_b, id_d, id_hi;

static const char *ok(int cond)
{
    return cond ? "OK" : "FAIL";
}

static int status_of(int thid)
{
    iop_thread_info_t info;
    int r = ReferThreadStatus(thid, &info);
    return r < 0 ? r : info.status;
}

static int create(void (*entry)(void *), int priority, u32 option)
{
    iop_thread_t t;
    t.attr = TH_C;
    t.option = option;
    t.thread = entry;
    t.stacksize = 0x800;
    t.priority = priority;
    return CreateThread(&t);
}

static void hi_entry(void *arg)
{
    /* Started by main (8) with priority 6: runs at once, main waits in the ready queue. */
    printf("HI: running, arg %d, main's status %d\n", (int)arg, status_of(main_id));
}

static void a_entry(void *arg)
{
    int r;
    if ((int)arg == 2) {
        /* The second start (step 8). */
        printf("A: restarted with arg 2, exiting\n");
        ExitThread();
        printf("A: FAIL, ExitThread returned\n");
        return;
    }
    printf("A: first run, id %s\n", ok(GetThreadId() == id_a));
    /* Step 3: ready 10 = [B, main]; A goes to the back: [B, main, A]; B runs. */
    r = RotateThreadReadyQueue(0);
    /* Step 4: back here when main sleeps (ready 10 = [A, B] -> A runs, [B]). */
    printf("A: RotateThreadReadyQueue -> %d\n", r);
    /* main (8) wakes and preempts A at once; A goes to the front: ready 10 = [A, B]. */
    r = WakeupThread(main_id);
    /* Step 6: main lowered itself to 11; A runs first (front). */
    printf("A: WakeupThread(main) -> %d, now sleeping\n", r);
    /* A's wakeup count is 0: A sleeps; ready 10 = [B] -> B runs. main terminates A (step 7). */
    SleepThread();
    printf("A: FAIL, woke from SleepThread\n");
}

static void b_entry(void *arg)
{
    int r;
    (void)arg;
    printf("B: first run\n");
    /* Step 3: ready 10 = [main, A]; B goes to the back: [main, A, B]; main runs. */
    r = RotateThreadReadyQueue(0);
    /* Step 6: after A sleeps. */
    printf("B: RotateThreadReadyQueue -> %d\n", r);
    /* main's WakeupThread(B) of step 5 found B ready: B's wakeup count is 1, so this sleep
       returns at once (count back to 0). */
    r = SleepThread();
    printf("B: SleepThread -> %d at once, exiting by return\n", r);
}

static void d_entry(void *arg)
{
    (void)arg;
    /* Priority 6: runs as soon as main starts it, then waits 10 ms; main terminates it before
       the delay ends, so the next line never prints. */
    DelayThread(10000);
    printf("D: FAIL, woke after being terminated\n");
}

static void nop_entry(void *arg)
{
    (void)arg;
}

int _start(int argc, char **argv)
{
    iop_thread_t t;
    iop_thread_info_t info;
    int r, r2, r3, r4;
    (void)argc;
    (void)argv;

    main_id = GetThreadId();
    printf("threads: main id %s\n", ok(main_id > 0));

    /* Step 0: CreateThread's checks, one fault each. */
    t.attr = TH_C;
    t.option = 0;
    t.thread = nop_entry;
    t.stacksize = 0x800;
    t.priority = 127;
    r = CreateThread(&t);
    t.priority = 20;
    t.stacksize = 0x100;
    r2 = CreateThread(&t);
    t.stacksize = 0x800;
    t.attr = 0x80;
    r3 = CreateThread(&t);
    t.attr = TH_C;
    t.thread = (void (*)(void *))((u32)nop_entry + 2);
    r4 = CreateThread(&t);
    printf("CreateThread: priority 127 -> %d, stack 0x100 -> %d, attr 0x80 -> %d, entry+2 -> %d\n",
           r, r2, r3, r4);

    /* Step 1: HI (6) preempts main inside StartThread, prints, returns (exits). */
    id_hi = create(hi_entry, 6, 0);
    r = StartThread(id_hi, (void *)42);
    printf("main: StartThread(HI) -> %d, HI's status 0x%x\n", r, status_of(id_hi));
    printf("main: DeleteThread(HI) -> %d\n", DeleteThread(id_hi));

    /* Step 2: A and B (10) become ready behind main (8): ready 10 = [A, B]. */
    id_a = create(a_entry, 10, 0xa);
    id_b = create(b_entry, 10, 0xb);
    r = StartThread(id_a, 0);
    r2 = StartThread(id_b, 0);
    printf("main: started A -> %d, B -> %d, A's status %d\n", r, r2, status_of(id_a));

    /* Step 3: main drops to 10, not higher than the best ready (10): to the back,
       ready 10 = [A, B, main]; A runs ("A: first run"), rotates to B ("B: first run"), B
       rotates back to main: ready 10 = [A, B]. */
    r = ChangeThreadPriority(TH_SELF, 10);
    printf("main: back from ChangeThreadPriority(10) -> %d\n", r);
    /* 8 is higher than any ready thread: main keeps running. */
    r = ChangeThreadPriority(TH_SELF, 8);
    printf("main: ChangeThreadPriority(8) -> %d\n", r);

    r = ReferThreadStatus(id_a, &info);
    printf("main: A: refer %d status %d prio %d/%d attr 0x%x option 0x%x stack 0x%x entry %s wait %d\n",
           r, info.status, info.currentPriority, info.initPriority, info.attr, info.option,
           info.stackSize, ok(info.entry == (void *)a_entry), info.waitType);
    r = ReferThreadStatus(TH_SELF, &info);
    printf("main: self: refer %d status %d prio %d\n", r, info.status, info.currentPriority);

    /* Step 4: main sleeps; A runs ("A: RotateThreadReadyQueue -> 0") and wakes main, which
       preempts it. */
    r = SleepThread();
    printf("main: woken, SleepThread -> %d\n", r);

    /* Step 5: B is ready, not sleeping: the wakeup is counted. */
    r = WakeupThread(id_b);
    ReferThreadStatus(id_b, &info);
    printf("main: WakeupThread(B) -> %d, B's wakeup count %d\n", r, info.wakeupCount);
    printf("main: WakeupThread(0) -> %d\n", WakeupThread(0));

    /* Step 6: main drops to 11, below A and B: ready 10 = [A, B], 11 = [main]. A runs
       ("A: WakeupThread(main) -> 0, now sleeping") and sleeps; B runs
       ("B: RotateThreadReadyQueue -> 0", "B: SleepThread -> 0 at once ...") and returns;
       then main, the only ready thread. */
    r = ChangeThreadPriority(TH_SELF, 11);
    r2 = ChangeThreadPriority(TH_SELF, 8);
    printf("main: ChangeThreadPriority(11) -> %d, (8) -> %d\n", r, r2);
    ReferThreadStatus(id_a, &info);
    printf("main: A's status %d wait type %d, B's status 0x%x\n", info.status, info.waitType,
           status_of(id_b));

    /* Step 7: error codes (none of these three changes anything, so their order of evaluation
       does not matter), then A terminated while sleeping, B deleted. */
    printf("main: StartThread(A) -> %d, DeleteThread(A) -> %d, TerminateThread(B) -> %d\n",
           StartThread(id_a, 0), DeleteThread(id_a), TerminateThread(id_b));
    r = TerminateThread(id_a);
    printf("main: TerminateThread(A) -> %d, A's status 0x%x\n", r, status_of(id_a));
    r = DeleteThread(id_b);
    printf("main: DeleteThread(B) -> %d, then ReferThreadStatus(B) -> %d\n", r, status_of(id_b));

    /* Step 8: A restarted (dormant -> ready, 10 < 8: no preemption); main yields by dropping
       to 11: A prints and exits; main again. */
    r = StartThread(id_a, (void *)2);
    printf("main: StartThread(A, 2) -> %d\n", r);
    ChangeThreadPriority(TH_SELF, 11);
    ChangeThreadPriority(TH_SELF, 8);
    r = status_of(id_a);
    r2 = DeleteThread(id_a);
    printf("main: A's status 0x%x, DeleteThread(A) -> %d\n", r, r2);

    /* Step 9: D (6) runs at once and waits in DelayThread; main sees it waiting (type 2,
       TSW_DELAY), terminates it (cancelling its delay), waits 20 ms: D never runs again. */
    id_d = create(d_entry, 6, 0);
    StartThread(id_d, 0);
    ReferThreadStatus(id_d, &info);
    printf("main: D's status %d wait type %d\n", info.status, info.waitType);
    r = TerminateThread(id_d);
    r2 = DelayThread(20000);
    printf("main: TerminateThread(D) -> %d, DelayThread -> %d, D's status 0x%x\n", r, r2,
           status_of(id_d));
    printf("main: DeleteThread(D) -> %d\n", DeleteThread(id_d));

    printf("-- done\n");
    return NO_RESIDENT_END;
}
