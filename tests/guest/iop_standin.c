/* iop_standin: a program that carries its own pad driver, tests/iop/padcopy.irx (a module named
 * "padman" 3.6, as ps2sdk's padman.irx is), and loads it with SifExecModuleBuffer. piney answers
 * such drivers natively: the module is loaded as rom0:XPADMAN, so its own code (which would
 * print a line) does not run, the load answers like a native module's (an id, start result 0:
 * RESIDENT_END) and the new pad protocol's server (0x80000100) answers a bind and a call.
 *
 * Expected (iop_standin.stdout): the load line, the bind, GET_PORT_MAX's 2 (word 3) and the
 * module version 0x0306. */
/* libs: iop */
/* needs: tests/iop/padcopy.irx */
#include "piney_sys.h"
#include "sifrpc.h"
#include "loadfile.h"

__asm__(".section .rodata\n"
        ".balign 64\n"
        "padcopy_irx:\n"
        ".incbin \"tests/iop/padcopy.irx\"\n"
        "padcopy_irx_end:\n"
        ".balign 16\n"
        ".previous\n");
extern u8 padcopy_irx[], padcopy_irx_end[];

static SifRpcClientData_t client __attribute__((aligned(64)));
static union {
    u32 w[32];
    u8 b[128];
} rpc_buf __attribute__((aligned(64)));

int main(void)
{
    SifInitRpc(0);
    int mod_res = -1;
    int id = SifExecModuleBuffer(padcopy_irx, (u32)(padcopy_irx_end - padcopy_irx), 0, NULL, &mod_res);
    printf("SifExecModuleBuffer: %s, start result %d\n", id >= 0 ? "an id" : "failed", mod_res);
    int bound = 0;
    for (int tries = 0; tries < 100 && !bound; tries++)
        bound = SifBindRpc(&client, 0x80000100, 0) >= 0 && client.server != NULL;
    printf("bind 0x80000100: %s\n", bound ? "yes" : "no");
    if (!bound)
        return 1;
    rpc_buf.w[0] = 0x0c; /* GET_PORT_MAX */
    SifCallRpc(&client, 1, 0, &rpc_buf, 128, &rpc_buf, 128, NULL, NULL);
    printf("ports %d\n", (int)rpc_buf.w[3]);
    rpc_buf.w[0] = 0x12; /* GET_MODVER */
    SifCallRpc(&client, 1, 0, &rpc_buf, 128, &rpc_buf, 128, NULL, NULL);
    printf("module version 0x%04x\n", (unsigned)rpc_buf.w[3]);
    return 0;
}
