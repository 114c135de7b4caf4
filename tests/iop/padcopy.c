/* padcopy.c: a module that calls itself "padman" 3.6 in its .iopmod header, as a program's own
 * copy of the pad driver does (ps2sdk's padman.irx, a disc's PADMAN.IRX). piney answers such a
 * driver natively (rom0:XPADMAN in its place), so this code never runs there: tests/guest/
 * iop_standin.c loads it and checks that its line below is not printed and that the pad
 * driver's server answers. On a console it would run, print and stay resident. */
#include "irx.h"

IRX_ID("padman", 3, 6);

int _start(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("padcopy: this copy of padman runs as code\n");
    return RESIDENT_END;
}
