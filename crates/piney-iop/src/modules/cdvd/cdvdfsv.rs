//! CDVDFSV ("cdvd_ee_driver" 2.38, in the BIOS's boot list): the RPC servers the EE's libcdvd
//! calls, native, over the drive of [`super`], and its `cdvdfsv` library.
//!
//! Facts (ps2sdk `iop/cdvd/cdvdfsv/src/cdvdfsv.c`, `common/include/libcdvd-rpc.h`, and the EE
//! client `ee/rpc/cdvd/src/libcdvd.c`, `ncmd.c`, `scmd.c`, which these answers must satisfy;
//! the module variant without OSD, DNAS or XOSD, which games boot with):
//!
//! | sid | what | request | reply |
//! |---|---|---|---|
//! | 0x80000592 | init | { mode } | { 1, cdvdfsv version, cdvdman version, debug mode 0 }: 0x226 both (2.38 > 0x104, so the EE uses the 64-byte edge block) |
//! | 0x8000059a, 0x8000059c | disk ready | { mode } | { sceCdDiskReady(mode) } |
//! | 0x80000593 | S commands | see below | { result, ... } |
//! | 0x80000595 | N commands | see below | { result, ... } |
//! | 0x80000597 | search file | 0x12c bytes { sceCdlFILE, attributes, `path[256]`, EE dest, layer }, 0x128 (no layer), older 0x124 { sceCdlFILE, `path[256]`, EE dest } | { found } after the packet's first 36 (0x124: 32) bytes, the found sceCdlFILE and the entry's ISO flags written in, went to the EE dest (SIF DMA moves whole quadwords: 48 bytes of the packet for 36) |
//!
//! S commands (0x80000593): 1 READCLOCK { 1, `clock[8]` }; 3 GETDISKTYPE; 4 GETERROR; 5 TRAYREQ {
//! mode } -> { 1, traychk }; 6 READ_ILINK_ID { 1, 0, `id[8]` }; 12 STATUS; 21 CTRL_AD_OUT { 1, 0 };
//! 22 BREAK { 1 }; 34 MMODE { media } -> { 1 }; 35 SETTHREADPRI { priority } -> { 0, or -403
//! outside 9..123 }; 37 SETTIMEOUT { param, timeout } -> { 1 for param 1 or 2 }; 39
//! READ_DVD_DUAL_INFO { result, on_dual, layer1_start }. The numbers this variant does not know
//! (the OSD's 2, 7..10, 13..20, 23..25, 27..32, 36, 38, 40 and up) answer 0. 11 (SCMD), 26
//! (READ_MODEL_NAME) and 33 (POWEROFF) stop the run, naming themselves.
//!
//! N commands (0x80000595), one at a time, on the thread they share with the search server
//! (calls arriving while one waits for the drive are answered in turn):
//! - 1 READ (and 19, the same with the decryption value): { lsn, sectors, EE buffer, sceCdRMode,
//!   EE edge block (`_rd_intr_data`), EE read position (`curReadPos`), dec }. When the read
//!   completes: the EE buffer's 64-byte-aligned middle straight to the buffer over SIF0; the
//!   head (from the buffer up to its next 64-byte boundary) and the tail (after the last
//!   boundary) in the edge block { head size, tail size, head address, tail address, `head[64]`,
//!   `tail[64]` } sent to `_rd_intr_data`; the bytes read to `curReadPos`; then the answer {
//!   bytes read } (the EE asks none: its end function copies head and tail). A read the drive
//!   does not take (busy, no disc, the other media mode) sends the edge block with sizes 0 and
//!   answers 0 at once, with SCECdErREADCFR.
//! - 2 CDDAREAD: as READ, for whole CD sectors (2352 bytes, 2368 for datapattern 1, 2448 for
//!   2), of a disc with audio tracks only (else answered 0 with SCECdErREADCFR).
//! - 4 GETTOC { EE dest } -> the 2064-byte TOC buffer to `dest`, { result, is DVD }.
//! - 5 SEEK { lsn }, 6 STANDBY, 7 STOP, 8 PAUSE: answered { result } when the drive is done
//!   (0 at once when it is busy).
//! - 13 READIOPMEM { lsn, sectors, IOP buffer, mode, -, EE read position }: a read into IOP
//!   memory, answered when done (piney sends no read position on the way).
//! - 14 DISKREADY -> { 2 ready, 6 not }.
//! - 9 STREAM { lsn, sectors, EE buffer, command, mode }: [`super::stream`]; READ (command 2)
//!   sends the sectors there are to the EE buffer and answers { error << 16 | sectors }.
//! - 10 CDDASTREAM, 12 NCMD and 15 READCHAIN stop the run, naming themselves; the
//!   numbers this variant does not know (3 DVDREAD, 11 READ_KEY...) answer 0.
//!
//! An EE address that is outside EE RAM stops the run naming the call; an answer that would
//! need more SIF0 transfers than sifman holds too.

