//! Registers read back as the hardware returns them (PCSX2 SPU2/RegTable.cpp maps each read
//! to its internal state; reset values from V_Core::Init).

mod common;
use common::*;
use piney_spu2::Spu2;

#[test]
fn reset_values() {
    let mut s = Spu2::new();
    assert_eq!(s.read(cr(0, MMIX)), 0xFF0);
    assert_eq!(s.read(cr(1, MMIX)), 0xFFC);
    for c in 0..2 {
        assert_eq!(s.read(cr(c, STAT)), 0x80);
        assert_eq!(s.read(cr(c, ENDX)), 0xFFFF);
        assert_eq!(s.read(cr(c, ENDX_HI)), 0x00FF);
        assert_eq!(s.read(cr(c, IRQA_HI)), 0);
        assert_eq!(s.read(cr(c, IRQA_LO)), 0x800);
        assert_eq!(s.read(cr(c, ATTR)), 0);
        assert_eq!(s.read(cr(c, EEA_HI + 2)), 0xFFFF);
        assert_eq!(s.read(vp(c, 5, PITCH)), 0x3FFF);
        assert_eq!(s.read(va(c, 5, 1)), 0x2800);
        assert_eq!(s.read(ext(c, BVOLL)), 0x7FFF);
        assert_eq!(s.read(ext(c, AVOLR)), 0x7FFF);
        assert_eq!(s.read(ext(c, EVOLL)), 0);
    }
    assert_eq!(s.read(cr(0, EEA_HI)), 0xE);
    assert_eq!(s.read(cr(0, ESA_HI)), 0xE);
    assert_eq!(s.read(cr(0, ESA_LO)), 0xFFF8);
    assert_eq!(s.read(cr(1, EEA_HI)), 0xF);
}

#[test]
fn voice_registers() {
    let mut s = Spu2::new();
    // Fixed volume: VOLL reads as written, VOLXL is the level, (reg << 1) sign-extended.
    s.write(vp(0, 2, VOLL), 0x1234);
    s.write(vp(0, 2, VOLR), 0x4000);
    assert_eq!(s.read(vp(0, 2, VOLL)), 0x1234);
    assert_eq!(s.read(vp(0, 2, VOLXL)), 0x2468);
    assert_eq!(s.read(vp(0, 2, VOLXR)), 0x8000);
    // ENVX / VOLX are not writable.
    s.write(vp(0, 2, ENVX), 0x1111);
    s.write(vp(0, 2, VOLXL), 0x1111);
    assert_eq!(s.read(vp(0, 2, ENVX)), 0);
    assert_eq!(s.read(vp(0, 2, VOLXL)), 0x2468);
    s.write(vp(1, 23, ADSR1), 0xABCD);
    s.write(vp(1, 23, ADSR2), 0x1357);
    assert_eq!(s.read(vp(1, 23, ADSR1)), 0xABCD);
    assert_eq!(s.read(vp(1, 23, ADSR2)), 0x1357);
    // SSA / LSAX are block addresses: the low word's bits 2-0 read as 0; the high word has
    // 4 bits.
    s.write(va(1, 23, 0), 0x1F);
    s.write(va(1, 23, 1), 0x1237);
    assert_eq!(s.read(va(1, 23, 0)), 0xF);
    assert_eq!(s.read(va(1, 23, 1)), 0x1230);
    s.write(va(0, 3, 3), 0x4444);
    assert_eq!(s.read(va(0, 3, 3)), 0x4440);
}

#[test]
fn volume_sweep_reads_back_through_volx() {
    let mut s = Spu2::new();
    // Sweep, linear increase, shift 0 step +7: +0x3800 per sample (psx-spx sweep = the
    // envelope rule); negative phase sweeps down instead.
    s.write(vp(0, 0, VOLL), 0x8000);
    s.write(vp(0, 0, VOLR), 0x9000);
    s.write(ext(1, MVOLL), 0x8000 | (13 << 2));
    let mut l = vec![];
    for _ in 0..4 {
        s.tick();
        l.push((s.read(vp(0, 0, VOLXL)), s.read(vp(0, 0, VOLXR)) as i16));
    }
    assert_eq!(
        l,
        [
            (0x3800, -0x3800),
            (0x7000, -0x7000),
            (0x7FFF, -0x8000),
            (0x7FFF, -0x8000)
        ]
    );
    assert_eq!(s.read(vp(0, 0, VOLL)), 0x8000);
    // MVOLX: shift 13 is +7 every 4 samples.
    assert_eq!(s.read(ext(1, MVOLXL)), 7);
    assert_eq!(s.read(ext(1, MVOLL)), 0x8000 | (13 << 2));
}

