/* bootmods.c: the small boot modules' libraries (indices from ps2sdk's exports.tab files):
 *   - excepman: GetExHandlersTable's variable holds 0x440, the table of each exception code's
 *     first handler code (the default handler's when it has none). A handler is { next, info,
 *     code... }: in a code's list, lower priority numbers first (RegisterExceptionHandler is
 *     priority 2), each handler's next holds the next one's code (handler + 8), the last one's
 *     the default's. KE_ILLEGAL_EXPCODE (-50) for a code past 15, KE_EXPHANDLER_USED (-52) for
 *     a handler whose next is not 0, KE_EXPHANDLER_NOUSE (-51) to release one not registered.
 *     A new default handler's next takes the old default's code.
 *   - ssbusc: per-device delay and base address registers (-1 for a device without one),
 *     the common delay register's 4-bit recovery, hold, float and strobe fields.
 *   - secrman: SecrAuthCard answers 0 while no memory card command handler is set.
 *   - eesync: its entries return at once.
 * With the argument "auth" it sets a command handler and asks SecrAuthCard, which needs the
 * card and the console's keys: the run stops with an error naming it.
 * The imports are written here (tools/iop/irx.h has no lines for these libraries). */
#include "irx.h"

IRX_ID("bootmods", 1, 1);

IRX_IMPORTS(excepman, 1, 1,
            IRX_STUB(GetExHandlersTable, 3)
            IRX_STUB(RegisterExceptionHandler, 4)
            IRX_STUB(RegisterPriorityExceptionHandler, 5)
            IRX_STUB(RegisterDefaultExceptionHandler, 6)
            IRX_STUB(ReleaseExceptionHandler, 7)
            IRX_STUB(ReleaseDefaultExceptionHandler, 8));
IRX_IMPORTS(ssbusc, 1, 1,
            IRX_STUB(SetDelay, 4)
            IRX_STUB(GetDelay, 5)
            IRX_STUB(SetBaseAddress, 6)
            IRX_STUB(GetBaseAddress, 7)
            IRX_STUB(SetRecoveryTime, 8)
            IRX_STUB(GetRecoveryTime, 9)
            IRX_STUB(SetHoldTime, 10)
            IRX_STUB(GetHoldTime, 11)
            IRX_STUB(SetFloatTime, 12)
            IRX_STUB(GetFloatTime, 13)
            IRX_STUB(SetStrobeTime, 14)
            IRX_STUB(GetStrobeTime, 15)
            IRX_STUB(SetCommonDelay, 16)
            IRX_STUB(GetCommonDelay, 17));
IRX_IMPORTS(secrman, 1, 3,
            IRX_STUB(SecrSetMcCommandHandler, 4)
            IRX_STUB(SecrAuthCard, 6));
IRX_IMPORTS(eesync, 1, 1,
            IRX_STUB(eesync_entry4, 4));

u32 **GetExHandlersTable(void);
int RegisterExceptionHandler(int code, u32 *handler);
int RegisterPriorityExceptionHandler(int code, int priority, u32 *handler);
int RegisterDefaultExceptionHandler(u32 *handler);
int ReleaseExceptionHandler(int code, u32 *handler);
int ReleaseDefaultExceptionHandler(u32 *handler);
int SetDelay(int device, u32 value);
int GetDelay(int device);
int SetBaseAddress(int device, u32 value);
int GetBaseAddress(int device);
int SetRecoveryTime(u32 value);
int GetRecoveryTime(void);
int SetHoldTime(u32 value);
int GetHoldTime(void);
int SetFloatTime(u32 value);
int GetFloatTime(void);
int SetStrobeTime(u32 value);
int GetStrobeTime(void);
int SetCommonDelay(u32 value);
int GetCommonDelay(void);
void SecrSetMcCommandHandler(void *handler);
int SecrAuthCard(int port, int slot, int cnum);
void eesync_entry4(void);

/* Handlers: next, info, then their code (never run here). */
static u32 h1[4], h2[4], h3[4], hd[4];

static __attribute__((noinline)) const char *yes(int c)
{
    return c ? "yes" : "NO";
}

static int mc_command(int port, int slot, void *data)
{
    (void)port;
    (void)slot;
    (void)data;
    return 0;
}

