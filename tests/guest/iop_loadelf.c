/* iop_loadelf: LOADFILE's ELF_LOAD (function 1, ps2sdk's SifLoadElf): the IOP reads an EE
 * program from a device and sends its loadable segments into EE memory by SIF DMA, answering
 * {entry, gp, 0, 0}, or {0, 0, 0, error}. crates/piney/tests/loadfile_elf.rs writes the ELFs it
 * loads into the program's folder (host:) and checks its output: payload.elf, one segment of 16
 * bytes at 0x01800000 with its entry there; low.elf, a segment at 0x40000 (the EE kernel's,
 * refused: KE_ILLEGAL_OBJECT, -201); missing.elf (KE_NOFILE, -203). No .stdout: it needs those
 * files. */
/* libs: iop */
#include "piney_sys.h"
#include "sifrpc.h"
#include "loadfile.h"

static SifRpcClientData_t lf __attribute__((aligned(64)));
static struct {
    u32 epc;
    u32 gp;
    char path[252];
    char secname[252];
} arg __attribute__((aligned(64)));

static void load(const char *path)
{
    memset(&arg, 0, sizeof arg);
    for (int i = 0; path[i] && i < 251; i++)
        arg.path[i] = path[i];
    memcpy(arg.secname, "all", 4);
    SifCallRpc(&lf, 1, 0, &arg, sizeof arg, &arg, 16, NULL, NULL);
    u32 *w = (u32 *)&arg;
    printf("%s: %08x %08x %08x %d\n", path, (unsigned)w[0], (unsigned)w[1], (unsigned)w[2],
           (int)w[3]);
}

int main(void)
{
    SifInitRpc(0);
    for (int i = 0; i < 1000 && !lf.server; i++)
        if (SifBindRpc(&lf, 0x80000006, 0) < 0)
            return 1;
    load("host:payload.elf");
    volatile char *p = (volatile char *)0xa1800000;
    printf("at 0x01800000:");
    for (int i = 0; i < 16; i++)
        printf("%c", p[i]);
    printf("\n");
    load("host:low.elf");
    load("host:missing.elf");
    return 0;
}
