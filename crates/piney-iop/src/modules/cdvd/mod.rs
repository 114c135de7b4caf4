//! The CD/DVD drive and its two rom modules, native: CDVDMAN (the `cdvdman` library IOP
//! modules call, [`cdvdman`]), CDVDFSV (the RPC servers the EE's libcdvd calls,
//! [`cdvdfsv`]) and cdvdman's `cdrom` ioman device ([`device`]), over the disc in the drive
//! ([`crate::Iop::disc`]) with the drive's timing ([`timing`]).
//!
//! Contract:
//! - One drive, [`Cdvd`] at [`crate::Iop::cdvd`]: its head and spindle, its tray, its clock,
//!   and [`Cdvd::fast`] (`--fast-cdvd`) live across IOP reboots, as hardware does; cdvdman's own
//!   state (the command in flight, the last error, the callback, the media mode, the file
//!   system cache) starts afresh with each boot.
//! - One N command at a time (a read, a seek, standby, stop, pause, a search's reads): it starts
//!   when cdvdman hands it over, if the drive is idle (else the call answers "busy", as the
//!   console's does), and completes at a time the timing model gives, on the IOP's event queue
//!   ([`crate::events::EventKind::Cdvd`]). At completion, in this order: the data lands (IOP RAM
//!   written directly: piney's cdvdman does not move sectors through DMA channel 3, whose
//!   registers only see what sceCdInit does to them, as cdvdman_init does: DPCR's channel 3
//!   enable set, its CHCR cleared; the EE's data goes through SIF0), the last error is set,
//!   cdvdfsv's waiting answer goes out, threads in sceCdSync(0) (and a thread in
//!   sceCdSearchFile) are woken, and the callback of sceCdCallback runs in interrupt context
//!   with the command's number.
//! - Errors are the console's numbers ([`err`]); a guest's bad pointer (a buffer outside IOP
//!   RAM, a callback that is no code) stops the run with one message naming the call.
//!
//! Facts (ps2sdk `iop/cdvd/cdvdman/src/cdvdman.c`, `iop/cdvd/cdvdfsv/src/cdvdfsv.c`,
//! `common/include/libcdvd-common.h`, `libcdvd-rpc.h`, reconstructions of Sony's modules 2.38;
//! PCSX2's `pcsx2/CDVD/CDVD.cpp` for what the drive answers; the code is our own):
//! - sceCdRead returns 1 when the drive took the command, 0 when it is busy or there is nothing
//!   to read (no disc, the tray open, a disc of the other media mode: the last error is then
//!   SCECdErREADCFR, 0xfe).
//! - The drive refuses a read starting at or past the end of the disc (SCECdErREAD, 0x30, as
//!   PCSX2's drive answers; no data) and one of no sectors (SCECdErILI, 0x21); a read that runs
//!   off the end stops there (the drive's SCECdErEOM, which cdvdman's interrupt handler turns
//!   into SCECdErNO: the sectors up to the end arrive, the rest of the buffer stays as it was).
//!   Commands other than a read with no disc in the drive end with SCECdErNODISC (0x12), with
//!   the tray open SCECdErOPENS (0x11). A command in flight when the tray opens or the disc
//!   changes ends with SCECdErTRMOPN (0x31). sceCdBreak sets SCECdErABRT (1) whatever runs, and
//!   ends the command in flight (no data), whose callback then says SCECdFuncBreak (8).
//! - The callback's number is the command's function: 1 read, 4 seek, 5 standby, 6 stop, 7
//!   pause, 8 break; sceCdCallback refuses (0) while a command runs and
//!   returns the previous callback; sceCdInit forgets it.
//! - The disc type (register 0x0f) is SCECdPS2DVD (0x14) for a DVD, SCECdPS2CD (0x12) for a
//!   CD, SCECdNODISC (0) with no disc or the tray open. A disc put in is detected at once
//!   (piney skips the drive's seconds of SCECdDETCT*).
//! - sceCdStatus (register 0x0a): SCECdStatShellOpen (1) with the tray open, SCECdStatStop (0)
//!   with no disc or a stopped one, SCECdStatRead (6) while sectors pass, SCECdStatSeek (0x12)
//!   while the head moves, SCECdStatSpin (2) while it stops, else SCECdStatPause (0x0a).
//! - The clock (sceCdReadClock, the S command 8 of the mechacon): BCD {stat 0, second, minute,
//!   hour, 0, day, month, year % 100}. piney's runs from [`Cdvd::clock_base`] seconds after
//!   2000-01-01 00:00:00 (the console keeps JST) at the IOP's emulated time; the host's clock is
//!   never read.
//! - Streaming (sceCdSt*, the EE's STREAM): [`stream`].
//!
//! - CD-DA reads (sceCdReadCDDA, cdvdfsv's CDDAREAD): only of a disc whose type says CD-DA
//!   (SCECdPS2CDDA 0x13, a PS2 CD with audio tracks; SCECdCDDA 0xfd, an audio CD), any track up
//!   to the lead-out, each sector whole (2352 bytes: audio samples as the disc has them) and,
//!   for datapatterns 1 and 2, the subchannel the drive appends ([`subq`]); the callback's
//!   number is SCECdFuncReadCDDA (2). Sectors pass at the data reads' rate (the drive's speed
//!   for the medium, [`timing`]).
//!
//! Left out: raw reads of data sectors (sceCdRead's 2328/2340 patterns on a CD), sceCdReadChain (IOP and EE), the mechacon's S
//! commands beyond those [`cdvdfsv`] names, the drive's registers at 0x1f402000 (reads there
//! answer 0 and writes are ignored, as before), a CDVDSTM from an IOPRP image run as code (it calls cdvdman's
//! sceCdRead0, which stops the run), and what cdvdman's internal search reads would tell the
//! callback.

