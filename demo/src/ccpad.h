/* ccpad.h: the engine's pad record, reader and motor queue (engine reference, "The pad";
 * issue 5). ccPad::Read and the motor queue behave exactly as crates/piney-input (reader.rs,
 * actuator.rs) so that a run with piney's native hooks and one without leave the same bytes.
 *
 * ccPad layout (0x60 bytes). The reference fixes only +0x28..+0x3f (the motors); the rest is
 * the demo's, documented here for the native engine layer, which reads and writes it:
 *
 *   +0x00 u16 direct       held now (after the left stick's D-pad presses), active high:
 *                          the report's first byte in bits 8-15, the second in bits 0-7
 *   +0x02 u16 push         pressed this frame: now & ~direct
 *   +0x04 u16 unpush       released this frame: direct & ~now
 *   +0x06 u16 repeat       now on a combination's first frame, 0 for 15 frames, then now
 *   +0x08 u8  repeatCount  frames the combination was held after its first, saturating at 15
 *   +0x09 u8  port         0 or 1
 *   +0x0a u8  mode         the last report's byte 1 (0x41 digital, 0x73 analog, 0x79 DS2)
 *   +0x0b u8  analog       1 when the last report carried sticks (mode id 7)
 *   +0x0c f32 leftAngle    atan2(-dx, dy) of the left stick (0 down, pi/2 left, pi up),
 *                          or the D-pad's direction while the stick is in its dead zone
 *   +0x10 f32 rightAngle   the right stick's (0 in digital mode or in the dead zone)
 *   +0x14 u8  leftPow      0..255 (255 for the D-pad's direction)
 *   +0x15 u8  rightPow
 *   +0x16 u8  stick[4]     the last report's RX, RY, LX, LY (0x80 when digital)
 *   +0x1a u8  button[2]    the last report's two button bytes, active low
 *   +0x1c u32 state        ccPad::Ctrl's connection state: 0x00 looking for the pad, 0x10
 *                          waiting for analog mode, 0x20 actuators, 0x30 waiting for
 *                          SetActAlign, 0x40 connected (ccPad::Read runs only here)
 *   +0x20 u32 buf          the address of the 64-byte aligned 256-byte buffer given to
 *                          scePadPortOpen
 *   +0x24 u8  actReady     a DualShock with its actuators set up (SetActuater needs it)
 *   +0x25 u8  reserved[3]
 *   +0x28 u8  sent[6]      the last scePadSetActDirect buffer: small (0/1), large power, 0 x 4
 *   +0x2e u8  actState     ccPad::Ctrl's motor state: 1 looks, 4 waits on the request state
 *   +0x2f u8  actCount     entries queued, 0..3
 *   +0x30 ccPadAct act[4]  entry k at +0x30 + 4k: entry 0 the idle entry, 1..actCount the
 *                          queue (the top last); time (u16 LE, vblanks left), flags (bit 0
 *                          small motor on, bit 1 marked to send), large motor power
 *   +0x40 u8  report[32]   the last scePadRead data
 */
#ifndef DEMO_CCPAD_H
#define DEMO_CCPAD_H

#include "piney_rt.h"

/* Button bits (ccPad.direct etc.). */
#define PAD_L2 0x0001
#define PAD_R2 0x0002
#define PAD_L1 0x0004
#define PAD_R1 0x0008
#define PAD_TRIANGLE 0x0010
#define PAD_CIRCLE 0x0020
#define PAD_CROSS 0x0040
#define PAD_SQUARE 0x0080
#define PAD_SELECT 0x0100
#define PAD_L3 0x0200
#define PAD_R3 0x0400
#define PAD_START 0x0800
#define PAD_UP 0x1000
#define PAD_RIGHT 0x2000
#define PAD_DOWN 0x4000
#define PAD_LEFT 0x8000
#define PAD_DPAD 0xf000

