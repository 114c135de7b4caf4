//! Loads and stores: widths and extension, LWL/LWR/SWL/SWR at every alignment, address and bus
//! errors, the load delay slot (each rule), cache isolation.

#[path = "cpu_harness.rs"]
mod harness;

use harness::*;
use piney_iop::cpu::{ExceptionKind, PendingLoad, cop0reg, sr};

/// A machine with `$a0 = DATA` and `words` at DATA.
fn with_data(p: &[u32], words: &[u32]) -> Machine {
    let mut m = Machine::new(p);
    for (k, &w) in words.iter().enumerate() {
        m.ram.set_word(DATA + 4 * k as u32, w);
    }
    m.cpu.gpr[A0] = DATA;
    m
}

#[test]
fn load_widths_and_extension() {
    let p = [
        lb(T0, 0, A0),
        lbu(T1, 0, A0),
        lh(T2, 2, A0),
        lhu(T3, 2, A0),
        lw(S0, 4, A0),
        lb(S1, 1, A0),
        nop(),
    ];
    let mut m = with_data(&p, &[0x8000_7f80, 0x1234_5678]);
    m.run();
    assert_eq!(m.r(T0), 0xffff_ff80);
    assert_eq!(m.r(T1), 0x80);
    assert_eq!(m.r(T2), 0xffff_8000);
    assert_eq!(m.r(T3), 0x8000);
    assert_eq!(m.r(S0), 0x1234_5678);
    assert_eq!(m.r(S1), 0x7f);
}

#[test]
fn store_widths() {
    let p = [sb(T0, 1, A0), sh(T0, 6, A0), sw(T0, 8, A0), sb(T0, -1, A1)];
    let mut m = with_data(&p, &[0, 0, 0]);
    m.cpu.gpr[T0] = 0xaabb_ccdd;
    m.cpu.gpr[A1] = DATA + 16;
    m.run();
    assert_eq!(m.ram.word(DATA), 0x0000_dd00);
    assert_eq!(m.ram.word(DATA + 4), 0xccdd_0000);
    assert_eq!(m.ram.word(DATA + 8), 0xaabb_ccdd);
    assert_eq!(m.ram.word(DATA + 12), 0xdd00_0000, "negative offsets");
}

/// Memory bytes 0x11 0x22 0x33 0x44 at DATA, then 0x55 0x66 0x77 0x88.
const BYTES: [u32; 2] = [0x4433_2211, 0x8877_6655];
const REG: u32 = 0xaabb_ccdd;

/// Byte `i` (0 = least significant) of `v`.
fn byte(v: u32, i: u32) -> u32 {
    (v >> (8 * i)) & 0xff
}
fn with_byte(v: u32, i: u32, b: u32) -> u32 {
    (v & !(0xff << (8 * i))) | (b << (8 * i))
}

#[test]
fn lwl_lwr_at_every_alignment() {
    for k in 0..4u32 {
        // LWL at DATA + k: memory bytes k..=0 fill the register from its top byte down.
        let mut want_l = REG;
        for i in 0..=k {
            want_l = with_byte(want_l, 3 - (k - i), byte(BYTES[0], i));
        }
        // LWR at DATA + k: memory bytes k..=3 fill the register from its bottom byte up.
        let mut want_r = REG;
        for i in k..4 {
            want_r = with_byte(want_r, i - k, byte(BYTES[0], i));
        }
        let mut m = with_data(
            &[lwl(T0, k as i32, A0), lwr(T1, k as i32, A0), nop()],
            &BYTES,
        );
        m.cpu.gpr[T0] = REG;
        m.cpu.gpr[T1] = REG;
        m.run();
        assert_eq!(m.r(T0), want_l, "lwl +{k}");
        assert_eq!(m.r(T1), want_r, "lwr +{k}");
    }
}

