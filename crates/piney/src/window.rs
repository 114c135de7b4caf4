//! The windowed session: the machine behind piney-frontend's [`Emulator`] boundary. One vertical
//! blank of emulated time per call, the presented picture when it changed, the host's pads fed to
//! the emulated padman, and padman's motor sends back to the host's pads.

use std::sync::{Arc, Mutex};

use piney_frontend::{Emulator, Frame, WindowOptions, run_window};
use piney_input::{Motors, PadReport, Port};
use piney_machine::sif::padman::PadInput;
use piney_machine::{Machine, RunEnd, RunLimits};

use crate::run::RunOptions;

/// What the window and the emulated padman share: the host pads' reports and the motors padman
/// last asked for.
#[derive(Debug, Default)]
struct HostPadState {
    reports: [Option<PadReport>; 2],
    rumble: Vec<(Port, Motors)>,
}

/// padman's pads, as the window's pads (keyboard and gilrs) report them.
struct HostPads(Arc<Mutex<HostPadState>>);

impl PadInput for HostPads {
    fn report(&mut self, port: u8) -> Option<PadReport> {
        let state = self.0.lock().unwrap_or_else(|e| e.into_inner());
        state.reports.get(port as usize).copied().flatten()
    }
    fn rumble(&mut self, port: u8, small: bool, large: u8) {
        let port = if port == 0 { Port::One } else { Port::Two };
        let mut state = self.0.lock().unwrap_or_else(|e| e.into_inner());
        state.rumble.push((port, Motors { small, large }));
    }
}

/// The machine as the window runs it.
struct MachineSession<'a> {
    machine: &'a mut Machine,
    pads: Arc<Mutex<HostPadState>>,
    deflicker: bool,
    frames: Option<u64>,
    seconds: Option<f64>,
    ended: bool,
    last: Option<Vec<u8>>,
}

impl Emulator for MachineSession<'_> {
    fn run_vblank(&mut self) -> Result<Option<Frame>, String> {
        let next = self.machine.vblank_count + 1;
        let limits = RunLimits {
            frames: Some(next),
            seconds: self.seconds,
        };
        match self.machine.run(limits).map_err(|e| e.to_string())? {
            RunEnd::FrameLimit => {}
            RunEnd::Exited(_) | RunEnd::TimeLimit => self.ended = true,
        }
        if self.frames.is_some_and(|f| self.machine.vblank_count >= f) {
            self.ended = true;
        }
        let Some(img) = self.machine.frame(piney_gs::Pcrtc {
            deflicker: self.deflicker,
        }) else {
            return Ok(None);
        };
        // Only a changed picture is presented again.
        if self.last.as_ref() == Some(&img.rgba) {
            return Ok(None);
        }
        self.last = Some(img.rgba.clone());
        Frame::new(img.width, img.height, img.rgba)
            .map(Some)
            .map_err(|e| e.to_string())
    }

    fn set_pad(&mut self, port: Port, report: Option<PadReport>) {
        let mut state = self.pads.lock().unwrap_or_else(|e| e.into_inner());
        state.reports[port as usize] = report;
    }

    fn take_rumble(&mut self) -> Vec<(Port, Motors)> {
        let mut state = self.pads.lock().unwrap_or_else(|e| e.into_inner());
        std::mem::take(&mut state.rumble)
    }

    fn finished(&self) -> bool {
        self.ended
    }
}

/// Run `machine` in a window until the guest exits, a limit is reached or the window closes.
pub fn run(machine: &mut Machine, opts: &RunOptions, title: &str) -> Result<(), String> {
    if opts.dump_frames.is_some() {
        return Err(
            "--dump-frames needs --headless (frames are written from headless runs)".into(),
        );
    }
    let pads = Arc::new(Mutex::new(HostPadState::default()));
    if opts.input.is_none() {
        machine.set_pad_input(Box::new(HostPads(pads.clone())));
    }
    let mut session = MachineSession {
        machine,
        pads,
        deflicker: opts.deflicker,
        frames: opts.frames,
        seconds: opts.seconds,
        ended: false,
        last: None,
    };
    let options = WindowOptions {
        title: format!("piney: {title}"),
        ..Default::default()
    };
    run_window(&mut session, options)
        .map(|_| ())
        .map_err(|e| e.to_string())
}
