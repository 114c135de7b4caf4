/* Host stand-in for tools/guest/piney_rt.h: the pad cross-check compiles demo/src/ccpad.c and
 * mathf.c for the build machine, with the C library in place of the guest runtime. */
#ifndef PINEY_RT_H
#define PINEY_RT_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
#endif
