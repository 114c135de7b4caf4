//! The IOP's pad driver (`padman`), served natively: the RPC server Sony's libpad talks to and
//! the pad data frames the IOP writes into EE memory once a vertical blank.
//!
//! Protocols: both of libpad's. The old one, Sony's libpad with the BIOS's `rom0:PADMAN` (ps2sdk's
//! libpad when only PADMAN is loaded): libpad binds [`PADMAN_SID`] (0x8000_010f) and
//! [`PADMAN_EXT_SID`] (0x8000_011f), and calls RPC function 1 of the first with a 128-byte block:
//! word 0 the command ([`cmd`]), words 1 and 2 the port and slot, then the command's arguments.
//! The answer is the same block with the result in word 3 (OPEN, CLOSE, END, INIT, GET_PORT_MAX,
//! GET_SLOT_MAX) or word 5 (the others). The new one, `rom0:XPADMAN` (and ps2sdk's padman.irx,
//! which implements it): [`XPADMAN_SID`] (0x8000_0100) and [`XPADMAN_EXT_SID`] (0x8000_0101),
//! commands 1..0x12 ([`xcmd`]) with the results in the same words; XPADMAN also answers the old
//! sids, mapping an old command 0x8000_01nn to nn + 1. A newer libpad binds the new sid first, so
//! with XPADMAN loaded it speaks the new protocol; with PADMAN only, the old.
//!
//! The pad data area (256 bytes at the EE address PORT_OPEN gives) holds two frames that the IOP
//! fills alternately, one a vertical blank; libpad reads the one with the larger counter. Three
//! layouts ([`Layout`]):
//! - old, 64-byte frames at +0 and +0x40 (rom0:PADMAN's; ps2sdk's libpad clears the data of both
//!   before the open) or 128-byte frames at +0 and +0x80 (other clients; ours in
//!   tools/guest/libpad.c). The open tells them apart by what the client cleared, as Play! does:
//!   128 when the data at +0x88 reads 0xff and the data at +0x48 does not. A frame: +0x00 counter
//!   (u32, from 1), +0x04 state ([`state`]), +0x05 request state ([`req`]), +0x06 ok (1 when the
//!   data is valid), +0x08 the 32 data bytes, +0x28 the number of valid data bytes (u32); the
//!   rest is 0.
//! - new (XPADMAN after INIT), 128-byte frames: +0x00 the 32 data bytes, +0x20 the six direct
//!   motor values, +0x28 the six alignment bytes, +0x30 four actuators (function, sub-function,
//!   size, current), +0x40 the actuator combinations, +0x50 the mode table (u16 x 4), +0x58
//!   counter, +0x5c find retries, +0x60 valid data bytes, +0x64 mode configuration (0 none,
//!   2 ready), +0x65 the pad's id (0xf3 in config mode), +0x66 model (3: DualShock 2), +0x67
//!   data ready, +0x68 modes, +0x69 mode offset, +0x6a actuators, +0x6b combinations, +0x6d mode,
//!   +0x6e lock, +0x6f direct size, +0x70 state, +0x71 request state, +0x72 current task
//!   ([`task`]). libpad answers mode and actuator queries from these fields itself. INIT also
//!   names a 256-byte status area: two 128-byte blocks, one a vertical blank (odd counts at +0,
//!   even at +0x80), each a counter and a word per port whose bit `slot` says a pad is there.
//!
//! The data: byte 0 is 0, byte 1 the pad's id (0x41 digital, 0x73 analog), bytes 2-3 the buttons
//! (active low), bytes 4-7 RX RY LX LY in analog mode. The IOP sends each frame to the EE by SIF
//! DMA at the vertical blank, as the real padman does.
//!
//! It serves once a program loads `rom0:PADMAN` or `rom0:XPADMAN` (ps2sdk's SifLoadModule, as
//! every game does).
//!
//! The pad: a DualShock 2. After PORT_OPEN a pad is found
//! ([`FIND_FRAMES`] frames in FindCTP1, digital data), queried ([`QUERY_FRAMES`] frames in
//! ExecCmd: one pad command per frame) and then Stable in digital mode. SET_MAIN_MODE and
//! SET_ACT_ALIGN make the request state Busy and take [`COMMAND_FRAMES`] frames (enter config
//! mode, the command, exit): the last one applies the change and shows Stable / Complete. Its
//! modes are digital (id table entry 4) and analog (7); its actuators a small on/off motor and a
//! large one with a power byte. The motors follow SET_ACT_DIRECT's six bytes through the
//! alignment SET_ACT_ALIGN set (byte i drives the small motor when `align[i]` is 0, the large one
//! when it is 1) while the pad is Stable; a change goes to the host at the next frame
//! ([`PadInput::rumble`]), and the motors stop when the port closes or the pad goes away.
//!
//! The pressure-sensitive mode (ps2sdk's padman `padMiscFuncs.c`/`padPortOpen.c`, libpad's
//! padInfoPressMode/padEnterPressMode; the DualShock 2's poll-format command 0x4F):
//! GET_BUTTON_MASK answers the pad's button mask, 0x3FFFF (18 response bytes: two of buttons,
//! four of sticks, twelve of pressures), once the pad is Stable, else 0 (result word 3).
//! SET_BUTTON_INFO (result word 4) sends `info << 6 | 0x3F` as the response mask: the request is
//! Busy for [`BUTTON_INFO_FRAMES`] frames (config mode, the mask, twelve reference voltages,
//! exit), then in analog mode the pad answers the bytes the mask selects, in order (right, left,
//! up, down, triangle, circle, cross, square, L1, R1, L2, R2 after the sticks), its id 0x70 +
//! the halfwords (0x79 with all twelve); the new layout's +0x6c byte becomes 1. SET_VREF_PARAM
//! (result word 7) is Busy for [`VREF_FRAMES`] frames and changes no data. The host's buttons
//! have no pressure: a held button reads 0xFF, a released one 0. A mode change keeps the mask;
//! an unplugged pad forgets it.
//!
//! Not implemented (an error naming the command stops the run): the old protocol's INFO_COMB,
//! and any call to the extended services. An unknown new-protocol command is answered as
//! XPADMAN does: the block comes back unchanged (and one line says so).

use std::any::Any;

use piney_input::PadReport;
use piney_input::script::InputScript;
use piney_iop::Iop;
use piney_iop::modules::fileio::{put_word, word};
use piney_iop::modules::{NativeServer, Reply};

use crate::Machine;
use crate::bus::RAM_SIZE;

