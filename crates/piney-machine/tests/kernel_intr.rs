//! The HLE kernel's interrupt, DMAC and alarm handlers, and SetSyscall: guest code the kernel
//! calls and that returns through it.

mod kernel_support;

use kernel_support::{Asm, DATA, log, machine, r, run, sc};
use piney_machine::RunEnd;

const NEG1: u32 = u32::MAX;
/// Where the programs keep their semaphore's id for their handlers.
const SEMA_ID: u32 = DATA + 0x80;

/// A handler body: iSignalSema(the program's semaphore), log `marker` and `a1`, return `ret`.
fn handler(a: &mut Asm, name: &str, marker: u32, ret: u32) {
    a.label(name).mv(r::S2, r::A1).mv(r::S0, r::A0);
    a.li(r::T0, SEMA_ID)
        .lw(r::A0, 0, r::T0)
        .sys(sc::I_SIGNAL_SEMA);
    a.log_imm(marker)
        .log(r::S0)
        .log(r::S2)
        .li(r::V0, ret)
        .jr(r::RA);
}

/// INTC handlers of one line run in list order (`next` 0: first, -1: last, an id: before that
/// handler), get the line and their argument, and a negative return ends the chain. The main
/// thread, idle while it waits, is woken by iSignalSema from a handler.
#[test]
fn intc_handlers_order_and_chain_end() {
    let mut a = Asm::new();
    a.create_sema(DATA, 0, 9)
        .mv(r::S1, r::V0)
        .li(r::T0, SEMA_ID)
        .sw(r::V0, 0, r::T0);
    // h1 last, h2 first, h3 before h1, h4 last: order h2 h3 h1 h4; h3 returns -1.
    a.li(r::A0, 2)
        .la(r::A1, "h1")
        .li(r::A2, NEG1)
        .li(r::A3, 0x11)
        .sys(sc::ADD_INTC_HANDLER)
        .mv(r::S0, r::V0);
    a.li(r::A0, 2)
        .la(r::A1, "h2")
        .li(r::A2, 0)
        .li(r::A3, 0x22)
        .sys(sc::ADD_INTC_HANDLER);
    a.li(r::A0, 2)
        .la(r::A1, "h3")
        .mv(r::A2, r::S0)
        .li(r::A3, 0x33)
        .sys(sc::ADD_INTC_HANDLER);
    a.li(r::A0, 2)
        .la(r::A1, "h4")
        .li(r::A2, NEG1)
        .li(r::A3, 0x44)
        .sys(sc::ADD_INTC_HANDLER);
    a.li(r::A0, 2).sys(sc::ENABLE_INTC).log(r::V0);
    a.li(r::A0, 2).sys(sc::ENABLE_INTC).log(r::V0);
    a.mv(r::A0, r::S1).sys(sc::WAIT_SEMA).log_imm(0x1000);
    a.mv(r::A0, r::S1).sys(sc::WAIT_SEMA).log_imm(0x1001);
    a.li(r::A0, 2).sys(sc::DISABLE_INTC).log(r::V0);
    a.li(r::A0, 2)
        .mv(r::A1, r::S0)
        .sys(sc::REMOVE_INTC_HANDLER)
        .log(r::V0);
    a.li(r::A0, 2)
        .mv(r::A1, r::S0)
        .sys(sc::REMOVE_INTC_HANDLER)
        .log(r::V0);
    a.exit();
    handler(&mut a, "h1", 0xe1, 0);
    handler(&mut a, "h2", 0xe2, 0);
    handler(&mut a, "h3", 0xe3, NEG1);
    handler(&mut a, "h4", 0xe4, 0);

    let mut m = machine(&a);
    assert_eq!(run(&mut m, 10).unwrap(), RunEnd::Exited(0));
    assert_eq!(
        log(&mut m),
        [
            1, 0, 0xe2, 2, 0x22, 0xe3, 2, 0x33, 0x1000, 0x1001, 1, 3, NEG1
        ]
    );
    // DisableIntc cleared the mask bit; the kernel acknowledged the line it serviced.
    assert_eq!(m.bus.intc.mask & 4, 0);
    assert_eq!(m.bus.intc.stat & 4, 0);
}

