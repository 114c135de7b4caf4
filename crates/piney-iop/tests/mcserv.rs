//! The native MCSERV driven directly, as the EE's libmc (tools/guest/libmc.c) drives it:
//! hand-built argument blocks, the EE's RAM in `iop.ee_ram`, and what the server sends over
//! SIF0 delivered into that RAM by a small stand-in for the EE's DMA channel 5 (it takes the
//! FIFO's words: each IOP tag's EE tag quadword, then the data).

mod sif_support;
use std::fs;
use std::path::{Path, PathBuf};

use piney_iop::modules::mcserv::{
    self, DEFAULT_BASE_TIME, Interface, MCMAN_VERSION, MCSERV_SID, MCSERV_VERSION, McServ, fno,
};
use piney_iop::modules::{NativeServer, Reply, load_native};
use piney_iop::{IOP_CLOCK_HZ, Iop};
use piney_memcard::{Card, Timestamp};

const EE_RAM: usize = 1 << 20;
/// Where the tests' end parameters, tables and buffers live in EE RAM.
const PARAM: u32 = 0x1000;
const TABLE: u32 = 0x8000;
const CURDIR: u32 = 0x9000;
const INFO: u32 = 0xa000;

fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("piney-iop-mcserv")
        .join(name);
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

fn folder_card(dir: &Path) -> Box<dyn Card> {
    piney_memcard::open_card(&dir.join("card"), DEFAULT_BASE_TIME).unwrap()
}

fn image_card(dir: &Path) -> Box<dyn Card> {
    piney_memcard::open_card(&dir.join("card.ps2"), DEFAULT_BASE_TIME).unwrap()
}

/// The descriptor block (48 bytes).
#[derive(Default)]
struct D {
    fd: i32,
    port: i32,
    size: i32,
    offset: i32,
    origin: i32,
    buffer: u32,
    param: u32,
    data: Vec<u8>,
}

impl D {
    fn fd(fd: i32) -> D {
        D { fd, ..D::default() }
    }
    fn bytes(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(48);
        for w in [
            self.fd as u32,
            self.port as u32,
            0,
            self.size as u32,
            self.offset as u32,
            self.origin as u32,
            self.buffer,
            self.param,
        ] {
            b.extend_from_slice(&w.to_le_bytes());
        }
        let mut data = self.data.clone();
        data.resize(16, 0);
        b.extend_from_slice(&data);
        b
    }
}

/// The name block (1044 bytes).
fn n(port: i32, flags: u32, maxent: i32, table: u32, name: &str) -> Vec<u8> {
    let mut b = Vec::with_capacity(1044);
    for w in [port as u32, 0, flags, maxent as u32, table] {
        b.extend_from_slice(&w.to_le_bytes());
    }
    b.extend_from_slice(name.as_bytes());
    b.resize(1044, 0);
    b
}

fn w(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes(b[off..off + 4].try_into().unwrap())
}

fn pattern(i: usize) -> u8 {
    (i * 37 + (i >> 5)) as u8
}

/// An IOP with the card manager of `iface` loaded, the EE's RAM, and the server beside it.
struct Rig {
    iop: Iop,
    mc: McServ,
    iface: Interface,
    /// The EE DMA stand-in for SIF0.
    sif0: sif_support::Sif0Sink,
}

impl Rig {
    fn new(iface: Interface, card1: Option<Box<dyn Card>>, card2: Option<Box<dyn Card>>) -> Rig {
        Self::with(iface, McServ::new(card1, card2))
    }

    fn with(iface: Interface, mc: McServ) -> Rig {
        let mut iop = Iop::new();
        iop.ee_ram = vec![0; EE_RAM].into();
        let man = match iface {
            Interface::Old => "rom0:MCMAN",
            Interface::Xmc => "rom0:XMCMAN",
        };
        assert!(load_native(&mut iop, man).is_some_and(|id| id >= 0));
        assert_eq!(mcserv::interface(&iop), iface);
        Rig {
            iop,
            mc,
            iface,
            sif0: sif_support::Sif0Sink::default(),
        }
    }

    /// Function `old` or `xmc` as the interface has it.
    fn f(&self, old: u32, xmc: u32) -> u32 {
        match self.iface {
            Interface::Old => old,
            Interface::Xmc => xmc,
        }
    }

