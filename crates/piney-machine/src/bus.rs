//! The EE memory map and the devices on it.
//!
//! Virtual addresses are mapped as the PS2 kernel's fixed TLB set-up and the kseg segments give:
//! - `0x0000_0000..0x0200_0000` RDRAM (32 MiB, cached), `0x2000_0000..` the uncached mirror,
//!   `0x3000_0000..` the uncached-accelerated mirror;
//! - `0x7000_0000..0x7000_4000` the 16 KiB scratchpad;
//! - `0x8000_0000..0xc000_0000` kseg0/kseg1: the physical space (`addr & 0x1fff_ffff`);
//! - other user addresses below 0x2000_0000 map one to one onto the physical space (the kernel's
//!   TLB maps the I/O area so).
//!
//! Physical: RDRAM at 0, the EE I/O registers at `0x1000_0000`, VU memories at `0x1100_0000`, the
//! GS privileged registers at `0x1200_0000`, IOP RAM at `0x1c00_0000` (2 MiB, as the EE sees it
//! through the SBUS), the BIOS ROM at `0x1fc0_0000` (4 MiB; ours holds only HLE stubs).

use piney_ee::{Bus, BusFault};

use crate::dmac::Dmac;
use crate::gif::Gif;
use crate::intc::Intc;
use crate::scheduler::{Event, Scheduler, ntsc};
use crate::timers::Timers;
use crate::vif::{MicroVu, Vif, VuExec};

/// RDRAM size: 32 MiB.
pub const RAM_SIZE: usize = 32 << 20;
/// Scratchpad size: 16 KiB.
pub const SPR_SIZE: usize = 16 << 10;
/// BIOS ROM size: 4 MiB.
pub const BIOS_SIZE: usize = 4 << 20;
/// IOP RAM size: 2 MiB.
pub const IOP_RAM_SIZE: usize = 2 << 20;
/// Physical base of the BIOS ROM.
pub const BIOS_BASE: u32 = 0x1fc0_0000;
/// Physical base of the IOP RAM as the EE sees it.
pub const IOP_RAM_BASE: u32 = 0x1c00_0000;

/// The EE SIO transmit register: bytes written here are the guest's debug output.
pub const SIO_TXFIFO: u32 = 0x1000_f180;

/// Memory and devices.
pub struct EeBus {
    /// RDRAM (mirrored where the host allows, see [`piney_ram::GuestRam`]).
    pub ram: piney_ram::GuestRam,
    /// Scratchpad RAM.
    pub spr: Vec<u8>,
    /// BIOS ROM (our HLE stubs).
    pub bios: Vec<u8>,
    /// VU0 micro (4 KiB) and data (4 KiB), VU1 micro (16 KiB) and data (16 KiB) memories, as one
    /// 0x10000-byte window at 0x1100_0000 (0x0000 VU0 micro, 0x4000 VU0 data, 0x8000 VU1 micro,
    /// 0xc000 VU1 data; VU0's 4 KiB memories mirror across their 16 KiB windows).
    pub vu_mem: Vec<u8>,
    /// The EE I/O registers not owned by a device model (0x1000_0000..0x1001_0000), as plain
    /// storage, by word.
    pub io: Vec<u32>,
    /// INTC.
    pub intc: Intc,
    /// The four EE timers.
    pub timers: Timers,
    /// The IOP, behind the SIF: its RAM at 0x1c00_0000 and the SIF registers at 0x1000_f200 are
    /// reached through it.
    pub iop: Box<piney_iop::Iop>,
    /// Channel 6 ended a chain since the machine last looked (the kernel starts its next batch).
    pub sif1_done: bool,
    /// The DMAC's channel state (its registers are in `io`).
    pub dmac: Dmac,
    /// VIF0 and VIF1.
    pub vif: [Vif; 2],
    /// The GIF.
    pub gif: Gif,
    /// The IPU (registers at 0x1000_2000, FIFOs at 0x1000_7000; see [`crate::ipu`]).
    pub ipu: piney_ipu::Ipu,
    /// What runs the VUs' microprograms (MSCAL...).
    pub vu_exec: Box<dyn VuExec>,
    /// Timed events.
    pub sched: Scheduler,
    /// Guest debug output not yet written out.
    pub out: Vec<u8>,
    /// The number of the field whose VBlank comes next.
    pub field: u64,
    /// The current CPU cycle, as last told by the machine (devices timestamp with it).
    pub now: u64,
    /// RAM written by devices (DMA to memory, SIF), for the recompiler ([`DeviceWrites`]).
    pub device_writes: DeviceWrites,
    pub(crate) irq_changed: bool,
}

