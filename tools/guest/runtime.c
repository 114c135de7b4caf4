/* The freestanding runtime: SIO output, printf, memory and string helpers,
 * and the 64-bit division helpers gcc calls on o32. See piney_rt.h. */
#include "piney_rt.h"

#ifndef PINEY_HOST_SHIM
/* One byte to the EE SIO TXFIFO; piney forwards it to stdout. (The
   qemu-mipsel cross-check builds this file with PINEY_HOST_SHIM and takes
   putchar from tools/guest/qemu_shim.c instead.) */
int putchar(int c)
{
    *PINEY_SIO_TXFIFO = (u8)c;
    return (u8)c;
}
#endif

int puts(const char *s)
{
    while (*s)
        putchar(*s++);
    putchar('\n');
    return 0;
}

/* ---- 64-bit division (shift-and-subtract; never uses 64-bit '/') ---- */

static u64 udivmod64(u64 n, u64 d, u64 *rem)
{
    u64 q = 0;
    if (d == 0) {
        /* Division by zero is undefined in C; answer like MIPS DIVU does for
           32 bits: all-ones quotient, remainder = dividend. */
        if (rem)
            *rem = n;
        return ~0ULL;
    }
    if ((n >> 32) == 0 && (d >> 32) == 0) {
        u32 a = (u32)n, b = (u32)d;
        if (rem)
            *rem = a % b;
        return a / b;
    }
    u64 r = 0;
    for (int i = 63; i >= 0; i--) {
        r = (r << 1) | ((n >> i) & 1);
        if (r >= d) {
            r -= d;
            q |= 1ULL << i;
        }
    }
    if (rem)
        *rem = r;
    return q;
}

#ifndef PINEY_HOST_SHIM
/* (The qemu cross-check links the host's libgcc instead, so that these
   helpers are checked against an independent implementation.) */
u64 __udivdi3(u64 n, u64 d) { return udivmod64(n, d, 0); }

u64 __umoddi3(u64 n, u64 d)
{
    u64 r;
    udivmod64(n, d, &r);
    return r;
}

s64 __divdi3(s64 n, s64 d)
{
    int neg = (n < 0) != (d < 0);
    u64 un = n < 0 ? -(u64)n : (u64)n;
    u64 ud = d < 0 ? -(u64)d : (u64)d;
    u64 q = udivmod64(un, ud, 0);
    return neg ? -(s64)q : (s64)q;
}

s64 __moddi3(s64 n, s64 d)
{
    u64 un = n < 0 ? -(u64)n : (u64)n;
    u64 ud = d < 0 ? -(u64)d : (u64)d;
    u64 r;
    udivmod64(un, ud, &r);
    return n < 0 ? -(s64)r : (s64)r;
}
#endif

/* ---- memory and strings ---- */

void *memcpy(void *dst, const void *src, size_t n)
{
    u8 *d = dst;
    const u8 *s = src;
    while (n--)
        *d++ = *s++;
    return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
    u8 *d = dst;
    const u8 *s = src;
    if (d < s) {
        while (n--)
            *d++ = *s++;
    } else {
        while (n--)
            d[n] = s[n];
    }
    return dst;
}

void *memset(void *dst, int c, size_t n)
{
    u8 *d = dst;
    while (n--)
        *d++ = (u8)c;
    return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
    const u8 *x = a, *y = b;
    for (; n; n--, x++, y++)
        if (*x != *y)
            return *x < *y ? -1 : 1;
    return 0;
}

size_t strlen(const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    return n;
}

int strcmp(const char *a, const char *b)
{
    while (*a && *a == *b) {
        a++;
        b++;
    }
    return (u8)*a - (u8)*b;
}

/* ---- printf ---- */

struct sink {
    char *buf;   /* NULL: write to the SIO */
    size_t cap;  /* buffer size, including the terminator */
    size_t len;  /* characters produced so far */
};

static void emit(struct sink *s, char c)
{
    if (!s->buf)
        putchar(c);
    else if (s->len + 1 < s->cap)
        s->buf[s->len] = c;
    s->len++;
}

static void emit_padded(struct sink *s, const char *body, int n, int neg, int width,
                        int left, char pad)
{
    int total = n + (neg ? 1 : 0);
    if (neg && pad == '0')
        emit(s, '-');
    if (!left)
        for (int i = total; i < width; i++)
            emit(s, pad);
    if (neg && pad != '0')
        emit(s, '-');
    for (int i = 0; i < n; i++)
        emit(s, body[i]);
    if (left)
        for (int i = total; i < width; i++)
            emit(s, ' ');
}

int vsnprintf(char *buf, size_t cap, const char *fmt, va_list ap)
{
    struct sink s = { buf, cap, 0 };
    for (; *fmt; fmt++) {
        if (*fmt != '%') {
            emit(&s, *fmt);
            continue;
        }
        fmt++;
        int left = 0;
        char pad = ' ';
        for (;; fmt++) {
            if (*fmt == '-')
                left = 1;
            else if (*fmt == '0')
                pad = '0';
            else
                break;
        }
        int width = 0;
        if (*fmt == '*') {
            width = va_arg(ap, int);
            fmt++;
        }
        while (*fmt >= '0' && *fmt <= '9')
            width = width * 10 + (*fmt++ - '0');
        int lng = 0;
        while (*fmt == 'l') {
            lng++;
            fmt++;
        }
        while (*fmt == 'h')
            fmt++;
        if (left)
            pad = ' ';
        char tmp[24];
        int n = 0;
        switch (*fmt) {
        case 'd':
        case 'i':
        case 'u':
        case 'x':
        case 'X':
        case 'p': {
            u64 v;
            int neg = 0;
            int sgn = *fmt == 'd' || *fmt == 'i';
            if (*fmt == 'p') {
                v = (u32)va_arg(ap, void *);
                emit(&s, '0');
                emit(&s, 'x');
                width = 8;
                pad = '0';
                left = 0;
            } else if (lng >= 2) {
                v = va_arg(ap, u64);
            } else {
                u32 w = va_arg(ap, u32);
                v = sgn ? (u64)(s64)(s32)w : (u64)w;
            }
            if (sgn && (s64)v < 0) {
                neg = 1;
                v = -v;
            }
            u32 base = (*fmt == 'd' || *fmt == 'i' || *fmt == 'u') ? 10 : 16;
            const char *dig = *fmt == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
            char rev[24];
            do {
                u64 r;
                v = udivmod64(v, base, &r);
                rev[n++] = dig[(u32)r];
            } while (v);
            for (int i = 0; i < n; i++)
                tmp[i] = rev[n - 1 - i];
            emit_padded(&s, tmp, n, neg, width, left, pad);
            break;
        }
        case 'c':
            tmp[0] = (char)va_arg(ap, int);
            emit_padded(&s, tmp, 1, 0, width, left, ' ');
            break;
        case 's': {
            const char *str = va_arg(ap, const char *);
            if (!str)
                str = "(null)";
            emit_padded(&s, str, (int)strlen(str), 0, width, left, ' ');
            break;
        }
        case '%':
            emit(&s, '%');
            break;
        case '\0':
            fmt--;
            break;
        default:
            emit(&s, '%');
            emit(&s, *fmt);
            break;
        }
    }
    if (buf && cap)
        buf[s.len < cap ? s.len : cap - 1] = '\0';
    return (int)s.len;
}

int vprintf(const char *fmt, va_list ap) { return vsnprintf(NULL, 0, fmt, ap); }

int printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vprintf(fmt, ap);
    va_end(ap);
    return n;
}

int snprintf(char *buf, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = vsnprintf(buf, n, fmt, ap);
    va_end(ap);
    return r;
}
