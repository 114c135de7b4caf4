/* piney_sys.h: PS2 EE kernel syscalls for piney's guest programs.
 *
 * Numbers are the BIOS syscall numbers as ps2sdk's syscallnr.h lists them;
 * the i-variants (interrupt context) are called with the negated number.
 * Convention (ps2sdk): number in $v1, arguments in $a0-$a3 then $t0-$t1,
 * `syscall`, result in $v0. The kernel may clobber the temporaries, so the
 * wrappers list every caller-saved register that is not an operand. */
#ifndef PINEY_SYS_H
#define PINEY_SYS_H

#include "piney_rt.h"

#define SYS_Exit                   4
#define SYS_AddIntcHandler         0x10
#define SYS_RemoveIntcHandler      0x11
#define SYS_AddDmacHandler         0x12
#define SYS_RemoveDmacHandler      0x13
#define SYS_EnableIntc             0x14
#define SYS_DisableIntc            0x15
#define SYS_EnableDmac             0x16
#define SYS_DisableDmac            0x17
#define SYS_SetAlarm               0x18
#define SYS_ReleaseAlarm           0x19
#define SYS_iEnableIntc            (-0x1a)
#define SYS_iDisableIntc           (-0x1b)
#define SYS_iSetAlarm              (-0x1e)
#define SYS_iReleaseAlarm          (-0x1f)
#define SYS_CreateThread           0x20
#define SYS_DeleteThread           0x21
#define SYS_StartThread            0x22
#define SYS_ExitThread             0x23
#define SYS_ExitDeleteThread       0x24
#define SYS_TerminateThread        0x25
#define SYS_iTerminateThread       (-0x26)
#define SYS_ChangeThreadPriority   0x29
#define SYS_iChangeThreadPriority  (-0x2a)
#define SYS_RotateThreadReadyQueue 0x2b
#define SYS_iRotateThreadReadyQueue (-0x2c)
#define SYS_ReleaseWaitThread      0x2d
#define SYS_iReleaseWaitThread     (-0x2e)
#define SYS_GetThreadId            0x2f
#define SYS_ReferThreadStatus      0x30
#define SYS_iReferThreadStatus     (-0x31)
#define SYS_SleepThread            0x32
#define SYS_WakeupThread           0x33
#define SYS_iWakeupThread          (-0x34)
#define SYS_CancelWakeupThread     0x35
#define SYS_iCancelWakeupThread    (-0x36)
#define SYS_SuspendThread          0x37
#define SYS_iSuspendThread         (-0x38)
#define SYS_ResumeThread           0x39
#define SYS_iResumeThread          (-0x3a)
#define SYS_SetupThread            0x3c
#define SYS_SetupHeap              0x3d
#define SYS_EndOfHeap              0x3e
#define SYS_CreateSema             0x40
#define SYS_DeleteSema             0x41
#define SYS_SignalSema             0x42
#define SYS_iSignalSema            (-0x43)
#define SYS_WaitSema               0x44
#define SYS_PollSema               0x45
#define SYS_iPollSema              (-0x46)
#define SYS_ReferSemaStatus        0x47
#define SYS_iReferSemaStatus       (-0x48)
#define SYS_iDeleteSema            (-0x49)
#define SYS_FlushCache             0x64
#define SYS_GsGetIMR               0x70
#define SYS_GsPutIMR               0x71
#define SYS_SetVSyncFlag           0x73
#define SYS_SetSyscall             0x74
#define SYS_GetMemorySize          0x7f

/* Thread status bits (ReferThreadStatus, ee_thread_status_t.status). */
#define THS_RUN         0x01
#define THS_READY       0x02
#define THS_WAIT        0x04
#define THS_SUSPEND     0x08
#define THS_WAITSUSPEND 0x0c
#define THS_DORMANT     0x10
/* Wait types (ee_thread_status_t.waitType). */
#define TSW_NONE  0
#define TSW_SLEEP 1
#define TSW_SEMA  2

/* INTC causes (ps2sdk numbering). */
#define INTC_GS       0
#define INTC_SBUS     1
#define INTC_VBLANK_S 2
#define INTC_VBLANK_E 3
#define INTC_TIM0     9
#define INTC_TIM1     10

