//! The native functions, and installing them from a profile.
//!
//! What is hooked (the demo title's layouts, demo/src/*.h):
//! - `ccPad_ReadReport(p, buttons, sticks)`: `ccPad::Read`'s logic on one report, through
//!   piney-input's [`PadReader`]; the stick angles computed natively with the demo's own
//!   `atan2f_` algorithm under PS2 float rules ([`ps2_atan2`]), so hooked and emulated runs agree
//!   bit for bit.
//! - `ccPad_SetActuater(p, small, power, ms)`, `ccPad_ActTick(p, frameRate)` and
//!   `ccPad_ActCtrl(p)` (ccPad::Ctrl's motor part, which sends through the game's libpad):
//!   piney-input's [`ActuatorQueue`] read from and written back to `ccPad` +0x28..+0x3f.
//! - The task scheduler ([`crate::tasks`]): `ccThControl`'s loop, `ccThControl_Walk`,
//!   `ccTscb_Breath`, `ccTscb_GoThread`.
//! - The frame controller ([`crate::frame`]): `ccSystem_Ctrl` and `VSyncCallBack`.
//!
//! Not hooked, on purpose: `ccPad_Read` (its `scePadRead` reads the buffer padman's SIF
//! transfer fills, then calls `ccPad_ReadReport`, which is hooked) and the connection part of
//! `ccPad_Ctrl` (libpad's SIF RPC calls to the native padman, which the guest's own code makes). The game's drawing, screen
//! and heap functions stay guest code, called by the natives where the originals call them.
//!
//! A native that waits in the kernel or calls guest code continues at piney's resume addresses
//! ([`crate::guest`]); installing it installs a hook at each of its [`Resume`] points too.

use std::sync::Arc;

use piney_ee::Bus;
use piney_ee::float;
use piney_input::actuator::CtrlState;
use piney_input::{ActuatorQueue, PadReader, Stick, actuator};
use piney_machine::hooks::{HookFn, HookResult};
use piney_machine::{Machine, MachineError};

use crate::frame::{self, FrameSyms};
use crate::guest::{self, RESUME_GUARD, Resume, arg, read_bytes, reg, write_bytes};
use crate::profile::{Profile, fnv1a64};
use crate::tasks::{self, TaskSyms};

/// A native function's body: called with `None` at the guest function's entry, and with the
/// resume point when one of its later steps continues (see [`crate::guest`]).
pub type NativeFn =
    Arc<dyn Fn(&mut Machine, Option<Resume>) -> Result<HookResult, MachineError> + Send + Sync>;

/// One native function: its name (the guest function symbol it replaces, first in `needs`),
/// every symbol it needs, and the resume points its later steps continue at.
pub struct Native {
    /// The name a profile's `hooks` lists; also the guest function's symbol.
    pub name: &'static str,
    /// The symbols it needs: the hooked function first, then data and the functions it calls.
    pub needs: &'static [&'static str],
    /// Its resume points (hooks at piney's own addresses, installed with it).
    pub resumes: &'static [Resume],
    make: fn(&Profile) -> NativeFn,
}

fn addr(p: &Profile, name: &str) -> u32 {
    p.address(name).unwrap_or(0)
}

fn task_syms(p: &Profile) -> TaskSyms {
    TaskSyms {
        tscb_top: addr(p, "tscbTop"),
        tscb_main: addr(p, "tscbMain"),
        walk: addr(p, "ccThControl_Walk"),
        go_thread: addr(p, "ccTscb_GoThread"),
        heap_free: addr(p, "ccHeap_Free"),
        tscb_entry: addr(p, "tscb_entry"),
    }
}

fn frame_syms(p: &Profile) -> FrameSyms {
    FrameSyms {
        cc_sys: addr(p, "ccSys"),
        cc_pads: addr(p, "ccPads"),
        tscb_top: addr(p, "tscbTop"),
        set_screen_mode_main: addr(p, "SetScreenModeMain"),
        swap_double_buffer: addr(p, "SwapDoubleBuffer"),
        send_frame: addr(p, "ccDraw_SendFrame"),
        pad_read: addr(p, "ccPad_Read"),
        act_tick: addr(p, "ccPad_ActTick"),
    }
}

