//! The GIF's packet decoding, the one implementation: the machine's GIF (its three paths and
//! their arbitration) and dump replay both run a [`GifPath`] per path, so live emulation and
//! `piney replay` turn the same data into the same register writes.
//!
//! GIFtag (GS User's Manual, "GIFtag"): NLOOP bits 0-14, EOP bit 15, PRE bit 46, PRIM bits
//! 47-57, FLG bits 58-59 (0 PACKED, 1 REGLIST, 2 and 3 IMAGE), NREG bits 60-63 (0 means 16),
//! REGS bits 64-127 (4 bits each). PRE writes PRIM only in PACKED mode. In REGLIST mode each
//! register takes 64 bits, the data is padded to a whole qword, and descriptors 0xe/0xf write
//! nothing. PACKED data is converted to register values by descriptor ("PACKED Mode"); ST's Q
//! is kept for the next RGBAQ, and every GIFtag sets it back to 1.0.
//!
//! Any bit pattern is a valid GIF stream: nothing here fails or panics.

use crate::draw::Renderer;
use crate::gs::{Gs, GsError, reg};

/// Where decoded GIF data goes: register writes (PACKED data already converted) and IMAGE
/// qwords (HWREG, a host->local transfer).
pub trait GifSink {
    /// A write of `value` to GS register `reg`.
    fn write_reg(&mut self, reg: u8, value: u64);
    /// One qword of IMAGE data.
    fn write_image(&mut self, qword: u128);
}

/// A GIFtag's data format (FLG).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Flg {
    /// FLG 0: each qword is one register, converted by its descriptor.
    #[default]
    Packed,
    /// FLG 1: each 64-bit half is one register's raw value.
    Reglist,
    /// FLG 2 (and 3): the qwords go to HWREG.
    Image,
}

/// 1.0 as f32 bits: Q after a GIFtag.
const ONE_F32: u32 = 0x3f80_0000;

/// The tag state of one GIF path, kept across transfers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GifPath {
    /// Loops left; 0 means the next qword is a GIFtag.
    nloop: u32,
    nreg: u32,
    regs: u64,
    /// The descriptor index within one loop.
    reg: u32,
    flg: Flg,
    eop: bool,
    /// A packet started and its EOP tag's data is not done (the path holds the GIF).
    in_packet: bool,
    /// Q of the last PACKED ST (f32 bits).
    q: u32,
    /// The last GIFtag.
    tag: u128,
}

impl Default for GifPath {
    fn default() -> Self {
        Self::new()
    }
}

impl GifPath {
    /// A path waiting for a GIFtag.
    pub fn new() -> Self {
        GifPath {
            nloop: 0,
            nreg: 16,
            regs: 0,
            reg: 0,
            flg: Flg::Packed,
            eop: false,
            in_packet: false,
            q: ONE_F32,
            tag: 0,
        }
    }

    /// True when the next qword is a GIFtag.
    pub fn idle(&self) -> bool {
        self.nloop == 0
    }

    /// True while a packet holds the path: from a GIFtag until the data of a tag with EOP is
    /// done.
    pub fn in_packet(&self) -> bool {
        self.in_packet
    }

    /// True inside IMAGE data.
    pub fn in_image(&self) -> bool {
        self.nloop > 0 && self.flg == Flg::Image
    }

    /// Loops left of the current tag (GIF_CNT.LOOPCNT).
    pub fn nloop(&self) -> u32 {
        self.nloop
    }

    /// The register descriptor index within the loop (GIF_CNT.REGCNT).
    pub fn reg_index(&self) -> u32 {
        self.reg
    }

    /// The EOP flag of the last GIFtag.
    pub fn eop(&self) -> bool {
        self.eop
    }

    /// The last GIFtag (GIF_TAG0..3).
    pub fn tag(&self) -> u128 {
        self.tag
    }

