/* cdvd.c: the CD/DVD drive through cdvdman's library and its cdrom device.
 *
 * The runner (crates/piney-iop/tests/cdvd.rs) makes the disc with genisoimage (default ISO
 * 9660 level 1 names: upper case, 8.3, files with ";1"; every file dated 2004-05-06 07:08:09
 * UTC) from a folder of mixed-case names:
 *     System.cnf        52 bytes of text                          -> SYSTEM.CNF;1
 *     readme.txt        "read me\n"                               -> README.TXT;1
 *     Data/File.bin     5000 bytes, byte i = (i * 7 + 3) & 0xff   -> DATA/FILE.BIN;1
 *     Data/big.dat      400 sectors, byte o = (o / 2048 * 5 + o) & 0xff -> DATA/BIG.DAT;1
 *     Data/Sub/Deep.txt "deep file\n"                             -> DATA/SUB/DEEP.TXT;1
 * puts it in the drive as a single-layer DVD, and passes its sector count as argv[1].
 *
 * Expected (ps2sdk cdvdman.c / libcdvd-common.h; piney's drive timing, modules/cdvd/timing.rs):
 *   - sceCdInit 1; disk type 0x14 (SCECdPS2DVD); sceCdDiskReady(0) 2; status 0x0a (paused:
 *     the console booted from the disc, which spins); a single-layer DVD: dual info 1, 0, 0;
 *   - the clock starts at 2000-01-01 00:00:00 (BCD) and this runs in its first second;
 *   - sceCdSearchFile: names with their ";1", case-sensitive, from the root's backslash; the
 *     sceCdlFILE has the size, the identifier and the date (-, s, m, h, day, month, year);
 *     "\SYSTEM.CNF" (no version), "\system.cnf;1", "\Data\File.bin;1", "DATA\FILE.BIN;1"
 *     and a missing name find nothing; layer 1 of a single-layer disc nothing;
 *   - sceCdRead returns 1, the data land by sceCdSync(0) (0), the error is 0, the callback
 *     got 1 (SCECdFuncRead) once per read;
 *   - timing, in IOP cycles from just before sceCdRead to the callback: the head's distance d
 *     from the sector after the last read: d == 0 nothing, d < 16 half a turn (485,052), else
 *     (d < 14,764) a fast seek of 1,105,920 and half a turn; then n sectors of n * 36,864,000
 *     * 2048 / 5,540,000; from a stopped disc 12,288,000 and half a turn instead: "within"
 *     when the callback comes no earlier and at most 2000 cycles later (the calls' own cycles);
 *   - a read polled with sceCdSync(1) is busy at first, then idle (0);
 *   - while a read runs: another sceCdRead 0, sceCdSync(1) 1, sceCdCallback 0 (refused),
 *     sceCdCheckCmd 0, sceCdDiskReady(1) 6, status 0x12 (seeking: the head moves first);
 *     sceCdGetReadPos part-way through a 64-sector read is between 0 and 64 sectors;
 *   - a read starting past the end: taken (1), error 0x30 (SCECdErREAD); a read running off
 *     the end: 0 (EOM is turned into SCECdErNO), the two sectors up to the end arrive (the
 *     image's padding: zeros), the rest of the buffer keeps its 0xaa; no sectors: 0x21 (ILI);
 *   - seek, standby, pause and stop each call back with their numbers 4, 5, 7 and 6; after
 *     stop the status is 0 (stopped) and the next read spins up;
 *   - sceCdBreak: 1; the read it breaks ends with 0x01 (ABRT), its callback says 8;
 *   - the other media mode refuses a read: 0, error 0xfe (READCFR);
 *   - sceCdIntToPos(0) is 00:02:00 (150 sectors of lead-in), sceCdPosToInt of it 0; 4500 is
 *     01:02:00;
 *   - sceCdTrayReq(2): the disc put in counts as a change once: 1, then 0;
 *   - cdrom0: names with ";1" (added when missing: "\README.TXT"), case-sensitive; reads
 *     stop at the file's end; lseek whence 2 is the size minus the offset; getstat modes 0x14
 *     (file, r) and 0x25 (directory, r-x); dread gives ".", "..", then the directory's names in
 *     ISO order with their lengths, then 0;
 *   - streaming, 4 banks of 16 sectors: sceCdStInit and sceCdStStart 1; right after the start
 *     nothing is ready (stat 0, a non-blocking read 0) and the drive takes no other read (0);
 *     a blocking read of 16 waits for the first bank: the head's move and 16 sectors, as for a
 *     read ("within"), bytes from BIG.DAT's start; then stat 0 (the one full bank is taken);
 *     100 ms later the drive has stopped with 3 banks full (the 4th is the reader's): 48; a
 *     non-blocking read of 40 takes 40, leaving one bank part-read: stat 16; pause, resume and
 *     stop 1; a read after stop 0. */
