//! Colour space conversion and packing: YCbCr (raw8 macroblock) to RGB32, RGB32 to RGB16 with
//! optional dithering, RGB16 to 4-bit indices through the VQ CLUT, and the alpha thresholds.
//!
//! Facts (PCSX2's IPU model, which documents them as the hardware's integer method; BT.601):
//! - Y' = max(0, Y - 16) x 0x95 >> 6; the chroma terms are (C - 128) x k >> 6 (arithmetic shift)
//!   with k = 0xcc (Cr to R), -0x68 (Cr to G), -0x32 (Cb to G), 0x102 (Cb to B); each channel
//!   is (Y' + terms + 1) >> 1 saturated to 0..=255. Chroma is shared by 2x2 pixels.
//! - RGB32 alpha is 0x80. With the thresholds of SETTH: a pixel whose R, G and B are all below
//!   TH0 becomes 0 (alpha included); otherwise, if all are below TH1, its alpha is 0x40.
//! - RGB16 is R bits 0-4, G 5-9, B 10-14 (each channel >> 3) and A bit 15 = (alpha32 == 0x40).
//!   Dithering adds this matrix, by (row & 3, column & 3), to each channel before the shift,
//!   saturating: [-4 0 -3 1] [2 -2 3 -1] [-3 1 -4 0] [3 -1 2 -2].
//! - INDX4: each RGB16 pixel's index is the VQCLUT entry nearest in squared 5-bit R, G, B
//!   distance (the lowest index on a tie); two pixels a byte, the left one in the low nibble.

/// The Y, Cb and Cr of one macroblock: 256 Y (16x16, row-major), 64 Cb, 64 Cr (8x8 each).
pub type Raw8 = [u8; 384];

/// The alpha thresholds set by SETTH (9 bits each).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Thresholds {
    /// TH0: below it (in R, G and B) a pixel is transparent black.
    pub th0: u16,
    /// TH1: below it (in R, G and B) a pixel's alpha is 0x40.
    pub th1: u16,
}

/// One pixel of YCbCr to (R, G, B).
pub fn ycbcr_to_rgb(y: u8, cb: u8, cr: u8) -> [u8; 3] {
    let lum = (0x95 * (y as i32 - 16).max(0)) >> 6;
    let cr = cr as i32 - 128;
    let cb = cb as i32 - 128;
    let rcr = (0xcc * cr) >> 6;
    let gcr = (-0x68 * cr) >> 6;
    let gcb = (-0x32 * cb) >> 6;
    let bcb = (0x102 * cb) >> 6;
    let ch = |v: i32| ((v + 1) >> 1).clamp(0, 255) as u8;
    [ch(lum + rcr), ch(lum + gcr + gcb), ch(lum + bcb)]
}

/// A macroblock to RGB32 (256 pixels, R | G << 8 | B << 16 | A << 24), thresholds applied.
pub fn csc(mb: &Raw8, th: Thresholds) -> [u32; 256] {
    let mut out = [0u32; 256];
    for y in 0..16 {
        for x in 0..16 {
            let c = (y / 2) * 8 + x / 2;
            let [r, g, b] = ycbcr_to_rgb(mb[y * 16 + x], mb[256 + c], mb[320 + c]);
            let below = |t: u16| (r as u16) < t && (g as u16) < t && (b as u16) < t;
            out[y * 16 + x] = if below(th.th0) {
                0
            } else {
                let a: u32 = if below(th.th1) { 0x40 } else { 0x80 };
                r as u32 | (g as u32) << 8 | (b as u32) << 16 | a << 24
            };
        }
    }
    out
}

const DITHER: [[i32; 4]; 4] = [
    [-4, 0, -3, 1],
    [2, -2, 3, -1],
    [-3, 1, -4, 0],
    [3, -1, 2, -2],
];

/// RGB32 pixels (16x16) to RGB16, with dithering when `dte`.
pub fn to_rgb16(px: &[u32; 256], dte: bool) -> [u16; 256] {
    let mut out = [0u16; 256];
    for y in 0..16 {
        for x in 0..16 {
            let p = px[y * 16 + x];
            let d = if dte { DITHER[y & 3][x & 3] } else { 0 };
            let ch = |s: u32| (((p >> s & 0xff) as i32 + d).clamp(0, 255) >> 3) as u16;
            let a = u16::from(p >> 24 == 0x40);
            out[y * 16 + x] = ch(0) | ch(8) << 5 | ch(16) << 10 | a << 15;
        }
    }
    out
}

