/* lcinfo.c: walks loadcore's lists the way IOP modules do (iomanX's ioman_sbv.c, mcserv,
 * netfs, thmon: GetLoadcoreInternalData, export 3 of loadcore) and checks them against the
 * console's layout:
 *   - image_info is SYSMEM's ModuleInfo_t at 0x800 ("System_Memory_Manager", id 1), its next
 *     LOADCORE's ("Module_Manager", id 2); the chain is in address order and holds this
 *     module, whose ModuleInfo_t lies right before its text, flagged "starting" (2) while its
 *     entry runs; module_count is the chain's length and module_index past every id;
 *   - the library list runs from let_next (the newest) through prev to let_prev, SYSMEM's
 *     export table at 0x830 (prev 0), whose successor is loadcore's; sysclib's caller chain
 *     holds this module's sysclib import table; loadcore's export 3 starts with the
 *     `lui v0, hi; addiu v0, v0, lo` that EE programs decode (ps2sdk's slib) and that gives
 *     the same address;
 *   - RegisterLibraryEntries makes a table the newest (its first word becomes prev), and
 *     ReleaseLibraryEntries gives it its magic back.
 * The import of GetLoadcoreInternalData is written here (tools/iop/irx.h has no line for it). */
#include "irx.h"

IRX_ID("lcinfo", 1, 1);

IRX_IMPORTS(loadcore, 1, 1,
            IRX_STUB(GetLoadcoreInternalData, 3));

typedef struct module_info {
    struct module_info *next;
    char *name;
    u16 version;
    u16 newflags;
    u16 id;
    u16 flags;
    u32 entry;
    u32 gp;
    u32 text_start;
    u32 text_size;
    u32 data_size;
    u32 bss_size;
    u32 unused[2];
} module_info_t;

typedef struct library {
    struct library *prev;
    u32 *caller; /* an import table: magic, next, ... */
    u16 version;
    u16 flags;
    char name[8];
    void *exports[];
} library_t;

typedef struct {
    library_t *let_next, *let_prev;
    library_t *mda_next, *mda_prev;
    module_info_t *image_info;
    int module_count;
    int module_index;
    void *reboot_handlers;
    void *intr_suspend_tbl;
    int bootmodes[16];
    int bootmodes_size;
} lc_internals_t;

lc_internals_t *GetLoadcoreInternalData(void);

static int ret7(void)
{
    return 7;
}

IRX_EXPORTS(lci_exports, "lcitest", 1, 1, _start, irx_retonly, irx_retonly, irx_retonly, ret7);

static __attribute__((noinline)) const char *yes(int c)
{
    return c ? "yes" : "NO";
}

static library_t *find_library(lc_internals_t *lc, const char *name)
{
    library_t *l;
    for (l = lc->let_next; l != NULL; l = l->prev) {
        if (memcmp(l->name, name, strlen(name)) == 0)
            return l;
    }
    return NULL;
}

int _start(int argc, char **argv)
{
    lc_internals_t *lc = GetLoadcoreInternalData();
    module_info_t *m, *mine = NULL;
    library_t *l, *sysclib, *loadcore, *tail;
    u32 *f, lui, addiu, decoded;
    int n = 0, ordered = 1, max_id = 0, found = 0;
    u32 self = (u32)&_start;
    (void)argc;
    (void)argv;

    printf("lcinfo: image_info at 0x%x\n", (u32)lc->image_info);
    m = lc->image_info;
    printf("lcinfo: first %s id %d, second %s id %d\n", m->name, m->id, m->next->name,
           m->next->id);
    for (m = lc->image_info; m != NULL; m = m->next) {
        n++;
        if (m->next != NULL && (u32)m->next <= (u32)m)
            ordered = 0;
        if (m->id > max_id)
            max_id = m->id;
        if (strcmp(m->name, "lcinfo") == 0)
            mine = m;
    }
    printf("lcinfo: chain in address order: %s; module_count matches: %s; module_index past every id: %s\n",
           yes(ordered), yes(lc->module_count == n), yes(lc->module_index > max_id));
    if (mine == NULL) {
        printf("lcinfo: this module is not in the chain\n");
        return NO_RESIDENT_END;
    }
    printf("lcinfo: this module: info right before its text: %s, holds _start: %s, newflags %d, version 0x%x\n",
           yes((u32)mine + 0x30 == mine->text_start),
           yes(self >= mine->text_start && self < mine->text_start + mine->text_size),
           mine->newflags, mine->version);

    for (l = lc->let_next; l->prev != NULL; l = l->prev)
        ;
    printf("lcinfo: oldest library %.8s at 0x%x, the head: %s\n", l->name, (u32)l,
           yes(l == lc->let_prev));
    loadcore = find_library(lc, "loadcore");
    printf("lcinfo: loadcore's prev is 0x%x\n", (u32)loadcore->prev);
    sysclib = find_library(lc, "sysclib");
    {
        u32 *t;
        for (t = sysclib->caller; t != NULL; t = (u32 *)t[1]) {
            if ((u32)t >= mine->text_start && (u32)t < mine->text_start + mine->text_size)
                found = 1;
            if (t[0] != IRX_IMPORT_MAGIC)
                printf("lcinfo: a caller of sysclib without the import magic\n");
        }
    }
    printf("lcinfo: this module's sysclib import table is a caller of sysclib: %s\n", yes(found));

    f = (u32 *)loadcore->exports[3];
    lui = f[0];
    addiu = f[1];
    decoded = ((lui & 0xffff) << 16) + (u32)(s16)(addiu & 0xffff);
    printf("lcinfo: export 3 starts with lui v0: %s, addiu v0, v0: %s, giving the same address: %s\n",
           yes((lui & 0xffff0000) == 0x3c020000), yes((addiu & 0xffff0000) == 0x24420000),
           yes(decoded == (u32)lc));

    tail = lc->let_next;
    n = RegisterLibraryEntries(&lci_exports);
    printf("lcinfo: RegisterLibraryEntries(lcitest) -> %d\n", n);
    printf("lcinfo: it is the newest: %s, its prev the old newest: %s\n",
           yes(lc->let_next == (library_t *)&lci_exports),
           yes(lc->let_next->prev == tail));
    n = ReleaseLibraryEntries(&lci_exports);
    printf("lcinfo: ReleaseLibraryEntries -> %d, magic back: %s, newest as before: %s\n", n,
           yes(lci_exports.magic == IRX_EXPORT_MAGIC), yes(lc->let_next == tail));
    printf("-- done\n");
    return NO_RESIDENT_END;
}