/* ee_thread_t: ps2sdk's CreateThread parameter block (0x24 bytes). */
typedef struct {
    int status;           /* 0x00 */
    void *func;           /* 0x04 */
    void *stack;          /* 0x08 */
    int stack_size;       /* 0x0c */
    void *gp_reg;         /* 0x10 */
    int initial_priority; /* 0x14 */
    int current_priority; /* 0x18 */
    u32 attr;             /* 0x1c */
    u32 option;           /* 0x20 */
} ee_thread_t;

/* ee_thread_status_t: ReferThreadStatus's output block (0x30 bytes). */
typedef struct {
    int status;           /* 0x00 */
    void *func;           /* 0x04 */
    void *stack;          /* 0x08 */
    int stack_size;       /* 0x0c */
    void *gp_reg;         /* 0x10 */
    int initial_priority; /* 0x14 */
    int current_priority; /* 0x18 */
    u32 attr;             /* 0x1c */
    u32 option;           /* 0x20 */
    u32 waitType;         /* 0x24 */
    u32 waitId;           /* 0x28 */
    u32 wakeupCount;      /* 0x2c */
} ee_thread_status_t;

/* ee_sema_t: CreateSema's parameter block and ReferSemaStatus's output. */
typedef struct {
    int count;        /* 0x00 */
    int max_count;    /* 0x04 */
    int init_count;   /* 0x08 */
    int wait_threads; /* 0x0c */
    u32 attr;         /* 0x10 */
    u32 option;       /* 0x14 */
} ee_sema_t;

_Static_assert(sizeof(ee_thread_t) == 0x24, "ee_thread_t layout");
_Static_assert(sizeof(ee_thread_status_t) == 0x30, "ee_thread_status_t layout");
_Static_assert(sizeof(ee_sema_t) == 0x18, "ee_sema_t layout");

/* Registers the kernel may change across a syscall besides $v0/$v1. */
#define PINEY_SYSCALL_CLOBBERS \
    "$1", "$8", "$9", "$10", "$11", "$12", "$13", "$14", "$15", "$24", "$25", \
    "$31", "hi", "lo", "memory"

static inline s32 piney_syscall0(s32 n)
{
    register s32 v0 __asm__("$2");
    register s32 v1 __asm__("$3") = n;
    __asm__ volatile("syscall" : "=r"(v0), "+r"(v1)
                     : : "$4", "$5", "$6", "$7", PINEY_SYSCALL_CLOBBERS);
    return v0;
}

static inline s32 piney_syscall1(s32 n, u32 a)
{
    register s32 v0 __asm__("$2");
    register s32 v1 __asm__("$3") = n;
    register u32 a0 __asm__("$4") = a;
    __asm__ volatile("syscall" : "=r"(v0), "+r"(v1), "+r"(a0)
                     : : "$5", "$6", "$7", PINEY_SYSCALL_CLOBBERS);
    return v0;
}

static inline s32 piney_syscall2(s32 n, u32 a, u32 b)
{
    register s32 v0 __asm__("$2");
    register s32 v1 __asm__("$3") = n;
    register u32 a0 __asm__("$4") = a;
    register u32 a1 __asm__("$5") = b;
    __asm__ volatile("syscall" : "=r"(v0), "+r"(v1), "+r"(a0), "+r"(a1)
                     : : "$6", "$7", PINEY_SYSCALL_CLOBBERS);
    return v0;
}

static inline s32 piney_syscall3(s32 n, u32 a, u32 b, u32 c)
{
    register s32 v0 __asm__("$2");
    register s32 v1 __asm__("$3") = n;
    register u32 a0 __asm__("$4") = a;
    register u32 a1 __asm__("$5") = b;
    register u32 a2 __asm__("$6") = c;
    __asm__ volatile("syscall" : "=r"(v0), "+r"(v1), "+r"(a0), "+r"(a1), "+r"(a2)
                     : : "$7", PINEY_SYSCALL_CLOBBERS);
    return v0;
}

