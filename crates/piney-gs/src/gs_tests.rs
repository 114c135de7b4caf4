//! State machine tests: kicks, queues, transfers, CLUT load decisions, SIGNAL/FINISH/LABEL.

use crate::draw::{DisplayCommand, DrawCommand, MemCommand, PrimKind, Renderer};
use crate::gs::{Gs, GsError, csr, priv_reg, reg};
use crate::image::Image;
use crate::mem::{LocalMemory, TransferRect};
use crate::psm::Psm;

#[derive(Default)]
struct Recorder {
    draws: Vec<DrawCommand>,
    mem_cmds: Vec<MemCommand>,
    displays: Vec<DisplayCommand>,
    mem: LocalMemory,
}

impl Renderer for Recorder {
    fn draw(&mut self, cmd: &DrawCommand) {
        self.draws.push(*cmd);
    }
    fn memory(&mut self, cmd: MemCommand) {
        match &cmd {
            MemCommand::HostToLocal { rect, start, data } => {
                self.mem.write_transfer(rect, *start, data);
            }
            MemCommand::LocalToLocal { src, dst, dir } => self.mem.copy_local(src, dst, *dir),
            _ => {}
        }
        self.mem_cmds.push(cmd);
    }
    fn read_back(&mut self, rect: &TransferRect, start: u64, count: u64) -> Vec<u8> {
        self.mem.read_transfer(rect, start, count)
    }
    fn read_memory(&mut self) -> Box<LocalMemory> {
        Box::new(self.mem.clone())
    }
    fn read_clut(&mut self) -> Box<[u16; 512]> {
        Box::new([0; 512])
    }
    fn display(&mut self, cmd: &DisplayCommand) {
        self.displays.push(*cmd);
    }
    fn display_image(&mut self) -> Image {
        Image::new(0, 0, [0; 4])
    }
}

fn gs() -> Gs<Recorder> {
    Gs::new(Recorder::default())
}

fn xyz(x: u32, y: u32, z: u32) -> u64 {
    (x as u64) | ((y as u64) << 16) | ((z as u64) << 32)
}

fn kinds(g: &Gs<Recorder>) -> Vec<PrimKind> {
    g.renderer().draws.iter().map(|d| d.kind).collect()
}

#[test]
fn kick_counts_per_primitive() {
    // (PRIM type, vertices sent, draws expected)
    let cases = [
        (0, 3, 3),
        (1, 5, 2),
        (2, 5, 4),
        (3, 7, 2),
        (4, 5, 3),
        (5, 5, 3),
        (6, 5, 2),
        (7, 4, 0),
    ];
    for (ty, verts, draws) in cases {
        let mut g = gs();
        g.write_reg(reg::PRIM, ty).unwrap();
        for i in 0..verts {
            g.write_reg(reg::XYZ2, xyz(i * 16, i * 32, 0)).unwrap();
        }
        assert_eq!(g.renderer().draws.len(), draws, "PRIM type {ty}");
    }
}

#[test]
fn strip_and_fan_vertex_order() {
    let mut g = gs();
    g.write_reg(reg::PRIM, 4).unwrap();
    for i in 0..4u32 {
        g.write_reg(reg::XYZ2, xyz(i * 16, 0, 0)).unwrap();
    }
    let d = &g.renderer().draws;
    assert_eq!(
        [d[0].vertices[0].x, d[0].vertices[1].x, d[0].vertices[2].x],
        [0, 16, 32]
    );
    assert_eq!(
        [d[1].vertices[0].x, d[1].vertices[1].x, d[1].vertices[2].x],
        [16, 32, 48]
    );
    let mut g = gs();
    g.write_reg(reg::PRIM, 5).unwrap();
    for i in 0..4u32 {
        g.write_reg(reg::XYZ2, xyz(i * 16, 0, 0)).unwrap();
    }
    let d = &g.renderer().draws;
    assert_eq!(
        [d[1].vertices[0].x, d[1].vertices[1].x, d[1].vertices[2].x],
        [0, 32, 48]
    );
    assert_eq!(kinds(&g), [PrimKind::Triangle, PrimKind::Triangle]);
}

