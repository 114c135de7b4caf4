//! LIBSD, the console's sound library (`rom0:LIBSD`), answered natively: export table `libsd`
//! 1.4 at the console's indices, each call doing to the SPU2's and the DMAC's registers what the
//! console's library does, so that a game's own sound driver (and ps2sdk's audsrv) runs on top
//! unchanged. The library registers only when a program loads `rom0:LIBSD` (a disc's own LIBSD
//! runs as code instead).
//!
//! | idx | call | what it does here |
//! |---|---|---|
//! | 2 | sceSdQuit | stops both cores' DMA, releases the three interrupts |
//! | 4 | sceSdInit(flag) | bit 0 clear: the full reset (voices keyed off, volumes 0, EEA at the top of each core's 128 KiB block, a silent ADPCM block at 0x5000 every voice points at); set: keep volumes and effect |
//! | 5/6 | sceSdSetParam/GetParam(entry) | entry: register index << 8, bit 7 common (0x760 + 40 core) else per core (0x400 core), voice in bits 1-5, core in bit 0 |
//! | 7/8 | sceSdSetSwitch/GetSwitch | the 24-bit voice masks (PMON, NON, KON, KOFF, ENDX, VMIX*), low 16 then high 8 |
//! | 9/10 | sceSdSetAddr/GetAddr | byte addresses into the halfword address registers (hi = addr >> 17, lo = addr >> 1 masked to 8 halfwords; EEA has only hi) |
//! | 11/12 | sceSdSetCoreAttr/GetCoreAttr | effect enable (ATTR bit 7), IRQ enable (6), mute (14), noise clock (8-13), SPDIF mode |
//! | 13/14 | sceSdNote2Pitch/Pitch2Note | the library's note/pitch tables (2^(n/12), 2^(f/1536) in 0x8000 units) |
//! | 15/16 | sceSdProcBatch/ProcBatchEx | the batch's set/get commands in order; an unknown one ends it with -1 - the results given |
//! | 17/19 | sceSdVoiceTrans/VoiceTransStatus | DMA (64-byte blocks) or I/O-port transfers; status 1 waits for the DMA's end |
//! | 18/20 | sceSdBlockTrans/BlockTransStatus | AutoDMA to the core's input, or (read) from one of its output areas (one buffer or two halves in a loop, restarted by the DMA interrupt) |
//! | 21/22/26/27 | callbacks and handlers | run in interrupt context from the DMA (0x24, 0x28) and SPU2 (9) interrupts |
//! | 23/24/25 | sceSdSetEffectAttr/GetEffectAttr/ClearEffectWorkArea | the ten reverb presets, their work area ending at EEA |
//!
//! Facts from ps2sdk's libsd headers and its freesd reimplementation (register map, parameter
//! encodings, the init sequence, the DMA setup, the reverb presets and their sizes); the code is
//! piney's. Two simplifications, both invisible to a program that waits as the library says:
//! the busy-waits of the init (SPU2 reset delays) take no time, and clearing an effect work
//! area writes the zeros at once instead of by DMA.

use crate::hw::dmac::{self, CHCR_BUSY};
use crate::kernel::{Cont, LibDef, Ret, Wait};
use crate::{Iop, IopError};

/// SPU2 register offsets (from 0x1F90_0000) a core's register `off` is at.
const fn core_reg(core: u32, off: u32) -> u32 {
    (core << 10) + off
}

const ATTR: u32 = 0x19a;
const KON: u32 = 0x1a0;
const KOFF: u32 = 0x1a4;
const TSA: u32 = 0x1a8;
const STD: u32 = 0x1ac;
const ADMAS: u32 = 0x1b0;
const MMIX: u32 = 0x198;
const ESA: u32 = 0x2e0;
const EEA: u32 = 0x33c;
const ENDX: u32 = 0x340;
/// Common block: MVOLL of core c at 0x760 + 40 c.
const fn common(core: u32, off: u32) -> u32 {
    0x760 + 40 * core + off
}
const SPDIF_OUT: u32 = 0x7c0;
const IRQINFO: u32 = 0x7c2;
const SPDIF_MODE: u32 = 0x7c6;
const SPDIF_MEDIA: u32 = 0x7c8;

/// ATTR bits.
const ATTR_ON: u16 = 1 << 15;
const ATTR_MUTE: u16 = 1 << 14;
const ATTR_EFFECT: u16 = 1 << 7;
const ATTR_IRQ: u16 = 1 << 6;
const ATTR_DMA: u16 = 3 << 4;
const ATTR_DMA_IO: u16 = 1 << 4;
const ATTR_DMA_WRITE: u16 = 2 << 4;
const ATTR_DMA_READ: u16 = 3 << 4;
const ATTR_EX_INPUT: u16 = 1;

/// The register each parameter, switch and address index names (core 0, voice 0).
const PARAM_REGS: [u32; 0x29] = [
    0x000, 0x002, 0x004, 0x006, 0x008, 0x00a, 0x00c, 0x00e, // voice VOLL..VOLXR
    MMIX, 0x760, 0x762, 0x764, 0x766, 0x768, 0x76a, 0x76c, 0x76e, 0x770, 0x772, // MVOL..MVOLX
    0x180, 0x184, KON, KOFF, ENDX, // PMON, NON, KON, KOFF, ENDX
    0x188, 0x18c, 0x190, 0x194, // VMIXL, VMIXEL, VMIXR, VMIXER
    ESA, EEA, TSA, 0x19c, // ESA, EEA, TSA, IRQA
    0x1c0, 0x1c4, 0x1c8, // voice SSA, LSAX, NAX
    ATTR, TSA, STD, 0x1ae, ADMAS, 0x334,
];

/// The library's pitch table: 12 semitones then 128 fine steps of an octave, in 0x8000 units.
const NOTE_PITCH: [u16; 140] = [
    0x8000, 0x879C, 0x8FAC, 0x9837, 0xA145, 0xAADC, 0xB504, 0xBFC8, 0xCB2F, 0xD744, 0xE411, 0xF1A1,
    0x8000, 0x800E, 0x801D, 0x802C, 0x803B, 0x804A, 0x8058, 0x8067, 0x8076, 0x8085, 0x8094, 0x80A3,
    0x80B1, 0x80C0, 0x80CF, 0x80DE, 0x80ED, 0x80FC, 0x810B, 0x811A, 0x8129, 0x8138, 0x8146, 0x8155,
    0x8164, 0x8173, 0x8182, 0x8191, 0x81A0, 0x81AF, 0x81BE, 0x81CD, 0x81DC, 0x81EB, 0x81FA, 0x8209,
    0x8218, 0x8227, 0x8236, 0x8245, 0x8254, 0x8263, 0x8272, 0x8282, 0x8291, 0x82A0, 0x82AF, 0x82BE,
    0x82CD, 0x82DC, 0x82EB, 0x82FA, 0x830A, 0x8319, 0x8328, 0x8337, 0x8346, 0x8355, 0x8364, 0x8374,
    0x8383, 0x8392, 0x83A1, 0x83B0, 0x83C0, 0x83CF, 0x83DE, 0x83ED, 0x83FD, 0x840C, 0x841B, 0x842A,
    0x843A, 0x8449, 0x8458, 0x8468, 0x8477, 0x8486, 0x8495, 0x84A5, 0x84B4, 0x84C3, 0x84D3, 0x84E2,
    0x84F1, 0x8501, 0x8510, 0x8520, 0x852F, 0x853E, 0x854E, 0x855D, 0x856D, 0x857C, 0x858B, 0x859B,
    0x85AA, 0x85BA, 0x85C9, 0x85D9, 0x85E8, 0x85F8, 0x8607, 0x8617, 0x8626, 0x8636, 0x8645, 0x8655,
    0x8664, 0x8674, 0x8683, 0x8693, 0x86A2, 0x86B2, 0x86C1, 0x86D1, 0x86E0, 0x86F0, 0x8700, 0x870F,
    0x871F, 0x872E, 0x873E, 0x874E, 0x875D, 0x876D, 0x877D, 0x878C,
];

