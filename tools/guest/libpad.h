/* libpad.h: the pad library our guest programs (and the demo title) use, with the names and
 * shapes of Sony's libpad, talking to the IOP's padman through SIF RPC as the real library does.
 * piney serves padman natively (crates/piney-machine/src/sif/padman.rs).
 *
 * scePadRead fills 32 bytes of the pad's last report:
 *   [0] 0 when the read is valid
 *   [1] (mode id << 4) | (data length in halfwords): 0x41 digital, 0x73 analog, 0x79 DualShock 2
 *   [2] [3] buttons, active low: byte 2 = select L3 R3 start up right down left (bit 0..7),
 *           byte 3 = L2 R2 L1 R1 triangle circle cross square (bit 0..7)
 *   [4] RX [5] RY [6] LX [7] LY, 0x80 centred, 0 left/up (analog modes only)
 *   [8..19] pressure bytes (DualShock 2 mode only)
 */
#ifndef PINEY_LIBPAD_H
#define PINEY_LIBPAD_H

/* scePadGetState results. */
#define scePadStateDisconn 0
#define scePadStateFindPad 1
#define scePadStateFindCTP1 2
#define scePadStateExecCmd 5
#define scePadStateStable 6
#define scePadStateError 7

/* scePadGetReqState results. */
#define scePadReqStateComplete 0
#define scePadReqStateFaild 1
#define scePadReqStateBusy 2

/* scePadInfoMode terms. */
#define InfoModeCurID 1
#define InfoModeCurExID 2
#define InfoModeCurExOffs 3
#define InfoModeIdTable 4

/* scePadInfoAct terms. */
#define InfoActFunc 1
#define InfoActSub 2
#define InfoActSize 3
#define InfoActCurr 4

int scePadInit(int mode);
int scePadEnd(void);
/* addr: a 64-byte aligned buffer of 256 bytes the IOP writes the pad's data into each frame. */
int scePadPortOpen(int port, int slot, void *addr);
int scePadPortClose(int port, int slot);
int scePadRead(int port, int slot, unsigned char *rdata);
int scePadGetState(int port, int slot);
int scePadGetReqState(int port, int slot);
/* The IOP frame counter of the newest pad data frame (0 before the first). */
int scePadGetFrameCount(int port, int slot);
int scePadInfoMode(int port, int slot, int term, int offs);
int scePadSetMainMode(int port, int slot, int offs, int lock);
int scePadInfoAct(int port, int slot, int actno, int term);
/* data: 6 bytes, which actuator each command byte drives (0 small, 1 large, 0xff none). */
int scePadSetActAlign(int port, int slot, const unsigned char *data);
/* data: 6 bytes, the motors' values in the order set by scePadSetActAlign. */
int scePadSetActDirect(int port, int slot, const unsigned char *data);

#endif
