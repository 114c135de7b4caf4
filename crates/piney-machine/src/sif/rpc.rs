//! SIF RPC on the IOP side: a registry of native servers by sid, and the BIND, CALL and RDATA
//! requests the EE sends them.
//!
//! Packet layouts (words after the 16-byte header; ps2sdk `sifrpc.h`):
//! - every RPC packet: +16 rec_id, +20 pkt_addr (the EE packet), +24 rpc_id;
//! - BIND: +28 client (the EE's client data), +32 sid;
//! - CALL: +28 client, +32 rpc_number, +36 send_size, +40 receive (EE), +44 recv_size,
//!   +48 rmode, +52 server (the IOP server data given at bind); the arguments were sent as the
//!   packet's extra data into the server's buffer;
//! - RDATA: +28 receive (the EE's receive data), +32 src (IOP), +36 dest (EE), +40 size;
//! - END (the answer): +28 client, +32 the request's cid, +36 server, +40 buff, +44 cbuff.
//!
//! A native server's reply is what its function returned; the IOP sends `recv_size` bytes of it
//! (in whole words, zero-padded) to the client's receive buffer as the END packet's extra data.

use crate::bus::EeBus;
use crate::sif::Sif;
use crate::sif::cmd::{self, IOP_CMD_LATENCY, IOP_NATIVE_BASE, IOP_NATIVE_END, cid};
use crate::sif::dma::{self, put_word, word};

/// The size of an RPC packet.
pub const RPC_PACKET_SIZE: usize = 64;
/// The size a native server's data structure takes in IOP RAM (SifRpcServerData_t, 17 words).
const SERVER_DATA_SIZE: u32 = 0x50;

/// A native IOP RPC server.
pub trait RpcServer {
    /// The server id clients bind to.
    fn sid(&self) -> u32;
    /// A name for messages.
    fn name(&self) -> &str;
    /// The size of the server's receive buffer in IOP RAM (the largest argument block).
    fn buffer_size(&self) -> usize {
        0x1000
    }
    /// Run function `fno` with the argument bytes the client sent; return the reply bytes (the
    /// IOP sends the client's `recv_size` of them). An error stops the run, naming it.
    fn call(&mut self, fno: u32, args: &[u8], ctx: &mut RpcContext<'_>) -> Result<Vec<u8>, String>;
    /// The IOP rebooted: forget all state.
    fn reset(&mut self) {}
    /// The server as `Any`, for a module with work outside RPC calls (padman's per-frame
    /// writes) to be reached through the registry; `None` for servers without such work.
    fn as_any_mut(&mut self) -> Option<&mut dyn std::any::Any> {
        None
    }
}

/// What a native server can reach while it runs a call.
pub struct RpcContext<'a> {
    /// The machine's memories and guest output.
    pub bus: &'a mut EeBus,
    to_ee: Vec<(u32, Vec<u8>)>,
    delay: u64,
}

impl<'a> RpcContext<'a> {
    /// A context over `bus`.
    pub fn new(bus: &'a mut EeBus) -> Self {
        Self {
            bus,
            to_ee: Vec::new(),
            delay: 0,
        }
    }

    /// Read EE memory, as the IOP's sceSifGetOtherData does (the EE has written its cache back).
    pub fn read_ee(&mut self, addr: u32, len: usize) -> Result<Vec<u8>, String> {
        dma::read_ee(self.bus, addr, len)
            .map_err(|a| format!("EE memory at {a:#010x} is unreadable"))
    }

    /// Send bytes to EE memory as the IOP's sceSifSetDma does; they land, in order, before the
    /// call's END packet.
    pub fn send_to_ee(&mut self, dest: u32, data: Vec<u8>) {
        self.to_ee.push((dest, data));
    }

    /// The guest's output stream (the same as the EE SIO's).
    pub fn stdout(&mut self) -> &mut Vec<u8> {
        &mut self.bus.out
    }

    /// IOP RAM.
    pub fn iop_ram(&mut self) -> &mut [u8] {
        &mut self.bus.iop_ram
    }