#[test]
fn swl_swr_at_every_alignment() {
    for k in 0..4u32 {
        // SWL at DATA + k: the register's top bytes go to memory bytes k..=0.
        let mut want_l = BYTES[0];
        for i in 0..=k {
            want_l = with_byte(want_l, i, byte(REG, 3 - (k - i)));
        }
        // SWR at DATA + k: the register's bottom bytes go to memory bytes k..=3.
        let mut want_r = BYTES[1];
        for i in k..4 {
            want_r = with_byte(want_r, i, byte(REG, i - k));
        }
        let mut m = with_data(&[swl(T0, k as i32, A0), swr(T0, 4 + k as i32, A0)], &BYTES);
        m.cpu.gpr[T0] = REG;
        m.run();
        assert_eq!(m.ram.word(DATA), want_l, "swl +{k}");
        assert_eq!(m.ram.word(DATA + 4), want_r, "swr +{k}");
    }
}

#[test]
fn unaligned_word_pair_loads_and_stores_any_address() {
    // The usual idiom: lwr r, 0(a); lwl r, 3(a) (no delay needed between them).
    for k in 0..4i32 {
        let p = [
            lwr(T0, k, A0),
            lwl(T0, k + 3, A0),
            nop(),
            swr(T0, k, A1),
            swl(T0, k + 3, A1),
        ];
        let mut m = with_data(&p, &BYTES);
        m.cpu.gpr[A1] = DATA + 0x100;
        m.run();
        let want = (((BYTES[1] as u64) << 32 | BYTES[0] as u64) >> (8 * k)) as u32;
        assert_eq!(m.r(T0), want, "load at +{k}");
        let stored = (m.ram.word(DATA + 0x100) as u64) | ((m.ram.word(DATA + 0x104) as u64) << 32);
        assert_eq!((stored >> (8 * k)) as u32, want, "store at +{k}");
    }
}

#[test]
fn misaligned_accesses_raise_address_errors() {
    let cases = [
        (lh(T0, 1, A0), ExceptionKind::AddressLoad, DATA + 1),
        (lhu(T0, 3, A0), ExceptionKind::AddressLoad, DATA + 3),
        (lw(T0, 2, A0), ExceptionKind::AddressLoad, DATA + 2),
        (sh(T1, 1, A0), ExceptionKind::AddressStore, DATA + 1),
        (sw(T1, 3, A0), ExceptionKind::AddressStore, DATA + 3),
    ];
    for (word, kind, addr) in cases {
        let mut m = with_data(&[word], &[0x1234_5678]);
        m.cpu.gpr[T0] = 0x55;
        m.cpu.gpr[T1] = 0xffff_ffff;
        let e = m.step().unwrap_err();
        assert_eq!((e.kind, e.addr, e.pc, e.word), (kind, addr, BASE, word));
        assert_eq!(m.r(T0), 0x55, "no load");
        assert_eq!(m.cpu.load, PendingLoad::NONE, "nothing in flight");
        assert_eq!(m.ram.word(DATA), 0x1234_5678, "no store");
        m.cpu.enter_exception(&e);
        assert_eq!(m.cpu.cop0.bad_vaddr, addr);
        assert_eq!(m.cpu.cop0.epc, BASE);
        assert_eq!((m.cpu.cop0.cause >> 2) & 0x1f, kind.code());
    }
    // Bytes have no alignment; LWL/LWR/SWL/SWR never fault on alignment.
    let mut m = with_data(&[lb(T0, 3, A0), lwl(T1, 1, A0), swr(T1, 2, A0)], &[0]);
    m.run();
}

#[test]
fn bus_errors() {
    let bad = 0x0100_0000; // past the 2 MiB of RAM
    for (word, addr) in [
        (lw(T0, 0, A0), bad),
        (sb(T0, 5, A0), bad + 5),
        (lwl(T0, 2, A0), bad),
    ] {
        let mut m = Machine::new(&[word]);
        m.cpu.gpr[A0] = bad;
        m.cpu.gpr[T0] = 7;
        let e = m.step().unwrap_err();
        assert_eq!((e.kind, e.addr), (ExceptionKind::BusData, addr));
        assert_eq!(m.r(T0), 7);
        m.cpu.cop0.bad_vaddr = 0x1111;
        m.cpu.enter_exception(&e);
        assert_eq!(m.cpu.cop0.bad_vaddr, 0x1111, "bus errors leave BadVaddr");
    }
    // A fetch from nowhere.
    let mut m = Machine::new(&[j(bad), nop()]);
    m.steps(2);
    let e = m.step().unwrap_err();
    assert_eq!(
        (e.kind, e.addr, e.pc, e.word),
        (ExceptionKind::BusFetch, bad, bad, 0)
    );
}

