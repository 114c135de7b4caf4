//! The `cdvdman` library (CDVDMAN, "cdvd_driver" 2.38): its export table with ps2sdk's
//! indices (`iop/cdvd/cdvdman/src/exports.tab`, the variant without DNAS: 191 entries), the
//! functions answered over the drive of [`super`].
//!
//! | index | function | piney |
//! |---|---|---|
//! | 0 | _start | the module's entry (never called) |
//! | 1, 3 | _retonly | return at once |
//! | 2 | cdvdman_termcall | returns 0 |
//! | 4 | sceCdInit(mode) | 1; forgets the callback; mode 5 (exit) breaks what runs |
//! | 5 | sceCdStandby() | standby (seek to sector 16 and read it); 1 taken, 0 busy |
//! | 6 | sceCdRead(lsn, sectors, buf, mode*) | asynchronous read into IOP RAM; 1 taken, 0 busy / nothing to read |
//! | 7 | sceCdSeek(lsn) | 1 taken, 0 busy |
//! | 8 | sceCdGetError() | the last error |
//! | 9 | sceCdGetToc(toc*) | the TOC: 2064 bytes of a DVD's physical format information (its layers, its last sector), or a CD's 1024 (the first and last track, the lead-out, each track's start and kind) |
//! | 10 | sceCdSearchFile(file*, name*) | [`super::iso`]; blocks for the reads' time; 1 found, 0 not |
//! | 11 | sceCdSync(mode) | 0, 3..6, 16, 32 and others: block until idle, 0; 1, 17: 1 busy, 0 idle |
//! | 12 | sceCdGetDiskType() | [`super::disk_type`] |
//! | 13 | sceCdDiskReady(mode) | 0: 2; 8: the drive's ready register (0x40 idle, 0x80 busy); else 2 idle, 6 busy |
//! | 14 | sceCdTrayReq(mode, traychk*) | 0 open, 1 close, 2 check (1 when the disc changed since the last check); 1 |
//! | 15 | sceCdStop() | 1 taken, 0 busy |
//! | 16, 17 | sceCdPosToInt, sceCdIntToPos | the BCD minute/second/sector conversions (150 sectors of lead-in) |
//! | 21 | sceCdCheckCmd() | 1 idle, 0 busy |
//! | 22 | sceCdRI(id*, status*) | the i.Link ID 00 ac ff ff ff ff b9 86 (PCSX2's default), status 0; 1 |
//! | 24 | sceCdReadClock(clock*) | [`crate::Iop::cd_clock`]; 1 |
//! | 28 | sceCdStatus() | [`super::stat`] |
//! | 37 | sceCdCallback(func) | the previous callback; 0 (refused) while a command runs |
//! | 38 | sceCdPause() | 1 taken, 0 busy |
//! | 40 | sceCdReadCDDA(lsn, sectors, buf, mode*) | asynchronous read of whole sectors (2352, 2368 or 2448 bytes by datapattern) into IOP RAM; 1 taken, 0 busy or not a disc with audio tracks |
//! | 39 | sceCdBreak() | 1 |
//! | 44 | sceCdGetReadPos() | bytes of the read in flight that have arrived |
//! | 45 | sceCdCtrlADout(mode, status*) | status 0; 1 |
//! | 46 | sceCdNop() | 1 taken, 0 busy |
//! | 48, 49 | sceCdstm0Cb, sceCdstm1Cb | kept; 0 |
//! | 50 | sceCdSC(code, param*) | 0xfffffff7: the version (0x226); others 0 |
//! | 51 | sceCdRC(clock*) | as sceCdReadClock |
//! | 75 | sceCdMmode(media) | 1; reads of the other medium (1 CD, 2 DVD; 0xff either) are refused |
//! | 78 | sceCdPOffCallback(func, arg) | kept (the console never powers off here); the previous func |
//! | 81 | sceCdSetTimeout(param, ms) | 1 for param 1 or 2, 0 otherwise or while busy |
//! | 83 | sceCdReadDvdDualInfo(on_dual*, layer1_start*) | 1; a CD 0, 0 |
//! | 84 | sceCdLayerSearchFile(file*, name*, layer) | as sceCdSearchFile on `layer` |
//! | 114 | sceCdRE(lsn, sectors, buf, mode*) | as sceCdRead |
//! | 56..61, 67, 68, 77 | sceCdStInit, sceCdStRead, sceCdStSeek, sceCdStStart, sceCdStStat, sceCdStStop, sceCdStPause, sceCdStResume, sceCdStSeekF | [`super::stream`] |
//! | _retzero slots | | 0 |
//!
//! The others (sceCdApplySCmd 29, sceGetFsvRbuf 47, sceCdApplyNCmd 54,
//! sceCdRead0 62, sceCdRV 63, sceCdRM 64, sceCdReadChain 66, sceCdPowerOff 74,
//! sceCdApplySCmd2 112) stop the run, naming themselves.
//!
//! A guest pointer outside IOP RAM (a buffer, a path, a result) stops the run naming the call.
//! sceCdSearchFile writes 36 bytes at `file` (sceCdlFILE and the ISO flags after it), as the
//! console's cdvdman copies its table entry.

