/* padcheck.c: the demo's ccPad::Read and motor queue (demo/src/ccpad.c), compiled for the
 * build machine, driven by a `piney pad-trace` script: the same commands, the same output
 * lines, so that run.sh can compare them with piney-input's native implementation.
 * libpad is replaced by stubs: the pad is connected and Stable, requests complete at once,
 * scePadSetActDirect records what ccPad::Ctrl sent. */
#include "ccpad.h"
#include "libpad.h"

static int sentFlag;
static u8 sentBytes[6];

int scePadInit(int mode) { (void)mode; return 1; }
int scePadPortOpen(int port, int slot, void *addr) { (void)port; (void)slot; (void)addr; return 1; }
int scePadRead(int port, int slot, unsigned char *d) { (void)port; (void)slot; (void)d; return 0; }
int scePadGetState(int port, int slot) { (void)port; (void)slot; return scePadStateStable; }
int scePadGetReqState(int port, int slot) { (void)port; (void)slot; return scePadReqStateComplete; }
int scePadInfoMode(int port, int slot, int term, int offs)
{ (void)port; (void)slot; (void)term; (void)offs; return 0; }
int scePadSetMainMode(int port, int slot, int offs, int lock)
{ (void)port; (void)slot; (void)offs; (void)lock; return 1; }
int scePadInfoAct(int port, int slot, int act, int term)
{ (void)port; (void)slot; (void)act; (void)term; return 2; }
int scePadSetActAlign(int port, int slot, const unsigned char *d)
{ (void)port; (void)slot; (void)d; return 1; }
int scePadSetActDirect(int port, int slot, const unsigned char *d)
{
    (void)port;
    (void)slot;
    memcpy(sentBytes, d, 6);
    sentFlag = 1;
    return 1;
}

int main(void)
{
    ccPad p;
    memset(&p, 0, sizeof p);
    p.state = PADST_READY;
    p.actReady = 1;
    p.actState = 1;
    char line[256];
    int lineNo = 0;
    while (fgets(line, sizeof line, stdin)) {
        lineNo++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        char w[8][16];
        int n = sscanf(line, "%15s %15s %15s %15s %15s %15s %15s %15s", w[0], w[1], w[2], w[3],
                       w[4], w[5], w[6], w[7]);
        if (n <= 0)
            continue;
        if (!strcmp(w[0], "pad") && (n == 3 || n == 7)) {
            u8 b[6];
            for (int i = 1; i < n; i++)
                b[i - 1] = (u8)strtoul(w[i], NULL, 16);
            ccPad_ReadReport(&p, b, n == 7 ? b + 2 : NULL);
            printf("pad direct=%04x push=%04x unpush=%04x repeat=%04x pow=%d\n", p.direct,
                   p.push, p.unpush, p.repeat, p.leftPow);
        } else if (!strcmp(w[0], "vibration") && n == 2) {
            ccPad_actuaterSw = !strcmp(w[1], "on");
        } else if (!strcmp(w[0], "set") && n == 4) {
            ccPad_SetActuater(&p, atoi(w[1]), atoi(w[2]), (u32)strtoul(w[3], NULL, 10));
        } else if (!strcmp(w[0], "tick") && n == 2) {
            ccPad_ActTick(&p, (u16)atoi(w[1]));
        } else if (!strcmp(w[0], "ctrl") && n == 1) {
            sentFlag = 0;
            ccPad_Ctrl(&p);
            if (sentFlag)
                printf("ctrl small=%d large=%d\n", sentBytes[0], sentBytes[1]);
            else
                printf("ctrl -\n");
        } else {
            fprintf(stderr, "padcheck: line %d: cannot read `%s`\n", lineNo, w[0]);
            return 1;
        }
    }
    return 0;
}
