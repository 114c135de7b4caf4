//! sifcmd: the IOP's SIF command layer and SIF RPC, natively, speaking the console's protocol
//! with the EE's own libkernel code.
//!
//! Commands: a packet (16..112 bytes) starts with { psize | extra size << 8, extra's EE
//! destination, cid, opt }. The EE sends packets into the IOP's receive buffer (SMCOM) by SIF1
//! with an interrupt; the DMA interrupt handler copies the packet, re-arms SIF1 and calls the
//! handler of its cid: system commands (bit 31) 0 CHANGE_SADDR, 1 SET_SREG, 2 INIT_CMD (opt 0:
//! the EE's receive buffer; opt 1: the EE's RPC is up), 3 RESET (reboot), 8 RPC_END, 9
//! RPC_BIND, 10 RPC_CALL, 12 RPC_RDATA; user commands through sceSifSetCmdBuffer's table.
//! A handler a module registers runs in interrupt context with a pointer to the copy.
//!
//! RPC, as the console's sifrpc keeps it, in the guest's own structures: a server is a
//! SifRpcServerData_t (sid +0, func +4, buf +8, size +12, cfunc +16, cbuf +20, client +28,
//! pkt_addr +32, rpc_number +36, recvbuf +40, rsize +44, rmode +48, rid +52, link +56, next
//! +60, base +64) on a SifRpcDataQueue_t (thread_id +0, active +4, link +8, start +12, end +16,
//! next +20). A CALL queues the server data and wakes the queue's thread; sceSifRpcLoop takes
//! requests and runs the server's function(fno, buf, size); its result goes back in an END
//! packet (rmode 1) or, in no-reply mode (rmode 0), straight over the EE's packet. piney's
//! native servers ([`crate::modules::NativeServer`]) answer the same packets without a thread.

use super::sif::{ATTR_INT_O, Transfer};
use super::{Cont, Iop, IopError, LibDef, Ret, Wait, kerr, ret};
use crate::hw::sif::{STAT_CMDINIT, STAT_SIFINIT};

/// Command ids.
pub mod cid {
    /// Bit 31: a system command.
    pub const SYSTEM: u32 = 0x8000_0000;
    /// Change the other side's receive buffer.
    pub const CHANGE_SADDR: u32 = SYSTEM;
    /// Set a software register.
    pub const SET_SREG: u32 = SYSTEM | 1;
    /// Initialise the command layer (opt 0) or the RPC layer (opt 1).
    pub const INIT_CMD: u32 = SYSTEM | 2;
    /// Reboot the IOP.
    pub const RESET: u32 = SYSTEM | 3;
    /// An RPC request ended.
    pub const RPC_END: u32 = SYSTEM | 8;
    /// Bind to a server.
    pub const RPC_BIND: u32 = SYSTEM | 9;
    /// Call a server.
    pub const RPC_CALL: u32 = SYSTEM | 10;
    /// Read the other side's memory.
    pub const RPC_RDATA: u32 = SYSTEM | 12;
}

/// The receive buffer's size.
pub const RECV_SIZE: u32 = 0x80;
/// The number of system command handler slots.
pub const SYS_HANDLERS: usize = 32;
/// Native wait id: an IOP thread waits for an RPC of its own (BIND, CALL, RDATA) to end.
pub const WAIT_RPC: u32 = 5;

/// A native server's pending request, answered later.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
pub struct PendingCall {
    /// The server data.
    pub sd: u32,
    /// The CALL packet's fields: rec_id, pkt_addr, rpc_id, client, recvbuf, rsize, rmode.
    pub rec_id: u32,
    /// The EE packet.
    pub pkt_addr: u32,
    /// The EE's rpc id.
    pub rpc_id: u32,
    /// The EE's client data.
    pub client: u32,
    /// Where the EE wants the reply.
    pub recvbuf: u32,
    /// How much of it.
    pub rsize: u32,
    /// 1: END packet; 0: no END.
    pub rmode: u32,
}

/// sifcmd's state.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct SifCmd {
    /// The receive buffer (published in SMCOM).
    pub recv_buf: u32,
    /// Where handlers get their copy of a packet.
    pub copy_buf: u32,
    /// The ring of 64-byte packets the IOP sends from (END packets, its own RPC packets).
    pub send_ring: u32,
    /// The next packet of the ring.
    pub send_next: u32,
    /// The EE's receive buffer (0 until the EE gives it).
    pub ee_recv: u32,
    /// The software registers the EE sets.
    pub sregs: [u32; 32],
    /// Guest handlers of system commands (handler, arg) by cid & 31; 0 = the native one.
    pub sys_handlers: [(u32, u32); SYS_HANDLERS],
    /// The user command table (sceSifSetCmdBuffer): address and entries.
    pub usr_table: (u32, u32),
    /// RPC queues (SifRpcDataQueue_t addresses), in registration order.
    pub queues: Vec<u32>,
    /// Whether the IOP told the EE its RPC layer is up since the last boot.
    pub rpc_announced: bool,
    /// The EE's RPC is up (INIT_CMD opt 1 arrived).
    pub ee_rpc_up: bool,
    /// Native server requests waiting for their answer, by token.
    pub pending: Vec<(u32, PendingCall)>,
    /// The next token.
    pub next_token: u32,
}

