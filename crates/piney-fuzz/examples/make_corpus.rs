//! Writes the generated part of the seed corpus (crates/piney-fuzz/corpus): GS dumps piney
//! records from the demo and from packets built here, GIF and VIF streams, extra PNGs, input
//! scripts, a profile and a mapping. Everything is made by this project's own code; the
//! output is committed, and this program is how it was made:
//!
//! ```sh
//! cargo run -p piney-fuzz --example make_corpus
//! ```
//!
//! (The disc seeds come from genisoimage, tools/make-cso.py and chdman: corpus/README.md.)

use std::path::{Path, PathBuf};

use piney_gs::dump::{Compression, DumpHeader, GsDump, Packet, SavedState, compress};
use piney_gs::{LocalMemory, SoftwareRenderer};
use piney_machine::{Machine, RunLimits};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus")
}

fn write(rel: &str, bytes: &[u8]) {
    let p = corpus().join(rel);
    std::fs::create_dir_all(p.parent().expect("a folder")).expect("the folder is made");
    std::fs::write(&p, bytes).expect("the file is written");
    println!("{rel}: {} bytes", bytes.len());
}

/// A GIFtag: NLOOP, EOP, PRIM (when given), FLG (0 PACKED, 1 REGLIST, 2 IMAGE), registers.
fn giftag(nloop: u32, eop: bool, prim: Option<u64>, flg: u64, regs: &[u8]) -> u128 {
    let nreg = regs.len() as u64 & 0xf;
    let mut lo = nloop as u64 & 0x7fff | (eop as u64) << 15 | flg << 58 | nreg << 60;
    if let Some(p) = prim {
        lo |= 1 << 46 | (p & 0x7ff) << 47;
    }
    let hi = regs
        .iter()
        .enumerate()
        .fold(0u64, |h, (i, r)| h | (*r as u64 & 0xf) << (4 * i));
    lo as u128 | (hi as u128) << 64
}

/// An A+D qword: register `reg` gets `v`.
fn ad(reg: u8, v: u64) -> u128 {
    v as u128 | (reg as u128) << 64
}

fn qw(w: [u32; 4]) -> u128 {
    w.iter().rev().fold(0u128, |a, &x| a << 32 | x as u128)
}

/// A+D writes as one PACKED packet.
fn ad_packet(writes: &[(u8, u64)], eop: bool) -> Vec<u128> {
    let mut v = vec![giftag(writes.len() as u32, eop, None, 0, &[0xe])];
    v.extend(writes.iter().map(|&(r, x)| ad(r, x)));
    v
}

/// The drawing environment for a 640 x 448 frame at page 0: FRAME_1, SCISSOR_1, XYOFFSET_1,
/// TEST_1 (always pass), PRMODECONT.
fn environment() -> Vec<(u8, u64)> {
    vec![
        (0x4c, 10 << 16),                 // FRAME_1: FBW 10 (640), PSMCT32
        (0x40, 639 << 16 | 447u64 << 48), // SCISSOR_1: 0..639, 0..447
        (0x18, 0),                        // XYOFFSET_1
        (0x47, 0x3_0000),                 // TEST_1: ZTE on, ZTST always
        (0x1a, 1),                        // PRMODECONT
        (0x4e, 0x100 | 1u64 << 32),       // ZBUF_1: ZBP 0x100, PSMZ24... ZMSK 1
    ]
}

fn xyz(x: u32, y: u32, z: u32) -> u128 {
    // PACKED XYZ2: X and Y in 12.4, Z in the third word.
    qw([x << 4, y << 4, z, 0])
}

fn rgba(r: u32, g: u32, b: u32, a: u32) -> u128 {
    qw([r, g, b, a])
}

