/* cdda.c: a CD's audio tracks through cdvdman (the table of contents, sceCdReadCDDA in its
 * three datapatterns) and on into the SPU2's sound data input, as ps2sdk's audsrv plays a CD
 * (iop/sound/audsrv/src/cdrom.c: the TOC's entries, sceCdReadCDDA, core 0's AutoDMA input
 * with BVOL and MVOL set).
 *
 * The runner (crates/piney-iop/tests/cdda.rs) puts in a CD of three tracks: 1 data (LSN
 * 0..250, 2048-byte sectors only), 2 audio (250..650), 3 audio (650..750, the lead-out at
 * 750). Audio frame k (0..587) of sector s holds left = sample(s * 588 + k) and right =
 * -left / 2, 16-bit little-endian, left first. rom0:LIBSD is loaded first (sdload).
 *
 * Expected (ps2sdk libcdvd-common.h, cdvdman.c cdvdman_readfull; ECMA-130 22.3 for Q):
 *   - disk type 0x13 (SCECdPS2CDDA: a PS2 CD with audio tracks);
 *   - the TOC: ten bytes an entry: A0 (first track 1, CONTROL 4: data), A1 (last track 3,
 *     CONTROL 0: audio), A2 (lead-out at 750 + 150 = 00:12:00), then tracks 1, 2, 3 at
 *     00:02:00, 00:05:25 (400) and 00:10:50 (800);
 *   - datapattern 0: 2 sectors of 2352 bytes at 250 equal the pattern; callback 2
 *     (SCECdFuncReadCDDA), error 0; the byte after them untouched;
 *   - datapattern 1: 2368 bytes: the sector, then Q: 01 02 01 00 00 01 00 00 05 26 and its
 *     CRC, then 4 zero bytes; datapattern 2: 2448 bytes, Q's 96 bits in bit 6 of the 96
 *     bytes after the sector (the same 12 bytes), every other bit 0;
 *   - a CD-DA read of a data sector: the image keeps no whole data sectors, error 0x30; at the
 *     lead-out: error 0x30; running off it (748, 4 sectors): 2 arrive, error 0;
 *   - the media mode DVD refuses a CD-DA read (0); a data read still works;
 *   - 4608 stereo samples from track 3 sent through core 0's input (a looped transfer, as
 *     audsrv's): the runner finds them at the SPU2's output in order, each through the
 *     volumes set here. */
#include "irx.h"

IRX_ID("cdda", 1, 1);

#define SECTOR 2352
#define SAMPLES 4608 /* 18 blocks of 256 */

static u8 buf[8 * SECTOR + 16];
static u8 adma[SAMPLES * 4] __attribute__((aligned(64)));
static volatile int cb_last, cb_count;

static void callback(int reason)
{
    cb_last = reason;
    cb_count++;
}

static s16 sample(u32 n)
{
    return (s16)((n * 97u) % 20001u) - 10000;
}

/* Whether sector s's 2352 bytes are at p. */
static int is_sector(const u8 *p, u32 s)
{
    u32 k;
    for (k = 0; k < 588; k++) {
        s16 l = sample(s * 588 + k), r = (s16)(-l / 2);
        if (p[4 * k] != (u8)l || p[4 * k + 1] != (u8)((u16)l >> 8) || p[4 * k + 2] != (u8)r ||
            p[4 * k + 3] != (u8)((u16)r >> 8))
            return 0;
    }
    return 1;
}

static sceCdRMode mode = { 0, 0, 0, 0 };

static int read_cdda(u32 lsn, u32 n, int pattern)
{
    int r;
    mode.datapattern = (u8)pattern;
    memset(buf, 0xaa, sizeof(buf));
    r = sceCdReadCDDA(lsn, n, buf, &mode);
    sceCdSync(0);
    return r;
}

static void hex(const char *what, const u8 *p, int n)
{
    int i;
    printf("%s:", what);
    for (i = 0; i < n; i++)
        printf(" %02x", p[i]);
    printf("\n");
}

