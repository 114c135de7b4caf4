/* piney_rt.h: the small freestanding runtime for piney's guest programs.
 *
 * Output goes through the EE SIO transmit register (0x1000F180), one byte
 * per store; piney copies those bytes to its stdout. Nothing here depends on
 * a C library, and no routine calls libgcc (Debian's mipsel libgcc is
 * MIPS32 code whose SPECIAL2 opcodes are MMI instructions on the R5900). */
#ifndef PINEY_RT_H
#define PINEY_RT_H

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef signed char s8;
typedef short s16;
typedef int s32;
typedef long long s64;
typedef unsigned int size_t;
typedef __builtin_va_list va_list;
#define va_start(v, l) __builtin_va_start(v, l)
#define va_end(v) __builtin_va_end(v)
#define va_arg(v, t) __builtin_va_arg(v, t)
#define NULL ((void *)0)

/* EE SIO TXFIFO, through KSEG1 (uncached): physical 0x1000F180. */
#define PINEY_SIO_TXFIFO ((volatile u8 *)0xB000F180)

int putchar(int c);
int puts(const char *s);
int printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int vprintf(const char *fmt, va_list ap);
int snprintf(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int vsnprintf(char *buf, size_t n, const char *fmt, va_list ap);

void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
int strcmp(const char *a, const char *b);

/* Wraps inline assembly that uses 64-bit GPR memory operations. Under the
   o32 ABI gas otherwise expands LD/SD into pairs of 32-bit LW/SW. */
#define GP64(text) ".set push\n\t.set gp=64\n\t" text "\n\t.set pop"

/* Bit pattern of a float, for printing exact FPU results. */
static inline u32 f2u(float f) { union { float f; u32 u; } x; x.f = f; return x.u; }
static inline float u2f(u32 u) { union { float f; u32 u; } x; x.u = u; return x.f; }

#endif