use super::{Job, SearchFor, SectorKind, Target, err, func};
use crate::kernel::sif::MAX_TRANSFERS;
use crate::kernel::{LibDef, Ret};
use crate::modules::fileio::word;
use crate::modules::{NativeServer, Reply};
use crate::{Iop, IopError};

/// The init server.
pub const SID_INIT: u32 = 0x8000_0592;
/// The S-command server.
pub const SID_SCMD: u32 = 0x8000_0593;
/// The N-command server.
pub const SID_NCMD: u32 = 0x8000_0595;
/// The search-file server.
pub const SID_SEARCH: u32 = 0x8000_0597;
/// The disk-ready server.
pub const SID_DISKREADY: u32 = 0x8000_059a;
/// The second disk-ready server (its own thread on the console).
pub const SID_DISKREADY2: u32 = 0x8000_059c;
/// The module the servers show as.
pub const MODULE: &str = "cdvd_ee_driver";
/// The largest SIF0 piece of a read's middle (64-byte aligned, under the EE tag's 0xffff
/// quadwords).
const CHUNK: usize = 0xf_ffc0;
/// Transfers sifman must keep free for the reply (its data and its packet).
const REPLY_TRANSFERS: usize = 2;
/// The size of EE RAM.
const EE_RAM: u64 = 32 << 20;

/// An EE read's destinations.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EeRead {
    /// The RPC call answering it.
    pub token: u32,
    /// The EE buffer.
    pub buf: u32,
    /// The EE's edge block.
    pub edges: u32,
    /// The EE's read position word.
    pub pos: u32,
}

/// A CDVDFSV server.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct Fsv {
    sid: u32,
}

impl Fsv {
    /// The server of `sid`.
    pub fn new(sid: u32) -> Self {
        Self { sid }
    }
}

/// The boot set's CDVDFSV servers.
pub fn servers() -> Vec<Box<dyn NativeServer>> {
    [
        SID_INIT,
        SID_DISKREADY,
        SID_SCMD,
        SID_DISKREADY2,
        SID_SEARCH,
        SID_NCMD,
    ]
    .into_iter()
    .map(|s| Box::new(Fsv::new(s)) as Box<dyn NativeServer>)
    .collect()
}

fn ee_check(iop: &Iop, what: &str, addr: u32, len: u64) -> Result<(), String> {
    let size = if iop.ee_ram.is_empty() {
        EE_RAM
    } else {
        iop.ee_ram.len() as u64
    };
    if u64::from(addr & 0x1fff_ffff) + len <= size {
        Ok(())
    } else {
        Err(format!(
            "{what} at EE address {addr:#010x} (+{len:#x}) is outside EE RAM"
        ))
    }
}