use super::{Job, SearchFor, SectorKind, Target, err, func, in_ram};
use crate::kernel::image::RETZERO;
use crate::kernel::{LibDef, NativeFn, Ret, Wait};
use crate::{Iop, IopError};

/// The export table's length.
pub const EXPORTS: usize = 191;

fn v(x: u32) -> Result<Ret, IopError> {
    Ok(Ret::V(x))
}

/// A guest range cdvdman reads or writes, or the run stops naming it.
fn check(iop: &Iop, what: &str, addr: u32, len: u64) -> Result<(), IopError> {
    if in_ram(addr, len) {
        Ok(())
    } else {
        Err(iop.fault(format!(
            "cdvdman: {what} at {addr:#010x} (+{len:#x}) is not in IOP RAM"
        )))
    }
}

/// A guest C string of at most `max` bytes.
fn guest_str(iop: &Iop, what: &str, addr: u32, max: usize) -> Result<Vec<u8>, IopError> {
    check(iop, what, addr, 1)?;
    let room = crate::mem::RAM_SIZE - crate::mem::physical(addr) as usize;
    Ok(iop.bus.ram_cbytes(addr, room.min(max)))
}

fn byte(iop: &Iop, addr: u32) -> u8 {
    let mut b = [0u8; 1];
    iop.bus.read_ram(addr, &mut b);
    b[0]
}

fn retzero(_: &mut Iop) -> Result<Ret, IopError> {
    v(0)
}

fn retonly(iop: &mut Iop) -> Result<Ret, IopError> {
    v(iop.cpu.gpr[2])
}

fn not_implemented(iop: &mut Iop, name: &str) -> Result<Ret, IopError> {
    Err(iop.fault(format!(
        "call of cdvdman {name}, which piney does not implement"
    )))
}

fn init(iop: &mut Iop) -> Result<Ret, IopError> {
    let mode = iop.arg(0);
    if mode == 5 {
        iop.cd_break();
    } else {
        iop.cdvd.callback = 0;
        iop.cdvd.poff = (0, 0);
        // cdvdman_init enables DMA channel 3 and clears its CHCR.
        iop.bus.hw.dmac.dpcr |= 0x8000;
        iop.bus.hw.dmac.ch[3].chcr = 0;
    }
    iop.cdvd.error = err::NO;
    v(1)
}

fn simple(iop: &mut Iop, job: Job, f: u32) -> Result<Ret, IopError> {
    v(u32::from(iop.cd_start(job, f, None)))
}

/// sceCdRead's checks on the medium: the error that refuses it, if any.
pub fn refusal(iop: &Iop) -> Option<u8> {
    let t = iop.cd_disk_type();
    if t == super::disk_type::NODISC {
        return Some(err::READCFR);
    }
    let want = if t == super::disk_type::PS2DVD { 2 } else { 1 };
    let m = iop.cdvd.mmode;
    (m != 0xff && m != want).then_some(err::READCFR)
}

