//! The SIF command and RPC protocol driven as ps2sdk's EE side drives it: packets written into EE
//! memory, sent with SifSetDma, answered by the native IOP into the EE's receive buffer.

use std::path::PathBuf;

use piney_machine::Machine;
use piney_machine::sif::cmd::{IOP_CMD_LATENCY, IOP_CMD_RECV_BUF, cid};
use piney_machine::sif::dma::{SIF_DMA_ERT, SIF_DMA_INT_O};
use piney_machine::sif::fileio::{FILEIO_SID, FileIo, HostDir, fno};
use piney_machine::sif::{CHCR_STR, D_STAT, D_STAT_CIS5, D5_CHCR, reg};

/// Where the EE's command receive buffer lives (ps2sdk uses an uncached 64-byte aligned one).
const EE_PKTBUF: u32 = 0x2010_0000;
/// Scratch area for the transfer descriptors.
const XFERS: u32 = 0x0010_1000;
/// The EE packet being sent.
const SEND_PKT: u32 = 0x0010_2000;
/// The EE RPC client data.
const CLIENT: u32 = 0x0010_3000;
/// The EE argument block.
const ARGS: u32 = 0x0010_4000;
/// The EE receive buffer.
const RECV: u32 = 0x0010_5000;

fn machine() -> Machine {
    Machine::new(Box::new(std::io::sink()))
}

fn w32(m: &mut Machine, addr: u32, v: u32) {
    let a = (addr & 0x01ff_ffff) as usize;
    m.bus.ram[a..a + 4].copy_from_slice(&v.to_le_bytes());
}

fn r32(m: &Machine, addr: u32) -> u32 {
    let a = (addr & 0x01ff_ffff) as usize;
    u32::from_le_bytes(m.bus.ram[a..a + 4].try_into().unwrap())
}

fn put(m: &mut Machine, addr: u32, b: &[u8]) {
    let a = (addr & 0x01ff_ffff) as usize;
    m.bus.ram[a..a + b.len()].copy_from_slice(b);
}

fn iop32(m: &Machine, addr: u32) -> u32 {
    let a = addr as usize;
    u32::from_le_bytes(m.bus.iop_ram[a..a + 4].try_into().unwrap())
}

fn dstat(m: &Machine) -> u32 {
    m.bus.io[((D_STAT & 0xffff) / 4) as usize]
}

fn chcr5(m: &Machine) -> u32 {
    m.bus.io[((D5_CHCR & 0xffff) / 4) as usize]
}

/// Send a command as ps2sdk's SifSendCmd does: the extra data (if any) to `dest`, then the packet
/// (header filled in) to the IOP's receive buffer with ERT | INT_O. Returns the transfer id.
fn send_cmd(m: &mut Machine, c: u32, pkt: &[u32], extra: Option<(u32, u32, u32)>) -> u32 {
    let psize = (pkt.len() * 4) as u32;
    let mut n = 0;
    let mut xfer = |m: &mut Machine, src: u32, dest: u32, size: u32, attr: u32| {
        let d = XFERS + 16 * n;
        w32(m, d, src);
        w32(m, d + 4, dest);
        w32(m, d + 8, size);
        w32(m, d + 12, attr);
        n += 1;
    };
    let (size_word, dest) = match extra {
        Some((src, dest, size)) => {
            xfer(m, src, dest, size, 0);
            (psize | (size << 8), dest)
        }
        None => (psize, 0),
    };
    for (i, v) in pkt.iter().enumerate() {
        w32(m, SEND_PKT + 4 * i as u32, *v);
    }
    w32(m, SEND_PKT, size_word);
    w32(m, SEND_PKT + 4, dest);
    w32(m, SEND_PKT + 8, c);
    xfer(
        m,
        SEND_PKT,
        IOP_CMD_RECV_BUF,
        psize,
        SIF_DMA_ERT | SIF_DMA_INT_O,
    );
    let id = m.sif_set_dma(XFERS, n).expect("SifSetDma");
    assert_ne!(id, 0, "SifSetDma accepted the transfers");
    id
}

