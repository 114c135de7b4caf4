/* irx.h: piney's own header for writing IOP modules (IRX) with Debian's stock
 * mipsel-linux-gnu-gcc -march=r3000; tools/build-iop.sh builds them.
 *
 * It holds
 *   - the module id (IRX_ID) that tools/iop/irx.ld puts into the .iopmod header,
 *   - the console's import and export table layouts (IRX_IMPORTS, IRX_EXPORTS),
 *   - the types and constants of the system libraries, with the console's field order and
 *     sizes (written from the facts: ps2sdk's iop/kernel and iop/system headers, kerr.h),
 *   - one IOP_IMPORT line per library function a module may call: library, the function's
 *     index in that library's export table (the console's, from each library's exports.tab),
 *     return type, name and parameters.
 *
 * tools/build-iop.sh reads the IOP_LIBRARY and IOP_IMPORT lines of this file (keep each on one
 * line, in this form) to generate, for every module, import tables holding exactly the
 * functions the module calls: a module only calls the functions and the loader links them.
 * To make a new function available, add its IOP_IMPORT line with the index from the library's
 * exports.tab (count from 0; the first four slots of every library are its module entries).
 *
 * The import table layout (loadcore links it when the module loads):
 *     .word 0x41e00000            magic
 *     .word 0                     next (loadcore's link)
 *     .hword (major<<8)|minor     version: loadcore only compares the major
 *     .hword 0                    mode
 *     .ascii name[8]              NUL padded
 *     per function: .word 0x03e00008 (jr $ra)  .word 0x24000000|index (addiu $0,$0,index)
 *     .word 0, 0                  end
 * loadcore turns each `jr $ra` into `j export` and leaves the addiu as the delay slot (a nop);
 * it finds the tables by scanning the module's text (text_size bytes) for the magic, so they
 * live in .text.
 *
 * The export table layout (RegisterLibraryEntries links it and then owns magic and next, so
 * it lives in .data):
 *     .word 0x41c00000, 0, .hword version, 0, .ascii name[8],
 *     then the function pointers, NULL terminated; slots 0..3 are the module's standard entries
 *     (0: the module's start, 1..3: return-only functions), a library's functions are 4, 5, ...
 */
#ifndef PINEY_IRX_H
#define PINEY_IRX_H

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef signed char s8;
typedef short s16;
typedef int s32;
typedef long long s64;
typedef unsigned int size_t;

#ifndef NULL
#define NULL ((void *)0)
#endif

/* ---- The module ---------------------------------------------------------------------------
 * IRX_ID("name", major, minor) at file scope: the module's id structure (the .iopmod header's
 * module-info pointer points at it), the header's copy of the name and its version.
 * The entry point is _start(argc, argv); modload calls it in a thread of priority 8 and looks
 * at the low two bits of its result: */
#define RESIDENT_END           0 /* stay resident */
#define NO_RESIDENT_END        1 /* unload me */
#define REMOVABLE_RESIDENT_END 2 /* stay, may be unloaded later */

#define IRX_VERSION(major, minor) ((((major) & 0xff) << 8) | ((minor) & 0xff))

struct irx_id {
    const char *name;
    u16 version;
};

