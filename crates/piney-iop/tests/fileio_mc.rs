//! The `mc` device of the native FILEIO (what ps2sdk's `fioOpen("mc0:/DIR/FILE")` reaches),
//! answered by the native MCSERV's cards and MCMAN's state: FILEIO and MCSERV called the way
//! the EE's SIF RPC calls reach them (the argument block in the server's receive buffer, then
//! `native_call`), the EE's RAM in `iop.ee_ram`, and what the IOP sends over SIF0 delivered
//! into that RAM by a small stand-in for the EE's DMA channel 5 (as tests/mcserv.rs does).
//!
//! Expected values come from ps2sdk's MCMAN (`mcdev.c`: McDetectCard2 then the MCMAN function,
//! `mcman_ioerrcode`; `ps2mc_fio.c`: the stat and dirent fields) and FILEIO's argument blocks,
//! worked out by hand.

mod sif_support;
use std::fs;
use std::path::{Path, PathBuf};

use piney_iop::kernel::sifcmd::PendingCall;
use piney_iop::modules::fileio::{FILEIO_SID, fno};
use piney_iop::modules::mcserv::{self, DEFAULT_BASE_TIME, MCSERV_SID, McServ};
use piney_iop::modules::{load_native, native_call};
use piney_iop::{IOP_CLOCK_HZ, Iop};
use piney_memcard::{Card, OpenFlags, Timestamp};

const EE_RAM: usize = 1 << 20;
/// Where the replies, their packets, stats and dirents land in EE RAM.
const RECV: u32 = 0x100;
const PKT: u32 = 0x200;
const STAT: u32 = 0x6000;
const DIRENT: u32 = 0x7000;
const READ_DATA: u32 = 0x5000;

// ioman's errno values (ps2sdk common/include/errno.h).
const ENOENT: i32 = 2;
const ENXIO: i32 = 6;
const EBADF: i32 = 9;
const EACCES: i32 = 13;
const ENODEV: i32 = 19;
const EINVAL: i32 = 22;
const EMFILE: i32 = 24;
const EFORMAT: i32 = 47;

const O_RDONLY: u32 = 1;
const O_WRONLY: u32 = 2;
const O_CREAT: u32 = 0x200;

/// 2000-01-01 00:00:00 (the card time of IOP cycle 0) as io_stat_t's 8 bytes.
const T0: [u8; 8] = [0, 0, 0, 0, 1, 1, 0xd0, 0x07];
/// 00:01:30 the same day.
const T90: [u8; 8] = [0, 30, 1, 0, 1, 1, 0xd0, 0x07];

fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("piney-iop-fileio-mc")
        .join(name);
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

fn w(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes(b[off..off + 4].try_into().unwrap())
}

fn pattern(i: usize) -> u8 {
    (i * 37 + (i >> 3)) as u8
}

/// A path argument (NUL-terminated), after `lead` words.
fn path_args(lead: &[u32], path: &str) -> Vec<u8> {
    let mut b: Vec<u8> = lead.iter().flat_map(|x| x.to_le_bytes()).collect();
    b.extend_from_slice(path.as_bytes());
    b.push(0);
    b.resize(b.len().div_ceil(4) * 4, 0);
    b
}

