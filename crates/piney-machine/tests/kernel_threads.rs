//! The HLE kernel's threads and semaphores, driven by hand-assembled guest programs that log what
//! they see.

mod kernel_support;

use std::sync::Arc;

use kernel_support::{Asm, DATA, log, log_word, machine, r, run, sc};
use piney_machine::hooks::{HookFn, HookResult};
use piney_machine::kernel::NativeCall;
use piney_machine::{MachineError, RunEnd};

const NEG1: u32 = u32::MAX;

/// Priorities decide who runs: a lower-priority thread runs only when the main thread sleeps,
/// a wakeup of a better thread preempts at once, and a preempted thread resumes with its
/// registers intact.
#[test]
fn priority_preemption_sleep_and_wakeup() {
    let mut a = Asm::new();
    a.log_imm(0x100);
    a.create_thread(DATA, "t2", 0, 0x10)
        .mv(r::S0, r::V0)
        .log(r::V0);
    a.mv(r::A0, r::S0)
        .li(r::A1, 0x55)
        .sys(sc::START_THREAD)
        .log(r::V0);
    a.log_imm(0x101);
    a.sys(sc::SLEEP_THREAD).log(r::V0).log_imm(0x102);
    a.mv(r::A0, r::S0)
        .li(r::A1, DATA + 0x40)
        .sys(sc::REFER_THREAD_STATUS)
        .log(r::V0);
    a.sys(sc::SLEEP_THREAD);
    a.log_imm(0x103);
    a.mv(r::A0, r::S0)
        .li(r::A1, DATA + 0x40)
        .sys(sc::REFER_THREAD_STATUS)
        .log(r::V0);
    a.mv(r::A0, r::S0).sys(sc::TERMINATE_THREAD).log(r::V0);
    a.mv(r::A0, r::S0)
        .li(r::A1, DATA + 0x40)
        .sys(sc::REFER_THREAD_STATUS)
        .log(r::V0);
    a.mv(r::A0, r::S0).sys(sc::DELETE_THREAD).log(r::V0);
    a.mv(r::A0, r::S0).sys(sc::DELETE_THREAD).log(r::V0);
    a.exit();

    a.label("t2");
    a.mv(r::S1, r::A0).log_imm(0x200).log(r::S1);
    a.li(r::A0, 1).sys(sc::WAKEUP_THREAD);
    a.log(r::V0);
    a.li(r::A0, 1).sys(sc::WAKEUP_THREAD);
    a.log_imm(0xdead);
    a.jr(r::RA);

    let mut m = machine(&a);
    assert_eq!(run(&mut m, 10).unwrap(), RunEnd::Exited(0));
    assert_eq!(
        log(&mut m),
        [
            0x100, 2, 2, 0x101, 0x200, 0x55, 1, 0x102, 2, 1, 0x103, 2, 2, 0x10, 2, NEG1
        ]
    );
}

/// Equal priorities run in FIFO order; RotateThreadReadyQueue moves the first thread of a
/// priority to the back; a returning thread exits.
#[test]
fn round_robin_only_when_asked() {
    let mut a = Asm::new();
    a.create_thread(DATA, "ta", 0, 0x30)
        .mv(r::A0, r::V0)
        .sys(sc::START_THREAD);
    a.create_thread(DATA, "tb", 1, 0x30)
        .mv(r::A0, r::V0)
        .sys(sc::START_THREAD);
    a.log_imm(0x10);
    a.li(r::A0, 0)
        .li(r::A1, 0x30)
        .sys(sc::CHANGE_THREAD_PRIORITY)
        .log(r::V0)
        .log_imm(0x11);
    a.li(r::A0, 0x30)
        .sys(sc::ROTATE_THREAD_READY_QUEUE)
        .log_imm(0x12);
    a.exit();
    a.label("ta")
        .log_imm(0xa1)
        .li(r::A0, 0x30)
        .sys(sc::ROTATE_THREAD_READY_QUEUE)
        .log_imm(0xa2)
        .jr(r::RA);
    a.label("tb")
        .log_imm(0xb1)
        .li(r::A0, 0x30)
        .sys(sc::ROTATE_THREAD_READY_QUEUE)
        .log_imm(0xb2)
        .jr(r::RA);

    let mut m = machine(&a);
    assert_eq!(run(&mut m, 10).unwrap(), RunEnd::Exited(0));
    assert_eq!(log(&mut m), [0x10, 0xa1, 0xb1, 0, 0x11, 0xa2, 0xb2, 0x12]);
}

