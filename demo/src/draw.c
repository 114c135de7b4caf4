/* draw.c: textures, the VU1 microprogram upload, and the frame's display lists (see draw.h). */
#include "draw.h"
#include "ccsystem.h"
#include "hw.h"
#include "mathf.h"
#include "piney_sys.h"

/* demo/vu/scene.bin, included by vu1code.S. */
extern const u64 vu1_scene_start[], vu1_scene_end[];
extern const u8 font5x7[64][7];

typedef struct {
    u64 lo, hi;
} __attribute__((aligned(16))) qword;

/* ---- Static data: textures and their upload, the background ---- */

#define TEX_CUBE_W 64
#define TEX_FONT_W 128
#define TEX_FONT_H 32

static u32 texCube[TEX_CUBE_W * TEX_CUBE_W] __attribute__((aligned(16)));
static u32 texFont[TEX_FONT_W * TEX_FONT_H] __attribute__((aligned(16)));
static qword uploadChain[32];
static qword vuChain[2];
static qword backPacket[16];
static qword backChain[2][3];

/* ---- The double-buffered frame lists ---- */

#define VIF_QW 1024
#define FRONT_QW 12288
typedef struct {
    qword vif[VIF_QW];
    u32 vifQw;
    qword front[FRONT_QW];
    u32 frontQw;
} FramePk;
static FramePk pk[2];
static s32 build; /* the buffer the tasks are filling */
static int ready; /* ccDraw_Init done: until then nothing is built or sent */

static inline u32 f2w(float f) { return f2u(f); }
static inline u64 pack2(u32 a, u32 b) { return (u64)a | ((u64)b << 32); }

/* A CNT/REF/END tag; for VIF1, two VIFcodes in the upper half. */
static inline void dmatag(qword *q, u32 qwc, u32 id, const void *addr, u32 vif0, u32 vif1)
{
    q->lo = DMATAG(qwc, id, addr);
    q->hi = pack2(vif0, vif1);
}

/* An A+D register write in a PACKED GIF packet. */
static inline void ad(qword *q, u32 reg, u64 v)
{
    q->lo = v;
    q->hi = reg;
}

/* An IMAGE upload of a w x h PSMCT32 texture at block tbp: 7 qwords of chain. */
static qword *upload_texture(qword *q, const u32 *tex, u32 tbp, u32 w, u32 h)
{
    u32 qwc = w * h * 4 / 16;
    dmatag(q++, 5, DMA_CNT, 0, 0, 0);
    q->lo = GIFTAG(4, 0, 0, 0, GIF_PACKED, 1);
    q->hi = GIF_REG_AD;
    q++;
    ad(q++, GS_BITBLTBUF, GS_SET_BITBLTBUF_DST(tbp, w / 64, PSMCT32));
    ad(q++, GS_TRXPOS, 0);
    ad(q++, GS_TRXREG, GS_SET_TRXREG(w, h));
    ad(q++, GS_TRXDIR, 0); /* host to local: the IMAGE data follows */
    dmatag(q++, 1, DMA_CNT, 0, 0, 0);
    q->lo = GIFTAG(qwc, 1, 0, 0, GIF_IMAGE, 0);
    q->hi = 0;
    q++;
    dmatag(q++, qwc, DMA_REF, tex, 0, 0);
    return q;
}

static void make_textures(void)
{
    /* The cube: an 8 x 8 checker of warm and green tiles, shaded down the texture, with a
       light frame; alpha 0x80 (1.0), so the vertex alpha decides the blending. */
    for (u32 y = 0; y < TEX_CUBE_W; y++)
        for (u32 x = 0; x < TEX_CUBE_W; x++) {
            u32 r, g, b;
            if (x < 2 || y < 2 || x > 61 || y > 61) {
                r = 0xf0, g = 0xf0, b = 0xe0;
            } else if (((x >> 3) ^ (y >> 3)) & 1) {
                r = 0xf0, g = 0xb0, b = 0x40;
            } else {
                r = 0x30, g = 0x90, b = 0x60;
            }
            u32 shade = 160 + (TEX_CUBE_W - y) * 95 / TEX_CUBE_W;
            r = r * shade / 255, g = g * shade / 255, b = b * shade / 255;
            texCube[y * TEX_CUBE_W + x] = r | g << 8 | b << 16 | 0x80u << 24;
        }
    /* The font: glyph c - 32 in cell ((c - 32) % 16, (c - 32) / 16), columns 1-5, rows 0-6;
       white and opaque where set, transparent elsewhere. */
    memset(texFont, 0, sizeof texFont);
    for (u32 g = 0; g < 64; g++)
        for (u32 row = 0; row < 7; row++)
            for (u32 col = 0; col < 5; col++)
                if (font5x7[g][row] & (0x10 >> col)) {
                    u32 x = (g % 16) * 8 + 1 + col, y = (g / 16) * 8 + row;
                    texFont[y * TEX_FONT_W + x] = 0x80ffffffu;
                }
}

