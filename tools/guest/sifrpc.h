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
 * Limits: no EE-side RPC servers (the IOP never binds to us), no user commands, no RDATA,
 * SIF_RPC_M_NOWAIT is supported for SifCallRpc (poll with SifCheckStatRpc). */
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

#endif