/// Each effect mode's work area, in 16-byte units (off, room, studio small/medium/large, hall,
/// space, echo, delay, pipe).
const EFFECT_SIZES: [u32; 10] = [
    0x1, 0x26C, 0x1F4, 0x484, 0x6FE, 0xADE, 0xF6C, 0x1804, 0x1804, 0x3C0,
];

/// Each mode's 32 reverb settings, in the order the library writes them: FB_SRC_A, FB_SRC_B,
/// the eight coefficients (IIR_ALPHA, ACC_COEF_A..D, IIR_COEF, FB_ALPHA, FB_X), the twenty
/// addresses IIR_DEST_A0..MIX_DEST_B1, IN_COEF_L, IN_COEF_R. (Addresses in 8-byte units.)
const EFFECT_PARAMS: [[u16; 32]; 10] = {
    const RAW: [u32; 160] = [
        0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00010001, 0x00000000,
        0x00000000, 0x00000000, 0x00010001, 0x00000000, 0x00000000, 0x00000000, 0x00000000,
        0x00000000, 0x00000000, 0x005B007D, 0x54B86D80, 0x0000BED0, 0xBA800000, 0x53005800,
        0x033304D6, 0x022703F0, 0x01EF0374, 0x01B70336, 0x01B60335, 0x01B50334, 0x01B50334,
        0x01B50334, 0x013601B4, 0x005C00B8, 0x80008000, 0x00250033, 0x4FA870F0, 0x4410BCE0,
        0x9C00C0F0, 0x4EC05280, 0x031B03E4, 0x02AF03A4, 0x02660372, 0x025D031C, 0x018E025C,
        0x0135022F, 0x00B701D2, 0x00B5018F, 0x008000B4, 0x0026004C, 0x80008000, 0x007F00B1,
        0x4FA870F0, 0x4510BCE0, 0xB4C0BEF0, 0x4EC05280, 0x076B0904, 0x065F0824, 0x061607A2,
        0x05ED076C, 0x042E05EC, 0x0305050F, 0x02B70462, 0x0265042F, 0x01B20264, 0x00800100,
        0x80008000, 0x00A900E3, 0x4FA86F60, 0x4510BCE0, 0xA680BEF0, 0x52C05680, 0x0B580DFB,
        0x0A3C0D09, 0x09730BD9, 0x08DA0B59, 0x05E908D9, 0x04B007EC, 0x03D206EF, 0x031D05EA,
        0x0238031C, 0x00AA0154, 0x80008000, 0x013901A5, 0x50006000, 0xB8004C00, 0xC000BC00,
        0x5C006000, 0x11BB15BA, 0x10BD14C2, 0x0DC111BC, 0x0DC311C0, 0x09C10DC0, 0x07C10BC4,
        0x06CD0A00, 0x05C109C2, 0x041A05C0, 0x013A0274, 0x80008000, 0x0231033D, 0x50007E00,
        0xB000B400, 0xB0004C00, 0x54006000, 0x1A311ED6, 0x183B1D14, 0x16B21BC2, 0x15EF1A32,
        0x105515EE, 0x0F2D1334, 0x0C5D11F6, 0x0AE11056, 0x07A20AE0, 0x02320464, 0x80008000,
        0x00030003, 0x7FFF7FFF, 0x00000000, 0x81000000, 0x00000000, 0x0FFD1FFD, 0x00091009,
        0x00000000, 0x00091009, 0x1FFF1FFF, 0x1FFE1FFE, 0x1FFE1FFE, 0x1FFE1FFE, 0x10041008,
        0x00040008, 0x80008000, 0x00030003, 0x7FFF7FFF, 0x00000000, 0x00000000, 0x00000000,
        0x0FFD1FFD, 0x00091009, 0x00000000, 0x00091009, 0x1FFF1FFF, 0x1FFE1FFE, 0x1FFE1FFE,
        0x1FFE1FFE, 0x10041008, 0x00040008, 0x80008000, 0x00130017, 0x4FA870F0, 0x4510BCE0,
        0x8500BEF0, 0x54C05F80, 0x02AF0371, 0x01DF02E5, 0x01D702B0, 0x026A0358, 0x011E01D6,
        0x00B1012D, 0x0059011F, 0x00E301A0, 0x00400058, 0x00140028, 0x80008000,
    ];
    // Each word holds two settings, the first in its low half.
    let mut out = [[0u16; 32]; 10];
    let mut i = 0;
    while i < 160 {
        out[i / 16][2 * (i % 16)] = RAW[i] as u16;
        out[i / 16][2 * (i % 16) + 1] = (RAW[i] >> 16) as u16;
        i += 1;
    }
    out
};

/// The library's state (a reboot forgets it with the module).
#[derive(Debug, Default, Clone, serde::Serialize, serde::Deserialize)]
pub struct Libsd {
    /// Whether rom0:LIBSD was loaded (its module id).
    pub module: Option<i32>,
    trans_handler: [(u32, u32); 2],
    trans_callback: [u32; 2],
    spu2_handler: (u32, u32),
    irq_callback: u32,
    /// Per core: the transfer kind (bit 8 block, bit 9 read, bit 12 loop).
    trans_mode: [u32; 2],
    /// Voice transfer finished and not yet reported by VoiceTransStatus.
    trans_complete: [bool; 2],
    /// VoiceTransStatus reported the last transfer.
    trans_status: [bool; 2],
    io_mode: [bool; 2],
    block_buf: [u32; 2],
    block_addr: [u32; 2],
    block_size: [u32; 2],
    /// sceSdEffectAttr per core: mode, depth L/R, delay, feedback.
    effect: [(u32, u16, u16, u32, u32); 2],
    spdif: u16,
}

const MODE_BLOCK: u32 = 0x100;
const MODE_READ: u32 = 0x200;
const MODE_LOOP: u32 = 0x1000;

/// The wait of a thread in VoiceTransStatus(core, 1).
const WAIT_TRANS: u32 = 0x5344_0000;
/// Continuation: a callback or handler called from an interrupt returned (data: ra).
pub const CONT_CALLBACK: u32 = 0x5344_0001;

impl Iop {
    fn sd_read(&mut self, off: u32) -> u16 {
        self.bus.hw.now = self.cpu.cycles;
        self.bus.hw.read(0x1f90_0000 + off, 2).unwrap_or(0) as u16
    }

    fn sd_write(&mut self, off: u32, v: u16) {
        self.bus.hw.now = self.cpu.cycles;
        self.bus.hw.write(0x1f90_0000 + off, 2, v as u32);
        if std::mem::take(&mut self.bus.hw.spu2_irq) {
            self.bus.hw.intc.raise(crate::hw::intc::line::SPU);
        }
    }

    fn sd_modify(&mut self, off: u32, f: impl FnOnce(u16) -> u16) {
        let v = self.sd_read(off);
        self.sd_write(off, f(v));
    }

    /// The DMA channel of `core`: its MADR, BCR, CHCR written as the library writes them.
    fn sd_dma(&mut self, core: u32, madr: u32, bcr: u32, chcr: u32) -> Result<(), IopError> {
        let ch = if core == 0 { 4 } else { 7 };
        let base = dmac::channel_base(ch);
        self.bus.hw.write(base, 4, madr);
        self.bus.hw.write(base + 4, 4, bcr);
        self.bus.hw.write(base + 8, 4, chcr);
        self.dma_started()
    }

    fn sd_chcr(&self, core: u32) -> u32 {
        self.bus.hw.dmac.ch[if core == 0 { 4 } else { 7 }].chcr
    }

    fn sd_busy(&mut self, core: u32) -> bool {
        self.sd_read(core_reg(core, ATTR)) & ATTR_DMA != 0 || self.sd_chcr(core) & CHCR_BUSY != 0
    }