/// Every native function piney has.
pub const NATIVES: &[Native] = &[
    Native {
        name: "ccPad_ReadReport",
        needs: &["ccPad_ReadReport"],
        resumes: &[],
        make: |_| Arc::new(|m, _| read_report(m)),
    },
    Native {
        name: "ccPad_SetActuater",
        needs: &["ccPad_SetActuater", "ccPad_actuaterSw"],
        resumes: &[],
        make: |p| {
            let sw = addr(p, "ccPad_actuaterSw");
            Arc::new(move |m, _| set_actuater(m, sw))
        },
    },
    Native {
        name: "ccPad_ActTick",
        needs: &["ccPad_ActTick"],
        resumes: &[],
        make: |_| Arc::new(|m, _| act_tick(m)),
    },
    Native {
        name: "ccPad_ActCtrl",
        needs: &["ccPad_ActCtrl", "scePadGetReqState", "scePadSetActDirect"],
        resumes: &[Resume::PadCtrlReqState, Resume::PadCtrlSent],
        make: |p| {
            let (req_state, set_act_direct) =
                (addr(p, "scePadGetReqState"), addr(p, "scePadSetActDirect"));
            Arc::new(move |m, at| act_ctrl(m, req_state, set_act_direct, at))
        },
    },
    Native {
        name: "ccThControl",
        needs: &["ccThControl", "ccThControl_Walk", "tscbMain"],
        resumes: &[
            Resume::ThControlWoken,
            Resume::ThControlWalked,
            Resume::ThControlMainWoken,
        ],
        make: |p| {
            let s = task_syms(p);
            Arc::new(move |m, at| tasks::th_control(m, &s, at))
        },
    },
    Native {
        name: "ccThControl_Walk",
        needs: &[
            "ccThControl_Walk",
            "tscbTop",
            "ccTscb_GoThread",
            "ccHeap_Free",
        ],
        resumes: &[
            Resume::WalkStarted,
            Resume::WalkStage2Callback,
            Resume::WalkTerminated,
            Resume::WalkStage3Callback,
            Resume::WalkDeleted,
            Resume::WalkFreedStack,
            Resume::WalkFreedRecord,
            Resume::WalkResumed,
            Resume::WalkWoke,
        ],
        make: |p| {
            let s = task_syms(p);
            Arc::new(move |m, at| tasks::walk(m, &s, at))
        },
    },
    Native {
        name: "ccTscb_Breath",
        needs: &["ccTscb_Breath", "tscbTop"],
        resumes: &[Resume::BreathWoken, Resume::BreathHeld],
        make: |p| {
            let s = task_syms(p);
            Arc::new(move |m, at| tasks::breath(m, &s, at))
        },
    },
    Native {
        name: "ccTscb_GoThread",
        needs: &["ccTscb_GoThread", "tscb_entry"],
        resumes: &[Resume::GoCreated, Resume::GoStarted],
        make: |p| {
            let s = task_syms(p);
            Arc::new(move |m, at| tasks::go_thread(m, &s, at))
        },
    },
    Native {
        name: "ccSystem_Ctrl",
        needs: &[
            "ccSystem_Ctrl",
            "ccSys",
            "ccPads",
            "tscbTop",
            "SetScreenModeMain",
            "SwapDoubleBuffer",
            "ccDraw_SendFrame",
            "ccPad_Read",
            "ccPad_ActTick",
        ],
        resumes: &[
            Resume::CtrlPath,
            Resume::CtrlVsync,
            Resume::CtrlScreenMode,
            Resume::CtrlFlushed,
            Resume::CtrlSwapped,
            Resume::CtrlSent,
            Resume::CtrlPadRead,
            Resume::CtrlPadTicked,
        ],
        make: |p| {
            let s = frame_syms(p);
            Arc::new(move |m, at| frame::ctrl(m, &s, at))
        },
    },
    Native {
        name: "VSyncCallBack",
        needs: &["VSyncCallBack", "ccSys"],
        resumes: &[Resume::VsyncSignalled],
        make: |p| {
            let s = frame_syms(p);
            Arc::new(move |m, at| frame::vsync(m, &s, at))
        },
    },
];

/// What installing a profile did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Installed {
    /// The hooks installed, by name, with their guest address.
    pub hooks: Vec<(String, u32)>,
    /// Hooks refused and other problems, one line each (print them on stderr).
    pub warnings: Vec<String>,
}

