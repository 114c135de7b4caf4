/* libsd.c: rom0:LIBSD (the console's IOP sound library) driven as a game's sound driver drives
 * it, over the SPU2. tests/iop/sdload.irx loads the library first (its imports here are
 * linked when this module loads).
 *
 * The expected values come from these facts (every number printed below is derived by hand
 * from them; where a value depends on timing not fixed by a fact, a property is printed):
 *   [sd]   ps2sdk common/include/libsd-common.h: the entry encodings (kind << 8, core in bit 0,
 *          voice in bits 1-5, 0x80 for the master parameters), the ATTR bits, the batch and
 *          transfer codes.
 *   [free] ps2sdk iop/sound/libsd (freesd, the reimplementation of the console's library):
 *          - sceSdInit(0): every voice's VOLL/VOLR 0, PITCH 0x3fff, ADSR1/2 0, SSA 0x5000 (the
 *            16-byte silent looping block it writes there); MVOL/EVOL 0; AVOL 0 on core 0 and
 *            0x7fff on core 1 (core 0's output is core 1's external input); BVOL 0; MMIX
 *            0xff0 (core 0) / 0xffc (core 1); VMIX* all 24 voices; PMON/NON of core 1 0; ATTR
 *            SPU2_ON | MUTE (| EX_INPUT on core 1), effects and IRQ off; EEA's high half 0xe
 *            (core 0) / 0xf (core 1), ESA = the end - (16 - 2) (effect mode off's 16-byte
 *            area).
 *          - sceSdSetAddr writes (addr >> 17) and ((addr >> 1) & 0xfff8): every address but
 *            EEA keeps 16-byte blocks; EEA only its high half, GetAddr gives (hi << 17) |
 *            0x1ffff. GetAddr returns (hi << 17) | (lo << 1).
 *          - sceSdSetSwitch writes the low 16 bits then bits 16-23; GetSwitch reads both.
 *          - sceSdSetCoreAttr: effect ATTR bit 7, IRQ bit 6, mute bit 14, noise clock bits
 *            8-13 (0..0x3f), SPDIF mode: kept (GetCoreAttr gives it back) when its low
 *            nibble is 0, 1, 2 or 0xf, ignored otherwise.
 *          - sceSdNote2Pitch/Pitch2Note: the 12 semitone and 128 fine-step table, 0x1000 at
 *            the centre note (the values below are that algorithm worked through).
 *          - sceSdVoiceTrans: DMA returns the size and needs the core idle (else -1), I/O mode
 *            returns 0; sceSdVoiceTransStatus: 1 in I/O mode or once the DMA's end was seen;
 *            a transfer's end with a callback set calls only it (status stays 0).
 *          - sceSdBlockTrans: AutoDMA of the buffer (LOOP: two halves, the interrupt of each
 *            half's end switches to the other and calls the callback/handler); a one-shot
 *            end clears ADMAS and MMIX bits 6-7 (the core's dry sound data input);
 *            BlockTransStatus and STOP: (half << 24) | (ADMAS ? DMA address : 0).
 *          - sceSdSetEffectAttr: ESA = EEA - ((size << 4) - 2) for the mode's size in 16-byte
 *            units (hall 0xade, echo/delay 0x1804); EVOL = depth; GetEffectAttr gives back
 *            the attributes with core set, and delay/feedback 0 except echo (0x80, 0x80) and
 *            delay (0x80, 0); a mode above 9 is -1. sceSdClearEffectWorkArea zeroes the
 *            mode's area by DMA (mode above 9: -1).
 *          - sceSdProcBatch: as in irx.h.
 *          - The SPU2 interrupt: libsd clears the IRQ enable of the core that reached IRQA and
 *            calls the IRQ callback with 0 (a handler: the cores' bits and its argument).
 *   [spx]  psx-spx, SPU (the SPU2's cores keep the PS1 SPU's voice): a voice plays 28 samples
 *          per 16-byte ADPCM block at pitch 0x1000 (48 kHz); a block with the loop-end flag
 *          sets the voice's ENDX bit when it is done and jumps to the loop start (with the
 *          repeat flag it plays on); KON clears the voice's ENDX bit; a linear attack with
 *          rate r = shift << 2 | step rises by (7 - step) << max(0, 11 - shift) every
 *          2^max(0, shift - 11) samples; the release at rate 0 (linear) falls by 8 << 11 a
 *          sample. A fixed volume register v is the volume v * 2 (VOLX, the current volume).
 *   [pcsx2] PCSX2 SPU2: KON/KOFF read back what was last written; a voice reaching IRQA (its
 *          decoder entering the block) raises the core's interrupt.
 *
 * Sound RAM used (byte addresses): 0x6000-0x603f sample A (4 blocks: loop start, -, -, loop
 * end + repeat), 0x6040-0x607f sample B (written by I/O), the hall preset's work area under
 * core 0's EEA 0x1dffff. */
#include "irx.h"

IRX_ID("libsd", 1, 1);

#define SAMPLE_A 0x6000
#define SAMPLE_B 0x6040