#include "irx.h"

IRX_ID("cdvd", 1, 1);

#define SECTORS 64
static u8 buf[SECTORS * 2048];
static u8 sbuf[48 * 2048];
static volatile int cb_count, cb_last;
static volatile u32 cb_time;
static int dvd;
static u32 head; /* the sector after the last one read, as the drive's head stands */
static int spinning = 1;

struct file36 {
    sceCdlFILE f;
    u32 flags;
};

static void cb(int reason)
{
    cb_count++;
    cb_last = reason;
    cb_time = GetSystemTimeLow();
}

static u32 half(void) { return dvd ? 485052 : 215327; }
static u32 xfer(u32 n) { return dvd ? n * 18874368u / 1385u : n * 20480u; }

/* The drive's time to get to lsn from where its head is. */
static u32 position(u32 lsn)
{
    u32 d = lsn > head ? lsn - head : head - lsn;
    if (!spinning)
        return 12288000 + half();
    if (d == 0)
        return 0;
    if (d < (dvd ? 16u : 8u))
        return half();
    if (d < (dvd ? 14764u : 4371u))
        return 1105920 + half();
    return 3686400 + half();
}

static u32 number(const char *s)
{
    u32 v = 0;
    while (*s >= '0' && *s <= '9')
        v = v * 10 + (u32)(*s++ - '0');
    return v;
}

static sceCdRMode mode = { 0, 0, 0, 0 };

static struct file36 search(const char *name)
{
    struct file36 f;
    int r;
    memset(&f, 0x55, sizeof(f));
    r = sceCdSearchFile(&f.f, name);
    if (r)
        printf("search %s -> 1: size %d name %s date %d/%d/%d %d:%d:%d flags %d\n", name, f.f.size,
               f.f.name, f.f.date[6] | f.f.date[7] << 8, f.f.date[5], f.f.date[4], f.f.date[3],
               f.f.date[2], f.f.date[1], f.flags);
    else
        printf("search %s -> 0\n", name);
    return f;
}

/* A timed read of n sectors at lsn into buf: the read, its sync, its error and timing. */
static void timed(const char *what, u32 lsn, u32 n)
{
    u32 t0, expect, took;
    int r, before = cb_count;
    expect = position(lsn) + xfer(n);
    t0 = GetSystemTimeLow();
    r = sceCdRead(lsn, n, buf, &mode);
    sceCdSync(0);
    took = cb_time - t0;
    head = lsn + n;
    spinning = 1;
    printf("%s: read %d, error 0x%x, callback %d x%d, ", what, r, sceCdGetError(), cb_last,
           cb_count - before);
    if (took >= expect && took - expect <= 2000)
        printf("time within\n");
    else
        printf("time %d, expected %d\n", took, expect);
}

static int big_ok(u32 sector, u32 n)
{
    u32 i;
    for (i = 0; i < n * 2048; i++) {
        u32 o = sector * 2048 + i;
        if (buf[i] != (u8)((o >> 11) * 5 + o))
            return 0;
    }
    return 1;
}

/* sbuf holds n sectors of BIG.DAT from its sector `sector`. */
static int stream_ok(u32 sector, u32 n)
{
    u32 i;
    for (i = 0; i < n * 2048; i++) {
        u32 o = sector * 2048 + i;
        if (sbuf[i] != (u8)((o >> 11) * 5 + o))
            return 0;
    }
    return 1;
}