pub mod cdvdfsv;
pub mod cdvdman;
pub mod device;
pub mod iso;
pub mod stream;
pub mod subq;
pub mod timing;

use std::collections::VecDeque;

use crate::disc::{CDDA_SECTOR, Media};
use crate::events::EventKind;
use crate::kernel::{Cont, Wait, ret};
use crate::mem::{RAM_SIZE, physical};
use crate::{IOP_CLOCK_HZ, Iop, IopError};
use timing::{Figures, Head};

/// The console's error codes (SCECdEr*).
pub mod err {
    /// No error.
    pub const NO: u8 = 0x00;
    /// Aborted (sceCdBreak).
    pub const ABRT: u8 = 0x01;
    /// Unsupported command.
    pub const CMD: u8 = 0x10;
    /// The tray is open.
    pub const OPENS: u8 = 0x11;
    /// No disc.
    pub const NODISC: u8 = 0x12;
    /// The drive is not ready.
    pub const NORDY: u8 = 0x13;
    /// A command the disc in the drive does not have.
    pub const CUD: u8 = 0x14;
    /// A bad sector number.
    pub const IPI: u8 = 0x20;
    /// A bad length.
    pub const ILI: u8 = 0x21;
    /// A bad parameter.
    pub const PRM: u8 = 0x22;
    /// A read error.
    pub const READ: u8 = 0x30;
    /// The tray opened while reading.
    pub const TRMOPN: u8 = 0x31;
    /// The end of the medium.
    pub const EOM: u8 = 0x32;
    /// The command could not be set.
    pub const READCF: u8 = 0xfd;
    /// The command could not be set (read).
    pub const READCFR: u8 = 0xfe;
}

/// Disc types (SCECd*).
pub mod disk_type {
    /// No disc.
    pub const NODISC: u8 = 0x00;
    /// A PS2 CD without CD-DA tracks.
    pub const PS2CD: u8 = 0x12;
    /// A PS2 CD with CD-DA tracks after its data track.
    pub const PS2CDDA: u8 = 0x13;
    /// An audio CD (CD-DA tracks only).
    pub const CDDA: u8 = 0xfd;
    /// A PS2 DVD.
    pub const PS2DVD: u8 = 0x14;
}

/// Drive states (sceCdStatus, SCECdStat*).
pub mod stat {
    /// Stopped.
    pub const STOP: u8 = 0x00;
    /// The tray is open.
    pub const SHELL_OPEN: u8 = 0x01;
    /// Spinning.
    pub const SPIN: u8 = 0x02;
    /// Reading.
    pub const READ: u8 = 0x06;
    /// Paused (spinning, idle).
    pub const PAUSE: u8 = 0x0a;
    /// Seeking.
    pub const SEEK: u8 = 0x12;
}

