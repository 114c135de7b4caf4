//! MCSERV (sid 0x8000_0400), served natively over piney's memory cards ([`piney_memcard`]):
//! the RPC server the EE's libmc talks to, with MCMAN's card detection and its file
//! descriptor table in front of the two cards (port 0 and port 1, slot 0 each).
//!
//! Facts (ps2sdk `iop/memorycard/mcserv/src/mcserv.c`, `iop/memorycard/mcman/src/main.c`,
//! `common/include/libmc-common.h`, reconstructions of Sony's modules; the code is our own):
//!
//! **Which functions are answered.** rom0:MCSERV (over rom0:MCMAN) answers the old set, 0x70
//! to 0x80. XMCSERV (over XMCMAN) answers the old set *and* the newer one (0xfe, 0x01...). The
//! console tells them apart by the module loaded; the IOP names a native server's module entry
//! after the server, not after the path that loaded it, so this server goes by the memory
//! card manager loaded beside it: XMCSERV imports version 2.3 of the `mcman` library, which
//! only XMCMAN exports (MCMAN's is 1.1, what MCSERV imports), so a program that loaded
//! XMCSERV loaded XMCMAN first. With a native `XMCMAN` module present the server is XMCSERV
//! over XMCMAN, otherwise MCSERV over MCMAN ([`interface`], looked at on every call).
//! rom0:MCMAN and rom0:XMCMAN themselves stay the IOP's quiet modules (their module entries
//! are what this looks for), so [`NativeServer::modules`] names only MCSERV and XMCSERV.
//!
//! **The result word.** Every answered function stores its result in the server's status
//! `{ result, mcserv version, mcman version }` and the reply is that status (the client asks
//! for 4 bytes, 12 for XMC's INIT). A function number the server does not answer leaves the
//! status as it was and replies with it: libmc's mcInit probe depends on it (FLUSH fd -1 in
//! both sets, -5 from the old one; then XMC's INIT 0xfe: an old server still says -5).
//!
//! Argument blocks (the client's): D, 48 bytes: +0 fd, +4 port, +8 slot, +12 size, +16 offset,
//! +20 origin, +24 buffer (EE), +28 param (EE), +32 `data[16]`. N, 1044 bytes: +0 port, +4 slot,
//! +8 flags, +12 maxent, +16 table / curdir (EE), +20 `name[1024]`.
//!
//! | fno (old / XMC) | block | what | result |
//! |---|---|---|---|
//! | INIT 0x70 / 0xfe | D | old: PS1CardFlag = (offset == -217); XMC: the versions (0x208, 0x20b) into the status | 0 |
//! | GET_INFO 0x78 / 0x01 | D | see below; end parameters to `param` | the detection result |
//! | OPEN 0x71 / 0x02 | N | `flags` is the mode; with 0x40 it is mkdir (no descriptor) | fd 0..2 (mkdir: 0) |
//! | CLOSE 0x72 / 0x03 | D | `fd` | 0 |
//! | SEEK 0x75 / 0x04 | D | `fd`, `offset`, `origin` (0 set, 2 end, else current) | the position |
//! | READ 0x73 / 0x05 | D | `fd`, `size`, `buffer`, `param` (see below) | bytes read |
//! | WRITE 0x74 / 0x06 | D | `fd`, head in `data` (`origin` bytes), rest at `buffer`/`size` | bytes written |
//! | FLUSH 0x7a / 0x0a | D | `fd` | 0 |
//! | CHDIR 0x7b / 0x0c | N | `name`; 1024 bytes of the current directory to `curdir` | 0 |
//! | GETDIR 0x76 / 0x0d | N | `name` (pattern), `flags` (0 start, else go on), `maxent`, entries to `table` | entries |
//! | SETINFO 0x7c / 0x0e | N | `name`, `flags` (fields), the 64-byte entry fetched from `table` | 0 |
//! | DELETE 0x79 / 0x0f | N | `name` (`flags` 0; else undelete: refused) | 0 |
//! | FORMAT 0x77 / 0x10 | D | `port`, `slot` | 0 |
//! | UNFORMAT 0x80 / 0x11 | D | `port`, `slot` | 0 |
//! | GET_ENT_SPACE — / 0x12 | N | `name` | free entries |
//!
//! The raw-flash functions (ERASE_BLOCK 0x7d, READ_PAGE 0x7e, WRITE_PAGE 0x7f, XMC's
//! CHECK_BLOCK 0x33) have no meaning for piney's cards: they stop the run, naming themselves.
//!
//! - GET_INFO, old: `size`/`offset`/`origin` say whether type/free/format are wanted; the 64
//!   bytes sent to `param` hold +0 the type (2, or 0 without a card), +4 the free clusters
//!   (only when the result is 0 or -1). XMC: `size`/`offset`/`origin` want format/free/type;
//!   192 bytes: +0 type, +4 free, +144 formatted (free and formatted only for results >= -1).
//! - READ: the head (up to the next 16-byte boundary of `buffer`; XMC 64) and the tail (what is
//!   left past the last boundary) go in the end parameters sent to `param`: +0 head size, +4
//!   tail size, +8 head EE address, +12 tail EE address, +16 head bytes, +32 (XMC +80) tail
//!   bytes (64 / 192 bytes); the aligned middle is sent straight to the EE buffer. A read of up
//!   to 16 (64) bytes is all head. Everything is sent before the reply, so it is in EE memory
//!   when the client's end function copies head and tail.
//! - WRITE: the rest is fetched from EE memory ([`Iop::ee_read`], the console's RDATA) and
//!   written in chunks of 8192 bytes (MCSERV's buffer), as the console does.
//! - GETDIR: one 64-byte `sceMcTblGetDir` per entry: +0 created, +8 modified (8 bytes each),
//!   +16 size, +20 mode (u16), +22 Reserve1 (0: the cards keep no such field), +24 Reserve2
//!   (0: the console's mcGetDir leaves it), +28 PdaAplNo (0), +32 the name (32 bytes).
//!
//! **Card detection** (MCMAN's `cardform`, per port, forgotten on a reboot): the first look at
//! a card (McDetectCard2: every function of old MCMAN, and XMC's GET_INFO) answers -1 for a
//! formatted card or -2 for an unformatted one, later looks 0; without a card -11. XMCMAN's
//! McDetectCard (every other XMCSERV function, old numbers included) does no such handshake:
//! 0 for a known formatted card, -2 for a known unformatted one, -13 for a card not looked at
//! yet, -12 without a card. Formatting makes the card known formatted; unformatting makes it
//! unknown (MCMAN clears `cardform`). Functions on a descriptor check it first (-5).
//!
//! **Descriptors.** MCMAN has 3 for all cards together: EE descriptors 0..2 are this server's
//! table, each naming a card and that card's own handle. A failed read, write, seek or flush
//! releases the descriptor, as MCMAN does (except a read or write the descriptor was not opened
//! for). A reboot closes what is open (a file written then gets its closed mark, where a
//! console's would not) and puts each card's current directory back at the root.
//!
//! **Time.** The IOP has no clock of the host: a card's time stamps are a base date (JST,
//! [`DEFAULT_BASE_TIME`] unless the owner sets another) plus the IOP's emulated seconds.
//!
//! **Storage failures** (a [`CardError`]: the host's I/O, a damaged image or sidecar) stop the
//! run with one message naming the card and what failed; a host disk that is full is told to
//! the EE as a full card (-3) with a line on stderr.
//!
//! **The `mc` device.** MCMAN also registers an ioman device, `mc` (ps2sdk `mcman/src/mcdev.c`),
//! which FILEIO reaches (`fioOpen("mc0:/DIR/FILE")`): [`super::fileio_mc`] answers it with the
//! `mc_*` functions here, on the same cards, card detection and 3 descriptors as the RPC.