static void excepman(void)
{
    u32 *table = *GetExHandlersTable();
    u32 dflt = table[0];
    int i, r, r2, same = 1;
    for (i = 1; i < 16; i++)
        same &= table[i] == dflt;
    printf("excepman: table at 0x%x, every code at the default handler: %s\n", (u32)table,
           yes(same));
    r = RegisterExceptionHandler(16, h1);
    printf("excepman: code 16 -> %d\n", r);
    h3[0] = 1;
    r = RegisterExceptionHandler(8, h3);
    printf("excepman: a handler in use -> %d\n", r);
    h3[0] = 0;
    r = RegisterExceptionHandler(8, h1);
    printf("excepman: h1 on code 8 -> %d; table[8] is h1's code: %s, h1 goes on to the default: %s\n",
           r, yes(table[8] == (u32)&h1[2]), yes(h1[0] == dflt));
    r = RegisterPriorityExceptionHandler(8, 1, h2);
    printf("excepman: h2, priority 1 -> %d; first: %s, then h1: %s\n", r,
           yes(table[8] == (u32)&h2[2]), yes(h2[0] == (u32)&h1[2]));
    r = RegisterPriorityExceptionHandler(8, 3, h3);
    printf("excepman: h3, priority 3 -> %d; after h1: %s, then the default: %s\n", r,
           yes(h1[0] == (u32)&h3[2]), yes(h3[0] == dflt));
    r = ReleaseExceptionHandler(8, h1);
    printf("excepman: release h1 -> %d; its next cleared: %s, h2 goes on to h3: %s\n", r,
           yes(h1[0] == 0), yes(h2[0] == (u32)&h3[2]));
    r = ReleaseExceptionHandler(8, h1);
    r2 = ReleaseExceptionHandler(20, h1);
    printf("excepman: release h1 again -> %d, on code 20 -> %d\n", r, r2);
    r = RegisterDefaultExceptionHandler(hd);
    printf("excepman: default hd -> %d; code 0 at hd: %s, hd goes on to the old default: %s, h3 to hd: %s\n",
           r, yes(table[0] == (u32)&hd[2]), yes(hd[0] == dflt), yes(h3[0] == (u32)&hd[2]));
    r = ReleaseDefaultExceptionHandler(hd);
    same = table[0] == dflt;
    r2 = ReleaseDefaultExceptionHandler(hd);
    printf("excepman: release hd -> %d; code 0 back: %s; again -> %d\n", r, yes(same), r2);
    r = ReleaseExceptionHandler(8, h2);
    r2 = ReleaseExceptionHandler(8, h3);
    printf("excepman: release h2 -> %d, h3 -> %d; code 8 back at the default: %s\n", r, r2,
           yes(table[8] == dflt));
}

static void ssbusc(void)
{
    int a, b, c, d;
    a = SetDelay(3, 1);
    b = GetDelay(13);
    printf("ssbusc: SetDelay(3) -> %d, GetDelay(13) -> %d\n", a, b);
    a = SetDelay(0, 0x1234);
    b = GetDelay(0);
    printf("ssbusc: SetDelay(0, 0x1234) -> 0x%x, GetDelay(0) -> 0x%x\n", a, b);
    a = SetBaseAddress(1, 0x1f400000);
    b = GetBaseAddress(1);
    c = GetBaseAddress(2);
    printf("ssbusc: SetBaseAddress(1, 0x1f400000) -> 0x%x, GetBaseAddress(1) -> 0x%x, (2) -> %d\n",
           a, b, c);
    a = SetCommonDelay(0x31053000);
    printf("ssbusc: SetCommonDelay(0x31053000) -> 0x%x\n", a);
    a = SetRecoveryTime(5);
    b = SetHoldTime(0x1f);
    c = SetFloatTime(2);
    d = SetStrobeTime(9);
    printf("ssbusc: recovery 5 -> 0x%x, hold 0x1f -> 0x%x, float 2 -> 0x%x, strobe 9 -> 0x%x\n",
           a, b, c, d);
    a = GetRecoveryTime();
    b = GetHoldTime();
    c = GetFloatTime();
    d = GetStrobeTime();
    printf("ssbusc: recovery %d, hold %d, float %d, strobe %d, common 0x%x\n", a, b, c, d,
           GetCommonDelay());
}

/* 'a': authenticate a card (with a command handler set). */
static __attribute__((noinline)) void auth(int mode)
{
    if (mode == 'a') {
        SecrSetMcCommandHandler(mc_command);
        printf("secrman: SecrAuthCard -> %d\n", SecrAuthCard(0, 0, 0));
    }
}

int _start(int argc, char **argv)
{
    excepman();
    ssbusc();
    printf("secrman: SecrAuthCard without a command handler -> %d\n", SecrAuthCard(0, 0, 0));
    eesync_entry4();
    printf("eesync: entry 4 returned\n");
    if (argc > 1)
        auth(argv[1][0]);
    printf("-- done\n");
    return NO_RESIDENT_END;
}