    /// Set TSA to byte address `addr`.
    fn sd_tsa(&mut self, core: u32, addr: u32) {
        self.sd_write(core_reg(core, TSA), (addr >> 17) as u16);
        self.sd_write(core_reg(core, TSA) + 2, (addr >> 1) as u16);
    }

    /// The SPU2 ports of the SSBUS: the delay/size registers the library sets so the DMA
    /// reaches the SPU2 (0x1f80_1014 and 0x1f80_1414: SPU2 access timing; 0x1f80_1404/140c its
    /// window), the channels' DPCR enables.
    fn sd_bus_init(&mut self) {
        for (a, v) in [
            (0x1f80_1404, 0xbf90_0000),
            (0x1f80_140c, 0xbf90_0800),
            (0x1f80_1014, 0x200b_31e1),
            (0x1f80_1414, 0x200b_31e1),
        ] {
            self.bus.hw.write(a, 4, v);
        }
        self.bus.hw.dmac.dpcr |= 0x000b_0000;
        self.bus.hw.dmac.dpcr2 |= 8;
    }
}

/// Guest pointer check: `len` bytes at `addr` inside IOP RAM.
fn check(iop: &Iop, what: &str, addr: u32, len: u32) -> Result<(), IopError> {
    let a = addr & 0x1fff_ffff;
    if a as u64 + len as u64 > 0x20_0000 {
        return Err(iop.fault(format!(
            "libsd: {what} at {addr:#010x} ({len} bytes) is outside IOP RAM"
        )));
    }
    Ok(())
}

fn v(x: u32) -> Result<Ret, IopError> {
    Ok(Ret::V(x))
}

/// The register an entry names, with its core's and voice's offsets (`voice_stride`: 0x10 for
/// parameters, 0xc for addresses).
fn entry_reg(entry: u32, voice_stride: u32) -> Option<u32> {
    let base = *PARAM_REGS.get(((entry >> 8) & 0xff) as usize)?;
    let core = entry & 1;
    let voice = (entry >> 1) & 0x1f;
    let core_off = if entry & 0x80 != 0 {
        40 * core
    } else {
        0x400 * core
    };
    Some(base + core_off + voice * voice_stride)
}

fn quit(iop: &mut Iop) -> Result<Ret, IopError> {
    for core in 0..2 {
        dma_stop(iop, core);
    }
    for slot in [0x24, 0x28, 9] {
        iop.set_intr_handler(slot, crate::kernel::intr::Handler::default());
    }
    v(0)
}

/// Stop core `core`'s DMA; the library's BlockTransStatus word of where it was.
fn dma_stop(iop: &mut Iop, core: u32) -> u32 {
    let ch = if core == 0 { 4 } else { 7 };
    let at = if iop.sd_read(core_reg(core, ADMAS)) == 0 {
        0
    } else {
        iop.bus.hw.dmac.ch[ch].madr
    };
    iop.bus.hw.dmac.ch[ch].chcr &= !CHCR_BUSY;
    iop.events.cancel(crate::events::EventKind::Dma(ch as u8));
    iop.spu2_transfer[core as usize] = crate::sound::Transfer::default();
    iop.sd_write(core_reg(core, ADMAS), 0);
    (iop.modules.libsd.block_buf[core as usize] << 24) | (at & 0x00ff_ffff)
}

fn init(iop: &mut Iop) -> Result<Ret, IopError> {
    let flag = iop.arg(0) & 1;
    iop.sd_bus_init();
    // S/PDIF: the console's output settings.
    iop.sd_write(SPDIF_MODE, 0x900);
    iop.sd_write(SPDIF_MEDIA, 0x200);
    iop.sd_write(0x7ca, 8);
    if flag == 0 {
        // The full reset: the SPU2 off and on again, both cores quiet.
        iop.sd_write(SPDIF_OUT, 0);
        iop.sd_write(SPDIF_OUT, 0x8000);
        for core in 0..2 {
            iop.sd_write(core_reg(core, ADMAS), 0);
            iop.sd_write(core_reg(core, ATTR), 0);
            iop.sd_write(core_reg(core, ATTR), ATTR_ON);
            iop.sd_write(common(core, 0), 0);
            iop.sd_write(common(core, 2), 0);
            iop.sd_write(core_reg(core, KOFF), 0xffff);
            iop.sd_write(core_reg(core, KOFF) + 2, 0xffff);
        }
        for r in [0x180, 0x182, 0x184, 0x186] {
            iop.sd_write(core_reg(1, r), 0);
        }
    }
    let keep = std::mem::take(&mut iop.modules.libsd);
    iop.modules.libsd = Libsd {
        module: keep.module,
        trans_status: [true; 2],
        trans_mode: [0, 1],
        spdif: keep.spdif,
        ..Libsd::default()
    };
    // The interrupt handlers: the two DMA channels' and the SPU2's.
    let t = iop.native_address("libsd.i", 0).expect("libsd handler");
    let s = iop.native_address("libsd.i", 1).expect("libsd handler");
    use crate::kernel::intr::Handler;
    iop.set_intr_handler(
        0x24,
        Handler {
            field: t | 1,
            arg: 0,
        },
    );
    iop.set_intr_handler(
        0x28,
        Handler {
            field: t | 1,
            arg: 1,
        },
    );
    iop.set_intr_handler(
        9,
        Handler {
            field: s | 1,
            arg: 0,
        },
    );
    if flag == 0 {
        for core in 0..2 {
            let eea = eea(iop, core);
            set_esa(iop, core, eea.wrapping_sub((EFFECT_SIZES[0] << 4) - 2));
        }
    }
    // The voices: a silent looping block at 0x5000 (written through core 0's I/O port), every
    // voice pointing at it, keyed on and off once, ENDX cleared.
    iop.sd_tsa(0, 0x5000);
    for h in [0x707u16; 8].into_iter().chain([0; 8]) {
        iop.sd_write(STD, h);
    }
    iop.sd_modify(ATTR, |a| (a & !ATTR_DMA) | ATTR_DMA_IO);
    iop.sd_modify(ATTR, |a| a & !ATTR_DMA);
    for voice in 0..24 {
        for core in 0..2 {
            let vr = core_reg(core, voice * 0x10);
            iop.sd_write(vr, 0);
            iop.sd_write(vr + 2, 0);
            iop.sd_write(vr + 4, 0x3fff);
            iop.sd_write(vr + 6, 0);
            iop.sd_write(vr + 8, 0);
            let va = core_reg(core, 0x1c0 + voice * 0xc);
            iop.sd_write(va, 0);
            iop.sd_write(va + 2, 0x5000 >> 1);
        }
    }
    for core in 0..2 {
        iop.sd_write(core_reg(core, KON), 0xffff);
        iop.sd_write(core_reg(core, KON) + 2, 0xff);
    }
    // Let the key-on reach the voices before the key-off (the library waits here too).
    iop.cpu.cycles += 2 * piney_spu2::IOP_CYCLES_PER_SAMPLE;
    for core in 0..2 {
        iop.sd_write(core_reg(core, KOFF), 0xffff);
        iop.sd_write(core_reg(core, KOFF) + 2, 0xff);
    }
    iop.cpu.cycles += 2 * piney_spu2::IOP_CYCLES_PER_SAMPLE;
    iop.sd_write(ENDX, 0);
    iop.sd_write(ENDX + 2, 0);
    // The core volumes and mixes: core 0 feeds core 1's external input, core 1 the outputs.
    iop.sd_write(SPDIF_OUT, 0xc032);
    let fx = if flag != 0 { ATTR_EFFECT } else { 0 };
    iop.sd_write(core_reg(0, ATTR), ATTR_ON | ATTR_MUTE | fx);
    iop.sd_write(core_reg(1, ATTR), ATTR_ON | ATTR_MUTE | fx | ATTR_EX_INPUT);
    for core in 0..2 {
        for r in [0x188, 0x190, 0x18c, 0x194] {
            iop.sd_write(core_reg(core, r), 0xffff);
            iop.sd_write(core_reg(core, r) + 2, 0xff);
        }
    }
    iop.sd_write(core_reg(0, MMIX), 0xff0);
    iop.sd_write(core_reg(1, MMIX), 0xffc);
    if flag == 0 {
        for core in 0..2 {
            for off in [0, 2, 4, 6] {
                iop.sd_write(common(core, off), 0);
            }
        }
        iop.sd_write(core_reg(0, EEA), 0xe);
        iop.sd_write(core_reg(1, EEA), 0xf);
    }
    for (core, a) in [(0, 0u16), (1, 0x7fff)] {
        iop.sd_write(common(core, 8), a);
        iop.sd_write(common(core, 10), a);
        iop.sd_write(common(core, 12), 0);
        iop.sd_write(common(core, 14), 0);
    }
    // The three interrupts enabled (DMA channels 4 and 7 in DICR, the SPU2's line).
    iop.bus.hw.dmac.irq_enable(4, true);
    iop.bus.hw.dmac.irq_enable(8, true);
    iop.bus.hw.dmac.dicr |= 1 << 23;
    iop.bus.hw.intc.mask |= (1 << crate::hw::intc::line::SPU) | (1 << crate::hw::intc::line::DMA);
    v(0)
}