use std::any::Any;
use std::path::{Path, PathBuf};

use piney_memcard::{
    CARD_TYPE_PS2, Card, CardError, CardSession, DirEntry, FileHandle, MAX_OPEN_FILES, McError,
    OpenFlags, SetInfoFlags, Timestamp, Whence, res,
};

use super::fileio::{put_word, word};
use super::{NativeServer, Reply};
use crate::kernel::sif::MAX_TRANSFERS;
use crate::{IOP_CLOCK_HZ, Iop};

/// MCSERV's sid.
pub const MCSERV_SID: u32 = 0x8000_0400;
/// The MCSERV version XMC's INIT reports (ps2sdk's XMCSERV, from the boot rom: 2.8).
pub const MCSERV_VERSION: u32 = 0x0208;
/// The MCMAN version XMC's INIT reports (ps2sdk's XMCMAN: 2.11).
pub const MCMAN_VERSION: u32 = 0x020b;
/// The card time at IOP cycle 0 unless the owner sets another: 2000-01-01 00:00:00 JST.
pub const DEFAULT_BASE_TIME: Timestamp = Timestamp::new(2000, 1, 1, 0, 0, 0);

/// Function numbers.
pub mod fno {
    /// Old set (rom0:MCSERV): INIT.
    pub const INIT: u32 = 0x70;
    /// OPEN (and mkdir).
    pub const OPEN: u32 = 0x71;
    /// CLOSE.
    pub const CLOSE: u32 = 0x72;
    /// READ (16-byte head and tail).
    pub const READ: u32 = 0x73;
    /// WRITE.
    pub const WRITE: u32 = 0x74;
    /// SEEK.
    pub const SEEK: u32 = 0x75;
    /// GETDIR.
    pub const GET_DIR: u32 = 0x76;
    /// FORMAT.
    pub const FORMAT: u32 = 0x77;
    /// GET_INFO (64-byte end parameters).
    pub const GET_INFO: u32 = 0x78;
    /// DELETE.
    pub const DELETE: u32 = 0x79;
    /// FLUSH.
    pub const FLUSH: u32 = 0x7a;
    /// CHDIR.
    pub const CH_DIR: u32 = 0x7b;
    /// SETINFO.
    pub const SET_INFO: u32 = 0x7c;
    /// ERASE_BLOCK (raw flash: not supported).
    pub const ERASE_BLOCK: u32 = 0x7d;
    /// READ_PAGE (raw flash: not supported).
    pub const READ_PAGE: u32 = 0x7e;
    /// WRITE_PAGE (raw flash: not supported).
    pub const WRITE_PAGE: u32 = 0x7f;
    /// UNFORMAT.
    pub const UNFORMAT: u32 = 0x80;

    /// XMC set (XMCSERV): INIT, answering the versions too.
    pub const X_INIT: u32 = 0xfe;
    /// GET_INFO (192-byte end parameters).
    pub const X_GET_INFO: u32 = 0x01;
    /// OPEN.
    pub const X_OPEN: u32 = 0x02;
    /// CLOSE.
    pub const X_CLOSE: u32 = 0x03;
    /// SEEK.
    pub const X_SEEK: u32 = 0x04;
    /// READ (64-byte head and tail).
    pub const X_READ: u32 = 0x05;
    /// WRITE.
    pub const X_WRITE: u32 = 0x06;
    /// FLUSH.
    pub const X_FLUSH: u32 = 0x0a;
    /// CHDIR.
    pub const X_CH_DIR: u32 = 0x0c;
    /// GETDIR.
    pub const X_GET_DIR: u32 = 0x0d;
    /// SETINFO.
    pub const X_SET_INFO: u32 = 0x0e;
    /// DELETE.
    pub const X_DELETE: u32 = 0x0f;
    /// FORMAT.
    pub const X_FORMAT: u32 = 0x10;
    /// UNFORMAT.
    pub const X_UNFORMAT: u32 = 0x11;
    /// GET_ENT_SPACE.
    pub const X_GET_ENT_SPACE: u32 = 0x12;
    /// CHECK_BLOCK (raw flash: not supported).
    pub const X_CHECK_BLOCK: u32 = 0x33;
}

/// Which server and card manager the EE finds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Interface {
    /// rom0:MCSERV over rom0:MCMAN: the old function set.
    Old,
    /// XMCSERV over XMCMAN: both sets.
    Xmc,
}

/// The interface the loaded modules give: XMC when a native XMCMAN module is loaded.
pub fn interface(iop: &Iop) -> Interface {
    let xmc = iop
        .kernel
        .loadcore
        .modules
        .iter()
        .any(|m| m.text == 0 && m.name.eq_ignore_ascii_case("XMCMAN"));
    if xmc { Interface::Xmc } else { Interface::Old }
}

/// Opens the card for `--memcard<n>` (see [`piney_memcard::open_card`]; `now` dates a card
/// created here), with an error naming the card.
pub fn open_memcard(n: usize, path: &Path, now: Timestamp) -> Result<Box<dyn Card>, String> {
    piney_memcard::open_card(path, now).map_err(|e| format!("memory card {n}: {e}"))
}

/// The EE's results this server makes up itself (MCMAN's, ps2sdk `mcman/src/main.c` and
/// `mcsio2.c`).
mod result {
    /// No card, from McDetectCard2 (old MCMAN; XMC's GET_INFO): the PS2 probe's
    /// sceMcResFailResetAuth, then the PS1 probe's time-out, the same value.
    pub const NO_CARD: i32 = -11;
    /// No card, from XMCMAN's McDetectCard: sceMcResFailDetect (both probes time out).
    pub const NO_CARD_X: i32 = -12;
    /// A card XMCMAN has not looked at yet (`cardform` 0): sceMcResFailDetect2.
    pub const UNKNOWN_X: i32 = -13;
}