fn words(ws: &[u32]) -> Vec<u8> {
    ws.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn sifman_room(iop: &Iop, n: usize) -> Result<(), String> {
    let waiting = iop.kernel.sifman.waiting.len();
    if waiting + n + REPLY_TRANSFERS > MAX_TRANSFERS {
        return Err(format!(
            "{n} SIF0 transfers do not fit in sifman's queue ({waiting} of {MAX_TRANSFERS} already waiting)"
        ));
    }
    Ok(())
}

impl NativeServer for Fsv {
    crate::whole_server_state!();

    fn sid(&self) -> u32 {
        self.sid
    }
    fn name(&self) -> &str {
        MODULE
    }
    fn buffer_size(&self) -> u32 {
        // cdvdfsv's receive buffers.
        match self.sid {
            SID_SCMD => 1040,
            SID_NCMD => 1024,
            SID_SEARCH => 304,
            _ => 16,
        }
    }
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
    fn call(&mut self, iop: &mut Iop, fno: u32, args: &[u8], token: u32) -> Result<Reply, String> {
        match self.sid {
            SID_INIT => {
                let mode = word(args, 0);
                if mode == 5 {
                    iop.cd_break();
                } else {
                    iop.cdvd.callback = 0;
                }
                iop.cdvd.error = err::NO;
                Ok(Reply::Now(words(&[1, super::VERSION, super::VERSION, 0])))
            }
            SID_DISKREADY | SID_DISKREADY2 => {
                let r = super::cdvdman::ready(iop, word(args, 0));
                Ok(Reply::Now(words(&[r])))
            }
            SID_SCMD => scmd(iop, fno, args),
            _ => {
                if iop.cdvd.fsv_busy.is_some() {
                    iop.cdvd.fsv_queue.push_back(super::FsvCall {
                        sid: self.sid,
                        fno,
                        args: args.to_vec(),
                        token,
                    });
                    return Ok(Reply::Later(token));
                }
                let r = thread_call(iop, self.sid, fno, args, token)?;
                if let Reply::Later(t) = r {
                    iop.cdvd.fsv_busy = Some(t);
                }
                Ok(r)
            }
        }
    }
}

fn scmd(iop: &mut Iop, fno: u32, args: &[u8]) -> Result<Reply, String> {
    let r = match fno {
        1 => {
            let mut b = words(&[1]);
            b.extend_from_slice(&iop.cd_clock());
            b
        }
        3 => words(&[u32::from(iop.cd_disk_type())]),
        4 => words(&[u32::from(iop.cdvd.error)]),
        5 => {
            let (r, c) = super::cdvdman::tray_req(iop, word(args, 0));
            words(&[r, c])
        }
        6 => {
            let mut b = words(&[1, 0]);
            b.extend_from_slice(&[0x00, 0xac, 0xff, 0xff, 0xff, 0xff, 0xb9, 0x86]);
            b
        }
        12 => words(&[u32::from(iop.cd_status())]),
        21 => words(&[1, 0]),
        22 => {
            iop.cd_break();
            words(&[1])
        }
        34 => {
            if args.len() == 4 || args.get(4).is_none_or(|&c| c == 0) {
                iop.cdvd.mmode = word(args, 0) as u8;
            }
            words(&[1])
        }
        35 => {
            let p = word(args, 0);
            let r = if p.wrapping_sub(9) >= 0x73 {
                -403i32
            } else {
                0
            };
            words(&[r as u32])
        }
        37 => {
            let p = word(args, 0);
            words(&[u32::from(!iop.cdvd.busy() && (p == 1 || p == 2))])
        }
        39 => {
            let (r, d, s) = super::cdvdman::dual_info(iop);
            words(&[r, d, s])
        }
        11 => return Err("S command 11 (SCMD, sceCdApplySCmd) is not implemented by piney".into()),
        26 => {
            return Err(
                "S command 26 (READ_MODEL_NAME, sceCdRM) is not implemented by piney".into(),
            );
        }
        33 => return Err("S command 33 (POWEROFF) is not implemented by piney".into()),
        _ => words(&[0]),
    };
    Ok(Reply::Now(r))
}

/// A call of the N-command or search server, on their thread.
fn thread_call(
    iop: &mut Iop,
    sid: u32,
    fno: u32,
    args: &[u8],
    token: u32,
) -> Result<Reply, String> {
    if sid == SID_SEARCH {
        return search(iop, args, token);
    }
    match fno {
        1 | 19 => read(iop, args, token, false),
        2 => read(iop, args, token, true),
        4 => {
            let dest = word(args, 0);
            ee_check(iop, "GETTOC's buffer", dest, 0x810)?;
            let toc = super::cdvdman::toc(iop);
            let mut t = toc.clone().unwrap_or_default();
            t.resize(0x810, 0);
            iop.send_to_ee(dest, t);
            let dvd = iop.cd_disk_type() == super::disk_type::PS2DVD;
            Ok(Reply::Now(words(&[
                u32::from(toc.is_some()),
                u32::from(dvd),
            ])))
        }
        5..=8 => {
            let (job, f) = match fno {
                5 => (Job::Seek(u64::from(word(args, 0))), func::SEEK),
                6 => (Job::Standby, func::STANDBY),
                7 => (Job::Stop, func::STOP),
                _ => (Job::Pause, func::PAUSE),
            };
            if iop.cd_start(job, f, Some((token, 1))) {
                Ok(Reply::Later(token))
            } else {
                Ok(Reply::Now(words(&[0])))
            }
        }
        13 => {
            let (lsn, n, buf) = (word(args, 0), word(args, 4), word(args, 8));
            if !super::in_ram(buf, u64::from(n) * 2048) {
                return Err(format!(
                    "READIOPMEM's IOP buffer at {buf:#010x} (+{:#x}) is not in IOP RAM",
                    u64::from(n) * 2048
                ));
            }
            if let Some(e) = super::cdvdman::refusal(iop) {
                iop.cdvd.error = e;
                return Ok(Reply::Now(words(&[0])));
            }
            let job = Job::Read {
                lsn: u64::from(lsn),
                count: u64::from(n),
                kind: SectorKind::Data,
                target: Target::Iop(buf),
            };
            if iop.cd_start(job, func::READ, Some((token, 1))) {
                Ok(Reply::Later(token))
            } else {
                iop.cdvd.error = err::READCFR;
                Ok(Reply::Now(words(&[0])))
            }
        }
        14 => {
            let busy = super::cdvdman::ready(iop, 8) & 0xc0 != 0x40;
            Ok(Reply::Now(words(&[if busy { 6 } else { 2 }])))
        }
        9 => stream(iop, args),
        10 => Err("N command 10 (CDDASTREAM) is not implemented by piney".into()),
        12 => Err("N command 12 (NCMD, sceCdApplyNCmd) is not implemented by piney".into()),
        15 => Err("N command 15 (READCHAIN) is not implemented by piney".into()),
        _ => Ok(Reply::Now(words(&[0]))),
    }
}

/// STREAM { lsn, sectors, buffer, command, mode }: [`super::stream`].
fn stream(iop: &mut Iop, args: &[u8]) -> Result<Reply, String> {
    let (a, n, buf, cmd) = (word(args, 0), word(args, 4), word(args, 8), word(args, 12));
    let r = match cmd {
        1 | 4 | 9 => iop.st_start(a),
        2 => {
            ee_check(iop, "STREAM READ's buffer", buf, u64::from(n) * 2048)?;
            let (data, _, error) = iop.st_take(n, false);
            let count = (data.len() / 2048) as u32;
            let chunks = data.len().div_ceil(CHUNK);
            sifman_room(iop, chunks)?;
            for (i, c) in data.chunks(CHUNK).enumerate() {
                iop.send_to_ee(buf + (i * CHUNK) as u32, c.to_vec());
            }
            (error << 16) | (count & 0xffff)
        }
        3 => iop.st_stop(),
        5 => {
            if !super::in_ram(buf, u64::from(a) * 2048) {
                return Err(format!(
                    "STREAM INIT's ring at {buf:#010x} (+{:#x}) is not in IOP RAM",
                    u64::from(a) * 2048
                ));
            }
            iop.st_init(a, n, buf)
        }
        6 => iop.st_stat(),
        7 => iop.st_pause(true),
        8 => iop.st_pause(false),
        _ => 0,
    };
    Ok(Reply::Now(words(&[r])))
}

/// The edge block of a read that sent nothing.
fn empty_edges() -> Vec<u8> {
    vec![0u8; 144]
}

/// READ (N command 1, and 19) and CDDAREAD (2, `cdda`): { lsn, sectors, buffer, mode
/// (trycount, spindle, datapattern), the EE's edge block, its read position }.
fn read(iop: &mut Iop, args: &[u8], token: u32, cdda: bool) -> Result<Reply, String> {
    let (lsn, n, buf) = (word(args, 0), word(args, 4), word(args, 8));
    let pattern = args.get(14).copied().unwrap_or(0);
    let (edges, pos) = (word(args, 16), word(args, 20));
    let kind = if cdda {
        SectorKind::cdda(pattern)
    } else {
        SectorKind::Data
    };
    ee_check(iop, "READ's buffer", buf, u64::from(n) * kind.bytes())?;
    ee_check(iop, "READ's edge block", edges, 144)?;
    ee_check(iop, "READ's read position", pos, 4)?;
    let dvd = iop.cd_disk_type() == super::disk_type::PS2DVD;
    if !cdda && pattern != 0 && !dvd && iop.disc.is_some() {
        return Err(format!(
            "READ of sectors of pattern {pattern} (2328/2340 bytes) is not implemented by piney"
        ));
    }
    let job = Job::Read {
        lsn: u64::from(lsn),
        count: u64::from(n),
        kind,
        target: Target::Ee(EeRead {
            token,
            buf,
            edges,
            pos,
        }),
    };
    // Refused (no disc, the other media mode, not a disc with audio tracks for CD-DA), or the
    // drive busy (a command, a stream).
    let refused = if cdda {
        super::cdvdman::cdda_refused(iop).then_some(err::READCFR)
    } else {
        super::cdvdman::refusal(iop)
    };
    if refused.is_none() && iop.cd_start(job, func::READ, None) {
        return Ok(Reply::Later(token));
    }
    iop.cdvd.error = refused.unwrap_or(err::READCFR);
    sifman_room(iop, 2)?;
    iop.send_to_ee(edges, empty_edges());
    iop.send_to_ee(pos, words(&[0]));
    Ok(Reply::Now(words(&[0])))
}

/// An EE read completed with `data` (`None`: nothing arrived): the middle, the edges, the
/// read position, the answer.
pub fn read_done(iop: &mut Iop, r: &EeRead, data: Option<&[u8]>) -> Result<(), IopError> {
    let data = data.unwrap_or(&[]);
    let all = data.len();
    let paddr = r.buf as usize;
    let (head, tail_at) = if all == 0 {
        (0, 0)
    } else {
        let head = if paddr & 63 != 0 {
            64 - (paddr & 63)
        } else {
            0
        };
        let saddr = (paddr + all) & !63;
        (head.min(all), saddr.max(paddr + head.min(all)) - paddr)
    };
    let middle = &data[head..tail_at];
    let tail = &data[tail_at..];
    let chunks = middle.len().div_ceil(CHUNK);
    sifman_room(iop, chunks + 2).map_err(|w| fsv_err(format!("READ: {w}")))?;
    for (i, c) in middle.chunks(CHUNK).enumerate() {
        iop.send_to_ee((paddr + head + i * CHUNK) as u32, c.to_vec());
    }
    let mut e = words(&[
        head as u32,
        tail.len() as u32,
        r.buf,
        (paddr + tail_at) as u32,
    ]);
    let mut b1 = data[..head].to_vec();
    b1.resize(64, 0);
    let mut b2 = tail.to_vec();
    b2.resize(64, 0);
    e.extend_from_slice(&b1);
    e.extend_from_slice(&b2);
    iop.send_to_ee(r.edges, e);
    iop.send_to_ee(r.pos, words(&[all as u32]));
    answer(iop, r.token, &words(&[all as u32]))
}

fn search(iop: &mut Iop, args: &[u8], token: u32) -> Result<Reply, String> {
    let (path_at, dest_at, layer, copy): (usize, usize, u32, usize) = match args.len() {
        0x12c => (36, 292, word(args, 296), 36),
        0x128 => (36, 292, 0, 36),
        _ => (32, 288, 0, 32),
    };
    let dest = word(args, dest_at);
    ee_check(iop, "the search's sceCdlFILE", dest, copy as u64)?;
    let p = args
        .get(path_at..(path_at + 256).min(args.len()))
        .unwrap_or(&[]);
    let path = p[..p.iter().position(|&c| c == 0).unwrap_or(p.len())].to_vec();
    let mut packet = args.to_vec();
    packet.resize(copy.next_multiple_of(16), 0);
    let waiter = SearchFor::Ee {
        token,
        packet: packet.clone(),
        copy,
        dest,
    };
    if let Some(job) = super::cdvdman::search_job(iop, &path, layer, waiter)
        && iop.cd_start(job, 0, None)
    {
        return Ok(Reply::Later(token));
    }
    iop.send_to_ee(dest, packet);
    let mut r = words(&[0]);
    r.resize(16, 0);
    Ok(Reply::Now(r))
}

fn fsv_err(what: String) -> IopError {
    IopError::Native {
        module: format!("{MODULE} (CDVDFSV)"),
        what,
    }
}

/// Answer the call `token` (an N command or a search that waited for the drive), then the calls
/// that waited behind it.
pub fn answer(iop: &mut Iop, token: u32, reply: &[u8]) -> Result<(), IopError> {
    iop.complete_call(token, reply);
    if iop.cdvd.fsv_busy == Some(token) {
        iop.cdvd.fsv_busy = None;
    }
    while iop.cdvd.fsv_busy.is_none() {
        let Some(c) = iop.cdvd.fsv_queue.pop_front() else {
            break;
        };
        match thread_call(iop, c.sid, c.fno, &c.args, c.token) {
            Ok(Reply::Now(b)) => iop.complete_call(c.token, &b),
            Ok(Reply::Later(t)) => iop.cdvd.fsv_busy = Some(t),
            Err(e) => {
                return Err(IopError::Native {
                    module: format!("{MODULE} (RPC server {:#010x}, function {})", c.sid, c.fno),
                    what: e,
                });
            }
        }
    }
    Ok(())
}

/// The `cdvdfsv` library: 4 cdvdfsv_dummyentry (0), 5 sceCdChangeThreadPriority (-403
/// outside 9..123, else 0: piney's servers have no threads to move).
pub static CDVDFSV: LibDef = LibDef {
    name: "cdvdfsv",
    version: 0x0101,
    funcs: &[
        (1, "_retonly", |iop| Ok(Ret::V(iop.cpu.gpr[2]))),
        (2, "_retonly", |iop| Ok(Ret::V(iop.cpu.gpr[2]))),
        (3, "_retonly", |iop| Ok(Ret::V(iop.cpu.gpr[2]))),
        (4, "cdvdfsv_dummyentry", |_| Ok(Ret::V(0))),
        (5, "sceCdChangeThreadPriority", |iop| {
            let p = iop.arg(0);
            Ok(Ret::V(if p.wrapping_sub(9) >= 0x73 {
                -403i32 as u32
            } else {
                0
            }))
        }),
    ],
};
