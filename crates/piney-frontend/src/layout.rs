//! The presenter's geometry: where the 4:3 picture sits in a window of any size.

/// A rectangle in target pixels.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rect {
    /// Left edge.
    pub x: u32,
    /// Top edge.
    pub y: u32,
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
}

/// The largest 4:3 rectangle that fits in a `width` x `height` target, centred (black bars
/// left and right, or above and below). Sides are rounded to the nearest pixel, as
/// `piney_gs::Presenter::aspect_size` rounds (448 rows give 597 columns). An empty target
/// gives an empty rectangle.
pub fn letterbox(width: u32, height: u32) -> Rect {
    if width == 0 || height == 0 {
        return Rect::default();
    }
    let (w, h) = (width as u64, height as u64);
    let (rw, rh) = if w * 3 >= h * 4 {
        // Wider than 4:3: full height; 4h/3 rounded to nearest.
        (((h * 4 + 1) / 3).min(w), h)
    } else {
        // Taller: full width; 3w/4 rounded to nearest (halves up).
        (w, ((w * 3 + 2) / 4).min(h))
    };
    let (rw, rh) = (rw.max(1) as u32, rh.max(1) as u32);
    Rect {
        x: (width - rw) / 2,
        y: (height - rh) / 2,
        width: rw,
        height: rh,
    }
}

/// How the picture is scaled into the window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Filter {
    /// Each target pixel shows one texel (uneven pixel widths at non-integer factors).
    Nearest,
    /// Sharp bilinear: each texel is drawn as a solid block, and only the target pixel that
    /// two texels share is mixed, by how much of it each covers (8-bit weights). At an integer
    /// factor no pixel is shared: exactly nearest, no blur.
    #[default]
    Sharp,
}

/// The filter and the shape of the picture in the window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Scaling {
    /// The filter.
    pub filter: Filter,
    /// Fill the whole window (ignoring 4:3) instead of the letterbox.
    pub stretch: bool,
}

/// Where the picture goes in a `width` x `height` target: the 4:3 letterbox, or the whole
/// target when stretched.
pub fn picture_rect(width: u32, height: u32, stretch: bool) -> Rect {
    if stretch {
        Rect {
            x: 0,
            y: 0,
            width,
            height,
        }
    } else {
        letterbox(width, height)
    }
}

/// Sharp bilinear on one axis: the texel to the left (or above) of target pixel `p` (relative
/// to a rectangle `rect` pixels long over `size` texels) and the 0..=256 weight of the texel
/// after it. The pixel's centre is at texel position `(2p + 1) * size / (2 rect)`; the texel
/// before it `i = floor(position - 1/2)`; the boundary between texels i and i + 1 (at texel
/// position i + 1, target position `(i + 1) * rect / size`) splits the pixel, and the weight is
/// the share of the pixel past it: `w = clamp(256 (p + 1) - ceil(256 (i + 1) rect / size), 0,
/// 256)`, exact integer arithmetic ([`axis_table`] hands the shader these).
pub fn sharp_axis(p: u32, rect: u32, size: u32) -> (i64, u32) {
    let (p, rect, size) = (p as i64, rect.max(1) as i64, size.max(1) as i64);
    let i = ((2 * p + 1) * size - rect).div_euclid(2 * rect);
    let t = (i + 1) * rect;
    let w = 256 * (p + 1) - (256 * t + size - 1).div_euclid(size);
    (i, w.clamp(0, 256) as u32)
}

/// How many bits of an [`axis_table`] entry hold the weight (0..=256).
pub const AXIS_WEIGHT_BITS: u32 = 9;