/// Let 1 ms of emulated time pass.
fn settle(m: &mut Machine) {
    let t = m.cpu.cycles + 294_912;
    m.sif_run_until(t).expect("the SIF runs");
}

/// The EE's side of a received packet: check it arrived with an interrupt, take it, acknowledge
/// the interrupt and re-arm channel 5 as ps2sdk's handler does. Returns the packet's words.
fn take_packet(m: &mut Machine) -> Vec<u32> {
    assert_ne!(dstat(m) & D_STAT_CIS5, 0, "a packet raised D_STAT.CIS5");
    assert_eq!(chcr5(m) & CHCR_STR, 0, "the packet ended channel 5's chain");
    let size = r32(m, EE_PKTBUF) & 0xff;
    assert!(size >= 16, "a packet is in the receive buffer");
    let words: Vec<u32> = (0..size.div_ceil(4))
        .map(|i| r32(m, EE_PKTBUF + 4 * i))
        .collect();
    w32(m, EE_PKTBUF, 0);
    m.bus.io[((D_STAT & 0xffff) / 4) as usize] &= !D_STAT_CIS5;
    m.sif_set_dchain();
    words
}

/// SifInitCmd on a cold kernel: wait for CMDINIT, read the IOP's buffer, give ours.
fn init_cmd(m: &mut Machine) {
    assert_eq!(m.sif_get_reg(reg::SYS_SUBADDR), 0);
    assert_ne!(
        m.sif_get_reg(reg::SMFLAG) & 0x2_0000,
        0,
        "the IOP's SIFCMD is up"
    );
    let iopbuf = m.sif_get_reg(reg::SUBADDR);
    assert_eq!(iopbuf, IOP_CMD_RECV_BUF);
    m.sif_set_reg(reg::SYS_SUBADDR, iopbuf);
    m.sif_set_dchain();
    send_cmd(m, cid::INIT_CMD, &[0, 0, 0, 0, EE_PKTBUF], None);
    settle(m);
}

/// Bind FILEIO; returns (server, buff).
fn bind(m: &mut Machine, sid: u32) -> (u32, u32) {
    send_cmd(
        m,
        cid::RPC_BIND,
        &[
            0,
            0,
            0,
            0,
            0x0005_0005,
            SEND_PKT,
            7,
            CLIENT,
            sid,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
        ],
        None,
    );
    settle(m);
    let p = take_packet(m);
    assert_eq!(p[2], cid::RPC_END);
    assert_eq!(p[5], SEND_PKT, "pkt_addr echoed");
    assert_eq!(p[7], CLIENT, "client echoed");
    assert_eq!(p[8], cid::RPC_BIND);
    (p[9], p[10])
}

/// SifCallRpc (waiting mode: rmode 1). Returns the END packet.
fn call(m: &mut Machine, server: u32, buff: u32, f: u32, args: &[u8], rsize: u32) -> Vec<u32> {
    put(m, ARGS, args);
    let ssize = args.len() as u32;
    let pkt = [
        0,
        0,
        0,
        0,
        0x0006_0005,
        SEND_PKT,
        9,
        CLIENT,
        f,
        ssize,
        RECV,
        rsize,
        1,
        server,
        0,
        0,
    ];
    send_cmd(
        m,
        cid::RPC_CALL,
        &pkt,
        (ssize > 0).then_some((ARGS, buff, ssize)),
    );
    settle(m);
    let p = take_packet(m);
    assert_eq!(p[2], cid::RPC_END);
    assert_eq!(p[7], CLIENT);
    assert_eq!(p[8], cid::RPC_CALL);
    p
}

fn words(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|w| w.to_le_bytes()).collect()
}

