//! Unit tests with hand-built bit streams: a bit writer and a small encoder of intra/non-intra
//! blocks from the standard's tables, so that the expected pixels follow from known inputs.

use super::*;

/// Writes bits first bit first; bytes go to memory in order.
#[derive(Default)]
pub struct BitWriter {
    bytes: Vec<u8>,
    nbits: usize,
}

impl BitWriter {
    pub fn bits(&mut self, v: u32, n: u32) -> &mut Self {
        for i in (0..n).rev() {
            if self.nbits.is_multiple_of(8) {
                self.bytes.push(0);
            }
            if v >> i & 1 == 1 {
                let last = self.bytes.len() - 1;
                self.bytes[last] |= 0x80 >> (self.nbits % 8);
            }
            self.nbits += 1;
        }
        self
    }

    pub fn code(&mut self, s: &str) -> &mut Self {
        for ch in s.chars() {
            self.bits(u32::from(ch == '1'), 1);
        }
        self
    }

    pub fn align(&mut self) -> &mut Self {
        while !self.nbits.is_multiple_of(8) {
            self.bits(0, 1);
        }
        self
    }

    pub fn bytes(&mut self, b: &[u8]) -> &mut Self {
        for &x in b {
            self.bits(x as u32, 8);
        }
        self
    }

    /// The stream as quadwords (zero-padded to a whole one).
    pub fn qwords(&self) -> Vec<u128> {
        self.bytes
            .chunks(16)
            .map(|c| {
                let mut q = [0u8; 16];
                q[..c.len()].copy_from_slice(c);
                u128::from_le_bytes(q)
            })
            .collect()
    }

    /// An intra block: DC differential (luma or chroma size table), AC (run, level) pairs from
    /// table zero (escape when the pair has no code), EOB.
    pub fn intra_block(&mut self, luma: bool, dc_diff: i32, ac: &[(u8, i32)]) -> &mut Self {
        let size = 32 - dc_diff.unsigned_abs().leading_zeros();
        let table = if luma {
            vlc::DC_SIZE_LUMA
        } else {
            vlc::DC_SIZE_CHROMA
        };
        let code = table.iter().find(|e| e.1 as u32 == size).expect("size").0;
        self.code(code);
        if size > 0 {
            let v = if dc_diff > 0 {
                dc_diff
            } else {
                dc_diff + (1 << size) - 1
            };
            self.bits(v as u32, size);
        }
        for &(run, level) in ac {
            self.coef(run, level, false);
        }
        self.code(vlc::DCT_ZERO_EOB)
    }

    /// One coefficient from table zero (`first`: a non-intra block's first, where (0, 1) is "1").
    pub fn coef(&mut self, run: u8, level: i32, first: bool) -> &mut Self {
        let mag = level.unsigned_abs();
        let found = vlc::DCT_ZERO
            .iter()
            .find(|e| (e.1 as u32, e.2 as u32) == (run as u32, mag));
        match found {
            Some(&(code, r, l)) => {
                let code = if first && (r, l) == (0, 1) {
                    vlc::DCT_ZERO_FIRST
                } else {
                    code
                };
                self.code(code).bits(u32::from(level < 0), 1)
            }
            None => self
                .code(vlc::DCT_ESCAPE)
                .bits(run as u32, 6)
                .bits(level as u32 & 0xfff, 12),
        }
    }
}

/// Feed `stream` and run until the command ends; returns every output quadword. Panics if it does
/// not end (a test failure).
fn run_cmd(ipu: &mut Ipu, cmd: u32, stream: &[u128]) -> Vec<u128> {
    ipu.write32(0x00, cmd);
    let mut input = stream.iter().copied().peekable();
    let mut out = Vec::new();
    for _ in 0..100_000 {
        while ipu.in_room() > 0 {
            match input.next() {
                Some(q) => {
                    ipu.push_in(q);
                }
                None => break,
            }
        }
        ipu.run();
        while let Some(q) = ipu.pop_out() {
            out.push(q);
        }
        ipu.run();
        if ipu.take_finished().is_some() {
            assert!(ipu.complete());
            while let Some(q) = ipu.pop_out() {
                out.push(q);
            }
            return out;
        }
        if input.peek().is_none() && ipu.out_len() == 0 {
            // Nothing more can happen.
            panic!(
                "command {cmd:#010x} did not end (CTRL {:#010x})",
                ipu.read32(0x10)
            );
        }
    }
    panic!("command {cmd:#010x} ran away");
}

