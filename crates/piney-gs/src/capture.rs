//! Capturing a live run as a PCSX2 GS dump (`piney run --dump-gs FILE`): what crossed the GIF
//! into the GS, path by path and in the order the GS took it, the privileged registers at each
//! vertical blank, and the power-on state it started from. `piney replay` of the file runs it
//! through the same [`crate::Gs`] and [`crate::gif::GifPath`] as the live run did, so it gives
//! the live run's frames.
//!
//! The dump is written as the run goes (uncompressed, to `FILE` for `.gs`, to `FILE.part`
//! otherwise) so that a long capture does not grow in memory; [`Capture::finish`] compresses
//! it by the name (`.zst` zstd, `.xz` xz) as a stream and removes the part file.
//!
//! Facts (PCSX2 `GSDump.cpp`): a Transfer packet names its GIF path (1 to 3); at a vertical
//! blank the dumper writes the privileged registers (a Registers packet) and then a VSync
//! packet with the field.

use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::dump::{Compression, DumpHeader, GsDump, Packet, SavedState, write_packet};
use crate::gs::reg;
use crate::mem::LocalMemory;

/// The PCSX2 state version [`SavedState::build_v8`] writes.
const STATE_VERSION: u32 = 8;

/// A Transfer packet is written once it holds this much (a path's data in a row may be long).
const TRANSFER_CHUNK: usize = 1 << 20;

/// A GS dump being recorded to a file.
#[derive(Debug)]
pub struct Capture {
    out: BufWriter<File>,
    /// Where the uncompressed dump goes while recording.
    raw_path: PathBuf,
    /// The file asked for.
    path: PathBuf,
    compression: Compression,
    /// The Transfer packet being gathered: its path (1 to 3) and data.
    pending: Option<(u8, Vec<u8>)>,
    frames: u64,
    /// The first write error, reported by [`Capture::finish`].
    error: Option<std::io::Error>,
}

impl Capture {
    /// Starts a capture into `path` from a power-on GS (registers as after reset, local memory
    /// zeroed) whose privileged registers are `priv_block` (8 KiB as at 0x12000000), for the
    /// game `serial` (may be empty) with `crc` (the boot ELF's, 0 if none).
    pub fn create(
        path: &Path,
        priv_block: Vec<u8>,
        serial: &str,
        crc: u32,
    ) -> std::io::Result<Capture> {
        // What differs from zero in a reset GS: PRMODECONT.AC = 1, Q = 1.0, TRXDIR = 3 (idle).
        let regs = [
            (reg::PRMODECONT, 1),
            (reg::RGBAQ, 0x3f80_0000_0000_0000),
            (reg::TRXDIR, 3),
        ];
        Self::create_from(path, &regs, &LocalMemory::new(), priv_block, serial, crc)
    }

    /// Starts a capture into `path` from a running GS: its general registers `regs` (as
    /// [`crate::Gs::reg_values`] gives them), its local memory `mem` and privileged registers
    /// `priv_block`. The GS must be [`crate::Gs::quiescent`] and every GIF path between
    /// packets, since the dump's state holds neither queued vertices nor a path's place.
    pub fn create_from(
        path: &Path,
        regs: &[(u8, u64)],
        mem: &LocalMemory,
        priv_block: Vec<u8>,
        serial: &str,
        crc: u32,
    ) -> std::io::Result<Capture> {
        let name = path.to_string_lossy();
        let compression = if name.ends_with(".zst") {
            Compression::Zstd
        } else if name.ends_with(".xz") {
            Compression::Xz
        } else {
            Compression::None
        };
        let raw_path = match compression {
            Compression::None => path.to_path_buf(),
            _ => {
                let mut p = path.as_os_str().to_owned();
                p.push(".part");
                PathBuf::from(p)
            }
        };
        let head = GsDump {
            header: Some(DumpHeader {
                state_version: STATE_VERSION,
                serial: serial.to_string(),
                screenshot: None,
            }),
            crc,
            state: SavedState::build_v8(regs, mem),
            regs: priv_block,
            packets: Vec::new(),
            dropped_tail: None,
        }
        .head_bytes();
        let mut out = BufWriter::new(File::create(&raw_path)?);
        out.write_all(&head)?;
        Ok(Capture {
            out,
            raw_path,
            path: path.to_path_buf(),
            compression,
            pending: None,
            frames: 0,
            error: None,
        })
    }