// ---------------------------------------------------------------- the load delay slot

/// `lui t0, 0x1122; ori t0, t0, 0x3344; <load> t0, 0(a0)`, then `rest`, with 0x13371337 at a0
/// (the ps2autotests tests/cpu/iop/lsudelay set-up).
fn lsudelay(load: fn(usize, i32, usize) -> u32, rest: &[u32]) -> Machine {
    let mut p = li(T0, 0x1122_3344).to_vec();
    p.push(load(T0, 0, A0));
    p.extend_from_slice(rest);
    let mut m = with_data(&p, &[0x1337_1337]);
    m.run();
    m
}

#[test]
fn the_next_instruction_sees_the_old_value() {
    let m = lsudelay(lw, &[or(S0, ZERO, T0), nop()]);
    assert_eq!(m.r(S0), 0x1122_3344);
    assert_eq!(m.r(T0), 0x1337_1337, "landed after one instruction");
    let m = lsudelay(lb, &[or(S0, ZERO, T0), nop()]);
    assert_eq!(m.r(S0), 0x1122_3344);
}

#[test]
fn one_instruction_later_the_load_has_landed() {
    let m = lsudelay(lw, &[nop(), or(S0, ZERO, T0), nop()]);
    assert_eq!(m.r(S0), 0x1337_1337);
    let m = lsudelay(lb, &[nop(), or(S0, ZERO, T0), nop()]);
    assert_eq!(m.r(S0), 0x0000_0037);
}

#[test]
fn a_write_in_the_delay_slot_wins() {
    let m = lsudelay(lw, &[ori(T0, ZERO, 0), or(S0, ZERO, T0), nop()]);
    assert_eq!(m.r(S0), 0);
    assert_eq!(m.r(T0), 0, "the load never lands");
    let m = lsudelay(lb, &[ori(T0, ZERO, 0), or(S0, ZERO, T0), nop()]);
    assert_eq!(m.r(S0), 0);
}

#[test]
fn a_branch_in_the_delay_slot_compares_the_old_value() {
    // lw t0; beq t0, t1 with t1 = the old value: taken (lsudelay "lw then branch: 2").
    let p = prog(&[
        &li(T0, 0x1122_3344),
        &[
            ori(T1, T0, 0),
            lw(T0, 0, A0),
            beq(T0, T1, 4),
            nop(),
            ori(S0, ZERO, 1),
            j(BASE + 4 * 12),
            nop(),
            ori(S0, ZERO, 2),
            nop(),
            nop(),
            nop(),
        ],
    ]);
    let mut m = with_data(&p, &[0x1337_1337]);
    m.run();
    assert_eq!(m.r(S0), 2);
}

#[test]
fn two_loads_in_a_row_the_second_wins() {
    // The expansion of `ld` on MIPS I (two LWs), from lsudelay's "ld 1"/"ld 2".
    let p = prog(&[
        &li(T0, 0x1122_3344),
        &[
            ori(T1, T0, 0),
            lw(T0, 0, A0),
            lw(T1, 4, A0),
            ori(T1, ZERO, 0),
        ],
        &[or(S0, T0, ZERO), or(S1, T1, ZERO), nop()],
    ]);
    let mut m = with_data(&p, &[0x1337_1337, 0x1337_1337]);
    m.run();
    assert_eq!((m.r(S0), m.r(S1)), (0x1337_1337, 0), "ld 1");
    // Two loads to the same register: the first never lands.
    let p = prog(&[
        &li(T0, 0x1122_3344),
        &[
            lw(T0, 0, A0),
            lw(T0, 4, A0),
            or(S0, ZERO, T0),
            or(S1, ZERO, T0),
        ],
    ]);
    let mut m = with_data(&p, &[0xaaaa_aaaa, 0xbbbb_bbbb]);
    m.run();
    assert_eq!(m.r(S0), 0x1122_3344, "neither load visible yet");
    assert_eq!(m.r(S1), 0xbbbb_bbbb, "only the second lands");
}