/// MCSERV's buffer: writes are fetched and written in chunks of this size.
const BUF: usize = 8192;
/// The largest piece of a read's middle sent in one SIF0 transfer (the EE's DMA tags count
/// at most 0xffff quadwords).
const SIF0_CHUNK: usize = 0x8_0000;
/// Transfers sifman must keep free for the reply (its data and its packet).
const REPLY_TRANSFERS: usize = 2;
/// The largest argument block (N), and the buffer the server receives into (MCSERV's 2048).
const ARGS: usize = 1044;
const PORTS: usize = 2;

/// A request, decoded from its function number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
enum Op {
    Init,
    GetInfo,
    GetInfo2,
    Open,
    Close,
    Seek,
    Read,
    Read2,
    Write,
    Flush,
    ChDir,
    GetDir,
    SetInfo,
    Delete,
    Format,
    Unformat,
    GetEntSpace,
    Unsupported(&'static str),
}

fn decode(f: u32, iface: Interface) -> Option<Op> {
    use fno::*;
    Some(match f {
        INIT => Op::Init,
        OPEN => Op::Open,
        CLOSE => Op::Close,
        READ => Op::Read,
        WRITE => Op::Write,
        SEEK => Op::Seek,
        GET_DIR => Op::GetDir,
        FORMAT => Op::Format,
        GET_INFO => Op::GetInfo,
        DELETE => Op::Delete,
        FLUSH => Op::Flush,
        CH_DIR => Op::ChDir,
        SET_INFO => Op::SetInfo,
        ERASE_BLOCK => Op::Unsupported("ERASE_BLOCK"),
        READ_PAGE => Op::Unsupported("READ_PAGE"),
        WRITE_PAGE => Op::Unsupported("WRITE_PAGE"),
        UNFORMAT => Op::Unformat,
        _ if iface == Interface::Old => return None,
        X_INIT => Op::Init,
        X_GET_INFO => Op::GetInfo2,
        X_OPEN => Op::Open,
        X_CLOSE => Op::Close,
        X_SEEK => Op::Seek,
        X_READ => Op::Read2,
        X_WRITE => Op::Write,
        X_FLUSH => Op::Flush,
        X_CH_DIR => Op::ChDir,
        X_GET_DIR => Op::GetDir,
        X_SET_INFO => Op::SetInfo,
        X_DELETE => Op::Delete,
        X_FORMAT => Op::Format,
        X_UNFORMAT => Op::Unformat,
        X_GET_ENT_SPACE => Op::GetEntSpace,
        X_CHECK_BLOCK => Op::Unsupported("CHECK_BLOCK"),
        _ => return None,
    })
}

fn int(a: &[u8], off: usize) -> i32 {
    word(a, off) as i32
}

/// The name of an N block: its bytes up to the first NUL.
fn name_of(a: &[u8]) -> &[u8] {
    let s = &a[20..ARGS];
    &s[..s.iter().position(|&c| c == 0).unwrap_or(s.len())]
}

/// The card index of a port and slot: ports 0 and 1, slot 0 (no multitap).
fn slot_of(port: i32, slot: i32) -> Option<usize> {
    (slot == 0 && (0..PORTS as i32).contains(&port)).then_some(port as usize)
}

/// Days from 1970-01-01 to a proleptic Gregorian date (years counted from March, 400-year
/// eras of 146,097 days).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The Unix time whose JST card time is `t` (fields out of range are clamped).
fn unix_of_jst(t: Timestamp) -> i64 {
    let days = days_from_civil(
        i64::from(t.year),
        i64::from(t.month.clamp(1, 12)),
        i64::from(t.day.clamp(1, 31)),
    );
    days * 86_400
        + i64::from(t.hour.min(23)) * 3600
        + i64::from(t.min.min(59)) * 60
        + i64::from(t.sec.min(59))
        - 9 * 3600
}

/// A directory entry as the EE's `sceMcTblGetDir` (64 bytes).
fn table_entry(e: &DirEntry) -> [u8; 64] {
    let mut b = [0u8; 64];
    b[0..8].copy_from_slice(&e.created.to_bytes());
    b[8..16].copy_from_slice(&e.modified.to_bytes());
    b[16..20].copy_from_slice(&e.length.to_le_bytes());
    b[20..22].copy_from_slice(&e.mode.to_le_bytes());
    let n = e.name.len().min(32);
    b[32..32 + n].copy_from_slice(&e.name[..n]);
    b
}

/// The EE's `sceMcTblGetDir` as the new values of `mcSetFileInfo`.
fn entry_of_table(b: &[u8]) -> DirEntry {
    let ts = |o: usize| {
        let mut x = [0u8; 8];
        x.copy_from_slice(&b[o..o + 8]);
        Timestamp::from_bytes(x)
    };
    let name = &b[32..64];
    DirEntry {
        name: name[..name.iter().position(|&c| c == 0).unwrap_or(32)].to_vec(),
        mode: u16::from_le_bytes([b[20], b[21]]),
        length: word(b, 16),
        created: ts(0),
        modified: ts(8),
        attr: word(b, 24),
    }
}

/// Queue SIF0 sends (in order, before the reply), or say why they cannot be.
fn send(iop: &mut Iop, list: Vec<(u32, Vec<u8>)>) -> Result<(), String> {
    let n = list.iter().filter(|(_, d)| !d.is_empty()).count();
    let waiting = iop.kernel.sifman.waiting.len();
    if waiting + n + REPLY_TRANSFERS > MAX_TRANSFERS {
        return Err(format!(
            "{n} SIF0 transfers do not fit in sifman's queue ({waiting} of {MAX_TRANSFERS} already waiting)"
        ));
    }
    for (dest, data) in list {
        iop.send_to_ee(dest, data);
    }
    Ok(())
}

/// What an operation ends with: the result word, or a storage failure that stops the run.
type Res = Result<i32, String>;

/// The MCSERV server and MCMAN's state over up to two cards.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct McServ {
    #[serde(skip)]
    cards: [Option<Box<dyn Card>>; PORTS],
    /// Cards opened (and created) on first use: at the first call after MCSERV is loaded.
    #[serde(with = "serde_big_array::BigArray")]
    lazy: [Option<PathBuf>; PORTS],
    /// MCMAN's `cardform` per port: 0 not looked at, 1 formatted, -1 unformatted.
    #[serde(with = "serde_big_array::BigArray")]
    form: [i8; PORTS],
    /// MCMAN's descriptors: the card and its handle.
    fds: [Option<(usize, FileHandle)>; MAX_OPEN_FILES],
    /// The status the reply is: result, mcserv version, mcman version.
    stat: [u32; 3],
    /// MCMAN's PS1CardFlag (set by the old INIT).
    ps1_flag: bool,
    /// The Unix time of IOP cycle 0.
    base_unix: i64,
    /// The card time of the last call (closing at a reboot uses it).
    last_now: Timestamp,
    /// A storage failure found during a reboot, reported at the next call.
    pending: Option<String>,
    /// The EE's mcGetDir listing per port: its argument and how many entries it has had (the
    /// `mc` device's listings replay it to put the card's one listing back).
    listing: [Option<(Vec<u8>, usize)>; PORTS],
}