/// SuspendThread keeps a ready thread from running until ResumeThread; statuses are reported as
/// ps2sdk's THS_* bits.
#[test]
fn suspend_and_resume() {
    let mut a = Asm::new();
    a.create_thread(DATA, "ta", 0, 0x10).mv(r::S0, r::V0);
    a.mv(r::A0, r::S0)
        .li(r::A1, DATA + 0x40)
        .sys(sc::REFER_THREAD_STATUS)
        .log(r::V0);
    a.mv(r::A0, r::S0).sys(sc::SUSPEND_THREAD).log(r::V0);
    a.mv(r::A0, r::S0).sys(sc::START_THREAD);
    a.mv(r::A0, r::S0).sys(sc::SUSPEND_THREAD).log(r::V0);
    a.mv(r::A0, r::S0).sys(sc::SUSPEND_THREAD).log(r::V0);
    a.mv(r::A0, r::S0)
        .li(r::A1, DATA + 0x40)
        .sys(sc::REFER_THREAD_STATUS)
        .log(r::V0);
    a.li(r::A0, 0)
        .li(r::A1, 0x20)
        .sys(sc::CHANGE_THREAD_PRIORITY)
        .log(r::V0);
    a.mv(r::A0, r::S0).sys(sc::RESUME_THREAD).log(r::V0);
    a.mv(r::A0, r::S0)
        .li(r::A1, DATA + 0x40)
        .sys(sc::REFER_THREAD_STATUS)
        .log(r::V0);
    // ee_thread_status_t's priorities and entry.
    a.li(r::T0, DATA + 0x40)
        .lw(r::T1, 0x14, r::T0)
        .log(r::T1)
        .lw(r::T1, 0x18, r::T0)
        .log(r::T1);
    a.exit();
    a.label("ta").log_imm(0xa1).jr(r::RA);

    let mut m = machine(&a);
    assert_eq!(run(&mut m, 10).unwrap(), RunEnd::Exited(0));
    assert_eq!(
        log(&mut m),
        [0x10, NEG1, 2, NEG1, 8, 0, 0xa1, 2, 0x10, 0x10, 0x10]
    );
}

/// Semaphores: waiters are released first come first served, DeleteSema releases them with -1,
/// PollSema never blocks, ReferSemaStatus fills ee_sema_t.
#[test]
fn semaphores() {
    let mut a = Asm::new();
    a.create_sema(DATA, 0, 5).mv(r::S1, r::V0);
    a.create_thread(DATA + 0x100, "ta", 0, 0x10)
        .mv(r::A0, r::V0)
        .mv(r::A1, r::S1)
        .sys(sc::START_THREAD);
    a.create_thread(DATA + 0x100, "tb", 1, 0x10)
        .mv(r::A0, r::V0)
        .mv(r::A1, r::S1)
        .sys(sc::START_THREAD);
    // Let both wait.
    a.li(r::A0, 0)
        .li(r::A1, 0x20)
        .sys(sc::CHANGE_THREAD_PRIORITY);
    a.mv(r::A0, r::S1)
        .li(r::A1, DATA + 0x40)
        .sys(sc::REFER_SEMA_STATUS)
        .log(r::V0);
    a.li(r::T0, DATA + 0x40).lw(r::T1, 12, r::T0).log(r::T1);
    a.mv(r::A0, r::S1).sys(sc::SIGNAL_SEMA).log(r::V0);
    a.mv(r::A0, r::S1).sys(sc::SIGNAL_SEMA).log(r::V0);
    a.mv(r::A0, r::S1).sys(sc::DELETE_SEMA).log(r::V0);
    a.mv(r::A0, r::S1).sys(sc::POLL_SEMA).log(r::V0);
    a.create_sema(DATA, 2, 2).mv(r::S1, r::V0);
    a.mv(r::A0, r::S1).sys(sc::POLL_SEMA).log(r::V0);
    a.mv(r::A0, r::S1).sys(sc::POLL_SEMA).log(r::V0);
    a.mv(r::A0, r::S1).sys(sc::POLL_SEMA).log(r::V0);
    a.exit();
    a.label("ta").mv(r::S0, r::A0);
    a.mv(r::A0, r::S0)
        .sys(sc::WAIT_SEMA)
        .log_imm(0xa1)
        .log(r::V0);
    a.mv(r::A0, r::S0)
        .sys(sc::WAIT_SEMA)
        .log_imm(0xa2)
        .log(r::V0)
        .jr(r::RA);
    a.label("tb").mv(r::S0, r::A0);
    a.mv(r::A0, r::S0)
        .sys(sc::WAIT_SEMA)
        .log_imm(0xb1)
        .log(r::V0)
        .jr(r::RA);

    let mut m = machine(&a);
    assert_eq!(run(&mut m, 10).unwrap(), RunEnd::Exited(0));
    assert_eq!(
        log(&mut m),
        [
            1, 2, 0xa1, 1, 1, 0xb1, 1, 1, 0xa2, NEG1, 1, NEG1, 1, 1, NEG1
        ]
    );
}