    fn try_raw(&mut self, f: u32, args: &[u8]) -> Result<Vec<u8>, String> {
        let r = match self.mc.call(&mut self.iop, f, args, 7)? {
            Reply::Now(b) => b,
            Reply::Later(_) => panic!("MCSERV answers at once"),
        };
        self.deliver();
        Ok(r)
    }

    /// The reply (the whole status: result, versions).
    fn raw(&mut self, f: u32, args: &[u8]) -> Vec<u8> {
        self.try_raw(f, args)
            .unwrap_or_else(|e| panic!("function {f:#x}: {e}"))
    }

    /// The result word.
    fn call(&mut self, f: u32, args: &[u8]) -> i32 {
        let r = self.raw(f, args);
        assert_eq!(r.len(), 12);
        w(&r, 0) as i32
    }

    /// Run the IOP until everything queued on SIF0 crossed into EE RAM.
    fn deliver(&mut self) {
        self.sif0.deliver(&mut self.iop);
    }

    fn ee(&self, at: u32, len: usize) -> &[u8] {
        &self.iop.ee_ram[at as usize..at as usize + len]
    }

    fn fill(&mut self, at: u32, len: usize, v: u8) {
        self.iop.ee_ram[at as usize..at as usize + len].fill(v);
    }

    fn get_info(&mut self, port: i32) -> i32 {
        let f = self.f(fno::GET_INFO, fno::X_GET_INFO);
        self.fill(PARAM, 256, 0xaa);
        let d = D {
            port,
            size: 1,
            offset: 1,
            origin: 1,
            param: PARAM,
            ..D::default()
        };
        self.call(f, &d.bytes())
    }

    fn mkdir(&mut self, port: i32, name: &str) -> i32 {
        let f = self.f(fno::OPEN, fno::X_OPEN);
        self.call(f, &n(port, 0x40, 0, 0, name))
    }

    fn open(&mut self, port: i32, name: &str, mode: u32) -> i32 {
        let f = self.f(fno::OPEN, fno::X_OPEN);
        self.call(f, &n(port, mode, 0, 0, name))
    }

    fn close(&mut self, fd: i32) -> i32 {
        let f = self.f(fno::CLOSE, fno::X_CLOSE);
        self.call(f, &D::fd(fd).bytes())
    }

    fn seek(&mut self, fd: i32, offset: i32, origin: i32) -> i32 {
        let f = self.f(fno::SEEK, fno::X_SEEK);
        let d = D {
            fd,
            offset,
            origin,
            ..D::default()
        };
        self.call(f, &d.bytes())
    }

    /// mcWrite as libmc splits it: up to 16 bytes all in `data`; else the head up to the
    /// buffer's 16-byte boundary in `data`, the rest fetched from EE memory.
    fn write(&mut self, fd: i32, at: u32, bytes: &[u8]) -> i32 {
        self.iop.ee_ram[at as usize..at as usize + bytes.len()].copy_from_slice(bytes);
        let (head, size, buffer) = if bytes.len() < 17 {
            (bytes.len(), 0, 0)
        } else {
            let head = ((16 - (at & 15)) & 15) as usize;
            (head, bytes.len() - head, at + head as u32)
        };
        let d = D {
            fd,
            size: size as i32,
            origin: head as i32,
            buffer,
            data: bytes[..head].to_vec(),
            ..D::default()
        };
        let f = self.f(fno::WRITE, fno::X_WRITE);
        self.call(f, &d.bytes())
    }

    /// mcRead, then what libmc's end function does with the end parameters; the result and
    /// the end parameters' (size1, size2, dest1, dest2).
    fn read(&mut self, fd: i32, at: u32, size: usize) -> (i32, [u32; 4]) {
        let d = D {
            fd,
            size: size as i32,
            buffer: at,
            param: PARAM,
            ..D::default()
        };
        self.fill(PARAM, 192, 0xaa);
        let f = self.f(fno::READ, fno::X_READ);
        let r = self.call(f, &d.bytes());
        let e = self.ee(PARAM, 192).to_vec();
        let (s1, s2, d1, d2) = (w(&e, 0), w(&e, 4), w(&e, 8), w(&e, 12));
        let part = if self.iface == Interface::Old { 16 } else { 64 };
        let (src1, src2) = (&e[16..16 + part], &e[16 + part..16 + 2 * part]);
        let (n1, n2) = ((s1 as usize).min(part), (s2 as usize).min(part));
        self.iop.ee_ram[d1 as usize..d1 as usize + n1].copy_from_slice(&src1[..n1]);
        self.iop.ee_ram[d2 as usize..d2 as usize + n2].copy_from_slice(&src2[..n2]);
        (r, [s1, s2, d1, d2])
    }