impl Default for SifCmd {
    fn default() -> Self {
        Self {
            recv_buf: 0,
            copy_buf: 0,
            send_ring: 0,
            send_next: 0,
            ee_recv: 0,
            sregs: [0; 32],
            sys_handlers: [(0, 0); SYS_HANDLERS],
            usr_table: (0, 0),
            queues: Vec::new(),
            rpc_announced: false,
            ee_rpc_up: false,
            pending: Vec::new(),
            next_token: 1,
        }
    }
}

/// The number of packets in the send ring.
const SEND_RING: u32 = 32;

impl Iop {
    /// Set up the command layer at boot: buffers in kernel RAM, SMCOM, the SIF1 handler, SIF1
    /// armed, SMFLG's SIFINIT and CMDINIT.
    pub fn sifcmd_boot(&mut self, recv: u32, copy: u32, ring: u32) {
        let c = &mut self.kernel.sifcmd;
        c.recv_buf = recv;
        c.copy_buf = copy;
        c.send_ring = ring;
        self.bus.hw.sif.iop_write(0x10, recv);
        self.bus.hw.sif.iop_write(0x30, STAT_SIFINIT | STAT_CMDINIT);
        self.sif_set_dchain();
    }

    /// A fresh 64-byte packet of the send ring, zeroed.
    pub fn send_packet(&mut self) -> u32 {
        let c = &mut self.kernel.sifcmd;
        let p = c.send_ring + 64 * c.send_next;
        c.send_next = (c.send_next + 1) % SEND_RING;
        for i in (0..64).step_by(4) {
            self.bus.set_ram_u32(p + i, 0);
        }
        p
    }

    /// sceSifSendCmd: send packet `pkt` (`psize` bytes, in IOP RAM) with command `cid` to the
    /// EE, `extra` bytes from `src` going first to the EE's `dest`. Returns the DMA id (0: not
    /// sent).
    pub fn send_cmd(
        &mut self,
        c: u32,
        pkt: u32,
        psize: u32,
        src: u32,
        dest: u32,
        extra: u32,
    ) -> u32 {
        if !(16..=112).contains(&psize) {
            return 0;
        }
        let ee = self.kernel.sifcmd.ee_recv;
        if ee == 0 {
            self.log_once(
                "no-ee-recv",
                &format!(
                    "the IOP sends command {c:#010x} but the EE gave no receive buffer; dropped"
                ),
            );
            return 0;
        }
        let mut list = Vec::with_capacity(2);
        if extra as i32 > 0 {
            list.push(Transfer {
                src,
                dest,
                size: extra,
                attr: 0,
            });
            self.bus.set_ram_u32(pkt, psize | (extra << 8));
            self.bus.set_ram_u32(pkt.wrapping_add(4), dest);
        } else {
            self.bus.set_ram_u32(pkt, psize);
            self.bus.set_ram_u32(pkt.wrapping_add(4), 0);
        }
        self.bus.set_ram_u32(pkt.wrapping_add(8), c);
        list.push(Transfer {
            src: pkt,
            dest: ee,
            size: psize,
            attr: ATTR_INT_O,
        });
        self.sif_set_dma(&list)
    }

    /// Send a fresh packet built from `words` (from offset 16) with command `c`.
    pub fn send_new(
        &mut self,
        c: u32,
        words: &[(u32, u32)],
        psize: u32,
        extra: Option<(u32, u32, u32)>,
    ) -> u32 {
        let p = self.send_packet();
        for &(off, w) in words {
            self.bus.set_ram_u32(p + off, w);
        }
        let (src, dest, n) = extra.unwrap_or((0, 0, 0));
        self.send_cmd(c, p, psize, src, dest, n)
    }
}