int _start(int argc, char **argv)
{
    struct file36 sys, file, big, deep;
    sceCdCLOCK clk;
    sceCdlLOCCD loc;
    io_stat_t st;
    io_dirent_t de;
    u32 total, i, chk, t0, took, expect;
    int r, type, on, polls, ok, fd;
    unsigned int l1;

    total = argc > 1 ? number(argv[1]) : 0;
    printf("cdvd: init %d\n", sceCdInit(SCECdINIT));
    type = sceCdGetDiskType();
    dvd = type == 0x14;
    r = sceCdDiskReady(0);
    printf("disk type 0x%x, ready %d, status 0x%x\n", type, r, sceCdStatus());
    r = sceCdReadDvdDualInfo(&on, &l1);
    printf("dual info %d: on_dual %d layer1 %d\n", r, on, l1);
    r = sceCdReadClock(&clk);
    printf("clock %d: %02x:%02x:%02x %02x/%02x/%02x stat %d\n", r, clk.hour, clk.minute,
           clk.second, clk.day, clk.month, clk.year, clk.stat);
    printf("mmode %d\n", sceCdMmode(dvd ? SCECdMmodeDvd : SCECdMmodeCd));
    printf("callback set, previous %d\n", (int)sceCdCallback(cb));

    sys = search("\\SYSTEM.CNF;1");
    search("\\SYSTEM.CNF");
    search("\\system.cnf;1");
    file = search("\\DATA\\FILE.BIN;1");
    deep = search("\\DATA\\SUB\\DEEP.TXT;1");
    search("\\Data\\File.bin;1");
    search("\\DATA\\NOPE.BIN;1");
    search("DATA\\FILE.BIN;1");
    big = search("\\DATA\\BIG.DAT;1");
    search("\\README.TXT;1");
    r = sceCdLayerSearchFile(&sys.f, "\\README.TXT;1", 1);
    printf("layer 1 search -> %d, callbacks so far %d\n", r, cb_count);

    /* A read and its sync. */
    r = sceCdRead(file.f.lsn, 3, buf, &mode);
    polls = sceCdSync(0);
    printf("read FILE.BIN -> %d, sync -> %d, error 0x%x, callback %d\n", r, polls,
           sceCdGetError(), cb_last);
    ok = 1;
    for (i = 0; i < 5000; i++)
        ok &= buf[i] == (u8)(i * 7 + 3);
    printf("FILE.BIN bytes %s: %02x %02x %02x %02x\n", ok ? "match" : "differ", buf[0], buf[1],
           buf[2], buf[3]);
    head = file.f.lsn + 3;
    r = sceCdRead(deep.f.lsn, 1, buf, &mode);
    sceCdSync(0);
    head = deep.f.lsn + 1;
    buf[10] = 0;
    printf("DEEP.TXT -> %d: %s", r, (char *)buf);

    /* Timing. */
    timed("seek to BIG.DAT", big.f.lsn, 16);
    printf("BIG.DAT bytes %s\n", big_ok(0, 16) ? "match" : "differ");
    timed("sequential", big.f.lsn + 16, 16);
    timed("short jump", big.f.lsn + 37, 4);
    printf("BIG.DAT bytes %s\n", big_ok(37, 4) ? "match" : "differ");

    /* Polled. */
    r = sceCdRead(big.f.lsn + 100, 8, buf, &mode);
    polls = 0;
    while (sceCdSync(1)) {
        polls++;
        DelayThread(1000);
    }
    head = big.f.lsn + 108;
    ok = sceCdSync(1);
    printf("polled read %d: busy at first %s, then sync(1) %d, bytes %s\n", r,
           polls > 0 ? "yes" : "no", ok, big_ok(100, 8) ? "match" : "differ");

    /* While busy. */
    r = sceCdRead(big.f.lsn + 300, 8, buf, &mode);
    printf("busy: read %d, ", r);
    printf("again %d, ", sceCdRead(big.f.lsn, 1, buf, &mode));
    printf("sync(1) %d, ", sceCdSync(1));
    printf("callback %d, ", (int)sceCdCallback(cb));
    printf("checkcmd %d, ", sceCdCheckCmd());
    printf("ready(1) %d, ", sceCdDiskReady(1));
    printf("status 0x%x\n", sceCdStatus());
    sceCdSync(0);
    printf("after: sync(1) %d, ", sceCdSync(1));
    printf("checkcmd %d, ", sceCdCheckCmd());
    printf("ready(1) %d, ", sceCdDiskReady(1));
    printf("status 0x%x, ", sceCdStatus());
    printf("read pos %d\n", sceCdGetReadPos());
    r = sceCdRead(big.f.lsn + 308, SECTORS, buf, &mode);
    DelayThread(10000);
    l1 = sceCdGetReadPos();
    printf("read pos part-way: %s, ",
           l1 > 0 && l1 < SECTORS * 2048 && l1 % 2048 == 0 ? "between" : "outside");
    printf("status 0x%x\n", sceCdStatus());
    sceCdSync(0);
    head = big.f.lsn + 308 + SECTORS;

    /* The end of the disc. */
    r = sceCdRead(total + 10, 1, buf, &mode);
    sceCdSync(0);
    printf("past the end: read %d, error 0x%x, callback %d\n", r, sceCdGetError(), cb_last);
    memset(buf, 0xaa, 4 * 2048);
    r = sceCdRead(total - 2, 4, buf, &mode);
    sceCdSync(0);
    head = total;
    ok = 1;
    for (i = 0; i < 4096; i++)
        ok &= buf[i] == 0 && buf[4096 + i] == 0xaa;
    printf("off the end: read %d, error 0x%x, %s\n", r, sceCdGetError(),
           ok ? "2 sectors arrived" : "other bytes");
    r = sceCdRead(file.f.lsn, 0, buf, &mode);
    sceCdSync(0);
    printf("no sectors: read %d, error 0x%x\n", r, sceCdGetError());

    /* The other commands. */
    r = sceCdSeek(big.f.lsn);
    sceCdSync(0);
    printf("seek %d: callback %d, error 0x%x\n", r, cb_last, sceCdGetError());
    r = sceCdStandby();
    sceCdSync(0);
    printf("standby %d: callback %d\n", r, cb_last);
    r = sceCdPause();
    sceCdSync(0);
    printf("pause %d: callback %d, status 0x%x\n", r, cb_last, sceCdStatus());
    r = sceCdStop();
    printf("stop %d: status while stopping 0x%x, ", r, sceCdStatus());
    sceCdSync(0);
    printf("callback %d, status 0x%x\n", cb_last, sceCdStatus());
    head = 17;
    spinning = 0;
    timed("read after stop", file.f.lsn, 1);
    r = sceCdRead(big.f.lsn + 200, SECTORS, buf, &mode);
    DelayThread(1000);
    printf("break %d, ", sceCdBreak());
    sceCdSync(0);
    printf("the read %d ends: error 0x%x, callback %d\n", r, sceCdGetError(), cb_last);
    sceCdMmode(dvd ? SCECdMmodeCd : SCECdMmodeDvd);
    r = sceCdRead(file.f.lsn, 1, buf, &mode);
    printf("other media mode: read %d, error 0x%x\n", r, sceCdGetError());
    sceCdMmode(dvd ? SCECdMmodeDvd : SCECdMmodeCd);
    sceCdIntToPos(0, &loc);
    printf("int to pos 0: %02x:%02x:%02x, back %d\n", loc.minute, loc.second, loc.sector,
           sceCdPosToInt(&loc));
    sceCdIntToPos(4500, &loc);
    printf("int to pos 4500: %02x:%02x:%02x, back %d\n", loc.minute, loc.second, loc.sector,
           sceCdPosToInt(&loc));
    chk = 7;
    r = sceCdTrayReq(SCECdTrayCheck, &chk);
    printf("tray check %d: %d, ", r, chk);
    r = sceCdTrayReq(SCECdTrayCheck, &chk);
    printf("again %d: %d\n", r, chk);

    /* cdrom0:. */
    fd = io_open("cdrom0:\\DATA\\FILE.BIN;1", O_RDONLY);
    memset(buf, 0, 200);
    r = io_read(fd, buf, 100);
    ok = 1;
    for (i = 0; i < 100; i++)
        ok &= buf[i] == (u8)(i * 7 + 3);
    printf("cdrom0: open %s, read %d, bytes %s\n", fd >= 0 ? "ok" : "failed", r,
           ok ? "match" : "differ");
    printf("lseek end -> %d, ", io_lseek(fd, 0, SEEK_END));
    printf("lseek 10 from the end -> %d, ", io_lseek(fd, 10, SEEK_END));
    r = io_read(fd, buf, 100);
    printf("read -> %d (%02x), ", r, buf[0]);
    printf("read -> %d, ", io_read(fd, buf, 100));
    printf("close -> %d\n", io_close(fd));
    fd = io_open("cdrom0:\\README.TXT", O_RDONLY);
    memset(buf, 0, 16);
    r = io_read(fd, buf, 16);
    printf("cdrom0:\\README.TXT -> %s, read %d: %s", fd >= 0 ? "ok" : "failed", r, (char *)buf);
    io_close(fd);
    fd = io_open("cdrom:\\SYSTEM.CNF;1", O_RDONLY);
    printf("cdrom: -> %s, ", fd >= 0 ? "ok" : "failed");
    printf("lseek end %d\n", io_lseek(fd, 0, SEEK_END));
    io_close(fd);
    printf("cdrom0:\\readme.txt;1 -> %d\n", io_open("cdrom0:\\readme.txt;1", O_RDONLY));
    printf("cdrom0:\\NOPE;1 -> %d\n", io_open("cdrom0:\\NOPE;1", O_RDONLY));
    r = io_getstat("cdrom0:\\DATA\\FILE.BIN;1", &st);
    printf("getstat FILE.BIN -> %d: mode 0x%x size %d, %d/%d/%d\n", r, st.mode, st.size,
           st.mtime[6] | st.mtime[7] << 8, st.mtime[5], st.mtime[4]);
    r = io_getstat("cdrom0:\\DATA", &st);
    printf("getstat DATA -> %d: mode 0x%x\n", r, st.mode);
    fd = io_dopen("cdrom0:\\DATA", 0);
    printf("dopen DATA -> %s:", fd >= 0 ? "ok" : "failed");
    while ((r = io_dread(fd, &de)) > 0)
        printf(" %s (%d, 0x%x)", de.name, r, de.stat.mode);
    printf(", then %d\n", r);
    io_dclose(fd);

    /* Streaming: 4 banks of 16 sectors in buf. */
    r = sceCdRead(big.f.lsn + 300, 1, sbuf, &mode);
    sceCdSync(0);
    head = big.f.lsn + 301;
    printf("stream: init %d, ", sceCdStInit(64, 4, buf));
    t0 = GetSystemTimeLow();
    r = sceCdStStart(big.f.lsn, &mode);
    printf("start %d, ", r);
    printf("stat %d, ", sceCdStStat());
    r = sceCdStRead(8, (u32 *)sbuf, STMNBLK, &chk);
    printf("read now %d (error %d), ", r, chk);
    printf("a read meanwhile %d\n", sceCdRead(big.f.lsn, 1, buf, &mode));
    /* The time from the start to the first bank; what the drive has done just after. */
    expect = position(big.f.lsn) + xfer(16);
    r = sceCdStRead(16, (u32 *)sbuf, STMBLK, &chk);
    took = GetSystemTimeLow() - t0;
    on = sceCdStStat();
    printf("stream: blocking read %d (error %d), bytes %s, ", r, chk,
           stream_ok(0, 16) ? "match" : "differ");
    if (took >= expect && took - expect <= 2000)
        printf("time within, ");
    else
        printf("time %d, expected %d, ", took, expect);
    printf("stat %d\n", on);
    DelayThread(100000);
    on = sceCdStStat();
    r = sceCdStRead(40, (u32 *)sbuf, STMNBLK, &chk);
    type = sceCdStStat();
    printf("stream: 100 ms later (ring full) %d, read %d, bytes %s, stat %d\n", on, r,
           stream_ok(16, 40) ? "match" : "differ", type);
    printf("stream: pause %d, ", sceCdStPause());
    printf("resume %d, ", sceCdStResume());
    printf("stop %d, ", sceCdStStop());
    printf("read after stop %d\n", sceCdStRead(8, (u32 *)sbuf, STMNBLK, &chk));
    printf("cdvd: done\n");
    return NO_RESIDENT_END;
}
