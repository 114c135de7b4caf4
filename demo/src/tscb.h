/* tscb.h: the engine's tasks. Each task is a kernel thread described by a ccTscb record
 * (the reference's 0x54-byte layout, checked below), kept in one linked list that the
 * ccThControl task walks once a frame (engine reference, "Tasks"). */
#ifndef DEMO_TSCB_H
#define DEMO_TSCB_H

#include "piney_rt.h"

/* ccTscb.mask bits. */
#define TSCB_SUSPENDED 0x08 /* SuspendThread'ed; ccThControl resumes it on its next walk */
#define TSCB_BREATH 0x20    /* asleep in ccTscb::Breath */

/* ccTscb.del stages: 2 runs funcI(tmngI) and terminates the thread, 3 deletes and frees it. */
#define TSCB_DEL_TERMINATE 2
#define TSCB_DEL_FREE 3

typedef struct ccTscb ccTscb;
typedef void (*ccTaskFunc)(void *);

struct ccTscb {
    ccTaskFunc entry;    /* +0x00 the task's code, called with the ccTscb itself */
    s16 tid;             /* +0x04 the kernel thread id (0 before the start request is served) */
    s16 priority;        /* +0x06 the kernel priority (0 highest) */
    volatile s16 sleep;  /* +0x08 holds the task asleep while non-zero */
    volatile s8 sr;      /* +0x0a start request: ccThControl creates and starts the thread */
    volatile s8 del;     /* +0x0b delete stage */
    u32 size;            /* +0x0c stack size in bytes */
    volatile u32 mask;   /* +0x10 TSCB_SUSPENDED, TSCB_BREATH */
    u32 param[8];        /* +0x14 the task's own words */
    ccTscb *link;        /* +0x34 next in the list */
    const char *name;    /* +0x38 */
    void *tmng;          /* +0x3c argument of func, the cleanup run at stage 3 */
    ccTaskFunc func;     /* +0x40 cleanup callback (may be NULL) */
    void *tmngI;         /* +0x44 argument of funcI, run at stage 2 */
    ccTaskFunc funcI;    /* +0x48 delete-stage-2 callback (may be NULL) */
    void *stack;         /* +0x4c bottom of the stack (from ccHeap) */
    u16 t0count;         /* +0x50 EE Timer 0 when the task last entered Breath */
    u16 stackOverFlag;   /* +0x52 1 once the stack's guard word was found overwritten */
};

_Static_assert(sizeof(ccTscb) == 0x54, "ccTscb is 0x54 bytes");
_Static_assert(__builtin_offsetof(ccTscb, tid) == 0x04, "tid");
_Static_assert(__builtin_offsetof(ccTscb, priority) == 0x06, "priority");
_Static_assert(__builtin_offsetof(ccTscb, sleep) == 0x08, "sleep");
_Static_assert(__builtin_offsetof(ccTscb, sr) == 0x0a, "sr");
_Static_assert(__builtin_offsetof(ccTscb, del) == 0x0b, "del");
_Static_assert(__builtin_offsetof(ccTscb, size) == 0x0c, "size");
_Static_assert(__builtin_offsetof(ccTscb, mask) == 0x10, "mask");
_Static_assert(__builtin_offsetof(ccTscb, param) == 0x14, "param");
_Static_assert(__builtin_offsetof(ccTscb, link) == 0x34, "link");
_Static_assert(__builtin_offsetof(ccTscb, name) == 0x38, "name");
_Static_assert(__builtin_offsetof(ccTscb, tmng) == 0x3c, "tmng");
_Static_assert(__builtin_offsetof(ccTscb, func) == 0x40, "func");
_Static_assert(__builtin_offsetof(ccTscb, tmngI) == 0x44, "tmngI");
_Static_assert(__builtin_offsetof(ccTscb, funcI) == 0x48, "funcI");
_Static_assert(__builtin_offsetof(ccTscb, stack) == 0x4c, "stack");
_Static_assert(__builtin_offsetof(ccTscb, t0count) == 0x50, "t0count");
_Static_assert(__builtin_offsetof(ccTscb, stackOverFlag) == 0x52, "stackOverFlag");

/* The list head (the first task started) and ccThControl's thread id. */
extern ccTscb *tscbTop;
extern s32 tscbCtrl;
/* main's thread id: ccThControl wakes it after its walk. */
extern s32 tscbMain;

/* Kernel priorities (0 highest). The reference's INF table gives ccLoadDispTh 17, ccThSaveSys 20
   and ccThGameOver 33, none of which the demo has; the demo's are chosen in the same spirit:
   the controller first, main (ccSystem::Ctrl) after every task, and ccPadThread after the
   tasks that call SetActuater, so that ccPad::Ctrl sees a new entry in the frame it was queued
   with its whole time (a 100 ms hit is 6 vblanks, the least ccPad::Ctrl sends). */
#define PRIO_THCONTROL 1
#define PRIO_PADTHREAD 60
#define PRIO_THMOTHER 10
#define PRIO_THMENU 16
#define PRIO_THTICKER 33
#define PRIO_THSCENE 40
#define PRIO_THLAYER 48
#define PRIO_MAIN 120

/* ccThControl's thread, and one walk of the list (its body once a frame). */
void ccThControl(void *arg);
void ccThControl_Walk(void);
/* ccInitThread: the list, ccThControl's thread, main's priority. */
void ccInitThread(void);
/* ccStartThread: a new task (record and stack from ccHeap) with a start request; it runs from
   the next ccThControl walk. */
ccTscb *ccStartThread(ccTaskFunc entry, s16 priority, u32 stack_size, const char *name);
/* ccTscb::GoThread: CreateThread + StartThread (ccThControl serves the start request with it). */
void ccTscb_GoThread(ccTscb *t);
/* ccTscb::Breath(n): sleep through n wake-ups, then while sleep or del is set. */
void ccTscb_Breath(s32 n);
/* Ask for a task's deletion (stage 2 on the next walk). */
void ccDeleteThread(ccTscb *t);
/* Suspend a task until the next walk resumes it. */
void ccSuspendThread(ccTscb *t);
/* The calling task's record (NULL for main or ccThControl). */
ccTscb *ccGetTscb(void);
/* Number of tasks in the list. */
s32 ccThreadCount(void);

#endif
