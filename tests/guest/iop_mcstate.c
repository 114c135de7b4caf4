/* iop_mcstate: a memory card in use across frames, as a game keeps it while it saves: the
 * current directory set by mcChdir, a file opened by a relative path and written a step at a
 * time, a directory open, an mcGetDir listing read one entry a step, three vertical blanks
 * between steps. A save state taken between the steps and loaded into a new run over the card
 * as it was then must carry on with the same directory, handles, positions and listing: that
 * run's output is the rest of this one's, and the card it leaves is the same
 * (crates/piney/tests/save_states.rs, on a folder card and a .ps2 image).
 *
 * Expected output (iop_mcstate.stdout), from the calls on a fresh card in port 1: the first
 * look at a new formatted card is -1 (sceMcResChangedCard); mcOpen gives MCMAN's descriptors 0
 * and 1; the listing of PINEY-STATE's entries (pattern "*") goes by slot: '.', '..', one,
 * two, three, log.bin, then nothing; step k writes 256 bytes (k * 17 + i) & 0xff, i = 0..255 (every byte value once),
 * so the file ends at 2048 and its bytes sum to 8 * 32640 = 261120. */
/* libs: iop */
#include "piney_sys.h"
#include "sifrpc.h"
#include "loadfile.h"
#include "libmc.h"

static volatile int vblanks;
static sceMcTblGetDir table[1];
static u8 buf[2048] __attribute__((aligned(64)));
static char cwd[1024];

static s32 on_vblank(s32 cause)
{
    (void)cause;
    vblanks++;
    ExitHandler();
    return 0;
}

static void wait_frames(int n)
{
    int v = vblanks;
    while (vblanks - v < n)
        ;
}

static const char *entry(int n)
{
    return n > 0 ? (const char *)table[0].EntryName : "-";
}

int main(void)
{
    SifInitRpc(0);
    SifLoadFileInit();
    SifLoadModule("rom0:SIO2MAN", 0, NULL);
    SifLoadModule("rom0:MCMAN", 0, NULL);
    SifLoadModule("rom0:MCSERV", 0, NULL);
    AddIntcHandler(INTC_VBLANK_S, on_vblank, 0);
    EnableIntc(INTC_VBLANK_S);
    printf("mcInit: %d\n", mcInit(MC_TYPE_MC));
    int type, free, format;
    printf("mcGetInfo: %d\n", mcWaitResult(mcGetInfo(0, 0, &type, &free, &format)));
    printf("mcMkDir: %d", mcWaitResult(mcMkDir(0, 0, "/PINEY-STATE")));
    printf(" %d", mcWaitResult(mcMkDir(0, 0, "/PINEY-STATE/one")));
    printf(" %d", mcWaitResult(mcMkDir(0, 0, "/PINEY-STATE/two")));
    printf(" %d\n", mcWaitResult(mcMkDir(0, 0, "/PINEY-STATE/three")));
    int r = mcWaitResult(mcChdir(0, 0, "/PINEY-STATE", cwd));
    printf("mcChdir: %d %s\n", r, cwd);
    int fd = mcWaitResult(mcOpen(0, 0, "log.bin", O_CREAT | O_RDWR));
    int dir = mcWaitResult(mcOpen(0, 0, "two", O_RDONLY));
    printf("mcOpen: file %d, directory %d\n", fd, dir);
    int n = mcWaitResult(mcGetDir(0, 0, "/PINEY-STATE/*", 0, 1, table));
    printf("mcGetDir: %d %s\n", n, entry(n));
    for (int step = 0; step < 8; step++) {
        for (int i = 0; i < 256; i++)
            buf[i] = (u8)(step * 17 + i);
        int w = mcWaitResult(mcWrite(fd, buf, 256));
        int at = mcWaitResult(mcSeek(fd, 0, SEEK_CUR));
        n = mcWaitResult(mcGetDir(0, 0, "/PINEY-STATE/*", 1, 1, table));
        printf("step %d: write %d, at %d, listing %d %s\n", step, w, at, n, entry(n));
        wait_frames(3);
    }
    printf("mcSeek: %d\n", mcWaitResult(mcSeek(fd, 0, SEEK_SET)));
    n = mcWaitResult(mcRead(fd, buf, sizeof buf));
    u32 sum = 0;
    for (int i = 0; i < n; i++)
        sum += buf[i];
    printf("mcRead: %d, sum %u\n", n, (unsigned)sum);
    printf("mcClose: %d", mcWaitResult(mcClose(fd)));
    printf(" %d\n", mcWaitResult(mcClose(dir)));
    r = mcWaitResult(mcChdir(0, 0, "three", cwd));
    printf("mcChdir: %d %s\n", r, cwd);
    puts("done");
    return 0;
}