static u8 sample_a[64] __attribute__((aligned(64)));
static u8 sample_b[64] __attribute__((aligned(64)));
static u8 back[128] __attribute__((aligned(64)));
static u8 stream[4096] __attribute__((aligned(64)));

static volatile int trans_calls;
static volatile int trans_arg;
static volatile int irq_calls;
static volatile int irq_arg;
static volatile int handler_calls;
static volatile int handler_core;
static volatile int handler_arg;

static int trans_callback(void *data)
{
    trans_calls++;
    trans_arg = (int)data;
    return 1;
}

static int irq_callback(void *data)
{
    irq_calls++;
    irq_arg = (int)data;
    return 1;
}

static int trans_handler(int core, void *arg)
{
    handler_calls++;
    handler_core = core;
    handler_arg = (int)arg;
    return 1;
}

/* (A table, not a conditional: gcc may share one LO16 between the two strings' HI16s,
   which the console's loader does not pair.) */
static const char *const answers[2] = { "no", "yes" };

static __attribute__((noinline)) const char *yes(int c)
{
    return answers[c != 0];
}

static void after_init(void)
{
    /* [free] sceSdInit(0)'s values. */
    printf("libsd: init: voice 0 pitch 0x%04x, voice 23 (core 1) pitch 0x%04x\n",
           sceSdGetParam(SD_VOICE(0, 0) | SD_VP_PITCH), sceSdGetParam(SD_VOICE(1, 23) | SD_VP_PITCH));
    printf("libsd: init: voice 5 VOLL 0x%x ADSR1 0x%x ADSR2 0x%x\n",
           sceSdGetParam(SD_VOICE(0, 5) | SD_VP_VOLL), sceSdGetParam(SD_VOICE(0, 5) | SD_VP_ADSR1),
           sceSdGetParam(SD_VOICE(0, 5) | SD_VP_ADSR2));
    printf("libsd: init: MVOLL 0x%x/0x%x EVOLL 0x%x AVOLL 0x%x/0x%04x BVOLL 0x%x/0x%x\n",
           sceSdGetParam(SD_CORE_0 | SD_P_MVOLL), sceSdGetParam(SD_CORE_1 | SD_P_MVOLL),
           sceSdGetParam(SD_CORE_0 | SD_P_EVOLL), sceSdGetParam(SD_CORE_0 | SD_P_AVOLL),
           sceSdGetParam(SD_CORE_1 | SD_P_AVOLR), sceSdGetParam(SD_CORE_0 | SD_P_BVOLL),
           sceSdGetParam(SD_CORE_1 | SD_P_BVOLR));
    printf("libsd: init: MMIX 0x%03x/0x%03x\n", sceSdGetParam(SD_CORE_0 | SD_P_MMIX),
           sceSdGetParam(SD_CORE_1 | SD_P_MMIX));
    printf("libsd: init: VMIXL 0x%06x VMIXER (core 1) 0x%06x PMON (core 1) 0x%x NON (core 1) 0x%x\n",
           sceSdGetSwitch(SD_CORE_0 | SD_S_VMIXL), sceSdGetSwitch(SD_CORE_1 | SD_S_VMIXER),
           sceSdGetSwitch(SD_CORE_1 | SD_S_PMON), sceSdGetSwitch(SD_CORE_1 | SD_S_NON));
    /* SSA 0x5000; EEA (0xe << 17) | 0x1ffff = 0x1dffff, (0xf << 17) | 0x1ffff = 0x1fffff;
       ESA = EEA - 14 = 0x1dfff1, kept as 0x1dfff0 (16-byte blocks), core 1 0x1ffff0. */
    printf("libsd: init: SSA voice 0 0x%x, voice 23 (core 1) 0x%x\n",
           sceSdGetAddr(SD_VOICE(0, 0) | SD_VA_SSA), sceSdGetAddr(SD_VOICE(1, 23) | SD_VA_SSA));
    printf("libsd: init: EEA 0x%x/0x%x ESA 0x%x/0x%x\n", sceSdGetAddr(SD_CORE_0 | SD_A_EEA),
           sceSdGetAddr(SD_CORE_1 | SD_A_EEA), sceSdGetAddr(SD_CORE_0 | SD_A_ESA),
           sceSdGetAddr(SD_CORE_1 | SD_A_ESA));
    printf("libsd: init: core 0 effect %d irq %d mute %d noise clock %d; core 1 mute %d; spdif mode 0x%x\n",
           sceSdGetCoreAttr(SD_CORE_0 | SD_C_EFFECT_ENABLE), sceSdGetCoreAttr(SD_CORE_0 | SD_C_IRQ_ENABLE),
           sceSdGetCoreAttr(SD_CORE_0 | SD_C_MUTE_ENABLE), sceSdGetCoreAttr(SD_CORE_0 | SD_C_NOISE_CLK),
           sceSdGetCoreAttr(SD_CORE_1 | SD_C_MUTE_ENABLE), sceSdGetCoreAttr(SD_C_SPDIF_MODE));
}

