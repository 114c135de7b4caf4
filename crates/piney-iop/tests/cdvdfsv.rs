//! CDVDFSV's RPC servers driven as the EE's libcdvd (ps2sdk `ee/rpc/cdvd/src`) drives them:
//! hand-built argument blocks copied into a server's receive buffer, the call made as sifcmd
//! makes it for a native server, and what the IOP sends over SIF0 (data, then the reply and its
//! packet) delivered into `iop.ee_ram` by the EE DMA stand-in of `sif_support`.

mod cdvd_support;
mod sif_support;

use piney_iop::disc::{Disc, Media, MemoryDisc};
use piney_iop::kernel::sifcmd::PendingCall;
use piney_iop::modules::cdvd::cdvdfsv::{SID_DISKREADY, SID_INIT, SID_NCMD, SID_SCMD, SID_SEARCH};
use piney_iop::modules::native_call;
use piney_iop::{Iop, IopError};

const EE_RAM: usize = 1 << 20;
/// The EE's reply buffer, the call's packet, and the test's buffers in EE RAM.
const RECV: u32 = 0x1000;
const PKT: u32 = 0x2000;
const FP: u32 = 0x3000;
const EDGES: u32 = 0x4000;
const POS: u32 = 0x4100;
const TOC: u32 = 0x5000;
const BUF: u32 = 0x1_0010;

fn w(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes(b[off..off + 4].try_into().unwrap())
}

fn words(ws: &[u32]) -> Vec<u8> {
    ws.iter().flat_map(|w| w.to_le_bytes()).collect()
}

struct Rig {
    iop: Iop,
    sif0: sif_support::Sif0Sink,
    /// The sectors of the disc, for the expectations.
    image: Vec<u8>,
}

impl Rig {
    fn new(disc: Option<MemoryDisc>) -> Rig {
        let mut iop = Iop::new();
        iop.ee_ram = vec![0; EE_RAM].into();
        let image = disc.as_ref().map(|d| d.data.clone()).unwrap_or_default();
        iop.insert_disc(disc.map(|d| Box::new(d) as Box<dyn Disc>));
        Rig {
            iop,
            sif0: sif_support::Sif0Sink::default(),
            image,
        }
    }

    fn dvd() -> Rig {
        Rig::new(Some(MemoryDisc {
            data: cdvd_support::make_iso("fsv"),
            media: Media::Dvd { layer1_start: None },
        }))
    }

    fn ee(&self, at: u32, len: usize) -> &[u8] {
        &self.iop.ee_ram[at as usize..at as usize + len]
    }

    fn fill(&mut self, at: u32, len: usize, v: u8) {
        self.iop.ee_ram[at as usize..at as usize + len].fill(v);
    }

    /// Make the call; the error that stops the run, if any.
    fn start(&mut self, sid: u32, fno: u32, args: &[u8], rsize: u32) -> Result<(), IopError> {
        let sd = self
            .iop
            .modules
            .native_server_data(sid)
            .unwrap_or_else(|| panic!("server {sid:#x} is not serving"));
        let buf = self.iop.bus.ram_u32(sd + 8);
        self.iop.bus.write_ram(buf, args);
        self.fill(RECV, 64, 0xee);
        self.fill(PKT, 64, 0xff);
        let call = PendingCall {
            sd,
            rec_id: 0,
            pkt_addr: PKT,
            rpc_id: 1,
            client: 0x7000,
            recvbuf: RECV,
            rsize,
            rmode: 0,
        };
        native_call(&mut self.iop, call, fno, args.len() as u32)
    }

    /// Run until the reply's packet has arrived; the cycles it took.
    fn wait(&mut self) -> u64 {
        let t0 = self.iop.cycles();
        for _ in 0..20_000 {
            let t = self.iop.cycles() + 5000;
            self.iop.run_until(t).unwrap();
            self.sif0.pump(&mut self.iop);
            let s = &self.iop.kernel.sifman;
            if w(self.ee(PKT, 4), 0) == 64
                && s.running.is_none()
                && s.waiting.is_empty()
                && self.iop.bus.hw.sif.fifo0.is_empty()
            {
                return self.iop.cycles() - t0;
            }
        }
        panic!("no reply");
    }

