/* intrtab.c: intrman's handler table where the console keeps it, at IOP RAM 0x480: a pair of
 * words a slot {handler | mode, argument}, lines 0..0x2d then the software lines 0x3e/0x3f at
 * 0x2e/0x2f. Programs read and patch it directly (ps2sdk's poweroff.irx looks for cdvdman's
 * C handler on the CDVD line and chains its own in front).
 *
 * Expected: the CDVD line (2) holds cdvdman's handler, a C handler (mode bits 1); a handler this
 * module registers on software line 0x3e with mode 1 and argument 0x1234 is in slot 0x2e as
 * (address | 1, 0x1234); released, the slot is 0. */
#include "irx.h"

IRX_ID("intrtab", 1, 1);

struct slot {
    unsigned int handler;
    unsigned int arg;
};

/* The table's address, read from a variable so that the compiler makes no assumption about
   what lies at a constant address. */
static volatile unsigned int table_at = 0x480;

static int handler(void *arg)
{
    (void)arg;
    return 1;
}

int _start(int argc, char **argv)
{
    volatile struct slot *table = (volatile struct slot *)table_at;
    (void)argc;
    (void)argv;
    printf("intrtab: CDVD line: a handler %s, C type %s\n", table[2].handler ? "yes" : "no",
           (table[2].handler & 3) == 1 ? "yes" : "no");
    int r = RegisterIntrHandler(0x3e, 1, handler, (void *)0x1234);
    printf("intrtab: register 0x3e: %d\n", r);
    printf("intrtab: slot 0x2e holds it: %s, argument 0x%x\n",
           table[0x2e].handler == ((unsigned int)handler | 1) ? "yes" : "no", table[0x2e].arg);
    printf("intrtab: release: %d, slot now %u\n", ReleaseIntrHandler(0x3e), table[0x2e].handler);
    printf("-- done\n");
    return NO_RESIDENT_END;
}