static void round_trips(void)
{
    /* Parameters: stored as written. ADSR1(exp, 0x35, 0xa, 7) = 0x8000 | 0x3500 | 0xa0 | 7;
       ADSR2(exp dec 6, 0x40, exp 1, 0xa) = 0xc000 | 0x1000 | 0x20 | 0xa. */
    sceSdSetParam(SD_VOICE(0, 3) | SD_VP_PITCH, 0x1234);
    sceSdSetParam(SD_VOICE(0, 3) | SD_VP_ADSR1, SD_ADSR1(SD_ADSR_A_EXP, 0x35, 0xa, 7));
    sceSdSetParam(SD_VOICE(0, 3) | SD_VP_ADSR2, SD_ADSR2(SD_ADSR_S_EXP_DEC, 0x40, SD_ADSR_R_EXP, 0xa));
    sceSdSetParam(SD_VOICE(1, 17) | SD_VP_PITCH, 0x0abc);
    printf("libsd: voice 3 pitch 0x%04x ADSR1 0x%04x ADSR2 0x%04x; voice 17 (core 1) pitch 0x%04x, voice 16 0x%04x\n",
           sceSdGetParam(SD_VOICE(0, 3) | SD_VP_PITCH), sceSdGetParam(SD_VOICE(0, 3) | SD_VP_ADSR1),
           sceSdGetParam(SD_VOICE(0, 3) | SD_VP_ADSR2), sceSdGetParam(SD_VOICE(1, 17) | SD_VP_PITCH),
           sceSdGetParam(SD_VOICE(1, 16) | SD_VP_PITCH));
    /* [spx] fixed volume 0x1234: VOLX 0x2468. */
    sceSdSetParam(SD_VOICE(0, 3) | SD_VP_VOLL, 0x1234);
    sceSdSetParam(SD_VOICE(0, 3) | SD_VP_VOLR, 0x0800);
    printf("libsd: voice 3 VOLL 0x%04x VOLR 0x%04x VOLXL 0x%04x VOLXR 0x%04x\n",
           sceSdGetParam(SD_VOICE(0, 3) | SD_VP_VOLL), sceSdGetParam(SD_VOICE(0, 3) | SD_VP_VOLR),
           sceSdGetParam(SD_VOICE(0, 3) | SD_VP_VOLXL), sceSdGetParam(SD_VOICE(0, 3) | SD_VP_VOLXR));
    sceSdSetParam(SD_VOICE(0, 3) | SD_VP_VOLL, 0);
    sceSdSetParam(SD_VOICE(0, 3) | SD_VP_VOLR, 0);
    sceSdSetParam(SD_CORE_1 | SD_P_MVOLL, 0x3fff);
    sceSdSetParam(SD_CORE_1 | SD_P_MVOLR, 0x2000);
    sceSdSetParam(SD_CORE_0 | SD_P_EVOLL, 0x7fff);
    sceSdSetParam(SD_CORE_0 | SD_P_MMIX, 0xf00);
    printf("libsd: MVOLL/R (core 1) 0x%04x/0x%04x EVOLL 0x%04x MMIX 0x%03x\n",
           sceSdGetParam(SD_CORE_1 | SD_P_MVOLL), sceSdGetParam(SD_CORE_1 | SD_P_MVOLR),
           sceSdGetParam(SD_CORE_0 | SD_P_EVOLL), sceSdGetParam(SD_CORE_0 | SD_P_MMIX));
    sceSdSetParam(SD_CORE_0 | SD_P_EVOLL, 0);
    sceSdSetParam(SD_CORE_0 | SD_P_MMIX, 0xff0);

    /* Switches: 24 bits. */
    sceSdSetSwitch(SD_CORE_1 | SD_S_VMIXL, 0x123456);
    sceSdSetSwitch(SD_CORE_0 | SD_S_VMIXEL, 0xffffffff);
    sceSdSetSwitch(SD_CORE_0 | SD_S_PMON, 0x000006);
    printf("libsd: VMIXL (core 1) 0x%06x VMIXEL 0x%06x PMON 0x%06x\n",
           sceSdGetSwitch(SD_CORE_1 | SD_S_VMIXL), sceSdGetSwitch(SD_CORE_0 | SD_S_VMIXEL),
           sceSdGetSwitch(SD_CORE_0 | SD_S_PMON));
    sceSdSetSwitch(SD_CORE_1 | SD_S_VMIXL, 0xffffff);
    sceSdSetSwitch(SD_CORE_0 | SD_S_PMON, 0);
    /* [pcsx2] KON/KOFF read back (voices 8-15 of core 1 are silent: keyed on and off at
       0x5000). */
    sceSdSetSwitch(SD_CORE_1 | SD_S_KON, 0x00ff00);
    DelayThread(100);
    sceSdSetSwitch(SD_CORE_1 | SD_S_KOFF, 0x80ff00);
    printf("libsd: KON (core 1) 0x%06x KOFF 0x%06x\n", sceSdGetSwitch(SD_CORE_1 | SD_S_KON),
           sceSdGetSwitch(SD_CORE_1 | SD_S_KOFF));

    /* Addresses: 0x123457 -> hi 9, lo 0x1a28 -> 0x123450; LSAX 0x6010; IRQA 0x6037 ->
       0x6030; TSA 0x12345 -> 0x12340; EEA 0x1abcde -> hi 0xd -> 0x1bffff. */
    sceSdSetAddr(SD_VOICE(1, 5) | SD_VA_SSA, 0x123457);
    sceSdSetAddr(SD_VOICE(0, 2) | SD_VA_LSAX, 0x6010);
    sceSdSetAddr(SD_CORE_0 | SD_A_IRQA, 0x6037);
    sceSdSetAddr(SD_CORE_1 | SD_A_TSA, 0x12345);
    sceSdSetAddr(SD_CORE_1 | SD_A_EEA, 0x1abcde);
    u32 lsax = sceSdGetAddr(SD_VOICE(0, 2) | SD_VA_LSAX);
    /* Voice 2 walks the silent block though keyed off: its loop goes back to 0x5000 before
       its end can take it to 0x6010. */
    sceSdSetAddr(SD_VOICE(0, 2) | SD_VA_LSAX, 0x5000);
    printf("libsd: SSA (core 1 voice 5) 0x%x LSAX (voice 2) 0x%x IRQA 0x%x TSA (core 1) 0x%x EEA (core 1) 0x%x\n",
           sceSdGetAddr(SD_VOICE(1, 5) | SD_VA_SSA), lsax, sceSdGetAddr(SD_CORE_0 | SD_A_IRQA),
           sceSdGetAddr(SD_CORE_1 | SD_A_TSA), sceSdGetAddr(SD_CORE_1 | SD_A_EEA));
    sceSdSetAddr(SD_VOICE(1, 5) | SD_VA_SSA, 0x5000);
    sceSdSetAddr(SD_CORE_1 | SD_A_EEA, 0x1fffff);

    /* Core attributes. Noise clock 0x2a; 0x7f keeps 6 bits: 0x3f. SPDIF mode 0x801 kept, then
       0x803 (low nibble 3) ignored. */
    sceSdSetCoreAttr(SD_CORE_1 | SD_C_EFFECT_ENABLE, 1);
    sceSdSetCoreAttr(SD_CORE_0 | SD_C_IRQ_ENABLE, 1);
    sceSdSetCoreAttr(SD_CORE_0 | SD_C_MUTE_ENABLE, 0);
    sceSdSetCoreAttr(SD_CORE_0 | SD_C_NOISE_CLK, 0x2a);
    printf("libsd: core 1 effect %d, core 0 irq %d mute %d noise clock 0x%x\n",
           sceSdGetCoreAttr(SD_CORE_1 | SD_C_EFFECT_ENABLE), sceSdGetCoreAttr(SD_CORE_0 | SD_C_IRQ_ENABLE),
           sceSdGetCoreAttr(SD_CORE_0 | SD_C_MUTE_ENABLE), sceSdGetCoreAttr(SD_CORE_0 | SD_C_NOISE_CLK));
    sceSdSetCoreAttr(SD_CORE_0 | SD_C_NOISE_CLK, 0x7f);
    u16 noise = sceSdGetCoreAttr(SD_CORE_0 | SD_C_NOISE_CLK);
    sceSdSetCoreAttr(SD_C_SPDIF_MODE, 0x801);
    u16 spdif = sceSdGetCoreAttr(SD_C_SPDIF_MODE);
    sceSdSetCoreAttr(SD_C_SPDIF_MODE, 0x803);
    printf("libsd: noise clock 0x7f -> 0x%x; spdif mode 0x%x, then 0x803 -> 0x%x\n", noise, spdif,
           sceSdGetCoreAttr(SD_C_SPDIF_MODE));
    sceSdSetCoreAttr(SD_CORE_1 | SD_C_EFFECT_ENABLE, 0);
    sceSdSetCoreAttr(SD_CORE_0 | SD_C_IRQ_ENABLE, 0);
    sceSdSetCoreAttr(SD_CORE_0 | SD_C_MUTE_ENABLE, 1);
    sceSdSetCoreAttr(SD_CORE_0 | SD_C_NOISE_CLK, 0);
    printf("libsd: restored: core 1 effect %d, core 0 irq %d mute %d noise clock %d\n",
           sceSdGetCoreAttr(SD_CORE_1 | SD_C_EFFECT_ENABLE), sceSdGetCoreAttr(SD_CORE_0 | SD_C_IRQ_ENABLE),
           sceSdGetCoreAttr(SD_CORE_0 | SD_C_MUTE_ENABLE), sceSdGetCoreAttr(SD_CORE_0 | SD_C_NOISE_CLK));
}