/// Callback numbers (SCECdFunc*).
pub mod func {
    /// A read.
    pub const READ: u32 = 1;
    /// A CD-DA read.
    pub const READ_CDDA: u32 = 2;
    /// A seek.
    pub const SEEK: u32 = 4;
    /// Standby.
    pub const STANDBY: u32 = 5;
    /// Stop.
    pub const STOP: u32 = 6;
    /// Pause.
    pub const PAUSE: u32 = 7;
    /// A break.
    pub const BREAK: u32 = 8;
}

/// cdvdman's version (its IRX_ID, 2.38): what cdvdfsv's INIT reports for both modules.
pub const VERSION: u32 = 0x0226;
/// Native wait id: a thread in sceCdSync(0).
pub const WAIT_SYNC: u32 = 0x4344_0001;
/// Native wait id: a thread in sceCdSearchFile.
pub const WAIT_SEARCH: u32 = 0x4344_0002;
/// Native wait id: a thread in a blocking sceCdStRead.
pub const WAIT_STREAM: u32 = 0x4344_0003;
/// Continuation tag: the sceCdCallback callback returned.
pub const CONT_CALLBACK: u32 = 0x4344_0001;

/// Where a read's sectors go.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Target {
    /// IOP RAM at this address.
    Iop(u32),
    /// The EE, through cdvdfsv's READ.
    Ee(cdvdfsv::EeRead),
}

/// Who waits for a search.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum SearchFor {
    /// An IOP thread, and where its sceCdlFILE goes.
    Thread {
        /// The thread.
        thread: u32,
        /// The sceCdlFILE's address.
        out: u32,
    },
    /// The EE, through cdvdfsv's search server: the call's token, the packet it sent, how
    /// many of its bytes go back (SIF DMA rounds them up to whole quadwords of the packet),
    /// and where.
    Ee {
        /// The call.
        token: u32,
        /// The packet.
        packet: Vec<u8>,
        /// The bytes copied back (36, or 32 for the oldest packet).
        copy: usize,
        /// The EE address they go to.
        dest: u32,
    },
}

/// What a read's sectors are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum SectorKind {
    /// 2048 bytes of user data (sceCdRead).
    Data,
    /// A CD-DA read (sceCdReadCDDA): the whole 2352-byte sector, then `extra` bytes of
    /// subchannel (0, 16 or 96: datapattern 0, 1 or 2).
    Cdda {
        /// Subchannel bytes after each sector.
        extra: u32,
    },
}

impl SectorKind {
    /// Bytes a sector of this kind takes in the buffer.
    pub fn bytes(self) -> u64 {
        match self {
            SectorKind::Data => 2048,
            SectorKind::Cdda { extra } => 2352 + u64::from(extra),
        }
    }

    /// The kind for a CD-DA read's datapattern (cdvdman's SCECdSecS2352 0, SCECdSecS2368 1,
    /// SCECdSecS2448 2; any other value reads as 2352, as cdvdman's `default:` does).
    pub fn cdda(pattern: u8) -> SectorKind {
        SectorKind::Cdda {
            extra: match pattern {
                1 => 16,
                2 => 96,
                _ => 0,
            },
        }
    }
}

/// What a command does.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Job {
    /// Read `count` sectors from `lsn`.
    Read {
        /// The first sector.
        lsn: u64,
        /// How many.
        count: u64,
        /// What a sector is ([`SectorKind`]).
        kind: SectorKind,
        /// Where they go.
        target: Target,
    },
    /// Move the head.
    Seek(u64),
    /// Spin up and read sector 16.
    Standby,
    /// Stop the spindle.
    Stop,
    /// Pause.
    Pause,
    /// Nothing.
    Nop,
    /// sceCdSearchFile's reads: their time, the entry found (36 bytes), who waits.
    Search {
        /// The reads' time.
        time: u64,
        /// The error the reads end with (SCECdErREAD when one could not be read).
        error: u8,
        /// The entry.
        #[serde(with = "piney_state::opt_array")]
        found: Option<[u8; 36]>,
        /// Who waits.
        waiter: SearchFor,
    },
}

