//! GIF packet parsing for the GS side (dump replay and tests): GIFtags and their PACKED,
//! REGLIST and IMAGE data, fed to a [`Gs`].
//!
//! GIFtag (GS User's Manual, "GIFtag"): NLOOP bits 0-14, EOP bit 15, PRE bit 46, PRIM bits
//! 47-57, FLG bits 58-59 (0 PACKED, 1 REGLIST, 2 and 3 IMAGE), NREG bits 60-63 (0 means 16),
//! REGS bits 64-127 (4 bits each). PRE writes PRIM only in PACKED mode. In REGLIST mode each
//! register takes 64 bits, the data is padded to a whole qword, and descriptors 0xe/0xf write
//! nothing.

use crate::draw::Renderer;
use crate::gs::{Gs, GsError};

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Mode {
    #[default]
    Tag,
    Packed,
    Reglist,
    Image,
}

/// The tag state of one GIF path, kept across transfers.
#[derive(Debug, Clone, Default)]
pub struct GifPath {
    mode: Mode,
    nloop: u32,
    nreg: u32,
    regs: u64,
    reg: u32,
    /// The EOP flag of the last GIFtag.
    pub eop_seen: bool,
}

impl GifPath {
    /// A path waiting for a GIFtag.
    pub fn new() -> Self {
        Self::default()
    }

    /// True when the path is between packets (waiting for a tag).
    pub fn idle(&self) -> bool {
        self.mode == Mode::Tag
    }

    fn start_tag<R: Renderer>(&mut self, gs: &mut Gs<R>, tag: u128) -> Result<(), GsError> {
        let lo = tag as u64;
        self.nloop = (lo & 0x7fff) as u32;
        self.eop_seen = (lo >> 15) & 1 != 0;
        let pre = (lo >> 46) & 1 != 0;
        let prim = (lo >> 47) & 0x7ff;
        let flg = (lo >> 58) & 3;
        let nreg = ((lo >> 60) & 0xf) as u32;
        self.nreg = if nreg == 0 { 16 } else { nreg };
        self.regs = (tag >> 64) as u64;
        self.reg = 0;
        self.mode = match flg {
            0 => {
                if pre {
                    gs.write_reg(crate::gs::reg::PRIM, prim)?;
                }
                Mode::Packed
            }
            1 => Mode::Reglist,
            _ => Mode::Image,
        };
        if self.nloop == 0 {
            self.mode = Mode::Tag;
        }
        Ok(())
    }

    fn desc(&self) -> u8 {
        ((self.regs >> (self.reg * 4)) & 0xf) as u8
    }

    /// Advances to the next register; returns true when the whole packet is done.
    fn next_reg(&mut self) -> bool {
        self.reg += 1;
        if self.reg == self.nreg {
            self.reg = 0;
            self.nloop -= 1;
            if self.nloop == 0 {
                self.mode = Mode::Tag;
                return true;
            }
        }
        false
    }

    /// Feeds qwords of GIF data. Register errors (an unknown A+D address) are reported after
    /// the whole buffer is processed, the first one only.
    pub fn feed<R: Renderer>(&mut self, gs: &mut Gs<R>, data: &[u128]) -> Result<(), GsError> {
        let mut first_err = None;
        let mut note = |r: Result<(), GsError>| {
            if let Err(e) = r {
                first_err.get_or_insert(e);
            }
        };
        let mut i = 0;
        while i < data.len() {
            let q = data[i];
            match self.mode {
                Mode::Tag => {
                    note(self.start_tag(gs, q));
                    i += 1;
                }
                Mode::Packed => {
                    note(gs.write_packed(self.desc(), q));
                    self.next_reg();
                    i += 1;
                }
                Mode::Reglist => {
                    for half in [q as u64, (q >> 64) as u64] {
                        let d = self.desc();
                        if d < 0xe {
                            // REGLIST descriptors 0x0-0xd name the registers at those addresses.
                            note(gs.write_reg(d, half));
                        }
                        if self.next_reg() {
                            break; // the rest of the qword is padding
                        }
                    }
                    i += 1;
                }
                Mode::Image => {
                    let n = (self.nloop as usize).min(data.len() - i);
                    gs.write_image(&data[i..i + n]);
                    self.nloop -= n as u32;
                    if self.nloop == 0 {
                        self.mode = Mode::Tag;
                    }
                    i += n;
                }
            }
        }
        match first_err {
            Some(e) => Err(e),
            None => Ok(()),
        }
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
}