static void notes(void)
{
    /* [free]'s algorithm by hand: a semitone up 0x8000 * 0x879c >> 16 = 0x43ce, + 2 >> 2 =
       0x10f4; a semitone down 0xf1a1 / 2 = 0x78d0, + 4 >> 3 = 0xf1a; A (9 semitones)
       0xd744 / 2 = 0x6ba2, + 2 >> 2 = 0x1ae9; half a semitone up (fine 64: 0x83c0) 0x1078,
       down 0xf8b; two octaves up 0x4000 (past the register's 0x3fff). */
    printf("libsd: note2pitch C4 0x%04x C5 0x%04x C3 0x%04x C#4 0x%04x B3 0x%04x A4 0x%04x\n",
           sceSdNote2Pitch(60, 0, 60, 0), sceSdNote2Pitch(60, 0, 72, 0), sceSdNote2Pitch(60, 0, 48, 0),
           sceSdNote2Pitch(60, 0, 61, 0), sceSdNote2Pitch(60, 0, 59, 0), sceSdNote2Pitch(60, 0, 69, 0));
    printf("libsd: note2pitch C4+64 0x%04x C4-64 0x%04x C6 0x%04x (A4 centre) A3 0x%04x\n",
           sceSdNote2Pitch(60, 0, 60, 64), sceSdNote2Pitch(60, 0, 60, -64), sceSdNote2Pitch(60, 0, 84, 0),
           sceSdNote2Pitch(69, 0, 57, 0));
    /* Note in the high byte, fine in the low: 0x1800 is 7 semitones and 2 fine steps up. */
    printf("libsd: pitch2note 0x1000 0x%04x 0x2000 0x%04x 0x10f4 0x%04x 0x0800 0x%04x 0x1800 0x%04x 0x4000 0x%04x\n",
           sceSdPitch2Note(60, 0, 0x1000), sceSdPitch2Note(60, 0, 0x2000), sceSdPitch2Note(60, 0, 0x10f4),
           sceSdPitch2Note(60, 0, 0x0800), sceSdPitch2Note(60, 0, 0x1800), sceSdPitch2Note(60, 0, 0x4000));
}

