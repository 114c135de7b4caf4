/* alu: portable integer ALU, shifts, compares and C 64-bit arithmetic.
 * Plain C (no R5900-specific code): tools/check-qemu.sh runs the same
 * source on MIPS32 under qemu-mipsel and compares the output. */
#include "piney_rt.h"

/* Values laundered through volatile memory so gcc cannot fold the operations
   at compile time: the guest must compute them. */
static volatile u32 vu[] = { 0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 0x12345678, 0xdeadbeef };
static volatile u64 vq[] = { 0x0123456789abcdefULL, 0xfedcba9876543210ULL, 0xffffffffULL,
                             0x8000000000000000ULL };
#define NU (sizeof vu / sizeof vu[0])

int main(void)
{
    puts("-- 32-bit add/sub/logic");
    for (unsigned i = 0; i < NU; i++) {
        u32 a = vu[i], b = vu[(i + 3) % NU];
        printf("%08x %08x: add %08x sub %08x and %08x or %08x xor %08x nor %08x\n", a, b, a + b,
               a - b, a & b, a | b, a ^ b, ~(a | b));
    }
    puts("-- compares");
    for (unsigned i = 0; i < NU; i++) {
        u32 a = vu[i], b = vu[(i + 2) % NU];
        printf("%08x %08x: slt %d sltu %d eq %d\n", a, b, (s32)a < (s32)b, a < b, a == b);
    }
    puts("-- shifts");
    for (unsigned i = 0; i < NU; i++) {
        u32 a = vu[i];
        for (unsigned s = 0; s < 32; s += 7)
            printf("%08x<<%-2u %08x >>%-2u %08x sra %08x\n", a, s, a << s, s, a >> s,
                   (u32)((s32)a >> s));
    }
    puts("-- immediates");
    {
        volatile s32 x = -5;
        s32 y = x;
        printf("%d %d %x %x %d\n", y + 32767, y - 32768, (u32)y & 0xffff, (u32)y | 0x8000,
               y < -4);
    }
    puts("-- 64-bit C arithmetic");
    for (unsigned i = 0; i < 4; i++) {
        u64 a = vq[i], b = vq[(i + 1) % 4];
        printf("%016llx %016llx: add %016llx sub %016llx\n", a, b, a + b, a - b);
        printf("  shl13 %016llx shr13 %016llx sar13 %016llx lt %d slt %d\n", a << 13, a >> 13,
               (u64)((s64)a >> 13), a < b, (s64)a < (s64)b);
    }
    puts("-- bit tricks");
    {
        u32 acc = 0;
        for (unsigned i = 0; i < NU; i++) {
            u32 v = vu[i];
            unsigned pop = 0;
            while (v) {
                v &= v - 1;
                pop++;
            }
            acc = acc * 31 + pop;
            printf("pop(%08x)=%u\n", vu[i], pop);
        }
        printf("acc=%08x\n", acc);
    }
    return 0;
}