/// A DMAC channel's completion (D_STAT CIS with its mask bit set) calls its handlers with the
/// channel number; the kernel clears CIS.
#[test]
fn dmac_handler_runs_on_channel_interrupt() {
    let mut a = Asm::new();
    a.create_sema(DATA, 0, 9)
        .mv(r::S1, r::V0)
        .li(r::T0, SEMA_ID)
        .sw(r::V0, 0, r::T0);
    a.li(r::A0, 5)
        .la(r::A1, "hd")
        .li(r::A2, NEG1)
        .li(r::A3, 0x99)
        .sys(sc::ADD_DMAC_HANDLER)
        .log(r::V0);
    a.li(r::A0, 5).sys(sc::ENABLE_DMAC).log(r::V0);
    a.mv(r::A0, r::S1).sys(sc::WAIT_SEMA).log_imm(0x1000);
    a.li(r::T0, 0x1000_e010).lw(r::T1, 0, r::T0).log(r::T1);
    a.exit();
    handler(&mut a, "hd", 0xd5, 0);

    let mut m = machine(&a);
    // The main thread waits; the machine idles through two frames.
    assert_eq!(run(&mut m, 2).unwrap(), RunEnd::FrameLimit);
    assert_eq!(log(&mut m), [1, 1]);
    // Channel 5 completes.
    m.bus.io[0xe010 / 4] |= 1 << 5;
    m.bus.irq_changed();
    assert_eq!(run(&mut m, 4).unwrap(), RunEnd::Exited(0));
    assert_eq!(log(&mut m), [1, 1, 0xd5, 5, 0x99, 0x1000, 1 << (16 + 5)]);
}

/// SetAlarm calls its handler once with (id, time, arg) after the given HSYNC count; a released
/// alarm never fires.
#[test]
fn alarms_fire_once_after_their_time() {
    let mut a = Asm::new();
    a.create_sema(DATA, 0, 9)
        .mv(r::S1, r::V0)
        .li(r::T0, SEMA_ID)
        .sw(r::V0, 0, r::T0);
    a.li(r::A0, 50)
        .la(r::A1, "bad")
        .li(r::A2, 0)
        .sys(sc::SET_ALARM)
        .mv(r::S0, r::V0);
    a.mv(r::A0, r::S0).sys(sc::RELEASE_ALARM).log(r::V0);
    a.mv(r::A0, r::S0).sys(sc::RELEASE_ALARM).log(r::V0);
    a.li(r::A0, 300)
        .la(r::A1, "ha")
        .li(r::A2, 0x42)
        .sys(sc::SET_ALARM)
        .log(r::V0);
    a.mv(r::A0, r::S1).sys(sc::WAIT_SEMA).log_imm(0x1000);
    a.exit();
    a.label("ha").mv(r::S0, r::A0).mv(r::S2, r::A2);
    a.li(r::T0, SEMA_ID)
        .lw(r::A0, 0, r::T0)
        .sys(sc::I_SIGNAL_SEMA);
    a.log_imm(0xa1).log(r::S0).log(r::S2).jr(r::RA);
    a.label("bad").log_imm(0xbad).jr(r::RA);

    let mut m = machine(&a);
    assert_eq!(run(&mut m, 10).unwrap(), RunEnd::Exited(0));
    assert_eq!(log(&mut m), [0, NEG1, 0, 0xa1, 0, 0x42, 0x1000]);
    // 300 lines of 1/15734 s each at 294.912 MHz: at least 5.6 million cycles passed.
    assert!(m.cpu.cycles >= 300 * 18_743, "{}", m.cpu.cycles);
}

