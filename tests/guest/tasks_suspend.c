/* tasks_suspend: ccSuspendThread and the walk's resume, through the demo title's own ccTscb
 * scheduler (tasks_common.h says what a frame is), linked by the `build:` line below
 * (tools/build-guest.sh). */
/* build: demo/src/tscb.c demo/src/heap.c */
#include "tasks_common.h"

/* The tasks, in start order (main, before frame 1), each running once a frame (Breath(1)):
 * S (priority 5), X (10), Y (20), Z (30). Each run prints the task's count of runs.
 *
 * ccSuspendThread(t) sets mask 0x08 and calls SuspendThread; the next walk calls ResumeThread
 * and clears the bit, and then (tscb.c: a separate test, as the reference lists "resumes it if
 * suspended; wakes it if it is in Breath and sleep is 0") wakes it if it is in Breath with
 * sleep 0. What that does depends on where the task was when it was suspended:
 *
 * - Asleep in Breath (X, suspended by main at the end of f2, after its run): the kernel thread
 *   waits and is suspended (ReferThreadStatus 0x0c, WAIT | SUSPEND). The f3 walk resumes it
 *   (still waiting) and wakes it: it runs in f3 as if nothing happened.
 * - Woken by the walk but not run yet (Y, suspended by S, priority 5, in f4): the thread is
 *   ready and suspended (0x08): it does not run in f4. The f5 walk resumes it (ready again) and
 *   then calls WakeupThread on a thread that is not sleeping, which the kernel counts. Y then
 *   runs from the f4 wake-up, and its next Breath(1)'s SleepThread takes the counted wake-up
 *   and returns at once: Y runs twice in f5 (runs 3 and 4), once a frame after.
 * - Suspended and deleted (Z, suspended by S in f6 after the walk woke it, deleted by main at
 *   the end of f6): the f7 walk takes the del branch first (stage 2: TerminateThread, del 3),
 *   so the mask keeps 0x28; the thread is dormant (0x10). f8: stage 3, unlinked.
 *
 * Derivation:
 * f1  set-ups S, X, Y, Z (priority order).
 * f2  runs 1 of S, X, Y, Z. main: ccSuspendThread(X): mask 0x28, thread status 0xc.
 * f3  walk resumes and wakes X. Runs 2 of S, X, Y, Z.
 * f4  S: run 3, ccSuspendThread(Y): mask 0x28. X: run 3. Y: nothing. Z: run 3.
 *     The list shows Y m28. main: Y's thread status 0x8.
 * f5  S 4, X 4, Y 3 and Y 4, Z 4.
 * f6  S 5, ccSuspendThread(Z): mask 0x28; X 5, Y 5; Z nothing. main: ccDeleteThread(Z): del 2.
 * f7  walk: Z stage 2 (no funcI), del 3. S 6, X 6, Y 6. The list: Z m28 d3. main: Z's thread
 *     status 0x10.
 * f8  walk: Z stage 3: 3 tasks. S 7, X 7, Y 7.
 * stackOverFlag stays 0. */

static ccTscb *tS, *tX, *tY, *tZ;

static void task(void *arg)
{
    ccTscb *t = arg;
    printf("f%u %s: set-up\n", frame, t->name);
    ccTscb_Breath(1);
    for (;;) {
        t->param[1]++;
        printf("f%u %s: run %u\n", frame, t->name, t->param[1]);
        if (t == tS && (frame == 4 || frame == 6)) {
            ccTscb *v = frame == 4 ? tY : tZ;
            ccSuspendThread(v);
            printf("f%u S: suspend %s, mask %x\n", frame, v->name, v->mask);
        }
        ccTscb_Breath(1);
    }
}

static ccTscb *start(s16 prio, const char *name)
{
    ccTscb *t = ccStartThread(task, prio, TASK_STACK, name);
    if (!t) {
        printf("ccStartThread %s failed\n", name);
        Exit(1);
    }
    return t;
}

int main(void)
{
    ccHeap_InitFirst();
    ccInitThread();
    tS = start(5, "S");
    tX = start(10, "X");
    tY = start(20, "Y");
    tZ = start(30, "Z");
    while (frame < 8) {
        run_frame();
        log_list();
        switch (frame) {
        case 2:
            ccSuspendThread(tX);
            printf("f2 main: suspend X, mask %x, thread status %x\n", tX->mask, status(tX));
            break;
        case 4:
            printf("f4 main: Y thread status %x\n", status(tY));
            break;
        case 6:
            ccDeleteThread(tZ);
            printf("f6 main: delete Z (del %d)\n", tZ->del);
            break;
        case 7:
            printf("f7 main: Z thread status %x\n", status(tZ));
            break;
        default:
            break;
        }
    }
    printf("done\n");
    return 0;
}
