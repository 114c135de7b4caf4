/* selfstop.c: a module that asks modload to stop itself with StopModule (modload's stop_module:
 * the caller found by its return address is the module to stop: KE_CAN_NOT_STOP, -209, once the
 * target's own state checks pass). It stays removable, so the state checks do pass; the call is
 * made from a thread of its own, after _start has returned.
 *
 * Expected: "selfstop: stop myself: -209", then "-- done". */
#include "irx.h"

IRX_ID("selfstop", 1, 1);

static void worker(void *arg)
{
    int res = 0;
    (void)arg;
    int id = SearchModuleByName("selfstop");
    printf("selfstop: stop myself: %d\n", StopModule(id, 0, "", &res));
    printf("-- done\n");
}

int _start(int argc, char **argv)
{
    iop_thread_t t;
    (void)argc;
    (void)argv;
    memset(&t, 0, sizeof t);
    t.attr = TH_C;
    t.thread = worker;
    t.stacksize = 0x800;
    t.priority = 40;
    StartThread(CreateThread(&t), NULL);
    return REMOVABLE_RESIDENT_END;
}
