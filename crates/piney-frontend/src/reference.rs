//! The presentation on the CPU: exactly what `shaders/present.wgsl` computes, pixel for pixel,
//! so tests can check the GPU's pictures (headless and in a window) against it.

use crate::Frame;
use crate::layout::{Filter, Rect, Scaling, picture_rect, sharp_axis, source_texel};

/// `a * alpha/255 + b * (255 - alpha)/255`, rounded to nearest: the PCRTC merge's rule.
fn mix(a: u8, b: u8, alpha: u32) -> u8 {
    ((a as u32 * alpha + b as u32 * (255 - alpha) + 127) / 255) as u8
}

/// The colour target pixel (`px`, `py`) shows for `frame` presented in `rect`: black outside
/// the rectangle and where the display offset moved the picture away; alpha always 255.
pub fn pixel(frame: &Frame, rect: Rect, px: u32, py: u32) -> [u8; 4] {
    const BLACK: [u8; 4] = [0, 0, 0, 255];
    let Some((sx, sy)) = source_texel(rect, (frame.width(), frame.height()), px, py) else {
        return BLACK;
    };
    let (dx, dy) = frame.offset_pixels();
    let (sx, sy) = (sx as i64 - dx as i64, sy as i64 - dy as i64);
    if sx < 0 || sy < 0 || sx >= frame.width() as i64 || sy >= frame.height() as i64 {
        return BLACK;
    }
    let (sx, sy) = (sx as u32, sy as u32);
    let own = frame.get(sx, sy);
    let a = frame.deflicker_alpha() as u32;
    if a == 0 || sy == 0 {
        return [own[0], own[1], own[2], 255];
    }
    let up = frame.get(sx, sy - 1);
    [
        mix(up[0], own[0], a),
        mix(up[1], own[1], a),
        mix(up[2], own[2], a),
        255,
    ]
}

/// Texel (`sx`, `sy`) of `frame` before the display offset moves it: black where the picture
/// is not (moved away, or outside it), the line above mixed in by the deflicker.
fn fetch(frame: &Frame, sx: i64, sy: i64) -> [u32; 3] {
    let (dx, dy) = frame.offset_pixels();
    let (sx, sy) = (sx - dx as i64, sy - dy as i64);
    if sx < 0 || sy < 0 || sx >= frame.width() as i64 || sy >= frame.height() as i64 {
        return [0; 3];
    }
    let (sx, sy) = (sx as u32, sy as u32);
    let own = frame.get(sx, sy);
    let a = frame.deflicker_alpha() as u32;
    if a == 0 || sy == 0 {
        return [own[0] as u32, own[1] as u32, own[2] as u32];
    }
    let up = frame.get(sx, sy - 1);
    [0, 1, 2].map(|c| mix(up[c], own[c], a) as u32)
}

/// Sharp bilinear ([`sharp_axis`]): the four texels around the pixel's centre, weighted in
/// 1/65536ths, rounded to nearest.
pub fn pixel_sharp(frame: &Frame, rect: Rect, px: u32, py: u32) -> [u8; 4] {
    if px < rect.x || py < rect.y || px >= rect.x + rect.width || py >= rect.y + rect.height {
        return [0, 0, 0, 255];
    }
    let (x, wx) = sharp_axis(px - rect.x, rect.width, frame.width());
    let (y, wy) = sharp_axis(py - rect.y, rect.height, frame.height());
    let (c00, c10) = (fetch(frame, x, y), fetch(frame, x + 1, y));
    let (c01, c11) = (fetch(frame, x, y + 1), fetch(frame, x + 1, y + 1));
    let (ax, ay) = (256 - wx, 256 - wy);
    let v = |c: usize| {
        ((c00[c] * ax * ay + c10[c] * wx * ay + c01[c] * ax * wy + c11[c] * wx * wy + 32768) >> 16)
            as u8
    };
    [v(0), v(1), v(2), 255]
}

/// `frame` presented into a `width` x `height` target (4:3 letterboxed, nearest): RGBA8 rows.
pub fn present(frame: &Frame, width: u32, height: u32) -> Vec<u8> {
    present_with(
        frame,
        width,
        height,
        Scaling {
            filter: Filter::Nearest,
            stretch: false,
        },
    )
}