#[test]
fn xyz3_queues_without_drawing() {
    let mut g = gs();
    g.write_reg(reg::PRIM, 4).unwrap();
    g.write_reg(reg::XYZ3, xyz(0, 0, 0)).unwrap();
    g.write_reg(reg::XYZ3, xyz(16, 0, 0)).unwrap();
    g.write_reg(reg::XYZF3, xyz(32, 0, 0)).unwrap();
    assert_eq!(g.renderer().draws.len(), 0);
    // The strip went on: the next XYZ2 draws with the last two queued vertices.
    g.write_reg(reg::XYZ2, xyz(48, 0, 0)).unwrap();
    let d = &g.renderer().draws;
    assert_eq!(d.len(), 1);
    assert_eq!(
        [d[0].vertices[0].x, d[0].vertices[1].x, d[0].vertices[2].x],
        [16, 32, 48]
    );
}

#[test]
fn packed_adc_becomes_no_kick() {
    use crate::gif::{GifPath, gif_tag};
    let mut g = gs();
    g.write_reg(reg::PRIM, 0).unwrap();
    let xyz2 = |x: u128, adc: bool| x | ((adc as u128) << 111);
    let mut path = GifPath::new();
    let mut feed = |g: &mut Gs<Recorder>, q: &[u128]| path.feed(g, q).unwrap();
    feed(
        &mut g,
        &[gif_tag(1, false, None, 0, &[0x5]), xyz2(16, true)],
    );
    assert_eq!(g.renderer().draws.len(), 0);
    feed(
        &mut g,
        &[gif_tag(1, false, None, 0, &[0x5]), xyz2(16, false)],
    );
    assert_eq!(g.renderer().draws.len(), 1);
    // PACKED ST keeps Q; RGBAQ takes it.
    feed(
        &mut g,
        &[
            gif_tag(1, false, None, 0, &[0x2, 0x1, 0x5, 0xe]),
            (2.0f32.to_bits() as u128) << 64,
            10 | (20 << 32) | (30 << 64) | (40 << 96),
            0,
            // A+D.
            (reg::PRIM as u128) << 64 | 6,
        ],
    );
    let v = g.renderer().draws[1].vertices[0];
    assert_eq!(v.rgba, [10, 20, 30, 40]);
    assert_eq!(v.q, 2.0);
    assert_eq!(g.prim().prim(), 6);
}

#[test]
fn prmodecont_selects_attributes_and_context() {
    let mut g = gs();
    g.write_reg(reg::XYOFFSET_1, 100 << 4).unwrap();
    g.write_reg(reg::XYOFFSET_2, 200 << 4).unwrap();
    // PRIM with CTXT=1 and ABE; AC=1: PRIM's attributes.
    g.write_reg(reg::PRIM, (1 << 9) | (1 << 6)).unwrap();
    g.write_reg(reg::XYZ2, xyz(300 << 4, 0, 0)).unwrap();
    let d = g.renderer().draws[0];
    assert_eq!(d.prim.ctxt(), 1);
    assert_eq!(d.prim.abe(), 1);
    assert_eq!(d.vertices[0].x, 100 << 4);
    // AC=0: PRMODE's attributes (context 1, no ABE) with PRIM's type.
    g.write_reg(reg::PRMODECONT, 0).unwrap();
    g.write_reg(reg::PRMODE, 1 << 4).unwrap();
    g.write_reg(reg::PRIM, 1 << 9).unwrap();
    g.write_reg(reg::XYZ2, xyz(300 << 4, 0, 0)).unwrap();
    let d = g.renderer().draws[1];
    assert_eq!(d.prim.ctxt(), 0);
    assert_eq!(d.prim.tme(), 1);
    assert_eq!(d.prim.abe(), 0);
    assert_eq!(d.vertices[0].x, 200 << 4);
}

