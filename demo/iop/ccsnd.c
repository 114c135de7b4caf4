/* ccsnd.c: the demo title's sound driver, an IOP module over rom0:LIBSD as a game's is.
 *
 * The demo (demo/src/cciop.c) loads rom0:LIBSD, the console's sound library, then starts this
 * module from its ELF with SifExecModuleBuffer. It plays a short looping tune of its own on
 * the SPU2's core 0 and, when the EE asks, a sound effect.
 *
 * The protocol:
 *   server id (sid) 0x6363534e ("ccSN" read as a big-endian word), one function:
 *   fno 0  PLAY_EFFECT  no argument, no reply: key the effect voice (the "blip"); the EE
 *                       calls it without waiting
 *   any other fno: ignored.
 *
 * Sound RAM (2 MiB, byte addresses):
 *   0x000000-0x004fff  the cores' own areas (their output and input buffers)
 *   0x005000-0x00500f  libsd's silent block (sceSdInit points every voice at it)
 *   0x005010-          the bank of demo/iop/ccsnd_samples.h (tools/adpcm.py), CCSND_BANK_BYTES:
 *                      lead, bass, kick, hat, blip, each at CCSND_SPU_BASE + its offset
 *   0x1d5220-0x1dffff  core 0's reverb work area: hall (0xade0 bytes) ending at EEA 0x1dffff
 *                      (libsd places it there from the EEA and sets ESA)
 *
 * Core 0's voices:
 *   0 lead (the soft square, reverb), 1 bass (dry), 2 percussion (kick, tom = the kick an
 *   octave up, hat; reverb), 3 the effect (reverb).
 * Core 0's output reaches the outputs through core 1's external input (sceSdInit(0) sets core
 * 1's AVOL to full), so both cores' master volumes are set.
 *
 * The tune: 4 bars of 16 steps (sixteenth notes), A minor, chords Am F C G; a step is 7
 * vertical blanks (116.8 ms at NTSC's 59.94 Hz, 128.4 beats a minute), the loop 448 blanks
 * (7.47 s). Each step keys off, then keys on, the voices the step changes.
 *
 * The module: _start initialises the SPU2 through libsd, transfers the bank and sets the
 * voices and the reverb, then creates a semaphore (the two threads' libsd calls take it in
 * turn) and two threads and stays resident (RESIDENT_END). The sequencer thread (priority 30)
 * waits for vertical blanks (WaitVblankStart) and plays the steps; the server thread
 * (priority 40) registers the server and serves in sceSifRpcLoop. */
#include "irx.h"

#include "ccsnd_samples.h"

IRX_ID("ccsnd", 1, 1);

#define CCSND_SID 0x6363534e
#define CCSND_PLAY_EFFECT 0

/* Core 0's voices, and their bits in the switch masks (KON, KOFF, VMIX*). */
#define V_LEAD 0
#define V_BASS 1
#define V_PERC 2
#define V_FX   3
#define BIT(v) (1u << (v))

/* Where core 0's reverb work area ends (the top bits only: xx1ffff). */
#define REVERB_EEA 0x1dffff

/* A step, in vertical blanks. */
#define STEP_VBLANKS 7
#define STEPS 64

/* The tracks: one byte a step. Melodic: 0 (oo) carries on, OFF keys off, a note number
   (60 = C4) keys the note on. Percussion: 0 (oo) nothing, K kick, T tom, H hat. */
#define oo  0
#define OFF 1
#define K   1
#define T   2
#define H   3

/* The notes used (MIDI numbers). */
#define F1 29
#define G1 31
#define A1 33
#define C2 36
#define F2 41
#define G2 43
#define A2 45
#define C3 48
#define G4 67
#define A4 69
#define B4 71
#define C5 72
#define D5 74
#define E5 76
#define G5 79
#define A5 81

