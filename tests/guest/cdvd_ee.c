/* cdvd_ee: the EE's side of the CDVD over SIF RPC, as ps2sdk's libcdvd speaks to cdvdfsv:
 * init (0x80000592), the disc type (S command 3 on 0x80000593), a file search (0x80000597, the
 * 0x124-byte packet of older libraries: a 32-byte sceCdlFILE, the path, the EE address of the answer) and a read
 * of its first sector into a 64-byte aligned EE buffer (N command 1 on 0x80000595), timed with
 * COP0 Count. crates/piney/tests/disc_boot.rs runs it with the demo's disc in the drive
 * (`--disc`), with and without --fast-cdvd. No .stdout: it needs that disc.
 *
 * Expected (derived from the drive's documented timing, crates/piney-iop/src/modules/cdvd/
 * timing.rs): the demo disc is a CD (disc type 0x12, SCECdPS2CD); SYSTEM.CNF is found, its first
 * bytes read back; the first read, from a drive whose head rests at sector 0, waits half a turn
 * of a 24x CD (215,327 IOP cycles, 5.8 ms) before its 0.55 ms transfer, so it takes over 2 ms;
 * with --fast-cdvd every command takes 1,000 IOP cycles (27 us) and the read is under 2 ms. */
/* libs: iop */
#include "piney_sys.h"
#include "sifrpc.h"

static SifRpcClientData_t init_c __attribute__((aligned(64)));
static SifRpcClientData_t scmd_c __attribute__((aligned(64)));
static SifRpcClientData_t ncmd_c __attribute__((aligned(64)));
static SifRpcClientData_t search_c __attribute__((aligned(64)));
static u32 buf[64] __attribute__((aligned(64)));
static u8 packet[0x140] __attribute__((aligned(64)));
static u8 found[64] __attribute__((aligned(64)));
static u8 sector[2048] __attribute__((aligned(64)));
static u32 rd_intr[64] __attribute__((aligned(64)));
static u32 read_pos __attribute__((aligned(64)));

static inline u32 count(void)
{
    u32 v;
    __asm__ volatile("mfc0 %0, $9" : "=r"(v));
    return v;
}

static int bind(SifRpcClientData_t *c, u32 sid)
{
    for (int i = 0; i < 100; i++) {
        if (SifBindRpc(c, sid, 0) < 0)
            return 0;
        if (c->server)
            return 1;
    }
    return 0;
}

static u32 le32(const u8 *p) { return p[0] | p[1] << 8 | p[2] << 16 | (u32)p[3] << 24; }

int main(void)
{
    SifInitRpc(0);
    int ok = bind(&init_c, 0x80000592) && bind(&scmd_c, 0x80000593) &&
             bind(&ncmd_c, 0x80000595) && bind(&search_c, 0x80000597);
    printf("bound: %s\n", ok ? "yes" : "no");
    if (!ok)
        return 1;
    buf[0] = 0; /* init mode */
    SifCallRpc(&init_c, 0, 0, buf, 4, buf, 16, NULL, NULL);
    printf("init: %d, cdvdfsv version above 0x104: %s\n", (int)buf[0], buf[1] > 0x104 ? "yes" : "no");
    SifCallRpc(&scmd_c, 3, 0, NULL, 0, buf, 4, NULL, NULL);
    printf("disc type 0x%02x\n", (unsigned)buf[0]);

    memset(packet, 0, sizeof packet);
    const char *path = "\\SYSTEM.CNF;1";
    for (int i = 0; path[i]; i++)
        packet[32 + i] = (u8)path[i];
    *(u32 *)&packet[32 + 256] = (u32)found;
    SifCallRpc(&search_c, 0, 0, packet, 0x124, buf, 4, NULL, NULL);
    /* sceCdlFILE: lsn, size, name[16], date[8]. */
    volatile u8 *f = (volatile u8 *)((u32)found | 0x20000000);
    u8 copy[32];
    for (int i = 0; i < 32; i++)
        copy[i] = f[i];
    u32 lsn = le32(copy), size = le32(copy + 4);
    printf("search: %d, %s, %u bytes\n", (int)buf[0], (const char *)copy + 8, (unsigned)size);

    u32 args[6] __attribute__((aligned(16)));
    args[0] = lsn;
    args[1] = 1;
    args[2] = (u32)sector;
    args[3] = 0; /* trycount 0, spindle normal, 2048-byte sectors */
    args[4] = (u32)rd_intr;
    args[5] = (u32)&read_pos;
    u32 t0 = count();
    SifCallRpc(&ncmd_c, 1, 0, args, 24, NULL, 0, NULL, NULL);
    u32 took = count() - t0;
    volatile u8 *s = (volatile u8 *)((u32)sector | 0x20000000);
    printf("read:");
    for (int i = 0; i < 13; i++)
        printf("%c", s[i]);
    printf("\n");
    /* COP0 Count runs at the EE clock, 294.912 MHz: 2 ms is 589,824 counts. */
    printf("the read took over 2 ms: %s\n", took > 589824 ? "yes" : "no");
    return 0;
}