    /// A call and its reply (`rsize` bytes), with the cycles it took.
    fn call_timed(&mut self, sid: u32, fno: u32, args: &[u8], rsize: u32) -> (Vec<u8>, u64) {
        self.start(sid, fno, args, rsize)
            .unwrap_or_else(|e| panic!("{sid:#x} function {fno}: {e}"));
        let t = self.wait();
        (self.ee(RECV, rsize as usize).to_vec(), t)
    }

    fn call(&mut self, sid: u32, fno: u32, args: &[u8], rsize: u32) -> Vec<u8> {
        self.call_timed(sid, fno, args, rsize).0
    }

    fn scmd(&mut self, fno: u32, args: &[u8], rsize: u32) -> Vec<u8> {
        self.call(SID_SCMD, fno, args, rsize)
    }

    /// The 0x12c search packet: sceCdlFILE (garbage), attributes, path, EE dest, layer.
    fn search(&mut self, path: &str, layer: u32) -> (u32, Vec<u8>) {
        let mut p = vec![0x5a; 36];
        let mut name = path.as_bytes().to_vec();
        name.resize(256, 0);
        p.extend_from_slice(&name);
        p.extend_from_slice(&words(&[FP, layer]));
        assert_eq!(p.len(), 0x12c);
        self.fill(FP, 64, 0xcc);
        let r = self.call(SID_SEARCH, 0, &p, 4);
        (w(&r, 0), self.ee(FP, 40).to_vec())
    }

    /// sceCdRead's READ: the edge block and the read position come back.
    fn read(&mut self, lsn: u32, sectors: u32, buf: u32) -> u64 {
        let args = words(&[lsn, sectors, buf, 0, EDGES, POS]);
        self.fill(EDGES, 144, 0x11);
        self.fill(POS, 16, 0x22);
        self.call_timed(SID_NCMD, 1, &args, 0).1
    }

    /// The sectors of file `lsn`.
    fn sectors(&self, lsn: u32, n: usize) -> &[u8] {
        &self.image[lsn as usize * 2048..lsn as usize * 2048 + n * 2048]
    }
}

#[test]
fn init_reports_the_versions() {
    let mut r = Rig::dvd();
    let b = r.call(SID_INIT, 0, &words(&[0]), 16);
    // { result 1, cdvdfsv 2.38, cdvdman 2.38, debug mode 0 }: above 0x104, the 64-byte edges.
    assert_eq!(b, words(&[1, 0x226, 0x226, 0]));
    assert_eq!(w(&r.call(SID_DISKREADY, 0, &words(&[0]), 4), 0), 2);
}

#[test]
fn s_commands() {
    let mut r = Rig::dvd();
    assert_eq!(w(&r.scmd(3, &[], 4), 0), 0x14, "SCECdPS2DVD");
    assert_eq!(w(&r.scmd(4, &[], 4), 0), 0, "no error");
    assert_eq!(w(&r.scmd(12, &[], 4), 0), 0x0a, "paused");
    let c = r.scmd(1, &[], 16);
    // { 1, stat 0, 00:00:00, pad, 01/01/00 } at the IOP's first second.
    assert_eq!(c[..12], [1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0]);
    assert_eq!(r.scmd(39, &[], 12), words(&[1, 0, 0]), "single layer");
    assert_eq!(
        r.scmd(5, &words(&[2]), 8),
        words(&[1, 1]),
        "the disc is new"
    );
    assert_eq!(r.scmd(5, &words(&[2]), 8), words(&[1, 0]));
    assert_eq!(w(&r.scmd(34, &words(&[2]), 4), 0), 1, "MMODE");
    assert_eq!(w(&r.scmd(35, &words(&[50]), 4), 0), 0, "SETTHREADPRI");
    assert_eq!(w(&r.scmd(35, &words(&[8]), 4), 0), -403i32 as u32);
    assert_eq!(w(&r.scmd(37, &words(&[1, 1000]), 4), 0), 1, "SETTIMEOUT");
    assert_eq!(w(&r.scmd(0x16, &[], 4), 0), 1, "BREAK");
    assert_eq!(w(&r.scmd(4, &[], 4), 0), 1, "SCECdErABRT after a break");
    assert_eq!(w(&r.scmd(13, &[], 4), 0), 0, "an OSD-only number answers 0");
}

