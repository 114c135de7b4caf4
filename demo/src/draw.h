/* draw.h: the frame's display lists. Tasks build them during a frame into one of two packet
 * buffers; ccSystem::Ctrl sends that buffer on the next frame (ccDraw_SendFrame) while the
 * tasks build into the other:
 *   - the draw environment and clear of the buffer being drawn (libgraph's double-buffer
 *     packet) and a background, GIF PATH3 (DMA channel 2);
 *   - the 3D scene: a VIF1 chain (DMA channel 1) that UNPACKs each object's matrix and
 *     vertices into VU1 memory and MSCALs the microprogram (demo/vu/scene.vsm), which XGKICKs
 *     its GIF packet through PATH1;
 *   - the 2D layer: the font and panels as sprites, GIF PATH3 again. */
#ifndef DEMO_DRAW_H
#define DEMO_DRAW_H

#include "piney_rt.h"

/* Screen coordinates of the 2D layer: (0, 0) top left of the 512 x 448 frame. */
#define SCREEN_W 512
#define SCREEN_H 448
/* The font: 8 pixels wide, 16 high (each texel row drawn twice on the interlaced frame). */
#define FONT_W 8
#define FONT_H 16

/* Textures and the VU1 microprogram to the GS and VU1 (once, at start-up). */
void ccDraw_Init(void);
/* ccSystem::Ctrl's SendDMA: this frame's lists, drawn into buffer 1 - id. */
void ccDraw_SendFrame(s32 id);

/* A textured cube: rotation angles (radians) about x then y, centre (tx, ty, tz) in view space
   (z away from the viewer), half its edge, vertex alpha (0x80 opaque; blended below). Only the
   faces turned towards the viewer are sent. */
void ccDraw_Cube(float ax, float ay, float tx, float ty, float tz, float half, u8 alpha);
/* A blended untextured rectangle. rgba: r in bits 0-7 .. a in 24-31 (0x80 = 1.0). */
void ccDraw_Panel(s32 x, s32 y, s32 w, s32 h, u32 rgba);
/* Text in the 5x7 font (ASCII 32-95; lower case drawn as upper case). */
void ccDraw_Text(s32 x, s32 y, u32 rgba, const char *s);
void ccDraw_Printf(s32 x, s32 y, u32 rgba, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
