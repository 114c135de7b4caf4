/* mathf.h: the few single-precision functions the demo needs (no libm in the freestanding
 * runtime; Debian's mipsel libm is MIPS32 code). Only single precision: the R5900's FPU has no
 * doubles, and gcc would call libgcc for them. */
#ifndef DEMO_MATHF_H
#define DEMO_MATHF_H

#define PI_F 3.14159265f

/* sqrt.s, the FPU's own square root. */
static inline float sqrtf_(float x)
{
#ifdef __mips__
    float r;
    __asm__("sqrt.s %0, %1" : "=f"(r) : "f"(x));
    return r;
#else
    return __builtin_sqrtf(x); /* host builds of the pad cross-check */
#endif
}
/* sin and cos of any angle (radians), |error| < 1e-6 after range reduction. */
float sinf_(float x);
float cosf_(float x);
/* atan2(y, x) in (-pi, pi]; 0 for (0, 0). |error| < 2e-6. */
float atan2f_(float y, float x);

#endif
