//! The IOP's pad driver (`padman`), served natively: the RPC server Sony's libpad talks to and
//! the pad data frames the IOP writes into EE memory once a vertical blank.
//!
//! Protocol: the one of Sony's libpad with the BIOS's `rom0:PADMAN` (ps2sdk's libpad built
//! without `_XPAD`): libpad binds [`PADMAN_SID`] (0x8000_010f) and [`PADMAN_EXT_SID`]
//! (0x8000_011f), and calls RPC function 1 of the first with a 128-byte block: word 0 the command
//! ([`cmd`]), words 1 and 2 the port and slot, then the command's arguments. The answer is the
//! same block with the result in word 3 (OPEN, CLOSE, END, INIT, GET_PORT_MAX, GET_SLOT_MAX) or
//! word 5 (the others). (The newer XPADMAN / padman.irx protocol, sids 0x8000_0100/0x8000_0101 with
//! commands 1..0x12 and a different frame layout, is not served.)
//!
//! The pad data area (256 bytes at the EE address PORT_OPEN gives) holds two 128-byte frames
//! that the IOP fills alternately, one a vertical blank; libpad reads the one with the larger
//! counter. A frame: +0x00 counter (u32, from 1), +0x04 state ([`state`]), +0x05 request state
//! ([`req`]), +0x06 ok (1 when the data is valid), +0x08 the 32 data bytes, +0x28 the number of
//! valid data bytes (u32); the rest is 0. The data: byte 0 is 0, byte 1 the pad's id (0x41
//! digital, 0x73 analog), bytes 2-3 the buttons (active low), bytes 4-7 RX RY LX LY in analog
//! mode. The IOP sends each frame to the EE by SIF DMA at the vertical blank, as the real
//! padman does.
//!
//! It serves once a program loads `rom0:PADMAN` (ps2sdk's SifLoadModule, as every game does).
//!
//! The pad: a DualShock 2 without its pressure-sensitive mode. After PORT_OPEN a pad is found
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
//! Not implemented (an error naming the command stops the run): the pressure-sensitive mode
//! (GET_BUTTON_MASK, SET_BUTTON_INFO, SET_VREF_PARAM), INFO_COMB, and any call to the extended
//! service.

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
    /// Pressure mode: the button mask (not implemented).
    pub const GET_BUTTON_MASK: u32 = 0x8000_0108;
    /// Pressure mode: set the button info (not implemented).
    pub const SET_BUTTON_INFO: u32 = 0x8000_0109;
    /// Pressure mode: reference voltages (not implemented).
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
#[derive(Debug, Default, Clone, Copy)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Change {
    Mode { offs: u8, lock: bool },
    Align([u8; 6]),
}

/// Where an open port's pad is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

/// One open port (and slot).
#[derive(Debug, Clone)]
struct PortState {
    area: u32,
    frame: u32,
    phase: Phase,
    req: u8,
    /// The mode's offset in the id table (0 digital, 1 analog).
    mode: u8,
    locked: bool,
    align: [u8; 6],
    direct: [u8; 6],
    /// What the host was last told the motors do.
    motors: (bool, u8),
}