#[test]
fn the_iop_appears_booted() {
    let mut m = machine();
    assert_eq!(
        m.sif_get_reg(reg::SMFLAG),
        0x7_0000,
        "SIFINIT | CMDINIT | BOOTEND"
    );
    assert_eq!(m.sif_get_reg(reg::SUBADDR), IOP_CMD_RECV_BUF);
    assert_eq!(m.sif_get_reg(reg::SYS_RPCINIT), 0);
    // EE writes clear SMFLG bits, set MSFLG bits; the software registers return the old value.
    m.sif_set_reg(reg::SMFLAG, 0x4_0000);
    assert_eq!(m.sif_get_reg(reg::SMFLAG), 0x3_0000);
    m.sif_set_reg(reg::MSFLAG, 0x1_0000);
    assert_eq!(m.sif_get_reg(reg::MSFLAG), 0x1_0000);
    assert_eq!(m.sif_set_reg(reg::SYS_MAINADDR, 0x1234), 0);
    assert_eq!(m.sif_set_reg(reg::SYS_MAINADDR, 5), 0x1234);
    assert_eq!(m.sif_get_reg(reg::SYS_MAINADDR), 5);
}

#[test]
fn init_cmd_gives_the_iop_our_buffer_and_rpc_init_sets_sreg0() {
    let mut m = machine();
    init_cmd(&mut m);
    assert_eq!(m.sif.iop.ee_recv, EE_PKTBUF);
    assert_eq!(
        m.bus.iop_ram[IOP_CMD_RECV_BUF as usize], 0,
        "the IOP took the packet (size byte cleared)"
    );
    assert_eq!(dstat(&m) & D_STAT_CIS5, 0, "INIT_CMD has no answer");

    // SifInitRpc: INIT_CMD with opt 1; the IOP answers SET_SREG(0, 1).
    let start = m.cpu.cycles;
    send_cmd(&mut m, cid::INIT_CMD, &[0, 0, 0, 1], None);
    m.sif_run_until(start + IOP_CMD_LATENCY).unwrap();
    assert_eq!(dstat(&m) & D_STAT_CIS5, 0, "the answer takes time");
    settle(&mut m);
    let p = take_packet(&mut m);
    assert_eq!(p[0] & 0xff, 24);
    assert_eq!(p[2], cid::SET_SREG);
    assert_eq!((p[4], p[5]), (0, 1), "sreg 0 (RPCINIT) = 1");
}

#[test]
fn change_saddr_moves_the_ee_buffer() {
    let mut m = machine();
    init_cmd(&mut m);
    send_cmd(&mut m, cid::CHANGE_SADDR, &[0, 0, 0, 0, 0x0011_0000], None);
    settle(&mut m);
    assert_eq!(m.sif.iop.ee_recv, 0x0011_0000);
}

#[test]
fn answers_wait_for_channel_5_to_be_rearmed() {
    let mut m = machine();
    init_cmd(&mut m);
    // Two requests, two answers: the second waits until the EE takes the first.
    send_cmd(&mut m, cid::INIT_CMD, &[0, 0, 0, 1], None);
    send_cmd(&mut m, cid::INIT_CMD, &[0, 0, 0, 1], None);
    settle(&mut m);
    settle(&mut m);
    assert_eq!(m.sif.dma.to_ee().len(), 1, "one answer still waits");
    let _ = take_packet(&mut m);
    settle(&mut m);
    assert_eq!(m.sif.dma.to_ee().len(), 0);
    let p = take_packet(&mut m);
    assert_eq!(p[2], cid::SET_SREG);
}

#[test]
fn bind_fileio_and_unknown_servers() {
    let mut m = machine();
    init_cmd(&mut m);
    let (server, buff) = bind(&mut m, FILEIO_SID);
    assert_ne!(server, 0);
    assert_ne!(buff, 0);
    assert_eq!(
        iop32(&m, server),
        FILEIO_SID,
        "the server data in IOP RAM names its sid"
    );
    assert_eq!(iop32(&m, server + 8), buff);
    let (none, nobuf) = bind(&mut m, 0x8000_0599);
    assert_eq!(
        (none, nobuf),
        (0, 0),
        "an unknown server binds to nothing, as on the IOP"
    );
}