fn words(out: &[u128]) -> Vec<u32> {
    out.iter()
        .flat_map(|q| (0..4).map(move |i| (q >> (32 * i)) as u32))
        .collect()
}

fn halves(out: &[u128]) -> Vec<u16> {
    out.iter()
        .flat_map(|q| (0..8).map(move |i| (q >> (16 * i)) as u16))
        .collect()
}

fn ctrl_of(ipu: &mut Ipu) -> u32 {
    ipu.read32(0x10)
}

#[test]
fn fdec_peeks_32_bits_after_skipping_fb() {
    let mut ipu = Ipu::new();
    let mut w = BitWriter::default();
    w.bytes(&[0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0]);
    // FB = 4.
    run_cmd(&mut ipu, cmd::FDEC << 28 | 4, &w.qwords());
    assert_eq!(ipu.read32(0x00), 0x2345_6789);
    assert_eq!(ipu.read32(0x30), 0x2345_6789);
    // FDEC leaves the 32 bits in the stream: BP moved by FB only.
    assert_eq!(ipu.read32(0x20) & 0x7f, 4);
    assert_eq!(ipu.read32(0x34), 0, "TOP not busy: 32 bits are there");
}

#[test]
fn fdec_waits_for_data() {
    let mut ipu = Ipu::new();
    ipu.write32(0x00, cmd::FDEC << 28);
    ipu.run();
    assert!(ipu.take_finished().is_none());
    assert_ne!(ctrl_of(&mut ipu) & ctrl::BUSY, 0);
    assert_ne!(ipu.read32(0x04), 0, "CMD.BUSY");
    assert_ne!(ipu.read32(0x34), 0, "TOP.BUSY");
    ipu.push_in(0xdead_beef);
    ipu.run();
    assert_eq!(ipu.take_finished(), Some(latency(cmd::FDEC)));
    // BUSY stays until the owner completes the command.
    assert_ne!(ctrl_of(&mut ipu) & ctrl::BUSY, 0);
    assert!(ipu.complete());
    assert_eq!(ctrl_of(&mut ipu) & ctrl::BUSY, 0);
    // Memory bytes ef be ad de: the stream reads them in that order.
    assert_eq!(ipu.read32(0x00), 0xefbe_adde);
}

#[test]
fn vdec_tables() {
    let cases: &[(u32, u32, &str, u32)] = &[
        // (table, PCT, code, DATA)
        (0, 1, "0000010110", 10 << 16 | 17),
        (0, 1, "1", 1 << 16 | 1),
        (0, 1, "00000001000", 11 << 16 | 0x23),
        (1, 1, "01", 2 << 16 | 0x11),
        (1, 2, "00010", 5 << 16 | 0x1a),
        (1, 3, "000010", 6 << 16 | 0x16),
        // motion code -8: "000001011" then sign 1; 10 bits.
        (2, 1, "0000010111", 10 << 16 | 0xfff8),
        (2, 1, "1", 1 << 16),
        (2, 1, "0010", 4 << 16 | 2),
        (3, 1, "11", 2 << 16 | 0xffff),
        (3, 1, "0", 1 << 16),
    ];
    for &(tbl, pct, code, want) in cases {
        let mut ipu = Ipu::new();
        ipu.write32(0x10, pct << ctrl::PCT_SHIFT);
        let mut w = BitWriter::default();
        w.code(code).bits(0xa5a5_a5a5, 32);
        run_cmd(&mut ipu, cmd::VDEC << 28 | tbl << 26, &w.qwords());
        assert_eq!(ipu.read32(0x00), want, "table {tbl} code {code}");
        assert_eq!(ctrl_of(&mut ipu) & ctrl::ECD, 0);
        assert_eq!(ipu.read32(0x20) & 0x7f, code.len() as u32);
        assert_eq!(ipu.top(), 0xa5a5_a5a5);
    }
}