/// The pad functions' server id (rom0:PADMAN).
pub const PADMAN_SID: u32 = 0x8000_010f;
/// The extended service's server id (bound by libpad, never called).
pub const PADMAN_EXT_SID: u32 = 0x8000_011f;
/// The new protocol's pad functions (rom0:XPADMAN).
pub const XPADMAN_SID: u32 = 0x8000_0100;
/// The new protocol's extended service (bound, never called).
pub const XPADMAN_EXT_SID: u32 = 0x8000_0101;
/// What padGetModVersion answers: 3.6, the version of ps2sdk's padman.irx, the one open
/// implementation of this protocol (a console's XPADMAN version was not available to check).
pub const XPADMAN_VERSION: u32 = 0x0306;

/// The new protocol's commands (word 0 of the argument block).
pub mod xcmd {
    /// Open a port: port, slot, +16 the EE pad data area. Result in word 3.
    pub const OPEN: u32 = 0x01;
    /// Actuator information (libpad reads the frame instead).
    pub const INFO_ACT: u32 = 0x03;
    /// Actuator combinations (libpad reads the frame instead).
    pub const INFO_COMB: u32 = 0x04;
    /// Mode information (libpad reads the frame instead).
    pub const INFO_MODE: u32 = 0x05;
    /// Set the main mode: port, slot, offset, lock.
    pub const SET_MAIN_MODE: u32 = 0x06;
    /// The motors' values.
    pub const SET_ACT_DIRECT: u32 = 0x07;
    /// Which motor each value drives.
    pub const SET_ACT_ALIGN: u32 = 0x08;
    /// Pressure mode: the button mask.
    pub const GET_BUTTON_MASK: u32 = 0x09;
    /// Pressure mode: which buttons report their pressure.
    pub const SET_BUTTON_INFO: u32 = 0x0a;
    /// Pressure mode: reference voltages.
    pub const SET_VREF_PARAM: u32 = 0x0b;
    /// How many ports.
    pub const GET_PORT_MAX: u32 = 0x0c;
    /// How many slots a port has.
    pub const GET_SLOT_MAX: u32 = 0x0d;
    /// Close a port.
    pub const CLOSE: u32 = 0x0e;
    /// Close everything, forget the status area.
    pub const END: u32 = 0x0f;
    /// Initialise: +16 the EE status area (256 bytes, 64-byte aligned).
    pub const INIT: u32 = 0x10;
    /// The module's version.
    pub const GET_MODVER: u32 = 0x12;
}

/// The new layout's current task byte: what the pad's driver thread is doing.
pub mod task {
    /// Reading the pad (or looking for one): mode and actuator queries are answered.
    pub const UPDATE_PAD: u8 = 1;
    /// Querying a newly found pad.
    pub const QUERY_PAD: u8 = 2;
    /// Setting the main mode.
    pub const SET_MAIN_MODE: u8 = 4;
    /// Setting the actuator alignment.
    pub const SET_ACT_ALIGN: u8 = 5;
    /// Setting the response mask (pressures).
    pub const SET_BUTTON_INFO: u8 = 6;
    /// Setting the pressures' reference voltages.
    pub const SET_VREF_PARAM: u8 = 7;
}

/// The commands (word 0 of the argument block).
pub mod cmd {
    /// Open a port: port, slot, +12 unused, +16 the EE pad data area. Result: 1 / 0.
    pub const OPEN: u32 = 0x8000_0100;
    /// Actuator information: port, slot, actuator (-1: how many), term (1..4).
    pub const INFO_ACT: u32 = 0x8000_0102;
    /// Actuator combinations (not implemented).
    pub const INFO_COMB: u32 = 0x8000_0103;
    /// Mode information: port, slot, term (1..4), offset (-1: how many).
    pub const INFO_MODE: u32 = 0x8000_0104;
    /// Set the main mode: port, slot, offset in the id table, lock (3 locks).
    pub const SET_MAIN_MODE: u32 = 0x8000_0105;
    /// The motors' values: port, slot, six bytes at +12.
    pub const SET_ACT_DIRECT: u32 = 0x8000_0106;
    /// Which motor each SET_ACT_DIRECT byte drives: port, slot, six bytes at +12.
    pub const SET_ACT_ALIGN: u32 = 0x8000_0107;
    /// Pressure mode: the button mask: port, slot.
    pub const GET_BUTTON_MASK: u32 = 0x8000_0108;
    /// Pressure mode: set the button info: port, slot, the buttons (bit per pressure byte).
    pub const SET_BUTTON_INFO: u32 = 0x8000_0109;
    /// Pressure mode: reference voltages: port, slot, twelve bytes.
    pub const SET_VREF_PARAM: u32 = 0x8000_010a;
    /// How many ports.
    pub const GET_PORT_MAX: u32 = 0x8000_010b;
    /// How many slots a port has (1: no multitap).
    pub const GET_SLOT_MAX: u32 = 0x8000_010c;
    /// Close a port: port, slot, +16 mode.
    pub const CLOSE: u32 = 0x8000_010d;
    /// Close everything.
    pub const END: u32 = 0x8000_010e;
    /// Initialise.
    pub const INIT: u32 = 0x0000_0100;
}

/// The frame's state byte (scePadState*).
pub mod state {
    /// No pad.
    pub const DISCONN: u8 = 0;
    /// Looking for a pad.
    pub const FIND_PAD: u8 = 1;
    /// A pad answers but is not configured yet.
    pub const FIND_CTP1: u8 = 2;
    /// A command sequence runs on the pad.
    pub const EXEC_CMD: u8 = 5;
    /// Ready.
    pub const STABLE: u8 = 6;
    /// The pad does not answer.
    pub const ERROR: u8 = 7;
}

/// The frame's request state byte (scePadReqState*).
pub mod req {
    /// The last request completed.
    pub const COMPLETE: u8 = 0;
    /// The last request failed.
    pub const FAILED: u8 = 1;
    /// A request runs.
    pub const BUSY: u8 = 2;
}

/// Frames a newly found pad spends in FindCTP1.
pub const FIND_FRAMES: u32 = 2;
/// Frames the query after it takes (ExecCmd): enter config mode, the model, two actuators, one
/// combination, two modes, the actuator alignment, the button mask, exit config mode.
pub const QUERY_FRAMES: u32 = 10;
/// Frames SET_MAIN_MODE and SET_ACT_ALIGN take (enter config mode, the command, exit); the last
/// one shows the result.
pub const COMMAND_FRAMES: u32 = 3;
/// Frames SET_BUTTON_INFO takes: enter config mode, the response mask, the twelve pressures'
/// reference voltages, exit.
pub const BUTTON_INFO_FRAMES: u32 = 15;
/// Frames SET_VREF_PARAM takes: enter config mode, twelve reference voltages, exit.
pub const VREF_FRAMES: u32 = 14;
/// The button mask a DualShock 2 answers (its query 0x41): 18 response bytes.
pub const BUTTON_MASK_DUALSHOCK2: u32 = 0x3_ffff;
/// The response mask of analog mode without pressures: the buttons and the sticks.
const RESPONSE_ANALOG: u32 = 0x3f;
/// One frame of the pad data area.
pub const FRAME_SIZE: usize = 0x80;
/// The pad data area: two frames.
pub const AREA_SIZE: usize = 2 * FRAME_SIZE;

