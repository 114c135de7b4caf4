//! The IOP's SIF command layer (the `sifcmd` module), served natively.
//!
//! A command packet starts with a 16-byte header: word 0 holds the packet size in its low byte
//! and the size of the extra data sent before it in bits 8..31, word 1 the extra data's
//! destination, word 2 the command id (cid; bit 31 marks the system commands), word 3 an
//! optional argument. The EE sends a packet into the IOP's receive buffer (whose address SMCOM
//! publishes) with a transfer flagged to interrupt the IOP; the IOP's handler takes the packet
//! (clearing its size byte) and dispatches it. The IOP answers into the EE's receive buffer, whose
//! address the EE gave with INIT_CMD (opt 0) or CHANGE_SADDR.

use crate::bus::EeBus;
use crate::sif::dma::{self, put_word, word};
use crate::sif::{SIF_STAT_BOOTEND, SIF_STAT_CMDINIT, SIF_STAT_SIFINIT, Sif, rpc};

/// The IOP address of the native sifcmd's command receive buffer (128 bytes), published in SMCOM.
pub const IOP_CMD_RECV_BUF: u32 = 0x0001_0000;
/// The receive buffer's size: the largest packet (112 bytes of data and the header).
pub const IOP_CMD_RECV_SIZE: usize = 0x80;
/// IOP RAM from here holds the native modules' structures (RPC server data and buffers).
pub const IOP_NATIVE_BASE: u32 = 0x0001_0100;
/// IOP RAM from here up is left to the guest (its SIF DMA into IOP RAM, a future IOP heap).
pub const IOP_NATIVE_END: u32 = 0x0008_0000;

/// From a packet's arrival to the IOP starting its answer: the IOP's interrupt, the sifcmd
/// handler and (for RPC calls) the server thread's wake-up; about 20 us. Fixed, not measured.
pub const IOP_CMD_LATENCY: u64 = 6_000;
/// How long an IOP reboot (the RESET command) takes before SMFLG shows the IOP booted again:
/// 10 ms of emulated time. Fixed, not measured.
pub const IOP_REBOOT_CYCLES: u64 = 2_949_120;

/// Command ids (ps2sdk `sifcmd.h`).
pub mod cid {
    /// Bit 31: a system command.
    pub const SYSTEM: u32 = 0x8000_0000;
    /// Change the address of the other side's receive buffer.
    pub const CHANGE_SADDR: u32 = SYSTEM;
    /// Set a software register (sreg) of the other side.
    pub const SET_SREG: u32 = SYSTEM | 1;
    /// Command layer initialisation (opt 0: the EE's receive buffer; opt 1: RPC initialisation).
    pub const INIT_CMD: u32 = SYSTEM | 2;
    /// Reboot the IOP.
    pub const RESET_CMD: u32 = SYSTEM | 3;
    /// An RPC request ended (the answer to BIND, CALL and RDATA).
    pub const RPC_END: u32 = SYSTEM | 8;
    /// Bind an RPC client to a server by sid.
    pub const RPC_BIND: u32 = SYSTEM | 9;
    /// Call a function of an RPC server.
    pub const RPC_CALL: u32 = SYSTEM | 10;
    /// Get data from the other side's memory.
    pub const RPC_RDATA: u32 = SYSTEM | 12;
}

/// The sreg the IOP sets (to 1) when its RPC layer is up (`SIF_SREG_RPCINIT`).
pub const SREG_RPCINIT: u32 = 0;

/// The native IOP command layer's state.
#[derive(Debug, Default)]
pub struct IopCmd {
    /// The EE's command receive buffer (0 until the EE gives it).
    pub ee_recv: u32,
    /// The IOP's software registers, set by the EE's SET_SREG.
    pub sregs: [u32; 32],
    /// When a reboot started by RESET ends.
    pub reboot_due: Option<u64>,
    /// Packets dispatched since power-on.
    pub packets: u64,
}

/// The IOP's SIF1 DMA interrupt at cycle `at`: take the packet in the receive buffer, if any, and
/// act on it.
pub fn iop_interrupt(sif: &mut Sif, bus: &mut EeBus, at: u64) -> Result<(), String> {
    if sif.iop.reboot_due.is_some() {
        sif.log_once(
            "reboot-drop",
            "a command reached the IOP while it reboots; dropped",
        );
        return Ok(());
    }
    let off = dma::iop_offset(IOP_CMD_RECV_BUF, IOP_CMD_RECV_SIZE)?;
    let size = bus.iop_ram[off] as usize;
    if size == 0 {
        return Ok(());
    }
    // The handler clears the size byte (so a stale packet is never taken twice) and copies the
    // packet out in whole words.
    bus.iop_ram[off] = 0;
    let len = size.div_ceil(4) * 4;
    let mut pkt = bus.iop_ram[off..off + len.min(IOP_CMD_RECV_SIZE)].to_vec();
    pkt[0] = size as u8;
    sif.iop.packets += 1;
    dispatch(sif, bus, &pkt, at)
}

