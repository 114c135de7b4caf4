//! The frame controller, natively: `ccSystem::Ctrl` and the VSync handler (engine reference,
//! "Frames"; issue 6).
//!
//! `VSyncCallBack` (INTC cause 2, every vertical blank, NTSC 59.94 Hz): `frameRateCnt += 1`,
//! `tick += 1`, and the release of a vertical-blank wait. `ccSystem::Ctrl`, once a frame: wait
//! for the GS path; wait for vertical blanks until `frameRateCnt` reaches `frameRate` (1: 60
//! fps, 2: 30 fps); `frameRateCnt = 0`, EE Timer 0 = 0, `count += 1`; the screen mode if one
//! was asked; FlushCache; swap the double buffer; send the frame's display lists; read pads 0
//! and 1 and run each one's motor countdown. The waits are the kernel's (a semaphore the
//! handler signals) or, for the GS path, emulated time passing to the next event; the game's
//! drawing, screen and pad functions stay the game's, called from here (each may be hooked).
//!
//! The `ccSystem` record is the demo's (demo/src/ccsystem.h: the reference fixes only the
//! screen fields at +0x1c.. and +0xbd0..); the offsets used are listed in [`sys_field`].

use piney_machine::hooks::HookResult;
use piney_machine::{EE_CLOCK_HZ, Machine, MachineError};

use crate::guest::{self, Resume, reg, sys};

/// `ccSystem` fields (demo/src/ccsystem.h).
pub mod sys_field {
    /// u32: frames run.
    pub const COUNT: u32 = 0x00;
    /// s32: vertical blanks a frame.
    pub const FRAME_RATE: u32 = 0x04;
    /// s32: vertical blanks since the last frame.
    pub const FRAME_RATE_CNT: u32 = 0x08;
    /// u32: vertical blanks since boot.
    pub const TICK: u32 = 0x0c;
    /// s32: SetScreenMode asked for a mode.
    pub const SCREEN_MODE_REQ: u32 = 0x10;
    /// s32: the buffer the next swap shows.
    pub const DB_ID: u32 = 0x14;
    /// u32: GS path waits that gave up.
    pub const PATH_TIMEOUTS: u32 = 0x18;
    /// s32: the vertical-blank semaphore.
    pub const VSYNC_SEMA: u32 = 0x28;
    /// s32: a vertical-blank wait is on.
    pub const VSYNC_WAITING: u32 = 0x2c;
    /// u32: Timer 0 at the end of the last frame's work.
    pub const WORK_T0: u32 = 0x34;
    /// u32: `tick` at the last once-a-second line.
    pub const LAST_PRINT: u32 = 0x38;
}

/// `ccPad` records: 0x60 bytes each (demo/src/ccpad.h); the fields the once-a-second line shows.
const PAD_SIZE: u32 = 0x60;
const PAD_DIRECT: u32 = 0x00;
const PAD_MODE: u32 = 0x0a;

/// Device registers (EE User's Manual): Timer 0's count; the VIF1 and GIF DMA channels' CHCR
/// (STR, bit 8: busy); VIF1_STAT (VPS bits 0-1, VEW 2, VGW 3, FQC 24-28: busy while any is
/// set); GIF_STAT (APATH bits 10-11: the path transferring, 0 none).
const T0_COUNT: u32 = 0x1000_0000;
const D1_CHCR: u32 = 0x1000_9000;
const D2_CHCR: u32 = 0x1000_a000;
const CHCR_STR: u32 = 1 << 8;
const VIF1_STAT: u32 = 0x1000_3c00;
const VIF1_BUSY: u32 = 0x1f00_000f;
const GIF_STAT: u32 = 0x1000_3020;

/// How long the GS path wait lasts before it gives up: 1/16 s of EE time, about what the
/// guest's bounded poll (two million reads of the registers) takes.
const PATH_WAIT_CYCLES: u32 = (EE_CLOCK_HZ / 16) as u32;