static int compare(const u8 *a, const u8 *b, int n)
{
    for (int i = 0; i < n; i++)
        if (a[i] != b[i])
            return 0;
    return 1;
}

static void transfers(void)
{
    /* Sample A: 4 blocks of 28 samples (shift 0, filter 0, nibbles 7 and -7), loop start on
       the first, loop end + repeat on the last. Sample B: any bytes. */
    for (int b = 0; b < 4; b++) {
        sample_a[16 * b] = 0x00;
        sample_a[16 * b + 1] = b == 0 ? 0x04 : b == 3 ? 0x03 : 0x00;
        for (int i = 2; i < 16; i++)
            sample_a[16 * b + i] = 0x97;
    }
    for (int i = 0; i < 64; i++)
        sample_b[i] = (u8)(i * 7 + 3);

    int r = sceSdVoiceTrans(0, SD_TRANS_WRITE | SD_TRANS_MODE_DMA, sample_a, (u32 *)SAMPLE_A, 64);
    int busy = sceSdVoiceTrans(0, SD_TRANS_WRITE | SD_TRANS_MODE_DMA, sample_b, (u32 *)SAMPLE_B, 64);
    printf("libsd: voice trans (DMA write, 64 bytes) -> %d; another while it runs -> %d\n", r, busy);
    /* A poll answers 0 even when it sees the end (it then records it): 0, 1, 1. */
    u32 s0 = sceSdVoiceTransStatus(0, SD_TRANS_POLL);
    u32 s1 = sceSdVoiceTransStatus(0, SD_TRANS_WAIT);
    u32 s2 = sceSdVoiceTransStatus(0, SD_TRANS_POLL);
    printf("libsd: voice trans status (poll at once) %u, (wait) %u, (poll again) %u\n", s0, s1, s2);

    r = sceSdVoiceTrans(0, SD_TRANS_WRITE | SD_TRANS_MODE_IO, sample_b, (u32 *)SAMPLE_B, 64);
    printf("libsd: voice trans (I/O write) -> %d, status %u\n", r,
           sceSdVoiceTransStatus(0, SD_TRANS_POLL));

    /* Read both back by DMA with a transfer callback: it is called once (with 0), and the
       status does not see that end. */
    SdIntrCallback old = sceSdSetTransCallback(0, trans_callback);
    for (int i = 0; i < 128; i++)
        back[i] = 0xee;
    trans_arg = -1;
    r = sceSdVoiceTrans(0, SD_TRANS_READ | SD_TRANS_MODE_DMA, back, (u32 *)SAMPLE_A, 128);
    for (int i = 0; i < 100 && trans_calls == 0; i++)
        DelayThread(100);
    DelayThread(1000);
    printf("libsd: voice trans (DMA read, 128 bytes) -> %d; callback calls %d, arg %d; status %u\n", r,
           trans_calls, trans_arg, sceSdVoiceTransStatus(0, SD_TRANS_POLL));
    printf("libsd: read back: sample A the same: %s, sample B the same: %s\n", yes(compare(back, sample_a, 64)),
           yes(compare(back + 64, sample_b, 64)));
    SdIntrCallback mine = sceSdSetTransCallback(0, old);
    printf("libsd: old callback none: %s, ours given back: %s\n", yes(old == NULL),
           yes(mine == trans_callback));
    /* Without the callback, the wait works again. */
    sceSdVoiceTrans(0, SD_TRANS_WRITE | SD_TRANS_MODE_DMA, sample_a, (u32 *)SAMPLE_A, 64);
    printf("libsd: voice trans wait without callback %u\n", sceSdVoiceTransStatus(0, SD_TRANS_WAIT));
}

