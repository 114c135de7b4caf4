//! The EE's side of SIF0 for IOP tests: a stand-in for the EE DMAC's channel 5 that takes the
//! IOP's SIF0 FIFO words into the IOP's view of EE RAM (each transfer: a 4-word tag naming the
//! destination and quadword count, then its quadwords).

// Each test binary that includes this module uses a part of it.
#![allow(dead_code)]

use piney_iop::Iop;

/// The tag words read so far and the transfer under way (destination, words left).
#[derive(Debug, Default)]
pub struct Sif0Sink {
    tag: Vec<u32>,
    cur: Option<(usize, u32)>,
}

impl Sif0Sink {
    /// True between transfers (no tag half read, no data left).
    pub fn idle(&self) -> bool {
        self.cur.is_none() && self.tag.is_empty()
    }

    /// Moves every word now in SIF0's FIFO into EE RAM, then lets the IOP's side go on.
    pub fn pump(&mut self, iop: &mut Iop) {
        while let Some(word) = iop.bus.hw.sif.fifo0.pop_front() {
            match &mut self.cur {
                None => {
                    self.tag.push(word);
                    if self.tag.len() == 4 {
                        let qwc = self.tag[0] & 0xffff;
                        let dest = (self.tag[1] & 0x1fff_ffff) as usize;
                        self.tag.clear();
                        if qwc > 0 {
                            self.cur = Some((dest, qwc * 4));
                        }
                    }
                }
                Some((dest, left)) => {
                    iop.ee_ram[*dest..*dest + 4].copy_from_slice(&word.to_le_bytes());
                    *dest += 4;
                    *left -= 1;
                    if *left == 0 {
                        self.cur = None;
                    }
                }
            }
        }
        iop.bus.hw.sif.iop_wake = true;
    }

    /// Runs the IOP until everything queued on SIF0 crossed into EE RAM.
    pub fn deliver(&mut self, iop: &mut Iop) {
        for _ in 0..100_000 {
            let t = iop.cycles() + 2000;
            iop.run_until(t).unwrap();
            self.pump(iop);
            let s = &iop.kernel.sifman;
            if s.running.is_none() && s.waiting.is_empty() && iop.bus.hw.sif.fifo0.is_empty() {
                assert!(self.idle(), "a partial transfer");
                return;
            }
        }
        panic!("SIF0 did not finish");
    }
}