/// The 4 KiB pages of RAM that devices (DMA to memory, the SIF) wrote since the last look: the
/// recompiler drops translated code there at the next FlushCache, as the EE's instruction cache
/// must be flushed before code written that way runs. A bitmap, so it stays small however much
/// is written between flushes.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct DeviceWrites {
    pages: Vec<u64>,
    any: bool,
}

/// Bytes per page of [`DeviceWrites`].
pub const DEVICE_PAGE: usize = 4096;

impl Default for DeviceWrites {
    fn default() -> Self {
        Self {
            pages: vec![0; RAM_SIZE / DEVICE_PAGE / 64],
            any: false,
        }
    }
}

impl DeviceWrites {
    /// Note `len` bytes written at RAM offset `off`.
    #[inline]
    pub fn note(&mut self, off: usize, len: usize) {
        if len == 0 {
            return;
        }
        let last = (off + len - 1).min(RAM_SIZE - 1) / DEVICE_PAGE;
        for page in off / DEVICE_PAGE..=last {
            self.pages[page / 64] |= 1 << (page % 64);
        }
        self.any = true;
    }

    /// The RAM offsets of the pages written since the last call, which forgets them.
    pub fn take(&mut self) -> Vec<u32> {
        if !std::mem::take(&mut self.any) {
            return Vec::new();
        }
        let mut out = Vec::new();
        for (w, bits) in self.pages.iter_mut().enumerate() {
            let mut b = std::mem::take(bits);
            while b != 0 {
                let i = b.trailing_zeros() as usize;
                b &= b - 1;
                out.push(((w * 64 + i) * DEVICE_PAGE) as u32);
            }
        }
        out
    }
}

impl Default for EeBus {
    fn default() -> Self {
        Self::new()
    }
}

impl EeBus {
    /// A bus with zeroed memories and reset devices.
    pub fn new() -> Self {
        Self {
            ram: piney_ram::GuestRam::new(RAM_SIZE),
            spr: vec![0; SPR_SIZE],
            bios: vec![0; BIOS_SIZE],
            vu_mem: vec![0; 0x1_0000],
            io: vec![0; 0x1_0000 / 4],
            intc: Intc::default(),
            timers: Timers::default(),
            iop: Box::new(piney_iop::Iop::new()),
            sif1_done: false,
            dmac: Dmac::default(),
            vif: [Vif::new(0), Vif::new(1)],
            gif: Gif::default(),
            ipu: piney_ipu::Ipu::new(),
            vu_exec: Box::new(MicroVu::default()),
            sched: Scheduler::default(),
            out: Vec::new(),
            field: 0,
            now: 0,
            device_writes: DeviceWrites::default(),
            irq_changed: true,
        }
    }

    /// Reset every device (memories keep nothing).
    pub fn reset(&mut self) {
        // A fresh zeroed RAM, not a fill: its untouched pages are zero pages, so the 32 MiB are
        // faulted in only where the guest uses them (filling touched every page: about 20 ms of
        // every start, measured on tools/bench-compute.sh's runs).
        self.ram = piney_ram::GuestRam::new(RAM_SIZE);
        self.spr.fill(0);
        // The same for the 4 MiB of BIOS space (a fill there was ~2 ms of every start).
        self.bios = vec![0; BIOS_SIZE];
        self.vu_mem.fill(0);
        self.io.fill(0);
        self.device_writes = DeviceWrites::default();
        self.intc = Intc::default();
        self.timers = Timers::default();
        *self.iop = piney_iop::Iop::new();
        self.sif1_done = false;
        self.dmac = Dmac::default();
        self.vif = [Vif::new(0), Vif::new(1)];
        self.ipu = piney_ipu::Ipu::new();
        // A power-on GS (zeroed local memory, reset registers, IMR masking every GS interrupt;
        // the same renderer) behind a reset GIF.
        self.gif.gs.reset();
        self.gif.reset();
        // D_CTRL.DMAE: the BIOS leaves the DMAC enabled.
        self.io[0xe000 / 4] = 1;
        self.sched = Scheduler::default();
        self.out.clear();
        self.field = 0;
        self.now = 0;
        self.irq_changed = true;
    }

