/* tscb.c: the task scheduler as the engine reference describes it ("Tasks").
 *
 * A frame: main (lowest priority) wakes ccThControl (highest) and sleeps. ccThControl walks the
 * list once: it serves start requests, runs the delete stages, resumes suspended tasks and wakes
 * the ones waiting in Breath with sleep 0; then it wakes main and sleeps. The kernel then runs
 * the woken tasks in priority order (lowest number first; equal priorities in the order they
 * became ready, i.e. list order), each until its next Breath, and main last: ccSystem::Ctrl. */
#include "tscb.h"
#include "heap.h"
#include "hw.h"
#include "piney_sys.h"

extern char _gp[];

ccTscb *tscbTop;
s32 tscbCtrl;
s32 tscbMain;

/* Written at the bottom of each task stack; found changed, the task's stackOverFlag is set. */
#define STACK_GUARD 0x57ac6b0au

static u8 ctrlStack[16 * 1024] __attribute__((aligned(64)));

/* A stage-2 or stage-3 callback. The reference lists tmng/func (and tmngI/funcI) as "callback
   and argument" but says the walk "runs funcI"; the demo takes func/funcI as the functions and
   tmng/tmngI as their arguments. */
static void run_callback(ccTaskFunc f, void *arg)
{
    if (f)
        f(arg);
}

/* One walk of the list (ccThControl's body). Stage 2 and stage 3 happen on consecutive walks. */
HOOKABLE void ccThControl_Walk(void)
{
    ccTscb **pp = &tscbTop;
    while (*pp) {
        ccTscb *t = *pp;
        if (t->sr) {
            /* Start request: the thread starts and runs its set-up up to its first Breath. */
            t->sr = 0;
            ccTscb_GoThread(t);
        } else if (t->del == TSCB_DEL_TERMINATE) {
            run_callback(t->funcI, t->tmngI);
            TerminateThread(t->tid);
            t->del = TSCB_DEL_FREE;
        } else if (t->del == TSCB_DEL_FREE) {
            run_callback(t->func, t->tmng);
            DeleteThread(t->tid);
            *pp = t->link;
            ccHeap_Free(t->stack);
            ccHeap_Free(t);
            continue;
        } else {
            if (t->mask & TSCB_SUSPENDED) {
                ResumeThread(t->tid);
                t->mask &= ~TSCB_SUSPENDED;
            }
            if ((t->mask & TSCB_BREATH) && t->sleep == 0)
                WakeupThread(t->tid);
        }
        if (t->stack && *(volatile u32 *)t->stack != STACK_GUARD)
            t->stackOverFlag = 1;
        pp = &t->link;
    }
}

HOOKABLE void ccThControl(void *arg)
{
    (void)arg;
    for (;;) {
        SleepThread(); /* main's WakeupThread(tscbCtrl), once a frame */
        ccThControl_Walk();
        /* main has the lowest priority: it runs (ccSystem::Ctrl) once every woken task has
           reached its next Breath. */
        WakeupThread(tscbMain);
    }
}

static s32 create_thread(void (*func)(void *), void *stack, u32 size, s32 prio)
{
    ee_thread_t th;
    memset(&th, 0, sizeof th);
    th.func = (void *)func;
    th.stack = stack;
    th.stack_size = (int)size;
    th.gp_reg = _gp;
    th.initial_priority = prio;
    return CreateThread(&th);
}

void ccInitThread(void)
{
    tscbTop = NULL;
    tscbMain = GetThreadId();
    ChangeThreadPriority(tscbMain, PRIO_MAIN);
    tscbCtrl = create_thread(ccThControl, ctrlStack, sizeof ctrlStack, PRIO_THCONTROL);
    StartThread(tscbCtrl, NULL); /* runs at once and sleeps until the first frame */
}

ccTscb *ccStartThread(ccTaskFunc entry, s16 priority, u32 stack_size, const char *name)
{
    ccTscb *t = ccHeap_Alloc(sizeof *t);
    void *stack = ccHeap_Alloc(stack_size);
    if (!t || !stack) {
        printf("ccStartThread %s: out of heap\n", name);
        ccHeap_Free(t);
        ccHeap_Free(stack);
        return NULL;
    }
    memset(t, 0, sizeof *t);
    t->entry = entry;
    t->priority = priority;
    t->size = stack_size;
    t->stack = stack;
    t->name = name;
    t->sr = 1;
    /* Appended, so the walk (and equal priorities) go in start order. */
    ccTscb **pp = &tscbTop;
    while (*pp)
        pp = &(*pp)->link;
    *pp = t;
    return t;
}

/* Every task's thread starts here: the task's code, and when it returns, its deletion. */
static void tscb_entry(void *arg)
{
    ccTscb *t = arg;
    t->entry(t);
    ccDeleteThread(t);
    for (;;)
        ccTscb_Breath(1);
}

HOOKABLE void ccTscb_GoThread(ccTscb *t)
{
    *(u32 *)t->stack = STACK_GUARD;
    s32 tid = create_thread(tscb_entry, t->stack, t->size, t->priority);
    if (tid < 0) {
        printf("GoThread %s: CreateThread failed (%d)\n", t->name, (int)tid);
        t->del = TSCB_DEL_FREE;
        return;
    }
    t->tid = (s16)tid;
    StartThread(tid, t);
}

ccTscb *ccGetTscb(void)
{
    s32 me = GetThreadId();
    for (ccTscb *t = tscbTop; t; t = t->link)
        if (t->tid == me)
            return t;
    return NULL;
}

HOOKABLE void ccTscb_Breath(s32 n)
{
    ccTscb *t = ccGetTscb();
    if (!t) {
        printf("Breath outside a task (thread %d)\n", (int)GetThreadId());
        return;
    }
    t->t0count = (u16)REG32(T0_COUNT);
    t->mask |= TSCB_BREATH;
    do
        SleepThread();
    while (--n > 0);
    while (t->sleep || t->del)
        SleepThread();
    t->mask &= ~TSCB_BREATH;
}

void ccDeleteThread(ccTscb *t)
{
    if (t && !t->del)
        t->del = TSCB_DEL_TERMINATE;
}

void ccSuspendThread(ccTscb *t)
{
    if (!t || t->tid <= 0 || (t->mask & TSCB_SUSPENDED))
        return;
    t->mask |= TSCB_SUSPENDED;
    SuspendThread(t->tid);
}

s32 ccThreadCount(void)
{
    s32 n = 0;
    for (ccTscb *t = tscbTop; t; t = t->link)
        n++;
    return n;
}
