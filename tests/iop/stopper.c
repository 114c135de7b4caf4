/* stopper.c: stops and unloads tests/iop/stopee.c (loaded and started before it), from a
 * thread of its own (modload runs a StopModule call from another thread on its loader thread
 * and wakes the caller with the answer).
 *
 * Expected, by modload's rules (ps2sdk's modload, stop_module and unload_module):
 * - UnloadModule of a removable module still running: KE_NOT_STOPPED (-210).
 * - StopModule(id, "bye"): stopee's entry runs with argc -2 and argv "other", "bye"; it answers
 *   RESIDENT_END, so StopModule returns KE_CAN_NOT_STOP (-209) with result 0.
 * - StopModule again: NO_RESIDENT_END, StopModule returns the id, result 1.
 * - StopModule a third time: KE_ALREADY_STOPPED (-208).
 * - UnloadModule: the id; SearchModuleByName then KE_UNKNOWN_MODULE (-202).
 * - StopModule of a module that is not removable (this one, resident): KE_NOT_REMOVABLE
 *   (-211). */
#include "irx.h"

IRX_ID("stopper", 1, 1);

static int self_id;

static void worker(void *arg)
{
    int id, r, res;
    (void)arg;
    id = SearchModuleByName("stopee");
    printf("stopper: stopee found: %s\n", id > 0 ? "yes" : "no");
    printf("stopper: unload while running: %d\n", UnloadModule(id));
    res = -1;
    r = StopModule(id, 4, "bye", &res);
    printf("stopper: stop 1: %d, result %d\n", r, res);
    res = -1;
    r = StopModule(id, 4, "bye", &res);
    printf("stopper: stop 2: %s, result %d\n", r == id ? "the id" : "not the id", res);
    printf("stopper: stop 3: %d\n", StopModule(id, 0, "", &res));
    r = UnloadModule(id);
    printf("stopper: unload: %s\n", r == id ? "the id" : "not the id");
    printf("stopper: search again: %d\n", SearchModuleByName("stopee"));
    self_id = SearchModuleByName("stopper");
    printf("stopper: stop a resident module: %d\n", StopModule(self_id, 0, "", &res));
    printf("-- done\n");
}

int _start(int argc, char **argv)
{
    iop_thread_t t;
    int th;
    (void)argc;
    (void)argv;
    t.attr = TH_C;
    t.option = 0;
    t.thread = worker;
    t.stacksize = 0x800;
    t.priority = 40;
    th = CreateThread(&t);
    StartThread(th, 0);
    return RESIDENT_END;
}
