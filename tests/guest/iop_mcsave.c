/* iop_mcsave: a save written through mcserv, then the program keeps running: the test
 * (crates/piney/tests/memcards.rs) kills piney with SIGKILL as soon as "saved" is printed and
 * checks that the card on the host holds the whole file, as a console's card would once mcWrite
 * and mcClose returned. No expected output file: the run never ends by itself.
 *
 * The save: /PINEY-SAVE/data.bin, 20000 bytes, byte i = (i * 7 + i / 251) & 0xff, written in
 * one mcWrite from a 64-byte aligned buffer. The card: a fresh folder or .ps2 in port 1. */
/* libs: iop */
#include "piney_sys.h"
#include "sifrpc.h"
#include "loadfile.h"
#include "libmc.h"

#define SIZE 20000

static u8 data[SIZE] __attribute__((aligned(64)));

int main(void)
{
    SifInitRpc(0);
    SifLoadFileInit();
    SifLoadModule("rom0:SIO2MAN", 0, NULL);
    SifLoadModule("rom0:MCMAN", 0, NULL);
    SifLoadModule("rom0:MCSERV", 0, NULL);
    printf("mcInit: %d\n", mcInit(MC_TYPE_MC));
    int type, free, format;
    printf("mcGetInfo: %d\n", mcWaitResult(mcGetInfo(0, 0, &type, &free, &format)));
    printf("mcMkDir: %d\n", mcWaitResult(mcMkDir(0, 0, "/PINEY-SAVE")));
    for (int i = 0; i < SIZE; i++)
        data[i] = (u8)((i * 7 + i / 251) & 0xff);
    int fd = mcWaitResult(mcOpen(0, 0, "/PINEY-SAVE/data.bin", O_CREAT | O_WRONLY));
    printf("mcOpen: %s\n", fd >= 0 ? "ok" : "failed");
    printf("mcWrite: %d\n", mcWaitResult(mcWrite(fd, data, SIZE)));
    printf("mcClose: %d\n", mcWaitResult(mcClose(fd)));
    puts("saved");
    /* Keep running (the test kills piney now). */
    for (volatile u32 spin = 0;; spin++)
        ;
}