fn read(iop: &mut Iop) -> Result<Ret, IopError> {
    let (lsn, count, buf, mode) = (iop.arg(0), iop.arg(1), iop.arg(2), iop.arg(3));
    check(iop, "sceCdRead's sceCdRMode", mode, 4)?;
    let pattern = byte(iop, mode + 2);
    if iop.cdvd.busy() {
        return v(0);
    }
    if let Some(e) = refusal(iop) {
        iop.cdvd.error = e;
        return v(0);
    }
    if pattern != 0 && iop.cd_disk_type() != super::disk_type::PS2DVD {
        let what = format!("sceCdRead of a CD's sectors of pattern {pattern} (2328/2340 bytes)");
        return not_implemented(iop, &what);
    }
    check(iop, "sceCdRead's buffer", buf, u64::from(count) * 2048)?;
    let job = Job::Read {
        lsn: u64::from(lsn),
        count: u64::from(count),
        kind: SectorKind::Data,
        target: Target::Iop(buf),
    };
    simple(iop, job, func::READ)
}

/// sceCdReadCDDA(lsn, sectors, buf, mode*): whole sectors of a CD with audio tracks. The
/// console's cdvdman answers 0 at once for any other disc type (a data-only CD, a DVD, no disc)
/// and while the media mode is DVD (ps2sdk cdvdman.c `cdvdman_readfull`).
fn read_cdda(iop: &mut Iop) -> Result<Ret, IopError> {
    let (lsn, count, buf, mode) = (iop.arg(0), iop.arg(1), iop.arg(2), iop.arg(3));
    check(iop, "sceCdReadCDDA's sceCdRMode", mode, 4)?;
    let kind = SectorKind::cdda(byte(iop, mode + 2));
    if iop.cdvd.busy() || cdda_refused(iop) {
        return v(0);
    }
    check(
        iop,
        "sceCdReadCDDA's buffer",
        buf,
        u64::from(count) * kind.bytes(),
    )?;
    let job = Job::Read {
        lsn: u64::from(lsn),
        count: u64::from(count),
        kind,
        target: Target::Iop(buf),
    };
    simple(iop, job, func::READ_CDDA)
}

/// Whether a CD-DA read is refused: the disc's type is not one with audio tracks, or the media
/// mode is DVD.
pub fn cdda_refused(iop: &Iop) -> bool {
    let t = iop.cd_disk_type();
    let m = iop.cdvd.mmode;
    !matches!(t, super::disk_type::PS2CDDA | super::disk_type::CDDA) || (m != 0xff && m != 1)
}

fn sync(iop: &mut Iop) -> Result<Ret, IopError> {
    let mode = iop.arg(0);
    let busy = iop.cdvd.busy();
    match mode {
        1 | 17 => v(u32::from(busy)),
        _ if !busy || iop.in_interrupt() => v(0),
        _ => {
            iop.cpu.gpr[2] = 0;
            iop.return_to_caller();
            iop.wait_current(Wait::Native(super::WAIT_SYNC));
            Ok(Ret::Done)
        }
    }
}

fn search_common(iop: &mut Iop, layer: u32) -> Result<Ret, IopError> {
    let (file, name) = (iop.arg(0), iop.arg(1));
    let path = guest_str(iop, "sceCdSearchFile's name", name, 1023)?;
    check(iop, "sceCdSearchFile's sceCdlFILE", file, 36)?;
    if iop.in_interrupt() {
        return v(0);
    }
    let Some(job) = search_job(
        iop,
        &path,
        layer,
        SearchFor::Thread {
            thread: iop.current_thread(),
            out: file,
        },
    ) else {
        return v(0);
    };
    if !iop.cd_start(job, 0, None) {
        return v(0);
    }
    iop.cpu.gpr[2] = 0;
    iop.return_to_caller();
    iop.wait_current(Wait::Native(super::WAIT_SEARCH));
    Ok(Ret::Done)
}

/// A search's command: the walk done now, its reads timed as the drive would take them (the
/// head moved), or `None` when it finds nothing without reading (no disc, the drive busy with a
/// command or a stream).
pub fn search_job(iop: &mut Iop, path: &[u8], layer: u32, waiter: SearchFor) -> Option<Job> {
    if iop.cdvd.busy() || iop.cdvd.stream.run.is_some() {
        return None;
    }
    let fig = iop.cd_figures()?;
    let changed = iop.cdvd.media_changed(0);
    let layer1 = fig.layer1;
    let disc = iop.disc.as_deref_mut()?;
    let mut r = super::iso::Reader::new(disc);
    let found = super::iso::search(&mut r, &mut iop.cdvd.fs, layer1, path, layer, changed);
    let reads = std::mem::take(&mut r.reads);
    let error = if r.failed { err::READ } else { err::NO };
    let mut time = 0u64;
    for lsn in reads {
        let (_, t, h) = super::timing::read(&fig, iop.cdvd.head, lsn, 1);
        iop.cdvd.head = h;
        time += t;
    }
    let found = found.map(|(e, base)| e.to_bytes(base as u32));
    Some(Job::Search {
        time: time.max(1),
        error,
        found,
        waiter,
    })
}