/// The command in flight.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Command {
    job: Job,
    /// The callback's number (0: none).
    func: u32,
    /// When the first sector is under the head.
    first: u64,
    /// When it completes.
    due: u64,
    /// The sectors that arrive.
    arrive: u64,
    /// The error it ends with.
    error: u8,
    /// The status while it runs.
    status: u8,
    /// A cdvdfsv N command answered when it completes: (token, the reply's word).
    reply: Option<(u32, u32)>,
}

/// A cdvdfsv call waiting for the thread that serves N commands and searches.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct FsvCall {
    /// The server.
    pub sid: u32,
    /// The function.
    pub fno: u32,
    /// The argument bytes.
    pub args: Vec<u8>,
    /// The call's token.
    pub token: u32,
}

/// The drive and cdvdman's state.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Cdvd {
    /// `--fast-cdvd`: every command completes after [`timing::FAST_CYCLES`] (a behaviour
    /// change; off by default).
    pub fast: bool,
    /// The head and spindle.
    pub head: Head,
    /// Whether the tray is open.
    pub tray_open: bool,
    /// The clock at IOP cycle 0: seconds after 2000-01-01 00:00:00.
    pub clock_base: u64,
    cmd: Option<Command>,
    /// The last error (sceCdGetError).
    pub error: u8,
    callback: u32,
    mmode: u8,
    /// Disc changes not yet seen, by cdvdman's media-check code (0 search, 1 tray check, 2 the
    /// cdrom device's cache, 4 dual-layer info).
    changed: [bool; 8],
    fs: iso::FsCache,
    /// cdvdfsv's N-command thread: answering a call later.
    fsv_busy: Option<u32>,
    fsv_queue: VecDeque<FsvCall>,
    poff: (u32, u32),
    stm: [u32; 2],
    /// The stream ([`stream`]).
    pub stream: stream::Stream,
    /// Threads in a blocking sceCdStRead: (thread, when, their result).
    st_waiters: Vec<(u32, u64, u32)>,
    logged: Vec<String>,
}

impl Default for Cdvd {
    fn default() -> Self {
        Self {
            fast: false,
            head: Head::default(),
            tray_open: false,
            clock_base: 0,
            cmd: None,
            error: err::NO,
            callback: 0,
            mmode: 0xff,
            changed: [true; 8],
            fs: iso::FsCache::default(),
            fsv_busy: None,
            fsv_queue: VecDeque::new(),
            poff: (0, 0),
            stm: [0; 2],
            stream: stream::Stream::default(),
            st_waiters: Vec::new(),
            logged: Vec::new(),
        }
    }
}

impl Cdvd {
    /// The drive after an IOP reboot: its hardware kept, cdvdman's state new.
    pub fn rebooted(&self) -> Self {
        Self {
            fast: self.fast,
            head: self.head,
            tray_open: self.tray_open,
            clock_base: self.clock_base,
            ..Self::default()
        }
    }

    /// Whether a command is in flight.
    pub fn busy(&self) -> bool {
        self.cmd.is_some()
    }

    /// Whether anything of the drive's is to come: a command in flight, a thread waiting for a
    /// stream's sectors.
    pub fn pending(&self) -> bool {
        self.cmd.is_some() || !self.st_waiters.is_empty()
    }

    /// When the command in flight completes.
    pub fn due(&self) -> Option<u64> {
        self.cmd.as_ref().map(|c| c.due)
    }

    /// cdvdman's media check for `code`: whether the disc changed since it last asked.
    fn media_changed(&mut self, code: usize) -> bool {
        std::mem::take(&mut self.changed[code])
    }

    fn log_once(&mut self, key: &str, msg: &str) {
        if !self.logged.iter().any(|k| k == key) {
            self.logged.push(key.to_string());
            eprintln!("piney: cdvd: {msg}");
        }
    }
}

/// Civil date from days since 2000-01-01 (proleptic Gregorian): (year, month, day).
fn civil(days: u64) -> (u64, u64, u64) {
    // Days since 0000-03-01, in 400-year eras of 146,097 days.
    let z = days + 730_425;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + u64::from(m <= 2);
    (y, m, d)
}

fn bcd(v: u64) -> u8 {
    (((v / 10 % 10) << 4) | (v % 10)) as u8
}