/// SetSyscall installs guest code as a syscall: it runs with the caller's arguments, its $v0 is
/// the result, and the caller's $ra survives. The table is where ps2sdk's GetSyscallHandler
/// looks, and a native entry read from it can be called like a function.
#[test]
fn set_syscall_runs_guest_code() {
    let mut a = Asm::new();
    a.li(r::A0, 0x90).la(r::A1, "add").sys(sc::SET_SYSCALL);
    a.jal("call").log(r::V0).log_imm(0x77);
    // Call the native GetThreadId through its table entry (the table address from 0x800002f0).
    a.li(r::T0, 0x8000_02f0)
        .lw(r::T1, 0, r::T0)
        .lw(r::T2, 8, r::T0);
    a.word(0x0009_4c00); // sll t1, t1, 16
    a.word(0x314a_ffff); // andi t2, t2, 0xffff
    a.word(0x012a_4825); // or t1, t1, t2
    a.lw(r::T1, 4 * 0x2f, r::T1).jalr(r::T1).log(r::V0);
    a.exit();
    a.label("call")
        .mv(r::S0, r::RA)
        .li(r::A0, 5)
        .li(r::A1, 7)
        .sys(0x90)
        .jr(r::RA);
    a.label("add").addu(r::V0, r::A0, r::A1).jr(r::RA);

    let mut m = machine(&a);
    assert_eq!(run(&mut m, 10).unwrap(), RunEnd::Exited(0));
    assert_eq!(log(&mut m), [12, 0x77, 1]);
}

/// SetSyscall(0x12c, handler) installs the kernel-level handler of INTC line 12 (timer 3), as
/// ps2sdk's alarm library does: it runs, first, when the line interrupts.
#[test]
fn set_syscall_0x12c_handles_timer3() {
    let mut a = Asm::new();
    a.create_sema(DATA, 0, 9)
        .mv(r::S1, r::V0)
        .li(r::T0, SEMA_ID)
        .sw(r::V0, 0, r::T0);
    a.li(r::A0, 12)
        .la(r::A1, "h1")
        .li(r::A2, NEG1)
        .li(r::A3, 0x11)
        .sys(sc::ADD_INTC_HANDLER);
    a.li(r::A0, 0x12c).la(r::A1, "ht").sys(sc::SET_SYSCALL);
    a.mv(r::A0, r::S1).sys(sc::WAIT_SEMA).log_imm(0x1000);
    a.exit();
    handler(&mut a, "ht", 0x12c, 0);
    handler(&mut a, "h1", 0xe1, 0);

    let mut m = machine(&a);
    assert_eq!(run(&mut m, 2).unwrap(), RunEnd::FrameLimit);
    assert_ne!(m.bus.intc.mask & (1 << 12), 0, "the line is unmasked");
    // Timer 3 reaches its compare value.
    m.bus.intc.raise(12);
    m.bus.irq_changed();
    assert_eq!(run(&mut m, 4).unwrap(), RunEnd::Exited(0));
    assert_eq!(log(&mut m), [0x12c, 12, 0, 0xe1, 12, 0x11, 0x1000]);
}

