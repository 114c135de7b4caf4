/* ccpad.c: ccPad::Read, SetActuater, the motor countdown and ccPad::Ctrl, as the engine
 * reference and issue 5 give them and exactly as crates/piney-input implements them natively
 * (reader.rs: PadReader::read; actuator.rs: ActuatorQueue). Pads go through libpad
 * (tools/guest/libpad.h): padman's SIF RPC and the buffer the IOP writes each frame. */
#include "ccpad.h"
#include "hook.h"
#include "libpad.h"
#include "mathf.h"

ccPad ccPads[2];
u8 ccPad_actuaterSw = 1;

/* The buffers scePadPortOpen hands to the IOP: 256 bytes, 64-byte aligned, one per port. */
static u8 padBuf[2][256] __attribute__((aligned(64)));

/* Offsets within 48 of the centre count as none, per axis; full strength 80 steps past it. */
#define DEAD_ZONE 48
#define REPEAT_DELAY 15
/* A queued entry is sent only with this many vblanks or more left; at most 3 queued. */
#define MIN_SEND_TIME 6
#define QUEUE_DEPTH 3

void ccPad_Init(void)
{
    scePadInit(0);
    for (int port = 0; port < 2; port++) {
        ccPad *p = &ccPads[port];
        memset(p, 0, sizeof *p);
        p->port = (u8)port;
        p->buf = (u32)padBuf[port];
        p->stick[0] = p->stick[1] = p->stick[2] = p->stick[3] = 0x80;
        p->button[0] = p->button[1] = 0xff;
        p->actState = 1;
        if (scePadPortOpen(port, 0, padBuf[port]) == 0)
            printf("ccPad: scePadPortOpen(%d) failed\n", port);
    }
}

/* ---- ccPad::Read ---- */

static s32 past_dead_zone(u8 b)
{
    s32 d = (s32)b - 128;
    if (d > DEAD_ZONE)
        return d - DEAD_ZONE;
    if (d < -DEAD_ZONE)
        return d + DEAD_ZONE;
    return 0;
}

/* floor(255 * sqrt(l2) / 80), at most 255, exactly in integers. (For every l2 a stick can
   give, f32 arithmetic as piney-input does it gives the same truncated value.) */
static u8 strength(s32 l2)
{
    s32 k = 255;
    while (k > 0 && 6400 * k * k > 65025 * l2)
        k--;
    return (u8)k;
}

/* SetAnalogStick: 0 inside the dead zone, else 1 with the angle and strength. The angle is
   atan2(-dx, dy) of the raw offsets, but 0 (down) when dy is exactly 0 (quirk: the game tests
   the y offset before calling atan2f). */
static int analog_stick(u8 x, u8 y, float *angle, u8 *pow)
{
    s32 ax = past_dead_zone(x), ay = past_dead_zone(y);
    if (ax == 0 && ay == 0)
        return 0;
    *pow = strength(ax * ax + ay * ay);
    s32 dx = (s32)x - 128, dy = (s32)y - 128;
    *angle = dy == 0 ? 0.0f : atan2f_((float)-dx, (float)dy);
    return 1;
}

/* The D-pad bits the stick presses: eighths bounded by the odd multiples of pi/8 of the angle
   atan2(-dx, dy), decided exactly with integer slopes (|a| < tan(pi/8)|b| is
   (|a| + |b|)^2 < 2b^2, since tan(pi/8) = sqrt(2) - 1). The diagonals press both directions,
   except up-right, which presses right alone (quirk). */
static u16 eighth(s32 dx, s32 dy)
{
    if (dy == 0)
        return PAD_DOWN; /* angle 0 */
    s32 u = -dx, v = dy; /* u: leftwards, v: downwards */
    s32 au = u < 0 ? -u : u, av = v < 0 ? -v : v;
    s32 s = (au + av) * (au + av);
    if (s < 2 * av * av)
        return v > 0 ? PAD_DOWN : PAD_UP;
    if (s < 2 * au * au)
        return u > 0 ? PAD_LEFT : PAD_RIGHT;
    if (u > 0)
        return v > 0 ? (PAD_DOWN | PAD_LEFT) : (PAD_UP | PAD_LEFT);
    return v > 0 ? (PAD_DOWN | PAD_RIGHT) : PAD_RIGHT;
}