#[test]
fn vdec_bad_code_sets_ecd() {
    let mut ipu = Ipu::new();
    ipu.write32(0x10, 1 << ctrl::PCT_SHIFT);
    let mut w = BitWriter::default();
    w.code("00").bits(0, 32);
    run_cmd(&mut ipu, cmd::VDEC << 28 | 1 << 26, &w.qwords());
    assert_ne!(ctrl_of(&mut ipu) & ctrl::ECD, 0);
    assert_eq!(ipu.read32(0x00), 0);
    // A new command clears ECD.
    run_cmd(&mut ipu, cmd::BCLR << 28, &[]);
    assert_eq!(ctrl_of(&mut ipu) & ctrl::ECD, 0);
}

#[test]
fn bclr_clears_the_fifo_and_sets_bp() {
    let mut ipu = Ipu::new();
    for _ in 0..5 {
        ipu.push_in(0);
    }
    assert_eq!(ipu.read32(0x20), 2 << 16 | 3 << 8);
    run_cmd(&mut ipu, cmd::BCLR << 28 | 0x45, &[]);
    assert_eq!(ipu.read32(0x20), 0x45);
    assert_eq!(ctrl_of(&mut ipu) & 0xf, 0);
}

#[test]
fn setth_setiq_setvq_csc_pack() {
    let mut ipu = Ipu::new();
    // A raw8 macroblock: Y 235 (white) except pixel 0 at 126 (grey), chroma 128.
    let mut mb = [128u8; 384];
    mb[..256].fill(235);
    mb[0] = 126;
    let mut w = BitWriter::default();
    w.bytes(&mb);
    let out = run_cmd(&mut ipu, cmd::CSC << 28 | 1, &w.qwords());
    assert_eq!(out.len(), 64);
    let px = words(&out);
    assert_eq!(px[0], 0x8080_8080);
    assert!(px[1..].iter().all(|&p| p == 0x80ff_ffff));
    // Thresholds: TH1 = 200: grey gets alpha 0x40; RGB16 then has A set.
    run_cmd(&mut ipu, cmd::SETTH << 28 | 200 << 16, &[]);
    let out = run_cmd(&mut ipu, cmd::CSC << 28 | 1 << 27 | 1, &w.qwords());
    assert_eq!(out.len(), 32);
    let h = halves(&out);
    assert_eq!(h[0], 0x8000 | 16 << 10 | 16 << 5 | 16);
    assert!(h[1..].iter().all(|&p| p == 0x7fff));
    // PACK RGB32 -> INDX4 through a CLUT whose entry 2 is white, 9 mid grey.
    let mut clut = [0u16; 16];
    clut[2] = 0x7fff;
    clut[9] = 16 << 10 | 16 << 5 | 16;
    let mut w = BitWriter::default();
    for c in clut {
        w.bytes(&c.to_le_bytes());
    }
    run_cmd(&mut ipu, cmd::SETVQ << 28, &w.qwords());
    let mut w = BitWriter::default();
    for p in &px {
        w.bytes(&p.to_le_bytes());
    }
    let out = run_cmd(&mut ipu, cmd::PACK << 28 | 1, &w.qwords());
    assert_eq!(out.len(), 8);
    let b: Vec<u8> = out.iter().flat_map(|q| q.to_le_bytes()).collect();
    assert_eq!(b[0], 9 | 2 << 4);
    assert!(b[1..].iter().all(|&x| x == 0x22));
    // PACK to RGB16.
    let out = run_cmd(&mut ipu, cmd::PACK << 28 | 1 << 27 | 1, &w.qwords());
    assert_eq!(halves(&out)[1], 0x7fff);
    // SETIQ: 64 bytes.
    let mut w = BitWriter::default();
    w.bytes(&[7u8; 64]);
    run_cmd(&mut ipu, cmd::SETIQ << 28 | 1 << 27, &w.qwords());
    assert_eq!(ipu.niq, [7; 64]);
}

/// SETIQ with a flat matrix of `v` (intra, or non-intra).
fn setiq(ipu: &mut Ipu, non_intra: bool, v: u8) {
    let mut w = BitWriter::default();
    w.bytes(&[v; 64]);
    run_cmd(
        ipu,
        cmd::SETIQ << 28 | u32::from(non_intra) << 27,
        &w.qwords(),
    );
}