/// A sprite, a Gouraud triangle and a textured sprite through a CLUT, with the texture and
/// palette uploaded by IMAGE transfers first.
fn gif_scene() -> Vec<u128> {
    let mut v = ad_packet(&environment(), false);
    // A 16 x 16 PSMT8 texture at block 0x2000 and a 16-colour... 256-entry CLUT at 0x2100.
    v.extend(ad_packet(
        &[
            (0x50, 0x2000u64 << 32 | 1u64 << 48 | 0x13u64 << 56), // BITBLTBUF: DBP, DBW 1, PSMT8
            (0x51, 0),                                            // TRXPOS
            (0x52, 16 | 16u64 << 32),                             // TRXREG 16 x 16
            (0x53, 0),                                            // TRXDIR host -> local
        ],
        false,
    ));
    v.push(giftag(16, false, None, 2, &[]));
    v.extend((0..16u32).map(|i| qw([i * 0x0101_0101, !i, i << 8, i << 16])));
    v.extend(ad_packet(
        &[
            (0x50, 0x2100u64 << 32 | 1u64 << 48), // CLUT: PSMCT32, 16 x 16
            (0x51, 0),
            (0x52, 16 | 16u64 << 32),
            (0x53, 0),
        ],
        false,
    ));
    v.push(giftag(64, false, None, 2, &[]));
    v.extend((0..64u32).map(|i| qw([i * 0x0004_0810, 0xff00_00ff, 0x8000_ff00, i])));
    // A flat sprite.
    v.push(giftag(1, false, Some(6), 0, &[0x1, 0x5, 0x5]));
    v.extend([rgba(200, 40, 40, 128), xyz(16, 16, 0), xyz(200, 120, 0)]);
    // A Gouraud triangle.
    v.push(giftag(
        1,
        false,
        Some(3 | 1 << 3),
        0,
        &[0x1, 0x5, 0x1, 0x5, 0x1, 0x5],
    ));
    v.extend([
        rgba(255, 0, 0, 128),
        xyz(300, 40, 1),
        rgba(0, 255, 0, 128),
        xyz(600, 100, 1),
        rgba(0, 0, 255, 128),
        xyz(320, 400, 1),
    ]);
    // A textured sprite: TEX0_1 PSMT8 at 0x2000, TW/TH 16, CLUT at 0x2100 loaded.
    let tex0 =
        0x2000u64 | 1 << 14 | 0x13 << 20 | 4 << 26 | 4 << 30 | 1 << 34 | 0x2100 << 37 | 1 << 61;
    v.extend(ad_packet(&[(0x06, tex0), (0x3f, 0)], false));
    v.push(giftag(
        1,
        true,
        Some(6 | 1 << 4 | 1 << 8),
        0,
        &[0x3, 0x5, 0x3, 0x5],
    ));
    v.extend([
        qw([0, 0, 0, 0]),
        xyz(40, 200, 0),
        qw([16 << 4, 16 << 4, 0, 0]),
        xyz(168, 328, 0),
    ]);
    v
}

/// A local -> host transfer of 16 x 16 pixels (the readback FIFO fills).
fn gif_readback() -> Vec<u128> {
    let mut v = ad_packet(&environment(), false);
    v.push(giftag(1, false, Some(6), 0, &[0x1, 0x5, 0x5]));
    v.extend([rgba(1, 2, 3, 4), xyz(0, 0, 0), xyz(32, 32, 0)]);
    v.extend(ad_packet(
        &[
            (0x50, 10u64 << 16), // BITBLTBUF: SBP 0, SBW 10, PSMCT32
            (0x51, 0),
            (0x52, 16 | 16u64 << 32),
            (0x53, 1), // local -> host
            (0x61, 0), // FINISH
        ],
        true,
    ));
    v
}

/// REGLIST mode and a local -> local copy.
fn gif_reglist() -> Vec<u128> {
    let mut v = ad_packet(&environment(), false);
    v.push(giftag(2, false, Some(1), 1, &[0x1, 0x5]));
    v.extend([
        255u128 | (40u128 << 4 | (40u128 << 4) << 16) << 64,
        0xff00_ff00u128 | (80u128 << 4 | (90u128 << 4) << 16) << 64,
    ]);
    v.extend(ad_packet(
        &[
            (0x50, 10u64 << 16 | 0x400u64 << 32 | 10u64 << 48),
            (0x51, 0),
            (0x52, 64 | 64u64 << 32),
            (0x53, 2),                        // local -> local
            (0x60, 0x1234 | 0xffffu64 << 32), // SIGNAL
            (0x62, 0x55 | 0xffu64 << 32),     // LABEL
        ],
        true,
    ));
    v
}

fn bytes(qws: &[u128]) -> Vec<u8> {
    qws.iter().flat_map(|q| q.to_le_bytes()).collect()
}

/// A DMA case: the control qword (channel, mode) and the data.
fn dma_case(channel: u8, chain: bool, data: &[u8]) -> Vec<u8> {
    let mut v = vec![0u8; 16];
    v[0] = channel;
    v[1] = chain as u8;
    v.extend_from_slice(data);
    v
}