static void play(void)
{
    /* Voice 0 of core 0 on sample A at 0x1000 (28 samples a block, 112 the loop: 2.33 ms),
       a slow linear attack (rate 0x30: shift 12, +7 every 2 samples: about 168 after 1 ms),
       IRQA on the loop-end block 0x6030 (reached after 84 samples, 1.75 ms). */
    sceSdSetParam(SD_VOICE(0, 0) | SD_VP_VOLL, 0x1000);
    sceSdSetParam(SD_VOICE(0, 0) | SD_VP_VOLR, 0x1000);
    sceSdSetParam(SD_VOICE(0, 0) | SD_VP_PITCH, 0x1000);
    sceSdSetParam(SD_VOICE(0, 0) | SD_VP_ADSR1, SD_ADSR1(SD_ADSR_A_LINEAR, 0x30, 0xf, 0xf));
    sceSdSetParam(SD_VOICE(0, 0) | SD_VP_ADSR2, SD_ADSR2(SD_ADSR_S_LINEAR_INC, 0x7f, SD_ADSR_R_LINEAR, 0));
    sceSdSetAddr(SD_VOICE(0, 0) | SD_VA_SSA, SAMPLE_A);
    sceSdSetAddr(SD_CORE_0 | SD_A_IRQA, SAMPLE_A + 0x37);
    SdIntrCallback old = sceSdSetIRQCallback(irq_callback);
    sceSdSetCoreAttr(SD_CORE_0 | SD_C_IRQ_ENABLE, 1);
    irq_arg = -1;

    sceSdSetSwitch(SD_CORE_0 | SD_S_KON, 1);
    DelayThread(1000);
    u16 e1 = sceSdGetParam(SD_VOICE(0, 0) | SD_VP_ENVX);
    u32 endx1 = sceSdGetSwitch(SD_CORE_0 | SD_S_ENDX) & 1;
    int irq1 = irq_calls;
    u32 nax = sceSdGetAddr(SD_VOICE(0, 0) | SD_VA_NAX);
    DelayThread(3000);
    u16 e2 = sceSdGetParam(SD_VOICE(0, 0) | SD_VP_ENVX);
    u32 endx2 = sceSdGetSwitch(SD_CORE_0 | SD_S_ENDX) & 1;
    printf("libsd: after 1 ms: ENDX %u, irq calls %d, envx started: %s, below 0x400: %s, NAX in sample A: %s\n",
           endx1, irq1, yes(e1 > 0), yes(e1 < 0x400), yes(nax >= SAMPLE_A && nax < SAMPLE_A + 64));
    printf("libsd: after 4 ms: ENDX %u, envx rose: %s, below 0x1000: %s\n", endx2, yes(e2 > e1),
           yes(e2 < 0x1000));
    printf("libsd: irq callback calls %d, arg %d; core 0 irq enable now %d\n", irq_calls, irq_arg,
           sceSdGetCoreAttr(SD_CORE_0 | SD_C_IRQ_ENABLE));
    /* The voice loops on; its IRQ stays off, so no second call. */
    DelayThread(5000);
    printf("libsd: after 9 ms: irq calls %d\n", irq_calls);

    /* Again through the handler (which gets core bit 1 and its argument): IRQA enabled again. */
    sceSdSetSpu2IntrHandler((sceSdSpu2IntrHandler)trans_handler, (void *)0x1234);
    handler_calls = 0;
    sceSdSetCoreAttr(SD_CORE_0 | SD_C_IRQ_ENABLE, 1);
    DelayThread(3000);
    printf("libsd: spu2 handler calls %d, cores 0x%x, arg 0x%x; irq callback calls %d\n", handler_calls,
           handler_core, handler_arg, irq_calls);
    sceSdSetSpu2IntrHandler(NULL, NULL);
    sceSdSetIRQCallback(old);

    /* Key off: the release at rate 0 empties the envelope within a few samples. */
    sceSdSetSwitch(SD_CORE_0 | SD_S_KOFF, 1);
    DelayThread(1000);
    printf("libsd: after key off: envx 0x%x\n", sceSdGetParam(SD_VOICE(0, 0) | SD_VP_ENVX));
}