#[test]
fn vertex_latches_rgbaq_st_uv_fog() {
    let mut g = gs();
    g.write_reg(reg::PRIM, 0).unwrap();
    g.write_reg(reg::RGBAQ, 0x8040_2010 | ((0.5f32.to_bits() as u64) << 32))
        .unwrap();
    g.write_reg(
        reg::ST,
        (1.5f32.to_bits() as u64) | ((2.5f32.to_bits() as u64) << 32),
    )
    .unwrap();
    g.write_reg(reg::UV, 0x123 | (0x456 << 16)).unwrap();
    g.write_reg(reg::FOG, 0x77 << 56).unwrap();
    g.write_reg(reg::XYZ2, xyz(1, 2, 0xdead_beef)).unwrap();
    g.write_reg(reg::XYZF2, xyz(1, 2, 0x00ab_cdef) | (0x33 << 56))
        .unwrap();
    let (a, b) = (
        g.renderer().draws[0].vertices[0],
        g.renderer().draws[1].vertices[0],
    );
    assert_eq!(a.rgba, [0x10, 0x20, 0x40, 0x80]);
    assert_eq!((a.q, a.s, a.t, a.u, a.v), (0.5, 1.5, 2.5, 0x123, 0x456));
    assert_eq!((a.z, a.f), (0xdead_beef, 0x77));
    assert_eq!((b.z, b.f), (0x00ab_cdef, 0x33));
}

fn upload(g: &mut Gs<Recorder>, psm: Psm, x: u32, y: u32, w: u32, h: u32, data: &[u8]) {
    g.write_reg(
        reg::BITBLTBUF,
        (0x200u64 << 32) | (2u64 << 48) | ((psm.code() as u64) << 56),
    )
    .unwrap();
    g.write_reg(reg::TRXPOS, ((x as u64) << 32) | ((y as u64) << 48))
        .unwrap();
    g.write_reg(reg::TRXREG, (w as u64) | ((h as u64) << 32))
        .unwrap();
    g.write_reg(reg::TRXDIR, 0).unwrap();
    let mut qw = Vec::new();
    for c in data.chunks(16) {
        let mut b = [0u8; 16];
        b[..c.len()].copy_from_slice(c);
        qw.push(u128::from_le_bytes(b));
    }
    g.write_image(&qw);
}

#[test]
fn host_to_local_every_psm_and_readback() {
    for psm in crate::psm::ALL_PSMS {
        let mut g = gs();
        let (w, h) = (16u32, 4u32);
        let bytes = (w * h * psm.transfer_bits() / 8) as usize;
        let data: Vec<u8> = (0..bytes).map(|i| (i * 7 + 3) as u8).collect();
        upload(&mut g, psm, 8, 2, w, h, &data);
        assert!(!g.transfer_active(), "{psm:?}");
        let rect = TransferRect {
            bp: 0x200,
            bw: 2,
            psm,
            x: 8,
            y: 2,
            w,
            h,
        };
        assert_eq!(
            g.renderer_mut().mem.read_transfer(&rect, 0, rect.pixels()),
            data,
            "{psm:?}"
        );
        // Local -> host through the FIFO.
        g.write_reg(
            reg::BITBLTBUF,
            0x200 | (2 << 16) | ((psm.code() as u64) << 24),
        )
        .unwrap();
        g.write_reg(reg::TRXPOS, 8 | (2 << 16)).unwrap();
        g.write_reg(reg::TRXDIR, 1).unwrap();
        let mut out = vec![0u128; bytes / 16];
        assert_eq!(g.read_image(&mut out), bytes / 16);
        let back: Vec<u8> = out.iter().flat_map(|q| q.to_le_bytes()).collect();
        assert_eq!(back, data, "{psm:?}");
        assert_eq!(g.readback_pending(), 0);
    }
}

#[test]
fn image_data_split_across_writes_24bit() {
    // 24-bit pixels straddle qwords: 6 pixels = 18 bytes sent as two qwords, one at a time,
    // then HWREG finishes nothing more (the transfer is already complete).
    let mut g = gs();
    g.write_reg(
        reg::BITBLTBUF,
        (0x200u64 << 32) | (1u64 << 48) | (1u64 << 56),
    )
    .unwrap();
    g.write_reg(reg::TRXPOS, 0).unwrap();
    g.write_reg(reg::TRXREG, 6 | (1 << 32)).unwrap();
    g.write_reg(reg::TRXDIR, 0).unwrap();
    let data: Vec<u8> = (1..=32).collect();
    g.write_image(&[u128::from_le_bytes(data[..16].try_into().unwrap())]);
    assert!(g.transfer_active());
    g.write_image(&[u128::from_le_bytes(data[16..].try_into().unwrap())]);
    assert!(!g.transfer_active());
    let m = &g.renderer_mut().mem;
    assert_eq!(m.read_pixel(Psm::Ct32, 5, 0, 0x200, 1), 0x12_1110);
    assert_eq!(m.read_pixel(Psm::Ct32, 0, 0, 0x200, 1), 0x03_0201);
    // HWREG carries image data 64 bits at a time.
    g.write_reg(reg::TRXREG, 2 | (1 << 32)).unwrap();
    g.write_reg(reg::BITBLTBUF, (0x200u64 << 32) | (1u64 << 48))
        .unwrap();
    g.write_reg(reg::TRXDIR, 0).unwrap();
    g.write_reg(reg::HWREG, 0x8877_6655_4433_2211).unwrap();
    assert_eq!(
        g.renderer_mut().mem.read_pixel(Psm::Ct32, 1, 0, 0x200, 1),
        0x8877_6655
    );
}