/// The native handler of SIF1's DMA interrupt: take the packet and run its command.
pub fn sif1_interrupt(iop: &mut Iop) -> Result<Ret, IopError> {
    let recv = iop.kernel.sifcmd.recv_buf;
    let size = iop.bus.ram_u32(recv) & 0xff;
    if size == 0 {
        iop.sif_set_dchain();
        return Ok(Ret::V(1));
    }
    // The handler clears the size byte, copies the packet and re-arms SIF1 before acting on it.
    let words = size.div_ceil(4).min(RECV_SIZE / 4);
    let copy = iop.kernel.sifcmd.copy_buf;
    let mut pkt = vec![0u8; 4 * words as usize];
    iop.bus.read_ram(recv, &mut pkt);
    iop.bus.write_ram(recv, &[0]);
    iop.bus.write_ram(copy, &pkt);
    iop.sif_set_dchain();
    let w = |i: u32| iop.bus.ram_u32(copy + 4 * i);
    let c = w(2);
    if c & cid::SYSTEM != 0 {
        let i = (c & 0x7fff_ffff) as usize;
        if i >= SYS_HANDLERS {
            return Ok(Ret::V(1));
        }
        let (h, arg) = iop.kernel.sifcmd.sys_handlers[i];
        if h != 0 {
            return call_handler(iop, h, copy, arg);
        }
        system_command(iop, c, copy)?;
        return Ok(Ret::V(1));
    }
    let (table, n) = iop.kernel.sifcmd.usr_table;
    if c < n {
        let h = iop.bus.ram_u32(table + 8 * c);
        let arg = iop.bus.ram_u32(table + 8 * c + 4);
        if h != 0 {
            return call_handler(iop, h, copy, arg);
        }
    }
    iop.log_once(
        &format!("cid{c:x}"),
        &format!("SIF command {c:#010x} reached the IOP with no handler; ignored, as the IOP's sifcmd does"),
    );
    Ok(Ret::V(1))
}

/// Continuation tag: a module's command handler returned (data: the line handler's ra, sp).
pub const CONT_CMD_HANDLER: u32 = 0x7363_0001;

fn call_handler(iop: &mut Iop, h: u32, pkt: u32, arg: u32) -> Result<Ret, IopError> {
    let ra = iop.native_ret;
    let sp = iop.cpu.gpr[29];
    iop.kernel.intr_cont.push(Cont::Module {
        tag: CONT_CMD_HANDLER,
        data: [ra, sp, 0, 0, 0, 0],
    });
    iop.call_guest(h, &[pkt, arg], ret::CONTINUE);
    Ok(Ret::Done)
}

/// A module's command handler returned: the SIF1 line handler returns 1.
pub fn cmd_handler_continue(iop: &mut Iop, data: [u32; 6]) -> Result<(), IopError> {
    let [ra, sp, ..] = data;
    iop.cpu.gpr[29] = sp;
    iop.cpu.gpr[2] = 1;
    iop.cpu.set_pc(ra);
    Ok(())
}

/// The native handlers of the system commands.
fn system_command(iop: &mut Iop, c: u32, p: u32) -> Result<(), IopError> {
    let w = |iop: &Iop, off: u32| iop.bus.ram_u32(p + off);
    match c {
        cid::CHANGE_SADDR => iop.kernel.sifcmd.ee_recv = w(iop, 16),
        cid::SET_SREG => {
            let (i, val) = (w(iop, 16) as usize, w(iop, 20));
            if let Some(r) = iop.kernel.sifcmd.sregs.get_mut(i) {
                *r = val;
            }
        }
        cid::INIT_CMD => {
            if w(iop, 12) == 0 {
                iop.kernel.sifcmd.ee_recv = w(iop, 16);
                iop.bus.hw.sif.iop_write(0x20, STAT_CMDINIT);
                // The IOP's RPC layer, waiting for the EE's command layer since boot, tells the
                // EE it is up: SET_SREG(SIF_SREG_RPCINIT = 0, 1).
                if !iop.kernel.sifcmd.rpc_announced {
                    iop.kernel.sifcmd.rpc_announced = true;
                    iop.send_new(cid::SET_SREG, &[(16, 0), (20, 1)], 24, None);
                }
            } else {
                iop.kernel.sifcmd.ee_rpc_up = true;
            }
        }
        cid::RESET => {
            let len = w(iop, 16).min(80);
            let arg = iop.bus.ram_cstr(p.wrapping_add(24), len as usize);
            crate::modules::request_reboot(iop, &arg);
        }
        cid::RPC_BIND => rpc_bind(iop, p),
        cid::RPC_CALL => rpc_call(iop, p)?,
        cid::RPC_RDATA => rpc_rdata(iop, p),
        cid::RPC_END => rpc_end(iop, p),
        _ => iop.log_once(
            &format!("syscid{c:x}"),
            &format!("system command {c:#010x} has no handler on the IOP; ignored"),
        ),
    }
    Ok(())
}

