/* heap.h: ccHeap, the engine's allocator (ccHeap::InitFirst at boot), here a first-fit free
 * list over a static arena: enough for task records and their stacks. */
#ifndef DEMO_HEAP_H
#define DEMO_HEAP_H

#include "piney_rt.h"

void ccHeap_InitFirst(void);
/* A 64-byte aligned block of at least `size` bytes, or NULL when the arena is full. */
void *ccHeap_Alloc(u32 size);
void ccHeap_Free(void *p);
/* Bytes free (for the screen). */
u32 ccHeap_FreeBytes(void);

#endif
