/* libimport.c: imports the library "pinytest" of tests/iop/libexport.c and calls it.
 *
 * It needs libexport loaded (and started) first, as crates/piney-iop/tests/iop_modules.rs
 * queues them; the output is libexport.stdout followed by libimport.stdout. Alone it cannot
 * load: on the console modload refuses a module whose imports loadcore cannot link
 * (KE_LINKERR).
 *
 * The import table, written by hand (build-iop.sh generates only the system libraries' ones):
 * version 1.1 (loadcore matches the name and the major version), functions 4..7. */
#include "irx.h"

IRX_ID("libimport", 1, 1);

IRX_IMPORTS(pinytest, 1, 1,
            IRX_STUB(pt_add, 4)
            IRX_STUB(pt_mul, 5)
            IRX_STUB(pt_name, 6)
            IRX_STUB(pt_calls, 7));

int pt_add(int a, int b);
int pt_mul(int a, int b);
const char *pt_name(void);
int pt_calls(void);

int _start(int argc, char **argv)
{
    int a, m1, m2;
    (void)argc;
    (void)argv;
    a = pt_add(2, 3);
    m1 = pt_mul(6, 7);
    m2 = pt_mul(-4, 25);
    printf("libimport: pt_add(2, 3) = %d, pt_mul(6, 7) = %d, pt_mul(-4, 25) = %d\n", a, m1, m2);
    printf("libimport: pt_name() = \"%s\", pt_calls() = %d\n", pt_name(), pt_calls());
    printf("-- done\n");
    return NO_RESIDENT_END;
}
