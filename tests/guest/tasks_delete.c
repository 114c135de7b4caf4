/* tasks_delete: the scheduler's delete stages, through the demo title's own ccTscb scheduler
 * (tasks_common.h says what a frame is), linked by the `build:` line below
 * (tools/build-guest.sh). */
/* build: demo/src/tscb.c demo/src/heap.c */
#include "tasks_common.h"

/* The tasks, in start order (main, before frame 1), each running once a frame (Breath(1)):
 *
 *   task  priority  what happens to it
 *   K      5        deletes V2 in f3 (V2 has been woken by the walk and not run yet)
 *   V1    10        main deletes it at the end of f2 (asleep in Breath); funcI and func print
 *   R     15        returns from its entry after its second run (f3): tscb.c asks its deletion
 *   V2    20        deleted by K while woken; funcI and func print
 *   W     30        lives on
 *   N     12        started by main at the end of f5, after the deletions
 *
 * funcI/tmngI and func/tmng: the callbacks print the record's name and del (tmngI and tmng are
 * the record itself); R, K, W and N have none (NULL: nothing runs).
 *
 * Derivation (the walk's lines, i.e. the callbacks, come first in a frame):
 *
 * f1  walk: all five started in list order; set-ups by priority: K, V1, R, V2, W.
 * f2  walk: all woken. Runs 1 of K, V1, R, V2, W. main, after the line: ccDeleteThread(V1): del 2.
 * f3  walk: K woken; V1 del 2: stage 2: funcI(V1) ("del 2"), TerminateThread, del 3; R, V2, W
 *     woken. Run: K ("run 2", deletes V2: del 2); R ("run 2", returns: tscb.c's thread entry
 *     calls ccDeleteThread on it, del 2, and sleeps in Breath); V2 wakes from its SleepThread,
 *     finds del set and sleeps again without running (Breath: "while sleep or del"); W.
 *     V1 does not run (del). main: V1's thread is dormant (0x10, TerminateThread), R's and
 *     V2's wait (0x04, asleep in Breath).
 * f4  walk: K woken; V1 del 3: stage 3: func(V1) ("del 3"), DeleteThread, unlinked and freed,
 *     the walk goes on with R; R del 2: stage 2 (no funcI), del 3; V2 del 2: stage 2: funcI(V2),
 *     del 3; W woken. Run: K, W. The list: K, R, V2, W. main: R's and V2's threads dormant.
 * f5  walk: K woken; R stage 3 (no func): freed; V2 stage 3: func(V2): freed; W woken.
 *     Run: K, W. The list: K, W. main starts N (appended: sr 1).
 * f6  walk: K, W woken, N started. Run by priority: K (5), N's set-up (12), W (30). The list:
 *     K, W, N. main: ccDeleteThread on all three.
 * f7  walk: stage 2 for K, W, N (no callbacks). Nothing runs.
 * f8  walk: stage 3 for all three: the list is empty, and every record and stack is back in
 *     ccHeap: its free bytes are what ccHeap_InitFirst left, (4096 units - 1 header) * 64 =
 *     262080 (heap.c: 256 KiB in 64-byte units, one free block).
 * The mask of a task asleep in Breath is 0x20 at a frame's end, also once it is terminated
 * (nothing clears it); stackOverFlag stays 0. */

static ccTscb *tK, *tV1, *tR, *tV2, *tW, *tN;

static void stage2(void *arg)
{
    ccTscb *t = arg;
    printf("f%u walk: %s funcI, del %d\n", frame, t->name, t->del);
}

static void stage3(void *arg)
{
    ccTscb *t = arg;
    printf("f%u walk: %s func, del %d\n", frame, t->name, t->del);
}

static void task(void *arg)
{
    ccTscb *t = arg;
    printf("f%u %s: set-up\n", frame, t->name);
    ccTscb_Breath(1);
    for (;;) {
        t->param[1]++;
        printf("f%u %s: run %u", frame, t->name, t->param[1]);
        if (t == tR && t->param[1] == 2) {
            printf(", returns\n");
            return;
        }
        printf("\n");
        if (t == tK && frame == 3) {
            ccDeleteThread(tV2);
            printf("f%u K: delete V2 (del %d)\n", frame, tV2->del);
        }
        ccTscb_Breath(1);
    }
}

static ccTscb *start(s16 prio, const char *name, int callbacks)
{
    ccTscb *t = ccStartThread(task, prio, TASK_STACK, name);
    if (!t) {
        printf("ccStartThread %s failed\n", name);
        Exit(1);
    }
    if (callbacks) {
        t->funcI = stage2;
        t->tmngI = t;
        t->func = stage3;
        t->tmng = t;
    }
    return t;
}

int main(void)
{
    ccHeap_InitFirst();
    printf("f0 main: heap free %u\n", ccHeap_FreeBytes());
    ccInitThread();
    tK = start(5, "K", 0);
    tV1 = start(10, "V1", 1);
    tR = start(15, "R", 0);
    tV2 = start(20, "V2", 1);
    tW = start(30, "W", 0);
    while (frame < 8) {
        run_frame();
        log_list();
        switch (frame) {
        case 2:
            ccDeleteThread(tV1);
            printf("f2 main: delete V1 (del %d)\n", tV1->del);
            break;
        case 3:
            printf("f3 main: thread status V1 %x, R %x, V2 %x\n", status(tV1), status(tR),
                   status(tV2));
            break;
        case 4:
            printf("f4 main: thread status R %x, V2 %x\n", status(tR), status(tV2));
            break;
        case 5:
            tN = start(12, "N", 0);
            printf("f5 main: started N\n");
            break;
        case 6:
            ccDeleteThread(tK);
            ccDeleteThread(tW);
            ccDeleteThread(tN);
            printf("f6 main: delete K W N\n");
            break;
        default:
            break;
        }
    }
    printf("f8 main: heap free %u\n", ccHeap_FreeBytes());
    printf("done\n");
    return 0;
}