/// The guest addresses the frame controller needs (from the profile).
#[derive(Debug, Clone, Copy)]
pub struct FrameSyms {
    /// `ccSys`: the ccSystem record.
    pub cc_sys: u32,
    /// `ccPads`: two ccPad records.
    pub cc_pads: u32,
    /// `tscbTop`: the task list (the once-a-second line counts it).
    pub tscb_top: u32,
    /// `SetScreenModeMain`.
    pub set_screen_mode_main: u32,
    /// `SwapDoubleBuffer(id)`.
    pub swap_double_buffer: u32,
    /// `ccDraw_SendFrame(id)`: the frame's display lists by DMA.
    pub send_frame: u32,
    /// `ccPad_Read(pad)`.
    pub pad_read: u32,
    /// `ccPad_ActTick(pad, frameRate)`: the motor countdown.
    pub act_tick: u32,
}

fn field(m: &mut Machine, s: &FrameSyms, off: u32) -> Result<u32, MachineError> {
    guest::rd32(m, s.cc_sys + off, "ccSys")
}

fn set_field(m: &mut Machine, s: &FrameSyms, off: u32, v: u32) -> Result<(), MachineError> {
    guest::wr32(m, s.cc_sys + off, v, "ccSys")
}

fn path_busy(m: &mut Machine) -> Result<bool, MachineError> {
    let what = "the GS path's registers";
    Ok(guest::rd32(m, D1_CHCR, what)? & CHCR_STR != 0
        || guest::rd32(m, D2_CHCR, what)? & CHCR_STR != 0
        || guest::rd32(m, VIF1_STAT, what)? & VIF1_BUSY != 0
        || (guest::rd32(m, GIF_STAT, what)? >> 10) & 3 != 0)
}

/// Where Ctrl is: the guest-call returns and kernel resumes, plus the steps in between.
/// State across them: `$s0` the pad being read (0, 1), `$s1` the low word of the cycle count
/// the GS path wait began at.
#[derive(Debug)]
enum Step {
    Path,
    Vsync,
    Frame,
    Flush,
    Swap,
    Send,
    Pad,
    Tick,
    Print,
}