    /// One qword of this path's data.
    pub fn step(&mut self, qw: u128, out: &mut dyn GifSink) {
        if self.nloop == 0 {
            self.read_tag(qw, out);
            return;
        }
        match self.flg {
            Flg::Packed => {
                let desc = ((self.regs >> (4 * self.reg)) & 0xf) as u8;
                self.packed(desc, qw, out);
                self.advance_reg();
            }
            Flg::Reglist => {
                for half in [qw as u64, (qw >> 64) as u64] {
                    if self.nloop == 0 {
                        // The odd last register's qword is padded.
                        break;
                    }
                    let desc = ((self.regs >> (4 * self.reg)) & 0xf) as u8;
                    // REGLIST descriptors 0x0-0xd name the registers at those addresses; A+D
                    // (0xe) and NOP (0xf) write nothing.
                    if desc < 0xe {
                        out.write_reg(desc, half);
                    }
                    self.advance_reg();
                }
            }
            Flg::Image => {
                out.write_image(qw);
                self.nloop -= 1;
            }
        }
        self.end_check();
    }

    /// Feeds qwords of GIF data to a GS. Register errors (an unknown A+D address, which the
    /// hardware ignores) are reported after the whole buffer is processed, the first one only.
    pub fn feed<R: Renderer>(&mut self, gs: &mut Gs<R>, data: &[u128]) -> Result<(), GsError> {
        let mut sink = GsFeed {
            gs,
            first_err: None,
        };
        for q in data {
            self.step(*q, &mut sink);
        }
        match sink.first_err {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn advance_reg(&mut self) {
        self.reg += 1;
        if self.reg >= self.nreg {
            self.reg = 0;
            self.nloop -= 1;
        }
    }

    fn end_check(&mut self) {
        if self.nloop == 0 && self.eop {
            self.in_packet = false;
        }
    }

    fn read_tag(&mut self, tag: u128, out: &mut dyn GifSink) {
        let lo = tag as u64;
        let pre = (lo >> 46) & 1 != 0;
        let prim = (lo >> 47) & 0x7ff;
        self.nloop = (lo & 0x7fff) as u32;
        self.eop = lo & 0x8000 != 0;
        self.flg = match (lo >> 58) & 3 {
            0 => Flg::Packed,
            1 => Flg::Reglist,
            _ => Flg::Image,
        };
        self.nreg = match (lo >> 60) as u32 {
            0 => 16,
            n => n,
        };
        self.regs = (tag >> 64) as u64;
        self.reg = 0;
        self.tag = tag;
        self.in_packet = true;
        // Q is reset to 1.0 by every GIFtag.
        self.q = ONE_F32;
        if pre && self.flg == Flg::Packed {
            out.write_reg(reg::PRIM, prim);
        }
        self.end_check();
    }

    /// PACKED-mode conversion of one qword by register descriptor `desc`.
    fn packed(&mut self, desc: u8, qw: u128, out: &mut dyn GifSink) {
        let w = |i: u32| (qw >> (32 * i)) as u32 as u64;
        let lo = qw as u64;
        match desc {
            // PRIM: bits 0-10.
            0x0 => out.write_reg(reg::PRIM, lo & 0x7ff),
            // RGBAQ: R, G, B, A in the low bytes of the four words; Q from the last ST.
            0x1 => {
                let v =
                    (w(0) & 0xff) | (w(1) & 0xff) << 8 | (w(2) & 0xff) << 16 | (w(3) & 0xff) << 24;
                out.write_reg(reg::RGBAQ, v | (self.q as u64) << 32);
            }
            // ST: S and T as given; Q (word 2) is kept for the next RGBAQ.
            0x2 => {
                self.q = w(2) as u32;
                out.write_reg(reg::ST, lo);
            }
            // UV: 14-bit U and V.
            0x3 => out.write_reg(reg::UV, (w(0) & 0x3fff) | (w(1) & 0x3fff) << 16),
            // XYZF2: X, Y 16 bits; Z bits 4-27 of word 2; F bits 4-11 of word 3; ADC (bit 111)
            // makes it XYZF3 (no drawing kick), as the XYZF3 descriptor does.
            0x4 | 0xc => {
                let adc = w(3) >> 15 & 1 != 0;
                let v = (w(0) & 0xffff)
                    | (w(1) & 0xffff) << 16
                    | ((w(2) >> 4) & 0xff_ffff) << 32
                    | ((w(3) >> 4) & 0xff) << 56;
                let r = if desc == 0xc || adc {
                    reg::XYZF3
                } else {
                    reg::XYZF2
                };
                out.write_reg(r, v);
            }
            // XYZ2: X, Y 16 bits; Z the whole word 2; ADC makes it XYZ3.
            0x5 | 0xd => {
                let adc = w(3) >> 15 & 1 != 0;
                let v = (w(0) & 0xffff) | (w(1) & 0xffff) << 16 | w(2) << 32;
                let r = if desc == 0xd || adc {
                    reg::XYZ3
                } else {
                    reg::XYZ2
                };
                out.write_reg(r, v);
            }
            // TEX0_1, TEX0_2, CLAMP_1, CLAMP_2: the low 64 bits as they are.
            0x6..=0x9 => out.write_reg(desc, lo),
            // FOG: F in bits 100-107.
            0xa => out.write_reg(reg::FOG, ((w(3) >> 4) & 0xff) << 56),
            // A+D: the register number in bits 64-71, the value in the low 64 bits.
            0xe => out.write_reg((qw >> 64) as u8, lo),
            // 0xb is reserved and 0xf is NOP: nothing is written.
            _ => {}
        }
    }
}

/// A [`Gs`] as a [`GifSink`], keeping the first register error.
struct GsFeed<'a, R: Renderer> {
    gs: &'a mut Gs<R>,
    first_err: Option<GsError>,
}

impl<R: Renderer> GifSink for GsFeed<'_, R> {
    fn write_reg(&mut self, reg: u8, value: u64) {
        if let Err(e) = self.gs.write_reg(reg, value) {
            self.first_err.get_or_insert(e);
        }
    }
    fn write_image(&mut self, qword: u128) {
        self.gs.write_image(&[qword]);
    }
}