/* ccPad.state values. */
#define PADST_FIND 0x00
#define PADST_MODE 0x10
#define PADST_ACT 0x20
#define PADST_ALIGN 0x30
#define PADST_READY 0x40

/* Motor queue flags. */
#define ACT_SMALL 0x01
#define ACT_MARKED 0x02

typedef struct {
    u16 time; /* vblanks left */
    u8 flags; /* ACT_SMALL, ACT_MARKED */
    u8 power; /* the large motor's power */
} ccPadAct;

typedef struct ccPad {
    u16 direct, push, unpush, repeat; /* +0x00 */
    u8 repeatCount;                   /* +0x08 */
    u8 port;                          /* +0x09 */
    u8 mode;                          /* +0x0a */
    u8 analog;                        /* +0x0b */
    float leftAngle;                  /* +0x0c */
    float rightAngle;                 /* +0x10 */
    u8 leftPow, rightPow;             /* +0x14 */
    u8 stick[4];                      /* +0x16 */
    u8 button[2];                     /* +0x1a */
    u32 state;                        /* +0x1c */
    u32 buf;                          /* +0x20 */
    u8 actReady;                      /* +0x24 */
    u8 reserved[3];                   /* +0x25 */
    u8 sent[6];                       /* +0x28 */
    u8 actState;                      /* +0x2e */
    u8 actCount;                      /* +0x2f */
    ccPadAct act[4];                  /* +0x30 */
    u8 report[32];                    /* +0x40 */
} ccPad;

_Static_assert(sizeof(ccPadAct) == 4, "ccPadAct");
_Static_assert(sizeof(ccPad) == 0x60, "ccPad is 0x60 bytes");
_Static_assert(__builtin_offsetof(ccPad, leftAngle) == 0x0c, "leftAngle");
_Static_assert(__builtin_offsetof(ccPad, leftPow) == 0x14, "leftPow");
_Static_assert(__builtin_offsetof(ccPad, stick) == 0x16, "stick");
_Static_assert(__builtin_offsetof(ccPad, state) == 0x1c, "state");
_Static_assert(__builtin_offsetof(ccPad, buf) == 0x20, "buf");
_Static_assert(__builtin_offsetof(ccPad, sent) == 0x28, "motors at +0x28");
_Static_assert(__builtin_offsetof(ccPad, actState) == 0x2e, "actState");
_Static_assert(__builtin_offsetof(ccPad, actCount) == 0x2f, "actCount");
_Static_assert(__builtin_offsetof(ccPad, act) == 0x30, "act");
_Static_assert(__builtin_offsetof(ccPad, report) == 0x40, "report");

/* The two pads, and ccPad::actuaterSw (the Vibration option; a static of the class). */
extern ccPad ccPads[2];
extern u8 ccPad_actuaterSw;

/* scePadInit and the two ports opened (ccPadThread's set-up). */
void ccPad_Init(void);
/* ccPad::Ctrl, once a frame on ccPadThread: connection states, then the motor states. */
void ccPad_Ctrl(ccPad *p);
/* ccPad::Read (INF 0x00102d40), from ccSystem::Ctrl, for a connected pad. */
void ccPad_Read(ccPad *p);
/* ccPad::Read's logic on one report (two active-low button bytes; sticks RX RY LX LY or
   NULL in digital mode). */
void ccPad_ReadReport(ccPad *p, const u8 buttons[2], const u8 *sticks);
/* SetActuater (INF 0x00102bf0). */
void ccPad_SetActuater(ccPad *p, s32 small, s32 power, u32 ms);
/* ccSystem::Ctrl's motor countdown: finished entries off the top, the top less frameRate. */
void ccPad_ActTick(ccPad *p, u16 frameRate);
/* ccPad::Ctrl's motor part, once a frame for a ready pad: state 4 waits on the last send
   (scePadGetReqState), state 1 sends the marked top's motors (or both off for the marked idle
   entry) with scePadSetActDirect and goes to state 4. */
void ccPad_ActCtrl(ccPad *p);

#endif