    /// mcGetDir: the entries' (name, size, mode, table bytes).
    fn getdir(&mut self, port: i32, name: &str, mode: u32) -> Vec<(String, u32, u16, Vec<u8>)> {
        self.fill(TABLE, 64 * 8, 0xaa);
        let f = self.f(fno::GET_DIR, fno::X_GET_DIR);
        let r = self.call(f, &n(port, mode, 8, TABLE, name));
        assert!(r >= 0, "getdir {name}: {r}");
        (0..r as usize)
            .map(|i| {
                let e = self.ee(TABLE + 64 * i as u32, 64).to_vec();
                let name = &e[32..64];
                let name = String::from_utf8_lossy(
                    &name[..name.iter().position(|&c| c == 0).unwrap_or(32)],
                )
                .into_owned();
                (name, w(&e, 16), u16::from_le_bytes([e[20], e[21]]), e)
            })
            .collect()
    }

    fn delete(&mut self, port: i32, name: &str) -> i32 {
        let f = self.f(fno::DELETE, fno::X_DELETE);
        self.call(f, &n(port, 0, 0, 0, name))
    }
}

// ---- mcInit's probe ---------------------------------------------------------------------

#[test]
fn old_server_answers_only_the_old_set() {
    let dir = scratch("probe_old");
    let mut r = Rig::new(Interface::Old, Some(folder_card(&dir)), None);
    // XMC's FLUSH is no function of the old server: the status stays 0.
    assert_eq!(r.raw(fno::X_FLUSH, &D::fd(-1).bytes()), [0; 12]);
    // The old FLUSH with fd -1: sceMcResDeniedPermit.
    assert_eq!(r.call(fno::FLUSH, &D::fd(-1).bytes()), -5);
    // XMC's INIT is not answered either: the -5 stays, no versions.
    let st = r.raw(fno::X_INIT, &D::fd(0).bytes());
    assert_eq!((w(&st, 0) as i32, w(&st, 4), w(&st, 8)), (-5, 0, 0));
    // So libmc uses the old INIT, with offset -217.
    let init = D {
        offset: -217,
        ..D::default()
    };
    assert_eq!(r.call(fno::INIT, &init.bytes()), 0);
    // Nor any other XMC number: GET_INFO 0x01 leaves the status (0) as it was.
    assert_eq!(r.raw(fno::X_GET_INFO, &D::default().bytes()), [0; 12]);
    assert_eq!(r.call(0x99, &[]), 0);
}

#[test]
fn xmc_server_answers_both_sets() {
    let dir = scratch("probe_xmc");
    let mut r = Rig::new(Interface::Xmc, Some(folder_card(&dir)), None);
    assert_eq!(r.call(fno::X_FLUSH, &D::fd(-1).bytes()), -5);
    assert_eq!(r.call(fno::FLUSH, &D::fd(-1).bytes()), -5);
    let st = r.raw(fno::X_INIT, &D::fd(0).bytes());
    assert_eq!(
        (w(&st, 0) as i32, w(&st, 4), w(&st, 8)),
        (0, MCSERV_VERSION, MCMAN_VERSION)
    );
    const { assert!(MCSERV_VERSION >= 0x205 && MCMAN_VERSION >= 0x206) }
    // An unknown number leaves the status.
    r.call(fno::X_FLUSH, &D::fd(-1).bytes());
    assert_eq!(r.call(0x99, &[]), -5);
}

// ---- card detection ---------------------------------------------------------------------

#[test]
fn get_info_old_says_new_card_then_same_card() {
    let dir = scratch("info_old");
    let mut r = Rig::new(Interface::Old, Some(folder_card(&dir)), None);
    let free = r.mc.card_mut(0).unwrap().info().unwrap().free_clusters;
    assert_eq!(free, 8000);
    assert_eq!(r.get_info(0), -1);
    let e = r.ee(PARAM, 64).to_vec();
    assert_eq!((w(&e, 0), w(&e, 4)), (2, 8000), "type PS2, free clusters");
    assert!(e[8..].iter().all(|&b| b == 0), "the rest of the 64 bytes");
    assert_eq!(r.ee(PARAM + 64, 1), [0xaa], "64 bytes only");
    assert_eq!(r.get_info(0), 0);
    assert_eq!((w(r.ee(PARAM, 8), 0), w(r.ee(PARAM, 8), 4)), (2, 8000));
    // No card in port 1: mcman's failed probes (-11), type 0 (libmc: not formatted).
    assert_eq!(r.get_info(1), -11);
    assert_eq!((w(r.ee(PARAM, 8), 0), w(r.ee(PARAM, 8), 4)), (0, 0));
    assert_eq!(r.mkdir(1, "/X"), -11);
    // Without the type asked for, its word is left 0.
    let d = D {
        offset: 1,
        param: PARAM,
        ..D::default()
    };
    assert_eq!(r.call(fno::GET_INFO, &d.bytes()), 0);
    assert_eq!((w(r.ee(PARAM, 8), 0), w(r.ee(PARAM, 8), 4)), (0, 8000));
}

