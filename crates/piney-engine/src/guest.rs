//! What native functions use to act on the guest: its memory, calls into guest code, kernel
//! services, and the resume points a native function continues at after either.
//!
//! A native function that only reads and writes guest memory runs whole inside its hook. One
//! that must call guest code (a callback, a function of the game's) or wait in the kernel
//! (SleepThread, WaitSema) cannot: the guest must run in between. Such a function is a state
//! machine whose steps are hooks: it stops by pointing the guest at the callee with `$ra` set to
//! one of piney's [`Resume`] addresses, or by calling the kernel with that address as the place
//! the thread resumes, and the hook installed there takes the next step. Its state lives where
//! a compiled function's would:
//! - across kernel calls only, in `$t0..$t3` (the thread's whole context is saved when it
//!   waits, and a callee may clobber them anyway, so the ABI lets the native do so);
//! - across guest calls, in `$s0`, `$s1`, which the native first saves with `$ra` in a frame
//!   below `$sp` ([`push_frame`]) and restores before returning ([`pop_frame`]), as gcc's
//!   prologue and epilogue do.
//!
//! The resume addresses lie in the EE kernel's part of RAM ([`RESUME_BASE`], kseg0), which no
//! program's code occupies. Each holds a `break` so that reaching one with the hooks off stops
//! the run naming it rather than running on.

use piney_ee::Bus;
use piney_machine::hooks::HookResult;
use piney_machine::kernel::NativeCall;
use piney_machine::{Machine, MachineError};

/// First resume address: 0x0007f000 in the kernel's 512 KiB of RAM (unused by the HLE kernel,
/// whose syscall table is at 0x80010000 and stack below 0x80030000).
pub const RESUME_BASE: u32 = 0x8007_f000;

/// `break` with code 0x3ff (bits 25..6 the code, funct 0x0d): what the resume addresses hold.
pub const RESUME_GUARD: u32 = (0x3ff << 6) | 0x0d;

/// Every place a native function resumes at. The address of each is
/// `RESUME_BASE + 8 * (its number)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum Resume {
    /// ccThControl: woken by main for the frame.
    ThControlWoken = 0,
    /// ccThControl: the walk returned.
    ThControlWalked,
    /// ccThControl: main was woken.
    ThControlMainWoken,
    /// The walk: a task's start request was served (GoThread returned).
    WalkStarted,
    /// The walk: a task's delete-stage-2 callback returned.
    WalkStage2Callback,
    /// The walk: TerminateThread returned.
    WalkTerminated,
    /// The walk: a task's stage-3 callback returned.
    WalkStage3Callback,
    /// The walk: DeleteThread returned.
    WalkDeleted,
    /// The walk: the task's stack was freed.
    WalkFreedStack,
    /// The walk: the task's record was freed.
    WalkFreedRecord,
    /// The walk: ResumeThread returned.
    WalkResumed,
    /// The walk: WakeupThread returned.
    WalkWoke,
    /// Breath: a SleepThread of the n wake-ups returned.
    BreathWoken,
    /// Breath: a SleepThread held by `sleep` or `del` returned.
    BreathHeld,
    /// GoThread: CreateThread returned.
    GoCreated,
    /// GoThread: StartThread returned.
    GoStarted,
    /// ccSystem::Ctrl: look at the GS path again.
    CtrlPath,
    /// ccSystem::Ctrl: a vertical blank wait (WaitSema) returned.
    CtrlVsync,
    /// ccSystem::Ctrl: SetScreenModeMain returned.
    CtrlScreenMode,
    /// ccSystem::Ctrl: FlushCache returned.
    CtrlFlushed,
    /// ccSystem::Ctrl: SwapDoubleBuffer returned.
    CtrlSwapped,
    /// ccSystem::Ctrl: the frame's display lists were sent.
    CtrlSent,
    /// ccSystem::Ctrl: a pad was read.
    CtrlPadRead,
    /// ccSystem::Ctrl: a pad's motor countdown ran.
    CtrlPadTicked,
    /// VSyncCallBack: iSignalSema returned.
    VsyncSignalled,
    /// ccPad::Ctrl's motor part: scePadGetReqState returned.
    PadCtrlReqState,
    /// ccPad::Ctrl's motor part: scePadSetActDirect returned.
    PadCtrlSent,
}

impl Resume {
    /// Its guest address.
    pub fn addr(self) -> u32 {
        RESUME_BASE + 8 * self as u32
    }
}

/// EE kernel syscall numbers the natives call.
pub mod sys {
    /// CreateThread(param).
    pub const CREATE_THREAD: i32 = 0x20;
    /// DeleteThread(id).
    pub const DELETE_THREAD: i32 = 0x21;
    /// StartThread(id, arg).
    pub const START_THREAD: i32 = 0x22;
    /// TerminateThread(id).
    pub const TERMINATE_THREAD: i32 = 0x25;
    /// SleepThread().
    pub const SLEEP_THREAD: i32 = 0x32;
    /// WakeupThread(id).
    pub const WAKEUP_THREAD: i32 = 0x33;
    /// ResumeThread(id).
    pub const RESUME_THREAD: i32 = 0x39;
    /// iSignalSema(id) (interrupt context).
    pub const I_SIGNAL_SEMA: i32 = -0x43;
    /// WaitSema(id).
    pub const WAIT_SEMA: i32 = 0x44;
    /// FlushCache(mode).
    pub const FLUSH_CACHE: i32 = 0x64;
}