impl PortState {
    fn new(area: u32) -> Self {
        Self {
            area,
            frame: 0,
            phase: Phase::Absent,
            req: req::COMPLETE,
            mode: 0,
            locked: false,
            align: [0xff; 6],
            direct: [0; 6],
            motors: (false, 0),
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

    /// Advance one frame with the pad's `report`; returns the frame's bytes.
    fn step(&mut self, report: Option<PadReport>) -> [u8; FRAME_SIZE] {
        let (st, data) = match report {
            None => {
                if self.phase != Phase::Absent {
                    // An unplugged pad forgets its configuration.
                    self.phase = Phase::Absent;
                    self.mode = 0;
                    self.locked = false;
                    self.align = [0xff; 6];
                }
                (state::DISCONN, None)
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
                        (state::FIND_CTP1, Some(pad_data(&r, 0)))
                    }
                    Phase::Querying(n) => {
                        self.phase = if n > 1 {
                            Phase::Querying(n - 1)
                        } else {
                            Phase::Stable
                        };
                        (state::EXEC_CMD, None)
                    }
                    Phase::Command(n, change) if n > 1 => {
                        self.phase = Phase::Command(n - 1, change);
                        (state::EXEC_CMD, None)
                    }
                    Phase::Command(_, change) => {
                        match change {
                            Change::Mode { offs, lock } => {
                                self.mode = offs;
                                self.locked = lock;
                            }
                            Change::Align(a) => self.align = a,
                        }
                        self.req = req::COMPLETE;
                        self.phase = Phase::Stable;
                        (state::STABLE, Some(pad_data(&r, self.mode)))
                    }
                    Phase::Stable | Phase::Absent => (state::STABLE, Some(pad_data(&r, self.mode))),
                }
            }
        };
        self.frame = self.frame.wrapping_add(1);
        let mut f = [0u8; FRAME_SIZE];
        f[0..4].copy_from_slice(&self.frame.to_le_bytes());
        f[4] = st;
        f[5] = self.req;
        match data {
            Some((bytes, len)) => {
                f[6] = 1;
                f[8..40].copy_from_slice(&bytes);
                f[0x28..0x2c].copy_from_slice(&len.to_le_bytes());
            }
            None => f[8..40].fill(0xff),
        }
        f
    }
}

/// The 32 data bytes of `r` in mode `mode` (0 digital, 1 analog) and how many are valid.
fn pad_data(r: &PadReport, mode: u8) -> ([u8; 32], u32) {
    let mut d = [0u8; 32];
    d[2] = r.buttons[0];
    d[3] = r.buttons[1];
    if mode == 1 {
        d[1] = ID_ANALOG;
        // Sticks: RX RY LX LY, centred when the report has none.
        d[4..8].copy_from_slice(&r.sticks.unwrap_or([0x80; 4]));
        (d, 8)
    } else {
        d[1] = ID_DIGITAL;
        (d, 4)
    }
}