#[test]
fn lwl_lwr_merge_with_the_value_in_flight() {
    // lw t0 (in flight), then lwl t0: the merge starts from the loaded value, not the old one.
    let p = prog(&[
        &li(T0, 0x1122_3344),
        &[lw(T0, 4, A0), lwl(T0, 0, A0), nop()],
    ]);
    let mut m = with_data(&p, &BYTES);
    m.run();
    assert_eq!(m.r(T0), (0x11 << 24) | (BYTES[1] & 0x00ff_ffff));
    // lwr then lwl to one register, no nop between.
    let p = prog(&[
        &li(T0, 0),
        &[lwr(T0, 1, A0), lwl(T0, 4, A0), or(S0, ZERO, T0), nop()],
    ]);
    let mut m = with_data(&p, &BYTES);
    m.run();
    assert_eq!(
        m.r(S0),
        0,
        "the pair is still in flight for the next instruction"
    );
    assert_eq!(m.r(T0), 0x5544_3322);
}

#[test]
fn loads_to_zero_and_other_registers() {
    let p = [
        lw(ZERO, 0, A0),
        lw(T0, 0, A0),
        lw(T1, 4, A0),
        or(S0, ZERO, T0),
        nop(),
    ];
    let mut m = with_data(&p, &[5, 6]);
    m.run();
    assert_eq!((m.r(ZERO), m.r(T0), m.r(T1), m.r(S0)), (0, 5, 6, 5));
}

#[test]
fn native_code_can_land_the_load() {
    let mut m = with_data(&[lw(T0, 0, A0)], &[0x99]);
    m.steps(1);
    assert_eq!(
        m.cpu.load,
        PendingLoad {
            reg: T0 as u8,
            value: 0x99
        }
    );
    assert_eq!(m.r(T0), 0);
    m.cpu.flush_load_delay();
    assert_eq!(m.r(T0), 0x99);
    assert_eq!(m.cpu.load, PendingLoad::NONE);
    // set_pc lands it too, and so does an exception entry.
    let mut m = with_data(&[lw(T0, 0, A0)], &[0x77]);
    m.steps(1);
    m.cpu.set_pc(0x2000);
    assert_eq!((m.r(T0), m.cpu.pc, m.cpu.next_pc), (0x77, 0x2000, 0x2004));
    let mut m = with_data(&[lw(T0, 0, A0), syscall(0)], &[0x66]);
    m.steps(1);
    let e = m.step().unwrap_err();
    assert_eq!(
        m.cpu.load.reg as usize, T0,
        "still in flight when the SYSCALL faults"
    );
    m.cpu.enter_exception(&e);
    assert_eq!(m.r(T0), 0x66);
}

#[test]
fn set_gpr_cancels_a_load_in_flight() {
    let mut m = with_data(&[lw(T0, 0, A0)], &[0x42]);
    m.steps(1);
    m.cpu.set_gpr(T0, 3);
    assert_eq!(m.cpu.load, PendingLoad::NONE);
    m.cpu.flush_load_delay();
    assert_eq!(m.r(T0), 3);
}

// ---------------------------------------------------------------- cache isolation

#[test]
fn isolated_cache_stores_do_not_reach_memory() {
    let kseg0 = 0x8000_0000 | DATA;
    let kseg1 = 0xa000_0000 | DATA;
    let p = prog(&[
        &li(T1, sr::ISC),
        &[mtc0(T1, cop0reg::SR)],
        &li(A1, kseg0),
        &li(A2, kseg1),
        &[
            sw(T0, 0, A0),   // kuseg: dropped
            sb(T0, 4, A1),   // kseg0: dropped
            sh(T0, 8, A1),   // dropped
            swl(T0, 12, A0), // dropped
            sw(T0, 16, A2),  // kseg1 is uncached: reaches memory
            lw(S0, 20, A0),  // loads still read memory
            mtc0(ZERO, cop0reg::SR),
            sw(T0, 24, A1), // no longer isolated
            nop(),
        ],
    ]);
    let mut m = with_data(&p, &[1, 2, 3, 4, 5, 6, 7]);
    m.cpu.gpr[T0] = 0xcafe_f00d;
    m.run();
    let words: Vec<u32> = (0..7).map(|k| m.ram.word(DATA + 4 * k)).collect();
    assert_eq!(words, [1, 2, 3, 4, 0xcafe_f00d, 6, 0xcafe_f00d]);
    assert_eq!(m.r(S0), 6);
}