fn set_param(iop: &mut Iop) -> Result<Ret, IopError> {
    let (entry, val) = (iop.arg(0) & 0xffff, iop.arg(1) as u16);
    if let Some(r) = entry_reg(entry, 0x10) {
        iop.sd_write(r, val);
    }
    v(0)
}

fn get_param(iop: &mut Iop) -> Result<Ret, IopError> {
    let entry = iop.arg(0) & 0xffff;
    let r = entry_reg(entry, 0x10).map_or(0, |r| iop.sd_read(r));
    v(r as u32)
}

fn switch_reg(entry: u32) -> Option<u32> {
    PARAM_REGS
        .get(((entry >> 8) & 0xff) as usize)
        .map(|b| b + ((entry & 1) << 10))
}

fn set_switch(iop: &mut Iop) -> Result<Ret, IopError> {
    let (entry, val) = (iop.arg(0) & 0xffff, iop.arg(1));
    if let Some(r) = switch_reg(entry) {
        iop.sd_write(r, val as u16);
        iop.sd_write(r + 2, ((val >> 16) & 0xff) as u16);
    }
    v(0)
}

fn get_switch(iop: &mut Iop) -> Result<Ret, IopError> {
    let entry = iop.arg(0) & 0xffff;
    let Some(r) = switch_reg(entry) else {
        return v(0);
    };
    let lo = iop.sd_read(r) as u32;
    let hi = iop.sd_read(r + 2) as u32;
    v(lo | hi << 16)
}

fn addr_reg(entry: u32) -> Option<u32> {
    let base = *PARAM_REGS.get(((entry >> 8) & 0xff) as usize)?;
    Some(base + ((entry & 1) << 10) + ((entry >> 1) & 0x1f) * 0xc)
}

/// EEA has only its high half: the area ends at the last byte of a 128 KiB block.
const ENTRY_EEA: u32 = 0x1d00;

fn set_addr(iop: &mut Iop) -> Result<Ret, IopError> {
    let (entry, val) = (iop.arg(0) & 0xffff, iop.arg(1));
    if let Some(r) = addr_reg(entry) {
        iop.sd_write(r, ((val >> 17) & 0xffff) as u16);
        if entry & 0xff00 != ENTRY_EEA {
            iop.sd_write(r + 2, ((val >> 1) & 0xfff8) as u16);
        }
    }
    v(0)
}

fn get_addr(iop: &mut Iop) -> Result<Ret, IopError> {
    let entry = iop.arg(0) & 0xffff;
    let Some(r) = addr_reg(entry) else {
        return v(0);
    };
    let hi = (iop.sd_read(r) as u32) << 17;
    let lo = if entry & 0xff00 == ENTRY_EEA {
        0x1ffff
    } else {
        (iop.sd_read(r + 2) as u32) << 1
    };
    v(hi | lo)
}

fn eea(iop: &mut Iop, core: u32) -> u32 {
    ((iop.sd_read(core_reg(core, EEA)) as u32) << 17) | 0x1ffff
}

fn set_esa(iop: &mut Iop, core: u32, addr: u32) {
    iop.sd_write(core_reg(core, ESA), (addr >> 17) as u16);
    iop.sd_write(core_reg(core, ESA) + 2, (addr >> 1) as u16);
}

/// ATTR bit of each core attribute (SD_CORE_EFFECT_ENABLE 2, IRQ_ENABLE 4, MUTE_ENABLE 6).
fn attr_shift(entry: u32) -> Option<u32> {
    match entry & !1 {
        2 => Some(7),
        4 => Some(6),
        6 => Some(14),
        _ => None,
    }
}

fn set_core_attr(iop: &mut Iop) -> Result<Ret, IopError> {
    let (entry, val) = (iop.arg(0) & 0xffff, iop.arg(1) as u16);
    let core = entry & 1;
    match entry & !1 {
        // The noise clock: ATTR bits 8-13.
        8 => iop.sd_modify(core_reg(core, ATTR), |a| {
            (a & !0x3f00) | ((val & 0x3f) << 8)
        }),
        0xa => set_spdif_mode(iop, val),
        _ => {
            if let Some(s) = attr_shift(entry) {
                iop.sd_modify(core_reg(core, ATTR), |a| (a & !(1 << s)) | ((val & 1) << s));
            }
        }
    }
    v(0)
}

fn get_core_attr(iop: &mut Iop) -> Result<Ret, IopError> {
    let entry = iop.arg(0) & 0xffff;
    let core = entry & 1;
    let a = iop.sd_read(core_reg(core, ATTR)) as u32;
    v(match entry & !1 {
        8 => (a >> 8) & 0x3f,
        0xa => iop.modules.libsd.spdif as u32,
        _ => attr_shift(entry).map_or(0, |s| (a >> s) & 1),
    })
}

/// SD_CORE_SPDIF_MODE: the output (PCM, bitstream, off...) and the media/copy bits.
fn set_spdif_mode(iop: &mut Iop, val: u16) {
    let mut out = iop.sd_read(SPDIF_OUT);
    let mut mode = iop.sd_read(SPDIF_MODE);
    match val & 0xf {
        0 => {
            mode &= !2;
            out = (val & 0xfef7) | 0x20;
        }
        1 => {
            mode |= 2;
            out = (out & 0xffd7) | 0x100;
        }
        2 => out &= 0xfed7,
        0xf => out = (out & 0xfedf) | 8,
        _ => return,
    }
    if val & 0x80 != 0 {
        mode |= 0x8000;
    } else {
        mode &= 0x7fff;
    }
    match val & 0xf00 {
        0x800 => {
            iop.sd_write(SPDIF_MEDIA, 0x200);
            mode |= 0x1800;
        }
        0x400 => {
            iop.sd_write(SPDIF_MEDIA, 0);
            mode &= 0xe7ff;
        }
        _ => {
            iop.sd_write(SPDIF_MEDIA, 0x200);
            mode = (mode & 0xe7ff) | 0x800;
        }
    }
    iop.sd_write(SPDIF_OUT, out);
    iop.sd_write(SPDIF_MODE, mode);
    iop.modules.libsd.spdif = val;
}