/// ps2sdk's crt0 ends with ExitDeleteThread(status) when main returns: the run ends with it.
#[test]
fn main_thread_exit_delete_ends_the_run() {
    let mut a = Asm::new();
    a.li(r::A0, 7).sys(sc::EXIT_DELETE_THREAD).log_imm(0xdead);
    let mut m = machine(&a);
    assert_eq!(run(&mut m, 10).unwrap(), RunEnd::Exited(7));
    assert!(log(&mut m).is_empty());
}

/// Every thread waiting with nothing that could wake one is a deadlock, not a hang.
#[test]
fn waiting_forever_is_a_deadlock() {
    let mut a = Asm::new();
    a.create_sema(DATA, 0, 1)
        .mv(r::A0, r::V0)
        .sys(sc::WAIT_SEMA)
        .exit();
    let mut m = machine(&a);
    assert!(matches!(
        run(&mut m, 100),
        Err(MachineError::Deadlock { .. })
    ));
}

/// An unknown syscall ends the run naming its number and pc.
#[test]
fn unknown_syscall_names_number_and_pc() {
    let mut a = Asm::new();
    a.nop().sys(0x3f);
    let mut m = machine(&a);
    match run(&mut m, 10) {
        Err(
            e @ MachineError::UnknownSyscall {
                number: 0x3f,
                pc: 0x0010_0008,
            },
        ) => {
            let text = e.to_string();
            assert!(
                text.contains("0x3f") && text.contains("0x00100008"),
                "{text}"
            );
        }
        other => panic!("{other:?}"),
    }
}

/// SetupThread puts the stack at the top of RAM when asked (-1), SetupHeap's -1 ends the heap at
/// it, and the small queries answer as the real kernel does.
#[test]
fn setup_and_queries() {
    let mut a = Asm::new();
    a.li(r::A0, 0)
        .li(r::A1, u32::MAX)
        .li(r::A2, 0x10000)
        .li(r::A3, DATA + 0x200)
        .sys(sc::SETUP_THREAD)
        .log(r::V0);
    a.li(r::T0, DATA + 0x200).lw(r::T1, 0, r::T0).log(r::T1);
    a.li(r::A0, 0x0020_0000)
        .li(r::A1, u32::MAX)
        .sys(sc::SETUP_HEAP)
        .log(r::V0);
    a.sys(sc::END_OF_HEAP).log(r::V0);
    a.sys(sc::GET_MEMORY_SIZE).log(r::V0);
    a.li(r::A0, 0xff00)
        .sys(sc::GS_PUT_IMR)
        .sys(sc::GS_GET_IMR)
        .log(r::V0);
    a.li(r::A0, DATA)
        .sys(sc::GET_OSD_CONFIG_PARAM)
        .li(r::T0, DATA)
        .lw(r::T1, 0, r::T0)
        .log(r::T1);
    a.store_imm(DATA, 0x2000)
        .li(r::A0, DATA)
        .sys(sc::SET_OSD_CONFIG_PARAM);
    a.store_imm(DATA, 0)
        .li(r::A0, DATA)
        .sys(sc::GET_OSD_CONFIG_PARAM)
        .li(r::T0, DATA)
        .lw(r::T1, 0, r::T0)
        .log(r::T1);
    a.li(r::A0, 0).sys(sc::FLUSH_CACHE).log(r::V0);
    a.sys(sc::GET_THREAD_ID).log(r::V0);
    a.exit();
    let mut m = machine(&a);
    assert_eq!(run(&mut m, 10).unwrap(), RunEnd::Exited(0));
    let top = 0x0200_0000 - 0x1000;
    assert_eq!(
        log(&mut m),
        [
            top - 0x2a0,
            0,
            top - 0x10000,
            top - 0x10000,
            0x0200_0000,
            0xff00,
            piney_machine::kernel::DEFAULT_OSD_CONFIG,
            0x2000,
            0,
            1
        ]
    );
}