#[test]
fn get_info_xmc_reports_the_format() {
    let dir = scratch("info_xmc");
    let mut r = Rig::new(Interface::Xmc, Some(image_card(&dir)), None);
    // XMCMAN's functions other than GET_INFO do not look at a card for the first time.
    assert_eq!(r.mkdir(0, "/EARLY"), -13);
    assert_eq!(r.get_info(0), -1);
    let e = r.ee(PARAM, 192).to_vec();
    assert_eq!((w(&e, 0), w(&e, 4), w(&e, 144)), (2, 8000, 1));
    assert_eq!(r.ee(PARAM + 192, 1), [0xaa], "192 bytes only");
    assert_eq!(r.get_info(0), 0);
    assert_eq!(r.mkdir(0, "/EARLY"), 0);
    // The old GET_INFO on XMCSERV: XMCMAN's detection, 64 bytes.
    let d = D {
        size: 1,
        offset: 1,
        param: PARAM,
        ..D::default()
    };
    r.fill(PARAM, 192, 0xaa);
    assert_eq!(r.call(fno::GET_INFO, &d.bytes()), 0);
    let free = r.mc.card_mut(0).unwrap().info().unwrap().free_clusters;
    assert_eq!(free, 7998, "the root's second cluster and /EARLY's");
    assert_eq!((w(r.ee(PARAM, 8), 0), w(r.ee(PARAM, 8), 4)), (2, free));
    assert_eq!(r.ee(PARAM + 64, 1), [0xaa]);
    // No card: GET_INFO's detection says -11 (type, free and format 0); the others -12.
    assert_eq!(r.get_info(1), -11);
    let e = r.ee(PARAM, 192).to_vec();
    assert_eq!((w(&e, 0), w(&e, 4), w(&e, 144)), (0, 0, 0));
    assert_eq!(r.open(1, "/x", 1), -12);
}

#[test]
fn unformat_and_format() {
    let dir = scratch("format");
    let mut r = Rig::new(Interface::Old, Some(image_card(&dir)), None);
    assert_eq!(r.get_info(0), -1);
    let fd = r.open(0, "/f", 0x202);
    assert_eq!(fd, 0);
    let d = D {
        port: 0,
        ..D::default()
    };
    assert_eq!(r.call(fno::UNFORMAT, &d.bytes()), 0);
    // The descriptor went with the filesystem.
    assert_eq!(r.close(fd), -5);
    // Unformatted: mcman looks again (a new unformatted card, -2), then knows it (0).
    assert_eq!(r.get_info(0), -2);
    assert_eq!(w(r.ee(PARAM, 8), 4), 0, "no free clusters asked when -2");
    assert_eq!(r.get_info(0), 0);
    assert_eq!(w(r.ee(PARAM, 8), 4), 0, "none on an unformatted card");
    assert_eq!(r.open(0, "/f", 1), -2);
    assert_eq!(r.call(fno::FORMAT, &d.bytes()), 0);
    assert_eq!(r.get_info(0), 0);
    assert_eq!(w(r.ee(PARAM, 8), 4), 8000);
    assert_eq!(r.getdir(0, "/*", 0).len(), 0);
}

// ---- files --------------------------------------------------------------------------------

