//! IRQA: the core's interrupt fires when its address is accessed (not before), by a voice's
//! decoder, the input area or a DMA transfer; SPDIF_IRQINFO shows it until cleared
//! (PCSX2 SPU2/Mixer.cpp, ReadInput.cpp, Dma.cpp, spu2sys.cpp).

mod common;
use common::*;

/// Voice 0 of core 0 plays 0x3000 (Loop Start), 0x3008, 0x3010 (Loop End + Repeat) at pitch
/// 0x1000: it starts on the second sample; the sample it produces on tick t (from 1) is
/// t - 2, and at the end of that tick it moves to sample t - 1.
fn setup(irqa: u32) -> piney_spu2::Spu2 {
    let mut s = spu();
    load(&mut s, 0x3000, &block(1, 0, 4, &[1; 28]));
    load(&mut s, 0x3008, &block(1, 0, 0, &[2; 28]));
    load(&mut s, 0x3010, &block(1, 0, 3, &[3; 28]));
    s.write(vp(0, 0, PITCH), 0x1000);
    s.write(vp(0, 0, ADSR1), 0x00FF);
    s.write(vp(0, 0, ADSR2), 0x1FC0);
    set_addr(&mut s, va(0, 0, 0), 0x3000);
    set_addr(&mut s, cr(0, IRQA_HI), irqa);
    s.write(cr(0, ATTR), 0x40);
    s.write(cr(0, KON), 1);
    s
}

/// The tick after which the IRQ shows, or None within `limit` ticks.
fn first_irq(s: &mut piney_spu2::Spu2, limit: u64) -> Option<u64> {
    (1..=limit).find(|_| {
        s.tick();
        s.take_irq()
    })
}

#[test]
fn decoder_reaching_a_data_halfword() {
    // 0x3013 holds samples 8..11 of the third block, i.e. the voice's samples 64..67: the
    // decoder reaches it when it moves to sample 64, at the end of tick 65.
    let mut s = setup(0x3013);
    assert_eq!(first_irq(&mut s, 300), Some(65));
    assert_eq!(s.read(SPDIF_IRQINFO), 4);
    // The flag holds: the next pass (84 samples later) raises nothing...
    assert_eq!(first_irq(&mut s, 84 + 10), None);
    // ...until IRQ enable is cycled (clearing IRQINFO); then the pass after fires.
    s.write(cr(0, ATTR), 0);
    assert_eq!(s.read(SPDIF_IRQINFO), 0);
    s.write(cr(0, ATTR), 0x40);
    assert_eq!(first_irq(&mut s, 84), Some(65 + 2 * 84 - (65 + 84 + 10)));
}

#[test]
fn decoder_reaching_a_block_header_and_the_other_cores_irqa() {
    // The header 0x3010 is read when the decoder enters the block, moving to sample 56 at the
    // end of tick 57. Core 1's IRQA at the same address fires too: both cores watch every
    // access (PCSX2 Mixer.cpp IncrementNextA).
    let mut s = setup(0x3010);
    set_addr(&mut s, cr(1, IRQA_HI), 0x3010);
    s.write(cr(1, ATTR), 0x40);
    assert_eq!(first_irq(&mut s, 300), Some(57));
    assert_eq!(s.read(SPDIF_IRQINFO), 0xC);
}

#[test]
fn irq_disabled_does_not_fire() {
    let mut s = setup(0x3013);
    s.write(cr(0, ATTR), 0);
    assert_eq!(first_irq(&mut s, 300), None);
}

#[test]
fn input_area_read() {
    // Core 0's right input buffer at position 5 is read on tick 6.
    let mut s = spu();
    set_addr(&mut s, cr(0, IRQA_HI), 0x2205);
    s.write(cr(0, ATTR), 0x40);
    assert_eq!(first_irq(&mut s, 600), Some(6));
}

#[test]
fn dma_write_reaching_irqa() {
    // PCSX2 Dma.cpp: IRQA fires when it lies in (TSA, TSA + size]: as the advancing address
    // reaches it. Core 1's IRQA watches core 0's DMA too.
    let mut s = spu();
    set_addr(&mut s, cr(0, TSA_HI), 0x5000);
    set_addr(&mut s, cr(1, IRQA_HI), 0x5010);
    s.write(cr(1, ATTR), 0x40);
    s.write(cr(0, ATTR), 0x20);
    s.dma_write(0, &[0x1111; 15]);
    assert!(!s.take_irq());
    assert_eq!(s.read(cr(0, TSA_LO)), 0x500F);
    s.dma_write(0, &[0x2222]);
    assert!(s.take_irq());
    assert_eq!(s.read(SPDIF_IRQINFO), 8);
    assert_eq!(s.read(cr(0, TSA_LO)), 0x5010);
    assert_eq!(s.ram()[0x500F], 0x2222);
}

#[test]
fn data_port_write_at_irqa() {
    // PCSX2 RegWrite_Core REG__1AC: the address written through the port is checked.
    let mut s = spu();
    set_addr(&mut s, cr(0, TSA_HI), 0x6000);
    set_addr(&mut s, cr(0, IRQA_HI), 0x6001);
    s.write(cr(0, ATTR), 0x40);
    s.write(cr(0, DATA), 1);
    assert!(!s.take_irq());
    s.write(cr(0, DATA), 2);
    assert!(s.take_irq());
}