/* The background: the cube texture's state for the 3D pass, then a vertical gradient. */
static void make_background(void)
{
    qword *q = backPacket;
    q->lo = GIFTAG(5, 1, 0, 0, GIF_PACKED, 1);
    q->hi = GIF_REG_AD;
    q++;
    ad(q++, GS_TEX0_1, GS_SET_TEX0(TEX_CUBE_TBP, 1, PSMCT32, 6, 6, 1));
    ad(q++, GS_TEX1_1, 0);   /* nearest, no mipmaps */
    ad(q++, GS_CLAMP_1, 0);  /* repeat */
    ad(q++, GS_ALPHA_1, GS_ALPHA_BLEND);
    ad(q++, GS_TEXFLUSH, 0);
    q->lo = GIFTAG(4, 1, 1, PRIM_TRISTRIP | PRIM_IIP, GIF_PACKED, 2);
    q->hi = GIF_REG_RGBAQ | GIF_REG_XYZ2 << 4;
    q++;
    static const u32 col[4][3] = {{0x30, 0x18, 0x48}, {0x30, 0x18, 0x48}, {0x08, 0x38, 0x40}, {0x08, 0x38, 0x40}};
    static const s32 xy[4][2] = {{0, 0}, {SCREEN_W, 0}, {0, SCREEN_H}, {SCREEN_W, SCREEN_H}};
    for (int i = 0; i < 4; i++) {
        q->lo = pack2(col[i][0], col[i][1]);
        q->hi = pack2(col[i][2], 0x80);
        q++;
        q->lo = pack2((u32)(1792 + xy[i][0]) << 4, (u32)(1824 + xy[i][1]) << 4);
        q->hi = 0;
        q++;
    }
    u32 n = (u32)(q - backPacket);
    /* Per buffer: its draw environment and clear (15 qwords of ccSystem's sceGsDBuff), then
       the background. */
    for (int id = 0; id < 2; id++) {
        const void *env = id == 0 ? (const void *)&ccSys.db.giftag0 : (const void *)&ccSys.db.giftag1;
        dmatag(&backChain[id][0], 15, DMA_REF, env, 0, 0);
        dmatag(&backChain[id][1], n, DMA_REF, backPacket, 0, 0);
        dmatag(&backChain[id][2], 0, DMA_END, 0, 0, 0);
    }
}

static void begin_frame(FramePk *p)
{
    /* VIF1: unpack cycle 1:1 (each qword to the next address). */
    dmatag(&p->vif[0], 0, DMA_CNT, 0, VIF_CODE(VIF_STCYCL, 0, 0x0101), VIF_CODE(VIF_NOP, 0, 0));
    p->vifQw = 1;
    /* The 2D layer: qword 0 is its END tag (filled when sent), then its state: depth test
       always and Z not written, the font texture, blending. */
    qword *q = &p->front[1];
    q->lo = GIFTAG(6, 1, 0, 0, GIF_PACKED, 1);
    q->hi = GIF_REG_AD;
    q++;
    ad(q++, GS_TEST_1, GS_SET_TEST(1));
    ad(q++, GS_ZBUF_1, GS_SET_ZBUF(ZBUF_PAGE, PSMZ32, 1));
    ad(q++, GS_TEX0_1, GS_SET_TEX0(TEX_FONT_TBP, TEX_FONT_W / 64, PSMCT32, 7, 5, 1));
    ad(q++, GS_TEX1_1, 0);
    ad(q++, GS_ALPHA_1, GS_ALPHA_BLEND);
    ad(q++, GS_TEXFLUSH, 0);
    p->frontQw = (u32)(q - p->front);
}

void ccDraw_Init(void)
{
    make_textures();
    qword *q = upload_texture(uploadChain, texCube, TEX_CUBE_TBP, TEX_CUBE_W, TEX_CUBE_W);
    q = upload_texture(q, texFont, TEX_FONT_TBP, TEX_FONT_W, TEX_FONT_H);
    dmatag(q, 0, DMA_END, 0, 0, 0);
    FlushCache(0);
    ccDmaChain(D2_BASE, uploadChain, 0);

    /* The microprogram to VU1 micro memory at 0 (MPG: count of 64-bit pairs, 0 = 256). */
    u32 pairs = (u32)(vu1_scene_end - vu1_scene_start);
    dmatag(&vuChain[0], pairs / 2, DMA_REF, vu1_scene_start, VIF_CODE(VIF_NOP, 0, 0),
           VIF_CODE(VIF_MPG, pairs & 0xff, 0));
    dmatag(&vuChain[1], 0, DMA_END, 0, VIF_CODE(VIF_NOP, 0, 0), VIF_CODE(VIF_NOP, 0, 0));
    FlushCache(0);
    ccDmaChain(D1_BASE, vuChain, 1);
    ccGsWaitPath();
    printf("ccDraw_Init: textures uploaded, VU1 microprogram %u pairs\n", pairs);

    make_background();
    build = 0;
    begin_frame(&pk[0]);
    begin_frame(&pk[1]);
    ready = 1;
}

