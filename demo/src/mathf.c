/* mathf.c: sin, cos and atan2 in single precision by range reduction and short polynomials
 * (Taylor terms, enough for drawing and for the pad's displayed angle). */
#include "mathf.h"

/* sin on [-pi/2, pi/2]: odd Taylor polynomial to x^11. */
static float sin_core(float x)
{
    float x2 = x * x;
    return x * (1.0f + x2 * (-1.0f / 6 + x2 * (1.0f / 120 + x2 * (-1.0f / 5040 +
                x2 * (1.0f / 362880 + x2 * (-1.0f / 39916800))))));
}

float sinf_(float x)
{
    /* Reduce to [-pi, pi], then fold [pi/2, pi] onto [0, pi/2] (sin(pi - x) = sin x). */
    float k = (float)(int)(x / (2 * PI_F));
    x -= k * 2 * PI_F;
    if (x > PI_F)
        x -= 2 * PI_F;
    else if (x < -PI_F)
        x += 2 * PI_F;
    if (x > PI_F / 2)
        x = PI_F - x;
    else if (x < -PI_F / 2)
        x = -PI_F - x;
    return sin_core(x);
}

float cosf_(float x) { return sinf_(x + PI_F / 2); }

/* atan on [0, 1]: atan(t) = 2 atan(t / (1 + sqrt(1 + t^2))) brings t under tan(pi/8), where
   the odd series to t^13 is within 1e-7. */
static float atan_unit(float t)
{
    float u = t / (1.0f + sqrtf_(1.0f + t * t));
    float u2 = u * u;
    float s = u * (1.0f + u2 * (-1.0f / 3 + u2 * (1.0f / 5 + u2 * (-1.0f / 7 +
                   u2 * (1.0f / 9 + u2 * (-1.0f / 11 + u2 * (1.0f / 13)))))));
    return 2 * s;
}

float atan2f_(float y, float x)
{
    float ax = x < 0 ? -x : x, ay = y < 0 ? -y : y;
    if (ax == 0 && ay == 0)
        return 0;
    float a = ay <= ax ? atan_unit(ay / ax) : PI_F / 2 - atan_unit(ax / ay);
    if (x < 0)
        a = PI_F - a;
    return y < 0 ? -a : a;
}