/// Server data offsets.
mod sd {
    pub const SID: u32 = 0;
    pub const FUNC: u32 = 4;
    pub const BUF: u32 = 8;
    pub const SIZE: u32 = 12;
    pub const CFUNC: u32 = 16;
    pub const CBUF: u32 = 20;
    pub const CLIENT: u32 = 28;
    pub const PKT_ADDR: u32 = 32;
    pub const RPC_NUMBER: u32 = 36;
    pub const RECVBUF: u32 = 40;
    pub const RSIZE: u32 = 44;
    pub const RMODE: u32 = 48;
    pub const RID: u32 = 52;
    pub const LINK: u32 = 56;
    pub const NEXT: u32 = 60;
    pub const BASE: u32 = 64;
}

/// Queue offsets.
mod qd {
    pub const THREAD: u32 = 0;
    pub const ACTIVE: u32 = 4;
    pub const LINK: u32 = 8;
    pub const START: u32 = 12;
    pub const END: u32 = 16;
    pub const NEXT: u32 = 20;
}

/// The server data of `sid`: the native servers first (they are the rom's, registered at
/// boot), then the queues' servers in order.
fn find_server(iop: &Iop, sid: u32) -> Option<u32> {
    if let Some(a) = iop.modules.native_server_data(sid) {
        return Some(a);
    }
    for &q in &iop.kernel.sifcmd.queues {
        let mut s = iop.bus.ram_u32(q + qd::LINK);
        let mut n = 0;
        while s != 0 && n < 256 {
            if iop.bus.ram_u32(s + sd::SID) == sid {
                return Some(s);
            }
            s = iop.bus.ram_u32(s + sd::LINK);
            n += 1;
        }
    }
    None
}

fn rpc_bind(iop: &mut Iop, p: u32) {
    let w = |off: u32| iop.bus.ram_u32(p + off);
    let (rec, pkt_addr, rpc_id, client, sid) = (w(16), w(20), w(24), w(28), w(32));
    let (server, buf) = match find_server(iop, sid) {
        Some(s) => (s, iop.bus.ram_u32(s + sd::BUF)),
        None => {
            // An unknown server answers with a null server: the EE's client binds again.
            iop.log_once(
                &format!("bind{sid:x}"),
                &format!(
                    "RPC bind to server {sid:#010x}, which no IOP module has registered (yet)"
                ),
            );
            (0, 0)
        }
    };
    iop.send_new(
        cid::RPC_END,
        &[
            (16, rec),
            (20, pkt_addr),
            (24, rpc_id),
            (28, client),
            (32, cid::RPC_BIND),
            (36, server),
            (40, buf),
        ],
        64,
        None,
    );
}

fn rpc_call(iop: &mut Iop, p: u32) -> Result<(), IopError> {
    let w = |off: u32| iop.bus.ram_u32(p + off);
    let call = PendingCall {
        sd: w(52),
        rec_id: w(16),
        pkt_addr: w(20),
        rpc_id: w(24),
        client: w(28),
        recvbuf: w(40),
        rsize: w(44),
        rmode: w(48),
    };
    let (fno, send_size) = (w(32), w(36));
    if crate::modules::is_native_server(iop, call.sd) {
        return crate::modules::native_call(iop, call, fno, send_size);
    }
    if call.sd == 0 || find_queue_of(iop, call.sd).is_none() {
        return Err(iop.fault(format!(
            "RPC call of function {fno} on server data {:#010x}, which is no server on the IOP",
            call.sd
        )));
    }
    let s = call.sd;
    let base = iop.bus.ram_u32(s + sd::BASE);
    let start = iop.bus.ram_u32(base + qd::START);
    if start != 0 {
        let end = iop.bus.ram_u32(base + qd::END);
        iop.bus.set_ram_u32(end + sd::NEXT, s);
    } else {
        iop.bus.set_ram_u32(base + qd::START, s);
    }
    iop.bus.set_ram_u32(base + qd::END, s);
    for (off, v) in [
        (sd::PKT_ADDR, call.pkt_addr),
        (sd::CLIENT, call.client),
        (sd::RPC_NUMBER, fno),
        (sd::SIZE, send_size),
        (sd::RECVBUF, call.recvbuf),
        (sd::RSIZE, call.rsize),
        (sd::RMODE, call.rmode),
        (sd::RID, call.rec_id),
    ] {
        iop.bus.set_ram_u32(s + off, v);
    }
    let thread = iop.bus.ram_u32(base + qd::THREAD);
    if thread as i32 >= 0 && iop.bus.ram_u32(base + qd::ACTIVE) == 0 {
        wake_server_thread(iop, thread);
    }
    Ok(())
}