/// GPR numbers.
pub mod reg {
    /// `$v0`.
    pub const V0: usize = 2;
    /// `$a0`.
    pub const A0: usize = 4;
    /// `$t0`.
    pub const T0: usize = 8;
    /// `$t1`.
    pub const T1: usize = 9;
    /// `$s0`.
    pub const S0: usize = 16;
    /// `$s1`.
    pub const S1: usize = 17;
    /// `$sp`.
    pub const SP: usize = 29;
    /// `$ra`.
    pub const RA: usize = 31;
}

/// Argument `n` (`$a0 + n`).
pub fn arg(m: &Machine, n: usize) -> u32 {
    m.cpu.r32(reg::A0 + n)
}

/// A 32-bit register.
pub fn get(m: &Machine, r: usize) -> u32 {
    m.cpu.r32(r)
}

/// Set a 32-bit register (sign-extended, as the guest's 32-bit operations leave it).
pub fn set(m: &mut Machine, r: usize, v: u32) {
    m.cpu.set32(r, v);
}

/// The error for a guest address a native function cannot use.
pub fn fault(m: &Machine, what: &str, addr: u32) -> MachineError {
    MachineError::Kernel {
        what: format!("native engine code cannot access guest address {addr:#010x} ({what})"),
        pc: m.cpu.pc,
    }
}

/// `N` bytes of guest memory.
pub fn read_bytes<const N: usize>(
    m: &mut Machine,
    addr: u32,
    what: &str,
) -> Result<[u8; N], MachineError> {
    let mut b = [0u8; N];
    m.bus
        .read_bytes(addr, &mut b)
        .map_err(|_| fault(m, what, addr))?;
    Ok(b)
}

/// Write guest memory.
pub fn write_bytes(m: &mut Machine, addr: u32, b: &[u8], what: &str) -> Result<(), MachineError> {
    m.bus.write_bytes(addr, b).map_err(|_| fault(m, what, addr))
}

/// A guest byte.
pub fn rd8(m: &mut Machine, addr: u32, what: &str) -> Result<u8, MachineError> {
    Ok(read_bytes::<1>(m, addr, what)?[0])
}

/// A guest halfword.
pub fn rd16(m: &mut Machine, addr: u32, what: &str) -> Result<u16, MachineError> {
    Ok(u16::from_le_bytes(read_bytes(m, addr, what)?))
}

/// A guest word (memory or a device register: the bus reads it at the current time).
pub fn rd32(m: &mut Machine, addr: u32, what: &str) -> Result<u32, MachineError> {
    m.bus.read32(addr).map_err(|_| fault(m, what, addr))
}

/// Write a guest byte.
pub fn wr8(m: &mut Machine, addr: u32, v: u8, what: &str) -> Result<(), MachineError> {
    write_bytes(m, addr, &[v], what)
}

/// Write a guest halfword.
pub fn wr16(m: &mut Machine, addr: u32, v: u16, what: &str) -> Result<(), MachineError> {
    write_bytes(m, addr, &v.to_le_bytes(), what)
}

/// Write a guest word (memory or a device register).
pub fn wr32(m: &mut Machine, addr: u32, v: u32, what: &str) -> Result<(), MachineError> {
    m.bus.write32(addr, v).map_err(|_| fault(m, what, addr))
}

/// The most steps a native function's loop takes in one call. Each step either blocks (the
/// call returns), calls guest code (returns) or moves the function's state on; a loop that goes
/// round this often has met a state it cannot leave (a profile whose addresses are not what it
/// says), and the run ends with [`stuck`] rather than spinning without emulated time passing.
pub const MAX_NATIVE_STEPS: u32 = 100_000;

/// The error that ends a run whose native function `name` cannot make progress.
pub fn stuck(m: &Machine, name: &str, state: &str) -> MachineError {
    MachineError::Kernel {
        what: format!(
            "native {name}: {MAX_NATIVE_STEPS} steps without blocking or returning ({state}); the profile's addresses do not fit this program"
        ),
        pc: m.cpu.pc,
    }
}

/// Text the guest's printf would have written (its SIO output), in order with the guest's own.
pub fn print(m: &mut Machine, text: &str) {
    m.bus.out.extend_from_slice(text.as_bytes());
}

/// Bytes of the frame [`push_frame`] makes: `$ra`, `$s0`, `$s1`, 16 bytes each (whole
/// registers: the R5900's are 128 bits).
const FRAME: u32 = 48;