/// A handler that wakes a better thread preempts the running thread when the dispatch ends; the
/// preempted thread later resumes where it was.
#[test]
fn handler_wakeup_preempts_a_running_thread() {
    const COUNTER: u32 = DATA + 0x90;
    const LOW_ID: u32 = DATA + 0x94;
    let mut a = Asm::new();
    a.create_thread(DATA, "high", 0, 0x10)
        .mv(r::S0, r::V0)
        .li(r::T0, SEMA_ID)
        .sw(r::V0, 0, r::T0);
    a.create_thread(DATA, "low", 1, 0x20)
        .mv(r::S1, r::V0)
        .li(r::T0, LOW_ID)
        .sw(r::V0, 0, r::T0);
    a.li(r::A0, 2)
        .la(r::A1, "hw")
        .li(r::A2, NEG1)
        .li(r::A3, 0)
        .sys(sc::ADD_INTC_HANDLER);
    a.mv(r::A0, r::S0).sys(sc::START_THREAD);
    a.mv(r::A0, r::S1).sys(sc::START_THREAD);
    a.li(r::A0, 0)
        .li(r::A1, 0x30)
        .sys(sc::CHANGE_THREAD_PRIORITY);
    // Runs once both threads are gone.
    a.li(r::A0, 2).sys(sc::DISABLE_INTC).log_imm(0x1000).exit();
    // high: enable the handler, then sleep; each VBlank wakes it.
    a.label("high").li(r::A0, 2).sys(sc::ENABLE_INTC);
    a.sys(sc::SLEEP_THREAD).log_imm(0x41).log(r::V0);
    a.li(r::T0, COUNTER).lw(r::S2, 0, r::T0).log(r::S2);
    a.sys(sc::SLEEP_THREAD).log_imm(0x42);
    a.li(r::T0, COUNTER).lw(r::T1, 0, r::T0).log(r::T1);
    a.li(r::T0, LOW_ID)
        .lw(r::A0, 0, r::T0)
        .sys(sc::TERMINATE_THREAD)
        .log(r::V0)
        .jr(r::RA);
    // low: count forever.
    a.label("low").li(r::T0, COUNTER).label("spin");
    a.lw(r::T1, 0, r::T0)
        .addiu(r::T1, r::T1, 1)
        .sw(r::T1, 0, r::T0)
        .j("spin");
    a.label("hw")
        .li(r::T0, SEMA_ID)
        .lw(r::A0, 0, r::T0)
        .sys(sc::I_WAKEUP_THREAD);
    a.li(r::V0, 0).jr(r::RA);

    let mut m = machine(&a);
    let end = run(&mut m, 10);
    let l = log(&mut m);
    assert_eq!(end.unwrap(), RunEnd::Exited(0), "{l:x?}");
    assert_eq!(l.len(), 7, "{l:x?}");
    assert_eq!([l[0], l[1], l[3], l[5], l[6]], [0x41, 2, 0x42, 3, 0x1000]);
    // The low thread ran between the wakeups, and kept counting after being preempted.
    assert!(l[2] > 1000 && l[4] > l[2] + 1000, "{l:x?}");
}

/// iRotateThreadReadyQueue in a handler reorders the ready queue but does not switch threads
/// when the dispatch ends (the real kernel's behaviour, which ps2sdk works around): a busy
/// thread that makes no syscall keeps the CPU from its equal.
#[test]
fn rotate_from_a_handler_does_not_switch() {
    const CA: u32 = DATA + 0x90;
    const CB: u32 = DATA + 0x94;
    let mut a = Asm::new();
    a.create_thread(DATA, "ta", 0, 0x20)
        .mv(r::A0, r::V0)
        .sys(sc::START_THREAD);
    a.create_thread(DATA, "tb", 1, 0x20)
        .mv(r::A0, r::V0)
        .sys(sc::START_THREAD);
    a.li(r::A0, 2)
        .la(r::A1, "hr")
        .li(r::A2, NEG1)
        .li(r::A3, 0)
        .sys(sc::ADD_INTC_HANDLER);
    a.li(r::A0, 2).sys(sc::ENABLE_INTC);
    a.sys(sc::SLEEP_THREAD);
    for (name, counter) in [("ta", CA), ("tb", CB)] {
        let spin = format!("{name}_spin");
        a.label(name).li(r::T0, counter).label(&spin);
        a.lw(r::T1, 0, r::T0)
            .addiu(r::T1, r::T1, 1)
            .sw(r::T1, 0, r::T0)
            .j(&spin);
    }
    a.label("hr")
        .li(r::A0, 0x20)
        .sys(-0x2c)
        .li(r::V0, 0)
        .jr(r::RA);

    let mut m = machine(&a);
    assert_eq!(run(&mut m, 4).unwrap(), RunEnd::FrameLimit);
    let mut w = [0; 4];
    m.bus.read_bytes(CA, &mut w).unwrap();
    let ca = u32::from_le_bytes(w);
    m.bus.read_bytes(CB, &mut w).unwrap();
    let cb = u32::from_le_bytes(w);
    assert!(ca > 10_000 && cb == 0, "a {ca}, b {cb}");
}