#[test]
fn search_file_fills_the_ees_file_entry() {
    let mut r = Rig::dvd();
    let (found, fp) = r.search("\\DATA\\FILE.BIN;1", 0);
    assert_eq!(found, 1);
    let lsn = w(&fp, 0);
    // The extent holds the file (independent of piney: the image's own bytes).
    assert_eq!(&r.sectors(lsn, 3)[..5000], &cdvd_support::file_bin()[..]);
    assert_eq!(w(&fp, 4), 5000);
    assert_eq!(&fp[8..24], b"FILE.BIN;1\0\0\0\0\0\0");
    // -, 9 s, 8 min, 7 h, 6th, May, 2004.
    assert_eq!(fp[24..32], [0, 9, 8, 7, 6, 5, 0xd4, 0x07]);
    assert_eq!(w(&fp, 32), 0, "ISO flags: a file");
    // 36 bytes sent, as SIF DMA sends them: 3 quadwords of the packet (the path's first 12
    // bytes after the entry).
    let more = r.ee(FP, 64).to_vec();
    assert_eq!(&more[36..48], b"\\DATA\\FILE.B");
    assert_eq!(more[48..52], [0xcc; 4]);
    // Not found: the packet's own first 36 bytes go back.
    let (found, fp) = r.search("\\DATA\\file.bin;1", 0);
    assert_eq!(found, 0);
    assert_eq!(fp[..36], [0x5a; 36]);
    // The oldest packet (0x124): no attributes word, 32 bytes back.
    let mut p = vec![0x5a; 32];
    let mut name = b"\\README.TXT;1".to_vec();
    name.resize(256, 0);
    p.extend_from_slice(&name);
    p.extend_from_slice(&words(&[FP]));
    r.fill(FP, 64, 0xcc);
    assert_eq!(w(&r.call(SID_SEARCH, 0, &p, 4), 0), 1);
    let fp = r.ee(FP, 40).to_vec();
    assert_eq!(w(&fp, 4), 8);
    assert_eq!(&r.sectors(w(&fp, 0), 1)[..8], b"read me\n");
    assert_eq!(fp[32..36], [0xcc; 4], "32 bytes sent");
}

#[test]
fn search_on_layer_1_adds_its_start() {
    let one = cdvd_support::make_iso("fsv-dual");
    let l1 = (one.len() / 2048) as u32;
    let mut data = one.clone();
    data.extend_from_slice(&one);
    let mut r = Rig::new(Some(MemoryDisc {
        data,
        media: Media::Dvd {
            layer1_start: Some(u64::from(l1)),
        },
    }));
    assert_eq!(r.scmd(39, &[], 12), words(&[1, 1, l1]));
    let (_, fp0) = r.search("\\README.TXT;1", 0);
    let (found, fp1) = r.search("\\README.TXT;1", 1);
    assert_eq!(found, 1);
    assert_eq!(w(&fp1, 0), w(&fp0, 0) + l1);
    assert_eq!(&r.sectors(w(&fp1, 0), 1)[..8], b"read me\n");
}