static void spu2(void)
{
    u32 i;
    sceSdInit(0);
    /* audsrv's settings for CD audio on core 0, and core 1 passing core 0 on. */
    sceSdSetParam(SD_CORE_0 | SD_P_BVOLL, 0x7fff);
    sceSdSetParam(SD_CORE_0 | SD_P_BVOLR, 0x7fff);
    sceSdSetParam(SD_CORE_0 | SD_P_MVOLL, 0x3fff);
    sceSdSetParam(SD_CORE_0 | SD_P_MVOLR, 0x3fff);
    sceSdSetParam(SD_CORE_1 | SD_P_AVOLL, 0x7fff);
    sceSdSetParam(SD_CORE_1 | SD_P_AVOLR, 0x7fff);
    sceSdSetParam(SD_CORE_1 | SD_P_MVOLL, 0x3fff);
    sceSdSetParam(SD_CORE_1 | SD_P_MVOLR, 0x3fff);
    /* Track 3's first 8 sectors, from 650: 4704 frames, 4608 of them sent. */
    mode.datapattern = 0;
    if (!sceCdReadCDDA(650, 8, buf, &mode)) {
        printf("spu2: the read was refused\n");
        return;
    }
    sceCdSync(0);
    /* The input's blocks: 256 left samples (512 bytes), then 256 right. */
    for (i = 0; i < SAMPLES; i++) {
        u32 block = i / 256, at = i % 256;
        ((s16 *)adma)[block * 512 + at] = (s16)(buf[4 * i] | buf[4 * i + 1] << 8);
        ((s16 *)adma)[block * 512 + 256 + at] = (s16)(buf[4 * i + 2] | buf[4 * i + 3] << 8);
    }
    /* Looped, as audsrv sends it (a one-shot transfer's end turns the input off in MMIX while
     * its last blocks are still to play): the buffer's two halves of 9 blocks in turn. */
    sceSdBlockTrans(SD_CORE_0, SD_TRANS_WRITE | SD_TRANS_LOOP, adma, sizeof(adma));
    /* 4608 samples at 48 kHz: 96 ms (then the first half again); then the input stops. */
    DelayThread(150000);
    sceSdBlockTrans(SD_CORE_0, SD_TRANS_STOP, 0, 0);
    printf("spu2: track 3's first %d samples sent through core 0's input\n", SAMPLES);
}

int _start(int argc, char **argv)
{
    static u8 toc[1024];
    int r, i, ok;
    (void)argc;
    (void)argv;
    sceCdInit(SCECdINIT);
    sceCdCallback(callback);
    printf("disk type 0x%x\n", sceCdGetDiskType());

    memset(toc, 0x55, sizeof(toc));
    r = sceCdGetToc(toc);
    printf("toc %d\n", r);
    for (i = 0; i < 6; i++) {
        char what[8];
        sprintf(what, "toc %d", i * 10);
        hex(what, toc + i * 10, 10);
    }
    ok = 1;
    for (i = 60; i < 1024; i++)
        ok &= toc[i] == 0;
    printf("toc's rest zero: %d\n", ok);

    r = read_cdda(250, 2, 0);
    printf("2352: read %d, error 0x%x, callback %d, sectors 250 %d 251 %d, next byte 0x%x\n", r,
           sceCdGetError(), cb_last, is_sector(buf, 250), is_sector(buf + SECTOR, 251),
           buf[2 * SECTOR]);

    r = read_cdda(251, 1, 1);
    printf("2368: read %d, error 0x%x, sector %d\n", r, sceCdGetError(), is_sector(buf, 251));
    hex("2368: q", buf + SECTOR, 12);
    hex("2368: after q", buf + SECTOR + 12, 5);

    {
        u8 q[12];
        int others = 0;
        memcpy(q, buf + SECTOR, 12);
        r = read_cdda(251, 1, 2);
        for (i = 0; i < 96; i++) {
            u8 b = buf[SECTOR + i];
            int bit = (q[i / 8] >> (7 - i % 8)) & 1;
            if (((b >> 6) & 1) != bit)
                others |= 2;
            if (b & ~0x40)
                others |= 1;
        }
        printf("2448: read %d, error 0x%x, sector %d, q in bit 6 %d, other bits 0 %d, next byte 0x%x\n",
               r, sceCdGetError(), is_sector(buf, 251), !(others & 2), !(others & 1),
               buf[SECTOR + 96]);
    }

    r = read_cdda(16, 1, 0);
    printf("data sector: read %d, error 0x%x\n", r, sceCdGetError());
    r = read_cdda(750, 1, 0);
    printf("lead-out: read %d, error 0x%x\n", r, sceCdGetError());
    r = read_cdda(748, 4, 0);
    printf("off the end: read %d, error 0x%x, 748 %d, 749 %d, then 0x%x\n", r, sceCdGetError(),
           is_sector(buf, 748), is_sector(buf + SECTOR, 749), buf[2 * SECTOR]);

    sceCdMmode(SCECdMmodeDvd);
    r = read_cdda(250, 1, 0);
    printf("dvd mode: read %d\n", r);
    sceCdMmode(0xff);
    mode.datapattern = 0;
    memset(buf, 0xaa, 2048);
    r = sceCdRead(16, 1, buf, &mode);
    sceCdSync(0);
    printf("data read: %d, error 0x%x, callback %d, bytes %02x %c%c%c%c%c\n", r, sceCdGetError(),
           cb_last, buf[0], buf[1], buf[2], buf[3], buf[4], buf[5]);

    spu2();
    return NO_RESIDENT_END;
}