    /// Whether an interrupt source changed since the last call.
    pub fn take_irq_change(&mut self) -> bool {
        std::mem::take(&mut self.irq_changed)
    }

    /// Note that an interrupt source changed.
    pub fn irq_changed(&mut self) {
        self.irq_changed = true;
    }

    /// VBlank start: INTC VBON (line 2) and the next VBlank scheduled.
    pub fn vblank_start(&mut self, _late: u64) {
        self.intc.raise(crate::intc::line::VBON);
        // GS CSR bit 3: VSINT (the GS's own VSync event), and FIELD (bit 13) toggles.
        let paths_idle = self.gif.paths_idle();
        self.gif.gs.vsync(paths_idle);
        // IMR.VSMSK (bit 11) clear: the VSync event raises the GS interrupt (INTC line 0).
        if self.gif.gs.raises(3) {
            self.intc.raise(crate::intc::line::GS);
        }
        self.field += 1;
        self.sched
            .schedule_at(ntsc::vblank_start(self.field), Event::VBlankStart);
        self.sched
            .schedule_at(ntsc::vblank_end(self.field), Event::VBlankEnd);
        self.timers.vblank(self.now);
        self.irq_changed = true;
    }

    /// VBlank end: INTC VBOF (line 3).
    pub fn vblank_end(&mut self, _late: u64) {
        self.intc.raise(crate::intc::line::VBOF);
        self.irq_changed = true;
    }

    /// A timer event.
    pub fn timer_event(&mut self, n: u8, _late: u64) {
        let now = self.now;
        if self.timers.event(n as usize, now, &mut self.sched) {
            self.intc.raise(crate::intc::line::TIM0 + n as u32);
        }
        self.irq_changed = true;
    }

    /// Translate a virtual address to a physical one (the kernel's fixed map).
    #[inline]
    pub(crate) fn phys(addr: u32) -> Option<u32> {
        match addr >> 28 {
            0x0 | 0x1 => Some(addr),
            0x2 | 0x3 => Some(addr & 0x0fff_ffff),
            0x7 => None,
            0x8..=0xb => Some(addr & 0x1fff_ffff),
            _ => None,
        }
    }

    /// The slice of plain memory behind `addr` for an access of `len` bytes, if it is memory.
    #[inline]
    fn mem(&mut self, addr: u32, len: usize) -> Option<&mut [u8]> {
        if addr >> 28 == 0x7 {
            let a = (addr & 0x3fff) as usize;
            return if addr & 0x0fff_ffff < SPR_SIZE as u32 {
                self.spr.get_mut(a..a + len)
            } else {
                None
            };
        }
        let p = Self::phys(addr)?;
        let a = p as usize;
        if a < RAM_SIZE {
            return self.ram.get_mut(a..a + len);
        }
        match p {
            0x1100_0000..=0x1100_ffff => {
                let off = (p & 0xffff) as usize;
                // VU0's 4 KiB memories repeat through their 16 KiB windows.
                let off = if off < 0x8000 { off & !0x3000 } else { off };
                self.vu_mem.get_mut(off..off + len)
            }
            0x1c00_0000..=0x1dff_ffff => {
                let off = (p as usize) & (IOP_RAM_SIZE - 1);
                self.iop.bus.ram.get_mut(off..off + len)
            }
            0x1fc0_0000..=0x1fff_ffff => {
                let off = (p - BIOS_BASE) as usize;
                self.bios.get_mut(off..off + len)
            }
            _ => None,
        }
    }

    /// Read a 32-bit I/O register (physical address).
    fn io_read32(&mut self, p: u32) -> Result<u32, BusFault> {
        match p {
            0x1000_0000..=0x1000_1fff => Ok(self.timers.read(p, self.now)),
            0x1000_f000 => Ok(self.intc.stat),
            0x1000_f010 => Ok(self.intc.mask),
            0x1000_f200..=0x1000_f2ff => Ok(self.iop.bus.hw.sif.ee_read(p & 0xff)),
            // IPU_CMD, IPU_CTRL, IPU_BP, IPU_TOP.
            0x1000_2000..=0x1000_2fff => Ok(self.ipu_read32(p)),
            // GIF, VIF0/VIF1 registers and the FIFOs.
            0x1000_3000..=0x1000_7fff => Ok(self.dev_read(p).unwrap_or(0)),
            // D_ENABLER mirrors D_ENABLEW.
            0x1000_f520 => Ok(self.io[(0xf590 / 4) as usize]),
            _ if (0x1000_0000..=0x1000_ffff).contains(&p) => {
                Ok(self.io[((p & 0xffff) / 4) as usize])
            }
            0x1200_0000..=0x1200_1fff => Ok(self.gif.gs.priv_read32(p & 0x1fff)),
            _ => Err(BusFault { addr: p }),
        }
    }

