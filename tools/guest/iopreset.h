/* iopreset.h: rebooting the IOP from the EE, as ps2sdk's iopcontrol does it (our own code).
 *
 * SifIopReset sends the SIF system command RESET (0x80000003) to the IOP's sifcmd, whose
 * REBOOT module starts the reboot: the packet is the 16-byte command header, then
 *   +16 arglen  the length of the argument string (its bytes, without the NUL)
 *   +20 mode    the reboot mode (0)
 *   +24 arg     the argument string, 80 bytes (at most 79 characters; NUL-padded)
 * (104 bytes in all). An empty argument reboots the IOP with the BIOS's own modules; an IOPRP
 * image reboots it through UDNL: "rom0:UDNL cdrom0:\\MODULES\\IOPRP300.IMG;1" (SifIopReboot
 * builds that string from the image's path).
 *
 * Before the packet goes, SIF0 (IOP to EE) is stopped and SMFLG.BOOTEND cleared (the EE clears
 * SMFLG bits by writing them); after it, SMFLG.SIFINIT and CMDINIT are cleared, the kernel's
 * software registers SIF_SYSREG_RPCINIT and SIF_SYSREG_SUBADDR are zeroed and the EE's SIF
 * command/RPC layers are shut (SifExitRpc). The rebooted IOP sets SIFINIT, CMDINIT (with its
 * receive buffer in SMCOM) and, once all its boot modules run, BOOTEND: SifIopSync is true
 * from then on, and SifInitRpc(0) starts the SIF over with it. Every RPC client bound before
 * the reboot is stale: the libraries here (loadfile, iopheap, libmc) notice
 * SifIopRebootCount() changing and bind again.
 *
 * A ps2sdk program's start:
 *   SifInitRpc(0);
 *   while (!SifIopReset("", 0))
 *       ;
 *   while (!SifIopSync())
 *       ;
 *   SifInitRpc(0);
 *
 * Needs the IOP variant of the SIF client (sifrpc.h): programs with the line `libs: iop`. */
#ifndef PINEY_IOPRESET_H
#define PINEY_IOPRESET_H

#include "sifrpc.h"

/* The longest argument string (the packet has room for 79 characters and the NUL). */
#define RESET_ARG_MAX 79

/* Reboot the IOP with argument string `arg` (NULL or "" for none) and `mode`. 1 when the
   command was sent, 0 when not (the SIF queue was full, or `arg` is too long). */
int SifIopReset(const char *arg, int mode);
/* Reboot the IOP with the IOPRP image `ioprp` (a path such as "cdrom0:\\IOPRP300.IMG;1"):
   SifIopReset("rom0:UDNL " + ioprp, 0). 1 when sent, 0 when not. */
int SifIopReboot(const char *ioprp);
/* Non-zero once the IOP finished booting (SMFLG.BOOTEND). */
int SifIopSync(void);
/* Non-zero while the IOP's SIF is up (SMFLG.SIFINIT). */
int SifIopIsAlive(void);
/* How many times SifIopReset has sent a reset since power-on. */
int SifIopRebootCount(void);

#endif