/// What tests/guest/iop_startup.c does, through one interface, on one card.
fn round_trip(name: &str, iface: Interface, card: fn(&Path) -> Box<dyn Card>) {
    let dir = scratch(name);
    let mut r = Rig::new(iface, Some(card(&dir)), None);
    assert_eq!(r.get_info(0), -1);
    assert_eq!(r.mkdir(0, "/PINEY"), 0);
    assert_eq!(r.mkdir(0, "/PINEY"), -4, "mkdir of an existing name");

    let fd = r.open(0, "/PINEY/save.dat", 0x202);
    assert_eq!(fd, 0);
    let data: Vec<u8> = (0..1000).map(pattern).collect();
    // From 0x2003: 13 bytes in the block, the 987 from 0x2010 fetched from EE memory.
    assert_eq!(r.write(fd, 0x2003, &data), 1000);
    // Up to 16 bytes: all in the block.
    assert_eq!(r.write(fd, 0x3000, b"0123456789"), 10);
    assert_eq!(r.close(fd), 0);
    assert_eq!(r.close(fd), -5, "closed already");

    let fd = r.open(0, "/PINEY/save.dat", 1);
    assert_eq!(fd, 0);
    assert_eq!(r.seek(fd, 0, 2), 1010);
    assert_eq!(r.seek(fd, -10, 1), 1000);
    assert_eq!(r.seek(fd, 0, 0), 0);

    // Into 0x4005: the head to the next boundary and the tail past the last one come in the
    // end parameters; the middle straight into the buffer.
    r.fill(0x4000, 0x1000, 0xee);
    let (n, ep) = r.read(fd, 0x4005, 1000);
    assert_eq!(n, 1000);
    match iface {
        // 11 to 0x4010, 976 by DMA, 13 from 0x43e0.
        Interface::Old => assert_eq!(ep, [11, 13, 0x4005, 0x43e0]),
        // 59 to 0x4040, 896 by DMA, 45 from 0x43c0.
        Interface::Xmc => assert_eq!(ep, [59, 45, 0x4005, 0x43c0]),
    }
    assert_eq!(r.ee(0x4005, 1000), &data[..]);
    assert!(r.ee(0x4000, 5).iter().all(|&b| b == 0xee), "guard before");
    assert!(
        r.ee(0x4005 + 1000, 0x100).iter().all(|&b| b == 0xee),
        "guard after"
    );

    // A read past the end: the file ends in the middle.
    assert_eq!(r.seek(fd, 0, 0), 0);
    r.fill(0x4000, 0x1000, 0xee);
    let (n, ep) = r.read(fd, 0x4005, 2000);
    assert_eq!(n, 1010);
    let mut want = data.clone();
    want.extend_from_slice(b"0123456789");
    assert_eq!(r.ee(0x4005, 1010), &want[..]);
    match iface {
        Interface::Old => {
            // No tail; whole quadwords crossed: the rest of the last one is written.
            // (999 bytes from 0x4010: 63 quadwords, up to 0x4400.)
            assert_eq!(ep[..2], [11, 0]);
            assert!(
                r.ee(0x4005 + 1010, 0x4400 - 0x4005 - 1010)
                    .iter()
                    .all(|&b| b == 0)
            );
            assert!(r.ee(0x4400, 0x100).iter().all(|&b| b == 0xee));
        }
        Interface::Xmc => {
            // 1010 - 59 = 951 in the middle: 896 by DMA, 55 kept as the tail at 0x43c0.
            assert_eq!(ep, [59, 55, 0x4005, 0x43c0]);
            assert!(r.ee(0x4005 + 1010, 0x100).iter().all(|&b| b == 0xee));
        }
    }
    // At the end: nothing.
    assert_eq!(r.read(fd, 0x4005, 100).0, 0);
    // A short read, all head.
    assert_eq!(r.seek(fd, 3, 0), 3);
    assert_eq!(r.read(fd, 0x4001, 5), (5, [5, 0, 0x4001, 0]));
    assert_eq!(r.ee(0x4001, 5), &data[3..8]);
    // Writing to a descriptor opened for reading: refused, the descriptor kept.
    assert_eq!(r.write(fd, 0x3000, b"x"), -5);
    assert_eq!(r.close(fd), 0);

    // ".", ".." and the file (mode 0x8497: closed properly), in a subdirectory.
    let l = r.getdir(0, "/PINEY/*", 0);
    let names: Vec<_> = l.iter().map(|e| (e.0.as_str(), e.1, e.2)).collect();
    assert_eq!(
        names,
        [
            (".", 0, 0x8427),
            ("..", 0, 0x8427),
            ("save.dat", 1010, 0x8497)
        ]
    );
    assert!(
        l[2].3[22..32].iter().all(|&b| b == 0),
        "Reserve1/2, PdaAplNo"
    );
    // The root's listing has no "." and "..".
    let l = r.getdir(0, "/*", 0);
    let names: Vec<_> = l.iter().map(|e| e.0.as_str()).collect();
    assert_eq!(names, ["PINEY"]);

    assert_eq!(r.delete(0, "/PINEY"), -6, "not empty");
    assert_eq!(r.delete(0, "/PINEY/save.dat"), 0);
    assert_eq!(r.delete(0, "/PINEY/save.dat"), -4);
    assert_eq!(r.delete(0, "/PINEY"), 0);
    assert_eq!(r.getdir(0, "/*", 0).len(), 0);
}