/// The prologue of a native function that calls guest code: `$ra`, `$s0` and `$s1` saved below
/// `$sp`, which moves down over them.
pub fn push_frame(m: &mut Machine, what: &str) -> Result<(), MachineError> {
    let sp = get(m, reg::SP).wrapping_sub(FRAME);
    for (i, r) in [reg::RA, reg::S0, reg::S1].into_iter().enumerate() {
        let v = m.cpu.gpr[r].to_le_bytes();
        write_bytes(m, sp + 16 * i as u32, &v, what)?;
    }
    set(m, reg::SP, sp);
    Ok(())
}

/// The epilogue matching [`push_frame`]: the registers back, `$sp` back up.
pub fn pop_frame(m: &mut Machine, what: &str) -> Result<(), MachineError> {
    let sp = get(m, reg::SP);
    for (i, r) in [reg::RA, reg::S0, reg::S1].into_iter().enumerate() {
        let v: [u8; 16] = read_bytes(m, sp + 16 * i as u32, what)?;
        m.cpu.gpr[r] = u128::from_le_bytes(v);
    }
    set(m, reg::SP, sp.wrapping_add(FRAME));
    Ok(())
}

/// Call guest function `func` with `args`, returning to `then` (the hook there takes the next
/// step). The hook returns what this returns.
pub fn call(m: &mut Machine, func: u32, args: &[u32], then: Resume) -> HookResult {
    for (i, &a) in args.iter().enumerate() {
        set(m, reg::A0 + i, a);
    }
    set(m, reg::RA, then.addr());
    m.cpu.jump_to(func);
    HookResult::Continue
}

/// Call kernel service `number`, the thread resuming at `then`. `Some($v0)` when the thread goes
/// on at once (the native may continue in place); `None` when it waits or another thread runs:
/// the native must return [`HookResult::Continue`] at once.
pub fn kernel(
    m: &mut Machine,
    number: i32,
    args: [u32; 4],
    then: Resume,
) -> Result<Option<i32>, MachineError> {
    Ok(match m.native_kernel_call(number, args, then.addr())? {
        NativeCall::Returned(v) => Some(v),
        NativeCall::Switched => None,
    })
}

/// Let emulated time pass to the next timed event (a DMA's end, a vertical blank...), as a guest
/// loop polling a device register would: nothing it polls can change before then. The hook
/// then returns [`HookResult::Continue`] with the pc at the resume point that looks again.
pub fn wait_for_next_event(m: &mut Machine, then: Resume) -> HookResult {
    let next = m.bus.sched.next_due();
    if next != u64::MAX && next > m.cpu.cycles {
        m.cpu.cycles = next;
    }
    m.cpu.jump_to(then.addr());
    HookResult::Continue
}

/// Return from the native function (after [`pop_frame`] where it pushed one).
pub fn ret(m: &mut Machine) -> HookResult {
    let ra = get(m, reg::RA);
    m.cpu.jump_to(ra);
    HookResult::Continue
}

/// The id of the running thread (GetThreadId), 0 outside any.
pub fn thread_id(m: &Machine) -> u32 {
    m.kernel.current.unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_keeps_whole_registers_and_the_stack_pointer() {
        let mut m = Machine::new(Box::new(std::io::sink()));
        set(&mut m, reg::SP, 0x0010_8000);
        m.cpu.gpr[reg::RA] = 0x0010_0420;
        m.cpu.gpr[reg::S0] = 0x1111_2222_3333_4444_5555_6666_7777_8888;
        m.cpu.gpr[reg::S1] = u128::MAX;
        push_frame(&mut m, "test").unwrap();
        assert_eq!(get(&m, reg::SP), 0x0010_8000 - FRAME);
        m.cpu.gpr[reg::RA] = 0;
        m.cpu.gpr[reg::S0] = 5;
        m.cpu.gpr[reg::S1] = 6;
        pop_frame(&mut m, "test").unwrap();
        assert_eq!(get(&m, reg::SP), 0x0010_8000);
        assert_eq!(m.cpu.gpr[reg::RA], 0x0010_0420);
        assert_eq!(
            m.cpu.gpr[reg::S0],
            0x1111_2222_3333_4444_5555_6666_7777_8888
        );
        assert_eq!(m.cpu.gpr[reg::S1], u128::MAX);
    }

    #[test]
    fn a_frame_outside_memory_is_an_error_naming_it() {
        let mut m = Machine::new(Box::new(std::io::sink()));
        set(&mut m, reg::SP, 0x0400_0010);
        let e = push_frame(&mut m, "Ctrl's frame").unwrap_err().to_string();
        assert!(
            e.contains("Ctrl's frame") && e.contains("0x03ffffe0"),
            "{e}"
        );
    }

    #[test]
    fn a_call_points_the_guest_at_the_callee_returning_to_the_resume_point() {
        let mut m = Machine::new(Box::new(std::io::sink()));
        let r = call(&mut m, 0x0010_2000, &[7, 8], Resume::CtrlSwapped);
        assert_eq!(r, HookResult::Continue);
        assert_eq!((m.cpu.pc, arg(&m, 0), arg(&m, 1)), (0x0010_2000, 7, 8));
        assert_eq!(get(&m, reg::RA), Resume::CtrlSwapped.addr());
    }
}