    fn write(&mut self, p: &Packet) {
        let mut bytes = Vec::new();
        write_packet(&mut bytes, p);
        if self.error.is_none()
            && let Err(e) = self.out.write_all(&bytes)
        {
            self.error = Some(e);
        }
    }

    fn flush_transfer(&mut self) {
        if let Some((path, data)) = self.pending.take() {
            self.write(&Packet::Transfer { path, data });
        }
    }

    /// One qword the GS took from GIF path `path` (0 PATH1, 1 PATH2, 2 PATH3). Qwords of one
    /// path in a row share a packet.
    pub fn transfer(&mut self, path: usize, qword: u128) {
        let path = (path.min(2) + 1) as u8;
        if self
            .pending
            .as_ref()
            .is_some_and(|(p, d)| *p != path || d.len() >= TRANSFER_CHUNK)
        {
            self.flush_transfer();
        }
        self.pending
            .get_or_insert_with(|| (path, Vec::new()))
            .1
            .extend_from_slice(&qword.to_le_bytes());
    }

    /// A vertical blank starts: the privileged registers now (8 KiB), then the field (0 even,
    /// 1 odd).
    pub fn vsync(&mut self, priv_block: Vec<u8>, field: u8) {
        self.flush_transfer();
        self.write(&Packet::Registers(priv_block));
        self.write(&Packet::VSync(field));
        self.frames += 1;
    }

    /// Vertical blanks recorded so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Ends the capture: the last packet written, the file compressed by its name. Returns the
    /// frames recorded, or the first error (the part file is then left for inspection).
    pub fn finish(mut self) -> std::io::Result<u64> {
        self.flush_transfer();
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.flush()?;
        drop(self.out);
        match self.compression {
            Compression::None => {}
            Compression::Zstd => {
                let input = BufReader::new(File::open(&self.raw_path)?);
                let mut output = BufWriter::new(File::create(&self.path)?);
                ruzstd::encoding::compress(
                    input,
                    &mut output,
                    ruzstd::encoding::CompressionLevel::Fastest,
                );
                output.flush()?;
                std::fs::remove_file(&self.raw_path)?;
            }
            Compression::Xz => {
                let mut input = BufReader::new(File::open(&self.raw_path)?);
                let mut output = BufWriter::new(File::create(&self.path)?);
                lzma_rs::xz_compress(&mut input, &mut output)?;
                output.flush()?;
                std::fs::remove_file(&self.raw_path)?;
            }
        }
        Ok(self.frames)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_capture_reads_back_as_the_packets_it_recorded_in_every_compression() {
        let dir = std::env::temp_dir().join(format!("piney-capture-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for name in ["c.gs", "c.gs.zst", "c.gs.xz"] {
            let path = dir.join(name);
            let mut regs = vec![0u8; 0x2000];
            regs[0x1010] = 0x7f;
            let mut c = Capture::create(&path, regs.clone(), "SLUS-20267", 7).unwrap();
            c.transfer(2, 1);
            c.transfer(2, 2);
            c.transfer(0, 3);
            c.vsync(regs.clone(), 1);
            c.transfer(0, 4);
            assert_eq!(c.frames(), 1);
            assert_eq!(c.finish().unwrap(), 1);
            let d = GsDump::read(&path).unwrap();
            assert!(!dir.join(format!("{name}.part")).exists(), "{name}");
            assert_eq!((d.crc, d.regs[0x1010]), (7, 0x7f));
            assert_eq!(d.header.as_ref().unwrap().serial, "SLUS-20267");
            let qw = |v: &[u128]| v.iter().flat_map(|q| q.to_le_bytes()).collect::<Vec<u8>>();
            assert_eq!(
                d.packets,
                vec![
                    Packet::Transfer {
                        path: 3,
                        data: qw(&[1, 2])
                    },
                    Packet::Transfer {
                        path: 1,
                        data: qw(&[3])
                    },
                    Packet::Registers(regs.clone()),
                    Packet::VSync(1),
                    Packet::Transfer {
                        path: 1,
                        data: qw(&[4])
                    },
                ],
                "{name}"
            );
            // It replays: the state is a reset GS.
            assert!(crate::dump::replay(&d, crate::SoftwareRenderer::new(), |_, _| true).is_ok());
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
