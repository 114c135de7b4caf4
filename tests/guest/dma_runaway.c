/* dma_runaway: a VIF1 DMA chain (channel 1) of one NEXT tag that points at itself, a chain
 * without an end. piney stops it after its tag limit and ends the run with one line naming the
 * channel, the tag address and the pc (crates/piney/tests/data_paths.rs). */
#include "ps2dma.h"

static qword chain[1] __attribute__((aligned(16)));

int main(void)
{
    chain[0].w[0] = (DMA_NEXT << 28) | 0; /* QWC 0 */
    chain[0].w[1] = PHYS(chain);         /* the next tag is this one */
    printf("dma_runaway: tag at %08x\n", PHYS(chain));
    dma_chain_start(D1_BASE, chain);
    dma_wait_idle(D1_BASE);
    puts("dma_runaway: the chain ended without an error");
    return 1;
}