/// The pad's id byte in digital mode (4 in the id table, one halfword of data).
pub const ID_DIGITAL: u8 = 0x41;
/// The pad's id byte in analog mode (7 in the id table, three halfwords).
pub const ID_ANALOG: u8 = 0x73;
/// The mode id table of a DualShock 2 (what its query command 0x4c answers): digital, analog.
const MODE_TABLE: [u32; 2] = [4, 7];
/// The pad's id byte in config mode.
pub const ID_CONFIG: u8 = 0xf3;
/// The new layout's mode configuration once the pad is queried: it takes config commands.
const MODE_CONFIG_READY: u8 = 2;
/// The new layout's model byte of a DualShock 2.
const MODEL_DUALSHOCK2: u8 = 3;
/// The actuator combinations (the pad's query 0x47): one, of two actuators, 0 and 1.
const COMB_TABLE: [u8; 4] = [2, 0, 1, 0];
/// The actuators (the pad's query 0x46): function (1 vibration), sub-function, data size (0 on/off,
/// 1 a byte), current (in 10 mA units); the small motor first.
const ACT_TABLE: [[u32; 4]; 2] = [[1, 2, 0, 10], [1, 1, 1, 20]];

/// Where the pads come from and where their motors go: the host side of padman. Ports are
/// libpad's: 0 is port 1, 1 is port 2.
pub trait PadInput {
    /// A vertical blank starts (numbered from 1, as [`Machine::vblank_count`]); called once
    /// before that frame's reports.
    fn begin_frame(&mut self, _vblank: u64) {}
    /// The report of the pad in `port` this frame, `None` when no pad is there.
    fn report(&mut self, port: u8) -> Option<PadReport>;
    /// The pad in `port` runs its motors so: the small one on or off, the large one at `large`
    /// (0 stops it). Called when what the pad runs changes.
    fn rumble(&mut self, port: u8, small: bool, large: u8);
}

/// The default pads: a DualShock 2 with nothing held in port 1, nothing in port 2; rumble goes
/// nowhere.
#[derive(Debug, Default, Clone, Copy, serde::Serialize, serde::Deserialize)]
pub struct DefaultPads;

impl PadInput for DefaultPads {
    fn report(&mut self, port: u8) -> Option<PadReport> {
        (port == 0).then_some(PadReport::IDLE)
    }
    fn rumble(&mut self, _port: u8, _small: bool, _large: u8) {}
}

/// Pads played from an input script (`--input FILE`): the script's report at each vertical
/// blank (port 1 always, port 2 when the script names it); rumble goes nowhere.
#[derive(Debug, Clone)]
pub struct ScriptPads {
    script: InputScript,
    vblank: u64,
}

impl ScriptPads {
    /// Pads following `script`.
    pub fn new(script: InputScript) -> Self {
        Self { script, vblank: 0 }
    }
}

impl PadInput for ScriptPads {
    fn begin_frame(&mut self, vblank: u64) {
        self.vblank = vblank;
    }
    fn report(&mut self, port: u8) -> Option<PadReport> {
        self.script.report(port, self.vblank)
    }
    fn rumble(&mut self, _port: u8, _small: bool, _large: u8) {}
}

/// A change a command makes when its last frame comes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
enum Change {
    Mode {
        offs: u8,
        lock: bool,
    },
    Align([u8; 6]),
    /// The response mask (bit per byte after the id).
    ButtonInfo(u32),
    Vref,
}

impl Change {
    /// Frames the command takes, and the task byte while it runs.
    fn frames_and_task(self) -> (u32, u8) {
        match self {
            Change::Mode { .. } => (COMMAND_FRAMES, task::SET_MAIN_MODE),
            Change::Align(_) => (COMMAND_FRAMES, task::SET_ACT_ALIGN),
            Change::ButtonInfo(_) => (BUTTON_INFO_FRAMES, task::SET_BUTTON_INFO),
            Change::Vref => (VREF_FRAMES, task::SET_VREF_PARAM),
        }
    }
}

/// Where an open port's pad is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
enum Phase {
    /// No pad answers.
    Absent,
    /// Found, not configured: frames left.
    Finding(u32),
    /// Queried: frames left.
    Querying(u32),
    /// Ready.
    Stable,
    /// A command runs: frames left, what it changes.
    Command(u32, Change),
}

/// How an open port's frames are laid out (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Layout {
    /// The old protocol, 64-byte frames (rom0:PADMAN's).
    Old64,
    /// The old protocol, 128-byte frames.
    Old128,
    /// The new protocol (XPADMAN after INIT).
    New,
}

impl Layout {
    /// The distance between the two frames.
    fn stride(self) -> u32 {
        match self {
            Layout::Old64 => 0x40,
            Layout::Old128 | Layout::New => 0x80,
        }
    }

    /// The old layout a client expects, from the area it cleared before the open: 128-byte
    /// frames when the second frame's data at +0x88 reads 0xff and +0x48 does not.
    pub fn detect_old(area: &[u8]) -> Layout {
        let cleared = |at: usize| area.get(at..at + 4).is_some_and(|b| b == [0xff; 4]);
        if cleared(0x88) && !cleared(0x48) {
            Layout::Old128
        } else {
            Layout::Old64
        }
    }
}

/// One frame as the pad driver sees it, before a layout puts it in bytes.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
struct Frame {
    counter: u32,
    state: u8,
    req: u8,
    /// The data bytes and how many are valid, when valid.
    data: Option<([u8; 32], u32)>,
    /// The new layout's current task, mode configuration and id byte.
    task: u8,
    config: u8,
    id: u8,
}

/// One open port (and slot).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct PortState {
    area: u32,
    layout: Layout,
    frame: u32,
    phase: Phase,
    req: u8,
    /// The mode's offset in the id table (0 digital, 1 analog).
    mode: u8,
    locked: bool,
    /// SET_MAIN_MODE's lock argument, as the new layout shows it.
    lock_arg: u8,
    align: [u8; 6],
    direct: [u8; 6],
    /// What the host was last told the motors do.
    motors: (bool, u8),
    /// The response mask in analog mode (bit per byte after the id: buttons, sticks,
    /// pressures).
    response: u32,
    /// The new layout's +0x6c byte: a SET_BUTTON_INFO completed.
    button_info_set: u8,
}

impl PortState {
    fn new(area: u32, layout: Layout) -> Self {
        Self {
            area,
            layout,
            frame: 0,
            phase: Phase::Absent,
            req: req::COMPLETE,
            mode: 0,
            locked: false,
            lock_arg: 0,
            align: [0xff; 6],
            direct: [0; 6],
            motors: (false, 0),
            response: RESPONSE_ANALOG,
            button_info_set: 0,
        }
    }

