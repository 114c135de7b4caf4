/* iop_exec: SifExecModuleBuffer of an IOP module embedded in the program, tests/iop/reloc.irx:
 * the EE copies it into IOP heap, LOADFILE (function 6) loads it from there and starts it, and
 * what its _start prints on the IOP reaches the same stdout, between the EE's lines (the EE
 * waits for the RPC's answer, which comes once _start has returned).
 *
 * The expected output (iop_exec.stdout): the EE's first line, reloc's twelve lines
 * (tests/iop/reloc.stdout), then the EE's: a module id (>= 0; modload gives the id even for a
 * module that does not stay resident) and the start result, reloc's NO_RESIDENT_END (1). */
/* libs: iop */
/* needs: tests/iop/reloc.irx */
#include "piney_sys.h"
#include "sifrpc.h"
#include "loadfile.h"

/* The module, 64-byte aligned (SIF DMA reads whole quadwords). */
__asm__(".section .rodata\n"
        ".balign 64\n"
        "reloc_irx:\n"
        ".incbin \"tests/iop/reloc.irx\"\n"
        "reloc_irx_end:\n"
        ".balign 16\n"
        ".previous\n");
extern u8 reloc_irx[], reloc_irx_end[];

int main(void)
{
    puts("iop_exec: SifExecModuleBuffer of tests/iop/reloc.irx");
    SifInitRpc(0);
    int mod_res = -1;
    int id = SifExecModuleBuffer(reloc_irx, (u32)(reloc_irx_end - reloc_irx), 0, NULL, &mod_res);
    if (id >= 0)
        printf("SifExecModuleBuffer: ok, start result %d\n", mod_res);
    else
        printf("SifExecModuleBuffer: %d\n", id);
    puts("done");
    return 0;
}