/// A source-chain DMAtag: QWC, ID (1 CNT, 7 END), ADDR, and the upper 64 bits.
fn dtag(qwc: u32, id: u32, hi: u64) -> u128 {
    (qwc as u64 | (id as u64) << 28) as u128 | (hi as u128) << 64
}

/// A chain of CNT tags carrying `packets`, the last END.
fn chain(packets: &[Vec<u128>], hi: u64) -> Vec<u128> {
    let mut v = Vec::new();
    for (i, p) in packets.iter().enumerate() {
        let id = if i + 1 == packets.len() { 7 } else { 1 };
        v.push(dtag(p.len() as u32, id, hi));
        v.extend(p);
    }
    v
}

fn vifcode(cmd: u32, num: u32, imm: u32) -> u32 {
    cmd << 24 | (num & 0xff) << 16 | (imm & 0xffff)
}

fn words_to_bytes(w: &[u32]) -> Vec<u8> {
    let mut w = w.to_vec();
    while !w.len().is_multiple_of(4) {
        w.push(0);
    }
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A VU microprogram as MPG words.
fn mpg(src: &str, at: u32) -> Vec<u32> {
    let prog = piney_vu::assemble(src).expect("the microprogram assembles");
    let mut w = vec![vifcode(0x4a, prog.len() as u32, at)];
    for p in prog {
        w.push(p as u32);
        w.push((p >> 32) as u32);
    }
    w
}

/// VIF1: a microprogram that XGKICKs a packet UNPACKed into VU1 memory, then DIRECT.
fn vif1_kick() -> Vec<u32> {
    let mut w = mpg(
        "nop    iaddiu vi01, vi00, 16\n\
         nop    xgkick vi01\n\
         nop    xtop vi03\n\
         nop    isw.y vi03, 5(vi00)\n\
         nop[e] nop\n\
         nop    nop\n",
        0,
    );
    let packet = [
        giftag(1, true, Some(6), 0, &[0x1, 0x5, 0x5]),
        rgba(10, 200, 30, 128),
        xyz(100, 100, 0),
        xyz(300, 200, 0),
    ];
    w.push(vifcode(0x01, 0, 0x0404)); // STCYCL CL 4 WL 4
    w.push(vifcode(0x03, 0, 0x40)); // OFFSET
    w.push(vifcode(0x02, 0, 0x20)); // BASE
    w.push(vifcode(0x60 | 0x0c, 4, 16)); // UNPACK V4-32, 4 qwords at 16
    for q in packet {
        w.extend([
            q as u32,
            (q >> 32) as u32,
            (q >> 64) as u32,
            (q >> 96) as u32,
        ]);
    }
    w.push(vifcode(0x14, 0, 0)); // MSCAL 0
    w.push(vifcode(0x11, 0, 0)); // FLUSH
    let direct = ad_packet(&environment(), true);
    w.push(vifcode(0x50, 0, direct.len() as u32)); // DIRECT
    for q in direct {
        w.extend([
            q as u32,
            (q >> 32) as u32,
            (q >> 64) as u32,
            (q >> 96) as u32,
        ]);
    }
    w
}

/// VIF1: every UNPACK format with masks, rows, columns and cycles.
fn vif1_unpacks() -> Vec<u32> {
    let mut w = vec![
        vifcode(0x20, 0, 0), // STMASK
        0x1b1b_1b1b,
        vifcode(0x30, 0, 0), // STROW
        1,
        2,
        3,
        4,
        vifcode(0x31, 0, 0), // STCOL
        5,
        6,
        7,
        8,
        vifcode(0x05, 0, 1),      // STMOD offset
        vifcode(0x01, 0, 0x0204), // STCYCL CL 4 WL 2
        vifcode(0x04, 0, 0x1234), // ITOP
        vifcode(0x07, 0, 0x55),   // MARK
    ];
    // S-32, S-16, S-8, V2-32, V2-16, V2-8, V3-32, V3-16, V3-8, V4-32, V4-16, V4-8, V4-5.
    for (vnvl, per) in [
        (0x0u32, 4u32),
        (0x1, 2),
        (0x2, 1),
        (0x4, 8),
        (0x5, 4),
        (0x6, 2),
        (0x8, 12),
        (0x9, 6),
        (0xa, 3),
        (0xc, 16),
        (0xd, 8),
        (0xe, 4),
        (0xf, 2),
    ] {
        let num = 4;
        let masked = (vnvl & 1) << 4;
        w.push(vifcode(0x60 | masked | vnvl, num, 0x40 | 0x4000));
        let len = (per * num).div_ceil(4);
        w.extend((0..len).map(|i| i.wrapping_mul(0x9e37_79b9)));
    }
    w.push(vifcode(0x05, 0, 0)); // STMOD normal
    w.push(vifcode(0x01, 0, 0x0402)); // CL 2 WL 4: filling write
    w.push(vifcode(0x6c, 4, 0));
    w.extend(0..8);
    w.push(vifcode(0x13, 0, 0)); // FLUSHA
    w.push(vifcode(0x00, 0, 0)); // NOP
    w
}

/// VIF0: a VU0 microprogram and an UNPACK into VU0 memory.
fn vif0_program() -> Vec<u32> {
    let mut w = mpg(
        "nop    iaddiu vi02, vi00, 0x33\n\
         nop    isw.x vi02, 1(vi00)\n\
         nop[e] nop\n\
         nop    nop\n",
        0,
    );
    w.push(vifcode(0x01, 0, 0x0101));
    w.push(vifcode(0x6c, 2, 8));
    w.extend(0..8);
    w.push(vifcode(0x14, 0, 0)); // MSCAL
    w.push(vifcode(0x10, 0, 0)); // FLUSHE
    w.push(vifcode(0x17, 0, 0)); // MSCNT
    w
}

/// The demo's GS stream over two frames after it has drawn for a while, as `--dump-gs` writes
/// it, and the first GIF transfers in it (as GIF DMA seeds).
fn demo_dump() -> (Vec<u8>, Vec<Vec<u8>>) {
    let demo = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../demo/demo.elf"))
        .expect("the demo");
    let mut m = Machine::new(Box::new(std::io::sink()));
    m.attach_renderer(Box::new(SoftwareRenderer::new()));
    m.load_elf(&demo).expect("the demo loads");
    let p = piney_engine::Profile::from_elf_symbols(&demo).expect("the demo's symbols");
    piney_engine::install(&mut m, &p, &demo);
    m.run(RunLimits {
        frames: Some(40),
        seconds: None,
    })
    .expect("the demo runs");
    let tmp = std::env::temp_dir().join(format!("piney-make-corpus-{}.gs", std::process::id()));
    m.bus
        .gif
        .gs
        .start_capture(&tmp, "PINY-00001", 0)
        .expect("a capture starts");
    m.run(RunLimits {
        frames: Some(42),
        seconds: None,
    })
    .expect("the demo runs");
    m.bus
        .gif
        .gs
        .finish_capture()
        .expect("a capture")
        .expect("the capture is written");
    let raw = std::fs::read(&tmp).expect("the dump");
    let _ = std::fs::remove_file(&tmp);
    let dump = GsDump::parse(&raw).expect("piney's own dump parses");
    let transfers = dump
        .packets
        .iter()
        .filter_map(|p| match p {
            Packet::Transfer { data, .. } if data.len() >= 64 => {
                Some(data[..data.len().min(16 << 10)].to_vec())
            }
            _ => None,
        })
        .take(3)
        .collect();
    (raw, transfers)
}

/// A dump built here: the privileged registers showing a 640 x 448 frame, the scene, a
/// readback, a register packet, VSyncs.
fn built_dump() -> Vec<u8> {
    let mut regs = vec![0u8; 8192];
    let mut set = |off: usize, v: u64| regs[off..off + 8].copy_from_slice(&v.to_le_bytes());
    set(0x00, 0x8026); // PMODE: EN2, CRTMD 1, MMOD, ALP 0x80
    set(0x20, 1); // SMODE2: interlaced, field mode
    set(0x90, 10 << 9); // DISPFB2: FBW 10, PSMCT32 at 0
    // DISPLAY2: DX 636, DY 50, MAGH 3, DW 2559, DH 447.
    set(
        0xa0,
        636 | 50 << 12 | 3 << 23 | 2559u64 << 32 | 447u64 << 44,
    );
    let state = SavedState::build_v8(&[], &LocalMemory::new());
    let packets = vec![
        Packet::Transfer {
            path: 3,
            data: bytes(&gif_scene()),
        },
        Packet::VSync(0),
        Packet::Transfer {
            path: 3,
            data: bytes(&gif_readback()),
        },
        Packet::ReadFifo2(16 * 16 * 4 / 16),
        Packet::Registers(regs.clone()),
        Packet::VSync(1),
        Packet::Transfer {
            path: 2,
            data: bytes(&gif_reglist()),
        },
        Packet::VSync(0),
    ];
    GsDump {
        crc: 0x1234_5678,
        header: Some(DumpHeader {
            state_version: 8,
            serial: "PINY-00001".into(),
            screenshot: None,
        }),
        state,
        regs,
        packets,
        dropped_tail: None,
    }
    .to_bytes()
}

/// Adler-32 (zlib's trailer).
fn adler32(d: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for &x in d {
        a = (a + x as u32) % 65521;
        b = (b + a) % 65521;
    }
    b << 16 | a
}

/// A PNG with stored (uncompressed) deflate blocks: colour type, bit depth, a palette when
/// indexed, raw scanlines with filter bytes given.
fn png(w: u32, h: u32, depth: u8, colour: u8, palette: Option<&[u8]>, lines: &[u8]) -> Vec<u8> {
    let chunk = |out: &mut Vec<u8>, kind: &[u8], data: &[u8]| {
        out.extend_from_slice(&(data.len() as u32).to_be_bytes());
        let mut body = kind.to_vec();
        body.extend_from_slice(data);
        out.extend_from_slice(&body);
        out.extend_from_slice(&piney_fuzz::targets::gs::crc32(&body).to_be_bytes());
    };
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = w.to_be_bytes().to_vec();
    ihdr.extend_from_slice(&h.to_be_bytes());
    ihdr.extend_from_slice(&[depth, colour, 0, 0, 0]);
    chunk(&mut out, b"IHDR", &ihdr);
    if let Some(p) = palette {
        chunk(&mut out, b"PLTE", p);
    }
    let mut z = vec![0x78, 0x01];
    let blocks: Vec<&[u8]> = lines.chunks(65535).collect();
    for (i, b) in blocks.iter().enumerate() {
        z.push((i + 1 == blocks.len()) as u8);
        z.extend_from_slice(&(b.len() as u16).to_le_bytes());
        z.extend_from_slice(&(!(b.len() as u16)).to_le_bytes());
        z.extend_from_slice(b);
    }
    z.extend_from_slice(&adler32(lines).to_be_bytes());
    chunk(&mut out, b"IDAT", &z);
    chunk(&mut out, b"IEND", &[]);
    out
}

/// `input` through a compressor on the PATH (`xz`, `zstd`).
fn tool(cmd: &str, args: &[&str], input: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut c = std::process::Command::new(cmd)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{cmd}: {e} (packages xz-utils, zstd)"));
    let mut stdin = c.stdin.take().expect("piped");
    let data = input.to_vec();
    let feeder = std::thread::spawn(move || stdin.write_all(&data));
    let out = c.wait_with_output().expect("the compressor runs");
    feeder.join().expect("fed").expect("written");
    assert!(out.status.success(), "{cmd} failed");
    out.stdout
}

fn main() {
    // GS dumps: the demo's (zstd and xz) and the built one (zstd).
    let (demo, transfers) = demo_dump();
    // piney's own zstd writer (as --dump-gs FILE.gs.zst writes), and the xz and zstd tools
    // (lzma-rs's xz writer does not compress: 4 MiB of local memory would stay 4 MiB).
    write(
        "gsdump/demo_2frames.gs.zst",
        &compress(&demo, Compression::Zstd),
    );
    write(
        "gsdump/demo_2frames.gs.xz",
        &tool("xz", &["-9", "-c"], &demo),
    );
    let built = built_dump();
    write("gsdump/built.gs.zst", &tool("zstd", &["-19", "-c"], &built));

    // GIF streams (control qword, then data).
    write("gif/scene.bin", &dma_case(2, false, &bytes(&gif_scene())));
    write(
        "gif/readback.bin",
        &dma_case(2, false, &bytes(&gif_readback())),
    );
    write(
        "gif/reglist.bin",
        &dma_case(2, false, &bytes(&gif_reglist())),
    );
    let packets = [gif_scene(), gif_reglist()];
    write(
        "gif/chain.bin",
        &dma_case(2, true, &bytes(&chain(&packets, 0))),
    );
    for (i, t) in transfers.iter().enumerate() {
        write(&format!("gif/demo_transfer{i}.bin"), &dma_case(2, false, t));
    }

    // VIF streams.
    write(
        "vif/vif1_kick.bin",
        &dma_case(1, false, &words_to_bytes(&vif1_kick())),
    );
    write(
        "vif/vif1_unpacks.bin",
        &dma_case(1, false, &words_to_bytes(&vif1_unpacks())),
    );
    write(
        "vif/vif0_program.bin",
        &dma_case(0, false, &words_to_bytes(&vif0_program())),
    );
    // A chain whose tags carry VIF codes in their upper half (CHCR.TTE): NOPs and a MARK.
    let vif_chain = {
        let kick: Vec<u128> = words_to_bytes(&vif1_kick())
            .chunks(16)
            .map(|c| u128::from_le_bytes(c.try_into().expect("a qword")))
            .collect();
        let mut c = chain(&[kick], vifcode(0x07, 0, 0x77) as u64);
        c[0] |= 0u128;
        let mut v = dma_case(1, true, &bytes(&c));
        v[1] |= 2; // TTE
        v
    };
    write("vif/vif1_chain_tte.bin", &vif_chain);

    // PNGs of the kinds read_png expands: grey 1-bit, grey+alpha, RGB 16-bit, indexed.
    let grey1: Vec<u8> = (0..4)
        .flat_map(|y| [0u8, 0b1010_0000 ^ (y * 0x50)])
        .collect();
    write("png/grey1.png", &png(4, 4, 1, 0, None, &grey1));
    let ga: Vec<u8> = (0..3u8).flat_map(|y| [0, y, 255, y * 9, 128]).collect();
    write("png/grey_alpha.png", &png(2, 3, 8, 4, None, &ga));
    let rgb16: Vec<u8> = (0..2u8)
        .flat_map(|y| {
            let mut l = vec![0u8];
            l.extend((0..12u8).map(|i| i.wrapping_mul(31).wrapping_add(y)));
            l
        })
        .collect();
    write("png/rgb16.png", &png(2, 2, 16, 2, None, &rgb16));
    let pal = [255u8, 0, 0, 0, 255, 0, 0, 0, 255];
    let idx: Vec<u8> = (0..3u8)
        .flat_map(|y| [0, y % 3, (y + 1) % 3, (y + 2) % 3])
        .collect();
    write("png/indexed.png", &png(3, 3, 8, 3, Some(&pal), &idx));

    // Input scripts: port 2, sticks in hex, ranges, comments, CRLF.
    write(
        "input/both_ports.txt",
        b"# both pads\r\n1-30 cross+up lx=0 ly=0x80\r\np2:10-20 start rx=255 ry=0\r\n40 none ly=128\r\n50-60 l1 r1 l2 r2 l3 r3 select\r\n",
    );
    write(
        "input/every_button.txt",
        b"1 cross\n2 circle\n3 square\n4 triangle\n5 l1\n6 r1\n7 l2\n8 r2\n9 l3\n10 r3\n11 select\n12 start\n13 up\n14 down\n15 left\n16 right\np1:17-18 CROSS+Circle\n",
    );

    // A profile naming the demo's functions by address and words, as a game's profile does.
    let demo_elf = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../demo/demo.elf"))
        .expect("the demo");
    let p = piney_engine::Profile::from_elf_symbols(&demo_elf).expect("the demo's symbols");
    let mut toml = String::from(
        "# The demo's hooks by address (from its symbols), as a game's profile names them.\nserial = \"PINY-00001\"\ntitle = \"piney demo title\"\n",
    );
    toml.push_str(&format!(
        "elf_fnv1a64 = \"{:#018x}\"\nhooks = [{}]\n",
        piney_engine::fnv1a64(&demo_elf),
        p.hooks
            .iter()
            .map(|h| format!("{h:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    for (name, s) in &p.symbols {
        toml.push_str(&format!("\n[symbols.{name:?}]\n"));
        if let Some(a) = s.address {
            toml.push_str(&format!("address = {a:#010x}\n"));
        }
        if !s.words.is_empty() {
            let words: Vec<String> = s.words.iter().map(|w| format!("{w:#010x}")).collect();
            toml.push_str(&format!("words = [{}]\n", words.join(", ")));
        }
    }
    write("profile/demo_by_address.toml", toml.as_bytes());

    // A mapping with both tables changed and a key left out.
    write(
        "mapping/partial.toml",
        b"# swapped face buttons\n[keyboard]\nKeyX = \"cross\"\nKeyZ = \"circle\"\nEnter = \"start\"\nShiftLeft = \"select\"\n\n[gamepad]\nsouth = \"circle\"\neast = \"cross\"\nstart = \"start\"\nselect = \"none\"\n",
    );
}