    /// The pad is configured: it answers mode and actuator queries.
    fn configured(&self) -> bool {
        matches!(self.phase, Phase::Stable | Phase::Command(..))
    }

    /// The motors as the direct values and the alignment give them.
    fn motors_wanted(&self) -> (bool, u8) {
        if self.phase != Phase::Stable {
            return (false, 0);
        }
        let (mut small, mut large) = (false, 0);
        for (a, v) in self.align.iter().zip(self.direct) {
            match a {
                // The small motor is on/off: the pad runs it for the value 1 (bit 0).
                0 => small |= v & 1 != 0,
                1 => large = v,
                _ => {}
            }
        }
        (small, large)
    }

    /// Advance one frame with the pad's `report`; returns the frame.
    fn step(&mut self, report: Option<PadReport>) -> Frame {
        // (state, data, current task, mode configuration) of this frame.
        let (st, data, task, config) = match report {
            None => {
                if self.phase != Phase::Absent {
                    // An unplugged pad forgets its configuration.
                    self.phase = Phase::Absent;
                    self.mode = 0;
                    self.locked = false;
                    self.lock_arg = 0;
                    self.align = [0xff; 6];
                    self.response = RESPONSE_ANALOG;
                    self.button_info_set = 0;
                }
                (state::DISCONN, None, task::UPDATE_PAD, 0)
            }
            Some(r) => {
                if self.phase == Phase::Absent {
                    self.phase = Phase::Finding(FIND_FRAMES);
                }
                match self.phase {
                    Phase::Finding(n) => {
                        self.phase = if n > 1 {
                            Phase::Finding(n - 1)
                        } else {
                            Phase::Querying(QUERY_FRAMES)
                        };
                        (
                            state::FIND_CTP1,
                            Some(pad_data(&r, 0, RESPONSE_ANALOG)),
                            task::UPDATE_PAD,
                            0,
                        )
                    }
                    Phase::Querying(n) => {
                        self.phase = if n > 1 {
                            Phase::Querying(n - 1)
                        } else {
                            Phase::Stable
                        };
                        (state::EXEC_CMD, None, task::QUERY_PAD, 0)
                    }
                    Phase::Command(n, change) if n > 1 => {
                        self.phase = Phase::Command(n - 1, change);
                        let (_, t) = change.frames_and_task();
                        (state::EXEC_CMD, None, t, MODE_CONFIG_READY)
                    }
                    Phase::Command(_, change) => {
                        match change {
                            Change::Mode { offs, lock } => {
                                self.mode = offs;
                                self.locked = lock;
                            }
                            Change::Align(a) => self.align = a,
                            Change::ButtonInfo(mask) => {
                                self.response = mask;
                                self.button_info_set = 1;
                            }
                            Change::Vref => {}
                        }
                        self.req = req::COMPLETE;
                        self.phase = Phase::Stable;
                        (
                            state::STABLE,
                            Some(pad_data(&r, self.mode, self.response)),
                            task::UPDATE_PAD,
                            MODE_CONFIG_READY,
                        )
                    }
                    Phase::Stable | Phase::Absent => (
                        state::STABLE,
                        Some(pad_data(&r, self.mode, self.response)),
                        task::UPDATE_PAD,
                        MODE_CONFIG_READY,
                    ),
                }
            }
        };
        self.frame = self.frame.wrapping_add(1);
        let id = match (st, data) {
            (state::DISCONN, _) => 0,
            // In config mode a DualShock answers with id 0xf3.
            (_, None) => ID_CONFIG,
            (_, Some((d, _))) => d[1],
        };
        Frame {
            counter: self.frame,
            state: st,
            req: self.req,
            data,
            task,
            config,
            id,
        }
    }

    /// `f` in this port's layout: the bytes and where they go.
    fn frame_bytes(&self, f: &Frame) -> (u32, Vec<u8>) {
        let at = self
            .area
            .wrapping_add((f.counter & 1) * self.layout.stride());
        let mut b = vec![0u8; self.layout.stride() as usize];
        match self.layout {
            Layout::Old64 | Layout::Old128 => {
                b[0..4].copy_from_slice(&f.counter.to_le_bytes());
                b[4] = f.state;
                b[5] = f.req;
                match f.data {
                    Some((bytes, len)) => {
                        b[6] = 1;
                        b[8..40].copy_from_slice(&bytes);
                        b[0x28..0x2c].copy_from_slice(&len.to_le_bytes());
                    }
                    None => b[8..40].fill(0xff),
                }
            }
            Layout::New => {
                let configured = f.config == MODE_CONFIG_READY;
                match f.data {
                    Some((bytes, len)) => {
                        b[0..32].copy_from_slice(&bytes);
                        b[0x60..0x64].copy_from_slice(&len.to_le_bytes());
                        b[0x67] = 1;
                    }
                    None => b[0..32].fill(0xff),
                }
                b[0x20..0x26].copy_from_slice(&self.direct);
                b[0x28..0x2e].copy_from_slice(&self.align);
                b[0x2e..0x30].fill(0xff);
                if configured || f.task == task::QUERY_PAD {
                    for (i, a) in ACT_TABLE.iter().enumerate() {
                        for (k, v) in a.iter().enumerate() {
                            b[0x30 + 4 * i + k] = *v as u8;
                        }
                    }
                    b[0x40..0x44].copy_from_slice(&COMB_TABLE);
                    for (i, m) in MODE_TABLE.iter().enumerate() {
                        b[0x50 + 2 * i..0x52 + 2 * i].copy_from_slice(&(*m as u16).to_le_bytes());
                    }
                    b[0x66] = MODEL_DUALSHOCK2;
                    b[0x68] = MODE_TABLE.len() as u8;
                    b[0x69] = self.mode;
                    b[0x6a] = ACT_TABLE.len() as u8;
                    b[0x6b] = 1;
                    b[0x6f] = 6;
                }
                b[0x58..0x5c].copy_from_slice(&f.counter.to_le_bytes());
                b[0x64] = f.config;
                b[0x65] = f.id;
                b[0x6c] = self.button_info_set;
                b[0x6d] = self.mode;
                b[0x6e] = self.lock_arg;
                b[0x70] = f.state;
                b[0x71] = f.req;
                b[0x72] = f.task;
            }
        }
        (at, b)
    }
}

/// Where each pressure byte's button is in the report (byte, bit): right, left, up, down,
/// triangle, circle, cross, square, L1, R1, L2, R2 (the order the DualShock 2 sends them).
const PRESSURE_BUTTONS: [(usize, u8); 12] = [
    (0, 5),
    (0, 7),
    (0, 4),
    (0, 6),
    (1, 4),
    (1, 5),
    (1, 6),
    (1, 7),
    (1, 2),
    (1, 3),
    (1, 0),
    (1, 1),
];