#[test]
fn bdec_intra_dc_only_with_prediction() {
    let mut ipu = Ipu::new();
    setiq(&mut ipu, false, 16);
    // Luma DC differentials +8, 0, -16, 0: block values 136, 136, 120, 120 (prediction starts at
    // 128 with IDP 0). Chroma: +10 and -20: Cb 138, Cr 108.
    let mut w = BitWriter::default();
    w.intra_block(true, 8, &[])
        .intra_block(true, 0, &[])
        .intra_block(true, -16, &[])
        .intra_block(true, 0, &[])
        .intra_block(false, 10, &[])
        .intra_block(false, -20, &[])
        // A start code after the macroblock: SCD.
        .align()
        .bytes(&[0, 0, 1, 0xb3]);
    // BDEC MBI=1 DCR=1 QSC=1.
    let out = run_cmd(
        &mut ipu,
        cmd::BDEC << 28 | 1 << 27 | 1 << 26 | 1 << 16,
        &w.qwords(),
    );
    assert_eq!(out.len(), 48);
    let h = halves(&out);
    for y in 0..16 {
        for x in 0..16 {
            let want = match (y / 8, x / 8) {
                (0, _) => 136,
                _ => 120,
            };
            assert_eq!(h[y * 16 + x], want, "Y({x},{y})");
        }
    }
    assert!(h[256..320].iter().all(|&v| v == 138));
    assert!(h[320..].iter().all(|&v| v == 108));
    let c = ctrl_of(&mut ipu);
    assert_eq!(c & ctrl::ECD, 0);
    assert_ne!(c & ctrl::SCD, 0);
    assert_eq!((c >> ctrl::CBP_SHIFT) & 0x3f, 0x3f);
    assert_eq!(ipu.top(), 0x0000_01b3);
}

#[test]
fn bdec_intra_with_ac_matches_the_reference_idct() {
    // One AC coefficient: (run 0, level 3) at scan 1 = raster 1 (F[0][1]). IQ 16, QSC 4 (linear:
    // quantiser_scale 8): F = 3 x 16 x 8 >> 4 = 24. DC 1024. Sum 1048 is even: mismatch control
    // makes F[7][7] = 1.
    let mut ipu = Ipu::new();
    setiq(&mut ipu, false, 16);
    let mut w = BitWriter::default();
    w.intra_block(true, 0, &[(0, 3)]);
    for _ in 0..3 {
        w.intra_block(true, 0, &[]);
    }
    w.intra_block(false, 0, &[])
        .intra_block(false, 0, &[])
        .bits(0xffff_ffff, 32);
    let out = run_cmd(
        &mut ipu,
        cmd::BDEC << 28 | 1 << 27 | 1 << 26 | 4 << 16,
        &w.qwords(),
    );
    let h = halves(&out);
    let mut f = [0i32; 64];
    f[0] = 1024;
    f[1] = 24;
    f[63] = 1;
    let want = idct::idct(&f);
    for y in 0..8 {
        for x in 0..8 {
            assert_eq!(h[y * 16 + x] as i32, want[y * 8 + x]);
        }
    }
    // By hand: F[0][1] = 24 adds 24 x C(1,x) x C(0,y)*... per column: x=0 gets
    // 24 x 0.4904 x 0.3536 = 4.16, so 128 + 4 = 132; x=7 gets -4.16: 124.
    assert_eq!(h[0], 132);
    assert_eq!(h[7], 124);
    assert_eq!(ctrl_of(&mut ipu) & ctrl::SCD, 0);
}

