/* sifrpc.c: the EE side of the SIF command and RPC protocol for piney's guest programs.
 * See sifrpc.h. The protocol follows ps2sdk's sifcmd/sifrpc (packet layouts in
 * crates/piney-machine/src/sif/rpc.rs); the code is our own.
 *
 * The parts under PINEY_SIFRPC_IOP are the IOP variant's (sifrpc.h); without it this file
 * compiles to exactly the object the plain library has always had. */
#include "sifrpc.h"

/* Addresses through KSEG1-like uncached mirror of RDRAM (0x20000000 | physical): what the IOP
   writes through SIF0 must be read from memory, not from a stale cache line. */
#define UNCACHED(p) ((void *)(((u32)(p) & 0x0fffffff) | 0x20000000))

#define PKT_MAX 112           /* the largest packet, header included */
#define RPC_PACKET_SIZE 64
#define RPC_PACKETS 8
#define PACKET_F_ALLOC 0x01   /* rec_id bit: the packet is in use */

/* The RPC packet (64 bytes): the command header, then rec_id, pkt_addr, rpc_id and the
   request's fields (BIND: client, sid; CALL: client, fno, send_size, receive, recv_size,
   rmode, server; END: client, cid, server, buff, cbuff). */
typedef struct {
    SifCmdHeader_t hdr; /* +0 */
    u32 rec_id;         /* +16 */
    void *pkt_addr;     /* +20 */
    u32 rpc_id;         /* +24 */
    void *client;       /* +28 */
    u32 w[8];           /* +32.. */
} RpcPacket;
_Static_assert(sizeof(RpcPacket) == RPC_PACKET_SIZE, "RPC packet size");

/* Our command receive buffer: the IOP's SIF0 transfers land here (64-byte aligned). */
static u8 recv_buf[128] __attribute__((aligned(64)));
/* The IOP's receive buffer (SMCOM). */
static void *volatile iop_buf;
/* The EE-side software registers (SET_SREG), written by the handler. */
static volatile u32 sregs[32];
static int cmd_ready;
static int rpc_ready;
static RpcPacket rpc_packets[RPC_PACKETS] __attribute__((aligned(64)));
static u32 next_rpc_id = 1;
/* One transfer list per sender; SifSendCmd runs with interrupts off, so one is enough. */
static SifDmaTransfer_t xfer[2] __attribute__((aligned(16)));
#ifdef PINEY_SIFRPC_IOP
/* The channel 5 handler's id (SifExitCmd removes it). */
static s32 sif0_handler_id = -1;
/* The END packets the handler sends in answer to the IOP's RDATA requests: a ring, since a
   packet's bytes must stay put until the SIF has sent them (ps2sdk: its rdata_table). */
#define RDATA_RING 8
static RpcPacket rdata_ring[RDATA_RING] __attribute__((aligned(64)));
static u32 rdata_next;
/* The handler's own transfer list (interrupt context). */
static SifDmaTransfer_t ixfer[2] __attribute__((aligned(16)));
#endif

u32 SifGetSreg(int reg) { return (reg >= 0 && reg < 32) ? sregs[reg] : 0; }

/* Interrupts off/on around the shared state (the handler also touches it). Returns whether they
   were on. */
static int intr_off(void)
{
    u32 st;
    __asm__ volatile("mfc0 %0, $12" : "=r"(st));
    __asm__ volatile("di\n\tsync.p" ::: "memory");
    return (st & 0x10000) != 0; /* Status.EIE */
}
static void intr_restore(int on)
{
    if (on)
        __asm__ volatile("ei" ::: "memory");
}

u32 SifSendCmd(u32 cid, void *packet, int size, void *src_extra, void *dest_extra, int size_extra)
{
    SifCmdHeader_t *h = packet;
    if (size < 16 || size > PKT_MAX)
        return 0;
    int on = intr_off();
    int n = 0;
    h->size = (u32)size | ((u32)(size_extra > 0 ? size_extra : 0) << 8);
    h->dest = size_extra > 0 ? dest_extra : NULL;
    h->cid = cid;
    if (size_extra > 0) {
        xfer[n].src = src_extra;
        xfer[n].dest = dest_extra;
        xfer[n].size = size_extra;
        xfer[n].attr = 0;
        n++;
    }
    xfer[n].src = packet;
    xfer[n].dest = iop_buf;
    xfer[n].size = size;
    /* ERT ends the IOP's chain, INT_O interrupts the IOP: its sifcmd takes the packet. */
    xfer[n].attr = SIF_DMA_ERT | SIF_DMA_INT_O;
    n++;
    u32 id = SifSetDma(xfer, n);
    intr_restore(on);
    return id;
}

