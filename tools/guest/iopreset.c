/* iopreset.c: SifIopReset, SifIopReboot, SifIopSync (see iopreset.h). The packet layout and the
 * order of the register writes are the console's (as ps2sdk's iopcontrol.c and the IOP's
 * REBOOT module use them); the code is our own. */
#include "iopreset.h"

/* The RESET packet (104 bytes): header, arglen, mode, arg[80]. */
typedef struct {
    SifCmdHeader_t hdr;
    int arglen;
    int mode;
    char arg[RESET_ARG_MAX + 1];
} ResetPacket;
_Static_assert(sizeof(ResetPacket) == 104, "RESET packet size");

static ResetPacket reset_pkt __attribute__((aligned(64)));
static int reboots;

int SifIopRebootCount(void) { return reboots; }

int SifIopReset(const char *arg, int mode)
{
    int len = 0;
    if (arg)
        while (arg[len])
            len++;
    if (len > RESET_ARG_MAX)
        return 0;

    /* The SIF must be up to send anything (a program may reset first thing). */
    SifInitCmd();

    memset(&reset_pkt, 0, sizeof reset_pkt);
    for (int i = 0; i < len; i++)
        reset_pkt.arg[i] = arg[i];
    reset_pkt.arglen = len;
    reset_pkt.mode = mode;
    reset_pkt.hdr.opt = 0;
    SifWriteBackDCache(&reset_pkt, sizeof reset_pkt);

    /* Nothing more may come from the old IOP; BOOTEND goes before the packet does. */
    SifStopDma();
    SifSetReg(SIF_REG_SMFLAG, SIF_STAT_BOOTEND);
    if (!SifSendCmd(SIF_CMD_RESET_CMD, &reset_pkt, sizeof reset_pkt, NULL, NULL, 0)) {
        /* Not sent: the old IOP is still there; take SIF0 up again. */
        SifSetDChain();
        return 0;
    }
    reboots++;
    SifSetReg(SIF_REG_SMFLAG, SIF_STAT_SIFINIT);
    SifSetReg(SIF_REG_SMFLAG, SIF_STAT_CMDINIT);
    SifSetReg(SIF_SYSREG_RPCINIT, 0);
    SifSetReg(SIF_SYSREG_SUBADDR, 0);
    /* The EE's side starts over with the rebooted IOP at the next SifInitRpc. */
    SifExitRpc();
    return 1;
}

int SifIopReboot(const char *ioprp)
{
    static const char udnl[] = "rom0:UDNL ";
    char buf[RESET_ARG_MAX + 1];
    int n = 0;
    for (const char *s = udnl; *s; s++)
        buf[n++] = *s;
    for (const char *s = ioprp ? ioprp : ""; *s; s++) {
        if (n >= RESET_ARG_MAX)
            return 0;
        buf[n++] = *s;
    }
    buf[n] = 0;
    return SifIopReset(buf, 0);
}

int SifIopSync(void) { return (SifGetReg(SIF_REG_SMFLAG) & SIF_STAT_BOOTEND) != 0; }

int SifIopIsAlive(void) { return (SifGetReg(SIF_REG_SMFLAG) & SIF_STAT_SIFINIT) != 0; }