#[test]
fn bdec_non_intra_with_pattern() {
    // CBP "1101" = 4: only block 3 (bottom right luma). Its first coefficient by escape: run 0,
    // level 100. NIQ 16, QSC 1 (quantiser_scale 2): F = (2 x 100 + 1) x 16 x 2 >> 5 = 201 (odd
    // sum: no mismatch toggle). IDCT of a DC of 201: 201 / 8 = 25.125 -> 25.
    let mut ipu = Ipu::new();
    setiq(&mut ipu, true, 16);
    let mut w = BitWriter::default();
    w.code("1101")
        .coef(0, 100, true)
        .code(vlc::DCT_ZERO_EOB)
        .bits(0xffff_ffff, 32);
    let out = run_cmd(&mut ipu, cmd::BDEC << 28 | 1 << 16, &w.qwords());
    let h = halves(&out);
    for y in 0..16 {
        for x in 0..16 {
            let want = if y >= 8 && x >= 8 { 25 } else { 0 };
            assert_eq!(h[y * 16 + x], want);
        }
    }
    assert!(h[256..].iter().all(|&v| v == 0));
    assert_eq!((ctrl_of(&mut ipu) >> ctrl::CBP_SHIFT) & 0x3f, 4);
    // A negative level: -100 -> -201 -> -25 as a signed halfword (after BCLR drops what the
    // first command left in the FIFO).
    run_cmd(&mut ipu, cmd::BCLR << 28, &[]);
    let mut w = BitWriter::default();
    w.code("1101")
        .coef(0, -100, true)
        .code(vlc::DCT_ZERO_EOB)
        .bits(0xffff_ffff, 32);
    let out = run_cmd(&mut ipu, cmd::BDEC << 28 | 1 << 16, &w.qwords());
    assert_eq!(halves(&out)[8 * 16 + 8] as i16, -25);
}

/// An IDEC slice of `n` white macroblocks (Y 235 = DC differential +107 on the first block, then
/// 0; chroma 0), each header "1" (intra, no quant), increments of 1, then a start code.
fn white_slice(n: usize) -> BitWriter {
    let mut w = BitWriter::default();
    for m in 0..n {
        if m > 0 {
            w.code("1");
        }
        w.code("1");
        w.intra_block(true, if m == 0 { 107 } else { 0 }, &[]);
        for _ in 0..3 {
            w.intra_block(true, 0, &[]);
        }
        w.intra_block(false, 0, &[]).intra_block(false, 0, &[]);
    }
    w.align().bytes(&[0, 0, 1, 0xb7]);
    w
}

#[test]
fn idec_white_slice_to_rgb32_and_rgb16() {
    let mut ipu = Ipu::new();
    setiq(&mut ipu, false, 16);
    let w = white_slice(3);
    // IDEC QSC 1, RGB32.
    let out = run_cmd(&mut ipu, cmd::IDEC << 28 | 1 << 16, &w.qwords());
    assert_eq!(out.len(), 3 * 64);
    assert!(words(&out).iter().all(|&p| p == 0x80ff_ffff));
    let c = ctrl_of(&mut ipu);
    assert_eq!(c & ctrl::ECD, 0);
    assert_ne!(c & ctrl::SCD, 0);
    assert_eq!(ipu.top(), 0x0000_01b7);
    run_cmd(&mut ipu, cmd::BCLR << 28, &[]);
    // RGB16 with dithering: 255 plus the dither (-4..3) saturates to 251..255: >> 3 is 31.
    let out = run_cmd(
        &mut ipu,
        cmd::IDEC << 28 | 1 << 27 | 1 << 26 | 1 << 16,
        &w.qwords(),
    );
    assert_eq!(out.len(), 3 * 32);
    assert!(halves(&out).iter().all(|&p| p == 0x7fff));
}

#[test]
fn idec_skipped_macroblock_resets_the_dc_predictor() {
    // Two macroblocks; the second comes after an increment of 2 ("011"), so its DC predictors
    // restart at 128: a zero differential gives Y 128 there, not 235.
    let mut ipu = Ipu::new();
    let mut w = BitWriter::default();
    w.code("1");
    w.intra_block(true, 107, &[]);
    for _ in 0..3 {
        w.intra_block(true, 0, &[]);
    }
    w.intra_block(false, 0, &[]).intra_block(false, 0, &[]);
    w.code("011").code("1");
    for _ in 0..4 {
        w.intra_block(true, 0, &[]);
    }
    w.intra_block(false, 0, &[]).intra_block(false, 0, &[]);
    w.align().bytes(&[0, 0, 1, 0xb7]);
    let out = run_cmd(&mut ipu, cmd::IDEC << 28 | 1 << 16, &w.qwords());
    let px = words(&out);
    assert_eq!(px[0], 0x80ff_ffff);
    // Y 128: lum = 112 x 149 >> 6 = 260; (261) >> 1 = 130.
    assert_eq!(px[256], 0x8082_8282);
}