impl McServ {
    /// The server over the card in port 0 (`--memcard1`) and port 1 (`--memcard2`).
    pub fn new(card1: Option<Box<dyn Card>>, card2: Option<Box<dyn Card>>) -> Self {
        McServ {
            cards: [card1, card2],
            lazy: [None, None],
            form: [0; PORTS],
            fds: [None; MAX_OPEN_FILES],
            stat: [0; 3],
            ps1_flag: true,
            base_unix: unix_of_jst(DEFAULT_BASE_TIME),
            last_now: DEFAULT_BASE_TIME,
            pending: None,
            listing: [None, None],
        }
    }

    /// The server over the cards at these paths (see [`open_memcard`]), each opened, and
    /// created when it does not exist, on the first call a program makes (to MCSERV, or to the
    /// `mc` device once MCMAN is loaded): a program that never uses a card leaves the host
    /// alone. A card that cannot be opened then stops the run with its error.
    pub fn on_first_use(path1: Option<PathBuf>, path2: Option<PathBuf>) -> Self {
        let mut s = McServ::new(None, None);
        s.lazy = [path1, path2];
        s
    }

    /// Open the cards still waiting for their first use.
    fn open_lazy(&mut self, now: Timestamp) -> Result<(), String> {
        for port in 0..PORTS {
            if let Some(path) = self.lazy[port].take() {
                self.cards[port] = Some(open_memcard(port + 1, &path, now)?);
            }
        }
        Ok(())
    }

    /// The same with another card time for IOP cycle 0 (JST).
    pub fn with_base_time(mut self, t: Timestamp) -> Self {
        self.set_base_time(t);
        self
    }

    /// Sets the card time of IOP cycle 0 (JST).
    pub fn set_base_time(&mut self, t: Timestamp) {
        self.base_unix = unix_of_jst(t);
        self.last_now = t;
    }

    /// The card time at the IOP's cycle count.
    pub fn now(&self, iop: &Iop) -> Timestamp {
        self.now_at(iop.cycles())
    }

    /// The card time at IOP cycle `cycles`.
    pub fn now_at(&self, cycles: u64) -> Timestamp {
        let secs = (cycles / IOP_CLOCK_HZ) as i64;
        Timestamp::from_unix_jst(self.base_unix.saturating_add(secs))
    }

    /// What every call on the cards starts with (an MCSERV function, or the `mc` device at IOP
    /// cycle `cycles`): a storage failure held since a reboot ends the run, cards waiting for
    /// their first use are opened. Returns the card time.
    pub fn begin(&mut self, cycles: u64) -> Result<Timestamp, String> {
        if let Some(e) = self.pending.take() {
            return Err(e);
        }
        let now = self.now_at(cycles);
        self.open_lazy(now)?;
        self.last_now = now;
        Ok(now)
    }

    /// The card in `port` (0 or 1).
    pub fn card_mut(&mut self, port: usize) -> Option<&mut (dyn Card + 'static)> {
        self.cards.get_mut(port)?.as_deref_mut()
    }

    fn fatal(&self, port: usize, e: &CardError) -> String {
        format!("memory card {} (port {port}): {e}", port + 1)
    }

    /// The result of a card's failure: its code, or a storage failure (a full host disk is a
    /// full card). Storage failures drop the card's handles, so its descriptors go too.
    fn failure(&mut self, port: usize, e: McError) -> Res {
        match e {
            McError::Card(c) => {
                self.drop_fds(port);
                if let CardError::Io { source, .. } = &c
                    && source.kind() == std::io::ErrorKind::StorageFull
                {
                    eprintln!(
                        "piney: memory card {}: {c}: the host disk is full; the game is told the card is full (sceMcResFullDevice)",
                        port + 1
                    );
                    return Ok(res::FULL_DEVICE);
                }
                Err(self.fatal(port, &c))
            }
            e => Ok(e.code()),
        }
    }

    fn drop_fds(&mut self, port: usize) {
        for f in &mut self.fds {
            if f.is_some_and(|(p, _)| p == port) {
                *f = None;
            }
        }
    }

    fn fd(&self, fd: i32) -> Option<(usize, FileHandle)> {
        usize::try_from(fd)
            .ok()
            .and_then(|i| self.fds.get(i).copied().flatten())
    }

    /// The card of a port known to hold one.
    fn card(&mut self, port: usize) -> Result<&mut Box<dyn Card>, String> {
        self.cards[port]
            .as_mut()
            .ok_or_else(|| format!("memory card {}: none in port {port}", port + 1))
    }

    fn info(&mut self, port: usize) -> Result<piney_memcard::CardInfo, String> {
        let r = self.card(port)?.info();
        r.map_err(|e| self.fatal(port, &e))
    }

    // ---- MCMAN's card detection ------------------------------------------------------------

    /// McDetectCard2 (`mcman_probePS2Card`): the first look at a card says it is new.
    fn detect2(&mut self, p: Option<usize>) -> Res {
        let Some(p) = p.filter(|&p| self.cards[p].is_some()) else {
            return Ok(result::NO_CARD);
        };
        if self.form[p] != 0 {
            return Ok(res::SUCCEED);
        }
        if self.info(p)?.formatted {
            self.form[p] = 1;
            Ok(res::CHANGED_CARD)
        } else {
            self.form[p] = -1;
            Ok(res::NO_FORMAT)
        }
    }

    /// XMCMAN's McDetectCard (`mcman_probePS2Card2`): what is known of the card.
    fn detect_x(&self, p: Option<usize>) -> i32 {
        match p.filter(|&p| self.cards[p].is_some()) {
            None => result::NO_CARD_X,
            Some(p) => match self.form[p] {
                1.. => res::SUCCEED,
                0 => result::UNKNOWN_X,
                _ => res::NO_FORMAT,
            },
        }
    }

    /// McDetectCard of the card manager loaded.
    fn detect(&mut self, p: Option<usize>, iface: Interface) -> Res {
        match iface {
            Interface::Old => self.detect2(p),
            Interface::Xmc => Ok(self.detect_x(p)),
        }
    }