/// The first difference between the words at `addr` and `words`, described; `None` when they
/// are all there.
fn mismatch(m: &mut Machine, addr: u32, words: &[u32]) -> Option<String> {
    for (i, &want) in words.iter().enumerate() {
        let at = addr.wrapping_add(4 * i as u32);
        match m.bus.read32(at) {
            Ok(have) if have == want => {}
            Ok(have) => {
                return Some(format!(
                    "the word at {at:#010x} is {have:#010x}, the profile expects {want:#010x}"
                ));
            }
            Err(_) => return Some(format!("{at:#010x} cannot be read")),
        }
    }
    None
}

/// Install the profile's hooks in `machine`, whose program (`image`, already loaded) the profile
/// should describe. A hook is refused with a warning when its native function is unknown, a
/// symbol it needs has no address, or the profile pins another ELF (every hook refused then).
/// A hook whose words (the instruction words the profile expects at its address) are not the
/// loaded code waits, with a warning: it runs from the first call that finds them there (an
/// overlay the program loads later), and a hooked function whose code is replaced runs as the
/// guest's own again. [`Installed::hooks`] lists the hooks active at once.
pub fn install(machine: &mut Machine, profile: &Profile, image: &[u8]) -> Installed {
    let mut out = Installed::default();
    let src = &profile.source;
    if let Some(want) = profile.elf_fnv1a64 {
        let have = fnv1a64(image);
        if want != have {
            out.warnings.push(format!(
                "{src}: the profile is for the ELF with FNV-1a 64 {want:#018x}, this one is \
                 {have:#018x}: no hooks installed"
            ));
            return out;
        }
    }
    'hooks: for name in &profile.hooks {
        let Some(native) = NATIVES.iter().find(|n| n.name == name) else {
            out.warnings.push(format!(
                "{src}: hook {name}: no native function of that name (known: {})",
                NATIVES
                    .iter()
                    .map(|n| n.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            continue;
        };
        for need in native.needs {
            if profile.address(need).is_none() {
                out.warnings.push(format!(
                    "{src}: hook {name} refused: symbol {need} has no known address"
                ));
                continue 'hooks;
            }
        }
        let sym = &profile.symbols[native.needs[0]];
        let addr = sym.address.unwrap_or(0);
        // The words the profile expects guard the hook at every call: code that is not (or no
        // longer) the profile's runs as the guest's own, and code that arrives later (an
        // overlay loaded from the disc by DMA) is hooked from the first call that finds it.
        let words = sym.words.clone();
        let waiting = mismatch(machine, addr, &words);
        if let Some(why) = &waiting {
            out.warnings.push(format!(
                "{src}: hook {name} waits: {why}; the guest's own code runs until the code \
                 there is the profile's (an overlay loaded later)"
            ));
        }
        let f = (native.make)(profile);
        let entry: HookFn = {
            let f = f.clone();
            if words.is_empty() {
                Arc::new(move |m| f(m, None))
            } else {
                let hook = name.clone();
                let active = Arc::new(std::sync::atomic::AtomicBool::new(waiting.is_none()));
                Arc::new(move |m| {
                    use std::sync::atomic::Ordering;
                    match mismatch(m, addr, &words) {
                        None => {
                            active.store(true, Ordering::Relaxed);
                            f(m, None)
                        }
                        Some(why) => {
                            if active.swap(false, Ordering::Relaxed) {
                                eprintln!(
                                    "piney: warning: hook {hook}: {why}: the code there changed; the guest's own code runs"
                                );
                            }
                            Ok(HookResult::RunGuest)
                        }
                    }
                })
            }
        };
        if let Err(e) = machine.hooks.install(addr, name, entry) {
            out.warnings.push(format!("{src}: {e}"));
            continue;
        }
        if waiting.is_none() {
            out.hooks.push((name.clone(), addr));
        }
        for &r in native.resumes {
            let step: HookFn = {
                let f = f.clone();
                Arc::new(move |m| f(m, Some(r)))
            };
            // A break where the step resumes: reached with the hooks off, the run stops there.
            let _ = machine.bus.write32(r.addr(), RESUME_GUARD);
            if let Err(e) = machine
                .hooks
                .install(r.addr(), &format!("{name} ({r:?})"), step)
            {
                out.warnings.push(format!("{src}: {e}"));
            }
        }
    }
    out
}

// ---- the demo's atan2f_ under PS2 float rules ----

// The constants as gcc's R5900 target stores them: it converts float literals and folds constant
// expressions rounding toward zero, as the FPU does (so 3.14159265f is 0x40490fda, not the IEEE
// nearest 0x40490fdb, and 1.0f / 5 is 0x3e4ccccc).
/// `PI_F` (3.14159265f).
const PI_F: u32 = 0x4049_0fda;
/// `PI_F / 2`.
const PI_F_2: u32 = 0x3fc9_0fda;
/// `PI_F / 8`.
const PI_F_8: u32 = 0x3ec9_0fda;
/// 1/13, 1/11, 1/9, 1/7, 1/5, 1/3.
const ATAN_COEFF: [u32; 6] = [
    0x3d9d_89d8,
    0x3dba_2e8b,
    0x3de3_8e38,
    0x3e12_4924,
    0x3e4c_cccc,
    0x3eaa_aaaa,
];

fn add(a: u32, b: u32) -> u32 {
    float::add(a, b).bits
}
fn sub(a: u32, b: u32) -> u32 {
    float::sub(a, b).bits
}
fn mul(a: u32, b: u32) -> u32 {
    float::mul(a, b).bits
}
fn div(a: u32, b: u32) -> u32 {
    float::div(a, b).bits
}

/// The demo's `atan_unit` (demo/src/mathf.c), operation for operation as gcc compiled it (no
/// fused operations; the odd coefficients stored positive and subtracted), on the PS2 FPU.
fn atan_unit(t: u32) -> u32 {
    let one = float::ONE;
    let u = div(t, add(float::sqrt(add(mul(t, t), one)).bits, one));
    let u2 = mul(u, u);
    let [c13, c11, c9, c7, c5, c3] = ATAN_COEFF;
    let mut s = mul(u2, c13);
    s = sub(s, c11);
    s = add(mul(s, u2), c9);
    s = sub(mul(s, u2), c7);
    s = add(mul(s, u2), c5);
    s = sub(mul(s, u2), c3);
    s = add(mul(s, u2), one);
    s = mul(s, u);
    add(s, s)
}

/// The demo's `atan2f_(y, x)` on PS2 floats (bit patterns in and out).
pub fn ps2_atan2(y: u32, x: u32) -> u32 {
    let zero = 0;
    let ax = if float::lt(x, zero) { float::neg(x) } else { x };
    let ay = if float::lt(y, zero) { float::neg(y) } else { y };
    if float::eq(ax, zero) && float::eq(ay, zero) {
        return 0;
    }
    let mut a = if float::le(ay, ax) {
        atan_unit(div(ay, ax))
    } else {
        sub(PI_F_2, atan_unit(div(ax, ay)))
    };
    if float::lt(x, zero) {
        a = sub(PI_F, a);
    }
    if float::lt(y, zero) { float::neg(a) } else { a }
}

/// `analog_stick`'s angle: `atan2f_(-dx, dy)` of the raw offsets, 0 when dy is 0 (quirk).
fn stick_angle(x: u8, y: u8) -> u32 {
    let (dx, dy) = (x as i32 - 128, y as i32 - 128);
    if dy == 0 {
        return 0;
    }
    ps2_atan2(
        float::from_int((-dx) as u32, 0),
        float::from_int(dy as u32, 0),
    )
}

/// `dpad_direction`'s angle: `(float)e * (PI_F / 8)` by the D-pad bits' eighth (0 for none).
fn dpad_angle(now: u16) -> u32 {
    const EIGHTHS: [i32; 16] = [99, 8, -4, -6, 0, 99, -2, 99, 4, 6, 99, 99, 2, 99, 99, 99];
    match EIGHTHS[(now >> 12) as usize] {
        99 => 0,
        e => mul(float::from_int(e as u32, 0), PI_F_8),
    }
}

// ---- ccPad (demo/src/ccpad.h) ----

/// `analog`: 1 when the last report carried sticks.
const PAD_ANALOG: usize = 0x0b;
/// `actReady`: a DualShock with its actuators set up.
const PAD_ACT_READY: u32 = 0x24;

fn read_report(m: &mut Machine) -> Result<HookResult, MachineError> {
    let (p, buttons_at, sticks_at) = (arg(m, 0), arg(m, 1), arg(m, 2));
    let rec: [u8; 0x1c] = read_bytes(m, p, "ccPad_ReadReport: the ccPad record")?;
    let buttons: [u8; 2] = read_bytes(m, buttons_at, "ccPad_ReadReport: the buttons")?;
    let sticks = if sticks_at == 0 {
        None
    } else {
        Some(read_bytes::<4>(
            m,
            sticks_at,
            "ccPad_ReadReport: the sticks",
        )?)
    };
    let h = |o: usize| u16::from_le_bytes([rec[o], rec[o + 1]]);
    let f = |o: usize| {
        f32::from_bits(u32::from_le_bytes([
            rec[o],
            rec[o + 1],
            rec[o + 2],
            rec[o + 3],
        ]))
    };
    let mut r = PadReader {
        direct: piney_input::Buttons(h(0)),
        push: piney_input::Buttons(h(2)),
        unpush: piney_input::Buttons(h(4)),
        repeat: piney_input::Buttons(h(6)),
        repeat_count: rec[8],
        left: Stick {
            angle: f(0x0c),
            strength: rec[0x14],
        },
        right: Stick {
            angle: f(0x10),
            strength: rec[0x15],
        },
    };
    r.read(buttons, sticks);
    // The angles as the guest computes them (PadReader's come from the host's atan2).
    let now = r.direct.0;
    let (left_angle, right_angle) = match sticks {
        Some([rx, ry, lx, ly]) => {
            let left = if piney_input::reader::analog_stick(lx, ly).is_some() {
                stick_angle(lx, ly)
            } else {
                dpad_angle(now)
            };
            let right = if piney_input::reader::analog_stick(rx, ry).is_some() {
                stick_angle(rx, ry)
            } else {
                0
            };
            (left, right)
        }
        None => (dpad_angle(now), 0),
    };
    let mut out = [0u8; 0x1c];
    out.copy_from_slice(&rec);
    out[0..2].copy_from_slice(&r.direct.0.to_le_bytes());
    out[2..4].copy_from_slice(&r.push.0.to_le_bytes());
    out[4..6].copy_from_slice(&r.unpush.0.to_le_bytes());
    out[6..8].copy_from_slice(&r.repeat.0.to_le_bytes());
    out[8] = r.repeat_count;
    out[PAD_ANALOG] = sticks.is_some() as u8;
    out[0x0c..0x10].copy_from_slice(&left_angle.to_le_bytes());
    out[0x10..0x14].copy_from_slice(&right_angle.to_le_bytes());
    out[0x14] = r.left.strength;
    out[0x15] = r.right.strength;
    out[0x16..0x1a].copy_from_slice(&sticks.unwrap_or([0x80; 4]));
    out[0x1a..0x1c].copy_from_slice(&buttons);
    write_bytes(m, p, &out, "ccPad_ReadReport: the ccPad record")?;
    Ok(HookResult::Return)
}

fn motor_bytes(m: &mut Machine, p: u32) -> Result<[u8; actuator::LAYOUT_SIZE], MachineError> {
    read_bytes(m, p + actuator::LAYOUT_OFFSET, "ccPad motors")
}

fn set_actuater(m: &mut Machine, sw_addr: u32) -> Result<HookResult, MachineError> {
    let (p, small, power, ms) = (arg(m, 0), arg(m, 1), arg(m, 2), arg(m, 3));
    let [sw]: [u8; 1] = read_bytes(m, sw_addr, "ccPad_SetActuater: ccPad_actuaterSw")?;
    let [ready]: [u8; 1] = read_bytes(m, p + PAD_ACT_READY, "ccPad_SetActuater: actReady")?;
    let bytes = motor_bytes(m, p)?;
    // Bytes the queue cannot represent (a motor state other than 1 or 4, a count over 3):
    // let the guest's own code handle them.
    let Ok(mut q) = ActuatorQueue::from_bytes(&bytes, sw != 0, ready != 0) else {
        return Ok(HookResult::RunGuest);
    };
    q.set_actuater(small != 0, power as u8, ms);
    write_bytes(
        m,
        p + actuator::LAYOUT_OFFSET,
        &q.to_bytes(),
        "ccPad motors",
    )?;
    Ok(HookResult::Return)
}

fn act_tick(m: &mut Machine) -> Result<HookResult, MachineError> {
    let (p, frame_rate) = (arg(m, 0), arg(m, 1) as u16);
    let bytes = motor_bytes(m, p)?;
    let Ok(mut q) = ActuatorQueue::from_bytes(&bytes, true, true) else {
        return Ok(HookResult::RunGuest);
    };
    q.tick(frame_rate);
    write_bytes(
        m,
        p + actuator::LAYOUT_OFFSET,
        &q.to_bytes(),
        "ccPad motors",
    )?;
    Ok(HookResult::Return)
}

/// `port`: 0 or 1.
const PAD_PORT: u32 = 0x09;
/// `scePadGetReqState`'s "busy" (libpad).
const REQ_STATE_BUSY: i32 = 2;

/// `ccPad_ActCtrl(p)`: ccPad::Ctrl's motor part. State 4 asks `scePadGetReqState` and looks
/// again (state 1) once the last send is done; state 1 sends what the queue says
/// ([`ActuatorQueue::ctrl`]) with `scePadSetActDirect(port, 0, p->sent)` and waits (state 4).
/// The libpad calls are the game's (guest code); `$s0` keeps the record across them.
fn act_ctrl(
    m: &mut Machine,
    req_state: u32,
    set_act_direct: u32,
    at: Option<Resume>,
) -> Result<HookResult, MachineError> {
    const FRAME: &str = "ccPad_ActCtrl: its frame";
    match at {
        None => {
            let p = arg(m, 0);
            let bytes = motor_bytes(m, p)?;
            let Ok(mut q) = ActuatorQueue::from_bytes(&bytes, true, true) else {
                return Ok(HookResult::RunGuest);
            };
            let port = guest::rd8(m, p + PAD_PORT, "ccPad_ActCtrl: the port")? as u32;
            if q.state() == CtrlState::Wait {
                guest::push_frame(m, FRAME)?;
                guest::set(m, reg::S0, p);
                return Ok(guest::call(
                    m,
                    req_state,
                    &[port, 0],
                    Resume::PadCtrlReqState,
                ));
            }
            if q.ctrl().is_none() {
                return Ok(HookResult::Return);
            }
            write_bytes(
                m,
                p + actuator::LAYOUT_OFFSET,
                &q.to_bytes(),
                "ccPad motors",
            )?;
            guest::push_frame(m, FRAME)?;
            guest::set(m, reg::S0, p);
            let sent = p + actuator::LAYOUT_OFFSET;
            Ok(guest::call(
                m,
                set_act_direct,
                &[port, 0, sent],
                Resume::PadCtrlSent,
            ))
        }
        Some(Resume::PadCtrlReqState) => {
            let p = guest::get(m, reg::S0);
            if guest::get(m, reg::V0) as i32 != REQ_STATE_BUSY {
                let state = p + actuator::LAYOUT_OFFSET + 6;
                guest::wr8(m, state, CtrlState::Look as u8, "ccPad motors")?;
            }
            guest::pop_frame(m, FRAME)?;
            Ok(guest::ret(m))
        }
        Some(Resume::PadCtrlSent) => {
            let p = guest::get(m, reg::S0);
            let bytes = motor_bytes(m, p)?;
            let port = guest::rd8(m, p + PAD_PORT, "ccPad_ActCtrl: the port")?;
            guest::print(
                m,
                &format!(
                    "ccPad::Ctrl: port {port} scePadSetActDirect small {} large {} (queue {})\n",
                    bytes[0], bytes[1], bytes[7]
                ),
            );
            guest::pop_frame(m, FRAME)?;
            Ok(guest::ret(m))
        }
        Some(other) => unreachable!("ccPad_ActCtrl does not resume at {other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guest::RESUME_BASE;

    /// Each resume point belongs to one native (two sharing one would overwrite each other's
    /// hook) and is a distinct word in piney's page of kernel RAM.
    #[test]
    fn resume_points_are_owned_once_and_lie_in_the_reserved_page() {
        let mut seen = std::collections::HashMap::new();
        for n in NATIVES {
            for r in n.resumes {
                if let Some(other) = seen.insert(r.addr(), n.name) {
                    panic!("{r:?} is listed by both {other} and {}", n.name);
                }
                assert!(
                    (RESUME_BASE..RESUME_BASE + 0x1000).contains(&r.addr()),
                    "{r:?}"
                );
                assert_eq!(r.addr() % 8, 0);
            }
        }
        // Every one of the Resume enum's 27 points has its native.
        assert_eq!(seen.len(), 27);
    }
}