/// Whether `addr..addr + len` is in IOP RAM.
pub fn in_ram(addr: u32, len: u64) -> bool {
    u64::from(physical(addr)) + len <= RAM_SIZE as u64
}

impl Iop {
    /// The medium's timing figures, if a disc can be read.
    pub(crate) fn cd_figures(&self) -> Option<Figures> {
        if self.cdvd.tray_open {
            return None;
        }
        self.disc.as_ref().map(|d| match d.media() {
            Media::Cd => Figures::cd(),
            Media::Dvd { layer1_start } => Figures::dvd(layer1_start),
        })
    }

    /// sceCdGetDiskType.
    pub fn cd_disk_type(&self) -> u8 {
        match (&self.disc, self.cdvd.tray_open) {
            (Some(d), false) => match d.media() {
                Media::Cd if !d.tracks().iter().any(|t| t.audio) => disk_type::PS2CD,
                Media::Cd if d.sectors() == 0 => disk_type::CDDA,
                Media::Cd => disk_type::PS2CDDA,
                Media::Dvd { .. } => disk_type::PS2DVD,
            },
            _ => disk_type::NODISC,
        }
    }

    /// sceCdStatus.
    pub fn cd_status(&self) -> u8 {
        if self.cdvd.tray_open {
            return stat::SHELL_OPEN;
        }
        if self.disc.is_none() {
            return stat::STOP;
        }
        match &self.cdvd.cmd {
            Some(c) if c.status == stat::READ && self.cpu.cycles < c.first => stat::SEEK,
            Some(c) => c.status,
            None if self.cdvd.head.spinning => stat::PAUSE,
            None => stat::STOP,
        }
    }

    /// The clock's 8 bytes (sceCdCLOCK).
    pub fn cd_clock(&self) -> [u8; 8] {
        let secs = self.cdvd.clock_base + self.cpu.cycles / IOP_CLOCK_HZ;
        let (y, m, d) = civil(secs / 86_400);
        let t = secs % 86_400;
        [
            0,
            bcd(t % 60),
            bcd(t / 60 % 60),
            bcd(t / 3600),
            0,
            bcd(d),
            bcd(m),
            bcd(y % 100),
        ]
    }

    /// The disc changed (put in, taken out, the tray opened or closed): cdvdman's caches go,
    /// and a command in flight ends with SCECdErTRMOPN.
    pub fn cd_media_changed(&mut self) {
        self.cdvd.changed = [true; 8];
        self.cdvd.fs = iso::FsCache::default();
        self.cdvd.stream.run = None;
        if let Some(c) = &mut self.cdvd.cmd {
            c.error = err::TRMOPN;
            c.arrive = 0;
            if let Job::Search { found, .. } = &mut c.job {
                *found = None;
            }
            let due = self.cpu.cycles + timing::COMMAND_CYCLES;
            if due < c.due {
                c.due = due;
                self.events.cancel(EventKind::Cdvd);
                self.events.schedule(due, EventKind::Cdvd);
            }
        }
    }