    /// McDetectCard, for functions that go on only on 0: the port, or the result.
    fn ready(&mut self, p: Option<usize>, iface: Interface) -> Result<Result<usize, i32>, String> {
        let r = self.detect(p, iface)?;
        Ok(match p {
            Some(p) if r == res::SUCCEED => Ok(p),
            _ => Err(r),
        })
    }

    /// The type McGetMcType reports: PS2 once detected.
    fn mc_type(&self, p: Option<usize>) -> i32 {
        match p {
            Some(p) if self.cards[p].is_some() && self.form[p] != 0 => CARD_TYPE_PS2,
            _ => 0,
        }
    }

    /// McGetFreeClusters: 0 unless the card is known formatted.
    fn free_clusters(&mut self, p: Option<usize>) -> Res {
        match p {
            Some(p) if self.form[p] > 0 && self.cards[p].is_some() => {
                Ok(self.info(p)?.free_clusters as i32)
            }
            _ => Ok(0),
        }
    }

    // ---- MCMAN's descriptor functions ---------------------------------------------------------

    /// McRead of `len` bytes from MCMAN descriptor `fd`: the bytes, or the result.
    pub fn mc_read(
        &mut self,
        fd: i32,
        len: usize,
        iface: Interface,
    ) -> Result<Result<Vec<u8>, i32>, String> {
        let Some((p, fh)) = self.fd(fd) else {
            return Ok(Err(res::DENIED_PERMIT));
        };
        if let Err(r) = self.ready(Some(p), iface)? {
            return Ok(Err(r));
        }
        let mut buf = vec![0; len];
        match self.card(p)?.read(fh, &mut buf) {
            Ok(n) => {
                buf.truncate(n);
                Ok(Ok(buf))
            }
            Err(e) => {
                if !matches!(e, McError::DeniedPermit) {
                    self.fds[fd as usize] = None;
                }
                self.failure(p, e).map(Err)
            }
        }
    }

    /// McWrite to MCMAN descriptor `fd`: the count written, or the result.
    pub fn mc_write(&mut self, fd: i32, data: &[u8], iface: Interface, now: Timestamp) -> Res {
        let Some((p, fh)) = self.fd(fd) else {
            return Ok(res::DENIED_PERMIT);
        };
        if let Err(r) = self.ready(Some(p), iface)? {
            return Ok(r);
        }
        match self.card(p)?.write(fh, data, now) {
            Ok(n) => Ok(n as i32),
            Err(e) => {
                if !matches!(e, McError::DeniedPermit) {
                    self.fds[fd as usize] = None;
                }
                self.failure(p, e)
            }
        }
    }

    // ---- for MCMAN's `mc` device (fileio_mc) --------------------------------------------------

    /// McDetectCard2 of the card at `port`/`slot`, what every path function of the `mc` device
    /// starts with (mcdev.c, in MCMAN and XMCMAN alike): -1 at the first look at a formatted
    /// card, -2 unformatted, 0 after; -11 without a card.
    pub fn detect_card2(&mut self, port: i32, slot: i32) -> Res {
        self.detect2(slot_of(port, slot))
    }

    /// What `mcman_dread` checks before it reads: -5 for a descriptor not open, else
    /// McDetectCard of its card.
    pub fn mc_check(&mut self, fd: i32, iface: Interface) -> Res {
        match self.fd(fd) {
            None => Ok(res::DENIED_PERMIT),
            Some((p, _)) => self.detect(Some(p), iface),
        }
    }

    /// Every entry mcGetDir's `arg` (a directory and a pattern) lists, after McDetectCard,
    /// for the `mc` device's dopen and getstat. piney's cards keep one mcGetDir listing per
    /// card, and MCMAN's dread and getstat leave the EE's alone: the EE's listing is replayed
    /// afterwards to where it was (from the root of its argument: a chdir since it started is
    /// not followed).
    pub fn mc_list(
        &mut self,
        port: i32,
        slot: i32,
        arg: &[u8],
        iface: Interface,
    ) -> Result<Result<Vec<DirEntry>, i32>, String> {
        let p = match self.ready(slot_of(port, slot), iface)? {
            Ok(p) => p,
            Err(r) => return Ok(Err(r)),
        };
        let list = match self.card(p)?.getdir(arg, usize::MAX) {
            Ok(l) => Ok(l),
            Err(e) => Err(self.failure(p, e)?),
        };
        if let Some((a, n)) = self.listing[p].clone()
            && let Err(e) = self.card(p)?.getdir(&a, n)
        {
            self.listing[p] = None;
            self.failure(p, e)?;
        }
        Ok(list)
    }

    // ---- the functions ------------------------------------------------------------------------

    fn init(&mut self, iop: &mut Iop, a: &[u8], iface: Interface) -> Res {
        match iface {
            Interface::Xmc => {
                self.stat[1] = MCSERV_VERSION;
                self.stat[2] = MCMAN_VERSION;
            }
            Interface::Old => {
                self.ps1_flag = int(a, 16) == -217;
                if !self.ps1_flag {
                    iop.log_once(
                        "mcserv-ps1flag",
                        "MCSERV: INIT without -217 (PS1 cards refused): mkdir/open drop the hidden flag as MCMAN does; other PS1CardFlag=0 rules (setinfo masks) are not followed",
                    );
                }
            }
        }
        Ok(res::SUCCEED)
    }

    /// `_McGetInfo`: the old end parameters.
    fn get_info(&mut self, iop: &mut Iop, a: &[u8], iface: Interface) -> Res {
        let p = slot_of(int(a, 4), int(a, 8));
        let r = self.detect(p, iface)?;
        let mut ep = vec![0u8; 64];
        if int(a, 12) > 0 {
            put_word(&mut ep, 0, self.mc_type(p) as u32);
        }
        if r >= -1 && int(a, 16) != 0 {
            let free = self.free_clusters(p)?;
            put_word(&mut ep, 4, free as u32);
        }
        send(iop, vec![(word(a, 28), ep)])?;
        Ok(r)
    }

    /// `_McGetInfo2`: XMC's end parameters, with the card's format.
    fn get_info2(&mut self, iop: &mut Iop, a: &[u8]) -> Res {
        let p = slot_of(int(a, 4), int(a, 8));
        let r = self.detect2(p)?;
        let mut ep = vec![0u8; 192];
        if int(a, 20) > 0 {
            put_word(&mut ep, 0, self.mc_type(p) as u32);
        }
        if r >= -1 {
            if int(a, 16) > 0 {
                let free = self.free_clusters(p)?;
                put_word(&mut ep, 4, free as u32);
            }
            if int(a, 12) > 0 {
                let formatted = p.is_some_and(|p| self.form[p] > 0);
                put_word(&mut ep, 144, u32::from(formatted));
            }
        }
        send(iop, vec![(word(a, 28), ep)])?;
        Ok(r)
    }