static void blocks(void)
{
    /* Core 0: a looping AutoDMA of 4096 bytes, two halves of 2048 (two 1 KiB blocks each,
       10.67 ms a half). */
    for (int i = 0; i < 4096; i++)
        stream[i] = 0;
    trans_calls = 0;
    sceSdSetTransCallback(0, trans_callback);
    int r = sceSdBlockTrans(0, SD_TRANS_WRITE | SD_TRANS_LOOP, stream, sizeof stream);
    u32 st0 = sceSdBlockTransStatus(0, 0);
    DelayThread(40000);
    int calls = trans_calls;
    u32 st = sceSdBlockTransStatus(0, 0);
    u32 at = st & 0xffffff, half = st >> 24;
    u32 from = (u32)stream + 2048 * half;
    printf("libsd: block trans (loop, 4096 bytes) -> %d; status at once: half %u, in the buffer: %s\n", r,
           st0 >> 24, yes((st0 & 0xffffff) >= (u32)stream && (st0 & 0xffffff) <= (u32)stream + 2048));
    printf("libsd: after 40 ms: callbacks 3 to 5: %s; status names half %u = calls & 1: %s, address in it: %s\n",
           yes(calls >= 3 && calls <= 5), half, yes(half == (u32)(calls & 1)), yes(at >= from && at <= from + 2048));
    u32 stop = sceSdBlockTrans(0, SD_TRANS_STOP, NULL, 0);
    DelayThread(20000);
    u32 after = sceSdBlockTransStatus(0, 0);
    printf("libsd: stop -> the same half: %s; status after: its half only: %s; callbacks since: %d\n",
           yes(stop >> 24 == half), yes(after == stop >> 24 << 24), trans_calls - calls);
    sceSdSetTransCallback(0, NULL);

    /* Core 1: one shot of 2048 bytes with a transfer handler. */
    handler_calls = 0;
    sceSdSetTransIntrHandler(1, trans_handler, (void *)0x5678);
    r = sceSdBlockTrans(1, SD_TRANS_WRITE, stream, 2048);
    DelayThread(30000);
    printf("libsd: block trans (one shot, core 1) -> %d; handler calls %d, core %d, arg 0x%x\n", r,
           handler_calls, handler_core, handler_arg);
    /* MMIX 0xffc & 0xff3f. */
    printf("libsd: after it: status 0x%x, MMIX (core 1) 0x%03x\n", sceSdBlockTransStatus(1, 0),
           sceSdGetParam(SD_CORE_1 | SD_P_MMIX));
    sceSdSetTransIntrHandler(1, NULL, NULL);

    /* Reading the output back: core 0, one shot of 1024 bytes from its output area left
       (mode bits 8-11 = 2: TSA 0x400 + (2 << 9) = 0x800 halfwords, core 0's output after its
       master volume, which init left at 0: silence). */
    for (int i = 0; i < 1024; i++)
        stream[i] = 0xee;
    trans_calls = 0;
    sceSdSetTransCallback(0, trans_callback);
    r = sceSdBlockTrans(0, SD_TRANS_READ | 0x200, stream, 1024);
    DelayThread(30000);
    int zero = 1;
    for (int i = 0; i < 1024; i++)
        zero &= stream[i] == 0;
    /* MMIX 0xff0 & 0xff3f. */
    printf("libsd: block read (core 0's output, one shot) -> %d; callbacks %d; all zero: %s; status 0x%x, MMIX 0x%03x\n",
           r, trans_calls, yes(zero), sceSdBlockTransStatus(0, 0), sceSdGetParam(SD_CORE_0 | SD_P_MMIX));
    /* Looping, from core 1's voice 1 area (bits 8-11 = 4: 0xc00), then stopped. */
    trans_calls = 0;
    r = sceSdBlockTrans(0, SD_TRANS_READ | SD_TRANS_LOOP | 0x400, stream, 1024);
    DelayThread(40000);
    calls = trans_calls;
    st = sceSdBlockTrans(0, SD_TRANS_STOP, NULL, 0);
    DelayThread(10000);
    printf("libsd: block read (loop) -> %d; callbacks: more than one: %s; the stop names the half calls & 1: %s; none since: %s\n",
           r, yes(calls > 1), yes(st >> 24 == (u32)(calls & 1)), yes(trans_calls == calls));
    sceSdSetTransCallback(0, NULL);
    sceSdSetParam(SD_CORE_0 | SD_P_MMIX, 0xff0);
}