/// RGB16 pixels (16x16) to INDX4 (128 bytes) through the 16-entry CLUT.
pub fn to_indx4(px: &[u16; 256], clut: &[u16; 16]) -> [u8; 128] {
    let parts = |c: u16| [(c & 31) as i32, (c >> 5 & 31) as i32, (c >> 10 & 31) as i32];
    let nearest = |p: u16| {
        let [r, g, b] = parts(p);
        let mut best = (i32::MAX, 0u8);
        for (k, &e) in clut.iter().enumerate() {
            let [er, eg, eb] = parts(e);
            let d = (r - er).pow(2) + (g - eg).pow(2) + (b - eb).pow(2);
            if d < best.0 {
                best = (d, k as u8);
            }
        }
        best.1
    };
    let mut out = [0u8; 128];
    for (i, o) in out.iter_mut().enumerate() {
        *o = nearest(px[2 * i]) | nearest(px[2 * i + 1]) << 4;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_colours_by_hand() {
        // Black: Y 16, no chroma: lum 0, every channel (0 + 1) >> 1 = 0.
        assert_eq!(ycbcr_to_rgb(16, 128, 128), [0, 0, 0]);
        // White: Y 235: lum = 219 x 149 >> 6 = 32631 >> 6 = 509; (509 + 1) >> 1 = 255.
        assert_eq!(ycbcr_to_rgb(235, 128, 128), [255, 255, 255]);
        // Mid grey Y 126: lum = 110 x 149 >> 6 = 16390 >> 6 = 256; (257) >> 1 = 128.
        assert_eq!(ycbcr_to_rgb(126, 128, 128), [128, 128, 128]);
        // Red-ish: Y 81, Cb 90, Cr 240. lum = 65 x 149 >> 6 = 9685 >> 6 = 151.
        // Cr-128 = 112: rcr = 112 x 204 >> 6 = 22848 >> 6 = 357; gcr = -11648 >> 6 = -182.
        // Cb-128 = -38: gcb = 1900 >> 6 = 29; bcb = -9804 >> 6 = -154 (floor).
        // R = (151 + 357 + 1) >> 1 = 254; G = (151 - 182 + 29 + 1) >> 1 = -1 >> 1 = -1 -> 0;
        // B = (151 - 154 + 1) >> 1 = -1 -> 0.
        assert_eq!(ycbcr_to_rgb(81, 90, 240), [254, 0, 0]);
    }

    #[test]
    fn thresholds_and_rgb16() {
        let mut mb = [128u8; 384];
        mb[..256].fill(16); // black
        mb[0] = 126; // one grey pixel (128, 128, 128)
        let px = csc(&mb, Thresholds::default());
        assert_eq!(px[1], 0x8000_0000);
        assert_eq!(px[0], 0x8080_8080);
        let px = csc(&mb, Thresholds { th0: 1, th1: 129 });
        assert_eq!(px[1], 0, "black below TH0 is transparent black");
        assert_eq!(px[0], 0x4080_8080, "grey below TH1 gets alpha 0x40");
        let p16 = to_rgb16(&px, false);
        assert_eq!(p16[0], 16 | 16 << 5 | 16 << 10 | 1 << 15);
        // Dither at (0,0) is -4: 124 >> 3 = 15.
        let p16 = to_rgb16(&px, true);
        assert_eq!(p16[0], 15 | 15 << 5 | 15 << 10 | 1 << 15);
    }

    #[test]
    fn indx4_picks_the_nearest_entry_lowest_on_ties() {
        let mut clut = [0u16; 16];
        clut[3] = 31; // pure red
        clut[5] = 31; // the same red: index 3 wins
        clut[7] = 31 << 10; // blue
        let mut px = [0u16; 256];
        px[0] = 30;
        px[1] = 29 << 10;
        let ix = to_indx4(&px, &clut);
        assert_eq!(ix[0], 3 | 7 << 4);
        assert_eq!(ix[1], 0);
    }
}
