/* iopheap.h: the EE client of the IOP heap RPC server (server id 0x80000003, served on the
 * console by rom0:FILEIO next to the file I/O server 0x80000001), as ps2sdk's EE iopheap
 * library talks to it (our own code). Three functions, each answering one word in place:
 *
 *   fno 1  alloc   in: +0 size (4 bytes)                 out: +0 the IOP address, 0 if none
 *                  (the IOP's AllocSysMemory(0 = first fit from the bottom, size, NULL))
 *   fno 2  free    in: +0 the IOP address (4 bytes)      out: +0 FreeSysMemory's result
 *                  (0, or a negative KE_* error)
 *   fno 3  load    in: +0 the IOP address, +4 path[252]  (256 bytes)
 *                  out: +0 0 when the whole file was read to that address, -1 when it could
 *                  not be opened
 *
 * Needs the IOP variant of the SIF client (sifrpc.h): programs with the line `libs: iop`. */
#ifndef PINEY_IOPHEAP_H
#define PINEY_IOPHEAP_H

#include "sifrpc.h"

#define IOPHEAP_SID 0x80000003
#define LIH_PATH_MAX 252

/* Our errors (ps2sdk's numbers). */
#define E_LIB_API_INIT 0xd601
#define E_SIF_RPC_BIND 0xd612
#define E_SIF_RPC_CALL 0xd613

/* Bind to the heap server (again after an IOP reboot); 0, or -E_SIF_RPC_BIND. */
int SifInitIopHeap(void);
/* Forget the binding. */
void SifExitIopHeap(void);
/* `size` bytes of IOP memory: its IOP address, NULL when none (or no server). */
void *SifAllocIopHeap(int size);
/* Free what SifAllocIopHeap gave: 0, or an error. */
int SifFreeIopHeap(void *addr);
/* Read the file `path` (an IOP device path) whole to IOP address `addr`: 0, or an error. */
int SifLoadIopHeap(const char *path, void *addr);

#endif