/// The native padman: the ports libpad opened and the pads behind them.
pub struct Padman {
    ports: [[Option<PortState>; 4]; 2],
    input: Box<dyn PadInput>,
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
        p.configured()
            .then_some((if p.mode == 1 { ID_ANALOG } else { ID_DIGITAL }, p.locked))
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
        let Self { ports, input } = self;
        let mut frames = Vec::new();
        if ports.iter().flatten().all(Option::is_none) {
            return frames;
        }
        input.begin_frame(vblank);
        for (port, slots) in ports.iter_mut().enumerate() {
            if slots.iter().all(Option::is_none) {
                continue;
            }
            let report = input.report(port as u8);
            for (slot, entry) in slots.iter_mut().enumerate() {
                let Some(p) = entry.as_mut() else {
                    continue;
                };
                // Only slot 0 has a pad: there is no multitap.
                let bytes = p.step(if slot == 0 { report } else { None });
                let half = (p.frame & 1) * FRAME_SIZE as u32;
                frames.push((p.area.wrapping_add(half), bytes.to_vec()));
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

    fn open(&mut self, port: u32, slot: u32, area: u32) -> u32 {
        if port >= 2 || slot >= 4 {
            return 0;
        }
        // The area: 16-byte aligned (the IOP's DMA unit), 256 bytes of EE RAM.
        let phys = (area & 0x1fff_ffff) as usize;
        if area & 0xf != 0 || phys + AREA_SIZE > RAM_SIZE {
            return 0;
        }
        self.close(port as usize, slot as usize);
        self.ports[port as usize][slot as usize] = Some(PortState::new(area));
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
                p.phase = Phase::Command(COMMAND_FRAMES, change);
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
    fn sid(&self) -> u32 {
        PADMAN_SID
    }

    fn name(&self) -> &str {
        "padman"
    }

    fn modules(&self) -> &[&'static str] {
        &["PADMAN"]
    }

    fn buffer_size(&self) -> u32 {
        128
    }

    fn vblank(&mut self, iop: &mut Iop, vblank: u64) {
        self.frame(vblank, iop);
    }

    fn call(
        &mut self,
        _iop: &mut Iop,
        fno: u32,
        args: &[u8],
        _token: u32,
    ) -> Result<Reply, String> {
        self.answer(fno, args).map(Reply::Now)
    }

    fn reset(&mut self) {
        self.close_all();
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

impl Padman {
    /// Answer function `fno` with libpad's argument block `args`: the reply block.
    pub fn answer(&mut self, fno: u32, args: &[u8]) -> Result<Vec<u8>, String> {
        if fno != 1 {
            return Err(format!(
                "RPC function {fno} (libpad always calls function 1)"
            ));
        }
        let w = |i: usize| {
            if args.len() >= 4 * i + 4 {
                word(args, 4 * i)
            } else {
                0
            }
        };
        let (c, port, slot) = (w(0), w(1), w(2));
        let mut reply = args.to_vec();
        reply.resize(128, 0);
        let (at, result) = match c {
            cmd::INIT => (3, 1),
            cmd::OPEN => (3, self.open(port, slot, w(4))),
            cmd::CLOSE => {
                let open = port < 2 && slot < 4 && self.close(port as usize, slot as usize);
                (3, open as u32)
            }
            cmd::END => {
                self.close_all();
                (3, 1)
            }
            cmd::GET_PORT_MAX => (3, 2),
            cmd::GET_SLOT_MAX => (3, (port < 2) as u32),
            cmd::INFO_MODE => (5, self.info_mode(port, slot, w(3), w(4))),
            cmd::INFO_ACT => (5, self.info_act(port, slot, w(3), w(4))),
            cmd::SET_MAIN_MODE => {
                let (offs, lock) = (w(3), w(4));
                if offs as usize >= MODE_TABLE.len() {
                    (5, 0)
                } else {
                    let change = Change::Mode {
                        offs: offs as u8,
                        // Lock 3 keeps the user from changing the mode with the ANALOG button.
                        lock: lock == 3,
                    };
                    (5, self.command(port, slot, change))
                }
            }
            cmd::SET_ACT_ALIGN => (5, self.command(port, slot, Change::Align(six_bytes(args)))),
            cmd::SET_ACT_DIRECT => match self.port_mut(port, slot) {
                Some(p) => {
                    p.direct = six_bytes(args);
                    (5, 1)
                }
                None => (5, 0),
            },
            cmd::INFO_COMB => {
                return Err("INFO_COMB (actuator combinations) is not implemented".into());
            }
            cmd::GET_BUTTON_MASK | cmd::SET_BUTTON_INFO | cmd::SET_VREF_PARAM => {
                return Err(format!(
                    "command {c:#010x} (the pressure-sensitive mode) is not implemented"
                ));
            }
            other => return Err(format!("unknown command {other:#010x}")),
        };
        put_word(&mut reply, 4 * at, result);
        Ok(reply)
    }
}

/// The extended service libpad binds to; it has no functions here.
#[derive(Debug, Default)]
pub struct PadmanExt;

impl NativeServer for PadmanExt {
    fn sid(&self) -> u32 {
        PADMAN_EXT_SID
    }
    fn name(&self) -> &str {
        "padman (extended service)"
    }
    fn modules(&self) -> &[&'static str] {
        &["PADMAN"]
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

/// Add padman's two servers to the IOP (they serve once rom0:PADMAN is loaded).
pub fn install(iop: &mut Iop) {
    iop.add_server(Box::new(Padman::new()));
    iop.add_server(Box::new(PadmanExt));
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

    fn stable_port() -> PortState {
        let mut p = PortState::new(0x0010_0000);
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
        let f = p.step(Some(PadReport::IDLE));
        assert_eq!((f[4], f[6], f[9]), (state::STABLE, 1, ID_ANALOG));
        let f = p.step(None);
        assert_eq!((f[4], f[6], f[8]), (state::DISCONN, 0, 0xff));
        assert_eq!((p.mode, p.align), (0, [0xff; 6]));
        let f = p.step(Some(PadReport::IDLE));
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
                let f = p.step(Some(PadReport::IDLE));
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
}