/// Act on one command packet that reached the IOP at cycle `at`.
pub fn dispatch(sif: &mut Sif, bus: &mut EeBus, pkt: &[u8], at: u64) -> Result<(), String> {
    let c = word(pkt, 8);
    let opt = word(pkt, 12);
    match c {
        cid::CHANGE_SADDR => sif.iop.ee_recv = word(pkt, 16),
        cid::SET_SREG => {
            let i = word(pkt, 16);
            if let Some(r) = sif.iop.sregs.get_mut(i as usize) {
                *r = word(pkt, 20);
            }
        }
        cid::INIT_CMD if opt == 0 => sif.iop.ee_recv = word(pkt, 16),
        cid::INIT_CMD => {
            // SifInitRpc: the IOP's RPC layer answers by setting the EE's SIF_SREG_RPCINIT.
            let mut p = vec![0u8; 24];
            put_word(&mut p, 16, SREG_RPCINIT);
            put_word(&mut p, 20, 1);
            send_cmd(sif, at + IOP_CMD_LATENCY, cid::SET_SREG, p, None);
        }
        cid::RESET_CMD => {
            let arglen = (word(pkt, 16) as usize).min(pkt.len().saturating_sub(24));
            let arg = pkt.get(24..24 + arglen).unwrap_or(&[]);
            let arg = String::from_utf8_lossy(arg).trim_end_matches('\0').to_string();
            eprintln!("piney: sif: IOP reset requested (\"{arg}\"); the native IOP reboots");
            sif.iop.reboot_due = Some(at + IOP_REBOOT_CYCLES);
            sif.dma.clear_to_ee();
        }
        cid::RPC_END | cid::RPC_BIND | cid::RPC_CALL | cid::RPC_RDATA => rpc::handle(sif, bus, c, pkt, at)?,
        other => sif.log_once(
            &format!("cid{other:x}"),
            &format!("the IOP has no handler for SIF command {other:#010x}; ignored as the IOP's sifcmd does"),
        ),
    }
    Ok(())
}

/// Send a command packet to the EE, starting at cycle `at`, with optional extra data
/// `(bytes, EE destination)` sent before it. `pkt` holds the whole packet (16..=112 bytes,
/// header included); its header is filled in here.
pub fn send_cmd(sif: &mut Sif, at: u64, c: u32, mut pkt: Vec<u8>, extra: Option<(Vec<u8>, u32)>) {
    let psize = pkt.len().clamp(16, 112);
    pkt.resize(psize, 0);
    let extra = extra.filter(|(d, _)| !d.is_empty());
    let (w0, dest) = match &extra {
        Some((d, dest)) => (psize as u32 | ((d.len() as u32) << 8), *dest),
        None => (psize as u32, 0),
    };
    put_word(&mut pkt, 0, w0);
    put_word(&mut pkt, 4, dest);
    put_word(&mut pkt, 8, c);
    if sif.iop.ee_recv == 0 {
        sif.log_once(
            "no-ee-recv",
            &format!("the IOP has a command ({c:#010x}) for the EE but the EE gave no receive buffer; dropped"),
        );
        return;
    }
    if let Some((d, dest)) = extra {
        sif.dma.queue_to_ee(at, dest, d, false);
    }
    let recv = sif.iop.ee_recv;
    sif.dma.queue_to_ee(at, recv, pkt, true);
}

/// The end of an IOP reboot: the command layer forgets the EE, the servers start afresh, SMCOM
/// and SMFLG show the booted IOP again.
pub fn finish_reboot(sif: &mut Sif, bus: &mut EeBus) {
    sif.iop.ee_recv = 0;
    sif.iop.sregs = [0; 32];
    sif.rpc.reset_servers();
    if let Ok(off) = dma::iop_offset(IOP_CMD_RECV_BUF, IOP_CMD_RECV_SIZE) {
        bus.iop_ram[off] = 0;
    }
    bus.sif.iop_set_smcom(IOP_CMD_RECV_BUF);
    bus.sif
        .iop_set_smflg(SIF_STAT_SIFINIT | SIF_STAT_CMDINIT | SIF_STAT_BOOTEND);
}