#[test]
fn read_into_an_unaligned_ee_buffer() {
    let mut r = Rig::dvd();
    let (_, fp) = r.search("\\DATA\\FILE.BIN;1", 0);
    let lsn = w(&fp, 0);
    r.fill(BUF & !63, 3 * 2048 + 128, 0xee);
    // The head has moved to the directory's sector after the search; the read is within a
    // fast seek of it: at least the transfer of 3 sectors (3 * 13,627.7 cycles).
    let took = r.read(lsn, 3, BUF);
    assert!(took >= 40_883, "{took}");
    let want = r.sectors(lsn, 3).to_vec();
    // BUF is 16 past a 64-byte boundary: the head is the 48 bytes up to 0x10040, the tail the
    // 16 after 0x11800 (0x10010 + 6144 = 0x11810).
    let e = r.ee(EDGES, 144).to_vec();
    assert_eq!(
        (w(&e, 0), w(&e, 4), w(&e, 8), w(&e, 12)),
        (48, 16, BUF, 0x1_1800)
    );
    assert_eq!(e[16..64], want[..48]);
    assert_eq!(e[80..96], want[6128..6144]);
    // The middle went straight to the buffer; the edges' bytes did not.
    assert_eq!(r.ee(0x1_0040, 6080), &want[48..6128]);
    assert_eq!(r.ee(BUF, 48), &[0xee; 48][..]);
    assert_eq!(r.ee(0x1_1800, 16), &[0xee; 16][..]);
    assert_eq!(w(r.ee(POS, 4), 0), 6144, "curReadPos");
    // What the EE's _CdAlignReadBuffer then copies makes the whole buffer.
    let (h, t) = (e[16..64].to_vec(), e[80..96].to_vec());
    r.iop.ee_ram[BUF as usize..BUF as usize + 48].copy_from_slice(&h);
    r.iop.ee_ram[0x1_1800..0x1_1810].copy_from_slice(&t);
    assert_eq!(r.ee(BUF, 6144), &want[..]);
    assert_eq!(w(&r.scmd(4, &[], 4), 0), 0);
    // An aligned buffer: no edges.
    r.read(lsn, 1, 0x2_0000);
    let e = r.ee(EDGES, 16).to_vec();
    assert_eq!((w(&e, 0), w(&e, 4)), (0, 0));
    assert_eq!(r.ee(0x2_0000, 2048), &want[..2048]);
}

#[test]
fn n_commands_answer_when_the_drive_is_done() {
    let mut r = Rig::dvd();
    assert_eq!(w(&r.call(SID_NCMD, 14, &[], 4), 0), 2, "DISKREADY");
    // SEEK from sector 0 to 1000: a fast seek, 30 ms (no rotational wait).
    let (b, took) = r.call_timed(SID_NCMD, 5, &words(&[1000]), 4);
    assert_eq!(w(&b, 0), 1);
    assert!((1_105_920..1_105_920 + 20_000).contains(&took), "{took}");
    let (b, took) = r.call_timed(SID_NCMD, 7, &[], 4);
    assert_eq!(w(&b, 0), 1, "STOP");
    assert!((6_144_000..6_144_000 + 20_000).contains(&took), "{took}");
    assert_eq!(w(&r.scmd(12, &[], 4), 0), 0, "stopped");
    assert_eq!(w(&r.call(SID_NCMD, 6, &[], 4), 0), 1, "STANDBY");
    assert_eq!(w(&r.scmd(12, &[], 4), 0), 0x0a, "spinning again");
    assert_eq!(w(&r.call(SID_NCMD, 8, &[], 4), 0), 1, "PAUSE");
    // GETTOC: 2064 bytes to the EE, { 1, is DVD }.
    r.fill(TOC, 0x810, 0x99);
    assert_eq!(r.call(SID_NCMD, 4, &words(&[TOC]), 8), words(&[1, 1]));
    assert_eq!(r.ee(TOC, 4), &[0x04, 0x02, 0xf2, 0x00][..]);
    assert_eq!(
        w(&r.call(SID_NCMD, 3, &[], 4), 0),
        0,
        "DVDREAD: not this variant's"
    );
}

#[test]
fn no_disc() {
    let mut r = Rig::new(None);
    assert_eq!(w(&r.scmd(3, &[], 4), 0), 0, "SCECdNODISC");
    assert_eq!(w(&r.scmd(12, &[], 4), 0), 0, "stopped");
    assert_eq!(r.search("\\SYSTEM.CNF;1", 0).0, 0);
    r.read(20, 1, BUF);
    assert_eq!(r.ee(EDGES, 16), &[0; 16][..], "an empty edge block");
    assert_eq!(w(r.ee(POS, 4), 0), 0);
    assert_eq!(w(&r.scmd(4, &[], 4), 0), 0xfe, "SCECdErREADCFR");
    // SEEK without a disc: the drive says SCECdErNODISC.
    assert_eq!(w(&r.call(SID_NCMD, 5, &words(&[10]), 4), 0), 1);
    assert_eq!(w(&r.scmd(4, &[], 4), 0), 0x12);
    assert_eq!(w(&r.call(SID_DISKREADY, 0, &words(&[1]), 4), 0), 2);
}