#[test]
fn local_to_local_copy() {
    let mut g = gs();
    upload(
        &mut g,
        Psm::Ct32,
        0,
        0,
        4,
        1,
        &[1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0],
    );
    // Copy from (0,0) to (10,5) in the same buffer.
    g.write_reg(
        reg::BITBLTBUF,
        0x200 | (2 << 16) | (0x200u64 << 32) | (2u64 << 48),
    )
    .unwrap();
    g.write_reg(reg::TRXPOS, (10u64 << 32) | (5u64 << 48))
        .unwrap();
    g.write_reg(reg::TRXREG, 4 | (1 << 32)).unwrap();
    g.write_reg(reg::TRXDIR, 2).unwrap();
    let m = &g.renderer().mem;
    assert_eq!(
        (10..14)
            .map(|x| m.read_pixel(Psm::Ct32, x, 5, 0x200, 2))
            .collect::<Vec<_>>(),
        [1, 2, 3, 4]
    );
}

#[test]
fn clut_load_decisions() {
    let t = |cld: u64, cbp: u64, psm: u64| (psm << 20) | (cbp << 37) | (cld << 61);
    let loads = |g: &Gs<Recorder>| {
        g.renderer()
            .mem_cmds
            .iter()
            .filter(|c| matches!(c, MemCommand::LoadClut { .. }))
            .count()
    };
    let mut g = gs();
    g.write_reg(reg::TEX0_1, t(1, 0x100, 0x13)).unwrap();
    assert_eq!(loads(&g), 1);
    g.write_reg(reg::TEX0_1, t(0, 0x100, 0x13)).unwrap();
    assert_eq!(loads(&g), 1);
    // Not indexed: no load.
    g.write_reg(reg::TEX0_1, t(1, 0x100, 0x00)).unwrap();
    assert_eq!(loads(&g), 1);
    // CLD 4: load when CBP differs from CBP0, then CBP0 = CBP.
    g.write_reg(reg::TEX0_1, t(4, 0x100, 0x14)).unwrap();
    assert_eq!(loads(&g), 2);
    g.write_reg(reg::TEX0_2, t(4, 0x100, 0x14)).unwrap();
    assert_eq!(loads(&g), 2);
    // CLD 3 sets CBP1; CLD 5 then compares against it.
    g.write_reg(reg::TEX0_1, t(3, 0x140, 0x14)).unwrap();
    assert_eq!(loads(&g), 3);
    g.write_reg(reg::TEX0_1, t(5, 0x140, 0x14)).unwrap();
    assert_eq!(loads(&g), 3);
    g.write_reg(reg::TEX0_1, t(5, 0x180, 0x14)).unwrap();
    assert_eq!(loads(&g), 4);
    // CLD 2 loads and sets CBP0: CLD 4 with the same CBP then skips.
    g.write_reg(reg::TEX0_1, t(2, 0x1c0, 0x13)).unwrap();
    g.write_reg(reg::TEX0_1, t(4, 0x1c0, 0x13)).unwrap();
    assert_eq!(loads(&g), 5);
    // TEX2 changes only PSM and the CLUT fields, and loads too.
    g.write_reg(reg::TEX0_1, 0x3fff | (5 << 26)).unwrap();
    g.write_reg(reg::TEX2_1, t(1, 0x40, 0x13) | 0xf_ffff | (0x3ff << 26))
        .unwrap();
    assert_eq!(loads(&g), 6);
    let tex0 = g.context(0).tex0;
    assert_eq!(
        (tex0.tbp0(), tex0.tw(), tex0.psm(), tex0.cbp()),
        (0x3fff, 5, 0x13, 0x40)
    );
}