fn disk_ready(iop: &mut Iop) -> Result<Ret, IopError> {
    let mode = iop.arg(0);
    v(ready(iop, mode))
}

/// sceCdDiskReady(mode).
pub fn ready(iop: &Iop, mode: u32) -> u32 {
    let busy = iop.cdvd.busy();
    match mode {
        0 => 2,
        8 => {
            if busy {
                0x80
            } else {
                0x40
            }
        }
        _ if busy => 6,
        _ => 2,
    }
}

/// sceCdTrayReq(mode): 1 done, and the check's answer.
pub fn tray_req(iop: &mut Iop, mode: u32) -> (u32, u32) {
    match mode {
        2 => (1, u32::from(iop.cdvd.media_changed(1))),
        0 | 1 => {
            let open = mode == 0;
            if iop.cdvd.tray_open != open {
                iop.cdvd.tray_open = open;
                iop.cd_media_changed();
            }
            (1, 0)
        }
        _ => (0, 0),
    }
}

fn tray(iop: &mut Iop) -> Result<Ret, IopError> {
    let (mode, chk) = (iop.arg(0), iop.arg(1));
    if mode == 2 {
        check(iop, "sceCdTrayReq's traychk", chk, 4)?;
    }
    let (r, c) = tray_req(iop, mode);
    if mode == 2 {
        iop.bus.set_ram_u32(chk, c);
    }
    v(r)
}

fn bcd(v: u32) -> u8 {
    (((v / 10 % 10) << 4) | (v % 10)) as u8
}

fn pos_to_int(iop: &mut Iop) -> Result<Ret, IopError> {
    let p = iop.arg(0);
    check(iop, "sceCdPosToInt's sceCdlLOCCD", p, 4)?;
    let b = |o: u32| {
        let x = u32::from(byte(iop, p + o));
        10 * (x >> 4) + (x & 15)
    };
    v((75 * (60 * b(0) + b(1)) + b(2)).wrapping_sub(150))
}

fn int_to_pos(iop: &mut Iop) -> Result<Ret, IopError> {
    let (i, p) = (iop.arg(0), iop.arg(1));
    check(iop, "sceCdIntToPos's sceCdlLOCCD", p, 4)?;
    let n = i.wrapping_add(150);
    // minute, second, sector (BCD), track left as it was.
    iop.bus
        .write_ram(p, &[bcd(n / 75 / 60), bcd(n / 75 % 60), bcd(n % 75)]);
    v(p)
}

fn read_clock(iop: &mut Iop) -> Result<Ret, IopError> {
    let p = iop.arg(0);
    check(iop, "sceCdReadClock's sceCdCLOCK", p, 8)?;
    let c = iop.cd_clock();
    iop.bus.write_ram(p, &c);
    v(1)
}

fn ri(iop: &mut Iop) -> Result<Ret, IopError> {
    let (id, st) = (iop.arg(0), iop.arg(1));
    check(iop, "sceCdRI's buffer", id, 8)?;
    check(iop, "sceCdRI's status", st, 4)?;
    iop.bus
        .write_ram(id, &[0x00, 0xac, 0xff, 0xff, 0xff, 0xff, 0xb9, 0x86]);
    iop.bus.set_ram_u32(st, 0);
    v(1)
}

fn callback(iop: &mut Iop) -> Result<Ret, IopError> {
    let f = iop.arg(0);
    if iop.cdvd.busy() {
        return v(0);
    }
    let old = std::mem::replace(&mut iop.cdvd.callback, f);
    v(old)
}

fn status_out(iop: &mut Iop, what: &str) -> Result<Ret, IopError> {
    let st = iop.arg(1);
    check(iop, what, st, 4)?;
    iop.bus.set_ram_u32(st, 0);
    v(1)
}