/// The 32 data bytes of `r` in mode `mode` (0 digital, 1 analog) with the analog `response`
/// mask, and how many are valid: byte 1 the id (0x41 digital; in analog mode 0x70 + the
/// halfwords that follow), then the bytes the mask selects.
fn pad_data(r: &PadReport, mode: u8, response: u32) -> ([u8; 32], u32) {
    let mut d = [0u8; 32];
    if mode != 1 {
        d[1] = ID_DIGITAL;
        d[2] = r.buttons[0];
        d[3] = r.buttons[1];
        return (d, 4);
    }
    let mut all = [0u8; 18];
    all[0] = r.buttons[0];
    all[1] = r.buttons[1];
    // Sticks: RX RY LX LY, centred when the report has none.
    all[2..6].copy_from_slice(&r.sticks.unwrap_or([0x80; 4]));
    for (k, (byte, bit)) in PRESSURE_BUTTONS.iter().enumerate() {
        // Active low: a held button is at full pressure.
        all[6 + k] = if r.buttons[*byte] & (1 << bit) == 0 {
            0xff
        } else {
            0
        };
    }
    let mut n = 0;
    for (k, v) in all.iter().enumerate() {
        if response & (1 << k) != 0 {
            d[2 + n] = *v;
            n += 1;
        }
    }
    d[1] = analog_id(response);
    (d, 2 + 2 * (d[1] as u32 & 0xf))
}

/// The analog mode's id byte with the `response` mask: 0x70 + the halfwords after the id (0x73
/// for buttons and sticks, 0x79 with all twelve pressures).
fn analog_id(response: u32) -> u8 {
    0x70 | (response & BUTTON_MASK_DUALSHOCK2).count_ones().div_ceil(2) as u8
}

fn default_input() -> Box<dyn PadInput> {
    Box::new(DefaultPads)
}

/// The native padman: the ports libpad opened and the pads behind them.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct Padman {
    ports: [[Option<PortState>; 4]; 2],
    /// Where the pads' state comes from (the host's: a loaded state keeps the running one).
    #[serde(skip, default = "default_input")]
    input: Box<dyn PadInput>,
    /// The new protocol's status area (INIT's) and its block counter.
    status: Option<(u32, u32)>,
    /// Unknown commands already reported.
    unknown_logged: std::collections::BTreeSet<u32>,
}

impl Default for Padman {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Padman {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Padman")
            .field("ports", &self.ports)
            .finish()
    }
}

impl Padman {
    /// No port open, the [`DefaultPads`].
    pub fn new() -> Self {
        Self {
            ports: Default::default(),
            input: Box::new(DefaultPads),
            status: None,
            unknown_logged: Default::default(),
        }
    }

    /// Take the pads from `input` from now on.
    pub fn set_input(&mut self, input: Box<dyn PadInput>) {
        self.input = input;
    }

    /// The pad's current id byte and whether its mode is locked, for an open `port`/`slot`
    /// whose pad is configured.
    pub fn mode(&self, port: u8, slot: u8) -> Option<(u8, bool)> {
        let p = self.port(port as u32, slot as u32)?;
        p.configured().then_some((
            if p.mode == 1 {
                analog_id(p.response)
            } else {
                ID_DIGITAL
            },
            p.locked,
        ))
    }

    fn port(&self, port: u32, slot: u32) -> Option<&PortState> {
        self.ports.get(port as usize)?.get(slot as usize)?.as_ref()
    }

    fn port_mut(&mut self, port: u32, slot: u32) -> Option<&mut PortState> {
        self.ports
            .get_mut(port as usize)?
            .get_mut(slot as usize)?
            .as_mut()
    }

    /// Close a port: its motors stop. Returns whether it was open.
    fn close(&mut self, port: usize, slot: usize) -> bool {
        match self.ports[port][slot].take() {
            Some(p) => {
                if p.motors != (false, 0) {
                    self.input.rumble(port as u8, false, 0);
                }
                true
            }
            None => false,
        }
    }

    fn close_all(&mut self) {
        for port in 0..2 {
            for slot in 0..4 {
                self.close(port, slot);
            }
        }
    }

    /// One vertical blank: every open port's pad is polled, its frame sent to its EE area over
    /// SIF0, changed motors sent to the host.
    pub fn frame(&mut self, vblank: u64, iop: &mut Iop) {
        for (dest, bytes) in self.poll(vblank) {
            iop.send_to_ee(dest, bytes);
        }
    }

    /// Poll every open port for one vertical blank: the frames to send (EE address, bytes), in
    /// port and slot order. Changed motors go to the host here.
    pub fn poll(&mut self, vblank: u64) -> Vec<(u32, Vec<u8>)> {
        let Self {
            ports,
            input,
            status,
            ..
        } = self;
        let mut frames = Vec::new();
        if ports.iter().flatten().all(Option::is_none) && status.is_none() {
            return frames;
        }
        input.begin_frame(vblank);
        let reports = [input.report(0), input.report(1)];
        if let Some((area, count)) = status {
            // The status block goes first, as XPADMAN's transfer list has it.
            *count = count.wrapping_add(1);
            let mut b = vec![0u8; 0x80];
            b[0..4].copy_from_slice(&count.to_le_bytes());
            for (port, r) in reports.iter().enumerate() {
                // Bit `slot` of the port's word: a pad answers there (slot 0 only: no multitap).
                b[4 + 4 * port] = r.is_some() as u8;
            }
            let at = area.wrapping_add(if *count % 2 == 0 { 0x80 } else { 0 });
            frames.push((at, b));
        }
        for (port, slots) in ports.iter_mut().enumerate() {
            for (slot, entry) in slots.iter_mut().enumerate() {
                let Some(p) = entry.as_mut() else {
                    continue;
                };
                // Only slot 0 has a pad: there is no multitap.
                let f = p.step(if slot == 0 { reports[port] } else { None });
                frames.push(p.frame_bytes(&f));
                if slot == 0 {
                    let want = p.motors_wanted();
                    if want != p.motors {
                        p.motors = want;
                        input.rumble(port as u8, want.0, want.1);
                    }
                }
            }
        }
        frames
    }

    fn open(&mut self, port: u32, slot: u32, area: u32, layout: Layout) -> u32 {
        if port >= 2 || slot >= 4 {
            return 0;
        }
        // The area: 16-byte aligned (the IOP's DMA unit; libpad asks 64 for the new layout),
        // 256 bytes of EE RAM.
        let phys = (area & 0x1fff_ffff) as usize;
        if area & 0xf != 0 || phys + AREA_SIZE > RAM_SIZE {
            return 0;
        }
        self.close(port as usize, slot as usize);
        self.ports[port as usize][slot as usize] = Some(PortState::new(area, layout));
        1
    }

