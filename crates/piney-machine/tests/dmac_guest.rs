//! A guest program drives VIF1 DMA through its registers: it starts a normal transfer that uploads
//! a microprogram (MPG), unpacks a GIF packet and runs VU1 (MSCAL), which XGKICKs it to the GIF.
//! The program polls CHCR.STR (and sees it running), and the kernel calls its DMAC handler for
//! channel 1 when the transfer ends.

mod dmac_support;
mod kernel_support;

use dmac_support::{giftag, machine_rec_from, vifcode};
use kernel_support::{Asm, DATA, log, machine, r, run, sc};
use piney_machine::RunEnd;
use piney_machine::gif::GsWrite::Reg;

const SEMA_ID: u32 = DATA + 0x80;
const PKT: u32 = 0x0020_0000;

fn andi(rt: u32, rs: u32, imm: u32) -> u32 {
    0x3000_0000 | rs << 21 | rt << 16 | imm
}

#[test]
fn guest_starts_vif1_dma_polls_str_and_gets_its_handler() {
    let prog = piney_vu::assemble(
        "nop    iaddiu vi01, vi00, 16\n\
         nop    xgkick vi01\n\
         nop[e] nop\n\
         nop    nop\n",
    )
    .unwrap();
    let mut w = vec![vifcode(0x4a, prog.len() as u32, 0)];
    for p in &prog {
        w.extend([*p as u32, (*p >> 32) as u32]);
    }
    w.push(vifcode(0x01, 0, 0x0101));
    w.push(vifcode(0x60 | 0x0c, 2, 16));
    for q in [
        giftag(1, true, None, 0, &[0xe]),
        0x4242u128 | 0x4cu128 << 64,
    ] {
        w.extend([
            q as u32,
            (q >> 32) as u32,
            (q >> 64) as u32,
            (q >> 96) as u32,
        ]);
    }
    w.push(vifcode(0x14, 0, 0));
    while !w.len().is_multiple_of(4) {
        w.push(0);
    }
    let qwc = (w.len() / 4) as u32;

    let mut a = Asm::new();
    a.create_sema(DATA, 0, 9)
        .mv(r::S1, r::V0)
        .li(r::T0, SEMA_ID)
        .sw(r::V0, 0, r::T0);
    a.li(r::A0, 1)
        .la(r::A1, "hd")
        .li(r::A2, 0)
        .li(r::A3, 0x99)
        .sys(sc::ADD_DMAC_HANDLER);
    a.li(r::A0, 1).sys(sc::ENABLE_DMAC);
    a.li(r::T0, 0x1000_9010).li(r::T1, PKT).sw(r::T1, 0, r::T0);
    a.li(r::T0, 0x1000_9020).li(r::T1, qwc).sw(r::T1, 0, r::T0);
    a.li(r::T0, 0x1000_9000)
        .li(r::T1, 0x101)
        .sw(r::T1, 0, r::T0);
    a.li(r::S0, 0);
    a.label("poll")
        .lw(r::T1, 0, r::T0)
        .word(andi(r::T1, r::T1, 0x100))
        .addiu(r::S0, r::S0, 1);
    a.bne(r::T1, r::ZERO, "poll");
    a.log(r::S0);
    a.mv(r::A0, r::S1).sys(sc::WAIT_SEMA).log_imm(0x1000);
    a.exit();
    a.label("hd").mv(r::S2, r::A1).mv(r::S0, r::A0);
    a.li(r::T0, SEMA_ID)
        .lw(r::A0, 0, r::T0)
        .sys(sc::I_SIGNAL_SEMA);
    a.log_imm(0xd1).log(r::S0).log(r::S2).li(r::V0, 0).jr(r::RA);

    let m = machine(&a);
    let (mut m, h) = machine_rec_from(m);
    let bytes: Vec<u8> = w.iter().flat_map(|x| x.to_le_bytes()).collect();
    m.bus.ram[PKT as usize..PKT as usize + bytes.len()].copy_from_slice(&bytes);
    assert_eq!(run(&mut m, 10).unwrap(), RunEnd::Exited(0));
    assert_eq!(*h.lock().unwrap(), vec![Reg(0x4c, 0x4242)]);
    let l = log(&mut m);
    assert_eq!(l.len(), 5, "{l:x?}");
    assert_eq!(
        &l[..3],
        &[0xd1, 1, 0x99],
        "the DMAC handler ran for channel 1 with its argument"
    );
    assert_eq!(l[4], 0x1000);
    // Each poll counts once; more than one means a poll saw STR still set.
    assert!(l[3] > 1, "the program saw STR set for a while: {l:x?}");
}