fn sc(iop: &mut Iop) -> Result<Ret, IopError> {
    let code = iop.arg(0);
    if code == 0xffff_fff7 {
        return v(super::VERSION);
    }
    let msg = format!("sceCdSC({code:#010x}) answers 0");
    iop.cdvd.log_once(&format!("sc{code:x}"), &msg);
    v(0)
}

fn set_timeout(iop: &mut Iop) -> Result<Ret, IopError> {
    let param = iop.arg(0);
    v(u32::from(!iop.cdvd.busy() && (param == 1 || param == 2)))
}

/// sceCdReadDvdDualInfo: (result, on_dual, layer1_start).
pub fn dual_info(iop: &Iop) -> (u32, u32, u32) {
    match iop.disc.as_ref().map(|d| d.media()) {
        Some(crate::disc::Media::Dvd { layer1_start }) if !iop.cdvd.tray_open => (
            1,
            u32::from(layer1_start.is_some()),
            layer1_start.unwrap_or(0) as u32,
        ),
        _ => (1, 0, 0),
    }
}

fn read_dual(iop: &mut Iop) -> Result<Ret, IopError> {
    let (on, l1) = (iop.arg(0), iop.arg(1));
    check(iop, "sceCdReadDvdDualInfo's on_dual", on, 4)?;
    check(iop, "sceCdReadDvdDualInfo's layer1_start", l1, 4)?;
    let (r, d, s) = dual_info(iop);
    iop.bus.set_ram_u32(on, d);
    iop.bus.set_ram_u32(l1, s);
    v(r)
}

/// The TOC sceCdGetToc returns (and cdvdfsv's GETTOC sends): a DVD's 2064 bytes of physical
/// format information, a CD's 1024 bytes of track entries; `None` without a disc.
pub fn toc(iop: &Iop) -> Option<Vec<u8>> {
    let d = iop.disc.as_ref().filter(|_| !iop.cdvd.tray_open)?;
    let n = d.sectors();
    Some(match d.media() {
        crate::disc::Media::Dvd { layer1_start } => {
            // The physical format information as the drive reports it (the fixed bytes are
            // PCSX2's, from discs): book type and disc size, the layers (a dual-layer disc
            // with a parallel track path: 0x21), and the data area's last sector as the drive
            // counts them, from 0x30000 (a dual-layer disc: layer 0's, before layer 1).
            let mut t = vec![0u8; 2064];
            let (head, path, last) = match layer1_start {
                None => ([0x04, 0x02, 0xf2, 0x00, 0x86, 0x72], [0x01, 0x00], n),
                Some(l1) => ([0x24, 0x02, 0xf2, 0x00, 0x41, 0x95], [0x21, 0x10], l1),
            };
            t[..6].copy_from_slice(&head);
            t[12] = 0x01;
            t[13] = 0x02;
            t[14..16].copy_from_slice(&path);
            t[17] = 0x03;
            let end = (last + 0x30000).saturating_sub(1) as u32;
            t[20..24].copy_from_slice(&end.to_be_bytes());
            t
        }
        crate::disc::Media::Cd => {
            // Ten bytes an entry, as the drive reads them from the lead-in's Q channel:
            // CONTROL/ADR, 0, POINT, 0 x4, PMIN, PSEC, PFRAME (BCD). A0: the first track's
            // number, A1: the last's, A2: the lead-out's time; then track n at 20 + 10 n with
            // its INDEX 01's time (LSN + 150). CONTROL 4 is a data track, 0 audio.
            let tracks = d.tracks();
            let ctl = |t: &crate::disc::Track| if t.audio { 0x01 } else { 0x41 };
            let (first, last) = match (tracks.first(), tracks.last()) {
                (Some(a), Some(b)) => (*a, *b),
                _ => return None,
            };
            let mut t = vec![0u8; 1024];
            let mut entry = |at: usize, control: u8, point: u8, time: [u8; 3]| {
                t[at] = control;
                t[at + 2] = point;
                t[at + 7..at + 10].copy_from_slice(&time);
            };
            let num = |n: u8| [bcd(u32::from(n)), 0, 0];
            entry(0, ctl(&first), 0xa0, num(first.number));
            entry(10, ctl(&last), 0xa1, num(last.number));
            entry(20, ctl(&last), 0xa2, msf(d.lead_out() + 150));
            for tr in tracks.iter().filter(|tr| (1..=99).contains(&tr.number)) {
                let at = 20 + 10 * usize::from(tr.number);
                entry(at, ctl(tr), bcd(u32::from(tr.number)), msf(tr.start + 150));
            }
            t
        }
    })
}

