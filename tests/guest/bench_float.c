/* bench_float: an FPU-heavy guest program for the CPU benchmarks
 * (tools/bench-compute.sh: the interpreter and the recompiler on the same
 * code; there is no qemu-mipsel figure, as the PS2's float arithmetic is not
 * IEEE's): 4x4 single-precision matrices times 4096 vectors, a dot product
 * into an accumulator, the largest and smallest component seen (compares and
 * FPU branches), a matrix entry nudged each round; prints their bits, which
 * both engines must agree on (the interpreter's model of the EE's adder and
 * multiplier, bit for bit). */
#include "piney_rt.h"

/* Work multiplier: tools/bench-compute.sh builds the program with a larger
 * BENCH_SCALE; the committed ELF is scale 1. */
#ifndef BENCH_SCALE
#define BENCH_SCALE 1
#endif

#define ROUNDS (25 * BENCH_SCALE)
#define VECS 4096

static float m[16], v[VECS][4], o[VECS][4];

int main(void)
{
    for (int i = 0; i < 16; i++)
        m[i] = (float)(i % 5) * 0.25f + 0.5f;
    for (int i = 0; i < VECS; i++) {
        v[i][0] = (float)i * 0.01f;
        v[i][1] = 1.0f - (float)i * 0.002f;
        v[i][2] = 0.5f;
        v[i][3] = 1.0f;
    }
    float acc = 0.0f, hi = -1.0f, lo = 1.0f;
    for (int r = 0; r < ROUNDS; r++) {
        for (int i = 0; i < VECS; i++) {
            const float *a = v[i];
            float *b = o[i];
            for (int k = 0; k < 4; k++)
                b[k] = m[k * 4 + 0] * a[0] + m[k * 4 + 1] * a[1] + m[k * 4 + 2] * a[2] +
                       m[k * 4 + 3] * a[3];
            acc += b[0] - b[1] * 0.5f + b[3];
            if (b[2] > hi)
                hi = b[2];
            if (b[1] < lo)
                lo = b[1];
        }
        m[r & 15] += 0.001f;
    }
    u32 bits[3];
    __builtin_memcpy(&bits[0], &acc, 4);
    __builtin_memcpy(&bits[1], &hi, 4);
    __builtin_memcpy(&bits[2], &lo, 4);
    printf("acc %08x max %08x min %08x\n", bits[0], bits[1], bits[2]);
    return 0;
}
