/* cop0: reads of the EE's COP0 from a program: PRId (0x2e20 on the
 * Emotion Engine), Count advancing with executed cycles, Compare written
 * and read back, and Status.EIE (bit 16) following EI/DI. */
#include "piney_rt.h"

static inline u32 mfc0_prid(void)
{
    u32 v;
    __asm__ volatile("mfc0 %0, $15" : "=r"(v));
    return v;
}
static inline u32 mfc0_count(void)
{
    u32 v;
    __asm__ volatile("mfc0 %0, $9" : "=r"(v));
    return v;
}
static inline u32 mfc0_status(void)
{
    u32 v;
    __asm__ volatile("mfc0 %0, $12" : "=r"(v));
    return v;
}

int main(void)
{
    printf("PRId %08x\n", mfc0_prid());

    u32 c0 = mfc0_count();
    volatile u32 sink = 0;
    for (int i = 0; i < 10000; i++)
        sink += (u32)i;
    u32 c1 = mfc0_count();
    u32 delta = c1 - c0;
    /* The loop is ~5 instructions x 10000 iterations: at least 10000
       cycles, and far fewer than 10 million, at one count per cycle. */
    printf("Count advanced: %d\n", delta >= 10000 && delta < 10000000);
    printf("sink %u\n", sink);

    u32 back;
    __asm__ volatile("mfc0 $8, $11\n\tli $9, 0x12345678\n\tmtc0 $9, $11\n\tsync.p\n\t"
                     "mfc0 %0, $11\n\tmtc0 $8, $11\n\tsync.p"
                     : "=r"(back)
                     :
                     : "$8", "$9");
    printf("Compare read back %08x\n", back);

    /* crt0 enabled interrupts with EI before main. */
    printf("EIE after crt0 %u\n", (mfc0_status() >> 16) & 1);
    __asm__ volatile("di\n\tsync.p");
    printf("EIE after DI %u\n", (mfc0_status() >> 16) & 1);
    __asm__ volatile("ei\n\tsync.p");
    printf("EIE after EI %u\n", (mfc0_status() >> 16) & 1);
    return 0;
}
