/* mbox.c: thmsgbx's message boxes: PollMbx on an empty box (KE_MBOX_NOMSG), message order
 * (MBA_MSFIFO: sending order; MBA_MSPRI: by the message's priority byte, lower first, sending
 * order among equals), ReferMbxStatus (count, first message), waiting receivers (a message sent
 * to a box with waiters goes straight to the first waiter: arrival order for MBA_THFIFO, thread
 * priority order for MBA_THPRI), KE_WAIT_DELETE for a waiter of a deleted box and
 * KE_UNKNOWN_MBXID after deletion.
 *
 * main is priority 8; the receivers R1, R2 (6), R3 (7), R4 (5), R5 (6) have higher priorities,
 * so each runs when main starts it (and waits in ReceiveMbx) and runs again, printing, as soon
 * as main's SendMbx hands it a message (inside main's call). */
#include "irx.h"

IRX_ID("mbox", 1, 1);

struct msg {
    iop_message_t hdr; /* the kernel's link and the priority byte come first */
    const char *text;
};

static struct msg ma, mb, mc, md, mx, my, mz, mw;
static int box;
static int threads[5], nthreads;

static void init(struct msg *m, int priority, const char *text)
{
    m->hdr.next = NULL;
    m->hdr.priority = priority;
    m->text = text;
}

static void receiver(void *arg)
{
    struct msg *m = NULL;
    int r = ReceiveMbx((void **)&m, box);
    if (r < 0)
        printf("%s: ReceiveMbx -> %d\n", (const char *)arg, r);
    else
        printf("%s: ReceiveMbx -> %d, \"%s\"\n", (const char *)arg, r, m->text);
}

static void start(const char *name, int priority)
{
    iop_thread_t t;
    t.attr = TH_C;
    t.option = 0;
    t.thread = receiver;
    t.stacksize = 0x800;
    t.priority = priority;
    threads[nthreads] = CreateThread(&t);
    StartThread(threads[nthreads++], (void *)name);
}

static int create(u32 attr)
{
    iop_mbx_t p;
    p.attr = attr;
    p.option = 0x42;
    return CreateMbx(&p);
}

/* ReferMbxStatus; the first message is compared with `top` (and not read when empty). */
static void show(const char *what, struct msg *top)
{
    iop_mbx_status_t info;
    int r = ReferMbxStatus(box, &info);
    if (r < 0)
        printf("%s: refer %d\n", what, r);
    else
        printf("%s: refer %d attr %u option 0x%x waiters %d messages %d%s\n", what, r, info.attr,
               info.option, info.numWaitThreads, info.numMessage,
               top ? (info.topPacket == &top->hdr ? ", first OK" : ", first FAIL") : "");
}

static void drain(const char *what)
{
    struct msg *m;
    int r;
    printf("%s:", what);
    while ((r = PollMbx((void **)&m, box)) == KE_OK)
        printf(" %s", m->text);
    printf(" (then %d)\n", r);
}

int _start(int argc, char **argv)
{
    struct msg *m;
    int r, a, b, c, d;
    (void)argc;
    (void)argv;

    init(&ma, 3, "a3");
    init(&mb, 1, "b1");
    init(&mc, 2, "c2");
    init(&md, 1, "d1");

    /* MBA_MSFIFO: sending order. */
    box = create(MBA_THFIFO | MBA_MSFIFO);
    r = PollMbx((void **)&m, box);
    printf("PollMbx on an empty box -> %d\n", r);
    a = SendMbx(box, &ma);
    b = SendMbx(box, &mb);
    c = SendMbx(box, &mc);
    printf("SendMbx -> %d %d %d\n", a, b, c);
    show("fifo", &ma);
    r = ReceiveMbx((void **)&m, box); /* a message is there: no wait */
    printf("ReceiveMbx -> %d, \"%s\"\n", r, m->text);
    drain("fifo, the rest");
    printf("DeleteMbx -> %d\n", DeleteMbx(box));
    r = SendMbx(box, &ma);
    printf("SendMbx to the deleted box -> %d\n", r);
    show("deleted", NULL);

    /* MBA_MSPRI: a3, b1, c2, d1 sent; received b1, d1, c2, a3. */
    box = create(MBA_THFIFO | MBA_MSPRI);
    SendMbx(box, &ma);
    SendMbx(box, &mb);
    SendMbx(box, &mc);
    SendMbx(box, &md);
    show("by priority", &mb);
    drain("by priority");
    DeleteMbx(box);

    /* MBA_THFIFO receivers: R1 then R2 wait; x goes to R1, y to R2. */
    init(&mx, 0, "x");
    init(&my, 0, "y");
    init(&mz, 0, "z");
    init(&mw, 0, "w");
    box = create(MBA_THFIFO);
    start("R1 (6)", 6);
    start("R2 (6)", 6);
    show("two waiting", NULL);
    a = SendMbx(box, &mx);
    b = SendMbx(box, &my);
    printf("main: SendMbx -> %d %d\n", a, b);
    show("none waiting", NULL);
    DeleteMbx(box);

    /* MBA_THPRI receivers: R3 (7) waits first, R4 (5) second; z goes to R4, w to R3. */
    box = create(MBA_THPRI);
    start("R3 (7)", 7);
    start("R4 (5)", 5);
    a = SendMbx(box, &mz);
    b = SendMbx(box, &mw);
    printf("main: SendMbx -> %d %d\n", a, b);

    /* A waiter of a deleted box: R5 gets KE_WAIT_DELETE before DeleteMbx returns. */
    start("R5 (6)", 6);
    r = DeleteMbx(box);
    printf("main: DeleteMbx with a waiter -> %d\n", r);

    d = 0;
    for (a = 0; a < nthreads; a++)
        d |= DeleteThread(threads[a]);
    printf("main: DeleteThread of the %d receivers -> %d\n", nthreads, d);
    printf("-- done\n");
    return NO_RESIDENT_END;
}
