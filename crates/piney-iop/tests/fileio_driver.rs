//! The EE's FILEIO calls reaching a guest device driver: tests/iop/iodriver.irx (started with
//! "serve") registers its RAM disk `ramd` with ioman's AddDrv, then FILEIO is called the way the
//! EE's SIF RPC calls reach it (the argument block in the server's receive buffer, then
//! `native_call`), with the EE's RAM in `iop.ee_ram` and what the IOP sends over SIF0 delivered
//! into that RAM by a small stand-in for the EE's DMA channel 5 (as tests/fileio_mc.rs does).
//! The driver's code runs on the FILEIO thread and the replies come later.
//!
//! Expected values are worked out by hand from FILEIO's argument blocks (ps2sdk
//! `common/include/fileio-common.h`, `iop/fs/fileio`), ioman's rules (`iop/system/ioman`) and
//! what the driver does (tests/iop/iodriver.c).

mod sif_support;
use std::path::PathBuf;

use piney_iop::kernel::sifcmd::PendingCall;
use piney_iop::modules::fileio::{FILEIO_SID, fno};
use piney_iop::modules::native_call;
use piney_iop::{IOP_CLOCK_HZ, Iop};

const EE_RAM: usize = 1 << 20;
const PKT: u32 = 0x200;
const RECV: u32 = 0x100;
const RECV2: u32 = 0x140;
const STAT: u32 = 0x6000;
const DIRENT: u32 = 0x7000;
const READ_DATA: u32 = 0x5000;

const O_RDONLY: u32 = 1;
const O_WRONLY: u32 = 2;
const O_CREAT: u32 = 0x200;
const ENOENT: i32 = 2;
const ENODEV: i32 = 19;

fn w(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes(b[off..off + 4].try_into().unwrap())
}