/// sceSdNote2Pitch: the pitch of `note` (+ `fine`/128 semitone) for a sample recorded at
/// `center_note` (+ `center_fine`) played at 0x1000. Octaves above 2 are not reached (the
/// pitch register's top is 0x3fff).
pub fn note_to_pitch(center_note: u16, center_fine: u16, note: u16, fine: i16) -> u16 {
    let cents = (note as i32 - center_note as i32) * 128 + fine as i32 + center_fine as i32;
    let octave = cents.div_euclid(12 * 128);
    let within = cents.rem_euclid(12 * 128);
    let p = (NOTE_PITCH[(within / 128) as usize] as u32
        * NOTE_PITCH[12 + (within % 128) as usize] as u32)
        >> 16;
    let shift = 2 - octave;
    if shift <= 0 {
        p as u16
    } else if shift >= 31 {
        0
    } else {
        ((p + (1 << (shift - 1))) >> shift) as u16
    }
}

/// sceSdPitch2Note: the note (high byte) and fine step (low byte, even) a pitch plays.
pub fn pitch_to_note(center_note: u16, center_fine: u16, pitch: u16) -> u16 {
    let pitch = pitch.min(0x3fff) as u32;
    let bit = if pitch == 0 {
        0
    } else {
        31 - pitch.leading_zeros()
    } as i32;
    let norm = ((pitch << (15 - bit)) & 0xffff) as u16;
    let semi = (0..12).rev().find(|&i| norm >= NOTE_PITCH[i]).unwrap_or(0);
    let rest = ((norm as u32 * 0x8000) / NOTE_PITCH[semi] as u32) as u16;
    let fine = (0..128)
        .rev()
        .find(|&i| rest >= NOTE_PITCH[12 + i])
        .unwrap_or(0);
    let f = (center_fine as i32 + fine as i32 + 1) as u16 as i32;
    let note = (center_note as i32 + semi as i32 + (bit - 12) * 12 + f / 128) * 256;
    ((note + (f & 0x7e)) & 0xfffe) as u16
}

fn note2pitch(iop: &mut Iop) -> Result<Ret, IopError> {
    let p = note_to_pitch(
        iop.arg(0) as u16,
        iop.arg(1) as u16,
        iop.arg(2) as u16,
        iop.arg(3) as i16,
    );
    v(p as u32)
}

fn pitch2note(iop: &mut Iop) -> Result<Ret, IopError> {
    let n = pitch_to_note(iop.arg(0) as u16, iop.arg(1) as u16, iop.arg(2) as u16);
    v(n as u32)
}

/// sceSdProcBatch(batch, rets, num) and sceSdProcBatchEx(batch, rets, num, voices): each
/// 8-byte command {u16 func, u16 entry, u32 value}, in order, `rets` taking each one's result
/// (0 for the setters). The Ex form repeats a voice command whose entry names voice 31 (voice
/// bits 0x3e all set: "every voice of the mask") for each voice set in `voices`, each
/// repetition one result. Returns the results given, or -1 - that count at the first unknown
/// command, which ends the batch (ps2sdk freesd batch.c: `default: return -1 - loop`).
fn proc_batch_common(iop: &mut Iop, voices: Option<u32>) -> Result<Ret, IopError> {
    let (batch, rets, num) = (iop.arg(0), iop.arg(1), iop.arg(2));
    check(
        iop,
        "sceSdProcBatch's commands",
        batch,
        num.saturating_mul(8),
    )?;
    let mut done = 0u32;
    for i in 0..num {
        let at = batch.wrapping_add(8 * i);
        let func = iop.bus.ram_u16(at) as u32;
        let entry = iop.bus.ram_u16(at.wrapping_add(2)) as u32;
        let value = iop.bus.ram_u32(at.wrapping_add(4));
        let targets: Vec<u32> = match voices {
            Some(mask) if matches!(func, 1 | 3 | 0x11 | 0x13) && entry & 0x3e == 0x3e => (0..24)
                .filter(|v| mask & (1 << v) != 0)
                .map(|v| (entry & !0x3e) | (v << 1))
                .collect(),
            _ => vec![entry],
        };
        for e in targets {
            let Some(r) = batch_one(iop, func, e, value)? else {
                return v((-1 - done as i32) as u32);
            };
            if rets != 0 {
                check(
                    iop,
                    "sceSdProcBatch's results",
                    rets.wrapping_add(4 * done),
                    4,
                )?;
                iop.bus.set_ram_u32(rets.wrapping_add(4 * done), r);
            }
            done += 1;
        }
    }
    v(done)
}

/// One batch command's result; `None` for an unknown command.
fn batch_one(iop: &mut Iop, func: u32, entry: u32, value: u32) -> Result<Option<u32>, IopError> {
    let args = |iop: &mut Iop, a: u32, b: u32| {
        iop.cpu.gpr[4] = a;
        iop.cpu.gpr[5] = b;
    };
    let result = |r: Ret| match r {
        Ret::V(x) => x,
        Ret::Done => 0,
    };
    let saved = [
        iop.cpu.gpr[4],
        iop.cpu.gpr[5],
        iop.cpu.gpr[6],
        iop.cpu.gpr[7],
    ];
    let r = match func {
        1 => {
            args(iop, entry, value);
            result(set_param(iop)?)
        }
        2 => {
            args(iop, entry, value);
            result(set_switch(iop)?)
        }
        3 => {
            args(iop, entry, value);
            result(set_addr(iop)?)
        }
        4 => {
            args(iop, entry, value);
            result(set_core_attr(iop)?)
        }
        // SD_BATCH_WRITEIOP: the word `value` stored at IOP address `entry`... as the library
        // does, the address is the value and the data the entry.
        5 => {
            check(iop, "sceSdProcBatch's IOP write", value, 4)?;
            iop.bus.set_ram_u32(value, entry);
            0
        }
        // SD_BATCH_WRITEEE / EERETURN: words for the EE, which LIBSD's own EE side collects;
        // nothing to do on the IOP.
        6 | 7 => 0,
        0x11 => {
            args(iop, entry, 0);
            result(get_param(iop)?)
        }
        0x12 => {
            args(iop, entry, 0);
            result(get_switch(iop)?)
        }
        0x13 => {
            args(iop, entry, 0);
            result(get_addr(iop)?)
        }
        0x14 => {
            args(iop, entry, 0);
            result(get_core_attr(iop)?)
        }
        _ => {
            iop.cpu.gpr[4..8].copy_from_slice(&saved);
            return Ok(None);
        }
    };
    iop.cpu.gpr[4..8].copy_from_slice(&saved);
    Ok(Some(r))
}

fn proc_batch(iop: &mut Iop) -> Result<Ret, IopError> {
    proc_batch_common(iop, None)
}

fn proc_batch_ex(iop: &mut Iop) -> Result<Ret, IopError> {
    let mask = iop.arg(3);
    proc_batch_common(iop, Some(mask))
}

/// The SSBUS delay register of core `core`'s SPU2 port set for a DMA write or read.
fn set_dma_dir(iop: &mut Iop, core: u32, read: bool) {
    let a = 0x1f80_1014 + (core << 10);
    let old = iop.bus.hw.read(a, 4).unwrap_or(0);
    let dir = if read { 0x2200_0000 } else { 0x2000_0000 };
    iop.bus.hw.write(a, 4, old | ((old & 0xf0ff_ffff) | dir));
}

/// sceSdVoiceTrans(chan, mode, iopaddr, spuaddr, size).
fn voice_trans(iop: &mut Iop) -> Result<Ret, IopError> {
    let core = iop.arg(0) & 1;
    let mode = iop.arg(1) & 0xffff;
    let (iopaddr, spuaddr, size) = (iop.arg(2), iop.arg(3), iop.arg(4));
    let io = mode & 8 != 0;
    iop.modules.libsd.io_mode[core as usize] = io;
    let res = if !io {
        voice_trans_dma(iop, core, mode & 3, iopaddr, spuaddr, size)?
    } else if mode & 3 == 0 {
        voice_trans_io(iop, core, iopaddr, spuaddr, size)?
    } else {
        size
    };
    iop.modules.libsd.trans_status[core as usize] = false;
    v(res)
}

