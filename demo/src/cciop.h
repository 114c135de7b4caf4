/* cciop.h: the demo title's IOP, started the way a ps2sdk program (and a game's InitCCSys)
 * starts it: SifInitRpc, the IOP reset and its sync, LOADFILE, rom0:SIO2MAN and rom0:PADMAN
 * (libpad's server), rom0:LIBSD (the sound library), then the title's own IOP modules,
 * demo/iop/ccmon.irx and demo/iop/ccsnd.irx, carried in the ELF and started with
 * SifExecModuleBuffer. ccmon answers a status call (its protocol is in demo/iop/ccmon.c),
 * which ccIop_Poll makes once a second without waiting. ccsnd, the sound driver, plays its
 * tune by itself and a sound effect when ccIop_PlayEffect asks (demo/iop/ccsnd.c). */
#ifndef DEMO_CCIOP_H
#define DEMO_CCIOP_H

#include "piney_rt.h"

/* What ccmon said last. */
typedef struct {
    u32 vblanks;   /* vertical blanks the IOP's monitor thread counted */
    u32 freeBytes; /* the IOP's free memory */
    u32 maxBlock;  /* its largest free block */
    u32 calls;     /* status calls answered */
    s32 module;    /* ccmon's module id, or the error that kept it from starting */
    s32 bound;     /* the status server answered the bind */
    s32 soundModule; /* ccsnd's module id, or the error that kept it from starting */
    s32 soundBound;  /* the sound server answered the bind */
    u32 effects;     /* effect calls sent */
} ccIopStat;

extern ccIopStat ccIop;

/* Reset the IOP and load its modules (before the pad task starts). */
void ccIop_Init(void);
/* Once a frame: every 60 frames a status call goes out; a finished one updates ccIop. */
void ccIop_Poll(void);
/* Play the sound effect: a call to ccsnd without waiting (dropped while the last one is still
   in flight, or without the sound driver). */
void ccIop_PlayEffect(void);

#endif