#[test]
fn signal_finish_label_and_csr() {
    let mut g = gs();
    assert_eq!(g.read_priv(priv_reg::CSR).unwrap() & 0x1f, 0);
    g.write_reg(reg::SIGNAL, 0x1234_5678 | (0x0000_ffffu64 << 32))
        .unwrap();
    assert_eq!(g.read_priv(priv_reg::SIGLBLID).unwrap(), 0x5678);
    assert_ne!(g.read_priv(priv_reg::CSR).unwrap() & csr::SIGNAL, 0);
    // Masked by IMR after reset.
    assert!(!g.interrupt_pending());
    g.write_priv(priv_reg::IMR, 0x7f00 & !(1 << 8)).unwrap();
    assert!(g.interrupt_pending());
    g.write_reg(reg::LABEL, 0xaaaa_bbbb | (0xffff_0000u64 << 32))
        .unwrap();
    assert_eq!(
        g.read_priv(priv_reg::SIGLBLID).unwrap(),
        0xaaaa_0000_0000_5678
    );
    g.write_reg(reg::FINISH, 0).unwrap();
    let c = g.read_priv(priv_reg::CSR).unwrap();
    assert_eq!(c & 3, 3);
    assert_eq!(c >> 24 & 0xff, 0x55);
    // Writing 1 clears.
    g.write_priv(priv_reg::CSR, csr::SIGNAL).unwrap();
    assert_eq!(g.read_priv(priv_reg::CSR).unwrap() & 3, 2);
    assert!(!g.interrupt_pending());
    assert_eq!(g.write_reg(0x7f, 0), Err(GsError::UnknownRegister(0x7f)));
    assert!(g.write_priv(0x2000, 0).is_err());
}

#[test]
fn privileged_registers_store() {
    let mut g = gs();
    let regs = [
        priv_reg::PMODE,
        priv_reg::SMODE1,
        priv_reg::SMODE2,
        priv_reg::SRFSH,
        priv_reg::SYNCH1,
        priv_reg::SYNCH2,
        priv_reg::SYNCV,
        priv_reg::DISPFB1,
        priv_reg::DISPLAY1,
        priv_reg::DISPFB2,
        priv_reg::DISPLAY2,
        priv_reg::EXTBUF,
        priv_reg::EXTDATA,
        priv_reg::EXTWRITE,
        priv_reg::BGCOLOR,
        priv_reg::SIGLBLID,
    ];
    for (i, r) in regs.iter().enumerate() {
        g.write_priv(*r, 0x1000 + i as u64).unwrap();
    }
    for (i, r) in regs.iter().enumerate() {
        assert_eq!(g.read_priv(*r).unwrap(), 0x1000 + i as u64);
    }
    assert_eq!(g.privileged.dispfb[1].0, 0x1009);
}

#[test]
fn every_general_register_is_accepted() {
    let mut g = gs();
    let all = [
        0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0c, 0x0d, 0x14, 0x15,
        0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x22, 0x34, 0x35, 0x36, 0x37, 0x3b, 0x3d, 0x3f,
        0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x4b, 0x4c, 0x4d, 0x4e,
        0x4f, 0x50, 0x51, 0x52, 0x53, 0x54, 0x60, 0x61, 0x62,
    ];
    for a in all {
        assert_eq!(g.write_reg(a, 0), Ok(()), "{a:#x}");
    }
    g.write_reg(
        reg::FRAME_2,
        0x1234_5678_0000_0000 | (1 << 24) | 10 << 16 | 5,
    )
    .unwrap();
    let f = g.context(1).frame;
    assert_eq!(
        (f.fbp(), f.fbw(), f.psm(), f.fbmsk()),
        (5, 10, 1, 0x1234_5678)
    );
}