/// A thread switch keeps each thread's whole register set: GPRs, HI/LO and the FPU registers.
#[test]
fn context_survives_thread_switches() {
    let mthi = |rs: u32| (rs << 21) | 0x11;
    let mtlo = |rs: u32| (rs << 21) | 0x13;
    let mfhi = |rd: u32| (rd << 11) | 0x10;
    let mflo = |rd: u32| (rd << 11) | 0x12;
    let mtc1 = |rt: u32, fs: u32| 0x4480_0000 | (rt << 16) | (fs << 11);
    let mfc1 = |rt: u32, fs: u32| 0x4400_0000 | (rt << 16) | (fs << 11);
    let mut a = Asm::new();
    a.create_thread(DATA, "t", 0, 0x10).mv(r::S1, r::V0);
    a.li(r::T0, 0x1111)
        .word(mthi(r::T0))
        .li(r::T0, 0x2222)
        .word(mtlo(r::T0));
    a.li(r::T0, 0x3333).word(mtc1(r::T0, 1)).li(r::S0, 0x4444);
    a.li(r::A0, 0)
        .li(r::A1, 0x20)
        .sys(sc::CHANGE_THREAD_PRIORITY);
    a.mv(r::A0, r::S1).sys(sc::START_THREAD);
    a.word(mfhi(r::T1)).log(r::T1).word(mflo(r::T1)).log(r::T1);
    a.word(mfc1(r::T1, 1)).log(r::T1).log(r::S0);
    a.mv(r::A0, r::S1).sys(sc::WAKEUP_THREAD);
    a.exit();
    a.label("t");
    a.li(r::T0, 0xaaaa)
        .word(mthi(r::T0))
        .li(r::T0, 0xbbbb)
        .word(mtlo(r::T0));
    a.li(r::T0, 0xcccc).word(mtc1(r::T0, 1)).li(r::S0, 0xdddd);
    a.sys(sc::SLEEP_THREAD);
    a.word(mfhi(r::T1)).log(r::T1).word(mflo(r::T1)).log(r::T1);
    a.word(mfc1(r::T1, 1)).log(r::T1).log(r::S0).jr(r::RA);

    let mut m = machine(&a);
    assert_eq!(run(&mut m, 10).unwrap(), RunEnd::Exited(0));
    assert_eq!(
        log(&mut m),
        [
            0x1111, 0x2222, 0x3333, 0x4444, 0xaaaa, 0xbbbb, 0xcccc, 0xdddd
        ]
    );
}

/// SetupThread writes the program's arguments (argc, argv[], strings) into crt0's buffer.
#[test]
fn setup_thread_passes_arguments() {
    let mut a = Asm::new();
    a.li(r::A0, 0)
        .li(r::A1, u32::MAX)
        .li(r::A2, 0x10000)
        .li(r::A3, DATA + 0x200);
    a.sys(sc::SETUP_THREAD).exit();
    let mut m = piney_machine::Machine::new(Box::new(std::io::sink()));
    m.kernel.args = vec!["host:prog.elf".into(), "-x".into()];
    m.load_elf(&kernel_support::elf(&a.finish())).unwrap();
    assert_eq!(run(&mut m, 10).unwrap(), RunEnd::Exited(0));
    let word = |m: &mut piney_machine::Machine, at: u32| {
        let mut b = [0; 4];
        m.bus.read_bytes(at, &mut b).unwrap();
        u32::from_le_bytes(b)
    };
    assert_eq!(word(&mut m, DATA + 0x200), 2);
    let (p0, p1) = (word(&mut m, DATA + 0x204), word(&mut m, DATA + 0x208));
    assert_eq!(word(&mut m, DATA + 0x20c), 0, "argv[argc] is null");
    assert_eq!(m.bus.read_cstr(p0, 64).unwrap(), "host:prog.elf");
    assert_eq!(m.bus.read_cstr(p1, 64).unwrap(), "-x");
}