/// `ccSystem::Ctrl()`: one frame (see the module doc).
pub fn ctrl(
    m: &mut Machine,
    s: &FrameSyms,
    at: Option<Resume>,
) -> Result<HookResult, MachineError> {
    let mut step = match at {
        None => {
            guest::push_frame(m, "ccSystem_Ctrl: its frame")?;
            let t0 = guest::rd32(m, T0_COUNT, "Timer 0")?;
            set_field(m, s, sys_field::WORK_T0, t0)?;
            guest::set(m, reg::S1, m.cpu.cycles as u32);
            Step::Path
        }
        Some(Resume::CtrlPath) => Step::Path,
        Some(Resume::CtrlVsync) => Step::Vsync,
        Some(Resume::CtrlScreenMode) => Step::Flush,
        Some(Resume::CtrlFlushed) => Step::Swap,
        Some(Resume::CtrlSwapped) => Step::Send,
        Some(Resume::CtrlSent) => {
            let id = field(m, s, sys_field::DB_ID)?;
            set_field(m, s, sys_field::DB_ID, id ^ 1)?;
            guest::set(m, reg::S0, 0);
            Step::Pad
        }
        Some(Resume::CtrlPadRead) => Step::Tick,
        Some(Resume::CtrlPadTicked) => {
            let port = guest::get(m, reg::S0) + 1;
            guest::set(m, reg::S0, port);
            Step::Pad
        }
        Some(other) => unreachable!("ccSystem_Ctrl does not resume at {other:?}"),
    };
    let mut steps = 0;
    loop {
        steps += 1;
        if steps > guest::MAX_NATIVE_STEPS {
            return Err(guest::stuck(m, "ccSystem::Ctrl", &format!("at {step:?}")));
        }
        step = match step {
            // Wait for the GS path (the last frame's lists): nothing it polls changes before
            // the next event, so time passes to it.
            Step::Path => {
                if !path_busy(m)? {
                    Step::Vsync
                } else if (m.cpu.cycles as u32).wrapping_sub(guest::get(m, reg::S1))
                    < PATH_WAIT_CYCLES
                {
                    return Ok(guest::wait_for_next_event(m, Resume::CtrlPath));
                } else {
                    let n = field(m, s, sys_field::PATH_TIMEOUTS)?;
                    set_field(m, s, sys_field::PATH_TIMEOUTS, n.wrapping_add(1))?;
                    if n == 0 {
                        let what = "the GS path's registers";
                        let regs = [
                            guest::rd32(m, D1_CHCR, what)?,
                            guest::rd32(m, D2_CHCR, what)?,
                            guest::rd32(m, VIF1_STAT, what)?,
                            guest::rd32(m, GIF_STAT, what)?,
                        ];
                        guest::print(
                            m,
                            &format!(
                                "ccGsWaitPath: gave up (D1_CHCR {:08x} D2_CHCR {:08x} \
                                 VIF1_STAT {:08x} GIF_STAT {:08x})\n",
                                regs[0], regs[1], regs[2], regs[3]
                            ),
                        );
                    }
                    Step::Vsync
                }
            }
            // `while (frameRateCnt < frameRate) sceGsSyncV();`: the handler signals the
            // semaphore at the next vertical blank start when a wait is on.
            Step::Vsync => {
                let cnt = field(m, s, sys_field::FRAME_RATE_CNT)? as i32;
                let rate = field(m, s, sys_field::FRAME_RATE)? as i32;
                if cnt < rate {
                    set_field(m, s, sys_field::VSYNC_WAITING, 1)?;
                    let sema = field(m, s, sys_field::VSYNC_SEMA)?;
                    match guest::kernel(m, sys::WAIT_SEMA, [sema, 0, 0, 0], Resume::CtrlVsync)? {
                        // The kernel refused the wait (no such semaphore: ccSys is not what the
                        // profile says): the guest's loop would call it again and again while
                        // time passes; here time passes to the next event before the count is
                        // looked at again, so that the run still reaches its limits.
                        Some(r) if r < 0 => {
                            return Ok(guest::wait_for_next_event(m, Resume::CtrlVsync));
                        }
                        Some(_) => Step::Vsync,
                        None => return Ok(HookResult::Continue),
                    }
                } else {
                    Step::Frame
                }
            }
            Step::Frame => {
                set_field(m, s, sys_field::FRAME_RATE_CNT, 0)?;
                guest::wr32(m, T0_COUNT, 0, "Timer 0")?;
                let count = field(m, s, sys_field::COUNT)?;
                set_field(m, s, sys_field::COUNT, count.wrapping_add(1))?;
                if field(m, s, sys_field::SCREEN_MODE_REQ)? != 0 {
                    return Ok(guest::call(
                        m,
                        s.set_screen_mode_main,
                        &[],
                        Resume::CtrlScreenMode,
                    ));
                }
                Step::Flush
            }
            Step::Flush => match guest::kernel(m, sys::FLUSH_CACHE, [0; 4], Resume::CtrlFlushed)? {
                Some(_) => Step::Swap,
                None => return Ok(HookResult::Continue),
            },
            // Show what the last frame drew; this frame's lists draw the other buffer.
            Step::Swap => {
                let id = field(m, s, sys_field::DB_ID)?;
                return Ok(guest::call(
                    m,
                    s.swap_double_buffer,
                    &[id],
                    Resume::CtrlSwapped,
                ));
            }
            Step::Send => {
                let id = field(m, s, sys_field::DB_ID)?;
                return Ok(guest::call(m, s.send_frame, &[id], Resume::CtrlSent));
            }
            // Pads 0 and 1: the read, then the motor countdown by the frame's vertical blanks.
            Step::Pad => {
                let port = guest::get(m, reg::S0);
                if port >= 2 {
                    Step::Print
                } else {
                    let pad = s.cc_pads + PAD_SIZE * port;
                    return Ok(guest::call(m, s.pad_read, &[pad], Resume::CtrlPadRead));
                }
            }
            Step::Tick => {
                let pad = s.cc_pads + PAD_SIZE * guest::get(m, reg::S0);
                let rate = field(m, s, sys_field::FRAME_RATE)? & 0xffff;
                return Ok(guest::call(
                    m,
                    s.act_tick,
                    &[pad, rate],
                    Resume::CtrlPadTicked,
                ));
            }
            // A line a second (60 vertical blanks), as the demo prints it.
            Step::Print => {
                let tick = field(m, s, sys_field::TICK)?;
                if tick.wrapping_sub(field(m, s, sys_field::LAST_PRINT)?) >= 60 {
                    set_field(m, s, sys_field::LAST_PRINT, tick)?;
                    let line = status_line(m, s, tick)?;
                    guest::print(m, &line);
                }
                guest::pop_frame(m, "ccSystem_Ctrl: its frame")?;
                return Ok(guest::ret(m));
            }
        };
    }
}