fn voice_trans_dma(
    iop: &mut Iop,
    core: u32,
    dir: u32,
    iopaddr: u32,
    spuaddr: u32,
    size: u32,
) -> Result<u32, IopError> {
    if iop.sd_busy(core) || dir > 1 {
        return Ok(u32::MAX);
    }
    check(
        iop,
        "sceSdVoiceTrans's buffer",
        iopaddr,
        size.next_multiple_of(64),
    )?;
    iop.sd_tsa(core, spuaddr);
    let read = dir == 1;
    iop.modules.libsd.trans_mode[core as usize] = if read { MODE_READ } else { 0 };
    iop.sd_modify(core_reg(core, ATTR), |a| {
        (a & !ATTR_DMA) | if read { ATTR_DMA_READ } else { ATTR_DMA_WRITE }
    });
    set_dma_dir(iop, core, read);
    // 16-word (64-byte) blocks, continuous.
    let chcr = CHCR_BUSY | (1 << 9) | u32::from(!read);
    iop.sd_dma(core, iopaddr, (size.div_ceil(64) << 16) | 0x10, chcr)?;
    Ok(size)
}

fn voice_trans_io(
    iop: &mut Iop,
    core: u32,
    iopaddr: u32,
    spuaddr: u32,
    size: u32,
) -> Result<u32, IopError> {
    if iop.sd_busy(core) {
        return Ok(u32::MAX);
    }
    check(iop, "sceSdVoiceTrans's buffer", iopaddr, size)?;
    iop.sd_tsa(core, spuaddr);
    iop.modules.libsd.trans_mode[core as usize] = 0;
    // 64 bytes at a time through the data port, each batch written by the I/O mode.
    let mut left = size;
    let mut at = iopaddr;
    while left > 0 {
        let n = left.min(64);
        for i in (0..n).step_by(2) {
            let h = iop.bus.ram_u16(at.wrapping_add(i));
            iop.sd_write(core_reg(core, STD), h);
        }
        iop.sd_modify(core_reg(core, ATTR), |a| (a & !ATTR_DMA) | ATTR_DMA_IO);
        at = at.wrapping_add(n);
        left -= n;
    }
    iop.sd_modify(core_reg(core, ATTR), |a| a & !ATTR_DMA);
    Ok(0)
}

/// sceSdVoiceTransStatus(chan, flag): 1 once the transfer ended (flag 1 waits for it).
fn voice_trans_status(iop: &mut Iop) -> Result<Ret, IopError> {
    let core = (iop.arg(0) & 1) as usize;
    let wait = iop.arg(1) & 1 != 0;
    let sd = &mut iop.modules.libsd;
    if sd.io_mode[core] || sd.trans_status[core] {
        return v(1);
    }
    if sd.trans_complete[core] {
        sd.trans_complete[core] = false;
        sd.trans_status[core] = true;
        return v(u32::from(wait));
    }
    if !wait {
        return v(0);
    }
    if iop.in_interrupt() || iop.kernel.current.is_none() {
        // A console would spin here forever (the interrupt that ends it cannot come).
        return Err(iop.fault(
            "libsd: sceSdVoiceTransStatus(.., 1) waits inside an interrupt handler: the transfer's own interrupt could never end it".into(),
        ));
    }
    iop.return_to_caller();
    iop.wait_current(Wait::Native(WAIT_TRANS + core as u32));
    Ok(Ret::Done)
}

/// sceSdBlockTrans(chan, mode, iopaddr, size[, startaddr]).
fn block_trans(iop: &mut Iop) -> Result<Ret, IopError> {
    let core = iop.arg(0) & 1;
    let mode = iop.arg(1) & 0xffff;
    let (iopaddr, size) = (iop.arg(2), iop.arg(3));
    let lp = mode & 0x10 != 0;
    let half = if lp { size / 2 } else { size };
    let kind =
        |read: bool| MODE_BLOCK | if read { MODE_READ } else { 0 } | if lp { MODE_LOOP } else { 0 };
    match mode & 3 {
        0 | 3 => {
            let start = if mode & 3 == 3 { iop.arg(4) } else { iopaddr };
            iop.modules.libsd.trans_mode[core as usize] = kind(false);
            let ok = block_write(iop, core, iopaddr, half, lp, start)?;
            v(if ok { 0 } else { u32::MAX })
        }
        1 => {
            iop.modules.libsd.trans_mode[core as usize] = kind(true);
            let ok = block_read(iop, core, iopaddr, half, mode)?;
            v(if ok { 0 } else { u32::MAX })
        }
        _ => v(dma_stop(iop, core)),
    }
}

fn block_write(
    iop: &mut Iop,
    core: u32,
    iopaddr: u32,
    size: u32,
    lp: bool,
    start: u32,
) -> Result<bool, IopError> {
    let sd = &mut iop.modules.libsd;
    let c = core as usize;
    sd.block_buf[c] = 0;
    sd.block_size[c] = size;
    sd.block_addr[c] = iopaddr;
    let mut offset = start.wrapping_sub(iopaddr);
    if offset > size {
        if !lp {
            return Ok(false);
        }
        offset -= size;
        sd.block_buf[c] = 1;
    }
    if offset & 1023 != 0 {
        offset += 1024;
    }
    let from = iopaddr
        .wrapping_add(size * sd.block_buf[c])
        .wrapping_add(offset);
    if iop.sd_busy(core) {
        return Ok(false);
    }
    check(
        iop,
        "sceSdBlockTrans's buffer",
        iopaddr,
        if lp { 2 * size } else { size },
    )?;
    iop.sd_modify(core_reg(core, ATTR), |a| a & 0xffcf);
    iop.sd_tsa(core, 0);
    iop.sd_write(core_reg(core, ADMAS), 1 << core);
    set_dma_dir(iop, core, false);
    let chcr = CHCR_BUSY | (1 << 9) | 1;
    iop.sd_dma(core, from, (size.div_ceil(64) << 16) | 0x10, chcr)?;
    Ok(true)
}

/// sceSdBlockTrans's read: the core's output read back by DMA, as the library sets it up
/// (ps2sdk freesd block.c BlockTransRead): TSA at the output area that `mode`'s bits 8-11
/// pick (halfword 0x400 + 0x200 n: 0x400/0x600 voice 1/3, 0x800/0xa00 core 0's output
/// left/right, 0xc00.. core 1's voices, 0x1000.. the dry and wet mixes), 0x1ae from bits
/// 12-15, ADMAS 4, then channel 4/7 from sound RAM in 64-byte blocks. The DMA paces it as
/// the core makes its output (crate::sound).
fn block_read(
    iop: &mut Iop,
    core: u32,
    iopaddr: u32,
    size: u32,
    mode: u32,
) -> Result<bool, IopError> {
    let sd = &mut iop.modules.libsd;
    let c = core as usize;
    sd.block_buf[c] = 0;
    sd.block_size[c] = size;
    sd.block_addr[c] = iopaddr;
    if iop.sd_busy(core) {
        return Ok(false);
    }
    let lp = mode & 0x10 != 0;
    check(
        iop,
        "sceSdBlockTrans's buffer",
        iopaddr,
        if lp { 2 * size } else { size },
    )?;
    iop.sd_modify(core_reg(core, ATTR), |a| a & 0xffcf);
    iop.sd_write(core_reg(core, TSA), 0);
    iop.sd_write(
        core_reg(core, TSA) + 2,
        (((mode & 0xf00) << 1) + 0x400) as u16,
    );
    iop.sd_write(core_reg(core, 0x1ae), ((mode & 0xf000) >> 11) as u16);
    iop.sd_write(core_reg(core, ADMAS), 4);
    set_dma_dir(iop, core, true);
    let chcr = CHCR_BUSY | (1 << 9);
    iop.sd_dma(core, iopaddr, (size.div_ceil(64) << 16) | 0x10, chcr)?;
    Ok(true)
}

