/* hook.h: the functions piney's native engine layer may hook (by ELF symbol) are kept whole:
 * gcc may not inline them into their callers, so each runs only through its own entry point. */
#ifndef DEMO_HOOK_H
#define DEMO_HOOK_H

#define HOOKABLE __attribute__((noinline))

#endif
