//! Sizes read from untrusted input are not allocated before the data is there (issue 17; each
//! found by piney-fuzz): a PNG's header, a local->host transfer's rectangle, a dump's readback
//! count. A counting allocator records the largest single allocation each test thread makes.
// The counting allocator is an `unsafe impl GlobalAlloc` forwarding to the system's
// (workspace lint `unsafe_code = "deny"` lifted for this test binary alone).
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use piney_gs::dump::{GsDump, Packet, SavedState};
use piney_gs::gs::reg;
use piney_gs::{Gs, Image, LocalMemory, SoftwareRenderer};

thread_local! {
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

struct Counting;

// SAFETY: every call forwards to `System` unchanged; the bookkeeping is a const-initialised
// thread-local `Cell`.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let _ = LARGEST.try_with(|c| c.set(c.get().max(l.size())));
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc(l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let _ = LARGEST.try_with(|c| c.set(c.get().max(l.size())));
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: `p` came from `System` with `l`.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        let _ = LARGEST.try_with(|c| c.set(c.get().max(n)));
        // SAFETY: as above.
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// The largest allocation this thread made while running `f`.
fn largest<T>(f: impl FnOnce() -> T) -> (T, usize) {
    LARGEST.with(|c| c.set(0));
    let r = f();
    (r, LARGEST.with(Cell::get))
}

/// CRC-32 (PNG's).
fn crc32(data: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in data {
        c ^= b as u32;
        for _ in 0..8 {
            c = if c & 1 != 0 {
                0xedb8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
    }
    !c
}

fn chunk(out: &mut Vec<u8>, kind: &[u8], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let mut body = kind.to_vec();
    body.extend_from_slice(data);
    out.extend_from_slice(&body);
    out.extend_from_slice(&crc32(&body).to_be_bytes());
}

/// A 57-byte PNG whose header claims 8192 x 8192 RGBA pixels (256 MiB decoded), with an empty
/// IDAT chunk: what piney-fuzz made of a golden frame.
#[test]
fn a_png_header_is_not_trusted_with_the_allocation() {
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = 8192u32.to_be_bytes().to_vec();
    ihdr.extend_from_slice(&8192u32.to_be_bytes());
    ihdr.extend_from_slice(&[8, 6, 0, 0, 0]);
    chunk(&mut png, b"IHDR", &ihdr);
    chunk(&mut png, b"IDAT", &[]);
    chunk(&mut png, b"IEND", &[]);
    assert_eq!(png.len(), 57);
    let dir = std::env::temp_dir().join(format!("piney-gs-bounded-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("claims-8192.png");
    std::fs::write(&path, &png).unwrap();
    let (r, most) = largest(|| Image::read_png(&path));
    let err = r
        .expect_err("the header's pixels are not in the file")
        .to_string();
    assert!(
        err.contains("8192x8192") && !err.contains('\n'),
        "one line naming the size: {err}"
    );
    assert!(most < 1 << 20, "{most} bytes allocated for a 57-byte file");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A local->host transfer of 4095 x 4095 32-bit pixels (64 MiB) is read as the host drains
/// it: starting it, and reading its first and last qwords, allocate a chunk, not its size.
#[test]
fn a_readback_is_fetched_as_the_host_reads() {
    let mut g = Gs::new(SoftwareRenderer::new());
    // Four known pixels, (0, 0) to (3, 0) of a PSMCT32 buffer at block 0 (all in its first
    // block, whatever the buffer's width): the readback's first four pixels.
    g.write_reg(reg::BITBLTBUF, 1u64 << 48).unwrap(); // DBP 0, DBW 1, PSMCT32
    g.write_reg(reg::TRXPOS, 0).unwrap();
    g.write_reg(reg::TRXREG, 4 | 1u64 << 32).unwrap(); // 4 x 1
    g.write_reg(reg::TRXDIR, 0).unwrap();
    let pixels: u128 = 0x4444_4444_3333_3333_2222_2222_1111_1111;
    g.write_image(&[pixels]);
    let (_, most) = largest(|| {
        g.write_reg(reg::BITBLTBUF, 1u64 << 16).unwrap(); // SBP 0, SBW 1, PSMCT32
        g.write_reg(reg::TRXREG, 4095 | 4095u64 << 32).unwrap();
        g.write_reg(reg::TRXDIR, 1).unwrap();
    });
    assert!(
        most < 4 << 20,
        "{most} bytes allocated to start a 64 MiB readback"
    );
    let total = 4095usize * 4095 * 4;
    assert_eq!(g.readback_pending(), total.next_multiple_of(16));
    let mut q = [0u128; 1];
    assert_eq!(g.read_image(&mut q), 1);
    assert_eq!(q[0], pixels, "the first qword is the first four pixels");
    // Drain the rest a buffer at a time: the count is the rectangle's, in whole qwords.
    let (read, most) = largest(|| {
        let mut buf = vec![0u128; 4096];
        let mut n = 1;
        loop {
            let got = g.read_image(&mut buf);
            if got == 0 {
                break n;
            }
            n += got;
        }
    });
    assert_eq!(read, total.div_ceil(16));
    assert_eq!(g.readback_pending(), 0);
    assert!(most < 4 << 20, "{most} bytes allocated while draining");
}

/// A dump's ReadFifo2 packet asks the host to read 0xffffffff qwords: the replay drains what
/// the GS has a buffer at a time (piney-fuzz found a 16 MiB buffer set aside from the word).
#[test]
fn a_dump_readback_count_is_not_an_allocation() {
    let dump = GsDump {
        crc: 0,
        header: None,
        state: SavedState::build_v8(&[], &LocalMemory::new()),
        regs: vec![0; piney_gs::dump::PRIV_BLOCK],
        packets: vec![Packet::ReadFifo2(u32::MAX), Packet::VSync(0)],
        dropped_tail: None,
    };
    let bytes = dump.to_bytes();
    let dump = GsDump::parse(&bytes).unwrap();
    let (r, most) = largest(|| piney_gs::dump::replay(&dump, SoftwareRenderer::new(), |_, _| true));
    let (_, stats) = r.unwrap();
    assert_eq!(stats.vsyncs, 1);
    // The renderer's own local memory (4 MiB) is the largest thing a replay needs.
    assert!(
        most <= 4 << 20,
        "{most} bytes allocated for a readback count"
    );
}
