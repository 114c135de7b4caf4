/* libmc.h: the EE memory card library over the IOP's mcserv RPC server (server id 0x80000400),
 * with the names and shapes of ps2sdk's libmc, talking to it the way ps2sdk's libmc does (our
 * own code).
 *
 * Every call but mcInit is asynchronous: it starts one RPC with SIF_RPC_M_NOWAIT and returns 0
 * (or, while another call is in flight, that call's MC_FUNC_* number; -1 before mcInit);
 * mcSync(MC_WAIT, &cmd, &result) waits for it and gives its result. One call at a time.
 *
 * Two command sets exist. rom0:MCSERV (with rom0:MCMAN) has the "old" one (MC_TYPE_MC); the
 * newer XMCSERV/XMCMAN (MC_TYPE_XMC) has another. mcInit finds out which, as ps2sdk's does (its
 * argument is ignored): FLUSH with fd -1 in both sets (the old set's FLUSH answers -5,
 * sceMcResDeniedPermit), then XMC's INIT (0xfe, a 12-byte answer: result, mcserv version,
 * mcman version): an old server has no 0xfe and leaves its last result, -5, so the old INIT
 * (0x70, with offset -217) follows. An unknown function number therefore must leave the
 * server's result word as it was.
 *
 * Function numbers (old, XMC) and argument blocks (D = the 48-byte descriptor block, N = the
 * 1044-byte name block; the reply is always the server's result word, 4 bytes):
 *   INIT 0x70/0xfe D  GET_INFO 0x78/0x01 D  OPEN 0x71/0x02 N  CLOSE 0x72/0x03 D
 *   SEEK 0x75/0x04 D  READ 0x73/0x05 D      WRITE 0x74/0x06 D FLUSH 0x7a/0x0a D
 *   CHDIR 0x7b/0x0c N GETDIR 0x76/0x0d N    SETINFO 0x7c/0x0e N DELETE 0x79/0x0f N
 *   FORMAT 0x77/0x10 D UNFORMAT 0x80/0x11 D
 * D: +0 fd, +4 port, +8 slot, +12 size, +16 offset, +20 origin, +24 buffer (EE), +28 param (EE),
 *    +32 data[16]
 * N: +0 port, +4 slot, +8 flags, +12 maxent, +16 table/curdir (EE), +20 name[1024]
 * GET_INFO (D): old: size/offset/origin = want type/free/format; XMC: size/offset/origin = want
 *   format/free/type. The server DMAs its end parameters to `param`: old +0 type, +4 free
 *   (64 bytes); XMC +0 type, +4 free, +144 formatted (192 bytes). The result is mcman's card
 *   detection: 0 the same card as before, -1 a new formatted card, -2 a new unformatted one,
 *   other negatives no card or an error. With the old set, "formatted" is derived: not when no
 *   card (type 0) or when the result is -2.
 * READ (D: fd, size, buffer): the server DMAs the 16-byte aligned middle of the EE buffer
 *   straight into it and the unaligned head and tail (old: up to 16 bytes each; XMC: 64-byte
 *   alignment, up to 64 bytes each) into the end parameters at `param`: +0 head size, +4 tail
 *   size, +8 head EE address, +12 tail EE address, +16 head bytes, +32 (XMC +80) tail bytes;
 *   this library copies them into the buffer when the call ends. The result: the bytes read.
 * WRITE (D: fd, size, origin, buffer, data): up to 16 bytes: all of them in `data`, size 0,
 *   origin = their count; more: the head up to the first 16-byte boundary in `data` and its
 *   length in `origin`, the rest by `buffer` and `size`, which the server fetches from EE memory
 *   with RDATA requests. The result: the bytes written.
 * OPEN (N: flags = the mode), MKDIR (OPEN with flags 0x40), DELETE (flags 0), GETDIR (flags 0
 *   for the first call, 1 to continue, maxent; the server DMAs one 64-byte sceMcTblGetDir per
 *   entry to the table; result: the entries given), SETINFO (flags = which fields; the server
 *   fetches the 64-byte entry from the table address with RDATA), CHDIR (the server DMAs the
 *   1024-byte current directory to curdir; this library copies it out when the call ends).
 *
 * Needs the IOP variant of the SIF client (sifrpc.h): programs with the line `libs: iop`. */
#ifndef PINEY_LIBMC_H
#define PINEY_LIBMC_H

#include "sifrpc.h"

#define MC_SID 0x80000400

/* mcSync modes. */
#define MC_WAIT   0
#define MC_NOWAIT 1

/* mcInit's interfaces (ignored: mcInit finds out). */
#define MC_TYPE_MC  0
#define MC_TYPE_XMC 1

/* Card types (mcGetInfo). */
#define MC_TYPE_NONE   0
#define MC_TYPE_PSX    1
#define MC_TYPE_PS2    2
#define MC_TYPE_POCKET 3

#define MC_FORMATTED   1
#define MC_UNFORMATTED 0

/* Results (mcman's). */
#define sceMcResSucceed       0
#define sceMcResChangedCard   -1
#define sceMcResNoFormat      -2
#define sceMcResFullDevice    -3
#define sceMcResNoEntry       -4
#define sceMcResDeniedPermit  -5
#define sceMcResNotEmpty      -6
#define sceMcResUpLimitHandle -7
#define sceMcResFailReplace   -8

