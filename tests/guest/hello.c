/* hello: the freestanding program. Our crt0, our stack, output through the
 * SIO transmit register, Exit with main's return value. */
#include "piney_rt.h"

static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

int main(int argc, char **argv)
{
    puts("Hello from the Emotion Engine!");
    printf("argc=%d argv=%p\n", argc, (void *)argv);
    printf("fib(20)=%d\n", fib(20));
    printf("[%5d] [%-5d] [%05d] [%x] [%X] [%08x] [%c] [%s]\n", 42, 42, -42, 0xbeef, 0xbeef,
           0x1234, 'Z', "str");
    printf("%lld %llx %llu\n", -1234567890123LL, 0x0123456789abcdefULL,
           18446744073709551615ULL);
    printf("%u %d %x\n", 4294967295u, -2147483647 - 1, 0x80000000u);
    return 0;
}
