//! piney-frontend: piney's window. It runs an emulated machine (anything implementing
//! [`Emulator`]) in a winit window, paced by NTSC vertical blanks against the host clock, and
//! presents its pictures through wgpu.
//!
//! Contract:
//! - [`run_window`] opens a resizable window (F11 or Alt+Enter: fullscreen; Escape: quit),
//!   feeds the keyboard (port 1) and gilrs pads (ports 1 and 2) to [`Emulator::set_pad`],
//!   sends [`Emulator::take_rumble`]'s motor sends to the pads, runs
//!   [`Emulator::run_vblank`] at 59.94 Hz ([`Pacer`]: exact, no drift; after a stall at most
//!   a few vblanks are caught up, then the schedule restarts, so the game never runs fast),
//!   and presents each new picture. Tab held fast-forwards (unpaced). The emulator's sound
//!   ([`Emulator::take_audio`]) plays through [`audio::Player`] (cpal; the picture paces, the
//!   sound follows by a stretch of at most 0.5%; see the module). With no display it returns
//!   [`FrontendError::NoDisplay`], whose message is "no display available; run with
//!   --headless".
//! - The picture is shown 4:3, letterboxed ([`layout::letterbox`]), or stretched over the
//!   window, sharp bilinear (the window's default: solid texels, the pixel two texels share
//!   mixed by coverage, exactly nearest at integer factors) or nearest neighbour
//!   ([`layout::Scaling`]), moved by the display offset (native pixels and rows, black where it
//!   left) and optionally deflickered, by `shaders/present.wgsl` in integer arithmetic.
//!   [`Headless`] renders the same presentation offscreen and reads it back;
//!   [`reference::present_with`] is the same arithmetic on the CPU. All three agree bit for
//!   bit. The on-screen display ([`osd`]) is drawn over the picture by its own pass.
//! - This crate knows nothing of the emulator's crates: they meet at [`Emulator`] and
//!   [`Frame`].

pub mod audio;
mod error;
mod frame;
mod gpu;
pub mod jitter;
pub mod layout;
pub mod osd;
pub mod pacing;
pub mod reference;
mod session;
mod window;

pub use audio::{AudioOptions, AudioStats, FastForwardAudio, Player};
pub use error::FrontendError;
pub use frame::{Emulator, Frame, FrameError, GpuPixels, MAX_FRAME_SIDE, StateKey};
pub use gpu::{GPU_PACKAGES, Gpu, Headless, PRESENT_WGSL, Presenter, SharedGpu};
pub use pacing::{DEFAULT_MAX_CATCH_UP, NTSC_PERIOD_NS, Pacer};
pub use session::{Advance, Session};
pub use window::{WindowOptions, WindowStats, check_display, run_window};

#[cfg(test)]
mod shader_tests {
    use std::path::Path;

    /// Every WGSL file under `shaders/` parses and validates with naga; a file whose first line
    /// is `// requires: NAME.wgsl` is validated after that file, as its crate concatenates them.
    #[test]
    fn every_shader_validates() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shaders");
        let mut count = 0;
        let mut entries: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries {
            if path.extension().is_none_or(|e| e != "wgsl") {
                continue;
            }
            let mut src = std::fs::read_to_string(&path).unwrap();
            if let Some(dep) = src
                .lines()
                .next()
                .and_then(|l| l.strip_prefix("// requires: "))
            {
                let dep = std::fs::read_to_string(dir.join(dep.trim()))
                    .unwrap_or_else(|e| panic!("{}: {dep}: {e}", path.display()));
                src = dep + &src;
            }
            let module = naga::front::wgsl::parse_str(&src)
                .unwrap_or_else(|e| panic!("{}: {}", path.display(), e.emit_to_string(&src)));
            naga::valid::Validator::new(
                naga::valid::ValidationFlags::all(),
                naga::valid::Capabilities::empty(),
            )
            .validate(&module)
            .unwrap_or_else(|e| panic!("{}: {}", path.display(), e.emit_to_string(&src)));
            count += 1;
        }
        assert!(count >= 1, "no .wgsl files in {}", dir.display());
        // The presenter's shader is among them, and is the one the crate embeds.
        let present = std::fs::read_to_string(dir.join("present.wgsl")).unwrap();
        assert_eq!(present, crate::PRESENT_WGSL);
    }

    /// naga rejects a broken shader (the test above can fail).
    #[test]
    fn a_broken_shader_is_rejected() {
        let bad = "@fragment fn f() -> @location(0) vec4<f32> { return 1; }";
        let parsed = naga::front::wgsl::parse_str(bad);
        let invalid = match parsed {
            Err(_) => true,
            Ok(m) => naga::valid::Validator::new(
                naga::valid::ValidationFlags::all(),
                naga::valid::Capabilities::empty(),
            )
            .validate(&m)
            .is_err(),
        };
        assert!(invalid);
    }
}
