/* exec_second: started by exec_first's LoadExecPS2 from the same disc. The kernel it runs on is
 * fresh (its first semaphore has the id exec_first's first one had), its argv is the path it was
 * loaded from and then exec_first's two arguments (SetupThread hands them over, as ps2sdk's crt0
 * asks for them), and the IOP it talks to has been rebooted (the SIF RPC initialises again). */
/* libs: iop */
#include "piney_sys.h"
#include "sifrpc.h"

static struct {
    s32 argc;
    char *argv[16];
    char payload[256];
} args;

int main(void)
{
    extern char _gp[];
    piney_syscall4(SYS_SetupThread, (u32)_gp, (u32)-1, 0, (u32)&args);
    printf("second: argc %d:", (int)args.argc);
    for (int i = 0; i < args.argc; i++)
        printf(" [%s]", args.argv[i]);
    printf("\n");
    ee_sema_t s;
    memset(&s, 0, sizeof s);
    s.max_count = 1;
    printf("second: my first semaphore is %d\n", CreateSema(&s));
    SifInitRpc(0);
    puts("second: SIF RPC up");
    return 7;
}