/// Builds a GIFtag (for tests and tools).
pub fn gif_tag(nloop: u32, eop: bool, prim: Option<u64>, flg: u64, regs: &[u8]) -> u128 {
    let mut lo = (nloop as u64 & 0x7fff)
        | ((eop as u64) << 15)
        | ((flg & 3) << 58)
        | (((regs.len() as u64) & 0xf) << 60);
    if let Some(p) = prim {
        lo |= (1 << 46) | ((p & 0x7ff) << 47);
    }
    let mut hi = 0u64;
    for (i, r) in regs.iter().enumerate() {
        hi |= ((*r as u64) & 0xf) << (i * 4);
    }
    lo as u128 | ((hi as u128) << 64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gs::reg;
    use crate::psm::Psm;
    use crate::sw::SoftwareRenderer;

    #[test]
    fn packed_reglist_image() {
        let mut gs = Gs::new(SoftwareRenderer::new());
        let mut path = GifPath::new();
        // A+D setup: FRAME_1, SCISSOR_1, TEST_1.
        let ad = |r: u8, v: u64| v as u128 | ((r as u128) << 64);
        let mut pkt = vec![gif_tag(3, false, None, 0, &[0xe])];
        pkt.push(ad(reg::FRAME_1, 1 << 16));
        pkt.push(ad(reg::SCISSOR_1, 63 << 16 | (63u64 << 48)));
        pkt.push(ad(reg::TEST_1, 3 << 16));
        // PACKED sprite with PRE: RGBAQ, XYZ2, XYZ2.
        pkt.push(gif_tag(1, false, Some(6), 0, &[0x1, 0x5, 0x5]));
        pkt.push(0xff | (0x80u128 << 96));
        pkt.push(0);
        pkt.push(32 | (32 << 32));
        // Split across two feeds.
        path.feed(&mut gs, &pkt[..5]).unwrap();
        path.feed(&mut gs, &pkt[5..]).unwrap();
        assert!(path.idle());
        assert_eq!(
            gs.local_memory().read_pixel(Psm::Ct32, 1, 1, 0, 1),
            0x8000_00ff
        );
        // REGLIST: RGBAQ, XYZ2 x 2 (3 registers, 1 loop: the last qword's upper half is padding).
        let pkt = [
            gif_tag(1, false, None, 1, &[0x1, 0x5, 0x5]),
            0x0000_ff00u128 | (32u128 << 64), // RGBAQ, then XYZ2 (2, 0)
            (48 | (16 << 16)) as u128 | (0xdead_u128 << 64),
        ];
        path.feed(&mut gs, &pkt).unwrap();
        assert!(path.idle());
        assert_eq!(
            gs.local_memory().read_pixel(Psm::Ct32, 2, 0, 0, 1) & 0xffff,
            0xff00
        );
        // IMAGE: a 4x1 PSMCT32 transfer.
        let mut pkt = vec![gif_tag(4, false, None, 0, &[0xe])];
        pkt.push(ad(reg::BITBLTBUF, (0x100u64 << 32) | (1u64 << 48)));
        pkt.push(ad(reg::TRXPOS, 0));
        pkt.push(ad(reg::TRXREG, 4 | (1 << 32)));
        pkt.push(ad(reg::TRXDIR, 0));
        pkt.push(gif_tag(1, true, None, 2, &[]));
        pkt.push(1 | (2 << 32) | (3 << 64) | (4 << 96));
        path.feed(&mut gs, &pkt).unwrap();
        assert_eq!(gs.local_memory().read_pixel(Psm::Ct32, 3, 0, 0x100, 1), 4);
        assert!(path.idle());
    }

    /// Records what a path writes.
    #[derive(Default, serde::Serialize, serde::Deserialize)]
    struct Log(Vec<(u8, u64)>);
    impl GifSink for Log {
        fn write_reg(&mut self, reg: u8, value: u64) {
            self.0.push((reg, value));
        }
        fn write_image(&mut self, qword: u128) {
            self.0.push((0x54, qword as u64));
        }
    }

    #[test]
    fn st_keeps_q_for_the_next_rgbaq_and_a_tag_resets_it() {
        let mut path = GifPath::new();
        let mut log = Log::default();
        let two = 2.0f32.to_bits() as u128;
        // ST with Q = 2.0, then RGBAQ: Q rides on RGBAQ, ST's own write is S and T only.
        for q in [
            gif_tag(1, false, None, 0, &[0x2, 0x1]),
            1 | 2 << 32 | two << 64,
            0x11 | 0x22 << 32 | 0x33 << 64 | 0x44 << 96,
        ] {
            path.step(q, &mut log);
        }
        assert_eq!(
            log.0,
            vec![
                (reg::ST, 1 | 2 << 32),
                (reg::RGBAQ, 0x4433_2211 | (2.0f32.to_bits() as u64) << 32)
            ]
        );
        // A new tag: RGBAQ's Q is 1.0 again. ADC turns XYZ2 into XYZ3; PRE writes PRIM.
        log.0.clear();
        for q in [
            gif_tag(1, true, Some(6), 0, &[0x1, 0x5]),
            0x80 << 96,
            7 | 8 << 32 | 9 << 64 | 1 << 111,
        ] {
            path.step(q, &mut log);
        }
        assert_eq!(
            log.0,
            vec![
                (reg::PRIM, 6),
                (reg::RGBAQ, 0x8000_0000 | (1.0f32.to_bits() as u64) << 32),
                (reg::XYZ3, 7 | 8 << 16 | 9 << 32)
            ]
        );
        assert!(path.idle() && !path.in_packet());
    }

    #[test]
    fn a_packet_holds_the_path_until_its_eop_tags_data_is_done() {
        let mut path = GifPath::new();
        let mut log = Log::default();
        path.step(gif_tag(1, false, None, 2, &[]), &mut log);
        assert!(path.in_packet() && path.in_image());
        path.step(5, &mut log);
        // Not EOP: still held between tags.
        assert!(path.idle() && path.in_packet());
        path.step(gif_tag(0, true, None, 0, &[]), &mut log);
        assert!(!path.in_packet());
        assert_eq!(log.0, vec![(0x54, 5)]);
    }
}