    /// The call takes `cycles` longer before its answer is sent (a disc read, a memory card...).
    pub fn add_delay(&mut self, cycles: u64) {
        self.delay += cycles;
    }

    /// The transfers to the EE the call asked for, in order.
    pub fn sent_to_ee(&self) -> &[(u32, Vec<u8>)] {
        &self.to_ee
    }
}

struct Entry {
    server: Box<dyn RpcServer>,
    /// The server data's IOP address (0 until laid out).
    addr: u32,
    /// The receive buffer's IOP address.
    buff: u32,
}

/// The native servers by sid.
#[derive(Default)]
pub struct RpcRegistry {
    entries: Vec<Entry>,
    next_free: u32,
}

impl RpcRegistry {
    /// Add a server, replacing one with the same sid (the new one is laid out anew).
    pub fn register(&mut self, server: Box<dyn RpcServer>) {
        let sid = server.sid();
        self.entries.retain(|e| e.server.sid() != sid);
        self.entries.push(Entry {
            server,
            addr: 0,
            buff: 0,
        });
    }

    /// Lay the servers not yet placed out in IOP RAM: their server data (sid at +0, buff at +8)
    /// and receive buffers, from [`IOP_NATIVE_BASE`] up.
    pub fn install(&mut self, bus: &mut EeBus) {
        if self.next_free == 0 {
            self.next_free = IOP_NATIVE_BASE;
        }
        for e in self.entries.iter_mut().filter(|e| e.addr == 0) {
            let size = (e.server.buffer_size() as u32).div_ceil(16) * 16;
            let (addr, buff) = (self.next_free, self.next_free + SERVER_DATA_SIZE);
            if buff + size > IOP_NATIVE_END {
                eprintln!(
                    "piney: sif: no IOP RAM left for server {} ({:#x})",
                    e.server.name(),
                    e.server.sid()
                );
                continue;
            }
            self.next_free = buff + size;
            e.addr = addr;
            e.buff = buff;
            let mut sd = vec![0u8; SERVER_DATA_SIZE as usize];
            put_word(&mut sd, 0, e.server.sid());
            put_word(&mut sd, 8, buff);
            let _ = dma::write_iop(bus, addr, &sd);
        }
    }

    /// The IOP address of the server data of the server `sid`, if registered and laid out.
    pub fn server_addr(&self, sid: u32) -> Option<u32> {
        self.entries
            .iter()
            .find(|e| e.server.sid() == sid && e.addr != 0)
            .map(|e| e.addr)
    }

    /// The IOP address of the receive buffer of the server `sid`.
    pub fn server_buffer(&self, sid: u32) -> Option<u32> {
        self.entries
            .iter()
            .find(|e| e.server.sid() == sid && e.addr != 0)
            .map(|e| e.buff)
    }

    /// The registered server `sid`, if any.
    pub fn server_mut(&mut self, sid: u32) -> Option<&mut dyn RpcServer> {
        self.entries
            .iter_mut()
            .find(|e| e.server.sid() == sid)
            .map(|e| &mut *e.server as &mut dyn RpcServer)
    }

    /// Every server forgets its state (IOP reboot).
    pub fn reset_servers(&mut self) {
        for e in &mut self.entries {
            e.server.reset();
        }
    }
}

/// The fields common to RPC packets and END.
fn end_packet(pkt: &[u8], client: u32, req: u32) -> Vec<u8> {
    let mut p = vec![0u8; RPC_PACKET_SIZE];
    put_word(&mut p, 16, word(pkt, 16));
    put_word(&mut p, 20, word(pkt, 20));
    put_word(&mut p, 24, word(pkt, 24));
    put_word(&mut p, 28, client);
    put_word(&mut p, 32, req);
    p
}

