//! Dump round trips, replay, and the bad-input property: truncated or corrupt dumps give an
//! error or a shortened stream, never a panic.

use crate::dump::*;
use crate::gif::gif_tag;
use crate::gs::{priv_reg, reg};
use crate::image::Image;
use crate::mem::{LocalMemory, MEM_BYTES};
use crate::pcrtc::Pcrtc;
use crate::psm::Psm;
use crate::sw::SoftwareRenderer;

fn priv_block(bgcolor: u64) -> Vec<u8> {
    let mut b = vec![0u8; PRIV_BLOCK];
    let mut put =
        |off: u32, v: u64| b[off as usize..off as usize + 8].copy_from_slice(&v.to_le_bytes());
    put(priv_reg::PMODE, 2);
    put(priv_reg::DISPFB2, 1 << 9); // FBP 0, FBW 1, PSMCT32
    // 16 x 8 pixels, MAGH 3.
    put(
        priv_reg::DISPLAY2,
        600 | 40 << 12 | 3 << 23 | 63u64 << 32 | 7u64 << 44,
    );
    put(priv_reg::BGCOLOR, bgcolor);
    b
}

fn sprite_packet(x0: u32, x1: u32, color: u32) -> Vec<u8> {
    let q = [
        gif_tag(1, true, Some(6), 0, &[0x1, 0x5, 0x5]),
        (color & 0xff) as u128
            | (((color >> 8) & 0xff) as u128) << 32
            | (((color >> 16) & 0xff) as u128) << 64
            | 0x80u128 << 96,
        (x0 * 16) as u128,
        (x1 * 16) as u128 | ((8u128 * 16) << 32),
    ];
    q.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn sample_dump(header: bool) -> GsDump {
    let mut mem = LocalMemory::new();
    mem.write_pixel(Psm::Ct32, 15, 7, 0, 1, 0xff00_ff00);
    let regs = [
        (reg::FRAME_1, 1u64 << 16),
        (reg::SCISSOR_1, 63 << 16 | (63u64 << 48)),
        (reg::TEST_1, 3 << 16),
        (reg::PRMODECONT, 1),
    ];
    let state = SavedState::build_v8(&regs, &mem);
    GsDump {
        crc: 0x1234_5678,
        header: header.then(|| DumpHeader {
            state_version: 8,
            serial: "SLPS-25121".into(),
            screenshot: Some(Image {
                width: 2,
                height: 1,
                rgba: vec![1, 2, 3, 255, 4, 5, 6, 255],
            }),
        }),
        state,
        regs: priv_block(0),
        packets: vec![
            Packet::Transfer {
                path: 3,
                data: sprite_packet(0, 8, 0x0000ff),
            },
            Packet::VSync(0),
            Packet::Transfer {
                path: 2,
                data: sprite_packet(8, 12, 0xff0000),
            },
            Packet::Registers(priv_block(0x77)),
            Packet::ReadFifo2(0),
            Packet::VSync(1),
        ],
        dropped_tail: None,
    }
}

fn frames(d: &GsDump) -> Vec<Image> {
    let mut out = Vec::new();
    replay(d, SoftwareRenderer::new(), |gs, _| {
        out.push(gs.display_image(Pcrtc::default()));
        true
    })
    .unwrap();
    out
}

#[test]
fn round_trip_every_compression_and_replay() {
    let dir = std::env::temp_dir().join(format!("piney-gs-dump-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let d = sample_dump(true);
    for (c, name) in [
        (Compression::None, "a.gs"),
        (Compression::Xz, "a.gs.xz"),
        (Compression::Zstd, "a.gs.zst"),
    ] {
        let p = dir.join(name);
        std::fs::write(&p, compress(&d.to_bytes(), c)).unwrap();
        let back = GsDump::read(&p).unwrap();
        assert_eq!(back, d, "{name}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
    let h = d.header.as_ref().unwrap();
    assert_eq!((h.serial.as_str(), d.crc), ("SLPS-25121", 0x1234_5678));
    let f = frames(&d);
    assert_eq!(f.len(), 2);
    assert_eq!((f[0].width, f[0].height), (16, 8));
    // Frame 0: the red sprite over columns 0-7, the memory from the state at (15, 7).
    assert_eq!(f[0].get(0, 0), [255, 0, 0, 255]);
    assert_eq!(f[0].get(8, 0), [0, 0, 0, 255]);
    assert_eq!(f[0].get(15, 7), [0, 255, 0, 255]);
    // Frame 1: the blue sprite on path 2.
    assert_eq!(f[1].get(8, 0), [0, 0, 255, 255]);
    assert_eq!(f[1].get(12, 0), [0, 0, 0, 255]);
}

#[test]
fn old_format_and_state_versions() {
    let d = sample_dump(false);
    let back = GsDump::parse(&d.to_bytes()).unwrap();
    assert_eq!(back, d);
    assert!(back.header.is_none());
    // Hand-built blobs of older layouts: version 4 (PRMODE, TEX2, 28 extra bytes a context,
    // 8 bytes before memory, 3 paths) and version 6.
    for (version, gap, paths) in [(4u32, 8usize, 3usize), (6, 8, 3), (7, 16, 4), (9, 48, 4)] {
        let mut b = version.to_le_bytes().to_vec();
        let mut n = 0u64;
        let order_len = {
            let mut words = 1 + 14; // PRIM + 14 globals
            if version <= 6 {
                words += 1;
            }
            let ctx = 12 + if version <= 6 { 1 } else { 0 };
            words + 2 * ctx + 5
        };
        for i in 0..order_len {
            n += 1;
            b.extend_from_slice(&(0x100 + i as u64).to_le_bytes());
            if version <= 4 && (i == 15 + 12 || i == 15 + 13 + 12) {
                b.extend_from_slice(&[0; 28]);
            }
        }
        assert!(n > 0);
        b.extend(std::iter::repeat_n(0u8, gap));
        let vm_at = b.len();
        b.extend(std::iter::repeat_n(0xabu8, MEM_BYTES));
        b.extend(std::iter::repeat_n(0u8, paths * 20 + 4));
        let s = SavedState::parse(&b).unwrap_or_else(|e| panic!("version {version}: {e}"));
        assert_eq!(s.vm_offset, vm_at, "version {version}");
        // PRIM is the first register; PRMODECONT follows PRMODE where there is one.
        assert_eq!(s.regs[0], (reg::PRIM, 0x100));
        assert_eq!(
            s.regs[1],
            (reg::PRMODECONT, if version <= 6 { 0x102 } else { 0x101 })
        );
        assert_eq!(s.memory(&b).unwrap().read_word(0), 0xabab_abab);
        assert!(s.memory(&b[..vm_at + 4]).is_err());
        // Up to version 8 a blob a byte short has no place for memory (version 9 is found from
        // its tail, so only a blob too short for the registers fails).
        if version < 9 {
            assert!(SavedState::parse(&b[..b.len() - 1]).is_err());
        }
        assert!(SavedState::parse(&b[..vm_at]).is_err());
    }
}

/// A deterministic generator for the property tests.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

#[test]
fn truncated_dumps_error_or_drop_the_tail_never_panic() {
    let d = sample_dump(true);
    let raw = d.to_bytes();
    let packets_at = raw.len()
        - d.packets
            .iter()
            .map(|p| match p {
                Packet::Transfer { data, .. } => 6 + data.len(),
                Packet::VSync(_) => 2,
                Packet::ReadFifo2(_) => 5,
                Packet::Registers(_) => 1 + PRIV_BLOCK,
            })
            .sum::<usize>();
    let mut cuts: Vec<usize> = (0..200).collect();
    cuts.extend((packets_at - 9000..raw.len()).step_by(7));
    cuts.extend([raw.len() - 1, packets_at - 1, packets_at, packets_at + 1]);
    let mut rng = Lcg(7);
    cuts.extend((0..100).map(|_| rng.next() as usize % raw.len()));
    for cut in cuts {
        match GsDump::parse(&raw[..cut]) {
            Err(_) => assert!(
                cut < packets_at,
                "cut at {cut} (packets at {packets_at}) should parse"
            ),
            Ok(p) => {
                assert!(
                    cut >= packets_at,
                    "cut at {cut} inside the fixed part parsed"
                );
                assert!(p.packets.len() <= d.packets.len());
                if cut < raw.len() {
                    assert!(p.dropped_tail.is_some() || p.packets.len() < d.packets.len());
                }
                replay(&p, SoftwareRenderer::new(), |_, _| true).unwrap();
            }
        }
    }
}

#[test]
fn corrupt_dumps_never_panic() {
    let d = sample_dump(true);
    let raw = d.to_bytes();
    let mut rng = Lcg(42);
    let tail = raw.len() - 9000;
    for round in 0..60 {
        let mut b = raw.clone();
        for _ in 0..1 + round % 8 {
            // Corrupt the header area, the state's register area, or the packets.
            let at = match rng.next() % 3 {
                0 => rng.next() as usize % 120,
                1 => 120 + rng.next() as usize % 400,
                _ => tail + rng.next() as usize % 9000,
            };
            b[at] = rng.next() as u8;
        }
        if let Ok(p) = GsDump::parse(&b) {
            let _ = replay(&p, SoftwareRenderer::new(), |_, _| true);
        }
    }
    // Compressed streams cut short or damaged: an error, or data that then parses or fails.
    for c in [Compression::Xz, Compression::Zstd] {
        let z = compress(&raw[..4096], c);
        for cut in [1, 6, z.len() / 2, z.len() - 1] {
            let _ = decompress(&z[..cut]).map(|r| GsDump::parse(&r));
        }
        let mut bad = z.clone();
        let n = bad.len();
        bad[n / 2] ^= 0x55;
        bad[n - 3] ^= 0xff;
        let _ = decompress(&bad).map(|r| GsDump::parse(&r));
    }
    assert!(matches!(
        decompress(&[0x28, 0xb5, 0x2f, 0xfd, 0]),
        Err(DumpError::Decompress { .. })
    ));
    assert!(matches!(
        GsDump::parse(&[0xff; 6]),
        Err(DumpError::Truncated { .. })
    ));
    // An unknown packet type is an error that names its offset.
    let mut b = sample_dump(false).to_bytes();
    let at = b.len() - 2; // the last VSync packet
    b[at] = 9;
    assert!(
        matches!(GsDump::parse(&b), Err(DumpError::BadPacket { id: 9, offset }) if offset == at)
    );
}

#[test]
fn replay_file_writes_numbered_frames() {
    let dir = std::env::temp_dir().join(format!("piney-gs-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let dump_path = dir.join("scene.gs.zst");
    std::fs::write(
        &dump_path,
        compress(&sample_dump(true).to_bytes(), Compression::Zstd),
    )
    .unwrap();
    let frames = dir.join("frames");
    let opts = ReplayOptions {
        dump_frames: Some(frames.clone()),
        format: crate::FrameFormat::Display,
        ..Default::default()
    };
    let (stats, last) = replay_file(&dump_path, &opts, SoftwareRenderer::new()).unwrap();
    assert_eq!(
        (stats.vsyncs, stats.transfers, stats.register_errors),
        (2, 2, 0)
    );
    assert_eq!(last.unwrap().get(8, 0), [0, 0, 255, 255]);
    let f0 = Image::read_png(&frames.join("000000.png")).unwrap();
    assert_eq!(f0.get(0, 0), [255, 0, 0, 255]);
    assert!(frames.join("000001.png").exists());
    // max_frames stops early; 4:3 presents the 16 x 8 buffer at 11 x 8 ((8 * 4 + 1) / 3 = 11).
    let opts = ReplayOptions {
        max_frames: Some(1),
        format: crate::FrameFormat::Presented,
        ..Default::default()
    };
    let (_, last) = replay_file(&dump_path, &opts, SoftwareRenderer::new()).unwrap();
    let last = last.unwrap();
    assert_eq!((last.width, last.height), (11, 8));
    assert!(matches!(
        replay_file(&dir.join("missing.gs"), &opts, SoftwareRenderer::new()),
        Err(DumpError::Io { .. })
    ));
    std::fs::remove_dir_all(&dir).unwrap();
}