    fn info_mode(&self, port: u32, slot: u32, term: u32, offs: u32) -> u32 {
        let Some(p) = self.port(port, slot).filter(|p| p.configured()) else {
            return 0;
        };
        match term {
            // InfoModeCurID: the id's high nibble.
            1 => MODE_TABLE[p.mode as usize],
            // InfoModeCurExID: the current mode's id table entry.
            2 => MODE_TABLE[p.mode as usize],
            // InfoModeCurExOffs.
            3 => p.mode as u32,
            // InfoModeIdTable: -1 asks how many.
            4 if offs == u32::MAX => MODE_TABLE.len() as u32,
            4 => MODE_TABLE.get(offs as usize).copied().unwrap_or(0),
            _ => 0,
        }
    }

    fn info_act(&self, port: u32, slot: u32, act: u32, term: u32) -> u32 {
        if !self.port(port, slot).is_some_and(PortState::configured) {
            return 0;
        }
        if act == u32::MAX {
            return ACT_TABLE.len() as u32;
        }
        match (ACT_TABLE.get(act as usize), term) {
            (Some(a), 1..=4) => a[term as usize - 1],
            _ => 0,
        }
    }

    /// Start a command on a Stable pad with no request running. Returns 1 when started.
    fn command(&mut self, port: u32, slot: u32, change: Change) -> u32 {
        match self.port_mut(port, slot) {
            Some(p) if p.phase == Phase::Stable => {
                p.phase = Phase::Command(change.frames_and_task().0, change);
                p.req = req::BUSY;
                1
            }
            _ => 0,
        }
    }
}

fn six_bytes(args: &[u8]) -> [u8; 6] {
    let mut b = [0u8; 6];
    for (i, v) in b.iter_mut().enumerate() {
        *v = args.get(12 + i).copied().unwrap_or(0);
    }
    b
}

impl NativeServer for Padman {
    /// The pads' input (the host's keyboard, pads or script) is not the state: a loaded state
    /// keeps the running machine's.
    fn save_state(&self) -> Result<Vec<u8>, String> {
        piney_iop::state::encode(self)
    }
    fn decode_state(&self, bytes: &[u8]) -> Result<Box<dyn Any>, String> {
        Ok(Box::new(piney_iop::state::decode::<Self>(bytes)?))
    }
    fn apply_state(&mut self, state: Box<dyn Any>) {
        if let Ok(mut s) = state.downcast::<Self>() {
            s.input = std::mem::replace(&mut self.input, Box::new(DefaultPads));
            *self = *s;
        }
    }

    fn sid(&self) -> u32 {
        PADMAN_SID
    }

    fn name(&self) -> &str {
        "padman"
    }

    fn modules(&self) -> &[&'static str] {
        // XPADMAN answers the old sid too.
        &["PADMAN", "XPADMAN"]
    }

    fn buffer_size(&self) -> u32 {
        128
    }

    fn vblank(&mut self, iop: &mut Iop, vblank: u64) {
        self.frame(vblank, iop);
    }

    fn call(&mut self, iop: &mut Iop, fno: u32, args: &[u8], _token: u32) -> Result<Reply, String> {
        let layout = if self.status.is_some() {
            // The client initialised the new protocol: XPADMAN writes new frames for both sids.
            Layout::New
        } else if word_at(args, 0) == cmd::OPEN {
            Layout::detect_old(&iop.ee_read(word_at(args, 4), AREA_SIZE).unwrap_or_default())
        } else {
            Layout::Old64
        };
        self.answer_as(fno, args, Protocol::Old, layout)
            .map(Reply::Now)
    }

    fn reset(&mut self) {
        self.close_all();
        self.status = None;
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// Which command numbering a call uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Protocol {
    /// 0x8000_01nn ([`cmd`]).
    Old,
    /// 1..0x12 ([`xcmd`]).
    New,
}

/// Word `i` of an argument block (0 past its end).
fn word_at(args: &[u8], i: usize) -> u32 {
    if args.len() >= 4 * i + 4 {
        word(args, 4 * i)
    } else {
        0
    }
}

impl Padman {
    /// Answer function `fno` with an old-protocol argument block `args` (a client that opens
    /// with 128-byte frames): the reply block.
    pub fn answer(&mut self, fno: u32, args: &[u8]) -> Result<Vec<u8>, String> {
        self.answer_as(fno, args, Protocol::Old, Layout::Old128)
    }

    /// Answer function `fno` with argument block `args` in `protocol`; an OPEN lays its frames
    /// out as `layout`.
    pub fn answer_as(
        &mut self,
        fno: u32,
        args: &[u8],
        protocol: Protocol,
        layout: Layout,
    ) -> Result<Vec<u8>, String> {
        if fno != 1 {
            return Err(format!(
                "RPC function {fno} (libpad always calls function 1)"
            ));
        }
        let w = |i: usize| word_at(args, i);
        let (raw, port, slot) = (w(0), w(1), w(2));
        let mut reply = args.to_vec();
        reply.resize(128, 0);
        // One numbering: an old command 0x8000_01nn is new command nn + 1 (XPADMAN maps them so).
        let c = match protocol {
            Protocol::New if raw & 0x100 != 0 && raw & 0x8000_0000 != 0 => (raw & 0xff) + 1,
            Protocol::New => raw,
            Protocol::Old if raw & 0xffff_ff00 == 0x8000_0100 => (raw & 0xff) + 1,
            // The old INIT (0x100), which neither padman implements: the block comes back.
            Protocol::Old => 0x100 | raw,
        };
        let (at, result) = match c {
            xcmd::INIT if protocol == Protocol::New => {
                self.close_all();
                // The status area: 256 bytes of EE RAM, 64-byte aligned as libpad's.
                let area = w(4);
                let phys = (area & 0x1fff_ffff) as usize;
                self.status = (area != 0 && area & 0x3f == 0 && phys + AREA_SIZE <= RAM_SIZE)
                    .then_some((area, 0));
                (3, 1)
            }
            xcmd::GET_MODVER if protocol == Protocol::New => (3, XPADMAN_VERSION),
            xcmd::OPEN => (3, self.open(port, slot, w(4), layout)),
            xcmd::CLOSE => {
                let open = port < 2 && slot < 4 && self.close(port as usize, slot as usize);
                (3, open as u32)
            }
            xcmd::END => {
                self.close_all();
                self.status = None;
                (3, 1)
            }
            xcmd::GET_PORT_MAX => (3, 2),
            xcmd::GET_SLOT_MAX => (3, (port < 2) as u32),
            xcmd::INFO_MODE => (5, self.info_mode(port, slot, w(3), w(4))),
            xcmd::INFO_ACT => (5, self.info_act(port, slot, w(3), w(4))),
            xcmd::INFO_COMB => (5, self.info_comb(port, slot, w(3), w(4))),
            xcmd::SET_MAIN_MODE => {
                let (offs, lock) = (w(3), w(4));
                if offs as usize >= MODE_TABLE.len() {
                    (5, 0)
                } else {
                    let change = Change::Mode {
                        offs: offs as u8,
                        // Lock 3 keeps the user from changing the mode with the ANALOG button.
                        lock: lock == 3,
                    };
                    let r = self.command(port, slot, change);
                    if r == 1
                        && let Some(p) = self.port_mut(port, slot)
                    {
                        p.lock_arg = lock as u8;
                    }
                    (5, r)
                }
            }
            xcmd::SET_ACT_ALIGN => (5, self.command(port, slot, Change::Align(six_bytes(args)))),
            xcmd::SET_ACT_DIRECT => match self.port_mut(port, slot) {
                Some(p) => {
                    p.direct = six_bytes(args);
                    (5, 1)
                }
                None => (5, 0),
            },
            xcmd::GET_BUTTON_MASK => {
                // padman answers once the pad is queried and no command runs.
                let stable = self
                    .port(port, slot)
                    .is_some_and(|p| p.phase == Phase::Stable);
                (3, if stable { BUTTON_MASK_DUALSHOCK2 } else { 0 })
            }
            xcmd::SET_BUTTON_INFO => {
                let mask = ((w(3) << 6) | RESPONSE_ANALOG) & BUTTON_MASK_DUALSHOCK2;
                (4, self.command(port, slot, Change::ButtonInfo(mask)))
            }
            xcmd::SET_VREF_PARAM => (7, self.command(port, slot, Change::Vref)),
            _ => {
                // Both padmans print "invalid function code" and answer the block unchanged.
                if self.unknown_logged.insert(raw) {
                    eprintln!(
                        "piney: padman: invalid function code {raw:#x}; the block comes back unchanged"
                    );
                }
                return Ok(reply);
            }
        };
        put_word(&mut reply, 4 * at, result);
        Ok(reply)
    }

