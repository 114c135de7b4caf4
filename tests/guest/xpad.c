/* xpad: the newer pad protocol, the one rom0:XPADMAN (and ps2sdk's padman.irx) speak, through a
 * client of its own written here (as a newer libpad does it: bind 0x80000100, INIT with a status
 * area, commands 1..0x12, the 128-byte frame layout whose mode and actuator tables the client
 * reads itself). Run with tests/guest/xpad.input (piney run --input).
 *
 * The expected output follows from that script and padman's documented timing
 * (crates/piney-machine/src/sif/padman.rs), the same as pad.c's: after the open the pad shows
 * FindCTP1 for 2 frames (digital data, task 1), ExecCmd for 10 (the query: task 2, id 0xf3, no
 * data), then Stable (task 1, mode configuration 2); SetMainMode and SetActAlign are busy for 2
 * frames (tasks 4 and 5, config mode) and done on the 3rd; the IOP writes frame n at the n-th
 * vertical blank after the open. */
/* libs: iop */
#include "piney_sys.h"
#include "sifrpc.h"
#include "loadfile.h"

#define XPAD_SID 0x80000100
#define XPAD_SID_EXT 0x80000101
#define CMD_OPEN 0x01
#define CMD_SET_MMODE 0x06
#define CMD_SET_ACTDIR 0x07
#define CMD_SET_ACTALIGN 0x08
#define CMD_GET_PORTMAX 0x0c
#define CMD_GET_SLOTMAX 0x0d
#define CMD_CLOSE 0x0e
#define CMD_END 0x0f
#define CMD_INIT 0x10
#define CMD_GET_MODVER 0x12

/* One frame of the new layout. */
typedef struct {
    u8 data[32];
    u8 act_direct[8];
    u8 act_align[8];
    u8 act_data[8][4];
    u16 mode_table[4];
    u32 frame;
    u32 find_retries;
    u32 length;
    u8 mode_config;
    u8 mode_cur_id;
    u8 model;
    u8 data_ready;
    u8 nr_modes;
    u8 mode_cur_offs;
    u8 nr_actuators;
    u8 nr_comb;
    u8 reserved0;
    u8 mode;
    u8 lock;
    u8 act_direct_size;
    u8 state;
    u8 req_state;
    u8 current_task;
    u8 reserved1[13];
} Frame;
_Static_assert(sizeof(Frame) == 0x80, "frame size");

/* The status area: two blocks, a counter and a word per port of connected slots. */
typedef struct {
    u32 count;
    u32 slots[2];
    u8 reserved[0x74];
} Status;
_Static_assert(sizeof(Status) == 0x80, "status size");

static SifRpcClientData_t client[2] __attribute__((aligned(64)));
static union {
    u32 w[32];
    u8 b[128];
} rpc_buf __attribute__((aligned(64)));
static Frame area[2] __attribute__((aligned(64)));
static Status status[2] __attribute__((aligned(64)));

static volatile int vblanks;
static int seen;
static int vsema;

static s32 on_vblank(s32 cause)
{
    (void)cause;
    vblanks++;
    iSignalSema(vsema);
    ExitHandler();
    return 0;
}

static int wait_vblank(void)
{
    while (vblanks == seen)
        WaitSema(vsema);
    seen = vblanks;
    return seen;
}

/* The IOP writes both areas by DMA: read them through the uncached mirror of RDRAM. */
static volatile Frame *newest(void)
{
    volatile Frame *f = (volatile Frame *)((u32)area | 0x20000000);
    return f[0].frame < f[1].frame ? &f[1] : &f[0];
}

static volatile Status *newest_status(void)
{
    volatile Status *s = (volatile Status *)((u32)status | 0x20000000);
    return s[0].count < s[1].count ? &s[1] : &s[0];
}

static int call(u32 command)
{
    rpc_buf.w[0] = command;
    if (SifCallRpc(&client[0], 1, 0, &rpc_buf, 128, &rpc_buf, 128, NULL, NULL) < 0)
        return -1;
    return 0;
}

static int bind(SifRpcClientData_t *c, u32 sid)
{
    for (int tries = 0; tries < 100; tries++) {
        if (SifBindRpc(c, sid, 0) < 0)
            return 0;
        if (c->server)
            return 1;
    }
    return 0;
}

static void show_frame(int v)
{
    volatile Frame *f = newest();
    printf("vblank %d frame %d: state %d req %d task %d config %d id 0x%02x, read %d:", v, (int)f->frame,
           f->state, f->req_state, f->current_task, f->mode_config, f->mode_cur_id, (int)f->length);
    for (u32 i = 0; i < f->length && i < 32; i++)
        printf(" %02x", f->data[i]);
    printf("\n");
}

static void wait_request(void)
{
    for (int i = 0; i < 10; i++) {
        show_frame(wait_vblank());
        if (newest()->req_state != 2)
            return;
    }
    puts("request still busy after 10 frames");
}

static void show_motors(void)
{
    volatile Frame *f = newest();
    printf("direct");
    for (int i = 0; i < 6; i++)
        printf(" %02x", f->act_direct[i]);
    printf(" align");
    for (int i = 0; i < 6; i++)
        printf(" %02x", f->act_align[i]);
    printf("\n");
}

