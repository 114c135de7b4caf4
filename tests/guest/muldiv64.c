/* muldiv64: portable 32-bit and 64-bit multiply, divide and remainder (the
 * 64-bit ones go through the runtime's __udivdi3 family). Plain C:
 * tools/check-qemu.sh cross-checks it on MIPS32 under qemu-mipsel. */
#include "piney_rt.h"

static volatile s32 vs[] = { 7, -7, 3, -3, 0x7fffffff, -0x7fffffff - 1, 65536, 1000000007 };
static volatile s64 vq[] = { 1000000000000LL, -987654321987654LL, 3, -7, 0x7fffffffffffffffLL,
                             0x123456789LL, 1, -1 };
#define N 8

int main(void)
{
    puts("-- 32-bit");
    for (int i = 0; i < N; i++) {
        s32 a = vs[i], b = vs[(i + 1) % N];
        s64 p = (s64)a * b;
        u64 up = (u64)(u32)a * (u32)b;
        printf("%d*%d: mul %d smul %lld umul %llu\n", a, b, a * b, p, up);
        if (b != 0 && !(a == -0x7fffffff - 1 && b == -1))
            printf("  div %d rem %d udiv %u urem %u\n", a / b, a % b, (u32)a / (u32)b,
                   (u32)a % (u32)b);
    }
    puts("-- 64-bit");
    for (int i = 0; i < N; i++) {
        s64 a = vq[i], b = vq[(i + 3) % N];
        printf("%lld,%lld: mul %lld\n", a, b, a * b);
        printf("  div %lld mod %lld udiv %llu umod %llu\n", a / b, a % b, (u64)a / (u64)b,
               (u64)a % (u64)b);
    }
    puts("-- collatz");
    {
        u64 x = 27;
        int steps = 0;
        u64 peak = x;
        while (x != 1) {
            x = (x % 2) ? 3 * x + 1 : x / 2;
            if (x > peak)
                peak = x;
            steps++;
        }
        printf("27: steps %d peak %llu\n", steps, peak);
    }
    puts("-- decimal digits of 2^64-1 by 10");
    {
        u64 v = ~0ULL;
        char buf[24];
        int n = 0;
        while (v) {
            buf[n++] = (char)('0' + (int)(v % 10));
            v /= 10;
        }
        while (n)
            putchar(buf[--n]);
        putchar('\n');
    }
    return 0;
}