    /// Actuator combination `list`, entry `offs` (-1 the count of actuators in it).
    fn info_comb(&self, port: u32, slot: u32, list: u32, offs: u32) -> u32 {
        if !self.port(port, slot).is_some_and(PortState::configured) {
            return 0;
        }
        match (list, offs) {
            (u32::MAX, _) => 1,
            (0, u32::MAX) => COMB_TABLE[0] as u32,
            (0, 0..=2) => COMB_TABLE[offs as usize + 1] as u32,
            _ => u32::MAX,
        }
    }
}

/// An extended service libpad binds to; it has no functions here.
#[derive(Debug)]
pub struct PadmanExt {
    sid: u32,
    modules: &'static [&'static str],
}

impl PadmanExt {
    /// rom0:PADMAN's (XPADMAN has it too).
    pub fn old() -> Self {
        Self {
            sid: PADMAN_EXT_SID,
            modules: &["PADMAN", "XPADMAN"],
        }
    }
    /// XPADMAN's.
    pub fn new_protocol() -> Self {
        Self {
            sid: XPADMAN_EXT_SID,
            modules: &["XPADMAN"],
        }
    }
}

impl NativeServer for PadmanExt {
    /// Its id and modules are fixed when it is made: nothing of it changes.
    fn save_state(&self) -> Result<Vec<u8>, String> {
        piney_iop::state::encode(&self.sid)
    }
    fn decode_state(&self, bytes: &[u8]) -> Result<Box<dyn Any>, String> {
        let sid: u32 = piney_iop::state::decode(bytes)?;
        if sid != self.sid {
            return Err(format!(
                "padman's extended service {sid:#x} is not {:#x}",
                self.sid
            ));
        }
        Ok(Box::new(()))
    }
    fn apply_state(&mut self, _: Box<dyn Any>) {}