static int set_six(u32 command, const u8 v[6])
{
    rpc_buf.w[1] = 0;
    rpc_buf.w[2] = 0;
    for (int i = 0; i < 6; i++)
        rpc_buf.b[12 + i] = v[i];
    call(command);
    return (int)rpc_buf.w[5];
}

int main(void)
{
    ee_sema_t s;
    memset(&s, 0, sizeof s);
    s.init_count = 0;
    s.max_count = 1;
    vsema = CreateSema(&s);
    SifInitRpc(0);
    SifLoadFileInit();
    printf("load rom0:XSIO2MAN %s\n", SifLoadModule("rom0:XSIO2MAN", 0, NULL) >= 0 ? "ok" : "failed");
    printf("load rom0:XPADMAN %s\n", SifLoadModule("rom0:XPADMAN", 0, NULL) >= 0 ? "ok" : "failed");
    AddIntcHandler(INTC_VBLANK_E, on_vblank, 0);
    EnableIntc(INTC_VBLANK_E);

    printf("bind: %d %d\n", bind(&client[0], XPAD_SID), bind(&client[1], XPAD_SID_EXT));
    rpc_buf.w[4] = (u32)status;
    call(CMD_INIT);
    printf("init %d\n", (int)rpc_buf.w[3]);
    call(CMD_GET_MODVER);
    printf("module version 0x%04x\n", (unsigned)rpc_buf.w[3]);
    call(CMD_GET_PORTMAX);
    printf("ports %d\n", (int)rpc_buf.w[3]);
    rpc_buf.w[1] = 0;
    call(CMD_GET_SLOTMAX);
    printf("slots %d\n", (int)rpc_buf.w[3]);

    /* As libpad does before the open: no data, a request busy, counters 0. */
    for (int i = 0; i < 2; i++) {
        memset(area[i].data, 0xff, sizeof area[i].data);
        area[i].frame = 0;
        area[i].length = 0;
        area[i].state = 5;
        area[i].req_state = 2;
        area[i].current_task = 0;
        area[i].data_ready = 0;
    }
    SifWriteBackDCache(area, sizeof area);
    int v = wait_vblank();
    rpc_buf.w[1] = 0;
    rpc_buf.w[2] = 0;
    rpc_buf.w[4] = (u32)area;
    call(CMD_OPEN);
    printf("open at vblank %d: %d\n", v, (int)rpc_buf.w[3]);
    show_frame(v);

    puts("-- finding the pad");
    int last = -1;
    for (int i = 0; i < 60; i++) {
        v = wait_vblank();
        int st = newest()->state;
        if (st != last)
            show_frame(v);
        last = st;
        if (st == 6)
            break;
    }
    volatile Status *st = newest_status();
    printf("connected: port 1 %d, port 2 %d\n", (int)(st->slots[0] & 1), (int)(st->slots[1] & 1));

    puts("-- digital");
    volatile Frame *f = newest();
    printf("model %d, modes %d: %d %d; current id %d offs %d\n", f->model, f->nr_modes,
           f->mode_table[0], f->mode_table[1], f->mode_cur_id >> 4, f->mode_cur_offs);
    printf("actuators %d:", f->nr_actuators);
    for (int a = 0; a < f->nr_actuators && a < 4; a++)
        printf(" [%d %d %d %d]", f->act_data[a][0], f->act_data[a][1], f->act_data[a][2],
               f->act_data[a][3]);
    printf("; combinations %d: [%d %d %d]\n", f->nr_comb, f->act_data[4][0], f->act_data[4][1],
           f->act_data[4][2]);

    puts("-- analog, locked");
    rpc_buf.w[1] = 0;
    rpc_buf.w[2] = 0;
    rpc_buf.w[3] = 1;
    rpc_buf.w[4] = 3;
    call(CMD_SET_MMODE);
    printf("SetMainMode: %d\n", (int)rpc_buf.w[5]);
    rpc_buf.w[3] = 1;
    rpc_buf.w[4] = 3;
    call(CMD_SET_MMODE);
    printf("again while busy: %d\n", (int)rpc_buf.w[5]);
    wait_request();
    f = newest();
    printf("current id %d offs %d mode %d lock %d\n", f->mode_cur_id >> 4, f->mode_cur_offs, f->mode,
           f->lock);
    for (int i = 0; i < 3; i++)
        show_frame(wait_vblank());

    puts("-- motors");
    static const u8 direct[6] = {1, 255, 0, 0, 0, 0};
    printf("SetActDirect: %d\n", set_six(CMD_SET_ACTDIR, direct));
    wait_vblank();
    show_motors();
    static const u8 align[6] = {0, 1, 0xff, 0xff, 0xff, 0xff};
    printf("SetActAlign: %d\n", set_six(CMD_SET_ACTALIGN, align));
    wait_request();
    show_motors();

    puts("-- close");
    rpc_buf.w[1] = 0;
    rpc_buf.w[2] = 0;
    rpc_buf.w[4] = 1;
    call(CMD_CLOSE);
    printf("close: %d\n", (int)rpc_buf.w[3]);
    call(CMD_END);
    printf("end: %d\n", (int)rpc_buf.w[3]);
    return 0;
}
