/* sdload.c: loads rom0:LIBSD, the console's sound library, as a game's loader does before its
 * own sound driver (tests/iop/libsd.c), whose imports of libsd are linked when it loads and so
 * need the library registered first. LoadStartModule loads the rom module and runs its entry,
 * which registers the libsd export table (ps2sdk iop/sound/libsd freesd.c: _start calls
 * RegisterLibraryEntries and stays resident): the module id is positive and the start's result
 * RESIDENT_END (0). This module then goes (NO_RESIDENT_END). */
#include "irx.h"

IRX_ID("sdload", 1, 1);

int _start(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    int result = -1;
    int id = LoadStartModule("rom0:LIBSD", 0, NULL, &result);
    printf("sdload: rom0:LIBSD loaded: %s, its start's result %d\n", id > 0 ? "yes" : "no",
           result);
    return NO_RESIDENT_END;
}