    /// Hand `job` to the drive, if it is idle: true when it took it.
    pub fn cd_start(&mut self, job: Job, func: u32, reply: Option<(u32, u32)>) -> bool {
        // A stream keeps the drive for itself.
        if self.cdvd.cmd.is_some() || self.cdvd.stream.run.is_some() {
            return false;
        }
        let now = self.cpu.cycles;
        let fig = self.cd_figures();
        let (sectors, lead_out) = self
            .disc
            .as_ref()
            .map_or((0, 0), |d| (d.sectors(), d.lead_out()));
        let head = self.cdvd.head;
        let no_medium = if self.cdvd.tray_open {
            err::OPENS
        } else {
            err::NODISC
        };
        // (time to the first sector, whole time, sectors arriving, error, status, new head)
        let (first, time, arrive, error, status, new_head) = match (&job, fig) {
            (
                Job::Read {
                    lsn, count, kind, ..
                },
                Some(f),
            ) => {
                // A CD-DA read reaches every track, up to the lead-out.
                let sectors = match kind {
                    SectorKind::Data => sectors,
                    SectorKind::Cdda { .. } => lead_out,
                };
                if *count == 0 {
                    (0, f.half_turn, 0, err::ILI, stat::SEEK, head)
                } else if *lsn >= sectors {
                    (0, f.half_turn, 0, err::READ, stat::SEEK, head)
                } else {
                    let n = (*count).min(sectors - lsn);
                    let (first, all, h) = timing::read(&f, head, *lsn, n);
                    (first, all, n, err::NO, stat::READ, h)
                }
            }
            (Job::Seek(lsn), Some(f)) => {
                let h = Head {
                    pos: *lsn,
                    spinning: true,
                };
                (0, f.seek(head, *lsn), 0, err::NO, stat::SEEK, h)
            }
            (Job::Standby, Some(f)) => {
                let (first, all, h) = timing::read(&f, head, 16, 1);
                (first, all, 0, err::NO, stat::SEEK, h)
            }
            (Job::Stop, Some(_)) => {
                let h = Head {
                    spinning: false,
                    ..head
                };
                (0, timing::STOP, 0, err::NO, stat::SPIN, h)
            }
            (Job::Search { time, error, .. }, _) => (0, *time, 0, *error, stat::READ, head),
            (Job::Nop, _) | (Job::Pause, Some(_)) => (
                0,
                timing::COMMAND_CYCLES,
                0,
                err::NO,
                self.cd_status(),
                head,
            ),
            (_, None) => (0, timing::COMMAND_CYCLES, 0, no_medium, stat::STOP, head),
        };
        self.cdvd.head = new_head;
        let (first, time) = if self.cdvd.fast {
            (0, timing::FAST_CYCLES)
        } else {
            (first, time)
        };
        let due = now + time.max(1);
        self.cdvd.cmd = Some(Command {
            job,
            func,
            first: now + first,
            due,
            arrive,
            error,
            status,
            reply,
        });
        self.events.cancel(EventKind::Cdvd);
        self.events.schedule(due, EventKind::Cdvd);
        true
    }

    /// sceCdBreak: SCECdErABRT, and the command in flight ends soon with nothing.
    pub fn cd_break(&mut self) {
        self.cdvd.error = err::ABRT;
        let due = self.cpu.cycles + timing::COMMAND_CYCLES;
        if let Some(c) = &mut self.cdvd.cmd {
            c.error = err::ABRT;
            c.arrive = 0;
            c.func = func::BREAK;
            if let Job::Search { found, .. } = &mut c.job {
                *found = None;
            }
            if due < c.due {
                c.due = due;
                self.events.cancel(EventKind::Cdvd);
                self.events.schedule(due, EventKind::Cdvd);
            }
        }
    }

    /// sceCdGetReadPos: the bytes of the IOP read in flight that have arrived.
    pub fn cd_read_pos(&self) -> u32 {
        let Some(c) = &self.cdvd.cmd else {
            return 0;
        };
        let Job::Read {
            target: Target::Iop(_),
            kind,
            ..
        } = &c.job
        else {
            return 0;
        };
        let now = self.cpu.cycles;
        if now < c.first || c.due <= c.first {
            return 0;
        }
        // The sectors pass at an even pace from the first to the completion.
        let done = u128::from(now - c.first) * u128::from(c.arrive) / u128::from(c.due - c.first);
        (done.min(u128::from(c.arrive)) as u32).wrapping_mul(kind.bytes() as u32)
    }

    /// The sectors of a completed read, or the error that stopped them.
    pub(crate) fn cd_sectors(&mut self, lsn: u64, n: u64, kind: SectorKind) -> Result<Vec<u8>, u8> {
        let Some(disc) = self.disc.as_mut() else {
            return Err(err::TRMOPN);
        };
        let result = match kind {
            SectorKind::Data => {
                let mut buf = vec![0u8; (n * 2048) as usize];
                disc.read(lsn, &mut buf).map(|()| buf)
            }
            SectorKind::Cdda { extra } => {
                let mut whole = vec![0u8; n as usize * CDDA_SECTOR];
                disc.read_cdda(lsn, &mut whole).map(|()| {
                    let tracks = disc.tracks();
                    let mut buf = Vec::with_capacity((n * kind.bytes()) as usize);
                    for (i, sector) in whole.chunks_exact(CDDA_SECTOR).enumerate() {
                        buf.extend_from_slice(sector);
                        subq::append(&mut buf, &tracks, lsn + i as u64, extra);
                    }
                    buf
                })
            }
        };
        match result {
            Ok(buf) => Ok(buf),
            Err(e) => {
                let msg =
                    format!("the disc image cannot be read ({e}): the read ends with SCECdErREAD");
                self.cdvd.log_once("image", &msg);
                Err(err::READ)
            }
        }
    }

