/* loadfile.h: the EE client of the IOP's LOADFILE RPC server (server id 0x80000006), as
 * ps2sdk's EE loadfile library talks to it (our own code).
 *
 * Every call is one RPC to 0x80000006 with an argument block the server reads from its buffer
 * and answers in place; the reply (8 or 4 bytes) lands on the block's first words:
 *
 *   fno 0  LOAD_MODULE      (load and start a module file; SifLoadModule, SifLoadStartModule)
 *          in:  +0 arg_len, +4 (0), +8 path[252], +260 args[252]          (512 bytes)
 *          out: +0 result (the module id, or a negative KE_* error), +4 the module's
 *               start result (its _start's return value)                   (8 bytes)
 *   fno 6  LOAD_MODULE_BUFFER (load and start a module image already in IOP memory)
 *          in:  +0 the image's IOP address, +4 arg_len, +8 (unused)[252], +260 args[252]
 *          out: +0 result (module id / error), +4 the start result          (8 bytes)
 *   fno 7  STOP_MODULE      in: +0 id, +4 arg_len, +8 (unused)[252], +260 args[252]
 *                           out: +0 result, +4 the module's stop result    (8 bytes)
 *   fno 8  UNLOAD_MODULE    in: +0 id (16 bytes)      out: +0 result        (4 bytes)
 *   fno 9  SEARCH_MODULE_BY_NAME  in: +0 (id), +4, +8 name[252], +260 [252]
 *                           out: +0 the module id or an error               (4 bytes)
 *   fno 10 SEARCH_MODULE_BY_ADDRESS  in: +0 an IOP address (16 bytes)  out: +0 the id
 *   (fno 1 ELF load, 2/3 set/get an IOP word, 4/5 MagicGate loads, 0xff version: not here.)
 *
 * The argument string is `arg_len` bytes of NUL-separated arguments (at most 252 are sent).
 * Errors of our own: -SCE_EBINDMISS (no loadfile server), -SCE_ECALLMISS (the call failed),
 * -E_IOP_NO_MEMORY (SifExecModuleBuffer: no IOP heap).
 *
 * Needs the IOP variant of the SIF client (sifrpc.h): programs with the line `libs: iop`. */
#ifndef PINEY_LOADFILE_H
#define PINEY_LOADFILE_H

#include "sifrpc.h"

#define LOADFILE_SID 0x80000006

#define LF_F_MOD_LOAD              0
#define LF_F_ELF_LOAD              1
#define LF_F_SET_ADDR              2
#define LF_F_GET_ADDR              3
#define LF_F_MG_MOD_LOAD           4
#define LF_F_MG_ELF_LOAD           5
#define LF_F_MOD_BUF_LOAD          6
#define LF_F_MOD_STOP              7
#define LF_F_MOD_UNLOAD            8
#define LF_F_SEARCH_MOD_BY_NAME    9
#define LF_F_SEARCH_MOD_BY_ADDRESS 10

#define LF_PATH_MAX 252
#define LF_ARG_MAX  252

/* Our errors (ps2sdk's numbers). */
#define SCE_EBINDMISS   0x10000
#define SCE_ECALLMISS   0x10001
#define E_IOP_NO_MEMORY 400

/* Bind to the loadfile server (again after an IOP reboot); 0, or -SCE_EBINDMISS. */
int SifLoadFileInit(void);
/* Forget the binding. */
void SifLoadFileExit(void);
/* Load and start the module file `path` with `arg_len` bytes of arguments `args`: its module id
   (>= 0) or an error (< 0). */
int SifLoadModule(const char *path, int arg_len, const char *args);
/* The same, and the module's start result in *mod_res (when not NULL). */
int SifLoadStartModule(const char *path, int arg_len, const char *args, int *mod_res);
/* Load and start the module image at IOP address `iop_addr`. */
int SifLoadModuleBuffer(void *iop_addr, int arg_len, const char *args);
int SifLoadStartModuleBuffer(void *iop_addr, int arg_len, const char *args, int *mod_res);
/* Copy the module image at `ptr` (EE, 16-byte aligned, `size` bytes) into IOP heap, load and
   start it from there, free the heap: the module id or an error. */
int SifExecModuleBuffer(void *ptr, u32 size, u32 arg_len, const char *args, int *mod_res);
/* Stop module `id` (its stop result in *mod_res); unload a stopped module. */
int SifStopModule(int id, int arg_len, const char *args, int *mod_res);
int SifUnloadModule(int id);
/* The id of the module named `name` / of the module holding IOP address `ptr`, or an error. */
int SifSearchModuleByName(const char *name);
int SifSearchModuleByAddress(const void *ptr);

#endif
