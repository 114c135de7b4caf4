/* exec_first: the boot program of a test disc (crates/piney/tests/disc_boot.rs makes the disc (no .stdout here: it runs there, from a disc):
 * SYSTEM.CNF's BOOT2 is cdrom0:\FIRST.ELF;1, this program; BIN/SECOND.ELF is exec_second.c).
 * It creates a semaphore, then hands the console to the second program with LoadExecPS2 and two
 * arguments. LoadExecPS2 does not return: the next lines are exec_second's (see there). */
#include "piney_sys.h"

#define SYS_LoadExecPS2 6

int main(void)
{
    ee_sema_t s;
    memset(&s, 0, sizeof s);
    s.max_count = 1;
    printf("first: my first semaphore is %d\n", CreateSema(&s));
    static char one[] = "one", two[] = "two words";
    static char *args[] = {one, two};
    puts("first: LoadExecPS2 cdrom0:\\BIN\\SECOND.ELF;1 one \"two words\"");
    piney_syscall3(SYS_LoadExecPS2, (u32)"cdrom0:\\BIN\\SECOND.ELF;1", 2, (u32)args);
    puts("first: LoadExecPS2 returned");
    return 1;
}