// ps2autotests tests/gs/signal and tests/gs/label (hardware-verified expected output in
// signal.expected / label.expected): SIGNAL and LABEL replace the ID bits selected by IDMSK.
#[test]
fn ps2autotests_signal_and_label() {
    let mut g = gs();
    g.write_priv(priv_reg::CSR, csr::SIGNAL).unwrap();
    g.write_priv(priv_reg::SIGLBLID, 0x7654_3210_0000_0000)
        .unwrap();
    g.write_reg(reg::SIGNAL, 0xf0 | (0xf0 << 32)).unwrap();
    assert_eq!(g.read_priv(priv_reg::CSR).unwrap() & csr::SIGNAL, 1);
    assert_eq!(
        g.read_priv(priv_reg::SIGLBLID).unwrap(),
        0x7654_3210_0000_00f0
    );
    g.write_priv(priv_reg::CSR, csr::SIGNAL).unwrap();
    g.write_priv(priv_reg::SIGLBLID, 0x3333_3333_3333_3333)
        .unwrap();
    g.write_reg(reg::SIGNAL, 0xf0 << 32).unwrap();
    assert_eq!(g.read_priv(priv_reg::CSR).unwrap() & csr::SIGNAL, 1);
    assert_eq!(
        g.read_priv(priv_reg::SIGLBLID).unwrap(),
        0x3333_3333_3333_3303
    );
    g.write_priv(priv_reg::SIGLBLID, 0x0000_0000_7654_3210)
        .unwrap();
    g.write_reg(reg::LABEL, 0xf0 | (0xf0 << 32)).unwrap();
    assert_eq!(
        g.read_priv(priv_reg::SIGLBLID).unwrap(),
        0x0000_00f0_7654_3210
    );
    g.write_priv(priv_reg::SIGLBLID, 0x3333_3333_3333_3333)
        .unwrap();
    g.write_reg(reg::LABEL, 0xf0 << 32).unwrap();
    assert_eq!(
        g.read_priv(priv_reg::SIGLBLID).unwrap(),
        0x3333_3303_3333_3333
    );
}

#[test]
fn mtba_derives_miptbp1_on_tex0_writes() {
    // TEX1.MTBA with a 256x256 PSMCT32 texture at TBP0 0x1000: level 0 takes 256*256*4 bytes =
    // 1024 blocks, so level 1 is at 0x1400 (BW 256/64/2 = 2), level 2 256 blocks later at 0x1500
    // (BW 1), level 3 64 blocks later at 0x1540 (BW 1).
    let mut g = gs();
    g.write_reg(reg::TEX1_1, 1 << 9).unwrap();
    g.write_reg(reg::TEX0_1, 0x1000 | 4 << 14 | 8 << 26 | 8 << 30)
        .unwrap();
    let m = g.context(0).miptbp1;
    assert_eq!(
        (m.tbp1(), m.tbw1(), m.tbp2(), m.tbw2(), m.tbp3(), m.tbw3()),
        (0x1400, 2, 0x1500, 1, 0x1540, 1)
    );
    // A 32x32 PSMT4 texture: 32*32*4 bits = 512 bytes = 2 blocks; then 1 block each (the
    // minimum distance).
    g.write_reg(
        reg::TEX0_1,
        0x200 | 1 << 14 | 0x14 << 20 | 5 << 26 | 5 << 30,
    )
    .unwrap();
    let m = g.context(0).miptbp1;
    assert_eq!((m.tbp1(), m.tbp2(), m.tbp3()), (0x202, 0x203, 0x204));
    // Narrower than 32, or MTBA off, or a TEX2 write: MIPTBP1 stays.
    g.write_reg(reg::TEX0_1, 0x300 | 4 << 26 | 4 << 30).unwrap();
    assert_eq!(g.context(0).miptbp1.tbp1(), 0x202);
    g.write_reg(reg::TEX1_1, 0).unwrap();
    g.write_reg(reg::TEX0_1, 0x1000 | 8 << 26 | 8 << 30)
        .unwrap();
    assert_eq!(g.context(0).miptbp1.tbp1(), 0x202);
}