    /// Write a 32-bit I/O register (physical address).
    fn io_write32(&mut self, p: u32, v: u32) -> Result<(), BusFault> {
        match p {
            0x1000_0000..=0x1000_1fff => {
                let now = self.now;
                self.timers.write(p, v, now, &mut self.sched);
            }
            // I_STAT: writing 1 clears a bit. I_MASK: writing 1 toggles a bit.
            0x1000_f000 => {
                self.intc.stat &= !v;
                self.irq_changed = true;
            }
            0x1000_f010 => {
                self.intc.mask ^= v & 0x7fff;
                self.irq_changed = true;
            }
            SIO_TXFIFO => self.out.push(v as u8),
            0x1000_f200..=0x1000_f2ff => self.iop.bus.hw.sif.ee_write(p & 0xff, v),
            // IPU_CMD, IPU_CTRL (the others are read-only).
            0x1000_2000..=0x1000_2fff => self.ipu_write32(p, v),
            // GIF, VIF0/VIF1 registers and the FIFOs.
            0x1000_3000..=0x1000_7fff => {
                self.dev_write(p, v);
            }
            // DMAC channel registers, D_CTRL, D_PCR, D_SQWC, D_RBSR, D_RBOR, D_STADR, D_ENABLEW.
            0x1000_8000..=0x1000_e00f | 0x1000_e020..=0x1000_e0ff | crate::dmac::D_ENABLEW => {
                self.dmac_write(p, v)
            }
            // D_STAT: the low bits (CIS, SIS, MEIS, BEIS) clear on 1, the mask bits toggle on 1.
            0x1000_e010 => {
                let s = &mut self.io[(0xe010 / 4) as usize];
                *s = (*s & !(v & 0xffff)) ^ (v & 0xffff_0000);
                self.irq_changed = true;
            }
            _ if (0x1000_0000..=0x1000_ffff).contains(&p) => {
                self.io[((p & 0xffff) / 4) as usize] = v
            }
            0x1200_0000..=0x1200_1fff => {
                let stalled = self.gif.gs.signal_stalled();
                self.gif.gs.priv_write32(p & 0x1fff, v);
                if stalled && !self.gif.gs.signal_stalled() {
                    // Clearing CSR.SIGNAL let the waiting SIGNAL through: it raises the GS
                    // interrupt (IMR.SIGMSK, bit 8, clear) and the GIF moves again.
                    if self.gif.gs.raises(0) {
                        self.intc.raise(crate::intc::line::GS);
                    }
                    self.irq_changed = true;
                    self.gif.pump();
                    self.dmac_kick(crate::dmac::ch::GIF);
                    self.dev_sync();
                }
            }
            _ => return Err(BusFault { addr: p }),
        }
        Ok(())
    }

    /// Copy guest bytes out (for the kernel and the SIF), by virtual address.
    pub fn read_bytes(&mut self, addr: u32, buf: &mut [u8]) -> Result<(), BusFault> {
        if let Some(m) = self.mem(addr, buf.len()) {
            buf.copy_from_slice(m);
            return Ok(());
        }
        for (i, b) in buf.iter_mut().enumerate() {
            *b = self.read8(addr.wrapping_add(i as u32))?;
        }
        Ok(())
    }

    /// Copy bytes into guest memory, by virtual address.
    pub fn write_bytes(&mut self, addr: u32, buf: &[u8]) -> Result<(), BusFault> {
        if Self::phys(addr).is_some_and(|p| p < BIOS_BASE)
            && let Some(m) = self.mem(addr, buf.len())
        {
            m.copy_from_slice(buf);
            return Ok(());
        }
        for (i, b) in buf.iter().enumerate() {
            self.write8(addr.wrapping_add(i as u32), *b)?;
        }
        Ok(())
    }