    /// McOpen of `name` on the card at `port`/`slot` with `flags` (0x40: mkdir): the MCMAN
    /// descriptor (mkdir: 0), or the result.
    pub fn mc_open(
        &mut self,
        port: i32,
        slot: i32,
        name: &[u8],
        flags: u32,
        iface: Interface,
        now: Timestamp,
    ) -> Res {
        let p = match self.ready(slot_of(port, slot), iface)? {
            Ok(p) => p,
            Err(r) => return Ok(r),
        };
        // MCMAN takes a descriptor (of the 3 all cards share) before anything else.
        let Some(fd) = self.fds.iter().position(Option::is_none) else {
            return Ok(res::UP_LIMIT_HANDLE);
        };
        let mut flags = flags;
        if !self.ps1_flag {
            flags &= !OpenFlags::HIDDEN.0;
        }
        let r = self.card(p)?.open(name, OpenFlags(flags), now);
        match r {
            // mkdir holds no descriptor.
            Ok(_) if flags & OpenFlags::CREATE_DIR.0 != 0 => Ok(res::SUCCEED),
            Ok(fh) => {
                self.fds[fd] = Some((p, fh));
                Ok(fd as i32)
            }
            Err(e) => self.failure(p, e),
        }
    }

    /// McClose of MCMAN descriptor `fd`.
    pub fn mc_close(&mut self, fd: i32, iface: Interface, now: Timestamp) -> Res {
        let Some((p, fh)) = self.fd(fd) else {
            return Ok(res::DENIED_PERMIT);
        };
        // MCMAN frees the descriptor first, whatever follows.
        self.fds[fd as usize] = None;
        let r = self.detect(Some(p), iface)?;
        let c = self.card(p)?.close(fh, now);
        let c = match c {
            Ok(()) => res::SUCCEED,
            Err(e) => self.failure(p, e)?,
        };
        Ok(if r != res::SUCCEED { r } else { c })
    }

    /// McSeek of MCMAN descriptor `fd` (`origin` 0 set, 2 end, else current): the position.
    pub fn mc_seek(&mut self, fd: i32, offset: i32, origin: i32, iface: Interface) -> Res {
        let Some((p, fh)) = self.fd(fd) else {
            return Ok(res::DENIED_PERMIT);
        };
        if let Err(r) = self.ready(Some(p), iface)? {
            return Ok(r);
        }
        let r = self.card(p)?.seek(fh, offset, Whence::from_raw(origin));
        match r {
            Ok(pos) => Ok(pos as i32),
            Err(e) => {
                self.fds[fd as usize] = None;
                self.failure(p, e)
            }
        }
    }

    fn flush(&mut self, a: &[u8], iface: Interface, now: Timestamp) -> Res {
        let fd = int(a, 0);
        let Some((p, fh)) = self.fd(fd) else {
            return Ok(res::DENIED_PERMIT);
        };
        if let Err(r) = self.ready(Some(p), iface)? {
            return Ok(r);
        }
        match self.card(p)?.flush_file(fh, now) {
            Ok(()) => Ok(res::SUCCEED),
            Err(e) => {
                self.fds[fd as usize] = None;
                self.failure(p, e)
            }
        }
    }

