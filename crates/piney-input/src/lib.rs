//! piney-input: the engine's pad reader (`ccPad::Read`) and motor queue (`SetActuater`,
//! `ccSystem::Ctrl`'s countdown, `ccPad::Ctrl`), re-implemented natively and exactly as the
//! engine reference ("The pad") and issue 5 give them, quirks included; and the host's pads
//! that feed them: real pads through gilrs (feature `gilrs`, on by default) with rumble, and
//! the keyboard.
//!
//! Contract: [`PadReader::read`] takes the two active-low button bytes and, in analog mode,
//! the four stick bytes exactly as a DualShock 2 reports them; [`ActuatorQueue`] holds the
//! motor queue in a form that serialises to `ccPad` +0x28..+0x3f; [`run_trace`] runs the
//! `piney pad-trace` script language. Host pads sit behind [`PadBackend`], which hands out
//! the same two-byte (plus sticks) reports per port and turns what `ccPad::Ctrl` sends into
//! force feedback. Nothing here reads the clock or depends on the emulator; bad input (trace
//! scripts, mapping files, guest bytes) gives an error naming what and where, never a panic.

pub mod actuator;
pub mod backend;
pub mod buttons;
#[cfg(feature = "gilrs")]
pub mod gilrs_backend;
pub mod keyboard;
pub mod mapping;
pub mod reader;
pub mod script;
pub mod text;
pub mod trace;

pub use actuator::{ActuatorEntry, ActuatorQueue, CtrlState, LayoutError, Motors};
pub use backend::{
    FakeDevices, FakeHost, FfLevels, HostButton, HostDevices, HostEvent, HostPads, HostState,
    PadBackend, PadReport, Port, PortEvent,
};
pub use buttons::Buttons;
#[cfg(feature = "gilrs")]
pub use gilrs_backend::{GilrsDevices, GilrsPads};
pub use keyboard::Keyboard;
pub use mapping::{GamepadMap, KeyMap, Mapping, MappingError};
pub use reader::{PadReader, Stick};
pub use trace::{TraceError, run_trace};
