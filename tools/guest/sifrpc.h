/* sifrpc.h: a minimal SIF command and RPC client for piney's freestanding guest programs.
 *
 * The same protocol as ps2sdk's EE sifcmd/sifrpc (and Sony's sceSif*): command packets with a
 * 16-byte header sent to the IOP's receive buffer by SifSetDma (syscall 119) with ERT | INT_O,
 * answers received through SIF0 (DMA channel 5, armed by SifSetDChain, syscall 120) into our own
 * receive buffer, whose address the IOP learns from INIT_CMD (opt 0). A DMAC channel 5 handler
 * takes each packet and runs the system command handlers: CHANGE_SADDR, SET_SREG and RPC END.
 * RPC: BIND by sid and CALL (always with a reply, mode 0 waits on a semaphore the END handler
 * signals). SifGetReg/SifSetReg are syscalls 122/121, SifDmaStat 118.
 *
 * Limits: no EE-side RPC servers (the IOP never binds to us), no user commands, no RDATA (in
 * the plain library; see the IOP variant below), SIF_RPC_M_NOWAIT is supported for SifCallRpc
 * (poll with SifCheckStatRpc).
 *
 * The IOP variant. tools/build-guest.sh compiles sifrpc.c a second time with -DPINEY_SIFRPC_IOP
 * into libiop.a, the library of the programs that talk to a real IOP (those whose source has
 * the comment line `libs: iop`, see tools/build-guest.sh: they load modules, reset the IOP,
 * use mcserv). That variant adds what those need, as ps2sdk's EE sifcmd/sifrpc do it:
 *   - SifExitCmd/SifExitRpc, so that the next SifInitRpc starts over with a rebooted IOP
 *     (SifIopReset, iopreset.h, calls SifExitRpc); SifInitCmd then waits for SMFLG.CMDINIT
 *     (the IOP's sifcmd is up and SMCOM holds its receive buffer) instead of SIFINIT;
 *   - the EE's handler of the IOP's RDATA requests (the IOP's sceSifGetOtherData, which
 *     mcserv's write and setfileinfo use to fetch EE memory): the answer is an END packet
 *     (cid RDATA, client = the IOP's receive data) carrying the requested EE bytes;
 *   - SifGetOtherData, the EE's own RDATA request (read IOP memory into EE memory);
 *   - SifCallRpc writes the send and receive buffers back from the data cache (unless
 *     SIF_RPC_M_NOWBDC) and, for SIF_RPC_M_NOWAIT without an end function, asks for no END
 *     packet (rmode 0, as ps2sdk does): the IOP then DMAs the reply and a 64-byte packet with
 *     rec_id 0 and rpc_id 0 over the request packet, and SifCheckStatRpc looks at that packet
 *     (in use and still carrying the call's rpc_id) rather than at client->pkt_addr.
 * The programs built with the plain library are unchanged (their ELFs stay byte-identical);
 * the functions declared below under "IOP variant only" link only into the others. */
#ifndef PINEY_SIFRPC_H
#define PINEY_SIFRPC_H

#include "piney_sys.h"

#define SYS_SifDmaStat   118
#define SYS_SifSetDma    119
#define SYS_SifSetDChain 120
#define SYS_SifSetReg    121
#define SYS_SifGetReg    122

/* SifSetReg/SifGetReg registers (ps2sdk sifdma.h). */
#define SIF_REG_MAINADDR 1
#define SIF_REG_SUBADDR  2
#define SIF_REG_MSFLAG   3
#define SIF_REG_SMFLAG   4
#define SIF_SYSREG_SUBADDR  0x80000000
#define SIF_SYSREG_MAINADDR 0x80000001
#define SIF_SYSREG_RPCINIT  0x80000002

/* SMFLG bits. */
#define SIF_STAT_SIFINIT 0x10000
#define SIF_STAT_CMDINIT 0x20000
#define SIF_STAT_BOOTEND 0x40000

/* Transfer attributes. */
#define SIF_DMA_INT_I 0x02
#define SIF_DMA_INT_O 0x04
#define SIF_DMA_ERT   0x40

/* System command ids. */
#define SIF_CMD_CHANGE_SADDR 0x80000000
#define SIF_CMD_SET_SREG     0x80000001
#define SIF_CMD_INIT_CMD     0x80000002
#define SIF_CMD_RPC_END      0x80000008
#define SIF_CMD_RPC_BIND     0x80000009
#define SIF_CMD_RPC_CALL     0x8000000a

/* The IOP sets this software register (to 1) when its RPC layer is up. */
#define SIF_SREG_RPCINIT 0

/* SifCallRpc mode bits. */
#define SIF_RPC_M_NOWAIT 0x01

/* One SifSetDma transfer (16 bytes). */
typedef struct {
    void *src;
    void *dest;
    int size;
    int attr;
} SifDmaTransfer_t;

/* The command packet header (16 bytes): psize in bits 0-7 and the extra data's size in bits
   8-31 of the first word, the extra data's destination, the command id, an option. */
typedef struct {
    u32 size;
    void *dest;
    u32 cid;
    u32 opt;
} SifCmdHeader_t;

/* The RPC client (ps2sdk's SifRpcClientData_t shape). `server` and `buff` are the IOP
   addresses BIND's END gave; `server` stays NULL until a server answered. */