static const u8 lead_track[STEPS] = {
    /* Am */ A4, oo, C5, oo, E5, oo, A5, oo, G5, oo, E5, oo, C5, oo, D5, oo,
    /* F  */ E5, oo, oo, oo, C5, oo, A4, oo, C5, oo, oo, oo, OFF, oo, oo, oo,
    /* C  */ G4, oo, C5, oo, E5, oo, G5, oo, A5, oo, G5, oo, E5, oo, C5, oo,
    /* G  */ D5, oo, oo, oo, B4, oo, G4, oo, B4, oo, D5, oo, oo, oo, OFF, oo,
};

static const u8 bass_track[STEPS] = {
    /* Am */ A1, oo, A2, oo, A1, oo, A2, oo, A1, oo, A2, oo, A1, oo, A2, oo,
    /* F  */ F1, oo, F2, oo, F1, oo, F2, oo, F1, oo, F2, oo, F1, oo, F2, oo,
    /* C  */ C2, oo, C3, oo, C2, oo, C3, oo, C2, oo, C3, oo, C2, oo, C3, oo,
    /* G  */ G1, oo, G2, oo, G1, oo, G2, oo, G1, oo, G2, oo, G1, oo, G2, oo,
};

static const u8 perc_track[STEPS] = {
    K, oo, H, oo, T, oo, H, oo, K, oo, H, K, T, oo, H, oo,
    K, oo, H, oo, T, oo, H, oo, K, oo, H, K, T, oo, H, oo,
    K, oo, H, oo, T, oo, H, oo, K, oo, H, K, T, oo, H, oo,
    K, oo, H, oo, T, oo, H, oo, K, oo, H, oo, T, T, T, T,
};

static SifRpcDataQueue_t queue;
static SifRpcServerData_t server;
static u32 buffer[16] __attribute__((aligned(16)));
static int lock;
static u32 effects;

/* A fixed volume (bit 15 clear), 0..0x3fff. */
#define VOL(v) ((v) & 0x3fff)

/* One voice of core 0: volumes, envelope, pitch and the sample it starts at (SSA, taken at
   each key on). */
static void set_voice(int v, u16 left, u16 right, u16 adsr1, u16 adsr2, u16 pitch, u32 sample)
{
    sceSdSetParam(SD_VOICE(SD_CORE_0, v) | SD_VP_VOLL, VOL(left));
    sceSdSetParam(SD_VOICE(SD_CORE_0, v) | SD_VP_VOLR, VOL(right));
    sceSdSetParam(SD_VOICE(SD_CORE_0, v) | SD_VP_ADSR1, adsr1);
    sceSdSetParam(SD_VOICE(SD_CORE_0, v) | SD_VP_ADSR2, adsr2);
    sceSdSetParam(SD_VOICE(SD_CORE_0, v) | SD_VP_PITCH, pitch);
    sceSdSetAddr(SD_VOICE(SD_CORE_0, v) | SD_VA_SSA, CCSND_SPU_BASE + sample);
}

