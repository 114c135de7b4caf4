//! SIF DMA: the timed transfers in flight between EE memory and IOP RAM.
//!
//! EE -> IOP (SIF1, EE DMA channel 6): queued by SifSetDma; the EE's bytes are taken at queue time
//! (the DMAC drains the source into the SIF FIFO right away), land in IOP RAM when the transfer
//! completes. IOP -> EE (SIF0, EE DMA channel 5): queued by the native IOP; land in EE RAM when due
//! and while the EE's channel 5 is armed.
//!
//! Timing (EE cycles, fixed and deterministic, not measured on hardware): every transfer costs
//! [`SIF_SETUP_CYCLES`] plus [`SIF_CYCLES_PER_WORD`] per 32-bit word (the IOP's bus moves about one
//! word per IOP cycle, 8 EE cycles), one after the other in each direction.

use std::collections::VecDeque;

use crate::bus::{EeBus, IOP_RAM_SIZE, RAM_SIZE};

/// Transfer attribute: interrupt the EE when this transfer is done.
pub const SIF_DMA_INT_I: u32 = 0x2;
/// Transfer attribute: interrupt the other side (the IOP) when this transfer is done.
pub const SIF_DMA_INT_O: u32 = 0x4;
/// Transfer attribute: end of the IOP-side chain.
pub const SIF_DMA_ERT: u32 = 0x40;

/// The kernel's SIF1 tag ring holds 32 transfers; SifSetDma returns 0 when they do not fit.
pub const SIF1_QUEUE_MAX: usize = 32;
/// The largest single transfer taken (the size of IOP RAM).
pub const SIF_MAX_TRANSFER: usize = IOP_RAM_SIZE;
/// Fixed cost of one SIF transfer (tag set-up, FIFO latency): about 3.4 us.
pub const SIF_SETUP_CYCLES: u64 = 1_000;
/// Cost per 32-bit word moved.
pub const SIF_CYCLES_PER_WORD: u64 = 8;
/// How often a stalled SIF0 (the EE has not re-armed channel 5) is looked at again.
pub const SIF0_STALL_POLL: u64 = 20_000;

/// The cycles one transfer of `len` bytes takes.
pub fn transfer_cycles(len: usize) -> u64 {
    SIF_SETUP_CYCLES + SIF_CYCLES_PER_WORD * len.div_ceil(4) as u64
}

/// One EE -> IOP transfer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToIop {
    /// The SifSetDma call's id (shared by the transfers of one call).
    pub id: u32,
    /// When it completes.
    pub due: u64,
    /// IOP destination address.
    pub dest: u32,
    /// The bytes (whole words).
    pub data: Vec<u8>,
    /// SIF_DMA_* attributes.
    pub attr: u32,
}

/// One IOP -> EE transfer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToEe {
    /// When it can land.
    pub due: u64,
    /// EE destination (physical after masking with 0x1fff_ffff, as the IOP's tags carry it).
    pub dest: u32,
    /// The bytes (whole words).
    pub data: Vec<u8>,
    /// The tag's IRQ bit: the EE's channel 5 stops and interrupts after it.
    pub irq: bool,
}

/// The transfers in flight.
#[derive(Debug, Default)]
pub struct SifDma {
    to_iop: VecDeque<ToIop>,
    to_ee: VecDeque<ToEe>,
    last_id: u32,
}

impl SifDma {
    /// Queue one SifSetDma call's transfers `(dest, data, attr)` at cycle `now`. Returns the id, or
    /// 0 when the queue cannot take them all.
    pub fn queue_to_iop(&mut self, now: u64, list: Vec<(u32, Vec<u8>, u32)>) -> u32 {
        if list.is_empty() || self.to_iop.len() + list.len() > SIF1_QUEUE_MAX {
            return 0;
        }
        self.last_id = self.last_id.wrapping_add(1).max(1);
        let id = self.last_id;
        let mut t = self.to_iop.back().map_or(now, |x| x.due.max(now));
        for (dest, data, attr) in list {
            t += transfer_cycles(data.len());
            self.to_iop.push_back(ToIop {
                id,
                due: t,
                dest,
                data,
                attr,
            });
        }
        id
    }