typedef struct {
    void *pkt_addr;   /* the packet in flight, NULL when none */
    u32 rpc_id;
    int sema_id;      /* -1 when nobody waits */
    u32 mode;
    u32 command;
    void *buff;       /* the server's receive buffer (IOP) */
    void *cbuff;
    void (*end_function)(void *);
    void *end_param;
    void *server;     /* the server data (IOP) */
} SifRpcClientData_t;

/* The kernel's SIF syscalls. */
static inline s32 SifDmaStat(u32 id) { return piney_syscall1(SYS_SifDmaStat, id); }
static inline u32 SifSetDma(SifDmaTransfer_t *list, int count)
{ return (u32)piney_syscall2(SYS_SifSetDma, (u32)list, (u32)count); }
static inline void SifSetDChain(void) { piney_syscall0(SYS_SifSetDChain); }
static inline u32 SifSetReg(u32 reg, u32 value)
{ return (u32)piney_syscall2(SYS_SifSetReg, reg, value); }
static inline u32 SifGetReg(u32 reg) { return (u32)piney_syscall1(SYS_SifGetReg, reg); }
/* The i-variant for interrupt handlers (the negated number). */
static inline void iSifSetDChain(void) { piney_syscall0(-SYS_SifSetDChain); }

/* Start the command layer (idempotent): our receive buffer, the channel 5 handler, INIT_CMD. */
void SifInitCmd(void);
/* Send one command packet (`size` bytes, header included) with optional extra data sent
   before it to `dest` on the IOP. Returns the transfer id, 0 when the SIF queue was full. */
u32 SifSendCmd(u32 cid, void *packet, int size, void *src_extra, void *dest_extra, int size_extra);
/* The EE-side software registers the IOP sets with SET_SREG. */
u32 SifGetSreg(int reg);
/* Start the RPC layer (idempotent): asks the IOP's RPC layer and waits until it answers. */
void SifInitRpc(int mode);
/* Bind `client` to the IOP server `sid`; waits for the answer. 0 when sent (check
   client->server: NULL means no such server yet), <0 on failure. */
int SifBindRpc(SifRpcClientData_t *client, u32 sid, int mode);
/* Call function `fno` of the bound server: `ssize` bytes from `send` go to the server's buffer,
   `rsize` bytes of its answer come back to `receive` (16-byte aligned). Waits for the answer
   unless SIF_RPC_M_NOWAIT. 0 when done (or sent), <0 on failure. */
int SifCallRpc(SifRpcClientData_t *client, int fno, int mode, void *send, int ssize,
               void *receive, int rsize, void (*end_function)(void *), void *end_param);
/* Non-zero while the client's call is in flight. */
int SifCheckStatRpc(SifRpcClientData_t *client);

/* ---- IOP variant only (see the top of this file) ---- */

#define SYS_SifStopDma 0x6b

#define SIF_CMD_RESET_CMD 0x80000003
#define SIF_CMD_RPC_RDATA 0x8000000c

/* SifCallRpc mode bit: do not write the buffers back from the data cache. */
#define SIF_RPC_M_NOWBDC 0x02

/* SifGetOtherData's receive data (ps2sdk's SifRpcReceiveData_t): the same 16-byte header as
   the client data (pkt_addr, rpc_id, sema_id, mode), then the request. */
typedef struct {
    void *pkt_addr;
    u32 rpc_id;
    int sema_id;
    u32 mode;
    void *src;
    void *dest;
    int size;
} SifRpcReceiveData_t;

/* Stop the EE's SIF0 channel (the IOP's sends wait until SifSetDChain arms it again). */
static inline void SifStopDma(void) { piney_syscall0(SYS_SifStopDma); }
/* SifSetDma from an interrupt handler. */
static inline u32 iSifSetDma(SifDmaTransfer_t *list, int count)
{ return (u32)piney_syscall2(-SYS_SifSetDma, (u32)list, (u32)count); }

/* Write back and invalidate the data cache lines of [ptr, ptr + size) (DHWBIN per 64-byte
   line, then SYNC.L), before a DMA reads the bytes or after-the-fact reads of what a DMA wrote.
   (Inline, so usable with either library.) */
static inline void SifWriteBackDCache(void *ptr, int size)
{
    if (size <= 0)
        return;
    u32 end = (u32)ptr + (u32)size;
    for (u32 a = (u32)ptr & ~63u; a < end; a += 64)
        __asm__ volatile("cache 0x18, 0(%0)" : : "r"(a) : "memory");
    __asm__ volatile("sync.l" : : : "memory");
}

/* Stop the command layer: channel 5's handler goes; the next SifInitCmd starts over. */
void SifExitCmd(void);
/* Stop the RPC layer (and the command layer): the next SifInitRpc starts over. */
void SifExitRpc(void);
/* Read `size` bytes of IOP memory at `src` into EE memory at `dest` (RDATA; the IOP answers
   with END carrying the bytes). Waits unless SIF_RPC_M_NOWAIT (then poll
   SifCheckStatRpc((SifRpcClientData_t *)rd)). 0 when done (or sent), <0 on failure. */
int SifGetOtherData(SifRpcReceiveData_t *rd, void *src, void *dest, int size, int mode);

#endif