/* The D-pad's own direction (strength 255) for one direction or two adjacent ones; none for
   nothing held or an impossible combination. */
static void dpad_direction(u16 now, float *angle, u8 *pow)
{
    static const signed char eighths[16] = {
        /* angle in eighths of pi; 99: none */
        99, 8, -4, -6, 0, 99, -2, 99, 4, 6, 99, 99, 2, 99, 99, 99,
    };
    s32 e = eighths[now >> 12];
    if (e == 99) {
        *angle = 0;
        *pow = 0;
    } else {
        *angle = (float)e * (PI_F / 8);
        *pow = 255;
    }
}

HOOKABLE void ccPad_ReadReport(ccPad *p, const u8 buttons[2], const u8 *sticks)
{
    u16 now = (u16)~(((u16)buttons[0] << 8) | buttons[1]);
    p->button[0] = buttons[0];
    p->button[1] = buttons[1];
    if (sticks) {
        p->analog = 1;
        memcpy(p->stick, sticks, 4);
        if (analog_stick(sticks[2], sticks[3], &p->leftAngle, &p->leftPow)) {
            /* The stick presses the D-pad only when no D-pad button is held. */
            if (!(now & PAD_DPAD))
                now |= eighth((s32)sticks[2] - 128, (s32)sticks[3] - 128);
        } else {
            dpad_direction(now, &p->leftAngle, &p->leftPow);
        }
        if (!analog_stick(sticks[0], sticks[1], &p->rightAngle, &p->rightPow)) {
            p->rightAngle = 0;
            p->rightPow = 0;
        }
    } else {
        p->analog = 0;
        p->stick[0] = p->stick[1] = p->stick[2] = p->stick[3] = 0x80;
        dpad_direction(now, &p->leftAngle, &p->leftPow);
        p->rightAngle = 0;
        p->rightPow = 0;
    }
    p->push = now & (u16)~p->direct;
    p->unpush = p->direct & (u16)~now;
    if (now && now == p->direct) {
        /* The same combination again: 15 quiet frames, then every frame. */
        if (p->repeatCount < REPEAT_DELAY) {
            p->repeatCount++;
            p->repeat = 0;
        } else {
            p->repeat = now;
        }
    } else {
        p->repeat = now;
        p->repeatCount = 0;
    }
    p->direct = now;
}

HOOKABLE void ccPad_Read(ccPad *p)
{
    if (p->state != PADST_READY)
        return;
    u8 *d = p->report;
    if (scePadRead(p->port, 0, d) == 0 || d[0] != 0)
        return; /* no valid report this frame: the state stays */
    p->mode = d[1];
    /* Mode id 7 (0x73 analog, 0x79 DualShock 2) carries RX RY LX LY after the buttons. */
    ccPad_ReadReport(p, &d[2], (d[1] >> 4) == 7 ? &d[4] : NULL);
}

/* ---- The motor queue ---- */

static u16 actuator_time(u32 ms)
{
    u64 t = ((u64)ms * 3 + 25) / 50;
    return t > 0xffff ? 0xffff : (u16)t;
}

