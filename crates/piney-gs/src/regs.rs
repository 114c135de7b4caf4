//! GS register layouts: each register is a `u64` newtype with one accessor per field.
//!
//! Field positions are from the GS User's Manual register descriptions (the same as PCSX2
//! `pcsx2/GS/GSRegs.h` and ps2sdk `gs_gp.h`/`gs_privileged.h`).

macro_rules! reg {
    ($(#[$m:meta])* $name:ident { $($field:ident : $lo:expr, $bits:expr;)* }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
        #[derive(serde::Serialize, serde::Deserialize)]
        pub struct $name(pub u64);
        impl $name {
            $(
                #[doc = concat!("Field `", stringify!($field), "`: bits ", stringify!($lo), "..", stringify!($lo), "+", stringify!($bits), ".")]
                pub fn $field(self) -> u32 {
                    ((self.0 >> $lo) & ((1u64 << $bits) - 1)) as u32
                }
            )*
        }
    };
}

reg!(
    /// PRIM (0x00): primitive type and attributes.
    Prim { prim: 0, 3; iip: 3, 1; tme: 4, 1; fge: 5, 1; abe: 6, 1; aa1: 7, 1; fst: 8, 1; ctxt: 9, 1; fix: 10, 1; }
);
reg!(
    /// RGBAQ (0x01): vertex colour and Q (an IEEE single in bits 32-63).
    Rgbaq { r: 0, 8; g: 8, 8; b: 16, 8; a: 24, 8; q_bits: 32, 32; }
);
reg!(
    /// ST (0x02): texture coordinates S and T as IEEE singles.
    St { s_bits: 0, 32; t_bits: 32, 32; }
);
reg!(
    /// UV (0x03): texel coordinates, unsigned 10.4 fixed point.
    Uv { u: 0, 14; v: 16, 14; }
);
reg!(
    /// XYZF2/XYZF3 (0x04/0x0c): 12.4 window coordinates, 24-bit Z, fog.
    Xyzf { x: 0, 16; y: 16, 16; z: 32, 24; f: 56, 8; }
);
reg!(
    /// XYZ2/XYZ3 (0x05/0x0d): 12.4 window coordinates, 32-bit Z.
    Xyz { x: 0, 16; y: 16, 16; z: 32, 32; }
);
reg!(
    /// FOG (0x0a): the fog coefficient in bits 56-63.
    Fog { f: 56, 8; }
);
reg!(
    /// TEX0_1/2 (0x06/0x07): texture buffer and CLUT.
    Tex0 {
        tbp0: 0, 14; tbw: 14, 6; psm: 20, 6; tw: 26, 4; th: 30, 4; tcc: 34, 1; tfx: 35, 2;
        cbp: 37, 14; cpsm: 51, 4; csm: 55, 1; csa: 56, 5; cld: 61, 3;
    }
);
reg!(
    /// CLAMP_1/2 (0x08/0x09): wrap modes and region.
    Clamp { wms: 0, 2; wmt: 2, 2; minu: 4, 10; maxu: 14, 10; minv: 24, 10; maxv: 34, 10; }
);
reg!(
    /// TEX1_1/2 (0x14/0x15): LOD and filters. K is signed 7.4 in bits 32-43.
    Tex1 { lcm: 0, 1; mxl: 2, 3; mmag: 5, 1; mmin: 6, 3; mtba: 9, 1; l: 19, 2; k: 32, 12; }
);
reg!(
    /// XYOFFSET_1/2 (0x18/0x19): the window-to-primitive offset, 12.4.
    XyOffset { ofx: 0, 16; ofy: 32, 16; }
);
reg!(
    /// TEXCLUT (0x1c): the CSM2 CLUT position.
    TexClut { cbw: 0, 6; cou: 6, 6; cov: 12, 10; }
);
reg!(
    /// MIPTBP1/MIPTBP2: base pointers and widths of mip levels 1-3 (or 4-6).
    MipTbp { tbp1: 0, 14; tbw1: 14, 6; tbp2: 20, 14; tbw2: 34, 6; tbp3: 40, 14; tbw3: 54, 6; }
);
reg!(
    /// TEXA (0x3b): alpha expansion of 24- and 16-bit texels.
    Texa { ta0: 0, 8; aem: 15, 1; ta1: 32, 8; }
);
reg!(
    /// FOGCOL (0x3d).
    FogCol { fcr: 0, 8; fcg: 8, 8; fcb: 16, 8; }
);
reg!(
    /// SCISSOR_1/2 (0x40/0x41), inclusive window coordinates.
    Scissor { scax0: 0, 11; scax1: 16, 11; scay0: 32, 11; scay1: 48, 11; }
);
reg!(
    /// ALPHA_1/2 (0x42/0x43): blend selectors ((A - B) * C >> 7) + D and FIX.
    Alpha { a: 0, 2; b: 2, 2; c: 4, 2; d: 6, 2; fix: 32, 8; }
);
reg!(
    /// TEST_1/2 (0x47/0x48): alpha, destination alpha and depth tests.
    Test { ate: 0, 1; atst: 1, 3; aref: 4, 8; afail: 12, 2; date: 14, 1; datm: 15, 1; zte: 16, 1; ztst: 17, 2; }
);
reg!(
    /// FRAME_1/2 (0x4c/0x4d): FBP counts pages (2048 words).
    Frame { fbp: 0, 9; fbw: 16, 6; psm: 24, 6; fbmsk: 32, 32; }
);
reg!(
    /// ZBUF_1/2 (0x4e/0x4f): ZBP counts pages; PSM is the low 4 bits of a PSMZ code.
    Zbuf { zbp: 0, 9; psm: 24, 4; zmsk: 32, 1; }
);
reg!(
    /// BITBLTBUF (0x50): transfer source and destination buffers.
    BitBltBuf { sbp: 0, 14; sbw: 16, 6; spsm: 24, 6; dbp: 32, 14; dbw: 48, 6; dpsm: 56, 6; }
);
reg!(
    /// TRXPOS (0x51): transfer corners and the local->local direction.
    TrxPos { ssax: 0, 11; ssay: 16, 11; dsax: 32, 11; dsay: 48, 11; dir: 59, 2; }
);
reg!(
    /// TRXREG (0x52): transfer size.
    TrxReg { rrw: 0, 12; rrh: 32, 12; }
);
reg!(
    /// SIGNAL/LABEL: ID and the mask of the bits to update.
    IdMask { id: 0, 32; idmsk: 32, 32; }
);
reg!(
    /// PMODE (privileged 0x0000): read circuits and the merge.
    Pmode { en1: 0, 1; en2: 1, 1; crtmd: 2, 3; mmod: 5, 1; amod: 6, 1; slbg: 7, 1; alp: 8, 8; }
);
reg!(
    /// SMODE2 (privileged 0x0020): interlace and field/frame mode.
    Smode2 { int: 0, 1; ffmd: 1, 1; dpms: 2, 2; }
);
reg!(
    /// DISPFB1/2 (privileged 0x0070/0x0090): FBP counts pages.
    DispFb { fbp: 0, 9; fbw: 9, 6; psm: 15, 5; dbx: 32, 11; dby: 43, 11; }
);
reg!(
    /// DISPLAY1/2 (privileged 0x0080/0x00a0): position in video clocks/lines and magnification.
    Display { dx: 0, 12; dy: 12, 11; magh: 23, 4; magv: 27, 2; dw: 32, 12; dh: 44, 11; }
);
reg!(
    /// BGCOLOR (privileged 0x00e0).
    BgColor { r: 0, 8; g: 8, 8; b: 16, 8; }
);

impl Rgbaq {
    /// Q as a float.
    pub fn q(self) -> f32 {
        f32::from_bits(self.q_bits())
    }
}

impl St {
    /// S as a float.
    pub fn s(self) -> f32 {
        f32::from_bits(self.s_bits())
    }
    /// T as a float.
    pub fn t(self) -> f32 {
        f32::from_bits(self.t_bits())
    }
}

impl Tex1 {
    /// K as a signed value in sixteenths (7.4 fixed point, sign-extended from 12 bits).
    pub fn k_signed(self) -> i32 {
        ((self.k() as i32) << 20) >> 20
    }
}

/// DIMX (0x44): the 4x4 dither matrix; each entry is a signed 3-bit value (-4..3) at bit
/// `row * 16 + col * 4`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct Dimx(pub u64);

impl Dimx {
    /// The dither value for window pixel (x, y): the entry at row y & 3, column x & 3.
    pub fn value(self, x: u32, y: u32) -> i32 {
        let sh = (y & 3) * 16 + (x & 3) * 4;
        ((((self.0 >> sh) & 7) as i32) << 29) >> 29
    }
}