#[test]
fn files_on_a_folder_card_old() {
    round_trip("folder_old", Interface::Old, folder_card);
}

#[test]
fn files_on_an_image_old() {
    round_trip("image_old", Interface::Old, image_card);
}

#[test]
fn files_on_a_folder_card_xmc() {
    round_trip("folder_xmc", Interface::Xmc, folder_card);
}

#[test]
fn files_on_an_image_xmc() {
    round_trip("image_xmc", Interface::Xmc, image_card);
}

#[test]
fn a_larger_file_crosses_in_chunks() {
    let dir = scratch("large");
    let mut r = Rig::new(Interface::Old, Some(image_card(&dir)), None);
    r.get_info(0);
    let data: Vec<u8> = (0..20_000).map(|i| pattern(i * 7 + 1)).collect();
    let fd = r.open(0, "/big", 0x203);
    // Aligned: no head; 20000 bytes fetched in 8192-byte pieces.
    assert_eq!(r.write(fd, 0x10000, &data), 20_000);
    assert_eq!(r.seek(fd, 0, 0), 0);
    r.fill(0x20000, 0x6000, 0);
    assert_eq!(r.read(fd, 0x20008, 20_000).0, 20_000);
    assert_eq!(r.ee(0x20008, 20_000), &data[..]);
    assert_eq!(r.close(fd), 0);
    assert_eq!(r.getdir(0, "/*", 0)[0].1, 20_000);
}

#[test]
fn descriptors_are_shared_by_both_cards() {
    let dir = scratch("fds");
    fs::create_dir_all(dir.join("1")).unwrap();
    fs::create_dir_all(dir.join("2")).unwrap();
    let c1 = folder_card(&dir.join("1"));
    let c2 = image_card(&dir.join("2"));
    let mut r = Rig::new(Interface::Old, Some(c1), Some(c2));
    assert_eq!(r.get_info(0), -1);
    assert_eq!(r.get_info(1), -1);
    assert_eq!(r.open(0, "/a", 0x202), 0);
    assert_eq!(r.open(0, "/b", 0x202), 1);
    assert_eq!(r.open(1, "/c", 0x202), 2);
    // MCMAN's 3 descriptors are all taken: sceMcResUpLimitHandle, mkdir included.
    assert_eq!(r.open(1, "/d", 0x202), -7);
    assert_eq!(r.mkdir(1, "/D"), -7);
    assert_eq!(r.close(1), 0);
    assert_eq!(r.open(1, "/d", 0x202), 1);
    // Each descriptor reaches its own card.
    assert_eq!(r.write(1, 0x3000, b"on card 2"), 9);
    assert_eq!(r.write(0, 0x3000, b"card 1"), 6);
    let l = r.getdir(1, "/*", 0);
    let names: Vec<_> = l.iter().map(|e| (e.0.as_str(), e.1)).collect();
    assert_eq!(names, [("c", 0), ("d", 9)]);
    let l = r.getdir(0, "/*", 0);
    let names: Vec<_> = l.iter().map(|e| (e.0.as_str(), e.1)).collect();
    assert_eq!(names, [("a", 6), ("b", 0)]);
    // Reading a descriptor opened for writing only: refused, kept.
    assert_eq!(r.read(0, 0x4000, 4).0, -5);
    for fd in 0..3 {
        assert_eq!(r.close(fd), 0);
    }
    assert_eq!(r.close(3), -5);
    assert_eq!(r.seek(-1, 0, 0), -5);
}

#[test]
fn unknown_functions_keep_the_status() {
    let dir = scratch("unknown");
    let mut r = Rig::new(Interface::Old, Some(folder_card(&dir)), None);
    r.get_info(0);
    assert_eq!(r.mkdir(0, "/A"), 0);
    assert_eq!(r.mkdir(0, "/A"), -4);
    assert_eq!(r.call(0x99, &[]), -4);
    assert_eq!(r.call(fno::X_OPEN, &n(0, 0x40, 0, 0, "/B")), -4);
    assert_eq!(r.mkdir(0, "/B"), 0);
    // The raw-flash functions stop the run, naming themselves.
    let e = r
        .try_raw(fno::READ_PAGE, &D::default().bytes())
        .unwrap_err();
    assert!(e.contains("READ_PAGE (0x7e)"), "{e}");
}