#[test]
fn reads_past_the_end() {
    let mut r = Rig::dvd();
    let n = (r.image.len() / 2048) as u32;
    r.read(n + 5, 1, BUF);
    assert_eq!(w(&r.scmd(4, &[], 4), 0), 0x30, "SCECdErREAD");
    assert_eq!(w(r.ee(POS, 4), 0), 0);
    // Off the end: the sectors up to it.
    r.fill(0x2_0000, 4 * 2048, 0xee);
    r.read(n - 1, 4, 0x2_0000);
    assert_eq!(w(&r.scmd(4, &[], 4), 0), 0);
    assert_eq!(w(r.ee(POS, 4), 0), 2048);
    assert_eq!(r.ee(0x2_0000, 2048), r.sectors(n - 1, 1));
    assert_eq!(r.ee(0x2_0800, 2048), &[0xee; 2048][..]);
}

#[test]
fn garbage_and_truncated_discs() {
    // No volume descriptor: the search reads the PVD, finds no CD001, answers 0; no error.
    let garbage: Vec<u8> = (0..64 * 2048u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    let mut r = Rig::new(Some(MemoryDisc {
        data: garbage,
        media: Media::Dvd { layer1_start: None },
    }));
    assert_eq!(r.search("\\SYSTEM.CNF;1", 0).0, 0);
    assert_eq!(w(&r.scmd(4, &[], 4), 0), 0);
    // A PVD whose path table and directories point anywhere: still 0, no panic.
    let mut data = cdvd_support::make_iso("garbled");
    for (i, b) in data[16 * 2048 + 6..16 * 2048 + 2048].iter_mut().enumerate() {
        *b = (i * 37) as u8;
    }
    let mut r = Rig::new(Some(MemoryDisc {
        data,
        media: Media::Dvd { layer1_start: None },
    }));
    assert_eq!(r.search("\\DATA\\FILE.BIN;1", 0).0, 0);
    // Truncated before its volume descriptor: the PVD cannot be read, SCECdErREAD.
    let mut r = Rig::new(Some(MemoryDisc {
        data: vec![0; 8 * 2048],
        media: Media::Cd,
    }));
    assert_eq!(r.search("\\SYSTEM.CNF;1", 0).0, 0);
    assert_eq!(w(&r.scmd(4, &[], 4), 0), 0x30);
    assert_eq!(w(&r.scmd(3, &[], 4), 0), 0x12, "SCECdPS2CD");
}

#[test]
fn bad_ee_addresses_stop_the_run_naming_them() {
    let mut r = Rig::dvd();
    let args = words(&[16, 4, 0x01ff_f000, 0, EDGES, POS]);
    let e = r.start(SID_NCMD, 1, &args, 0).unwrap_err().to_string();
    assert!(e.contains("READ's buffer at EE address 0x01fff000"), "{e}");
    assert!(e.contains("outside EE RAM"), "{e}");
    let e = r.start(SID_NCMD, 15, &[0; 24], 4).unwrap_err().to_string();
    assert!(
        e.contains("READCHAIN") && e.contains("not implemented"),
        "{e}"
    );
}

#[test]
fn calls_behind_a_read_wait_their_turn() {
    let mut r = Rig::dvd();
    // A READ that waits for the drive, then a DISKREADY on the same thread: answered after.
    let (_, fp) = r.search("\\DATA\\BIG.DAT;1", 0);
    let args = words(&[w(&fp, 0), 16, 0x2_0000, 0, EDGES, POS]);
    r.start(SID_NCMD, 1, &args, 0).unwrap();
    assert!(r.iop.cdvd.busy());
    r.start(SID_NCMD, 14, &[], 4).unwrap();
    r.wait();
    // The DISKREADY answered (its reply is 2) once the read's data had all arrived.
    assert!(!r.iop.cdvd.busy());
    assert_eq!(w(r.ee(POS, 4), 0), 16 * 2048);
    assert_eq!(w(r.ee(RECV, 4), 0), 2);
}

/// FILEIO's block of a path call: the words, then the name (256 bytes).
fn path_args(ws: &[u32], path: &str) -> Vec<u8> {
    let mut b = words(ws);
    let mut p = path.as_bytes().to_vec();
    p.resize(256, 0);
    b.extend_from_slice(&p);
    b
}

#[test]
fn the_ee_reads_cdrom0_through_fileio() {
    use piney_iop::modules::fileio::{FILEIO_SID, fno};
    const READ_DATA: u32 = 0x6000;
    let mut r = Rig::dvd();
    let fio = |r: &mut Rig, f: u32, args: &[u8]| w(&r.call(FILEIO_SID, f, args, 4), 0) as i32;
    let fd = fio(
        &mut r,
        fno::OPEN,
        &path_args(&[1], "cdrom0:\\DATA\\FILE.BIN;1"),
    );
    assert!(fd >= 3, "{fd}");
    // 5000 bytes to an aligned EE buffer: the 16-byte-aligned 4992 straight, the last 8 in the
    // read_data block's second part, as ps2sdk's fioRead takes them.
    r.fill(0x2_0000, 5008, 0xee);
    r.fill(READ_DATA, 48, 0xee);
    let n = fio(
        &mut r,
        fno::READ,
        &words(&[fd as u32, 0x2_0000, 5000, READ_DATA]),
    );
    assert_eq!(n, 5000);
    let rd = r.ee(READ_DATA, 48).to_vec();
    assert_eq!((w(&rd, 0), w(&rd, 4), w(&rd, 12)), (0, 8, 0x2_0000 + 4992));
    let want = cdvd_support::file_bin();
    assert_eq!(r.ee(0x2_0000, 4992), &want[..4992]);
    assert_eq!(rd[32..40], want[4992..]);
    assert_eq!(fio(&mut r, fno::LSEEK, &words(&[fd as u32, 0, 2])), 5000);
    assert_eq!(fio(&mut r, fno::CLOSE, &words(&[fd as u32])), 0);
    // A name without its version finds the file; a lower-case one does not.
    let fd = fio(&mut r, fno::OPEN, &path_args(&[1], "cdrom0:\\README.TXT"));
    assert!(fd >= 3, "{fd}");
    assert_eq!(fio(&mut r, fno::CLOSE, &words(&[fd as u32])), 0);
    assert_eq!(
        fio(&mut r, fno::OPEN, &path_args(&[1], "cdrom0:\\readme.txt;1")),
        -2
    );
    // No disc: nothing is found.
    r.iop.insert_disc(None);
    assert_eq!(
        fio(&mut r, fno::OPEN, &path_args(&[1], "cdrom0:\\README.TXT;1")),
        -2
    );
}

#[test]
fn the_ee_streams() {
    let mut r = Rig::dvd();
    let (_, fp) = r.search("\\DATA\\BIG.DAT;1", 0);
    let lsn = w(&fp, 0);
    let st = |r: &mut Rig, a: u32, n: u32, buf: u32, cmd: u32| {
        w(&r.call(SID_NCMD, 9, &words(&[a, n, buf, cmd, 0]), 4), 0)
    };
    // INIT: 64 sectors in 4 banks, the ring in IOP RAM.
    assert_eq!(st(&mut r, 64, 4, 0x10_0000, 5), 1);
    assert_eq!(st(&mut r, lsn, 0, 0, 1), 1, "START");
    assert_eq!(
        st(&mut r, 0, 8, 0x2_0000, 2),
        0,
        "nothing yet: 0 sectors, no error"
    );
    // 100 ms later the drive has stopped with 3 banks full.
    let t = r.iop.cycles() + piney_iop::IOP_CLOCK_HZ / 10;
    r.iop.run_until(t).unwrap();
    assert_eq!(st(&mut r, 0, 0, 0, 6), 48, "STAT");
    r.fill(0x2_0000, 40 * 2048, 0xee);
    r.start(SID_NCMD, 9, &words(&[0, 40, 0x2_0000, 2, 0]), 4)
        .unwrap();
    // At once (the test's stand-in for the EE's DMA takes its time): one bank part-read, the
    // drive going on half a turn later.
    assert_eq!(r.iop.st_stat(), 16, "one bank part-read");
    r.wait();
    assert_eq!(w(r.ee(RECV, 4), 0), 40, "READ");
    let want = cdvd_support::big_dat();
    assert_eq!(r.ee(0x2_0000, 40 * 2048), &want[..40 * 2048]);
    // A read of the drive's own is refused while the stream runs.
    let args = words(&[lsn, 1, 0x3_0000, 0, EDGES, POS]);
    r.start(SID_NCMD, 1, &args, 0).unwrap();
    r.wait();
    assert_eq!(w(r.ee(POS, 4), 0), 0);
    assert_eq!(st(&mut r, 0, 0, 0, 3), 1, "STOP");
    assert_eq!(st(&mut r, 0, 8, 0x2_0000, 2), 0, "stopped");
}

/// A CD of a 16-sector data track and a 100-sector audio track 2 (byte i of sector s is
/// `s * 7 + i`).
struct AudioTrackCd;

impl Disc for AudioTrackCd {
    fn sectors(&self) -> u64 {
        16
    }
    fn media(&self) -> Media {
        Media::Cd
    }
    fn read(&mut self, _lba: u64, buf: &mut [u8]) -> Result<(), String> {
        buf.fill(0);
        Ok(())
    }
    fn tracks(&self) -> Vec<piney_iop::disc::Track> {
        [(1, false, 0), (2, true, 16)]
            .map(|(number, audio, start)| piney_iop::disc::Track {
                number,
                audio,
                start,
            })
            .to_vec()
    }
    fn lead_out(&self) -> u64 {
        116
    }
    fn read_cdda(&mut self, lsn: u64, buf: &mut [u8]) -> Result<(), String> {
        for (k, s) in buf.chunks_mut(2352).enumerate() {
            let lsn = lsn + k as u64;
            for (i, b) in s.iter_mut().enumerate() {
                *b = (lsn as usize * 7 + i) as u8;
            }
        }
        Ok(())
    }
}

/// libcdvd's sceCdReadCDDA (ps2sdk ee/rpc/cdvd/src/ncmd.c): CDDAREAD with the READ packet's
/// layout; datapattern 1 gives 2368 bytes a sector (the sector, Q, 4 zeros).
#[test]
fn cdda_read_of_an_audio_track() {
    let mut r = Rig::new(None);
    r.iop.insert_disc(Some(Box::new(AudioTrackCd)));
    r.fill(0x2_0000, 3 * 2368 + 64, 0xee);
    r.fill(EDGES, 144, 0x11);
    r.fill(POS, 16, 0x22);
    let args = words(&[20, 3, 0x2_0000, 1 << 16, EDGES, POS]);
    let reply = r.call(SID_NCMD, 2, &args, 4);
    assert_eq!(w(&reply, 0), 3 * 2368);
    assert_eq!(w(r.ee(POS, 4), 0), 3 * 2368, "curReadPos");
    for k in 0..3u32 {
        let s = r.ee(0x2_0000 + k * 2368, 2368).to_vec();
        let lsn = 20 + k as usize;
        assert!(
            s[..2352]
                .iter()
                .enumerate()
                .all(|(i, &b)| b == (lsn * 7 + i) as u8),
            "sector {lsn}"
        );
        // Q: audio track 2, INDEX 01, 4 + k sectors in; then 4 zero bytes.
        assert_eq!(
            s[2352..2358],
            [0x01, 0x02, 0x01, 0x00, 0x00, 0x04 + k as u8]
        );
        assert_eq!(s[2364..2368], [0; 4]);
    }
    assert_eq!(r.ee(0x2_0000 + 3 * 2368, 4), &[0xee; 4][..]);
    // A CD without audio tracks (SCECdPS2CD): refused at once, nothing sent.
    let mut r = Rig::new(Some(MemoryDisc {
        data: vec![0; 64 * 2048],
        media: Media::Cd,
    }));
    r.fill(0x2_0000, 64, 0xee);
    let reply = r.call(SID_NCMD, 2, &args, 4);
    assert_eq!(w(&reply, 0), 0);
    assert_eq!(r.ee(0x2_0000, 4), &[0xee; 4][..]);
}