#ifdef PINEY_SIFRPC_IOP
/* SifSendCmd for the handlers (interrupt context: interrupts are off already, iSifSetDma). */
static u32 isend_cmd(u32 cid, void *packet, int size, void *src_extra, void *dest_extra,
                     int size_extra)
{
    SifCmdHeader_t *h = packet;
    int n = 0;
    h->size = (u32)size | ((u32)(size_extra > 0 ? size_extra : 0) << 8);
    h->dest = size_extra > 0 ? dest_extra : NULL;
    h->cid = cid;
    if (size_extra > 0) {
        ixfer[n].src = src_extra;
        ixfer[n].dest = dest_extra;
        ixfer[n].size = size_extra;
        ixfer[n].attr = 0;
        n++;
    }
    ixfer[n].src = packet;
    ixfer[n].dest = iop_buf;
    ixfer[n].size = size;
    ixfer[n].attr = SIF_DMA_ERT | SIF_DMA_INT_O;
    n++;
    return iSifSetDma(ixfer, n);
}
#endif

/* ---- the system command handlers (interrupt context) ---- */

/* A received packet, as words or as an RPC packet. */
typedef union {
    u32 w[PKT_MAX / 4];
    RpcPacket rpc;
} RecvPacket;

static void h_change_saddr(const RecvPacket *p) { iop_buf = (void *)p->w[4]; }

static void h_set_sreg(const RecvPacket *p)
{
    if (p->w[4] < 32)
        sregs[p->w[4]] = p->w[5];
}

static void h_rpc_end(const RecvPacket *p)
{
    const RpcPacket *e = &p->rpc;
    SifRpcClientData_t *c = e->client;
    if (!c)
        return;
    u32 req = e->w[0];
    if (req == SIF_CMD_RPC_CALL) {
        if (c->end_function)
            c->end_function(c->end_param);
    } else if (req == SIF_CMD_RPC_BIND) {
        c->server = (void *)e->w[1];
        c->buff = (void *)e->w[2];
        c->cbuff = (void *)e->w[3];
    }
    /* The packet the request went out in is free again. */
    RpcPacket *mine = c->pkt_addr;
    if (mine)
        ((RpcPacket *)UNCACHED(mine))->rec_id = 0;
    c->pkt_addr = NULL;
    if (c->sema_id >= 0)
        iSignalSema(c->sema_id);
}

#ifdef PINEY_SIFRPC_IOP
/* RDATA from the IOP (its sceSifGetOtherData): +28 the IOP's receive data, +32 src (EE),
   +36 dest (IOP), +40 size. The answer: END with +20 the request's packet, +28 its receive
   data, +32 cid RDATA, and the `size` EE bytes at src sent to dest before it. (The EE bytes
   must be in memory: whoever asked the IOP to fetch them wrote them back from the cache.) */
static void h_rpc_rdata(const RecvPacket *p)
{
    const RpcPacket *q = &p->rpc;
    RpcPacket *e = UNCACHED(&rdata_ring[rdata_next]);
    rdata_next = (rdata_next + 1) % RDATA_RING;
    memset(e, 0, sizeof *e);
    e->pkt_addr = q->pkt_addr;
    e->rpc_id = q->rpc_id;
    e->client = q->client;
    e->w[0] = SIF_CMD_RPC_RDATA;
    isend_cmd(SIF_CMD_RPC_END, e, RPC_PACKET_SIZE, (void *)q->w[0], (void *)q->w[1],
              (int)q->w[2]);
}
#endif

/* DMAC channel 5 (SIF0): a command packet arrived in recv_buf. */
static s32 sif0_handler(s32 ch)
{
    (void)ch;
    volatile u32 *buf = UNCACHED(recv_buf);
    u32 size = buf[0] & 0xff;
    if (size >= 16 && size <= PKT_MAX) {
        RecvPacket pkt;
        for (u32 i = 0; i < (size + 3) / 4; i++)
            pkt.w[i] = buf[i];
        /* Clear the size so a stale packet is never taken twice. */
        buf[0] = 0;
        switch (pkt.w[2]) {
        case SIF_CMD_CHANGE_SADDR: h_change_saddr(&pkt); break;
        case SIF_CMD_SET_SREG: h_set_sreg(&pkt); break;
        case SIF_CMD_RPC_END: h_rpc_end(&pkt); break;
#ifdef PINEY_SIFRPC_IOP
        case SIF_CMD_RPC_RDATA: h_rpc_rdata(&pkt); break;
#endif
        default: break; /* no handler: ignored, as ps2sdk's sifcmd does */
        }
    }
    /* The packet's tag stopped channel 5: arm it again for the next one. */
    iSifSetDChain();
    ExitHandler();
    return 0;
}