#[test]
fn fileio_write_to_stdout_uses_the_misaligned_head_from_the_arguments() {
    let mut m = machine();
    init_cmd(&mut m);
    let (server, buff) = bind(&mut m, FILEIO_SID);
    // fioWrite(1, ptr, 14) with ptr 3 bytes into a 16-byte block: 13 bytes travel in the
    // arguments, the last one is fetched from EE memory.
    let ptr = 0x0010_8003;
    put(&mut m, ptr, b"XXXXXXXXXXXXX\n");
    let mut args = words(&[1, ptr, 14, 13]);
    args.extend_from_slice(b"Hello, world!\0\0\0");
    let p = call(&mut m, server, buff, fno::WRITE, &args, 4);
    assert_eq!(m.bus.out, b"Hello, world!\n");
    assert_eq!(r32(&m, RECV), 14, "the result went to the receive buffer");
    assert_eq!(p[0] >> 8, 4, "the result traveled as 4 bytes of extra data");
    assert_eq!(p[1], RECV);

    // An aligned write of more than the IOP's 16 KiB transfer buffer.
    m.bus.out.clear();
    let big: Vec<u8> = (0..20_000u32).map(|i| b'a' + (i % 26) as u8).collect();
    put(&mut m, 0x0012_0000, &big);
    let mut args = words(&[2, 0x0012_0000, big.len() as u32, 0]);
    args.extend_from_slice(&[0; 16]);
    call(&mut m, server, buff, fno::WRITE, &args, 4);
    assert_eq!(m.bus.out, big);
    assert_eq!(r32(&m, RECV), 20_000);

    // A bad fd: the ROM FILEIO counts nothing written (no error code).
    let mut args = words(&[17, ptr, 14, 13]);
    args.extend_from_slice(&[0; 16]);
    call(&mut m, server, buff, fno::WRITE, &args, 4);
    assert_eq!(r32(&m, RECV), 0);
}

fn host_dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("piney-sif-test-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn open_args(name: &str, mode: u32) -> Vec<u8> {
    let mut a = words(&[mode]);
    let mut n = name.as_bytes().to_vec();
    n.resize(256, 0);
    a.extend_from_slice(&n);
    a.resize(272, 0);
    a
}

