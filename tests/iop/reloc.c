/* reloc.c: every relocation kind of the IRX format, applied by the loader at the module's load
 * address (the module is linked at 0, so nothing works unless each kind is applied right):
 *   R_MIPS_26    calls between the module's functions (jal), recursion;
 *   R_MIPS_32    a function table and string pointers in .data, a string table in .rodata, a
 *                pointer with an addend, pointers into .bss, a pointer to an import stub;
 *   R_MIPS_HI16/R_MIPS_LO16  every address the code forms, among them one whose low half is
 *                >= 0x8000 (so the HI16 carries one: reloc_big.far, 0xc000 bytes into the
 *                first object of .bss, lies at 0xc000 + the few KiB of text and data, below
 *                0x10000; far_by_hi_lo forms it by a lui/addiu pair) and one HI16 shared by
 *                two LO16s (hi_two_lo's hand-written lui/lw/sw).
 * Only values that do not depend on the load address (or the code size) are printed: results,
 * strings and differences between addresses formed by different relocations. */
#include "irx.h"

IRX_ID("reloc", 1, 1);

static int __attribute__((noinline)) add(int a, int b)
{
    return a + b;
}

static int __attribute__((noinline)) sub(int a, int b)
{
    return a - b;
}

static int __attribute__((noinline)) mul(int a, int b)
{
    return a * b;
}

static int __attribute__((noinline)) fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

/* Global (not static) so that gcc cannot fold their values into the code. */
int (*reloc_ops[3])(int, int) = { add, sub, mul };
const char *const reloc_names[3] = { "add", "sub", "mul" }; /* .rodata, .rel.rodata */
const char *reloc_greeting = "hello from .rodata";
static const char digits[] = "0123456789";
const char *reloc_tail = digits + 6; /* an addend: "6789" */
int (*reloc_print)(const char *format, ...) = printf; /* the import stub */
u32 reloc_data_words[4] = { 0x11111111, 0x22222222, 0x33333333, 0x44444444 };
u32 reloc_shared_word = 5;

/* .bss: reloc_big is the first (and largest) object of the module's .bss. */
struct {
    u32 head;
    u8 pad[0xc000 - 4];
    u32 far;
    u32 far2;
} reloc_big;
static u32 zeroes[64];

void *reloc_big_ptr = &reloc_big;
u32 *reloc_far_ptr = &reloc_big.far;
u32 *reloc_far2_ptr = &reloc_big.far2;

/* The address of reloc_big.far by a lui/addiu pair of its own (gcc would form it from
   reloc_big's address plus a constant): its low half is >= 0x8000, so the linked lui holds
   %hi = 1 more than the address's upper half, and the loader must recompute that carry for the
   load address. */
static u32 *__attribute__((noinline)) far_by_hi_lo(void)
{
    u32 *p;
    __asm__("lui %0, %%hi(reloc_big + 0xc000)\n\t"
            "addiu %0, %0, %%lo(reloc_big + 0xc000)"
            : "=r"(p));
    return p;
}

/* One lui, two uses of its %lo: the loader fixes the HI16 with the first LO16's addend and each
   LO16 on its own. */
static u32 __attribute__((noinline)) hi_two_lo(u32 value)
{
    u32 old, base;
    __asm__ volatile(".set push\n\t"
                     ".set noreorder\n\t"
                     "lui %1, %%hi(reloc_shared_word)\n\t"
                     "lw %0, %%lo(reloc_shared_word)(%1)\n\t"
                     "nop\n\t"
                     "sw %2, %%lo(reloc_shared_word)(%1)\n\t"
                     ".set pop"
                     : "=&r"(old), "=&r"(base)
                     : "r"(value)
                     : "memory");
    return old;
}

static const char *ok(int cond)
{
    return cond ? "OK" : "FAIL";
}

int _start(int argc, char **argv)
{
    int i, good;
    (void)argc;
    (void)argv;

    printf("reloc: R_MIPS_26 calls: add %d sub %d mul %d fib %d\n", add(7, 5), sub(7, 5),
           mul(7, 5), fib(10));

    good = reloc_ops[0] == add && reloc_ops[1] == sub && reloc_ops[2] == mul;
    printf("reloc: R_MIPS_32 function table: add %d sub %d mul %d %s\n", reloc_ops[0](7, 5),
           reloc_ops[1](7, 5), reloc_ops[2](7, 5), ok(good));

    printf("reloc: R_MIPS_32 .rodata string table: %s %s %s\n", reloc_names[0], reloc_names[1],
           reloc_names[2]);
    printf("reloc: R_MIPS_32 string pointer: %s\n", reloc_greeting);
    printf("reloc: R_MIPS_32 with an addend: %s\n", reloc_tail);
    reloc_print("reloc: R_MIPS_32 pointer to an import stub: %s\n", ok(reloc_print == printf));

    /* HI16/LO16 with the carry (reloc_big.far), against the R_MIPS_32 pointers. */
    printf("reloc: R_MIPS_32 into .bss: far - big = 0x%x, far2 - far = 0x%x %s\n",
           (u32)reloc_far_ptr - (u32)reloc_big_ptr, (u32)reloc_far2_ptr - (u32)reloc_far_ptr,
           ok(reloc_big_ptr == (void *)&reloc_big && reloc_far_ptr == &reloc_big.far));
    *far_by_hi_lo() = 0x12345678;
    *reloc_far2_ptr = 0xcafe;
    printf("reloc: HI16/LO16 carry: far 0x%x far2 0x%x %s\n", *reloc_far_ptr, reloc_big.far2,
           ok(far_by_hi_lo() == reloc_far_ptr && *reloc_far_ptr == 0x12345678 &&
              reloc_big.far2 == 0xcafe));

    i = hi_two_lo(9);
    printf("reloc: one HI16, two LO16: old %d new %u %s\n", i, reloc_shared_word,
           ok(i == 5 && reloc_shared_word == 9));

    good = reloc_data_words[0] + reloc_data_words[1] + reloc_data_words[2] +
               reloc_data_words[3] == 0xaaaaaaaa;
    printf("reloc: .data initialised: %s\n", ok(good));
    good = reloc_big.head == 0;
    for (i = 0; i < 64; i++)
        good &= zeroes[i] == 0;
    printf("reloc: .bss zeroed: %s\n", ok(good));

    printf("-- done\n");
    return NO_RESIDENT_END;
}