#[test]
fn idec_bad_macroblock_type_sets_ecd() {
    let mut ipu = Ipu::new();
    let mut w = BitWriter::default();
    w.code("00").bits(0, 32);
    let out = run_cmd(&mut ipu, cmd::IDEC << 28, &w.qwords());
    assert!(out.is_empty());
    assert_ne!(ctrl_of(&mut ipu) & ctrl::ECD, 0);
}

#[test]
fn output_waits_for_room() {
    let mut ipu = Ipu::new();
    let w = white_slice(1);
    ipu.write32(0x00, cmd::IDEC << 28 | 1 << 16);
    for q in w.qwords() {
        ipu.push_in(q);
    }
    ipu.run();
    assert_eq!(ipu.out_len(), 8);
    assert_eq!((ctrl_of(&mut ipu) >> ctrl::OFC_SHIFT) & 0xf, 8);
    assert!(ipu.take_finished().is_none());
    let mut n = 0;
    while ipu.pop_out().is_some() {
        n += 1;
        ipu.run();
    }
    assert_eq!(n, 64);
    assert!(ipu.take_finished().is_some());
}

#[test]
fn ctrl_write_reset_and_word_writes() {
    let mut ipu = Ipu::new();
    ipu.write32(0x10, !ctrl::RST);
    assert_eq!(ctrl_of(&mut ipu), ctrl::WRITABLE);
    ipu.write32(0x00, cmd::FDEC << 28);
    for w in [0x0403_0201, 0x0807_0605, 0x0c0b_0a09] {
        assert!(ipu.push_in_word(w));
    }
    assert_eq!(ipu.read32(0x20), 0, "three words are not a quadword yet");
    ipu.push_in_word(0x100f_0e0d);
    ipu.run();
    assert_eq!(ipu.take_finished(), Some(latency(cmd::FDEC)));
    assert_eq!(ipu.read32(0x00), 0x0102_0304);
    ipu.write32(0x10, ctrl::RST);
    assert_eq!(ctrl_of(&mut ipu), 0);
    assert!(
        !ipu.complete(),
        "the reset ended the command without an interrupt"
    );
}

#[test]
fn undefined_command_is_an_error_not_a_panic() {
    let mut ipu = Ipu::new();
    run_cmd(&mut ipu, 0xf000_0000, &[]);
    assert_ne!(ctrl_of(&mut ipu) & ctrl::ECD, 0);
}

#[test]
fn random_streams_never_panic_or_hang() {
    // Every command code with random option bits over random bytes: each run returns, and once
    // the stream is exhausted the command has either ended or waits with nothing left to read.
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut rnd = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..3000 {
        let mut ipu = Ipu::new();
        ipu.write32(0x10, rnd() as u32 & ctrl::WRITABLE);
        let code = (rnd() % 16) as u32;
        let cmdw = code << 28 | (rnd() as u32 & 0x0fff_ffff);
        // Small macroblock counts for CSC/PACK.
        let cmdw = if matches!(code, cmd::CSC | cmd::PACK) {
            cmdw & !0x7ff | (rnd() % 3) as u32
        } else {
            cmdw
        };
        ipu.write32(0, cmdw);
        let n = (rnd() % 40) as usize;
        let mut fed = 0;
        for _ in 0..10_000 {
            while fed < n && ipu.in_room() > 0 {
                ipu.push_in(rnd() as u128 | (rnd() as u128) << 64);
                fed += 1;
            }
            ipu.run();
            let mut popped = false;
            while ipu.pop_out().is_some() {
                popped = true;
            }
            if ipu.take_finished().is_some() {
                ipu.complete();
                break;
            }
            if fed == n && !popped {
                ipu.run();
                if ipu.take_finished().is_some() {
                    ipu.complete();
                }
                break;
            }
        }
        let _ = (
            ipu.read32(0),
            ipu.read32(0x10),
            ipu.read32(0x20),
            ipu.read32(0x30),
        );
    }
}

#[test]
fn scan_tables_are_permutations() {
    for t in [&ZIGZAG, &ALTERNATE] {
        let mut seen = [false; 64];
        for &i in t.iter() {
            assert!(!seen[i as usize]);
            seen[i as usize] = true;
        }
    }
}