#define IRX_ID(name, major, minor)                                                              \
    struct irx_id _irx_id = { name, IRX_VERSION(major, minor) };                                \
    __asm__(".section .iopmod.name,\"\",@progbits\n"                                            \
            "\t.ascii " #name "\n"                                                              \
            "\t.previous\n"                                                                     \
            "\t.globl _irx_version\n"                                                           \
            "\t.set _irx_version, ((" #major ") & 0xff) << 8 | ((" #minor ") & 0xff)\n")

int _start(int argc, char **argv);

/* ---- Import tables --------------------------------------------------------------------------
 * IRX_IMPORTS(library, major, minor, IRX_STUB(function, index) ...) at file scope defines the
 * functions as stubs of the named library (one asm statement, so the table stays contiguous).
 * tools/build-iop.sh generates these for the system libraries; a module writes its own only for
 * other modules' libraries (see tests/iop/libimport.c). */
#define IRX_IMPORT_MAGIC 0x41e00000
#define IRX_EXPORT_MAGIC 0x41c00000

#define IRX_STUB(function, index)                                                               \
    "\t.globl " #function "\n"                                                                  \
    "\t.type " #function ", @function\n" #function ":\n"                                        \
    "\t.word 0x03e00008\n"                                                                      \
    "\t.word 0x24000000 | (" #index ")\n"                                                       \
    "\t.size " #function ", 8\n"

#define IRX_IMPORTS(library, major, minor, stubs)                                               \
    __asm__(".section .text\n"                                                                  \
            "\t.balign 4\n"                                                                     \
            "\t.word 0x41e00000, 0\n"                                                           \
            "\t.hword ((" #major ") & 0xff) << 8 | ((" #minor ") & 0xff), 0\n"                  \
            "1:\t.ascii \"" #library "\"\n"                                                     \
            "\t.org 1b + 8\n" stubs                                                     \
            "\t.word 0, 0\n"                                                                    \
            "\t.previous\n")

/* ---- Export tables --------------------------------------------------------------------------
 * IRX_EXPORTS(variable, "library", major, minor, entries...) at file scope defines the table
 * (pass it to RegisterLibraryEntries); list all entries, the four standard ones first, e.g.
 *     IRX_EXPORTS(exports, "mylib", 1, 1, _start, irx_retonly, irx_retonly, irx_retonly,
 *                 my_function_4, my_function_5);
 * The name is exactly up to 8 characters. */
struct irx_export_table {
    u32 magic;
    struct irx_export_table *next;
    u16 version;
    u16 mode;
    char name[8];
    void *fptrs[];
};

#define IRX_EXPORTS(variable, library, major, minor, ...)                                        \
    struct irx_export_table variable = { IRX_EXPORT_MAGIC, NULL, IRX_VERSION(major, minor), 0,  \
                                         library, { __VA_ARGS__, NULL } }

/* A function that returns at once, for the unused standard entries of an export table. */
static void __attribute__((unused)) irx_retonly(void)
{
}

/* ---- Error codes (kerr.h) ------------------------------------------------------------------- */
#define KE_OK                 0
#define KE_ERROR              -1
#define KE_ILLEGAL_CONTEXT    -100
#define KE_ILLEGAL_INTRCODE   -101
#define KE_CPUDI              -102
#define KE_INTRDISABLE        -103
#define KE_FOUND_HANDLER      -104
#define KE_NOTFOUND_HANDLER   -105
#define KE_NO_TIMER           -150
#define KE_ILLEGAL_TIMERID    -151
#define KE_LINKERR            -200
#define KE_ILLEGAL_OBJECT     -201
#define KE_UNKNOWN_MODULE     -202
#define KE_LIBRARY_FOUND      -212
#define KE_LIBRARY_NOTFOUND   -213
#define KE_ILLEGAL_LIBRARY    -214
#define KE_LIBRARY_INUSE      -215
#define KE_NO_MEMORY          -400
#define KE_ILLEGAL_ATTR       -401
#define KE_ILLEGAL_ENTRY      -402
#define KE_ILLEGAL_PRIORITY   -403
#define KE_ILLEGAL_STACK_SIZE -404
#define KE_ILLEGAL_MODE       -405
#define KE_ILLEGAL_THID       -406
#define KE_UNKNOWN_THID       -407
#define KE_UNKNOWN_SEMID      -408
#define KE_UNKNOWN_EVFID      -409
#define KE_UNKNOWN_MBXID      -410
#define KE_UNKNOWN_VPLID      -411
#define KE_UNKNOWN_FPLID      -412
#define KE_DORMANT            -413
#define KE_NOT_DORMANT        -414
#define KE_NOT_SUSPEND        -415
#define KE_NOT_WAIT           -416
#define KE_CAN_NOT_WAIT       -417
#define KE_RELEASE_WAIT       -418
#define KE_SEMA_ZERO          -419
#define KE_SEMA_OVF           -420
#define KE_EVF_COND           -421
#define KE_EVF_MULTI          -422
#define KE_EVF_ILPAT          -423
#define KE_MBOX_NOMSG         -424
#define KE_WAIT_DELETE        -425
#define KE_ILLEGAL_MEMBLOCK   -426
#define KE_ILLEGAL_MEMSIZE    -427

/* ---- Types of the thread manager (thbase, thsemap, thevent, thmsgbx, thvpool, thfpool) ---- */

/* Thread attributes and priorities; TH_SELF is "the calling thread" for the calls taking a
   thread id. Lower number = higher priority. */
#define TH_ASM          0x01000000
#define TH_C            0x02000000
#define TH_UMODE        0x00000008
#define TH_NO_FILLSTACK 0x00100000
#define TH_CLEAR_STACK  0x00200000
#define TH_SELF         0
#define HIGHEST_PRIORITY      1
#define USER_HIGHEST_PRIORITY 9
#define USER_LOWEST_PRIORITY  123
#define LOWEST_PRIORITY       126

/* Thread states (iop_thread_info_t.status) and wait kinds (waitType). */
#define THS_RUN         0x01
#define THS_READY       0x02
#define THS_WAIT        0x04
#define THS_SUSPEND     0x08
#define THS_WAITSUSPEND 0x0C
#define THS_DORMANT     0x10
#define TSW_SLEEP     1
#define TSW_DELAY     2
#define TSW_SEMA      3
#define TSW_EVENTFLAG 4
#define TSW_MBX       5
#define TSW_VPL       6
#define TSW_FPL       7

typedef struct {
    u32 attr;
    u32 option;
    void (*thread)(void *arg);
    u32 stacksize;
    u32 priority;
} iop_thread_t; /* 20 bytes */

typedef struct {
    u32 attr;
    u32 option;
    int status;
    void *entry;
    void *stack;
    int stackSize;
    void *gpReg;
    int initPriority;
    int currentPriority;
    int waitType;
    int waitId;
    int wakeupCount;
    long *regContext;
    u32 reserved[4];
} iop_thread_info_t; /* 68 bytes */

typedef struct {
    u32 lo, hi;
} iop_sys_clock_t;

/* Semaphores. */
#define SA_THFIFO  0x000
#define SA_THPRI   0x001
#define SA_IHTHPRI 0x100

typedef struct {
    u32 attr;
    u32 option;
    int initial;
    int max;
} iop_sema_t;

typedef struct {
    u32 attr;
    u32 option;
    int initial;
    int max;
    int current;
    int numWaitThreads;
    int reserved[2];
} iop_sema_info_t; /* 32 bytes */

/* Event flags. */
#define EA_SINGLE 0x0
#define EA_MULTI  0x2
#define WEF_AND   0x00
#define WEF_OR    0x01
#define WEF_CLEAR 0x10

typedef struct {
    u32 attr;
    u32 option;
    u32 bits;
} iop_event_t;

typedef struct {
    u32 attr;
    u32 option;
    u32 initBits;
    u32 currBits;
    int numThreads;
    int reserved1;
    int reserved2;
} iop_event_info_t; /* 28 bytes */

/* Message boxes: a message starts with an iop_message_t (the kernel links it). */
#define MBA_THFIFO 0x000
#define MBA_THPRI  0x001
#define MBA_MSFIFO 0x000
#define MBA_MSPRI  0x004

typedef struct {
    u32 attr;
    u32 option;
} iop_mbx_t;

typedef struct iop_message {
    struct iop_message *next;
    u8 priority;
    u8 unused[3];
} iop_message_t; /* 8 bytes */

typedef struct {
    u32 attr;
    u32 option;
    int numWaitThreads;
    int numMessage;
    iop_message_t *topPacket;
    int reserved[2];
} iop_mbx_status_t; /* 28 bytes */

/* Variable-length pools. */
#define VA_THFIFO 0x000
#define VA_THPRI  0x001
#define VA_MEMBTM 0x200

typedef struct {
    u32 attr;
    u32 option;
    int size;
} iop_vpl_param;

typedef struct {
    u32 attr;
    u32 option;
    int size;
    int freeSize;
    int numWaitThreads;
    int reserved[3];
} iop_vpl_info_t; /* 32 bytes */

/* Fixed-length pools. */
#define FA_THFIFO 0x000
#define FA_THPRI  0x001
#define FA_MEMBTM 0x200

typedef struct {
    u32 attr;
    u32 option;
    int block_size;
    int blocks;
} iop_fpl_param;

typedef struct {
    u32 attr;
    u32 option;
    int blockSize;
    int numBlocks;
    int freeBlocks;
    int numWaitThreads;
    int reserved[4];
} iop_fpl_info_t; /* 40 bytes */

/* ---- Interrupts (intrman) and timers (timrman) ----------------------------------------------- */
#define IOP_IRQ_VBLANK  0
#define IOP_IRQ_SBUS    1
#define IOP_IRQ_CDVD    2
#define IOP_IRQ_DMA     3
#define IOP_IRQ_RTC0    4
#define IOP_IRQ_RTC1    5
#define IOP_IRQ_RTC2    6
#define IOP_IRQ_EVBLANK 11
#define IOP_IRQ_RTC3    14
#define IOP_IRQ_RTC4    15
#define IOP_IRQ_RTC5    16

/* RegisterIntrHandler mode: a C handler (the dispatcher saves the caller-saved registers). An
   interrupt handler returns nonzero to keep its interrupt line enabled. */
#define IRX_INTR_C 1

/* AllocHardTimer sources. */
#define TC_SYSCLOCK 1
#define TC_PIXEL    2
#define TC_HLINE    4
#define TC_HOLD     8

/* ---- SIF RPC (sifcmd) -------------------------------------------------------------------------- */
typedef void *(*SifRpcFunc_t)(int fno, void *buffer, int length);
typedef void (*SifRpcEndFunc_t)(void *end_param);

struct SifRpcClientData;
struct SifRpcDataQueue;

typedef struct SifRpcServerData {
    int sid;
    SifRpcFunc_t func;
    void *buf;
    int size;
    SifRpcFunc_t cfunc;
    void *cbuf;
    int size2;
    struct SifRpcClientData *client;
    void *pkt_addr;
    int rpc_number;
    void *recvbuf;
    int rsize;
    int rmode;
    int rid;
    struct SifRpcServerData *link;
    struct SifRpcServerData *next;
    struct SifRpcDataQueue *base;
} SifRpcServerData_t; /* 68 bytes */

typedef struct SifRpcHeader {
    void *pkt_addr;
    u32 rpc_id;
    int sema_id;
    u32 mode;
} SifRpcHeader_t;

typedef struct SifRpcClientData {
    SifRpcHeader_t hdr;
    u32 command;
    void *buf;
    void *cbuf;
    SifRpcEndFunc_t end_function;
    void *end_param;
    struct SifRpcServerData *server;
} SifRpcClientData_t; /* 40 bytes */

typedef struct SifRpcReceiveData {
    SifRpcHeader_t hdr;
    void *src;
    void *dest;
    int size;
} SifRpcReceiveData_t;

typedef struct SifRpcDataQueue {
    int thread_id;
    int active;
    struct SifRpcServerData *link;
    struct SifRpcServerData *start;
    struct SifRpcServerData *end;
    struct SifRpcDataQueue *next;
} SifRpcDataQueue_t; /* 24 bytes */

typedef struct {
    void *src;
    void *dest;
    int size;
    int attr;
} SifDmaTransfer_t;

typedef void (*SifCmdHandler_t)(void *data, void *harg);

/* ---- Files (ioman, iomanx) ---------------------------------------------------------------------
 * Open flags, whence values, error numbers (returned negated), io_stat_t / io_dirent_t (ioman)
 * and iox_stat_t / iox_dirent_t (iomanx), and a device driver's iop_device_t, ops table and
 * iop_file_t (ps2sdk common/include/io_common.h, iox_stat.h, errno.h, ioman.h, iomanX.h). */
#define O_RDONLY  0x0001
#define O_WRONLY  0x0002
#define O_RDWR    0x0003
#define O_DIROPEN 0x0008 /* iomanx: the file is a directory dopen opened */
#define O_APPEND  0x0100
#define O_CREAT   0x0200
#define O_TRUNC   0x0400
#define SEEK_SET 0
#define SEEK_CUR 1
#define SEEK_END 2

#define ENOENT  2
#define EIO     5
#define EBADF   9
#define EACCES  13
#define EEXIST  17
#define ENODEV  19
#define EINVAL  22
#define EMFILE  24
#define ENOSPC  28

/* io_stat_t.mode (ioman) and iox_stat_t.mode (iomanx). */
#define FIO_SO_IFLNK 0x0008
#define FIO_SO_IFREG 0x0010
#define FIO_SO_IFDIR 0x0020
#define FIO_SO_IROTH 0x0004
#define FIO_SO_IWOTH 0x0002
#define FIO_SO_IXOTH 0x0001
#define FIO_S_IFLNK  0x4000
#define FIO_S_IFREG  0x2000
#define FIO_S_IFDIR  0x1000

typedef struct {
    u32 mode;
    u32 attr;
    u32 size;
    u8 ctime[8];
    u8 atime[8];
    u8 mtime[8];
    u32 hisize;
} io_stat_t; /* 40 bytes */

typedef struct {
    io_stat_t stat;
    char name[256];
    void *privdata;
} io_dirent_t; /* 300 bytes */

typedef struct {
    u32 mode;
    u32 attr;
    u32 size;
    u8 ctime[8];
    u8 atime[8];
    u8 mtime[8];
    u32 hisize;
    u32 private_0, private_1, private_2, private_3, private_4, private_5;
} iox_stat_t; /* 64 bytes */

typedef struct {
    iox_stat_t stat;
    char name[256];
    void *privdata;
} iox_dirent_t; /* 324 bytes */

/* Device types (iop_device_t.type). */
#define IOP_DT_CHAR  0x01
#define IOP_DT_CONS  0x02
#define IOP_DT_BLOCK 0x04
#define IOP_DT_RAW   0x08
#define IOP_DT_FS    0x10
#define IOP_DT_FSEXT 0x10000000 /* iomanx: the ops table has the extended calls */

struct _iop_device;

typedef struct {
    int mode; /* the open flags (dopen: 0; iomanx's dopen: O_DIROPEN) */
    int unit; /* the digits after the device name */
    struct _iop_device *device;
    void *privdata; /* the driver's own */
} iop_file_t; /* 16 bytes */

typedef struct _iop_device_ops {
    int (*init)(struct _iop_device *device);
    int (*deinit)(struct _iop_device *device);
    int (*format)(iop_file_t *f);
    int (*open)(iop_file_t *f, const char *name, int flags);
    int (*close)(iop_file_t *f);
    int (*read)(iop_file_t *f, void *buffer, int size);
    int (*write)(iop_file_t *f, void *buffer, int size);
    int (*lseek)(iop_file_t *f, int offset, int whence);
    int (*ioctl)(iop_file_t *f, int cmd, void *arg);
    int (*remove)(iop_file_t *f, const char *name);
    int (*mkdir)(iop_file_t *f, const char *path);
    int (*rmdir)(iop_file_t *f, const char *path);
    int (*dopen)(iop_file_t *f, const char *path);
    int (*dclose)(iop_file_t *f);
    int (*dread)(iop_file_t *f, io_dirent_t *dirent);
    int (*getstat)(iop_file_t *f, const char *name, io_stat_t *stat);
    int (*chstat)(iop_file_t *f, const char *name, io_stat_t *stat, unsigned int mask);
} iop_device_ops_t; /* ioman's 17 entries */

typedef struct _iop_device {
    const char *name;
    unsigned int type;
    unsigned int version;
    const char *desc;
    iop_device_ops_t *ops;
} iop_device_t; /* 20 bytes */

/* ---- The system libraries ----------------------------------------------------------------------
 * IOP_LIBRARY(name, major, minor): the version our import tables ask for (loadcore matches the
 * name and the major version only). IOP_IMPORT(library, index, type, name, (parameters)). */
#define IOP_LIBRARY(name, major, minor)
#define IOP_IMPORT(library, index, type, name, parameters) type name parameters;

IOP_LIBRARY(loadcore, 1, 1)
IOP_IMPORT(loadcore, 4, void, FlushIcache, (void))
IOP_IMPORT(loadcore, 5, void, FlushDcache, (void))
IOP_IMPORT(loadcore, 6, int, RegisterLibraryEntries, (struct irx_export_table *exports))
IOP_IMPORT(loadcore, 7, int, ReleaseLibraryEntries, (struct irx_export_table *exports))
IOP_IMPORT(loadcore, 12, int *, QueryBootMode, (int mode))

IOP_LIBRARY(sysmem, 1, 1)
IOP_IMPORT(sysmem, 4, void *, AllocSysMemory, (int mode, int size, void *ptr))
IOP_IMPORT(sysmem, 5, int, FreeSysMemory, (void *ptr))
IOP_IMPORT(sysmem, 6, u32, QueryMemSize, (void))
IOP_IMPORT(sysmem, 7, u32, QueryMaxFreeMemSize, (void))
IOP_IMPORT(sysmem, 8, u32, QueryTotalFreeMemSize, (void))
IOP_IMPORT(sysmem, 9, void *, QueryBlockTopAddress, (void *address))
IOP_IMPORT(sysmem, 10, int, QueryBlockSize, (void *address))
IOP_IMPORT(sysmem, 14, int, Kprintf, (const char *format, ...))

IOP_LIBRARY(sysclib, 1, 1)
IOP_IMPORT(sysclib, 11, int, memcmp, (const void *a, const void *b, size_t n))
IOP_IMPORT(sysclib, 12, void *, memcpy, (void *dest, const void *src, size_t n))
IOP_IMPORT(sysclib, 13, void *, memmove, (void *dest, const void *src, size_t n))
IOP_IMPORT(sysclib, 14, void *, memset, (void *dest, int c, size_t n))
IOP_IMPORT(sysclib, 17, void, bzero, (void *dest, size_t n))
IOP_IMPORT(sysclib, 19, int, sprintf, (char *str, const char *format, ...))
IOP_IMPORT(sysclib, 22, int, strcmp, (const char *a, const char *b))
IOP_IMPORT(sysclib, 23, char *, strcpy, (char *dest, const char *src))
IOP_IMPORT(sysclib, 27, size_t, strlen, (const char *s))
IOP_IMPORT(sysclib, 29, int, strncmp, (const char *a, const char *b, size_t n))
IOP_IMPORT(sysclib, 30, char *, strncpy, (char *dest, const char *src, size_t n))

IOP_LIBRARY(stdio, 1, 1)
IOP_IMPORT(stdio, 4, int, printf, (const char *format, ...) __attribute__((format(printf, 1, 2))))
IOP_IMPORT(stdio, 6, int, putchar, (int c))
IOP_IMPORT(stdio, 7, int, puts, (const char *s))
IOP_IMPORT(stdio, 9, int, fdprintf, (int fd, const char *format, ...) __attribute__((format(printf, 2, 3))))
IOP_IMPORT(stdio, 11, int, fdputc, (int c, int fd))
IOP_IMPORT(stdio, 12, int, fdputs, (const char *s, int fd))

IOP_LIBRARY(thbase, 1, 1)
IOP_IMPORT(thbase, 4, int, CreateThread, (iop_thread_t *thread))
IOP_IMPORT(thbase, 5, int, DeleteThread, (int thid))
IOP_IMPORT(thbase, 6, int, StartThread, (int thid, void *arg))
IOP_IMPORT(thbase, 7, int, StartThreadArgs, (int thid, int args, void *argp))
IOP_IMPORT(thbase, 8, int, ExitThread, (void))
IOP_IMPORT(thbase, 9, int, ExitDeleteThread, (void))
IOP_IMPORT(thbase, 10, int, TerminateThread, (int thid))
IOP_IMPORT(thbase, 14, int, ChangeThreadPriority, (int thid, int priority))
IOP_IMPORT(thbase, 16, int, RotateThreadReadyQueue, (int priority))
IOP_IMPORT(thbase, 18, int, ReleaseWaitThread, (int thid))
IOP_IMPORT(thbase, 20, int, GetThreadId, (void))
IOP_IMPORT(thbase, 22, int, ReferThreadStatus, (int thid, iop_thread_info_t *info))
IOP_IMPORT(thbase, 23, int, iReferThreadStatus, (int thid, iop_thread_info_t *info))
IOP_IMPORT(thbase, 24, int, SleepThread, (void))
IOP_IMPORT(thbase, 25, int, WakeupThread, (int thid))
IOP_IMPORT(thbase, 26, int, iWakeupThread, (int thid))
IOP_IMPORT(thbase, 27, int, CancelWakeupThread, (int thid))
IOP_IMPORT(thbase, 33, int, DelayThread, (int usec))
IOP_IMPORT(thbase, 34, int, GetSystemTime, (iop_sys_clock_t *clock))
IOP_IMPORT(thbase, 35, int, SetAlarm, (iop_sys_clock_t *clock, unsigned int (*handler)(void *arg), void *arg))
IOP_IMPORT(thbase, 36, int, iSetAlarm, (iop_sys_clock_t *clock, unsigned int (*handler)(void *arg), void *arg))
IOP_IMPORT(thbase, 37, int, CancelAlarm, (unsigned int (*handler)(void *arg), void *arg))
IOP_IMPORT(thbase, 38, int, iCancelAlarm, (unsigned int (*handler)(void *arg), void *arg))
IOP_IMPORT(thbase, 39, void, USec2SysClock, (u32 usec, iop_sys_clock_t *clock))
IOP_IMPORT(thbase, 40, void, SysClock2USec, (iop_sys_clock_t *clock, u32 *sec, u32 *usec))
IOP_IMPORT(thbase, 41, int, GetSystemStatusFlag, (void))
IOP_IMPORT(thbase, 42, int, GetThreadCurrentPriority, (void))
IOP_IMPORT(thbase, 43, u32, GetSystemTimeLow, (void))

IOP_LIBRARY(thsemap, 1, 1)
IOP_IMPORT(thsemap, 4, int, CreateSema, (iop_sema_t *sema))
IOP_IMPORT(thsemap, 5, int, DeleteSema, (int semid))
IOP_IMPORT(thsemap, 6, int, SignalSema, (int semid))
IOP_IMPORT(thsemap, 7, int, iSignalSema, (int semid))
IOP_IMPORT(thsemap, 8, int, WaitSema, (int semid))
IOP_IMPORT(thsemap, 9, int, PollSema, (int semid))
IOP_IMPORT(thsemap, 11, int, ReferSemaStatus, (int semid, iop_sema_info_t *info))
IOP_IMPORT(thsemap, 12, int, iReferSemaStatus, (int semid, iop_sema_info_t *info))

IOP_LIBRARY(thevent, 1, 1)
IOP_IMPORT(thevent, 4, int, CreateEventFlag, (iop_event_t *event))
IOP_IMPORT(thevent, 5, int, DeleteEventFlag, (int evfid))
IOP_IMPORT(thevent, 6, int, SetEventFlag, (int evfid, u32 bits))
IOP_IMPORT(thevent, 7, int, iSetEventFlag, (int evfid, u32 bits))
IOP_IMPORT(thevent, 8, int, ClearEventFlag, (int evfid, u32 bits))
IOP_IMPORT(thevent, 9, int, iClearEventFlag, (int evfid, u32 bits))
IOP_IMPORT(thevent, 10, int, WaitEventFlag, (int evfid, u32 bits, int mode, u32 *resbits))
IOP_IMPORT(thevent, 11, int, PollEventFlag, (int evfid, u32 bits, int mode, u32 *resbits))
IOP_IMPORT(thevent, 13, int, ReferEventFlagStatus, (int evfid, iop_event_info_t *info))
IOP_IMPORT(thevent, 14, int, iReferEventFlagStatus, (int evfid, iop_event_info_t *info))

IOP_LIBRARY(thmsgbx, 1, 1)
IOP_IMPORT(thmsgbx, 4, int, CreateMbx, (iop_mbx_t *mbx))
IOP_IMPORT(thmsgbx, 5, int, DeleteMbx, (int mbxid))
IOP_IMPORT(thmsgbx, 6, int, SendMbx, (int mbxid, void *msg))
IOP_IMPORT(thmsgbx, 7, int, iSendMbx, (int mbxid, void *msg))
IOP_IMPORT(thmsgbx, 8, int, ReceiveMbx, (void **msgvar, int mbxid))
IOP_IMPORT(thmsgbx, 9, int, PollMbx, (void **msgvar, int mbxid))
IOP_IMPORT(thmsgbx, 11, int, ReferMbxStatus, (int mbxid, iop_mbx_status_t *info))
IOP_IMPORT(thmsgbx, 12, int, iReferMbxStatus, (int mbxid, iop_mbx_status_t *info))

IOP_LIBRARY(thfpool, 1, 1)
IOP_IMPORT(thfpool, 4, int, CreateFpl, (iop_fpl_param *param))
IOP_IMPORT(thfpool, 5, int, DeleteFpl, (int fplid))
IOP_IMPORT(thfpool, 6, void *, AllocateFpl, (int fplid))
IOP_IMPORT(thfpool, 7, void *, pAllocateFpl, (int fplid))
IOP_IMPORT(thfpool, 8, void *, ipAllocateFpl, (int fplid))
IOP_IMPORT(thfpool, 9, int, FreeFpl, (int fplid, void *memory))
IOP_IMPORT(thfpool, 11, int, ReferFplStatus, (int fplid, iop_fpl_info_t *info))

IOP_LIBRARY(thvpool, 1, 1)
IOP_IMPORT(thvpool, 4, int, CreateVpl, (iop_vpl_param *param))
IOP_IMPORT(thvpool, 5, int, DeleteVpl, (int vplid))
IOP_IMPORT(thvpool, 6, void *, AllocateVpl, (int vplid, int size))
IOP_IMPORT(thvpool, 7, void *, pAllocateVpl, (int vplid, int size))
IOP_IMPORT(thvpool, 8, void *, ipAllocateVpl, (int vplid, int size))
IOP_IMPORT(thvpool, 9, int, FreeVpl, (int vplid, void *memory))
IOP_IMPORT(thvpool, 11, int, ReferVplStatus, (int vplid, iop_vpl_info_t *info))

IOP_LIBRARY(intrman, 1, 1)
IOP_IMPORT(intrman, 4, int, RegisterIntrHandler, (int irq, int mode, int (*handler)(void *arg), void *arg))
IOP_IMPORT(intrman, 5, int, ReleaseIntrHandler, (int irq))
IOP_IMPORT(intrman, 6, int, EnableIntr, (int irq))
IOP_IMPORT(intrman, 7, int, DisableIntr, (int irq, int *res))
IOP_IMPORT(intrman, 8, int, CpuDisableIntr, (void))
IOP_IMPORT(intrman, 9, int, CpuEnableIntr, (void))
IOP_IMPORT(intrman, 17, int, CpuSuspendIntr, (int *state))
IOP_IMPORT(intrman, 18, int, CpuResumeIntr, (int state))
IOP_IMPORT(intrman, 23, int, QueryIntrContext, (void))

IOP_LIBRARY(timrman, 1, 1)
IOP_IMPORT(timrman, 4, int, AllocHardTimer, (int source, int size, int prescale))
IOP_IMPORT(timrman, 5, int, ReferHardTimer, (int source, int size, int mode, int modemask))
IOP_IMPORT(timrman, 6, int, FreeHardTimer, (int timid))
IOP_IMPORT(timrman, 7, void, SetTimerMode, (int timid, int mode))
IOP_IMPORT(timrman, 8, u32, GetTimerStatus, (int timid))
IOP_IMPORT(timrman, 9, void, SetTimerCounter, (int timid, u32 count))
IOP_IMPORT(timrman, 10, u32, GetTimerCounter, (int timid))
IOP_IMPORT(timrman, 11, void, SetTimerCompare, (int timid, u32 compare))
IOP_IMPORT(timrman, 12, u32, GetTimerCompare, (int timid))
IOP_IMPORT(timrman, 16, int, GetHardTimerIntrCode, (int timid))

IOP_LIBRARY(sifman, 1, 1)
IOP_IMPORT(sifman, 5, void, sceSifInit, (void))
IOP_IMPORT(sifman, 7, u32, sceSifSetDma, (SifDmaTransfer_t *transfers, int count))
IOP_IMPORT(sifman, 8, int, sceSifDmaStat, (u32 id))
IOP_IMPORT(sifman, 29, int, sceSifCheckInit, (void))

IOP_LIBRARY(sifcmd, 1, 1)
IOP_IMPORT(sifcmd, 4, void, sceSifInitCmd, (void))
IOP_IMPORT(sifcmd, 6, int, sceSifGetSreg, (int reg))
IOP_IMPORT(sifcmd, 7, int, sceSifSetSreg, (int reg, int value))
IOP_IMPORT(sifcmd, 10, void, sceSifAddCmdHandler, (int cid, SifCmdHandler_t handler, void *harg))
IOP_IMPORT(sifcmd, 12, u32, sceSifSendCmd, (int cid, void *packet, int packet_size, void *src_extra, void *dest_extra, int size_extra))
IOP_IMPORT(sifcmd, 14, void, sceSifInitRpc, (int mode))
IOP_IMPORT(sifcmd, 15, int, sceSifBindRpc, (SifRpcClientData_t *client, int sid, int mode))
IOP_IMPORT(sifcmd, 16, int, sceSifCallRpc, (SifRpcClientData_t *client, int fno, int mode, void *send, int ssize, void *receive, int rsize, SifRpcEndFunc_t end_function, void *end_param))
IOP_IMPORT(sifcmd, 17, void, sceSifRegisterRpc, (SifRpcServerData_t *server, int sid, SifRpcFunc_t func, void *buffer, SifRpcFunc_t cfunc, void *cbuffer, SifRpcDataQueue_t *queue))
IOP_IMPORT(sifcmd, 18, int, sceSifCheckStatRpc, (SifRpcClientData_t *client))
IOP_IMPORT(sifcmd, 19, void, sceSifSetRpcQueue, (SifRpcDataQueue_t *queue, int thid))
IOP_IMPORT(sifcmd, 20, SifRpcServerData_t *, sceSifGetNextRequest, (SifRpcDataQueue_t *queue))
IOP_IMPORT(sifcmd, 21, void, sceSifExecRequest, (SifRpcServerData_t *server))
IOP_IMPORT(sifcmd, 22, void, sceSifRpcLoop, (SifRpcDataQueue_t *queue))
IOP_IMPORT(sifcmd, 23, int, sceSifGetOtherData, (SifRpcReceiveData_t *rd, void *src, void *dest, int size, int mode))
IOP_IMPORT(sifcmd, 24, SifRpcServerData_t *, sceSifRemoveRpc, (SifRpcServerData_t *server, SifRpcDataQueue_t *queue))
IOP_IMPORT(sifcmd, 25, SifRpcDataQueue_t *, sceSifRemoveRpcQueue, (SifRpcDataQueue_t *queue))

IOP_LIBRARY(modload, 1, 1)
IOP_IMPORT(modload, 6, int, LoadModule, (const char *path))
IOP_IMPORT(modload, 7, int, LoadStartModule, (const char *path, int arglen, const char *args, int *result))
IOP_IMPORT(modload, 8, int, StartModule, (int modid, const char *name, int arglen, const char *args, int *result))
IOP_IMPORT(modload, 10, int, LoadModuleBuffer, (void *buffer))
IOP_IMPORT(modload, 20, int, StopModule, (int modid, int arglen, const char *args, int *result))
IOP_IMPORT(modload, 21, int, UnloadModule, (int modid))
IOP_IMPORT(modload, 22, int, SearchModuleByName, (const char *name))

IOP_LIBRARY(vblank, 1, 1)
IOP_IMPORT(vblank, 4, void, WaitVblankStart, (void))
IOP_IMPORT(vblank, 5, void, WaitVblankEnd, (void))
IOP_IMPORT(vblank, 6, void, WaitVblank, (void))
IOP_IMPORT(vblank, 7, void, WaitNonVblank, (void))
IOP_IMPORT(vblank, 8, int, RegisterVblankHandler, (int edge, int priority, int (*handler)(void *arg), void *arg))
IOP_IMPORT(vblank, 9, int, ReleaseVblankHandler, (int edge, int (*handler)(void *arg)))

IOP_LIBRARY(ioman, 1, 1)
IOP_IMPORT(ioman, 4, int, io_open, (const char *name, int flags))
IOP_IMPORT(ioman, 5, int, io_close, (int fd))
IOP_IMPORT(ioman, 6, int, io_read, (int fd, void *buffer, int size))
IOP_IMPORT(ioman, 7, int, io_write, (int fd, const void *buffer, int size))
IOP_IMPORT(ioman, 8, int, io_lseek, (int fd, int offset, int whence))
IOP_IMPORT(ioman, 9, int, io_ioctl, (int fd, int cmd, void *arg))
IOP_IMPORT(ioman, 10, int, io_remove, (const char *name))
IOP_IMPORT(ioman, 11, int, io_mkdir, (const char *path))
IOP_IMPORT(ioman, 12, int, io_rmdir, (const char *path))
IOP_IMPORT(ioman, 13, int, io_dopen, (const char *path, int mode))
IOP_IMPORT(ioman, 14, int, io_dclose, (int fd))
IOP_IMPORT(ioman, 15, int, io_dread, (int fd, io_dirent_t *dirent))
IOP_IMPORT(ioman, 16, int, io_getstat, (const char *name, io_stat_t *stat))
IOP_IMPORT(ioman, 17, int, io_chstat, (const char *name, io_stat_t *stat, unsigned int mask))
IOP_IMPORT(ioman, 18, int, io_format, (const char *name))
IOP_IMPORT(ioman, 20, int, io_AddDrv, (iop_device_t *device))
IOP_IMPORT(ioman, 21, int, io_DelDrv, (const char *name))

IOP_LIBRARY(iomanx, 1, 1)
IOP_IMPORT(iomanx, 4, int, iomanX_open, (const char *name, int flags, int mode))
IOP_IMPORT(iomanx, 5, int, iomanX_close, (int fd))
IOP_IMPORT(iomanx, 6, int, iomanX_read, (int fd, void *buffer, int size))
IOP_IMPORT(iomanx, 7, int, iomanX_write, (int fd, const void *buffer, int size))
IOP_IMPORT(iomanx, 8, int, iomanX_lseek, (int fd, int offset, int whence))
IOP_IMPORT(iomanx, 10, int, iomanX_remove, (const char *name))
IOP_IMPORT(iomanx, 11, int, iomanX_mkdir, (const char *path, int mode))
IOP_IMPORT(iomanx, 12, int, iomanX_rmdir, (const char *path))
IOP_IMPORT(iomanx, 13, int, iomanX_dopen, (const char *path))
IOP_IMPORT(iomanx, 14, int, iomanX_dclose, (int fd))
IOP_IMPORT(iomanx, 15, int, iomanX_dread, (int fd, iox_dirent_t *dirent))
IOP_IMPORT(iomanx, 16, int, iomanX_getstat, (const char *name, iox_stat_t *stat))
IOP_IMPORT(iomanx, 17, int, iomanX_chstat, (const char *name, iox_stat_t *stat, unsigned int mask))
IOP_IMPORT(iomanx, 20, int, iomanX_AddDrv, (iop_device_t *device))
IOP_IMPORT(iomanx, 21, int, iomanX_DelDrv, (const char *name))
IOP_IMPORT(iomanx, 22, unsigned int, iomanX_GetDevType, (int fd))
IOP_IMPORT(iomanx, 25, int, iomanX_rename, (const char *old, const char *new_name))
IOP_IMPORT(iomanx, 26, int, iomanX_chdir, (const char *name))
IOP_IMPORT(iomanx, 30, s64, iomanX_lseek64, (int fd, s64 offset, int whence))
IOP_IMPORT(iomanx, 31, int, iomanX_devctl, (const char *name, int cmd, void *arg, unsigned int arglen, void *buf, unsigned int buflen))
IOP_IMPORT(iomanx, 23, void, StdioInit, (int mode))

/* ---- cdvdman (CDVDMAN's library: libcdvd-common.h's types, exports.tab's indices) ---------- */
typedef struct {
    u8 trycount;    /* read retries */
    u8 spindlctrl;  /* SCECdSpinMax 0, SCECdSpinNom 1... */
    u8 datapattern; /* SCECdSecS2048 0 */
    u8 pad;
} sceCdRMode;

typedef struct {
    u32 lsn;
    u32 size;
    char name[16];
    u8 date[8]; /* -, second, minute, hour, day, month, year (u16) */
} sceCdlFILE;   /* 32 bytes (sceCdSearchFile writes 36: the ISO flags follow) */

typedef struct {
    u8 stat, second, minute, hour, pad, day, month, year; /* BCD */
} sceCdCLOCK;

typedef struct {
    u8 minute, second, sector, track; /* BCD */
} sceCdlLOCCD;

typedef void (*sceCdCBFunc)(int reason);

#define SCECdINIT      0
#define SCECdINoD      1
#define SCECdEXIT      5
#define SCECdMmodeCd   1
#define SCECdMmodeDvd  2
#define SCECdTrayOpen  0
#define SCECdTrayClose 1
#define SCECdTrayCheck 2
#define STMNBLK        0
#define STMBLK         1

IOP_LIBRARY(cdvdman, 1, 1)
IOP_IMPORT(cdvdman, 4, int, sceCdInit, (int mode))
IOP_IMPORT(cdvdman, 5, int, sceCdStandby, (void))
IOP_IMPORT(cdvdman, 6, int, sceCdRead, (u32 lsn, u32 sectors, void *buffer, sceCdRMode *mode))
IOP_IMPORT(cdvdman, 7, int, sceCdSeek, (u32 lsn))
IOP_IMPORT(cdvdman, 8, int, sceCdGetError, (void))
IOP_IMPORT(cdvdman, 9, int, sceCdGetToc, (u8 *toc))
IOP_IMPORT(cdvdman, 10, int, sceCdSearchFile, (sceCdlFILE *file, const char *name))
IOP_IMPORT(cdvdman, 11, int, sceCdSync, (int mode))
IOP_IMPORT(cdvdman, 12, int, sceCdGetDiskType, (void))
IOP_IMPORT(cdvdman, 13, int, sceCdDiskReady, (int mode))
IOP_IMPORT(cdvdman, 14, int, sceCdTrayReq, (int mode, u32 *traychk))
IOP_IMPORT(cdvdman, 15, int, sceCdStop, (void))
IOP_IMPORT(cdvdman, 16, u32, sceCdPosToInt, (sceCdlLOCCD *p))
IOP_IMPORT(cdvdman, 17, sceCdlLOCCD *, sceCdIntToPos, (u32 i, sceCdlLOCCD *p))
IOP_IMPORT(cdvdman, 21, int, sceCdCheckCmd, (void))
IOP_IMPORT(cdvdman, 24, int, sceCdReadClock, (sceCdCLOCK *clock))
IOP_IMPORT(cdvdman, 28, int, sceCdStatus, (void))
IOP_IMPORT(cdvdman, 37, sceCdCBFunc, sceCdCallback, (sceCdCBFunc function))
IOP_IMPORT(cdvdman, 38, int, sceCdPause, (void))
IOP_IMPORT(cdvdman, 39, int, sceCdBreak, (void))
/* Whole sectors of a disc with audio tracks: datapattern 0 2352 bytes, 1 2368 (+ Q
 * subchannel and 4 zero bytes), 2 2448 (+ 96 interleaved subchannel bytes). */
IOP_IMPORT(cdvdman, 40, int, sceCdReadCDDA, (u32 lsn, u32 sectors, void *buffer, sceCdRMode *mode))
IOP_IMPORT(cdvdman, 44, u32, sceCdGetReadPos, (void))
IOP_IMPORT(cdvdman, 46, int, sceCdNop, (void))
IOP_IMPORT(cdvdman, 56, int, sceCdStInit, (u32 bufmax, u32 bankmax, void *buffer))
IOP_IMPORT(cdvdman, 57, int, sceCdStRead, (u32 sectors, u32 *buffer, u32 mode, u32 *error))
IOP_IMPORT(cdvdman, 58, int, sceCdStSeek, (u32 lsn))
IOP_IMPORT(cdvdman, 59, int, sceCdStStart, (u32 lsn, sceCdRMode *mode))
IOP_IMPORT(cdvdman, 60, int, sceCdStStat, (void))
IOP_IMPORT(cdvdman, 61, int, sceCdStStop, (void))
IOP_IMPORT(cdvdman, 67, int, sceCdStPause, (void))
IOP_IMPORT(cdvdman, 68, int, sceCdStResume, (void))
IOP_IMPORT(cdvdman, 75, int, sceCdMmode, (int media))
IOP_IMPORT(cdvdman, 83, int, sceCdReadDvdDualInfo, (int *on_dual, unsigned int *layer1_start))
IOP_IMPORT(cdvdman, 84, int, sceCdLayerSearchFile, (sceCdlFILE *fp, const char *path, int layer))

/* ---- libsd (rom0:LIBSD, the console's sound library: libsd-common.h's values, exports.tab's
 * indices) ------------------------------------------------------------------------------------
 * Every call names what it sets with one 16-bit "entry": the kind of thing in bits 8..15, the
 * core (0 or 1) in bit 0 and, for a voice's parameters and addresses, the voice (0..23) in bits
 * 1..5 (SD_VOICE). A master parameter carries 0x80 as well. Addresses are byte addresses in
 * the SPU2's 2 MiB of sound RAM; the library halves them for the registers, which count
 * halfwords. Volumes: bit 15 clear is a fixed volume, 0..0x3fff (0x7fff for the effect and
 * external-input volumes). Pitch: 0x1000 plays a sample at 48 kHz, one sample per output
 * sample; 0x3fff is the most (almost two octaves up). */
#define SD_CORE_0 0
#define SD_CORE_1 1
#define SD_VOICE(core, v) ((core) | ((v) << 1))

/* sceSdSetParam / sceSdGetParam: a voice's (with SD_VOICE) */
#define SD_VP_VOLL  (0x00 << 8) /* volume, left */
#define SD_VP_VOLR  (0x01 << 8) /* volume, right */
#define SD_VP_PITCH (0x02 << 8)
#define SD_VP_ADSR1 (0x03 << 8) /* attack mode and rate, decay rate, sustain level */
#define SD_VP_ADSR2 (0x04 << 8) /* sustain mode and rate, release mode and rate */
#define SD_VP_ENVX  (0x05 << 8) /* the envelope's current level (read) */
#define SD_VP_VOLXL (0x06 << 8) /* current volumes (read) */
#define SD_VP_VOLXR (0x07 << 8)
/* ... and a core's (with the core) */
#define SD_P_MMIX   (0x08 << 8) /* which sources reach the core's dry and effect mixes */
#define SD_P_MVOLL  ((0x09 << 8) | 0x80) /* master volume */
#define SD_P_MVOLR  ((0x0a << 8) | 0x80)
#define SD_P_EVOLL  ((0x0b << 8) | 0x80) /* effect (reverb) return volume */
#define SD_P_EVOLR  ((0x0c << 8) | 0x80)
#define SD_P_AVOLL  ((0x0d << 8) | 0x80) /* external input volume (core 1: core 0's output) */
#define SD_P_AVOLR  ((0x0e << 8) | 0x80)
#define SD_P_BVOLL  ((0x0f << 8) | 0x80) /* sound data input volume */
#define SD_P_BVOLR  ((0x10 << 8) | 0x80)
#define SD_P_MVOLXL ((0x11 << 8) | 0x80) /* current master volumes (read) */
#define SD_P_MVOLXR ((0x12 << 8) | 0x80)

/* sceSdSetSwitch / sceSdGetSwitch (with the core): a 24-bit mask, bit n = voice n */
#define SD_S_PMON   (0x13 << 8) /* pitch modulation by the voice below */
#define SD_S_NON    (0x14 << 8) /* noise instead of the sample */
#define SD_S_KON    (0x15 << 8) /* key on: start the voices set */
#define SD_S_KOFF   (0x16 << 8) /* key off: release the voices set */
#define SD_S_ENDX   (0x17 << 8) /* voices that reached an end block (read) */
#define SD_S_VMIXL  (0x18 << 8) /* voices in the dry mix, left */
#define SD_S_VMIXEL (0x19 << 8) /* voices sent to the effect, left */
#define SD_S_VMIXR  (0x1a << 8)
#define SD_S_VMIXER (0x1b << 8)

/* sceSdSetAddr / sceSdGetAddr: a core's (with the core) ... */
#define SD_A_ESA  (0x1c << 8) /* effect work area start */
#define SD_A_EEA  (0x1d << 8) /* effect work area end: only its top bits (128 KiB units) exist,
                                 the end is always at xx1ffff */
#define SD_A_TSA  (0x1e << 8) /* transfer start address */
#define SD_A_IRQA (0x1f << 8) /* the address that raises the core's interrupt */
/* ... and a voice's (with SD_VOICE), 16-byte aligned */
#define SD_VA_SSA  (0x20 << 8) /* the sample's start, taken at key on */
#define SD_VA_LSAX (0x21 << 8) /* loop start */
#define SD_VA_NAX  (0x22 << 8) /* the address playing now (read) */

/* sceSdSetCoreAttr / sceSdGetCoreAttr (with the core): value 0 or 1 */
#define SD_C_EFFECT_ENABLE (1 << 1) /* the core's reverb runs (and writes its work area) */
#define SD_C_IRQ_ENABLE    (2 << 1)
#define SD_C_MUTE_ENABLE   (3 << 1)
#define SD_C_NOISE_CLK     (4 << 1) /* value: the noise generator's clock, 0..0x3f */
#define SD_C_SPDIF_MODE    (5 << 1)

/* The envelope (ADSR1, ADSR2). Rates: 0 is the fastest, 0x7f (sustain) stops the envelope.
 * The attack and sustain may be linear or exponential; the decay is exponential down to
 * the sustain level ((sl + 1) / 16 of full); the release linear or exponential. */
#define SD_ADSR_A_LINEAR 0
#define SD_ADSR_A_EXP    1
#define SD_ADSR_S_LINEAR_INC 0
#define SD_ADSR_S_LINEAR_DEC 2
#define SD_ADSR_S_EXP_INC    4
#define SD_ADSR_S_EXP_DEC    6
#define SD_ADSR_R_LINEAR 0
#define SD_ADSR_R_EXP    1
#define SD_ADSR1(amode, ar, dr, sl) \
    ((((amode) & 1) << 15) | (((ar) & 0x7f) << 8) | (((dr) & 0xf) << 4) | ((sl) & 0xf))
#define SD_ADSR2(smode, sr, rmode, rr) \
    ((((smode) & 7) << 13) | (((sr) & 0x7f) << 6) | (((rmode) & 1) << 5) | ((rr) & 0x1f))

/* sceSdVoiceTrans: the channel is the core whose DMA moves the data (0: IOP DMA channel 4,
 * 1: channel 7); DMA moves whole 64-byte blocks. sceSdVoiceTransStatus(channel, 1) waits for
 * the transfer to finish, (channel, 0) asks (1: done). */
#define SD_TRANS_WRITE    0
#define SD_TRANS_READ     1
#define SD_TRANS_STOP     2
#define SD_TRANS_MODE_DMA 0
#define SD_TRANS_MODE_IO  8
#define SD_TRANS_WAIT     1
#define SD_TRANS_POLL     0

/* sceSdBlockTrans: AutoDMA of a buffer into the core's sound data input (the BVOL input; a
 * block of 1 KiB, 256 stereo samples, every 5.33 ms), one-shot or (SD_TRANS_LOOP) as two
 * halves sent in turn for ever, each half's end calling the transfer handler or callback;
 * SD_TRANS_WRITE_FROM starts within the buffer (a fifth argument). sceSdBlockTransStatus:
 * (the half being sent << 24) | the DMA's address (0 when no AutoDMA runs). SD_TRANS_STOP:
 * stops it, returning that same word. */
#define SD_TRANS_WRITE_FROM 3
#define SD_TRANS_LOOP       0x10

/* sceSdProcBatch(batch, rets, num): the commands in order, rets[i] each one's result (0 for
 * the setters); the count done, or -1 - i at the first unknown command i.
 * SD_BATCH_WRITEIOP stores the entry at the IOP address the value names. */
#define SD_BATCH_SETPARAM  0x1
#define SD_BATCH_SETSWITCH 0x2
#define SD_BATCH_SETADDR   0x3
#define SD_BATCH_SETCORE   0x4
#define SD_BATCH_WRITEIOP  0x5
#define SD_BATCH_WRITEEE   0x6
#define SD_BATCH_EERETURN  0x7
#define SD_BATCH_GETPARAM  0x11
#define SD_BATCH_GETSWITCH 0x12
#define SD_BATCH_GETADDR   0x13
#define SD_BATCH_GETCORE   0x14

typedef struct {
    u16 func;
    u16 entry;
    u32 value;
} sceSdBatch; /* 8 bytes */

/* Callbacks and handlers, called from libsd's interrupt handlers (interrupt context): a
 * transfer's end (its handler gets the core and its argument; a callback gets 0), the SPU2's
 * interrupt at IRQA (the handler gets the cores that reached it, bit 0 core 0, bit 1 core 1,
 * and its argument; the callback 0). libsd clears the IRQ enable of each core that reached
 * its IRQA: a program enables it again for the next one. A voice transfer's end with a
 * handler or callback set is told only to it: VoiceTransStatus no longer sees it. */
typedef int (*sceSdTransIntrHandler)(int core, void *arg);
typedef int (*sceSdSpu2IntrHandler)(int core_bit, void *arg);
typedef int (*SdIntrCallback)(void *data);

/* sceSdSetEffectAttr: the reverb's mode (its preset coefficients and work area size; the area
 * is placed to end at the core's EEA, and ESA is set from it), the effect return volume
 * (depth, as EVOLL/EVOLR) and, for echo and delay only, the delay and feedback (0..127). A
 * mode ORed with SD_EFFECT_MODE_CLEAR also zeroes the work area (by sound DMA transfers of
 * its own, so no transfer of the caller's may be running). Work area sizes (bytes): room 0x26c0, studio A/B/C 0x1f40/0x4840/0x6fe0, hall
 * 0xade0, space 0xf6c0, echo and delay 0x18040, pipe 0x3c00. */
#define SD_EFFECT_MODE_OFF      0
#define SD_EFFECT_MODE_ROOM     1
#define SD_EFFECT_MODE_STUDIO_A 2
#define SD_EFFECT_MODE_STUDIO_B 3
#define SD_EFFECT_MODE_STUDIO_C 4
#define SD_EFFECT_MODE_HALL     5
#define SD_EFFECT_MODE_SPACE    6
#define SD_EFFECT_MODE_ECHO     7
#define SD_EFFECT_MODE_DELAY    8
#define SD_EFFECT_MODE_PIPE     9
#define SD_EFFECT_MODE_CLEAR    0x100

typedef struct {
    int core;
    int mode;
    s16 depth_L;
    s16 depth_R;
    int delay;
    int feedback;
} sceSdEffectAttr; /* 20 bytes */

/* sceSdInit(0): the whole SPU2 and library state (voices keyed off, volumes 0, every voice at
 * 0x5000, the 16-byte silent block libsd writes there, effects off); (1): a quick one that
 * keeps the volumes and effect settings. libsd's export table is version 1.4. */
IOP_LIBRARY(libsd, 1, 4)
IOP_IMPORT(libsd, 2, int, sceSdQuit, (void))
IOP_IMPORT(libsd, 4, int, sceSdInit, (int flag))
IOP_IMPORT(libsd, 5, void, sceSdSetParam, (u16 entry, u16 value))
IOP_IMPORT(libsd, 6, u16, sceSdGetParam, (u16 entry))
IOP_IMPORT(libsd, 7, void, sceSdSetSwitch, (u16 entry, u32 value))
IOP_IMPORT(libsd, 8, u32, sceSdGetSwitch, (u16 entry))
IOP_IMPORT(libsd, 9, void, sceSdSetAddr, (u16 entry, u32 value))
IOP_IMPORT(libsd, 10, u32, sceSdGetAddr, (u16 entry))
IOP_IMPORT(libsd, 11, void, sceSdSetCoreAttr, (u16 entry, u16 value))
IOP_IMPORT(libsd, 12, u16, sceSdGetCoreAttr, (u16 entry))
IOP_IMPORT(libsd, 13, u16, sceSdNote2Pitch, (u16 center_note, u16 center_fine, u16 note, s16 fine))
IOP_IMPORT(libsd, 14, u16, sceSdPitch2Note, (u16 center_note, u16 center_fine, u16 pitch))
IOP_IMPORT(libsd, 15, int, sceSdProcBatch, (const sceSdBatch *batch, u32 *rets, u32 num))
IOP_IMPORT(libsd, 17, int, sceSdVoiceTrans, (s16 channel, u16 mode, u8 *iop_addr, u32 *spu_addr, u32 size))
IOP_IMPORT(libsd, 18, int, sceSdBlockTrans, (s16 channel, u16 mode, u8 *iop_addr, u32 size, ...))
IOP_IMPORT(libsd, 19, u32, sceSdVoiceTransStatus, (s16 channel, s16 flag))
IOP_IMPORT(libsd, 20, u32, sceSdBlockTransStatus, (s16 channel, s16 flag))
IOP_IMPORT(libsd, 21, SdIntrCallback, sceSdSetTransCallback, (s32 core, SdIntrCallback cb))
IOP_IMPORT(libsd, 22, SdIntrCallback, sceSdSetIRQCallback, (SdIntrCallback cb))
IOP_IMPORT(libsd, 23, int, sceSdSetEffectAttr, (int core, const sceSdEffectAttr *attr))
IOP_IMPORT(libsd, 24, void, sceSdGetEffectAttr, (int core, sceSdEffectAttr *attr))
IOP_IMPORT(libsd, 25, int, sceSdClearEffectWorkArea, (int core, int channel, int effect_mode))
IOP_IMPORT(libsd, 26, sceSdTransIntrHandler, sceSdSetTransIntrHandler, (int channel, sceSdTransIntrHandler func, void *arg))
IOP_IMPORT(libsd, 27, sceSdSpu2IntrHandler, sceSdSetSpu2IntrHandler, (sceSdSpu2IntrHandler func, void *arg))

#endif /* PINEY_IRX_H */