/// Serve one RPC packet (BIND, CALL, RDATA or END) that reached the IOP at cycle `at`.
pub fn handle(sif: &mut Sif, bus: &mut EeBus, c: u32, pkt: &[u8], at: u64) -> Result<(), String> {
    let reply_at = at + IOP_CMD_LATENCY;
    match c {
        cid::RPC_BIND => {
            let sid = word(pkt, 32);
            let mut end = end_packet(pkt, word(pkt, 28), cid::RPC_BIND);
            match sif
                .rpc
                .entries
                .iter()
                .find(|e| e.server.sid() == sid && e.addr != 0)
            {
                Some(e) => {
                    put_word(&mut end, 36, e.addr);
                    put_word(&mut end, 40, e.buff);
                }
                // The IOP answers a bind to a server nobody registered with a null server; the
                // EE's client usually binds again until one appears.
                None => sif.log_once(
                    &format!("bind{sid:x}"),
                    &format!("RPC bind to server {sid:#010x}, which the native IOP does not have"),
                ),
            }
            cmd::send_cmd(sif, reply_at, cid::RPC_END, end, None);
        }
        cid::RPC_CALL => call(sif, bus, pkt, reply_at)?,
        cid::RPC_RDATA => {
            let (src, dest, size) = (word(pkt, 32), word(pkt, 36), word(pkt, 40) as usize);
            let data = dma::read_iop(bus, src, size).map_err(|e| format!("RPC RDATA: {e}"))?;
            let end = end_packet(pkt, word(pkt, 28), cid::RPC_RDATA);
            cmd::send_cmd(sif, reply_at, cid::RPC_END, end, Some((data, dest)));
        }
        _ => sif.log_once(
            "rpc-end",
            "an RPC END reached the IOP, but no native IOP module is an RPC client; ignored",
        ),
    }
    Ok(())
}

/// Serve a CALL: run the server's function, send the reply and the END packet (or, in no-reply
/// mode, the freed packet) back.
fn call(sif: &mut Sif, bus: &mut EeBus, pkt: &[u8], reply_at: u64) -> Result<(), String> {
    let fno = word(pkt, 32);
    let send_size = word(pkt, 36) as usize;
    let receive = word(pkt, 40);
    // No reply is larger than EE RAM (a larger one fails when it lands).
    let recv_size = (word(pkt, 44) as usize).min(crate::bus::RAM_SIZE);
    let rmode = word(pkt, 48);
    let server = word(pkt, 52);
    let client = word(pkt, 28);
    let Sif { rpc, dma: sdma, .. } = sif;
    let Some(e) = rpc
        .entries
        .iter_mut()
        .find(|e| e.addr == server && e.addr != 0)
    else {
        return Err(format!(
            "RPC call of function {fno} on server data {server:#010x}, which is no server the IOP has"
        ));
    };
    let len = send_size.min(e.server.buffer_size());
    let args = dma::read_iop(bus, e.buff, len).map_err(|x| format!("RPC call arguments: {x}"))?;
    let mut ctx = RpcContext::new(bus);
    let mut reply = e.server.call(fno, &args, &mut ctx).map_err(|x| {
        format!(
            "{} ({:#010x}) function {fno}: {x}",
            e.server.name(),
            e.server.sid()
        )
    })?;
    let (to_ee, delay) = (std::mem::take(&mut ctx.to_ee), ctx.delay);
    let t = reply_at + delay;
    for (dest, data) in to_ee {
        sdma.queue_to_ee(t, dest, data, false);
    }
    // The IOP moves whole words: the reply is sent as recv_size rounded up to a word.
    reply.resize(recv_size.div_ceil(4) * 4, 0);
    let mut end = end_packet(pkt, client, cid::RPC_CALL);
    put_word(&mut end, 36, server);
    if rmode != 0 {
        let extra = (recv_size > 0).then_some((reply, receive));
        cmd::send_cmd(sif, t, cid::RPC_END, end, extra);
    } else {
        // No END command: the reply goes to the receive buffer and the packet, with rec_id and
        // rpc_id cleared, over the EE's own packet, which frees it.
        put_word(&mut end, 16, 0);
        put_word(&mut end, 24, 0);
        if recv_size > 0 {
            sif.dma.queue_to_ee(t, receive, reply, false);
        }
        sif.dma.queue_to_ee(t, word(pkt, 20), end, false);
    }
    Ok(())
}