void SifInitCmd(void)
{
    int on = intr_off();
    if (cmd_ready) {
        intr_restore(on);
        return;
    }
    cmd_ready = 1;
    memset(UNCACHED(recv_buf), 0, sizeof recv_buf);
#ifdef PINEY_SIFRPC_IOP
    /* A fresh start (after SifExitCmd, e.g. an IOP reboot): no IOP buffer yet, no sregs. */
    iop_buf = NULL;
    for (int i = 0; i < 32; i++)
        sregs[i] = 0;
#endif
    intr_restore(on);

#ifdef PINEY_SIFRPC_IOP
    sif0_handler_id = AddDmacHandler(5, sif0_handler, 0);
#else
    AddDmacHandler(5, sif0_handler, 0);
#endif
    EnableDmac(5);

#ifdef PINEY_SIFRPC_IOP
    /* The IOP's sifcmd writes its receive buffer into SMCOM, then sets SMFLG.CMDINIT (ps2sdk
       waits for CMDINIT too). SifIopReset cleared it; the rebooted IOP sets it again. */
    while (!(SifGetReg(SIF_REG_SMFLAG) & SIF_STAT_CMDINIT))
        ;
#else
    /* The IOP publishes its receive buffer in SMCOM once its SIF is up (SMFLG.SIFINIT). */
    while (!(SifGetReg(SIF_REG_SMFLAG) & SIF_STAT_SIFINIT))
        ;
#endif
    iop_buf = (void *)SifGetReg(SIF_REG_SUBADDR);
    SifSetReg(SIF_SYSREG_SUBADDR, (u32)iop_buf);
    SifSetReg(SIF_SYSREG_MAINADDR, (u32)&sregs[0]);
    SifSetDChain();

    /* INIT_CMD, opt 0: the IOP learns where our receive buffer is. */
    static u32 pkt[5] __attribute__((aligned(16)));
    pkt[3] = 0;
    pkt[4] = (u32)UNCACHED(recv_buf);
    while (!SifSendCmd(SIF_CMD_INIT_CMD, pkt, sizeof pkt, NULL, NULL, 0))
        ;
    /* The packet's bytes are taken when queued; wait until it reached the IOP anyway. */
}

void SifInitRpc(int mode)
{
    (void)mode;
    SifInitCmd();
    int on = intr_off();
    if (rpc_ready) {
        intr_restore(on);
        return;
    }
    rpc_ready = 1;
    memset(UNCACHED(rpc_packets), 0, sizeof rpc_packets);
    intr_restore(on);

    /* INIT_CMD, opt 1: the IOP's RPC layer answers with SET_SREG(SIF_SREG_RPCINIT, 1). */
    static u32 pkt[4] __attribute__((aligned(16)));
    pkt[3] = 1;
    while (!SifSendCmd(SIF_CMD_INIT_CMD, pkt, sizeof pkt, NULL, NULL, 0))
        ;
    while (!SifGetSreg(SIF_SREG_RPCINIT))
        ;
    SifSetReg(SIF_SYSREG_RPCINIT, 1);
}

/* A free RPC packet (uncached view), marked in use with a fresh rpc_id; NULL when all busy. */
static RpcPacket *get_packet(void)
{
    int on = intr_off();
    RpcPacket *r = NULL;
    for (int i = 0; i < RPC_PACKETS; i++) {
        RpcPacket *p = UNCACHED(&rpc_packets[i]);
        if (!(p->rec_id & PACKET_F_ALLOC)) {
            memset(p, 0, sizeof *p);
            p->rec_id = PACKET_F_ALLOC;
            p->rpc_id = next_rpc_id++;
            p->pkt_addr = p;
            r = p;
            break;
        }
    }
    intr_restore(on);
    return r;
}

static int new_sema(void)
{
    ee_sema_t s;
    memset(&s, 0, sizeof s);
    s.init_count = 0;
    s.max_count = 1;
    return CreateSema(&s);
}

int SifBindRpc(SifRpcClientData_t *client, u32 sid, int mode)
{
    (void)mode;
    client->command = 0;
    client->server = NULL;
    RpcPacket *p = get_packet();
    if (!p)
        return -1;
    client->pkt_addr = p;
    client->rpc_id = p->rpc_id;
    p->client = client;
    p->w[0] = sid;
    int sema = new_sema();
    if (sema < 0) {
        p->rec_id = 0;
        return -2;
    }
    client->sema_id = sema;
    if (!SifSendCmd(SIF_CMD_RPC_BIND, p, RPC_PACKET_SIZE, NULL, NULL, 0)) {
        p->rec_id = 0;
        DeleteSema(sema);
        client->sema_id = -1;
        return -3;
    }
    WaitSema(sema);
    DeleteSema(sema);
    client->sema_id = -1;
    return 0;
}