/// Bad arguments to any syscall give a result or an error naming it, never a panic. The calls
/// that take a thread or semaphore id answer one that cannot exist (0xfffffff0: ids are
/// 1..=255) with -1, as the kernel's documented error result is (Play!'s independent HLE of
/// the same kernel, Source/ee/PS2OS.cpp, answers each of these so); every other call either
/// returns to the program, which then exits, or ends the run with one line naming the pc.
#[test]
fn garbage_arguments_give_the_documented_results() {
    // (syscall, what): thread and semaphore calls with a bad id in a0.
    let bad_id = [
        (0x21, "DeleteThread"),
        (0x22, "StartThread"),
        (0x25, "TerminateThread"),
        (-0x26, "iTerminateThread"),
        (0x29, "ChangeThreadPriority"),
        (-0x2a, "iChangeThreadPriority"),
        (0x2d, "ReleaseWaitThread"),
        (-0x2e, "iReleaseWaitThread"),
        (0x30, "ReferThreadStatus"),
        (-0x31, "iReferThreadStatus"),
        (0x35, "CancelWakeupThread"),
        (-0x36, "iCancelWakeupThread"),
        (0x41, "DeleteSema"),
        (0x42, "SignalSema"),
        (-0x43, "iSignalSema"),
        (0x44, "WaitSema"),
        (0x45, "PollSema"),
        (-0x46, "iPollSema"),
        (0x47, "ReferSemaStatus"),
        (-0x48, "iReferSemaStatus"),
        (-0x49, "iDeleteSema"),
    ];
    for (n, name) in bad_id {
        let mut a = Asm::new();
        for reg in [r::A0, r::A1, r::A2, r::A3] {
            a.li(reg, 0xffff_fff0);
        }
        a.sys(n).log(r::V0).exit();
        let mut m = machine(&a);
        let end = run(&mut m, 2);
        assert!(matches!(end, Ok(RunEnd::Exited(_))), "{name}: {end:?}");
        assert_eq!(log(&mut m), [NEG1], "{name} ({n:#x}) with id 0xfffffff0");
    }
    garbage_arguments_never_panic();
}

fn garbage_arguments_never_panic() {
    // Every number the kernel services, in both signs, and a few it does not.
    let known = [
        1, 2, 4, 6, 7, 0xd, 0xe, 0xf, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19,
        0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x21, 0x22, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2a,
        0x2b, 0x2c, 0x2d, 0x2e, 0x2f, 0x30, 0x31, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a,
        0x3c, 0x3d, 0x3e, 0x40, 0x41, 0x42, 0x43, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x4b, 0x55,
        0x5a, 0x5b, 0x5c, 0x5d, 0x5e, 0x5f, 0x61, 0x63, 0x64, 0x66, 0x67, 0x68, 0x6a, 0x6b, 0x6e,
        0x6f, 0x70, 0x71, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x7c, 0x7f, 0x82, 0x85,
        0xfc, 0xfe, 0x3f, 0x99, 0x100, 0x7fff,
    ];
    for pattern in [0xffff_fff0u32] {
        for n in known.iter().flat_map(|&n| [n, -n]) {
            let mut a = Asm::new();
            for reg in [r::A0, r::A1, r::A2, r::A3] {
                a.li(reg, pattern);
            }
            a.sys(n).exit();
            let mut m = machine(&a);
            match run(&mut m, 2) {
                // Returned to the program, which exited (or the call ended the run itself).
                Ok(_) => {}
                // An error names the pc on one line.
                Err(e) => {
                    let msg = e.to_string();
                    assert!(
                        msg.contains("pc 0x") && !msg.contains('\n'),
                        "syscall {n:#x}: {msg:?}"
                    );
                }
            }
        }
    }
}