static inline s32 piney_syscall4(s32 n, u32 a, u32 b, u32 c, u32 d)
{
    register s32 v0 __asm__("$2");
    register s32 v1 __asm__("$3") = n;
    register u32 a0 __asm__("$4") = a;
    register u32 a1 __asm__("$5") = b;
    register u32 a2 __asm__("$6") = c;
    register u32 a3 __asm__("$7") = d;
    __asm__ volatile("syscall"
                     : "=r"(v0), "+r"(v1), "+r"(a0), "+r"(a1), "+r"(a2), "+r"(a3)
                     : : PINEY_SYSCALL_CLOBBERS);
    return v0;
}

#define P(x) ((u32)(x))

static inline __attribute__((noreturn)) void Exit(s32 code)
{
    piney_syscall1(SYS_Exit, P(code));
    __builtin_unreachable();
}
static inline s32 AddIntcHandler(s32 cause, s32 (*h)(s32), s32 next)
{ return piney_syscall3(SYS_AddIntcHandler, P(cause), P(h), P(next)); }
static inline s32 RemoveIntcHandler(s32 cause, s32 id)
{ return piney_syscall2(SYS_RemoveIntcHandler, P(cause), P(id)); }
static inline s32 AddDmacHandler(s32 ch, s32 (*h)(s32), s32 next)
{ return piney_syscall3(SYS_AddDmacHandler, P(ch), P(h), P(next)); }
static inline s32 RemoveDmacHandler(s32 ch, s32 id)
{ return piney_syscall2(SYS_RemoveDmacHandler, P(ch), P(id)); }
static inline s32 EnableIntc(s32 cause) { return piney_syscall1(SYS_EnableIntc, P(cause)); }
static inline s32 DisableIntc(s32 cause) { return piney_syscall1(SYS_DisableIntc, P(cause)); }
static inline s32 iEnableIntc(s32 cause) { return piney_syscall1(SYS_iEnableIntc, P(cause)); }
static inline s32 iDisableIntc(s32 cause) { return piney_syscall1(SYS_iDisableIntc, P(cause)); }
static inline s32 EnableDmac(s32 ch) { return piney_syscall1(SYS_EnableDmac, P(ch)); }
static inline s32 DisableDmac(s32 ch) { return piney_syscall1(SYS_DisableDmac, P(ch)); }
/* The BIOS alarm: `time` in H-SYNC ticks; the callback runs in interrupt
   context as callback(alarm_id, time, common). */
static inline s32 SetAlarm(u16 time, void (*cb)(s32, u16, void *), void *common)
{ return piney_syscall3(SYS_SetAlarm, P(time), P(cb), P(common)); }
static inline s32 ReleaseAlarm(s32 id) { return piney_syscall1(SYS_ReleaseAlarm, P(id)); }
static inline s32 iSetAlarm(u16 time, void (*cb)(s32, u16, void *), void *common)
{ return piney_syscall3(SYS_iSetAlarm, P(time), P(cb), P(common)); }

