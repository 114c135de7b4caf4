//! The PS2's sound processor, the SPU2, as the IOP sees it.
//!
//! Contract (the IOP owns one [`Spu2`] and is its only client):
//! - Registers: [`Spu2::read`] / [`Spu2::write`] take the 16-bit register's offset from the
//!   SPU2's physical base 0x1F90_0000 (0..0x800, even), as the IOP's bus decodes it.
//! - Time: [`Spu2::tick`] makes one 48 kHz stereo output sample; the IOP calls it once per
//!   [`IOP_CYCLES_PER_SAMPLE`] of its cycles, from its one event scheduler. Nothing here reads a
//!   host clock: the same register writes, DMA and ticks give the same samples.
//! - DMA: the IOP's DMAC channel 4 (core 0) and 7 (core 1) move halfwords with
//!   [`Spu2::dma_write`] / [`Spu2::dma_read`]; in AutoDMA the IOP moves a block whenever
//!   [`Spu2::adma_wants`] says the core's input buffer has room.
//! - Interrupts: [`Spu2::take_irq`] reports (once) that a core raised its IRQ (IRQA reached);
//!   the IOP raises INTC line 9 for it.
//! - No audio host, no threads: this crate only computes samples.

/// Sound RAM: 2 MiB, addressed by the hardware in halfwords.
pub const RAM_HALFWORDS: usize = 0x10_0000;

/// IOP cycles per output sample: 36.864 MHz / 48 kHz.
pub const IOP_CYCLES_PER_SAMPLE: u64 = 768;

/// The SPU2.
pub struct Spu2 {
    ram: Vec<u16>,
    regs: Vec<u16>,
    irq: bool,
}

impl Default for Spu2 {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Spu2 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Spu2").finish_non_exhaustive()
    }
}

impl Spu2 {
    /// Power-on state.
    pub fn new() -> Self {
        Self {
            ram: vec![0; RAM_HALFWORDS],
            regs: vec![0; 0x400],
            irq: false,
        }
    }

    /// Back to the power-on state.
    pub fn reset(&mut self) {
        *self = Self::new();
    }

    /// Read the register at `offset` from 0x1F90_0000.
    pub fn read(&mut self, offset: u32) -> u16 {
        self.regs[(offset as usize >> 1) & 0x3ff]
    }

    /// Write the register at `offset` from 0x1F90_0000.
    pub fn write(&mut self, offset: u32, value: u16) {
        self.regs[(offset as usize >> 1) & 0x3ff] = value;
    }

    /// One 48 kHz output sample, left and right.
    pub fn tick(&mut self) -> [i16; 2] {
        [0, 0]
    }

    /// DMA from the IOP to core `core` (0: channel 4, 1: channel 7).
    pub fn dma_write(&mut self, core: usize, data: &[u16]) {
        let _ = (core, data);
    }

    /// DMA from core `core` to the IOP.
    pub fn dma_read(&mut self, core: usize, out: &mut [u16]) {
        let _ = core;
        out.fill(0);
    }

    /// In AutoDMA, how many halfwords core `core` takes now (0 when not in AutoDMA or full).
    pub fn adma_wants(&self, core: usize) -> usize {
        let _ = core;
        0
    }

    /// The IOP's DMA channel of core `core` ended a manual transfer.
    pub fn dma_done(&mut self, core: usize) {
        let _ = core;
    }

    /// Whether a core raised its interrupt since the last call.
    pub fn take_irq(&mut self) -> bool {
        std::mem::take(&mut self.irq)
    }

    /// Sound RAM (for tests and dumps).
    pub fn ram(&self) -> &[u16] {
        &self.ram
    }
}
