/* tasks_order: the scheduler's start requests, priority order, Breath(n) and the sleep field,
 * through the demo title's own ccTscb scheduler (tasks_common.h says what a frame is), linked
 * by the `build:` line below (tools/build-guest.sh). */
/* build: demo/src/tscb.c demo/src/heap.c */
#include "tasks_common.h"

/* The tasks, in start order C, A, B1, B2 (main, before frame 1), then D (A, in frame 2):
 *
 *   task  priority  after its run, Breath(n)   what else
 *   C     30        2                           main holds it with sleep at the end of f5..f7
 *   A     10        1                           starts D in f2; main holds it asleep f3..f5
 *   B1    20        1                           D sets its sleep in f4 (after the walk woke it)
 *   B2    20        3                           started after B1: runs after it
 *   D      5        1                           started by A in f2: set-up in f3
 *
 * Every task prints "set-up" and calls Breath(1) (its first frame), then prints "run" and calls
 * Breath(n) (n from the table) in a loop.
 *
 * Derivation, frame by frame (W: the walk wakes it; "-" it does not):
 *
 * f1  walk: C, A, B1, B2 have sr: each started in list order; none runs yet (ccThControl has
 *     priority 1). Then by priority: A (10), B1 (20), B2 (20, ready after B1), C (30), each
 *     printing its set-up and sleeping in Breath(1) (mask 0x20).
 * f2  walk: W C, A, B1, B2 (all in Breath, sleep 0). A runs: "run", and ccStartThread(D): D is
 *     appended with sr 1 (mask 0, not started). B1, B2, C run (B2 then Breath(3), C Breath(2)).
 *     D, priority 5, does not run: its request waits for the next walk.
 * f3  walk: C W (Breath(2): first wake-up, sleeps again), A W, B1 W, B2 W (first of 3),
 *     D: sr -> started. Run: D (5) set-up first, A, B1; B2 and C wake and sleep again silently.
 *     main, after the line: A->sleep = 1.
 * f4  walk: C W (second wake-up: Breath(2) returns), A - (sleep 1), B1 W, B2 W (second of 3),
 *     D W. Run: D: "run", sets B1->sleep = 1; B1 (woken, not yet run) returns from its
 *     SleepThread, finds sleep set and sleeps again: no output (Breath's "while sleep or del");
 *     B2 silent; C: "run".
 * f5  walk: C W (first of 2), A -, B1 - (sleep 1), B2 W (third: runs), D W. Run: D, B2, C silent.
 *     main, after the line: A->sleep = 0, C->sleep = 1.
 * f6  walk: C - (sleep 1: its count of wake-ups stays at one), A W, B1 -, B2 W (first of 3),
 *     D W. Run: D: "run", B1->sleep = 0 (after the walk: B1 stays asleep this frame); A: "run".
 * f7  walk: C -, A W, B1 W, B2 W (second), D W. Run: D, A, B1 ("run": out of the sleep loop).
 *     main, after the line: C->sleep = 0.
 * f8  walk: C W (its second wake-up: runs), A W, B1 W, B2 W (third: runs), D W.
 *     Run: D, A, B1, B2, C.
 * f9  walk: C W (first of 2), A W, B1 W, B2 W (first of 3), D W. Run: D, A, B1.
 * f10 walk: C W (second: runs), A W, B1 W, B2 W (second), D W. Run: D, A, B1, C.
 * Then main returns 0. The list keeps start order (C A B1 B2 D) throughout; every task's mask
 * is 0x20 at a frame's end (asleep in Breath) but D's in f2 (0: not started); del and
 * stackOverFlag stay 0. */

static ccTscb *tA, *tB1, *tB2, *tC, *tD;

static ccTscb *start(s16 prio, const char *name, u32 n);

/* The shared body: set-up, then a run per wake-up of Breath(param[0]). */
static void task_body(ccTscb *t)
{
    printf("f%u %s: set-up\n", frame, t->name);
    ccTscb_Breath(1);
    for (;;) {
        printf("f%u %s: run\n", frame, t->name);
        if (t == tA && frame == 2) {
            tD = start(5, "D", 1);
            printf("f%u A: started D (sr %d)\n", frame, tD->sr);
        }
        if (t == tD && frame == 4) {
            tB1->sleep = 1;
            printf("f%u D: B1 sleep 1\n", frame);
        }
        if (t == tD && frame == 6) {
            tB1->sleep = 0;
            printf("f%u D: B1 sleep 0\n", frame);
        }
        ccTscb_Breath((s32)t->param[0]);
    }
}

static void task(void *arg) { task_body(arg); }

static ccTscb *start(s16 prio, const char *name, u32 n)
{
    ccTscb *t = ccStartThread(task, prio, TASK_STACK, name);
    if (!t) {
        printf("ccStartThread %s failed\n", name);
        Exit(1);
    }
    t->param[0] = n;
    return t;
}

int main(void)
{
    ccHeap_InitFirst();
    ccInitThread();
    tC = start(30, "C", 2);
    tA = start(10, "A", 1);
    tB1 = start(20, "B1", 1);
    tB2 = start(20, "B2", 3);
    printf("f0 main: started C A B1 B2, %d tasks\n", (int)ccThreadCount());
    while (frame < 10) {
        run_frame();
        log_list();
        if (frame == 3) {
            tA->sleep = 1;
            printf("f3 main: A sleep 1\n");
        }
        if (frame == 5) {
            tA->sleep = 0;
            tC->sleep = 1;
            printf("f5 main: A sleep 0, C sleep 1\n");
        }
        if (frame == 7) {
            tC->sleep = 0;
            printf("f7 main: C sleep 0\n");
        }
    }
    printf("done\n");
    return 0;
}
