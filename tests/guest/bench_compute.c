/* bench_compute: a compute-heavy guest program for the CPU benchmarks
 * (tools/bench-compute.sh: the interpreter, the recompiler and qemu-mipsel on
 * the same C): integer hashing, a small matrix multiply, a sieve, a CRC-32
 * over a buffer, sorting (quicksort with an insertion-sort tail), a bytecode
 * interpreter (a switch on the opcode: indirect jumps), 16.16 fixed-point
 * vertex transforms (64-bit products) and memory copies (word, byte and
 * unaligned through packed structs); prints checksums. Plain C:
 * tools/check-qemu.sh cross-checks it on MIPS32. */
#include "piney_rt.h"

/* Work multiplier: tools/bench-compute.sh builds the program with a larger
 * BENCH_SCALE (its output then checked against qemu-mipsel's on the same
 * source); the committed ELF and its .stdout are scale 1. */
#ifndef BENCH_SCALE
#define BENCH_SCALE 1
#endif

#define HASH_ROUNDS (2000000 * BENCH_SCALE)
#define MAT 16
#define MAT_ROUNDS (20 * BENCH_SCALE)
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


/* CRC-32 (the reflected polynomial 0xEDB88320, table-driven) of a buffer
 * filled by a linear congruential generator, a few rounds. */
#define CRC_BYTES 32768
#define CRC_ROUNDS (24 * BENCH_SCALE)
static u32 crc_table[256];
static u8 crc_buf[CRC_BYTES];