/// iWakeupThread of an RPC queue's thread.
fn wake_server_thread(iop: &mut Iop, t: u32) {
    let Some(th) = iop.kernel.threads.get_mut(&t) else {
        return;
    };
    if th.status == super::ths::DORMANT {
        return;
    }
    if th.status == super::ths::WAIT && th.wait == Wait::Sleep {
        iop.wake(t, 0);
    } else {
        th.wakeup_count += 1;
    }
}

fn find_queue_of(iop: &Iop, s: u32) -> Option<u32> {
    let base = iop.bus.ram_u32(s + sd::BASE);
    iop.kernel.sifcmd.queues.contains(&base).then_some(base)
}

fn rpc_rdata(iop: &mut Iop, p: u32) {
    let w = |off: u32| iop.bus.ram_u32(p + off);
    let (rec, pkt_addr, rpc_id, recv, src, dest, size) =
        (w(16), w(20), w(24), w(28), w(32), w(36), w(40));
    iop.send_new(
        cid::RPC_END,
        &[
            (16, rec),
            (20, pkt_addr),
            (24, rpc_id),
            (28, recv),
            (32, cid::RPC_RDATA),
            (36, src),
            (40, dest),
            (44, size),
        ],
        64,
        Some((src, dest, size)),
    );
}

/// An END for an RPC the IOP itself started (BIND, CALL or RDATA as a client).
fn rpc_end(iop: &mut Iop, p: u32) {
    let w = |off: u32| iop.bus.ram_u32(p + off);
    let (cd, c, server, buf) = (w(28), w(32), w(36), w(40));
    if c == cid::RPC_BIND {
        iop.bus.set_ram_u32(cd.wrapping_add(36), server);
        iop.bus.set_ram_u32(cd.wrapping_add(20), buf);
    } else if c == cid::RPC_CALL {
        let end_fn = iop.bus.ram_u32(cd.wrapping_add(28));
        if end_fn != 0 {
            iop.log_once(
                "iop-end-fn",
                "an IOP RPC client's end function is not called (piney's IOP clients wait instead)",
            );
        }
    }
    // Free the packet and wake the thread waiting on this client.
    iop.bus.set_ram_u32(cd, 0);
    let waiters: Vec<u32> = iop
        .kernel
        .threads
        .iter()
        .filter(|(_, t)| t.wait == Wait::Native(WAIT_RPC) && t.ctx.gpr[4] == cd)
        .map(|(id, _)| *id)
        .collect();
    for t in waiters {
        iop.wake(t, 0);
    }
}

/// Send the result of server `s`'s function: `rec` is its reply (0: none), as
/// sceSifExecRequest does.
pub fn send_reply(iop: &mut Iop, call: &PendingCall, rec: u32) {
    let size = if rec != 0 { call.rsize } else { 0 };
    let p = iop.send_packet();
    let words = [
        (16, call.rec_id),
        (20, call.pkt_addr),
        (24, call.rpc_id),
        (28, call.client),
        (32, cid::RPC_CALL),
        (36, call.sd),
    ];
    for (off, w) in words {
        iop.bus.set_ram_u32(p + off, w);
    }
    if call.rmode != 0 {
        iop.send_cmd(cid::RPC_END, p, 64, rec, call.recvbuf, size);
    } else {
        // No END: the reply, then the packet with rec_id and rpc_id cleared over the EE's own.
        iop.bus.set_ram_u32(p.wrapping_add(16), 0);
        iop.bus.set_ram_u32(p.wrapping_add(24), 0);
        iop.bus.set_ram_u32(p, 64);
        iop.bus.set_ram_u32(p.wrapping_add(8), cid::RPC_CALL);
        let mut list = Vec::new();
        if size as i32 > 0 {
            list.push(Transfer {
                src: rec,
                dest: call.recvbuf,
                size,
                attr: 0,
            });
        }
        list.push(Transfer {
            src: p,
            dest: call.pkt_addr,
            size: 64,
            attr: 0,
        });
        iop.sif_set_dma(&list);
    }
}

// ---- the exports ----

fn v(x: i32) -> Result<Ret, IopError> {
    Ok(Ret::V(x as u32))
}

fn init_cmd(_iop: &mut Iop) -> Result<Ret, IopError> {
    v(kerr::OK)
}

fn get_sreg(iop: &mut Iop) -> Result<Ret, IopError> {
    let i = iop.arg(0) as usize;
    Ok(Ret::V(iop.kernel.sifcmd.sregs.get(i).copied().unwrap_or(0)))
}

fn set_sreg(iop: &mut Iop) -> Result<Ret, IopError> {
    let (i, val) = (iop.arg(0) as usize, iop.arg(1));
    if let Some(r) = iop.kernel.sifcmd.sregs.get_mut(i) {
        *r = val;
    }
    v(kerr::OK)
}

