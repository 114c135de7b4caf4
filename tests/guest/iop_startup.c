/* iop_startup: what a ps2sdk program does first with the IOP, over the real SIF protocol: reboot
 * the IOP with its BIOS modules, load the pad and memory card modules from rom0 through
 * LOADFILE, open a pad port (padman), and use the memory card through mcserv: card info, a
 * directory, a file written and read back through unaligned buffers (the read's head and tail
 * come back through mcserv's end parameters, its middle by DMA; the write's head goes in the
 * argument block, the rest is fetched by the IOP with RDATA), the directory's listing.
 *
 * Run with a fresh formatted 8 MiB card in port 1, slot 0: `--memcard1 FOLDER` (an empty
 * folder) or `--memcard1 card.ps2` (a freshly formatted image); the output is the same for both.
 * The expected output (iop_startup.stdout) is derived by hand; see the comments. */
/* libs: iop */
#include "piney_sys.h"
#include "sifrpc.h"
#include "iopreset.h"
#include "loadfile.h"
#include "libpad.h"
#include "libmc.h"

#define SIZE 1000

static u8 pad_area[256] __attribute__((aligned(64)));
static u8 wbuf[1088] __attribute__((aligned(64)));
static u8 rbuf[1088] __attribute__((aligned(64)));
static sceMcTblGetDir table[8];

static void load(const char *path)
{
    int r = SifLoadModule(path, 0, NULL);
    if (r >= 0)
        printf("load %s: ok\n", path);
    else
        printf("load %s: %d\n", path, r);
}

/* Wait for the memory card call `func` that `started` says was started; its result. */
static int mc_wait(const char *what, int started, int func)
{
    if (started != 0) {
        printf("%s: not started (%d)\n", what, started);
        return -1000;
    }
    int cmd = -1, result = -1000;
    int s = mcSync(MC_WAIT, &cmd, &result);
    if (s != 1 || cmd != func)
        printf("%s: mcSync %d, cmd %d (expected 1, %d)\n", what, s, cmd, func);
    return result;
}

static void show(const char *what, int r)
{
    if (r >= 0)
        printf("%s: ok\n", what);
    else
        printf("%s: %d\n", what, r);
}

static void get_info(void)
{
    int type = -1, free = -1, format = -1;
    int r = mc_wait("mcGetInfo", mcGetInfo(0, 0, &type, &free, &format), MC_FUNC_GET_INFO);
    printf("mcGetInfo: result %d, type %d, free %d, format %d\n", r, type, free, format);
}

static u8 pattern(int i) { return (u8)(i * 37 + (i >> 5)); }

int main(void)
{
    puts("iop_startup");
    SifInitRpc(0);
    /* The reboot: the command is sent (1); SMFLG.BOOTEND comes back once the IOP is up. */
    printf("SifIopReset: %d\n", SifIopReset("", 0));
    while (!SifIopSync())
        ;
    puts("IOP rebooted");
    SifInitRpc(0);
    printf("SifLoadFileInit: %d\n", SifLoadFileInit());

    load("rom0:SIO2MAN");
    load("rom0:PADMAN");
    load("rom0:MCMAN");
    load("rom0:MCSERV");
    /* No such module in rom0: LOADFILE answers KE_NOFILE (-203). */
    load("rom0:NOSUCHMOD");

    printf("scePadInit: %d\n", scePadInit(0));
    printf("scePadPortOpen: %d\n", scePadPortOpen(0, 0, pad_area));

    /* rom0:MCSERV has the old command set: mcInit's probe ends with the old INIT, which
       answers 0 (sceMcResSucceed). */
    printf("mcInit: %d\n", mcInit(MC_TYPE_MC));
    /* The first look at the card after the reboot: a new formatted card (-1); then the same
       card (0). A formatted 8 MiB card: type 2 (PS2), 8000 free clusters (mcman allows
       8192 / 1000 * 1000 + 1 = 8001 clusters, and the root directory takes one), formatted. */
    get_info();
    get_info();

    /* A new directory (0); again: it exists, mcman's open with the create-directory flag
       answers sceMcResNoEntry (-4). */
    printf("mcMkDir /PINEY: %d\n", mc_wait("mcMkDir", mcMkDir(0, 0, "/PINEY"), MC_FUNC_MK_DIR));
    printf("mcMkDir /PINEY again: %d\n",
           mc_wait("mcMkDir", mcMkDir(0, 0, "/PINEY"), MC_FUNC_MK_DIR));

    int fd = mc_wait("mcOpen", mcOpen(0, 0, "/PINEY/save.dat", O_CREAT | O_WRONLY), MC_FUNC_OPEN);
    show("mcOpen /PINEY/save.dat for writing", fd);
    /* From wbuf + 3: 13 bytes go in the argument block, the 987 from wbuf + 16 by RDATA. */
    for (int i = 0; i < SIZE; i++)
        wbuf[3 + i] = pattern(i);
    printf("mcWrite: %d\n", mc_wait("mcWrite", mcWrite(fd, wbuf + 3, SIZE), MC_FUNC_WRITE));
    printf("mcClose: %d\n", mc_wait("mcClose", mcClose(fd), MC_FUNC_CLOSE));

    fd = mc_wait("mcOpen", mcOpen(0, 0, "/PINEY/save.dat", O_RDONLY), MC_FUNC_OPEN);
    show("mcOpen /PINEY/save.dat for reading", fd);
    printf("mcSeek to the end: %d\n",
           mc_wait("mcSeek", mcSeek(fd, 0, SEEK_END), MC_FUNC_SEEK));
    printf("mcSeek to the start: %d\n",
           mc_wait("mcSeek", mcSeek(fd, 0, SEEK_SET), MC_FUNC_SEEK));
    /* Into rbuf + 5: a head of 11 bytes (to rbuf + 16) and a tail of 13 through the end
       parameters, the 976 bytes between by DMA. */
    memset(rbuf, 0xee, sizeof rbuf);
    printf("mcRead: %d\n", mc_wait("mcRead", mcRead(fd, rbuf + 5, SIZE), MC_FUNC_READ));
    int bad = 0, guards = 0;
    for (int i = 0; i < SIZE; i++)
        bad += rbuf[5 + i] != pattern(i);
    for (int i = 0; i < (int)sizeof rbuf; i++)
        if (i < 5 || i >= 5 + SIZE)
            guards += rbuf[i] != 0xee;
    printf("read back: %d bytes differ, %d guard bytes changed\n", bad, guards);
    printf("mcClose: %d\n", mc_wait("mcClose", mcClose(fd), MC_FUNC_CLOSE));

    /* ".", ".." and the file. "." shows /PINEY's own entry and ".." the root's: directories,
       0x8427 (exists, 0x0400, subdirectory, rwx), size 0; the file 0x8497 (exists, 0x0400,
       closed, file, rwx), 1000 bytes. */
    int n = mc_wait("mcGetDir", mcGetDir(0, 0, "/PINEY/*", 0, 8, table), MC_FUNC_GET_DIR);
    printf("mcGetDir /PINEY/*: %d\n", n);
    for (int i = 0; i < n && i < 8; i++)
        printf("  %s size %u attr 0x%04x\n", (const char *)table[i].EntryName,
               table[i].FileSizeByte, table[i].AttrFile);
    puts("done");
    return 0;
}