#[test]
fn fileio_open_read_lseek_close_on_a_host_directory() {
    let dir = host_dir();
    let data: Vec<u8> = (0..100u8).map(|i| i.wrapping_mul(7)).collect();
    std::fs::write(dir.join("data.bin"), &data).unwrap();
    let mut m = machine();
    m.sif_register_server(Box::new(
        FileIo::new().with_device(Box::new(HostDir::new("host", &dir))),
    ));
    init_cmd(&mut m);
    let (server, buff) = bind(&mut m, FILEIO_SID);

    call(
        &mut m,
        server,
        buff,
        fno::OPEN,
        &open_args("host0:data.bin", 1),
        4,
    );
    let fd = r32(&m, RECV);
    assert_eq!(fd, 3, "fds 0..2 are the tty's");

    // fioRead(fd, 0x00130005, 40): head 11 bytes, middle 16 straight into EE memory, tail 13.
    let (ptr, read_data) = (0x0013_0005u32, 0x0013_1000u32);
    put(&mut m, 0x0013_0000, &[0xee; 64]);
    call(
        &mut m,
        server,
        buff,
        fno::READ,
        &words(&[fd, ptr, 40, read_data]),
        4,
    );
    assert_eq!(r32(&m, RECV), 40);
    let a = 0x0013_0000usize;
    assert_eq!(
        &m.bus.ram[a + 0x10..a + 0x20],
        &data[11..27],
        "the aligned middle landed in place"
    );
    assert_eq!(
        m.bus.ram[a + 5],
        0xee,
        "the head waits for the client's end function"
    );
    assert_eq!(r32(&m, read_data), 11, "size1");
    assert_eq!(r32(&m, read_data + 4), 13, "size2");
    assert_eq!(r32(&m, read_data + 8), ptr, "dest1");
    assert_eq!(r32(&m, read_data + 12), 0x0013_0020, "dest2");
    let rd = read_data as usize;
    assert_eq!(&m.bus.ram[rd + 16..rd + 27], &data[0..11], "buf1");
    assert_eq!(&m.bus.ram[rd + 32..rd + 45], &data[27..40], "buf2");

    // lseek to 95, a short read of 10 gets 5 (all in buf1: under 16 bytes).
    call(&mut m, server, buff, fno::LSEEK, &words(&[fd, 95, 0]), 4);
    assert_eq!(r32(&m, RECV), 95);
    call(
        &mut m,
        server,
        buff,
        fno::READ,
        &words(&[fd, 0x0013_0040, 10, read_data]),
        4,
    );
    assert_eq!(r32(&m, RECV), 5);
    assert_eq!(r32(&m, read_data), 5);
    assert_eq!(&m.bus.ram[rd + 16..rd + 21], &data[95..100]);
    call(&mut m, server, buff, fno::LSEEK, &words(&[fd, 0, 2]), 4);
    assert_eq!(r32(&m, RECV), 100, "SEEK_END");

    call(&mut m, server, buff, fno::CLOSE, &words(&[fd]), 4);
    assert_eq!(r32(&m, RECV), 0);
    call(&mut m, server, buff, fno::CLOSE, &words(&[fd]), 4);
    assert_eq!(r32(&m, RECV) as i32, -9, "EBADF");

    // Write a new file, read it back from the host.
    call(
        &mut m,
        server,
        buff,
        fno::OPEN,
        &open_args("host:out.txt", 0x0002 | 0x0200 | 0x0400),
        4,
    );
    let fd = r32(&m, RECV);
    assert_eq!(fd, 3);
    put(&mut m, 0x0014_0000, b"written by the guest");
    let mut args = words(&[fd, 0x0014_0000, 20, 0]);
    args.extend_from_slice(&[0; 16]);
    call(&mut m, server, buff, fno::WRITE, &args, 4);
    assert_eq!(r32(&m, RECV), 20);
    call(&mut m, server, buff, fno::CLOSE, &words(&[fd]), 4);
    assert_eq!(
        std::fs::read(dir.join("out.txt")).unwrap(),
        b"written by the guest"
    );

    // getstat, and a directory listing (sorted, so the same on every host).
    let mut a = words(&[0x0015_0000]);
    let mut n = b"host:data.bin".to_vec();
    n.resize(256, 0);
    a.extend_from_slice(&n);
    a.resize(272, 0);
    call(&mut m, server, buff, fno::GETSTAT, &a, 4);
    assert_eq!(r32(&m, RECV), 0);
    assert_eq!(r32(&m, 0x0015_0000) & 0x30, 0x10, "a regular file");
    assert_eq!(r32(&m, 0x0015_0008), 100, "its size");
    let mut n = b"host:".to_vec();
    n.resize(256, 0);
    call(&mut m, server, buff, fno::DOPEN, &n, 4);
    let dfd = r32(&m, RECV);
    assert_eq!(dfd, 3);
    let mut names = Vec::new();
    loop {
        call(
            &mut m,
            server,
            buff,
            fno::DREAD,
            &words(&[dfd, 0x0015_1000, 0, 0]),
            4,
        );
        let r = r32(&m, RECV);
        if r == 0 {
            break;
        }
        let name = &m.bus.ram[0x15_1028..0x15_1028 + r as usize];
        names.push(String::from_utf8_lossy(name).into_owned());
    }
    assert_eq!(names, ["data.bin", "out.txt"]);
    call(&mut m, server, buff, fno::CLOSE, &words(&[dfd]), 4);
    assert_eq!(r32(&m, RECV) as i32, -9, "close is not dclose");
    call(&mut m, server, buff, fno::DCLOSE, &words(&[dfd]), 4);
    assert_eq!(r32(&m, RECV), 0);

    call(
        &mut m,
        server,
        buff,
        fno::OPEN,
        &open_args("host:missing", 1),
        4,
    );
    assert_eq!(r32(&m, RECV) as i32, -2, "ENOENT");
    call(
        &mut m,
        server,
        buff,
        fno::OPEN,
        &open_args("cdrom0:\\SYSTEM.CNF;1", 1),
        4,
    );
    assert_eq!(r32(&m, RECV) as i32, -19, "no cdrom device: ENODEV");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn nowait_calls_free_the_packet_instead_of_sending_end() {
    let mut m = machine();
    init_cmd(&mut m);
    let (server, buff) = bind(&mut m, FILEIO_SID);
    let mut args = words(&[1, 0x0010_8000, 3, 0]);
    args.extend_from_slice(&[0; 16]);
    put(&mut m, 0x0010_8000, b"ok\n");
    put(&mut m, ARGS, &args);
    // rec_id with the allocated bit, rmode 0.
    let pkt = [
        0,
        0,
        0,
        0,
        0x0006_0005,
        SEND_PKT,
        9,
        CLIENT,
        fno::WRITE,
        32,
        RECV,
        4,
        0,
        server,
        0,
        0,
    ];
    send_cmd(&mut m, cid::RPC_CALL, &pkt, Some((ARGS, buff, 32)));
    settle(&mut m);
    assert_eq!(m.bus.out, b"ok\n");
    assert_eq!(dstat(&m) & D_STAT_CIS5, 0, "no END command, no interrupt");
    assert_eq!(r32(&m, RECV), 3);
    assert_eq!(
        r32(&m, SEND_PKT + 16),
        0,
        "rec_id cleared: the EE's packet is free"
    );
    assert_eq!(r32(&m, SEND_PKT + 24), 0, "rpc_id cleared");
}

#[test]
fn rdata_sends_iop_memory_to_the_ee() {
    let mut m = machine();
    init_cmd(&mut m);
    m.bus.iop_ram[0x9_0000..0x9_0008].copy_from_slice(b"IOPDATA!");
    let pkt = [
        0,
        0,
        0,
        0,
        0x0007_0005,
        SEND_PKT,
        11,
        0x0010_9000,
        0x0009_0000,
        0x0010_a000,
        8,
        0,
        0,
        0,
        0,
        0,
    ];
    send_cmd(&mut m, cid::RPC_RDATA, &pkt, None);
    settle(&mut m);
    let p = take_packet(&mut m);
    assert_eq!(p[8], cid::RPC_RDATA);
    assert_eq!(p[7], 0x0010_9000);
    assert_eq!(&m.bus.ram[0x10_a000..0x10_a008], b"IOPDATA!");
}

#[test]
fn a_call_to_no_server_stops_the_run_naming_it() {
    let mut m = machine();
    init_cmd(&mut m);
    let pkt = [
        0,
        0,
        0,
        0,
        0x0006_0005,
        SEND_PKT,
        9,
        CLIENT,
        3,
        0,
        RECV,
        4,
        1,
        0x0dea_d000,
        0,
        0,
    ];
    send_cmd(&mut m, cid::RPC_CALL, &pkt, None);
    let t = m.cpu.cycles + 294_912;
    let e = m.sif_run_until(t).expect_err("no such server");
    assert!(e.to_string().contains("0x0dead000"), "{e}");
}

#[test]
fn dma_stat_follows_a_transfer_and_data_lands_in_iop_ram() {
    let mut m = machine();
    put(&mut m, 0x0010_0000, b"0123456789abcdef");
    w32(&mut m, XFERS, 0x0010_0000);
    w32(&mut m, XFERS + 4, 0x0008_0000);
    w32(&mut m, XFERS + 8, 16);
    w32(&mut m, XFERS + 12, 0);
    let id = m.sif_set_dma(XFERS, 1).unwrap();
    assert_eq!(m.sif_dma_stat(id), 0, "moving");
    // The source is taken at once: changing it afterwards changes nothing.
    put(&mut m, 0x0010_0000, b"################");
    settle(&mut m);
    assert!(m.sif_dma_stat(id) < 0, "done");
    assert_eq!(&m.bus.iop_ram[0x8_0000..0x8_0010], b"0123456789abcdef");
    assert_eq!(
        m.bus.iop_ram[IOP_CMD_RECV_BUF as usize], 0,
        "no packet without INT_O"
    );
}

#[test]
fn reset_reboots_the_iop() {
    let mut m = machine();
    init_cmd(&mut m);
    // SifIopReset: clear BOOTEND, send the reset packet, clear SIFINIT and CMDINIT.
    m.sif_set_reg(reg::SMFLAG, 0x4_0000);
    let mut pkt = vec![0u32; 28];
    pkt[4] = 10;
    let arg = b"rom0:UDNL\0";
    for (i, c) in arg.chunks(4).enumerate() {
        let mut b = [0u8; 4];
        b[..c.len()].copy_from_slice(c);
        pkt[6 + i] = u32::from_le_bytes(b);
    }
    send_cmd(&mut m, cid::RESET_CMD, &pkt, None);
    m.sif_set_reg(reg::SMFLAG, 0x3_0000);
    settle(&mut m);
    assert_eq!(m.sif_get_reg(reg::SMFLAG), 0, "still rebooting");
    m.sif_run_until(m.cpu.cycles + 3_000_000).unwrap();
    assert_eq!(m.sif_get_reg(reg::SMFLAG), 0x7_0000, "booted again");
    assert_eq!(m.sif.iop.ee_recv, 0, "the new IOP waits for INIT_CMD");
}

#[test]
fn malformed_and_unknown_packets_are_answered_as_the_iop_would() {
    let mut m = machine();
    init_cmd(&mut m);
    // A RESET too short to hold its argument, an unknown system command, a user command with no
    // handler, an RPC END (no native IOP client): none stops the run, none is answered.
    send_cmd(&mut m, 0x8000_0007, &[0, 0, 0, 0], None);
    send_cmd(&mut m, 0x0000_0005, &[0, 0, 0, 0, 1, 2], None);
    send_cmd(&mut m, cid::RPC_END, &[0; 16], None);
    settle(&mut m);
    assert_eq!(dstat(&m) & D_STAT_CIS5, 0);
    assert!(m.sif.dma.to_ee().is_empty());
    send_cmd(&mut m, cid::RESET_CMD, &[0, 0, 0, 0], None);
    settle(&mut m);
    // SIF DMA into what is not IOP RAM, or from what is not EE memory, stops the run naming it.
    w32(&mut m, XFERS, 0x0010_0000);
    w32(&mut m, XFERS + 4, 0xbf80_1000);
    w32(&mut m, XFERS + 8, 16);
    w32(&mut m, XFERS + 12, 0);
    m.sif_set_dma(XFERS, 1).unwrap();
    let e = m
        .sif_run_until(m.cpu.cycles + 3_000_000)
        .expect_err("not IOP RAM");
    assert!(e.to_string().contains("0xbf801000"), "{e}");
    w32(&mut m, XFERS, 0x1500_0000);
    w32(&mut m, XFERS + 4, 0x0008_0000);
    let e = m.sif_set_dma(XFERS, 1).expect_err("no memory there");
    assert!(e.to_string().contains("0x15000000"), "{e}");
}

#[test]
fn a_channel_armed_by_a_plain_store_is_noticed() {
    let mut m = machine();
    init_cmd(&mut m);
    send_cmd(&mut m, cid::INIT_CMD, &[0, 0, 0, 1], None);
    send_cmd(&mut m, cid::INIT_CMD, &[0, 0, 0, 1], None);
    settle(&mut m);
    let _ = take_packet(&mut m);
    // Take the second one without the syscall: the guest stores D5_CHCR itself.
    m.bus.io[((D5_CHCR & 0xffff) / 4) as usize] = 0;
    settle(&mut m);
    assert_eq!(dstat(&m) & D_STAT_CIS5, 0);
    m.bus.io[((D5_CHCR & 0xffff) / 4) as usize] = 0x184;
    settle(&mut m);
    let p = take_packet(&mut m);
    assert_eq!(p[2], cid::SET_SREG);
}

#[test]
fn native_modules_can_send_to_the_ee_outside_calls() {
    let mut m = machine();
    m.sif_set_dchain();
    m.sif_iop_send_to_ee(0x0010_7000, b"pad data".to_vec());
    settle(&mut m);
    assert_eq!(&m.bus.ram[0x10_7000..0x10_7008], b"pad data");
    assert_eq!(dstat(&m) & D_STAT_CIS5, 0, "plain data raises no interrupt");
}