fn block_trans_status(iop: &mut Iop) -> Result<Ret, IopError> {
    let core = iop.arg(0) & 1;
    let at = if iop.sd_read(core_reg(core, ADMAS)) == 0 {
        0
    } else {
        iop.bus.hw.dmac.ch[if core == 0 { 4 } else { 7 }].madr
    };
    v((iop.modules.libsd.block_buf[core as usize] << 24) | (at & 0x00ff_ffff))
}

fn set_trans_callback(iop: &mut Iop) -> Result<Ret, IopError> {
    let (core, cb) = ((iop.arg(0) & 1) as usize, iop.arg(1));
    v(std::mem::replace(
        &mut iop.modules.libsd.trans_callback[core],
        cb,
    ))
}

fn set_irq_callback(iop: &mut Iop) -> Result<Ret, IopError> {
    let cb = iop.arg(0);
    v(std::mem::replace(&mut iop.modules.libsd.irq_callback, cb))
}

fn set_trans_intr_handler(iop: &mut Iop) -> Result<Ret, IopError> {
    let (core, f, data) = ((iop.arg(0) & 1) as usize, iop.arg(1), iop.arg(2));
    let old = std::mem::replace(&mut iop.modules.libsd.trans_handler[core], (f, data));
    v(old.0)
}

fn set_spu2_intr_handler(iop: &mut Iop) -> Result<Ret, IopError> {
    let (f, data) = (iop.arg(0), iop.arg(1));
    let old = std::mem::replace(&mut iop.modules.libsd.spu2_handler, (f, data));
    v(old.0)
}

/// sceSdSetEffectAttr(core, attr): attr = {int core, int mode, short depth_L, short depth_R,
/// int delay, int feedback}.
fn set_effect_attr(iop: &mut Iop) -> Result<Ret, IopError> {
    let (core, attr) = (iop.arg(0) & 1, iop.arg(1));
    check(iop, "sceSdSetEffectAttr's attributes", attr, 20)?;
    let mut mode = iop.bus.ram_u32(attr.wrapping_add(4));
    let depth_l = iop.bus.ram_u16(attr.wrapping_add(8));
    let depth_r = iop.bus.ram_u16(attr.wrapping_add(10));
    let delay = iop.bus.ram_u32(attr.wrapping_add(12));
    let feedback = iop.bus.ram_u32(attr.wrapping_add(16));
    let clear = mode & 0x100 != 0;
    mode &= !0x100;
    let last_mode = iop.modules.libsd.effect[core as usize].0;
    if mode > 9 {
        return v(u32::MAX);
    }
    let area = eea(iop, core).wrapping_sub((EFFECT_SIZES[mode as usize] << 4) - 2);
    let mut data = EFFECT_PARAMS[mode as usize];
    // What GetEffectAttr gives back: echo and delay keep their feedback/delay, the others 0.
    let (kept_delay, kept_feedback) = match mode {
        7 => (0x80, 0x80),
        8 => (0x80, 0),
        _ => (0, 0),
    };
    iop.modules.libsd.effect[core as usize] = (mode, depth_l, depth_r, kept_delay, kept_feedback);
    if mode == 7 || mode == 8 {
        let d = ((delay + 1) << 5) as u16;
        let fb = (((feedback << 7) + feedback) << 1) as u16;
        data[7] = fb;
        data[10] = (d << 1).wrapping_sub(data[0]);
        data[11] = d.wrapping_sub(data[1]);
        data[16] = data[17].wrapping_add(d);
        data[12] = data[13].wrapping_add(d);
        data[27] = data[29].wrapping_add(d);
        data[26] = data[28].wrapping_add(d);
    }
    let was_on = iop.sd_read(core_reg(core, ATTR)) & ATTR_EFFECT != 0;
    if was_on {
        iop.sd_modify(core_reg(core, ATTR), |a| a & !ATTR_EFFECT);
        if clear {
            clear_area(iop, core, last_mode);
        }
    }
    iop.sd_write(common(core, 4), depth_l);
    iop.sd_write(common(core, 6), depth_r);
    // FB_SRC_A/B and the twenty addresses are 32-bit address pairs in 8-byte units; the eight
    // coefficients and IN_COEF halfwords.
    let pair = |iop: &mut Iop, reg: u32, val: u16| {
        let a = (val as u32) << 2;
        iop.sd_write(core_reg(core, reg), (a >> 16) as u16);
        iop.sd_write(core_reg(core, reg) + 2, a as u16);
    };
    pair(iop, 0x2e4, data[0]);
    pair(iop, 0x2e8, data[1]);
    for i in 0..8 {
        iop.sd_write(common(core, 0x14 + 2 * i), data[2 + i as usize]);
    }
    for i in 0..20 {
        pair(iop, 0x2ec + 4 * i, data[10 + i as usize]);
    }
    iop.sd_write(common(core, 0x24), data[30]);
    iop.sd_write(common(core, 0x26), data[31]);
    set_esa(iop, core, area);
    if clear {
        clear_area(iop, core, mode);
    }
    if was_on {
        iop.sd_modify(core_reg(core, ATTR), |a| a | ATTR_EFFECT);
    }
    v(0)
}

fn get_effect_attr(iop: &mut Iop) -> Result<Ret, IopError> {
    let (core, attr) = (iop.arg(0) & 1, iop.arg(1));
    check(iop, "sceSdGetEffectAttr's attributes", attr, 20)?;
    let (mode, l, r, delay, feedback) = iop.modules.libsd.effect[core as usize];
    iop.bus.set_ram_u32(attr, core);
    iop.bus.set_ram_u32(attr.wrapping_add(4), mode);
    iop.bus.set_ram_u16(attr.wrapping_add(8), l);
    iop.bus.set_ram_u16(attr.wrapping_add(10), r);
    iop.bus.set_ram_u32(attr.wrapping_add(12), delay);
    iop.bus.set_ram_u32(attr.wrapping_add(16), feedback);
    v(0)
}

/// Zero effect mode `mode`'s work area below core `core`'s EEA.
fn clear_area(iop: &mut Iop, core: u32, mode: u32) {
    if mode == 0 || mode > 9 {
        return;
    }
    let size = EFFECT_SIZES[mode as usize] << 4;
    let start = eea(iop, core).wrapping_sub(size - 2);
    iop.sd_tsa(core, start);
    iop.spu2_sync();
    let zeros = vec![0u16; (size / 2) as usize];
    iop.bus.hw.spu2.dma_write(core as usize, &zeros);
    iop.bus.hw.spu2.dma_end(core as usize);
}

fn clear_effect_work_area(iop: &mut Iop) -> Result<Ret, IopError> {
    let (core, mode) = (iop.arg(0) & 1, iop.arg(2));
    if mode > 9 {
        return v(u32::MAX);
    }
    clear_area(iop, core, mode);
    v(0)
}

/// libsd's handler of the DMA interrupts 0x24 (core 0) and 0x28 (core 1); `arg` is the core.
fn trans_interrupt(iop: &mut Iop) -> Result<Ret, IopError> {
    let core = iop.arg(0) & 1;
    let c = core as usize;
    let mode = iop.modules.libsd.trans_mode[c];
    let read = mode & MODE_READ != 0;
    if mode & MODE_BLOCK == 0 {
        iop.sd_modify(core_reg(core, ATTR), |a| a & !ATTR_DMA);
        if let Some(r) = trans_notify(iop, core)? {
            return Ok(r);
        }
        iop.modules.libsd.trans_complete[c] = true;
        // A thread waiting in VoiceTransStatus(.., 1) sees it.
        let waiters: Vec<u32> = iop
            .kernel
            .threads
            .iter()
            .filter(|(_, t)| t.wait == Wait::Native(WAIT_TRANS + core))
            .map(|(id, _)| *id)
            .collect();
        if !waiters.is_empty() {
            iop.modules.libsd.trans_complete[c] = false;
            iop.modules.libsd.trans_status[c] = true;
        }
        for t in waiters {
            iop.wake_later(t, 1);
        }
        return v(1);
    }
    if mode & MODE_LOOP != 0 {
        // The other half of the buffer, at once.
        let sd = &mut iop.modules.libsd;
        sd.block_buf[c] = 1 - sd.block_buf[c];
        let (size, buf, addr) = (sd.block_size[c], sd.block_buf[c], sd.block_addr[c]);
        let chcr = CHCR_BUSY | (1 << 9) | u32::from(!read);
        iop.sd_dma(
            core,
            addr.wrapping_add(size * buf),
            (size.div_ceil(64) << 16) | 0x10,
            chcr,
        )?;
    } else {
        iop.sd_modify(core_reg(core, ATTR), |a| a & !ATTR_DMA);
        iop.sd_modify(core_reg(core, MMIX), |m| m & 0xff3f);
        iop.sd_write(core_reg(core, ADMAS), 0);
    }
    Ok(trans_notify(iop, core)?.unwrap_or(Ret::V(1)))
}

