/* heap.c: ccHeap as a first-fit free list (blocks of 64-byte units, a 64-byte header each). */
#include "heap.h"

#define HEAP_SIZE (256 * 1024)
#define UNIT 64u

typedef struct Block {
    u32 units;          /* this block's size in units, header included */
    u32 used;           /* 1 when allocated */
    struct Block *next; /* next block by address (NULL at the end) */
    u32 pad[13];        /* the header is one unit, so payloads stay 64-byte aligned */
} Block;

_Static_assert(sizeof(Block) == UNIT, "heap header is one unit");

static Block arena[HEAP_SIZE / UNIT] __attribute__((aligned(64)));

void ccHeap_InitFirst(void)
{
    arena[0].units = HEAP_SIZE / UNIT;
    arena[0].used = 0;
    arena[0].next = NULL;
}

void *ccHeap_Alloc(u32 size)
{
    u32 need = (size + UNIT - 1) / UNIT + 1;
    for (Block *b = arena; b; b = b->next) {
        if (b->used || b->units < need)
            continue;
        if (b->units > need) { /* split: the rest stays free */
            Block *rest = b + need;
            rest->units = b->units - need;
            rest->used = 0;
            rest->next = b->next;
            b->next = rest;
            b->units = need;
        }
        b->used = 1;
        return b + 1;
    }
    return NULL;
}

void ccHeap_Free(void *p)
{
    if (!p)
        return;
    Block *b = (Block *)p - 1;
    b->used = 0;
    /* Merge every run of free neighbours (the list is in address order). */
    for (Block *x = arena; x; x = x->next)
        while (!x->used && x->next && !x->next->used) {
            x->units += x->next->units;
            x->next = x->next->next;
        }
}

u32 ccHeap_FreeBytes(void)
{
    u32 n = 0;
    for (Block *b = arena; b; b = b->next)
        if (!b->used)
            n += (b->units - 1) * UNIT;
    return n;
}
