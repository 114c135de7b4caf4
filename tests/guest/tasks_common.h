/* tasks_common.h: what the scheduler programs tests/guest/tasks_*.c share. They link the demo
 * title's own scheduler (demo/src/tscb.c and heap.c, through their `build:` line), so that the
 * emulated scheduler and piney's native one (hooked by symbol: ccThControl, ccThControl_Walk,
 * ccTscb_Breath, ccTscb_GoThread) are held to the same expected output.
 *
 * Each program drives the scheduler as the engine's main loop does (engine reference, "Boot"):
 *
 *     ccInitThread(); ccStartThread(...)...;
 *     for (each frame) { WakeupThread(tscbCtrl); SleepThread(); log }
 *
 * What one frame is, from the reference ("Tasks") and tscb.c:
 * - main (priority 120, PRIO_MAIN) wakes ccThControl (priority 1), which runs at once: its walk
 *   goes along the list once, in list (= start) order: a start request (sr) becomes a kernel
 *   thread (CreateThread + StartThread); del stage 2 runs funcI(tmngI), terminates the thread and
 *   sets del 3; stage 3 runs func(tmng), deletes the thread, unlinks the record and frees it and
 *   its stack; otherwise a suspended task (mask 0x08) is resumed and a task in Breath (mask 0x20)
 *   with sleep 0 is woken. Then it wakes main (main is ready, not sleeping: the wakeup is
 *   counted) and sleeps. The walk's own output (the callbacks) so comes first in a frame.
 * - Then the ready tasks run in kernel priority order, lowest number first, equal priorities in
 *   the order they became ready (the walk's, i.e. list order), each up to its next Breath.
 * - main last: its SleepThread takes the counted wakeup and returns at once; it logs the frame.
 * Nothing here depends on time (no V-blank wait), so a native function taking fewer cycles than
 * the guest code it replaces changes nothing printed; t0count is never printed. */
#ifndef TASKS_COMMON_H
#define TASKS_COMMON_H

#include "../../demo/src/heap.h"
#include "../../demo/src/tscb.h"
#include "piney_sys.h"

/* The frame main is in: 1 during the first walk and the tasks it wakes. */
static volatile u32 frame;

/* Stack size of every task (the runtime's printf needs well under 1 KiB). */
#define TASK_STACK 4096

/* One frame: the engine's `WakeupThread(tscbCtrl); SleepThread();`. */
static inline void run_frame(void)
{
    frame++;
    WakeupThread(tscbCtrl);
    SleepThread();
}

/* ReferThreadStatus's status bits for a task's kernel thread. */
static inline u32 status(ccTscb *t)
{
    ee_thread_status_t st;
    memset(&st, 0, sizeof st);
    return (u32)ReferThreadStatus(t->tid, &st);
}

/* main's line at the end of a frame: the task count (ccThreadCount), the list in its order with
   each task's mask and del, and the OR of every task's stackOverFlag. */
static inline void log_list(void)
{
    u32 over = 0;
    printf("f%u end: %d tasks:", frame, (int)ccThreadCount());
    for (ccTscb *t = tscbTop; t; t = t->link) {
        printf("%s %s m%x d%d", t == tscbTop ? "" : ",", t->name, t->mask, t->del);
        over |= t->stackOverFlag;
    }
    printf("; stackOverFlag %u\n", over);
}

#endif
