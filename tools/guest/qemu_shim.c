/* qemu_shim.c: runs a portable guest program as a MIPS32 Linux process
 * (qemu-mipsel) for tools/check-qemu.sh. It replaces crt0 and the SIO:
 * putchar buffers bytes and writes them to fd 1; main's return value
 * becomes the exit status. Only for the host cross-check, never in an ELF
 * that piney runs. */
#include "piney_rt.h"

int main(int argc, char **argv);

static char outbuf[4096];
static unsigned outlen;

static long linux_syscall3(long n, long a, long b, long c)
{
    register long v0 __asm__("$2") = n;
    register long a0 __asm__("$4") = a;
    register long a1 __asm__("$5") = b;
    register long a2 __asm__("$6") = c;
    register long a3 __asm__("$7");
    __asm__ volatile("syscall"
                     : "+r"(v0), "+r"(a0), "+r"(a1), "+r"(a2), "=r"(a3)
                     :
                     : "$1", "$3", "$8", "$9", "$10", "$11", "$12", "$13", "$14", "$15",
                       "$24", "$25", "hi", "lo", "memory");
    return v0;
}

static void flush(void)
{
    unsigned off = 0;
    while (off < outlen) {
        long n = linux_syscall3(4004 /* write */, 1, (long)(outbuf + off), outlen - off);
        if (n <= 0)
            break;
        off += (unsigned)n;
    }
    outlen = 0;
}

int putchar(int c)
{
    if (outlen == sizeof outbuf)
        flush();
    outbuf[outlen++] = (char)c;
    return (u8)c;
}

void shim_start(void) __attribute__((noreturn, used));
void shim_start(void)
{
    int r = main(0, NULL);
    flush();
    linux_syscall3(4246 /* exit_group */, r, 0, 0);
    for (;;)
        ;
}

/* The Linux entry point: give main an aligned stack frame. */
__asm__(".globl __start\n"
        ".set push\n.set noreorder\n"
        "__start:\n"
        "  li $8, -16\n  and $sp, $sp, $8\n  addiu $sp, $sp, -32\n"
        "  jal shim_start\n  nop\n"
        ".set pop\n");
