//! Helpers for the DMAC, VIF and GIF tests: register access, tag and code builders, a fake VU.
#![allow(dead_code)]

use std::sync::{Arc, Mutex};

use piney_ee::Bus;
use piney_machine::Machine;
use piney_machine::gif::GsWrite;
use piney_machine::vif::{VuExec, VuIo};

pub const D_CTRL: u32 = 0x1000_e000;
pub const D_STAT: u32 = 0x1000_e010;
pub const D_PCR: u32 = 0x1000_e020;
pub const D_SQWC: u32 = 0x1000_e030;
pub const D_RBSR: u32 = 0x1000_e040;
pub const D_RBOR: u32 = 0x1000_e050;
pub const D_STADR: u32 = 0x1000_e060;
pub const STR: u32 = 0x100;

/// Channel register address.
pub fn chreg(ch: usize, off: u32) -> u32 {
    0x1000_0000 + piney_machine::dmac::CHANNEL_BASE[ch] + off
}

pub fn machine() -> Machine {
    let mut m = Machine::new(Box::new(std::io::sink()));
    m.attach_renderer(Box::new(piney_gs::SoftwareRenderer::new()));
    m
}

/// A machine whose GIF output is recorded.
pub fn machine_rec() -> (Machine, Arc<Mutex<Vec<GsWrite>>>) {
    let mut m = machine();
    let h = m.bus.gif.gs.record();
    (m, h)
}

pub fn w32(m: &mut Machine, a: u32, v: u32) {
    m.bus.now = m.cpu.cycles;
    m.bus.write32(a, v).unwrap();
    m.update_interrupt_lines();
}

pub fn r32(m: &mut Machine, a: u32) -> u32 {
    m.bus.read32(a).unwrap()
}

pub fn put_qw(m: &mut Machine, a: u32, v: u128) {
    m.bus.ram[a as usize..a as usize + 16].copy_from_slice(&v.to_le_bytes());
}

pub fn put_words(m: &mut Machine, a: u32, w: &[u32]) {
    for (i, x) in w.iter().enumerate() {
        let o = a as usize + 4 * i;
        m.bus.ram[o..o + 4].copy_from_slice(&x.to_le_bytes());
    }
}

pub fn qw(w: [u32; 4]) -> u128 {
    w.iter().rev().fold(0u128, |a, &x| a << 32 | x as u128)
}

pub fn spr_qw(m: &Machine, o: usize) -> u128 {
    u128::from_le_bytes(m.bus.spr[o..o + 16].try_into().unwrap())
}

pub fn vu_word(m: &Machine, a: usize) -> u32 {
    u32::from_le_bytes(m.bus.vu_mem[a..a + 4].try_into().unwrap())
}

/// A source-chain DMAtag: QWC, ID, IRQ, ADDR, and the upper 64 bits.
pub fn dtag(qwc: u16, id: u32, irq: bool, addr: u32, hi: u64) -> u128 {
    let lo = qwc as u64 | (id as u64) << 28 | (irq as u64) << 31 | (addr as u64) << 32;
    lo as u128 | (hi as u128) << 64
}

pub const REFE: u32 = 0;
pub const CNT: u32 = 1;
pub const NEXT: u32 = 2;
pub const REF: u32 = 3;
pub const REFS: u32 = 4;
pub const CALL: u32 = 5;
pub const RET: u32 = 6;
pub const END: u32 = 7;

pub fn vifcode(cmd: u32, num: u32, imm: u32) -> u32 {
    cmd << 24 | (num & 0xff) << 16 | (imm & 0xffff)
}

/// A GIFtag.
pub fn giftag(nloop: u32, eop: bool, prim: Option<u64>, flg: u64, regs: &[u8]) -> u128 {
    let nreg = regs.len() as u64 & 0xf;
    let mut lo = nloop as u64 & 0x7fff | (eop as u64) << 15 | flg << 58 | nreg << 60;
    if let Some(p) = prim {
        lo |= 1 << 46 | (p & 0x7ff) << 47;
    }
    let mut hi = 0u64;
    for (i, r) in regs.iter().enumerate() {
        hi |= (*r as u64 & 0xf) << (4 * i);
    }
    lo as u128 | (hi as u128) << 64
}

/// Run events until channel `ch`'s STR clears (or `limit` cycles pass); returns the cycle.
pub fn run_until_done(m: &mut Machine, ch: usize, limit: u64) -> u64 {
    let a = chreg(ch, 0);
    let start = m.cpu.cycles;
    while r32(m, a) & STR != 0 {
        let t = m.bus.sched.next_due();
        assert!(
            t <= start + limit,
            "channel {ch} still running after {limit} cycles"
        );
        m.run_events_until(t).unwrap();
    }
    m.cpu.cycles
}

/// Start a normal-mode transfer from memory.
pub fn send_normal(m: &mut Machine, ch: usize, madr: u32, qwc: u32) {
    w32(m, D_CTRL, 1);
    w32(m, chreg(ch, 0x10), madr);
    w32(m, chreg(ch, 0x20), qwc);
    w32(m, chreg(ch, 0), STR | 1);
}

/// Start a source chain at `tadr`.
pub fn send_chain(m: &mut Machine, ch: usize, tadr: u32, extra: u32) {
    w32(m, D_CTRL, 1);
    w32(m, chreg(ch, 0x20), 0);
    w32(m, chreg(ch, 0x30), tadr);
    w32(m, chreg(ch, 0), STR | 1 | 1 << 2 | extra);
}

/// One recorded VU start: unit, pc (None for MSCNT), TOP, ITOP.
pub type VuStart = (usize, Option<u32>, u32, u32);

/// A VU that records its starts and, for VU1, may XGKICK a packet from VU1 data memory.
#[derive(Default, Clone)]
pub struct FakeVu {
    pub starts: Arc<Mutex<Vec<VuStart>>>,
    /// Qword address in VU1 data memory to kick, and how many qwords.
    pub kick: Option<(usize, usize)>,
    pub busy: u64,
}

impl VuExec for FakeVu {
    fn start(
        &mut self,
        unit: usize,
        pc: Option<u32>,
        top: u32,
        itop: u32,
        io: VuIo<'_>,
    ) -> Result<u64, String> {
        self.starts.lock().unwrap().push((unit, pc, top, itop));
        if let Some((a, n)) = self.kick {
            let data: Vec<u128> = (0..n)
                .map(|i| {
                    let o = 0xc000 + (a + i) * 16;
                    u128::from_le_bytes(io.vu_mem[o..o + 16].try_into().unwrap())
                })
                .collect();
            io.gif.push(piney_machine::gif::path::P1, &data);
        }
        Ok(self.busy)
    }
}

/// Attach a recording GIF sink to an existing machine.
pub fn machine_rec_from(mut m: Machine) -> (Machine, Arc<Mutex<Vec<GsWrite>>>) {
    let h = m.bus.gif.gs.record();
    (m, h)
}