fn set_cmd_buffer(iop: &mut Iop) -> Result<Ret, IopError> {
    let (db, n) = (iop.arg(0), iop.arg(1));
    iop.kernel.sifcmd.usr_table = (db, n);
    v(kerr::OK)
}

fn add_cmd_handler(iop: &mut Iop) -> Result<Ret, IopError> {
    let (c, h, arg) = (iop.arg(0), iop.arg(1), iop.arg(2));
    if c & cid::SYSTEM != 0 {
        let i = (c & 0x7fff_ffff) as usize;
        if i < SYS_HANDLERS {
            iop.kernel.sifcmd.sys_handlers[i] = (h, arg);
        }
    } else {
        let (table, _) = iop.kernel.sifcmd.usr_table;
        if table != 0 {
            iop.bus.set_ram_u32(table + 8 * c, h);
            iop.bus.set_ram_u32(table + 8 * c + 4, arg);
        }
    }
    v(kerr::OK)
}

fn remove_cmd_handler(iop: &mut Iop) -> Result<Ret, IopError> {
    let c = iop.arg(0);
    if c & cid::SYSTEM != 0 {
        let i = (c & 0x7fff_ffff) as usize;
        if i < SYS_HANDLERS {
            iop.kernel.sifcmd.sys_handlers[i] = (0, 0);
        }
    } else {
        let (table, _) = iop.kernel.sifcmd.usr_table;
        if table != 0 {
            iop.bus.set_ram_u32(table + 8 * c, 0);
        }
    }
    v(kerr::OK)
}

fn send_cmd_export(iop: &mut Iop) -> Result<Ret, IopError> {
    let (c, pkt, psize, src, dest, extra) = (
        iop.arg(0),
        iop.arg(1),
        iop.arg(2),
        iop.arg(3),
        iop.arg(4),
        iop.arg(5),
    );
    Ok(Ret::V(iop.send_cmd(c, pkt, psize, src, dest, extra)))
}

fn init_rpc(_iop: &mut Iop) -> Result<Ret, IopError> {
    v(kerr::OK)
}

fn register_rpc(iop: &mut Iop) -> Result<Ret, IopError> {
    let (s, sid, func, buf, cfunc, cbuf, q) = (
        iop.arg(0),
        iop.arg(1),
        iop.arg(2),
        iop.arg(3),
        iop.arg(4),
        iop.arg(5),
        iop.arg(6),
    );
    for (off, val) in [
        (sd::SID, sid),
        (sd::FUNC, func),
        (sd::BUF, buf),
        (sd::NEXT, 0),
        (sd::LINK, 0),
        (sd::CFUNC, cfunc),
        (sd::CBUF, cbuf),
        (sd::BASE, q),
    ] {
        iop.bus.set_ram_u32(s + off, val);
    }
    let mut last = iop.bus.ram_u32(q + qd::LINK);
    if last == 0 {
        iop.bus.set_ram_u32(q + qd::LINK, s);
    } else {
        let mut n = 0;
        while iop.bus.ram_u32(last + sd::LINK) != 0 && n < 256 {
            last = iop.bus.ram_u32(last + sd::LINK);
            n += 1;
        }
        iop.bus.set_ram_u32(last + sd::LINK, s);
    }
    v(kerr::OK)
}

fn set_rpc_queue(iop: &mut Iop) -> Result<Ret, IopError> {
    let (q, thread) = (iop.arg(0), iop.arg(1));
    for off in [qd::ACTIVE, qd::LINK, qd::START, qd::END, qd::NEXT] {
        iop.bus.set_ram_u32(q + off, 0);
    }
    iop.bus.set_ram_u32(q + qd::THREAD, thread);
    if !iop.kernel.sifcmd.queues.contains(&q) {
        iop.kernel.sifcmd.queues.push(q);
    }
    v(kerr::OK)
}

fn remove_rpc_queue(iop: &mut Iop) -> Result<Ret, IopError> {
    let q = iop.arg(0);
    iop.kernel.sifcmd.queues.retain(|&x| x != q);
    Ok(Ret::V(q))
}

fn remove_rpc(iop: &mut Iop) -> Result<Ret, IopError> {
    let (s, q) = (iop.arg(0), iop.arg(1));
    let first = iop.bus.ram_u32(q + qd::LINK);
    if first == s {
        let next = iop.bus.ram_u32(s + sd::LINK);
        iop.bus.set_ram_u32(q + qd::LINK, next);
    } else {
        let mut cur = first;
        let mut n = 0;
        while cur != 0 && n < 256 {
            let next = iop.bus.ram_u32(cur + sd::LINK);
            if next == s {
                let after = iop.bus.ram_u32(s + sd::LINK);
                iop.bus.set_ram_u32(cur + sd::LINK, after);
                break;
            }
            cur = next;
            n += 1;
        }
    }
    Ok(Ret::V(s))
}