#[test]
fn second_signal_waits_for_the_clear() {
    let mut g = gs();
    g.write_reg(reg::SIGNAL, 1 | (0xffu64 << 32)).unwrap();
    assert!(!g.signal_stalled());
    g.write_reg(reg::SIGNAL, 2 | (0xffu64 << 32)).unwrap();
    assert!(g.signal_stalled());
    assert_eq!(g.read_priv(priv_reg::SIGLBLID).unwrap(), 1);
    // Clearing CSR.SIGNAL lets the waiting one through: SIGID 2 and SIGNAL set again.
    g.write_priv(priv_reg::CSR, csr::SIGNAL).unwrap();
    assert!(!g.signal_stalled());
    assert_eq!(g.read_priv(priv_reg::SIGLBLID).unwrap(), 2);
    assert_eq!(g.read_priv(priv_reg::CSR).unwrap() & csr::SIGNAL, 1);
}

#[test]
fn a_frame_is_one_display_command_with_the_pcrtcs_registers() {
    let mut g = gs();
    g.write_priv(priv_reg::PMODE, 0x66 | 1).unwrap();
    // NTSC (SMODE1.CMOD 2), interlaced frame mode.
    g.write_priv(priv_reg::SMODE1, 2 << 13).unwrap();
    g.write_priv(priv_reg::SMODE2, 1).unwrap();
    g.write_priv(priv_reg::DISPFB2, 8 << 9).unwrap();
    g.write_priv(priv_reg::DISPLAY2, 684 | 66 << 12 | 4 << 23)
        .unwrap();
    g.write_priv(priv_reg::BGCOLOR, 0x10_2030).unwrap();
    let cmd = g.display(crate::Pcrtc { deflicker: true });
    assert_eq!(g.renderer().displays, vec![cmd]);
    assert_eq!(cmd.pmode.0, 0x67);
    assert_eq!(cmd.dispfb[1].fbw(), 8);
    assert_eq!(cmd.display[1].dx(), 684);
    assert_eq!(cmd.bgcolor.0, 0x10_2030);
    assert!(cmd.deflicker);
    // DX 684 = 636 + 48 at 5 clocks a pixel; DY 66 = 50 + 16 rows.
    assert_eq!(cmd.offset(), (9, 16));
    // Nothing else reached the renderer.
    assert!(g.renderer().draws.is_empty() && g.renderer().mem_cmds.is_empty());
}

#[test]
fn the_privileged_block_round_trips() {
    let mut g = gs();
    g.write_priv(priv_reg::PMODE, 0x66).unwrap();
    g.write_priv(priv_reg::DISPLAY2, 0x1234_5678_9abc).unwrap();
    g.write_priv(priv_reg::IMR, 0x7f00).unwrap();
    g.write_priv(priv_reg::SIGLBLID, 5 << 32 | 3).unwrap();
    g.vsync(true);
    let block = g.priv_block();
    assert_eq!(block.len(), 0x2000);
    assert_eq!(block[0xa0..0xa8], 0x1234_5678_9abcu64.to_le_bytes());
    let mut h = gs();
    h.load_priv_block(&block);
    assert_eq!(h.privileged, g.privileged);
}

/// IMAGE data arriving a qword at a time (as the GIF feeds it) reaches the renderer as one
/// host->local command, sent before the next command of any kind, so the renderer sees the
/// same memory in the same order.
#[test]
fn image_qwords_are_gathered_into_one_upload_sent_before_the_next_command() {
    let mut g = gs();
    // A 16 x 16 PSMCT32 upload (64 qwords) at block 0x100, width 1.
    g.write_reg(reg::BITBLTBUF, 0x100 << 32 | 1 << 48).unwrap();
    g.write_reg(reg::TRXPOS, 0).unwrap();
    g.write_reg(reg::TRXREG, 16 | 16 << 32).unwrap();
    g.write_reg(reg::TRXDIR, 0).unwrap();
    for i in 0..64u128 {
        g.write_image(&[i * 0x0101_0101_0101_0101_0101_0101_0101_0101]);
    }
    // Nothing sent yet; the next draw sends the upload first.
    assert!(g.renderer().mem_cmds.is_empty());
    g.write_reg(reg::PRIM, 0).unwrap();
    g.write_reg(reg::XYZ2, xyz(0, 0, 0)).unwrap();
    let r = g.renderer_mut();
    assert_eq!(r.mem_cmds.len(), 1);
    match &r.mem_cmds[0] {
        MemCommand::HostToLocal { start, data, .. } => {
            assert_eq!((*start, data.len()), (0, 64 * 16));
            assert_eq!(data[16 * 5], 5);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(r.draws.len(), 1);
}