fn status_line(m: &mut Machine, s: &FrameSyms, tick: u32) -> Result<String, MachineError> {
    let count = field(m, s, sys_field::COUNT)?;
    let rate = field(m, s, sys_field::FRAME_RATE)? as i32;
    let tasks = crate::tasks::task_list(m, s.tscb_top)?.len();
    let mode = guest::rd8(m, s.cc_pads + PAD_MODE, "ccPads")?;
    let direct = guest::rd16(m, s.cc_pads + PAD_DIRECT, "ccPads")?;
    let timeouts = field(m, s, sys_field::PATH_TIMEOUTS)?;
    let fps = if rate == 0 { 0 } else { 60 / rate };
    Ok(format!(
        "frame {count} tick {tick}: {fps} fps (frameRate {rate}), {tasks} tasks, pad0 {mode:02x} \
         direct {direct:04x}, path timeouts {timeouts}\n"
    ))
}

/// `VSyncCallBack(cause)`, the vertical blank handler: `frameRateCnt += 1`, `tick += 1`, a
/// pending `sceGsSyncV` wait released (iSignalSema), then the handler's `ei` (ExitHandler) and
/// `return 0`.
pub fn vsync(
    m: &mut Machine,
    s: &FrameSyms,
    at: Option<Resume>,
) -> Result<HookResult, MachineError> {
    if at.is_none() {
        let cnt = field(m, s, sys_field::FRAME_RATE_CNT)?;
        set_field(m, s, sys_field::FRAME_RATE_CNT, cnt.wrapping_add(1))?;
        let tick = field(m, s, sys_field::TICK)?;
        set_field(m, s, sys_field::TICK, tick.wrapping_add(1))?;
        if field(m, s, sys_field::VSYNC_WAITING)? != 0 {
            set_field(m, s, sys_field::VSYNC_WAITING, 0)?;
            let sema = field(m, s, sys_field::VSYNC_SEMA)?;
            // Inside a handler the kernel switches no thread until the dispatch ends.
            if guest::kernel(
                m,
                sys::I_SIGNAL_SEMA,
                [sema, 0, 0, 0],
                Resume::VsyncSignalled,
            )?
            .is_none()
            {
                return Ok(HookResult::Continue);
            }
        }
    }
    // ExitHandler(): `sync; ei` (EI sets Status.EIE where the mode allows it).
    let _ = piney_ee::interp::cop0::ei(&mut m.cpu, &mut m.bus, 0);
    guest::set(m, reg::V0, 0);
    Ok(guest::ret(m))
}