/// A transfer's end told to the program: its handler (core, data), else its callback (0), from
/// interrupt context; `None` when it set neither.
fn trans_notify(iop: &mut Iop, core: u32) -> Result<Option<Ret>, IopError> {
    let c = core as usize;
    let (h, data) = iop.modules.libsd.trans_handler[c];
    let cb = iop.modules.libsd.trans_callback[c];
    if h != 0 {
        return call_from_interrupt(iop, h, &[core, data]).map(Some);
    }
    if cb != 0 {
        return call_from_interrupt(iop, cb, &[0]).map(Some);
    }
    Ok(None)
}

/// libsd's handler of the SPU2's interrupt (line 9): which cores reached IRQA (IRQINFO bits 2
/// and 3), their IRQ enables cleared (as the library does: a program re-arms it), then the
/// program's handler or callback.
fn spu2_interrupt(iop: &mut Iop) -> Result<Ret, IopError> {
    let cores = ((iop.sd_read(IRQINFO) & 0xc) >> 2) as u32;
    if cores == 0 {
        return v(1);
    }
    for core in 0..2 {
        if cores & (1 << core) != 0 {
            iop.sd_modify(core_reg(core, ATTR), |a| a & !ATTR_IRQ);
        }
    }
    let (h, data) = iop.modules.libsd.spu2_handler;
    let cb = iop.modules.libsd.irq_callback;
    if h != 0 {
        return call_from_interrupt(iop, h, &[cores, data]);
    }
    if cb != 0 {
        return call_from_interrupt(iop, cb, &[0]);
    }
    v(1)
}

/// Call a program's function from one of libsd's interrupt handlers; the handler returns 1 once
/// it returns.
fn call_from_interrupt(iop: &mut Iop, f: u32, args: &[u32]) -> Result<Ret, IopError> {
    if f & 3 != 0 || !crate::modules::cdvd::in_ram(f, 4) {
        return Err(iop.fault(format!(
            "libsd: a handler or callback given to libsd is {f:#010x}, which is no code in IOP RAM"
        )));
    }
    let ra = iop.native_ret;
    let sp = iop.cpu.gpr[29];
    iop.call_guest_then(
        f,
        args,
        Cont::Module {
            tag: CONT_CALLBACK,
            data: [ra, sp, 0, 0, 0, 0],
        },
    );
    Ok(Ret::Done)
}

/// A program's function called from a libsd interrupt handler returned.
pub fn callback_returned(iop: &mut Iop, data: [u32; 6]) -> Result<(), IopError> {
    let [ra, sp, ..] = data;
    iop.cpu.gpr[29] = sp;
    iop.cpu.gpr[2] = 1;
    iop.cpu.set_pc(ra);
    Ok(())
}

fn retonly(_iop: &mut Iop) -> Result<Ret, IopError> {
    v(0)
}

/// The `libsd` export table, version 1.4 (as the console's rom0:LIBSD and ps2sdk's headers).
pub static LIBSD: LibDef = LibDef {
    name: "libsd",
    version: 0x0104,
    funcs: &[
        (0, "_start", retonly),
        (1, "_retonly", retonly),
        (2, "sceSdQuit", quit),
        (3, "_retonly", retonly),
        (4, "sceSdInit", init),
        (5, "sceSdSetParam", set_param),
        (6, "sceSdGetParam", get_param),
        (7, "sceSdSetSwitch", set_switch),
        (8, "sceSdGetSwitch", get_switch),
        (9, "sceSdSetAddr", set_addr),
        (10, "sceSdGetAddr", get_addr),
        (11, "sceSdSetCoreAttr", set_core_attr),
        (12, "sceSdGetCoreAttr", get_core_attr),
        (13, "sceSdNote2Pitch", note2pitch),
        (14, "sceSdPitch2Note", pitch2note),
        (15, "sceSdProcBatch", proc_batch),
        (16, "sceSdProcBatchEx", proc_batch_ex),
        (17, "sceSdVoiceTrans", voice_trans),
        (18, "sceSdBlockTrans", block_trans),
        (19, "sceSdVoiceTransStatus", voice_trans_status),
        (20, "sceSdBlockTransStatus", block_trans_status),
        (21, "sceSdSetTransCallback", set_trans_callback),
        (22, "sceSdSetIRQCallback", set_irq_callback),
        (23, "sceSdSetEffectAttr", set_effect_attr),
        (24, "sceSdGetEffectAttr", get_effect_attr),
        (25, "sceSdClearEffectWorkArea", clear_effect_work_area),
        (26, "sceSdSetTransIntrHandler", set_trans_intr_handler),
        (27, "sceSdSetSpu2IntrHandler", set_spu2_intr_handler),
    ],
};

/// libsd's own interrupt handlers (not exported: they sit in its text, registered by
/// sceSdInit).
pub static LIBSD_INTERNAL: LibDef = LibDef {
    name: "libsd.i",
    version: 0x0104,
    funcs: &[
        (0, "TransInterrupt", trans_interrupt),
        (1, "Spu2Interrupt", spu2_interrupt),
    ],
};

/// `rom0:LIBSD` loaded: the library registers (once per boot).
pub fn load(iop: &mut Iop) -> i32 {
    if let Some(id) = iop.modules.libsd.module {
        return id;
    }
    let id = crate::kernel::image::place_late(iop, "libsd", &LIBSD, &LIBSD_INTERNAL);
    iop.modules.libsd.module = Some(id);
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_at_its_centre_plays_at_0x1000_and_an_octave_doubles_it() {
        assert_eq!(note_to_pitch(60, 0, 60, 0), 0x1000);
        assert_eq!(note_to_pitch(60, 0, 72, 0), 0x2000);
        assert_eq!(note_to_pitch(60, 0, 48, 0), 0x0800);
        assert_eq!(note_to_pitch(60, 0, 84, 0), 0x4000);
        // A semitone up: 0x1000 * 0x879c / 0x8000, rounded as the library shifts.
        assert_eq!(note_to_pitch(60, 0, 61, 0), 0x10f4);
    }

    #[test]
    fn pitch_to_note_inverts_note_to_pitch_on_semitones() {
        for note in 36..84u16 {
            let p = note_to_pitch(60, 0, note, 0);
            assert_eq!(
                pitch_to_note(60, 0, p) >> 8,
                note,
                "note {note} pitch {p:#x}"
            );
        }
    }

    #[test]
    fn the_presets_unpack_low_half_first() {
        // Room: the first all-pass offsets 0x7d and 0x5b; every preset's inputs at full scale.
        assert_eq!(EFFECT_PARAMS[1][0], 0x007d);
        assert_eq!(EFFECT_PARAMS[1][1], 0x005b);
        for p in &EFFECT_PARAMS[1..] {
            assert_eq!((p[30], p[31]), (0x8000, 0x8000));
        }
    }
}