    /// Queue an IOP -> EE transfer that the IOP starts at cycle `at` (after those already queued).
    pub fn queue_to_ee(&mut self, at: u64, dest: u32, mut data: Vec<u8>, irq: bool) {
        data.resize(data.len().div_ceil(4) * 4, 0);
        let t = self.to_ee.back().map_or(at, |x| x.due.max(at)) + transfer_cycles(data.len());
        self.to_ee.push_back(ToEe {
            due: t,
            dest,
            data,
            irq,
        });
    }

    /// Take the next EE -> IOP transfer if it is complete at `now`.
    pub fn pop_to_iop_due(&mut self, now: u64) -> Option<ToIop> {
        if self.to_iop.front()?.due <= now {
            self.to_iop.pop_front()
        } else {
            None
        }
    }

    /// Take the next IOP -> EE transfer if it can land at `now`.
    pub fn pop_to_ee_due(&mut self, now: u64) -> Option<ToEe> {
        if self.to_ee.front()?.due <= now {
            self.to_ee.pop_front()
        } else {
            None
        }
    }

    /// When the next EE -> IOP transfer completes.
    pub fn next_to_iop_due(&self) -> Option<u64> {
        self.to_iop.front().map(|x| x.due)
    }

    /// When the next IOP -> EE transfer can land.
    pub fn next_to_ee_due(&self) -> Option<u64> {
        self.to_ee.front().map(|x| x.due)
    }

    /// The EE -> IOP transfers in flight.
    pub fn to_iop(&self) -> &VecDeque<ToIop> {
        &self.to_iop
    }

    /// The IOP -> EE transfers in flight.
    pub fn to_ee(&self) -> &VecDeque<ToEe> {
        &self.to_ee
    }

    /// Drop the IOP -> EE transfers (the IOP rebooted).
    pub fn clear_to_ee(&mut self) {
        self.to_ee.clear();
    }

    /// SifDmaStat: 1 while the call's transfers wait behind others, 0 while the first of them is
    /// moving, -1 when all are done (or the id is unknown).
    pub fn stat(&self, id: u32) -> i32 {
        match self.to_iop.iter().position(|x| x.id == id) {
            Some(0) => 0,
            Some(_) => 1,
            None => -1,
        }
    }
}

/// The EE's physical address for a virtual one, where it is RDRAM (the kernel's fixed map).
fn ee_ram_phys(addr: u32) -> Option<u32> {
    match addr >> 28 {
        0x0 => Some(addr),
        0x2 | 0x3 => Some(addr & 0x0fff_ffff),
        0x8..=0xb => Some(addr & 0x1fff_ffff),
        _ => None,
    }
}

/// Read `len` bytes of EE memory at virtual `addr` (as the DMAC reads a SIF1 source). On failure
/// returns the faulting address.
pub fn read_ee(bus: &mut EeBus, addr: u32, len: usize) -> Result<Vec<u8>, u32> {
    if let Some(p) = ee_ram_phys(addr)
        && (p as usize).saturating_add(len) <= RAM_SIZE
    {
        return Ok(bus.ram[p as usize..p as usize + len].to_vec());
    }
    let mut v = vec![0; len];
    bus.read_bytes(addr, &mut v).map_err(|e| e.addr)?;
    Ok(v)
}

/// Write bytes to EE RAM at `dest` as SIF0 DMA does: the address is masked to 0x1fff_ffff
/// (physical) and must lie in RDRAM.
pub fn write_ee(bus: &mut EeBus, dest: u32, data: &[u8]) -> Result<(), String> {
    let p = (dest & 0x1fff_ffff) as usize;
    let end = p.checked_add(data.len()).filter(|e| *e <= RAM_SIZE);
    match end {
        Some(end) => {
            bus.ram[p..end].copy_from_slice(data);
            bus.device_writes.note(p, data.len());
            Ok(())
        }
        None => Err(format!(
            "IOP -> EE transfer of {:#x} bytes to {dest:#010x} is outside EE RAM",
            data.len()
        )),
    }
}