/// A sector count as BCD minutes, seconds and frames (75 a second).
fn msf(n: u64) -> [u8; 3] {
    [
        bcd((n / 75 / 60) as u32),
        bcd((n / 75 % 60) as u32),
        bcd((n % 75) as u32),
    ]
}

fn get_toc(iop: &mut Iop) -> Result<Ret, IopError> {
    let p = iop.arg(0);
    let Some(t) = toc(iop) else {
        return v(0);
    };
    check(iop, "sceCdGetToc's buffer", p, t.len() as u64)?;
    iop.bus.write_ram(p, &t);
    v(1)
}

fn st_init(iop: &mut Iop) -> Result<Ret, IopError> {
    let (bufmax, bankmax, buffer) = (iop.arg(0), iop.arg(1), iop.arg(2));
    check(iop, "sceCdStInit's ring", buffer, u64::from(bufmax) * 2048)?;
    v(iop.st_init(bufmax, bankmax, buffer))
}

fn st_read(iop: &mut Iop) -> Result<Ret, IopError> {
    let (n, buf, mode, errp) = (iop.arg(0), iop.arg(1), iop.arg(2), iop.arg(3));
    check(iop, "sceCdStRead's buffer", buf, u64::from(n) * 2048)?;
    check(iop, "sceCdStRead's error", errp, 4)?;
    let block = mode != 0 && !iop.in_interrupt();
    let (data, at, error) = iop.st_take(n, block);
    iop.bus.write_ram(buf, &data);
    iop.bus.set_ram_u32(errp, error);
    let count = (data.len() / 2048) as u32;
    if block && at > iop.cpu.cycles {
        let t = iop.current_thread();
        iop.cdvd.st_waiters.push((t, at, count));
        iop.events
            .schedule(at, crate::events::EventKind::CdvdStream);
        iop.cpu.gpr[2] = count;
        iop.return_to_caller();
        iop.wait_current(Wait::Native(super::WAIT_STREAM));
        return Ok(Ret::Done);
    }
    v(count)
}

