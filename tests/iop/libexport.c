/* libexport.c: registers the library "pinytest" (version 1.1) with loadcore's
 * RegisterLibraryEntries and stays resident (RESIDENT_END), so that modules loaded after it
 * link against it (tests/iop/libimport.c). Its export table:
 *     0..3  the standard entries (_start and three return-only functions)
 *     4     int pt_add(int a, int b)          a + b
 *     5     int pt_mul(int a, int b)          a * b, counted
 *     6     const char *pt_name(void)         a string in this module's .rodata
 *     7     int pt_calls(void)                how many times pt_mul ran
 * A second table with the same name and version is refused with KE_LIBRARY_FOUND (loadcore:
 * a library of that name, same major and a minor not older, is already registered). */
#include "irx.h"

IRX_ID("libexport", 1, 1);

static int mul_calls;

static int pt_add(int a, int b)
{
    return a + b;
}

static int pt_mul(int a, int b)
{
    mul_calls++;
    return a * b;
}

static const char *pt_name(void)
{
    return "pinytest, from libexport";
}

static int pt_calls(void)
{
    return mul_calls;
}

IRX_EXPORTS(pinytest_exports, "pinytest", 1, 1, _start, irx_retonly, irx_retonly, irx_retonly,
            pt_add, pt_mul, pt_name, pt_calls);
IRX_EXPORTS(pinytest_again, "pinytest", 1, 1, _start, irx_retonly, irx_retonly, irx_retonly,
            pt_add);

int _start(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("libexport: RegisterLibraryEntries(pinytest 1.1) -> %d\n",
           RegisterLibraryEntries(&pinytest_exports));
    printf("libexport: again, another table -> %d\n", RegisterLibraryEntries(&pinytest_again));
    printf("-- done\n");
    return RESIDENT_END;
}