static int setup(void)
{
    /* The whole library and SPU2 state: voices off, volumes 0, effects off. */
    sceSdInit(0);

    /* Master volumes: core 0 (its output is core 1's external input) and core 1 (the
       outputs). */
    sceSdSetParam(SD_CORE_0 | SD_P_MVOLL, VOL(0x3fff));
    sceSdSetParam(SD_CORE_0 | SD_P_MVOLR, VOL(0x3fff));
    sceSdSetParam(SD_CORE_1 | SD_P_MVOLL, VOL(0x3fff));
    sceSdSetParam(SD_CORE_1 | SD_P_MVOLR, VOL(0x3fff));

    /* The bank into sound RAM by core 0's DMA (IOP channel 4), then wait for it: whole
       64-byte blocks, so the bank is padded to them. */
    int sent = sceSdVoiceTrans(0, SD_TRANS_WRITE | SD_TRANS_MODE_DMA, (u8 *)ccsnd_bank,
                               (u32 *)CCSND_SPU_BASE, CCSND_BANK_BYTES);
    if (sent < 0) {
        printf("ccsnd: the sample transfer did not start (%d)\n", sent);
        return -1;
    }
    sceSdVoiceTransStatus(0, SD_TRANS_WAIT);

    /* The voices. Envelope rates: 0 the fastest; a sustain rate of 0x7f holds the level. */
    set_voice(V_LEAD, 0x1400, 0x1a00, /* a little to the right */
              SD_ADSR1(SD_ADSR_A_LINEAR, 0x20, 0xa, 0xa), /* 12 ms attack, decay to 11/16 */
              SD_ADSR2(SD_ADSR_S_EXP_DEC, 0x40, SD_ADSR_R_EXP, 0x0a), /* slow fade, 43 ms */
              ccsnd_lead_pitch[A4 - CCSND_LEAD_NOTE_LO], CCSND_LEAD_OFFSET);
    set_voice(V_BASS, 0x1c00, 0x1c00,
              SD_ADSR1(SD_ADSR_A_LINEAR, 0x10, 0xc, 0x6), /* a pluck: decay to 7/16 */
              SD_ADSR2(SD_ADSR_S_EXP_DEC, 0x48, SD_ADSR_R_EXP, 0x08),
              ccsnd_bass_pitch[A1 - CCSND_BASS_NOTE_LO], CCSND_BASS_OFFSET);
    set_voice(V_PERC, 0x1800, 0x1600, /* the samples carry their own decay */
              SD_ADSR1(SD_ADSR_A_LINEAR, 0x00, 0xf, 0xf),
              SD_ADSR2(SD_ADSR_S_LINEAR_INC, 0x7f, SD_ADSR_R_EXP, 0x08),
              CCSND_KICK_PITCH, CCSND_KICK_OFFSET);
    set_voice(V_FX, 0x2000, 0x2000,
              SD_ADSR1(SD_ADSR_A_LINEAR, 0x00, 0xf, 0xf),
              SD_ADSR2(SD_ADSR_S_LINEAR_INC, 0x7f, SD_ADSR_R_EXP, 0x08),
              CCSND_BLIP_PITCH, CCSND_BLIP_OFFSET);

    /* Reverb on core 0: its work area ends at REVERB_EEA; the hall preset (libsd sets ESA
       below the end by the preset's size and zeroes the area), the effect return volume as
       its depth, then the core's effect enable. */
    sceSdSetAddr(SD_CORE_0 | SD_A_EEA, REVERB_EEA);
    sceSdEffectAttr fx;
    fx.core = SD_CORE_0;
    fx.mode = SD_EFFECT_MODE_HALL | SD_EFFECT_MODE_CLEAR;
    fx.depth_L = 0x1c00;
    fx.depth_R = 0x1c00;
    fx.delay = 0;
    fx.feedback = 0;
    int r = sceSdSetEffectAttr(SD_CORE_0, &fx);
    if (r < 0)
        printf("ccsnd: no reverb (%d)\n", r);
    sceSdSetParam(SD_CORE_0 | SD_P_EVOLL, 0x1c00);
    sceSdSetParam(SD_CORE_0 | SD_P_EVOLR, 0x1c00);
    sceSdSetCoreAttr(SD_CORE_0 | SD_C_EFFECT_ENABLE, 1);

    /* The mixes: every voice of ours dry; lead, percussion and effect into the reverb. */
    u32 ours = BIT(V_LEAD) | BIT(V_BASS) | BIT(V_PERC) | BIT(V_FX);
    u32 wet = BIT(V_LEAD) | BIT(V_PERC) | BIT(V_FX);
    sceSdSetSwitch(SD_CORE_0 | SD_S_VMIXL, ours);
    sceSdSetSwitch(SD_CORE_0 | SD_S_VMIXR, ours);
    sceSdSetSwitch(SD_CORE_0 | SD_S_VMIXEL, wet);
    sceSdSetSwitch(SD_CORE_0 | SD_S_VMIXER, wet);
    return 0;
}