/// The table: every index, the functions piney answers at theirs.
const fn table() -> [(u16, &'static str, NativeFn); EXPORTS] {
    let mut t: [(u16, &'static str, NativeFn); EXPORTS] = [(0, RETZERO, retzero); EXPORTS];
    let mut i = 0;
    while i < EXPORTS {
        t[i].0 = i as u16;
        i += 1;
    }
    t[1] = (1, "_retonly", retonly);
    t[2] = (2, "cdvdman_termcall", retzero);
    t[3] = (3, "_retonly", retonly);
    t[4] = (4, "sceCdInit", init);
    t[5] = (5, "sceCdStandby", |iop| {
        simple(iop, Job::Standby, func::STANDBY)
    });
    t[6] = (6, "sceCdRead", read);
    t[7] = (7, "sceCdSeek", |iop| {
        let lsn = iop.arg(0);
        simple(iop, Job::Seek(u64::from(lsn)), func::SEEK)
    });
    t[8] = (8, "sceCdGetError", |iop| v(u32::from(iop.cdvd.error)));
    t[9] = (9, "sceCdGetToc", get_toc);
    t[10] = (10, "sceCdSearchFile", |iop| search_common(iop, 0));
    t[11] = (11, "sceCdSync", sync);
    t[12] = (12, "sceCdGetDiskType", |iop| {
        v(u32::from(iop.cd_disk_type()))
    });
    t[13] = (13, "sceCdDiskReady", disk_ready);
    t[14] = (14, "sceCdTrayReq", tray);
    t[15] = (15, "sceCdStop", |iop| simple(iop, Job::Stop, func::STOP));
    t[16] = (16, "sceCdPosToInt", pos_to_int);
    t[17] = (17, "sceCdIntToPos", int_to_pos);
    t[21] = (21, "sceCdCheckCmd", |iop| v(u32::from(!iop.cdvd.busy())));
    t[22] = (22, "sceCdRI", ri);
    t[24] = (24, "sceCdReadClock", read_clock);
    t[28] = (28, "sceCdStatus", |iop| v(u32::from(iop.cd_status())));
    t[29] = (29, "sceCdApplySCmd", |iop| {
        not_implemented(iop, "sceCdApplySCmd")
    });
    t[37] = (37, "sceCdCallback", callback);
    t[38] = (38, "sceCdPause", |iop| simple(iop, Job::Pause, func::PAUSE));
    t[39] = (39, "sceCdBreak", |iop| {
        iop.cd_break();
        v(1)
    });
    t[40] = (40, "sceCdReadCDDA", read_cdda);
    t[44] = (44, "sceCdGetReadPos", |iop| v(iop.cd_read_pos()));
    t[45] = (45, "sceCdCtrlADout", |iop| {
        status_out(iop, "sceCdCtrlADout's status")
    });
    t[46] = (46, "sceCdNop", |iop| simple(iop, Job::Nop, 0));
    t[47] = (47, "sceGetFsvRbuf", |iop| {
        not_implemented(iop, "sceGetFsvRbuf")
    });
    t[48] = (48, "sceCdstm0Cb", |iop| {
        iop.cdvd.stm[0] = iop.arg(0);
        v(0)
    });
    t[49] = (49, "sceCdstm1Cb", |iop| {
        iop.cdvd.stm[1] = iop.arg(0);
        v(0)
    });
    t[50] = (50, "sceCdSC", sc);
    t[51] = (51, "sceCdRC", read_clock);
    t[54] = (54, "sceCdApplyNCmd", |iop| {
        not_implemented(iop, "sceCdApplyNCmd")
    });
    t[56] = (56, "sceCdStInit", st_init);
    t[57] = (57, "sceCdStRead", st_read);
    t[58] = (58, "sceCdStSeek", |iop| {
        let lsn = iop.arg(0);
        v(iop.st_start(lsn))
    });
    t[59] = (59, "sceCdStStart", |iop| {
        let (lsn, mode) = (iop.arg(0), iop.arg(1));
        check(iop, "sceCdStStart's sceCdRMode", mode, 4)?;
        v(iop.st_start(lsn))
    });
    t[60] = (60, "sceCdStStat", |iop| v(iop.st_stat()));
    t[61] = (61, "sceCdStStop", |iop| v(iop.st_stop()));
    t[62] = (62, "sceCdRead0", |iop| not_implemented(iop, "sceCdRead0"));
    t[63] = (63, "sceCdRV", |iop| not_implemented(iop, "sceCdRV"));
    t[64] = (64, "sceCdRM", |iop| not_implemented(iop, "sceCdRM"));
    t[66] = (66, "sceCdReadChain", |iop| {
        not_implemented(iop, "sceCdReadChain")
    });
    t[67] = (67, "sceCdStPause", |iop| v(iop.st_pause(true)));
    t[68] = (68, "sceCdStResume", |iop| v(iop.st_pause(false)));
    t[74] = (74, "sceCdPowerOff", |iop| {
        not_implemented(iop, "sceCdPowerOff")
    });
    t[75] = (75, "sceCdMmode", |iop| {
        iop.cdvd.mmode = iop.arg(0) as u8;
        v(1)
    });
    t[77] = (77, "sceCdStSeekF", |iop| {
        let lsn = iop.arg(0);
        v(iop.st_start(lsn))
    });
    t[78] = (78, "sceCdPOffCallback", |iop| {
        let new = (iop.arg(0), iop.arg(1));
        let old = std::mem::replace(&mut iop.cdvd.poff, new);
        v(old.0)
    });
    t[81] = (81, "sceCdSetTimeout", set_timeout);
    t[83] = (83, "sceCdReadDvdDualInfo", read_dual);
    t[84] = (84, "sceCdLayerSearchFile", |iop| {
        let layer = iop.arg(2);
        search_common(iop, layer)
    });
    t[112] = (112, "sceCdApplySCmd2", |iop| {
        not_implemented(iop, "sceCdApplySCmd2")
    });
    t[114] = (114, "sceCdRE", read);
    t
}

static TABLE: [(u16, &str, NativeFn); EXPORTS] = table();

/// cdvdman.
pub static CDVDMAN: LibDef = LibDef {
    name: "cdvdman",
    version: 0x0101,
    funcs: &TABLE,
};
