/* control: portable control flow: jump tables, function pointers,
 * recursion, early exits, short-circuit logic. Plain C: tools/check-qemu.sh
 * cross-checks it on MIPS32 under qemu-mipsel. */
#include "piney_rt.h"

static volatile int vin[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, -1, 100 };

static __attribute__((noinline)) const char *name(int x)
{
    switch (x) { /* dense enough for gcc to emit a jump table (jr through .rodata) */
    case 0: return "zero";
    case 1: return "one";
    case 2: return "two";
    case 3: return "three";
    case 4: return "four";
    case 5: return "five";
    case 6: return "six";
    case 7: return "seven";
    case 8: return "eight";
    case 9: return "nine";
    default: return "many";
    }
}

static int add(int a, int b) { return a + b; }
static int sub(int a, int b) { return a - b; }
static int mul(int a, int b) { return a * b; }
static int (*const ops[])(int, int) = { add, sub, mul };

static __attribute__((noinline)) int ackermann(int m, int n)
{
    if (m == 0)
        return n + 1;
    if (n == 0)
        return ackermann(m - 1, 1);
    return ackermann(m - 1, ackermann(m, n - 1));
}

static __attribute__((noinline)) int find(const volatile int *a, int n, int key)
{
    for (int i = 0; i < n; i++)
        if (a[i] == key)
            return i;
    return -1;
}

static int calls;
static __attribute__((noinline)) int touch(int v)
{
    calls++;
    return v;
}

int main(void)
{
    for (unsigned i = 0; i < sizeof vin / sizeof vin[0]; i++)
        printf("%d:%s ", vin[i], name(vin[i]));
    putchar('\n');
    for (int i = 0; i < 3; i++)
        printf("op%d(7,5)=%d\n", i, ops[vin[i]](vin[7], vin[5]));
    printf("ackermann(2,3)=%d ackermann(3,3)=%d\n", ackermann(2, 3), ackermann(3, 3));
    printf("find 9 -> %d, find 42 -> %d\n", find(vin, 14, 9), find(vin, 14, 42));
    int r = (touch(0) && touch(1)) || (touch(1) && touch(2));
    printf("short-circuit r=%d calls=%d\n", r, calls);
    /* Nested loops with break/continue: primes below 60. */
    int count = 0;
    for (int n = 2; n < 60; n++) {
        int prime = 1;
        for (int d = 2; d * d <= n; d++) {
            if (n % d == 0) {
                prime = 0;
                break;
            }
        }
        if (!prime)
            continue;
        printf("%d ", n);
        count++;
    }
    printf("(%d primes)\n", count);
    /* Signed/unsigned loop bounds and a countdown through zero. */
    int total = 0;
    for (int i = 5; i >= -5; i -= 2)
        total += i * i;
    printf("countdown total %d\n", total);
    return 0;
}