/// The offset in IOP RAM of IOP address `addr` (kseg addresses and the 8 MiB of mirrors fold onto
/// the 2 MiB), if it is RAM.
pub fn iop_offset(addr: u32, len: usize) -> Result<usize, String> {
    let p = addr & 0x1fff_ffff;
    if p >= 0x80_0000 {
        return Err(format!("IOP address {addr:#010x} is not IOP RAM"));
    }
    let off = (p as usize) & (IOP_RAM_SIZE - 1);
    if off + len > IOP_RAM_SIZE {
        return Err(format!(
            "{len:#x} bytes at IOP address {addr:#010x} run past the end of IOP RAM"
        ));
    }
    Ok(off)
}

/// Write bytes into IOP RAM at IOP address `dest`.
pub fn write_iop(bus: &mut EeBus, dest: u32, data: &[u8]) -> Result<(), String> {
    let off = iop_offset(dest, data.len())?;
    bus.iop_ram[off..off + data.len()].copy_from_slice(data);
    Ok(())
}

/// Read bytes of IOP RAM at IOP address `addr`.
pub fn read_iop(bus: &EeBus, addr: u32, len: usize) -> Result<Vec<u8>, String> {
    let off = iop_offset(addr, len)?;
    Ok(bus.iop_ram[off..off + len].to_vec())
}

/// A little-endian word of `b` at byte offset `off` (0 past the end).
pub fn word(b: &[u8], off: usize) -> u32 {
    match b.get(off..off + 4) {
        Some(w) => u32::from_le_bytes([w[0], w[1], w[2], w[3]]),
        None => 0,
    }
}

/// Store a little-endian word into `b` at byte offset `off` (growing `b` if needed).
pub fn put_word(b: &mut Vec<u8>, off: usize, v: u32) {
    if b.len() < off + 4 {
        b.resize(off + 4, 0);
    }
    b[off..off + 4].copy_from_slice(&v.to_le_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transfers_complete_in_order_and_stat_follows() {
        let mut d = SifDma::default();
        let a = d.queue_to_iop(
            100,
            vec![
                (0x1000, vec![0; 16], 0),
                (0x2000, vec![0; 64], SIF_DMA_INT_O),
            ],
        );
        let b = d.queue_to_iop(100, vec![(0x3000, vec![0; 4], 0)]);
        assert!(a != 0 && b != 0 && a != b);
        assert_eq!(d.stat(a), 0);
        assert_eq!(d.stat(b), 1);
        let t1 = 100 + transfer_cycles(16);
        let t2 = t1 + transfer_cycles(64);
        assert_eq!(d.next_to_iop_due(), Some(t1));
        assert!(d.pop_to_iop_due(t1 - 1).is_none());
        assert_eq!(d.pop_to_iop_due(t1).map(|x| x.dest), Some(0x1000));
        assert_eq!(d.stat(a), 0);
        assert_eq!(d.pop_to_iop_due(t2).map(|x| x.attr), Some(SIF_DMA_INT_O));
        assert_eq!(d.stat(a), -1);
        assert_eq!(d.stat(b), 0);
    }

    #[test]
    fn queue_refuses_when_full() {
        let mut d = SifDma::default();
        let many: Vec<_> = (0..SIF1_QUEUE_MAX)
            .map(|i| (i as u32 * 16, vec![0; 16], 0))
            .collect();
        assert_ne!(d.queue_to_iop(0, many), 0);
        assert_eq!(d.queue_to_iop(0, vec![(0, vec![0; 16], 0)]), 0);
    }

    #[test]
    fn iop_addresses_fold_and_bound() {
        assert_eq!(iop_offset(0xa000_1000, 4), Ok(0x1000));
        assert_eq!(iop_offset(0x0020_1000, 4), Ok(0x1000));
        assert!(iop_offset(0xbf80_1000, 4).is_err());
        assert!(iop_offset(0x001f_fffc, 8).is_err());
    }
}
