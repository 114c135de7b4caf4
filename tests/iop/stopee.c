/* stopee.c: a removable module for tests/iop/stopper.c, which stops and unloads it.
 *
 * modload calls the entry to start it with argc >= 1 (argv[0] the module's path) and to stop
 * it with a negative argc: -(1 + the StopModule arguments), argv[0] = "other" when another
 * module stops it. Started it answers REMOVABLE_RESIDENT_END (2): resident, and StopModule may stop it.
 * The first stop answers RESIDENT_END (0): StopModule fails with KE_CAN_NOT_STOP (-209) and it
 * keeps running; the second NO_RESIDENT_END (1): stopped.
 *
 * Run with stopper after it (crates/piney-iop/tests/iop_modules.rs queues both): the output is
 * stopee.stdout followed by stopper.stdout (stopee's stop lines come from stopper's StopModule
 * calls, and so are part of stopper.stdout). */
#include "irx.h"

IRX_ID("stopee", 1, 1);

static int stops;

int _start(int argc, char **argv)
{
    int i;
    if (argc >= 0) {
        printf("stopee: start, argc %d\n", argc);
        return REMOVABLE_RESIDENT_END;
    }
    stops++;
    printf("stopee: stop %d, argc %d:", stops, argc);
    for (i = 0; i < -argc; i++)
        printf(" \"%s\"", argv[i]);
    printf("\n");
    return stops == 1 ? RESIDENT_END : NO_RESIDENT_END;
}