#[test]
fn chdir_and_set_info() {
    let dir = scratch("chdir");
    let mut r = Rig::new(Interface::Xmc, Some(folder_card(&dir)), None);
    assert_eq!(r.get_info(0), -1);
    assert_eq!(r.mkdir(0, "/SAVE"), 0);
    r.fill(CURDIR, 1024, 0xaa);
    assert_eq!(r.call(fno::X_CH_DIR, &n(0, 0, 0, CURDIR, "/SAVE")), 0);
    assert_eq!(r.ee(CURDIR, 6), b"/SAVE\0");
    assert!(r.ee(CURDIR + 5, 1019).iter().all(|&b| b == 0), "1024 bytes");
    // Relative paths start there now.
    let fd = r.open(0, "file", 0x202);
    assert_eq!(fd, 0);
    assert_eq!(r.close(fd), 0);
    r.fill(CURDIR, 1024, 0xaa);
    assert_eq!(r.call(fno::X_CH_DIR, &n(0, 0, 0, CURDIR, "/NONE")), -4);
    assert!(
        r.ee(CURDIR, 1024).iter().all(|&b| b == 0),
        "sent whatever the result"
    );

    // SETINFO: the entry is fetched from EE memory; flags 0x02 take its modification time.
    let t = Timestamp::new(2004, 5, 6, 7, 8, 9);
    let mut info = [0u8; 64];
    info[8..16].copy_from_slice(&t.to_bytes());
    info[20] = 0xff;
    r.iop.ee_ram[INFO as usize..INFO as usize + 64].copy_from_slice(&info);
    assert_eq!(
        r.call(fno::X_SET_INFO, &n(0, 0x02, 0, INFO, "/SAVE/file")),
        0
    );
    let l = r.getdir(0, "/SAVE/*", 0);
    assert_eq!(l[2].0, "file");
    assert_eq!(&l[2].3[8..16], &t.to_bytes());
    // (Created and closed without a write: no "closed" mark; flag 0x04 would set the mode.)
    assert_eq!(l[2].2, 0x8417, "mode untouched without flag 0x04");
    // GET_ENT_SPACE (XMC): /SAVE holds ".", "..", "file" in two clusters of two entries.
    assert_eq!(r.call(fno::X_GET_ENT_SPACE, &n(0, 0, 0, 0, "/SAVE")), 1);
    // GETDIR in two steps: 2 entries, then the rest.
    let f = fno::X_GET_DIR;
    assert_eq!(r.call(f, &n(0, 0, 2, TABLE, "/SAVE/*")), 2);
    assert_eq!(r.call(f, &n(0, 1, 2, TABLE, "/SAVE/*")), 1);
    assert_eq!(&r.ee(TABLE + 32, 5), b"file\0");
    assert_eq!(r.call(f, &n(0, 1, 2, TABLE, "/SAVE/*")), 0);
    assert_eq!(r.call(f, &n(0, 0, 0, TABLE, "/SAVE/*")), 0, "maxent 0");
}

#[test]
fn time_stamps_follow_emulated_time() {
    let dir = scratch("time");
    let mut r = Rig::new(Interface::Old, Some(folder_card(&dir)), None);
    r.get_info(0);
    r.iop.cpu.cycles = 90 * IOP_CLOCK_HZ + 5;
    assert_eq!(r.mc.now(&r.iop), Timestamp::new(2000, 1, 1, 0, 1, 30));
    assert_eq!(r.mkdir(0, "/T"), 0);
    let e = &r.getdir(0, "/*", 0)[0].3;
    assert_eq!(&e[0..8], &Timestamp::new(2000, 1, 1, 0, 1, 30).to_bytes());
    assert_eq!(&e[8..16], &e[0..8]);

    let base = Timestamp::new(2004, 2, 28, 23, 59, 50);
    let mc = McServ::new(None, None).with_base_time(base);
    let mut iop = Iop::new();
    assert_eq!(mc.now(&iop), base);
    iop.cpu.cycles = 86_400 * IOP_CLOCK_HZ;
    assert_eq!(
        mc.now(&iop),
        Timestamp::new(2004, 2, 29, 23, 59, 50),
        "a leap day"
    );
}