/* File attributes (sceMcTblGetDir.AttrFile) and creation flags. */
#define sceMcFileAttrReadable    0x0001
#define sceMcFileAttrWriteable   0x0002
#define sceMcFileAttrExecutable  0x0004
#define sceMcFileAttrDupProhibit 0x0008
#define sceMcFileAttrFile        0x0010
#define sceMcFileAttrSubdir      0x0020
#define sceMcFileCreateDir       0x0040
#define sceMcFileAttrClosed      0x0080
#define sceMcFileCreateFile      0x0200
#define sceMcFile0400            0x0400
#define sceMcFileAttrPDAExec     0x0800
#define sceMcFileAttrPS1         0x1000
#define sceMcFileAttrHidden      0x2000
#define sceMcFileAttrExists      0x8000

/* mcSetFileInfo's fields. */
#define sceMcFileInfoCreate 0x01
#define sceMcFileInfoModify 0x02
#define sceMcFileInfoAttr   0x04

/* mcOpen modes (the same bits as above). */
#ifndef O_RDONLY
#define O_RDONLY 0x0001
#define O_WRONLY 0x0002
#define O_RDWR   0x0003
#define O_CREAT  0x0200
#endif
#ifndef SEEK_SET
#define SEEK_SET 0
#define SEEK_CUR 1
#define SEEK_END 2
#endif

/* mcSync's command numbers. */
#define MC_FUNC_NONE     0x00
#define MC_FUNC_GET_INFO 0x01
#define MC_FUNC_OPEN     0x02
#define MC_FUNC_CLOSE    0x03
#define MC_FUNC_SEEK     0x04
#define MC_FUNC_READ     0x05
#define MC_FUNC_WRITE    0x06
#define MC_FUNC_FLUSH    0x0a
#define MC_FUNC_MK_DIR   0x0b
#define MC_FUNC_CH_DIR   0x0c
#define MC_FUNC_GET_DIR  0x0d
#define MC_FUNC_SET_INFO 0x0e
#define MC_FUNC_DELETE   0x0f
#define MC_FUNC_FORMAT   0x10
#define MC_FUNC_UNFORMAT 0x11

/* A date and time (mcman's). */
typedef struct {
    u8 Resv2;
    u8 Sec;
    u8 Min;
    u8 Hour;
    u8 Day;
    u8 Month;
    u16 Year;
} sceMcStDateTime;

/* A directory entry (mcGetDir, mcSetFileInfo): 64 bytes, 64-byte aligned. */
typedef struct {
    sceMcStDateTime _Create;      /* +0 */
    sceMcStDateTime _Modify;      /* +8 */
    u32 FileSizeByte;             /* +16 */
    u16 AttrFile;                 /* +20 */
    u16 Reserve1;                 /* +22 */
    u32 Reserve2;                 /* +24 */
    u32 PdaAplNo;                 /* +28 */
    unsigned char EntryName[32];  /* +32 */
} __attribute__((aligned(64))) sceMcTblGetDir;
typedef sceMcTblGetDir mcTable;
_Static_assert(sizeof(sceMcTblGetDir) == 64, "sceMcTblGetDir layout");

/* Bind to mcserv and find its command set: its INIT result (0), or an error. -1 when already
   done (since the last IOP reboot). */
int mcInit(int type);
/* The card in port/slot: *type, *free (clusters of 1 KiB), *format (each may be NULL). */
int mcGetInfo(int port, int slot, int *type, int *free, int *format);
/* Open `name` with `mode` (O_*): the result is a descriptor. */
int mcOpen(int port, int slot, const char *name, int mode);
int mcClose(int fd);
/* The result is the new position. */
int mcSeek(int fd, int offset, int origin);
int mcRead(int fd, void *buffer, int size);
int mcWrite(int fd, const void *buffer, int size);
int mcFlush(int fd);
int mcMkDir(int port, int slot, const char *name);
/* Change the current directory; the new one's path is copied to currentDir (1024 bytes; may be
   NULL) when the call ends. */
int mcChdir(int port, int slot, const char *newDir, char *currentDir);
/* The entries of `name` (a path with wildcards) into `table` (maxent entries, 64-byte
   aligned); mode 0 starts, 1 continues. The result is the number of entries. */
int mcGetDir(int port, int slot, const char *name, unsigned mode, int maxent, sceMcTblGetDir *table);
int mcSetFileInfo(int port, int slot, const char *name, const sceMcTblGetDir *info, unsigned flags);
int mcDelete(int port, int slot, const char *name);
int mcFormat(int port, int slot);
int mcUnformat(int port, int slot);
/* Wait for (mode MC_WAIT) or look at (MC_NOWAIT) the call in flight: 1 when it ended (its
   MC_FUNC_* in *cmd, its result in *result), 0 while it runs (MC_NOWAIT), -1 when none. */
int mcSync(int mode, int *cmd, int *result);
/* Forget the binding (mcInit again). */
int mcReset(void);

/* piney's helper (not ps2sdk's): the result of the call a mc function just started (it
   returned 0), waited for with mcSync; -1000 when it did not start. */
static inline int mcWaitResult(int started)
{
    if (started != 0)
        return -1000;
    int cmd = -1, result = -1000;
    mcSync(MC_WAIT, &cmd, &result);
    return result;
}

#endif