#[test]
fn mpeg1_escape_with_a_16_bit_level() {
    // MPEG-1 (MP1): the escape's level is 8 bits, and 0x00 / 0x80 extend it with 8 more.
    // Block 3 only (CBP "1101"), first coefficient: escape, run 0, 0x00 then 200: level 200.
    // NIQ 16, QSC 1 (quantiser_scale 2): (2 x 200 + 1) x 16 x 2 >> 5 = 401, already odd.
    // IDCT of a DC of 401: 50.125 -> 50. Then -200: 0x80 then 56 (56 - 256 = -200): -50.
    for (first, second, want) in [(0x00u32, 200u32, 50i16), (0x80, 56, -50)] {
        let mut ipu = Ipu::new();
        ipu.write32(0x10, ctrl::MP1);
        setiq(&mut ipu, true, 16);
        let mut w = BitWriter::default();
        w.code("1101")
            .code(vlc::DCT_ESCAPE)
            .bits(0, 6)
            .bits(first, 8)
            .bits(second, 8)
            .code(vlc::DCT_ZERO_EOB)
            .bits(0xffff_ffff, 32);
        let out = run_cmd(&mut ipu, cmd::BDEC << 28 | 1 << 16, &w.qwords());
        let h = halves(&out);
        assert_eq!(h[15 * 16 + 15] as i16, want);
        assert_eq!(h[0], 0);
        assert_eq!(ctrl_of(&mut ipu) & ctrl::ECD, 0);
    }
}

#[test]
fn mpeg1_oddification_and_mpeg2_saturation() {
    let mut ipu = Ipu::new();
    ipu.niq = [16; 64];
    ipu.iq = [16; 64];
    let mut d = Dec {
        idec: false,
        mpeg1: true,
        ivf: false,
        alt: false,
        idp: 0,
        qst: false,
        qscale: 4,
        field: false,
        dtd: false,
        intra: false,
        dcr: false,
        ofm: false,
        dte: false,
        sgn: false,
        phase: Phase::Start,
        cbp: 0,
        block: 0,
        idx: 0,
        coefs: [0; 64],
        samples: [[0; 64]; 6],
        escapes: 0,
    };
    // Non-intra level 1: (3 x 16 x 4) >> 5 = 6, even: MPEG-1 makes it 5 (towards zero).
    assert_eq!(ipu.dequant(&d, 5, 1), 5);
    assert_eq!(ipu.dequant(&d, 5, -1), -5);
    d.mpeg1 = false;
    assert_eq!(ipu.dequant(&d, 5, 1), 6);
    // Intra: level x W x q >> 4: 3 x 16 x 4 >> 4 = 12.
    d.intra = true;
    assert_eq!(ipu.dequant(&d, 5, -3), -12);
    // Saturation: 2047 x 16 x 112 >> 4 is far past 2047.
    d.qscale = 112;
    assert_eq!(ipu.dequant(&d, 5, 2047), 2047);
    assert_eq!(ipu.dequant(&d, 5, -2047), -2048);
}

#[test]
fn intra_vlc_table_one_and_alternate_scan() {
    // IVF: intra AC from table B-15: (0, 3) is "0111" + sign, EOB is "0110". With AS the
    // coefficient at scan position 1 is F[1][0] (raster 8): the block varies down its rows, by
    // the same amounts as F[0][1] across its columns (see
    // bdec_intra_with_ac_matches_the_reference_idct: 132 at the first, 124 at the last).
    let mut ipu = Ipu::new();
    setiq(&mut ipu, false, 16);
    ipu.write32(0x10, ctrl::IVF | ctrl::AS);
    let mut w = BitWriter::default();
    w.code("100").code("0111").bits(0, 1).code(vlc::DCT_ONE_EOB);
    for _ in 0..3 {
        w.code("100").code(vlc::DCT_ONE_EOB);
    }
    for _ in 0..2 {
        w.code("00").code(vlc::DCT_ONE_EOB);
    }
    w.bits(0xffff_ffff, 32);
    let out = run_cmd(
        &mut ipu,
        cmd::BDEC << 28 | 1 << 27 | 1 << 26 | 4 << 16,
        &w.qwords(),
    );
    let h = halves(&out);
    assert_eq!((h[0], h[7], h[7 * 16]), (132, 132, 124));
    assert_eq!(ctrl_of(&mut ipu) & ctrl::ECD, 0);
}
