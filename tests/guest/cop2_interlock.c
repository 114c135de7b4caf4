/* cop2_interlock: the COP2 interlock. VCALLMS starts a VU0 microprogram that counts vi1 down
 * from 1000 (4 cycles an iteration: about 4000 cycles), then sets vi5 = 0x77 and ends.
 *
 * 1. Right after the VCALLMS, CFC2 (no I bit) of VPU-STAT reads bit 0 set: VU0 runs, and the EE
 *    did not wait.
 * 2. CFC2.I of vi5 waits until the microprogram has ended: COP0 Count (one tick a CPU cycle)
 *    has moved on by more than 3000 across it, and it reads 0x77.
 * 3. VPU-STAT bit 0 then reads clear; another CFC2.I, with VU0 idle, takes no wait (under 100).
 * 4. The same for QMFC2.I after a second VCALLMS: it waits, and reads vf0 (x = 0).
 * Facts: the EE Core Instruction Set Manual (CFC2/QMFC2 .I: the EE waits for the VU0
 * microprogram to end; VCALLMS), the EE User's Manual (VPU-STAT bit 0: VU0 running), the VU
 * User's Manual (the E bit ends the program after its delay slot). The microprogram is
 * hand-encoded as in vif0_mscal.c (lower word first in memory, upper in the high half). */
#include "piney_rt.h"

#define UNOP 0x000002ffu   /* upper NOP */
#define UNOP_E 0x400002ffu /* upper NOP with the E bit */
#define LNOP 0x8000033cu   /* lower NOP */

static const u32 microprogram[16] = {
    0x100103e8, UNOP,   /* 0: iaddiu vi01, vi00, 1000 */
    0x12010801, UNOP,   /* 1: loop: isubiu vi01, vi01, 1 */
    LNOP, UNOP,         /* 2: (the branch must not read vi01 just written) */
    0x520107fd, UNOP,   /* 3: ibne vi01, vi00, loop */
    LNOP, UNOP,         /* 4: (delay slot) */
    0x10050077, UNOP,   /* 5: iaddiu vi05, vi00, 0x77 */
    LNOP, UNOP_E,       /* 6: nop[e] */
    LNOP, UNOP,         /* 7: (delay slot) */
};

static inline u32 count(void)
{
    u32 v;
    __asm__ volatile("mfc0 %0, $9" : "=r"(v));
    return v;
}

int main(void)
{
    volatile u32 *micro = (volatile u32 *)0x11000000u;
    for (u32 i = 0; i < 16; i++)
        micro[i] = microprogram[i];

    /* 1. VCALLMS 0, then CFC2 (no interlock) of VPU-STAT. */
    u32 stat, c0, vi5, c1;
    __asm__ volatile("vcallms 0\n\tcfc2 %0, $vi29" : "=r"(stat));
    /* 2. CFC2.I waits for the end. */
    __asm__ volatile("mfc0 %1, $9\n\tcfc2.i %0, $vi5\n\tmfc0 %2, $9"
                     : "=r"(vi5), "=r"(c0), "=r"(c1));
    printf("after vcallms: vu0 busy %u\n", stat & 1);
    printf("cfc2.i: waited over 3000 cycles %d, vi5 %04x\n", c1 - c0 > 3000, vi5 & 0xffff);
    /* 3. VU0 idle: VPU-STAT bit 0 clear, no wait. */
    __asm__ volatile("cfc2 %0, $vi29" : "=r"(stat));
    c0 = count();
    __asm__ volatile("cfc2.i %0, $vi5" : "=r"(vi5));
    c1 = count();
    printf("idle: vu0 busy %u, cfc2.i waited under 100 cycles %d\n", stat & 1, c1 - c0 < 100);
    /* 4. QMFC2.I after another VCALLMS. */
    u32 w;
    __asm__ volatile("vcallms 0\n\tmfc0 %1, $9\n\tqmfc2.i %0, $vf0\n\tmfc0 %2, $9"
                     : "=r"(w), "=r"(c0), "=r"(c1));
    printf("qmfc2.i: waited over 3000 cycles %d, vf0.x %08x\n", c1 - c0 > 3000, w);
    puts("cop2_interlock: end");
    return 0;
}