/// The presenter's table for one axis of a picture rectangle `rect` pixels long showing `size`
/// texels: for each pixel `p` in `0..rect`, `(texel << AXIS_WEIGHT_BITS) | weight`, with
/// sharp bilinear's texel and weight ([`sharp_axis`], texel -1 before the first) or nearest's
/// texel `floor(p * size / rect)` ([`source_texel`]) and weight 0. The shader reads it instead
/// of dividing per pixel: a CPU adapter (llvmpipe) divides vectors of integers lane by lane
/// (in the window on lavapipe the tables alone took a 1024 x 768 sharp picture from 20-27 to
/// 17-24 ms; the rest of that cost was the shader's branches, see `shaders/present.wgsl`).
pub fn axis_table(rect: u32, size: u32, filter: Filter) -> Vec<i32> {
    (0..rect)
        .map(|p| {
            let (texel, weight) = match filter {
                Filter::Sharp => sharp_axis(p, rect, size),
                Filter::Nearest => ((p as u64 * size as u64 / rect.max(1) as u64) as i64, 0),
            };
            ((texel as i32) << AXIS_WEIGHT_BITS) | weight as i32
        })
        .collect()
}

/// The 4:3 size for a picture `height` rows tall: what the headless presentation renders
/// when it should equal `piney_gs::Presenter::present_4_3` (512 x 448 gives 597 x 448).
pub fn aspect_size(height: u32) -> (u32, u32) {
    (((height as u64 * 4 + 1) / 3) as u32, height)
}