/// Wakeups sent to a thread that is not sleeping are counted and consumed by its next
/// SleepThread calls; CancelWakeupThread returns and clears the count; ReleaseWaitThread ends
/// a wait with an error result.
#[test]
fn wakeup_counting_cancel_and_release_wait() {
    let mut a = Asm::new();
    a.create_thread(DATA, "t", 0, 0x10).mv(r::S0, r::V0);
    a.mv(r::A0, r::S0).sys(sc::START_THREAD);
    for _ in 0..3 {
        a.mv(r::A0, r::S0).sys(sc::WAKEUP_THREAD);
    }
    a.mv(r::A0, r::S0).sys(0x35).log(r::V0); // CancelWakeupThread: 3
    a.mv(r::A0, r::S0)
        .sys(sc::WAKEUP_THREAD)
        .sys(sc::WAKEUP_THREAD);
    // Let the thread run: two sleeps return at once, the third waits.
    a.li(r::A0, 0)
        .li(r::A1, 0x20)
        .sys(sc::CHANGE_THREAD_PRIORITY);
    a.log_imm(0x100);
    a.mv(r::A0, r::S0)
        .li(r::A1, DATA + 0x40)
        .sys(sc::REFER_THREAD_STATUS)
        .log(r::V0);
    a.li(r::T0, DATA + 0x40).lw(r::T1, 0x24, r::T0).log(r::T1); // waitType: sleep
    a.mv(r::A0, r::S0).sys(0x2d).log(r::V0); // ReleaseWaitThread
    a.log_imm(0x101).exit();
    a.label("t");
    a.sys(sc::SLEEP_THREAD).log_imm(0x1);
    a.sys(sc::SLEEP_THREAD).log_imm(0x2);
    a.sys(sc::SLEEP_THREAD).log_imm(0x3).log(r::V0).jr(r::RA);

    let mut m = machine(&a);
    assert_eq!(run(&mut m, 10).unwrap(), RunEnd::Exited(0));
    assert_eq!(log(&mut m), [3, 1, 2, 0x100, 4, 1, 3, NEG1, 2, 0x101]);
}

/// A native function (a hook) calls kernel services directly: one that returns at once gives
/// its `$v0` in place; one that blocks saves the thread to resume at the native's resume
/// address, where another hook continues it once the thread is woken, with the service's `$v0`
/// and its registers as they were.
#[test]
fn a_native_function_sleeps_in_the_kernel_and_resumes_at_its_resume_address() {
    const RESUME: u32 = 0x8007_f000;
    let mut a = Asm::new();
    a.create_thread(DATA, "t2", 0, 0x10).mv(r::S0, r::V0);
    a.mv(r::A0, r::S0).li(r::A1, 0).sys(sc::START_THREAD);
    a.log_imm(0x100);
    a.li(r::T1, 0x1234).jal("native").log(r::V0).log(r::T1);
    a.log_imm(0x101);
    a.exit();
    // The guest function the hook stands for: never runs.
    a.label("native");
    a.log_imm(0xbad).jr(r::RA);
    a.label("t2");
    a.log_imm(0x200);
    a.li(r::A0, 1).sys(sc::WAKEUP_THREAD);
    a.log_imm(0xdead).jr(r::RA);
    let native = a.addr_of("native");

    let mut m = machine(&a);
    let entry: HookFn = Arc::new(|m| {
        // GetThreadId returns in place, the pc at the resume address.
        let id = m.native_kernel_call(sc::GET_THREAD_ID, [0; 4], RESUME)?;
        assert_eq!((id, m.cpu.pc), (NativeCall::Returned(1), RESUME));
        log_word(m, 0x150);
        // SleepThread blocks: thread 2 runs.
        let r = m.native_kernel_call(sc::SLEEP_THREAD, [0; 4], RESUME)?;
        assert_eq!(r, NativeCall::Switched);
        assert_eq!(m.kernel.current, Some(2));
        Ok(HookResult::Continue)
    });
    let resume: HookFn = Arc::new(|m| {
        log_word(m, 0x160 | m.cpu.r32(2));
        m.cpu.set32(2, 0x77);
        let ra = m.cpu.r32(31);
        m.cpu.jump_to(ra);
        Ok(HookResult::Continue)
    });
    m.hooks.install(native, "native", entry).unwrap();
    m.hooks.install(RESUME, "native (resume)", resume).unwrap();
    assert_eq!(run(&mut m, 10).unwrap(), RunEnd::Exited(0));
    // SleepThread's result is the thread's id (1); $t1 survived the switch.
    assert_eq!(
        log(&mut m),
        [0x100, 0x150, 0x200, 0x161, 0x77, 0x1234, 0x101]
    );
    assert_eq!(m.hooks.get(RESUME).unwrap().calls, 1);
}