fn words(ws: &[u32]) -> Vec<u8> {
    ws.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// MCSERV's name block (1044 bytes): port, slot, flags, maxent, table, name.
fn n_block(port: i32, flags: u32, name: &str) -> Vec<u8> {
    let mut b = words(&[port as u32, 0, flags, 0, 0]);
    b.extend_from_slice(name.as_bytes());
    b.resize(1044, 0);
    b
}

/// MCSERV's descriptor block (48 bytes): fd, port, slot, ...
fn d_block(fd: i32, port: i32) -> Vec<u8> {
    let mut b = words(&[fd as u32, port as u32]);
    b.resize(48, 0);
    b
}

/// An IOP with FILEIO (its boot set), the card server added, and the EE's RAM.
struct Rig {
    iop: Iop,
    /// The EE DMA stand-in for SIF0.
    sif0: sif_support::Sif0Sink,
}

impl Rig {
    fn new(mc: McServ) -> Rig {
        let mut iop = Iop::new();
        iop.ee_ram = vec![0; EE_RAM].into();
        iop.add_server(Box::new(mc));
        Rig {
            iop,
            sif0: sif_support::Sif0Sink::default(),
        }
    }

    /// With the card in port 0 and rom0:MCMAN and rom0:MCSERV loaded.
    fn loaded(card: Box<dyn Card>) -> Rig {
        let mut r = Rig::new(McServ::new(Some(card), None));
        r.load("rom0:MCMAN");
        r.load("rom0:MCSERV");
        r
    }

    fn load(&mut self, path: &str) {
        assert!(
            load_native(&mut self.iop, path).is_some_and(|id| id >= 0),
            "{path}"
        );
    }

    /// One RPC call to native server `sid`: the reply's first word.
    fn try_rpc(&mut self, sid: u32, f: u32, args: &[u8]) -> Result<i32, String> {
        let sd = self
            .iop
            .modules
            .native_server_data(sid)
            .expect("the server is loaded");
        let buf = self.iop.bus.ram_u32(sd + 8);
        self.iop.bus.write_ram(buf, args);
        self.iop.ee_ram[RECV as usize..RECV as usize + 4].fill(0xee);
        let call = PendingCall {
            sd,
            rec_id: 0,
            pkt_addr: PKT,
            rpc_id: 0,
            client: 0,
            recvbuf: RECV,
            rsize: 4,
            rmode: 0,
        };
        native_call(&mut self.iop, call, f, args.len() as u32).map_err(|e| e.to_string())?;
        self.deliver();
        Ok(w(&self.iop.ee_ram, RECV as usize) as i32)
    }

    fn fio(&mut self, f: u32, args: &[u8]) -> i32 {
        self.try_rpc(FILEIO_SID, f, args)
            .unwrap_or_else(|e| panic!("FILEIO function {f}: {e}"))
    }

    fn mcserv(&mut self, f: u32, args: &[u8]) -> i32 {
        self.try_rpc(MCSERV_SID, f, args)
            .unwrap_or_else(|e| panic!("MCSERV function {f:#x}: {e}"))
    }

    fn open(&mut self, path: &str, mode: u32) -> i32 {
        self.fio(fno::OPEN, &path_args(&[mode], path))
    }
    fn close(&mut self, fd: i32) -> i32 {
        self.fio(fno::CLOSE, &words(&[fd as u32]))
    }
    fn mkdir(&mut self, path: &str) -> i32 {
        self.fio(fno::MKDIR, &path_args(&[], path))
    }
    fn remove(&mut self, path: &str) -> i32 {
        self.fio(fno::REMOVE, &path_args(&[], path))
    }
    fn rmdir(&mut self, path: &str) -> i32 {
        self.fio(fno::RMDIR, &path_args(&[], path))
    }
    fn dopen(&mut self, path: &str) -> i32 {
        self.fio(fno::DOPEN, &path_args(&[], path))
    }
    fn dclose(&mut self, fd: i32) -> i32 {
        self.fio(fno::DCLOSE, &words(&[fd as u32]))
    }
    fn lseek(&mut self, fd: i32, offset: i32, whence: u32) -> i32 {
        self.fio(fno::LSEEK, &words(&[fd as u32, offset as u32, whence]))
    }

    /// GETSTAT: the result and the 40 bytes at the EE's buffer.
    fn getstat(&mut self, path: &str) -> (i32, Vec<u8>) {
        self.ee_fill(STAT, 40);
        let r = self.fio(fno::GETSTAT, &path_args(&[STAT], path));
        (r, self.ee(STAT, 40))
    }

    /// DREAD: the result and the 300-byte io_dirent_t at the EE's buffer.
    fn dread(&mut self, fd: i32) -> (i32, Vec<u8>) {
        self.ee_fill(DIRENT, 300);
        let r = self.fio(fno::DREAD, &words(&[fd as u32, DIRENT]));
        (r, self.ee(DIRENT, 300))
    }

    /// WRITE as ps2sdk's fioWrite sends it: the bytes up to the next 16-byte boundary of `ptr`
    /// in the block, the rest fetched from EE memory.
    fn write(&mut self, fd: i32, ptr: u32, data: &[u8]) -> i32 {
        let p = ptr as usize;
        self.iop.ee_ram[p..p + data.len()].copy_from_slice(data);
        let mis = (((16 - (ptr & 15)) & 15) as usize).min(data.len());
        let mut args = words(&[fd as u32, ptr, data.len() as u32, mis as u32]);
        let mut head = data[..mis].to_vec();
        head.resize(16, 0);
        args.extend_from_slice(&head);
        self.fio(fno::WRITE, &args)
    }

    /// READ, and what the EE's end function then does with `read_data`: the result, the
    /// sizes and destinations of its head and tail, and the bytes at `ptr`.
    fn read(&mut self, fd: i32, ptr: u32, size: usize) -> (i32, [u32; 4], Vec<u8>) {
        self.ee_fill(ptr, size);
        self.ee_fill(READ_DATA, 48);
        let r = self.fio(fno::READ, &words(&[fd as u32, ptr, size as u32, READ_DATA]));
        let rd = self.ee(READ_DATA, 48);
        let h = [w(&rd, 0), w(&rd, 4), w(&rd, 8), w(&rd, 12)];
        let [s1, s2, d1, d2] = h.map(|x| x as usize);
        if s1 > 0 {
            self.iop.ee_ram[d1..d1 + s1].copy_from_slice(&rd[16..16 + s1]);
        }
        if s2 > 0 {
            self.iop.ee_ram[d2..d2 + s2].copy_from_slice(&rd[32..32 + s2]);
        }
        (r, h, self.ee(ptr, size))
    }

    fn ee(&self, addr: u32, len: usize) -> Vec<u8> {
        self.iop.ee_ram[addr as usize..addr as usize + len].to_vec()
    }

    fn ee_fill(&mut self, addr: u32, len: usize) {
        self.iop.ee_ram[addr as usize..addr as usize + len].fill(0xee);
    }

    /// Run the IOP until everything queued on SIF0 crossed into EE RAM.
    fn deliver(&mut self) {
        self.sif0.deliver(&mut self.iop);
    }
}

/// An io_stat_t: mode, attr, size, ctime, atime, mtime, hisize.
fn stat(mode: u32, size: u32, ctime: [u8; 8], mtime: [u8; 8]) -> Vec<u8> {
    let mut b = words(&[mode, 0, size]);
    b.extend_from_slice(&ctime);
    b.extend_from_slice(&[0; 8]);
    b.extend_from_slice(&mtime);
    b.extend_from_slice(&[0; 4]);
    b
}

fn name_of(dirent: &[u8]) -> &[u8] {
    let n = &dirent[40..296];
    &n[..n.iter().position(|&c| c == 0).unwrap()]
}

/// Mode of a file MCMAN made and closed (0x8497: R|W|X|FILE|0400|CLOSED|EXISTS) as stat shows it:
/// R 1, W 2, X 4 kept, FIO_SO_IFREG.
const FILE_MODE: u32 = 0x17;
/// A directory MCMAN made (0x8427: R|W|X|DIR|0400|EXISTS): R, W, X and FIO_SO_IFDIR.
const DIR_MODE: u32 = 0x27;
/// The root's '..' (0xa426: W|X|DIR|0400|HIDDEN|EXISTS): W, X and FIO_SO_IFDIR.
const ROOT_DOTDOT_MODE: u32 = 0x26;

fn files_through_fio(r: &mut Rig, on_host: impl Fn() -> Vec<u8>) {
    // The first look at the card (McDetectCard2: -1) lets mkdir go on; McOpen with 0x40.
    assert_eq!(r.mkdir("mc0:/DIR"), 0);
    // FILEIO's fds 0..2 are the tty's: the first file is 3.
    let fd = r.open("mc0:/DIR/F", O_CREAT | O_WRONLY);
    assert_eq!(fd, 3);
    let data: Vec<u8> = (0..100).map(pattern).collect();
    // From an unaligned EE buffer: 13 bytes in the block, 87 fetched.
    assert_eq!(r.write(fd, 0x2003, &data), 100);
    assert_eq!(r.read(fd, 0x4000, 16).0, 0, "ioman: not opened for reading");
    r.iop.cpu.cycles = 90 * IOP_CLOCK_HZ;
    assert_eq!(r.close(fd), 0);
    assert_eq!(r.close(fd), -EBADF, "ioman freed the file");
    assert_eq!(on_host(), data, "the file is on the host card");

    let fd = r.open("mc0:/DIR/F", O_RDONLY);
    assert_eq!(fd, 3);
    assert_eq!(r.lseek(fd, 0, 2), 100, "the end: the size");
    assert_eq!(r.lseek(fd, 0, 3), -EINVAL, "ioman checks whence");
    assert_eq!(r.lseek(fd, 0, 0), 0);
    // 0x4005 + 100: head 11 bytes (to 0x4010), 80 straight to EE memory, tail 9 (at 0x4060).
    let (n, h, got) = r.read(fd, 0x4005, 100);
    assert_eq!(n, 100);
    assert_eq!(h, [11, 9, 0x4005, 0x4060]);
    assert_eq!(got, data);
    assert_eq!(r.read(fd, 0x4000, 16).0, 0, "at the end");
    assert_eq!(
        r.write(fd, 0x2000, b"x"),
        0,
        "ioman: not opened for writing"
    );
    assert_eq!(r.lseek(fd, 40, 0), 40);
    let (n, _, got) = r.read(fd, 0x4000, 16);
    assert_eq!((n, &got[..]), (16, &data[40..56]));
    assert_eq!(r.close(fd), 0);

    // getstat: created at 0 s, written and closed at 90 s (the directory too).
    assert_eq!(r.getstat("mc0:/DIR/F"), (0, stat(FILE_MODE, 100, T0, T90)));
    assert_eq!(r.getstat("mc0:/DIR"), (0, stat(DIR_MODE, 0, T0, T90)));
    assert_eq!(r.getstat("mc0:/DIR/"), (0, stat(DIR_MODE, 0, T0, T90)));
    assert_eq!(r.getstat("mc0:/DIR/G").0, -ENOENT);
    assert_eq!(r.open("mc0:/DIR/G", O_RDONLY), -ENOENT, "a missing file");

    // dopen/dread: '.', '..', the file; result 1 each, then 0.
    let d = r.dopen("mc0:/DIR");
    assert_eq!(d, 3);
    let (n, e) = r.dread(d);
    assert_eq!((n, name_of(&e)), (1, &b"."[..]));
    assert_eq!(&e[..40], &stat(DIR_MODE, 0, T0, T90)[..]);
    let (n, e) = r.dread(d);
    assert_eq!((n, name_of(&e)), (1, &b".."[..]));
    // The root's own entry (made when the card was, at the base time).
    assert_eq!(w(&e, 0), DIR_MODE);
    assert_eq!(&e[12..20], &T0);
    let (n, e) = r.dread(d);
    assert_eq!((n, name_of(&e)), (1, &b"F"[..]));
    assert_eq!(&e[..40], &stat(FILE_MODE, 100, T0, T90)[..]);
    assert_eq!(r.dread(d).0, 0, "the end");
    assert_eq!(r.dread(d).0, 0);
    assert_eq!(r.dclose(d), 0);
    assert_eq!(r.dread(d).0, -EBADF, "ioman: not open");

    // The root: '.' and '..' as MCMAN formats them, then DIR.
    let d = r.dopen("mc0:/");
    let (n, e) = r.dread(d);
    assert_eq!((n, name_of(&e), w(&e, 0)), (1, &b"."[..], DIR_MODE));
    let (n, e) = r.dread(d);
    assert_eq!(
        (n, name_of(&e), w(&e, 0)),
        (1, &b".."[..], ROOT_DOTDOT_MODE)
    );
    let (n, e) = r.dread(d);
    assert_eq!((n, name_of(&e), w(&e, 0)), (1, &b"DIR"[..], DIR_MODE));
    assert_eq!(r.dread(d).0, 0);
    assert_eq!(r.close(d), 0, "MCMAN's close closes a directory too");

    // dread on a file's descriptor: mcman_dread's -5 (no directory), -EACCES.
    let fd = r.open("mc0:/DIR/F", O_RDONLY);
    assert_eq!(r.dread(fd).0, -EACCES);
    // MCMAN's ioctl answers 0.
    assert_eq!(r.fio(fno::IOCTL, &words(&[fd as u32, 0, 0])), 0);
    assert_eq!(r.close(fd), 0);

    // A directory with a file in it cannot go (-6, -EEXIST); the file can, then it.
    assert_eq!(r.rmdir("mc0:/DIR"), -17);
    assert_eq!(r.remove("mc0:/DIR/F"), 0);
    assert_eq!(r.getstat("mc0:/DIR/F").0, -ENOENT);
    assert_eq!(r.remove("mc0:/DIR/F"), -ENOENT);
    assert_eq!(r.rmdir("mc0:/DIR"), 0);
    assert_eq!(r.getstat("mc0:/DIR").0, -ENOENT);
    assert_eq!(r.dopen("mc0:/DIR"), -ENOENT);
}

#[test]
fn files_through_fio_on_a_folder_card() {
    let dir = scratch("folder");
    let card = piney_memcard::open_card(&dir.join("card"), DEFAULT_BASE_TIME).unwrap();
    let mut r = Rig::loaded(card);
    let host = dir.join("card").join("DIR").join("F");
    files_through_fio(&mut r, || fs::read(&host).unwrap());
    assert!(!host.exists());
}

#[test]
fn files_through_fio_on_an_image() {
    let dir = scratch("image");
    let path = dir.join("card.ps2");
    let card = piney_memcard::open_card(&path, DEFAULT_BASE_TIME).unwrap();
    let mut r = Rig::loaded(card);
    files_through_fio(&mut r, || read_from_image(&path, "/DIR/F"));
}

/// A file's bytes, from a second look at the image on the host.
fn read_from_image(path: &Path, name: &str) -> Vec<u8> {
    let mut c = piney_memcard::open_card(path, DEFAULT_BASE_TIME).unwrap();
    let fh = c
        .open(name.as_bytes(), OpenFlags::RDONLY, DEFAULT_BASE_TIME)
        .unwrap();
    let mut buf = vec![0; 4096];
    let n = c.read(fh, &mut buf).unwrap();
    buf.truncate(n);
    buf
}

#[test]
fn the_three_descriptors_are_shared_with_mcserv() {
    let dir = scratch("limit");
    let card = piney_memcard::open_card(&dir.join("card"), DEFAULT_BASE_TIME).unwrap();
    let mut r = Rig::loaded(card);
    // The first look at the card, through fio (mkdir holds no descriptor).
    assert_eq!(r.mkdir("mc0:/S"), 0);
    assert_eq!(r.mcserv(mcserv::fno::OPEN, &n_block(0, 0x202, "/A")), 0);
    assert_eq!(r.open("mc0:/B", O_CREAT | O_WRONLY), 3);
    assert_eq!(r.mcserv(mcserv::fno::OPEN, &n_block(0, 0x202, "/C")), 2);
    // No fourth: McOpen's -7, -EMFILE through fio; mkdir and dopen take one too.
    assert_eq!(r.open("mc0:/D", O_CREAT | O_WRONLY), -EMFILE);
    assert_eq!(r.mkdir("mc0:/T"), -EMFILE);
    assert_eq!(r.dopen("mc0:/S"), -EMFILE);
    assert_eq!(r.mcserv(mcserv::fno::OPEN, &n_block(0, 0x202, "/E")), -7);
    // MCSERV closes its 0; fio gets it (FILEIO's next fd, 4).
    assert_eq!(r.mcserv(mcserv::fno::CLOSE, &d_block(0, 0)), 0);
    let d = r.open("mc0:/D", O_CREAT | O_WRONLY);
    assert_eq!(d, 4);
    // fio closes B (MCMAN's 1); MCSERV gets it.
    assert_eq!(r.close(3), 0);
    assert_eq!(r.mcserv(mcserv::fno::OPEN, &n_block(0, 0x202, "/E")), 1);
    // FILEIO's fd 4 is MCMAN's descriptor 0: what fio writes lands in D, and once fio closed
    // it, MCSERV finds descriptor 0 closed.
    assert_eq!(r.write(d, 0x2000, b"dd"), 2);
    assert_eq!(r.close(d), 0);
    assert_eq!(
        r.mcserv(mcserv::fno::CLOSE, &d_block(0, 0)),
        -5,
        "fio closed it"
    );
    assert_eq!(fs::read(dir.join("card").join("D")).unwrap(), b"dd");
}

#[test]
fn no_mc_device_before_mcman_is_loaded() {
    let dir = scratch("nodev");
    let path = dir.join("card");
    let mut r = Rig::new(McServ::on_first_use(Some(path.clone()), None));
    assert_eq!(r.open("mc0:/x", O_RDONLY), -ENODEV);
    assert_eq!(r.mkdir("mc0:/x"), -ENODEV);
    assert_eq!(r.dopen("mc0:/"), -ENODEV);
    assert_eq!(r.getstat("mc0:/x").0, -ENODEV);
    assert_eq!(r.fio(fno::FORMAT, &path_args(&[], "mc0:")), -ENODEV);
    assert!(!path.exists(), "no card is opened for an absent device");
    r.load("rom0:MCMAN");
    // Now the card is opened (and made) on its first use, through fio.
    assert_eq!(r.open("mc0:/x", O_RDONLY), -ENOENT);
    assert!(path.is_dir());
    // No card in port 1, nor in slot 1 of port 0 (unit 2): McDetectCard2's -11, -ENXIO.
    assert_eq!(r.open("mc1:/x", O_RDONLY), -ENXIO);
    assert_eq!(r.open("mc2:/x", O_RDONLY), -ENXIO);
    assert_eq!(r.getstat("mc1:/x").0, -ENXIO);
    // Other devices are as they were: cdvdman's cdrom, with no disc in the drive.
    assert_eq!(r.open("cdrom0:\\X;1", O_RDONLY), -ENOENT);
}

#[test]
fn xmcman_gives_the_device_too() {
    let dir = scratch("xmc");
    let card = piney_memcard::open_card(&dir.join("card"), DEFAULT_BASE_TIME).unwrap();
    let mut r = Rig::new(McServ::new(Some(card), None));
    r.load("rom0:XMCMAN");
    assert_eq!(r.mkdir("mc0:/X"), 0);
    let fd = r.open("mc0:/X/f", O_CREAT | O_WRONLY);
    assert_eq!(r.write(fd, 0x2000, b"abc"), 3);
    assert_eq!(r.close(fd), 0);
    assert_eq!(
        fs::read(dir.join("card").join("X").join("f")).unwrap(),
        b"abc"
    );
}

#[test]
fn an_unformatted_card_is_formatted_through_fio() {
    let dir = scratch("format");
    let path = dir.join("card.ps2");
    let card = piney_memcard::open_card(&path, DEFAULT_BASE_TIME).unwrap();
    let mut r = Rig::loaded(card);
    // MCSERV's UNFORMAT (port at +4, slot at +8): the card forgets its filesystem.
    assert_eq!(r.mcserv(mcserv::fno::UNFORMAT, &d_block(0, 0)), 0);
    // McDetectCard2 now says -2: -EFORMAT.
    assert_eq!(r.open("mc0:/x", O_RDONLY), -EFORMAT);
    assert_eq!(r.mkdir("mc0:/x"), -EFORMAT);
    assert_eq!(r.fio(fno::FORMAT, &path_args(&[], "mc0:")), 0);
    assert_eq!(r.mkdir("mc0:/N"), 0);
    let fd = r.open("mc0:/N/f", O_CREAT | O_WRONLY);
    assert_eq!(r.write(fd, 0x2000, b"new"), 3);
    assert_eq!(r.close(fd), 0);
    assert_eq!(read_from_image(&path, "/N/f"), b"new");
}

#[test]
fn a_getdir_in_progress_survives_fio_listings() {
    let dir = scratch("getdir");
    let card = piney_memcard::open_card(&dir.join("card"), DEFAULT_BASE_TIME).unwrap();
    let mut r = Rig::loaded(card);
    for d in ["mc0:/A", "mc0:/B", "mc0:/C"] {
        assert_eq!(r.mkdir(d), 0);
    }
    // mcGetDir("/*"), one entry at a time (the table at 0x8000, 64 bytes an entry).
    let getdir = |flags: u32| {
        let mut b = words(&[0, 0, flags, 1, 0x8000]);
        b.extend_from_slice(b"/*");
        b.resize(1044, 0);
        b
    };
    assert_eq!(r.mcserv(mcserv::fno::GET_DIR, &getdir(0)), 1);
    assert_eq!(&r.ee(0x8000 + 32, 2), b"A\0");
    // fio lists the root and looks at B in between.
    let d = r.dopen("mc0:/");
    while r.dread(d).0 == 1 {}
    assert_eq!(r.dclose(d), 0);
    assert_eq!(r.getstat("mc0:/B").0, 0);
    assert_eq!(r.mcserv(mcserv::fno::GET_DIR, &getdir(1)), 1);
    assert_eq!(&r.ee(0x8000 + 32, 2), b"B\0");
    assert_eq!(r.mcserv(mcserv::fno::GET_DIR, &getdir(1)), 1);
    assert_eq!(&r.ee(0x8000 + 32, 2), b"C\0");
    assert_eq!(r.mcserv(mcserv::fno::GET_DIR, &getdir(1)), 0);
}

#[test]
fn a_damaged_card_stops_the_run_naming_it() {
    let dir = scratch("damaged");
    let card = piney_memcard::open_card(&dir.join("card"), DEFAULT_BASE_TIME).unwrap();
    let mut r = Rig::loaded(card);
    assert_eq!(r.mkdir("mc0:/S"), 0);
    let sidecar = dir.join("card").join(".piney-mc");
    fs::write(&sidecar, "not a sidecar\n").unwrap();
    let e = r
        .try_rpc(FILEIO_SID, fno::GETSTAT, &path_args(&[STAT], "mc0:/S"))
        .unwrap_err();
    assert!(e.contains("FILEIO"), "{e}");
    assert!(e.contains("memory card 1 (port 0): "), "{e}");
    assert!(e.contains(&format!("{} line 1", sidecar.display())), "{e}");
}

#[test]
fn times_come_from_emulated_time() {
    let dir = scratch("time");
    let base = Timestamp::new(2004, 2, 28, 23, 59, 50);
    let card = piney_memcard::open_card(&dir.join("card"), base).unwrap();
    let mut r = Rig::new(McServ::new(Some(card), None).with_base_time(base));
    r.load("rom0:MCMAN");
    // A day later (a leap day).
    r.iop.cpu.cycles = 86_400 * IOP_CLOCK_HZ;
    assert_eq!(r.mkdir("mc0:/T"), 0);
    let (n, st) = r.getstat("mc0:/T");
    assert_eq!(n, 0);
    assert_eq!(&st[12..20], &[0, 50, 59, 23, 29, 2, 0xd4, 0x07]);
}