static inline s32 CreateThread(ee_thread_t *t) { return piney_syscall1(SYS_CreateThread, P(t)); }
static inline s32 DeleteThread(s32 id) { return piney_syscall1(SYS_DeleteThread, P(id)); }
static inline s32 StartThread(s32 id, void *arg)
{ return piney_syscall2(SYS_StartThread, P(id), P(arg)); }
static inline __attribute__((noreturn)) void ExitThread(void)
{
    piney_syscall0(SYS_ExitThread);
    __builtin_unreachable();
}
static inline __attribute__((noreturn)) void ExitDeleteThread(void)
{
    piney_syscall0(SYS_ExitDeleteThread);
    __builtin_unreachable();
}
static inline s32 TerminateThread(s32 id) { return piney_syscall1(SYS_TerminateThread, P(id)); }
static inline s32 iTerminateThread(s32 id) { return piney_syscall1(SYS_iTerminateThread, P(id)); }
static inline s32 ChangeThreadPriority(s32 id, s32 prio)
{ return piney_syscall2(SYS_ChangeThreadPriority, P(id), P(prio)); }
static inline s32 iChangeThreadPriority(s32 id, s32 prio)
{ return piney_syscall2(SYS_iChangeThreadPriority, P(id), P(prio)); }
static inline s32 RotateThreadReadyQueue(s32 prio)
{ return piney_syscall1(SYS_RotateThreadReadyQueue, P(prio)); }
static inline s32 iRotateThreadReadyQueue(s32 prio)
{ return piney_syscall1(SYS_iRotateThreadReadyQueue, P(prio)); }
static inline s32 ReleaseWaitThread(s32 id) { return piney_syscall1(SYS_ReleaseWaitThread, P(id)); }
static inline s32 iReleaseWaitThread(s32 id) { return piney_syscall1(SYS_iReleaseWaitThread, P(id)); }
static inline s32 GetThreadId(void) { return piney_syscall0(SYS_GetThreadId); }
static inline s32 ReferThreadStatus(s32 id, ee_thread_status_t *st)
{ return piney_syscall2(SYS_ReferThreadStatus, P(id), P(st)); }
static inline s32 iReferThreadStatus(s32 id, ee_thread_status_t *st)
{ return piney_syscall2(SYS_iReferThreadStatus, P(id), P(st)); }
static inline s32 SleepThread(void) { return piney_syscall0(SYS_SleepThread); }
static inline s32 WakeupThread(s32 id) { return piney_syscall1(SYS_WakeupThread, P(id)); }
static inline s32 iWakeupThread(s32 id) { return piney_syscall1(SYS_iWakeupThread, P(id)); }
static inline s32 CancelWakeupThread(s32 id) { return piney_syscall1(SYS_CancelWakeupThread, P(id)); }
static inline s32 SuspendThread(s32 id) { return piney_syscall1(SYS_SuspendThread, P(id)); }
static inline s32 iSuspendThread(s32 id) { return piney_syscall1(SYS_iSuspendThread, P(id)); }
static inline s32 ResumeThread(s32 id) { return piney_syscall1(SYS_ResumeThread, P(id)); }
static inline s32 iResumeThread(s32 id) { return piney_syscall1(SYS_iResumeThread, P(id)); }
static inline void *EndOfHeap(void) { return (void *)piney_syscall0(SYS_EndOfHeap); }

static inline s32 CreateSema(ee_sema_t *s) { return piney_syscall1(SYS_CreateSema, P(s)); }
static inline s32 DeleteSema(s32 id) { return piney_syscall1(SYS_DeleteSema, P(id)); }
static inline s32 SignalSema(s32 id) { return piney_syscall1(SYS_SignalSema, P(id)); }
static inline s32 iSignalSema(s32 id) { return piney_syscall1(SYS_iSignalSema, P(id)); }
static inline s32 WaitSema(s32 id) { return piney_syscall1(SYS_WaitSema, P(id)); }
static inline s32 PollSema(s32 id) { return piney_syscall1(SYS_PollSema, P(id)); }
static inline s32 iPollSema(s32 id) { return piney_syscall1(SYS_iPollSema, P(id)); }
static inline s32 ReferSemaStatus(s32 id, ee_sema_t *s)
{ return piney_syscall2(SYS_ReferSemaStatus, P(id), P(s)); }
static inline s32 iReferSemaStatus(s32 id, ee_sema_t *s)
{ return piney_syscall2(SYS_iReferSemaStatus, P(id), P(s)); }
static inline s32 iDeleteSema(s32 id) { return piney_syscall1(SYS_iDeleteSema, P(id)); }

static inline void FlushCache(s32 op) { piney_syscall1(SYS_FlushCache, P(op)); }
static inline s32 GetMemorySize(void) { return piney_syscall0(SYS_GetMemorySize); }
static inline void SetSyscall(s32 n, void *handler)
{ piney_syscall2(SYS_SetSyscall, P(n), P(handler)); }

/* Interrupt handlers end with `sync; ei` before returning (ps2sdk's
   ExitHandler), working around the BIOS leaving interrupts off. */
#define ExitHandler() __asm__ volatile("sync\n\tei\n")

#undef P
#endif