    /// `_McRead` (`align` 16, 64-byte end parameters) and `_McRead2` (64, 192 bytes).
    fn read(&mut self, iop: &mut Iop, a: &[u8], iface: Interface, align: u32) -> Res {
        let (fd, size, buf, param) = (int(a, 0), int(a, 12), word(a, 24), word(a, 28));
        let mask = align - 1;
        let mut size1 = size;
        if size > align as i32 {
            // Up to the next boundary of the buffer (0 when it is aligned).
            size1 = (buf.wrapping_sub(1) & !mask).wrapping_sub(buf.wrapping_sub(align)) as i32;
        }
        let mut size2 = size.wrapping_sub(size1) & mask as i32;
        let middle = size.wrapping_sub(size1).wrapping_sub(size2).max(0) as usize;
        let mut dest1 = 0u32;
        let mut dest2 = if size2 != 0 {
            buf.wrapping_add(size1 as u32).wrapping_add(middle as u32)
        } else {
            0
        };
        let transfers = middle.div_ceil(SIF0_CHUNK) + 1;
        if iop.kernel.sifman.waiting.len() + transfers + REPLY_TRANSFERS > MAX_TRANSFERS {
            return Err(format!(
                "a read of {size} bytes takes {transfers} SIF0 transfers, more than sifman's queue holds"
            ));
        }
        let (mut src1, mut src2) = (Vec::new(), Vec::new());
        let mut sends = Vec::new();
        let mut eedata = buf;
        let mut total = 0i32;
        let result = 'done: {
            if size1 != 0 {
                match self.mc_read(fd, size1.max(0) as usize, iface)? {
                    Err(r) => {
                        size1 = 0;
                        size2 = 0;
                        break 'done r;
                    }
                    Ok(d) => {
                        let n = d.len() as i32;
                        total = n;
                        dest1 = buf;
                        eedata = eedata.wrapping_add(n as u32);
                        src1 = d;
                        if n != size1 {
                            size1 = n;
                            size2 = 0;
                            break 'done total;
                        }
                    }
                }
            }
            let mut left = middle;
            while left > 0 {
                let want = left.min(SIF0_CHUNK);
                let d = match self.mc_read(fd, want, iface)? {
                    Err(r) => {
                        size2 = 0;
                        break 'done r;
                    }
                    Ok(d) => d,
                };
                let n = d.len();
                total += n as i32;
                left -= n;
                let at = eedata;
                eedata = eedata.wrapping_add(n as u32);
                if n == want {
                    sends.push((at, d));
                    continue;
                }
                // The file ended inside the middle: no tail.
                if align == 16 {
                    // Whole quadwords cross: the EE's buffer gets the rest of the last one.
                    sends.push((at, d));
                    size2 = 0;
                } else {
                    // XMC keeps the bytes past the last boundary for the end function.
                    let k = n & !(align as usize - 1);
                    size2 = (n - k) as i32;
                    if size2 != 0 {
                        dest2 = at.wrapping_add(k as u32);
                        src2 = d[k..].to_vec();
                    }
                    let mut d = d;
                    d.truncate(k);
                    sends.push((at, d));
                }
                break 'done total;
            }
            if size2 != 0 {
                match self.mc_read(fd, size2 as usize, iface)? {
                    Err(r) => {
                        size2 = 0;
                        break 'done r;
                    }
                    Ok(d) => {
                        total += d.len() as i32;
                        size2 = d.len() as i32;
                        src2 = d;
                    }
                }
            }
            total
        };
        let a = align as usize;
        let mut ep = vec![0u8; if align == 16 { 64 } else { 192 }];
        put_word(&mut ep, 0, size1 as u32);
        put_word(&mut ep, 4, size2 as u32);
        put_word(&mut ep, 8, dest1);
        put_word(&mut ep, 12, dest2);
        ep[16..16 + src1.len().min(a)].copy_from_slice(&src1[..src1.len().min(a)]);
        ep[16 + a..16 + a + src2.len().min(a)].copy_from_slice(&src2[..src2.len().min(a)]);
        sends.push((param, ep));
        send(iop, sends)?;
        Ok(result)
    }

    /// `_McWrite`.
    fn write(&mut self, iop: &mut Iop, a: &[u8], iface: Interface, now: Timestamp) -> Res {
        let (fd, origin) = (int(a, 0), int(a, 20));
        let (mut size, mut buffer) = (int(a, 12), word(a, 24));
        let mut written = 0i32;
        if origin != 0 {
            // (`data` holds 16 bytes; a count outside 0..=16 is the EE's bug.)
            let n = origin.clamp(0, 16) as usize;
            written = self.mc_write(fd, &a[32..32 + n], iface, now)?;
            if written != origin {
                return Ok(written);
            }
        }
        while size > 0 {
            let chunk = (size as usize).min(BUF);
            let data = iop.ee_read(buffer, chunk)?;
            let r = self.mc_write(fd, &data, iface, now)?;
            if r != chunk as i32 {
                return Ok(if r < 0 { r } else { r + written });
            }
            written += chunk as i32;
            size -= chunk as i32;
            buffer = buffer.wrapping_add(chunk as u32);
        }
        Ok(written)
    }

    /// `_McGetDir`: up to `maxent` entries, one `sceMcTblGetDir` each, to the table.
    fn get_dir(&mut self, iop: &mut Iop, a: &[u8], iface: Interface) -> Res {
        let (flags, maxent, table) = (word(a, 8), int(a, 12), word(a, 16));
        if maxent <= 0 {
            return Ok(0);
        }
        let p = match self.ready(slot_of(int(a, 0), int(a, 4)), iface)? {
            Ok(p) => p,
            Err(r) => return Ok(r),
        };
        let card = self.card(p)?;
        let first = flags & 0xffff == 0;
        let r = if first {
            card.getdir(name_of(a), maxent as usize)
        } else {
            card.getdir_continue(maxent as usize)
        };
        // Where the listing is, for the `mc` device to put it back (see `mc_list`).
        match &r {
            Ok(l) if first => self.listing[p] = Some((name_of(a).to_vec(), l.len())),
            Ok(l) => {
                if let Some((_, n)) = &mut self.listing[p] {
                    *n += l.len();
                }
            }
            Err(_) => self.listing[p] = None,
        }
        match r {
            Ok(list) => {
                let bytes: Vec<u8> = list.iter().flat_map(table_entry).collect();
                send(iop, vec![(table, bytes)])?;
                Ok(list.len() as i32)
            }
            Err(e) => self.failure(p, e),
        }
    }

    /// `_McChDir`: the current directory goes to `curdir` whatever the result (zeros when
    /// there is none to report: the console sends whatever its buffer held).
    fn ch_dir(&mut self, iop: &mut Iop, a: &[u8], iface: Interface) -> Res {
        let mut out = vec![0u8; 1024];
        let r = match self.ready(slot_of(int(a, 0), int(a, 4)), iface)? {
            Err(r) => r,
            Ok(p) => match self.card(p)?.chdir(name_of(a)) {
                Ok(path) => {
                    let n = path.len().min(1023);
                    out[..n].copy_from_slice(&path[..n]);
                    res::SUCCEED
                }
                Err(e) => self.failure(p, e)?,
            },
        };
        send(iop, vec![(word(a, 16), out)])?;
        Ok(r)
    }

    /// `_McSetFileInfo`: the entry is fetched from EE memory first.
    fn set_info(&mut self, iop: &mut Iop, a: &[u8], iface: Interface) -> Res {
        let info = entry_of_table(&iop.ee_read(word(a, 16), 64)?);
        let p = match self.ready(slot_of(int(a, 0), int(a, 4)), iface)? {
            Ok(p) => p,
            Err(r) => return Ok(r),
        };
        let r = self
            .card(p)?
            .set_file_info(name_of(a), &info, SetInfoFlags(word(a, 8)));
        match r {
            Ok(()) => Ok(res::SUCCEED),
            Err(e) => self.failure(p, e),
        }
    }

    /// McDelete of `name` (a file or an empty directory; `flags` non-zero, MCMAN's undelete,
    /// is refused).
    pub fn mc_delete(
        &mut self,
        port: i32,
        slot: i32,
        name: &[u8],
        flags: u32,
        iface: Interface,
    ) -> Res {
        let p = match self.ready(slot_of(port, slot), iface)? {
            Ok(p) => p,
            Err(r) => return Ok(r),
        };
        if flags != 0 {
            return Err(format!(
                "DELETE with flags {flags:#x} (MCMAN's undelete of {:?}) is not supported by piney's memory cards",
                String::from_utf8_lossy(name)
            ));
        }
        match self.card(p)?.delete(name) {
            Ok(()) => Ok(res::SUCCEED),
            Err(e) => self.failure(p, e),
        }
    }

    fn get_ent_space(&mut self, a: &[u8], iface: Interface) -> Res {
        let p = match self.ready(slot_of(int(a, 0), int(a, 4)), iface)? {
            Ok(p) => p,
            Err(r) => return Ok(r),
        };
        match self.card(p)?.get_ent_space(name_of(a)) {
            Ok(n) => Ok(n as i32),
            Err(e) => self.failure(p, e),
        }
    }

    /// McFormat / McUnformat: descriptors on the card go first; a card that is not there
    /// (detection below -2) is left alone.
    pub fn mc_format(
        &mut self,
        port: i32,
        slot: i32,
        iface: Interface,
        now: Timestamp,
        unformat: bool,
    ) -> Res {
        let p = slot_of(port, slot);
        if let Some(p) = p {
            self.drop_fds(p);
        }
        let r = self.detect(p, iface)?;
        let Some(p) = p.filter(|_| r >= -2) else {
            return Ok(r);
        };
        let card = self.card(p)?;
        let r = if unformat {
            card.unformat()
        } else {
            card.format(now)
        };
        self.form[p] = if unformat { 0 } else { 1 };
        self.listing[p] = None;
        match r {
            Ok(()) => Ok(res::SUCCEED),
            Err(e) => self.failure(p, e),
        }
    }

    fn reply(&self) -> Reply {
        let mut r = Vec::with_capacity(12);
        for (i, w) in self.stat.iter().enumerate() {
            put_word(&mut r, 4 * i, *w);
        }
        Reply::Now(r)
    }
}