HOOKABLE void ccPad_SetActuater(ccPad *p, s32 small, s32 power, u32 ms)
{
    if (!ccPad_actuaterSw || !p->actReady)
        return;
    u16 t = actuator_time(ms);
    /* From the top down: each entry loses t, or is dropped (the ones above move down). */
    for (s32 k = p->actCount; k > 0; k--) {
        if (p->act[k].time > t) {
            p->act[k].time -= t;
        } else {
            for (s32 j = k; j < p->actCount; j++)
                p->act[j] = p->act[j + 1];
            p->actCount--;
        }
    }
    s32 n = p->actCount;
    if (n < QUEUE_DEPTH) {
        p->act[n].flags |= ACT_MARKED; /* the entry below (or the idle one) sends again */
        p->act[n + 1].time = t;
        p->act[n + 1].flags = (u8)((small ? ACT_SMALL : 0) | ACT_MARKED);
        p->act[n + 1].power = (u8)power;
        p->actCount++;
    }
}

HOOKABLE void ccPad_ActTick(ccPad *p, u16 frameRate)
{
    while (p->actCount > 0 && p->act[p->actCount].time == 0)
        p->actCount--;
    if (p->actCount > 0) {
        ccPadAct *top = &p->act[p->actCount];
        top->time = top->time > frameRate ? top->time - frameRate : 0;
    }
}

/* ccPad::Ctrl's motor states (1 look, 2 send, 4 wait). */
HOOKABLE void ccPad_ActCtrl(ccPad *p)
{
    if (p->actState == 4) {
        /* Waiting on the send: back to looking once the request is done (next frame). */
        if (scePadGetReqState(p->port, 0) != scePadReqStateBusy)
            p->actState = 1;
        return;
    }
    s32 n = p->actCount;
    ccPadAct *e = &p->act[n];
    int send = n == 0 ? (e->flags & ACT_MARKED) : ((e->flags & ACT_MARKED) && e->time >= MIN_SEND_TIME);
    if (!send)
        return;
    e->flags &= ~ACT_MARKED;
    /* The idle entry's motors are both off. */
    memset(p->sent, 0, sizeof p->sent);
    if (n) {
        p->sent[0] = e->flags & ACT_SMALL;
        p->sent[1] = e->power;
    }
    /* State 2: the send; state 4 waits on it from the next frame. */
    scePadSetActDirect(p->port, 0, p->sent);
    p->actState = 4;
    printf("ccPad::Ctrl: port %d scePadSetActDirect small %d large %d (queue %d)\n", p->port,
           p->sent[0], p->sent[1], n);
}

HOOKABLE void ccPad_Ctrl(ccPad *p)
{
    s32 st = scePadGetState(p->port, 0);
    int stable = st == scePadStateStable || st == scePadStateFindCTP1;
    if (p->state != PADST_FIND && st == scePadStateDisconn) {
        p->state = PADST_FIND;
        p->actReady = 0;
        return;
    }
    switch (p->state) {
    case PADST_FIND:
        /* Found (FindCTP1) is not enough: padman answers mode queries once it is Stable. */
        if (st != scePadStateStable)
            break;
        /* A pad with more than one mode (DualShock): analog, locked. */
        if (scePadInfoMode(p->port, 0, InfoModeIdTable, -1) > 0 &&
            scePadSetMainMode(p->port, 0, 1, 3) != 0) {
            p->state = PADST_MODE;
        } else {
            p->state = PADST_READY;
        }
        break;
    case PADST_MODE:
        if (scePadGetReqState(p->port, 0) != scePadReqStateBusy && stable)
            p->state = PADST_ACT;
        break;
    case PADST_ACT: {
        /* Actuator 0 the small motor, 1 the large: the six command bytes' targets. */
        static const u8 align[6] = {0, 1, 0xff, 0xff, 0xff, 0xff};
        if (scePadInfoAct(p->port, 0, -1, 0) > 0 && scePadSetActAlign(p->port, 0, align) != 0)
            p->state = PADST_ALIGN;
        else
            p->state = PADST_READY;
        break;
    }
    case PADST_ALIGN:
        if (scePadGetReqState(p->port, 0) != scePadReqStateBusy && stable) {
            p->actReady = 1;
            p->state = PADST_READY;
        }
        break;
    case PADST_READY:
        ccPad_ActCtrl(p);
        break;
    }
}
