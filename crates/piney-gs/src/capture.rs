//! Capturing a live run as a PCSX2 GS dump (`piney run --dump-gs FILE`): what crossed the GIF
//! into the GS, path by path and in the order the GS took it, the privileged registers at each
//! vertical blank, and the power-on state it started from. `piney replay` of the file runs it
//! through the same [`crate::Gs`] and [`crate::gif::GifPath`] as the live run did, so it gives
//! the live run's frames.
//!
//! Facts (PCSX2 `GSDump.cpp`): a Transfer packet names its GIF path (1 to 3); at a vertical
//! blank the dumper writes the privileged registers (a Registers packet) and then a VSync
//! packet with the field.

use crate::dump::{DumpHeader, GsDump, Packet, SavedState};
use crate::gs::reg;
use crate::mem::LocalMemory;

/// The PCSX2 state version [`SavedState::build_v8`] writes.
const STATE_VERSION: u32 = 8;

/// A GS dump being recorded.
#[derive(Debug, Clone)]
pub struct Capture {
    dump: GsDump,
}

impl Capture {
    /// A capture starting from a power-on GS (registers as after reset, local memory zeroed)
    /// whose privileged registers are `priv_block` (8 KiB as at 0x12000000), for the game
    /// `serial` (may be empty) with `crc` (the boot ELF's, 0 if none).
    pub fn new(priv_block: Vec<u8>, serial: &str, crc: u32) -> Self {
        // What differs from zero in a reset GS: PRMODECONT.AC = 1, Q = 1.0, TRXDIR = 3 (idle).
        let regs = [
            (reg::PRMODECONT, 1),
            (reg::RGBAQ, 0x3f80_0000_0000_0000),
            (reg::TRXDIR, 3),
        ];
        let state = SavedState::build_v8(&regs, &LocalMemory::new());
        Capture {
            dump: GsDump {
                header: Some(DumpHeader {
                    state_version: STATE_VERSION,
                    serial: serial.to_string(),
                    screenshot: None,
                }),
                crc,
                state,
                regs: priv_block,
                packets: Vec::new(),
                dropped_tail: None,
            },
        }
    }

    /// One qword the GS took from GIF path `path` (0 PATH1, 1 PATH2, 2 PATH3). Qwords of one
    /// path in a row share a packet.
    pub fn transfer(&mut self, path: usize, qword: u128) {
        let path = (path.min(2) + 1) as u8;
        if let Some(Packet::Transfer { path: p, data }) = self.dump.packets.last_mut()
            && *p == path
        {
            data.extend_from_slice(&qword.to_le_bytes());
            return;
        }
        self.dump.packets.push(Packet::Transfer {
            path,
            data: qword.to_le_bytes().to_vec(),
        });
    }

    /// A vertical blank starts: the privileged registers now (8 KiB), then the field (0 even,
    /// 1 odd).
    pub fn vsync(&mut self, priv_block: Vec<u8>, field: u8) {
        self.dump.packets.push(Packet::Registers(priv_block));
        self.dump.packets.push(Packet::VSync(field));
    }

    /// Vertical blanks recorded so far.
    pub fn frames(&self) -> u64 {
        self.dump
            .packets
            .iter()
            .filter(|p| matches!(p, Packet::VSync(_)))
            .count() as u64
    }

    /// The dump recorded so far.
    pub fn dump(&self) -> &GsDump {
        &self.dump
    }
}

impl Capture {
    /// Writes the dump to `path`, compressed by its name (`.zst`: zstd, `.xz`: xz, else plain).
    pub fn write(&self, path: &std::path::Path) -> std::io::Result<()> {
        let name = path.to_string_lossy();
        let c = if name.ends_with(".zst") {
            crate::dump::Compression::Zstd
        } else if name.ends_with(".xz") {
            crate::dump::Compression::Xz
        } else {
            crate::dump::Compression::None
        };
        std::fs::write(path, crate::dump::compress(&self.dump.to_bytes(), c))
    }
}