    fn sid(&self) -> u32 {
        self.sid
    }
    fn name(&self) -> &str {
        "padman (extended service)"
    }
    fn modules(&self) -> &[&'static str] {
        self.modules
    }
    fn buffer_size(&self) -> u32 {
        128
    }
    fn call(
        &mut self,
        _iop: &mut Iop,
        fno: u32,
        _args: &[u8],
        _token: u32,
    ) -> Result<Reply, String> {
        Err(format!(
            "RPC function {fno}: the extended service is not implemented"
        ))
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// XPADMAN's new-protocol server: the same pads as [`Padman`] (it answers through it).
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct XPadman;

impl NativeServer for XPadman {
    piney_iop::whole_server_state!();

    fn sid(&self) -> u32 {
        XPADMAN_SID
    }
    fn name(&self) -> &str {
        "xpadman"
    }
    fn modules(&self) -> &[&'static str] {
        &["XPADMAN"]
    }
    fn buffer_size(&self) -> u32 {
        128
    }
    fn call(&mut self, iop: &mut Iop, fno: u32, args: &[u8], _token: u32) -> Result<Reply, String> {
        let padman = iop
            .modules
            .server_mut::<Padman>()
            .ok_or("the pad driver is not installed")?;
        // Without INIT's status area XPADMAN writes the old 64-byte frames.
        let layout = if padman.status.is_some() {
            Layout::New
        } else {
            Layout::Old64
        };
        padman
            .answer_as(fno, args, Protocol::New, layout)
            .map(Reply::Now)
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// Add padman's servers to the IOP: the old protocol's two serve once rom0:PADMAN or
/// rom0:XPADMAN is loaded, the new protocol's two once rom0:XPADMAN is.
pub fn install(iop: &mut Iop) {
    iop.add_server(Box::new(Padman::new()));
    iop.add_server(Box::new(PadmanExt::old()));
    iop.add_server(Box::new(XPadman));
    iop.add_server(Box::new(PadmanExt::new_protocol()));
}

impl Machine {
    /// The native padman.
    pub fn padman(&mut self) -> Option<&mut Padman> {
        self.bus.iop.modules.server_mut::<Padman>()
    }

    /// Take the pads from `input` (the default: [`DefaultPads`]). Call after [`Machine::new`] or
    /// [`Machine::reset`], which start with the default.
    pub fn set_pad_input(&mut self, input: Box<dyn PadInput>) {
        if let Some(p) = self.padman() {
            p.set_input(input);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One frame of `p` in its layout's bytes.
    fn step_bytes(p: &mut PortState, r: Option<PadReport>) -> Vec<u8> {
        let f = p.step(r);
        p.frame_bytes(&f).1
    }

    fn stable_port() -> PortState {
        let mut p = PortState::new(0x0010_0000, Layout::Old128);
        p.phase = Phase::Stable;
        p
    }

    #[test]
    fn motors_follow_the_alignment() {
        let mut p = stable_port();
        p.direct = [0xc0, 1, 0, 0, 0, 0];
        assert_eq!(p.motors_wanted(), (false, 0), "no alignment: nothing runs");
        // Swapped: byte 0 drives the large motor, byte 1 the small one.
        p.align = [1, 0, 0xff, 0xff, 0xff, 0xff];
        assert_eq!(p.motors_wanted(), (true, 0xc0));
        p.direct = [0, 2, 0, 0, 0, 0];
        assert_eq!(p.motors_wanted(), (false, 0), "the small motor runs for 1");
        p.direct = [0x40, 1, 0, 0, 0, 0];
        p.phase = Phase::Command(2, Change::Align(p.align));
        assert_eq!(p.motors_wanted(), (false, 0), "not while a command runs");
    }

    #[test]
    fn a_lost_pad_forgets_its_mode_and_alignment() {
        let mut p = stable_port();
        p.mode = 1;
        p.align = [0, 1, 0xff, 0xff, 0xff, 0xff];
        let f = step_bytes(&mut p, Some(PadReport::IDLE));
        assert_eq!((f[4], f[6], f[9]), (state::STABLE, 1, ID_ANALOG));
        let f = step_bytes(&mut p, None);
        assert_eq!((f[4], f[6], f[8]), (state::DISCONN, 0, 0xff));
        assert_eq!((p.mode, p.align), (0, [0xff; 6]));
        let f = step_bytes(&mut p, Some(PadReport::IDLE));
        assert_eq!((f[4], f[9]), (state::FIND_CTP1, ID_DIGITAL));
        assert_eq!(u32::from_le_bytes(f[0..4].try_into().unwrap()), 3);
    }

    #[test]
    fn mode_changes_take_three_frames() {
        let mut pm = Padman::new();
        pm.ports[0][0] = Some(stable_port());
        let change = Change::Mode {
            offs: 1,
            lock: true,
        };
        assert_eq!(pm.command(0, 0, change), 1);
        assert_eq!(pm.command(0, 0, change), 0, "busy");
        let p = pm.ports[0][0].as_mut().unwrap();
        let states: Vec<(u8, u8)> = (0..4)
            .map(|_| {
                let f = step_bytes(p, Some(PadReport::IDLE));
                (f[4], f[5])
            })
            .collect();
        assert_eq!(
            states,
            [
                (state::EXEC_CMD, req::BUSY),
                (state::EXEC_CMD, req::BUSY),
                (state::STABLE, req::COMPLETE),
                (state::STABLE, req::COMPLETE)
            ]
        );
        assert_eq!(pm.mode(0, 0), Some((ID_ANALOG, true)));
    }

    /// An old-protocol call of command `c` for port 0 slot 0 with `arg` in word 3: the reply.
    fn call(pm: &mut Padman, c: u32, arg: u32) -> Vec<u8> {
        let mut a = vec![0u8; 128];
        put_word(&mut a, 0, c);
        put_word(&mut a, 12, arg);
        pm.answer(1, &a).unwrap()
    }

    #[test]
    fn the_pressure_mode_reports_every_button_pressure() {
        let mut pm = Padman::new();
        // Not open: no mask, nothing starts.
        assert_eq!(word(&call(&mut pm, cmd::GET_BUTTON_MASK, 0), 12), 0);
        pm.ports[0][0] = Some(stable_port());
        // libpad's padInfoPressMode compares the mask with 0x3ffff.
        assert_eq!(word(&call(&mut pm, cmd::GET_BUTTON_MASK, 0), 12), 0x3ffff);
        // padEnterPressMode: SET_BUTTON_INFO 0xfff, result in word 4; Busy for 15 frames.
        assert_eq!(word(&call(&mut pm, cmd::SET_BUTTON_INFO, 0xfff), 16), 1);
        assert_eq!(
            word(&call(&mut pm, cmd::SET_BUTTON_INFO, 0xfff), 16),
            0,
            "busy"
        );
        assert_eq!(word(&call(&mut pm, cmd::GET_BUTTON_MASK, 0), 12), 0, "busy");
        let p = pm.ports[0][0].as_mut().unwrap();
        p.mode = 1;
        // Held: cross (second byte bit 6) and up (first byte bit 4); active low.
        let held = PadReport {
            buttons: [!0x10, !0x40],
            sticks: Some([1, 2, 3, 4]),
        };
        for n in 0..BUTTON_INFO_FRAMES - 1 {
            let f = step_bytes(p, Some(held));
            assert_eq!((f[4], f[5]), (state::EXEC_CMD, req::BUSY), "frame {n}");
        }
        let f = step_bytes(p, Some(held));
        assert_eq!((f[4], f[5], f[9]), (state::STABLE, req::COMPLETE, 0x79));
        // 20 bytes: id header, buttons, sticks, then right, left, up, down, triangle, circle,
        // cross, square, L1, R1, L2, R2.
        assert_eq!(u32::from_le_bytes(f[0x28..0x2c].try_into().unwrap()), 20);
        let mut want = vec![!0x10u8, !0x40, 1, 2, 3, 4];
        want.extend([0, 0, 0xff, 0, 0, 0, 0xff, 0, 0, 0, 0, 0]);
        assert_eq!(&f[10..28], &want[..]);
        assert_eq!(pm.mode(0, 0), Some((0x79, false)));
        // padExitPressMode: analog again (0x73, 8 bytes).
        assert_eq!(word(&call(&mut pm, cmd::SET_BUTTON_INFO, 0), 16), 1);
        let p = pm.ports[0][0].as_mut().unwrap();
        for _ in 0..BUTTON_INFO_FRAMES {
            step_bytes(p, Some(held));
        }
        let f = step_bytes(p, Some(held));
        assert_eq!((f[9], f[0x28]), (ID_ANALOG, 8));
        // Only L2 and R2 (bits 10 and 11): the pad sends the bytes selected, 0x70 + 4 halfwords.
        assert_eq!(word(&call(&mut pm, cmd::SET_BUTTON_INFO, 0xc00), 16), 1);
        let p = pm.ports[0][0].as_mut().unwrap();
        for _ in 0..BUTTON_INFO_FRAMES {
            step_bytes(p, Some(held));
        }
        let f = step_bytes(p, Some(held));
        assert_eq!((f[9], f[0x28]), (0x74, 10));
        assert_eq!(&f[10..18], &[!0x10u8, !0x40, 1, 2, 3, 4, 0, 0]);
        // SET_VREF_PARAM: result in word 7, Busy for 14 frames, the data unchanged.
        assert_eq!(word(&call(&mut pm, cmd::SET_VREF_PARAM, 0), 28), 1);
        let p = pm.ports[0][0].as_mut().unwrap();
        for _ in 0..VREF_FRAMES - 1 {
            assert_eq!(step_bytes(p, Some(held))[5], req::BUSY);
        }
        let f = step_bytes(p, Some(held));
        assert_eq!((f[5], f[9]), (req::COMPLETE, 0x74));
    }
}