#[test]
fn kon_koff_endx_nax() {
    let mut s = spu();
    load(&mut s, 0x3000, &block(0, 0, 7, &[0; 28]));
    set_addr(&mut s, va(0, 4, 0), 0x3000);
    s.write(vp(0, 4, ADSR1), 0x00FF);
    s.write(cr(0, KON), 1 << 4);
    // KON / KOFF read back the last value written (PCSX2 keeps them as plain storage);
    // KON clears the voice's ENDX bit at once.
    assert_eq!(s.read(cr(0, KON)), 0x10);
    assert_eq!(s.read(cr(0, ENDX)), 0xFFEF);
    s.tick();
    s.tick();
    assert_eq!(s.read(va(0, 4, 4)), 0);
    assert_eq!(s.read(va(0, 4, 5)), 0x3001);
    s.write(cr(0, KOFF), 0x10);
    assert_eq!(s.read(cr(0, KOFF)), 0x10);
    // Writing an ENDX half clears it.
    s.write(cr(0, ENDX_HI), 0);
    assert_eq!(s.read(cr(0, ENDX_HI)), 0);
    assert_eq!(s.read(cr(0, ENDX)), 0xFFEF);
    s.write(cr(0, ENDX), 0);
    assert_eq!(s.read(cr(0, ENDX)), 0);
}

#[test]
fn transfer_address_data_port_and_stat() {
    let mut s = Spu2::new();
    set_addr(&mut s, cr(1, TSA_HI), 0x4_0000);
    s.write(cr(1, DATA), 0xAAAA);
    s.write(cr(1, DATA), 0xBBBB);
    assert_eq!(&s.ram()[0x4_0000..0x4_0002], &[0xAAAA, 0xBBBB]);
    assert_eq!(s.read(cr(1, TSA_HI)), 4);
    assert_eq!(s.read(cr(1, TSA_LO)), 2);
    set_addr(&mut s, cr(1, TSA_HI), 0x4_0000);
    assert_eq!(s.read(cr(1, DATA)), 0xAAAA);
    assert_eq!(s.read(cr(1, DATA)), 0xBBBB);

    // STAT (PCSX2 Dma.cpp / SPU2interruptDMA): ATTR DMA mode 0 with nothing busy reads 0;
    // a DMA mode sets "ready" (0x80); a transfer is "busy" (0x400) until the IOP ends it.
    s.write(cr(0, ATTR), 0);
    assert_eq!(s.read(cr(0, STAT)), 0);
    s.write(cr(0, ATTR), 0x20);
    assert_eq!(s.read(cr(0, STAT)), 0x80);
    set_addr(&mut s, cr(0, TSA_HI), 0x8000);
    s.dma_write(0, &[1, 2, 3]);
    assert_eq!(s.read(cr(0, STAT)), 0x400);
    s.dma_end(0);
    assert_eq!(s.read(cr(0, STAT)), 0x80);
    assert_eq!(s.read(cr(0, TSA_LO)), 0x8003);
    s.write(cr(0, ATTR), 0x30);
    set_addr(&mut s, cr(0, TSA_HI), 0x8000);
    let mut back = [0u16; 3];
    s.dma_read(0, &mut back);
    assert_eq!(back, [1, 2, 3]);
    assert_eq!(s.read(cr(0, STAT)), 0x400);
    s.dma_end(0);
    assert_eq!(s.read(cr(0, STAT)), 0x80);
}

#[test]
fn plain_registers_and_reverb_addresses() {
    let mut s = Spu2::new();
    s.write(0x7C0, 0x0100);
    s.write(0x7C8, 0x0200);
    assert_eq!(s.read(0x7C0), 0x0100);
    assert_eq!(s.read(0x7C8), 0x0200);
    s.write(cr(1, ADMAS), 2);
    assert_eq!(s.read(cr(1, ADMAS)), 2);
    set_rvb(&mut s, 1, APF2_R_DST, 0x3_1234);
    assert_eq!(s.read(rvb(1, APF2_R_DST)), 3);
    assert_eq!(s.read(rvb(1, APF2_R_DST) + 2), 0x1234);
    s.write(ext(1, IN_COEF_R), 0x8001);
    assert_eq!(s.read(ext(1, IN_COEF_R)), 0x8001);
    s.write(cr(0, PMON), 0xFFFF);
    s.write(cr(0, PMON + 2), 0xFFFF);
    assert_eq!(s.read(cr(0, PMON + 2)), 0xFF);
    s.write(cr(1, VMIXER + 2), 0x12);
    assert_eq!(s.read(cr(1, VMIXER + 2)), 0x12);
    assert_eq!(s.read(cr(1, VMIXER)), 0xFFFF);
}