void ccDraw_SendFrame(s32 id)
{
    if (!ready)
        return;
    FramePk *p = &pk[build];
    /* Close the lists: VIF1 waits for the last microprogram and its PATH1 packet (FLUSH). */
    dmatag(&p->vif[p->vifQw], 0, DMA_END, 0, VIF_CODE(VIF_NOP, 0, 0), VIF_CODE(VIF_FLUSH, 0, 0));
    dmatag(&p->front[0], p->frontQw - 1, DMA_END, 0, 0, 0);
    FlushCache(0);
    /* In order on the GS: environment, clear and background (PATH3), the 3D scene (PATH1),
       the 2D layer (PATH3); each waits for the one before. */
    ccDmaChain(D2_BASE, backChain[id], 0);
    ccDmaChain(D1_BASE, p->vif, 1);
    ccGsWaitPath();
    ccDmaChain(D2_BASE, p->front, 0);
    /* The tasks fill the other buffer next; its lists were sent two frames ago and are done
       (ccSystem::Ctrl waited for the GS path before calling this). */
    build ^= 1;
    begin_frame(&pk[build]);
}

/* ---- The 3D scene ---- */


void ccDraw_Cube(float ax, float ay, float tx, float ty, float tz, float half, u8 alpha)
{
    FramePk *p = &pk[build];
    u32 need = 2 + 8 + 3 * 36 + 1;
    if (!ready || p->vifQw + need >= VIF_QW)
        return;
    float sx = sinf_(ax), cx = cosf_(ax), sy = sinf_(ay), cy = cosf_(ay);
    /* R = Ry(ay) Rx(ax). */
    float R[3][3] = {
        {cy, sy * sx, sy * cx},
        {0, cx, -sx},
        {-sy, cy * sx, cy * cx},
    };
    qword *tag = &p->vif[p->vifQw];
    qword *h = tag + 1;
    /* The matrix's columns: clip = (R p + t) with the depth (R p + t).z as w, and 1 as z. */
    for (int c = 0; c < 3; c++) {
        h[c].lo = pack2(f2w(R[0][c] * half), f2w(R[1][c] * half));
        h[c].hi = pack2(f2w(0.0f), f2w(R[2][c] * half));
    }
    h[3].lo = pack2(f2w(tx), f2w(ty));
    h[3].hi = pack2(f2w(1.0f), f2w(tz));
    /* Scale and offset: 420 pixels a unit at depth 1 across, 490 down (the 4:3 picture's
       pixels are 7/6 as wide as high), y up; z = 2^28 / depth. */
    h[4].lo = pack2(f2w(420.0f), f2w(-490.0f));
    h[4].hi = pack2(f2w(16777216.0f), 0);
    h[5].lo = pack2(f2w(2048.0f), f2w(2048.0f));
    h[5].hi = 0;
    qword *v = h + 8;
    u32 n = 0;
    /* Faces: axis a (0 x, 1 y, 2 z) and sign s; corners s e_a + u e_b + v e_c. */
    static const u8 tint[6][3] = {
        {0x80, 0x80, 0x80}, {0x80, 0x60, 0x60}, {0x60, 0x80, 0x60},
        {0x60, 0x60, 0x80}, {0x80, 0x80, 0x50}, {0x50, 0x80, 0x80},
    };
    static const s8 uv[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    static const u8 tri[6] = {0, 1, 2, 0, 2, 3};
    for (int f = 0; f < 6; f++) {
        int a = f >> 1, b = (a + 1) % 3, c = (a + 2) % 3;
        float s = (f & 1) ? -1.0f : 1.0f;
        /* Seen from the viewer at the origin when (R n) . (R n half + t) < 0. */
        float d = half + s * (R[0][a] * tx + R[1][a] * ty + R[2][a] * tz);
        if (d >= 0)
            continue;
        for (int k = 0; k < 6; k++) {
            const s8 *corner = uv[tri[k]];
            float pos[3];
            pos[a] = s;
            pos[b] = corner[0];
            pos[c] = corner[1] * s; /* keeps each face's winding the same from outside */
            v[0].lo = pack2(f2w(pos[0]), f2w(pos[1]));
            v[0].hi = pack2(f2w(pos[2]), f2w(1.0f));
            v[1].lo = pack2(f2w((corner[0] + 1) * 0.5f), f2w((corner[1] + 1) * 0.5f));
            v[1].hi = pack2(f2w(1.0f), 0);
            v[2].lo = pack2(tint[f][0], tint[f][1]);
            v[2].hi = pack2(tint[f][2], alpha);
            v += 3;
            n++;
        }
    }
    if (n == 0)
        return;
    h[6].lo = GIFTAG(n, 1, 1, PRIM_TRI | PRIM_IIP | PRIM_TME | PRIM_ABE, GIF_PACKED, 3);
    h[6].hi = GIF_REG_ST | GIF_REG_RGBAQ << 4 | GIF_REG_XYZ2 << 8;
    h[7].lo = pack2(n, 0);
    h[7].hi = 0;
    u32 qwc = 8 + 3 * n;
    /* FLUSH first: the last batch's program and its PATH1 packet are done before its memory
       is overwritten. */
    dmatag(tag, qwc, DMA_CNT, 0, VIF_CODE(VIF_FLUSH, 0, 0),
           VIF_CODE(VIF_UNPACK_V4_32, qwc & 0xff, 0));
    qword *mscal = tag + 1 + qwc;
    dmatag(mscal, 0, DMA_CNT, 0, VIF_CODE(VIF_NOP, 0, 0), VIF_CODE(VIF_MSCAL, 0, 0));
    p->vifQw += 2 + qwc;
}

/* ---- The 2D layer ---- */

static qword *front_reserve(u32 n)
{
    FramePk *p = &pk[build];
    if (!ready || p->frontQw + n > FRONT_QW)
        return NULL;
    qword *q = &p->front[p->frontQw];
    p->frontQw += n;
    return q;
}

static inline void xyz_packed(qword *q, s32 x, s32 y)
{
    q->lo = pack2((u32)(1792 + x) << 4, (u32)(1824 + y) << 4);
    q->hi = 0;
}

static inline void rgba_packed(qword *q, u32 rgba)
{
    q->lo = pack2(rgba & 0xff, (rgba >> 8) & 0xff);
    q->hi = pack2((rgba >> 16) & 0xff, rgba >> 24);
}

void ccDraw_Panel(s32 x, s32 y, s32 w, s32 h, u32 rgba)
{
    qword *q = front_reserve(4);
    if (!q)
        return;
    q->lo = GIFTAG(1, 1, 1, PRIM_SPRITE | PRIM_ABE, GIF_PACKED, 3);
    q->hi = GIF_REG_RGBAQ | GIF_REG_XYZ2 << 4 | GIF_REG_XYZ2 << 8;
    rgba_packed(q + 1, rgba);
    xyz_packed(q + 2, x, y);
    xyz_packed(q + 3, x + w, y + h);
}

void ccDraw_Text(s32 x, s32 y, u32 rgba, const char *s)
{
    u32 n = 0;
    for (const char *c = s; *c; c++)
        if (*c != ' ')
            n++;
    if (n == 0)
        return;
    qword *q = front_reserve(1 + 5 * n);
    if (!q)
        return;
    q->lo = GIFTAG(n, 1, 1, PRIM_SPRITE | PRIM_TME | PRIM_FST | PRIM_ABE, GIF_PACKED, 5);
    q->hi = GIF_REG_RGBAQ | GIF_REG_UV << 4 | GIF_REG_XYZ2 << 8 | GIF_REG_UV << 12 |
            (u64)GIF_REG_XYZ2 << 16;
    q++;
    for (; *s; s++, x += FONT_W) {
        u32 c = (u8)*s;
        if (c == ' ')
            continue;
        if (c >= 'a' && c <= 'z')
            c -= 32;
        if (c < 32 || c > 95)
            c = '?';
        u32 g = c - 32, u = (g % 16) * 8, v = (g / 16) * 8;
        rgba_packed(q, rgba);
        /* UV in 10.4 texels, at the cell's edges: each pixel centre samples one texel. */
        q[1].lo = pack2(u << 4, v << 4);
        q[1].hi = 0;
        xyz_packed(q + 2, x, y);
        q[3].lo = pack2((u + 8) << 4, (v + 8) << 4);
        q[3].hi = 0;
        xyz_packed(q + 4, x + FONT_W, y + FONT_H);
        q += 5;
    }
}

void ccDraw_Printf(s32 x, s32 y, u32 rgba, const char *fmt, ...)
{
    char buf[96];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    ccDraw_Text(x, y, rgba, buf);
}
