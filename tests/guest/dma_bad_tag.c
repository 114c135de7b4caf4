/* dma_bad_tag: a GIF DMA chain (channel 2) whose NEXT tag points outside main RAM (32 MiB).
 * The hardware sets D_STAT.BEIS and stops the channel; piney ends the run with one line naming
 * the channel, the tag address and the pc (crates/piney/tests/data_paths.rs). */
#include "ps2dma.h"

static const qword chain[] = {
    DMATAG(0, DMA_NEXT, 0x0f000000u), /* 240 MiB: no memory there */
};

int main(void)
{
    puts("dma_bad_tag: start");
    dma_chain_start(D2_BASE, chain);
    dma_wait_idle(D2_BASE);
    puts("dma_bad_tag: the chain ended without an error");
    return 1;
}
