/* stdioinit.c: the stdio library writes through ioman's fd 1, and iomanX's StdioInit reopens
 * fds 0 and 1: mode 1 on "dummytty", which drops what it is given, mode 0 on the tty again.
 * fdprintf/fdputs/fdputc write to the fd they are given: fd 1 like printf; a closed fd takes
 * nothing.
 *
 * Expected: the first two lines, nothing from the dummytty stretch, then the last three (the
 * line to closed fd 7 is not there). */
#include "irx.h"

IRX_ID("stdioinit", 1, 1);

int _start(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("stdioinit: printf on the tty\n");
    fdprintf(1, "stdioinit: fdprintf to fd %d\n", 1);
    StdioInit(1);
    printf("stdioinit: this goes to dummytty\n");
    puts("stdioinit: and so does this");
    StdioInit(0);
    fdputs("stdioinit: fdputs to fd 1 after StdioInit(0)\n", 1);
    fdprintf(7, "stdioinit: fd 7 is not open\n");
    putchar('o');
    putchar('k');
    fdputc('\n', 1);
    printf("-- done\n");
    return NO_RESIDENT_END;
}