/// sceSifGetNextRequest's step: the queue's next request, or 0 (the queue goes inactive).
fn next_request(iop: &mut Iop, q: u32) -> u32 {
    let s = iop.bus.ram_u32(q + qd::START);
    if s != 0 {
        iop.bus.set_ram_u32(q + qd::ACTIVE, 1);
        let next = iop.bus.ram_u32(s + sd::NEXT);
        iop.bus.set_ram_u32(q + qd::START, next);
    } else {
        iop.bus.set_ram_u32(q + qd::ACTIVE, 0);
    }
    s
}

fn get_next_request(iop: &mut Iop) -> Result<Ret, IopError> {
    let q = iop.arg(0);
    Ok(Ret::V(next_request(iop, q)))
}

/// Continuation tag: a server function returned (data: sd, qd for the loop or 0, ra, sp).
pub const CONT_EXEC: u32 = 0x7363_0002;

/// Run request `s`: call its function; the continuation sends the reply.
fn exec(iop: &mut Iop, s: u32, q: u32) {
    let ra = iop.native_ret;
    let sp = iop.cpu.gpr[29];
    let func = iop.bus.ram_u32(s + sd::FUNC);
    let (fno, buf, size) = (
        iop.bus.ram_u32(s + sd::RPC_NUMBER),
        iop.bus.ram_u32(s + sd::BUF),
        iop.bus.ram_u32(s + sd::SIZE),
    );
    iop.call_guest_then(
        func,
        &[fno, buf, size],
        Cont::Module {
            tag: CONT_EXEC,
            data: [s, q, ra, sp, 0, 0],
        },
    );
}

fn exec_request(iop: &mut Iop) -> Result<Ret, IopError> {
    let s = iop.arg(0);
    exec(iop, s, 0);
    Ok(Ret::Done)
}

/// The server function returned: reply, then return to sceSifExecRequest's caller or go round
/// sceSifRpcLoop again.
pub fn exec_continue(iop: &mut Iop, data: [u32; 6]) -> Result<(), IopError> {
    let [s, q, ra, sp, ..] = data;
    let rec = iop.cpu.gpr[2];
    let call = PendingCall {
        sd: s,
        rec_id: iop.bus.ram_u32(s + sd::RID),
        pkt_addr: iop.bus.ram_u32(s + sd::PKT_ADDR),
        rpc_id: 0,
        client: iop.bus.ram_u32(s + sd::CLIENT),
        recvbuf: iop.bus.ram_u32(s + sd::RECVBUF),
        rsize: iop.bus.ram_u32(s + sd::RSIZE),
        rmode: iop.bus.ram_u32(s + sd::RMODE),
    };
    send_reply(iop, &call, rec);
    iop.cpu.gpr[29] = sp;
    iop.native_ret = ra;
    if q != 0 {
        // sceSifRpcLoop again with the queue in a0.
        iop.cpu.gpr[4] = q;
        rpc_loop_step(iop, q)?;
    } else {
        iop.cpu.set_pc(ra);
    }
    Ok(())
}

fn rpc_loop_step(iop: &mut Iop, q: u32) -> Result<(), IopError> {
    let s = next_request(iop, q);
    if s != 0 {
        exec(iop, s, q);
        return Ok(());
    }
    // SleepThread, resuming at sceSifRpcLoop itself with a0 = qd when woken.
    let here = iop
        .native_address("sifcmd", 22)
        .expect("sceSifRpcLoop slot");
    let cur = iop.current_thread();
    let t = iop.kernel.threads.get_mut(&cur).expect("thread");
    if t.wakeup_count > 0 {
        t.wakeup_count -= 1;
        iop.cpu.set_pc(here);
        return Ok(());
    }
    iop.cpu.set_pc(here);
    iop.wait_current(Wait::Sleep);
    Ok(())
}

fn rpc_loop(iop: &mut Iop) -> Result<Ret, IopError> {
    let q = iop.arg(0);
    rpc_loop_step(iop, q)?;
    Ok(Ret::Done)
}

fn check_stat_rpc(iop: &mut Iop) -> Result<Ret, IopError> {
    // The client's packet is still in use.
    let cd = iop.arg(0);
    Ok(Ret::V((iop.bus.ram_u32(cd) != 0) as u32))
}