fn words(ws: &[u32]) -> Vec<u8> {
    ws.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A path argument (NUL-terminated), after `lead` words.
fn path_args(lead: &[u32], path: &str) -> Vec<u8> {
    let mut b = words(lead);
    b.extend_from_slice(path.as_bytes());
    b.push(0);
    b.resize(b.len().div_ceil(4) * 4, 0);
    b
}

fn pattern(i: usize) -> u8 {
    (i * 29 + 7) as u8
}

struct Rig {
    iop: Iop,
    /// The EE DMA stand-in for SIF0.
    sif0: sif_support::Sif0Sink,
}

impl Rig {
    /// A bare IOP whose iodriver module serves ramd.
    fn new() -> Rig {
        let mut iop = Iop::new();
        iop.ee_ram = vec![0; EE_RAM].into();
        let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/iop/iodriver.irx");
        iop.queue_module("iodriver", std::fs::read(p).unwrap(), b"serve\0");
        assert!(iop.run_bare(IOP_CLOCK_HZ).unwrap());
        assert_eq!(
            String::from_utf8_lossy(&iop.take_output()),
            "  ramd: init ramd (RAM disk)\niodriver: serving ramd: AddDrv -> 0\n",
            "AddDrv called init"
        );
        Rig {
            iop,
            sif0: sif_support::Sif0Sink::default(),
        }
    }

    /// Send FILEIO function `f` with `args`, the reply to go to `recv`.
    fn send(&mut self, f: u32, args: &[u8], recv: u32) {
        let sd = self.iop.modules.native_server_data(FILEIO_SID).unwrap();
        let buf = self.iop.bus.ram_u32(sd + 8);
        self.iop.bus.write_ram(buf, args);
        self.iop.ee_ram[recv as usize..recv as usize + 4].fill(0xee);
        let call = PendingCall {
            sd,
            rec_id: 0,
            pkt_addr: PKT,
            rpc_id: 0,
            client: 0,
            recvbuf: recv,
            rsize: 4,
            rmode: 0,
        };
        native_call(&mut self.iop, call, f, args.len() as u32).unwrap();
    }

    /// Run the IOP until the reply at `recv` came and SIF0 is idle: the reply's word.
    fn wait(&mut self, recv: u32) -> i32 {
        for _ in 0..10_000 {
            let t = self.iop.cycles() + 2000;
            self.iop.run_until(t).unwrap();
            self.pump();
            let s = &self.iop.kernel.sifman;
            let idle = s.running.is_none() && s.waiting.is_empty();
            let r = w(&self.iop.ee_ram, recv as usize);
            if idle && self.iop.bus.hw.sif.fifo0.is_empty() && r != 0xeeee_eeee {
                assert!(self.sif0.idle());
                return r as i32;
            }
        }
        panic!("no FILEIO reply");
    }

    fn fio(&mut self, f: u32, args: &[u8]) -> i32 {
        self.send(f, args, RECV);
        self.wait(RECV)
    }

    /// SIF0's words into EE RAM.
    fn pump(&mut self) {
        self.sif0.pump(&mut self.iop);
    }

    fn ee(&self, addr: u32, len: usize) -> Vec<u8> {
        self.iop.ee_ram[addr as usize..addr as usize + len].to_vec()
    }

    fn out(&mut self) -> String {
        String::from_utf8_lossy(&self.iop.take_output()).into_owned()
    }
}

#[test]
fn fio_calls_reach_a_guest_driver() {
    let mut r = Rig::new();
    let fd = r.fio(fno::OPEN, &path_args(&[O_WRONLY | O_CREAT], "ramd0:file"));
    assert_eq!(fd, 3, "fds 0..2 are the tty's");
    assert_eq!(
        r.out(),
        "  ramd: open \"file\" unit 0 flags 0x202 mode 0x202 on ramd\n"
    );
    assert_eq!(r.iop.modules.ioman.open_files(), 4, "one table: 0..2 and 3");

    // WRITE from an unaligned EE buffer: 13 bytes in the block, 27 fetched from EE memory.
    let data: Vec<u8> = (0..40).map(pattern).collect();
    r.iop.ee_ram[0x2003..0x2003 + 40].copy_from_slice(&data);
    let mut args = words(&[3, 0x2003, 40, 13]);
    args.extend_from_slice(&data[..13]);
    args.resize(32, 0);
    assert_eq!(r.fio(fno::WRITE, &args), 40);
    assert_eq!(r.fio(fno::CLOSE, &words(&[3])), 0);
    assert_eq!(r.out(), "  ramd: close file\n");

    let fd = r.fio(fno::OPEN, &path_args(&[O_RDONLY], "ramd:file"));
    assert_eq!(fd, 3);
    assert_eq!(
        r.out(),
        "  ramd: open \"file\" unit 0 flags 0x1 mode 0x1 on ramd\n"
    );
    assert_eq!(r.fio(fno::LSEEK, &words(&[3, 0, 2])), 40, "the end");
    assert_eq!(r.fio(fno::LSEEK, &words(&[3, 0, 0])), 0);
    // READ to 0x4005: head 11 bytes (to 0x4010), 16 straight to EE memory, tail 13 at 0x4020.
    r.iop.ee_ram[0x4000..0x4040].fill(0xee);
    r.iop.ee_ram[READ_DATA as usize..READ_DATA as usize + 48].fill(0xee);
    assert_eq!(r.fio(fno::READ, &words(&[3, 0x4005, 40, READ_DATA])), 40);
    let rd = r.ee(READ_DATA, 48);
    assert_eq!(
        [w(&rd, 0), w(&rd, 4), w(&rd, 8), w(&rd, 12)],
        [11, 13, 0x4005, 0x4020]
    );
    assert_eq!(&rd[16..27], &data[..11], "buf1: the head");
    assert_eq!(&rd[32..45], &data[27..], "buf2: the tail");
    assert_eq!(r.ee(0x4010, 16), &data[11..27], "the middle, sent straight");
    assert_eq!(r.ee(0x4000, 5), [0xee; 5], "nothing before the buffer");

    // GETSTAT: the 40-byte io_stat_t the driver filled, sent to the EE.
    assert_eq!(r.fio(fno::GETSTAT, &path_args(&[STAT], "ramd:file")), 0);
    let st = r.ee(STAT, 40);
    assert_eq!((w(&st, 0), w(&st, 8)), (0x16, 40));
    // DOPEN/DREAD: fd 4 (3 is still open), the one file, then the end.
    assert_eq!(r.fio(fno::DOPEN, &path_args(&[], "ramd:")), 4);
    assert_eq!(r.out(), "  ramd: dopen \"\" unit 0 mode 0x0\n");
    assert_eq!(r.fio(fno::DREAD, &words(&[4, DIRENT])), 1);
    let d = r.ee(DIRENT, 300);
    assert_eq!((w(&d, 0), w(&d, 8), &d[40..45]), (0x16, 40, &b"file\0"[..]));
    assert_eq!(r.fio(fno::DREAD, &words(&[4, DIRENT])), 0);
    assert_eq!(r.fio(fno::DCLOSE, &words(&[4])), 0);
    // IOCTL: the driver's 0x55 (it writes the size into FILEIO's copy of the block).
    assert_eq!(r.fio(fno::IOCTL, &words(&[3, 0x1234, 0])), 0x55);
    assert_eq!(r.fio(fno::CLOSE, &words(&[3])), 0);
    assert_eq!(
        r.out(),
        "  ramd: dclose\n  ramd: ioctl 0x1234\n  ramd: close file\n"
    );

    // The driver's remove answers 1; ioman passes it.
    assert_eq!(r.fio(fno::REMOVE, &path_args(&[], "ramd:file")), 1);
    assert_eq!(
        r.fio(fno::OPEN, &path_args(&[O_RDONLY], "ramd:file")),
        -ENOENT
    );
    assert_eq!(
        r.iop.modules.ioman.open_files(),
        3,
        "the failed open freed its file"
    );
    assert_eq!(r.fio(fno::DELDRV, &path_args(&[], "ramd")), 0);
    assert_eq!(
        r.fio(fno::OPEN, &path_args(&[O_RDONLY], "ramd:file")),
        -ENODEV
    );
    assert_eq!(
        r.out(),
        "  ramd: remove \"file\" unit 0 mode 0x0\n  ramd: open \"file\" unit 0 flags 0x1 mode 0x1 on ramd\n  ramd: deinit ramd\n"
    );
}

#[test]
fn a_request_behind_a_drivers_waits_its_turn() {
    let mut r = Rig::new();
    // The open goes to the FILEIO thread; the tty write after it waits behind it.
    r.send(fno::OPEN, &path_args(&[O_WRONLY | O_CREAT], "ramd:q"), RECV);
    r.iop.ee_ram[0x3000..0x3003].copy_from_slice(b"tty");
    let mut args = words(&[1, 0x3000, 3, 3]);
    args.extend_from_slice(b"tty");
    args.resize(32, 0);
    r.send(fno::WRITE, &args, RECV2);
    assert_eq!(r.out(), "", "nothing ran yet");
    assert_eq!(r.wait(RECV2), 3);
    assert_eq!(w(&r.iop.ee_ram, RECV as usize), 3, "the open: fd 3");
    assert_eq!(
        r.out(),
        "  ramd: open \"q\" unit 0 flags 0x202 mode 0x202 on ramd\ntty"
    );
    // Native devices are answered at once again.
    r.send(fno::LSEEK, &words(&[1, 0, 3]), RECV);
    assert_eq!(
        w(&r.iop.ee_ram, RECV as usize),
        0xeeee_eeee,
        "sent, not yet here"
    );
    assert_eq!(r.out(), "invalid lseek arg\r\n", "answered at once");
    assert_eq!(r.wait(RECV), -22);
}

#[test]
fn a_bad_device_pointer_stops_the_run_naming_it() {
    let mut r = Rig::new();
    // FILEIO's ADDDRV passes the EE's word to AddDrv as an IOP address: here past the RAM.
    r.send(fno::ADDDRV, &words(&[0x0030_0000]), RECV);
    let mut err = None;
    for _ in 0..1000 {
        let t = r.iop.cycles() + 2000;
        if let Err(e) = r.iop.run_until(t) {
            err = Some(e.to_string());
            break;
        }
        r.pump();
    }
    let e = err.expect("the run stops");
    assert!(
        e.contains("ioman: AddDrv's iop_device_t at 0x00300000 (+0x14) is not in IOP RAM"),
        "{e}"
    );
}
