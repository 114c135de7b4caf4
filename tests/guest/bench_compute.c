/* bench_compute: a compute-heavy guest program for the interpreter speed
 * benchmark (integer hashing, a small matrix multiply, a sieve); prints
 * checksums. Plain C: tools/check-qemu.sh cross-checks it on MIPS32. */
#include "piney_rt.h"

#define HASH_ROUNDS 2000000
#define MAT 16
#define MAT_ROUNDS 20
#define SIEVE 65536

static u32 mat_a[MAT][MAT], mat_b[MAT][MAT], mat_c[MAT][MAT];
static u8 sieve[SIEVE];

/* xorshift32 followed by a multiplicative mix (32-bit FNV-ish). */
static u32 hash_rounds(u32 seed, int rounds)
{
    u32 x = seed, h = 2166136261u;
    for (int i = 0; i < rounds; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        h = (h ^ (x & 0xff)) * 16777619u;
        h += x >> 24;
    }
    return h ^ x;
}

static u32 matmul(void)
{
    for (int i = 0; i < MAT; i++)
        for (int j = 0; j < MAT; j++) {
            mat_a[i][j] = (u32)(i * 3 + j * 7 + 1);
            mat_b[i][j] = (u32)(i ^ j) + 2;
        }
    u32 sum = 0;
    for (int r = 0; r < MAT_ROUNDS; r++) {
        for (int i = 0; i < MAT; i++)
            for (int j = 0; j < MAT; j++) {
                u32 acc = 0;
                for (int k = 0; k < MAT; k++)
                    acc += mat_a[i][k] * mat_b[k][j];
                mat_c[i][j] = acc;
            }
        /* Feed the result back so that every round differs. */
        for (int i = 0; i < MAT; i++)
            for (int j = 0; j < MAT; j++) {
                mat_a[i][j] = mat_c[i][j] & 0xffff;
                sum = sum * 33 + mat_c[i][j];
            }
    }
    return sum;
}

static int count_primes(void)
{
    memset(sieve, 1, sizeof sieve);
    sieve[0] = sieve[1] = 0;
    for (int i = 2; i * i < SIEVE; i++)
        if (sieve[i])
            for (int j = i * i; j < SIEVE; j += i)
                sieve[j] = 0;
    int n = 0;
    for (int i = 0; i < SIEVE; i++)
        n += sieve[i];
    return n;
}

int main(void)
{
    printf("hash %08x\n", hash_rounds(0x12345678, HASH_ROUNDS));
    printf("matmul %08x\n", matmul());
    printf("primes below %d: %d\n", SIEVE, count_primes());
    return 0;
}