int SifCallRpc(SifRpcClientData_t *client, int fno, int mode, void *send, int ssize,
               void *receive, int rsize, void (*end_function)(void *), void *end_param)
{
    if (!client->server)
        return -4;
    RpcPacket *p = get_packet();
    if (!p)
        return -1;
    client->pkt_addr = p;
    client->rpc_id = p->rpc_id;
    client->end_function = end_function;
    client->end_param = end_param;
    p->client = client;
    p->w[0] = (u32)fno;     /* rpc_number */
    p->w[1] = (u32)ssize;   /* send_size */
    p->w[2] = (u32)receive; /* receive */
    p->w[3] = (u32)rsize;   /* recv_size */
    p->w[4] = 1;            /* rmode: answer with END */
    p->w[5] = (u32)client->server;
    int sema = -1;
    if (!(mode & SIF_RPC_M_NOWAIT)) {
        sema = new_sema();
        if (sema < 0) {
            p->rec_id = 0;
            return -2;
        }
    }
    client->sema_id = sema;
#ifdef PINEY_SIFRPC_IOP
    if (!(mode & SIF_RPC_M_NOWBDC)) {
        SifWriteBackDCache(send, ssize);
        SifWriteBackDCache(receive, rsize);
    }
    /* NOWAIT without an end function: no END packet (rmode 0); the IOP frees the packet by
       writing over it and SifCheckStatRpc sees that. */
    if ((mode & SIF_RPC_M_NOWAIT) && !end_function)
        p->w[4] = 0;
#endif
    /* The arguments go before the packet, into the server's buffer. */
    if (!SifSendCmd(SIF_CMD_RPC_CALL, p, RPC_PACKET_SIZE, send, client->buff, ssize)) {
        p->rec_id = 0;
        client->pkt_addr = NULL;
        if (sema >= 0)
            DeleteSema(sema);
        client->sema_id = -1;
        return -3;
    }
    if (sema < 0)
        return 0;
    WaitSema(sema);
    DeleteSema(sema);
    client->sema_id = -1;
    return 0;
}

#ifdef PINEY_SIFRPC_IOP
int SifCheckStatRpc(SifRpcClientData_t *client)
{
    /* In flight while the packet is in use and still the call's (an END clears pkt_addr; an
       rmode 0 answer writes rec_id 0 and rpc_id 0 over the packet). */
    volatile RpcPacket *p = *(void *volatile *)&client->pkt_addr;
    if (!p)
        return 0;
    if (p->rpc_id != client->rpc_id)
        return 0;
    return (p->rec_id & PACKET_F_ALLOC) != 0;
}

void SifExitCmd(void)
{
    int on = intr_off();
    if (sif0_handler_id >= 0) {
        DisableDmac(5);
        RemoveDmacHandler(5, sif0_handler_id);
        sif0_handler_id = -1;
    }
    cmd_ready = 0;
    intr_restore(on);
}

void SifExitRpc(void)
{
    SifExitCmd();
    int on = intr_off();
    rpc_ready = 0;
    intr_restore(on);
}

int SifGetOtherData(SifRpcReceiveData_t *rd, void *src, void *dest, int size, int mode)
{
    RpcPacket *p = get_packet();
    if (!p)
        return -1;
    rd->pkt_addr = p;
    rd->rpc_id = p->rpc_id;
    rd->sema_id = -1;
    rd->src = src;
    rd->dest = dest;
    rd->size = size;
    p->client = rd;       /* +28 the receive data */
    p->w[0] = (u32)src;   /* +32 src (IOP) */
    p->w[1] = (u32)dest;  /* +36 dest (EE) */
    p->w[2] = (u32)size;  /* +40 size */
    /* No stale line may hide what the SIF writes. */
    SifWriteBackDCache(dest, size);
    int sema = -1;
    if (!(mode & SIF_RPC_M_NOWAIT)) {
        sema = new_sema();
        if (sema < 0) {
            p->rec_id = 0;
            return -2;
        }
    }
    rd->sema_id = sema;
    if (!SifSendCmd(SIF_CMD_RPC_RDATA, p, RPC_PACKET_SIZE, NULL, NULL, 0)) {
        p->rec_id = 0;
        rd->pkt_addr = NULL;
        if (sema >= 0)
            DeleteSema(sema);
        rd->sema_id = -1;
        return -3;
    }
    if (sema < 0)
        return 0;
    WaitSema(sema);
    DeleteSema(sema);
    rd->sema_id = -1;
    return 0;
}
#else
int SifCheckStatRpc(SifRpcClientData_t *client)
{
    return *(void *volatile *)&client->pkt_addr != NULL;
}
#endif