#[test]
fn a_reboot_forgets_cards_and_descriptors() {
    let dir = scratch("reboot");
    let mut r = Rig::new(Interface::Old, Some(folder_card(&dir)), None);
    assert_eq!(r.get_info(0), -1);
    assert_eq!(r.mkdir(0, "/S"), 0);
    let ch = n(0, 0, 0, CURDIR, "/S");
    assert_eq!(r.call(fno::CH_DIR, &ch), 0);
    assert_eq!(r.open(0, "f", 0x202), 0);
    assert_eq!(r.write(0, 0x3000, b"abc"), 3);
    r.mc.reset();
    assert_eq!(r.call(0x99, &[]), 0, "the status is zero again");
    assert_eq!(r.close(0), -5, "no descriptor survives");
    assert_eq!(r.get_info(0), -1, "a new card to a new MCMAN");
    // The current directory is the root again; the file was kept.
    assert_eq!(r.open(0, "f", 1), -4);
    let fd = r.open(0, "/S/f", 1);
    assert_eq!(fd, 0);
    assert_eq!(r.read(fd, 0x4000, 3).0, 3);
    assert_eq!(r.ee(0x4000, 3), b"abc");
}

// ---- failures -----------------------------------------------------------------------------

#[test]
fn a_damaged_card_stops_the_run_naming_it() {
    let dir = scratch("damaged");
    let mut r = Rig::new(Interface::Old, Some(folder_card(&dir)), None);
    assert_eq!(r.get_info(0), -1);
    assert_eq!(r.mkdir(0, "/S"), 0);
    let sidecar = dir.join("card").join(".piney-mc");
    fs::write(&sidecar, "not a sidecar\n").unwrap();
    let e = r
        .try_raw(fno::GET_DIR, &n(0, 0, 8, TABLE, "/*"))
        .unwrap_err();
    assert!(e.starts_with("memory card 1 (port 0): "), "{e}");
    assert!(e.contains(&format!("{} line 1", sidecar.display())), "{e}");
}

#[test]
fn a_corrupt_image_is_refused_naming_the_card() {
    let dir = scratch("corrupt");
    let p = dir.join("short.ps2");
    fs::write(&p, [0u8; 1234]).unwrap();
    let e = mcserv::open_memcard(1, &p, DEFAULT_BASE_TIME)
        .err()
        .unwrap();
    assert!(
        e.starts_with(&format!("memory card 1: {}: ", p.display())),
        "{e}"
    );
    assert!(e.contains("not a PS2 memory card image"), "{e}");
    // A good image with one bit of its superblock flipped (its ECC left alone).
    let p = dir.join("flipped.ps2");
    drop(piney_memcard::open_card(&p, DEFAULT_BASE_TIME).unwrap());
    let mut img = fs::read(&p).unwrap();
    img[40] ^= 0x10;
    fs::write(&p, &img).unwrap();
    let e = mcserv::open_memcard(2, &p, DEFAULT_BASE_TIME)
        .err()
        .unwrap();
    assert!(
        e.starts_with(&format!("memory card 2: {}: ", p.display())),
        "{e}"
    );
    assert!(e.contains("ECC mismatch in page 0"), "{e}");
    // A new path becomes a new card.
    let mut c = mcserv::open_memcard(1, &dir.join("new.ps2"), DEFAULT_BASE_TIME).unwrap();
    assert!(c.info().unwrap().formatted);
}

// ---- as the IOP loads it ------------------------------------------------------------------

#[test]
fn serves_once_rom0_mcserv_is_loaded() {
    for path in ["rom0:MCSERV", "rom0:XMCSERV"] {
        let mut iop = Iop::new();
        iop.add_server(Box::new(McServ::new(None, None)));
        assert_eq!(iop.modules.native_server_data(MCSERV_SID), None);
        assert!(
            load_native(&mut iop, path).is_some_and(|id| id >= 0),
            "{path}"
        );
        assert!(
            iop.modules.native_server_data(MCSERV_SID).is_some(),
            "{path}"
        );
        assert!(iop.modules.server_mut::<McServ>().is_some());
    }
    let mc = McServ::new(None, None);
    assert_eq!(mc.modules(), ["MCSERV", "XMCSERV"]);
    assert_eq!(mc.sid(), 0x8000_0400);
}