/// `frame` presented into a `width` x `height` target with `scaling`: RGBA8 rows.
pub fn present_with(frame: &Frame, width: u32, height: u32, scaling: Scaling) -> Vec<u8> {
    let rect = picture_rect(width, height, scaling.stretch);
    let mut out = Vec::with_capacity(width as usize * height as usize * 4);
    for y in 0..height {
        for x in 0..width {
            out.extend_from_slice(&match scaling.filter {
                Filter::Nearest => pixel(frame, rect, x, y),
                Filter::Sharp => pixel_sharp(frame, rect, x, y),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 8 x 4, pixel (x, y) = (x + 1, y + 1, 0).
    fn ramp() -> Frame {
        let mut px = Vec::new();
        for y in 0..4u8 {
            for x in 0..8u8 {
                px.extend_from_slice(&[x + 1, y + 1, 0, 255]);
            }
        }
        Frame::new(8, 4, px).unwrap()
    }

    fn at(img: &[u8], w: u32, x: u32, y: u32) -> [u8; 4] {
        let i = ((y * w + x) * 4) as usize;
        img[i..i + 4].try_into().unwrap()
    }

    #[test]
    fn offset_moves_the_picture_leaving_black() {
        // The same expectations as piney_gs's presenter test: x 15 clocks -> 3 pixels right,
        // y -1 -> one row up; presented 1:1 (a rectangle the frame's own size).
        let f = ramp().with_offset(3, -1);
        let rect = Rect {
            x: 0,
            y: 0,
            width: 8,
            height: 4,
        };
        assert_eq!(f.offset_pixels(), (3, -1));
        assert_eq!(pixel(&f, rect, 0, 0), [0, 0, 0, 255]);
        assert_eq!(pixel(&f, rect, 3, 0), [1, 2, 0, 255]);
        assert_eq!(pixel(&f, rect, 7, 2), [5, 4, 0, 255]);
        assert_eq!(pixel(&f, rect, 4, 3), [0, 0, 0, 255]);
        // 9 native pixels left; at render scale 2 that is 18 frame pixels.
        let mut g = Frame::new(16, 1, vec![9; 64]).unwrap().with_offset(-9, 0);
        assert_eq!(g.offset_pixels(), (-9, 0));
        g.scale = 2;
        assert_eq!(g.offset_pixels(), (-18, 0));
        g.offset_y = 3;
        assert_eq!(g.offset_pixels(), (-18, 6));
    }

    #[test]
    fn letterboxed_and_stretched() {
        // 8 x 4 into 20 x 10: the 4:3 box is 13 x 10 at x 3. Texel x = px * 8 / 13,
        // y = py * 4 / 10.
        let f = ramp();
        let img = present(&f, 20, 10);
        assert_eq!(at(&img, 20, 2, 5), [0, 0, 0, 255]);
        assert_eq!(at(&img, 20, 16, 5), [0, 0, 0, 255]);
        assert_eq!(at(&img, 20, 3, 0), [1, 1, 0, 255]);
        assert_eq!(at(&img, 20, 15, 9), [8, 4, 0, 255]);
        assert_eq!(at(&img, 20, 3 + 7, 5), [5, 3, 0, 255]); // 7*8/13 = 4, 5*4/10 = 2
    }

    #[test]
    fn sharp_at_an_integer_factor_is_nearest() {
        let f = ramp().with_offset(1, 1);
        let sharp = Scaling {
            filter: Filter::Sharp,
            stretch: true,
        };
        let nearest = Scaling {
            filter: Filter::Nearest,
            stretch: true,
        };
        assert_eq!(
            present_with(&f, 24, 12, sharp),
            present_with(&f, 24, 12, nearest)
        );
        // Not an integer factor: somewhere a pixel mixes two texels (x: 8 into 20).
        assert_ne!(
            present_with(&f, 20, 12, sharp),
            present_with(&f, 20, 12, nearest)
        );
        // Where texels (0, 0) = (1, 1, 0) and (1, 0) = (2, 1, 0) meet at 2.5x (offset 0):
        // x = 2 is half of each in the unsharpened mix, sharpened by k = 2.
        let g = ramp();
        let rect = Rect {
            x: 0,
            y: 0,
            width: 20,
            height: 4,
        };
        let (_, w) = sharp_axis(2, 20, 8);
        let want = ((256 - w) + 2 * w + 128) / 256;
        assert_eq!(pixel_sharp(&g, rect, 2, 0)[0] as u32, want);
    }

    #[test]
    fn deflicker_mixes_with_the_line_above() {
        let mut px = vec![0u8; 2 * 3 * 4];
        for (i, row) in [[255u8, 0, 0], [0, 255, 0], [0, 0, 255]].iter().enumerate() {
            for x in 0..2 {
                px[(i * 2 + x) * 4..(i * 2 + x) * 4 + 3].copy_from_slice(row);
            }
        }
        let mut f = Frame::new(2, 3, px).unwrap();
        f.deflicker = Some(127);
        let rect = Rect {
            x: 0,
            y: 0,
            width: 2,
            height: 3,
        };
        assert_eq!(pixel(&f, rect, 0, 0), [255, 0, 0, 255]); // the first line stays
        assert_eq!(pixel(&f, rect, 1, 1), [127, 128, 0, 255]);
        assert_eq!(pixel(&f, rect, 0, 2), [0, 127, 128, 255]);
        f.deflicker = Some(0);
        assert_eq!(pixel(&f, rect, 1, 1), [0, 255, 0, 255]);
    }
}