/// What a loaded state does with a port's card: keep the running machine's (its MCMAN state
/// back to a fresh card's), or take one opened again with the state's session on it.
type LoadedCards = [Option<Box<dyn Card>>; PORTS];

impl McServ {
    /// The card in `port` opened again from the running machine's card file, with MCMAN's
    /// state from a save state put back on it (its current directory, open files and
    /// listing, by their paths on the card): the card is the player's file, not the state's,
    /// so a file the state has open must still be on it.
    fn reopen_with(&self, port: usize, session: &CardSession) -> Result<Box<dyn Card>, String> {
        let n = port + 1;
        // What the state has open on the card, for the messages: a file or directory, else
        // the current directory, else the directory being listed.
        let what = || {
            let on_card = |p: &[u8]| format!("mc{port}:{}", String::from_utf8_lossy(p));
            if let Some(h) = session.handles.first() {
                on_card(&h.path())
            } else if !session.cwd.is_empty() {
                format!("{} as current directory", on_card(&session.cwd_path()))
            } else {
                let dir = session.listing.as_ref().map(|l| l.dir_path());
                format!("a listing of {}", on_card(&dir.unwrap_or_default()))
            }
        };
        let path = match (&self.cards[port], &self.lazy[port]) {
            (Some(c), _) => c.path().to_path_buf(),
            (None, Some(p)) => p.clone(),
            (None, None) => {
                return Err(format!(
                    "the state uses memory card {n} ({} open), and this run has no card in port {port}",
                    what()
                ));
            }
        };
        if !path.exists() {
            return Err(format!(
                "memory card {n} ({}) is not there, and the state has {} open on it",
                path.display(),
                what()
            ));
        }
        let mut card = open_memcard(n, &path, self.last_now)?;
        card.restore(session)
            .map_err(|e| format!("memory card {n} ({}): {e}", path.display()))?;
        Ok(card)
    }
}

impl NativeServer for McServ {
    /// The cards themselves are the player's files, not the state: a loaded state keeps the
    /// running machine's cards. MCMAN's state over each card (current directory, open files,
    /// a listing) is saved by path ([`CardSession`]) and put back on the loading run's card.
    fn save_state(&self) -> Result<Vec<u8>, String> {
        let sessions: [Option<CardSession>; PORTS] =
            std::array::from_fn(|p| self.cards[p].as_ref().map(|c| c.session()));
        crate::state::encode(&(self, sessions))
    }
    fn decode_state(&self, bytes: &[u8]) -> Result<Box<dyn Any>, String> {
        let (mut s, sessions): (Self, [Option<CardSession>; PORTS]) = crate::state::decode(bytes)?;
        let mut loaded: LoadedCards = [None, None];
        for (p, session) in sessions.iter().enumerate() {
            if let Some(session) = session.as_ref().filter(|s| !s.is_fresh()) {
                loaded[p] = Some(self.reopen_with(p, session)?);
            }
        }
        s.cards = loaded;
        Ok(Box::new(s))
    }
    fn apply_state(&mut self, state: Box<dyn Any>) {
        if let Ok(mut s) = state.downcast::<Self>() {
            for p in 0..PORTS {
                if s.cards[p].is_some() {
                    continue;
                }
                s.cards[p] = self.cards[p].take();
                s.lazy[p] = self.lazy[p].take();
                if let Some(c) = &mut s.cards[p] {
                    // A fresh session has nothing to find: it cannot fail.
                    let _ = c.restore(&CardSession::default());
                }
            }
            *self = *s;
        }
    }
    fn sid(&self) -> u32 {
        MCSERV_SID
    }
    fn name(&self) -> &str {
        "MCSERV"
    }
    fn modules(&self) -> &[&'static str] {
        &["MCSERV", "XMCSERV"]
    }
    fn buffer_size(&self) -> u32 {
        0x800
    }
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }

    fn call(&mut self, iop: &mut Iop, f: u32, args: &[u8], _token: u32) -> Result<Reply, String> {
        let now = self.begin(iop.cycles())?;
        let iface = interface(iop);
        let Some(op) = decode(f, iface) else {
            // Not this server's: the status stays as it was (libmc's probe reads it).
            return Ok(self.reply());
        };
        let mut a = args.to_vec();
        a.resize(ARGS.max(a.len()), 0);
        let a = &a[..];
        let r = match op {
            Op::Init => self.init(iop, a, iface)?,
            Op::GetInfo => self.get_info(iop, a, iface)?,
            Op::GetInfo2 => self.get_info2(iop, a)?,
            Op::Open => self.mc_open(int(a, 0), int(a, 4), name_of(a), word(a, 8), iface, now)?,
            Op::Close => self.mc_close(int(a, 0), iface, now)?,
            Op::Seek => self.mc_seek(int(a, 0), int(a, 16), int(a, 20), iface)?,
            Op::Read => self.read(iop, a, iface, 16)?,
            Op::Read2 => self.read(iop, a, iface, 64)?,
            Op::Write => self.write(iop, a, iface, now)?,
            Op::Flush => self.flush(a, iface, now)?,
            Op::ChDir => self.ch_dir(iop, a, iface)?,
            Op::GetDir => self.get_dir(iop, a, iface)?,
            Op::SetInfo => self.set_info(iop, a, iface)?,
            Op::Delete => self.mc_delete(int(a, 0), int(a, 4), name_of(a), word(a, 8), iface)?,
            Op::Format => self.mc_format(int(a, 4), int(a, 8), iface, now, false)?,
            Op::Unformat => self.mc_format(int(a, 4), int(a, 8), iface, now, true)?,
            Op::GetEntSpace => self.get_ent_space(a, iface)?,
            Op::Unsupported(what) => {
                return Err(format!(
                    "{what} ({f:#x}) works on the card's raw flash pages, which piney's memory cards (folders and .ps2 filesystems) do not offer"
                ));
            }
        };
        self.stat[0] = r as u32;
        Ok(self.reply())
    }

    /// A reboot reloads MCMAN and MCSERV: no card looked at, no descriptor, the status zero,
    /// each card's current directory the root again.
    fn reset(&mut self) {
        self.form = [0; PORTS];
        self.stat = [0; 3];
        self.ps1_flag = true;
        let fds = std::mem::take(&mut self.fds);
        for (p, fh) in fds.into_iter().flatten() {
            let now = self.last_now;
            if let Some(Err(McError::Card(e))) = self.cards[p].as_mut().map(|c| c.close(fh, now)) {
                self.pending.get_or_insert(self.fatal(p, &e));
            }
        }
        for p in 0..PORTS {
            if let Some(Err(McError::Card(e))) = self.cards[p].as_mut().map(|c| c.chdir(b"/")) {
                self.pending.get_or_insert(self.fatal(p, &e));
            }
        }
    }
}