/// The IOP as an RPC client: send `c` for client data `cd` and wait for the END.
fn client_request(
    iop: &mut Iop,
    cd: u32,
    c: u32,
    words: &[(u32, u32)],
    extra: Option<(u32, u32, u32)>,
    nowait: bool,
) -> Result<Ret, IopError> {
    let p = iop.send_packet();
    for &(off, w) in words {
        iop.bus.set_ram_u32(p + off, w);
    }
    iop.bus.set_ram_u32(p.wrapping_add(20), p);
    iop.bus.set_ram_u32(p.wrapping_add(28), cd);
    // hdr.pkt_addr marks the request in flight until its END.
    iop.bus.set_ram_u32(cd, p);
    let (src, dest, n) = extra.unwrap_or((0, 0, 0));
    if iop.send_cmd(c, p, 64, src, dest, n) == 0 {
        iop.bus.set_ram_u32(cd, 0);
        return v(-2);
    }
    if nowait {
        return v(kerr::OK);
    }
    iop.cpu.gpr[2] = 0;
    iop.return_to_caller();
    iop.cpu.gpr[4] = cd;
    iop.wait_current(Wait::Native(WAIT_RPC));
    Ok(Ret::Done)
}

fn bind_rpc(iop: &mut Iop) -> Result<Ret, IopError> {
    let (cd, sid, mode) = (iop.arg(0), iop.arg(1), iop.arg(2));
    iop.bus.set_ram_u32(cd.wrapping_add(36), 0);
    iop.bus.set_ram_u32(cd.wrapping_add(20), 0);
    client_request(iop, cd, cid::RPC_BIND, &[(32, sid)], None, mode & 1 != 0)
}

fn call_rpc(iop: &mut Iop) -> Result<Ret, IopError> {
    let (cd, fno, mode, send, ssize, recv, rsize) = (
        iop.arg(0),
        iop.arg(1),
        iop.arg(2),
        iop.arg(3),
        iop.arg(4),
        iop.arg(5),
        iop.arg(6),
    );
    let end_fn = iop.arg(7);
    let end_param = iop.arg(8);
    iop.bus.set_ram_u32(cd.wrapping_add(28), end_fn);
    iop.bus.set_ram_u32(cd.wrapping_add(32), end_param);
    let server = iop.bus.ram_u32(cd.wrapping_add(36));
    let buf = iop.bus.ram_u32(cd.wrapping_add(20));
    let rmode = if mode & 1 == 0 || end_fn != 0 { 1 } else { 0 };
    client_request(
        iop,
        cd,
        cid::RPC_CALL,
        &[
            (32, fno),
            (36, ssize),
            (40, recv),
            (44, rsize),
            (48, rmode),
            (52, server),
        ],
        Some((send, buf, ssize)),
        mode & 1 != 0,
    )
}

fn get_other_data(iop: &mut Iop) -> Result<Ret, IopError> {
    let (rd, src, dest, size, mode) = (iop.arg(0), iop.arg(1), iop.arg(2), iop.arg(3), iop.arg(4));
    client_request(
        iop,
        rd,
        cid::RPC_RDATA,
        &[(32, src), (36, dest), (40, size)],
        None,
        mode & 1 != 0,
    )
}

/// sifcmd.
pub const SIFCMD: LibDef = LibDef {
    name: "sifcmd",
    version: 0x0101,
    funcs: &[
        (4, "sceSifInitCmd", init_cmd),
        (5, "sceSifExitCmd", init_cmd),
        (6, "sceSifGetSreg", get_sreg),
        (7, "sceSifSetSreg", set_sreg),
        (8, "sceSifSetCmdBuffer", set_cmd_buffer),
        (9, "sceSifSetSysCmdBuffer", init_cmd),
        (10, "sceSifAddCmdHandler", add_cmd_handler),
        (11, "sceSifRemoveCmdHandler", remove_cmd_handler),
        (12, "sceSifSendCmd", send_cmd_export),
        (13, "isceSifSendCmd", send_cmd_export),
        (14, "sceSifInitRpc", init_rpc),
        (15, "sceSifBindRpc", bind_rpc),
        (16, "sceSifCallRpc", call_rpc),
        (17, "sceSifRegisterRpc", register_rpc),
        (18, "sceSifCheckStatRpc", check_stat_rpc),
        (19, "sceSifSetRpcQueue", set_rpc_queue),
        (20, "sceSifGetNextRequest", get_next_request),
        (21, "sceSifExecRequest", exec_request),
        (22, "sceSifRpcLoop", rpc_loop),
        (23, "sceSifGetOtherData", get_other_data),
        (24, "sceSifRemoveRpc", remove_rpc),
        (25, "sceSifRemoveRpcQueue", remove_rpc_queue),
    ],
};