    /// The command in flight completed (its event).
    pub fn cd_complete(&mut self) -> Result<(), IopError> {
        if self.in_interrupt() {
            // The drive's interrupt waits for the running handler.
            let at = self.cpu.cycles + 8;
            if let Some(c) = &mut self.cdvd.cmd {
                c.due = at;
            }
            self.events.schedule(at, EventKind::Cdvd);
            return Ok(());
        }
        let Some(c) = self.cdvd.cmd.take_if(|c| c.due <= self.cpu.cycles) else {
            return Ok(());
        };
        let mut error = c.error;
        let mut woken = Vec::new();
        match c.job {
            Job::Read {
                lsn, target, kind, ..
            } => {
                let data = if c.arrive > 0 && error == err::NO {
                    match self.cd_sectors(lsn, c.arrive, kind) {
                        Ok(d) => Some(d),
                        Err(e) => {
                            error = e;
                            None
                        }
                    }
                } else {
                    None
                };
                self.cdvd.error = error;
                match target {
                    Target::Iop(addr) => {
                        if let Some(d) = &data {
                            self.bus.write_ram(addr, d);
                        }
                    }
                    Target::Ee(r) => cdvdfsv::read_done(self, &r, data.as_deref())?,
                }
            }
            Job::Search { found, waiter, .. } => {
                self.cdvd.error = error;
                match waiter {
                    SearchFor::Thread { thread, out } => {
                        if let Some(f) = found {
                            self.bus.write_ram(out, &f);
                        }
                        if self
                            .kernel
                            .threads
                            .get(&thread)
                            .is_some_and(|t| t.wait == Wait::Native(WAIT_SEARCH))
                        {
                            woken.push((thread, u32::from(found.is_some())));
                        }
                    }
                    SearchFor::Ee {
                        token,
                        mut packet,
                        copy,
                        dest,
                    } => {
                        if let Some(f) = found {
                            let n = copy.min(packet.len());
                            packet[..n].copy_from_slice(&f[..n]);
                        }
                        packet.resize(copy.next_multiple_of(16), 0);
                        self.send_to_ee(dest, packet);
                        let mut r = u32::from(found.is_some()).to_le_bytes().to_vec();
                        r.resize(16, 0);
                        cdvdfsv::answer(self, token, &r)?;
                    }
                }
            }
            _ => self.cdvd.error = error,
        }
        if let Some((token, word)) = c.reply {
            cdvdfsv::answer(self, token, &word.to_le_bytes())?;
        }
        if self.cdvd.cmd.is_none() {
            let waiters: Vec<u32> = self
                .kernel
                .threads
                .iter()
                .filter(|(_, t)| t.wait == Wait::Native(WAIT_SYNC))
                .map(|(id, _)| *id)
                .collect();
            woken.extend(waiters.into_iter().map(|t| (t, 0)));
        }
        for (t, v0) in woken {
            self.wake_later(t, v0);
        }
        let cb = self.cdvd.callback;
        if cb != 0 && c.func != 0 {
            if cb & 3 != 0 || !in_ram(cb, 4) {
                return Err(self.fault(format!(
                    "cdvdman: the callback set by sceCdCallback is {cb:#010x}, which is no code in IOP RAM"
                )));
            }
            self.enter_handler(
                cb,
                c.func,
                crate::hw::intc::line::CDVD,
                u32::MAX,
                ret::CONTINUE,
            );
            self.kernel.intr_cont.push(Cont::Module {
                tag: CONT_CALLBACK,
                data: [0; 6],
            });
        } else if self.kernel.current.is_none() {
            self.leave();
        } else {
            self.preempt_check();
        }
        Ok(())
    }
}

/// The sceCdCallback callback returned: its interrupt context ends.
pub fn callback_returned(iop: &mut Iop) -> Result<(), IopError> {
    iop.leave_handler();
    Ok(())
}