/// The frame texel that target pixel (`px`, `py`) shows, before the display offset: nearest
/// neighbour, `floor(p * frame / rect)` per axis, with `p` relative to the rectangle. `None`
/// outside the rectangle. The shader does the same integer arithmetic.
pub fn source_texel(rect: Rect, frame: (u32, u32), px: u32, py: u32) -> Option<(u32, u32)> {
    if px < rect.x || py < rect.y {
        return None;
    }
    let (x, y) = (px - rect.x, py - rect.y);
    if x >= rect.width || y >= rect.height {
        return None;
    }
    Some((
        (x as u64 * frame.0 as u64 / rect.width as u64) as u32,
        (y as u64 * frame.1 as u64 / rect.height as u64) as u32,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(x: u32, y: u32, width: u32, height: u32) -> Rect {
        Rect {
            x,
            y,
            width,
            height,
        }
    }

    #[test]
    fn letterbox_for_several_windows() {
        // Exactly 4:3: the whole window.
        assert_eq!(letterbox(640, 480), r(0, 0, 640, 480));
        assert_eq!(letterbox(1024, 768), r(0, 0, 1024, 768));
        // 16:9: bars left and right.
        assert_eq!(letterbox(1920, 1080), r(240, 0, 1440, 1080));
        assert_eq!(letterbox(1280, 720), r(160, 0, 960, 720));
        // 16:10.
        assert_eq!(letterbox(1280, 800), r(106, 0, 1067, 800)); // 1066.67 -> 1067
        // Taller than 4:3: bars above and below.
        assert_eq!(letterbox(800, 800), r(0, 100, 800, 600));
        assert_eq!(letterbox(640, 1000), r(0, 260, 640, 480));
        assert_eq!(letterbox(101, 500), r(0, 212, 101, 76)); // 75.75 -> 76
        // The native picture's 4:3 size.
        assert_eq!(letterbox(597, 448), r(0, 0, 597, 448));
        assert_eq!(aspect_size(448), (597, 448));
        assert_eq!(aspect_size(480), (640, 480));
        // Tiny and empty windows.
        assert_eq!(letterbox(1, 1), r(0, 0, 1, 1));
        assert_eq!(letterbox(0, 480), Rect::default());
        assert_eq!(letterbox(640, 0), Rect::default());
        // Never outside the window, always 4:3 to the pixel.
        for (w, h) in [(3, 2), (1919, 1079), (7, 300), (300, 7), (4096, 4096)] {
            let b = letterbox(w, h);
            assert!(b.x + b.width <= w && b.y + b.height <= h, "{w}x{h}: {b:?}");
            let err = (b.width as i64 * 3 - b.height as i64 * 4).abs();
            assert!(err <= 4, "{w}x{h}: {b:?} is not 4:3");
        }
    }

    #[test]
    fn sharp_bilinear_is_nearest_at_integer_factors() {
        // 2x: every target pixel takes one texel whole (weight 0 of the next, or 256 of it).
        for p in 0..16u32 {
            let (i, w) = sharp_axis(p, 16, 8);
            let texel = i + i64::from(w == 256);
            assert!(w == 0 || w == 256, "p {p}: w {w}");
            assert_eq!(texel, i64::from(p / 2), "p {p}");
        }
        // 4.5x (8 into 36): one mixed pixel at most per boundary between two texels (7), the
        // rest solid.
        let mixed = |rect: u32, size: u32| {
            (0..rect)
                .filter(|&p| {
                    let (_, w) = sharp_axis(p, rect, size);
                    w != 0 && w != 256
                })
                .count()
        };
        assert!((1..=7).contains(&mixed(36, 8)), "{}", mixed(36, 8));
        // 1.25x (512 into 640): still at most one a boundary.
        assert!(mixed(640, 512) <= 511);
        // Walking right, the texel shown never goes back.
        let mut last = -1.0;
        for p in 0..640u32 {
            let (i, w) = sharp_axis(p, 640, 512);
            let at = i as f64 + f64::from(w) / 256.0;
            assert!(at >= last, "p {p}");
            last = at;
        }
        // The picture's first pixel is texel 0 whole, at any scale.
        for (rect, size) in [(640, 512), (36, 8), (597, 512), (1440, 512), (512, 512)] {
            let (i, w) = sharp_axis(0, rect, size);
            assert!(
                i == -1 && w == 256 || i == 0 && w == 0,
                "{rect}/{size}: {i} {w}"
            );
        }
    }

    #[test]
    fn axis_tables_hold_the_texels_and_weights() {
        let unpack = |v: i32| (v >> AXIS_WEIGHT_BITS, v & ((1 << AXIS_WEIGHT_BITS) - 1));
        for (rect, size) in [
            (597, 512),
            (1024, 512),
            (13, 8),
            (20, 8),
            (300, 448),
            (1, 1),
        ] {
            let sharp = axis_table(rect, size, Filter::Sharp);
            let nearest = axis_table(rect, size, Filter::Nearest);
            assert_eq!((sharp.len(), nearest.len()), (rect as usize, rect as usize));
            for p in 0..rect {
                let (i, w) = sharp_axis(p, rect, size);
                assert_eq!(
                    unpack(sharp[p as usize]),
                    (i as i32, w as i32),
                    "{rect} {size} {p}"
                );
                let r = Rect {
                    x: 0,
                    y: 0,
                    width: rect,
                    height: rect,
                };
                let (t, _) = source_texel(r, (size, size), p, 0).unwrap();
                assert_eq!(unpack(nearest[p as usize]), (t as i32, 0));
            }
        }
        // The texel before the first pixel's centre is -1 when the picture is magnified.
        assert_eq!(unpack(axis_table(1024, 512, Filter::Sharp)[0]).0, -1);
    }

    #[test]
    fn texels_are_nearest_neighbour() {
        let rect = r(80, 0, 640, 480);
        assert_eq!(source_texel(rect, (512, 448), 79, 0), None);
        assert_eq!(source_texel(rect, (512, 448), 720, 0), None);
        assert_eq!(source_texel(rect, (512, 448), 80, 0), Some((0, 0)));
        assert_eq!(source_texel(rect, (512, 448), 719, 479), Some((511, 447)));
        // 640 / 512 = 1.25 target pixels per texel: target 5 -> texel 4.
        assert_eq!(source_texel(rect, (512, 448), 85, 15), Some((4, 14)));
        // piney_gs's present_4_3 column rule at 597 x 448: x * 512 / 597.
        let native = r(0, 0, 597, 448);
        assert_eq!(source_texel(native, (512, 448), 596, 447), Some((511, 447)));
        assert_eq!(source_texel(native, (512, 448), 7, 3), Some((6, 3)));
    }
}