static u32 crc32_rounds(void)
{
    for (u32 i = 0; i < 256; i++) {
        u32 c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
    u32 seed = 1;
    for (int i = 0; i < CRC_BYTES; i++) {
        seed = seed * 1103515245u + 12345u;
        crc_buf[i] = (u8)(seed >> 16);
    }
    u32 acc = 0;
    for (int r = 0; r < CRC_ROUNDS; r++) {
        u32 c = 0xffffffffu ^ (u32)r;
        for (int i = 0; i < CRC_BYTES; i++)
            c = crc_table[(c ^ crc_buf[i]) & 0xff] ^ (c >> 8);
        acc = (acc << 1 | acc >> 31) ^ ~c;
    }
    return acc;
}

/* Sorting: quicksort (median of three, recursion on the smaller side) with
 * insertion sort below 16 elements, over LCG-filled arrays. */
#define SORT_N 6000
#define SORT_ROUNDS (8 * BENCH_SCALE)
static s32 sort_a[SORT_N];

static void insertion(s32 *a, int n)
{
    for (int i = 1; i < n; i++) {
        s32 v = a[i];
        int j = i - 1;
        while (j >= 0 && a[j] > v) {
            a[j + 1] = a[j];
            j--;
        }
        a[j + 1] = v;
    }
}

static void quick(s32 *a, int n)
{
    while (n > 16) {
        s32 x = a[0], y = a[n / 2], z = a[n - 1];
        s32 p = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
        int i = 0, j = n - 1;
        for (;;) {
            while (a[i] < p)
                i++;
            while (a[j] > p)
                j--;
            if (i >= j)
                break;
            s32 t = a[i];
            a[i] = a[j];
            a[j] = t;
            i++;
            j--;
        }
        if (j + 1 < n - j - 1) {
            quick(a, j + 1);
            a += j + 1;
            n -= j + 1;
        } else {
            quick(a + j + 1, n - j - 1);
            n = j + 1;
        }
    }
    insertion(a, n);
}

static u32 sort_rounds(void)
{
    u32 seed = 7, sum = 0;
    for (int r = 0; r < SORT_ROUNDS; r++) {
        for (int i = 0; i < SORT_N; i++) {
            seed = seed * 1664525u + 1013904223u;
            sort_a[i] = (s32)seed >> (r & 7);
        }
        quick(sort_a, SORT_N);
        for (int i = 1; i < SORT_N; i++)
            if (sort_a[i - 1] > sort_a[i])
                return 0xbad;
        for (int i = 0; i < SORT_N; i += 7)
            sum = sum * 31 + (u32)sort_a[i];
    }
    return sum;
}

/* A bytecode interpreter: a stack machine whose program sums a Collatz-like
 * sequence with a counted loop; dispatch is a switch (a jump table). */
enum { OP_PUSH, OP_LOAD, OP_STORE, OP_ADD, OP_SUB, OP_MUL, OP_AND, OP_XOR,
       OP_SHR, OP_DUP, OP_JZ, OP_JMP, OP_ODD, OP_HALT };

static u32 vm_run(const s32 *code, int len)
{
    s32 stack[32], reg[4] = {0, 0, 0, 0};
    int sp = 0, pc = 0;
    u32 steps = 0;
    while (pc < len) {
        steps++;
        switch (code[pc]) {
        case OP_PUSH: stack[sp++] = code[pc + 1]; pc += 2; break;
        case OP_LOAD: stack[sp++] = reg[code[pc + 1]]; pc += 2; break;
        case OP_STORE: reg[code[pc + 1]] = stack[--sp]; pc += 2; break;
        case OP_ADD: sp--; stack[sp - 1] += stack[sp]; pc++; break;
        case OP_SUB: sp--; stack[sp - 1] -= stack[sp]; pc++; break;
        case OP_MUL: sp--; stack[sp - 1] *= stack[sp]; pc++; break;
        case OP_AND: sp--; stack[sp - 1] &= stack[sp]; pc++; break;
        case OP_XOR: sp--; stack[sp - 1] ^= stack[sp]; pc++; break;
        case OP_SHR: sp--; stack[sp - 1] = (s32)((u32)stack[sp - 1] >> stack[sp]); pc++; break;
        case OP_DUP: stack[sp] = stack[sp - 1]; sp++; pc++; break;
        case OP_JZ: pc = stack[--sp] == 0 ? code[pc + 1] : pc + 2; break;
        case OP_JMP: pc = code[pc + 1]; break;
        case OP_ODD: stack[sp - 1] &= 1; pc++; break;
        default: return steps ^ (u32)reg[2] << 8 ^ (u32)reg[1];
        }
    }
    return 0xdead;
}

static u32 bytecode(void)
{
    /* The loop body, assembled here so that the jump targets are right. */
    s32 code[80];
    int n = 0;
#define EMIT(x) (code[n++] = (x))
    EMIT(OP_PUSH); EMIT(40000 * BENCH_SCALE); EMIT(OP_STORE); EMIT(0);
    EMIT(OP_PUSH); EMIT(27); EMIT(OP_STORE); EMIT(1);
    EMIT(OP_PUSH); EMIT(0); EMIT(OP_STORE); EMIT(2);
    int loop = n;
    EMIT(OP_LOAD); EMIT(0); EMIT(OP_JZ); int exit_at = n; EMIT(0);
    EMIT(OP_LOAD); EMIT(1); EMIT(OP_ODD); EMIT(OP_JZ); int even_at = n; EMIT(0);
    EMIT(OP_LOAD); EMIT(1); EMIT(OP_PUSH); EMIT(3); EMIT(OP_MUL); EMIT(OP_PUSH); EMIT(1);
    EMIT(OP_ADD); EMIT(OP_PUSH); EMIT(0xffff); EMIT(OP_AND); EMIT(OP_STORE); EMIT(1);
    EMIT(OP_JMP); int join_at = n; EMIT(0);
    code[even_at] = n;
    EMIT(OP_LOAD); EMIT(1); EMIT(OP_PUSH); EMIT(1); EMIT(OP_SHR); EMIT(OP_STORE); EMIT(1);
    code[join_at] = n;
    /* acc = acc ^ x + x; n = n - 1 */
    EMIT(OP_LOAD); EMIT(2); EMIT(OP_LOAD); EMIT(1); EMIT(OP_XOR); EMIT(OP_LOAD); EMIT(1);
    EMIT(OP_ADD); EMIT(OP_STORE); EMIT(2);
    EMIT(OP_LOAD); EMIT(0); EMIT(OP_PUSH); EMIT(1); EMIT(OP_SUB); EMIT(OP_STORE); EMIT(0);
    EMIT(OP_JMP); EMIT(loop);
    code[exit_at] = n;
    EMIT(OP_HALT);
#undef EMIT
    return vm_run(code, n);
}

/* 16.16 fixed-point transforms: a 4x4 matrix applied to a ring of vertices,
 * the products 64 bits wide, the matrix nudged every round. */
#define VERTS 512
#define XFORM_ROUNDS (48 * BENCH_SCALE)
static s32 verts[VERTS][4], outv[VERTS][4];

static s32 fxmul(s32 a, s32 b)
{
    return (s32)(((s64)a * b) >> 16);
}

static u32 fixed_point(void)
{
    s32 m[4][4];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            m[i][j] = (i == j ? 0x10000 : 0) + (i * 4 + j) * 0x123;
    for (int v = 0; v < VERTS; v++) {
        verts[v][0] = (v * 0x3717) & 0x7ffff;
        verts[v][1] = (v * 0x1d3b) & 0x7ffff;
        verts[v][2] = (v * 0x0b5f) & 0x7ffff;
        verts[v][3] = 0x10000;
    }
    u32 sum = 0;
    for (int r = 0; r < XFORM_ROUNDS; r++) {
        for (int v = 0; v < VERTS; v++)
            for (int i = 0; i < 4; i++)
                outv[v][i] = fxmul(m[i][0], verts[v][0]) + fxmul(m[i][1], verts[v][1]) +
                             fxmul(m[i][2], verts[v][2]) + fxmul(m[i][3], verts[v][3]);
        for (int v = 0; v < VERTS; v++)
            sum = sum * 33 ^ (u32)outv[v][0] ^ (u32)outv[v][1] << 3 ^ (u32)outv[v][2] << 7;
        m[r & 3][(r >> 2) & 3] += 0x31;
    }
    return sum;
}

/* Copies: a word copy, a byte copy, and words read and written at every
 * byte offset through packed structs (unaligned accesses). */
#define COPY_BYTES 8192
#define COPY_ROUNDS (40 * BENCH_SCALE)
static u32 copy_src[COPY_BYTES / 4], copy_dst[COPY_BYTES / 4 + 2];
struct unaligned { u32 v; } __attribute__((packed));

static u32 copies(void)
{
    for (int i = 0; i < COPY_BYTES / 4; i++)
        copy_src[i] = (u32)i * 0x9e3779b9u;
    u32 sum = 0;
    for (int r = 0; r < COPY_ROUNDS; r++) {
        for (int i = 0; i < COPY_BYTES / 4; i++)
            copy_dst[i] = copy_src[i] ^ (u32)r;
        u8 *d = (u8 *)copy_dst + (r & 3) + 1;
        const u8 *s = (const u8 *)copy_src;
        for (int i = 0; i < COPY_BYTES / 2; i++)
            d[i] = s[i];
        const u8 *base = (const u8 *)copy_dst;
        for (int off = 0; off + 4 <= COPY_BYTES; off += 5) {
            u32 v = ((const struct unaligned *)(base + off))->v;
            sum = (sum << 3 | sum >> 29) + v;
            ((struct unaligned *)(d + (off & 0x3ff)))->v = v ^ sum;
        }
    }
    return sum;
}

int main(void)
{
    printf("hash %08x\n", hash_rounds(0x12345678, HASH_ROUNDS));
    printf("matmul %08x\n", matmul());
    printf("primes below %d: %d\n", SIEVE, count_primes());
    printf("crc32 %08x\n", crc32_rounds());
    printf("sort %08x\n", sort_rounds());
    printf("bytecode %08x\n", bytecode());
    printf("fixed point %08x\n", fixed_point());
    printf("copies %08x\n", copies());
    return 0;
}