static void effects(void)
{
    /* Hall: ESA = 0x1dffff - (0xade0 - 2) = 0x1d5221, kept 0x1d5220. */
    sceSdEffectAttr fx = { 0, SD_EFFECT_MODE_HALL, 0x1000, 0x0800, 0, 0 };
    int r = sceSdSetEffectAttr(0, &fx);
    sceSdEffectAttr got;
    sceSdGetEffectAttr(0, &got);
    /* (freesd keeps the mode as given, with SD_EFFECT_MODE_CLEAR if set: the low byte is
       printed.) */
    printf("libsd: effect hall -> %d: core %d mode %d depth 0x%x/0x%x delay %d feedback %d\n", r, got.core,
           got.mode & 0xff, got.depth_L, got.depth_R, got.delay, got.feedback);
    printf("libsd: ESA 0x%x EVOLL/R 0x%04x/0x%04x\n", sceSdGetAddr(SD_CORE_0 | SD_A_ESA),
           sceSdGetParam(SD_CORE_0 | SD_P_EVOLL), sceSdGetParam(SD_CORE_0 | SD_P_EVOLR));
    /* Echo on core 1: ESA = 0x1fffff - (0x18040 - 2) = 0x1e7fc1, kept 0x1e7fc0. */
    sceSdEffectAttr echo = { 1, SD_EFFECT_MODE_ECHO, 0x2000, 0x2000, 0x20, 0x40 };
    r = sceSdSetEffectAttr(1, &echo);
    sceSdGetEffectAttr(1, &got);
    printf("libsd: effect echo (core 1) -> %d: core %d mode %d delay 0x%x feedback 0x%x, ESA 0x%x\n", r,
           got.core, got.mode & 0xff, got.delay, got.feedback, sceSdGetAddr(SD_CORE_1 | SD_A_ESA));
    sceSdEffectAttr bad = { 0, 10, 0, 0, 0, 0 };
    printf("libsd: effect mode 10 -> %d, clear work area mode 10 -> %d\n", sceSdSetEffectAttr(0, &bad),
           sceSdClearEffectWorkArea(0, 0, 10));

    /* The hall area's first 64 bytes written, then cleared by the library. */
    sceSdVoiceTrans(0, SD_TRANS_WRITE | SD_TRANS_MODE_DMA, sample_b, (u32 *)0x1d5220, 64);
    sceSdVoiceTransStatus(0, SD_TRANS_WAIT);
    sceSdVoiceTrans(0, SD_TRANS_READ | SD_TRANS_MODE_DMA, back, (u32 *)0x1d5220, 64);
    sceSdVoiceTransStatus(0, SD_TRANS_WAIT);
    int written = compare(back, sample_b, 64);
    fx.mode = SD_EFFECT_MODE_HALL | SD_EFFECT_MODE_CLEAR;
    r = sceSdSetEffectAttr(0, &fx);
    sceSdVoiceTrans(0, SD_TRANS_READ | SD_TRANS_MODE_DMA, back, (u32 *)0x1d5220, 64);
    sceSdVoiceTransStatus(0, SD_TRANS_WAIT);
    int zero = 1;
    for (int i = 0; i < 64; i++)
        zero &= back[i] == 0;
    printf("libsd: work area written: %s; hall | clear -> %d, mode %d; area zero: %s\n", yes(written), r,
           (sceSdGetEffectAttr(0, &got), got.mode & 0xff), yes(zero));
}

static u32 word;

static void batches(void)
{
    static const sceSdBatch cmds[8] = {
        { SD_BATCH_SETPARAM, SD_VOICE(0, 4) | SD_VP_PITCH, 0x0800 },
        { SD_BATCH_GETPARAM, SD_VOICE(0, 4) | SD_VP_PITCH, 0 },
        { SD_BATCH_SETSWITCH, SD_CORE_0 | SD_S_VMIXR, 0x10 },
        { SD_BATCH_GETSWITCH, SD_CORE_0 | SD_S_VMIXR, 0 },
        { SD_BATCH_SETADDR, SD_VOICE(0, 4) | SD_VA_SSA, SAMPLE_A + 0x1f },
        { SD_BATCH_GETADDR, SD_VOICE(0, 4) | SD_VA_SSA, 0 },
        { SD_BATCH_GETCORE, SD_CORE_0 | SD_C_MUTE_ENABLE, 0 },
        { SD_BATCH_WRITEIOP, 0x4321, 0 },
    };
    sceSdBatch b[8];
    for (int i = 0; i < 8; i++)
        b[i] = cmds[i];
    b[7].value = (u32)&word;
    u32 rets[8];
    for (int i = 0; i < 8; i++)
        rets[i] = 0xdead;
    int r = sceSdProcBatch(b, rets, 8);
    printf("libsd: batch -> %d: rets 0x%x 0x%x 0x%x 0x%x 0x%x 0x%x 0x%x 0x%x; word 0x%x\n", r, rets[0], rets[1],
           rets[2], rets[3], rets[4], rets[5], rets[6], rets[7], word);
    /* An unknown command (0x20) second: the first done, -1 - 1 returned, the rest not. */
    b[0] = cmds[0];
    b[0].value = 0x0400;
    b[1].func = 0x20;
    b[2] = cmds[1];
    for (int i = 0; i < 8; i++)
        rets[i] = 0xdead;
    r = sceSdProcBatch(b, rets, 3);
    printf("libsd: batch with an unknown command -> %d: rets 0x%x 0x%x 0x%x; pitch now 0x%04x\n", r, rets[0],
           rets[1], rets[2], sceSdGetParam(SD_VOICE(0, 4) | SD_VP_PITCH));
    sceSdSetSwitch(SD_CORE_0 | SD_S_VMIXR, 0xffffff);
}

int _start(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("libsd: init -> %d\n", sceSdInit(0));
    after_init();
    round_trips();
    notes();
    transfers();
    play();
    blocks();
    effects();
    batches();
    printf("libsd: quit -> %d\n", sceSdQuit());
    printf("-- done\n");
    return NO_RESIDENT_END;
}