/* A melodic track's step: its note's pitch now, its voice's bit in *on or *off. */
static void melodic(int v, u8 step, const u16 *pitch, int lo, int hi, u32 *on, u32 *off)
{
    if (step == OFF) {
        *off |= BIT(v);
    } else if (step >= lo && step <= hi) {
        sceSdSetParam(SD_VOICE(SD_CORE_0, v) | SD_VP_PITCH, pitch[step - lo]);
        *on |= BIT(v);
    }
}

static void play_step(int s)
{
    u32 on = 0, off = 0;
    melodic(V_LEAD, lead_track[s], ccsnd_lead_pitch, CCSND_LEAD_NOTE_LO, CCSND_LEAD_NOTE_HI,
            &on, &off);
    melodic(V_BASS, bass_track[s], ccsnd_bass_pitch, CCSND_BASS_NOTE_LO, CCSND_BASS_NOTE_HI,
            &on, &off);
    u8 p = perc_track[s];
    if (p != oo) {
        /* The percussion voice's sample and pitch for this hit (SSA is taken at key on). */
        u32 sample = p == H ? CCSND_HAT_OFFSET : CCSND_KICK_OFFSET;
        u16 pitch = p == H ? CCSND_HAT_PITCH : p == T ? CCSND_KICK_PITCH * 2 : CCSND_KICK_PITCH;
        sceSdSetAddr(SD_VOICE(SD_CORE_0, V_PERC) | SD_VA_SSA, CCSND_SPU_BASE + sample);
        sceSdSetParam(SD_VOICE(SD_CORE_0, V_PERC) | SD_VP_PITCH, pitch);
        on |= BIT(V_PERC);
    }
    /* Key off first: a voice keyed on again restarts its envelope from the attack. */
    if (off)
        sceSdSetSwitch(SD_CORE_0 | SD_S_KOFF, off);
    if (on)
        sceSdSetSwitch(SD_CORE_0 | SD_S_KON, on);
}

static void sequencer_thread(void *arg)
{
    (void)arg;
    for (int s = 0;; s = (s + 1) % STEPS) {
        WaitSema(lock);
        play_step(s);
        SignalSema(lock);
        for (int i = 0; i < STEP_VBLANKS; i++)
            WaitVblankStart();
    }
}

static void *serve(int fno, void *data, int size)
{
    (void)data;
    (void)size;
    if (fno == CCSND_PLAY_EFFECT) {
        WaitSema(lock);
        sceSdSetSwitch(SD_CORE_0 | SD_S_KON, BIT(V_FX));
        effects++;
        SignalSema(lock);
    }
    return NULL;
}

static void server_thread(void *arg)
{
    (void)arg;
    sceSifInitRpc(0);
    sceSifSetRpcQueue(&queue, GetThreadId());
    sceSifRegisterRpc(&server, CCSND_SID, serve, buffer, NULL, NULL, &queue);
    sceSifRpcLoop(&queue);
}

static int start(void (*entry)(void *), int priority)
{
    iop_thread_t t;
    t.attr = TH_C;
    t.option = 0;
    t.thread = entry;
    t.stacksize = 0x800;
    t.priority = priority;
    int thid = CreateThread(&t);
    if (thid <= 0)
        return thid;
    return StartThread(thid, NULL);
}

int _start(int argc, char **argv)
{
    iop_sema_t s;
    (void)argc;
    (void)argv;

    if (setup() < 0)
        return NO_RESIDENT_END;
    s.attr = 0;
    s.option = 0;
    s.initial = 1;
    s.max = 1;
    lock = CreateSema(&s);
    if (lock <= 0 || start(sequencer_thread, 30) < 0 || start(server_thread, 40) < 0) {
        printf("ccsnd: cannot start (semaphore %d)\n", lock);
        return NO_RESIDENT_END;
    }
    printf("ccsnd: sound driver up, %d bytes of samples at 0x%x, sid 0x%x\n", CCSND_BANK_BYTES,
           CCSND_SPU_BASE, CCSND_SID);
    return RESIDENT_END;
}