    /// Read a NUL-terminated string of at most `max` bytes.
    pub fn read_cstr(&mut self, addr: u32, max: usize) -> Result<String, BusFault> {
        let mut s = Vec::new();
        for i in 0..max {
            let b = self.read8(addr.wrapping_add(i as u32))?;
            if b == 0 {
                break;
            }
            s.push(b);
        }
        Ok(String::from_utf8_lossy(&s).into_owned())
    }
}

macro_rules! mem_access {
    ($read:ident, $write:ident, $t:ty, $n:expr) => {
        #[inline]
        fn $read(&mut self, addr: u32) -> Result<$t, BusFault> {
            if let Some(m) = self.mem(addr, $n) {
                let mut b = [0u8; $n];
                b.copy_from_slice(m);
                return Ok(<$t>::from_le_bytes(b));
            }
            self.io_read(addr, $n).map(|v| v as $t)
        }
        #[inline]
        fn $write(&mut self, addr: u32, value: $t) -> Result<(), BusFault> {
            if Self::phys(addr).is_some_and(|p| p >= BIOS_BASE) {
                // The ROM ignores writes.
                return Ok(());
            }
            if let Some(m) = self.mem(addr, $n) {
                m.copy_from_slice(&value.to_le_bytes());
                return Ok(());
            }
            self.io_write(addr, value as u128, $n)
        }
    };
}

impl EeBus {
    fn io_read(&mut self, addr: u32, len: usize) -> Result<u128, BusFault> {
        let p = Self::phys(addr).ok_or(BusFault { addr })?;
        let fault = |_| BusFault { addr };
        match len {
            1 | 2 => {
                let w = self.io_read32(p & !3).map_err(fault)?;
                Ok(((w >> ((p & 3) * 8)) & if len == 1 { 0xff } else { 0xffff }) as u128)
            }
            4 => self.io_read32(p).map(|v| v as u128).map_err(fault),
            _ => {
                let mut v = 0u128;
                for i in 0..len / 4 {
                    v |= (self.io_read32(p + 4 * i as u32).map_err(fault)? as u128) << (32 * i);
                }
                Ok(v)
            }
        }
    }

    fn io_write(&mut self, addr: u32, value: u128, len: usize) -> Result<(), BusFault> {
        let p = Self::phys(addr).ok_or(BusFault { addr })?;
        let fault = |_| BusFault { addr };
        match len {
            1 | 2 if p == SIO_TXFIFO => {
                self.out.push(value as u8);
                Ok(())
            }
            1 | 2 => {
                let shift = (p & 3) * 8;
                let mask = if len == 1 { 0xffu32 } else { 0xffff } << shift;
                let old = self.io_read32(p & !3).unwrap_or(0);
                self.io_write32(p & !3, (old & !mask) | ((value as u32) << shift) & mask)
                    .map_err(fault)
            }
            4 => self.io_write32(p, value as u32).map_err(fault),
            // A 128-bit write to a FIFO (VIF0, VIF1, GIF) is one quadword.
            _ if (0x1000_4000..=0x1000_7fff).contains(&p) => {
                let mut words = [0u32; 4];
                for (i, w) in words.iter_mut().enumerate() {
                    *w = (value >> (32 * i)) as u32;
                }
                self.fifo_write(p, &words[..len / 4]);
                Ok(())
            }
            _ => {
                for i in 0..len / 4 {
                    self.io_write32(p + 4 * i as u32, (value >> (32 * i)) as u32)
                        .map_err(fault)?;
                }
                Ok(())
            }
        }
    }
}

impl Bus for EeBus {
    mem_access!(read8, write8, u8, 1);
    mem_access!(read16, write16, u16, 2);
    mem_access!(read32, write32, u32, 4);
    mem_access!(read64, write64, u64, 8);
    mem_access!(read128, write128, u128, 16);
}

impl piney_jit::JitBus for EeBus {
    fn ram(&mut self) -> &mut [u8] {
        &mut self.ram
    }
    fn ram_mirrored(&mut self) -> bool {
        self.ram.mirrored()
    }
    fn scratchpad(&mut self) -> &mut [u8] {
        &mut self.spr
    }
    fn sync_cycles(&mut self, cycles: u64) {
        self.now = cycles;
    }
}
